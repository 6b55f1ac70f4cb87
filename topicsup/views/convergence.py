"""The chain's convergence and its sampler at work, against sweeps: the log joint, R-hat of
several chains, the score, and what the sampler records per sweep (throughput, acceptance
per proposal, the sparse kernel's draws, the seconds of each step) with the structure some
models learn (live topics and tables, the Dirichlet parameters, Monte Carlo MedLDA's outer
loop). Each is a function of the Session ``history`` (or several stacked with a ``chain``
column) or of ``Chains.convergence()``.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from .. import validation as check
from ..history import ACCEPTANCE, STEP_SECONDS, TRAIN_PREFIX
from ._common import (FIT_WIDTH, POINTS_BELOW, _chain_dashes, _chains, _check_choice,
                      _check_count, _check_frame, _check_history, _line, thin)


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
RHAT_FLOOR = 1e-4   # R-hat - 1 below this (or R-hat below 1) is drawn at it


def rhat_chart(convergence: pd.DataFrame, width: int = 480, height: int = 200
               ) -> alt.LayerChart | alt.FacetChart:
    """R-hat against sweep, one line per quantity, with the 1.01 threshold dashed.

    The axis is logarithmic in R-hat - 1, labelled in R-hat: early values of 2 or 10 and
    the last approach from 1.05 to 1.01 both stay readable (on a log axis of R-hat itself
    1.00-1.05 is a sliver at the bottom). Values at or below 1.0001 are drawn there; the
    tooltip gives every value as it is.

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
    df = df.assign(above_one=np.maximum(df["r_hat"].to_numpy(np.float64) - 1.0, RHAT_FLOOR))
    # the axis in R-hat's own numbers: a tick at x (= R-hat - 1) reads 1 + x, at 1-2-5
    # steps of R-hat - 1 over the range drawn (the threshold's 0.01 included)
    above = df["above_one"].to_numpy()
    lo, hi = min(above.min(), RHAT_OK - 1.0), max(above.max(), RHAT_OK - 1.0)
    steps = [m * 10.0 ** e for e in range(-4, 4) for m in (1, 2, 5)]
    ticks = [t for t in steps if lo / 1.0001 <= t <= hi * 1.0001] or [RHAT_OK - 1.0]
    axis = alt.Axis(values=ticks, labelExpr="format(datum.value + 1, '.5~g')")
    # a little room beyond the data and the threshold, so their ticks' labels show
    y_scale = alt.Scale(type="log", domain=[lo / 1.3, hi * 1.3], nice=False)
    line = _line(df, width, height, "Convergence of the chains: R-hat").encode(
        x=alt.X("sweep:Q", title="sweep"),
        y=alt.Y("above_one:Q", title="R-hat (second half of the draws)", scale=y_scale,
                axis=axis),
        # the legend in words ("log joint"), the data keeps convergence()'s names
        color=alt.Color("quantity:N", title=None,
                        legend=alt.Legend(labelExpr="replace(datum.label, /_/g, ' ')")),
        tooltip=["sweep:Q", "quantity:N", alt.Tooltip("r_hat:Q", format=".3f")])
    # the threshold drawn to be seen in a lecture hall: dark red, labelled
    ok = alt.Chart(pd.DataFrame({"above_one": [RHAT_OK - 1.0],
                                 "label": [f"{RHAT_OK} (converged below)"]}))
    rule = ok.mark_rule(strokeDash=[6, 3], strokeWidth=2, color="#b2182b").encode(
        y=alt.Y("above_one:Q", scale=y_scale))
    text = ok.mark_text(align="left", baseline="bottom", dx=3, dy=-2, color="#b2182b",
                        fontWeight="bold").encode(y=alt.Y("above_one:Q", scale=y_scale),
                                                  x=alt.value(0), text="label:N")
    return alt.layer(line, rule, text)


def throughput_chart(history: pd.DataFrame, width: int = 480, height: int = 200) -> alt.Chart:
    """Tokens per second of each sweep (kernel time only)."""
    _check_history(history)
    df = thin(history[history["metric"] == "tokens_per_second"][["sweep", "value"]])
    df = df.assign(mtok=df["value"] / 1e6)
    return _line(df, width, height, "Throughput").encode(
        x=alt.X("sweep:Q", title="sweep"), y=alt.Y("mtok:Q", title="million tokens / s"),
        tooltip=["sweep:Q", alt.Tooltip("mtok:Q", format=".2f")])


def change_rate_chart(history: pd.DataFrame, width: int = 480, height: int = 200
                      ) -> alt.Chart:
    """The share of tokens whose topic changed in each sweep (``topic_change_rate``), on a
    log scale: how far the chain still moves. It falls from the random start's ~(K-1)/K as
    the chain settles and levels off above zero at stationarity, where tokens keep moving
    within the posterior; a sampler that mixes slowly moves few tokens per sweep, and a
    chain that stops moving altogether is stuck, not converged. Several chains (a ``chain``
    column) get a colour each; sweeps without a finite positive value (none moved) are left
    out and counted in the title.

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` (its ``topic_change_rate`` rows), or several with a ``chain``
        column.
    width, height : int
        Size of the chart in pixels.
    """
    _check_history(history)
    rows = history[history["metric"] == "topic_change_rate"]
    if rows.empty:
        raise ValueError("history has no topic_change_rate rows: run a sweep first")
    df, dropped = _metric_frame(rows, positive=True)
    chains = _chains(df)
    title = "Tokens that changed topic"
    if dropped:
        title += f" ({dropped} sweep{'s' if dropped > 1 else ''} without a change left out)"
    enc: dict[str, Any] = {
        "x": alt.X("sweep:Q", title="sweep"),
        "y": alt.Y("value:Q", title="share of tokens", scale=alt.Scale(type="log")),
        "tooltip": ["sweep:Q", *[f"{c}:N" for c in chains],
                    alt.Tooltip("value:Q", format=".3f", title="share of tokens")]}
    if chains:
        enc["color"] = alt.Color("chain:N", title="chain",
                                 legend=alt.Legend(orient="bottom", columns=2))
    return _line(thin(df[["sweep", "value", *chains]]), width, height, title).encode(**enc)


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
