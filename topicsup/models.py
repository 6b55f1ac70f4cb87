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
from typing import Any, ClassVar

import numpy as np

from .corpus import Corpus
from .kernels import gibbs
from .kernels.counts import init_assignments, rebuild_counts
from .kernels.loglik import lda_log_joint

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
    """Latent Dirichlet allocation sampled by exact collapsed Gibbs (O(K) per token).

    Parameters
    ----------
    K : int
        Number of topics.
    alpha : float or sequence of float
        Document-topic Dirichlet parameter: a symmetric value per topic, or K values.
    beta : float
        Symmetric topic-word Dirichlet parameter.
    """

    K: int = 20
    alpha: float | tuple[float, ...] = 0.1
    beta: float = 0.01

    sampler: ClassVar[str] = "gibbs"
    info_size: ClassVar[int] = gibbs.INFO_SIZE

    def __post_init__(self) -> None:
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

    def allocate_state(self, corpus: Corpus) -> dict[str, np.ndarray]:
        """Arrays of the right shapes, counts not yet consistent with ``z``."""
        return {
            "z": np.zeros(corpus.n_tokens, dtype=np.int32),
            "n_dk": np.zeros((corpus.n_docs, self.K), dtype=np.int32),
            "n_wk": np.zeros((corpus.n_words, self.K), dtype=np.int32),
            "n_k": np.zeros(self.K, dtype=np.int32),
            "scratch": np.zeros((2, self.K), dtype=np.float64),
        }

    def init_state(self, corpus: Corpus, rng: np.ndarray) -> dict[str, np.ndarray]:
        """Draw a random start and the counts that go with it."""
        self.check_corpus(corpus)
        state = self.allocate_state(corpus)
        init_assignments(state["z"], self.K, rng)
        self.refresh_state(state, corpus)
        return state

    def refresh_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        """Recompute every derived array from ``z`` (after a load, or a change of K)."""
        rebuild_counts(corpus.words, corpus.doc_ptr, state["z"], state["n_dk"], state["n_wk"],
                       state["n_k"])

    def validate_state(self, state: dict[str, np.ndarray], corpus: Corpus) -> None:
        """Reject saved assignments that do not fit this model and corpus."""
        z = state["z"]
        if z.shape != (corpus.n_tokens,):
            raise ValueError(f"saved z has shape {z.shape}, expected ({corpus.n_tokens},)")
        if z.size and (z.min() < 0 or z.max() >= self.K):
            raise ValueError(f"saved z has topics outside 0..{self.K - 1}")

    # The arrays that define the chain; all others are derived and rebuilt on load.
    saved_state: ClassVar[tuple[str, ...]] = ("z",)

    # ------------------------------------------------------------------ sampling
    def sweep_block(self, state: dict[str, np.ndarray], corpus: Corpus, rng: np.ndarray,
                    d_start: int, d_end: int, info: np.ndarray) -> None:
        gibbs.gibbs_sweep(corpus.words, corpus.doc_ptr, state["z"], state["n_dk"],
                          state["n_wk"], state["n_k"], self.alpha_vector, self.beta, rng,
                          d_start, d_end, state["scratch"], info)

    def sweep_metrics(self, info: np.ndarray) -> list[dict[str, Any]]:
        """History rows for one sweep's info record."""
        tokens = int(info[gibbs.INFO_TOKENS])
        return [{"metric": "topic_change_rate",
                 "value": info[gibbs.INFO_CHANGED] / tokens if tokens else float("nan"),
                 "proposal": None}]

    def log_joint(self, state: dict[str, np.ndarray], corpus: Corpus) -> float:
        """log p(W, Z) with Theta and Phi collapsed (MATH.md sec. 4)."""
        return float(lda_log_joint(corpus.doc_ptr, state["n_dk"], state["n_wk"], state["n_k"],
                                   self.alpha_vector, self.beta))

    # ------------------------------------------------------------------ estimates
    def topic_word(self, state: dict[str, np.ndarray]) -> np.ndarray:
        """Point estimate phi[k, w] = (n_kw + beta) / (n_k + V beta) (MATH.md sec. 5)."""
        n_wk = state["n_wk"]
        V = n_wk.shape[0]
        return ((n_wk.T + self.beta) / (state["n_k"][:, None] + V * self.beta))

    def doc_topic(self, state: dict[str, np.ndarray]) -> np.ndarray:
        """Point estimate theta[d, k] = (n_kd + alpha_k) / (N_d + sum alpha)."""
        a = self.alpha_vector
        n_dk = state["n_dk"]
        return (n_dk + a) / (n_dk.sum(axis=1, keepdims=True) + a.sum())
