"""Walker alias tables draw exactly the distribution they were built from."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels.alias import alias_from_uniform, build_alias, draw_alias
from topicsup.kernels.rng import seed_state, uniform


@njit
def _draws(weights, n, rng, one_uniform=False):
    K = weights.shape[0]
    prob = np.zeros(K)
    alias = np.zeros(K, np.int32)
    work = np.zeros(K, np.int32)
    total = build_alias(weights, prob, alias, work)
    out = np.empty(n, np.int64)
    for i in range(n):
        if one_uniform:
            out[i] = alias_from_uniform(prob, alias, uniform(rng))
        else:
            out[i] = draw_alias(prob, alias, rng)
    return out, total


@pytest.mark.parametrize("weights", [
    [1.0, 2.0, 3.0, 4.0],
    [0.0, 5.0, 0.0, 1.0, 0.0],                  # zero-mass outcomes
    [1e-6, 1.0, 1.0, 1.0, 1e3],                 # very skewed
    list(np.random.default_rng(0).gamma(0.1, size=50)),   # sparse-ish, K = 50
    [0.25, 0.25, 0.25, 0.25],                   # uniform (every bin full)
])
@pytest.mark.parametrize("one_uniform", [False, True], ids=["two-uniforms", "one-uniform"])
def test_alias_draws_follow_the_weights(weights, one_uniform):
    """Chi-square of 200k draws against the normalised weights (p > 1e-4); zero-weight
    outcomes are never drawn; the returned total is the sum of the weights. Both draw_alias
    and the one-uniform alias_from_uniform (used by the light doc proposal)."""
    w = np.asarray(weights, dtype=np.float64)
    x, total = _draws(w, 200_000, seed_state(3), one_uniform)
    assert np.isclose(total, w.sum())
    p = w / w.sum()
    counts = np.bincount(x, minlength=len(w))
    assert counts[p == 0].sum() == 0
    keep = p * len(x) >= 5
    exp = np.append(p[keep], p[~keep].sum()) * len(x)
    obs = np.append(counts[keep], counts[~keep].sum())
    exp, obs = exp[exp > 0], obs[exp > 0]
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_single_outcome_and_one_nonzero():
    assert set(_draws(np.array([2.5]), 1000, seed_state(1))[0]) == {0}
    assert set(_draws(np.array([0.0, 0.0, 7.0]), 1000, seed_state(1))[0]) == {2}


def test_a_wrong_table_would_be_caught():
    """Teeth: draws from weights (1, 2, 3, 4) fail the test against (1, 2, 3, 4.4)."""
    x, _ = _draws(np.array([1.0, 2.0, 3.0, 4.0]), 200_000, seed_state(3))
    q = np.array([1.0, 2.0, 3.0, 4.4])
    assert stats.chisquare(np.bincount(x), q / q.sum() * len(x)).pvalue < 1e-6
