"""Exact sparse collapsed Gibbs sampling for LDA: SparseLDA's three buckets (Yao, Mimno,
McCallum 2009, "Efficient methods for topic model inference on streaming document
collections", sec. 3.4): O(k_w) per token (k_w the word's topics; O(k_d), O(K) for the
draws that fall in the document, smoothing bucket) and O(K) per document, instead of
``kernels.gibbs``'s O(K) per token.

The collapsed conditional of a token of word w in document d, its counts removed,

    p(z_i = k | rest) ∝ (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta)   (docs/math.md sec. 2)

is, term by term, the sum of three parts (Yao et al. eq. 2-4):

    s_k = alpha_k beta / (n_k + V beta)              every topic         (smoothing bucket)
    r_k = n_kd beta / (n_k + V beta)                 n_kd > 0 only       (document bucket)
    q_k = (alpha_k + n_kd) n_kw / (n_k + V beta)     n_kw > 0 only       (word bucket)

One uniform u on [0, q + r + s) (q = sum_k q_k, ...) falls in one bucket; the bucket's terms
walked in a fixed order pick the topic. Topic k is picked when u falls in one of its three
intervals, whose lengths sum to its conditional weight: the draw is the exact conditional,
as ``gibbs_sweep``'s inverse cdf is (it maps u to topics differently, so the two kernels draw
different chains from the same stream, with the same distribution).

What is kept, and why it stays exact:

* ``inv[k]`` = 1/(n_k + V beta) and ``coef[k]`` = (alpha_k + n_kd) inv[k] (the document's
  counts) are recomputed for a topic whenever its counts change: at every moment they are the
  same function of the integer counts, never a running sum.
* q is summed afresh for every token over the word's topics (the token's cost: O(k_w)), so
  it is exact; the walk bisects its running sums.
* s and r are running sums, updated by the two topics a token leaves and joins (subtract the
  topic's old term, add its new one). They are recomputed exactly from the counts, in topic
  order, at the start of every document (O(K), with ``coef``): nothing floating is carried
  from one document to the next, so their drift is bounded by one document's updates (~N_d
  ulps), and the chain is a function of the assignments and the random stream alone: the
  same whatever blocks a Session cuts the sweep into, and after a checkpoint is loaded. A
  walk that runs off the end of r's or s's exact terms because the running sum exceeds them
  by rounding (probability ~1e-16) goes on into the next bucket, and the last topic ends s.
* Per word, its topics with n_kw > 0 in ascending order (``WordLists``): a compact array of
  capacity min(K, tokens of the word) per word (a word has no more topics than tokens), at
  most one int32 per token in all. Ascending, the list is a function of ``n_wk`` alone, so a
  checkpoint saves nothing of it: ``build_word_lists`` rebuilds it. Inserting or removing a
  topic shifts the list, O(k_w) like the word bucket's sum.
* The document's topics with n_kd > 0, in any order (swap removal, ``doc_pos``), built in
  ascending order at the document's start.

A token's old topic stays in both lists during its own draw even when its count fell to zero
(a term of zero mass, which neither walk can pick): it leaves them only if the token moved,
which spares two list shifts for every token that stays (most of them after the burn-in).

Unsupervised LDA only (no label factor). One uniform per token from the project's stream
(``kernels.rng``); documents and tokens in order, on one thread.

Tried and dropped (one process on a busy machine, 200k tokens, V = 5,000, K = 100 and
1,000): an F+ tree for s (no O(K) per document, no running sum, but 2 log K node updates
per token) and the counts n_kw kept in the word lists beside their topics (contiguous reads,
two bisections per token to keep them) were each 10-30% slower than this layout.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, Rng
from .counts import Counts, Dirichlet, Tokens, move_token
from .gibbs import search_cumulative
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .rng import uniform

KINDS = ()  # exact draws: no proposals to accept or reject


class WordLists(NamedTuple):
    """Per word w, its topics with n_kw > 0 in ascending order: ``topics[ptr[w]:ptr[w] +
    length[w]]``, within its capacity ``ptr[w+1] - ptr[w]`` = min(K, tokens of w)."""

    ptr: I64
    topics: I32
    length: I32


def allocate_word_lists(word_ptr: I64, K: int) -> WordLists:
    """Empty lists for a corpus whose word w has ``word_ptr[w+1] - word_ptr[w]`` tokens
    (``counts.Tokens.word_ptr``), each of capacity min(K, its tokens)."""
    capacity = np.minimum(np.diff(word_ptr), K)
    ptr = np.zeros(capacity.shape[0] + 1, np.int64)
    np.cumsum(capacity, out=ptr[1:])
    return WordLists(ptr, np.zeros(int(ptr[-1]), np.int32),
                     np.zeros(capacity.shape[0], np.int32))


@njit(cache=True, nogil=True)
def build_word_lists(n_wk: I32, lists: WordLists) -> None:
    """Fill ``lists`` with the nonzero pattern of ``n_wk`` (V, K), topics ascending. Raises
    ``ValueError`` if a word has more topics than its capacity (counts that do not agree
    with the corpus)."""
    ptr, topics, length = lists.ptr, lists.topics, lists.length
    for w in range(n_wk.shape[0]):
        start, cap = ptr[w], ptr[w + 1] - ptr[w]
        row = n_wk[w]
        n = 0
        for k in range(row.shape[0]):
            if row[k] > 0:
                if n == cap:
                    raise ValueError("n_wk has more topics for a word than it has tokens")
                topics[start + n] = k
                n += 1
        length[w] = n
        topics[start + n:start + cap] = 0


@njit(cache=True, nogil=True, inline="always")
def list_insert(topics: I32, start: int, n: int, k: int) -> int:
    """Insert topic k (absent) into the ascending list ``topics[start:start+n]``, which has
    room for it; returns the new length."""
    j = start + n
    while j > start and topics[j - 1] > k:
        topics[j] = topics[j - 1]
        j -= 1
    topics[j] = k
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def list_remove(topics: I32, start: int, n: int, k: int) -> int:
    """Remove topic k from the ascending list ``topics[start:start+n]``; returns the new
    length (unchanged if k is absent, which the sweep never asks)."""
    end = start + n
    j = start
    while j < end and topics[j] != k:
        j += 1
    if j == end:
        return n
    for t in range(j, end - 1):
        topics[t] = topics[t + 1]
    topics[end - 1] = 0     # past the end zero, so the lists are a function of n_wk
    return n - 1


NO_ORDER = np.empty(0, np.int32)         # sweep_documents: every token, in document order
NO_CELLS = np.empty((0, 2), np.int32)


@njit(cache=True, nogil=True)
def sweep_documents(words: I32, doc_ptr: I64, order: I32, cell_ptr: I32, j: int, z: I32,
                    n_dk: I32, n_wk: I32, n_k: I32, alpha: F64, beta: float, l_ptr: I64,
                    l_topics: I32, l_len: I32, rng: Rng, d0: int, d1: int, ab: F64, inv: F64,
                    coef: F64, qcum: F64, doc_topics: I32, doc_pos: I32) -> int:
    """Resample tokens of documents ``d0 .. d1-1`` once, in order, by the three buckets
    against the totals ``n_k``; returns the tokens that changed topic. With ``order`` empty,
    every token of each document; else the tokens ``order[t]`` for t in ``doc_ptr[d] +
    cell_ptr[d, j] .. doc_ptr[d] + cell_ptr[d, j + 1] - 1`` (cell (., j) of
    ``kernels.partitioned``'s grid, on a group's own copy of ``n_k``). ``ab`` = alpha_k beta;
    ``inv``, ``coef``, ``qcum``, ``doc_topics``, ``doc_pos`` scratch of length K."""
    K = n_k.shape[0]
    V_beta = beta * n_wk.shape[0]
    ordered = order.shape[0] > 0
    for k in range(K):          # a function of the integer totals: nothing carried over
        inv[k] = 1.0 / (n_k[k] + V_beta)
    changed = 0
    for d in range(d0, d1):
        if ordered:
            p0 = doc_ptr[d] + cell_ptr[d, j]
            p1 = doc_ptr[d] + cell_ptr[d, j + 1]
        else:
            p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        if p0 == p1:
            continue
        ndk = n_dk[d]
        # the smoothing and document buckets from the counts, exactly, in topic order
        s = 0.0
        r = 0.0
        n_doc = 0
        for k in range(K):
            s += ab[k] * inv[k]
            c = ndk[k]
            coef[k] = (alpha[k] + c) * inv[k]
            if c > 0:
                r += c * beta * inv[k]
                doc_pos[k] = n_doc
                doc_topics[n_doc] = k
                n_doc += 1
        for t in range(p0, p1):
            i = order[t] if ordered else t
            w = words[i]
            nwk = n_wk[w]
            start = l_ptr[w]
            n_w = l_len[w]
            old = z[i]
            # remove the token: the old topic's terms out of s and r, the counts, back in
            s -= ab[old] * inv[old]
            r -= ndk[old] * beta * inv[old]
            move_token(ndk, nwk, n_k, old, -1)
            inv[old] = 1.0 / (n_k[old] + V_beta)
            s += ab[old] * inv[old]
            r += ndk[old] * beta * inv[old]
            coef[old] = (alpha[old] + ndk[old]) * inv[old]
            # the word bucket, afresh: sum_{n_kw > 0} (alpha_k + n_kd) n_kw / (n_k + V beta)
            q = 0.0
            for jj in range(n_w):
                k = l_topics[start + jj]
                q += coef[k] * nwk[k]
                qcum[jj] = q
            # p(z_i = k) ∝ (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta) = q_k + r_k + s_k
            # (docs/math.md sec. 2; Yao et al. 2009 eq. 2-4); in a partitioned cell n_k is
            # the group's own copy, stale by the other groups' moves (AD-LDA's approximation)
            u = uniform(rng) * (q + r + s)
            if u < q:
                new = l_topics[start + search_cumulative(qcum, n_w, u)]
            else:
                new = -1
                u -= q
                if u < r:
                    acc = 0.0
                    for jj in range(n_doc):
                        k = doc_topics[jj]
                        acc += ndk[k] * beta * inv[k]
                        if acc > u:
                            new = k
                            break
                    if new < 0:     # r ran past its terms by rounding: on into s
                        u -= acc
                else:
                    u -= r
                if new < 0:
                    new = K - 1     # s ran past its terms by rounding: the last topic
                    acc = 0.0
                    for k in range(K):
                        acc += ab[k] * inv[k]
                        if acc > u:
                            new = k
                            break
            if new != old:
                changed += 1
                # the old topic leaves the lists before the new one joins: a word's list then
                # never holds more than its capacity
                if nwk[old] == 0:
                    n_w = list_remove(l_topics, start, n_w, old)
                if ndk[old] == 0:
                    n_doc -= 1
                    last = doc_topics[n_doc]
                    doc_topics[doc_pos[old]] = last
                    doc_pos[last] = doc_pos[old]
                if nwk[new] == 0:
                    n_w = list_insert(l_topics, start, n_w, new)
                if ndk[new] == 0:
                    doc_pos[new] = n_doc
                    doc_topics[n_doc] = new
                    n_doc += 1
                l_len[w] = n_w
            # add the token: the new topic's terms out, the counts, back in
            s -= ab[new] * inv[new]
            r -= ndk[new] * beta * inv[new]
            z[i] = new
            move_token(ndk, nwk, n_k, new, 1)
            inv[new] = 1.0 / (n_k[new] + V_beta)
            s += ab[new] * inv[new]
            r += ndk[new] * beta * inv[new]
            coef[new] = (alpha[new] + ndk[new]) * inv[new]
    return changed


@njit(cache=True, nogil=True)
def sparse_gibbs_sweep(tokens: Tokens, counts: Counts, prior: Dirichlet, lists: WordLists,
                       rng: Rng, d_start: int, d_end: int, info: F64) -> None:
    """Resample every token of documents ``d_start .. d_end-1`` once, in order, each from its
    exact collapsed conditional by SparseLDA's buckets.

    ``tokens``, ``counts`` (with its (D, K) ``n_dk``) and ``prior`` are the records of
    ``kernels.counts``; ``lists`` the word lists, equal on entry to the nonzero pattern of
    ``counts.n_wk`` (``build_word_lists``) and kept so; ``rng`` the xoshiro state; ``info``
    the float64 record (``kernels.info``), incremented, not reset.
    """
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    alpha, beta = prior.alpha, prior.beta
    l_ptr, l_topics, l_len = lists.ptr, lists.topics, lists.length
    K = n_k.shape[0]
    inv = np.empty(K)            # 1 / (n_k + V beta)
    coef = np.empty(K)           # (alpha_k + n_kd) / (n_k + V beta), the current document's
    ab = np.empty(K)             # alpha_k beta
    qcum = np.empty(K)           # the word bucket's running sums
    doc_topics = np.empty(K, np.int32)   # the document's topics with n_kd > 0
    doc_pos = np.empty(K, np.int32)      # their positions in doc_topics
    for k in range(K):
        ab[k] = alpha[k] * beta
    changed = sweep_documents(words, doc_ptr, NO_ORDER, NO_CELLS, 0, z, n_dk, n_wk, n_k, alpha,
                              beta, l_ptr, l_topics, l_len, rng, d_start, d_end, ab, inv, coef,
                              qcum, doc_topics, doc_pos)
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += changed
