"""Monte Carlo MedLDA's weight step: the Crammer-Singer multi-class SVM solved in its dual
(Jiang, Zhu, Sun, Xing 2012 eq. 10-12; the solver is ``kernels.svm``).

Jiang's problem, given the documents' expected topic proportions x_d = E[zbar_d] (D, K) and
classes y_d:

    max_lambda  -1/2 |kappa|^2 + sum_d sum_y lambda_d^y ell_d(y)
    s.t.        lambda_d^y >= 0,  sum_y lambda_d^y <= C / D,
    kappa = sum_d sum_y lambda_d^y (f(y_d, x_d) - f(y, x_d)),

with ell_d(y) = ``cost`` (16 in the paper) for y != y_d and 0 for y = y_d. kappa (M, K) is the
posterior mean of the classifier weights (p(eta) = N(kappa, I)), and the multipliers lambda
(D, M) build the topic step's tilt exp((1/N_d) sum_y lambda_d^y (kappa_{y_d k} - kappa_{y k})).

scikit-learn's ``LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C_sk)``
solves the same problem with margin 1: its ``coef_`` times ``cost`` is kappa when
C_sk = C / (D cost) (substitute kappa = cost w and xi = cost xi'; the objective is cost^2
times scikit-learn's). ``tests/test_svm.py`` checks the agreement.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import validation as check
from .arrays import Array, F64
from .kernels import svm as kernel
from .kernels.linalg import matmul
from .kernels.rng import seed_state

COST = 16.0   # Jiang 2012 sec. 5: better than the 0/1 cost


class DualSolution(NamedTuple):
    """The dual's solution: ``multipliers`` lambda (D, M), >= 0, zero at each document's own
    class; ``kappa`` (M, K); the dual ``objective``; the ``epochs`` of coordinate ascent run
    and the last epoch's largest ``violation`` of the optimality conditions; ``support``,
    the share of documents with a non-zero multiplier (the paper: about 1%)."""

    multipliers: F64
    kappa: F64
    objective: float
    epochs: int
    violation: float
    support: float


def crammer_singer_dual(X: Array, y: Array, C: float, cost: float = COST, *,
                        n_classes: int | None = None, tol: float = 1e-6,
                        max_epochs: int = 1000, seed: int = 0,
                        start: DualSolution | None = None) -> DualSolution:
    """Solve Jiang's dual (module docstring) by sequential dual coordinate ascent.

    Parameters
    ----------
    X : array (D, K)
        Features, E[zbar_d] for Monte Carlo MedLDA.
    y : array (D,) of int
        Classes in 0 .. n_classes-1.
    C : float
        Jiang's regularisation constant: each document's multipliers sum to at most C / D.
    cost : float
        The margin ell demanded against every wrong class.
    n_classes : int, optional
        M (default: the largest class + 1).
    tol : float
        Stop when an epoch's largest violation of the optimality conditions is below it.
    max_epochs : int
        At most this many passes over the documents.
    seed : int
        Seed of the random order of the documents in each epoch.
    start : DualSolution, optional
        A previous solution to start from (Monte Carlo MedLDA's outer loop warm-starts).

    Returns
    -------
    DualSolution
    """
    X = np.ascontiguousarray(check_features(X), dtype=np.float64)
    D, K = X.shape
    if D == 0:
        raise ValueError("X has no rows: the SVM needs at least one document")
    y = np.asarray(y)
    if y.shape != (D,) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"y must hold one integer class per row of X ({D}), got shape "
                         f"{y.shape} and dtype {y.dtype}")
    M = int(y.max()) + 1 if n_classes is None else check.integer("n_classes", n_classes,
                                                                 low=2, high=100_000)
    if D and (y.min() < 0 or y.max() >= M):
        raise ValueError(f"y must hold classes in 0..{M - 1}")
    C = check.number("C", C, low=0.0, high=1e300, low_open=True)
    cost = check.number("cost", cost, low=0.0, high=1e300, low_open=True)
    tol = check.number("tol", tol, low=0.0, high=1e300, low_open=True)
    max_epochs = check.integer("max_epochs", max_epochs, low=1, high=10**9)
    bound = C / max(D, 1)
    a = np.zeros((D, M))
    W = np.zeros((M, K))
    if start is not None:
        if start.multipliers.shape != (D, M) or start.kappa.shape != (M, K):
            raise ValueError(f"start has multipliers {start.multipliers.shape} and kappa "
                             f"{start.kappa.shape}; expected {(D, M)} and {(M, K)}")
        if not np.isfinite(start.multipliers).all():
            raise ValueError("start.multipliers must hold finite numbers")
        lam = np.maximum(np.asarray(start.multipliers, dtype=np.float64), 0.0)
        lam[np.arange(D), y] = 0.0
        total = lam.sum(axis=1)
        over = total > bound   # a start from another C: scaled back into the feasible set
        lam[over] *= (bound / total[over])[:, None]
        a = -lam
        a[np.arange(D), y] = lam.sum(axis=1)
        W = matmul(np.ascontiguousarray(a.T), np.ascontiguousarray(X, dtype=np.float64))
    rng = seed_state(seed)
    epochs, violation = kernel.crammer_singer(X, y.astype(np.int64), bound, cost, a, W, rng,
                                              tol, max_epochs)
    lam = np.maximum(-a, 0.0)
    lam[np.arange(D), y] = 0.0
    objective = kernel.dual_objective(a, W, y.astype(np.int64), cost)
    support = float((lam > 0).any(axis=1).mean()) if D else 0.0
    return DualSolution(lam, W, float(objective), int(epochs), float(violation), support)


def tilt_term(multipliers: F64, y: Array) -> tuple[F64, F64]:
    """Jiang's topic-step tilt as the frame's augmented factor: with the tasks' weights
    eta = kappa (M tasks of K topics), the factor exp(sum_t b_td s_td - w_td s_td^2 / 2),
    s_td = kappa_t . zbar_d, is exp((1/N_d) sum_y lambda_d^y (kappa_{y_d} - kappa_y) . n_d)
    when

        b_td = (sum_y lambda_d^y) [t = y_d] - lambda_d^t,   w_td = 0

    (a pure b-term: docs/math.md sec. 1 and 6). Returns (b, w), each (M, D), for the topic
    kernels (``kernels.supervised``), which then need nothing new."""
    lam = np.asarray(multipliers, dtype=np.float64)
    D, M = lam.shape
    b = -lam.T.copy()
    b[np.asarray(y), np.arange(D)] += lam.sum(axis=1)
    return b, np.zeros((M, D))


def check_features(X: Array) -> Array:
    X = np.asarray(X)
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
        raise ValueError(f"X must be a 2-d numeric array (documents x features), got shape "
                         f"{X.shape} and dtype {X.dtype}")
    if not np.isfinite(X).all():
        raise ValueError("X must hold finite numbers")
    return X


def primal_objective(kappa: F64, X: Array, y: Array, C: float,
                     cost: float = COST) -> float:
    """1/2 |kappa|^2 + (C / D) sum_d max(0, max_{y != y_d} cost - (kappa_{y_d} - kappa_y) . x_d):
    at the optimum it equals the dual objective (strong duality)."""
    scores = np.asarray(X) @ np.asarray(kappa).T
    D = scores.shape[0]
    own = scores[np.arange(D), y]
    margin = cost - (own[:, None] - scores)
    margin[np.arange(D), y] = 0.0
    return float(0.5 * np.sum(kappa * kappa) + C / max(D, 1) * np.maximum(margin.max(axis=1),
                                                                           0.0).sum())


__all__ = ["COST", "DualSolution", "crammer_singer_dual", "primal_objective", "tilt_term"]
