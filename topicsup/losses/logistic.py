"""The logistic loss of gSLDA (Zhu, Zheng, Zhang 2013) and its Polya-Gamma augmentation.

With regularisation constant c the pseudo-likelihood of a label y in {-1, +1} (the paper's
y' = (y + 1) / 2 in {0, 1}) given the score s is

    psi(y | s) = exp(c y' s) / (1 + exp(s))^c = (1 + exp(-y s))^-c          (Zhu 2013 eq. 3)

and Polson, Scott and Windle's identity writes it as a scale mixture of Gaussians,

    psi(y | s) = 2^-c exp(kappa s) E_omega[exp(-omega s^2 / 2)],  omega ~ PG(c, 0),
    kappa = c (y' - 1/2) = c y / 2,

so given omega ~ PG(c, s) (the conditional, Zhu 2013 eq. 8) the loss contributes
exp(b s - w s^2 / 2) with (b, w) = (c y / 2, omega) (docs/math.md sec. 1). c = 1 is the standard
logistic sLDA, a proper generative model; c > 1 weighs the labels more (gSLDA+).

The draws come from the ``polyagamma`` package, one vectorised call per sweep, with a numpy
Generator seeded from the session's stream and kept in the chain's state (saved in
checkpoints), so a resumed chain draws what the uninterrupted one would. Which of its methods
(``pg_method``):

* ``"auto"`` (default): ``"devroye"`` when c is an integer no larger than ``EXACT_UP_TO``: an
  exact accept-reject sampler whose cost grows with c (a sum of c PG(1, s) draws); otherwise
  the package's hybrid default, which for h > 50 is a normal approximation and elsewhere uses
  the saddle-point and "alternate" samplers, approximate (its open issue #133 reports a biased
  default for 1 < h < 8). For a non-integer c no exact method exists in the package.
* ``"devroye"`` (integer c only), ``"alternate"``, ``"saddle"``, ``"gamma"`` (a truncated
  sum of gammas): forced. The tests check exactness with ``"devroye"`` at integer c.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from polyagamma import random_polyagamma

from .. import validation as check
from ..arrays import F64, U64, Rng
from ..kernels.rng import next_u64
from . import REGISTRY, Loss

PG_METHODS = ("auto", "devroye", "alternate", "saddle", "gamma")
EXACT_UP_TO = 64   # "auto" draws exactly (devroye) for integer c up to here
DEVROYE_UP_TO = 1024   # a forced devroye costs c PG(1, s) draws per document: refused beyond
# polyagamma 2.0.2 is accurate for |z| up to here: beyond about 200 its Devroye sampler
# returns about 0.16 h whatever z (the true mean is h tanh(z/2) / (2z)), its hybrid returns NaN
# from |z| = 710 and its "alternate" sampler loops forever on NaN; scores of a sound chain
# stay in single digits
SCORE_LIMIT = 150.0
# lower limits where a method's mean goes wrong sooner (measured: the first |z| on a grid where
# the mean of 4,000 draws is 5% off): the hybrid for h <= 50 (its saddle-point branch) from
# |z| = 28 at h = 49.5, "saddle" from 28 at h = 50.5 to 100.5; "gamma" (a truncated sum) falls
# short gradually, 1% at |z| = 20 and 4% at 75; tests/losses/test_logistic.py holds every
# method within 3% at its limit
METHOD_SCORE_LIMITS = {"saddle": 25.0, "gamma": 25.0, "hybrid_small_h": 25.0}
HYBRID_NORMAL_ABOVE = 50.0   # the hybrid's h above which it draws the normal approximation
MAX_W = 1e100


class PolyaGammaState(NamedTuple):
    """The augmentation (b, w) (T, D) and the Polya-Gamma draws' generator state ``generator``
    (PCG64 as 6 uint64 words: state high, low, increment high, low, has_uint32, uinteger)."""

    b: F64
    w: F64
    generator: U64


def _to_words(bit_generator: np.random.PCG64) -> U64:
    st = bit_generator.state
    s, inc = st["state"]["state"], st["state"]["inc"]
    mask = (1 << 64) - 1
    return np.array([s >> 64, s & mask, inc >> 64, inc & mask, st["has_uint32"],
                     st["uinteger"]], dtype=np.uint64)


def _from_words(words: U64) -> np.random.PCG64:
    w = [int(x) for x in words]
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64",
                "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
                "has_uint32": w[4], "uinteger": w[5]}
    return bg


@REGISTRY.register
@dataclass(frozen=True)
class Logistic(Loss):
    """The logistic loss c log(1 + exp(-y s)) of gSLDA with regularisation constant ``c``;
    labels are +-1 per task; Polya-Gamma augmentation drawn by ``pg_method`` (module
    docstring)."""

    name = "logistic"
    SAVED = {"b": "b", "w": "w", "pg_generator": "generator"}

    c: float = 1.0
    pg_method: str = "auto"

    # below it the labels vanish; above it omega ~ c / 4 pins every score
    C_RANGE = (1e-3, 1e5)

    def __post_init__(self) -> None:
        self._bounded("c", self.C_RANGE, "outside it the labels vanish or pin every score")
        object.__setattr__(self, "pg_method", check.choice("pg_method", self.pg_method,
                                                           PG_METHODS))
        if self.pg_method == "devroye" and not float(self.c).is_integer():
            raise ValueError(f"pg_method='devroye' draws PG(c, s) for an integer c only, got "
                             f"c = {self.c}; use pg_method='auto'")
        if self.pg_method == "devroye" and self.c > DEVROYE_UP_TO:
            raise ValueError(f"pg_method='devroye' sums c draws of PG(1, s) for each document: "
                             f"c = {self.c:g} is beyond {DEVROYE_UP_TO} (a sweep would take "
                             f"minutes); use pg_method='auto'")

    @property
    def method(self) -> str | None:
        """The ``polyagamma`` method used (None: the package's hybrid default)."""
        if self.pg_method != "auto":
            return self.pg_method
        return "devroye" if float(self.c).is_integer() and self.c <= EXACT_UP_TO else None

    @property
    def score_limit(self) -> float:
        """The largest |score| whose Polya-Gamma draws by ``method`` are accurate (beyond it
        ``augment`` refuses: a draw there would be silently wrong)."""
        method = self.method
        if method is None:
            return SCORE_LIMIT if self.c > HYBRID_NORMAL_ABOVE \
                else METHOD_SCORE_LIMITS["hybrid_small_h"]
        return METHOD_SCORE_LIMITS.get(method, SCORE_LIMIT)

    @property
    def exact(self) -> bool:
        """Whether the draws are exact (devroye at an integer c)."""
        return self.method == "devroye"

    def allocate(self, T: int, D: int) -> PolyaGammaState:
        return PolyaGammaState(np.zeros((T, D)), np.zeros((T, D)), np.zeros(6, np.uint64))

    def start(self, own: PolyaGammaState, rng: Rng) -> None:
        """Seed the Polya-Gamma generator from the session's stream."""
        own.generator[...] = _to_words(np.random.PCG64(int(next_u64(rng))))

    def augment(self, y: F64, scores: F64, rng: Rng, own: PolyaGammaState) -> None:
        """omega ~ PG(c, s) for every (task, document) in one call; b = c y / 2, w = omega."""
        top, limit = float(np.abs(scores).max(initial=0.0)), self.score_limit
        if not top <= limit:   # also NaN
            raise ValueError(f"a score of magnitude {top:g} is beyond {limit:g}, where the "
                             f"polyagamma package's Polya-Gamma draws (c = {self.c:g}, "
                             f"pg_method={self.pg_method!r}) are wrong or hang (an integer c up "
                             f"to {EXACT_UP_TO}, or pg_method='alternate', draws accurately "
                             f"up to {SCORE_LIMIT:g}): the "
                             f"weights ran away (a weak prior, a tiny nu or the horseshoe's heavy "
                             f"tails, with separable data; or a forged checkpoint); use a "
                             f"larger nu or standardize the covariates")
        bit_generator = _from_words(own.generator)
        gen = np.random.Generator(bit_generator)
        own.w[...] = random_polyagamma(self.c, np.ascontiguousarray(scores), method=self.method,
                                       random_state=gen)
        own.generator[...] = _to_words(bit_generator)
        own.b[...] = 0.5 * self.c * y

    def check_augmentation(self, y: F64, own: PolyaGammaState) -> None:
        """w = omega > 0 finite, b = c y / 2, and a generator state PCG64 accepts."""
        if not (np.isfinite(own.w).all() and (own.w >= 0).all() and (own.w <= MAX_W).all()):
            raise ValueError(f"w must hold the Polya-Gamma draws omega, finite, in "
                             f"[0, {MAX_W:g}]")
        if not np.allclose(own.b, 0.5 * self.c * y, rtol=1e-12, atol=0.0):
            raise ValueError("b is not c y / 2, the logistic augmentation's b")
        g = own.generator
        # PCG64 keeps an odd increment, a flag for a buffered 32-bit half and that half
        if g[3] % 2 == 0 or g[4] > 1 or g[5] >= 2**32:
            raise ValueError("pg_generator is not a PCG64 state (an odd increment, has_uint32 "
                             "0 or 1, uinteger below 2^32)")

    def log_psi(self, y: F64, scores: F64) -> F64:
        """log psi(y | s) = -c log(1 + exp(-y s)), elementwise (stable for any s)."""
        return -self.c * np.logaddexp(0.0, -y * scores)

    def mean_loss(self, y: F64, scores: F64) -> float:
        """Mean log loss log(1 + exp(-y s)) over documents and tasks."""
        return float(np.logaddexp(0.0, -y * scores).mean()) if y.size else float("nan")
