"""Weight samplers: draws of eta_t | Z, augmentation ~ N(mu_t, P_t^-1) (MATH.md sec. 1) with

    P_t = diag(prior precision_t) + sum_d w_dt xt_d xt_d^T,   P_t mu_t = sum_d b_dt xt_d.

Every loss reaches the weights only through (b, w), and every prior through its diagonal
precision, so these two samplers serve all models. Prior means are zero (all priors here).

* ``gaussian_weights``: the exact joint draw by Cholesky, O(M^3 + D M^2) for M = K + P.
* ``coordinate_weights``: Gibbs over coordinates (Zheng et al. 2015 eq. 23-24), O(D M) per
  pass, keeping the scores s_d = eta . xt_d up to date; each coordinate draw is exact given the
  others, so the pass leaves N(mu, P^-1) invariant.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .draws import normal


@njit(cache=True, nogil=True)
def precision_and_shift(X, b, w, prior_precision):
    """P = diag(prior_precision) + X^T diag(w) X and r = X^T b for one task."""
    D, M = X.shape
    P = np.zeros((M, M))
    r = np.zeros(M)
    for d in range(D):
        xd = X[d]
        wd = w[d]
        for i in range(M):
            if xd[i] == 0.0:
                continue  # topic proportions are sparse: skip their zero rows
            r[i] += b[d] * xd[i]
            wx = wd * xd[i]
            for j in range(i + 1):
                P[i, j] += wx * xd[j]
    for i in range(M):
        P[i, i] += prior_precision[i]
        for j in range(i):
            P[j, i] = P[i, j]
    return P, r


@njit(cache=True, nogil=True)
def gaussian_weights(P, r, rng, out):
    """Draw out ~ N(P^-1 r, P^-1): with P = L L^T, out = L^-T (L^-1 r + eps)."""
    L = np.linalg.cholesky(P)
    M = r.shape[0]
    v = np.empty(M)
    for i in range(M):  # forward: L v = r
        acc = r[i]
        for j in range(i):
            acc -= L[i, j] * v[j]
        v[i] = acc / L[i, i]
    for i in range(M):
        v[i] += normal(rng)
    for i in range(M - 1, -1, -1):  # backward: L^T out = v
        acc = v[i]
        for j in range(i + 1, M):
            acc -= L[j, i] * out[j]
        out[i] = acc / L[i, i]


@njit(cache=True, nogil=True)
def coordinate_weights(XT, b, w, prior_precision, eta, score, n_passes, rng):
    """``n_passes`` Gibbs passes over the coordinates of ``eta`` (in place). ``XT`` is the
    (M, D) transposed feature matrix, so a coordinate's column is contiguous; ``score`` must
    hold X @ eta on entry and holds it on return."""
    M, D = XT.shape
    for _ in range(n_passes):
        for k in range(M):
            x_k = XT[k]
            e_k = eta[k]
            num = 0.0
            prec = prior_precision[k]
            for d in range(D):
                x = x_k[d]
                # Zheng 2015 eq. 23-24: the score without coordinate k, s_d - x_dk eta_k
                num += x * (b[d] - w[d] * (score[d] - x * e_k))
                prec += w[d] * x * x
            new = num / prec + normal(rng) / math.sqrt(prec)
            delta = new - e_k
            for d in range(D):
                score[d] += x_k[d] * delta
            eta[k] = new


@njit(cache=True, nogil=True)
def compute_scores(X, eta, out):
    """out[t, d] = eta_t . X_d for (D, M) features and (T, M) weights."""
    D, M = X.shape
    for t in range(eta.shape[0]):
        e = eta[t]
        for d in range(D):
            xd = X[d]
            acc = 0.0
            for k in range(M):
                acc += xd[k] * e[k]
            out[t, d] = acc


@njit(cache=True, nogil=True)
def sample_weights(X, b, w, prior_precision, eta, scores, cholesky, n_passes, rng):
    """Draw every task's weights given (b, w) (T, D) and the features X: the exact Cholesky
    draw, or ``n_passes`` coordinate passes; ``scores`` (T, D) = X eta_t^T on return."""
    if cholesky:
        XT = np.empty((0, 0))
    else:  # the coordinate passes need the current scores, and contiguous columns
        compute_scores(X, eta, scores)
        XT = np.ascontiguousarray(X.T)
    for t in range(eta.shape[0]):
        if cholesky:
            P, r = precision_and_shift(X, b[t], w[t], prior_precision[t])
            gaussian_weights(P, r, rng, eta[t])
        else:
            coordinate_weights(XT, b[t], w[t], prior_precision[t], eta[t], scores[t], n_passes,
                               rng)
    if cholesky:
        compute_scores(X, eta, scores)
