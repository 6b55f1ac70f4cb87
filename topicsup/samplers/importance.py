"""iMedLDA's importance estimator (Jiang et al. 2012 sec. 4.1; ``kernels.importance``): not a
Markov chain but an EM-like fixed point over point estimates (Theta, Phi).

Each sweep estimates every token's E[z] given the current (Theta, Phi) (and a supervised
model's tilt) from J uniform proposal draws with self-normalised weights (eq. 17), then, after
its last document, replaces (Theta, Phi) by eq. 19 from the expected counts. Without a label
term it is the same estimator for LDA (the topics of the two-step iLDA + SVM baseline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import validation as check
from ..arrays import F64, Rng
from ..corpus import Corpus
from ..kernels import importance as kernel
from ..kernels.counts import Counts
from ..kernels.fold_in import content_labels
from ..kernels.rng import next_u64
from ..kernels.supervised import Term
from ..parts import LiveSetting, Parameters
from ..problem import Problem
from . import REGISTRY, TopicSampler

MAX_SAMPLES = 1_000_000   # importance draws per token


class ImportanceArrays(NamedTuple):
    """The point estimates ``theta`` (D, K) and ``phi`` (V, K) word-major (uniform until
    the first pass sets them from the random start's counts); the expected counts ``next_dk``, ``next_wk`` the current pass adds up;
    ``key`` (4,): the proposal draws' key (zero until
    the first pass draws it); scratch ``work`` (5, K) and ``stream`` (4,)."""

    theta: F64
    phi: F64
    next_dk: F64
    next_wk: F64
    key: Rng
    work: F64
    stream: Rng


@REGISTRY.register
@dataclass(frozen=True)
class Importance(TopicSampler):
    """Importance-sampled E[z] given point estimates (Theta, Phi), Jiang et al. 2012 eq. 15-19.

    Parameters
    ----------
    importance_samples : int or None
        J, the uniform proposal draws per token (drawn once: the same draws every pass);
        None: 3 K, the paper's choice; 0: the exact E[z] (the J -> infinity limit, O(K) per
        token). Also the draws per token when folding in held-out documents.
    """

    name = "importance"
    # its label term must be linear in zbar (Monte Carlo MedLDA's tilt, w = 0): only
    # ``models.mc_medlda.MCMedLDA`` gives it one
    supports_supervision = False
    SAVED = {"is_theta": "theta", "is_phi": "phi", "is_next_dk": "next_dk",
             "is_next_wk": "next_wk", "is_key": "key"}
    supports_tilt = True
    markov = False

    importance_samples: int | None = None

    def __post_init__(self) -> None:
        if self.importance_samples is not None:
            object.__setattr__(self, "importance_samples", check.integer(
                "importance_samples", self.importance_samples, low=0, high=MAX_SAMPLES))

    def samples(self, K: int) -> int:
        """J for K topics (0: exact)."""
        return 3 * K if self.importance_samples is None else self.importance_samples

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        return (LiveSetting("importance_samples", "importance draws J", "int", low=0,
                            high=MAX_SAMPLES,
                            help="Uniform proposal draws per token for the expected topic "
                                 "counts (0: the exact expectation)"),)

    def allocate(self, problem: Problem) -> ImportanceArrays:
        K, D, V = problem.K, problem.n_docs, problem.n_words
        return ImportanceArrays(np.full((D, K), 1.0 / K), np.full((V, K), 1.0 / V),
                                np.zeros((D, K)), np.zeros((V, K)), np.zeros(4, np.uint64),
                                np.zeros((5, K)), np.zeros(4, np.uint64))

    def validate(self, problem: Problem, own: ImportanceArrays) -> None:
        for name, a in (("is_theta", own.theta), ("is_phi", own.phi)):
            if not (np.isfinite(a).all() and (a > 0).all()):
                raise ValueError(f"state/{name} must hold positive finite probabilities")
        for name, a in (("is_theta", own.theta), ("is_phi", own.phi.T)):
            if not np.allclose(a.sum(axis=1), 1.0, atol=1e-6):
                raise ValueError(f"state/{name} rows must each sum to one")
        for name, a in (("is_next_dk", own.next_dk), ("is_next_wk", own.next_wk)):
            if not (np.isfinite(a).all() and (a >= 0).all()):
                raise ValueError(f"state/{name} must hold non-negative finite counts")

    def state_bytes(self, problem: Problem) -> float:
        K = problem.K
        return 16.0 * K * (problem.n_docs + problem.n_words) + 4.0 * problem.n_docs * K

    def estimates(self, own: ImportanceArrays) -> tuple[F64, F64]:
        return own.theta, own.phi

    def fold_in(self, alpha: F64, beta: float, phi_wk: F64, corpus: Corpus, rng: Rng,
                n_burn: int, n_keep: int) -> F64:
        """Jiang's sec. 4.3: each held-out document's theta from uniform by ``n_burn``
        rounds of eq. 17 (J draws per token, no tilt) and eq. 19; its E[zbar] from the last
        round (at least one round; ``n_keep`` is not used: the estimate is an expectation,
        not samples)."""
        K = phi_wk.shape[1]
        zbar = np.zeros((corpus.n_docs, K))
        kernel.fold_in(corpus.words, corpus.doc_ptr, np.ascontiguousarray(phi_wk, np.float64),
                       alpha, self.samples(K), max(int(n_burn), 1), rng,
                       content_labels(corpus.words, corpus.doc_ptr), zbar)
        return zbar

    def sweep(self, problem: Problem, counts: Counts, own: ImportanceArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        key = own.key
        if d_start == 0 and not own.key.any():   # the chain's first pass
            # the J draws' key, once per chain, kept only once the block has run (a block
            # that raises leaves the stream to be put back and the key to be drawn again)
            key = np.array([next_u64(rng) for _ in range(4)], np.uint64)
            # the estimates of the random start (eq. 19 on its counts): Jiang starts from
            # uniform ones, which J random draws break the same way, but the exact
            # expectation (J = 0) would stay at that symmetric fixed point
            kernel.normalise_rows(counts.n_dk.astype(np.float64), problem.alpha,
                                  own.theta)
            kernel.normalise_columns(counts.n_wk.astype(np.float64), problem.beta, own.phi)
        work = own.work
        tokens = problem.tokens
        kernel.importance_sweep(tokens.words, tokens.doc_ptr, counts.z, counts.n_dk,
                                counts.n_wk, counts.n_k, own.theta, own.phi, own.next_dk,
                                own.next_wk, key, self.samples(problem.K), term,
                                work[0], work[1], work[2], work[3], own.stream, d_start, d_end,
                                info)
        own.key[...] = key
        if d_end == tokens.doc_ptr.shape[0] - 1:   # the pass is complete: eq. 19
            kernel.normalise_rows(own.next_dk, problem.alpha, own.theta)
            kernel.normalise_columns(own.next_wk, problem.beta, own.phi)
            own.next_dk[...] = 0.0
            own.next_wk[...] = 0.0
