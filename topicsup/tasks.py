"""Label tasks: how a corpus's labels become the (T, D) targets of the losses, and how scores
become predictions and a score (docs/math.md sec. 5).

One task per kind of labels (``Labels.kind``): binary (one classifier, T = 1), multiclass and
multilabel (one classifier per class on shared topics, the multi-task form of Zheng et al.
2015 sec. 4.1, T = C) and real (one regression, T = 1). A loss says which targets it models
(``Loss.targets``: +-1 signs or real values); ``task_for`` pairs the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .arrays import Array, Bool, F64
from .labels import Labels


def micro_f1(truth: Bool, predicted: Bool) -> float:
    """Micro-averaged F1 of boolean indicator arrays of one shape."""
    tp = float(np.logical_and(truth, predicted).sum())
    denom = float(truth.sum() + predicted.sum())
    return 2 * tp / denom if denom else 1.0


def r_squared(truth: Array, predicted: F64) -> float:
    """Predictive R^2 = 1 - sum (y - yhat)^2 / sum (y - mean y)^2 (NaN for constant y)."""
    truth = np.asarray(truth, dtype=np.float64)
    total = float(np.square(truth - truth.mean()).sum())
    return 1.0 - float(np.square(truth - predicted).sum()) / total if total else float("nan")


@dataclass(frozen=True)
class Task:
    """Base of the label tasks."""

    kind: ClassVar[str] = ""
    targets: ClassVar[str] = "signs"    # what it gives the loss: +-1 signs or real values
    score_name: ClassVar[str] = "accuracy"
    target: ClassVar[str] = "class"     # what a task is, in the views' titles and axes

    def n_tasks(self, labels: Labels) -> int:
        return 1

    def encode(self, labels: Labels) -> F64:
        """The (T, D) float64 targets of the loss."""
        raise NotImplementedError

    def names(self, labels: Labels) -> list[str]:
        """One name per task."""
        raise NotImplementedError

    def predict(self, scores: F64, classes: Any) -> Array:
        """Predictions from (D, T) scores."""
        raise NotImplementedError

    def score(self, y: F64, scores: F64) -> float:
        """Score (T, D) scores against (T, D) targets by the prediction rule."""
        raise NotImplementedError

    def check(self, labels: Labels, model: str) -> None:
        """Refuse labels the model cannot learn from (``ValueError`` naming them)."""


@dataclass(frozen=True)
class Binary(Task):
    """Two classes, one classifier: y = +1 for the positive class (code 1); predict by sign."""

    kind = "binary"

    def encode(self, labels: Labels) -> F64:
        return labels.signs[None, :].astype(np.float64)

    def names(self, labels: Labels) -> list[str]:
        return [labels.classes[1] if len(labels.classes) > 1 else "positive"]

    def predict(self, scores: F64, classes: Any) -> Array:
        return np.asarray(classes, dtype=object)[(scores[:, 0] > 0).astype(int)]

    def score(self, y: F64, scores: F64) -> float:
        return float(np.mean((scores[0] > 0) == (y[0] > 0)))

    def check(self, labels: Labels, model: str) -> None:
        _two_classes(labels, model)


@dataclass(frozen=True)
class Multiclass(Task):
    """C classes, one classifier per class (y = +1 for the document's class, -1 for the
    others); predict the argmax."""

    kind = "multiclass"

    def n_tasks(self, labels: Labels) -> int:
        return labels.n_classes

    def encode(self, labels: Labels) -> F64:
        onehot = np.arange(labels.n_classes)[:, None] == labels.values[None, :]
        return np.where(onehot, 1.0, -1.0)

    def names(self, labels: Labels) -> list[str]:
        return list(labels.classes)

    def predict(self, scores: F64, classes: Any) -> Array:
        return np.asarray(classes, dtype=object)[scores.argmax(axis=1)]

    def score(self, y: F64, scores: F64) -> float:
        return float(np.mean(scores.argmax(axis=0) == y.argmax(axis=0)))

    def check(self, labels: Labels, model: str) -> None:
        _two_classes(labels, model)


@dataclass(frozen=True)
class Multilabel(Task):
    """Any set of C classes per document, one classifier per class; predict the classes with
    a positive score (a (D, C) 0/1 indicator matrix), scored by micro F1."""

    kind = "multilabel"
    score_name = "f1"

    def n_tasks(self, labels: Labels) -> int:
        return labels.n_classes

    def encode(self, labels: Labels) -> F64:
        return np.where(labels.values.T.astype(bool), 1.0, -1.0)

    def names(self, labels: Labels) -> list[str]:
        return list(labels.classes)

    def predict(self, scores: F64, classes: Any) -> Array:
        return (scores > 0).astype(np.int32)

    def score(self, y: F64, scores: F64) -> float:
        return micro_f1(y > 0, scores > 0)


@dataclass(frozen=True)
class Real(Task):
    """One real response per document (regression): predict the score, scored by R^2."""

    kind = "real"
    targets = "values"
    score_name = "r2"
    target = "response"

    def encode(self, labels: Labels) -> F64:
        return labels.values[None, :].astype(np.float64)

    def names(self, labels: Labels) -> list[str]:
        return ["response"]

    def predict(self, scores: F64, classes: Any) -> Array:
        return scores[:, 0].copy()

    def score(self, y: F64, scores: F64) -> float:
        return r_squared(y[0], scores[0])

    # below this spread the responses are one value to the weights and R^2 underflows
    MIN_SPREAD = 1e-6

    def check(self, labels: Labels, model: str) -> None:
        check_responses(labels.values, model)


def check_responses(y: Array, what: str) -> None:
    """Refuse responses a regression cannot learn from or be scored on: fewer than two, or a
    spread below ``Real.MIN_SPREAD`` (standardize them)."""
    if y.size < 2 or np.ptp(y) < Real.MIN_SPREAD:
        raise ValueError(f"{what} needs at least two documents with responses that differ by "
                         f"at least {Real.MIN_SPREAD:g} (standardize them); got {y.size} "
                         f"document(s) spanning {float(np.ptp(y)) if y.size else 0.0:g}")


def _two_classes(labels: Labels, model: str) -> None:
    present = np.unique(labels.values)
    if present.size < 2:
        raise ValueError(f"{model} needs documents of at least 2 classes to classify; every "
                         f"document of the corpus's labels is {labels.classes[present[0]]!r}"
                         if present.size else f"{model} needs labelled documents")


TASKS: dict[str, Task] = {t.kind: t for t in (Binary(), Multiclass(), Multilabel(), Real())}


def task_for(labels: Labels, targets: str, model: str) -> Task:
    """The task of ``labels`` for a loss modelling ``targets``; ``ValueError`` if they do not
    go together (a classifier's loss on real labels, a regression on classes)."""
    task = TASKS[labels.kind]
    if task.targets != targets:
        expect = [k for k, t in TASKS.items() if t.targets == targets]
        raise ValueError(f"{model} models {'real responses' if targets == 'values' else 'classes'}"
                         f"; corpus.labels are {labels.kind!r}, expected one of {expect}")
    return task
