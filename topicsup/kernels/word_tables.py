"""Stale per-word proposals q_w(k) ∝ m_k (n_kw + beta) / (n_k + V beta), stored as samples.

``m`` is a per-topic multiplier: ones for LightLDA's word proposal, alpha for AliasLDA's dense
part (Li et al. 2014 eq. 10). The "stored samples" variant of Li et al. 2014 sec. 4.1: when
word w's supply is empty, build a Walker table from the current counts, draw K samples from it
into ``samples[w]``, keep the unnormalised stale values ``q[w]`` and their total ``mass[w]`` for
the Metropolis-Hastings ratio, and discard the table. Stored samples are independent draws
from the stale q_w, so serving them in order serves draws from q_w; a table is rebuilt after it
has served K draws, so the O(K) build costs O(1) per draw.

``Supplied`` is the variant of AliasPDP and AliasHDP, whose tables are over L outcomes (2K
(topic, table) pairs, K + 1 topics with a new one) and whose owners write q[w] themselves: a
table is rebuilt once its supply is used up or, refreshing per sweep, once it is from an
earlier sweep (``epoch``), with only the draws one sweep can use (``mh_steps`` per token of the
word). That is a handful for most words of a real vocabulary, where a Walker table would cost
O(L) to build for a few draws, so below L / 4 draws the supply is drawn by inversion (a prefix
sum, then a bisection per draw) and above from a Walker table: independent draws from
q[w] / mass[w] either way.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, Rng
from .alias import build_alias, draw_alias
from .gibbs import search_cumulative
from .rng import uniform


class Tables(NamedTuple):
    """Per-word stored samples ``samples`` (V, K) int32, stale values ``q`` (V, K) and their
    ``mass`` (V,), samples ``used`` (V,) (``== K``: rebuild before the next draw), the work
    arrays of one Walker build (``prob``, ``alias``, ``work``, length K) and ``ones`` (K,),
    the multiplier m of LightLDA's word proposal. A sampler that keeps no tables passes
    (1, 1)-shaped ones."""

    samples: I32
    q: F64
    mass: F64
    used: I32
    prob: F64
    alias: I32
    work: I32
    ones: F64


def allocate(V: int, K: int, work_K: int | None = None) -> Tables:
    """Tables for V words over K topics (all to be built before first use); ``work_K`` the
    length of the build's work arrays (K unless the tables are placeholders)."""
    n = K if work_K is None else work_K
    return Tables(np.zeros((V, K), np.int32), np.zeros((V, K), np.float64),
                  np.zeros(V, np.float64), np.full(V, K, np.int32), np.zeros(n, np.float64),
                  np.zeros(n, np.int32), np.zeros(n, np.int32), np.ones(n, np.float64))


@njit(cache=True, nogil=True)
def ensure(w: int, nwk: I32, n_k: I32, m: F64, beta: float, V_beta: float, samples: I32, q: F64,
           mass: F64, used: I32, prob: F64, alias: I32, work: I32, rng: Rng) -> None:
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
def next_sample(w: int, samples: I32, used: I32) -> int:
    """Serve word w's next stored draw (call ``ensure`` first)."""
    t = samples[w, used[w]]
    used[w] += 1
    return t


# ------------------------------------------------------------------ supplied (AliasPDP, AliasHDP)
class Supplied(NamedTuple):
    """Stored ``samples`` (V, L) of which the first ``supply`` (V,) were drawn at the last
    build, stale masses ``q`` (V, L) and their ``mass`` (V,), samples ``used`` (V,); the sweep
    ``epoch`` (1,) and each table's ``built`` (V,) epoch. Scratch ``prob``, ``alias``,
    ``work`` (L,) for a build."""

    samples: I32
    q: F64
    mass: F64
    used: I32
    supply: I32
    built: I64
    epoch: I64
    prob: F64
    alias: I32
    work: I32


SUPPLIED_SAVED = ("samples", "q", "mass", "used", "supply", "built", "epoch")


def allocate_supplied(V: int, L: int) -> Supplied:
    """Tables for V words over L outcomes, every one due for a build."""
    return Supplied(np.zeros((V, L), np.int32), np.zeros((V, L)), np.zeros(V),
                    np.full(V, L, np.int32), np.full(V, L, np.int32), np.zeros(V, np.int64),
                    np.zeros(1, np.int64), np.zeros(L), np.zeros(L, np.int32),
                    np.zeros(L, np.int32))


@njit(cache=True, nogil=True, inline="always")
def stale(w: int, wt: Supplied) -> bool:
    """Word w's table must be rebuilt before its next draw."""
    return wt.used[w] >= wt.supply[w] or wt.built[w] < wt.epoch[0]


@njit(cache=True, nogil=True)
def draw_supply(w: int, wt: Supplied, rng: Rng, need: int) -> None:
    """Finish word w's build once the caller has written ``q[w]``: its mass and a supply of
    ``need`` draws (at least 1, at most L)."""
    qw = wt.q[w]
    sw = wt.samples[w]
    L = qw.shape[0]
    n = min(max(need, 1), L, sw.shape[0])
    if 4 * n < L:   # inversion: prefix sums, then a bisection per draw
        cum = wt.prob
        total = 0.0
        for k in range(L):
            total += qw[k]
            cum[k] = total
        for j in range(n):
            sw[j] = search_cumulative(cum, L, uniform(rng) * total)
        wt.mass[w] = total
    else:
        wt.mass[w] = build_alias(qw, wt.prob, wt.alias, wt.work)
        for j in range(n):
            sw[j] = draw_alias(wt.prob, wt.alias, rng)
    wt.used[w] = 0
    wt.supply[w] = n
    wt.built[w] = wt.epoch[0]
