"""Lesson 1's checks (topicsup.course.lesson1): each accepts the right answer, names the
typical mistakes by their own words, turns a student's exception or missing return into
feedback; the sweep's chi-square alone rejects a forgotten decrement; every mistake the
conditional's check names is far from the truth, so its 1e-9 tolerance separates them; the
solutions notebook runs with every check right, the student's notebook (the exercises left as
...) runs without an error or a line on stderr. Every draw is seeded: the same verdict every
run."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from .notebooks import all_not_yet, all_right, assert_stored_clean, outputs, text_of
from topicsup.course import lesson1
from topicsup.testing.exact import lda_log_joint_states

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {"student": ROOT / "notebooks" / "course" / "01_gibbs_conditional.ipynb",
             "solutions": ROOT / "notebooks" / "course" / "solutions"
             / "01_gibbs_conditional.ipynb"}


def _says(feedback, *words):
    """Not passed, and the hint holds each of ``words``."""
    assert not feedback.passed, feedback
    for word in words:
        assert word in feedback.message, (word, feedback.message)


# ----------------------------------------------------------------- exercise 1: the conditional

def conditional(n_dk, n_wk, n_k, s, alpha, beta, V):
    e = np.arange(len(n_k)) == s
    p = (n_dk - e + alpha) * (n_wk - e + beta) / (n_k - e + V * beta)
    return p / p.sum()


def _variant(remove="dwk", every=False, denominator="Vbeta", swap=False, normalise=True):
    """The conditional with a typical mistake: token i removed only from the counts named in
    ``remove`` (or from ``every`` topic), another denominator, alpha and beta swapped, no
    normalisation."""
    def f(n_dk, n_wk, n_k, s, alpha, beta, V):
        e = np.ones(len(n_k)) if every else (np.arange(len(n_k)) == s).astype(float)
        d = n_dk - (e if every or "d" in remove else 0)
        w = n_wk - (e if every or "w" in remove else 0)
        k = n_k - (e if every or "k" in remove else 0)
        a, b = (beta, alpha) if swap else (alpha, beta)
        total = {"Vbeta": k + V * b, "beta": k + b, "none": 1.0}[denominator]
        p = (d + a) * (w + b) / total
        return p / p.sum() if normalise else p
    return f


def test_the_right_conditional_passes():
    fb = lesson1.check_conditional(conditional)
    assert fb.passed, fb
    assert "to 1e-9" in fb.message and "K = 3" in fb.message
    assert "Right." in fb._repr_html_()


@pytest.mark.parametrize("mistake, words", [
    (_variant(remove=""), ["not removed from its counts", "subtract 1"]),
    (_variant(remove="d"), ["removed from n_dk but not from n_wk and n_k"]),
    (_variant(every=True), ["every topic"]),
    (_variant(denominator="beta"), ["+ V beta"]),
    (_variant(denominator="none"), ["denominator n_k^-i + V beta is missing"]),
    (_variant(swap=True), ["alpha and beta are swapped"]),
    (_variant(normalise=False), ["not normalised", "p / p.sum()"]),
    # two mistakes at once: both named
    (_variant(remove="", denominator="beta"), ["not removed", "+ V beta"]),
    (_variant(swap=True, normalise=False), ["swapped", "normalise"]),
])
def test_each_mistake_of_the_conditional_is_named(mistake, words):
    _says(lesson1.check_conditional(mistake), *words)


def test_other_wrong_conditionals_get_their_own_hint():
    _says(lesson1.check_conditional(lambda *a: np.log(conditional(*a))), "log probabilities")

    def in_place(n_dk, n_wk, n_k, s, alpha, beta, V):   # removes token i from the caller's rows
        n_dk[s] -= 1
        n_wk[s] -= 1
        n_k[s] -= 1
        p = (n_dk + alpha) * (n_wk + beta) / (n_k + V * beta)
        return p / p.sum()
    _says(lesson1.check_conditional(in_place), "changed the n_dk and n_wk and n_k", "copies")

    def no_prior_in_total(n_dk, n_wk, n_k, s, alpha, beta, V):   # 0 / 0 at an empty topic
        e = np.arange(len(n_k)) == s
        with np.errstate(divide="ignore", invalid="ignore"):
            p = (n_dk - e + alpha) * (n_wk - e + beta) / (n_k - e)
            return p / p.sum()
    _says(lesson1.check_conditional(no_prior_in_total), "not finite", "division by zero")

    def two_topics(n_dk, n_wk, n_k, s, alpha, beta, V):   # hard-codes K = 2
        return conditional(n_dk[:2], n_wk[:2], n_k[:2], s % 2, alpha[:2], beta, V)
    _says(lesson1.check_conditional(two_topics), "shape (3,)")

    def first_alpha(n_dk, n_wk, n_k, s, alpha, beta, V):   # alpha[0] for every topic
        return conditional(n_dk, n_wk, n_k, s, alpha[0], beta, V)
    _says(lesson1.check_conditional(first_alpha), "K = 3", "the exact conditional")


def test_a_conditional_that_raises_or_returns_nothing_is_feedback():
    _says(lesson1.check_conditional(lambda *a: 1 / 0), "raised ZeroDivisionError")
    _says(lesson1.check_conditional(lambda *a: None), "returned None", "replace the ...")
    _says(lesson1.check_conditional(0.5), "must be a function")
    _says(lesson1.check_conditional(lambda *a: "p"), "K = 2 numbers")


def test_every_named_mistake_is_far_from_the_truth():
    """The 1e-9 tolerance: each combination of mistakes the check names moves some case's
    conditional by more than 1e-3 on the lesson's cases, so it cannot pass by rounding."""
    cases = lesson1._cases()
    combos = list(itertools.product(lesson1._REMOVAL, lesson1._DENOMINATOR, lesson1._SWAP,
                                    lesson1._FACTORS))
    assert len(combos) == 243
    for m in combos[1:]:
        gaps = []
        for c in cases:
            q = lesson1._normalised(lesson1._formula(c, *m))
            gaps.append(np.inf if not np.all(np.isfinite(q)) else np.abs(q - c.exact).max())
        assert max(gaps) > 1e-3, m


# ----------------------------------------------------------------------- exercise 2: a sweep

def _sweep(decrement=True, increment=True, tables=True, set_z=True, draw="rng",
           skip_last=False, remove_first=False, cond=conditional):
    """A sweep with a typical mistake (the right one by default)."""
    def sweep(z, doc, word, n_dk, n_wk, n_k, alpha, beta, rng):
        V, K = n_wk.shape
        for i in range(len(z) - (1 if skip_last else 0)):
            d, w, s = doc[i], word[i], z[i]
            if remove_first:
                n_dk[d, s] -= 1
                n_wk[w, s] -= 1
                n_k[s] -= 1
            p = cond(n_dk[d], n_wk[w], n_k, s, alpha, beta, V)
            if draw == "rng":
                k = rng.choice(K, p=p)
            elif draw == "argmax":
                k = int(np.argmax(p))
            elif draw == "global":
                k = np.random.choice(K, p=p)
            else:   # uniform, ignoring p
                k = rng.integers(K)
            if tables:
                if decrement and not remove_first:
                    n_dk[d, s] -= 1
                    n_wk[w, s] -= 1
                    n_k[s] -= 1
                if increment:
                    n_dk[d, k] += 1
                    n_wk[w, k] += 1
                    n_k[k] += 1
            if set_z:
                z[i] = k
        return z
    return sweep


def test_the_right_sweep_passes():
    fb = lesson1.check_sweep(_sweep(), conditional)
    assert fb.passed, fb
    assert "leaves the exact posterior invariant" in fb.message and "chi2=" in fb.message


@pytest.mark.parametrize("sweep, words", [
    (_sweep(decrement=False), ["forgotten decrement", "n_k counts"]),
    (_sweep(increment=False), ["forgotten increment"]),
    (_sweep(tables=False), ["stale counts"]),
    (_sweep(set_z=False), ["returned z unchanged", "z[i] = k"]),
    (_sweep(remove_first=True), ["removes it again"]),
    (_sweep(draw="argmax"), ["argmax", "not sampling"]),
    (_sweep(draw="global"), ["not np.random"]),
    (_sweep(skip_last=True), ["token [8] never changed topic"]),
    (_sweep(draw="uniform"), ["do not follow the posterior", "rng.choice(K, p=p)"]),
])
def test_each_mistake_of_the_sweep_is_named(sweep, words):
    np.random.seed(0)   # the sweep that draws from np.random: the same draws every run
    _says(lesson1.check_sweep(sweep), *words)


def test_the_chi_square_alone_catches_a_forgotten_decrement():
    """The test has teeth: with the check's chains and seed, the forgotten decrement (which
    the tables' check names first) is rejected by the distribution alone, far below the
    level, while the right sweep passes."""
    assert lesson1.sweep_fit(_sweep(), seed=0).pvalue > lesson1.LEVEL
    assert lesson1.sweep_fit(_sweep(decrement=False), seed=0).pvalue < 1e-8


def test_a_sweep_with_a_wrong_conditional_is_sent_back_to_exercise_1():
    _says(lesson1.check_sweep(_sweep(), _variant(remove="")), "exercise 1",
          "not removed from its counts")
    _says(lesson1.check_sweep(_sweep(), lambda *a: None), "exercise 1", "returned None")


def test_a_sweep_that_raises_or_returns_nothing_is_feedback():
    def broken(z, doc, word, n_dk, n_wk, n_k, alpha, beta, rng):
        return z[len(z)]
    _says(lesson1.check_sweep(broken), "raised IndexError")
    _says(lesson1.check_sweep(lambda *a: None), "returned None")
    _says(lesson1.check_sweep(lambda *a: a[3]), "must return z")

    def document_row(z, doc, word, n_dk, n_wk, n_k, alpha, beta, rng):   # n_wk[d], not [w]
        V, K = n_wk.shape
        for i in range(len(z)):
            d, w, s = doc[i], word[i], z[i]
            k = rng.choice(K, p=conditional(n_dk[d], n_wk[d], n_k, s, alpha, beta, V))
            n_dk[d, s] -= 1
            n_wk[w, s] -= 1
            n_k[s] -= 1
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1
            z[i] = k
        return z
    _says(lesson1.check_sweep(document_row), "went negative", "n_wk[word[i]]")


# ------------------------------------------------------- exercise 3: a posterior probability

def _exact():
    corpus = lesson1.lesson_corpus()
    Z, p = lesson1.posterior(corpus, lesson1.K, np.full(lesson1.K, lesson1.ALPHA),
                             lesson1.BETA)
    return corpus, Z, p


def test_the_exact_probability_passes():
    _, Z, p = _exact()
    i, j = lesson1.PAIR
    fb = lesson1.check_same_topic(p[Z[:, i] == Z[:, j]].sum())
    assert fb.passed, fb
    assert "0.403423" in fb.message and "0.75" in fb.message
    assert lesson1.check_same_topic(np.array([p[Z[:, i] == Z[:, j]].sum()])).passed


def test_each_wrong_probability_is_named():
    corpus, Z, p = _exact()
    i, j = lesson1.PAIR
    same = Z[:, i] == Z[:, j]
    truth = p[same].sum()
    logj = lda_log_joint_states(corpus, lesson1.K, np.full(lesson1.K, lesson1.ALPHA),
                                lesson1.BETA, Z)
    _, p_swapped = lesson1.posterior(corpus, lesson1.K, np.full(lesson1.K, lesson1.BETA),
                                     lesson1.ALPHA)
    _says(lesson1.check_same_topic(1 - truth), "differ")
    _says(lesson1.check_same_topic(0.75), "prior probability")
    _says(lesson1.check_same_topic(0.5), "product of the marginals")
    _says(lesson1.check_same_topic(np.exp(logj)[same].sum()), "not normalised")
    _says(lesson1.check_same_topic(p[same & (Z[:, i] == 0)].sum()), "one topic only")
    _says(lesson1.check_same_topic(p[Z[:, i - 1] == Z[:, j - 1]].sum()),
          f"{i - 1} and {j - 1}", "the same value", "numbered from 0")
    _says(lesson1.check_same_topic(p_swapped[same].sum()), "alpha and beta are swapped")
    _says(lesson1.check_same_topic(round(truth, 4)), "rounded")
    _says(lesson1.check_same_topic(truth + 0.01), "Monte Carlo")
    _says(lesson1.check_same_topic(0.95), "enumerate the 512 states")


def test_a_missing_or_malformed_number_is_feedback():
    _says(lesson1.check_same_topic(...), "replace the ...")
    _says(lesson1.check_same_topic(None), "replace the ...")
    _says(lesson1.check_same_topic("0.4"), "not the string")
    _says(lesson1.check_same_topic([0.1, 0.2]), "one number")
    _says(lesson1.check_same_topic(float("nan")), "finite")


# --------------------------------------------------------------------------------- notebooks

def test_notebooks_are_committed_without_outputs():
    assert_stored_clean(NOTEBOOKS.values(), 1)


def test_solutions_notebook_every_check_is_right(executed):
    nb = executed["solutions"]
    all_right(nb, 3)
    text = text_of(outputs(nb))
    assert "p(z_7 = z_8 | w)" in text and "nan" not in text.lower()


def test_student_notebook_runs_with_the_exercises_unanswered(executed):
    feedback = all_not_yet(executed["student"], 3)
    assert "replace the ..." in feedback[0] and "exercise 1" in feedback[1]
