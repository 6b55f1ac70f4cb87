"""Convergence diagnostics of several chains: rank-normalised split R-hat and the bulk and
tail effective sample sizes (Vehtari, Gelman, Simpson, Carpenter, Buerkner 2021, "Rank-
normalization, folding, and localization: an improved R-hat"), ArviZ's definitions.

``rhat``, ``ess_bulk`` and ``ess_tail`` call ArviZ where it is installed (``pip install
topicsup[arviz]``); without it (or with ``engine="topicsup"``) they compute the same
quantities here, a port of ArviZ 0.23's
``arviz.stats.diagnostics`` (``_rhat_rank``, ``_ess_bulk``, ``_ess_tail``; Apache-2.0), which
``tests/test_diagnostics.py`` checks against ArviZ to 1e-10, 0.x and 1.x alike (in 1.x they
live in ``arviz_stats``, exposed as ``arviz.rhat`` and ``arviz.ess``, and take a bare array
as (chain, draw) too). Every function takes draws of shape (chain, draw) and returns NaN
when there are too few (fewer than 4 draws, or for R-hat fewer than 2 chains) or any draw is
NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from scipy import fft, stats

from .arrays import F64, Array

MIN_DRAWS = 4
# The quantiles of the tail ESS (Vehtari et al. 2021). Passed to ArviZ explicitly: 0.x defaults
# to them, but 1.x's array interface requires ``prob`` (and its xarray interface defaults to
# the ``stats.ci_prob`` rcParam, 0.11 and 0.89).
TAIL_PROBS = (0.05, 0.95)


def have_arviz() -> bool:
    """Whether ArviZ is importable (the diagnostics then come from it)."""
    try:
        import arviz  # noqa: F401
    except ImportError:
        return False
    return True


def _draws(x: Array, min_chains: int) -> F64 | None:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"draws must have shape (chain, draw), got shape {x.shape}")
    if x.shape[1] < MIN_DRAWS or x.shape[0] < min_chains or np.isnan(x).any():
        return None
    return x


def _split(x: Array) -> Array:
    half = x.shape[1] // 2
    return np.vstack((x[:, :half], x[:, -half:]))


def _z_scale(x: Array) -> F64:
    rank = stats.rankdata(x, method="average").reshape(x.shape)
    c = 3.0 / 8.0   # Blom's offset
    return stats.norm.ppf((rank - c) / (x.size - 2 * c + 1))


def _rhat(x: F64) -> float:
    n = x.shape[1]
    between = n * np.var(x.mean(axis=1), ddof=1)
    within = np.mean(np.var(x, axis=1, ddof=1))
    return float(np.sqrt((between / within + n - 1) / n))


def _autocov(x: F64) -> F64:
    n = x.shape[1]
    m = fft.next_fast_len(2 * n)
    x = x - x.mean(axis=1, keepdims=True)
    f = np.fft.rfft(x, n=m, axis=1)
    f *= np.conjugate(f)
    return np.fft.irfft(f, n=m, axis=1)[:, :n] / n


def _ess(x: F64) -> float:
    x = np.asarray(x, dtype=np.float64)
    if np.isnan(x).any():
        return float("nan")
    if x.max() - x.min() < np.finfo(float).resolution:
        return float(x.size)
    n_chain, n_draw = x.shape
    acov = _autocov(x)
    mean_var = np.mean(acov[:, 0]) * n_draw / (n_draw - 1.0)
    var_plus = mean_var * (n_draw - 1.0) / n_draw
    if n_chain > 1:
        var_plus += np.var(x.mean(axis=1), ddof=1)
    rho = np.zeros(n_draw)
    rho_even, rho[0] = 1.0, 1.0
    rho_odd = 1.0 - (mean_var - np.mean(acov[:, 1])) / var_plus
    rho[1] = rho_odd
    # Geyer's initial positive sequence
    t = 1
    while t < n_draw - 3 and rho_even + rho_odd > 0.0:
        rho_even = 1.0 - (mean_var - np.mean(acov[:, t + 1])) / var_plus
        rho_odd = 1.0 - (mean_var - np.mean(acov[:, t + 2])) / var_plus
        if rho_even + rho_odd >= 0:
            rho[t + 1], rho[t + 2] = rho_even, rho_odd
        t += 2
    max_t = t - 2
    if rho_even > 0:
        rho[max_t + 1] = rho_even
    # Geyer's initial monotone sequence
    t = 1
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2.0
        t += 2
    size = n_chain * n_draw
    tau = -1.0 + 2.0 * np.sum(rho[:max_t + 1]) + np.sum(rho[max_t + 1:max_t + 2])
    tau = max(tau, 1.0 / np.log10(size))
    return float("nan") if np.isnan(rho).any() else float(size / tau)


ENGINES = ("auto", "arviz", "topicsup")


def _use_arviz(engine: str) -> bool:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if engine == "arviz" and not have_arviz():
        raise ImportError("engine='arviz' needs ArviZ: pip install 'topicsup[arviz]'")
    return engine == "arviz" or (engine == "auto" and have_arviz())


def rhat(draws: Array, engine: str = "auto") -> float:
    """Rank-normalised split R-hat: the larger of the bulk and the folded (tail) R-hat of the
    split chains; near 1 when the chains agree (1.01 is the usual threshold). ``engine``:
    ``"auto"`` (ArviZ if installed), ``"arviz"`` or ``"topicsup"`` (the port here)."""
    if _use_arviz(engine):
        import arviz
        # ArviZ's rhat and ess are unannotated: called as untyped callables
        return float(cast("Callable[..., Any]", arviz.rhat)(
            np.asarray(draws, dtype=np.float64), method="rank"))
    x = _draws(draws, min_chains=2)
    if x is None:
        return float("nan")
    s = _split(x)
    return max(_rhat(_z_scale(s)), _rhat(_z_scale(np.abs(s - np.median(s)))))


def ess_bulk(draws: Array, engine: str = "auto") -> float:
    """Bulk effective sample size: of the rank-normalised split chains."""
    if _use_arviz(engine):
        import arviz
        return float(cast("Callable[..., Any]", arviz.ess)(
            np.asarray(draws, dtype=np.float64), method="bulk"))
    x = _draws(draws, min_chains=1)
    return float("nan") if x is None else _ess(_z_scale(_split(x)))


def ess_tail(draws: Array, engine: str = "auto") -> float:
    """Tail effective sample size: the smaller of those of the 5% and 95% quantile
    indicators of the split chains."""
    if _use_arviz(engine):
        import arviz
        return float(cast("Callable[..., Any]", arviz.ess)(
            np.asarray(draws, dtype=np.float64), method="tail", prob=TAIL_PROBS))
    x = _draws(draws, min_chains=1)
    if x is None:
        return float("nan")
    return min(_ess(_split(x <= np.quantile(x, p)).astype(np.float64)) for p in TAIL_PROBS)


def rhat_many(draws: Array) -> F64:
    """The port's ``rhat`` of many quantities at once: draws (chain, draw, Q) -> (Q,), each
    the R-hat of ``draws[:, :, q]`` (NaN where it is undefined)."""
    x = np.asarray(draws, dtype=np.float64)
    if x.ndim != 3:
        raise ValueError(f"draws must have shape (chain, draw, quantity), got {x.shape}")
    C, S, Q = x.shape
    if C < 2 or S < MIN_DRAWS:
        return np.full(Q, np.nan)
    half = S // 2
    s = np.concatenate([x[:, :half], x[:, S - half:]], axis=0)

    def z(a: F64) -> F64:
        flat = a.reshape(-1, Q)
        rank = stats.rankdata(flat, method="average", axis=0)
        c = 3.0 / 8.0
        return stats.norm.ppf((rank - c) / (flat.shape[0] - 2 * c + 1)).reshape(a.shape)

    def r(a: F64) -> F64:
        n = a.shape[1]
        between = n * np.var(a.mean(axis=1), axis=0, ddof=1)
        within = np.mean(np.var(a, axis=1, ddof=1), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt((between / within + n - 1) / n)

    folded = np.abs(s - np.median(s.reshape(-1, Q), axis=0))
    out = np.maximum(r(z(s)), r(z(folded)))
    out[np.isnan(x).any(axis=(0, 1))] = np.nan
    return out


def summary(draws: Array, engine: str = "auto") -> dict[str, float]:
    """``mean``, ``sd``, ``r_hat``, ``ess_bulk``, ``ess_tail`` of (chain, draw) draws."""
    x = np.asarray(draws, dtype=np.float64)
    return {"mean": float(x.mean()) if x.size else float("nan"),
            "sd": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
            "r_hat": rhat(x, engine), "ess_bulk": ess_bulk(x, engine),
            "ess_tail": ess_tail(x, engine)}


__all__ = ["ENGINES", "ess_bulk", "ess_tail", "have_arviz", "rhat", "rhat_many", "summary"]
