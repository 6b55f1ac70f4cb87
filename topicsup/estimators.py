"""scikit-learn estimators for every model: ``fit`` / ``predict`` / ``transform``.

``SupervisedLDAClassifier`` (any supervised model, ``model=``; by default the preset of the
hinge or the logistic loss; ``MedLDAClassifier`` is its name for the hinge),
``SupervisedLDARegressor`` (a real response: ``SLDA``'s Gaussian or the epsilon-insensitive
loss) and ``LDATransformer`` (unsupervised topics: ``components_`` and ``transform`` to topic
proportions, like the ``lda`` package) accept the same documents: a document-term count matrix
(the output of ``CountVectorizer``, so they sit at the end of a ``Pipeline``; a scipy sparse
matrix, an array or a DataFrame of counts), raw texts, token lists or a ``Corpus``. Under the
hood each fit is one ``Session`` (multi-task) or one per class (one-vs-all), kept in
``sessions_`` for inspection with the usual views.

Parameters take scikit-learn's names where it has one (``LatentDirichletAllocation``'s):
``n_components`` is the number of topics (the models' ``K``; formerly ``n_topics``),
``max_iter`` the training sweeps (formerly ``n_iter``), ``doc_topic_prior`` and
``topic_word_prior`` the Dirichlet parameters (the models' ``alpha`` and ``beta``, formerly so
named), ``random_state`` and ``n_jobs`` as in scikit-learn. The old names work until the next
release, with a ``FutureWarning`` naming the new one (``RENAMED``).

One way for each thing. Every model is built in one place from a loss and a sampler
(``_supervised_model``: the preset of ``models.presets`` that trains them, else
``SupervisedLDA``), or given whole (``model=``); ``y`` is read by ``corpus.make_labels`` after
scikit-learn's target checks, and the form it came in (``corpus.LabelForm``) gives the
predictions back in it; predictions and scores are the label task's (``Task.predict``,
``Task.score`` of ``model.task(corpus)``), one-vs-all's too: its binary models' scores side by
side, read by the task of all the labels (argmax for multi-class, > 0 for multi-label).

scikit-learn's conventions hold (``tests/test_estimators.py`` runs ``check_estimator``):
count matrices are checked by ``validate_data`` (``n_features_in_``, ``feature_names_in_``
for a DataFrame, whose column names then serve as the vocabulary), unfitted estimators raise
``NotFittedError``, targets are checked by ``check_classification_targets``, ``classes_`` and
the predictions keep the type of the labels given (ints stay ints), and a document's
prediction does not depend on the other documents predicted with it (each is folded in on a
random stream of its own, ``kernels.fold_in``).

Pandas in, pandas out: documents in a pandas Series (texts, token lists) or a DataFrame
(counts) get ``predict``, ``decision_function`` and ``transform`` (hence ``fit_transform`` and
``set_output(transform="pandas")``) back as a Series or DataFrame carrying their index, the
values the same as for an array; any other input gets arrays, as before. A pandas ``y`` beside
pandas documents in ``fit`` is aligned by index as ``Corpus`` aligns labels: the same entries
in another order are reordered, any other difference is a ``ValueError`` naming both.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import (check_array, check_is_fitted, check_non_negative,
                                      column_or_1d, validate_data)

from . import validation as check
from .arrays import Array, F32, F64, Rng
from .corpus import Corpus
from .labels import LabelForm, Labels, aligned, input_index, is_pandas, make_labels
from .text import are_texts, check_vocabulary
from .kernels.rng import seed_state
from .models import (FOLD_IN_BURN, FOLD_IN_KEEP, LDA, LOSSES, MAX_FOLD_IN_SWEEPS, MAX_TOPICS,
                     Model, SupervisedLDA, presets)
from .session import Session
from .tasks import Task, task_for

if TYPE_CHECKING:
    from sklearn.utils import Tags

STRATEGIES = ("multitask", "ovr")
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


# The parameters renamed to scikit-learn's names (old -> new). The old names work until the next
# release, with a FutureWarning; as in scikit-learn both are parameters, the old one defaulting
# to DEPRECATED, so get_params, clone and check_estimator hold either way.
RENAMED = {"n_topics": "n_components", "n_iter": "max_iter", "alpha": "doc_topic_prior",
           "beta": "topic_word_prior"}
DEPRECATED = "deprecated"


def _is_default(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def _defaults(est: Any) -> dict[str, Any]:
    """The estimator's parameters' defaults, from its ``__init__`` (scikit-learn's source)."""
    return {k: p.default for k, p in inspect.signature(type(est).__init__).parameters.items()}


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


def _losses(targets: str) -> list[str]:
    """The registered losses that model ``targets`` ("signs": classes; "values": responses)."""
    return [n for n in LOSSES.names() if LOSSES.get(n).targets == targets]


class _Documents:
    """What every topicsup estimator shares: documents in any of the accepted forms (a count
    matrix, a DataFrame of counts, texts, token lists or a Corpus) turned into a Corpus, the
    same way in ``fit`` and in prediction; an all-or-nothing fit; the seed."""

    # the estimators' parameters (their __init__ sets them) and fitted state it reads
    vocabulary: Any
    random_state: Any
    corpus_: Corpus
    vocabulary_given_: bool

    if TYPE_CHECKING:
        def _check_predict_params(self) -> None: ...   # each estimator's own

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

    def _check_random_state(self) -> None:
        if self.random_state is not None and not isinstance(
                self.random_state, (np.random.RandomState, np.random.Generator)):
            check.integer("random_state", self.random_state, low=0, high=2**63 - 1)
        if self.vocabulary is not None:
            check_vocabulary(self.vocabulary)

    def _renamed(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The renamed parameters' values by their new names, and the name each was given
        by: an old name (``RENAMED``) that was set gives its value, with a ``FutureWarning``
        naming the new one (a ``ValueError`` if the new one was set too). The topics and the
        sweeps are checked here, under the name they were given by."""
        defaults = _defaults(self)
        values: dict[str, Any] = {}
        names: dict[str, str] = {}
        for old, new in RENAMED.items():
            value = getattr(self, old)
            if isinstance(value, str) and value == DEPRECATED:
                values[new], names[new] = getattr(self, new), new
                continue
            if not _is_default(getattr(self, new), defaults[new]):
                raise ValueError(f"{type(self).__name__} got {old}={value!r} and "
                                 f"{new}={getattr(self, new)!r}; {old} is the old name of "
                                 f"{new}: pass {new} only")
            warnings.warn(f"{type(self).__name__}: {old} was renamed {new} (scikit-learn's "
                          f"name) and will be removed in the next release; pass "
                          f"{new}={value!r}", FutureWarning, stacklevel=4)
            values[new], names[new] = value, old
        # the range is the model's (K >= 2): scikit-learn's checks set n_components = 1
        check.integer(names["n_components"], values["n_components"], low=1, high=MAX_TOPICS)
        check.integer(names["max_iter"], values["max_iter"], low=1, high=check.INT32_MAX)
        return values, names

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
        self._check_predict_params()
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


# the estimator's defaults where they are not the preset's: gSLDA+'s c = 25
# (benchmarks/results/gslda_binary); the hinge's lam is the presets' 102.4
LOSS_DEFAULTS = {"logistic": {"c": 25.0}}
# the classifier's parameters that build the model: with model= given it has them all
MODEL_PARAMS = ("n_components", "loss", "lam", "c", "sampler", "nu", "doc_topic_prior",
                "topic_word_prior", "mh_steps", "composition", "supervised_factor", "S_gibbs",
                "burn_in", "lda_init_sweeps", "n_topics", "alpha", "beta")


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
        values, names = self._renamed()
        n_iter = values["max_iter"]
        check.choice("strategy", self.strategy, STRATEGIES)
        self._check_predict_params()
        for name in ("n_snapshots", "snapshot_every"):
            check.integer(name, getattr(self, name), low=1, high=MAX_FOLD_IN_SWEEPS)
        if self.burn_in is not None:
            check.integer("burn_in", self.burn_in, low=0, high=check.INT32_MAX)
        self._check_random_state()
        model = self._model(values)   # the model's own checks: lam, nu, alpha, mh_steps, ...
        if model.lda_init_sweeps >= n_iter:
            raise ValueError(f"lda_init_sweeps = {model.lda_init_sweeps} leaves no supervised "
                             f"sweep in {names['max_iter']} = {n_iter}")
        if (self.n_snapshots - 1) * self.snapshot_every >= n_iter:
            raise ValueError(f"{names['max_iter']} = {n_iter} is too short for n_snapshots = "
                             f"{self.n_snapshots} taken snapshot_every = {self.snapshot_every} "
                             f"sweeps apart")
        return model, n_iter

    def _check_predict_params(self) -> None:
        """The settings prediction reads (they may change after fit, by set_params)."""
        check.integer("predict_burn_in", self.predict_burn_in, low=0, high=MAX_FOLD_IN_SWEEPS)
        check.integer("predict_samples", self.predict_samples, low=1, high=MAX_FOLD_IN_SWEEPS)
        if self.n_jobs is not None:
            n = check.integer("n_jobs", self.n_jobs)
            if n == 0:
                raise ValueError("n_jobs must be a positive number of threads, -1 (every core) "
                                 "or None (one), got 0")

    def _threads(self) -> int:
        if self.n_jobs is None:
            return 1
        return self.n_jobs if self.n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + self.n_jobs)

    def _model(self, values: dict[str, Any] | None = None) -> SupervisedLDA:
        """The model to train: ``model``, or the preset of ``loss`` and ``sampler`` with the
        estimator's settings (``_supervised_model``; None: the preset's default)."""
        values = self._renamed()[0] if values is None else values
        if self.model is not None:
            return self._given_model()
        check.choice("loss", self.loss, _losses("signs"))
        check.choice("sampler", self.sampler, ("light", "gibbs"))
        # a setting of another loss is refused whatever its value (the model would let one
        # equal to that loss's default pass)
        reads = LOSSES.get(self.loss).param_defaults()
        ignored = [f"{p}={getattr(self, p)!r} (loss={self.loss!r} does not use it)"
                   for p in ("lam", "c") if getattr(self, p) is not None and p not in reads]
        if ignored:
            raise ValueError(f"{type(self).__name__} got a setting its loss does not read: "
                             f"{'; '.join(ignored)}")
        own = {**LOSS_DEFAULTS.get(self.loss, {}),
               **{p: getattr(self, p) for p in ("lam", "c") if getattr(self, p) is not None}}
        n_iter = values["max_iter"]
        return _supervised_model(
            self.loss, self.sampler, K=values["n_components"], **own, nu=self.nu,
            alpha=values["doc_topic_prior"], beta=values["topic_word_prior"],
            S_gibbs=self.S_gibbs, burn_in=n_iter // 2 if self.burn_in is None else self.burn_in,
            lda_init_sweeps=self.lda_init_sweeps, mh_steps=self.mh_steps,
            composition=self.composition, supervised_factor=self.supervised_factor)

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
        defaults = _defaults(self)
        both = [f"{p}={getattr(self, p)!r}" for p in MODEL_PARAMS
                if not _is_default(getattr(self, p), defaults[p])]
        if both:
            raise ValueError(f"{type(self).__name__} got model= and {', '.join(both)}: the "
                             f"model's parameters come from the model, so these would be "
                             f"ignored; set them on it ({type(model).__name__}(K=..., ...)) "
                             f"or leave model=None")
        return model

    def _labels(self, X: Any, y: Any) -> tuple[Labels, LabelForm]:
        """The training labels, encoded by ``corpus.make_labels`` (the one label parser)
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


# ---------------------------------------------------------------------- regression, LDA
class _OneSession(TransformerMixin, _Documents):   # type: ignore[misc]  # sklearn: untyped
    """An estimator over one Session: documents in, the model sampled ``max_iter`` sweeps,
    held-out documents folded in (``predict_burn_in`` + ``predict_samples`` sweeps) on their
    own streams."""

    if TYPE_CHECKING:
        def _model(self, values: dict[str, Any]) -> LDA: ...   # each estimator's own

    def _check_predict_params(self) -> None:
        check.integer("predict_burn_in", self.predict_burn_in, low=0, high=MAX_FOLD_IN_SWEEPS)
        check.integer("predict_samples", self.predict_samples, low=1, high=MAX_FOLD_IN_SWEEPS)

    def _fit_session(self, X: Any, labels: Callable[[Any], Labels | None]) -> "_OneSession":
        """Sample ``_model`` on the documents of ``X`` with ``labels`` (a callable of the
        materialised X giving Labels or None); all or nothing."""
        values, _ = self._renamed()
        self._check_predict_params()
        self._check_random_state()
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
        check.choice("loss", self.loss, _losses("values"))
        check.choice("sampler", self.sampler, ("gibbs", "light"))
        # every loss setting goes to the model, which refuses one its loss would ignore
        # (SupervisedLDARegressor(lam=5.0) with loss="gaussian")
        burn_in = values["max_iter"] // 2 if self.burn_in is None else self.burn_in
        return _supervised_model(self.loss, self.sampler, K=values["n_components"], nu=self.nu,
                                 alpha=values["doc_topic_prior"],
                                 beta=values["topic_word_prior"], burn_in=burn_in,
                                 sigma2=self.sigma2, lam=self.lam, eps=self.eps)

    def fit(self, X: Any, y: Any = None) -> "SupervisedLDARegressor":
        """Train on documents ``X`` and real responses ``y`` (one per document; omitted when
        ``X`` is a Corpus with real labels). A fit that fails leaves it unfitted."""
        if self.burn_in is not None:
            check.integer("burn_in", self.burn_in, low=0, high=check.INT32_MAX)

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
        return LDA(K=values["n_components"], alpha=values["doc_topic_prior"],
                   beta=values["topic_word_prior"], sampler=self.sampler)

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
        each document's first half folded in, its second half scored), so that higher is
        better, as ``GridSearchCV`` needs to choose ``n_components`` (scikit-learn's
        ``LatentDirichletAllocation.score`` is an approximate log likelihood: also higher is
        better, on another scale). The perplexity rather than a log likelihood summed over
        the scored tokens: it is the one held-out measure the Session defines, and per token
        it compares test folds of any size; ``y`` is ignored."""
        return -self.perplexity(X)

    def perplexity(self, X: Any) -> float:
        """Held-out perplexity of the documents of ``X`` by document completion,
        exp(-log likelihood per scored token) (``Session.perplexity``): each document's first
        half folded in on the fitted topics (``predict_burn_in`` + ``predict_samples``
        sweeps), its second half scored; lower is better, and ``score`` is its negative.
        scikit-learn's ``LatentDirichletAllocation.perplexity`` is exp(-bound per word) of a
        variational bound on all the words, so the two are on different scales; compare
        perplexities of this estimator with each other only. The documents come in any form
        ``transform`` takes; a document needs 2 known words to be scored (none with 2 is a
        ``ValueError``). The same documents give the same value (the fold-in's streams are
        seeded by ``random_state_``)."""
        corpus = self._heldout_corpus(X)
        return self.session_.perplexity(corpus, self.predict_burn_in, self.predict_samples,
                                        seed=self.random_state_)
