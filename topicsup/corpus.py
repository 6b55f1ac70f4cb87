"""Corpus: validated token arrays, a vocabulary, labels and covariates.

Everything a kernel reads comes from here, already checked: word ids in range, document
pointers that partition the tokens, counts non-negative integers, labels aligned with
documents, covariates finite. Kernels never validate, so the checks run in the dataclasses'
``__post_init__`` (a ``Corpus`` or ``Labels`` built directly is checked like one built by a
constructor) and the arrays are stored read-only: a corpus that exists is a valid one.

Texts become tokens and tokens a vocabulary by ``topicsup.text`` (the tokenizer, stop words,
``min_count`` and ``max_df``), in chunks and without a Python object per token by
``topicsup.streaming`` (texts, DataFrames, files; the kept original texts are
``topicsup.originals``'s); count matrices and bags of words are checked by ``topicsup.bow``;
labels, covariates and the pairing of both with the documents' pandas index are
``topicsup.labels``'s. Their public names are offered here too. A corpus saved with
``Corpus.save`` is a directory of ``.npy`` files (``topicsup.npy_dir``) that ``Corpus.load``
opens memory-mapped.

Empty documents (no tokens left after preprocessing): ``empty="drop"`` (the default for
training corpora) removes them with their labels and covariates and records their original
positions in ``Corpus.dropped_documents``; ``"keep"`` (the default of ``Corpus.map`` for test
documents, so predictions stay aligned) keeps them with zero tokens; ``"error"`` raises a
``ValueError`` listing them.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
import warnings
from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Protocol, Sequence, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import npy_dir, streaming
from . import validation as check
from .arrays import F64, I32, I64, Array
# the labels' and the texts' public names, offered where the corpus is (``from
# topicsup.corpus import Labels, make_labels, tokenize``)
from .labels import (COVARIATE_LIMIT, LABEL_KINDS, RESPONSE_LIMIT, LabelForm,
                     LabelKind, Labels, aligned, default_index, input_index, is_pandas,
                     make_covariates, make_labels)
from .text import (ANY_WORD_RE, TOKENIZERS, are_texts, build_vocabulary,
                   callable_name, check_count, check_max_df, check_text, check_vocabulary,
                   custom_tokenizer, stop_word_set, token_spans, tokenize)
from .bow import MAX_BOW_COUNT, bow_matrix, matrix_tokens
from .originals import TextStore
from .validation import frozen_copy

EmptyPolicy = Literal["drop", "keep", "error"]


def _json_plain(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` with numpy scalars and tuples made plain JSON values (checkpoints store
    them as JSON); anything else, or nesting deeper than 32 levels, is refused, naming where
    it was found."""
    if depth > 32:
        raise ValueError(f"{where} is nested more than 32 levels deep")
    if isinstance(value, (str, bool)) or value is None:
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_json_plain(v, f"{where}[{j}]", depth + 1) for j, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where} keys must be str, got {k!r}")
            out[k] = _json_plain(v, f"{where}[{k!r}]", depth + 1)
        return out
    raise TypeError(f"{where} must hold plain values (str, numbers, lists, dicts), got "
                    f"{type(value).__name__}")



def _index_array(name: str, value: Any, dtype: type[np.integer[Any]], *,
                 allow_empty: bool = True) -> Array:
    """A 1-d integer array as a read-only copy of ``dtype``, its values checked to fit."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(value).__name__}")
    if value.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {value.shape}")
    if value.dtype.kind not in "iu" and not (value.size == 0 and allow_empty):
        raise TypeError(f"{name} must hold integers, got dtype {value.dtype}")
    info = np.iinfo(dtype)
    if value.size and (value.min() < info.min or value.max() > info.max):
        raise ValueError(f"{name} has values outside the range of {np.dtype(dtype).name}")
    return frozen_copy(value, dtype)


# what each array of ``to_arrays`` is: its dtype kinds and number of dimensions (None: any),
# checked before ``from_arrays`` reads it from a file (a checkpoint, a saved corpus)
ARRAY_KINDS: dict[str, tuple[str, int | None]] = {
    "words": ("iu", 1), "doc_ptr": ("iu", 1), "vocabulary": ("U", 1), "doc_index": ("iu", 1),
    "dropped_documents": ("iu", 1), "labels/values": ("biuf", None), "labels/kind": ("U", 0),
    "labels/classes": ("U", 1), "covariates": ("biuf", 2), "covariate_names": ("U", 1),
    "index": ("iuU", 1), "index_name": ("U", 0), "texts/offsets": ("i", 1),
    "texts/data": ("u", 1)}


class ArraySource(Protocol):
    """What ``Corpus.from_arrays`` reads: arrays by name (a dict, or a checkpoint's reader)."""

    def __contains__(self, key: str, /) -> bool: ...

    def __getitem__(self, key: str, /) -> Array: ...


@dataclass(frozen=True, eq=False)
class Corpus:
    """A bag-of-words corpus in CSR form, ready for the kernels.

    Build one with ``Corpus.from_texts``, ``Corpus.from_tokens`` or ``Corpus.from_matrix``;
    map held-out documents onto its vocabulary with ``corpus.map(...)``. A Corpus built
    directly from arrays is checked like one built by a constructor (word ids within the
    vocabulary, document pointers from 0 to the number of tokens without going back, labels
    and covariates with a row per document), and its arrays are read-only copies.

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
        Position of each document in the input it was built from (default 0..n_docs-1).
    dropped_documents : ndarray of int64
        Input positions of documents removed as empty.
    n_unknown_tokens : int
        Tokens dropped because they were not in a given vocabulary.
    preprocessing : dict
        Tokenizer settings, reused by ``map`` for held-out texts.
    index : pandas.Index
        The documents' labels, one per document: the index of the Series or DataFrame the
        documents came in (the entries of dropped empty documents removed), so per-document
        outputs (``Session.doc_topics``, predictions) join back onto the user's frame. For
        documents given otherwise (lists, arrays, sparse matrices) it is ``doc_index`` named
        ``"document"``: a ``RangeIndex`` when no document was dropped. Sub-corpora (``take``)
        keep their documents' entries. ``Session.save`` stores an index of integers or str.
    texts : originals.TextStore or None
        The documents' original texts when ``from_texts`` (or ``from_dataframe``,
        ``from_file``) kept them (``keep_texts``): in memory, or in a file read through a
        memory map. Row ``doc_index[d]`` is document ``d``'s (``Corpus.text(d)``).

    Notes
    -----
    Pandas in, pandas out: documents given as a Series (texts or token lists) or a DataFrame
    (counts) lend the corpus their index. Labels or covariates given as pandas objects beside
    them are then aligned by index, as pandas aligns: the same entries in another order are
    reordered to the documents', and any other difference is a ``ValueError`` naming both
    indexes. With documents that are not pandas, labels and covariates pair by position.
    """

    words: I32
    doc_ptr: I64
    vocabulary: tuple[str, ...]
    labels: Labels | None = None
    covariates: F64 | None = None
    covariate_names: tuple[str, ...] = ()
    doc_index: I64 | None = None   # None: 0..n_docs-1, set by __post_init__
    dropped_documents: I64 = field(default_factory=lambda: np.zeros(0, np.int64))
    n_unknown_tokens: int = 0
    preprocessing: dict[str, Any] = field(default_factory=dict)
    index: pd.Index | None = None
    texts: TextStore | None = None

    def __post_init__(self) -> None:
        vocab = check_vocabulary(self.vocabulary)
        words = _index_array("words", self.words, np.int32)
        ptr = _index_array("doc_ptr", self.doc_ptr, np.int64, allow_empty=False)
        if ptr.size < 2:
            raise ValueError(f"doc_ptr must hold n_docs + 1 >= 2 offsets, got {ptr.size}")
        if ptr[0] != 0 or ptr[-1] != words.size:
            raise ValueError(f"doc_ptr must start at 0 and end at the number of tokens "
                             f"({words.size}), got {ptr[0]} ... {ptr[-1]}")
        steps = np.diff(ptr)
        if (steps < 0).any():
            d = int(np.flatnonzero(steps < 0)[0])
            raise ValueError(f"doc_ptr must not decrease; doc_ptr[{d + 1}] = {ptr[d + 1]} < "
                             f"doc_ptr[{d}] = {ptr[d]}")
        if words.size and (words.min() < 0 or words.max() >= len(vocab)):
            i = int(np.flatnonzero((words < 0) | (words >= len(vocab)))[0])
            raise ValueError(f"words[{i}] = {words[i]} is not a word id of the vocabulary "
                             f"(0..{len(vocab) - 1})")
        D = ptr.size - 1
        if self.labels is not None:
            if not isinstance(self.labels, Labels):
                raise TypeError(f"labels must be a topicsup Labels (see make_labels) or None, "
                                f"got {type(self.labels).__name__}")
            if len(self.labels.values) != D:
                raise ValueError(f"labels has {len(self.labels.values)} entries but the corpus "
                                 f"has {D} documents")
        names = tuple(self.covariate_names) if isinstance(
            self.covariate_names, (tuple, list)) else self.covariate_names
        cov = self.covariates
        if cov is not None:
            if not isinstance(cov, np.ndarray) or cov.ndim != 2 or cov.shape[0] != D \
                    or cov.dtype.kind not in "biuf":
                raise ValueError(f"covariates must be a numeric ({D}, P) array, got "
                                 f"{type(cov).__name__} {getattr(cov, 'shape', '')}")
            cov = frozen_copy(cov, np.float64)
            if not np.isfinite(cov).all():
                raise ValueError("covariates must be finite")
            big = np.argwhere(np.abs(cov) > COVARIATE_LIMIT)
            if big.size:
                d, j = big[0]
                raise ValueError(f"covariates must be at most {COVARIATE_LIMIT:g} in magnitude "
                                 f"(standardize them); found {cov[d, j]:g} at row {d}, column "
                                 f"{j}")
            if not names and cov.shape[1]:
                names = tuple(f"x{j}" for j in range(cov.shape[1]))
            if not isinstance(names, tuple) or len(names) != cov.shape[1] \
                    or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
                raise ValueError(f"covariate_names must be {cov.shape[1]} distinct str names, "
                                 f"got {self.covariate_names!r}")
            for n in names:
                check_text("covariate name", n)
        elif names:
            raise ValueError("covariate_names given without covariates")
        index = np.arange(D, dtype=np.int64) if self.doc_index is None else self.doc_index
        index = _index_array("doc_index", index, np.int64)
        if index.size != D:
            raise ValueError(f"doc_index has {index.size} entries but the corpus has {D} "
                             f"documents")
        dropped = _index_array("dropped_documents", self.dropped_documents, np.int64)
        if (index < 0).any() or (dropped < 0).any():
            raise ValueError("doc_index and dropped_documents must be non-negative positions")
        if self.index is None:
            keys = default_index(index)
        elif isinstance(self.index, pd.Index):
            keys = self.index
            if len(keys) != D:
                raise ValueError(f"index (the documents' pandas index) has {len(keys)} entries "
                                 f"but the corpus has {D} documents")
        else:
            raise TypeError(f"index must be a pandas Index (one entry per document) or None, "
                            f"got {type(self.index).__name__}")
        if self.texts is not None:
            if not isinstance(self.texts, TextStore):
                raise TypeError(f"texts must be a topicsup.originals.TextStore or None, got "
                                f"{type(self.texts).__name__}")
            if D and int(index.max()) >= len(self.texts):
                raise ValueError(f"texts holds {len(self.texts)} texts, but a document comes "
                                 f"from input position {int(index.max())}")
        n_unknown = check.integer("n_unknown_tokens", self.n_unknown_tokens, low=0)
        if not isinstance(self.preprocessing, dict):
            raise TypeError(f"preprocessing must be a dict, got "
                            f"{type(self.preprocessing).__name__}")
        object.__setattr__(self, "preprocessing", _json_plain(self.preprocessing,
                                                              "preprocessing"))
        for name, value in (("vocabulary", vocab), ("words", words), ("doc_ptr", ptr),
                            ("covariates", cov), ("covariate_names", names if cov is not None
                                                  else ()),
                            ("doc_index", index), ("dropped_documents", dropped),
                            ("n_unknown_tokens", n_unknown), ("index", keys)):
            object.__setattr__(self, name, value)

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
    def doc_lengths(self) -> I64:
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
        d = check.integer("d", d, low=0, high=self.n_docs - 1)
        return [self.vocabulary[w] for w in self.words[self.doc_ptr[d]:self.doc_ptr[d + 1]]]

    def text(self, d: int) -> str:
        """Document ``d``'s original text, when the corpus kept them (``keep_texts``)."""
        if self.texts is None:
            raise ValueError("the corpus kept no texts: build it with from_texts(..., "
                             "keep_texts=True) or keep_texts='file'")
        d = check.integer("d", d, low=0, high=self.n_docs - 1)
        return self.texts[int(cast(I64, self.doc_index)[d])]

    def spans(self, d: int) -> list[tuple[int, int]] | None:
        """Where document ``d``'s tokens lie in its original text (``text(d)``): (start,
        end) per token, in the order of its tokens; None when the corpus kept no texts or
        its tokenizer's positions are not known (a tokenizer of yours), or when the text's
        tokens are not the document's (checked, word by word)."""
        if self.texts is None or self.preprocessing.get("tokenizer") != "letters-lowercase":
            return None
        text = self.text(d)
        stops = stop_word_set(self.preprocessing.get("stop_words", "english"))
        min_length = int(self.preprocessing.get("min_length", 3))
        ids = self._word_ids
        found = [(a, b, ids.get(t, -1)) for a, b, t in token_spans(text, min_length, stops)]
        kept = [(a, b, w) for a, b, w in found if w >= 0]
        words = self.words[self.doc_ptr[d]:self.doc_ptr[d + 1]]
        if len(kept) != words.shape[0] or any(w != v for (_, _, w), v in zip(kept, words)):
            return None
        return [(a, b) for a, b, _ in kept]

    @functools.cached_property
    def _word_ids(self) -> dict[str, int]:
        return {w: j for j, w in enumerate(self.vocabulary)}

    def take(self, index: Any) -> "Corpus":
        """The documents at positions ``index`` (in that order), with their tokens in order,
        labels, covariates, input positions and entries of ``Corpus.index`` (so a sub-corpus's
        outputs still join onto the user's frame); the vocabulary and preprocessing unchanged
        (e.g. to subsample one class, or split train and test). What the parent dropped
        (empty documents, unknown tokens) is not carried over: it describes other documents.

        Parameters
        ----------
        index : array-like of int
            Positions 0..n_docs-1; repeats are allowed.
        """
        idx = np.asarray(index)
        if idx.dtype == bool or not (idx.size == 0 or np.issubdtype(idx.dtype, np.integer)) \
                or idx.ndim != 1:
            raise TypeError(f"index must be a 1-d array of document positions (integers), got "
                            f"{idx.dtype} with shape {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_docs):
            bad = int(idx[(idx < 0) | (idx >= self.n_docs)][0])
            raise ValueError(f"index holds {bad}, not a document position (0..{self.n_docs - 1})")
        if idx.size == 0:
            raise ValueError("index selects no document; a corpus holds at least one")
        idx = idx.astype(np.int64)
        lengths = self.doc_lengths[idx]
        ptr = np.zeros(idx.size + 1, np.int64)
        np.cumsum(lengths, out=ptr[1:])
        starts = np.repeat(self.doc_ptr[idx] - ptr[:-1], lengths)
        words = self.words[starts + np.arange(ptr[-1])] if ptr[-1] else self.words[:0]
        return dataclasses.replace(
            self, words=words, doc_ptr=ptr,
            labels=None if self.labels is None else self.labels.take(idx),
            covariates=None if self.covariates is None else self.covariates[idx],
            doc_index=cast(I64, self.doc_index)[idx], dropped_documents=np.zeros(0, np.int64),
            n_unknown_tokens=0, preprocessing=dict(self.preprocessing),
            index=cast(pd.Index, self.index)[idx])   # both set by __post_init__

    def blocks(self, block_tokens: int) -> I64:
        """Document boundaries (0 .. n_docs) cutting the corpus into blocks of about
        ``block_tokens`` tokens each, whole documents only: a Session checks for a stop
        request between two blocks."""
        block_tokens = check.integer("block_tokens", block_tokens, low=1, high=2**62)
        ptr = self.doc_ptr
        cuts = np.searchsorted(ptr, np.arange(block_tokens, ptr[-1], block_tokens))
        return np.unique(np.concatenate([[0], cuts, [self.n_docs]])).astype(np.int64)

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
                    _preprocessing: dict[str, Any] | None = None,
                    _index: pd.Index | None = None) -> "Corpus":
        """Build a corpus from documents given as lists of tokens.

        Parameters
        ----------
        docs : sequence of sequences of str, or a pandas Series of them
            One list of tokens per document (used as given: no lowercasing or stop words). A
            Series's index becomes the corpus's ``index`` (see the class's Notes).
        labels, covariates : optional
            See ``make_labels`` and ``make_covariates``. With documents in a Series, labels
            and covariates given as pandas objects are aligned by index (see the Notes of
            ``Corpus``; a mismatch is a ``ValueError`` naming both indexes).
        vocabulary : sequence of str, optional
            Map onto this vocabulary (unknown tokens are dropped and counted); when omitted it
            is built from ``docs`` with ``min_count`` and ``max_df``.
        empty : {"drop", "keep", "error"}
            What to do with documents left without tokens.
        """
        if isinstance(docs, (str, bytes, Mapping, Set)) or not isinstance(
                docs, (Sequence, np.ndarray, pd.Series)):
            raise TypeError(f"docs must be a list of token lists, got {type(docs).__name__}")
        doc_keys = input_index(docs) if _index is None else _index
        docs = list(docs)
        if len(docs) == 0:
            raise ValueError("the corpus is empty: no documents were given")
        check.choice("empty", empty, ("drop", "keep", "error"))
        for d, toks in enumerate(docs):
            if isinstance(toks, (str, bytes)) or not isinstance(toks, (Sequence, np.ndarray)):
                raise TypeError(f"docs[{d}] must be a list of str tokens, got "
                                f"{type(toks).__name__}")
            for t in toks:
                if not isinstance(t, str):
                    raise TypeError(f"docs[{d}] contains a token of type {type(t).__name__}; "
                                    f"tokens must be str")
        if vocabulary is None:
            vocab = tuple(build_vocabulary(docs, min_count, max_df))
            if not vocab:
                raise ValueError(f"no word survives min_count={min_count} and max_df={max_df}; "
                                 f"the corpus would have no tokens")
        else:
            check_count("min_count", min_count)
            check_max_df(max_df)
            if min_count != 1 or max_df != 1.0:
                raise ValueError(f"min_count and max_df build a vocabulary; with vocabulary= "
                                 f"given they would do nothing (got min_count={min_count!r}, "
                                 f"max_df={max_df!r}): filter the vocabulary instead")
            vocab = check_vocabulary(vocabulary)
        index = {w: j for j, w in enumerate(vocab)}
        lengths = np.zeros(len(docs), dtype=np.int64)
        ids: list[int] = []
        n_raw = 0
        for d, toks in enumerate(docs):
            mapped = [index[t] for t in toks if t in index]
            n_raw += len(toks)
            lengths[d] = len(mapped)
            ids.extend(mapped)
        if len(ids) > check.INT32_MAX:
            raise ValueError(f"the documents hold {len(ids)} tokens; topicsup counts tokens "
                             f"per topic in int32, so at most {check.INT32_MAX}")
        words = np.asarray(ids, dtype=np.int32)
        n_unknown = n_raw - len(ids) if vocabulary is not None else 0
        return cls._assemble(words, lengths, vocab, labels, covariates, empty, label_type,
                             classes, n_unknown, _preprocessing or {}, doc_keys)

    @classmethod
    def from_texts(cls, texts: Iterable[str], labels: Any = None, covariates: Any = None, *,
                   vocabulary: Sequence[str] | None = None, min_count: int = 1,
                   max_df: float | int = 1.0, min_length: int | None = None,
                   stop_words: str | Iterable[str] | None = "english",
                   empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                   classes: Sequence[Any] | None = None,
                   tokenizer: Callable[[str], Iterable[str]] | None = None,
                   keep_texts: bool | str | os.PathLike[str] = False) -> "Corpus":
        """Build a corpus from raw strings with the documented tokenizer (see module doc), or
        your own.

        Parameters are those of ``from_tokens`` plus ``min_length`` (shortest token kept: 3
        with the built-in tokenizer, 1 with yours), ``stop_words`` (``"english"``, the default
        list; ``None`` keeps every token; or an iterable of str), ``tokenizer``: a callable
        from a text to its tokens (str), e.g. spaCy's ``lambda t: [w.lemma_.lower() for w in
        nlp(t) if w.is_alpha]`` or a Chinese word segmenter; its tokens are kept as given (no
        lowercasing), then the stop words and ``min_length`` apply. The corpus records which
        tokenizer made it (its module and name) in ``preprocessing``, and so does a
        checkpoint. ``texts`` may be a pandas Series, whose index becomes the corpus's
        ``index`` (labels and covariates given as pandas objects are then aligned by it), or
        any iterable of str, a generator included: it is read once, in chunks, and no
        Python object is kept per token (``topicsup.streaming``).

        ``keep_texts``: keep the original texts beside the corpus (``Corpus.texts``,
        ``Corpus.text(d)``; ``representative_docs`` shows them with the topic's words
        marked): ``True`` in memory, or a file path to write them to, read back through a
        memory map (for corpora whose texts should not sit in RAM).

        Examples
        --------
        >>> corpus = Corpus.from_texts(df["text"], labels=df["label"])   # doctest: +SKIP
        >>> df.join(Session(LDA(K=10), corpus).doc_topics())           # doctest: +SKIP
        >>> Corpus.from_texts(texts, tokenizer=jieba.lcut)              # doctest: +SKIP
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a list of strings, got a single str")
        if isinstance(texts, (Mapping, Set)) or not isinstance(texts, Iterable):
            raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
        tok = streaming.make_tokenizer(vocabulary, min_count, max_df, min_length, stop_words,
                                       tokenizer, keep_texts)
        index = input_index(texts)
        return cls._from_stream(tok, streaming.chunks(texts),
                                lambda: (labels, covariates, index), empty, label_type, classes)

    @classmethod
    def from_dataframe(cls, data: pd.DataFrame | Iterable[pd.DataFrame], text: str = "text",
                       labels: str | Sequence[str] | None = None,
                       covariates: Sequence[str] | None = None, **options: Any) -> "Corpus":
        """Build a corpus from a DataFrame's column of texts, or from DataFrames in chunks
        (``pd.read_csv(path, chunksize=100_000)``, a generator of your own), read once with
        bounded memory.

        Parameters
        ----------
        data : DataFrame or iterable of DataFrames
            Rows are documents; their index becomes the corpus's ``index``.
        text : str
            The column of texts.
        labels : str, sequence of str or None
            The column of labels (class names, numbers, real values, or collections of
            class names for multi-label), or several 0/1 columns, one per class
            (multi-label, named by class).
        covariates : sequence of str or None
            Numeric columns, the documents' covariates.
        **options
            Those of ``from_texts`` (``keep_texts``, ``min_count``, ``tokenizer``, ...).
        """
        tok, rest = streaming.tokenizer_options(options)
        parts = streaming.FrameChunks(data, text, labels, covariates)
        return cls._from_stream(tok, parts.texts(), parts.collected, **rest)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], text: str = "text",
                  labels: str | Sequence[str] | None = None,
                  covariates: Sequence[str] | None = None, *, format: str | None = None,
                  batch_size: int = 65_536, **options: Any) -> "Corpus":
        """Build a corpus from a CSV, Parquet or Arrow (Feather, IPC) file, read in batches
        of ``batch_size`` rows with bounded memory (Parquet and Arrow need ``pyarrow``:
        ``pip install topicsup[parquet]``). ``format`` is ``"csv"``, ``"parquet"`` or
        ``"arrow"``, by default the file's suffix (``.csv``, ``.parquet`` / ``.pq``,
        ``.arrow`` / ``.feather`` / ``.ipc``). Columns and options are those of
        ``from_dataframe``; the documents are numbered by their row (``index``)."""
        tok, rest = streaming.tokenizer_options(options)
        frames = streaming.read_file(path, format, [text, *streaming.columns(labels),
                                                    *(covariates or [])], batch_size)
        parts = streaming.FrameChunks(frames, text, labels, covariates, keep_index=False)
        return cls._from_stream(tok, parts.texts(), parts.collected, **rest)

    @classmethod
    def _from_stream(cls, tok: streaming.Tokenizer,
                     chunks: Iterable[tuple[int, list[Any]]],
                     collected: Callable[[], tuple[Any, Any, pd.Index | None]],
                     empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                     classes: Sequence[Any] | None = None) -> "Corpus":
        """The corpus of texts coming in chunks (``streaming.chunks``); ``collected()``, once
        they are read, gives the labels, covariates and pandas index for ``_assemble``."""
        check.choice("empty", empty, ("drop", "keep", "error"))
        try:
            for first, chunk in chunks:
                tok.add(chunk, first)
            out = tok.finish()
        except BaseException:
            tok.abort()
            raise
        if out.lengths.shape[0] == 0:
            raise ValueError("the corpus is empty: no documents were given")
        if tok.vocabulary is None and not out.vocabulary:
            raise ValueError(f"no word survives min_count={tok.min_count} and "
                             f"max_df={tok.max_df}; the corpus would have no tokens")
        labels, covariates, index = collected()
        return cls._assemble(out.words, out.lengths, out.vocabulary, labels, covariates, empty,
                             label_type, classes, out.n_unknown, tok.preprocessing, index,
                             texts=out.texts)

    @classmethod
    def from_bow(cls, bow: Any, dictionary: Any, labels: Any = None, covariates: Any = None,
                 *, empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                 classes: Sequence[Any] | None = None) -> "Corpus":
        """Build a corpus from gensim's bags of words: one list of ``(word id, count)`` pairs
        per document, with the ``gensim.corpora.Dictionary`` (or any mapping word id -> word)
        that names the ids; the rest as ``from_matrix``.

        Examples
        --------
        >>> dictionary = gensim.corpora.Dictionary(tokenized)             # doctest: +SKIP
        >>> bow = [dictionary.doc2bow(doc) for doc in tokenized]          # doctest: +SKIP
        >>> corpus = Corpus.from_bow(bow, dictionary, labels=y)           # doctest: +SKIP
        """
        X, words = bow_matrix(bow, dictionary)
        return cls.from_matrix(X, words, labels, covariates, empty=empty,
                               label_type=label_type, classes=classes)

    @classmethod
    def from_matrix(cls, X: Any, vocabulary: Sequence[str] | dict[str, int] | None = None,
                    labels: Any = None, covariates: Any = None, *,
                    empty: EmptyPolicy = "drop", label_type: LabelKind | None = None,
                    classes: Sequence[Any] | None = None) -> "Corpus":
        """Build a corpus from a (documents x words) count matrix, e.g. ``CountVectorizer``.

        Parameters
        ----------
        X : scipy sparse matrix, 2-d array or DataFrame of non-negative integer counts
            A DataFrame's index becomes the corpus's ``index`` (labels and covariates given
            as pandas objects are then aligned by it; see the Notes of ``Corpus``).
        vocabulary : sequence of str, or a dict word -> column (``vectorizer.vocabulary_``)
            The word of every column; optional for a DataFrame, whose column names are used
            (and must match ``vocabulary`` when both are given).
        """
        index = input_index(X)
        words, lengths, vocab = matrix_tokens(X, vocabulary, empty)
        return cls._assemble(words, lengths, vocab, labels, covariates, empty, label_type,
                             classes, 0, {"tokenizer": "words-lowercase"}, index)

    @classmethod
    def _assemble(cls, words: I32, lengths: I64, vocab: tuple[str, ...], labels: Any,
                  covariates: Any, empty: EmptyPolicy, label_type: LabelKind | None,
                  classes: Sequence[Any] | None, n_unknown: int, preprocessing: dict[str, Any],
                  index: pd.Index | None = None, texts: TextStore | None = None) -> "Corpus":
        """The corpus of the input documents' tokens; ``index`` is the pandas index they came
        with (None: not pandas), by which pandas labels and covariates are aligned."""
        check.choice("empty", empty, ("drop", "keep", "error"))
        n_in = lengths.shape[0]
        labels = aligned(labels, index, "labels")
        covariates = aligned(covariates, index, "covariates")
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
            index = index[keep] if index is not None else None
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
                   preprocessing=dict(preprocessing), index=index, texts=texts)

    # ---------------------------------------------------------------- held-out documents
    def heldout(self, docs: Any) -> "Corpus":
        """``docs`` as documents on this vocabulary, for fold-in: a Corpus that already uses
        it is returned as is; another Corpus (with its covariates; its labels are not needed
        to predict), texts, token lists, a count matrix or a DataFrame of counts are mapped
        (``map``), a Series's or DataFrame's index kept as the result's ``index``, and a
        mapped Corpus keeps its own. The covariates must be this corpus's (the same columns),
        since the model's weights read them."""
        if isinstance(docs, Corpus):
            if docs.vocabulary != self.vocabulary:
                cov = None if docs.covariates is None else pd.DataFrame(
                    docs.covariates, columns=list(docs.covariate_names))
                docs = dataclasses.replace(
                    self.map([docs.document(d) for d in range(docs.n_docs)], covariates=cov),
                    index=docs.index)
        else:
            docs = self.map(docs)
        if self.covariate_names != docs.covariate_names:
            raise ValueError(f"the held-out documents have the covariates "
                             f"{list(docs.covariate_names)}, the model's corpus "
                             f"{list(self.covariate_names)}: the weights read those columns")
        return docs

    def map(self, docs: Any, labels: Any = None, covariates: Any = None, *,
            empty: EmptyPolicy = "keep") -> "Corpus":
        """Map held-out documents onto this corpus's vocabulary.

        ``docs`` may be raw strings (tokenized with this corpus's settings), token lists, or a
        count matrix whose columns are this vocabulary (scipy sparse, a 2-d array, or a
        DataFrame whose columns, if named by words, must be this vocabulary). Unknown words
        are dropped and counted in ``n_unknown_tokens``; labels use this corpus's classes.
        Empty documents are kept by default so outputs stay aligned with the input. Documents
        in a pandas Series or DataFrame give the result their index (labels and covariates
        given as pandas objects are aligned by it, as in ``from_tokens``).
        """
        kind = self.labels.kind if self.labels is not None else None
        classes = (self.labels.classes if self.labels is not None and kind != "real" else None)
        if isinstance(docs, pd.DataFrame):
            return Corpus.from_matrix(docs, self.vocabulary, labels, covariates, empty=empty,
                                      label_type=kind, classes=classes)
        if sp.issparse(docs) or (isinstance(docs, np.ndarray) and docs.ndim == 2
                                 and docs.dtype.kind in "biuf"):
            return Corpus.from_matrix(docs, self.vocabulary, labels, covariates, empty=empty,
                                      label_type=kind, classes=classes)
        if isinstance(docs, (str, bytes)):
            raise TypeError("docs must be a list of documents, got a single str")
        if isinstance(docs, (Mapping, Set)) or not isinstance(
                docs, (Sequence, np.ndarray, pd.Series)):
            raise TypeError(f"docs must be texts, token lists, a count matrix or a Corpus, got "
                            f"{type(docs).__name__}")
        index = input_index(docs)
        docs = list(docs)
        toks = [self._tokenizer_of_corpus(t) for t in docs] if are_texts(docs) else docs
        out = Corpus.from_tokens(toks, labels, covariates, vocabulary=self.vocabulary,
                                 empty=empty, label_type=kind, classes=classes,
                                 _preprocessing=self.preprocessing, _index=index)
        n_all = out.n_tokens + out.n_unknown_tokens
        if n_all and out.n_unknown_tokens > 0.5 * n_all:
            warnings.warn(f"{out.n_unknown_tokens} of the {n_all} tokens of the mapped documents "
                          f"are not in the vocabulary ({self.n_words} words such as "
                          f"{list(self.vocabulary[:3])}); if the vocabulary came from another "
                          f"tokenizer, map token lists instead of texts", stacklevel=2)
        return out

    def _tokenizer_of_corpus(self, text: str) -> list[str]:
        """Tokenize a held-out text as this corpus's texts were: ``from_texts`` records its
        tokenizer; a corpus built from tokens or a count matrix records none, and its texts
        are split into runs of word characters, lowercased unless the vocabulary has capital
        letters, with nothing dropped (the vocabulary decides what is kept)."""
        prep = self.preprocessing
        kind = prep.get("tokenizer", "words-lowercase")
        if kind not in TOKENIZERS:
            raise ValueError(f"preprocessing names the unknown tokenizer {kind!r}")
        if kind == "words-lowercase":
            if self._cased_vocabulary:
                return ANY_WORD_RE.findall(text)
            return ANY_WORD_RE.findall(text.lower())
        stops = stop_word_set(prep.get("stop_words", "english"))
        min_length = check.integer("preprocessing min_length", prep.get("min_length", 3), low=1)
        return tokenize(text, min_length, stops)

    @property
    def _cased_vocabulary(self) -> bool:
        return any(w != w.lower() for w in self.vocabulary)

    # ---------------------------------------------------------------- persistence
    def to_arrays(self, prefix: str = "corpus/") -> dict[str, Array]:
        """Plain arrays (no objects) that ``from_arrays`` restores; used by ``Session.save``.

        ``index`` is stored as ``index`` (integers, or str) and ``index_name`` (a 0-d str
        array; absent when the name is None). An index of another kind (dates, floats, a
        MultiIndex, missing entries) or a name that is not a str is refused with a
        ``ValueError``: a checkpoint holds plain arrays that loading can check.
        """
        out: dict[str, Array] = {
            prefix + "words": self.words, prefix + "doc_ptr": self.doc_ptr,
            prefix + "vocabulary": np.asarray(self.vocabulary, dtype=str),
            prefix + "doc_index": cast(I64, self.doc_index),   # set by __post_init__
            prefix + "dropped_documents": self.dropped_documents,
            **_index_arrays(cast(pd.Index, self.index), prefix),
        }
        if self.labels is not None:
            out[prefix + "labels/values"] = self.labels.values
            out[prefix + "labels/kind"] = np.asarray(self.labels.kind)
            out[prefix + "labels/classes"] = np.asarray(self.labels.classes, dtype=str)
        if self.covariates is not None:
            out[prefix + "covariates"] = self.covariates
            out[prefix + "covariate_names"] = np.asarray(self.covariate_names, dtype=str)
        if self.texts is not None:   # a file's texts stay in it (``texts_file``)
            out[prefix + "texts/offsets"] = self.texts.offsets
            if self.texts.path is None:
                out[prefix + "texts/data"] = np.asarray(self.texts.data)
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Save the corpus to the directory ``path`` (one ``.npy`` file an array, written
        atomically; an existing saved corpus there is replaced) for ``Corpus.load``, which
        opens it memory-mapped: build a large corpus once, open it in milliseconds after.
        Kept texts in memory are saved with it; texts in a file stay there (their path is
        recorded). Returns the path."""
        meta = {"format": "topicsup-corpus", "version": 1,
                "n_unknown_tokens": self.n_unknown_tokens,
                "preprocessing": self.preprocessing, **self.texts_meta()}
        return npy_dir.write(path, self.to_arrays(prefix=""), meta)

    @classmethod
    def load(cls, path: str | os.PathLike[str], mmap: bool = True) -> "Corpus":
        """The corpus ``save`` wrote to ``path``, checked as any Corpus is (the directory is
        untrusted input: no pickles, every array's kind checked). ``mmap``: its token arrays
        stay read-only memory maps of their files (the operating system reads them as the
        kernels touch them), else they are read into memory."""
        arrays = npy_dir.Arrays(path, ARRAY_KINDS, mmap=mmap)
        meta = arrays.meta
        if meta.get("format") != "topicsup-corpus" or meta.get("version") != 1:
            raise ValueError(f"{path} is not a topicsup corpus (format "
                             f"{meta.get('format')!r}, version {meta.get('version')!r})")
        texts = {k: meta.get(k) for k in ("texts_file", "texts_fingerprint")}
        for k, v in texts.items():
            if v is not None and not isinstance(v, str):
                raise ValueError(f"{path}: {k} must be a string or null, got {v!r}")
        return cls.from_arrays(arrays, {"n_unknown_tokens": meta.get("n_unknown_tokens", 0),
                                        "preprocessing": meta.get("preprocessing", {}),
                                        **texts}, prefix="")

    def texts_file(self) -> str | None:
        """Where the kept texts are, when in a file (a checkpoint records it)."""
        return None if self.texts is None or self.texts.path is None \
            else str(self.texts.path.resolve())

    def texts_meta(self) -> dict[str, str]:
        """What a checkpoint or a saved corpus records of texts kept in a file: its path and
        fingerprint (``originals.fingerprint``; the file is checked against it on load)."""
        where = self.texts_file()
        return {} if where is None or self.texts is None else {
            "texts_file": where, "texts_fingerprint": self.texts.fingerprint()}

    @classmethod
    def from_arrays(cls, arrays: ArraySource, meta: dict[str, Any],
                    prefix: str = "corpus/") -> "Corpus":
        """The corpus ``to_arrays`` wrote, checked as any Corpus is (``__post_init__``)."""
        labels = None
        if prefix + "labels/values" in arrays:
            # the kind is checked by Labels as any kind is
            labels = Labels(cast(LabelKind, str(arrays[prefix + "labels/kind"])),
                            np.asarray(arrays[prefix + "labels/values"]),
                            tuple(str(c) for c in arrays[prefix + "labels/classes"]))
        cov = arrays[prefix + "covariates"] if prefix + "covariates" in arrays else None
        names = (tuple(str(c) for c in arrays[prefix + "covariate_names"])
                 if cov is not None else ())
        # written since checkpoint format 3; older files get the default index
        index = (_index_of_arrays(np.asarray(arrays[prefix + "index"]),
                                  arrays[prefix + "index_name"] if prefix + "index_name"
                                  in arrays else None)
                 if prefix + "index" in arrays else None)
        texts = None
        if prefix + "texts/offsets" in arrays:
            offsets = np.asarray(arrays[prefix + "texts/offsets"])
            if prefix + "texts/data" in arrays:
                texts = TextStore(np.asarray(arrays[prefix + "texts/data"]), offsets)
            elif isinstance(meta.get("texts_file"), str):
                try:
                    expected = meta.get("texts_fingerprint")
                    texts = TextStore.open(meta["texts_file"], offsets,
                                           expected if isinstance(expected, str) else None)
                except (OSError, ValueError) as e:   # the chain is whole without them
                    warnings.warn(f"the corpus's kept texts are not read: {e}", stacklevel=4)
        # the token arrays as read: a saved corpus's memory maps stay maps (frozen_copy)
        return cls(words=arrays[prefix + "words"], doc_ptr=arrays[prefix + "doc_ptr"],
                   vocabulary=tuple(str(w) for w in arrays[prefix + "vocabulary"]),
                   labels=labels, covariates=cov, covariate_names=names,
                   doc_index=np.asarray(arrays[prefix + "doc_index"]),
                   dropped_documents=np.asarray(arrays[prefix + "dropped_documents"]),
                   n_unknown_tokens=meta.get("n_unknown_tokens", 0),
                   preprocessing=dict(meta.get("preprocessing", {})), index=index,
                   texts=texts)


def _index_arrays(index: pd.Index, prefix: str) -> dict[str, Array]:
    """``Corpus.index`` as the plain arrays a checkpoint holds (see ``Corpus.to_arrays``)."""
    name = index.name
    if name is not None and not isinstance(name, str):
        raise ValueError(f"the corpus's index is named {name!r}; a checkpoint stores a str name "
                         f"or none (rename it: index.rename(str(name)) or index.rename(None))")
    if not isinstance(index, pd.MultiIndex) and index.dtype.kind in "iu" \
            and not index.hasnans:
        values = index.to_numpy(dtype=np.uint64 if index.dtype.kind == "u" else np.int64)
    elif not isinstance(index, pd.MultiIndex) and (
            index.dtype == object or isinstance(index.dtype, pd.StringDtype)) \
            and all(isinstance(v, str) and "\x00" not in v for v in index):
        values = np.asarray(index.tolist(), dtype=str).reshape(-1)
    else:
        raise ValueError(f"the corpus's index has dtype {index.dtype} ({type(index).__name__}, "
                         f"e.g. {index[0]!r}); a checkpoint stores an index of integers or of "
                         f"str without NUL characters or missing entries: give the documents "
                         f"such an index (e.g. texts.set_axis(texts.index.astype(str))) or "
                         f"keep this one as a column")
    out = {prefix + "index": values}
    if name is not None:
        out[prefix + "index_name"] = np.asarray(check_text("index name", name), dtype=str)
    return out


def _index_of_arrays(values: Array, name: Any) -> pd.Index:
    """The index ``_index_arrays`` wrote, checked (a checkpoint is untrusted): a 1-d array of
    integers or str, a name that is a 0-d str array. Its length is checked by ``Corpus``."""
    if values.ndim != 1 or values.dtype.kind not in "iuU":
        raise ValueError(f"index must be a 1-d array of integers or str, got dtype "
                         f"{values.dtype} and shape {values.shape}")
    if name is not None:
        name = np.asarray(name)
        if name.ndim != 0 or name.dtype.kind != "U":
            raise ValueError(f"index_name must be a 0-d str array, got dtype {name.dtype} and "
                             f"shape {name.shape}")
        name = str(name)
    if values.dtype.kind == "U":
        return pd.Index(values.tolist(), name=name)
    if np.array_equal(values, np.arange(values.size)):
        return pd.RangeIndex(values.size, name=name)
    return pd.Index(values, name=name)


__all__ = ["ANY_WORD_RE", "ArraySource", "COVARIATE_LIMIT", "Corpus", "EmptyPolicy",
           "LABEL_KINDS", "LabelForm", "LabelKind", "Labels", "MAX_BOW_COUNT", "RESPONSE_LIMIT",
           "TOKENIZERS", "aligned", "are_texts", "build_vocabulary", "callable_name",
           "check_count", "check_max_df", "check_text", "check_vocabulary", "custom_tokenizer",
           "default_index", "input_index", "is_pandas", "make_covariates", "make_labels",
           "stop_word_set", "tokenize"]
