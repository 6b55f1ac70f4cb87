"""The hinge's marginal factor in the topic kernels (``kernels.supervised``; the loss itself,
its augmentation and its parameters are ``losses.hinge``).

With token i removed, the slack v_t = 1 - y_td (m_td^-di + N_d r_td) / N_d, and g_d(k) =
-2 lam sum_t max(0, v_t - y_td eta_kt / N_d). ``c`` holds the document's rows (c[0] the
coupling, c[3] = y / N).
"""

from __future__ import annotations

from numba import njit

from ..arrays import F64

MARGINAL = 1   # the kernels' code for this factor (kernels.supervised)


@njit(cache=True, nogil=True, inline="always")
def slack(eta_kt: F64, c: F64, s: int, v: F64) -> None:
    """v_t = 1 - y_td (c_t - eta_st) / N: the slack without token i (at topic ``s``)."""
    row = eta_kt[s]
    coupling_row = c[0]
    y_row = c[3]
    for t in range(v.shape[0]):
        v[t] = 1.0 - y_row[t] * (coupling_row[t] - row[t])


@njit(cache=True, nogil=True, inline="always")
def violation(eta_kt: F64, c: F64, v: F64, k: int) -> float:
    """sum_t max(0, v_t - y_td eta_kt / N): the document's hinge with token i at k, summed
    over tasks (y_td / N in c[3]; 2-d indexing, no views to reference-count per call).

    Four running sums over t mod 4, the rest added to the first, then (a0 + a1) + (a2 + a3),
    as ``linalg.dot``: independent sums the compiler can keep in one vector register, in an
    order of our own. (It was compiled with fastmath's reassociation and contraction, which
    let LLVM pick the order and fuse multiply-adds by the CPU it compiled for: the one kernel
    whose arithmetic depended on the machine.)"""
    T = v.shape[0]
    y = c[3]
    row = eta_kt[k]
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    t = 0
    while t + 4 <= T:
        a0 += max(0.0, v[t] - y[t] * row[t])
        a1 += max(0.0, v[t + 1] - y[t + 1] * row[t + 1])
        a2 += max(0.0, v[t + 2] - y[t + 2] * row[t + 2])
        a3 += max(0.0, v[t + 3] - y[t + 3] * row[t + 3])
        t += 4
    while t < T:
        a0 += max(0.0, v[t] - y[t] * row[t])
        t += 1
    return (a0 + a1) + (a2 + a3)
