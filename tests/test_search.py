"""Choosing K (issue 37): ``topicsup.search`` and ``LDATransformer`` under ``GridSearchCV``.

Proven: ``search_k`` gives one row per K with the documented columns, the score column for a
supervised model only; on a clear synthetic corpus of 4 topics the held-out perplexity is
lowest at the true K among K = 2, 4, 12; the same seed gives the same frame (but for the
seconds); a held-out Corpus may be given instead of a fraction; bad inputs are named before
any chain runs; ``exclusivity`` matches hand-computed values; the chart builds with no NaN in
its spec and one panel per measure; ``GridSearchCV`` over ``LDATransformer``'s
``n_components`` picks by ``score``, minus the held-out ``perplexity``.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV

from topicsup.corpus import Corpus
from topicsup.estimators import LDATransformer
from topicsup.models import LDA, LightMedLDA
from topicsup.search import exclusivity, search_k, search_k_chart, split
from topicsup.synthetic import make_synthetic

TRUE_K = 4


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return make_synthetic(n_docs=200, n_topics=TRUE_K, doc_length=50, seed=1).corpus


@pytest.fixture(scope="module")
def frame(corpus) -> pd.DataFrame:
    return search_k(corpus, [12, 2, TRUE_K], sweeps=40, seed=0)


def test_one_row_per_K_with_the_documented_columns(frame):
    assert list(frame.columns) == ["K", "perplexity", "coherence", "exclusivity", "seconds"]
    assert frame["K"].tolist() == [2, TRUE_K, 12]          # increasing, whatever the order
    assert frame["K"].dtype == np.int64
    assert np.isfinite(frame.drop(columns="K").to_numpy()).all()
    assert (frame["perplexity"] > 1).all() and (frame["seconds"] > 0).all()
    assert ((frame["exclusivity"] >= 1 / frame["K"] - 1e-12) & (frame["exclusivity"] <= 1)).all()
    assert (frame["coherence"].abs() < 1e3).all()


def test_the_true_K_has_the_lowest_heldout_perplexity(frame):
    """Held at 24 of 24 (corpus seed, chain seed) pairs tried; at the true K the margin
    over K = 2 is about 25 %, over K = 12 2-6 %."""
    by_K = frame.set_index("K")["perplexity"]
    assert by_K.idxmin() == TRUE_K
    assert by_K[TRUE_K] < 0.9 * by_K[2]


def test_the_same_seed_gives_the_same_frame(corpus, frame):
    again = search_k(corpus, [2, TRUE_K, 12], sweeps=40, seed=0)
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), frame.drop(columns="seconds"))
    other = search_k(corpus, [2, TRUE_K, 12], sweeps=40, seed=1)
    assert not np.allclose(other["perplexity"], frame["perplexity"])


def test_a_heldout_corpus_and_a_model_instance(corpus):
    train, test = split(corpus, 0.25, seed=3)
    assert train.n_docs + test.n_docs == corpus.n_docs
    assert not set(train.doc_index) & set(test.doc_index)
    # the instance's K replaced, its settings kept; a held-out Corpus gives the frame of the
    # same split drawn by search_k itself (heldout=0.25, seed=3), all of train training
    given = search_k(train, [TRUE_K], LDA(K=50, alpha=0.2), heldout=test, sweeps=5, seed=3)
    drawn = search_k(corpus, [TRUE_K], LDA(alpha=0.2), heldout=0.25, sweeps=5, seed=3)
    pd.testing.assert_frame_equal(given.drop(columns="seconds"), drawn.drop(columns="seconds"))
    assert given["K"].tolist() == [TRUE_K]


def test_a_supervised_model_adds_the_heldout_score():
    labelled = make_synthetic(n_docs=160, n_topics=3, doc_length=40, seed=2).corpus
    frame = search_k(labelled, [2, 3], LightMedLDA, sweeps=15, seed=0)
    assert list(frame.columns) == ["K", "perplexity", "coherence", "exclusivity", "score",
                                   "seconds"]
    assert ((frame["score"] >= 0) & (frame["score"] <= 1)).all()
    # an instance keeps its settings; a held-out corpus without labels gives no score
    train, test = split(labelled, 0.2)
    unlabelled = dataclasses.replace(test, labels=None)
    frame = search_k(train, [3], LightMedLDA(lam=10.0), heldout=unlabelled, sweeps=3)
    assert "score" not in frame.columns


def test_exclusivity_by_hand():
    phi = np.array([[0.5, 0.3, 0.2, 0.0],
                    [0.1, 0.1, 0.4, 0.4]])
    # topic 0's top 2: words 0 (0.5 / 0.6) and 1 (0.3 / 0.4); topic 1's: 2 (0.4 / 0.6), 3 (1)
    np.testing.assert_allclose(exclusivity(phi, 2), [(0.5 / 0.6 + 0.75) / 2,
                                                     (0.4 / 0.6 + 1.0) / 2])
    np.testing.assert_allclose(exclusivity(np.full((3, 5), 0.2), 3), 1 / 3)
    np.testing.assert_allclose(exclusivity(phi[:1, :3], 10), 1.0)   # one topic: its own
    with pytest.raises(ValueError, match="no probability"):
        exclusivity(phi[:1], 10)         # n_words > V: word 3 is a "top word" of no topic
    with pytest.raises(ValueError, match="non-negative"):
        exclusivity(-phi, 2)
    with pytest.raises(ValueError, match="n_words"):
        exclusivity(phi, 0)


@pytest.mark.parametrize("args, kwargs, error, match", [
    ("docs", {}, TypeError, "corpus"),
    (None, {"Ks": []}, ValueError, "Ks"),
    (None, {"Ks": "234"}, TypeError, "Ks"),
    (None, {"Ks": 4}, TypeError, "Ks"),
    (None, {"Ks": [2, 0]}, ValueError, r"Ks\[1\]"),
    (None, {"Ks": [2, 2.5]}, TypeError, r"Ks\[1\]"),
    (None, {"Ks": [3, 2, 3]}, ValueError, "distinct"),
    (None, {"heldout": 0.0}, ValueError, "heldout"),
    (None, {"heldout": 1.0}, ValueError, "heldout"),
    (None, {"heldout": "0.2"}, TypeError, "heldout"),
    (None, {"heldout": True}, TypeError, "heldout"),
    (None, {"sweeps": 0}, ValueError, "sweeps"),
    (None, {"sweeps": 2.0}, TypeError, "sweeps"),
    (None, {"n_words": 1}, ValueError, "n_words"),
    (None, {"seed": -1}, ValueError, "seed"),
    (None, {"model": "LDA"}, TypeError, "model"),
    (None, {"model": dict}, TypeError, "model"),
])
def test_bad_inputs_are_named(corpus, args, kwargs, error, match):
    kwargs = {"Ks": [2, 3], "sweeps": 1, **kwargs}
    with pytest.raises(error, match=match):
        search_k(corpus if args is None else args, **kwargs)


def test_a_heldout_corpus_of_other_words_or_an_unlabelled_corpus_is_refused(corpus):
    other = Corpus.from_tokens([["alpha", "beta"], ["beta", "gamma"]])
    with pytest.raises(ValueError, match="heldout must use the corpus's vocabulary"):
        search_k(corpus, [2], heldout=other, sweeps=1)
    with pytest.raises(ValueError, match="supervised"):
        search_k(dataclasses.replace(corpus, labels=None), [2], LightMedLDA, sweeps=1)


def test_the_chart_has_a_panel_per_measure_and_no_nan(frame):
    with_nan = pd.concat([frame, pd.DataFrame({"K": [30], "perplexity": [np.nan],
                                               "coherence": [0.1], "exclusivity": [0.5],
                                               "seconds": [1.0]})], ignore_index=True)
    chart = search_k_chart(with_nan)
    spec = chart.to_dict()
    text = json.dumps(spec, allow_nan=False)        # a NaN anywhere would raise
    assert "NaN" not in text
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == 3 * len(frame) + 2           # the K = 30 perplexity dropped
    assert {r["measure"] for r in rows} == {"perplexity", "coherence", "exclusivity"}
    assert spec["encoding"]["column"]["field"] == "panel"
    assert spec["resolve"]["scale"]["y"] == "independent"
    assert 4 * spec["width"] + 4 * 80 <= 1280         # four panels with their axes
    assert {t["field"] for t in spec["encoding"]["tooltip"]} >= {"K", "value", "seconds"}
    seeds = pd.concat([frame.assign(seed=0), frame.assign(seed=1, perplexity=frame.perplexity + 1)])
    by_seed = search_k_chart(seeds).to_dict()
    assert by_seed["encoding"]["detail"]["field"] == "seed"   # a line per seed
    with pytest.raises(TypeError, match="frame"):
        search_k_chart(frame.to_dict())
    with pytest.raises(ValueError, match="frame"):
        search_k_chart(frame[["K", "seconds"]])
    with pytest.raises(ValueError, match="finite"):
        search_k_chart(frame.assign(perplexity=np.nan, coherence=np.nan, exclusivity=np.nan))


def test_grid_search_over_n_components_picks_by_score():
    X = make_synthetic(n_docs=200, n_topics=TRUE_K, doc_length=50, seed=1).corpus.to_matrix()
    search = GridSearchCV(LDATransformer(max_iter=30, random_state=0),
                          {"n_components": [2, TRUE_K]}, cv=2).fit(X)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    assert search.best_params_ == {"n_components": TRUE_K}
    assert search.best_index_ == int(np.argmax(scores))
    best = search.best_estimator_
    assert best.score(X[:50]) == -best.perplexity(X[:50])
    assert best.perplexity(X[:50]) == best.perplexity(X[:50])     # seeded: the same twice
    assert math.isfinite(best.perplexity(X[:50])) and best.perplexity(X[:50]) > 1
