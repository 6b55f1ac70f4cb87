"""kernels.fmath: exp and log below 1 ulp against correctly rounded values, right at the edges
of their ranges, and the same bits as a reading of their own arithmetic."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from numba import njit

from topicsup.kernels import fmath


@njit(cache=True)
def _apply(which, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = fmath.exp(x[i]) if which == 0 else fmath.log(x[i])
    return out


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.view(np.int64) - b.view(np.int64))


def _exact(which: int, x: np.ndarray) -> np.ndarray:
    with localcontext() as ctx:
        ctx.prec = 40
        f = Decimal.exp if which == 0 else Decimal.ln
        return np.array([float(f(Decimal(v))) for v in x])


RS = np.random.default_rng(5)
EXP_ARGS = np.concatenate([RS.uniform(-745.0, 709.78, 6000), RS.normal(0.0, 2.0, 6000),
                           RS.uniform(-1e-8, 1e-8, 1000), RS.uniform(-745.13, -708.0, 1000)])
LOG_ARGS = np.concatenate([np.exp(RS.uniform(-700.0, 700.0, 6000)), RS.uniform(0.5, 2.0, 6000),
                           1.0 + RS.uniform(-1e-3, 1e-3, 2000), RS.uniform(0.0, 1e-310, 500),
                           np.nextafter(1.0, [0.0, 2.0])])


@pytest.mark.parametrize("which,x", [(0, EXP_ARGS), (1, LOG_ARGS)], ids=["exp", "log"])
def test_below_one_ulp_of_the_correctly_rounded_value(which, x):
    got = _apply(which, x)
    err = _ulps(got, _exact(which, x))
    assert err.max() <= 1, x[err.argmax()]
    assert (err == 0).mean() > 0.9             # most are the correctly rounded double
    # and within 1 ulp of the C library's (itself within 1 ulp) over a million arguments
    wide = (RS.uniform(-745.0, 709.78, 10**6) if which == 0
            else np.exp(RS.uniform(-744.0, 709.0, 10**6)))
    libm = np.array([(math.exp if which == 0 else math.log)(v) for v in wide[:200_000]])
    assert _ulps(_apply(which, wide[:200_000]), libm).max() <= 1


def test_edges_of_the_ranges():
    e = _apply(0, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 709.782712893384, 709.79,
                            -745.14, -745.1332191019411, 1e-300]))
    assert e[0] == 1.0 and e[1] == 1.0 and e[2] == np.inf and e[3] == 0.0 and np.isnan(e[4])
    assert np.isfinite(e[5]) and e[5] > 1.79e308 and e[6] == np.inf and e[7] == 0.0
    assert e[8] == 5e-324 and e[9] == 1.0
    lg = _apply(1, np.array([0.0, -0.0, -1.0, np.inf, np.nan, 1.0, 5e-324,
                             1.7976931348623157e308, 2.0]))
    assert lg[0] == -np.inf and lg[1] == -np.inf and np.isnan(lg[2]) and lg[3] == np.inf
    assert np.isnan(lg[4]) and lg[5] == 0.0
    assert lg[6] == math.log(5e-324) and lg[7] == math.log(1.7976931348623157e308)
    assert lg[8] == math.log(2.0)


def test_tables_are_the_correctly_rounded_values():
    """The tables come from decimal at import; a table entry off by a bit would move every
    chain: the heads are the doubles nearest the exact values, the tails what is left."""
    with localcontext() as ctx:
        ctx.prec = 40
        for j in range(64):
            exact = Decimal(2) ** (Decimal(j) / 64)
            assert fmath._EXP_HI[j] == float(exact)
            assert fmath._EXP_LO[j] == float(exact - Decimal(fmath._EXP_HI[j]))
        for c, hi in zip(fmath._LOG_C, fmath._LOG_HI):
            assert hi == float(Decimal(c).ln())
    assert (fmath._LOG_C == 1.0).sum() == 2
