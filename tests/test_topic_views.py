"""The views of reading topics (issue 37): the intertopic distance map and its numbers, the
relevance bars with their lambda slider, the forest plot; pure functions of tidy frames,
returned as Altair charts with no NaN in their specs, in the view table."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import jensenshannon

from topicsup import Session, summaries, views
from topicsup.models import LDA, LightMedLDA
from topicsup.synthetic import make_synthetic
from topicsup.terms import LAMBDA_GRID, Terms, best, classical_mds, js_distances
from topicsup.view_table import VIEWS, applicable


@pytest.fixture(scope="module")
def fitted():
    syn = make_synthetic(n_docs=240, n_topics=6, task="multiclass", n_classes=3, seed=11)
    s = Session(LightMedLDA(K=6), syn.corpus, seed=5)
    s.sweep(25)
    return s


def _spec(chart):
    d = chart.to_dict()
    json.dumps(d, allow_nan=False)   # no NaN or inf reaches the browser
    return d


def test_js_distances_are_scipys():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(30, 0.3), size=7)
    want = np.array([[jensenshannon(a, b) for b in phi] for a in phi])
    np.testing.assert_allclose(js_distances(phi), want, atol=1e-12)
    assert (np.diag(js_distances(phi)) == 0).all()


def test_classical_scaling_recovers_a_planar_configuration():
    rng = np.random.default_rng(1)
    pts = rng.normal(size=(8, 2))
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    xy = classical_mds(d, 2)
    got = np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1))
    np.testing.assert_allclose(got, d, atol=1e-10)
    with pytest.raises(ValueError, match="square"):
        classical_mds(np.ones((2, 3)))


def test_the_map_places_topics_and_names_the_class_each_drives_most(fitted):
    m = fitted.readout(summaries.topic_map)
    assert list(m.index) == list(range(6)) and m["label"].tolist() == fitted.topic_labels()
    np.testing.assert_allclose(m["share"].sum(), 1.0)
    coefs = fitted.coefficients()
    topic = coefs[coefs["kind"] == "topic"]
    for k, row in m.iterrows():
        mine = topic[topic["index"] == k]
        top = mine.loc[mine["mean"].idxmax()]
        assert row["task"] == top["task"] and row["mean"] == top["mean"]
        assert row["lower"] <= row["mean"] <= row["upper"]
    # the map keeps the order of the topics' distances: the closest pair stays close
    d = js_distances(fitted.topic_word())
    xy = m[["x", "y"]].to_numpy()
    flat = np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1))
    iu = np.triu_indices(6, 1)
    assert np.corrcoef(d[iu], flat[iu])[0, 1] > 0.7


def test_an_unsupervised_map_has_no_class_column():
    s = Session(LDA(K=4), make_synthetic(n_docs=60, n_topics=3, seed=2).corpus, seed=1)
    s.sweep(5)
    m = s.readout(summaries.topic_map)
    assert "task" not in m and len(m) == 4
    d = _spec(views.topic_map_chart(m))
    assert "color" not in json.dumps(d["layer"][0]["encoding"])


@pytest.mark.parametrize("lam", LAMBDA_GRID)
def test_re_ranking_the_kept_words_at_any_slider_lambda_is_exact(fitted, lam):
    """What the chart's transform computes from topic_terms (relevance from the log
    probability and log lift, rank by it then by word id) equals the full ranking."""
    terms = fitted.topic_terms(8)
    phi = fitted.topic_word()
    full = Terms(phi, fitted.state.counts.n_wk.sum(axis=1), lam=lam)
    for k in range(6):
        rows = terms[terms["topic"] == k]
        rel = lam * rows["log_probability"] + (1 - lam) * rows["log_lift"]
        order = np.lexsort((rows["word_id"].to_numpy(), -rel.to_numpy()))[:8]
        assert rows["word_id"].to_numpy()[order].tolist() == \
            best(full.relevance(k), 8).tolist()


def test_the_relevance_bars_recompute_relevance_from_the_slider(fitted):
    d = _spec(views.relevance_chart(fitted.topic_terms(10), topic=3, n_words=10))
    assert d["params"][0]["name"] == "relevance_lambda"
    assert d["params"][0]["bind"]["step"] == 0.05 and d["params"][0]["value"] == 0.6
    calc = [t for layer in d["layer"] for t in layer.get("transform", [])
            if "calculate" in t]
    assert "relevance_lambda * datum.log_probability" in calc[0]["calculate"]
    assert fitted.topic_labels()[3] in d["title"]
    with pytest.raises(ValueError, match="not in terms"):
        views.relevance_chart(fitted.topic_terms(5), topic=42)


def test_the_map_and_the_bars_are_linked_by_a_click(fitted):
    chart = views.topic_map_chart(fitted.readout(summaries.topic_map),
                                  fitted.topic_terms(10))
    d = _spec(chart)
    assert len(d["hconcat"]) == 2
    text = json.dumps(d)
    assert "picked_topic" in text and "relevance_lambda" in text
    biggest = int(fitted.readout(summaries.topic_map)["share"].idxmax())
    assert f'"topic": {biggest}' in text   # the largest topic is picked at first


def test_the_forest_plot_draws_each_class_strongest_topics_with_intervals(fitted):
    coefs = fitted.coefficients()
    d = _spec(views.forest_chart(coefs, top=4))
    assert d["facet"]["field"] == "task" and d["columns"] == 2
    data = next(iter(d["datasets"].values()))
    assert {r["task"] for r in data} == set(coefs["task"])
    for task in set(coefs["task"]):
        mine = [r for r in data if r["task"] == task]
        want = coefs[(coefs["task"] == task) & (coefs["kind"] == "topic")]
        want = want.loc[want["mean"].abs().sort_values(ascending=False).index[:4]]
        assert sorted(r["feature"] for r in mine) == sorted(want["feature"])
        for r in mine:
            assert r["lower"] <= r["mean"] <= r["upper"]
            assert (r["certain"] == "interval excludes 0") == (r["lower"] > 0 or r["upper"] < 0)
    one = _spec(views.forest_chart(coefs, task=coefs["task"].iloc[0]))
    assert "facet" not in one and coefs["task"].iloc[0] in one["title"]
    with pytest.raises(ValueError, match="task 'nope'"):
        views.forest_chart(coefs, task="nope")


def test_the_view_table_offers_the_map_to_every_session_and_the_forest_to_supervised(fitted):
    s = Session(LDA(K=3), make_synthetic(n_docs=40, n_topics=3, seed=3).corpus, seed=1)
    s.sweep(2)
    assert "topic_map" in s.readout(applicable) and "forest" not in s.readout(applicable)
    assert {"topic_map", "forest"} <= set(fitted.readout(applicable))
    h = fitted.history
    for name in ("topic_map", "forest"):
        v = VIEWS[name]
        for _, chart in v.sections(fitted.readout(v.report_read()), h):
            _spec(chart)
        _spec(v.panel(fitted.readout(v.read), h, 600, 300))


def _crowded_map() -> pd.DataFrame:
    """Ten topics crowded together (issue 52: circles hid the numbers of others), listed
    smallest first so that drawing in the frame's order would put large circles over small
    ones; topic 9, the largest, lies under the others."""
    rng = np.random.default_rng(0)
    share = np.array([0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.2, 0.3])
    xy = rng.normal(scale=0.03, size=(10, 2))
    return pd.DataFrame({"label": [f"{k}: topic" for k in range(10)], "share": share,
                         "x": xy[:, 0], "y": xy[:, 1],
                         "task": [f"class_{k % 3}" for k in range(10)], "mean": 1.0,
                         "lower": 0.5, "upper": 1.5, "sign_certain": True},
                        index=pd.RangeIndex(10, name="topic"))


def test_the_maps_numbers_lie_above_every_circle_on_a_halo():
    """Issue 52 (d): each circle see-through with an outline, the larger drawn first; every
    topic number in the layers after all the circles, on a white halo (a white-stroked copy
    beneath it), so a number inside another topic's circle still reads. Checked on the spec
    and on the SVG vl-convert draws, whose document order is the drawing order."""
    vl_convert = pytest.importorskip("vl_convert")
    d = _spec(views.topic_map_chart(_crowded_map()))
    assert [layer["mark"]["type"] for layer in d["layer"]] == ["circle", "text", "text"]
    circles, halo, numbers = d["layer"]
    enc = circles["encoding"]
    fill = [enc["fillOpacity"]["condition"]["value"], enc["fillOpacity"]["value"]]
    stroke = [enc["strokeWidth"]["condition"]["value"], enc["strokeWidth"]["value"]]
    assert max(fill) < 1 and min(stroke) > 0 and circles["mark"]["stroke"]
    assert enc["order"]["field"] == "share" and enc["order"]["sort"] == "descending"
    assert halo["mark"]["stroke"] == "white" and halo["mark"]["strokeWidth"] >= 2
    assert numbers["mark"].get("stroke") is None and numbers["mark"]["color"] == "#111"
    assert halo["encoding"]["text"] == numbers["encoding"]["text"] == {
        "field": "topic", "type": "quantitative"}

    svg = vl_convert.vegalite_to_svg(d)
    marks = [(m.start(), kind, int(re.search(r"topic: (\d+);", m.group(0)).group(1)),
              "stroke=\"white\"" in m.group(0))
             for m in re.finditer(r'<(?:path|text) aria-label="[^"]*topic: \d+;[^>]*'
                                  r'aria-roledescription="(circle|text mark)"[^>]*>', svg)
             for kind in [m.group(1)]]
    circle_at = [at for at, kind, _, _ in marks if kind == "circle"]
    halo_at = {k: at for at, kind, k, white in marks if kind == "text mark" and white}
    number_at = {k: at for at, kind, k, white in marks if kind == "text mark" and not white}
    assert len(circle_at) == len(halo_at) == len(number_at) == 10
    assert max(circle_at) < min(halo_at.values()) and max(halo_at.values()) < min(
        number_at.values()), "a topic's number is drawn before a circle, or before its halo"
    drawn = [k for _, kind, k, _ in sorted(marks) if kind == "circle"]
    assert drawn == list(range(9, -1, -1)), "the circles are not drawn largest first"
