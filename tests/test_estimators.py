"""The scikit-learn estimator: fit/predict/transform/score, pipelines, cloning, determinism.

Proven: a ``CountVectorizer -> MedLDAClassifier`` pipeline fits raw texts and predicts class
names well above chance; ``clone``/``get_params``/``set_params`` round-trip; one-vs-all gives
the same model whatever ``n_jobs``; shapes follow scikit-learn's conventions for binary,
multi-class and multi-label targets; misuse raises a named error.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

from topicsup.datasets import make_synthetic
from topicsup.corpus import Corpus
from topicsup.estimators import (RENAMED, LDATransformer, MedLDAClassifier,
                                 SupervisedLDAClassifier, SupervisedLDARegressor)
from topicsup.kernels.rng import derive, seed_state
from topicsup.models import (DOLDA, GSLDA, SLDA, LightMedLDA, LightSLDA, MedLDA,
                             SupervisedLDA)
from topicsup.session import Session


def _data(task, n=600):
    c = make_synthetic(n_docs=n, task=task, n_classes=3, seed=0).corpus
    texts = [" ".join(c.document(d)) for d in range(c.n_docs)]
    y = c.labels.values if task == "multilabel" else c.labels.names()
    return c.to_matrix(), texts, y


def test_pipeline_on_raw_texts():
    _, texts, y = _data("multiclass")
    pipe = make_pipeline(CountVectorizer(), MedLDAClassifier(6, lam=4.0, max_iter=25))
    pipe.fit(texts[:400], y[:400])
    pred = pipe.predict(texts[400:])
    assert set(pred) <= set(y)
    assert pipe.score(texts[400:], y[400:]) > 0.6  # chance is 1/3
    params = clone(pipe).get_params()
    assert params["medldaclassifier__lam"] == 4.0


@pytest.mark.parametrize("sampler", ["light", "gibbs"])
def test_one_vs_all_is_the_same_whatever_n_jobs(sampler):
    X, _, y = _data("multiclass", 300)
    kw = dict(sampler=sampler, strategy="ovr", lam=4.0, max_iter=8, random_state=5)
    a = MedLDAClassifier(4, n_jobs=1, **kw).fit(X[:200], y[:200])
    b = MedLDAClassifier(4, n_jobs=2, **kw).fit(X[:200], y[:200])
    assert len(a.sessions_) == 3
    assert np.array_equal(a.decision_function(X[200:]), b.decision_function(X[200:]))
    assert a.transform(X[200:205]).shape == (5, 12)
    assert a.coefficients_.shape == (3, 4)


def test_shapes_for_binary_and_multilabel():
    X, _, y = _data("binary", 300)
    est = MedLDAClassifier(4, lam=4.0, max_iter=10).fit(X[:200], y[:200])
    assert est.decision_function(X[200:]).shape == (100,)
    assert est.predict(X[200:]).shape == (100,)
    assert est.transform(X[200:]).shape == (100, 4)
    X, _, Y = _data("multilabel", 300)
    est = MedLDAClassifier(4, lam=4.0, max_iter=10).fit(X[:200], Y[:200])
    assert est.predict(X[200:]).shape == (100, 3)
    assert 0.0 <= est.score(X[200:], Y[200:]) <= 1.0


def test_set_params_and_errors():
    est = MedLDAClassifier().set_params(n_components=7, sampler="gibbs")
    assert est.get_params()["n_components"] == 7
    X, _, y = _data("binary", 100)
    with pytest.raises(ValueError, match="not fitted"):
        est.predict(X)
    with pytest.raises(ValueError, match="strategy must be"):
        MedLDAClassifier(strategy="ovo").fit(X, y)
    with pytest.raises(ValueError, match="max_iter must be"):
        MedLDAClassifier(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="max_iter = 6 is too short for n_snapshots = 4"):
        MedLDAClassifier(max_iter=6, n_snapshots=4).fit(X, y)
    with pytest.raises(ValueError, match="lda_init_sweeps = 6 leaves no supervised sweep"):
        MedLDAClassifier(max_iter=6, lda_init_sweeps=6).fit(X, y)
    with pytest.raises(ValueError, match="lda_init_sweeps must be"):
        MedLDAClassifier(lda_init_sweeps=-1).fit(X, y)
    with pytest.raises(ValueError, match="vocabulary has 2 words"):
        MedLDAClassifier(vocabulary=["a", "b"]).fit(X, y)
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        MedLDAClassifier().fit(X, None)
    with pytest.raises(ValueError, match="supervised_factor must be one of"):
        MedLDAClassifier(supervised_factor="probit").fit(X, y)
    gibbs = MedLDAClassifier(n_components=3, sampler="gibbs", supervised_factor="marginal",
                             max_iter=2).fit(X, y)
    assert gibbs.sessions_[0].model.supervised_factor == "marginal"
    assert MedLDAClassifier(n_components=3, max_iter=2).fit(X, y).sessions_[0].model \
        .supervised_factor == "marginal"   # LightMedLDA's default


@pytest.mark.parametrize("sampler,preset", [("light", "LightSLDA"), ("gibbs", "GSLDA")])
def test_the_logistic_classifier_trains_gslda_and_takes_only_its_own_settings(sampler, preset):
    X, _, y = _data("multiclass", 300)
    est = SupervisedLDAClassifier(3, loss="logistic", sampler=sampler, max_iter=20,
                                  strategy="ovr").fit(X[:200], y[:200])
    models = [s.model for s in est.sessions_]
    assert len(models) == 3 and {type(m).__name__ for m in models} == {preset}
    assert models[0].loss == "logistic" and models[0].c == 25.0   # gSLDA+ by default
    assert est.score(X[200:], y[200:]) > 0.6          # 3 balanced classes: chance is 1/3
    assert SupervisedLDAClassifier(loss="logistic", c=4.0)._model().c == 4.0
    assert MedLDAClassifier()._model().lam == 102.4 and MedLDAClassifier().loss == "hinge"
    with pytest.raises(ValueError, match=r"lam=5.0 \(loss='logistic' does not use it\)"):
        SupervisedLDAClassifier(loss="logistic", lam=5.0).fit(X, y)
    with pytest.raises(ValueError, match=r"c=2.0 \(loss='hinge' does not use it\)"):
        MedLDAClassifier(c=2.0).fit(X, y)
    with pytest.raises(ValueError, match=r"lam=1.0 \(loss='logistic' does not use it\)"):
        SupervisedLDAClassifier(loss="logistic", lam=1.0).fit(X, y)   # the hinge's default too
    with pytest.raises(ValueError, match="loss must be one of"):
        SupervisedLDAClassifier(loss="probit").fit(X, y)


def test_snapshot_ensemble_averages_one_fold_in_per_snapshot():
    """With n_snapshots = 3 the estimator keeps three topic snapshots two sweeps apart (the
    last one the final state) and its scores are the mean of the model's scores over them."""
    X, _, y = _data("multiclass", 300)
    est = MedLDAClassifier(4, lam=4.0, max_iter=10, n_snapshots=3, composition="cycle",
                           random_state=3).fit(X[:200], y[:200])
    s, snaps = est.sessions_[0], est.snapshots_[0]
    assert len(snaps) == 3 and s.n_sweeps == 10 and s.model.composition == "cycle"
    assert np.array_equal(snaps[-1], s.model.topic_snapshot(s.state, s.problem))
    assert not np.array_equal(snaps[0], snaps[-1])
    corpus = est.corpus_.map(X[200:])
    rng = seed_state(3, stream=1000)
    expect = np.mean([s.model.decision_scores(s.state, s.model.fold_in(
        s.state, s.problem, corpus, derive(rng, j), est.predict_burn_in, est.predict_samples, phi))
        for j, phi in enumerate(snaps)], axis=0)
    assert np.allclose(est.decision_function(X[200:]), expect)


# ---------------------------------------------------------------- any model, one rule
@pytest.mark.parametrize("loss,sampler,preset,own", [
    ("hinge", "light", LightMedLDA, {}), ("hinge", "gibbs", MedLDA, {}),
    ("logistic", "light", LightSLDA, {"c": 25.0}), ("logistic", "gibbs", GSLDA, {"c": 25.0})])
def test_loss_and_sampler_build_the_presets_they_always_built(loss, sampler, preset, own):
    """Without model=, (loss, sampler) builds the preset the estimator's old table named with
    the parameters it gave (so the chains are the same), found among the presets; a loss no
    preset trains with the sampler is SupervisedLDA with those parts."""
    est = SupervisedLDAClassifier(5, loss=loss, sampler=sampler, max_iter=10)
    assert est._model() == preset(K=5, **own, alpha=None, beta=0.01, S_gibbs=2, burn_in=5,
                                  lda_init_sweeps=0, sampler=sampler)
    probit = SupervisedLDAClassifier(3, loss="do_probit", sampler="gibbs")._model()
    assert type(probit) is SupervisedLDA and (probit.loss, probit.sampler, probit.weight_sampler
                                              ) == ("do_probit", "gibbs", "cholesky")


@pytest.mark.parametrize("model", [DOLDA(K=3), LightMedLDA(K=3, lam=4.0)],
                         ids=["DOLDA", "LightMedLDA"])
def test_a_model_given_trains_the_chain_a_session_of_it_trains(model):
    """model= trains that model: the chain, weights, scores, predictions and accuracy are a
    Session's of the same model on the same corpus with the same seed, folded in on the same
    streams (the task's rule predicts and scores for both)."""
    c = make_synthetic(n_docs=200, task="multiclass", n_classes=3, seed=0).corpus
    X, y = c.to_matrix(), c.labels.names()
    est = SupervisedLDAClassifier(model=model, max_iter=8, predict_burn_in=3, predict_samples=3,
                                  vocabulary=c.vocabulary, random_state=2).fit(X[:150], y[:150])
    train = Corpus.from_matrix(X[:150], c.vocabulary, labels=y[:150], empty="keep")
    s = Session(model, train, seed=est.sessions_[0].seed)
    s.run(8)
    assert est.sessions_[0].model == s.model and est.n_iter_ == 8
    fold_in = dict(n_burn=3, n_keep=3, snapshots=[s.topic_snapshot()],
                   key=seed_state(2, stream=1000))
    np.testing.assert_array_equal(est.coefficients_, s.mean_weights())
    np.testing.assert_array_equal(est.decision_function(X[150:]),
                                  s.decision_function(X[150:], **fold_in))
    assert est.predict(X[150:]).tolist() == s.predict(X[150:], **fold_in).tolist()
    assert est.score(X[150:], y[150:]) == s.score(X[150:], y[150:], **fold_in)


def test_a_model_given_equal_to_the_default_trains_the_same_chain():
    """LightMedLDA with the parameters the defaults give it is the default classifier: the
    same model, the same scores; a grid searches the model's own parameters (model__K)."""
    from sklearn.model_selection import GridSearchCV
    X, _, y = _data("binary", 120)
    kw = dict(max_iter=6, predict_burn_in=2, predict_samples=2)
    a = SupervisedLDAClassifier(3, lam=4.0, **kw).fit(X, y)
    b = SupervisedLDAClassifier(model=LightMedLDA(K=3, lam=4.0, burn_in=3, sampler="light"),
                                **kw).fit(X, y)
    assert a.sessions_[0].model == b.sessions_[0].model
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert clone(b).get_params()["model"] == b.model and b.get_params()["model__K"] == 3
    grid = GridSearchCV(b, {"model__K": [2, 3]}, cv=2).fit(X, y)
    assert grid.best_params_["model__K"] in (2, 3) and b.model.K == 3


def test_a_model_given_is_checked_and_takes_no_model_setting_beside_it():
    X, _, y = _data("binary", 60)
    with pytest.raises(TypeError, match="model instance such as .* got the class DOLDA"):
        SupervisedLDAClassifier(model=DOLDA).fit(X, y)
    with pytest.raises(ValueError, match=r"model=SLDA\(loss='gaussian'\) models real "
                                         r"responses: use SupervisedLDARegressor"):
        SupervisedLDAClassifier(model=SLDA(K=3)).fit(X, y)
    with pytest.raises(ValueError, match="got model= and n_components=5, lam=4.0: the model's "
                                         "parameters come from the model"):
        SupervisedLDAClassifier(5, model=DOLDA(K=3), lam=4.0).fit(X, y)


@pytest.mark.parametrize("task", ["multiclass", "multilabel"])
def test_one_vs_all_predicts_by_the_rule_of_the_labels_task(task):
    """One-vs-all's binary models' scores side by side are read by the task of all the
    labels: the argmax for multi-class, the positive ones for multi-label."""
    X, _, y = _data(task, 150)
    est = MedLDAClassifier(3, lam=4.0, strategy="ovr", max_iter=6, predict_burn_in=2,
                           predict_samples=2).fit(X[:100], y[:100])
    scores, pred = est.decision_function(X[100:]), est.predict(X[100:])
    expect = est.classes_[scores.argmax(axis=1)] if task == "multiclass" else scores > 0
    np.testing.assert_array_equal(pred, expect)


def test_the_old_parameter_names_work_with_a_future_warning():
    """n_topics, n_iter, alpha and beta (before scikit-learn's names) still work for one
    release: each warns naming its new name, and trains what the new name trains;
    get_params and clone round-trip; both names at once, or a bad value, are named errors."""
    X, _, y = _data("binary", 100)
    new = MedLDAClassifier(3, lam=4.0, max_iter=4, doc_topic_prior=0.5, topic_word_prior=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new.fit(X, y)
    old = MedLDAClassifier(n_topics=3, lam=4.0, n_iter=4, alpha=0.5, beta=0.05)
    with pytest.warns(FutureWarning) as record:
        old.fit(X, y)
    said = " ".join(str(w.message) for w in record)
    for before, after in RENAMED.items():
        assert f"{before} was renamed {after}" in said
    assert old.sessions_[0].model == new.sessions_[0].model
    np.testing.assert_array_equal(old.decision_function(X), new.decision_function(X))
    params = old.get_params()
    assert params["n_topics"] == 3 and params["n_components"] == 20
    assert clone(old).get_params() == params and new.get_params()["n_topics"] == "deprecated"
    with pytest.raises(ValueError, match="got n_topics=3 and n_components=4; n_topics is the "
                                         "old name of n_components: pass n_components only"):
        MedLDAClassifier(4, n_topics=3).fit(X, y)
    with pytest.warns(FutureWarning), pytest.raises(TypeError,
                                                    match="n_topics must be an integer"):
        MedLDAClassifier(n_topics="3").fit(X, y)
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="n_iter = 6 is too short"):
        MedLDAClassifier(n_iter=6, n_snapshots=4).fit(X, y)
    responses = np.linspace(-1.0, 1.0, 100)
    with pytest.warns(FutureWarning) as record:
        reg = SupervisedLDARegressor(n_topics=3, n_iter=3, alpha=0.5, beta=0.05).fit(
            X, responses)
    assert len(record) == 4 and "n_iter was renamed max_iter" in str(record[1].message)
    ref = SupervisedLDARegressor(3, max_iter=3, doc_topic_prior=0.5,
                                 topic_word_prior=0.05).fit(X, responses)
    np.testing.assert_array_equal(reg.predict(X), ref.predict(X))
    with pytest.warns(FutureWarning) as record:
        lda = LDATransformer(n_topics=3, n_iter=3, alpha=0.2, beta=0.05).fit(X)
    assert len(record) == 4 and "beta was renamed topic_word_prior" in str(record[3].message)
    ref = LDATransformer(3, max_iter=3, doc_topic_prior=0.2, topic_word_prior=0.05).fit(X)
    np.testing.assert_array_equal(lda.components_, ref.components_)


def test_grid_search_chooses_the_lda_transformers_number_of_topics():
    """LDATransformer.score is minus the held-out perplexity (Session.perplexity), higher is
    better, so GridSearchCV over n_components runs and picks one: on documents drawn from 6
    topics, 6 rather than 2."""
    from sklearn.model_selection import GridSearchCV
    X = make_synthetic(n_docs=300, n_topics=6, doc_length=60, seed=3).corpus.to_matrix()
    lda = LDATransformer(2, max_iter=30, predict_burn_in=10, predict_samples=10)
    grid = GridSearchCV(lda, {"n_components": [2, 6]}, cv=3).fit(X)
    assert grid.best_params_ == {"n_components": 6}
    best = grid.best_estimator_
    assert best.score(X[:50]) == -best.session_.perplexity(
        best.corpus_.map(X[:50]), 10, 10, seed=best.random_state_) < 0


# ---------------------------------------------------------------- scikit-learn conventions
CONFIGS = {"light": dict(n_components=3, max_iter=4, predict_burn_in=2, predict_samples=2),
           "gibbs-ovr": dict(n_components=3, max_iter=4, predict_burn_in=2, predict_samples=2,
                             sampler="gibbs", strategy="ovr", n_jobs=2),
           "snapshots": dict(n_components=3, max_iter=6, predict_burn_in=1, predict_samples=2,
                             n_snapshots=2),
           "logistic": dict(n_components=3, max_iter=4, predict_burn_in=2, predict_samples=2,
                            loss="logistic")}

# Checks that cannot apply, with the reason: none. The estimator's tags (sparse, positive_only,
# categorical so the checks generate integer X, multi_label, poor_score for the accuracy bar
# on rounded blobs; see MedLDAClassifier.__sklearn_tags__) let every check run and pass,
# n_components = 1 (scikit-learn's habit with that name) included: a one-topic model is a
# model. A check that starts failing fails this test.
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


def _check_estimator(est):
    """scikit-learn's ``check_estimator`` results for ``est`` and how many passed, asserting
    that none failed."""
    from sklearn.utils import estimator_checks
    results = estimator_checks.check_estimator(
        est, expected_failed_checks=EXPECTED_FAILED_CHECKS, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:300]) for r in results
              if r["status"] == "failed"]
    assert not failed, failed
    return results, sum(r["status"] == "passed" for r in results)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_scikit_learn_estimator_checks_pass(config):
    """``check_estimator`` runs every applicable scikit-learn check (legacy ones included)
    on four configurations (one with the logistic loss) and none fails; the two it skips need
    predict_proba (not offered) or the array API environment."""
    results, passed = _check_estimator(SupervisedLDAClassifier(**CONFIGS[config]))
    assert passed >= 60
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert skipped <= {"check_array_api_input",
                       "check_classifiers_multilabel_output_format_predict_proba"}, skipped


@pytest.mark.parametrize("y", [
    np.array([0, 1] * 50), np.array([-1, 1] * 50), np.array([True, False] * 50),
    np.array([0.0, 2.0] * 50), np.array(["no", "yes"] * 50), [3, 7, 9, 3] * 25,
    pd.Series(["a", "b", "c", "a"] * 25), pd.Categorical(["x", "y"] * 50)])
def test_labels_come_back_in_the_type_given(y):
    """Integer labels predict integers (so score and GridSearchCV compare like with like),
    strings strings, bools bools; classes_ keeps the values and their dtype."""
    X, _, _ = _data("binary", 100)
    est = MedLDAClassifier(3, lam=4.0, max_iter=4, predict_burn_in=1, predict_samples=1)
    est.fit(X, y)
    expected = np.unique(np.asarray(y))
    assert np.array_equal(est.classes_, expected) and est.classes_.dtype == expected.dtype
    pred = est.predict(X)
    assert pred.dtype == expected.dtype and set(pred.tolist()) <= set(expected.tolist())
    assert est.score(X, y) == np.mean(pred == np.asarray(y))


def test_multilabel_predictions_keep_the_form_given():
    X, _, Y = _data("multilabel", 120)
    est = MedLDAClassifier(3, lam=4.0, max_iter=4, predict_burn_in=1, predict_samples=1)
    pred = est.fit(X, Y.astype(np.int64)).predict(X)
    assert pred.dtype == np.int64 and pred.shape == Y.shape
    sets = [{f"l{j}" for j in np.flatnonzero(row)} for row in Y]
    pred_sets = est.fit(X, sets).predict(X)
    assert isinstance(pred_sets, list) and all(isinstance(p, tuple) for p in pred_sets)
    assert set(est.classes_) == {"l0", "l1", "l2"}
    assert 0.0 <= est.score(X, sets) <= 1.0


def test_pandas_in_grid_search_and_dataframe_columns_as_words():
    """A DataFrame of counts trains with its column names as the vocabulary (so texts can be
    predicted too), predicts one label per row, refuses reordered columns, and integer
    labels give GridSearchCV the right scores; transform can return a DataFrame."""
    from sklearn.model_selection import GridSearchCV
    c = make_synthetic(n_docs=200, task="binary", seed=0).corpus
    df = pd.DataFrame(c.to_matrix().toarray(), columns=list(c.vocabulary))
    y = pd.Series(c.labels.values.astype(int))
    est = MedLDAClassifier(4, lam=4.0, max_iter=10).fit(df, y)
    assert list(est.feature_names_in_) == list(c.vocabulary) and est.n_features_in_ == c.n_words
    assert est.corpus_.vocabulary == c.vocabulary
    assert est.predict(df).shape == (200,) and est.predict(df).dtype == y.dtype
    texts = [" ".join(c.document(d)) for d in range(5)]
    assert est.predict(texts).shape == (5,)
    with pytest.raises(ValueError, match="feature names"):
        est.predict(df[df.columns[::-1]])
    grid = GridSearchCV(MedLDAClassifier(4, max_iter=8), {"lam": [4.0]}, cv=2).fit(df, y)
    assert grid.best_score_ > 0.6
    est.set_output(transform="pandas")
    theta = est.transform(df.iloc[:3])
    assert list(theta.columns) == [f"topic_{k}" for k in range(4)] and len(theta) == 3


def test_a_vectorizer_vocabulary_dict_maps_its_columns():
    """vocabulary=CountVectorizer.vocabulary_ (word -> column) names each column by its
    own word, not in the dict's insertion order."""
    _, texts, y = _data("binary", 120)
    cv = CountVectorizer()
    X = cv.fit_transform(texts)
    est = MedLDAClassifier(3, lam=4.0, max_iter=4, vocabulary=cv.vocabulary_).fit(X, y)
    assert list(est.corpus_.vocabulary) == list(cv.get_feature_names_out())
    ref = MedLDAClassifier(3, lam=4.0, max_iter=4,
                           vocabulary=cv.get_feature_names_out()).fit(X, y)
    assert np.array_equal(est.decision_function(texts[:10]), ref.decision_function(texts[:10]))


def test_set_params_after_fit_leaves_the_fitted_model_alone():
    X, _, y = _data("binary", 100)
    est = MedLDAClassifier(3, lam=4.0, max_iter=4).fit(X, y)
    before = est.transform(X[:4])
    est.set_params(n_components=5)
    assert np.array_equal(est.transform(X[:4]), before)
    assert list(est.get_feature_names_out()) == ["topic_0", "topic_1", "topic_2"]


def test_a_prediction_does_not_depend_on_the_other_documents():
    """Each document is folded in on its own stream: predicted alone, in a subset or in
    another order, its scores are the same bits."""
    X, _, y = _data("multiclass", 160)
    est = MedLDAClassifier(3, lam=4.0, max_iter=6).fit(X[:100], y[:100])
    full = est.decision_function(X[100:])
    order = np.arange(60)[::-1]
    assert np.array_equal(est.decision_function(X[100:][order]), full[order])
    assert np.array_equal(est.decision_function(X[105:106]), full[5:6])


def test_texts_in_a_pandas_series():
    """A Series of texts (pandas' str dtype) is documents, not a column of numbers."""
    c = make_synthetic(n_docs=120, task="binary", seed=1).corpus
    texts = pd.Series([" ".join(c.document(d)) for d in range(c.n_docs)])
    y = pd.Series(c.labels.names())
    est = MedLDAClassifier(3, lam=4.0, max_iter=6).fit(texts, y)
    assert not hasattr(est, "n_features_in_")
    pred = est.predict(texts.iloc[:10])
    assert pred.shape == (10,) and set(pred) <= set(y)


def test_a_failed_fit_leaves_the_estimator_unfitted():
    """A re-fit that fails does not leave the old model answering with the new labels."""
    from sklearn.exceptions import NotFittedError
    X, _, y = _data("binary", 100)
    est = MedLDAClassifier(3, lam=4.0, max_iter=4).fit(X, y)
    bad = X.toarray()
    bad[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values"):
        est.fit(bad, np.where(y == y[0], "ham", "spam"))
    with pytest.raises(NotFittedError):
        est.predict(X)
    assert not hasattr(est, "classes_") and not hasattr(est, "n_features_in_")


def test_documents_in_any_iterable_and_empty_first_documents():
    """A generator of texts is read once, in full (no document skipped); token lists whose
    first document is empty are still documents; a None among texts is named."""
    c = make_synthetic(n_docs=80, task="binary", seed=2).corpus
    texts = [" ".join(c.document(d)) for d in range(c.n_docs)]
    y = c.labels.names()
    est = MedLDAClassifier(3, lam=4.0, max_iter=4)
    a = est.fit((t for t in texts), y).decision_function(texts)
    b = MedLDAClassifier(3, lam=4.0, max_iter=4).fit(texts, y).decision_function(texts)
    assert np.array_equal(a, b)
    tokens = [[]] + [c.document(d) for d in range(1, c.n_docs)]
    assert MedLDAClassifier(3, lam=4.0, max_iter=2).fit(tokens, y).corpus_.doc_lengths[0] == 0
    with pytest.raises(TypeError, match=r"docs\[79\] is a NoneType while docs\[0\] is a str"):
        est.predict(texts[:79] + [None])


def test_a_labelled_corpus_trains_without_y_and_keeps_its_class_names():
    c = make_synthetic(n_docs=90, task="multilabel", n_classes=3, seed=2).corpus
    est = MedLDAClassifier(3, lam=4.0, max_iter=4).fit(c)
    assert list(est.classes_) == list(c.labels.classes)
    assert list(est.sessions_[0].problem.task_names) == list(c.labels.classes)
    assert est.predict(c).shape == (90, 3)


def test_multilabel_set_scores_check_their_labels():
    X, _, Y = _data("multilabel", 90)
    sets = [{f"l{j}" for j in np.flatnonzero(row)} for row in Y]
    est = MedLDAClassifier(3, lam=4.0, max_iter=4).fit(X, sets)
    with pytest.raises(ValueError, match="one set of labels for each of the 50 documents"):
        est.score(X[:50], sets)
    with pytest.raises(TypeError, match=r"y\[0\] is a str"):
        est.score(X[:2], ["l0", "l1"])
    with pytest.raises(ValueError, match=r"y\[0\] contains class 'zz', which is not one of"):
        est.score(X[:1], [{"zz"}])


def test_ctrl_c_stops_a_fit_in_its_worker_threads():
    """SIGINT while fit waits on its training threads stops every session after its current
    block (not after the whole fit: 100,000 sweeps would not end) and leaves the estimator
    unfitted. The signal is sent once both training threads' sessions are sampling (each
    says so after its first block), however long that takes."""
    from .testing.sigint import interrupt_when
    code = """
import threading, time
from topicsup.datasets import make_synthetic
from topicsup.estimators import MedLDAClassifier
from topicsup.session import Session
c = make_synthetic(n_docs=600, n_topics=6, doc_length=80, task="multiclass", n_classes=3,
                   seed=1).corpus
est = MedLDAClassifier(6, lam=4.0, max_iter=100000, strategy="ovr", n_jobs=2)
run_block, sampling, lock = Session._run_block, set(), threading.Lock()
def announcing(self):
    run_block(self)
    with lock:   # a session sampling owns itself: a stop requested now reaches it
        if id(self) not in sampling:
            sampling.add(id(self))
            print("SAMPLING", len(sampling), flush=True)
Session._run_block = announcing
t0 = time.monotonic()
try:
    est.fit(c.to_matrix(), c.labels.names())
except KeyboardInterrupt:
    print("stopped after", round(time.monotonic() - t0, 1), "s;",
          "fitted" if hasattr(est, "sessions_") else "unfitted", flush=True)
"""
    code, out, sent = interrupt_when(code, lambda lines: lines[-1] == "SAMPLING 2")
    assert sent and code == 0, out[-3000:]
    words = out.strip().splitlines()[-1].split()
    # the seconds it took are printed for the log, never judged: a loaded machine is slow
    assert words[0] == "stopped" and words[-1] == "unfitted", out[-3000:]


# ---------------------------------------------------------------------- regression and LDA
@pytest.mark.parametrize("est", [
    SupervisedLDARegressor(3, max_iter=6, predict_burn_in=2, predict_samples=2),
    SupervisedLDARegressor(3, loss="epsilon_insensitive", sampler="light", max_iter=6,
                           predict_burn_in=2, predict_samples=2),
    LDATransformer(3, max_iter=5, predict_burn_in=2, predict_samples=2),
    LDATransformer(3, sampler="light", max_iter=5, predict_burn_in=2, predict_samples=2)],
    ids=["regressor-gaussian", "regressor-epsilon-light", "lda", "lda-light"])
def test_the_regressor_and_the_lda_transformer_pass_the_estimator_checks(est):
    """``check_estimator``: no check fails, none is skipped but the array API one."""
    results, passed = _check_estimator(est)
    assert {r["check_name"] for r in results if r["status"] == "skipped"} <= \
        {"check_array_api_input"}
    assert passed >= 45


def _responses(n=500):
    data = make_synthetic(n_docs=n, n_topics=5, doc_length=60, task="real", noise=0.3, seed=6)
    return data, data.corpus.to_matrix(), data.corpus.labels.values


@pytest.mark.parametrize("loss", ["gaussian", "epsilon_insensitive"])
def test_the_regressor_predicts_held_out_responses(loss):
    """R^2 on 100 held-out documents within 0.9 of the generating truth's; texts through a
    pipeline give the same kind of answer; clone keeps the parameters."""
    from topicsup.tasks import r_squared
    data, X, y = _responses()
    est = SupervisedLDARegressor(5, loss=loss, max_iter=60, vocabulary=data.corpus.vocabulary)
    est.fit(X[:400], y[:400])
    oracle = r_squared(y[400:], data.scores[400:, 0])
    assert est.score(X[400:], y[400:]) >= 0.9 * oracle
    assert est.transform(X[400:]).shape == (100, 5) and est.coef_.shape == (5,)
    assert clone(est).get_params() == est.get_params()
    texts = [" ".join(data.corpus.document(d)) for d in range(400, 500)]
    assert r_squared(y[400:], est.predict(texts)) >= 0.9 * oracle


def test_the_lda_transformer_gives_topics_and_proportions():
    """components_ rows are distributions over the vocabulary, transform rows over the
    topics; a CountVectorizer pipeline works on raw texts; the same seed, the same topics."""
    _, texts, _ = _data("multiclass", 200)
    pipe = make_pipeline(CountVectorizer(), LDATransformer(4, max_iter=20))
    theta = pipe.fit_transform(texts)
    lda = pipe[-1]
    assert lda.components_.shape == (4, len(pipe[0].vocabulary_))
    np.testing.assert_allclose(lda.components_.sum(axis=1), 1.0)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert lda.doc_topic_.shape == (200, 4)
    again = make_pipeline(CountVectorizer(), LDATransformer(4, max_iter=20)).fit(texts)
    np.testing.assert_array_equal(again[-1].components_, lda.components_)
    with pytest.raises(ValueError, match="sampler must be one of"):
        LDATransformer(sampler="fast").fit(np.eye(3, dtype=int))


def test_the_new_estimators_honour_set_output_and_empty_documents():
    """transform gives a DataFrame under set_output(transform="pandas") (named topic_k); the
    LDA transformer's rows are distributions even for a document with no known word."""
    data, X, y = _responses(120)
    lda = LDATransformer(3, max_iter=3).set_output(transform="pandas").fit(X)
    out = lda.transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["topic_0", "topic_1",
                                                                  "topic_2"]
    Z = X[:3].toarray() if hasattr(X, "toarray") else np.asarray(X[:3]).copy()
    Z[0] = 0
    np.testing.assert_allclose(LDATransformer(3, max_iter=3).fit(X).transform(Z).sum(axis=1), 1.0)
    reg = SupervisedLDARegressor(3, max_iter=3).set_output(transform="pandas").fit(X, y)
    assert isinstance(reg.transform(X), pd.DataFrame)


def test_pandas_documents_get_pandas_outputs_with_their_index():
    """Texts in a Series with a shuffled integer index: predict, decision_function and
    transform (also under set_output(transform="pandas"), and fit_transform) give a Series /
    DataFrame with exactly that index and the values a list gets as arrays, and join back
    onto the user's frame; a shuffled y Series is aligned by index (the same model as y in
    order), a y with other entries is refused naming both; a DataFrame of counts with a
    string index gets it back from the LDA transformer and the regressor too."""
    c = make_synthetic(n_docs=120, task="binary", seed=1).corpus
    index = pd.Index(np.random.default_rng(0).permutation(120) * 3 + 1, name="id")
    texts = pd.Series([" ".join(c.document(d)) for d in range(c.n_docs)], index=index)
    y = pd.Series(c.labels.names(), index=index)
    kw = {"lam": 4.0, "max_iter": 4, "predict_burn_in": 1, "predict_samples": 1}
    est = MedLDAClassifier(3, **kw).fit(texts, y.sample(frac=1, random_state=2))
    ref = MedLDAClassifier(3, **kw).fit(list(texts), y.to_numpy())
    test = texts.iloc[:8]
    pred, scores, theta = est.predict(test), est.decision_function(test), est.transform(test)
    assert isinstance(pred, pd.Series) and isinstance(scores, pd.Series)
    assert isinstance(theta, pd.DataFrame) and list(theta.columns) == ["topic_0", "topic_1",
                                                                       "topic_2"]
    for out in (pred, scores, theta):
        pd.testing.assert_index_equal(out.index, test.index, exact=True)
    plain = list(test)
    assert isinstance(ref.predict(plain), np.ndarray) and isinstance(ref.transform(plain),
                                                                     np.ndarray)
    assert pred.tolist() == ref.predict(plain).tolist()
    np.testing.assert_array_equal(scores.to_numpy(), ref.decision_function(plain))
    np.testing.assert_array_equal(theta.to_numpy(), ref.transform(plain))
    frame = texts.to_frame("text").join(pred).join(theta)
    assert frame.loc[test.index, "prediction"].tolist() == pred.tolist()
    est.set_output(transform="pandas")
    pd.testing.assert_index_equal(est.transform(test).index, test.index, exact=True)
    pd.testing.assert_index_equal(est.fit_transform(texts, y).index, index, exact=True)
    assert isinstance(est.transform(plain).index, pd.RangeIndex)   # no index to keep
    with pytest.raises(ValueError, match=r"y is a pandas Series whose index differs from the "
                                         r"documents' index .*y\.loc\[X\.index\]"):
        MedLDAClassifier(3, **kw).fit(texts, y.reset_index(drop=True))

    df = pd.DataFrame(c.to_matrix().toarray(), columns=list(c.vocabulary),
                      index=index.astype(str))
    lda = LDATransformer(3, max_iter=3).fit(df)
    pd.testing.assert_index_equal(lda.transform(df.iloc[:5]).index, df.index[:5], exact=True)
    lda.set_output(transform="pandas")
    pd.testing.assert_index_equal(lda.fit_transform(df).index, df.index, exact=True)
    responses = pd.Series(np.linspace(-1.0, 1.0, 120), index=df.index)
    reg = SupervisedLDARegressor(3, max_iter=3).fit(df, responses)
    out = reg.predict(df.iloc[:5])
    assert isinstance(out, pd.Series) and out.name == "prediction"
    pd.testing.assert_index_equal(out.index, df.index[:5], exact=True)
    np.testing.assert_array_equal(out.to_numpy(),
                                  reg.predict(df.iloc[:5].reset_index(drop=True)).to_numpy())


# ---------------------------------------------------------------------- the parameter tables
@pytest.mark.parametrize("cls", [SupervisedLDAClassifier, SupervisedLDARegressor,
                                 LDATransformer])
def test_every_parameter_is_declared_once_in_the_table(cls):
    """Each estimator's ``_parameter_constraints`` names exactly its ``__init__``'s
    parameters (the deprecated old names aside, ``RENAMED``), and what follows from it is what
    the estimator does: the parameters ``model=`` replaces are those that set a model
    parameter, the loss's settings those a registered loss reads."""
    import inspect

    from topicsup.estimators import _params
    from topicsup.losses import REGISTRY as LOSSES
    init = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    table = cls._parameter_constraints
    assert [p for p in init if p not in RENAMED] == list(table)
    est = cls()
    sets = {name: p.sets for name, p in table.items() if p.sets}
    assert set(_params.model_params(est)) == set(sets) | {
        old for old, new in RENAMED.items() if new in sets}
    read = {p for n in LOSSES.names() for p in LOSSES.get(n).param_defaults()}
    assert set(_params.loss_params(est)) == {n for n, s in sets.items() if s in read}
    # every model parameter named is one the model the estimator builds takes (its own, or a
    # parameter of a part of one of its roles: "c" of the logistic loss for the hinge's model)
    cls_of_model = type(est._model(_params.renamed(est)[0]))
    takes = set(cls_of_model._class_defaults()) | set(cls_of_model._part_params())
    assert set(sets.values()) <= takes


def test_a_loss_setting_of_another_loss_is_refused_by_the_table():
    with pytest.raises(ValueError, match=r"c=4.0 \(loss='hinge' does not use it\)"):
        SupervisedLDAClassifier(loss="hinge", c=4.0)._model()
    with pytest.raises(ValueError, match=r"lam=3.0 \(loss='logistic' does not use it\)"):
        SupervisedLDAClassifier(loss="logistic", lam=3.0)._model()
