"""Priors on the weights eta: each supplies the diagonal prior precision (MATH.md sec. 1).

The weight samplers (``kernels.weights``) only see a (T, M) array of prior precisions, so a
prior is a rule for that array (and, for hierarchical priors such as DOLDA's horseshoe, a draw
of its scales between weight draws). Adding a prior never touches a sampler.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as check


@dataclass(frozen=True)
class Normal:
    """eta_tm ~ N(0, 1/nu) independently (every paper's default prior)."""

    nu: float = 1.0

    # below it the weights' precision loses positive definiteness in floating point against
    # a large lam (collinear covariates); above it the prior pins every weight to zero
    NU_RANGE = (1e-6, 1e12)

    def __post_init__(self) -> None:
        lo, hi = self.NU_RANGE
        object.__setattr__(self, "nu", check.number(
            "nu", self.nu, low=lo, high=hi,
            why="outside it the weight draws under- or overflow"))

    def precision(self, T: int, M: int) -> np.ndarray:
        """The (T, M) prior precisions."""
        return np.full((T, M), self.nu)

    def log_density(self, eta: np.ndarray) -> float:
        """log N(eta | 0, I / nu), summed."""
        return float(0.5 * eta.size * np.log(self.nu / (2 * np.pi))
                     - 0.5 * self.nu * np.square(eta).sum())
