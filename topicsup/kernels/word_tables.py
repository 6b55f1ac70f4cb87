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

import numpy as np
from numba import njit

from .alias import build_alias, draw_alias


def allocate(V: int, K: int) -> dict[str, np.ndarray]:
    """The tables' arrays; ``wt_used == K`` marks a table to (re)build before its next use."""
    return {"wt_samples": np.zeros((V, K), np.int32), "wt_q": np.zeros((V, K), np.float64),
            "wt_mass": np.zeros(V, np.float64), "wt_used": np.full(V, K, np.int32)}


def scratch(K: int) -> dict[str, np.ndarray]:
    """Work arrays for one table build."""
    return {"al_prob": np.zeros(K, np.float64), "al_alias": np.zeros(K, np.int32),
            "al_work": np.zeros(K, np.int32)}


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
