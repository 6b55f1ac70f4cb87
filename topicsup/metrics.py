"""Interpretation metrics of fitted topics: topic coherence and document entropy.

The measures DOLDA reports next to accuracy (Magnusson, Jonsson and Villani 2020, Figs. 7-8):

* ``topic_coherence``: how often a topic's top words occur together in a reference corpus
  (normally the training corpus), by gensim's four measures, the numbers gensim's
  ``CoherenceModel`` reports for the same texts (``"u_mass"``, ``"c_v"``, ``"c_uci"``,
  ``"c_npmi"``: Roeder, Both and Hinneburg 2015, from document or sliding-window
  co-occurrence), or by this module's document-level UMass (Mimno et al. 2011) and NPMI
  (Bouma 2009) (``"doc_umass"``, ``"doc_npmi"``).
* ``document_entropy``: the Shannon entropy of each document's topic proportions, low for a
  document told by one topic and ``log K`` for one spread evenly over all K.
* ``top_weight_share``: the share of each class's topic-weight mass on its few largest
  weights, the number that says whether a prior made the class's weights sparse (DOLDA
  Figs. 4-6 as one number per class).

Pure functions of arrays and a ``Corpus``; ``Session.coherence`` and
``Session.document_entropy`` apply them to a session's current state.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import entr

from . import validation as check
from .arrays import F64, I64, Array
from .corpus import Corpus

# gensim's measures under gensim's names, then this module's document-level ones
MEASURES = ("u_mass", "c_v", "c_uci", "c_npmi", "doc_umass", "doc_npmi")
# the names of 0.x, accepted with a DeprecationWarning for one release
DEPRECATED_MEASURES = {"umass": "doc_umass", "npmi": "doc_npmi"}
# gensim's default sliding windows (gensim.models.coherencemodel.SLIDING_WINDOW_SIZES)
WINDOW_SIZES = {"c_v": 110, "c_uci": 10, "c_npmi": 10}
# gensim's smoothing of every probability it takes the log of
# (gensim.topic_coherence.direct_confirmation_measure.EPSILON)
GENSIM_EPSILON = 1e-12
# pairs of top words whose window intervals are intersected at once (bounds the memory of
# the query arrays, 8 bytes each, to a few hundred MB)
_QUERY_CHUNK = 4_000_000
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


def _window_presence(corpus: Corpus, words: I64, window: int) -> tuple[I64, I64, I64, int]:
    """Which of gensim's sliding windows each of ``words`` (sorted, distinct ids) is counted
    in, as disjoint intervals of window numbers, built from those words' tokens alone.

    Windows are numbered across the corpus, document after document: a document of L tokens
    has max(L - window + 1, 1) of them (an empty one too: gensim counts it as one empty
    window). Gensim keeps a window's word set by updating the previous window's (gensim
    ``text_analysis.WordOccurrenceAccumulator._slide_window``): sliding from window t - 1 to
    t it removes the token that left (position t - 1) and adds the one that came in
    (position t + window - 1), removing the word even when another of its tokens is still
    inside. So, the set being exact at a document's first window, each token at position p
    is an event of its word: an addition at window max(0, p - window + 1) and a removal at
    window p + 1, a removal before an addition at the same window, and a word is counted in
    the windows from an addition up to its word's next event (or its document's end).

    Returns ``owner`` (index into ``words``), ``start`` and ``end`` (window numbers, end
    excluded), sorted by owner then start, no two of one owner overlapping or touching, and
    the number of windows."""
    column = np.full(corpus.n_words, -1, dtype=np.int64)
    column[words] = np.arange(words.size)
    cols = column[corpus.words]
    pos = np.flatnonzero(cols >= 0)
    ptr = np.asarray(corpus.doc_ptr, dtype=np.int64)
    n_windows = np.maximum(np.diff(ptr) - window + 1, 1)
    first = np.cumsum(n_windows) - n_windows              # each document's first window
    total = int(n_windows.sum())
    empty = np.zeros(0, dtype=np.int64)
    if pos.size == 0:
        return empty, empty, empty, total
    owner = cols[pos]
    doc = np.searchsorted(ptr, pos, side="right") - 1     # past any empty documents
    offset = pos - ptr[doc]
    base = first[doc]
    stop = base + n_windows[doc]
    added = base + np.maximum(offset - window + 1, 0)
    # a removal at or after the document's last window ends what is left at its end
    removed = np.minimum(base + offset + 1, stop)
    step = np.concatenate([removed, added])
    kind = np.repeat(np.array([0, 1], dtype=np.int64), pos.size)   # removal, addition
    who = np.concatenate([owner, owner])
    cap = np.concatenate([stop, stop])
    order = np.argsort((who * (total + 1) + step) * 2 + kind, kind="stable")
    step, kind, who, cap = step[order], kind[order], who[order], cap[order]
    following = np.empty_like(step)
    following[:-1] = step[1:]
    same = np.zeros(step.size, dtype=bool)
    same[:-1] = who[1:] == who[:-1]
    end = np.minimum(np.where(same, following, cap), cap)
    keep = (kind == 1) & (end > step)
    who, start, end = who[keep], step[keep], end[keep]
    # merge intervals that touch, fewer to intersect
    head = np.ones(who.size, dtype=bool)
    head[1:] = (who[1:] != who[:-1]) | (start[1:] != end[:-1])
    heads = np.flatnonzero(head)
    tails = np.append(heads[1:], who.size) - 1
    return who[heads], start[heads], end[tails], total


def _interval_overlaps(owner: I64, start: I64, end: I64, a: I64, b: I64,
                       n_owners: int) -> I64:
    """For each pair (a[p], b[p]) of owners, the total length of the intersection of their
    interval sets (``_window_presence``): the number of windows counting both words.

    Each of the rarer word's intervals asks how much of it the other word covers, by binary
    search in the other word's sorted intervals and a prefix sum of their lengths: the cost
    is the rarer word's number of intervals times a log, whatever the window."""
    out = np.zeros(a.size, dtype=np.int64)
    if owner.size == 0 or a.size == 0:
        return out
    counts = np.bincount(owner, minlength=n_owners)
    heads = np.cumsum(counts) - counts
    lengths = end - start
    before = np.cumsum(lengths) - lengths          # lengths of all earlier intervals
    span = int(end.max()) + 1
    keyed = owner * span + start                   # ascending: sorted by owner, then start

    def covered(r: I64, x: I64) -> I64:
        """The length of owner r's intervals before window x."""
        j = np.searchsorted(keyed, r * span + x, side="right") - 1
        jc = np.maximum(j, 0)
        mine = (j >= 0) & (owner[jc] == r)
        first = np.minimum(heads[r], owner.size - 1)
        inside = before[jc] - before[first] + np.minimum(x, end[jc]) - start[jc]
        return np.where(mine, inside, 0)

    rarer = counts[a] <= counts[b]
    ask = np.where(rarer, a, b)
    other = np.where(rarer, b, a)
    n_ask = counts[ask]
    cum = np.cumsum(n_ask)
    p0 = 0
    while p0 < a.size:
        reach = (int(cum[p0 - 1]) if p0 else 0) + _QUERY_CHUNK
        p1 = max(int(np.searchsorted(cum, reach, side="right")), p0 + 1)
        reps = n_ask[p0:p1]
        pair = np.repeat(np.arange(p1 - p0), reps)
        rank = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        at = heads[ask[p0:p1]][pair] + rank
        r = other[p0:p1][pair]
        inside = covered(r, end[at]) - covered(r, start[at])
        out[p0:p1] = np.rint(np.bincount(pair, weights=inside, minlength=p1 - p0)).astype(np.int64)
        p0 = p1
    return out


def _window_cooccurrence(corpus: Corpus, top: I64, window: int) -> tuple[I64, int]:
    """(K, n, n) int64 counts of gensim's boolean sliding windows: entry [k, i, j] the
    number of windows counting both ``top[k, i]`` and ``top[k, j]``, the diagonal the
    number counting ``top[k, i]``; and the number of windows."""
    K, n = top.shape
    words = np.unique(top)
    local = np.searchsorted(words, top)
    owner, start, end, total = _window_presence(corpus, words, window)
    single = np.rint(np.bincount(owner, weights=end - start, minlength=words.size)
                     ).astype(np.int64)
    i, j = np.triu_indices(n, 1)
    lo = np.minimum(local[:, i], local[:, j]).ravel()
    hi = np.maximum(local[:, i], local[:, j]).ravel()
    keys, inverse = np.unique(lo * words.size + hi, return_inverse=True)
    joint = _interval_overlaps(owner, start, end, keys // words.size, keys % words.size,
                               words.size)[np.ravel(inverse)].reshape(K, i.size)
    counts = np.empty((K, n, n), dtype=np.int64)
    counts[:, i, j] = joint
    counts[:, j, i] = joint
    d = np.arange(n)
    counts[:, d, d] = single[local]
    return counts, total


def _gensim_coherence(measure: str, counts: I64, total: int) -> F64:
    """Gensim's confirmation measure and arithmetic mean from co-occurrence ``counts``
    (K, n, n) (the diagonal: single counts) over ``total`` documents or windows, in gensim's
    order of operations (``gensim.topic_coherence.direct_confirmation_measure`` and
    ``indirect_confirmation_measure``)."""
    n = counts.shape[1]
    c = counts.astype(np.float64)
    N = float(total)
    single = np.diagonal(c, axis1=1, axis2=2)              # (K, n)
    missing = (single == 0).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "u_mass":
            # s_one_pre: (w', w*) = (top[i], top[j]) for j < i; m_lc = log((P(w', w*) + eps)
            # / P(w*))
            i, j = np.tril_indices(n, -1)
            scores = np.log((c[:, i, j] / N + GENSIM_EPSILON) / (single[:, j] / N))
            values = scores.mean(axis=1)
        else:
            p = single / N
            # m_lr(w', w*) = log((P(w', w*) + eps) / (P(w') P(w*))), every ordered pair
            ratio = np.log((c / N + GENSIM_EPSILON) / (p[:, :, None] * p[:, None, :]))
            if measure == "c_uci":
                pmi = ratio
            else:
                pmi = ratio / -np.log(c / N + GENSIM_EPSILON)       # m_nlr
            if measure == "c_v":
                # s_one_set: each word against the whole list; context vectors of NPMI
                # (gamma = 1) over the topic's words, the diagonal included
                whole = pmi.sum(axis=1)                               # (K, n)
                dots = np.einsum("kij,kj->ki", pmi, whole)
                norms = np.sqrt((pmi ** 2).sum(axis=2)) * np.sqrt((whole ** 2).sum(axis=1))[:, None]
                values = (dots / norms).mean(axis=1)
            else:
                # s_one_one: every ordered pair of distinct words
                off = ~np.eye(n, dtype=bool)
                values = pmi[:, off].mean(axis=1)
    values = np.asarray(values, dtype=np.float64)
    values[missing] = np.nan
    return values


def _document_coherence(corpus: Corpus, top: I64, measure: str, eps: float) -> F64:
    """``"doc_umass"`` and ``"doc_npmi"`` (``topic_coherence``)."""
    counts = _cooccurrence(corpus, top).astype(np.float64)
    n = top.shape[1]
    single = np.diagonal(counts, axis1=1, axis2=2)          # (K, n): D(w_i)
    i, j = np.tril_indices(n, -1)                             # every pair, i > j
    joint = counts[:, i, j]                                   # (K, n(n-1)/2): D(w_i, w_j)
    missing = (single == 0).any(axis=1)    # a word in no document: p(w) = 0, undefined
    safe = np.where(single > 0, single, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "doc_umass":
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


def coherence_measure(measure: Any, stacklevel: int = 3) -> str:
    """``measure`` checked against ``MEASURES``; a name of ``DEPRECATED_MEASURES`` is
    replaced by its new name with a ``DeprecationWarning`` (``stacklevel`` as
    ``warnings.warn``'s, counted from this function)."""
    if isinstance(measure, str) and measure in DEPRECATED_MEASURES:
        new = DEPRECATED_MEASURES[measure]
        gensim_name = "u_mass" if new == "doc_umass" else "c_npmi"
        warnings.warn(
            f"measure {measure!r} is deprecated and will be removed in the next release: the "
            f"same document-level measure is now named {new!r}; gensim's {gensim_name!r} is "
            f"the number gensim and other tools report", DeprecationWarning,
            stacklevel=stacklevel)
        return new
    return check.choice("measure", measure, MEASURES)


def topic_coherence(corpus: Corpus, top_words: Array, measure: str = "c_npmi",
                    eps: float | None = None, window_size: int | None = None) -> F64:
    """Coherence of each topic's top words: how often they occur together in ``corpus``.

    A topic's top words are w_1, ..., w_n, in order of decreasing probability, and log is
    the natural logarithm throughout.

    **gensim's measures** (Roeder, Both and Hinneburg 2015, as gensim 4 implements them): the
    numbers are gensim's, equal (to rounding, ~1e-12) to
    ``gensim.models.CoherenceModel(topics=..., texts=..., dictionary=..., coherence=measure,
    window_size=window_size).get_coherence_per_topic()`` with ``texts`` the documents of
    ``corpus`` as token lists (``corpus.document(d)``) and topics of at most 20 words (gensim
    cuts longer ones to its ``topn=20``), so they compare with what gensim (and tools that
    call it) report. With eps = 1e-12 (gensim's ``EPSILON``, ``GENSIM_EPSILON``) and P the
    share of documents or windows counting a word or a pair:

    * ``"u_mass"``: document co-occurrence. P(w) = D(w) / D and P(w, v) = D(w, v) / D, D the
      number of documents of ``corpus`` (empty ones too), D(w) the number containing w, a
      document counting once however often it repeats a word. The mean over the n(n-1)/2
      pairs i > j (gensim's ``s_one_pre`` segmentation) of
      log((P(w_i, w_j) + eps) / P(w_j)), w_j the higher-ranked word.
    * ``"c_uci"``: the mean over the n(n-1) ordered pairs i != j (``s_one_one``) of
      PMI(w_i, w_j) = log((P(w_i, w_j) + eps) / (P(w_i) P(w_j))), P from sliding windows.
    * ``"c_npmi"``: the same mean of NPMI(w_i, w_j) = PMI(w_i, w_j) / -log(P(w_i, w_j) + eps).
      The eps makes a pair never seen together score log(eps / (P(w_i) P(w_j))) / -log(eps),
      not -1; and a pair in every window scores -1, not 1.
    * ``"c_v"``: each word against the whole list (``s_one_set``): with the n x n matrix
      M_ij = NPMI(w_i, w_j) (the diagonal included, NPMI(w, w) from P(w, w) = P(w)), the
      mean over i of the cosine between row M_i and the sum of the rows, sum_i M_i.

    Sliding windows (``"c_uci"``, ``"c_npmi"``, ``"c_v"``): ``window_size`` consecutive
    tokens of one document, sliding one token at a time (10 tokens for c_uci and c_npmi, 110
    for c_v, gensim's defaults, ``WINDOW_SIZES``); windows never span two documents. A
    document of L >= window_size tokens gives L - window_size + 1 windows, a shorter one
    exactly one window (the whole document), an empty one one empty window; P(w) is the
    number of windows counting w over the number of windows of the corpus. A window counts a
    word once however often it holds it, and counts it as gensim does: gensim updates a
    window's word set from the previous window's, and when the token that slides out is a
    word still present further in the window, gensim drops that word from the window (until
    one of its tokens slides in again). This is gensim's number, reproduced; it undercounts
    words repeated within less than a window. Only the top words' tokens are read, at their
    positions in their documents, so the cost is a sort of those tokens and, per pair, a
    binary search over the rarer word's runs of windows: seconds for 20 Newsgroups (1.4M
    tokens) at K = 100 topics of 10 words, whatever the window. The windows read tokens in
    the order the corpus holds them: a corpus built from counts (``Corpus.from_matrix``) has
    no word order, and the window measures are then of that arbitrary order.

    **this module's document-level measures**, without gensim's eps:

    * ``"doc_umass"`` (Mimno et al. 2011): the mean over pairs i > j of
      log((D(w_i, w_j) + eps) / D(w_j)), counts of documents (as ``"u_mass"``) and eps the
      smoothing count (default 1, Mimno et al.'s). Mimno et al. sum over pairs; the mean is
      the sum divided by n(n-1)/2, so lists of different lengths are comparable. At most
      log(1 + eps/D(w_j)) ~ 0, more negative for words that rarely share documents.
    * ``"doc_npmi"`` (Bouma 2009): the mean over pairs of log(p(w_i, w_j) / (p(w_i) p(w_j)))
      / -log p(w_i, w_j), with p(w) = D(w) / D and p(w, v) = D(w, v) / D. In [-1, 1]: 1 for
      words that always occur together, 0 for independent ones. Where the formula is 0/0 or
      log 0: a pair that never co-occurs scores -1 (the limit as p(w_i, w_j) -> 0), a pair in
      every document scores 1. Symmetric in the order of the words.

    ``"umass"`` and ``"npmi"``, the names of the document-level measures until 0.x, still
    work for one release, with a ``DeprecationWarning``.

    Parameters
    ----------
    corpus : Corpus
        The reference documents the counts come from: the training corpus of the topics or
        another corpus whose vocabulary the word ids index (e.g. held-out documents mapped
        with ``training_corpus.map``).
    top_words : ndarray of int, shape (K, n)
        Word ids of ``corpus.vocabulary``, one row per topic, distinct within a row, by
        decreasing probability (``top_word_ids``); n >= 2.
    measure : {"c_npmi", "c_v", "c_uci", "u_mass", "doc_umass", "doc_npmi"}
        Default ``"c_npmi"``.
    eps : float, optional
        ``"doc_umass"``'s smoothing count, > 0 (default 1), so a pair that never co-occurs
        scores log(eps / D(w_j)) rather than -inf. The other measures take none: gensim's
        smooth with their fixed 1e-12, ``"doc_npmi"`` uses its conventions.
    window_size : int, optional
        Tokens per sliding window, >= 1, for ``"c_v"``, ``"c_uci"`` and ``"c_npmi"`` only;
        default the measure's, gensim's (``WINDOW_SIZES``).

    Returns
    -------
    ndarray of float64, shape (K,)
        One coherence per topic, higher is more coherent. NaN for a topic with a word that
        occurs in no document of ``corpus`` (its probability is 0 and no measure is
        defined; this can happen with a reference corpus or a given vocabulary). Gensim
        differs there: it drops a word missing from its dictionary from the topic, and for
        one in the dictionary but in no text it scores a u_mass pair 0 and the window
        measures inf or NaN.

    Raises
    ------
    TypeError
        ``corpus`` is not a ``Corpus``, ``top_words`` not an integer array, ``measure`` not a
        str, ``eps`` not a number or ``window_size`` not an integer.
    ValueError
        ``top_words`` is not 2-d, has fewer than 2 words per topic, a word id outside the
        vocabulary or a word twice in a row; ``measure`` is unknown; ``eps`` <= 0 or given
        for another measure than ``"doc_umass"``; ``window_size`` < 1 or given for a measure
        without windows.
    """
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
    top = _check_top_words(top_words, corpus.n_words)
    measure = coherence_measure(measure)
    smoothing = 1.0
    if eps is not None:
        smoothing = check.number("eps", eps, low=0.0, low_open=True,
                                 why="UMass would take the log of 0 for a pair that never "
                                     "co-occurs")
        if measure != "doc_umass":
            raise ValueError(f"eps is the smoothing count of measure 'doc_umass' only, got "
                             f"eps={eps!r} with measure {measure!r} (gensim's measures smooth "
                             f"by their fixed {GENSIM_EPSILON:g}); leave eps out")
    window = WINDOW_SIZES.get(measure, 0)
    if window_size is not None:
        window = check.integer("window_size", window_size, low=1)
        if measure not in WINDOW_SIZES:
            raise ValueError(f"window_size applies to the sliding-window measures "
                             f"{list(WINDOW_SIZES)} only, got window_size={window_size!r} with "
                             f"measure {measure!r}, which counts documents; leave it out")
    if measure in ("doc_umass", "doc_npmi"):
        return _document_coherence(corpus, top, measure, smoothing)
    if measure == "u_mass":
        return _gensim_coherence(measure, _cooccurrence(corpus, top), corpus.n_docs)
    counts, total = _window_cooccurrence(corpus, top, window)
    return _gensim_coherence(measure, counts, total)


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


__all__ = ["DEPRECATED_MEASURES", "GENSIM_EPSILON", "MEASURES", "WINDOW_SIZES",
           "coherence_measure", "document_entropy", "top_indices", "top_weight_share",
           "top_word_ids", "topic_coherence"]


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
