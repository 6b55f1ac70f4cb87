"""The partially collapsed sampler: Phi drawn each sweep, then the documents' topics given Phi
in parallel over documents, exact (Magnusson, Jonsson, Villani 2020 sec. 4;
``kernels.partially_collapsed``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from .. import validation as check
from ..arrays import F64, I32, Rng, Row
from ..backends import THREADS, Backend, DocumentStep
from ..kernels import partially_collapsed as pc
from ..kernels.counts import Counts
from ..kernels.info import SweepInfo
from ..kernels.rng import next_u64
from ..kernels.supervised import Term
from ..kernels import supervised as sup
from ..kernels.threads import numba_threads
from ..parts import MH_HELP, LiveSetting, Parameters
from ..problem import Problem
from . import MAX_LABEL_MATRIX_TOPICS, MAX_MH_STEPS, REGISTRY, TopicSampler

KERNELS = ("sparse", "dense")
LABEL_UNDECIDED, LABEL_MATRIX, LABEL_SUMS = 0, 1, 2   # PCArrays.G_state


class PCArrays(NamedTuple):
    """The sweep's topics ``phi`` (V, K) word-major (all zero before the first draw), the
    sparse kernel's word tables ``prob``/``alias`` (V, K) and ``mass`` (V,) (placeholders of
    shape (1, 1) for the dense kernel), the sweep's stream ``key`` (4,), the column sums of
    Phi's chunks ``partial``, the previous topics ``z_prev`` (N,) of a block, and the label
    matrix ``G`` (K, K) of a supervised model (``kernels.supervised.label_matrix``;
    (0, 0) when unused) with ``G_state`` (1,): for the current sweep, ``LABEL_UNDECIDED``,
    ``LABEL_MATRIX`` (built) or ``LABEL_SUMS`` (the O(T) sums)."""

    phi: F64
    prob: F64
    alias: I32
    mass: F64
    key: Rng
    partial: F64
    z_prev: I32
    G: F64
    G_state: npt.NDArray[np.int8]


@REGISTRY.register
@dataclass(frozen=True)
class PartiallyCollapsed(TopicSampler):
    """Partially collapsed Gibbs sampling: Phi | Z from its Dirichlet, then Z | Phi for every
    document in parallel (numba threads). The same seed gives the same chain on any number
    of threads.

    Parameters
    ----------
    kernel : {"sparse", "dense"}
        The per-token draw of Z | Phi: ``"sparse"``, the exact O(k_d) split into the
        document's topics and a per-word alias table over the sweep's Phi; ``"dense"``, the
        O(K) conditional.
    mh_steps : int
        Supervised models with the sparse kernel: independence Metropolis-Hastings steps per
        token (the label factor corrects the sparse draw).
    threads : int
        Threads of the parallel loops (0: all numba threads, ``NUMBA_NUM_THREADS``). It
        changes the speed, never the chain.
    """

    name = "partially_collapsed"
    stepping = ""   # the inspector replays collapsed samplers; this one samples Phi too
    distributable = True   # documents independent given Phi: any backend (topicsup.backends)
    doc_rows = False       # a document's n_kd is counted from its topics in its turn
    SAVED = {"pc_phi": "phi", "pc_key": "key"}

    kernel: str = "sparse"
    mh_steps: int = 2
    threads: int = 0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "kernel", check.choice("kernel", self.kernel, KERNELS))
        set_(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                             high=MAX_MH_STEPS))
        set_(self, "threads", check.integer("threads", self.threads, low=0, high=4096))

    @property
    def sparse(self) -> bool:
        return self.kernel == "sparse"

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return pc.SUPERVISED_SPARSE_KINDS if supervised and self.sparse else pc.KINDS

    def counters(self, supervised: bool) -> tuple[str, ...]:
        return (pc.DOC_PART,) if self.sparse else ()

    def counter_rows(self, values: F64, rec: SweepInfo) -> list[Row]:
        """The share of the sparse kernel's draws taken from the document part (the rest came
        from the word tables): per proposal when supervised, per token for LDA."""
        if not self.sparse:
            return []
        # a supervised sweep draws per MH proposal; its LDA initialisation sweeps per token
        draws = (rec.kinds[0].made if rec.kinds else 0.0) or rec.tokens
        return [{"metric": pc.DOC_PART, "value": values[0] / draws if draws else np.nan,
                 "proposal": None}]

    def ignored(self, model: Parameters) -> tuple[str, ...]:
        # the MH correction exists only for a supervised model's sparse draw
        return () if model.supervised and self.sparse else ("mh_steps",)

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        # numba.config sets its NUMBA_* attributes from the environment at run time: unseen by mypy
        out: tuple[LiveSetting, ...] = (
            LiveSetting("threads", "threads", "int", low=1,
                        high=numba.config.NUMBA_NUM_THREADS,  # type: ignore[attr-defined]
                        help="Threads sampling the documents' topics: the chain is the same "
                             "on any number, only faster"),)
        if model.supervised and self.sparse:
            out = (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS,
                               help=MH_HELP),) + out
        return out

    def allocate(self, problem: Problem) -> PCArrays:
        K, V = problem.K, problem.n_words
        tV, tK = (V, K) if self.sparse else (1, 1)
        return PCArrays(np.zeros((V, K)), np.zeros((tV, tK)), np.zeros((tV, tK), np.int32),
                        np.zeros(tV), np.zeros(4, np.uint64),
                        np.zeros(((V + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK, K)),
                        np.zeros(problem.n_tokens, np.int32),
                        np.zeros((K, K) if problem.supervised and K <= MAX_LABEL_MATRIX_TOPICS
                                 else (0, 0)), np.zeros(1, np.int8))

    def refresh(self, problem: Problem, own: PCArrays) -> None:
        own.G_state[0] = LABEL_UNDECIDED   # decided (and built) again at the next block
        # the word tables derive from the sweep's Phi (a resumed sweep rebuilds them)
        if self.sparse and own.phi.any():
            with numba_threads(self.threads):
                pc.build_word_tables(own.phi, problem.alpha, own.prob, own.alias, own.mass)

    def validate(self, problem: Problem, own: PCArrays) -> None:
        phi = own.phi
        if not (np.isfinite(phi).all() and (phi >= 0).all()):
            raise ValueError("state/pc_phi must hold finite non-negative numbers")
        if not phi.any():
            return
        if not np.allclose(phi.sum(axis=0), 1.0, rtol=1e-9, atol=0):
            raise ValueError("state/pc_phi: every topic (column) must sum to one, or all be "
                             "zero before the first sweep")
        # every word of the corpus has tokens, so a drawn Phi gives each word positive mass
        # (a word without any would draw its topics uniformly from a degenerate table)
        empty = np.flatnonzero(~(phi > 0).any(axis=1))
        if empty.size:
            raise ValueError(f"state/pc_phi: word {int(empty[0])} has probability 0 in every "
                             f"topic; a drawn Phi gives every word of the corpus some mass")

    def validate_mid_sweep(self, problem: Problem, own: PCArrays) -> None:
        if not own.phi.any():
            raise ValueError("state/pc_phi is all zero, but the checkpoint was taken part-way "
                             "through a sweep, whose Phi the first block drew")

    def state_bytes(self, problem: Problem) -> float:
        V, K = problem.n_words, problem.K
        return (20.0 if self.sparse else 8.0) * V * K + 4.0 * problem.n_tokens

    @staticmethod
    def uses_label_matrix(term: Term, own: PCArrays) -> bool:
        """Whether the label term goes through the K x K matrix (``supervised.shared_w``) and
        the model has one (K at most ``MAX_LABEL_MATRIX_TOPICS``)."""
        return own.G.shape[0] > 0 and sup.shared_w(term)

    def label_matrix(self, term: Term, own: PCArrays) -> None:
        """G = sum_t w_t eta_t eta_t^T (the mutant of its test overrides it)."""
        sup.label_matrix(term.eta_kt, np.ascontiguousarray(term.w[:, 0]), own.G)

    def draw_phi(self, problem: Problem, counts: Counts, own: PCArrays) -> None:
        """Phi | Z (the mutant of the whole-sweep test overrides it)."""
        pc.draw_phi(counts.n_wk, counts.n_k, problem.beta, own.key, own.phi, own.partial)

    def sweep(self, problem: Problem, counts: Counts, own: PCArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64,
              backend: Backend = THREADS) -> None:
        """Phi (at a sweep's first block) here, then the documents' step on ``backend``
        (``topicsup.backends``: numba threads here, or the workers of a cluster), which
        builds the word tables and the label matrix where it runs (and draws Phi there,
        when it ``draws_phi``)."""
        here = backend.tables_here
        with numba_threads(self.threads):
            if d_start == 0:
                # a new sweep: its key from the chain's stream, then Phi and the word tables
                for j in range(4):
                    own.key[j] = next_u64(rng)
                if not backend.draws_phi:   # else drawn where the documents are
                    self.draw_phi(problem, counts, own)
                if self.sparse and here:
                    pc.build_word_tables(own.phi, problem.alpha, own.prob, own.alias,
                                         own.mass)
            if d_start == 0 or own.G_state[0] == LABEL_UNDECIDED:
                # once per sweep: the weights and the augmentation are fixed during it
                use = supervised and self.uses_label_matrix(term, own)
                if use and here:
                    self.label_matrix(term, own)
                own.G_state[0] = LABEL_MATRIX if use else LABEL_SUMS
            use_G = supervised and own.G_state[0] == LABEL_MATRIX
            doc_slot = info.shape[0] - 1 if self.sparse else -1
            w_t = np.ascontiguousarray(term.w[:, 0]) if use_G else np.zeros(0)
            step = DocumentStep(own.phi, own.prob, own.alias, own.mass, problem.alpha,
                                problem.beta, self.sparse, self.mh_steps, term, own.key,
                                doc_slot, own.G, use_G, w_t, self.threads,
                                problem.task is not None, problem.covariates)
            backend.sweep_documents(problem.tokens, counts, step, d_start, d_end, own.z_prev,
                                    info)
