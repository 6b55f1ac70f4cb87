"""Draws from the standard distributions the augmentations and weight samplers need, on the
caller's xoshiro256** state (``kernels.rng``), so checkpoints resume them exactly."""

from __future__ import annotations

import math

from numba import njit

from ..arrays import Rng
from . import fmath
from .rng import uniform


@njit(cache=True, nogil=True)
def normal(rng: Rng) -> float:
    """A standard normal draw (Marsaglia's polar method; the second value is discarded so a
    draw is a function of the stream position alone, which keeps checkpoints simple)."""
    while True:
        u = 2.0 * uniform(rng) - 1.0
        v = 2.0 * uniform(rng) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * fmath.log(s) / s)


@njit(cache=True, nogil=True)
def inverse_gaussian(rng: Rng, mean: float, shape: float) -> float:
    """IG(mean, shape), density sqrt(shape/(2 pi x^3)) exp(-shape (x - mean)^2 / (2 mean^2 x)),
    by Michael, Schucany and Haas (1976). ``mean = inf`` is the limit, a 1/2-stable law:
    shape / chi^2_1."""
    nu = normal(rng)
    y = nu * nu
    if y == 0.0:
        return mean
    if math.isinf(mean):
        return shape / y
    # The smaller root mean + mean^2 y/(2 shape) - mean/(2 shape) sqrt(4 mean shape y + mean^2
    # y^2), rewritten as 4 mean^2 shape y / (mean y + sqrt(...))^2: no cancellation.
    my = mean * y
    r = my + math.sqrt(4.0 * mean * shape * y + my * my)
    x = 4.0 * mean * mean * shape * y / (r * r)
    if uniform(rng) <= mean / (mean + x):
        return x
    return mean * mean / x


@njit(cache=True, nogil=True)
def gamma(rng: Rng, a: float) -> float:
    """Gamma(a, 1) for any shape a > 0, exact.

    a >= 1: Marsaglia and Tsang (2000), a normal and a uniform per try (squeeze first).
    a < 1: Ahrens and Dieter's GS (1974), two uniforms per try; with b = 1 + a/e a try
    accepts with probability Gamma(a) a e / (a + e) > 0.72, and at the shape of a sparse
    topic-word Dirichlet (beta = 0.01) almost always at once. Why not Gamma(a + 1) U^(1/a):
    that costs a normal draw per value, and a topic-word draw takes V K of them per sweep.
    p^(1/a) underflows to 0 for p below about e^(-708 a) (a draw below 1e-308, where the
    mass is below double precision anyway)."""
    if a < 1.0:
        b = 1.0 + a / math.e
        while True:
            p = b * uniform(rng)
            u = uniform(rng)
            if p <= 1.0:
                x = fmath.exp(fmath.log(p) / a) if p > 0.0 else 0.0
                if u <= 1.0 - x or u <= fmath.exp(-x):   # exp(-x) >= 1 - x: skip the exp
                    return x
            else:
                x = -fmath.log((b - p) / a)
                if u <= fmath.exp((a - 1.0) * fmath.log(x)):
                    return x
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal(rng)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(rng)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v
        if fmath.log(u) < 0.5 * x2 + d * (1.0 - v + fmath.log(v)):
            return d * v


# Below this lower bound (in standard deviations) plain rejection from the normal accepts at
# least 1 - Phi(0.5) = 0.31 of its tries; above it Robert's exponential proposal does better
# and stays exact however far out the bound is (at 10 sd the normal would need 1e23 tries).
TAIL_FROM = 0.5


@njit(cache=True, nogil=True)
def normal_above(rng: Rng, lo: float) -> float:
    """A standard normal draw conditioned on x >= ``lo``, exact for any finite ``lo``.

    lo < ``TAIL_FROM``: draw normals until one is >= lo (near the mode). Beyond: Robert (1995,
    sec. 2.2), x = lo + Exp(rate a), a = (lo + sqrt(lo^2 + 4)) / 2 (the rate that maximises
    the acceptance), accepted with probability exp(-(x - a)^2 / 2); above 0.76 at lo = 0.5
    and towards 1 far out."""
    if lo < TAIL_FROM:
        while True:
            x = normal(rng)
            if x >= lo:
                return x
    a = 0.5 * (lo + math.sqrt(lo * lo + 4.0))
    while True:
        u = 1.0 - uniform(rng)          # in (0, 1]: log(u) is finite
        x = lo - fmath.log(u) / a
        d = x - a
        if uniform(rng) <= fmath.exp(-0.5 * d * d):
            return x
