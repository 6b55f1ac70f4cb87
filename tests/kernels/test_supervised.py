"""The supervised term g_d(k) in the topic kernels, against the exact target by enumeration.

Proven here, with (eta, b, w) held fixed (the loss's augmentation fixed), so the target over Z
is the collapsed LDA posterior times prod_{t,d} exp(b_td s_td - w_td s_td^2 / 2):

* the O(T) bookkeeping (per-document A_d, coupling c, the token's v) gives g_d(k) and
  g_d(t) - g_d(s) equal to the formula of MATH.md sec. 1 recomputed from scratch after every
  token move, on random inputs;
* exact collapsed Gibbs with g_d, and the light doc, word and exp proposals each alone, their
  cycle and their uniform mixture, leave that target invariant: binary (T = 1) and
  multi-task (T = 3 with a covariate), chi-square at level 1e-3 on 20k independent chains
  started from the target;
* the light cycle and mixture stay exact on a document long enough to run every stage of the
  draw-ahead and prefetch pipeline with the supervised term on (exp table included); a kernel
  that reuses the proposal's uniform for the acceptance fails it (chi2 ~ 16,600 on 455 df);
* the papers' stale word table (``word_proposal="stale"``) with the supervised factor in its
  ratio is exact when every table is fresh (each word occurs once);
* teeth: the same protocol rejects kernels that see a wrong w (a wrong coupling term) or a
  wrong b, for Gibbs and for the light exp proposal.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.kernels import light, supervised
from topicsup.models import SupervisedLDA
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, normalize_log,
                                    sample_final_states, supervised_log_factor_states,
                                    tiny_corpus)

N_CHAINS = 20_000


def _g_from_scratch(eta_kt, b, w, r, d, z_doc, i):
    """g_d(k) for all k with token i removed, straight from MATH.md sec. 1."""
    K, T = eta_kt.shape
    N = len(z_doc)
    n = np.bincount(np.delete(z_doc, i), minlength=K)
    m = eta_kt.T @ n  # (T,)
    g = np.zeros(K)
    for t in range(T):
        e = eta_kt[:, t]
        g += b[t, d] * e / N - w[t, d] * (e**2 + 2 * e * (m[t] + N * r[t, d])) / (2 * N**2)
    return g


@pytest.mark.parametrize("T", [1, 4])
def test_bookkeeping_equals_recomputation_after_every_move(T):
    """g_value (A_d minus the coupling) equals g_d(k) from scratch for every k, and the
    coupling c equals m_d + N r after each of 300 random token moves (rtol 1e-12)."""
    rng = np.random.default_rng(T)
    K, D, N, d = 7, 3, 9, 1
    eta_kt = rng.normal(size=(K, T)) * 2
    b, w, r = rng.normal(size=(T, D)), rng.gamma(2.0, size=(T, D)), rng.normal(size=(T, D))
    z = rng.integers(0, K, size=N + 5).astype(np.int32)
    p0, p1 = 3, 3 + N
    A, c, v = np.zeros(K), np.zeros((3, T)), np.zeros(T)
    supervised.load_doc(eta_kt, b, w, r, d, z, p0, p1, A, c)
    for _ in range(300):
        i = int(rng.integers(p0, p1))
        s = int(z[i])
        supervised.token_coupling(eta_kt, c, s, v)
        g = _g_from_scratch(eta_kt, b, w, r, d, z[p0:p1], i - p0)
        kept = np.array([supervised.g_value(A, eta_kt, v, k) for k in range(K)])
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

VARIANTS = {
    "gibbs": dict(sampler="gibbs"),
    "doc-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                      proposal_weights=(1, 0, 0)),
    "word-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                       proposal_weights=(0, 1, 0)),
    "exp-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                      proposal_weights=(0, 0, 1)),
    "cycle": dict(sampler="light", composition="cycle", mh_steps=3),
    "mixture": dict(sampler="light", composition="mixture", mh_steps=6),
}


def _setup(case):
    docs, K, alpha, beta, labels, cov, eta, b, w = CASES[case]
    corpus = tiny_corpus(docs, labels=labels, covariates=cov)
    Z = enumerate_assignments(corpus.n_tokens, K)
    logp = lda_log_joint_states(corpus, K, alpha, beta, Z) \
        + supervised_log_factor_states(corpus, K, eta, b, w, Z)

    def prepare(state):
        state["eta"][...] = eta
        state["b"][...] = b
        state["w"][...] = w

    return corpus, normalize_log(logp), prepare, dict(K=K, alpha=alpha, beta=beta)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_supervised_kernels_leave_exact_target_invariant(case, variant):
    corpus, p, prepare, kw = _setup(case)
    model = SupervisedLDA(**kw, **VARIANTS[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=31,
                              prepare=prepare)
    assert_matches_target(idx, p)


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
        state["eta"][...], state["b"][...], state["w"][...] = eta, b, w

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
                                                   ("mixture", "b", 0.6)])
def test_harness_rejects_a_wrong_supervised_term(variant, key, factor):
    """Teeth: kernels that see w or b scaled (a wrong g_d) fail at p < 1e-6."""
    corpus, p, prepare, kw = _setup("multitask")

    def wrong(state):
        prepare(state)
        state[key] *= factor

    model = SupervisedLDA(**kw, **VARIANTS[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=32,
                              prepare=wrong)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"a wrong supervised term went undetected: {gof}"


@pytest.mark.parametrize("variant", ["cycle", "mixture"])
def test_light_with_supervision_on_a_document_longer_than_the_prefetch_pipeline(variant):
    """The light kernel draws a token's uniforms and step kinds 3 AHEAD tokens early and
    proposes from them (exp table included) at every prefetch stage; a document of
    3 AHEAD + 2 tokens runs all stages with the supervised term on. Binary task, K = 2,
    15 tokens (32,768 states): still the exact supervised posterior."""
    n = 3 * light.AHEAD + 2
    assert n == 14, "resize the case when AHEAD changes"
    docs = [[0, 1, 2, 0, 1, 2, 0, 3, 3, 1, 2, 0, 1, 2], [3]]
    corpus = tiny_corpus(docs, labels=["a", "b"])
    K, alpha, beta = 2, 0.4, 0.3
    eta, b, w = np.array([[1.5, -1.0]]), np.array([[0.8, -1.1]]), np.array([[0.9, 1.2]])
    Z = enumerate_assignments(corpus.n_tokens, K)
    p = normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z)
                      + supervised_log_factor_states(corpus, K, eta, b, w, Z))

    def prepare(state):
        state["eta"][...], state["b"][...], state["w"][...] = eta, b, w

    model = SupervisedLDA(K=K, alpha=alpha, beta=beta, **VARIANTS[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=34,
                              prepare=prepare)
    assert_matches_target(idx, p)
