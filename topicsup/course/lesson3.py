"""Lesson 3: alias tables (Walker 1977, Vose 1991) and why stale tables are biased (AliasLDA:
Li, Ahmed, Ravi and Smola 2014, sec. 3.1 and 4.1; ``notebooks/course/03_alias_tables.ipynb``).

The checks:

* ``check_build_alias(build_alias)``: the student's table ``(prob, alias)`` for five
  distributions encodes each EXACTLY (to 1e-9): for every outcome i, prob[i] / n plus
  (1 - prob[j]) / n for every column j with alias[j] == i equals p_i. Names an unscaled table
  (prob = p instead of n p), a column left unfilled, a prob above 1 or below 0.
* ``check_draw_alias(draw_alias)``: 20,000 seeded draws from a table the library built, a
  chi-square test against p; a failing sampler is matched against the typical mistakes
  (coin read the wrong way round, alias never or always taken, last column never picked).
* ``check_stale_bias(stale_bias)``: the total variation distance between the stationary
  distribution of a stale-table kernel and the exact posterior, on four kernels, to 1e-9.
  Names the missing 1/2, the largest difference instead of the sum, the right eigenvector
  (uniform), an eigenvector not normalised to sum 1, one step from the posterior, a row of P,
  an unconverged power iteration.
* ``check_acceptance(acceptance)``: the independence Metropolis-Hastings acceptance
  min(1, p(t) q(s) / (p(s) q(t))) on numbers and on arrays, then plugged into the stale-table
  sampler: with a frozen table its stationary distribution must be the posterior (TV < 1e-9).
  Names the inverted ratio, the forgotten proposal ratio, the proposal ratio upside down, the
  forgotten min(1, .), and ``min`` on arrays.

The stale-table sampler (``stale_kernel``) is AliasLDA's proposal, eq. 10: the document part
n_dk (n_wk + beta) / (n_k + V beta) from the current counts, plus the dense part
alpha_k (n~_wk + beta) / (n~_k + V beta) from the counts n~ of the state at the table's last
rebuild; the tables are rebuilt every s sweeps, so the chain is Markov from one rebuild to
the next and its transition matrix over the 2^8 assignments of the lesson's tiny corpus is
computed exactly by enumeration (``topicsup.testing.exact``'s states). The library's own
``LDA(sampler="alias")`` is biased for the same reason (docs/math.md sec. 3,
``tests/kernels/test_light.py::test_stale_tables_that_contain_the_token_are_biased``).
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any, Callable

import altair as alt
import numpy as np
import pandas as pd
from scipy import stats

from ..arrays import F64
from ..corpus import Corpus
from ..kernels.alias import build_alias as _library_build_alias
from ..testing.exact import (enumerate_assignments, lda_log_joint_states, normalize_log,
                             tiny_corpus)
from ._feedback import Feedback, call, checked, right, wrong

__all__ = ["ALPHA", "BETA", "DOCS", "K", "bias_chart", "bias_explorer", "check_acceptance",
           "check_build_alias", "check_draw_alias", "check_stale_bias", "lesson_corpus",
           "posterior", "stale_kernel", "table_chart"]

# The corpus of the library's own stale-table test (tests/kernels/test_light.py, K2): three
# documents, eight tokens, three words; with K = 2 its 2^8 = 256 assignments are listed.
DOCS = [[0, 1], [1, 2, 2], [0, 2, 1]]
K = 2
ALPHA = 0.3
BETA = 0.2
MAX_SWEEPS = 8          # the longest rebuild period the lesson tabulates
FROZEN_SEED = 0         # the random assignment the frozen table is built from, once
CORRECTIONS = ("none", "mh")
TABLES = ("rebuilt", "frozen")

# Exact answers (a table's encoding, a stationary distribution, an acceptance probability)
# are sums and products of a few dozen floats, so a right answer is within ~1e-13 of the
# truth: 1e-9 leaves room for another correct order of operations and rejects any mistake.
EXACT = 1e-9


def _fmt(x: Any) -> str:
    return np.array2string(np.asarray(x, dtype=float), precision=4, suppress_small=True,
                           separator=", ")


# ---------------------------------------------------------------------------- the tiny corpus
def lesson_corpus() -> Corpus:
    """The lesson's corpus: ``DOCS`` (words w0, w1, w2)."""
    return tiny_corpus(DOCS)


@lru_cache(maxsize=1)
def _posterior() -> F64:
    corpus = lesson_corpus()
    Z = enumerate_assignments(corpus.n_tokens, K)
    return normalize_log(lda_log_joint_states(corpus, K, ALPHA, BETA, Z))


def posterior() -> F64:
    """The exact posterior p(z | w) of the lesson's corpus over
    ``enumerate_assignments(8, K)`` (a copy)."""
    return _posterior().copy()


def _counts(corpus: Corpus, Z: np.ndarray) -> tuple[F64, F64, F64]:
    """n_dk (S, D, K), n_wk (S, V, K) and n_k (S, K) of every row of Z (plain numpy)."""
    S = Z.shape[0]
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    n_dk = np.zeros((S, corpus.n_docs, K))
    n_wk = np.zeros((S, corpus.n_words, K))
    rows = np.arange(S)
    for i in range(corpus.n_tokens):
        np.add.at(n_dk, (rows, doc_of[i], Z[:, i]), 1.0)
        np.add.at(n_wk, (rows, corpus.words[i], Z[:, i]), 1.0)
    return n_dk, n_wk, n_wk.sum(axis=1)


# ------------------------------------------------------------------- the stale-table sampler
Acceptance = Callable[[F64, F64, F64, F64], Any]


def _mh_acceptance(p_s: F64, p_t: F64, q_s: F64, q_t: F64) -> F64:
    return np.minimum(1.0, p_t * q_s / (p_s * q_t))


def _token_kernels(correction: str | Acceptance, table: str, mh_steps: int) -> list[F64]:
    """Per token i, T[a, h, l, s, t]: the probability that token i's step moves it from topic
    s to t, in the state whose other tokens are (h, l) (the digits of the state index above
    and below token i's), with the table built from state a (a single row when frozen)."""
    corpus = lesson_corpus()
    N, V = corpus.n_tokens, corpus.n_words
    Z = enumerate_assignments(N, K)
    n_dk, n_wk, n_k = _counts(corpus, Z)
    if table == "frozen":
        z_star = np.random.default_rng(FROZEN_SEED).integers(K, size=(1, N))
        _, src_wk, src_k = _counts(corpus, z_star)
    else:   # rebuilt: the table of row a is built from state a, every token counted
        src_wk, src_k = n_wk, n_k
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    alpha = np.full(K, ALPHA)
    out = []
    for i in range(N):
        d, w = doc_of[i], corpus.words[i]
        own = np.eye(K)[Z[:, i]]   # token i removed from the counts: the conditional's n^-i
        nd, nw, n = n_dk[:, d] - own, n_wk[:, w] - own, n_k - own
        word = (nw + BETA) / (n + V * BETA)
        H, L = K ** (N - 1 - i), K ** i
        # p and the document part do not depend on z_i: read them where z_i = 0
        p = ((nd + alpha) * word).reshape(H, K, L, K)[:, 0]
        doc_part = (nd * word).reshape(H, K, L, K)[:, 0]
        stale = alpha * (src_wk[:, w] + BETA) / (src_k + V * BETA)   # (A, K), Li eq. 10
        q = doc_part[None] + stale[:, None, None, :]                  # (A, H, L, K)
        qn = q / q.sum(axis=-1, keepdims=True)
        if isinstance(correction, str) and correction == "none":
            T = np.broadcast_to(qn[..., None, :], q.shape + (K,)).copy()
        else:
            shape = q.shape + (K,)
            P_b = np.broadcast_to(p[None], q.shape)
            args = (np.broadcast_to(P_b[..., :, None], shape),
                    np.broadcast_to(P_b[..., None, :], shape),
                    np.broadcast_to(q[..., :, None], shape),
                    np.broadcast_to(q[..., None, :], shape))
            fn = _mh_acceptance if isinstance(correction, str) else correction
            a = np.asarray(fn(*args), dtype=np.float64)
            a = _valid_acceptance(np.broadcast_to(a, shape))
            A = qn[..., None, :] * a   # propose t, accept with a(s, t)
            diag = np.arange(K)
            A[..., diag, diag] = 0.0
            A[..., diag, diag] = 1.0 - A.sum(axis=-1)
            T = np.linalg.matrix_power(A, mh_steps)
        out.append(T)
    return out


def _valid_acceptance(a: np.ndarray) -> F64:
    if not np.isfinite(a).all():
        raise ValueError("the acceptance function returned a non-finite value")
    if a.min() < -1e-12 or a.max() > 1 + 1e-12:
        bad = a.max() if a.max() > 1 else a.min()
        raise ValueError(f"the acceptance function returned {bad:.4g}: an acceptance "
                         f"probability lies in [0, 1]")
    return np.array(np.clip(a, 0.0, 1.0))


def _period_kernels(correction: str | Acceptance, table: str, mh_steps: int,
                    n_sweeps: int) -> list[F64]:
    """The transition matrices after 1..n_sweeps sweeps from a rebuild: row a is the
    distribution of the state after the sweeps, started at state a with a's table."""
    N = len(sum(DOCS, []))
    S = K ** N
    kernels = _token_kernels(correction, table, mh_steps)
    M = np.eye(S)
    out = []
    for _ in range(n_sweeps):
        for i, T in enumerate(kernels):
            H, L = K ** (N - 1 - i), K ** i
            Tb = np.broadcast_to(T, (S,) + T.shape[1:])
            M = np.einsum("ahsl,ahlst->ahtl", M.reshape(S, H, K, L), Tb).reshape(S, S)
        out.append(M.copy())
    return out


@lru_cache(maxsize=None)
def _cached_kernels(correction: str, table: str, mh_steps: int) -> tuple[F64, ...]:
    return tuple(_period_kernels(correction, table, mh_steps, MAX_SWEEPS))


def stale_kernel(sweeps_between_rebuilds: int = 1, correction: str | Acceptance = "none",
                 table: str = "rebuilt", mh_steps: int = 2) -> F64:
    """The exact transition matrix P (256 x 256, rows sum to 1) of the stale-table sampler on
    the lesson's corpus, from one table rebuild to the next: P[a, b] is the probability that
    the chain at state a (``enumerate_assignments(8, 2)``'s row a) when the tables are rebuilt
    is at state b ``sweeps_between_rebuilds`` sweeps later, when the next rebuild comes.

    Each token's step draws from AliasLDA's proposal (Li et al. 2014 eq. 10): the document
    part from the current counts, the word part from the table. ``table``: ``"rebuilt"`` (from
    the state at the last rebuild, every token counted) or ``"frozen"`` (built once from a
    random assignment, never rebuilt). ``correction``: ``"none"`` (the proposal is taken as if
    it were the conditional), ``"mh"`` (``mh_steps`` Metropolis-Hastings steps per token, as
    the paper's sampler) or a function ``acceptance(p_s, p_t, q_s, q_t)`` working elementwise
    on arrays (the MH steps with that acceptance probability)."""
    s = operator.index(sweeps_between_rebuilds)
    if not 1 <= s <= 64:
        raise ValueError(f"sweeps_between_rebuilds must be 1..64, got {s}")
    if table not in TABLES:
        raise ValueError(f"table must be one of {TABLES}, got {table!r}")
    if isinstance(correction, str) and correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS} or a function "
                         f"acceptance(p_s, p_t, q_s, q_t), got {correction!r}")
    if not isinstance(correction, str) and not callable(correction):
        raise ValueError("correction must be 'none', 'mh' or a function")
    if not 1 <= operator.index(mh_steps) <= 8:
        raise ValueError(f"mh_steps must be 1..8, got {mh_steps}")
    if isinstance(correction, str) and s <= MAX_SWEEPS:
        return _cached_kernels(correction, table, mh_steps)[s - 1].copy()
    return _period_kernels(correction, table, mh_steps, s)[-1]


def _stationary(P: F64) -> F64:
    """pi with pi P = pi, sum 1: one equation of (P^T - I) pi = 0 replaced by the sum."""
    A = P.T - np.eye(len(P))
    A[-1] = 1.0
    b = np.zeros(len(P))
    b[-1] = 1.0
    return np.asarray(np.linalg.solve(A, b))


def _tv(a: F64, b: F64) -> float:
    return 0.5 * float(np.abs(a - b).sum())


@lru_cache(maxsize=None)
def _bias(correction: str, table: str, s: int) -> float:
    if table == "frozen":   # P = T^s for one sweep's T, with T's stationary distribution
        s = 1
    return _tv(_stationary(_cached_kernels(correction, table, 2)[s - 1]), _posterior())


# --------------------------------------------------------------------------------- charts
_LABELS = {("rebuilt", "none"): "rebuilt tables, no correction",
           ("rebuilt", "mh"): "rebuilt tables, MH (2 steps)",
           ("frozen", "none"): "frozen table, no correction",
           ("frozen", "mh"): "frozen table, MH (2 steps)"}


def bias_chart(sweeps_between_rebuilds: int = 1, correction: str = "none",
               table: str = "rebuilt") -> alt.HConcatChart:
    """Left: the exact bias (total variation to the posterior) of the stale-table sampler
    against the sweeps between rebuilds, for rebuilt and frozen tables, with and without the
    MH correction; the chosen sampler ringed. Right: the chosen sampler's stationary
    probability of each of the 256 assignments against its exact posterior probability (on the
    diagonal when unbiased)."""
    s = operator.index(sweeps_between_rebuilds)
    stale_kernel(s, correction, table)   # validates the arguments
    rows = [{"sweeps between rebuilds": k, "TV to the posterior": _bias(c, t, k),
             "sampler": _LABELS[(t, c)]}
            for (t, c) in _LABELS for k in range(1, MAX_SWEEPS + 1)]
    curves = pd.DataFrame(rows)
    chosen = curves[(curves["sampler"] == _LABELS[(table, correction)])
                    & (curves["sweeps between rebuilds"] == s)]
    colour = alt.Color("sampler:N", sort=list(_LABELS.values()),
                       legend=alt.Legend(orient="bottom", columns=2, title=None))
    x = alt.X("sweeps between rebuilds:Q", scale=alt.Scale(domain=[1, MAX_SWEEPS]),
              axis=alt.Axis(tickMinStep=1))
    y = alt.Y("TV to the posterior:Q", scale=alt.Scale(domain=[0, 0.45]))
    base = alt.Chart(curves)
    left = (base.mark_line(point=True).encode(x=x, y=y, color=colour,
                                              tooltip=["sampler", "sweeps between rebuilds",
                                                       alt.Tooltip("TV to the posterior",
                                                                   format=".4f")])
            + alt.Chart(chosen).mark_point(size=260, color="black", strokeWidth=2)
            .encode(x=x, y=y)).properties(width=330, height=230,
                                          title="Bias of each sampler (exact)")
    pi_P = _stationary(stale_kernel(s, correction, table))
    post = _posterior()
    states = pd.DataFrame({"posterior": post, "stationary": pi_P,
                           "state": np.arange(len(post))})
    top = float(max(post.max(), pi_P.max())) * 1.05
    axis = alt.Scale(domain=[0, top])
    diagonal = alt.Chart(pd.DataFrame({"posterior": [0.0, top],
                                       "stationary": [0.0, top]})).mark_line(
        color="#999", strokeDash=[4, 4]).encode(x="posterior:Q", y="stationary:Q")
    right_ = (diagonal + alt.Chart(states).mark_circle(size=30, opacity=0.7).encode(
        x=alt.X("posterior:Q", scale=axis, title="exact posterior π(z)"),
        y=alt.Y("stationary:Q", scale=axis, title="sampler's stationary π_P(z)"),
        tooltip=["state", alt.Tooltip("posterior", format=".4f"),
                 alt.Tooltip("stationary", format=".4f")])).properties(
        width=260, height=230,
        title=f"{_kernel_name(table, correction, s)}: TV {_tv(pi_P, post):.3f}")
    return alt.hconcat(left, right_, spacing=30).configure_title(fontSize=12)


def bias_explorer() -> Any:
    """A slider for the sweeps between rebuilds and buttons for the correction and the table,
    redrawing ``bias_chart`` in place (one chart widget, its spec replaced)."""
    import ipywidgets as w

    sweeps = w.IntSlider(value=1, min=1, max=MAX_SWEEPS, description="sweeps between rebuilds",
                         style={"description_width": "initial"}, layout=w.Layout(width="420px"))
    correction = w.ToggleButtons(options=[("no correction", "none"), ("MH, 2 steps", "mh")],
                                 value="none", description="correction")
    table = w.ToggleButtons(options=list(TABLES), value="rebuilt", description="table")
    # Altair's chart widget, its Vega libraries inlined (no internet needed); the specs hold
    # only finite numbers (tests/course/test_lesson3.py), so topicsup.widgets' check of them,
    # a layer above this package, is not needed
    alt.JupyterChart.enable_offline()
    chart = alt.JupyterChart(bias_chart(1, "none", "rebuilt"))

    def redraw(_: Any) -> None:
        chart.chart = bias_chart(sweeps.value, correction.value, table.value)

    for control in (sweeps, correction, table):
        control.observe(redraw, names="value")
    return w.VBox([sweeps, correction, table, chart])


def _library_table(p: F64) -> tuple[F64, np.ndarray]:
    n = len(p)
    prob, alias = np.zeros(n), np.zeros(n, np.int32)
    _library_build_alias(np.asarray(p, np.float64), prob, alias, np.zeros(n, np.int32))
    return prob, alias


def table_chart(p: Any) -> alt.LayerChart:
    """The alias table of ``p`` (the library's Vose construction) as n columns of height 1:
    column j keeps outcome j with probability prob[j] (bottom) and gives alias[j] the rest
    (top); each outcome's total area, divided by n, is p_i."""
    p = np.asarray(p, dtype=np.float64)
    prob, alias = _library_table(p / p.sum())
    rows = []
    for j in range(len(p)):
        rows.append({"column": j, "outcome": f"outcome {j}", "part": "own", "low": 0.0,
                     "high": float(prob[j])})
        if prob[j] < 1.0:
            rows.append({"column": j, "outcome": f"outcome {alias[j]}", "part": "alias",
                         "low": float(prob[j]), "high": 1.0})
    frame = pd.DataFrame(rows)
    frame["label"] = [f"{o[8:]}: {h - lo:.2f}" for o, lo, h in
                      zip(frame["outcome"], frame["low"], frame["high"])]
    bars = alt.Chart(frame).mark_bar(stroke="white", strokeWidth=2).encode(
        x=alt.X("column:O", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("low:Q", scale=alt.Scale(domain=[0, 1]), title="share of the column"),
        y2="high:Q",
        color=alt.Color("outcome:N", legend=alt.Legend(title=None)),
        tooltip=["column", "outcome", "part", alt.Tooltip("low", format=".3f"),
                 alt.Tooltip("high", format=".3f")])
    text = alt.Chart(frame).transform_calculate(mid="(datum.low + datum.high) / 2").mark_text(
        color="white", fontSize=11).encode(x="column:O", y="mid:Q", text="label:N")
    return (bars + text).properties(width=60 * len(p), height=200,
                                    title=f"Alias table of p = {_fmt(p / p.sum())}")


# ----------------------------------------------------------------------- exercise 1: build
ALIAS_CASES: tuple[F64, ...] = (
    np.array([0.1, 0.2, 0.3, 0.4]),
    np.array([0.5, 0.25, 0.125, 0.125, 0.0]),     # an outcome of probability 0
    np.full(5, 0.2),                               # uniform: every column is already full
    np.array([0.97, 0.01, 0.01, 0.01]),            # one outcome fills three other columns
    np.random.default_rng(3).dirichlet(np.ones(10)),
)


def encoded(prob: Any, alias: Any) -> F64:
    """The distribution an alias table encodes: (prob[i] + sum of 1 - prob[j] over the
    columns j with alias[j] == i) / n."""
    prob = np.asarray(prob, dtype=np.float64)
    alias = np.asarray(alias).astype(np.int64)
    n = len(prob)
    return np.asarray((prob + np.bincount(alias, weights=1.0 - prob, minlength=n)) / n)


def _as_table(out: Any, n: int) -> tuple[F64, np.ndarray] | Feedback:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return wrong(f"build_alias must return two arrays, (prob, alias); it returned "
                     f"{type(out).__name__}")
    try:
        prob = np.asarray(out[0], dtype=np.float64)
        alias_raw = np.asarray(out[1], dtype=np.float64)
    except (TypeError, ValueError):
        return wrong("prob and alias must be arrays of numbers")
    if prob.shape != (n,) or alias_raw.shape != (n,):
        return wrong(f"for p of length {n}, prob and alias must both have length {n} (one "
                     f"entry per column); got shapes {prob.shape} and {alias_raw.shape}")
    if not np.isfinite(prob).all():
        return wrong(f"prob holds a non-finite value: {_fmt(prob)}")
    if not (np.isfinite(alias_raw).all() and (alias_raw == np.round(alias_raw)).all()):
        return wrong(f"alias must hold outcome numbers (integers 0..{n - 1}); got "
                     f"{_fmt(alias_raw)}")
    return prob, alias_raw.astype(np.int64)


def _diagnose_table(p: F64, prob: F64, alias: np.ndarray) -> Feedback | None:
    n = len(p)
    bad = np.flatnonzero((alias < 0) | (alias >= n))
    if bad.size:
        j = int(bad[0])
        return wrong(f"for p = {_fmt(p)}: alias[{j}] = {alias[j]} is not an outcome 0..{n - 1}"
                     f": column {j} was left unfilled. Every column j gets an alias when a "
                     f"large outcome fills it, or prob[j] = 1 if it is left over at the end "
                     f"(its alias then never matters)")
    if prob.max() > 1 + EXACT:
        j = int(np.argmax(prob))
        return wrong(f"for p = {_fmt(p)}: prob[{j}] = {prob[j]:.4g} exceeds 1. prob[j] is the "
                     f"chance that column j keeps its own outcome, at most 1: a large outcome "
                     f"l that fills column s gives away 1 - prob[s], so n p_l is reduced to "
                     f"n p_l - (1 - prob[s]) and l goes back to the small or the large list; the "
                     f"outcomes left at the end are 1 up to rounding: set their prob to 1")
    if prob.min() < -EXACT:
        j = int(np.argmin(prob))
        return wrong(f"for p = {_fmt(p)}: prob[{j}] = {prob[j]:.4g} is negative: a large "
                     f"outcome l that fills column s gives away exactly 1 - prob[s] (its "
                     f"scaled mass becomes n p_l + prob[s] - 1), no more")
    e = encoded(prob, alias)
    if np.abs(e - p).max() <= EXACT:
        return None
    where = (f"for p = {_fmt(p)} your table encodes {_fmt(e)} (outcome i gets prob[i] / n "
             f"plus (1 - prob[j]) / n from every column j whose alias is i)")
    positive = p > 0
    if np.allclose(prob[positive], p[positive], atol=EXACT) and n > 1:
        return wrong(f"{where}. prob[j] equals p_j: the probabilities are not scaled by n. "
                     f"Column j is a slice 1/n of the total, so it keeps outcome j with "
                     f"probability n p_j (here n = {n}); outcomes with n p_j < 1 are the small "
                     f"ones")
    if np.allclose(prob, 1.0, atol=EXACT) and not np.allclose(p, 1.0 / n):
        return wrong(f"{where}: every column keeps its own outcome, the uniform distribution. "
                     f"Was every outcome put in the small list (compared p_j with 1 instead "
                     f"of n p_j with 1)? Scale by n = {n} first")
    unfilled = np.flatnonzero((prob == 0.0) & positive)
    if unfilled.size:
        j = int(unfilled[0])
        return wrong(f"{where}. Column {j} has prob 0 and alias {alias[j]} although p_{j} = "
                     f"{p[j]:.4g} > 0: it looks unfilled (its initial values). After the "
                     f"pairing loop, the outcomes left in either list must get prob = 1")
    i = int(np.argmax(np.abs(e - p)))
    return wrong(f"{where}. Outcome {i} gets {e[i]:.4g} instead of {p[i]:.4g}: when small "
                 f"outcome s and large l share column s, set prob[s] = n p_s, alias[s] = l, "
                 f"and take 1 - prob[s] from l's scaled mass")


@checked
def check_build_alias(build_alias: Any) -> Feedback:
    """``build_alias(p)`` -> ``(prob, alias)``: Walker's table for the probabilities ``p``
    (Vose's construction), checked exactly on five distributions."""
    for p in ALIAS_CASES:
        out = call(build_alias, p.copy(), what="build_alias")
        table = _as_table(out, len(p))
        if isinstance(table, Feedback):
            return table
        problem = _diagnose_table(p, *table)
        if problem is not None:
            return problem
    return right(f"your tables encode each of the {len(ALIAS_CASES)} distributions exactly "
                 f"(to 1e-9): for every outcome i, prob[i] / n plus (1 - prob[j]) / n over "
                 f"the columns aliased to i is p_i; every prob in [0, 1], every alias an "
                 f"outcome (with an outcome of probability 0, a uniform p, one dominant "
                 f"outcome and 10 outcomes)")


# ------------------------------------------------------------------------ exercise 2: draw
DRAW_P = np.array([0.05, 0.3, 0.1, 0.25, 0.2, 0.1])
N_DRAWS = 20_000
DRAW_SEED = 2014
# A correct sampler fails the chi-square test at level 1e-3 with probability 1e-3 (and, the
# draws seeded, always or never for a given function: the right answer passes). Each mistake
# below moves some outcome's probability by >= 0.03 (``_draw_mutants``), ~7 standard errors
# of a frequency from 20,000 draws (sd <= 0.0035), so none passes.
DRAW_LEVEL = 1e-3


def _draw_mutants(prob: F64, alias: np.ndarray) -> dict[str, F64]:
    n = len(prob)
    own = np.arange(n)
    return {
        "swapped": (np.bincount(own, 1 - prob, n) + np.bincount(alias, prob, n)) / n,
        "column": np.full(n, 1.0 / n),
        "alias": np.bincount(alias, minlength=n) / n,
        "last": (np.bincount(own[:-1], prob[:-1], n)
                 + np.bincount(alias[:-1], 1 - prob[:-1], n)) / (n - 1),
        "first": (np.bincount(own[1:], prob[1:], n)
                  + np.bincount(alias[1:], 1 - prob[1:], n)) / (n - 1),
    }


_DRAW_HINTS = {
    "swapped": "the coin is read the wrong way round: column j keeps its own outcome j with "
               "probability prob[j] (return j when u < prob[j]) and gives alias[j] otherwise",
    "column": "your draws are uniform over the columns: you return the column j and never its "
              "alias; flip the coin: j if u < prob[j], else alias[j]",
    "alias": "you always return alias[j]: return the column's own outcome j when u < prob[j]",
    "last": "the last column is never picked: the column is uniform over 0..n-1 "
            "(rng.integers(n) includes 0 and excludes n; rng.integers(n - 1) misses n - 1)",
    "first": "column 0 is never picked: the column is uniform over 0..n-1 (rng.integers(n), "
             "not rng.integers(1, n))",
}


@checked
def check_draw_alias(draw_alias: Any) -> Feedback:
    """``draw_alias(prob, alias, rng)`` -> one outcome: 20,000 seeded draws from the library's
    table for ``DRAW_P``, chi-square against p."""
    p = DRAW_P
    n = len(p)
    prob, alias = _library_table(p)
    rng = np.random.default_rng(DRAW_SEED)
    draws = np.empty(N_DRAWS, np.int64)
    for r in range(N_DRAWS):
        x = call(draw_alias, prob.copy(), alias.copy(), rng, what="draw_alias")
        try:
            k = operator.index(x) if not isinstance(x, float) or not x.is_integer() else int(x)
        except TypeError:
            return wrong(f"draw_alias must return one outcome (an integer), got "
                         f"{type(x).__name__} {x!r}")
        if not 0 <= k < n:
            return wrong(f"draw_alias returned {k}, not an outcome 0..{n - 1} of this table "
                         f"(the column is rng.integers(n): 0..n-1)")
        draws[r] = k
    counts = np.bincount(draws, minlength=n)
    freq = counts / N_DRAWS
    pvalue = float(stats.chisquare(counts, N_DRAWS * p).pvalue)
    if pvalue > DRAW_LEVEL:
        return right(f"{N_DRAWS:,} draws from the table of p = {_fmt(p)} have frequencies "
                     f"{_fmt(freq)} (standard error <= 0.0035): chi-square p-value "
                     f"{pvalue:.3f} > {DRAW_LEVEL}. One uniform column and one coin: O(1) per "
                     f"draw whatever n")
    fits = {name: float(stats.chisquare(counts, N_DRAWS * np.maximum(e, 1e-12)).pvalue)
            for name, e in _draw_mutants(prob, alias).items()}
    best = max(fits, key=lambda name: fits[name])
    where = (f"{N_DRAWS:,} draws from the table of p = {_fmt(p)} have frequencies "
             f"{_fmt(freq)}: chi-square p-value {pvalue:.2g}")
    if fits[best] > DRAW_LEVEL:
        return wrong(f"{where}: {_DRAW_HINTS[best]}")
    return wrong(f"{where}, not p. Pick a column j uniformly (rng.integers(n)), a uniform u "
                 f"(rng.random()), and return j if u < prob[j], else alias[j]")


# -------------------------------------------------------------- exercise 3: the stale bias
BIAS_CASES = (("rebuilt", "none", 1), ("rebuilt", "none", 4), ("rebuilt", "mh", 2),
              ("frozen", "mh", 1))


def _kernel_name(table: str, correction: str, s: int) -> str:
    how = "no correction" if correction == "none" else "MH"
    if table == "frozen":
        return f"frozen table, {how}"
    every = "every sweep" if s == 1 else f"every {s} sweeps"
    return f"tables rebuilt {every}, {how}"


def _bias_mistakes(P: F64, post: F64, truth: float) -> dict[str, float]:
    pi = _stationary(P)
    w, v = np.linalg.eig(P.T)
    unit = np.real(v[:, int(np.argmin(np.abs(w - 1)))])
    unit = unit / np.linalg.norm(unit)
    n = len(post)
    return {
        "no half": 2 * truth,
        "max": float(np.abs(pi - post).max()),
        "right eigenvector": _tv(np.full(n, 1.0 / n), post),
        "unit norm": _tv(unit, post),
        "unit norm, negative": _tv(-unit, post),
        "one step": _tv(post @ P, post),
        "row": _tv(P[0], post),
        "row, no half": 2 * _tv(P[0], post),
    }


_BIAS_HINTS = {
    "no half": "twice the total variation: TV is half the L1 distance, "
               "0.5 * sum |pi_P - posterior|",
    "max": "that is the largest difference for a single state; the total variation sums "
           "over all states: 0.5 * sum |pi_P - posterior|",
    "right eigenvector": "that is the distance of the UNIFORM distribution: np.linalg.eig(P) "
                         "gives right eigenvectors, P v = v, and since P's rows sum to 1 the "
                         "eigenvalue-1 one is constant. The stationary distribution is a "
                         "left eigenvector, pi P = pi: take np.linalg.eig(P.T)",
    "unit norm": "the eigenvector is not normalised to a distribution: eig returns vectors "
                 "of unit length (sum of squares 1, any sign); divide by its sum",
    "unit norm, negative": "the eigenvector is not normalised to a distribution: eig returns "
                           "vectors of unit length and any sign (here negative); divide by "
                           "its sum",
    "one step": "that is one period from the posterior, posterior @ P, not the stationary "
                "distribution: solve pi P = pi (np.linalg.eig(P.T), eigenvalue 1, or "
                "np.linalg.matrix_power(P, 1000)[0] for a long run)",
    "row": "that is a row of P, where one start goes in one period, not the stationary "
           "distribution: solve pi P = pi (np.linalg.eig(P.T), eigenvalue 1)",
    "row, no half": "that is a row of P (where one start goes in one period, not the "
                    "stationary distribution), and without the 1/2 of the total variation",
}


@checked
def check_stale_bias(stale_bias: Any) -> Feedback:
    """``stale_bias(P, posterior)`` -> the total variation distance between the stationary
    distribution of the transition matrix P and the posterior; checked on four stale-table
    kernels of the lesson's corpus, to 1e-9."""
    post = _posterior()
    found = []
    for table, correction, s in BIAS_CASES:
        P = stale_kernel(s, correction, table)
        truth = _tv(_stationary(P), post)
        out = call(stale_bias, P.copy(), post.copy(), what="stale_bias")
        name = _kernel_name(table, correction, s)
        try:
            x = complex(np.asarray(out).item()) if np.ndim(out) == 0 else None
        except (TypeError, ValueError):
            x = None
        if x is None:
            return wrong(f"stale_bias must return one number, the distance; it returned "
                         f"{type(out).__name__} of shape {np.shape(out)}")
        if abs(x.imag) > EXACT:
            return wrong(f"stale_bias returned the complex number {x:.4g}: np.linalg.eig "
                         f"returns complex eigenvectors; take the real part (np.real) of the "
                         f"eigenvector for eigenvalue 1")
        value = x.real
        if abs(value - truth) <= EXACT:
            found.append((name, value))
            continue
        where = f"for the {name} you return {value:.6g}, the exact TV is {truth:.6g}"
        for mistake, v in _bias_mistakes(P, post, truth).items():
            if abs(value - v) <= 1e-6:
                return wrong(f"{where}: {_BIAS_HINTS[mistake]}")
        if abs(value - truth) <= 1e-3:
            return wrong(f"{where}: close but not exact (off by {abs(value - truth):.1g}); is "
                         f"your stationary distribution converged? Solve pi P = pi exactly "
                         f"(np.linalg.eig(P.T)) or raise the power")
        if not 0 <= value <= 1:
            return wrong(f"{where}: a total variation distance lies in [0, 1]")
        return wrong(f"{where}. Find pi_P with pi_P P = pi_P and sum 1 (the left eigenvector "
                     f"of P for eigenvalue 1), then return 0.5 * sum |pi_P - posterior|")
    listing = "; ".join(f"{name}: {v:.4f}" if v > EXACT else f"{name}: 0 ({v:.0e})"
                        for name, v in found)
    return right(f"your stale_bias gives the exact total variation (to 1e-9) on {len(found)} "
                 f"kernels: {listing}. Without the correction, the staler the tables the "
                 f"larger the bias")


# -------------------------------------------------------------- exercise 4: the MH ratio
# (p_s, p_t, q_s, q_t), unnormalised masses as the sampler uses them; each typical mistake
# gives a different value on at least one case whose true acceptance is below 1
ACCEPT_CASES = np.array([[0.2, 0.5, 0.3, 0.1],
                         [0.5, 0.2, 0.1, 0.3],
                         [0.4, 0.3, 0.2, 0.5],
                         [1.5, 0.9, 2.0, 3.0],
                         [0.6, 0.3, 0.2, 0.2]])


def _accept_mistakes(c: np.ndarray) -> dict[str, np.ndarray]:
    p_s, p_t, q_s, q_t = c.T
    return {
        "inverted": np.minimum(1, p_s * q_t / (p_t * q_s)),
        "metropolis": np.minimum(1, p_t / p_s),
        "q upside down": np.minimum(1, p_t * q_t / (p_s * q_s)),
        "q only": np.minimum(1, q_s / q_t),
    }


_ACCEPT_HINTS = {
    "inverted": "the ratio is upside down: the move s -> t is accepted with "
                "min(1, p(t) q(s) / (p(s) q(t))), the target's mass at the proposed t on top",
    "metropolis": "the proposal's ratio is missing: min(1, p(t) / p(s)) is Metropolis for a "
                  "symmetric proposal; q(t) is not q(s), so multiply by q(s) / q(t)",
    "q upside down": "the proposal's ratio is upside down: it is q(s) / q(t) (the reverse "
                     "move's proposal over the forward one's), min(1, p(t) q(s) / "
                     "(p(s) q(t)))",
    "q only": "the target's ratio p(t) / p(s) is missing: min(1, p(t) q(s) / (p(s) q(t)))",
}


@checked
def check_acceptance(acceptance: Any) -> Feedback:
    """``acceptance(p_s, p_t, q_s, q_t)`` -> the Metropolis-Hastings acceptance probability of
    a move s -> t drawn from an independence proposal q; on five cases, on arrays, then in
    the stale-table sampler (frozen table: exact)."""
    c = ACCEPT_CASES
    truth = _mh_acceptance(*c.T)
    got = np.empty(len(c))
    for j, case in enumerate(c):
        try:
            got[j] = float(call(acceptance, *map(float, case), what="acceptance"))
        except (TypeError, ValueError):
            return wrong("acceptance must return one number for numbers p_s, p_t, q_s, q_t")
    where = (f"for (p_s, p_t, q_s, q_t) = {_fmt(c[0])} ... your acceptances are {_fmt(got)}, "
             f"the right ones {_fmt(truth)}")
    if np.abs(got - truth).max() > EXACT:
        if got.max() > 1 + EXACT:
            return wrong(f"{where}: an acceptance probability above 1; take min(1, ratio)")
        if got.min() < -EXACT:
            return wrong(f"{where}: a negative acceptance probability")
        for mistake, v in _accept_mistakes(c).items():
            if np.abs(got - v).max() <= EXACT:
                return wrong(f"{where}: {_ACCEPT_HINTS[mistake]}")
        return wrong(f"{where}. Accept s -> t with min(1, p(t) q(s) / (p(s) q(t)))")
    try:
        arr = np.asarray(acceptance(*(c.T.copy())), dtype=np.float64)
    except ValueError as exc:
        if "truth value" in str(exc):
            return wrong("your acceptance is right on numbers but fails on arrays (Python's "
                         "min compares whole arrays): use np.minimum(1.0, ratio), which the "
                         "sampler calls on every state at once")
        return wrong(f"acceptance raised ValueError on arrays: {exc}")
    except Exception as exc:   # the student's bug on arrays, as a hint
        return wrong(f"acceptance raised {type(exc).__name__} on arrays: {exc}")
    if arr.shape != truth.shape or np.abs(arr - truth).max() > EXACT:
        return wrong(f"on arrays of 5 cases your acceptance returns {_fmt(arr)}, not "
                     f"{_fmt(truth)}: compute elementwise (np.minimum(1.0, ratio))")
    post = _posterior()
    tv = {}
    for table in TABLES:
        P = _period_kernels(acceptance, table, 2, 1)[-1]
        tv[table] = _tv(_stationary(P), post)
    if tv["frozen"] > EXACT:   # cannot happen once the values above are right
        return wrong(f"with your acceptance the frozen-table sampler is biased (TV "
                     f"{tv['frozen']:.3g}); check it on arrays")
    return right(f"min(1, p(t) q(s) / (p(s) q(t))) on 5 cases and on arrays. In the sampler, "
                 f"with a FROZEN table your acceptance makes the stationary distribution the "
                 f"posterior (TV {tv['frozen']:.1e}, from {_bias('none', 'frozen', 1):.3f} "
                 f"without it); with tables REBUILT from the chain's state every sweep the "
                 f"bias only shrinks: TV {tv['rebuilt']:.4f} (from "
                 f"{_bias('none', 'rebuilt', 1):.4f})")
