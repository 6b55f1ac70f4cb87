"""The standard draws against their distributions (Kolmogorov-Smirnov, 100k draws, p > 1e-3
with a fixed seed), with a perturbed reference rejected at the same size (the test has teeth)."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels.draws import inverse_gaussian, normal
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
