"""Dirichlet-multinomial regression (DMR; Mimno & McCallum 2008): each document's Dirichlet
prior on its topic proportions depends on its features, alpha_dk = exp(x_d . lambda_k)
(docs/math.md sec. 15).

Three kernels over arrays:

* ``gibbs_sweep``: the collapsed topic step, LDA's exact conditional with the document's own
  alpha_d, p(z_i = k | rest) ∝ (n_kd + alpha_dk)(n_kw + beta) / (n_k + V beta), O(K) per
  token;
* ``lambda_sweep``: every coordinate lambda_fk once, by univariate slice sampling (Neal 2003,
  stepping out and shrinkage) on its exact conditional given z, the Dirichlet-multinomial
  likelihood of the documents with the feature times its Gaussian prior (eq. 15.2). Slice
  sampling leaves that conditional invariant exactly, whatever its shape; no optimisation,
  no approximation (tomotopy and Mimno & McCallum optimise lambda instead: a point estimate);
* ``fold_in``: held-out documents' topics with Phi fixed, each with its own alpha_d.

The log Gamma function the slice sampler evaluates is ``log_gamma`` below, built from
``fmath.log`` and the four operations only, so its bits, and the chain's, are the same on
every machine (``math.lgamma`` is the C library's and is not: ``kernels.fmath``).

The design X (D, F) is held twice, by documents (CSR: ``row_ptr``, ``row_col``, ``row_val``)
and by features (CSC: ``col_ptr``, ``col_doc``, ``col_val``), so a coordinate's conditional
visits only the documents that have the feature.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..arrays import F64, I32, I64, U64, Rng
from . import fmath
from .counts import Counts, Tokens, move_token
from .gibbs import conditional_weight, search_cumulative
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .rng import derive_into, randint, uniform

KINDS = ()   # exact draws: no proposals to accept or reject

HALF_LOG_2PI = 0.9189385332046727   # log(2 pi) / 2
STIRLING_FROM = 16.0   # log_gamma's series from here; below, the recurrence lifts x there
# the support of lambda: every document's alpha_dk within the samplers' Dirichlet range
# (models.lda.DIRICHLET_RANGE); outside it the target is 0 (docs/math.md sec. 15)
ALPHA_LOW, ALPHA_HIGH = 1e-10, 1e6
MAX_STEPS = 32   # stepping-out steps of the slice (Neal's m), each one slice width


@njit(cache=True, nogil=True, inline="always")
def log_gamma(x: float) -> float:
    """log Gamma(x) for x > 0, the same bits on every machine: the Stirling series to x^-9
    from x >= 16 (truncation below 2e-14 there), lifted by Gamma(x) = Gamma(x + m) / (x (x + 1)
    ... (x + m - 1)) below. Within 2e-14 of ``math.lgamma`` (absolute below 1, relative above)."""
    shift = 1.0
    while x < STIRLING_FROM:
        shift *= x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (
        1.0 / 1260.0 - inv2 * (1.0 / 1680.0 - inv2 * (1.0 / 1188.0)))))
    return (x - 0.5) * fmath.log(x) - x + HALF_LOG_2PI + series - fmath.log(shift)


@njit(cache=True, nogil=True)
def refresh_alpha(row_ptr: I64, row_col: I32, row_val: F64, lam: F64, alpha: F64,
                  alpha_sum: F64) -> None:
    """alpha_dk = exp(x_d . lambda_k) (D, K) and alpha_sum_d = sum_k alpha_dk from lambda
    (F, K), always summed in the same order: the one function of lambda the chain reads, so a
    chain resumed from its lambda alone continues bit for bit."""
    D, K = alpha.shape
    for d in range(D):
        total = 0.0
        for k in range(K):
            eta = 0.0
            for j in range(row_ptr[d], row_ptr[d + 1]):
                eta += row_val[j] * lam[row_col[j], k]
            alpha[d, k] = fmath.exp(eta)
            total += alpha[d, k]
        alpha_sum[d] = total


@njit(cache=True, nogil=True)
def gibbs_sweep(tokens: Tokens, counts: Counts, alpha: F64, beta: float, scratch: F64,
                rng: Rng, d_start: int, d_end: int, info: F64) -> None:
    """Resample every token of documents ``d_start .. d_end-1`` once, in order, from
    p(z_i = k | rest) ∝ (n_kd + alpha_dk)(n_kw + beta) / (n_k + V beta) (eq. 15.1): LDA's
    collapsed Gibbs step (``kernels.gibbs``) with the document's own row of ``alpha`` (D, K).
    ``scratch`` (2, K) float64; ``info`` is incremented."""
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    K = n_k.shape[0]
    V_beta = beta * n_wk.shape[0]
    cum = scratch[0]
    inv_n_k = scratch[1]
    for k in range(K):
        inv_n_k[k] = 1.0 / (n_k[k] + V_beta)
    changed = 0
    for d in range(d_start, d_end):
        ndk = n_dk[d]
        a = alpha[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            nwk = n_wk[words[i]]
            old = z[i]
            move_token(ndk, nwk, n_k, old, -1)
            inv_n_k[old] = 1.0 / (n_k[old] + V_beta)
            total = 0.0
            for k in range(K):   # eq. 15.1
                total += conditional_weight(ndk[k], a[k], nwk[k], beta, inv_n_k[k])
                cum[k] = total
            new = search_cumulative(cum, K, uniform(rng) * total)
            z[i] = new
            move_token(ndk, nwk, n_k, new, 1)
            inv_n_k[new] = 1.0 / (n_k[new] + V_beta)
            if new != old:
                changed += 1
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += changed


@njit(cache=True, nogil=True)
def coordinate_log_density(v: float, f: int, k: int, col_ptr: I64, col_doc: I32,
                           col_val: F64, n_dk: I32, n_d: I64, lam: F64, mu: F64,
                           inv_var: F64, alpha: F64, alpha_sum: F64) -> float:
    """log p(lambda_fk = v | z, lambda_-fk) up to a constant (eq. 15.2): over the documents d
    with x_df != 0, log Gamma(A_d) - log Gamma(A_d + N_d) + log Gamma(a_dk + n_dk) - log
    Gamma(a_dk), with a_dk = alpha_dk exp(x_df (v - lambda_fk)) and A_d the document's alpha
    sum with a_dk in place of alpha_dk, plus the Gaussian prior's -(v - mu_fk)^2 / (2
    sigma_f^2). -inf where some a_dk leaves the Dirichlet range (the support)."""
    delta = v - lam[f, k]
    out = -0.5 * (v - mu[f, k]) * (v - mu[f, k]) * inv_var[f]
    for j in range(col_ptr[f], col_ptr[f + 1]):
        d = col_doc[j]
        a = alpha[d, k] * fmath.exp(col_val[j] * delta)
        if a < ALPHA_LOW or a > ALPHA_HIGH:
            return -np.inf
        A = alpha_sum[d] - alpha[d, k] + a
        out += log_gamma(A) - log_gamma(A + n_d[d])
        if n_dk[d, k] > 0:
            out += log_gamma(a + n_dk[d, k]) - log_gamma(a)
    return out


@njit(cache=True, nogil=True)
def _set_coordinate(v: float, f: int, k: int, col_ptr: I64, col_doc: I32, col_val: F64,
                    lam: F64, alpha: F64, alpha_sum: F64) -> None:
    """lambda_fk = v, and the working alpha of the documents with the feature moved with it
    (exactly as ``coordinate_log_density`` evaluated it); ``refresh_alpha`` recomputes them
    from lambda at the end of the sweep."""
    delta = v - lam[f, k]
    for j in range(col_ptr[f], col_ptr[f + 1]):
        d = col_doc[j]
        a = alpha[d, k] * fmath.exp(col_val[j] * delta)
        alpha_sum[d] = alpha_sum[d] - alpha[d, k] + a
        alpha[d, k] = a
    lam[f, k] = v


@njit(cache=True, nogil=True)
def lambda_sweep(col_ptr: I64, col_doc: I32, col_val: F64, row_ptr: I64, row_col: I32,
                 row_val: F64, n_dk: I32, n_d: I64, lam: F64, mu: F64, inv_var: F64,
                 width: F64, alpha: F64, alpha_sum: F64, rng: Rng) -> int:
    """One slice-sampling update of every lambda_fk (f outer, k inner) given z (Neal 2003,
    fig. 3 and 5: the slice under the current density, an interval of ``width[f]`` placed at
    random and stepped out at most ``MAX_STEPS`` times, then shrunk towards the current value
    until a point inside the slice is drawn): a Markov step that leaves the conditional of
    eq. 15.2 invariant exactly. ``alpha``/``alpha_sum`` must be fresh (``refresh_alpha``) on
    entry and are fresh again on return. Returns the number of density evaluations."""
    F, K = lam.shape
    evaluations = 0
    for f in range(F):
        if col_ptr[f + 1] == col_ptr[f]:
            continue   # a feature no document has: its coordinates are never updated
        w = width[f]
        for k in range(K):
            x0 = lam[f, k]
            g0 = coordinate_log_density(x0, f, k, col_ptr, col_doc, col_val, n_dk, n_d, lam,
                                        mu, inv_var, alpha, alpha_sum)
            # the slice's height: log y = g(x0) + log u, u uniform on (0, 1]
            level = g0 + fmath.log(1.0 - uniform(rng))
            left = x0 - w * uniform(rng)
            right = left + w
            j = int(MAX_STEPS * uniform(rng))
            m = MAX_STEPS - 1 - j
            evaluations += 1
            while j > 0:
                evaluations += 1
                if coordinate_log_density(left, f, k, col_ptr, col_doc, col_val, n_dk, n_d,
                                          lam, mu, inv_var, alpha, alpha_sum) <= level:
                    break
                left -= w
                j -= 1
            while m > 0:
                evaluations += 1
                if coordinate_log_density(right, f, k, col_ptr, col_doc, col_val, n_dk, n_d,
                                          lam, mu, inv_var, alpha, alpha_sum) <= level:
                    break
                right += w
                m -= 1
            while True:
                v = left + (right - left) * uniform(rng)
                evaluations += 1
                if coordinate_log_density(v, f, k, col_ptr, col_doc, col_val, n_dk, n_d, lam,
                                          mu, inv_var, alpha, alpha_sum) > level:
                    break
                if v < x0:
                    left = v
                else:
                    right = v
            _set_coordinate(v, f, k, col_ptr, col_doc, col_val, lam, alpha, alpha_sum)
    refresh_alpha(row_ptr, row_col, row_val, lam, alpha, alpha_sum)
    return evaluations


@njit(cache=True, nogil=True)
def doc_log_likelihood(doc_ptr: I64, z: I32, alpha: F64, alpha_sum: F64) -> float:
    """log p(Z | alpha) = sum_d [log Gamma(A_d) - log Gamma(N_d + A_d) + sum_k log Gamma(n_dk
    + alpha_dk) - log Gamma(alpha_dk)], the documents' Dirichlet-multinomial part of the
    collapsed joint with the documents' own alpha (``loglik.lda_doc_part`` with one alpha
    row per document)."""
    D, K = alpha.shape
    row = np.zeros(K, np.int64)
    out = 0.0
    for d in range(D):
        out += log_gamma(alpha_sum[d]) - log_gamma(doc_ptr[d + 1] - doc_ptr[d] + alpha_sum[d])
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            row[z[i]] += 1
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = z[i]
            if row[k] > 0:
                out += log_gamma(row[k] + alpha[d, k]) - log_gamma(alpha[d, k])
                row[k] = 0
    return out


@njit(cache=True, nogil=True, parallel=True)
def fold_in(words: I32, doc_ptr: I64, phi_wk: F64, alpha: F64, n_burn: int, n_keep: int,
            key: Rng, doc_labels: U64, z: I32, zbar: F64) -> None:
    """Held-out documents with Phi fixed, each with its own alpha_d (D, K): exact Gibbs from
    p(z_i = k) ∝ phi[w_i, k] (n_kd^-i + alpha_dk), O(K) per token, in parallel over documents.
    Document d draws from the stream of ``doc_labels[d]`` under ``key`` (not advanced), so its
    proportions depend neither on the other documents nor on the threads (as
    ``partially_collapsed.fold_in``). ``zbar`` (D, K) gets the mean of n_kd / N_d over
    ``n_keep`` sweeps after ``n_burn``; a document without tokens gets 0."""
    D = doc_ptr.shape[0] - 1
    K = phi_wk.shape[1]
    for d in prange(D):
        zbar[d, :] = 0.0
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        if p1 == p0:
            continue
        rng = np.empty(4, np.uint64)
        derive_into(key, doc_labels[d], rng)
        ndk = np.zeros(K, np.int64)
        cum = np.empty(K)
        for i in range(p0, p1):
            t = randint(rng, K)
            z[i] = t
            ndk[t] += 1
        scale = 1.0 / ((p1 - p0) * n_keep)
        for sweep in range(n_burn + n_keep):
            for i in range(p0, p1):
                phi = phi_wk[words[i]]
                ndk[z[i]] -= 1
                total = 0.0
                for k in range(K):
                    total += phi[k] * (ndk[k] + alpha[d, k])
                    cum[k] = total
                new = search_cumulative(cum, K, uniform(rng) * total)
                z[i] = new
                ndk[new] += 1
            if sweep >= n_burn:
                for k in range(K):
                    zbar[d, k] += ndk[k] * scale
