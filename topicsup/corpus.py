"""Corpus: validated token arrays, a vocabulary, labels and covariates.

Everything a kernel reads comes from here, already checked: word ids in range, counts
non-negative integers, labels aligned with documents, covariates finite. Kernels never validate.

Tokenizer (``tokenize``): lowercase the text, take maximal runs of letters (Unicode letters;
digits, ``_`` and punctuation split words), keep tokens of at least ``min_length`` (default 3)
characters, drop English stop words (``topicsup.stopwords``).

Vocabulary (built only when none is given): drop words whose total count is below
``min_count`` and words that occur in more than ``max_df`` of the documents (a fraction if a
float, a number of documents if an int); the surviving words are sorted alphabetically.

Empty documents (no tokens left after preprocessing): ``empty="drop"`` (the default for
training corpora) removes them with their labels and covariates and records their original
positions in ``Corpus.dropped_documents``; ``"keep"`` (the default of ``Corpus.map`` for test
documents, so predictions stay aligned) keeps them with zero tokens; ``"error"`` raises a
``ValueError`` listing them.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .stopwords import ENGLISH_STOP_WORDS

LabelKind = Literal["binary", "multiclass", "multilabel", "real"]
EmptyPolicy = Literal["drop", "keep", "error"]

_WORD_RE = re.compile(r"[^\W\d_]+")


def tokenize(text: str, min_length: int = 3,
             stop_words: Iterable[str] | None = ENGLISH_STOP_WORDS) -> list[str]:
    """Split ``text`` into lowercase alphabetic tokens.

    Parameters
    ----------
    text : str
        The raw document.
    min_length : int
        Shortest token kept.
    stop_words : iterable of str or None
        Tokens to drop; ``None`` keeps all.

    Returns
    -------
    list of str
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    stops = stop_words if isinstance(stop_words, (set, frozenset)) else frozenset(stop_words or ())
    return [t for t in _WORD_RE.findall(text.lower()) if len(t) >= min_length and t not in stops]


# --------------------------------------------------------------------------------------------
# Labels


@dataclass(frozen=True)
class Labels:
    """Document labels in the form the losses need.

    Attributes
    ----------
    kind : {"binary", "multiclass", "multilabel", "real"}
    values : ndarray
        binary and multiclass: int32 class codes (0..C-1; for binary, 1 is the positive class);
        multilabel: uint8 indicator matrix (D, C); real: float64.
    classes : tuple of str
        Class names in code order (empty for real labels).
    """

    kind: LabelKind
    values: np.ndarray
    classes: tuple[str, ...] = ()

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def signs(self) -> np.ndarray:
        """Binary labels as -1/+1 (float64), as the hinge loss uses them."""
        if self.kind != "binary":
            raise ValueError(f"signs are defined for binary labels, these are {self.kind}")
        return 2.0 * self.values - 1.0

    def names(self) -> np.ndarray | list[tuple[str, ...]]:
        """The labels as class names (or the real values)."""
        if self.kind == "real":
            return self.values.copy()
        if self.kind == "multilabel":
            return [tuple(self.classes[c] for c in np.flatnonzero(row)) for row in self.values]
        return np.asarray(self.classes, dtype=object)[self.values]

    def take(self, index: np.ndarray) -> "Labels":
        return Labels(self.kind, self.values[index], self.classes)


def _is_set_like(x: Any) -> bool:
    return isinstance(x, (set, frozenset, list, tuple))


def _class_name(c: Any) -> str:
    if isinstance(c, (bool, np.bool_)):
        return str(bool(c))
    if isinstance(c, (float, np.floating)) and float(c).is_integer():
        return str(int(c))
    return str(c)


def make_labels(labels: Any, n_docs: int, kind: LabelKind | None = None,
                classes: Sequence[Any] | None = None) -> Labels:
    """Validate ``labels`` for ``n_docs`` documents and encode them.

    Parameters
    ----------
    labels : sequence, ndarray, pandas Series or Labels
        One label per document: class names or numbers, real values, or for multi-label a
        collection (set, list, tuple) of class names per document or a (D, C) 0/1 matrix.
    n_docs : int
        Number of documents the labels must match.
    kind : {"binary", "multiclass", "multilabel", "real"}, optional
        Inferred when omitted: collections mean multilabel, non-integral floats mean real,
        otherwise 2 distinct values mean binary and more mean multiclass.
    classes : sequence, optional
        Fix the class names and their order (e.g. a training corpus's classes when labelling
        test documents). For binary the second class is the positive one.
    """
    if isinstance(labels, Labels):
        if len(labels.values) != n_docs:
            raise ValueError(f"labels has {len(labels.values)} entries but the corpus has "
                             f"{n_docs} documents")
        return labels
    if kind is not None and kind not in ("binary", "multiclass", "multilabel", "real"):
        raise ValueError(f"label_type must be one of 'binary', 'multiclass', 'multilabel', "
                         f"'real', got {kind!r}")
    if isinstance(labels, (str, bytes)) or np.isscalar(labels):
        raise TypeError(f"labels must be a sequence with one label per document, got "
                        f"{type(labels).__name__}")
    if isinstance(labels, (pd.Series, pd.Index)):
        labels = labels.tolist()
    if sp.issparse(labels):
        labels = labels.toarray()
    arr = labels if isinstance(labels, np.ndarray) else None
    n = arr.shape[0] if arr is not None else len(labels)
    if n != n_docs:
        raise ValueError(f"labels has {n} entries but the corpus has {n_docs} documents")

    # multi-label: an indicator matrix or one collection per document
    if arr is not None and arr.ndim == 2:
        if kind not in (None, "multilabel"):
            raise ValueError(f"a 2-d labels array means multilabel, but label_type={kind!r}")
        if not np.isin(arr, (0, 1)).all():
            raise ValueError("a 2-d labels array must be a 0/1 indicator matrix (documents x "
                             "classes)")
        names = tuple(str(c) for c in (classes if classes is not None else range(arr.shape[1])))
        if len(names) != arr.shape[1]:
            raise ValueError(f"classes has {len(names)} names for {arr.shape[1]} label columns")
        return Labels("multilabel", arr.astype(np.uint8), names)
    seq = list(arr) if arr is not None else list(labels)
    if kind == "multilabel" or (kind is None and n_docs and all(_is_set_like(x) for x in seq)):
        if not all(_is_set_like(x) for x in seq):
            bad = next(i for i, x in enumerate(seq) if not _is_set_like(x))
            raise TypeError(f"multilabel labels must give a set, list or tuple of class names per "
                            f"document; labels[{bad}] is {type(seq[bad]).__name__}")
        names = (tuple(_class_name(c) for c in classes) if classes is not None
                 else tuple(sorted({_class_name(c) for x in seq for c in x})))
        index = {c: j for j, c in enumerate(names)}
        ind = np.zeros((n_docs, len(names)), dtype=np.uint8)
        for d, x in enumerate(seq):
            for c in x:
                j = index.get(_class_name(c))
                if j is None:
                    raise ValueError(f"labels[{d}] contains class {c!r}, which is not one of "
                                     f"the classes {list(names)}")
                ind[d, j] = 1
        return Labels("multilabel", ind, names)

    if any(x is None for x in seq):
        raise ValueError(f"labels[{seq.index(None)}] is missing (None)")
    values = np.asarray(seq)
    if values.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {values.shape}")
    numeric = values.dtype.kind in "biuf"
    if numeric and values.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(f"labels contain NaN or infinite values at positions "
                             f"{bad[:10].tolist()}")
    if kind == "real" or (kind is None and numeric and values.dtype.kind == "f"
                          and not np.all(values == np.round(values))):
        if not numeric:
            raise TypeError(f"real-valued labels must be numbers, got dtype {values.dtype}")
        return Labels("real", values.astype(np.float64), ())

    if values.dtype.kind not in "biufUSO":
        raise TypeError(f"labels must be class names or numbers, got dtype {values.dtype}")
    if classes is not None:
        names = tuple(_class_name(c) for c in classes)
    else:
        uniq = sorted(set(values.tolist()), key=lambda c: (str(type(c)), c))
        names = tuple(_class_name(c) for c in uniq)
    index = {c: j for j, c in enumerate(names)}
    codes = np.empty(n_docs, dtype=np.int32)
    for d, c in enumerate(values.tolist()):
        j = index.get(_class_name(c))
        if j is None:
            raise ValueError(f"labels[{d}] is {c!r}, which is not one of the classes "
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


# --------------------------------------------------------------------------------------------
# Covariates


def make_covariates(covariates: Any, n_docs: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Validate covariates: (D, P) finite numbers from an array or a DataFrame."""
    if isinstance(covariates, pd.Series):
        covariates = covariates.to_frame()
    if isinstance(covariates, pd.DataFrame):
        names = tuple(str(c) for c in covariates.columns)
        nonnum = [c for c in covariates.columns
                  if not pd.api.types.is_numeric_dtype(covariates[c])]
        if nonnum:
            raise TypeError(f"covariates must be numeric; column(s) {nonnum} are not")
        values = covariates.to_numpy(dtype=np.float64)
    else:
        values = np.asarray(covariates)
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


# --------------------------------------------------------------------------------------------
# Corpus


def _check_count_arg(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check_max_df(max_df: Any) -> None:
    if isinstance(max_df, bool) or not isinstance(max_df, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_df must be a float in (0, 1] or a positive int, got {max_df!r}")
    if isinstance(max_df, (float, np.floating)) and not 0.0 < max_df <= 1.0:
        raise ValueError(f"max_df as a fraction must be in (0, 1], got {max_df}")
    if isinstance(max_df, (int, np.integer)) and max_df < 1:
        raise ValueError(f"max_df as a document count must be >= 1, got {max_df}")


def _build_vocabulary(docs: list[list[str]], min_count: int, max_df: float | int) -> list[str]:
    _check_count_arg("min_count", min_count)
    _check_max_df(max_df)
    total: Counter[str] = Counter()
    dfreq: Counter[str] = Counter()
    for toks in docs:
        total.update(toks)
        dfreq.update(set(toks))
    limit = max_df * len(docs) if isinstance(max_df, (float, np.floating)) else max_df
    return sorted(w for w, c in total.items() if c >= min_count and dfreq[w] <= limit)


def _check_vocabulary(vocabulary: Any) -> tuple[str, ...]:
    if isinstance(vocabulary, dict):  # CountVectorizer.vocabulary_: word -> column
        items = sorted(vocabulary.items(), key=lambda kv: kv[1])
        if [c for _, c in items] != list(range(len(items))):
            raise ValueError("vocabulary dict must map words to columns 0..V-1")
        vocabulary = [w for w, _ in items]
    if isinstance(vocabulary, str) or not isinstance(vocabulary, (Sequence, np.ndarray)):
        raise TypeError(f"vocabulary must be a sequence of str, got {type(vocabulary).__name__}")
    vocab = tuple(vocabulary)
    bad = [i for i, w in enumerate(vocab) if not isinstance(w, str)]
    if bad:
        raise TypeError(f"vocabulary entries must be str; vocabulary[{bad[0]}] is "
                        f"{type(vocab[bad[0]]).__name__}")
    if len(vocab) == 0:
        raise ValueError("vocabulary is empty")
    if len(set(vocab)) != len(vocab):
        dup = next(w for w, c in Counter(vocab).items() if c > 1)
        raise ValueError(f"vocabulary has duplicate word {dup!r}")
    return vocab


@dataclass(frozen=True, eq=False)
class Corpus:
    """A bag-of-words corpus in CSR form, ready for the kernels.

    Build one with ``Corpus.from_texts``, ``Corpus.from_tokens`` or ``Corpus.from_matrix``;
    map held-out documents onto its vocabulary with ``corpus.map(...)``.

    Attributes
    ----------
    words : ndarray of int32, shape (n_tokens,)
        Word id of every token, documents one after the other.
    doc_ptr : ndarray of int64, shape (n_docs + 1,)
        Document d holds ``words[doc_ptr[d]:doc_ptr[d + 1]]``.
    vocabulary : tuple of str
    labels : Labels or None
    covariates : ndarray of float64, shape (n_docs, P), or None
    covariate_names : tuple of str
    doc_index : ndarray of int64
        Position of each document in the input it was built from.
    dropped_documents : ndarray of int64
        Input positions of documents removed as empty.
    n_unknown_tokens : int
        Tokens dropped because they were not in a given vocabulary.
    preprocessing : dict
        Tokenizer settings, reused by ``map`` for held-out texts.
    """

    words: np.ndarray
    doc_ptr: np.ndarray
    vocabulary: tuple[str, ...]
    labels: Labels | None = None
    covariates: np.ndarray | None = None
    covariate_names: tuple[str, ...] = ()
    doc_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    dropped_documents: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    n_unknown_tokens: int = 0
    preprocessing: dict = field(default_factory=dict)

    # ---------------------------------------------------------------- sizes
    @property
    def n_docs(self) -> int:
        return int(self.doc_ptr.shape[0] - 1)

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return len(self.vocabulary)

    @property
    def n_tokens(self) -> int:
        return int(self.words.shape[0])

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_ptr)

    def __len__(self) -> int:
        return self.n_docs

    def __repr__(self) -> str:
        lab = f", labels={self.labels.kind}[{self.labels.n_classes}]" if self.labels else ""
        cov = f", covariates={self.covariates.shape[1]}" if self.covariates is not None else ""
        return (f"Corpus(n_docs={self.n_docs}, n_words={self.n_words}, "
                f"n_tokens={self.n_tokens}{lab}{cov})")

    def document(self, d: int) -> list[str]:
        """The tokens of document ``d`` as words."""
        return [self.vocabulary[w] for w in self.words[self.doc_ptr[d]:self.doc_ptr[d + 1]]]

    def to_matrix(self) -> sp.csr_matrix:
        """The (n_docs, n_words) document-term count matrix."""
        rows = np.repeat(np.arange(self.n_docs), self.doc_lengths)
        m = sp.csr_matrix((np.ones(self.n_tokens, np.int64), (rows, self.words)),
                          shape=(self.n_docs, self.n_words))
        m.sum_duplicates()
        return m

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_tokens(cls, docs: Sequence[Sequence[str]], labels: Any = None,
                    covariates: Any = None, *, vocabulary: Sequence[str] | None = None,
                    min_count: int = 1, max_df: float | int = 1.0,
                    empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                    classes: Sequence[Any] | None = None,
                    _preprocessing: dict | None = None) -> "Corpus":
        """Build a corpus from documents given as lists of tokens.

        Parameters
        ----------
        docs : sequence of sequences of str
            One list of tokens per document (used as given: no lowercasing or stop words).
        labels, covariates : optional
            See ``make_labels`` and ``make_covariates``.
        vocabulary : sequence of str, optional
            Map onto this vocabulary (unknown tokens are dropped and counted); when omitted it
            is built from ``docs`` with ``min_count`` and ``max_df``.
        empty : {"drop", "keep", "error"}
            What to do with documents left without tokens.
        """
        if isinstance(docs, (str, bytes)) or not isinstance(docs, (Sequence, np.ndarray,
                                                                   pd.Series)):
            raise TypeError(f"docs must be a list of token lists, got {type(docs).__name__}")
        docs = list(docs)
        if len(docs) == 0:
            raise ValueError("the corpus is empty: no documents were given")
        for d, toks in enumerate(docs):
            if isinstance(toks, (str, bytes)) or not isinstance(toks, (Sequence, np.ndarray)):
                raise TypeError(f"docs[{d}] must be a list of str tokens, got "
                                f"{type(toks).__name__}")
            for t in toks:
                if not isinstance(t, str):
                    raise TypeError(f"docs[{d}] contains a token of type {type(t).__name__}; "
                                    f"tokens must be str")
        if vocabulary is None:
            vocab = tuple(_build_vocabulary(docs, min_count, max_df))
            if not vocab:
                raise ValueError(f"no word survives min_count={min_count} and max_df={max_df}; "
                                 f"the corpus would have no tokens")
        else:
            vocab = _check_vocabulary(vocabulary)
        index = {w: j for j, w in enumerate(vocab)}
        lengths = np.zeros(len(docs), dtype=np.int64)
        ids: list[int] = []
        n_raw = 0
        for d, toks in enumerate(docs):
            mapped = [index[t] for t in toks if t in index]
            n_raw += len(toks)
            lengths[d] = len(mapped)
            ids.extend(mapped)
        words = np.asarray(ids, dtype=np.int32)
        n_unknown = n_raw - len(ids) if vocabulary is not None else 0
        return cls._assemble(words, lengths, vocab, labels, covariates, empty, label_type,
                             classes, n_unknown, _preprocessing or {})

    @classmethod
    def from_texts(cls, texts: Sequence[str], labels: Any = None, covariates: Any = None, *,
                   vocabulary: Sequence[str] | None = None, min_count: int = 1,
                   max_df: float | int = 1.0, min_length: int = 3,
                   stop_words: Iterable[str] | None = ENGLISH_STOP_WORDS,
                   empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                   classes: Sequence[Any] | None = None) -> "Corpus":
        """Build a corpus from raw strings with the documented tokenizer (see module doc).

        Parameters are those of ``from_tokens`` plus the tokenizer's ``min_length`` and
        ``stop_words`` (``None`` keeps every token).
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a list of strings, got a single str")
        if not isinstance(texts, (Sequence, np.ndarray, pd.Series)):
            raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
        texts = list(texts)
        stops = frozenset(stop_words or ())
        docs = []
        for d, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{d}] must be a str, got {type(t).__name__}")
            docs.append(tokenize(t, min_length, stops))
        prep = {"tokenizer": "letters-lowercase", "min_length": int(min_length),
                "stop_words": sorted(stops) if stops != ENGLISH_STOP_WORDS else "english"}
        return cls.from_tokens(docs, labels, covariates, vocabulary=vocabulary,
                               min_count=min_count, max_df=max_df, empty=empty,
                               label_type=label_type, classes=classes, _preprocessing=prep)

    @classmethod
    def from_matrix(cls, X: Any, vocabulary: Sequence[str] | dict, labels: Any = None,
                    covariates: Any = None, *, empty: EmptyPolicy = "drop",
                    label_type: LabelKind | None = None,
                    classes: Sequence[Any] | None = None) -> "Corpus":
        """Build a corpus from a (documents x words) count matrix, e.g. ``CountVectorizer``.

        Parameters
        ----------
        X : scipy sparse matrix or 2-d array of non-negative integer counts
        vocabulary : sequence of str, or a dict word -> column (``vectorizer.vocabulary_``)
        """
        vocab = _check_vocabulary(vocabulary)
        if sp.issparse(X):
            M = sp.csr_matrix(X)
            M.sum_duplicates()
            data = M.data
        elif isinstance(X, (np.ndarray, list, pd.DataFrame)):
            dense = np.asarray(X)
            if dense.ndim != 2:
                raise ValueError(f"X must be 2-d (documents x words), got shape {dense.shape}")
            if dense.dtype.kind not in "biuf":
                raise TypeError(f"X must hold numeric counts, got dtype {dense.dtype}")
            M = sp.csr_matrix(dense)
            data = M.data
        else:
            raise TypeError(f"X must be a scipy sparse matrix or a 2-d array, got "
                            f"{type(X).__name__}")
        if M.shape[0] == 0:
            raise ValueError("the corpus is empty: X has no rows")
        if M.shape[1] != len(vocab):
            raise ValueError(f"X has {M.shape[1]} columns but vocabulary has {len(vocab)} words")
        if data.dtype.kind not in "biuf":
            raise TypeError(f"X must hold numeric counts, got dtype {data.dtype}")
        if data.dtype.kind == "f":
            if not np.isfinite(data).all():
                raise ValueError("X contains NaN or infinite counts")
            if not np.all(data == np.round(data)):
                pos = np.flatnonzero(data != np.round(data))[0]
                raise ValueError(f"X must hold integer counts; found {data[pos]}")
        if (data < 0).any():
            pos = np.flatnonzero(data < 0)[0]
            row = int(np.searchsorted(M.indptr, pos, side="right") - 1)
            raise ValueError(f"X must hold non-negative counts; found {data[pos]} at row {row}, "
                             f"column {M.indices[pos]} ({vocab[M.indices[pos]]!r})")
        counts = data.astype(np.int64)
        if counts.sum() >= 2**31:
            raise ValueError("X holds 2**31 or more tokens; topicsup indexes tokens with int64 "
                             "pointers but int32 counts per topic")
        words = np.repeat(M.indices.astype(np.int32), counts)
        row_of_nz = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
        lengths = np.bincount(row_of_nz, weights=counts, minlength=M.shape[0]).astype(np.int64)
        return cls._assemble(words, lengths, vocab, labels, covariates, empty, label_type,
                             classes, 0, {})

    @classmethod
    def _assemble(cls, words, lengths, vocab, labels, covariates, empty, label_type, classes,
                  n_unknown, preprocessing) -> "Corpus":
        if empty not in ("drop", "keep", "error"):
            raise ValueError(f"empty must be 'drop', 'keep' or 'error', got {empty!r}")
        n_in = lengths.shape[0]
        lab = make_labels(labels, n_in, label_type, classes) if labels is not None else None
        cov, cov_names = (make_covariates(covariates, n_in) if covariates is not None
                          else (None, ()))
        empties = np.flatnonzero(lengths == 0)
        keep = np.arange(n_in, dtype=np.int64)
        if empties.size and empty == "error":
            raise ValueError(f"{empties.size} document(s) have no tokens after preprocessing, "
                             f"at positions {empties[:20].tolist()}")
        if empties.size and empty == "drop":
            if empties.size == n_in:
                raise ValueError("every document is empty after preprocessing: the corpus has "
                                 "no tokens")
            warnings.warn(f"dropped {empties.size} empty document(s) at positions "
                          f"{empties[:20].tolist()}{'...' if empties.size > 20 else ''}; their "
                          f"positions are in Corpus.dropped_documents", stacklevel=3)
            keep = np.flatnonzero(lengths > 0).astype(np.int64)
            lengths = lengths[keep]
            lab = lab.take(keep) if lab is not None else None
            cov = cov[keep] if cov is not None else None
        else:
            empties = np.zeros(0, np.int64)
        if words.shape[0] == 0 and empty != "keep":
            raise ValueError("the corpus has no tokens after preprocessing")
        doc_ptr = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_ptr[1:])
        return cls(words=np.ascontiguousarray(words, dtype=np.int32), doc_ptr=doc_ptr,
                   vocabulary=tuple(vocab), labels=lab, covariates=cov,
                   covariate_names=cov_names, doc_index=keep,
                   dropped_documents=empties.astype(np.int64), n_unknown_tokens=int(n_unknown),
                   preprocessing=dict(preprocessing))

    # ---------------------------------------------------------------- held-out documents
    def heldout(self, docs: Any) -> "Corpus":
        """``docs`` as documents on this vocabulary, for fold-in: a Corpus that already uses
        it is returned as is; another Corpus, texts, token lists or a count matrix are mapped
        (``map``)."""
        if isinstance(docs, Corpus):
            if docs.vocabulary == self.vocabulary:
                return docs
            docs = [docs.document(d) for d in range(docs.n_docs)]
        return self.map(docs)

    def map(self, docs: Any, labels: Any = None, covariates: Any = None, *,
            empty: EmptyPolicy = "keep") -> "Corpus":
        """Map held-out documents onto this corpus's vocabulary.

        ``docs`` may be raw strings (tokenized with this corpus's settings), token lists, or a
        sparse count matrix whose columns are this vocabulary. Unknown words are dropped and
        counted in ``n_unknown_tokens``; labels use this corpus's classes. Empty documents are
        kept by default so outputs stay aligned with the input.
        """
        kind = self.labels.kind if self.labels is not None else None
        classes = (self.labels.classes if self.labels is not None and kind != "real" else None)
        if sp.issparse(docs) or (isinstance(docs, np.ndarray) and docs.ndim == 2):
            return Corpus.from_matrix(docs, self.vocabulary, labels, covariates, empty=empty,
                                      label_type=kind, classes=classes)
        if isinstance(docs, (str, bytes)):
            raise TypeError("docs must be a list of documents, got a single str")
        docs = list(docs)
        if docs and all(isinstance(t, str) for t in docs):
            prep = self.preprocessing
            stops = prep.get("stop_words", "english")
            stops = ENGLISH_STOP_WORDS if stops == "english" else frozenset(stops)
            toks = [tokenize(t, prep.get("min_length", 3), stops) for t in docs]
        else:
            toks = docs
        out = Corpus.from_tokens(toks, labels, covariates, vocabulary=self.vocabulary,
                                 empty=empty, label_type=kind, classes=classes,
                                 _preprocessing=self.preprocessing)
        return out

    # ---------------------------------------------------------------- persistence
    def to_arrays(self, prefix: str = "corpus/") -> dict[str, np.ndarray]:
        """Plain arrays (no objects) that ``from_arrays`` restores; used by ``Session.save``."""
        out = {
            prefix + "words": self.words, prefix + "doc_ptr": self.doc_ptr,
            prefix + "vocabulary": np.asarray(self.vocabulary, dtype=str),
            prefix + "doc_index": self.doc_index,
            prefix + "dropped_documents": self.dropped_documents,
        }
        if self.labels is not None:
            out[prefix + "labels/values"] = self.labels.values
            out[prefix + "labels/kind"] = np.asarray(self.labels.kind)
            out[prefix + "labels/classes"] = np.asarray(self.labels.classes, dtype=str)
        if self.covariates is not None:
            out[prefix + "covariates"] = self.covariates
            out[prefix + "covariate_names"] = np.asarray(self.covariate_names, dtype=str)
        return out

    @classmethod
    def from_arrays(cls, arrays: Any, meta: dict, prefix: str = "corpus/") -> "Corpus":
        labels = None
        if prefix + "labels/values" in arrays:
            labels = Labels(str(arrays[prefix + "labels/kind"]),
                            np.asarray(arrays[prefix + "labels/values"]),
                            tuple(str(c) for c in arrays[prefix + "labels/classes"]))
        cov = arrays[prefix + "covariates"] if prefix + "covariates" in arrays else None
        names = (tuple(str(c) for c in arrays[prefix + "covariate_names"])
                 if cov is not None else ())
        return cls(words=np.asarray(arrays[prefix + "words"], np.int32),
                   doc_ptr=np.asarray(arrays[prefix + "doc_ptr"], np.int64),
                   vocabulary=tuple(str(w) for w in arrays[prefix + "vocabulary"]),
                   labels=labels, covariates=cov, covariate_names=names,
                   doc_index=np.asarray(arrays[prefix + "doc_index"], np.int64),
                   dropped_documents=np.asarray(arrays[prefix + "dropped_documents"], np.int64),
                   n_unknown_tokens=int(meta.get("n_unknown_tokens", 0)),
                   preprocessing=dict(meta.get("preprocessing", {})))
