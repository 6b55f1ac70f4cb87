"""Lesson 7's checks (topicsup.course.lesson7): each accepts the right answer (and the
answers that differ from it only where the result cannot, such as the base of the log),
names each typical mistake by its own words, and turns a student's exception or missing
return into feedback; the helpers agree with the library's read-outs; the solutions notebook
runs with every check right and the student's (exercises left as ...) without an error, a
line on stderr or a NaN. Everything is seeded: the same chains and draws every run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from topicsup import DMR, Session
from .notebooks import all_not_yet, all_right, assert_stored_clean, outputs
from topicsup.course import lesson7
from topicsup.datasets import make_synthetic
from topicsup.prevalence import run_keeping_prevalence
from topicsup.testing import coverage

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {"student": ROOT / "notebooks" / "course" / "07_reading_topics.ipynb",
             "solutions": ROOT / "notebooks" / "course" / "solutions" /
             "07_reading_topics.ipynb"}


def _says(feedback, *words):
    """Not passed, and the hint holds each of ``words``."""
    assert not feedback.passed, feedback
    for word in words:
        assert word in feedback.message, (word, feedback.message)


def _raises(*args):
    raise ZeroDivisionError("division by zero")


def _nothing(*args):
    return None


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def fitted():
    """The notebook's session: DMR on six themes in three classes, 200 prevalence draws."""
    corpus = make_synthetic(n_docs=300, n_topics=6, doc_length=50, task="multiclass",
                            n_classes=3, topic_purity=0.6, seed=7).corpus
    s = Session(DMR(K=6), corpus, seed=1)
    draws = run_keeping_prevalence(s, 300, burn=100)
    return s, draws


@pytest.fixture(scope="module")
def runs():
    """Three replications as the notebook makes them (seeds 0-2), shorter chains."""
    out = []
    for seed in range(3):
        corpus, phi, truth = coverage.simulate(seed, "flipped", lengths=(10, 30))
        fit = Session(DMR(K=3, beta=0.1), corpus, seed=seed, log_joint_every=0)
        kept = run_keeping_prevalence(fit, 200, burn=50)
        cost = np.abs(fit.topic_word()[:, None, :] - phi[None, :, :]).sum(axis=-1)
        out.append((kept, truth, linear_sum_assignment(cost)[1]))
    return out


# ---------------------------------------------------------------------- (a) relevance
def _ranked(score):
    def top(phi, word_counts, k, lam, n):
        p = word_counts / word_counts.sum()
        return np.argsort(-score(np.log(phi[k]), np.log(phi[k] / p), lam, phi, p, k),
                          kind="stable")[:n]
    return top


relevance_right = _ranked(lambda lp, ll, lam, *_: lam * lp + (1 - lam) * ll)


def test_relevance_right_answer_passes(fitted):
    s, _ = fitted
    fb = lesson7.check_relevance(relevance_right, s)
    assert fb.passed, fb
    assert "session.topics(10, by='relevance'" in fb.message and "6 topics" in fb.message


def test_relevance_log10_and_counts_rank_alike(fitted):
    """Neither the log's base (a scale) nor counts for shares (a shift) changes a ranking."""
    s, _ = fitted

    def log10_counts(phi, word_counts, k, lam, n):
        r = lam * np.log10(phi[k]) + (1 - lam) * np.log10(phi[k] / word_counts)
        return list(np.argsort(-r)[:n])
    assert lesson7.check_relevance(log10_counts, s).passed


@pytest.mark.parametrize("answer, words", [
    (_ranked(lambda lp, ll, lam, *_: lp), ["most probable ones at every lambda", "phi_kw / p_w"]),
    (_ranked(lambda lp, ll, lam, *_: (1 - lam) * lp + lam * ll), ["wrong term", "1 - lambda"]),
    (_ranked(lambda lp, ll, lam, *_: ll), ["lift's at every lambda"]),
    (_ranked(lambda lp, ll, lam, *_: lam * lp - (1 - lam) * ll), ["not p_w / phi_kw"]),
    (_ranked(lambda lp, ll, lam, *_: lam * np.exp(lp) + (1 - lam) * np.exp(ll)),
     ["mixes logarithms"]),
    (_ranked(lambda lp, ll, lam, *_: lam * lp + (1 - lam) * np.exp(ll)), ["log of the lift"]),
    (_ranked(lambda lp, ll, lam, phi, p, k: lam * lp + (1 - lam) * (lp - np.log(phi.mean(0)))),
     ["share of the corpus's tokens", "not phi's average over the topics"]),
    (_ranked(lambda lp, ll, lam, *_: -(lam * lp + (1 - lam) * ll)), ["least relevant"]),
    (lambda *a: relevance_right(*a)[::-1], ["worst first"]),
    (lambda *a: relevance_right(*a) + 1, ["one too high"]),
    (lambda phi, c, k, lam, n: relevance_right(phi, c, k, lam, n + 1), ["returned 11 ids",
                                                                         "off-by-one"]),
    (lambda phi, c, k, lam, n: np.sort(lam * np.log(phi[k]))[:n], ["not word ids"]),
    (_raises, ["raised ZeroDivisionError"]),
    (_nothing, ["returned None", "replace the ..."]),
])
def test_relevance_names_the_mistake(fitted, answer, words):
    _says(lesson7.check_relevance(answer, fitted[0]), *words)


def test_relevance_words_instead_of_ids(fitted):
    s, _ = fitted
    vocab = np.asarray(s.corpus.vocabulary)
    _says(lesson7.check_relevance(lambda *a: vocab[relevance_right(*a)], s),
          "returned words", "ids")


# ---------------------------------------------------------------------- (b) class share
def share_right(X, c, k):
    x = X[:, c, k]
    lower, upper = np.quantile(x, [0.05, 0.95])
    return x.mean(), lower, upper


def _interval(make):
    def share(X, c, k):
        x = X[:, c, k]
        return (x.mean(), *make(x))
    return share


def test_class_share_right_answer_passes(fitted):
    fb = lesson7.check_class_share(share_right, fitted[1])
    assert fb.passed, fb
    assert "3 classes x 6 topics" in fb.message and "quantile rule" not in fb.message


def test_class_share_other_quantile_rule_passes_with_a_note(fitted):
    fb = lesson7.check_class_share(
        _interval(lambda x: np.quantile(x, [0.05, 0.95], method="inverted_cdf")), fitted[1])
    assert fb.passed and "quantile rule differs" in fb.message, fb


def _normal(x, z):
    return x.mean() - z * x.std(), x.mean() + z * x.std()


@pytest.mark.parametrize("answer, words", [
    (_interval(lambda x: np.quantile(x, [0.1, 0.9])), ["an 80% interval", "0.05, 0.95"]),
    (_interval(lambda x: np.quantile(x, [0.025, 0.975])), ["a 95% interval"]),
    (_interval(lambda x: np.percentile(x, [0.05, 0.95])), ["np.percentile takes 5 and 95"]),
    (_interval(lambda x: np.quantile(x, [5, 95])), ["np.quantile takes fractions"]),
    (_interval(lambda x: (x.min(), x.max())), ["smallest and largest draws"]),
    (_interval(lambda x: _normal(x, 1.645)), ["normal approximation"]),
    (_interval(lambda x: _normal(x, 1.645 / np.sqrt(x.size))), ["Monte Carlo error",
                                                                  "posterior's own spread"]),
    (lambda X, c, k: (np.median(X[:, c, k]), *np.quantile(X[:, c, k], [0.05, 0.95])),
     ["median", "posterior mean"]),
    (lambda X, c, k: share_right(X.swapaxes(1, 2), c, k), ["class and topic swapped"]),
    (lambda X, c, k: np.array(share_right(X, c, k))[[1, 0, 2]], ["(lower, mean, upper)"]),
    (lambda X, c, k: (X[:, :, k].mean(), *np.quantile(X[:, c, k], [0.05, 0.95])),
     ["every class's draws"]),
    (_interval(lambda x: np.quantile(x, [0.05, 0.9])), ["5.0% of the draws below",
                                                         "10.0% above"]),
    (lambda X, c, k: np.quantile(X[:, c, k], [0.05, 0.95]), ["returned 2 numbers"]),
    (_raises, ["raised ZeroDivisionError"]),
    (_nothing, ["returned None"]),
])
def test_class_share_names_the_mistake(fitted, answer, words):
    _says(lesson7.check_class_share(answer, fitted[1]), *words)


def test_class_share_wants_the_draws(fitted):
    _says(lesson7.check_class_share(share_right, fitted[1].class_draws), "PrevalenceDraws")


# ---------------------------------------------------------------------- (c) coverage
def covered_right(lower, upper, truth, perm):
    aligned = truth[:, perm]
    return (lower <= aligned) & (aligned <= upper)


def test_covered_right_answer_passes_and_counts(runs):
    fb = lesson7.check_covered(covered_right, runs)
    assert fb.passed, fb
    hits = int(lesson7.coverage_frame(runs)["covered"].sum())
    assert f"{hits} of 27 cells covered" in fb.message and "standard error" in fb.message
    # strict inequalities differ only on a tie, and 0/1 are True/False
    assert lesson7.check_covered(
        lambda lo, hi, t, p: ((lo < t[:, p]) & (t[:, p] < hi)).astype(int), runs).passed


@pytest.mark.parametrize("answer, words", [
    (lambda lo, hi, t, p: (lo <= t) & (t <= hi), ["not aligned", "truth[:, perm]"]),
    (lambda lo, hi, t, p: covered_right(lo, hi, t, np.argsort(p)), ["inverted",
                                                                     "np.argsort(perm)"]),
    (lambda *a: ~covered_right(*a), ["marked the misses"]),
    (lambda lo, hi, t, p: t[:, p] <= hi, ["only the upper end"]),
    (lambda lo, hi, t, p: lo <= t[:, p], ["only the lower end"]),
    (lambda *a: covered_right(*a).T, ["transposed"]),
    (lambda *a: covered_right(*a).sum(), ["one number", "the notebook counts them"]),
    (lambda *a: covered_right(*a).mean(), ["one number"]),
    (lambda *a: covered_right(*a).ravel(), ["shape (9,)"]),
    (lambda lo, hi, t, p: t[:, p] - lo, ["not the distances"]),
    (lambda lo, hi, t, p: (lo <= t[p]) & (t[p] <= hi), ["designed case", "truth[c, perm[t]]"]),
    (_raises, ["raised ZeroDivisionError"]),
    (_nothing, ["returned None"]),
])
def test_covered_names_the_mistake(runs, answer, words):
    _says(lesson7.check_covered(answer, runs), *words)


def test_covered_wants_the_runs(runs):
    _says(lesson7.check_covered(covered_right, [r[0] for r in runs]), "(draws, truth, perm)")


def test_helpers_agree_with_the_librarys_frames(runs):
    draws, truth, perm = runs[0]
    lower, upper = lesson7.intervals(draws)
    frame = draws.prevalence("class", 0.9)
    assert np.array_equal(lower.ravel(), frame["lower"].to_numpy())   # class-major, as frame
    assert np.array_equal(upper.ravel(), frame["upper"].to_numpy())
    cells = lesson7.coverage_frame(runs, 0.5)
    assert len(cells) == 27 and set(cells["topic"]) == {0, 1, 2}
    first = cells[cells["replication"] == 0]
    lo5, hi5 = lesson7.intervals(draws, 0.5)
    assert np.array_equal(first["covered"].to_numpy(),
                          covered_right(lo5, hi5, truth, perm).ravel())
    # wider intervals cover at least as often
    assert lesson7.coverage_frame(runs, 0.9)["covered"].sum() >= cells["covered"].sum()


# ---------------------------------------------------------------------- (d) the claim
def test_interval_meaning():
    assert lesson7.check_interval_meaning("c").passed
    assert lesson7.check_interval_meaning(" (C) ").passed
    _says(lesson7.check_interval_meaning("a"), "spread of the documents' own shares")
    _says(lesson7.check_interval_meaning("b"), "variation between corpora", "in-sample")
    _says(lesson7.check_interval_meaning("d"), "drawn the way the model says")
    _says(lesson7.check_interval_meaning(...), "set answer to one letter")
    _says(lesson7.check_interval_meaning("e"), "one letter")


# ---------------------------------------------------------------------- the notebooks
def _no_nan(nb):
    assert not any("NaN" in json.dumps(o) for o in outputs(nb))


def test_notebooks_are_committed_without_outputs():
    assert_stored_clean(NOTEBOOKS.values(), 7)


def test_solutions_notebook_every_check_is_right(executed):
    nb = executed["solutions"]
    checks = [c for c in nb.cells if c.cell_type == "code" and "lesson7.check_" in c.source]
    assert len(checks) == 4
    all_right(nb, 4)
    _no_nan(nb)


def test_student_notebook_runs_without_errors(executed):
    nb = executed["student"]
    not_yet = all_not_yet(nb, 4)
    _no_nan(nb)
    assert sum("replace the ..." in h for h in not_yet) == 3
    assert any("set answer to one letter" in h for h in not_yet)
