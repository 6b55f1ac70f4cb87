"""The teaching replay, at the samplers' level: one document of a live chain resampled token
by token as its sampler's sweep would, bit for bit, every proposal, acceptance probability
and decision recorded (``topicsup.inspector.TokenInspector`` shows it).

A sampler with stepping (``TopicSampler.stepping``) implements ``Stepping``: it mirrors its
token body in ``begin_pass``, ``first_draws``, ``load_document``, ``proposals`` and
``step_token``, each given the typed ``StepContext`` (the chain's bound problem and live
state, the document, the replay's own random stream and info record) and the pass
(``StepPass``: the model's settings read at the pass's start and the arrays the sweep keeps
in its locals). ``step_token`` returns a ``TokenMove``; each MH step goes through
``record_mh_step``, which counts it in the replay's info record as the kernel counts it.

The functions below drive a pass (``start_pass``, ``load``, ``step``) and compute what the
inspector shows beside each step: the exact conditional and the proposal distributions, in
plain numpy from the counts, independent of the kernels' bookkeeping (what the tests check
the kernels' ratios against). ``warm_up`` compiles the replay's numba code on a copy of a
chain, so a Session can compile ahead without the inspector.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, cast

import numpy as np

from ..arrays import F64, I32, I64, Array, Rng
from ..kernels import info as info_layout
from ..kernels.light import SUPERVISED_KINDS
from ..kernels.rng import seed_state
from ..kernels.supervised import Term
from ..losses import Loss
from ..parts import Parameters
from ..problem import Problem, State

# ---------------------------------------------------------------------- the proposals
# Plain numpy from the counts, independent of the kernels' bookkeeping: what the inspector
# shows next to the exact conditional, and what the tests check the kernels' ratios against.

def doc_proposal(n_kd: F64, alpha: F64, s: int) -> F64:
    """q_d(k | s) ∝ n_kd + alpha_k + [k = s]: a random token of the document (token i at its
    current state s) or alpha (``light.draw_doc_proposal``)."""
    q = n_kd + alpha
    q[s] += 1
    return q / q.sum()


def word_proposal(n_kw: F64, beta: float, s: int) -> F64:
    """Exact q_w(k | s) ∝ n_kw + beta + [k = s]: a random occurrence of the word (token i at
    s) or a uniform topic (``light.draw_word_proposal``)."""
    q = n_kw + beta
    q[s] += 1
    return q / q.sum()


def exp_proposal(eta_kt: F64, b_d: F64, w_d: F64, N_d: int) -> F64:
    """q_e(k) ∝ exp(A_d(k)), A_d(k) = sum_t b_td eta_kt / N_d - w_td eta_kt^2 / (2 N_d^2): the
    part of g_d free of the assignments (``kernels.supervised.build_exp_table``). For the
    marginal factor pass the loss's slope at a zero score as ``b_d`` and zeros as ``w_d``."""
    A = (eta_kt * (b_d / N_d)).sum(axis=1) - (w_d * eta_kt ** 2).sum(axis=1) / (2.0 * N_d ** 2)
    return normalize_log(A)


def normalize_log(logp: F64) -> F64:
    """exp(logp) normalised to sum to one."""
    p = np.exp(logp - logp.max())
    return p / p.sum()


# ---------------------------------------------------------------------- the record

@dataclass(frozen=True)
class MHStep:
    """One Metropolis-Hastings step of a token (or the Gibbs draw, ``kind="conditional"``).

    Attributes
    ----------
    kind : str
        ``"doc"``, ``"word"``, ``"exp"`` or ``"conditional"`` (Gibbs).
    current, proposed : int
        The topic s the step moved from and the proposed topic t (Gibbs: the old and the drawn
        topic).
    ratio : float
        p(t) q(s | t) / (p(s) q(t | s)) as the kernel computed it; 1 when t = s and for Gibbs.
    acceptance : float
        min(1, ratio).
    u : float
        The acceptance uniform (Gibbs: the uniform of the inverse-cdf draw).
    accepted : bool
    proposal : ndarray
        The distribution t was drawn from, q(. | s) (Gibbs: the conditional the kernel summed).
    table_rebuilt : bool
        Stale word proposal: the word's table was rebuilt from the current counts for this
        step.
    """

    kind: str
    current: int
    proposed: int
    ratio: float
    acceptance: float
    u: float
    accepted: bool
    proposal: F64 = field(repr=False)
    table_rebuilt: bool = False

    @property
    def moved(self) -> bool:
        return self.accepted and self.proposed != self.current

    def describe(self) -> str:
        """The step in words."""
        if self.kind == "conditional":
            return (f"drew topic {self.proposed} from the exact conditional "
                    f"(p = {self.proposal[self.proposed]:.3g}) with u = {self.u:.3g}")
        table = " (its table rebuilt first)" if self.table_rebuilt else ""
        article = "an" if self.kind == "exp" else "a"
        head = f"drew {article} {self.kind} proposal{table} t = {self.proposed}"
        if self.proposed == self.current:
            return f"{head}, its current topic: nothing to decide"
        verdict = "accepted" if self.accepted else "rejected"
        return (f"{head}, acceptance probability min(1, {self.ratio:.3g}) = "
                f"{self.acceptance:.3g}, u = {self.u:.3g} -> {verdict}")


def record_mh_step(info: F64, kind: int, s: int, t: int, a: float, u: float,
                   accepted: bool, q: F64, rebuilt: bool) -> MHStep:
    """Count an MH step of proposal ``kind`` (``kernels.light``'s code) in the info record
    ``info`` as the kernel counts it (``kernels.info.record_mh``: its acceptance probability
    min(1, a) and whether it was accepted), and return its record: from ``s`` to the proposed
    ``t`` drawn from ``q``, ratio ``a``, uniform ``u``."""
    prob = min(a, 1.0)
    info_layout.record_mh(info, kind, prob, accepted)
    return MHStep(SUPERVISED_KINDS[kind], s, t, float(a), float(prob), float(u), accepted, q,
                  rebuilt)


# ---------------------------------------------------------------------- the exact conditional

def supervised_g(eta_kt: F64, b_d: F64, w_d: F64, r_d: F64, n_kd: F64, N_d: int) -> F64:
    """g_d(k) for every k (docs/math.md sec. 1) with the token removed: ``n_kd`` are the other
    tokens' counts, ``eta_kt`` (K, T), ``b_d``, ``w_d``, ``r_d`` the document's (T,) columns."""
    m = eta_kt.T @ n_kd                       # m_dt^-di
    return (eta_kt * (b_d / N_d)).sum(axis=1) - \
        (w_d * (eta_kt ** 2 + 2 * eta_kt * (m + N_d * r_d))).sum(axis=1) / (2.0 * N_d ** 2)


def marginal_g(loss: Loss, eta_kt: F64, y_d: F64, r_d: F64, n_kd: F64, N_d: int) -> F64:
    """g_d(k) = sum_t log psi(y_td | s_td(k)) for every k, the loss's pseudo-likelihood with
    the augmentation integrated out (``supervised_factor="marginal"``): s_td(k) the score with
    the token at k, ``n_kd`` the other tokens' counts."""
    s = (eta_kt.T @ n_kd)[None, :] / N_d + eta_kt / N_d + r_d[None, :]   # (K, T)
    return loss.log_psi(y_d[None, :], s).sum(axis=1)


def exact_conditional(n_kd: F64, n_kw: F64, n_k: F64, alpha: F64, beta: float, V: int,
                      g: F64 | None = None) -> F64:
    """p(z_i = k | rest) ∝ (n_kd + alpha_k)(n_kw + beta)/(n_k + V beta) exp(g_d(k)), every count
    without token i (docs/math.md sec. 2); normalised."""
    logp = np.log(n_kd + alpha) + np.log(n_kw + beta) - np.log(n_k + V * beta)
    return normalize_log(logp if g is None else logp + g)


# ---------------------------------------------------------------------- the replay

@dataclass
class StepContext:
    """What a sampler's token stepping reads: the chain's bound ``problem`` (its ``tokens``,
    ``K``, ``n_words`` and the kernels' current ``alpha``, ``beta``, ``symmetric``: learned
    ones included) and its live ``state`` (z, the counts, the sampler's own arrays, the
    supervision), the document ``doc`` (its tokens ``p0 .. p1``), the replay's own random
    stream ``rng`` (never the chain's) and info record ``info`` (``kernels.info``)."""

    problem: Problem
    state: State
    doc: int
    p0: int
    p1: int
    rng: Rng
    info: F64

    @property
    def n_tokens(self) -> int:
        return self.p1 - self.p0


@dataclass
class StepPass:
    """One pass over the document: the ``model`` whose settings it read at its start (a
    setting changed meanwhile applies from the next pass, as a sweep reads them per block),
    whether its label term is ``active`` then (what the sweep calls ``supervised``: off during
    a supervised model's start, or Monte Carlo MedLDA's before any support document), and
    the arrays the sweep keeps in its locals: the label ``term`` with the pass's own
    scratch, the light sampler's count row ``ndk`` and ring of draw-ahead uniforms ``U`` and
    kinds, collapsed Gibbs's K x K label matrix ``G`` and the document's ``qq`` where it uses
    them; ``seen`` is the state the document's bookkeeping was derived from."""

    model: Parameters
    term: Term
    active: bool = False   # whether the label term is on (the sweep's ``supervised``)
    position: int = 0
    ndk: I32 | None = None
    U: F64 | None = None
    kinds: I64 | None = None
    G: F64 | None = None
    qq: F64 | None = None
    seen: tuple[Array, ...] = ()

    @property
    def marginal(self) -> bool:
        """Whether the topics see the loss itself (the marginal label factor)."""
        return self.active and self.model.supervised_factor == "marginal"


class TokenMove(NamedTuple):
    """What resampling one token did: from topic ``old`` to ``new`` by ``steps`` (one
    ``MHStep`` for Gibbs), and the distributions it drew from, as it drew them."""

    old: int
    new: int
    steps: tuple[MHStep, ...]
    proposals: dict[str, F64]


class Stepping(Protocol):
    """A topic sampler with token stepping (``TopicSampler.stepping`` not empty:
    ``samplers.gibbs.Gibbs``, ``samplers.light.Light``)."""

    def begin_pass(self, ctx: StepContext, p: StepPass) -> None:
        """The pass's own arrays (before the document is loaded)."""

    def first_draws(self, ctx: StepContext, p: StepPass) -> None:
        """What the sweep draws at the document's start (after it is loaded)."""

    def load_document(self, ctx: StepContext, p: StepPass) -> None:
        """The document's bookkeeping from the current state, as the sweep loads it."""

    def proposals(self, ctx: StepContext, p: StepPass, i: int, n_kd: F64, n_kw: F64,
                  n_k: F64, s: int, g: F64 | None) -> dict[str, F64]:
        """Each distribution a step of token ``i`` at topic ``s`` draws from, in numpy from
        the counts without the token (``g``: the label term's g_d(k), supervised)."""
        ...

    def step_token(self, ctx: StepContext, p: StepPass, i: int,
                   proposals: dict[str, F64]) -> TokenMove:
        """The sweep's token body for token ``i``, step by step (its draws, ratios and
        acceptance, the kernel's own functions), each step recorded."""
        ...


def stepping_of(p: StepPass) -> Stepping:
    """The pass's topic sampler, as its stepping (checked when the pass began)."""
    return cast(Stepping, p.model.topic_sampler)


def start_pass(ctx: StepContext, model: Parameters) -> StepPass:
    """A new pass over the document with ``model``'s settings, as a sweep starts a document:
    the pass's arrays, the document loaded, the first draws made. Refused during a
    supervised model's LDA initialisation (not replayed)."""
    if model.initialising(ctx.state):
        left = int(ctx.state.supervision.lda_init_left[0])
        raise ValueError(f"the chain is in its LDA initialisation ({left} of "
                         f"lda_init_sweeps = {model.lda_init_sweeps} sweeps left), which "
                         f"the inspector does not replay: run those sweeps first")
    term, active = model.term(ctx.state, ctx.problem)
    p = StepPass(model, _with_scratch(term, ctx.problem.K), bool(active))
    stepping_of(p).begin_pass(ctx, p)
    load(ctx, p)
    stepping_of(p).first_draws(ctx, p)
    return p


def _with_scratch(term: Term, K: int) -> Term:
    """``term`` with scratch arrays of its own (the kernels' per-document A, c, v and exp
    table), sized for its T tasks."""
    T = term.eta_kt.shape[1]
    return term._replace(A=np.zeros(K), c=np.zeros((4, T)), v=np.zeros(T),
                         exp_prob=np.zeros(K), exp_alias=np.zeros(K, np.int32))


def preview(ctx: StepContext, model: Parameters) -> StepPass:
    """A pass that is not begun (nothing drawn, no document loaded), enough to compute the
    ``distributions`` of a token under ``model``'s settings."""
    term, active = model.term(ctx.state, ctx.problem)
    return StepPass(model, term, bool(active))


def load(ctx: StepContext, p: StepPass) -> None:
    """(Re)load the document's bookkeeping from the current state: the label term's current
    weights and augmentation with the pass's scratch, then the sampler's own."""
    term: Term = p.model.term(ctx.state, ctx.problem)[0]
    t = p.term
    if t.c.shape != (4, term.eta_kt.shape[1]):   # the term's tasks changed (MCMedLDA's on)
        p.term = _with_scratch(term, ctx.problem.K)
    else:
        p.term = term._replace(A=t.A, c=t.c, v=t.v, exp_prob=t.exp_prob, exp_alias=t.exp_alias)
    stepping_of(p).load_document(ctx, p)
    p.seen = tuple(a.copy() for a in watched(ctx, p))


def watched(ctx: StepContext, p: StepPass) -> tuple[Array, ...]:
    """What the pass's bookkeeping derives from: the document's z and its label term."""
    t: Term = p.model.term(ctx.state, ctx.problem)[0]
    d = ctx.doc
    return (ctx.state.z[ctx.p0:ctx.p1], t.eta_kt, t.b[:, d], t.w[:, d], t.r[:, d])


def sync(ctx: StepContext, p: StepPass) -> bool:
    """Reload the document if the chain changed it (or its weights) since the pass's last
    step; return whether it did."""
    if all(np.array_equal(a, b) for a, b in zip(watched(ctx, p), p.seen)):
        return False
    load(ctx, p)
    return True


def without_token(ctx: StepContext, i: int) -> tuple[F64, F64, F64, int]:
    """(n_kd, n_kw, n_k) without token i, from ``z`` and the topic counts, and its topic."""
    st, K = ctx.state, ctx.problem.K
    s = int(st.z[i])
    n_kd = np.bincount(st.z[ctx.p0:ctx.p1], minlength=K).astype(np.float64)
    n_kw = st.counts.n_wk[ctx.problem.tokens.words[i]].astype(np.float64)
    n_k = st.counts.n_k.astype(np.float64)
    for n in (n_kd, n_kw, n_k):
        n[s] -= 1
    return n_kd, n_kw, n_k, s


def distributions(ctx: StepContext, p: StepPass, i: int) -> tuple[F64, dict[str, F64]]:
    """The exact conditional of token ``i`` (with the label term's g_d, supervised) and each
    proposal of the pass's sampler at its current topic."""
    n_kd, n_kw, n_k, s = without_token(ctx, i)
    problem, term, d = ctx.problem, p.term, ctx.doc
    T = term.eta_kt.shape[1]
    g = None
    if T and p.marginal:
        g = marginal_g(p.model.loss_function, term.eta_kt, term.y[:, d],
                       term.r[:, d], n_kd, ctx.n_tokens)
    elif T:
        g = supervised_g(term.eta_kt, term.b[:, d], term.w[:, d], term.r[:, d], n_kd,
                         ctx.n_tokens)
    exact = exact_conditional(n_kd, n_kw, n_k, problem.alpha, problem.beta, problem.n_words, g)
    return exact, stepping_of(p).proposals(ctx, p, i, n_kd, n_kw, n_k, s, g)


def step(ctx: StepContext, p: StepPass, proposals: dict[str, F64]) -> TokenMove:
    """Resample the pass's next token (``p.position``) from the distributions ``proposals``
    (``distributions``'s), counted in the info record as the sweep counts it."""
    i = ctx.p0 + p.position
    ctx.state.topics_moved()
    move = stepping_of(p).step_token(ctx, p, i, proposals)
    p.position += 1
    p.seen = tuple(a.copy() for a in watched(ctx, p))   # the pass's own move is no change
    ctx.info[info_layout.TOKENS] += 1
    ctx.info[info_layout.CHANGED] += move.new != move.old
    return move


REPLAY_STREAM = 0x5EC8   # the warm-up's throwaway stream (never the chain's)


def warm_up(problem: Problem, state: State) -> None:
    """Compile the replay's numba code (the proposals' draws and ratios, the label term's
    bookkeeping, the document's load) by stepping every token of the first document with
    tokens (every proposal kind the settings draw), on a copy of ``state`` with a throwaway
    stream: the chain is untouched. Nothing for a sampler without stepping or a chain in its
    LDA initialisation."""
    model = problem.model
    if not model.topic_sampler.stepping or model.initialising(state):
        return
    ptr = problem.tokens.doc_ptr
    doc = int(np.flatnonzero(np.diff(ptr))[0])
    ctx = StepContext(problem, state.copy(), doc, int(ptr[doc]), int(ptr[doc + 1]),
                      seed_state(0, stream=REPLAY_STREAM),
                      np.zeros(info_layout.size(len(model.proposal_kinds))))
    p = start_pass(ctx, model)
    while p.position < ctx.n_tokens:
        step(ctx, p, distributions(ctx, p, ctx.p0 + p.position)[1])


__all__ = ["MHStep", "StepContext", "StepPass", "Stepping", "TokenMove", "distributions",
           "doc_proposal", "exact_conditional", "exp_proposal", "load", "marginal_g",
           "normalize_log", "preview", "record_mh_step", "start_pass", "step", "supervised_g", "sync",
           "warm_up", "without_token", "word_proposal"]
