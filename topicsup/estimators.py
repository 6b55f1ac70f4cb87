"""scikit-learn estimators for the supervised presets: ``fit`` / ``predict`` / ``transform``.

``MedLDAClassifier`` trains Gibbs MedLDA or LightMedLDA on a document-term count matrix (the
output of ``CountVectorizer``, so it sits at the end of a ``Pipeline``), on raw texts, on
token lists or on a ``Corpus``. Under the hood each fit is one ``Session`` (multi-task) or
one per class (one-vs-all), kept in ``sessions_`` for inspection with the usual views.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

from .corpus import Corpus, Labels, make_labels
from .kernels.rng import seed_state
from .models import LightMedLDA, MedLDA, SupervisedLDA, micro_f1
from .session import Session

STRATEGIES = ("multitask", "ovr")


def _seed(random_state: int, *stream: int) -> int:
    return int(np.random.SeedSequence([random_state, *stream]).generate_state(1)[0])


def one_vs_rest(corpus: Corpus, c: int) -> Corpus:
    """The corpus with binary labels: class ``c`` (positive) against the rest."""
    lab = corpus.labels
    pos = lab.values[:, c] if lab.kind == "multilabel" else lab.values == c
    return dataclasses.replace(corpus, labels=Labels("binary", pos.astype(np.int32),
                                                     ("rest", lab.classes[c])))


class MedLDAClassifier(ClassifierMixin, TransformerMixin, BaseEstimator):
    """Max-margin supervised topic model classifier (Gibbs MedLDA or LightMedLDA).

    Parameters
    ----------
    n_topics : int
        Number of topics K.
    sampler : {"light", "gibbs"}
        ``"light"``: the ``LightMedLDA`` preset (doc and word MH proposals, the hinge itself
        in their ratios, coordinate weights); ``"gibbs"``: the ``MedLDA`` preset (exact Gibbs
        topics, Cholesky weights).
    strategy : {"multitask", "ovr"}
        Multi-class or multi-label labels: one model with a classifier per class on shared
        topics, or one binary model per class (one-vs-all, trained in parallel threads with
        ``n_jobs``). Binary labels always train one model.
    lam : float
        Hinge regularisation constant lambda.
    nu : float
        Prior precision of the weights.
    alpha : float, optional
        Document-topic Dirichlet parameter (default 6.4 / K).
    beta : float
        Topic-word Dirichlet parameter.
    mh_steps : int, optional
        MH steps per token for the light sampler (default 6).
    composition : {"mixture", "cycle"}, optional
        How the light sampler composes its proposals (default: the preset's, cycle).
    supervised_factor : {"marginal", "augmented"}, optional
        The label term the topics see: the hinge itself or the augmentation's Gaussian
        factor (``SupervisedLDA.supervised_factor``; default: the preset's, marginal for
        LightMedLDA and augmented for MedLDA).
    S_gibbs : int
        Coordinate-Gibbs passes over the weights per sweep (light sampler).
    n_iter : int
        Training sweeps (the LDA initialisation included).
    lda_init_sweeps : int
        Sweeps of plain LDA that start each model before the supervised ones
        (``SupervisedLDA.lda_init_sweeps``).
    burn_in : int, optional
        Sweeps before weight samples are averaged for prediction (default ``n_iter // 2``).
    predict_burn_in, predict_samples : int
        Fold-in sweeps on held-out documents before and while their topic proportions are
        averaged.
    n_snapshots, snapshot_every : int
        Topic snapshots kept from the last training sweeps, ``snapshot_every`` sweeps apart;
        predictions average the scores of one fold-in per snapshot
        (``SupervisedLDA.ensemble_scores``).
    vocabulary : sequence of str, optional
        Word names of the count matrix columns (e.g. ``vectorizer.get_feature_names_out()``).
    random_state : int
        Seed: the same seed gives the same model, whatever ``n_jobs``.
    n_jobs : int
        Threads for one-vs-all training and prediction.

    Attributes
    ----------
    classes_ : ndarray of class names
    sessions_ : list of Session
        One (multi-task, binary) or one per class (one-vs-all).
    corpus_ : Corpus
        The training corpus (its vocabulary maps new documents).
    """

    def __init__(self, n_topics: int = 20, *, sampler: str = "light",
                 strategy: str = "multitask", lam: float = 102.4, nu: float = 1.0,
                 alpha: float | None = None, beta: float = 0.01, mh_steps: int | None = None,
                 composition: str | None = None, supervised_factor: str | None = None,
                 S_gibbs: int = 2, n_iter: int = 30,
                 burn_in: int | None = None, lda_init_sweeps: int = 0,
                 predict_burn_in: int = 10,
                 predict_samples: int = 10, n_snapshots: int = 1, snapshot_every: int = 2,
                 vocabulary: Any = None, random_state: int = 0, n_jobs: int = 1) -> None:
        self.n_topics = n_topics
        self.sampler = sampler
        self.strategy = strategy
        self.lam = lam
        self.nu = nu
        self.alpha = alpha
        self.beta = beta
        self.mh_steps = mh_steps
        self.composition = composition
        self.supervised_factor = supervised_factor
        self.S_gibbs = S_gibbs
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.lda_init_sweeps = lda_init_sweeps
        self.predict_burn_in = predict_burn_in
        self.predict_samples = predict_samples
        self.n_snapshots = n_snapshots
        self.snapshot_every = snapshot_every
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ inputs
    def _check_params(self) -> None:
        if self.sampler not in ("light", "gibbs"):
            raise ValueError(f"sampler must be 'light' or 'gibbs', got {self.sampler!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {self.strategy!r}")
        for name in ("n_iter", "predict_burn_in", "predict_samples", "n_snapshots",
                     "snapshot_every", "n_jobs"):
            v = getattr(self, name)
            low = 0 if name == "predict_burn_in" else 1
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
        if isinstance(self.lda_init_sweeps, (int, np.integer)) \
                and not isinstance(self.lda_init_sweeps, bool) \
                and self.lda_init_sweeps >= self.n_iter:
            raise ValueError(f"lda_init_sweeps = {self.lda_init_sweeps} leaves no supervised "
                             f"sweep in n_iter = {self.n_iter}")
        if (self.n_snapshots - 1) * self.snapshot_every >= self.n_iter:
            raise ValueError(f"n_iter = {self.n_iter} is too short for n_snapshots = "
                             f"{self.n_snapshots} taken snapshot_every = {self.snapshot_every} "
                             f"sweeps apart")

    def _model(self) -> SupervisedLDA:
        cls = LightMedLDA if self.sampler == "light" else MedLDA
        kw: dict[str, Any] = dict(K=self.n_topics, lam=self.lam, nu=self.nu, alpha=self.alpha,
                                  beta=self.beta, S_gibbs=self.S_gibbs,
                                  burn_in=self.n_iter // 2 if self.burn_in is None
                                  else self.burn_in, lda_init_sweeps=self.lda_init_sweeps)
        if self.mh_steps is not None:
            kw["mh_steps"] = self.mh_steps
        if self.composition is not None:
            kw["composition"] = self.composition
        if self.supervised_factor is not None:
            kw["supervised_factor"] = self.supervised_factor
        return cls(**kw)

    def _training_corpus(self, X: Any, y: Any) -> Corpus:
        if y is None:
            raise ValueError("y (one label per document) is required to fit a classifier")
        if isinstance(X, Corpus):
            return dataclasses.replace(X, labels=make_labels(y, X.n_docs))
        if sp.issparse(X) or (isinstance(X, np.ndarray) and X.ndim == 2):
            n_cols = X.shape[1]
            vocab = list(self.vocabulary) if self.vocabulary is not None \
                else [f"w{j}" for j in range(n_cols)]
            if len(vocab) != n_cols:
                raise ValueError(f"vocabulary has {len(vocab)} words but X has {n_cols} "
                                 f"columns")
            return Corpus.from_matrix(X, vocab, y, empty="keep")
        docs = list(X)
        if docs and all(isinstance(d, str) for d in docs):
            return Corpus.from_texts(docs, y, empty="keep")
        return Corpus.from_tokens(docs, y, empty="keep")

    def _heldout_corpus(self, X: Any) -> Corpus:
        self._check_fitted()
        return self.corpus_.heldout(X)

    def _check_fitted(self) -> None:
        if not hasattr(self, "sessions_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit first")

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> "MedLDAClassifier":
        """Train on documents ``X`` (count matrix, texts, token lists or Corpus) and labels
        ``y`` (class names; for multi-label an indicator matrix or one set per document)."""
        self._check_params()
        corpus = self._training_corpus(X, y)
        if corpus.labels.kind == "real":
            raise ValueError("y looks real-valued; MedLDAClassifier needs class labels")
        self.corpus_ = corpus
        self.label_kind_ = corpus.labels.kind
        self.classes_ = np.asarray(corpus.labels.classes, dtype=object)
        model = self._model()
        if self.strategy == "ovr" and corpus.labels.kind != "binary":
            corpora = [one_vs_rest(corpus, c) for c in range(len(self.classes_))]
        else:
            corpora = [corpus]
        sessions = [Session(model, c, seed=_seed(self.random_state, j))
                    for j, c in enumerate(corpora)]
        every = self.snapshot_every

        def train(s: Session) -> list[np.ndarray]:
            s.run(self.n_iter - (self.n_snapshots - 1) * every)
            snaps = [s.model.topic_snapshot(s.state)]
            for _ in range(self.n_snapshots - 1):
                s.run(every)
                snaps.append(s.model.topic_snapshot(s.state))
            return snaps

        with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
            self.snapshots_ = list(pool.map(train, sessions))
        self.sessions_ = sessions
        return self

    # ------------------------------------------------------------------ predict
    def _per_session(self, fn) -> list[np.ndarray]:
        """``fn(session, snapshots, rng)`` for every session, in threads, each with its own
        rng stream so the result does not depend on ``n_jobs``."""
        def one(j: int) -> np.ndarray:
            s = self.sessions_[j]
            with s._lock:
                return fn(s, self.snapshots_[j], seed_state(self.random_state, stream=1000 + j))
        with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
            return list(pool.map(one, range(len(self.sessions_))))

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores: shape (n,) for binary labels, (n, C) otherwise (one column per class)."""
        corpus = self._heldout_corpus(X)
        scores = np.hstack(self._per_session(
            lambda s, snaps, rng: s.model.ensemble_scores(
                s.state, corpus, rng, snaps, self.predict_burn_in, self.predict_samples)))
        return scores[:, 0] if self.label_kind_ == "binary" else scores

    def predict(self, X: Any) -> np.ndarray:
        """Class names (binary: sign rule; multi-class: argmax), or for multi-label a (n, C)
        0/1 indicator matrix of the classes with a positive score (MATH.md sec. 5)."""
        s = self.decision_function(X)
        return SupervisedLDA.predict_labels(s[:, None] if s.ndim == 1 else s,
                                            self.label_kind_, self.classes_)

    def transform(self, X: Any) -> np.ndarray:
        """Topic proportions of the documents by fold-in (averaged over the topic snapshots),
        (n, K); one-vs-all stacks the C models' proportions side by side, (n, C K)."""
        corpus = self._heldout_corpus(X)

        def proportions(s: Session, snaps: list[np.ndarray], rng: np.ndarray) -> np.ndarray:
            return sum(s.model.fold_in(s.state, corpus, rng, self.predict_burn_in,
                                       self.predict_samples, phi)[:, :self.n_topics]
                       for phi in snaps) / len(snaps)
        return np.hstack(self._per_session(proportions))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, or micro-averaged F1 for multi-label targets."""
        if self.label_kind_ != "multilabel":
            return super().score(X, y, sample_weight=sample_weight)
        truth = make_labels(y, len(y) if not hasattr(y, "shape") else y.shape[0],
                            kind="multilabel", classes=list(self.classes_)).values.astype(bool)
        return micro_f1(truth, self.predict(X).astype(bool))

    @property
    def coefficients_(self) -> np.ndarray:
        """Averaged weights, (T, K + P) per session stacked: rows are classes."""
        self._check_fitted()
        return np.vstack([s.model.coefficients(s.state) for s in self.sessions_])
