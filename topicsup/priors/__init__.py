"""Priors on the weights eta: each a part (``topicsup.parts``) in its own module.

The weight samplers (``topicsup.weight_samplers``) see only a (T, M) array of prior
precisions, so a prior is a rule for that array, with its own state where it is hierarchical
(DOLDA's horseshoe keeps its scales and draws them between weight draws, ``update``) and its
log density for the log joint. ``REGISTRY`` finds them by name. Adding a prior never touches a
sampler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..arrays import F64, Rng
from ..parts import Part, Registry

REGISTRY: Registry[Prior] = Registry("prior", __name__)


class NoState(NamedTuple):
    """The state of a prior with none of its own."""


@dataclass(frozen=True)
class Prior(Part):
    """Base of the priors on the weights."""

    def allocate(self, T: int, M: int) -> Any:
        """Its own state for (T, M) weights."""
        return NoState()

    def precision(self, own: Any, T: int, M: int) -> F64:
        """The (T, M) prior precisions given its state."""
        raise NotImplementedError

    def update(self, own: Any, eta: F64, rng: Rng, precision: F64) -> None:
        """Draw its own state given the weights ``eta`` (once per sweep, after the weights)
        and write the new ``precision``; nothing for a prior with fixed precisions."""

    def log_density(self, eta: F64, own: Any) -> float:
        """log p(eta | its state), summed (plus its state's own log density, if any)."""
        raise NotImplementedError

    def validate(self, own: Any) -> None:
        """Refuse a saved state it cannot continue from (a checkpoint is untrusted)."""


def __getattr__(name: str) -> Any:
    # the priors by class name (topicsup.priors.Normal), loaded with the registry
    for cls in REGISTRY.classes():
        if cls.__name__ == name:
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
