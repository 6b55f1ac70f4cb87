"""What every topicsup estimator shares: documents in any of the accepted forms (a count
matrix, a DataFrame of counts, texts, token lists or a Corpus) turned into a Corpus, the same
way in ``fit`` and in prediction; per-document outputs labelled with a pandas input's index;
the labels' checks; an all-or-nothing fit; the seed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, check_non_negative, column_or_1d, \
    validate_data

from ..arrays import Array
from ..corpus import Corpus
from ..labels import Labels, input_index, is_pandas
from ..text import are_texts, check_vocabulary
from ._params import check_own

if TYPE_CHECKING:
    from sklearn.utils import Tags

SPARSE_FORMATS = ("csr", "csc", "coo")


def _seed(random_state: int, *stream: int) -> int:
    return int(np.random.SeedSequence([random_state, *stream]).generate_state(1)[0])


def one_vs_rest(corpus: Corpus, c: int) -> Corpus:
    """The corpus with binary labels: class ``c`` (positive) against the rest."""
    lab = cast(Labels, corpus.labels)   # a classifier's training corpus is labelled
    pos = lab.values[:, c] if lab.kind == "multilabel" else lab.values == c
    return dataclasses.replace(corpus, labels=Labels("binary", pos.astype(np.int32),
                                                     ("rest", lab.classes[c])))


def _is_documents(X: Any) -> bool:
    """Texts, token lists or a Corpus (as opposed to a count matrix)."""
    if isinstance(X, Corpus):
        return True
    if isinstance(X, (np.ndarray, pd.Series)) and X.ndim == 1:   # texts as an array/Series
        return len(X) > 0 and X.dtype.kind not in "biufc" and isinstance(
            X[0] if isinstance(X, np.ndarray) else X.iloc[0], (str, list, tuple))
    if sp.issparse(X) or isinstance(X, (np.ndarray, pd.DataFrame)) or hasattr(X, "__array__"):
        return False
    if isinstance(X, (str, bytes, Mapping, Set)) or not isinstance(X, (list, tuple)):
        return False
    if any(isinstance(d, str) for d in X):
        return True
    # token lists: some document has a str token (empty documents among them are fine)
    return all(isinstance(d, (list, tuple)) for d in X) and any(
        isinstance(t, str) for d in X for t in d[:1])


def _materialise(X: Any) -> Any:
    """An iterator or generator of documents as a list (read once, not partly consumed by
    the checks that decide what X is)."""
    if isinstance(X, Iterator) or (isinstance(X, Iterable) and not isinstance(
            X, (Sequence, np.ndarray, pd.Series, pd.DataFrame, Corpus, str, bytes, Mapping,
                Set)) and not sp.issparse(X) and not hasattr(X, "__array__")):
        return list(X)
    return X


def _labelled(X: Any, corpus: Corpus, values: Any, columns: Any = None,
              name: str | None = None) -> Any:
    """Per-document ``values`` for the documents of ``X``: for a pandas Series or DataFrame, a
    Series (one value, or one tuple of labels, per document) or a DataFrame with ``columns``
    carrying X's index (``corpus.index``), so they join back onto the user's frame; for any
    other input the values as they are (arrays, as scikit-learn gives them)."""
    if not is_pandas(X):
        return values
    if isinstance(values, list):
        return pd.Series(values, index=corpus.index, dtype=object, name=name)
    if values.ndim == 1:
        return pd.Series(values, index=corpus.index, name=name)
    return pd.DataFrame(values, index=corpus.index, columns=columns)


def _names(classes: Array) -> tuple[str, ...]:
    """Distinct display names of classes (their text; their repr if two texts coincide)."""
    names = tuple(str(c) for c in classes)
    return names if len(set(names)) == len(names) else tuple(repr(c) for c in classes)


def _one_set_per_document(y: Any) -> bool:
    """Whether ``y`` gives each document a collection of class names (sets, or lists of
    names) rather than one label each or the rows of a 0/1 matrix (lists of ints)."""
    seq = y.tolist() if isinstance(y, (pd.Series, pd.Index)) else y
    return isinstance(seq, (list, tuple)) and len(seq) > 0 and all(
        isinstance(x, (set, frozenset)) or (isinstance(x, (list, tuple)) and not all(
            isinstance(c, (int, np.integer)) for c in x)) for x in seq)


def _checked_targets(y: Any, who: str) -> Array:
    """Labels or a 0/1 indicator matrix as an array checked as scikit-learn checks
    classification targets (``check_classification_targets``; a column vector flattened with
    a ``DataConversionWarning``), of at least two classes."""
    if isinstance(y, pd.DataFrame):
        y = y.to_numpy()
    try:
        y = y.toarray() if sp.issparse(y) else np.asarray(y)
    except ValueError:
        raise ValueError("y must be one label per document, a 0/1 matrix with a column per "
                         "class, or one set of labels per document; its rows have different "
                         "lengths") from None
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError("y has no columns: a multi-label indicator matrix needs a column per "
                         "class")
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    kind = type_of_target(y, input_name="y")
    if kind not in ("binary", "multiclass", "multilabel-indicator"):
        raise ValueError(f"{who} does not support {kind} targets: y must be class labels "
                         f"(binary or multi-class) or a multi-label indicator matrix")
    if y.shape[0] == 0:
        raise ValueError("y is empty: there are no documents to train on")
    if kind != "multilabel-indicator" and len(set(y.tolist())) < 2:
        raise ValueError(f"{who} needs samples of at least 2 classes in the data, but the data "
                         f"contains only one class: {y.tolist()[0]!r}")
    return y


class _Documents:
    """What every topicsup estimator shares: documents in any of the accepted forms (a count
    matrix, a DataFrame of counts, texts, token lists or a Corpus) turned into a Corpus, the
    same way in ``fit`` and in prediction; an all-or-nothing fit; the seed."""

    # the estimators' parameters (their __init__ sets them) and fitted state it reads
    vocabulary: Any
    random_state: Any
    corpus_: Corpus
    vocabulary_given_: bool

    def __sklearn_tags__(self) -> Tags:
        # super(): scikit-learn's BaseEstimator, after this mixin in every estimator's bases
        # (untyped, as scikit-learn is)
        tags = cast(Any, super()).__sklearn_tags__()
        tags.input_tags.sparse = True           # CountVectorizer's output
        tags.input_tags.positive_only = True    # counts
        # Counts are non-negative integers. "categorical" is the one input tag that makes
        # scikit-learn's own checks generate integer X (they round it); no code outside
        # sklearn.utils.estimator_checks reads it. Without it, 37 checks would feed only
        # real-valued X, which this model refuses by its nature, and test nothing else.
        tags.input_tags.categorical = True
        return tags

    def _counts(self, X: Any, reset: bool) -> Any:
        """A count matrix checked as scikit-learn checks inputs (and, on ``reset``, its
        ``n_features_in_`` and ``feature_names_in_`` recorded)."""
        X = validate_data(self, X, reset=reset, accept_sparse=SPARSE_FORMATS, dtype="numeric")
        check_non_negative(X, f"{type(self).__name__} (input X)")
        return X

    def _documents(self, X: Any, labels: Labels | None) -> Corpus:
        """The training corpus of ``X`` with ``labels``; sets ``n_features_in_`` (and
        ``feature_names_in_``) for a count matrix."""
        n = None if labels is None else len(labels.values)
        if isinstance(X, Corpus) or _is_documents(X):
            vocab: Sequence[str] | None = (None if self.vocabulary is None
                                           else check_vocabulary(self.vocabulary))
            if isinstance(X, Corpus):
                if vocab is not None and vocab != X.vocabulary:
                    raise ValueError("vocabulary differs from the vocabulary of the Corpus X; "
                                     "leave it None to use the Corpus's")
                corpus = X
            else:
                docs = list(X)
                build = Corpus.from_texts if are_texts(docs) else Corpus.from_tokens
                # a Series lends the corpus its index
                corpus = build(X if is_pandas(X) else docs, vocabulary=vocab, empty="keep")
            if n is not None and corpus.n_docs != n:
                raise ValueError(f"y has {n} labels but X has {corpus.n_docs} documents")
            return dataclasses.replace(corpus, labels=labels)
        index = input_index(X)
        X = self._counts(X, reset=True)
        if n is not None and X.shape[0] != n:
            raise ValueError(f"y has {n} labels but X has {X.shape[0]} rows")
        n_cols = X.shape[1]
        if self.vocabulary is not None:
            vocab = list(check_vocabulary(self.vocabulary))
        elif hasattr(self, "feature_names_in_"):
            vocab = [str(c) for c in self.feature_names_in_]
        else:
            vocab = [f"w{j}" for j in range(n_cols)]
        if len(vocab) != n_cols:
            raise ValueError(f"vocabulary has {len(vocab)} words but X has {n_cols} columns")
        corpus = Corpus.from_matrix(X, vocab, empty="keep")
        # validate_data gave an array: the DataFrame's index goes back on its documents
        return dataclasses.replace(corpus, labels=labels,
                                   index=corpus.index if index is None else index)

    def _names_words(self) -> bool:
        """Whether the fitted columns have word names (texts can then be mapped onto them)."""
        return self.vocabulary is not None or hasattr(self, "feature_names_in_") \
            or not hasattr(self, "n_features_in_")

    def _seed_of_random_state(self) -> int:
        rs = self.random_state
        if rs is None:
            return int(np.random.SeedSequence().generate_state(1)[0])
        if isinstance(rs, np.random.RandomState):
            return int(rs.randint(0, 2**31 - 1))
        if isinstance(rs, np.random.Generator):
            return int(rs.integers(0, 2**63 - 1))
        return int(rs)

    def _unfit(self) -> None:
        """Forget a previous fit, so a fit that fails leaves the estimator unfitted rather
        than mixing the old model with the new labels."""
        for name in list(vars(self)):
            if name.endswith("_") and not name.endswith("__"):   # classes_, _form_, ...
                delattr(self, name)

    def _heldout_corpus(self, X: Any) -> Corpus:
        """The documents of ``X`` on the fitted vocabulary, a pandas input's index kept as
        the corpus's ``index`` (``_labelled`` puts it on the outputs)."""
        check_is_fitted(self)
        check_own(self, predict=True)
        X = _materialise(X)
        if isinstance(X, Corpus) or _is_documents(X):
            same_words = isinstance(X, Corpus) and X.vocabulary == self.corpus_.vocabulary
            if hasattr(self, "n_features_in_") and not self.vocabulary_given_ \
                    and not same_words:
                raise ValueError(f"this {type(self).__name__} was fitted on a count matrix "
                                 f"without word names (its columns are w0, w1, ...), so "
                                 f"texts cannot be mapped onto them: predict on a count "
                                 f"matrix with the same columns, or fit with vocabulary= "
                                 f"(e.g. vectorizer.get_feature_names_out()) or a DataFrame")
            return self.corpus_.heldout(X)
        index = input_index(X)
        X = self._counts(X, reset=False)
        if X.shape[1] != self.corpus_.n_words:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.corpus_.n_words} features as input")
        corpus = self.corpus_.map(sp.csr_matrix(X))
        return corpus if index is None else dataclasses.replace(corpus, index=index)
