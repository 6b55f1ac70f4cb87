"""The Pitman-Yor (PDP) topic model with table indicators: exact Gibbs and AliasPDP
(Li et al. 2014 sec. 2.2 and 4.2; the conditionals derived in docs/math.md sec. 11).

theta_d ~ Dir(alpha), psi_0 ~ Dir(gamma), psi_t ~ PDP(b, a, psi_0), w ~ psi_z. Each topic is a
restaurant: m_tw customers (tokens) of word w in topic t sit at s_tw tables; token i carries
r_i = 1 if it heads one of them (Chen, Du, Buntine 2011). With psi_0 and the psi_t collapsed,

    p(W, Z, R) = prod_d DirMult(n_d. | alpha)
                 * prod_t (b|a)_{s_t} / (b)_{m_t} prod_w S^{m_tw}_{s_tw,a} s_tw! (m_tw - s_tw)! / m_tw!
                 * DirMult(S_. | gamma)       (S_w = sum_t s_tw: the root's customers)

and the conditional of one token (d, w), counts without it (eq. 7-8 of the paper, with the
root's factor over the shared base, S_w / S, where the print has s_tw / s_t):

    r = 0: (alpha_t + n_dt) / (b + m_t) * join[m_tw, s_tw]
    r = 1: (alpha_t + n_dt) / (b + m_t) * (b + a s_t) * open[m_tw, s_tw] * (gamma + S_w) / (V gamma + S)

(``kernels.stirling``). A token that heads the only table of a (t, w) others still sit at
cannot leave: every other value of (z_i, r_i) has probability 0 given the rest, so the exact
Gibbs step keeps it (counted as ``blocked``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from ..arrays import F64, I32, I64, Rng
from . import bitmaps, fmath
from .counts import Counts, Tokens
from .gibbs import search_cumulative
from .info import CHANGED, TOKENS, record_mh
from .prefetch import prefetch
from .loglik import lda_doc_part
from .rng import uniform
from .stirling import Stirling, cover
from .word_tables import Supplied, draw_supply, stale

KINDS = ("alias",)


class PitmanYor(NamedTuple):
    """The prior: ``alpha`` (K,), discount ``a`` in [0, 1), concentration ``b`` > -a, the
    base's symmetric Dirichlet ``gamma``."""

    alpha: F64
    a: float
    b: float
    gamma: float


class Tables(NamedTuple):
    """The table state: ``r`` (N,) int8 table indicators, ``s_wk`` (V, K) tables per word and
    topic, ``s_k`` (K,), ``s_w`` (V,) (the root's customers) and ``s_total`` (1,)."""

    r: npt.NDArray[np.int8]
    s_wk: I32
    s_k: I32
    s_w: I32
    s_total: I64


def allocate_tables(n_tokens: int, V: int, K: int) -> Tables:
    return Tables(np.zeros(n_tokens, np.int8), np.zeros((V, K), np.int32), np.zeros(K, np.int32),
                  np.zeros(V, np.int32), np.zeros(1, np.int64))


@njit(cache=True, nogil=True)
def first_heads(words: I32, z: I32, r: npt.NDArray[np.int8], K: int) -> None:
    """A start: the first token of each (word, topic) heads its only table."""
    V = 0
    for i in range(words.shape[0]):
        V = max(V, words[i] + 1)
    seen = np.zeros((V, K), np.bool_)
    for i in range(words.shape[0]):
        w, k = words[i], z[i]
        r[i] = 0 if seen[w, k] else 1
        seen[w, k] = True


@njit(cache=True, nogil=True)
def rebuild_tables(words: I32, z: I32, r: npt.NDArray[np.int8], s_wk: I32, s_k: I32, s_w: I32,
                   s_total: I64) -> None:
    """Table counts from (z, r)."""
    s_wk[:] = 0
    s_k[:] = 0
    s_w[:] = 0
    total = 0
    for i in range(z.shape[0]):
        if r[i]:
            s_wk[words[i], z[i]] += 1
            s_k[z[i]] += 1
            s_w[words[i]] += 1
            total += 1
    s_total[0] = total


@njit(cache=True, nogil=True, inline="always")
def _move(i: int, w: int, k: int, rr: int, delta: int, ndk: I32, nwk: I32, n_k: I32, swk: I32,
          s_k: I32, s_w: I32, s_total: I64) -> None:
    ndk[k] += delta
    nwk[k] += delta
    n_k[k] += delta
    if rr:
        swk[k] += delta
        s_k[k] += delta
        s_w[w] += delta
        s_total[0] += delta


@njit(cache=True, nogil=True, inline="always")
def _blocked(rr: int, s: int, m: int) -> bool:
    """Token heads the only table of a dish others still eat: the exact move keeps it."""
    return rr == 1 and s == 1 and m > 1


@njit(cache=True, nogil=True)
def gibbs_sweep(tokens: Tokens, counts: Counts, tab: Tables, prior: PitmanYor, st: Stirling,
                rng: Rng, d_start: int, d_end: int, info: F64, blocked_at: int,
                p: F64) -> Stirling:
    """The exact conditional over the 2K outcomes (t, r) of each token of documents
    ``d_start .. d_end-1``; ``p`` is float64 scratch of length 2K. Returns the Stirling
    record (grown if the counts needed it)."""
    words, doc_ptr = tokens.words, tokens.doc_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    r, s_wk, s_k, s_w, s_total = tab.r, tab.s_wk, tab.s_k, tab.s_w, tab.s_total
    alpha, a, b, gamma = prior.alpha, prior.a, prior.b, prior.gamma
    K = n_k.shape[0]
    V_gamma = n_wk.shape[0] * gamma
    join, open_ = st.join, st.open
    R, C = join.shape
    # per topic 1 / (b + m_t) and (b + a s_t) / (b + m_t), updated as tokens move
    inv = np.empty(K)
    opening = np.empty(K)
    for k in range(K):
        _topic_factors(k, n_k, s_k, a, b, inv, opening)
    changed = 0
    blocked = 0
    for d in range(d_start, d_end):
        ndk = n_dk[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            nwk, swk = n_wk[w], s_wk[w]
            old, old_r = z[i], r[i]
            if _blocked(old_r, swk[old], nwk[old]):
                blocked += 1
                continue
            _move(i, w, old, old_r, -1, ndk, nwk, n_k, swk, s_k, s_w, s_total)
            _topic_factors(old, n_k, s_k, a, b, inv, opening)
            root = (gamma + s_w[w]) / (V_gamma + s_total[0])   # psi_0 collapsed: S_w / S
            total = 0.0
            for k in range(K):
                m = nwk[k]
                ak = alpha[k] + ndk[k]
                if m == 0:   # most topics: no table of w to join, open[0, 0] = 1
                    p[2 * k] = total
                    total += ak * opening[k] * root
                    p[2 * k + 1] = total
                    continue
                base = ak * inv[k]
                s = swk[k]
                if m >= R or s >= C:
                    st = cover(st, m, s)
                    join, open_ = st.join, st.open
                    R, C = join.shape
                total += base * join[m, s]                                  # eq. 7, r = 0
                p[2 * k] = total
                total += base * (b + a * s_k[k]) * open_[m, s] * root       # eq. 8, r = 1
                p[2 * k + 1] = total
            u = uniform(rng) * total
            lo = search_cumulative(p, 2 * K, u)
            k, rr = lo >> 1, lo & 1
            z[i], r[i] = k, rr
            _move(i, w, k, rr, 1, ndk, nwk, n_k, swk, s_k, s_w, s_total)
            _topic_factors(k, n_k, s_k, a, b, inv, opening)
            if k != old:
                changed += 1
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
    info[blocked_at] += blocked
    return st


@njit(cache=True, nogil=True, inline="always")
def _topic_factors(k: int, n_k: I32, s_k: I32, a: float, b: float, inv: F64,
                   opening: F64) -> None:
    inv[k] = 1.0 / (b + n_k[k])
    opening[k] = (b + a * s_k[k]) * inv[k]


# ---------------------------------------------------------------------------------- AliasPDP
@njit(cache=True, nogil=True, inline="always")
def _set_ratio(lmw: F64, k: int, m: int, s: int, join: F64, open_: F64) -> None:
    """Word row ``lmw`` of the cached ratios at topic k: (join, open)[m_tw, s_tw]; (0, 1)
    without customers (open[0, 0] = 1)."""
    if m == 0:
        lmw[2 * k] = 0.0
        lmw[2 * k + 1] = 1.0
    else:
        lmw[2 * k] = join[m, s]
        lmw[2 * k + 1] = open_[m, s]


@njit(cache=True, nogil=True)
def fill_ratios(n_wk: I32, s_wk: I32, st: Stirling, lm: F64, has: I64) -> Stirling:
    """AliasPDP's cache of the Stirling ratios of every (word, topic): lm[w, 2t + r] =
    join / open[m_tw, s_tw] (V, 2K), and ``has`` (``kernels.bitmaps``), the topics where
    the word has customers (m_tw > 0). The sparse part, the MH ratios and the
    table builds read one line of ``lm`` where they would read the counts and two Stirling
    tables (the largest far beyond the caches) at random; the sparse part reads ``lm`` only
    where the bitmap says the word has customers (elsewhere join = 0 and open = 1). Returns
    the Stirling record."""
    V, K = n_wk.shape
    bitmaps.fill(n_wk, has)
    for w in range(V):
        for k in range(K):
            m, s = n_wk[w, k], s_wk[w, k]
            if m >= st.join.shape[0] or s >= st.join.shape[1]:
                st = cover(st, m, s)
            _set_ratio(lm[w], k, m, s, st.join, st.open)
    return st


@njit(cache=True, nogil=True, inline="always")
def _f(o: int, lmw: F64, inv: F64, opening: F64, root: float) -> float:
    """The language-model factor of outcome o = 2 t + r from the cached ratios (counts
    without the token)."""
    t = o >> 1
    if o & 1:
        return opening[t] * lmw[o] * root
    return lmw[o] * inv[t]


@njit(cache=True, nogil=True)
def _rebuild_word(w: int, lmw: F64, alpha: F64, inv: F64, opening: F64, root: float, floor: float,
                  wt: Supplied, rng: Rng, need: int) -> None:
    """Word w's stale table from the current counts: its masses alpha_t f(t, r) (``inv``,
    ``opening``: the per-topic factors of ``_topic_factors``; ``lmw`` the word's cached
    ratios) and a supply of ``need`` draws (at most 2K; ``word_tables.Supplied``). Joining a
    table of a topic where w has none gets ``floor`` (join[1, 1]) times the root factor
    instead of 0 (a mass on the scale of opening a table there, so few proposals are wasted
    on it: without the root factor AliasPDP was 23% slower on 20 Newsgroups): the proposal
    mass of a token's current state may be this table's alone, and a token that joined a
    table of (w, t) opened after the build, alone in its document's topic t, could not leave
    it until the next build. Proposed while w has no table in t it is rejected."""
    qw = wt.q[w]
    for k in range(alpha.shape[0]):
        j = lmw[2 * k]
        qw[2 * k] = alpha[k] * inv[k] * (j if j > 0.0 else floor * root)
        qw[2 * k + 1] = alpha[k] * opening[k] * lmw[2 * k + 1] * root
    draw_supply(w, wt, rng, need)


@njit(cache=True, nogil=True, inline="always")
def sparse_part(dbits: I64, hw: I64, ndk: I32, inv: F64, opening: F64, lmw: F64, root: float,
                S: float, n_nz: int, ix: I32, p_dw: F64) -> tuple[float, float, int]:
    """AliasPDP's exact sparse document part, sum over the document's topics t of n_dt
    f(t, r), as (A, B, n_ix): A over the n_ix topics the document (bitmap ``dbits``) shares
    with the word (``hw``), both outcomes from the word's cached ratios ``lmw`` (eq. 7-8),
    their topics in ``ix`` ascending and cumulative masses in ``p_dw``; B = root (S - their
    n_dt opening_t) over the others, where the word has no table (join 0, open[0, 0] = 1),
    ``S`` the sum of n_dt opening_t over the document's ``n_nz`` topics."""
    A = 0.0
    shared = 0.0
    n_ix = 0
    for h in range(dbits.shape[0]):
        bits = dbits[h] & hw[h]
        while bits != 0:
            k = 64 * h + bitmaps.lowest(bits)
            bits &= bits - 1
            c = ndk[k]
            ix[n_ix] = k
            A += c * inv[k] * lmw[2 * k]                     # eq. 7, r = 0
            p_dw[2 * n_ix] = A
            A += c * opening[k] * lmw[2 * k + 1] * root      # eq. 8, r = 1
            p_dw[2 * n_ix + 1] = A
            shared += c * opening[k]
            n_ix += 1
    B = max(root * (S - shared), 0.0) if n_ix < n_nz else 0.0
    return A, B, n_ix


@njit(cache=True, nogil=True)
def _unshared(dbits: I64, hw: I64, ndk: I32, opening: F64, v: float) -> int:
    """The document topic t (bitmap ``dbits``) where the word (``hw``) has no customers
    whose cumulative n_dt opening_t (ascending t) first exceeds ``v``; the last such topic if
    rounding leaves ``v`` beyond their sum."""
    cum = 0.0
    last = -1
    for h in range(dbits.shape[0]):
        bits = dbits[h] & ~hw[h]
        while bits != 0:
            k = 64 * h + bitmaps.lowest(bits)
            bits &= bits - 1
            cum += ndk[k] * opening[k]
            last = k
            if cum > v:
                return k
    return last


@njit(cache=True, nogil=True)
def alias_sweep(tokens: Tokens, counts: Counts, tab: Tables, prior: PitmanYor, st: Stirling,
                mh_steps: int, per_sweep: bool, wt: Supplied, lm: F64, has: I64, p_dw: F64,
                rng: Rng, d_start: int, d_end: int, info: F64, blocked_at: int) -> Stirling:
    """AliasPDP (Li et al. 2014 sec. 4.2): the proposal is the exact sparse document part
    n_dt f(t, r) over the document's k_d topics (2 outcomes each) plus the word's stale dense
    part alpha_t f~(t, r); ``mh_steps`` independent Metropolis-Hastings steps from the token's
    current (t, r). A word's table is rebuilt after it served 2K draws (the paper) or, with
    ``per_sweep``, also when it is from an earlier sweep (then with the draws one sweep can
    use, ``mh_steps`` per token of the word). ``lm`` (V, 2K) and ``has``: the cached
    Stirling ratios of the counts and the words' topic bitmaps (``fill_ratios``), kept
    current here. The sparse part is summed over the topics the document shares with the
    word (a bitmap AND; A), the rest, where the word has no table, as root times a running
    sum (B; docs/math.md sec. 11), walked only when a draw lands in it; the document's topics
    are a bitmap, kept current. ``p_dw`` (2K): A's cumulative masses. Returns the Stirling
    record."""
    words, doc_ptr, word_ptr = tokens.words, tokens.doc_ptr, tokens.word_ptr
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    r, s_wk, s_k, s_w, s_total = tab.r, tab.s_wk, tab.s_k, tab.s_w, tab.s_total
    alpha, a, b, gamma = prior.alpha, prior.a, prior.b, prior.gamma
    V_gamma = n_wk.shape[0] * gamma
    L = wt.samples.shape[1]
    K = n_k.shape[0]
    inv = np.empty(K)
    opening = np.empty(K)
    for k in range(K):
        _topic_factors(k, n_k, s_k, a, b, inv, opening)
    join, open_ = st.join, st.open
    floor = join[1, 1]   # a stale table's join mass where the word has no table (> 0)
    # the document's topics as a bitmap, and those it shares with the token's word
    dbits = np.zeros(has.shape[1], np.int64)
    ix = np.zeros(K, np.int32)
    changed = 0
    blocked = 0
    for d in range(d_start, d_end):
        ndk = n_dk[d]
        # S = sum over the document's topics of n_dt * opening_t, kept current token by
        # token: the r = 1 mass of the topics where the word has no customers is root times
        # S less the shared topics' share, without visiting them (computed afresh per
        # document, so rounding cannot build up beyond one document's moves)
        dbits[:] = 0
        S = 0.0
        n_nz = 0   # the document's topics
        for k in range(K):
            if ndk[k] > 0:
                bitmaps.mark(dbits, k, True)
                S += ndk[k] * opening[k]
                n_nz += 1
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = words[i]
            nwk, swk, lmw, hw = n_wk[w], s_wk[w], lm[w], has[w]
            old, old_r = z[i], r[i]
            if _blocked(old_r, swk[old], nwk[old]):
                blocked += 1
                continue
            S -= ndk[old] * opening[old]
            _move(i, w, old, old_r, -1, ndk, nwk, n_k, swk, s_k, s_w, s_total)
            if nwk[old] >= join.shape[0] or swk[old] >= join.shape[1]:   # a record too small
                st = cover(st, nwk[old], swk[old])
                join, open_ = st.join, st.open
            _set_ratio(lmw, old, nwk[old], swk[old], join, open_)
            if nwk[old] == 0:
                bitmaps.mark(hw, old, False)
            _topic_factors(old, n_k, s_k, a, b, inv, opening)
            S += ndk[old] * opening[old]
            if ndk[old] == 0:
                n_nz -= 1
                bitmaps.mark(dbits, old, False)
            root = (gamma + s_w[w]) / (V_gamma + s_total[0])
            if i + 1 < doc_ptr[d + 1]:
                # the lines the next token's removal and first reads will miss, asked for
                # while this token is sampled
                w2, k2 = words[i + 1], z[i + 1]
                prefetch(n_wk[w2], k2)
                prefetch(s_wk[w2], k2)
                prefetch(lm[w2], 2 * k2)
                prefetch(wt.q[w2], 2 * k2)
                prefetch(wt.samples[w2], min(wt.used[w2], L - 1))
                for h in range(0, has.shape[1], 8):
                    prefetch(has[w2], h)
            A, B, n_ix = sparse_part(dbits, hw, ndk, inv, opening, lmw, root, S, n_nz, ix,
                                     p_dw)
            P = A + B
            x = 2 * old + old_r
            f_x = _f(x, lmw, inv, opening, root)   # x's factor: a rebuild does not change it
            q_x = -1.0   # the proposal mass of the current state; recomputed after a rebuild
            for step in range(mh_steps):
                if stale(w, wt):
                    q_x = -1.0
                    need = mh_steps * (word_ptr[w + 1] - word_ptr[w]) if per_sweep else L
                    _rebuild_word(w, lmw, alpha, inv, opening, root, floor, wt, rng, need)
                if q_x < 0.0:
                    q_x = ndk[x >> 1] * f_x + wt.q[w, x]
                u = uniform(rng) * (P + wt.mass[w])
                if u < A:   # the first cumulative mass above u, by bisection
                    lo = search_cumulative(p_dw, 2 * n_ix, u)
                    y = 2 * ix[lo >> 1] + (lo & 1)
                elif u < P:   # open a table of a document topic where w has none
                    y = 2 * _unshared(dbits, hw, ndk, opening, (u - A) / root) + 1
                else:
                    y = wt.samples[w, wt.used[w]]
                    wt.used[w] += 1
                if y == x:
                    record_mh(info, 0, 1.0, True)
                    continue
                t = y >> 1
                f_y = _f(y, lmw, inv, opening, root)
                pi_y = (alpha[t] + ndk[t]) * f_y
                q_y = ndk[t] * f_y + wt.q[w, y]
                if pi_y <= 0.0:   # a stale outcome: joining a table that is gone
                    record_mh(info, 0, 0.0, False)
                    continue
                # pi(y) q(x) / (pi(x) q(y)), q = sparse exact + dense stale (eq. 10's ratio)
                acc = pi_y * q_x / ((alpha[x >> 1] + ndk[x >> 1]) * f_x * q_y)
                if acc >= 1.0 or uniform(rng) < acc:
                    record_mh(info, 0, min(acc, 1.0), True)
                    x, f_x, q_x = y, f_y, q_y
                else:
                    record_mh(info, 0, acc, False)
            k, rr = x >> 1, x & 1
            z[i], r[i] = k, rr
            _move(i, w, k, rr, 1, ndk, nwk, n_k, swk, s_k, s_w, s_total)
            if nwk[k] >= join.shape[0] or swk[k] >= join.shape[1]:
                st = cover(st, nwk[k], swk[k])
                join, open_ = st.join, st.open
            _set_ratio(lmw, k, nwk[k], swk[k], join, open_)
            if nwk[k] == 1:
                bitmaps.mark(hw, k, True)
            S -= (ndk[k] - 1) * opening[k]
            _topic_factors(k, n_k, s_k, a, b, inv, opening)
            S += ndk[k] * opening[k]
            if ndk[k] == 1:
                n_nz += 1
                bitmaps.mark(dbits, k, True)
            if k != old:
                changed += 1
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
    info[blocked_at] += blocked
    return st


# ---------------------------------------------------------------------------------- the joint
@njit(cache=True, nogil=True)
def log_pochhammer(b: float, a: float, n: int) -> float:
    """log (b|a)_n = sum_{i<n} log(b + i a)."""
    if a > 0.0:
        return n * fmath.log(a) + math.lgamma(b / a + n) - math.lgamma(b / a)
    return n * fmath.log(b)


@njit(cache=True, nogil=True)
def log_joint(doc_ptr: I64, word_ptr: I64, word_tok: I32 | I64, counts: Counts, tab: Tables,
              prior: PitmanYor, st: Stirling) -> tuple[float, Stirling]:
    """log p(W, Z, R) of the formula above, O(#tokens): the documents' part is LDA's
    (``loglik.lda_doc_part``), the restaurants' terms visit each word's topics with tokens
    once. Returns (value, Stirling record)."""
    z, n_k = counts.z, counts.n_k
    s_wk, s_k, s_w = tab.s_wk, tab.s_k, tab.s_w
    alpha, a, b, gamma = prior.alpha, prior.a, prior.b, prior.gamma
    V, K = s_wk.shape
    row = np.zeros(K, np.int64)
    out = lda_doc_part(doc_ptr, z, alpha, row)
    for k in range(K):
        out += log_pochhammer(b, a, s_k[k]) - (math.lgamma(b + n_k[k]) - math.lgamma(b))
    S = 0
    for w in range(V):
        for j in range(word_ptr[w], word_ptr[w + 1]):
            row[z[word_tok[j]]] += 1
        for j in range(word_ptr[w], word_ptr[w + 1]):
            k = z[word_tok[j]]
            m = row[k]
            if m > 0:   # each topic of the word once, then cleared
                s = s_wk[w, k]
                st = cover(st, m, s)
                out += st.log_s[m, s] + math.lgamma(s + 1.0) + math.lgamma(m - s + 1.0) \
                    - math.lgamma(m + 1.0)
                row[k] = 0
        out += math.lgamma(gamma + s_w[w]) - math.lgamma(gamma)
        S += s_w[w]
    out += math.lgamma(V * gamma) - math.lgamma(V * gamma + S)
    return out, st


@njit(cache=True, nogil=True)
def topic_word(counts: Counts, tab: Tables, prior: PitmanYor, phi: F64) -> None:
    """Posterior-mean topics phi[w, t] = (m_tw - a s_tw + (b + a s_t) psi0_w) / (b + m_t),
    psi0_w = (gamma + S_w) / (V gamma + S) (the PDP's predictive rule)."""
    n_wk, n_k = counts.n_wk, counts.n_k
    s_wk, s_k, s_w = tab.s_wk, tab.s_k, tab.s_w
    a, b, gamma = prior.a, prior.b, prior.gamma
    V, K = n_wk.shape
    S = 0
    for w in range(V):
        S += s_w[w]
    for w in range(V):
        psi0 = (gamma + s_w[w]) / (V * gamma + S)
        for k in range(K):
            phi[w, k] = (n_wk[w, k] - a * s_wk[w, k] + (b + a * s_k[k]) * psi0) / (b + n_k[k])
