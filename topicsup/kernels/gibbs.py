"""Exact collapsed Gibbs sampling for LDA topics: O(K) per token (Griffiths & Steyvers 2004).

This is the reference topic sampler: every faster sampler in topicsup must leave the same
target invariant, and the exact-target tests check them all against one enumeration.
"""

from __future__ import annotations

from numba import njit


from ..arrays import F64, Rng
from . import fmath, supervised
from .counts import Counts, Dirichlet, Tokens, move_token
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .rng import uniform

KINDS = ()  # exact draws: no proposals to accept or reject


@njit(cache=True, nogil=True, inline="always")
def search_cumulative(cum: F64, K: int, u: float) -> int:
    """Smallest t with ``cum[t] > u`` by bisection (``cum`` non-decreasing, u < cum[K-1])."""
    lo = 0
    hi = K - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True, inline="always")
def conditional_weight(ndk_k: int, alpha_k: float, nwk_k: int, beta: float,
                       inv_n_k: float) -> float:
    """The unnormalised collapsed conditional of topic k for a token whose counts are removed:
    (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta) (docs/math.md sec. 2), with ``inv_n_k`` =
    1 / (n_k + V beta). ``topicsup.inspector`` computes the conditional it shows with it."""
    return (ndk_k + alpha_k) * (nwk_k + beta) * inv_n_k


@njit(cache=True, nogil=True)
def gibbs_sweep(tokens: Tokens, counts: Counts, prior: Dirichlet, term: supervised.Term,
                scratch: F64, rng: Rng, d_start: int, d_end: int, info: F64, G: F64,
                use_G: bool) -> None:
    """Resample every token of documents ``d_start .. d_end-1`` once, in order.

    ``tokens`` (``counts.Tokens``), the state ``counts`` (``counts.Counts``, all int32, with
    its (D, K) ``n_dk``), ``prior`` (``counts.Dirichlet``), the supervised ``term``
    (``supervised.Term``; T = 0 tasks for LDA), a float64 ``scratch`` array of shape (3, K),
    the xoshiro state ``rng`` and the float64 ``info`` record (``kernels.info``), which is
    incremented, not reset. ``use_G``: the label coupling through the K x K matrix ``G``
    (``supervised.label_matrix``, built for this sweep's weights; O(K) per token instead of
    O(K T), DOLDA appendix B), which needs one w per task shared by every document.
    """
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    alpha, beta = prior.alpha, prior.beta
    factor, loss_params, eta_kt = term.factor, term.loss_params, term.eta_kt
    A, c, v = term.A, term.c, term.v
    K = n_k.shape[0]
    T = eta_kt.shape[1]
    V_beta = beta * n_wk.shape[0]
    cum = scratch[0]
    inv_n_k = scratch[1]  # 1 / (n_k + V beta), kept current so the K-loop has no division
    qq = scratch[2]       # the matrix path's q_k of the current document
    for k in range(K):
        inv_n_k[k] = 1.0 / (n_k[k] + V_beta)
    changed = 0
    for d in range(d_start, d_end):
        ndk = n_dk[d]
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        inv_n2 = 1.0 / ((p1 - p0) * (p1 - p0)) if p1 > p0 else 0.0
        if T > 0 and p1 > p0:
            supervised.load_doc(term, d, z, p0, p1, False)
            if use_G:
                supervised.matrix_load(eta_kt, c, qq)
        for i in range(p0, p1):
            nwk = n_wk[words[i]]
            old = z[i]
            move_token(ndk, nwk, n_k, old, -1)
            inv_n_k[old] = 1.0 / (n_k[old] + V_beta)
            total = 0.0
            if T == 0:
                # p(z_i = k | rest) ∝ (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta)
                # (docs/math.md sec. 2)
                for k in range(K):
                    total += conditional_weight(ndk[k], alpha[k], nwk[k], beta, inv_n_k[k])
                    cum[k] = total
            else:
                # the same times exp(g_d(k))   (Zheng 2015 eq. 15-17)
                if use_G:
                    top = supervised.matrix_g_all(A, qq, G[old], inv_n2, cum)
                else:
                    supervised.token_coupling(factor, eta_kt, c, old, v)
                    top = supervised.g_all(factor, loss_params, A, eta_kt, c, v, cum)
                for k in range(K):
                    total += conditional_weight(ndk[k], alpha[k], nwk[k], beta, inv_n_k[k]) \
                        * fmath.exp(cum[k] - top)
                    cum[k] = total
            new = search_cumulative(cum, K, uniform(rng) * total)
            z[i] = new
            move_token(ndk, nwk, n_k, new, 1)
            inv_n_k[new] = 1.0 / (n_k[new] + V_beta)
            if new != old:
                changed += 1
                if use_G:
                    supervised.matrix_move(G, qq, old, new, inv_n2)
                elif T > 0:
                    supervised.move(eta_kt, c, old, new)
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += changed
