"""Count matrices and bags of words to tokens: what ``Corpus.from_matrix`` (scikit-learn's
``CountVectorizer``, a DataFrame of counts) and ``Corpus.from_bow`` (gensim's ``doc2bow``)
check and convert before the corpus is assembled. Every count a non-negative integer that
fits the int32 counts, every word id named, every column a word."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import validation as check
from .arrays import I32, I64
from .text import check_vocabulary

# a larger count of one word in one document is not a text (and would overflow int64 sums)
MAX_BOW_COUNT = 2**40


def bow_matrix(bow: Any, dictionary: Any) -> tuple[sp.csr_matrix, list[str]]:
    """gensim's bags of words (one list of ``(word id, count)`` pairs per document) and the
    dictionary naming the ids as a (documents x words) count matrix and its words, the ids
    in increasing order."""
    token2id = getattr(dictionary, "token2id", None)
    if isinstance(token2id, Mapping):
        id2word = {int(i): str(w) for w, i in token2id.items()}
    elif isinstance(dictionary, Mapping):
        id2word = {}
        for i, word in dictionary.items():
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) \
                    or not isinstance(word, str):
                raise TypeError(f"dictionary must map word ids (int) to words (str), got "
                                f"{i!r} -> {word!r}")
            id2word[int(i)] = word
    else:
        raise TypeError(f"dictionary must be a gensim Dictionary or a mapping word id -> "
                        f"word, got {type(dictionary).__name__}")
    if isinstance(bow, (str, bytes, Mapping)) or not isinstance(bow, Iterable):
        raise TypeError(f"bow must be a list of documents, each a list of (word id, count) "
                        f"pairs (gensim's doc2bow), got {type(bow).__name__}")
    ids = sorted(id2word)
    column = {i: c for c, i in enumerate(ids)}
    rows: list[int] = []
    cols: list[int] = []
    counts: list[int] = []
    n_docs = 0
    for d, doc in enumerate(bow):
        n_docs += 1
        if isinstance(doc, (str, bytes, Mapping)) or not isinstance(doc, Iterable):
            raise TypeError(f"bow[{d}] must be a list of (word id, count) pairs, got "
                            f"{type(doc).__name__}")
        for pair in doc:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"bow[{d}] holds {pair!r}, not a (word id, count) pair")
            i, n = pair
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"bow[{d}] has word id {i!r}, not an integer")
            if int(i) not in column:
                raise ValueError(f"bow[{d}] has word id {int(i)}, which the dictionary does "
                                 f"not name (ids {ids[0] if ids else None}.."
                                 f"{ids[-1] if ids else None})")
            if isinstance(n, (bool, np.bool_)) or not isinstance(
                    n, (int, np.integer, float, np.floating)) or not math.isfinite(float(n)) \
                    or n < 0 or n > MAX_BOW_COUNT or n != int(n):
                raise ValueError(f"bow[{d}] has count {n!r} for word id {int(i)}: counts are "
                                 f"non-negative integers up to {MAX_BOW_COUNT}")
            rows.append(d)
            cols.append(column[int(i)])
            counts.append(int(n))
    if n_docs == 0:
        raise ValueError("bow holds no document")
    X = sp.csr_matrix((np.asarray(counts, np.int64), (rows, cols)),
                      shape=(n_docs, len(ids)))
    X.sum_duplicates()
    return X, [id2word[i] for i in ids]


def matrix_tokens(X: Any, vocabulary: Sequence[str] | dict[str, int] | None, empty: str
                  ) -> tuple[I32, I64, tuple[str, ...]]:
    """A (documents x words) count matrix (sparse, a 2-d array or a DataFrame of counts) and
    the word of every column as the tokens document after document, each document's count
    and the vocabulary, every count checked."""
    if isinstance(X, pd.DataFrame):
        cols = [str(c) for c in X.columns]
        if vocabulary is None:
            vocabulary = cols
        elif any(isinstance(c, str) for c in X.columns) and \
                list(check_vocabulary(vocabulary)) != cols:
            raise ValueError("X is a DataFrame whose column names differ from vocabulary; "
                             "the columns would be read as the wrong words (reorder the "
                             "columns, or pass vocabulary=None to use them)")
        if not all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)
                   for t in X.dtypes):
            raise TypeError("X must hold numeric counts; some DataFrame columns are not "
                            "numeric")
        X = X.to_numpy()
    if vocabulary is None:
        raise TypeError("from_matrix needs the vocabulary (the word of every column of X)")
    vocab = check_vocabulary(vocabulary)
    check.choice("empty", empty, ("drop", "keep", "error"))
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d (documents x words), got shape {X.shape}")
        M = sp.csr_matrix(X)
        try:
            M.check_format(full_check=True)
        except ValueError as exc:
            raise ValueError(f"X is a malformed sparse matrix: {exc}") from None
        M.sum_duplicates()
        data = M.data
    elif isinstance(X, (np.ndarray, list, tuple)):
        try:
            dense = np.asarray(X)
        except ValueError:
            raise ValueError("X must be a 2-d array of counts with rows of equal length") \
                from None
        if dense.ndim != 2:
            raise ValueError(f"X must be 2-d (documents x words), got shape {dense.shape}")
        if dense.dtype.kind not in "biuf":
            raise TypeError(f"X must hold numeric counts, got dtype {dense.dtype}")
        if dense.dtype.kind == "f":
            dense = dense.astype(np.float64)   # float16 and the like: scipy refuses them
        M = sp.csr_matrix(dense)
        data = M.data
    else:
        raise TypeError(f"X must be a scipy sparse matrix, a 2-d array or a DataFrame, got "
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
            raise ValueError(f"X must hold integer counts (topic models count words); "
                             f"found {data[pos]}")
    if (data < 0).any():
        pos = np.flatnonzero(data < 0)[0]
        row = int(np.searchsorted(M.indptr, pos, side="right") - 1)
        raise ValueError(f"X must hold non-negative counts; found {data[pos]} at row {row}, "
                         f"column {M.indices[pos]} ({vocab[M.indices[pos]]!r})")
    # each count fits int32 before any sum, so the int64 sums below cannot overflow
    if data.size and data.max() > check.INT32_MAX:
        raise ValueError(f"X holds the count {data.max()}; topicsup counts tokens in int32, "
                         f"so a corpus holds at most {check.INT32_MAX} tokens")
    counts = data.astype(np.int64)
    total = int(counts.sum())
    if total > check.INT32_MAX:
        raise ValueError(f"X holds {total} tokens; topicsup counts tokens per topic in "
                         f"int32, so a corpus holds at most {check.INT32_MAX}")
    check.allocation(f"a corpus of {total} tokens", 16.0 * total)
    words = np.repeat(M.indices.astype(np.int32), counts)
    row_of_nz = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
    lengths = np.bincount(row_of_nz, weights=counts, minlength=M.shape[0]).astype(np.int64)
    return words, lengths, vocab


__all__ = ["MAX_BOW_COUNT", "bow_matrix", "matrix_tokens"]
