"""DMR: Dirichlet-multinomial regression topic model (Mimno & McCallum 2008; tomotopy's
``DMRModel``, R stm's prevalence covariates in spirit). Each document's prior on its topic
proportions depends on its class and covariates, alpha_d = exp(x_d lambda), so documents of a
class are shrunk towards their class's mix of topics, not the corpus's: the model to ask for
prevalence by class (docs/prevalence.md). lambda is sampled (``kernels.dmr.lambda_sweep``,
exact slice sampling), not optimised; docs/math.md sec. 15.

The features x_d (``design``): with single-label classes one indicator per class (each class
its own log alpha, prior mean log ``alpha``), else an intercept (prior mean log ``alpha``)
plus one indicator per class of a multi-label corpus; then the corpus's covariates as given
(prior mean 0). Every coordinate's prior is N(mean, ``sigma``^2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, I64, Rng, Row
from ..corpus import Corpus
from ..history import STEP_SECONDS
from ..kernels import dmr, fmath
from ..kernels.fold_in import content_labels
from ..kernels.loglik import lda_topic_part
from ..parts import OwnParts, Registry
from ..problem import Problem, State
from ..samplers import TopicSampler
from .base import register
from .lda import FOLD_IN_BURN, FOLD_IN_KEEP, LDA, _under, document_completion

PREVALENCE = ("classes+covariates", "classes", "covariates", "none")
SIGMA_RANGE = (1e-3, 1e3)
INTERCEPT = "intercept"


@dataclass(frozen=True)
class DMRGibbs(TopicSampler):
    """The exact collapsed conditional with each document's own alpha_d, O(K) per token
    (``kernels.dmr.gibbs_sweep``); lambda by slice sampling once per sweep."""

    name = "gibbs"
    supports_supervision = False

    def sweep(self, problem: Problem, counts: Any, own: Any, term: Any, supervised: bool,
              rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        raise TypeError("DMR's sampler reads the documents' alpha from the state: call "
                        "DMR.sweep_block")


SAMPLERS = OwnParts("sampler", DMRGibbs)


class Design(NamedTuple):
    """The features X (D, F) by documents (CSR) and by features (CSC), their names and the
    prior means' rows: which features carry the base log alpha."""

    names: tuple[str, ...]
    base: np.ndarray       # (F,) bool: a feature whose prior mean is log alpha
    row_ptr: I64
    row_col: I32
    row_val: F64
    col_ptr: I64
    col_doc: I32
    col_val: F64


class DMRPrior(NamedTuple):
    """The documents' prior in the state: ``lam`` (F, K), the chain's (saved); what derives
    from it and the corpus: ``alpha`` (D, K) = exp(X lam), ``alpha_sum`` (D,), the design,
    the prior's means (F, K), inverse variances and slice widths (F,), the documents' lengths
    and the density evaluations of the last lambda sweep (``evaluations`` (1,))."""

    lam: F64
    alpha: F64
    alpha_sum: F64
    design: Design
    mu: F64
    inv_var: F64
    width: F64
    n_d: I64


@register
class DMR(LDA):
    """Dirichlet-multinomial regression: LDA whose documents' Dirichlet parameters depend on
    their features, alpha_dk = exp(x_d . lambda_k), lambda_fk ~ N(m_f, sigma^2) (Mimno &
    McCallum 2008), with lambda sampled exactly.

    Parameters
    ----------
    K : int
        Number of topics.
    alpha : float or sequence of float
        The base Dirichlet parameter: exp of the prior mean of each class's (or the
        intercept's) lambda, one value or K values (default 0.1, tomotopy's).
    beta : float
        Symmetric topic-word Dirichlet parameter.
    sigma : float
        Prior standard deviation of every lambda_fk (default 1.0, tomotopy's): how far a
        class's log alpha may move from log ``alpha``, and a covariate's effect per unit on
        log alpha. Standardise covariates so that one unit means something comparable.
    prevalence : {"classes+covariates", "classes", "covariates", "none"}
        The features: the corpus's classes and/or covariates (default both, whichever the
        corpus has); ``"none"``: an intercept only (LDA with an asymmetric alpha sampled).
    lambda_every : int
        Sweeps between two updates of lambda (default 1: after every sweep). Each update is
        exact and so is each topic sweep, so any fixed schedule leaves the posterior
        invariant; lambda's slice sampling is most of a sweep's time at 20 classes (65-70% on
        20 Newsgroups, benchmarks/results/dmr), and every 10 sweeps is tomotopy's schedule
        for its optimisation.
    sampler : {"gibbs"}
        The exact collapsed conditional with the document's alpha, O(K) per token.
    """

    OWN: ClassVar[dict[str, Any]] = {"sigma": 3.0, "prevalence": "classes+covariates",
                                     "lambda_every": 1}
    ROLES: ClassVar[dict[str, Registry[Any]]] = {"sampler": SAMPLERS}
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "gibbs"}
    learns_prior: ClassVar[bool] = False   # lambda is part of the chain, not optimised
    PRIOR_SCALE: ClassVar[str] = "log alpha"   # what lambda is on (the prior's read-out)

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own = super()._check_own(own)
        own["sigma"] = check.number("sigma", own["sigma"], low=SIGMA_RANGE[0],
                                    high=SIGMA_RANGE[1])
        own["prevalence"] = check.choice("prevalence", own["prevalence"], PREVALENCE)
        own["lambda_every"] = check.integer("lambda_every", own["lambda_every"], low=1,
                                            high=2**31)
        return own

    @property
    def views(self) -> tuple[str, ...]:
        # convergence, where each class leans (lambda), throughput, and the time split
        # between the topics and lambda
        return ("loglik", "prior", "throughput", "time")

    # ------------------------------------------------------------------ the design
    def design(self, corpus: Corpus, classes: tuple[str, ...] | None = None) -> Design:
        """The features of ``corpus``'s documents. ``classes``: for a held-out corpus, the
        class names the model was fitted with (() when it was fitted without classes), which
        its labels must have in the same order; None: this corpus's own."""
        D = corpus.n_docs
        use = self.prevalence
        labels = corpus.labels
        want_classes = use in ("classes", "classes+covariates") and classes != ()
        # the non-zeros (document, feature, value) feature by feature, never a dense (D, F)
        # matrix: 10^6 documents of 240 classes would be 1.9 GB of it for 10^6 non-zeros
        rows: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        feats: list[np.ndarray] = []
        names: list[str] = []
        base: list[bool] = []
        every = np.arange(D, dtype=np.int64)

        def add(docs: np.ndarray, values: np.ndarray | float, name: str, carries: bool
                ) -> None:
            rows.append(docs)
            vals.append(np.broadcast_to(np.asarray(values, np.float64), docs.shape))
            feats.append(np.full(docs.shape[0], len(names), np.int64))
            names.append(name)
            base.append(carries)

        if want_classes and labels is not None and labels.kind != "real":
            own = tuple(labels.classes)
            if classes is not None and own != classes:
                raise ValueError(f"corpus has the classes {list(own)[:8]}, the model was "
                                 f"fitted with {list(classes)[:8]}: DMR's prior reads the "
                                 f"same classes in the same order")
            if labels.kind == "multilabel":
                add(every, 1.0, INTERCEPT, True)
                docs, cls = np.nonzero(np.asarray(labels.values))
                value = np.asarray(labels.values)[docs, cls].astype(np.float64)
            else:   # one class each: a column per class, each with the base as its mean
                docs, cls = every, np.asarray(labels.values, dtype=np.int64)
                value = np.ones(D)
            by_class = np.argsort(cls, kind="stable")
            cuts = np.searchsorted(cls[by_class], np.arange(len(own) + 1))
            for c, name in enumerate(own):
                pick = by_class[cuts[c]:cuts[c + 1]]
                add(docs[pick], value[pick], f"class={name}", labels.kind != "multilabel")
        elif use == "classes" or (want_classes and classes):
            raise ValueError(f"corpus has no class labels: DMR(prevalence={use!r}) reads "
                             f"each document's class")
        if not names:
            add(every, 1.0, INTERCEPT, True)
        if use in ("covariates", "classes+covariates") and corpus.covariates is not None:
            for j, name in enumerate(corpus.covariate_names):
                x = np.asarray(corpus.covariates[:, j], dtype=np.float64)
                if not np.isfinite(x).all():
                    raise ValueError("corpus covariates must be finite")
                docs = np.flatnonzero(x)
                add(docs, x[docs], str(name), False)
        elif use == "covariates":
            raise ValueError("corpus has no covariates: DMR(prevalence='covariates') reads "
                             "each document's covariates")
        return _sparse(np.concatenate(rows), np.concatenate(feats), np.concatenate(vals),
                       D, tuple(names), np.array(base))

    def _alpha_rows(self, lam: F64, design: Design, n_docs: int) -> tuple[F64, F64]:
        alpha, alpha_sum = np.empty((n_docs, self.K)), np.empty(n_docs)
        dmr.refresh_alpha(design.row_ptr, design.row_col, design.row_val, lam, alpha,
                          alpha_sum)
        return alpha, alpha_sum

    # ------------------------------------------------------------------ state
    def state_bytes(self, problem: Problem) -> float:
        return super().state_bytes(problem) + 8.0 * problem.n_docs * (self.K + 8)

    def allocate_state(self, problem: Problem) -> State:
        state = super().allocate_state(problem)
        design = self.design(problem.corpus)
        F = len(design.names)
        # log alpha by the project's own log: the prior's mean decides slice steps, so its
        # bits must not depend on the machine's libm or numpy's SIMD loops (docs/math.md 14)
        log_alpha = np.array([fmath.log(float(a)) for a in self.alpha_vector])
        mu = np.where(design.base[:, None], log_alpha[None, :], 0.0)
        lam = mu.copy()   # the start: every document's alpha the base alpha
        alpha, alpha_sum = self._alpha_rows(lam, design, problem.n_docs)
        state.prior = DMRPrior(lam, alpha, alpha_sum, design, mu,
                               np.full(F, 1.0 / self.sigma ** 2), np.full(F, float(self.sigma)),
                               problem.corpus.doc_lengths.astype(np.int64))
        return state

    def refresh_state(self, state: State, problem: Problem) -> None:
        super().refresh_state(state, problem)
        p = state.prior
        dmr.refresh_alpha(p.design.row_ptr, p.design.row_col, p.design.row_val, p.lam,
                          p.alpha, p.alpha_sum)

    def saved_paths(self) -> dict[str, str]:
        return {"z": "counts.z", "dmr_lambda": "prior.lam",
                **_under("sampler", self.topic_sampler.saved_fields())}

    def validate_state(self, state: State, problem: Problem) -> None:
        """Beyond LDA's: lambda finite and every document's alpha within the Dirichlet
        range (the support of the prior the slice sampler keeps to)."""
        super().validate_state(state, problem)
        p = state.prior
        if not np.isfinite(p.lam).all():
            raise ValueError("state/dmr_lambda must hold finite numbers")
        d = p.design
        alpha, _ = self._alpha_rows(p.lam, d, problem.n_docs)
        if alpha.size and (alpha.min() < dmr.ALPHA_LOW * (1 - 1e-9)
                           or alpha.max() > dmr.ALPHA_HIGH * (1 + 1e-9)):
            raise ValueError(f"state/dmr_lambda gives documents an alpha outside "
                             f"[{dmr.ALPHA_LOW:g}, {dmr.ALPHA_HIGH:g}] (the prior's support)")

    # ------------------------------------------------------------------ sampling
    def sweep_block(self, state: State, problem: Problem, rng: Rng, d_start: int,
                    d_end: int, info: F64, backend: Any = None) -> None:
        state.topics_moved()
        scratch = np.empty((2, self.K))
        dmr.gibbs_sweep(problem.tokens, state.counts, state.prior.alpha, problem.beta,
                        scratch, rng, d_start, d_end, info)

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """lambda given z (``kernels.dmr.lambda_sweep``) after every ``lambda_every``-th
        sweep; history rows: its seconds (the time split's ``seconds_lambda``), the mean of
        the documents' alpha sums and, when drawn, the density evaluations per coordinate."""
        p, d = state.prior, state.prior.design
        if sweep % self.lambda_every:
            return [{"metric": STEP_SECONDS + "lambda", "value": 0.0, "proposal": None},
                    {"metric": "mean_alpha_sum", "value": float(p.alpha_sum.mean()),
                     "proposal": None}]
        t0 = time.perf_counter()
        n = dmr.lambda_sweep(d.col_ptr, d.col_doc, d.col_val, d.row_ptr, d.row_col,
                             d.row_val, state.counts.n_dk, p.n_d, p.lam, p.mu, p.inv_var,
                             p.width, p.alpha, p.alpha_sum, rng)
        return [{"metric": STEP_SECONDS + "lambda", "value": time.perf_counter() - t0,
                 "proposal": None},
                {"metric": "mean_alpha_sum", "value": float(p.alpha_sum.mean()),
                 "proposal": None},
                {"metric": "slice_evaluations", "value": n / max(p.lam.size, 1),
                 "proposal": None}]

    def log_joint(self, state: State, problem: Problem) -> float:
        """log p(W, Z, lambda): the topics' collapsed part, the documents' with their own
        alpha (``kernels.dmr.doc_log_likelihood``) and lambda's Gaussian prior."""
        t, p = problem.tokens, state.prior
        topics = lda_topic_part(state.counts.z, t.word_ptr, t.word_tok, state.counts.n_k,
                                problem.beta)
        docs = dmr.doc_log_likelihood(t.doc_ptr, state.counts.z, p.alpha, p.alpha_sum)
        prior = -0.5 * float(((p.lam - p.mu) ** 2 * p.inv_var[:, None]).sum()) \
            + 0.5 * p.lam.shape[1] * float(np.log(p.inv_var / (2 * np.pi)).sum())
        return float(topics + docs + prior)

    # ------------------------------------------------------------------ estimates
    def doc_prior(self, state: State, problem: Problem) -> np.ndarray:
        """The documents' mean alpha (K,): what a document without features would be given
        is not defined, so this is only a summary; per document see ``doc_prior_rows``."""
        return state.prior.alpha.mean(axis=0)

    def doc_alpha_rows(self, state: State, problem: Problem) -> F64 | None:
        return np.array(state.prior.alpha)

    def doc_topic_rows(self, state: State, problem: Problem, lo: int, hi: int) -> np.ndarray:
        a = state.prior.alpha[lo:hi]
        n_dk = self.doc_topic_count_rows(state, problem, lo, hi)
        return (n_dk + a) / (n_dk.sum(axis=1, keepdims=True) + a.sum(axis=1, keepdims=True))

    def heldout_design(self, state: State, corpus: Corpus) -> Design:
        """The features of a held-out ``corpus``'s documents: the training corpus's classes
        in the same order, the same covariates (refused by name otherwise)."""
        fitted = state.prior.design.names
        classes = tuple(n[len("class="):] for n in fitted if n.startswith("class="))
        design = self.design(corpus, classes)
        if design.names != fitted:
            raise ValueError(f"corpus gives the features {list(design.names)[:8]}, the model "
                             f"was fitted with {list(fitted)[:8]}")
        return design

    def heldout_alpha(self, state: State, problem: Problem, corpus: Corpus) -> F64:
        """The alpha rows (D, K) of a held-out ``corpus``'s documents from their features
        (``heldout_design``) and the current lambda."""
        design = self.heldout_design(state, corpus)
        return self._alpha_rows(state.prior.lam, design, corpus.n_docs)[0]

    def fold_in(self, state: State, problem: Problem, corpus: Corpus, rng: np.ndarray,
                n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                phi_wk: np.ndarray | None = None, alpha: F64 | None = None) -> np.ndarray:
        """Held-out topic proportions (D, K) with the topics fixed and each document's alpha
        from its features (``heldout_alpha``; or ``alpha`` (D, K) given)."""
        V = state.counts.n_wk.shape[0]
        check.allocation(f"folding in with K = {self.K} topics",
                         8.0 * V * self.K + 16.0 * corpus.n_docs * self.K)
        if phi_wk is None:
            phi_wk = self.topic_word(state, problem).T
        if phi_wk.shape != (V, self.K):
            raise ValueError(f"phi_wk must have shape (V, K) = ({V}, {self.K}), "
                             f"got {phi_wk.shape}")
        a = self.heldout_alpha(state, problem, corpus) if alpha is None else alpha
        zbar = np.zeros((corpus.n_docs, self.K))
        dmr.fold_in(corpus.words, corpus.doc_ptr, np.ascontiguousarray(phi_wk, np.float64),
                    np.ascontiguousarray(a), int(n_burn), int(n_keep), rng,
                    content_labels(corpus.words, corpus.doc_ptr),
                    np.zeros(corpus.n_tokens, np.int32), zbar)
        empty = corpus.doc_lengths == 0
        zbar[empty] = a[empty] / a[empty].sum(axis=1, keepdims=True)
        return zbar

    def topic_proportions(self, state: State, problem: Problem, corpus: Corpus,
                          rng: np.ndarray, n_burn: int, n_keep: int) -> np.ndarray:
        return self.fold_in(state, problem, corpus, rng, n_burn, n_keep)

    def completion_log_likelihood(self, state: State, problem: Problem, corpus: Corpus,
                                  rng: np.ndarray, n_burn: int = FOLD_IN_BURN,
                                  n_keep: int = FOLD_IN_KEEP) -> tuple[float, int]:
        """Document completion (``LDA.completion_log_likelihood``) with each document's own
        alpha, from its features."""
        a = self.heldout_alpha(state, problem, corpus)
        return document_completion(
            corpus, lambda seen: self.fold_in(state, problem, seen, rng, n_burn, n_keep,
                                              alpha=a),
            self.topic_word(state, problem).T, a, rng)


def _sparse(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, D: int,
            names: tuple[str, ...], base: np.ndarray) -> Design:
    """The features' non-zeros (document ``rows``, feature ``cols``, ``vals``) by rows and by
    columns, each in the order a dense matrix's scan gives them (by document then feature,
    and by feature then document), so the chain reads them as it always did."""
    F = len(names)
    keep = vals != 0.0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    by_row = np.lexsort((cols, rows))
    by_col = np.lexsort((rows, cols))
    row_ptr = np.zeros(D + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=D), out=row_ptr[1:])
    col_ptr = np.zeros(F + 1, np.int64)
    np.cumsum(np.bincount(cols, minlength=F), out=col_ptr[1:])
    return Design(names, base, row_ptr, cols[by_row].astype(np.int32), vals[by_row].copy(),
                  col_ptr, rows[by_col].astype(np.int32), vals[by_col].copy())
