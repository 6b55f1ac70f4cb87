"""Approximate parallel collapsed Gibbs sampling for LDA on a fixed grid of partitions:
documents and words each in P groups, the P x P cells swept in P steps of P disjoint cells
(AD-LDA, Newman, Asuncion, Smyth, Welling 2009, "Distributed algorithms for topic models",
JMLR 10; the cell schedule of Yan, Xu, Qi 2009 and of tomotopy's ``ParallelScheme.PARTITION``).

The grid of a block of documents ``d_start .. d_end-1``:

* word groups, fixed for the corpus (``build_grid``): P contiguous ranges of word ids of
  about equal token counts;
* document groups, the block's documents in P contiguous ranges of about equal token counts
  (``document_groups``, a function of ``doc_ptr`` and the block alone);
* cell (i, j): the tokens of document group i whose word is in word group j, in document
  order (per document its tokens stably reordered by word group: ``Grid.order``, with the
  per-document offsets ``Grid.cell_ptr``).

Step s = 0 .. P-1 sweeps cell (i, (i + s) mod P) for every i at once (one numba task per
document group). Within a step the cells share no document (rows of ``n_dk``), no word (rows
of ``n_wk``, the words' topic lists) and no token, so the only count two of them both need is
the topic totals ``n_k``. Each group works on its own copy of ``n_k`` taken at the step's
start and sees only its own moves in it: that staleness is the approximation (the other
groups' moves of the step are unseen until its end, when ``n_k`` becomes the old totals plus
every group's integer changes). With P = 1 there is one cell and nothing is stale: the sweep
is an exact collapsed Gibbs sweep.

Random numbers: the caller draws one key (4 words) per block from the chain's stream; group i
draws from the stream ``rng.derive_into(key, i)`` in all its steps. The chain is then a
function of the seed and the block boundaries only, never of the thread count: which thread
runs a group changes nothing it reads or writes.

The draw inside a cell is ``kernels.sparse_gibbs``'s (SparseLDA's three buckets, with its word
lists: ``sweep_documents`` on the grid's ``order``) or ``kernels.gibbs``'s dense O(K)
conditional, both on the group's own ``n_k``.

Tried and dropped for the dense cell (K = 20, 20 Newsgroups, one thread): the weights in a loop
apart from the running sum (7-10% slower), and sums of blocks of 4 topics walked in two levels
instead of the K-long running sum (5% slower) than the fused loop below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange, uint64

from ..arrays import F64, I32, I64, Rng
from .counts import Counts, Dirichlet, Tokens, move_token
from .gibbs import conditional_weight, search_cumulative
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .rng import derive_into, uniform
from .sparse_gibbs import WordLists, sweep_documents

KINDS = ()  # no proposals to accept or reject
PAD = 16    # unused entries after each group's scratch row (64 bytes or more)


class Grid(NamedTuple):
    """The corpus's side of the grid: ``word_group`` (V,) each word's group; ``order`` (N,)
    every document's token indices reordered stably by word group, so that the tokens of
    document d in word group j are ``order[doc_ptr[d] + cell_ptr[d, j]:doc_ptr[d] +
    cell_ptr[d, j + 1]]`` in document order; ``cell_ptr`` (D, P + 1) int32."""

    word_group: I32
    order: I32
    cell_ptr: I32


def word_groups(word_ptr: I64, P: int) -> I32:
    """P contiguous ranges of word ids of about equal token counts (``word_ptr`` as in
    ``counts.Tokens``): word w goes to the group of its tokens' middle position,
    floor(P (word_ptr[w] + word_ptr[w+1]) / (2 N)), so groups are contiguous and ordered."""
    N = int(word_ptr[-1])
    if N == 0:
        return np.zeros(word_ptr.shape[0] - 1, np.int32)
    mid2 = word_ptr[:-1] + word_ptr[1:]          # twice the middle position, exact in int64
    return np.minimum(mid2 * P // (2 * N), P - 1).astype(np.int32)


def build_grid(tokens: Tokens, P: int) -> Grid:
    """The grid of ``tokens`` for P x P partitions (deterministic: a function of the corpus
    and P)."""
    words, doc_ptr = tokens.words, tokens.doc_ptr
    D = doc_ptr.shape[0] - 1
    group = word_groups(tokens.word_ptr, P)
    doc_of = np.repeat(np.arange(D, dtype=np.int64), np.diff(doc_ptr))
    key = doc_of * P + group[words]
    order = np.argsort(key, kind="stable").astype(np.int32)
    per_cell = np.bincount(key, minlength=D * P).reshape(D, P)
    cell_ptr = np.zeros((D, P + 1), np.int32)
    np.cumsum(per_cell, axis=1, out=cell_ptr[:, 1:])
    return Grid(group, order, cell_ptr)


@njit(cache=True, nogil=True)
def document_groups(doc_ptr: I64, d_start: int, d_end: int, out: I64) -> None:
    """Cut documents ``d_start .. d_end-1`` into P = ``out.shape[0] - 1`` contiguous groups of
    about equal token counts: group i is ``out[i] .. out[i+1]-1``, ``out[i]`` the first
    document whose tokens before it (from d_start) reach i/P of the block's."""
    P = out.shape[0] - 1
    base = doc_ptr[d_start]
    total = doc_ptr[d_end] - base
    out[0] = d_start
    d = d_start
    for i in range(1, P):
        while d < d_end and (doc_ptr[d] - base) * P < i * total:
            d += 1
        out[i] = d
    out[P] = d_end


@njit(cache=True, nogil=True)
def dense_cell(words: I32, doc_ptr: I64, order: I32, cell_ptr: I32, z: I32, n_dk: I32,
               n_wk: I32, n_k: I32, alpha: F64, beta: float, rng: Rng, d0: int, d1: int,
               j: int, inv: F64, cum: F64) -> int:
    """Resample the tokens of documents ``d0 .. d1-1`` in word group j once, in order, by
    ``kernels.gibbs``'s O(K) inverse cdf against the totals ``n_k`` (the group's own copy);
    ``inv``, ``cum`` scratch of length K. Returns the tokens that changed topic. (The sparse
    cell is ``kernels.sparse_gibbs.sweep_documents`` on the grid's ``order``.)"""
    K = n_k.shape[0]
    V_beta = beta * n_wk.shape[0]
    for k in range(K):
        inv[k] = 1.0 / (n_k[k] + V_beta)
    changed = 0
    for d in range(d0, d1):
        ndk = n_dk[d]
        for t in range(doc_ptr[d] + cell_ptr[d, j], doc_ptr[d] + cell_ptr[d, j + 1]):
            i = order[t]
            nwk = n_wk[words[i]]
            old = z[i]
            move_token(ndk, nwk, n_k, old, -1)
            inv[old] = 1.0 / (n_k[old] + V_beta)
            # p(z_i = k | rest) ∝ (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta)
            # (docs/math.md sec. 2), n_k the group's own totals (AD-LDA's approximation)
            total = 0.0
            for k in range(K):
                total += conditional_weight(ndk[k], alpha[k], nwk[k], beta, inv[k])
                cum[k] = total
            new = search_cumulative(cum, K, uniform(rng) * total)
            z[i] = new
            move_token(ndk, nwk, n_k, new, 1)
            inv[new] = 1.0 / (n_k[new] + V_beta)
            if new != old:
                changed += 1
    return changed


@njit(cache=True, nogil=True)
def _group_step(words: I32, doc_ptr: I64, order: I32, cell_ptr: I32, z: I32, n_dk: I32,
                n_wk: I32, local: I32, alpha: F64, beta: float, l_ptr: I64, l_topics: I32,
                l_len: I32, streams: Rng, bounds: I64, g: int, step: int, sparse: bool,
                ab: F64, inv: F64, coef: F64, cum: F64, doc_topics: I32, doc_pos: I32) -> int:
    """Document group g's cell of step ``step``, (g, (g + step) mod P), on its own rows of
    the per-group arrays; returns the tokens that changed topic."""
    P = bounds.shape[0] - 1
    K = ab.shape[0]
    j = (g + step) % P
    rng = streams[g, :4]
    if sparse:
        return sweep_documents(words, doc_ptr, order, cell_ptr, j, z, n_dk, n_wk, local[g, :K],
                               alpha, beta, l_ptr, l_topics, l_len, rng, bounds[g],
                               bounds[g + 1], ab, inv[g, :K], coef[g, :K], cum[g, :K],
                               doc_topics[g, :K], doc_pos[g, :K])
    return dense_cell(words, doc_ptr, order, cell_ptr, z, n_dk, n_wk, local[g, :K], alpha,
                      beta, rng, bounds[g], bounds[g + 1], j, inv[g, :K], cum[g, :K])


@njit(cache=True, nogil=True, parallel=True)
def partitioned_sweep(tokens: Tokens, counts: Counts, prior: Dirichlet, lists: WordLists,
                      grid: Grid, sparse: bool, key: Rng, d_start: int, d_end: int,
                      info: F64) -> None:
    """Resample every token of documents ``d_start .. d_end-1`` once on the P x P grid
    (P = ``grid.cell_ptr.shape[1] - 1``): P steps, each sweeping P disjoint cells in
    parallel, each group against its own copy of ``n_k`` merged at the step's end.

    ``tokens``, ``counts`` (with its (D, K) ``n_dk``) and ``prior`` are the records of
    ``kernels.counts``; ``lists`` the word lists (``kernels.sparse_gibbs``; equal on entry to
    the nonzero pattern of ``n_wk`` and kept so when ``sparse``, unused otherwise); ``grid``
    from ``build_grid``; ``key`` (4,) the block's key, group i drawing from
    ``derive_into(key, i)``; ``info`` the float64 record (``kernels.info``), incremented.
    """
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    alpha, beta = prior.alpha, prior.beta
    l_ptr, l_topics, l_len = lists.ptr, lists.topics, lists.length
    order, cell_ptr = grid.order, grid.cell_ptr
    P = cell_ptr.shape[1] - 1
    K = n_k.shape[0]
    bounds = np.empty(P + 1, np.int64)
    document_groups(doc_ptr, d_start, d_end, bounds)
    # per group, not per thread: what a group computes cannot depend on the thread running
    # it. Each group's row is followed by PAD unused entries (at least 64 bytes, a cache
    # line): rows written by two threads at once never share a line (false sharing made 2
    # threads slower than 1)
    streams = np.zeros((P, 4 + PAD), np.uint64)
    for g in range(P):
        derive_into(key, uint64(g), streams[g, :4])
    Kp = K + PAD
    local = np.empty((P, Kp), np.int32)     # the group's own n_k during a step
    inv = np.empty((P, Kp))
    coef = np.empty((P, Kp))
    cum = np.empty((P, Kp))
    doc_topics = np.empty((P, Kp), np.int32)
    doc_pos = np.empty((P, Kp), np.int32)
    changed = np.zeros(P, np.int64)
    base = np.empty(K, np.int32)
    ab = np.empty(K)
    for k in range(K):
        ab[k] = alpha[k] * beta
    for step in range(P):
        for k in range(K):
            base[k] = n_k[k]
        for g in range(P):
            for k in range(K):
                local[g, k] = n_k[k]
        if P == 1:
            # one cell: no parallel region to launch (its cost dominates tiny blocks)
            changed[0] += _group_step(words, doc_ptr, order, cell_ptr, z, n_dk, n_wk, local,
                                      alpha, beta, l_ptr, l_topics, l_len, streams, bounds,
                                      0, step, sparse, ab, inv, coef, cum, doc_topics,
                                      doc_pos)
        else:
            for g in prange(P):
                changed[g] += _group_step(words, doc_ptr, order, cell_ptr, z, n_dk, n_wk,
                                          local, alpha, beta, l_ptr, l_topics, l_len, streams,
                                          bounds, g, step, sparse, ab, inv, coef, cum,
                                          doc_topics, doc_pos)
        # n_k = the step's old totals plus every group's integer changes, groups in order
        for k in range(K):
            tot = base[k]
            for g in range(P):
                tot += local[g, k] - base[k]
            n_k[k] = tot
    total_changed = 0
    for g in range(P):
        total_changed += changed[g]
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += total_changed
