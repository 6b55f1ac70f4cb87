"""The backend interface (``Backend``, the ``DocumentStep`` it runs) and the default backend,
``Threads``: numba threads in this process (``topicsup.backends``)."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from ..arrays import F64, I32, I64, Rng
from ..kernels import partially_collapsed as pc
from ..kernels.counts import Counts, Tokens
from ..kernels.supervised import Term

CHUNK_TOKENS = 2048   # tokens per unit of parallel work (results do not depend on it)


# The models and the Session are layers above the backends (tests/test_layers.py), so a
# backend does not import them, even for its annotations: it says what it reads of them.
class ServedSampler(Protocol):
    """What a backend reads of a model's topic sampler (``samplers.TopicSampler``)."""

    @property
    def name(self) -> str: ...

    @property
    def distributable(self) -> bool: ...


class ServedModel(Protocol):
    """What a backend reads of the model it is asked to run (``models.LDA``)."""

    @property
    def topic_sampler(self) -> ServedSampler: ...


class DocumentStep(NamedTuple):
    """What the documents' step of one block reads besides the corpus and the counts: the
    topics ``phi`` (V, K) word-major and, for the sparse kernel, the word tables ``prob``,
    ``alias``, ``mass`` built from it (a backend with ``tables_here = False`` builds its own);
    ``alpha`` (K,) and ``beta`` (a backend with ``draws_phi`` draws Phi | Z into ``phi``
    itself, from ``key`` and the counts); the kernel (``sparse``, ``mh_steps``); the
    supervised ``term``
    (``kernels.supervised.Term``); the sweep's stream ``key`` (4,); ``doc_slot`` (the info
    slot of the sparse kernel's document-part draws, -1 none); the label matrix ``G`` with
    ``use_G`` and the per-task ``w_t`` it is built from; ``threads`` (numba threads here);
    whether a supervised model's end of sweep reads the documents' ``feature_rows`` (a
    backend that keeps the topics elsewhere computes them there, ``Backend.feature_rows``)
    and the ``covariates`` (D, P) they end with."""

    phi: F64
    prob: F64
    alias: I32
    mass: F64
    alpha: F64
    beta: float
    sparse: bool
    mh_steps: int
    term: Term
    key: Rng
    doc_slot: int
    G: F64
    use_G: bool
    w_t: F64
    threads: int
    feature_rows: bool
    covariates: F64


class Backend:
    """Base of the backends (``topicsup.backends``).

    ``whole_sweeps``: the Session hands it the rest of a sweep at once (its parallelism is
    over the whole corpus; a stop request then takes effect between sweeps).
    ``tables_here``: the sampler builds the word tables and the label matrix in this process
    (a distributed backend builds them where the documents are).
    ``draws_phi``: the backend draws Phi | Z at a sweep's first block (a distributed backend
    draws each worker's rows there, ``kernels.partially_collapsed.draw_phi``); else the
    sampler draws it here first.
    """

    name = "backend"
    whole_sweeps = False
    tables_here = True
    draws_phi = False

    def check_model(self, model: ServedModel) -> None:
        """Refuse a model whose sampler cannot run on this backend."""

    def attach(self, session: object) -> None:
        """Called when a Session starts using it (the documents are placed at the first
        block)."""

    def detach(self) -> None:
        """Called when the Session stops using it (another backend, or the session ends)."""

    def sweep_documents(self, tokens: Tokens, counts: Counts, step: DocumentStep, d_start: int,
                        d_end: int, z_prev: I32, info: F64) -> None:
        """Resample documents ``d_start .. d_end-1`` once given ``step.phi``; update ``counts``
        and add the documents' info rows to ``info`` in document order."""
        raise NotImplementedError

    def sync(self) -> None:
        """Bring the Session's state up to date where the backend left part of the last
        sweep's result elsewhere (a Dask backend's Phi and topics, on its workers: the
        Session's copies are brought here when something reads them); the Session calls it
        before every read of its state. Nothing here."""

    def feature_rows(self) -> tuple[I64, I64, F64] | None:
        """The last sweep's features by row (``kernels.weights.topic_rows``), computed where
        the topics are, when the step asked for them and they are not here; None here (the
        model computes them from its state)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Threads(Backend):
    """The documents' step on numba threads in this process (the default backend)."""

    name = "threads"

    def sweep_documents(self, tokens: Tokens, counts: Counts, step: DocumentStep, d_start: int,
                        d_end: int, z_prev: I32, info: F64) -> None:
        prob, term, G = pc.kernel_args(step.sparse, step.prob, step.term, step.G, step.use_G)
        pc.sweep_documents(tokens, counts, step.alpha, step.phi, prob, step.alias, step.mass,
                           step.mh_steps, term, step.key,
                           pc.chunks(tokens.doc_ptr, d_start, d_end, CHUNK_TOKENS), z_prev,
                           info, step.doc_slot, G)


THREADS = Threads()


__all__ = ["CHUNK_TOKENS", "THREADS", "Backend", "DocumentStep", "Threads"]
