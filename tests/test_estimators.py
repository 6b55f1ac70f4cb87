"""The scikit-learn estimator: fit/predict/transform/score, pipelines, cloning, determinism.

Proven: a ``CountVectorizer -> MedLDAClassifier`` pipeline fits raw texts and predicts class
names well above chance; ``clone``/``get_params``/``set_params`` round-trip; one-vs-all gives
the same model whatever ``n_jobs``; shapes follow scikit-learn's conventions for binary,
multi-class and multi-label targets; misuse raises a named error.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

from topicsup.datasets import make_synthetic
from topicsup.estimators import MedLDAClassifier
from topicsup.kernels.rng import seed_state


def _data(task, n=600):
    c = make_synthetic(n_docs=n, task=task, n_classes=3, seed=0).corpus
    texts = [" ".join(c.document(d)) for d in range(c.n_docs)]
    y = c.labels.values if task == "multilabel" else c.labels.names()
    return c.to_matrix(), texts, y


def test_pipeline_on_raw_texts():
    _, texts, y = _data("multiclass")
    pipe = make_pipeline(CountVectorizer(), MedLDAClassifier(6, lam=4.0, n_iter=25))
    pipe.fit(texts[:400], y[:400])
    pred = pipe.predict(texts[400:])
    assert set(pred) <= set(y)
    assert pipe.score(texts[400:], y[400:]) > 0.6  # chance is 1/3
    params = clone(pipe).get_params()
    assert params["medldaclassifier__lam"] == 4.0


@pytest.mark.parametrize("sampler", ["light", "gibbs"])
def test_one_vs_all_is_the_same_whatever_n_jobs(sampler):
    X, _, y = _data("multiclass", 300)
    kw = dict(sampler=sampler, strategy="ovr", lam=4.0, n_iter=8, random_state=5)
    a = MedLDAClassifier(4, n_jobs=1, **kw).fit(X[:200], y[:200])
    b = MedLDAClassifier(4, n_jobs=2, **kw).fit(X[:200], y[:200])
    assert len(a.sessions_) == 3
    assert np.array_equal(a.decision_function(X[200:]), b.decision_function(X[200:]))
    assert a.transform(X[200:205]).shape == (5, 12)
    assert a.coefficients_.shape == (3, 4)


def test_shapes_for_binary_and_multilabel():
    X, _, y = _data("binary", 300)
    est = MedLDAClassifier(4, lam=4.0, n_iter=10).fit(X[:200], y[:200])
    assert est.decision_function(X[200:]).shape == (100,)
    assert est.predict(X[200:]).shape == (100,)
    assert est.transform(X[200:]).shape == (100, 4)
    X, _, Y = _data("multilabel", 300)
    est = MedLDAClassifier(4, lam=4.0, n_iter=10).fit(X[:200], Y[:200])
    assert est.predict(X[200:]).shape == (100, 3)
    assert 0.0 <= est.score(X[200:], Y[200:]) <= 1.0


def test_set_params_and_errors():
    est = MedLDAClassifier().set_params(n_topics=7, sampler="gibbs")
    assert est.get_params()["n_topics"] == 7
    X, _, y = _data("binary", 100)
    with pytest.raises(ValueError, match="not fitted"):
        est.predict(X)
    with pytest.raises(ValueError, match="strategy must be"):
        MedLDAClassifier(strategy="ovo").fit(X, y)
    with pytest.raises(ValueError, match="n_iter must be"):
        MedLDAClassifier(n_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="n_iter = 6 is too short for n_snapshots = 4"):
        MedLDAClassifier(n_iter=6, n_snapshots=4).fit(X, y)
    with pytest.raises(ValueError, match="lda_init_sweeps = 6 leaves no supervised sweep"):
        MedLDAClassifier(n_iter=6, lda_init_sweeps=6).fit(X, y)
    with pytest.raises(ValueError, match="lda_init_sweeps must be"):
        MedLDAClassifier(lda_init_sweeps=-1).fit(X, y)
    with pytest.raises(ValueError, match="vocabulary has 2 words"):
        MedLDAClassifier(vocabulary=["a", "b"]).fit(X, y)
    with pytest.raises(ValueError, match="y .one label per document. is required"):
        MedLDAClassifier().fit(X, None)
    with pytest.raises(ValueError, match="supervised_factor must be one of"):
        MedLDAClassifier(supervised_factor="probit").fit(X, y)
    gibbs = MedLDAClassifier(n_topics=3, sampler="gibbs", supervised_factor="marginal",
                             n_iter=2).fit(X, y)
    assert gibbs.sessions_[0].model.supervised_factor == "marginal"
    assert MedLDAClassifier(n_topics=3, n_iter=2).fit(X, y).sessions_[0].model \
        .supervised_factor == "marginal"   # LightMedLDA's default


def test_snapshot_ensemble_averages_one_fold_in_per_snapshot():
    """With n_snapshots = 3 the estimator keeps three topic snapshots two sweeps apart (the
    last one the final state) and its scores are the mean of the model's scores over them."""
    X, _, y = _data("multiclass", 300)
    est = MedLDAClassifier(4, lam=4.0, n_iter=10, n_snapshots=3, composition="cycle",
                           random_state=3).fit(X[:200], y[:200])
    s, snaps = est.sessions_[0], est.snapshots_[0]
    assert len(snaps) == 3 and s.n_sweeps == 10 and s.model.composition == "cycle"
    assert np.array_equal(snaps[-1], s.model.topic_snapshot(s.state))
    assert not np.array_equal(snaps[0], snaps[-1])
    corpus = est.corpus_.map(X[200:])
    rng = seed_state(3, stream=1000)
    expect = np.mean([s.model.decision_scores(s.state, s.model.fold_in(
        s.state, corpus, rng, est.predict_burn_in, est.predict_samples, phi))
        for phi in snaps], axis=0)
    assert np.allclose(est.decision_function(X[200:]), expect)
