"""The typed records of a chain: the ``Problem`` it samples, its ``State`` and the ``Fit``
every reader takes.

A model is parameters; a corpus is data. Everything a sweep reads that follows from the two
(the corpus as the kernels read it, the current Dirichlet parameters, the label task and its
(T, D) targets, the covariate matrix with its intercept column) is computed once, when a
Session starts, a checkpoint loads or a held-out corpus is folded in (``Model.bind``), and
handed to the model's methods and to its parts instead of being re-derived from the corpus
at every call (the problem bound once, as BlackJAX binds a log density before it builds a
kernel). A problem never changes: a new setting (``Session.set_params``) or a newly learned
prior (``LDA(optimize=...)``) gives a new one (``with_model``, ``with_prior``), so what a
reader sees is never stale.

``Fit(problem, state, record, n_sweeps)`` is a chain at one moment, as every reader sees it:
the read-outs (``topicsup.summaries``), held-out scoring (``topicsup.heldout``), the view
table, prevalence, chains, the estimators and the report all take one. It holds the live
arrays, not copies: the caller holds the chain still while a reader runs (``Session.readout``
takes the session's lock).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from typing_extensions import TypeVar

from .arrays import F64
from .corpus import Corpus
from .history import Record
from .kernels.counts import Counts, Tokens
from .parts import Parameters

if TYPE_CHECKING:
    from .tasks import Task

# the model a problem binds (``models.LDA`` and its subclasses; the parts see it through the
# ``Parameters`` Protocol)
M = TypeVar("M", bound=Parameters, default=Parameters, covariant=True)
N = TypeVar("N", bound=Parameters)


@dataclass(frozen=True, eq=False)
class Problem(Generic[M]):
    """A model bound to a corpus (``Model.bind``): what a chain reads, derived once.

    ``model`` is the model the chain runs now (a setting changed between sweeps gives a new
    problem, ``with_model``); ``corpus`` the training corpus (vocabulary, labels, index) and
    ``tokens`` the same documents as the kernels read them, the one holder of the tokens the
    chain samples. ``alpha`` the documents' Dirichlet parameters as K values and ``beta`` the
    topics' symmetric one: the current ones, the one holder of them (a chain that learns them
    gets a new problem after each update, ``with_prior``; none, (0,), for a model whose
    documents' prior is part of its state: HDP-LDA); ``symmetric`` whether alpha is one
    value. A supervised model's ``task`` (``topicsup.tasks``) gives the ``targets`` (T, D)
    its loss models and one name per task; ``covariates`` (D, P) are the features after the
    topics (the intercept's column of ones first, then the corpus's covariates) with their
    ``covariate_names``; ``feature_kinds`` says what each of the M weights of a task weighs
    (``"topic"``, ``"intercept"``, ``"covariate"``). An unsupervised problem has no task,
    (0, D) targets and (D, 0) covariates.
    """

    model: M
    corpus: Corpus
    tokens: Tokens
    K: int
    alpha: F64
    symmetric: bool
    beta: float
    task: Task | None
    targets: F64
    task_names: tuple[str, ...]
    covariates: F64
    covariate_names: tuple[str, ...]
    feature_kinds: tuple[str, ...]

    @property
    def supervised(self) -> bool:
        return self.task is not None

    @property
    def n_docs(self) -> int:
        return self.corpus.n_docs

    @property
    def n_words(self) -> int:
        return self.corpus.n_words

    @property
    def n_tokens(self) -> int:
        return self.corpus.n_tokens

    @property
    def n_tasks(self) -> int:
        """T, the number of supervised tasks (0: unsupervised)."""
        return int(self.targets.shape[0])

    @property
    def n_features(self) -> int:
        """M, the weights per task: the K topics, then the covariates."""
        return self.K + int(self.covariates.shape[1])

    def with_model(self, model: N) -> Problem[N]:
        """The same problem run by ``model``: the same model class and corpus with other
        live settings (``Session.set_params``), so nothing derived from the corpus changes."""
        if type(model) is not type(self.model):
            raise TypeError(f"a problem of {type(self.model).__name__} cannot be run by "
                            f"{type(model).__name__}: bind the model to the corpus instead")
        return Problem(model, self.corpus, self.tokens, self.K, self.alpha, self.symmetric,
                       self.beta, self.task, self.targets, self.task_names, self.covariates,
                       self.covariate_names, self.feature_kinds)

    def with_prior(self, alpha: F64, beta: float) -> Problem[M]:
        """The same problem with other Dirichlet parameters (learned ones: ``LDA.learn_prior``,
        or a checkpoint's); alpha is copied, so the new problem owns its values."""
        alpha = np.array(alpha, dtype=np.float64)
        if alpha.shape != self.alpha.shape:
            raise ValueError(f"alpha must have shape {self.alpha.shape}, got {alpha.shape}")
        return dataclasses.replace(self, alpha=alpha, beta=float(beta))


@dataclass(eq=False)
class State:
    """A chain's state: ``counts`` (z and its counts), the topic ``sampler``'s own arrays
    and, for a supervised model, its ``supervision`` (``models.supervised.Supervision``); a
    nonparametric model's ``tables``. The tokens it assigns are the problem's
    (``Problem.tokens``), the Dirichlet parameters too."""

    counts: Counts
    sampler: Any   # the topic sampler's own record (``TopicSampler.allocate``)
    supervision: Any = None
    # a nonparametric model's table state (``models.pdp``, ``models.hdp``)
    tables: Any = None
    # a model whose documents' prior is drawn in the chain (DMR's lambda, ``models.dmr``)
    prior: Any = None

    @property
    def z(self) -> np.ndarray:
        """The topic assignments (one per token)."""
        return self.counts.z

    def topics_moved(self) -> None:
        """z is about to change (a sweep's block, the inspector's step): forget what was
        computed from it once per sweep (a supervised model's features)."""
        if self.supervision is not None:
            self.supervision.features = None

    def copy(self) -> State:
        """A deep copy."""
        return copy.deepcopy(self)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array of the state by dotted name (``counts.z``, ``sampler.tables.q``,
        ``supervision.weights.eta``, ...): for comparing two states whole."""
        out: dict[str, np.ndarray] = {}

        def walk(prefix: str, obj: Any) -> None:
            if isinstance(obj, np.ndarray):
                out[prefix] = obj
            elif isinstance(obj, tuple) and hasattr(obj, "_fields"):
                for name in obj._fields:
                    walk(f"{prefix}.{name}", getattr(obj, name))
            elif dataclasses.is_dataclass(obj):
                for f in dataclasses.fields(obj):
                    walk(f"{prefix}.{f.name}" if prefix else f.name, getattr(obj, f.name))

        walk("", self)
        return out


@dataclass(frozen=True, eq=False)
class Fit(Generic[M]):
    """A chain at one moment, as every reader sees it: the ``problem`` it samples (model,
    corpus, task, current prior), its ``state``, its ``record`` (the history, the traced
    arrays, the settings changes, the names the user gave topics) and ``n_sweeps``
    completed. Live arrays, not copies: the caller holds the chain still meanwhile."""

    problem: Problem[M]
    state: State
    record: Record
    n_sweeps: int

    @property
    def labels(self) -> dict[int, str]:
        """The names the user gave topics (topic -> name; ``Session.set_topic_labels``)."""
        return self.record.labels

    def with_labels(self, labels: dict[int, str]) -> Fit[M]:
        """The same fit read with other topic names (a record sharing everything else)."""
        record = Record(self.record.history, self.record.traces, self.record.changes, labels)
        return dataclasses.replace(self, record=record)


__all__ = ["Fit", "Problem", "State"]
