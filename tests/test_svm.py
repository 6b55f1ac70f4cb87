"""Monte Carlo MedLDA's weight step: the Crammer-Singer dual by coordinate ascent against
scikit-learn's LinearSVC (crammer_singer), strong duality, the multipliers' constraints."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.svm import COST, crammer_singer_dual, primal_objective


def _data(seed, D=300, K=8, M=4, spread=0.6):
    """Topic-proportion-like features: Dirichlet draws shifted towards a class's topics."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, M, D)
    base = rng.dirichlet(np.full(K, 0.5), size=M)
    X = np.array([rng.dirichlet(20 * ((1 - spread) * np.full(K, 1 / K) + spread * base[c]))
                  for c in y])
    return X, y


@pytest.mark.parametrize("C", [0.5, 30.0, 3000.0])
def test_the_dual_matches_scikit_learn(C):
    """kappa equals cost x LinearSVC(crammer_singer, no intercept, C_sk = C / (D cost)).coef_
    to 1e-5 (relative to its size), from loose C (most documents at their bound) to tight;
    the dual objective equals the primal at kappa (the duality gap closes); with the bound
    C instead of C / D (a wrong scaling) it does not match."""
    from sklearn.svm import LinearSVC
    X, y = _data(1)
    D = X.shape[0]
    sol = crammer_singer_dual(X, y, C, tol=1e-10, max_epochs=100_000)
    sk = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C / (D * COST),
                   tol=1e-12, max_iter=1_000_000).fit(X, y)
    kappa_sk = COST * sk.coef_
    scale = max(np.abs(kappa_sk).max(), 1e-12)
    np.testing.assert_allclose(sol.kappa / scale, kappa_sk / scale, atol=1e-5)
    primal = primal_objective(sol.kappa, X, y, C)
    assert sol.objective == pytest.approx(primal, rel=1e-7, abs=1e-9)
    assert sol.violation < 1e-10
    if C < 1000:   # where the bound binds, the comparison tells the scalings apart
        wrong = crammer_singer_dual(X, y, C * D, tol=1e-10, max_epochs=100_000)
        assert np.abs(wrong.kappa - kappa_sk).max() / scale > 1e-2


def test_the_multipliers_satisfy_the_constraints_and_build_kappa():
    """lambda >= 0, zero at the own class, each row summing to at most C / D; kappa =
    sum_d sum_y lambda_d^y (f(y_d, x_d) - f(y, x_d)); support is the share of documents with
    a non-zero multiplier, and a larger C leaves fewer documents inside the margin."""
    X, y = _data(2)
    D, K = X.shape
    for C in (1.0, 100.0):
        sol = crammer_singer_dual(X, y, C, tol=1e-9, max_epochs=50_000)
        lam = sol.multipliers
        assert (lam >= 0).all() and (lam[np.arange(D), y] == 0).all()
        assert (lam.sum(axis=1) <= C / D * (1 + 1e-9)).all()
        kappa = np.zeros_like(sol.kappa)
        for d in range(D):
            for m in range(lam.shape[1]):
                kappa[y[d]] += lam[d, m] * X[d]
                kappa[m] -= lam[d, m] * X[d]
        np.testing.assert_allclose(kappa, sol.kappa, atol=1e-10)
        assert sol.support == pytest.approx((lam > 0).any(axis=1).mean())


def test_a_warm_start_reaches_the_same_optimum_and_bad_input_is_named():
    X, y = _data(3)
    cold = crammer_singer_dual(X, y, 50.0, tol=1e-10, max_epochs=100_000)
    rough = crammer_singer_dual(X, y, 50.0, tol=1e-1, max_epochs=3)
    warm = crammer_singer_dual(X, y, 50.0, tol=1e-10, max_epochs=100_000, start=rough)
    np.testing.assert_allclose(warm.kappa, cold.kappa, atol=1e-6)
    # a start from a larger C is scaled back into the feasible set
    big = crammer_singer_dual(X, y, 5000.0, tol=1e-6, max_epochs=1000)
    again = crammer_singer_dual(X, y, 50.0, tol=1e-10, max_epochs=100_000, start=big)
    np.testing.assert_allclose(again.kappa, cold.kappa, atol=1e-6)
    with pytest.raises(ValueError, match="y must hold one integer class per row"):
        crammer_singer_dual(X, y.astype(float), 1.0)
    with pytest.raises(ValueError, match="X must be a 2-d numeric"):
        crammer_singer_dual(X[0], y, 1.0)
    with pytest.raises(ValueError, match="C must be"):
        crammer_singer_dual(X, y, 0.0)
    with pytest.raises(ValueError, match="finite"):
        crammer_singer_dual(np.full_like(X, np.nan), y, 1.0)
    with pytest.raises(ValueError, match="X has no rows"):
        crammer_singer_dual(X[:0], y[:0], 1.0)
    with pytest.raises(ValueError, match="start.multipliers must hold finite"):
        crammer_singer_dual(X, y, 50.0, start=rough._replace(
            multipliers=np.full_like(rough.multipliers, np.nan)))


# ------------------------------------------------------- the topic step with frozen multipliers
TILT_DOCS = ([[0, 1], [1, 2, 2], [0, 2, 1]], ["c0", "c1", "c2"])
TILT_LAM = np.array([[0.0, 0.8, 0.3], [0.5, 0.0, 0.0], [1.1, 0.2, 0.0]])   # (D, M)
TILT_KAPPA = np.array([[1.5, -0.7, 0.2], [-0.9, 1.2, 0.4], [0.3, 0.1, -1.3]])   # (M, K)


def _tilt_target(corpus, K, alpha, beta):
    """p(Z) ∝ LDA(Z) exp(sum_d (1/N_d) sum_y lambda_d^y (kappa_{y_d} - kappa_y) . n_d(Z)),
    Jiang eq. 13 with the multipliers frozen, computed from the formula itself."""
    from topicsup.testing.exact import enumerate_assignments, lda_log_joint_states
    Z = enumerate_assignments(corpus.n_tokens, K)
    y = np.array([0, 1, 2])   # documents' classes c0, c1, c2
    logp = lda_log_joint_states(corpus, K, np.full(K, alpha), beta, Z)
    ptr = corpus.doc_ptr
    for d in range(corpus.n_docs):
        n = np.stack([(Z[:, ptr[d]:ptr[d + 1]] == k).sum(1) for k in range(K)], 1)
        for m in range(TILT_LAM.shape[1]):
            logp += TILT_LAM[d, m] * (n @ (TILT_KAPPA[y[d]] - TILT_KAPPA[m])) / (ptr[d + 1]
                                                                                - ptr[d])
    p = np.exp(logp - logp.max())
    return p / p.sum()


@pytest.mark.parametrize("variant", ["gibbs", "mixture", "pc-sparse"])
def test_topic_kernels_with_the_tilt_of_frozen_multipliers_are_exact(variant):
    """gMedLDA's topic step (Jiang sec. 4.2) is the frame's augmented factor with w = 0
    (``tilt_term``): the Gibbs, light and partially collapsed kernels, given frozen
    multipliers and kappa, leave Jiang's tilted target invariant (computed from his formula,
    not from the harness's factor), by chi-square at 1e-3 on 20,000 chains; the same kernels
    with the multipliers' sign flipped in b are rejected (p < 1e-6)."""
    from topicsup.models import SupervisedLDA
    from topicsup.svm import tilt_term
    from topicsup.testing.exact import (TOPIC_KERNEL_VARIANTS, goodness_of_fit,
                                        sample_final_states, tiny_corpus)
    corpus = tiny_corpus(TILT_DOCS[0], labels=TILT_DOCS[1])
    K, alpha, beta = 3, 0.3, 0.2
    p = _tilt_target(corpus, K, alpha, beta)
    model = SupervisedLDA(K=K, alpha=alpha, beta=beta, supervised_factor="augmented",
                          **TOPIC_KERNEL_VARIANTS[variant])
    y = np.array([0, 1, 2])
    assert list(model.bind(corpus).task_names) == ["c0", "c1", "c2"]

    def prepare(sign):
        b, w = tilt_term(TILT_LAM * sign, y)

        def fix(state):
            sup = state.supervision
            sup.weights.eta[...] = TILT_KAPPA
            sup.loss.b[...] = b
            sup.loss.w[...] = w
        return fix

    idx = sample_final_states(model, corpus, p, n_chains=20_000, n_sweeps=2, seed=17,
                              prepare=prepare(1.0))
    assert goodness_of_fit(idx, p).pvalue > 1e-3
    idx = sample_final_states(model, corpus, p, n_chains=20_000, n_sweeps=2, seed=17,
                              prepare=prepare(-1.0))
    assert goodness_of_fit(idx, p).pvalue < 1e-6
