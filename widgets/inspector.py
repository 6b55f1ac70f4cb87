"""A token inspector for teaching: one document's tokens coloured by topic, buttons that
resample them one at a time as the session's sampler would, the last step told in words, and
the exact conditional drawn next to the proposal distributions.

Everything shown comes from ``topicsup.inspector.TokenInspector`` records, whose acceptance
probabilities are the kernels' own (see that module). Steps run in the notebook's thread and
take the session's lock, so they wait for a block a Dashboard may be sampling in its worker.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import altair as alt
import ipywidgets as w

from topicsup import validation as check
from topicsup.models import MAX_TOPICS
from topicsup.inspector import SAMPLER_NAMES, TokenInspector, TokenStep, topic_colours
from topicsup.kernels import info as info_layout
from topicsup.views import conditional_chart

if TYPE_CHECKING:
    from topicsup.session import Session


class InspectorWidget:
    """Step through one document of a :class:`~topicsup.session.Session`, token by token.

    Parameters
    ----------
    session : Session
        A session whose topic sampler has token stepping (``TopicSampler.stepping``; see
        ``TokenInspector``).
    doc : int
        The document to inspect.
    seed : int
        Seed of the inspector's own random stream.
    max_topics : int
        The chart shows at most this many topics (those with the largest probabilities).

    Attributes
    ----------
    inspector : TokenInspector
        The stepping engine; its ``records`` hold every step made.
    tokens, description, status : ipywidgets.HTML
        The coloured document, the last step in words, and position and acceptance so far.
    chart : altair.JupyterChart
        Exact conditional and proposals of the last stepped token (before any step: of the
        next one).

    Examples
    --------
    >>> InspectorWidget(session, doc=3)      # doctest: +SKIP
    """

    def __init__(self, session: Session, doc: int = 0, seed: int = 0,
                 max_topics: int = 30) -> None:
        self.inspector = TokenInspector(session, doc, seed=seed)   # checks session, doc, seed
        self.seed = seed
        self.max_topics = check.integer("max_topics", max_topics, low=1, high=MAX_TOPICS)
        self.colours = topic_colours(session.model.K)
        n_docs = session.corpus.n_docs
        self.doc_picker = w.BoundedIntText(value=self.inspector.doc, min=0, max=n_docs - 1,
                                           description="document", style={"description_width":
                                                                          "initial"},
                                           layout=w.Layout(width="170px", min_width="170px"),
                                           tooltip=f"0 .. {n_docs - 1}")
        self._syncing = False   # the picker set back by the widget: not a user's choice
        self.doc_picker.observe(self._on_pick, names="value")
        self.step_button = w.Button(description="Step token", icon="step-forward",
                                    tooltip="Resample the next token")
        self.step10_button = w.Button(description="Step 10", icon="forward",
                                      tooltip="Resample the next 10 tokens")
        self.finish_button = w.Button(description="Finish document", icon="fast-forward",
                                      tooltip="Resample the rest of the document")
        self.step_button.on_click(lambda _: self._click(self.step, 1))
        self.step10_button.on_click(lambda _: self._click(self.step, 10))
        self.finish_button.on_click(lambda _: self._click(self.finish))
        self.tokens = w.HTML()
        self.description = w.HTML()
        self.status = w.HTML()
        alt.JupyterChart.enable_offline()   # Vega inlined: no internet needed; once only
        self.chart = alt.JupyterChart(self._chart())
        self.widget = w.VBox([
            w.HBox([self.doc_picker, self.step_button, self.step10_button, self.finish_button,
                    self.status], layout=w.Layout(flex_flow="row wrap", align_items="center")),
            self.tokens, self.description, self.chart])
        self.widget.add_class("topicsup-inspector")
        self._show()

    # ------------------------------------------------------------------ actions
    def _on_pick(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self._click(self.open_document, change["new"])

    def _set_picker(self, doc: int) -> None:
        self._syncing = True
        try:
            self.doc_picker.value = doc
        finally:
            self._syncing = False

    def open_document(self, doc: int) -> None:
        """Inspect document ``doc`` instead (the document picker does this); a document
        without tokens, or out of range, is refused and the current one stays."""
        self.inspector = TokenInspector(self.inspector.session, doc, seed=self.seed)
        self._set_picker(self.inspector.doc)
        self._show()

    def step(self, n: int = 1) -> list[TokenStep]:
        """Resample the next ``n`` tokens (stopping at the end of the document) and update the
        views; return the records."""
        n = check.integer("n", n, low=1)
        insp = self.inspector
        out = [insp.step()]
        while len(out) < n and not insp.done:
            out.append(insp.step())
        self._show(out)
        return out

    def finish(self) -> list[TokenStep]:
        """Resample the rest of the document (a whole new pass if it was finished)."""
        out = self.inspector.run_document()
        self._show(out)
        return out

    def _click(self, action: Callable[..., object], *args: Any) -> None:
        """A button's action. ipywidgets would swallow an exception raised in a callback, so
        a refusal (e.g. stepping inside an LDA initialisation) goes to the status line."""
        try:
            action(*args)
        except (ValueError, TypeError) as e:
            self._set_picker(self.inspector.doc)   # a refused document: back to the current
            self.status.value = (f"<span class='topicsup-inspector-status' "
                                 f"style='color:#b00'>{html.escape(str(e))}</span>")

    # ------------------------------------------------------------------ views
    def _show(self, records: list[TokenStep] | None = None) -> None:
        self.tokens.value = self.tokens_html()
        self.description.value = self._description_html(records or [])
        self.status.value = self._status_html()
        self.chart.chart = self._chart()

    def tokens_html(self) -> str:
        """The document as spans coloured by topic, each with ``data-position`` and
        ``data-topic``; the token stepped last is underlined in bold, the next one outlined."""
        insp = self.inspector
        last = insp.last.position if insp.last is not None and insp.last.doc == insp.doc \
            else -1
        spans = []
        for pos, word, topic, is_next in insp.doc_tokens()[["position", "word", "topic",
                                                            "next"]].itertuples(index=False):
            style = f"background:{self.colours[topic]};padding:1px 4px;border-radius:3px;"
            classes = ["topicsup-token"]
            if pos == last:
                style += "font-weight:bold;text-decoration:underline;"
                classes.append("topicsup-last")
            if is_next:
                style += "outline:2px solid #222;"
                classes.append("topicsup-next")
            spans.append(f'<span class="{" ".join(classes)}" data-position="{pos}" '
                         f'data-topic="{topic}" title="position {pos}, topic {topic}" '
                         f'style="{style}">{html.escape(word)}<sub>{topic}</sub></span>')
        return ('<div class="topicsup-tokens" style="line-height:2.1;max-width:900px">'
                + " ".join(spans) + "</div>")

    def _description_html(self, records: list[TokenStep]) -> str:
        insp = self.inspector
        if not records:
            row = insp.doc_tokens().iloc[insp.position % insp.n_tokens]
            return (f"<div class='topicsup-step'>Next: token {row['position']} "
                    f"{html.escape(repr(row['word']))} at topic {row['topic']}. Click "
                    f"<b>Step token</b>.</div>")
        shown = records[-3:]   # a Step 10 tells its last tokens; the rest are in .records
        skipped = len(records) - len(shown)
        head = f"<div>... {skipped} earlier tokens stepped</div>" if skipped else ""
        body = "".join(f"<pre style='margin:2px 0'>{html.escape(r.describe())}</pre>"
                       for r in shown)
        return f"<div class='topicsup-step'>{head}{body}</div>"

    def _status_html(self) -> str:
        insp = self.inspector
        where = "finished (the next step starts a new pass)" if insp.done \
            else f"token {insp.position} / {insp.n_tokens}"
        parts = [f"document {insp.doc}: {where}", SAMPLER_NAMES[insp.sampler]]
        kinds = self.inspector.session.model.proposal_kinds
        for kind, k in zip(kinds, info_layout.decode(insp.info, len(kinds)).kinds):
            if k.made:
                parts.append(f"{kind}: accepted {k.accepted / k.made:.2f} of {int(k.made)}")
        return f"<span class='topicsup-inspector-status'>{' &middot; '.join(parts)}</span>"

    def _chart(self) -> alt.Chart:
        insp = self.inspector
        rec = insp.last
        if rec is None:
            row = insp.doc_tokens().iloc[insp.position % insp.n_tokens]
            title = f"next token {row['word']!r} at topic {row['topic']}"
            table = insp.conditional_table()
        else:
            title = (f"token {rec.position} {rec.word!r}: topic {rec.old_topic} -> "
                     f"{rec.new_topic}")
            table = rec.conditional_table()
        return conditional_chart(table, title=title, max_topics=self.max_topics)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
