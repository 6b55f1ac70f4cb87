"""LightLDA's factored Metropolis-Hastings proposals, O(1) per token (LDA; supervised: O(T)).

Target for token i of document d, word w (counts exclude token i, docs/math.md sec. 2):
    p(k) ∝ (n_kd + alpha_k) (n_kw + beta) / (n_k + V beta)

* doc proposal q_d(k) ∝ n_kd + alpha_k, counting token i at its CURRENT MH state: pick a
  random token of the document (probability N_d / (N_d + sum alpha)), else draw from alpha.
  From state s, q(t|s) ∝ n_td + alpha_t + [t = s] with n excluding i, so for t != s the reverse
  probability q(s|t) ∝ n_sd + alpha_s and the document factors cancel: the acceptance is the
  ratio of word factors alone. (LightLDA and Zheng et al. 2015 eq. 19 print (n_sd + alpha)
  with token i counted in the numerator, which is not the reverse move's probability; the
  exact-target test rejects that variant, see tests/kernels/test_light.py.)
* word proposal, exact (default): q_w(k) ∝ n_kw + beta, counting token i at its current MH
  state: pick a random occurrence of word w in the corpus (probability n_w / (n_w + K beta)),
  else a uniform topic. As for the doc proposal the reverse move's probability is known, the
  word factors cancel and the acceptance is (n_td + alpha_t)(n_s + V beta) /
  ((n_sd + alpha_s)(n_t + V beta)). O(1) per draw with no tables.
* word proposal, stale (``stale_word=True``; LightLDA, Zheng et al. 2015 eq. 20 with beta_w for
  their beta_s, beta_t): q_w(k) ∝ (n_kw + beta)/(n_k + V beta) from stored samples of a Walker
  table rebuilt after K draws, ratio with the stale values. NOT exact: a table built while
  token i sat at topic s depends on the current state, which the printed ratio ignores. The
  exact-target test detects the bias on tiny corpora (tests/kernels/test_light.py); it shrinks
  as counts grow. Kept to reproduce the papers.

Speed at large K: the sampler keeps no (D, K) matrix (the document's n_kd is rebuilt in one
row per document), and each proposal is a function of one uniform and the current z, so all
of a token's uniforms (kind, proposal and acceptance of every MH step) are drawn a few tokens
early and the counts its proposals will read are prefetched (``kernels.prefetch``). Sweep
time then grows only 1.34x from K = 100 to K = 2000 on 20 Newsgroups
(benchmarks/bench_samplers.py).

Supervised models (``kernels.supervised``) multiply the target by exp(g_d(k)), the
augmentation's Gaussian factor or the loss's pseudo-likelihood itself: every ratio above gains
exp(g_d(t) - g_d(s)), O(T) for T tasks, and a third proposal joins them:

* exp proposal: q_e(k) ∝ exp(A_d(k)), the part of g_d that does not depend on Z (augmented)
  or its linearisation at a zero score (marginal), from a Walker table built once per
  document (``supervised.build_exp_table`` explains why not the paper's stale m_d). A_d
  cancels in the ratio: the document, word and the rest of g_d remain.

Compositions: ``cycle`` runs the kinds of ``cycle_order`` in turn (doc, word(, exp), doc, ...)
over the ``mh_steps`` steps of a token; ``mixture`` picks a kind at each step with the
probabilities in ``kind_cum`` (for LDA, doc with probability ``p_doc``). Each step leaves the
target invariant on its own, so every composition does (Zheng et al. 2015 Theorem 1).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, Rng
from . import fmath, supervised, word_tables
from .alias import alias_from_uniform
from .counts import Counts, Dirichlet, Tokens
from .info import CHANGED, TOKENS, record_mh
from .prefetch import prefetch
from .rng import fill_uniforms

DOC = 0
WORD = 1  # the word-proposal slot, exact or stale
EXP = 2   # supervised models only: q_e(k) ∝ exp(A_d(k)) (kernels.supervised)
KINDS = ("doc", "word")
SUPERVISED_KINDS = ("doc", "word", "exp")
CYCLE = 0
AHEAD = 4  # tokens between prefetch stages (see light_sweep)
LEAD = 3 * AHEAD  # a token's uniforms are drawn this many tokens before it is resampled
RING = 4 * AHEAD
MIXTURE = 1


class Settings(NamedTuple):
    """How the light sampler moves: ``mh_steps`` per token; ``composition`` (``CYCLE`` over
    the kinds of ``cycle_order``, or ``MIXTURE`` with cumulative probabilities ``kind_cum``);
    ``stale_word``: LightLDA's stale word tables instead of the exact word proposal; the
    doc proposal's alpha part, uniform when ``alpha_symmetric`` or else from the Walker table
    ``alpha_prob``, ``alpha_alias``; ``ndk`` the zeroed (K,) row of the current document's
    counts."""

    mh_steps: int
    composition: int
    cycle_order: I64
    kind_cum: F64
    stale_word: bool
    alpha_symmetric: bool
    alpha_prob: F64
    alpha_alias: I32
    ndk: I32


# Each proposal is a function of one uniform u01 and the current z, so the caller can draw
# u01 tokens ahead and prefetch what the proposal will read (see light_sweep).
@njit(cache=True, nogil=True, inline="always")
def draw_doc_proposal(z: I32, p0: int, N_d: int, alpha_sum: float, alpha_prob: F64,
                      alpha_alias: I32, alpha_symmetric: bool, u01: float) -> int:
    """q_d: the topic of a random token of the document (z[i] = current state), or alpha."""
    u = u01 * (N_d + alpha_sum)
    if u < N_d:
        return z[p0 + int(u)]
    v = (u - N_d) / alpha_sum  # uniform on [0, 1) given this branch
    if alpha_symmetric:
        return min(int(v * alpha_prob.shape[0]), alpha_prob.shape[0] - 1)
    return alias_from_uniform(alpha_prob, alpha_alias, v)


@njit(cache=True, nogil=True, inline="always")
def _occurrence(word_ptr: I64, w: int, K: int, beta: float, u01: float) -> int:
    """Where in ``word_tok`` the word proposal with uniform ``u01`` looks, or -1 (uniform)."""
    n_w = word_ptr[w + 1] - word_ptr[w]
    u = u01 * (n_w + K * beta)
    return word_ptr[w] + int(u) if u < n_w else -1


@njit(cache=True, nogil=True, inline="always")
def draw_word_proposal(z: I32, word_ptr: I64, word_tok: I32 | I64, w: int, K: int, beta: float,
                       u01: float) -> int:
    """Exact q_w: the topic of a random occurrence of word w (z[i] = current state), or
    uniform."""
    occ = _occurrence(word_ptr, w, K, beta, u01)
    if occ >= 0:
        return z[word_tok[occ]]
    n_w = word_ptr[w + 1] - word_ptr[w]
    return min(int((u01 * (n_w + K * beta) - n_w) / beta), K - 1)  # uniform on 0..K-1


@njit(cache=True, nogil=True, inline="always")
def _draw_token(u: F64, kinds: I64, composition: int, cycle_order: I64, kind_cum: F64,
                rng: Rng) -> None:
    """A token's uniforms, three per MH step (kind, proposal, acceptance), and the kind of
    each step: the kinds of ``cycle_order`` in turn (cycle) or drawn from ``kind_cum`` with
    the step's first uniform (mixture)."""
    fill_uniforms(u, rng)
    n_kinds = kind_cum.shape[0]
    for step in range(kinds.shape[0]):
        if composition == CYCLE:
            kinds[step] = cycle_order[step % cycle_order.shape[0]]
        else:
            kind = 0
            while kind < n_kinds - 1 and u[3 * step] >= kind_cum[kind]:
                kind += 1
            kinds[step] = kind


@njit(cache=True, nogil=True, inline="always")
def _prefetch_occurrences(kinds: I64, u: F64, word_ptr: I64, word_tok: I32 | I64, z: I32,
                          word: int, K: int, beta: float, at_z: bool) -> None:
    """Prefetch where a token's word steps look: the occurrence list, or (``at_z``) z there."""
    for step in range(kinds.shape[0]):
        if kinds[step] == WORD:
            occ = _occurrence(word_ptr, word, K, beta, u[3 * step + 1])
            if occ >= 0:
                if at_z:
                    prefetch(z, word_tok[occ])
                else:
                    prefetch(word_tok, occ)


@njit(cache=True, nogil=True, inline="always")
def load_doc_row(z: I32, p0: int, p1: int, ndk: I32, delta: int) -> None:
    """Add ``delta`` per token of a document to its count row (fill with +1, clear with -1)."""
    for i in range(p0, p1):
        ndk[z[i]] += delta


# The acceptance arithmetic of one MH step s -> t (t != s), shared with topicsup.inspector so
# the probabilities it shows are the sweep's own. Scalars in, scalar out: inlined into the
# sweep they compile to the same instructions as written out there (checked: same chains bit
# for bit, same s/sweep), while passing arrays into inlined code costs reference counting.
@njit(cache=True, nogil=True, inline="always")
def doc_step_ratio(nwk_t: int, nwk_s: int, n_t: int, n_s: int, beta: float,
                   V_beta: float) -> float:
    """Doc proposal, LDA part: the doc factors cancel (module docstring), leaving
    (n_tw + beta)(n_s + V beta) / ((n_sw + beta)(n_t + V beta))."""
    return ((nwk_t + beta) * (n_s + V_beta)) / ((nwk_s + beta) * (n_t + V_beta))


@njit(cache=True, nogil=True, inline="always")
def word_step_ratio(ndk_t: int, ndk_s: int, alpha_t: float, alpha_s: float, n_t: int, n_s: int,
                    V_beta: float) -> float:
    """Exact word proposal, LDA part: the word factors cancel, leaving
    (n_td + alpha_t)(n_s + V beta) / ((n_sd + alpha_s)(n_t + V beta))."""
    return ((ndk_t + alpha_t) * (n_s + V_beta)) / ((ndk_s + alpha_s) * (n_t + V_beta))


@njit(cache=True, nogil=True, inline="always")
def table_step_ratio(ndk_t: int, ndk_s: int, alpha_t: float, alpha_s: float, nwk_t: int,
                     nwk_s: int, n_t: int, n_s: int, beta: float, V_beta: float, q_t: float,
                     q_s: float) -> float:
    """A proposal q from a table, LDA part: pi(t) q(s) / (pi(s) q(t)) with the collapsed
    pi(k) = (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta). Stale word table (Zheng 2015 eq. 20
    with beta_w): q = its stored values; exp proposal (eq. 21): q_t = q_s = 1, its exp factors
    go into ``supervised_step_factor``."""
    return ((ndk_t + alpha_t) * (nwk_t + beta) * (n_s + V_beta) * q_s) / \
        ((ndk_s + alpha_s) * (nwk_s + beta) * (n_t + V_beta) * q_t)


@njit(cache=True, nogil=True, inline="always")
def supervised_step_factor(kind: int, g_t: float, g_s: float, A_t: float, A_s: float) -> float:
    """The supervised factor of a step's ratio: exp(g_d(t) - g_d(s)) (Zheng 2015 eq. 19-20),
    or for the exp proposal q_e ∝ exp(A_d), which cancels A_d, the coupling part alone."""
    if kind == EXP:
        return fmath.exp((g_t - A_t) - (g_s - A_s))
    return fmath.exp(g_t - g_s)


@njit(cache=True, nogil=True, inline="always")
def accepts(a: float, u: float) -> bool:
    """The MH decision for ratio ``a`` and the step's acceptance uniform ``u``."""
    return a >= 1.0 or u < a


@njit(cache=True, nogil=True, inline="always")
def uses_exp_table(composition: int, cycle_order: I64, kind_cum: F64) -> bool:
    """Whether some MH step can propose from the exp table, so it is built per document."""
    if composition == CYCLE:
        for kind in cycle_order:
            if kind == EXP:
                return True
        return False
    return kind_cum.shape[0] > EXP and kind_cum[EXP] > kind_cum[EXP - 1]


@njit(cache=True, nogil=True, inline="always")
def load_document(d: int, p0: int, p1: int, z: I32, ndk: I32, term: supervised.Term,
                  use_exp: bool, work_prob: F64, work: I32) -> None:
    """What the sweep keeps per document, from ``z``: add its n_kd to the zeroed row ``ndk``;
    for supervised models fill the rows ``c`` (and A_d) of the ``term``
    (``kernels.supervised``) and, if ``use_exp``, its exp table (``work_prob``, ``work``:
    the Walker build's scratch)."""
    load_doc_row(z, p0, p1, ndk, 1)
    if term.eta_kt.shape[1] > 0 and p1 > p0:
        supervised.load_doc(term, d, z, p0, p1, use_exp)
        if use_exp:
            supervised.build_exp_table(term.A, work_prob, term.exp_prob, term.exp_alias, work)


@njit(cache=True, nogil=True)
def light_sweep(tokens: Tokens, counts: Counts, prior: Dirichlet, settings: Settings,
                tables: word_tables.Tables, term: supervised.Term, rng: Rng, d_start: int,
                d_end: int, info: F64) -> None:
    """One pass of ``settings.mh_steps`` MH steps per token over documents
    ``d_start .. d_end-1``.

    Records: ``tokens``, ``counts`` (no (D, K) matrix is read) and ``prior`` of
    ``kernels.counts``; ``settings`` (``Settings``), whose zeroed row ``ndk`` holds the
    current document's n_kd, rebuilt from ``z`` per document, so it stays in L1 whatever K;
    the stale word ``tables`` (``kernels.word_tables``; their Walker scratch also builds the
    exp table); the supervised ``term`` (``kernels.supervised``; T = 0 for LDA). The kinds
    are doc, word and (supervised models) exp: a cycle runs those of ``cycle_order`` in turn,
    a mixture picks kind j with probability ``kind_cum[j] - kind_cum[j-1]``.
    """
    words, doc_ptr, word_ptr, word_tok = tokens
    z, n_wk, n_k = counts.z, counts.n_wk, counts.n_k
    alpha, beta = prior.alpha, prior.beta
    mh_steps, composition = settings.mh_steps, settings.composition
    cycle_order, kind_cum, stale_word = settings.cycle_order, settings.kind_cum, settings.stale_word
    alpha_symmetric, alpha_prob, alpha_alias = (settings.alpha_symmetric, settings.alpha_prob,
                                                settings.alpha_alias)
    ndk = settings.ndk
    ones, wt_samples, wt_q, wt_mass, wt_used = (tables.ones, tables.samples, tables.q,
                                                tables.mass, tables.used)
    prob, alias, work = tables.prob, tables.alias, tables.work
    factor, loss_params, eta_kt = term.factor, term.loss_params, term.eta_kt
    A, c, v, exp_prob, exp_alias = term.A, term.c, term.v, term.exp_prob, term.exp_alias
    V_beta = beta * n_wk.shape[0]
    K = n_k.shape[0]
    T = eta_kt.shape[1]
    use_exp = uses_exp_table(composition, cycle_order, kind_cum)
    flat_wk = n_wk.reshape(n_wk.size)
    # per token and MH step three uniforms: the kind, the proposal, the acceptance
    U = np.empty((RING, 3 * mh_steps), np.float64)
    kinds = np.empty((RING, mh_steps), np.int64)
    alpha_sum = 0.0
    for k in range(alpha.shape[0]):
        alpha_sum += alpha[k]
    changed = 0
    for d in range(d_start, d_end):
        p0 = doc_ptr[d]
        p1 = doc_ptr[d + 1]
        N_d = p1 - p0
        load_document(d, p0, p1, z, ndk, term, use_exp, prob, work)
        for j in range(p0, min(p0 + LEAD, p1)):
            _draw_token(U[j % RING], kinds[j % RING], composition, cycle_order, kind_cum, rng)
        # Every uniform of a token is drawn LEAD = 3 AHEAD tokens early, so the memory its
        # proposals will read is prefetched in stages: the word's occurrence list, then z
        # there, then n_tw for every proposed topic t, with the token's own n_{z_i w}. At large
        # K these are a sweep's cache misses. Uniforms drawn early are still independent of
        # the state, so the proposals are unchanged; a proposal computed early from a z that
        # changes meanwhile only prefetches the wrong line. (The stale word tables serve
        # stored samples: nothing to draw ahead for them.)
        for i in range(p0, p1):
            j = i + LEAD
            if j < p1:
                _draw_token(U[j % RING], kinds[j % RING], composition, cycle_order, kind_cum,
                            rng)
            if not stale_word:  # the word steps' occurrences, then z there
                j = i + 3 * AHEAD
                if j < p1:
                    _prefetch_occurrences(kinds[j % RING], U[j % RING], word_ptr, word_tok,
                                          z, words[j], K, beta, False)
                j = i + 2 * AHEAD
                if j < p1:
                    _prefetch_occurrences(kinds[j % RING], U[j % RING], word_ptr, word_tok,
                                          z, words[j], K, beta, True)
            j = i + AHEAD
            if j < p1:
                row = words[j] * K
                prefetch(flat_wk, row + z[j])
                # The same three draws as the MH step below, kept inline on purpose: routed
                # through one shared helper, the sweep ran 1.6x slower (K = 200, 20NG).
                for step in range(mh_steps):
                    kind = kinds[j % RING, step]
                    u01 = U[j % RING, 3 * step + 1]
                    if kind == DOC:
                        t = draw_doc_proposal(z, p0, N_d, alpha_sum, alpha_prob, alpha_alias,
                                              alpha_symmetric, u01)
                    elif kind == WORD:
                        if stale_word:
                            continue
                        t = draw_word_proposal(z, word_ptr, word_tok, words[j], K, beta, u01)
                    else:
                        t = alias_from_uniform(exp_prob, exp_alias, u01)
                    prefetch(flat_wk, row + t)
            u_i = U[i % RING]
            word = words[i]
            nwk = n_wk[word]
            old = z[i]
            ndk[old] -= 1
            nwk[old] -= 1
            n_k[old] -= 1
            g_s = 0.0
            if T > 0:
                supervised.token_coupling(factor, eta_kt, c, old, v)
                g_s = supervised.g_value(factor, loss_params, A, eta_kt, c, v, old)
            s = old
            for step in range(mh_steps):
                kind = kinds[i % RING, step]
                u01 = u_i[3 * step + 1]
                if kind == DOC:
                    t = draw_doc_proposal(z, p0, N_d, alpha_sum, alpha_prob, alpha_alias,
                                          alpha_symmetric, u01)
                    if t == s:
                        record_mh(info, DOC, 1.0, True)
                        continue
                    a = doc_step_ratio(nwk[t], nwk[s], n_k[t], n_k[s], beta, V_beta)
                elif kind == WORD and not stale_word:
                    t = draw_word_proposal(z, word_ptr, word_tok, word, K, beta, u01)
                    if t == s:
                        record_mh(info, WORD, 1.0, True)
                        continue
                    a = word_step_ratio(ndk[t], ndk[s], alpha[t], alpha[s], n_k[t], n_k[s],
                                        V_beta)
                elif kind == WORD:
                    word_tables.ensure(word, nwk, n_k, ones, beta, V_beta, wt_samples, wt_q,
                                       wt_mass, wt_used, prob, alias, work, rng)
                    t = word_tables.next_sample(word, wt_samples, wt_used)
                    if t == s:
                        record_mh(info, WORD, 1.0, True)
                        continue
                    a = table_step_ratio(ndk[t], ndk[s], alpha[t], alpha[s], nwk[t], nwk[s],
                                         n_k[t], n_k[s], beta, V_beta, wt_q[word, t],
                                         wt_q[word, s])
                else:
                    t = alias_from_uniform(exp_prob, exp_alias, u01)
                    if t == s:
                        record_mh(info, EXP, 1.0, True)
                        continue
                    a = table_step_ratio(ndk[t], ndk[s], alpha[t], alpha[s], nwk[t], nwk[s],
                                         n_k[t], n_k[s], beta, V_beta, 1.0, 1.0)
                g_t = 0.0
                if T > 0:
                    g_t = supervised.g_value(factor, loss_params, A, eta_kt, c, v, t)
                    a *= supervised_step_factor(kind, g_t, g_s, A[t], A[s])
                if accepts(a, u_i[3 * step + 2]):
                    record_mh(info, kind, min(a, 1.0), True)
                    s = t
                    g_s = g_t
                    z[i] = s  # doc and word proposals must see token i at its current state
                else:
                    record_mh(info, kind, a, False)
            z[i] = s
            ndk[s] += 1
            nwk[s] += 1
            n_k[s] += 1
            if s != old:
                changed += 1
                if T > 0:
                    supervised.move(eta_kt, c, old, s)
        load_doc_row(z, p0, p1, ndk, -1)
    info[TOKENS] += doc_ptr[d_end] - doc_ptr[d_start]
    info[CHANGED] += changed
