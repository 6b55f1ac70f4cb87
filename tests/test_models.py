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

from topicsup.datasets import make_synthetic
from topicsup.kernels.rng import seed_state
from topicsup.models import LDA, LightMedLDA, MedLDA, SupervisedLDA
from topicsup.session import Session

from .test_session import _chain, _same, _stop_after_blocks


def _split(task, seed=0, n=600):
    c = make_synthetic(n_docs=n, task=task, n_classes=3, seed=seed).corpus
    tr, te = np.arange(n) < 400, np.arange(n) >= 400
    sub = lambda m: dataclasses.replace(  # noqa: E731
        type(c).from_matrix(c.to_matrix()[m], c.vocabulary, None, empty="keep"),
        labels=c.labels.take(np.flatnonzero(m)))
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
    got = model.score_labels(y, scores.T)
    assert got > {"binary": 0.7, "multiclass": 0.6, "multilabel": 0.6}[task], got
    h = s.history
    assert (h["metric"] == f"train_{model.score_name(tr)}").sum() == 30
    assert np.isfinite(s.metric("log_joint")).all()
    if Model is LightMedLDA:
        rates = h[h["metric"] == "acceptance_rate"].groupby("proposal")["value"].mean()
        assert set(rates.index) == {"doc", "word", "exp"} and (rates > 0).all()


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_supervised_chain_resumes_exactly(tmp_path, Model):
    tr, _ = _split("multiclass")
    model = Model(K=5, lam=4.0, burn_in=2)
    a = Session(model, tr, seed=3, block_tokens=3000)
    a.run(5)
    b = Session(model, tr, seed=3, block_tokens=3000)
    b.run(1)
    _stop_after_blocks(b, 3)
    b.run(4)
    r = Session.load(b.save(tmp_path / "s.npz"))
    r.run(5 - r.n_sweeps)
    _same(_chain(a), _chain(r))
    for k in model.saved_state:
        assert np.array_equal(a.state[k], r.state[k]), k
    assert r.state["eta_kept"][0] == 3


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
