"""The Pitman-Yor (PDP) topic model: LDA's documents, power-law topics (Li et al. 2014 sec.
2.2; Buntine & Hutter 2012). Its state adds per-token table indicators to z
(``kernels.pdp``); its samplers are the exact Gibbs step over (z, r) and AliasPDP. The
conditionals are derived in docs/math.md sec. 11.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .. import validation as check
from ..corpus import Corpus
from ..kernels import bitmaps, pdp, stirling, word_tables
from ..arrays import F64, Array, Rng
from ..kernels.counts import rebuild_counts
from ..parts import OwnParts, Registry
from ..samplers.auto import Auto
from .base import register
from ..problem import Problem, State
from .tables import AliasTableSampler, GibbsScratch, TableModel, TableSampler

DISCOUNT_RANGE = (0.0, 0.99)
CONCENTRATION_MIN, CONCENTRATION_MAX = 1e-6, 1e6


@dataclass(frozen=True)
class PDPGibbs(TableSampler):
    """The exact conditional over the 2K outcomes (topic, opens a table), O(K) per token."""

    name = "gibbs"

    def allocate(self, problem: Problem) -> GibbsScratch:
        return GibbsScratch(np.zeros(2 * problem.K))

    def sweep_tables(self, model: TableModel, state: State, problem: Problem, rng: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
        st = pdp.gibbs_sweep(problem.tokens, state.counts, state.tables, model.prior,
                             stirling.shared(model.discount), rng, d_start, d_end, info,
                             self.blocked_at(), state.sampler.p)
        stirling.keep(st)


class AliasPDPArrays(NamedTuple):
    tables: word_tables.Supplied
    ratios: np.ndarray     # (V, 2K) the counts' Stirling ratios (``pdp.fill_ratios``)
    ratios_a: np.ndarray   # (1,) the discount they were filled for (NaN: to be filled)
    has: np.ndarray        # (V, ceil(K / 64)) int64: the topics where each word has customers
    p_dw: np.ndarray       # (2K) the sparse part's cumulative masses


@dataclass(frozen=True)
class AliasPDP(AliasTableSampler):
    """AliasPDP (Li et al. 2014 sec. 4.2): the exact sparse document part and a stale
    per-word table over the 2K outcomes (``AliasTableSampler``: the refresh, the MH steps).
    O(k_d) per token, amortised. It keeps the Stirling ratios of every (word, topic) in a
    (V, 2K) cache beside the counts (derived, not saved; filled at the first sweep after a
    start, a load or a change of the discount), so its random reads are one cache line where
    they were four; a bitmap per word of the topics where it has customers lets the sparse
    part skip the others' row entries (join 0, open 1)."""

    mh_steps: int = 2
    refresh: str = "sweep"

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return pdp.KINDS

    def outcomes(self, problem: Problem) -> int:
        return 2 * problem.K

    def allocate(self, problem: Problem) -> AliasPDPArrays:
        K = problem.K
        return AliasPDPArrays(self.word_tables(problem),
                              np.zeros((problem.n_words, 2 * K)), np.full(1, np.nan),
                              bitmaps.allocate(problem.n_words, K), np.zeros(2 * K))

    def state_bytes(self, problem: Problem) -> float:
        return super().state_bytes(problem) + problem.n_words * (
            16.0 * problem.K + 8.0 * bitmaps.n_words(problem.K))

    def sweep_tables(self, model: TableModel, state: State, problem: Problem, rng: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
        own = state.sampler
        if not own.ratios_a[0] == model.discount:   # NaN after a refresh of the state
            stirling.keep(pdp.fill_ratios(state.counts.n_wk, state.tables.s_wk,
                                          stirling.shared(model.discount), own.ratios,
                                          own.has))
            own.ratios_a[0] = model.discount
        st = pdp.alias_sweep(problem.tokens, state.counts, state.tables, model.prior,
                             stirling.shared(model.discount), self.mh_steps,
                             self.refresh == "sweep", own.tables, own.ratios,
                             own.has, own.p_dw, rng, d_start, d_end, info,
                             self.blocked_at())
        stirling.keep(st)


SAMPLERS = OwnParts("sampler", PDPGibbs, AliasPDP, Auto)


@register
class PDPLDA(TableModel):
    """The Pitman-Yor topic model: theta_d ~ Dir(alpha), psi_0 ~ Dir(beta), psi_t ~ PDP(b, a,
    psi_0) (Li et al. 2014 sec. 2.2, the model of Buntine & Hutter and Chen et al.).

    Parameters
    ----------
    K : int
        Number of topics.
    alpha : float or sequence of float
        Document-topic Dirichlet parameter.
    beta : float
        The base distribution's symmetric Dirichlet parameter (the paper's gamma, 0.1).
    discount : float
        The Pitman-Yor discount a in [0, 0.99] (0.1 in the paper; 0 is a Dirichlet process).
        A large discount opens many tables, and the Stirling numbers' table grows with the
        largest table count (a checkpoint whose counts would need more memory than there is
        is refused).
    concentration : float
        The Pitman-Yor concentration b (10 in the paper): the process allows b > -a, the
        samplers b > 0.
    sampler : {"auto", "gibbs", "alias"}
        ``"gibbs"``: the exact conditional over (topic, table indicator), O(K) per token;
        ``"alias"``: AliasPDP, O(k_d) amortised, with ``mh_steps``. ``"auto"`` (the
        default): ``"gibbs"``, the exact one (the alias sampler's stale tables make it only
        approximately invariant: it runs by name).
    """

    OWN: ClassVar[dict[str, Any]] = {"discount": 0.1, "concentration": 10.0}
    restaurant = "word"
    ROLES: ClassVar[dict[str, Registry[Any]]] = {"sampler": SAMPLERS}
    PUBLISHED_SAMPLER: ClassVar[str] = "alias"   # Li et al. 2014
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "auto", "alpha": 0.1, "beta": 0.1}

    @classmethod
    def as_published(cls, K: int = 1024, **params: Any) -> "PDPLDA":
        """Li et al. 2014 sec. 5.2: alpha 0.1, a 0.1, b 10, gamma 0.1, k 1024, AliasPDP with 2
        MH steps and its tables rebuilt after serving 2K draws (``refresh="draws"``)."""
        p = {"K": K, "alpha": 0.1, "beta": 0.1, "discount": 0.1, "concentration": 10.0,
             "sampler": "alias", **params}
        if p["sampler"] == "alias":   # the exact sampler has no tables to refresh
            p.setdefault("refresh", "draws")
        return cls(**p)

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own = super()._check_own(own)
        own["discount"] = check.number("discount", own["discount"], low=DISCOUNT_RANGE[0],
                                       high=DISCOUNT_RANGE[1])
        # the Pitman-Yor process allows b > -a; b <= 0 makes an empty topic's factors 0 / 0
        # in the kernels' arithmetic, so it is refused rather than special-cased
        own["concentration"] = check.number(
            "concentration", own["concentration"], low=CONCENTRATION_MIN,
            high=CONCENTRATION_MAX, why="b in (-a, 0] is a Pitman-Yor process the samplers do "
                                        "not support")
        return own

    @property
    def prior(self) -> pdp.PitmanYor:
        return pdp.PitmanYor(self.alpha_vector, float(self.discount), float(self.concentration),
                             float(self.beta))

    # ------------------------------------------------------------------ state
    def state_bytes(self, problem: Problem) -> float:
        p = problem
        return super().state_bytes(p) + 4.0 * (p.n_words + p.n_docs) * self.K \
            + 1.0 * p.n_tokens

    def allocate_state(self, problem: Problem) -> State:
        state = super().allocate_state(problem)
        state.tables = pdp.allocate_tables(problem.n_tokens, problem.n_words, self.K)
        return state

    def restaurant_of(self, corpus: Corpus) -> Array:
        return corpus.words

    def first_heads(self, problem: Problem, state: State) -> None:
        pdp.first_heads(problem.corpus.words, state.counts.z, state.tables.r, self.K)

    def structure(self, state: State) -> tuple[int, int]:
        return int((state.counts.n_k > 0).sum()), int(state.tables.s_total[0])

    def refresh_state(self, state: State, problem: Problem) -> None:
        c, t, corpus = state.counts, state.tables, problem.corpus
        rebuild_counts(corpus.words, corpus.doc_ptr, c.z, c.n_dk, c.n_wk, c.n_k)
        pdp.rebuild_tables(corpus.words, c.z, t.r, t.s_wk, t.s_k, t.s_w, t.s_total)
        if isinstance(state.sampler, AliasPDPArrays):   # the ratio cache follows the counts
            state.sampler.ratios_a[0] = np.nan

    def log_joint(self, state: State, problem: Problem) -> float:
        """log p(W, Z, R) with Theta, the topics and the base collapsed (docs/math.md
        sec. 11)."""
        t = problem.tokens
        lj, st = pdp.log_joint(t.doc_ptr, t.word_ptr, t.word_tok, state.counts, state.tables,
                               self.prior, stirling.shared(self.discount))
        stirling.keep(st)
        return float(lj)

    def topic_word(self, state: State, problem: Problem) -> np.ndarray:
        """The PDP's predictive topics phi[k, w] = (m_kw - a s_kw + (b + a s_k) psi0_w) /
        (b + m_k), psi0_w = (beta + S_w) / (V beta + S)."""
        V = state.counts.n_wk.shape[0]
        phi = np.empty((V, self.K))
        pdp.topic_word(state.counts, state.tables, self.prior, phi)
        return phi.T.copy()
