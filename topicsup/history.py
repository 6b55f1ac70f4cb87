"""A chain's record: what a Session writes down as it runs, and how it is read back.

* ``History``: the tidy rows (``sweep``, ``metric``, ``value``, ``proposal``), stored by
  column so a long run's memory stays flat;
* ``Record``: the history with the traced arrays (a supervised model's weights after every
  sweep) and the changes of live settings, and the questions asked of them (one metric, one
  trace, the changes, a checkpoint's arrays);
* the metric names the models write and the views read (``ACCEPTANCE``, ``TRAIN_PREFIX``,
  ``STEP_SECONDS``), and ``is_timing``, the rows that differ between two runs of one chain;
* the ArviZ mapping: ``to_inference_data`` for ArviZ 0.x (``InferenceData``) and 1.x (an
  xarray ``DataTree``), from plain arrays, for ``Session.to_arviz`` and ``Chains.to_arviz``.

Pure data and pandas: nothing here samples, draws or imports the layers above.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._version import __version__
from .arrays import F64, I64, Array, Row

ACCEPTANCE = "acceptance_rate"   # the MH acceptance, one row per proposal kind
TRAIN_PREFIX = "train_"          # the training fit: train_accuracy, train_f1, ...
STEP_SECONDS = "seconds_"        # the time split over a sweep's steps: seconds_topics, ...
HISTORY_COLUMNS = ["sweep", "metric", "value", "proposal"]
CHANGE_COLUMNS = ["sweep", "parameter", "old", "new"]


def is_timing(metric: pd.Series) -> pd.Series:
    """Which history rows are wall-clock measurements (``seconds``, the time split
    ``seconds_<step>``, ``tokens_per_second``): the rows that differ between two runs of the
    same chain."""
    metric = metric.astype(str)
    return (metric == "seconds") | metric.str.startswith(STEP_SECONDS) \
        | (metric == "tokens_per_second")


def plain(value: Any) -> Any:
    """A setting's value as JSON stores it (tuples as lists, numpy scalars as Python ones)."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class History:
    """The history's rows, stored by column: a sweep, a metric and a proposal code and a
    value take 24 bytes, not the ~650 of a dict per row, so a long run's memory stays flat
    (``tests/test_soak.py``); checkpoints store the same columns as arrays."""

    def __init__(self) -> None:
        self.sweep = array("q")
        self.value = array("d")
        self.metric = array("I")
        self.proposal = array("I")          # 0: none
        self.names: list[str] = []          # metric names by code
        self.kinds: list[str | None] = [None]
        self._code: dict[str, int] = {}
        self._kind: dict[str | None, int] = {None: 0}

    def __len__(self) -> int:
        return len(self.sweep)

    def extend(self, rows: Iterable[Row]) -> None:
        for r in rows:
            m, p = r["metric"], r["proposal"]
            if m not in self._code:
                self._code[m] = len(self.names)
                self.names.append(m)
            if p not in self._kind:
                self._kind[p] = len(self.kinds)
                self.kinds.append(p)
            self.sweep.append(int(r["sweep"]))
            self.value.append(float(r["value"]))
            self.metric.append(self._code[m])
            self.proposal.append(self._kind[p])

    def rows(self, start: int = 0) -> list[Row]:
        """The rows from ``start`` as dicts (``sweep``, ``metric``, ``value``, ``proposal``)."""
        return [{"sweep": self.sweep[i], "metric": self.names[self.metric[i]],
                 "value": self.value[i], "proposal": self.kinds[self.proposal[i]]}
                for i in range(start, len(self))]

    def last_sweep(self, sweep: int) -> dict[str, float]:
        """The plain metrics of ``sweep`` if it is the last recorded, however many rows its
        model writes (proposals, steps, tasks)."""
        start = len(self)
        while start > 0 and self.sweep[start - 1] == sweep:
            start -= 1
        return {r["metric"]: r["value"] for r in self.rows(start)}

    def to_arrays(self) -> dict[str, Array]:
        """The columns as arrays for a checkpoint (``history/...``)."""
        return {"history/sweep": np.array(self.sweep, dtype=np.int64),
                "history/value": np.array(self.value, dtype=np.float64),
                "history/metric": np.array(self.metric, dtype=np.uint32),
                "history/proposal": np.array(self.proposal, dtype=np.uint32),
                "history/names": np.asarray(self.names, dtype=str).reshape(-1),
                "history/kinds": np.asarray(self.kinds[1:], dtype=str).reshape(-1)}

    def frame(self) -> pd.DataFrame:
        metric = np.asarray(self.names, dtype=object)[np.frombuffer(self.metric, np.uint32)] \
            if len(self) else np.zeros(0, object)
        kinds = np.asarray(self.kinds, dtype=object)
        proposal = kinds[np.frombuffer(self.proposal, np.uint32)] if len(self) \
            else np.zeros(0, object)
        return pd.DataFrame({"sweep": np.array(self.sweep, dtype=np.int64),
                             "metric": metric, "value": np.array(self.value, dtype=np.float64),
                             "proposal": proposal}, columns=HISTORY_COLUMNS)


class Record:
    """A chain's history, traced arrays (name -> one array per sweep, the last sweeps'),
    live-setting changes (dicts of ``CHANGE_COLUMNS``) and the names the user gave topics
    (``labels``, topic -> name). Not locked: its Session reads and writes it under the
    session's lock."""

    def __init__(self, history: History | None = None,
                 traces: dict[str, list[Array]] | None = None,
                 changes: list[dict[str, Any]] | None = None,
                 labels: dict[int, str] | None = None) -> None:
        self.history = History() if history is None else history
        self.traces: dict[str, list[Array]] = {} if traces is None else traces
        self.changes: list[dict[str, Any]] = [] if changes is None else changes
        self.labels: dict[int, str] = {} if labels is None else labels

    def add_sweep(self, rows: list[Row], traces: dict[str, Array]) -> None:
        self.history.extend(rows)
        for name, a in traces.items():
            self.traces.setdefault(name, []).append(a)

    def change(self, sweep: int, parameter: str, old: Any, new: Any) -> None:
        self.changes.append({"sweep": sweep, "parameter": parameter, "old": plain(old),
                             "new": plain(new)})

    def changes_frame(self) -> pd.DataFrame:
        rows = [{**c, "old": str(c["old"]), "new": str(c["new"])} for c in self.changes]
        df = pd.DataFrame(rows, columns=CHANGE_COLUMNS)
        df["sweep"] = df["sweep"].astype(np.int64)
        return df

    def trace(self, name: str) -> Array:
        if not isinstance(name, str):
            raise TypeError(f"name must be a trace name (str), got {type(name).__name__}")
        if not self.traces.get(name):
            known = sorted(self.traces) or "none"
            raise ValueError(f"no trace named {name!r} in this session (traced: {known}; "
                             f"run a sweep first)")
        return np.stack(self.traces[name])

    def to_arrays(self) -> dict[str, Array]:
        """The history's columns and the traces, as a checkpoint stores them."""
        out = self.history.to_arrays()
        out.update({f"trace/{k}": np.stack(v) for k, v in self.traces.items() if v})
        return out


def metric(history: pd.DataFrame, name: str, proposal: str | None, n_sweeps: int
           ) -> pd.Series:
    """One metric of a history frame as a Series indexed by sweep: a plain metric, or with
    ``proposal`` the rows of one proposal kind."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a metric name (str), got {type(name).__name__}")
    rows = history[history["metric"] == name]
    if rows.empty:
        if n_sweeps == 0:
            raise ValueError(f"no metric {name!r} yet: run a sweep first")
        raise ValueError(f"no metric named {name!r} in this session's history; known: "
                         f"{sorted(set(history['metric']))}")
    kinds = sorted(p for p in set(rows["proposal"]) if isinstance(p, str))
    if proposal is None:
        if rows["proposal"].isna().all():
            return rows.set_index("sweep")["value"].rename(name)
        raise ValueError(f"{name!r} has one row per proposal kind: pass proposal= one of "
                         f"{kinds}")
    if proposal not in kinds:
        raise ValueError(f"proposal must be one of {kinds} for {name!r}, got {proposal!r}")
    rows = rows[rows["proposal"] == proposal]
    return rows.set_index("sweep")["value"].rename(f"{name}[{proposal}]")


def kept_draws(trace: Array, n_sweeps: int, burn: int, last: int,
               who: str = "the chain") -> F64:
    """A trace's draws of sweeps ``burn + 1 .. last`` as float64: the trace holds the last
    ``len(trace)`` of ``n_sweeps`` sweeps."""
    first = n_sweeps - trace.shape[0] + 1     # the sweep of the first traced draw
    if first > burn + 1:
        raise ValueError(f"{who} keeps weights from sweep {first} only; use burn >= "
                         f"{first - 1}")
    return trace[burn + 1 - first:last + 1 - first].astype(np.float64)


# ---------------------------------------------------------------------------------- ArviZ
def sweep_stats(history: pd.DataFrame, sweeps: I64, proposals: bool
                ) -> dict[str, F64]:
    """Per sweep: ``lp``, ``acceptance_rate`` (when the sampler proposes: the share of the
    sweep's proposals accepted) and ``topic_change_rate``."""
    h = history[~is_timing(history["metric"])]

    def series(rows: pd.DataFrame) -> F64:
        return rows.groupby("sweep")["value"].sum().reindex(sweeps).to_numpy(np.float64)

    out = {"lp": series(h[h["metric"] == "log_joint"]),
           "topic_change_rate": series(h[h["metric"] == "topic_change_rate"])}
    if proposals:
        rate = h[h["metric"] == ACCEPTANCE].set_index(["sweep", "proposal"])["value"]
        made = h[h["metric"] == "proposals"].set_index(["sweep", "proposal"])["value"]
        both = pd.DataFrame({"rate": rate, "made": made}).dropna()
        both["accepted"] = both["rate"] * both["made"]
        g = both.groupby(level="sweep")[["accepted", "made"]].sum().reindex(sweeps)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["acceptance_rate"] = (g["accepted"] / g["made"]).to_numpy(np.float64)
    return out


def to_inference_data(histories: Sequence[pd.DataFrame], burn: int, n_sweeps: int,
                      proposals: bool, eta: Array | None = None,
                      tasks: Sequence[str] = (), features: Sequence[str] = (),
                      attrs: dict[str, Any] | None = None) -> Any:
    """The ArviZ export of sweeps ``burn + 1 .. n_sweeps`` of one or several chains:
    ``sample_stats`` from each chain's history (``sweep_stats``), and with ``eta`` (chain,
    draw, task, feature) a ``posterior`` with the weights, dims ``task`` and ``feature``
    named by ``tasks`` and ``features``; the draw coordinate is the sweep."""
    try:
        import arviz
    except ImportError:
        raise ImportError("to_arviz needs ArviZ: pip install 'topicsup[arviz]'") from None
    if n_sweeps <= burn:
        raise ValueError(f"no draws after burn = {burn}: the chains have {n_sweeps} sweep(s)")
    sweeps = np.arange(burn + 1, n_sweeps + 1)
    stats = [sweep_stats(h, sweeps, proposals) for h in histories]
    groups: dict[str, dict[str, Array]] = {
        "sample_stats": {k: np.stack([st[k] for st in stats]) for k in stats[0]}}
    coords: dict[str, Any] = {"draw": sweeps}
    dims: dict[str, list[str]] = {}
    if eta is not None:
        groups = {"posterior": {"eta": eta}, **groups}
        coords.update({"task": list(tasks), "feature": list(features)})
        dims["eta"] = ["task", "feature"]
    attrs = {"inference_library": "topicsup", "inference_library_version": __version__,
             **(attrs or {})}
    return _arviz_from_dict(arviz, groups, coords, dims, attrs)


def _arviz_from_dict(arviz: Any, groups: dict[str, dict[str, Array]],
                     coords: dict[str, Any], dims: dict[str, list[str]],
                     attrs: dict[str, Any]) -> Any:
    """``arviz.from_dict`` of either major version, the one place they differ.

    ArviZ 1.0 (arviz-base) changed three things at once: ``from_dict`` takes the groups as
    one dict instead of one keyword per group, ``attrs`` is keyed by group (``"/"`` the root)
    and the result is an xarray ``DataTree``, not an ``InferenceData``. The major version
    says which side of that change the installed ArviZ is on. The sample dimensions and the
    index origin are passed explicitly on both, so a user's rcParams cannot move them."""
    if int(str(arviz.__version__).split(".")[0]) >= 1:
        return arviz.from_dict(groups, sample_dims=["chain", "draw"], coords=coords, dims=dims,
                               attrs={"/": attrs}, index_origin=0)
    return arviz.from_dict(**groups, coords=coords, dims=dims, attrs=attrs, index_origin=0)


__all__ = ["ACCEPTANCE", "CHANGE_COLUMNS", "HISTORY_COLUMNS", "History", "Record",
           "STEP_SECONDS", "TRAIN_PREFIX", "is_timing", "kept_draws", "metric", "plain",
           "sweep_stats", "to_inference_data"]
