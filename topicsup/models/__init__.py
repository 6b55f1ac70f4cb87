"""Model specifications: a user's choice turned into parts, their parameters and their state.

A model is loss x prior x topic sampler x weight sampler on a label task (docs/math.md sec. 1;
``topicsup.parts``). Unsupervised LDA (``models.lda``) is the case with no loss; the
supervised models (``models.supervised``) compose the parts by name, and the presets
(``models.presets``) are defaults of that composition.

A model object is a small description with scikit-learn's ``get_params`` / ``set_params``. It
knows how to

* ``init_state(corpus, rng)``: allocate and initialise the state (a ``State`` record);
* ``sweep_block(state, corpus, rng, d_start, d_end, info)``: run its topic sampler on a block
  of documents (the Session splits a sweep into blocks so it can stop between them);
  ``end_sweep`` then does the once-per-sweep work (weights, augmentation, prior);
* ``log_joint(state, corpus)``: the convergence monitor;
* ``sweep_metrics(info)``: turn the info record of a sweep into tidy history rows;
* ``get_params()`` / ``model_from_params``: plain parameters, so checkpoints hold no code.
"""

from __future__ import annotations

from typing import Any

from ..losses import REGISTRY as LOSSES
from ..losses.hinge import Hinge
from ..priors import REGISTRY as PRIORS
from ..priors.normal import Normal
from ..samplers import MAX_MH_STEPS, REGISTRY as SAMPLERS
from ..samplers.light import COMPOSITIONS
from ..tasks import micro_f1
from ..weight_samplers import MAX_PASSES, REGISTRY as WEIGHT_SAMPLERS
from .base import Model, model_class, register
from ..problem import State
from .lda import DIRICHLET_RANGE, FOLD_IN_BURN, FOLD_IN_KEEP, LDA, MAX_TOPICS
from . import presets
from .presets import *  # noqa: F403  (every preset, listed in presets.__all__)
from .mc_medlda import MCMedLDA
from .pdp import PDPLDA
from .hdp import HDPLDA
from .dmr import DMR
from .logistic_normal import LogisticNormal
from .supervised import (MAX_FOLD_IN_SWEEPS, MAX_WEIGHT, SUPERVISED_FACTORS, Supervision,
                         SupervisedLDA, Weights)

LAM_RANGE = Hinge.LAM_RANGE          # the loss and the prior own their parameters' ranges
NU_RANGE = Normal.NU_RANGE


def model_from_params(name: str, params: dict[str, Any]) -> Model:
    """Rebuild a model from ``(type(model).__name__, model.get_params())``."""
    cls = model_class(name)
    if issubclass(cls, SupervisedLDA) and "supervised_factor" not in params:
        # saved before the marginal factor existed: the chain used the augmented one
        params = {**params, "supervised_factor": "augmented"}
    return cls(**params)


__all__ = ["COMPOSITIONS", "DIRICHLET_RANGE", "DMR", "FOLD_IN_BURN", "FOLD_IN_KEEP", "HDPLDA",
           "LAM_RANGE", "LDA", "LOSSES", "LogisticNormal", "MCMedLDA", "PDPLDA",
           "MAX_FOLD_IN_SWEEPS", "MAX_MH_STEPS", "MAX_PASSES", "MAX_TOPICS", "MAX_WEIGHT",
           "Model", "NU_RANGE", "PRIORS", "SAMPLERS", "SUPERVISED_FACTORS", "State",
           "Supervision", "SupervisedLDA", "WEIGHT_SAMPLERS", "Weights", "micro_f1",
           "model_from_params", "register", *presets.__all__]
