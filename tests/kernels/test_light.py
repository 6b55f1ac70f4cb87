"""The Metropolis-Hastings topic samplers against the exact LDA posterior by enumeration.

Same protocol as test_gibbs.py (independent chains started from the exact target, chi-square
at level 1e-3 on the final states). Proven here:

* the light doc proposal alone, the exact word proposal alone, their cycle and their uniform
  mixture, with 1, 2 and 4 MH steps and an asymmetric alpha, leave p(Z | W) invariant;
* a conditional with a wrong alpha or beta is rejected (the test has teeth for MH kernels);
* the stale-table proposals of the papers (LightLDA's word table, AliasLDA's dense part) have
  the right ratio (they pass when every table is fresh) but are NOT invariant once a table
  contains the token being resampled; the bias is detected. This is why the default light
  word proposal draws from the current state.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from topicsup.kernels import light
from topicsup.kernels.rng import uniform
from topicsup.models import LDA
from topicsup.testing.exact import (PerturbedModel, assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, normalize_log,
                                    sample_final_states, tiny_corpus)

N_CHAINS = 20_000
N_INVARIANT = 12_000
K2 = ([[0, 1], [1, 2, 2], [0, 2, 1]], 2, 0.3, 0.2)
K3 = ([[0, 1, 1], [2, 0, 2]], 3, (0.2, 0.5, 1.0), 0.3)

LIGHT = {
    "doc-alone": dict(composition="cycle", mh_steps=1),
    "word-alone": dict(composition="mixture", p_doc=1e-12, mh_steps=1),
    "cycle": dict(composition="cycle", mh_steps=2),
    "cycle-4-steps": dict(composition="cycle", mh_steps=4),
    "mixture": dict(composition="mixture", mh_steps=2),
}


def _target(case):
    docs, K, alpha, beta = case
    corpus = tiny_corpus(docs)
    Z = enumerate_assignments(corpus.n_tokens, K)
    return corpus, normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z))


@pytest.mark.parametrize("case", ["K2", "K3-asymmetric"])
@pytest.mark.parametrize("variant", list(LIGHT))
def test_light_proposals_leave_exact_posterior_invariant(case, variant):
    docs, K, alpha, beta = K2 if case == "K2" else K3
    corpus, p = _target(K2 if case == "K2" else K3)
    model = LDA(K=K, alpha=alpha, beta=beta, sampler="light", **LIGHT[variant])
    # 10 variants: fewer chains than the mutants' tests, which keep N_CHAINS for their teeth
    idx = sample_final_states(model, corpus, p, n_chains=N_INVARIANT, n_sweeps=3, seed=11)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("variant", list(LIGHT))
def test_light_on_a_document_longer_than_the_prefetch_pipeline(variant):
    """The light kernel draws each token's uniforms 3 AHEAD tokens early and prefetches in
    stages down to AHEAD tokens early; a document longer than 3 AHEAD + 1 tokens runs every stage of that
    pipeline. One document of 14 tokens, K = 2 (16,384 states): still the exact posterior."""
    n = 3 * light.AHEAD + 2
    assert n == 14, "resize the case when AHEAD changes"
    case = ([[0, 1, 2, 0, 1, 2, 0, 3, 3, 1, 2, 0, 1, 2]], 2, (0.3, 0.6), 0.2)
    corpus, p = _target(case)
    model = LDA(K=2, alpha=case[2], beta=case[3], sampler="light", **LIGHT[variant])
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=21)
    assert_matches_target(idx, p)


def test_light_converges_from_a_random_start():
    """From uniform random starts, 20 sweeps reach the target (mixing, not just
    invariance)."""
    docs, K, alpha, beta = K2
    corpus, p = _target(K2)
    model = LDA(K=K, alpha=alpha, beta=beta, sampler="light")
    idx = sample_final_states(model, corpus, np.full_like(p, 1 / len(p)), n_chains=N_CHAINS,
                              n_sweeps=20, seed=12)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("variant, fa, fb", [("doc-alone", 1.0, 1.6), ("word-alone", 1.5, 1.0),
                                             ("cycle", 1.4, 1.0)])
def test_harness_rejects_a_perturbed_mh_kernel(variant, fa, fb):
    """Teeth: the same protocol rejects MH kernels whose ratio uses a wrong alpha or beta."""
    docs, K, alpha, beta = K2
    corpus, p = _target(K2)
    mutant = PerturbedModel(LDA(K=K, alpha=alpha, beta=beta, sampler="light",
                                **LIGHT[variant]), fa, fb)
    idx = sample_final_states(mutant, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"a wrong MH kernel went undetected: {gof}"


@njit
def _printed_doc_ratio_sweep(words, doc_ptr, z, n_wk, n_k, alpha, beta, rng):
    """Test-only doc-proposal MH sweep with the acceptance ratio as printed in LightLDA and
    Zheng et al. 2015 eq. 19: q(s) from counts that include token i at s."""
    V_beta = beta * n_wk.shape[0]
    K = n_k.shape[0]
    ndk = np.zeros(K, np.int64)
    for d in range(doc_ptr.shape[0] - 1):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        ndk[:] = 0
        for i in range(p0, p1):
            ndk[z[i]] += 1
        for i in range(p0, p1):
            w, s = words[i], z[i]
            ndk[s] -= 1
            n_wk[w, s] -= 1
            n_k[s] -= 1
            u = uniform(rng) * (p1 - p0 + alpha * K)
            t = z[p0 + int(u)] if u < p1 - p0 else int((u - (p1 - p0)) / alpha)
            if t != s:
                a = ((ndk[t] + alpha) * (n_wk[w, t] + beta) * (n_k[s] + V_beta)
                     * (ndk[s] + 1 + alpha)) / \
                    ((ndk[s] + alpha) * (n_wk[w, s] + beta) * (n_k[t] + V_beta)
                     * (ndk[t] + alpha))
                if a >= 1.0 or uniform(rng) < a:
                    s = t
            z[i] = s
            ndk[s] += 1
            n_wk[w, s] += 1
            n_k[s] += 1


class _PrintedDocRatio(LDA):
    def sweep_block(self, state, problem, rng, d_start, d_end, info):
        corpus = problem.corpus
        _printed_doc_ratio_sweep(corpus.words, corpus.doc_ptr, state.z, state.counts.n_wk,
                                 state.counts.n_k, float(self.alpha), self.beta, rng)


def test_the_printed_doc_proposal_ratio_is_rejected():
    """Settles the misprint: the doc-proposal ratio as printed (q(s) counting token i at s)
    fails the exact-target test at the run length the kernel's ratio passes (doc-alone above)."""
    docs, K, alpha, beta = K2
    corpus, p = _target(K2)
    model = _PrintedDocRatio(K=K, alpha=alpha, beta=beta, sampler="light", mh_steps=1)
    gof = goodness_of_fit(sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3,
                                              seed=11), p)
    assert gof.pvalue < 1e-6, gof


STALE = {"aliaslda": dict(sampler="alias"),
         "light-stale-word": dict(sampler="light", word_proposal="stale", composition="mixture",
                                  p_doc=1e-12, mh_steps=1)}


@pytest.mark.parametrize("name", list(STALE))
def test_stale_table_ratio_is_right_when_tables_are_fresh(name):
    """Every word occurs once, so each table is built during its only token's step from counts
    without that token: the proposal does not depend on the token, and the chain is exact."""
    corpus = tiny_corpus([[0, 1, 2], [3, 4], [5, 6, 7]])
    K, alpha, beta = 2, 0.3, 0.2
    p = normalize_log(lda_log_joint_states(corpus, K, alpha, beta,
                                           enumerate_assignments(corpus.n_tokens, K)))
    model = LDA(K=K, alpha=alpha, beta=beta, **STALE[name])
    assert_matches_target(sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3,
                                              seed=5), p)


@pytest.mark.parametrize("name", list(STALE))
def test_stale_tables_that_contain_the_token_are_biased(name):
    """The papers' stale tables, once they include the token being resampled, move mass away
    from the posterior: detected at p < 1e-6 with the same run length the exact kernels pass."""
    docs, K, alpha, beta = K2
    corpus, p = _target(K2)
    model = LDA(K=K, alpha=alpha, beta=beta, **STALE[name])
    gof = goodness_of_fit(sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3,
                                              seed=11), p)
    assert gof.pvalue < 1e-6, gof


def test_light_telemetry_counts_every_step():
    """A cycle of 3 steps makes 2 doc and 1 word proposals per token; rates lie in [0, 1] and
    the acceptance rate is close to the mean acceptance probability."""
    from topicsup.datasets import make_synthetic
    from topicsup.session import Session
    c = make_synthetic(n_docs=100, n_topics=4, doc_length=30, seed=2).corpus
    s = Session(LDA(K=4, sampler="light", mh_steps=3), c, seed=0)
    s.run(5)
    h = s.history
    made = h[h.metric == "proposals"].pivot(index="sweep", columns="proposal", values="value")
    assert (made["doc"] == 2 * c.n_tokens).all() and (made["word"] == c.n_tokens).all()
    for m in ("acceptance_rate", "mean_acceptance_probability"):
        v = h[h.metric == m]["value"]
        assert ((v >= 0) & (v <= 1)).all()
    rate = h[h.metric == "acceptance_rate"].set_index(["sweep", "proposal"])["value"]
    mean_p = h[h.metric == "mean_acceptance_probability"].set_index(["sweep", "proposal"])["value"]
    assert np.allclose(rate, mean_p, atol=0.02)
    assert light.KINDS == ("doc", "word")
