"""Topic samplers: each a part (``topicsup.parts``) owning its settings, the arrays it keeps
beside the counts, which of them a checkpoint saves, its sweep over a block of documents, its
proposal kinds, its live settings and its token stepping for the inspector (or none).

A sampler module holds the part, and its docstring names the numba kernel it runs, a module
of ``topicsup.kernels``: mostly under the sampler's name (``samplers.gibbs`` runs
``kernels.gibbs``), but the alias sampler's is ``kernels.aliaslda`` (``kernels.alias`` holds
the alias tables it shares with the light sampler) and the partitioned sampler runs
``kernels.partitioned`` with ``kernels.sparse_gibbs``'s document loop. ``samplers.auto``
runs none (it chooses one of the others; ``samplers.measured`` holds its tables' records) and
``samplers.stepping`` is the teaching replay, not a sampler. ``REGISTRY`` finds the samplers
by name (``REGISTRY.names()`` lists them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ..arrays import F64, Rng, Row
from ..corpus import Corpus
from ..kernels.counts import Counts
from ..kernels.info import SweepInfo
from ..kernels.supervised import Term
from ..parts import Part, Registry
from ..problem import Problem

REGISTRY: Registry[TopicSampler] = Registry("sampler", __name__)

MAX_MH_STEPS = 1024   # MH steps per token (a sweep's cost grows with it)
MAX_LABEL_MATRIX_TOPICS = 2048   # the K x K label matrix's size limit (32 MB at K = 2048)


class NoArrays(NamedTuple):
    """The record of a sampler that keeps nothing beside the counts."""


@dataclass(frozen=True)
class TopicSampler(Part):
    """Base of the topic samplers. ``problem`` arguments are the model bound to its corpus
    (``topicsup.problem.Problem``: K, alpha, beta, the tokens); ``supervised`` says whether
    the sweep has a label term (a supervised model's LDA initialisation sweeps have none).
    ``SAVED`` names the arrays of its record that a checkpoint keeps (``Part``)."""

    # whether it keeps the (D, K) document-topic matrix (else Counts.n_dk has shape (0, K))
    doc_rows: ClassVar[bool] = True
    # whether it can sample a supervised model's topics (the label factor exp(g_d(k)))
    supports_supervision: ClassVar[bool] = True
    # the token inspector's name for the sampler (``topicsup.inspector``); a sampler with one
    # implements ``samplers.stepping.Stepping``, its token body step by step (``begin_pass``,
    # ``first_draws``, ``load_document``, ``proposals``, ``step_token``, each given the typed
    # ``StepContext`` and ``StepPass``); "" declares it has no stepping
    stepping: ClassVar[str] = ""
    # whether its documents' step can run on any backend (``topicsup.backends``): its
    # ``sweep`` then takes ``backend=``; the others run on this process's threads only
    distributable: ClassVar[bool] = False
    # whether it is a Markov chain on Z (False for a point estimator such as iMedLDA's
    # importance sampler)
    markov: ClassVar[bool] = True
    # whether it takes a label term linear in zbar (w = 0: Monte Carlo MedLDA's tilt); the
    # samplers that take any label term (``supports_supervision``) take this one
    supports_tilt: ClassVar[bool] = False
    # whether each sweep leaves the exact posterior invariant (False for an approximation
    # such as the partitioned sampler's stale topic totals)
    exact: ClassVar[bool] = True

    def kinds(self, supervised: bool) -> tuple[str, ...]:
        """The Metropolis-Hastings proposal kinds it records acceptance for."""
        return ()

    def counters(self, supervised: bool) -> tuple[str, ...]:
        """Names of the counts it adds to the end of the info record, after the kinds."""
        return ()

    def counter_rows(self, values: F64, rec: SweepInfo) -> list[Row]:
        """History rows from its counters ``values`` and the decoded record ``rec``
        (``kernels.info.SweepInfo``)."""
        return []

    def allocate(self, problem: Problem) -> NamedTuple:
        """Its own arrays beside the counts (fresh; ``refresh`` fills what derives from
        the counts)."""
        return NoArrays()

    def refresh(self, problem: Problem, own: Any) -> None:
        """Rebuild what derives from the model's parameters (after a load or a new start)."""

    def validate(self, problem: Problem, own: Any) -> None:
        """Refuse saved arrays the kernel could not use safely (a checkpoint is untrusted)."""

    def validate_mid_sweep(self, problem: Problem, own: Any) -> None:
        """Refuse saved arrays that cannot continue a sweep stopped part-way (what the
        sweep's first block draws must be in the file); nothing for most samplers."""

    def state_bytes(self, problem: Problem) -> float:
        """Bytes of its own largest arrays."""
        return 0.0

    def estimates(self, own: Any) -> tuple[F64, F64] | None:
        """The point estimates (theta (D, K), phi (V, K) word-major) a sampler that is not a
        Markov chain keeps as its state (``importance``), or None: the model estimates them
        from the counts."""
        return None

    def fold_in(self, alpha: F64, beta: float, phi_wk: F64, corpus: Corpus, rng: Rng,
                n_burn: int, n_keep: int) -> F64 | None:
        """Held-out topic proportions (D, K) of ``corpus`` its own way, given the topics
        ``phi_wk`` (V, K) and the Dirichlet parameters, or None: the common fold-in."""
        return None

    def sweep(self, problem: Problem, counts: Counts, own: Any, term: Term, supervised: bool,
              rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        """Resample the topics of documents ``d_start .. d_end-1`` of ``problem.tokens``
        (``counts`` and ``term`` are records of ``kernels.counts``, ``kernels.supervised``;
        ``own`` the record ``allocate`` gave)."""
        raise NotImplementedError
