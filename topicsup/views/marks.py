"""Where a live setting changed, marked on a chart against sweeps
(``Session.settings_changes``): the dashboard marks its panels with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import pandas as pd

from ._common import _check_frame

if TYPE_CHECKING:
    from ._common import AnyChart


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
