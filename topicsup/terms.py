"""How a topic's words are ranked for reading it: the measures of pyLDAvis and R's stm.

With phi_kw the topic's word probabilities and p_w = c_w / sum_v c_v the word's share of the
corpus's tokens:

* ``probability``: phi_kw, the words a topic most often emits (frequent words top most
  topics);
* ``lift`` (Taddy 2012; stm): phi_kw / p_w, how much more often the topic emits the word than
  the corpus does (rare words top it);
* ``relevance`` (Sievert & Shirley 2014, pyLDAvis): lam log phi_kw + (1 - lam) log lift, the
  two traded by ``lam`` in [0, 1] (1 is probability, 0 lift; their user study found 0.6 best
  for reading a topic, the default);
* ``frex`` (Roberts et al. 2016; stm's ``calcfrex``): the weighted harmonic mean of the word's
  ECDF rank within the topic by frequency (phi_kw) and by exclusivity (phi_kw / sum_j phi_jw),
  1 / (w / F + (1 - w) / E), with ``frex_weight`` w = 0.5 as stm's ``labelTopics`` (stm can
  shrink the exclusivity by James-Stein first; this is its unshrunk form);
* ``score`` (Chang's lda package, stm's ``labelTopics``): phi_kw (log phi_kw - mean_j log
  phi_jw), a word's probability times how far its log probability stands above its average
  over the topics.

Pure functions of arrays; the read-outs (``summaries.topic_terms``, ``summaries.topics``) call
them with the chain's topics. Exclusivity and ``score`` compare a topic with the topics
passed, so pass the topics the model shows (HDP-LDA's live ones).
"""

from __future__ import annotations

import numpy as np

from . import validation as check
from .arrays import F64, I64, Array

RANKINGS = ("probability", "relevance", "frex", "lift", "score")
RELEVANCE_LAMBDA = 0.6   # Sievert & Shirley's recommended lambda
FREX_WEIGHT = 0.5        # stm's labelTopics
# the lambdas a relevance slider offers (step 0.05): topic_terms keeps every word that is
# among the best at one of them, so a chart re-ranks its rows exactly at each
LAMBDA_GRID = tuple(round(0.05 * i, 2) for i in range(21))


def _checked(phi: Array, word_counts: Array) -> tuple[F64, F64]:
    phi = np.asarray(phi, dtype=np.float64)
    counts = np.asarray(word_counts, dtype=np.float64)
    if phi.ndim != 2 or counts.shape != (phi.shape[1],):
        raise ValueError(f"phi must be (K, V) and word_counts (V,), got {phi.shape} and "
                         f"{counts.shape}")
    if not (np.isfinite(phi).all() and (phi > 0).all()):
        raise ValueError("phi must hold positive finite probabilities (smoothed topics)")
    if not (np.isfinite(counts).all() and (counts >= 0).all() and counts.sum() > 0):
        raise ValueError("word_counts must be non-negative finite counts with a positive sum")
    return phi, counts


class Terms:
    """The measures of ``phi`` (K, V) against the corpus's ``word_counts`` (V,), one topic
    at a time (``scores(k)``: O(V) memory, never a (K, V) copy per measure, so a K = 1000
    model over a large vocabulary reads as cheaply as a small one). ``phi`` must be positive
    (a smoothed estimate). A word that never occurs in the corpus (p_w = 0) gets a lift and
    a relevance of -inf: no reader wants it on top."""

    def __init__(self, phi: Array, word_counts: Array, lam: float = RELEVANCE_LAMBDA,
                 frex_weight: float = FREX_WEIGHT) -> None:
        self.phi, counts = _checked(phi, word_counts)
        self.lam = check.number("lam", lam, low=0.0, high=1.0)
        self.frex_weight = check.number("frex_weight", frex_weight, low=0.0, high=1.0)
        self.counts = counts
        with np.errstate(divide="ignore"):
            self.log_p = np.log(counts / counts.sum())
        self.column_sum = self.phi.sum(axis=0)
        self.mean_log = np.log(self.phi).mean(axis=0)

    def relevance(self, k: int) -> F64:
        """Topic ``k``'s relevance of every word (V,), alone (what a label needs)."""
        log_phi = np.log(self.phi[k])
        return _relevance(self.lam, log_phi, self._log_lift(log_phi))

    def _log_lift(self, log_phi: F64) -> F64:
        return np.where(np.isfinite(self.log_p), log_phi - self.log_p, -np.inf)

    def scores(self, k: int) -> dict[str, F64]:
        """Every measure (``RANKINGS``) of every word for topic ``k``, (V,) each."""
        phi = self.phi[k]
        V = phi.shape[0]
        log_phi = np.log(phi)
        log_lift = self._log_lift(log_phi)
        # ECDF ranks within the topic, ties averaged (data.table::frank, as stm's calcfrex)
        freq_rank = average_ranks(phi) / V
        excl_rank = average_ranks(phi / self.column_sum) / V
        w = self.frex_weight
        return {"probability": phi, "lift": np.exp(log_lift),
                "relevance": _relevance(self.lam, log_phi, log_lift),
                "frex": 1.0 / (w / freq_rank + (1.0 - w) / excl_rank),
                "score": phi * (log_phi - self.mean_log)}

    def top(self, by: str, n_words: int) -> I64:
        """The ``n_words`` best word ids of every topic by the measure ``by``, best first
        (ties by the lower word id)."""
        by = check.choice("by", by, RANKINGS)
        n = min(check.integer("n_words", n_words, low=1), self.phi.shape[1])
        return np.stack([best(self.scores(k)[by], n) for k in range(self.phi.shape[0])]) \
            if self.phi.shape[0] else np.zeros((0, n), np.int64)


def average_ranks(x: F64) -> F64:
    """Ranks 1..n of ``x``, ties given the mean of the ranks they span (data.table::frank's
    and scipy's rankdata's default), by one stable sort (without importing scipy.stats, a third
    of a second at ``import topicsup``)."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    end = np.r_[start[1:], s.size]
    out = np.empty(s.size)
    out[order] = np.repeat((start + end + 1) / 2.0, end - start)
    return out


def _relevance(lam: float, log_phi: F64, log_lift: F64) -> F64:
    """lam log phi + (1 - lam) log lift; at lam = 1 log phi itself (a word the corpus never
    has, lift infinite, would give 0 * inf)."""
    return log_phi.copy() if lam == 1.0 else lam * log_phi + (1.0 - lam) * log_lift


def best(values: F64, n: int) -> I64:
    """The ids of the ``n`` largest ``values``, largest first, ties by the lower id; O(V)
    to find them (a partition), then a sort of those n."""
    V = values.shape[0]
    if n < V:
        cut = np.partition(values, V - n)[V - n]
        # every value above the cut, then the lowest ids of those equal to it
        idx = np.flatnonzero(values > cut)
        ties = np.flatnonzero(values == cut)[:n - idx.size]
        idx = np.concatenate([idx, ties])
    else:
        idx = np.arange(V)
    order = np.lexsort((idx, -values[idx]))
    return idx[order].astype(np.int64)


def js_distances(phi: Array) -> F64:
    """(K, K) Jensen-Shannon distances between the rows of ``phi`` (K, V), probability
    vectors: sqrt(JS divergence) with natural logs, a metric in [0, sqrt(log 2)]; 0 on the
    diagonal. O(K^2 V) time, O(K V) memory (one row against all at a time)."""
    p = np.asarray(phi, dtype=np.float64)
    if p.ndim != 2 or not (np.isfinite(p).all() and (p >= 0).all()):
        raise ValueError("phi must be a (K, V) array of probabilities")
    p = p / p.sum(axis=1, keepdims=True)
    K = p.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.where(p > 0, np.log(p), 0.0)
        out = np.zeros((K, K))
        for i in range(K):
            m = 0.5 * (p[i][None, :] + p)                       # (K, V)
            logm = np.where(m > 0, np.log(m), 0.0)
            kl_i = (p[i] * (logp[i] - logm)).sum(axis=1)        # KL(p_i || m)
            kl_j = (p * (logp - logm)).sum(axis=1)              # KL(p_j || m)
            out[i] = np.sqrt(np.maximum(0.5 * (kl_i + kl_j), 0.0))
    np.fill_diagonal(out, 0.0)
    return np.maximum(out, out.T)   # exactly symmetric


def classical_mds(distances: Array, dims: int = 2) -> F64:
    """Classical multidimensional scaling (principal coordinates, Torgerson 1952): the
    points (n, dims) whose inner products best match the double-centred squared
    ``distances`` (n, n); the coordinates of the ``dims`` largest positive eigenvalues
    (zeros beyond them), each axis' sign fixed so its largest coordinate is positive."""
    d = np.asarray(distances, dtype=np.float64)
    n = d.shape[0]
    if d.shape != (n, n) or not np.isfinite(d).all():
        raise ValueError("distances must be a finite square matrix")
    j = np.eye(n) - 1.0 / n
    b = -0.5 * j @ (d * d) @ j
    values, vectors = np.linalg.eigh((b + b.T) / 2)
    order = np.argsort(values)[::-1][:dims]
    out = np.zeros((n, dims))
    for c, i in enumerate(order):
        if values[i] > 1e-12:
            v = vectors[:, i] * np.sqrt(values[i])
            out[:, c] = v if v[np.argmax(np.abs(v))] > 0 else -v
    return out


__all__ = ["FREX_WEIGHT", "LAMBDA_GRID", "RANKINGS", "RELEVANCE_LAMBDA", "Terms", "best",
           "classical_mds", "js_distances"]
