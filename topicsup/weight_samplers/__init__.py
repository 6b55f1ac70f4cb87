"""Weight steps: how the weights eta are drawn given the features and the augmentation's
(b, w), each a part (``topicsup.parts``) in its own module. ``REGISTRY`` finds them by name
(``REGISTRY.names()`` lists them); the kernels are ``topicsup.kernels.weights``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..arrays import F64, I64, Rng
from ..parts import Parameters, Part, Registry

REGISTRY: Registry[WeightStep] = Registry("weight_sampler", __name__)

MAX_PASSES = 1024   # coordinate passes over the weights per sweep


class FeatureRows(NamedTuple):
    """The features X (D, M) = (zbar_d, x_d) by row (``kernels.weights.topic_rows``): row
    pointers (D + 1,), then each row's ascending columns and their values (the non-zeros)."""

    row_ptr: I64
    cols: I64
    vals: F64


@dataclass(frozen=True)
class WeightStep(Part):
    """Base of the weight steps."""

    def draw(self, rows: FeatureRows, b: F64, w: F64, prior_precision: F64, eta: F64,
             scores: F64, rng: Rng, n_topics: int, scores_current: bool) -> None:
        """Draw every task's weights ``eta`` (T, M) given the features by row ``rows``
        (``kernels.weights.topic_rows``) and (b, w) (T, D); leave ``scores`` = X eta^T.
        ``scores_current``: ``scores`` already holds X eta^T for these features."""
        raise NotImplementedError

    def state_bytes(self, M: int) -> float:
        return 0.0

    def describe(self, model: Parameters) -> str:
        return self.name
