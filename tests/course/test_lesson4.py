"""Lesson 4's checks (topicsup/course/lesson4.py): every check passes the right answer, names
the usual mistakes in its hint, turns a student's exception or None into feedback; the
solutions notebook runs with every check right, the student notebook without an error."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linear_sum_assignment

from topicsup import diagnostics
from topicsup.chains import Chains
from topicsup.course import Feedback, lesson4
from topicsup.models import LDA

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks" / "course"


def hint(fb: Feedback, *words: str) -> None:
    """Not passed, and the message names the mistake by these words."""
    assert isinstance(fb, Feedback) and not fb.passed, fb
    for w in words:
        assert w in fb.message, (w, fb.message)


# ---------------------------------------------------------------------------- (a) split R-hat
def split_rhat(draws: Any, ddof: int = 1, factor: bool = True, split: bool = True,
               root: bool = True) -> float:
    x = np.asarray(draws, dtype=float)
    if split:
        half = x.shape[1] // 2
        x = np.vstack([x[:, :half], x[:, x.shape[1] - half:]])
    n = x.shape[1]
    w = x.var(axis=1, ddof=ddof).mean()
    b = n * x.mean(axis=1).var(ddof=ddof)
    r = (((n - 1) / n if factor else 1.0) * w + b / n) / w
    return float(np.sqrt(r) if root else r)


def test_split_rhat_right_and_equal_to_arviz() -> None:
    arviz = pytest.importorskip("arviz")
    fb = lesson4.check_split_rhat(split_rhat)
    assert fb.passed, fb
    assert "ArviZ's rank-normalised R-hat" in fb.message and "Chains.diagnostics()" in fb.message
    # the formula the check falls back on without ArviZ is ArviZ's split R-hat (to 1e-9:
    # ArviZ's one-pass variance loses ~3e-11 relative on the draws centred at -3000)
    for x in lesson4._rhat_draws():
        assert np.isclose(lesson4._rhat_of(lesson4._split(x)), arviz.rhat(x, method="split"),
                          rtol=1e-9, atol=0.0)
    # and rank_normalise with the student's formula is the library's port of ArviZ's R-hat
    x = lesson4._rhat_draws()[-1]
    composed = max(split_rhat(lesson4.rank_normalise(x)),
                   split_rhat(lesson4.rank_normalise(np.abs(x - np.median(x)))))
    assert np.isclose(composed, diagnostics.rhat(x, engine="topicsup"), rtol=1e-12)


def axes_swapped(draws: Any) -> float:
    x = np.asarray(draws, dtype=float)
    half = x.shape[1] // 2
    h = np.vstack([x[:, :half], x[:, x.shape[1] - half:]])
    n = h.shape[1]
    w = h.var(axis=0, ddof=1).mean()          # over the chains at each draw: the wrong axis
    b = n * h.mean(axis=0).var(ddof=1)
    return float(np.sqrt(((n - 1) / n * w + b / n) / w))


def _interleaved(draws: Any) -> float:
    x = np.asarray(draws, dtype=float)
    m = 2 * (x.shape[1] // 2)
    return split_rhat(np.vstack([x[:, 0:m:2], x[:, 1:m:2]]), split=False)


def _odd_unequal(draws: Any) -> float:
    x = np.asarray(draws, dtype=float)
    half = x.shape[1] // 2
    return split_rhat(np.vstack([x[:, :half], x[:, half:]]), split=False)   # raises when odd


@pytest.mark.parametrize("student, words", [
    (lambda x: split_rhat(x, split=False), ("did not split",)),
    (axes_swapped, ("wrong axis",)),
    (lambda x: split_rhat(x, ddof=0), ("ddof=1",)),
    (lambda x: split_rhat(x, factor=False), ("(n-1)/n",)),
    (lambda x: split_rhat(x, root=False), ("square root",)),
    (_interleaved, ("even and odd draws",)),
    (lambda x: diagnostics.rhat(x), ("rank-normalised R-hat",)),
    (_odd_unequal, ("odd number", "middle draw", "raised")),
    (lambda x: np.asarray(x).std(axis=1), ("one number",)),
])
def test_split_rhat_names_the_mistake(student: Any, words: tuple[str, ...]) -> None:
    hint(lesson4.check_split_rhat(student), *words)


def test_split_rhat_student_errors_are_feedback() -> None:
    def unanswered(draws: Any) -> None:
        x = np.asarray(draws, dtype=float)   # noqa: F841  (the cell as the student gets it)

    hint(lesson4.check_split_rhat(unanswered), "returned None")
    hint(lesson4.check_split_rhat(lambda x: x.nonexistent), "raised AttributeError")
    hint(lesson4.check_split_rhat(1.0), "must be a function")


# ---------------------------------------------------------------------------- (b) ESS
def ess(x: Any, factor: float = 2.0, start: int = 0, tau_only: bool = False) -> float:
    rho = lesson4.autocorrelation(x)
    tau = -1.0 if start == 0 else 1.0
    for m in range(len(x) // 2):
        i = 2 * m + start
        if i + 1 >= len(x):
            break
        pair = rho[i] + rho[i + 1]
        if pair <= 0:
            break
        tau += factor * pair
    return tau if tau_only else len(x) / tau


def single_lag(x: Any) -> float:
    rho = lesson4.autocorrelation(x)
    t = 1
    while rho[t] > 0:
        t += 1
    return len(x) / (1 + 2 * rho[1:t].sum())


def test_ess_right_and_set_against_the_truth() -> None:
    fb = lesson4.check_ess(ess)
    assert fb.passed, fb
    assert "exact 105.3" in fb.message and "ArviZ's bulk ESS" in fb.message
    # the right answer's Monte Carlo: within 5% of the exact ESS at each rho (the truncation
    # bias measured here is under 5%), ArviZ's too
    for g, _, a, _, exact in lesson4._ess_monte_carlo():
        assert abs(g / exact - 1) < 0.05 and abs(a / exact - 1) < 0.05


@pytest.mark.parametrize("student, words", [
    (lambda x: ess(x, tau_only=True), ("returned tau",)),
    (lambda x: 1 / ess(x, tau_only=True), ("ESS per draw",)),
    (lambda x: ess(x, factor=1.0), ("left out the 2",)),
    (lambda x: len(x) / (ess(x, tau_only=True) + 2), ("rho_0 = 1",)),
    (single_lag, ("first negative rho_t",)),
    (lambda x: ess(x, start=1), ("start at lag 1",)),
    (lambda x: len(x) * (1 - lesson4.autocorrelation(x)[1])
     / (1 + lesson4.autocorrelation(x)[1]), ("AR(1) chain only",)),
    (lambda x: len(x) / (-1 + 2 * lesson4.autocorrelation(x).sum()), ("every lag", "-1/2")),
])
def test_ess_names_the_mistake(student: Any, words: tuple[str, ...]) -> None:
    with np.errstate(divide="ignore"):
        hint(lesson4.check_ess(student), *words)


def test_ess_student_errors_are_feedback() -> None:
    hint(lesson4.check_ess(lambda x: None), "returned None")
    hint(lesson4.check_ess(lambda x: 1 / 0), "raised ZeroDivisionError")
    hint(lesson4.check_ess(lambda x: ...), "replace the ...")


def test_ar1_and_autocorrelation() -> None:
    """The series the lesson gives: seeded, stationary, with the AR(1) autocorrelation."""
    x = lesson4.ar1(200_000, 0.8, seed=5)
    assert np.array_equal(x, lesson4.ar1(200_000, 0.8, seed=5))
    rho = lesson4.autocorrelation(x)
    assert rho[0] == 1.0
    # standard errors about 1/sqrt(n) = 0.002 (more with the autocorrelation): 0.02 is wide
    assert abs(x.var() - 1) < 0.02 and np.allclose(rho[1:4], 0.8 ** np.arange(1, 4), atol=0.02)
    assert np.isclose(rho.sum(), 0.5)          # sum over every lag: 1 + (-1/2), exactly


# ---------------------------------------------------------------------------- (c) alignment
def align(ref: Any, other: Any) -> Any:
    return linear_sum_assignment(lesson4.hellinger(ref, other))[1]


def test_alignment_right() -> None:
    fb = lesson4.check_alignment(align)
    assert fb.passed, fb
    # another distance finds the same matchings: the check is about matching, not the metric
    l1 = lesson4.check_alignment(
        lambda r, o: linear_sum_assignment(np.abs(r[:, None] - o[None]).sum(-1))[1])
    assert l1.passed, l1


def test_alignment_cases_are_hard_enough() -> None:
    """The real chains' topics come in cycled orders (so the inverse is wrong), the library's
    alignment is the Hellinger assignment, and on the overlapping pair every usual distance
    agrees on the best matching while both greedy matchings miss it."""
    chains = lesson4._alignment_chains()
    perms = chains.topic_alignment().pivot(index="chain", columns="topic",
                                           values="chain_topic").to_numpy()
    for c in (1, 2):
        assert not np.array_equal(perms[c], np.argsort(perms[c]))    # not its own inverse
        assert np.array_equal(perms[c], align(chains.sessions[0].topic_word(),
                                              chains.sessions[c].topic_word()))
    ref, other = lesson4.overlapping_topics()

    def kl(p: Any, q: Any) -> Any:
        return (p * np.log(p / q)).sum(-1)

    distances = {
        "hellinger": lesson4.hellinger(ref, other),
        "l1": np.abs(ref[:, None] - other[None]).sum(-1),
        "l2": np.sqrt(((ref[:, None] - other[None]) ** 2).sum(-1)),
        "cosine": 1 - ref @ other.T / np.outer(np.linalg.norm(ref, axis=1),
                                               np.linalg.norm(other, axis=1)),
        "js": 0.5 * kl(ref[:, None], (ref[:, None] + other[None]) / 2)
        + 0.5 * kl(other[None], (ref[:, None] + other[None]) / 2)}
    best = [0, 2, 3, 1]
    for name, d in distances.items():
        assert linear_sum_assignment(d)[1].tolist() == best, name
        assert lesson4._greedy(d).tolist() != best, name
        assert lesson4._greedy_global(d).tolist() != best, name
    d = distances["hellinger"]
    nearest_pair = np.unravel_index(np.argmin(d), d.shape)
    assert best[nearest_pair[0]] != nearest_pair[1]
    d = distances["hellinger"]
    costs = sorted(d[np.arange(4), list(p)].sum() for p in itertools.permutations(range(4)))
    assert costs[1] - costs[0] > 0.05          # a clear best, not a near tie


def greedy_rows(ref: Any, other: Any) -> Any:
    return lesson4._greedy(lesson4.hellinger(ref, other))


@pytest.mark.parametrize("student, words", [
    (lambda r, o: np.argsort(align(r, o)), ("inverse permutation",)),
    (lambda r, o: lesson4.hellinger(r, o).argmin(axis=1) * 0, ("more than once",)),
    (greedy_rows, ("greedily", "assignment problem")),
    (lambda r, o: lesson4._greedy_global(lesson4.hellinger(r, o)), ("greedily",)),
    (lambda r, o: lesson4.hellinger(r, o).argmin(axis=1), ("more than once",)),
    (lambda r, o: linear_sum_assignment(lesson4.hellinger(r, o), maximize=True)[1],
     ("largest total distance",)),
    (lambda r, o: np.arange(len(r)), ("their own order", "label switching")),
    (lambda r, o: linear_sum_assignment(lesson4.hellinger(r.T, o.T))[1], ("one per word",)),
    (lambda r, o: linear_sum_assignment(lesson4.hellinger(r, o)), ("second array",)),
])
def test_alignment_names_the_mistake(student: Any, words: tuple[str, ...]) -> None:
    hint(lesson4.check_alignment(student), *words)


def test_alignment_student_errors_are_feedback() -> None:
    hint(lesson4.check_alignment(lambda r, o: None), "returned None")
    hint(lesson4.check_alignment(lambda r, o: r[99]), "raised IndexError")
    hint(lesson4.check_alignment(lambda r, o: "0 1 2"), "K topic numbers")


# ---------------------------------------------------------------------------- (d) stopping
def converged_at(conv: pd.DataFrame, threshold: float = 1.01, nan_ok: bool = False,
                 only: str | None = None) -> int:
    rows = conv if only is None else conv[conv["quantity"] == only]
    r = rows["r_hat"]
    below = ((r < threshold) | (r.isna() & nan_ok)).groupby(rows["sweep"]).all()
    sweeps = below.index.to_numpy()
    bad = sweeps[~below.to_numpy()]
    if len(bad) == 0:
        return int(sweeps[0])
    if bad[-1] == sweeps[-1]:
        return -1
    return int(sweeps[sweeps > bad[-1]][0])


def first_dip(conv: pd.DataFrame) -> int:
    below = (conv["r_hat"] < 1.01).groupby(conv["sweep"]).all()
    return int(below.index[below.to_numpy()][0]) if below.any() else -1


def last_above(conv: pd.DataFrame) -> int:
    below = (conv["r_hat"] < 1.01).groupby(conv["sweep"]).all()
    return int(below.index[~below.to_numpy()][-1])


def position(conv: pd.DataFrame) -> int:
    s = converged_at(conv)
    return s if s < 0 else int(np.flatnonzero(np.sort(conv["sweep"].unique()) == s)[0])


@pytest.fixture(scope="module")
def conv() -> pd.DataFrame:
    chains = Chains(LDA(K=3, sampler="gibbs"), lesson4.lesson_corpus(), n_chains=4, seed=0)
    chains.run(600)
    return chains.convergence(every=5)


def test_converged_at_right(conv: pd.DataFrame) -> None:
    fb = lesson4.check_converged_at(converged_at, conv)
    assert fb.passed, fb
    # the notebook's chains: R-hat dips below 1.01 long before it stays below
    assert first_dip(conv) < converged_at(conv) - 100 and f"{converged_at(conv)} on" in fb.message


@pytest.mark.parametrize("student, words", [
    (first_dip, ("first sweep where R-hat is below", "stays below")),
    (lambda c: converged_at(c, only="log_joint"), ("log joint only", "max_weight")),
    (last_above, ("off-by-one",)),
    (position, ("position in the table",)),
    (lambda c: converged_at(c, nan_ok=True), ("NaN",)),
    (lambda c: converged_at(c, threshold=1.1), ("1.1",)),
    (lambda c: None if converged_at(c) < 0 else converged_at(c), ("returned None", "-1")),
    (lambda c: converged_at(c) if converged_at(c) > 0 else int(c["sweep"].max()),
     ("not converged",)),
])
def test_converged_at_names_the_mistake(conv: pd.DataFrame, student: Any,
                                        words: tuple[str, ...]) -> None:
    hint(lesson4.check_converged_at(student, conv), *words)


def test_converged_at_student_errors_are_feedback(conv: pd.DataFrame) -> None:
    hint(lesson4.check_converged_at(lambda c: None, conv), "returned None")
    hint(lesson4.check_converged_at(lambda c: c["no such column"], conv), "raised KeyError")
    hint(lesson4.check_converged_at(converged_at, "conv"), "Chains.convergence() table")


# ---------------------------------------------------------------------------- notebooks
def run_notebook(path: Path, tmp_path: Path) -> list[str]:
    """Execute a notebook; its outputs' HTML and the errors and stderr as text."""
    nbformat = pytest.importorskip("nbformat")
    from topicsup.testing.notebooks import PatientClient
    nb = nbformat.read(path, as_version=4)
    PatientClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                  timeout=600).execute()
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o["output_type"] == "error":
                out.append(f"ERROR {o['ename']}: {o['evalue']}")
            elif o["output_type"] == "stream" and o["name"] == "stderr":
                out.append(f"STDERR {o['text']}")
            else:
                out.append(str(o.get("data", {}).get("text/html", "")))
    return out


def test_solutions_notebook_every_check_right(tmp_path: Path) -> None:
    outputs = run_notebook(NOTEBOOKS / "solutions" / "04_convergence.ipynb", tmp_path)
    assert not [o for o in outputs if o.startswith(("ERROR", "STDERR"))], outputs
    assert sum("Right." in o for o in outputs) == 4
    assert not any("Not yet." in o for o in outputs)


def test_student_notebook_runs_unanswered(tmp_path: Path) -> None:
    outputs = run_notebook(NOTEBOOKS / "04_convergence.ipynb", tmp_path)
    assert not [o for o in outputs if o.startswith(("ERROR", "STDERR"))], outputs
    assert sum("Not yet." in o and "replace the ..." in o for o in outputs) == 4


def test_every_mistake_is_told_apart_from_the_truth() -> None:
    """Each named mistake gives another answer than the right one on some input, by more
    than the checks' 1e-9 (by 1e-4 at least), so no right answer is called a mistake and the
    hints can tell each mistake."""
    for inputs, truth, mistakes in (
            (lesson4._rhat_draws(), np.array(lesson4._rhat_truth()),
             lesson4.RHAT_MISTAKES.values()),
            (lesson4._ess_series(), np.array([lesson4._geyer_ess(x)
                                              for x in lesson4._ess_series()]),
             lesson4.ESS_MISTAKES.values())):
        for fn, words in mistakes:
            v = np.array([fn(x) for x in inputs])
            keep = np.isfinite(v)
            assert np.max(np.abs(v[keep] / truth[keep] - 1)) > 1e-4, words
    # the truncation rules differ on the ESS series: single lag against Geyer's pairs, and
    # against pairs that start at lag 1
    series = lesson4._ess_series()
    geyer = np.array([lesson4._geyer_ess(x) for x in series])
    assert not np.allclose([single_lag(x) for x in series], geyer, rtol=1e-6)
    assert not np.allclose([single_lag(x) for x in series], [ess(x, start=1) for x in series],
                           rtol=1e-6)
