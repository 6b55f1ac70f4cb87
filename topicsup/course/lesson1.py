"""Lesson 1, collapsed Gibbs sampling for LDA from its conditional
(``notebooks/course/01_gibbs_conditional.ipynb``).

The lesson's corpus is three documents of nine tokens over four words (``lesson_corpus``),
small enough that the posterior p(z | w) of LDA with K = 2 topics is known exactly: the
2**9 = 512 assignments are listed and the collapsed joint p(w, z) (docs/math.md sec. 4.3) is
evaluated at each (``topicsup.testing.exact``). Every check compares the student's answer with
that enumeration, never with the library's own sampler:

* ``check_conditional(conditional)``: the student's p(z_i = k | z_-i, w) (docs/math.md sec.
  2; Zheng, Yu and Xing 2015 eq. 11) equals, to 1e-9, the ratio of the exact joints at the K
  values of z_i, for every token of several states, at K = 2 and K = 3. A wrong answer is
  matched against the formula with each typical mistake (token i not removed, or removed
  from some counts only or from every topic; beta instead of V beta or no denominator;
  alpha and beta swapped; a factor missing; not normalised; log probabilities; the input
  counts changed in place) and the hint names the mistakes that reproduce it exactly.
* ``check_sweep(sweep, conditional)``: one sweep keeps the count tables equal to the counts
  of z (a forgotten decrement, a forgotten increment, stale tables, z not updated and token
  i removed before a conditional that removes it again are named), draws with the ``rng`` it
  is given (not ``np.random``) and at random (not argmax); then 2,000 independent chains
  started at exact posterior draws run two sweeps each: every token must move in some chain
  (a skipped token is named), and the final states must pass a chi-square test against the
  exact posterior (``topicsup.testing.exact.goodness_of_fit``; the chains start exact, so the
  test holds its level after any number of sweeps, docs/math.md sec. 7). Its teeth: a
  forgotten decrement fails the chi-square alone at p < 1e-10.
* ``check_same_topic(p)``: the exact posterior probability that the two tokens ``PAIR``
  share a topic, to 1e-9; the prior's value, the product of the marginals, one topic only,
  the complement, another pair of tokens, an unnormalised sum, swapped alpha and beta, a
  rounded number and a Monte Carlo estimate are each named.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..arrays import F64, I64
from ..corpus import Corpus
from ..testing.exact import (GoodnessOfFit, enumerate_assignments, goodness_of_fit,
                             lda_log_joint_states, normalize_log, state_index)
from ._feedback import Feedback, StudentError, call, checked, right, wrong

__all__ = ["ALPHA", "BETA", "DOCS", "K", "PAIR", "VOCABULARY", "check_conditional",
           "check_same_topic", "check_sweep", "count_tables", "exact_conditional",
           "lesson_corpus", "posterior", "sweep_fit", "token_arrays", "tokens_frame"]

# The lesson's model: K = 2 topics, symmetric alpha, a small beta so that the words matter.
K = 2
ALPHA = 0.5
BETA = 0.2
VOCABULARY = ("ball", "goal", "vote", "party")
DOCS = (("ball", "goal", "ball", "goal"), ("vote", "party", "vote"), ("goal", "vote"))
# Exercise 3: the two tokens of document 2 ("goal" and "vote"); numbered in corpus order
PAIR = (7, 8)

# Exact answers are float64 arithmetic of a few operations on numbers of order 1-10: two
# correct programs differ by ~1e-15 whatever the order of operations (or a detour through
# logs), while every mistake the checks name moves a probability by more than 1e-3 on this
# corpus (tests/course/test_lesson1.py holds that), so 1e-9 separates them with room to spare.
EXACT_TOL = 1e-9
# The sweep's chi-square test rejects below this p-value. A right sweep's final states are
# exact posterior draws, so it is told "not yet" only by bad luck: about once in 10,000 seeds
# (the pooled chi-square on 2,000 draws of this posterior runs a little above its nominal
# level: 1.1% at a nominal 1% over 3,000 seeds of exact draws). A forgotten decrement falls
# to p < 1e-10 (seeds 0-2) and uniform draws to p = 0 with the same chains.
LEVEL = 1e-4
N_CHAINS = 2000
N_SWEEPS = 2


# ------------------------------------------------------------------------- the lesson's data

def lesson_corpus() -> Corpus:
    """The lesson's corpus: three documents, nine tokens, four words (sport and politics)."""
    return Corpus.from_tokens([list(d) for d in DOCS], vocabulary=list(VOCABULARY))


def token_arrays(corpus: Corpus) -> tuple[I64, I64]:
    """``doc``, ``word``: the document and the word id of every token, in corpus order."""
    doc = np.repeat(np.arange(corpus.n_docs, dtype=np.int64), corpus.doc_lengths)
    return doc, np.asarray(corpus.words, dtype=np.int64).copy()


def tokens_frame(corpus: Corpus) -> pd.DataFrame:
    """One row per token: its number ``token`` (as the exercises count them, from 0), its
    ``document`` and its ``word``."""
    doc, word = token_arrays(corpus)
    return pd.DataFrame({"token": np.arange(corpus.n_tokens), "document": doc,
                         "word": [corpus.vocabulary[w] for w in word]}).set_index("token")


def count_tables(z: Any, doc: Any, word: Any, K: int, n_docs: int, n_words: int
                 ) -> tuple[I64, I64, I64]:
    """The counts of the assignment ``z``: ``n_dk`` (D, K) tokens of document d at topic k,
    ``n_wk`` (V, K) tokens of word w at topic k, ``n_k`` (K,) tokens at topic k."""
    z = np.asarray(z, dtype=np.int64)
    n_dk = np.zeros((n_docs, K), dtype=np.int64)
    n_wk = np.zeros((n_words, K), dtype=np.int64)
    np.add.at(n_dk, (np.asarray(doc), z), 1)
    np.add.at(n_wk, (np.asarray(word), z), 1)
    return n_dk, n_wk, n_wk.sum(axis=0)


def exact_conditional(corpus: Corpus, K: int, alpha: Any, beta: float, z: Any, i: int) -> F64:
    """p(z_i = k | z_-i, w) for k = 0..K-1 by enumeration: the exact joint p(w, z) at the K
    assignments that differ from ``z`` only at token ``i``, normalised (the normalising
    constant p(w, z_-i) is their sum)."""
    rows = np.repeat(np.asarray(z, dtype=np.int32)[None, :], K, axis=0)
    rows[:, i] = np.arange(K)
    return normalize_log(lda_log_joint_states(corpus, K, alpha, beta, rows))


def posterior(corpus: Corpus, K: int, alpha: Any, beta: float) -> tuple[np.ndarray, F64]:
    """Every assignment (rows of ``enumerate_assignments``) and its exact posterior
    probability p(z | w)."""
    Z = enumerate_assignments(corpus.n_tokens, K)
    return Z, normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z))


# ------------------------------------------------------------------ exercise 1: the conditional

@dataclass(frozen=True)
class _Case:
    """One call of the student's conditional: the setting, the state, the token, the inputs
    (counts with token i still counted) and the exact answer."""

    K: int
    alpha: F64
    beta: float
    z: np.ndarray
    i: int
    word: str
    doc: int
    n_dk: I64
    n_wk: I64
    n_k: I64
    s: int
    V: int
    exact: F64


def _cases() -> list[_Case]:
    """Every token of four states at the lesson's K = 2, and of four at K = 3 with an
    asymmetric alpha and another beta (a function that hard-codes K, alpha or beta fails
    there). The first state of each puts every token at topic 0, so the other topics are
    empty: the edge where a missing V beta divides by zero."""
    corpus = lesson_corpus()
    doc, word = token_arrays(corpus)
    D, V, N = corpus.n_docs, corpus.n_words, corpus.n_tokens
    out = []
    for K_, alpha, beta, seed in ((K, np.full(K, ALPHA), BETA, 1),
                                  (3, np.array([0.2, 0.5, 1.0]), 0.1, 2)):
        states = np.random.default_rng(seed).integers(0, K_, size=(4, N))
        states[0] = 0
        for z in states:
            n_dk, n_wk, n_k = count_tables(z, doc, word, K_, D, V)
            for i in range(N):
                out.append(_Case(K_, alpha, beta, z, i, corpus.vocabulary[word[i]], int(doc[i]),
                                 n_dk[doc[i]].copy(), n_wk[word[i]].copy(), n_k.copy(),
                                 int(z[i]), V, exact_conditional(corpus, K_, alpha, beta, z, i)))
    return out


# The typical mistakes, as independent choices; the formula is evaluated with every
# combination, and a wrong answer equal to one of them is told each mistake of it.
_REMOVAL: dict[str, str] = {   # which counts token i is removed from, by key letters
    "dwk": "",
    "": "token i is not removed from its counts: the conditional is of the counts without "
        "token i (n^-i), so subtract 1 at its current topic s from n_dk, n_wk and n_k",
    "every": "you subtracted 1 at every topic: token i is counted only at its current topic "
             "s, so subtract 1 there only (e = (np.arange(K) == s))",
}
_NAMES = {"d": "n_dk", "w": "n_wk", "k": "n_k"}
for _r in range(1, 3):
    for _kept in itertools.combinations("dwk", _r):
        _missing = [_NAMES[c] for c in "dwk" if c not in _kept]
        _REMOVAL["".join(_kept)] = (
            f"token i is removed from {' and '.join(_NAMES[c] for c in _kept)} but not from "
            f"{' and '.join(_missing)}: all three counts must be without token i")
_DENOMINATOR = {
    "Vbeta": "",
    "beta": "the denominator has + beta where it needs + V beta: the word prior adds beta "
            "for each of the V words of the vocabulary, so topic k's total gets V beta",
    "none": "the denominator n_k^-i + V beta is missing: (n_wk^-i + beta) / (n_k^-i + V beta) "
            "is topic k's probability of the word, and without the division big topics win",
}
_SWAP = {
    "none": "",
    "numerators": "alpha and beta are swapped: alpha goes with the document's counts "
                  "(n_dk^-i + alpha_k), beta with the word's (n_wk^-i + beta)",
    "all": "alpha and beta are swapped: alpha goes with the document's counts "
           "(n_dk^-i + alpha_k), beta with the word's (n_wk^-i + beta) and the topic's total "
           "(n_k^-i + V beta)",
}
_FACTORS = {
    "both": "",
    "word": "the document factor (n_dk^-i + alpha_k) is missing: how much document d already "
            "uses topic k is one of the conditional's two factors",
    "doc": "the word factor (n_wk^-i + beta) / (n_k^-i + V beta) is missing: the word itself "
           "must count",
}


def _formula(c: _Case, removal: str, denominator: str, swap: str, factors: str) -> F64:
    """The conditional (unnormalised) with the given mistakes."""
    e = np.ones(c.K) if removal == "every" else (np.arange(c.K) == c.s).astype(float)
    n_d = c.n_dk - (e if removal == "every" or "d" in removal else 0)
    n_w = c.n_wk - (e if removal == "every" or "w" in removal else 0)
    n = c.n_k - (e if removal == "every" or "k" in removal else 0)
    a_doc, b_word, b_total = ((c.alpha, c.beta, c.beta) if swap == "none" else
                              (c.beta, c.alpha, c.beta) if swap == "numerators" else
                              (c.beta, c.alpha, c.alpha))
    with np.errstate(divide="ignore", invalid="ignore"):
        total: F64 = (n + c.V * b_total if denominator == "Vbeta" else
                      n + b_total if denominator == "beta" else np.ones(c.K))
        doc_f = n_d + a_doc if factors in ("both", "doc") else np.ones(c.K)
        word_f = (n_w + b_word) / total if factors in ("both", "word") else np.ones(c.K)
        return np.asarray(doc_f * word_f, dtype=np.float64)


def _normalised(q: F64) -> F64:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(q / q.sum(), dtype=np.float64)


def _close(a: F64, b: F64) -> bool:
    return bool(np.all(np.isfinite(a)) and np.all(np.abs(a - b) <= EXACT_TOL))


def _mistakes(answers: list[F64], cases: list[_Case]) -> list[str] | None:
    """The fewest typical mistakes whose formula gives every normalised answer, or None."""
    combos = sorted(itertools.product(_REMOVAL, _DENOMINATOR, _SWAP, _FACTORS),
                    key=lambda m: sum(bool(t[x]) for t, x in
                                      zip((_REMOVAL, _DENOMINATOR, _SWAP, _FACTORS), m)))
    for m in combos[1:]:   # combos[0] is the right formula
        if all(_close(_normalised(q), _normalised(_formula(c, *m))) for q, c in
               zip(answers, cases)):
            return [t[x] for t, x in zip((_REMOVAL, _DENOMINATOR, _SWAP, _FACTORS), m) if t[x]]
    return None


def _case_text(c: _Case) -> str:
    return (f"token {c.i} ({c.word!r} in document {c.doc}, now at topic {c.s}) of the state "
            f"z = {c.z.tolist()} at K = {c.K} (alpha = {c.alpha.tolist()}, beta = {c.beta}), "
            f"called with n_dk = {c.n_dk.tolist()}, n_wk = {c.n_wk.tolist()}, n_k = "
            f"{c.n_k.tolist()}, s = {c.s}, V = {c.V}")


def _vec(q: F64) -> str:
    return "[" + ", ".join(f"{x:.4g}" for x in q) + "]"


@checked
def check_conditional(conditional: Callable[..., Any]) -> Feedback:
    """Check ``conditional(n_dk, n_wk, n_k, s, alpha, beta, V)``: the K probabilities
    p(z_i = k | z_-i, w) of token i, given the K counts of its document ``n_dk``, of its word
    ``n_wk`` and of the topics ``n_k`` in the current state (token i still counted, at its
    topic ``s``), ``alpha`` (K values), ``beta`` and the vocabulary size ``V``. Compared, to
    1e-9, with the exact conditional by enumeration for every token of 8 states."""
    cases = _cases()
    answers = []
    for c in cases:
        args: tuple[Any, ...] = (c.n_dk.copy(), c.n_wk.copy(), c.n_k.copy(), c.s,
                                 c.alpha.copy(), c.beta, c.V)
        out = call(conditional, *args, what="your conditional")
        given: tuple[Any, ...] = (c.n_dk, c.n_wk, c.n_k, c.s, c.alpha)
        changed = [name for name, a, b in zip(("n_dk", "n_wk", "n_k", "s", "alpha"), args,
                                              given)
                   if not np.array_equal(a, b)]
        if changed:
            return wrong(f"your conditional changed the {' and '.join(changed)} it was given "
                         f"(e.g. n_dk[s] -= 1 on the input): in a sweep those are the count "
                         f"tables themselves, so they would drift. Work on copies "
                         f"(n_dk = n_dk - e with e = (np.arange(K) == s)).")
        try:
            q = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            return wrong(f"your conditional must return K = {c.K} numbers, got "
                         f"{type(out).__name__}")
        if q.shape != (c.K,):
            return wrong(f"your conditional must return K = {c.K} probabilities, one per topic "
                         f"(shape ({c.K},)), got shape {q.shape} for {_case_text(c)}")
        if not np.all(np.isfinite(q)):
            return wrong(f"your conditional returned {_vec(q)} (not finite) for {_case_text(c)}:"
                         f" a division by zero? A topic with no tokens has n_k^-i = 0, so the "
                         f"denominator needs its + V beta")
        answers.append(q)
    if all(_close(q, c.exact) for q, c in zip(answers, cases)):
        return right(f"your conditional equals the exact p(z_i = k | z_-i, w), the ratio of the "
                     f"joint p(w, z) at the K values of z_i, for all 9 tokens of 4 states at "
                     f"K = 2 (alpha = {ALPHA}, beta = {BETA}) and of 4 states at K = 3 "
                     f"(alpha = (0.2, 0.5, 1), beta = 0.1), to 1e-9.")
    normalised = [bool(abs(q.sum() - 1) <= EXACT_TOL) for q in answers]
    if all(_close(_normalised(q), c.exact) for q, c in zip(answers, cases)):
        return wrong("right proportions, but not normalised: your K numbers add up to "
                     f"{answers[0].sum():.4g}, not 1. Divide by their sum: p / p.sum().")
    if all(np.all(q <= 0) for q in answers) and all(
            _close(_normalised(np.exp(q)), c.exact) for q, c in zip(answers, cases)):
        return wrong("these are log probabilities (their exp, normalised, is right): return "
                     "the probabilities themselves, normalised to sum to 1")
    norm_note = "" if all(normalised) else "; and normalise (divide by the sum)"
    found = _mistakes(answers, cases)
    if found:
        return wrong("; and ".join(found) + norm_note + ".")
    bad = next(j for j, (q, c) in enumerate(zip(answers, cases))
               if not _close(_normalised(q), c.exact))
    c = cases[bad]
    return wrong(f"for {_case_text(c)} yours is {_vec(answers[bad])}, the exact conditional "
                 f"{_vec(c.exact)}. Check each factor against p(z_i = k | z_-i, w) ∝ "
                 f"(n_dk^-i + alpha_k) (n_wk^-i + beta) / (n_k^-i + V beta){norm_note}.")


# ------------------------------------------------------------------------ exercise 2: a sweep

@dataclass
class _Problem:
    corpus: Corpus
    doc: I64
    word: I64
    alpha: F64
    Z: np.ndarray
    target: F64


def _problem() -> _Problem:
    corpus = lesson_corpus()
    doc, word = token_arrays(corpus)
    alpha = np.full(K, ALPHA)
    Z, target = posterior(corpus, K, alpha, BETA)
    return _Problem(corpus, doc, word, alpha, Z, target)


def _one_sweep(sweep: Callable[..., Any], pb: _Problem, z: np.ndarray,
               tables: tuple[I64, I64, I64], rng: np.random.Generator) -> np.ndarray:
    """The student's sweep on (z, tables) (changed in place), its z checked."""
    out = call(sweep, z, pb.doc.copy(), pb.word.copy(), *tables, pb.alpha.copy(), BETA, rng,
               what="your sweep")
    try:
        new = np.asarray(out)
    except (TypeError, ValueError):
        new = np.asarray(None)
    N = pb.corpus.n_tokens
    if new.shape != (N,) or not np.issubdtype(new.dtype, np.number):
        raise StudentError(wrong(f"your sweep must return z, the {N} topics after the sweep "
                                 f"(shape ({N},)), got {type(out).__name__} of shape "
                                 f"{new.shape}"))
    if not np.all((new == np.round(new)) & (new >= 0) & (new < K)):
        raise StudentError(wrong(f"your sweep returned z = {new.tolist()}: every topic must be "
                                 f"an integer from 0 to K - 1 = {K - 1}"))
    return new.astype(np.int64)


def _table_mistake(pb: _Problem, z0: np.ndarray, z1: np.ndarray,
                   before: tuple[I64, I64, I64], after: tuple[I64, I64, I64]) -> str | None:
    """What is wrong with the tables after one sweep from z0 to z1, or None."""
    c = pb.corpus
    fresh = count_tables(z1, pb.doc, pb.word, K, c.n_docs, c.n_words)
    if all(np.array_equal(a, f) for a, f in zip(after, fresh)):
        return None
    moved = int((z0 != z1).sum())
    total, N = int(after[2].sum()), c.n_tokens
    if moved == 0 and total == N:
        return ("your sweep moved tokens in n_dk, n_wk and n_k but returned z unchanged: set "
                "z[i] = k when token i moves (in z itself, not a copy), and return z")
    if all(np.array_equal(a, b) for a, b in zip(after, before)):
        return (f"your sweep moved {moved} tokens but left n_dk, n_wk and n_k as they were: "
                f"the next token's conditional then sees stale counts. Update the tables in "
                f"place when token i moves from s to k (n_dk[d, s] -= 1; n_dk[d, k] += 1, and "
                f"the same for n_wk[w] and n_k), and no copies of them inside the sweep")
    if total > N:
        return (f"forgotten decrement: after the sweep n_k counts {total} tokens, the corpus has "
                f"{N}. When token i moves from s to k, first remove it from topic s "
                f"(n_dk[d, s] -= 1, n_wk[w, s] -= 1, n_k[s] -= 1), then add it at k")
    if total < N:
        return (f"forgotten increment: after the sweep n_k counts {total} tokens, the corpus has "
                f"{N}. After removing token i from topic s, add it at its new topic k "
                f"(n_dk[d, k] += 1, n_wk[w, k] += 1, n_k[k] += 1)")
    wrong_tables = [n for n, a, f in zip(("n_dk", "n_wk", "n_k"), after, fresh)
                    if not np.array_equal(a, f)]
    return (f"after the sweep {' and '.join(wrong_tables)} no longer match z (the counts of "
            f"the returned z are n_dk = {fresh[0].tolist()}, n_wk = {fresh[1].tolist()}, "
            f"n_k = {fresh[2].tolist()}; yours n_dk = {after[0].tolist()}, n_wk = "
            f"{after[1].tolist()}, n_k = {after[2].tolist()}): move token i from s to k in "
            f"all three tables, at its document d and its word w")


def _raised_mistake(pb: _Problem, z0: np.ndarray, z_now: np.ndarray,
                    before: tuple[I64, I64, I64], now: tuple[I64, I64, I64],
                    error: str) -> str:
    """What the tables say about a sweep that raised ``error``, as a sentence ending in ": ",
    or ""."""
    moved = int((z0 != z_now).sum())
    if moved and all(np.array_equal(a, b) for a, b in zip(now, before)):
        return (f"your sweep moved {moved} tokens but left n_dk, n_wk and n_k as they were (the "
                f"next tokens' conditionals saw stale counts, which can go negative); update "
                f"the tables in place when token i moves from s to k. It then failed: ")
    # between its decrement and its increment a right sweep's tables hold N - 1 tokens too:
    # only a negative probability says that the conditional removed token i a second time
    if int(now[2].sum()) == pb.corpus.n_tokens - 1 and "negative" in error:
        return ("your sweep removed token i from the tables before calling conditional, which "
                "removes it again (its counts include token i), so it saw counts that can go "
                "negative: call conditional with the tables as they are and move the token "
                "after the draw. It then failed: ")
    if "negative" in error:
        return ("a probability went negative, so conditional saw a count below zero: pass it "
                "the rows of token i's own document and word (n_dk[doc[i]], n_wk[word[i]]) "
                "with token i still counted at s = z[i]. Your sweep failed: ")
    return ""


def _chains(sweep: Callable[..., Any], n_chains: int, n_sweeps: int, seed: int
            ) -> tuple[I64, I64]:
    """The final state indices of ``n_chains`` chains of ``sweep`` started at exact posterior
    draws, and per token the number of chains in which it changed topic at some sweep."""
    pb = _problem()
    c = pb.corpus
    rng = np.random.default_rng(seed)
    # the chains share one generator, used in turn: their draws are still independent
    starts = rng.choice(len(pb.target), size=n_chains, p=pb.target)
    finals = np.empty(n_chains, dtype=np.int64)
    changed = np.zeros(c.n_tokens, dtype=np.int64)
    for j, start in enumerate(starts):
        z = pb.Z[start].astype(np.int64)
        tables = count_tables(z, pb.doc, pb.word, K, c.n_docs, c.n_words)
        moved = np.zeros(c.n_tokens, dtype=bool)
        for _ in range(n_sweeps):
            new = _one_sweep(sweep, pb, z.copy(), tables, rng)
            moved |= new != z
            z = new
        changed += moved
        finals[j] = state_index(z, K)
    return finals, changed


def sweep_fit(sweep: Callable[..., Any], *, n_chains: int = N_CHAINS, n_sweeps: int = N_SWEEPS,
              seed: int = 0) -> GoodnessOfFit:
    """Run ``n_chains`` independent chains of ``sweep`` on the lesson's corpus, each started
    at an exact posterior draw and run ``n_sweeps`` sweeps, and compare their final states
    with the exact posterior by a chi-square test (``goodness_of_fit``). A sweep that leaves
    the posterior invariant gives a p-value (nearly) uniform on (0, 1); seeded, so
    repeatable. A
    student's error in ``sweep`` is raised as a ``StudentError``."""
    finals, _ = _chains(sweep, n_chains, n_sweeps, seed)
    return goodness_of_fit(finals, _problem().target)


@checked
def check_sweep(sweep: Callable[..., Any], conditional: Callable[..., Any] | None = None, *,
                seed: int = 0) -> Feedback:
    """Check ``sweep(z, doc, word, n_dk, n_wk, n_k, alpha, beta, rng)``: one collapsed Gibbs
    sweep over every token in turn, updating ``z`` and the count tables in place and
    returning ``z``, drawing with ``rng`` (a ``numpy.random.Generator``). With
    ``conditional`` the student's conditional is checked first (the sweep draws from it).
    Then the tables are checked after one sweep, the use of ``rng``, and the distribution
    after two sweeps of 2,000 chains started at exact posterior draws (chi-square)."""
    if conditional is not None:
        fb = check_conditional(conditional)
        if not fb:
            return wrong(f"the sweep draws from your conditional, which is not right yet "
                         f"(exercise 1): {fb.message}")
    pb = _problem()
    c = pb.corpus
    z0 = pb.Z[int(np.argmax(pb.target))].astype(np.int64)   # the posterior's mode
    z0[[0, 4]] = 1 - z0[[0, 4]]   # and two tokens off it, so a right sweep moves them back
    before = count_tables(z0, pb.doc, pb.word, K, c.n_docs, c.n_words)
    tables = (before[0].copy(), before[1].copy(), before[2].copy())
    z_work = z0.copy()
    try:
        z1 = _one_sweep(sweep, pb, z_work, tables, np.random.default_rng(seed))
    except StudentError as e:
        # a sweep that raised part way left its tables and z as they were then, which often
        # tell why (a negative probability from stale or twice-removed counts)
        return wrong(_raised_mistake(pb, z0, z_work, before, tables, e.feedback.message)
                     + e.feedback.message)
    problem = _table_mistake(pb, z0, z1, before, tables)
    if problem:
        return wrong(problem + ".")

    def again(s: int) -> np.ndarray:
        t = count_tables(z0, pb.doc, pb.word, K, c.n_docs, c.n_words)
        return _one_sweep(sweep, pb, z0.copy(), t, np.random.default_rng(s))

    try:
        # a sweep drawing from np.random may repeat itself by chance from this start: ten tries
        if any(not np.array_equal(again(seed), z1) for _ in range(10)):
            return wrong("the same rng seed gave two different sweeps: draw with the rng your "
                         "sweep is given (k = rng.choice(K, p=p)), not np.random or the random "
                         "module, so a chain can be replayed and checked")
        if all(np.array_equal(again(seed + s), z1) for s in range(1, 20)):
            return wrong("20 different seeds gave the same sweep: it does not draw at random. "
                         "Draw k from the conditional (k = rng.choice(K, p=p)) instead of "
                         "taking the most probable topic (argmax): that is optimisation, not "
                         "sampling")
        finals, changed = _chains(sweep, N_CHAINS, N_SWEEPS, seed)
    except StudentError as e:   # from another state than the first sweep's
        return wrong(_raised_mistake(pb, z0, z0, before, before, e.feedback.message)
                     + e.feedback.message)
    if not changed.all():
        never = np.flatnonzero(changed == 0).tolist()
        return wrong(f"token{'s' if len(never) > 1 else ''} {never} never changed topic in "
                     f"{N_CHAINS:,} chains of {N_SWEEPS} sweeps: a sweep visits every token, "
                     f"i = 0 to N - 1 (for i in range(len(z))). Each token's update leaves the "
                     f"posterior invariant, so skipping one is not caught by the distribution: "
                     f"the chain just never explores that token's topic")
    fit = goodness_of_fit(finals, pb.target)
    if fit.pvalue < LEVEL:
        return wrong(f"after {N_SWEEPS} sweeps the final states of {N_CHAINS:,} chains started "
                     f"at exact posterior draws do not follow the posterior ({fit}). The tables "
                     f"are kept right, so the draw is wrong: call conditional with the rows of "
                     f"token i's document and word (n_dk[doc[i]], n_wk[word[i]]) as they are "
                     f"(token i still counted: conditional removes it, so don't remove it "
                     f"before the call), draw k = rng.choice(K, p=p) from its result, and set "
                     f"z[i] = k. (A right sweep falls below p = {LEVEL:g} by bad luck about "
                     f"once in 10,000 seeds: check_sweep(sweep, seed=1) tries another.)")
    return right(f"your sweep visits every token, keeps n_dk, n_wk and n_k equal to the counts "
                 f"of z, draws with its rng, and leaves the exact posterior invariant: "
                 f"{N_CHAINS:,} chains started at exact posterior draws end, after {N_SWEEPS} "
                 f"sweeps, in states that a chi-square test cannot tell from the posterior "
                 f"({fit}).")


# --------------------------------------------------------- exercise 3: a posterior probability

def _pair_probability(Z: np.ndarray, p: F64, i: int, j: int) -> float:
    return float(p[Z[:, i] == Z[:, j]].sum())


@checked
def check_same_topic(answer: Any) -> Feedback:
    """Check the exact posterior probability p(z_i = z_j | w) for the tokens ``PAIR`` of the
    lesson's corpus at K = 2, alpha = ``ALPHA``, beta = ``BETA``, to 1e-9."""
    if answer is Ellipsis or answer is None:
        return wrong("replace the ... with your number")
    if isinstance(answer, (str, bytes)):
        return wrong(f"give the number itself, not the string {answer!r}")
    try:
        x = float(np.asarray(answer, dtype=np.float64).reshape(()))
    except (TypeError, ValueError):
        return wrong(f"give one number, the probability, got {type(answer).__name__}")
    if not np.isfinite(x):
        return wrong(f"your number is {x}: a probability is finite, between 0 and 1")
    i, j = PAIR
    pb = _problem()
    c, Z, p = pb.corpus, pb.Z, pb.target
    truth = _pair_probability(Z, p, i, j)
    if abs(x - truth) <= EXACT_TOL:
        return right(f"p(z_{i} = z_{j} | w) = {truth:.6f} exactly, from the {len(p)} states. "
                     f"The prior alone says {_prior_same(i, j, pb):.2f}: the words "
                     f"{c.vocabulary[pb.word[i]]!r} and {c.vocabulary[pb.word[j]]!r} of "
                     f"document {pb.doc[i]} pull the two tokens apart.")
    logj = lda_log_joint_states(c, K, pb.alpha, BETA, Z)
    same = Z[:, i] == Z[:, j]
    marginals = float(sum(p[Z[:, i] == k].sum() * p[Z[:, j] == k].sum() for k in range(K)))
    swapped = _pair_probability(Z, posterior(c, K, np.full(K, BETA), ALPHA)[1], i, j)
    named: list[tuple[float, str]] = [
        (1 - truth, (f"that is the probability that they differ (z_{i} != z_{j}): sum over "
                     f"the states where they are equal")),
        (_prior_same(i, j, pb), ("that is the prior probability, before the words: weigh "
                                 "each state by its posterior p(z | w), from the joint p(w, z)")),
        (marginals, ("that is sum_k p(z_i = k | w) p(z_j = k | w), the product of the "
                     "marginals (each is 1/2: the two labels are exchangeable): the tokens are "
                     "not independent a posteriori, so sum the joint posterior over the states "
                     "with z_i == z_j")),
        (float(np.exp(logj)[same].sum()), ("that sum is not normalised: divide the joint "
                                           "p(w, z) by its total over all states, p(w)")),
        (float(np.exp(logj - logj.max())[same].sum()),
         ("that sum is not normalised: after exp(logp - max), divide by the total over all "
          "states")),
        (swapped, (f"alpha and beta are swapped: alpha = {ALPHA} (the documents' prior), "
                   f"beta = {BETA} (the topics' prior over words)")),
    ]
    named += [(float(p[(Z[:, i] == k) & (Z[:, j] == k)].sum()),
               f"that is p(z_i = z_j = {k} | w), one topic only: sum over every topic k")
              for k in range(K)]
    others: dict[float, list[tuple[int, int]]] = {}   # pairs with equal values named together
    for a, b in itertools.combinations(range(c.n_tokens), 2):
        v = _pair_probability(Z, p, a, b)
        if (a, b) != (i, j) and abs(v - truth) > 1e-6:
            key = next((u for u in others if abs(u - v) <= EXACT_TOL), v)
            others.setdefault(key, []).append((a, b))
    ours = (f"{i} and {j} ({c.vocabulary[pb.word[i]]!r} and {c.vocabulary[pb.word[j]]!r} of "
            f"document {pb.doc[i]})")
    named += [(v, (f"that is the probability for tokens {_pairs_text(pairs)}; the exercise's "
                   f"are {ours}, numbered from 0 in corpus order (the table of tokens above)"))
              for v, pairs in others.items()]
    for value, hint in named:
        # the unnormalised sums are tiny (p(w, z) ~ 1e-7): compared relatively
        tol = EXACT_TOL if abs(value) >= 1e-3 else EXACT_TOL * abs(value)
        if abs(x - value) <= tol:
            return wrong(f"your {x:.6g}: {hint}.")
    if abs(x - truth) <= 0.05:
        return wrong(f"your {x:.6g} is close, {abs(x - truth):.2g} away, but not exact: rounded, "
                     f"or a Monte Carlo estimate (its error is of order 1/sqrt(number of "
                     f"draws))? Sum the exact posterior p(z | w) over all {len(p)} states with "
                     f"z_{i} == z_{j} and give the full float")
    return wrong(f"your {x:.6g} is not p(z_{i} = z_{j} | w): enumerate the {len(p)} states, "
                 f"normalise their joint p(w, z) into p(z | w) and sum it over the states "
                 f"with z_{i} == z_{j}")


def _pairs_text(pairs: list[tuple[int, int]]) -> str:
    """``"4 and 7"``, or ``"0 and 1 (or 0 and 3, 1 and 2: the same value)"``."""
    first = f"{pairs[0][0]} and {pairs[0][1]}"
    if len(pairs) == 1:
        return first
    return first + f" (or {', '.join(f'{a} and {b}' for a, b in pairs[1:])}: the same value)"


def _prior_same(i: int, j: int, pb: _Problem) -> float:
    """p(z_i = z_j) under the prior alone: in one document the Dirichlet-multinomial's
    sum_k alpha_k (alpha_k + 1) / (A (A + 1)), in two sum_k (alpha_k / A)**2."""
    a, A = pb.alpha, pb.alpha.sum()
    if pb.doc[i] == pb.doc[j]:
        return float((a * (a + 1)).sum() / (A * (A + 1)))
    return float(((a / A) ** 2).sum())
