"""Topic prevalence with its posterior intervals (``topicsup.prevalence``'s draws): per class,
one covariate's effect on every topic, and a topic's share along a covariate. Each is a
function of a frame of ``PrevalenceDraws`` (``prevalence()``, ``effects()``, ``along()``);
``topicsup.prevalence`` offers them too.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from .. import validation as check
from ._common import FIT_WIDTH, _label_limit

# the name of the intercept's term in ``PrevalenceDraws.effects()`` (its draws use it)
INTERCEPT = "intercept"


def _check_columns(frame: Any, name: str, columns: tuple[str, ...], source: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame ({source}), got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}: pass {source}")


def _finite(df: pd.DataFrame) -> pd.DataFrame:
    values = df[["mean", "lower", "upper"]].to_numpy(dtype=np.float64)
    return df[np.isfinite(values).all(axis=1)]


def prevalence_chart(frame: pd.DataFrame, top: int = 12, columns: int = 2, width: int = 180,
                     row_height: int = 16) -> alt.FacetChart | alt.LayerChart:
    """Topic prevalence per class with posterior intervals: for each class its ``top``
    topics with the largest mean prevalence, each a point (the posterior mean) on a rule from
    ``lower`` to ``upper``, topics (their labels) down the y axis, largest first; one panel
    per class, ``columns`` per row (``width`` px each: two panels with their labels fit a
    notebook's output area beside JupyterLab's file browser at 1280 px). Within a class the
    means over all topics sum to 1 (topic proportions do), so a topic's share is against the
    others'; compare a topic across panels by its x.

    ``frame``: ``PrevalenceDraws.prevalence(...)`` (``class``, ``topic``, ``label``,
    ``mean``, ``lower``, ``upper``)."""
    _check_columns(frame, "frame", ("class", "topic", "label", "mean", "lower", "upper"),
                   "PrevalenceDraws.prevalence()")
    top = check.integer("top", top, low=1)
    columns = check.integer("columns", columns, low=1)
    width = check.integer("width", width, low=20)
    row_height = check.integer("row_height", row_height, low=4)
    df = _finite(frame)
    if df.empty:
        raise ValueError("frame has no finite prevalences to draw")
    order = list(pd.unique(frame["class"]))
    df = (df.sort_values(["class", "mean"], ascending=[True, False], kind="stable")
          .groupby("class", sort=False).head(top))
    df = df[["class", "topic", "label", "mean", "lower", "upper"]].astype(
        {"class": str, "label": str, "topic": np.int64, "mean": np.float64,
         "lower": np.float64, "upper": np.float64})
    y = alt.Y("label:N", sort=alt.EncodingSortField("mean", order="descending"), title=None,
              axis=alt.Axis(labelLimit=170))
    tooltip: list[Any] = ["class:N", "label:N",
                          *[alt.Tooltip(f"{c}:Q", format=".3f") for c in ("mean", "lower",
                                                                        "upper")]]
    base = alt.Chart(df).encode(y=y, tooltip=tooltip)
    layer = alt.layer(
        base.mark_rule(strokeWidth=2, color="#4c78a8").encode(
            x=alt.X("lower:Q", title="share of the class's documents (posterior, interval)"),
            x2="upper:Q"),
        base.mark_point(filled=True, size=40, color="#1f3b5c").encode(x="mean:Q"),
    ).properties(width=width, height=alt.Step(row_height))
    title = "Topic prevalence per class, with posterior intervals"
    if df["class"].nunique() == 1:
        return layer.properties(title=f"{title}: {df['class'].iloc[0]}")
    return (layer.facet(facet=alt.Facet("class:N", title=None,
                                        sort=[str(c) for c in order]),
                        columns=columns, title=title)
            .resolve_scale(y="independent"))


def effect_chart(frame: pd.DataFrame, term: str, width: int = 360,
                 row_height: int = 16) -> alt.LayerChart | alt.FacetChart:
    """One covariate's effect on every topic's prevalence (stm's ``plot.estimateEffect``):
    a point (the posterior mean coefficient) on a rule from ``lower`` to ``upper`` per topic,
    sorted by the mean, red where the interval excludes 0, and a zero rule. The effects sum
    to 0 over the topics in every draw: a covariate raising some topics lowers others.

    ``frame``: ``PrevalenceDraws.effects(...)`` (``term``, ``topic``, ``label``, ``mean``,
    ``lower``, ``upper``); ``term``: one of its terms (a covariate's name)."""
    _check_columns(frame, "frame", ("term", "topic", "label", "mean", "lower", "upper"),
                   "PrevalenceDraws.effects()")
    terms = [str(t) for t in pd.unique(frame["term"])]
    if not isinstance(term, str) or term not in terms:
        raise ValueError(f"term must be one of {terms[:10]}, got {term!r}")
    width = check.integer("width", width, low=20)
    row_height = check.integer("row_height", row_height, low=4)
    df = _finite(frame[frame["term"] == term])
    if df.empty:
        raise ValueError(f"frame has no finite effects of {term!r} to draw")
    df = df.assign(certain=np.where((df["lower"] > 0) | (df["upper"] < 0),
                                    "interval excludes 0", "interval holds 0"))
    df = df[["term", "topic", "label", "mean", "lower", "upper", "certain"]].astype(
        {"term": str, "label": str, "topic": np.int64, "mean": np.float64,
         "lower": np.float64, "upper": np.float64})
    # the topics' labels whole, in what FIT_WIDTH leaves beside the plot and its legend
    y = alt.Y("label:N", sort=alt.EncodingSortField("mean", order="descending"), title=None,
              axis=alt.Axis(labelLimit=_label_limit(df["label"], FIT_WIDTH - width - 170,
                                                    least=200)))
    colour = alt.Color("certain:N", title=None,
                       scale=alt.Scale(domain=["interval excludes 0", "interval holds 0"],
                                       range=["#c0392b", "#95a5a6"]))
    tooltip: list[Any] = ["label:N", *[alt.Tooltip(f"{c}:Q", format=".4f")
                                       for c in ("mean", "lower", "upper")], "certain:N"]
    base = alt.Chart(df).encode(y=y, tooltip=tooltip)
    what = "intercept" if term == INTERCEPT else f"effect of {term}"
    return alt.layer(
        base.mark_rule(strokeWidth=2).encode(
            x=alt.X("lower:Q", title=f"{what} on the topic's share (posterior, interval)"),
            x2="upper:Q", color=colour),
        base.mark_point(filled=True, size=40).encode(x="mean:Q", color=colour),
        alt.Chart(df).mark_rule(color="#444", strokeDash=[3, 3]).encode(x=alt.datum(0)),
    ).properties(width=width, height=alt.Step(row_height),
                 title=f"Topic prevalence: {what}, with posterior intervals")


def along_chart(frame: pd.DataFrame, width: int = 260, height: int = 160,
                columns: int = 3) -> alt.FacetChart | alt.LayerChart:
    """Topic prevalence against a covariate with its posterior band
    (``PrevalenceDraws.along``): per topic the posterior mean line and the ``lower`` to
    ``upper`` band, one panel per topic (``columns`` per row; three of ``width`` 260 fit a
    notebook at 1280 px)."""
    _check_columns(frame, "frame", ("topic", "label", "covariate", "x", "mean", "lower",
                                    "upper"), "PrevalenceDraws.along()")
    df = _finite(frame)
    if df.empty:
        raise ValueError("frame has no finite prevalences to draw")
    covariate = str(df["covariate"].iloc[0])
    df = df[["label", "x", "mean", "lower", "upper"]].astype({"label": str})
    base = alt.Chart(df).encode(x=alt.X("x:Q", title=covariate))
    layer = alt.layer(
        base.mark_area(opacity=0.3, color="#4c78a8").encode(
            y=alt.Y("lower:Q", title="expected share"), y2="upper:Q"),
        base.mark_line(color="#1f3b5c").encode(
            y="mean:Q", tooltip=["label:N", alt.Tooltip("x:Q", format=".3g"),
                                 *[alt.Tooltip(f"{c}:Q", format=".3f")
                                   for c in ("mean", "lower", "upper")]]),
    ).properties(width=width, height=height)
    title = f"Topic prevalence against {covariate}, with its posterior band"
    if df["label"].nunique() == 1:
        return layer.properties(title=f"{title}: {df['label'].iloc[0]}")
    return layer.facet(facet=alt.Facet("label:N", title=None), columns=columns, title=title)
