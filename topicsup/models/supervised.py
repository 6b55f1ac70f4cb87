"""Supervised topic models: loss x prior x topic sampler x weight sampler, on a label task
(docs/math.md sec. 1).

``SupervisedLDA`` composes the parts by name (``topicsup.samplers``, ``topicsup.losses``,
``topicsup.priors``, ``topicsup.weight_samplers``) with the corpus's label task
(``topicsup.tasks``); the presets (``models.presets``) only change defaults. Nothing here
branches on which loss, prior, sampler or weight step is used: each part does its own work.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, cast

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, I64, Rng, Row
from ..corpus import Corpus
from ..labels import Labels
from ..kernels.rng import derive
from ..kernels.linalg import matmul
from ..kernels.supervised import AUGMENTED, Term, no_term
from ..kernels.threads import numba_threads
from ..kernels.weights import compute_scores, row_scores, topic_rows
from ..losses import REGISTRY as LOSSES, Loss
from ..parts import LiveSetting, Registry
from ..priors import REGISTRY as PRIORS, Prior
from ..tasks import Task, task_for
from ..weight_samplers import REGISTRY as WEIGHT_SAMPLERS, FeatureRows, WeightStep
from ..history import STEP_SECONDS
from .base import register
from ..problem import Problem, State
from .lda import FOLD_IN_BURN, FOLD_IN_KEEP, LDA, LabelFields, _under

if TYPE_CHECKING:
    from ..backends.base import Backend

SUPERVISED_FACTORS = ("augmented", "marginal")
MAX_WEIGHT = 1e50                    # |eta| in a saved state (draws stay many orders below)
MAX_FOLD_IN_SWEEPS = 100_000         # burn-in or kept fold-in sweeps of held-out documents


class _StepClock:
    """Seconds per step of the end of a sweep, accumulated by name in the order first seen:
    ``lap(step)`` charges the time since the previous lap to ``step``."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self._t
        self._t = now

    def rows(self) -> list[Row]:
        return [{"metric": STEP_SECONDS + step, "value": v, "proposal": None}
                for step, v in self.seconds.items()]


class Weights(NamedTuple):
    """The weights and what derives from them: ``eta`` (T, M) over (topics, covariates);
    ``eta_kt`` (K, T), the topic weights task-minor as the kernels read them; the covariate
    scores ``r`` (T, D); the scores ``scores`` (T, D); the running sum ``eta_sum`` (T, M) of
    the ``eta_kept`` (1,) samples kept for prediction."""

    eta: F64
    eta_kt: F64
    r: F64
    scores: F64
    eta_sum: F64
    eta_kept: I64


class TermScratch(NamedTuple):
    """The topic kernels' per-document work arrays for the label term (``kernels.supervised``)."""

    A: F64
    c: F64
    v: F64
    exp_prob: F64
    exp_alias: I32


@dataclass(eq=False)
class Supervision:
    """The supervised part of a chain's state: the task's targets ``y`` (T, D), the loss's
    augmentation record ``loss`` (``b``, ``w`` and whatever else the loss keeps), the
    ``weights``, the prior's own state ``prior`` and the ``prior_precision`` (T, M) it
    gives, the kernels' ``scratch``, and ``lda_init_left`` (1,): LDA sweeps still to run
    before the labels enter. ``features``: the sweep's features by row, once its end has
    computed them (its weight draw and log joint read the same; a topic sweep clears it)."""

    y: F64
    loss: Any           # the loss's record (``Loss.allocate``): b, w and its own
    weights: Weights
    prior: Any          # the prior's record (``Prior.allocate``)
    prior_precision: F64
    scratch: TermScratch
    lda_init_left: I64
    features: FeatureRows | None = None


@register
class SupervisedLDA(LDA):
    """A supervised topic model: loss x prior x topic sampler x weight sampler (docs/math.md
    sec. 1).

    The corpus's labels define the tasks (``topicsup.tasks``): binary labels give one
    classifier (T = 1); multi-class and multi-label one classifier per class on shared topics
    (the multi-task form of Zheng et al. 2015 sec. 4.1, T = C); real labels one regression.
    Each task t scores a document by s_td = eta_t . (zbar_d, x_d) with its covariates x_d.

    A sweep resamples every topic assignment with the topic sampler, then draws the weights
    and the loss's augmentation, then the prior's own state. With
    ``supervised_factor="augmented"`` (Zheng et al. 2015 sec. 3.5) the topics see the
    augmentation's Gaussian factor, then the weights are drawn given (Z, augmentation) and the
    augmentation given (Z, eta). With ``"marginal"`` the topics see the loss's
    pseudo-likelihood itself (the augmentation integrated out; losses that have one), so the
    augmentation is drawn next, given (Z, eta), and the weights last: (Z, augmentation) | eta
    is then one block. Both leave the same posterior invariant (``kernels.supervised`` explains
    why the marginal factor learns in fewer sweeps).

    Parameters
    ----------
    K, alpha, beta, sampler
        As for ``LDA``; ``alpha=None`` means 6.4 / K (Zheng et al. 2015 sec. 5). Any sampler
        that takes a label term (``TopicSampler.supports_supervision``; a model with another
        is refused, naming those that do), e.g. ``"gibbs"`` (exact, O(K T) per token) or
        ``"light"`` (doc, word and exp MH proposals, O(T) per proposal).
    loss : str
        The loss, by name in ``topicsup.losses.REGISTRY``, with its parameters (docs/math.md
        sec. 1.2 has their table), e.g. ``"hinge"`` (``lam``, 2 lam max(0, 1 - y s)) or
        ``"logistic"`` (``c``, Polya-Gamma); a regression loss for real labels.
    prior : str
        The prior on the weights, by name in ``topicsup.priors.REGISTRY``, e.g. ``"normal"``,
        eta ~ N(0, 1/nu), with ``nu``, or ``"horseshoe"``, DOLDA's, a half-Cauchy global scale
        per task and a local one per weight. It applies to every weight but the intercept.
    weight_sampler : str
        The weight step, by name in ``topicsup.weight_samplers.REGISTRY``, e.g.
        ``"cholesky"``: the exact joint draw of each task's weights, O(M^3 + D M^2), or
        ``"coordinate"``: ``S_gibbs`` passes of coordinate-wise Gibbs (``weight_shift``: each
        ending in a joint draw of a common shift of the topic weights).
    supervised_factor : {"augmented", "marginal"}
        What the topic sampler multiplies the LDA conditional by: the augmentation's Gaussian
        factor exp(b s - w s^2 / 2) (the papers' sampler, Zheng et al. 2015 eq. 15-17) or the
        loss's pseudo-likelihood psi(y | s) with the augmentation integrated out (losses with
        a marginal factor). Same posterior; on 20 Newsgroups the marginal hinge learns the
        classifier in about half the sweeps (``kernels.supervised``).
    burn_in : int
        Sweeps before weight samples enter the average used for prediction (the LDA
        initialisation included).
    intercept : bool
        Add a feature that is 1 for every document, with its own wide prior N(0, c0)
        (``intercept_variance``, c0 = 100 as in DOLDA) that the prior never shrinks: the
        column after the topics, before the covariates. The topic proportions sum to one, so
        the intercept is collinear with them (adding c to it and -c to every topic weight
        changes no score). The posterior stays proper because every weight has a proper
        prior, and the Cholesky weight step draws all of a task's weights jointly, so it moves
        along that line in one step (coordinate-wise steps zigzag along it: use
        ``"cholesky"`` with an intercept; tests/models/test_dolda.py measures the mixing).
        What it buys: with a shrinking prior (the horseshoe) a class's base rate goes to the
        intercept and its topic weights read as deviations, few and sparse; without it every
        topic weight of a rare class must carry the base rate (docs/models.md, "DOLDA": covariates
        and the intercept). Off by default (the papers' MedLDA and gSLDA have none); on in
        the DOLDA preset.
    intercept_variance : float
        c0, the intercept's prior variance.
    lda_init_sweeps : int
        Sweeps of plain LDA that start the chain: the same topic sampler with the labels
        ignored, then the weights and the augmentation drawn given those topics, and from
        there the supervised sweeps. Only the starting point changes, not the posterior the
        chain samples (benchmarks/README.md: fewer supervised sweeps to a given accuracy).
    **part settings
        The chosen parts' parameters (``mh_steps``, ``composition``, ``word_proposal``,
        ``proposal_weights`` for the light sampler, ``lam``, ``nu``, ``S_gibbs``,
        ``weight_shift``, ...). A setting the chosen parts do not read is refused.

    Prediction (docs/math.md sec. 5): ``fold_in`` gives held-out features with the topics fixed,
    ``decision_scores`` scores them with the averaged weights; ``ensemble_scores`` averages
    the scores over topic snapshots (``topic_snapshot``) kept during the last sweeps.
    """

    OWN: ClassVar[dict[str, Any]] = {"alpha": None, "supervised_factor": "augmented",
                                     "burn_in": 0, "lda_init_sweeps": 0, "intercept": False,
                                     "intercept_variance": 100.0}
    # c0 above it or below: the intercept's precision under- or overflows the weight draws
    INTERCEPT_VARIANCE_RANGE = (1e-6, 1e12)
    ROLES: ClassVar[dict[str, Registry[Any]]] = {
        **LDA.ROLES, "loss": LOSSES, "prior": PRIORS, "weight_sampler": WEIGHT_SAMPLERS}
    DEFAULTS: ClassVar[dict[str, Any]] = {"loss": "hinge", "prior": "normal",
                                          "weight_sampler": "cholesky"}
    trace_names = ("eta",)
    supervised = True

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        K = own["K"]
        if own["alpha"] is None and isinstance(K, (int, np.integer)) \
                and not isinstance(K, bool) and K > 0:
            own["alpha"] = 6.4 / int(K)
        own = super()._check_own(own)
        own["supervised_factor"] = check.choice("supervised_factor", own["supervised_factor"],
                                                SUPERVISED_FACTORS)
        for name in ("burn_in", "lda_init_sweeps"):
            own[name] = check.integer(name, own[name], low=0, high=check.INT32_MAX)
        own["intercept"] = check.flag("intercept", own["intercept"])
        own["intercept_variance"] = check.number(
            "intercept_variance", own["intercept_variance"],
            low=self.INTERCEPT_VARIANCE_RANGE[0], high=self.INTERCEPT_VARIANCE_RANGE[1],
            why="outside it the intercept's precision under- or overflows the weight draws")
        if not own["intercept"] and own["intercept_variance"] != 100.0:
            raise ValueError(f"intercept_variance={own['intercept_variance']!r} (intercept=False "
                             f"does not use it): would be ignored; pass intercept=True")
        return own

    def _check_parts(self) -> None:
        sampler = self.topic_sampler
        if not sampler.supports_supervision:
            ok = [n for n in self.ROLES["sampler"] if self.ROLES["sampler"].get(n)
                  .supports_supervision]
            raise ValueError(f"supervised models sample topics with sampler "
                             f"{' or '.join(map(repr, ok))}, got {sampler.name!r}")
        if self.supervised_factor == "marginal" and self.loss_function.marginal_factor is None:
            raise ValueError(f"supervised_factor='marginal' needs a loss with a marginal factor; "
                             f"loss={self.loss!r} has none: use supervised_factor='augmented'")

    # ------------------------------------------------------------------ parts of the frame
    @property
    def loss_function(self) -> Loss:
        return cast(Loss, self._parts["loss"])   # ROLES: a loss

    @property
    def weight_prior(self) -> Prior:
        return cast(Prior, self._parts["prior"])   # ROLES: a prior

    @property
    def weight_step(self) -> WeightStep:
        return cast(WeightStep, self._parts["weight_sampler"])   # ROLES: a weight step

    def live_settings(self) -> tuple[LiveSetting, ...]:
        out = super().live_settings()
        if self.loss_function.marginal_factor is not None:   # the loss itself or given u
            out += (LiveSetting("supervised_factor", "label term", "choice",
                                options=("marginal", "augmented"),
                                help="How the labels enter the topic step: through the loss "
                                     "itself (marginal) or through its latent variable drawn "
                                     "each sweep (augmented); both keep the posterior"),)
        return out

    # ------------------------------------------------------------------ tasks
    def labels_of(self, corpus: Corpus) -> Labels:
        """``corpus.labels``; a ``ValueError`` if it has none."""
        if corpus.labels is None:
            raise ValueError(f"{type(self).__name__} needs a labelled corpus: corpus.labels is "
                             f"None (pass labels= when building the Corpus)")
        return corpus.labels

    def task(self, corpus: Corpus) -> Task:
        """The label task of ``corpus`` (``topicsup.tasks``) for this model's loss."""
        return task_for(self.labels_of(corpus), self.loss_function.targets,
                        type(self).__name__)

    def _labels(self, corpus: Corpus, check_labels: bool = True) -> LabelFields:
        """The corpus checked, its task built once: the task, its targets and names, the
        covariate matrix, its names and what each weight weighs (``Problem``)."""
        super()._labels(corpus, check_labels)
        labels = self.labels_of(corpus)
        task = self.task(corpus)
        if check_labels:
            task.check(labels, type(self).__name__)
        covariates = self.covariate_matrix(corpus)
        P = covariates.shape[1] - int(self.intercept)
        kinds = ("topic",) * self.K + ("intercept",) * int(self.intercept) + ("covariate",) * P
        return LabelFields(task, task.encode(labels), tuple(task.names(labels)), covariates,
                           tuple(self.covariate_names(corpus)), kinds)

    def covariate_matrix(self, corpus: Corpus) -> np.ndarray:
        """The (D, P) features after the topics of ``corpus`` (the training corpus's, bound
        once in the problem, or a held-out one's): a column of ones if ``intercept``, then the
        corpus's covariates."""
        cov = corpus.covariates if corpus.covariates is not None \
            else np.zeros((corpus.n_docs, 0))
        if self.intercept:
            cov = np.hstack([np.ones((corpus.n_docs, 1)), cov])
        return np.ascontiguousarray(cov, dtype=np.float64)

    def covariate_names(self, corpus: Corpus) -> list[str]:
        """Names of the columns of ``covariate_matrix``."""
        return (["intercept"] if self.intercept else []) + list(corpus.covariate_names)

    def prior_columns(self, M: int) -> I64:
        """The columns of eta the prior is on: all but the intercept (which has N(0, c0))."""
        cols = np.arange(M)
        return np.delete(cols, self.K) if self.intercept else cols

    # ------------------------------------------------------------------ state
    def saved_paths(self) -> dict[str, str]:
        # lda_init_left only with an LDA initialisation: checkpoints without one stay readable
        return {**super().saved_paths(), "eta": "supervision.weights.eta",
                **_under("supervision.loss", self.loss_function.saved_fields()),
                "eta_sum": "supervision.weights.eta_sum",
                "eta_kept": "supervision.weights.eta_kept",
                **({"lda_init_left": "supervision.lda_init_left"} if self.lda_init_sweeps
                   else {}),
                **_under("supervision.prior", self.weight_prior.saved_fields())}

    def state_bytes(self, problem: Problem) -> float:
        T, M, D = problem.n_tasks, problem.n_features, problem.n_docs
        extra = 8.0 * T * D * 6 + 8.0 * T * M * 4 + self.weight_step.state_bytes(M)
        return super().state_bytes(problem) + extra

    def allocate_state(self, problem: Problem) -> State:
        state = super().allocate_state(problem)
        K, T, M, D = self.K, problem.n_tasks, problem.n_features, problem.n_docs
        weights = Weights(np.zeros((T, M)), np.zeros((K, T)), np.zeros((T, D)), np.zeros((T, D)),
                          np.zeros((T, M)), np.zeros(1, np.int64))
        scratch = TermScratch(np.zeros(K), np.zeros((4, T)), np.zeros(T), np.zeros(K),
                              np.zeros(K, np.int32))
        state.supervision = Supervision(
            np.zeros((T, D)), self.loss_function.allocate(T, D), weights,
            self.weight_prior.allocate(T, self.prior_columns(M).size), np.zeros((T, M)), scratch,
            np.zeros(1, np.int64))
        return state

    @property
    def kernel_threads(self) -> int:
        """The threads the topic sampler's parallel loops are given (its ``threads``; 0, all
        of numba's, for a sampler without the setting): the augmentation's parallel draws
        (DOLDA's probit) keep to them too, so ``threads=1`` means one core."""
        return int(getattr(self.topic_sampler, "threads", 0) or 0)

    def init_state(self, problem: Problem, rng: Rng) -> State:
        """Random topics, eta = 0, and the augmentation drawn given the zero scores."""
        state = super().init_state(problem, rng)
        sup = state.supervision
        self.loss_function.start(sup.loss, rng)
        row_scores(*self.feature_rows(state, problem), sup.weights.eta, sup.weights.scores)
        with numba_threads(self.kernel_threads):
            self.loss_function.augment(sup.y, sup.weights.scores, rng, sup.loss)
        sup.lda_init_left[0] = self.lda_init_sweeps
        return state

    def refresh_state(self, state: State, problem: Problem) -> None:
        super().refresh_state(state, problem)
        sup = state.supervision
        sup.y[...] = problem.targets
        sup.features = None
        T, M = sup.weights.eta.shape
        cols = self.prior_columns(M)
        sup.prior_precision[:, cols] = self.weight_prior.precision(sup.prior, T, cols.size)
        if self.intercept:
            sup.prior_precision[:, self.K] = 1.0 / self.intercept_variance
        self._weights_changed(state, problem)

    def _weights_changed(self, state: State, problem: Problem) -> None:
        """Derive the kernels' view of eta: eta_kt (K, T) and the covariate scores r."""
        wt = state.supervision.weights
        wt.eta_kt[...] = wt.eta[:, :self.K].T
        cov = problem.covariates
        # matmul, not @: BLAS sums in an order that depends on the CPU (kernels.linalg)
        wt.r[...] = matmul(np.ascontiguousarray(wt.eta[:, self.K:]),
                           np.ascontiguousarray(cov.T)) if cov.shape[1] else 0.0

    def validate_state(self, state: State, problem: Problem) -> None:
        super().validate_state(state, problem)
        sup = state.supervision
        wt = sup.weights
        for name, a in (("eta", wt.eta), ("eta_sum", wt.eta_sum),
                        *self.loss_function.saved(sup.loss).items()):
            if not np.isfinite(a).all():
                raise ValueError(f"state/{name} has non-finite values")
        kept = int(wt.eta_kept[0])
        if kept < 0:
            raise ValueError(f"state/eta_kept is negative ({kept})")
        # weights far beyond any draw would overflow the kernels' products
        if np.abs(wt.eta).max(initial=0.0) > MAX_WEIGHT or \
                np.abs(wt.eta_sum).max(initial=0.0) > MAX_WEIGHT * max(kept, 1):
            raise ValueError(f"state/eta or eta_sum exceed {MAX_WEIGHT:g} in magnitude")
        saved = [f"state/{n}" for n in self.loss_function.saved_names()]
        names = ", ".join(saved[:-1]) + " and " + saved[-1] if len(saved) > 1 else saved[0]
        try:
            self.loss_function.check_augmentation(problem.targets, sup.loss)
        except ValueError as e:
            raise ValueError(f"{names}: {e}") from None
        self.weight_prior.validate(sup.prior)
        if not 0 <= sup.lda_init_left[0] <= self.lda_init_sweeps:
            raise ValueError(f"state/lda_init_left {sup.lda_init_left[0]} is outside 0.."
                             f"{self.lda_init_sweeps} (lda_init_sweeps)")

    def features(self, state: State, problem: Problem) -> F64:
        """X (D, M) = (zbar_d, x_d) from the current assignments, as a dense array."""
        X = np.zeros((problem.n_docs, problem.n_features))
        row_ptr, cols, vals = self.feature_rows(state, problem)
        X[np.repeat(np.arange(problem.n_docs), np.diff(row_ptr)), cols] = vals
        return X

    def feature_rows(self, state: State, problem: Problem) -> FeatureRows:
        """The features (zbar_d, x_d) by row (``kernels.weights.topic_rows``): row pointers,
        ascending columns and values of the non-zeros, O(tokens + D K); once per sweep (the
        sweep's end keeps them in ``Supervision.features`` until the topics move)."""
        sup = state.supervision
        if sup.features is None:
            sup.features = FeatureRows(*topic_rows(problem.tokens.doc_ptr, state.counts.z,
                                                   self.K, problem.covariates,
                                                   np.zeros(self.K, np.int32)))
        return sup.features

    # ------------------------------------------------------------------ sampling
    def sweep_block(self, state: State, problem: Problem, rng: Rng, d_start: int,
                    d_end: int, info: F64, backend: Backend | None = None) -> None:
        """LDA's block; a backend that keeps the topics where it ran (Dask's workers) gives
        the sweep's features, computed there from them (the rows ``feature_rows`` would
        compute here, the same bits)."""
        super().sweep_block(state, problem, rng, d_start, d_end, info, backend)
        rows = backend.feature_rows() if backend is not None else None
        if rows is not None:
            state.supervision.features = FeatureRows(*rows)

    @staticmethod
    def initialising(state: State) -> bool:
        """Whether the chain is still in its LDA initialisation (``lda_init_sweeps``)."""
        return bool(state.supervision.lda_init_left[0] > 0)

    def term(self, state: State, problem: Problem) -> tuple[Term, bool]:
        sup = state.supervision
        if self.initialising(state):   # zero tasks: the factors vanish, as for LDA
            return no_term(self.K, sup.y.shape[1]), False
        loss = self.loss_function
        factor, params = AUGMENTED, np.zeros(0)
        if self.supervised_factor == "marginal":
            marginal = loss.marginal_factor
            assert marginal is not None   # _check_parts refuses "marginal" without one
            factor, params = marginal, loss.marginal_params()
        wt, s = sup.weights, sup.scratch
        return Term(factor, params, wt.eta_kt, sup.loss.b, sup.loss.w, sup.y, wt.r, s.A, s.c,
                    s.v, s.exp_prob, s.exp_alias), True

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """eta | Z, augmentation; then the augmentation | Z, eta (the reverse order for the
        marginal factor); then the prior's state | eta. Rows: training fit and loss, and the
        seconds of each step (``seconds_weights`` with the features and scores it needs,
        ``seconds_augmentation``, ``seconds_prior``; the Session adds ``seconds_topics``), the
        split of Zhu et al. 2013 Table 1. During the LDA initialisation nothing, until its last
        sweep."""
        sup = state.supervision
        if self.initialising(state):
            sup.lda_init_left[0] -= 1
            if self.initialising(state):
                return []
        clock = _StepClock()
        rows = self.feature_rows(state, problem)
        loss, wt = self.loss_function, sup.weights
        y, scores = sup.y, wt.scores
        marginal = self.supervised_factor == "marginal"
        if marginal:  # the topics integrated the augmentation out: draw it given them first
            row_scores(*rows, wt.eta, scores)
            clock.lap("weights")
            with numba_threads(self.kernel_threads):
                loss.augment(y, scores, rng, sup.loss)
            clock.lap("augmentation")
        try:
            self.weight_step.draw(rows, sup.loss.b, sup.loss.w, sup.prior_precision, wt.eta,
                                  scores, rng, self.K, marginal)
        except np.linalg.LinAlgError:
            params = ", ".join(f"{k} = {v:g}" for part in (self.weight_prior, loss)
                               for k, v in part.params().items()
                               if isinstance(v, float))
            raise ValueError(f"the weights' posterior precision is not positive definite in "
                             f"floating point ({params}; collinear or constant covariates "
                             f"make this likely): start a Session with a larger prior "
                             f"precision, or standardize the covariates and drop duplicated "
                             f"ones") from None
        task = problem.task
        assert task is not None   # bound by a supervised model's bind
        out: list[Row] = [{"metric": "train_" + task.score_name, "value": task.score(y, scores),
                "proposal": None},
               {"metric": f"{loss.name}_loss", "value": loss.mean_loss(y, scores),
                "proposal": None}]
        clock.lap("weights")
        if not marginal:
            with numba_threads(self.kernel_threads):
                loss.augment(y, scores, rng, sup.loss)
            clock.lap("augmentation")
        cols = self.prior_columns(wt.eta.shape[1])
        shrunk = sup.prior_precision[:, cols]
        self.weight_prior.update(sup.prior, wt.eta[:, cols], rng, shrunk)
        sup.prior_precision[:, cols] = shrunk
        clock.lap("prior")
        self._weights_changed(state, problem)
        if sweep > self.burn_in:
            wt.eta_sum[...] += wt.eta
            wt.eta_kept[0] += 1
        clock.lap("weights")
        return out + clock.rows()

    def log_joint(self, state: State, problem: Problem) -> float:
        """Collapsed LDA log joint + the loss's log pseudo-likelihood + log prior of eta."""
        sup = state.supervision
        scores = np.zeros_like(sup.weights.scores)
        row_scores(*self.feature_rows(state, problem), sup.weights.eta, scores)
        return (super().log_joint(state, problem)
                + self.loss_function.log_pseudo_likelihood(sup.y, scores)
                + self.log_prior(state))

    def log_prior(self, state: State) -> float:
        """log p(eta and the prior's own state): the prior on its columns, N(0, c0) on the
        intercept."""
        sup = state.supervision
        eta = sup.weights.eta
        out = self.weight_prior.log_density(eta[:, self.prior_columns(eta.shape[1])], sup.prior)
        if self.intercept:
            c0 = self.intercept_variance
            out += float(-0.5 * eta.shape[0] * np.log(2 * np.pi * c0)
                         - 0.5 * np.square(eta[:, self.K]).sum() / c0)
        return out

    def trace_arrays(self, state: State) -> dict[str, np.ndarray]:
        """Arrays the Session records after every sweep: the weights eta (T, M)."""
        return {"eta": state.supervision.weights.eta.astype(np.float32)}

    # ------------------------------------------------------------------ prediction
    def coefficients(self, state: State) -> np.ndarray:
        """eta averaged over the kept samples (T, M); the current eta before any is kept."""
        wt = state.supervision.weights
        kept = int(wt.eta_kept[0])
        return wt.eta_sum / kept if kept else wt.eta.copy()

    def fold_in(self, state: State, problem: Problem, corpus: Corpus, rng: np.ndarray,
                n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                phi_wk: np.ndarray | None = None) -> np.ndarray:
        """Held-out features (D, M): the topic proportions of ``LDA.fold_in``, then the
        covariates (docs/math.md sec. 5)."""
        zbar = super().fold_in(state, problem, corpus, rng, n_burn, n_keep, phi_wk)
        cov = self.covariate_matrix(corpus)
        return np.hstack([zbar, cov]) if cov.shape[1] else zbar

    def decision_scores(self, state: State, X: np.ndarray) -> np.ndarray:
        """(D, T) scores of features X with the averaged weights."""
        eta = self.coefficients(state)
        if X.shape[1] != eta.shape[1]:
            then = "the intercept and covariates" if self.intercept else "covariates"
            raise ValueError(f"features have {X.shape[1]} columns, the model's weights "
                             f"{eta.shape[1]} (K = {self.K} topics, then {then})")
        scores = np.zeros((eta.shape[0], X.shape[0]))
        compute_scores(np.ascontiguousarray(X, dtype=np.float64), eta, scores)
        return scores.T

    def ensemble_scores(self, state: State, problem: Problem, corpus: Corpus,
                        rng: np.ndarray, snapshots: list[np.ndarray], n_burn: int = FOLD_IN_BURN,
                        n_keep: int = FOLD_IN_KEEP) -> np.ndarray:
        """Decision scores (D, T) averaged over topic ``snapshots`` kept during training: one
        fold-in per snapshot, each scored with the averaged weights. Averaging over posterior
        samples of the topics, not only of the weights and of each document's topics, is the
        posterior predictive docs/math.md sec. 5 approximates (on 20 Newsgroups, 20 classes, K =
        100: five snapshots two sweeps apart add about 0.005 accuracy)."""
        if not snapshots:
            raise ValueError("snapshots must hold at least one topic_snapshot")
        total: F64 = np.zeros(())   # 0-d: adds as the float 0.0 would
        for j, phi_wk in enumerate(snapshots):   # a key per snapshot: independent fold-ins
            total = total + self.decision_scores(
                state, self.fold_in(state, problem, corpus, derive(rng, j), n_burn, n_keep,
                                    phi_wk))
        return total / len(snapshots)
