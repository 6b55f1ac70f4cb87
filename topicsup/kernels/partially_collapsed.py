"""The partially collapsed sampler: Phi drawn, then every document's topics given Phi, in
parallel over documents (Magnusson, Jonsson, Villani 2020 sec. 4; docs/math.md sec. 2).

A sweep is two blocks of a Gibbs sampler on (Phi, Z) with Theta collapsed:

1. Phi | Z: phi_k ~ Dir(beta + n_k.) for each topic (``draw_phi``);
2. Z | Phi: documents are independent given Phi (and the weights and augmentation of a
   supervised model), so each document's tokens are resampled in turn from
   p(z_i = k | rest) ∝ phi_{k,w_i} (n_kd^-i + alpha_k) exp(g_d(k))     (DOLDA eq. 4.1)
   by any number of threads at once (``sweep_documents``), or by the partitions of a
   distributed backend (``sweep_chunks`` on each, their ``count_deltas`` added to the
   driver's counts by ``adopt_deltas``; ``topicsup.backends``).

Both blocks leave p(Phi, Z | W) invariant, so the marginal chain on Z targets the same
posterior as the collapsed samplers (the whole-sweep enumeration test checks it).

Two per-token kernels draw step 2 (``sparse``):

* dense: the O(K) conditional by inverse cdf (exact);
* sparse: the split phi_kw (n_kd + alpha_k) = n_kd phi_kw + alpha_k phi_kw into a document
  part over the k_d topics present in the document, summed exactly per token, and a word part
  drawn from a Walker table of alpha_k phi_kw per word (``build_word_tables``). Phi is fixed
  during the sweep, so the tables are exact, not stale as AliasLDA's: an exact O(k_d) draw
  (the sparse partially collapsed sampler of Magnusson et al. 2018). With a supervised term
  the sparse draw is an independence proposal q(k) ∝ phi_kw (n_kd + alpha_k), accepted with
  min(1, exp(g_d(t) - g_d(s))) (the q factors cancel), ``mh_steps`` steps per token.

The label term: when every document has the same w_t per task (DOLDA's probit, w = 1; the
Gaussian response) the coupling sum_t eta_kt w_t m_td of g_d(k) is sum_j n_jd G[k, j] with
the K x K matrix G[k, j] = sum_t w_t eta_kt eta_jt, built once per sweep (DOLDA appendix B):
a document keeps q_k = sum_t eta_kt w_t c_t / N_d^2 and a token's g_d over all k costs O(K)
instead of O(K T), a move O(K) (``supervised.label_matrix``, ``matrix_*``; docs/math.md sec. 2;
collapsed Gibbs shares them). Appendix B multiplies
exp factors in place; here g stays in log space and the conditional subtracts its maximum, so
nothing is clamped (the reference Java code clamps exp(g)).

Randomness does not depend on the number of threads: each sweep draws a key from the chain's
stream, and every unit of work (a document, a chunk of words for Phi) draws from the stream
derived from that key and its own label (``rng.derive_into``). Per-document info rows are
summed in document order, and the topic-word counts, the only state documents share, are
integers updated after the parallel loop: the same chain bit for bit on 1, 2 or 64 threads.

No (D, K) document-topic matrix is kept: a document's counts n_kd are counted from its topics
into a row of K integers when its turn comes and cleared after (O(N_d) each way, the light
sampler's way). The draws read the same values a kept matrix would hold, so the chain is the
same, and the state is z, n_wk and n_k: D K x 4 bytes less here and on every worker of a
distributed backend (40 GB at 10^7 documents and K = 1000; docs/scaling.md).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, uint64

from ..arrays import F64, I32, I64, U64, Rng
from . import fmath, supervised
from .alias import alias_from_uniform, build_alias
from .counts import Counts, Tokens
from .aliaslda import _add_topic, _remove_topic   # the document's topic list
from .draws import gamma
from .gibbs import search_cumulative
from .info import CHANGED, TOKENS, record_mh
from .rng import derive_into, randint, uniform
from .supervised import Term

KINDS = ()                    # LDA, and the dense kernel: exact draws
SUPERVISED_SPARSE_KINDS = ("label",)   # the label factor's MH correction of the sparse draw
DOC_PART = "doc_part_share"   # the share of draws the sparse kernel took from the document part

PHI_CHUNK = 256               # words per Phi stream (a unit of parallel work)
PHI_LABEL = uint64(1) << uint64(62)   # Phi's stream labels, apart from documents' (0 .. D-1)


def draw_phi(n_wk: I32, n_k: I32, beta: float, key: Rng, phi: F64, partial: F64) -> None:
    """Draw Phi | Z: phi_k ~ Dir(beta + n_wk[:, k]) for every topic k, into ``phi`` (V, K)
    word-major (each column sums to one), as normalised independent Gamma(beta + n_wk)
    draws. Words are drawn in chunks of ``PHI_CHUNK`` in parallel, chunk c from the stream of
    label PHI_LABEL + c under ``key``; ``partial`` (n_chunks, K) holds each chunk's column
    sums, added in chunk order so the normalisers do not depend on the threads.

    A topic with no tokens (``n_k[k] == 0``) has only Gamma(beta) entries, which underflow
    together at a small beta (every p^(1/beta) below 1e-308): its column is drawn in log
    space instead (``empty_topic``). Which columns take that path depends on the counts, not
    on the draws, so the draw stays exact.

    The three steps are apart so that the rows can be drawn where they are needed: a
    distributed backend draws each worker's range of word chunks there (``gamma_rows``),
    sums the chunks' column sums here (``normalisers``) and scales on each worker
    (``scale_rows``): the same numbers as this call, bit for bit."""
    gamma_rows(n_wk, n_k, beta, key, 0, phi, partial)
    inv = normalisers(partial, n_k)
    scale_rows(phi, inv)
    for k in range(n_k.shape[0]):
        if n_k[k] == 0:
            phi[:, k] = empty_topic(phi.shape[0], k, beta, key)


@njit(cache=True, nogil=True, parallel=True)
def gamma_rows(n_wk: I32, n_k: I32, beta: float, key: Rng, c0: int, phi: F64,
               partial: F64) -> None:
    """The unnormalised rows of Phi of word chunks ``c0 ..``: ``n_wk`` and ``phi`` hold the
    rows of words ``c0 PHI_CHUNK ..`` (all of them: c0 = 0), ``partial`` one row of column
    sums per chunk; chunk c0 + c from its own stream (``draw_phi``)."""
    V, K = n_wk.shape
    n_chunks = (V + PHI_CHUNK - 1) // PHI_CHUNK
    for c in prange(n_chunks):
        rng = np.empty(4, np.uint64)
        derive_into(key, PHI_LABEL + uint64(c0 + c), rng)
        part = partial[c]
        part[:] = 0.0
        for w in range(c * PHI_CHUNK, min(V, (c + 1) * PHI_CHUNK)):
            counts = n_wk[w]
            out = phi[w]
            for k in range(K):
                if n_k[k] == 0:
                    out[k] = 0.0
                    continue
                g = gamma(rng, beta + counts[k])
                out[k] = g
                part[k] += g


@njit(cache=True, nogil=True)
def normalisers(partial: F64, n_k: I32) -> F64:
    """1 / (each topic's sum over all chunks of ``partial``), the chunks added in order (0
    for a topic without tokens)."""
    K = n_k.shape[0]
    inv = np.zeros(K)
    for c in range(partial.shape[0]):
        for k in range(K):
            inv[k] += partial[c, k]
    for k in range(K):
        inv[k] = 1.0 / inv[k] if n_k[k] > 0 else 0.0
    return inv


@njit(cache=True, nogil=True, parallel=True)
def scale_rows(phi: F64, inv: F64) -> None:
    """phi[w, k] *= inv[k] for every row."""
    for w in prange(phi.shape[0]):
        out = phi[w]
        for k in range(inv.shape[0]):
            out[k] *= inv[k]


@njit(cache=True, nogil=True)
def empty_topic(V: int, k: int, beta: float, key: Rng) -> F64:
    """The column of Phi (V,) of a topic k without tokens, ~ Dir(beta, ..., beta) in log
    space: log G = log Gamma(1 + beta) + log(U) / beta (Stuart 1962) for each word,
    normalised by log-sum-exp, from the stream of label PHI_LABEL + 2^40 + k."""
    rng = np.empty(4, np.uint64)
    derive_into(key, PHI_LABEL + (uint64(1) << uint64(40)) + uint64(k), rng)
    logs = np.empty(V)
    top = -math.inf
    for w in range(V):
        u = uniform(rng)
        while u == 0.0:
            u = uniform(rng)
        logs[w] = fmath.log(gamma(rng, 1.0 + beta)) + fmath.log(u) / beta
        top = max(top, logs[w])
    total = 0.0
    for w in range(V):
        logs[w] = fmath.exp(logs[w] - top)
        total += logs[w]
    for w in range(V):
        logs[w] = logs[w] / total
    return logs


@njit(cache=True, nogil=True, parallel=True)
def build_word_tables(phi: F64, alpha: F64, prob: F64, alias: I32, mass: F64) -> None:
    """The sparse kernel's word part: for every word w a Walker table of alpha_k phi[w, k]
    over k (``prob``, ``alias`` (V, K)) and its total ``mass[w]``, in parallel over words
    (deterministic: each table depends on its word's row alone)."""
    V, K = phi.shape
    n_chunks = (V + PHI_CHUNK - 1) // PHI_CHUNK
    for c in prange(n_chunks):
        weights = np.empty(K)
        work = np.empty(K, np.int32)
        for w in range(c * PHI_CHUNK, min(V, (c + 1) * PHI_CHUNK)):
            row = phi[w]
            for k in range(K):
                weights[k] = alpha[k] * row[k]
            mass[w] = build_alias(weights, prob[w], alias[w], work)


@njit(cache=True, nogil=True, inline="always")
def sparse_draw(phi: F64, ndk: I32, nz: I32, n_nz: int, p_dw: F64, prob_w: F64, alias_w: I32,
                mass_w: float, rng: Rng) -> tuple[int, int]:
    """One exact draw from q(k) ∝ phi[k] (ndk[k] + alpha_k) (the token removed from ``ndk``):
    the document part sum_{k in nz} ndk[k] phi[k] exactly, else the word table of
    alpha_k phi[k]. Returns (topic, 1 if from the document part else 0)."""
    P = 0.0
    for j in range(n_nz):
        k = nz[j]
        P += ndk[k] * phi[k]
        p_dw[j] = P
    u = uniform(rng) * (P + mass_w)
    if u < P:
        j = 0
        while j < n_nz - 1 and p_dw[j] <= u:
            j += 1
        return nz[j], 1
    return alias_from_uniform(prob_w, alias_w, uniform(rng)), 0


# The kernel's variant is chosen by its arguments' types, so that a model compiles only the
# draws it runs (issue 50, item 6: the partially collapsed kernel compiled every variant, 5 s
# of a cold first sweep): the dense kernel passes ``prob`` 1-d (no word tables), a model
# without tasks ``term`` None, a term without the label matrix ``G`` 1-d (``kernel_args``).
# numba reads ``x.ndim`` and ``x is None`` of an argument as constants and drops the branches
# they rule out before typing them, so the tests stand written out at each branch.
NO_TABLES = np.zeros(1)     # ``prob`` of the dense kernel
NO_MATRIX = np.zeros(1)     # ``G`` when the label term goes through its O(T) sums


def kernel_args(sparse: bool, prob: F64, term: Term, G: F64,
                use_G: bool) -> tuple[F64, Term | None, F64]:
    """``prob``, ``term`` and ``G`` as ``sweep_documents`` and ``sweep_chunks`` take them:
    the variant in their types (the comment above)."""
    return (prob if sparse else NO_TABLES, term if term.eta_kt.shape[1] > 0 else None,
            G if use_G else NO_MATRIX)


@njit(cache=True, nogil=True)
def _document(d: int, doc_id: int | np.int64, words: I32, doc_ptr: I64, z: I32, z_prev: I32,
              ndk: I32, alpha: F64, phi_wk: F64, prob: F64, alias: I32, mass: F64,
              mh_steps: int, term: Term | None, cum: F64, g: F64, nz: I32, pos: I32,
              p_dw: F64, key: Rng, rng: Rng, row: F64, doc_slot: int, G: F64,
              qq: F64) -> None:
    """Resample document d's tokens once given Phi (module docstring), ``ndk`` (K,) zeroed
    int32 scratch for its topic counts (zeroed again on return), from the stream of
    its corpus-wide index ``doc_id`` (d itself unless the arrays hold a slice of the corpus,
    as a distributed partition's do); ``row`` its info
    record (tokens, changed, the label kind's triple when used), the sparse kernel's draws
    from the document part added at ``doc_slot`` (-1: not recorded). The variant: the
    sparse kernel when ``prob`` is 2-d, the label term when ``term`` is not None, through
    the K x K matrix ``G`` (module docstring) when it is 2-d, ``qq`` (K) its q_k."""
    p0, p1 = doc_ptr[d], doc_ptr[d + 1]
    if p1 == p0:
        return
    derive_into(key, uint64(doc_id), rng)
    K = ndk.shape[0]
    for i in range(p0, p1):   # the document's n_kd, from its topics (cleared at the end)
        ndk[z[i]] += 1
    inv_n2 = 1.0 / ((p1 - p0) * (p1 - p0))
    if term is not None:
        supervised.load_doc(term, d, z, p0, p1, False)
        if G.ndim == 2:
            supervised.matrix_load(term.eta_kt, term.c, qq)
    n_nz = 0
    if prob.ndim == 2:
        for i in range(p0, p1):
            if pos[z[i]] < 0:
                n_nz = _add_topic(z[i], nz, pos, n_nz)
    changed = 0
    doc_part = 0
    for i in range(p0, p1):
        w = words[i]
        phi = phi_wk[w]
        old = z[i]
        z_prev[i] = old
        ndk[old] -= 1
        if prob.ndim == 2:
            if ndk[old] == 0:
                n_nz = _remove_topic(old, nz, pos, n_nz)
        if prob.ndim == 1:
            total = 0.0
            if term is None:
                # p(z_i = k | Phi, rest) ∝ phi_kw (n_kd^-i + alpha_k)   (DOLDA eq. 4.1)
                for k in range(K):
                    total += phi[k] * (ndk[k] + alpha[k])
                    cum[k] = total
            else:
                # ... times exp(g_d(k))   (DOLDA eq. 4.1; Zheng 2015 eq. 15-17)
                if G.ndim == 2:
                    # g_d(k) = A_d(k) - q_k + G[s, k] / N^2: token i (at s) out of the coupling
                    top = supervised.matrix_g_all(term.A, qq, G[old], inv_n2, g)
                else:
                    supervised.token_coupling(term.factor, term.eta_kt, term.c, old, term.v)
                    top = supervised.g_all(term.factor, term.loss_params, term.A, term.eta_kt,
                                           term.c, term.v, g)
                for k in range(K):
                    total += phi[k] * (ndk[k] + alpha[k]) * fmath.exp(g[k] - top)
                    cum[k] = total
            new = search_cumulative(cum, K, uniform(rng) * total)
        elif term is None:
            new, from_doc = sparse_draw(phi, ndk, nz, n_nz, p_dw, prob[w], alias[w], mass[w],
                                        rng)
            doc_part += from_doc
        else:
            # independence MH: q(k) ∝ phi_kw (n_kd + alpha_k), target q(k) exp(g_d(k)):
            # the acceptance ratio is exp(g_d(t) - g_d(s))
            s = old
            if G.ndim == 2:
                g_s = supervised.matrix_g(term.A, qq, G[old], inv_n2, s)
            else:
                supervised.token_coupling(term.factor, term.eta_kt, term.c, old, term.v)
                g_s = supervised.g_value(term.factor, term.loss_params, term.A, term.eta_kt,
                                         term.c, term.v, s)
            for step in range(mh_steps):
                t, from_doc = sparse_draw(phi, ndk, nz, n_nz, p_dw, prob[w], alias[w],
                                          mass[w], rng)
                doc_part += from_doc
                if t == s:
                    record_mh(row, 0, 1.0, True)
                    continue
                if G.ndim == 2:
                    g_t = supervised.matrix_g(term.A, qq, G[old], inv_n2, t)
                else:
                    g_t = supervised.g_value(term.factor, term.loss_params, term.A,
                                             term.eta_kt, term.c, term.v, t)
                a = fmath.exp(min(g_t - g_s, 0.0))
                if a >= 1.0 or uniform(rng) < a:
                    record_mh(row, 0, a, True)
                    s = t
                    g_s = g_t
                else:
                    record_mh(row, 0, a, False)
            new = s
        z[i] = new
        ndk[new] += 1
        if prob.ndim == 2:
            if ndk[new] == 1:
                n_nz = _add_topic(new, nz, pos, n_nz)
        if new != old:
            changed += 1
            if term is not None:
                if G.ndim == 2:
                    supervised.matrix_move(G, qq, old, new, inv_n2)
                else:
                    supervised.move(term.eta_kt, term.c, old, new)
    for j in range(n_nz):
        pos[nz[j]] = -1
    for i in range(p0, p1):
        ndk[z[i]] = 0
    row[TOKENS] += p1 - p0
    row[CHANGED] += changed
    if doc_slot >= 0:
        row[doc_slot] += doc_part


@njit(cache=True, nogil=True)
def sweep_documents(tokens: Tokens, counts: Counts, alpha: F64, phi_wk: F64, prob: F64,
                    alias: I32, mass: F64, mh_steps: int, term: Term | None, key: Rng,
                    chunk_ptr: I64, z_prev: I32, info: F64, doc_slot: int, G: F64) -> None:
    """Resample every token of the documents ``chunk_ptr[0] .. chunk_ptr[-1]-1`` once given
    Phi, the chunks of documents ``chunk_ptr[j] .. chunk_ptr[j+1]-1`` in parallel
    (``sweep_chunks``), then bring ``n_wk`` and ``n_k`` up to date and add the documents'
    info rows to ``info`` in document order (``commit_counts``). ``counts.n_dk`` (D, K) is
    kept per document; ``z_prev`` (N,) int32 scratch. ``info``: tokens, changed, the label
    kind's triple (supervised sparse only), and at ``doc_slot`` (-1: none) the draws from
    the sparse kernel's document part. The variant (dense or sparse, the label term, its
    matrix ``G``) is in the types of ``prob``, ``term`` and ``G`` (``kernel_args``)."""
    d0, d1 = chunk_ptr[0], chunk_ptr[chunk_ptr.shape[0] - 1]
    rows = np.zeros((d1 - d0, info.shape[0]))
    # the offset typed int64, not as the literal 0: a distributed partition's call then
    # finds this compiled sweep_chunks in the cache instead of compiling its own
    sweep_chunks(tokens.words, tokens.doc_ptr, counts.z, z_prev, alpha, phi_wk, prob, alias,
                 mass, mh_steps, term, key, chunk_ptr, np.int64(0), rows, doc_slot, G)
    commit_counts(tokens.words, tokens.doc_ptr, d0, d1, z_prev, counts.z, counts.n_wk,
                  counts.n_k, rows, info)


@njit(cache=True, nogil=True, parallel=True)
def sweep_chunks(words: I32, doc_ptr: I64, z: I32, z_prev: I32, alpha: F64, phi_wk: F64,
                 prob: F64, alias: I32, mass: F64, mh_steps: int, term: Term | None, key: Rng,
                 chunk_ptr: I64, doc_offset: int | np.int64, rows: F64, doc_slot: int,
                 G: F64) -> None:
    """The parallel part of ``sweep_documents``: documents ``chunk_ptr[0] ..
    chunk_ptr[-1]-1`` of these arrays, document d drawing from the stream of d +
    ``doc_offset`` (its index in the whole corpus) and writing its info row to
    ``rows[d - chunk_ptr[0]]``; ``z`` is updated, ``z_prev`` gets the old topics. Nothing
    shared is written: a distributed partition runs it on its own slice of the corpus
    (``topicsup.backends.dask``)."""
    K = phi_wk.shape[1]
    d0 = chunk_ptr[0]
    for j in prange(chunk_ptr.shape[0] - 1):
        rng = np.empty(4, np.uint64)
        ndk = np.zeros(K, np.int32)
        cum = np.empty(K)
        g = np.empty(K)
        nz = np.empty(K, np.int32)
        pos = np.full(K, -1, np.int32)
        p_dw = np.empty(K)
        qq = np.empty(K)
        # the label term's per-document scratch, one per chunk (the rest is shared, read-only)
        local = term
        if term is not None:
            T = term.eta_kt.shape[1]
            local = Term(term.factor, term.loss_params, term.eta_kt, term.b, term.w, term.y,
                         term.r, np.empty(K), np.empty((4, T)), np.empty(T), term.exp_prob,
                         term.exp_alias)
        for d in range(chunk_ptr[j], chunk_ptr[j + 1]):
            _document(d, d + doc_offset, words, doc_ptr, z, z_prev, ndk, alpha, phi_wk,
                      prob, alias, mass, mh_steps, local, cum, g, nz, pos, p_dw, key, rng,
                      rows[d - d0], doc_slot, G, qq)


@njit(cache=True, nogil=True)
def commit_counts(words: I32, doc_ptr: I64, d0: int, d1: int, z_prev: I32, z: I32, n_wk: I32,
                  n_k: I32, rows: F64, info: F64) -> None:
    """After ``sweep_chunks`` on documents d0 .. d1-1: the shared counts by integer updates
    (order-free, exact), then the documents' info ``rows`` added to ``info`` in document
    order (so its sums do not depend on how the documents were split)."""
    for i in range(doc_ptr[d0], doc_ptr[d1]):
        old = z_prev[i]
        new = z[i]
        if new != old:
            w = words[i]
            n_wk[w, old] -= 1
            n_wk[w, new] += 1
            n_k[old] -= 1
            n_k[new] += 1
    add_rows(info, rows)


@njit(cache=True, nogil=True)
def add_rows(info: F64, rows: F64) -> None:
    """``info`` += each of the documents' info ``rows`` in turn (document order)."""
    for r in range(rows.shape[0]):
        for m in range(info.shape[0]):
            info[m] += rows[r, m]


ADOPT_BUCKETS = 256     # word ranges whose counts ``adopt_deltas`` updates in parallel


@njit(cache=True, nogil=True)
def count_deltas(words: I32, before: I32, after: I32, K: int) -> tuple[I64, I32]:
    """The changes of n_wk that turning topics ``before`` into ``after`` (the tokens of
    ``words``) makes, as sparse deltas: the flat indices w K + k ascending, each once, and
    their non-zero integer changes (a distributed partition's reply: every change of a
    token is one -1 and one +1, summed per (word, topic)). O(changed tokens + V): the
    changed tokens grouped by word (a counting sort), each word's topics summed in a row of
    K and read back in ascending order."""
    V = 0
    for i in range(words.shape[0]):
        V = max(V, words[i] + 1)
    start = np.zeros(V + 1, np.int64)
    n = 0
    for i in range(words.shape[0]):
        if after[i] != before[i]:
            start[words[i] + 1] += 1
            n += 1
    for w in range(V):
        start[w + 1] += start[w]
    fill = start[:V].copy()
    moved = np.empty(n, np.int64)
    for i in range(words.shape[0]):
        if after[i] != before[i]:
            moved[fill[words[i]]] = i
            fill[words[i]] += 1
    keys = np.empty(2 * n, np.int64)
    deltas = np.empty(2 * n, np.int32)
    row = np.zeros(K, np.int32)
    seen = np.zeros(K, np.bool_)
    touched = np.empty(K, np.int64)
    m = 0
    for w in range(V):
        t = 0
        for j in range(start[w], start[w + 1]):
            i = moved[j]
            for k in (before[i], after[i]):
                if not seen[k]:
                    seen[k] = True
                    touched[t] = k
                    t += 1
            row[before[i]] -= 1
            row[after[i]] += 1
        topics = np.sort(touched[:t])
        for q in range(t):
            k = topics[q]
            if row[k] != 0:   # a topic touched, then summed back to zero, is no change
                keys[m] = w * K + k
                deltas[m] = row[k]
                m += 1
            row[k] = 0
            seen[k] = False
    return keys[:m], deltas[:m]


@njit(cache=True, nogil=True, parallel=True)
def adopt_deltas(keys: I64, deltas: I32, part_ptr: I64, n_wk: I32, n_k: I32) -> int:
    """Add the sparse count deltas of several partitions (``keys[part_ptr[p] ..
    part_ptr[p+1]]``: flat indices w K + k, strictly ascending within a partition; their
    integer ``deltas``) to ``n_wk`` (V, K) and ``n_k``, all or nothing: checked before
    anything changes (ascending, in range), and taken back if a count would go below zero.
    Returns the index of the first partition whose keys are bad, -2 for a negative count,
    -1 when taken. O(entries), in parallel over ranges of words (each range's rows of n_wk
    written by one thread): integer sums in any order, the same counts on any threads."""
    V, K = n_wk.shape
    P = part_ptr.shape[0] - 1
    bad = np.zeros(P, np.int8)
    for p in prange(P):
        prev = -1
        for j in range(part_ptr[p], part_ptr[p + 1]):
            if keys[j] <= prev or keys[j] >= V * K:
                bad[p] = 1
                break
            prev = keys[j]
    for p in range(P):
        if bad[p]:
            return p
    B = min(ADOPT_BUCKETS, V)
    width = (V + B - 1) // B
    seg = np.empty((P, B + 1), np.int64)
    for p in prange(P):
        a, e = part_ptr[p], part_ptr[p + 1]
        for b in range(B + 1):
            seg[p, b] = a + np.searchsorted(keys[a:e], min(b * width, V) * K)
    moved = np.zeros((B, K), np.int64)
    negative = np.zeros(B, np.int8)
    for b in prange(B):   # the words of range b are this thread's alone
        for p in range(P):
            for j in range(seg[p, b], seg[p, b + 1]):
                w, k = keys[j] // K, keys[j] % K
                n_wk[w, k] += deltas[j]
                moved[b, k] += deltas[j]
        for p in range(P):
            for j in range(seg[p, b], seg[p, b + 1]):
                if n_wk[keys[j] // K, keys[j] % K] < 0:
                    negative[b] = 1
    if negative.any():
        for b in prange(B):
            for p in range(P):
                for j in range(seg[p, b], seg[p, b + 1]):
                    n_wk[keys[j] // K, keys[j] % K] -= deltas[j]
        return -2
    for b in range(B):
        for k in range(K):
            n_k[k] += moved[b, k]
    return -1


@njit(cache=True, nogil=True)
def chunks(doc_ptr: I64, d_start: int, d_end: int, chunk_tokens: int) -> I64:
    """Document boundaries of ``d_start .. d_end`` in chunks of about ``chunk_tokens`` tokens
    (the unit of parallel work; results do not depend on it)."""
    out = np.empty(d_end - d_start + 1, np.int64)
    n = 0
    out[n] = d_start
    n += 1
    start_tok = doc_ptr[d_start]
    for d in range(d_start + 1, d_end):
        if doc_ptr[d] - start_tok >= chunk_tokens:
            out[n] = d
            n += 1
            start_tok = doc_ptr[d]
    out[n] = d_end
    n += 1
    return out[:n]


# ---------------------------------------------------------------------- fold-in
@njit(cache=True, nogil=True, parallel=True)
def fold_in(words: I32, doc_ptr: I64, phi_wk: F64, prob: F64, alias: I32, mass: F64, alpha: F64,
            n_burn: int, n_keep: int, key: Rng, doc_labels: U64, z: I32, zbar: F64) -> None:
    """Fold held-out documents in with Phi fixed (docs/math.md sec. 5) by the sparse kernel, in
    parallel over documents: the target of ``kernels.fold_in.fold_in``, p(z_i = k) ∝
    phi[w_i, k] (n_kd^-i + alpha_k), drawn in O(k_d) per token from the document part and
    the word tables of alpha_k phi[w, k] (``build_word_tables``). Document d draws from the
    stream of ``doc_labels[d]`` under ``key`` (not advanced): its proportions do not depend
    on the other documents or on the threads. ``zbar`` (D, K) gets the mean of n_kd / N_d
    over ``n_keep`` sweeps after ``n_burn``; a document without tokens gets 0."""
    D = doc_ptr.shape[0] - 1
    K = phi_wk.shape[1]
    chunk_ptr = chunks(doc_ptr, 0, D, 4096)
    for j in prange(chunk_ptr.shape[0] - 1):
        rng = np.empty(4, np.uint64)
        ndk = np.zeros(K, np.int32)
        nz = np.empty(K, np.int32)
        pos = np.full(K, -1, np.int32)
        p_dw = np.empty(K)
        for d in range(chunk_ptr[j], chunk_ptr[j + 1]):
            zbar[d, :] = 0.0
            p0, p1 = doc_ptr[d], doc_ptr[d + 1]
            if p1 == p0:
                continue
            derive_into(key, doc_labels[d], rng)
            n_nz = 0
            for i in range(p0, p1):
                t = randint(rng, K)
                z[i] = t
                ndk[t] += 1
                if ndk[t] == 1:
                    n_nz = _add_topic(t, nz, pos, n_nz)
            scale = 1.0 / ((p1 - p0) * n_keep)
            for sweep in range(n_burn + n_keep):
                for i in range(p0, p1):
                    w = words[i]
                    old = z[i]
                    ndk[old] -= 1
                    if ndk[old] == 0:
                        n_nz = _remove_topic(old, nz, pos, n_nz)
                    new, _ = sparse_draw(phi_wk[w], ndk, nz, n_nz, p_dw, prob[w], alias[w],
                                         mass[w], rng)
                    z[i] = new
                    ndk[new] += 1
                    if ndk[new] == 1:
                        n_nz = _add_topic(new, nz, pos, n_nz)
                if sweep >= n_burn:
                    for jj in range(n_nz):
                        k = nz[jj]
                        zbar[d, k] += ndk[k] * scale
            for jj in range(n_nz):
                k = nz[jj]
                ndk[k] = 0
                pos[k] = -1
