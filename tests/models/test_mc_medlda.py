"""Monte Carlo MedLDA (Jiang et al. 2012): the outer loop's bookkeeping and stopping rule, its
SVM step against the solver, checkpoints, prediction and bad input. The topic steps' exactness
with frozen multipliers is tests/test_svm.py; the importance estimate's,
tests/kernels/test_importance.py."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup import LDA, MCMedLDA, Session
from topicsup.corpus import Corpus
from topicsup.svm import crammer_singer_dual, tilt_term
from topicsup.synthetic import make_synthetic

from ..test_session import assert_resumes_exactly


@pytest.fixture(scope="module")
def data():
    syn = make_synthetic(n_docs=300, n_topics=5, task="multiclass", n_classes=3, seed=4)
    return syn.corpus.take(np.arange(200)), syn.corpus.take(np.arange(200, 300))


def _outer(s):
    h = s.history
    return h[h["metric"].isin(["outer_iteration", "objective", "objective_change", "support",
                               "train_accuracy", "svm_epochs", "nonzero_multipliers"])
             ].pivot_table(index="sweep", columns="metric", values="value")


@pytest.mark.parametrize("sampler", ["gibbs", "importance"])
def test_the_alternation_stops_at_its_tolerance_and_its_svm_step_is_the_dual_on_e_zbar(
        data, sampler):
    """Sweeps run until the topic objective settles (J sweeps averaged for gMedLDA), then
    the SVM step: its kappa and multipliers are those of ``crammer_singer_dual`` on E[zbar]
    (recomputed here from the state before the step; kappa is unique, the multipliers
    feasible and building it), the tilt is ``tilt_term`` of them,
    and the history has the outer iteration's rows. The run ends when the objective's
    relative change is below epsilon (or at max_iterations): ``run`` then returns fewer
    sweeps than asked, and none after."""
    train, _ = data
    model = MCMedLDA(K=5, sampler=sampler, C=2000.0, epsilon=1e-3, max_iterations=6,
                     svm_tol=1e-10, svm_max_epochs=100_000,
                     **({"J": 2} if sampler == "gibbs" else {"importance_samples": 0}))
    s = Session(model, train, seed=1)
    step_seen = 0
    while not s.model.finished(s.state):
        before = s.state.copy()
        s.run(1)
        h = s.history
        rows = h[(h["sweep"] == s.n_sweeps) & (h["metric"] == "outer_iteration")]
        if rows.empty:
            continue
        step_seen += 1
        # replay the step from the state before the sweep's end, with the session's stream
        zbar = (_expected_zbar(before, train) if sampler == "importance" else
                (before.supervision.loop.zbar_sum
                 + s.model.doc_topic_counts(s.state, s.problem) / train.doc_lengths[:, None])
                / s.model.J)
        if sampler == "importance":   # the model's own E[zbar], recovered from eq. 19's theta
            np.testing.assert_allclose(s.model.expected_zbar(s.state, train), zbar, atol=1e-9)
        y = np.asarray(train.labels.values)
        sol = crammer_singer_dual(zbar, y, 2000.0, tol=1e-10, n_classes=3, seed=7,
                                  max_epochs=100_000)
        kappa = s.state.supervision.weights.eta
        np.testing.assert_allclose(kappa, sol.kappa, atol=1e-6 * np.abs(sol.kappa).max())
        lam = s.state.supervision.loss.multipliers
        assert (lam >= 0).all() and lam.sum(1).max() <= 2000.0 / train.n_docs * (1 + 1e-12)
        assert np.allclose(kappa, (np.eye(3)[y] * lam.sum(1)[:, None] - lam).T @ zbar)
        b, w = tilt_term(lam, y)
        np.testing.assert_array_equal(s.state.supervision.loss.b, b)
        assert not w.any()
        assert rows["value"].iloc[0] == step_seen
    out = _outer(s)
    assert len(out) == step_seen >= 2
    last = out.iloc[-1]
    assert last["objective_change"] < 1e-3 or step_seen == 6
    assert 0 < last["support"] <= 1 and last["train_accuracy"] > 0.45   # chance: 1/3
    assert s.run(5) == 0 and s.model.finished(s.state)


def _expected_zbar(state, corpus):
    """E[zbar] of one pass of eq. 17 (exact expectations) from the estimates and tilt of
    ``state``, by numpy: p(z = k) ∝ theta_dk phi_kw exp(sum_t b_td kappa_tk / N_d)."""
    theta, phi = state.sampler.theta, state.sampler.phi
    sup = state.supervision
    N = corpus.doc_lengths
    docs = np.repeat(np.arange(corpus.n_docs), N)
    g = sup.loss.b.T @ sup.weights.eta / N[:, None]
    p = theta[docs] * phi[corpus.words] * np.exp(g - g.max(1, keepdims=True))[docs]
    p /= p.sum(1, keepdims=True)
    out = np.zeros_like(theta)
    np.add.at(out, docs, p)
    return out / N[:, None]


@pytest.mark.parametrize("sampler", ["gibbs", "light", "importance"])
def test_a_checkpoint_mid_sweep_resumes_the_alternation_exactly(data, tmp_path, sampler):
    """Stop part-way through a sweep, save, load, finish: every array (topics, multipliers,
    kappa, the outer loop's position and the importance estimates) equals an uninterrupted
    run's, across several SVM steps."""
    train, _ = data
    model = MCMedLDA(K=4, sampler=sampler, C=2000.0, epsilon=1e-6, max_iterations=50,
                     max_inner=2, **({"J": 3} if sampler == "gibbs" else {}))
    r = assert_resumes_exactly(model, train, tmp_path / "mc.npz", block_tokens=500, before=3,
                               total=9)
    # gibbs, J = 3: a step every 2 + 2 sweeps (the settling sweep is the first of the 3)
    assert r.state.supervision.loop.counts[0] == (2 if sampler == "gibbs" else 4)
    # a forged loop position is refused by name (a checkpoint is untrusted)
    loop = r.state.supervision.loop
    for forge, msg in ((lambda: loop.zbar_sum.__setitem__((0, 0), -1.0), "mc_zbar_sum"),
                       (lambda: loop.counts.__setitem__(1, 10**6), "inner sweeps")):
        saved = (loop.zbar_sum.copy(), loop.counts.copy())
        forge()
        with pytest.raises(ValueError, match=msg):
            r.model.validate_state(r.state, r.model.bind(train))
        loop.zbar_sum[...], loop.counts[...] = saved


def test_it_learns_and_predicts_in_the_labels_type(data):
    """gMedLDA and iMedLDA with C large enough for the tilt to matter classify held-out
    documents of a synthetic corpus well above chance (1/3), as class names; iMedLDA's
    topics are its eq. 19 estimates."""
    train, test = data
    for model in (MCMedLDA(K=5, C=4000.0, epsilon=1e-3, max_iterations=15),
                  MCMedLDA.importance(K=5, C=4000.0, epsilon=1e-3, max_iterations=15)):
        s = Session(model, train, seed=0)
        s.run(400)
        assert s.score(test) > 0.6, model   # chance: 1/3
        pred = s.predict(test)
        assert set(pred) <= set(train.labels.classes)
    np.testing.assert_array_equal(s.topic_word(), s.state.sampler.phi.T)   # eq. 19's
    assert s.model.beta == 1e-5 and s.model.alpha == pytest.approx(0.01 / 5)


def test_the_importance_estimator_runs_lda_with_the_likelihood_as_its_log_joint(data):
    """Without labels the importance estimator is eq. 17-19 for LDA (iLDA): its history's
    log joint is log p(W | Theta, Phi) of its estimates, which rises."""
    train, _ = data
    s = Session(LDA(K=5, alpha=0.1, sampler="importance", importance_samples=0), train, seed=0)
    s.run(15)
    lj = s.metric("log_joint").to_numpy()
    assert lj[-1] > lj[0] and np.isfinite(lj).all()
    theta, phi = s.state.sampler.theta, s.state.sampler.phi
    words, ptr = train.words, train.doc_ptr
    docs = np.repeat(np.arange(train.n_docs), np.diff(ptr))
    assert lj[-1] == pytest.approx(np.log((theta[docs] * phi[words]).sum(1)).sum(), rel=1e-10)


def test_its_read_outs_show_no_nan_before_or_after_the_first_svm_step():
    """What a newcomer reads of ``Session(MCMedLDA(K=4), demo corpus)``: before any sweep,
    in the first outer iteration (the weights still zero) and after SVM steps, the history,
    the summary and the shrinkage table hold no NaN. The first outer iteration has no
    objective to change from (no ``objective_change`` row); the summary leaves out a metric
    not measured yet; the shrinkage has no row while the weights are all zero."""
    import pandas as pd

    from topicsup.datasets import load_demo_frame
    df = load_demo_frame()
    corpus = Corpus.from_tokens(df["tokens"], labels=df["label"])
    s = Session(MCMedLDA(K=4, max_inner=3), corpus, seed=0)

    def no_nan() -> None:
        assert not s.history["value"].isna().any()
        summ = s.summary()
        assert not [k for k, v in summ.items() if isinstance(v, float) and np.isnan(v)]
        assert not s.shrinkage().isna().to_numpy().any()
        assert not s.coefficients().drop(columns=["scale"]).isna().to_numpy().any()

    no_nan()
    assert "log_joint" not in s.summary() and s.shrinkage().empty
    s.sweep(2)   # inside the first outer iteration: no weights yet
    no_nan()
    assert s.shrinkage().empty and s.summary()["log_joint"] == s.metric("log_joint").iloc[-1]
    s.sweep(10)
    no_nan()
    h = s.history
    steps = int((h["metric"] == "outer_iteration").sum())
    assert steps >= 2 and int((h["metric"] == "objective_change").sum()) == steps - 1
    shrink = s.shrinkage()
    assert list(shrink.index) == list(corpus.labels.classes)
    assert isinstance(shrink, pd.DataFrame) and (shrink["top_share"] > 0).all()


@pytest.mark.parametrize("kw, msg", [
    ({"nu": 2.0}, r"nu=2.0: Jiang's dual"),
    ({"sampler": "importance", "J": 3}, r"J=3 \(sampler='importance' does not use it"),
    ({"sampler": "alias"}, r"MCMedLDA estimates E\[zbar\] with sampler .* got 'alias'"),
    ({"intercept": True}, "intercept=True: Monte Carlo MedLDA has no intercept"),
    ({"epsilon": -1.0}, "epsilon must be"),
    ({"C": 0.0}, "C must be"),
    ({"importance_samples": -1, "sampler": "importance"}, "importance_samples must be"),
    ({"lam": 2.0}, "unexpected keyword argument 'lam'"),
    ({"supervised_factor": "marginal"}, "supervised_factor='marginal'"),
])
def test_bad_settings_are_named(kw, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        MCMedLDA(K=4, **kw)


def test_labels_it_cannot_use_are_named():
    words = [["w0", "w1"], ["w1", "w2"], ["w3"]]
    multi = Corpus.from_tokens(words, labels=[["a"], ["a", "b"], ["b"]])
    with pytest.raises(ValueError, match="corpus.labels are 'multilabel'"):
        Session(MCMedLDA(K=2), multi)
    with pytest.raises(ValueError, match="needs a labelled corpus"):
        Session(MCMedLDA(K=2), Corpus.from_tokens(words))
