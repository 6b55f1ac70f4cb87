"""The xoshiro256** streams: deterministic, independent per stream, uniform."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels.rng import (derive, fill_uniforms, next_u64, randint, seed_state,
                                  uniform)


@njit
def _draw_uniform(s, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = uniform(s)
    return out


@njit
def _draw_int(s, k, n):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = randint(s, k)
    return out


def test_reference_values_of_xoshiro256starstar():
    """Matches the published algorithm: state (1, 2, 3, 4) gives 11520, 0, 1509978240."""
    s = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert [int(next_u64(s)) for _ in range(3)] == [11520, 0, 1509978240]


def test_same_seed_same_stream_and_streams_differ():
    a = _draw_uniform(seed_state(7), 1000)
    b = _draw_uniform(seed_state(7), 1000)
    c = _draw_uniform(seed_state(7, stream=1), 1000)
    d = _draw_uniform(seed_state(8), 1000)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c) and not np.array_equal(a, d)


@njit
def _fill_then_draw(s, sizes):
    out = []
    for n in sizes:
        u = np.empty(n)
        fill_uniforms(u, s)
        out.append(u)
    return out, uniform(s)


def test_fill_uniforms_draws_what_uniform_draws_in_turn():
    """The same numbers in the same order as one ``uniform`` call each, and the state left
    where those calls leave it (the light sweep's chain rests on it), whatever the sizes."""
    sizes = np.array([0, 1, 6, 3, 12, 1])
    filled, after = _fill_then_draw(seed_state(5, stream=2), sizes)
    one_by_one = _draw_uniform(seed_state(5, stream=2), int(sizes.sum()) + 1)
    np.testing.assert_array_equal(np.concatenate(filled), one_by_one[:-1])
    assert after == one_by_one[-1]


def test_uniform_is_uniform():
    """Kolmogorov-Smirnov on 200k draws: a defective generator or scaling fails at 1e-4."""
    u = _draw_uniform(seed_state(1), 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-4


def test_randint_is_uniform_over_its_range():
    """Chi-square over 7 cells on 70k draws; an off-by-one (8 cells or 6) fails."""
    x = _draw_int(seed_state(2), 7, 70_000)
    counts = np.bincount(x, minlength=7)
    assert len(counts) == 7
    assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None, True])
def test_bad_seed(bad):
    with pytest.raises((TypeError, ValueError), match="seed"):
        seed_state(bad)


def test_derived_streams_are_distinct_deterministic_and_uniform():
    """derive(key, label): the same (key, label) gives the same state, and the key is not
    advanced; the first draws of 20,000 streams of consecutive labels (the fold-in gives one
    to each held-out document) are uniform (KS) and their pairs uncorrelated, which a
    derivation that ignored the label, or mixed it weakly, would fail."""
    key = seed_state(3)
    before = key.copy()
    assert np.array_equal(derive(key, 7), derive(key, 7)) and np.array_equal(key, before)
    assert not np.array_equal(derive(key, 7), derive(key, 8))
    assert not np.array_equal(derive(key, 7), derive(seed_state(4), 7))
    first = np.array([uniform(derive(key, j)) for j in range(20_000)])
    assert stats.kstest(first, "uniform").pvalue > 1e-3
    assert abs(np.corrcoef(first[:-1], first[1:])[0, 1]) < 0.03
