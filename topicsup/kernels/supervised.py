"""The supervised term g_d(k) of the topic conditionals, for every loss (MATH.md sec. 1-2).

Given the augmentation, each (document d, task t) pair adds exp(b_td s_td - w_td s_td^2 / 2)
with s_td = eta_t . zbar_d + r_td (r_td the covariate part of the score). With token i of d at
topic k, zbar_d = (n_.d^-di + e_k) / N_d, and the factor in k is exp(g_d(k)):

    g_d(k) = A_d(k) - sum_t eta_kt v_t,
    A_d(k) = sum_t [ b_td eta_kt / N_d - w_td eta_kt^2 / (2 N_d^2) ],
    v_t    = w_td (m_td^-di + N_d r_td) / N_d^2,   m_td^-di = sum_j eta_jt n_jd^-di.

(Zheng et al. 2015 eq. 16-17 for one task; the sum over tasks is their sec. 4.1.) A_d is
fixed while a document is swept (O(K T) once per document); the coupling c_t = m_td + N_d r_td
is kept per document (row 0 of ``c``) and moved in O(T) when a token changes topic, so a ratio
g_d(t) - g_d(s) costs O(T): O(1) for a binary task, whatever K.

Arrays: ``eta_kt`` (K, T) topic weights, task-minor so a topic's weights are contiguous;
``b``, ``w``, ``r`` (T, D). No loss appears here: a loss only fills ``b`` and ``w``.
"""

from __future__ import annotations

import math

from numba import njit

from .alias import build_alias


@njit(cache=True, nogil=True, inline="always")
def load_doc(eta_kt, b, w, r, d, z, p0, p1, A, c):
    """Fill ``A`` (K) with A_d(k) and the document rows of ``c`` (3, T): c[0] the coupling
    m_td + N_d r_td, c[1] = w_td / N_d^2, c[2] = b_td / N_d. The (T, D) columns of ``b`` and
    ``w`` are strided; copied once here, the per-token loops read contiguous rows."""
    K, T = eta_kt.shape
    N = p1 - p0
    inv_n = 1.0 / N
    coupling_row = c[0]
    w_row = c[1]
    b_row = c[2]
    for t in range(T):
        coupling_row[t] = N * r[t, d]
        w_row[t] = w[t, d] * inv_n * inv_n
        b_row[t] = b[t, d] * inv_n
    for i in range(p0, p1):
        row = eta_kt[z[i]]
        for t in range(T):
            coupling_row[t] += row[t]
    for k in range(K):
        row = eta_kt[k]
        # four partial sums: the O(K T) per document is the sweep's main cost at large T
        a0 = a1 = a2 = a3 = 0.0
        t = 0
        while t + 4 <= T:
            e0, e1, e2, e3 = row[t], row[t + 1], row[t + 2], row[t + 3]
            a0 += e0 * (b_row[t] - 0.5 * w_row[t] * e0)
            a1 += e1 * (b_row[t + 1] - 0.5 * w_row[t + 1] * e1)
            a2 += e2 * (b_row[t + 2] - 0.5 * w_row[t + 2] * e2)
            a3 += e3 * (b_row[t + 3] - 0.5 * w_row[t + 3] * e3)
            t += 4
        while t < T:
            e0 = row[t]
            a0 += e0 * (b_row[t] - 0.5 * w_row[t] * e0)
            t += 1
        A[k] = (a0 + a1) + (a2 + a3)


@njit(cache=True, nogil=True, inline="always")
def token_coupling(eta_kt, c, s, v):
    """v_t = w_td (c_t - eta_st) / N^2: the coupling of g_d with token i (at ``s``) removed."""
    row = eta_kt[s]
    coupling_row = c[0]
    w_row = c[1]
    for t in range(v.shape[0]):
        v[t] = w_row[t] * (coupling_row[t] - row[t])


@njit(cache=True, nogil=True, inline="always")
def coupling(eta_kt, v, k):
    """sum_t eta_kt v_t (four partial sums, so the O(T) loop is not one long dependency)."""
    row = eta_kt[k]
    T = v.shape[0]
    a0 = a1 = a2 = a3 = 0.0
    t = 0
    while t + 4 <= T:
        a0 += row[t] * v[t]
        a1 += row[t + 1] * v[t + 1]
        a2 += row[t + 2] * v[t + 2]
        a3 += row[t + 3] * v[t + 3]
        t += 4
    while t < T:
        a0 += row[t] * v[t]
        t += 1
    return (a0 + a1) + (a2 + a3)


@njit(cache=True, nogil=True, inline="always")
def g_value(A, eta_kt, v, k):
    """g_d(k) = A_d(k) - sum_t eta_kt v_t with token i removed (Zheng 2015 eq. 16)."""
    return A[k] - coupling(eta_kt, v, k)


@njit(cache=True, nogil=True, inline="always")
def move(eta_kt, c, old, new):
    """Token moved from topic ``old`` to ``new``: c_t += eta_new,t - eta_old,t."""
    a = eta_kt[old]
    b = eta_kt[new]
    coupling_row = c[0]
    for t in range(coupling_row.shape[0]):
        coupling_row[t] += b[t] - a[t]


@njit(cache=True, nogil=True)
def build_exp_table(A, weights, prob, alias, work):
    """Walker table of the exp proposal q_e(k) ∝ exp(A_d(k)) for the current document.

    Zheng 2015 build q_e from exp(g~_d(k)) with a stale m_d; that m_d counts the token being
    resampled at its old topic, so the proposal would depend on the state it moves from and
    their ratio (eq. 21) would not be exact. A_d(k) is g_d(k) without the coupling: it depends
    on (eta, b, w) only, fixed during the sweep, so q_e is a true independence proposal and
    carries the label-driven part b eta_k / N_d.
    """
    K = A.shape[0]
    top = A[0]
    for k in range(1, K):
        top = max(top, A[k])
    for k in range(K):
        weights[k] = math.exp(A[k] - top)
    build_alias(weights, prob, alias, work)
