"""Explorer: class -> its signal topics -> a topic's words, map and documents, live.

Unit tests drive the widget from Python on a small supervised session (and an LDA one); the
last test drives it in a real JupyterLab in Chromium through its dropdowns and the lambda
slider, with screenshots at 1280x900 (into ``$TOPICSUP_SCREENSHOTS`` if set)."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.widgets import Explorer

from ..testing.threads import run_in_thread
from .test_browser import browser_page, lab, open_and_run  # noqa: F401

SWEEPS = 20
NEVER = 3600.0   # refresh_seconds of an Explorer whose thread must not act during a test


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=200, n_topics=6, task="multiclass", n_classes=3,
                          seed=1).corpus


@pytest.fixture()
def session(corpus):
    s = Session(LightMedLDA(K=6), corpus, seed=0)
    s.run(SWEEPS)
    return s


@pytest.fixture()
def explorer(session):
    ex = Explorer(session, refresh_seconds=NEVER)
    yield ex
    ex.close()


def _data(jchart) -> list[dict]:
    """Every row of every dataset of a JupyterChart's spec (checked to be NaN-free JSON)."""
    spec = jchart.chart.to_dict()
    json.dumps(spec, allow_nan=False)   # no NaN reaches a chart
    return [row for rows in spec.get("datasets", {}).values() for row in rows]


def _param(jchart, name: str):
    return next(p for p in jchart.chart.to_dict().get("params", []) if p["name"] == name)


def _other(options, current):
    return next(o for o in options if o != current)


def _clean(ex: Explorer) -> None:
    for chart in (ex.forest, ex.map, ex.bars):
        if chart is not None:
            _data(chart)
    for text in (ex.docs.value, ex.status.value):
        assert not re.search(r"\bnan\b", text, re.IGNORECASE), text
    assert ex.error is None, ex.error


def test_class_pick_changes_the_forest_and_the_default_topic(explorer, session):
    ex = explorer
    classes = list(session.corpus.labels.classes)
    assert ex.class_picker is not None and list(ex.class_picker.options) == classes
    assert ex.cls == classes[0] and ex.class_picker.value == classes[0]
    sig = session.signal_topics(8)
    best = {c: int(sig[sig["task"] == c].sort_values("rank")["topic"].iloc[0]) for c in classes}
    assert ex.topic == best[classes[0]] and ex.topic_picker.value == ex.topic
    assert {r["task"] for r in _data(ex.forest)} == {classes[0]}
    # another class whose strongest topic differs, picked in the dropdown (as a user does)
    other = next(c for c in classes[1:] if best[c] != best[classes[0]])
    before = ex.docs.value
    ex.class_picker.value = other
    assert ex.cls == other and {r["task"] for r in _data(ex.forest)} == {other}
    assert ex.topic == best[other] and ex.topic_picker.value == best[other]
    assert {r["topic"] for r in _data(ex.bars)} == {best[other]}
    assert ex.docs.value != before and f"documents of {other}" in ex.docs.value
    # the documents are the class's own
    shown = session.representative_docs(best[other], 3, cls=other)
    for doc in shown["doc"]:
        assert f"document {doc}" in ex.docs.value
    assert f"class {other}" in ex.status.value and "its strongest" in ex.status.value
    _clean(ex)
    with pytest.raises(ValueError, match="cls must be one of"):
        ex.select_class("no such class")


def test_topic_pick_changes_bars_map_and_documents(explorer, session):
    ex = explorer
    first = ex.topic
    other = _other([k for _, k in ex.topic_picker.options], first)
    docs, bars = ex.docs.value, ex.bars.chart.to_dict()
    ex.topic_picker.value = other
    assert ex.topic == other
    assert {r["topic"] for r in _data(ex.bars)} == {other} and ex.bars.chart.to_dict() != bars
    assert session.topic_labels()[other] in json.dumps(ex.bars.chart.to_dict()["title"])
    assert ex.docs.value != docs
    expect = session.representative_docs(other, 3, cls=ex.cls)
    for frag in expect["html"]:
        assert frag in ex.docs.value
    # the map: the views' own highlight on this topic, and a ring at its place
    assert _param(ex.map, "picked_topic")["value"] == [{"topic": other}]
    tm = ex._reading.topic_map
    ring = [r for r in _data(ex.map) if set(r) == {"x", "y", "label"}]
    assert ring == [{"x": tm.loc[other, "x"], "y": tm.loc[other, "y"],
                     "label": tm.loc[other, "label"]}]
    assert "(picked)" in ex.status.value
    # by label too; a picked topic stays through a refresh
    label = session.topic_labels()[first]
    ex.select_topic(label)
    assert ex.topic == first
    ex.refresh()
    assert ex.topic == first and "(picked)" in ex.status.value
    _clean(ex)
    with pytest.raises(ValueError):
        ex.select_topic(99)


def test_map_click_and_the_lambda_slider(explorer):
    """What the browser sends: a click on a circle picks its topic; the slider's lambda is
    kept for the next topic's bars."""
    ex = explorer
    other = _other([k for _, k in ex.topic_picker.options], ex.topic)
    ex.map._vl_selections = {"picked_topic": {"value": {"vlPoint": {"or": [{"topic": other}]}},
                                              "store": []}}
    assert ex.topic == other and ex.topic_picker.value == other
    ex.map._vl_selections = {"picked_topic": {"value": None, "store": []}}   # empty click
    assert ex.topic == other
    ex.bars._params = {"relevance_lambda": 0.2}
    assert ex.lam == 0.2
    ex.select_topic(_other([k for _, k in ex.topic_picker.options], other))
    assert _param(ex.bars, "relevance_lambda")["value"] == 0.2
    ex.bars._params = {"relevance_lambda": float("nan")}   # never taken
    assert ex.lam == 0.2
    _clean(ex)


def test_refresh_follows_more_sweeps(explorer, session):
    ex = explorer
    forest = _data(ex.forest)
    assert f"sweep {SWEEPS}" in ex.status.value
    session.run(10)
    assert f"sweep {SWEEPS}" in ex.status.value      # the thread waits an hour: not yet
    ex.refresh()
    assert f"sweep {SWEEPS + 10}" in ex.status.value
    assert _data(ex.forest) != forest
    _clean(ex)


def test_thread_follows_a_run_in_another_thread(session):
    """Mid-run, the thread shows a sweep of the run (the run waits for it at sweep 25 from its
    callback, outside the session's lock), and after it the final one, idle."""
    ex = Explorer(session, refresh_seconds=0.05)
    shown_mid, shown_end = threading.Event(), threading.Event()
    refresh = ex.refresh

    def spy() -> None:   # the thread calls ex.refresh
        refresh()
        r = ex._reading
        if r is not None and r.running and r.n_sweeps >= SWEEPS + 5:
            shown_mid.set()
        if r is not None and not r.running and r.n_sweeps == SWEEPS + 30:
            shown_end.set()
    ex.refresh = spy

    def callback(s) -> None:
        if s.n_sweeps == SWEEPS + 5:
            shown_mid.wait()
    try:
        t = threading.Thread(target=lambda: session.run(30, callback=callback))
        t.start()
        t.join()
        shown_end.wait()
        assert f"sweep {SWEEPS + 30}" in ex.status.value and "idle" in ex.status.value
        _clean(ex)
    finally:
        ex.close()


def test_close_stops_the_thread(session):
    ex = Explorer(session, refresh_seconds=0.05)
    assert ex.following
    ex.close()
    assert not ex.following
    t, outcome, _ = run_in_thread(session, 3)
    t.join()
    assert outcome["done"] == 3
    assert f"sweep {SWEEPS}" in ex.status.value      # no longer followed
    ex.refresh()                                     # by hand still
    assert f"sweep {SWEEPS + 3}" in ex.status.value
    ex.close()                                       # twice is fine


def test_unsupervised_session_starts_at_the_map(corpus):
    s = Session(LDA(K=5), corpus, seed=2)
    s.run(10)
    ex = Explorer(s, refresh_seconds=NEVER)
    try:
        assert ex.class_picker is None and ex.forest is None and ex.cls is None
        children = ex.widget.children
        assert children[2].children == (ex.map,)          # the map comes first
        share = s.topics()["share"].to_numpy()
        assert ex.topic == int(np.argmax(share))          # the largest topic
        assert "among the documents" not in ex.docs.value
        other = _other([k for _, k in ex.topic_picker.options], ex.topic)
        ex.topic_picker.value = other
        assert {r["topic"] for r in _data(ex.bars)} == {other}
        assert _param(ex.map, "picked_topic")["value"] == [{"topic": other}]
        with pytest.raises(ValueError, match="no classes"):
            ex.select_class("class_0")
        _clean(ex)
    finally:
        ex.close()


def test_fresh_session_and_errors_go_to_the_status_line(corpus, monkeypatch):
    s = Session(LightMedLDA(K=6), corpus, seed=0)        # no sweep yet
    ex = Explorer(s, refresh_seconds=NEVER)
    try:
        assert "sweep 0" in ex.status.value and ex.topic is not None
        _clean(ex)

        def broken(*args, **kwargs):
            raise RuntimeError("no documents today")
        monkeypatch.setattr(s, "representative_docs", broken)
        other = _other([k for _, k in ex.topic_picker.options], ex.topic)
        ex.topic_picker.value = other                    # a callback: nothing raised
        assert "RuntimeError: no documents today" in ex.status.value
        assert isinstance(ex.error, RuntimeError)
        monkeypatch.undo()
        ex.refresh()                                     # the next refresh retries
        assert ex.error is None and "error" not in ex.status.value
    finally:
        ex.close()


def test_rejects_what_is_not_a_session():
    with pytest.raises(TypeError, match="Session"):
        Explorer("a session")


# ---------------------------------------------------------------------- in a real browser
NOTEBOOK_CELLS = [
    """from topicsup.corpus import Corpus
from topicsup.models import LightMedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.widgets import Explorer
syn = make_synthetic(n_docs=200, n_topics=6, task="multiclass", n_classes=3, seed=1).corpus
# the documents as an analyst's texts (markup and punctuation, no new words), kept: the
# Explorer shows them as written, escaped, the topic's words marked
texts = [f"{d}) " + " ".join(syn.document(d)).capitalize() + "; <b>&</b>!"
         for d in range(syn.n_docs)]
corpus = Corpus.from_texts(texts, labels=syn.labels.names(), keep_texts=True)
s = Session(LightMedLDA(K=6), corpus, seed=0)
s.run(20)""",
    "ex = Explorer(s, refresh_seconds=0.5)\nex",
]

# everything of the explorer that a reader must see whole: right edges against the output
# area's, and whether anything scrolls sideways
LAYOUT = """() => {
  const ex = document.querySelector('.topicsup-explorer');
  const area = ex.closest('.jp-OutputArea-output') || ex.parentElement;
  const edge = area.getBoundingClientRect().right;
  const parts = [...ex.querySelectorAll('.vega-embed svg, .vega-bindings, select, '
                                        + '.topicsup-explorer-docs, .topicsup-explorer-status')]
    .map(e => ({cls: e.className.baseVal !== undefined ? 'svg' : e.className,
                right: e.getBoundingClientRect().right, width: e.getBoundingClientRect().width}));
  const scrollers = [...document.querySelectorAll('.jp-WindowedPanel-outer, .jp-Notebook, '
                                                  + '.jp-OutputArea-output')]
    .filter(e => e.scrollWidth > e.clientWidth + 2).map(e => e.className);
  return {edge: edge, parts: parts, scrollers: scrollers,
          page: document.scrollingElement.scrollWidth}; }"""

# the topic (other than the one shown) whose circle lies farthest from the others' centres,
# so that a click on its centre hits it
CIRCLE = """shown => {
  const circles = [...document.querySelectorAll(
      '.topicsup-explorer-map svg path[aria-label*="; topic: "]')].map(p => {
    const r = p.getBoundingClientRect();
    return {topic: /; topic: (\\d+);/.exec(p.getAttribute('aria-label'))[1],
            x: r.left + r.width / 2, y: r.top + r.height / 2}; });
  let best = null, far = -1;
  for (const c of circles) {
    if (c.topic === shown) continue;
    const d = Math.min(...circles.filter(o => o !== c)
                                 .map(o => Math.hypot(o.x - c.x, o.y - c.y)));
    if (d > far) { far = d; best = c.topic; }
  }
  return best; }"""

SVG_TEXT = """sel => { const e = document.querySelector(sel);
  return e ? [...e.querySelectorAll('svg text')].map(t => t.textContent).join('|') : ''; }"""


def _check_layout(page) -> None:
    got = page.evaluate(LAYOUT)
    assert got["page"] <= 1280 + 2, f"the page scrolls sideways: {got['page']} px"
    assert not got["scrollers"], f"these scroll sideways: {got['scrollers']}"
    for p in got["parts"]:
        assert p["width"] > 10 and p["right"] <= got["edge"] + 1, \
            f"{p['cls']} runs past the output area ({p['right']} > {got['edge']})"


def _shot(page, part, path: Path) -> None:
    """A screenshot of the page (1280x900) with ``part`` of the explorer at the top."""
    part.first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(path))


def test_explorer_in_jupyterlab(lab, chromium, tmp_path):  # noqa: F811 - lab is a fixture
    nbformat = pytest.importorskip("nbformat")
    shots = Path(os.environ.get("TOPICSUP_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS],
        metadata={"kernelspec": {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}})   # else JupyterLab asks which kernel
    nbformat.write(nb, tmp_path / "lab" / "explorer.ipynb")   # the lab fixture's root
    with browser_page(chromium, 900) as page:
        try:
            open_and_run(page, lab, "explorer.ipynb")
            ex = page.locator(".topicsup-explorer").first
            # forest, map and bars drawn (Vega inlined: no internet), the documents shown
            page.wait_for_function("() => document.querySelectorAll("
                                   "'.topicsup-explorer .vega-embed svg .mark-rect, "
                                   ".topicsup-explorer .vega-embed svg .mark-symbol')"
                                   ".length >= 3")
            page.wait_for_function("() => document.querySelectorAll("
                                   "'.topicsup-explorer-doc').length === 3")
            ex.scroll_into_view_if_needed()
            # the kept texts as written (the markup shown, not applied), the words marked
            doc = page.locator(".topicsup-explorer-doc").first
            assert "; <b>&</b>!" in doc.inner_text()
            assert doc.locator("span[data-topic]").count() > 3
            status = page.locator(".topicsup-explorer-status")
            assert "sweep 20" in status.inner_text() and "class class_0" in status.inner_text()
            _check_layout(page)
            top = page.locator(".topicsup-explorer-class")
            bottom = page.locator(".topicsup-explorer-bars")
            _shot(page, top, shots / "explorer-1-start.png")
            _shot(page, bottom, shots / "explorer-1-start-words.png")
            _shot(page, page.locator(".topicsup-explorer-docs"), shots / "explorer-1-texts.png")

            # another class: its forest, its strongest topic, its documents
            docs = page.locator(".topicsup-explorer-docs")
            before_docs = docs.inner_text()
            page.locator(".topicsup-explorer-class select").select_option("class_2")
            page.wait_for_function("sel => (" + SVG_TEXT + ")(sel).includes('class_2')",
                                   arg=".topicsup-explorer-forest")
            page.wait_for_function("t => document.querySelector('.topicsup-explorer-docs')"
                                   ".innerText !== t", arg=before_docs)
            assert "documents of class_2" in docs.inner_text()
            page.wait_for_function("() => document.querySelector('.topicsup-explorer-status')"
                                   ".innerText.includes('class class_2')")
            _check_layout(page)
            _shot(page, top, shots / "explorer-2-class.png")

            # another topic: its bars, its documents
            topic_select = page.locator(".topicsup-explorer-topic select")
            current = topic_select.evaluate("s => s.options[s.selectedIndex].text")
            # ipywidgets shows an option's spaces as no-break spaces
            labels = topic_select.evaluate("s => [...s.options].map(o => o.text)")
            other = next(t for t in labels if t != current)
            before_docs, before_bars = docs.inner_text(), page.evaluate(
                SVG_TEXT, ".topicsup-explorer-bars")
            topic_select.select_option(label=other)
            page.wait_for_function("a => (" + SVG_TEXT + ")(a[0]).includes(a[1])",
                                   arg=[".topicsup-explorer-bars", other.replace("\xa0", " ")])
            page.wait_for_function("t => document.querySelector('.topicsup-explorer-docs')"
                                   ".innerText !== t", arg=before_docs)
            assert page.evaluate(SVG_TEXT, ".topicsup-explorer-bars") != before_bars
            page.wait_for_function("() => document.querySelector('.topicsup-explorer-status')"
                                   ".innerText.includes('(picked)')")
            _shot(page, bottom, shots / "explorer-3-topic.png")

            # the lambda slider: the bars re-rank in the browser
            slider = page.locator(".topicsup-explorer-bars input[type=range]")
            words = page.evaluate(SVG_TEXT, ".topicsup-explorer-bars")
            slider.focus()
            slider.press("Home")                         # lambda 0: ranked by lift alone
            page.wait_for_function("w => (" + SVG_TEXT + ")('.topicsup-explorer-bars') !== w",
                                   arg=words)
            assert float(slider.input_value()) == 0.0
            _check_layout(page)
            _shot(page, bottom, shots / "explorer-4-lambda.png")

            # the slider's lambda is kept for the next topic (the kernel heard it)
            third = next(t for t in labels if t not in (current, other))
            topic_select.select_option(label=third)
            page.wait_for_function("a => (" + SVG_TEXT + ")(a[0]).includes(a[1])",
                                   arg=[".topicsup-explorer-bars", third.replace("\xa0", " ")])
            assert float(page.locator(".topicsup-explorer-bars input[type=range]")
                         .input_value()) == 0.0
            assert not re.search(r"\bnan\b", ex.inner_text(), re.IGNORECASE)

            # a click on a circle of the map shows its topic (the kernel hears the selection)
            current = topic_select.evaluate("s => s.options[s.selectedIndex].text")
            target = page.evaluate(CIRCLE, current.split(":")[0])
            # at the circle's centre, where its number is drawn on top (as a user clicks it)
            circle = page.locator(".topicsup-explorer-map svg path[aria-label*='; topic: "
                                  f"{target}; label:']").first
            circle.scroll_into_view_if_needed()
            box = circle.bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_function("t => { const s = document.querySelector("
                                   "'.topicsup-explorer-topic select');"
                                   "return s.options[s.selectedIndex].text.startsWith(t); }",
                                   arg=f"{target}:")
            page.wait_for_function("a => (" + SVG_TEXT + ")(a[0]).includes(a[1])",
                                   arg=[".topicsup-explorer-bars", f"Relevant words: {target}:"])
            _shot(page, top, shots / "explorer-5-map-click.png")

            # live: a run in a thread of the kernel; the Explorer's thread shows its end
            page.evaluate("""() => window.jupyterapp.shell.currentWidget.sessionContext.session
              .kernel.requestExecute({code: 'import threading\\n'
                + 'threading.Thread(target=s.run, args=(30,), daemon=True).start()'})""")
            page.wait_for_function("() => { const t = document.querySelector("
                                   "'.topicsup-explorer-status').innerText;"
                                   "return t.includes('sweep 50') && t.includes('idle'); }")
            assert f"topic {target}:" in status.inner_text()     # picked: it stays
            _check_layout(page)
        except Exception:
            page.screenshot(path=str(shots / "explorer-failure.png"), full_page=True)
            raise
