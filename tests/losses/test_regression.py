"""The regression losses (topicsup.losses.gaussian, topicsup.losses.epsilon_insensitive) and
the real-valued task (topicsup.tasks.Real). Proven here:

* the epsilon-insensitive augmentation draws each xi from its conditional IG(1/(lam |u|), 1)
  (xi1 and xi2 recovered from (b, w) by the formulas of docs/math.md sec. 1; their means
  1/(lam |u|) within 4 standard errors, and the whole law by KS, which rejects a wrong shape,
  200,000 draws), and on the tube's edge (a zero residual) draws the Levy limit of scale 1
  (KS) without a division by zero;
* the Gaussian response gives (b, w) = (y / sigma^2, 1 / sigma^2) without touching the stream;
* the topic kernels are exact under both losses' (b, w) (enumeration: Gibbs, each light
  proposal alone, their cycle and mixture; chi-square at 1e-3 on 20,000 chains), and a kernel
  seeing b of the wrong sign fails;
* on a synthetic corpus with known weights both reach a predictive R^2 of at least 0.9 of the
  generating truth's on held-out documents; classification labels are refused by name.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from topicsup.corpus import Corpus
from topicsup.datasets import make_synthetic
from topicsup.kernels.rng import seed_state
from topicsup.losses import Augmentation
from topicsup.losses.epsilon_insensitive import EpsilonInsensitive
from topicsup.losses.gaussian import Gaussian
from topicsup.models import SupervisedLDA
from topicsup.session import Session
from topicsup.tasks import r_squared
from topicsup.testing.exact import (TOPIC_KERNEL_VARIANTS, assert_matches_target,
                                    fixed_augmentation,
                                    goodness_of_fit, sample_final_states, tiny_corpus)


def _xi1(aug, y, lam, eps):
    """xi1 from (b, w): b / lam^2 = (y - eps) xi1 + (y + eps) xi2, w / lam^2 = xi1 + xi2."""
    W, B = aug.w[0] / lam**2, aug.b[0] / lam**2
    return W - (B - (y[0] - eps) * W) / (2 * eps)


@pytest.mark.parametrize("u1", [0.7, -1.5])
def test_epsilon_insensitive_draws_follow_their_inverse_gaussian(u1):
    lam, eps, n = 1.3, 0.2, 200_000
    y = np.full((1, n), 2.0)
    s = y - eps - u1          # u1 = (y - eps) - s, u2 = s - (y + eps) = -u1 - 2 eps
    u2 = -u1 - 2 * eps
    aug = Augmentation(np.empty((1, n)), np.empty((1, n)))
    EpsilonInsensitive(lam, eps).augment(y, s, seed_state(1), aug)
    xi1 = _xi1(aug, y, lam, eps)
    xi2 = aug.w[0] / lam**2 - xi1
    for xi, u in ((xi1, u1), (xi2, u2)):
        mean = 1 / (lam * abs(u))
        assert abs(xi.mean() - mean) < 4 * np.sqrt(mean**3 / n), (xi.mean(), mean)
        # the whole law, shape 1 included (a wrong shape keeps the mean): KS, and the same
        # draws reject IG(mean, 2) (scipy's invgauss(mu / lambda, scale=lambda) is IG(mu, lambda))
        assert stats.kstest(xi, stats.invgauss(mean, scale=1.0).cdf).pvalue > 1e-3
        assert stats.kstest(xi, stats.invgauss(mean / 2, scale=2.0).cdf).pvalue < 1e-6


def test_epsilon_insensitive_on_the_tube_edge_draws_the_limit():
    """At a zero residual IG(1/(lam |u|), 1) has an infinite mean: its limit is the Levy
    (1/2-stable) law with scale 1, drawn without a division by zero (KS at 1e-3)."""
    n, lam, eps = 20_000, 2.0, 0.5
    y = np.ones((1, n))
    aug = Augmentation(np.empty((1, n)), np.empty((1, n)))
    EpsilonInsensitive(lam, eps).augment(y, y - eps, seed_state(2), aug)   # u1 = 0 exactly
    assert np.isfinite(aug.w).all() and (aug.w > 0).all() and np.isfinite(aug.b).all()
    xi1 = _xi1(aug, y, lam, eps)
    assert stats.kstest(xi1, stats.levy(scale=1.0).cdf).pvalue > 1e-3
    assert stats.kstest(xi1, stats.levy(scale=2.0).cdf).pvalue < 1e-6


def test_gaussian_response_needs_no_augmentation():
    y = np.array([[1.0, -2.0, 0.5]])
    aug = Augmentation(np.empty((1, 3)), np.empty((1, 3)))
    rng = seed_state(3)
    before = rng.copy()
    Gaussian(sigma2=0.25).augment(y, np.zeros((1, 3)), rng, aug)
    np.testing.assert_array_equal(aug.b, y / 0.25)
    np.testing.assert_array_equal(aug.w, np.full((1, 3), 4.0))
    np.testing.assert_array_equal(rng, before)


DOCS = [[0, 1, 2, 1], [2, 0, 1], [1, 2, 0, 0]]
RESPONSES = [1.5, -0.5, 0.8]
ETA = np.array([[1.4, -1.1, 0.6]])


def _setup(loss, b_sign=1.0):
    corpus = tiny_corpus(DOCS, labels=np.array(RESPONSES))
    kw = dict(K=3, alpha=0.4, beta=0.3, **loss)
    p, prepare = fixed_augmentation(SupervisedLDA(**kw), corpus, ETA, [[0.3, 0.1, -0.4]], 5,
                                    b_sign)
    return corpus, p, prepare, kw


LOSSES = {"gaussian": dict(loss="gaussian", sigma2=0.5),
          "epsilon": dict(loss="epsilon_insensitive", lam=1.5, eps=0.1)}
SAMPLERS = TOPIC_KERNEL_VARIANTS   # Gibbs, each light proposal alone, their cycle and mixture


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_topic_kernels_are_exact_under_the_regression_augmentations(loss, sampler):
    corpus, p, prepare, kw = _setup(LOSSES[loss])
    idx = sample_final_states(SupervisedLDA(**kw, **SAMPLERS[sampler]), corpus, p,
                              n_chains=20_000, n_sweeps=2, seed=14, prepare=prepare)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("variant", ["gibbs", "exp-alone"])
@pytest.mark.parametrize("loss", LOSSES)
def test_a_kernel_seeing_b_of_the_wrong_sign_fails(loss, variant):
    """Teeth: the same protocol rejects Gibbs and the exp proposal given -b, at p < 1e-6."""
    corpus, p, prepare, kw = _setup(LOSSES[loss], b_sign=-1.0)
    idx = sample_final_states(SupervisedLDA(**kw, **SAMPLERS[variant]), corpus, p,
                              n_chains=20_000, n_sweeps=2, seed=14, prepare=prepare)
    assert goodness_of_fit(idx, p).pvalue < 1e-6


@pytest.mark.parametrize("loss", LOSSES)
def test_regression_reaches_nine_tenths_of_the_oracle_r2(loss):
    """Held-out predictive R^2 (``Session.score``) against the generating truth's: the true
    scores (the true weights on the true topic proportions) of the same documents."""
    data = make_synthetic(n_docs=500, n_topics=5, doc_length=60, task="real", noise=0.3,
                          seed=6)
    c = data.corpus
    train_rows, test_rows = np.arange(400), np.arange(400, 500)

    def sub(rows):
        docs = Corpus.from_matrix(c.to_matrix()[rows], c.vocabulary, empty="keep")
        return dataclasses.replace(docs, labels=c.labels.take(rows))

    train, test = sub(train_rows), sub(test_rows)
    s = Session(SupervisedLDA(K=5, burn_in=20, **LOSSES[loss]), train, seed=0)
    s.run(60)
    got = s.score(test)
    oracle = r_squared(test.labels.values, data.scores[test_rows, 0])
    assert got >= 0.9 * oracle, (got, oracle)
    assert s.predict(test).shape == (100,)


def test_a_regression_loss_refuses_class_labels_and_a_classifier_refuses_responses():
    classes = make_synthetic(n_docs=30, seed=1).corpus
    responses = make_synthetic(n_docs=30, seed=1, task="real").corpus
    with pytest.raises(ValueError, match="models real responses; corpus.labels are 'binary'"):
        Session(SupervisedLDA(K=3, loss="gaussian"), classes)
    with pytest.raises(ValueError, match="models classes; corpus.labels are 'real'"):
        Session(SupervisedLDA(K=3), responses)
