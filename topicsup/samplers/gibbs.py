"""Collapsed Gibbs: the exact conditional, O(K) per token (O(K T) with T label tasks, O(K)
again when every document shares w per task: DOLDA's K x K matrix); the reference every other
sampler is tested against (``kernels.gibbs``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..arrays import F64, Array, Rng
from ..kernels import fmath, gibbs, supervised
from ..kernels.counts import Counts, Dirichlet, move_token
from ..kernels.rng import uniform
from ..kernels.supervised import Term, label_matrix, shared_w
from ..problem import Problem
from . import MAX_LABEL_MATRIX_TOPICS, REGISTRY, TopicSampler
from .stepping import MHStep, StepContext, StepPass, TokenMove


class GibbsArrays(NamedTuple):
    """Scratch (3, K): the running cumulative conditional, 1 / (n_k + V beta) and the label
    matrix path's q_k; the label matrix ``G`` (K, K) of a supervised model (built for each
    call's weights; (0, 0) when unused)."""

    scratch: F64
    G: F64


def uses_label_matrix(term: Term, own: GibbsArrays) -> bool:
    """Whether the label term goes through the K x K matrix (``supervised.shared_w``) and the
    model has one (K at most ``MAX_LABEL_MATRIX_TOPICS``)."""
    return own.G.shape[0] > 0 and shared_w(term)


@REGISTRY.register
@dataclass(frozen=True)
class Gibbs(TopicSampler):
    """Exact collapsed Gibbs sampling (Griffiths & Steyvers 2004; the label factor of Zheng et
    al. 2015 eq. 15-17 for supervised models). No settings, no proposals."""

    name = "gibbs"
    stepping = "exact collapsed Gibbs"

    def allocate(self, problem: Problem) -> GibbsArrays:
        K = problem.K
        return GibbsArrays(np.zeros((3, K), np.float64),
                           np.zeros((K, K) if problem.supervised
                                             and K <= MAX_LABEL_MATRIX_TOPICS else (0, 0)))

    def state_bytes(self, problem: Problem) -> float:
        return 4.0 * problem.n_docs * problem.K

    def sweep(self, problem: Problem, counts: Counts, own: GibbsArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        # the weights and the augmentation are fixed during a sweep; G is rebuilt for every
        # block (O(K^2 T), small beside the block's O(K) per token), so nothing of it is state
        use_G = supervised and uses_label_matrix(term, own)
        if use_G:
            self.label_matrix(term, own)
        gibbs.gibbs_sweep(problem.tokens, counts, Dirichlet(problem.alpha, problem.beta), term,
                          own.scratch, rng, d_start, d_end, info, own.G, use_G)

    def label_matrix(self, term: Term, own: GibbsArrays) -> None:
        """G = sum_t w_t eta_t eta_t^T (the mutant of its test overrides it)."""
        label_matrix(term.eta_kt, np.ascontiguousarray(term.w[:, 0]), own.G)

    # ------------------------------------------------------------------ the replay
    # ``samplers.stepping`` (the token inspector's) steps a document token by token as
    # ``gibbs_sweep`` would, with the kernel's own functions, so what it shows is the sweep's
    # arithmetic bit for bit (tests/test_inspector.py replays documents against the kernel).
    def begin_pass(self, ctx: StepContext, p: StepPass) -> None:
        """Nothing beyond the label term's scratch (the pass's own)."""

    def first_draws(self, ctx: StepContext, p: StepPass) -> None:
        """Gibbs draws one uniform per token, when it gets there."""

    def load_document(self, ctx: StepContext, p: StepPass) -> None:
        """A document's label-term rows (``supervised.load_doc``), and the label matrix with
        the document's q_k where the sweep uses them, as the sweep loads them."""
        eta_kt = p.term.eta_kt
        if eta_kt.shape[1] == 0:
            return
        supervised.load_doc(p.term, ctx.doc, ctx.state.z, ctx.p0, ctx.p1, False)
        p.G = None
        if uses_label_matrix(p.term, ctx.state.sampler):
            K = eta_kt.shape[0]
            p.G, p.qq = np.zeros((K, K)), np.zeros(K)
            label_matrix(eta_kt, np.ascontiguousarray(p.term.w[:, 0]), p.G)
            supervised.matrix_load(eta_kt, p.term.c, p.qq)

    def proposals(self, ctx: StepContext, p: StepPass, i: int, n_kd: F64, n_kw: F64,
                  n_k: F64, s: int, g: F64 | None) -> dict[str, F64]:
        """The distribution a step draws from: the exact conditional (``conditional``)."""
        return {"conditional": conditional(ctx, n_kd, n_kw, n_k, g)[0]}

    def step_token(self, ctx: StepContext, p: StepPass, i: int,
                   proposals: dict[str, F64]) -> TokenMove:
        """``gibbs_sweep``'s token body: remove the token, sum the conditional, draw by inverse
        cdf with one uniform, add it back."""
        st, K = ctx.state, ctx.problem.K
        word = int(ctx.problem.tokens.words[i])
        nwk, n_k, ndk = st.counts.n_wk[word], st.counts.n_k, st.counts.n_dk[ctx.doc]
        t = p.term
        T = t.eta_kt.shape[1]
        old = int(st.z[i])
        move_token(ndk, nwk, n_k, old, -1)
        g = None
        inv_n2 = 1.0 / (ctx.n_tokens * ctx.n_tokens)
        if T > 0 and p.G is not None and p.qq is not None:
            g = np.zeros(K)   # the matrix path's g_d(k), as the kernel sums it
            supervised.matrix_g_all(t.A, p.qq, p.G[old], inv_n2, g)
        elif T > 0:
            # the kernel's bookkept g_d(k), so the conditional has the kernel's bits
            supervised.token_coupling(t.factor, t.eta_kt, t.c, old, t.v)
            g = np.array([supervised.g_value(t.factor, t.loss_params, t.A, t.eta_kt, t.c, t.v,
                                             k) for k in range(K)])
        q, total, cum = conditional(ctx, ndk, nwk, n_k, g)
        u = uniform(ctx.rng)
        new = int(gibbs.search_cumulative(cum, K, u * total))
        st.z[i] = new
        move_token(ndk, nwk, n_k, new, 1)
        if new != old and T > 0 and p.G is not None and p.qq is not None:
            supervised.matrix_move(p.G, p.qq, old, new, inv_n2)
        elif new != old and T > 0:
            supervised.move(t.eta_kt, t.c, old, new)
        step = MHStep("conditional", old, new, 1.0, 1.0, float(u), True, q)
        return TokenMove(old, new, (step,), {"conditional": q})


def conditional(ctx: StepContext, n_kd: Array, n_kw: Array, n_k: Array,
                g: F64 | None) -> tuple[F64, float, F64]:
    """The conditional as ``gibbs_sweep`` sums it (``gibbs.conditional_weight``, the
    supervised factor exp(g - max g)), with the kernels' alpha and beta (the problem's):
    (normalised, total, running sums)."""
    problem = ctx.problem
    K, alpha, beta = problem.K, problem.alpha, problem.beta
    V_beta = beta * problem.n_words
    top = -math.inf if g is None else max(g)
    cum = np.empty(K)
    total = 0.0
    for k in range(K):
        term = gibbs.conditional_weight(n_kd[k], alpha[k], n_kw[k], beta,
                                        1.0 / (n_k[k] + V_beta))
        if g is not None:
            term *= fmath.exp(g[k] - top)
        total += term
        cum[k] = total
    return np.diff(cum, prepend=0.0) / total, total, cum
