"""Lesson 4 (``notebooks/course/04_convergence.ipynb``): several chains, R-hat, effective
sample size, label switching and when to stop.

The checks:

* ``check_split_rhat(split_rhat)``: the classic split R-hat of (chain, draw) draws (Gelman et
  al., BDA3 sec. 11.4, with each chain split in two halves as in Vehtari et al. 2021), against
  ArviZ's ``arviz.rhat(draws, method="split")`` (the same formula here when ArviZ is not
  installed) on six sets of draws, one of them the log joints of real chains; then the
  student's function, fed rank-normalised and folded draws, against the rank-normalised R-hat
  that ``Chains.diagnostics`` reports. Exact: to 1e-9.
* ``check_ess(ess)``: one chain's effective sample size by Geyer's initial positive sequence
  from ``autocorrelation``, exactly (1e-9) against the reference on four AR(1) series and an
  AR(2) one; a right answer is then set against the ESS of an AR(1), n (1 - rho) / (1 + rho),
  and ArviZ's bulk ESS, over 200 seeded series each.
* ``check_alignment(align)``: the matching of one chain's topics to another's, against the
  library's ``Chains.topic_alignment`` on real chains and against the same criterion (least
  summed Hellinger distance) on a pair of overlapping topic sets where the greedy matching
  is wrong.
* ``check_converged_at(converged_at, convergence)``: the first sweep from which every R-hat
  of a ``Chains.convergence()`` table stays below 1.01, on the student's table and on three
  built to tell the usual mistakes apart.

Each wrong answer is compared with the answers the usual mistakes give (a forgotten split,
the wrong axis, numpy's ddof=0, the truncation of the autocorrelation sum, the inverse
permutation, a greedy matching, the first dip below 1.01, ...) and the hint names the one it
equals. Everything is seeded: a check gives the same verdict on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import signal, stats
from scipy.optimize import linear_sum_assignment

from .. import diagnostics
from ..arrays import F64, I64
from ..chains import Chains
from ..corpus import Corpus
from ..models import LDA
from ..synthetic import make_synthetic
from ..views import RHAT_OK
from ._feedback import Feedback, StudentError, call, checked, right, wrong

# Exact answers (closed forms of the same floating-point inputs) agree to rounding: ~1e-15
# relative, ~3e-11 against ArviZ's split R-hat, whose one-pass variance loses digits on draws
# centred far from 0 (the log joints, about -3000). 1e-9 leaves room for any order of
# summation and still tells every mistake apart (the closest differs by more than 1e-4).
RTOL = 1e-9

# The lesson's corpus: 40 documents of about 20 tokens (813 tokens) from three themes, small
# enough that four chains of 600 Gibbs sweeps take a fraction of a second.
CORPUS_PARAMS: dict[str, Any] = {"n_docs": 40, "n_topics": 3, "doc_length": 20, "seed": 1}


def lesson_corpus() -> Corpus:
    """The lesson's corpus: ``make_synthetic(**CORPUS_PARAMS).corpus``."""
    return make_synthetic(**CORPUS_PARAMS).corpus


# ---------------------------------------------------------------------------- helpers
def rank_normalise(draws: Any) -> F64:
    """The draws replaced by the normal scores of their ranks, pooled over every chain
    (Vehtari et al. 2021: rank r of S draws -> Phi^-1((r - 3/8) / (S + 1/4)), Blom's offset;
    ties share their average rank), in the same shape: what R-hat is computed on so
    that it works for heavy tails and is not moved by a monotone change of scale."""
    x = np.asarray(draws, dtype=np.float64)
    rank = stats.rankdata(x, method="average").reshape(x.shape)
    return np.asarray(stats.norm.ppf((rank - 3.0 / 8.0) / (x.size + 0.25)), dtype=np.float64)


def autocorrelation(x: Any) -> F64:
    """Sample autocorrelation rho_t of a series at lags t = 0 .. n-1: the autocovariance
    (1/n) sum_i (x_i - mean)(x_{i+t} - mean) over its value at lag 0 (divided by n, not by
    n - t: the estimate Geyer's rule and ArviZ use). rho_0 = 1. By FFT, O(n log n)."""
    a = np.asarray(x, dtype=np.float64).ravel()
    n = a.size
    if n < 2:
        raise ValueError(f"autocorrelation needs at least 2 draws, got {n}")
    a = a - a.mean()
    m = 1 << (2 * n - 1).bit_length()     # zero padding: no wrap-around of the lags
    f = np.fft.rfft(a, m)
    acov = np.fft.irfft(f * np.conjugate(f), m)[:n] / n
    if acov[0] <= 0:
        raise ValueError("autocorrelation of a constant series is undefined")
    return np.asarray(acov / acov[0], dtype=np.float64)


def ar1(n: int, rho: float, seed: int) -> F64:
    """n draws of a stationary AR(1) series x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t, e_t
    standard normal (x_0 standard normal too, so every x_t is N(0, 1) and corr(x_t, x_{t+k})
    = rho^k): a chain whose effective sample size is known, n (1 - rho) / (1 + rho) for
    large n. Seeded: the same series on every run."""
    if not -1.0 < rho < 1.0:
        raise ValueError(f"rho must be in (-1, 1), got {rho}")
    e = np.random.default_rng(seed).standard_normal(int(n))
    scale = np.sqrt(1.0 - rho * rho)
    e[0] /= scale                          # x_0 = e_0: the stationary start
    return np.asarray(signal.lfilter([scale], [1.0, -rho], e), dtype=np.float64)


def _ar2(n: int, a1: float, a2: float, seed: int) -> F64:
    """An AR(2) series (after a burn-in of 500): not an AR(1), so the AR(1) shortcut
    n (1 - rho_1) / (1 + rho_1) gives it the wrong ESS."""
    e = np.random.default_rng(seed).standard_normal(int(n) + 500)
    return np.asarray(signal.lfilter([1.0], [1.0, -a1, -a2], e)[500:], dtype=np.float64)


# ---------------------------------------------------------------------------- matching
def _one_number(out: Any, what: str) -> float:
    """The student's answer as one float, or a hint when it is not one number."""
    if out is Ellipsis:
        raise StudentError(wrong(f"{what} returned ...: replace the ... with your code"))
    try:
        v = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise StudentError(wrong(f"{what} must return a number, got {type(out).__name__}"))
    if v.size != 1:
        raise StudentError(wrong(f"{what} must return one number, got an array of shape "
                                 f"{v.shape}"))
    return float(v.ravel()[0])


def _same(a: F64, b: F64) -> bool:
    return bool(a.shape == b.shape and np.allclose(a, b, rtol=RTOL, atol=0.0, equal_nan=True))


# A mistake: what it answers for one input (NaN where it is not defined there), and its hint.
Mistake = tuple[Callable[[Any], float], str]


def _which(values: F64, inputs: list[Any], mistakes: list[Mistake]) -> str | None:
    """The hint of the first mistake whose answers on ``inputs`` equal ``values`` wherever
    the mistake is defined."""
    for fn, hint in mistakes:
        v = np.array([fn(x) for x in inputs], dtype=np.float64)
        keep = np.isfinite(v)
        if keep.any() and np.allclose(values[keep], v[keep], rtol=RTOL, atol=0.0):
            return hint
    return None


# ---------------------------------------------------------------------------- (a) R-hat
def _split(x: F64) -> F64:
    """Each chain's first and last halves as two chains (the middle draw of an odd number
    dropped), as ArviZ splits them."""
    half = x.shape[1] // 2
    return np.vstack((x[:, :half], x[:, x.shape[1] - half:]))


def _rhat_of(x: F64, ddof_w: int = 1, ddof_b: int = 1, n_factor: bool = True,
             b_times_n: bool = True, root: bool = True, n: int | None = None) -> float:
    """sqrt(var+ / W), var+ = (n-1)/n W + B/n, W the mean within-chain variance, B = n times
    the variance of the chain means (BDA3 sec. 11.4), with switches for the usual mistakes."""
    n = x.shape[1] if n is None else n
    w = float(np.mean(np.var(x, axis=1, ddof=ddof_w)))
    b = float(np.var(x.mean(axis=1), ddof=ddof_b)) * (n if b_times_n else 1)
    var_plus = ((n - 1) / n if n_factor else 1.0) * w + b / n
    r = var_plus / w
    return float(np.sqrt(r)) if root else r


def _split_rhat(x: F64) -> float:
    """The split R-hat: ArviZ's when it is installed, the same formula here otherwise
    (tests/course/test_lesson4.py checks they agree)."""
    if diagnostics.have_arviz():
        import arviz
        fn: Callable[..., Any] = arviz.rhat   # unannotated in ArviZ
        return float(fn(x, method="split"))
    return _rhat_of(_split(x))


@lru_cache(maxsize=1)
def _rhat_truth() -> tuple[float, ...]:
    # the sets are fixed, and ArviZ takes a quarter of a second a call (it wraps the array in
    # an xarray Dataset): computed once per process, so running the check again is instant
    return tuple(_split_rhat(x) for x in _rhat_draws())


def _interleaved(x: F64) -> float:
    if x.shape[1] % 2:
        return float("nan")
    return _rhat_of(np.vstack((x[:, 0::2], x[:, 1::2])))


AXES = ("you took the means and variances along the wrong axis: draws has shape (chain, "
        "draw), so a chain's mean and variance run over axis=1 (its draws) and the "
        "between-chain variance over the 2M chain means")
RHAT_MISTAKES: dict[str, Mistake] = {
    "no split": (lambda x: _rhat_of(x),
                 "you did not split the chains: cut each chain into its first and second "
                 "half and treat the 2M halves as chains, so a chain that drifts (its first "
                 "half unlike its second) raises R-hat"),
    "axes": (lambda x: _rhat_of(_split(x).T, n=x.shape[1] // 2), AXES),
    "axes, n of the chains": (lambda x: _rhat_of(_split(x).T), AXES),
    "interleaved": (_interleaved,
                    "you split each chain into its even and odd draws (x[:, ::2], "
                    "x[:, 1::2]); split it into its first and second half, which is what "
                    "detects a drift"),
    "ddof=0": (lambda x: _rhat_of(_split(x), ddof_w=0, ddof_b=0),
               "np.var divides by the number of values unless told ddof=1: the within-chain "
               "variance s_m^2 divides by n - 1 and the variance of the chain means by "
               "M - 1 (np.var(..., ddof=1) both times)"),
    "ddof=0 within": (lambda x: _rhat_of(_split(x), ddof_w=0),
                      "the within-chain variances s_m^2 need ddof=1 (divide by n - 1): "
                      "np.var(x, axis=1) divides by n"),
    "ddof=0 between": (lambda x: _rhat_of(_split(x), ddof_b=0),
                       "the variance of the chain means needs ddof=1 (divide by M - 1, M the "
                       "number of split chains): np.var(means) divides by M"),
    "no (n-1)/n": (lambda x: _rhat_of(_split(x), n_factor=False),
                   "you forgot the (n-1)/n factor: var+ = (n-1)/n W + B/n, not W + B/n"),
    "B without n": (lambda x: _rhat_of(_split(x), b_times_n=False),
                    "B is n times the variance of the chain means (then var+ = (n-1)/n W + "
                    "B/n adds the plain variance of the means); you divided it by n once "
                    "more"),
    "n of the whole chain": (lambda x: _rhat_of(_split(x), n=x.shape[1]),
                             "n in the formula is the length of a split chain (half the "
                             "draws), not of the original chain"),
    "no square root": (lambda x: _rhat_of(_split(x), root=False),
                       "R-hat is the square root of var+ / W: you returned its square"),
    # last: ArviZ takes a quarter of a second a call
    "rank": (lambda x: diagnostics.rhat(x),
             "that is the rank-normalised R-hat (ArviZ's default, method='rank'); this "
             "exercise asks for the classic split R-hat of the raw draws: no ranks, no "
             "folding (the check composes those with your function afterwards)"),
}


def _rhat_draws() -> list[F64]:
    """Six (chain, draw) sets: chains at different levels, chains that drift, an odd number
    of draws, nearly mixed chains on a large offset, two chains, and the log joints of
    three real chains over their first 200 sweeps (burn-in and all)."""
    rng = np.random.default_rng(4)
    out = [
        _ar1_stack(rng, 4, 200, 0.6) + np.array([[0.0], [0.0], [0.5], [-0.3]]),
        _ar1_stack(rng, 4, 100, 0.3) + np.linspace(0.0, 1.5, 100)[None, :]
        * np.array([[1.0], [-1.0], [0.5], [-0.5]]),
        _ar1_stack(rng, 3, 51, 0.5) + np.array([[0.0], [0.4], [0.2]]),
        -3000.0 + 5.0 * _ar1_stack(rng, 4, 300, 0.8),
        _ar1_stack(rng, 2, 80, 0.2) + np.array([[0.0], [0.3]]),
    ]
    return out + [_alignment_chains().log_joint()[:, :200]]


def _ar1_stack(rng: np.random.Generator, chains: int, draws: int, rho: float) -> F64:
    """``chains`` independent AR(1) series of ``draws`` draws as rows, from ``rng``."""
    return np.stack([ar1(draws, rho, int(rng.integers(2**31))) for _ in range(chains)])


def rhat_example() -> F64:
    """Draws to try your split_rhat on: 4 chains of 200 draws, two of them off centre."""
    return _rhat_draws()[0]


@checked
def check_split_rhat(split_rhat: Any) -> Feedback:
    """``split_rhat(draws)``: the classic split R-hat of a (chain, draw) array (one number),
    against ArviZ's ``arviz.rhat(draws, method="split")`` on six sets of draws."""
    sets = _rhat_draws()
    truth = np.array(_rhat_truth())
    got = np.full(len(sets), np.nan)
    errors: dict[int, StudentError] = {}
    for i, x in enumerate(sets):
        try:
            out = call(split_rhat, x.copy(), what="split_rhat(draws)")
        except StudentError as e:
            errors[i] = e
            continue
        if np.size(out) != 1:
            return wrong(f"split_rhat(draws) must return one number for all chains together, "
                         f"got an array of shape {np.shape(out)}: R-hat pools the chains "
                         f"(their means and variances) into one ratio")
        got[i] = _one_number(out, "split_rhat(draws)")
    odd = [i for i, x in enumerate(sets) if x.shape[1] % 2]
    even_right = all(i not in errors and np.isclose(got[i], truth[i], rtol=RTOL, atol=0.0)
                     for i in range(len(sets)) if i not in odd)
    if even_right and any(i in errors or not np.isclose(got[i], truth[i], rtol=RTOL, atol=0.0)
                          for i in odd):
        i = odd[0]
        said = (f" (it raised: {errors[i].feedback.message})" if i in errors else
                f" (yours {got[i]:.6f}, ArviZ's {truth[i]:.6f})")
        return wrong(f"right on even numbers of draws, not on {sets[i].shape[1]} draws"
                     f"{said}: with an odd number n, drop the middle draw, halves "
                     f"x[:, :n//2] and x[:, n - n//2:], so both halves have n//2 draws")
    if errors:
        raise next(iter(errors.values()))
    if _same(got, truth):
        return right(_rhat_right_message(split_rhat, sets, truth))
    hint = _which(got, sets, list(RHAT_MISTAKES.values()))
    if hint is not None:
        return wrong(hint)
    i = int(np.argmax(~np.isclose(got, truth, rtol=RTOL, atol=0.0, equal_nan=True)))
    return wrong(f"on draws of shape {sets[i].shape} your split R-hat is {got[i]:.6f}, "
                 f"ArviZ's {truth[i]:.6f}. Split each chain in two halves (2M chains of n "
                 f"draws), W = mean of the chains' variances (ddof=1), B = n times the "
                 f"variance of the chain means (ddof=1), R-hat = sqrt(((n-1)/n W + B/n) / W)")


def _rhat_right_message(split_rhat: Any, sets: list[F64], truth: F64) -> str:
    # rank-normalising commutes with splitting when the number of draws is even (the same
    # values pooled), so the student's function on the ranks is ArviZ's bulk R-hat
    x = sets[-1]
    bulk = float(call(split_rhat, rank_normalise(x), what="split_rhat(draws)"))
    tail = float(call(split_rhat, rank_normalise(np.abs(x - np.median(x))),
                      what="split_rhat(draws)"))
    rank = diagnostics.rhat(x)
    composed = (f" Fed rank-normalised draws and rank-normalised folded draws |x - median|, "
                f"it gives max({bulk:.4f}, {tail:.4f}) = {max(bulk, tail):.4f} on the real "
                f"log joints, ArviZ's rank-normalised R-hat {rank:.4f}: the number "
                f"Chains.diagnostics() reports.")
    if not np.isclose(max(bulk, tail), rank, rtol=1e-9, atol=0.0):   # pragma: no cover
        composed = " (Composed with rank_normalise it does not give ArviZ's rank R-hat.)"
    return (f"your split R-hat equals ArviZ's arviz.rhat(method='split') on all {len(sets)} "
            f"sets of draws (to 1e-9), among them drifting chains (R-hat {truth[1]:.3f}), an "
            f"odd number of draws and the first 200 log joints of three real chains "
            f"(R-hat {truth[-1]:.3f}: the burn-in is in them).{composed}")


# ---------------------------------------------------------------------------- (b) ESS
def _geyer_tau(rho: F64, include_negative: bool = False) -> float:
    """Geyer's initial positive sequence: tau = -1 + 2 sum_{m=0}^{M} (rho_2m + rho_2m+1), M
    the last m before the first pair sum <= 0 (``include_negative``: that pair added too,
    the off-by-one)."""
    tau = -1.0
    for m in range(rho.size // 2):
        pair = rho[2 * m] + rho[2 * m + 1]
        if pair <= 0:
            if include_negative:
                tau += 2.0 * pair
            break
        tau += 2.0 * pair
    return tau


def _geyer_ess(x: F64) -> float:
    return x.size / _geyer_tau(autocorrelation(x))


def _geyer_t(rho: F64) -> int:
    """The last lag the initial positive sequence sums."""
    m = 0
    while 2 * m + 1 < rho.size and rho[2 * m] + rho[2 * m + 1] > 0:
        m += 1
    return 2 * m - 1


def _single_lag(x: F64) -> float:
    rho = autocorrelation(x)
    s = 0.0
    for t in range(1, rho.size):
        if rho[t] <= 0:
            break
        s += rho[t]
    return x.size / (1.0 + 2.0 * s)


def _odd_pairs(x: F64) -> float:
    # pairs (rho_1 + rho_2), (rho_3 + rho_4), ...: tau = 1 + 2 sum of them while positive
    rho = autocorrelation(x)
    tau = 1.0
    for m in range(rho.size):
        if 2 * m + 2 >= rho.size or rho[2 * m + 1] + rho[2 * m + 2] <= 0:
            break
        tau += 2.0 * (rho[2 * m + 1] + rho[2 * m + 2])
    return x.size / tau


def _no_factor_two(x: F64) -> float:
    rho = autocorrelation(x)
    return x.size / (1.0 + float(rho[1:_geyer_t(rho) + 1].sum()))


def _lag_one(x: F64) -> float:
    r = autocorrelation(x)[1]
    return float(x.size * (1 - r) / (1 + r))


ESS_MISTAKES: dict[str, Mistake] = {
    "tau": (lambda x: _geyer_tau(autocorrelation(x)),
            "you returned tau, the integrated autocorrelation time (how many draws one "
            "independent draw is worth); the ESS is n / tau"),
    "relative": (lambda x: 1.0 / _geyer_tau(autocorrelation(x)),
                 "you returned 1 / tau, the ESS per draw (ArviZ's relative=True); multiply "
                 "by n"),
    "no factor 2": (_no_factor_two,
                    "tau = 1 + 2 (rho_1 + rho_2 + ...): the autocorrelations count twice, "
                    "once for each side (lags -t and +t); you summed them once"),
    "pairs without 2": (lambda x: x.size / (0.5 * (_geyer_tau(autocorrelation(x)) - 1.0)),
                        "tau = -1 + 2 sum_m (rho_2m + rho_2m+1): you left out the 2 (the "
                        "autocorrelations count once for each side, lags -t and +t)"),
    "rho_0 counted": (lambda x: x.size / (_geyer_tau(autocorrelation(x)) + 2.0),
                      "you counted rho_0 = 1 in the sum: tau = 1 + 2 sum_{t>=1} rho_t, "
                      "equivalently -1 + 2 sum_m (rho_2m + rho_2m+1) starting at m = 0"),
    "negative pair included": (
        lambda x: x.size / _geyer_tau(autocorrelation(x), include_negative=True),
        "you added the first pair whose sum is <= 0 before stopping: stop before it (an "
        "off-by-one in the truncation)"),
    "single lag": (_single_lag,
                   "you stopped at the first negative rho_t; Geyer's rule sums pairs "
                   "rho_2m + rho_2m+1 and stops at the first pair whose sum is <= 0 (a single "
                   "rho_t dips below zero by noise long before the autocorrelation is gone)"),
    "odd pairs": (_odd_pairs,
                  "your pairs start at lag 1, (rho_1 + rho_2), (rho_3 + rho_4), ...; Geyer's "
                  "start at lag 0: tau = -1 + 2 sum_m (rho_2m + rho_2m+1), m = 0, 1, ..."),
    "AR(1) shortcut": (_lag_one,
                       "n (1 - rho_1) / (1 + rho_1) is the ESS of an AR(1) chain only: right "
                       "on the AR(1) series, wrong on the AR(2) one. Sum the autocorrelations "
                       "(Geyer's pairs) so it holds for any chain"),
}


def _ess_series() -> list[F64]:
    # seeds chosen so that the truncation rules differ: the first rho_t <= 0 falls at an odd
    # lag in one series and at an even one in another (tests/course/test_lesson4.py)
    return [ar1(2000, 0.9, 11), ar1(2000, 0.9, 12), ar1(2000, 0.5, 12), ar1(2000, -0.3, 13),
            _ar2(2000, 0.5, 0.3, 14)]


ESS_RHOS = (0.9, 0.5, -0.3)
ESS_N = 2000
ESS_REPLICATES = 200


@lru_cache(maxsize=1)
def _ess_monte_carlo() -> tuple[tuple[float, float, float, float, float], ...]:
    """Per rho of ESS_RHOS: the mean and standard error of Geyer's estimate and of ArviZ's
    bulk ESS over ESS_REPLICATES seeded AR(1) series of ESS_N draws, and the exact ESS."""
    out = []
    for k, rho in enumerate(ESS_RHOS):
        xs = [ar1(ESS_N, rho, 1000 * (k + 1) + r) for r in range(ESS_REPLICATES)]
        g = np.array([_geyer_ess(x) for x in xs])
        a = np.array([diagnostics.ess_bulk(x[None, :]) for x in xs])
        se = np.sqrt(ESS_REPLICATES)
        out.append((float(g.mean()), float(g.std(ddof=1) / se), float(a.mean()),
                    float(a.std(ddof=1) / se), ESS_N * (1 - rho) / (1 + rho)))
    return tuple(out)


@checked
def check_ess(ess: Any) -> Feedback:
    """``ess(x)``: the effective sample size of one chain x (a 1-D array) by Geyer's initial
    positive sequence, exactly, on four AR(1) series and an AR(2) one."""
    series = _ess_series()
    got = np.array([_one_number(call(ess, x.copy(), what="ess(x)"), "ess(x)")
                    for x in series])
    truth = np.array([_geyer_ess(x) for x in series])
    if _same(got, truth):
        return right(_ess_right_message(truth))
    hint = _which(got, series, list(ESS_MISTAKES.values()))
    if hint is not None:
        return wrong(hint)
    n = series[0].size
    if not np.isfinite(got).all() or (got <= 0).any() or (got > 50 * n).any():
        return wrong(f"ess gave {got.round(1).tolist()}: tau is ~0, so you summed the "
                     f"autocorrelations of every lag. The sample autocorrelations of all "
                     f"lags sum to exactly -1/2 (the series is centred on its own mean), so "
                     f"1 + 2 sum rho_t = 0: truncate the sum where Geyer's pair sums "
                     f"rho_2m + rho_2m+1 first drop to <= 0")
    close = np.all(np.abs(got / truth - 1) < 0.1)
    i = int(np.argmax(~np.isclose(got, truth, rtol=RTOL, atol=0.0)))
    if close:
        return wrong(f"close to the ESS (yours {got[i]:.2f}, Geyer's {truth[i]:.2f} on series "
                     f"{i}), but not Geyer's estimate as asked: take rho from "
                     f"lesson4.autocorrelation(x) (divided by n, around the series' mean), "
                     f"tau = -1 + 2 sum_m (rho_2m + rho_2m+1) up to the last positive pair, "
                     f"ESS = n / tau")
    return wrong(f"on series {i} (n = {series[i].size}) your ESS is {got[i]:.2f}, Geyer's "
                 f"{truth[i]:.2f}: rho = lesson4.autocorrelation(x); tau = -1 + 2 sum_m "
                 f"(rho_2m + rho_2m+1) for m = 0, 1, ... while the pair sum is > 0; "
                 f"return n / tau")


def _ess_right_message(truth: F64) -> str:
    mc = _ess_monte_carlo()
    parts = [f"rho = {rho:g}: yours {g:.1f} +- {gse:.1f}, ArviZ's bulk ESS {a:.1f} +- "
             f"{ase:.1f}, exact {exact:.1f}"
             for rho, (g, gse, a, ase, exact) in zip(ESS_RHOS, mc)]
    return (f"your ESS equals Geyer's initial-positive-sequence estimate on all {truth.size} "
            f"series (to 1e-9), the AR(2) one included (ESS {truth[-1]:.1f} of 2000 draws). "
            f"Against the ESS of an AR(1), n (1 - rho) / (1 + rho) (its large-n value, within "
            f"0.5% of the exact one at n = {ESS_N}), as mean +- standard error over "
            f"{ESS_REPLICATES} seeded series of {ESS_N} draws: " + "; ".join(parts) + ". "
            "The estimates land within a few percent of the truth, some further than their "
            "standard errors: cutting the sum off is a small bias, not noise. rho < 0 gives "
            "ESS > n: antithetic draws are worth more than independent ones.")


# ---------------------------------------------------------------------------- (c) alignment
ALIGN_SEED = 24       # chains whose topics come out in cycled orders (tests check it)


@lru_cache(maxsize=1)
def _alignment_chains() -> Chains:
    """Three chains of LDA (K = 3, Gibbs) on the lesson's corpus, 300 sweeps: their topics
    are the three themes, each chain's in another order."""
    chains = Chains(LDA(K=3, sampler="gibbs"), lesson_corpus(), n_chains=3, seed=ALIGN_SEED)
    chains.run(300)
    return chains


# Two sets of four overlapping topics over eight words (rows sum to 1 after normalising):
# the nearest pair, ref 0 and other 3, is not in the best matching, so a greedy matching
# (row by row, or nearest pair first) is wrong here. Found by a seeded search; the tests
# check that Hellinger, L1, L2, cosine and Jensen-Shannon distances all give the same best
# matching, [0, 2, 3, 1].
OVERLAP_REF = np.array([
    [0.0437, 0.1319, 0.1558, 0.1171, 0.1002, 0.0992, 0.0437, 0.3085],
    [0.1409, 0.1617, 0.0069, 0.5417, 0.0427, 0.0685, 0.0010, 0.0367],
    [0.0218, 0.0595, 0.1647, 0.0754, 0.1558, 0.0288, 0.0794, 0.4147],
    [0.0922, 0.3370, 0.0951, 0.0040, 0.1764, 0.2676, 0.0099, 0.0178]])
OVERLAP_OTHER = np.array([
    [0.0715, 0.1450, 0.1142, 0.2274, 0.0874, 0.0953, 0.0318, 0.2274],
    [0.0884, 0.2880, 0.0963, 0.0645, 0.1579, 0.2214, 0.0159, 0.0675],
    [0.1053, 0.1579, 0.0606, 0.3734, 0.0715, 0.0854, 0.0169, 0.1291],
    [0.0437, 0.0893, 0.1389, 0.1478, 0.1329, 0.0476, 0.0625, 0.3373]])


def overlapping_topics() -> tuple[F64, F64]:
    """A hard pair (ref, other) of four topics over eight words each, where the nearest pair
    of topics is not part of the best matching."""
    return (OVERLAP_REF / OVERLAP_REF.sum(axis=1, keepdims=True),
            OVERLAP_OTHER / OVERLAP_OTHER.sum(axis=1, keepdims=True))


def hellinger(ref: Any, other: Any) -> F64:
    """(K, K) Hellinger distances between the rows of two topic-word matrices, as
    ``Chains.topic_alignment`` computes them: sqrt(1 - sum_w sqrt(p_w q_w))."""
    a, b = np.sqrt(np.asarray(ref, np.float64)), np.sqrt(np.asarray(other, np.float64))
    return np.asarray(np.sqrt(np.clip(1.0 - a @ b.T, 0.0, None)), dtype=np.float64)


def _best_matching(cost: F64, maximize: bool = False) -> I64:
    return np.asarray(linear_sum_assignment(cost, maximize=maximize)[1], dtype=np.int64)


def _greedy(cost: F64) -> I64:
    """Row by row, each topic of ref takes the nearest topic of other still free."""
    free = list(range(cost.shape[1]))
    out = []
    for k in range(cost.shape[0]):
        j = min(free, key=lambda j: cost[k, j])
        free.remove(j)
        out.append(j)
    return np.array(out, dtype=np.int64)


def _alignment_cases() -> list[tuple[str, F64, F64, I64]]:
    """(name, ref, other, the matching the library gives): the real chains' topics against
    chain 0's (``Chains.topic_alignment``), then the overlapping pair (its least summed
    Hellinger distance, the same criterion)."""
    chains = _alignment_chains()
    a = chains.topic_alignment()
    perms = a.pivot(index="chain", columns="topic", values="chain_topic").to_numpy()
    phi0 = chains.sessions[0].topic_word()
    cases = [(f"real chain {c} (of three, seed {ALIGN_SEED})", phi0,
              chains.sessions[c].topic_word(), np.asarray(perms[c], dtype=np.int64))
             for c in range(1, chains.n_chains)]
    ref, other = overlapping_topics()
    return cases + [("the overlapping topics (lesson4.overlapping_topics())", ref, other,
                     _best_matching(hellinger(ref, other)))]


def _student_perm(out: Any, K: int, V: int, name: str) -> I64:
    """The student's matching as K distinct topic numbers, or a hint naming what it is."""
    if isinstance(out, tuple) and len(out) == 2 and np.shape(out[0]) == (K,):
        raise StudentError(wrong("align returned a pair of arrays, as linear_sum_assignment "
                                 "does (row indices, column indices): return the column "
                                 "indices, the second array"))
    perm = np.asarray(out).ravel()
    if not np.issubdtype(perm.dtype, np.number):
        raise StudentError(wrong(f"align must return K topic numbers (one per topic of ref), "
                                 f"got {type(out).__name__}"))
    if perm.size == V and V != K:
        raise StudentError(wrong(f"align returned {perm.size} numbers, one per word: compare "
                                 f"the rows of ref and other (topics, shape (K, V)), not their "
                                 f"columns"))
    if perm.size != K or not np.all(perm == np.round(perm)):
        raise StudentError(wrong(f"align must return K = {K} whole topic numbers, a "
                                 f"permutation of 0 .. K-1; got {perm.tolist()}"))
    perm = perm.astype(np.int64)
    if sorted(perm.tolist()) != list(range(K)):
        twice = sorted({int(j) for j in perm if (perm == j).sum() > 1})
        if not twice:
            raise StudentError(wrong(f"on {name} your matching {perm.tolist()} holds numbers "
                                     f"outside 0 .. K-1 = {K - 1}"))
        raise StudentError(wrong(
            f"on {name} your matching uses topic(s) {twice} of other more than once: the "
            f"nearest topic of each row is not a matching. Each topic of other may be used "
            f"once: solve the assignment problem (scipy.optimize.linear_sum_assignment on the "
            f"K x K distance matrix)"))
    return perm


def _greedy_global(cost: F64) -> I64:
    """The nearest pair first, then the nearest pair of what is left, and so on."""
    c = cost.astype(np.float64)
    out = np.zeros(c.shape[0], dtype=np.int64)
    for _ in range(c.shape[0]):
        k, j = np.unravel_index(int(np.argmin(c)), c.shape)
        out[k] = j
        c[k, :] = np.inf
        c[:, j] = np.inf
    return out


GREEDY = ("you matched greedily (each topic's nearest topic still free in turn, or the nearest "
          "pair first): when topics overlap, the nearest pair need not be in the best "
          "matching. Solve the assignment problem over all matchings (scipy.optimize."
          "linear_sum_assignment)")
# what each usual mistake answers on a case (its cost matrix and the right matching), and
# its hint; told apart on all the cases together (with K = 3 the inverse of a cycled order
# is also the matching of largest distance: the overlapping pair, K = 4, separates them)
ALIGN_MISTAKES: list[tuple[Callable[[F64, I64], I64], str]] = [
    (lambda c, t: np.arange(t.size, dtype=np.int64),
     "you returned the topics in their own order, 0 .. K-1: chains number their topics "
     "arbitrarily (label switching), so match them by their word distributions"),
    (lambda c, t: np.argsort(t),
     "you returned the inverse permutation: perm[k] must be the topic of other that matches "
     "topic k of ref (so other[perm] lines up with ref); yours gives for each topic of other "
     "its topic in ref. Put ref's topics on the rows of the distance matrix, or invert with "
     "np.argsort"),
    (lambda c, t: _best_matching(c, maximize=True),
     "you found the matching of the largest total distance: minimise a distance (or "
     "maximise a similarity), not the other way round"),
    (lambda c, t: _greedy(c), GREEDY),
    (lambda c, t: _greedy_global(c), GREEDY),
]


@checked
def check_alignment(align: Any) -> Feedback:
    """``align(ref, other)``: for each topic k of ``ref`` (K, V), the topic ``perm[k]`` of
    ``other`` that is the same topic (``other[perm]`` lines up with ``ref``), against the
    library's ``Chains.topic_alignment``."""
    cases = _alignment_cases()
    perms = [_student_perm(call(align, ref.copy(), other.copy(), what="align(ref, other)"),
                           ref.shape[0], ref.shape[1], name)
             for name, ref, other, _ in cases]
    if all(np.array_equal(p, t) for p, (_, _, _, t) in zip(perms, cases)):
        return right("your matching equals the library's on real chains (their topics in "
                     "cycled orders; Chains.topic_alignment) and on the overlapping "
                     "topics, where the nearest pair is not part of the best matching: the "
                     "permutation of least summed distance over all K! matchings, in the "
                     "library's direction (other[perm] lines up with ref).")
    costs = [hellinger(ref, other) for _, ref, other, _ in cases]
    for mistake, hint in ALIGN_MISTAKES:
        if all(np.array_equal(p, mistake(c, t))
               for p, c, (_, _, _, t) in zip(perms, costs, cases)):
            return wrong(hint)
    for p, c, (name, _, _, t) in zip(perms, costs, cases):
        if np.array_equal(p, t):
            continue
        K = t.size
        total, best = float(c[np.arange(K), p].sum()), float(c[np.arange(K), t].sum())
        if total > best + 1e-12:
            return wrong(f"on {name} your matching {p.tolist()} is a permutation but not the "
                         f"best: its summed Hellinger distance is {total:.4f}, the best "
                         f"{best:.4f} ({t.tolist()}). Minimise the summed distance over all "
                         f"matchings (scipy.optimize.linear_sum_assignment), not topic by "
                         f"topic")
        return wrong(f"on {name} your matching {p.tolist()} is not the library's "
                     f"{t.tolist()}, though its summed Hellinger distance is as small: compare "
                     f"the topics by the Hellinger distance (lesson4.hellinger) as the library "
                     f"does")
    raise AssertionError("unreachable: some case differs")   # pragma: no cover


# ---------------------------------------------------------------------------- (d) stopping
def _below(conv: pd.DataFrame, threshold: float, quantities: list[str] | None = None,
           nan_ok: bool = False) -> pd.Series:
    """Per sweep (sorted): whether every R-hat of the sweep (of ``quantities``) is below
    ``threshold``; a NaN R-hat (too few draws yet) is not below unless ``nan_ok``."""
    rows = conv if quantities is None else conv[conv["quantity"].isin(quantities)]
    r = rows["r_hat"].to_numpy(np.float64)
    ok = (r < threshold) | (np.isnan(r) & nan_ok)
    return pd.Series(ok, index=rows["sweep"].to_numpy()).groupby(level=0).all().sort_index()


def _stays(ok: pd.Series) -> int:
    """The first sweep from which ``ok`` holds to the end; -1 if it does not hold at the
    end."""
    sweeps = ok.index.to_numpy()
    bad = np.flatnonzero(~ok.to_numpy(bool))
    if bad.size and bad[-1] == sweeps.size - 1:
        return -1
    return int(sweeps[bad[-1] + 1]) if bad.size else int(sweeps[0])


def _first(ok: pd.Series) -> int:
    hits = ok.index.to_numpy()[ok.to_numpy(bool)]
    return int(hits[0]) if hits.size else -1


def _converged_sweep(convergence: pd.DataFrame, threshold: float = RHAT_OK) -> int:
    """The first sweep of a ``Chains.convergence()`` table from which every R-hat (every
    quantity) stays below ``threshold`` to the end of the table; -1 when the last is not."""
    return _stays(_below(convergence, threshold))


def _position(conv: pd.DataFrame) -> float:
    s = _converged_sweep(conv)
    if s < 0:
        return float("nan")
    sweeps = np.sort(conv["sweep"].unique())
    return float(np.flatnonzero(sweeps == s)[0])


def _row_label(conv: pd.DataFrame) -> float:
    s = _converged_sweep(conv)
    return float("nan") if s < 0 else float(conv.index[conv["sweep"].to_numpy() == s][0])


def _last_above(conv: pd.DataFrame) -> float:
    ok = _below(conv, RHAT_OK)
    bad = ok.index.to_numpy()[~ok.to_numpy(bool)]
    return float(bad[-1]) if bad.size and _converged_sweep(conv) > 0 else float("nan")


STOP_MISTAKES: dict[str, Mistake] = {
    "first dip": (lambda c: _first(_below(c, RHAT_OK)),
                  "you returned the first sweep where R-hat is below 1.01, but it rises above "
                  "again later: R-hat is itself an estimate and wanders around 1.01. Return "
                  "the first sweep from which it stays below to the end of the table"),
    "log joint only": (lambda c: _stays(_below(c, RHAT_OK, ["log_joint"])),
                       "you looked at the log joint only: a supervised model's table has a "
                       "max_weight row per sweep too (the largest R-hat of the weights), and "
                       "every quantity must be below 1.01"),
    "last above": (_last_above,
                   "you returned the last sweep at which R-hat was not below 1.01 (an "
                   "off-by-one): return the next sweep of the table, the first of the run that "
                   "stays below"),
    "position": (_position,
                 "you returned a position in the table, not a sweep number: the table has a "
                 "row every few sweeps (its 'sweep' column), return that column's value"),
    "row label": (_row_label,
                  "you returned the DataFrame's row label (its index), not the sweep: return "
                  "the value of the 'sweep' column"),
    "nan below": (lambda c: _stays(_below(c, RHAT_OK, nan_ok=True)),
                  "you counted a NaN R-hat as below 1.01 (NaN >= 1.01 is False): the first "
                  "sweeps have too few draws for an R-hat, which is not convergence"),
    "1.1": (lambda c: _converged_sweep(c, 1.1),
            "you used the older rule of thumb 1.1; Vehtari et al. (2021) show that chains far "
            "from mixed pass it: use 1.01 (views.RHAT_OK)"),
    "1.05": (lambda c: _converged_sweep(c, 1.05),
             "you used 1.05; the threshold of this lesson, and of the library's charts, is "
             "1.01 (Vehtari et al. 2021; views.RHAT_OK)"),
}


def _table(every: int, series: dict[str, list[float]]) -> pd.DataFrame:
    n = len(next(iter(series.values())))
    rows = [{"sweep": every * (i + 1), "quantity": q, "r_hat": r[i], "ess_bulk": float("nan")}
            for i in range(n) for q, r in series.items()]
    return pd.DataFrame(rows, columns=["sweep", "quantity", "r_hat", "ess_bulk"])


def stop_tables() -> list[pd.DataFrame]:
    """Three ``Chains.convergence()``-shaped tables the check runs your function on: a
    supervised run (log joint and weights, a row every 10 sweeps) that dips below 1.01 and
    rises again, one whose only non-converged rows are its first (NaN: too few draws), and
    one that ends above 1.01 (not converged: the answer is -1)."""
    nan = float("nan")
    lj = [nan, 1.9, 1.3, 1.08, 1.04, 1.008, 1.007, 1.03, 1.02, 1.015, 1.011, 1.009, 1.006,
          1.004, 1.005, 1.004, 1.003, 1.002, 1.003, 1.002]
    mw = [nan, 1.4, 1.06, 1.009, 1.008, 1.006, 1.005, 1.004, 1.006, 1.003, 1.004, 1.002,
          1.005, 1.012, 1.004, 1.003, 1.002, 1.003, 1.002, 1.001]
    settled = [nan, nan, 1.008, 1.006, 1.009, 1.004, 1.003, 1.005, 1.002, 1.003]
    never = [nan, 1.5, 1.2, 1.06, 1.03, 1.009, 1.02, 1.012, 1.015, 1.04]
    return [_table(10, {"log_joint": lj, "max_weight": mw}), _table(5, {"log_joint": settled}),
            _table(20, {"log_joint": never})]


def _check_table(conv: Any) -> pd.DataFrame:
    if not isinstance(conv, pd.DataFrame) or not {"sweep", "quantity", "r_hat"} <= set(
            conv.columns):
        raise StudentError(wrong(f"the second argument must be a Chains.convergence() table "
                                 f"(columns sweep, quantity, r_hat), got "
                                 f"{type(conv).__name__}"))
    return conv


@checked
def check_converged_at(converged_at: Any, convergence: Any) -> Feedback:
    """``converged_at(conv)``: the first sweep of a ``Chains.convergence()`` table from
    which every R-hat stays below 1.01, or -1; on your table ``convergence`` and on
    ``stop_tables()``."""
    tables = [_check_table(convergence)] + stop_tables()
    names = ["your chains' table", "a supervised run's table", "a table that starts with NaN",
             "a table that ends above 1.01"]
    truth = np.array([_converged_sweep(t) for t in tables], dtype=np.float64)
    got = np.full(len(tables), np.nan)
    for i, t in enumerate(tables):
        try:
            out = call(converged_at, t.copy(), what="converged_at(conv)")
        except StudentError as e:
            if i == 3 and "returned None" in e.feedback.message and _same(got[:3], truth[:3]):
                return wrong("on a table that ends above 1.01 your function returned None: "
                             "return -1 there (the chains have not converged: run more "
                             "sweeps)")
            raise
        got[i] = _one_number(out, "converged_at(conv)")
    if _same(got, truth):
        return right(f"your stopping sweep is right on all 4 tables: {int(truth[0])} on your "
                     f"chains' table (its R-hat stays below 1.01 from there to its last row), "
                     f"{int(truth[1])} on the supervised run (its weights' R-hat rises again "
                     f"at sweep 140), {int(truth[2])} after the rows too early for an R-hat, "
                     f"and -1 where the chains have not converged.")
    for fn, hint in STOP_MISTAKES.values():
        # named when the answers equal the mistake's wherever it is defined and it differs
        # from the truth somewhere
        v = np.array([fn(t) for t in tables], dtype=np.float64)
        defined = np.isfinite(v)
        if (defined & (v != truth)).any() and np.array_equal(got[defined], v[defined]):
            return wrong(hint)
    i = int(np.argmax(got != truth))
    if i == 3:
        return wrong(f"on a table that ends above 1.01 you returned {got[i]:g}: the chains "
                     f"have not converged by its last row, so return -1 (run more sweeps)")
    return wrong(f"on {names[i]} you returned {got[i]:g}, the answer is {int(truth[i])}: group "
                 f"the rows by sweep; a sweep is below when every R-hat of it is < 1.01 (a "
                 f"NaN is not); return the first sweep after the last one that is not")


__all__ = ["CORPUS_PARAMS", "ESS_MISTAKES", "RHAT_MISTAKES", "STOP_MISTAKES", "ar1",
           "autocorrelation", "check_alignment", "check_converged_at", "check_ess",
           "check_split_rhat", "hellinger", "lesson_corpus",
           "overlapping_topics", "rank_normalise", "rhat_example", "stop_tables"]
