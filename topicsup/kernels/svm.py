"""The Crammer-Singer multi-class SVM in its dual, by sequential dual coordinate ascent over
documents (Keerthi, Sundararajan, Chang, Hsieh, Lin 2008, "A sequential dual method for large
scale multi-class linear SVMs"; the algorithm of LIBLINEAR's ``Solver_MCSVM_CS``), for Monte
Carlo MedLDA's weight step (Jiang, Zhu, Sun, Xing 2012 eq. 10-12; docs/math.md sec. 6).

The primal, with features x_d (K,), classes y_d in 0..M-1 and a margin ``cost`` (Jiang's
ell = 16) on every wrong class:

    min_W  1/2 sum_m |W_m|^2 + C sum_d xi_d
    s.t.   W_{y_d} . x_d - W_m . x_d >= cost - xi_d   for every m != y_d.

Its dual in LIBLINEAR's variables a_d^m (D, M): maximise
-1/2 sum_m |W_m|^2 - sum_d sum_{m != y_d} cost a_d^m... written with W_m = sum_d a_d^m x_d,
a_d^m <= C [m = y_d], sum_m a_d^m = 0. Jiang's multipliers are lambda_d^y = -a_d^y >= 0 for
y != y_d (so sum_y lambda_d^y = a_d^{y_d} <= C, his C / D), and his kappa is W: kappa =
sum_d sum_y lambda_d^y (f(y_d, x_d) - f(y, x_d)).

Each step takes one document and solves its M-variable sub-problem exactly (the sort-based
solution of Crammer and Singer), then moves W by (a_new - a_old) x_d: the dual objective never
decreases. Documents are visited in a random order each epoch, from the caller's stream, until
the largest violation of the optimality conditions over an epoch is below ``tol``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import F64, I64, Rng
from .rng import randint


@njit(cache=True, nogil=True)
def _sub_problem(A: float, B: F64, y: int, C: float, a_new: F64, work: F64) -> None:
    """Minimise 1/2 A sum_m a_m^2 + sum_m B_m a_m subject to a_m <= C [m = y] and
    sum_m a_m = 0, into ``a_new`` (M,); ``work`` (M,) scratch. (LIBLINEAR's
    solve_sub_problem.)"""
    M = B.shape[0]
    for m in range(M):
        work[m] = B[m]
    work[y] += A * C
    work[:] = np.sort(work)[::-1]
    beta = work[0] - A * C
    r = 1
    while r < M and beta < r * work[r]:
        beta += work[r]
        r += 1
    beta /= r
    for m in range(M):
        bound = C if m == y else 0.0
        v = (beta - B[m]) / A
        a_new[m] = v if v < bound else bound


@njit(cache=True, nogil=True)
def crammer_singer(X: F64, y: I64, C: float, cost: float, a: F64, W: F64, rng: Rng, tol: float,
                   max_epochs: int) -> tuple[int, float]:
    """Solve the dual (module docstring) by coordinate ascent, warm-started from ``a``
    (D, M) and ``W`` (M, K) = a^T X (both updated in place). Returns (epochs run, the last
    epoch's largest violation). Documents with x_d = 0 keep a_d = 0 (they cannot move W)."""
    D, K = X.shape
    M = W.shape[0]
    order = np.arange(D)
    G = np.empty(M)
    B = np.empty(M)
    a_new = np.empty(M)
    work = np.empty(M)
    sq = np.empty(D)
    for d in range(D):
        s = 0.0
        for k in range(K):
            s += X[d, k] * X[d, k]
        sq[d] = s
    violation = np.inf
    epoch = 0
    while epoch < max_epochs:
        epoch += 1
        for i in range(D - 1, 0, -1):    # a fresh random order each epoch
            j = randint(rng, i + 1)
            order[i], order[j] = order[j], order[i]
        violation = 0.0
        for t in range(D):
            d = order[t]
            A = sq[d]
            if A <= 0.0:
                continue
            yd = y[d]
            x = X[d]
            # gradient of the dual (minimisation form) in a_d: W_m . x_d + cost [m != y_d]
            for m in range(M):
                s = 0.0
                Wm = W[m]
                for k in range(K):
                    s += Wm[k] * x[k]
                G[m] = s + (cost if m != yd else 0.0)
            # optimality: the largest gradient against the smallest among the free ones
            lo, hi = np.inf, -np.inf
            for m in range(M):
                bound = C if m == yd else 0.0
                if a[d, m] < bound and G[m] < lo:
                    lo = G[m]
                if G[m] > hi:
                    hi = G[m]
            if hi - lo > violation:
                violation = hi - lo
            if hi - lo <= 1e-12:
                continue
            for m in range(M):
                B[m] = G[m] - A * a[d, m]
            _sub_problem(A, B, yd, C, a_new, work)
            for m in range(M):
                delta = a_new[m] - a[d, m]
                if delta != 0.0:
                    a[d, m] = a_new[m]
                    Wm = W[m]
                    for k in range(K):
                        Wm[k] += delta * x[k]
        if violation < tol:
            break
    return epoch, violation


@njit(cache=True, nogil=True)
def dual_objective(a: F64, W: F64, y: I64, cost: float) -> float:
    """The dual objective -1/2 sum_m |W_m|^2 + cost sum_d sum_{m != y_d} (-a_d^m), which in
    Jiang's variables is -1/2 |kappa|^2 + sum_d sum_y lambda_d^y ell_d(y) (eq. 12)."""
    D, M = a.shape
    out = 0.0
    for m in range(M):
        for k in range(W.shape[1]):
            out -= 0.5 * W[m, k] * W[m, k]
    for d in range(D):
        for m in range(M):
            if m != y[d]:
                out -= cost * a[d, m]
    return out
