"""The views of reading topics (issue 37): the intertopic distance map and its numbers, the
relevance bars with their lambda slider, the forest plot; pure functions of tidy frames,
returned as Altair charts with no NaN in their specs, in the view table."""

from __future__ import annotations

import json

import numpy as np
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
