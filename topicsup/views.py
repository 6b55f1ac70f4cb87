"""Altair chart builders: pure functions of tidy DataFrames. They never run sampling.

Every chart takes the Session ``history`` (columns ``sweep``, ``metric``, ``value``,
``proposal``, optionally ``chain``) or a table the Session returns, and returns an
``alt.Chart``; showing it is the caller's business. Long traces are thinned here, never in the
history, so charts stay under Altair's 5,000-row inline-data limit.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

MAX_ROWS = 4000


def thin(df: pd.DataFrame, max_rows: int = MAX_ROWS, by: str = "sweep") -> pd.DataFrame:
    """Keep every k-th ``by`` value (always the last) so at most about ``max_rows`` remain."""
    if len(df) <= max_rows:
        return df
    keys = np.sort(df[by].unique())
    rows_per_key = max(1, len(df) // max(len(keys), 1))
    step = int(np.ceil(len(keys) * rows_per_key / max_rows))
    keep = set(keys[::step]) | {keys[-1]}
    return df[df[by].isin(keep)]


def _check_history(history: pd.DataFrame) -> None:
    if not isinstance(history, pd.DataFrame):
        raise TypeError(f"history must be a pandas DataFrame (Session.history), got "
                        f"{type(history).__name__}")
    missing = {"sweep", "metric", "value"} - set(history.columns)
    if missing:
        raise ValueError(f"history is missing column(s) {sorted(missing)}")


def loglik_chart(history: pd.DataFrame, per_token: bool = True, width: int = 480,
                 height: int = 260) -> alt.Chart:
    """Log joint against sweep (one line per chain when a ``chain`` column is present).

    Parameters
    ----------
    history : DataFrame
        ``Session.history`` or a concatenation of several with a ``chain`` column.
    per_token : bool
        Plot the log joint per token (comparable across corpora) instead of the total.
    """
    _check_history(history)
    metric = "log_joint_per_token" if per_token else "log_joint"
    df = history[history["metric"] == metric]
    df = thin(df[["sweep", "value"] + (["chain"] if "chain" in df.columns else [])])
    title = "log joint per token" if per_token else "log joint"
    enc = {"x": alt.X("sweep:Q", title="sweep"),
           "y": alt.Y("value:Q", title=title, scale=alt.Scale(zero=False)),
           "tooltip": ["sweep:Q", alt.Tooltip("value:Q", format=".5f", title=title)]}
    if "chain" in df.columns:
        enc["color"] = alt.Color("chain:N", title="chain")
    return (alt.Chart(df, title=f"Convergence: {title}").mark_line(point=len(df) < 60)
            .encode(**enc).properties(width=width, height=height))


def throughput_chart(history: pd.DataFrame, width: int = 480, height: int = 200) -> alt.Chart:
    """Tokens per second of each sweep (kernel time only)."""
    _check_history(history)
    df = thin(history[history["metric"] == "tokens_per_second"][["sweep", "value"]])
    df = df.assign(mtok=df["value"] / 1e6)
    return (alt.Chart(df, title="Throughput").mark_line(point=len(df) < 60)
            .encode(x=alt.X("sweep:Q", title="sweep"),
                    y=alt.Y("mtok:Q", title="million tokens / s"),
                    tooltip=["sweep:Q", alt.Tooltip("mtok:Q", format=".2f")])
            .properties(width=width, height=height))
