"""The token inspector's chart: one token's exact conditional next to each proposal
distribution, per topic (``TokenStep.conditional_table()``)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ._common import _check_count, _check_frame


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
