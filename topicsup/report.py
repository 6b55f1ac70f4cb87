"""A self-contained HTML report of one or more Sessions: the views that apply to each sampler
(with the Vega libraries inlined once, so it opens without internet), the topics table and
the run summary."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

import altair as alt
import pandas as pd

from . import summaries
from . import validation as check
from .arrays import Array
from .session import Session
from .summaries import ModelFit
from .view_table import VIEWS, Frames, applicable
from .views import topic_words_chart

if TYPE_CHECKING:
    from .views import AnyChart


def _vega_script() -> str:
    """Vega, Vega-Lite and vega-embed as one script (vl-convert's bundle for Altair's
    Vega-Lite version): inlined once, it renders every chart of the page offline."""
    import vl_convert
    vl_version = "_".join(alt.SCHEMA_VERSION.split(".")[:2])
    # its stub makes snippet required, but the function's default (None) is the snippet
    # that puts vegaEmbed on window, which the page calls
    return cast("Callable[..., str]", vl_convert.javascript_bundle)(vl_version=vl_version)


def _embed(chart: AnyChart, div_id: str) -> str:
    # "<" inside the spec (a title, a word such as "</script>" or "<!--") could end or
    # confuse the script element: as the JSON escape \u003c it is the same string to Vega
    spec = json.dumps(chart.to_dict()).replace("<", "\\u003c")
    return (f'<div id="{div_id}"></div>\n<script>vegaEmbed("#{div_id}", {spec})'
            f'.catch(console.error);</script>')


def _report_reads(fit: ModelFit, n_words: int) -> tuple[pd.DataFrame, list[tuple[str, Frames]],
                                                       pd.DataFrame, Array, tuple[str, ...]]:
    """Everything the report draws of one chain, read of its ``Fit`` at one moment: the
    history, what each view that applies and is ready reads (``View.report_read``), the
    topics, the topic-word matrix and the vocabulary."""
    h = summaries.history(fit)
    reads = [(name, VIEWS[name].report_read()(fit)) for name in applicable(fit)
             if VIEWS[name].ready(h)]   # the table's reading order
    return (h, reads, summaries.topics(fit, n_words), summaries.topic_word(fit),
            tuple(fit.problem.corpus.vocabulary))


def session_views(session: Session, n_words: int = 10) -> list[tuple[str, AnyChart]]:
    """(heading, chart) for every view that applies to the session, in reading order.

    Which apply is the model's rule (``Model.views``, shared with the dashboard); what each
    draws is the view table's (``topicsup.view_table.VIEWS``), then the topic words. What
    they draw is read of the session's ``Fit`` at one moment (``Session.readout``), the
    charts drawn after."""
    h, reads, topics, topic_word, vocabulary = session.readout(_report_reads, n_words)
    out: list[tuple[str, AnyChart]] = []
    for name, frames in reads:
        out += VIEWS[name].sections(frames, h)
    out.append(("Topic words", topic_words_chart(topics, topic_word=topic_word,
                                                 vocabulary=vocabulary)))
    return out


def _session_html(name: str, session: Session, n_words: int, number: int) -> str:
    parts = ['<section class="session">', f"<h2>{html.escape(name)}</h2>"]
    for i, (heading, chart) in enumerate(session_views(session, n_words)):
        parts += [f"<h3>{html.escape(heading)}</h3>", _embed(chart, f"chart-{number}-{i}")]
    topics = session.topics(n_words)[["share", "top_words"]]
    parts += ["<h3>Topics</h3>", topics.to_html(float_format=lambda x: f"{x:.3f}"),
              "<h3>Run</h3>", session.summary().to_frame("value").to_html(), "</section>"]
    return "\n".join(parts)


def write_report(sessions: Session | Mapping[str, Session], path: str | Path,
                 title: str = "topicsup report", n_words: int = 10, notes: str = "") -> Path:
    """Write an HTML report for one or several sessions and return its path.

    Parameters
    ----------
    sessions : Session or mapping of name to Session
        Each session gets a section headed by its name (the model's class name for a
        single Session) with the views that apply to it (``session_views``).
    path : str or Path
        Output file (parent folders are created).
    title : str
    n_words : int
        Top words per topic in the chart and the table.
    notes : str
        Extra HTML-escaped text shown under the title.
    """
    if isinstance(sessions, Session):
        sessions = {type(sessions.model).__name__: sessions}
    if not isinstance(sessions, Mapping) or not sessions \
            or not all(isinstance(s, Session) for s in sessions.values()):
        raise TypeError(f"sessions must be a Session or a non-empty mapping of names to "
                        f"Sessions, got {type(sessions).__name__}")
    path = Path(check.path_like("path", path))
    for name, value in (("title", title), ("notes", notes)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    n_words = check.integer("n_words", n_words, low=1, high=1000)
    for name in sessions:
        if not isinstance(name, str):
            raise TypeError(f"session names must be str, got {name!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    sections = [_session_html(str(name), s, n_words, i)
                for i, (name, s) in enumerate(sessions.items())]
    body = "\n".join([f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}
h2{{border-top:2px solid #888;padding-top:.6em;margin-top:2em}}</style>
<script>{_vega_script()}</script></head><body>
<h1>{html.escape(title)}</h1><p>{html.escape(notes)}</p>""", *sections, "</body></html>"])
    path.write_text(body, encoding="utf-8", errors="backslashreplace")   # lone surrogates
    return path
