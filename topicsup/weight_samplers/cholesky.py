"""The exact joint draw of each task's weights: O(M^3 + D M^2) per task."""

from __future__ import annotations

from dataclasses import dataclass

from ..arrays import F64, Rng
from ..kernels.weights import cholesky_weights
from . import REGISTRY, FeatureRows, WeightStep


@REGISTRY.register
@dataclass(frozen=True)
class Cholesky(WeightStep):
    """eta_t | Z, (b, w) ~ N(P^-1 X^T b_t, P^-1), P = X^T diag(w_t) X + prior precision, drawn
    through the Cholesky factor of P (Zhu et al. 2014; Zheng et al. 2015 eq. 22)."""

    name = "cholesky"

    def draw(self, rows: FeatureRows, b: F64, w: F64, prior_precision: F64, eta: F64,
             scores: F64, rng: Rng, n_topics: int, scores_current: bool) -> None:
        cholesky_weights(*rows, b, w, prior_precision, eta, scores, rng)

    def state_bytes(self, M: int) -> float:
        return 16.0 * M * M   # the precision matrix and its Cholesky factor
