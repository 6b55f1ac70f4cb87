"""InspectorWidget without a browser: the buttons step the inspector, and the coloured
tokens, the description, the status line and the chart follow its records."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from topicsup.datasets import make_synthetic
from topicsup.inspector import topic_colours
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
    assert "Next: token 0" in wd.description.value
    assert len(_chart_rows(wd)) == 5 * 4          # K topics x (exact, doc, word, exp)

    def check(expected_records):
        assert len(insp.records) == expected_records
        rec = insp.last
        spans = _spans(wd)
        topics = s.state.z[s.corpus.doc_ptr[2]:s.corpus.doc_ptr[3]]
        assert [sp[2] for sp in spans] == topics.tolist()
        assert all(sp[3] == colours[sp[2]] for sp in spans)
        assert [sp[1] for sp in spans if "topicsup-last" in sp[0]] == [rec.position]
        assert html.escape(rec.describe()) in wd.description.value
        rows = _chart_rows(wd)
        table = rec.conditional_table(tidy=True)
        got = {(r["topic"], r["distribution"]): r["probability"] for r in rows}
        want = {(t, d): p for t, d, p in table.itertuples(index=False)}
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[k] for k in want], list(want.values()))
        assert f"topic {rec.old_topic} -> {rec.new_topic}" in wd.chart.chart.to_dict()["title"]
        made = insp.info[2]
        assert f"doc: accepted {insp.info[3] / made:.2f} of {int(made)}" in wd.status.value

    wd.step_button.click()
    check(1)
    assert "drew" in wd.description.value and "acceptance probability" in wd.description.value
    assert [sp[1] for sp in _spans(wd) if "topicsup-next" in sp[0]] == [1]
    wd.step10_button.click()
    check(11)
    assert [sp[1] for sp in _spans(wd) if "topicsup-next" in sp[0]] == [11]
    wd.finish_button.click()
    check(N)
    assert insp.done and "finished" in wd.status.value and "LightLDA" in wd.status.value
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
    assert "document 5: token 0" in widget.status.value
    assert [sp[4] for sp in _spans(widget)] == corpus.document(5)
    assert (widget.doc_picker.min, widget.doc_picker.max) == (0, corpus.n_docs - 1)
    with_empty = Corpus.from_tokens([["orbit", "rocket"], []], empty="keep")
    w2 = InspectorWidget(Session(LDA(K=2), with_empty, seed=0), doc=0)
    w2.doc_picker.value = 1
    assert "document 1 has no tokens" in w2.status.value
    assert w2.inspector.doc == 0 and w2.doc_picker.value == 0
