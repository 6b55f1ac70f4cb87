"""InspectorWidget without a browser: the buttons step the inspector, and the coloured
tokens, the description, the status line and the chart follow its records."""

from __future__ import annotations

import html
import math
import re

import ipywidgets as ipw
import numpy as np
import pytest

from topicsup.datasets import make_synthetic
from topicsup.inspector import TokenInspector, topic_colours
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session
from topicsup.widgets.inspector import InspectorWidget

SPAN = re.compile(r'<span class="([^"]*)" data-position="(\d+)" data-topic="(\d+)"[^>]*'
                  r'background:(#[0-9a-f]{6})[^>]*>([^<]*)<sub>')


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=30, n_topics=4, doc_length=25, seed=2).corpus


def _spans(widget):
    return [(cls.split(), int(pos), int(topic), colour, html.unescape(word))
            for cls, pos, topic, colour, word in SPAN.findall(widget.tokens.value)]


def _chart_rows(widget):
    spec = widget.chart.chart.to_dict()
    return next(iter(spec["datasets"].values()))


def test_buttons_step_and_the_views_follow_the_records(corpus):
    """Step token, Step 10 and Finish document step 1, 10 and the rest of the tokens; after
    each click the spans carry the state's topics in the topics' colours with the last and
    next tokens marked, the description is the last record's, the status counts the
    acceptances of the info record and the chart holds the last record's distributions."""
    s = Session(LightMedLDA(K=5), corpus, seed=1)
    s.run(2)
    wd = InspectorWidget(s, doc=2)
    insp, colours = wd.inspector, topic_colours(5)
    N = insp.n_tokens
    spans = _spans(wd)
    assert [sp[4] for sp in spans] == s.corpus.document(2)
    assert [sp[1] for sp in spans if "topicsup-next" in sp[0]] == [0]
    assert "to resample token 0" in wd.description.value
    assert len(_chart_rows(wd)) == 5 * 4          # K topics x (exact, doc, word, exp)

    def check(expected_records):
        assert len(insp.records) == expected_records
        rec = insp.last
        spans = _spans(wd)
        topics = s.state.z[s.corpus.doc_ptr[2]:s.corpus.doc_ptr[3]]
        assert [sp[2] for sp in spans] == topics.tolist()
        assert all(sp[3] == colours[sp[2]] for sp in spans)
        assert [sp[1] for sp in spans if "topicsup-last" in sp[0]] == [rec.position]
        assert f"<b>Token {rec.position}, {html.escape(repr(rec.word))}</b>" in \
            wd.description.value
        assert f"Now at topic <b>{rec.new_topic}</b>" in wd.description.value
        assert wd.description.value.count("class='topicsup-steps'") == 1   # the last in full
        rows = _chart_rows(wd)
        table = rec.conditional_table(tidy=True)
        got = {(r["topic"], r["distribution"]): r["probability"] for r in rows}
        want = {(t, d): p for t, d, p in table.itertuples(index=False)}
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[k] for k in want], list(want.values()))
        assert f"topic {rec.old_topic} → {rec.new_topic}" in wd.chart.chart.to_dict()["title"]
        made = insp.info[2]
        assert f"doc proposals: {int(insp.info[3])} of {int(made)} accepted" in wd.status.value

    wd.step_button.click()
    check(1)
    assert "min(1, " in wd.description.value and "<details" not in wd.description.value
    assert [sp[1] for sp in _spans(wd) if "topicsup-next" in sp[0]] == [1]
    wd.step10_button.click()
    check(11)
    assert "the 9 tokens stepped before it" in wd.description.value   # collapsed
    assert wd.description.layout.max_height and wd.description.layout.overflow == "auto"
    assert [sp[1] for sp in _spans(wd) if "topicsup-next" in sp[0]] == [11]
    wd.finish_button.click()
    check(N)
    assert insp.done and "finished" in wd.status.value
    insp.check_state()


def test_gibbs_widget_tells_the_exact_draw(corpus):
    s = Session(LDA(K=4), corpus, seed=3)
    wd = InspectorWidget(s, doc=0, seed=2)
    wd.step_button.click()
    rec = wd.inspector.last
    assert "from the exact conditional" in wd.description.value
    assert {r["distribution"] for r in _chart_rows(wd)} == {"exact", "proposal_conditional"}
    assert rec.steps[0].kind == "conditional"


def test_many_topics_chart_keeps_the_largest(corpus):
    s = Session(LDA(K=60, sampler="light"), corpus, seed=3)
    wd = InspectorWidget(s, doc=1, max_topics=8)
    wd.step_button.click()
    assert len({r["topic"] for r in _chart_rows(wd)}) == 8
    assert len(set(sp[3] for sp in _spans(wd))) == len(set(sp[2] for sp in _spans(wd)))


def test_a_refused_step_is_shown_in_the_status_line(corpus):
    """Inside an LDA initialisation the inspector refuses to step; ipywidgets would swallow
    the error in a button callback, so the widget shows it in its status line, and steps once
    the supervised sweeps have begun."""
    labelled = make_synthetic(n_docs=30, n_topics=4, doc_length=25, task="binary",
                              seed=2).corpus
    s = Session(LightMedLDA(K=4, lam=2.0, lda_init_sweeps=1), labelled, seed=0)
    widget = InspectorWidget(s, 0)
    widget.step_button.click()
    assert "LDA initialisation" in widget.status.value and "#b00" in widget.status.value
    assert widget.inspector.records == []
    s.run(1)
    widget.step_button.click()
    assert len(widget.inspector.records) == 1
    assert "#b00" not in widget.status.value


def test_the_document_picker_opens_another_document(corpus):
    """Setting the picker inspects that document (tokens, status and chart follow); an empty
    document is refused in the status line and the picker returns to the current one."""
    from topicsup import Corpus
    s = Session(LDA(K=4, sampler="light"), corpus, seed=3)
    widget = InspectorWidget(s, doc=0)
    widget.step_button.click()
    widget.doc_picker.value = 5
    assert widget.inspector.doc == 5 and widget.inspector.records == []
    assert "Document 5: token 0 of" in widget.status.value
    assert [sp[4] for sp in _spans(widget)] == corpus.document(5)
    with_empty = Corpus.from_tokens([["orbit", "rocket"], []], empty="keep")
    w2 = InspectorWidget(Session(LDA(K=2, sampler="gibbs"), with_empty, seed=0), doc=0)
    w2.doc_picker.value = 1
    assert "document 1 has no tokens" in w2.status.value
    assert w2.inspector.doc == 0 and w2.doc_picker.value == 0


# ---------------------------------------------------------------------- the lecture's findings

def _controls(widget):
    """Every widget in the tree (children of boxes, depth first)."""
    out, todo = [], [widget.widget]
    while todo:
        x = todo.pop()
        out.append(x)
        todo.extend(getattr(x, "children", ()))
    return out


def test_the_picker_refuses_a_document_out_of_range_by_name_and_range(corpus):
    """A number out of range is not clamped to the last document (a BoundedIntText would):
    the status line names the picker, the value and the valid range, and the document, its
    steps and the picker stay; the next valid number opens."""
    s = Session(LDA(K=4, sampler="light"), corpus, seed=3)
    widget = InspectorWidget(s, doc=2)
    widget.step_button.click()
    insp = widget.inspector
    for bad in (100000, 30, -1):
        widget.doc_picker.value = bad
        assert (f"document {bad} is out of range: this corpus has 30 documents, 0 to 29"
                in widget.status.value)
        assert ERROR in widget.status.value
        assert widget.inspector is insp and insp.doc == 2 and len(insp.records) == 1
        assert widget.doc_picker.value == 2
        assert [sp[4] for sp in _spans(widget)] == corpus.document(2)
    widget.doc_picker.value = 29
    assert widget.inspector.doc == 29 and ERROR not in widget.status.value
    # the check is the inspector's own (one place), its messages in plain words here
    with pytest.raises(ValueError, match="document 31 is out of range: this corpus has 30 "
                                         r"documents, 0 to 29 \(doc must be an integer"):
        TokenInspector(s, 31)


ERROR = "color:#b00"


def _text(value):
    return html.unescape(re.sub(r"<[^>]+>", "", value))


def test_the_widget_names_the_model_and_its_sampler(corpus):
    """The title names the model stepped and how its sampler resamples a token, never the
    sampler's internal name (LightMedLDA was called "LightLDA")."""
    labelled = make_synthetic(n_docs=30, n_topics=4, doc_length=25, task="binary",
                              seed=2).corpus
    cases = [
        (LightMedLDA(K=4), labelled,
         "LightMedLDA · light sampler (doc, word proposals, cycled; label proposal off; "
         "6 Metropolis-Hastings steps per token)"),
        (LightMedLDA.as_published(K=4), labelled,
         "LightMedLDA · light sampler (doc, word, label proposals, mixed at random; "
         "6 Metropolis-Hastings steps per token)"),
        (LDA(K=4), corpus,
         "LDA · collapsed Gibbs sampler (each token drawn from its exact conditional)"),
        (LDA(K=4, sampler="light"), corpus,
         "LDA · light sampler (doc, word proposals, cycled; 2 Metropolis-Hastings steps "
         "per token)"),
    ]
    for model, data, title in cases:
        widget = InspectorWidget(Session(model, data, seed=0), doc=0)
        assert _text(widget.title.value) == title
        shown = " ".join(x.value for x in _controls(widget) if isinstance(x, ipw.HTML))
        assert "LightLDA" not in shown and "proposal_" not in shown
        assert "LightLDA" not in str(widget.chart.chart.to_dict())


def test_tokens_are_never_broken_inside_a_word(corpus):
    """Every token span is an unbreakable inline block, so a line wraps between tokens."""
    s = Session(LDA(K=4), corpus, seed=3)
    widget = InspectorWidget(s, doc=4)
    widget.step10_button.click()
    spans = re.findall(r'<span class="topicsup-token[^"]*"[^>]*style="([^"]*)"',
                       widget.tokens.value)
    assert len(spans) == widget.inspector.n_tokens
    for style in spans:
        assert "display:inline-block" in style and "white-space:nowrap" in style


KEY = re.compile(r'<span class="topicsup-key-entry" data-topic="(\d+)"[^>]*>'
                 r'<span style="background:(#[0-9a-f]{6})[^>]*>(\d+)</span> ([^<]*)</span>')


def test_the_colour_key_names_each_topic_in_its_colour(corpus):
    """One entry per topic: its colour (the tokens'), its number and its name, the one given
    with set_topic_labels or its top three words; with many topics, those in the document."""
    s = Session(LDA(K=5), corpus, seed=3)
    s.run(3)
    s.set_topic_labels({1: "rockets & orbits"})
    widget = InspectorWidget(s, doc=0)
    entries = KEY.findall(widget.key.value)
    colours, labels = topic_colours(5), s.topic_labels()
    assert [int(k) for k, *_ in entries] == list(range(5))
    for k, colour, number, name in entries:
        assert colour == colours[int(k)] and number == k
        assert html.unescape(name) == labels[int(k)].removeprefix(f"{k}: ")
        if k != "1":   # the automatic label: the topic's three most relevant words
            assert len(name.split()) == 3
    assert html.unescape(entries[1][3]) == "rockets & orbits"
    many = InspectorWidget(Session(LDA(K=40), corpus, seed=3), doc=0)
    in_doc = sorted({sp[2] for sp in _spans(many)})
    assert [int(k) for k, *_ in KEY.findall(many.key.value)] == in_doc
    assert f"({len(in_doc)} of 40)" in many.key.value


def test_every_control_has_a_one_sentence_tooltip(corpus):
    widget = InspectorWidget(Session(LDA(K=4), corpus, seed=0), doc=0)
    controls = [x for x in _controls(widget) if isinstance(x, (ipw.Button, ipw.IntText))]
    assert len(controls) == 4
    for c in controls:
        tip = c.tooltip or ""
        assert tip.strip().endswith(".") and tip.count(". ") == 0, (c.description, tip)


def test_no_non_finite_number_reaches_the_chart(corpus, monkeypatch):
    """The chart's spec holds finite numbers only, also when a distribution has a NaN or an
    infinity (left out, and the title says so)."""
    s = Session(LightMedLDA(K=4), make_synthetic(n_docs=30, n_topics=4, doc_length=25,
                                                 task="binary", seed=2).corpus, seed=1)
    s.run(2)
    widget = InspectorWidget(s, doc=1)
    widget.step10_button.click()
    assert _finite(widget.chart.chart.to_dict())
    broken = TokenInspector.conditional_table

    def with_nan(self, tidy=False):
        t = broken(self, tidy)
        t.loc[0, "exact"], t.loc[1, "proposal_doc"] = np.nan, np.inf
        return t
    monkeypatch.setattr(TokenInspector, "conditional_table", with_nan)
    widget.doc_picker.value = 3
    spec = widget.chart.chart.to_dict()
    assert _finite(spec) and "2 non-finite values left out" in spec["title"]


def _finite(node):
    if isinstance(node, float):
        return math.isfinite(node)
    if isinstance(node, dict):
        return all(_finite(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return all(_finite(v) for v in node)
    return True


def test_a_status_is_shown_before_the_first_step(corpus, monkeypatch):
    """Before a step the status line says what is happening, and while the kernels are still
    compiling (a fresh environment) that it waits for them, how long it may take, and no
    step is made until they are ready."""
    from topicsup import warmup

    class Pending(warmup.Warmup):
        def __init__(self):
            super().__init__("test", "LDA")
    widget = InspectorWidget(Session(LDA(K=4), corpus, seed=0), doc=0)
    pending = widget._warmup = Pending()
    said = []

    def watch(change):
        said.append(change["new"])
        if "compiling kernels" in change["new"]:
            pending._done.set()
            pending._ended.set()
    widget.status.observe(watch, names="value")
    seen = []
    step = TokenInspector.step

    def spy(self):
        seen.append(widget.status.value)
        return step(self)
    monkeypatch.setattr(TokenInspector, "step", spy)
    widget.step_button.click()
    widget.step_button.click()
    about = f"compiling kernels (first run only, about {warmup.expected_seconds('LDA'):.0f} s"
    waiting = [t for t in said if about in t]
    assert waiting and "Resampling the next token: waiting for numba" in waiting[0]
    assert "Resampling the next token" in seen[0] and "compiling" not in seen[0]
    assert len(seen) == 2 and "Document 0" in widget.status.value
