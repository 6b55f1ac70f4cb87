"""Held-out documents: the one path from documents to topic proportions, scores, predictions,
accuracy and perplexity (docs/math.md sec. 5), for ``Session`` and the scikit-learn
estimators alike. Functions of a ``summaries.Fit``; the caller holds the chain still.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, cast

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import Array, F32, F64, Rng
from .corpus import Corpus, Labels, is_pandas, make_labels
from .kernels.rng import derive
from .models import FOLD_IN_BURN, FOLD_IN_KEEP, MAX_FOLD_IN_SWEEPS
from .summaries import Fit, check_supervised
from .tasks import check_responses


def fold_in_sweeps(n_burn: int, n_keep: int) -> tuple[int, int]:
    return (check.integer("n_burn", n_burn, low=0, high=MAX_FOLD_IN_SWEEPS),
            check.integer("n_keep", n_keep, low=1, high=MAX_FOLD_IN_SWEEPS))


def check_snapshots(fit: Fit, snapshots: Any) -> list[F32] | None:
    """Topic snapshots as given by a caller: None, or a non-empty list of (V, K) arrays of
    this model's shape (``Session.topic_snapshot``), finite, non-negative, each topic's
    column summing to one."""
    if snapshots is None:
        return None
    if isinstance(snapshots, np.ndarray) or not isinstance(snapshots, (list, tuple)):
        raise TypeError(f"snapshots must be a list of topic snapshots (Session.topic_snapshot()"
                        f"), got {type(snapshots).__name__}")
    if not snapshots:
        raise ValueError("snapshots must hold at least one topic snapshot")
    shape = (fit.corpus.n_words, fit.model.K)
    out: list[F32] = []
    for j, phi in enumerate(snapshots):
        if not isinstance(phi, np.ndarray) or phi.shape != shape or phi.dtype.kind != "f":
            raise ValueError(f"snapshots[{j}] must be a float (V, K) = {shape} array "
                             f"(Session.topic_snapshot()), got "
                             f"{getattr(phi, 'dtype', type(phi).__name__)} "
                             f"{getattr(phi, 'shape', '')}")
        if not (np.isfinite(phi).all() and (phi >= 0).all()
                and np.allclose(phi.sum(axis=0), 1.0, atol=1e-4)):
            raise ValueError(f"snapshots[{j}] must hold each topic's word probabilities: "
                             f"finite, non-negative, each column summing to one")
        out.append(np.ascontiguousarray(phi, dtype=np.float32))
    return out


def features(fit: Fit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
             n_keep: int = FOLD_IN_KEEP, snapshots: list[F32] | None = None
             ) -> F64:
    """The documents' features (D, M) by fold-in (their topic proportions, then covariates),
    on the current topics, or averaged over topic ``snapshots`` (``Session.topic_snapshot``),
    each folded in on its own stream ``derive(key, j)``."""
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    if snapshots is None:
        return fit.model.fold_in(fit.state, corpus, key, n_burn, n_keep)
    if not snapshots:
        raise ValueError("snapshots must hold at least one topic snapshot")
    return sum(fit.model.fold_in(fit.state, corpus, derive(key, j), n_burn, n_keep, phi)
               for j, phi in enumerate(snapshots)) / len(snapshots)


def scores(fit: Fit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
           n_keep: int = FOLD_IN_KEEP, snapshots: list[F32] | None = None
           ) -> F64:
    """Decision scores (D, T): the fold-in's features with the weights averaged over the kept
    samples; with topic ``snapshots``, the scores averaged over one fold-in per snapshot
    (the posterior predictive over the topics too)."""
    check_supervised(fit.model)
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    if snapshots is None:
        return fit.model.decision_scores(
            fit.state, fit.model.fold_in(fit.state, corpus, key, n_burn, n_keep))
    return fit.model.ensemble_scores(fit.state, corpus, key, snapshots, n_burn, n_keep)


def labelled_scores(fit: Fit, docs: Any, values: F64, corpus: Corpus
                    ) -> F64 | pd.DataFrame:
    """Scores as ``decision_function`` returns them: a DataFrame with the documents' index and
    a column per task for pandas documents, else the array."""
    if not is_pandas(docs):
        return values
    return pd.DataFrame(values, index=corpus.index,
                        columns=pd.Index(fit.model.task_names(fit.corpus), name="task"))


def predictions(fit: Fit, docs: Any, values: F64, corpus: Corpus
                ) -> Array | pd.Series | pd.DataFrame:
    """The task's prediction from scores (D, T) (``Task.predict``: the sign for binary
    labels, argmax for multi-class, the scores above 0 for multi-label, the score for a
    response), labelled for pandas documents as ``Session.predict`` says."""
    lab = cast(Labels, fit.corpus.labels)   # a supervised model's corpus is labelled
    pred = fit.model.task(fit.corpus).predict(values, lab.classes)
    if not is_pandas(docs):
        return pred
    if pred.ndim == 2:
        return pd.DataFrame(pred, index=corpus.index, columns=pd.Index(lab.classes,
                                                                         name="class"))
    return pd.Series(pred, index=corpus.index, name="prediction")


def truth(fit: Fit, docs: Any, labels: Any) -> tuple[Corpus, F64]:
    """The held-out corpus and, for classes, its labels matched by name onto the model's
    (a class the model does not know is an error, never a silent zero), as targets; for a
    real response, the checked responses."""
    check_supervised(fit.model)
    train = cast(Labels, fit.corpus.labels)   # a supervised model's corpus is labelled
    if train.kind == "real":
        if labels is None and (not isinstance(docs, Corpus) or docs.labels is None
                               or docs.labels.kind != "real"):
            raise ValueError("score needs the held-out responses: a Corpus with real "
                             "labels, or documents and labels=...")
        corpus = fit.corpus.heldout(docs)
        y = docs.labels.values if labels is None else \
            make_labels(labels, corpus.n_docs, kind="real").values
        check_responses(y, "score (R^2 of held-out responses)")
        return corpus, y[None, :]
    n: int | None
    if labels is None:
        if not isinstance(docs, Corpus) or docs.labels is None:
            raise ValueError("score needs labels: a labelled held-out Corpus, or documents "
                             "and labels=...")
        held = docs.labels
        if held.kind == "real" or (held.kind == "multilabel") != (train.kind == "multilabel"):
            raise ValueError(f"the held-out labels are {held.kind} with {held.n_classes} "
                             f"classes; the model was trained on {train.kind} labels with "
                             f"classes {list(train.classes)[:10]}")
        labels = held.names() if held.kind != "multilabel" else [set(x) for x in held.names()]
        n = docs.n_docs
    else:
        n = docs.n_docs if isinstance(docs, Corpus) else None
    corpus = fit.corpus.heldout(docs)
    n = corpus.n_docs if n is None else n
    y = make_labels(labels, n, kind=train.kind, classes=train.classes)
    return corpus, fit.model.targets(dataclasses.replace(corpus, labels=y))


def score(fit: Fit, targets: F64, values: F64) -> float:
    """The task's score of scores (D, T) against targets (T, D): accuracy, micro F1 for
    multi-label, predictive R^2 for a response."""
    return fit.model.task(fit.corpus).score(targets, values.T)


def perplexity(fit: Fit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
               n_keep: int = FOLD_IN_KEEP) -> float:
    """exp(-log likelihood per scored token) by document completion
    (``LDA.completion_log_likelihood``)."""
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    if (corpus.doc_lengths >= 2).sum() == 0:
        raise ValueError("docs: no document has 2 known words, so there is no second half "
                         "to score")
    ll, n = fit.model.completion_log_likelihood(fit.state, corpus, key, n_burn, n_keep)
    return math.exp(-ll / n)


__all__ = ["check_snapshots", "features", "fold_in_sweeps", "labelled_scores", "perplexity",
           "predictions", "score", "scores", "truth"]
