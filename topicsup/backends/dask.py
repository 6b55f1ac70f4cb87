"""The partially collapsed sampler's documents' step on a Dask cluster (``pip install
topicsup[dask]``).

The documents are split into contiguous partitions of about equal token counts, each placed
on one worker, where its words and topics ``z`` stay between sweeps (no document-topic
matrix: neither here nor there; the kernel counts a document's topics in its turn; pinned tasks writing to a per-process table, ``_RESIDENT``). A sweep then:

1. draws Phi in the Session's process (the threaded backend's code; ``samplers.
   partially_collapsed``) and broadcasts it once to the workers (direct scatter);
2. sends each partition the sweep's small inputs: the stream key, the weights and, for a
   supervised model, its documents' slice of the labels, the augmentation (b, w) and the
   covariate scores (direct to its worker);
3. on each worker, builds the word tables (and the K x K label matrix) from Phi once per
   sweep and runs ``kernels.partially_collapsed.sweep_chunks`` on its partitions: document d
   draws from the stream of (the sweep's key, d) exactly as on threads;
4. gathers from each partition the tokens whose topic changed (positions and new topics, 6
   bytes each; every token's topic, 4 bytes, when more than two thirds changed) and the
   documents' info rows, and only once every partition has answered takes them into the
   Session's state
   (``kernels.partially_collapsed.adopt_changes``: integer count updates, O(changed tokens);
   info rows added in document order).

So the chain is the threaded backend's bit for bit, with any number of partitions and
workers. The once-per-sweep steps of a supervised model (the weights, the augmentation, the
prior) run in the Session's process on its full state, as on threads: the logistic loss's
Polya-Gamma draws come from one sequential stream, and the weights' Gaussian draw needs its
sums in one order to be the same bits (``docs/scaling.md`` gives the cost and the next step).

A worker lost during a sweep (its process killed, its machine gone) raises
``WorkerLostError``; nothing of that sweep has been applied and the Session's random stream
is where the sweep began, so the next ``run`` places the partitions again on the workers
there are and continues the same chain.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, I64, Array, Rng
from ..kernels import partially_collapsed as pc, supervised
from ..kernels.counts import Counts, Tokens
from ..kernels.supervised import Term
from ..kernels.threads import concurrent_kernels_safe, numba_threads
from .base import CHUNK_TOKENS, Backend, DocumentStep, ServedModel

if TYPE_CHECKING:
    import pandas as pd

# Any at our boundary, as pyproject.toml's [tool.mypy] says of dask: distributed ships
# py.typed, but Client.scatter and cancel, wait and the comm module's errors are not typed
distributed: Any
try:
    import distributed
    from distributed.client import FuturesCancelledError
except ImportError:   # pragma: no cover - the error names the extra
    distributed = None

POLL_SECONDS = 0.2   # how often a waiting sweep checks that its workers are alive
SEND_SECONDS = 60.0  # a scatter to a worker that does not answer within this is a lost worker
GATHER_SECONDS = 120.0

# worker side: (backend token, partition) -> _Partition; token -> (sweep key, tables)
_RESIDENT: dict[tuple[str, int], "_Partition"] = {}
_TABLES: dict[str, tuple[bytes, tuple[F64, I32, F64, F64]]] = {}
_LOCK = threading.Lock()
_SERIAL = threading.Lock()   # kernels one at a time under numba's workqueue layer
# a test hook: called with the partition index at the start of a partition's sweep on this
# worker (the tests set it on one worker, through Client.run, to lose that worker mid-sweep)
_before_partition_hook: Callable[[int], object] | None = None


class WorkerLostError(RuntimeError):
    """A Dask worker holding documents was lost during a sweep. Nothing of the sweep was
    applied: the next ``Session.run`` places the documents again and continues."""

    topicsup_nothing_applied: bool   # set where it is raised: the Session puts its stream back


class PartitionMissing(RuntimeError):
    """Raised on a worker asked to sweep a partition it does not hold in the expected state
    (the worker restarted at the same address, or the request is stale)."""


@dataclass
class _Partition:
    """A partition as its worker keeps it: documents ``d0 .. d1-1`` of the corpus, their
    ``words`` and topics ``z`` (tokens ``doc_ptr[d0] ..`` of the corpus), ``doc_ptr``
    rebased to 0 (no document-topic matrix: the kernel counts a document's in its turn)."""

    generation: int
    d0: int
    d1: int
    words: I32
    doc_ptr: I64
    z: I32
    step: int = 0      # blocks swept since placement (a request names the step it expects)


@dataclass
class _SweepInput:
    """One partition's inputs for one block: documents ``d_start .. d_end-1`` (corpus
    indices, within the partition), the kernel's settings and the supervised term's parts
    (``term_arrays``: eta_kt, b, w, y, r, the partition's columns only, loss_params,
    exp_prob, exp_alias)."""

    generation: int
    step: int
    d_start: int
    d_end: int
    key: Rng
    alpha: F64
    sparse: bool
    mh_steps: int
    doc_slot: int
    width: int
    use_G: bool
    w_t: F64
    factor: int
    term_arrays: tuple[Array, ...]


def _nbytes(x: Any) -> int:
    if isinstance(x, np.ndarray):
        return int(x.nbytes)
    if isinstance(x, (tuple, list)):
        return sum(_nbytes(v) for v in x)
    if hasattr(x, "__dataclass_fields__"):
        return sum(_nbytes(getattr(x, f)) for f in x.__dataclass_fields__)
    return 0


# ---------------------------------------------------------------------- worker side
def _install(token: str, j: int, part: _Partition) -> int:
    """Keep partition ``j`` on this worker (replacing an older placement of it)."""
    # read-only as the Session's token arrays are: the kernels' compiled signature is the same,
    # so the worker loads it from numba's cache instead of compiling it again
    part.words.flags.writeable = False
    part.doc_ptr.flags.writeable = False
    with _LOCK:
        _RESIDENT[(token, j)] = part
    return part.words.size


def _drop(token: str) -> int:
    """Forget every partition and table of ``token`` on this worker."""
    with _LOCK:
        keys = [k for k in _RESIDENT if k[0] == token]
        for k in keys:
            del _RESIDENT[k]
        _TABLES.pop(token, None)
    return len(keys)


def _worker_threads() -> int:
    try:
        return max(1, int(distributed.get_worker().state.nthreads))
    except Exception:   # not in a worker (a test calling the function directly)
        return 1


def _tables(token: str, j: int, generation: int, key: Rng, phi: F64, alpha: F64,
            sparse: bool, use_G: bool, eta_kt: F64, w_t: F64) -> tuple[F64, I32, F64, F64]:
    """The sweep's word tables and label matrix on this worker, built once per sweep (the
    sweep's key names it) whichever of its partitions asks first, into the arrays of the
    previous sweep (fresh arrays of V K entries each sweep cost their page faults again)."""
    tag = key.tobytes() + bytes([bool(sparse), bool(use_G)])
    with _LOCK:
        part = _RESIDENT.get((token, j))
        if part is None or part.generation != generation:
            # a request left over from a failed sweep must not rebuild the current tables
            raise PartitionMissing(f"partition {j} was placed again meanwhile")
        cached = _TABLES.get(token)
        if cached is not None and cached[0] == tag:
            return cached[1]
        V, K = phi.shape
        tV, tK = (V, K) if sparse else (1, 1)
        gK = K if use_G else 0
        if cached is not None and cached[1][0].shape == (tV, tK) \
                and cached[1][3].shape == (gK, gK):
            prob, alias, mass, G = cached[1]
        else:
            prob, alias, mass = np.zeros((tV, tK)), np.zeros((tV, tK), np.int32), np.zeros(tV)
            G = np.zeros((gK, gK))
        if sparse:
            pc.build_word_tables(phi, alpha, prob, alias, mass)
        if use_G:
            supervised.label_matrix(eta_kt, w_t, G)
        out = (prob, alias, mass, G)
        _TABLES[token] = (tag, out)
        return out


def _sweep_partition(token: str, j: int, inp: _SweepInput, phi: F64
                     ) -> tuple[Array | None, Array, F64]:
    """Run documents ``inp.d_start .. inp.d_end-1`` of partition ``j`` given Phi; return
    what changed (``_changes``) and their info rows."""
    if _before_partition_hook is not None:
        _before_partition_hook(j)
    with _LOCK:
        part = _RESIDENT.get((token, j))
        if part is None or part.generation != inp.generation or part.step != inp.step:
            raise PartitionMissing(f"partition {j} is not on this worker in the state the "
                                   f"sweep expects (placement {inp.generation}, block "
                                   f"{inp.step})")
        part.step = inp.step + 1   # claimed: a repeated request now fails
    eta_kt, b, w, y, r, loss_params, exp_prob, exp_alias = inp.term_arrays
    serial = _SERIAL if not concurrent_kernels_safe() else contextlib.nullcontext()
    with serial, numba_threads(_worker_threads()):
        prob, alias, mass, G = _tables(token, j, inp.generation, inp.key, phi, inp.alpha,
                                       inp.sparse, inp.use_G, eta_kt, inp.w_t)
        K, T = phi.shape[1], eta_kt.shape[1]
        term = Term(inp.factor, loss_params, eta_kt, b, w, y, r, np.zeros(K),
                    np.zeros((4, T)), np.zeros(T), exp_prob, exp_alias)
        a, e = inp.d_start - part.d0, inp.d_end - part.d0
        rows = np.zeros((e - a, inp.width))
        z_prev = np.empty_like(part.z)
        pc.sweep_chunks(part.words, part.doc_ptr, part.z, z_prev, inp.alpha, phi, prob,
                        alias, mass, inp.sparse, inp.mh_steps, term, inp.key,
                        pc.chunks(part.doc_ptr, a, e, CHUNK_TOKENS), part.d0, rows,
                        inp.doc_slot, G, inp.use_G)
    lo, hi = int(part.doc_ptr[a]), int(part.doc_ptr[e])
    return (*_changes(z_prev[lo:hi], part.z[lo:hi], phi.shape[1]), rows)


def _changes(before: I32, after: I32, K: int) -> tuple[Array | None, Array]:
    """A block's reply: the positions (from the block's first token) of the tokens whose
    topic changed and their new topics (int32 and, for K <= 65,536, uint16: 6 bytes a
    change), or, when that is no smaller (early sweeps, where most tokens move), ``None``
    and every token's topic (int32)."""
    n = after.shape[0]
    moved = np.flatnonzero(after != before)
    where = np.int32 if n < 2**31 else np.int64
    topic = np.uint16 if K <= 2**16 else np.int32
    if moved.size * (np.dtype(where).itemsize + np.dtype(topic).itemsize) >= 4 * n:
        return None, after.copy()
    return moved.astype(where), after[moved].astype(topic)


# ---------------------------------------------------------------------- driver side
def _release(client: Any, token: str) -> None:
    """Forget a session's partitions on every worker (at its garbage collection)."""
    try:
        client.run(_drop, token)
    except Exception:   # the cluster is gone, or this runs where it cannot wait: nothing held
        pass



@dataclass(frozen=True)
class Placement:
    """Partition ``index`` holds documents ``d0 .. d1-1`` on ``worker``."""

    index: int
    d0: int
    d1: int
    worker: str


class DaskBackend(Backend):
    """The documents' step on the workers of a Dask cluster (module docstring).

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster's client (default: the current one, ``distributed.get_client()``).
    partitions : int, optional
        Number of document partitions (default: one per worker). They are placed round robin
        on the workers, sorted by address; the chain does not depend on the number.

    Examples
    --------
    >>> from distributed import Client, LocalCluster                     # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2, threads_per_worker=1))  # doctest: +SKIP
    >>> s = Session(DOLDA(K=50), corpus, seed=1, backend=DaskBackend(client))  # doctest: +SKIP
    >>> s.run(100)                                                         # doctest: +SKIP
    """

    name = "dask"
    whole_sweeps = True
    tables_here = False

    def __init__(self, client: Any = None, partitions: int | None = None) -> None:
        if distributed is None:
            raise ImportError("the Dask backend needs dask.distributed: pip install "
                              "'topicsup[dask]'")
        if client is None:
            try:
                client = distributed.get_client()
            except ValueError:
                raise ValueError("no Dask client is running: pass DaskBackend(client) or "
                                 "create a distributed.Client first") from None
        if not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a distributed.Client, got "
                            f"{type(client).__name__}")
        if partitions is not None:
            partitions = check.integer("partitions", partitions, low=1, high=1_000_000)
        self.client = client
        self.partitions = partitions
        self.token = uuid.uuid4().hex
        self._session: weakref.ref[object] | None = None
        self._placements: list[Placement] = []
        self._steps: list[int] = []
        self._finalizer: weakref.finalize[..., object] | None = None
        self._generation = 0
        self._placed = False
        self._phi: tuple[bytes, Any] | None = None
        self._counter = itertools.count()
        self.traffic: list[dict[str, float]] = []   # one row per block: bytes and seconds

    def __repr__(self) -> str:
        where = ", ".join(sorted(self.client.scheduler_info().get("workers", {})))
        return f"DaskBackend(workers=[{where}], partitions={self.partitions})"

    # ------------------------------------------------------------------ life
    def check_model(self, model: ServedModel) -> None:
        sampler = model.topic_sampler
        if not sampler.distributable:
            raise ValueError(f"backend {self.name!r} runs the partially collapsed sampler "
                             f"only (its documents are independent given Phi); "
                             f"{type(model).__name__} uses sampler={sampler.name!r}: pass "
                             f"sampler='partially_collapsed'")

    def attach(self, session: object) -> None:
        served = self._session() if self._session is not None else None
        if served is not None and served is not session:
            raise ValueError("this DaskBackend already serves another Session: create one per "
                             "Session (they may share a Client)")
        self._session = weakref.ref(session)   # the session owns the backend, not the reverse
        self._placed = False
        # a Session dropped without close() still releases the workers' memory
        self._finalizer = weakref.finalize(session, _release, self.client, self.token)

    def detach(self) -> None:
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self.close()
        self._session = None

    def close(self) -> None:
        """Forget the documents placed on the workers (the Session keeps its state)."""
        self._release_phi()
        if self._placed or self._placements:
            try:
                self.client.run(_drop, self.token)
            except Exception:   # a closed cluster holds nothing any more
                pass
        self._placed = False
        self._placements = []

    def _release_phi(self) -> None:
        if self._phi is not None:
            try:
                self._phi[1].release()
            except Exception:
                pass
            self._phi = None

    @property
    def placements(self) -> list[Placement]:
        """Where the partitions are (empty before the first sweep)."""
        return list(self._placements)

    # ------------------------------------------------------------------ placing documents
    def _workers(self) -> list[str]:
        workers = sorted(self.client.scheduler_info(n_workers=-1).get("workers", {}))
        if not workers:
            raise RuntimeError("the Dask cluster has no workers: start some, or use the "
                               "threaded backend")
        return workers

    def _place(self, tokens: Tokens, counts: Counts) -> None:
        """Split the documents into partitions of about equal token counts and put each,
        with its topics from the Session's state, on a worker."""
        self.close()
        workers = self._workers()
        doc_ptr = tokens.doc_ptr
        D, N = doc_ptr.shape[0] - 1, int(doc_ptr[-1])
        n = min(self.partitions or len(workers), D)
        cuts = np.searchsorted(doc_ptr, np.arange(1, n) * (N / n))
        bounds = np.unique(np.concatenate([[0], np.clip(cuts, 0, D), [D]])).astype(np.int64)
        self._generation += 1
        placements, futures = [], []
        for j in range(len(bounds) - 1):
            d0, d1 = int(bounds[j]), int(bounds[j + 1])
            worker = workers[j % len(workers)]
            p0, p1 = int(doc_ptr[d0]), int(doc_ptr[d1])
            part = _Partition(self._generation, d0, d1, tokens.words[p0:p1].copy(),
                              (doc_ptr[d0:d1 + 1] - p0).astype(np.int64),
                              counts.z[p0:p1].copy())
            data = self.client.scatter(part, workers=[worker], direct=True, hash=False,
                                       timeout=SEND_SECONDS)
            futures.append(self.client.submit(_install, self.token, j, data, workers=[worker],
                                              allow_other_workers=False, pure=False))
            placements.append(Placement(j, d0, d1, worker))
        self._placements = placements
        self._steps = [0] * len(placements)
        self._wait(futures, placements, what="placing the documents")
        self._placed = True

    # ------------------------------------------------------------------ a block
    def _workers_lost(self) -> bool:
        live = set(self.client.scheduler_info(n_workers=-1).get("workers", {}))
        return any(p.worker not in live for p in self._placements)

    def sweep_documents(self, tokens: Tokens, counts: Counts, step: DocumentStep, d_start: int,
                        d_end: int, z_prev: I32, info: F64) -> None:
        t0 = time.perf_counter()
        futures: list[Any] = []
        todo: list[Placement] = []
        try:
            if not self._placed or self._workers_lost():
                # first block, or a worker left between sweeps: its documents come from here
                self._place(tokens, counts)
            t_place = time.perf_counter()
            todo = [p for p in self._placements if p.d0 < d_end and p.d1 > d_start]
            if not todo:
                return
            sent = 0
            tag = step.key.tobytes()
            if self._phi is None or self._phi[0] != tag:
                self._release_phi()
                workers = sorted({p.worker for p in self._placements})
                phi = self.client.scatter(step.phi, workers=workers, broadcast=True,
                                          direct=True, hash=False, timeout=SEND_SECONDS)
                self._phi = (tag, phi)
                sent += step.phi.nbytes * len(workers)
            t_phi = time.perf_counter()
            term = step.term
            for p in todo:
                a, e = max(d_start, p.d0), min(d_end, p.d1)
                cols = slice(p.d0, p.d1)
                arrays: tuple[Array, ...] = (
                    term.eta_kt, *(np.ascontiguousarray(x[:, cols])
                                   for x in (term.b, term.w, term.y, term.r)),
                    term.loss_params, term.exp_prob, term.exp_alias)
                inp = _SweepInput(self._generation, self._steps[p.index], a, e,
                                  step.key.copy(), step.alpha, step.sparse, step.mh_steps,
                                  step.doc_slot, info.shape[0], step.use_G, step.w_t,
                                  term.factor, arrays)
                sent += _nbytes(inp)
                data = self.client.scatter(inp, workers=[p.worker], direct=True, hash=False,
                                           timeout=SEND_SECONDS)
                futures.append(self.client.submit(
                    _sweep_partition, self.token, p.index, data, self._phi[1],
                    workers=[p.worker], allow_other_workers=False, pure=False,
                    key=f"topicsup-sweep-{self.token[:8]}-{next(self._counter)}-{p.index}"))
            results = self._wait(futures, todo, what="a sweep")
        except BaseException as exc:
            # nothing is applied yet: place the documents again at the next block
            self._placed = False
            self._release_phi()
            if futures:
                self.client.cancel(futures)
            if isinstance(exc, (TimeoutError, distributed.TimeoutError, OSError)):
                worker = todo[len(futures)].worker if len(futures) < len(todo) else "?"
                lost = WorkerLostError(f"Dask worker {worker} did not answer while a sweep's "
                                       f"inputs were sent ({type(exc).__name__}: {exc}); "
                                       f"nothing of this sweep was applied: run again to "
                                       f"place the documents on the workers there are")
                lost.topicsup_nothing_applied = True
                raise lost from exc
            try:
                cast(Any, exc).topicsup_nothing_applied = True   # the Session puts its stream back
            except AttributeError:
                pass
            raise
        t_work = time.perf_counter()
        # every partition answered: the state changes now, in one call (all or nothing)
        a0, e1 = max(d_start, todo[0].d0), min(d_end, todo[-1].d1)
        positions, topics = [], []
        received = n_tokens = 0
        for p, (moved, new, _) in zip(todo, results):
            base = int(tokens.doc_ptr[max(d_start, p.d0)])
            received += new.nbytes + (moved.nbytes if moved is not None else 0)
            size = int(tokens.doc_ptr[min(d_end, p.d1)]) - base
            if moved is None:   # every topic: the changes are found here
                if new.shape[0] != size:   # never taken in part (adopt_changes checks the rest)
                    raise RuntimeError(f"partition {p.index} replied {new.shape[0]} topics for "
                                       f"{size} tokens")
                moved = np.flatnonzero(new != counts.z[base:base + size])
                new = new[moved]
            n_tokens += size
            positions.append(moved.astype(np.int64) + base)
            topics.append(new)
        rows = np.concatenate([r[2] for r in results])
        received += rows.nbytes
        self._placed = False   # until the bookkeeping below is done too
        pc.adopt_changes(tokens.words, tokens.doc_ptr, a0, e1, np.concatenate(positions),
                         np.concatenate(topics).astype(np.int32, copy=False), counts.z,
                         counts.n_wk, counts.n_k, rows, info)
        for p in todo:
            self._steps[p.index] += 1
        self._placed = True
        t_end = time.perf_counter()
        self.traffic.append({"bytes_sent": float(sent),
                             "bytes_received": float(received),
                             "tokens": float(n_tokens),
                             "tokens_changed": float(sum(x.size for x in positions)),
                             "seconds_place": t_place - t0, "seconds_phi": t_phi - t_place,
                             "seconds_workers": t_work - t_phi,
                             "seconds_adopt": t_end - t_work})

    def _wait(self, futures: list[Any], placements: list[Placement], what: str) -> list[Any]:
        """Gather ``futures``, watching the workers: a lost one raises ``WorkerLostError``."""
        while True:
            try:
                distributed.wait(futures, timeout=POLL_SECONDS)
            except (TimeoutError, distributed.TimeoutError):
                pass
            except FuturesCancelledError:
                pass   # the status below says which, and why
            for f, p in zip(futures, placements):
                if f.status == "cancelled":
                    # the scheduler forgot the task: its worker, holding its inputs, left
                    raise self._lost(p, what)
                if f.status == "error":
                    exc = f.exception()
                    if isinstance(exc, (distributed.scheduler.KilledWorker,
                                        distributed.comm.CommClosedError, PartitionMissing)):
                        raise self._lost(p, what, f"{type(exc).__name__}: {exc}") from exc
                    raise exc
            if all(f.status == "finished" for f in futures):
                out = []
                for f, p in zip(futures, placements):
                    try:
                        out.append(f.result(timeout=GATHER_SECONDS))
                    except (TimeoutError, distributed.TimeoutError, OSError) as exc:
                        raise self._lost(p, what, f"{type(exc).__name__}: {exc}") from exc
                return out
            live = set(self.client.scheduler_info(n_workers=-1).get("workers", {}))
            for f, p in zip(futures, placements):
                if f.status != "finished" and p.worker not in live:
                    raise self._lost(p, what)

    def _lost(self, p: Placement, what: str, why: str = "") -> WorkerLostError:
        return WorkerLostError(
            f"Dask worker {p.worker} holding documents {p.d0}..{p.d1 - 1} (partition "
            f"{p.index}) was lost during {what}{f' ({why})' if why else ''}; nothing of this "
            f"sweep was applied and the Session is at its last completed sweep: run again "
            f"to place the documents on the workers there are and continue the same chain")

    def traffic_frame(self) -> pd.DataFrame:
        """Bytes sent to and received from the workers and the time split of each block, as
        a DataFrame (``benchmarks/bench_dask.py`` reports them)."""
        import pandas as pd
        return pd.DataFrame(self.traffic)


__all__ = ["DaskBackend", "Placement", "WorkerLostError"]
