"""Lesson 2's checks (``topicsup.course.lesson2``): the right answer of every exercise passes,
each typical wrong answer gets the hint that names it, a student function that raises or
returns None is feedback, and the lesson's two notebooks run (the solutions notebook with
every check right, the student's with every exercise unanswered and no error)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nbformat

from topicsup import LDA, Session
from .notebooks import all_not_yet, all_right, assert_stored_clean, outputs
from topicsup.course import Feedback, lesson2
from topicsup.datasets import load_demo_corpus
from topicsup.kernels import light

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {"student": ROOT / "notebooks" / "course" / "02_metropolis_hastings.ipynb",
             "solutions": ROOT / "notebooks" / "course" / "solutions"
             / "02_metropolis_hastings.ipynb"}


def _says(feedback: Feedback, *words: str) -> None:
    """Not passed, and the hint holds each of ``words``."""
    assert isinstance(feedback, Feedback)
    assert not feedback.passed, feedback
    for word in words:
        assert word in feedback.message, (word, feedback.message)


# ------------------------------------------------------------------ the student's answers
def acceptance(p, Q, s, t):
    return min(1.0, p[t] * Q[t, s] / (p[s] * Q[s, t]))


def matrix_with(accept):
    """An mh_matrix built on ``accept``, the way a student writes it."""
    def mh_matrix(p, Q):
        K = len(p)
        P = np.zeros((K, K))
        for s in range(K):
            for t in range(K):
                if t != s:
                    P[s, t] = Q[s, t] * accept(p, Q, s, t)
            P[s, s] = 1.0 - P[s].sum()
        return P
    return mh_matrix


mh_matrix = matrix_with(acceptance)


# ------------------------------------------------------------------ the cases
def test_cases_are_the_exact_conditional_and_the_light_sampler_s_proposals():
    """p (enumerated joint) is the collapsed conditional of the counts without token i; Q's
    rows are the proposals' closed forms; and the acceptance the checks take for the truth
    is the light kernel's own ratio (the claim in check_acceptance's message)."""
    cases = lesson2.tokens()
    assert len(cases) == 40 and len({(t.position, t.state) for t in cases}) == 40
    for tok in cases:
        a, b, V = tok.alpha, tok.beta, tok.V
        p = (tok.n_dk + a) * (tok.n_wk + b) / (tok.n_k + V * b)
        np.testing.assert_allclose(tok.p, p / p.sum(), rtol=0, atol=1e-12)
        Qd, Qw = tok.proposal("doc"), tok.proposal("word")
        for s in range(tok.K):
            qd = tok.n_dk + a + (np.arange(tok.K) == s)
            qw = tok.n_wk + b + (np.arange(tok.K) == s)
            np.testing.assert_allclose(Qd[s], qd / qd.sum(), rtol=0, atol=1e-15)
            np.testing.assert_allclose(Qw[s], qw / qw.sum(), rtol=0, atol=1e-15)
            for t in range(tok.K):
                if t == s:
                    continue
                doc = light.doc_step_ratio(tok.n_wk[t], tok.n_wk[s], tok.n_k[t], tok.n_k[s],
                                           b, V * b)
                word = light.word_step_ratio(tok.n_dk[t], tok.n_dk[s], a[t], a[s],
                                             tok.n_k[t], tok.n_k[s], V * b)
                assert lesson2._acceptance(tok.p, Qd, s, t) == pytest.approx(min(1, doc),
                                                                            abs=1e-12)
                assert lesson2._acceptance(tok.p, Qw, s, t) == pytest.approx(min(1, word),
                                                                            abs=1e-12)


def test_the_typical_mistakes_differ_from_the_truth_and_from_each_other():
    """Each diagnosis is unambiguous: on the cases every mistake's values differ from the
    right ones and from every other mistake's by far more than the check's tolerance."""
    moves = lesson2._moves()
    values = {"right": np.array([lesson2._acceptance(t.p, Q, s, u)
                                 for t, _, Q, s, u in moves])}
    for name, (variant, _) in lesson2._MISTAKES.items():
        values[name] = np.array([variant(t.p, Q, s, u) for t, _, Q, s, u in moves])
    names = list(values)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert np.abs(values[a] - values[b]).max() > 1e-3, (a, b)


# ------------------------------------------------------------------ exercise (a)
def test_acceptance_right():
    fb = lesson2.check_acceptance(acceptance)
    assert fb.passed, fb
    assert "480 moves" in fb.message and "Right." in fb._repr_html_()


@pytest.mark.parametrize("mistake, words", [
    (lambda p, Q, s, t: min(1.0, p[s] * Q[s, t] / (p[t] * Q[t, s])), ("upside down",)),
    (lambda p, Q, s, t: min(1.0, p[t] / p[s]), ("proposal correction is missing",
                                                "Q[t, s] / Q[s, t]")),
    (lambda p, Q, s, t: min(1.0, p[t] * Q[s, t] / (p[s] * Q[t, s])),
     ("correction is inverted",)),
    (lambda p, Q, s, t: p[t] * Q[t, s] / (p[s] * Q[s, t]), ("min(1, .) is missing",)),
    (lambda p, Q, s, t: min(1.0, p[t] * Q[s, s] / (p[s] * Q[s, t])),
     ("Q[s, s]", "eq. 19")),
    (lambda p, Q, s, t: Q[s, t] * min(1.0, p[t] * Q[t, s] / (p[s] * Q[s, t])),
     ("multiplied by q(t | s)", "P[s, t]")),
    (lambda p, Q, s, t: min(1.0, Q[t, s] / Q[s, t]), ("target is missing",)),
], ids=["inverted", "no-correction", "correction-inverted", "no-min", "reverse-from-s",
        "times-proposal", "target-only"])
def test_acceptance_mistakes_are_named(mistake, words):
    _says(lesson2.check_acceptance(mistake), *words)


def test_acceptance_other_mistake_shows_the_case():
    """A mistake of no known kind: the first wrong move, its inputs and both values."""
    fb = lesson2.check_acceptance(lambda p, Q, s, t: min(1.0, (p[t] / p[s]) ** 2))
    _says(fb, "expected min(1, p[t] Q[t, s] / (p[s] Q[s, t]))", "got", "proposal, s = ")
    fb = lesson2.check_acceptance(lambda p, Q, s, t: 2 * p[t] / p[s])
    _says(fb, "min(1, .) is missing too")


def test_acceptance_unanswered_raising_or_not_a_number_is_feedback():
    def unanswered(p, Q, s, t):
        ...  # your code

    _says(lesson2.check_acceptance(unanswered), "returned None", "replace the ...")
    _says(lesson2.check_acceptance(lambda p, Q, s, t: Q[s, t + 5]), "raised IndexError")
    _says(lesson2.check_acceptance(lambda p, Q, s, t: "high"), "must be a number")
    _says(lesson2.check_acceptance(lambda p, Q, s, t: float("nan")), "finite number")
    _says(lesson2.check_acceptance(3.0), "must be a function")


# ------------------------------------------------------------------ exercise (b)
def test_mh_matrix_right_with_the_compositions():
    fb = lesson2.check_mh_matrix(mh_matrix)
    assert fb.passed, fb
    for words in ("40 token cases", "cycle P_doc P_word keeps pi", "mixture",
                  "Theorem 1", "without detailed balance"):
        assert words in fb.message


def _with_diagonal(diagonal):
    def mh(p, Q):
        P = mh_matrix(p, Q)
        np.fill_diagonal(P, diagonal(Q))
        return P
    return mh


def _off_diagonal_from(entry):
    """P[s, t] = entry(p, Q, s, t) off the diagonal, the rest on it."""
    def mh(p, Q):
        K = len(p)
        P = np.array([[entry(p, Q, s, t) if t != s else 0.0 for t in range(K)]
                      for s in range(K)])
        np.fill_diagonal(P, 1.0 - P.sum(axis=1))
        return P
    return mh


@pytest.mark.parametrize("mistake, words", [
    (lambda p, Q: mh_matrix(p, Q).T, ("transposed", "FROM s TO t")),
    (_with_diagonal(lambda Q: 0.0), ("diagonal is 0", "rejected proposal")),
    (_with_diagonal(lambda Q: np.diag(Q)), ("P[s, s] = q(s | s) only",)),
    (_with_diagonal(lambda Q: 0.5), ("off-diagonal entries are right", "rows must sum to 1")),
    (lambda p, Q: Q, ("every proposal is accepted",)),
    (_off_diagonal_from(acceptance), ("P[s, t] = a(s, t)", "Q[s, t] a(s, t)")),
    (matrix_with(lambda p, Q, s, t: min(1.0, p[s] * Q[s, t] / (p[t] * Q[t, s]))),
     ("acceptance inside P", "upside down")),
    (matrix_with(lambda p, Q, s, t: min(1.0, p[t] / p[s])),
     ("acceptance inside P", "proposal correction is missing")),
    (matrix_with(lambda p, Q, s, t: p[t] * Q[t, s] / (p[s] * Q[s, t])),
     ("min(1, .) is missing",)),
    (lambda p, Q: np.full((len(p), len(p)), 0.5), ("rows of P must sum to 1",)),
], ids=["transposed", "zero-diagonal", "q-diagonal", "wrong-diagonal", "proposal",
        "acceptance-only", "inverted", "no-correction", "no-min", "not-stochastic"])
def test_mh_matrix_mistakes_are_named(mistake, words):
    _says(lesson2.check_mh_matrix(mistake), *words)


def test_mh_matrix_other_mistake_names_the_entry_and_pi_p():
    """Rows sum to 1 but the chain is not the MH one: the entry and pi P - pi."""
    _says(lesson2.check_mh_matrix(lambda p, Q: np.full((len(p), len(p)), 1.0 / len(p))),
          "expected", "pi P - pi")


def test_mh_matrix_unanswered_raising_or_wrong_shape_is_feedback():
    _says(lesson2.check_mh_matrix(lambda p, Q: None), "returned None")
    _says(lesson2.check_mh_matrix(lambda p, Q: 1 / 0), "raised ZeroDivisionError")
    _says(lesson2.check_mh_matrix(lambda p, Q: np.eye(2)), "K x K", "(2, 2)")
    _says(lesson2.check_mh_matrix(lambda p, Q: np.full((3, 3), np.nan)), "nan or inf")
    _says(lesson2.check_mh_matrix(lambda p, Q: "P"), "array of numbers")


def test_invariance_table_with_the_students_matrix():
    table = lesson2.invariance_table(mh_matrix)
    assert isinstance(table, pd.DataFrame) and table.notna().all().all()
    invariant, balance = table.columns
    assert (table[invariant] < 1e-12).all()
    assert table.loc["cycle: doc then word", balance] > 1e-3   # invariant, not reversible
    assert (table.drop(index="cycle: doc then word")[balance] < 1e-12).all()
    _says(lesson2.invariance_table(lambda p, Q: None), "returned None")


# ------------------------------------------------------------------ exercise (c)
def test_the_candidates_by_enumeration():
    """A does not keep pi, B and C do: the lesson's claim, checked here independently of
    the check (pi P for every case)."""
    for tok in lesson2.tokens():
        for name, cand in lesson2.CANDIDATES.items():
            P = cand.matrix(tok)
            assert np.allclose(P.sum(axis=1), 1.0) and (P >= -1e-15).all()
            moved = np.abs(tok.p @ P - tok.p).max()
            if name == "A":
                continue
            assert moved < 1e-14, (name, tok.label)
    worst_a = max(np.abs(t.p @ lesson2.CANDIDATES["A"].matrix(t) - t.p).max()
                  for t in lesson2.tokens())
    assert worst_a > 0.05


def test_broken_kernel_right():
    fb = lesson2.check_broken_kernel("A", "token counted")
    assert fb.passed, fb
    assert "eq. 19" in fb.message and "B and C keep pi" in fb.message
    assert lesson2.check_broken_kernel(" a ", "Token counted").passed   # case and spaces


@pytest.mark.parametrize("broken, why, words", [
    ("B", "token counted", ("B keeps pi", "word factors of p cancel")),
    ("C", "no correction", ("C keeps pi", "uniform", "no correction is needed")),
    ("A", "no correction", ("not for that reason", "A has a correction")),
    ("A", "inverted", ("not for that reason", "not upside down")),
    ("A", "stale target", ("not for that reason", "exact p")),
    ("D", "token counted", ('"A", "B" or "C"',)),
    ("A", "because", ("why must be one of",)),
    (..., ..., ("replace the ... after broken",)),
    ("A", ..., ("now say why",)),
], ids=["B", "C", "A-no-correction", "A-inverted", "A-stale-target", "bad-name", "bad-why",
        "unanswered", "why-unanswered"])
def test_broken_kernel_mistakes_are_named(broken, why, words):
    _says(lesson2.check_broken_kernel(broken, why), *words)


def test_tv_chart_is_finite_and_fits():
    spec = lesson2.tv_chart().to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert rows and all(np.isfinite(r["shown"]) and r["shown"] > 0 for r in rows)
    assert spec["width"] <= 800


# ------------------------------------------------------------------ exercise (d)
@pytest.fixture(scope="module")
def chain():
    """The notebook's chain: seeded, so its history (and the rates) are the same each run."""
    corpus = load_demo_corpus().corpus
    session = Session(LDA(K=6, alpha=0.3, beta=0.05, sampler="light"), corpus, seed=0)
    session.run(60)
    return session


def test_acceptance_rates_right(chain):
    rates = lesson2.acceptance_rates(chain.history)
    best = rates.idxmax()
    fb = lesson2.check_acceptance_rates(chain, best, rates[best])
    assert fb.passed, fb
    # read off to two decimals passes too (the tolerance is half a unit of the second)
    assert lesson2.check_acceptance_rates(chain, best, round(rates[best], 2)).passed
    assert "standard error" in fb.message


def test_acceptance_rates_mistakes_are_named(chain):
    h = chain.history
    rates = lesson2.acceptance_rates(h)
    best = rates.idxmax()
    other = "doc" if best == "word" else "word"
    everything = lesson2.acceptance_rates(h, 0)
    assert abs(everything[best] - rates[best]) > 2 * lesson2.READ_OFF   # a real difference
    _says(lesson2.check_acceptance_rates(chain, other, rates[other]), f"{best} is accepted "
                                                                      f"more")
    _says(lesson2.check_acceptance_rates(chain, best, everything[best]), "burn-in included")
    _says(lesson2.check_acceptance_rates(chain, best, rates[other]), f"the {other} proposal")
    _says(lesson2.check_acceptance_rates(chain, best, 1 - rates[best]), "rejection rate")
    _says(lesson2.check_acceptance_rates(chain, best, 0.05), "you gave 0.050",
          "'acceptance_rate' rows")


def test_acceptance_rates_unanswered_or_wrong_session_is_feedback(chain):
    _says(lesson2.check_acceptance_rates(chain, ..., ...), "replace the ...")
    _says(lesson2.check_acceptance_rates(chain, "exp", 0.5), "'doc' or 'word'")
    _says(lesson2.check_acceptance_rates(chain, "word", "high"), "must be a number")
    _says(lesson2.check_acceptance_rates(chain.history, "word", 0.8), "pass the Session")
    corpus = load_demo_corpus().corpus
    short = Session(LDA(K=6, sampler="light"), corpus, seed=0)
    short.run(5)
    _says(lesson2.check_acceptance_rates(short, "word", 0.8), "has 5 sweeps", "more than 20")
    gibbs = Session(LDA(K=6, sampler="gibbs"), corpus, seed=0)
    _says(lesson2.check_acceptance_rates(gibbs, "word", 0.8), "'gibbs' sampler")


# ------------------------------------------------------------------ the token explorer
def test_token_explorer_draws_every_proposal_and_state():
    explorer = lesson2.token_explorer()
    assert explorer.children[0].options[0][0].startswith("token 0")
    for kind in lesson2.KINDS:
        for s in range(lesson2.K):
            spec = lesson2._token_chart(lesson2.tokens()[7], kind, s).to_dict()
            assert "NaN" not in json.dumps(spec) and "Infinity" not in json.dumps(spec)
            assert sum(c["width"] for c in spec["hconcat"]) <= 700


# ------------------------------------------------------------------ the notebooks
def test_notebooks_are_committed_without_outputs():
    assert_stored_clean(NOTEBOOKS.values(), 2)
    for path in NOTEBOOKS.values():
        nb = nbformat.read(path, as_version=4)
        assert "Time: about 30 minutes" in nb.cells[0].source.replace("**", "")


def test_solutions_notebook_every_check_is_right(executed):
    nb = executed["solutions"]
    all_right(nb, 4)
    text = json.dumps(outputs(nb))
    assert "NaN" not in text and "Infinity" not in text


def test_student_notebook_runs_with_the_exercises_unanswered(executed):
    # the four checks and the invariance table (which uses the student's mh_matrix)
    feedback = all_not_yet(executed["student"], 5)
    assert all("replace the ..." in f for f in feedback), feedback
