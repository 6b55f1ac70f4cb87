"""The supplied per-word stale tables of AliasPDP and AliasHDP (``word_tables.draw_supply``):
a supply drawn by inversion (fewer draws than a quarter of the outcomes) or from a Walker
table (more) holds independent draws of q[w] / mass[w], its mass is the sum of q[w], and the
bookkeeping (used, supply, built) says a fresh table of that size."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels import word_tables
from topicsup.kernels.rng import seed_state


@njit
def _supplies(wt, w, rng, need, n_builds):
    """``n_builds`` builds of word w's table with ``need`` draws each, all draws in order."""
    out = np.empty(n_builds * need, np.int64)
    for b in range(n_builds):
        word_tables.draw_supply(w, wt, rng, need)
        for j in range(need):
            out[b * need + j] = wt.samples[w, j]
    return out


def _check(q, draws):
    p = q / q.sum()
    counts = np.bincount(draws, minlength=len(q))
    assert counts[p == 0].sum() == 0   # an outcome without mass is never drawn
    keep = p * len(draws) >= 5
    exp = np.append(p[keep], p[~keep].sum()) * len(draws)
    obs = np.append(counts[keep], counts[~keep].sum())
    return stats.chisquare(obs[exp > 0], exp[exp > 0]).pvalue


QS = {"skewed": np.array([0.0, 3.0, 1e-3, 0.0, 7.0, 1.0, 2.0, 0.5] * 8),   # L = 64
      "gamma": np.random.default_rng(1).gamma(0.3, size=64)}


@pytest.mark.parametrize("need", [3, 15, 16, 64], ids=["inversion-3", "inversion-15",
                                                      "walker-16", "walker-64"])
@pytest.mark.parametrize("name", list(QS))
def test_a_supply_draws_the_stale_masses(name, need):
    """Chi-square of 150k-200k draws against q / sum(q) (p > 1e-4) for both ways of drawing
    (inversion below L / 4 = 16 draws, Walker from 16); the mass and the bookkeeping."""
    q = QS[name]
    wt = word_tables.allocate_supplied(3, len(q))
    wt.q[1] = q
    wt.epoch[0] = 7
    draws = _supplies(wt, 1, seed_state(5), need, 200_000 // need)
    assert _check(q, draws) > 1e-4
    assert wt.mass[1] == pytest.approx(q.sum(), rel=1e-12)
    assert (wt.used[1], wt.supply[1], wt.built[1]) == (0, need, 7)
    assert not word_tables.stale(1, wt) and word_tables.stale(0, wt)   # 0 was never built


def test_a_wrong_supply_would_be_caught():
    """Teeth: inversion draws from q fail the test against q with one mass 10% larger."""
    q = QS["skewed"]
    wt = word_tables.allocate_supplied(1, len(q))
    wt.q[0] = q
    draws = _supplies(wt, 0, seed_state(5), 3, 200_000 // 3)
    wrong = q.copy()
    wrong[4] *= 1.1
    assert _check(wrong, draws) < 1e-6
