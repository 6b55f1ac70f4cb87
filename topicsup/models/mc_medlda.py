"""Monte Carlo MedLDA (Jiang, Zhu, Sun, Xing 2012; docs/math.md sec. 6): the max-margin dual
alternated with Monte Carlo topic estimates.

Not a posterior sampler: Jiang's MedLDA is a regularised Bayesian problem (eq. 7) solved by
coordinate descent over two blocks, so a run is an EM-like alternation, not one stationary
chain. Each *outer iteration*

1. estimates E[zbar_d] with the classifier's multipliers frozen: gMedLDA runs a topic sampler
   (any Markov one that takes a label term) on the tilted target of eq. 20 until
   the relative change of its objective (minus the LDA log joint) between sweeps is below
   ``epsilon`` (or ``max_inner`` sweeps), then averages zbar over ``J`` sweeps (eq. 22);
   iMedLDA (``sampler="importance"``) iterates eq. 17-19 on point estimates (Theta, Phi) the
   same way and takes E[zbar] from its expected counts;
2. solves the Crammer-Singer dual (eq. 10-12) on E[zbar] (``topicsup.svm``), warm-started,
   which gives kappa (the classifier, ``eta`` here: M tasks over the topics) and the
   multipliers lambda; the topics then see the tilt
   exp((1/N_d) sum_y lambda_d^y (kappa_{y_d k} - kappa_{y k})), the frame's augmented factor
   with w = 0 and b from ``svm.tilt_term``.

The run ends when the relative change of the objective (minus the LDA log-likelihood plus the
SVM's objective) between outer iterations is below ``epsilon``, or after ``max_iterations``;
``Session.run`` then stops early and does nothing more (``finished``). With the multipliers
frozen each topic step leaves the tilted target invariant exactly (tested by enumeration:
tests/test_svm.py); the alternation as a whole has no stationary distribution.

The weight of the labels: Jiang's slack enters as (C / D) sum_d xi_d, so every multiplier is
at most C / D and the tilt is at most about C^2 / (D N_d) nats per token (on 20 Newsgroups,
C = 16: below 1e-3); ``C`` must grow with D for the labels to move the topics
(benchmarks/results/mc_medlda).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, cast

import numpy as np

from .. import svm
from ..arrays import F64, Rng, Row
from ..corpus import Corpus
from ..kernels.linalg import matmul
from ..kernels.rng import next_u64
from ..kernels.supervised import Term, no_term
from ..losses import Loss
from ..parts import LiveSetting, OwnParts, Registry
from ..priors.normal import Normal
from ..tasks import Multiclass, Task
from ..weight_samplers import WeightStep
from .. import validation as check
from .base import register
from ..problem import Problem, State
from .lda import LDA
from .lda import _under
from .supervised import Supervision, SupervisedLDA, _StepClock

C_RANGE = (1e-12, 1e15)


class Dual(NamedTuple):
    """The dual's part of the state: the tilt's (b, w) (T, D), rebuilt from the
    ``multipliers`` lambda (D, M) (``svm.tilt_term``)."""

    b: F64
    w: F64
    multipliers: F64


@dataclass(frozen=True)
class CrammerSinger(Loss):
    """Jiang's multi-class hinge, max(0, max_y cost [y != y_d] - (kappa_{y_d} - kappa_y) . x_d),
    weighted C / D per document (eq. 7), handled through its dual (eq. 12): ``C`` the
    regularisation constant, ``cost`` the margin demanded against each wrong class (16 in the
    paper). Its "augmentation" is the tilt the multipliers give (w = 0)."""

    name = "crammer_singer"
    SAVED = {"multipliers": "multipliers"}

    C: float = 16.0
    cost: float = svm.COST

    def __post_init__(self) -> None:
        self._bounded("C", C_RANGE)
        self._bounded("cost", (1e-12, 1e12))

    def allocate(self, T: int, D: int) -> Dual:
        return Dual(np.zeros((T, D)), np.zeros((T, D)), np.zeros((D, T)))

    def augment(self, y: F64, scores: F64, rng: Rng | None, own: Dual) -> None:
        """The tilt of the current multipliers (no draw)."""
        b, w = svm.tilt_term(own.multipliers, y.argmax(axis=0))
        own.b[...] = b
        own.w[...] = w

    def check_augmentation(self, y: np.ndarray, own: Dual) -> None:
        lam = own.multipliers
        D = lam.shape[0]
        if (lam < 0).any():
            raise ValueError("multipliers must be non-negative")
        if D and lam[np.arange(D), y.argmax(axis=0)].any():
            raise ValueError("a document's multiplier at its own class must be zero")
        if (lam.sum(axis=1) > self.C / max(D, 1) * (1 + 1e-9)).any():
            raise ValueError(f"a document's multipliers sum above C / D = {self.C / D:g}")

    def hinge(self, y: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Each document's hinge (D,) given class indices ``y`` and (T, D) ``scores``."""
        D = scores.shape[1]
        own = scores[y, np.arange(D)]
        margin = self.cost - (own[None, :] - scores)
        margin[y, np.arange(D)] = 0.0
        return np.maximum(margin.max(axis=0), 0.0)

    def log_psi(self, y: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Minus each document's weighted hinge, (C / D) xi_d, in the first task's row (the
        loss is per document, not per task)."""
        out = np.zeros_like(scores)
        if scores.shape[1]:
            out[0] = -self.C / scores.shape[1] * self.hinge(y.argmax(axis=0), scores)
        return out


@dataclass(frozen=True)
class SVMDual(WeightStep):
    """kappa and the multipliers by sequential dual coordinate ascent on the Crammer-Singer
    dual (``topicsup.svm``), stopped when the largest violation of the optimality conditions
    is below ``svm_tol`` (in the units of the margin ``cost``: 0.01 against 16) or after
    ``svm_max_epochs`` passes; warm-started from the last outer iteration's multipliers. (On
    20 Newsgroups' topic proportions 1e-3 gives the same test accuracy to 0.001 in ten
    times the epochs.)"""

    name = "svm_dual"

    svm_tol: float = 1e-2
    svm_max_epochs: int = 1000

    def __post_init__(self) -> None:
        self._bounded("svm_tol", (1e-12, 1e3))
        object.__setattr__(self, "svm_max_epochs", check.integer(
            "svm_max_epochs", self.svm_max_epochs, low=1, high=10**7))

    def solve(self, X: np.ndarray, y: np.ndarray, loss: CrammerSinger, start: Any,
              seed: int) -> svm.DualSolution:
        return svm.crammer_singer_dual(X, y, loss.C, loss.cost, n_classes=start.kappa.shape[0],
                                       tol=self.svm_tol, max_epochs=self.svm_max_epochs,
                                       seed=seed, start=start)


class OuterLoop(NamedTuple):
    """Where the alternation is: ``counts`` (4,) int64 = [outer iterations done, topic
    sweeps in the current one, zbar samples summed in ``zbar_sum`` (D, K), finished (0/1)];
    ``values`` (2,) = [the previous sweep's topic objective, the previous outer iteration's
    objective] (meaningful once a sweep, an iteration, is done)."""

    counts: np.ndarray
    values: np.ndarray
    zbar_sum: np.ndarray


@dataclass(eq=False)
class AlternationState(Supervision):
    """``Supervision`` with the outer loop's position ``loop``."""

    loop: OuterLoop = None   # type: ignore[assignment]


ITERATION, INNER, AVERAGED, FINISHED = range(4)
# the outer loop's arrays in checkpoints: name -> field of ``OuterLoop``
LOOP_FIELDS = {"mc_counts": "counts", "mc_values": "values", "mc_zbar_sum": "zbar_sum"}


@register
class MCMedLDA(SupervisedLDA):
    """Monte Carlo MedLDA (Jiang et al. 2012): gMedLDA with a Markov topic sampler, iMedLDA
    with ``sampler="importance"`` (module docstring). Not Zhu's and Zheng's Gibbs MedLDA
    (``MedLDA``), which samples a posterior of the weights by augmentation.

    Parameters
    ----------
    K, alpha, beta
        As for ``SupervisedLDA`` (``MCMedLDA.importance()`` has iMedLDA's alpha = 0.01 / K and
        beta = 1e-5, sec. 5).
    sampler : str
        How E[zbar] is estimated with the multipliers frozen: a Markov chain on the tilted
        target (gMedLDA, eq. 21; any sampler of ``topicsup.samplers.REGISTRY`` that takes a
        label term, ``supports_supervision``) or importance sampling on point estimates
        (iMedLDA, ``"importance"``, eq. 15-19, with ``importance_samples`` J, 3 K by
        default; ``supports_tilt``).
    C : float
        The regularisation constant of eq. 7: each document's multipliers sum to at most
        C / D.
    cost : float
        The margin against each wrong class (16, sec. 5).
    epsilon : float
        Relative change of the objective below which the topic step (between sweeps) and the
        alternation (between outer iterations) count as converged (1e-4, sec. 5). The rule
        is the paper's; a loose one also ends an alternation whose topics are still forming
        (with a small C the objective then changes little between iterations).
    max_iterations : int
        At most this many outer iterations (100, sec. 5).
    max_inner : int
        At most this many topic sweeps before E[zbar] is taken, converged or not.
    J : int
        gMedLDA: the sweeps whose zbar is averaged into E[zbar] (eq. 22; 1 in training, sec.
        5.2). iMedLDA draws ``importance_samples`` instead and ignores it.
    svm_tol, svm_max_epochs
        The dual solver's stopping rule (``SVMDual``).

    The classifier for prediction is kappa, the posterior mean of eta (eq. 11), with held-out
    E[zbar] from the usual fold-in (gMedLDA; ``n_keep`` sweeps are its prediction J) or from
    importance sampling against the fitted Phi (iMedLDA, sec. 4.3).
    """

    learns_prior = False   # an alternation of point estimates: its prior stays fixed
    OWN: ClassVar[dict[str, Any]] = {"epsilon": 1e-4, "max_iterations": 100, "max_inner": 100,
                                     "J": 1}
    ROLES: ClassVar[dict[str, Registry[Any]]] = {
        **LDA.ROLES, "loss": OwnParts("loss", CrammerSinger),
             "prior": OwnParts("prior", Normal),
             "weight_sampler": OwnParts("weight_sampler", SVMDual)}
    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"   # "auto" keeps it: nothing else measured
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "auto", "loss": "crammer_singer",
                                          "prior": "normal", "weight_sampler": "svm_dual"}
    trace_names = ("eta",)

    @classmethod
    def importance(cls, **params: Any) -> "MCMedLDA":
        """iMedLDA as in sec. 5: importance sampling with J = 3 K uniform draws per token,
        alpha = 0.01 / K (Fig. 2b) and beta = 1e-5 (larger beta "degrades seriously");
        ``params`` on top."""
        K = params.get("K", cls._class_defaults()["K"])
        alpha = ({"alpha": 0.01 / int(K)} if isinstance(K, (int, np.integer))
                 and not isinstance(K, bool) and K > 0 else {})   # else K's own error
        return cls(**{"sampler": "importance", **alpha, "beta": 1e-5, **params})

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own = super()._check_own(own)
        own["epsilon"] = check.number("epsilon", own["epsilon"], low=0.0, high=1.0)
        own["max_iterations"] = check.integer("max_iterations", own["max_iterations"], low=1,
                                              high=check.INT32_MAX)
        own["max_inner"] = check.integer("max_inner", own["max_inner"], low=1,
                                         high=check.INT32_MAX)
        own["J"] = check.integer("J", own["J"], low=1, high=check.INT32_MAX)
        for name, default in (("burn_in", 0), ("lda_init_sweeps", 0), ("intercept", False)):
            if own[name] != default:
                raise ValueError(f"{name}={own[name]!r}: Monte Carlo MedLDA has no "
                                 f"{'intercept' if name == 'intercept' else 'weight samples'}"
                                 f" (its classifier is kappa, a posterior mean); leave it at "
                                 f"{default!r}")
        return own

    def _check_parts(self) -> None:
        sampler = self.topic_sampler
        if not (sampler.supports_supervision or sampler.supports_tilt):
            ok = [n for n in self.ROLES["sampler"]
                  if self.ROLES["sampler"].get(n).supports_supervision
                  or self.ROLES["sampler"].get(n).supports_tilt]
            raise ValueError(f"MCMedLDA estimates E[zbar] with sampler "
                             f"{' or '.join(map(repr, ok))}, got {sampler.name!r}")
        if self.supervised_factor != "augmented":
            raise ValueError(f"supervised_factor={self.supervised_factor!r}: Monte Carlo "
                             f"MedLDA's tilt is a fixed b-term; leave it 'augmented'")
        if self.weight_prior.nu != 1.0:
            raise ValueError(f"nu={self.weight_prior.nu!r}: Jiang's dual (eq. 12) is derived "
                             f"for the standard normal prior N(0, I); leave nu = 1 and set C")
        if self.J != 1 and not sampler.markov:
            raise ValueError(f"J={self.J!r} (sampler={sampler.name!r} does not use it: it "
                             f"draws importance_samples per token): would be ignored")

    def live_settings(self) -> tuple[LiveSetting, ...]:
        return self.topic_sampler.live_settings(self)

    # its own parts (``ROLES``), by their classes
    @property
    def loss_function(self) -> CrammerSinger:
        return cast(CrammerSinger, self._parts["loss"])

    @property
    def weight_prior(self) -> Normal:
        return cast(Normal, self._parts["prior"])

    @property
    def weight_step(self) -> SVMDual:
        return cast(SVMDual, self._parts["weight_sampler"])

    @property
    def views(self) -> tuple[str, ...]:
        out = list(super().views)
        out.insert(out.index("score"), "alternation")
        return tuple(out)

    # ------------------------------------------------------------------ tasks
    def task(self, corpus: Corpus) -> Task:
        """Crammer-Singer over the classes: one task per class, binary labels included."""
        kind = corpus.labels.kind if corpus.labels is not None else None
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"MCMedLDA classifies documents into one class each; "
                             f"corpus.labels are {kind!r}, expected 'binary' or 'multiclass'")
        return Multiclass()

    # ------------------------------------------------------------------ state
    def saved_paths(self) -> dict[str, str]:
        return {**super().saved_paths(), **_under("supervision.loop", LOOP_FIELDS)}

    def state_bytes(self, problem: Problem) -> float:
        return super().state_bytes(problem) + 16.0 * problem.n_docs * self.K

    def allocate_state(self, problem: Problem) -> State:
        state = super().allocate_state(problem)
        sup = state.supervision
        state.supervision = AlternationState(
            **{f.name: getattr(sup, f.name) for f in dataclasses.fields(Supervision)},
            loop=OuterLoop(np.zeros(4, np.int64), np.zeros(2),
                           np.zeros((problem.n_docs, self.K))))
        return state

    def refresh_state(self, state: State, problem: Problem) -> None:
        super().refresh_state(state, problem)
        sup = state.supervision
        self.loss_function.augment(sup.y, sup.weights.scores, None, sup.loss)

    def validate_state(self, state: State, problem: Problem) -> None:
        super().validate_state(state, problem)
        counts, values = state.supervision.loop.counts, state.supervision.loop.values
        limits = (self.max_iterations, self.max_inner,
                  self.J if self.topic_sampler.markov else 0, 1)
        for name, value, high in zip(("outer iterations", "inner sweeps", "averaged samples",
                                      "finished flag"), counts, limits):
            if not 0 <= value <= high:
                raise ValueError(f"state/mc_counts: {name} {value} is outside 0..{high}")
        zbar_sum = state.supervision.loop.zbar_sum
        if not np.isfinite(values).all() or not np.isfinite(zbar_sum).all():
            raise ValueError("state/mc_values and state/mc_zbar_sum must be finite")
        # the sum of counts[AVERAGED] topic proportions: non-negative, rows summing to it
        if (zbar_sum < 0).any() or (zbar_sum.sum(axis=1) > counts[AVERAGED] + 1e-9).any():
            raise ValueError(f"state/mc_zbar_sum must hold non-negative rows summing to at most "
                             f"the {counts[AVERAGED]} averaged samples")

    # ------------------------------------------------------------------ the alternation
    def finished(self, state: State) -> bool:
        """Whether the alternation has converged or run ``max_iterations``."""
        return bool(state.supervision.loop.counts[FINISHED])

    def term(self, state: State, problem: Problem) -> tuple[Term, bool]:
        sup = state.supervision
        if not sup.loss.multipliers.any():   # no support documents yet: plain LDA, cheaper
            return no_term(self.K, sup.y.shape[1]), False
        return super().term(state, problem)

    def expected_zbar(self, state: State, corpus: Corpus) -> F64:
        """E[zbar] (D, K) of the current topic step: the average of the ``J`` sweeps summed
        (gMedLDA, eq. 22) or the importance estimator's expected counts (iMedLDA, eq. 17),
        recovered from its theta = (counts + alpha) / (N_d + sum alpha)."""
        est = self.topic_sampler.estimates(state.sampler)
        if est is None:
            loop = state.supervision.loop
            return loop.zbar_sum / max(int(loop.counts[AVERAGED]), 1)
        N = corpus.doc_lengths.astype(np.float64)[:, None]
        a = self.alpha_vector
        counts = np.maximum(est[0] * (N + a.sum()) - a, 0.0)
        return np.divide(counts, N, out=np.full_like(counts, 0.0), where=N > 0)

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """The topic step's bookkeeping after each sweep; at the end of an outer iteration
        the SVM step (module docstring). Rows then: ``outer_iteration``, ``objective`` and
        its ``objective_change`` (from the second iteration on: the first has nothing to
        change from), ``svm_objective``, ``support`` (the share of documents
        with a non-zero multiplier), ``nonzero_multipliers`` (the share of non-zero
        lambda_d^y over wrong classes), ``train_accuracy`` of kappa on E[zbar],
        ``svm_epochs`` and the seconds of the step."""
        sup = state.supervision
        loop = sup.loop
        counts, values = loop.counts, loop.values
        if counts[FINISHED]:
            return []
        topic_objective = -LDA.log_joint(self, state, problem)
        corpus = problem.corpus
        markov = self.topic_sampler.markov
        if markov and counts[AVERAGED]:          # sampling the J sweeps of eq. 22
            settled = True
        else:
            counts[INNER] += 1
            previous = values[0]
            settled = (sweep > 1 and abs(topic_objective - previous)
                       <= self.epsilon * abs(previous)) or counts[INNER] >= self.max_inner
        values[0] = topic_objective
        if not settled:
            return []
        if markov:
            loop.zbar_sum[...] += self.doc_topic_counts(state, problem) / np.maximum(
                corpus.doc_lengths, 1)[:, None]
            counts[AVERAGED] += 1
            if counts[AVERAGED] < self.J:
                return []
        return self._svm_step(state, problem, rng, topic_objective)

    def _svm_step(self, state: State, problem: Problem, rng: Rng,
                  topic_objective: float) -> list[Row]:
        clock = _StepClock()
        sup = state.supervision
        loop, wt, loss = sup.loop, sup.weights, self.loss_function
        zbar = self.expected_zbar(state, problem.corpus)
        cov = problem.covariates
        X = np.hstack([zbar, cov]) if cov.shape[1] else zbar
        y = sup.y.argmax(axis=0)
        start = svm.DualSolution(sup.loss.multipliers, wt.eta, 0.0, 0, 0.0, 0.0)
        sol = self.weight_step.solve(X, y, loss, start, int(next_u64(rng) >> np.uint64(1)))
        sup.loss.multipliers[...] = sol.multipliers
        wt.eta[...] = sol.kappa
        loss.augment(sup.y, wt.scores, rng, sup.loss)
        self._weights_changed(state, problem)
        wt.scores[...] = matmul(sol.kappa, np.ascontiguousarray(X.T))   # not @: kernels.linalg
        objective = topic_objective + sol.objective
        counts, values = loop.counts, loop.values
        # the first iteration has no previous objective to change from: no row for it (a
        # NaN in the history would be shown to whoever reads it)
        change = (abs(objective - values[1]) / abs(values[1])
                  if counts[ITERATION] and values[1] else None)
        counts[ITERATION] += 1
        values[1] = objective
        counts[INNER] = 0
        counts[AVERAGED] = 0
        loop.zbar_sum[...] = 0.0
        if counts[ITERATION] >= self.max_iterations or (change is not None
                                                         and change < self.epsilon):
            counts[FINISHED] = 1
        D, M = sol.multipliers.shape
        wrong = D * (M - 1)
        task = problem.task
        assert task is not None   # bound by a supervised model's bind
        clock.lap("weights")
        rows = [("outer_iteration", float(counts[ITERATION])), ("objective", objective),
                *([] if change is None else [("objective_change", change)]),
                ("svm_objective", sol.objective),
                ("support", sol.support),
                ("nonzero_multipliers",
                 float((sol.multipliers > 0).sum() / wrong) if wrong else 0.0),
                ("train_accuracy", task.score(sup.y, wt.scores)),
                ("svm_epochs", float(sol.epochs))]
        return [{"metric": m, "value": v, "proposal": None} for m, v in rows] + clock.rows()

    def log_joint(self, state: State, problem: Problem) -> float:
        """The LDA part only (collapsed log p(W, Z), or log p(W | Theta, Phi) for iMedLDA):
        the alternation has no joint distribution; ``objective`` rows hold Jiang's."""
        return LDA.log_joint(self, state, problem)

    def log_prior(self, state: State) -> float:
        return 0.0
