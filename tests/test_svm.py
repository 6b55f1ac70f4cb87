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
