"""Losses: each supplies an augmentation draw and the per-(document, task) pair (b, w).

Given its augmentation u, every loss here contributes exp(b s - w s^2 / 2) in the score
s = eta . xt_d (MATH.md sec. 1), so the weight sampler never sees the loss itself. Adding a loss
means adding a class with ``augment(y, scores, rng, b, w)`` and ``log_psi``; for topic samplers
that integrate the augmentation out (``supervised_factor="marginal"``) it also names its
pseudo-likelihood's code in ``kernels.supervised``. No topic kernel changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from . import validation as check
from .kernels import supervised
from .kernels.draws import inverse_gaussian


@njit(cache=True, nogil=True)
def hinge_augment(y, scores, lam, rng, b, w):
    """Hinge loss 2 lam max(0, 1 - y s) (Zheng et al. 2015 eq. 8-16), elementwise over 2-d
    arrays of one shape (the models use (T, D): tasks by documents).

    xi ~ IG(mean 1/(lam |zeta|), shape 1), zeta = 1 - y s, is the inverse of Gibbs MedLDA's
    gamma (eq. 14); then b = lam y (1 + lam xi), w = lam^2 xi.
    """
    D, T = scores.shape
    for d in range(D):
        for t in range(T):
            zeta = 1.0 - y[d, t] * scores[d, t]
            mean = 1.0 / (lam * abs(zeta)) if zeta != 0.0 else np.inf
            xi = inverse_gaussian(rng, mean, 1.0)
            b[d, t] = lam * y[d, t] * (1.0 + lam * xi)
            w[d, t] = lam * lam * xi


@dataclass(frozen=True)
class Hinge:
    """The max-margin hinge loss of (Light)MedLDA with regularisation ``lam`` (lambda, the
    papers' c); labels are +-1 per task."""

    lam: float = 1.0

    # outside it the augmentation's b = lam y (1 + lam xi), w = lam^2 xi under- or overflow
    LAM_RANGE = (1e-6, 1e6)

    def __post_init__(self) -> None:
        lo, hi = self.LAM_RANGE
        object.__setattr__(self, "lam", check.number(
            "lam", self.lam, low=lo, high=hi,
            why="outside it the hinge's augmentation under- or overflows"))

    def augment(self, y: np.ndarray, scores: np.ndarray, rng: np.ndarray, b: np.ndarray,
                w: np.ndarray) -> None:
        """Draw the augmentation given the scores and write (b, w), all (T, D)."""
        hinge_augment(y, scores, self.lam, rng, b, w)

    # far beyond any draw: xi > 1e88 / lam^2 needs a zero margin and a chi-square draw
    # below 1e-88; within it the kernels' products of w, b and the weights stay finite
    MAX_W = 1e100

    def check_augmentation(self, y: np.ndarray, b: np.ndarray, w: np.ndarray) -> None:
        """Raise ``ValueError`` unless (b, w) is a pair this loss's augmentation draws for
        labels ``y`` (all (T, D)): w = lam^2 xi >= 0 and b = y (lam + w) (a saved state is
        untrusted; ``Session.load``)."""
        if not (np.isfinite(w).all() and (w >= 0).all() and (w <= self.MAX_W).all()):
            raise ValueError(f"w must hold the augmentation's precisions lam^2 xi, finite, in "
                             f"[0, {self.MAX_W:g}]")
        expect = y * (self.lam + w)
        if not np.allclose(b, expect, rtol=1e-9, atol=1e-12 * self.lam):
            raise ValueError("b is not y (lam + w), the hinge augmentation's b for these w")

    # the topic kernels' code for psi(y | s) itself (kernels.supervised), its parameters
    marginal_factor = supervised.HINGE

    def marginal_params(self) -> np.ndarray:
        """Parameters of the marginal factor in the kernels: [2 lam]."""
        return np.array([2.0 * self.lam])

    def slope_at_zero(self, y: np.ndarray) -> np.ndarray:
        """d log psi(y | s) / ds at s = 0: 2 lam y (the kernels' exp proposal, marginal)."""
        return 2.0 * self.lam * np.asarray(y, dtype=np.float64)

    def log_psi(self, y: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """log psi(y | s) = -2 lam max(0, 1 - y s), elementwise."""
        return -2.0 * self.lam * np.maximum(0.0, 1.0 - y * scores)

    def log_pseudo_likelihood(self, y: np.ndarray, scores: np.ndarray) -> float:
        """sum log psi(y | s) = -2 lam sum max(0, 1 - y s), the loss's part of the log joint."""
        return float(self.log_psi(y, scores).sum())

    def mean_loss(self, y: np.ndarray, scores: np.ndarray) -> float:
        """Mean hinge max(0, 1 - y s) over documents and tasks."""
        return float(np.maximum(0.0, 1.0 - y * scores).mean()) if y.size else float("nan")
