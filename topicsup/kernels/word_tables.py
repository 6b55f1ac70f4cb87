"""Stale per-word proposals q_w(k) ∝ m_k (n_kw + beta) / (n_k + V beta), stored as samples.

``m`` is a per-topic multiplier: ones for LightLDA's word proposal, alpha for AliasLDA's dense
part (Li et al. 2014 eq. 10). The "stored samples" variant of Li et al. 2014 sec. 4.1: when
word w's supply is empty, build a Walker table from the current counts, draw K samples from it
into ``samples[w]``, keep the unnormalised stale values ``q[w]`` and their total ``mass[w]`` for
the Metropolis-Hastings ratio, and discard the table. Stored samples are independent draws
from the stale q_w, so serving them in order serves draws from q_w; a table is rebuilt after it
has served K draws, so the O(K) build costs O(1) per draw.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .alias import build_alias, draw_alias


class Tables(NamedTuple):
    """Per-word stored samples ``samples`` (V, K) int32, stale values ``q`` (V, K) and their
    ``mass`` (V,), samples ``used`` (V,) (``== K``: rebuild before the next draw), the work
    arrays of one Walker build (``prob``, ``alias``, ``work``, length K) and ``ones`` (K,),
    the multiplier m of LightLDA's word proposal. A sampler that keeps no tables passes
    (1, 1)-shaped ones."""

    samples: np.ndarray
    q: np.ndarray
    mass: np.ndarray
    used: np.ndarray
    prob: np.ndarray
    alias: np.ndarray
    work: np.ndarray
    ones: np.ndarray


def allocate(V: int, K: int, work_K: int | None = None) -> Tables:
    """Tables for V words over K topics (all to be built before first use); ``work_K`` the
    length of the build's work arrays (K unless the tables are placeholders)."""
    n = K if work_K is None else work_K
    return Tables(np.zeros((V, K), np.int32), np.zeros((V, K), np.float64),
                  np.zeros(V, np.float64), np.full(V, K, np.int32), np.zeros(n, np.float64),
                  np.zeros(n, np.int32), np.zeros(n, np.int32), np.ones(n, np.float64))


@njit(cache=True, nogil=True)
def ensure(w, nwk, n_k, m, beta, V_beta, samples, q, mass, used, prob, alias, work, rng):
    """Rebuild word w's table from its current counts ``nwk`` (length K) if its supply is
    used up."""
    K = n_k.shape[0]
    if used[w] < K:
        return
    qw = q[w]
    for k in range(K):
        qw[k] = m[k] * (nwk[k] + beta) / (n_k[k] + V_beta)
    mass[w] = build_alias(qw, prob, alias, work)
    sw = samples[w]
    for j in range(K):
        sw[j] = draw_alias(prob, alias, rng)
    used[w] = 0


@njit(cache=True, nogil=True, inline="always")
def next_sample(w, samples, used):
    """Serve word w's next stored draw (call ``ensure`` first)."""
    t = samples[w, used[w]]
    used[w] += 1
    return t
