"""What every chart of ``topicsup.views`` shares: the size a chart may take (``FIT_WIDTH``),
the thinning of long traces under Altair's inline-data limit (``thin``, ``MAX_ROWS``), the
checks of the frames a chart is given (each names the frame and where it comes from), and
the pieces of the line charts against sweeps (chains told apart by colour or dashes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import validation as check

if TYPE_CHECKING:
    from typing import TypeAlias

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
