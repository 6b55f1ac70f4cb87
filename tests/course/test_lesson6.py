"""Lesson 6 (priors on the weights, partially collapsed sampling): each check passes the right
answer, names each typical mistake in its hint, turns a student's exception or a missing
answer into feedback; the check's references are the library's (the horseshoe kernel's draws,
the enumerated posterior); the solutions notebook passes every check and the student notebook
runs without an error."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from topicsup.testing.notebooks import PatientClient as NotebookClient
from scipy import stats

from topicsup import DOLDA, Session
from topicsup.course import lesson6
from topicsup.kernels.horseshoe import horseshoe_update
from topicsup.kernels.rng import seed_state
from topicsup.synthetic import make_synthetic

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks" / "course"
STUDENT = NOTEBOOKS / "06_priors_on_weights.ipynb"
SOLUTIONS = NOTEBOOKS / "solutions" / "06_priors_on_weights.ipynb"


def _raises(*args):
    raise ValueError("boom")


def _none(*args):
    return None


# ----------------------------------------------------------------------------- exercise (a)
def _lambda2(shape=lambda e, t, n: 1.0, scale=lambda e, t, n: 1 / n + e**2 / (2 * t**2)):
    return lambda eta, tau, nu: (shape(eta, tau, nu), scale(eta, tau, nu))


def test_the_reference_is_the_library_s_joint_and_its_kernel_s_draw():
    """The check's reference, read off ``Horseshoe.log_density``, is IG(1, 1/nu + eta^2 /
    (2 tau^2)) to rounding; and ``kernels.horseshoe``'s draws of lambda^2 follow it: 20,000
    independent tasks with one weight each, one update from fixed (eta, nu, tau), KS p > 1e-3
    (seeded, so the same draws every run)."""
    for eta, tau, nu in lesson6.LAMBDA_CASES:
        shape, scale = lesson6.library_lambda2_conditional(eta, tau, nu)
        assert np.allclose(shape, 1.0, rtol=1e-12, atol=1e-12)
        assert np.allclose(scale, 1 / nu + eta**2 / (2 * tau**2), rtol=1e-12, atol=1e-12)
    T, eta, tau, nu = 20_000, 0.8, 0.5, 2.0
    lam2, nus = np.ones((T, 1)), np.full((T, 1), nu)
    horseshoe_update(np.full((T, 1), eta), lam2, nus, np.full(T, tau**2), np.ones(T),
                     seed_state(11), np.empty((T, 1)))
    scale = 1 / nu + eta**2 / (2 * tau**2)
    assert stats.kstest(lam2[:, 0], stats.invgamma(1.0, scale=scale).cdf).pvalue > 1e-3


def test_lambda2_right_answers_pass():
    assert lesson6.check_lambda2_conditional(_lambda2())
    # one shape per weight, as an array
    assert lesson6.check_lambda2_conditional(_lambda2(shape=lambda e, t, n: np.ones_like(e)))


@pytest.mark.parametrize("scale, words", [
    (lambda e, t, n: 1 / n + e**2 / (2 * t), "tau is not squared"),
    (lambda e, t, n: 1 / n + e**2 / t**2, "the 1/2 is missing"),
    (lambda e, t, n: 1 / n + e**2 / t, "tau is not squared and the 1/2 is missing"),
    (lambda e, t, n: e**2 / (2 * t**2), "the auxiliary variable is forgotten"),
    (lambda e, t, n: 1 + e**2 / (2 * t**2), "the auxiliary variable is forgotten"),
    (lambda e, t, n: n + e**2 / (2 * t**2), "nu is where 1/nu belongs"),
    (lambda e, t, n: 1 / n + e / (2 * t**2), "eta is not squared"),
    (lambda e, t, n: 1 / (1 / n + e**2 / (2 * t**2)), "you returned the rate"),
    (lambda e, t, n: 3.0 + 0 * e, "collect what multiplies 1/lambda_p^2"),
])
def test_lambda2_scale_mistakes_are_named(scale, words):
    fb = lesson6.check_lambda2_conditional(_lambda2(scale=scale))
    assert not fb and words in fb.message, fb.message


@pytest.mark.parametrize("shape, words", [
    (0.5, "the prior's alone"),
    (2.0, "a = 1"),
    (1.5, "adds 1/2 to the prior's shape 1/2"),
])
def test_lambda2_shape_mistakes_are_named(shape, words):
    fb = lesson6.check_lambda2_conditional(_lambda2(shape=lambda e, t, n: shape))
    assert not fb and words in fb.message, fb.message


def test_lambda2_two_mistakes_get_both_hints():
    fb = lesson6.check_lambda2_conditional(_lambda2(
        shape=lambda e, t, n: 0.5, scale=lambda e, t, n: e**2 / (2 * t**2)))
    assert not fb
    assert "the prior's alone" in fb.message and "auxiliary variable" in fb.message


@pytest.mark.parametrize("fn, words", [
    (_raises, "raised ValueError: boom"),
    (_none, "returned None"),
    (lambda e, t, n: 1.0, "must return two things"),
    (lambda e, t, n: (1.0, np.ones(7)), "one entry per weight"),
    (lambda e, t, n: (1.0, np.full_like(n, np.inf)), "non-finite"),
    (3, "must be a function"),
])
def test_lambda2_unusable_answers_are_feedback(fn, words):
    fb = lesson6.check_lambda2_conditional(fn)
    assert not fb and words in fb.message, fb.message


# ----------------------------------------------------------------------------- exercise (b)
@pytest.fixture(scope="module")
def fits():
    """Two small DOLDA fits (horseshoe, normal) on a multi-label synthetic corpus, seeded."""
    corpus = make_synthetic(n_docs=60, n_topics=4, doc_length=20, task="multilabel",
                            n_classes=2, seed=0).corpus
    settings = dict(K=4, intercept=False, burn_in=5, sampler="partially_collapsed", threads=1)
    hs = Session(DOLDA(**settings), corpus, seed=0)
    nm = Session(DOLDA.with_normal_prior(**settings), corpus, seed=0)
    hs.run(25)
    nm.run(25)
    return hs, nm


def _share_right(c):
    t = c[c["kind"] == "topic"]
    return ((t["lower"] > 0) | (t["upper"] < 0)).mean()


def test_certain_share_right_answer_passes_and_reports_both_fits(fits):
    fb = lesson6.check_certain_share(_share_right, *fits)
    assert fb, fb.message
    assert "horseshoe: " in fb.message and "normal: " in fb.message
    # a 0-d numpy value and a Python float are both numbers
    assert lesson6.check_certain_share(lambda c: np.asarray(_share_right(c)), *fits)


def test_the_probe_frame_tells_every_mistake_from_the_answer(fits):
    """On the probe frame each mistake gives another share than the right one (else the
    check could not name it)."""
    probe = lesson6.probe_frame(fits[0].coefficients())
    right = lesson6.certain_share(probe)
    assert 0 < right < 1
    for mistake, _ in lesson6._SHARE_MISTAKES:
        assert not np.isclose(mistake(probe), right)


@pytest.mark.parametrize("fn, words", [
    (lambda c: ((c["lower"] > 0) | (c["upper"] < 0)).mean(), "count the topic weights only"),
    (lambda c: (c.loc[c["kind"] == "topic", "lower"] > 0).mean(), "wholly below 0"),
    (lambda c: (c.loc[c["kind"] == "topic", "upper"] < 0).mean(), "wholly above 0"),
    (lambda c: 1 - _share_right(c), "share of intervals that hold 0"),
    (lambda c: (((c["lower"] > 0) | (c["upper"] < 0)) & (c["kind"] == "topic")).sum(),
     "you returned a count"),
    (lambda c: 100 * _share_right(c), "percentage"),
    (lambda c: (c.loc[c["kind"] == "topic", "mean"].abs() > 0).mean(),
     "a mean different from 0 is not enough"),
    (lambda c: 0.5, "an interval [lower, upper] excludes 0 when lower > 0 or upper < 0"),
])
def test_certain_share_mistakes_are_named(fits, fn, words):
    fb = lesson6.check_certain_share(fn, *fits)
    assert not fb and words in fb.message, fb.message


def test_certain_share_wrong_sessions_and_answers_are_feedback(fits):
    hs, nm = fits
    fb = lesson6.check_certain_share(_share_right, nm, hs)
    assert not fb and "pass the horseshoe session first" in fb.message
    fresh = Session(DOLDA(K=4, intercept=False), hs.corpus, seed=0)
    fb = lesson6.check_certain_share(_share_right, fresh, nm)
    assert not fb and "has not run yet" in fb.message
    fb = lesson6.check_certain_share(_share_right, "a session", nm)
    assert not fb and "must be a fitted topicsup Session" in fb.message
    for fn, words in [(_raises, "raised ValueError: boom"), (_none, "returned None"),
                      (lambda c: c.groupby("task")["lower"].mean(), "one number"),
                      (lambda c: True, "return the share")]:
        fb = lesson6.check_certain_share(fn, hs, nm)
        assert not fb and words in fb.message, fb.message


# ----------------------------------------------------------------------------- exercise (c)
def _given_phi(n_dk, n_wk, n_k, s, phi_w, alpha, beta, V):
    n = n_dk.copy()
    n[s] -= 1
    p = (n + alpha) * phi_w
    return p / p.sum()


def test_token_cases_are_the_closed_form_conditional():
    """The enumerated reference is (n_dk^-i + alpha) phi_kw, normalised, for every case (the
    enumeration is independent of that formula: it is the joint's ratio)."""
    cases = lesson6.token_cases()
    assert len(cases) == lesson6.PHI_STATES * lesson6.N_PHI
    for c in cases:
        assert np.allclose(_given_phi(c.n_dk, c.n_wk, c.n_k, c.s, c.phi_w,
                                      lesson6.PHI_ALPHA, lesson6.PHI_BETA, lesson6.V_PHI),
                           c.exact, rtol=1e-12, atol=1e-12)


def test_conditional_given_phi_right_answer_passes():
    fb = lesson6.check_conditional_given_phi(_given_phi)
    assert fb, fb.message


def _collapsed(decrement):
    def fn(n_dk, n_wk, n_k, s, phi_w, alpha, beta, V):
        n_dk, n_wk, n_k = n_dk.copy(), n_wk.copy(), n_k.copy()
        if decrement:
            for a in (n_dk, n_wk, n_k):
                a[s] -= 1
        p = (n_dk + alpha) * (n_wk + beta) / (n_k + V * beta)
        return p / p.sum()
    return fn


@pytest.mark.parametrize("fn, words", [
    (lambda n_dk, n_wk, n_k, k, phi, a, b, V: (n_dk + a) * phi / ((n_dk + a) * phi).sum(),
     "token i is still in n_dk"),
    (_collapsed(True), "that is the collapsed conditional"),
    (_collapsed(False), "with token i not even removed"),
    (lambda n_dk, n_wk, n_k, k, phi, a, b, V: _given_phi(n_dk, n_wk, n_k, k, phi, a, b, V)
     * 3.0, "proportional to the conditional but sum to"),
    (lambda n_dk, n_wk, n_k, k, phi, a, b, V: _given_phi(n_dk, n_wk, n_k, k, phi, 0.0, b, V),
     "alpha is missing"),
    (lambda n_dk, n_wk, n_k, k, phi, a, b, V:
     _given_phi(n_dk, n_wk, n_k, k, np.ones_like(phi), a, b, V), "the word term is missing"),
    (lambda *args: np.ones(3) / 3, "Given Phi it is proportional to (n_dk + alpha)"),
])
def test_conditional_given_phi_mistakes_are_named(fn, words):
    fb = lesson6.check_conditional_given_phi(fn)
    assert not fb and words in fb.message, fb.message


def test_collapsed_and_unnormalised_gets_both_hints():
    fb = lesson6.check_conditional_given_phi(
        lambda *args: _collapsed(True)(*args) * 2.0)
    assert not fb
    assert "collapsed conditional" in fb.message and "normalise them" in fb.message


@pytest.mark.parametrize("fn, words", [
    (_raises, "raised ValueError: boom"),
    (_none, "returned None"),
    (lambda *args: np.ones(4) / 4, "got shape (4,)"),
    (lambda *args: np.array([1.0, -1.0, 1.0]), "non-negative"),
    (lambda *args: "abc", "must return K = 3 numbers"),
])
def test_conditional_given_phi_unusable_answers_are_feedback(fn, words):
    fb = lesson6.check_conditional_given_phi(fn)
    assert not fb and words in fb.message, fb.message


# ----------------------------------------------------------------------------- exercise (d)
def test_given_phi_the_documents_are_independent_and_collapsed_they_are_not():
    moved = lesson6.dependence_on_other_documents()
    assert moved["given Phi"] < 1e-12
    assert moved["collapsed"] > 0.1


def test_shared_counts_right_answer_passes_in_any_spelling():
    assert lesson6.check_shared_counts({"n_wk", "n_k"}, set())
    assert lesson6.check_shared_counts(["n_kw", "n_k"], ())
    fb = lesson6.check_shared_counts(frozenset({"N_WK", " n_k"}), [])
    assert fb and "sampled in parallel" in fb.message


@pytest.mark.parametrize("collapsed, pc, words", [
    ({"n_wk", "n_k", "n_dk"}, set(), "n_dk is the document's own count"),
    ({"n_wk"}, set(), "n_k missing"),
    ({"n_k"}, set(), "n_wk missing"),
    ({"n_wk", "n_k", "phi"}, set(), "integrates Phi out"),
    ({"n_wk", "n_k"}, {"phi"}, "none changes it during the sweep"),
    ({"n_wk", "n_k"}, {"n_wk", "n_k"}, "n_wk and n_k are not in it"),
])
def test_shared_counts_mistakes_are_named(collapsed, pc, words):
    fb = lesson6.check_shared_counts(collapsed, pc)
    assert not fb and words in fb.message, fb.message


@pytest.mark.parametrize("collapsed, pc, words", [
    (..., ..., "collapsed is still ..."),
    ({"n_wk", "n_k"}, ..., "partially_collapsed is still ..."),
    ({"n_wk", "n_k"}, None, "write set() for none"),
    ({"theta"}, set(), "'theta' in collapsed is not one of the choices"),
    ({1}, set(), "must hold names"),
    (3, set(), "must be a set of names"),
])
def test_shared_counts_unusable_answers_are_feedback(collapsed, pc, words):
    fb = lesson6.check_shared_counts(collapsed, pc)
    assert not fb and words in fb.message, fb.message


# ----------------------------------------------------------------------------- notebooks
def test_notebooks_are_committed_clean_with_the_course_kernelspec():
    for path in (STUDENT, SOLUTIONS):
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata["kernelspec"] == {"name": "python3", "display_name": "Python 3",
                                             "language": "python"}
        assert all(not c.get("outputs") and c.get("execution_count") is None
                   for c in nb.cells if c.cell_type == "code"), f"{path.name} has outputs"
        assert nb.cells[0].source.startswith("# Lesson 6: ")


def _run(path: Path, tmp_path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   timeout=600).execute()
    return nb


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _feedback_html(nb):
    return [o["data"]["text/html"] for o in _outputs(nb)
            if "text/html" in o.get("data", {}) and ("Right." in o["data"]["text/html"]
                                                     or "Not yet." in o["data"]["text/html"])]


def test_the_solutions_notebook_passes_every_check(tmp_path):
    nb = _run(SOLUTIONS, tmp_path)
    feedback = _feedback_html(nb)
    assert len(feedback) == 4
    assert all("Right." in h and "Not yet." not in h for h in feedback), feedback
    assert not [o for o in _outputs(nb) if o.output_type == "error"
                or (o.output_type == "stream" and o.name == "stderr")]


def test_the_student_notebook_runs_with_the_exercises_unanswered(tmp_path):
    nb = _run(STUDENT, tmp_path)
    assert not [o for o in _outputs(nb) if o.output_type == "error"
                or (o.output_type == "stream" and o.name == "stderr")]
    feedback = _feedback_html(nb)
    assert len(feedback) == 4 and all("Not yet." in h for h in feedback), feedback


def test_the_notebook_s_horseshoe_density_is_the_integral_over_lambda():
    """Section 1 draws p(eta | tau) = e^x E1(x) / (tau sqrt(2 pi^3)), x = eta^2 / (2 tau^2):
    the normal N(0, tau^2 lambda^2) integrated over lambda ~ C+(0, 1), to quadrature accuracy,
    and a density (it integrates to 1)."""
    from scipy.integrate import quad
    from scipy.special import hyperu

    def closed(eta, tau):
        return hyperu(1, 1, eta**2 / (2 * tau**2)) / (tau * np.sqrt(2 * np.pi**3))

    for eta, tau in [(0.1, 1.0), (1.0, 1.0), (3.0, 1.0), (0.5, 0.1), (4.0, 0.3)]:
        integral = quad(lambda lam: stats.norm.pdf(eta, 0, tau * lam) * 2 / (np.pi * (1 + lam**2)),
                        0, np.inf, limit=200)[0]
        assert np.isclose(closed(eta, tau), integral, rtol=1e-7)
    total = 2 * quad(lambda e: closed(e, 0.5), 0, np.inf, limit=200)[0]
    assert np.isclose(total, 1.0, rtol=1e-7)
