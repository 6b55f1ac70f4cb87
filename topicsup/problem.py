"""What a chain is about, derived once: the ``Problem`` a Session binds its model to.

A model is parameters; a corpus is data. Everything a sweep reads that follows from the two
(the corpus as the kernels read it, the Dirichlet parameters as a vector, the label task and
its (T, D) targets, the covariate matrix with its intercept column) is computed here once,
when a Session starts or a checkpoint loads (``Model.bind``), and handed to the model's
methods and to its parts instead of re-deriving it from the corpus at every call (the
problem bound once, as BlackJAX binds a log density before it builds a kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

from .arrays import F64
from .corpus import Corpus
from .kernels.counts import Tokens
from .parts import Parameters
from .tasks import Task


@dataclass(frozen=True, eq=False)
class Problem:
    """A model bound to a corpus (``Model.bind``).

    ``tokens`` is the corpus as the kernels read it (shared, read-only); ``alpha`` the
    documents' Dirichlet parameters as K values and ``symmetric`` whether they are one value
    (none, (0,), for a model whose documents' prior is part of its state: HDP-LDA);
    ``beta`` the topics' symmetric Dirichlet parameter. A supervised model's ``task``
    (``topicsup.tasks``) gives the ``targets`` (T, D) its loss models and one name per task;
    ``covariates`` (D, P) are the features after the topics (the intercept's column of ones
    first, then the corpus's covariates) with their ``covariate_names``. An unsupervised
    problem has no task, (0, D) targets and (D, 0) covariates.
    """

    model: Parameters
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
