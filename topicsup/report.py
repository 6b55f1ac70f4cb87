"""A self-contained HTML report of a Session: charts (with the Vega libraries inlined, so it
opens without internet), the topics table and the run summary."""

from __future__ import annotations

import html
from pathlib import Path

import altair as alt

from .session import Session
from .views import loglik_chart, throughput_chart


def _chart_html(chart: alt.Chart) -> str:
    """The chart as an HTML fragment with the Vega JavaScript inlined (needs vl-convert)."""
    import io
    buf = io.StringIO()
    chart.save(buf, format="html", inline=True)
    return buf.getvalue()


def write_report(session: Session, path: str | Path, title: str = "topicsup report",
                 n_words: int = 10, notes: str = "") -> Path:
    """Write an HTML report for ``session`` and return its path.

    Parameters
    ----------
    session : Session
    path : str or Path
        Output file (parent folders are created).
    title : str
    n_words : int
        Top words per topic in the table.
    notes : str
        Extra HTML-escaped text shown under the title.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    chart = alt.vconcat(loglik_chart(session.history), throughput_chart(session.history))
    topics = session.topics(n_words)[["share", "top_words"]]
    summary = session.summary().to_frame("value")
    body = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}
iframe{{border:none}}</style></head><body>
<h1>{html.escape(title)}</h1><p>{html.escape(notes)}</p>
<h2>Convergence</h2>
<iframe srcdoc="{html.escape(_chart_html(chart))}" width="620" height="640"></iframe>
<h2>Topics</h2>{topics.to_html(float_format=lambda x: f"{x:.3f}")}
<h2>Run</h2>{summary.to_html()}
</body></html>"""
    path.write_text(body, encoding="utf-8")
    return path
