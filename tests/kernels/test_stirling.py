"""Generalized Stirling numbers: the log-space table against exact arithmetic, closed forms
and the Pitman-Yor normalisation, far beyond float64's range, and lazy growth that never
changes a number."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import gammaln

from topicsup.kernels import stirling


def _exact(n_max: int, a: Fraction) -> list[list[Fraction]]:
    S = [[Fraction(0)] * (n_max + 2) for _ in range(n_max + 2)]
    S[0][0] = Fraction(1)
    for n in range(n_max + 1):
        for m in range(1, n + 2):
            S[n + 1][m] = S[n][m - 1] + (n - m * a) * S[n][m]
    return S


@pytest.mark.parametrize("a", [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
def test_log_table_matches_exact_rational_recurrence(a):
    """Every entry up to n = 40 to 1e-12 relative (exact rationals as reference), zeros as
    -inf, and the two ratios the samplers read equal to their definitions."""
    st = stirling.table(float(a), rows=40, cols=40)
    S = _exact(41, a)
    for n in range(41):
        for m in range(41):
            if S[n][m] == 0:
                assert st.log_s[n, m] == -np.inf, (n, m)
            else:
                assert st.log_s[n, m] == pytest.approx(math.log(S[n][m]), rel=1e-12, abs=1e-12)
    for n in range(1, 39):
        for m in range(1, n + 1):
            join = float(S[n + 1][m] / S[n][m] * Fraction(n + 1 - m, n + 1))
            open_ = float(S[n + 1][m + 1] / S[n][m] * Fraction(m + 1, n + 1))
            assert st.join[n, m] == pytest.approx(join, rel=1e-11)
            assert st.open[n, m] == pytest.approx(open_, rel=1e-11)


@pytest.mark.parametrize("a", [0.0, 0.1, 0.5])
def test_closed_forms_and_pitman_yor_normalisation_at_large_n(a):
    """Up to n = 3000 (S overflows float64 beyond n ~ 170): S^n_n = 1, S^n_1 = (1 - a)_{n-1},
    S^n_{n-1} = (1 - a) n (n - 1) / 2, and the table counts' probabilities of a Pitman-Yor
    restaurant sum to one: sum_m (b|a)_m S^n_m = (b)_n."""
    n = 3000
    st = stirling.table(a, rows=n, cols=n)
    assert np.isfinite(st.log_s[n, 1:n + 1]).all()
    assert st.log_s[n, n] == pytest.approx(0.0, abs=1e-9)
    assert st.log_s[n, 1] == pytest.approx(gammaln(n - a) - gammaln(1 - a), rel=1e-10)
    assert st.log_s[n, n - 1] == pytest.approx(math.log((1 - a) * n * (n - 1) / 2), rel=1e-10)
    b = 10.0
    m = np.arange(1, n + 1)
    log_poch = (m * math.log(a) + gammaln(b / a + m) - gammaln(b / a)) if a > 0 \
        else m * math.log(b)
    terms = log_poch + st.log_s[n, 1:n + 1]
    total = terms.max() + math.log(np.exp(terms - terms.max()).sum())
    assert total == pytest.approx(gammaln(b + n) - gammaln(b), rel=1e-10)


def test_cover_grows_lazily_to_the_same_numbers():
    """A small record grows (doubling) to cover any (n, m) and its entries equal those of a
    record built at that size directly: growing never changes a number."""
    st = stirling.table(0.3, rows=4, cols=2)
    grown = stirling.cover(st, 100, 37)
    assert grown.join.shape[0] > 100 and grown.join.shape[1] > 37
    assert np.shares_memory(stirling.cover(grown, 100, 37).join, grown.join)   # no rebuild
    direct = stirling.table(0.3, rows=grown.join.shape[0], cols=grown.join.shape[1])
    np.testing.assert_array_equal(grown.log_s, direct.log_s)
    np.testing.assert_array_equal(grown.join, direct.join)
    np.testing.assert_array_equal(grown.open, direct.open)
