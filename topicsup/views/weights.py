"""The weights of a supervised model: the coefficients as a heatmap (per class or response)
and as a forest of intervals, fits under different priors side by side, and the sampled
weights against sweep. Each is a function of ``Session.coefficients()`` or
``Session.weights()``.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from .. import validation as check
from ..metrics import top_weight_share
from ._common import (FIT_WIDTH, MAX_ROWS, _as_list, _chain_dashes, _chains, _check_choice,
                      _check_count, _check_frame, _label_extent, _label_limit, _line,
                      _select, thin)

COEFFICIENT_COLUMNS = ("task", "feature", "mean", "lower", "upper")
COEFFICIENT_VALUES = {"mean": "posterior mean weight", "width": "credible-interval width"}


def _strength(df: pd.DataFrame, column: str) -> pd.Series:
    """Signal of each feature: its largest |``column``| over tasks, strongest first."""
    return df[column].abs().groupby(df["feature"], sort=False).max().sort_values(
        ascending=False, kind="stable")


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
                        legend: str = "right", label_limit: int | None = None
                        ) -> alt.Chart:
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
    label_limit : int, optional
        The width the features' labels may take, in pixels (a longer one ends in "...", the
        tooltip has it whole). By default the longest label's, at least 180 and at most what
        ``FIT_WIDTH`` leaves beside columns of 16 px and the legend (320 px at most).

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
    if label_limit is None:   # the labels whole, while the columns keep 16 px at least
        label_limit = _label_limit(features, min(320, FIT_WIDTH - 180 - 16 * len(tasks)))
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
                            axis=alt.Axis(labelLimit=label_limit,
                                          maxExtent=_label_extent(label_limit))),
                    color=alt.Color(f"{value}:Q", scale=scale, title=key_title, legend=key),
                    tooltip=["task:N", "feature:N",
                             *[alt.Tooltip(f"{c}:Q", format=".3f")
                               for c in ("mean", "lower", "upper", *extra)]])
            .properties(width=width, height=height))



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


PRIOR_COLUMNS = ["feature", "kind", "topic", "label", "lam", "shift"]


def prior_heatmap(prior: pd.DataFrame, width: int | None = None,
                  label_limit: int | None = None) -> alt.Chart:
    """DMR's or LogisticNormal's prior on the documents' topics (``Session.document_prior()``):
    one row per topic, one column per feature (class, intercept, covariate), coloured by
    ``shift`` on a diverging scale centred at 0 and symmetric: for a class, how much more
    (on the frame's scale, ``attrs["scale"]``: DMR's log alpha, LogisticNormal's mean of eta)
    its documents lean to the topic than the classes on average; for a covariate, the change
    per unit. Tooltips give lambda (gamma) and, for a DMR class, its alpha = exp(lambda). Rows
    without a finite value are left out.

    Parameters
    ----------
    prior : DataFrame
        ``Session.document_prior()``: columns ``feature``, ``kind``, ``topic``, ``label``,
        ``lam``, ``shift``.
    width : int, optional
        Width of the plot; by default 40 px per feature, narrower (down to 14 px) so that
        the chart fits ``FIT_WIDTH`` beside the topics' labels and the legend.
    label_limit : int, optional
        The width the topics' labels may take, in pixels (a longer one ends in "...", the
        tooltip has it whole). By default the longest label's, at least 180 and at most what
        ``FIT_WIDTH`` leaves beside columns of 14 px and the legend (320 px at most).
    """
    missing = [c for c in PRIOR_COLUMNS if c not in getattr(prior, "columns", [])]
    if not isinstance(prior, pd.DataFrame) or missing:
        raise ValueError(f"prior must be Session.document_prior()'s frame, with the columns "
                         f"{PRIOR_COLUMNS}; missing {missing}")
    _check_count("label_limit", label_limit)
    df = prior[np.isfinite(prior["lam"]) & np.isfinite(prior["shift"])].copy()
    if df.empty:
        raise ValueError("prior has no finite rows")
    scale = str(prior.attrs.get("scale", "log alpha"))
    dirichlet = scale == "log alpha"   # else LogisticNormal's mean of eta: no alpha to show
    df["alpha"] = np.where((df["kind"] == "class") & dirichlet,
                           np.exp(df["lam"].clip(upper=50)), np.nan)
    df["alpha"] = df["alpha"].where(np.isfinite(df["alpha"]), None)
    features = list(dict.fromkeys(df["feature"]))
    order = list(dict.fromkeys(df.sort_values("topic")["label"]))
    if label_limit is None:   # the labels whole, while the columns keep 14 px at least
        label_limit = _label_limit(order, min(320, FIT_WIDTH - 120 - 14 * len(features)))
    step = max(14, min(40, (FIT_WIDTH - label_limit - 120) // max(len(features), 1)))
    bound = float(np.abs(df["shift"]).max()) or 1.0
    return alt.Chart(df).mark_rect().encode(
        x=alt.X("feature:N", sort=features, title=None,
                axis=alt.Axis(labelAngle=-45, labelLimit=120)),
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=label_limit)),
        color=alt.Color("shift:Q", title=f"{scale} vs classes",
                        scale=alt.Scale(scheme="redblue", domain=[-bound, bound],
                                        reverse=True)),
        tooltip=[alt.Tooltip("feature:N"), alt.Tooltip("label:N", title="topic"),
                 alt.Tooltip("lam:Q", title="lambda" if dirichlet else "gamma", format=".3f"),
                 *([alt.Tooltip("alpha:Q", title="alpha", format=".3g")] if dirichlet
                   else []),
                 alt.Tooltip("shift:Q", title="shift", format=".3f")],
    ).properties(width=width if width is not None else alt.Step(step),
                 height=alt.Step(16),
                 title="Documents' prior by feature: where each class leans")
