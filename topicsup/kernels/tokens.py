"""Texts to word ids without a Python object per token: the tokenizer's runs of letters found
in an array of code points, and each run interned in a hash table of code-point strings
(open addressing, the whole word compared on every probe, so two words never share an id).
``topicsup.streaming`` feeds it chunks of lowercased texts; what the rule is (runs of
letters, at least ``min_length`` long, stop words dropped) is ``topicsup.text``'s.

The table's arrays (``Table``) are grown by the caller: ``intern_docs`` stops before a
document that might not fit and says where it stopped."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import I32, I64, Array

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)
EMPTY = -1   # a free slot


class Table(NamedTuple):
    """The interned words: ``slots`` (power of two) hold ids or ``EMPTY``; word ``i`` is
    ``chars[starts[i]:starts[i + 1]]`` with hash ``hashes[i]``; ``total[i]`` its tokens,
    ``docs[i]`` the documents holding it (``last[i]`` the last one counted), ``stop[i]``
    whether the tokenizer drops it. ``used``: [words, chars] in use."""

    slots: I64
    hashes: Array
    starts: I64
    chars: Array
    total: I64
    docs: I64
    last: I64
    stop: Array
    used: I64


@njit(cache=True, nogil=True, inline="always")
def _hash(cps: Array, lo: int, hi: int) -> np.uint64:
    h = FNV_OFFSET
    for i in range(lo, hi):   # FNV-1a over the code points
        h = (h ^ np.uint64(cps[i])) * FNV_PRIME
    return h


@njit(cache=True, nogil=True)
def _find(t: Table, cps: Array, lo: int, hi: int, h: np.uint64) -> tuple[int, int]:
    """(id, slot) of the word ``cps[lo:hi]``: id -1 and the free slot where it would go."""
    mask = t.slots.shape[0] - 1
    s = np.int64(h & np.uint64(mask))
    n = hi - lo
    while True:
        i = t.slots[s]
        if i == EMPTY:
            return -1, int(s)
        if t.hashes[i] == h and t.starts[i + 1] - t.starts[i] == n:
            a = t.starts[i]
            same = True
            for j in range(n):
                if t.chars[a + j] != cps[lo + j]:
                    same = False
                    break
            if same:
                return i, int(s)
        s = (s + 1) & mask


@njit(cache=True, nogil=True)
def _insert(t: Table, cps: Array, lo: int, hi: int, h: np.uint64, s: int) -> int:
    i = t.used[0]
    a = t.used[1]
    for j in range(hi - lo):
        t.chars[a + j] = cps[lo + j]
    t.starts[i + 1] = a + hi - lo
    t.hashes[i] = h
    t.total[i] = 0
    t.docs[i] = 0
    t.last[i] = -1
    t.stop[i] = False
    t.slots[s] = i
    t.used[0] = i + 1
    t.used[1] = a + hi - lo
    return i


@njit(cache=True, nogil=True)
def intern_words(t: Table, cps: Array, bounds: I64, stop: bool) -> I64:
    """Intern the words ``cps[bounds[j]:bounds[j + 1]]`` (a vocabulary, or the stop words
    with ``stop``); returns their ids. The caller has made room for all of them."""
    ids = np.empty(bounds.shape[0] - 1, np.int64)
    for j in range(bounds.shape[0] - 1):
        lo, hi = bounds[j], bounds[j + 1]
        h = _hash(cps, lo, hi)
        i, s = _find(t, cps, lo, hi, h)
        if i < 0:
            i = _insert(t, cps, lo, hi, h, s)
        if stop:
            t.stop[i] = True
        ids[j] = i
    return ids


@njit(cache=True, nogil=True)
def intern_docs(t: Table, cps: Array, letter: Array, doc_ptr: I64, d0: int, min_length: int,
                grow: bool, doc_base: int, out: I32, at: int, lengths: I64
                ) -> tuple[int, int, int]:
    """Tokenize documents ``d0 ..`` of a chunk: document ``d`` is ``cps[doc_ptr[d]:doc_ptr[d +
    1]]`` (lowercased); the tokenizer's words are made of the code points ``letter`` marks
    (a table over all of Unicode, 0x110000 entries). Each maximal run of letters at least
    ``min_length`` long is a token; a stop word is dropped; a new word gets the next id when
    ``grow`` (building a vocabulary), else it is an unknown token, counted and dropped. Token
    ids go to ``out`` from ``at``, each document's count to ``lengths[d]``; a word's ``total``
    and ``docs`` (documents numbered from ``doc_base``) are counted.

    Returns (the document reached, where ``out`` ends, unknown tokens): it stops before a
    document that might not fit the table (fewer free slots than half the table, or too few
    free chars), for the caller to grow it and go on."""
    n_out = at
    unknown = 0
    cap_words = t.hashes.shape[0]
    cap_slots = t.slots.shape[0]
    cap_chars = t.chars.shape[0]
    for d in range(d0, doc_ptr.shape[0] - 1):
        lo_d, hi_d = doc_ptr[d], doc_ptr[d + 1]
        if grow:   # at most one new word per min_length + 1 code points, plus one
            worst = (hi_d - lo_d) // (min_length + 1) + 1
            if 2 * (t.used[0] + worst) > cap_slots or t.used[0] + worst > cap_words \
                    or t.used[1] + (hi_d - lo_d) > cap_chars:
                return d, n_out, unknown
        start = n_out
        i = lo_d
        while i < hi_d:
            if not letter[cps[i]]:
                i += 1
                continue
            j = i
            h = FNV_OFFSET
            while j < hi_d and letter[cps[j]]:
                h = (h ^ np.uint64(cps[j])) * FNV_PRIME   # the run's hash as it is read
                j += 1
            if j - i >= min_length:
                w, s = _find(t, cps, i, j, h)
                if w < 0:
                    if grow:
                        w = _insert(t, cps, i, j, h, s)
                    else:
                        unknown += 1
                if w >= 0 and not t.stop[w]:
                    out[n_out] = w
                    n_out += 1
                    _count(t, w, doc_base + d)
            i = j
        lengths[d] = n_out - start
    return doc_ptr.shape[0] - 1, n_out, unknown


@njit(cache=True, nogil=True, inline="always")
def _count(t: Table, w: int, doc: int) -> None:
    t.total[w] += 1
    if t.last[w] != doc:   # the word's first token in this document
        t.last[w] = doc
        t.docs[w] += 1


# intern_tokens repeats intern_docs' lookup and counting on purpose: with them in shared
# inlined helpers the tokenizer ran 3.5 times slower (measured on 20 Newsgroups, twice)
@njit(cache=True, nogil=True)
def intern_tokens(t: Table, cps: Array, tok_ptr: I64, doc_tok: I64, d0: int, grow: bool,
                  doc_base: int, out: I32, at: int, lengths: I64) -> tuple[int, int, int]:
    """``intern_docs`` for tokens a user's tokenizer made: token ``j`` is
    ``cps[tok_ptr[j]:tok_ptr[j + 1]]``, document ``d`` holds tokens ``doc_tok[d] ..
    doc_tok[d + 1]``, every one kept (the tokenizer applied the stop words)."""
    n_out = at
    unknown = 0
    cap_words = t.hashes.shape[0]
    cap_slots = t.slots.shape[0]
    cap_chars = t.chars.shape[0]
    for d in range(d0, doc_tok.shape[0] - 1):
        a, b = doc_tok[d], doc_tok[d + 1]
        if grow:
            worst = b - a
            if 2 * (t.used[0] + worst) > cap_slots or t.used[0] + worst > cap_words \
                    or t.used[1] + (tok_ptr[b] - tok_ptr[a]) > cap_chars:
                return d, n_out, unknown
        start = n_out
        for j in range(a, b):
            lo, hi = tok_ptr[j], tok_ptr[j + 1]
            h = _hash(cps, lo, hi)
            w, s = _find(t, cps, lo, hi, h)
            if w < 0:
                if grow:
                    w = _insert(t, cps, lo, hi, h, s)
                else:
                    unknown += 1
            if w >= 0 and not t.stop[w]:
                out[n_out] = w
                n_out += 1
                _count(t, w, doc_base + d)
        lengths[d] = n_out - start
    return doc_tok.shape[0] - 1, n_out, unknown


@njit(cache=True, nogil=True)
def rehash(t: Table, slots: I64) -> None:
    """Place every word of ``t`` in the larger, empty ``slots``."""
    mask = slots.shape[0] - 1
    for i in range(t.used[0]):
        s = np.int64(t.hashes[i] & np.uint64(mask))
        while slots[s] != EMPTY:
            s = (s + 1) & mask
        slots[s] = i


@njit(cache=True, nogil=True)
def remap_tokens(ids: I32, new_id: I32, doc_ptr: I64, out: I32, out_ptr: I64) -> int:
    """The tokens whose word has a ``new_id`` >= 0 (the vocabulary's), renumbered, in order,
    with their documents' pointers; returns how many."""
    n = 0
    out_ptr[0] = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = new_id[ids[i]]
            if w >= 0:
                out[n] = w
                n += 1
        out_ptr[d + 1] = n
    return n
