"""Held-out documents: the one path from documents to topic proportions, scores, predictions,
accuracy and perplexity (docs/math.md sec. 5), for ``Session`` and the scikit-learn
estimators alike. Functions of a ``Fit`` (``topicsup.problem``), whose bound problem holds
the label task: scoring, predicting and reading held-out labels build none. ``HeldOut`` is
the methods a Session offers by name, each a read on the chain held still.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import Array, F32, F64, Rng
from .corpus import Corpus
from .labels import is_pandas, make_labels
from .kernels.rng import derive, seed_state
from .models import FOLD_IN_BURN, FOLD_IN_KEEP, MAX_FOLD_IN_SWEEPS
from .summaries import ModelFit, check_supervised
from .tasks import Task, check_responses

# the streams of the held-out fold-ins: the chain's own stream is never touched
SCORE_STREAM = 7
PERPLEXITY_STREAM = 8


def fold_in_sweeps(n_burn: int, n_keep: int) -> tuple[int, int]:
    return (check.integer("n_burn", n_burn, low=0, high=MAX_FOLD_IN_SWEEPS),
            check.integer("n_keep", n_keep, low=1, high=MAX_FOLD_IN_SWEEPS))


def _task(fit: ModelFit) -> Task:
    """The bound label task of a supervised fit."""
    check_supervised(fit.problem.model)
    task = fit.problem.task
    assert task is not None   # a supervised model's problem has one (``Model.bind``)
    return task


def check_snapshots(fit: ModelFit, snapshots: Any) -> list[F32] | None:
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
    shape = (fit.problem.n_words, fit.problem.K)
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


def features(fit: ModelFit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
             n_keep: int = FOLD_IN_KEEP, snapshots: list[F32] | None = None) -> F64:
    """The documents' features (D, M) by fold-in (their topic proportions, then covariates),
    on the current topics, or averaged over topic ``snapshots`` (``Session.topic_snapshot``),
    each folded in on its own stream ``derive(key, j)``."""
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    model, state, problem = fit.problem.model, fit.state, fit.problem
    if snapshots is None:
        return model.fold_in(state, problem, corpus, key, n_burn, n_keep)
    if not snapshots:
        raise ValueError("snapshots must hold at least one topic snapshot")
    total: F64 = np.zeros(())   # 0-d: adds as the int 0 of sum() did
    for j, phi in enumerate(snapshots):
        total = total + model.fold_in(state, problem, corpus, derive(key, j), n_burn, n_keep,
                                      phi)
    return total / len(snapshots)


def scores(fit: ModelFit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
           n_keep: int = FOLD_IN_KEEP, snapshots: list[F32] | None = None) -> F64:
    """Decision scores (D, T): the fold-in's features with the weights averaged over the kept
    samples; with topic ``snapshots``, the scores averaged over one fold-in per snapshot
    (the posterior predictive over the topics too)."""
    check_supervised(fit.problem.model)
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    model, state, problem = fit.problem.model, fit.state, fit.problem
    if snapshots is None:
        return model.decision_scores(state, model.fold_in(state, problem, corpus, key, n_burn,
                                                          n_keep))
    return model.ensemble_scores(state, problem, corpus, key, snapshots, n_burn, n_keep)


def labelled_scores(fit: ModelFit, docs: Any, values: F64, corpus: Corpus
                    ) -> F64 | pd.DataFrame:
    """Scores as ``decision_function`` returns them: a DataFrame with the documents' index and
    a column per task for pandas documents, else the array."""
    if not is_pandas(docs):
        return values
    return pd.DataFrame(values, index=corpus.index,
                        columns=pd.Index(list(fit.problem.task_names), name="task"))


def predictions(fit: ModelFit, docs: Any, values: F64, corpus: Corpus
                ) -> Array | pd.Series | pd.DataFrame:
    """The task's prediction from scores (D, T) (``Task.predict``: the sign for binary
    labels, argmax for multi-class, the scores above 0 for multi-label, the score for a
    response), labelled for pandas documents as ``Session.predict`` says."""
    classes = _classes(fit)
    pred = _task(fit).predict(values, classes)
    if not is_pandas(docs):
        return pred
    if pred.ndim == 2:
        return pd.DataFrame(pred, index=corpus.index, columns=pd.Index(classes, name="class"))
    return pd.Series(pred, index=corpus.index, name="prediction")


def _classes(fit: ModelFit) -> tuple[str, ...]:
    labels = fit.problem.corpus.labels
    assert labels is not None   # a supervised model's corpus is labelled (``Model.bind``)
    return labels.classes


def truth(fit: ModelFit, docs: Any, labels: Any) -> tuple[Corpus, F64]:
    """The held-out corpus and, for classes, its labels matched by name onto the model's
    (a class the model does not know is an error, never a silent zero), as targets of the
    bound task; for a real response, the checked responses."""
    task = _task(fit)
    train = fit.problem.corpus.labels
    assert train is not None   # a supervised model's corpus is labelled
    if train.kind == "real":
        if labels is None and (not isinstance(docs, Corpus) or docs.labels is None
                               or docs.labels.kind != "real"):
            raise ValueError("score needs the held-out responses: a Corpus with real "
                             "labels, or documents and labels=...")
        corpus = fit.problem.corpus.heldout(docs)
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
    corpus = fit.problem.corpus.heldout(docs)
    n = corpus.n_docs if n is None else n
    y = make_labels(labels, n, kind=train.kind, classes=train.classes)
    return corpus, task.encode(y)


def score(fit: ModelFit, targets: F64, values: F64) -> float:
    """The task's score of scores (D, T) against targets (T, D): accuracy, micro F1 for
    multi-label, predictive R^2 for a response."""
    return _task(fit).score(targets, values.T)


def perplexity(fit: ModelFit, corpus: Corpus, key: Rng, n_burn: int = FOLD_IN_BURN,
               n_keep: int = FOLD_IN_KEEP) -> float:
    """exp(-log likelihood per scored token) by document completion
    (``LDA.completion_log_likelihood``)."""
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    if (corpus.doc_lengths >= 2).sum() == 0:
        raise ValueError("docs: no document has 2 known words, so there is no second half "
                         "to score")
    ll, n = fit.problem.model.completion_log_likelihood(fit.state, fit.problem, corpus, key,
                                                        n_burn, n_keep)
    return math.exp(-ll / n)


def _fold_in_key(seed: int, key: Any) -> Rng:
    return seed_state(seed, stream=SCORE_STREAM) if key is None \
        else check.generator_state("key", key)


class HeldOut:
    """What a chain object offers for held-out documents, each a function above run on the
    chain held still (``readout``); the documents are mapped onto the training vocabulary
    first, outside the chain's lock (``corpus.heldout``)."""

    @property
    def corpus(self) -> Corpus:
        """The training corpus, whose vocabulary held-out documents are mapped onto."""
        raise NotImplementedError

    def readout(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def decision_function(self, docs: Any, n_burn: int = FOLD_IN_BURN,
                          n_keep: int = FOLD_IN_KEEP, seed: int = 0, *,
                          snapshots: list[Array] | None = None,
                          key: Array | None = None) -> F64 | pd.DataFrame:
        """Scores (n_docs, T) of held-out documents: fold-in on the current topics (or averaged
        over topic ``snapshots``), then the weights averaged over the kept samples
        (docs/math.md sec. 5).

        ``docs``: a Corpus, texts, token lists, counts, or a pandas Series or DataFrame of
        them (then the result is a DataFrame with their index and a column per task).
        ``n_burn``, ``n_keep``: fold-in sweeps discarded and averaged. ``seed`` (or ``key``,
        a generator state): the fold-in's own streams, a document's own, so its scores do not
        depend on the other documents; the chain's stream is never touched."""
        values, corpus = self._folded(scores, docs, n_burn, n_keep, seed, snapshots, key)
        return self.readout(labelled_scores, docs, values, corpus)

    def fold_in(self, docs: Any, n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                seed: int = 0, *, snapshots: list[Array] | None = None,
                key: Array | None = None) -> tuple[F64, Corpus]:
        """Held-out documents' features (n_docs, M) by fold-in: their topic proportions (the
        first K columns), then the covariates; averaged over topic ``snapshots`` if given;
        with the held-out corpus (its ``index`` labels the documents). Arguments as for
        ``decision_function``."""
        return self._folded(features, docs, n_burn, n_keep, seed, snapshots, key)

    def _folded(self, reader: Callable[..., F64], docs: Any, n_burn: int, n_keep: int,
                seed: int, snapshots: Any, key: Any) -> tuple[F64, Corpus]:
        """``reader(fit, corpus, key, n_burn, n_keep, snapshots)`` of the held-out ``docs``,
        their arguments checked, on the chain held still; with the held-out corpus."""
        if reader is scores:   # before the documents are mapped: the model's error first
            self.readout(lambda fit: check_supervised(fit.problem.model))
        n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
        corpus = self.corpus.heldout(docs)
        key = _fold_in_key(seed, key)

        def read(fit: ModelFit) -> F64:
            return reader(fit, corpus, key, n_burn, n_keep, check_snapshots(fit, snapshots))
        return self.readout(read), corpus

    def decision_scores(self, features: Array) -> F64:
        """(n_docs, T) scores of features (``fold_in``) with the weights prediction uses."""
        def read(fit: ModelFit) -> F64:
            check_supervised(fit.problem.model)
            return fit.problem.model.decision_scores(fit.state, features)
        return self.readout(read)

    def perplexity(self, docs: Any, n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                   seed: int = 0) -> float:
        """Held-out perplexity by document completion, exp(-log likelihood per scored token):
        half of each document's tokens, drawn at random from its own stream under ``seed``,
        folded in, the other half scored (the same for any order of its tokens: texts,
        token lists or counts); the same definition for every model (lower is better).
        Arguments as for ``decision_function``."""
        n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
        corpus = self.corpus.heldout(docs)
        return self.readout(perplexity, corpus, seed_state(seed, stream=PERPLEXITY_STREAM),
                            n_burn, n_keep)

    def predict(self, docs: Any, **fold_in: Any) -> Array | pd.Series | pd.DataFrame:
        """The task's prediction for held-out documents (class names; a 0/1 matrix for
        multi-label; the response), labelled with their index for pandas documents;
        ``fold_in`` as for ``decision_function``."""
        values, corpus = self._folded(scores, docs, **_fold_in_args(fold_in))
        return self.readout(predictions, docs, values, corpus)

    def score(self, docs: Any, labels: Any = None, **fold_in: Any) -> float:
        """Accuracy (micro F1 for multi-label, predictive R^2 for responses) on a labelled
        held-out Corpus, or on documents with ``labels``, matched by class name (a class the
        model does not know is an error, never a silent zero)."""
        corpus, targets = self.readout(truth, docs, labels)
        values, _ = self._folded(scores, corpus, **_fold_in_args(fold_in))
        return self.readout(score, targets, values)


def _fold_in_args(given: dict[str, Any]) -> dict[str, Any]:
    """``predict``'s and ``score``'s fold-in keywords, with ``decision_function``'s defaults."""
    allowed = ("n_burn", "n_keep", "seed", "snapshots", "key")
    bad = sorted(set(given) - set(allowed))
    if bad:
        raise TypeError(f"unexpected fold-in argument(s) {bad}; allowed: {list(allowed)}")
    return {"n_burn": FOLD_IN_BURN, "n_keep": FOLD_IN_KEEP, "seed": 0, "snapshots": None,
            "key": None, **given}


__all__ = ["HeldOut", "PERPLEXITY_STREAM", "SCORE_STREAM", "check_snapshots", "features",
           "fold_in_sweeps", "labelled_scores", "perplexity", "predictions", "score", "scores",
           "truth"]
