"""Lesson 5 (``notebooks/course/05_augmentation.ipynb``): data augmentation for supervision.

The checks:

* ``check_xi_conditional(fn)``: ``fn(y, s, lam)`` gives the parameters ``(mean, shape)`` of
  the hinge's augmentation variable, xi | s ~ IG(1 / (lam |1 - y s|), 1) (Zheng et al. 2015
  eq. 14; Zhu et al. 2014 write c for lam and lambda_d^-1 for xi). Compared exactly (1e-9)
  with that reading of the paper's equation at five (y, s, lam), on both sides of the margin,
  and with a seeded Monte Carlo of the library's own draws (``losses.Hinge.augment``).
* ``check_pg_mean(fn)``: ``fn(z)`` gives E[omega], omega ~ PG(1, z) (Polson, Scott and Windle
  2013), tanh(z/2) / (2z) and 1/4 at z = 0. Compared exactly with the mean summed from the
  definition's series (``pg_mean_series``), and with a seeded Monte Carlo of the library's
  exact (Devroye) draws (``losses.Logistic(c=1).augment``).
* ``check_label_ratio(fn, session)``: ``fn(p_lda, eta, b, w, topics, position)`` gives, for
  one token of an augmented supervised session, the ratio p(k | rest) / p_LDA(k | rest) of
  its conditional with the label factor exp(b s - w s^2 / 2) to the one without it, for
  every topic k (docs/math.md sec. 1.3 and 2). Compared (1e-9) with the token inspector's
  exact conditional (``topicsup.inspector``) on five tokens of two documents.

Each wrong answer is matched against the typical mistakes (the absolute value of the margin
forgotten, a square too many, lam missing or inverted, tanh(z) for tanh(z/2), the z = 0
limit, the token not removed from the counts, the 1/N_d of the score, the quadratic's sign or
half, an unnormalised ratio ...) and the hint names the one found. Helpers the notebook uses:
``hinge_draws``, ``pg_draws`` (the library's draws), ``pg_mean_series`` (the definition's
mean), ``token_parts`` (one token's numbers) and the charts ``xi_chart`` and
``pg_mean_chart``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
from scipy import stats

from ..arrays import F64, I64
from ..inspector import TokenInspector
from ..kernels.rng import seed_state
from ..losses import Augmentation
from ..losses.hinge import Hinge
from ..losses.logistic import Logistic
from ..samplers.stepping import exact_conditional
from ._feedback import Feedback, StudentError, call, checked, right, wrong

__all__ = ["TokenParts", "check_label_ratio", "check_pg_mean", "check_xi_conditional",
           "hinge_draws", "pg_draws", "pg_mean_chart", "pg_mean_series", "token_parts",
           "xi_chart"]

# Exact answers are compared to 1e-9 relative: a right formula differs from the truth by
# rounding only (about 1e-15), a wrong one by far more at these cases.
RTOL = 1e-9
# Monte Carlo: the library's draws must average within 4 standard errors of the student's
# mean. Under a right answer a 4-SE deviation has probability 6e-5 per case; the seeds are
# fixed, so the check is deterministic (tests/course/test_lesson5.py holds it at these seeds).
MC_DRAWS = 20_000
MC_SE = 4.0
SEED = 5

# (y, s, lam) for the hinge: both labels, scores on both sides of the margin (zeta < 0 twice),
# lam != 1 and |zeta| != 1, so a missing lam, a square or a lost absolute value shows
XI_CASES: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.3, 1.7), (-1.0, 0.3, 1.7), (1.0, 2.5, 0.5), (-1.0, -1.6, 3.0), (1.0, -0.8, 0.4))
# z for PG(1, z): both signs, small to large; z = 0 (the limit) is checked on its own
PG_CASES: tuple[float, ...] = (0.5, 2.0, -3.0, 10.0)


def _close(a: Any, b: Any) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all(np.isfinite(a))) and \
        bool(np.allclose(a, b, rtol=RTOL, atol=0.0))


@contextmanager
def _quiet() -> Iterator[None]:
    """The student's arithmetic may divide by zero (z = 0): the check reports it as a hint,
    so numpy's warnings must not reach the notebook's stderr."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _number(value: Any, what: str) -> float:
    """``value`` as a float (a Python or numpy number, or a one-element array)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"{what} must be a number, got {type(value).__name__}")) \
            from None
    if arr.size != 1:
        raise StudentError(wrong(f"{what} must be one number, got an array of shape "
                                 f"{arr.shape}"))
    return float(arr.reshape(()))


# ---------------------------------------------------------------------- the library's draws

def hinge_draws(y: float, s: float, lam: float, n: int = MC_DRAWS, seed: int = SEED) -> F64:
    """``n`` draws of the hinge's augmentation xi given the score ``s`` of a document with
    label ``y`` (+1 or -1), made by the library's sampler (``losses.Hinge(lam).augment``,
    which writes w = lam^2 xi), from the random stream ``seed``."""
    if y not in (1, -1):
        raise ValueError(f"y must be +1 or -1, got {y!r}")
    b, w = np.empty((1, n)), np.empty((1, n))
    Hinge(float(lam)).augment(np.full((1, n), float(y)), np.full((1, n), float(s)),
                              seed_state(seed), Augmentation(b, w))
    xi: F64 = w[0] / (lam * lam)
    return xi


def pg_draws(z: float, n: int = MC_DRAWS, seed: int = SEED) -> F64:
    """``n`` draws of omega ~ PG(1, z) made by the library's sampler, gSLDA's logistic
    augmentation with c = 1 (``losses.Logistic(c=1).augment``, the exact Devroye method),
    from the random stream ``seed``."""
    loss = Logistic(c=1.0)
    own = loss.allocate(1, n)
    loss.start(own, seed_state(seed))
    loss.augment(np.ones((1, n)), np.full((1, n), float(z)), seed_state(seed), own)
    omega: F64 = own.w[0].copy()
    return omega


def _mc_mean(draws: F64) -> tuple[float, float]:
    """The draws' mean and its standard error (from the draws' own spread)."""
    return float(draws.mean()), float(draws.std(ddof=1) / math.sqrt(draws.size))


# ---------------------------------------------------------------------- (a) the hinge's xi

def _xi_truth(y: float, s: float, lam: float) -> tuple[float, float]:
    """Zheng et al. 2015 eq. 14 read as an inverse Gaussian: xi^(-3/2) exp(-(1 + lam |zeta|
    xi)^2 / (2 xi)) is IG(mean 1/(lam |zeta|), shape 1) up to a constant in xi."""
    return 1.0 / (lam * abs(1.0 - y * s)), 1.0


# the typical wrong means, each with what is wrong in it (zeta = 1 - y s)
_XI_MEANS: tuple[tuple[Callable[[float, float, float], float], str], ...] = (
    (lambda y, s, lam: 1.0 / (lam * (1.0 - y * s)),
     ("your mean is negative where the score is past the margin (zeta = 1 - y s < 0): the "
      "absolute value is missing. Eq. 14 has |zeta_d|: the mean is 1/(lam |zeta|)")),
    (lambda y, s, lam: 1.0 / (lam * abs(1.0 + y * s)),
     "the margin has the wrong sign: zeta = 1 - y s (Zheng et al. eq. 9), not 1 + y s"),
    (lambda y, s, lam: 1.0 / (lam * abs(1.0 - s)),
     "the label is missing from the margin: zeta = 1 - y s, so for y = -1 it is 1 + s"),
    (lambda y, s, lam: 1.0 / (lam * (1.0 - y * s) ** 2),
     ("zeta is squared: the mean is 1/(lam |zeta|). Eq. 14's exponent (1 + lam |zeta| xi)^2 "
      "/ (2 xi) has lam^2 zeta^2 xi / 2, which is shape / (2 mean^2) times xi: mean^2, not "
      "mean, is 1/(lam^2 zeta^2)")),
    (lambda y, s, lam: 1.0 / (lam * lam * (1.0 - y * s) ** 2),
     ("you gave 1/(lam^2 zeta^2), the squared mean: match eq. 14's lam^2 zeta^2 xi / 2 with "
      "the IG's term shape xi / (2 mean^2) and take the square root")),
    (lambda y, s, lam: 1.0 / (lam * lam * abs(1.0 - y * s)),
     "lam is squared: the mean is 1/(lam |zeta|), lam to the first power"),
    (lambda y, s, lam: 1.0 / abs(1.0 - y * s),
     ("the regularisation constant lam (Zhu et al.'s c) is missing: the mean is "
      "1/(lam |zeta|)")),
    (lambda y, s, lam: lam / abs(1.0 - y * s),
     "lam is in the numerator: the mean is 1/(lam |zeta|), lam in the denominator"),
    (lambda y, s, lam: lam * abs(1.0 - y * s),
     ("you gave lam |zeta|, the reciprocal of the mean: that scales gamma = 1/xi (Zhu et "
      "al.'s lambda_d), not xi. xi's mean is 1/(lam |zeta|)")),
    (lambda y, s, lam: abs(1.0 - y * s),
     "you gave |zeta|: the mean is 1/(lam |zeta|)"),
)


# the typical wrong shapes, by name
_XI_SHAPES: tuple[tuple[Callable[[float, float, float], float], str], ...] = (
    (lambda y, s, lam: lam, "lam"), (lambda y, s, lam: lam * lam, "lam^2"),
    (lambda y, s, lam: (1.0 - y * s) ** 2, "zeta^2"),
    (lambda y, s, lam: (lam * (1.0 - y * s)) ** 2, "lam^2 zeta^2"))


def _xi_shape_hint(shapes: list[float]) -> str:
    for guess, name in _XI_SHAPES:
        if _close(shapes, [guess(*c) for c in XI_CASES]):
            return (f"your shape is {name}; it is 1 whatever y, s and lam. In eq. 14 the "
                    f"xi^(-3/2) and the 1/xi inside the exponent carry no lam: matching "
                    f"(1 + lam |zeta| xi)^2 / (2 xi) with shape (xi - mean)^2 / (2 mean^2 xi) "
                    f"gives shape / mean^2 = lam^2 zeta^2 and shape = 1")
    return ("the shape is 1 whatever y, s and lam: matching eq. 14's (1 + lam |zeta| xi)^2 / "
            "(2 xi) with the IG's shape (xi - mean)^2 / (2 mean^2 xi) gives shape = 1")


def _xi_evidence(case: tuple[float, float, float], mean: float) -> str:
    y, s, lam = case
    m, se = _mc_mean(hinge_draws(y, s, lam))
    return (f" (at y = {y:+g}, s = {s:g}, lam = {lam:g} your mean is {mean:.4g}; the "
            f"library's draws there average {m:.4g} ± {se:.2g})")


@checked
def check_xi_conditional(xi_conditional: Any) -> Feedback:
    """``xi_conditional(y, s, lam)`` must return ``(mean, shape)`` of the inverse Gaussian
    xi | s of the hinge loss 2 lam max(0, 1 - y s): (1/(lam |1 - y s|), 1)."""
    got: list[tuple[float, float]] = []
    with _quiet():
        for y, s, lam in XI_CASES:
            out = call(xi_conditional, y, s, lam, what="xi_conditional")
            try:
                pair = [float(v) for v in np.asarray(out, dtype=np.float64).reshape(-1)]
            except (TypeError, ValueError):
                pair = []
            if len(pair) != 2:
                return wrong(f"xi_conditional must return two numbers, (mean, shape), got "
                             f"{out!r}")
            got.append((pair[0], pair[1]))
    means, shapes = [g[0] for g in got], [g[1] for g in got]
    truth = [_xi_truth(*c) for c in XI_CASES]
    mean_ok = _close(means, [t[0] for t in truth])
    shape_ok = _close(shapes, [t[1] for t in truth])
    if _close(means, [1.0] * len(XI_CASES)) and _close(shapes, [t[0] for t in truth]):
        return wrong("mean and shape are swapped: return (mean, shape), the mean "
                     "1/(lam |zeta|) first and the shape 1 second")
    if not mean_ok:
        also = "" if shape_ok else " (and the shape is 1)"
        bad = next(i for i, (m, t) in enumerate(zip(means, truth))
                   if not _close(m, t[0]))
        evidence = _xi_evidence(XI_CASES[bad], means[bad])
        for fn, hint in _XI_MEANS:
            if _close(means, [fn(*c) for c in XI_CASES]):
                return wrong(hint + also + evidence)
        if any(not m > 0 for m in means):
            return wrong("your mean is not positive at some (y, s, lam): an inverse Gaussian "
                         "lives on xi > 0 and its mean is 1/(lam |zeta|), zeta = 1 - y s"
                         + also + evidence)
        return wrong("your mean is not 1/(lam |zeta|) with zeta = 1 - y s: compare eq. 14's "
                     "exponent (1 + lam |zeta| xi)^2 / (2 xi) with the IG's shape (xi - "
                     "mean)^2 / (2 mean^2 xi)" + also + evidence)
    if not shape_ok:
        return wrong(_xi_shape_hint(shapes))
    # the exact answer is right: the library's draws must agree with it
    example = ""
    for (y, s, lam), (mean, _) in zip(XI_CASES, got):
        m, se = _mc_mean(hinge_draws(y, s, lam))
        if abs(m - mean) > MC_SE * se:
            return wrong(f"your (mean, shape) match eq. 14, but the library's draws at y = "
                         f"{y:+g}, s = {s:g}, lam = {lam:g} average {m:.4g} ± {se:.2g}, more "
                         f"than {MC_SE:g} standard errors from {mean:.4g}: report this")
        example = example or (f"at y = {y:+g}, s = {s:g}, lam = {lam:g}: yours {mean:.4f}, "
                          f"draws {m:.4f} ± {se:.4f}")
    return right(f"xi | s ~ IG(1/(lam |1 - y s|), 1) at {len(XI_CASES)} (y, s, lam), both "
                 f"labels, both sides of the margin (to 1e-9); {MC_DRAWS:,} of the library's "
                 f"draws (Hinge.augment) per case average within {MC_SE:g} standard errors "
                 f"of your mean ({example}).")


# ---------------------------------------------------------------------- (b) the PG mean

def pg_mean_series(z: float, terms: int = 100_000) -> float:
    """E[PG(1, z)] from the definition (Polson, Scott and Windle 2013, Definition 1): omega =
    (1 / (2 pi^2)) sum_k g_k / ((k - 1/2)^2 + z^2 / (4 pi^2)) with g_k ~ Exp(1), so its mean
    is that sum with every g_k replaced by 1. Summed to ``terms`` terms, the rest by its
    integral (the midpoint rule's error, f'/24 at the cut, is below 1e-16 here)."""
    a = abs(float(z)) / (2.0 * math.pi)
    k = np.arange(1, terms + 1, dtype=np.float64)
    head = float(np.sum(1.0 / ((k - 0.5) ** 2 + a * a)))
    tail = (math.pi / 2 - math.atan(terms / a)) / a if a > 0 else 1.0 / terms
    return (head + tail) / (2.0 * math.pi ** 2)


_PG_MEANS: tuple[tuple[Callable[[float], float], str], ...] = (
    (lambda z: math.tanh(z) / (2 * z),
     ("tanh(z), not tanh(z/2): the half comes from cosh(z/2) in PG's Laplace transform "
      "E[exp(-omega t)] = cosh(z/2) / cosh(sqrt(z^2/4 + t/2))")),
    (lambda z: math.tanh(z / 2) / z,
     "twice the mean: the denominator is 2z, E[omega] = tanh(z/2) / (2z)"),
    (lambda z: math.tanh(z / 2) / (4 * z),
     "half the mean: the denominator is 2z, E[omega] = tanh(z/2) / (2z)"),
    (lambda z: 0.25,
     ("1/4 is the mean at z = 0 only: the tilt exp(-z^2 omega / 2) shrinks omega, E[omega] = "
      "tanh(z/2) / (2z)")),
    (lambda z: 1 / (2 * z * math.tanh(z / 2)),
     "tanh belongs in the numerator: E[omega] = tanh(z/2) / (2z)"),
    (lambda z: (math.sinh(z) - z) / (4 * z ** 3 * math.cosh(z / 2) ** 2),
     "that is the variance of PG(1, z); the mean is tanh(z/2) / (2z)"),
    (lambda z: math.tanh(abs(z) / 2) / (2 * z),
     ("negative for z < 0: PG(1, z) depends on z through z^2 only, so its mean is even in z "
      "(tanh(z/2) / (2z) already is)")),
)


def _pg_evidence(z: float, value: float) -> str:
    m, se = _mc_mean(pg_draws(z))
    return (f" (at z = {z:g} you give {value:.4g}; the library's draws there average "
            f"{m:.4g} ± {se:.2g})")


@checked
def check_pg_mean(pg_mean: Any) -> Feedback:
    """``pg_mean(z)`` must return E[omega] for omega ~ PG(1, z): tanh(z/2) / (2z), 1/4 at 0."""
    with _quiet():
        got = [_number(call(pg_mean, z, what="pg_mean"), f"pg_mean({z:g})") for z in PG_CASES]
    truth = [pg_mean_series(z) for z in PG_CASES]
    if not _close(got, truth):
        bad = next(i for i, (g, t) in enumerate(zip(got, truth)) if not _close(g, t))
        evidence = _pg_evidence(PG_CASES[bad], got[bad])
        with _quiet():
            for fn, hint in _PG_MEANS:
                if _close(got, [fn(z) for z in PG_CASES]):
                    return wrong(hint + evidence)
        if any(not g > 0 for g in got):
            return wrong("the mean of a positive variable must be positive: E[omega] = "
                         "tanh(z/2) / (2z) > 0 for every z" + evidence)
        return wrong("not the mean of PG(1, z): sum the definition's series, E[omega] = "
                     "(1/(2 pi^2)) sum_k 1/((k - 1/2)^2 + z^2/(4 pi^2)), with sum_k 1/((k - "
                     "1/2)^2 + a^2) = pi tanh(pi a) / (2a)" + evidence)
    # z = 0 on its own: tanh(z/2) / (2z) is 0/0 there, the mean is its limit
    with _quiet():
        try:
            at_zero: Any = pg_mean(0.0)
        except ZeroDivisionError:
            return wrong("right for z != 0, but pg_mean(0) divides by zero: at z = 0 the mean "
                         "is the limit of tanh(z/2) / (2z), 1/4 (tanh(x) ≈ x near 0); return "
                         "0.25 there")
        except Exception as exc:   # any other bug at zero, shown as a hint
            return wrong(f"right for z != 0, but pg_mean(0) raised {type(exc).__name__}: "
                         f"{exc}; the mean at z = 0 is 1/4")
    if at_zero is None:
        return wrong("right for z != 0, but pg_mean(0) returned None: return 0.25 there")
    zero = _number(at_zero, "pg_mean(0)")
    if not math.isfinite(zero):
        return wrong(f"right for z != 0, but pg_mean(0) is {zero} (0/0): at z = 0 the mean is "
                     f"the limit of tanh(z/2) / (2z), 1/4 (tanh(x) ≈ x near 0); return 0.25 "
                     f"there")
    if not _close(zero, pg_mean_series(0.0)):
        return wrong(f"right for z != 0, but pg_mean(0) = {zero:.4g}: PG(1, 0) has mean 1/4, "
                     f"the limit of tanh(z/2) / (2z)" + _pg_evidence(0.0, zero))
    shown = ""
    for z, g in zip((0.0,) + PG_CASES, [zero] + got):
        m, se = _mc_mean(pg_draws(z))
        if abs(m - g) > MC_SE * se:
            return wrong(f"your mean matches the series, but the library's draws at z = {z:g} "
                         f"average {m:.4g} ± {se:.2g}, more than {MC_SE:g} standard errors "
                         f"from {g:.4g}: report this")
        if z == 2.0:
            shown = f"at z = 2: yours {g:.4f}, draws {m:.4f} ± {se:.4f}"
    return right(f"E[PG(1, z)] = tanh(z/2) / (2z), 1/4 at z = 0: equal to the definition's "
                 f"series (1e-9) at z = 0, {', '.join(f'{z:g}' for z in PG_CASES)}, and "
                 f"{MC_DRAWS:,} of the library's exact draws (Logistic(c=1), Devroye) per z "
                 f"average within {MC_SE:g} standard errors of it ({shown}).")


# ---------------------------------------------------------------------- (c) the label ratio

@dataclass(frozen=True)
class TokenParts:
    """One token of an augmented supervised session with one task, as its topic step sees
    it (``token_parts``).

    Attributes
    ----------
    doc, position : int
        The document and the token's position in it.
    word : str
    topic : int
        The token's current topic.
    topics : ndarray of int
        The topics of the document's tokens, this token's included (``topics[position]``).
    eta : ndarray
        The weights of the K topics (the task's eta_k).
    b, w : float
        The document's augmentation: its factor in the score s is exp(b s - w s^2 / 2).
    p_lda : ndarray
        The token's conditional without the label factor (LDA's, docs/math.md sec. 2).
    p_exact : ndarray
        The token inspector's exact conditional, the label factor included.
    """

    doc: int
    position: int
    word: str
    topic: int
    topics: I64
    eta: F64
    b: float
    w: float
    p_lda: F64
    p_exact: F64

    def table(self) -> pd.DataFrame:
        """One row per topic: ``eta``, ``p_lda`` and ``p_exact``."""
        return pd.DataFrame({"topic": np.arange(len(self.eta)), "eta": self.eta,
                             "p_lda": self.p_lda, "p_exact": self.p_exact})


def token_parts(session: Any, doc: int, position: int) -> TokenParts:
    """The numbers of token ``position`` of document ``doc`` of ``session`` (a supervised
    model with one task, the augmented label factor, no covariates or intercept, past any LDA
    initialisation): its conditional with the label factor from the token inspector, and
    without it from the counts with the token removed."""
    model = session.model
    if not getattr(model, "supervised", False):
        raise ValueError(f"token_parts needs a supervised model, got {type(model).__name__}")
    if model.supervised_factor != "augmented":
        raise ValueError("token_parts needs supervised_factor='augmented': the label factor "
                         "exp(b s - w s^2 / 2) of the drawn augmentation")
    st, problem = session.state, session.problem
    sup = st.supervision
    if sup.y.shape[0] != 1 or sup.weights.eta.shape[1] != model.K:
        raise ValueError("token_parts needs one task (binary labels) and no covariates or "
                         "intercept: the score is then eta . zbar_d")
    if model.initialising(st):
        raise ValueError("the session is in its LDA initialisation: run it further first")
    insp = TokenInspector(session, doc)
    if not 0 <= position < insp.n_tokens:
        raise ValueError(f"position must be in [0, {insp.n_tokens - 1}] for document {doc}, "
                         f"got {position}")
    i = insp.p0 + position
    with session.locked():   # one state for both conditionals (the lock is re-entrant)
        p_exact, _ = insp.distributions(i)
        topics = st.z[insp.p0:insp.p1].astype(np.int64)
        k = int(topics[position])
        n_kd = np.bincount(topics, minlength=model.K).astype(np.float64)
        n_kw = st.counts.n_wk[problem.tokens.words[i]].astype(np.float64)
        n_k = st.counts.n_k.astype(np.float64)
        for n in (n_kd, n_kw, n_k):   # the token removed: the -di counts
            n[k] -= 1
        p_lda = exact_conditional(n_kd, n_kw, n_k, problem.alpha, problem.beta,
                                  problem.n_words)
        eta = sup.weights.eta_kt[:, 0].copy()
        b, w = float(sup.loss.b[0, doc]), float(sup.loss.w[0, doc])
    word = str(session.corpus.vocabulary[int(problem.tokens.words[i])])
    return TokenParts(int(doc), int(position), word, k, topics, eta, b, w, p_lda, p_exact)


def _log_factor(t: TokenParts, mistake: str = "") -> F64:
    """log of the label factor at each topic k (up to a constant), as written or with one
    typical ``mistake``."""
    N = len(t.topics)
    n_minus = np.bincount(t.topics, minlength=len(t.eta)).astype(np.float64)
    if mistake != "decrement":
        n_minus[t.topic] -= 1
    m = float(t.eta @ n_minus)
    scale = {"no_N": 1.0, "N_minus_1": 1.0 / (N - 1) if N > 1 else 1.0}.get(mistake, 1.0 / N)
    s = (t.eta if mistake == "no_m" else m + t.eta) * scale
    b, w = (t.w, t.b) if mistake == "swapped" else (t.b, t.w)
    quad = {"sign": -0.5, "half": 1.0, "no_quadratic": 0.0}.get(mistake, 0.5)
    lin = 0.0 if mistake == "no_linear" else 1.0
    out: F64 = lin * b * s - quad * w * s * s
    return out


def _ratio(t: TokenParts, mistake: str = "") -> F64:
    """p(k) / p_LDA(k) with the label factor f: f(k) / sum_j p_LDA(j) f(j), in log space."""
    g = _log_factor(t, mistake)
    g = g - g.max()
    out: F64 = np.exp(g) / float(t.p_lda @ np.exp(g))
    return out


_RATIO_MISTAKES = {
    "decrement": "the token is still in the counts: m = sum_j eta_j n_jd must use n_jd^-di, "
                 "the document's counts without the token being resampled (subtract one at "
                 "topics[position]); the token then adds eta_k at topic k",
    "no_N": "the score is eta . zbar_d, with zbar_d = counts / N_d: divide m + eta_k by N_d "
            "= len(topics)",
    "N_minus_1": "N_d is the document's length with the token, len(topics): the token at "
                 "topic k is one of the N_d tokens of zbar_d",
    "no_m": "the score counts the other tokens too: s(k) = (m + eta_k) / N_d with m = "
            "sum_j eta_j n_jd^-di, not eta_k / N_d alone",
    "sign": "the quadratic term has the wrong sign: the factor is exp(b s - w s^2 / 2), "
            "a Gaussian in s (w > 0 pulls the score toward b / w)",
    "half": "the quadratic term lost its half: exp(b s - w s^2 / 2)",
    "no_quadratic": "the quadratic term -w s^2 / 2 is missing: with the augmentation drawn "
                    "the factor is exp(b s - w s^2 / 2), and w = omega > 0",
    "no_linear": "the linear term b s is missing: exp(b s - w s^2 / 2), b = c y / 2 carries "
                 "the label",
    "swapped": "b and w are swapped: the factor is exp(b s - w s^2 / 2), b = c y / 2 (the "
               "label), w = omega (the Polya-Gamma draw)",
}


def _proportional(a: F64, b: F64) -> bool:
    """a = const * b, const > 0: compared scaled to their largest entries, so entries that
    underflow to 0 in one (a factor exp(g - max g) of a wrong, huge score) still compare."""
    if a.shape != b.shape or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return False
    if not (a.max() > 0 and b.max() > 0 and a.min() >= 0 and b.min() >= 0):
        return False
    return bool(np.allclose(a / a.max(), b / b.max(), rtol=RTOL, atol=1e-12))


def _ratio_tokens(session: Any, doc: int) -> list[TokenParts]:
    """The tokens a check uses: the first three of ``doc`` and the first two of the next
    document with the other label (so b takes both signs)."""
    lengths = session.corpus.doc_lengths
    out = [token_parts(session, doc, p) for p in range(min(3, int(lengths[doc])))]
    y = session.state.supervision.y[0]
    other = next((d for d in range(session.corpus.n_docs)
                  if y[d] != y[doc] and lengths[d] > 1), None)
    if other is not None:
        out += [token_parts(session, other, p) for p in range(2)]
    return out


@checked
def check_label_ratio(label_ratio: Any, session: Any, doc: int = 0) -> Feedback:
    """``label_ratio(p_lda, eta, b, w, topics, position)`` must return, for every topic k,
    p(k | rest) / p_LDA(k | rest): the label factor f(k) = exp(b s(k) - w s(k)^2 / 2),
    s(k) = (sum_j eta_j n_jd^-di + eta_k) / N_d, over sum_j p_LDA(j) f(j). Checked on five
    tokens of ``session`` (the first three of ``doc``, two of a document with the other
    label) against the token inspector's exact conditional."""
    try:
        tokens = _ratio_tokens(session, doc)
    except ValueError as exc:   # a session this check cannot read: said, not raised
        return wrong(f"check_label_ratio needs the lesson's kind of session: {exc}")
    for t in tokens:
        with _quiet():
            out = call(label_ratio, t.p_lda.copy(), t.eta.copy(), t.b, t.w, t.topics.copy(),
                       t.position, what="label_ratio")
            try:
                got = np.asarray(out, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                return wrong(f"label_ratio must return K = {len(t.eta)} numbers, one per "
                             f"topic, got {type(out).__name__}")
        K = len(t.eta)
        if got.shape != (K,):
            return wrong(f"label_ratio must return K = {K} numbers, one per topic, got "
                         f"{got.size}")
        truth = _ratio(t)
        where = (f" (token {t.position} {t.word!r} of document {t.doc}, label "
                 f"{'+1' if t.b > 0 else '-1'}, b = {t.b:.3g}, w = {t.w:.3g})")
        if not np.all(np.isfinite(got)):
            top = float(np.abs(t.eta).max())
            return wrong(f"your ratio has a non-finite value (nan or inf): the score s(k) = "
                         f"(m + eta_k) / N_d is an average of the eta's, so |s(k)| <= "
                         f"max |eta| = {top:.3g} and exp(b s - w s^2 / 2) stays finite (is "
                         f"your score divided by N_d?); no division by p_lda is needed"
                         + where)
        # right: the student's ratio times p_lda is the inspector's exact conditional (an
        # error below 1e-15 in a probability is rounding), and equals the ratio itself where
        # p_lda is too small for that comparison to see it
        if _close(got, truth) and np.allclose(t.p_lda * got, t.p_exact, rtol=RTOL, atol=1e-15):
            continue
        if _close(got, truth * t.p_lda):
            return wrong("you returned the conditional with the label factor, p(k | rest); "
                         "the exercise asks for its ratio to p_lda, f(k) / sum_j p_lda(j) "
                         "f(j)" + where)
        if _proportional(got, truth):
            if abs(float(got.sum()) - 1.0) < 1e-9:
                return wrong("your ratios are normalised to sum to one; the conditional "
                             "with the label factor, p_lda * ratio, must sum to one: divide "
                             "f(k) by sum_j p_lda(j) f(j), not by sum_j f(j)" + where)
            return wrong("right up to a constant, but not normalised: the conditional with "
                         "the label factor, p_lda * ratio, must sum to one, so divide f(k) "
                         "by sum_j p_lda(j) f(j)" + where)
        if _close(got - np.log(truth), np.full(K, float((got - np.log(truth)).mean()))):
            return wrong("you returned the log of the factor (g_d(k) up to a constant): "
                         "exponentiate it, then normalise" + where)
        for mistake, hint in _RATIO_MISTAKES.items():
            if _proportional(got, _ratio(t, mistake)):
                return wrong(hint + where)
        return wrong("not the ratio the inspector gives: f(k) = exp(b s(k) - w s(k)^2 / 2) "
                     "with s(k) = (m + eta_k) / N_d, m = sum_j eta_j n_jd^-di, then f(k) / "
                     "sum_j p_lda(j) f(j)" + where)
    # the example shown: the token and topic whose probability the label moves most
    t = max(tokens, key=lambda u: float(np.abs(u.p_exact - u.p_lda).max()))
    big = int(np.argmax(np.abs(t.p_exact - t.p_lda)))
    return right(f"the label factor's ratio p(k | rest) / p_LDA(k | rest) on {len(tokens)} "
                 f"tokens of two documents (labels +1 and -1) equals the token inspector's "
                 f"exact conditional over LDA's (1e-9). E.g. token {t.position} {t.word!r} of "
                 f"document {t.doc}: topic {big} has p_LDA = {t.p_lda[big]:.3f}, with the "
                 f"label {t.p_exact[big]:.3f} (ratio {_ratio(t)[big]:.3g}).")


# ---------------------------------------------------------------------- charts

def xi_chart(y: float, s: float, lam: float, xi_conditional: Any = None, n: int = 5_000,
             width: int = 480, height: int = 180) -> alt.Chart | alt.LayerChart | alt.FacetChart:
    """A histogram (as a density) of ``n`` of the library's draws of xi | s, and the inverse
    Gaussian density of ``xi_conditional(y, s, lam)``'s (mean, shape) over it when that
    function gives two positive finite numbers (scipy's invgauss(mean / shape, scale=shape)
    is IG(mean, shape)). The x axis stops at the draws' 97th percentile (xi has a long right
    tail)."""
    xi = hinge_draws(y, s, lam, n=n)
    top = float(np.quantile(xi, 0.97))
    edges = np.linspace(0.0, top, 41)
    counts, _ = np.histogram(xi, bins=edges)
    dens = counts / (n * np.diff(edges))
    bars = pd.DataFrame({"from": edges[:-1], "to": edges[1:], "density": dens})
    zeta = 1.0 - y * s
    title = f"ξ | s: y = {y:+g}, s = {s:g}, λ = {lam:g} (ζ = {zeta:.2g})"
    base = alt.Chart(bars).mark_rect(color="#9ca3af", opacity=0.8).encode(
        x=alt.X("from:Q", title="ξ", scale=alt.Scale(domain=[0, top])), x2="to:Q",
        y=alt.Y("density:Q", title="density"), y2=alt.datum(0),
        tooltip=[alt.Tooltip("from:Q", format=".3g"), alt.Tooltip("density:Q", format=".3g")])
    params, tried = None, False
    if xi_conditional is not None:
        with _quiet():
            try:
                out = xi_conditional(y, s, lam)
                tried = out is not None
                mean, shape = float(out[0]), float(out[1])
                if math.isfinite(mean) and math.isfinite(shape) and mean > 0 and shape > 0:
                    params = (mean, shape)
            except Exception:   # an unfinished or wrong function: draw the library's only
                params = None
    if params is None:
        note = (" (on the margin: infinite mean)" if zeta == 0
                else " (write xi_conditional to draw its density)" if not tried
                else " (your xi_conditional gives no IG here)")
        return base.properties(title=title + note, width=width, height=height)
    grid = np.linspace(top / 400, top, 200)
    pdf = stats.invgauss(params[0] / params[1], scale=params[1]).pdf(grid)
    curve = pd.DataFrame({"xi": grid, "density": np.where(np.isfinite(pdf), pdf, 0.0)})
    line = alt.Chart(curve).mark_line(color="#b91c1c", strokeWidth=2).encode(
        x="xi:Q", y="density:Q")
    return alt.layer(base, line).properties(
        title=f"{title}; red: IG({params[0]:.3g}, {params[1]:.3g})", width=width,
        height=height)


def pg_mean_chart(pg_mean: Any = None, n: int = 4_000, width: int = 480,
                  height: int = 200) -> alt.LayerChart | alt.FacetChart:
    """The mean of ``n`` of the library's PG(1, z) draws at z = 0, 1, ..., 12 with 2
    standard errors, and the curve ``pg_mean(z)`` over them when that function gives finite
    numbers."""
    rows = []
    for j, z in enumerate(np.arange(0.0, 12.5, 1.0)):
        m, se = _mc_mean(pg_draws(float(z), n=n, seed=SEED + 1 + j))
        rows.append({"z": z, "mean": m, "low": m - 2 * se, "high": m + 2 * se})
    mc = pd.DataFrame(rows)
    points = alt.Chart(mc).mark_point(color="#374151", filled=True).encode(
        x=alt.X("z:Q", title="z"), y=alt.Y("mean:Q", title="E[ω], ω ~ PG(1, z)"),
        tooltip=[alt.Tooltip("z:Q"), alt.Tooltip("mean:Q", format=".4f")])
    bars = alt.Chart(mc).mark_rule(color="#374151").encode(x="z:Q", y="low:Q", y2="high:Q")
    title = f"the library's draws ({n:,} per z, ± 2 SE)"
    layers: list[alt.Chart] = [bars, points]
    if pg_mean is not None:
        grid = np.linspace(0.0, 12.0, 121)
        with _quiet():
            try:
                vals = np.array([float(pg_mean(float(z))) for z in grid])
            except Exception:   # unfinished: the draws only
                vals = np.full(grid.size, np.nan)
        ok = np.isfinite(vals)
        if ok.any():
            curve = pd.DataFrame({"z": grid[ok], "mean": vals[ok]})
            layers.append(alt.Chart(curve).mark_line(color="#b91c1c").encode(
                x="z:Q", y="mean:Q"))
            title += "; red: your pg_mean"
    return alt.layer(*layers).properties(title=title, width=width, height=height)
