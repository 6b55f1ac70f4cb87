"""iMedLDA's importance estimate of E[z] given point estimates (Theta, Phi) (Jiang, Zhu, Sun,
Xing 2012 sec. 4.1, eq. 15-19).

Given (theta_d, Phi) the tokens are independent (eq. 15), each with the categorical target

    p(z_dn = k) ∝ theta_dk phi_{k w_dn} exp(tilt_dk),   tilt_dk = (1/N_d) sum_y lambda_d^y
                                                        (kappa_{y_d k} - kappa_{y k})   (eq. 16)

(the tilt is the frame's augmented factor with w = 0: A_d(k) of ``kernels.supervised``, one
row per document). Eq. 17 estimates E[z_dn] from J draws z^(j) of a proposal g with
self-normalised weights gamma_j = p(z^(j)) / g(z^(j)). With Jiang's uniform g every gamma_j is
p(z^(j)) times a constant, so only the J draws' histogram c_k matters:

    E[z_dn = k] ≈ c_k p_k / sum_l c_l p_l   (J > 0),      E[z_dn = k] = p_k / sum_l p_l  (exact)

The exact expectation, O(K) per token, is the J -> infinity limit the estimate converges to
(tests/kernels/test_importance.py). The J draws are "drawn once, outside the loop" (sec. 5):
here they are regenerated every iteration from the stream of (key, token), which gives the
same draws without storing J numbers per token.

Eq. 19 then sets theta_dk ∝ sum_n E[z_dnk] + alpha_k and phi_kt ∝ sum E[z_dnk] [w_dn = t] +
beta. The paper calls these MAP estimates; they add alpha and beta, not alpha - 1 and beta - 1,
so they are posterior means of Dirichlets given the expected counts (the MAP would need
alpha, beta >= 1 to stay positive, and Jiang's beta = 1e-5 would make it negative). Eq. 19
also prints a 1/J before the self-normalised sum; the weights already sum to one over j, so
that factor would count each token as 1/J of a word against alpha and beta, and is dropped.
"""

from __future__ import annotations


import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, U64, Rng
from . import fmath, supervised
from .counts import move_token
from .info import CHANGED as INFO_CHANGED
from .info import TOKENS as INFO_TOKENS
from .rng import derive_into, randint


@njit(cache=True, nogil=True, inline="always")
def token_weights(theta_d: F64, phi_w: F64, tilt: F64, p: F64) -> float:
    """p[k] = theta_dk phi_kw exp(tilt_k) (eq. 16, unnormalised; ``tilt`` already shifted by
    its maximum); returns sum_k theta_dk phi_kw, the token's likelihood p(w | theta_d, Phi)."""
    lik = 0.0
    for k in range(p.shape[0]):
        q = theta_d[k] * phi_w[k]
        lik += q
        p[k] = q * tilt[k]
    return lik


@njit(cache=True, nogil=True, inline="always")
def sample_histogram(key: Rng, token: int, J: int, K: int, stream: Rng, hist: F64) -> None:
    """hist[k] = how many of the token's J uniform proposal draws are k: its stream is keyed
    by (key, token), so every iteration sees the same draws."""
    for k in range(K):
        hist[k] = 0.0
    derive_into(key, np.uint64(token), stream)
    for _ in range(J):
        hist[randint(stream, K)] += 1.0


@njit(cache=True, nogil=True, inline="always")
def expectation(p: F64, hist: F64, J: int, out: F64) -> None:
    """E[z = k] into ``out``: the self-normalised importance estimate from the histogram of
    J uniform draws (eq. 17), or the exact p_k / sum p (J = 0). If every drawn topic has
    weight 0 in floating point (a tilt beyond exp's range), the exact expectation."""
    K = p.shape[0]
    top = 0.0
    if J > 0:
        for k in range(K):
            out[k] = hist[k] * p[k]
            top = max(top, out[k])
    if top <= 0.0:
        for k in range(K):
            out[k] = p[k]
            top = max(top, p[k])
    # scaled by the largest weight first: the weights of a strongly tilted document can be
    # tiny enough that their sum is subnormal and its reciprocal overflows
    total = 0.0
    for k in range(K):
        out[k] /= top
        total += out[k]
    for k in range(K):
        out[k] /= total


@njit(cache=True, nogil=True)
def importance_sweep(words: I32, doc_ptr: I64, z: I32, n_dk: I32, n_wk: I32, n_k: I32,
                     theta: F64, phi: F64, next_dk: F64, next_wk: F64, key: Rng, J: int,
                     term: supervised.Term, tilt: F64, p: F64, hist: F64, e: F64, stream: Rng,
                     d_start: int, d_end: int, info: F64) -> None:
    """One pass of eq. 17 over documents ``d_start .. d_end-1`` with the current (theta, Phi)
    (``phi`` word-major, (V, K)): add the tokens' expected topics to ``next_dk``/``next_wk``;
    set each token's
    ``z`` to the mode of its estimate (the counts follow), so the LDA views and the topic
    change rate read a hard assignment. ``term`` is the tilt (T = 0: none)."""
    K = theta.shape[1]
    T = term.eta_kt.shape[1]
    changed = 0
    for d in range(d_start, d_end):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        if p1 == p0:
            continue
        if T > 0:
            supervised.load_doc(term, d, z, p0, p1, False)   # A_d(k): the tilt (w = 0)
            top = term.A[0]
            for k in range(1, K):
                top = max(top, term.A[k])
            for k in range(K):
                tilt[k] = fmath.exp(term.A[k] - top)
        else:
            for k in range(K):
                tilt[k] = 1.0
        theta_d = theta[d]
        ndk = n_dk[d]
        for i in range(p0, p1):
            w = words[i]
            token_weights(theta_d, phi[w], tilt, p)
            if J > 0:
                sample_histogram(key, i, J, K, stream, hist)
            expectation(p, hist, J, e)
            best = 0
            row_d = next_dk[d]
            row_w = next_wk[w]
            for k in range(K):
                row_d[k] += e[k]
                row_w[k] += e[k]
                if e[k] > e[best]:
                    best = k
            old = z[i]
            if best != old:
                move_token(ndk, n_wk[w], n_k, old, -1)
                move_token(ndk, n_wk[w], n_k, best, 1)
                z[i] = best
                changed += 1
    info[INFO_TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[INFO_CHANGED] += changed


@njit(cache=True, nogil=True)
def log_likelihood(words: I32, doc_ptr: I64, theta: F64, phi: F64) -> float:
    """sum_dn log sum_k theta_dk phi_{k w_dn}: log p(W | Theta, Phi), the negative of the
    LDA part of Jiang's objective for the point estimates."""
    out = 0.0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            lik = 0.0
            for k in range(theta.shape[1]):
                lik += theta[d, k] * phi[w, k]
            out += fmath.log(lik)
    return out


@njit(cache=True, nogil=True)
def normalise_rows(counts: F64, prior: F64, out: F64) -> None:
    """out[r, k] = (counts[r, k] + prior[k]) / sum_k (counts[r, k] + prior[k]) (eq. 19)."""
    for r in range(counts.shape[0]):
        total = 0.0
        for k in range(counts.shape[1]):
            total += counts[r, k] + prior[k]
        inv = 1.0 / total
        for k in range(counts.shape[1]):
            out[r, k] = (counts[r, k] + prior[k]) * inv


@njit(cache=True, nogil=True)
def normalise_columns(counts: F64, beta: float, out: F64) -> None:
    """out[w, k] = (counts[w, k] + beta) / sum_w (counts[w, k] + beta): Phi word-major (eq. 19)."""
    V, K = counts.shape
    totals = np.zeros(K)
    for w in range(V):
        for k in range(K):
            totals[k] += counts[w, k] + beta
    for k in range(K):
        totals[k] = 1.0 / totals[k]
    for w in range(V):
        for k in range(K):
            out[w, k] = (counts[w, k] + beta) * totals[k]


@njit(cache=True, nogil=True)
def fold_in(words: I32, doc_ptr: I64, phi: F64, alpha: F64, J: int, n_iter: int, key: Rng,
            labels: U64, zbar: F64) -> None:
    """Held-out documents (sec. 4.3): per document, theta from uniform, then ``n_iter``
    rounds of eq. 17 without the tilt (the labels are unknown) and theta ∝ sum_n E[z_n] +
    alpha; ``zbar`` (D, K) gets the last round's mean E[z_n]. Each document's draws come from
    the stream of (key, its content label), so its proportions do not depend on the others."""
    K = phi.shape[1]
    theta = np.empty(K)
    ones = np.ones(K)
    p = np.empty(K)
    hist = np.zeros(K)
    e = np.empty(K)
    acc = np.empty(K)
    stream = np.empty(4, np.uint64)
    doc_key = np.empty(4, np.uint64)
    for d in range(doc_ptr.shape[0] - 1):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        if p1 == p0:
            continue
        derive_into(key, labels[d], doc_key)
        for k in range(K):
            theta[k] = 1.0 / K
        for _ in range(n_iter):
            for k in range(K):
                acc[k] = 0.0
            for i in range(p0, p1):
                token_weights(theta, phi[words[i]], ones, p)
                if J > 0:
                    sample_histogram(doc_key, i - p0, J, K, stream, hist)
                expectation(p, hist, J, e)
                for k in range(K):
                    acc[k] += e[k]
            total = 0.0
            for k in range(K):
                total += acc[k] + alpha[k]
            for k in range(K):
                theta[k] = (acc[k] + alpha[k]) / total
        inv_n = 1.0 / (p1 - p0)
        for k in range(K):
            zbar[d, k] = acc[k] * inv_n
