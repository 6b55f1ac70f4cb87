"""Texts to a corpus's arrays in chunks, with no Python object per token: the large-corpus
path behind ``Corpus.from_texts``, ``Corpus.from_dataframe`` and ``Corpus.from_parquet``.

Each chunk of texts (about ``CHUNK_CHARS`` code points) is lowercased document by document,
laid out as one array of code points, and tokenized and interned by ``kernels.tokens``: the
built-in tokenizer's rule (``topicsup.text``: maximal runs of letters, at least
``min_length`` long, stop words dropped), word ids straight into numpy. A user's tokenizer
runs in Python on each document, as before, and its tokens are interned the same way. What
is held between chunks is the word ids (4 bytes a token), the interned words and their
counts; at the end the vocabulary is chosen (``min_count``, ``max_df``, sorted, as
``text.build_vocabulary``) and the ids renumbered into the corpus's ``words``. The result
is the one ``Corpus.from_tokens`` gives on the tokenizer's lists (tested on every kind of
text), at a fraction of the time and memory.

The kept original texts (``keep_texts``) go to a ``originals.TextWriter`` as each chunk
passes."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import I32, I64, Array
from .kernels import tokens as tk
from .originals import TextStore, TextWriter, keep_texts_option
from .stopwords import ENGLISH_STOP_WORDS
from .text import (WORD_RE, callable_name, check_count, check_max_df, check_vocabulary,
                   custom_tokenizer, stop_word_set, tokenize)

# code points per chunk: about 16 MB of code points and 4 MB of flags in flight
CHUNK_CHARS = 1 << 22

UNICODE = 0x110000   # code points


class Letters:
    """Which code points a tokenizer's pattern takes as letters (its single characters'
    matches), as a table over all of Unicode the kernel reads; each code point is asked of
    the pattern the first time a chunk holds it."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.table = np.zeros(UNICODE, np.bool_)
        self.known = np.zeros(UNICODE, np.bool_)
        ascii_ = np.arange(128)
        self.table[ascii_] = [pattern.fullmatch(chr(c)) is not None for c in range(128)]
        self.known[ascii_] = True

    def learn(self, cps: Array) -> Array:
        """The table, knowing every code point of ``cps``."""
        high = cps[cps >= 128]   # ASCII is known from the start
        new = np.unique(high[~self.known[high]])
        if new.size:
            self.table[new] = np.fromiter(
                (self.pattern.fullmatch(chr(c)) is not None for c in new.tolist()),
                np.bool_, new.size)
            self.known[new] = True
        return self.table


def code_points(texts: list[str]) -> tuple[Array, I64]:
    """The texts as one uint32 array of code points and their pointers (lone surrogates
    kept as code points, as Python's ``str`` keeps them)."""
    ptr = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)), out=ptr[1:])
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), np.uint32)
    return cps, ptr


class Interner:
    """The interned words and their counts (``kernels.tokens.Table``), grown as needed."""

    def __init__(self, words: int = 1 << 14, chars: int = 1 << 17) -> None:
        self.t = tk.Table(slots=np.full(4 * words, tk.EMPTY, np.int64),
                          hashes=np.zeros(words, np.uint64),
                          starts=np.zeros(words + 1, np.int64),
                          chars=np.zeros(chars, np.uint32),
                          total=np.zeros(words, np.int64), docs=np.zeros(words, np.int64),
                          last=np.zeros(words, np.int64), stop=np.zeros(words, np.bool_),
                          used=np.zeros(2, np.int64))

    @property
    def n_words(self) -> int:
        return int(self.t.used[0])

    def reserve(self, words: int, chars: int) -> None:
        """Room for ``words`` more words of ``chars`` more code points in all."""
        t = self.t
        need_w = int(t.used[0]) + words
        need_c = int(t.used[1]) + chars
        cap_w = t.hashes.shape[0]
        new = {}
        if need_w > cap_w:
            cap = max(2 * cap_w, need_w)
            for name in ("hashes", "total", "docs", "last", "stop"):
                old = getattr(t, name)
                grown = np.zeros(cap, old.dtype)
                grown[:old.shape[0]] = old
                new[name] = grown
            starts = np.zeros(cap + 1, np.int64)
            starts[:t.starts.shape[0]] = t.starts
            new["starts"] = starts
        if need_c > t.chars.shape[0]:
            chars_ = np.zeros(max(2 * t.chars.shape[0], need_c), np.uint32)
            chars_[:t.chars.shape[0]] = t.chars
            new["chars"] = chars_
        if 2 * need_w > t.slots.shape[0]:
            n = t.slots.shape[0]
            while 2 * need_w > n:
                n *= 2
            slots = np.full(n, tk.EMPTY, np.int64)
            tk.rehash(t, slots)
            new["slots"] = slots
        if new:
            self.t = t._replace(**new)

    def intern(self, words: list[str], stop: bool = False) -> I64:
        """Ids of ``words`` (new ones added; ``stop``: marked as stop words)."""
        if not words:
            return np.zeros(0, np.int64)
        cps, ptr = code_points(words)
        self.reserve(len(words), int(cps.shape[0]))
        return tk.intern_words(self.t, cps, ptr, stop)

    def words(self, ids: I64) -> list[str]:
        """The words of ``ids``, as str."""
        t = self.t
        text = t.chars[:t.used[1]].tobytes().decode("utf-32-le", "surrogatepass")
        starts = t.starts
        return [text[starts[i]:starts[i + 1]] for i in ids.tolist()]


@dataclass
class Tokenized:
    """What a stream of texts became: the corpus's ``words`` and one length per input
    document, the vocabulary, the tokens not in a given vocabulary, the kept texts."""

    words: I32
    lengths: I64
    vocabulary: tuple[str, ...]
    n_unknown: int
    texts: TextStore | None = None


@dataclass
class Tokenizer:
    """Tokenize texts chunk by chunk (``add``), then ``finish`` into a ``Tokenized``.

    ``split`` is a user's tokenizer (stop words and ``min_length`` already applied), or None
    for the built-in rule: runs of ``pattern``'s letters of lowercased text, at least
    ``min_length`` long, not in ``stops``. ``vocabulary``: map onto it (tokens outside it
    dropped and counted) instead of building one with ``min_count`` and ``max_df``."""

    pattern: re.Pattern[str]
    min_length: int
    stops: frozenset[str]
    split: Callable[[str], list[str]] | None = None
    vocabulary: tuple[str, ...] | None = None
    min_count: int = 1
    max_df: float | int = 1.0
    writer: TextWriter | None = None
    preprocessing: dict[str, Any] = field(default_factory=dict)   # recorded by the corpus
    interner: Interner = field(default_factory=Interner)
    n_docs: int = 0
    n_unknown: int = 0
    _ids: list[I32] = field(default_factory=list)
    _lengths: list[I64] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._letters = Letters(self.pattern)
        if self.vocabulary is not None:
            self.interner.intern(list(self.vocabulary))   # ids 0..V-1: its order
        if self.split is None:   # the tokenizer drops them: found, never counted
            self.interner.intern(sorted(self.stops), stop=True)

    def add(self, texts: list[str], first: int = 0) -> None:
        """A chunk of documents (str each; ``first``: the position of ``texts[0]`` in the
        input, for the error naming a document that is not a str)."""
        for d, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{first + d}] must be a str, got {type(t).__name__}")
        if self.writer is not None:
            self.writer.add(texts)
        if self.split is None:
            lowered = [t.lower() for t in texts]
            cps, ptr = code_points(lowered)
            self._run(cps, ptr, self._letters.learn(cps), None)
        else:
            toks: list[list[str]] = []
            for d, t in enumerate(texts):
                try:
                    toks.append(self.split(t))
                except TypeError as e:
                    raise TypeError(f"tokenizer on texts[{first + d}]: {e}") from None
                except ValueError as e:   # the tokenizer raised: its error is the cause
                    raise ValueError(f"tokenizer on texts[{first + d}]: {e}") from e.__cause__
            flat = [w for doc in toks for w in doc]
            cps, tok_ptr = code_points(flat)
            doc_tok = np.zeros(len(toks) + 1, np.int64)
            np.cumsum(np.fromiter(map(len, toks), np.int64, len(toks)), out=doc_tok[1:])
            self._run(cps, tok_ptr, np.zeros(0, np.bool_), doc_tok)
        self.n_docs += len(texts)

    def _run(self, cps: Array, ptr: I64, letter: Array, doc_tok: I64 | None) -> None:
        """Intern a chunk: runs of ``letter`` code points between the documents' pointers
        ``ptr``, or (``doc_tok``) the given tokens ``ptr`` of each document's ``doc_tok``
        range."""
        n_docs = ptr.shape[0] - 1 if doc_tok is None else doc_tok.shape[0] - 1
        n_max = (int(cps.shape[0]) // (self.min_length + 1) + n_docs if doc_tok is None
                 else int(ptr.shape[0]) - 1)
        out = np.empty(max(n_max, 1), np.int32)
        lengths = np.zeros(n_docs, np.int64)
        grow = self.vocabulary is None
        d, at = 0, 0
        while d < n_docs:
            if doc_tok is None:
                d, at, unknown = tk.intern_docs(self.interner.t, cps, letter, ptr, d,
                                                self.min_length, grow, self.n_docs, out, at,
                                                lengths)
            else:
                d, at, unknown = tk.intern_tokens(self.interner.t, cps, ptr, doc_tok, d, grow,
                                                  self.n_docs, out, at, lengths)
            self.n_unknown += unknown
            if d < n_docs:   # the table is full for document d: room for it, at least
                if doc_tok is None:
                    chars = int(ptr[d + 1] - ptr[d])
                    words = chars // (self.min_length + 1) + 1
                else:
                    words = int(doc_tok[d + 1] - doc_tok[d])
                    chars = int(ptr[doc_tok[d + 1]] - ptr[doc_tok[d]])
                self.interner.reserve(max(words, self.interner.n_words),
                                      max(chars, int(self.interner.t.used[1])))
        self._ids.append(out[:at].copy())   # not the whole of ``out`` held on
        self._lengths.append(lengths)

    def finish(self) -> Tokenized:
        """The vocabulary chosen and the tokens renumbered onto it."""
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, np.int64)
        it = self.interner
        n = it.n_words
        total = it.t.total[:n]
        if self.vocabulary is not None:
            vocab = self.vocabulary
            new_id = np.full(n, -1, np.int32)
            new_id[:len(vocab)] = np.arange(len(vocab), dtype=np.int32)
        else:
            limit = (self.max_df * self.n_docs if isinstance(self.max_df, (float, np.floating))
                     else self.max_df)
            keep = np.flatnonzero((total >= self.min_count) & (it.t.docs[:n] <= limit)
                                  & ~it.t.stop[:n])
            words = it.words(keep)
            order = sorted(range(len(words)), key=words.__getitem__)
            vocab = tuple(words[i] for i in order)
            new_id = np.full(n, -1, np.int32)
            new_id[keep[np.asarray(order, np.int64)]] = np.arange(len(order), dtype=np.int32)
        kept = int(total[new_id >= 0].sum()) if n else 0
        if kept > check.INT32_MAX:
            raise ValueError(f"the documents hold {kept} tokens; topicsup counts tokens per "
                             f"topic in int32, so at most {check.INT32_MAX}")
        words_out = np.empty(kept, np.int32)
        at = 0
        d = 0
        self._ids.reverse()
        for lens in self._lengths:
            ids = self._ids.pop()   # each chunk's ids freed once renumbered
            ptr = np.zeros(lens.shape[0] + 1, np.int64)
            np.cumsum(lens, out=ptr[1:])
            out_ptr = np.zeros_like(ptr)
            got = tk.remap_tokens(ids, new_id, ptr, words_out[at:], out_ptr)
            lengths[d:d + lens.shape[0]] = np.diff(out_ptr)
            at += got
            d += lens.shape[0]
        texts = self.writer.close() if self.writer is not None else None
        # the corpus holds words_out as it is (no copy: nothing else has it)
        return Tokenized(check.frozen(words_out), lengths, tuple(vocab), self.n_unknown, texts)

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()


def chunks(texts: Iterable[Any], chars: int | None = None
           ) -> Iterator[tuple[int, list[Any]]]:
    """``texts`` in chunks of about ``chars`` code points (default ``CHUNK_CHARS``):
    (position of the first, chunk). A value that is not a str ends its chunk at once (the
    tokenizer names it)."""
    chars = CHUNK_CHARS if chars is None else chars
    chunk: list[Any] = []
    size = 0
    first = 0
    for t in texts:
        chunk.append(t)
        size += len(t) if isinstance(t, str) else chars
        if size >= chars:
            yield first, chunk
            first += len(chunk)
            chunk, size = [], 0
    if chunk:
        yield first, chunk


# ---------------------------------------------------------------------- options
def tokenizer_options(options: dict[str, Any]) -> tuple[Tokenizer, dict[str, Any]]:
    """``from_texts``' keyword options (given to ``from_dataframe`` and ``from_file``) split
    into the tokenizer they make and the rest; an unknown one is a ``TypeError``."""
    tokenizing = ("vocabulary", "min_count", "max_df", "min_length", "stop_words",
                  "tokenizer", "keep_texts")
    rest = ("empty", "label_type", "classes")
    unknown = sorted(set(options) - set(tokenizing) - set(rest))
    if unknown:
        raise TypeError(f"unexpected option(s) {unknown}; the options are from_texts's: "
                        f"{list(tokenizing + rest)}")
    tok = make_tokenizer(**{k: v for k, v in options.items() if k in tokenizing})
    return tok, {k: v for k, v in options.items() if k in rest}


def make_tokenizer(vocabulary: Sequence[str] | None = None, min_count: int = 1,
                   max_df: float | int = 1.0, min_length: int | None = None,
                   stop_words: str | Iterable[str] | None = "english",
                   tokenizer: Callable[[str], Iterable[str]] | None = None,
                   keep_texts: bool | str | os.PathLike[str] = False) -> Tokenizer:
    """The options of ``from_texts`` checked and made a ``streaming.Tokenizer``."""
    stops = stop_word_set(stop_words)
    if tokenizer is not None and not callable(tokenizer):
        raise TypeError(f"tokenizer must be a callable from a text to its tokens, got "
                        f"{type(tokenizer).__name__}")
    min_length = check.integer("min_length", (3 if tokenizer is None else 1)
                               if min_length is None else min_length, low=1)
    check_count("min_count", min_count)
    check_max_df(max_df)
    split = None if tokenizer is None else custom_tokenizer(tokenizer, min_length, stops)
    vocab = None
    if vocabulary is not None:
        if min_count != 1 or max_df != 1.0:
            raise ValueError(f"min_count and max_df build a vocabulary; with vocabulary= "
                             f"given they would do nothing (got min_count={min_count!r}, "
                             f"max_df={max_df!r}): filter the vocabulary instead")
        vocab = check_vocabulary(vocabulary)
        produce = split or (lambda t: tokenize(t, min_length, stops))
        never = [w for w in vocab if produce(w) != [w]]
        if never:
            rule = ("lowercase runs of letters, at least " f"{min_length} long, not stop "
                    "words") if tokenizer is None else "your tokenizer's, then stop words"
            warnings.warn(f"{len(never)} of the {len(vocab)} vocabulary words can never be "
                          f"produced by the tokenizer ({rule}), e.g. {never[:5]}: they will "
                          f"count nothing; use from_tokens with your own tokens",
                          stacklevel=4)
    writer = keep_texts_option(keep_texts)
    prep = {"tokenizer": "letters-lowercase" if tokenizer is None
            else callable_name(tokenizer), "min_length": min_length,
            "stop_words": sorted(stops) if stops != ENGLISH_STOP_WORDS else "english"}
    return Tokenizer(WORD_RE, min_length, stops, split, vocab, min_count, max_df, writer,
                     preprocessing=prep)


# ---------------------------------------------------------------------- sources
def columns(labels: str | Sequence[str] | None) -> list[str]:
    """The label columns named: none, one, or several (0/1 columns of a multi-label)."""
    if labels is None:
        return []
    if isinstance(labels, str):
        return [labels]
    if isinstance(labels, Iterable) and not isinstance(labels, (bytes, Mapping)):
        out = list(labels)
        if out and all(isinstance(c, str) for c in out):
            return out
    raise TypeError(f"labels must be a column name, a list of column names or None, got "
                    f"{labels!r}")


class FrameChunks:
    """DataFrames in chunks (one, or an iterable of them) as texts for a ``Tokenizer`` and,
    once read (``collected``), their labels, covariates and index, concatenated. With
    ``keep_index`` False the documents are numbered by row (a file's batches)."""

    def __init__(self, data: Any, text: str, labels: str | Sequence[str] | None,
                 covariates: Sequence[str] | None, keep_index: bool = True) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text must be the name of the column of texts, got {text!r}")
        self.frames: Iterable[Any] = [data] if isinstance(data, pd.DataFrame) else data
        if isinstance(data, (str, bytes, Mapping)) or not isinstance(self.frames, Iterable):
            raise TypeError(f"data must be a DataFrame or an iterable of DataFrames (e.g. "
                            f"pd.read_csv(path, chunksize=...)), got {type(data).__name__}")
        self.text = text
        self.label_columns = columns(labels)
        self.single_label = isinstance(labels, str)
        if covariates is not None and (isinstance(covariates, str)
                                       or not all(isinstance(c, str) for c in covariates)):
            raise TypeError(f"covariates must be a list of column names or None, got "
                            f"{covariates!r}")
        self.covariate_columns = list(covariates or [])
        self.keep_index = keep_index
        self._labels: list[Any] = []
        self._covariates: list[pd.DataFrame] = []
        self._index: list[pd.Index] = []

    def texts(self) -> Iterator[tuple[int, list[Any]]]:
        first = 0
        for n, frame in enumerate(self.frames):
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(f"chunk {n} of data is a {type(frame).__name__}, not a "
                                f"DataFrame")
            need = [self.text, *self.label_columns, *self.covariate_columns]
            missing = [c for c in need if c not in frame.columns]
            if missing:
                raise ValueError(f"chunk {n} of data has no column {missing[0]!r} (columns: "
                                 f"{list(frame.columns)[:10]})")
            if self.label_columns:
                self._labels.append(_label_column(frame[self.label_columns[0]])
                                    if self.single_label else frame[self.label_columns])
            if self.covariate_columns:
                self._covariates.append(frame[self.covariate_columns])
            self._index.append(frame.index)
            for at, chunk in chunks(frame[self.text].tolist()):
                yield first + at, chunk
            first += len(frame)

    def collected(self) -> tuple[Any, Any, pd.Index | None]:
        """The labels, covariates and index of every chunk read, in order."""
        labels = pd.concat(self._labels) if self._labels else None
        covariates = pd.concat(self._covariates) if self._covariates else None
        index = (self._index[0].append(self._index[1:]) if self.keep_index and self._index
                 else None)
        if not self.keep_index:   # numbered by row: labels pair by position
            labels = None if labels is None else labels.reset_index(drop=True)
            covariates = None if covariates is None else covariates.reset_index(drop=True)
        return labels, covariates, index


def _label_column(column: pd.Series) -> pd.Series:
    """A column of labels; the arrays a Parquet or Arrow list column gives per row made
    lists (a multi-label document's classes)."""
    if column.dtype == object and len(column) and isinstance(column.iloc[0], np.ndarray):
        return column.map(lambda v: v.tolist() if isinstance(v, np.ndarray) else v)
    return column


# pandas.read_csv's default missing values (its documentation's list)
CSV_MISSING = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
               "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]

FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow",
           ".feather": "arrow", ".ipc": "arrow"}


def read_file(path: str | os.PathLike[str], format: str | None, wanted: list[str],
              batch_size: int) -> Iterator[pd.DataFrame]:
    """The ``wanted`` columns of a CSV, Parquet or Arrow file in DataFrames of
    ``batch_size`` rows."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file")
    batch_size = check.integer("batch_size", batch_size, low=1)
    if format is None:
        format = FORMATS.get(path.suffix.lower())
        if format is None:
            raise ValueError(f"the format of {path.name} is not known by its suffix "
                             f"{list(FORMATS)}: give format='csv', 'parquet' or 'arrow'")
    check.choice("format", format, ("csv", "parquet", "arrow"))
    if format == "csv":
        head = pd.read_csv(path, nrows=0)
        _has_columns(path, list(head.columns), wanted)
        # texts stay str (an empty field is "", not NaN); the other columns read missing
        # values as pandas does by default
        yield from pd.read_csv(path, usecols=wanted, chunksize=batch_size,
                               dtype={wanted[0]: str}, keep_default_na=False,
                               na_values={c: CSV_MISSING for c in wanted[1:]})
        return
    try:
        import pyarrow.dataset as ds
    except ImportError:
        raise ImportError(f"reading {format} files needs pyarrow: pip install "
                          f"'topicsup[parquet]'") from None
    dataset = ds.dataset(path, format="parquet" if format == "parquet" else "ipc")
    _has_columns(path, list(dataset.schema.names), wanted)
    # one batch read ahead, not Arrow's default 16 (a gigabyte of texts in flight at 10^6
    # documents)
    for batch in dataset.to_batches(columns=wanted, batch_size=batch_size, batch_readahead=1,
                                    fragment_readahead=1):
        yield batch.to_pandas()


def _has_columns(path: Path, have: list[str], wanted: list[str]) -> None:
    missing = [c for c in wanted if c not in have]
    if missing:
        raise ValueError(f"{path.name} has no column {missing[0]!r} (columns: {have[:10]})")


__all__ = ["CHUNK_CHARS", "CSV_MISSING", "FORMATS", "FrameChunks", "Interner", "Letters",
           "Tokenized", "Tokenizer", "chunks", "code_points", "columns", "make_tokenizer", "read_file",
           "tokenizer_options"]
