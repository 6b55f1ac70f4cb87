"""The epsilon-insensitive loss of max-margin regression (Zheng et al. 2015 sec. 4.2) and its
augmentation by two inverse-Gaussian variables, one per side of the tube.

psi(y | s) = exp(-2 lam max(0, |y - s| - eps)) = exp(-2 lam max(0, u1)) exp(-2 lam max(0, u2))
with u1 = (y - eps) - s and u2 = s - (y + eps) (eps >= 0: at most one is positive). Each
factor is a hinge, augmented as the hinge is (``losses.hinge``): xi_j ~ IG(mean 1/(lam |u_j|),
shape 1). The linear terms -lam (u1 + u2) = 2 lam eps do not depend on s, and the quadratic
ones give

    b = lam^2 ((y - eps) xi1 + (y + eps) xi2),   w = lam^2 (xi1 + xi2)      (docs/math.md sec. 1)

A residual exactly on the tube's edge (u_j = 0) has an infinite IG mean; the draw is then the
limit, a 1/2-stable law shape / chi^2_1 (``kernels.draws.inverse_gaussian``), never a division
by zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..arrays import F64, Rng
from ..kernels.draws import inverse_gaussian
from . import REGISTRY, Augmentation, Loss


@njit(cache=True, nogil=True)
def epsilon_augment(y: F64, scores: F64, lam: float, eps: float, rng: Rng, b: F64,
                    w: F64) -> None:
    """xi1, xi2 ~ IG(1/(lam |u|), 1) per (task, document); then (b, w) as in the module
    docstring. All (T, D)."""
    T, D = scores.shape
    for t in range(T):
        for d in range(D):
            u1 = (y[t, d] - eps) - scores[t, d]
            u2 = scores[t, d] - (y[t, d] + eps)
            m1 = 1.0 / (lam * abs(u1)) if u1 != 0.0 else np.inf
            m2 = 1.0 / (lam * abs(u2)) if u2 != 0.0 else np.inf
            xi1 = inverse_gaussian(rng, m1, 1.0)
            xi2 = inverse_gaussian(rng, m2, 1.0)
            b[t, d] = lam * lam * ((y[t, d] - eps) * xi1 + (y[t, d] + eps) * xi2)
            w[t, d] = lam * lam * (xi1 + xi2)


@REGISTRY.register
@dataclass(frozen=True)
class EpsilonInsensitive(Loss):
    """2 ``lam`` max(0, |y - s| - ``eps``): regression that ignores residuals inside a tube of
    half-width eps (support vector regression's loss)."""

    name = "epsilon_insensitive"
    targets = "values"

    lam: float = 1.0
    eps: float = 0.1

    LAM_RANGE = (1e-6, 1e6)
    EPS_RANGE = (0.0, 1e6)
    MAX_W = 1e100

    def __post_init__(self) -> None:
        self._bounded("lam", self.LAM_RANGE, "outside it the augmentation under- or overflows")
        self._bounded("eps", self.EPS_RANGE)

    def augment(self, y: F64, scores: F64, rng: Rng, own: Augmentation) -> None:
        epsilon_augment(y, scores, self.lam, self.eps, rng, own.b, own.w)

    def check_augmentation(self, y: F64, own: Augmentation) -> None:
        """w = lam^2 (xi1 + xi2) >= 0 finite and b within the range its draws allow."""
        b, w = own.b, own.w
        if not (np.isfinite(w).all() and (w >= 0).all() and (w <= self.MAX_W).all()):
            raise ValueError(f"w must hold lam^2 (xi1 + xi2), finite, in [0, {self.MAX_W:g}]")
        lo, hi = w * (y - self.eps), w * (y + self.eps)   # b is w times a point of the tube
        tol = 1e-9 * (np.abs(lo) + np.abs(hi)) + 1e-300
        if not (np.isfinite(b).all() and (b >= np.minimum(lo, hi) - tol).all()
                and (b <= np.maximum(lo, hi) + tol).all()):
            raise ValueError("b is not lam^2 ((y - eps) xi1 + (y + eps) xi2) for these w")

    def log_psi(self, y: F64, scores: F64) -> F64:
        """log psi(y | s) = -2 lam max(0, |y - s| - eps), elementwise."""
        return -2.0 * self.lam * np.maximum(0.0, np.abs(y - scores) - self.eps)

    def mean_loss(self, y: F64, scores: F64) -> float:
        """Mean max(0, |y - s| - eps)."""
        return float(np.maximum(0.0, np.abs(y - scores) - self.eps).mean()) if y.size \
            else float("nan")
