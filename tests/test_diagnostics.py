"""R-hat and the effective sample sizes: the port here against ArviZ on the same draws, and
what the numbers must say on chains that do and do not mix."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup import diagnostics as dg


def _ar1(rng, chains, draws, rho, shift=None):
    x = np.zeros((chains, draws))
    x[:, 0] = rng.standard_normal(chains)
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + np.sqrt(1 - rho**2) * rng.standard_normal(chains)
    return x + (0 if shift is None else np.asarray(shift)[:, None])


CASES = {"iid": (0.0, None), "sticky": (0.9, None), "one chain apart": (0.5, [0, 0, 0, 3]),
         "heavy tails": ("cauchy", None), "odd length": (0.3, None)}


@pytest.mark.parametrize("case", list(CASES))
def test_the_port_equals_arviz(case):
    """Every diagnostic of the port equals ArviZ's to 1e-10 on the same draws (AR(1)
    chains, a chain off target, Cauchy draws, an odd number of draws)."""
    pytest.importorskip("arviz", reason="ArviZ is what the port is checked against")
    rng = np.random.default_rng(len(case))
    rho, shift = CASES[case]
    n = 101 if case == "odd length" else 200
    x = rng.standard_cauchy((4, n)) if rho == "cauchy" else _ar1(rng, 4, n, rho, shift)
    for f in (dg.rhat, dg.ess_bulk, dg.ess_tail):
        assert f(x, engine="topicsup") == pytest.approx(f(x, engine="arviz"), rel=1e-10), f


def test_rhat_separates_mixed_from_unmixed_chains_and_ess_counts_autocorrelation():
    """Independent draws: R-hat within 1.01 and the bulk ESS near the number of draws; one
    chain shifted by 3 sd: R-hat above 1.2; AR(1) with rho = 0.9: ESS near
    n (1 - rho) / (1 + rho) = n / 19."""
    rng = np.random.default_rng(0)
    iid = rng.standard_normal((4, 1000))
    assert dg.rhat(iid, engine="topicsup") < 1.01
    assert 3000 < dg.ess_bulk(iid, engine="topicsup") < 5000
    apart = _ar1(rng, 4, 500, 0.5, [0, 0, 0, 3])
    assert dg.rhat(apart, engine="topicsup") > 1.2
    sticky = _ar1(rng, 4, 4000, 0.9)
    assert 16000 / 19 * 0.7 < dg.ess_bulk(sticky, engine="topicsup") < 16000 / 19 * 1.3


def test_too_few_draws_give_nan_and_bad_input_is_named():
    x = np.zeros((3, 3))
    assert np.isnan(dg.rhat(x, engine="topicsup")) and np.isnan(dg.ess_bulk(x,
                                                                            engine="topicsup"))
    assert np.isnan(dg.rhat(np.ones((1, 50)), engine="topicsup"))   # one chain: no R-hat
    with pytest.raises(ValueError, match=r"shape \(chain, draw\)"):
        dg.rhat(np.zeros(10), engine="topicsup")
    with pytest.raises(ValueError, match="engine must be one of"):
        dg.rhat(np.zeros((2, 10)), engine="stan")


def test_rhat_of_many_quantities_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    x = np.stack([_ar1(rng, 4, 60, rho, [0, 0, 0, q]) for q, rho in
                  enumerate([0.0, 0.5, 0.9])], axis=2)
    many = dg.rhat_many(x)
    one = [dg.rhat(x[:, :, q], engine="topicsup") for q in range(3)]
    np.testing.assert_allclose(many, one, rtol=1e-12)
