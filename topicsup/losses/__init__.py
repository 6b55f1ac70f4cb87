"""Losses: each supplies an augmentation draw and the per-(document, task) pair (b, w).

Given its augmentation u, every loss here contributes exp(b s - w s^2 / 2) in the score
s = eta . xt_d (docs/math.md sec. 1), so neither the topic kernels nor the weight samplers see the
loss itself. A loss is a part (``topicsup.parts``) in its own module of this package: its
parameters, its augmentation draw, its log pseudo-likelihood for the log joint, the labels it
models (``targets``: +-1 signs per task for classification, real values for regression) and,
where it has one, its marginal factor for topic samplers that integrate the augmentation out
(``supervised_factor="marginal"``). ``REGISTRY`` finds them by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, NamedTuple

import numpy as np

from ..arrays import F64, Rng
from ..parts import Parameters, Part, Registry

REGISTRY: Registry[Loss] = Registry("loss", __name__)


class Augmentation(NamedTuple):
    """The (T, D) pair the loss's augmentation gives: exp(b s - w s^2 / 2) per score."""

    b: F64
    w: F64


@dataclass(frozen=True)
class Loss(Part):
    """Base of the losses.

    Every array a loss takes or gives is (T, D), tasks by documents, as the models keep them
    (``models.supervised.Supervision``): the labels ``y`` (the task's targets,
    ``topicsup.tasks``), the ``scores`` s_td = eta_t . xt_d and the augmentation's ``b`` and
    ``w``; the methods below compute elementwise over them. (Decision scores for prediction,
    ``SupervisedLDA.decision_scores``, are (D, T): one row per document.)"""

    # "signs": +-1 per (task, document) (classification); "values": real targets (regression)
    targets: ClassVar[str] = "signs"
    # the topic kernels' code for psi(y | s) itself (kernels.supervised), or None: the loss
    # has no marginal factor and its topics see the augmented one
    marginal_factor: ClassVar[int | None] = None
    # its state's arrays that are part of the chain (``Part.SAVED``): the augmentation
    SAVED: ClassVar[Mapping[str, str]] = {"b": "b", "w": "w"}

    def allocate(self, T: int, D: int) -> Any:
        """The augmentation's arrays, (T, D) each; a loss with more state returns a record
        with ``b`` and ``w`` among its fields."""
        return Augmentation(np.zeros((T, D)), np.zeros((T, D)))

    def start(self, own: Any, rng: Rng) -> None:
        """Set up a new chain's own state from the session's stream (before the first
        augmentation draw); nothing by default."""

    def augment(self, y: F64, scores: F64, rng: Rng, own: Any) -> None:
        """Draw the augmentation given the (T, D) labels and scores; write ``own.b``, ``own.w``.
        (A loss that draws nothing may accept ``rng=None``: ``models.mc_medlda``'s.)"""
        raise NotImplementedError

    def check_augmentation(self, y: F64, own: Any) -> None:
        """Raise ``ValueError`` unless the saved augmentation is one this loss draws for ``y``
        (a checkpoint is untrusted)."""

    def marginal_params(self) -> F64:
        raise NotImplementedError

    def slope_at_zero(self, y: F64) -> F64:
        raise NotImplementedError

    def log_psi(self, y: F64, scores: F64) -> F64:
        """log psi(y | s), elementwise (T, D)."""
        raise NotImplementedError

    def log_pseudo_likelihood(self, y: F64, scores: F64) -> float:
        """sum log psi(y | s): the loss's part of the log joint."""
        return float(self.log_psi(y, scores).sum())

    def mean_loss(self, y: F64, scores: F64) -> float:
        """The loss per document and task, recorded in the history as ``<name>_loss``."""
        return float(-self.log_psi(y, scores).mean()) if y.size else float("nan")

    def marginal_label(self, model: Parameters) -> str:
        return "the loss itself"


def __getattr__(name: str) -> Any:
    # the losses by class name (topicsup.losses.Hinge), loaded with the registry
    for cls in REGISTRY.classes():
        if cls.__name__ == name:
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
