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
from topicsup.samplers.gibbs import Gibbs, uses_label_matrix
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
    idx = sample_final_states(LDA(K=K, alpha=alpha, beta=beta, sampler="gibbs"), corpus, p,
                              n_chains=N_CHAINS, n_sweeps=3, seed=11)
    assert_matches_target(idx, p)


def test_gibbs_converges_from_a_random_start():
    """From uniform random starts, 20 sweeps reach the target (mixing, not just invariance)."""
    docs, K, alpha, beta = CASES["K2"]
    corpus, p = _target(docs, K, alpha, beta)
    uniform_start = np.full_like(p, 1.0 / len(p))
    idx = sample_final_states(LDA(K=K, alpha=alpha, beta=beta, sampler="gibbs"), corpus, uniform_start,
                              n_chains=N_CHAINS, n_sweeps=20, seed=12)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("fa, fb", [(1.33, 1.0), (1.0, 1.5)])
def test_harness_rejects_a_perturbed_conditional(fa, fb):
    """Teeth: alpha 0.3 -> 0.4, or beta 0.2 -> 0.3, in the conditional is caught (p < 1e-8)."""
    docs, K, alpha, beta = CASES["K2"]
    corpus, p = _target(docs, K, alpha, beta)
    mutant = PerturbedModel(LDA(K=K, alpha=alpha, beta=beta, sampler="gibbs"), fa, fb)
    idx = sample_final_states(mutant, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-8, f"a wrong conditional went undetected: {gof}"
    with pytest.raises(AssertionError, match="do not follow the exact target"):
        assert_matches_target(idx, p)


def test_info_record_counts_tokens_and_changes():
    docs, K, alpha, beta = CASES["K2"]
    corpus = tiny_corpus(docs)
    m = LDA(K=K, alpha=alpha, beta=beta, sampler="gibbs")
    from topicsup.kernels.rng import seed_state
    rng = seed_state(0)
    state = m.init_state(m.bind(corpus), rng)
    info = np.zeros(m.info_size)
    before = state.z.copy()
    m.sweep_block(state, m.bind(corpus), rng, 0, corpus.n_docs, info)
    assert info[gibbs.INFO_TOKENS] == corpus.n_tokens
    assert info[gibbs.INFO_CHANGED] == (before != state.z).sum()


# ---------------------------------------------------------------------- the K x K label matrix
class _DoubledMatrix(Gibbs):
    """Test-only mutant: the K x K label matrix scaled by 2."""

    def label_matrix(self, term, own):
        super().label_matrix(term, own)
        own.G[...] *= 2.0


class _WithSampler:
    """Test-only: ``model`` whose sweeps run ``sampler`` in place of its own."""

    def __init__(self, model, sampler):
        self._model, self._sampler = model, sampler

    def __getattr__(self, name):
        return getattr(self._model, name)

    def sweep_block(self, state, problem, rng, d_start, d_end, info):
        term, active = self._model.term(state, problem)
        self._sampler.sweep(problem, state.counts, state.sampler, term, active, rng, d_start,
                            d_end, info)


def test_supervised_gibbs_takes_the_label_matrix_exactly_when_w_is_shared():
    from .test_partially_collapsed import _shared_w
    corpus, _, _, prepare, model = _shared_w()
    model = model.replace(sampler="gibbs")
    problem = model.bind(corpus)
    state = model.allocate_state(problem)
    prepare(state)
    model.refresh_state(state, problem)
    term, active = model.term(state, problem)
    assert active and uses_label_matrix(term, state.sampler)
    state.supervision.loss.w[0, 1] += 0.5   # one document's w differs: the O(K T) path
    assert not uses_label_matrix(model.term(state, problem)[0], state.sampler)


def test_supervised_gibbs_through_the_label_matrix_is_exact():
    """Collapsed Gibbs with three label tasks sharing w per task (DOLDA's case: the label
    term through the K x K matrix, O(K) per token) leaves the collapsed target of the labels
    given (eta, b, w) invariant: 20,000 chains of two sweeps from it (chi-square over the
    enumerated assignments, p > 1e-3); the same with the matrix doubled is rejected."""
    from .test_partially_collapsed import _shared_w
    corpus, _, collapsed, prepare, model = _shared_w()
    model = model.replace(sampler="gibbs")
    idx = sample_final_states(model, corpus, collapsed, n_chains=N_CHAINS, n_sweeps=2,
                              seed=48, prepare=prepare)
    assert_matches_target(idx, collapsed)
    idx = sample_final_states(_WithSampler(model, _DoubledMatrix()), corpus, collapsed,
                              n_chains=N_CHAINS, n_sweeps=2, seed=48, prepare=prepare)
    gof = goodness_of_fit(idx, collapsed)
    assert gof.pvalue < 1e-6, f"a doubled label matrix went undetected: {gof}"


def test_label_matrix_g_equals_the_sums_g():
    """The matrix path's g_d(k) for every k and every token's old topic equals the O(K T)
    sums' (``token_coupling`` then ``g_all``) to rounding, and so do they after a move
    (``matrix_move`` against ``move``): random weights, 5 tasks, K = 7, a 9-token document."""
    from topicsup.kernels import supervised as sup
    rs = np.random.default_rng(5)
    K, T, D, N = 7, 5, 1, 9
    z = rs.integers(0, K, N).astype(np.int32)
    w = np.repeat(rs.uniform(0.5, 2.0, (T, 1)), D, axis=1)
    term = sup.Term(sup.AUGMENTED, np.zeros(0), rs.normal(size=(K, T)), rs.normal(size=(T, D)),
                    w, np.ones((T, D)), rs.normal(size=(T, D)), np.zeros(K), np.zeros((4, T)),
                    np.zeros(T), np.zeros(K), np.zeros(K, np.int32))
    assert sup.shared_w(term)
    G, qq = np.zeros((K, K)), np.zeros(K)
    sup.label_matrix(term.eta_kt, np.ascontiguousarray(w[:, 0]), G)
    sup.load_doc(term, 0, z, 0, N, False)
    sup.matrix_load(term.eta_kt, term.c, qq)
    inv_n2 = 1.0 / (N * N)
    by_matrix, by_sums = np.zeros(K), np.zeros(K)
    for step in range(2):
        for s in range(K):
            sup.matrix_g_all(term.A, qq, G[s], inv_n2, by_matrix)
            sup.token_coupling(term.factor, term.eta_kt, term.c, s, term.v)
            sup.g_all(term.factor, term.loss_params, term.A, term.eta_kt, term.c, term.v,
                      by_sums)
            np.testing.assert_allclose(by_matrix, by_sums, rtol=1e-12, atol=1e-12)
        old, new = int(z[0]), (int(z[0]) + 3) % K
        sup.matrix_move(G, qq, old, new, inv_n2)
        sup.move(term.eta_kt, term.c, old, new)
        z[0] = new
