"""Weight steps: how the weights eta are drawn given the features and the augmentation's
(b, w), each a part (``topicsup.parts``) in its own module. ``REGISTRY`` finds them by name
(``REGISTRY.names()`` lists them); the kernels are ``topicsup.kernels.weights``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..parts import Part, Registry

REGISTRY = Registry("weight_sampler", __name__)

MAX_PASSES = 1024   # coordinate passes over the weights per sweep


@dataclass(frozen=True)
class WeightStep(Part):
    """Base of the weight steps."""

    def draw(self, rows: tuple, b: np.ndarray, w: np.ndarray, prior_precision: np.ndarray,
             eta: np.ndarray, scores: np.ndarray, rng: np.ndarray, n_topics: int,
             scores_current: bool) -> None:
        """Draw every task's weights ``eta`` (T, M) given the features by row ``rows``
        (``kernels.weights.topic_rows``) and (b, w) (T, D); leave ``scores`` = X eta^T.
        ``scores_current``: ``scores`` already holds X eta^T for these features."""
        raise NotImplementedError

    def state_bytes(self, M: int) -> float:
        return 0.0

    def describe(self, model: Any) -> str:
        return self.name
