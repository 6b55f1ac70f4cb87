"""Lesson 7, reading topics honestly (``notebooks/course/07_reading_topics.ipynb``): which
words read a topic, what share of a class's documents a topic takes and how sure the
posterior is of it, and how often such intervals hold. The checks:

* ``check_relevance(top_relevant, session)``: the student's ``top_relevant(phi, word_counts,
  k, lam, n)``, the ids of topic k's n most relevant words (Sievert & Shirley 2014:
  lam log phi_kw + (1 - lam) log(phi_kw / p_w)), against the library's read-out
  ``session.topics(n, by="relevance", lam=lam)`` for every topic at four lambdas;
  diagnoses a lift not divided by p_w, lambda on the wrong term, no logarithm, p_w taken from
  the topics instead of the corpus, the least relevant words, worst first, 1-based ids.
* ``check_class_share(class_share, draws)``: the student's ``class_share(class_draws, c,
  k)``, the posterior mean and 90% equal-tailed interval of class c's share of topic k from
  ``PrevalenceDraws.class_draws``, against ``draws.prevalence("class", 0.9)`` for every
  cell; diagnoses an 80% or 95% interval, percents given to ``np.quantile``, a normal
  approximation, the Monte Carlo standard error taken for the posterior's spread, the median,
  class and topic swapped, the three numbers out of order.
* ``check_covered(covered, runs)``: the student's ``covered(lower, upper, truth, perm)``,
  which cells' intervals hold the true class mean once the fitted topics are aligned with
  the true ones, on designed cases and on simulated corpora of known class means
  (``topicsup.testing.coverage``); diagnoses an alignment forgotten or inverted, the misses
  marked, one end of the interval forgotten, classes and topics transposed, a count returned.
* ``check_interval_meaning(answer)``: the choice of what a prevalence interval claims (the
  posterior of the in-sample class mean, conditional on the model), each wrong choice with
  its own reason.

Helpers for the notebook: ``intervals(draws, level)`` (the (C, K) bounds of a draws' class
intervals) and ``coverage_frame(runs, level)`` (every cell of every replication, aligned,
with whether its interval covers the truth).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import terms
from ..arrays import F64
from ..prevalence import PrevalenceDraws
from ..session import Session
from ._feedback import Feedback, StudentError, call, checked, right, wrong

# Exact answers are compared to 1e-9: the student's arithmetic and the library's differ only
# by rounding (summation order, log of a ratio or difference of logs: ~1e-15 relative).
TOL = 1e-9
RELEVANCE_LAMBDAS = (0.6, 0.3, 0.0, 1.0)   # the default, one between, both ends
N_WORDS = 10
LEVEL = 0.9

Run = tuple[PrevalenceDraws, Any, Any]   # (draws, truth (C, K), perm (K,)) of a replication


# ---------------------------------------------------------------------- helpers
def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _as_ids(out: Any, n: int, V: int, what: str) -> np.ndarray:
    """The student's word ids as int64 (n,), or a StudentError naming what is wrong."""
    arr = np.asarray(out, dtype=object).ravel() if not isinstance(out, np.ndarray) \
        else out.ravel()
    if any(isinstance(v, (str, np.str_)) for v in arr[:5]):
        raise StudentError(wrong(f"{what} returned words ('{arr[0]}', ...): return the words' "
                                 f"ids, ints in 0..V-1 (vocabulary[ids] gives the words)"))
    if arr.dtype == bool or (arr.size == V and arr.size != n
                             and set(np.unique(arr.astype(float))) <= {0.0, 1.0}):
        raise StudentError(wrong(f"{what} returned a mask over the {V} words: return the "
                                 f"ids of the {n} best, best first"))
    try:
        ids = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"{what} must return {n} word ids (ints), got "
                                 f"{type(out).__name__}")) from None
    if ids.size != n:
        raise StudentError(wrong(f"{what} returned {ids.size} ids for n = {n}: return exactly "
                                 f"n (ids[:n] after sorting; an off-by-one in the slice?)"))
    if not (np.isfinite(ids).all() and (ids == np.round(ids)).all()):
        raise StudentError(wrong(f"{what} returned values that are not word ids "
                                 f"({_fmt(float(ids[0]))}, ...): return the indices of the "
                                 f"words (np.argsort), not their relevance"))
    return ids.astype(np.int64)


def _ranks_by(ids: np.ndarray, score: F64, n: int) -> bool:
    """Whether ``ids`` are the ``n`` best by ``score``, best first, ties in any order: their
    scores equal, position by position, those of the library's ranking."""
    if ids.min() < 0 or ids.max() >= score.size or np.unique(ids).size != ids.size:
        return False
    best = terms.best(score, n)
    return bool(np.allclose(score[ids], score[best], rtol=1e-12, atol=TOL))


def _same_values(ids: np.ndarray, score: F64, n: int) -> bool:
    """Whether ``ids`` are the ``n`` best by ``score`` in some order (ties in any order)."""
    if ids.min() < 0 or ids.max() >= score.size or np.unique(ids).size != ids.size:
        return False
    return bool(np.allclose(np.sort(score[ids]), np.sort(score[terms.best(score, n)]),
                            rtol=1e-12, atol=TOL))


def _relevance_variants(phi: F64, counts: F64, k: int, lam: float) -> dict[str, F64]:
    """The right relevance of topic k's words (the library's ``terms.Terms``) and the
    typical wrong ones, each as a score whose n largest a mistaken ranking returns."""
    log_phi = np.log(phi[k])
    p = counts / counts.sum()
    log_lift = log_phi - np.log(p)
    right_score = terms.Terms(phi, counts, lam).relevance(k)
    return {
        "right": right_score,
        # lift taken as phi itself: lam log phi + (1 - lam) log phi, the probability ranking
        "no_division": log_phi,
        "swapped": (1.0 - lam) * log_phi + lam * log_lift,
        "lift_only": log_lift,
        "inverted_lift": lam * log_phi - (1.0 - lam) * log_lift,
        "no_log": lam * phi[k] + (1.0 - lam) * phi[k] / p,
        "lift_not_logged": lam * log_phi + (1.0 - lam) * np.exp(log_lift),
        "topic_average": lam * log_phi + (1.0 - lam) * (log_phi - np.log(phi.mean(axis=0))),
        "least": -right_score,
    }


RELEVANCE_HINTS = {
    "no_division": "your words are the topic's most probable ones at every lambda: the lift "
                   "is phi_kw / p_w, the topic's probability of the word divided by the "
                   "word's share of the corpus, p_w = word_counts / word_counts.sum()",
    "swapped": "lambda is on the wrong term: r = lam log phi_kw + (1 - lam) log lift (lambda "
               "= 1 is the probability ranking, 0 the lift); yours at lambda is the right "
               "ranking at 1 - lambda",
    "lift_only": "your ranking is the lift's at every lambda: mix the two, lam log phi_kw + "
                 "(1 - lam) log(phi_kw / p_w)",
    "inverted_lift": "the lift is phi_kw / p_w (how much more often the topic emits the word "
                     "than the corpus does), not p_w / phi_kw",
    "no_log": "relevance mixes logarithms, lam log phi_kw + (1 - lam) log(phi_kw / p_w), not "
              "phi_kw and the lift themselves (the lift, up to 1 / p_w, would swamp phi)",
    "lift_not_logged": "take the log of the lift too: (1 - lam) log(phi_kw / p_w), not "
                       "(1 - lam) phi_kw / p_w",
    "topic_average": "p_w is the word's share of the corpus's tokens, word_counts / "
                     "word_counts.sum(), not phi's average over the topics (which weighs a "
                     "small topic as much as a large one)",
    "least": "these are the least relevant words: sort in decreasing order, "
             "np.argsort(-r)[:n]",
}


# ---------------------------------------------------------------------- (a) relevance
@checked
def check_relevance(top_relevant: Callable[..., Any], session: Session) -> Feedback:
    """``top_relevant(phi, word_counts, k, lam, n)``: the ids of topic k's n most relevant
    words, best first, for every topic of ``session`` at lambda 0.6, 0.3, 0 and 1, against
    the library's read-out ``session.topics(n, by="relevance", lam=lam)`` (ties in any
    order). Any base of the log and counts in place of shares rank alike, so both pass."""
    phi = np.asarray(session.topic_word(), dtype=np.float64)
    K, V = phi.shape
    counts = np.bincount(session.corpus.words, minlength=V).astype(np.float64)
    index = {w: j for j, w in enumerate(session.corpus.vocabulary)}
    n = min(N_WORDS, V)
    cases = []
    for lam in RELEVANCE_LAMBDAS:
        readout = session.topics(n, by="relevance", lam=lam)
        for k in range(K):
            out = call(top_relevant, phi.copy(), counts.astype(np.int64), k, lam, n,
                       what="top_relevant")
            ids = _as_ids(out, n, V, "top_relevant")
            library = np.array([index[w] for w in readout.iloc[k][[f"word_{i + 1}"
                                                                    for i in range(n)]]])
            cases.append((lam, k, ids, library, _relevance_variants(phi, counts, k, lam)))
    failing = [c for c in cases if not _ranks_by(c[2], c[4]["right"], n)]
    if not failing:
        return right(f"topic k's {n} most relevant words, best first, are the library's "
                     f"(session.topics({n}, by='relevance', lam=...)) for all {K} topics at "
                     f"lambda = {', '.join(str(x) for x in RELEVANCE_LAMBDAS)}. (The base of "
                     f"the log scales every relevance alike and counts in place of shares "
                     f"shift them all by one constant: the ranking is the same.)")
    vocab = session.corpus.vocabulary
    if all(_ranks_by(ids[::-1], v["right"], n) for _, _, ids, _, v in failing):
        return wrong("the right words, worst first: return them best first (np.argsort(-r)[:n], "
                     "or np.argsort(r)[::-1][:n])")
    if all(_same_values(ids, v["right"], n) for _, _, ids, _, v in failing):
        return wrong("the right words in the wrong order: return them best first, by "
                     "decreasing relevance")
    if all(_ranks_by(ids - 1, v["right"], n) for _, _, ids, _, v in cases):
        return wrong("your ids are one too high: word ids count from 0 (the column of phi), "
                     "as np.argsort returns them")
    for name, hint in RELEVANCE_HINTS.items():
        if all(_ranks_by(ids, v[name], n) for _, _, ids, _, v in cases):
            return wrong(hint)
    lam, k, ids, library, variants = failing[0]
    r = variants["right"]
    missing = [int(j) for j in library if j not in set(ids.tolist())]
    if missing:
        worst = int(ids[np.argmin(r[ids])])
        detail = (f"'{vocab[missing[0]]}' (relevance {_fmt(r[missing[0]])}) belongs in the top "
                  f"{n}, and '{vocab[worst]}' ({_fmt(r[worst])}) does not")
    else:
        detail = "the words are right but not best first"
    return wrong(f"topic {k} at lambda = {lam}: yours {[vocab[j] for j in ids[:5]]} ..., the "
                 f"library's {[vocab[j] for j in library[:5]]} ...: {detail}. r(w, k | lam) = "
                 f"lam log phi_kw + (1 - lam) log(phi_kw / p_w), p_w = word_counts / "
                 f"word_counts.sum(), the n largest, best first")


# ---------------------------------------------------------------------- (b) class share
def _three(out: Any) -> tuple[float, float, float]:
    try:
        values = [float(v) for v in np.asarray(out, dtype=np.float64).ravel()]
    except (TypeError, ValueError):
        raise StudentError(wrong(f"class_share must return three numbers (mean, lower, "
                                 f"upper), got {type(out).__name__}")) from None
    if len(values) != 3:
        raise StudentError(wrong(f"class_share returned {len(values)} numbers: return three, "
                                 f"(mean, lower, upper)"))
    if not all(math.isfinite(v) for v in values):
        raise StudentError(wrong(f"class_share returned a non-finite number {values}: "
                                 f"(mean, lower, upper) of finite draws are finite"))
    return values[0], values[1], values[2]


def _near_quantile(x_sorted: F64, q: float, value: float) -> bool:
    """Whether ``value`` lies between the order statistics around the q-quantile's position
    (linear interpolation's (S - 1) q, one rank either side): where every textbook
    quantile rule puts it (Hyndman & Fan 1996's nine differ by at most a rank or so)."""
    S = x_sorted.size
    h = q * (S - 1)
    lo = x_sorted[max(math.floor(h) - 1, 0)]
    hi = x_sorted[min(math.ceil(h) + 1, S - 1)]
    return bool(lo - TOL <= value <= hi + TOL)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOL


# the quantile pairs a wrong interval comes from, with what it is
WRONG_LEVELS = {
    (0.1, 0.9): "an 80% interval: a 90% interval leaves 5% of the draws in each tail, "
                "np.quantile(x, [0.05, 0.95])",
    (0.025, 0.975): "a 95% interval: a 90% interval leaves 5% of the draws in each tail, "
                    "np.quantile(x, [0.05, 0.95])",
    (0.005, 0.995): "a 99% interval: a 90% interval leaves 5% of the draws in each tail, "
                    "np.quantile(x, [0.05, 0.95])",
    (0.0005, 0.0095): "percents given as fractions: np.percentile takes 5 and 95, "
                      "np.quantile 0.05 and 0.95; yours are the 0.05% and 0.95% quantiles",
    (0.0, 1.0): "the smallest and largest draws: a 90% interval leaves 5% of the draws in "
                "each tail, np.quantile(x, [0.05, 0.95])",
}


def _diagnose_share(X: F64, c: int, k: int, got: tuple[float, float, float],
                    want: tuple[float, float, float]) -> str | None:
    """The hint for a wrong (mean, lower, upper) of class c, topic k; None when the interval
    is a 90% one by another quantile rule (right)."""
    _, C, K = X.shape
    x = X[:, c, k]
    xs = np.sort(x)
    m, lo, hi = got
    if not _close(m, want[0]):
        # got[i] is want[order[i]]: the three numbers returned in another order
        orders = (((1, 0, 2), "(lower, mean, upper)"), ((1, 2, 0), "(lower, upper, mean)"))
        for order, name in orders:
            if all(_close(got[i], want[j]) for i, j in enumerate(order)):
                return f"the right numbers in the order {name}: return (mean, lower, upper)"
        if k < C and c < K and c != k and _close(m, float(X[:, k, c].mean())):
            return (f"class and topic swapped: you read class {k}'s share of topic {c}; "
                    f"class_draws is (draws, classes, topics), so class_draws[:, c, k]")
        if _close(m, float(np.median(x))):
            return ("the median of the draws: the point is the posterior mean, "
                    "class_draws[:, c, k].mean()")
        if _close(m, float(X[:, :, k].mean())):
            return ("the mean over every class's draws: take class c's alone, "
                    "class_draws[:, c, k]")
        return (f"class {c}, topic {k}: your mean {_fmt(m)}, the posterior mean "
                f"{_fmt(want[0])}: the average over the draws of class_draws[:, c, k]")
    if _close(lo, want[1]) and _close(hi, want[2]):
        return None
    for (a, b), what in WRONG_LEVELS.items():
        qa, qb = np.quantile(x, [a, b])
        if _close(lo, float(qa)) and _close(hi, float(qb)):
            return what
    if lo < hi and abs((m - lo) - (hi - m)) <= 1e-9 * max(1.0, hi - lo):
        z = (hi - m) / max(float(x.std()), 1e-300)
        if z < 0.5:
            return ("far too narrow: mean +- z sd / sqrt(S) is the Monte Carlo error of the "
                    "posterior mean, how well the draws pin the mean down; the interval is "
                    "the posterior's own spread: 5% and 95% quantiles of the draws")
        return ("a symmetric interval, mean +- z sd, is a normal approximation; the draws "
                "are the posterior itself (skewed when a share is near 0): take their 5% and "
                "95% quantiles, np.quantile(x, [0.05, 0.95])")
    if _near_quantile(xs, 0.05, lo) and _near_quantile(xs, 0.95, hi):
        return None
    for (a, b), what in WRONG_LEVELS.items():
        if _near_quantile(xs, a, lo) and _near_quantile(xs, b, hi):
            return what
    below, above = float((x < lo).mean()), float((x > hi).mean())
    return (f"class {c}, topic {k}: your interval ({_fmt(lo)}, {_fmt(hi)}) has "
            f"{below:.1%} of the draws below it and {above:.1%} above; a 90% equal-tailed "
            f"interval has 5% on each side: ({_fmt(want[1])}, {_fmt(want[2])})")


@checked
def check_class_share(class_share: Callable[..., Any], draws: PrevalenceDraws) -> Feedback:
    """``class_share(class_draws, c, k)`` -> (mean, lower, upper): the posterior mean of
    class c's mean share of topic k and its 90% equal-tailed interval, from ``class_draws``
    (S, C, K), against ``draws.prevalence("class", 0.9)`` for every (class, topic), to 1e-9
    (an interval by another quantile rule, within a rank of the draws, passes too)."""
    if not isinstance(draws, PrevalenceDraws):
        return wrong(f"draws must be the PrevalenceDraws of the session, got "
                     f"{type(draws).__name__}")
    if draws.n_draws < 20 or not draws.classes:
        return wrong(f"the draws hold {draws.n_draws} draws of {len(draws.classes)} classes: "
                     f"run the session with callback=draws.collect past the burn-in first")
    X = draws.class_draws
    S, C, K = X.shape
    frame = draws.prevalence("class", LEVEL)
    table = frame.set_index(["class", "topic"])
    # cells with class != topic < C first, so a class/topic swap shows before an IndexError
    cells = sorted(((c, k) for c in range(C) for k in range(K)),
                   key=lambda ck: (not (ck[1] < C and ck[0] < K and ck[0] != ck[1]), ck))
    other_rule = False
    for c, k in cells:
        row = table.loc[(draws.classes[c], k)]
        want = (float(row["mean"]), float(row["lower"]), float(row["upper"]))
        try:
            got = _three(call(class_share, X.copy(), c, k, what="class_share"))
        except StudentError as e:
            if "Quantiles must be in the range" in e.feedback.message:
                return wrong(f"{e.feedback.message}. np.quantile takes fractions, 0.05 and "
                             f"0.95 (np.percentile takes percents, 5 and 95)")
            raise
        hint = _diagnose_share(X, c, k, got, want)
        if hint is not None:
            return wrong(hint)
        other_rule = other_rule or not (_close(got[1], want[1]) and _close(got[2], want[2]))
    note = (" Your quantile rule differs from np.quantile's linear interpolation by less "
            "than one draw's rank, far below the Monte Carlo error of a 5% quantile from "
            f"{S} draws: fine." if other_rule else "")
    return right(f"posterior mean and 90% equal-tailed interval of every class's share of "
                 f"every topic ({C} classes x {K} topics, {S} draws) equal "
                 f"draws.prevalence('class', 0.9) to 1e-9.{note}")


# ---------------------------------------------------------------------- (c) coverage
def intervals(draws: PrevalenceDraws, level: float = LEVEL) -> tuple[F64, F64]:
    """The lower and upper bounds (C, K) of ``draws``' ``level`` intervals of each class's
    mean share of each topic: rows in ``draws.classes``'s order, columns the fitted
    topics."""
    frame = draws.prevalence("class", level)
    C, K = len(draws.classes), draws.K
    row = {name: i for i, name in enumerate(draws.classes)}
    lower, upper = np.empty((C, K)), np.empty((C, K))
    for name, k, a, b in zip(frame["class"], frame["topic"], frame["lower"], frame["upper"]):
        lower[row[name], int(k)], upper[row[name], int(k)] = a, b
    return lower, upper


def _covers(lower: F64, upper: F64, truth: F64, perm: np.ndarray) -> np.ndarray:
    aligned = truth[:, perm]   # fitted topic t is true topic perm[t]
    return np.asarray((lower <= aligned) & (aligned <= upper))


def _designed_cases() -> list[tuple[F64, F64, F64, np.ndarray]]:
    """Cases where every typical mistake gives another answer than the right one: three
    classes, three topics, the fitted topics a 3-cycle of the true ones (so the inverse
    alignment differs from it), about half the cells covered, the misses above and below."""
    rng = np.random.default_rng(7)
    out = []
    for perm in (np.array([1, 2, 0]), np.array([2, 0, 1]), np.array([1, 0, 2])):
        truth = rng.dirichlet(np.ones(3), size=3)
        aligned = truth[:, perm]
        hit = rng.random((3, 3)) < 0.5
        hit[0, 0], hit[1, 1] = True, False     # both kinds in every case
        side = np.where(rng.random((3, 3)) < 0.5, 1.0, -1.0)
        width = rng.uniform(0.02, 0.05, (3, 3))
        centre = np.where(hit, aligned + rng.uniform(-0.5, 0.5, (3, 3)) * width,
                          aligned + side * 2.0 * width)
        out.append((centre - width, centre + width, truth, perm))
    return out


def _coverage_variants(lower: F64, upper: F64, truth: F64, perm: np.ndarray
                       ) -> dict[str, np.ndarray]:
    inverse = np.argsort(perm)
    good = _covers(lower, upper, truth, perm)
    return {
        "right": good,
        "no_alignment": _covers(lower, upper, truth, np.arange(perm.size)),
        "inverse": _covers(lower, upper, truth, inverse),
        "misses": ~good,
        "upper_only": truth[:, perm] <= upper,
        "lower_only": lower <= truth[:, perm],
        "transposed": good.T,
    }


COVERAGE_HINTS = {
    "no_alignment": "the topics are not aligned: a chain numbers its topics in any order "
                    "(lesson 4), so fitted topic t is true topic perm[t]; compare its "
                    "interval with truth[:, perm]",
    "inverse": "the alignment is inverted: perm[t] is the true topic of fitted topic t, so "
               "fitted topic t's truth is truth[:, perm[t]], all at once truth[:, perm] "
               "(you used np.argsort(perm), the true topic -> fitted topic map)",
    "misses": "you marked the misses: a cell is covered (True) when lower <= truth <= upper",
    "upper_only": "you checked only the upper end: covered means lower <= truth and "
                  "truth <= upper",
    "lower_only": "you checked only the lower end: covered means lower <= truth and "
                  "truth <= upper",
    "transposed": "classes and topics transposed: cell [c, t] is class c (a row of lower, "
                  "upper and truth), fitted topic t (a column)",
}


def _as_cells(out: Any, shape: tuple[int, int]) -> np.ndarray:
    arr = np.asarray(out)
    if arr.ndim == 0:
        raise StudentError(wrong(f"covered returned one number ({out}): return the "
                                 f"{shape[0]} x {shape[1]} array of True/False, one per "
                                 f"(class, fitted topic); the notebook counts them"))
    if arr.shape != shape:
        raise StudentError(wrong(f"covered returned shape {arr.shape}: return one True/False "
                                 f"per class and fitted topic, shape {shape}, like lower"))
    if arr.dtype != bool:
        try:
            values = set(np.unique(arr.astype(np.float64)).tolist())
        except (TypeError, ValueError):
            values = {-1.0}
        if not values <= {0.0, 1.0}:
            raise StudentError(wrong("covered must return True/False per cell (lower <= "
                                     "truth) & (truth <= upper), not the distances"))
    return arr.astype(bool)


def _check_runs(runs: Any) -> list[Run]:
    if not isinstance(runs, Sequence) or not runs or not all(
            isinstance(r, tuple) and len(r) == 3 and isinstance(r[0], PrevalenceDraws)
            for r in runs):
        raise StudentError(wrong("runs must be the notebook's list of (draws, truth, perm) "
                                 "replications"))
    return list(runs)


def _cell_detail(lower: F64, upper: F64, truth: F64, perm: np.ndarray, c: int, t: int,
                 got: bool) -> str:
    a = float(truth[c, perm[t]])
    return (f"class {c}, fitted topic {t} (true topic {int(perm[t])}): interval "
            f"({_fmt(float(lower[c, t]))}, {_fmt(float(upper[c, t]))}), true mean {_fmt(a)}, "
            f"so covered is {not got}, yours {got}")


@checked
def check_covered(covered: Callable[..., Any], runs: Sequence[Run]) -> Feedback:
    """``covered(lower, upper, truth, perm)`` -> (C, K) bool: whether the interval of class
    c, fitted topic t holds the true class mean of the true topic perm[t]; on three designed
    cases (a mistake changes their answer) and on every replication of ``runs`` (each
    (draws, truth, perm); the 90% intervals from ``intervals(draws)``), exactly."""
    checked_runs = _check_runs(runs)
    designed = _designed_cases()
    answers = []
    for lower, upper, truth, perm in designed:
        out = call(covered, lower.copy(), upper.copy(), truth.copy(), perm.copy(),
                   what="covered")
        answers.append(_as_cells(out, lower.shape))
    variants = [_coverage_variants(*case) for case in designed]
    if not all(np.array_equal(a, v["right"]) for a, v in zip(answers, variants)):
        for name, hint in COVERAGE_HINTS.items():
            if all(np.array_equal(a, v[name]) for a, v in zip(answers, variants)):
                return wrong(hint)
        i = next(i for i, (a, v) in enumerate(zip(answers, variants))
                 if not np.array_equal(a, v["right"]))
        c, t = (int(j) for j in np.argwhere(answers[i] != variants[i]["right"])[0])
        return wrong(f"designed case {i}: {_cell_detail(*designed[i], c, t, answers[i][c, t])}"
                     f"; compare fitted topic t's interval with truth[c, perm[t]]")
    hits = cells = 0
    for r, (draws, truth, perm) in enumerate(checked_runs):
        lower, upper = intervals(draws)
        truth, perm = np.asarray(truth, np.float64), np.asarray(perm, np.int64)
        want = _covers(lower, upper, truth, perm)
        got = _as_cells(call(covered, lower.copy(), upper.copy(), truth.copy(), perm.copy(),
                             what="covered"), want.shape)
        if not np.array_equal(got, want):
            c, t = (int(j) for j in np.argwhere(got != want)[0])
            detail = _cell_detail(lower, upper, truth, perm, c, t, bool(got[c, t]))
            return wrong(f"replication {r}: {detail}")
        hits, cells = hits + int(want.sum()), cells + want.size
    R, p = len(checked_runs), hits / cells
    return right(f"your cells agree with the library's on 3 designed cases and on all {R} "
                 f"replications: {hits} of {cells} cells covered, coverage {p:.3f}. Its "
                 f"standard error is between {math.sqrt(p * (1 - p) / cells):.3f} (were the "
                 f"cells independent) and {math.sqrt(p * (1 - p) / R):.3f} (the {R} "
                 f"replications as the independent trials: a replication's cells share one "
                 f"chain and sum to one over topics).")


def coverage_frame(runs: Sequence[Run], level: float = LEVEL) -> pd.DataFrame:
    """Every cell of every replication at interval ``level``: ``replication``, ``class``,
    ``topic`` (the true topic), ``lower``, ``upper`` (its fitted topic's interval),
    ``truth`` (the true class mean) and ``covered``."""
    rows = []
    for r, (draws, truth, perm) in enumerate(_check_runs(runs)):
        lower, upper = intervals(draws, level)
        truth, perm = np.asarray(truth, np.float64), np.asarray(perm, np.int64)
        hit = _covers(lower, upper, truth, perm)
        for c in range(lower.shape[0]):
            for t in range(lower.shape[1]):
                rows.append({"replication": r, "class": draws.classes[c],
                             "topic": int(perm[t]), "lower": float(lower[c, t]),
                             "upper": float(upper[c, t]),
                             "truth": float(truth[c, perm[t]]), "covered": bool(hit[c, t])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- (d) the claim
INTERVAL_CHOICES = {
    "a": "90% of the class's documents give the topic a share inside the interval.",
    "b": "Another corpus of this class would have its mean share inside the interval "
         "with probability 0.9.",
    "c": "Given the model (its Dirichlet topics, its prior on theta) and these documents, "
         "the mean share of the topic over this class's documents lies in the interval "
         "with posterior probability 0.9.",
    "d": "Whatever process wrote the documents, such intervals cover the true class mean "
         "90% of the time.",
}
INTERVAL_HINTS = {
    "a": "that is the spread of the documents' own shares theta_dk, far wider: the interval "
         "is about one number, the class's mean share, and how sure the posterior is of it",
    "b": "another corpus adds the variation between corpora (stm's estimateEffect adds such "
         "regression uncertainty); these intervals come from the posterior of these "
         "documents' theta alone: the in-sample mean",
    "d": "the 0.9 holds when the documents were drawn the way the model says (the known-truth "
         "table of docs/prevalence.md: 0.90); on other data it is the model's claim, which "
         "your count above and the docs' table (LDA 0.74-0.91) test",
}


@checked
def check_interval_meaning(answer: Any) -> Feedback:
    """The letter of what a 90% prevalence interval claims (``INTERVAL_CHOICES``): "c", the
    posterior of the in-sample class mean conditional on the model; each other letter gets
    its own reason."""
    if answer is Ellipsis or answer is None:
        return wrong("set answer to one letter, \"a\", \"b\", \"c\" or \"d\"")
    letter = str(answer).strip().lower().strip("()").strip()
    if letter not in INTERVAL_CHOICES:
        return wrong(f"answer with one letter, \"a\", \"b\", \"c\" or \"d\", got {answer!r}")
    if letter in INTERVAL_HINTS:
        return wrong(f"({letter}) {INTERVAL_HINTS[letter]}")
    return right("(c): the interval is a 90% region of the posterior of the in-sample class "
                 "mean of theta, conditional on the model: its topics as Dirichlet-"
                 "multinomials, its prior on theta. Where the data were not drawn that way, "
                 "the 0.9 is the model's claim, not a guarantee: what the coverage count "
                 "measures.")


__all__ = ["INTERVAL_CHOICES", "check_class_share", "check_covered", "check_interval_meaning",
           "check_relevance", "coverage_frame", "intervals"]
