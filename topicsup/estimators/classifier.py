"""The classifier: any supervised model of classes (``model=``), by default the preset of a
classification loss and a sampler (``models.presets``), multi-task or one-vs-all."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Mapping, Set
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import validation as check
from ..arrays import Array, F32, F64, Rng
from ..corpus import Corpus
from ..kernels.rng import seed_state
from ..labels import LabelForm, Labels, aligned, input_index, make_labels
from ..models import (FOLD_IN_BURN, FOLD_IN_KEEP, LOSSES, MAX_FOLD_IN_SWEEPS, SupervisedLDA,
                      presets)
from ..session import Session
from ..tasks import Task, task_for
from ._documents import (_checked_targets, _Documents, _labelled, _materialise, _names,
                         _one_set_per_document, _seed, one_vs_rest)
from ._params import (DEPRECATED, FOLD_IN_BURN_IN, FOLD_IN_SAMPLES, RANDOM_STATE, SWEEPS,
                      TOPICS, VOCABULARY, Param, check_own, given, integer, loss_options,
                      loss_params, model_params, model_settings, optional, options, renamed,
                      threads)

if TYPE_CHECKING:
    from sklearn.utils import Tags

STRATEGIES = ("multitask", "ovr")


@functools.cache
def _preset(loss: str, sampler: str) -> type[SupervisedLDA] | None:
    """The first preset of ``models.presets`` whose loss is ``loss`` and whose paper's sampler
    (``PUBLISHED_SAMPLER``) is ``sampler``."""
    for name in presets.__all__:
        cls = getattr(presets, name)
        if (cls().get_params()["loss"], cls.PUBLISHED_SAMPLER) == (loss, sampler):
            return cast(type[SupervisedLDA], cls)
    return None


def _supervised_model(loss: str, sampler: str, **settings: Any) -> SupervisedLDA:
    """The estimators' one way from a loss and a topic sampler to a model: the preset that
    trains them (``models.presets``: the hinge's MedLDA with "gibbs" and LightMedLDA with
    "light", the logistic loss's GSLDA and LightSLDA, SLDA, MedLDARegression), else
    ``SupervisedLDA`` with those parts and the weight sampler that goes with the sampler
    (coordinate Gibbs for "light", else Cholesky); ``settings`` on top, those that are None
    left at the model's default. A new loss (``topicsup.losses``) or preset edits nothing
    here."""
    kw = {k: v for k, v in settings.items() if v is not None}
    preset = _preset(loss, sampler)
    if preset is not None:   # the sampler named: the estimators' choice is their parameter
        return preset(sampler=sampler, **kw)
    weights = "coordinate" if sampler == "light" else "cholesky"
    return SupervisedLDA(loss=loss, sampler=sampler, weight_sampler=weights, **kw)


# the estimator's defaults where they are not the preset's: gSLDA+'s c = 25
# (benchmarks/results/gslda_binary); the hinge's lam is the presets' 102.4
LOSS_DEFAULTS = {"logistic": {"c": 25.0}}


class SupervisedLDAClassifier(   # scikit-learn ships no types: its bases are Any to mypy
        ClassifierMixin, TransformerMixin, _Documents, BaseEstimator):  # type: ignore[misc]
    """Supervised topic model classifier: any supervised model (``model=``), by default the
    max-margin (Gibbs MedLDA, LightMedLDA) or logistic (gSLDA, Light-sLDA) preset.

    Parameters
    ----------
    n_components : int
        Number of topics K (the models' ``K``; formerly ``n_topics``). (model)
    model : supervised topic model, optional
        The model to train, an instance such as ``LightMedLDA(K=20)``, ``DOLDA(K=20)``,
        ``GSLDA.plus(K=50)`` or ``SupervisedLDA(loss=..., ...)`` with any classification
        loss: every model parameter then comes from it, ``K``, ``burn_in`` and
        ``lda_init_sweeps`` included (the parameters marked (model) stay at their defaults),
        and each chain is ``Session(model, corpus, seed)``'s. ``None``: the preset of
        ``loss`` and ``sampler`` (``models.presets``) with the settings marked (model).
    loss : str
        A classification loss of ``topicsup.losses``: ``"hinge"``, MedLDA's max-margin loss
        2 lam max(0, 1 - y s); ``"logistic"``, gSLDA's logistic loss with regularisation
        constant c and Polya-Gamma augmentation; ``"do_probit"``, DOLDA's (which with its
        prior and sampler is ``model=DOLDA(...)``). (model)
    lam : float, optional
        The hinge's regularisation constant (default: the presets' 102.4); refused with a
        loss that does not read it. (model)
    c : float, optional
        The logistic loss's regularisation constant (default 25, gSLDA+); refused with a loss
        that does not read it. (model)
    sampler : {"light", "gibbs"}
        ``"light"``: the light presets (``LightMedLDA``: doc and word MH proposals, the hinge
        itself in their ratios, coordinate weights; ``LightSLDA``); ``"gibbs"``: exact Gibbs
        topics and Cholesky weights (``MedLDA``, ``GSLDA``). (model)
    strategy : {"multitask", "ovr"}
        Multi-class or multi-label labels: one model with a classifier per class on shared
        topics, or one binary model per class (one-vs-all, trained in parallel threads with
        ``n_jobs``; its scores side by side are read by the labels' task: the argmax, or the
        positive ones for multi-label). Binary labels always train one model.
    nu : float, optional
        Prior precision of the weights (default: the preset's, 1). (model)
    doc_topic_prior : float, optional
        Document-topic Dirichlet parameter, the models' alpha (default 6.4 / K; formerly
        ``alpha``). (model)
    topic_word_prior : float
        Topic-word Dirichlet parameter, the models' beta (formerly ``beta``). (model)
    mh_steps : int, optional
        MH steps per token for the light sampler (default 6). (model)
    composition : {"mixture", "cycle"}, optional
        How the light sampler composes its proposals (default: the preset's, cycle). (model)
    supervised_factor : {"marginal", "augmented"}, optional
        The label term the topics see: the loss itself or the augmentation's Gaussian
        factor (``SupervisedLDA.supervised_factor``; default: the preset's, marginal for
        LightMedLDA and augmented for MedLDA, GSLDA and LightSLDA). (model)
    S_gibbs : int
        Coordinate-Gibbs passes over the weights per sweep (light sampler). (model)
    max_iter : int
        Training sweeps (the LDA initialisation included; formerly ``n_iter``).
    lda_init_sweeps : int
        Sweeps of plain LDA that start each model before the supervised ones
        (``SupervisedLDA.lda_init_sweeps``). (model)
    burn_in : int, optional
        Sweeps before weight samples are averaged for prediction (default
        ``max_iter // 2``). (model)
    predict_burn_in, predict_samples : int
        Fold-in sweeps on held-out documents before and while their topic proportions are
        averaged (50 and 50, as ``Session.decision_function``: chosen by measurement).
    n_snapshots, snapshot_every : int
        Topic snapshots kept from the last training sweeps, ``snapshot_every`` sweeps apart;
        predictions average the scores of one fold-in per snapshot
        (``SupervisedLDA.ensemble_scores``).
    vocabulary : sequence of str, optional
        Word names of the count matrix columns (e.g. ``vectorizer.get_feature_names_out()``);
        by default a DataFrame's column names, else ``w0, w1, ...``.
    random_state : int or None
        Seed: the same seed gives the same model, whatever ``n_jobs``; ``None`` draws one;
        a ``numpy.random.RandomState`` or ``Generator`` gives one draw as the seed.
    n_jobs : int or None
        Threads for one-vs-all training and prediction (``None`` is 1, ``-1`` every core).
    n_topics, n_iter, alpha, beta
        Deprecated: the old names of ``n_components``, ``max_iter``, ``doc_topic_prior`` and
        ``topic_word_prior``, which work with a ``FutureWarning`` until the next release.

    Attributes
    ----------
    classes_ : ndarray
        The class labels as given (their type kept: ints stay ints); for a multi-label
        indicator matrix the column indices.
    n_features_in_ : int
        Columns of the count matrix seen in ``fit`` (not set when fitted on texts).
    feature_names_in_ : ndarray of str
        Column names of a DataFrame seen in ``fit``.
    sessions_ : list of Session
        One (multi-task, binary) or one per class (one-vs-all).
    corpus_ : Corpus
        The training corpus (its vocabulary maps new documents).
    n_iter_ : int
        Sweeps run: ``max_iter``, or fewer if the model's algorithm ended first (MCMedLDA).
    """

    # every parameter, declared once (``estimators._params``): the model parameter it sets,
    # the estimator's own check; MODEL_PARAMS, the loss's settings, the checks follow
    _parameter_constraints: ClassVar[dict[str, Param]] = {
        "n_components": TOPICS,
        "model": Param(),   # a whole model: _given_model checks it
        "loss": Param("loss", loss_options("signs")),
        "lam": Param("lam"),   # a loss's settings: refused with a loss that does not read them
        "c": Param("c"),
        "sampler": Param("sampler", options("light", "gibbs")),
        "strategy": Param(None, options(*STRATEGIES)),
        "nu": Param("nu"),
        "doc_topic_prior": Param("alpha"),
        "topic_word_prior": Param("beta"),
        "mh_steps": Param("mh_steps"),
        "composition": Param("composition"),
        "supervised_factor": Param("supervised_factor"),
        "S_gibbs": Param("S_gibbs"),
        "max_iter": SWEEPS,
        "burn_in": Param("burn_in", optional(integer(0, check.INT32_MAX))),
        "lda_init_sweeps": Param("lda_init_sweeps"),
        "predict_burn_in": FOLD_IN_BURN_IN,
        "predict_samples": FOLD_IN_SAMPLES,
        "n_snapshots": Param(None, integer(1, MAX_FOLD_IN_SWEEPS)),
        "snapshot_every": Param(None, integer(1, MAX_FOLD_IN_SWEEPS)),
        "vocabulary": VOCABULARY,
        "random_state": RANDOM_STATE,
        "n_jobs": Param(None, threads, predict=True),
    }

    def __init__(self, n_components: int = 20, *, model: Any = None, loss: str = "hinge",
                 lam: float | None = None, c: float | None = None, sampler: str = "light",
                 strategy: str = "multitask", nu: float | None = None,
                 doc_topic_prior: float | None = None, topic_word_prior: float = 0.01,
                 mh_steps: int | None = None, composition: str | None = None,
                 supervised_factor: str | None = None, S_gibbs: int = 2, max_iter: int = 30,
                 burn_in: int | None = None, lda_init_sweeps: int = 0,
                 predict_burn_in: int = FOLD_IN_BURN, predict_samples: int = FOLD_IN_KEEP,
                 n_snapshots: int = 1, snapshot_every: int = 2, vocabulary: Any = None,
                 random_state: int | None = 0, n_jobs: int | None = 1,
                 n_topics: Any = DEPRECATED, n_iter: Any = DEPRECATED, alpha: Any = DEPRECATED,
                 beta: Any = DEPRECATED) -> None:
        self.n_components = n_components
        self.model = model
        self.loss = loss
        self.lam = lam
        self.c = c
        self.sampler = sampler
        self.strategy = strategy
        self.nu = nu
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.mh_steps = mh_steps
        self.composition = composition
        self.supervised_factor = supervised_factor
        self.S_gibbs = S_gibbs
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.lda_init_sweeps = lda_init_sweeps
        self.predict_burn_in = predict_burn_in
        self.predict_samples = predict_samples
        self.n_snapshots = n_snapshots
        self.snapshot_every = snapshot_every
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_topics = n_topics
        self.n_iter = n_iter
        self.alpha = alpha
        self.beta = beta

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        # check_classifiers_train asks for 0.83 accuracy on rounded blobs: documents of 2-9
        # tokens over 2 words, where topic proportions (which discard the document's length)
        # allow at most about 0.85 (logistic regression on them reaches 0.81). The check's
        # other assertions still run.
        tags.classifier_tags.poor_score = True
        return tags

    # ------------------------------------------------------------------ inputs
    def _check_params(self) -> tuple[SupervisedLDA, int]:
        """The model to train and the training sweeps, every setting checked."""
        values, names = renamed(self)
        n_iter = values["max_iter"]
        check_own(self)
        model = self._model(values)   # the model's own checks: lam, nu, alpha, mh_steps, ...
        if model.lda_init_sweeps >= n_iter:
            raise ValueError(f"lda_init_sweeps = {model.lda_init_sweeps} leaves no supervised "
                             f"sweep in {names['max_iter']} = {n_iter}")
        if (self.n_snapshots - 1) * self.snapshot_every >= n_iter:
            raise ValueError(f"{names['max_iter']} = {n_iter} is too short for n_snapshots = "
                             f"{self.n_snapshots} taken snapshot_every = {self.snapshot_every} "
                             f"sweeps apart")
        return model, n_iter

    def _threads(self) -> int:
        if self.n_jobs is None:
            return 1
        return self.n_jobs if self.n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + self.n_jobs)

    def _model(self, values: dict[str, Any] | None = None) -> SupervisedLDA:
        """The model to train: ``model``, or the preset of ``loss`` and ``sampler`` with the
        settings of the parameters that set a model parameter (``_parameter_constraints``;
        None: the preset's default; ``_supervised_model``)."""
        values = renamed(self)[0] if values is None else values
        if self.model is not None:
            return self._given_model()
        settings = model_settings(self, values)
        loss, sampler = settings.pop("loss"), settings.pop("sampler")
        # a setting of another loss is refused whatever its value (the model would let one
        # equal to that loss's default pass)
        reads = LOSSES.get(loss).param_defaults()
        ignored = [f"{p}={getattr(self, p)!r} (loss={loss!r} does not use it)"
                   for p in loss_params(self) if getattr(self, p) is not None
                   and self._parameter_constraints[p].sets not in reads]
        if ignored:
            raise ValueError(f"{type(self).__name__} got a setting its loss does not read: "
                             f"{'; '.join(ignored)}")
        settings = {**LOSS_DEFAULTS.get(loss, {}), **settings}
        settings.setdefault("burn_in", values["max_iter"] // 2)
        return _supervised_model(loss, sampler, **settings)

    def _given_model(self) -> SupervisedLDA:
        """``model``, checked: a supervised classifier, and no model parameter set beside."""
        model = self.model
        if not isinstance(model, SupervisedLDA):
            got = f"the class {model.__name__}" if isinstance(model, type) \
                else type(model).__name__
            raise TypeError(f"model must be a supervised model instance such as "
                            f"LightMedLDA(K=20) or DOLDA(K=20), got {got}")
        if model.loss_function.targets != "signs":
            raise ValueError(f"model={type(model).__name__}(loss={model.loss!r}) models real "
                             f"responses: use SupervisedLDARegressor")
        set_here = set(given(self))
        both = [f"{p}={getattr(self, p)!r}" for p in model_params(self) if p in set_here]
        if both:
            raise ValueError(f"{type(self).__name__} got model= and {', '.join(both)}: the "
                             f"model's parameters come from the model, so these would be "
                             f"ignored; set them on it ({type(model).__name__}(K=..., ...)) "
                             f"or leave model=None")
        return model

    def _labels(self, X: Any, y: Any) -> tuple[Labels, LabelForm]:
        """The training labels, encoded by ``labels.make_labels`` (the one label parser)
        after scikit-learn's target checks, and the form they came in (``LabelForm``: the
        predictions go back in it); a labelled Corpus ``X``'s own if ``y`` is None. A pandas
        ``y`` beside pandas documents is aligned by index (``Corpus``'s rule)."""
        if isinstance(X, Corpus) and y is None:
            if X.labels is None or X.labels.kind == "real":
                raise ValueError("the classifier requires y to be passed, but the target y is "
                                 "None (and X is a Corpus without class labels)")
            return X.labels, LabelForm.of(X.labels, X.labels)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             f"is None")
        y = aligned(y, input_index(X), "y", "X")
        if isinstance(y, (Mapping, Set, str, bytes)):
            raise TypeError(f"y must be one label per document, in document order; got a "
                            f"{type(y).__name__}")
        if _one_set_per_document(y):
            labels = make_labels(y, len(y), kind="multilabel", name="y")
            return labels, LabelForm.of(y, labels)
        arr = _checked_targets(y, type(self).__name__)
        # a list goes as given, so make_labels refuses [1, "a"] before numpy makes "1" of the 1
        given = y if isinstance(y, (list, tuple)) and all(np.ndim(x) == 0 for x in y) else arr
        labels = make_labels(given, arr.shape[0], name="y")
        return labels, LabelForm.of(given, labels)

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any = None) -> "SupervisedLDAClassifier":
        """Train on documents ``X`` (count matrix, DataFrame of counts, texts, token lists or
        a Corpus) and labels ``y`` (class labels of any one type; for multi-label an
        indicator matrix or one set of labels per document). ``y`` may be omitted when ``X``
        is a labelled Corpus. A fit that fails leaves the estimator unfitted; Ctrl-C stops
        the sessions after their current block and leaves it unfitted too."""
        model, n_iter = self._check_params()
        self._unfit()
        try:
            return self._fit(_materialise(X), y, model, n_iter)
        except BaseException:
            self._unfit()   # validate_data may have set n_features_in_ before the failure
            raise

    def _fit(self, X: Any, y: Any, model: SupervisedLDA, n_iter: int
             ) -> "SupervisedLDAClassifier":
        labels, form = self._labels(X, y)
        corpus = self._documents(X, labels)
        named = self._names_words()
        seed = self._seed_of_random_state()
        corpora = [corpus]
        if self.strategy == "ovr" and labels.kind != "binary":
            corpora = [one_vs_rest(corpus, c) for c in range(labels.n_classes)]
        sessions = [Session(model, c, seed=_seed(seed, j)) for j, c in enumerate(corpora)]
        if len(sessions) > 1 and sessions[0].problem.n_tasks != 1:
            raise ValueError(f"strategy='ovr' trains one binary classifier per class, but "
                             f"{type(model).__name__} gives binary labels "
                             f"{sessions[0].problem.n_tasks} tasks: use 'multitask'")
        every = self.snapshot_every
        stopped = threading.Event()

        def train(s: Session) -> list[F32]:
            runs = [n_iter - (self.n_snapshots - 1) * every] + [every] * (self.n_snapshots - 1)
            snaps = []
            for n in runs:
                # the callback ends the run at the next sweep if the stop came between the
                # check and the run taking ownership (request_stop drops a stop made then)
                done = 0 if stopped.is_set() else \
                    s.run(n, callback=lambda _: not stopped.is_set())
                if stopped.is_set():
                    raise KeyboardInterrupt(f"{type(self).__name__}.fit was interrupted")
                snaps.append(s.topic_snapshot())
                if done < n:   # unstopped: the model's algorithm has ended (MCMedLDA's)
                    break
            return snaps

        pool = ThreadPoolExecutor(max_workers=self._threads())
        try:
            snapshots = list(pool.map(train, sessions))
        except KeyboardInterrupt:   # Ctrl-C in the waiting thread: stop every session
            stopped.set()
            for s in sessions:
                s.request_stop()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        self.corpus_ = corpus
        self.label_kind_ = labels.kind
        self.classes_ = form.classes
        self._form_ = form
        self.vocabulary_given_ = named
        self.random_state_ = seed
        self.snapshots_ = snapshots
        self.sessions_ = sessions
        # the task of all the labels: the one session's bound task, or for one-vs-all (each
        # session bound to one class against the rest) the labels' own
        self._task_ = sessions[0].problem.task if len(sessions) == 1 else \
            task_for(labels, model.loss_function.targets, type(model).__name__)
        self.n_iter_ = max(s.n_sweeps for s in sessions)   # scikit-learn's: sweeps run
        return self

    # ------------------------------------------------------------------ predict
    def _per_session(self, fn: Callable[[Session, list[F32], Rng], F64]) -> list[F64]:
        """``fn(session, snapshots, key)`` for every session, in threads, each with its own
        key so the result does not depend on ``n_jobs``."""
        def one(j: int) -> F64:
            s = self.sessions_[j]
            return fn(s, self.snapshots_[j], seed_state(self.random_state_, stream=1000 + j))
        with ThreadPoolExecutor(max_workers=self._threads()) as pool:
            return list(pool.map(one, range(len(self.sessions_))))

    def _scores(self, X: Any) -> tuple[F64, Corpus]:
        """The scores (n, T) of the documents of ``X`` (one-vs-all: its binary models' side
        by side), and their held-out corpus."""
        corpus = self._heldout_corpus(X)
        return np.hstack(self._per_session(
            lambda s, snaps, key: s.decision_function(
                corpus, self.predict_burn_in, self.predict_samples, snapshots=snaps,
                key=key))), corpus

    def _task(self) -> Task:
        """The task of the training labels, whose rule reads the scores (one-vs-all's too)."""
        return cast(Task, self._task_)

    def decision_function(self, X: Any) -> F64 | pd.Series | pd.DataFrame:
        """Scores: shape (n,) for binary labels, (n, C) otherwise (one column per class).

        For documents in a pandas Series or DataFrame, a Series (binary) or a DataFrame with
        a column per class, carrying X's index; an array for any other input."""
        scores, corpus = self._scores(X)
        scores = scores[:, 0] if scores.shape[1] == 1 else scores
        return _labelled(X, corpus, scores, self.classes_, "decision_function")

    def predict(self, X: Any) -> Any:
        """The labels by the task's rule (``Task.predict``: binary by the sign, multi-class
        by the argmax, multi-label the classes with a positive score; docs/math.md sec. 5), in
        the type they were given: for multi-label a 0/1 indicator matrix of ``y``'s dtype (or,
        if ``y`` gave one set per document, a list of tuples of labels).

        For documents in a pandas Series or DataFrame the same values come as a Series named
        ``"prediction"`` (multi-label: a DataFrame with a column per class, or a Series of
        tuples) carrying X's index, so they join back onto the user's frame; for any other
        input, an array (or the list of tuples) as scikit-learn gives them."""
        scores, corpus = self._scores(X)
        predicted = self._form_.give(self._task().predict(scores, self.classes_))
        return _labelled(X, corpus, predicted, self.classes_, "prediction")

    def transform(self, X: Any) -> F64 | pd.DataFrame:
        """Topic proportions of the documents by fold-in (averaged over the topic snapshots),
        (n, K); one-vs-all stacks the C models' proportions side by side, (n, C K).

        For documents in a pandas Series or DataFrame, a DataFrame with X's index and the
        columns of ``get_feature_names_out`` (so ``set_output(transform="pandas")`` and
        ``fit_transform`` keep the index too, texts in a Series included); an array for
        any other input (a DataFrame under ``set_output(transform="pandas")``)."""
        corpus = self._heldout_corpus(X)

        def proportions(s: Session, snaps: list[F32], key: Rng) -> F64:
            K = s.model.K   # the fitted model's, whatever set_params changed since
            return s.fold_in(corpus, self.predict_burn_in, self.predict_samples,
                             snapshots=snaps, key=key)[0][:, :K]
        return _labelled(X, corpus, np.hstack(self._per_session(proportions)),
                         self.get_feature_names_out())

    def get_feature_names_out(self, input_features: Any = None) -> Array:
        """Names of ``transform``'s columns: ``topic_k``, or ``<class>_topic_k`` per one-vs-all
        model (so ``set_output(transform="pandas")`` labels them)."""
        check_is_fitted(self)
        topics = [f"topic_{k}" for k in range(self.sessions_[0].model.K)]
        if len(self.sessions_) == 1:
            return np.asarray(topics, dtype=object)
        return np.asarray([f"{c}_{t}" for c in _names(self.classes_) for t in topics],
                          dtype=object)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The task's score of the predictions: accuracy (scikit-learn's, which also takes
        ``sample_weight`` and counts a class unseen in training as a miss), or for
        multi-label targets ``Task.score``'s micro-averaged F1 (``y`` in either multi-label
        form, read by ``make_labels`` onto the training classes)."""
        check_is_fitted(self)
        if self.label_kind_ != "multilabel":
            return super().score(X, y, sample_weight=sample_weight)
        if sample_weight is not None:
            raise ValueError("sample_weight is not supported for multi-label scores")
        scores, _ = self._scores(X)
        n = len(scores)
        if self._form_.form == "sets" and (isinstance(y, (str, bytes, Mapping, Set))
                                           or len(y) != n):
            raise ValueError(f"y must give one set of labels for each of the {n} documents")
        train = cast(Labels, self.corpus_.labels)   # the training corpus is labelled
        truth = make_labels(y, n, "multilabel", train.classes, name="y")
        task = self._task()
        return task.score(task.encode(truth), scores.T)

    @property
    def coefficients_(self) -> F64:
        """Averaged weights, (T, K + P) per session stacked: rows are classes."""
        check_is_fitted(self)
        return np.vstack([s.mean_weights() for s in self.sessions_])


class MedLDAClassifier(SupervisedLDAClassifier):
    """The max-margin classifier (Gibbs MedLDA or LightMedLDA): ``SupervisedLDAClassifier``
    under the name it had before the logistic loss arrived, with the same parameters (the
    hinge by default); ``loss="logistic"`` is better spelt ``SupervisedLDAClassifier``."""
