"""The normal prior of every paper: eta_tm ~ N(0, 1/nu) independently."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import F64
from . import REGISTRY, NoState, Prior


@REGISTRY.register
@dataclass(frozen=True)
class Normal(Prior):
    """eta_tm ~ N(0, 1/nu) independently, precision ``nu``."""

    name = "normal"

    nu: float = 1.0

    # below it the weights' precision loses positive definiteness in floating point against
    # a large lam (collinear covariates); above it the prior pins every weight to zero
    NU_RANGE = (1e-6, 1e12)

    def __post_init__(self) -> None:
        self._bounded("nu", self.NU_RANGE, "outside it the weight draws under- or overflow")

    def precision(self, own: NoState, T: int, M: int) -> F64:
        return np.full((T, M), self.nu)

    def log_density(self, eta: F64, own: tuple[()] = ()) -> float:
        """log N(eta | 0, I / nu), summed."""
        return float(0.5 * eta.size * np.log(self.nu / (2 * np.pi))
                     - 0.5 * self.nu * np.square(eta).sum())
