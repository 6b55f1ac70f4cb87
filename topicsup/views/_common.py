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

# Axis labels. Vega draws them in 10 px sans-serif and cuts one wider than its axis's
# labelLimit (180 px unless set) with "…": a topic label of three long words, or a long word,
# lost its end on the axes of words and topics. Chromium on Linux draws sans-serif as DejaVu
# Sans, wider than Arial (Liberation Sans, which vl-convert draws with): the widths below, in
# em, are the larger of the two fonts' advance widths for each printable ASCII character,
# rounded up, so a labelLimit from them fits the label in either; any other character counts
# 1 em (CJK is 1 em; accented Latin letters are narrower).
LABEL_FONT_SIZE = 10
LABEL_LIMIT = 180   # Vega's default labelLimit: no axis gets less than it had before
_ASCII_EM = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
    "abcdefghijklmnopqrstuvwxyz{|}~",
    (0.32, 0.41, 0.46, 0.84, 0.64, 0.96, 0.78, 0.28, 0.40, 0.40, 0.50, 0.84, 0.32, 0.37,
     0.32, 0.34, *(0.64,) * 10, 0.34, 0.34, 0.84, 0.84, 0.84, 0.56, 1.02, 0.69, 0.69,
     0.73, 0.78, 0.67, 0.62, 0.78, 0.76, 0.30, 0.50, 0.67, 0.56, 0.87, 0.75, 0.79, 0.67,
     0.79, 0.73, 0.67, 0.62, 0.74, 0.69, 0.99, 0.69, 0.67, 0.69, 0.40, 0.34, 0.40, 0.84,
     0.56, 0.50, 0.62, 0.64, 0.55, 0.64, 0.62, 0.36, 0.64, 0.64, 0.28, 0.28, 0.58, 0.28,
     0.98, 0.64, 0.62, 0.64, 0.64, 0.42, 0.53, 0.40, 0.64, 0.60, 0.82, 0.60, 0.60, 0.53,
     0.64, 0.34, 0.64, 0.84)))


def _text_width(text: str, size: float = LABEL_FONT_SIZE) -> float:
    """``text``'s width in pixels at ``size`` px, from above for ASCII (``_ASCII_EM``)."""
    return size * sum(_ASCII_EM.get(c, 1.0) for c in text)


def _label_limit(labels: Iterable[Any], room: float, least: int = LABEL_LIMIT) -> int:
    """An axis's labelLimit: the widest of ``labels`` whole (``_text_width``, 10 px), at least
    ``least`` and at most the ``room`` the chart has for them (a label wider than that still
    ends in "…", and the marks' tooltips have it whole)."""
    widest = max((_text_width(str(x)) for x in labels), default=0.0)
    return int(min(max(least, np.ceil(widest) + 2), max(room, least)))


def _label_extent(limit: int) -> int:
    """An axis's maxExtent for labels ``limit`` px wide: Vega sets its title beyond the
    labels only up to maxExtent (200 px by default), so longer labels ran under the title."""
    return max(200, limit + 10)   # the ticks (5 px) and the labels' padding (2) beside them


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
