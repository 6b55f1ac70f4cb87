"""Model specifications: a user's choice turned into kernels, their parameters and their state.

A model here is loss x prior x topic sampler x weight sampler (MATH.md sec. 1). Unsupervised
LDA is the case with no loss; the supervised presets build on the same topic samplers.

A model object is a small, immutable description. It knows how to

* ``init_state(corpus, rng)``: allocate and initialise the state arrays (a dict of ndarrays);
* ``sweep_block(state, corpus, rng, d_start, d_end, info)``: run its kernels on a block of
  documents (the Session splits a sweep into blocks so it can stop between them), with the
  kernels' inputs from ``topic_terms(state)`` (a supervised model's LDA initialisation passes
  zero tasks there); ``end_sweep`` then does the once-per-sweep work (weights, augmentation);
* ``log_joint(state, corpus)``: the convergence monitor;
* ``sweep_metrics(info)``: turn the info record of a sweep into tidy history rows;
* ``get_params()`` / ``from_params``: plain JSON-able parameters, so checkpoints hold no code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from . import validation as check
from .corpus import Corpus
from .kernels import aliaslda, gibbs, info as info_layout, light, supervised, word_tables
from .kernels.alias import build_alias
from .kernels.counts import doc_topic_counts, init_assignments, rebuild_counts
from .kernels.fold_in import content_labels, fold_in as fold_in_sweeps
from .kernels.rng import derive
from .kernels.loglik import lda_log_joint
from .kernels.weights import compute_scores, row_scores, sample_weights, topic_rows
from .losses import Hinge
from .priors import Normal

SAMPLERS = {"gibbs": gibbs.KINDS, "alias": aliaslda.KINDS, "light": light.KINDS}
COMPOSITIONS = {"cycle": light.CYCLE, "mixture": light.MIXTURE}

_REGISTRY: dict[str, type["LDA"]] = {}


def register(cls):
    """Make a model class restorable by name from a checkpoint."""
    _REGISTRY[cls.__name__] = cls
    return cls


def model_from_params(name: str, params: dict[str, Any]):
    """Rebuild a model from ``(type(model).__name__, model.get_params())``."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown model {name!r}; known models: {sorted(_REGISTRY)}")
    cls = _REGISTRY[name]
    if issubclass(cls, SupervisedLDA) and "supervised_factor" not in params:
        # saved before the marginal factor existed: the chain used the augmented one
        params = {**params, "supervised_factor": "augmented"}
    return cls(**params)


# The ranges that work. Outside them the kernels' arithmetic under- or overflows: the
# unnormalised conditionals multiply four factors such as (n_kd + alpha)(n_kw + beta) / (n_k +
# V beta), the hinge's augmentation squares lam, and the weight draws divide by nu. Each bound
# leaves orders of magnitude of room on both sides of what the papers use (alpha = 6.4 / K,
# beta = 0.01, lam = 102.4, nu = 1 to 4096), and the property tests run the samplers at the
# bounds with finite histories (tests/test_properties.py).
MAX_TOPICS = 100_000
DIRICHLET_RANGE = (1e-10, 1e6)       # alpha and beta
LAM_RANGE = Hinge.LAM_RANGE          # the loss and the prior own their parameters' ranges
NU_RANGE = Normal.NU_RANGE
MAX_MH_STEPS = 1024                  # MH steps per token (a sweep's cost grows with it)
MAX_PASSES = 1024                    # coordinate passes over the weights per sweep
MAX_WEIGHT = 1e50                    # |eta| in a saved state (draws stay many orders below)
MAX_FOLD_IN_SWEEPS = 100_000         # burn-in or kept fold-in sweeps of held-out documents


def _dirichlet(name: str, value: Any) -> float:
    lo, hi = DIRICHLET_RANGE
    return check.number(name, value, low=lo, high=hi,
                        why="outside it the samplers' products under- or overflow")


@register
@dataclass(frozen=True)
class LDA:
    """Latent Dirichlet allocation with a choice of collapsed topic sampler.

    Parameters
    ----------
    K : int
        Number of topics.
    alpha : float or sequence of float
        Document-topic Dirichlet parameter: a symmetric value per topic, or K values.
    beta : float
        Symmetric topic-word Dirichlet parameter.
    sampler : {"gibbs", "alias", "light"}
        ``"gibbs"``: exact conditional, O(K) per token. ``"alias"``: AliasLDA's
        Metropolis-Hastings-Walker sampler, O(k_d) (Li et al. 2014). ``"light"``: LightLDA's
        doc and word proposals, O(1) (Zheng et al. 2015 sec. 2.3). All leave the same posterior
        invariant; the MH samplers record acceptance per proposal kind in the history.
    mh_steps : int
        Metropolis-Hastings steps per token (alias and light samplers).
    composition : {"cycle", "mixture"}
        Light sampler: alternate doc and word proposals, or pick one at random each step.
    p_doc : float
        Probability of the doc proposal at each step of the mixture.
    word_proposal : {"exact", "stale"}
        Light sampler: ``"exact"`` draws q_w ∝ n_kw + beta from the current state (a random
        occurrence of the word), exact and table-free; ``"stale"`` is LightLDA's stale alias
        table of (n_kw + beta)/(n_k + V beta), which is only approximately invariant (see
        ``topicsup.kernels.light``). AliasLDA (``sampler="alias"``) always uses stale tables,
        as in the paper, and is approximate for the same reason.
    """

    # sampler settings a Session may change between sweeps (Session.set_params): each value
    # gives a kernel with the same stationary distribution, so the chain stays valid
    live_params = ("mh_steps", "composition", "p_doc")
    # the arrays trace_arrays records after every sweep
    trace_names = ()

    K: int = 20
    alpha: float | tuple[float, ...] = 0.1
    beta: float = 0.01
    sampler: str = "gibbs"
    mh_steps: int = 2
    composition: str = "cycle"
    p_doc: float = 0.5
    word_proposal: str = "exact"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        check.choice("word_proposal", self.word_proposal, ("exact", "stale"))
        check.choice("sampler", self.sampler, sorted(SAMPLERS))
        check.choice("composition", self.composition, sorted(COMPOSITIONS))
        set_(self, "mh_steps", check.integer("mh_steps", self.mh_steps, low=1,
                                             high=MAX_MH_STEPS))
        set_(self, "p_doc", check.number("p_doc", self.p_doc, low=0.0, high=1.0, low_open=True,
                                         high_open=True))
        set_(self, "K", check.integer("K", self.K, low=2, high=MAX_TOPICS))
        if isinstance(self.alpha, np.ndarray) and self.alpha.ndim == 0:
            set_(self, "alpha", self.alpha.item())
        if isinstance(self.alpha, (list, tuple, np.ndarray)):
            a = tuple(_dirichlet(f"alpha[{k}]", x) for k, x in enumerate(self.alpha))
            if len(a) != self.K:
                raise ValueError(f"alpha has {len(a)} values but K = {self.K}")
            set_(self, "alpha", a)
        else:
            set_(self, "alpha", _dirichlet("alpha", self.alpha))
        set_(self, "beta", _dirichlet("beta", self.beta))
        if type(self) is LDA:
            self._refuse_ignored()

    # which settings each sampler reads: a value given for one it ignores is an error, not a
    # silent no-op (and a live change of it is refused by Session.set_params the same way)
    SAMPLER_SETTINGS = {"gibbs": (), "alias": ("mh_steps",),
                        "light": ("mh_steps", "composition", "p_doc", "word_proposal",
                                  "proposal_weights")}

    def _ignored_settings(self) -> dict[str, str]:
        """Settings given other values than the class's defaults that this configuration
        never reads, each with the part that ignores it."""
        used = self.SAMPLER_SETTINGS[self.sampler]
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        return {name: f"sampler={self.sampler!r}" for names in self.SAMPLER_SETTINGS.values()
                for name in names if name not in used and name in defaults
                and getattr(self, name) != defaults[name]}

    def _refuse_ignored(self) -> None:
        ignored = self._ignored_settings()
        if ignored:
            what = "; ".join(f"{name}={getattr(self, name)!r} ({part} does not use it)"
                             for name, part in sorted(ignored.items()))
            raise ValueError(f"{what}: would be ignored; leave such settings at their defaults "
                             f"or choose parts that use them")

    # ------------------------------------------------------------------ parameters
    @property
    def alpha_vector(self) -> np.ndarray:
        """alpha as a length-K float64 array."""
        if isinstance(self.alpha, tuple):
            return np.asarray(self.alpha, dtype=np.float64)
        return np.full(self.K, self.alpha, dtype=np.float64)

    def get_params(self) -> dict[str, Any]:
        p = asdict(self)
        if isinstance(p["alpha"], tuple):
            p["alpha"] = list(p["alpha"])
        return p

    # ------------------------------------------------------------------ state
    def check_corpus(self, corpus: Corpus) -> None:
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")

    @property
    def proposal_kinds(self) -> tuple[str, ...]:
        """Names of the MH proposal kinds whose acceptance the sampler records."""
        return SAMPLERS[self.sampler]

    @property
    def info_size(self) -> int:
        return info_layout.size(len(self.proposal_kinds))

    @property
    def uses_tables(self) -> bool:
        """Whether the sampler keeps stale per-word tables (part of the chain's state)."""
        return self.sampler == "alias" or (self.sampler == "light"
                                          and self.word_proposal == "stale")

    @property
    def saved_state(self) -> tuple[str, ...]:
        """The arrays that define the chain; the others are derived and rebuilt on load."""
        if self.uses_tables:
            return ("z", "wt_samples", "wt_q", "wt_mass", "wt_used")
        return ("z",)

    def state_bytes(self, corpus: Corpus) -> float:
        """Bytes the sampler's largest state arrays take on ``corpus``, so a Session refuses a
        K or a corpus that cannot fit in memory before allocating anything."""
        K, V, D, N = self.K, corpus.n_words, corpus.n_docs, corpus.n_tokens
        total = 4.0 * V * K + 16.0 * N + 8.0 * D
        if self.sampler != "light":
            total += 4.0 * D * K
        if self.uses_tables:
            total += 12.0 * V * K
        return total

    def allocate_state(self, corpus: Corpus) -> dict[str, np.ndarray]:
        """Arrays of the right shapes, counts not yet consistent with ``z``; fresh word
        tables (built on first use).

        Every sampler keeps ``n_wk`` (V, K) and ``n_k``. Gibbs and AliasLDA also keep
        ``n_dk`` (D, K); the light sampler rebuilds the current document's n_kd in ``ndk_row``
        instead, so the memory it touches per token does not grow with K.
        """
        K = self.K
        word_counts = np.bincount(corpus.words, minlength=corpus.n_words)
        index_type = np.int32 if corpus.n_tokens < 2**31 else np.int64
        state = {
            "z": np.zeros(corpus.n_tokens, dtype=np.int32),
            "n_k": np.zeros(K, dtype=np.int32),
            "n_wk": np.zeros((corpus.n_words, K), dtype=np.int32),
            # the corpus word by word: tokens of word w are word_tok[word_ptr[w]:word_ptr[w+1]]
            "word_tok": np.argsort(corpus.words, kind="stable").astype(index_type),
            "word_ptr": np.concatenate([[0], np.cumsum(word_counts)]).astype(np.int64),
        }
        if self.sampler == "light":
            state["ndk_row"] = np.zeros(K, dtype=np.int32)  # zero between documents
            state["alpha_prob"] = np.zeros(K, dtype=np.float64)
            state["alpha_alias"] = np.zeros(K, dtype=np.int32)
        else:
            state["n_dk"] = np.zeros((corpus.n_docs, K), dtype=np.int32)
            state["scratch"] = np.zeros((2, K), dtype=np.float64)
        if self.sampler != "gibbs":
            # exact light proposals need no tables: numba still wants arrays of the right rank
            V = corpus.n_words if self.uses_tables else 1
            state.update(word_tables.allocate(V, K if self.uses_tables else 1))
            state.update(word_tables.scratch(K))
            state["ones"] = np.ones(K, dtype=np.float64)
        if self.sampler == "alias":
            state["nz"] = np.zeros(K, dtype=np.int32)
            state["pos"] = np.full(K, -1, dtype=np.int32)
        T = self.n_tasks(corpus)
        D = corpus.n_docs
        # the supervised term's arrays (kernels.supervised); T = 0 makes it vanish
        state.update(eta_kt=np.zeros((K, T)), b=np.zeros((T, D)), w=np.zeros((T, D)),
                     y=np.zeros((T, D)), r=np.zeros((T, D)), sup_A=np.zeros(K),
                     sup_c=np.zeros((4, T)),
                     sup_v=np.zeros(T), exp_prob=np.zeros(K), exp_alias=np.zeros(K, np.int32))
        return state

    def n_tasks(self, corpus: Corpus) -> int:
        """Number of supervised tasks T (0: unsupervised)."""
        return 0

    @property
    def kind_cumulative(self) -> np.ndarray:
        """Cumulative mixture probabilities of the proposal kinds (light sampler)."""
        return np.array([self.p_doc, 1.0])

    def init_state(self, corpus: Corpus, rng: np.ndarray) -> dict[str, np.ndarray]:
        """Draw a random start and the counts that go with it."""
        self.check_corpus(corpus)
        state = self.allocate_state(corpus)
        init_assignments(state["z"], self.K, rng)
        self.refresh_state(state, corpus)
        return state

    def refresh_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        """Recompute every derived array from ``z`` (after a load, or a change of K)."""
        rebuild_counts(corpus.words, corpus.doc_ptr, state["z"], state.get("n_dk"),
                       state["n_wk"], state["n_k"])
        if self.sampler == "light":
            build_alias(self.alpha_vector, state["alpha_prob"], state["alpha_alias"],
                        state["al_work"])

    def validate_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        """Reject saved state that does not fit this model and corpus: every value the
        kernels use as an index in range, every number finite (a checkpoint is untrusted
        input; ``topicsup.checkpoint``). Shapes and dtypes are checked by the caller."""
        z = state["z"]
        if z.shape != (corpus.n_tokens,):
            raise ValueError(f"state/z has shape {z.shape}, expected ({corpus.n_tokens},)")
        if z.size and (z.min() < 0 or z.max() >= self.K):
            raise ValueError(f"state/z has topics outside 0..{self.K - 1}")
        if "wt_samples" in state and "wt_samples" in self.saved_state:
            s, u = state["wt_samples"], state["wt_used"]
            if s.size and (s.min() < 0 or s.max() >= self.K):
                raise ValueError(f"state/wt_samples holds topics outside 0..{self.K - 1}")
            if u.size and (u.min() < 0 or u.max() > self.K):
                raise ValueError(f"state/wt_used holds positions outside 0..{self.K}")
            for k in ("wt_q", "wt_mass"):
                if not (np.isfinite(state[k]).all() and (state[k] >= 0).all()):
                    raise ValueError(f"state/{k} must hold finite non-negative numbers")
            live = u < self.K   # tables in use; the others are rebuilt before their next draw
            q, mass = state["wt_q"][live], state["wt_mass"][live]
            if not ((q > 0).all() and np.allclose(mass, q.sum(axis=1), rtol=1e-9)):
                raise ValueError("state/wt_q and wt_mass: a table in use must hold positive "
                                 "values q (every topic has mass beta > 0) summing to its mass")

    # ------------------------------------------------------------------ sampling
    def sweep_block(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                    d_start: int, d_end: int, info: np.ndarray) -> None:
        """Run the sampler on documents ``d_start .. d_end-1``, adding to ``info``."""
        st = state
        sup, cycle_order, kind_cum = self.topic_terms(state)
        if self.sampler == "light":
            light.light_sweep(corpus.words, corpus.doc_ptr, st["z"], st["n_wk"], st["n_k"],
                              st["ndk_row"], self.alpha_vector, self.beta, rng,
                              d_start, d_end, self.mh_steps, COMPOSITIONS[self.composition],
                              cycle_order, kind_cum, st["alpha_prob"],
                              st["alpha_alias"], not isinstance(self.alpha, tuple),
                              st["word_ptr"], st["word_tok"], self.word_proposal == "stale",
                              st["ones"], st["wt_samples"], st["wt_q"], st["wt_mass"],
                              st["wt_used"], st["al_prob"], st["al_alias"], st["al_work"],
                              *sup, st["exp_prob"], st["exp_alias"], info)
            return
        common = (corpus.words, corpus.doc_ptr, st["z"], st["n_dk"], st["n_wk"], st["n_k"],
                  self.alpha_vector, self.beta, rng, d_start, d_end)
        if self.sampler == "gibbs":
            gibbs.gibbs_sweep(*common, *sup, st["scratch"], info)
        else:
            aliaslda.alias_sweep(*common, self.mh_steps, st["wt_samples"], st["wt_q"],
                                 st["wt_mass"], st["wt_used"], st["al_prob"], st["al_alias"],
                                 st["al_work"], st["nz"], st["pos"], st["scratch"][0], info)

    def topic_terms(self, state: dict[str, np.ndarray]
                    ) -> tuple[tuple, np.ndarray, np.ndarray]:
        """What the topic kernels read besides the counts: the supervised term's arrays
        (``kernels.supervised``, from ``factor`` and ``loss_params`` to ``v``; T = 0 tasks for
        LDA), the order of the proposal kinds in a cycle and their cumulative mixture
        probabilities (light sampler)."""
        st = state
        sup = (supervised.AUGMENTED, np.zeros(0), st["eta_kt"], st["b"], st["w"], st["y"],
               st["r"], st["sup_A"], st["sup_c"], st["sup_v"])
        return sup, self.cycle_order, self.kind_cumulative

    @property
    def cycle_order(self) -> np.ndarray:
        """The proposal kinds a cycle runs in turn (light sampler): doc, word."""
        return np.arange(len(light.KINDS), dtype=np.int64)

    def end_sweep(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                  sweep: int) -> list[dict[str, Any]]:
        """Work done once per sweep after the topic sweep (weights, augmentation); returns
        history rows. LDA has none."""
        return []

    def trace_arrays(self, state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Arrays the Session records after every sweep (``Session.trace``). LDA has none."""
        return {}

    def sweep_metrics(self, info: np.ndarray) -> list[dict[str, Any]]:
        """History rows for one sweep's info record: the topic change rate, and per proposal
        kind the proposals made, the acceptance rate and the mean acceptance probability."""
        tokens = info[info_layout.TOKENS]
        rows = [{"metric": "topic_change_rate",
                 "value": info[info_layout.CHANGED] / tokens if tokens else float("nan"),
                 "proposal": None}]
        for p, kind in enumerate(self.proposal_kinds):
            b = info_layout.FIRST_KIND + info_layout.PER_KIND * p
            made = info[b]
            rows += [
                {"metric": "proposals", "value": made, "proposal": kind},
                {"metric": "acceptance_rate", "value": info[b + 1] / made if made else np.nan,
                 "proposal": kind},
                {"metric": "mean_acceptance_probability",
                 "value": info[b + 2] / made if made else np.nan, "proposal": kind},
            ]
        return rows

    def log_joint(self, state: dict[str, np.ndarray], corpus: Corpus) -> float:
        """log p(W, Z) with Theta and Phi collapsed (MATH.md sec. 4)."""
        return float(lda_log_joint(corpus.doc_ptr, state["z"], state["word_ptr"],
                                   state["word_tok"], state["n_k"], self.alpha_vector,
                                   self.beta))

    # ------------------------------------------------------------------ estimates
    def doc_topic_counts(self, state: dict[str, np.ndarray], corpus: Corpus) -> np.ndarray:
        """n_dk as a dense (D, K) int32 matrix."""
        if "n_dk" in state:
            return state["n_dk"]
        return doc_topic_counts(corpus.doc_ptr, state["z"], self.K)

    def topic_word(self, state: dict[str, np.ndarray]) -> np.ndarray:
        """Point estimate phi[k, w] = (n_kw + beta) / (n_k + V beta) (MATH.md sec. 5)."""
        n_wk = state["n_wk"]
        V = n_wk.shape[0]
        return ((n_wk.T + self.beta) / (state["n_k"][:, None] + V * self.beta))

    def doc_topic(self, state: dict[str, np.ndarray], corpus: Corpus) -> np.ndarray:
        """Point estimate theta[d, k] = (n_kd + alpha_k) / (N_d + sum alpha)."""
        a = self.alpha_vector
        n_dk = self.doc_topic_counts(state, corpus)
        return (n_dk + a) / (n_dk.sum(axis=1, keepdims=True) + a.sum())


# ---------------------------------------------------------------------- supervised models
WEIGHT_SAMPLERS = ("cholesky", "coordinate")
SUPERVISED_FACTORS = ("augmented", "marginal")
LOSSES = {"hinge": Hinge}
TASK_KINDS = ("binary", "multiclass", "multilabel")


@register
@dataclass(frozen=True)
class SupervisedLDA(LDA):
    """A supervised topic model: loss x prior x topic sampler x weight sampler (MATH.md sec. 1).

    The corpus's labels define the tasks: binary labels give one classifier (T = 1);
    multi-class and multi-label give one classifier per class on shared topics (the
    multi-task form of Zheng et al. 2015 sec. 4.1, T = C). Each task t scores a document by
    s_td = eta_t . (zbar_d, x_d) with its covariates x_d, if any.

    A sweep resamples every topic assignment with the topic sampler, then draws the weights
    and the loss's augmentation. With ``supervised_factor="augmented"`` (Zheng et al. 2015 sec.
    3.5) the topics see the augmentation's Gaussian factor, then the weights are drawn given
    (Z, augmentation) and the augmentation given (Z, eta). With ``"marginal"`` the topics see
    the loss's pseudo-likelihood itself (the augmentation integrated out), so the augmentation
    is drawn next, given (Z, eta), and the weights last: (Z, augmentation) | eta is then one
    block. Both leave the same posterior invariant (``kernels.supervised`` explains why the
    marginal factor learns in fewer sweeps).

    Parameters
    ----------
    K, alpha, beta, sampler, mh_steps, composition, word_proposal
        As for ``LDA``; ``alpha=None`` means 6.4 / K (Zheng et al. 2015 sec. 5). The samplers
        are ``"gibbs"`` (exact, O(K T) per token) and ``"light"`` (doc, word and exp MH
        proposals, O(T) per proposal).
    loss : {"hinge"}
        The loss; its augmentation supplies (b, w) (``topicsup.losses``).
    supervised_factor : {"augmented", "marginal"}
        What the topic sampler multiplies the LDA conditional by: the augmentation's Gaussian
        factor exp(b s - w s^2 / 2) (the papers' sampler, Zheng et al. 2015 eq. 15-17) or the
        loss's pseudo-likelihood psi(y | s) with the augmentation integrated out. Same
        posterior; on 20 Newsgroups the marginal factor learns the classifier in about half
        the sweeps (``kernels.supervised``). The exp proposal is exp(A_d): the factor's part
        free of the assignments (augmented) or its linearisation at a zero score (marginal).
    lam : float
        Regularisation constant of the loss (lambda of Zheng et al. 2015; the hinge is
        2 lam max(0, 1 - y s)).
    nu : float
        Prior precision of every weight, eta ~ N(0, 1/nu) (``topicsup.priors.Normal``).
    weight_sampler : {"cholesky", "coordinate"}
        Exact joint draw of each task's weights, O(M^3 + D M^2), or ``S_gibbs`` passes of
        coordinate-wise Gibbs, O(non-zeros of the features) each (Zheng et al. 2015 eq.
        23-24).
    S_gibbs : int
        Coordinate passes per sweep.
    weight_shift : bool
        End each coordinate pass with an exact joint draw of a common shift of all topic
        weights (a per-task bias the coordinates move slowly; ``kernels.weights``). Off by
        default, as in the paper.
    proposal_weights : tuple of 3 floats, optional
        Light sampler: with ``composition="mixture"`` the probabilities of the doc, word and
        exp proposals at each MH step (default equal); a cycle runs the kinds with a positive
        weight in turn (doc, word, exp). A zero switches a proposal off.
    burn_in : int
        Sweeps before weight samples enter the average used for prediction (the LDA
        initialisation included).
    lda_init_sweeps : int
        Sweeps of plain LDA that start the chain: the same topic sampler with the labels
        ignored, then the weights and the augmentation drawn given those topics, and from
        there the supervised sweeps. Only the starting point changes, not the posterior the
        chain samples. Topics organised by the words first let the classifier form in fewer
        supervised sweeps: on 20 Newsgroups (K = 200, 20 classes) 20 LDA sweeps take
        LightMedLDA to 0.77 test accuracy in 13-16 s of sampling instead of 25-37 s
        (benchmarks/README.md).

    Prediction (MATH.md sec. 5): ``fold_in`` gives held-out features with the topics fixed,
    ``decision_scores`` scores them with the averaged weights; ``ensemble_scores`` averages
    the scores over topic snapshots (``topic_snapshot``) kept during the last sweeps.
    """

    live_params = LDA.live_params + ("proposal_weights", "S_gibbs", "weight_shift",
                                     "supervised_factor")
    trace_names = ("eta",)

    alpha: float | tuple[float, ...] | None = None
    loss: str = "hinge"
    supervised_factor: str = "augmented"
    lam: float = 1.0
    nu: float = 1.0
    weight_sampler: str = "cholesky"
    S_gibbs: int = 2
    proposal_weights: tuple[float, ...] | None = None
    burn_in: int = 0
    weight_shift: bool = False
    lda_init_sweeps: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.K, (int, np.integer)) and not isinstance(self.K, bool) \
                and self.alpha is None and self.K > 0:
            object.__setattr__(self, "alpha", 6.4 / int(self.K))
        super().__post_init__()
        set_ = object.__setattr__
        if self.sampler not in ("gibbs", "light"):
            raise ValueError(f"supervised models sample topics with sampler 'gibbs' or "
                             f"'light', got {self.sampler!r}")
        check.choice("loss", self.loss, sorted(LOSSES))
        check.choice("supervised_factor", self.supervised_factor, SUPERVISED_FACTORS)
        set_(self, "lam", LOSSES[self.loss](self.lam).lam)   # the loss checks its own
        set_(self, "nu", Normal(self.nu).nu)
        check.choice("weight_sampler", self.weight_sampler, WEIGHT_SAMPLERS)
        set_(self, "weight_shift", check.flag("weight_shift", self.weight_shift))
        set_(self, "S_gibbs", check.integer("S_gibbs", self.S_gibbs, low=1, high=MAX_PASSES))
        for name in ("burn_in", "lda_init_sweeps"):
            set_(self, name, check.integer(name, getattr(self, name), low=0,
                                           high=check.INT32_MAX))
        pw = self.proposal_weights
        if pw is not None:
            if isinstance(pw, (str, bytes)) or not isinstance(pw, (tuple, list, np.ndarray)):
                raise TypeError(f"proposal_weights must be 3 numbers (doc, word, exp) or None, "
                                f"got {type(pw).__name__}")
            pw = tuple(check.number(f"proposal_weights[{j}]", x, low=0.0)
                       for j, x in enumerate(pw))
            if len(pw) != 3 or max(pw) <= 0:
                raise ValueError(f"proposal_weights must be 3 non-negative numbers (doc, word, "
                                 f"exp) with a positive sum, got {self.proposal_weights!r}")
            top = max(pw)   # scaled so the sum cannot overflow: same mixture
            set_(self, "proposal_weights", tuple(x / top for x in pw) if top > 1e300 else pw)
        self._refuse_ignored()

    def _ignored_settings(self) -> dict[str, str]:
        out = super()._ignored_settings()
        if self.weight_sampler == "cholesky":   # one exact draw: no passes, no shift
            defaults = {f.name: f.default for f in dataclasses.fields(self)}
            out.update({n: "weight_sampler='cholesky'" for n in ("S_gibbs", "weight_shift")
                        if getattr(self, n) != defaults[n]})
        return out

    # ------------------------------------------------------------------ parts of the frame
    @property
    def loss_function(self) -> Hinge:
        return LOSSES[self.loss](self.lam)

    @property
    def prior(self) -> Normal:
        return Normal(self.nu)

    @property
    def proposal_kinds(self) -> tuple[str, ...]:
        return light.SUPERVISED_KINDS if self.sampler == "light" else ()

    @property
    def kind_cumulative(self) -> np.ndarray:
        pw = np.asarray(self.proposal_weights or (1.0, 1.0, 1.0))
        cum = np.cumsum(pw / pw.sum())
        cum[-1] = 1.0
        return cum

    @property
    def cycle_order(self) -> np.ndarray:
        """The kinds with a positive ``proposal_weights`` entry (all three by default)."""
        pw = np.asarray(self.proposal_weights or (1.0, 1.0, 1.0))
        return np.flatnonzero(pw > 0).astype(np.int64)

    def get_params(self) -> dict[str, Any]:
        p = super().get_params()
        if p["proposal_weights"] is not None:
            p["proposal_weights"] = list(p["proposal_weights"])
        return p

    # ------------------------------------------------------------------ tasks
    def check_corpus(self, corpus: Corpus) -> None:
        super().check_corpus(corpus)
        if corpus.labels is None:
            raise ValueError(f"{type(self).__name__} needs a labelled corpus: corpus.labels is "
                             f"None (pass labels= when building the Corpus)")
        if corpus.labels.kind not in TASK_KINDS:
            raise ValueError(f"{type(self).__name__} with the {self.loss} loss classifies; "
                             f"corpus.labels are {corpus.labels.kind!r}, expected one of "
                             f"{TASK_KINDS}")
        lab = corpus.labels
        if lab.kind in ("binary", "multiclass"):
            present = np.unique(lab.values)
            if present.size < 2:
                raise ValueError(f"{type(self).__name__} needs documents of at least 2 classes "
                                 f"to classify; every document of the corpus's labels is "
                                 f"{lab.classes[present[0]]!r}" if present.size else
                                 f"{type(self).__name__} needs labelled documents")

    def n_tasks(self, corpus: Corpus) -> int:
        return 1 if corpus.labels.kind == "binary" else corpus.labels.n_classes

    def task_signs(self, corpus: Corpus) -> np.ndarray:
        """(T, D) labels as +-1 per task: the positive class for binary, one class per task
        (one-vs-rest within the shared model) otherwise."""
        lab = corpus.labels
        if lab.kind == "binary":
            return lab.signs[None, :].copy()
        if lab.kind == "multiclass":
            onehot = np.arange(lab.n_classes)[:, None] == lab.values[None, :]
        else:
            onehot = lab.values.T.astype(bool)
        return np.where(onehot, 1.0, -1.0)

    def n_features(self, corpus: Corpus) -> int:
        return self.K + (0 if corpus.covariates is None else corpus.covariates.shape[1])

    # ------------------------------------------------------------------ state
    @property
    def saved_state(self) -> tuple[str, ...]:
        # lda_init_left only with an LDA initialisation: checkpoints without one stay readable
        return super().saved_state + ("eta", "b", "w", "eta_sum", "eta_kept") + \
            (("lda_init_left",) if self.lda_init_sweeps else ())

    def state_bytes(self, corpus: Corpus) -> float:
        T, M, D = self.n_tasks(corpus), self.n_features(corpus), corpus.n_docs
        extra = 8.0 * T * D * 6 + 8.0 * T * M * 4
        if self.weight_sampler == "cholesky":
            extra += 16.0 * M * M   # the precision matrix and its Cholesky factor
        return super().state_bytes(corpus) + extra

    def allocate_state(self, corpus: Corpus) -> dict[str, np.ndarray]:
        state = super().allocate_state(corpus)
        T, M, D = self.n_tasks(corpus), self.n_features(corpus), corpus.n_docs
        state.update(eta=np.zeros((T, M)), eta_sum=np.zeros((T, M)),
                     eta_kept=np.zeros(1, np.int64), scores=np.zeros((T, D)),
                     prior_precision=np.zeros((T, M)),
                     lda_init_left=np.zeros(1, np.int64))
        return state

    def init_state(self, corpus: Corpus, rng: np.ndarray) -> dict[str, np.ndarray]:
        """Random topics, eta = 0, and the augmentation drawn given the zero scores."""
        state = super().init_state(corpus, rng)
        row_scores(*self.feature_rows(state, corpus), state["eta"], state["scores"])
        self.loss_function.augment(state["y"], state["scores"], rng, state["b"], state["w"])
        state["lda_init_left"][0] = self.lda_init_sweeps
        return state

    def refresh_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        super().refresh_state(state, corpus)
        state["y"][...] = self.task_signs(corpus)
        state["prior_precision"][...] = self.prior.precision(*state["eta"].shape)
        self._weights_changed(state, corpus)

    def _weights_changed(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        """Derive the kernels' view of eta: eta_kt (K, T) and the covariate scores r."""
        eta = state["eta"]
        state["eta_kt"][...] = eta[:, :self.K].T
        if corpus.covariates is not None and corpus.covariates.shape[1]:
            state["r"][...] = eta[:, self.K:] @ corpus.covariates.T
        else:
            state["r"][...] = 0.0

    def validate_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        super().validate_state(state, corpus)
        for k in ("eta", "b", "w", "eta_sum"):
            if not np.isfinite(state[k]).all():
                raise ValueError(f"state/{k} has non-finite values")
        kept = int(state["eta_kept"][0])
        if kept < 0:
            raise ValueError(f"state/eta_kept is negative ({kept})")
        # weights far beyond any draw would overflow the kernels' products
        if np.abs(state["eta"]).max(initial=0.0) > MAX_WEIGHT or \
                np.abs(state["eta_sum"]).max(initial=0.0) > MAX_WEIGHT * max(kept, 1):
            raise ValueError(f"state/eta or eta_sum exceed {MAX_WEIGHT:g} in magnitude")
        try:
            self.loss_function.check_augmentation(self.task_signs(corpus), state["b"],
                                                  state["w"])
        except ValueError as e:
            raise ValueError(f"state/b and state/w: {e}") from None
        if not 0 <= state["lda_init_left"][0] <= self.lda_init_sweeps:
            raise ValueError(f"state/lda_init_left {state['lda_init_left'][0]} is outside 0.."
                             f"{self.lda_init_sweeps} (lda_init_sweeps)")

    def features(self, state: dict[str, np.ndarray], corpus: Corpus) -> np.ndarray:
        """X (D, M) = (zbar_d, x_d) from the current assignments, as a dense array."""
        X = np.zeros((corpus.n_docs, self.n_features(corpus)))
        row_ptr, cols, vals = self.feature_rows(state, corpus)
        X[np.repeat(np.arange(corpus.n_docs), np.diff(row_ptr)), cols] = vals
        return X

    def feature_rows(self, state: dict[str, np.ndarray], corpus: Corpus
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The features (zbar_d, x_d) by row (``kernels.weights.topic_rows``): row pointers,
        ascending columns and values of the non-zeros, O(tokens + D K)."""
        cov = corpus.covariates if corpus.covariates is not None \
            else np.zeros((corpus.n_docs, 0))
        return topic_rows(corpus.doc_ptr, state["z"], self.K, cov, np.zeros(self.K, np.int32))

    # ------------------------------------------------------------------ sampling
    @staticmethod
    def initialising(state: dict[str, np.ndarray]) -> bool:
        """Whether the chain is still in its LDA initialisation (``lda_init_sweeps``)."""
        return bool(state["lda_init_left"][0] > 0)

    def topic_terms(self, state: dict[str, np.ndarray]
                    ) -> tuple[tuple, np.ndarray, np.ndarray]:
        if self.initialising(state):
            K, D = self.K, state["b"].shape[1]
            # zero tasks: the supervised factors vanish, as for LDA, and no exp proposal
            empty = np.zeros((0, D))
            sup = (supervised.AUGMENTED, np.zeros(0), np.zeros((K, 0)), empty, empty, empty,
                   empty, np.zeros(K), np.zeros((4, 0)), np.zeros(0))
            return sup, LDA.cycle_order.fget(self), LDA.kind_cumulative.fget(self)
        sup, cycle_order, kind_cum = super().topic_terms(state)
        if self.supervised_factor == "marginal":
            loss = self.loss_function
            sup = (loss.marginal_factor, loss.marginal_params()) + sup[2:]
        return sup, cycle_order, kind_cum

    def end_sweep(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                  sweep: int) -> list[dict[str, Any]]:
        """eta | Z, augmentation; then the augmentation | Z, eta. Rows: training fit.
        During the LDA initialisation nothing, until its last sweep."""
        if self.initialising(state):
            state["lda_init_left"][0] -= 1
            if self.initialising(state):
                return []
        rows = self.feature_rows(state, corpus)
        y, scores = state["y"], state["scores"]
        marginal = self.supervised_factor == "marginal"
        if marginal:  # the topics integrated the augmentation out: draw it given them first
            row_scores(*rows, state["eta"], scores)
            self.loss_function.augment(y, scores, rng, state["b"], state["w"])
        try:
            sample_weights(*rows, state["b"], state["w"], state["prior_precision"],
                           state["eta"], scores, self.weight_sampler == "cholesky",
                           self.S_gibbs, rng, self.K if self.weight_shift else 0, marginal)
        except np.linalg.LinAlgError:
            raise ValueError(f"the weights' posterior precision is not positive definite in "
                             f"floating point (nu = {self.nu:g} against lam = {self.lam:g}; "
                             f"collinear or constant covariates make this likely): start a "
                             f"Session with a larger nu, or standardize the covariates and "
                             f"drop duplicated ones") from None
        kind = corpus.labels.kind
        rows = [{"metric": "train_" + self.score_name(kind),
                 "value": self.score_labels(y, scores, kind), "proposal": None},
                {"metric": f"{self.loss}_loss", "value": self.loss_function.mean_loss(y, scores),
                 "proposal": None}]
        if not marginal:
            self.loss_function.augment(y, scores, rng, state["b"], state["w"])
        self._weights_changed(state, corpus)
        if sweep > self.burn_in:
            state["eta_sum"] += state["eta"]
            state["eta_kept"][0] += 1
        return rows

    def log_joint(self, state: dict[str, np.ndarray], corpus: Corpus) -> float:
        """Collapsed LDA log joint + the loss's log pseudo-likelihood + log prior of eta."""
        scores = np.zeros_like(state["scores"])
        row_scores(*self.feature_rows(state, corpus), state["eta"], scores)
        return (super().log_joint(state, corpus)
                + self.loss_function.log_pseudo_likelihood(state["y"], scores)
                + self.prior.log_density(state["eta"]))

    def trace_arrays(self, state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Arrays the Session records after every sweep: the weights eta (T, M)."""
        return {"eta": state["eta"].astype(np.float32)}

    def task_names(self, corpus: Corpus) -> list[str]:
        """One name per task: the positive class for binary labels, else the classes."""
        lab = corpus.labels
        return [lab.classes[1] if len(lab.classes) > 1 else "positive"] \
            if lab.kind == "binary" else list(lab.classes)

    # ------------------------------------------------------------------ prediction
    def coefficients(self, state: dict[str, np.ndarray]) -> np.ndarray:
        """eta averaged over the kept samples (T, M); the current eta before any is kept."""
        kept = int(state["eta_kept"][0])
        return state["eta_sum"] / kept if kept else state["eta"].copy()

    def topic_snapshot(self, state: dict[str, np.ndarray]) -> np.ndarray:
        """The current topics phi as a (V, K) float32 array, to keep for ``ensemble_scores``."""
        return np.ascontiguousarray(self.topic_word(state).T, dtype=np.float32)

    def fold_in(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                n_burn: int = 10, n_keep: int = 10,
                phi_wk: np.ndarray | None = None) -> np.ndarray:
        """Held-out features (D, M): zbar from ``n_keep`` fold-in sweeps after ``n_burn``
        with the topics fixed at their point estimate (or at ``phi_wk``, a
        ``topic_snapshot``), then the covariates (MATH.md sec. 5). ``rng`` is the key of the
        documents' own streams (not advanced): each document draws from the stream of its
        content, so its features do not depend on the other documents of ``corpus``."""
        V = state["n_wk"].shape[0]
        check.allocation(f"folding in with K = {self.K} topics over {V} words",
                         16.0 * V * self.K + 8.0 * corpus.n_docs * self.K)
        if phi_wk is None:
            phi_wk = self.topic_word(state).T
        if phi_wk.shape != (V, self.K):
            raise ValueError(f"phi_wk must have shape (V, K) = ({V}, {self.K}), "
                             f"got {phi_wk.shape}")
        phi_wk = np.ascontiguousarray(phi_wk, dtype=np.float64)
        D = corpus.n_docs
        zbar = np.zeros((D, self.K))
        fold_in_sweeps(corpus.words, corpus.doc_ptr, phi_wk, self.alpha_vector, int(n_burn),
                       int(n_keep), rng, content_labels(corpus.words, corpus.doc_ptr),
                       np.zeros(corpus.n_tokens, np.int32), zbar)
        if corpus.covariates is not None and corpus.covariates.shape[1]:
            return np.hstack([zbar, corpus.covariates])
        return zbar

    def decision_scores(self, state: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
        """(D, T) scores of features X with the averaged weights."""
        eta = self.coefficients(state)
        if X.shape[1] != eta.shape[1]:
            raise ValueError(f"features have {X.shape[1]} columns, the model's weights "
                             f"{eta.shape[1]} (K = {self.K} topics + covariates)")
        scores = np.zeros((eta.shape[0], X.shape[0]))
        compute_scores(np.ascontiguousarray(X, dtype=np.float64), eta, scores)
        return scores.T

    def ensemble_scores(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                        snapshots: list[np.ndarray], n_burn: int = 10,
                        n_keep: int = 10) -> np.ndarray:
        """Decision scores (D, T) averaged over topic ``snapshots`` kept during training: one
        fold-in per snapshot, each scored with the averaged weights. Averaging over posterior
        samples of the topics, not only of the weights and of each document's topics, is the
        posterior predictive MATH.md sec. 5 approximates (on 20 Newsgroups, 20 classes, K =
        100: five snapshots two sweeps apart add about 0.005 accuracy)."""
        if not snapshots:
            raise ValueError("snapshots must hold at least one topic_snapshot")
        total = 0.0
        for j, phi_wk in enumerate(snapshots):   # a key per snapshot: independent fold-ins
            total = total + self.decision_scores(
                state, self.fold_in(state, corpus, derive(rng, j), n_burn, n_keep, phi_wk))
        return total / len(snapshots)

    @staticmethod
    def score_name(kind: str) -> str:
        """The metric a label kind is scored by: ``"f1"`` for multi-label, else accuracy."""
        return "f1" if kind == "multilabel" else "accuracy"

    @staticmethod
    def predict_labels(scores: np.ndarray, kind: str, classes: Any) -> np.ndarray:
        """Predictions from (D, T) scores by the rules of MATH.md sec. 5: class names by the
        sign (binary) or the argmax (multi-class); a (D, C) 0/1 indicator matrix of the
        classes with a positive score (multi-label)."""
        classes = np.asarray(classes, dtype=object)
        if kind == "binary":
            return classes[(scores[:, 0] > 0).astype(int)]
        if kind == "multilabel":
            return (scores > 0).astype(np.int32)
        return classes[scores.argmax(axis=1)]

    @staticmethod
    def score_labels(y: np.ndarray, scores: np.ndarray, kind: str) -> float:
        """Score (T, D) scores against (T, D) +-1 labels of a label ``kind`` by the prediction
        rules of MATH.md sec. 5: accuracy of the sign (binary) or of the argmax (multi-class),
        micro F1 of s > 0 (multi-label)."""
        if kind == "binary":
            return float(np.mean((scores[0] > 0) == (y[0] > 0)))
        if kind == "multiclass":
            return float(np.mean(scores.argmax(axis=0) == y.argmax(axis=0)))
        return micro_f1(y > 0, scores > 0)


def micro_f1(truth: np.ndarray, predicted: np.ndarray) -> float:
    """Micro-averaged F1 of boolean indicator arrays of one shape."""
    tp = float(np.logical_and(truth, predicted).sum())
    denom = float(truth.sum() + predicted.sum())
    return 2 * tp / denom if denom else 1.0


@register
@dataclass(frozen=True)
class MedLDA(SupervisedLDA):
    """Gibbs MedLDA (Zhu et al. 2014; Zheng et al. 2015 sec. 3.1-3.2): hinge loss, normal
    prior, exact collapsed Gibbs topics (O(K T) per token), exact Cholesky weights."""

    sampler: str = "gibbs"
    weight_sampler: str = "cholesky"


@register
@dataclass(frozen=True)
class LightMedLDA(SupervisedLDA):
    """LightMedLDA (Zheng et al. 2015): hinge loss, normal prior, Metropolis-Hastings topic
    proposals (``mh_steps`` = S_mh = 6), coordinate-Gibbs weights (S_gibbs = 2).

    The defaults are the fastest configuration measured on 20 Newsgroups (benchmarks/README.md):
    the topics see the hinge's pseudo-likelihood with the augmentation integrated out
    (``supervised_factor="marginal"``) and the doc and word proposals run in turn
    (``composition="cycle"``, ``proposal_weights=(1, 1, 0)``: the exp proposal off). At
    K = 100-400, 20 classes, that reaches 0.79-0.81 test accuracy in 25-35 sweeps where the
    paper's configuration needs 40-60 and ends lower; at K = 20 it ends below it (use Gibbs
    MedLDA there, which is also cheaper per sweep). ``LightMedLDA.as_published()`` is the
    paper's sampler: the augmented factor and a uniform mixture of the doc, word and exp
    proposals. Both sample the same posterior.
    """

    sampler: str = "light"
    mh_steps: int = 6
    composition: str = "cycle"
    weight_sampler: str = "coordinate"
    supervised_factor: str = "marginal"
    proposal_weights: tuple[float, ...] | None = (1.0, 1.0, 0.0)

    @classmethod
    def as_published(cls, **params: Any) -> "LightMedLDA":
        """The sampler of Zheng et al. 2015 (sec. 3.3, 5): the augmented factor
        exp(b s - w s^2 / 2) (eq. 15-17) and a uniform mixture of the doc, word and exp
        proposals (eq. 19-21); ``params`` as for ``LightMedLDA`` on top."""
        return cls(**{"supervised_factor": "augmented", "composition": "mixture",
                      "proposal_weights": (1.0, 1.0, 1.0), **params})
