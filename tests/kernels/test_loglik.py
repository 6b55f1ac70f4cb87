"""The numba log joint equals the independent numpy formula, and that formula is the real
LDA marginal: summing exp(log p(W, Z)) over Z gives the frequencies of W under forward
simulation of the generative process."""

import numpy as np
from scipy import stats

from topicsup.models import LDA
from topicsup.testing.exact import (enumerate_assignments, lda_log_joint_states,
                                    tiny_corpus)


def test_kernel_log_joint_matches_numpy_formula_on_every_state():
    corpus = tiny_corpus([[0, 1, 1], [2, 0, 2]])
    K, alpha, beta = 3, (0.2, 0.5, 1.0), 0.3
    Z = enumerate_assignments(corpus.n_tokens, K)
    ref = lda_log_joint_states(corpus, K, alpha, beta, Z)
    m = LDA(K=K, alpha=alpha, beta=beta)
    problem = m.bind(corpus)
    state = m.allocate_state(problem)
    for r in range(0, len(Z), 7):
        state.z[:] = Z[r]
        m.refresh_state(state, problem)
        assert np.isclose(m.log_joint(state, problem), ref[r], rtol=0, atol=1e-10)


def test_log_joint_formula_is_the_generative_marginal():
    """p(W) = sum_Z p(W, Z) matches 200k forward draws of LDA (chi-square p > 1e-3).

    Two documents of 2 tokens over V = 3 words, K = 2: all 81 word patterns are enumerated.
    A wrong normaliser (e.g. Gamma(V beta) missing) makes sum_W p(W) != 1 or biases cells.
    """
    K, V, alpha, beta, lengths = 2, 3, 0.4, 0.7, (2, 2)
    N = sum(lengths)
    Ws = enumerate_assignments(N, V)      # every word pattern
    Z = enumerate_assignments(N, K)
    pW = np.empty(len(Ws))
    for r, w in enumerate(Ws):
        docs = [list(w[:2]), list(w[2:])]
        c = tiny_corpus(docs, n_words=V)
        pW[r] = np.exp(lda_log_joint_states(c, K, alpha, beta, Z)).sum()
    assert np.isclose(pW.sum(), 1.0, atol=1e-10)

    rs = np.random.default_rng(3)
    n = 200_000
    phi = rs.dirichlet(np.full(V, beta), size=(n, K))
    theta = rs.dirichlet(np.full(K, alpha), size=(n, len(lengths)))
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    W = np.empty((n, N), np.int64)
    for i in range(N):
        z = (rs.random(n) < theta[:, doc_of[i], 1]).astype(int)
        p = phi[np.arange(n), z]
        W[:, i] = (rs.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(max=V - 1)
    idx = W @ (V ** np.arange(N))
    counts = np.bincount(idx, minlength=len(Ws))
    assert stats.chisquare(counts, n * pW).pvalue > 1e-3
