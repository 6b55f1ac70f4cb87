"""Count bookkeeping shared by every collapsed topic sampler: the records the kernels read
(``Tokens``, ``Counts``, ``Dirichlet``), random initialisation and rebuilding ``n_dk``,
``n_wk``, ``n_k`` from the assignments ``z``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, Rng
from .rng import randint


class Tokens(NamedTuple):
    """The corpus as the kernels read it: ``words`` (N,) in document order, document ``d``
    holding tokens ``doc_ptr[d]:doc_ptr[d+1]``; the same tokens word by word, the tokens of
    word w being ``word_tok[word_ptr[w]:word_ptr[w+1]]`` (the exact word proposal)."""

    words: I32
    doc_ptr: I64
    word_ptr: I64
    word_tok: I32 | I64   # int64 only past 2**31 tokens


class Counts(NamedTuple):
    """The collapsed topic state: assignments ``z`` (N,) int32 and the counts that agree with
    them, ``n_dk`` (D, K) document-major (shape (0, K) for a sampler that keeps none),
    ``n_wk`` (V, K) word-major, ``n_k`` (K,)."""

    z: I32
    n_dk: I32
    n_wk: I32
    n_k: I32


class Dirichlet(NamedTuple):
    """The Dirichlet parameters: ``alpha`` (K,) per topic and the symmetric ``beta``."""

    alpha: F64
    beta: float


def tokens_of(words: I32, doc_ptr: I64, n_words: int) -> Tokens:
    """A corpus's ``Tokens``, with the word-by-word index built here."""
    word_counts = np.bincount(words, minlength=n_words)
    word_ptr = np.concatenate([[0], np.cumsum(word_counts)]).astype(np.int64)
    word_tok: I32 | I64 = (np.empty(words.shape[0], np.int32) if words.shape[0] < 2**31
                           else np.empty(words.shape[0], np.int64))
    fill_tokens_by_word(words, word_ptr, word_tok)
    return Tokens(words, doc_ptr, word_ptr, word_tok)


@njit(cache=True, nogil=True)
def fill_tokens_by_word(words: I32, word_ptr: I64, word_tok: I32 | I64) -> None:
    """``word_tok``: the tokens of each word in token order, word after word, which is
    ``np.argsort(words, kind="stable")`` by a counting sort: O(N), written in the index type
    at once (the sort is O(N log N) and returned int64, then copied; at 10^6 documents it
    was most of a Session's start, benchmarks/bench_large.py)."""
    at = word_ptr[:-1].copy()
    for i in range(words.shape[0]):
        w = words[i]
        word_tok[at[w]] = i
        at[w] += 1


def allocate_counts(n_tokens: int, n_docs: int, n_words: int, K: int, doc_rows: bool) -> Counts:
    """Zeroed ``Counts``; ``doc_rows=False``: no (D, K) matrix (shape (0, K))."""
    return Counts(np.zeros(n_tokens, np.int32), np.zeros((n_docs if doc_rows else 0, K), np.int32),
                  np.zeros((n_words, K), np.int32), np.zeros(K, np.int32))


@njit(cache=True, nogil=True)
def init_assignments(z: I32, K: int, rng: Rng) -> None:
    """Draw every ``z[i]`` uniformly from {0, ..., K-1} (the usual LDA start)."""
    for i in range(z.shape[0]):
        z[i] = randint(rng, K)


@njit(cache=True, nogil=True)
def fill_doc_topic_counts(doc_ptr: I64, z: I32, n_dk: I32) -> None:
    """Set the (D, K) matrix ``n_dk`` from the assignments."""
    n_dk[:] = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_dk[d, z[i]] += 1


def doc_topic_counts(doc_ptr: I64, z: I32, K: int) -> I32:
    """A new (D, K) int32 matrix n_dk from the assignments."""
    n_dk = np.zeros((doc_ptr.shape[0] - 1, K), np.int32)
    fill_doc_topic_counts(doc_ptr, z, n_dk)
    return n_dk


@njit(cache=True, nogil=True)
def rebuild_counts(words: I32, doc_ptr: I64, z: I32, n_dk: I32 | None, n_wk: I32,
                   n_k: I32) -> None:
    """Set the count arrays from scratch so they agree with ``z``.

    ``n_dk`` is (D, K) document-major (None for the light sampler, which keeps no such
    matrix) and ``n_wk`` (V, K) word-major, so a token reads all K counts of its document and
    of its word from two contiguous rows.
    """
    n_wk[:] = 0
    n_k[:] = 0
    for i in range(z.shape[0]):
        n_wk[words[i], z[i]] += 1
        n_k[z[i]] += 1
    if n_dk is not None:
        fill_doc_topic_counts(doc_ptr, z, n_dk)


@njit(cache=True, nogil=True, inline="always")
def move_token(ndk: I32, nwk: I32, n_k: I32, k: int, delta: int) -> None:
    """Add ``delta`` (+1 or -1) to the counts of topic k for one token: its document row
    ``ndk``, its word row ``nwk`` and the topic totals."""
    ndk[k] += delta
    nwk[k] += delta
    n_k[k] += delta
