"""LightLDA's Metropolis-Hastings proposals, O(1) per token for LDA and O(T) per proposal with
T label tasks (Zheng et al. 2015 sec. 2.3, 3.3; ``kernels.light``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, I64, Rng
from ..kernels import light, supervised as label_term, word_tables
from ..kernels.alias import alias_from_uniform, build_alias
from ..kernels.counts import Counts, Dirichlet
from ..kernels.supervised import Term
from ..parts import MH_HELP, LiveSetting, Parameters
from ..problem import Problem
from . import MAX_MH_STEPS, REGISTRY, TopicSampler
from .alias import TABLE_FIELDS, check_tables
from .stepping import (StepContext, StepPass, TokenMove, doc_proposal, exp_proposal,
                       record_mh_step, word_proposal)

COMPOSITIONS = {"cycle": light.CYCLE, "mixture": light.MIXTURE}


class LightArrays(NamedTuple):
    """The current document's count row ``ndk`` (zero between documents), the Walker table of
    alpha for the doc proposal, and the word tables (stale word proposal; placeholders of
    shape (1, 1) otherwise, whose Walker scratch also builds the exp table)."""

    ndk: I32
    alpha_prob: F64
    alpha_alias: I32
    tables: word_tables.Tables


@REGISTRY.register
@dataclass(frozen=True)
class Light(TopicSampler):
    """The light sampler: ``mh_steps`` Metropolis-Hastings steps per token with the doc, word
    and (supervised models) exp proposals.

    Parameters
    ----------
    mh_steps : int
        Steps per token.
    composition : {"cycle", "mixture"}
        Run the kinds in turn, or pick one at random each step.
    p_doc : float
        LDA: the probability of the doc proposal in a mixture.
    word_proposal : {"exact", "stale"}
        ``"exact"``: q_w ∝ n_kw + beta from the current state, table-free; ``"stale"``:
        LightLDA's stale alias tables, only approximately invariant (``kernels.light``).
    proposal_weights : tuple of 3 floats, optional
        Supervised models: the doc, word and exp proposals' probabilities in a mixture
        (default equal); a cycle runs the kinds with a positive weight. A zero switches one off.
    """

    name = "light"
    stepping = "LightLDA MH proposals"
    doc_rows = False

    mh_steps: int = 2
    composition: str = "cycle"
    p_doc: float = 0.5
    word_proposal: str = "exact"
    proposal_weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "word_proposal", check.choice("word_proposal", self.word_proposal,
                                                 ("exact", "stale")))
        # the class's answer for this instance: stale word tables hold the token they serve,
        # so only approximately invariant (docs/math.md); the exact word proposal is exact
        set_(self, "exact", not self.stale)
        set_(self, "composition", check.choice("composition", self.composition,
                                               sorted(COMPOSITIONS)))
        set_(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                             high=MAX_MH_STEPS))
        set_(self, "p_doc", check.number("p_doc", self.p_doc, low=0.0, high=1.0, low_open=True,
                                         high_open=True))
        pw = self.proposal_weights
        if pw is not None:
            if isinstance(pw, (str, bytes)) or not isinstance(pw, (tuple, list, np.ndarray)):
                raise TypeError(f"proposal_weights must be 3 numbers (doc, word, exp) or None, "
                                f"got {type(pw).__name__}")
            pw = tuple(check.number(f"proposal_weights[{j}]", x, low=0.0)
                       for j, x in enumerate(pw))
            if len(pw) != 3 or max(pw) <= 0:
                raise ValueError(f"proposal_weights must be 3 non-negative numbers (doc, word, "
                                 f"exp) with a positive sum, got {self.proposal_weights!r}")
            top = max(pw)   # scaled so the sum cannot overflow: same mixture
            set_(self, "proposal_weights", tuple(x / top for x in pw) if top > 1e300 else pw)

    @property
    def stale(self) -> bool:
        return self.word_proposal == "stale"

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        return light.SUPERVISED_KINDS if supervised else light.KINDS

    def ignored(self, model: Parameters) -> tuple[str, ...]:
        # LDA has no exp proposal to weigh; a supervised model weighs all three kinds
        return ("p_doc",) if model.supervised else ("proposal_weights",)

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        # what a control shows is what the kernel uses: a cycle runs the kinds with a positive
        # weight in turn (on/off), a mixture draws one with the weights' probabilities
        cycle = self.composition == "cycle"
        if model.supervised:
            mix = LiveSetting(
                "proposal_weights", "use" if cycle else "mix", "toggles" if cycle else "mix",
                options=light.SUPERVISED_KINDS,
                help="Which proposals the cycle runs in turn (doc: the document's topics, "
                     "word: the word's, exp: the label term)" if cycle else
                     "Probability of drawing each proposal (doc, word, exp) at a step")
        else:
            mix = LiveSetting("p_doc", "mix doc", "fraction", active=not cycle,
                              help="Unused in a cycle (doc and word proposals alternate); "
                                   "choose composition mixture to set it" if cycle else
                                   "Probability of the doc proposal at a step (the word "
                                   "proposal otherwise)")
        return (LiveSetting("mh_steps", "MH steps", "int", low=1, high=MAX_MH_STEPS,
                            help=MH_HELP),
                LiveSetting("composition", "composition", "choice",
                            options=tuple(COMPOSITIONS),
                            help="How the proposals combine: cycle runs each in turn, mixture "
                                 "draws one at random each step"), mix)

    def _weights(self) -> F64:
        return np.asarray(self.proposal_weights or (1.0, 1.0, 1.0))

    def cycle_order(self, supervised: bool) -> I64:
        """The kinds a cycle runs in turn: doc, word (LDA); those with a positive weight."""
        if not supervised:
            return np.arange(len(light.KINDS), dtype=np.int64)
        return np.flatnonzero(self._weights() > 0).astype(np.int64)

    def kind_cumulative(self, supervised: bool) -> F64:
        """Cumulative mixture probabilities of the kinds."""
        if not supervised:
            return np.array([self.p_doc, 1.0])
        pw = self._weights()
        cum = np.cumsum(pw / pw.sum())
        cum[-1] = 1.0
        return cum

    def settings(self, problem: Problem, own: LightArrays, supervised: bool) -> light.Settings:
        return light.Settings(self.mh_steps, COMPOSITIONS[self.composition],
                              self.cycle_order(supervised), self.kind_cumulative(supervised),
                              self.stale, problem.symmetric, own.alpha_prob,
                              own.alpha_alias, own.ndk)

    def allocate(self, problem: Problem) -> LightArrays:
        K = problem.K
        # exact proposals need no tables: numba still wants arrays of the right rank
        tables = (word_tables.allocate(problem.n_words, K) if self.stale
                  else word_tables.allocate(1, 1, work_K=K))
        return LightArrays(np.zeros(K, np.int32), np.zeros(K), np.zeros(K, np.int32), tables)

    def saved_fields(self) -> Mapping[str, str]:
        # the word tables are state only with the stale word proposal (exact: placeholders)
        return TABLE_FIELDS if self.stale else {}

    def refresh(self, problem: Problem, own: LightArrays) -> None:
        build_alias(problem.alpha, own.alpha_prob, own.alpha_alias, own.tables.work)

    def validate(self, problem: Problem, own: LightArrays) -> None:
        if self.stale:
            check_tables(own.tables, problem.K)

    def state_bytes(self, problem: Problem) -> float:
        return 12.0 * problem.n_words * problem.K if self.stale else 0.0

    def sweep(self, problem: Problem, counts: Counts, own: LightArrays, term: Term,
              supervised: bool, rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        light.light_sweep(problem.tokens, counts, Dirichlet(problem.alpha, problem.beta),
                          self.settings(problem, own, supervised), own.tables, term, rng,
                          d_start, d_end, info)

    # ------------------------------------------------------------------ the replay
    # ``samplers.stepping`` (the token inspector's) steps a document token by token as
    # ``light_sweep`` would, with the kernel's own functions (its draws, ratios and
    # acceptance), so what it shows is the sweep's arithmetic bit for bit
    # (tests/test_inspector.py replays documents against the kernel).
    def begin_pass(self, ctx: StepContext, p: StepPass) -> None:
        """The pass's own count row and the ring of draw-ahead uniforms and kinds."""
        K = ctx.problem.K
        p.ndk = np.zeros(K, np.int32)
        p.U = np.empty((light.RING, 3 * self.mh_steps))
        p.kinds = np.empty((light.RING, self.mh_steps), np.int64)

    def first_draws(self, ctx: StepContext, p: StepPass) -> None:
        """The first ``LEAD`` tokens' uniforms, drawn at the document's start as the sweep does."""
        for j in range(ctx.p0, min(ctx.p0 + light.LEAD, ctx.p1)):
            self._draw_uniforms(ctx, p, j)

    def _draw_uniforms(self, ctx: StepContext, p: StepPass, j: int) -> None:
        """Draw token j's uniforms and kinds into the pass's ring, as the sweep draws them
        ``LEAD`` tokens ahead."""
        assert p.U is not None and p.kinds is not None   # begin_pass made them
        supervised = p.active   # the kinds the sweep draws from: with the label term on
        light._draw_token(p.U[j % light.RING], p.kinds[j % light.RING],
                          COMPOSITIONS[self.composition], self.cycle_order(supervised),
                          self.kind_cumulative(supervised), ctx.rng)

    def load_document(self, ctx: StepContext, p: StepPass) -> None:
        """n_kd, the label term's rows and the exp table (``light.load_document``)."""
        assert p.ndk is not None   # begin_pass made it
        supervised, K = p.active, ctx.problem.K
        p.ndk[:] = 0
        light.load_document(ctx.doc, ctx.p0, ctx.p1, ctx.state.z, p.ndk, p.term,
                            light.uses_exp_table(COMPOSITIONS[self.composition],
                                                 self.cycle_order(supervised),
                                                 self.kind_cumulative(supervised)),
                            np.zeros(K), np.zeros(K, np.int32))

    def proposals(self, ctx: StepContext, p: StepPass, i: int, n_kd: F64, n_kw: F64,
                  n_k: F64, s: int, g: F64 | None) -> dict[str, F64]:
        """Each proposal distribution at the token's current topic ``s``, with the kernels'
        alpha and beta (the problem's: learned or the model's)."""
        problem, term, d = ctx.problem, p.term, ctx.doc
        w = int(problem.tokens.words[i])
        out = {"doc": doc_proposal(n_kd, problem.alpha, s)}
        out["word"] = self.stale_table(ctx, w, n_kw, n_k) if self.stale \
            else word_proposal(n_kw, problem.beta, s)
        T = term.eta_kt.shape[1]
        if T and "exp" in self.kinds(p.active) and p.marginal:
            slope = p.model.loss_function.slope_at_zero(term.y[:, d])
            out["exp"] = exp_proposal(term.eta_kt, slope, np.zeros(T), ctx.n_tokens)
        elif T and "exp" in self.kinds(p.active):
            out["exp"] = exp_proposal(term.eta_kt, term.b[:, d], term.w[:, d], ctx.n_tokens)
        return out

    def stale_table(self, ctx: StepContext, w: int, n_kw: F64, n_k: F64) -> F64:
        """The stale word proposal the token's next word step draws from: the word's stored
        table, or (its supply used up) the one ``word_tables.ensure`` will build from the
        counts without the token."""
        tables, problem = ctx.state.sampler.tables, ctx.problem
        if tables.used[w] < problem.K:
            q = tables.q[w].copy()
        else:
            beta = problem.beta
            q = (n_kw + beta) / (n_k + problem.n_words * beta)
        return q / q.sum()

    def step_token(self, ctx: StepContext, p: StepPass, i: int,
                   proposals: dict[str, F64]) -> TokenMove:
        """``light_sweep``'s token body, step by step: the same draws, the same ratios (the
        kernel's functions), each step recorded."""
        assert p.ndk is not None and p.U is not None and p.kinds is not None   # begin_pass
        st, problem = ctx.state, ctx.problem
        j = i + light.LEAD
        if j < ctx.p1:
            self._draw_uniforms(ctx, p, j)
        n_kd = np.bincount(st.z[ctx.p0:ctx.p1], minlength=problem.K).astype(np.float64)
        z, n_k, ndk = st.z, st.counts.n_k, p.ndk
        tokens = problem.tokens
        word = int(tokens.words[i])
        nwk = st.counts.n_wk[word]
        own: LightArrays = st.sampler
        tables = own.tables
        K, T, beta = problem.K, p.term.eta_kt.shape[1], problem.beta
        V_beta = beta * problem.n_words
        alpha = problem.alpha
        alpha_sum = 0.0
        for a_k in alpha:  # in the kernel's order, so the sum has the kernel's bits
            alpha_sum += a_k
        stale = self.stale
        u_i, kinds_i = p.U[i % light.RING], p.kinds[i % light.RING]
        t_ = p.term
        eta_kt, A, v = t_.eta_kt, t_.A, t_.v
        old = int(z[i])
        ndk[old] -= 1
        nwk[old] -= 1
        n_k[old] -= 1
        n_kd[old] -= 1
        g_s = 0.0
        if T > 0:
            label_term.token_coupling(t_.factor, eta_kt, t_.c, old, v)
            g_s = label_term.g_value(t_.factor, t_.loss_params, A, eta_kt, t_.c, v, old)
        s = old
        steps = []
        for step in range(self.mh_steps):
            kind = int(kinds_i[step])
            u01, u_acc = u_i[3 * step + 1], u_i[3 * step + 2]
            rebuilt = False
            if kind == light.DOC:
                q = doc_proposal(n_kd.copy(), alpha, s)
                t = light.draw_doc_proposal(z, ctx.p0, ctx.n_tokens, alpha_sum,
                                            own.alpha_prob, own.alpha_alias,
                                            problem.symmetric, u01)
            elif kind == light.WORD and not stale:
                q = word_proposal(nwk.astype(np.float64), beta, s)
                t = light.draw_word_proposal(z, tokens.word_ptr, tokens.word_tok, word, K, beta,
                                             u01)
            elif kind == light.WORD:
                rebuilt = bool(tables.used[word] >= K)   # ensure rebuilds exactly then
                word_tables.ensure(word, nwk, n_k, tables.ones, beta, V_beta, tables.samples,
                                   tables.q, tables.mass, tables.used, tables.prob,
                                   tables.alias, tables.work, ctx.rng)
                q = tables.q[word] / tables.q[word].sum()
                t = word_tables.next_sample(word, tables.samples, tables.used)
            else:
                q = proposals["exp"]
                t = alias_from_uniform(t_.exp_prob, t_.exp_alias, u01)
            t = int(t)
            if t == s:
                steps.append(record_mh_step(ctx.info, kind, s, t, 1.0, u_acc, True, q,
                                            rebuilt))
                continue
            if kind == light.DOC:
                a = light.doc_step_ratio(nwk[t], nwk[s], n_k[t], n_k[s], beta, V_beta)
            elif kind == light.WORD and not stale:
                a = light.word_step_ratio(ndk[t], ndk[s], alpha[t], alpha[s], n_k[t], n_k[s],
                                          V_beta)
            else:
                q_t, q_s = (tables.q[word, t], tables.q[word, s]) if kind == light.WORD \
                    else (1.0, 1.0)
                a = light.table_step_ratio(ndk[t], ndk[s], alpha[t], alpha[s], nwk[t], nwk[s],
                                           n_k[t], n_k[s], beta, V_beta, q_t, q_s)
            g_t = 0.0
            if T > 0:
                g_t = label_term.g_value(t_.factor, t_.loss_params, A, eta_kt, t_.c, v, t)
                a *= light.supervised_step_factor(kind, g_t, g_s, A[t], A[s])
            accepted = bool(light.accepts(a, u_acc))
            steps.append(record_mh_step(ctx.info, kind, s, t, a, u_acc, accepted, q, rebuilt))
            if accepted:
                s, g_s = t, g_t
                z[i] = s   # doc and word proposals must see token i at its current state
        z[i] = s
        ndk[s] += 1
        nwk[s] += 1
        n_k[s] += 1
        if s != old and T > 0:
            label_term.move(eta_kt, t_.c, old, s)
        return TokenMove(old, s, tuple(steps), proposals)
