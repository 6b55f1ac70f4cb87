"""AliasLDA: the Metropolis-Hastings-Walker sampler of Li et al. 2014 sec. 4.1, O(k_d) per token.

The conditional splits into a sparse document part and a dense part (counts exclude token i):
    p(k) ∝ n_kd (n_kw + beta)/(n_k + V beta)  +  alpha_k (n_kw + beta)/(n_k + V beta)
The sparse part p_dw is computed exactly over the k_d topics present in the document; the dense
part is replaced by its stale copy alpha_k q_w(k) from the word's stored samples. The proposal
is the mixture q(k) ∝ p_dw(k) + alpha_k q_w(k) (eq. 10): the sparse part with probability
P_dw / (P_dw + Q_w), else a stale sample. It does not depend on the current state, so the
acceptance is min(1, p(t) q(s) / (p(s) q(t))) with unnormalised masses. The chain starts each
token at its previous topic and takes ``mh_steps`` steps (2 in the paper).
"""

from __future__ import annotations

from numba import njit

from ..arrays import F64, I32, Rng
from . import word_tables
from .counts import Counts, Dirichlet, Tokens, move_token
from .info import CHANGED, TOKENS, record_mh
from .rng import uniform

KINDS = ("alias",)


@njit(cache=True, nogil=True, inline="always")
def _add_topic(k: int, nz: I32, pos: I32, n_nz: int) -> int:
    pos[k] = n_nz
    nz[n_nz] = k
    return n_nz + 1


@njit(cache=True, nogil=True, inline="always")
def _remove_topic(k: int, nz: I32, pos: I32, n_nz: int) -> int:
    j = pos[k]
    last = nz[n_nz - 1]
    nz[j] = last
    pos[last] = j
    pos[k] = -1
    return n_nz - 1


# The document's topics in ascending order (AliasHDP): its sparse part reads the token's word
# row at these topics, and in ascending order the reads run forward through the row, which the
# hardware's stream prefetcher follows. (AliasPDP keeps them as a bitmap, kernels.bitmaps.)
@njit(cache=True, nogil=True, inline="always")
def topics_ascending(ndk: I32, nz: I32) -> int:
    """Fill ``nz`` with the topics of count row ``ndk`` in ascending order; returns their
    number. O(K) once per document."""
    n = 0
    for k in range(ndk.shape[0]):
        if ndk[k] > 0:
            nz[n] = k
            n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def insert_ascending(k: int, nz: I32, n_nz: int) -> int:
    """Insert topic k (not in the list) keeping the order; returns the new length."""
    j = n_nz
    while j > 0 and nz[j - 1] > k:
        nz[j] = nz[j - 1]
        j -= 1
    nz[j] = k
    return n_nz + 1


@njit(cache=True, nogil=True, inline="always")
def remove_ascending(k: int, nz: I32, n_nz: int) -> int:
    """Remove topic k (in the list); returns the new length."""
    j = 0
    while nz[j] != k:
        j += 1
    for i in range(j, n_nz - 1):
        nz[i] = nz[i + 1]
    return n_nz - 1


@njit(cache=True, nogil=True)
def alias_sweep(tokens: Tokens, counts: Counts, prior: Dirichlet, mh_steps: int,
                tables: word_tables.Tables, nz: I32, pos: I32, p_dw: F64, rng: Rng, d_start: int,
                d_end: int, info: F64) -> None:
    """One pass over documents ``d_start .. d_end-1`` (records of ``kernels.counts``; the
    stale word ``tables`` of ``kernels.word_tables``). ``nz``/``pos`` (int32, length K;
    ``pos`` all -1 on entry) hold the document's topic list; ``p_dw`` is float64 scratch."""
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    alpha, beta = prior.alpha, prior.beta
    wt_samples, wt_q, wt_mass, wt_used = tables.samples, tables.q, tables.mass, tables.used
    prob, alias, work = tables.prob, tables.alias, tables.work
    V_beta = beta * n_wk.shape[0]
    changed = 0
    for d in range(d_start, d_end):
        ndk = n_dk[d]
        n_nz = 0
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if pos[z[i]] < 0:
                n_nz = _add_topic(z[i], nz, pos, n_nz)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            nwk = n_wk[w]
            old = z[i]
            move_token(ndk, nwk, n_k, old, -1)
            if ndk[old] == 0:
                n_nz = _remove_topic(old, nz, pos, n_nz)
            P = 0.0  # sparse document part, exact, O(k_d)
            for j in range(n_nz):
                k = nz[j]
                P += ndk[k] * (nwk[k] + beta) / (n_k[k] + V_beta)
                p_dw[j] = P
            s = old
            q_s = -1.0  # proposal mass of the current state; recomputed after a table rebuild
            for step in range(mh_steps):
                if wt_used[w] >= wt_samples.shape[1]:
                    q_s = -1.0
                word_tables.ensure(w, nwk, n_k, alpha, beta, V_beta, wt_samples, wt_q, wt_mass,
                                   wt_used, prob, alias, work, rng)
                if q_s < 0.0:
                    q_s = ndk[s] * (nwk[s] + beta) / (n_k[s] + V_beta) + wt_q[w, s]
                u = uniform(rng) * (P + wt_mass[w])
                if u < P:
                    lo = 0
                    while p_dw[lo] <= u:
                        lo += 1
                    t = nz[lo]
                else:
                    t = word_tables.next_sample(w, wt_samples, wt_used)
                if t == s:
                    record_mh(info, 0, 1.0, True)
                    continue
                # eq. 10: pi(t) q(s) / (pi(s) q(t)), q = sparse exact + dense stale
                q_t = ndk[t] * (nwk[t] + beta) / (n_k[t] + V_beta) + wt_q[w, t]
                a = ((ndk[t] + alpha[t]) * (nwk[t] + beta) * (n_k[s] + V_beta) * q_s) / \
                    ((ndk[s] + alpha[s]) * (nwk[s] + beta) * (n_k[t] + V_beta) * q_t)
                if a >= 1.0 or uniform(rng) < a:
                    record_mh(info, 0, min(a, 1.0), True)
                    s = t
                    q_s = q_t
                else:
                    record_mh(info, 0, a, False)
            z[i] = s
            move_token(ndk, nwk, n_k, s, 1)
            if ndk[s] == 1:
                n_nz = _add_topic(s, nz, pos, n_nz)
            if s != old:
                changed += 1
        for j in range(n_nz):
            pos[nz[j]] = -1
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
