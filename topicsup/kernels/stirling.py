"""Generalized Stirling numbers S^N_{M,a} in log space, grown lazily, and the two ratios the
table-indicator samplers read (docs/math.md sec. 10; Buntine & Hutter 2012).

    S^{N+1}_{M,a} = S^N_{M-1,a} + (N - M a) S^N_{M,a},   S^0_{0,a} = 1,
    S^N_{M,a} = 0 for M > N and for M = 0 < N.

At a = 0 they are the unsigned Stirling numbers of the first kind. They overflow float64 from
N ~ 170, so the table keeps log S (-inf where S = 0). A restaurant with n customers and m
tables (m <= n) receives a customer:

    join[n, m] = S^{n+1}_{m,a} / S^n_{m,a} * (n + 1 - m) / (n + 1)   (sits at a table, r = 0)
    open[n, m] = S^{n+1}_{m+1,a} / S^n_{m,a} * (m + 1) / (n + 1)     (opens a table, r = 1)

the Stirling ratio of the count joint times the table-indicator factor m! (n - m)! / n!.

A ``Stirling`` record covers n < join.shape[0], m < join.shape[1]. A kernel that meets a larger
(n, m) calls ``cover``, which returns a grown record (doubling the side that is short, so the
total work of growing is a constant times the final size): the table is exact for whatever
sizes the corpus reaches, and the numbers do not depend on when it grew, so chains stay
bit-for-bit the same across checkpoints.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import F64
from . import fmath

INITIAL_ROWS = 64
INITIAL_COLS = 16


class Stirling(NamedTuple):
    """``log_s`` (R + 1, C + 1): log S^n_{m,a}; ``join``, ``open`` (R, C): the ratios above;
    ``a``: the discount (a 0-d float64 array, so numba sees one record type)."""

    log_s: F64
    join: F64
    open: F64
    a: F64


@njit(cache=True, nogil=True)
def build(a: float, rows: int, cols: int) -> Stirling:
    """A record covering n < rows, m < cols."""
    log_s = np.full((rows + 1, cols + 1), -np.inf)
    log_s[0, 0] = 0.0
    for n in range(rows):
        for m in range(1, min(n + 1, cols) + 1):
            # S^{n+1}_m = S^n_{m-1} + (n - m a) S^n_m, in log space
            x = log_s[n, m - 1]
            c = n - m * a
            y = log_s[n, m] + fmath.log(c) if c > 0.0 and log_s[n, m] > -np.inf else -np.inf
            hi = max(x, y)
            if hi == -np.inf:
                log_s[n + 1, m] = -np.inf
            else:
                log_s[n + 1, m] = hi + fmath.log(fmath.exp(x - hi) + fmath.exp(y - hi))
    join = np.zeros((rows, cols))
    open_ = np.zeros((rows, cols))
    for n in range(rows):
        for m in range(min(n + 1, cols)):
            if log_s[n, m] == -np.inf:
                continue   # no state with n customers at m tables
            if m >= 1:
                join[n, m] = fmath.exp(log_s[n + 1, m] - log_s[n, m]) * (n + 1 - m) / (n + 1)
            open_[n, m] = fmath.exp(log_s[n + 1, m + 1] - log_s[n, m]) * (m + 1) / (n + 1)
    return Stirling(log_s, join, open_, np.full((), a))


def table(a: float, rows: int = INITIAL_ROWS, cols: int = INITIAL_COLS) -> Stirling:
    """A fresh record for discount ``a`` in [0, 1)."""
    return build(float(a), int(rows), int(cols))


@njit(cache=True, nogil=True)
def cover(st: Stirling, n: int, m: int) -> Stirling:
    """``st`` if it covers (n, m), else a grown record that does."""
    rows, cols = st.join.shape
    if n < rows and m < cols:
        return st
    while rows <= n:
        rows *= 2
    while cols <= m:
        cols *= 2
    return build(st.a[()], rows, cols)  # type: ignore[arg-type]  # stub: 0-d a[()] is a scalar


@njit(cache=True, nogil=True)
def log_stirling(st: Stirling, n: int, m: int) -> float:
    """log S^n_{m,a} (the record must cover n <= R, m <= C)."""
    return st.log_s[n, m]


# The numbers are a function of a alone, so one record per discount serves every chain of the
# process; a kernel that grew it hands the grown record back (``keep``).
_SHARED: dict[float, Stirling] = {}


def shared(a: float) -> Stirling:
    """The process's record for discount ``a`` (a fresh one the first time)."""
    st = _SHARED.get(float(a))
    if st is None:
        st = _SHARED[float(a)] = table(a)
    return st


def keep(st: Stirling) -> None:
    """Keep ``st`` as the shared record of its discount if it covers more."""
    a = float(st.a)
    old = _SHARED.get(a)
    if old is None or st.join.size > old.join.size:
        _SHARED[a] = st
