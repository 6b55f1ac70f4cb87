"""What the table-indicator models (``PDPLDA``, ``HDPLDA``) share: a state with one table
indicator per token beside z (``State.tables``), samplers that sweep it, and the checks,
history rows and views that follow from it (docs/math.md sec. 9)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import validation as check
from ..corpus import Corpus
from ..kernels import info as info_layout
from ..kernels import word_tables
from ..kernels.counts import init_assignments
from ..parts import LiveSetting
from ..samplers import MAX_MH_STEPS, TopicSampler
from .lda import LDA, State


class TableSampler(TopicSampler):
    """Base of the samplers of the table-indicator models: they read the model's table state
    (``State.tables``) and count the tokens the exact removal move keeps."""

    def counters(self, supervised: bool) -> tuple[str, ...]:
        return ("blocked",)

    def counter_rows(self, values: np.ndarray, rec: Any) -> list[dict[str, Any]]:
        """``blocked_share``: tokens heading the only table of a dish others eat, which
        cannot move this sweep (the exact removal move), per token visited."""
        return [{"metric": "blocked_share",
                 "value": values[0] / rec.tokens if rec.tokens else float("nan"),
                 "proposal": None}]

    def blocked_at(self, supervised: bool = False) -> int:
        return info_layout.size(len(self.kinds(supervised)))

    def sweep(self, model, tokens, counts, own, term, supervised, rng, d_start, d_end, info):
        raise TypeError(f"the {self.name!r} sampler of {type(model).__name__} sweeps the "
                        f"model's table state: call the model's sweep_block")

    def sweep_tables(self, model: Any, state: State, rng: np.ndarray, d_start: int,
                     d_end: int, info: np.ndarray) -> None:
        """Resample (z, r) of documents ``d_start .. d_end-1``."""
        raise NotImplementedError

    def end_sweep(self, model: Any, state: State) -> None:
        """Once per sweep, after the documents (nothing by default)."""


REFRESH = ("sweep", "draws")
_WT_NAMES = tuple("wt_" + name for name in word_tables.SUPPLIED_SAVED)


class AliasTableSampler(TableSampler):
    """What AliasPDP and AliasHDP share: a stale per-word table over the model's outcomes
    (``word_tables.Supplied``, in ``state.sampler.tables``), ``mh_steps`` Metropolis-Hastings
    steps, and when a word's table is rebuilt: once it has served as many draws as it has
    outcomes (``refresh="draws"``, the paper: a rare word's table then stays from the random
    start for dozens of sweeps) or also once per sweep (``"sweep"``, the default: O(outcomes)
    per word and sweep, with only the draws a sweep can use). Like AliasLDA, only
    approximately invariant once a table holds the token being resampled (measured in
    tests/kernels/test_pdp.py and test_hdp.py)."""

    name = "alias"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                                           high=MAX_MH_STEPS))
        check.choice("refresh", self.refresh, REFRESH)

    def outcomes(self, model: Any) -> int:
        """The length of a word's table."""
        raise NotImplementedError

    def end_sweep(self, model: Any, state: State) -> None:
        if self.refresh == "sweep":   # every table from an earlier sweep is now stale
            state.sampler.tables.epoch[0] += 1

    def live_settings(self, model: Any) -> tuple[LiveSetting, ...]:
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS),)

    def word_tables(self, model: Any, corpus: Any) -> word_tables.Supplied:
        return word_tables.allocate_supplied(corpus.n_words, self.outcomes(model))

    def saved_names(self) -> tuple[str, ...]:
        return _WT_NAMES

    def saved(self, own: Any) -> dict[str, np.ndarray]:
        t = own.tables
        return dict(zip(_WT_NAMES, (getattr(t, name) for name in word_tables.SUPPLIED_SAVED)))

    def validate(self, model: Any, own: Any) -> None:
        t = own.tables
        check_stale_tables(t.samples, t.q, t.mass, t.used, self.outcomes(model), "wt",
                           t.supply)
        if t.epoch[0] < 0 or t.built.min(initial=0) < 0 or (t.built > t.epoch[0]).any():
            raise ValueError("state/wt_built and wt_epoch: tables built in sweeps that have "
                             "not happened")
        if (t.q[t.used < t.supply] <= 0).any():
            # both kernels give every outcome positive mass: a state of zero proposal mass
            # (an HDP slot dead at the build, a PDP table opened after it) could not be left
            raise ValueError("state/wt_q: a table in use must give every outcome (each topic "
                             "and table, or slot and new topic) positive stale mass")

    def state_bytes(self, model: Any, corpus: Any) -> float:
        return 12.0 * corpus.n_words * self.outcomes(model)


class GibbsScratch(NamedTuple):
    """The cumulative conditional over the outcomes."""

    p: np.ndarray


def check_stale_tables(samples: np.ndarray, q: np.ndarray, mass: np.ndarray, used: np.ndarray,
                       n_outcomes: int, prefix: str, supply: np.ndarray | None = None) -> None:
    """Refuse saved stale alias tables (one per row) a kernel would index out of range or
    draw from wrongly; ``supply``: per row, the draws stored at its build (default all)."""
    L = samples.shape[-1]
    if samples.size and (samples.min() < 0 or samples.max() >= n_outcomes):
        raise ValueError(f"state/{prefix}_samples holds outcomes outside 0..{n_outcomes - 1}")
    if supply is None:
        supply = np.full(used.shape, L)
    elif supply.size and (supply.min() < 1 or supply.max() > L):
        raise ValueError(f"state/{prefix}_supply holds sizes outside 1..{L}")
    if used.size and (used.min() < 0 or (used > supply).any()):
        raise ValueError(f"state/{prefix}_used holds positions beyond the supply drawn")
    for name, a in ((f"{prefix}_q", q), (f"{prefix}_mass", mass)):
        if not (np.isfinite(a).all() and (a >= 0).all()):
            raise ValueError(f"state/{name} must hold finite non-negative numbers")
    live = used < supply
    q2 = q.reshape(len(used), -1)[live]
    if not ((mass[live] > 0).all()
            and np.allclose(mass[live], q2.sum(axis=1), rtol=1e-9, atol=0.0)):
        raise ValueError(f"state/{prefix}_q and {prefix}_mass: a table in use must hold "
                         f"values summing to its positive mass")
    drawn = samples.reshape(len(used), -1)[live]
    in_supply = np.arange(L)[None, :] < supply[live][:, None]
    if drawn.size and (np.take_along_axis(q2, drawn.astype(np.int64), axis=1)[in_supply]
                       <= 0).any():
        raise ValueError(f"state/{prefix}_samples holds draws of outcomes with no stale mass")


class TableModel(LDA):
    """Base of the table-indicator models. A subclass names its restaurants
    (``restaurant_of``: per token, the restaurant whose tables it sits at, a word for the PDP,
    a document for the HDP), allocates, starts and rebuilds its table state and reports its
    live topics and tables (``structure``)."""

    restaurant = ""   # what a restaurant is, for messages

    @property
    def views(self) -> tuple[str, ...]:
        v = list(super().views)
        v.insert(v.index("throughput"), "tables")
        return tuple(v)

    @property
    def saved_state(self) -> tuple[str, ...]:
        return ("z", "r") + self.topic_sampler.saved_names()

    def saved_arrays(self, state: State) -> dict[str, np.ndarray]:
        return {"z": state.counts.z, "r": state.tables.r,
                **self.topic_sampler.saved(state.sampler)}

    def restaurant_of(self, corpus: Corpus) -> np.ndarray:
        """Per token, the index of its restaurant."""
        raise NotImplementedError

    def first_heads(self, corpus: Corpus, state: State) -> None:
        """Table indicators for a fresh z: one table per (restaurant, topic)."""
        raise NotImplementedError

    def structure(self, state: State) -> tuple[int, int]:
        """(live topics, tables at the root)."""
        raise NotImplementedError

    def init_state(self, corpus: Corpus, rng: np.ndarray) -> State:
        """A uniform random z; the first token of each (restaurant, topic) heads its one
        table."""
        self.check_corpus(corpus)
        state = self.allocate_state(corpus)
        init_assignments(state.counts.z, self.K, rng)
        self.first_heads(corpus, state)
        self.refresh_state(state, corpus)
        return state

    def validate_state(self, state: State, corpus: Corpus) -> None:
        """Beyond LDA's checks: indicators 0/1, and every (restaurant, topic) with tokens has
        a table (a state of probability 0 would make the kernels' ratios meaningless)."""
        super().validate_state(state, corpus)
        r = state.tables.r
        if r.shape != (corpus.n_tokens,):
            raise ValueError(f"state/r has shape {r.shape}, expected ({corpus.n_tokens},)")
        if r.size and (r.min() < 0 or r.max() > 1):
            raise ValueError("state/r holds table indicators other than 0 and 1")
        where = self.restaurant_of(corpus).astype(np.int64)
        key = where * self.K + state.counts.z
        size = (int(where.max()) + 1) * self.K if where.size else 0
        n = np.bincount(key, minlength=size)
        t = np.bincount(key, weights=r, minlength=size)
        if ((n > 0) & (t == 0)).any():
            raise ValueError(f"state/r: a ({self.restaurant}, topic) with tokens has no table "
                             f"(no token heads one)")
        # the Stirling numbers this state needs (the kernels grow the table by doubling):
        # a forged r with a table per token could ask for gigabytes
        rows = 1 << int(n.max(initial=0) + 1).bit_length()
        cols = 1 << int(t.max(initial=0) + 1).bit_length()
        check.allocation("the Stirling numbers of state/r's table counts",
                         24.0 * (rows + 1) * (cols + 1))

    def sweep_block(self, state: State, corpus: Corpus, rng: np.ndarray, d_start: int,
                    d_end: int, info: np.ndarray, backend: Any = None) -> None:
        self.topic_sampler.sweep_tables(self, state, rng, d_start, d_end, info)

    def end_sweep(self, state: State, corpus: Corpus, rng: np.ndarray,
                  sweep: int) -> list[dict[str, Any]]:
        """History rows: ``live_topics`` and ``tables`` (the root's customers)."""
        self.topic_sampler.end_sweep(self, state)
        live, tables = self.structure(state)
        return [{"metric": "live_topics", "value": float(live), "proposal": None},
                {"metric": "tables", "value": float(tables), "proposal": None}]
