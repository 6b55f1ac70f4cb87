"""Altair chart builders: pure functions of tidy DataFrames. They never run sampling.

Every chart takes the Session ``history`` (columns ``sweep``, ``metric``, ``value``,
``proposal``, optionally ``chain``) or a table the Session returns (``coefficients()``,
``weights()``, ``topics()``), and returns an Altair chart; showing it is the caller's
business. Long traces are thinned here, never in the history, so charts stay under Altair's
5,000-row inline-data limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, cast

import altair as alt
import numpy as np
import pandas as pd

from . import summaries
from . import validation as check
from .arrays import F64, Array
from .history import ACCEPTANCE, STEP_SECONDS, TRAIN_PREFIX  # noqa: F401 (the names views read)
from .metrics import top_weight_share

if TYPE_CHECKING:
    from typing import TypeAlias

    from .session import Session

    # a chart of any kind the builders here return (and the dashboard and the report show)
    AnyChart: TypeAlias = (alt.Chart | alt.LayerChart | alt.FacetChart | alt.HConcatChart
                           | alt.VConcatChart)

MAX_ROWS = 4000
POINTS_BELOW = 60                # a line shows its points while it has fewer sweeps than this
# The width a chart may take, axes and legends included: a notebook's output area in
# JupyterLab at 1280 px with the file browser open is 848 px wide, of which vega-embed keeps
# 38 px for its actions menu. Views whose width follows their data (panels side by side,
# words, classes) derive their default widths from it, with legends below side-by-side panels
# (tests/test_view_widths.py renders every view at its defaults and measures).
FIT_WIDTH = 800


def thin(df: pd.DataFrame, max_rows: int = MAX_ROWS, by: str = "sweep") -> pd.DataFrame:
    """Keep every k-th ``by`` value (always the last) so at most about ``max_rows`` remain."""
    _check_count("max_rows", max_rows)
    if by not in df.columns:
        raise ValueError(f"by must be a column of the frame, got {by!r}")
    if len(df) <= max_rows:
        return df
    keys = np.sort(df[by].unique())
    rows_per_key = max(1, len(df) // max(len(keys), 1))
    step = int(np.ceil(len(keys) * rows_per_key / max_rows))
    keep = set(keys[::step]) | {keys[-1]}
    return df[df[by].isin(keep)]


# ---------------------------------------------------------------------- input checks
def _check_frame(df: Any, name: str, columns: Iterable[str], source: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame ({source}), got "
                        f"{type(df).__name__}")
    missing = set(columns) - set(df.columns)
    if missing:
        raise ValueError(f"{name} is missing column(s) {sorted(missing)}")


def _check_history(history: Any, *extra: str) -> None:
    _check_frame(history, "history", ("sweep", "metric", "value", *extra), "Session.history")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    check.choice(name, value, choices)


def _check_count(name: str, value: Any) -> None:
    """A positive integer, or None for "all"."""
    if value is not None:
        check.integer(name, value, low=1)


def _as_list(values: Any, name: str = "values") -> list[Any]:
    if isinstance(values, (str, int, np.integer)):
        return [values]
    if isinstance(values, (list, tuple, np.ndarray, pd.Index, pd.Series)):
        return list(values)
    raise TypeError(f"{name} must be a name, a number or a list of them, got "
                    f"{type(values).__name__}")


def _select(df: pd.DataFrame, column: str, wanted: Any) -> pd.DataFrame:
    """Rows whose ``column`` is in ``wanted`` (one value or a list; None keeps all)."""
    if wanted is None:
        return df
    known = list(pd.unique(df[column]))
    unknown = [w for w in _as_list(wanted, column) if w not in known]
    if unknown:
        raise ValueError(f"{column} {unknown} not found; known: {known}")
    return df[df[column].isin(_as_list(wanted, column))]


# ---------------------------------------------------------------------- shared pieces
def _chains(df: pd.DataFrame) -> list[str]:
    return ["chain"] if "chain" in df.columns else []


# a chain's legend symbol: a stretch of line in its dash (20 px, long enough for a dash
# pattern to show), not the dot a line with points would get, where no dash can be seen
CHAIN_SYMBOL: dict[str, Any] = {"symbolType": "stroke", "symbolStrokeColor": "black",
                                "symbolFillColor": "transparent", "symbolStrokeWidth": 2,
                                "symbolSize": 400}


def _chain_dashes(df: pd.DataFrame, below: bool = False) -> dict[str, Any]:
    """Chains told apart by dashes, for charts whose colour already names something else;
    the legend (strokes in each chain's dash, ``CHAIN_SYMBOL``) ``below`` the plot or
    beside it."""
    if not _chains(df):
        return {}
    where: dict[str, Any] = {"orient": "bottom", "direction": "horizontal"} if below else {}
    return {"strokeDash": alt.StrokeDash("chain:N", title="chain",
                                         legend=alt.Legend(**CHAIN_SYMBOL, **where))}


def _line(df: pd.DataFrame, width: int, height: int, title: str | None = None) -> alt.Chart:
    chart = alt.Chart(df) if title is None else alt.Chart(df, title=title)
    return (chart.mark_line(point=bool(df["sweep"].nunique() < POINTS_BELOW))
            .properties(width=width, height=height))


def _strength(df: pd.DataFrame, column: str) -> pd.Series:
    """Signal of each feature: its largest |``column``| over tasks, strongest first."""
    return df[column].abs().groupby(df["feature"], sort=False).max().sort_values(
        ascending=False, kind="stable")


# ---------------------------------------------------------------------- history views
def loglik_chart(history: pd.DataFrame, per_token: bool = True, width: int = 480,
                 height: int = 260) -> alt.Chart:
    """Log joint against sweep (one line per chain when a ``chain`` column is present).

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` or a concatenation of several with a ``chain`` column.
    per_token : bool
        Plot the log joint per token (comparable across corpora) instead of the total.
    width, height : int
        Size of the plot in pixels.

    Returns
    -------
    alt.Chart
    """
    _check_history(history)
    metric = "log_joint_per_token" if per_token else "log_joint"
    df = history[history["metric"] == metric]
    df = thin(df[["sweep", "value", *_chains(df)]])
    title = "log joint per token" if per_token else "log joint"
    enc: dict[str, Any]   # channel -> what it encodes, for encode(**enc)
    enc = {"x": alt.X("sweep:Q", title="sweep"),
           "y": alt.Y("value:Q", title=title, scale=alt.Scale(zero=False)),
           "tooltip": ["sweep:Q", alt.Tooltip("value:Q", format=".5f", title=title)]}
    if _chains(df):
        enc["color"] = alt.Color("chain:N", title="chain")
    return _line(df, width, height, f"Convergence: {title}").encode(**enc)


RHAT_OK = 1.01   # the usual threshold (Vehtari et al. 2021)


def rhat_chart(convergence: pd.DataFrame, width: int = 480, height: int = 200
               ) -> alt.LayerChart | alt.FacetChart:
    """R-hat against sweep, one line per quantity, with the 1.01 threshold dashed.

    Parameters
    ----------
    convergence : DataFrame
        ``Chains.convergence()``: columns ``sweep``, ``quantity``, ``r_hat``.
    width, height : int
        Size of the plot in pixels.

    Returns
    -------
    alt.LayerChart
    """
    _check_frame(convergence, "convergence", ("sweep", "quantity", "r_hat"),
                 "Chains.convergence()")
    df = convergence[np.isfinite(convergence["r_hat"].to_numpy(np.float64))]
    if df.empty:
        raise ValueError("no R-hat yet: it needs at least 2 chains and 7 sweeps with a log "
                         "joint (log_joint_every=1)")
    df = thin(df[["sweep", "quantity", "r_hat"]])
    line = _line(df, width, height, "Convergence of the chains: R-hat").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("r_hat:Q", title="R-hat (second half of the draws)",
                scale=alt.Scale(type="log", zero=False)),
        # the legend in words ("log joint"), the data keeps convergence()'s names
        color=alt.Color("quantity:N", title=None,
                        legend=alt.Legend(labelExpr="replace(datum.label, /_/g, ' ')")),
        tooltip=["sweep:Q", "quantity:N", alt.Tooltip("r_hat:Q", format=".3f")])
    # the threshold drawn to be seen in a lecture hall: dark red, labelled
    ok = alt.Chart(pd.DataFrame({"r_hat": [RHAT_OK], "label": [f"{RHAT_OK} (converged below)"]}))
    rule = ok.mark_rule(strokeDash=[6, 3], strokeWidth=2, color="#b2182b").encode(y="r_hat:Q")
    text = ok.mark_text(align="left", baseline="bottom", dx=3, dy=-2, color="#b2182b",
                        fontWeight="bold").encode(y="r_hat:Q", x=alt.value(0), text="label:N")
    return alt.layer(line, rule, text)


def throughput_chart(history: pd.DataFrame, width: int = 480, height: int = 200) -> alt.Chart:
    """Tokens per second of each sweep (kernel time only)."""
    _check_history(history)
    df = thin(history[history["metric"] == "tokens_per_second"][["sweep", "value"]])
    df = df.assign(mtok=df["value"] / 1e6)
    return _line(df, width, height, "Throughput").encode(
        x=alt.X("sweep:Q", title="sweep"), y=alt.Y("mtok:Q", title="million tokens / s"),
        tooltip=["sweep:Q", alt.Tooltip("mtok:Q", format=".2f")])


def draw_share_chart(history: pd.DataFrame, width: int = 480,
                     height: int = 200) -> alt.Chart:
    """What the partially collapsed sampler's sparse kernel does per token: the share of its
    draws taken from the document part (the document's own topics) rather than the word's
    alias table, per sweep. It rises as documents concentrate on few topics."""
    _check_history(history)
    df = thin(history[history["metric"] == "doc_part_share"][["sweep", "value"]])
    if df.empty:
        raise ValueError("history has no doc_part_share rows (only the partially collapsed "
                         "sampler's sparse kernel records them)")
    return _line(df, width, height, "Sparse draws from the document part").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("value:Q", title="share of draws", scale=alt.Scale(domain=[0, 1])),
        tooltip=["sweep:Q", alt.Tooltip("value:Q", format=".3f")])


def _metric_frame(rows: pd.DataFrame, positive: bool = False) -> tuple[pd.DataFrame, int]:
    """A history's ``rows`` as the tidy frame a chart gets: sweep (int), metric, value and, with
    several chains, chain; the rows without a finite sweep and value (``positive``: and a
    value > 0, for a log scale) left out, and how many were. Only these columns reach the
    chart: a concatenation of histories holds NaN in ``proposal`` where one of them had None,
    and a NaN in a chart cannot be sent to the browser as JSON."""
    df = pd.DataFrame({
        "sweep": pd.to_numeric(rows["sweep"], errors="coerce").to_numpy(np.float64),
        "metric": rows["metric"].to_numpy(),
        "value": pd.to_numeric(rows["value"], errors="coerce").to_numpy(np.float64)})
    if "chain" in rows.columns:
        df["chain"] = rows["chain"].astype(str).to_numpy()
    value = df["value"].to_numpy()
    keep = np.isfinite(df["sweep"].to_numpy()) & np.isfinite(value)
    if positive:
        keep &= value > 0
    return df[keep].astype({"sweep": np.int64}), int((~keep).sum())


TABLES = {"live_topics": "live topics", "tables": "tables (root customers)"}


def tables_chart(history: pd.DataFrame, width: int = 480, height: int = 200
                 ) -> alt.VConcatChart:
    """The table-indicator models' structure per sweep (``PDPLDA``, ``HDPLDA``): the number
    of live topics (HDP-LDA's inferred number of topics) and of tables, each on its own
    scale, one panel above the other. Chains (a ``chain`` column) get a colour and a dash
    pattern each, named in one legend below the panels (points mark the sweeps while there
    are few): chains with equal counts stay told apart where their lines part.

    Only the sweep, the count and the chain reach the chart. A row without a finite sweep
    and count (none, from a session) is left out, and the chart's title says how many were.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` (its ``live_topics`` and ``tables`` rows), or several with a
        ``chain`` column.
    width, height : int
        Size of each panel in pixels.
    """
    _check_history(history)
    rows = history[history["metric"].isin(list(TABLES))]
    if rows.empty:
        raise ValueError("history has no live_topics rows (only PDPLDA and HDPLDA record "
                         "them)")
    df, dropped = _metric_frame(rows)
    chains = _chains(df)
    # colour and dashes on the one field, one legend (Vega-Lite merges them), below
    legend = alt.Legend(orient="bottom", columns=2, symbolType="stroke", symbolStrokeWidth=2.5,
                        symbolSize=400)
    panels = []
    for metric, title in TABLES.items():
        part = thin(df[df["metric"] == metric][["sweep", "value", *chains]])
        enc: dict[str, Any] = {
            "x": alt.X("sweep:Q", title="sweep"),
            "y": alt.Y("value:Q", title=title, scale=alt.Scale(zero=False)),
            "tooltip": ["sweep:Q", *[f"{c}:N" for c in chains],
                        alt.Tooltip("value:Q", format=".0f", title=title)]}
        if chains:
            enc["color"] = alt.Color("chain:N", title="chain", legend=legend)
            enc["strokeDash"] = alt.StrokeDash("chain:N", title="chain", legend=legend)
        panels.append(_line(part, width, height // 2 + 10, title.capitalize()).encode(**enc))
    out = alt.vconcat(*panels)
    if dropped:
        out = out.properties(title=alt.TitleParams(
            f"{dropped} row(s) without a finite sweep and count left out", fontSize=11,
            fontWeight="normal", anchor="start"))
    return out


HYPERPARAMETERS = {"alpha_sum": "alpha, summed over topics", "beta": "beta"}


def hyperparameter_chart(history: pd.DataFrame, width: int = 480, height: int = 200
                         ) -> alt.VConcatChart:
    """The Dirichlet parameters a chain learns (``LDA(optimize=...)``, empirical Bayes by
    Minka's fixed point) at each update: the sum of the documents' alpha and the topics'
    beta, whichever the history holds, each in its own panel on a log scale, one above the
    other. Chains (a ``chain`` column) get a colour each. Rows without a finite positive
    value are left out.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` (its ``alpha_sum`` and ``beta`` rows), or several with a
        ``chain`` column.
    width, height : int
        Size of the chart in pixels (the panels share the height).
    """
    _check_history(history)
    rows = history[history["metric"].isin(list(HYPERPARAMETERS))]
    if rows.empty:
        raise ValueError("history has no alpha_sum or beta rows (only a model with "
                         "optimize=... records them)")
    df, _ = _metric_frame(rows, positive=True)
    chains = _chains(df)
    shown = [m for m in HYPERPARAMETERS if (df["metric"] == m).any()]
    panel_height = height if len(shown) == 1 else height // 2 + 10
    panels = []
    for metric in shown:
        title = HYPERPARAMETERS[metric]
        part = thin(df[df["metric"] == metric][["sweep", "value", *chains]])
        enc: dict[str, Any] = {
            "x": alt.X("sweep:Q", title="sweep"),
            "y": alt.Y("value:Q", title=title, scale=alt.Scale(type="log")),
            "tooltip": ["sweep:Q", *[f"{c}:N" for c in chains],
                        alt.Tooltip("value:Q", format=".4g", title=title)]}
        if chains:
            enc["color"] = alt.Color("chain:N", title="chain",
                                     legend=alt.Legend(orient="bottom", columns=2))
        panels.append(_line(part, width, panel_height, f"Learned {title}").encode(**enc))
    return alt.vconcat(*panels)


ALTERNATION = {"objective_change": "objective's relative change",
               "support": "support documents (share)",
               "train_accuracy": "training accuracy"}


def alternation_chart(history: pd.DataFrame, epsilon: float | None = None, width: int = 480,
                      height: int = 160) -> alt.VConcatChart:
    """Monte Carlo MedLDA's outer loop (``MCMedLDA``): at each SVM step (x = the sweep it
    ended), the relative change of Jiang's objective on a log scale with the stopping
    tolerance ``epsilon`` as a rule, and the share of support documents (non-zero
    multipliers) with the SVM's training accuracy; one panel above the other.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` of an ``MCMedLDA`` session (or several with a ``chain`` column).
    epsilon : float, optional
        The model's ``epsilon``, drawn as a dashed rule.
    width, height : int
        Size of each panel in pixels.
    """
    _check_history(history)
    if epsilon is not None:
        epsilon = check.number("epsilon", epsilon, low=0.0, high=1.0)
    df = history[history["metric"].isin(list(ALTERNATION))]
    df = df[np.isfinite(df["value"].astype(float))]
    if df.empty and not (history["metric"] == "outer_iteration").any():
        raise ValueError("history has no outer_iteration rows (only MCMedLDA records them)")
    df = df.assign(what=df["metric"].map(ALTERNATION))
    # a change of exactly 0 (which ends the run) has no place on a log scale
    change = df[(df["metric"] == "objective_change") & (df["value"] > 0)]
    top = _line(change, width, height, "Outer iterations: objective").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("value:Q", title="relative change", scale=alt.Scale(type="log")),
        # a colour of its own in the legend the panels share, not the support share's blue;
        # without a colour field, Vega-Lite would draw the chains' legend strokes (CHAIN_SYMBOL)
        # with the mark's fill and a transparent stroke: invisible
        color=alt.Color("what:N", title=None),
        tooltip=["sweep:Q", alt.Tooltip("value:Q", format=".2e")], **_chain_dashes(change))
    if epsilon:   # 0 (never converged by the rule) has no place on a log scale either
        rule = alt.Chart(pd.DataFrame({"epsilon": [float(epsilon)]})).mark_rule(
            strokeDash=[4, 4], color="gray").encode(y="epsilon:Q")
        top = top + rule
    rest = df[df["metric"] != "objective_change"]
    bottom = _line(rest, width, height, "Outer iterations: classifier").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("value:Q", title="share", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("what:N", title=None),
        tooltip=["sweep:Q", "what:N", alt.Tooltip("value:Q", format=".3f")],
        **_chain_dashes(rest))
    return alt.vconcat(top, bottom)


def step_time_chart(history: pd.DataFrame, width: int = 480, height: int = 200) -> alt.Chart:
    """Seconds of each sweep split over its steps, stacked: topic sampling, the weights,
    the loss's augmentation, the prior's update (the split of Zhu et al. 2013 Table 1).

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` (its ``seconds_<step>`` rows), or several with a ``chain``
        column (then the mean over chains).
    width, height : int
        Size of the plot in pixels.

    Returns
    -------
    alt.Chart

    Raises
    ------
    ValueError
        When the history has no ``seconds_<step>`` rows (no sweep run yet).
    """
    _check_history(history)
    metric = history["metric"].astype(str)
    df = history[metric.str.startswith(STEP_SECONDS)]
    df = df[np.isfinite(pd.to_numeric(df["value"], errors="coerce"))]
    if df.empty:
        raise ValueError(f"history has no {STEP_SECONDS!r}<step> rows with finite seconds: "
                         f"run a sweep first")
    df = (df.assign(step=df["metric"].astype(str).str.removeprefix(STEP_SECONDS))
          .groupby(["sweep", "step"], sort=False, as_index=False)["value"].mean())
    steps = list(pd.unique(df["step"]))
    df = thin(df)
    chart = alt.Chart(df, title="Seconds per sweep, by step")
    chart = (chart.mark_bar() if df["sweep"].nunique() < POINTS_BELOW
             else chart.mark_area(interpolate="step-after"))
    return chart.encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("value:Q", title="seconds", stack="zero"),
        color=alt.Color("step:N", title="step", sort=steps),
        order=alt.Order("step_order:Q"),
        tooltip=["sweep:Q", "step:N", alt.Tooltip("value:Q", format=".4f", title="seconds")],
    ).transform_calculate(
        step_order=" + ".join(f"(datum.step == {s!r} ? {i} : 0)" for i, s in enumerate(steps))
        or "0").properties(width=width, height=height)


def acceptance_chart(history: pd.DataFrame, width: int = 480, height: int = 220) -> alt.Chart:
    """Metropolis-Hastings acceptance rate of each proposal kind against sweep.

    One coloured line per proposal kind (``"doc"``, ``"word"``, ``"exp"`` for LightMedLDA);
    chains (a ``chain`` column) are told apart by dashes.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` or a concatenation of several with a ``chain`` column; its
        ``"acceptance_rate"`` rows name the proposal kind in ``proposal``.
    width, height : int
        Size of the plot in pixels.

    Returns
    -------
    alt.Chart

    Raises
    ------
    ValueError
        When the history has no acceptance rows, as for a collapsed Gibbs sampler.
    """
    _check_history(history, "proposal")
    df = history[history["metric"] == ACCEPTANCE].dropna(subset=["value"])
    if df.empty:
        raise ValueError(f"history has no {ACCEPTANCE!r} rows: this sampler makes no "
                         f"Metropolis-Hastings proposals (collapsed Gibbs); the light samplers "
                         f"(e.g. LightMedLDA) do")
    kinds = list(pd.unique(df["proposal"]))
    df = thin(df[["sweep", "proposal", "value", *_chains(df)]])
    return _line(df, width, height, "Metropolis-Hastings acceptance per proposal").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("value:Q", title="acceptance rate", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("proposal:N", title="proposal", sort=kinds),
        tooltip=["sweep:Q", "proposal:N", *[f"{c}:N" for c in _chains(df)],
                 alt.Tooltip("value:Q", format=".3f", title="acceptance rate")],
        **_chain_dashes(df))


def _cumulative_seconds(history: pd.DataFrame) -> pd.DataFrame:
    """Sampling seconds up to the end of each sweep (of each chain)."""
    df = history[history["metric"] == "seconds"].sort_values("sweep", kind="stable")
    if df.empty:
        raise ValueError("history has no 'seconds' rows to put sampling time on the x axis")
    chains = _chains(df)
    seconds = df.groupby(chains)["value"].cumsum() if chains else df["value"].cumsum()
    return df[["sweep", *chains]].assign(seconds=seconds)


def score_chart(history: pd.DataFrame, heldout: pd.DataFrame | None = None,
                x: str = "sweep", width: int = 480, height: int = 240,
                legend: str = "right") -> alt.Chart:
    """Training score (and held-out evaluations) against sweep or sampling seconds.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` (or several with a ``chain`` column); every metric starting with
        ``"train_"`` is drawn (``train_accuracy``, or ``train_f1`` for multi-label labels).
    heldout : DataFrame, optional
        Held-out evaluations of the same run to overlay: columns ``sweep``, ``metric`` (e.g.
        ``"test_accuracy"``), ``value``, with ``seconds`` (sampling seconds up to that sweep)
        when ``x="seconds"``, and ``chain`` when the history has one.
    x : {"sweep", "seconds"}
        The x axis: sweeps, or cumulative sampling seconds (kernel time of the history's
        ``seconds`` rows, so evaluation time does not count).
    width, height : int
        Size of the plot in pixels.
    legend : {"right", "bottom"}
        Where the legends go: below suits charts side by side (``score_pair_chart``).

    Returns
    -------
    alt.Chart
        A line per metric (training and held-out), dashed per chain.
    """
    _check_history(history)
    _check_choice("x", x, ("sweep", "seconds"))
    _check_choice("legend", legend, ("right", "bottom"))
    cols = ["sweep", "metric", "value", *_chains(history)]
    df = history[history["metric"].astype(str).str.startswith(TRAIN_PREFIX)]
    if x == "seconds":
        df = df.merge(_cumulative_seconds(history), on=["sweep", *_chains(history)])
        cols.append("seconds")
    parts = [df[cols]]
    if heldout is not None:
        _check_frame(heldout, "heldout", cols, "held-out evaluations")
        parts.append(heldout[cols])
    df = thin(pd.concat(parts, ignore_index=True))
    if df.empty:
        raise ValueError(f"history has no training score rows (metrics {TRAIN_PREFIX!r}...) and "
                         f"no held-out rows were given: only supervised models are scored")
    scores = sorted({m.split("_", 1)[-1] for m in df["metric"]})
    x_title = "sweep" if x == "sweep" else "sampling seconds (cumulative)"
    # the legend in words ("train accuracy"), the data keeps the history's names
    words = "replace(datum.label, /_/g, ' ')"
    below = legend == "bottom"
    return _line(df, width, height, f"Score against {x_title}").encode(
        x=alt.X(f"{x}:Q", title=x_title),
        y=alt.Y("value:Q", title=" / ".join(scores), scale=alt.Scale(zero=False)),
        color=alt.Color("metric:N", title="metric", legend=alt.Legend(
            labelExpr=words, orient="bottom", direction="horizontal") if below
            else alt.Legend(labelExpr=words)),
        tooltip=["sweep:Q", *(["seconds:Q"] if x == "seconds" else []), "metric:N",
                 alt.Tooltip("value:Q", format=".4f")],
        **_chain_dashes(df, below))


def score_pair_chart(history: pd.DataFrame, heldout: pd.DataFrame | None = None,
                     width: int | None = None, height: int = 220) -> alt.HConcatChart:
    """The score against sweeps and against sampling seconds side by side (``score_chart``
    with ``x="sweep"`` and ``x="seconds"``; ``heldout`` then needs its ``seconds``), one legend
    below both. ``width``: of each panel; by default the two, with their axes, fit
    ``FIT_WIDTH``."""
    if width is None:
        width = (FIT_WIDTH - 2 * 70 - 20) // 2     # each y axis about 70 px, 20 between
    _check_count("width", width)
    return alt.hconcat(*[score_chart(history, heldout, x=x, width=width, height=height,
                                     legend="bottom") for x in ("sweep", "seconds")])


# ---------------------------------------------------------------------- model views
COEFFICIENT_COLUMNS = ("task", "feature", "mean", "lower", "upper")
COEFFICIENT_VALUES = {"mean": "posterior mean weight", "width": "credible-interval width"}


def _signal_order(coefficients: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Features and tasks in an order where the signal stands out.

    Each feature belongs to the task where its mean weight peaks; tasks are ranked by their
    strongest feature and features by strength within their task, so one-topic-per-class
    weights form a block diagonal with the strongest feature first.
    """
    wide = coefficients.pivot(index="feature", columns="task", values="mean")
    strength = _strength(coefficients, "mean")
    peak = wide.idxmax(axis=1)
    tasks = list(dict.fromkeys(peak[strength.index]))
    tasks += [t for t in pd.unique(coefficients["task"]) if t not in tasks]
    rank = peak.map({t: i for i, t in enumerate(tasks)})
    order = pd.DataFrame({"rank": rank[strength.index], "strength": -strength})
    return list(order.sort_values(["rank", "strength"], kind="stable").index), tasks


def coefficient_heatmap(coefficients: pd.DataFrame, value: str = "mean", sort: bool = True,
                        top: int | None = None, width: int | alt.Step | None = None,
                        height: int | alt.Step = alt.Step(18),
                        target: str = "class", intercept: bool = False,
                        legend: str = "right", label_limit: int = 180) -> alt.Chart:
    """Weights as a heatmap: one row per feature (topic or covariate), one column per task
    (a class, or a regression's response).

    Parameters
    ----------
    coefficients : DataFrame
        ``Session.coefficients(interval)``: columns ``task``, ``feature`` (a topic labelled by
        its top words, or a covariate), ``mean``, ``lower``, ``upper`` and ``width``.
    value : {"mean", "width"}
        Colour by the posterior mean weight (a diverging scale centred at 0, symmetric) or by
        the credible interval's width (a sequential scale).
    sort : bool
        Order by signal instead of as given: each feature joins the class where its mean
        peaks, classes come by their strongest feature, features by |mean| within a class;
        the strongest feature is first and class-specific topics form a block diagonal.
    top : int, optional
        Keep only the ``top`` features with the largest |mean| over tasks. Without it, as
        many as fit Altair's inline-data limit are kept (the title says so when some are cut).
    width, height : int or alt.Step
        Size of the plot, or of one cell as ``alt.Step``. By default a column is 40 px wide,
        narrower (down to 16 px) when there are too many tasks for the chart to fit
        ``FIT_WIDTH`` beside the features' labels and the legend.
    target : {"class", "response"}
        What a task is (``Task.target``): a class of a classifier, or a regression's response;
        it names the title and the task axis.
    intercept : bool
        Draw the intercept's row too (rows of ``kind`` ``"intercept"``). Off by default: a
        base rate is not something a class is about, and its size (often the largest weight)
        would set the colour scale the topics are read on.
    legend : {"right", "bottom"}
        Where the colour legend goes: below suits heatmaps side by side
        (``prior_comparison_chart``).
    label_limit : int
        The width the features' labels may take, in pixels (a longer one ends in "...", the
        tooltip has it whole).

    Returns
    -------
    alt.Chart
    """
    _check_choice("value", value, tuple(COEFFICIENT_VALUES))
    _check_choice("legend", legend, ("right", "bottom"))
    _check_count("label_limit", label_limit)
    _check_frame(coefficients, "coefficients", {*COEFFICIENT_COLUMNS, value},
                 "Session.coefficients()")
    _check_count("top", top)
    if not isinstance(sort, (bool, np.bool_)):
        raise TypeError(f"sort must be a bool, got {type(sort).__name__}")
    if not isinstance(intercept, (bool, np.bool_)):
        raise TypeError(f"intercept must be a bool, got {type(intercept).__name__}")
    # with an intercept, the identified scale's topic weights are centred within the class:
    # the legend says so (summaries.identified)
    centred = ("scale" in coefficients.columns and "kind" in coefficients.columns
               and (coefficients["scale"] == "identified").all()
               and (coefficients["kind"] == "intercept").any())
    key_title = "mean weight, centred per " + target if centred and value == "mean" \
        else COEFFICIENT_VALUES[value]
    if not intercept and "kind" in coefficients.columns:
        coefficients = coefficients[coefficients["kind"] != "intercept"]
    if coefficients.duplicated(["task", "feature"]).any():
        raise ValueError("coefficients has several rows for one (task, feature); pass one "
                         "Session's coefficients")
    if coefficients.empty:
        raise ValueError("coefficients has no rows")
    if coefficients[["task", "feature"]].isna().any().any():
        raise ValueError("coefficients has rows without a task or a feature name")
    if not np.isfinite(coefficients[["mean", value]].to_numpy(dtype=float)).all():
        raise ValueError(f"coefficients has non-finite values in 'mean' or {value!r}: nothing "
                         f"to colour them by")
    strength = _strength(coefficients, "mean")
    n_tasks = max(coefficients["task"].nunique(), 1)
    if n_tasks > MAX_ROWS:
        raise ValueError(f"coefficients has {n_tasks} tasks, more than a heatmap can draw "
                         f"({MAX_ROWS} cells); select some tasks first")
    keep = strength.index[:min(top or len(strength), MAX_ROWS // n_tasks)]
    df = coefficients[coefficients["feature"].isin(keep)]
    if sort:
        features, tasks = _signal_order(df)
    else:
        features, tasks = list(pd.unique(df["feature"])), list(pd.unique(df["task"]))
    extra = [c for c in ("width", "n_samples") if c in df.columns]
    df = df[[*COEFFICIENT_COLUMNS, *extra]]
    if value == "mean":
        m = float(df["mean"].abs().max()) or 1.0   # symmetric, so white is exactly 0
        scale = alt.Scale(scheme="blueorange", domain=[-m, m], domainMid=0)
    else:
        scale = alt.Scale(scheme="purples", zero=True)
    cut = f" (strongest {len(keep)} of {len(strength)} features)" if len(keep) < len(strength) \
        else ""
    target = check.choice("target", target, ("class", "response"))
    model = "Classifier" if target == "class" else "Regression"
    what = f"{model} weights" if value == "mean" else "Credible-interval width of weights"
    if width is None:   # the labels, their title and the legend (about 160 px) take the rest
        width = alt.Step(int(np.clip((FIT_WIDTH - label_limit - 180) // len(tasks), 16, 40)))
    key = alt.Legend(orient="bottom", direction="horizontal", gradientLength=160) \
        if legend == "bottom" else alt.Legend()
    # the tasks' names slanted over columns wide enough for that, upright over narrow ones
    # and when long (slanted, a long name would reach far past the last column)
    column = float(width.step) if isinstance(width, alt.Step) else float(width) / len(tasks)
    slant = column >= 28 and max(len(str(t)) for t in tasks) <= 12
    return (alt.Chart(df, title=f"{what} per {target}{cut}").mark_rect()
            .encode(x=alt.X("task:N", sort=tasks, title=target,
                            axis=alt.Axis(labelAngle=-30 if slant else -90, orient="top")),
                    y=alt.Y("feature:N", sort=features, title="topic (top words) or covariate",
                            axis=alt.Axis(labelLimit=label_limit)),
                    color=alt.Color(f"{value}:Q", scale=scale, title=key_title, legend=key),
                    tooltip=["task:N", "feature:N",
                             *[alt.Tooltip(f"{c}:Q", format=".3f")
                               for c in ("mean", "lower", "upper", *extra)]])
            .properties(width=width, height=height))


# ---------------------------------------------------------------------- reading topics
def forest_chart(coefficients: pd.DataFrame, task: str | None = None, top: int = 12,
                 columns: int = 2, width: int = 180, row_height: int = 16,
                 target: str = "class") -> alt.FacetChart | alt.LayerChart:
    """Classifier weights as points with their intervals (ArviZ's ``plot_forest``): for each
    class (or the one ``task``) its ``top`` topics with the largest |mean|, sorted by mean,
    the mean a point and the credible interval a bar from ``lower`` to ``upper`` (the same
    draws: ``Session.coefficients``, the identified scale by default), filled where the
    interval excludes 0; a zero rule. Several classes: one panel each, ``columns`` per row.

    ``coefficients``: ``Session.coefficients(interval)`` (columns ``task``, ``feature``,
    ``kind``, ``mean``, ``lower``, ``upper``)."""
    _check_frame(coefficients, "coefficients", ("task", "feature", "kind", "mean", "lower",
                                                "upper"), "Session.coefficients()")
    _check_count("top", top)
    _check_count("columns", columns)
    df = coefficients[coefficients["kind"] == "topic"]
    if task is not None:
        if task not in set(df["task"]):
            raise ValueError(f"task {task!r} is not one of {list(pd.unique(df['task']))[:10]}")
        df = df[df["task"] == task]
    df = df[np.isfinite(df[["mean", "lower", "upper"]].to_numpy(dtype=float)).all(axis=1)]
    if df.empty:
        raise ValueError("coefficients has no finite topic weights to draw")
    df = (df.assign(strength=df["mean"].abs())
          .sort_values(["task", "strength"], ascending=[True, False], kind="stable")
          .groupby("task", sort=False).head(top))
    df = df.assign(certain=np.where((df["lower"] > 0) | (df["upper"] < 0),
                                    "interval excludes 0", "interval holds 0"))
    df = df[["task", "feature", "mean", "lower", "upper", "certain"]]
    target = check.choice("target", target, ("class", "response"))
    y = alt.Y("feature:N", sort=alt.EncodingSortField("mean", order="descending"), title=None,
              axis=alt.Axis(labelLimit=170))
    tooltip: list[Any] = ["task:N", "feature:N",
                          *[alt.Tooltip(f"{c}:Q", format=".3f") for c in ("mean", "lower",
                                                                        "upper")],
                          "certain:N"]
    # one panel: the legend beside it; panels side by side: below them
    one = task is not None or df["task"].nunique() == 1
    colour = alt.Color("certain:N", title=None,
                       scale=alt.Scale(domain=["interval excludes 0", "interval holds 0"],
                                       range=["#c0392b", "#95a5a6"]),
                       legend=alt.Legend() if one else alt.Legend(orient="bottom",
                                                                  direction="horizontal"))
    base = alt.Chart(df).encode(y=y, tooltip=tooltip)
    layer = alt.layer(
        base.mark_rule(strokeWidth=2).encode(x=alt.X("lower:Q", title="weight"), x2="upper:Q",
                                             color=colour),
        base.mark_point(filled=True, size=40).encode(x="mean:Q", color=colour),
        alt.Chart(df).mark_rule(color="#444", strokeDash=[3, 3]).encode(x=alt.datum(0)),
    ).properties(width=width, height=alt.Step(row_height))
    title = f"Topic weights per {target}, with their credible intervals"
    if one:
        return layer.properties(title=f"{title}: {df['task'].iloc[0]}")
    return (layer.facet(facet=alt.Facet("task:N", title=None,
                                        sort=list(pd.unique(coefficients["task"]))),
                        columns=columns, title=title)
            .resolve_scale(y="independent"))


def _relevance_layers(terms: pd.DataFrame, n_words: int, lam: alt.Parameter,
                      topic_filter: Any, width: int) -> alt.LayerChart | alt.FacetChart:
    """pyLDAvis's bars: for the words ranked by relevance at ``lam``, the corpus count (grey)
    and the topic's count (red) of each."""
    base = (alt.Chart(terms)
            .transform_filter(topic_filter)
            .transform_calculate(relevance=f"{lam.name} * datum.log_probability + "
                                           f"(1 - {lam.name}) * datum.log_lift")
            .transform_window(rank="row_number()", groupby=["topic"],
                              sort=[alt.SortField("relevance", order="descending"),
                                    alt.SortField("word_id", order="ascending")])
            .transform_filter(alt.datum.rank <= n_words))
    y = alt.Y("word:N", sort=alt.EncodingSortField("rank", order="ascending"), title=None)
    tooltip = ["label:N", "word:N", alt.Tooltip("topic_count:Q", title="tokens in topic"),
               alt.Tooltip("corpus_count:Q", title="tokens in corpus"),
               alt.Tooltip("probability:Q", format=".4f"), alt.Tooltip("lift:Q", format=".2f"),
               alt.Tooltip("relevance:Q", format=".2f")]
    return alt.layer(
        base.mark_bar(color="#c7c7c7").encode(
            x=alt.X("corpus_count:Q", title="tokens (grey: corpus, red: topic)"), y=y,
            tooltip=tooltip),
        base.mark_bar(color="#d62728").encode(x="topic_count:Q", y=y, tooltip=tooltip),
    ).properties(width=width, height=alt.Step(15))


def _relevance_parameter(lam: float) -> alt.Parameter:
    return alt.param(name="relevance_lambda", value=check.number("lam", lam, low=0.0, high=1.0),
                     bind=alt.binding_range(min=0.0, max=1.0, step=0.05,
                                            name="relevance lambda "))


def relevance_chart(terms: pd.DataFrame, topic: int | None = None, n_words: int = 15,
                    lam: float = 0.6, width: int = 420) -> alt.LayerChart | alt.FacetChart:
    """One topic's words ranked by relevance (Sievert & Shirley 2014) with a lambda slider:
    relevance = lambda log p(w|k) + (1 - lambda) log lift, recomputed in the browser as the
    slider moves (step 0.05: ``Session.topic_terms`` keeps every word that is among the best
    at each such lambda, so the ranking is exact). Bars as pyLDAvis: the word's tokens in the
    corpus (grey) and in the topic (red).

    ``terms``: ``Session.topic_terms(n_words)``; ``topic``: which (default the first)."""
    _check_frame(terms, "terms", ("topic", "label", "word", "word_id", "log_probability",
                                  "log_lift", "topic_count", "corpus_count"),
                 "Session.topic_terms()")
    _check_count("n_words", n_words)
    if terms.empty:
        raise ValueError("terms has no rows (Session.topic_terms)")
    topics = list(pd.unique(terms["topic"]))
    topic = topics[0] if topic is None else topic
    if topic not in topics:
        raise ValueError(f"topic {topic!r} is not in terms (topics {topics[:10]})")
    data = _finite_terms(terms[terms["topic"] == topic])
    lam_param = _relevance_parameter(lam)
    label = str(data["label"].iloc[0])
    return (_relevance_layers(data, n_words, lam_param, alt.datum.topic == int(topic), width)
            .add_params(lam_param).properties(title=f"Relevant words: {label}"))


def _finite_terms(terms: pd.DataFrame) -> pd.DataFrame:
    """The rows a chart can draw: a word that never occurs has log lift -inf (no JSON for
    it, and no reader wants it)."""
    keep = np.isfinite(terms[["log_probability", "log_lift"]].to_numpy(dtype=float)).all(axis=1)
    return terms[keep][["topic", "label", "word", "word_id", "log_probability", "log_lift",
                        "probability", "lift", "topic_count", "corpus_count"]]


def topic_map_chart(topic_map: pd.DataFrame, terms: pd.DataFrame | None = None,
                    n_words: int = 15, lam: float = 0.6, width: int = 300,
                    height: int = 300
                    ) -> alt.HConcatChart | alt.LayerChart | alt.FacetChart:
    """The intertopic distance map (pyLDAvis, BERTopic): each topic a circle at its place in
    the classical scaling of the topics' Jensen-Shannon distances, its area the topic's share
    of the tokens; for a supervised model coloured by the class it drives most, with that
    weight's mean, interval and whether it excludes 0 in the tooltip (a supervised map: which
    region of topic space each class draws on). With ``terms`` (``Session.topic_terms``),
    beside it the relevance bars with a lambda slider, linked: click a circle to read its
    topic.

    ``topic_map``: ``summaries.topic_map`` (``Session.readout(summaries.topic_map)``)."""
    _check_frame(topic_map, "topic_map", ("label", "share", "x", "y"), "summaries.topic_map")
    if topic_map.empty:
        raise ValueError("topic_map has no rows (summaries.topic_map)")
    df = topic_map.reset_index()
    if not np.isfinite(df[["x", "y", "share"]].to_numpy(dtype=float)).all():
        raise ValueError("topic_map has non-finite coordinates or shares")
    supervised = "task" in df.columns
    pick = alt.selection_point(name="picked_topic", fields=["topic"], on="click",
                               value=[{"topic": int(df["topic"].iloc[
                                   int(df["share"].to_numpy().argmax())])}])
    tooltip: list[Any] = ["topic:Q", "label:N", alt.Tooltip("share:Q", format=".1%")]
    enc: dict[str, Any]   # channel -> what it encodes, for encode(**enc)
    enc = {"x": alt.X("x:Q", title="scaled distance 1", axis=alt.Axis(grid=False)),
           "y": alt.Y("y:Q", title="scaled distance 2", axis=alt.Axis(grid=False)),
           # about four sizes in the legend: at every nice step (ten or more when the topics
           # are few and large) its row of circles would run past FIT_WIDTH
           "size": alt.Size("share:Q", title="share of tokens",
                            legend=alt.Legend(format=".0%", orient="bottom",
                                              direction="horizontal", tickCount=4),
                            scale=alt.Scale(range=[40, 1600]))}
    if supervised:
        tooltip += [alt.Tooltip("task:N", title="drives most"),
                    *[alt.Tooltip(f"{c}:Q", format=".2f", title=f"weight {c}")
                      for c in ("mean", "lower", "upper")],
                    alt.Tooltip("sign_certain:N", title="interval excludes 0")]
        enc["color"] = alt.Color("task:N", title="class it drives most",
                                 legend=alt.Legend(orient="bottom", columns=2, symbolLimit=40,
                                                   labelLimit=160))
    enc["tooltip"] = tooltip
    keep = ["topic", "label", "share", "x", "y",
            *(["task", "mean", "lower", "upper", "sign_certain"] if supervised else [])]
    circles = (alt.Chart(df[keep]).mark_circle(stroke="#333")
               .encode(**enc, opacity=alt.condition(pick, alt.value(0.85), alt.value(0.35)),
                       strokeWidth=alt.condition(pick, alt.value(2), alt.value(0)))
               .add_params(pick))
    text = alt.Chart(df[keep]).mark_text(fontSize=10, color="#111").encode(
        x="x:Q", y="y:Q", text="topic:Q")
    title = alt.TitleParams("Intertopic distance map", subtitle=(
        "colour: the class a topic drives most; area: its share" if supervised
        else "area: a topic's share of the tokens"))
    chart = alt.layer(circles, text).properties(width=width, height=height, title=title)
    if terms is None:
        return chart
    _check_frame(terms, "terms", ("topic", "label", "word", "word_id", "log_probability",
                                  "log_lift", "topic_count", "corpus_count"),
                 "Session.topic_terms()")
    _check_count("n_words", n_words)
    lam_param = _relevance_parameter(lam)
    bars = (_relevance_layers(_finite_terms(terms), n_words, lam_param, pick, 200)
            .add_params(lam_param)
            .properties(title=alt.TitleParams("Relevant words", subtitle="of the picked topic "
                                              "(click a circle)")))
    return alt.hconcat(chart, bars).resolve_scale(color="independent", size="independent")


# heatmaps a row of prior_comparison_chart holds: three with their labels would leave columns
# too narrow to read (or past FIT_WIDTH at 20 classes)
PANELS_PER_ROW = 2


def prior_comparison_chart(coefficients: pd.DataFrame, by: str = "prior", top: int = 3,
                           features: int | None = 20, cell: int = 16
                           ) -> alt.HConcatChart | alt.ConcatChart:
    """Topic-weight heatmaps side by side, one per value of ``by`` (DOLDA Figs. 4-6 as one
    picture): the same corpus fitted under, say, the horseshoe and the normal prior. Two
    fits share a row; three or more wrap into rows of two, so the picture fits ``FIT_WIDTH``.

    Each panel is ``coefficient_heatmap`` of the topics only (the intercept and covariates
    would dominate the colour scale), with its own symmetric colour scale, titled with the
    mean share of a class's topic-weight mass on its ``top`` largest weights
    (``metrics.top_weight_share``): near 1 the class rests on a few topics, near top / K its
    weight is smeared over all. Topics of different fits are different topics, so the rows
    are not aligned across panels.

    Parameters
    ----------
    coefficients : DataFrame
        ``Session.coefficients()`` of several sessions stacked, with a column ``by`` naming
        each session's fit (e.g. ``pd.concat({"horseshoe": a, "normal": b},
        names=["prior"]).reset_index(0)``).
    by : str
        The column that tells the fits apart.
    top : int
        How many of a class's largest weights the share in each title counts.
    features : int, optional
        The strongest topics per panel (``coefficient_heatmap``'s ``top``); all if None.
    cell : int
        Pixel height of one heatmap cell; a cell is twice as wide, or narrower when the
        panels of a row would not fit ``FIT_WIDTH`` (each panel's legend is below it).

    Returns
    -------
    alt.HConcatChart or alt.ConcatChart
        The panels in one row (two fits), or wrapped into rows of two (``alt.ConcatChart``
        with ``columns=2``, three or more fits).
    """
    if not isinstance(by, str):
        raise TypeError(f"by must be a column name (str), got {type(by).__name__}")
    _check_frame(coefficients, "coefficients", {by, "kind", *COEFFICIENT_COLUMNS},
                 "Session.coefficients() with a column naming each fit")
    _check_count("features", features)
    cell = check.integer("cell", cell, low=1, high=200)
    panels = []
    # two panels a row within FIT_WIDTH: each panel's labels (at most 140 px) and their
    # title take about 180 px, 20 between panels, legends below; the columns share the rest,
    # each at most 2 cells wide
    per_row = min(max(coefficients[by].nunique(), 1), PANELS_PER_ROW)
    tasks = max(coefficients["task"].nunique(), 1)
    column = int(np.clip(((FIT_WIDTH - 20 * (per_row - 1)) // per_row - 180) // tasks, 10,
                         cell * 2))
    for name, df in coefficients.groupby(by, sort=False):
        df = df[df["kind"] == "topic"].drop(columns=[by])
        if df.empty:
            raise ValueError(f"coefficients has no topic weights for {by} = {name!r}")
        share = float(top_weight_share(df, top).mean())
        panel = coefficient_heatmap(df, top=features, width=alt.Step(column),
                                    height=alt.Step(cell), legend="bottom", label_limit=140)
        # the title centred over the whole panel, labels included (not past the cells)
        panels.append(panel.properties(title=alt.TitleParams(
            f"{name}", subtitle=f"top-{top} share of a class's weight mass: {share:.2f}",
            frame="group")))
    if len(panels) < 2:
        raise ValueError(f"coefficients holds one fit ({by} has one value); stack two or more "
                         f"to compare")
    if len(panels) > PANELS_PER_ROW:
        return alt.concat(*panels, columns=PANELS_PER_ROW).resolve_scale(color="independent")
    return alt.hconcat(*panels).resolve_scale(color="independent")


def weight_trace_chart(weights: pd.DataFrame, features: Any = None, tasks: Any = None,
                       top: int = 4, width: int = 480, height: int = 160,
                       target: str = "class") -> alt.FacetChart:
    """Sampled weights against sweep: a line per feature, a panel per task.

    Parameters
    ----------
    weights : DataFrame
        ``Session.weights()``: columns ``sweep``, ``task``, ``feature``, ``index``, ``value``
        (optionally ``chain``, told apart by dashes).
    features : str, int or list of them, optional
        Feature labels, or feature indices (the ``index`` column: topic numbers, then
        covariates). By default the ``top`` features with the largest |mean weight|.
    tasks : str or list of str, optional
        Tasks (classes) to show; all by default.
    top : int
        How many features to show by default.
    width, height : int
        Size of one panel in pixels.
    target : {"class", "response"}
        What a task is (``Task.target``), in the panels' title.

    Returns
    -------
    alt.FacetChart
    """
    _check_frame(weights, "weights", ("sweep", "task", "feature", "value"), "Session.weights()")
    target = check.choice("target", target, ("class", "response"))
    _check_count("top", top)
    df = _select(weights, "task", tasks)
    if features is None:
        means = df.groupby(["task", "feature"], sort=False)["value"].mean().reset_index()
        features = list(_strength(means, "value").index[:top])
    elif "index" in df.columns:
        labels = dict(zip(df["index"], df["feature"]))
        features = [labels.get(f, f) if isinstance(f, (int, np.integer)) else f
                    for f in _as_list(features, "features")]
    df = _select(df, "feature", features)
    df = thin(df[["sweep", "task", "feature", "value", *_chains(df)]])
    return (_line(df, width, height).encode(
        x=alt.X("sweep:Q", title="sweep"), y=alt.Y("value:Q", title="weight"),
        color=alt.Color("feature:N", title="feature", sort=list(features)),
        tooltip=["sweep:Q", "task:N", "feature:N", alt.Tooltip("value:Q", format=".3f")],
        **_chain_dashes(df))
        .facet(row=alt.Row("task:N", title=target, sort=list(pd.unique(df["task"]))))
        .properties(title="Weight traces"))


def _word_columns(topics: pd.DataFrame) -> list[str]:
    cols = [c for c in topics.columns if re.fullmatch(r"word_\d+", str(c))]
    return sorted(cols, key=lambda c: int(c[len("word_"):]))


def _word_probabilities(words: pd.DataFrame, topic_word: Array,
                        vocabulary: Sequence[str]) -> F64:
    """phi of each (topic, word) row of ``words``: ``row`` is the topic's row of phi."""
    phi = np.asarray(topic_word, dtype=np.float64)
    n_rows = int(words["row"].max()) + 1
    if phi.ndim != 2 or phi.shape[0] < n_rows or phi.shape[1] != len(vocabulary):
        raise ValueError(f"topic_word must be a (K, V) array with a row for every topic shown "
                         f"(at least {n_rows}) and V = {len(vocabulary)} columns, got shape "
                         f"{phi.shape}")
    column = {w: j for j, w in enumerate(vocabulary)}
    unknown = sorted(set(words["word"]) - set(column))
    if unknown:
        raise ValueError(f"words {unknown[:5]} of topics are not in vocabulary")
    return phi[words["row"], words["word"].map(column)]


def topic_words_chart(topics: pd.DataFrame, n_words: int | None = None,
                      topic_word: Array | None = None, vocabulary: Sequence[str] | None = None,
                      width: int | alt.Step | None = None,
                      height: int | alt.Step = alt.Step(18)) -> alt.Chart:
    """The top words of each topic: a row per topic (labelled with its share of tokens), the
    words in rank order along it. A word longer than its column is cut short with an ellipsis
    (the tooltip has it whole).

    Parameters
    ----------
    topics : DataFrame
        ``Session.topics(n_words)``: index ``topic``, columns ``share``, ``word_1`` ..
        ``word_n`` and, if present, ``label`` (the rows' names).
    n_words : int, optional
        Show the first ``n_words`` words. By default all, or at the default width as many as
        fit ``FIT_WIDTH`` in columns of at least 56 px (10; the title says how many of how
        many are shown).
    topic_word, vocabulary : (K, V) array and sequence of V str, optional
        ``Session.topic_word()`` and ``corpus.vocabulary``: when given, a word's font size
        and tooltip show its probability in the topic.
    width, height : int or alt.Step
        Size of the plot, or of one cell as ``alt.Step``. By default each word's column gets
        what the topics' labels leave of ``FIT_WIDTH`` (between 50 and 90 px), so that the
        chart fits a notebook whatever the number of words; the size legend is below.

    Returns
    -------
    alt.Chart
    """
    _check_frame(topics, "topics", ("share",), "Session.topics(n_words)")
    _check_count("n_words", n_words)
    if topics.empty:
        raise ValueError("topics has no rows (topics)")
    if not pd.api.types.is_numeric_dtype(topics["share"]):
        raise TypeError(f"topics' share column must hold numbers, got {topics['share'].dtype}")
    if (topic_word is None) != (vocabulary is None):
        raise ValueError("pass topic_word and vocabulary together (Session.topic_word(), "
                         "corpus.vocabulary), or neither")
    cols = _word_columns(topics)
    if not cols or len(cols) < (n_words or 1):
        raise ValueError(f"topics has {len(cols)} word columns (word_1 .. word_n), "
                         f"{n_words or 1} needed: call Session.topics with more words")
    # a column per word: the labels (at most ``label`` px) and the axis title take the rest
    label = 200
    given = len(cols)
    if n_words is None and width is None:
        n_words = min(given, (FIT_WIDTH - label - 30) // 56)
    cols = cols[:n_words or given]
    if width is None:
        width = alt.Step(int(np.clip((FIT_WIDTH - label - 30) // len(cols), 50, 90)))
    step = float(width.step) if isinstance(width, alt.Step) else float(width) / len(cols)
    # by the topics' labels where the frame has them (Session.topics: distinct names)
    names = topics["label"] if "label" in topics.columns else topics.index
    labels = [f"{k} ({s:.0%})" for k, s in zip(names, topics["share"])]
    # a subset of Session.topics keeps the topic ids as index: they are the rows of phi
    ids = topics.index.to_numpy()
    rows = ids if np.issubdtype(ids.dtype, np.integer) and (ids >= 0).all() \
        else np.arange(len(labels))
    words = (topics[cols].set_axis(labels).rename_axis("topic").assign(row=rows)
             .reset_index().melt(id_vars=["topic", "row"], var_name="rank", value_name="word"))
    words["rank"] = words["rank"].str[len("word_"):].astype(int)
    enc: dict[str, Any]   # channel -> what it encodes, for encode(**enc)
    enc = {"x": alt.X("rank:O", title="rank", axis=alt.Axis(orient="top", labelAngle=0)),
           "y": alt.Y("topic:N", sort=labels, title="topic (share of tokens)",
                      axis=alt.Axis(labelLimit=label)),
           "text": alt.Text("word:N"), "tooltip": ["topic:N", "rank:O", "word:N"]}
    if topic_word is not None:   # with its vocabulary (checked above)
        words["probability"] = _word_probabilities(words, topic_word,
                                                   cast("Sequence[str]", vocabulary))
        # the likeliest words' font as large as their columns allow (18 px at 90 px)
        enc["size"] = alt.Size("probability:Q", title="probability",
                               scale=alt.Scale(range=[9, int(np.clip(step / 5, 12, 18))]),
                               legend=alt.Legend(orient="bottom", direction="horizontal"))
        enc["tooltip"].append(alt.Tooltip("probability:Q", format=".3f"))
    title = "Top words per topic" if len(cols) == given \
        else f"Top words per topic (the first {len(cols)} of {given})"
    return (alt.Chart(words.drop(columns="row"), title=title)
            .mark_text(limit=max(step - 4, 10)).encode(**enc)
            .properties(width=width, height=height))


def topic_sizes_chart(sizes: pd.DataFrame, top: int = 30, width: int = 420,
                      height: int | alt.Step = alt.Step(14)) -> alt.Chart:
    """Each topic's share of the tokens as a bar, largest first, labelled by its label;
    the tooltip adds the documents it leads (``summaries.topic_sizes``). At most ``top``
    topics (the largest)."""
    _check_frame(sizes, "sizes", ("label", "share", "documents"), "summaries.topic_sizes")
    _check_count("top", top)
    if sizes.empty:
        raise ValueError("sizes has no rows (summaries.topic_sizes)")
    df = sizes.sort_values("share", ascending=False, kind="stable").head(top)
    df = df.assign(topic=df["label"].astype(str))   # distinct: topic_labels
    return (alt.Chart(df[["topic", "share", "documents"]], title="Topic sizes").mark_bar()
            .encode(x=alt.X("share:Q", title="share of tokens", axis=alt.Axis(format="%")),
                    y=alt.Y("topic:N", sort=list(df["topic"]), title=None),
                    tooltip=["topic:N", alt.Tooltip("share:Q", format=".1%"),
                             alt.Tooltip("documents:Q", title="documents it leads")])
            .properties(width=width, height=height))


def conditional_chart(table: pd.DataFrame, title: str | None = None, max_topics: int = 30,
                      width: int = 520, height: int = 200) -> alt.Chart:
    """Bars of the exact conditional next to each proposal distribution, per topic.

    Parameters
    ----------
    table : DataFrame
        ``TokenStep.conditional_table()`` or ``TokenInspector.conditional_table()`` (wide).
    title : str, optional
    max_topics : int
        Show only the topics with the largest probability under any distribution (K can be
        in the hundreds; the rest have no visible bar).
    width, height : int
        The plot's size; the legend (below it) adds about 40 px of height, the axis about 50
        px of width, so the default fits in 600 px.

    The rows keep the table's ``distribution`` names (``exact``, ``proposal_doc`` ...); the
    legend and tooltips name them in plain words (``name``: "exact conditional", "doc
    proposal", "label proposal" for ``proposal_exp`` ...). A non-finite probability (none
    should occur) is left out, and the title says how many were.
    """
    _check_frame(table, "table", ("topic", "exact"), "conditional_table()")
    _check_count("max_topics", max_topics)
    _check_count("width", width)
    _check_count("height", height)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str or None, got {type(title).__name__}")
    cols = [c for c in table.columns if c != "topic"]
    values = table.set_index("topic")[cols].astype(float)
    values = values.where(np.isfinite(values))          # inf -> NaN: left out below
    keep = values.max(axis=1).fillna(-np.inf).nlargest(max_topics).index
    df = (values.loc[keep].reset_index()
          .melt(id_vars="topic", var_name="distribution", value_name="probability"))
    dropped = int(df["probability"].isna().sum())
    df = df.dropna(subset=["probability"])
    plain = {"exact": "exact conditional", "proposal_exp": "label proposal",
             "proposal_conditional": "sampler's conditional"}
    names = [plain.get(c, c.removeprefix("proposal_") + " proposal"
                       if c.startswith("proposal_") else c) for c in cols]
    df = df.assign(name=df["distribution"].map(dict(zip(cols, names))))
    shown = len(keep) < len(table)
    head = title or "exact conditional and proposals"
    if dropped:
        head += f" ({dropped} non-finite value{'s' if dropped > 1 else ''} left out)"
    return alt.Chart(df, title=head).mark_bar().encode(
        x=alt.X("topic:O", title=f"topic (top {len(keep)})" if shown else "topic",
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("name:N", sort=names),
        y=alt.Y("probability:Q", title="probability"),
        color=alt.Color("name:N", sort=names, title=None,
                        legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=["topic:O", alt.Tooltip("name:N", title="distribution"),
                 alt.Tooltip("probability:Q", format=".4f")],
    ).properties(width=width, height=height)


# ---------------------------------------------------------------------- settings changes
def mark_settings_changes(chart: AnyChart, changes: pd.DataFrame) -> AnyChart:
    """``chart`` (plotted against ``sweep``) with a dashed vertical rule where a live setting
    changed (``Session.settings_changes``), at the boundary before the first sweep run with
    the new value, its tooltip naming the change.

    Parameters
    ----------
    chart : alt.Chart or alt.LayerChart
        A chart whose x channel is ``sweep`` (``loglik_chart``, ``acceptance_chart``,
        ``score_chart``, ``throughput_chart``).
    changes : DataFrame
        ``Session.settings_changes``: columns ``sweep``, ``parameter``, ``old``, ``new``.

    Returns
    -------
    alt.LayerChart or the chart unchanged when there are no changes.
    """
    _check_frame(changes, "changes", ("sweep", "parameter", "old", "new"),
                 "Session.settings_changes")
    if not isinstance(chart, (alt.Chart, alt.LayerChart)):
        raise TypeError(f"chart must be an Altair Chart or LayerChart, got "
                        f"{type(chart).__name__}")
    if not changes.empty and not pd.api.types.is_numeric_dtype(changes["sweep"]):
        raise TypeError(f"changes' sweep column must hold sweep numbers, got "
                        f"{changes['sweep'].dtype}")
    # a choice made before the first sweep (sampler="auto"'s) is the chain's start, not a change
    changes = changes[changes["sweep"] > 0]
    if changes.empty:
        return chart
    df = (changes.assign(at=changes["sweep"] - 0.5,
                         change=changes["parameter"].astype(str) + ": "
                         + changes["old"].astype(str) + " -> " + changes["new"].astype(str))
          .groupby("at", as_index=False)["change"].agg("; ".join))
    rules = alt.Chart(df).mark_rule(strokeDash=[4, 3], color="#555").encode(
        x="at:Q", tooltip=[alt.Tooltip("change:N", title="settings changed")])
    return alt.layer(chart, rules)


# --------------------------------------------------------------------------------- the table
def _has(metric: str, prefix: bool = False) -> Callable[[pd.DataFrame], bool]:
    def ready(h: pd.DataFrame) -> bool:
        m = h["metric"].astype(str)
        return bool((m.str.startswith(metric) if prefix else m.eq(metric)).any())
    return ready


@dataclass(frozen=True)
class View:
    """One view of a session, for every screen that shows it: the dashboard draws
    ``panel(session, history, width, height)`` (settings changes marked when ``sweep_axis``),
    the offline report the ``sections(session, history)`` (heading, chart) pairs, once the
    history holds what it draws (``ready``). Which views apply to a session is its model's
    rule (``Model.views``); ``on_request`` views (timings) the dashboard shows only when
    asked for; ``applies(session)`` says which sessions it is for."""

    title: str
    ready: Callable[[pd.DataFrame], bool]
    panel: Callable[[Session, pd.DataFrame, int, int], AnyChart]
    sections: Callable[[Session, pd.DataFrame], list[tuple[str, AnyChart]]]
    sweep_axis: bool = True
    on_request: bool = False
    # which sessions it applies to; None: those whose model names it (``Model.views``: the
    # parts know what their sampler records)
    applies: Callable[[Session], bool] | None = None


# every view, in reading order: a new view is a chart builder above and a line here
VIEWS: dict[str, View] = {
    "loglik": View(
        "log joint", _has("log_joint_per_token"),
        lambda s, h, w, ht: loglik_chart(h, width=w, height=ht),
        lambda s, h: [("Convergence", alt.vconcat(loglik_chart(h), throughput_chart(h)))]),
    "acceptance": View(
        "Metropolis-Hastings acceptance", _has(ACCEPTANCE),
        lambda s, h, w, ht: acceptance_chart(h, width=w, height=ht),
        lambda s, h: [("Metropolis-Hastings acceptance", acceptance_chart(h))]),
    "draws": View(
        "sparse draws", _has("doc_part_share"),
        lambda s, h, w, ht: draw_share_chart(h, width=w, height=ht),
        lambda s, h: [("Sparse draws", draw_share_chart(h))]),
    "hyperparameters": View(   # panels: no settings marks (they need one chart)
        "learned alpha and beta", lambda h: _has("alpha_sum")(h) or _has("beta")(h),
        lambda s, h, w, ht: hyperparameter_chart(h, width=w, height=ht),
        lambda s, h: [("Learned Dirichlet parameters", hyperparameter_chart(h))],
        sweep_axis=False),
    "alternation": View(   # two panels: no settings marks (they need one chart)
        "outer iterations", _has("outer_iteration"),
        lambda s, h, w, ht: alternation_chart(h, epsilon=s.model.epsilon, width=w,
                                              height=ht // 2 + 10),
        lambda s, h: [("Outer iterations", alternation_chart(h, epsilon=s.model.epsilon))],
        sweep_axis=False),
    "tables": View(
        "topics and tables", _has("live_topics"),
        lambda s, h, w, ht: tables_chart(h, width=w, height=ht),
        lambda s, h: [("Topics and tables", tables_chart(h))], sweep_axis=False),
    "score": View(
        "training score", _has(TRAIN_PREFIX, prefix=True),
        lambda s, h, w, ht: score_chart(h, width=w, height=ht),
        lambda s, h: [("Training score", score_pair_chart(h))]),
    "coefficients": View(
        "coefficients", lambda h: True,
        lambda s, h, w, ht: coefficient_heatmap(s.coefficients(), top=12, target=s.target),
        lambda s, h: [("Coefficients", coefficient_heatmap(s.coefficients(), target=s.target)),
                      ("Weight traces", weight_trace_chart(s.weights(), target=s.target))]
        if len(h) else [], sweep_axis=False),
    "topic_map": View(
        "intertopic map", lambda h: True,
        lambda s, h, w, ht: topic_map_chart(s.readout(summaries.topic_map),
                                            width=min(w, 480), height=ht),
        lambda s, h: [("Intertopic distance map", topic_map_chart(
            s.readout(summaries.topic_map), s.topic_terms(15)))],
        sweep_axis=False, on_request=True, applies=lambda s: True),
    "forest": View(
        "weights with intervals", lambda h: True,
        lambda s, h, w, ht: forest_chart(s.coefficients(), top=8, columns=2),
        lambda s, h: [("Topic weights with their intervals", forest_chart(s.coefficients()))]
        if len(h) else [],
        sweep_axis=False, on_request=True, applies=lambda s: bool(s.model.supervised)),
    "throughput": View(   # the report draws it under the log joint
        "tokens per second", _has("tokens_per_second"),
        lambda s, h, w, ht: throughput_chart(h, width=w, height=ht),
        lambda s, h: [], on_request=True),
    "sizes": View(
        "topic sizes", lambda h: True,
        lambda s, h, w, ht: topic_sizes_chart(s.readout(summaries.topic_sizes), width=w),
        lambda s, h: [("Topic sizes", topic_sizes_chart(s.readout(summaries.topic_sizes)))],
        sweep_axis=False, on_request=True, applies=lambda s: True),
    "time": View(
        "seconds per step", _has(STEP_SECONDS, prefix=True),
        lambda s, h, w, ht: step_time_chart(h, width=w, height=ht),
        lambda s, h: [("Seconds per step", step_time_chart(h))], on_request=True),
}


def applicable(session: Session) -> tuple[str, ...]:
    """The names of the views that apply to ``session``, in the table's reading order."""
    names = set(session.views)
    return tuple(name for name, view in VIEWS.items()
                 if (name in names if view.applies is None else view.applies(session)))
