"""The standard draws against their distributions (Kolmogorov-Smirnov, 100k draws, p > 1e-3
with a fixed seed), with a perturbed reference rejected at the same size (the test has teeth)."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels.draws import TAIL_FROM, gamma, inverse_gaussian, normal, normal_above
from topicsup.kernels.rng import seed_state

N = 100_000


@njit
def _igs(n, mean, shape, rng):
    """n inverse-Gaussian draws, or standard normals when ``mean`` is nan."""
    out = np.empty(n)
    for i in range(n):
        out[i] = normal(rng) if np.isnan(mean) else inverse_gaussian(rng, mean, shape)
    return out


def _ig_cdf(mean, shape):
    return stats.invgauss(mean / shape, scale=shape).cdf


def test_normal_is_standard_normal():
    x = _igs(N, np.nan, 0.0, seed_state(1))
    assert stats.kstest(x, "norm").pvalue > 1e-3
    assert stats.kstest(x, stats.norm(0, 1.04).cdf).pvalue < 1e-3


@pytest.mark.parametrize("mean, shape", [(1.0, 1.0), (0.05, 1.0), (30.0, 1.0), (2.0, 7.0),
                                         (1e4, 1.0)])
def test_inverse_gaussian_matches_scipy(mean, shape):
    """Includes a huge mean (zeta near 0 in the hinge augmentation), where the textbook root
    formula cancels catastrophically."""
    x = _igs(N, mean, shape, seed_state(2))
    assert (x > 0).all()
    assert stats.kstest(x, _ig_cdf(mean, shape)).pvalue > 1e-3
    assert stats.kstest(x, _ig_cdf(mean, shape * 1.1)).pvalue < 1e-3


def test_inverse_gaussian_infinite_mean_is_the_levy_limit():
    """IG(inf, shape) = shape / chi^2_1, the zeta = 0 case of the hinge augmentation."""
    x = _igs(N, np.inf, 2.0, seed_state(3))
    assert stats.kstest(x, stats.levy(scale=2.0).cdf).pvalue > 1e-3


GAMMA, ABOVE = 0, 1


@njit
def _draws(kind, n, param, rng):
    """n Gamma(param) draws (``GAMMA``) or standard normals above param (``ABOVE``)."""
    out = np.empty(n)
    for i in range(n):
        out[i] = gamma(rng, param) if kind == GAMMA else normal_above(rng, param)
    return out


@pytest.mark.parametrize("a", [0.01, 0.3, 0.99, 1.0, 2.5, 40.0])
def test_gamma_matches_scipy_on_both_branches(a):
    """Ahrens-Dieter GS below shape 1 (0.01 is a topic-word Dirichlet's beta), Marsaglia-Tsang
    from 1 on; a shape 10% off is rejected. At 0.01 the draws below 1e-300 (about 0.1% at
    this shape, they underflow to 0) are compared as 0 with the reference's."""
    x = _draws(GAMMA, N, a, seed_state(3))
    ref = stats.gamma(a)
    assert stats.kstest(x, ref.cdf).pvalue > 1e-3
    assert stats.kstest(x, stats.gamma(a * 1.1).cdf).pvalue < 1e-6


@pytest.mark.parametrize("lo", [-3.0, 0.0, 0.3, TAIL_FROM, 1.0, 5.0, 10.0])
def test_normal_above_matches_the_truncated_normal(lo):
    """Both branches (plain rejection below TAIL_FROM, Robert's exponential proposal from it)
    against scipy's truncated normal, 5 and 10 standard deviations out included, where naive
    rejection would never return; the same bound moved by 2% of a standard deviation (or of
    the tail's scale, 1 / lo, far out; the mean, where the bound is far below) is rejected."""
    x = _draws(ABOVE, N, lo, seed_state(4))
    assert (x >= lo).all()
    assert stats.kstest(x, stats.truncnorm(lo, np.inf).cdf).pvalue > 1e-3
    shift = 0.02 / max(lo, 1.0)
    wrong = stats.truncnorm(lo + shift, np.inf) if lo >= 0 else \
        stats.truncnorm(lo - shift, np.inf, loc=shift)   # bound unseen: the mean moved
    assert stats.kstest(x, wrong.cdf).pvalue < 1e-6
