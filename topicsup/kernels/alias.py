"""Walker alias tables (Vose's construction): O(K) build, O(1) draw (Li et al. 2014 sec. 3.1).

A table over K outcomes is two arrays: ``prob`` (float64) and ``alias`` (int32). A draw picks a
bin uniformly and returns the bin with probability ``prob[bin]``, else ``alias[bin]``.
Outcomes with zero weight are never drawn; all-zero weights are the caller's error (the models
validate parameters so every proposal has positive mass).
"""

from __future__ import annotations

from numba import njit

from ..arrays import F64, I32, Rng
from .rng import randint, uniform


@njit(cache=True, nogil=True)
def build_alias(weights: F64, prob: F64, alias: I32, work: I32) -> float:
    """Fill ``prob``/``alias`` (length K) for unnormalised non-negative ``weights``.

    ``work`` is an int32 scratch array of length K. Returns the total weight.
    """
    K = weights.shape[0]
    total = 0.0
    for k in range(K):
        total += weights[k]
    # work holds the small stack from the left and the large stack from the right
    n_small = 0
    n_large = 0
    scale = K / total
    for k in range(K):
        prob[k] = weights[k] * scale
        alias[k] = k
        if prob[k] < 1.0:
            work[n_small] = k
            n_small += 1
        else:
            work[K - 1 - n_large] = k
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = work[n_small]
        g = work[K - n_large]
        alias[s] = g
        prob[g] = (prob[g] + prob[s]) - 1.0
        if prob[g] < 1.0:
            n_large -= 1
            work[n_small] = g
            n_small += 1
    # leftovers are 1 up to rounding
    for j in range(n_small):
        prob[work[j]] = 1.0
    for j in range(n_large):
        prob[work[K - 1 - j]] = 1.0
    return total


@njit(cache=True, nogil=True)
def draw_alias(prob: F64, alias: I32, rng: Rng) -> int:
    """One draw from a table built by ``build_alias``."""
    b = randint(rng, prob.shape[0])
    if uniform(rng) < prob[b]:
        return b
    return alias[b]


@njit(cache=True, nogil=True, inline="always")
def alias_from_uniform(prob: F64, alias: I32, v: float) -> int:
    """The draw of a table built by ``build_alias`` determined by one uniform ``v`` in [0, 1):
    its integer part picks the column and its fraction the coin (Walker's original one-number
    scheme), so a caller can draw ``v`` ahead of time."""
    K = prob.shape[0]
    x = v * K
    b = min(int(x), K - 1)
    if x - b < prob[b]:
        return b
    return alias[b]
