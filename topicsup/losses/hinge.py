"""The hinge loss of (Light)MedLDA, its augmentation and its marginal factor (whose code in
the topic kernels is ``kernels.hinge``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..arrays import F64, Rng
from ..kernels.draws import inverse_gaussian
from ..kernels.hinge import MARGINAL
from ..parts import Parameters
from . import REGISTRY, Augmentation, Loss


@njit(cache=True, nogil=True)
def hinge_augment(y: F64, scores: F64, lam: float, rng: Rng, b: F64, w: F64) -> None:
    """Hinge loss 2 lam max(0, 1 - y s) (Zheng et al. 2015 eq. 8-16), elementwise over the
    (T, D) arrays (tasks by documents, ``Loss``), task by task.

    xi ~ IG(mean 1/(lam |zeta|), shape 1), zeta = 1 - y s, is the inverse of Gibbs MedLDA's
    gamma (eq. 14); then b = lam y (1 + lam xi), w = lam^2 xi.
    """
    T, D = scores.shape
    for t in range(T):
        for d in range(D):
            zeta = 1.0 - y[t, d] * scores[t, d]
            mean = 1.0 / (lam * abs(zeta)) if zeta != 0.0 else np.inf
            xi = inverse_gaussian(rng, mean, 1.0)
            b[t, d] = lam * y[t, d] * (1.0 + lam * xi)
            w[t, d] = lam * lam * xi


@REGISTRY.register
@dataclass(frozen=True)
class Hinge(Loss):
    """The max-margin hinge loss 2 lam max(0, 1 - y s) of (Light)MedLDA with regularisation
    ``lam`` (lambda, the papers' c); labels are +-1 per task."""

    name = "hinge"
    marginal_factor = MARGINAL

    lam: float = 1.0

    # outside it the augmentation's b = lam y (1 + lam xi), w = lam^2 xi under- or overflow
    LAM_RANGE = (1e-6, 1e6)

    def __post_init__(self) -> None:
        self._bounded("lam", self.LAM_RANGE,
                      "outside it the hinge's augmentation under- or overflows")

    def augment(self, y: F64, scores: F64, rng: Rng, own: Augmentation) -> None:
        """Draw xi given the scores and write (b, w), all (T, D)."""
        hinge_augment(y, scores, self.lam, rng, own.b, own.w)

    # far beyond any draw: xi > 1e88 / lam^2 needs a zero margin and a chi-square draw
    # below 1e-88; within it the kernels' products of w, b and the weights stay finite
    MAX_W = 1e100

    def check_augmentation(self, y: F64, own: Augmentation) -> None:
        """w = lam^2 xi >= 0 and b = y (lam + w)."""
        b, w = own.b, own.w
        if not (np.isfinite(w).all() and (w >= 0).all() and (w <= self.MAX_W).all()):
            raise ValueError(f"w must hold the augmentation's precisions lam^2 xi, finite, in "
                             f"[0, {self.MAX_W:g}]")
        expect = y * (self.lam + w)
        if not np.allclose(b, expect, rtol=1e-9, atol=1e-12 * self.lam):
            raise ValueError("b is not y (lam + w), the hinge augmentation's b for these w")

    def marginal_params(self) -> F64:
        """Parameters of the marginal factor in the kernels: [2 lam]."""
        return np.array([2.0 * self.lam])

    def slope_at_zero(self, y: F64) -> F64:
        """d log psi(y | s) / ds at s = 0: 2 lam y (the kernels' exp proposal, marginal)."""
        return 2.0 * self.lam * np.asarray(y, dtype=np.float64)

    def log_psi(self, y: F64, scores: F64) -> F64:
        """log psi(y | s) = -2 lam max(0, 1 - y s), elementwise."""
        return -2.0 * self.lam * np.maximum(0.0, 1.0 - y * scores)

    def mean_loss(self, y: F64, scores: F64) -> float:
        """Mean hinge max(0, 1 - y s) over documents and tasks."""
        return float(np.maximum(0.0, 1.0 - y * scores).mean()) if y.size else float("nan")

    def marginal_label(self, model: Parameters) -> str:
        return "the hinge itself"

