"""Layout of the float64 info record every topic kernel fills during a sweep.

``info[TOKENS]`` tokens visited, ``info[CHANGED]`` tokens whose topic changed, then one
triple per proposal kind p of the sampler: proposals made, proposals accepted, and the sum of
acceptance probabilities (so the mean acceptance probability is sum / made). Kernels add to
the record; the Session resets it after each sweep.
"""

from __future__ import annotations

from typing import NamedTuple

from numba import njit

from ..arrays import F64

TOKENS = 0
CHANGED = 1
FIRST_KIND = 2
PER_KIND = 3


def size(n_kinds: int) -> int:
    return FIRST_KIND + PER_KIND * n_kinds


@njit(cache=True, nogil=True, inline="always")
def record_mh(info: F64, kind: int, accept_prob: float, accepted: bool) -> None:
    base = FIRST_KIND + PER_KIND * kind
    info[base] += 1.0
    info[base + 2] += accept_prob
    if accepted:
        info[base + 1] += 1.0


class KindInfo(NamedTuple):
    """One proposal kind's part of a sweep: proposals ``made``, ``accepted``, and the sum of
    their acceptance probabilities ``probability_sum``."""

    made: float
    accepted: float
    probability_sum: float


class SweepInfo(NamedTuple):
    """A sweep's info record decoded: ``tokens`` visited, ``changed`` topics, and per kind a
    ``KindInfo`` (in the sampler's order of kinds)."""

    tokens: float
    changed: float
    kinds: tuple[KindInfo, ...]


def decode(info: F64, n_kinds: int) -> SweepInfo:
    """The one place the layout is read back."""
    kinds = tuple(KindInfo(float(info[FIRST_KIND + PER_KIND * p]),
                           float(info[FIRST_KIND + PER_KIND * p + 1]),
                           float(info[FIRST_KIND + PER_KIND * p + 2])) for p in range(n_kinds))
    return SweepInfo(float(info[TOKENS]), float(info[CHANGED]), kinds)
