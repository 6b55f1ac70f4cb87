"""HDP-LDA: the number of topics inferred, up to a truncation K (Li et al. 2014 sec. 2.3; Teh
et al. 2006). Its state adds per-token document-table indicators to z (``kernels.hdp``);
topics are born into free slots and die when their last token leaves. Samplers: the exact
Gibbs step over (z, r) and AliasHDP. The conditionals (the paper's eq. 9 corrected) are
derived in docs/math.md sec. 12.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .. import validation as check
from ..corpus import Corpus
from ..kernels import hdp, stirling, word_tables
from ..arrays import F64, I64, Rng
from ..kernels.counts import rebuild_counts
from ..parts import OwnParts, Registry
from ..samplers.auto import Auto
from .base import register
from ..problem import Problem, State
from .lda import FOLD_IN_BURN, FOLD_IN_KEEP, fold_in_topics
from .tables import AliasTableSampler, GibbsScratch, TableModel, TableSampler

CONCENTRATION_RANGE = (1e-6, 1e6)


@dataclass(frozen=True)
class HDPGibbs(TableSampler):
    """The exact conditional over the live topics (join a table, open one) and a new topic,
    O(K_live) per token."""

    name = "gibbs"

    def allocate(self, problem: Problem) -> GibbsScratch:
        return GibbsScratch(np.zeros(2 * problem.K + 1))

    def sweep_tables(self, model: TableModel, state: State, problem: Problem, rng: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
        st = hdp.gibbs_sweep(problem.tokens, state.counts, state.tables, model.prior,
                             stirling.shared(0.0), rng, d_start, d_end, info,
                             self.blocked_at(), state.sampler.p)
        stirling.keep(st)


class AliasHDPArrays(NamedTuple):
    tables: word_tables.Supplied


@dataclass(frozen=True)
class AliasHDP(AliasTableSampler):
    """AliasHDP (Li et al. 2014 sec. 4.3): the document's topics exact, every other topic
    (a new document table) and a new topic from a stale per-word table over the K + 1
    outcomes (``AliasTableSampler``: the refresh, the MH steps). O(k_d) per token,
    amortised."""

    mh_steps: int = 2
    refresh: str = "sweep"

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return hdp.KINDS

    def outcomes(self, problem: Problem) -> int:
        return problem.K + 1

    def allocate(self, problem: Problem) -> AliasHDPArrays:
        return AliasHDPArrays(self.word_tables(problem))

    def sweep_tables(self, model: TableModel, state: State, problem: Problem, rng: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
        own = state.sampler
        st = hdp.alias_sweep(problem.tokens, state.counts, state.tables, model.prior,
                             stirling.shared(0.0), self.mh_steps, self.refresh == "sweep",
                             own.tables, rng, d_start, d_end, info, self.blocked_at())
        stirling.keep(st)


SAMPLERS = OwnParts("sampler", HDPGibbs, AliasHDP, Auto)


@register
class HDPLDA(TableModel):
    """HDP-LDA: theta_0 ~ DP(b0, H), theta_d ~ DP(b1, theta_0), topics ~ Dir(beta) (Li et
    al. 2014 sec. 2.3), restricted to at most K live topics.

    Parameters
    ----------
    K : int
        The truncation: at most K topics live at once (a new topic is offered only while
        fewer live).
    b0, b1 : float
        Root and document concentrations (10 and 10 in the paper).
    beta : float
        Topic-word Dirichlet parameter (the paper's gamma, 0.1).
    sampler : {"auto", "gibbs", "alias"}
        ``"gibbs"``: the exact conditional, O(K_live) per token; ``"alias"``: AliasHDP,
        O(k_d), with ``mh_steps`` and ``refresh``. ``"auto"`` (the
        default): ``"gibbs"``, the exact one (the alias sampler's stale tables make it only
        approximately invariant: it runs by name).
    init_topics : int, optional
        The start: z uniform over slots 0 .. init_topics-1 (1 to K). None (the default):
        every slot live. The sampler retires a topic only when its last token leaves, and a
        random start splits every real topic over several slots, duplicates that empty one
        token at a time (on the demo corpus's 400 documents, K = 30, b0 = b1 = 1: all 30
        live for the first 70 to 150 sweeps, 11 to 13 after 1,000). 1: every token in one
        topic, from which the sampler opens topics as the data ask (there the six themes in
        75 to 160 sweeps, in some chains over 200). The start changes where the chain
        begins, not the posterior.
    """

    OWN: ClassVar[dict[str, Any]] = {"b0": 10.0, "b1": 10.0, "init_topics": None}
    REMOVED = ("alpha",)
    restaurant = "document"
    ROLES: ClassVar[dict[str, Registry[Any]]] = {"sampler": SAMPLERS}
    PUBLISHED_SAMPLER: ClassVar[str] = "alias"   # Li et al. 2014
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "auto", "K": 100, "beta": 0.1}

    @classmethod
    def as_published(cls, K: int = 1024, **params: Any) -> "HDPLDA":
        """Li et al. 2014 sec. 5.2: b0 = b1 = 10, gamma 0.1, k 1024, AliasHDP with 2 MH
        steps and its tables rebuilt after serving K + 1 draws (``refresh="draws"``)."""
        p = {"K": K, "b0": 10.0, "b1": 10.0, "beta": 0.1, "sampler": "alias", **params}
        if p["sampler"] == "alias":   # the exact sampler has no tables to refresh
            p.setdefault("refresh", "draws")
        return cls(**p)

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own["alpha"] = 0.1   # LDA's check reads it; HDP-LDA has none (``doc_prior``)
        own = super()._check_own(own)
        del own["alpha"]
        for name in ("b0", "b1"):
            own[name] = check.number(name, own[name], low=CONCENTRATION_RANGE[0],
                                     high=CONCENTRATION_RANGE[1])
        if own["init_topics"] is not None:
            own["init_topics"] = check.integer("init_topics", own["init_topics"], low=1,
                                               high=own["K"])
        return own

    def start_topics(self) -> int:
        return int(self.K if self.init_topics is None else self.init_topics)

    @property
    def alpha_vector(self) -> np.ndarray:
        raise AttributeError("HDP-LDA has no alpha: its documents' prior is doc_prior(state)")

    @property
    def prior(self) -> hdp.HDPPrior:
        return hdp.HDPPrior(float(self.b0), float(self.b1), float(self.beta))

    # ------------------------------------------------------------------ state
    def dirichlet(self) -> tuple[F64, bool]:
        # the documents' prior is part of the state (doc_prior): no fixed alpha to bind
        return np.zeros(0), True

    def state_bytes(self, problem: Problem) -> float:
        return super().state_bytes(problem) + 8.0 * problem.n_docs * self.K \
            + 1.0 * problem.n_tokens

    def allocate_state(self, problem: Problem) -> State:
        state = super().allocate_state(problem)
        state.tables = hdp.allocate_tables(problem.n_tokens, problem.n_docs, self.K)
        return state

    def restaurant_of(self, corpus: Corpus) -> I64:
        return np.repeat(np.arange(corpus.n_docs, dtype=np.int64), corpus.doc_lengths)

    def first_heads(self, problem: Problem, state: State) -> None:
        """The start's slots live (z uniform over ``start_topics()`` of them): the sampler
        retires topics and opens new ones."""
        hdp.first_heads(problem.corpus.doc_ptr, state.counts.z, state.tables.r, self.K)

    def structure(self, state: State) -> tuple[int, int]:
        return int(state.tables.n_live[0]), int(state.tables.t_total[0])

    def refresh_state(self, state: State, problem: Problem) -> None:
        c, t, corpus = state.counts, state.tables, problem.corpus
        rebuild_counts(corpus.words, corpus.doc_ptr, c.z, c.n_dk, c.n_wk, c.n_k)
        hdp.rebuild_tables(corpus.doc_ptr, c.z, t.r, t.t_dk, t.t_k, t.t_total, t.live,
                           t.n_live)

    def log_joint(self, state: State, problem: Problem) -> float:
        """log p(W, Z, R) (docs/math.md sec. 12)."""
        t = problem.tokens
        lj, st = hdp.log_joint(t.doc_ptr, t.word_ptr, t.word_tok, state.counts, state.tables,
                               self.prior, stirling.shared(0.0))
        stirling.keep(st)
        return float(lj)

    # ------------------------------------------------------------------ estimates
    def doc_prior(self, state: State, problem: Problem) -> np.ndarray:
        """b1 theta_0 over the K slots, theta_0k = T_k / (T + b0) (0 for a dead slot): the
        documents' prior weights on the live topics (the new-topic mass b0 / (T + b0) is
        left out)."""
        t_k = state.tables.t_k.astype(np.float64)
        return self.b1 * t_k / (t_k.sum() + self.b0)

    def shown_topics(self, state: State) -> np.ndarray:
        return state.tables.live[:state.tables.n_live[0]].copy()

    def fold_in(self, state: State, problem: Problem, corpus: Corpus, rng: np.ndarray,
                n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                phi_wk: np.ndarray | None = None) -> np.ndarray:
        """Held-out topic proportions (D, K) over the live topics with the topics fixed, each
        document's Dirichlet b1 theta_0 (``doc_prior``); dead slots get 0."""
        live = self.shown_topics(state)
        if phi_wk is None:
            phi_wk = self.topic_word(state, problem).T
        V = state.counts.n_wk.shape[0]
        if phi_wk.shape != (V, self.K):
            raise ValueError(f"phi_wk must have shape (V, K) = ({V}, {self.K}), "
                             f"got {phi_wk.shape}")
        out = np.zeros((corpus.n_docs, self.K))
        phi = np.ascontiguousarray(phi_wk[:, live], dtype=np.float64)
        out[:, live] = fold_in_topics(phi, self.doc_prior(state, problem)[live], corpus, rng,
                                      n_burn, n_keep)
        return out
