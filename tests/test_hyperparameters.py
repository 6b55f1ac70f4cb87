"""Learned Dirichlet parameters (``LDA(optimize=...)``, issue 40 item 5): Minka's fixed point
maximises the Dirichlet-multinomial likelihood, the new alpha reaches every table the
kernels read (an exact-target test, with the stale-table mutant it must reject), the learned
values are chain state in checkpoints, and nothing changes when it is off."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.special import digamma as scipy_digamma, gammaln

from topicsup import views
from topicsup.checkpoint import CheckpointError
from topicsup.datasets import make_synthetic
from topicsup.kernels import hyper
from topicsup.models import LDA, HDPLDA, MCMedLDA
from topicsup.session import Session
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, normalize_log,
                                    state_index, tiny_corpus)
from topicsup.view_table import applicable
from topicsup.kernels.rng import seed_state

from .test_checkpoint import _rewritten
from .test_session import assert_resumes_exactly


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=120, n_topics=4, doc_length=40, seed=5).corpus


# ------------------------------------------------------------------ the fixed point
def test_digamma_is_scipys():
    x = np.array([1e-10, 1e-5, 0.01, 0.5, 1.0, 2.5, 9.999, 10.0, 11.0, 123.4, 1e4, 1e9])
    ours = np.array([hyper.digamma(v) for v in x])
    np.testing.assert_allclose(ours, scipy_digamma(x), rtol=2e-15, atol=1e-14)
    for n, a in [(0, 0.3), (3, 1e-8), (15, 2.0), (16, 2.0), (500, 0.01), (10**6, 40.0)]:
        assert hyper.digamma_step(n, a) == pytest.approx(
            scipy_digamma(n + a) - scipy_digamma(a), rel=1e-12)


def _polya(rng, concentration, totals):
    """Counts (rows, K) from the Dirichlet-multinomial with the given totals."""
    theta = rng.dirichlet(concentration, size=len(totals))
    return np.array([rng.multinomial(t, p) for t, p in zip(totals, theta)], dtype=np.int32)


def test_alpha_fixed_point_is_the_polya_maximum():
    """Asymmetric alpha from document-topic counts drawn with a known alpha: the fixed point
    is the maximum of the exact Dirichlet-multinomial likelihood that scipy finds, and near
    the alpha the counts were drawn with."""
    rng = np.random.default_rng(0)
    truth = np.array([0.1, 0.4, 1.0, 2.5])
    n_dk = _polya(rng, truth, rng.integers(20, 80, size=600))

    def nll(log_a):
        a = np.exp(log_a)
        N = n_dk.sum(1)
        return -(gammaln(a.sum()) - gammaln(N + a.sum())
                 + (gammaln(n_dk + a) - gammaln(a)).sum(1)).sum()

    best = np.exp(optimize.minimize(nll, np.zeros(4), method="BFGS",
                                    options={"gtol": 1e-10}).x)
    alpha = np.full(4, 0.5)
    steps = hyper.learn_alpha(n_dk, alpha, steps=10_000, tol=1e-14)
    assert steps < 10_000
    np.testing.assert_allclose(alpha, best, rtol=1e-5)
    np.testing.assert_allclose(alpha, truth, rtol=0.25)


def test_beta_fixed_point_is_the_polya_maximum():
    rng = np.random.default_rng(1)
    V, K, truth = 60, 5, 0.07
    n_kw = _polya(rng, np.full(V, truth), rng.integers(300, 900, size=K))
    n_wk, n_k = np.ascontiguousarray(n_kw.T), n_kw.sum(1).astype(np.int32)

    def nll(log_b):
        b = np.exp(log_b)
        return -(K * gammaln(V * b) - gammaln(n_k + V * b).sum()
                 + (gammaln(n_kw + b) - gammaln(b)).sum())

    best = float(np.exp(optimize.minimize_scalar(nll, bounds=(-10, 5), method="bounded",
                                                 options={"xatol": 1e-12}).x))
    beta = np.array([0.5])
    hyper.learn_beta(n_wk, n_k, beta, steps=10_000, tol=1e-14)
    assert beta[0] == pytest.approx(best, rel=1e-6)
    assert beta[0] == pytest.approx(truth, rel=0.25)


def test_an_unused_topic_keeps_a_floor():
    n_dk = np.array([[3, 0], [5, 0]], np.int32)
    alpha = np.array([0.5, 0.5])
    hyper.learn_alpha(n_dk, alpha, steps=500)
    assert alpha[1] == hyper.LEARNED_RANGE[0] and np.isfinite(alpha).all()


# ------------------------------------------------------------------ the model's option
def test_off_by_default(corpus):
    m = LDA(K=4)
    assert m.optimize is None and m.learned == () and m.saved_state == ("z",)
    s = Session(m, corpus, seed=1)
    s.run(10)
    assert s.model.saved_prior(s.problem) == {} and "hyperparameters" not in s.views
    assert np.array_equal(s.problem.alpha, np.full(4, 0.1)) and s.problem.beta == 0.01
    assert not s.history["metric"].isin(["alpha_sum", "beta"]).any()


@pytest.mark.parametrize("kw, error, msg", [
    ({"optimize": "gamma"}, ValueError, "optimize must be one of"),
    ({"optimize": True}, TypeError, "optimize must be one of"),
    ({"optimize_every": 0}, ValueError, "optimize_every"),
    ({"optimize_burn_in": -1}, ValueError, "optimize_burn_in")])
def test_bad_settings_are_refused(kw, error, msg):
    with pytest.raises(error, match=msg):
        LDA(K=3, **kw)


@pytest.mark.parametrize("cls", [HDPLDA, MCMedLDA])
def test_models_whose_prior_is_not_ldas_refuse_to_learn_it(cls):
    with pytest.raises(ValueError, match="cannot learn its Dirichlet parameters"):
        cls(K=3, optimize="alpha")


def test_updates_follow_the_schedule_and_reach_the_history_and_the_problem(corpus):
    s = Session(LDA(K=4, optimize="alpha+beta", optimize_every=3, optimize_burn_in=4,
                    sampler="light"), corpus, seed=2)
    s.run(12)
    h = s.history
    for name in ("alpha_sum", "beta"):
        rows = h[h["metric"] == name]
        assert rows["sweep"].tolist() == [6, 9, 12]
    assert h[h["metric"] == "alpha_sum"]["value"].iloc[-1] == pytest.approx(
        s.problem.alpha.sum())
    assert h[h["metric"] == "beta"]["value"].iloc[-1] == s.problem.beta
    # one holder: the problem the kernels read is what the estimates, the log joint and the
    # checkpoint read
    assert not s.problem.symmetric and s.problem.beta != 0.01
    assert np.array_equal(s.model.doc_prior(s.state, s.problem), s.problem.alpha)
    saved = s.model.saved_prior(s.problem)
    assert np.array_equal(saved["hyper_alpha"], s.problem.alpha)
    assert saved["hyper_beta"][0] == s.problem.beta
    assert "hyperparameters" in s.views and "hyperparameters" in s.readout(applicable)
    views.hyperparameter_chart(h).to_dict()
    n_wk, n_k, b = s.state.counts.n_wk, s.state.counts.n_k, s.problem.beta
    np.testing.assert_allclose(s.topic_word(), (n_wk.T + b) / (n_k[:, None] + n_wk.shape[0] * b))


def test_only_beta_keeps_a_symmetric_alpha(corpus):
    s = Session(LDA(K=4, optimize="beta", optimize_every=2), corpus, seed=2)
    s.run(4)
    assert s.problem.symmetric and s.model.saved_state == ("z", "hyper_beta")
    assert np.array_equal(s.problem.alpha, np.full(4, 0.1))
    assert s.problem.beta != 0.01


# ------------------------------------------------------------------ every table sees alpha
DOCS, K, ALPHA, BETA = [[0, 1], [1, 2, 2], [0, 2, 1]], 2, 0.3, 0.2
LEARNED = np.array([0.05, 1.5])      # an asymmetric alpha far from the bound one
N_CHAINS = 12_000


def _final_states(model, corpus, target, *, skip_refresh=False, seed=11, n_sweeps=3):
    """Chains started from ``target`` (the posterior under ``LEARNED``) as a Session runs
    them: the state built under the bound alpha, then an update to ``LEARNED`` through the
    model's one path (``set_prior``, which ``learn_prior`` calls), then sweeps with the problem
    it returns.
    ``skip_refresh``: the mutant whose sampler's tables stay those of the old alpha."""
    Z = enumerate_assignments(corpus.n_tokens, model.K)
    starts = np.random.default_rng(seed).choice(len(target), size=N_CHAINS, p=target)
    info = np.zeros(model.info_size)
    bound = model.bind(corpus)
    out = np.empty(N_CHAINS, np.int64)
    for c in range(N_CHAINS):
        state = model.allocate_state(bound)
        state.z[:] = Z[starts[c]]
        model.refresh_state(state, bound)
        if skip_refresh:
            problem = bound.with_prior(LEARNED, bound.beta)
        else:
            problem = model.set_prior(state, bound, LEARNED, bound.beta)
        rng = seed_state(seed, stream=c + 1)
        for _ in range(n_sweeps):
            model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
        out[c] = state_index(state.z, model.K)
    return out


@pytest.fixture(scope="module")
def tiny():
    corpus = tiny_corpus(DOCS)
    Z = enumerate_assignments(corpus.n_tokens, K)
    return corpus, normalize_log(lda_log_joint_states(corpus, K, LEARNED, BETA, Z))


@pytest.mark.parametrize("sampler, kw", [
    ("gibbs", {}), ("light", {"composition": "cycle", "mh_steps": 1}), ("alias", {})])
def test_the_learned_alpha_reaches_every_table(tiny, sampler, kw):
    """The kernels draw from the exact posterior under the learned alpha."""
    corpus, p = tiny
    model = LDA(K=K, alpha=ALPHA, beta=BETA, sampler=sampler, optimize="alpha", **kw)
    assert_matches_target(_final_states(model, corpus, p), p)


def test_a_stale_alpha_table_is_caught(tiny):
    """Teeth: the light sampler's alpha alias table left as the old alpha built it (the
    refresh skipped) proposes from the wrong prior, and the exact test rejects it."""
    corpus, p = tiny
    model = LDA(K=K, alpha=ALPHA, beta=BETA, sampler="light", optimize="alpha",
                composition="cycle", mh_steps=1)
    gof = goodness_of_fit(_final_states(model, corpus, p, skip_refresh=True), p)
    assert gof.pvalue < 1e-6, f"a stale alpha table went undetected: {gof}"


# ------------------------------------------------------------------ checkpoints
@pytest.mark.parametrize("sampler", ["gibbs", "light"])
def test_a_resumed_run_is_the_uninterrupted_one(corpus, tmp_path, sampler):
    model = LDA(K=4, optimize="alpha+beta", optimize_every=2, sampler=sampler)
    r = assert_resumes_exactly(model, corpus, tmp_path / "c.npz", block_tokens=500, before=3)
    assert not np.array_equal(r.problem.alpha, np.full(4, 0.1))


@pytest.fixture(scope="module")
def saved(corpus, tmp_path_factory):
    s = Session(LDA(K=4, optimize="alpha+beta", optimize_every=2), corpus, seed=1)
    s.run(4)
    path = s.save(tmp_path_factory.mktemp("hyper") / "s.npz")
    loaded = Session.load(path)
    assert np.array_equal(loaded.problem.alpha, s.problem.alpha)
    assert loaded.problem.beta == s.problem.beta
    return path


@pytest.mark.parametrize("name, value, msg", [
    ("alpha", np.array([0.1, np.nan, 0.2, 0.3]), "state/hyper_alpha must hold finite"),
    ("alpha", np.array([0.1, -0.5, 0.2, 0.3]), "state/hyper_alpha must hold finite"),
    ("alpha", np.array([0.1, 0.2, 0.3]), r"has shape \(3,\), expected \(4,\)"),
    ("beta", np.array([0.0]), "state/hyper_beta must hold finite"),
    ("beta", np.array([np.inf]), "state/hyper_beta must hold finite"),
    ("beta", np.array([1, 2], np.int64), "has dtype int64")])
def test_bad_learned_values_are_refused_by_name(saved, tmp_path, name, value, msg):
    bad = _rewritten(saved, tmp_path / "bad.npz", **{f"state/hyper_{name}": value})
    with pytest.raises(CheckpointError, match=msg) as err:
        Session.load(bad)
    assert f"hyper_{name}" in str(err.value)


def test_a_missing_learned_value_is_refused(saved, tmp_path):
    bad = _rewritten(saved, tmp_path / "bad.npz", drop=("state/hyper_beta",))
    with pytest.raises(CheckpointError, match="state/hyper_beta"):
        Session.load(bad)
