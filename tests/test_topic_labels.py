"""Reading topics (issue 37, labels): the word rankings of pyLDAvis and stm against their
definitions written out independently, and the names a user gives topics carried into every
table, chart, coefficient and ArviZ coordinate, and through a checkpoint."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from topicsup import Session
from topicsup.models import LDA, HDPLDA, LightMedLDA
from topicsup.synthetic import make_synthetic
from topicsup.terms import RANKINGS, Terms, best


@pytest.fixture(scope="module")
def fitted():
    syn = make_synthetic(n_docs=240, n_topics=6, task="multiclass", n_classes=3, seed=3)
    s = Session(LightMedLDA(K=6), syn.corpus, seed=2)
    s.sweep(25)
    return s


def _reference(phi, counts, lam, w):
    """The measures as pyLDAvis and stm's calcfrex / labelTopics write them, word by word."""
    K, V = phi.shape
    p_w = counts / counts.sum()
    out = {m: np.zeros((K, V)) for m in RANKINGS}
    for k in range(K):
        excl = phi[k] / phi.sum(axis=0)
        for v in range(V):
            # ECDF with ties averaged: the share of words below, plus half the ties
            def ecdf(x, at):
                return ((x < x[at]).sum() + ((x == x[at]).sum() + 1) / 2) / V
            out["probability"][k, v] = phi[k, v]
            out["lift"][k, v] = phi[k, v] / p_w[v]
            out["relevance"][k, v] = lam * np.log(phi[k, v]) + (1 - lam) * np.log(
                phi[k, v] / p_w[v])
            out["frex"][k, v] = 1 / (w / ecdf(phi[k], v) + (1 - w) / ecdf(excl, v))
            out["score"][k, v] = phi[k, v] * (np.log(phi[k, v])
                                              - np.mean(np.log(phi[:, v])))
    return out


@pytest.mark.parametrize("lam, w", [(0.6, 0.5), (0.2, 0.8), (1.0, 0.0)])
def test_every_ranking_measure_is_its_definition(lam, w):
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(40, 0.3), size=5)
    phi[2, :4] = phi[2, 4]          # ties within a topic
    phi /= phi.sum(axis=1, keepdims=True)
    counts = rng.integers(1, 50, 40).astype(float)
    t, ref = Terms(phi, counts, lam, w), _reference(phi, counts, lam, w)
    for k in range(5):
        got = t.scores(k)
        for m in RANKINGS:
            np.testing.assert_allclose(got[m], ref[m][k], rtol=1e-12, err_msg=m)
        np.testing.assert_allclose(t.relevance(k), ref["relevance"][k], rtol=1e-12)


def test_relevance_spans_probability_and_lift():
    rng = np.random.default_rng(2)
    phi = rng.dirichlet(np.full(60, 0.2), size=4)
    counts = rng.integers(1, 500, 60).astype(float)
    np.testing.assert_array_equal(Terms(phi, counts, lam=1.0).top("relevance", 8),
                                  Terms(phi, counts).top("probability", 8))
    np.testing.assert_array_equal(Terms(phi, counts, lam=0.0).top("relevance", 8),
                                  Terms(phi, counts).top("lift", 8))


def test_best_breaks_ties_by_word_id_and_matches_a_full_sort():
    rng = np.random.default_rng(3)
    for _ in range(50):
        v = rng.integers(0, 5, 30).astype(float)
        for n in (1, 4, 30):
            want = np.lexsort((np.arange(30), -v))[:n]
            np.testing.assert_array_equal(best(v, n), want)


def test_terms_refuse_what_they_cannot_rank():
    with pytest.raises(ValueError, match="positive finite"):
        Terms(np.zeros((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match=r"\(K, V\)"):
        Terms(np.full((2, 3), 1 / 3), np.ones(4))
    with pytest.raises(ValueError, match="lam"):
        Terms(np.full((2, 3), 1 / 3), np.ones(3), lam=1.5)
    with pytest.raises(ValueError, match="by"):
        Terms(np.full((2, 3), 1 / 3), np.ones(3)).top("tf-idf", 2)


def test_topics_rank_by_each_measure_as_topic_terms_reports(fitted):
    terms = fitted.topic_terms(6)
    for by in RANKINGS:
        table = fitted.topics(6, by=by)
        for k in table.index:
            rows = terms[(terms["topic"] == k) & (terms[f"rank_{by}"] > 0)]
            want = rows.sort_values(f"rank_{by}")["word"].tolist()
            assert table.loc[k, [f"word_{i}" for i in range(1, 7)]].tolist() == want, by
    # probability ranking is the counts' (the old topics()), relevance its own
    assert (fitted.topics(6, by="probability")["top_words"]
            == fitted.topics(6)["top_words"]).all()
    k0 = terms[terms["topic"] == 0]
    np.testing.assert_allclose(k0["relevance"], 0.6 * k0["log_probability"]
                               + 0.4 * k0["log_lift"])
    assert (k0["topic_count"] <= k0["corpus_count"]).all()


def test_label_topics_lists_each_ranking(fitted):
    table = fitted.label_topics(4)
    assert list(table.columns) == ["label", *RANKINGS]
    assert table.loc[0, "frex"] == " ".join(fitted.topics(4, by="frex").loc[0, [
        f"word_{i}" for i in range(1, 5)]])


def test_automatic_labels_are_distinct_and_read_by_relevance(fitted):
    labels = fitted.topic_labels()
    assert len(set(labels)) == len(labels) == 6
    rel = fitted.topics(3, by="relevance")
    assert labels == [f"{k}: {w}" for k, w in zip(rel.index, rel["top_words"])]


def test_a_name_given_is_carried_everywhere(fitted, tmp_path):
    s = fitted
    s.set_topic_labels({2: "hockey", 4: "space"})
    try:
        labels = s.topic_labels()
        assert labels[2] == "hockey" and labels[4] == "space"
        assert s.topics()["label"].tolist() == labels
        assert s.feature_names()[:6] == labels
        assert set(labels) <= set(s.coefficients()["feature"])
        assert set(labels) <= set(s.weights()["feature"])
        assert set(s.signal_topics()["label"]) <= set(labels)
        sizes = s.readout(__import__("topicsup").summaries.topic_sizes)
        assert sizes.loc[2, "label"] == "hockey"
        assert set(labels) <= set(s.to_arviz().posterior.coords["feature"].values.tolist())
        # kept by a checkpoint, and what a file says is checked
        path = s.save(tmp_path / "named.npz")
        assert Session.load(path).topic_labels() == labels
        # added to, and forgotten with None
        s.set_topic_labels({0: "first"})
        assert s.topic_labels()[:5:2] == ["first", "hockey", "space"]
    finally:
        s.set_topic_labels(None)
    assert s.topic_labels()[2].startswith("2: ")


@pytest.mark.parametrize("labels, error, match", [
    ([("a", 1)], TypeError, "dict of topic"),
    ({"2": "x"}, TypeError, "int topic number"),
    ({True: "x"}, TypeError, "int topic number"),
    ({9: "x"}, ValueError, r"not one of the model's topics \(0..5\)"),
    ({1: "  "}, ValueError, "non-empty str"),
    ({1: 7}, ValueError, "non-empty str"),
    ({1: "y" * 201}, ValueError, "201 characters, more than 200"),
    ({1: "same", 3: "same"}, ValueError, "both be labelled 'same'"),
])
def test_names_are_checked(fitted, labels, error, match):
    with pytest.raises(error, match=match):
        fitted.set_topic_labels(labels)
    assert all(":" in x for x in fitted.topic_labels())   # nothing half-applied


def test_a_name_cannot_copy_another_topics_automatic_label(fitted):
    other = fitted.topic_labels()[1]
    with pytest.raises(ValueError, match="topics 0 and 1"):
        fitted.set_topic_labels({0: other})


def test_hdp_labels_only_its_live_topics():
    syn = make_synthetic(n_docs=120, n_topics=3, seed=4)
    s = Session(HDPLDA(K=12), syn.corpus, seed=1)
    s.sweep(30)
    live = s.topics().index.tolist()
    dead = sorted(set(range(12)) - set(live))
    assert len(s.topic_labels()) == len(live)
    if dead:
        with pytest.raises(ValueError, match="a live one"):
            s.set_topic_labels({dead[0]: "ghost"})
    s.set_topic_labels({live[0]: "alive"})
    assert s.topics().loc[live[0], "label"] == "alive"


def _rewrite_meta(path, out, change):
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    meta = json.loads(np.load(path)["meta"].tobytes())
    change(meta)
    import io
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    members["meta.npy"] = buf.getvalue()
    with zipfile.ZipFile(out, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)


@pytest.mark.parametrize("labels, match", [
    ({"7": "x"}, "topic number in 0..3"), ({"-1": "x"}, "topic number"),
    ({"1": ""}, "non-empty name"), ({"1": "y" * 201}, "at most 200"),
    ({"1": "x", "2": "x"}, "second topic"), ([1, 2], "JSON object")])
def test_a_checkpoints_labels_are_checked(tmp_path, labels, match):
    corpus = make_synthetic(n_docs=40, n_topics=3, seed=5).corpus
    s = Session(LDA(K=4), corpus, seed=1)
    s.sweep(2)
    path = s.save(tmp_path / "ok.npz")
    bad = tmp_path / "bad.npz"
    _rewrite_meta(path, bad, lambda m: m.__setitem__("topic_labels", labels))
    with pytest.raises(ValueError, match=match):
        Session.load(bad)


def test_average_ranks_are_scipys_rankdata():
    from scipy.stats import rankdata

    from topicsup.terms import average_ranks
    rng = np.random.default_rng(4)
    for _ in range(100):
        x = rng.integers(0, 6, rng.integers(1, 50)).astype(float)
        np.testing.assert_array_equal(average_ranks(x), rankdata(x))


def test_the_longest_name_a_session_takes_is_one_its_checkpoint_keeps(fitted, tmp_path):
    """What set_topic_labels accepts, Session.load reads back (the same length bound)."""
    fitted.set_topic_labels({1: "n" * 200})
    try:
        path = fitted.save(tmp_path / "long.npz")
        assert Session.load(path).topic_labels()[1] == "n" * 200
    finally:
        fitted.set_topic_labels(None)
