"""The diagonal-orthant probit of DOLDA (Magnusson, Jonsson, Villani 2020 sec. 3; Johndrow,
Lum and Dunson 2013), one task per class and no reference class.

Each document has a latent a_dl ~ N(s_dl, 1) per class l, and its class is the one orthant
coordinate that is positive: a_dl > 0 for l = y_d and a_dl < 0 for every other l. Given the
scores, the a_dl are independent truncated normals, so the augmentation is (b, w) = (a, 1)
(docs/math.md sec. 1) and, because w = 1 for every document, the topic kernels can sum the label
term through DOLDA's K x K matrix (appendix B; ``samplers.partially_collapsed``).

Which likelihood. The augmented sampler targets p(y | s) = prod_l Phi(y_dl s_dl) with y_dl =
+1 for the document's class and -1 for the others: the orthant's probability, without the
normaliser Z(s) = sum_j Phi(s_j) prod_{l != j} Phi(-s_l) over the one-class orthants
(Johndrow et al. 2013 use the same unnormalised form). That is what ``log_psi`` returns and
what the log joint adds, so the log joint is the density the chain samples. Class
probabilities for prediction are normalised (``class_probabilities``, DOLDA sec. 4.4); their
argmax is the argmax of the scores, since Phi(s_j) / Phi(-s_j) increases in s_j. For binary
labels (T = 1) this is the ordinary probit, and for multi-label ones independent probits per
class, both proper generative models (the joint tests use them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange, uint64
from scipy.special import log_ndtr

from .. import validation as check
from ..arrays import F64, Rng
from ..kernels.draws import normal_above
from ..kernels.rng import derive_into, next_u64
from . import REGISTRY, Augmentation, Loss


CHUNK = 64   # documents per parallel unit, each on its own stream


@njit(cache=True, nogil=True, parallel=True)
def do_probit_augment(y: F64, scores: F64, c: int, key: Rng, b: F64, w: F64) -> None:
    """``c`` latents a_j ~ N(s, 1) truncated to (0, inf) where y = +1 and to (-inf, 0) where
    y = -1, elementwise over (T, D); then b = sum_j a_j, w = c (c = 1: DOLDA's a and 1).

    a = s + x with x >= -s (a standard normal above -s), or a = s - x with x >= s. Parallel
    over chunks of ``CHUNK`` documents, chunk j on the stream of label j under ``key``
    (``rng.derive_into``), so the draws do not depend on the number of threads."""
    T, D = scores.shape
    for j in prange((D + CHUNK - 1) // CHUNK):
        rng = np.empty(4, np.uint64)
        derive_into(key, uint64(j), rng)
        for d in range(j * CHUNK, min(D, (j + 1) * CHUNK)):
            for t in range(T):
                s = scores[t, d]
                total = 0.0
                for _ in range(c):
                    if y[t, d] > 0.0:
                        total += s + normal_above(rng, -s)
                    else:
                        total += s - normal_above(rng, s)
                b[t, d] = total
                w[t, d] = c


def stream_key(rng: Rng) -> Rng:
    """A key for ``do_probit_augment``'s per-chunk streams, drawn from the chain's stream."""
    return np.array([next_u64(rng) for _ in range(4)], dtype=np.uint64)


def class_probabilities(scores: F64) -> F64:
    """P(y = j | s) = Phi(s_j) prod_{l != j} Phi(-s_l) / Z(s) for decision scores (D, T), one
    row per document as prediction gives them (the augmentation's are (T, D), ``Loss``), rows
    summing to one (DOLDA sec. 4.4), computed in log space so extreme scores do not
    underflow."""
    scores = np.asarray(scores, dtype=np.float64)
    # log Phi(s_j) - log Phi(-s_j) + sum_l log Phi(-s_l), normalised over j
    logit = log_ndtr(scores) - log_ndtr(-scores)
    logit -= logit.max(axis=1, keepdims=True)
    p = np.exp(logit)
    return p / p.sum(axis=1, keepdims=True)


@REGISTRY.register
@dataclass(frozen=True)
class DOProbit(Loss):
    """The diagonal-orthant probit of DOLDA: a_dl ~ N(s_dl, 1) truncated by the document's
    class, (b, w) = (a, 1); labels +-1 per task (the class against the rest).

    ``c`` (an integer, 1 in DOLDA) weighs the labels up as gSLDA's c does the logistic's
    (Zhu, Zheng, Zhang 2013): the pseudo-likelihood Phi(y s)^c, the probit of c copies of
    the label, augmented exactly by c independent latents with the same truncation, (b, w) =
    (sum_j a_j, c). The latent's unit variance fixes the scale of the weights, so c is the
    one way to make the labels count for more against a document's words."""

    name = "do_probit"

    c: int = 1

    C_RANGE = (1, 1024)   # each (document, class) draws c truncated normals per sweep
    # a latent beyond it needs a score beyond it, which the weights' draws never reach; in a
    # forged file it would overflow the label term exp(b eta / N) of the topic kernels
    MAX_LATENT = 1e6

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", check.integer("c", self.c, low=self.C_RANGE[0],
                                                    high=self.C_RANGE[1]))

    def augment(self, y: F64, scores: F64, rng: Rng, own: Augmentation) -> None:
        """Draw the truncated-normal latents a given the scores; write (b, w) = (sum a, c).
        A non-finite score (weights run away, a forged state) is refused: the truncated
        normal's proposal would never accept."""
        if not np.isfinite(scores).all():
            t, d = (int(i[0]) for i in np.nonzero(~np.isfinite(scores)))
            raise ValueError(f"the score of task {t}, document {d} is {scores[t, d]}: the "
                             f"DO-probit's latents need finite scores (the weights ran away)")
        do_probit_augment(y, scores, self.c, stream_key(rng), own.b, own.w)

    def check_augmentation(self, y: F64, own: Augmentation) -> None:
        """w = c and b = the latents' sum on the side of zero the label says, each latent
        within ``MAX_LATENT`` (a saved chain is untrusted)."""
        if not (own.w == self.c).all():
            raise ValueError(f"w must be c = {self.c} everywhere (the latents' count)")
        bad = ~(np.isfinite(own.b) & (own.b * y >= 0.0)
                & (np.abs(own.b) <= self.c * self.MAX_LATENT))
        if bad.any():
            t, d = (int(i[0]) for i in np.nonzero(bad))
            raise ValueError(f"b holds the latents' sum, which must be finite, at most c x "
                             f"{self.MAX_LATENT:g} in size, >= 0 for the document's class and "
                             f"<= 0 for the others; task {t}, document {d} has "
                             f"a = {own.b[t, d]} with label {y[t, d]:+g}")

    def log_psi(self, y: F64, scores: F64) -> F64:
        """c log Phi(y s), elementwise: the orthant's probability per class (unnormalised over
        classes; the module docstring says why)."""
        return self.c * log_ndtr(y * scores)

    def mean_loss(self, y: F64, scores: F64) -> float:
        """-log Phi(y s) per document and task."""
        return float(-log_ndtr(y * scores).mean()) if y.size else float("nan")

    def slope_at_zero(self, y: F64) -> F64:
        """d c log Phi(y s) / ds at s = 0: c y phi(0) / Phi(0) = c y sqrt(2 / pi)."""
        return self.c * math.sqrt(2.0 / math.pi) * np.asarray(y, dtype=np.float64)
