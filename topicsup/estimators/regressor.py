"""Regression: a real response per document predicted from its topic proportions (``SLDA``,
``MedLDARegression``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from .. import validation as check
from ..arrays import F64
from ..corpus import Corpus
from ..labels import Labels, aligned, input_index, make_labels
from ..models import FOLD_IN_BURN, FOLD_IN_KEEP, SupervisedLDA
from ._documents import _labelled
from ._one_session import _OneSession
from ._params import (DEPRECATED, FOLD_IN_BURN_IN, FOLD_IN_SAMPLES, RANDOM_STATE, SWEEPS,
                      TOPICS, VOCABULARY, Param, integer, loss_options, model_settings,
                      optional, options)
from .classifier import _supervised_model

if TYPE_CHECKING:
    from sklearn.utils import Tags


class SupervisedLDARegressor(   # scikit-learn ships no types: its bases are Any to mypy
        RegressorMixin, _OneSession, BaseEstimator):   # type: ignore[misc]
    """Supervised topic model regression: a real response per document predicted from its
    topic proportions (``SLDA``, or ``MedLDARegression`` with the epsilon-insensitive loss).

    Parameters
    ----------
    n_components : int
        Number of topics K (formerly ``n_topics``).
    loss : {"gaussian", "epsilon_insensitive"}
        A regression loss of ``topicsup.losses``: ``"gaussian"``, y ~ N(eta . zbar, sigma2)
        (Blei & McAuliffe 2007); ``"epsilon_insensitive"``, 2 lam max(0, |y - s| - eps)
        (Zheng et al. 2015 sec. 4.2).
    sigma2 : float
        The Gaussian response's variance (loss="gaussian").
    lam, eps : float
        The epsilon-insensitive loss's regularisation and tube half-width.
    nu : float
        Prior precision of the weights.
    doc_topic_prior : float, optional
        Document-topic Dirichlet parameter alpha (default 6.4 / K; formerly ``alpha``).
    topic_word_prior : float
        Topic-word Dirichlet parameter beta (formerly ``beta``).
    sampler : {"gibbs", "light"}
        Exact collapsed Gibbs topics with Cholesky weights, or the light sampler's
        Metropolis-Hastings proposals with coordinate-Gibbs weights.
    max_iter : int
        Training sweeps (formerly ``n_iter``).
    burn_in : int, optional
        Sweeps before weight samples are averaged (default ``max_iter // 2``).
    predict_burn_in, predict_samples : int
        Fold-in sweeps on held-out documents before and while their proportions are averaged.
    vocabulary : sequence of str, optional
        Word names of the count matrix columns (by default a DataFrame's column names).
    random_state : int or None
        Seed (``None`` draws one; a ``RandomState`` or ``Generator`` gives one draw).
    n_topics, n_iter, alpha, beta
        Deprecated: the old names of ``n_components``, ``max_iter``, ``doc_topic_prior`` and
        ``topic_word_prior``, which work with a ``FutureWarning`` until the next release.

    Attributes
    ----------
    session_ : Session
        The fitted chain.
    corpus_ : Corpus
        The training corpus.
    coef_ : ndarray (K,)
        The averaged topic weights.
    n_iter_ : int
        Sweeps run.
    """

    # every parameter, declared once (``estimators._params``)
    _parameter_constraints: ClassVar[dict[str, Param]] = {
        "n_components": TOPICS,
        "loss": Param("loss", loss_options("values")),
        "sigma2": Param("sigma2"),   # the losses' settings: the model refuses one its loss
        "lam": Param("lam"),         # would ignore
        "eps": Param("eps"),
        "nu": Param("nu"),
        "doc_topic_prior": Param("alpha"),
        "topic_word_prior": Param("beta"),
        "sampler": Param("sampler", options("gibbs", "light")),
        "max_iter": SWEEPS,
        "burn_in": Param("burn_in", optional(integer(0, check.INT32_MAX))),
        "predict_burn_in": FOLD_IN_BURN_IN,
        "predict_samples": FOLD_IN_SAMPLES,
        "vocabulary": VOCABULARY,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, n_components: int = 20, *, loss: str = "gaussian", sigma2: float = 1.0,
                 lam: float = 1.0, eps: float = 0.1, nu: float = 1.0,
                 doc_topic_prior: float | None = None, topic_word_prior: float = 0.01,
                 sampler: str = "gibbs", max_iter: int = 50, burn_in: int | None = None,
                 predict_burn_in: int = FOLD_IN_BURN, predict_samples: int = FOLD_IN_KEEP,
                 vocabulary: Any = None, random_state: int | None = 0,
                 n_topics: Any = DEPRECATED, n_iter: Any = DEPRECATED, alpha: Any = DEPRECATED,
                 beta: Any = DEPRECATED) -> None:
        self.n_components = n_components
        self.loss = loss
        self.sigma2 = sigma2
        self.lam = lam
        self.eps = eps
        self.nu = nu
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.sampler = sampler
        self.max_iter = max_iter
        self.burn_in = burn_in
        self.predict_burn_in = predict_burn_in
        self.predict_samples = predict_samples
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.n_topics = n_topics
        self.n_iter = n_iter
        self.alpha = alpha
        self.beta = beta

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        # scikit-learn's regressor checks fit responses of a few random numeric features;
        # topic proportions of such tiny documents explain little of them
        tags.regressor_tags.poor_score = True
        return tags

    def _model(self, values: dict[str, Any]) -> SupervisedLDA:
        # every loss setting goes to the model, which refuses one its loss would ignore
        # (SupervisedLDARegressor(lam=5.0) with loss="gaussian")
        settings = model_settings(self, values)
        loss, sampler = settings.pop("loss"), settings.pop("sampler")
        settings.setdefault("burn_in", values["max_iter"] // 2)
        return _supervised_model(loss, sampler, **settings)

    def fit(self, X: Any, y: Any = None) -> "SupervisedLDARegressor":
        """Train on documents ``X`` and real responses ``y`` (one per document; omitted when
        ``X`` is a Corpus with real labels). A fit that fails leaves it unfitted."""

        def responses(X: Any) -> Labels:
            if isinstance(X, Corpus) and y is None:
                if X.labels is None or X.labels.kind != "real":
                    raise ValueError("y is None and the Corpus X has no real labels")
                return X.labels
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the "
                                 f"target y is None")
            # a pandas y beside pandas documents is aligned by index (Corpus's rule)
            values = column_or_1d(check_array(aligned(y, input_index(X), "y", "X"),
                                              ensure_2d=False, dtype=np.float64,
                                              input_name="y"), warn=True)
            if len(values) < 2:
                raise ValueError(f"{type(self).__name__} needs at least 2 samples to learn a "
                                 f"regression; got n_samples = {len(values)}")
            return make_labels(values, len(values), "real", name="y")

        return self._fit_session(X, responses)

    def predict(self, X: Any) -> F64 | pd.Series:
        """The predicted responses (n,): the averaged weights on the fold-in proportions
        (``Task.predict`` of the responses' task); a Series named ``"prediction"`` with X's
        index for a pandas Series or DataFrame."""
        model, features, corpus = self._folded_in(X)
        task = self.session_.problem.task
        assert task is not None   # a regressor's session is supervised
        y = task.predict(self.session_.decision_scores(features), ())
        return _labelled(X, corpus, y, name="prediction")

    @property
    def coef_(self) -> F64:
        check_is_fitted(self)
        return self.session_.mean_weights()[0]
