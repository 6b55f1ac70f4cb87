"""The logistic-normal topic model with prevalence covariates (stm's prior on theta, Roberts
et al. 2014, with a diagonal covariance; docs/math.md sec. 16): each document's topic
proportions are theta_d = softmax(eta_d), eta_dk ~ N(x_d . gamma_k, sigma_k^2).

Four exact steps over arrays, none an approximation (stm fits the same prior by a Laplace
approximation inside variational EM; Chen et al. 2013 sample it with Polya-Gamma draws):

* ``gibbs_sweep``: the topics given eta, Phi collapsed, p(z_i = k | rest) ∝ theta_dk (n_kw +
  beta) / (n_k + V beta) (eq. 16.1), O(K) per token;
* ``eta_sweep``: every eta_dk once by univariate slice sampling (Neal 2003) on its exact
  conditional, n_dk v - N_d log(e^v + sum_{j != k} e^eta_dj) - (v - mu_dk)^2 / (2 sigma_k^2)
  (eq. 16.2), log-concave;
* ``gamma_draw``: each topic's coefficients gamma_k (F,) from their Gaussian conditional given
  eta (conjugate regression, eq. 16.3), by the project's own Cholesky (``kernels.linalg``);
* ``variance_draw``: each sigma_k^2 from its inverse-gamma conditional (eq. 16.4).

Every exp and log is ``fmath``'s and every sum has a fixed order, so the chain's bits are the
same on every machine (sec. 14).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..arrays import F64, I32, I64, U64, Rng
from . import fmath
from .counts import Counts, Tokens, move_token
from .draws import gamma as gamma_variate
from .draws import normal
from .gibbs import search_cumulative
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .linalg import cholesky
from .rng import derive_into, randint, uniform

KINDS = ()   # exact draws: no proposals to accept or reject
MAX_STEPS = 32   # stepping-out steps of the slice (Neal's m), each one slice width
CANCELLATION = 1e-6   # a running sum's difference below this share of it is recomputed


@njit(cache=True, nogil=True)
def refresh_theta(eta: F64, theta: F64) -> None:
    """theta_d = softmax(eta_d) row by row, shifted by the row's maximum (no overflow) and
    summed in one fixed order: the one function of eta the topic step reads, so a chain
    resumed from its eta continues bit for bit."""
    D, K = eta.shape
    for d in range(D):
        top = eta[d, 0]
        for k in range(1, K):
            top = max(top, eta[d, k])
        total = 0.0
        for k in range(K):
            theta[d, k] = fmath.exp(eta[d, k] - top)
            total += theta[d, k]
        for k in range(K):
            theta[d, k] /= total


@njit(cache=True, nogil=True)
def refresh_mean(row_ptr: I64, row_col: I32, row_val: F64, gamma: F64, mean: F64) -> None:
    """mu_dk = x_d . gamma_k (D, K) from the design's rows, in the rows' order."""
    D, K = mean.shape
    for d in range(D):
        for k in range(K):
            s = 0.0
            for j in range(row_ptr[d], row_ptr[d + 1]):
                s += row_val[j] * gamma[row_col[j], k]
            mean[d, k] = s


@njit(cache=True, nogil=True)
def gibbs_sweep(tokens: Tokens, counts: Counts, theta: F64, beta: float, scratch: F64,
                rng: Rng, d_start: int, d_end: int, info: F64) -> None:
    """Resample every token of documents ``d_start .. d_end-1`` once, in order, from
    p(z_i = k | rest) ∝ theta_dk (n_kw + beta) / (n_k + V beta) (eq. 16.1): theta given by
    eta, Phi collapsed. ``scratch`` (2, K) float64; ``info`` is incremented."""
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
        t = theta[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            nwk = n_wk[words[i]]
            old = z[i]
            move_token(ndk, nwk, n_k, old, -1)
            inv_n_k[old] = 1.0 / (n_k[old] + V_beta)
            total = 0.0
            for k in range(K):   # eq. 16.1
                total += t[k] * (nwk[k] + beta) * inv_n_k[k]
                cum[k] = total
            new = search_cumulative(cum, K, uniform(rng) * total)
            z[i] = new
            move_token(ndk, nwk, n_k, new, 1)
            inv_n_k[new] = 1.0 / (n_k[new] + V_beta)
            if new != old:
                changed += 1
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += changed


@njit(cache=True, nogil=True, inline="always")
def eta_log_density(v: float, n: float, N: float, rest: float, mu: float,
                    inv_var: float) -> float:
    """log p(eta_dk = v | z, eta_d,-k, mu_dk, sigma_k) up to a constant (eq. 16.2):
    n v - N log(e^v + e^rest) - (v - mu)^2 / (2 sigma^2), with ``rest`` = log sum_{j != k}
    e^eta_dj; the log-sum written as max + log(1 + e^-|v - rest|), which never overflows."""
    top = v if v > rest else rest
    gap = v - rest if v < rest else rest - v
    return n * v - N * (top + fmath.log(1.0 + fmath.exp(gap))) - 0.5 * (v - mu) * (v - mu) \
        * inv_var


@njit(cache=True, nogil=True)
def log_sum_others(row: F64, k: int) -> float:
    """log sum_{j != k} e^row_j, shifted by the maximum, in index order; -inf when K = 1."""
    K = row.shape[0]
    top = -np.inf
    for j in range(K):
        if j != k and row[j] > top:
            top = row[j]
    if top == -np.inf:
        return top
    total = 0.0
    for j in range(K):
        if j != k:
            total += fmath.exp(row[j] - top)
    return top + fmath.log(total)


@njit(cache=True, nogil=True)
def eta_update(row: F64, k: int, rest: float, n: float, N: float, mu: float, inv_var: float,
               w: float, rng: Rng) -> int:
    """One slice-sampling update of row[k] = eta_dk on eq. 16.2 (Neal 2003, fig. 3 and 5),
    ``rest`` = log sum_{j != k} e^row_j: the slice under the current density, an interval of
    width ``w`` placed at random, stepped out at most ``MAX_STEPS`` times, shrunk towards the
    current value until a point inside is drawn; a step that leaves the conditional
    invariant exactly. Returns the number of density evaluations."""
    x0 = row[k]
    level = eta_log_density(x0, n, N, rest, mu, inv_var) + fmath.log(1.0 - uniform(rng))
    left = x0 - w * uniform(rng)
    right = left + w
    j = int(MAX_STEPS * uniform(rng))
    m = MAX_STEPS - 1 - j
    evaluations = 1
    while j > 0:
        evaluations += 1
        if eta_log_density(left, n, N, rest, mu, inv_var) <= level:
            break
        left -= w
        j -= 1
    while m > 0:
        evaluations += 1
        if eta_log_density(right, n, N, rest, mu, inv_var) <= level:
            break
        right += w
        m -= 1
    while True:
        v = left + (right - left) * uniform(rng)
        evaluations += 1
        if eta_log_density(v, n, N, rest, mu, inv_var) > level:
            break
        if v < x0:
            left = v
        else:
            right = v
    row[k] = v
    return evaluations


@njit(cache=True, nogil=True)
def eta_sweep(n_dk: I32, n_d: I64, eta: F64, mean: F64, inv_var: F64, width: F64,
              d_start: int, d_end: int, rng: Rng) -> int:
    """``eta_update`` of every eta_dk of documents ``d_start .. d_end-1`` (d outer, k inner)
    given z, the means mu (D, K), the precisions 1 / sigma_k^2 (K,) and the slice widths
    (K,). Returns the number of density evaluations.

    The others' log-sum of each coordinate comes from the row's running sum S = sum_j
    e^(eta_dj - top), O(1) a coordinate rather than O(K) (which made the step O(D K^2): 84%
    of a sweep at K = 100): S minus the coordinate's own term, recomputed in full when that
    difference has lost more than six digits (the coordinate outweighs the others a
    million-fold) or S has drifted below 1e-200; ``top`` rises with a new maximum and S is
    rescaled."""
    K = eta.shape[1]
    evaluations = 0
    for d in range(d_start, d_end):
        row = eta[d]
        top, S = _row_sum(row)
        N = float(n_d[d])
        for k in range(K):
            rest, others = others_from_sum(row, k, top, S)
            evaluations += eta_update(row, k, rest, float(n_dk[d, k]), N, mean[d, k],
                                      inv_var[k], width[k], rng)
            v = row[k]
            if v > top:
                S = others * fmath.exp(top - v) + 1.0
                top = v
            else:
                S = others + fmath.exp(v - top)
            if S < 1e-200:
                top, S = _row_sum(row)
    return evaluations


@njit(cache=True, nogil=True, inline="always")
def others_from_sum(row: F64, k: int, top: float, S: float) -> tuple[float, float]:
    """(log sum_{j != k} e^row_j, sum_{j != k} e^(row_j - top)) from the row's running sum S
    = sum_j e^(row_j - top): S minus row k's term, or, when that difference has lost more
    than six digits to cancellation, ``log_sum_others`` in full."""
    others = S - fmath.exp(row[k] - top)
    if others > S * CANCELLATION:
        return top + fmath.log(others), others
    rest = log_sum_others(row, k)
    return rest, fmath.exp(rest - top)


@njit(cache=True, nogil=True, inline="always")
def _row_sum(row: F64) -> tuple[float, float]:
    """(max of the row, sum_j e^(row_j - max)) in index order."""
    top = row[0]
    for j in range(1, row.shape[0]):
        top = max(top, row[j])
    total = 0.0
    for j in range(row.shape[0]):
        total += fmath.exp(row[j] - top)
    return top, total


@njit(cache=True, nogil=True)
def gram(row_ptr: I64, row_col: I32, row_val: F64, F: int) -> F64:
    """X^T X (F, F) from the design's rows, each entry summed over the documents in order."""
    out = np.zeros((F, F))
    D = row_ptr.shape[0] - 1
    for d in range(D):
        for a in range(row_ptr[d], row_ptr[d + 1]):
            for b in range(row_ptr[d], row_ptr[d + 1]):
                out[row_col[a], row_col[b]] += row_val[a] * row_val[b]
    return out


@njit(cache=True, nogil=True)
def gamma_draw(row_ptr: I64, row_col: I32, row_val: F64, xtx: F64, eta: F64, var: F64,
               prior_mean: F64, prior_inv_var: float, gamma: F64, rng: Rng) -> None:
    """Each topic's coefficients gamma_k (F,) from their conditional given eta (eq. 16.3):
    Gaussian with precision P_k = X^T X / sigma_k^2 + I / s^2 and mean P_k^-1 (X^T eta_k /
    sigma_k^2 + m / s^2); drawn as the mean plus L^-T e, P_k = L L^T, e standard normal.
    ``xtx`` is ``gram``'s X^T X; topics in order, each a fresh Cholesky."""
    F, K = gamma.shape
    D = row_ptr.shape[0] - 1
    P = np.empty((F, F))
    b = np.empty(F)
    y = np.empty(F)
    for k in range(K):
        inv = 1.0 / var[k]
        for f in range(F):
            for g in range(F):
                P[f, g] = xtx[f, g] * inv
            P[f, f] += prior_inv_var
            b[f] = prior_mean[f, k] * prior_inv_var
        for d in range(D):
            for j in range(row_ptr[d], row_ptr[d + 1]):
                b[row_col[j]] += row_val[j] * eta[d, k] * inv
        L = cholesky(P)
        for f in range(F):          # L y = b
            s = b[f]
            for g in range(f):
                s -= L[f, g] * y[g]
            y[f] = s / L[f, f]
        for f in range(F):          # y + e, then L^T x = y + e: x = mean + L^-T e
            y[f] += normal(rng)
        for f in range(F - 1, -1, -1):
            s = y[f]
            for g in range(f + 1, F):
                s -= L[g, f] * gamma[g, k]
            gamma[f, k] = s / L[f, f]


@njit(cache=True, nogil=True)
def variance_draw(eta: F64, mean: F64, shape: float, scale: float, var: F64,
                  rng: Rng) -> None:
    """Each sigma_k^2 from its conditional given eta and the means (eq. 16.4): inverse gamma
    with shape a + D / 2 and scale b + sum_d (eta_dk - mu_dk)^2 / 2, drawn as scale / Gamma(
    shape, 1)."""
    D, K = eta.shape
    for k in range(K):
        ss = 0.0
        for d in range(D):
            r = eta[d, k] - mean[d, k]
            ss += r * r
        var[k] = (scale + 0.5 * ss) / gamma_variate(rng, shape + 0.5 * D)


@njit(cache=True, nogil=True)
def doc_log_joint(doc_ptr: I64, z: I32, eta: F64, theta: F64, mean: F64, var: F64) -> float:
    """log p(Z | eta) + log p(eta | mu, sigma^2) = sum_d [sum_i log theta_{d z_i} + sum_k log
    N(eta_dk; mu_dk, sigma_k^2)]."""
    D, K = eta.shape
    out = 0.0
    for d in range(D):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            out += fmath.log(theta[d, z[i]])
        for k in range(K):
            r = eta[d, k] - mean[d, k]
            out -= 0.5 * (r * r / var[k] + fmath.log(2.0 * math.pi * var[k]))
    return out


@njit(cache=True, nogil=True, parallel=True)
def fold_in(words: I32, doc_ptr: I64, phi_wk: F64, mean: F64, inv_var: F64, width: F64,
            n_burn: int, n_keep: int, key: Rng, doc_labels: U64, z: I32, out: F64) -> None:
    """Held-out documents with Phi, gamma and sigma fixed: exact Gibbs over (z_d, eta_d),
    p(z_i = k) ∝ theta_dk phi[w_i, k], then ``eta_update`` of each eta_dk, eta_d starting at
    its mean mu_d (D, K). ``out`` (D, K) gets the mean of theta_d over ``n_keep`` sweeps after
    ``n_burn`` (a document without tokens: its prior's, by the same draws). Document d draws
    from the stream of ``doc_labels[d]`` under ``key`` (not advanced), so its proportions
    depend neither on the other documents nor on the threads (as ``dmr.fold_in``)."""
    D = doc_ptr.shape[0] - 1
    K = phi_wk.shape[1]
    for d in prange(D):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        rng = np.empty(4, np.uint64)
        derive_into(key, doc_labels[d], rng)
        row = mean[d].copy()
        theta = np.empty((1, K))
        ndk = np.zeros(K, np.int64)
        cum = np.empty(K)
        for k in range(K):
            out[d, k] = 0.0
        for i in range(p0, p1):
            t = randint(rng, K)
            z[i] = t
            ndk[t] += 1
        N = float(p1 - p0)
        for sweep in range(n_burn + n_keep):
            refresh_theta(row.reshape((1, K)), theta)
            for i in range(p0, p1):
                phi = phi_wk[words[i]]
                ndk[z[i]] -= 1
                total = 0.0
                for k in range(K):
                    total += theta[0, k] * phi[k]
                    cum[k] = total
                new = search_cumulative(cum, K, uniform(rng) * total)
                z[i] = new
                ndk[new] += 1
            for k in range(K):
                eta_update(row, k, log_sum_others(row, k), float(ndk[k]), N, mean[d, k],
                           inv_var[k], width[k], rng)
            if sweep >= n_burn:
                refresh_theta(row.reshape((1, K)), theta)
                for k in range(K):
                    out[d, k] += theta[0, k] / n_keep
