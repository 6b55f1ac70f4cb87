"""LDA: the Dirichlet parameters, the state every model keeps, and a topic sampler.

The state is a ``State`` record: the corpus's ``Tokens``, the ``Counts`` and the topic
sampler's own arrays (records of ``topicsup.kernels``), plus a supervised model's
``Supervision``. A Session first binds the model to its corpus (``bind``: the
``topicsup.problem.Problem``, what the chain reads derived once); the model's methods then
take that problem: ``init_state``,
``sweep_block`` (the sampler on a block of documents), ``end_sweep`` (the once-per-sweep
work), ``log_joint``, ``sweep_metrics``, and the checkpoint hooks ``saved_state`` /
``saved_arrays`` / ``validate_state`` / ``refresh_state``.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, NamedTuple, Self, cast

import numpy as np

from .. import validation as check
from ..corpus import Corpus
from ..kernels import info as info_layout
from ..kernels.counts import allocate_counts, doc_topic_counts, \
    init_assignments, rebuild_counts, tokens_of
from ..kernels import partially_collapsed as pc_kernels
from ..kernels import importance as importance_kernels
from ..kernels import hyper
from ..kernels.fold_in import completion_split, content_labels
from ..kernels.loglik import lda_log_joint
from ..kernels.supervised import Term, no_term
from ..arrays import F64, Array, Rng, Row
from ..parts import LiveSetting, Registry
from ..problem import Problem, State
from ..samplers import REGISTRY as SAMPLERS, TopicSampler
from ..samplers.auto import Choice, choose
from ..tasks import Task
from .base import Model, register

if TYPE_CHECKING:
    from ..backends.base import Backend

# The ranges that work. Outside them the kernels' arithmetic under- or overflows: the
# unnormalised conditionals multiply four factors such as (n_kd + alpha)(n_kw + beta) / (n_k +
# V beta), the hinge's augmentation squares lam, and the weight draws divide by nu. Each bound
# leaves orders of magnitude of room on both sides of what the papers use (alpha = 6.4 / K,
# beta = 0.01, lam = 102.4, nu = 1 to 4096), and the property tests run the samplers at the
# bounds with finite histories (tests/test_properties.py).
MAX_TOPICS = 100_000
DIRICHLET_RANGE = (1e-10, 1e6)       # alpha and beta
# fold-in sweeps of held-out documents by default, burn-in then kept: on 20 Newsgroups (20
# classes, K = 50) 50 + 50 is 1.2 points more accurate than 10 + 10 on the same chains, as
# much as averaging over five topic snapshots (benchmarks/results/defaults; its cost on the
# 7,532 test posts is in benchmarks/results/parallel)
FOLD_IN_BURN = 50
FOLD_IN_KEEP = 50
# the Dirichlet parameters a chain may learn (``LDA(optimize=...)``) and what each learns
OPTIMIZE = {"alpha": ("alpha",), "beta": ("beta",), "alpha+beta": ("alpha", "beta")}


class LabelFields(NamedTuple):
    """A problem's supervised fields as a model derives them from a corpus (``Problem``)."""

    task: Task | None
    targets: F64
    task_names: tuple[str, ...]
    covariates: F64
    covariate_names: tuple[str, ...]
    feature_kinds: tuple[str, ...]


def _dirichlet(name: str, value: Any) -> float:
    lo, hi = DIRICHLET_RANGE
    return check.number(name, value, low=lo, high=hi,
                        why="outside it the samplers' products under- or overflow")


@register
class LDA(Model):
    """Latent Dirichlet allocation with a choice of collapsed topic sampler.

    Parameters
    ----------
    K : int
        Number of topics.
    alpha : float or sequence of float
        Document-topic Dirichlet parameter: a symmetric value per topic, or K values.
    beta : float
        Symmetric topic-word Dirichlet parameter.
    sampler : str
        The topic sampler, by name: any in ``topicsup.samplers.REGISTRY`` (each sampler's
        class docstring describes it, docs/math.md secs. 2-3 its mathematics). The default
        ``"auto"`` chooses when the model meets its corpus (``resolve``; a Session shows the
        choice and why): the exact sampler a cost model fitted to measurements expects to
        reach the fit first (``topicsup.samplers.auto``, docs/samplers.md); settings of a
        particular sampler given with it restrict the choice to the samplers that read them.
        For example ``"gibbs"``, the exact conditional, O(K) per token;
        ``"light"``, LightLDA's doc and word proposals, O(1) (Zheng et al. 2015 sec. 2.3);
        ``"partially_collapsed"``, Phi drawn each sweep and the documents' topics given Phi
        in parallel over documents, exact, the same chain on any number of threads
        (Magnusson et al. 2020 sec. 4). The MH samplers record acceptance per proposal kind
        in the history.
    **sampler settings
        The chosen sampler's parameters (its dataclass fields, e.g. ``mh_steps``,
        ``composition``; ``samplers.REGISTRY.get(name).param_defaults()`` lists them with
        their defaults). A setting the chosen sampler does not read is refused.
    optimize : None, "alpha", "beta" or "alpha+beta"
        Learn the Dirichlet parameters as the chain runs (default None: fixed): an asymmetric
        alpha (K values, starting from ``alpha``) and/or a symmetric beta, by Minka's fixed
        point on the current counts (``topicsup.kernels.hyper``; Wallach, Mimno, McCallum
        2009), as tomotopy's and MALLET's optimisation do. Empirical Bayes: a point estimate
        updated between sweeps, not a posterior draw; between two updates the chain targets
        p(z | w, alpha, beta) at the current values. The history records ``alpha_sum`` and
        ``beta`` at each update; checkpoints keep the learned values.
    optimize_every : int
        Sweeps between two updates (default 10, tomotopy's ``optim_interval``): after sweep
        s when s is a multiple of it and s > ``optimize_burn_in``.
    optimize_burn_in : int
        Sweeps before the first update (default 0, tomotopy's ``burn_in``).
    """

    OWN: ClassVar[dict[str, Any]] = {"K": 20, "alpha": 0.1, "beta": 0.01, "optimize": None,
                                     "optimize_every": 10, "optimize_burn_in": 0}
    ROLES: ClassVar[dict[str, Registry[Any]]] = {"sampler": SAMPLERS}
    DEFAULTS: ClassVar[dict[str, Any]] = {"sampler": "auto"}
    # the sampler of the model's paper, available by name, and auto's choice where nothing
    # was measured for the model
    PUBLISHED_SAMPLER: ClassVar[str] = "gibbs"
    # the arrays trace_arrays records after every sweep
    trace_names: tuple[str, ...] = ()
    supervised = False
    # whether its kernels read the Dirichlet parameters from the problem, so that it can
    # learn them (``optimize``); a model whose prior is not LDA's says False
    learns_prior: ClassVar[bool] = True

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        own["K"] = K = check.integer("K", own["K"], low=1, high=MAX_TOPICS)
        alpha = own["alpha"]
        if isinstance(alpha, np.ndarray) and alpha.ndim == 0:
            alpha = alpha.item()
        if isinstance(alpha, (list, tuple, np.ndarray)):
            a = tuple(_dirichlet(f"alpha[{k}]", x) for k, x in enumerate(alpha))
            if len(a) != K:
                raise ValueError(f"alpha has {len(a)} values but K = {K}")
            own["alpha"] = a
        else:
            own["alpha"] = _dirichlet("alpha", alpha)
        own["beta"] = _dirichlet("beta", own["beta"])
        if own["optimize"] is not None:
            own["optimize"] = check.choice("optimize", own["optimize"], OPTIMIZE)
            if not type(self).learns_prior:
                raise ValueError(f"{type(self).__name__} cannot learn its Dirichlet parameters "
                                 f"(optimize={own['optimize']!r}): leave optimize=None")
        own["optimize_every"] = check.integer("optimize_every", own["optimize_every"], low=1,
                                              high=2**62)
        own["optimize_burn_in"] = check.integer("optimize_burn_in", own["optimize_burn_in"],
                                                low=0, high=2**62)
        if own["optimize"] is None:
            # the schedule of updates that never happen: refused, as a part's unused setting
            unused = [f"{name}={own[name]!r}" for name in ("optimize_every", "optimize_burn_in")
                      if own[name] != LDA.OWN[name]]
            if unused:
                raise ValueError(f"{', '.join(unused)} would be ignored: nothing is learned "
                                 f"without optimize ('alpha', 'beta' or 'alpha+beta'); set "
                                 f"optimize, or leave them at their defaults")
        return own

    # ------------------------------------------------------------------ parts and capabilities
    @property
    def topic_sampler(self) -> TopicSampler:
        return cast(TopicSampler, self._parts["sampler"])   # ROLES: a sampler

    @property
    def proposal_kinds(self) -> tuple[str, ...]:
        """Names of the MH proposal kinds whose acceptance the sampler records."""
        return self.topic_sampler.kinds(self.supervised)

    def live_settings(self) -> tuple[LiveSetting, ...]:
        """Settings a Session may change between sweeps (``Session.set_params``): each value
        gives a kernel with the same stationary distribution, so the chain stays valid. The
        parts say which (the dashboard shows a control for each)."""
        return tuple(s for part in self._parts.values() for s in part.live_settings(self))

    @property
    def live_params(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.live_settings())

    @property
    def views(self) -> tuple[str, ...]:
        """The views that apply to this model, the one rule the dashboard, the report and
        ``Session.views`` follow: convergence and throughput always; acceptance when the
        sampler makes Metropolis-Hastings proposals; what its draws do (``"draws"``) when it
        counts them (the partially collapsed sparse kernel); score and coefficients when
        supervised,
        and the time split over steps (``"time"``) when a sweep has more than the topics."""
        out = ["loglik"]
        if self.proposal_kinds:
            out.append("acceptance")
        if pc_kernels.DOC_PART in self.topic_sampler.counters(self.supervised):
            out.append("draws")
        if self.learned:
            out.append("hyperparameters")
        if self.supervised:
            out += ["score", "coefficients"]
        out.append("throughput")
        if self.supervised:
            out.append("time")
        return tuple(out)

    @property
    def views_on_request(self) -> tuple[str, ...]:
        """Views of ``views`` a dashboard draws only when named (``Dashboard(views=...)``;
        the report keeps them): those of the partially collapsed kernel's internals, which
        say little at every sweep: where its sparse draws come from (``"draws"``, near all
        from the document part), and its acceptance when its one Metropolis-Hastings step is
        the label term's correction (``"acceptance"`` of ``("label",)``: near 1 at every
        sweep, a flat line at the top of a panel)."""
        out = []
        if self.proposal_kinds == ("label",):
            out.append("acceptance")
        if "draws" in self.views:
            out.append("draws")
        return tuple(out)

    # ------------------------------------------------------------------ parameters
    @property
    def learned(self) -> tuple[str, ...]:
        """The Dirichlet parameters the chain learns (``optimize``): a subset of
        ("alpha", "beta")."""
        return OPTIMIZE[self.optimize] if self.optimize is not None else ()

    @property
    def alpha_is_vector(self) -> bool:
        return isinstance(self.alpha, tuple)

    @property
    def alpha_vector(self) -> np.ndarray:
        """alpha as a length-K float64 array."""
        if isinstance(self.alpha, tuple):
            return np.asarray(self.alpha, dtype=np.float64)
        return np.full(self.K, self.alpha, dtype=np.float64)

    # ------------------------------------------------------------------ the problem
    def check_corpus(self, corpus: Corpus) -> None:
        """Refuse a corpus this model cannot sample (``TypeError``/``ValueError``)."""
        self._labels(corpus)

    def bind(self, corpus: Corpus, *, check_labels: bool = True,
             prior: tuple[F64, float] | None = None) -> Problem[Self]:
        """This model on ``corpus``, checked: the ``Problem`` a chain reads, derived once
        (the corpus as the kernels read it, alpha as K values; a supervised model's task,
        targets and covariates). ``prior``: the Dirichlet parameters (alpha, beta) a chain
        has learned (``optimize``; a checkpoint's, checked by ``check_prior``), else the
        model's. ``check_labels=False`` skips the checks of the labels that guard a fit (two
        classes present, ...): a joint test draws labels from the model, and a draw may hold
        one class."""
        sup = self._labels(corpus, check_labels)
        alpha, symmetric = self.dirichlet()
        beta = float(self.beta)
        if prior is not None:
            alpha, beta = np.array(prior[0], dtype=np.float64), float(prior[1])
        return Problem(self, corpus, tokens_of(corpus.words, corpus.doc_ptr, corpus.n_words),
                       self.K, alpha, symmetric, beta, sup.task, sup.targets, sup.task_names,
                       sup.covariates, sup.covariate_names, sup.feature_kinds)

    def resolve(self, problem: Problem) -> tuple["LDA", Choice | None]:
        """The model to sample ``problem`` with: with ``sampler="auto"`` a copy with the
        sampler chosen for it (``samplers.auto``) and the choice; else itself and None."""
        if not self.topic_sampler.chooses:
            return self, None
        def accepts(sampler: str, settings: dict[str, Any]) -> bool:
            try:
                self.replace(sampler=sampler, **settings)
            except ValueError:   # it would ignore a setting given, or cannot sample this model
                return False
            return True

        choice = choose(self, problem, self.deferred_settings("sampler"), accepts)
        return self.replace(sampler=choice.sampler, **choice.settings), choice

    def dirichlet(self) -> tuple[F64, bool]:
        """The documents' Dirichlet parameters as K values, and whether they are one
        symmetric value (never when the chain learns an asymmetric alpha)."""
        return self.alpha_vector, not self.alpha_is_vector and "alpha" not in self.learned

    def _labels(self, corpus: Corpus, check_labels: bool = True) -> LabelFields:
        """The corpus checked, and the problem's supervised fields (``Problem``): none, the
        K topics the only features."""
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
        return LabelFields(None, np.zeros((0, corpus.n_docs)), (),
                           np.zeros((corpus.n_docs, 0)), (), ("topic",) * self.K)

    @property
    def info_size(self) -> int:
        return info_layout.size(len(self.proposal_kinds)) \
            + len(self.topic_sampler.counters(self.supervised))

    def saved_paths(self) -> dict[str, str]:
        """The arrays of the state that define the chain, the one place they are listed:
        checkpoint name (``state/<name>``) -> dotted path in ``State``; the parts' own under
        their records (``Part.SAVED``). The other arrays are derived and rebuilt on load."""
        return {"z": "counts.z", **_under("sampler", self.topic_sampler.saved_fields())}

    @property
    def saved_state(self) -> tuple[str, ...]:
        """The checkpoint names of the chain: ``saved_paths``, and the Dirichlet parameters
        it has learned (``saved_prior``)."""
        return tuple(self.saved_paths()) + tuple(f"hyper_{name}" for name in self.learned)

    def saved_arrays(self, state: State) -> dict[str, Array]:
        """The arrays of ``saved_paths`` by name (views into ``state``)."""
        return {name: attrgetter(path)(state) for name, path in self.saved_paths().items()}

    def saved_prior(self, problem: Problem) -> dict[str, Array]:
        """The learned Dirichlet parameters of a chain's ``problem`` by checkpoint name
        (``hyper_alpha`` (K,), ``hyper_beta`` (1,)); none when nothing is learned."""
        values = {"alpha": problem.alpha, "beta": np.array([problem.beta])}
        return {f"hyper_{name}": values[name] for name in self.learned}

    def check_prior(self, arrays: Mapping[str, Array]) -> tuple[F64, float] | None:
        """The learned prior of a checkpoint (``saved_prior``'s arrays, shapes already
        checked) as ``bind``'s ``prior``, refused unless every value is finite and in
        ``DIRICHLET_RANGE`` (a ``ValueError`` naming the field); None when nothing is
        learned."""
        if not self.learned:
            return None
        lo, hi = DIRICHLET_RANGE
        for name in self.learned:
            a = arrays[f"hyper_{name}"]
            if not (np.isfinite(a).all() and (a >= lo).all() and (a <= hi).all()):
                raise ValueError(f"state/hyper_{name} must hold finite values in "
                                 f"[{lo:g}, {hi:g}] (a learned Dirichlet parameter)")
        alpha, _ = self.dirichlet()
        alpha = arrays["hyper_alpha"] if "alpha" in self.learned else alpha
        beta = float(arrays["hyper_beta"][0]) if "beta" in self.learned else float(self.beta)
        return np.array(alpha, dtype=np.float64), beta

    def state_bytes(self, problem: Problem) -> float:
        """Bytes the largest state arrays take, so a Session refuses a K or a corpus that
        cannot fit in memory before allocating anything."""
        K, V, D, N = self.K, problem.n_words, problem.n_docs, problem.n_tokens
        return 4.0 * V * K + 16.0 * N + 8.0 * D + self.topic_sampler.state_bytes(problem)

    def allocate_state(self, problem: Problem) -> State:
        """Arrays of the right shapes, counts not yet consistent with ``z``; fresh sampler
        arrays. Every sampler keeps ``n_wk`` (V, K) and ``n_k``; those with ``doc_rows``
        also ``n_dk`` (D, K): the light sampler rebuilds the current document's row instead,
        so the memory it touches per token does not grow with K."""
        sampler, p = self.topic_sampler, problem
        return State(allocate_counts(p.n_tokens, p.n_docs, p.n_words, self.K, sampler.doc_rows),
                     sampler.allocate(problem))

    def init_state(self, problem: Problem, rng: Rng) -> State:
        """Draw a random start and the counts that go with it."""
        state = self.allocate_state(problem)
        init_assignments(state.counts.z, self.K, rng)
        self.refresh_state(state, problem)
        return state

    def refresh_state(self, state: State, problem: Problem) -> None:
        """Recompute every derived array from ``z`` (after a load, or a new start)."""
        c, corpus = state.counts, problem.corpus
        rebuild_counts(corpus.words, corpus.doc_ptr, c.z, c.n_dk if c.n_dk.shape[0] else None,
                       c.n_wk, c.n_k)
        self.topic_sampler.refresh(problem, state.sampler)

    def validate_state(self, state: State, problem: Problem) -> None:
        """Reject saved state that does not fit this model and corpus: every value the
        kernels use as an index in range, every number finite (a checkpoint is untrusted
        input; ``topicsup.checkpoint``). Shapes and dtypes are checked by the caller."""
        z = state.counts.z
        if z.shape != (problem.n_tokens,):
            raise ValueError(f"state/z has shape {z.shape}, expected ({problem.n_tokens},)")
        if z.size and (z.min() < 0 or z.max() >= self.K):
            raise ValueError(f"state/z has topics outside 0..{self.K - 1}")
        self.topic_sampler.validate(problem, state.sampler)

    # ------------------------------------------------------------------ learned priors
    def prior_due(self, sweep: int) -> bool:
        """Whether ``learn_prior`` updates the learned parameters after sweep ``sweep``."""
        return bool(self.learned) and sweep > self.optimize_burn_in \
            and not sweep % self.optimize_every

    def learn_prior(self, state: State, problem: Problem[Self], sweep: int
                    ) -> tuple[Problem[Self], list[Row]]:
        """After sweep ``sweep``: when an update is due (``optimize_every``,
        ``optimize_burn_in``), Minka's fixed point for the learned parameters on the current
        counts (``kernels.hyper``), from the problem's current values, and the new problem the
        next sweeps read (the one holder of the current alpha and beta), the sampler's tables
        rebuilt from it (``refresh``), with the history rows ``alpha_sum``/``beta``.
        Otherwise ``problem`` unchanged and no rows. Empirical Bayes, not a posterior draw."""
        if not self.prior_due(sweep):
            return problem, []
        rows: list[Row] = []
        alpha, beta = problem.alpha.copy(), np.array([problem.beta])
        if "alpha" in self.learned:
            hyper.learn_alpha(self.doc_topic_counts(state, problem), alpha)
            rows.append({"metric": "alpha_sum", "value": float(alpha.sum()), "proposal": None})
        if "beta" in self.learned:
            hyper.learn_beta(state.counts.n_wk, state.counts.n_k, beta)
            rows.append({"metric": "beta", "value": float(beta[0]), "proposal": None})
        return self.set_prior(state, problem, alpha, float(beta[0])), rows

    def set_prior(self, state: State, problem: Problem[Self], alpha: F64, beta: float
                  ) -> Problem[Self]:
        """The problem with Dirichlet parameters ``alpha`` and ``beta`` and the sampler's
        tables that derive from alpha rebuilt for it (``TopicSampler.refresh``): the one path
        by which new values reach the kernels."""
        new = problem.with_prior(alpha, beta)
        self.topic_sampler.refresh(new, state.sampler)
        return new

    # ------------------------------------------------------------------ sampling
    @staticmethod
    def initialising(state: State) -> bool:
        """Whether the chain is in a supervised model's LDA initialisation (never, for LDA)."""
        return False

    def finished(self, state: State) -> bool:
        """Whether the model's algorithm has ended, so ``Session.run`` runs no more sweeps
        (never for a sampler; ``MCMedLDA`` once its alternation has converged)."""
        return False

    def term(self, state: State, problem: Problem) -> tuple[Term, bool]:
        """The supervised term the topic kernels read and whether it is active (LDA: the
        term of zero tasks)."""
        return no_term(self.K, problem.n_docs), False

    def sweep_block(self, state: State, problem: Problem, rng: Rng, d_start: int,
                    d_end: int, info: F64, backend: Backend | None = None) -> None:
        """Run the topic sampler on documents ``d_start .. d_end-1``, adding to ``info``;
        a distributable sampler's documents' step on ``backend`` (``topicsup.backends``;
        None: this process's threads)."""
        state.topics_moved()
        term, active = self.term(state, problem)
        sampler = self.topic_sampler
        extra = {"backend": backend} if backend is not None and sampler.distributable else {}
        sampler.sweep(problem, state.counts, state.sampler, term, active, rng, d_start, d_end,
                      info, **extra)

    def end_sweep(self, state: State, problem: Problem, rng: Rng, sweep: int) -> list[Row]:
        """Work done once per sweep after the topic sweep (weights, augmentation); returns
        history rows. LDA has none."""
        return []

    def trace_arrays(self, state: State) -> dict[str, Array]:
        """Arrays the Session records after every sweep (``Session.trace``). LDA has none."""
        return {}

    def sweep_metrics(self, info: F64) -> list[Row]:
        """History rows for one sweep's info record: the topic change rate, and per proposal
        kind the proposals made, the acceptance rate and the mean acceptance probability."""
        rec = info_layout.decode(info, len(self.proposal_kinds))
        rows: list[Row] = [{"metric": "topic_change_rate",
                 "value": rec.changed / rec.tokens if rec.tokens else float("nan"),
                 "proposal": None}]
        for kind, k in zip(self.proposal_kinds, rec.kinds):
            rows += [
                {"metric": "proposals", "value": k.made, "proposal": kind},
                {"metric": "acceptance_rate",
                 "value": k.accepted / k.made if k.made else np.nan, "proposal": kind},
                {"metric": "mean_acceptance_probability",
                 "value": k.probability_sum / k.made if k.made else np.nan, "proposal": kind},
            ]
        n = len(self.topic_sampler.counters(self.supervised))
        if n:
            rows += self.topic_sampler.counter_rows(np.asarray(info[-n:]), rec)
        return rows

    def log_joint(self, state: State, problem: Problem) -> float:
        """log p(W, Z) with Theta and Phi collapsed (docs/math.md sec. 4); for a sampler that keeps
        point estimates instead of a chain (``importance``), log p(W | Theta, Phi) of them."""
        t = problem.tokens
        est = self.topic_sampler.estimates(state.sampler)
        if est is not None:
            return float(importance_kernels.log_likelihood(t.words, t.doc_ptr, *est))
        return float(lda_log_joint(t.doc_ptr, state.counts.z, t.word_ptr, t.word_tok,
                                   state.counts.n_k, problem.alpha, problem.beta))

    # ------------------------------------------------------------------ estimates
    # Functions of (state, problem): the problem holds the training documents and the
    # current Dirichlet parameters (learned ones included), the state the counts.
    def doc_topic_counts(self, state: State, problem: Problem) -> np.ndarray:
        """n_dk as a dense (D, K) int32 matrix."""
        return self.doc_topic_count_rows(state, problem, 0, problem.n_docs)

    def doc_topic_count_rows(self, state: State, problem: Problem, lo: int, hi: int
                             ) -> np.ndarray:
        """n_dk of documents ``lo .. hi - 1`` (hi - lo, K) int32: the state's rows (a view),
        or counted from z for those documents alone when the sampler keeps no n_dk (the
        light sampler), so a read-out over chunks of documents never holds the (D, K)
        whole."""
        if state.counts.n_dk.shape[0]:
            return state.counts.n_dk[lo:hi]
        # the pointers stay absolute: the kernel reads z[doc_ptr[d] .. doc_ptr[d + 1]]
        return doc_topic_counts(problem.tokens.doc_ptr[lo:hi + 1], state.counts.z, self.K)

    def topic_word(self, state: State, problem: Problem) -> np.ndarray:
        """Point estimate phi[k, w] = (n_kw + beta) / (n_k + V beta) (docs/math.md sec. 5), or the
        sampler's own (``importance``: eq. 19 of Jiang et al. 2012)."""
        est = self.topic_sampler.estimates(state.sampler)
        if est is not None:
            return est[1].T.copy()
        n_wk = state.counts.n_wk
        V = n_wk.shape[0]
        beta = problem.beta
        return ((n_wk.T + beta) / (state.counts.n_k[:, None] + V * beta))

    def fold_in(self, state: State, problem: Problem, corpus: Corpus, rng: np.ndarray,
                n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                phi_wk: np.ndarray | None = None) -> np.ndarray:
        """Held-out topic proportions (D, K): zbar from ``n_keep`` fold-in sweeps after
        ``n_burn`` with the topics fixed at their point estimate (or at ``phi_wk``, a
        ``topic_snapshot``) (docs/math.md sec. 5). ``rng`` is the key of the documents' own streams
        (not advanced): each document draws from the stream of its content, so its
        proportions do not depend on the other documents of ``corpus``. A document without
        tokens has no assignments to average: it gets the prior mean alpha / sum(alpha), the
        expected proportions of a token it might have had (so a supervised model scores it by
        the prior's class preference, not by a score of 0 that picks the first class)."""
        V = state.counts.n_wk.shape[0]
        check.allocation(f"folding in with K = {self.K} topics over {V} words",
                         28.0 * V * self.K + 8.0 * corpus.n_docs * self.K)
        if phi_wk is None:
            phi_wk = self.topic_word(state, problem).T
        if phi_wk.shape != (V, self.K):
            raise ValueError(f"phi_wk must have shape (V, K) = ({V}, {self.K}), "
                             f"got {phi_wk.shape}")
        phi_wk = np.ascontiguousarray(phi_wk, dtype=np.float64)
        a = self.doc_prior(state, problem)
        own = self.topic_sampler.fold_in(a, problem.beta, phi_wk, corpus, rng, n_burn, n_keep)
        if own is not None:
            own[corpus.doc_lengths == 0] = a / a.sum()
            return own
        return fold_in_topics(phi_wk, a, corpus, rng, n_burn, n_keep)

    def completion_log_likelihood(self, state: State, problem: Problem, corpus: Corpus,
                                  rng: np.ndarray, n_burn: int = FOLD_IN_BURN,
                                  n_keep: int = FOLD_IN_KEEP) -> tuple[float, int]:
        """Held-out log likelihood by document completion (Wallach et al. 2009, sec. 4): half
        of each document's tokens (floor(N_d / 2), chosen at random from its own stream under
        ``rng``, whatever order its tokens came in: ``document_completion``) is folded in
        with the topics fixed at their point estimate, theta_d = (N1 zbar_d + alpha) / (N1 +
        sum alpha), and the other half is scored, sum_i log sum_k theta_dk phi[w_i, k].
        Returns (log likelihood, number of scored tokens); ``exp(-ll / n)`` is the
        perplexity. The same for every sampler: it reads only the point estimate
        (``topic_word``: the counts', or the estimates the importance sampler keeps) and the
        sampler's fold-in."""
        # the topic proportions alone (LDA's fold-in): a supervised model's would append its
        # intercept and covariates
        return document_completion(
            corpus, lambda seen: self.topic_proportions(state, problem, seen, rng, n_burn,
                                                        n_keep),
            self.topic_word(state, problem).T, self.doc_prior(state, problem), rng)

    def topic_proportions(self, state: State, problem: Problem, corpus: Corpus,
                          rng: np.ndarray, n_burn: int, n_keep: int) -> np.ndarray:
        """The held-out topic proportions alone (D, K) (``LDA.fold_in``; a supervised
        model's ``fold_in`` appends its intercept and covariates)."""
        return LDA.fold_in(self, state, problem, corpus, rng, n_burn, n_keep)

    def doc_prior(self, state: State, problem: Problem) -> np.ndarray:
        """The documents' Dirichlet parameters (K,) for fold-in and estimates: the problem's
        alpha, the current one (HDP-LDA: the document concentration times the root's topic
        weights, from the state)."""
        return problem.alpha.copy()

    def doc_alpha_rows(self, state: State, problem: Problem) -> F64 | None:
        """Each document's own Dirichlet parameters (D, K), a copy, for a model whose
        documents' prior differs by document (DMR: exp(x_d lambda)); None when every document
        has the problem's alpha (LDA and the others)."""
        return None

    def theta_draw(self, state: State, problem: Problem) -> F64 | None:
        """The documents' topic proportions (D, K) as the chain holds them, a posterior draw,
        for a model that samples theta (``LogisticNormal``); None where theta is collapsed
        (LDA and the others: ``PrevalenceDraws`` draws it from its Dirichlet given z)."""
        return None

    def shown_topics(self, state: State) -> np.ndarray:
        """The topics the tables and views show: all K (HDP-LDA: the live ones)."""
        return np.arange(self.K)

    def topic_snapshot(self, state: State, problem: Problem) -> np.ndarray:
        """The current topics phi as a (V, K) float32 array, for ``fold_in`` later."""
        return np.ascontiguousarray(self.topic_word(state, problem).T, dtype=np.float32)

    def doc_topic(self, state: State, problem: Problem) -> np.ndarray:
        """Point estimate theta[d, k] = (n_kd + alpha_k) / (N_d + sum alpha) of the training
        documents, or the sampler's own."""
        return self.doc_topic_rows(state, problem, 0, problem.n_docs)

    def doc_topic_rows(self, state: State, problem: Problem, lo: int, hi: int) -> np.ndarray:
        """``doc_topic``'s rows ``lo .. hi - 1`` (hi - lo, K), computed for those documents
        alone (the same numbers as the whole's rows)."""
        est = self.topic_sampler.estimates(state.sampler)
        if est is not None:
            return est[0][lo:hi].copy()
        a = self.doc_prior(state, problem)
        n_dk = self.doc_topic_count_rows(state, problem, lo, hi)
        return (n_dk + a) / (n_dk.sum(axis=1, keepdims=True) + a.sum())


def _under(record: str, fields: Mapping[str, str]) -> dict[str, str]:
    """A part's saved fields (``Part.SAVED``) as paths in ``State`` under its ``record``."""
    return {name: f"{record}.{path}" for name, path in fields.items()}


def fold_in_topics(phi_wk: np.ndarray, a: np.ndarray, corpus: Corpus, rng: np.ndarray,
                   n_burn: int, n_keep: int) -> np.ndarray:
    """zbar (D, K) of ``corpus`` with the topics fixed at ``phi_wk`` (V, K) and the documents'
    Dirichlet ``a`` (K,) (``LDA.fold_in``). Phi fixed: the documents are independent, so the
    partially collapsed sampler's exact sparse kernel folds them in, in parallel
    (kernels.partially_collapsed)."""
    V, K = phi_wk.shape
    zbar = np.zeros((corpus.n_docs, K))
    prob, alias, mass = np.empty((V, K)), np.empty((V, K), np.int32), np.empty(V)
    pc_kernels.build_word_tables(phi_wk, a, prob, alias, mass)
    pc_kernels.fold_in(corpus.words, corpus.doc_ptr, phi_wk, prob, alias, mass, a,
                       int(n_burn), int(n_keep), rng,
                       content_labels(corpus.words, corpus.doc_ptr),
                       np.zeros(corpus.n_tokens, np.int32), zbar)
    zbar[corpus.doc_lengths == 0] = a / a.sum()
    return zbar


def document_completion(corpus: Corpus, proportions: Callable[[Corpus], np.ndarray],
                        phi_wk: np.ndarray, a: np.ndarray, key: Rng) -> tuple[float, int]:
    """Document completion (``LDA.completion_log_likelihood``) for any topics: each
    document's tokens are put in canonical order (by word), floor(N_d / 2) of them chosen at
    random from the document's own stream under ``key`` (``fold_in.completion_split``) go to
    ``proportions`` (a corpus -> zbar (D, K) fold-in), theta_d = (N1 zbar_d + a) / (N1 + sum
    a), and the rest are scored with ``phi_wk`` (V, K); ``a`` is (K,), or (D, K) when each
    document has its own (DMR). The split and the sums depend on each document's bag of
    words, not on the order of its tokens, so a count matrix and the token lists of the same
    documents score the same. Returns (log likelihood, scored tokens)."""
    lengths = corpus.doc_lengths
    first = lengths // 2
    ptr = corpus.doc_ptr
    doc_of = np.repeat(np.arange(corpus.n_docs), lengths)
    words = corpus.words[np.lexsort((corpus.words, doc_of))]   # by document, then word
    keep = np.zeros(corpus.n_tokens, bool)
    completion_split(words, ptr, key, content_labels(words, ptr), keep)
    seen = dataclasses.replace(corpus, words=words[keep],
                               doc_ptr=np.concatenate([[0], np.cumsum(first)]).astype(
                                   ptr.dtype), labels=None, covariates=None,
                               covariate_names=())
    zbar = proportions(seen)
    # a: (K,), or (D, K) with each document's own (DMR), summed per document
    total = a.sum() if a.ndim == 1 else a.sum(axis=1, keepdims=True)
    theta = (zbar * first[:, None] + a) / (first[:, None] + total)
    scored = ~keep
    w, d = words[scored], doc_of[scored]
    ll = np.log(np.einsum("ik,ik->i", theta[d], phi_wk[w])).sum() if w.size else 0.0
    return float(ll), int(w.size)
