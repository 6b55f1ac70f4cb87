"""DOLDA's horseshoe prior, one global scale per task (Magnusson, Jonsson, Villani 2020
sec. 4.1; docs/math.md sec. 4): eta_tp ~ N(0, tau_t^2 lambda_tp^2) with half-Cauchy tau_t and
lambda_tp. A class's few signal topics keep their weights (lambda large), the rest shrink to
zero together (tau small), where the normal prior shrinks every weight alike. The draws are
``kernels.horseshoe``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from ..arrays import F64, Rng
from ..kernels.horseshoe import VARIANCE_RANGE, horseshoe_update
from . import REGISTRY, Prior


class HorseshoeState(NamedTuple):
    """Squared local scales ``lam2`` (T, P) and their auxiliaries ``nu`` (T, P), squared global
    scales ``tau2`` (T,) and their auxiliaries ``xi`` (T,) (Makalic and Schmidt 2016)."""

    lam2: F64
    nu: F64
    tau2: F64
    xi: F64


def _log_inverse_gamma(x: F64, shape: float, scale: F64 | float) -> F64:
    return shape * np.log(scale) - gammaln(shape) - (shape + 1.0) * np.log(x) - scale / x


@REGISTRY.register
@dataclass(frozen=True)
class Horseshoe(Prior):
    """The horseshoe: eta_tp ~ N(0, tau_t^2 lambda_tp^2), tau_t, lambda_tp ~ C+(0, 1), one
    global scale tau_t per task (class). No parameters: the half-Cauchy's scale 1 is DOLDA's.
    Starts at tau = lambda = 1 (the normal prior with nu = 1) and draws its scales after
    every weight draw."""

    name = "horseshoe"

    SAVED = {"hs_lam2": "lam2", "hs_nu": "nu", "hs_tau2": "tau2", "hs_xi": "xi"}

    def allocate(self, T: int, M: int) -> HorseshoeState:
        return HorseshoeState(np.ones((T, M)), np.ones((T, M)), np.ones(T), np.ones(T))

    def precision(self, own: HorseshoeState, T: int, M: int) -> F64:
        lo, hi = VARIANCE_RANGE
        return 1.0 / np.clip(own.tau2[:, None] * own.lam2, lo, hi)

    def update(self, own: HorseshoeState, eta: F64, rng: Rng, precision: F64) -> None:
        """One Gibbs pass over the scales given ``eta`` (the shrunk weights, (T, P))."""
        horseshoe_update(np.ascontiguousarray(eta), own.lam2, own.nu, own.tau2, own.xi, rng,
                         precision)

    def log_density(self, eta: F64, own: HorseshoeState) -> float:
        """log p(eta, lambda^2, nu, tau^2, xi): the normals given the scales and the scales'
        inverse-gamma hierarchy (the joint the chain samples; integrating nu and xi out gives
        the half-Cauchy)."""
        var = own.tau2[:, None] * own.lam2
        normal = -0.5 * (np.log(2 * math.pi * var) + np.square(eta) / var)
        scales = (_log_inverse_gamma(own.lam2, 0.5, 1.0 / own.nu)
                  + _log_inverse_gamma(own.nu, 0.5, 1.0)).sum()
        scales += (_log_inverse_gamma(own.tau2, 0.5, 1.0 / own.xi)
                   + _log_inverse_gamma(own.xi, 0.5, 1.0)).sum()
        return float(normal.sum() + scales)

    # a saved scale outside it makes 1 / scale or its logarithm's sums overflow (a forged file)
    SCALE_RANGE = (1e-300, 1e300)

    def validate(self, own: HorseshoeState) -> None:
        lo, hi = self.SCALE_RANGE
        for name, field in self.SAVED.items():
            a = getattr(own, field)
            if not (np.isfinite(a).all() and (a >= lo).all() and (a <= hi).all()):
                raise ValueError(f"state/{name} must hold finite positive scales (the "
                                 f"horseshoe's {field}) in [{lo:g}, {hi:g}]")
