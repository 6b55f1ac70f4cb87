"""The supervised term g_d(k) in the topic kernels, against the exact target by enumeration.

Proven here, with (eta, b, w) held fixed (the loss's augmentation fixed), so the target over Z
is the collapsed LDA posterior times prod_{t,d} exp(b_td s_td - w_td s_td^2 / 2) (the
augmented factor) or, with ``supervised_factor="marginal"``, times the hinge's
pseudo-likelihood prod_{t,d} exp(-2 lam max(0, 1 - y_td s_td)) with b and w ignored:

* the O(T) bookkeeping (per-document A_d, coupling c, the token's v) gives g_d(k) and
  g_d(t) - g_d(s) equal to the formula of docs/math.md sec. 1 (augmented) or to the hinge of the
  score with the token at k (marginal) recomputed from scratch after every token move, on
  random inputs;
* exact collapsed Gibbs with g_d, and the light doc, word and exp proposals each alone, their
  cycle (all three, or doc and word only) and their uniform mixture, leave that target
  invariant: binary (T = 1) and multi-task (T = 3 with a covariate), chi-square at level
  1e-3 on 20k independent chains started from the target;
* the light cycle and mixture stay exact on a document long enough to run every stage of the
  draw-ahead and prefetch pipeline with the supervised term on (exp table included); a kernel
  that reuses the proposal's uniform for the acceptance fails it (chi2 ~ 16,600 on 455 df);
* the papers' stale word table (``word_proposal="stale"``) with the supervised factor in its
  ratio is exact when every table is fresh (each word occurs once);
* teeth: the same protocol rejects kernels that see a wrong w (a wrong coupling term) or a
  wrong b, for Gibbs and for the light exp proposal;
* the same for the marginal hinge factor: Gibbs, each light proposal alone (the exp proposal
  from the hinge's slope at a zero score), their cycle and mixture, binary and multi-task
  with a covariate, with b and w set to noise the factor must not read; a kernel with a wrong
  lambda or with flipped labels fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.kernels import light, supervised
from topicsup.losses import Hinge
from topicsup.models import SupervisedLDA
from topicsup.testing.exact import (TOPIC_KERNEL_VARIANTS, assert_matches_target,
                                    enumerate_assignments, goodness_of_fit, lda_log_joint_states,
                                    loss_log_factor_states, normalize_log, sample_final_states,
                                    supervised_log_factor_states, tiny_corpus)

N_CHAINS = 20_000


def _g_from_scratch(eta_kt, b, w, r, d, z_doc, i):
    """g_d(k) for all k with token i removed, straight from docs/math.md sec. 1."""
    K, T = eta_kt.shape
    N = len(z_doc)
    n = np.bincount(np.delete(z_doc, i), minlength=K)
    m = eta_kt.T @ n  # (T,)
    g = np.zeros(K)
    for t in range(T):
        e = eta_kt[:, t]
        g += b[t, d] * e / N - w[t, d] * (e**2 + 2 * e * (m[t] + N * r[t, d])) / (2 * N**2)
    return g


def _hinge_g_from_scratch(eta_kt, y, r, lam, d, z_doc, i):
    """-2 lam sum_t max(0, 1 - y_td s_td(k)) for all k, s_td(k) the score with token i at k."""
    K, T = eta_kt.shape
    N = len(z_doc)
    n = np.bincount(np.delete(z_doc, i), minlength=K)
    s = (eta_kt.T @ n + eta_kt) / N + r[:, d]          # (K, T)
    return -2 * lam * np.maximum(0.0, 1 - y[:, d] * s).sum(axis=1)


@pytest.mark.parametrize("T", [1, 4])
@pytest.mark.parametrize("factor", ["augmented", "marginal"])
def test_bookkeeping_equals_recomputation_after_every_move(T, factor):
    """g_value equals g_d(k) from scratch for every k (augmented: A_d minus the coupling;
    marginal: the hinge of the score with the token at k), and the coupling c equals
    m_d + N r after each of 300 random token moves (rtol 1e-12)."""
    rng = np.random.default_rng(T)
    K, D, N, d, lam = 7, 3, 9, 1, 0.7
    eta_kt = rng.normal(size=(K, T)) * 2
    b, w, r = rng.normal(size=(T, D)), rng.gamma(2.0, size=(T, D)), rng.normal(size=(T, D))
    y = rng.choice([-1.0, 1.0], size=(T, D))
    z = rng.integers(0, K, size=N + 5).astype(np.int32)
    p0, p1 = 3, 3 + N
    A, c, v = np.zeros(K), np.zeros((4, T)), np.zeros(T)
    code = supervised.AUGMENTED if factor == "augmented" else supervised.HINGE
    params = np.array([2 * lam])
    term = supervised.Term(code, params, eta_kt, b, w, y, r, A, c, v, np.zeros(K),
                           np.zeros(K, np.int32))
    supervised.load_doc(term, d, z, p0, p1, False)
    for _ in range(300):
        i = int(rng.integers(p0, p1))
        s = int(z[i])
        supervised.token_coupling(code, eta_kt, c, s, v)
        if factor == "augmented":
            g = _g_from_scratch(eta_kt, b, w, r, d, z[p0:p1], i - p0)
        else:
            g = _hinge_g_from_scratch(eta_kt, y, r, lam, d, z[p0:p1], i - p0)
        kept = np.array([supervised.g_value(code, params, A, eta_kt, c, v, k)
                         for k in range(K)])
        np.testing.assert_allclose(kept, g, rtol=1e-12, atol=1e-12)
        t = int(rng.integers(0, K))
        supervised.move(eta_kt, c, s, t)
        z[i] = t
        expect = eta_kt.T @ np.bincount(z[p0:p1], minlength=K) + N * r[:, d]
        np.testing.assert_allclose(c[0], expect, rtol=1e-12, atol=1e-12)


# Each case: documents, K, alpha, beta, labels, covariates, eta (T, K + P), b, w (T, D)
CASES = {
    "binary": ([[0, 1], [1, 2, 2], [0, 2, 1]], 2, 0.3, 0.2, ["a", "b", "a"], None,
               np.array([[1.8, -1.1]]), np.array([[0.9, -1.4, 0.6]]),
               np.array([[0.7, 1.3, 0.4]])),
    "multitask": ([[0, 1], [2, 0], [1, 2, 2]], 3, (0.2, 0.5, 1.0), 0.3, ["a", "b", "c"],
                  np.array([[1.0], [-0.5], [2.0]]),
                  np.array([[1.5, -0.8, 0.2, 0.3], [-1.0, 1.2, 0.4, -0.2],
                            [0.1, -0.6, 1.7, 0.5]]),
                  np.array([[1.1, -0.9, -0.7], [-0.8, 1.3, -1.0], [-0.6, -0.7, 1.2]]),
                  np.array([[0.5, 1.5, 0.8], [1.2, 0.3, 0.9], [0.7, 0.6, 1.4]])),
}

VARIANTS = TOPIC_KERNEL_VARIANTS


def _setup(case):
    docs, K, alpha, beta, labels, cov, eta, b, w = CASES[case]
    corpus = tiny_corpus(docs, labels=labels, covariates=cov)
    Z = enumerate_assignments(corpus.n_tokens, K)
    logp = lda_log_joint_states(corpus, K, alpha, beta, Z) \
        + supervised_log_factor_states(corpus, K, eta, b, w, Z)

    def prepare(state):
        state.supervision.weights.eta[...] = eta
        state.supervision.loss.b[...] = b
        state.supervision.loss.w[...] = w

    return corpus, normalize_log(logp), prepare, dict(K=K, alpha=alpha, beta=beta)


def test_stale_word_ratio_with_supervision_is_right_when_tables_are_fresh():
    """Every word occurs once, so each stale table is built during its only token's step from
    counts without that token; the word-alone chain with exp(g_d) in its ratio is exact."""
    docs = [[0, 1, 2], [3, 4], [5, 6, 7]]
    corpus = tiny_corpus(docs, labels=["a", "b", "a"])
    K, alpha, beta = 2, 0.3, 0.2
    eta, b, w = np.array([[1.6, -1.2]]), np.array([[1.0, -1.3, 0.7]]), np.array([[0.8, 1.2, 0.5]])
    Z = enumerate_assignments(corpus.n_tokens, K)
    p = normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z)
                      + supervised_log_factor_states(corpus, K, eta, b, w, Z))

    def prepare(state):
        sup = state.supervision
        sup.weights.eta[...], sup.loss.b[...], sup.loss.w[...] = eta, b, w

    model = SupervisedLDA(K=K, alpha=alpha, beta=beta, sampler="light", word_proposal="stale",
                          composition="mixture", mh_steps=1, proposal_weights=(0, 1, 0))
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=33,
                              prepare=prepare)
    assert_matches_target(idx, p)


def test_supervision_changes_the_target():
    """The cases are informative: the supervised target is far from plain LDA's."""
    for case in CASES:
        corpus, p, _, kw = _setup(case)
        Z = enumerate_assignments(corpus.n_tokens, kw["K"])
        lda = normalize_log(lda_log_joint_states(corpus, kw["K"], kw["alpha"], kw["beta"], Z))
        assert 0.5 * np.abs(p - lda).sum() > 0.15


@pytest.mark.parametrize("variant, key, factor", [("gibbs", "w", 1.6), ("gibbs", "b", 0.6),
                                                   ("exp-alone", "w", 1.6),
                                                   ("mixture", "b", 0.6),
                                                   ("pc-dense", "b", 0.6),
                                                   ("pc-sparse", "w", 1.6)])
def test_harness_rejects_a_wrong_supervised_term(variant, key, factor):
    """Teeth: kernels that see w or b scaled (a wrong g_d) fail at p < 1e-6."""
    corpus, p, prepare, kw = _setup("multitask")

    def wrong(state):
        prepare(state)
        getattr(state.supervision.loss, key)[...] *= factor

    model = SupervisedLDA(**kw, **VARIANTS[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=32,
                              prepare=wrong)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"a wrong supervised term went undetected: {gof}"


@pytest.mark.parametrize("variant", ["cycle", "mixture"])
@pytest.mark.parametrize("factor", ["augmented", "marginal"])
def test_light_with_supervision_on_a_document_longer_than_the_prefetch_pipeline(variant,
                                                                                factor):
    """The light kernel draws a token's uniforms and step kinds 3 AHEAD tokens early and
    proposes from them (exp table included) at every prefetch stage; a document of
    3 AHEAD + 2 tokens runs all stages with the supervised term on, in either form. Binary
    task, K = 2, 15 tokens (32,768 states): still the exact supervised posterior."""
    n = 3 * light.AHEAD + 2
    assert n == 14, "resize the case when AHEAD changes"
    docs = [[0, 1, 2, 0, 1, 2, 0, 3, 3, 1, 2, 0, 1, 2], [3]]
    corpus = tiny_corpus(docs, labels=["a", "b"])
    K, alpha, beta = 2, 0.4, 0.3
    eta, b, w = np.array([[1.5, -1.0]]), np.array([[0.8, -1.1]]), np.array([[0.9, 1.2]])
    Z = enumerate_assignments(corpus.n_tokens, K)
    model = SupervisedLDA(K=K, alpha=alpha, beta=beta, supervised_factor=factor, lam=0.7,
                          **VARIANTS[variant])
    label_term = supervised_log_factor_states(corpus, K, eta, b, w, Z) \
        if factor == "augmented" else \
        loss_log_factor_states(corpus, K, eta, model.bind(corpus, check_labels=False).targets,
                               Hinge(0.7), Z)
    p = normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z) + label_term)

    def prepare(state):
        sup = state.supervision
        sup.weights.eta[...], sup.loss.b[...], sup.loss.w[...] = eta, b, w

    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=34,
                              prepare=prepare)
    assert_matches_target(idx, p)


# ---------------------------------------------------------------- the marginal hinge factor
MARGINAL_LAM = 0.8


def _setup_marginal(case, lam=MARGINAL_LAM, flip=False):
    """The exact target with the hinge's pseudo-likelihood as the supervised factor; the
    state's b and w are noise, which the marginal factor must not read. ``flip`` gives the
    kernel the opposite labels (a mutant)."""
    docs, K, alpha, beta, labels, cov, eta, _, _ = CASES[case]
    corpus = tiny_corpus(docs, labels=labels, covariates=cov)
    kw = dict(K=K, alpha=alpha, beta=beta, lam=MARGINAL_LAM, supervised_factor="marginal")
    y = SupervisedLDA(**kw).bind(corpus, check_labels=False).targets
    Z = enumerate_assignments(corpus.n_tokens, K)
    logp = lda_log_joint_states(corpus, K, alpha, beta, Z) \
        + loss_log_factor_states(corpus, K, eta, y, Hinge(lam), Z)
    noise = np.random.default_rng(5)

    def prepare(state):
        state.supervision.weights.eta[...] = eta
        aug = state.supervision.loss
        aug.b[...] = noise.normal(size=aug.b.shape) * 3
        aug.w[...] = noise.gamma(1.0, size=aug.w.shape) * 3

    return corpus, normalize_log(logp), prepare, kw


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("factor", ["augmented", "marginal"])
def test_supervised_kernels_leave_exact_target_invariant(case, variant, factor):
    corpus, p, prepare, kw = (_setup if factor == "augmented" else _setup_marginal)(case)
    model = SupervisedLDA(**kw, **VARIANTS[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2,
                              seed=31 if factor == "augmented" else 35, prepare=prepare)
    assert_matches_target(idx, p)


def test_marginal_hinge_changes_the_target():
    """The marginal cases are informative: far from plain LDA and from the augmented
    target of the same case."""
    for case in CASES:
        corpus, p, _, kw = _setup_marginal(case)
        Z = enumerate_assignments(corpus.n_tokens, kw["K"])
        lda = normalize_log(lda_log_joint_states(corpus, kw["K"], kw["alpha"], kw["beta"], Z))
        assert 0.5 * np.abs(p - lda).sum() > 0.1
        assert 0.5 * np.abs(p - _setup(case)[1]).sum() > 0.1


@pytest.mark.parametrize("variant, mutant", [("gibbs", "lam"), ("cycle", "lam"),
                                             ("word-alone", "flip"), ("exp-alone", "lam"),
                                             ("pc-sparse", "flip"), ("pc-dense", "lam")])
def test_harness_rejects_a_wrong_marginal_factor(variant, mutant):
    """Teeth: kernels with lambda scaled by 1.6 or with every label flipped fail at
    p < 1e-6."""
    corpus, p, prepare, kw = _setup_marginal("multitask")
    if mutant == "lam":
        kw = dict(kw, lam=MARGINAL_LAM * 1.6)
        model = SupervisedLDA(**kw, **VARIANTS[variant])
    else:
        model = _FlippedLabels(SupervisedLDA(**kw, **VARIANTS[variant]))
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=36,
                              prepare=prepare)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"a wrong marginal factor went undetected: {gof}"


class _FlippedLabels:
    """Test-only mutant: the model's kernels see -y."""

    def __init__(self, model):
        self._model = model

    def __getattr__(self, name):
        return getattr(self._model, name)

    def refresh_state(self, state, problem):
        self._model.refresh_state(state, problem)
        state.supervision.y *= -1
