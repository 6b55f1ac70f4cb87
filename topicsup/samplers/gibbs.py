"""Collapsed Gibbs: the exact conditional, O(K) per token (O(K T) with T label tasks); the
reference every other sampler is tested against (``kernels.gibbs``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..kernels import gibbs
from ..kernels.counts import Dirichlet
from . import REGISTRY, TopicSampler


class GibbsArrays(NamedTuple):
    """Scratch (2, K): the running cumulative conditional and 1 / (n_k + V beta)."""

    scratch: np.ndarray


@REGISTRY.register
@dataclass(frozen=True)
class Gibbs(TopicSampler):
    """Exact collapsed Gibbs sampling (Griffiths & Steyvers 2004; the label factor of Zheng et
    al. 2015 eq. 15-17 for supervised models). No settings, no proposals."""

    name = "gibbs"
    stepping = "exact collapsed Gibbs"

    def allocate(self, model: Any, corpus: Any) -> GibbsArrays:
        return GibbsArrays(np.zeros((2, model.K), np.float64))

    def state_bytes(self, model: Any, corpus: Any) -> float:
        return 4.0 * corpus.n_docs * model.K

    def sweep(self, model, tokens, counts, own, term, supervised, rng, d_start, d_end, info):
        gibbs.gibbs_sweep(tokens, counts, Dirichlet(model.alpha_vector, model.beta), term,
                          own.scratch, rng, d_start, d_end, info)
