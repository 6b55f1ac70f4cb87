"""The horseshoe's scales given the weights (Carvalho, Polson, Scott 2010), as DOLDA uses it:
one global scale per task (Magnusson, Jonsson, Villani 2020 sec. 4.1; docs/math.md sec. 4).

eta_tp ~ N(0, tau_t^2 lambda_tp^2), tau_t ~ C+(0, 1), lambda_tp ~ C+(0, 1). Drawn with the
auxiliary inverse-gamma scheme of Makalic and Schmidt (2016): a half-Cauchy scale is an
inverse-gamma mixture, lambda^2 | nu ~ IG(1/2, 1/nu), nu ~ IG(1/2, 1) (likewise tau^2 with xi),
so every conditional is a plain inverse-gamma draw (their eq. 7-10, without the noise variance
sigma^2, which the probit's unit variance fixes):

    lambda_tp^2 | .  ~ IG(1, 1/nu_tp + eta_tp^2 / (2 tau_t^2))
    nu_tp       | .  ~ IG(1, 1 + 1/lambda_tp^2)
    tau_t^2     | .  ~ IG((P + 1)/2, 1/xi_t + sum_p eta_tp^2 / (2 lambda_tp^2))
    xi_t        | .  ~ IG(1, 1 + 1/tau_t^2)

with P the shrunk weights (the intercept excluded: docs/math.md sec. 8, "the Gamma shape's p").
It samples the posterior of the paper's slice samplers, whose printed bounds are misprinted
(docs/math.md sec. 4 and 8: the truncation bounds the new draw, and the appendix squares the sum of
squares once more); the prior-only test checks the half-Cauchy quartiles.
"""

from __future__ import annotations


from numba import njit

from ..arrays import F64, Rng
from . import fmath
from .draws import gamma
from .rng import uniform

# The prior variance tau^2 lambda^2 handed to the weight step is held in here: beyond it the
# precision over- or underflows the Cholesky factor. The scales themselves are not clamped;
# a weight whose prior sd is below 1e-6 (zero to every digit the features can resolve) or
# above 1e6 is drawn with the bound, so there (and only there) the weight's draw departs from
# its conditional and the log joint (unclamped) from what was drawn.
VARIANCE_RANGE = (1e-12, 1e12)


@njit(cache=True, nogil=True, inline="always")
def _inverse_gamma(rng: Rng, shape: float, scale: float) -> float:
    """IG(shape, scale): scale / Gamma(shape, 1); shape 1 is an exponential (one uniform)."""
    if shape == 1.0:
        e = 0.0
        while e == 0.0:                     # uniform() = 0 (p = 2^-53) would divide by zero
            e = -fmath.log(1.0 - uniform(rng))
        return scale / e
    return scale / gamma(rng, shape)


@njit(cache=True, nogil=True)
def horseshoe_update(eta: F64, lam2: F64, nu: F64, tau2: F64, xi: F64, rng: Rng,
                     precision: F64) -> None:
    """One Gibbs pass over every task's scales given the (T, P) weights ``eta``; writes the
    (T, P) prior ``precision`` 1 / (tau_t^2 lambda_tp^2) (bounded by ``VARIANCE_RANGE``)."""
    T, P = eta.shape
    lo, hi = VARIANCE_RANGE
    for t in range(T):
        half_over_tau2 = 0.5 / tau2[t]
        ss = 0.0
        for p in range(P):
            e2 = eta[t, p] * eta[t, p]
            lam2[t, p] = _inverse_gamma(rng, 1.0, 1.0 / nu[t, p] + e2 * half_over_tau2)
            nu[t, p] = _inverse_gamma(rng, 1.0, 1.0 + 1.0 / lam2[t, p])
            ss += e2 / lam2[t, p]
        tau2[t] = _inverse_gamma(rng, 0.5 * (P + 1), 1.0 / xi[t] + 0.5 * ss)
        xi[t] = _inverse_gamma(rng, 1.0, 1.0 + 1.0 / tau2[t])
        for p in range(P):
            precision[t, p] = 1.0 / min(max(tau2[t] * lam2[t, p], lo), hi)
