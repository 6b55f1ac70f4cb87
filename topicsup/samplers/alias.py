"""AliasLDA: Metropolis-Hastings-Walker, O(k_d) per token (Li et al. 2014 sec. 4.1;
``kernels.aliaslda``). LDA only; its stale word tables are part of the chain's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .. import validation as check
from ..kernels import aliaslda, word_tables
from ..kernels.counts import Dirichlet
from ..parts import LiveSetting
from . import MAX_MH_STEPS, REGISTRY, TopicSampler


class AliasArrays(NamedTuple):
    """The stale word tables, the document's topic list ``nz``/``pos`` and the sparse part's
    cumulative masses ``p_dw``."""

    tables: word_tables.Tables
    nz: np.ndarray
    pos: np.ndarray
    p_dw: np.ndarray


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


TABLE_NAMES = ("wt_samples", "wt_q", "wt_mass", "wt_used")   # in checkpoints


def saved_tables(tables: word_tables.Tables) -> dict[str, np.ndarray]:
    return dict(zip(TABLE_NAMES, (tables.samples, tables.q, tables.mass, tables.used)))


@REGISTRY.register
@dataclass(frozen=True)
class Alias(TopicSampler):
    """AliasLDA's sampler: an exact sparse document part and a stale per-word alias table,
    corrected by ``mh_steps`` Metropolis-Hastings steps per token (2 in the paper). Only
    approximately invariant: the tables are built from a state that includes the token
    (``kernels.word_tables``)."""

    name = "alias"
    supports_supervision = False

    mh_steps: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                                           high=MAX_MH_STEPS))

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return aliaslda.KINDS

    def live_settings(self, model: Any) -> tuple[LiveSetting, ...]:
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS),)

    def allocate(self, model: Any, corpus: Any) -> AliasArrays:
        K = model.K
        return AliasArrays(word_tables.allocate(corpus.n_words, K), np.zeros(K, np.int32),
                           np.full(K, -1, np.int32), np.zeros(K, np.float64))

    def saved_names(self) -> tuple[str, ...]:
        return TABLE_NAMES

    def saved(self, own: AliasArrays) -> dict[str, np.ndarray]:
        return saved_tables(own.tables)

    def validate(self, model: Any, own: AliasArrays) -> None:
        check_tables(own.tables, model.K)

    def state_bytes(self, model: Any, corpus: Any) -> float:
        return 4.0 * corpus.n_docs * model.K + 12.0 * corpus.n_words * model.K

    def sweep(self, model, tokens, counts, own, term, supervised, rng, d_start, d_end, info):
        aliaslda.alias_sweep(tokens, counts, Dirichlet(model.alpha_vector, model.beta),
                             self.mh_steps, own.tables, own.nz, own.pos, own.p_dw, rng,
                             d_start, d_end, info)
