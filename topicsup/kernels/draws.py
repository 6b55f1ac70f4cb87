"""Draws from the standard distributions the augmentations and weight samplers need, on the
caller's xoshiro256** state (``kernels.rng``), so checkpoints resume them exactly."""

from __future__ import annotations

import math

from numba import njit

from .rng import uniform


@njit(cache=True, nogil=True)
def normal(rng):
    """A standard normal draw (Marsaglia's polar method; the second value is discarded so a
    draw is a function of the stream position alone, which keeps checkpoints simple)."""
    while True:
        u = 2.0 * uniform(rng) - 1.0
        v = 2.0 * uniform(rng) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * math.log(s) / s)


@njit(cache=True, nogil=True)
def inverse_gaussian(rng, mean, shape):
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
