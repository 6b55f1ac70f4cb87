"""Presets: the models of the papers as defaults of ``SupervisedLDA``, a few lines each.

Each samples its topics with ``sampler="auto"`` (chosen when the model meets its corpus,
``samplers.auto``); its paper's sampler is ``PUBLISHED_SAMPLER``, available by name
(``DOLDA(sampler="partially_collapsed")``) and auto's choice where nothing was measured.
A preset that was measured owns its rows of auto's supervised table by ``MEASURED_AS``: the
model name benchmarks/bench_supervised_time.py runs it as shipped under, which
benchmarks/bench_auto.py files the measurements under (a subclass inherits them). On a corpus
like the measured one (20 Newsgroups, its 20 classes) auto runs the sampler measured best at
equal wall-clock time at the nearest measured K, which need not be the paper's
(docs/samplers.md has the table); on the others, and for a preset without ``MEASURED_AS``,
the paper's. Each docstring names the paper's sampler (a test checks it against
``PUBLISHED_SAMPLER``); ``Session.sampler_choice`` says what auto chose.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..samplers.measured import MeasuredAs
from .base import register
from .supervised import SupervisedLDA

# the hinge presets' lambda: Zheng et al. 2015's on 20 Newsgroups, 11.6 points more accurate
# there than lambda = 1 (20 classes, K = 50, 60 sweeps; benchmarks/results/defaults). The
# normal prior keeps nu = 1: the benchmarks' nu = 4096 (the papers' margin 64 in topicsup's
# unit margin) adds 0.8 points at 60 sweeps and nothing at 30.
HINGE_LAM = 102.4


@register
class MedLDA(SupervisedLDA):
    """Gibbs MedLDA (Zhu et al. 2014; Zheng et al. 2015 sec. 3.1-3.2): hinge loss (lam =
    102.4 by default, ``HINGE_LAM``), normal prior, exact Cholesky weights. The paper's
    topics are exact collapsed Gibbs, ``"gibbs"`` (O(K T) per token), which is also what
    ``sampler="auto"`` measured best at K = 20-100."""

    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"
    MEASURED_AS: ClassVar[MeasuredAs] = MeasuredAs("medlda")
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "auto", "weight_sampler": "cholesky",
                                          "lam": HINGE_LAM}


@register
class LightMedLDA(SupervisedLDA):
    """LightMedLDA (Zheng et al. 2015): hinge loss (lam = 102.4 by default, ``HINGE_LAM``),
    normal prior, coordinate-Gibbs weights (S_gibbs = 2). The paper's topics are
    Metropolis-Hastings proposals, ``"light"``; ``sampler="auto"`` takes them where they were
    measured best (K = 50 and 100 on 20 Newsgroups) and the partially collapsed dense sampler
    where it was (K = 20): ``LightMedLDA(sampler="light")`` runs the MH proposals on any
    corpus, ``LightMedLDA.as_published()`` runs them as the paper did.

    The defaults for the light sampler, used whenever it runs, are the fastest configuration
    measured on 20 Newsgroups (benchmarks/README.md): ``mh_steps`` = S_mh = 6, the doc and
    word proposals in turn (``composition="cycle"``, ``proposal_weights=(1, 1, 0)``: the exp
    proposal off), and the topics, under any sampler, see the hinge's pseudo-likelihood with
    the augmentation integrated out (``supervised_factor="marginal"``). With the light sampler
    at K = 100-400, 20 classes, that reaches 0.79-0.81 test accuracy in 25-35 sweeps where the
    paper's configuration needs 40-60 and ends lower; at K = 20 it ends below it (use Gibbs
    MedLDA there, which is also cheaper per sweep). ``as_published()`` is the paper's
    configuration: the augmented factor and a uniform mixture of the doc, word and exp
    proposals. Both sample the same posterior.
    """

    PUBLISHED_SAMPLER: ClassVar[str] = "light"
    MEASURED_AS: ClassVar[MeasuredAs] = MeasuredAs("lightmedlda")
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "sampler": "auto", "mh_steps": 6, "composition": "cycle", "lam": HINGE_LAM,
        "weight_sampler": "coordinate", "supervised_factor": "marginal",
        "proposal_weights": (1.0, 1.0, 0.0)}

    @classmethod
    def as_published(cls, **params: Any) -> "LightMedLDA":
        """The sampler of Zheng et al. 2015 (sec. 3.3, 5): the augmented factor
        exp(b s - w s^2 / 2) (eq. 15-17) and a uniform mixture of the doc, word and exp
        proposals (eq. 19-21); ``params`` as for ``LightMedLDA`` on top."""
        return cls(**{"sampler": "light", "supervised_factor": "augmented",
                       "composition": "mixture",
                      "proposal_weights": (1.0, 1.0, 1.0), **params})



@register
class GSLDA(SupervisedLDA):
    """gSLDA (Zhu, Zheng, Zhang 2013): the logistic loss with regularisation constant ``c``
    and Polya-Gamma augmentation (``losses.logistic``), normal prior, Cholesky weights. The
    paper's topics are exact collapsed Gibbs, ``"gibbs"``; ``sampler="auto"`` measured the
    partially collapsed sparse sampler on two threads ahead at K = 20-100. c = 1 is the
    standard logistic sLDA; ``GSLDA.plus()`` is gSLDA+ (c = 25)."""

    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"
    MEASURED_AS: ClassVar[MeasuredAs] = MeasuredAs("gslda")
    DEFAULTS: ClassVar[dict[str, Any]] = {"loss": "logistic", "sampler": "auto",
                                          "weight_sampler": "cholesky"}

    @classmethod
    def plus(cls, **params: Any) -> "GSLDA":
        """gSLDA+: the labels weighed up by c = 25, the best mean test accuracy of c in {1, 9,
        25, 100} at K in {10, 20, 50} on 20 Newsgroups' binary task (c = 1 clearly lower, 9 to
        100 flat, as Zhu 2013 Fig. 5; benchmarks/results/gslda_binary); ``params`` on top.
        c = 25 is an integer up to 64, so its Polya-Gamma draws are exact (Devroye)."""
        return cls(**{"c": 25.0, **params})


@register
class LightSLDA(SupervisedLDA):
    """Light-sLDA (Zheng et al. 2015 Fig. 4): gSLDA's logistic loss with the paper's light
    sampler, ``"light"`` (Metropolis-Hastings proposals; ``sampler="auto"`` keeps it, nothing
    else was measured), and coordinate-Gibbs weights."""

    PUBLISHED_SAMPLER: ClassVar[str] = "light"
    DEFAULTS: ClassVar[dict[str, Any]] = {"loss": "logistic", "sampler": "auto", "mh_steps": 6,
                                          "weight_sampler": "coordinate"}



@register
class SLDA(SupervisedLDA):
    """Supervised LDA with a Gaussian response (Blei & McAuliffe 2007): y ~ N(eta . zbar,
    ``sigma2``) (``losses.gaussian``), normal prior, Cholesky weights; the paper's exact
    collapsed Gibbs topics, ``"gibbs"`` (``sampler="auto"`` keeps them: nothing else was
    measured for a response)."""

    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"
    DEFAULTS: ClassVar[dict[str, Any]] = {"loss": "gaussian", "sampler": "auto",
                                          "weight_sampler": "cholesky"}



@register
class MedLDARegression(SupervisedLDA):
    """Max-margin regression (Zheng et al. 2015 sec. 4.2; MedLDA's regression): the
    epsilon-insensitive loss 2 lam max(0, |y - s| - eps) with two inverse-Gaussian
    augmentations (``losses.epsilon_insensitive``), normal prior, Cholesky weights; the
    paper's exact collapsed Gibbs topics, ``"gibbs"`` (``sampler="auto"`` keeps them: nothing
    else was measured for a response)."""

    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"
    DEFAULTS: ClassVar[dict[str, Any]] = {"loss": "epsilon_insensitive", "sampler": "auto",
                                          "weight_sampler": "cholesky"}


@register
class DOLDA(SupervisedLDA):
    """DOLDA (Magnusson, Jonsson, Villani 2020): the diagonal-orthant probit, one task per class
    and no reference class (``losses.do_probit``); the horseshoe prior with its own global
    scale per class (``priors.horseshoe``); an intercept N(0, 100) (``intercept``); the
    paper's partially collapsed sampler, ``"partially_collapsed"``, parallel over documents,
    its label term through the K x K matrix of appendix B (``samplers.partially_collapsed``;
    ``sampler="auto"`` takes it where it was measured best, K = 50-100 on 20 Newsgroups, and
    collapsed Gibbs at K = 20); Cholesky weights; alpha = beta = 0.01 (sec. 5). Covariates, if the corpus has them, enter beside the topic proportions and
    are shrunk like them. ``DOLDA.with_normal_prior()`` is the paper's alternative prior.

    The paper's misprints (docs/math.md sec. 4 and 8), and what is done instead: the weights'
    posterior precision is X^T X + Lambda^-1 with X = (Zbar, 1, covariates) and Lambda the
    prior variances tau_l^2 lambda_lp^2 (App. A prints (X Zbar)^T (X Zbar) and "tau_l^2
    Lambda_l"; ``weight_samplers.cholesky`` with w = 1); the scales are drawn by Makalic and
    Schmidt's inverse-gamma scheme, not the slice samplers whose printed truncation bounds
    (on the old value, the sum squared twice) are wrong, with the global scale's Gamma shape
    counting the shrunk weights only, not the intercept (``kernels.horseshoe``, tested against
    the half-Cauchy and by a joint test); the label term enters the topic step in log space
    through the K x K matrix, never clamped (the reference Java code clamps exp(g)).

    Like the paper's, the sampler fits independent probits per class (the orthant's
    probability prod_l Phi(y_dl s_dl) without its normaliser over the one-class orthants,
    ``losses.do_probit``), so the coefficients are those of that likelihood: on single-label
    data a class's weights, covariate effects included, come out larger than a categorical
    model's. With the intercept only the topic weights' differences are identified;
    ``Session.coefficients`` shows them centred by default (``topicsup.summaries``).

    ``c`` (an integer, 1 in the paper) weighs the labels up (``losses.do_probit``): on 20
    Newsgroups DOLDA as published learns the classes slowly, the labels' unit-variance
    probit being small against a post's words. With the labels weighed up the partially
    collapsed chain mixes far slower than collapsed Gibbs topics (``sampler="gibbs"``,
    serial), which reach MedLDA's accuracy within a few points where it lags
    (benchmarks/results/dolda)."""

    PUBLISHED_SAMPLER: ClassVar[str] = "partially_collapsed"
    MEASURED_AS: ClassVar[MeasuredAs] = MeasuredAs("dolda")
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "loss": "do_probit", "prior": "horseshoe", "sampler": "auto",
        "weight_sampler": "cholesky", "intercept": True, "alpha": 0.01, "beta": 0.01}

    @classmethod
    def with_normal_prior(cls, **params: Any) -> "DOLDA":
        """DOLDA with the normal prior of the paper, eta ~ N(0, 100) (nu = 0.01), in place of
        the horseshoe; ``params`` on top."""
        return cls(**{"prior": "normal", "nu": 0.01, **params})


# every preset above, exported by topicsup.models and topicsup (a new preset is one class here)
# written out, so type checkers see what ``from .presets import *`` brings (a test checks
# that it lists every preset class of the module)
__all__ = ["DOLDA", "GSLDA", "LightMedLDA", "LightSLDA", "MedLDA", "MedLDARegression", "SLDA"]
