"""The collapsed Gibbs kernel against the exact LDA posterior p(Z | W) by enumeration.

Each test draws independent chains started from the exact target, runs the model's own
``sweep_block`` and compares the final states with the target by a chi-square test at level
1e-3 (see ``topicsup.testing.exact``). The perturbation tests prove the test has teeth: a
kernel whose conditional uses a wrong alpha or beta is rejected with an astronomically small
p-value, at the same run length.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.models import LDA
from topicsup.kernels import gibbs
from topicsup.testing.exact import (PerturbedModel, assert_matches_target,
                                    enumerate_assignments, goodness_of_fit,
                                    lda_log_joint_states, normalize_log, sample_final_states,
                                    tiny_corpus)

N_CHAINS = 20_000

CASES = {
    # 3 documents, 8 tokens, K = 2: 256 states
    "K2": ([[0, 1], [1, 2, 2], [0, 2, 1]], 2, 0.3, 0.2),
    # 2 documents, 6 tokens, K = 3: 729 states, asymmetric alpha
    "K3-asymmetric": ([[0, 1, 1], [2, 0, 2]], 3, (0.2, 0.5, 1.0), 0.3),
}


def _target(docs, K, alpha, beta):
    corpus = tiny_corpus(docs)
    Z = enumerate_assignments(corpus.n_tokens, K)
    return corpus, normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z))


@pytest.mark.parametrize("case", list(CASES))
def test_gibbs_leaves_exact_posterior_invariant(case):
    """Final states of 20k chains follow p(Z | W): chi-square p > 1e-3."""
    docs, K, alpha, beta = CASES[case]
    corpus, p = _target(docs, K, alpha, beta)
    idx = sample_final_states(LDA(K=K, alpha=alpha, beta=beta), corpus, p,
                              n_chains=N_CHAINS, n_sweeps=3, seed=11)
    assert_matches_target(idx, p)


def test_gibbs_converges_from_a_random_start():
    """From uniform random starts, 20 sweeps reach the target (mixing, not just invariance)."""
    docs, K, alpha, beta = CASES["K2"]
    corpus, p = _target(docs, K, alpha, beta)
    uniform_start = np.full_like(p, 1.0 / len(p))
    idx = sample_final_states(LDA(K=K, alpha=alpha, beta=beta), corpus, uniform_start,
                              n_chains=N_CHAINS, n_sweeps=20, seed=12)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("fa, fb", [(1.33, 1.0), (1.0, 1.5)])
def test_harness_rejects_a_perturbed_conditional(fa, fb):
    """Teeth: alpha 0.3 -> 0.4, or beta 0.2 -> 0.3, in the conditional is caught (p < 1e-8)."""
    docs, K, alpha, beta = CASES["K2"]
    corpus, p = _target(docs, K, alpha, beta)
    mutant = PerturbedModel(LDA(K=K, alpha=alpha, beta=beta), fa, fb)
    idx = sample_final_states(mutant, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-8, f"a wrong conditional went undetected: {gof}"
    with pytest.raises(AssertionError, match="do not follow the exact target"):
        assert_matches_target(idx, p)


def test_info_record_counts_tokens_and_changes():
    docs, K, alpha, beta = CASES["K2"]
    corpus = tiny_corpus(docs)
    m = LDA(K=K, alpha=alpha, beta=beta)
    from topicsup.kernels.rng import seed_state
    rng = seed_state(0)
    state = m.init_state(corpus, rng)
    info = np.zeros(m.info_size)
    before = state.z.copy()
    m.sweep_block(state, corpus, rng, 0, corpus.n_docs, info)
    assert info[gibbs.INFO_TOKENS] == corpus.n_tokens
    assert info[gibbs.INFO_CHANGED] == (before != state.z).sum()
