"""The supervised term g_d(k) of the topic conditionals, for every loss (docs/math.md sec. 1-2).

With token i of document d at topic k, zbar_d = (n_.d^-di + e_k) / N_d and each task's score
is s_td(k) = (m_td^-di + eta_kt) / N_d + r_td, with m_td^-di = sum_j eta_jt n_jd^-di and r_td
the covariate part. The topic conditional carries exp(g_d(k)), in one of two forms (``factor``):

* ``AUGMENTED``: the loss's Gaussian factor given its augmentation, exp(b s - w s^2 / 2) per
  (document, task) (Zheng et al. 2015 eq. 16-17 for one task; the sum over tasks is their
  sec. 4.1)::

      g_d(k) = A_d(k) - sum_t eta_kt v_t,
      A_d(k) = sum_t [ b_td eta_kt / N_d - w_td eta_kt^2 / (2 N_d^2) ],
      v_t    = w_td (m_td^-di + N_d r_td) / N_d^2.

* ``HINGE``: the hinge's pseudo-likelihood itself, the augmentation integrated out::

      g_d(k) = -2 lam sum_t max(0, 1 - y_td s_td(k)) = -2 lam sum_t max(0, v_t - y_td eta_kt / N_d),
      v_t    = 1 - y_td (m_td^-di + N_d r_td) / N_d      (the slack without token i).

  The augmentation xi is then drawn after the topics, given them, and before the weights
  (``models.SupervisedLDA.end_sweep``): (Z, xi) | eta is one block, so the chain targets the
  same posterior. Why: given xi the factor is a Gaussian in s with precision w = lam^2 xi,
  and xi is huge for a document near its margin (xi ~ IG(1/(lam |1 - y s|), 1)), which pins
  the score and couples every token of the document to every other; on 20 Newsgroups one
  token's move shifts g_d over the topics by a median 10 nats. Without it the factor is
  piecewise linear in s, and Gibbs and light samplers both learn the classifier in about
  half the sweeps (benchmarks/README.md).

The per-document rows ``c`` (4, T) are filled once per document: c[0] the coupling
m_td + N_d r_td, kept current in O(T) when a token moves; c[1] = w_td / N_d^2 (augmented; 0
otherwise); c[2] = b_td / N_d (augmented) or the loss's slope at s = 0 over N_d (2 lam y_td / N_d
for the hinge); c[3] = y_td / N_d. A ratio g_d(t) - g_d(s) then costs O(T), O(1) for one task
whatever K.

When every document has the same w_t per task (DOLDA's probit, w = c; the Gaussian
response), the coupling sum_t eta_kt v_t is q_k - G[s, k] / N_d^2 with the K x K matrix
G[k, j] = sum_t w_t eta_kt eta_jt, built once per sweep (``label_matrix``; DOLDA appendix B)
and q_k = sum_t eta_kt w_t c_t / N_d^2 kept per document (``matrix_load``): g_d over all k then
costs O(K) instead of O(K T), a move O(K) (``matrix_move``; docs/math.md sec. 2). Both the
collapsed Gibbs and the partially collapsed kernels take this path (``shared_w`` says when). A_d(k) = sum_t eta_kt (c[2]_t - c[1]_t eta_kt / 2) is the part of g_d free of the
assignments (augmented; O(K T) per document) or, for the marginal hinge, its linearisation at
a zero score, needed only for the exp proposal.

Arrays: ``eta_kt`` (K, T) topic weights, task-minor so a topic's weights are contiguous;
``b``, ``w``, ``y``, ``r`` (T, D); ``loss_params`` the factor's parameters (HINGE: [2 lam]).
No loss class appears here: a loss fills ``b`` and ``w``, and names its marginal factor.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..arrays import F64, I32
from . import fmath, hinge, linalg
from .alias import build_alias

# The factor's code. A loss's marginal factor has its numba code beside this module
# (``kernels.hinge``), named by the loss (``Loss.marginal_factor``); it is chosen here by
# code, not passed in as a function, because numba does not reuse its on-disk cache for a
# kernel that takes a jitted function as an argument (it recompiles in every process).
AUGMENTED = 0             # exp(b s - w s^2 / 2) given the augmentation
HINGE = hinge.MARGINAL    # exp(-2 lam max(0, 1 - y s)), the augmentation integrated out


class Term(NamedTuple):
    """Everything the topic kernels read for the supervised factor exp(g_d(k)).

    ``factor`` (``AUGMENTED`` or a loss's marginal code) and its ``loss_params``; the weights
    ``eta_kt`` (K, T); ``b``, ``w``, ``y``, ``r`` (T, D); per-document scratch ``A`` (K),
    ``c`` (4, T), ``v`` (T); the exp proposal's table ``exp_prob``, ``exp_alias`` (K).
    T = 0 tasks: the factor vanishes (LDA, and a supervised chain's LDA initialisation).
    """

    factor: int
    loss_params: F64
    eta_kt: F64
    b: F64
    w: F64
    y: F64
    r: F64
    A: F64
    c: F64
    v: F64
    exp_prob: F64
    exp_alias: I32


def no_term(K: int, D: int) -> Term:
    """The term of zero tasks: the kernels then sample plain LDA."""
    empty = np.zeros((0, D))
    return Term(AUGMENTED, np.zeros(0), np.zeros((K, 0)), empty, empty, empty, empty,
                np.zeros(K), np.zeros((4, 0)), np.zeros(0), np.zeros(K),
                np.zeros(K, np.int32))


@njit(cache=True, nogil=True, inline="always")
def load_doc(term: Term, d: int, z: I32, p0: int, p1: int, need_A: bool) -> None:
    """Fill the document rows of ``term.c`` (4, T) (module docstring) and, for the augmented
    factor or when ``need_A`` (the exp proposal), ``term.A`` (K) with A_d(k). The (T, D)
    columns are strided; copied once here, the per-token loops read contiguous rows."""
    factor, loss_params, eta_kt = term.factor, term.loss_params, term.eta_kt
    b, w, y, r, A, c = term.b, term.w, term.y, term.r, term.A, term.c
    K, T = eta_kt.shape
    N = p1 - p0
    inv_n = 1.0 / N
    coupling_row = c[0]
    w_row = c[1]
    b_row = c[2]
    y_row = c[3]
    for t in range(T):
        coupling_row[t] = N * r[t, d]
        y_row[t] = y[t, d] * inv_n
        if factor == AUGMENTED:
            w_row[t] = w[t, d] * inv_n * inv_n
            b_row[t] = b[t, d] * inv_n
        else:
            w_row[t] = 0.0
            b_row[t] = loss_params[0] * y_row[t]  # the hinge's slope 2 lam y at s = 0
    for i in range(p0, p1):
        row = eta_kt[z[i]]
        for t in range(T):
            coupling_row[t] += row[t]
    if factor != AUGMENTED and not need_A:
        return
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
def token_coupling(factor: int, eta_kt: F64, c: F64, s: int, v: F64) -> None:
    """Token i (at ``s``) removed from the coupling: v_t = w_td (c_t - eta_st) / N^2
    (augmented) or the marginal factor's own (the hinge's slack, ``kernels.hinge.slack``)."""
    if factor == AUGMENTED:
        row = eta_kt[s]
        coupling_row = c[0]
        w_row = c[1]
        for t in range(v.shape[0]):
            v[t] = w_row[t] * (coupling_row[t] - row[t])
    else:
        hinge.slack(eta_kt, c, s, v)


@njit(cache=True, nogil=True, inline="always")
def coupling(eta_kt: F64, v: F64, k: int) -> float:
    """sum_t eta_kt v_t (``linalg.dot``: four partial sums, so the O(T) loop is not one long
    dependency)."""
    return linalg.dot(eta_kt[k], v, v.shape[0])


@njit(cache=True, nogil=True, inline="always")
def g_value(factor: int, loss_params: F64, A: F64, eta_kt: F64, c: F64, v: F64,
            k: int) -> float:
    """g_d(k) with token i removed (``token_coupling`` filled ``v``): A_d(k) - sum_t eta_kt
    v_t (augmented, Zheng 2015 eq. 16) or -2 lam sum_t max(0, v_t - y_td eta_kt / N) (hinge)."""
    if factor == AUGMENTED:
        return A[k] - coupling(eta_kt, v, k)
    return -loss_params[0] * hinge.violation(eta_kt, c, v, k)


@njit(cache=True, nogil=True, inline="always")
def g_all(factor: int, loss_params: F64, A: F64, eta_kt: F64, c: F64, v: F64,
          out: F64) -> float:
    """out[k] = g_d(k) for every k (``g_value``), the factor's branch outside the O(K T)
    loop; returns max_k g_d(k)."""
    top = -math.inf
    if factor == AUGMENTED:
        uncoupled = True   # w = 0 in every task (Monte Carlo MedLDA's tilt): g_d(k) = A_d(k)
        for t in range(v.shape[0]):
            if v[t] != 0.0:
                uncoupled = False
                break
        if uncoupled:   # the same numbers as below (A - 0), in O(K) instead of O(K T)
            for k in range(out.shape[0]):
                out[k] = A[k]
                top = max(top, out[k])
            return top
        for k in range(out.shape[0]):
            out[k] = A[k] - coupling(eta_kt, v, k)
            top = max(top, out[k])
    else:
        scale = -loss_params[0]
        for k in range(out.shape[0]):
            out[k] = scale * hinge.violation(eta_kt, c, v, k)
            top = max(top, out[k])
    return top


@njit(cache=True, nogil=True, inline="always")
def move(eta_kt: F64, c: F64, old: int, new: int) -> None:
    """Token moved from topic ``old`` to ``new``: c_t += eta_new,t - eta_old,t."""
    a = eta_kt[old]
    b = eta_kt[new]
    coupling_row = c[0]
    for t in range(coupling_row.shape[0]):
        coupling_row[t] += b[t] - a[t]


def shared_w(term: Term) -> bool:
    """Whether the label term can go through the K x K matrix: the augmented factor, two
    tasks or more (for one the O(T) sum is as cheap), and one w per task shared by every
    document (DOLDA appendix B)."""
    w = term.w
    return (term.factor == AUGMENTED and w.shape[0] >= 2 and w.shape[1] > 0
            and bool((w == w[:, :1]).all()))


@njit(cache=True, nogil=True, parallel=True)
def label_matrix(eta_kt: F64, w_t: F64, G: F64) -> None:
    """G[k, j] = sum_t w_t eta_kt eta_jt (K x K), rows in parallel, each sum in task order
    (the same bits on any number of threads)."""
    K, T = eta_kt.shape
    for k in prange(K):
        a = eta_kt[k]
        for j in range(K):
            b = eta_kt[j]
            acc = 0.0
            for t in range(T):
                acc += w_t[t] * a[t] * b[t]
            G[k, j] = acc


@njit(cache=True, nogil=True, inline="always")
def matrix_load(eta_kt: F64, c: F64, qq: F64) -> None:
    """q_k = sum_t eta_kt w_t c_t / N^2 for the document ``load_doc`` filled ``c`` with
    (c[0] the coupling m_td + N r_td, c[1] = w_t / N^2)."""
    c0, c1 = c[0], c[1]
    for k in range(qq.shape[0]):
        e = eta_kt[k]
        acc = 0.0
        for t in range(c0.shape[0]):
            acc += e[t] * c1[t] * c0[t]
        qq[k] = acc


@njit(cache=True, nogil=True, inline="always")
def matrix_g(A: F64, qq: F64, Gs: F64, inv_n2: float, k: int) -> float:
    """g_d(k) = A_d(k) - q_k + G[s, k] / N^2, token i (at s, ``Gs`` = G[s]) out of the
    coupling."""
    return A[k] - qq[k] + Gs[k] * inv_n2


@njit(cache=True, nogil=True, inline="always")
def matrix_g_all(A: F64, qq: F64, Gs: F64, inv_n2: float, out: F64) -> float:
    """out[k] = g_d(k) for every k (``matrix_g``), in O(K); returns max_k g_d(k)."""
    top = -math.inf
    for k in range(out.shape[0]):
        out[k] = A[k] - qq[k] + Gs[k] * inv_n2
        top = max(top, out[k])
    return top


@njit(cache=True, nogil=True, inline="always")
def matrix_move(G: F64, qq: F64, old: int, new: int, inv_n2: float) -> None:
    """Token moved from topic ``old`` to ``new``: q_k += (G[new, k] - G[old, k]) / N^2."""
    Gn, Go = G[new], G[old]
    for k in range(qq.shape[0]):
        qq[k] += (Gn[k] - Go[k]) * inv_n2


@njit(cache=True, nogil=True)
def build_exp_table(A: F64, weights: F64, prob: F64, alias: I32, work: I32) -> None:
    """Walker table of the exp proposal q_e(k) ∝ exp(A_d(k)) for the current document.

    Zheng 2015 build q_e from exp(g~_d(k)) with a stale m_d; that m_d counts the token being
    resampled at its old topic, so the proposal would depend on the state it moves from and
    their ratio (eq. 21) would not be exact. A_d(k) depends on (eta, b, w, y) only, fixed
    during the sweep, so q_e is a true independence proposal: the label-driven part
    b eta_k / N_d of g_d (augmented), or the hinge's slope at a zero score (marginal).
    """
    K = A.shape[0]
    top = A[0]
    for k in range(1, K):
        top = max(top, A[k])
    for k in range(K):
        weights[k] = fmath.exp(A[k] - top)
    build_alias(weights, prob, alias, work)
