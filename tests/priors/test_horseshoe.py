"""The horseshoe prior on its own: its scale draws against the half-Cauchy they must keep."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from topicsup.kernels.horseshoe import VARIANCE_RANGE, horseshoe_update
from topicsup.kernels.rng import seed_state
from topicsup.priors.horseshoe import Horseshoe

QUARTILES = np.tan(np.pi / 8 * np.array([1, 2, 3]))   # of C+(0, 1): 0.414, 1, 2.414


def _prior_only(T, P, n_iter, seed, shape_extra=0):
    """T independent prior-only chains of P weights: eta | scales ~ N(0, tau^2 lambda^2), then
    the scales | eta (``horseshoe_update``), from tau = lambda = 1. ``shape_extra`` zero weights
    are appended to the update (a mutant counting weights the prior is not on)."""
    rs = np.random.default_rng(seed)
    rng = seed_state(seed)
    lam2, nu = np.ones((T, P + shape_extra)), np.ones((T, P + shape_extra))
    tau2, xi = np.ones(T), np.ones(T)
    prec = np.empty_like(lam2)
    for _ in range(n_iter):
        eta = rs.standard_normal((T, P)) * np.sqrt(tau2[:, None] * lam2[:, :P])
        eta = np.hstack([eta, np.zeros((T, shape_extra))])
        horseshoe_update(eta, lam2, nu, tau2, xi, rng, prec)
    return np.sqrt(tau2), np.sqrt(lam2[:, :P]), prec[:, :P]


def _half_cauchy_cdf(x):
    return 2 / np.pi * np.arctan(x)


def test_prior_only_runs_keep_the_half_cauchy_quartiles():
    """4,000 prior-only chains (5 weights each) started away from the prior (tau = lambda = 1)
    and run 200 sweeps end with tau and lambda half-Cauchy: quartiles within 5% of tan(pi/8),
    1 and tan(3 pi/8), and KS p > 1e-3 (tau over chains, lambda over chains and weights). The
    chains are independent, so the KS test is exact for a sampler at stationarity."""
    tau, lam, prec = _prior_only(4000, 5, 200, seed=3)
    for x in (tau, lam.ravel()):
        assert np.allclose(np.quantile(x, [0.25, 0.5, 0.75]), QUARTILES, rtol=0.05)
        assert stats.kstest(x, _half_cauchy_cdf).pvalue > 1e-3
    lo, hi = VARIANCE_RANGE
    assert np.allclose(prec, 1 / np.clip(tau[:, None] ** 2 * lam ** 2, lo, hi))


def test_a_global_shape_that_counts_the_intercept_is_rejected():
    """Teeth, at the same size: the global scale's Gamma shape (p + 1) / 2 with p one too many
    (the intercept counted; docs/math.md sec. 8) moves tau off the half-Cauchy."""
    tau, _, _ = _prior_only(4000, 5, 200, seed=3, shape_extra=1)
    assert stats.kstest(tau, _half_cauchy_cdf).pvalue < 1e-6


def test_log_density_is_the_hierarchy_and_a_forged_state_is_refused():
    prior = Horseshoe()
    own = prior.allocate(2, 3)
    rs = np.random.default_rng(0)
    for a in own:
        a[...] = rs.uniform(0.2, 3.0, a.shape)
    eta = rs.standard_normal((2, 3))
    ig = stats.invgamma
    expect = (stats.norm(0, np.sqrt(own.tau2[:, None] * own.lam2)).logpdf(eta).sum()
              + ig(0.5, scale=1 / own.nu).logpdf(own.lam2).sum()
              + ig(0.5).logpdf(own.nu).sum()
              + ig(0.5, scale=1 / own.xi).logpdf(own.tau2).sum() + ig(0.5).logpdf(own.xi).sum())
    assert np.isclose(prior.log_density(eta, own), expect)
    assert np.allclose(prior.precision(own, 2, 3), 1 / (own.tau2[:, None] * own.lam2))
    prior.validate(own)
    own.tau2[1] = -1.0
    with pytest.raises(ValueError, match="state/hs_tau2 must hold finite positive"):
        prior.validate(own)
