"""The Explorer: one screen to read a fitted (or fitting) model, class -> topics -> words and
documents.

Pick a class: its topic weights as a forest plot (``views.forest_chart``), and its strongest
signal topic becomes the topic shown. Pick a topic (in the dropdown, or by clicking its circle
on the map): its relevance bars with the lambda slider (``views.relevance_chart``), its place
on the intertopic distance map (``views.topic_map_chart``, the topic ringed) and its
representative documents coloured by topic (``Session.representative_docs``, among the chosen
class's documents). An unsupervised session has no class: the Explorer starts at the map.

Live. ``refresh()`` recomputes every view from the session's current state, read under its
lock so the parts agree. A daemon thread checks ``session.n_sweeps`` every
``refresh_seconds`` and refreshes when it changed, so the Explorer follows a run driven by a
``Dashboard`` or by ``session.run`` in another thread, and works the same on a finished or
loaded session; ``close()`` stops it. As in the Dashboard (see its module docstring), the
thread never prints: it only sets widget values and chart specs, and an error (there or in a
control's callback, which ipywidgets would swallow) is shown in the status line; the next
refresh retries.

While the chosen class's strongest topic is the one shown (the default), a refresh follows it
as it changes during a run; once a topic is picked by hand it stays until another class is
picked. The lambda slider keeps its value when the topic changes.
"""

from __future__ import annotations

import html
import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd

from topicsup import summaries, views
from topicsup import validation as check
from topicsup.session import Session

from .charts import FiniteChart

if TYPE_CHECKING:
    from topicsup.views import AnyChart

# the words of a representative document shown (the rest elided)
DOC_WORDS = 120
# the thread's shortest wait between two looks at the session (refresh_seconds=0 included)
MIN_WAIT = 0.05
LAMBDA = 0.6          # the relevance slider's start (pyLDAvis's suggestion)
# sizes that put two panels side by side in a notebook at 1280 px (the rows wrap if narrower)
FOREST_WIDTH = 150
MAP_WIDTH, MAP_HEIGHT = 260, 230
BARS_WIDTH = 250
_LABEL = {"description_width": "initial"}
_WRAP = w.Layout(display="flex", flex_flow="row wrap", align_items="flex-start", width="100%")
_ERROR = "<span style='color:#b00'>{}</span>"


def _offline_chart(chart: AnyChart) -> FiniteChart:
    """A chart widget with the Vega libraries inlined (as the Dashboard's): no internet."""
    # no actions menu: its button would take a panel's width from the row it shares
    return FiniteChart(chart, embed_options={"actions": False},
                       layout=w.Layout(flex="0 0 auto", margin="0 16px 8px 0"))


def _placeholder(title: str, width: int) -> alt.Chart:
    """What a panel shows while there is nothing to draw (before the first sweep, say)."""
    return (alt.Chart(pd.DataFrame({"text": ["nothing to draw yet"]})).mark_text(color="#777")
            .encode(text="text:N").properties(width=width, height=40, title=title))


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _size_range(chart: alt.LayerChart) -> tuple[float, float]:
    """The circles' areas on the map (the range of views.topic_map_chart's size scale)."""
    try:
        low, high = chart.layer[0].encoding["size"]["scale"]["range"]
        return float(low), float(high)
    except (AttributeError, KeyError, TypeError, ValueError):   # drawn otherwise: a guess
        return 60.0, 2500.0


@dataclass(frozen=True)
class _Reading:
    """The session's state as the views need it, read at once under the session's lock."""

    n_sweeps: int
    running: bool
    topic_map: pd.DataFrame                 # index topic: label, share, x, y (and the class)
    terms: pd.DataFrame                     # Session.topic_terms(n_words)
    coefficients: pd.DataFrame | None       # supervised sessions
    signal: pd.DataFrame | None             # Session.signal_topics(n_topics)

    @property
    def topics(self) -> list[tuple[str, int]]:
        """(label, topic) of every topic shown, for the topic dropdown."""
        return [(str(label), int(k)) for k, label in self.topic_map["label"].items()]

    @property
    def tasks(self) -> list[str]:
        if self.coefficients is None:
            return []
        return [str(t) for t in pd.unique(self.coefficients["task"])]

    def strongest(self, task: str | None) -> int:
        """The default topic: ``task``'s strongest signal topic (the largest positive mean
        weight; else its largest weight), for no task the largest topic."""
        shown = set(self.topic_map.index)
        if task is not None and self.signal is not None:
            rows = self.signal[self.signal["task"] == task]
            rows = rows[rows["topic"].isin(shown)]
            if len(rows):
                return int(rows.sort_values("rank", kind="stable")["topic"].iloc[0])
        if task is not None and self.coefficients is not None:
            c = self.coefficients
            c = c[(c["task"] == task) & (c["kind"] == "topic") & c["index"].isin(shown)
                  & np.isfinite(c["mean"].to_numpy(dtype=float))]
            if len(c):
                return int(c.sort_values("mean", ascending=False, kind="stable")
                           ["index"].iloc[0])
        share = self.topic_map["share"].to_numpy(dtype=float)
        share = np.where(np.isfinite(share), share, -1.0)
        return int(self.topic_map.index[int(share.argmax())])


class Explorer:
    """Read a :class:`~topicsup.session.Session` class by class and topic by topic, live.

    Parameters
    ----------
    session : Session
        The chain to read; never copied, never changed (it may be sampling meanwhile).
    n_topics : int
        Topics in the chosen class's forest plot (those with the largest |mean weight|).
    n_words : int
        Words in the relevance bars.
    n_docs : int
        Representative documents shown for the chosen topic.
    refresh_seconds : float
        How often the background thread looks at ``session.n_sweeps`` (and refreshes when
        it changed): the views follow a run at most this often.

    Attributes
    ----------
    class_picker : ipywidgets.Dropdown or None
        The class (a supervised session's tasks); None for an unsupervised session.
    topic_picker : ipywidgets.Dropdown
        The topic, by label.
    forest : altair.JupyterChart or None
        The chosen class's topic weights with their intervals.
    map : altair.JupyterChart
        The intertopic distance map, the chosen topic ringed (click a circle to pick it).
    bars : altair.JupyterChart
        The chosen topic's relevance bars with the lambda slider.
    docs : ipywidgets.HTML
        The chosen topic's representative documents, coloured by topic.
    status : ipywidgets.HTML
        Sweep, what is shown, and the last error.

    Examples
    --------
    >>> Explorer(session)                    # doctest: +SKIP
    >>> ex = Explorer(session); ex.select_class("sci.space"); ex.select_topic(12)  # +SKIP
    """

    def __init__(self, session: Session, n_topics: int = 8, n_words: int = 15,
                 n_docs: int = 3, refresh_seconds: float = 2.0) -> None:
        if not isinstance(session, Session):
            raise TypeError(f"session must be a topicsup Session, got "
                            f"{type(session).__name__}")
        self.session = session
        self.n_topics = check.integer("n_topics", n_topics, low=1, high=1000)
        self.n_words = check.integer("n_words", n_words, low=1, high=1000)
        self.n_docs = check.integer("n_docs", n_docs, low=1, high=100)
        self.refresh_seconds = check.number("refresh_seconds", refresh_seconds, low=0.0,
                                            high=3600.0)
        self.supervised = bool(session.model.supervised)
        labels = session.corpus.labels
        self._classes = set(getattr(labels, "classes", ()) or ()) \
            if labels is not None and labels.kind != "real" else set()
        self._target = "response" if labels is not None and labels.kind == "real" else "class"
        self.error: BaseException | None = None
        self._lock = threading.RLock()     # one update of the views at a time
        self._syncing = False              # the pickers set by the Explorer, not a user
        self._pinned = False               # a topic picked by hand (else: the class's best)
        self._reading: _Reading | None = None
        self._cls: str | None = None
        self._topic: int | None = None
        self._lam = LAMBDA
        self._stop = threading.Event()
        self._build_widgets()
        self.refresh()
        self._thread = threading.Thread(target=self._follow, daemon=True,
                                        name="topicsup-explorer")
        self._thread.start()

    # ------------------------------------------------------------------ layout
    def _build_widgets(self) -> None:
        self.class_picker: w.Dropdown | None = None
        self.forest: FiniteChart | None = None
        controls: list[w.Widget] = []
        if self.supervised:
            self.class_picker = w.Dropdown(description=self._target, style=_LABEL,
                                           layout=w.Layout(width="240px", min_width="240px",
                                                           margin="2px 16px 2px 0"))
            self.class_picker.add_class("topicsup-explorer-class")
            self.class_picker.observe(self._on_class, names="value")
            controls.append(self.class_picker)
        self.topic_picker = w.Dropdown(description="topic", style=_LABEL,
                                       layout=w.Layout(width="380px", min_width="240px",
                                                       margin="2px 16px 2px 0"))
        self.topic_picker.add_class("topicsup-explorer-topic")
        self.topic_picker.observe(self._on_topic, names="value")
        controls.append(self.topic_picker)
        self.status = w.HTML(layout=w.Layout(margin="2px 0"))
        self.status.add_class("topicsup-explorer-status")
        if self.supervised:
            self.forest = _offline_chart(_placeholder("topic weights", FOREST_WIDTH))
            self.forest.add_class("topicsup-explorer-forest")
        self.map = _offline_chart(_placeholder("intertopic distance map", MAP_WIDTH))
        self.map.add_class("topicsup-explorer-map")
        self.map.observe(self._on_map_click, names="_vl_selections")
        self.bars = _offline_chart(_placeholder("relevant words", BARS_WIDTH))
        self.bars.add_class("topicsup-explorer-bars")
        self.bars.observe(self._on_lambda, names="_params")
        self.docs = w.HTML(layout=w.Layout(flex="1 1 340px", min_width="280px",
                                           max_width="640px", margin="0 0 8px 0"))
        self.docs.add_class("topicsup-explorer-docs")
        # supervised: class -> its topics beside the map; then the topic's words and documents
        first = [self.forest, self.map] if self.forest is not None else [self.map]
        self.widget = w.VBox([
            w.HBox(controls, layout=w.Layout(display="flex", flex_flow="row wrap",
                                             align_items="center", width="100%")),
            self.status,
            w.HBox(first, layout=_WRAP),
            w.HBox([self.bars, self.docs], layout=_WRAP),
        ], layout=w.Layout(width="100%", overflow="hidden"))
        self.widget.add_class("topicsup-explorer")

    # ------------------------------------------------------------------ what is shown
    @property
    def cls(self) -> str | None:
        """The chosen class (task); None for an unsupervised session."""
        return self._cls

    @property
    def topic(self) -> int | None:
        """The chosen topic's number."""
        return self._topic

    @property
    def lam(self) -> float:
        """The relevance lambda the bars show (the slider's value, kept across topics)."""
        return self._lam

    def select_class(self, cls: str) -> None:
        """Show class ``cls``: its forest plot, and its strongest signal topic."""
        with self._lock:
            reading = self._need_reading()
            if not self.supervised:
                raise ValueError("an unsupervised session has no classes")
            if cls not in reading.tasks:
                raise ValueError(f"cls must be one of {reading.tasks[:10]}, got {cls!r}")
            self._cls = cls
            self._pinned = False
            self._topic = reading.strongest(cls)
            self._show(reading)

    def select_topic(self, topic: int | str) -> None:
        """Show ``topic`` (number or label): its bars, its ring on the map, its documents.
        It stays shown through refreshes until another class is picked."""
        with self._lock:
            reading = self._need_reading()
            topics = reading.topics
            if isinstance(topic, str):
                by_label = dict(topics)
                if topic not in by_label:
                    raise ValueError(f"topic {topic!r} is no topic's label")
                k = by_label[topic]
            else:
                k = check.integer("topic", topic, low=0)
                if k not in {t for _, t in topics}:
                    raise ValueError(f"topic {k} is not shown (topics "
                                     f"{[t for _, t in topics][:10]})")
            self._topic = k
            self._pinned = True
            self._show(reading, forest=False)

    def _need_reading(self) -> _Reading:
        if self._reading is None:
            self.refresh()
        if self._reading is None:   # refresh failed: its error is in the status line
            raise RuntimeError("the session could not be read") from self.error
        return self._reading

    # ------------------------------------------------------------------ refresh
    def _read(self) -> _Reading:
        s = self.session
        with s.locked():   # every part from the same state
            coefs = s.coefficients() if self.supervised else None
            signal = s.signal_topics(self.n_topics) if self.supervised else None
            return _Reading(n_sweeps=int(s.n_sweeps), running=bool(s.running),
                            topic_map=s.readout(summaries.topic_map),
                            terms=s.topic_terms(self.n_words), coefficients=coefs,
                            signal=signal)

    def refresh(self) -> None:
        """Recompute every view from the session's current state (the thread does this when
        ``session.n_sweeps`` changes). An error goes to the status line."""
        with self._lock:
            try:
                reading = self._read()
                self._reading = reading
                if self.supervised:
                    tasks = reading.tasks
                    if self._cls not in tasks:
                        self._cls, self._pinned = (tasks[0] if tasks else None), False
                shown = {k for _, k in reading.topics}
                if not self._pinned or self._topic not in shown:
                    self._topic, self._pinned = reading.strongest(self._cls), False
                self.error = None
                self._show(reading)
            except Exception as e:   # shown: the thread has no output, callbacks none seen
                self._fail(e)

    def _follow(self) -> None:
        """The background thread: refresh when the session has swept since the last one."""
        while not self._stop.wait(max(self.refresh_seconds, MIN_WAIT)):
            try:
                reading = self._reading
                if reading is None or self.session.n_sweeps != reading.n_sweeps \
                        or (reading.running and not self.session.running):
                    self.refresh()
            except Exception as e:   # never raise (nor print) in the thread
                self._fail(e)

    def close(self) -> None:
        """Stop following the session (the thread ends; the views stay, and ``refresh()``
        still updates them by hand)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    @property
    def following(self) -> bool:
        """True while the background thread follows the session."""
        return self._thread.is_alive()

    # ------------------------------------------------------------------ views
    def _show(self, reading: _Reading, forest: bool = True) -> None:
        """Set every widget from ``reading`` and the current choices."""
        self._sync_pickers(reading)
        if forest and self.forest is not None:
            self.forest.chart = self._forest_chart(reading)
        self.map.chart = self._map_chart(reading)
        self.bars.chart = self._bars_chart(reading)
        self.docs.value = self._docs_html()
        self.status.value = self._status_html(reading)

    def _sync_pickers(self, reading: _Reading) -> None:
        self._syncing = True
        try:
            if self.class_picker is not None:
                tasks = reading.tasks
                if list(self.class_picker.options) != tasks:
                    self.class_picker.options = tasks
                if self._cls is not None and self.class_picker.value != self._cls:
                    self.class_picker.value = self._cls
            topics = reading.topics
            if [tuple(o) for o in self.topic_picker.options] != topics:
                self.topic_picker.options = topics
            if self._topic is not None and self.topic_picker.value != self._topic:
                self.topic_picker.value = self._topic
        finally:
            self._syncing = False

    def _forest_chart(self, reading: _Reading) -> AnyChart:
        if reading.coefficients is None or self._cls is None:
            return _placeholder("topic weights", FOREST_WIDTH)
        try:
            chart = views.forest_chart(reading.coefficients, task=self._cls, top=self.n_topics,
                                       width=FOREST_WIDTH, target=self._target)
        except ValueError:   # no finite weight yet
            return _placeholder(f"topic weights: {self._cls}", FOREST_WIDTH)
        return chart.properties(title=alt.TitleParams(
            f"{self._cls}: topic weights", subtitle="credible intervals, red: excludes 0",
            anchor="start")).configure_legend(orient="bottom")

    def _map_chart(self, reading: _Reading) -> AnyChart:
        try:
            chart = views.topic_map_chart(reading.topic_map, width=MAP_WIDTH,
                                          height=MAP_HEIGHT)
        except ValueError:   # non-finite coordinates (no tokens yet)
            return _placeholder("intertopic distance map", MAP_WIDTH)
        if not isinstance(chart, alt.LayerChart):   # views' map alone is a layer
            return chart
        k = self._topic
        tm = reading.topic_map
        if k is not None and k in tm.index:
            params = chart.params if isinstance(chart.params, list) else []
            for param in params:
                if getattr(param, "name", None) == "picked_topic":
                    param.value = [{"topic": k}]   # the views' own highlight, on this topic
            row = tm.loc[k]
            # a ring just outside the topic's circle (its area on the views' size scale)
            share = np.asarray(tm["share"], dtype=float)
            top = float(np.nanmax(share)) if np.isfinite(share).any() else 0.0
            s = float(row["share"]) if _finite(row["share"]) else 0.0
            low, high = _size_range(chart)
            area = low + (high - low) * (s / top if top > 0 else 0.0)
            ring = (alt.Chart(pd.DataFrame({"x": [float(row["x"])], "y": [float(row["y"])],
                                            "label": [str(row["label"])]}))
                    .mark_point(shape="circle", filled=False, color="#111", strokeWidth=2.5,
                                size=(math.sqrt(area) + 12.0) ** 2)
                    .encode(x="x:Q", y="y:Q", tooltip=[alt.Tooltip("label:N",
                                                                   title="shown topic")]))
            chart.layer = [*chart.layer, ring]
        subtitle = ["area: its share of the tokens; ringed: the shown topic",
                    "(click a circle to show another)"]
        if self.supervised:
            subtitle.insert(0, "colour: the class a topic drives most")
        return chart.properties(title=alt.TitleParams("Intertopic distance map",
                                                      subtitle=subtitle, anchor="start"))

    def _bars_chart(self, reading: _Reading) -> AnyChart:
        k = self._topic
        terms = reading.terms
        if k is None or terms.empty or k not in set(terms["topic"]):
            return _placeholder("relevant words", BARS_WIDTH)
        try:
            chart = views.relevance_chart(terms, topic=k, n_words=self.n_words,
                                          lam=self._lam, width=BARS_WIDTH)
        except ValueError:
            return _placeholder("relevant words", BARS_WIDTH)
        label = str(reading.topic_map["label"].get(k, k))
        return chart.properties(title=alt.TitleParams(
            f"Relevant words: {label}", subtitle="grey: tokens in the corpus, red: in the topic",
            anchor="start", limit=BARS_WIDTH + 120))

    def _docs_html(self) -> str:
        k = self._topic
        if k is None:
            return ""
        cls = self._cls if self._cls in self._classes else None
        docs = self.session.representative_docs(k, self.n_docs, cls=cls, n_words=DOC_WORDS)
        among = f" among the documents of {html.escape(cls)}" if cls is not None else ""
        head = (f"<div style='font-weight:bold;margin:0 0 4px 0'>Representative documents"
                f"{among}</div>")
        if docs.empty:
            return (f"<div class='topicsup-explorer-documents'>{head}"
                    f"<i>no document{among} has a token of this topic</i></div>")
        cards = []
        for row in docs.itertuples(index=False):
            share = f"{row.share:.0%} of it" if _finite(row.share) else "share unknown"
            facts = [f"#{row.rank}", f"document {row.doc}",
                     f"topic {k}: {share} ({row.topic_tokens} of {row.n_tokens} tokens)"]
            if "classes" in docs.columns:
                facts.append(f"class {html.escape(str(row.classes))}")
            cards.append(
                "<div class='topicsup-explorer-doc' style='border-top:1px solid #ddd;"
                "padding:4px 0 6px 0'><div style='color:#555;font-size:90%'>"
                + " &middot; ".join(facts) + f"</div>{row.html}</div>")
        return ("<div class='topicsup-explorer-documents' style='overflow-wrap:anywhere'>"
                + head + "".join(cards) + "</div>")

    def _status_html(self, reading: _Reading | None) -> str:
        parts: list[str] = []
        if reading is not None:
            parts.append(f"<b>sweep {reading.n_sweeps}</b>")
            if self._cls is not None:
                parts.append(f"{self._target} {html.escape(self._cls)}")
            if self._topic is not None:
                label = reading.topic_map["label"].get(self._topic, self._topic)
                how = "picked" if self._pinned else (
                    "its strongest" if self._cls is not None else "the largest")
                parts.append(f"topic {html.escape(str(label))} ({how})")
            parts.append("<i>session running</i>" if reading.running else "<i>idle</i>")
        if self.error is not None:
            parts.append(_ERROR.format(f"error: {type(self.error).__name__}: "
                                       f"{html.escape(str(self.error))}"))
        return " &middot; ".join(parts)

    def _fail(self, e: BaseException) -> None:
        """An error: kept and shown in the status line (the views stay as they were)."""
        self.error = e
        try:
            self.status.value = self._status_html(self._reading)
        except Exception:   # the status line itself failed: the bare error
            self.status.value = _ERROR.format(html.escape(f"{type(e).__name__}: {e}"))

    # ------------------------------------------------------------------ callbacks
    def _guarded(self, action: Any, *args: Any) -> None:
        try:
            action(*args)
        except Exception as e:
            self._fail(e)

    def _on_class(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] is not None and change["new"] != self._cls:
            self._guarded(self.select_class, change["new"])

    def _on_topic(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] is not None and change["new"] != self._topic:
            self._guarded(self.select_topic, change["new"])

    def _on_map_click(self, change: dict[str, Any]) -> None:
        """A circle clicked on the map: its topic is shown (an empty click changes nothing)."""
        if self._syncing:
            return
        value = (change["new"] or {}).get("picked_topic", {}).get("value")
        points = value.get("vlPoint", {}).get("or", []) if isinstance(value, dict) else []
        if len(points) == 1 and isinstance(points[0], dict):
            topic = points[0].get("topic")
            if isinstance(topic, (int, float)) and _finite(topic) and int(topic) != self._topic:
                self._guarded(self.select_topic, int(topic))

    def _on_lambda(self, change: dict[str, Any]) -> None:
        """The slider moved: kept for the next topic's bars."""
        lam: Any = (change["new"] or {}).get("relevance_lambda")
        if _finite(lam) and 0.0 <= float(lam) <= 1.0:
            self._lam = float(lam)

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
