"""Token inspector: resample one document of a live Session one token at a time, and show
what the sampler does with each token (for teaching MCMC for topic models).

For every token it reports the exact conditional p(k | rest) (docs/math.md sec. 2) next to each
proposal distribution q(k), and each Metropolis-Hastings step of the light samplers: the
proposal kind drawn, the current topic s, the proposed t, the ratio
p(t) q(s | t) / (p(s) q(t | s)), the acceptance probability min(1, ratio), the uniform and the
decision. Gibbs samplers draw from the exact conditional: one "step" with acceptance 1.

Why the numbers are the sweep's own. A token is resampled with the kernels' functions:
the proposal draws (``light.draw_doc_proposal`` ...), the acceptance arithmetic
(``light.doc_step_ratio`` ... ``light.accepts``) and the supervised bookkeeping
(``kernels.supervised``) are the very ones ``light_sweep`` inlines, and the Gibbs conditional
is summed with ``gibbs.conditional_weight``. Only the loop over MH steps is written out, in
Python, so it can record every step; it lives with the sampler it mirrors (the
``step_token``, ``load_document`` and ``proposals`` of ``samplers.gibbs.Gibbs`` and
``samplers.light.Light``), and a sampler without them declares so (``TopicSampler.stepping``
empty), which the inspector names. The random stream is read exactly as the sweep reads
it (each token's uniforms drawn ``light.LEAD`` tokens ahead, the stale word tables' own
draws in between), so stepping a whole document from the same generator state gives the
sweep's chain, bit for bit: ``tests/test_inspector.py`` checks it for every sampler. The
exact conditional and the proposal distributions shown are computed separately, in plain
numpy from ``z`` (``exact_conditional`` ...), and the tests check the kernel's ratios
against them.

Random numbers. The inspector draws from its own xoshiro stream (``seed``), not from the
session's: a document is inspected out of the sweep's order, so reading the session's stream
would silently turn the session's chain into another one, while the user only asked to look
at one document. Its moves are still moves of the chain (each leaves the posterior
invariant), so ``session.run(...)`` continues from the inspected state. Set ``rng`` to a copy
of any generator state to replay a sweep exactly.

Settings (``mh_steps``, ``composition``, proposal weights) are read from ``session.model``
when a pass over the document starts, as a sweep reads them per block. If the session
samples between two steps, the document's bookkeeping is reloaded from the new state at the
next step (``TokenStep.reloaded``).
"""

from __future__ import annotations

import colorsys
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import F64, I32, I64, Array, Rng
from .kernels import info as info_layout, supervised
from .kernels.rng import seed_state
from .samplers import REGISTRY as SAMPLERS
from .samplers.gibbs import Gibbs
from .samplers.light import Light
# the proposals and the MH step's record are the samplers' stepping's (importable from here)
from .samplers.stepping import MHStep, doc_proposal, exp_proposal, word_proposal  # noqa: F401
from .samplers.stepping import normalize_log as _normalize_log

if TYPE_CHECKING:
    from .losses import Loss
    from .models.lda import LDA
    from .problem import State

# the inspector's random stream: far from the Session's stream 0 and the tests' small ones
INSPECTOR_STREAM = 0x5EC7

STEP_COLUMNS = ["step", "kind", "current", "proposed", "ratio", "acceptance", "u", "accepted",
                "table_rebuilt"]
SAMPLER_NAMES = {name: SAMPLERS.get(name).stepping for name in SAMPLERS
                 if SAMPLERS.get(name).stepping}   # the samplers the inspector can step
# the proposal kinds in plain words, as the inspector's widget names them (exp: the label
# term's proposal)
KIND_NAMES = {"doc": "doc", "word": "word", "exp": "label", "conditional": "exact conditional"}


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names)


def sampler_title(model: LDA) -> str:
    """The model and its topic sampler in plain words, as the inspector's widget names them:
    the model's class and how its sampler resamples a token, e.g. ``"LightMedLDA · light
    sampler (doc, word proposals, cycled; label proposal off; 6 Metropolis-Hastings steps per
    token)"`` or ``"LDA · collapsed Gibbs sampler (each token drawn from its exact
    conditional)"``. Read from the model's settings (live ones included), so it is what the
    sampler does now."""
    name = type(model).__name__
    ts = model.topic_sampler
    if isinstance(ts, Gibbs):
        return f"{name} · collapsed Gibbs sampler (each token drawn from its exact conditional)"
    if not isinstance(ts, Light):   # a future sampler with stepping: its own name for it
        return f"{name} · {model.sampler} sampler ({ts.stepping or 'no token stepping'})"
    sup = model.supervised
    kinds = [KIND_NAMES.get(k, k) for k in ts.kinds(sup)]
    if ts.composition == "cycle":
        on = [kinds[int(j)] for j in ts.cycle_order(sup)]
        how = f"{_listed(on)} proposals, cycled"
    else:
        p = np.diff(ts.kind_cumulative(sup), prepend=0.0)
        on = [k for k, q in zip(kinds, p) if q > 0]
        if np.allclose(p[p > 0], p[p > 0][0]):
            how = f"{_listed(on)} proposals, mixed at random"
        else:
            how = "mixed at random: " + ", ".join(f"{k} {q:.2g}" for k, q in zip(kinds, p)
                                                  if q > 0)
    off = [k for k in kinds if k not in on]
    if off:
        how += f"; {_listed(off)} proposal{'s' if len(off) > 1 else ''} off"
    if ts.stale:
        how += "; stale word tables"
    steps = "step" if ts.mh_steps == 1 else "steps"
    return f"{name} · light sampler ({how}; {ts.mh_steps} Metropolis-Hastings {steps} per token)"


# ---------------------------------------------------------------------- the distributions
# Plain numpy from the counts, independent of the kernels' bookkeeping: what the inspector
# shows as "exact", and what the tests check the kernels' ratios against (the proposals
# shown beside it are ``samplers.stepping``'s).

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
    return _normalize_log(logp if g is None else logp + g)


# ---------------------------------------------------------------------- records

@dataclass(frozen=True)
class TokenStep:
    """What resampling one token did, with the distributions it was resampled from.

    Attributes
    ----------
    doc, position, token : int
        The document, the token's position in it and its index in the corpus.
    word : str
    word_id : int
    old_topic, new_topic : int
    sampler : str
        The model's topic sampler, one with token stepping (a key of ``SAMPLER_NAMES``).
    steps : tuple of MHStep
        The token's MH steps in order (one for Gibbs).
    exact : ndarray
        p(k | rest) with the token removed, computed from ``z`` in numpy (``exact_conditional``).
    proposals : dict of str to ndarray
        Each proposal distribution of the sampler at the token's old topic (``proposal_doc``
        ...); Gibbs: ``{"conditional": the kernel's conditional}``.
    reloaded : bool
        The session sampled since the inspector's previous step, so the document was reloaded
        from the new state first.
    """

    doc: int
    position: int
    token: int
    word: str
    word_id: int
    old_topic: int
    new_topic: int
    sampler: str
    steps: tuple[MHStep, ...]
    exact: F64 = field(repr=False)
    proposals: dict[str, F64] = field(repr=False)
    reloaded: bool = False

    def conditional_table(self, tidy: bool = False) -> pd.DataFrame:
        """One row per topic: ``topic``, ``exact`` and one ``proposal_<kind>`` column per
        proposal (at the old topic); ``tidy=True`` gives (topic, distribution, probability)
        rows for a chart."""
        return _conditional_frame(self.exact, self.proposals, tidy)

    def steps_frame(self) -> pd.DataFrame:
        """One row per MH step: ``step``, ``kind``, ``current``, ``proposed``, ``ratio``,
        ``acceptance``, ``u``, ``accepted``, ``table_rebuilt``."""
        return pd.DataFrame(
            [{"step": n + 1, "kind": st.kind, "current": st.current, "proposed": st.proposed,
              "ratio": st.ratio, "acceptance": st.acceptance, "u": st.u,
              "accepted": st.accepted, "table_rebuilt": st.table_rebuilt}
             for n, st in enumerate(self.steps)], columns=STEP_COLUMNS)

    def describe(self) -> str:
        """The token's resampling in words, one line per step."""
        head = (f"token {self.position} of document {self.doc}, {self.word!r}, at topic "
                f"{self.old_topic}")
        note = " (the session sampled meanwhile: document reloaded)" if self.reloaded else ""
        if self.sampler == "gibbs":
            lines = [f"{head}{note}: {self.steps[0].describe()}."]
        else:
            lines = [f"{head}{note}:"] + [f"  step {n + 1}: {st.describe()}."
                                          for n, st in enumerate(self.steps)]
        lines.append(f"  now at topic {self.new_topic} "
                     f"(exact p = {self.exact[self.new_topic]:.3g}).")
        return "\n".join(lines)


def _conditional_frame(exact: F64, proposals: dict[str, F64], tidy: bool) -> pd.DataFrame:
    df = pd.DataFrame({"topic": np.arange(len(exact)), "exact": exact,
                       **{f"proposal_{k}": q for k, q in proposals.items()}})
    if not tidy:
        return df
    return df.melt(id_vars="topic", var_name="distribution", value_name="probability")


# ---------------------------------------------------------------------- the inspector

@dataclass
class _Pass:
    """One pass over the document: the settings read at its start and the per-document
    arrays the sweep would keep in its locals."""

    model: LDA
    position: int = 0
    ndk: I32 | None = None               # light: the document's n_kd row
    factor: int = supervised.AUGMENTED  # the supervised factor's kernel code, its parameters
    loss_params: F64 | None = None
    A: F64 | None = None
    c: F64 | None = None
    v: F64 | None = None
    exp_prob: F64 | None = None
    exp_alias: I32 | None = None
    U: F64 | None = None                 # light: uniforms, rows j % light.RING
    kinds: I64 | None = None
    seen: tuple[Array, ...] = ()         # the state the bookkeeping was derived from
    term: supervised.Term | None = None  # the label term, with the pass's own scratch
    G: F64 | None = None                 # collapsed Gibbs: the label matrix when it uses it,
    qq: F64 | None = None                # and the document's q_k


class _Stepping(Protocol):
    """A topic sampler with token stepping (``TopicSampler.stepping`` not empty): what the
    inspector calls (``samplers.gibbs.Gibbs``, ``samplers.light.Light``)."""

    def begin_pass(self, insp: TokenInspector, p: _Pass) -> None: ...

    def first_draws(self, insp: TokenInspector, p: _Pass) -> None: ...

    def load_document(self, insp: TokenInspector, p: _Pass) -> None: ...

    def proposals(self, insp: TokenInspector, i: int, n_kd: F64, n_kw: F64, n_k: F64, s: int,
                  g: F64 | None, term: supervised.Term) -> dict[str, F64]: ...

    def step_token(self, insp: TokenInspector, p: _Pass, i: int,
                   reloaded: bool) -> TokenStep: ...


class TokenInspector:
    """Step through one document of a live session token by token, as its sampler would.

    Parameters
    ----------
    session : Session
        A session whose model's topic sampler has token stepping (``TopicSampler.stepping``;
        ``SAMPLER_NAMES`` lists them), e.g. ``LDA``, ``MedLDA`` or ``LightMedLDA``; another
        sampler is refused, naming those.
    doc : int
        The document (row of ``session.corpus``).
    seed : int
        Seed of the inspector's own random stream (see the module docstring).

    Attributes
    ----------
    rng : ndarray
        The inspector's xoshiro state; assign a copy of another generator's state to replay
        it (the tests replay a sweep's).
    records : list of TokenStep
        Every step made, in order.
    info : ndarray
        The kernels' info record (``kernels.info``) for the inspector's steps: proposals,
        acceptances and summed acceptance probabilities per kind, tokens, changes.

    Examples
    --------
    >>> insp = TokenInspector(session, doc=3)          # doctest: +SKIP
    >>> rec = insp.step(); print(rec.describe())       # doctest: +SKIP
    >>> rec.conditional_table()                        # doctest: +SKIP
    >>> insp.run_document(); session.run(10)           # doctest: +SKIP
    """

    def __init__(self, session: Any, doc: int = 0, *, seed: int = 0) -> None:
        for name in ("state", "corpus", "model", "_lock"):
            if not hasattr(session, name):
                raise TypeError(f"session must be a topicsup Session, got "
                                f"{type(session).__name__}")
        sampler = session.model.sampler
        # the sampler part declares whether it has stepping (a model's own "gibbs", such as
        # HDP-LDA's, is not LDA's)
        if not session.model.topic_sampler.stepping:
            raise ValueError(f"TokenInspector steps the topic samplers "
                             f"{sorted(SAMPLER_NAMES)} of LDA and the supervised models; "
                             f"{type(session.model).__name__} samples with sampler "
                             f"{sampler!r}, which has no token stepping yet "
                             f"({type(session.model.topic_sampler).__name__}): use "
                             f"LDA(sampler='light') or LDA(sampler='gibbs') to inspect tokens")
        corpus = session.corpus
        doc = self.check_document(corpus, doc)
        self.session = session
        self.doc = doc
        self.p0, self.p1 = int(corpus.doc_ptr[doc]), int(corpus.doc_ptr[doc + 1])
        self._rng = seed_state(seed, stream=INSPECTOR_STREAM)
        self.records: list[TokenStep] = []
        self.info = np.zeros(info_layout.size(len(session.model.proposal_kinds)))
        self._pass: _Pass | None = None

    @staticmethod
    def check_document(corpus: Any, doc: Any, argument: str | None = "doc") -> int:
        """``doc`` as the number of a document of ``corpus`` with tokens, else refused: the
        one check of the inspector's document and of its widget's picker. The messages name
        the document and the valid range (``"document 100000 is out of range: this corpus
        has 400 documents, 0 to 399"``) and, unless ``argument`` is None (the widget's plain
        words), the argument too."""
        n = int(corpus.n_docs)
        if argument is not None:
            doc = check.integer(argument, doc)
        elif isinstance(doc, (bool, np.bool_)) or not isinstance(doc, (int, np.integer)):
            raise TypeError(f"document must be a whole number, got {doc!r}")
        doc = int(doc)
        if not 0 <= doc < n:
            also = f" ({argument} must be an integer in [0, {n - 1}])" if argument else ""
            raise ValueError(f"document {doc} is out of range: this corpus has {n} "
                             f"document{'s' if n != 1 else ''}, 0 to {n - 1}{also}")
        if corpus.doc_ptr[doc + 1] == corpus.doc_ptr[doc]:
            raise ValueError(f"document {doc} has no tokens to inspect: choose another one "
                             f"(0 to {n - 1})")
        return doc

    @property
    def rng(self) -> Rng:
        """The inspector's xoshiro state (``uint64[4]``, its own). Assign a generator state to
        replay a sweep: it is checked and copied, so the session's stream is never advanced
        through it."""
        return self._rng

    @rng.setter
    def rng(self, state: Any) -> None:
        self._rng = check.generator_state("rng", state)

    # ------------------------------------------------------------------ position
    @property
    def n_tokens(self) -> int:
        """Tokens in the document."""
        return self.p1 - self.p0

    @property
    def position(self) -> int:
        """Position of the next token to step (``n_tokens`` once a pass is finished)."""
        return 0 if self._pass is None else self._pass.position

    @property
    def done(self) -> bool:
        """Whether the current pass has stepped every token; the next step starts a new
        pass."""
        return self._pass is not None and self._pass.position == self.n_tokens

    @property
    def last(self) -> TokenStep | None:
        """The latest step's record."""
        return self.records[-1] if self.records else None

    @property
    def sampler(self) -> str:
        """The session model's topic sampler (a key of ``SAMPLER_NAMES``)."""
        return self.session.model.sampler

    def __repr__(self) -> str:
        return (f"TokenInspector(doc={self.doc}, token {self.position} of {self.n_tokens}, "
                f"{type(self.session.model).__name__} sampler={self.sampler!r}, "
                f"{len(self.records)} steps made)")

    # ------------------------------------------------------------------ stepping
    def step(self) -> TokenStep:
        """Resample the next token of the document as the model's sampler would; return what
        happened. After the last token the next call starts a new pass (as the next sweep
        would)."""
        with self.session.locked():
            if self._pass is None or self.done:
                self._begin_pass()
            reloaded = self._sync()
            p = cast(_Pass, self._pass)   # begun above
            i = self.p0 + p.position
            self.session.state.topics_moved()
            rec = cast(_Stepping, p.model.topic_sampler).step_token(self, p, i, reloaded)
            p.position += 1
            self._remember_state()
            self.info[info_layout.TOKENS] += 1
            self.info[info_layout.CHANGED] += rec.new_topic != rec.old_topic
        self.records.append(rec)
        return rec

    def run_document(self) -> list[TokenStep]:
        """Step the remaining tokens of the current pass (a whole new pass when it is finished
        or not started); return their records."""
        if self.done:
            self._pass = None
        out = [self.step()]
        while not self.done:
            out.append(self.step())
        return out

    def restart(self) -> None:
        """Abandon the current pass: the next step starts a new one at the first token."""
        self._pass = None

    def _begin_pass(self) -> None:
        """Read the settings and load the document, as ``light_sweep`` / ``gibbs_sweep`` do
        at a document's start; draw the first ``LEAD`` tokens' uniforms (light)."""
        model: LDA = self.session.model
        if model.initialising(self.session.state):
            left = int(self.session.state.supervision.lda_init_left[0])
            raise ValueError(f"the chain is in its LDA initialisation ({left} of "
                             f"lda_init_sweeps = {model.lda_init_sweeps} sweeps left), which "
                             f"the inspector does not replay: run those sweeps first")
        K = model.K
        T = model.term(self.session.state, self.session.problem)[0].eta_kt.shape[1]
        p = _Pass(model=model, A=np.zeros(K), c=np.zeros((4, T)), v=np.zeros(T),
                  exp_prob=np.zeros(K), exp_alias=np.zeros(K, np.int32))
        self._pass = p
        # the sampler's own per-pass arrays (__init__ checked that it has stepping)
        cast(_Stepping, model.topic_sampler).begin_pass(self, p)
        self._load_document()
        cast(_Stepping, model.topic_sampler).first_draws(self, p)

    def _load_document(self) -> None:
        """The per-document bookkeeping from the current state: n_kd (light), A_d and the
        coupling c (supervised), the exp table."""
        st, p = self.session.state, cast(_Pass, self._pass)   # the pass being begun or synced
        m = p.model
        term = m.term(st, self.session.problem)[0]
        p.factor, p.loss_params = term.factor, term.loss_params
        # the pass's scratch arrays, which _begin_pass gave it
        p.term = term._replace(A=cast(F64, p.A), c=cast(F64, p.c), v=cast(F64, p.v),
                               exp_prob=cast(F64, p.exp_prob),
                               exp_alias=cast(I32, p.exp_alias))
        cast(_Stepping, m.topic_sampler).load_document(self, p)
        self._remember_state()

    def _remember_state(self) -> None:
        cast(_Pass, self._pass).seen = tuple(a.copy() for a in self._watched())

    def _watched(self) -> tuple[Array, ...]:
        """What the pass's bookkeeping derives from: the document's z and its label term."""
        st, d = self.session.state, self.doc
        t = cast(_Pass, self._pass).model.term(st, self.session.problem)[0]   # called during a pass
        return (st.z[self.p0:self.p1], t.eta_kt, t.b[:, d], t.w[:, d], t.r[:, d])

    def _sync(self) -> bool:
        """Reload the document if the session changed it (or its weights) since the last
        step; return whether it did."""
        now = self._watched()
        if all(np.array_equal(a, b) for a, b in zip(now, cast(_Pass, self._pass).seen)):
            return False
        self._load_document()
        return True

    # ------------------------------------------------------------------ the distributions now
    def _without_token(self, i: int) -> tuple[F64, F64, F64, int]:
        """(n_kd, n_kw, n_k) without token i, from ``z`` and the topic counts, and its topic."""
        st = self.session.state
        K = self.model.K
        s = int(st.z[i])
        n_kd = np.bincount(st.z[self.p0:self.p1], minlength=K).astype(np.float64)
        n_kw = st.counts.n_wk[self.session.corpus.words[i]].astype(np.float64)
        n_k = st.counts.n_k.astype(np.float64)
        for n in (n_kd, n_kw, n_k):
            n[s] -= 1
        return n_kd, n_kw, n_k, s

    @property
    def model(self) -> LDA:
        """The model of the current pass (its settings are read when a pass starts), else the
        session's."""
        return self._pass.model if self._pass is not None else self.session.model

    def distributions(self, i: int) -> tuple[F64, dict[str, F64]]:
        """The exact conditional of token i and each proposal at its current topic."""
        st, m, corpus = self.session.state, self.model, self.session.corpus
        n_kd, n_kw, n_k, s = self._without_token(i)
        # the prior the kernels read (learned, ``LDA(optimize=...)``, or the model's)
        alpha, beta = self.session.problem.alpha, self.session.problem.beta
        g = None
        term = m.term(st, self.session.problem)[0]
        eta_kt, y, b, w_, r = term.eta_kt, term.y, term.b, term.w, term.r
        T = eta_kt.shape[1]
        d = self.doc
        marginal = m.supervised and m.supervised_factor == "marginal"
        if T and marginal:
            g = marginal_g(m.loss_function, eta_kt, y[:, d], r[:, d], n_kd, self.n_tokens)
        elif T:
            g = supervised_g(eta_kt, b[:, d], w_[:, d], r[:, d], n_kd, self.n_tokens)
        exact = exact_conditional(n_kd, n_kw, n_k, alpha, beta, corpus.n_words, g)
        return exact, cast(_Stepping, m.topic_sampler).proposals(self, i, n_kd, n_kw, n_k, s,
                                                                  g, term)

    def conditional_table(self, tidy: bool = False) -> pd.DataFrame:
        """For the next token to step (the first of a new pass once one is finished): one row
        per topic with ``exact`` and one ``proposal_<kind>`` column per proposal of the
        sampler at the token's current topic. ``tidy=True``: (topic, distribution,
        probability) rows."""
        with self.session.locked():
            exact, proposals = self.distributions(self.p0 + self.position % self.n_tokens)
        return _conditional_frame(exact, proposals, tidy)

    def doc_tokens(self) -> pd.DataFrame:
        """The document's tokens with their current topics: ``position``, ``token`` (index in
        the corpus), ``word``, ``topic`` and ``next`` (the token the next step resamples)."""
        corpus = self.session.corpus
        with self.session.locked():
            topics = self.session.state.z[self.p0:self.p1].copy()
        ids = corpus.words[self.p0:self.p1]
        vocab = np.asarray(corpus.vocabulary, dtype=object)
        pos = np.arange(self.n_tokens)
        return pd.DataFrame({"position": pos, "token": pos + self.p0, "word": vocab[ids],
                             "topic": topics.astype(np.int64),
                             "next": pos == self.position % self.n_tokens})

    def steps_frame(self) -> pd.DataFrame:
        """Every MH step made so far, one row each, with the token's ``record`` number,
        ``position`` and ``word`` (see ``TokenStep.steps_frame``)."""
        frames = []
        for n, rec in enumerate(self.records):
            f = rec.steps_frame()
            f.insert(0, "word", rec.word)
            f.insert(0, "position", rec.position)
            f.insert(0, "record", n)
            frames.append(f)
        if not frames:
            return pd.DataFrame(columns=["record", "position", "word"] + STEP_COLUMNS)
        return pd.concat(frames, ignore_index=True)

    # ------------------------------------------------------------------ the samplers' stepping
    def token_record(self, i: int, old: int, new: int, steps: tuple[MHStep, ...],
                     exact: F64, proposals: dict[str, F64], reloaded: bool) -> TokenStep:
        """The record of token ``i`` resampled from ``old`` to ``new`` by ``steps`` (a
        sampler's ``step_token`` returns it)."""
        corpus = self.session.corpus
        w = int(corpus.words[i])
        return TokenStep(self.doc, i - self.p0, i, corpus.vocabulary[w], w, old, int(new),
                         cast(_Pass, self._pass).model.sampler, steps, exact, proposals,
                         reloaded)

    # ------------------------------------------------------------------ checks
    def check_state(self) -> None:
        """Raise ``RuntimeError`` unless the session's state is what the model rebuilds from
        its saved arrays (``validate_state``, then ``refresh_state`` on a copy): counts equal
        to those of ``z``, the light sampler's document row cleared, the weights' kernel view
        current. ``session.run`` may continue after the inspector exactly when this passes."""
        s = self.session
        with s.locked():
            st, model = s.state, s.model
            model.validate_state(st, s.problem)
            fresh = model.allocate_state(s.problem)
            kept, new = model.saved_arrays(st), model.saved_arrays(fresh)
            for k in model.saved_state:
                new[k][...] = kept[k]
            model.refresh_state(fresh, s.problem)
            for k in ("n_wk", "n_k", "n_dk", "eta_kt", "r"):
                a, b = _derived(st, k), _derived(fresh, k)
                # b: the fresh state has the parts a has
                if a is not None and not np.array_equal(a, cast(Array, b)):
                    raise RuntimeError(f"session state {k!r} is not what the model rebuilds "
                                       f"from z and the weights")
            row = getattr(st.sampler, "ndk", None)
            if row is not None and row.any():
                raise RuntimeError("the light sampler's document row ndk is not cleared")


def _derived(state: State, name: str) -> Array | None:
    """A derived array of the state by name: the counts, or the weights' kernel view."""
    if name in state.counts._fields:
        return getattr(state.counts, name)
    sup = state.supervision
    return None if sup is None else getattr(sup.weights, name)


# ---------------------------------------------------------------------- presentation

def topic_colours(K: int) -> list[str]:
    """K distinct light background colours (hex), one per topic, readable under black text:
    hues a golden angle apart, two lightness levels alternating."""
    out = []
    for k in range(K):
        h = (k * 0.381966) % 1.0
        light_level = 0.80 if k % 2 == 0 else 0.70
        r, g, b = colorsys.hls_to_rgb(h, light_level, 0.65)
        out.append(f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}")
    return out


# a token span stays whole: a line breaks between tokens, never inside a word or before its
# topic's subscript (the token inspector's widget keeps its tokens whole the same way)
TOKEN_STYLE = "display:inline-block;white-space:nowrap;"


def document_html(words: Sequence[str] | Array, topics: Sequence[int] | Array, K: int,
                  highlight: int | None = None, labels: Sequence[str] | None = None,
                  max_tokens: int = 200) -> str:
    """A document as the inspector shows it: its words as spans coloured by their assigned
    topic (``topic_colours``), each with the topic in a subscript and the topic's label in its
    tooltip, kept whole (``TOKEN_STYLE``: lines break between tokens only); the tokens of
    ``highlight`` in bold, the others faded. At most ``max_tokens`` words (then an ellipsis).
    HTML-escaped; a str to display (IPython's ``HTML``) or embed."""
    colours = topic_colours(K)
    spans = []
    for word, topic in list(zip(words, topics))[:max_tokens]:
        k = int(topic)
        name = labels[k] if labels is not None and k < len(labels) else f"topic {k}"
        style = f"{TOKEN_STYLE}background:{colours[k]};padding:1px 4px;border-radius:3px;"
        if highlight is not None:
            style += "font-weight:bold;" if k == highlight else "opacity:0.45;"
        spans.append(f'<span class="topicsup-token" data-topic="{k}" '
                     f'title="{html.escape(name)}" style="{style}">{html.escape(str(word))}'
                     f'<sub>{k}</sub></span>')
    more = " &hellip;" if len(words) > max_tokens else ""
    return ('<div class="topicsup-tokens" style="line-height:2.1;max-width:900px">'
            + " ".join(spans) + more + "</div>")
