"""AliasLDA: Metropolis-Hastings-Walker, O(k_d) per token (Li et al. 2014 sec. 4.1;
``kernels.aliaslda``). LDA only; its stale word tables are part of the chain's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, Rng
from ..kernels import aliaslda, word_tables
from ..kernels.counts import Counts, Dirichlet
from ..kernels.supervised import Term
from ..parts import MH_HELP, LiveSetting, Parameters
from ..problem import Problem
from . import MAX_MH_STEPS, REGISTRY, TopicSampler


class AliasArrays(NamedTuple):
    """The stale word tables, the document's topic list ``nz``/``pos`` and the sparse part's
    cumulative masses ``p_dw``."""

    tables: word_tables.Tables
    nz: I32
    pos: I32
    p_dw: F64


def check_tables(tables: word_tables.Tables, K: int) -> None:
    """Refuse saved word tables a kernel would index out of range or draw from wrongly."""
    s, u = tables.samples, tables.used
    if s.size and (s.min() < 0 or s.max() >= K):
        raise ValueError(f"state/wt_samples holds topics outside 0..{K - 1}")
    if u.size and (u.min() < 0 or u.max() > K):
        raise ValueError(f"state/wt_used holds positions outside 0..{K}")
    for name, a in (("wt_q", tables.q), ("wt_mass", tables.mass)):
        if not (np.isfinite(a).all() and (a >= 0).all()):
            raise ValueError(f"state/{name} must hold finite non-negative numbers")
    live = u < K   # tables in use; the others are rebuilt before their next draw
    q, mass = tables.q[live], tables.mass[live]
    if not ((q > 0).all() and np.allclose(mass, q.sum(axis=1), rtol=1e-9)):
        raise ValueError("state/wt_q and wt_mass: a table in use must hold positive values q "
                         "(every topic has mass beta > 0) summing to its mass")


# the word tables' arrays in checkpoints: name -> field of a sampler record with ``tables``
TABLE_FIELDS = {"wt_samples": "tables.samples", "wt_q": "tables.q", "wt_mass": "tables.mass",
                "wt_used": "tables.used"}


@REGISTRY.register
@dataclass(frozen=True)
class Alias(TopicSampler):
    """AliasLDA's sampler: an exact sparse document part and a stale per-word alias table,
    corrected by ``mh_steps`` Metropolis-Hastings steps per token (2 in the paper). Only
    approximately invariant: the tables are built from a state that includes the token
    (``kernels.word_tables``)."""

    name = "alias"
    supports_supervision = False
    exact = False   # its stale tables hold the token they serve (docs/math.md)
    SAVED = TABLE_FIELDS

    mh_steps: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                                           high=MAX_MH_STEPS))

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return aliaslda.KINDS

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS,
                            help=MH_HELP),)

    def allocate(self, problem: Problem) -> AliasArrays:
        K = problem.K
        return AliasArrays(word_tables.allocate(problem.n_words, K), np.zeros(K, np.int32),
                           np.full(K, -1, np.int32), np.zeros(K, np.float64))

    def validate(self, problem: Problem, own: AliasArrays) -> None:
        check_tables(own.tables, problem.K)

    def state_bytes(self, problem: Problem) -> float:
        return 4.0 * problem.n_docs * problem.K + 12.0 * problem.n_words * problem.K

    def sweep(self, problem: Problem, counts: Counts, own: AliasArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        aliaslda.alias_sweep(problem.tokens, counts, Dirichlet(problem.alpha, problem.beta),
                             self.mh_steps, own.tables, own.nz, own.pos, own.p_dw, rng,
                             d_start, d_end, info)
