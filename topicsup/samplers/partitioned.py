"""Approximate parallel collapsed Gibbs on a fixed P x P grid of document and word groups
(AD-LDA; tomotopy's PARTITION scheme): ``kernels.partitioned``. Opt-in, not exact for P > 1.
LDA only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from .. import validation as check
from ..arrays import F64, Bool, Rng
from ..kernels import partitioned, sparse_gibbs
from ..kernels.counts import Counts, Dirichlet
from ..kernels.rng import next_u64
from ..kernels.supervised import Term
from ..kernels.threads import numba_threads
from ..parts import LiveSetting, Parameters
from ..problem import Problem
from . import REGISTRY, TopicSampler

KERNELS = ("sparse", "dense")
MAX_PARTITIONS = 1024


class PartitionedArrays(NamedTuple):
    """The corpus's grid (``kernels.partitioned.Grid``: a function of the corpus and
    ``partitions``), the sparse kernel's word lists (``kernels.sparse_gibbs.WordLists``; a
    function of ``n_wk``, empty placeholders for the dense kernel), whether they must be
    rebuilt before the next sweep (``stale[0]``), and the current block's stream key
    ``key`` (4,), drawn afresh at every block. A checkpoint saves none of them."""

    grid: partitioned.Grid
    lists: sparse_gibbs.WordLists
    stale: Bool
    key: Rng


@REGISTRY.register
@dataclass(frozen=True)
class Partitioned(TopicSampler):
    """Approximate parallel collapsed Gibbs sampling on a fixed grid of partitions.

    The documents of a block and the words of the corpus are each cut into ``partitions``
    groups of about equal token counts; the P x P cells (document group i, word group j) are
    swept in P steps, step s sweeping the cells (i, (i + s) mod P) of every i in parallel.
    Cells of one step share no document, word or token; each group draws against its own copy
    of the topic totals n_k taken at the step's start, merged (old totals plus every group's
    changes) at its end.

    The approximation: within a step a group does not see the other groups' changes of n_k,
    so for ``partitions`` > 1 a sweep does not leave the exact posterior invariant
    (``exact = False``): approximate distributed LDA (AD-LDA, Newman, Asuncion, Smyth,
    Welling 2009) on the cell schedule of tomotopy's ``ParallelScheme.PARTITION``. The error
    shrinks as the groups' share of a step's moves of n_k does (large corpora, many tokens
    per topic); benchmarks/results/partition_bias measures it on tiny corpora whose
    posterior is enumerated. With ``partitions`` = 1 nothing is stale: an exact collapsed
    Gibbs sweep. Opt-in: choose it for speed on several cores, ``gibbs`` or
    ``sparse_gibbs`` for the exact chain.

    The grid is fixed by ``partitions``, not by the threads, and each document group draws
    from its own stream derived from the chain's (one key per block): the chain depends on
    the seed and the Session's ``block_tokens``, never on the thread count.

    Parameters
    ----------
    partitions : int
        P, the groups of documents and of words (a P x P grid); at most P threads work at
        once. 1: exact.
    kernel : {"sparse", "dense"}
        The draw of a token inside a cell: SparseLDA's buckets (``kernels.sparse_gibbs``,
        O(k_w) per token) or the dense O(K) conditional (``kernels.gibbs``).
    threads : int
        Threads of the parallel steps (0: all numba threads, ``NUMBA_NUM_THREADS``). It
        changes the speed, never the chain.
    """

    name = "partitioned"
    supports_supervision = False
    exact = False

    partitions: int = 2
    kernel: str = "sparse"
    threads: int = 0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "partitions", check.integer("partitions", self.partitions, low=1,
                                               high=MAX_PARTITIONS))
        set_(self, "kernel", check.choice("kernel", self.kernel, KERNELS))
        set_(self, "threads", check.integer("threads", self.threads, low=0, high=4096))
        # the class's answer for this instance, as the light sampler's: one group never has
        # stale totals, an exact collapsed Gibbs sweep (tested by enumeration)
        set_(self, "exact", self.partitions == 1)

    @property
    def sparse(self) -> bool:
        return self.kernel == "sparse"

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        # numba.config sets its NUMBA_* attributes from the environment at run time: unseen by mypy
        return (LiveSetting("threads", "threads", "int", low=1,
                            high=numba.config.NUMBA_NUM_THREADS,  # type: ignore[attr-defined]
                            help="Threads sampling the grid's cells: the chain is the same on "
                                 "any number, only faster"),)

    def allocate(self, problem: Problem) -> PartitionedArrays:
        word_ptr = problem.tokens.word_ptr
        lists = (sparse_gibbs.allocate_word_lists(word_ptr, problem.K) if self.sparse
                 else sparse_gibbs.WordLists(np.zeros(1, np.int64), np.zeros(0, np.int32),
                                             np.zeros(0, np.int32)))
        return PartitionedArrays(partitioned.build_grid(problem.tokens, self.partitions),
                                 lists, np.ones(1, np.bool_), np.zeros(4, np.uint64))

    def refresh(self, problem: Problem, own: PartitionedArrays) -> None:
        # called after the counts were rebuilt from z (a new start, a load): the word lists
        # are rebuilt from them at the next sweep, which has the counts
        own.stale[0] = True

    def state_bytes(self, problem: Problem) -> float:
        lists = 4.0 * problem.n_tokens + 12.0 * problem.n_words if self.sparse else 0.0
        return 4.0 * problem.n_docs * (problem.K + self.partitions + 1) \
            + 8.0 * problem.n_tokens + lists

    def sweep(self, problem: Problem, counts: Counts, own: PartitionedArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        if self.sparse and own.stale[0]:
            sparse_gibbs.build_word_lists(counts.n_wk, own.lists)
            own.stale[0] = False
        # the block's key: four draws of the chain's stream whatever P and the threads
        for j in range(4):
            own.key[j] = next_u64(rng)
        with numba_threads(self.threads):
            partitioned.partitioned_sweep(problem.tokens, counts,
                                          Dirichlet(problem.alpha, problem.beta), own.lists,
                                          own.grid, self.sparse, own.key, d_start, d_end,
                                          info)
