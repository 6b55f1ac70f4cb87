"""Lesson 5's checks (topicsup.course.lesson5): each accepts the right answer, names the
typical mistakes by their own words, turns a student's exception or missing return into
feedback; the solutions notebook runs with every check right, the student's notebook (the
exercises left as ...) runs without an error or a line on stderr. The Monte Carlo parts of
the checks are seeded: the same draws every run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from topicsup import GSLDA, MedLDA, Session
from .notebooks import all_not_yet, all_right, assert_stored_clean, outputs
from topicsup.course import lesson5
from topicsup.datasets import load_demo_corpus
from topicsup.testing.exact import tiny_corpus

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {"student": ROOT / "notebooks" / "course" / "05_augmentation.ipynb",
             "solutions": ROOT / "notebooks" / "course" / "solutions" / "05_augmentation.ipynb"}


def _says(feedback, *words):
    """Not passed, and the hint holds each of ``words``."""
    assert not feedback.passed, feedback
    for word in words:
        assert word in feedback.message, (word, feedback.message)


# ---------------------------------------------------------------------- (a) the hinge's xi

def xi_right(y, s, lam):
    return 1 / (lam * abs(1 - y * s)), 1.0


def test_xi_conditional_right_answer_passes_with_the_librarys_draws():
    fb = lesson5.check_xi_conditional(xi_right)
    assert fb.passed, fb
    assert "library's draws" in fb.message and "standard errors" in fb.message
    # numpy scalars and an array of two are answers too
    assert lesson5.check_xi_conditional(
        lambda y, s, lam: np.array([1 / (lam * np.abs(1 - y * s)), 1.0])).passed


@pytest.mark.parametrize("answer, words", [
    (lambda y, s, lam: (1 / (lam * (1 - y * s)), 1.0), ["absolute value", "|zeta|"]),
    (lambda y, s, lam: (1 / (lam * (1 - y * s) ** 2), 1.0), ["zeta is squared"]),
    (lambda y, s, lam: (1 / (lam * lam * (1 - y * s) ** 2), 1.0), ["squared mean"]),
    (lambda y, s, lam: (1 / abs(1 - y * s), 1.0), ["regularisation constant lam", "missing"]),
    (lambda y, s, lam: (lam / abs(1 - y * s), 1.0), ["lam is in the numerator"]),
    (lambda y, s, lam: (1 / (lam * abs(1 + y * s)), 1.0), ["wrong sign", "1 - y s"]),
    (lambda y, s, lam: (1 / (lam * abs(1 - s)), 1.0), ["label is missing"]),
    (lambda y, s, lam: (lam * abs(1 - y * s), 1.0), ["reciprocal of the mean"]),
    (lambda y, s, lam: (1 / (lam * abs(1 - y * s)), lam ** 2), ["your shape is lam^2",
                                                                 "shape = 1"]),
    (lambda y, s, lam: (1 / (lam * abs(1 - y * s)), lam), ["your shape is lam"]),
    (lambda y, s, lam: (1.0, 1 / (lam * abs(1 - y * s))), ["swapped"]),
], ids=["no-abs", "zeta-squared", "mean-squared", "no-lam", "lam-inverted", "zeta-sign",
        "no-label", "reciprocal", "shape-lam2", "shape-lam", "swapped"])
def test_xi_conditional_names_the_mistake(answer, words):
    _says(lesson5.check_xi_conditional(answer), *words)


def test_xi_conditional_unknown_mistake_shows_the_librarys_draws():
    fb = lesson5.check_xi_conditional(lambda y, s, lam: (2 / (lam * abs(1 - y * s)), 1.0))
    _says(fb, "not 1/(lam |zeta|)", "the library's draws there average")


def xi_unanswered(y, s, lam):
    ...  # the notebook's exercise cell as given


@pytest.mark.parametrize("answer, words", [
    (xi_unanswered, ["returned None"]),
    (lambda y, s, lam: 1 / 0, ["raised ZeroDivisionError"]),
    (lambda y, s, lam: 0.5, ["two numbers"]),
    (lambda y, s, lam: (1.0, 2.0, 3.0), ["two numbers"]),
    (lambda y, s, lam: ("a", "b"), ["two numbers"]),
    (3.0, ["must be a function"]),
], ids=["none", "raises", "one-number", "three-numbers", "strings", "not-callable"])
def test_xi_conditional_bad_code_is_feedback(answer, words):
    _says(lesson5.check_xi_conditional(answer), *words)


# ---------------------------------------------------------------------- (b) the PG mean

def pg_right(z):
    return 0.25 if z == 0 else math.tanh(z / 2) / (2 * z)


def test_pg_mean_series_is_the_closed_form():
    for z in (0.0, 0.5, 2.0, -3.0, 10.0, 40.0):
        assert math.isclose(lesson5.pg_mean_series(z), pg_right(z), rel_tol=1e-12)


def test_pg_mean_right_answers_pass():
    fb = lesson5.check_pg_mean(pg_right)
    assert fb.passed, fb
    assert "series" in fb.message and "library's exact draws" in fb.message
    # the same mean written with the logistic sigmoid: sigma(z) - 1/2 = tanh(z/2) / 2
    assert lesson5.check_pg_mean(
        lambda z: 0.25 if z == 0 else (1 / (1 + math.exp(-z)) - 0.5) / z).passed


@pytest.mark.parametrize("answer, words", [
    (lambda z: 0.25 if z == 0 else math.tanh(z) / (2 * z), ["tanh(z), not tanh(z/2)"]),
    (lambda z: 0.5 if z == 0 else math.tanh(z / 2) / z, ["twice the mean", "2z"]),
    (lambda z: 0.25, ["1/4 is the mean at z = 0 only"]),
    (lambda z: 0.25 if z == 0 else math.tanh(abs(z) / 2) / (2 * z), ["negative for z < 0",
                                                                     "even in z"]),
    (lambda z: 1 / 24 if z == 0 else (math.sinh(z) - z) / (4 * z ** 3 * math.cosh(z / 2) ** 2),
     ["variance"]),
    (lambda z: np.tanh(z / 2) / (2 * z), ["pg_mean(0) is nan", "1/4"]),
    (lambda z: math.tanh(z / 2) / (2 * z), ["pg_mean(0) divides by zero", "0.25"]),
    (lambda z: 0.5 if z == 0 else math.tanh(z / 2) / (2 * z), ["pg_mean(0) = 0.5",
                                                               "mean 1/4"]),
    (lambda z: 0.25 if z == 0 else math.exp(-abs(z)) / 4, ["not the mean of PG(1, z)",
                                                           "library's draws there"]),
], ids=["tanh-z", "no-2", "constant", "abs", "variance", "nan-at-0", "zerodiv-at-0",
        "wrong-at-0", "unknown"])
def test_pg_mean_names_the_mistake(answer, words):
    _says(lesson5.check_pg_mean(answer), *words)


@pytest.mark.parametrize("answer, words", [
    (lambda z: None, ["returned None"]),
    (lambda z: [][1], ["raised IndexError"]),
    (lambda z: "a quarter", ["must be a number"]),
    (lambda z: np.ones(3), ["must be one number"]),
], ids=["none", "raises", "string", "array"])
def test_pg_mean_bad_code_is_feedback(answer, words):
    _says(lesson5.check_pg_mean(answer), *words)


# ---------------------------------------------------------------------- (c) the label ratio

@pytest.fixture(scope="module")
def session():
    s = Session(GSLDA(K=6, c=25.0, sampler="gibbs"), load_demo_corpus().corpus, seed=0)
    s.run(30)
    return s


def _score(eta, topics, position, decrement=True, N=None):
    n = np.bincount(topics, minlength=len(eta)).astype(float)
    if decrement:
        n[topics[position]] -= 1
    return (eta @ n + eta) / (len(topics) if N is None else N)


def ratio_right(p_lda, eta, b, w, topics, position):
    s = _score(eta, topics, position)
    f = np.exp(b * s - w * s ** 2 / 2)
    return f / (p_lda @ f)


def _variant(log_factor=None, norm="p_lda", score=_score):
    """A student's label_ratio with one mistake: the factor's log, or the normaliser."""
    def fn(p_lda, eta, b, w, topics, position):
        s = score(eta, topics, position)
        g = b * s - w * s ** 2 / 2 if log_factor is None else log_factor(b, w, s)
        f = np.exp(g - g.max())
        return {"p_lda": f / (p_lda @ f), "none": np.exp(g), "sum": f / f.sum(),
                "with": p_lda * f / (p_lda @ f), "log": g}[norm]
    return fn


def test_label_ratio_right_answer_passes_against_the_inspector(session):
    fb = lesson5.check_label_ratio(ratio_right, session, doc=1)
    assert fb.passed, fb
    assert "token inspector" in fb.message and "labels +1 and -1" in fb.message
    tok = lesson5.token_parts(session, 1, 4)
    np.testing.assert_allclose(ratio_right(tok.p_lda, tok.eta, tok.b, tok.w, tok.topics, 4)
                               * tok.p_lda, tok.p_exact, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("answer, words", [
    (_variant(score=lambda e, t, p: _score(e, t, p, decrement=False)),
     ["still in the counts", "n_jd^-di"]),
    (_variant(score=lambda e, t, p: _score(e, t, p, N=1)), ["divide m + eta_k by N_d"]),
    (lambda p_lda, eta, b, w, topics, position: np.exp(
        b * _score(eta, topics, position, N=1)), ["non-finite", "divided by N_d"]),
    (_variant(score=lambda e, t, p: _score(e, t, p, N=len(t) - 1)), ["len(topics)"]),
    (_variant(score=lambda e, t, p: e / len(t)), ["counts the other tokens too"]),
    (_variant(lambda b, w, s: b * s + w * s ** 2 / 2), ["wrong sign"]),
    (_variant(lambda b, w, s: b * s - w * s ** 2), ["lost its half"]),
    (_variant(lambda b, w, s: b * s), ["-w s^2 / 2 is missing"]),
    (_variant(lambda b, w, s: -w * s ** 2 / 2), ["linear term b s is missing"]),
    (_variant(lambda b, w, s: w * s - b * s ** 2 / 2), ["b and w are swapped"]),
    (_variant(norm="none"), ["not normalised", "sum_j p_lda(j) f(j)"]),
    (_variant(norm="sum"), ["not by sum_j f(j)"]),
    (_variant(norm="with"), ["you returned the conditional with the label factor"]),
    (_variant(norm="log"), ["log of the factor"]),
    (_variant(lambda b, w, s: 2 * b * s - w * s ** 2 / 2), ["not the ratio the inspector"]),
], ids=["no-decrement", "no-N", "no-N-overflow", "N-1", "no-m", "quad-sign", "no-half",
        "no-quadratic", "no-linear", "swapped", "unnormalised", "sum-normalised",
        "conditional", "log", "unknown"])
def test_label_ratio_names_the_mistake(session, answer, words):
    fb = lesson5.check_label_ratio(answer, session, doc=1)
    _says(fb, *words)
    assert "of document" in fb.message   # which token it failed on


@pytest.mark.parametrize("answer, words", [
    (lambda *a: None, ["returned None"]),
    (lambda *a: 1 / 0, ["raised ZeroDivisionError"]),
    (lambda *a: np.ones(3), ["K = 6 numbers", "got 3"]),
    (lambda *a: "ratio", ["K = 6 numbers"]),
], ids=["none", "raises", "short", "string"])
def test_label_ratio_bad_code_is_feedback(session, answer, words):
    _says(lesson5.check_label_ratio(answer, session, doc=1), *words)


def test_token_parts_refuses_the_marginal_factor_and_the_check_says_so():
    corpus = tiny_corpus([[0, 1, 1], [2, 0], [1, 2, 2]], labels=["a", "b", "a"])
    s = Session(MedLDA(K=2, sampler="gibbs", supervised_factor="marginal"), corpus, seed=0)
    with pytest.raises(ValueError, match="supervised_factor='augmented'"):
        lesson5.token_parts(s, 0, 0)
    _says(lesson5.check_label_ratio(ratio_right, s), "needs the lesson's kind of session",
          "supervised_factor='augmented'")


# ---------------------------------------------------------------------- the charts

def _finite(spec):
    """No NaN or infinity anywhere in a chart's JSON (a browser would refuse it)."""
    text = json.dumps(spec)
    return "NaN" not in text and "Infinity" not in text


@pytest.mark.parametrize("fn", [xi_right, None, lambda y, s, lam: ...,
                                lambda y, s, lam: (-1.0, 1.0), lambda y, s, lam: 1 / 0])
@pytest.mark.parametrize("y, s, lam", [(1, 0.3, 1.0), (-1, 2.0, 2.0), (1, 1.0, 1.0)])
def test_xi_chart_is_finite_for_any_answer(fn, y, s, lam):
    assert _finite(lesson5.xi_chart(y, s, lam, fn, n=500).to_dict())


@pytest.mark.parametrize("fn", [pg_right, None, lambda z: None,
                                lambda z: math.tanh(z / 2) / (2 * z)])
def test_pg_mean_chart_is_finite_for_any_answer(fn):
    assert _finite(lesson5.pg_mean_chart(fn, n=200).to_dict())


# ---------------------------------------------------------------------- the notebooks

def test_notebooks_are_committed_without_outputs():
    assert_stored_clean(NOTEBOOKS.values(), 5)


def test_solutions_notebook_every_check_is_right(executed):
    nb = executed["solutions"]
    checks = [c for c in nb.cells if c.cell_type == "code" and "lesson5.check_" in c.source]
    assert len(checks) == 3
    all_right(nb, 3)


def test_student_notebook_runs_without_errors(executed):
    nb = executed["student"]
    assert all("replace the ..." in h for h in all_not_yet(nb, 3))
    assert not any("NaN" in json.dumps(o) for o in outputs(nb))
