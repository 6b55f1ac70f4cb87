"""A token inspector for teaching: one document's tokens coloured by topic, buttons that
resample them one at a time as the session's sampler would, the last step told in words, and
the exact conditional drawn next to the proposal distributions.

Everything shown comes from ``topicsup.inspector.TokenInspector`` records, whose acceptance
probabilities are the kernels' own (see that module). Steps run in the notebook's thread and
take the session's lock, so they wait for a block a Dashboard may be sampling in its worker.

Laid out for a lecture (an output area about 900 px wide, a 900 px high screen): the model
and its sampler named on top, the controls, a status line, a colour key, the tokens (each
kept whole: no word is broken across lines), then the chart with the last token's steps
beside it, their height capped so a "Step 10" never pushes the chart out of view.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import altair as alt
import ipywidgets as w

from topicsup import validation as check
from topicsup import warmup
# TOKEN_STYLE: a token span stays whole (the line breaks between tokens, never in a word)
from topicsup.inspector import (KIND_NAMES, TOKEN_STYLE, TokenInspector, TokenStep,
                                sampler_title, topic_colours)
from topicsup.kernels import info as info_layout
from topicsup.models import MAX_TOPICS
from topicsup.views import conditional_chart

from .charts import FiniteChart

if TYPE_CHECKING:
    from topicsup.session import Session

# up to this many topics the colour key lists them all; more: those in the document
KEY_ALL_TOPICS = 20
# the chart's plot size in the widget (with its axis and legend about 390 x 280 px), and the
# height the steps beside it may take before they scroll
CHART_WIDTH, CHART_HEIGHT = 330, 170
STEPS_MAX_HEIGHT = "290px"
ERROR_COLOUR = "#b00"
# ipywidgets' HTML sets a 28 px line height (a control's): text blocks set their own
STATUS_STYLE = "display:block;line-height:1.4;padding:2px 0"


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
    title, status, key, tokens, description : ipywidgets.HTML
        The model and its sampler, the position and acceptances so far (or a refusal), the
        topics' colours, the coloured document, and the last step in words (the other tokens
        of a click collapsed).
    doc_picker : ipywidgets.IntText
        The document; a number out of range or of an empty document is refused in the status
        line and the current document stays (``TokenInspector.check_document``).
    chart : FiniteChart
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
        # an IntText, not a BoundedIntText: a bound would silently clamp 100000 to the last
        # document; the widget refuses it in words instead
        self.doc_picker = w.IntText(
            value=self.inspector.doc, description="document",
            style={"description_width": "initial"},
            layout=w.Layout(width="160px", min_width="160px"),
            tooltip=f"Type a document number from 0 to {n_docs - 1} and press Enter to "
                    f"inspect that document instead.")
        self._syncing = False   # the picker set back by the widget: not a user's choice
        self.doc_picker.observe(self._on_pick, names="value")
        self.step_button = w.Button(
            description="Step token", icon="step-forward",
            tooltip="Resample the next token as the sampler would and explain each step.")
        self.step10_button = w.Button(
            description="Step 10", icon="forward",
            tooltip="Resample the next 10 tokens; the last one is explained in full.")
        self.finish_button = w.Button(
            description="Finish document", icon="fast-forward",
            tooltip="Resample every remaining token of the document (a new pass once it is "
                    "finished).")
        self.step_button.on_click(lambda _: self._click(self.step, 1))
        self.step10_button.on_click(lambda _: self._click(self.step, 10))
        self.finish_button.on_click(lambda _: self._click(self.finish))
        self.title = w.HTML()
        self.status = w.HTML()
        self.key = w.HTML()
        # no width="100%": with the widget margin it would stick out 4 px past the output area
        self.tokens = w.HTML()
        self.description = w.HTML(layout=w.Layout(
            flex="1 1 300px", min_width="280px", max_height=STEPS_MAX_HEIGHT,
            overflow="auto", margin="0 0 0 12px"))
        self._stepped = False   # whether this widget has stepped yet (see _busy)
        # the kernels a first step needs, compiled in the background from now on
        self._warmup: warmup.Warmup | None = session.compile_ahead()
        # no actions menu: its button would take 40 px from the steps beside the chart
        self.chart = FiniteChart(self._chart(), embed_options={"actions": False})
        row = w.Layout(display="flex", flex_flow="row wrap", align_items="center",
                       width="100%")
        self.widget = w.VBox([
            self.title,
            w.HBox([self.doc_picker, self.step_button, self.step10_button,
                    self.finish_button], layout=row),
            self.status, self.key, self.tokens,
            w.HBox([self.chart, self.description],
                   layout=w.Layout(display="flex", flex_flow="row wrap",
                                   align_items="flex-start", width="100%"))],
            layout=w.Layout(width="100%"))
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
        without tokens, or out of range, is refused (``TokenInspector.check_document``, its
        message in plain words) and the current one stays."""
        doc = TokenInspector.check_document(self.inspector.session.corpus, doc, argument=None)
        self.inspector = TokenInspector(self.inspector.session, doc, seed=self.seed)
        self._set_picker(self.inspector.doc)
        self._show()

    def step(self, n: int = 1) -> list[TokenStep]:
        """Resample the next ``n`` tokens (stopping at the end of the document) and update the
        views; return the records."""
        n = check.integer("n", n, low=1)
        insp = self.inspector
        self._busy(f"Resampling {'the next token' if n == 1 else f'up to {n} tokens'}")
        out = [insp.step()]
        while len(out) < n and not insp.done:
            out.append(insp.step())
        self._stepped = True
        self._show(out)
        return out

    def finish(self) -> list[TokenStep]:
        """Resample the rest of the document (a whole new pass if it was finished)."""
        self._busy("Resampling the rest of the document")
        out = self.inspector.run_document()
        self._stepped = True
        self._show(out)
        return out

    def _click(self, action: Callable[..., object], *args: Any) -> None:
        """A control's action. ipywidgets would swallow an exception raised in a callback, so
        a refusal (a document out of range, stepping inside an LDA initialisation) goes to
        the status line, and the picker returns to the current document."""
        try:
            action(*args)
        except (ValueError, TypeError) as e:
            self._set_picker(self.inspector.doc)
            self._set_status(str(e), error=True)

    def _set_status(self, text: str, error: bool = False) -> None:
        """Show ``text`` (plain words, escaped here) in the status line at once: the comm
        message leaves before the action that follows runs, so it is read during a long
        step."""
        colour = f"color:{ERROR_COLOUR};" if error else ""
        self.status.value = (f"<span class='topicsup-inspector-status' "
                             f"style='{colour}{STATUS_STYLE}'>{html.escape(text)}</span>")

    def _busy(self, doing: str) -> None:
        """Say what the widget is doing before a step. In a fresh environment the first step
        waits for the kernels being compiled since the widget was made
        (``Session.compile_ahead``): the status says so, with the time so far, until then."""
        warm = self._warmup
        while warm is not None and not warm.wait_ended(0.25):
            self._set_status(f"{doing}: waiting for numba, {warmup.message(warm)}")
        self._set_status(f"{doing}…")

    # ------------------------------------------------------------------ views
    def _show(self, records: list[TokenStep] | None = None) -> None:
        self.title.value = self._title_html()
        self.tokens.value = self.tokens_html()
        self.key.value = self.key_html()
        self.description.value = self._description_html(records or [])
        self.status.value = self._status_html()
        self.chart.chart = self._chart()

    def _title_html(self) -> str:
        name, _, how = sampler_title(self.inspector.model).partition(" · ")
        return (f"<div class='topicsup-inspector-title' style='font-size:14px'>"
                f"<b>{html.escape(name)}</b> · {html.escape(how)}</div>")

    def _labels(self) -> list[str]:
        """Each topic's name in the key and the tokens' tooltips: the name given with
        ``session.set_topic_labels``, else its three most relevant words."""
        session = self.inspector.session
        K = session.model.K
        labels = list(session.topic_labels())
        if len(labels) != K:   # a model showing some topics only: numbers, not guesses
            return [f"topic {k}" for k in range(K)]
        return [name.removeprefix(f"{k}: ") for k, name in enumerate(labels)]

    def key_html(self) -> str:
        """The colour key: each topic's colour with its number and name (or top three words);
        all topics when there are at most ``KEY_ALL_TOPICS``, else those in the document."""
        K = self.inspector.session.model.K
        labels = self._labels()
        if K <= KEY_ALL_TOPICS:
            topics, head = list(range(K)), "Topics:"
        else:
            topics = sorted(set(self.inspector.doc_tokens()["topic"].tolist()))
            head = f"Topics in this document ({len(topics)} of {K}):"
        entries = []
        for k in topics:
            name = html.escape(labels[k])
            entries.append(
                f'<span class="topicsup-key-entry" data-topic="{k}" title="topic {k}: {name}" '
                f'style="{TOKEN_STYLE}margin:0 12px 2px 0;max-width:230px;overflow:hidden;'
                f'text-overflow:ellipsis;vertical-align:middle">'
                f'<span style="background:{self.colours[k]};padding:0 5px;'
                f'border-radius:3px;font-weight:bold">{k}</span> {name}</span>')
        return (f'<div class="topicsup-key" style="font-size:12px;line-height:1.6">'
                f'<span style="color:#555;margin-right:8px">{head}</span>'
                + "".join(entries) + "</div>")

    def tokens_html(self) -> str:
        """The document as spans coloured by topic, each with ``data-position`` and
        ``data-topic`` and kept whole (``TOKEN_STYLE``); the token stepped last is
        underlined in bold, the next one outlined."""
        insp = self.inspector
        labels = self._labels()
        last = insp.last.position if insp.last is not None and insp.last.doc == insp.doc \
            else -1
        spans = []
        for pos, word, topic, is_next in insp.doc_tokens()[["position", "word", "topic",
                                                            "next"]].itertuples(index=False):
            style = (f"{TOKEN_STYLE}background:{self.colours[topic]};padding:0 4px;"
                     f"border-radius:3px;")
            classes = ["topicsup-token"]
            if pos == last:
                style += "font-weight:bold;text-decoration:underline;"
                classes.append("topicsup-last")
            if is_next:
                style += "outline:2px solid #222;"
                classes.append("topicsup-next")
            tip = html.escape(f"position {pos}, topic {topic}: {labels[topic]}", quote=True)
            spans.append(f'<span class="{" ".join(classes)}" data-position="{pos}" '
                         f'data-topic="{topic}" title="{tip}" '
                         f'style="{style}">{html.escape(word)}<sub>{topic}</sub></span>')
        return ('<div class="topicsup-tokens" style="line-height:1.9">'
                + " ".join(spans) + "</div>")

    def _description_html(self, records: list[TokenStep]) -> str:
        insp = self.inspector
        if not records:
            row = insp.doc_tokens().iloc[insp.position % insp.n_tokens]
            return (f"<div class='topicsup-step' style='line-height:1.4'>Click <b>Step token</b> to resample token "
                    f"{row['position']}, <b>{html.escape(repr(row['word']))}</b>, now at "
                    f"topic {row['topic']}: the chart shows its exact conditional and the "
                    f"proposals the sampler draws from.</div>")
        last = records[-1]
        body = _step_html(last)
        earlier = records[:-1]
        if earlier:
            lines = "".join(f"<li>{_step_line(r)}</li>" for r in reversed(earlier))
            s = "s" if len(earlier) > 1 else ""
            body += (f"<details style='margin-top:4px'><summary>the {len(earlier)} token{s} "
                     f"stepped before it</summary><ul style='margin:2px 0;padding-left:18px'>"
                     f"{lines}</ul></details>")
        return (f"<div class='topicsup-step' style='font-size:13px;line-height:1.4'>{body}"
                f"</div>")

    def _status_html(self) -> str:
        insp = self.inspector
        where = "finished (the next step starts a new pass over it)" if insp.done \
            else f"token {insp.position} of {insp.n_tokens} is next"
        parts = [f"Document {insp.doc}: {where}"]
        kinds = insp.model.proposal_kinds
        for kind, k in zip(kinds, info_layout.decode(insp.info, len(kinds)).kinds):
            if k.made:
                parts.append(f"{KIND_NAMES.get(kind, kind)} proposals: {int(k.accepted)} of "
                             f"{int(k.made)} accepted")
        return (f"<span class='topicsup-inspector-status' style='{STATUS_STYLE}'>"
                f"{html.escape(' · '.join(parts))}</span>")

    def _chart(self) -> alt.Chart:
        insp = self.inspector
        rec = insp.last
        if rec is None:
            row = insp.doc_tokens().iloc[insp.position % insp.n_tokens]
            title = f"next: token {row['position']} {row['word']!r}, at topic {row['topic']}"
            table = insp.conditional_table()
        else:
            title = (f"token {rec.position} {rec.word!r}: topic {rec.old_topic} → "
                     f"{rec.new_topic}")
            table = rec.conditional_table()
        return conditional_chart(table, title=title, max_topics=self.max_topics,
                                 width=CHART_WIDTH, height=CHART_HEIGHT)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def _step_html(rec: TokenStep) -> str:
    """One token's resampling in full: the token, each step as a row (proposal, proposed
    topic, acceptance probability, uniform, decision), and where it ended."""
    e = html.escape
    note = " The session sampled meanwhile, so the document was reloaded first." \
        if rec.reloaded else ""
    head = (f"<div><b>Token {rec.position}, {e(repr(rec.word))}</b>, was at topic "
            f"{rec.old_topic}.{note}</div>")
    if rec.sampler == "gibbs":
        st = rec.steps[0]
        body = (f"<div>Drew topic {st.proposed} from the exact conditional "
                f"(p = {st.proposal[st.proposed]:.3g}) with u = {st.u:.3g}.</div>")
    else:
        cell = "style='padding:1px 4px;text-align:right;white-space:nowrap'"
        rows = []
        for n, st in enumerate(rec.steps):
            kind = KIND_NAMES.get(st.kind, st.kind) + (" (table rebuilt)"
                                                       if st.table_rebuilt else "")
            if st.proposed == st.current:
                acc, u, verdict = "", "", "<span style='color:#666'>same topic</span>"
            else:
                acc = f"min(1, {st.ratio:.3g}) = {st.acceptance:.3g}"
                u = f"{st.u:.3g}"
                verdict = ("<span style='color:#1a7f37'>accepted</span>" if st.accepted
                           else "<span style='color:#b00'>rejected</span>")
            rows.append(f"<tr><td {cell}>{n + 1}</td><td {cell}>{e(kind)}</td>"
                        f"<td {cell}>{st.current} → {st.proposed}</td><td {cell}>{acc}</td>"
                        f"<td {cell}>{u}</td><td {cell}>{verdict}</td></tr>")
        th = ("style='padding:1px 4px;text-align:right;white-space:nowrap;"
              "font-weight:normal;color:#555'")
        body = (f"<table class='topicsup-steps' style='border-collapse:collapse;"
                f"margin:2px 0'><tr><th {th}>step</th><th {th}>proposal</th>"
                f"<th {th}>topic</th><th {th}>acceptance</th><th {th}>u</th><th {th}></th>"
                f"</tr>{''.join(rows)}</table>")
    tail = (f"<div>Now at topic <b>{rec.new_topic}</b> (exact probability "
            f"{rec.exact[rec.new_topic]:.3g}).</div>")
    return head + body + tail


def _step_line(rec: TokenStep) -> str:
    """One token's resampling in a line (the tokens of a click before the last)."""
    moves = [st for st in rec.steps if st.proposed != st.current]
    how = "" if rec.sampler == "gibbs" else \
        f" ({sum(st.accepted for st in moves)} of {len(moves)} moves accepted)"
    return (f"token {rec.position} {html.escape(repr(rec.word))}: topic {rec.old_topic} → "
            f"{rec.new_topic}{how}")
