"""Sparse exact collapsed Gibbs: SparseLDA's smoothing, document and word buckets (Yao, Mimno,
McCallum 2009), O(k_w) per token (the word's topics) plus O(K) per document, the same
conditional as ``gibbs`` (``kernels.sparse_gibbs``). LDA only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..arrays import F64, Bool, Rng
from ..kernels import sparse_gibbs
from ..kernels.counts import Counts, Dirichlet
from ..kernels.supervised import Term
from ..problem import Problem
from . import REGISTRY, TopicSampler


class SparseGibbsArrays(NamedTuple):
    """Per word its topics with n_kw > 0 (``kernels.sparse_gibbs.WordLists``), and whether
    they must be rebuilt from the counts before the next sweep (``stale[0]``: after a new
    start or a load, when the counts were rebuilt without the sampler). The lists are a
    function of ``n_wk``, so a checkpoint saves nothing of them."""

    lists: sparse_gibbs.WordLists
    stale: Bool


@REGISTRY.register
@dataclass(frozen=True)
class SparseGibbs(TopicSampler):
    """Exact collapsed Gibbs sampling by SparseLDA's three buckets (Yao, Mimno, McCallum
    2009): each token drawn from the exact conditional of ``gibbs``, at a cost that grows
    with the topics of its word and document, not with K. No settings, no proposals."""

    name = "sparse_gibbs"
    supports_supervision = False

    def allocate(self, problem: Problem) -> SparseGibbsArrays:
        return SparseGibbsArrays(
            sparse_gibbs.allocate_word_lists(problem.tokens.word_ptr, problem.K),
            np.ones(1, np.bool_))

    def refresh(self, problem: Problem, own: SparseGibbsArrays) -> None:
        # called after the counts were rebuilt from z (a new start, a load): the lists are
        # rebuilt from them at the next sweep, which has the counts
        own.stale[0] = True

    def state_bytes(self, problem: Problem) -> float:
        return 4.0 * problem.n_docs * problem.K + 4.0 * problem.n_tokens \
            + 12.0 * problem.n_words

    def sweep(self, problem: Problem, counts: Counts, own: SparseGibbsArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        if own.stale[0]:
            sparse_gibbs.build_word_lists(counts.n_wk, own.lists)
            own.stale[0] = False
        sparse_gibbs.sparse_gibbs_sweep(problem.tokens, counts,
                                        Dirichlet(problem.alpha, problem.beta), own.lists, rng,
                                        d_start, d_end, info)
