"""Coordinate-wise Gibbs passes over the weights, O(non-zeros of the features) each."""

from __future__ import annotations

from dataclasses import dataclass

from .. import validation as check
from ..arrays import F64, Rng
from ..kernels.weights import coordinate_passes
from ..parts import LiveSetting, Parameters
from . import MAX_PASSES, REGISTRY, FeatureRows, WeightStep


@REGISTRY.register
@dataclass(frozen=True)
class Coordinate(WeightStep):
    """``S_gibbs`` passes of coordinate-wise Gibbs (Zheng et al. 2015 eq. 23-24), each ending,
    with ``weight_shift``, in an exact joint draw of a common shift of all topic weights (a
    per-task bias the coordinates move slowly; ``kernels.weights``; off in the paper)."""

    name = "coordinate"

    S_gibbs: int = 2
    weight_shift: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "weight_shift", check.flag("weight_shift", self.weight_shift))
        set_(self, "S_gibbs", check.integer("S_gibbs", self.S_gibbs, low=1, high=MAX_PASSES))

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        return (LiveSetting("S_gibbs", "weight passes", "int", low=1, high=MAX_PASSES,
                            help="Passes of coordinate-wise Gibbs over the class weights per "
                                 "sweep: more passes move the weights further each sweep"),
                LiveSetting("weight_shift", "weight shift", "flag",
                            help="End each pass with an exact draw of a shift common to all "
                                 "topic weights, a direction single coordinates move slowly"))

    def draw(self, rows: FeatureRows, b: F64, w: F64, prior_precision: F64, eta: F64,
             scores: F64, rng: Rng, n_topics: int, scores_current: bool) -> None:
        coordinate_passes(*rows, b, w, prior_precision, eta, scores, self.S_gibbs, rng,
                          n_topics if self.weight_shift else 0, scores_current)
