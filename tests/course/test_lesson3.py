"""Lesson 3's checks (topicsup.course.lesson3): each accepts the right answer, names the
typical mistakes by their own words, turns a student's exception or missing return into
feedback; the exact stale-table kernel agrees with a plain-Python sweep and is exact where the
theory says so; the solutions notebook runs with every check right, the student's notebook
(the exercises left as ...) runs without an error or a line on stderr. The draws of the
sampling check are seeded: the same verdict every run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from .notebooks import all_not_yet, all_right, assert_stored_clean, outputs, text_of
from topicsup.course import lesson3
from topicsup.testing.exact import enumerate_assignments, state_index

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {"student": ROOT / "notebooks" / "course" / "03_alias_tables.ipynb",
             "solutions": ROOT / "notebooks" / "course" / "solutions" / "03_alias_tables.ipynb"}


@pytest.fixture(autouse=True, scope="module")
def one_blas_thread():
    """The checks' 256 x 256 eigenproblems are no faster on several BLAS threads, and on the
    shared 2-core machine several threads only contend (seconds instead of milliseconds)."""
    with threadpool_limits(limits=1):
        yield


def _says(feedback, *words):
    """Not passed, and the hint holds each of ``words``."""
    assert not feedback.passed, feedback
    for word in words:
        assert word in feedback.message, (word, feedback.message)


def unanswered(*args):
    ...  # an exercise cell as the notebook gives it


def raises(*args):
    raise RuntimeError("boom")


# ----------------------------------------------------------------------- (a) build the table

def vose(p, *, scale=True, leftovers=True, alias_init=None, reduce_large=True):
    """Vose's construction, with switches for the typical mistakes."""
    n = len(p)
    q = (n if scale else 1) * np.asarray(p, dtype=float)
    prob = np.zeros(n)
    alias = np.arange(n) if alias_init is None else np.full(n, alias_init)
    small = [i for i in range(n) if q[i] < 1.0]
    large = [i for i in range(n) if q[i] >= 1.0]
    while small and large:
        s, l = small.pop(), large.pop()
        prob[s], alias[s] = q[s], l
        if reduce_large:
            q[l] -= 1.0 - q[s]
        (small if q[l] < 1.0 else large).append(l)
    if leftovers:
        for i in small + large:
            prob[i] = 1.0 if reduce_large else q[i]
    return prob, alias


def test_build_alias_right_answer_passes():
    fb = lesson3.check_build_alias(vose)
    assert fb.passed, fb
    assert "exactly" in fb.message and "5 distributions" in fb.message
    # lists and another correct table (the library's) pass too
    assert lesson3.check_build_alias(lambda p: tuple(map(list, vose(p)))).passed
    assert lesson3.check_build_alias(lesson3._library_table).passed


def unscaled_prob(p):
    """prob = p: the right aliases, the columns' shares not scaled by n."""
    prob, alias = vose(p)
    return np.asarray(p, dtype=float).copy(), alias


@pytest.mark.parametrize("answer, words", [
    (lambda p: vose(p, scale=False), ["uniform distribution", "Scale by n"]),
    (unscaled_prob, ["not scaled by n", "n p_j"]),
    (lambda p: vose(p, leftovers=False, alias_init=0), ["looks unfilled", "prob = 1"]),
    (lambda p: vose(p, alias_init=-1, leftovers=False), ["left unfilled", "alias[", "= -1"]),
    (lambda p: vose(p, reduce_large=False), ["exceeds 1", "1 - prob[s]"]),
    (lambda p: (vose(p)[0] - 0.5, vose(p)[1]), ["negative"]),
    (lambda p: (vose(p)[0], (vose(p)[1] + 1) % len(p)), ["your table encodes", "Outcome"]),
    (lambda p: (vose(p)[0][:-1], vose(p)[1]), ["length"]),
    (lambda p: vose(p)[0], ["two arrays"]),
    (lambda p: (vose(p)[0], vose(p)[1] + 0.5), ["integers"]),
], ids=["unscaled-uniform", "unscaled-prob", "unfilled-column", "alias-minus-one",
        "exceeds-one", "negative", "wrong-alias", "short", "one-array", "float-alias"])
def test_build_alias_names_the_mistake(answer, words):
    _says(lesson3.check_build_alias(answer), *words)


@pytest.mark.parametrize("answer, words", [
    (unanswered, ["returned None", "replace the ..."]),
    (raises, ["raised RuntimeError", "boom"]),
    (3, ["must be a function"]),
])
def test_build_alias_student_errors_are_feedback(answer, words):
    _says(lesson3.check_build_alias(answer), *words)


def test_encoded_reads_a_table():
    prob, alias = lesson3._library_table(np.array([0.1, 0.2, 0.3, 0.4]))
    assert np.allclose(lesson3.encoded(prob, alias), [0.1, 0.2, 0.3, 0.4], atol=1e-12)


# ------------------------------------------------------------------------------ (b) draw

def draw_right(prob, alias, rng):
    j = rng.integers(len(prob))
    return j if rng.random() < prob[j] else alias[j]


def test_draw_alias_right_answer_passes():
    fb = lesson3.check_draw_alias(draw_right)
    assert fb.passed, fb
    assert "20,000 draws" in fb.message and "chi-square" in fb.message
    # Walker's one-number draw, a float result and a Python int pass too
    def one_number(prob, alias, rng):
        x = rng.random() * len(prob)
        j = int(x)
        return float(j) if x - j < prob[j] else int(alias[j])
    assert lesson3.check_draw_alias(one_number).passed


@pytest.mark.parametrize("answer, words", [
    (lambda prob, alias, rng: (lambda j: alias[j] if rng.random() < prob[j] else j)(
        rng.integers(len(prob))), ["wrong way round"]),
    (lambda prob, alias, rng: rng.integers(len(prob)), ["uniform over the columns"]),
    (lambda prob, alias, rng: alias[rng.integers(len(prob))], ["always return alias[j]"]),
    (lambda prob, alias, rng: (lambda j: j if rng.random() < prob[j] else alias[j])(
        rng.integers(len(prob) - 1)), ["last column is never picked"]),
    (lambda prob, alias, rng: (lambda j: j if rng.random() < prob[j] else alias[j])(
        rng.integers(1, len(prob))), ["column 0 is never picked"]),
    (lambda prob, alias, rng: rng.integers(1, len(prob) + 1), ["not an outcome"]),
    (lambda prob, alias, rng: 0, ["frequencies", "not p"]),
    (lambda prob, alias, rng: (0, 1), ["one outcome (an integer)"]),
    (lambda prob, alias, rng: 0.5, ["one outcome (an integer)"]),
], ids=["swapped", "column-only", "alias-only", "no-last", "no-first", "out-of-range",
        "constant", "tuple", "float"])
def test_draw_alias_names_the_mistake(answer, words):
    _says(lesson3.check_draw_alias(answer), *words)


@pytest.mark.parametrize("answer, words", [
    (unanswered, ["returned None"]),
    (raises, ["raised RuntimeError"]),
])
def test_draw_alias_student_errors_are_feedback(answer, words):
    _says(lesson3.check_draw_alias(answer), *words)


# ------------------------------------------------------------------- (c) the stale bias

def left_eigenvector(P):
    values, vectors = np.linalg.eig(P.T)
    return vectors[:, np.argmin(np.abs(values - 1.0))]


def bias_right(P, posterior):
    pi = np.real(left_eigenvector(P))
    pi = pi / pi.sum()
    return 0.5 * np.abs(pi - posterior).sum()


def bias_unit(P, posterior):
    pi = np.real(left_eigenvector(P))
    pi = pi / np.linalg.norm(pi)
    pi = pi if pi.sum() > 0 else -pi
    return 0.5 * np.abs(pi - posterior).sum()


def bias_right_eigenvector(P, posterior):
    values, vectors = np.linalg.eig(P)
    v = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    return 0.5 * np.abs(v / v.sum() - posterior).sum()


def bias_few_steps(P, posterior):
    pi = np.linalg.matrix_power(P, 16)[0]   # 16 periods from one start: off by ~5e-4
    return 0.5 * np.abs(pi - posterior).sum()


def test_stale_bias_right_answer_passes():
    fb = lesson3.check_stale_bias(bias_right)
    assert fb.passed, fb
    assert "0.1029" in fb.message and "frozen table, MH: 0 (" in fb.message
    # a long power iteration is exact enough
    assert lesson3.check_stale_bias(
        lambda P, post: 0.5 * np.abs(np.linalg.matrix_power(P, 4096)[0] - post).sum()).passed


@pytest.mark.parametrize("answer, words", [
    (lambda P, post: 2 * bias_right(P, post), ["twice", "half the L1"]),
    (lambda P, post: float(np.abs(np.real(left_eigenvector(P)) / np.real(
        left_eigenvector(P)).sum() - post).max()), ["largest difference", "sums"]),
    (bias_right_eigenvector, ["UNIFORM", "np.linalg.eig(P.T)"]),
    (bias_unit, ["not normalised", "divide by its sum"]),
    (lambda P, post: 0.5 * np.abs(post @ P - post).sum(), ["one period from the posterior"]),
    (lambda P, post: 0.5 * np.abs(P[0] - post).sum(), ["a row of P"]),
    (bias_few_steps, ["close but not exact", "converged"]),
    (lambda P, post: 0.5 * np.abs(left_eigenvector(P) / left_eigenvector(P).sum() - post).sum()
     + 0.1j, ["complex", "np.real"]),
    (lambda P, post: np.abs(P[0] - post), ["one number"]),
    (lambda P, post: 1.5, ["lies in [0, 1]"]),
    (lambda P, post: 0.3, ["left eigenvector"]),
], ids=["no-half", "max", "right-eigenvector", "unit-norm", "one-step", "row", "few-steps",
        "complex", "array", "above-one", "unknown"])
def test_stale_bias_names_the_mistake(answer, words):
    _says(lesson3.check_stale_bias(answer), *words)


@pytest.mark.parametrize("answer, words", [
    (unanswered, ["returned None"]),
    (raises, ["raised RuntimeError"]),
])
def test_stale_bias_student_errors_are_feedback(answer, words):
    _says(lesson3.check_stale_bias(answer), *words)


# --------------------------------------------------------------------- (d) the correction

def accept_right(p_s, p_t, q_s, q_t):
    return np.minimum(1.0, p_t * q_s / (p_s * q_t))


def test_acceptance_right_answer_passes_and_reports_the_bias():
    fb = lesson3.check_acceptance(accept_right)
    assert fb.passed, fb
    assert "FROZEN" in fb.message and "0.0432" in fb.message and "0.1029" in fb.message


@pytest.mark.parametrize("answer, words", [
    (lambda p_s, p_t, q_s, q_t: np.minimum(1, p_s * q_t / (p_t * q_s)), ["upside down",
                                                                         "on top"]),
    (lambda p_s, p_t, q_s, q_t: np.minimum(1, p_t / p_s), ["proposal's ratio is missing"]),
    (lambda p_s, p_t, q_s, q_t: np.minimum(1, p_t * q_t / (p_s * q_s)),
     ["proposal's ratio is upside down"]),
    (lambda p_s, p_t, q_s, q_t: np.minimum(1, q_s / q_t), ["target's ratio"]),
    (lambda p_s, p_t, q_s, q_t: p_t * q_s / (p_s * q_t), ["above 1", "min(1, ratio)"]),
    (lambda p_s, p_t, q_s, q_t: min(1.0, p_t * q_s / (p_s * q_t)), ["np.minimum", "arrays"]),
    (lambda p_s, p_t, q_s, q_t: np.minimum(1, p_t * q_s / (p_s * q_t)) - 2,
     ["negative"]),
    (lambda p_s, p_t, q_s, q_t: 0.5, ["min(1, p(t) q(s) / (p(s) q(t)))"]),
    (lambda p_s, p_t, q_s, q_t: "yes", ["one number"]),
], ids=["inverted", "metropolis", "q-upside-down", "q-only", "no-min", "python-min",
        "negative", "constant", "string"])
def test_acceptance_names_the_mistake(answer, words):
    _says(lesson3.check_acceptance(answer), *words)


@pytest.mark.parametrize("answer, words", [
    (unanswered, ["returned None"]),
    (raises, ["raised RuntimeError"]),
])
def test_acceptance_student_errors_are_feedback(answer, words):
    _says(lesson3.check_acceptance(answer), *words)


# ------------------------------------------------------------------- the exact kernel itself

def reference_sweep_distribution(z0, correction, mh_steps=2):
    """The distribution of the state after one sweep from z0 with z0's table, by plain
    Python over the reachable states (independent of the module's reshapes and einsums)."""
    corpus = lesson3.lesson_corpus()
    K, a, b, V = lesson3.K, lesson3.ALPHA, lesson3.BETA, corpus.n_words
    words = corpus.words
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    stale_w = np.array([[np.sum((words == w) & (z0 == k)) for k in range(K)] for w in range(V)])
    stale_k = np.bincount(z0, minlength=K)
    dist = {tuple(z0): 1.0}
    for i in range(len(words)):
        new = {}
        for z, mass in dist.items():
            z = np.array(z)
            rest = np.arange(len(z)) != i
            nd = np.array([np.sum(rest & (doc_of == doc_of[i]) & (z == k)) for k in range(K)])
            nw = np.array([np.sum(rest & (words == words[i]) & (z == k)) for k in range(K)])
            nk = np.array([np.sum(rest & (z == k)) for k in range(K)])
            word = (nw + b) / (nk + V * b)
            p = (nd + a) * word
            q = nd * word + a * (stale_w[words[i]] + b) / (stale_k + V * b)
            step = np.tile(q / q.sum(), (K, 1))
            if correction == "mh":
                A = np.array([[q[t] / q.sum() * min(1.0, p[t] * q[s] / (p[s] * q[t]))
                               for t in range(K)] for s in range(K)])
                np.fill_diagonal(A, 0.0)
                np.fill_diagonal(A, 1.0 - A.sum(axis=1))
                step = np.linalg.matrix_power(A, mh_steps)
            for t in range(K):
                z2 = z.copy()
                z2[i] = t
                new[tuple(z2)] = new.get(tuple(z2), 0.0) + mass * step[z[i], t]
        dist = new
    out = np.zeros(K ** len(words))
    for z, mass in dist.items():
        out[state_index(np.array(z), K)] += mass
    return out


@pytest.mark.parametrize("correction", ["none", "mh"])
def test_stale_kernel_rows_equal_a_plain_python_sweep(correction):
    P = lesson3.stale_kernel(1, correction)
    Z = enumerate_assignments(8, lesson3.K)
    for row in (0, 77, 200):
        assert np.allclose(P[row], reference_sweep_distribution(Z[row], correction),
                           atol=1e-12)
    # two sweeps from a rebuild: the table of the start serves both
    P2 = lesson3.stale_kernel(2, correction)
    assert np.allclose(P2.sum(axis=1), 1.0) and (P2 >= 0).all()


def test_mh_with_a_frozen_table_is_exact_and_without_it_biased():
    post = lesson3.posterior()
    for s in (1, 3):
        pi = lesson3._stationary(lesson3.stale_kernel(s, "mh", "frozen"))
        assert np.abs(pi - post).max() < 1e-12
    assert lesson3._bias("none", "frozen", 1) > 0.3
    assert lesson3._bias("none", "rebuilt", 1) < lesson3._bias("none", "rebuilt", 8)
    assert 0.01 < lesson3._bias("mh", "rebuilt", 1) < lesson3._bias("none", "rebuilt", 1)


def test_stale_kernel_refuses_bad_arguments():
    with pytest.raises(ValueError, match="sweeps_between_rebuilds"):
        lesson3.stale_kernel(0)
    with pytest.raises(ValueError, match="table"):
        lesson3.stale_kernel(1, table="fresh")
    with pytest.raises(ValueError, match="correction"):
        lesson3.stale_kernel(1, correction="rejection")
    with pytest.raises(ValueError, match="lies in"):
        lesson3.stale_kernel(1, correction=lambda p_s, p_t, q_s, q_t: p_t / p_s)


def test_charts_fit_the_output_area_and_hold_finite_numbers():
    from topicsup.widgets import finite_spec
    for chart in (lesson3.bias_chart(3, "mh", "rebuilt"), lesson3.bias_chart(1, "none", "frozen"),
                  lesson3.table_chart([0.1, 0.2, 0.3, 0.4])):
        spec = chart.to_dict()
        finite_spec(spec)   # raises on a non-finite number outside the data
        assert "NaN" not in str(spec)
    left, right = lesson3.bias_chart(2).to_dict()["hconcat"]
    assert left["width"] + right["width"] + 30 <= 700   # + axes and titles < 800 px


def test_bias_explorer_redraws_its_chart_in_place():
    box = lesson3.bias_explorer()
    sweeps, correction, table, chart = box.children
    assert "every sweep, no correction" in str(chart.spec)
    sweeps.value, correction.value = 3, "mh"
    assert box.children[3] is chart and "every 3 sweeps, MH: TV 0.047" in str(chart.spec)
    table.value = "frozen"
    assert "frozen table, MH: TV 0.000" in str(chart.spec)


# --------------------------------------------------------------------------- the notebooks

# small eigenproblems are no faster on more BLAS threads; on 2 shared cores they contend
ONE_BLAS_THREAD = True


def test_notebooks_are_committed_without_outputs():
    assert_stored_clean(NOTEBOOKS.values(), 3)


def test_solutions_notebook_every_check_is_right(executed):
    nb = executed["solutions"]
    all_right(nb, 4)
    text = text_of(outputs(nb))
    assert "0.1529" in text and "nan" not in text.lower()


def test_student_notebook_runs_with_the_exercises_unanswered(executed):
    nb = executed["student"]
    feedback = all_not_yet(nb, 4)
    assert all("returned None" in f for f in feedback), feedback
    assert "Exercise (c) first" in text_of(outputs(nb))
