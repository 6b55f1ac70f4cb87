"""HDP-LDA with document table indicators: exact Gibbs and AliasHDP (Li et al. 2014 sec. 2.3
and 4.3; eq. 9 corrected and derived in docs/math.md sec. 12).

theta_0 ~ DP(b0, H) (H continuous: every root table serves a new topic), theta_d ~ DP(b1,
theta_0), z ~ theta_d, phi_t ~ Dir(beta), w ~ phi_z. Document d is a restaurant: its n_dt
tokens of topic t sit at t_dt tables; token i carries r_i = 1 if it heads one. The root sees
T_t = sum_d t_dt customers of topic t, T in all, K live topics. Collapsed,

    p(W, Z, R) = prod_d b1^{t_d.} / (b1)_{N_d} prod_t S^{n_dt}_{t_dt,0} t_dt! (n_dt - t_dt)! / n_dt!
                 * b0^K prod_t (T_t - 1)! / (b0)_T  *  prod_t DirMult(m_t. | beta)

and a token (d, w), counts without it, goes to (the common 1 / (b1 + N_d) dropped):

    live t, r = 0: (m_tw + beta) / (m_t + V beta) * join[n_dt, t_dt]
    live t, r = 1: (m_tw + beta) / (m_t + V beta) * b1 open[n_dt, t_dt] T_t / (b0 + T)
    new topic:     (1 / V) * b1 b0 / (b0 + T)          (only while K < K_max)

(``kernels.stirling`` at a = 0). The truncation K_max restricts the target to states with at
most K_max live topics; the Gibbs step of the restricted target is the conditional above
without the new topic when K = K_max, so it is exact for it. A token heading the only table of
its topic in its document while others sit there is kept (``blocked``). Topics live in slots
0..K_max-1; the live ones are kept in ascending order (``live``), so the order the kernel
visits them in derives from the counts alone and a resumed chain is the same chain; a new
topic takes the lowest free slot.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from ..arrays import F64, I32, I64, Rng
from . import fmath
from .aliaslda import insert_ascending, remove_ascending, topics_ascending
from .counts import Counts, Tokens
from .gibbs import search_cumulative
from .info import CHANGED, TOKENS, record_mh
from .prefetch import prefetch
from .rng import uniform
from .stirling import Stirling, cover
from .word_tables import Supplied, draw_supply, stale

KINDS = ("alias",)


class HDPPrior(NamedTuple):
    """``b0`` root and ``b1`` document concentrations, the topics' symmetric ``beta``."""

    b0: float
    b1: float
    beta: float


class DocTables(NamedTuple):
    """``r`` (N,) int8 table indicators, ``t_dk`` (D, K_max) tables per document and topic,
    ``t_k`` (K_max,) the root's customers per topic, ``t_total`` (1,), ``live`` (K_max,) the
    live topics ascending, ``n_live`` (1,)."""

    r: npt.NDArray[np.int8]
    t_dk: I32
    t_k: I32
    t_total: I64
    live: I32
    n_live: I64


def allocate_tables(n_tokens: int, D: int, K: int) -> DocTables:
    return DocTables(np.zeros(n_tokens, np.int8), np.zeros((D, K), np.int32),
                     np.zeros(K, np.int32), np.zeros(1, np.int64), np.zeros(K, np.int32),
                     np.zeros(1, np.int64))


@njit(cache=True, nogil=True)
def first_heads(doc_ptr: I64, z: I32, r: npt.NDArray[np.int8], K: int) -> None:
    """A start: the first token of each (document, topic) heads its only table."""
    seen = np.zeros(K, np.bool_)
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            r[i] = 0 if seen[z[i]] else 1
            seen[z[i]] = True
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            seen[z[i]] = False


@njit(cache=True, nogil=True)
def rebuild_tables(doc_ptr: I64, z: I32, r: npt.NDArray[np.int8], t_dk: I32, t_k: I32,
                   t_total: I64, live: I32, n_live: I64) -> None:
    """Table counts and the live list from (z, r)."""
    t_dk[:] = 0
    t_k[:] = 0
    total = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if r[i]:
                t_dk[d, z[i]] += 1
                t_k[z[i]] += 1
                total += 1
    t_total[0] = total
    n = 0
    live[:] = 0
    for k in range(t_k.shape[0]):
        if t_k[k] > 0:
            live[n] = k
            n += 1
    n_live[0] = n


@njit(cache=True, nogil=True, inline="always")
def _blocked(rr: int, t: int, n: int) -> bool:
    return rr == 1 and t == 1 and n > 1


@njit(cache=True, nogil=True)
def _kill(k: int, live: I32, n_live: I64) -> None:
    n = n_live[0]
    j = 0
    while live[j] != k:
        j += 1
    for i in range(j, n - 1):
        live[i] = live[i + 1]
    live[n - 1] = 0
    n_live[0] = n - 1


@njit(cache=True, nogil=True)
def _birth(live: I32, n_live: I64) -> int:
    """Insert the lowest free slot into the ascending live list; returns it."""
    n = n_live[0]
    k = 0
    j = 0
    while j < n and live[j] == k:
        j += 1
        k += 1
    for i in range(n, j, -1):
        live[i] = live[i - 1]
    live[j] = k
    n_live[0] = n + 1
    return k


@njit(cache=True, nogil=True, inline="always")
def _doc(rr: int, n: int, t: int, T_t: int, root: float, join: F64, open_: F64) -> float:
    """The document and root factor of (topic, r) (counts without the token; ``root`` = b1 /
    (b0 + T))."""
    if rr:
        return open_[n, t] * (T_t * root)
    return join[n, t]


@njit(cache=True, nogil=True, inline="always")
def _remove(d: int, w: int, k: int, rr: int, ndk: I32, nwk: I32, n_k: I32,
            tab: DocTables) -> None:
    ndk[k] -= 1
    nwk[k] -= 1
    n_k[k] -= 1
    if rr:
        tab.t_dk[d, k] -= 1
        tab.t_k[k] -= 1
        tab.t_total[0] -= 1
        if tab.t_k[k] == 0:
            _kill(k, tab.live, tab.n_live)


@njit(cache=True, nogil=True, inline="always")
def _add(d: int, w: int, k: int, rr: int, ndk: I32, nwk: I32, n_k: I32, tab: DocTables) -> None:
    ndk[k] += 1
    nwk[k] += 1
    n_k[k] += 1
    if rr:
        tab.t_dk[d, k] += 1
        tab.t_k[k] += 1
        tab.t_total[0] += 1


@njit(cache=True, nogil=True)
def gibbs_sweep(tokens: Tokens, counts: Counts, tab: DocTables, prior: HDPPrior, st: Stirling,
                rng: Rng, d_start: int, d_end: int, info: F64, blocked_at: int,
                p: F64) -> Stirling:
    """The exact conditional over the live topics' 2 K outcomes and a new topic, for each
    token of documents ``d_start .. d_end-1``; ``p`` float64 scratch (2 K_max + 1). Returns
    the Stirling record."""
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    r, t_dk, t_k, live, n_live = tab.r, tab.t_dk, tab.t_k, tab.live, tab.n_live
    b0, b1, beta = prior.b0, prior.b1, prior.beta
    K_max = n_k.shape[0]
    V = n_wk.shape[0]
    V_beta = V * beta
    join, open_ = st.join, st.open
    R, C = join.shape
    changed = 0
    blocked = 0
    for d in range(d_start, d_end):
        ndk, tdk = n_dk[d], t_dk[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            nwk = n_wk[w]
            old, old_r = z[i], r[i]
            if _blocked(old_r, tdk[old], ndk[old]):
                blocked += 1
                continue
            _remove(d, w, old, old_r, ndk, nwk, n_k, tab)
            T = tab.t_total[0]
            L = n_live[0]
            root = b1 / (b0 + T)
            total = 0.0
            for j in range(L):
                k = live[j]
                n = ndk[k]
                word = (nwk[k] + beta) / (n_k[k] + V_beta)
                if n == 0:   # most topics: absent from d, a new table (open[0, 0] = 1)
                    p[2 * j] = total
                    total += word * t_k[k] * root
                    p[2 * j + 1] = total
                    continue
                t = tdk[k]
                if n >= R or t >= C:
                    st = cover(st, n, t)
                    join, open_ = st.join, st.open
                    R, C = join.shape
                total += word * join[n, t]
                p[2 * j] = total
                total += word * open_[n, t] * t_k[k] * root
                p[2 * j + 1] = total
            top = 2 * L
            if L < K_max:
                total += b1 * b0 / (b0 + T) / V
                p[top] = total
                top += 1
            u = uniform(rng) * total
            lo = search_cumulative(p, top, u)
            if lo == 2 * L:
                k, rr = _birth(live, n_live), 1
            else:
                k, rr = live[lo >> 1], lo & 1
            z[i], r[i] = k, rr
            _add(d, w, k, rr, ndk, nwk, n_k, tab)
            if k != old:
                changed += 1
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
    info[blocked_at] += blocked
    return st


# ---------------------------------------------------------------------------------- AliasHDP
@njit(cache=True, nogil=True)
def _rebuild_word(w: int, nwk: I32, inv: F64, t_k: I32, root: float, b0: float, beta: float,
                  V: int, wt: Supplied, rng: Rng, need: int) -> None:
    """Word w's stale table over the K_max + 1 outcomes from the current counts: topic t with
    a new document table, (m_tw + beta) / (m_t + V beta) * b1 T_t / (b0 + T), and a new
    topic, b1 b0 / (b0 + T) / V. Every outcome keeps positive mass, because the proposal mass
    of a token's current state may be this table's alone and a state of zero proposal mass
    cannot be left (every MH ratio is 0) until the table is rebuilt: the new topic even when
    every slot is live (a token whose topic dies with it has "new topic" as its current
    state; at capacity no topic could die), and a dead slot as if it had one table (a topic
    born into it after the build, alone in the token's document, would hold the token; the
    paper's refresh rebuilds a rare word's table only every many sweeps). Proposed when it
    has no target mass (a dead slot, a new topic at capacity), an outcome is rejected."""
    qw = wt.q[w]
    K_max = nwk.shape[0]
    for k in range(K_max):
        qw[k] = (nwk[k] + beta) * inv[k] * (max(t_k[k], 1) * root)
    qw[K_max] = root * b0 / V
    draw_supply(w, wt, rng, need)


@njit(cache=True, nogil=True)
def alias_sweep(tokens: Tokens, counts: Counts, tab: DocTables, prior: HDPPrior, st: Stirling,
                mh_steps: int, per_sweep: bool, wt: Supplied, rng: Rng, d_start: int, d_end: int,
                info: F64, blocked_at: int) -> Stirling:
    """AliasHDP (Li et al. 2014 sec. 4.3). For a topic absent from the document the target
    is the word's (m_tw + beta) / (m_t + V beta) times the root's b1 T_t / (b0 + T), the same
    in every document: a stale per-word table over every live topic and the new one
    (``word_tables.Supplied``, ``_rebuild_word``) proposes it. The document's k_d topics
    (join a table, open one) are proposed exactly. Proposal = their sum (the document's
    topics' new tables get stale mass as well: the ratio's q counts it); ``mh_steps``
    independent MH steps from the token's current (t, r), outcomes 2 t + r and the new topic
    2 K_max. O(k_d) per token, the table's O(K_max) build amortised: rebuilt when its supply
    is used up (K_max + 1 draws) or, with ``per_sweep``, once per sweep with the draws one
    sweep can use. Returns the Stirling record."""
    words, doc_ptr, word_ptr = tokens.words, tokens.doc_ptr, tokens.word_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    r, t_dk, t_k, live, n_live = tab.r, tab.t_dk, tab.t_k, tab.live, tab.n_live
    b0, b1, beta = prior.b0, prior.b1, prior.beta
    K_max = n_k.shape[0]
    # scratch: the document's topics (ascending), the exact part's cumulative masses, and
    # inv[t] = 1 / (m_t + V beta), kept current token by token
    nz = np.zeros(K_max, np.int32)
    p_d = np.zeros(2 * K_max)
    inv = np.empty(K_max)
    V = n_wk.shape[0]
    V_beta = V * beta
    NEW = 2 * K_max
    L_w = wt.samples.shape[1]
    for k in range(K_max):
        inv[k] = 1.0 / (n_k[k] + V_beta)
    join, open_ = st.join, st.open
    changed = 0
    blocked = 0
    for d in range(d_start, d_end):
        ndk, tdk = n_dk[d], t_dk[d]
        n_nz = topics_ascending(ndk, nz)
        for j in range(n_nz):
            # the Stirling table covers every (n_dt, t_dt) of d (and (0, 0), a topic absent
            # from d), kept so as tokens join: the hot loops below read it unchecked
            k = nz[j]
            if ndk[k] >= join.shape[0] or tdk[k] >= join.shape[1]:
                st = cover(st, ndk[k], tdk[k])
                join, open_ = st.join, st.open
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            nwk = n_wk[w]
            old, old_r = z[i], r[i]
            if _blocked(old_r, tdk[old], ndk[old]):
                blocked += 1
                continue
            _remove(d, w, old, old_r, ndk, nwk, n_k, tab)
            inv[old] = 1.0 / (n_k[old] + V_beta)
            if ndk[old] == 0:
                n_nz = remove_ascending(old, nz, n_nz)
            T = tab.t_total[0]
            L = n_live[0]
            root = b1 / (b0 + T)
            if i + 1 < doc_ptr[d + 1]:
                # the next token's word row at the document's topics: random reads of a
                # (V, K) array, asked for while this token is sampled (the exact part below
                # 45% faster on 20 Newsgroups at k = 1024)
                row = n_wk[words[i + 1]]
                for j in range(n_nz):
                    prefetch(row, nz[j])
            # the exact part: the document's topics, both outcomes
            P = 0.0
            for j in range(n_nz):
                k = nz[j]
                n, t = ndk[k], tdk[k]
                f = (nwk[k] + beta) * inv[k]
                P += f * _doc(0, n, t, t_k[k], root, join, open_)
                p_d[2 * j] = P
                P += f * _doc(1, n, t, t_k[k], root, join, open_)
                p_d[2 * j + 1] = P
            x = NEW if t_k[old] == 0 else 2 * old + old_r   # the topic died: x is "new"
            pi_x = _pi(x, nwk, ndk, tdk, inv, t_k, root, L, K_max, V, b0, beta, join, open_)
            q_x = -1.0   # the proposal mass of the current state; recomputed after a rebuild
            for step in range(mh_steps):
                if stale(w, wt):
                    q_x = -1.0
                    need = mh_steps * (word_ptr[w + 1] - word_ptr[w]) if per_sweep else L_w
                    _rebuild_word(w, nwk, inv, t_k, root, b0, beta, V, wt, rng, need)
                if q_x < 0.0:
                    q_x = _q(x, w, nwk, ndk, tdk, inv, t_k, root, K_max, beta, join, open_, wt)
                u = uniform(rng) * (P + wt.mass[w])
                if u < P:   # the first cumulative mass above u, by bisection
                    lo = search_cumulative(p_d, 2 * n_nz, u)
                    y = 2 * nz[lo >> 1] + (lo & 1)
                else:
                    y = wt.samples[w, wt.used[w]]
                    wt.used[w] += 1
                    y = NEW if y == K_max else 2 * y + 1
                if y == x:
                    record_mh(info, 0, 1.0, True)
                    continue
                pi_y = _pi(y, nwk, ndk, tdk, inv, t_k, root, L, K_max, V, b0, beta, join, open_)
                if pi_y <= 0.0:   # a stale outcome: a topic gone, a table gone, no room
                    record_mh(info, 0, 0.0, False)
                    continue
                q_y = _q(y, w, nwk, ndk, tdk, inv, t_k, root, K_max, beta, join, open_, wt)
                acc = pi_y * q_x / (pi_x * q_y)
                if acc >= 1.0 or uniform(rng) < acc:
                    record_mh(info, 0, min(acc, 1.0), True)
                    x, pi_x, q_x = y, pi_y, q_y
                else:
                    record_mh(info, 0, acc, False)
            if x == NEW:
                k, rr = _birth(live, n_live), 1
            else:
                k, rr = x >> 1, x & 1
            z[i], r[i] = k, rr
            _add(d, w, k, rr, ndk, nwk, n_k, tab)
            inv[k] = 1.0 / (n_k[k] + V_beta)
            if ndk[k] == 1:
                n_nz = insert_ascending(k, nz, n_nz)
            if ndk[k] >= join.shape[0] or tdk[k] >= join.shape[1]:
                st = cover(st, ndk[k], tdk[k])
                join, open_ = st.join, st.open
            if k != old:
                changed += 1
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
    info[blocked_at] += blocked
    return st


@njit(cache=True, nogil=True, inline="always")
def _pi(x: int, nwk: I32, ndk: I32, tdk: I32, inv: F64, t_k: I32, root: float, L: int, K_max: int,
        V: int, b0: float, beta: float, join: F64, open_: F64) -> float:
    """The target's unnormalised mass of outcome x (0 where impossible now)."""
    if x == 2 * K_max:
        return root * b0 / V if L < K_max else 0.0
    k = x >> 1
    if t_k[k] == 0:
        return 0.0
    return (nwk[k] + beta) * inv[k] * _doc(x & 1, ndk[k], tdk[k], t_k[k], root, join, open_)


@njit(cache=True, nogil=True, inline="always")
def _q(x: int, w: int, nwk: I32, ndk: I32, tdk: I32, inv: F64, t_k: I32, root: float, K_max: int,
       beta: float, join: F64, open_: F64, wt: Supplied) -> float:
    """The proposal's unnormalised mass of outcome x: the word's stale table (new tables and
    the new topic) plus the exact part where x is a topic of the document."""
    if x == 2 * K_max:
        return wt.q[w, K_max]
    k = x >> 1
    out = wt.q[w, k] if x & 1 else 0.0
    if ndk[k] > 0:
        out += (nwk[k] + beta) * inv[k] * _doc(x & 1, ndk[k], tdk[k], t_k[k], root, join,
                                               open_)
    return out


# ---------------------------------------------------------------------------------- the joint
@njit(cache=True, nogil=True)
def log_joint(doc_ptr: I64, word_ptr: I64, word_tok: I32 | I64, counts: Counts, tab: DocTables,
              prior: HDPPrior, st: Stirling) -> tuple[float, Stirling]:
    """log p(W, Z, R) of the formula above; returns (value, Stirling record)."""
    z, n_k = counts.z, counts.n_k
    t_k, t_dk = tab.t_k, tab.t_dk
    b0, b1, beta = prior.b0, prior.b1, prior.beta
    K = n_k.shape[0]
    V = word_ptr.shape[0] - 1
    D = doc_ptr.shape[0] - 1
    V_beta = V * beta
    out = 0.0
    row = np.zeros(K, np.int64)
    for d in range(D):
        N_d = doc_ptr[d + 1] - doc_ptr[d]
        out -= math.lgamma(b1 + N_d) - math.lgamma(b1)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            row[z[i]] += 1
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = z[i]
            n = row[k]
            if n > 0:
                t = t_dk[d, k]
                st = cover(st, n, t)
                out += t * fmath.log(b1) + st.log_s[n, t] + math.lgamma(t + 1.0) \
                    + math.lgamma(n - t + 1.0) - math.lgamma(n + 1.0)
                row[k] = 0
    T = 0
    for k in range(K):
        if t_k[k] > 0:
            out += fmath.log(b0) + math.lgamma(t_k[k]) + math.lgamma(V_beta) \
                - math.lgamma(n_k[k] + V_beta)
            T += t_k[k]
    out -= math.lgamma(b0 + T) - math.lgamma(b0)
    lg_beta = math.lgamma(beta)
    for w in range(V):
        for j in range(word_ptr[w], word_ptr[w + 1]):
            row[z[word_tok[j]]] += 1
        for j in range(word_ptr[w], word_ptr[w + 1]):
            k = z[word_tok[j]]
            if row[k] > 0:
                out += math.lgamma(row[k] + beta) - lg_beta
                row[k] = 0
    return out, st
