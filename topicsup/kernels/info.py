"""Layout of the float64 info record every topic kernel fills during a sweep.

``info[TOKENS]`` tokens visited, ``info[CHANGED]`` tokens whose topic changed, then one
triple per proposal kind p of the sampler: proposals made, proposals accepted, and the sum of
acceptance probabilities (so the mean acceptance probability is sum / made). Kernels add to
the record; the Session resets it after each sweep.
"""

from __future__ import annotations

from numba import njit

TOKENS = 0
CHANGED = 1
FIRST_KIND = 2
PER_KIND = 3


def size(n_kinds: int) -> int:
    return FIRST_KIND + PER_KIND * n_kinds


@njit(cache=True, nogil=True, inline="always")
def record_mh(info, kind, accept_prob, accepted):
    base = FIRST_KIND + PER_KIND * kind
    info[base] += 1.0
    info[base + 2] += accept_prob
    if accepted:
        info[base + 1] += 1.0
