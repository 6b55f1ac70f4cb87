"""Model specifications: a user's choice turned into kernels, their parameters and their state.

A model here is loss x prior x topic sampler x weight sampler (MATH.md sec. 1). Unsupervised
LDA is the case with no loss; the supervised presets build on the same topic samplers.

A model object is a small, immutable description. It knows how to

* ``init_state(corpus, rng)``: allocate and initialise the state arrays (a dict of ndarrays);
* ``sweep_block(state, corpus, rng, d_start, d_end, info)``: run its kernels on a block of
  documents (the Session splits a sweep into blocks so it can stop between them);
* ``log_joint(state, corpus)``: the convergence monitor;
* ``sweep_metrics(info)``: turn the info record of a sweep into tidy history rows;
* ``get_params()`` / ``from_params``: plain JSON-able parameters, so checkpoints hold no code.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .corpus import Corpus
from .kernels import aliaslda, gibbs, info as info_layout, light, word_tables
from .kernels.alias import build_alias
from .kernels.counts import doc_topic_counts, init_assignments, rebuild_counts
from .kernels.loglik import lda_log_joint

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
    return _REGISTRY[name](**params)


def _positive_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


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

    K: int = 20
    alpha: float | tuple[float, ...] = 0.1
    beta: float = 0.01
    sampler: str = "gibbs"
    mh_steps: int = 2
    composition: str = "cycle"
    p_doc: float = 0.5
    word_proposal: str = "exact"

    def __post_init__(self) -> None:
        if self.word_proposal not in ("exact", "stale"):
            raise ValueError(f"word_proposal must be 'exact' or 'stale', got "
                             f"{self.word_proposal!r}")
        if self.sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {sorted(SAMPLERS)}, got {self.sampler!r}")
        if self.composition not in COMPOSITIONS:
            raise ValueError(f"composition must be one of {sorted(COMPOSITIONS)}, got "
                             f"{self.composition!r}")
        if isinstance(self.mh_steps, bool) or not isinstance(self.mh_steps, (int, np.integer)) \
                or self.mh_steps < 1:
            raise ValueError(f"mh_steps must be a positive integer, got {self.mh_steps!r}")
        object.__setattr__(self, "mh_steps", int(self.mh_steps))
        p_doc = _positive_number("p_doc", self.p_doc)
        if p_doc >= 1.0:
            raise ValueError(f"p_doc must be in (0, 1), got {self.p_doc!r}")
        object.__setattr__(self, "p_doc", p_doc)
        if isinstance(self.K, bool) or not isinstance(self.K, (int, np.integer)):
            raise TypeError(f"K must be an integer number of topics, got {self.K!r}")
        if self.K < 2:
            raise ValueError(f"K must be at least 2, got {self.K}")
        object.__setattr__(self, "K", int(self.K))
        if isinstance(self.alpha, (list, tuple, np.ndarray)):
            a = tuple(_positive_number("alpha", x) for x in self.alpha)
            if len(a) != self.K:
                raise ValueError(f"alpha has {len(a)} values but K = {self.K}")
            object.__setattr__(self, "alpha", a)
        else:
            object.__setattr__(self, "alpha", _positive_number("alpha", self.alpha))
        object.__setattr__(self, "beta", _positive_number("beta", self.beta))

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
        return state

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
        """Reject saved assignments that do not fit this model and corpus."""
        z = state["z"]
        if z.shape != (corpus.n_tokens,):
            raise ValueError(f"saved z has shape {z.shape}, expected ({corpus.n_tokens},)")
        if z.size and (z.min() < 0 or z.max() >= self.K):
            raise ValueError(f"saved z has topics outside 0..{self.K - 1}")
        if "wt_samples" in state:
            s, u = state["wt_samples"], state["wt_used"]
            if s.size and (s.min() < 0 or s.max() >= self.K) or u.min() < 0 or u.max() > self.K:
                raise ValueError("saved word tables hold values outside their ranges")

    # ------------------------------------------------------------------ sampling
    def sweep_block(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                    d_start: int, d_end: int, info: np.ndarray) -> None:
        """Run the sampler on documents ``d_start .. d_end-1``, adding to ``info``."""
        st = state
        if self.sampler == "light":
            light.light_sweep(corpus.words, corpus.doc_ptr, st["z"], st["n_wk"], st["n_k"],
                              st["ndk_row"], self.alpha_vector, self.beta, rng,
                              d_start, d_end, self.mh_steps, COMPOSITIONS[self.composition],
                              self.p_doc, st["alpha_prob"], st["alpha_alias"],
                              not isinstance(self.alpha, tuple), st["word_ptr"], st["word_tok"],
                              self.word_proposal == "stale", st["ones"], st["wt_samples"],
                              st["wt_q"], st["wt_mass"], st["wt_used"], st["al_prob"],
                              st["al_alias"], st["al_work"], info)
            return
        common = (corpus.words, corpus.doc_ptr, st["z"], st["n_dk"], st["n_wk"], st["n_k"],
                  self.alpha_vector, self.beta, rng, d_start, d_end)
        if self.sampler == "gibbs":
            gibbs.gibbs_sweep(*common, st["scratch"], info)
        else:
            aliaslda.alias_sweep(*common, self.mh_steps, st["wt_samples"], st["wt_q"],
                                 st["wt_mass"], st["wt_used"], st["al_prob"], st["al_alias"],
                                 st["al_work"], st["nz"], st["pos"], st["scratch"][0], info)

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
