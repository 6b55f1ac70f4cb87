"""Interpretation metrics of fitted topics: topic coherence and document entropy.

The measures DOLDA reports next to accuracy (Magnusson, Jonsson and Villani 2020, Figs. 7-8):

* ``topic_coherence``: how often a topic's top words share documents of the training corpus,
  by UMass (Mimno et al. 2011) or NPMI (Bouma 2009; Roeder et al. 2015). Counts are document
  frequencies: a document contains a word or not, however often it repeats it.
* ``document_entropy``: the Shannon entropy of each document's topic proportions, low for a
  document told by one topic and ``log K`` for one spread evenly over all K.
* ``top_weight_share``: the share of each class's topic-weight mass on its few largest
  weights, the number that says whether a prior made the class's weights sparse (DOLDA
  Figs. 4-6 as one number per class).

Pure functions of arrays and a ``Corpus``; ``Session.coherence`` and
``Session.document_entropy`` apply them to a session's current state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import entr

from . import validation as check
from .arrays import F64, I64, Array
from .corpus import Corpus

MEASURES = ("umass", "npmi")
# how far a row of document-topic proportions may sum from one (float32 rounding, a theta
# averaged over samples) before it is refused as not being proportions
ROW_SUM_TOLERANCE = 1e-6


# ---------------------------------------------------------------------- input checks
def _matrix(name: str, value: Any, kinds: str, what: str) -> Array:
    """``value`` as a 2-d numpy array whose dtype kind is in ``kinds`` (a ``TypeError`` for
    another dtype, a ``ValueError`` for another number of dimensions)."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a 2-d array of {what}, got a {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except ValueError as e:   # ragged nested lists
        raise ValueError(f"{name} must be a 2-d array of {what}: {e}") from None
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{name} must be a 2-d array of {what}, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array of {what}, got {arr.ndim} dimension(s) "
                         f"(shape {arr.shape})")
    return arr


def _finite(name: str, arr: Array) -> None:
    if not np.isfinite(arr).all():
        r, c = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} must be finite; {name}[{r}, {c}] = {arr[r, c]}")


def _check_top_words(top_words: Any, n_vocabulary: int) -> I64:
    """``top_words`` as a (K, n) int64 array of distinct-per-row word ids of a vocabulary of
    ``n_vocabulary`` words, n >= 2 (a coherence is a mean over pairs of words)."""
    top = _matrix("top_words", top_words, "iu", "integer word ids")
    K, n = top.shape
    if K < 1:
        raise ValueError("top_words must hold at least one topic (a row), got 0")
    if n < 2:
        raise ValueError(f"top_words must hold at least 2 words per topic (coherence scores "
                         f"pairs of words), got {n}")
    if top.min() < 0 or top.max() >= n_vocabulary:
        k, i = np.argwhere((top < 0) | (top >= n_vocabulary))[0]
        raise ValueError(f"top_words[{k}, {i}] = {top[k, i]} is not a word id of the corpus's "
                         f"vocabulary (0..{n_vocabulary - 1})")
    top = top.astype(np.int64)
    ordered = np.sort(top, axis=1)
    repeats = ordered[:, 1:] == ordered[:, :-1]
    if repeats.any():
        k, i = np.argwhere(repeats)[0]
        raise ValueError(f"top_words[{k}] lists word id {ordered[k, i]} more than once; a "
                         f"topic's top words must be distinct")
    return top


# ---------------------------------------------------------------------- top words
def top_indices(weights: Array, n: int) -> I64:
    """The indices of the ``n`` largest ``weights``, largest first, ties by index (what a
    stable argsort of -weights would start with), in O(len(weights))."""
    V = weights.shape[0]
    if n >= V:
        return np.argsort(-weights, kind="stable")
    threshold = np.partition(weights, V - n)[V - n]
    above = np.flatnonzero(weights > threshold)
    # of the words tied at the threshold only the lowest ids fit, so the order is stable
    tied = np.flatnonzero(weights == threshold)[:n - above.size]
    candidates = np.concatenate([above, tied])
    return candidates[np.argsort(-weights[candidates], kind="stable")]


def top_word_ids(topic_word: Array, n_words: int) -> I64:
    """Word ids of each topic's ``n_words`` largest weights, by decreasing weight.

    Parameters
    ----------
    topic_word : ndarray, shape (K, V)
        Topic-word weights (e.g. ``Session.topic_word()``); any finite real numbers.
    n_words : int
        Words per topic, >= 1; at most V are returned (all of them when ``n_words`` > V).

    Returns
    -------
    ndarray of int64, shape (K, min(n_words, V))
        Row k holds topic k's word ids, the largest weight first; equal weights are ordered
        by lower word id (a stable sort), so the result is the same on every platform and
        matches ``Session.topics``, which ranks by counts with the same tie rule.

    Raises
    ------
    TypeError
        ``topic_word`` is not a numeric array, or ``n_words`` not an integer.
    ValueError
        ``topic_word`` is not 2-d or not finite, or ``n_words`` < 1.
    """
    phi = _matrix("topic_word", topic_word, "iuf", "numbers")
    n_words = check.integer("n_words", n_words, low=1)
    _finite("topic_word", phi)
    K, V = phi.shape
    n = min(n_words, V)
    # one topic at a time: a partition per row is O(V) and needs no (K, V) sort or copy,
    # which matters for K = 1000 topics over a large vocabulary
    out = np.empty((K, n), dtype=np.int64)
    for k in range(K):
        out[k] = top_indices(phi[k], n)
    return out


# ---------------------------------------------------------------------- coherence
def _document_sets(corpus: Corpus, words: I64) -> sp.csr_matrix:
    """The (D, len(words)) binary matrix of which documents contain each of ``words``
    (sorted, distinct word ids), built only for those words: a top-word list touches a few
    thousand words of a vocabulary that may hold a hundred thousand."""
    column = np.full(corpus.n_words, -1, dtype=np.int64)
    column[words] = np.arange(words.size)
    cols = column[corpus.words]
    kept = cols >= 0
    rows = np.repeat(np.arange(corpus.n_docs, dtype=np.int64), corpus.doc_lengths)[kept]
    X = sp.csr_matrix((np.ones(int(kept.sum()), dtype=np.int32), (rows, cols[kept])),
                      shape=(corpus.n_docs, words.size))
    X.sum_duplicates()
    X.data[:] = 1        # presence, not counts: document frequencies are binary
    return X


def _cooccurrence(corpus: Corpus, top: I64) -> I64:
    """(K, n, n) int64: entry [k, i, j] is the number of documents containing both
    ``top[k, i]`` and ``top[k, j]`` (the diagonal: documents containing ``top[k, i]``)."""
    K, n = top.shape
    words = np.unique(top)
    local = np.searchsorted(words, top)                      # (K, n) columns of X
    X = _document_sets(corpus, words)
    # All pairs of the listed words at once: X^T X costs sum over documents of (listed words
    # in the document)^2 whatever K is, and a word shared by many topics is counted once.
    # (Splitting the product into the K diagonal blocks was tried: it repeats a shared word's
    # documents once per topic and ran 3-20x slower on 11k documents, K = 1000, n = 20.)
    C = (X.T.tocsr() @ X).tocsr()
    rows = np.repeat(local, n, axis=1).ravel()                # pair (i, j) of topic k at
    cols = np.tile(local, (1, n)).ravel()                     # k * n * n + i * n + j
    return np.asarray(C[rows, cols], dtype=np.int64).reshape(K, n, n)


def topic_coherence(corpus: Corpus, top_words: Array, measure: str = "umass",
                    eps: float = 1.0) -> F64:
    """Coherence of each topic's top words, from document co-occurrence in ``corpus``.

    With D the number of documents of ``corpus``, D(w) the number containing word w and
    D(w, v) the number containing both (a document counts once however often it repeats a
    word), and a topic's top words w_1, ..., w_n in order of decreasing probability:

    * ``"umass"`` (Mimno et al. 2011):
      the MEAN over the n(n-1)/2 pairs i > j of log((D(w_i, w_j) + eps) / D(w_j)), w_j the
      higher-ranked word. Mimno et al. sum over pairs; the mean is the sum divided by
      n(n-1)/2, so lists of different lengths are comparable. At most log(1 + eps/D(w_j))
      ~ 0, more negative for words that rarely share documents.
    * ``"npmi"`` (Bouma 2009; Roeder et al. 2015):
      the mean over pairs of NPMI(w_i, w_j) = log(p(w_i, w_j) / (p(w_i) p(w_j))) /
      -log p(w_i, w_j), with p(w) = D(w) / D and p(w, v) = D(w, v) / D. In [-1, 1]: 1 for
      words that always occur together, 0 for independent ones. Conventions where the
      formula is 0/0 or log 0: a pair that never co-occurs scores -1 (its limit as
      p(w_i, w_j) -> 0), and a pair in every document (p(w_i, w_j) = 1) scores 1. NPMI is
      symmetric, so the order of the words does not matter.

    Parameters
    ----------
    corpus : Corpus
        The documents the counts come from, normally the training corpus of the topics.
        Every document counts in D, empty ones too.
    top_words : ndarray of int, shape (K, n)
        Word ids of ``corpus.vocabulary``, one row per topic, distinct within a row, by
        decreasing probability (``top_word_ids``); n >= 2.
    measure : {"umass", "npmi"}
    eps : float
        Smoothing count of UMass, > 0 (Mimno et al. use 1), so a pair that never
        co-occurs scores log(eps / D(w_j)) rather than -inf. NPMI does not use it.

    Returns
    -------
    ndarray of float64, shape (K,)
        One coherence per topic, higher is more coherent. NaN for a topic with a word that
        occurs in no document of ``corpus`` (its probability is 0 and neither measure is
        defined), which can happen when the vocabulary was given rather than built from
        the corpus.

    Raises
    ------
    TypeError
        ``corpus`` is not a ``Corpus``, ``top_words`` not an integer array, ``measure`` not a
        str or ``eps`` not a number.
    ValueError
        ``top_words`` is not 2-d, has fewer than 2 words per topic, a word id outside the
        vocabulary or a word twice in a row; ``measure`` is unknown; ``eps`` <= 0.
    """
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
    top = _check_top_words(top_words, corpus.n_words)
    measure = check.choice("measure", measure, MEASURES)
    eps = check.number("eps", eps, low=0.0, low_open=True,
                       why="UMass would take the log of 0 for a pair that never co-occurs")
    counts = _cooccurrence(corpus, top).astype(np.float64)
    n = top.shape[1]
    single = np.diagonal(counts, axis1=1, axis2=2)          # (K, n): D(w_i)
    i, j = np.tril_indices(n, -1)                             # every pair, i > j
    joint = counts[:, i, j]                                   # (K, n(n-1)/2): D(w_i, w_j)
    missing = (single == 0).any(axis=1)    # a word in no document: p(w) = 0, undefined
    safe = np.where(single > 0, single, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "umass":
            scores = np.log(joint + eps) - np.log(safe[:, j])
        else:
            D = float(corpus.n_docs)
            log_joint = np.log(np.where(joint > 0, joint, 1.0))
            pmi = np.log(D) + log_joint - np.log(safe[:, i]) - np.log(safe[:, j])
            spread = np.log(D) - log_joint                    # -log p(w_i, w_j)
            scores = np.where(joint == 0, -1.0,
                              np.where(joint == D, 1.0, pmi / np.where(spread > 0, spread, 1.0)))
            # NPMI is in [-1, 1]; clip the last-bit rounding of pairs always seen together
            scores = np.clip(scores, -1.0, 1.0)
    coherence = scores.mean(axis=1)
    coherence[missing] = np.nan
    return coherence


# ---------------------------------------------------------------------- entropy
def document_entropy(doc_topics: Array) -> F64:
    """Shannon entropy (nats) of each document's topic proportions.

    H(theta_d) = -sum_k theta_dk log theta_dk, with 0 log 0 = 0: 0 for a document all in one
    topic, log K for one spread evenly over K topics.

    Parameters
    ----------
    doc_topics : ndarray, shape (D, K)
        Topic proportions, one row per document (e.g. ``Session.doc_topics(as_frame=False)``):
        finite, non-negative, each row summing to one (within ``ROW_SUM_TOLERANCE``).

    Returns
    -------
    ndarray of float64, shape (D,)

    Raises
    ------
    TypeError
        ``doc_topics`` is not a numeric array.
    ValueError
        It is not 2-d, has no topics (columns), or holds a value that is not finite or
        negative, or a row that does not sum to one.
    """
    theta = _matrix("doc_topics", doc_topics, "iuf", "topic proportions").astype(np.float64)
    if theta.shape[1] < 1:
        raise ValueError("doc_topics must have at least one topic (a column), got 0")
    _finite("doc_topics", theta)
    if (theta < 0).any():
        d, k = np.argwhere(theta < 0)[0]
        raise ValueError(f"doc_topics must be non-negative proportions; doc_topics[{d}, {k}] "
                         f"= {theta[d, k]}")
    sums = theta.sum(axis=1)
    off = np.abs(sums - 1.0) > ROW_SUM_TOLERANCE
    if off.any():
        d = int(np.flatnonzero(off)[0])
        raise ValueError(f"doc_topics rows must sum to one (proportions); row {d} sums to "
                         f"{sums[d]:.9g}")
    # entr(x) = -x log x, and entr(0) = 0 exactly: no 0 * -inf to mask
    return entr(theta).sum(axis=1)


__all__ = ["MEASURES", "document_entropy", "top_indices", "top_weight_share", "top_word_ids",
           "topic_coherence"]


def top_weight_share(coefficients: pd.DataFrame, top: int = 3) -> pd.Series:
    """The share of each task's topic-weight mass on its ``top`` largest weights.

    sum of the ``top`` largest |mean eta_tk| over topics k, divided by sum_k |mean eta_tk|:
    1 when a class rests on ``top`` topics or fewer, top / K when its weight is spread evenly.
    The intercept and covariates are left out (they are not topics a class could be "about").

    Parameters
    ----------
    coefficients : DataFrame
        ``Session.coefficients()``: columns ``task``, ``kind`` and ``mean``.
    top : int

    Returns
    -------
    Series
        Indexed by task, in the order the tasks first appear; NaN for a task whose topic
        weights are all zero.
    """
    top = check.integer("top", top, low=1)
    if not isinstance(coefficients, pd.DataFrame):
        raise TypeError(f"coefficients must be a DataFrame (Session.coefficients()), got "
                        f"{type(coefficients).__name__}")
    missing = {"task", "kind", "mean"} - set(coefficients.columns)
    if missing:
        raise ValueError(f"coefficients lacks the column(s) {sorted(missing)} "
                         f"(pass Session.coefficients())")
    topic = coefficients[coefficients["kind"] == "topic"]
    mass = topic["mean"].abs().groupby(topic["task"], sort=False)

    def share(m: pd.Series) -> float:
        total = float(m.sum())
        return float(m.nlargest(top).sum()) / total if total > 0 else float("nan")

    return mass.apply(share).rename("top_share")
