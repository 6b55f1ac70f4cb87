"""What the table-indicator models (``PDPLDA``, ``HDPLDA``) share: a state with one table
indicator per token beside z (``State.tables``), samplers that sweep it, and the checks,
history rows and views that follow from it (docs/math.md sec. 9)."""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np

from .. import validation as check
from ..corpus import Corpus
from ..kernels import info as info_layout
from ..kernels import word_tables
from ..arrays import Array, F64, Rng, Row
from ..backends import Backend
from ..kernels.counts import Counts, init_assignments
from ..kernels.info import SweepInfo
from ..kernels.supervised import Term
from ..parts import MH_HELP, LiveSetting, Parameters
from ..samplers import MAX_MH_STEPS, TopicSampler
from ..samplers.auto import UNRESOLVED
from ..problem import Problem, State
from .lda import LDA, _under


class TableSampler(TopicSampler):
    """Base of the samplers of the table-indicator models: they read the model's table state
    (``State.tables``) and count the tokens the exact removal move keeps."""

    def counters(self, supervised: bool) -> tuple[str, ...]:
        return ("blocked",)

    def counter_rows(self, values: F64, rec: SweepInfo) -> list[Row]:
        """``blocked_share``: tokens heading the only table of a dish others eat, which
        cannot move this sweep (the exact removal move), per token visited."""
        return [{"metric": "blocked_share",
                 "value": values[0] / rec.tokens if rec.tokens else float("nan"),
                 "proposal": None}]

    def blocked_at(self, supervised: bool = False) -> int:
        return info_layout.size(len(self.kinds(supervised)))

    def sweep(self, problem: Problem, counts: Counts, own: Any, term: Term, supervised: bool,
              rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        raise TypeError(f"the {self.name!r} sampler of {type(problem.model).__name__} sweeps the "
                        f"model's table state: call the model's sweep_block")

    def sweep_tables(self, model: TableModel, state: State, problem: Problem, rng: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
        """Resample (z, r) of documents ``d_start .. d_end-1`` of ``problem.tokens``."""
        raise NotImplementedError

    def end_sweep(self, problem: Problem, state: State) -> None:
        """Once per sweep, after the documents (nothing by default)."""


REFRESH = ("sweep", "draws")


class AliasTableSampler(TableSampler):
    """What AliasPDP and AliasHDP share: a stale per-word table over the model's outcomes
    (``word_tables.Supplied``, in ``state.sampler.tables``), ``mh_steps`` Metropolis-Hastings
    steps, and when a word's table is rebuilt: once it has served as many draws as it has
    outcomes (``refresh="draws"``, the paper: a rare word's table then stays from the random
    start for dozens of sweeps) or also once per sweep (``"sweep"``, the default: O(outcomes)
    per word and sweep, with only the draws a sweep can use). Like AliasLDA, only
    approximately invariant once a table holds the token being resampled (measured in
    tests/kernels/test_pdp.py and test_hdp.py)."""

    exact = False   # their stale tables hold the token they serve (docs/math.md)
    # the settings of both (dataclass fields of AliasPDP and AliasHDP); ``refresh`` is the
    # papers' name for when a word's table is rebuilt, which hides the base's refresh step
    # (the table models rebuild their state in refresh_state and never call it)
    mh_steps: int
    refresh: str   # type: ignore[assignment]
    name = "alias"
    SAVED = {f"wt_{name}": f"tables.{name}" for name in word_tables.SUPPLIED_SAVED}

    def __post_init__(self) -> None:
        object.__setattr__(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                                           high=MAX_MH_STEPS))
        check.choice("refresh", self.refresh, REFRESH)

    def outcomes(self, problem: Problem) -> int:
        """The length of a word's table."""
        raise NotImplementedError

    def end_sweep(self, problem: Problem, state: State) -> None:
        if self.refresh == "sweep":   # every table from an earlier sweep is now stale
            state.sampler.tables.epoch[0] += 1

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS,
                            help=MH_HELP),)

    def word_tables(self, problem: Problem) -> word_tables.Supplied:
        return word_tables.allocate_supplied(problem.n_words, self.outcomes(problem))

    def validate(self, problem: Problem, own: Any) -> None:
        t = own.tables
        check_stale_tables(t.samples, t.q, t.mass, t.used, self.outcomes(problem), "wt",
                           t.supply)
        if t.epoch[0] < 0 or t.built.min(initial=0) < 0 or (t.built > t.epoch[0]).any():
            raise ValueError("state/wt_built and wt_epoch: tables built in sweeps that have "
                             "not happened")
        if (t.q[t.used < t.supply] <= 0).any():
            # both kernels give every outcome positive mass: a state of zero proposal mass
            # (an HDP slot dead at the build, a PDP table opened after it) could not be left
            raise ValueError("state/wt_q: a table in use must give every outcome (each topic "
                             "and table, or slot and new topic) positive stale mass")

    def state_bytes(self, problem: Problem) -> float:
        return 12.0 * problem.n_words * self.outcomes(problem)


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
    learns_prior = False   # its kernels read their own prior records, not the problem's

    @property
    def views(self) -> tuple[str, ...]:
        v = list(super().views)
        v.insert(v.index("throughput"), "tables")
        return tuple(v)

    def saved_paths(self) -> dict[str, str]:
        return {"z": "counts.z", "r": "tables.r",
                **_under("sampler", self.topic_sampler.saved_fields())}

    def restaurant_of(self, corpus: Corpus) -> Array:
        """Per token, the index of its restaurant."""
        raise NotImplementedError

    def first_heads(self, problem: Problem, state: State) -> None:
        """Table indicators for a fresh z: one table per (restaurant, topic)."""
        raise NotImplementedError

    def structure(self, state: State) -> tuple[int, int]:
        """(live topics, tables at the root)."""
        raise NotImplementedError

    def start_topics(self) -> int:
        """How many topics (slots 0, 1, ...) the random start spreads the tokens over."""
        return int(self.K)

    def init_state(self, problem: Problem, rng: Rng) -> State:
        """A z uniform over the first ``start_topics()`` slots (all K unless the model says
        otherwise); the first token of each (restaurant, topic) heads its one table."""
        state = self.allocate_state(problem)
        init_assignments(state.counts.z, self.start_topics(), rng)
        self.first_heads(problem, state)
        self.refresh_state(state, problem)
        return state

    def validate_state(self, state: State, problem: Problem) -> None:
        """Beyond LDA's checks: indicators 0/1, and every (restaurant, topic) with tokens has
        a table (a state of probability 0 would make the kernels' ratios meaningless)."""
        super().validate_state(state, problem)
        r = state.tables.r
        if r.shape != (problem.n_tokens,):
            raise ValueError(f"state/r has shape {r.shape}, expected ({problem.n_tokens},)")
        if r.size and (r.min() < 0 or r.max() > 1):
            raise ValueError("state/r holds table indicators other than 0 and 1")
        where = self.restaurant_of(problem.corpus).astype(np.int64)
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

    @property
    def topic_sampler(self) -> TableSampler:
        return cast(TableSampler, self._parts["sampler"])   # ROLES: its own samplers

    def sweep_block(self, state: State, problem: Problem, rng: Rng, d_start: int,
                    d_end: int, info: F64, backend: Backend | None = None) -> None:
        if self.topic_sampler.chooses:
            raise RuntimeError(UNRESOLVED)
        self.topic_sampler.sweep_tables(self, state, problem, rng, d_start, d_end, info)

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """History rows: ``live_topics`` and ``tables`` (the root's customers)."""
        self.topic_sampler.end_sweep(problem, state)
        live, tables = self.structure(state)
        return [{"metric": "live_topics", "value": float(live), "proposal": None},
                {"metric": "tables", "value": float(tables), "proposal": None}]
