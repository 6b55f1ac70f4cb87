"""What a corpus holds per document beside its words: labels (``Labels``, ``make_labels``),
the form they were given in (``LabelForm``), covariates (``make_covariates``), and the
documents' pandas index that pairs them with the documents (``aligned``).

Labels come in one of four kinds (``LABEL_KINDS``): binary and multiclass (one class per
document, int32 codes), multilabel (any set of classes per document, a 0/1 indicator matrix)
and real (one response per document). ``make_labels`` is the one label parser: the corpus's
constructors, the held-out scores, the scikit-learn estimators and the loaders all read
labels through it, and the label tasks (``topicsup.tasks``) turn them into the losses'
targets. Values are checked once, when a ``Labels`` is built, and stored read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import validation as check
from .arrays import F64, I64, Array
from .text import all_str, check_text
from .validation import frozen_copy

LabelKind = Literal["binary", "multiclass", "multilabel", "real"]


LABEL_KINDS = ("binary", "multiclass", "multilabel", "real")


# Covariates enter the scores beside topic proportions in [0, 1]; beyond this magnitude the
# weight draws' products overflow (standardize covariates first).
COVARIATE_LIMIT = 1e6


# Real responses enter the weights' draws as b = y / sigma^2 and come back as scores; beyond
# this magnitude the weights overflow float32 traces and R^2 overflows (standardize them).
RESPONSE_LIMIT = 1e6


def class_names(classes: Any, what: str = "classes") -> tuple[str, ...]:
    if isinstance(classes, (str, bytes, Mapping, Set)) or not isinstance(
            classes, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise TypeError(f"{what} must be a sequence of class names, got "
                        f"{type(classes).__name__}")
    names = tuple(classes)
    all_str(names, what)
    for c in names:
        check_text("class name", c)
    dup = check.first_duplicate(names)
    if dup is not None:
        raise ValueError(f"{what} has the duplicate class name {dup!r}")
    return names


@dataclass(frozen=True)
class Labels:
    """Document labels in the form the losses need.

    Attributes
    ----------
    kind : {"binary", "multiclass", "multilabel", "real"}
    values : ndarray
        binary and multiclass: int32 class codes (0..C-1; for binary, 1 is the positive class);
        multilabel: uint8 indicator matrix (D, C); real: float64, finite.
    classes : tuple of str
        Class names in code order (empty for real labels).

    Built directly or by ``make_labels``, the values are checked against the kind and the
    classes (codes in range, a 0/1 matrix with a column per class, finite reals) and stored
    read-only.
    """

    kind: LabelKind
    values: Array   # int32 codes, a uint8 indicator matrix or float64 reals (the kind's)
    classes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        kind = check.choice("labels kind", self.kind, LABEL_KINDS)
        classes = class_names(self.classes, "labels classes")
        if not isinstance(self.values, np.ndarray):
            raise TypeError(f"labels values must be a numpy array, got "
                            f"{type(self.values).__name__}")
        v = self.values
        if kind == "real":
            if classes:
                raise ValueError(f"real labels have no classes, got {list(classes)[:5]}")
            if v.ndim != 1 or v.dtype.kind not in "biuf":
                raise TypeError(f"real labels must be a 1-d array of numbers, got dtype "
                                f"{v.dtype} and shape {v.shape}")
            out = frozen_copy(v, np.float64)
            bad: Array | int   # the positions found here, one position below
            bad = np.flatnonzero(~np.isfinite(out))
            if bad.size:
                raise ValueError(f"real labels must be finite; labels[{bad[0]}] is "
                                 f"{out[bad[0]]}")
            big = np.flatnonzero(np.abs(out) > RESPONSE_LIMIT)
            if big.size:
                raise ValueError(f"real labels must be at most {RESPONSE_LIMIT:g} in magnitude "
                                 f"(standardize the responses); labels[{big[0]}] is "
                                 f"{out[big[0]]:g}")
        elif kind == "multilabel":
            if not classes:
                raise ValueError("multilabel labels need at least one class (a column)")
            if v.ndim != 2 or v.shape[1] != len(classes):
                raise ValueError(f"multilabel values must be a (documents, {len(classes)}) "
                                 f"indicator matrix, got shape {v.shape}")
            if v.dtype.kind not in "biuf" or not np.isin(v, (0, 1)).all():
                raise ValueError("multilabel values must hold only 0 and 1")
            out = frozen_copy(v, np.uint8)
        else:
            if v.ndim != 1 or v.dtype.kind not in "iu":
                raise TypeError(f"{kind} labels must be a 1-d array of integer class codes, "
                                f"got dtype {v.dtype} and shape {v.shape}")
            if kind == "binary" and len(classes) != 2:
                raise ValueError(f"binary labels need exactly 2 classes, got "
                                 f"{len(classes)}: {list(classes)[:10]}")
            if kind == "multiclass" and not classes:
                raise ValueError("multiclass labels need at least one class name")
            if v.size and (v.min() < 0 or v.max() >= len(classes)):
                bad = int(np.flatnonzero((v < 0) | (v >= len(classes)))[0])
                raise ValueError(f"labels[{bad}] has class code {v[bad]}, outside 0.."
                                 f"{len(classes) - 1} (the classes {list(classes)[:10]})")
            out = frozen_copy(v, np.int32)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "values", out)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def signs(self) -> F64:
        """Binary labels as -1/+1 (float64), as the hinge loss uses them."""
        if self.kind != "binary":
            raise ValueError(f"signs are defined for binary labels, these are {self.kind}")
        return 2.0 * self.values - 1.0

    def names(self) -> Array | list[tuple[str, ...]]:
        """The labels as class names (or the real values)."""
        if self.kind == "real":
            return self.values.copy()
        if self.kind == "multilabel":
            return [tuple(self.classes[c] for c in np.flatnonzero(row)) for row in self.values]
        return np.asarray(self.classes, dtype=object)[self.values]

    def take(self, index: Array) -> "Labels":
        return Labels(self.kind, self.values[index], self.classes)


def _is_set_like(x: Any) -> bool:
    return isinstance(x, (set, frozenset, list, tuple))


def class_name(c: Any) -> str:
    if isinstance(c, (bool, np.bool_)):
        return str(bool(c))
    if isinstance(c, (float, np.floating)) and float(c).is_integer():
        return str(int(c))
    return str(c)


def _missing(x: Any) -> bool:
    """A missing label: None, NaN, pandas' NA or NaT."""
    if x is None:
        return True
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # not a scalar
        return False


def _label_type(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, (str, bytes, np.str_)):
        return "string"
    return "number"


def _check_label_types(seq: list[Any], where: str = "labels") -> None:
    """Refuse missing labels, labels that are not names or numbers, and a mix of strings,
    numbers and bools, which would share class names ("1" and 1, True and 1) and so merge two
    classes without a word."""
    for i, x in enumerate(seq):
        if isinstance(x, (Mapping, Set, list, tuple, np.ndarray)):
            raise TypeError(f"{where}[{i}] is a {type(x).__name__}; a label is a class name or "
                            f"number (multi-label: give every document a set of them)")
        if _missing(x):
            shown = "NaN" if isinstance(x, (float, np.floating)) else repr(x)
            raise ValueError(f"{where}[{i}] is missing ({shown}); every document needs a label")
    kinds = [_label_type(x) for x in seq]
    if len(set(kinds)) > 1:
        a = kinds.index(kinds[0])
        b = next(i for i, k in enumerate(kinds) if k != kinds[0])
        raise TypeError(f"{where} mix {kinds[0]}s and {kinds[b]}s ({where}[{a}] is "
                        f"{seq[a]!r}, {where}[{b}] is {seq[b]!r}); give every label the same "
                        f"type")


def make_labels(labels: Any, n_docs: int, kind: LabelKind | None = None,
                classes: Sequence[Any] | None = None, *, name: str = "labels") -> Labels:
    """Validate ``labels`` for ``n_docs`` documents and encode them.

    Parameters
    ----------
    labels : sequence, ndarray, pandas Series or DataFrame, or Labels
        One label per document: class names or numbers, real values, or for multi-label a
        collection (set, list, tuple) of class names per document, a (D, C) 0/1 matrix, or a
        DataFrame of 0/1 columns named by class. Missing labels (None, NaN) are refused, as
        are a dict or a set (which have no document order).
    n_docs : int
        Number of documents the labels must match.
    kind : {"binary", "multiclass", "multilabel", "real"}, optional
        Inferred when omitted: collections mean multilabel, non-integral floats mean real,
        otherwise 2 distinct values mean binary and more mean multiclass.
    classes : sequence, optional
        Fix the class names and their order (e.g. a training corpus's classes when labelling
        test documents). For binary the second class is the positive one.
    name : str
        What the messages call ``labels`` (the scikit-learn estimators: ``"y"``).
    """
    if isinstance(labels, Labels):
        if len(labels.values) != n_docs:
            raise ValueError(f"labels has {len(labels.values)} entries but the corpus has "
                             f"{n_docs} documents")
        return labels
    if kind is not None:
        check.choice("label_type", kind, LABEL_KINDS)
    if isinstance(labels, (Mapping, Set)):
        raise TypeError(f"labels must be a sequence with one label per document, in document "
                        f"order; got a {type(labels).__name__}, which has no order (pass "
                        f"list(...) of the values you mean)")
    if isinstance(labels, (str, bytes)) or np.isscalar(labels) or not hasattr(
            labels, "__len__") or (isinstance(labels, np.ndarray) and labels.ndim == 0):
        raise TypeError(f"labels must be a sequence with one label per document, got "
                        f"{type(labels).__name__}")
    if isinstance(labels, pd.DataFrame):
        if labels.shape[1] == 1:
            labels = labels.iloc[:, 0]
        else:
            if classes is None:
                classes = [str(c) for c in labels.columns]
            labels = labels.to_numpy()
    if isinstance(labels, (pd.Series, pd.Index)):
        labels = labels.tolist()
    if sp.issparse(labels):
        labels = labels.toarray()
    arr = labels if isinstance(labels, np.ndarray) else None
    n = arr.shape[0] if arr is not None and arr.ndim else len(labels)
    if n != n_docs:
        raise ValueError(f"{name} has {n} entries but the corpus has {n_docs} documents")

    # multi-label: an indicator matrix or one collection per document
    if arr is not None and arr.ndim == 2:
        if kind not in (None, "multilabel"):
            raise ValueError(f"a 2-d labels array means multilabel, but label_type={kind!r}")
        if arr.dtype.kind not in "biuf" or not np.isin(arr, (0, 1)).all():
            raise ValueError("a 2-d labels array must be a 0/1 indicator matrix (documents x "
                             "classes)")
        if arr.shape[1] == 0:
            raise ValueError("a 2-d labels array needs at least one column (class)")
        names = class_names([str(c) for c in classes] if classes is not None
                             else [str(c) for c in range(arr.shape[1])])
        if len(names) != arr.shape[1]:
            raise ValueError(f"classes has {len(names)} names for {arr.shape[1]} label columns")
        return Labels("multilabel", arr.astype(np.uint8), names)
    seq = list(arr) if arr is not None else list(labels)
    if kind == "multilabel" or (kind is None and n_docs and all(_is_set_like(x) for x in seq)):
        if not all(_is_set_like(x) for x in seq):
            bad = next(i for i, x in enumerate(seq) if not _is_set_like(x))
            raise TypeError(f"multilabel {name} must give a set, list or tuple of class names "
                            f"per document; {name}[{bad}] is a {type(seq[bad]).__name__}")
        members = [c for x in seq for c in x]
        _check_label_types(members, f"the class names of {name}")
        names = (class_names([class_name(c) for c in classes]) if classes is not None
                 else tuple(sorted({class_name(c) for c in members})))
        index = {c: j for j, c in enumerate(names)}
        ind = np.zeros((n_docs, len(names)), dtype=np.uint8)
        for d, x in enumerate(seq):
            for c in x:
                j = index.get(class_name(c))
                if j is None:
                    raise ValueError(f"{name}[{d}] contains class {c!r}, which is not one of "
                                     f"the classes {list(names)}")
                ind[d, j] = 1
        return Labels("multilabel", ind, names)

    _check_label_types(seq, name)
    values = np.asarray(seq)
    if values.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {values.shape}")
    numeric = values.dtype.kind in "biuf"
    if kind == "real" or (kind is None and numeric and values.dtype.kind == "f"
                          and not np.all(values == np.round(values))):
        if not numeric:
            raise TypeError(f"real-valued labels must be numbers, got dtype {values.dtype}")
        return Labels("real", values.astype(np.float64), ())

    if values.dtype.kind not in "biufUSO":
        raise TypeError(f"labels must be class names or numbers, got dtype {values.dtype}")
    if classes is not None:
        names = class_names([class_name(c) for c in classes])
    else:
        uniq = sorted(set(values.tolist()), key=lambda c: (str(type(c)), c))
        names = tuple(class_name(c) for c in uniq)
        dup = check.first_duplicate(names)
        if dup is not None:
            raise ValueError(f"labels hold distinct values that share the class name {dup!r}; "
                             f"give every label the same type")
    index = {c: j for j, c in enumerate(names)}
    codes = np.empty(n_docs, dtype=np.int32)
    for d, c in enumerate(values.tolist()):
        j = index.get(class_name(c))
        if j is None:
            raise ValueError(f"{name}[{d}] is {c!r}, which is not one of the classes "
                             f"{list(names)}")
        codes[d] = j
    if kind is None:
        if len(names) < 2:
            raise ValueError(f"labels have a single class {list(names)}; pass label_type and "
                             f"classes to label a one-class subset")
        kind = "binary" if len(names) == 2 else "multiclass"
    if kind == "binary" and len(names) != 2:
        raise ValueError(f"binary labels need exactly 2 classes, got {len(names)}: "
                         f"{list(names)[:10]}")
    return Labels(kind, codes, names)


@dataclass(frozen=True)
class LabelForm:
    """The form labels were given in, so that predictions go back in it (the scikit-learn
    estimators' "in the type given"): ``"labels"``, one per document (``classes``: the values
    as given, in code order, their dtype kept: ints stay ints); ``"indicator"``, a 0/1 matrix
    (``classes``: its column numbers; ``dtype``: its dtype); ``"sets"``, a collection of
    class names per document (``classes``: the names as given). ``of`` reads it off labels
    that ``make_labels`` encoded; ``give`` puts predictions into it."""

    form: str
    classes: Array
    dtype: np.dtype[Any] | None = None

    @classmethod
    def of(cls, given: Any, labels: Labels) -> "LabelForm":
        """The form of ``given``, which ``make_labels`` encoded as ``labels`` (every class
        present); a ``Labels`` given keeps its class names (an indicator of int64)."""
        if isinstance(given, Labels):
            kind = "indicator" if labels.kind == "multilabel" else "labels"
            return cls(kind, np.asarray(labels.classes), np.dtype(np.int64))
        if labels.kind != "multilabel":
            first = np.unique(labels.values, return_index=True)[1]
            return cls("labels", np.asarray(given)[first])
        if sp.issparse(given) or (isinstance(given, (np.ndarray, pd.DataFrame))
                                  and given.ndim == 2):   # make_labels' indicator matrices
            dtype = given.to_numpy().dtype if isinstance(given, pd.DataFrame) else given.dtype
            return cls("indicator", np.arange(labels.n_classes), dtype)
        seen: dict[str, Any] = {}   # each class name's first member as given
        for x in given:
            for c in x:
                seen.setdefault(class_name(c), c)
        return cls("sets", np.asarray([seen[c] for c in labels.classes]))

    def give(self, predicted: Array) -> Array | list[tuple[Any, ...]]:
        """``Task.predict(scores, self.classes)`` in this form: an array of the classes'
        dtype, a 0/1 matrix of ``dtype``, or a list of tuples of the classes."""
        if self.form == "sets":
            return [tuple(self.classes[row.astype(bool)].tolist()) for row in predicted]
        return np.asarray(predicted).astype(self.classes.dtype if self.form == "labels"
                                            else self.dtype)


def make_covariates(covariates: Any, n_docs: int) -> tuple[F64, tuple[str, ...]]:
    """Validate covariates: (D, P) finite numbers from an array or a DataFrame."""
    if isinstance(covariates, pd.Series):
        covariates = covariates.to_frame()
    if isinstance(covariates, pd.DataFrame):
        names = tuple(str(c) for c in covariates.columns)
        dup = check.first_duplicate(names)
        if dup is not None:
            raise ValueError(f"covariates has the duplicate column name {dup!r}")
        nonnum = [c for c, t in covariates.dtypes.items()
                  if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t))
                  or pd.api.types.is_complex_dtype(t)]
        if nonnum:
            raise TypeError(f"covariates must be real numbers; column(s) {nonnum} are not")
        values = covariates.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        if sp.issparse(covariates):
            covariates = covariates.toarray()
        if isinstance(covariates, (str, bytes, Mapping, Set)) or np.isscalar(covariates):
            raise TypeError(f"covariates must be a 2-d array or a DataFrame (documents x "
                            f"features), got {type(covariates).__name__}")
        try:
            values = np.asarray(covariates)
        except ValueError:
            raise ValueError("covariates must be a 2-d array with rows of equal length") \
                from None
        if values.dtype.kind not in "biuf":
            raise TypeError(f"covariates must be numeric, got dtype {values.dtype}")
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2:
            raise ValueError(f"covariates must be 2-d (documents x features), got shape "
                             f"{values.shape}")
        values = values.astype(np.float64)
        names = tuple(f"x{j}" for j in range(values.shape[1]))
    if values.shape[0] != n_docs:
        raise ValueError(f"covariates has {values.shape[0]} rows but the corpus has {n_docs} "
                         f"documents")
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        d, j = bad[0]
        raise ValueError(f"covariates must be finite; found {values[d, j]} at row {d}, column "
                         f"{names[j]!r} ({len(bad)} non-finite value(s) in all)")
    return np.ascontiguousarray(values), names


def is_pandas(x: Any) -> bool:
    """Whether documents came as a pandas Series or DataFrame: those give their index to the
    corpus and get per-document outputs back as pandas objects carrying it."""
    return isinstance(x, (pd.Series, pd.DataFrame))


def default_index(doc_index: I64) -> pd.Index:
    """The index of documents not given as pandas: their input positions (a RangeIndex when
    none was dropped), named ``"document"`` as ``Session.doc_topics`` has always named it."""
    n = doc_index.shape[0]
    if np.array_equal(doc_index, np.arange(n)):
        return pd.RangeIndex(n, name="document")
    return pd.Index(doc_index, name="document")


def _shown(index: pd.Index) -> str:
    head = ", ".join(repr(v) for v in index[:5].tolist())
    return f"[{head}{', ...' if len(index) > 5 else ''}] ({len(index)} entries)"


def aligned(value: Any, index: pd.Index | None, what: str, docs: str = "docs") -> Any:
    """``value`` (labels or covariates) put in the documents' order when both came as pandas.

    A pandas user expects pandas' rule, alignment by index (as ``df["y"] = s`` does); reading
    a shuffled or filtered frame's labels by position would pair them with the wrong
    documents without a word. So the same labels in another order are reordered, and any other
    difference (labels missing, extra or repeated) is refused, naming both indexes. Values that
    are not pandas, or documents that are not (``index`` None), pair by position as always.
    """
    if index is None or not is_pandas(value):
        return value
    own = value.index
    if own.equals(index):
        return value
    if len(own) == len(index) and own.is_unique and index.is_unique:
        pos = own.get_indexer(index)
        if (pos >= 0).all():
            return value.iloc[pos]
    missing = index[~index.isin(own)][:1].tolist()   # tolist: plain values, plain reprs
    extra = own[~own.isin(index)][:1].tolist()
    if missing:
        why = f"; the document {missing[0]!r} has no entry in {what}"
    elif extra:
        why = f"; {what} has the entry {extra[0]!r}, which is no document"
    else:
        why = "; one of them repeats a label, so they cannot be matched one to one"
    raise ValueError(f"{what} is a pandas {type(value).__name__} whose index differs from the "
                     f"documents' index (documents {_shown(index)}, {what} {_shown(own)})"
                     f"{why}: give {what} the documents' index (e.g. {what}.loc[{docs}.index]), "
                     f"or plain values ({what}.to_numpy()) to pair them by position")


def input_index(docs: Any) -> pd.Index | None:
    """The index of documents given as a pandas Series or DataFrame, else None."""
    return docs.index if is_pandas(docs) else None



__all__ = ["COVARIATE_LIMIT", "LABEL_KINDS", "LabelForm", "LabelKind", "Labels",
           "RESPONSE_LIMIT", "aligned", "class_name", "class_names", "default_index",
           "input_index", "is_pandas", "make_covariates", "make_labels"]
