"""The logistic-normal topic model with prevalence covariates: each document's topic
proportions are theta_d = softmax(eta_d), eta_dk ~ N(x_d . gamma_k, sigma_k^2), the features
x_d DMR's (the document's class as indicators, its covariates). This is R stm's prior on theta
(Roberts et al. 2014) with a diagonal covariance, sampled exactly (``kernels.logistic_normal``,
docs/math.md sec. 16) instead of stm's Laplace approximation.

Why beside DMR: a Dirichlet fitted to proportions that are not Dirichlet is too sure of a
class's spread, and DMR's prevalence intervals under-cover on logistic-normal proportions
(docs/prevalence.md); here the spread of each topic's log weight around its class's mean is
a parameter of its own, sigma_k, learned from the documents.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .. import validation as check
from ..arrays import F64, I64, Row, Rng
from ..corpus import Corpus
from ..history import STEP_SECONDS
from ..kernels import logistic_normal as ln
from ..kernels.fold_in import content_labels
from ..kernels.loglik import lda_topic_part
from ..problem import Problem, State
from .base import register
from .dmr import DMR, SIGMA_RANGE, Design
from .lda import FOLD_IN_BURN, FOLD_IN_KEEP, _under

NOISE_RANGE = (1e-3, 1e3)   # the inverse-gamma prior's shape and scale
# what a saved state may hold: beyond these the slice step's current density underflows to
# -inf ((eta - mu)^2 / sigma^2 past 1e308) and no point of the slice is ever accepted (a
# hang); a chain stays far inside them (eta and gamma of order 10, sigma^2 above 1e-10 even
# at 10^7 documents)
STATE_BOUND = 1e6            # |eta_dk| and |gamma_fk|
VARIANCE_RANGE = (1e-12, 1e12)


class LogisticNormalPrior(NamedTuple):
    """The documents' prior in the state: the chain's ``eta`` (D, K), ``lam`` (F, K) (the
    coefficients gamma, named as DMR's lambda so the prior's read-out and heatmap read both)
    and ``var`` (K,) (sigma_k^2); what derives from them: ``theta`` (D, K) = softmax(eta),
    ``mean`` (D, K) = X gamma; the design, X^T X, the documents' lengths and the last eta
    sweep's density evaluations."""

    eta: F64
    lam: F64
    var: F64
    theta: F64
    mean: F64
    design: Design
    xtx: F64
    n_d: I64


@register
class LogisticNormal(DMR):
    """Logistic-normal topic model with prevalence covariates (stm's prior, diagonal
    covariance): theta_d = softmax(eta_d), eta_dk ~ N(x_d . gamma_k, sigma_k^2), gamma_fk ~
    N(0, ``sigma``^2), sigma_k^2 ~ InvGamma(``noise_shape``, ``noise_scale``); every step
    exact (topics given eta; eta by slice sampling; gamma and sigma^2 from their conjugate
    conditionals).

    Parameters
    ----------
    K : int
        Number of topics.
    beta : float
        Symmetric topic-word Dirichlet parameter.
    sigma : float
        Prior standard deviation of every coefficient gamma_fk (default 3): how far a class's
        mean log weight of a topic may sit from 0, and a covariate's effect per unit on it.
    noise_shape, noise_scale : float
        The inverse-gamma prior of each topic's variance sigma_k^2 around its mean (default
        2 and 1: prior mean 1, a topic's weight in documents of one class varying by a factor
        of about e). The shape must stay above 1 for the prior to have a mean; with shape 1
        short documents' spread is barely pinned and the prevalence intervals on 10-30-token
        documents cover 0.867 where the default's cover 0.884 (docs/prevalence.md).
    prevalence : {"classes+covariates", "classes", "covariates", "none"}
        The features, as DMR's: the corpus's classes and/or covariates; ``"none"``: an
        intercept only (a logistic-normal LDA).
    sampler : {"gibbs"}
        The topics given eta, O(K) per token.
    """

    OWN: ClassVar[dict[str, Any]] = {"sigma": 3.0, "noise_shape": 2.0, "noise_scale": 1.0,
                                     "prevalence": "classes+covariates"}
    REMOVED = ("alpha", "lambda_every")
    PRIOR_SCALE: ClassVar[str] = "mean of eta"   # gamma, on the log weights' scale

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own["alpha"], own["lambda_every"] = 0.1, 1   # DMR's checks read them; this has none
        own = super()._check_own(own)
        del own["alpha"], own["lambda_every"]
        for name in ("noise_shape", "noise_scale"):
            own[name] = check.number(name, own[name], low=NOISE_RANGE[0],
                                     high=NOISE_RANGE[1])
        own["sigma"] = check.number("sigma", own["sigma"], low=SIGMA_RANGE[0],
                                    high=SIGMA_RANGE[1])
        return own

    @property
    def alpha_vector(self) -> np.ndarray:
        raise AttributeError("LogisticNormal has no alpha: its documents' prior is "
                             "the logistic normal of eta (state.prior)")

    def dirichlet(self) -> tuple[F64, bool]:
        return np.zeros(0), True   # no Dirichlet on theta: nothing to bind

    @property
    def views(self) -> tuple[str, ...]:
        # convergence, where each class leans (gamma), throughput, the time split
        return ("loglik", "prior", "throughput", "time")

    # ------------------------------------------------------------------ state
    def state_bytes(self, problem: Problem) -> float:
        return super().state_bytes(problem) + 16.0 * problem.n_docs * self.K

    def allocate_state(self, problem: Problem) -> State:
        state = super(DMR, self).allocate_state(problem)
        design = self.design(problem.corpus)
        D, F, K = problem.n_docs, len(design.names), self.K
        xtx = ln.gram(design.row_ptr, design.row_col, design.row_val, F)
        # the start: every eta and coefficient 0 (theta uniform), every sigma_k 1
        state.prior = LogisticNormalPrior(np.zeros((D, K)), np.zeros((F, K)), np.ones(K),
                                          np.full((D, K), 1.0 / K), np.zeros((D, K)),
                                          design, xtx,
                                          problem.corpus.doc_lengths.astype(np.int64))
        return state

    def refresh_state(self, state: State, problem: Problem) -> None:
        super(DMR, self).refresh_state(state, problem)
        p = state.prior
        ln.refresh_theta(p.eta, p.theta)
        ln.refresh_mean(p.design.row_ptr, p.design.row_col, p.design.row_val, p.lam, p.mean)

    def saved_paths(self) -> dict[str, str]:
        return {"z": "counts.z", "ln_eta": "prior.eta", "ln_gamma": "prior.lam",
                "ln_variance": "prior.var",
                **_under("sampler", self.topic_sampler.saved_fields())}

    def validate_state(self, state: State, problem: Problem) -> None:
        """Beyond LDA's: eta and gamma finite and within +-``STATE_BOUND``, every sigma_k^2
        finite, positive and within ``VARIANCE_RANGE`` (a saved state is untrusted: outside
        these the eta step would never end)."""
        super(DMR, self).validate_state(state, problem)
        p = state.prior
        for name, value in (("ln_eta", p.eta), ("ln_gamma", p.lam)):
            if not np.isfinite(value).all():
                raise ValueError(f"state/{name} must hold finite numbers")
            if value.size and np.abs(value).max() > STATE_BOUND:
                raise ValueError(f"state/{name} must lie within +-{STATE_BOUND:g}, got "
                                 f"{np.abs(value).max():g}")
        if not (np.isfinite(p.var).all() and (p.var > 0).all()):
            raise ValueError("state/ln_variance must hold finite positive variances")
        low, high = VARIANCE_RANGE
        if p.var.size and (p.var.min() < low or p.var.max() > high):
            raise ValueError(f"state/ln_variance must lie in [{low:g}, {high:g}], got "
                             f"{p.var.min():g} to {p.var.max():g}")

    # ------------------------------------------------------------------ sampling
    def coefficient_precision(self) -> float:
        """The prior precision 1 / sigma^2 of every coefficient gamma_fk."""
        return 1.0 / float(self.sigma) ** 2

    def sweep_block(self, state: State, problem: Problem, rng: Rng, d_start: int,
                    d_end: int, info: F64, backend: Any = None) -> None:
        state.topics_moved()
        scratch = np.empty((2, self.K))
        ln.gibbs_sweep(problem.tokens, state.counts, state.prior.theta, problem.beta,
                       scratch, rng, d_start, d_end, info)

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """The documents' prior given z, in order: eta (slice sampling), gamma given eta,
        sigma^2 given eta and gamma, then theta and the means from them. History rows: its
        seconds (``seconds_prior``, the time split's prior step), the mean sigma_k and the
        eta step's density evaluations per coordinate."""
        p, d = state.prior, state.prior.design
        t0 = time.perf_counter()
        width = np.sqrt(p.var)
        n = ln.eta_sweep(state.counts.n_dk, p.n_d, p.eta, p.mean, 1.0 / p.var, width, 0,
                         problem.n_docs, rng)
        ln.gamma_draw(d.row_ptr, d.row_col, d.row_val, p.xtx, p.eta, p.var,
                      np.zeros_like(p.lam), self.coefficient_precision(), p.lam, rng)
        ln.refresh_mean(d.row_ptr, d.row_col, d.row_val, p.lam, p.mean)
        ln.variance_draw(p.eta, p.mean, float(self.noise_shape), float(self.noise_scale),
                         p.var, rng)
        ln.refresh_theta(p.eta, p.theta)
        return [{"metric": STEP_SECONDS + "prior", "value": time.perf_counter() - t0,
                 "proposal": None},
                {"metric": "mean_sigma", "value": float(np.sqrt(p.var).mean()),
                 "proposal": None},
                {"metric": "slice_evaluations", "value": n / max(p.eta.size, 1),
                 "proposal": None}]

    def log_joint(self, state: State, problem: Problem) -> float:
        """log p(W, Z, eta, gamma, sigma^2): the topics' collapsed part, the documents' (their
        tokens' log theta and eta's Gaussian), gamma's Gaussian prior and sigma^2's inverse
        gamma."""
        t, p = problem.tokens, state.prior
        topics = lda_topic_part(state.counts.z, t.word_ptr, t.word_tok, state.counts.n_k,
                                problem.beta)
        docs = ln.doc_log_joint(t.doc_ptr, state.counts.z, p.eta, p.theta, p.mean, p.var)
        s2 = self.sigma ** 2
        coefficients = -0.5 * float((p.lam ** 2).sum()) / s2 \
            - 0.5 * p.lam.size * float(np.log(2 * np.pi * s2))
        a, b = float(self.noise_shape), float(self.noise_scale)
        from scipy.special import gammaln
        variances = float((a * np.log(b) - gammaln(a) - (a + 1) * np.log(p.var)
                           - b / p.var).sum())
        return float(topics + docs + coefficients + variances)

    # ------------------------------------------------------------------ estimates
    def doc_prior(self, state: State, problem: Problem) -> np.ndarray:
        """The documents' mean theta (K,): a summary (the prior differs by document)."""
        return state.prior.theta.mean(axis=0)

    def doc_alpha_rows(self, state: State, problem: Problem) -> F64 | None:
        return None

    def theta_draw(self, state: State, problem: Problem) -> F64:
        """The chain's theta (D, K), a copy: softmax(eta) at this sweep, a draw of theta
        from its posterior (``PrevalenceDraws`` reads it instead of drawing a Dirichlet)."""
        return np.array(state.prior.theta)

    def doc_topic_rows(self, state: State, problem: Problem, lo: int, hi: int) -> np.ndarray:
        """The documents' theta at this sweep (softmax eta): a draw, not an average."""
        return np.array(state.prior.theta[lo:hi])

    def heldout_alpha(self, state: State, problem: Problem, corpus: Corpus) -> F64:
        raise TypeError("LogisticNormal has no alpha: held-out documents are folded in with "
                        "the means of eta from their features (fold_in)")

    def heldout_mean(self, state: State, problem: Problem, corpus: Corpus) -> F64:
        """The means of eta (D, K) of a held-out ``corpus``'s documents from their features
        (``heldout_design``: the training corpus's classes, the same covariates) and the
        current gamma."""
        design = self.heldout_design(state, corpus)
        mean = np.empty((corpus.n_docs, self.K))
        ln.refresh_mean(design.row_ptr, design.row_col, design.row_val, state.prior.lam,
                        mean)
        return mean

    def fold_in(self, state: State, problem: Problem, corpus: Corpus, rng: np.ndarray,
                n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                phi_wk: np.ndarray | None = None, alpha: F64 | None = None) -> np.ndarray:
        """Held-out topic proportions (D, K): the mean of theta_d over ``n_keep`` sweeps of
        exact Gibbs over (z_d, eta_d) after ``n_burn``, with the topics, gamma and sigma
        fixed and each document's mean of eta from its features (``kernels.logistic_normal.
        fold_in``)."""
        if alpha is not None:
            raise TypeError("LogisticNormal has no alpha: fold_in takes none")
        V = state.counts.n_wk.shape[0]
        check.allocation(f"folding in with K = {self.K} topics",
                         8.0 * V * self.K + 24.0 * corpus.n_docs * self.K)
        if phi_wk is None:
            phi_wk = self.topic_word(state, problem).T
        if phi_wk.shape != (V, self.K):
            raise ValueError(f"phi_wk must have shape (V, K) = ({V}, {self.K}), "
                             f"got {phi_wk.shape}")
        mean = self.heldout_mean(state, problem, corpus)
        var = state.prior.var
        out = np.zeros((corpus.n_docs, self.K))
        ln.fold_in(corpus.words, corpus.doc_ptr, np.ascontiguousarray(phi_wk, np.float64),
                   mean, 1.0 / var, np.sqrt(var), int(n_burn), int(n_keep), rng,
                   content_labels(corpus.words, corpus.doc_ptr),
                   np.zeros(corpus.n_tokens, np.int32), out)
        return out

    def completion_log_likelihood(self, state: State, problem: Problem, corpus: Corpus,
                                  rng: np.ndarray, n_burn: int = FOLD_IN_BURN,
                                  n_keep: int = FOLD_IN_KEEP) -> tuple[float, int]:
        raise TypeError("LogisticNormal has no document completion (held-out perplexity) "
                        "yet: its split needs the Dirichlet smoothing LDA and DMR use; fold "
                        "documents in with transform/fold_in, or compare models with DMR")
