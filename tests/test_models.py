"""Supervised models as a Session runs them: learning, telemetry, checkpoints, bad input.

The kernels' exactness is proven in tests/kernels; here: MedLDA and LightMedLDA learn a
synthetic task whose truth is known (binary, multi-class, multi-label), the history carries
the per-proposal acceptance (doc, word, exp) and the training fit, a checkpoint taken mid-sweep
resumes the uninterrupted chain bit for bit (topics, weights, augmentation and the weight
average), and bad parameters or corpora are rejected by name.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from topicsup import Corpus
from topicsup.datasets import make_synthetic
from topicsup.kernels.rng import seed_state
from topicsup.models import LDA, LightMedLDA, MedLDA, SupervisedLDA
from topicsup.session import Session

from .test_session import assert_resumes_exactly


def _split(task, seed=0, n=600):
    c = make_synthetic(n_docs=n, task=task, n_classes=3, seed=seed).corpus
    tr, te = np.arange(n) < 400, np.arange(n) >= 400
    def sub(mask):
        docs = Corpus.from_matrix(c.to_matrix()[mask], c.vocabulary, empty="keep")
        return dataclasses.replace(docs, labels=c.labels.take(np.flatnonzero(mask)))

    return sub(tr), sub(te)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_presets_learn_a_synthetic_task(task, Model):
    """Held-out accuracy (F1 for multi-label) well above chance after 30 sweeps."""
    tr, te = _split(task)
    model = Model(K=6, lam=4.0, burn_in=15)
    s = Session(model, tr, seed=1, log_joint_every=5)
    s.run(30)
    X = model.fold_in(s.state, te, seed_state(2))
    scores = model.decision_scores(s.state, X)
    y = model.task_signs(te)
    got = model.score_labels(y, scores.T, task)
    assert got > {"binary": 0.7, "multiclass": 0.6, "multilabel": 0.6}[task], got
    h = s.history
    assert (h["metric"] == f"train_{model.score_name(task)}").sum() == 30
    assert np.isfinite(s.metric("log_joint")).all()
    if Model is LightMedLDA:
        rates = h[h["metric"] == "acceptance_rate"].groupby("proposal")["value"].mean()
        assert set(rates.index) == {"doc", "word", "exp"} and (rates > 0).all()


@pytest.mark.parametrize("kw, per_token", [
    (dict(composition="cycle", mh_steps=3), {"doc": 1, "word": 1, "exp": 1}),
    (dict(composition="cycle", mh_steps=4), {"doc": 2, "word": 1, "exp": 1}),
    (dict(composition="mixture", mh_steps=2, proposal_weights=(1, 1, 0)),
     {"doc": None, "word": None, "exp": 0}),
])
def test_light_supervised_telemetry_counts_every_step(kw, per_token):
    """A cycle runs doc, word, exp in turn; a mixture with a zero weight never proposes that
    kind; every step is counted once and rates lie in [0, 1]."""
    tr, _ = _split("multiclass")
    s = Session(LightMedLDA(K=4, lam=4.0, **kw), tr, seed=0)
    s.run(3)
    h = s.history
    made = h[h.metric == "proposals"].pivot(index="sweep", columns="proposal", values="value")
    assert (made.sum(axis=1) == kw["mh_steps"] * tr.n_tokens).all()
    for kind, n in per_token.items():
        if n is not None:
            assert (made[kind] == n * tr.n_tokens).all(), kind
    rates = h[h.metric == "acceptance_rate"]["value"].dropna()
    assert ((rates >= 0) & (rates <= 1)).all()


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_supervised_chain_resumes_exactly(tmp_path, Model):
    tr, _ = _split("multiclass")
    r = assert_resumes_exactly(Model(K=5, lam=4.0, burn_in=2), tr, tmp_path / "s.npz",
                               block_tokens=3000, before=1, total=5)
    assert r.state["eta_kept"][0] == 3


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_lda_initialisation_runs_the_plain_lda_kernel(Model):
    """During ``lda_init_sweeps`` the topic sweeps are exactly LDA's (same sampler, same
    draws: z equal bit for bit to an LDA session started from the same z and random stream),
    the weights stay at zero and no training rows are written; the weights are first drawn at
    the end of the last of those sweeps, and the supervised sweeps follow."""
    tr, _ = _split("multiclass")
    n = 3
    model = Model(K=5, lam=4.0, lda_init_sweeps=n)
    s = Session(model, tr, seed=4, block_tokens=2000)
    lda = Session(LDA(K=5, alpha=model.alpha, beta=model.beta, sampler=model.sampler,
                      mh_steps=model.mh_steps, composition=model.composition,
                      p_doc=model.p_doc), tr, seed=0, block_tokens=2000)
    lda.state["z"][:] = s.state["z"]
    lda.model.refresh_state(lda.state, tr)
    lda.rng[:] = s.rng
    for sweep in range(1, n + 1):
        assert s.model.initialising(s.state)
        s.run(1)
        lda.run(1)
        assert np.array_equal(s.state["z"], lda.state["z"]), sweep
        assert (s.state["eta"] == 0).all() == (sweep < n), sweep
    assert not s.model.initialising(s.state)
    s.run(2)
    assert not np.array_equal(s.state["z"], lda.state["z"])
    h = s.history
    assert h[h.metric == "train_accuracy"]["sweep"].tolist() == [3, 4, 5]
    if Model is LightMedLDA:  # no exp proposal while the weights are not yet drawn
        made = h[h.metric == "proposals"].pivot(index="sweep", columns="proposal",
                                                values="value")
        assert (made.loc[[1, 2, 3], "exp"] == 0).all() and (made.loc[[4, 5], "exp"] > 0).all()


def test_lda_initialisation_ignores_the_labels():
    """Permuting the labels leaves the chain unchanged through the initialisation (the labels
    reach nothing before its end) and changes it afterwards."""
    tr, _ = _split("multiclass")
    perm = dataclasses.replace(tr, labels=tr.labels.take(np.random.default_rng(0).permutation(
        tr.n_docs)))
    a, b = (Session(LightMedLDA(K=5, lam=4.0, lda_init_sweeps=3), c, seed=1) for c in (tr, perm))
    a.run(3), b.run(3)
    assert np.array_equal(a.state["z"], b.state["z"])
    a.run(1), b.run(1)
    assert not np.array_equal(a.state["z"], b.state["z"])


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_chain_resumes_exactly_inside_the_lda_initialisation(tmp_path, Model):
    tr, _ = _split("multiclass")
    r = assert_resumes_exactly(Model(K=5, lam=4.0, lda_init_sweeps=3), tr,
                               tmp_path / "s.npz", block_tokens=3000, before=1, total=5)
    assert r.state["lda_init_left"][0] == 0


def test_unsupervised_lda_is_unchanged_by_the_frame():
    """T = 0: LDA's state carries empty supervision arrays and no end-of-sweep work."""
    tr, _ = _split("binary")
    s = Session(LDA(K=4), tr, seed=0)
    assert s.state["eta_kt"].shape == (4, 0)
    assert s.model.end_sweep(s.state, tr, s.rng, 1) == []


@pytest.mark.parametrize("kw, err, msg", [
    (dict(lam=-1.0), ValueError, "lam must be"),
    (dict(nu=0), ValueError, "nu must be"),
    (dict(sampler="alias"), ValueError, "sampler 'gibbs' or 'light'"),
    (dict(weight_sampler="newton"), ValueError, "weight_sampler must be"),
    (dict(S_gibbs=0), ValueError, "S_gibbs must be"),
    (dict(lda_init_sweeps=-1), ValueError, "lda_init_sweeps must be"),
    (dict(lda_init_sweeps=2.5), ValueError, "lda_init_sweeps must be"),
    (dict(loss="squared"), ValueError, "loss must be"),
    (dict(proposal_weights=(1, 0)), ValueError, "proposal_weights must be"),
    (dict(proposal_weights=(0, 0, 0)), ValueError, "proposal_weights must be"),
])
def test_bad_supervised_parameters(kw, err, msg):
    with pytest.raises(err, match=msg):
        SupervisedLDA(**kw)


def test_supervised_models_need_class_labels():
    tr, _ = _split("binary")
    with pytest.raises(ValueError, match="corpus.labels is None"):
        Session(LightMedLDA(K=3), dataclasses.replace(tr, labels=None))
    real = make_synthetic(n_docs=50, task="real", seed=0).corpus
    with pytest.raises(ValueError, match="'real'"):
        Session(MedLDA(K=3), real)


def test_default_alpha_and_presets():
    assert LightMedLDA(K=64).alpha == pytest.approx(0.1)
    m = LightMedLDA(K=10)
    assert (m.sampler, m.mh_steps, m.composition, m.weight_sampler, m.S_gibbs) == \
        ("light", 6, "mixture", "coordinate", 2)
    assert (MedLDA(K=10).sampler, MedLDA(K=10).weight_sampler) == ("gibbs", "cholesky")


def test_prediction_rejects_mismatched_features():
    tr, _ = _split("binary")
    s = Session(MedLDA(K=4, lam=2.0), tr, seed=0)
    with pytest.raises(ValueError, match="features have 5 columns"):
        s.model.decision_scores(s.state, np.zeros((3, 5)))


def test_fold_in_with_given_topics_and_ensemble_scores():
    """fold_in at phi_wk = the current point estimate is the default fold-in (same rng, bit
    for bit); ensemble_scores is the mean over its snapshots; bad inputs are named."""
    tr, te = _split("multiclass")
    model = LightMedLDA(K=5, lam=4.0, burn_in=4)
    s = Session(model, tr, seed=2, log_joint_every=0)
    s.run(6)
    a = model.fold_in(s.state, te, seed_state(7), 3, 3)
    b = model.fold_in(s.state, te, seed_state(7), 3, 3, model.topic_word(s.state).T)
    assert np.array_equal(a, b)
    snaps = [model.topic_snapshot(s.state)]
    s.run(2)
    snaps.append(model.topic_snapshot(s.state))
    rng = seed_state(8)
    got = model.ensemble_scores(s.state, te, rng, snaps, 3, 3)
    rng = seed_state(8)
    expect = sum(model.decision_scores(s.state, model.fold_in(s.state, te, rng, 3, 3, phi))
                 for phi in snaps) / 2
    assert np.allclose(got, expect)
    with pytest.raises(ValueError, match="phi_wk must have shape"):
        model.fold_in(s.state, te, rng, 1, 1, snaps[0].T)
    with pytest.raises(ValueError, match="snapshots must hold"):
        model.ensemble_scores(s.state, te, rng, [])
