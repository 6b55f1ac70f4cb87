"""Lesson 6, priors on the weights (``notebooks/course/06_priors_on_weights.ipynb``): DOLDA's
horseshoe against the normal prior, and the partially collapsed sampler. Its checks:

* ``check_lambda2_conditional``: the conditional of a squared local scale of the horseshoe,
  lambda^2 | eta, tau, nu ~ IG(1, 1/nu + eta^2 / (2 tau^2)) (Makalic and Schmidt 2016, the
  draw of ``kernels/horseshoe.py``), checked against the library's own joint density
  (``priors.Horseshoe.log_density``) read as a function of lambda^2, exactly;
* ``check_certain_share``: the share of topic weights whose 90% interval excludes 0, under the
  horseshoe and under the normal prior, against the two fitted sessions' ``coefficients()``
  and against a frame whose intervals are known;
* ``check_conditional_given_phi``: a token's conditional given Phi, (n_dk^-i + alpha) phi_kw,
  against p(z_i | z_-i, Phi, W) read off the exact joint of a tiny corpus, every assignment
  enumerated (``testing.exact.lda_log_given_phi_states``);
* ``check_shared_counts``: what a token's conditional reads that other documents change during
  a sweep, in collapsed Gibbs and in the partially collapsed sampler, with the answer shown by
  enumeration on the same tiny corpus.

Each wrong answer is compared with the typical mistakes (a square or a 1/2 forgotten, the
auxiliary variable dropped, the token left in its counts, the collapsed word term used in
place of Phi, ...) and the hint names the one it matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..arrays import F64
from ..priors.horseshoe import Horseshoe, HorseshoeState
from ..priors.normal import Normal
from ..session import Session
from ..testing.exact import (enumerate_assignments, lda_log_given_phi_states,
                             lda_log_joint_states, normalize_log, state_index, tiny_corpus)
from ._feedback import Feedback, StudentError, call, checked, right, wrong

# Exact answers (closed forms, enumeration) are compared to this tolerance, relative and
# absolute: the student's arithmetic and the reference differ by rounding only, about 1e-15.
EXACT = 1e-9


def _close(a: Any, b: Any) -> bool:
    return bool(np.allclose(a, b, rtol=EXACT, atol=EXACT))


def _fmt(x: Any) -> str:
    """Numbers as a student reads them: a few significant digits, lists in brackets."""
    a = np.atleast_1d(np.asarray(x, dtype=np.float64))
    text = ", ".join(f"{v:.4g}" for v in a)
    return text if a.size == 1 else f"[{text}]"


# ----------------------------------------------------------------------------- exercise (a)
# (eta, tau, nu) of one task's weights. tau != 1 and nu != 1, and eta of both signs, so that
# each typical mistake (tau not squared, the 1/2 missing, the auxiliary dropped or used as nu
# instead of 1/nu, eta not squared) changes the scale of every case.
LAMBDA_CASES: tuple[tuple[F64, float, F64], ...] = (
    (np.array([0.8, -1.5, 0.05]), 0.5, np.array([2.0, 0.3, 1.7])),
    (np.array([2.5, -0.2]), 1.8, np.array([0.6, 4.0])),
    (np.array([-0.7]), 0.2, np.array([1.3])),
)
# the values of lambda^2 at which the library's joint is read (any three distinct positive
# values fix the shape, the scale and the constant of an inverse-gamma log density)
LAMBDA_GRID = np.array([0.3, 1.0, 2.5])


def library_lambda2_conditional(eta: F64, tau: float, nu: F64) -> tuple[F64, F64]:
    """The shape and scale of lambda_p^2 | eta, tau, nu as the library's joint has them: the
    log of ``Horseshoe.log_density`` as a function of lambda_p^2 (the other scales fixed) is
    c - (a + 1) log x - b / x, an IG(a, b) density up to a constant; read (a, b) off its
    values at three points. ``eta``, ``nu``: (P,) of one task; ``tau``: the global scale."""
    eta = np.asarray(eta, dtype=np.float64)
    P = eta.size
    prior = Horseshoe()
    basis = np.column_stack([np.ones(3), -np.log(LAMBDA_GRID), -1.0 / LAMBDA_GRID])
    shape, scale = np.empty(P), np.empty(P)
    for p in range(P):
        values = []
        for x in LAMBDA_GRID:
            lam2 = np.ones((1, P))
            lam2[0, p] = x
            state = HorseshoeState(lam2, np.asarray(nu, np.float64)[None].copy(),
                                   np.array([tau * tau]), np.ones(1))
            values.append(prior.log_density(eta[None], state))
        _, a_plus_1, b = np.linalg.solve(basis, np.array(values))
        shape[p], scale[p] = a_plus_1 - 1.0, b
    return shape, scale


# scale mistakes: (what the student wrote, as a function of eta, tau, nu; the hint)
_SCALE_MISTAKES: tuple[tuple[Callable[[F64, float, F64], F64], str], ...] = (
    (lambda e, t, n: 1 / n + e**2 / (2 * t),
     "tau is not squared: the weight's variance is tau^2 lambda^2, so its normal density "
     "gives eta^2 / (2 tau^2) in the scale, and tau here is the scale itself, not tau^2"),
    (lambda e, t, n: 1 / n + e**2 / t**2,
     "the 1/2 is missing: the normal density of eta is exp(-eta^2 / (2 tau^2 lambda^2)), "
     "so the term is eta^2 / (2 tau^2)"),
    (lambda e, t, n: 1 / n + e**2 / t,
     "tau is not squared and the 1/2 is missing: the normal density of eta is "
     "exp(-eta^2 / (2 tau^2 lambda^2)) (tau is the scale, not tau^2)"),
    (lambda e, t, n: e**2 / (2 * t**2),
     "the auxiliary variable is forgotten: lambda^2's own prior given nu, IG(1/2, 1/nu), "
     "contributes exp(-(1/nu) / lambda^2), so 1/nu belongs in the scale too (without nu, "
     "lambda would not be half-Cauchy)"),
    (lambda e, t, n: 1 + e**2 / (2 * t**2),
     "the auxiliary variable is forgotten: the prior's part of the scale is 1/nu (lambda^2 "
     "given nu is IG(1/2, 1/nu)), not 1; 1 is the scale of nu's own prior IG(1/2, 1)"),
    (lambda e, t, n: n + e**2 / (2 * t**2),
     "nu is where 1/nu belongs: lambda^2 given nu is IG(1/2, 1/nu), density proportional "
     "to exp(-(1/nu) / lambda^2)"),
    (lambda e, t, n: 1 / n + e / (2 * t**2),
     "eta is not squared: the normal density of eta is exp(-eta^2 / (2 tau^2 lambda^2))"),
    (lambda e, t, n: 1 / n + e**2 * t**2 / 2,
     "tau^2 is in the numerator: the weight's variance tau^2 lambda^2 divides eta^2, so the "
     "term is eta^2 / (2 tau^2)"),
    (lambda e, t, n: 1 / (1 / n + e**2 / (2 * t**2)),
     "you returned the rate 1/b: IG(a, b) here (and in scipy.stats.invgamma(a, scale=b)) "
     "takes the scale b, density proportional to x^(-a-1) exp(-b / x)"),
)


def _shape_hint(shape: F64, P: int) -> str:
    if _close(shape, 0.5):
        return ("the shape is 1/2, the prior's alone: the normal density of eta adds a factor "
                "(lambda^2)^(-1/2), so the shape grows by 1/2, to 1")
    if _close(shape, 2.0):
        return ("the shape is 2: the conditional is proportional to (lambda^2)^(-2) "
                "exp(-b / lambda^2), and an IG(a, b) density goes as x^(-a-1): a = 1")
    if _close(shape, 1.5):
        return ("the shape is 3/2: the normal density of eta, (lambda^2)^(-1/2) "
                "exp(...), adds 1/2 to the prior's shape 1/2, not 1")
    if P > 1 and _close(shape, (P + 1) / 2):
        return ("the shape is (P + 1)/2, the shape of tau^2's conditional, which pools the P "
                "weights of a task: a local scale lambda_p sees one weight, eta_p")
    return (f"the shape is {_fmt(shape)}: multiply the normal density of eta_p given "
            f"lambda_p^2 by lambda_p^2's prior IG(1/2, 1/nu_p) and read the power of lambda^2")


def _as_weights(x: Any, P: int, what: str) -> F64:
    try:
        a = np.broadcast_to(np.asarray(x, dtype=np.float64), (P,)).copy()
    except (TypeError, ValueError):
        raise StudentError(wrong(
            f"the {what} must be a number or an array with one entry per weight (here {P}), "
            f"got {type(x).__name__} of shape {np.shape(x)}")) from None
    if not np.isfinite(a).all():
        raise StudentError(wrong(f"your {what} has non-finite values ({_fmt(a)}): tau and nu "
                                 f"are positive here, so nothing should divide by zero"))
    return a


@checked
def check_lambda2_conditional(fn: Any) -> Feedback:
    """``fn(eta, tau, nu)`` returns ``(shape, scale)`` of the horseshoe's squared local scales
    lambda_p^2 given the weights ``eta`` (P,) of one task, its global scale ``tau`` (a number,
    not squared) and the auxiliaries ``nu`` (P,): inverse-gamma IG(shape, scale), density
    proportional to x^(-shape-1) exp(-scale / x). Checked on three cases against the
    library's joint density (``Horseshoe.log_density``) as a function of lambda^2."""
    answers = []
    for eta, tau, nu in LAMBDA_CASES:
        out = call(fn, eta.copy(), tau, nu.copy(), what="lambda2_conditional")
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            return wrong(f"lambda2_conditional must return two things, the shape and the scale "
                         f"(return shape, scale), got {type(out).__name__}")
        answers.append((_as_weights(out[0], eta.size, "shape"),
                        _as_weights(out[1], eta.size, "scale")))
    truth = [library_lambda2_conditional(eta, tau, nu) for eta, tau, nu in LAMBDA_CASES]
    where = [f"for eta = {_fmt(eta)}, tau = {tau:g}, nu = {_fmt(nu)}"
             for eta, tau, nu in LAMBDA_CASES]
    hints = []
    bad_shape = [i for i, ((a, _), (ta, _)) in enumerate(zip(answers, truth)) if not _close(a, ta)]
    if bad_shape:
        i = bad_shape[0]
        hints.append(f"{where[i]}: {_shape_hint(answers[i][0], LAMBDA_CASES[i][0].size)}.")
    bad_scale = [i for i, ((_, b), (_, tb)) in enumerate(zip(answers, truth)) if not _close(b, tb)]
    if bad_scale:
        # a mistake is named only when it gives the student's scale in every case
        hint = next((h for f, h in _SCALE_MISTAKES
                     if all(_close(b, f(*case)) for (_, b), case in zip(answers, LAMBDA_CASES))),
                    None)
        i = bad_scale[0]
        hints.append(hint + "." if hint else (
            f"{where[i]} the scale is {_fmt(truth[i][1])}, yours {_fmt(answers[i][1])}: "
            f"multiply the normal density of eta_p (variance tau^2 lambda_p^2) by lambda_p^2's "
            f"prior IG(1/2, 1/nu_p) and collect what multiplies 1/lambda_p^2 in the exponent."))
    if hints:
        return wrong(" Also, ".join(hints))
    n_weights = sum(eta.size for eta, _, _ in LAMBDA_CASES)
    return right(f"lambda^2 | eta, tau, nu ~ IG(1, 1/nu + eta^2 / (2 tau^2)): on "
                 f"{len(LAMBDA_CASES)} cases ({n_weights} weights) your inverse-gamma density "
                 f"is the library's joint density (Horseshoe.log_density) as a function of "
                 f"lambda^2, to {EXACT:g}: the draw kernels/horseshoe.py makes every sweep")


# ----------------------------------------------------------------------------- exercise (b)
def certain_mask(coefficients: pd.DataFrame) -> pd.Series:
    """True for each topic weight whose interval [lower, upper] excludes 0."""
    topic = coefficients[coefficients["kind"] == "topic"]
    return (topic["lower"] > 0) | (topic["upper"] < 0)


def certain_share(coefficients: pd.DataFrame) -> float:
    """The share of the topic weights (``kind == "topic"``) of ``Session.coefficients()``
    whose interval excludes 0 (the reference answer of the lesson's exercise)."""
    return float(certain_mask(coefficients).mean())


# The probe's topic rows (lower, mean, upper): two intervals wholly above 0, one wholly below,
# two holding 0 with the mean near it and two holding 0 with the mean far from it: the share is
# 3/7, and each typical mistake gives another number (the intercept counted 4/8, one side only
# 2/7 or 1/7, the complement 4/7, a mean different from 0 7/7, a count 3, a percentage 42.9).
PROBE = np.array([[0.3, 0.75, 1.2], [-2.0, -1.2, -0.4], [-0.5, 0.2, 0.9], [-0.1, 1.5, 3.1],
                  [0.1, 2.0, 3.9], [-0.8, -0.1, 0.6], [-3.0, -1.4, 0.2]])


def probe_frame(coefficients: pd.DataFrame) -> pd.DataFrame:
    """A frame with the columns of ``coefficients`` whose answer is known: the topic rows of
    ``PROBE`` (their task and feature names taken from ``coefficients``' topic rows) and an
    intercept row whose interval excludes 0."""
    topic = coefficients[coefficients["kind"] == "topic"]
    rows = topic.iloc[np.arange(len(PROBE)) % len(topic)].reset_index(drop=True).copy()
    rows[["lower", "mean", "upper"]] = PROBE
    rows["width"] = rows["upper"] - rows["lower"]
    intercept = rows.iloc[[0]].copy()
    intercept[["feature", "kind"]] = ["intercept", "intercept"]
    intercept[["lower", "mean", "upper", "width"]] = [1.0, 2.0, 3.0, 2.0]
    return pd.concat([rows, intercept], ignore_index=True)


# share mistakes: (what the student computed from a frame; the hint)
_SHARE_MISTAKES: tuple[tuple[Callable[[pd.DataFrame], float], str], ...] = (
    (lambda c: float(((c["lower"] > 0) | (c["upper"] < 0)).mean()),
     "you counted every row: count the topic weights only (kind == \"topic\"); an intercept "
     "has its own prior, which neither the horseshoe nor the normal prior is"),
    (lambda c: float((c.loc[c["kind"] == "topic", "lower"] > 0).mean()),
     "only intervals above 0 are counted: an interval wholly below 0 (upper < 0) excludes 0 "
     "too, a weight certain to be negative"),
    (lambda c: float((c.loc[c["kind"] == "topic", "upper"] < 0).mean()),
     "only intervals below 0 are counted: an interval wholly above 0 (lower > 0) excludes 0 "
     "too"),
    (lambda c: 1.0 - certain_share(c),
     "that is the share of intervals that hold 0: the exercise asks for those that exclude it"),
    (lambda c: float(certain_mask(c).sum()),
     "you returned a count: divide by the number of topic weights for a share"),
    (lambda c: 100.0 * certain_share(c),
     "you returned a percentage: return the share, between 0 and 1"),
    (lambda c: float((c.loc[c["kind"] == "topic", "mean"].abs() > 0).mean()),
     "a mean different from 0 is not enough: the whole interval [lower, upper] must lie on "
     "one side of 0"),
)


def _student_share(fn: Any, coefficients: pd.DataFrame, what: str) -> float:
    out = call(fn, coefficients.copy(), what="certain_share")
    if isinstance(out, (bool, np.bool_)):
        raise StudentError(wrong(f"certain_share returned {out} for {what}: return the share, "
                                 f"a number between 0 and 1"))
    if np.ndim(out) != 0:
        raise StudentError(wrong(
            f"certain_share must return one number, the share over all tasks' topic weights, "
            f"got {type(out).__name__} of shape {np.shape(out)} for {what}: take the mean over "
            f"the whole column, not per task"))
    try:
        return float(out)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"certain_share must return a number, got "
                                 f"{type(out).__name__} for {what}")) from None


def _share_hint(answers: dict[str, tuple[pd.DataFrame, float]]) -> str:
    """The hint for shares ``answers`` (what: (frame, the student's share)), not all right: the
    mistake that gives the student's share on every frame, else the first wrong frame."""
    hint = next((h for f, h in _SHARE_MISTAKES
                 if all(np.isclose(got, f(frame), rtol=EXACT, atol=EXACT)
                        for frame, got in answers.values())), None)
    if hint:
        return hint
    what, (frame, got) = next((w, a) for w, a in answers.items()
                              if not np.isclose(a[1], certain_share(a[0]), rtol=EXACT, atol=EXACT))
    return (f"on {what} your function gives {got:.4g} where the share is "
            f"{certain_share(frame):.4g}: an interval [lower, upper] excludes 0 when lower > 0 "
            f"or upper < 0; count those among the topic weights and divide by their number")


def _check_session(session: Any, name: str, prior: type) -> None:
    if not isinstance(session, Session):
        raise StudentError(wrong(f"{name} must be a fitted topicsup Session, got "
                                 f"{type(session).__name__}"))
    if not session.model.supervised:
        raise StudentError(wrong(f"{name} is a session of an unsupervised model "
                                 f"({type(session.model).__name__}): it has no weights"))
    if not isinstance(session.model.weight_prior, prior):
        other = "normal" if prior is Horseshoe else "horseshoe"
        raise StudentError(wrong(
            f"{name} has the prior {session.model.weight_prior!r}: pass the horseshoe session "
            f"first and the normal one second (was it the {other} session?)"))
    if session.n_sweeps == 0:
        raise StudentError(wrong(f"{name} has not run yet: run it (session.run(200)) first"))


@checked
def check_certain_share(fn: Any, horseshoe: Any, normal: Any) -> Feedback:
    """``fn(coefficients)`` returns the share of topic weights whose interval excludes 0, for
    ``coefficients`` a frame of ``Session.coefficients()``. Checked on a frame with known
    intervals, then on both sessions' ``coefficients(0.9)`` (``horseshoe``: a DOLDA fitted
    with the horseshoe; ``normal``: with the normal prior)."""
    _check_session(horseshoe, "the first session (horseshoe)", Horseshoe)
    _check_session(normal, "the second session (normal)", Normal)
    frames = {"horseshoe": horseshoe.coefficients(0.9), "normal": normal.coefficients(0.9)}
    probe = probe_frame(frames["horseshoe"])
    answers = {"a test frame with known intervals": (probe, _student_share(fn, probe,
                                                                           "a test frame"))}
    for name, frame in frames.items():
        answers[f"the {name} session's coefficients"] = (
            frame, _student_share(fn, frame, f"the {name} session"))
    if not all(np.isclose(got, certain_share(frame), rtol=EXACT, atol=EXACT)
               for frame, got in answers.values()):
        return wrong(_share_hint(answers))
    lines = []
    for name, frame in frames.items():
        mask = certain_mask(frame)
        lines.append(f"{name}: {int(mask.sum())} of {mask.size} topic weights "
                     f"({certain_share(frame):.2f})")
    shares = {name: certain_share(frame) for name, frame in frames.items()}
    verdict = ("The horseshoe keeps fewer weights away from 0" if shares["horseshoe"]
               < shares["normal"] else "Here the horseshoe keeps no fewer weights away from 0"
               " than the normal prior: look at the heatmaps for where they differ")
    return right(f"90% intervals that exclude 0: {'; '.join(lines)}. {verdict}. (Checked on "
                 f"both sessions' coefficients(0.9) and on a frame with known intervals.)")


# ----------------------------------------------------------------------------- exercise (c)
# The tiny corpus of the enumeration: 3 documents, 9 tokens, V = 4, K = 3 (3^9 = 19,683
# assignments). Phi is fixed (its columns, the topics, sum to 1) and unlike any count-based
# estimate, so the collapsed word term cannot pass for it.
PHI_DOCS = [[0, 1, 1, 2], [2, 3, 0], [1, 3]]
PHI_K = 3
# alpha as K values, as lesson 1 passes it, and not symmetric, so that a topic's own alpha_k
# is checked
PHI_ALPHA = np.array([0.5, 0.3, 0.8])
PHI_BETA = 0.1
PHI_WK = np.array([[0.50, 0.10, 0.25],
                   [0.30, 0.15, 0.05],
                   [0.15, 0.35, 0.30],
                   [0.05, 0.40, 0.40]])
PHI_STATES = 4   # assignments at which every token's conditional is checked
PHI_SEED = 6
V_PHI = PHI_WK.shape[0]
N_PHI = sum(len(d) for d in PHI_DOCS)   # tokens of the tiny corpus


@dataclass(frozen=True)
class TokenCase:
    """What a token's step could read: its document's counts ``n_dk`` (K,), its word's counts
    ``n_wk`` (K,) and the topic totals ``n_k`` (K,), all with the token still counted at its
    topic ``s``; ``phi_w`` (K,), Phi's row of its word; and the exact conditional
    ``exact`` (K,) given Phi, from the enumerated joint."""

    doc: int
    position: int
    word: int
    n_dk: F64
    n_wk: F64
    n_k: F64
    s: int
    phi_w: F64
    exact: F64


def _joint_given_phi() -> tuple[Any, np.ndarray, F64]:
    corpus = tiny_corpus(PHI_DOCS, n_words=V_PHI)
    Z = enumerate_assignments(corpus.n_tokens, PHI_K)
    p = normalize_log(lda_log_given_phi_states(corpus, PHI_K, PHI_ALPHA, PHI_WK, Z))
    return corpus, Z, p


def token_cases() -> list[TokenCase]:
    """Every token of ``PHI_STATES`` assignments drawn (seeded) from the exact p(Z | Phi, W),
    each with its exact conditional p(z_i = k | z_-i, Phi, W) = p(Z with z_i = k) / sum_j."""
    corpus, Z, p = _joint_given_phi()
    K = PHI_K
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    rows = np.random.default_rng(PHI_SEED).choice(len(p), size=PHI_STATES, replace=False, p=p)
    cases = []
    for r in rows:
        z = Z[r]
        for i in range(corpus.n_tokens):
            d, w = int(doc_of[i]), int(corpus.words[i])
            alt = np.repeat(z[None], K, axis=0)
            alt[:, i] = np.arange(K)
            pk = p[state_index(alt, K)]
            in_doc = doc_of == d
            cases.append(TokenCase(
                doc=d, position=int(i - np.flatnonzero(in_doc)[0]), word=w,
                n_dk=np.bincount(z[in_doc], minlength=K).astype(np.float64),
                n_wk=np.bincount(z[corpus.words == w], minlength=K).astype(np.float64),
                n_k=np.bincount(z, minlength=K).astype(np.float64),
                s=int(z[i]), phi_w=PHI_WK[w].copy(), exact=pk / pk.sum()))
    return cases


def _removed(c: TokenCase) -> tuple[F64, F64, F64]:
    one = np.eye(PHI_K)[c.s]
    return c.n_dk - one, c.n_wk - one, c.n_k - one


def _normalised(x: F64) -> F64:
    return x / x.sum()


# conditional mistakes: (what the student computed from a case; the hint)
_CONDITIONAL_MISTAKES: tuple[tuple[Callable[[TokenCase], F64], str], ...] = (
    (lambda c: (c.n_dk + PHI_ALPHA) * c.phi_w,
     "token i is still in n_dk: its own topic is what is being resampled, so take it out "
     "first (n_dk[s] - 1), then (n_dk + alpha) phi_w"),
    (lambda c: (_removed(c)[0] + PHI_ALPHA) * (_removed(c)[1] + PHI_BETA)
     / (_removed(c)[2] + V_PHI * PHI_BETA),
     "that is the collapsed conditional, with the word term (n_wk + beta) / (n_k + V beta) of "
     "lesson 1: given Phi the word term is phi_kw itself, the sweep's drawn topics; the "
     "corpus's counts n_wk and n_k do not enter"),
    (lambda c: (c.n_dk + PHI_ALPHA) * (c.n_wk + PHI_BETA) / (c.n_k + V_PHI * PHI_BETA),
     "that is the collapsed conditional (lesson 1's word term (n_wk + beta) / (n_k + V beta)), "
     "with token i not even removed: given Phi the word term is phi_kw, and token i must come "
     "out of n_dk first"),
    (lambda c: (_removed(c)[0] + PHI_ALPHA) * c.phi_w * (_removed(c)[1] + PHI_BETA)
     / (_removed(c)[2] + V_PHI * PHI_BETA),
     "you multiplied both word terms, phi_kw and the collapsed (n_wk + beta) / (n_k + V beta): "
     "given Phi the word's probability is phi_kw alone (Phi replaces the collapsed term)"),
    (lambda c: _removed(c)[0] * c.phi_w,
     "alpha is missing: Theta integrated out leaves (n_dk + alpha), so a topic the document "
     "does not use yet keeps probability proportional to alpha_k phi_kw"),
    (lambda c: _removed(c)[0] + PHI_ALPHA,
     "the word term is missing: multiply by phi_w, the probability of the token's word in "
     "each topic"),
)


@checked
def check_conditional_given_phi(fn: Any) -> Feedback:
    """``fn(n_dk, n_wk, n_k, s, phi_w, alpha, beta, V)`` returns the K probabilities
    p(z_i = k | z_-i, Phi, W) of token i (Theta integrated out, Phi fixed), normalised. The
    counts are its document's ``n_dk``, its word's ``n_wk`` and the totals ``n_k``, each with
    token i still counted at its topic ``s``; ``phi_w`` is Phi's row of its word (phi_kw
    for k = 0..K-1). Checked against the exact conditional read off the enumerated joint of
    a tiny corpus, for every token in a few states."""
    cases = token_cases()
    answers = []
    for c in cases:
        out = call(fn, c.n_dk.copy(), c.n_wk.copy(), c.n_k.copy(), c.s, c.phi_w.copy(),
                   PHI_ALPHA.copy(), PHI_BETA, V_PHI, what="conditional_given_phi")
        try:
            p = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            return wrong(f"conditional_given_phi must return K = {PHI_K} numbers (an array), "
                         f"got {type(out).__name__}")
        if p.shape != (PHI_K,):
            return wrong(f"conditional_given_phi must return K = {PHI_K} probabilities, one "
                         f"per topic, got shape {p.shape}")
        if not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
            return wrong(f"for {_where(c)} your probabilities are {_fmt(p)}: they must be "
                         f"finite, non-negative and not all zero")
        answers.append(p)
    bad = [i for i, (p, c) in enumerate(zip(answers, cases)) if not _close(p, c.exact)]
    if not bad:
        return right(f"p(z_i = k | z_-i, Phi, W) proportional to (n_dk^-i + alpha) phi_kw: "
                     f"your function gives the conditional read off the exact joint "
                     f"p(Z | Phi, W) (all {PHI_K ** N_PHI:,} assignments of a "
                     f"{len(PHI_DOCS)}-document corpus enumerated) for every token in "
                     f"{PHI_STATES} states, to {EXACT:g}. It reads the document's own counts "
                     f"and Phi, nothing another document changes during the sweep")
    c, p = cases[bad[0]], answers[bad[0]]
    sums = np.array([a.sum() for a in answers])
    unnormalised = not _close(sums, 1.0)
    shapes = [_normalised(a) for a in answers]
    if unnormalised and all(_close(q, k.exact) for q, k in zip(shapes, cases)):
        return wrong(f"for {_where(c)} your numbers {_fmt(p)} are proportional to the "
                     f"conditional but sum to {p.sum():.4g}: divide by their sum")
    # a mistake is named only when it gives the student's conditional for every token
    hint = next((h for f, h in _CONDITIONAL_MISTAKES
                 if all(_close(q, _normalised(f(k))) for q, k in zip(shapes, cases))), None)
    tail = " (Your numbers do not sum to 1 either: normalise them.)" if unnormalised else ""
    return wrong(f"for {_where(c)}: " + (hint or (
        f"the conditional is {_fmt(c.exact)}, yours {_fmt(_normalised(p))}. Given Phi it is "
        f"proportional to (n_dk + alpha) times the word's probability in topic k, with "
        f"token i taken out of the counts first")) + "." + tail)


def _where(c: TokenCase) -> str:
    return (f"token {c.position} of document {c.doc} (word {c.word}, topic s = {c.s}, "
            f"n_dk = {_fmt(c.n_dk)})")


# ----------------------------------------------------------------------------- exercise (d)
CHOICES = ("n_dk", "n_wk", "n_k", "phi")
_ALIASES = {"n_kd": "n_dk", "n_kw": "n_wk", "phi_wk": "phi", "phi_kw": "phi", "phi_w": "phi"}
SHARED = {"collapsed": frozenset({"n_wk", "n_k"}), "partially_collapsed": frozenset()}


def _as_names(answer: Any, sampler: str) -> frozenset[str]:
    if answer is Ellipsis:
        raise StudentError(wrong(f"{sampler} is still ...: replace it with a set of names from "
                                 f"{', '.join(CHOICES)}, e.g. {{\"n_dk\"}}, or set() for none"))
    if answer is None:
        raise StudentError(wrong(f"{sampler} is None: write set() for none"))
    if isinstance(answer, str):
        answer = [answer]
    if not isinstance(answer, (set, frozenset, list, tuple)):
        raise StudentError(wrong(f"{sampler} must be a set of names such as {{\"n_dk\"}}, got "
                                 f"{type(answer).__name__}"))
    names = set()
    for a in answer:
        if not isinstance(a, str):
            raise StudentError(wrong(f"{sampler} must hold names (strings) from "
                                     f"{', '.join(CHOICES)}, got {a!r}"))
        key = a.strip().lower().replace(" ", "")
        key = _ALIASES.get(key, key)
        if key not in CHOICES:
            raise StudentError(wrong(f"{a!r} in {sampler} is not one of the choices "
                                     f"{', '.join(CHOICES)}"))
        names.add(key)
    return frozenset(names)


def _shared_hints(sampler: str, names: frozenset[str]) -> list[str]:
    hints = []
    if "n_dk" in names:
        hints.append("n_dk is the document's own count: only its own tokens change it")
    if sampler == "collapsed":
        if "phi" in names:
            hints.append("collapsed Gibbs integrates Phi out: there is no Phi to read")
        missing = SHARED["collapsed"] - names
        if missing:
            hints.append(f"{' and '.join(sorted(missing))} missing: the collapsed word term "
                         f"(n_wk + beta) / (n_k + V beta) reads the word's counts and the topic "
                         f"totals, which every token of every document changes when it moves")
    else:
        if names & {"n_wk", "n_k"}:
            hints.append("given Phi the conditional is (n_dk + alpha) phi_kw: n_wk and n_k are "
                         "not in it (they are used between sweeps, to draw the next Phi)")
        if "phi" in names:
            hints.append("Phi is read by every document, but none changes it during the sweep: "
                         "it is drawn once, before the sweep, and fixed while the documents "
                         "are sampled")
    return hints


def dependence_on_other_documents() -> dict[str, float]:
    """How much the conditional of document 0's first token moves when the topics of the other
    documents change (document 0's other tokens fixed at topic 0): the largest total variation
    between its conditionals over all assignments of the other documents, collapsed (from
    ``lda_log_joint_states``, beta = ``PHI_BETA``) and given Phi (``lda_log_given_phi_states``),
    on the lesson's tiny corpus, every assignment enumerated."""
    corpus = tiny_corpus(PHI_DOCS, n_words=V_PHI)
    K, n0 = PHI_K, len(PHI_DOCS[0])
    others = enumerate_assignments(corpus.n_tokens - n0, K)
    # one row per (assignment of the other documents, topic of the first token)
    rows = np.zeros((len(others), K, corpus.n_tokens), np.int32)
    rows[:, :, 0] = np.arange(K)
    rows[:, :, n0:] = others[:, None, :]
    Z = rows.reshape(-1, corpus.n_tokens)
    out = {}
    for name, logp in (("collapsed", lda_log_joint_states(corpus, K, PHI_ALPHA, PHI_BETA, Z)),
                       ("given Phi", lda_log_given_phi_states(corpus, K, PHI_ALPHA, PHI_WK, Z))):
        logp = logp.reshape(len(others), K)
        c = np.exp(logp - logp.max(axis=1, keepdims=True))
        c /= c.sum(axis=1, keepdims=True)
        out[name] = float(0.5 * np.abs(c[:, None] - c[None]).sum(axis=2).max())
    return out


@checked
def check_shared_counts(collapsed: Any, partially_collapsed: Any) -> Feedback:
    """Which of ``"n_dk"``, ``"n_wk"``, ``"n_k"``, ``"phi"`` does a token's conditional read
    that tokens of OTHER documents change during the same sweep? A set of names for each
    sampler: ``collapsed`` (collapsed Gibbs, Theta and Phi integrated out) and
    ``partially_collapsed`` (Phi drawn before each sweep). The right answer is shown by
    enumeration on the tiny corpus of exercise (c)."""
    answers = {"collapsed": _as_names(collapsed, "collapsed"),
               "partially_collapsed": _as_names(partially_collapsed, "partially_collapsed")}
    hints = [f"{sampler}: {h}" for sampler, names in answers.items()
             for h in _shared_hints(sampler, names)]
    if hints:
        return wrong("; ".join(hints) + ".")
    moved = dependence_on_other_documents()
    return right(f"Collapsed Gibbs reads n_wk and n_k, which every token of the corpus changes, "
                 f"so its tokens must be drawn one after another; given Phi a token reads only "
                 f"its own document's counts and Phi, fixed during the sweep, so the documents "
                 f"are independent and can be sampled in parallel, exactly. On the tiny corpus "
                 f"(every assignment enumerated), changing the other documents' topics moves "
                 f"the first token's collapsed conditional by up to {moved['collapsed']:.3f} "
                 f"(total variation) and its conditional given Phi by "
                 f"{moved['given Phi']:.1g} (zero, to rounding)")


__all__ = ["CHOICES", "EXACT", "LAMBDA_CASES", "N_PHI", "PHI_ALPHA", "PHI_BETA", "PHI_DOCS",
           "PHI_K", "PHI_WK", "PROBE", "SHARED", "TokenCase", "V_PHI", "certain_mask",
           "certain_share", "check_certain_share", "check_conditional_given_phi",
           "check_lambda2_conditional", "check_shared_counts", "dependence_on_other_documents",
           "library_lambda2_conditional", "probe_frame", "token_cases"]
