"""Learned Dirichlet parameters: Minka's fixed point for the Dirichlet-multinomial (Polya)
likelihood of the current topic counts (Minka 2000, "Estimating a Dirichlet distribution",
sec. 3; Wallach, Mimno, McCallum 2009, "Rethinking LDA: why priors matter"), as tomotopy's
``optim_interval`` and MALLET's ``--optimize-interval`` run it between sweeps.

This is empirical Bayes: a point estimate of alpha (or beta) from the chain's current z,
updated between sweeps, not a draw from a posterior over it. Between two updates the chain
targets p(z | w, alpha_current, beta_current).

Groups of counts share one parameter each. For the documents' asymmetric alpha the groups are
the topics: the counts n_dk of topic k over the documents, the totals N_d, and the update is

    alpha_k <- alpha_k sum_d [psi(n_dk + alpha_k) - psi(alpha_k)]
                       / sum_d [psi(N_d + A) - psi(A)],          A = sum_k alpha_k.

For the topics' symmetric beta there is one group, the V K counts n_kw, with totals n_k:

    beta <- beta sum_{k,w} [psi(n_kw + beta) - psi(beta)] / (V sum_k [psi(n_k + V beta) -
            psi(V beta)]).

Both are ``fixed_point`` with ``width`` 1 (alpha) or V (beta): A = width * sum(values). Each
fixed-point step does not decrease the likelihood (Minka sec. 3), and its fixed points are
the likelihood's stationary points. The counts come in as their histograms (the distinct
positive counts of each group with how many times each occurs; zeros add nothing), so a step
costs the number of distinct counts, not D K.

Determinism: psi is computed here from +, -, *, / and ``fmath.log`` (the recurrence
psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series to x^-14), the sums run
in one fixed order, and nothing calls the C library or BLAS, so the learned values have the
same bits on every machine (docs/math.md sec. 14).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import F64, I64
from .fmath import log

# psi(x) ~ log x - 1/(2x) - sum_j B_2j / (2j x^2j), the Bernoulli numbers' terms to x^-14
_B2 = 1.0 / 12.0
_B4 = 1.0 / 120.0
_B6 = 1.0 / 252.0
_B8 = 1.0 / 240.0
_B10 = 1.0 / 132.0
_B12 = 691.0 / 32760.0
_B14 = 1.0 / 12.0
SERIES_FROM = 10.0        # the series' truncation error at x >= 10: below 1e-17
DIRECT_BELOW = 16         # psi(n + a) - psi(a) as sum_{j<n} 1 / (a + j) below this n


@njit(cache=True, nogil=True)
def digamma(x: float) -> float:
    """psi(x) = d/dx log Gamma(x) for x > 0, from +, -, *, / and ``fmath.log``."""
    out = 0.0
    while x < SERIES_FROM:
        out -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (_B2 - f * (_B4 - f * (_B6 - f * (_B8 - f * (_B10 - f * (_B12 - f * _B14))))))
    return out + log(x) - 0.5 / x - series


@njit(cache=True, nogil=True)
def digamma_step(n: int, a: float) -> float:
    """psi(n + a) - psi(a) for a count n >= 0 and a > 0: sum_{j<n} 1 / (a + j) for small n
    (no cancellation between two large psi), else the difference of the two."""
    if n < DIRECT_BELOW:
        out = 0.0
        for j in range(n):
            out += 1.0 / (a + j)
        return out
    return digamma(n + a) - digamma(a)


@njit(cache=True, nogil=True)
def fixed_point(group: I64, n: I64, count: I64, totals: I64, total_count: I64, width: float,
                values: F64, iterations: int, tol: float, low: float, high: float) -> int:
    """Minka's fixed point (module docstring) on ``values`` (G,) in place, at most
    ``iterations`` steps, stopping once no value changes by more than ``tol`` relatively.
    The counts: entry e says that ``count[e]`` members of group ``group[e]`` have the
    positive count ``n[e]``; ``totals`` with ``total_count`` the members' positive totals
    (N_d, or n_k). New values are kept in [low, high]. Returns the steps taken."""
    G = values.shape[0]
    num = np.zeros(G)
    for step in range(iterations):
        a_sum = 0.0
        for g in range(G):
            a_sum += values[g]
        A = width * a_sum
        den = 0.0
        for t in range(totals.shape[0]):
            den += total_count[t] * digamma_step(totals[t], A)
        if not den > 0.0:
            return step
        num[:] = 0.0
        for e in range(group.shape[0]):
            g = group[e]
            num[g] += count[e] * digamma_step(n[e], values[g])
        change = 0.0
        for g in range(G):
            new = values[g] * num[g] / (width * den)
            new = min(max(new, low), high)
            rel = abs(new - values[g]) / values[g]
            if rel > change:
                change = rel
            values[g] = new
        if change <= tol:
            return step + 1
    return iterations


# one update between sweeps: at most this many fixed-point steps (tomotopy takes 10), fewer
# once no value moves by more than STEP_TOL relatively; the chain's counts move on anyway
UPDATE_STEPS = 20
STEP_TOL = 1e-9
# the learned values are kept in this range (tomotopy's floor for alpha is 1e-5: a topic no
# document uses would otherwise drive its alpha_k to zero)
LEARNED_RANGE = (1e-5, 1e6)


def histogram(group: I64, n: I64) -> tuple[I64, I64, I64]:
    """The distinct (group, count) pairs of the positive ``n`` (with their ``group``), sorted,
    and how many times each occurs: ``fixed_point``'s input. Integer work only."""
    keep = n > 0
    g, v = group[keep].astype(np.int64), n[keep].astype(np.int64)
    if not v.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    base = int(v.max()) + 1
    keys, counts = np.unique(g * base + v, return_counts=True)
    return keys // base, keys % base, counts.astype(np.int64)


def learn_alpha(n_dk: np.ndarray, alpha: F64, steps: int = UPDATE_STEPS,
                tol: float = STEP_TOL) -> int:
    """The documents' asymmetric alpha (K,) in place by Minka's fixed point on the document-
    topic counts ``n_dk`` (D, K) (module docstring); returns the steps taken."""
    D, K = n_dk.shape
    topic = np.broadcast_to(np.arange(K, dtype=np.int64), (D, K)).reshape(-1)
    group, n, count = histogram(topic, n_dk.reshape(-1))
    _, totals, total_count = histogram(np.zeros(D, np.int64), n_dk.sum(axis=1, dtype=np.int64))
    return int(fixed_point(group, n, count, totals, total_count, 1.0, alpha, steps, tol,
                           *LEARNED_RANGE))


def learn_beta(n_wk: np.ndarray, n_k: np.ndarray, beta: F64, steps: int = UPDATE_STEPS,
               tol: float = STEP_TOL) -> int:
    """The topics' symmetric beta (a (1,) array) in place by Minka's fixed point on the
    topic-word counts ``n_wk`` (V, K) with their totals ``n_k`` (K,) (module docstring);
    returns the steps taken."""
    V = n_wk.shape[0]
    flat = n_wk.reshape(-1)
    group, n, count = histogram(np.zeros(flat.size, np.int64), flat)
    _, totals, total_count = histogram(np.zeros(n_k.size, np.int64), n_k)
    return int(fixed_point(group, n, count, totals, total_count, float(V), beta, steps, tol,
                           *LEARNED_RANGE))
