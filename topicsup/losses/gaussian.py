"""The Gaussian response of supervised LDA (Blei & McAuliffe 2007): y ~ N(s, sigma^2).

psi(y | s) = exp(-(y - s)^2 / (2 sigma^2)) is already Gaussian in s, so there is nothing to
augment: (b, w) = (y / sigma^2, 1 / sigma^2) for every document (docs/math.md sec. 1), and the
marginal factor is the augmented one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import F64, Rng
from . import REGISTRY, Augmentation, Loss


@REGISTRY.register
@dataclass(frozen=True)
class Gaussian(Loss):
    """Squared error (y - s)^2 / (2 ``sigma2``): regression with a real response per
    document."""

    name = "gaussian"
    targets = "values"

    sigma2: float = 1.0

    # outside it the precision 1 / sigma^2 under- or overflows the weights' draws
    SIGMA2_RANGE = (1e-8, 1e8)

    def __post_init__(self) -> None:
        self._bounded("sigma2", self.SIGMA2_RANGE,
                      "outside it the response's precision under- or overflows")

    def augment(self, y: F64, scores: F64, rng: Rng, own: Augmentation) -> None:
        """No augmentation: b = y / sigma^2, w = 1 / sigma^2 (the stream is not used)."""
        own.b[...] = y / self.sigma2
        own.w[...] = 1.0 / self.sigma2

    def check_augmentation(self, y: F64, own: Augmentation) -> None:
        if not (np.allclose(own.b, y / self.sigma2, rtol=1e-12, atol=0.0)
                and np.allclose(own.w, 1.0 / self.sigma2, rtol=1e-12, atol=0.0)):
            raise ValueError("b and w are not y / sigma2 and 1 / sigma2")

    def log_psi(self, y: F64, scores: F64) -> F64:
        """log N(y | s, sigma^2), elementwise."""
        return -0.5 * np.square(y - scores) / self.sigma2 - 0.5 * np.log(2 * np.pi * self.sigma2)

    def mean_loss(self, y: F64, scores: F64) -> float:
        """Mean squared error (y - s)^2."""
        return float(np.square(y - scores).mean()) if y.size else float("nan")
