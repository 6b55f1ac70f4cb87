"""Lesson 2 (``notebooks/course/02_metropolis_hastings.ipynb``): Metropolis-Hastings and
LightLDA's proposals, as the light sampler implements them (``samplers/light.py``,
``kernels/light.py``; docs/math.md sec. 3; Zheng, Yu and Xing 2015 eq. 1, 2, 12, 19, 20 and
Theorem 1).

Everything is checked exactly, on the tokens of a tiny corpus (``tokens()``: 3 documents, 10
tokens, K = 3, an asymmetric alpha), each in several states of the other tokens, with its
exact conditional p by enumeration of the joint (``testing.exact.lda_log_joint_states`` over
the K values of its topic) and the light sampler's proposals as K x K matrices
Q[s, t] = q(t | s) (``samplers.stepping.doc_proposal``, ``word_proposal``):

* ``check_acceptance(acceptance)``: the student's ``acceptance(p, Q, s, t)`` equals
  min(1, p(t) q(s | t) / (p(s) q(t | s))) for every token, state and move s -> t of the doc
  and word proposals; names an inverted ratio, a forgotten or inverted proposal correction,
  a missing min(1, .), q(s | s) read for q(s | t) (Zheng 2015 eq. 19's misprint), the
  transition probability q(t | s) a(s, t) given for the acceptance a(s, t).
* ``check_mh_matrix(mh_matrix)``: the student's ``mh_matrix(p, Q)`` equals the exact MH
  transition matrix of each proposal; then the cycle P_doc P_word and the mixture
  (P_doc + P_word) / 2, built from it, keep pi (Theorem 1). Names a transposed matrix, a
  diagonal without the rejected mass, every proposal accepted, the acceptance without
  q(t | s), and the acceptance mistakes above.
* ``check_broken_kernel(broken, why)``: of the three ``CANDIDATES`` (doc proposal with the
  correction as Zheng 2015 eq. 19 prints it; exact word proposal; uniform proposal), the one
  whose pi P^n drifts from pi (total variation, exact by matrix powers), and why
  (``REASONS``); says why a kernel that keeps pi is right when the student names it.
* ``check_acceptance_rates(session, higher, rate)``: which proposal a light ``Session``'s
  history accepts more after its burn-in, and at what rate (accepted / proposed, from the
  history's ``acceptance_rate`` and ``proposals`` rows); names the burn-in left in, the other
  proposal's rate, the rejection rate.

The notebook's helpers: ``tokens()``, ``Token``, ``CANDIDATES``, ``REASONS``,
``show_candidates()``, ``invariance_table(mh_matrix)``, ``tv_chart()``, ``token_explorer()``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd
from IPython.display import display

from topicsup.arrays import F64
from topicsup.samplers.stepping import doc_proposal, word_proposal
from topicsup.session import Session
from topicsup.testing.exact import lda_log_joint_states, normalize_log, tiny_corpus

from ._feedback import Feedback, StudentError, call, checked, right, wrong

# the tiny corpus every exact check enumerates (word ids; words w0..w3)
DOCS = ((0, 1, 1, 2), (2, 3, 0), (1, 3, 3))
V = 4
K = 3
# asymmetric, so that alpha_s and alpha_t differ and a swapped index shows
ALPHA = (0.5, 0.3, 0.2)
BETA = 0.3
STATES_PER_TOKEN = 4   # states of the other tokens per token: 10 tokens x 4 = 40 cases
SEED = 2
KINDS = ("doc", "word")

# Exact answers (ratios of the same floats in another order) agree to rounding, ~1e-15;
# 1e-9 separates that from every mistake below, whose values differ by 1e-3 or more.
EXACT = 1e-9
# A kernel keeps pi when pi P^n = pi up to rounding: after 50 products of 3 x 3 matrices the
# rounding is below 1e-14 here; the broken candidate moves pi by up to 0.19 (total variation)
# at the first step and 0.30 by the 50th.
INVARIANT = 1e-12
TV_STEPS = 50
# A rate read off a table or a chart rounded to two decimals is within half a unit of the
# second decimal; the rate itself is computed from the history, exactly.
READ_OFF = 0.005
BURN_IN = 20   # check_acceptance_rates: the sweeps left out by default


@dataclass(frozen=True)
class Token:
    """One token of the tiny corpus with the other tokens' topics fixed: the counts without
    it (``n_dk`` of its document, ``n_wk`` of its word, ``n_k``), the prior, and its exact
    conditional ``p`` over the K topics, by enumeration of the joint p(z, w)."""

    position: int
    doc: int
    word: int
    state: int          # which of the STATES_PER_TOKEN states of the others
    n_dk: F64
    n_wk: F64
    n_k: F64
    alpha: F64
    beta: float
    V: int
    p: F64

    @property
    def K(self) -> int:
        return int(self.p.shape[0])

    @property
    def label(self) -> str:
        return (f"token {self.position} (doc {self.doc}, word w{self.word}), others in "
                f"state {self.state}")

    def proposal(self, kind: str) -> F64:
        """Q[s, t] = q(t | s) of the light sampler's ``"doc"`` or (exact) ``"word"``
        proposal, or ``"uniform"``: row s is the proposal drawn while the token is at s."""
        if kind == "doc":
            return np.array([doc_proposal(self.n_dk.copy(), self.alpha, s)
                             for s in range(self.K)])
        if kind == "word":
            return np.array([word_proposal(self.n_wk.copy(), self.beta, s)
                             for s in range(self.K)])
        if kind == "uniform":
            return np.full((self.K, self.K), 1.0 / self.K)
        raise ValueError(f"kind must be 'doc', 'word' or 'uniform', got {kind!r}")


@lru_cache(maxsize=1)
def tokens() -> tuple[Token, ...]:
    """The checks' cases: every token of the tiny corpus (``DOCS``) in ``STATES_PER_TOKEN``
    random states of the others (seeded, so every run and every student sees the same)."""
    corpus = tiny_corpus([list(d) for d in DOCS], n_words=V)
    alpha = np.array(ALPHA)
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    words = np.asarray(corpus.words)
    rng = np.random.default_rng(SEED)
    out = []
    for state in range(STATES_PER_TOKEN):
        z = rng.integers(0, K, corpus.n_tokens)
        for i in range(corpus.n_tokens):
            Z = np.repeat(z[None], K, axis=0)
            Z[:, i] = np.arange(K)   # the K states that differ in token i's topic only
            p = normalize_log(lda_log_joint_states(corpus, K, alpha, BETA, Z))
            others = np.arange(corpus.n_tokens) != i
            d, wd = int(doc_of[i]), int(words[i])
            n_dk, n_wk, n_k = (np.bincount(z[others & mask], minlength=K).astype(np.float64)
                               for mask in (doc_of == d, words == wd, others))
            arrays = (n_dk, n_wk, n_k, alpha.copy(), p)
            for a in arrays:   # shared by every check: a notebook cell must not change them
                a.setflags(write=False)
            out.append(Token(i, d, wd, state, *arrays[:4], BETA, V, p))
    return tuple(out)


# ------------------------------------------------------------------ the truth, plain numpy
def _acceptance(p: F64, Q: F64, s: int, t: int) -> float:
    """min(1, p(t) q(s | t) / (p(s) q(t | s))), Zheng 2015 eq. 1."""
    return min(1.0, float(p[t] * Q[t, s] / (p[s] * Q[s, t])))


def _matrix(Q: F64, accept: Callable[[int, int], float]) -> F64:
    """The MH transition matrix (Zheng 2015 eq. 2): P[s, t] = q(t | s) a(s, t) for t != s,
    and P[s, s] the rest (proposing s itself, and every rejected proposal)."""
    n = Q.shape[0]
    P = np.zeros((n, n))
    for s in range(n):
        for t in range(n):
            if t != s:
                P[s, t] = Q[s, t] * accept(s, t)
        P[s, s] = 1.0 - P[s].sum()
    return P


def _mh_matrix_with(p: F64, Q: F64, accept: Callable[[F64, F64, int, int], float]) -> F64:
    """The MH matrix for target p and proposal Q with acceptance ``accept(p, Q, s, t)``."""
    return _matrix(Q, lambda s, t: accept(p, Q, s, t))


def _mh_matrix(p: F64, Q: F64) -> F64:
    return _mh_matrix_with(p, Q, _acceptance)


def _tv(a: F64, b: F64) -> float:
    return 0.5 * float(np.abs(a - b).sum())


def _close(a: F64, b: F64) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0.0, atol=EXACT))


# The typical mistakes in an acceptance probability: name -> (a(p, Q, s, t), the hint).
_MISTAKES: dict[str, tuple[Callable[[F64, F64, int, int], float], str]] = {
    "inverted": (
        lambda p, Q, s, t: min(1.0, p[s] * Q[s, t] / (p[t] * Q[t, s])),
        "the ratio is upside down: you divided p(s) q(t | s) by p(t) q(s | t). The move "
        "s -> t is accepted more the more probable t is: p(t) goes in the numerator"),
    "no correction": (
        lambda p, Q, s, t: min(1.0, p[t] / p[s]),
        "the proposal correction is missing: min(1, p(t) / p(s)) is right only for a "
        "symmetric proposal. Multiply by q(s | t) / q(t | s) = Q[t, s] / Q[s, t]"),
    "correction inverted": (
        lambda p, Q, s, t: min(1.0, p[t] * Q[s, t] / (p[s] * Q[t, s])),
        "the proposal correction is inverted: you used q(t | s) / q(s | t). The reverse "
        "move's probability q(s | t) = Q[t, s] goes in the numerator (Q[s, t] = q(t | s): "
        "row = the state proposed from)"),
    "no min": (
        lambda p, Q, s, t: float(p[t] * Q[t, s] / (p[s] * Q[s, t])),
        "min(1, .) is missing: your acceptance is above 1 for some moves; a probability "
        "is at most 1"),
    "reverse from s": (
        lambda p, Q, s, t: min(1.0, p[t] * Q[s, s] / (p[s] * Q[s, t])),
        "q(s | t) was read as Q[s, s], the probability of proposing s from s: the reverse "
        "move is drawn at t, so q(s | t) = Q[t, s]. (With the doc proposal this is the "
        "ratio Zheng 2015 eq. 19 prints: it counts token i at s in the reverse move)"),
    "target only": (
        lambda p, Q, s, t: min(1.0, Q[t, s] / Q[s, t]),
        "the target is missing: you returned min(1, q(s | t) / q(t | s)). Multiply by "
        "p(t) / p(s)"),
    "times proposal": (
        lambda p, Q, s, t: Q[s, t] * min(1.0, p[t] * Q[t, s] / (p[s] * Q[s, t])),
        "you multiplied by q(t | s): that is P[s, t], the probability to propose t AND "
        "accept it (exercise b). The acceptance is the min(1, .) alone"),
}


def _moves() -> list[tuple[Token, str, F64, int, int]]:
    """Every (token, proposal kind, Q, s, t != s) of the cases."""
    out = []
    for tok in tokens():
        for kind in KINDS:
            Q = tok.proposal(kind)
            out += [(tok, kind, Q, s, t) for s in range(tok.K) for t in range(tok.K) if t != s]
    return out


def _number(x: Any, what: str) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"{what} must be a number, got {type(x).__name__}: "
                                 f"{x!r}"[:300])) from None
    return value


# ------------------------------------------------------------------ exercise (a)
@checked
def check_acceptance(acceptance: Callable[..., Any]) -> Feedback:
    """``acceptance(p, Q, s, t)`` -> the MH acceptance probability of the move s -> t, with
    ``p`` the target over the K topics and ``Q[s, t] = q(t | s)`` the proposal; checked on
    every move of the doc and word proposals of the 40 token cases."""
    moves = _moves()
    got = np.empty(len(moves))
    for j, (tok, kind, Q, s, t) in enumerate(moves):
        got[j] = _number(call(acceptance, tok.p.copy(), Q.copy(), s, t,
                              what="acceptance(p, Q, s, t)"),
                         f"acceptance(p, Q, {s}, {t})")
    truth = np.array([_acceptance(tok.p, Q, s, t) for tok, _, Q, s, t in moves])
    bad = ~np.isfinite(got)
    if bad.any():
        tok, kind, Q, s, t = moves[int(np.argmax(bad))]
        return wrong(f"acceptance returned {got[bad][0]} for {tok.label}, {kind} proposal, "
                     f"s = {s}, t = {t}: p and Q are positive here, so a finite number is "
                     f"expected (a division by zero, or Q indexed out of its row?)")
    if _close(got, truth):
        return right(f"min(1, p(t) q(s | t) / (p(s) q(t | s))) on all {len(moves)} moves "
                     f"(10 tokens x {STATES_PER_TOKEN} states of the others x 6 moves s -> t "
                     f"x doc and word proposals), to {EXACT:g}. For the doc proposal the "
                     f"document factors cancel and your value is the light kernel's "
                     f"(n_tw + beta)(n_s + V beta) / ((n_sw + beta)(n_t + V beta)), capped "
                     f"at 1; for the word proposal the word factors cancel")
    for variant, hint in _MISTAKES.values():
        if _close(got, np.array([variant(tok.p, Q, s, t) for tok, _, Q, s, t in moves])):
            return wrong(hint)
    j = int(np.argmax(np.abs(got - truth)))
    tok, kind, Q, s, t = moves[j]
    above = "; some of your values are above 1: min(1, .) is missing too" \
        if got.max() > 1.0 + EXACT else ""
    return wrong(f"for {tok.label}, {kind} proposal, s = {s} -> t = {t}: p[s] = {tok.p[s]:.4f}, "
                 f"p[t] = {tok.p[t]:.4f}, Q[s, t] = {Q[s, t]:.4f}, Q[t, s] = {Q[t, s]:.4f}; "
                 f"expected min(1, p[t] Q[t, s] / (p[s] Q[s, t])) = {truth[j]:.6f}, got "
                 f"{got[j]:.6f}{above}")


# ------------------------------------------------------------------ exercise (b)
def _student_matrix(mh_matrix: Callable[..., Any], p: F64, Q: F64) -> F64:
    out = call(mh_matrix, p.copy(), Q.copy(), what="mh_matrix(p, Q)")
    try:
        P = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"mh_matrix must return a K x K array of numbers, got "
                                 f"{type(out).__name__}")) from None
    if P.shape != Q.shape:
        raise StudentError(wrong(f"mh_matrix must return a K x K array (here {Q.shape}), "
                                 f"got shape {P.shape}: P[s, t] for every pair of topics"))
    if not np.isfinite(P).all():
        raise StudentError(wrong("mh_matrix returned a matrix with nan or inf: p and Q are "
                                 "positive here (a division by a diagonal entry left 0?)"))
    return P


def _off_diagonal(P: F64) -> F64:
    return P[~np.eye(P.shape[0], dtype=bool)]


def _diagnose_matrix(P: F64, p: F64, Q: F64, where: str) -> Feedback:
    """Name what is wrong with ``P``, the student's matrix for target p and proposal Q."""
    truth = _mh_matrix(p, Q)
    if _close(P, truth.T):
        return wrong(f"your matrix is transposed ({where}): P[s, t] is the probability to "
                     f"move FROM s TO t, so each row sums to 1 (and pi P = pi multiplies "
                     f"the row vector pi from the left)")
    off = _off_diagonal(P)
    if _close(off, _off_diagonal(truth)):
        if _close(np.diag(P), np.zeros(len(p))):
            return wrong(f"the diagonal is 0 ({where}): a rejected proposal keeps the token "
                         f"at s, so P[s, s] = 1 - sum of P[s, t] over t != s")
        if _close(np.diag(P), np.diag(Q)):
            return wrong(f"P[s, s] = q(s | s) only ({where}): the rejected proposals also "
                         f"stay at s, so P[s, s] = 1 - sum of P[s, t] over t != s")
        return wrong(f"the off-diagonal entries are right but P[s, s] is not ({where}): "
                     f"rows must sum to 1, P[s, s] = 1 - sum of P[s, t] over t != s (row "
                     f"sums here: {np.round(P.sum(axis=1), 6).tolist()})")
    if _close(off, _off_diagonal(Q)):
        return wrong(f"P[s, t] = q(t | s) ({where}): every proposal is accepted, so P is "
                     f"the proposal itself. Multiply by the acceptance a(s, t) of "
                     f"exercise (a)")
    accept_only = _matrix(Q, lambda s, t: _acceptance(p, Q, s, t) / Q[s, t])
    if _close(off, _off_diagonal(accept_only)):
        return wrong(f"P[s, t] = a(s, t) ({where}): to move to t the step must first "
                     f"propose t (probability q(t | s) = Q[s, t]) and then accept it: "
                     f"P[s, t] = Q[s, t] a(s, t)")
    for name, (variant, hint) in _MISTAKES.items():
        if name == "times proposal":   # its matrix is the acceptance-only one above
            continue
        M = _mh_matrix_with(p, Q, variant)
        if _close(off, _off_diagonal(M)):
            return wrong(f"the acceptance inside P ({where}): {hint}")
    if (P < -EXACT).any():
        return wrong(f"P has negative entries ({where}): {np.round(P, 4).tolist()}; a "
                     f"transition matrix holds probabilities")
    rows = P.sum(axis=1)
    if not _close(rows, np.ones(len(p))):
        return wrong(f"the rows of P must sum to 1 ({where}; yours: "
                     f"{np.round(rows, 6).tolist()}): from s the token goes somewhere")
    s, t = np.unravel_index(int(np.argmax(np.abs(P - truth))), P.shape)
    return wrong(f"P[{s}, {t}] is {P[s, t]:.6f}, expected {truth[s, t]:.6f} ({where}); "
                 f"pi P - pi = {np.round(p @ P - p, 6).tolist()}. P[s, t] = q(t | s) "
                 f"min(1, p(t) q(s | t) / (p(s) q(t | s))) for t != s, P[s, s] the rest")


def _invariance(P: F64, pi: F64) -> tuple[float, float]:
    """max |pi P - pi| and max |pi_s P[s, t] - pi_t P[t, s]| (0 when P is reversible)."""
    flow = pi[:, None] * P
    return float(np.abs(pi @ P - pi).max()), float(np.abs(flow - flow.T).max())


def _compositions(P_doc: F64, P_word: F64) -> dict[str, F64]:
    return {"doc": P_doc, "word": P_word, "cycle: doc then word": P_doc @ P_word,
            "mixture: 1/2 doc + 1/2 word": 0.5 * (P_doc + P_word)}


@checked
def check_mh_matrix(mh_matrix: Callable[..., Any]) -> Feedback:
    """``mh_matrix(p, Q)`` -> the K x K transition matrix P of one MH step with target ``p``
    and proposal ``Q[s, t] = q(t | s)``; checked against the exact matrix for the doc and
    word proposals of the 40 token cases, then composed (cycle, mixture) to check pi P = pi."""
    worst: dict[str, list[float]] = {}
    for tok in tokens():
        mats = {}
        for kind in KINDS:
            Q = tok.proposal(kind)
            P = _student_matrix(mh_matrix, tok.p, Q)
            if not _close(P, _mh_matrix(tok.p, Q)):
                return _diagnose_matrix(P, tok.p, Q, f"{kind} proposal, {tok.label}")
            mats[kind] = P
        for name, M in _compositions(mats["doc"], mats["word"]).items():
            inv, rev = _invariance(M, tok.p)
            w_ = worst.setdefault(name, [0.0, 0.0])
            w_[0], w_[1] = max(w_[0], inv), max(w_[1], rev)
    n = len(tokens())
    cycle, mix = worst["cycle: doc then word"], worst["mixture: 1/2 doc + 1/2 word"]
    return right(f"your P equals the exact MH matrix for the doc and the word proposal on all "
                 f"{n} token cases (to {EXACT:g}), and pi P = pi for each (max |pi P - pi| "
                 f"= {max(worst['doc'][0], worst['word'][0]):.1e}: rounding). Composed from "
                 f"your matrices, the cycle P_doc P_word keeps pi (max |pi P - pi| = "
                 f"{cycle[0]:.1e}) and so does the mixture (P_doc + P_word) / 2 "
                 f"({mix[0]:.1e}): Zheng 2015 Theorem 1. Each step is reversible, and so is "
                 f"the mixture (max |pi_s P[s, t] - pi_t P[t, s]| = {mix[1]:.1e}); the cycle "
                 f"is not ({cycle[1]:.1e}): it keeps pi without detailed balance")


def invariance_table(mh_matrix: Callable[..., Any]) -> pd.DataFrame | Feedback:
    """With the student's ``mh_matrix``: for the doc and word steps, their cycle and their
    mixture, the largest |pi P - pi| and |pi_s P[s, t] - pi_t P[t, s]| over the token cases;
    a Feedback when ``mh_matrix`` is not written yet or fails."""
    rows: dict[str, list[float]] = {}
    try:
        for tok in tokens():
            P = {kind: _student_matrix(mh_matrix, tok.p, tok.proposal(kind)) for kind in KINDS}
            for name, M in _compositions(P["doc"], P["word"]).items():
                inv, rev = _invariance(M, tok.p)
                r = rows.setdefault(name, [0.0, 0.0])
                r[0], r[1] = max(r[0], inv), max(r[1], rev)
    except StudentError as e:
        return e.feedback
    return pd.DataFrame.from_dict(
        rows, orient="index",
        columns=["max |pi P - pi|", "max |pi_s P[s,t] - pi_t P[t,s]|"]).rename_axis("kernel")


# ------------------------------------------------------------------ exercise (c)
def accept_a(tok: Token, s: int, t: int) -> float:
    """Candidate A: the doc proposal, q(t | s) ∝ n_td + alpha_t + [t = s]."""
    n = tok.n_dk.copy()
    n[s] += 1   # n~_d: the document's counts as the doc proposal sees them, token i at s
    ratio = tok.p[t] * (n[s] + tok.alpha[s]) / (tok.p[s] * (n[t] + tok.alpha[t]))
    return min(1.0, float(ratio))


def accept_b(tok: Token, s: int, t: int) -> float:
    """Candidate B: the word proposal, q(t | s) ∝ n_tw + beta + [t = s]."""
    Vb = tok.V * tok.beta
    ratio = ((tok.n_dk[t] + tok.alpha[t]) * (tok.n_k[s] + Vb)) / \
        ((tok.n_dk[s] + tok.alpha[s]) * (tok.n_k[t] + Vb))
    return min(1.0, float(ratio))


def accept_c(tok: Token, s: int, t: int) -> float:
    """Candidate C: a uniform proposal, q(t | s) = 1 / K."""
    return min(1.0, float(tok.p[t] / tok.p[s]))


@dataclass(frozen=True)
class Candidate:
    """A kernel for one token: a proposal (``Token.proposal``'s kind) and an acceptance
    probability ``acceptance(token, s, t)``."""

    name: str
    proposal: str
    acceptance: Callable[[Token, int, int], float]

    def matrix(self, tok: Token) -> F64:
        """Its K x K transition matrix for ``tok``, by enumeration of every proposal."""
        return _matrix(tok.proposal(self.proposal), lambda s, t: self.acceptance(tok, s, t))


CANDIDATES = {"A": Candidate("A", "doc", accept_a), "B": Candidate("B", "word", accept_b),
              "C": Candidate("C", "uniform", accept_c)}

# why a kernel breaks: the answers check_broken_kernel takes for ``why``
REASONS = {
    "inverted": "its ratio is upside down: p(s) q(t|s) / (p(t) q(s|t))",
    "no correction": "it forgets the proposal correction q(s|t) / q(t|s)",
    "token counted": "its reverse probability q(s|t) counts token i at s, where the draw "
                     "from t would see it at t",
    "stale target": "its target p counts token i itself (the counts were not decremented)",
}
BROKEN, BROKEN_WHY = "A", "token counted"

_WRONG_WHY = {
    "inverted": "A's ratio is not upside down: p(t) is in its numerator, as it should be",
    "no correction": "A has a correction, (n[s] + alpha_s) / (n[t] + alpha_t): look at "
                     "what n counts",
    "stale target": "A's target is the exact p (tok.p, counts without token i): look at its "
                    "correction instead",
}


class Listing:
    """Source code shown as a Python block in a notebook (and as plain text elsewhere)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return f"```python\n{self.text}\n```"


def show_candidates() -> Listing:
    """The three candidates' acceptance functions, as their source."""
    return Listing("\n\n".join(inspect.getsource(f).rstrip()
                               for f in (accept_a, accept_b, accept_c)))


@lru_cache(maxsize=1)
def _tv_curves() -> pd.DataFrame:
    """TV(pi P^n, pi) for n = 0..TV_STEPS, the largest over the token cases, per candidate."""
    rows = []
    for name, cand in CANDIDATES.items():
        worst = np.zeros(TV_STEPS + 1)
        for tok in tokens():
            P, dist = cand.matrix(tok), tok.p.copy()
            for n in range(1, TV_STEPS + 1):
                dist = dist @ P
                worst[n] = max(worst[n], _tv(dist, tok.p))
        rows += [{"candidate": name, "n": n, "tv": float(v)} for n, v in enumerate(worst)]
    return pd.DataFrame(rows)


def tv_chart() -> alt.Chart:
    """TV(pi P^n, pi) against n = 1..50 for the three candidates, the largest over the token
    cases, on a log scale (a kernel that keeps pi sits at rounding, ~1e-16; an exact 0 is
    drawn at 1e-17, the floor of the axis)."""
    data = _tv_curves().query("n >= 1").assign(
        shown=lambda f: np.maximum(f["tv"], 1e-17))
    return alt.Chart(data, title="TV(pi P^n, pi), largest over the 40 cases").mark_line(
        point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X("n:Q", title="steps n"),
        y=alt.Y("shown:Q", title="total variation (log scale)",
                scale=alt.Scale(type="log", domain=[1e-17, 1]), axis=alt.Axis(format=".0e")),
        color=alt.Color("candidate:N", title="candidate"),
        strokeDash=alt.StrokeDash("candidate:N", title="candidate"),
        tooltip=["candidate", "n", alt.Tooltip("tv:Q", title="TV", format=".2e")],
    ).properties(width=420, height=220)


@checked
def check_broken_kernel(broken: Any, why: Any) -> Feedback:
    """``broken``: the name of the candidate that does not keep pi ("A", "B" or "C");
    ``why``: a key of ``REASONS``. Verified by enumeration: TV(pi P^n, pi) for n up to 50."""
    names = '"A", "B" or "C"'
    if broken is Ellipsis:
        return wrong(f"replace the ... after broken = with the candidate you found: {names}")
    if not isinstance(broken, str) or broken.strip().upper() not in CANDIDATES:
        return wrong(f"broken must be {names}, got {broken!r}")
    broken = broken.strip().upper()
    tv = _tv_curves().groupby("candidate")["tv"].max()
    found = [n for n in CANDIDATES if tv[n] > INVARIANT]
    assert found == [BROKEN], found   # the lesson's own claim, checked by the enumeration
    if broken != BROKEN:
        why_right = {"B": "its proposal is the word proposal, so the word factors of p cancel "
                          "against q(s|t) / q(t|s) and what is left is exactly its ratio "
                          "(docs/math.md sec. 3)",
                     "C": "its proposal is uniform, q(s|t) = q(t|s) = 1/K, so no correction "
                          "is needed: min(1, p(t) / p(s)) is the right acceptance for it"}
        return wrong(f"{broken} keeps pi: TV(pi P^n, pi) <= {tv[broken]:.0e} for every n up "
                     f"to {TV_STEPS} and every token case (rounding); {why_right[broken]}. "
                     f"Compute pi P^n for each candidate (Candidate.matrix)")
    if why is Ellipsis:
        return wrong("A is the broken one; now say why: replace the ... after why = with a key "
                     "of lesson2.REASONS")
    if not isinstance(why, str) or why.strip().lower() not in REASONS:
        return wrong(f"why must be one of {sorted(REASONS)}, got {why!r}")
    why = why.strip().lower()
    if why != BROKEN_WHY:
        return wrong(f"A is the broken one, but not for that reason: {_WRONG_WHY[why]}")
    tv1 = _tv_curves().query("candidate == 'A' and n == 1")["tv"].iloc[0]
    return right(f"A moves pi: TV(pi P, pi) up to {tv1:.2f} after one step and "
                 f"{tv['A']:.2f} by n = {TV_STEPS}, while B and C keep pi to "
                 f"{max(tv['B'], tv['C']):.0e}. A's n counts token i at s, so its 'reverse "
                 f"probability' is q(s | s), not q(s | t): the draw from t would see token i "
                 f"at t, q(s | t) ∝ n_sd + alpha_s with n without token i. This is the ratio "
                 f"Zheng 2015 eq. 19 prints; the light kernel uses the right one (docs/math.md "
                 f"sec. 3 and 8.7; tests/kernels/test_light.py::"
                 f"test_the_printed_doc_proposal_ratio_is_rejected)")


# ------------------------------------------------------------------ exercise (d)
def acceptance_rates(history: pd.DataFrame, after: int = BURN_IN) -> pd.Series:
    """Accepted / proposed per proposal over the sweeps after ``after`` (pooled: each sweep
    weighted by its number of proposals), from a light sampler's history."""
    h = history[history["sweep"] > after]
    rate = h[h["metric"] == "acceptance_rate"].set_index(["sweep", "proposal"])["value"]
    n = h[h["metric"] == "proposals"].set_index(["sweep", "proposal"])["value"]
    accepted = (rate * n).groupby(level="proposal").sum()
    return accepted / n.groupby(level="proposal").sum()


@checked
def check_acceptance_rates(session: Any, higher: Any, rate: Any,
                           after: int = BURN_IN) -> Feedback:
    """``higher``: the proposal ("doc" or "word") the light ``session`` accepts more over the
    sweeps after ``after``; ``rate``: its acceptance rate there (accepted / proposed)."""
    if not isinstance(session, Session):
        return wrong(f"pass the Session you ran, got {type(session).__name__}")
    if session.model.topic_sampler.name != "light":
        return wrong(f"this session runs the {session.model.topic_sampler.name!r} sampler: "
                     f"the exercise reads a light sampler's history (sampler='light')")
    if session.n_sweeps <= after:
        return wrong(f"the session has {session.n_sweeps} sweeps: run more than {after} "
                     f"(session.run(...)), the rates are read after sweep {after}")
    history = session.history
    rates = acceptance_rates(history, after)
    if set(rates.index) != set(KINDS):
        return wrong(f"this session's proposals are {sorted(rates.index)}: the exercise "
                     f"compares doc and word (LDA with sampler='light')")
    best = str(rates.idxmax())
    other = "doc" if best == "word" else "word"
    say = (f"after sweep {after}: doc {rates['doc']:.3f}, word {rates['word']:.3f} "
           f"(sweeps {after + 1} to {session.n_sweeps})")
    if higher is Ellipsis or rate is Ellipsis:
        return wrong("replace the ... after higher = and rate = with the proposal accepted "
                     "more and its rate, read from session.history")
    if not isinstance(higher, str) or higher.strip().lower() not in KINDS:
        return wrong(f"higher must be 'doc' or 'word', got {higher!r}")
    value = _number(rate, "rate")
    early = acceptance_rates(history[history["sweep"] <= after], 0)
    if higher.strip().lower() != best:
        flip = (f"; in the first {after} sweeps it was the other way: doc "
                f"{early['doc']:.3f}, word {early['word']:.3f} (did you read the burn-in?)"
                if early[higher.strip().lower()] > early[best] else "")
        return wrong(f"{best} is accepted more {say}{flip}")
    if abs(value - rates[best]) <= READ_OFF:
        per_sweep = history[(history["sweep"] > after)
                            & (history["metric"] == "acceptance_rate")
                            & (history["proposal"] == best)]["value"]
        se = float(per_sweep.std(ddof=1) / np.sqrt(len(per_sweep)))
        return right(f"{best} is accepted more {say}. Sweep to sweep its rate spreads by "
                     f"{per_sweep.std(ddof=1):.3f} (standard error of the mean {se:.3f} if "
                     f"sweeps were independent; they are not, and the rate still drifts as "
                     f"the topics sharpen): the gap of "
                     f"{rates[best] - rates[other]:.2f} is far beyond it. The word proposal "
                     f"q ∝ n_kw + beta is close to p once topics have formed; the doc "
                     f"proposal ignores which word the token is")
    # (the history's mean_acceptance_probability, another estimate of the same rate, is
    # within READ_OFF of it here and so passes above)
    all_sweeps = acceptance_rates(history, 0)
    hints = [(all_sweeps[best], f"that is the rate over all sweeps, burn-in included: keep "
                                f"the sweeps after {after} (history['sweep'] > {after})"),
             (rates[other], f"that is the {other} proposal's rate; {best}'s is asked"),
             (1.0 - rates[best], "that is the rejection rate, 1 - the acceptance rate"),
             (early[best], f"that is the rate of the first {after} sweeps (the burn-in): keep "
                           f"the sweeps after it")]
    for v, hint in hints:
        if abs(value - v) <= READ_OFF:
            return wrong(hint)
    return wrong(f"{best}'s acceptance rate {say.split(':')[0]} is {rates[best]:.3f}, you gave "
                 f"{value:.3f}: the history's 'acceptance_rate' rows with proposal == "
                 f"'{best}' and sweep > {after} (weighted by the 'proposals' rows, equal "
                 f"per sweep in a cycle)")


# ------------------------------------------------------------------ the token explorer
def _token_chart(tok: Token, kind: str, s: int) -> alt.HConcatChart:
    Q = tok.proposal(kind)
    topics = [f"topic {k}" for k in range(tok.K)]
    what = ["target p(k)", f"proposal q(k | s={s})"]
    bars = pd.DataFrame({"topic": topics * 2, "probability": np.concatenate([tok.p, Q[s]]),
                         "what": [what[0]] * tok.K + [what[1]] * tok.K})
    acc = pd.DataFrame({"topic": topics,
                        "a": [0.0 if k == s else _acceptance(tok.p, Q, s, k)
                              for k in range(tok.K)],
                        "label": ["current s" if k == s else f"{_acceptance(tok.p, Q, s, k):.2f}"
                                  for k in range(tok.K)]})
    left = alt.Chart(bars, title=f"target and {kind} proposal").mark_bar().encode(
        x=alt.X("topic:N", title=None, axis=alt.Axis(labelAngle=0)), xOffset="what:N",
        y=alt.Y("probability:Q", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("what:N", title=None, legend=alt.Legend(orient="bottom"),
                        scale=alt.Scale(domain=what, range=["#4c78a8", "#f58518"])),
        tooltip=["what", "topic", alt.Tooltip("probability:Q", format=".3f")],
    ).properties(width=260, height=180)
    base = alt.Chart(acc, title=f"acceptance of s = {s} -> k").encode(
        x=alt.X("topic:N", title=None, axis=alt.Axis(labelAngle=0)))
    right_ = (base.mark_bar(color="#15803d").encode(
        y=alt.Y("a:Q", title="a(s, k)", scale=alt.Scale(domain=[0, 1])),
        tooltip=["topic", alt.Tooltip("a:Q", format=".3f")])
        + base.mark_text(dy=-8).encode(y="a:Q", text="label:N")
    ).properties(width=200, height=180)
    return alt.hconcat(left, right_).resolve_scale(color="independent")


def token_explorer() -> w.interactive:
    """Pick a token case, a proposal and the current topic s: the target p and q(. | s) side
    by side, and the acceptance of each move s -> k."""
    cases = tokens()
    options = [(tok.label, j) for j, tok in enumerate(cases)]

    def draw(case: int, proposal: str, s: int) -> None:
        # interactive (unlike interact) shows only what its function displays; IPython's
        # display is untyped
        display(_token_chart(cases[case], proposal, s))  # type: ignore[no-untyped-call]

    return w.interactive(
        draw,
        case=w.Dropdown(options=options, value=0, description="token",
                        layout=w.Layout(width="460px")),
        proposal=w.ToggleButtons(options=list(KINDS), value="doc", description="proposal"),
        s=w.ToggleButtons(options=list(range(K)), value=0, description="current s",
                          style={"button_width": "50px"}))
