"""LightLDA's Metropolis-Hastings proposals, O(1) per token for LDA and O(T) per proposal with
T label tasks (Zheng et al. 2015 sec. 2.3, 3.3; ``kernels.light``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .. import validation as check
from ..kernels import light, word_tables
from ..kernels.alias import build_alias
from ..kernels.counts import Dirichlet
from ..parts import LiveSetting
from . import MAX_MH_STEPS, REGISTRY, TopicSampler
from .alias import TABLE_NAMES, check_tables, saved_tables

COMPOSITIONS = {"cycle": light.CYCLE, "mixture": light.MIXTURE}


class LightArrays(NamedTuple):
    """The current document's count row ``ndk`` (zero between documents), the Walker table of
    alpha for the doc proposal, and the word tables (stale word proposal; placeholders of
    shape (1, 1) otherwise, whose Walker scratch also builds the exp table)."""

    ndk: np.ndarray
    alpha_prob: np.ndarray
    alpha_alias: np.ndarray
    tables: word_tables.Tables


@REGISTRY.register
@dataclass(frozen=True)
class Light(TopicSampler):
    """The light sampler: ``mh_steps`` Metropolis-Hastings steps per token with the doc, word
    and (supervised models) exp proposals.

    Parameters
    ----------
    mh_steps : int
        Steps per token.
    composition : {"cycle", "mixture"}
        Run the kinds in turn, or pick one at random each step.
    p_doc : float
        LDA: the probability of the doc proposal in a mixture.
    word_proposal : {"exact", "stale"}
        ``"exact"``: q_w ∝ n_kw + beta from the current state, table-free; ``"stale"``:
        LightLDA's stale alias tables, only approximately invariant (``kernels.light``).
    proposal_weights : tuple of 3 floats, optional
        Supervised models: the doc, word and exp proposals' probabilities in a mixture
        (default equal); a cycle runs the kinds with a positive weight. A zero switches one off.
    """

    name = "light"
    stepping = "LightLDA MH proposals"
    doc_rows = False

    mh_steps: int = 2
    composition: str = "cycle"
    p_doc: float = 0.5
    word_proposal: str = "exact"
    proposal_weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        check.choice("word_proposal", self.word_proposal, ("exact", "stale"))
        check.choice("composition", self.composition, sorted(COMPOSITIONS))
        set_(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                             high=MAX_MH_STEPS))
        set_(self, "p_doc", check.number("p_doc", self.p_doc, low=0.0, high=1.0, low_open=True,
                                         high_open=True))
        pw = self.proposal_weights
        if pw is not None:
            if isinstance(pw, (str, bytes)) or not isinstance(pw, (tuple, list, np.ndarray)):
                raise TypeError(f"proposal_weights must be 3 numbers (doc, word, exp) or None, "
                                f"got {type(pw).__name__}")
            pw = tuple(check.number(f"proposal_weights[{j}]", x, low=0.0)
                       for j, x in enumerate(pw))
            if len(pw) != 3 or max(pw) <= 0:
                raise ValueError(f"proposal_weights must be 3 non-negative numbers (doc, word, "
                                 f"exp) with a positive sum, got {self.proposal_weights!r}")
            top = max(pw)   # scaled so the sum cannot overflow: same mixture
            set_(self, "proposal_weights", tuple(x / top for x in pw) if top > 1e300 else pw)

    @property
    def stale(self) -> bool:
        return self.word_proposal == "stale"

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return light.SUPERVISED_KINDS if supervised else light.KINDS

    def ignored(self, model: Any) -> tuple[str, ...]:
        # LDA has no exp proposal to weigh; a supervised model weighs all three kinds
        return ("p_doc",) if model.supervised else ("proposal_weights",)

    def live_settings(self, model: Any) -> tuple[LiveSetting, ...]:
        mix = (LiveSetting("proposal_weights", "mix", "mix", options=light.SUPERVISED_KINDS)
               if model.supervised else LiveSetting("p_doc", "mix doc", "fraction"))
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS),
                LiveSetting("composition", "composition", "choice",
                            options=tuple(COMPOSITIONS)), mix)

    def _weights(self) -> np.ndarray:
        return np.asarray(self.proposal_weights or (1.0, 1.0, 1.0))

    def cycle_order(self, supervised: bool) -> np.ndarray:
        """The kinds a cycle runs in turn: doc, word (LDA); those with a positive weight."""
        if not supervised:
            return np.arange(len(light.KINDS), dtype=np.int64)
        return np.flatnonzero(self._weights() > 0).astype(np.int64)

    def kind_cumulative(self, supervised: bool) -> np.ndarray:
        """Cumulative mixture probabilities of the kinds."""
        if not supervised:
            return np.array([self.p_doc, 1.0])
        pw = self._weights()
        cum = np.cumsum(pw / pw.sum())
        cum[-1] = 1.0
        return cum

    def settings(self, model: Any, own: LightArrays, supervised: bool) -> light.Settings:
        return light.Settings(self.mh_steps, COMPOSITIONS[self.composition],
                              self.cycle_order(supervised), self.kind_cumulative(supervised),
                              self.stale, not model.alpha_is_vector, own.alpha_prob,
                              own.alpha_alias, own.ndk)

    def allocate(self, model: Any, corpus: Any) -> LightArrays:
        K = model.K
        # exact proposals need no tables: numba still wants arrays of the right rank
        tables = (word_tables.allocate(corpus.n_words, K) if self.stale
                  else word_tables.allocate(1, 1, work_K=K))
        return LightArrays(np.zeros(K, np.int32), np.zeros(K), np.zeros(K, np.int32), tables)

    def saved_names(self) -> tuple[str, ...]:
        return TABLE_NAMES if self.stale else ()

    def saved(self, own: LightArrays) -> dict[str, np.ndarray]:
        return saved_tables(own.tables) if self.stale else {}

    def refresh(self, model: Any, own: LightArrays) -> None:
        build_alias(model.alpha_vector, own.alpha_prob, own.alpha_alias, own.tables.work)

    def validate(self, model: Any, own: LightArrays) -> None:
        if self.stale:
            check_tables(own.tables, model.K)

    def state_bytes(self, model: Any, corpus: Any) -> float:
        return 12.0 * corpus.n_words * model.K if self.stale else 0.0

    def sweep(self, model, tokens, counts, own, term, supervised, rng, d_start, d_end, info):
        light.light_sweep(tokens, counts, Dirichlet(model.alpha_vector, model.beta),
                          self.settings(model, own, supervised), own.tables, term, rng,
                          d_start, d_end, info)
