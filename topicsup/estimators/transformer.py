"""Latent Dirichlet allocation as a scikit-learn transformer."""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd
from sklearn.base import BaseEstimator

from ..arrays import F64
from ..models import FOLD_IN_BURN, FOLD_IN_KEEP, LDA
from ._documents import _labelled
from ._one_session import _OneSession
from ._params import (DEPRECATED, FOLD_IN_BURN_IN, FOLD_IN_SAMPLES, RANDOM_STATE, SWEEPS,
                      TOPICS, VOCABULARY, Param, model_settings)


class LDATransformer(_OneSession, BaseEstimator):   # type: ignore[misc]  # sklearn: untyped
    """Latent Dirichlet allocation as a scikit-learn transformer: ``fit`` samples the topics,
    ``transform`` gives documents' topic proportions by fold-in, ``components_`` the topics
    (as the ``lda`` package and ``sklearn.decomposition.LatentDirichletAllocation`` do),
    ``perplexity`` the held-out perplexity by document completion, and ``score`` minus it, so
    ``GridSearchCV`` can choose ``n_components`` (``topicsup.search.search_k`` sets more
    measures side by side).

    Parameters
    ----------
    n_components : int
        Number of topics K (formerly ``n_topics``).
    doc_topic_prior, topic_word_prior : float
        Dirichlet parameters alpha and beta (formerly ``alpha`` and ``beta``).
    sampler : str
        The topic sampler, by name: any in ``topicsup.samplers.REGISTRY`` (LDA's ``sampler``;
        default ``"gibbs"``).
    max_iter : int
        Sweeps (formerly ``n_iter``).
    predict_burn_in, predict_samples : int
        Fold-in sweeps before and while the proportions are averaged.
    vocabulary : sequence of str, optional
        Word names of the count matrix columns.
    random_state : int or None
        Seed.
    n_topics, n_iter, alpha, beta
        Deprecated: the old names of ``n_components``, ``max_iter``, ``doc_topic_prior`` and
        ``topic_word_prior``, which work with a ``FutureWarning`` until the next release.

    Attributes
    ----------
    components_ : ndarray (K, V)
        The topics phi[k, w] = (n_kw + beta) / (n_k + V beta) (rows sum to one).
    doc_topic_ : ndarray (D, K)
        The training documents' proportions from the final state.
    session_ : Session
        The fitted chain.
    n_iter_ : int
        Sweeps run.
    """

    # every parameter, declared once (``estimators._params``); the model checks its own
    _parameter_constraints: ClassVar[dict[str, Param]] = {
        "n_components": TOPICS,
        "doc_topic_prior": Param("alpha"),
        "topic_word_prior": Param("beta"),
        "sampler": Param("sampler"),
        "max_iter": SWEEPS,
        "predict_burn_in": FOLD_IN_BURN_IN,
        "predict_samples": FOLD_IN_SAMPLES,
        "vocabulary": VOCABULARY,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, n_components: int = 10, *, doc_topic_prior: float = 0.1,
                 topic_word_prior: float = 0.01, sampler: str = "gibbs", max_iter: int = 50,
                 predict_burn_in: int = FOLD_IN_BURN, predict_samples: int = FOLD_IN_KEEP,
                 vocabulary: Any = None, random_state: int | None = 0,
                 n_topics: Any = DEPRECATED, n_iter: Any = DEPRECATED, alpha: Any = DEPRECATED,
                 beta: Any = DEPRECATED) -> None:
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.sampler = sampler
        self.max_iter = max_iter
        self.predict_burn_in = predict_burn_in
        self.predict_samples = predict_samples
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.n_topics = n_topics
        self.n_iter = n_iter
        self.alpha = alpha
        self.beta = beta

    def _model(self, values: dict[str, Any]) -> LDA:
        return LDA(**model_settings(self, values))

    def fit(self, X: Any, y: Any = None) -> "LDATransformer":
        """Sample the topics of documents ``X`` (``y`` is ignored)."""
        self._fit_session(X, lambda X: None)
        self.components_ = self.session_.topic_word()
        self.doc_topic_ = self.session_.doc_topics(as_frame=False)
        return self

    def transform(self, X: Any) -> F64 | pd.DataFrame:
        """Topic proportions of the documents by fold-in, (n, K), rows summing to one: a
        document with no word of the vocabulary gets the prior mean alpha / sum(alpha)
        (``LDA.fold_in``). A DataFrame with X's index for a pandas Series or DataFrame
        (columns ``get_feature_names_out``), else an array."""
        _, features, corpus = self._folded_in(X)
        return _labelled(X, corpus, features, self.get_feature_names_out())

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the held-out perplexity of the documents of ``X`` (``Session.perplexity``:
        half of each document's tokens folded in, the other half scored), so that higher is
        better, as ``GridSearchCV`` needs to choose ``n_components`` (scikit-learn's
        ``LatentDirichletAllocation.score`` is an approximate log likelihood: also higher is
        better, on another scale). The perplexity rather than a log likelihood summed over
        the scored tokens: it is the one held-out measure the Session defines, and per token
        it compares test folds of any size; ``y`` is ignored."""
        return -self.perplexity(X)

    def perplexity(self, X: Any) -> float:
        """Held-out perplexity of the documents of ``X`` by document completion,
        exp(-log likelihood per scored token) (``Session.perplexity``): half of each
        document's tokens, drawn at random, folded in on the fitted topics
        (``predict_burn_in`` + ``predict_samples`` sweeps), the other half scored; lower is
        better, and ``score`` is its negative.
        scikit-learn's ``LatentDirichletAllocation.perplexity`` is exp(-bound per word) of a
        variational bound on all the words, so the two are on different scales; compare
        perplexities of this estimator with each other only. The documents come in any form
        ``transform`` takes; a document needs 2 known words to be scored (none with 2 is a
        ``ValueError``). The same documents give the same value (the fold-in's streams are
        seeded by ``random_state_``)."""
        corpus = self._heldout_corpus(X)
        return self.session_.perplexity(corpus, self.predict_burn_in, self.predict_samples,
                                        seed=self.random_state_)
