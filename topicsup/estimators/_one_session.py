"""What the regressor and the LDA transformer share: an estimator over one Session."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..arrays import Array, F64
from ..corpus import Corpus
from ..kernels.rng import seed_state
from ..labels import Labels
from ..models import LDA, Model
from ..session import Session
from ._documents import _Documents, _labelled, _materialise
from ._params import check_own, renamed


class _OneSession(TransformerMixin, _Documents):   # type: ignore[misc]  # sklearn: untyped
    """An estimator over one Session: documents in, the model sampled ``max_iter`` sweeps,
    held-out documents folded in (``predict_burn_in`` + ``predict_samples`` sweeps) on their
    own streams."""

    if TYPE_CHECKING:
        def _model(self, values: dict[str, Any]) -> LDA: ...   # each estimator's own

    def _fit_session(self, X: Any, labels: Callable[[Any], Labels | None]) -> "_OneSession":
        """Sample ``_model`` on the documents of ``X`` with ``labels`` (a callable of the
        materialised X giving Labels or None); all or nothing."""
        values, _ = renamed(self)
        check_own(self)
        model = self._model(values)
        self._unfit()
        try:
            X = _materialise(X)
            corpus = self._documents(X, labels(X))
            if corpus.n_tokens == 0:
                raise ValueError("X has no words: every document is empty")
            session = Session(model, corpus, seed=self._seed_of_random_state())
            if session.run(values["max_iter"]) < values["max_iter"]:
                raise KeyboardInterrupt(f"{type(self).__name__}.fit was interrupted")
            self.vocabulary_given_ = self._names_words()
            self.corpus_ = corpus
            self.session_ = session
            self.random_state_ = session.seed
            self.n_iter_ = session.n_sweeps   # scikit-learn's name for the sweeps run
            return self
        except BaseException:
            self._unfit()
            raise

    def _folded_in(self, X: Any) -> tuple[Model, F64, Corpus]:
        """The fitted model, the features of the documents of ``X`` by fold-in, and their
        held-out corpus (its ``index`` labels the outputs of a pandas X)."""
        corpus = self._heldout_corpus(X)
        s = self.session_
        features, corpus = s.fold_in(corpus, self.predict_burn_in, self.predict_samples,
                                     key=seed_state(self.random_state_, 1000))
        return s.model, features, corpus

    def transform(self, X: Any) -> F64 | pd.DataFrame:
        """Topic proportions of the documents by fold-in, (n, K): a DataFrame with X's index
        (columns ``get_feature_names_out``) for a pandas Series or DataFrame, so
        ``set_output(transform="pandas")`` and ``fit_transform`` keep it; else an array."""
        model, features, corpus = self._folded_in(X)
        return _labelled(X, corpus, features[:, :model.K], self.get_feature_names_out())

    def get_feature_names_out(self, input_features: Any = None) -> Array:
        """``topic_k`` for transform's columns (so ``set_output(transform="pandas")`` names
        them)."""
        check_is_fitted(self)
        return np.asarray([f"topic_{k}" for k in range(self.session_.model.K)], dtype=object)
