"""The partially collapsed sampler's documents' step on a Dask cluster (``pip install
topicsup[dask]``), the documents' state on the workers.

The documents are split into contiguous partitions of about equal token counts. Each is
placed on one worker, which sweeps it, and, with two workers or more, a replica on another;
both keep its words and topics ``z`` between sweeps (pinned tasks writing to a per-process
table, ``_RESIDENT``). No document-topic matrix is kept anywhere (the kernel counts a
document's topics in its turn), and the Session's process keeps no topic of its own between
reads: it holds n_wk and n_k, and a supervised model's features. A sweep then:

1. draws Phi on the workers: each worker that holds documents gets the rows of n_wk of a
   range of word chunks and draws those rows of Phi (unnormalised, ``_draw_shard``); the
   chunks' column sums come back (checked: their shape, finite, non-negative) and are added
   here in chunk order, as the threaded draw adds them
   (``kernels.partially_collapsed.draw_phi``'s steps: the same bits), and the normalisers go
   out with the sweep's inputs;
2. sends each partition the sweep's small inputs: the stream key, the weights and, for a
   supervised model, its documents' slice of the labels, the augmentation (b, w) and the
   covariate scores (direct to its worker);
3. on each worker, fetches the other workers' rows of Phi (worker to worker), assembles and
   scales Phi, builds the word tables (and the K x K label matrix) once per sweep and runs
   ``kernels.partially_collapsed.sweep_chunks`` on its partitions: document d draws from the
   stream of (the sweep's key, d) exactly as on threads;
4. the worker keeps the sweep's result (``_Swept``) and replies to this process with the
   sparse changes of n_wk (``count_deltas``: (word, topic) indices and integer changes),
   the documents' info rows and, for a supervised model, the partition's features (the
   rows ``kernels.weights.topic_rows`` gives, the same bits), never the tokens; the tokens
   that changed go from it to the replica's worker (``_apply_replica``);
5. only once every partition and replica has answered, the changes are added to the
   Session's counts (``adopt_deltas``: integer sums, all or nothing) and the info rows in
   document order.

So the chain is the threaded backend's bit for bit, with any number of partitions and
workers. The once-per-sweep steps of a supervised model (the weights, the augmentation, the
prior) run in the Session's process from the features, as on threads. Reading the
Session's state (a read-out, a checkpoint, the log joint when it is recorded, a learned
prior's update) fetches the topics from the workers once after a sweep (``sync``).

A worker lost during a sweep (its process killed, its machine gone) raises
``WorkerLostError``; nothing of that sweep has been applied, the copies that went a step
further take it back (``_export``), and the Session's random stream is where the sweep
began, so the next ``run`` places the partitions again on the workers there are, each from
a surviving copy, and continues the same chain. With a single worker there is no replica:
its loss loses the topics since the state was last read (the error says so).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import validation as check
from ..arrays import F64, I32, I64, Array, Rng
from ..kernels import partially_collapsed as pc, supervised
from ..kernels.counts import Counts, Tokens
from ..kernels.supervised import Term
from ..kernels.threads import concurrent_kernels_safe, numba_threads
from ..kernels.weights import topic_rows
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

# worker side: (backend token, partition, copy) -> _Partition; token -> (sweep key, tables)
_RESIDENT: dict[tuple[str, int, int], "_Partition"] = {}
_TABLES: dict[str, tuple[bytes, tuple[F64, I32, F64, F64]]] = {}
_PHI: dict[str, tuple[bytes, F64]] = {}   # token -> (sweep key, Phi assembled from the shards)
_LOCK = threading.Lock()
_SERIAL = threading.Lock()   # kernels one at a time under numba's workqueue layer
# a test hook: called with the partition index at the start of a partition's sweep on this
# worker (the tests set it on one worker, through Client.run, to lose that worker mid-sweep)
_before_partition_hook: Callable[[int], object] | None = None
# the same at the start of drawing shard i of Phi (``_draw_shard``)
_before_shard_hook: Callable[[int], object] | None = None
# replaces a shard's column sums in the reply (the tests corrupt them through it)
_column_sums_hook: Callable[[F64], Any] | None = None


class WorkerLostError(RuntimeError):
    """A Dask worker holding documents was lost during a sweep. Nothing of the sweep was
    applied: the next ``Session.run`` places the documents again and continues."""

    topicsup_nothing_applied: bool   # set where it is raised: the Session puts its stream back


class PartitionMissing(RuntimeError):
    """Raised on a worker asked to sweep a partition it does not hold in the expected state
    (the worker restarted at the same address, or the request is stale)."""


@dataclass
class _Partition:
    """A copy of a partition as a worker keeps it (``copy`` 0 the one that sweeps, 1 its
    replica on another worker): documents ``d0 .. d1-1`` of the corpus, their ``words`` and
    topics ``z`` (tokens ``doc_ptr[d0] ..`` of the corpus), ``doc_ptr`` rebased to 0 (no
    document-topic matrix: the kernel counts a document's in its turn), their rows of the
    model's ``covariates`` (for the features of a supervised model). ``undo`` takes ``z``
    back to ``step - 1``: (that step, first token, positions or None for a block from
    there, the old topics), kept until the next step (a sweep that failed elsewhere is not
    applied, ``_export``)."""

    generation: int
    d0: int
    d1: int
    words: I32
    doc_ptr: I64
    z: I32
    covariates: F64
    step: int = 0      # sweeps applied since placement (a request names the step it expects)
    undo: tuple[int, int, Array | None, I32] | None = None


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
    feature_rows: bool   # reply the documents' features (a supervised model's end of sweep)


def _nbytes(x: Any) -> int:
    if isinstance(x, np.ndarray):
        return int(x.nbytes)
    if isinstance(x, (tuple, list)):
        return sum(_nbytes(v) for v in x)
    if hasattr(x, "__dataclass_fields__"):
        return sum(_nbytes(getattr(x, f)) for f in x.__dataclass_fields__)
    return 0


# ---------------------------------------------------------------------- worker side
def _install(token: str, j: int, copy: int, part: _Partition, z: I32 | None = None) -> int:
    """Keep copy ``copy`` of partition ``j`` on this worker (replacing an older placement
    of it); ``z``, when given, its topics (fetched from the worker that had them)."""
    if z is not None:
        if z.shape != (part.words.shape[0],):
            raise PartitionMissing(f"partition {j}'s topics came back for {z.shape[0]} "
                                   f"tokens, not {part.words.shape[0]}")
        part.z = np.array(z, dtype=np.int32)
    # read-only as the Session's token arrays are: the kernels' compiled signature is the same,
    # so the worker loads it from numba's cache instead of compiling it again
    part.words.flags.writeable = False
    part.doc_ptr.flags.writeable = False
    with _LOCK:
        _RESIDENT[(token, j, copy)] = part
    return part.words.size


def _held(token: str, j: int, copy: int, generation: int) -> _Partition:
    part = _RESIDENT.get((token, j, copy))
    if part is None or part.generation != generation:
        raise PartitionMissing(f"partition {j} (copy {copy}) is not on this worker in "
                               f"placement {generation}")
    return part


def _export(token: str, j: int, copy: int, generation: int, step: int) -> I32:
    """The topics of partition ``j`` as they were after ``step`` sweeps: the copy's own,
    or, when the copy went one step further in a sweep that was not applied (it failed
    elsewhere), those taken back by its ``undo``."""
    with _LOCK:
        part = _held(token, j, copy, generation)
        if part.step == step:
            return part.z.copy()
        if part.step == step + 1 and part.undo is not None and part.undo[0] == step:
            _, lo, at, old = part.undo
            z = part.z.copy()
            if at is None:
                z[lo:lo + old.shape[0]] = old
            else:
                z[at] = old
            return z
    raise PartitionMissing(f"partition {j} (copy {copy}) is at step {part.step}, not "
                           f"{step}")


def _prune(token: str, generation: int) -> int:
    """Forget this session's copies of placements older than ``generation``."""
    with _LOCK:
        old = [k for k, p in _RESIDENT.items() if k[0] == token and p.generation < generation]
        for k in old:
            del _RESIDENT[k]
    return len(old)


def _drop(token: str) -> int:
    """Forget every partition and table of ``token`` on this worker."""
    with _LOCK:
        keys = [k for k in _RESIDENT if k[0] == token]
        for k in keys:
            del _RESIDENT[k]
        _TABLES.pop(token, None)
        _PHI.pop(token, None)
    return len(keys)


def _worker_threads() -> int:
    try:
        return max(1, int(distributed.get_worker().state.nthreads))
    except Exception:   # not in a worker (a test calling the function directly)
        return 1


def _draw_shard(index: int, c0: int, n_wk: I32, n_k: I32, beta: float, key: Rng
                ) -> tuple[F64, F64]:
    """This worker's rows of Phi, shard ``index``: word chunks ``c0 ..`` (``n_wk`` their
    rows), unnormalised,
    and the chunks' column sums (``kernels.partially_collapsed.gamma_rows``). The result
    stays here: the other workers fetch it from here, the driver the sums (and the rows
    once the sweep is done)."""
    if _before_shard_hook is not None:
        _before_shard_hook(index)
    V, K = n_wk.shape
    phi = np.empty((V, K))
    partial = np.empty(((V + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK, K))
    serial = _SERIAL if not concurrent_kernels_safe() else contextlib.nullcontext()
    with serial, numba_threads(_worker_threads()):
        pc.gamma_rows(n_wk, n_k, beta, key, c0, phi, partial)
    return partial, phi


def _column_sums(shard: tuple[F64, F64]) -> Any:
    return shard[0] if _column_sums_hook is None else _column_sums_hook(shard[0])


def assemble_phi(shards: list[tuple[F64, F64]], inv: F64, empty: F64, empty_topics: I64,
                 out: F64) -> None:
    """Phi (V, K) into ``out`` from the workers' unnormalised rows in word order: scaled by
    the normalisers ``inv`` and the columns of the topics without tokens ``empty_topics``
    from ``empty`` (V, E) (``kernels.partially_collapsed.draw_phi``'s steps, the same bits)."""
    r = 0
    for _, rows in shards:
        out[r:r + rows.shape[0]] = rows
        r += rows.shape[0]
    if r != out.shape[0]:
        raise RuntimeError(f"the shards of Phi hold {r} words, not {out.shape[0]}")
    pc.scale_rows(out, inv)
    for e, k in enumerate(empty_topics):
        out[:, k] = empty[:, e]


def _phi_here(token: str, tag: bytes, shards: list[tuple[F64, F64]], inv: F64, empty: F64,
              empty_topics: I64) -> F64:
    """The sweep's Phi on this worker, assembled once per sweep (its key names it) from the
    shards fetched from the other workers, into the array of the previous sweep."""
    with _LOCK:
        cached = _PHI.get(token)
        if cached is not None and cached[0] == tag:
            return cached[1]
        V, K = sum(rows.shape[0] for _, rows in shards), inv.shape[0]
        phi = cached[1] if cached is not None and cached[1].shape == (V, K) else \
            np.empty((V, K))
        _PHI.pop(token, None)   # half-assembled is never cached
        assemble_phi(shards, inv, empty, empty_topics, phi)
        _PHI[token] = (tag, phi)
        return phi


def _tables(token: str, j: int, generation: int, key: Rng, phi: F64, alpha: F64,
            sparse: bool, use_G: bool, eta_kt: F64, w_t: F64) -> tuple[F64, I32, F64, F64]:
    """The sweep's word tables and label matrix on this worker, built once per sweep (the
    sweep's key names it) whichever of its partitions asks first, into the arrays of the
    previous sweep (fresh arrays of V K entries each sweep cost their page faults again)."""
    tag = key.tobytes() + bytes([bool(sparse), bool(use_G)])
    with _LOCK:
        part = _RESIDENT.get((token, j, 0))
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


@dataclass
class _Swept:
    """A partition's sweep as its worker keeps it (the future's value, not sent whole): the
    block's first token ``lo`` in the partition, its ``_changes`` (``moved``, ``new``: for
    the replica), the sparse deltas of n_wk (``keys``, ``deltas``: for the driver), the
    documents' info ``rows``, the partition's ``features`` when asked, the number of tokens
    ``changed`` and the seconds of assembling Phi, building the tables and sweeping."""

    lo: int
    moved: Array | None
    new: Array
    keys: I64
    deltas: I32
    rows: F64
    features: tuple[I64, I64, F64] | None
    changed: int
    seconds: F64


def _features(part: _Partition, K: int) -> tuple[I64, I64, F64]:
    """The partition's features (zbar_d, x_d) by row (``kernels.weights.topic_rows``: the
    rows the driver would compute from the same topics, the same bits)."""
    return topic_rows(part.doc_ptr, part.z, K, part.covariates, np.zeros(K, np.int32))


def _sweep_partition(token: str, j: int, inp: _SweepInput, shards: list[tuple[F64, F64]],
                     inv: F64, empty: F64, empty_topics: I64) -> _Swept:
    """Run documents ``inp.d_start .. inp.d_end-1`` of partition ``j`` given the sweep's Phi
    (assembled here from the workers' ``shards``, ``_phi_here``); the result stays here
    (``_reply`` sends the driver its part, ``_replica_changes`` the replica its part)."""
    if _before_partition_hook is not None:
        _before_partition_hook(j)
    with _LOCK:
        part = _RESIDENT.get((token, j, 0))
        if part is None or part.generation != inp.generation or part.step != inp.step:
            raise PartitionMissing(f"partition {j} is not on this worker in the state the "
                                   f"sweep expects (placement {inp.generation}, step "
                                   f"{inp.step})")
        a, e = inp.d_start - part.d0, inp.d_end - part.d0
        lo, hi = int(part.doc_ptr[a]), int(part.doc_ptr[e])
        old = part.z[lo:hi].copy()
        # claimed (a repeated request now fails), and undoable before the kernel runs: a
        # sweep that fails part-way, here or elsewhere, is taken back (``_export``)
        part.undo = (inp.step, lo, None, old)
        part.step = inp.step + 1
    eta_kt, b, w, y, r, loss_params, exp_prob, exp_alias = inp.term_arrays
    serial = _SERIAL if not concurrent_kernels_safe() else contextlib.nullcontext()
    with serial, numba_threads(_worker_threads()):
        t0 = time.perf_counter()
        phi = _phi_here(token, inp.key.tobytes(), shards, inv, empty, empty_topics)
        t1 = time.perf_counter()
        prob, alias, mass, G = _tables(token, j, inp.generation, inp.key, phi, inp.alpha,
                                       inp.sparse, inp.use_G, eta_kt, inp.w_t)
        t2 = time.perf_counter()
        K, T = phi.shape[1], eta_kt.shape[1]
        term = Term(inp.factor, loss_params, eta_kt, b, w, y, r, np.zeros(K),
                    np.zeros((4, T)), np.zeros(T), exp_prob, exp_alias)
        rows = np.zeros((e - a, inp.width))
        z_prev = np.empty_like(part.z)
        prob, kterm, G = pc.kernel_args(inp.sparse, prob, term, G, inp.use_G)
        pc.sweep_chunks(part.words, part.doc_ptr, part.z, z_prev, inp.alpha, phi, prob,
                        alias, mass, inp.mh_steps, kterm, inp.key,
                        pc.chunks(part.doc_ptr, a, e, CHUNK_TOKENS), part.d0, rows,
                        inp.doc_slot, G)
        t3 = time.perf_counter()
    new = part.z[lo:hi]
    moved, topics = _changes(old, new, K)
    keys, deltas = pc.count_deltas(part.words[lo:hi], old, new, K)
    features = _features(part, K) if inp.feature_rows else None
    # the changed tokens counted once: from the reply's positions when it has them
    changed = moved.size if moved is not None else int(np.count_nonzero(old != new))
    return _Swept(lo, moved, topics, keys, deltas, rows, features, changed,
                  np.array([t1 - t0, t2 - t1, t3 - t2]))


def _reply(swept: _Swept
           ) -> tuple[I64, I32, F64, tuple[I64, I64, F64] | None, int, F64, int]:
    """What the driver takes of a partition's sweep: the sparse deltas of n_wk, the info
    rows, the features when asked, the number of tokens changed, the seconds, and the bytes
    of the changes a replica takes (not the tokens' topics: they stay here and go to the
    replica)."""
    to_replica = _nbytes(swept.new) + _nbytes(swept.moved)
    return (swept.keys, swept.deltas, swept.rows, swept.features, swept.changed,
            swept.seconds, to_replica)


def _replica_changes(swept: _Swept) -> tuple[int, Array | None, Array]:
    """What the replica takes of a partition's sweep: the block's tokens that changed."""
    return swept.lo, swept.moved, swept.new


def _apply_replica(token: str, j: int, generation: int, step: int,
                   changes: tuple[int, Array | None, Array]) -> int:
    """Take a sweep's changes of partition ``j`` into its replica here (from step ``step``),
    undoable until the next step as the sweeping copy's are."""
    lo, moved, new = changes
    with _LOCK:
        part = _held(token, j, 1, generation)
        if part.step != step:
            raise PartitionMissing(f"the replica of partition {j} is at step {part.step}, "
                                   f"not {step}")
        if moved is None:
            old = part.z[lo:lo + new.shape[0]].copy()
            part.z[lo:lo + new.shape[0]] = new
            part.undo = (step, lo, None, old)
        else:
            at = moved.astype(np.int64) + lo
            old = part.z[at]
            part.z[at] = new
            part.undo = (step, lo, at, old)
        part.step = step + 1
    return int(new.shape[0])


def _partition_features(token: str, j: int, generation: int, K: int
                        ) -> tuple[I64, I64, F64]:
    """The features of a partition that a block did not sweep (a sweep resumed part-way)."""
    with _LOCK:
        part = _held(token, j, 0, generation)
    return _features(part, K)


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
def _join_rows(parts: list[tuple[I64, I64, F64]]) -> tuple[I64, I64, F64]:
    """The partitions' feature rows, in document order, as one set of rows."""
    ptrs, offset = [np.zeros(1, np.int64)], 0
    for row_ptr, _, _ in parts:
        ptrs.append(row_ptr[1:] + offset)
        offset += int(row_ptr[-1])
    return (np.concatenate(ptrs), np.concatenate([c for _, c, _ in parts]),
            np.concatenate([v for _, _, v in parts]))


def _check_open(client: Any) -> None:
    """A closed client is named, where its first call would say only that its event loop
    is closed."""
    if client.status in ("closing", "closed"):
        raise ValueError(f"client is {client.status}: create a new distributed.Client (and "
                         f"a DaskBackend on it), or use the threaded backend")


def _release(client: Any, token: str) -> None:
    """Forget a session's partitions on every worker (at its garbage collection)."""
    try:
        client.run(_drop, token)
    except Exception:   # the cluster is gone, or this runs where it cannot wait: nothing held
        pass



@dataclass(frozen=True)
class Placement:
    """Partition ``index`` holds documents ``d0 .. d1-1``: swept on ``worker``, its replica
    on ``replica`` (None with a single worker)."""

    index: int
    d0: int
    d1: int
    worker: str
    replica: str | None = None

    def holding(self) -> str:
        return f"documents {self.d0}..{self.d1 - 1} (partition {self.index})"


@dataclass(frozen=True)
class Shard:
    """Rows ``w0 .. w1-1`` of the sweep's Phi are drawn on ``worker`` (shard ``index``)."""

    index: int
    w0: int
    w1: int
    worker: str

    def holding(self) -> str:
        return f"the rows of Phi of words {self.w0}..{self.w1 - 1} (shard {self.index})"


@dataclass
class _PhiShards:
    """A sweep's Phi as the workers drew it: ``shards`` (futures of ``_draw_shard``, kept on
    the workers ``where``), the normalisers ``inv``, the columns ``empty`` (V, E) of the
    topics without tokens ``empty_topics``, the bytes the workers pass each other to have
    it whole (``between``)."""

    tag: bytes
    shards: list[Any]
    where: list[Shard]
    inv: F64
    empty: F64
    empty_topics: I64
    between: int
    drawn_there: bool = True
    # the counts, beta and key Phi was drawn from, and the Session's Phi array
    drawn_from: tuple[I32, I32, float, Rng, F64] | None = None


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
    draws_phi = True

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
        _check_open(client)
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
        self._phi: _PhiShards | None = None
        self._stale_phi: tuple[I32, I32, float, Rng, F64] | None = None
        # the topics live on the workers: the Session's z is behind them until read (``sync``)
        self._z_stale = False
        self._held: tuple[Tokens, Counts] | None = None   # the state whose z they are
        self._features: tuple[I64, I64, F64] | None = None
        self._counter = itertools.count()
        self.traffic: list[dict[str, float]] = []   # one row per block: bytes and seconds

    def __repr__(self) -> str:
        where = ", ".join(sorted(self._live_workers()))
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
        self._stale_phi = None   # the Session synced before detaching
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self.close()
        self._session = None

    def close(self) -> None:
        """Forget the documents placed on the workers; the Session's state first takes their
        topics (``sync``)."""
        self._release_phi()
        if self._z_stale:
            self.sync()   # raises if the topics cannot be had: never a silently old state
        if (self._placed or self._placements) \
                and self.client.status not in ("closing", "closed"):
            try:
                self.client.run(_drop, self.token)
            except Exception:   # a closed cluster holds nothing any more
                pass
        self._placed = False
        self._placements = []
        self._held = None

    def _release_phi(self) -> None:
        if self._phi is not None:
            for f in self._phi.shards:
                try:
                    f.release()
                except Exception:
                    pass
            self._phi = None

    @property
    def placements(self) -> list[Placement]:
        """Where the partitions are (empty before the first sweep)."""
        return list(self._placements)

    # ------------------------------------------------------------------ placing documents
    def _live_workers(self) -> set[str]:
        """The workers' addresses, asked of the scheduler now (``Client.nthreads``). Not
        ``Client.scheduler_info``: it returns the client's cached identity, which the
        client's own periodic refresh (asking for no workers) can overwrite between the
        fetch and the read, so it now and then listed none (a lost-worker test failed so)."""
        return set(self.client.nthreads())

    def _workers(self) -> list[str]:
        workers = sorted(self._live_workers())
        if not workers:
            raise RuntimeError("the Dask cluster has no workers: start some, or use the "
                               "threaded backend")
        return workers

    def _sources(self, live: set[str]) -> list[tuple[str, int]]:
        """For each partition, a live worker holding a copy of it and which copy."""
        out = []
        for p in self._placements:
            if p.worker in live:
                out.append((p.worker, 0))
            elif p.replica is not None and p.replica in live:
                out.append((p.replica, 1))
            else:
                where = p.worker if p.replica is None else f"{p.worker} and {p.replica}"
                lost = WorkerLostError(
                    f"every copy of {p.holding()} was on workers lost ({where}): their topics "
                    f"since the Session's state was last read are gone; load the last "
                    f"checkpoint or autosave (a replica needs two workers or more)")
                lost.topicsup_nothing_applied = True
                raise lost
        return out

    def _place(self, tokens: Tokens, counts: Counts, step: DocumentStep) -> None:
        """Put each partition on a worker and, with two workers or more, a replica of it on
        another: from the Session's topics when they are current, else (the topics live on
        the workers and one was lost) from the surviving copies, worker to worker, at the
        last sweep taken here. The partitions' bounds stay those of the first placement."""
        workers = self._workers()
        doc_ptr = tokens.doc_ptr
        D, N = doc_ptr.shape[0] - 1, int(doc_ptr[-1])
        exports: list[Any] = []
        if self._z_stale and self._placements:
            sources = self._sources(set(workers))
            bounds = [(p.d0, p.d1) for p in self._placements]
            exports = [self.client.submit(_export, self.token, p.index, copy, self._generation,
                                          self._steps[p.index], workers=[w],
                                          allow_other_workers=False, pure=False)
                       for p, (w, copy) in zip(self._placements, sources)]
        else:
            self._release_phi()
            if self._placed or self._placements:
                with contextlib.suppress(Exception):
                    self.client.run(_drop, self.token)
            n = min(self.partitions or len(workers), D)
            cuts = np.searchsorted(doc_ptr, np.arange(1, n) * (N / n))
            edges = np.unique(np.concatenate([[0], np.clip(cuts, 0, D), [D]]))
            bounds = [(int(edges[j]), int(edges[j + 1])) for j in range(len(edges) - 1)]
        generation = self._generation + 1
        placements, futures, waits = [], [], []
        for j, (d0, d1) in enumerate(bounds):
            worker = workers[j % len(workers)]
            replica = workers[(j + 1) % len(workers)] if len(workers) > 1 else None
            p0, p1 = int(doc_ptr[d0]), int(doc_ptr[d1])
            z = np.zeros(0, np.int32) if exports else counts.z[p0:p1].copy()
            part = _Partition(generation, d0, d1, tokens.words[p0:p1].copy(),
                              (doc_ptr[d0:d1 + 1] - p0).astype(np.int64), z,
                              np.ascontiguousarray(step.covariates[d0:d1]))
            placement = Placement(j, d0, d1, worker, replica)
            for copy, where in ((0, worker), (1, replica)):
                if where is None:
                    continue
                data = self.client.scatter(part, workers=[where], direct=True, hash=False,
                                           timeout=SEND_SECONDS)
                futures.append(self.client.submit(
                    _install, self.token, j, copy, data, exports[j] if exports else None,
                    workers=[where], allow_other_workers=False, pure=False))
                waits.append(placement if copy == 0 else
                             Placement(j, d0, d1, where, None))
            placements.append(placement)
        self._wait(futures, waits, what="placing the documents")
        self._placements = placements
        self._generation = generation
        self._steps = [0] * len(placements)
        self._placed = True
        # the copies of older placements go (after the new ones have their topics)
        with contextlib.suppress(Exception):
            self.client.run(_prune, self.token, generation)

    # ------------------------------------------------------------------ a block
    def _draw_phi(self, counts: Counts, step: DocumentStep, tag: bytes) -> tuple[int, int]:
        """Phi | Z drawn on the workers: each draws the rows of a range of word chunks from
        its rows of n_wk (``_draw_shard``), the chunks' column sums come here and are added
        in chunk order (``kernels.partially_collapsed.normalisers``), the columns of topics
        without tokens are drawn here; each worker then fetches the other workers' rows
        (``_phi_here``). The driver sends n_wk once (4 V K bytes) instead of Phi to every
        worker (8 V K bytes each). Returns the bytes sent and received."""
        workers = sorted({p.worker for p in self._placements})
        V, K = counts.n_wk.shape
        n_chunks = (V + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK
        cuts = np.unique(np.linspace(0, n_chunks, len(workers) + 1).round().astype(np.int64))
        shards, where = [], []
        sent = 0
        for i in range(len(cuts) - 1):
            c0, c1 = int(cuts[i]), int(cuts[i + 1])
            w0, w1 = c0 * pc.PHI_CHUNK, min(V, c1 * pc.PHI_CHUNK)
            worker = workers[i]
            rows = self.client.scatter(counts.n_wk[w0:w1], workers=[worker], direct=True,
                                       hash=False, timeout=SEND_SECONDS)
            sent += counts.n_wk[w0:w1].nbytes + counts.n_k.nbytes
            shards.append(self.client.submit(
                _draw_shard, i, c0, rows, counts.n_k.copy(), step.beta, step.key.copy(),
                workers=[worker], allow_other_workers=False, pure=False,
                key=f"topicsup-phi-{self.token[:8]}-{next(self._counter)}-{i}"))
            where.append(Shard(i, w0, w1, worker))
        sums = self._wait([self.client.submit(_column_sums, f, workers=[p.worker],
                                              allow_other_workers=False, pure=False)
                           for f, p in zip(shards, where)], where, what="drawing Phi")
        for part, p in zip(sums, where):
            # the column sums decide every worker's Phi: checked whole before they are used
            rows = (p.w1 - p.w0 + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK
            if not (isinstance(part, np.ndarray) and part.shape == (rows, K)
                    and np.isfinite(part).all() and (part >= 0).all()):
                raise RuntimeError(f"worker {p.worker} replied column sums of shape "
                                   f"{getattr(part, 'shape', None)} (or not finite and "
                                   f"non-negative) for {p.holding()}; expected ({rows}, {K})")
        inv = pc.normalisers(np.concatenate(sums), counts.n_k)
        empty_topics = np.flatnonzero(counts.n_k == 0).astype(np.int64)
        empty = np.empty((V, empty_topics.size))
        for e, k in enumerate(empty_topics):
            empty[:, e] = pc.empty_topic(V, int(k), step.beta, step.key)
        between = (len(where) - 1) * 8 * V * K
        self._phi = _PhiShards(tag, shards, where, inv, empty, empty_topics, between)
        return sent + inv.nbytes * len(workers) + empty.nbytes * len(workers), \
            sum(x.nbytes for x in sums)

    def sync(self) -> None:
        """Bring the Session's state up to date with what lives on the workers:

        * the last sweep's Phi, drawn here from the counts, beta and key the workers drew it
          from (``kernels.partially_collapsed.draw_phi``: the same bits): V K Gamma draws
          when the state is read (a read-out, a checkpoint), where gathering the workers'
          rows would move 8 V K bytes every sweep;
        * the topics z, fetched from the copies of the partitions (4 bytes a token) once
          after a sweep, when read: between reads the documents' state is the workers'
          alone (the driver adopts count changes, not tokens)."""
        if self._stale_phi is not None:
            n_wk, n_k, beta, key, phi = self._stale_phi
            partial = np.empty(((n_wk.shape[0] + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK,
                                n_k.shape[0]))
            pc.draw_phi(n_wk, n_k, beta, key, phi, partial)
            self._stale_phi = None
        if self._z_stale and self._held is not None:
            _check_open(self.client)
            tokens, counts = self._held
            sources = self._sources(set(self._workers()))
            futures = [self.client.submit(_export, self.token, p.index, copy, self._generation,
                                          self._steps[p.index], workers=[w],
                                          allow_other_workers=False, pure=False)
                       for p, (w, copy) in zip(self._placements, sources)]
            at = [p if copy == 0 else Placement(p.index, p.d0, p.d1, w)
                  for p, (w, copy) in zip(self._placements, sources)]
            parts = self._wait(futures, at, what="reading the topics")
            for p, z in zip(self._placements, parts):
                p0, p1 = int(tokens.doc_ptr[p.d0]), int(tokens.doc_ptr[p.d1])
                K = counts.n_k.shape[0]
                if not (isinstance(z, np.ndarray) and z.shape == (p1 - p0,)
                        and (z.size == 0 or (z.min() >= 0 and z.max() < K))):
                    raise RuntimeError(f"worker {p.worker} replied topics of shape "
                                       f"{getattr(z, 'shape', None)} (or out of range) for "
                                       f"{p.holding()}; expected ({p1 - p0},)")
                counts.z[p0:p1] = z
            self._z_stale = False

    def feature_rows(self) -> tuple[I64, I64, F64] | None:
        """The features (zbar_d, x_d) by row of the last sweep, as the workers computed them
        from the topics they keep (``kernels.weights.topic_rows``' rows, the same bits), for
        a supervised model's end of sweep; None if not asked for."""
        return self._features

    def _send_phi(self, step: DocumentStep, tag: bytes) -> tuple[int, int]:
        """The sweep's Phi drawn before (here, part-way through the sweep) to the workers, as
        shards of rows whose normalisers are 1 (the same bits). Returns the bytes sent and
        received."""
        workers = sorted({p.worker for p in self._placements})
        V, K = step.phi.shape
        cuts = np.unique(np.linspace(0, V, len(workers) + 1).round().astype(np.int64))
        shards, where = [], []
        for i in range(len(cuts) - 1):
            w0, w1 = int(cuts[i]), int(cuts[i + 1])
            shards.append(self.client.scatter((np.zeros((0, K)), step.phi[w0:w1]),
                                              workers=[workers[i]], direct=True, hash=False,
                                              timeout=SEND_SECONDS))
            where.append(Shard(i, w0, w1, workers[i]))
        self._phi = _PhiShards(tag, shards, where, np.ones(K), np.zeros((V, 0)),
                               np.zeros(0, np.int64), (len(where) - 1) * 8 * V * K,
                               drawn_there=False)
        return step.phi.nbytes, 0

    def _workers_lost(self) -> bool:
        live = self._live_workers()
        return any(w not in live for p in self._placements for w in (p.worker, p.replica)
                   if w is not None)

    def sweep_documents(self, tokens: Tokens, counts: Counts, step: DocumentStep, d_start: int,
                        d_end: int, z_prev: I32, info: F64) -> None:
        _check_open(self.client)
        if self._held is not None and self._held[1] is not counts:
            # another state (a Session rebuilt around this backend): its topics are its own
            self.sync()
            self._placed = False
            self._z_stale = False
        self._held = (tokens, counts)
        self._features = None
        t0 = time.perf_counter()
        futures: list[Any] = []
        sending = "?"
        try:
            if not self._placed or self._workers_lost():
                # first block, or a worker left: the documents from here or from the copies
                self._place(tokens, counts, step)
            t_place = time.perf_counter()
            todo = [p for p in self._placements if p.d0 < d_end and p.d1 > d_start]
            if not todo:
                return
            sent = received = 0
            tag = step.key.tobytes()
            if self._phi is None or self._phi.tag != tag:
                self._release_phi()
                # a sweep begun elsewhere (a checkpoint taken part-way) has its Phi already
                sent, received = self._draw_phi(counts, step, tag) if d_start == 0 else \
                    self._send_phi(step, tag)
            phi = self._phi
            assert phi is not None
            if phi.drawn_there and phi.drawn_from is None:
                # what this sweep's Phi is drawn from, for the Session's copy (``sync``)
                phi.drawn_from = (counts.n_wk.copy(), counts.n_k.copy(), step.beta,
                                  step.key.copy(), step.phi)
            t_phi = time.perf_counter()
            term = step.term
            K = counts.n_k.shape[0]
            replies, replicas, waits = [], [], []
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
                                  term.factor, arrays, step.feature_rows)
                sent += _nbytes(inp)
                sending = p.worker
                data = self.client.scatter(inp, workers=[p.worker], direct=True, hash=False,
                                           timeout=SEND_SECONDS)
                pin = dict(workers=[p.worker], allow_other_workers=False, pure=False)
                swept = self.client.submit(
                    _sweep_partition, self.token, p.index, data, phi.shards, phi.inv,
                    phi.empty, phi.empty_topics, **pin,
                    key=f"topicsup-sweep-{self.token[:8]}-{next(self._counter)}-{p.index}")
                futures.append(swept)
                replies.append(self.client.submit(_reply, swept, **pin))
                if p.replica is not None:
                    # the tokens that changed go from the sweeping worker to the replica's
                    changes = self.client.submit(_replica_changes, swept, **pin)
                    futures.append(changes)
                    replicas.append(self.client.submit(
                        _apply_replica, self.token, p.index, self._generation,
                        self._steps[p.index], changes, workers=[p.replica],
                        allow_other_workers=False, pure=False))
                    waits.append(Placement(p.index, p.d0, p.d1, p.replica))
            others = [p for p in self._placements if p not in todo] \
                if step.feature_rows else []
            features = [self.client.submit(_partition_features, self.token, p.index,
                                           self._generation, K, workers=[p.worker],
                                           allow_other_workers=False, pure=False)
                        for p in others]
            futures += replies + replicas + features
            results = self._wait(replies + replicas + features, todo + waits + others,
                                 what="a sweep")[:len(todo)]
            t_work = time.perf_counter()
            # every partition and replica answered: the state changes now (all or nothing)
            for p, (keys, deltas, *_rest) in zip(todo, results):
                if not (isinstance(keys, np.ndarray) and isinstance(deltas, np.ndarray)
                        and keys.shape == deltas.shape and int(deltas.sum()) == 0):
                    raise RuntimeError(f"worker {p.worker} replied count changes that do not "
                                       f"add up to zero for {p.holding()}")
            keys = np.concatenate([r[0] for r in results]).astype(np.int64, copy=False)
            deltas = np.concatenate([r[1] for r in results]).astype(np.int32, copy=False)
            part_ptr = np.cumsum([0] + [r[0].shape[0] for r in results]).astype(np.int64)
            rows = np.concatenate([r[2] for r in results])
            t_adopt = time.perf_counter()
            bad = pc.adopt_deltas(keys, deltas, part_ptr, counts.n_wk, counts.n_k)
            if bad != -1:
                who = f"worker {todo[bad].worker} for {todo[bad].holding()}" if bad >= 0 \
                    else "the workers"
                raise RuntimeError(f"{who} replied count changes out of order, out of range "
                                   f"or making a count negative")
        except BaseException as exc:
            # nothing is applied yet: place the documents again at the next block (from the
            # copies, which take back a sweep the Session did not take, ``_export``)
            self._placed = False
            self._release_phi()
            if futures:
                self.client.cancel(futures)
            if isinstance(exc, (TimeoutError, distributed.TimeoutError, OSError)):
                lost = WorkerLostError(f"Dask worker {sending} did not answer while a sweep's "
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
        pc.add_rows(info, rows)
        t_end = time.perf_counter()
        self._z_stale = True
        if step.feature_rows:
            parts = {p.index: r[3] for p, r in zip(todo, results)}
            parts.update({p.index: f.result() for p, f in zip(others, features)})
            self._features = _join_rows([parts[p.index] for p in self._placements])
        else:
            self._features = None
        # the Session's Phi is the sweep's once read (``sync``), not sent here every sweep
        self._stale_phi = phi.drawn_from
        for p in todo:
            self._steps[p.index] += 1
        self._release_phi()   # the workers drop the shards they fetched
        for f in futures:
            f.release()
        n_tokens = sum(int(tokens.doc_ptr[min(d_end, p.d1)])
                       - int(tokens.doc_ptr[max(d_start, p.d0)]) for p in todo)
        reply = sum(_nbytes(r[:4]) for r in results)
        received += reply
        on_worker = np.max([r[5] for r in results], axis=0)   # the slowest partition's split
        self.traffic.append({"bytes_sent": float(sent),
                             "bytes_received": float(received),
                             "tokens": float(n_tokens),
                             "tokens_changed": float(sum(r[4] for r in results)),
                             "count_changes": float(keys.shape[0]),
                             "bytes_reply": float(reply),
                             "bytes_between_workers": float(phi.between),
                             "bytes_to_replicas": float(sum(
                                 r[6] for p, r in zip(todo, results) if p.replica)),
                             "seconds_place": t_place - t0, "seconds_phi": t_phi - t_place,
                             "seconds_workers": t_work - t_phi,
                             "seconds_assemble_phi": float(on_worker[0]),
                             "seconds_tables": float(on_worker[1]),
                             "seconds_sweep": float(on_worker[2]),
                             "seconds_adopt": t_end - t_adopt})

    def _wait(self, futures: list[Any], placements: Sequence[Placement | Shard],
              what: str) -> list[Any]:
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
            live = self._live_workers()
            for f, p in zip(futures, placements):
                if f.status != "finished" and p.worker not in live:
                    raise self._lost(p, what)

    def _lost(self, p: Placement | Shard, what: str, why: str = "") -> WorkerLostError:
        return WorkerLostError(
            f"Dask worker {p.worker} holding {p.holding()} was lost during {what}"
            f"{f' ({why})' if why else ''}; nothing of this "
            f"sweep was applied and the Session is at its last completed sweep: run again "
            f"to place the documents on the workers there are and continue the same chain")

    def traffic_frame(self) -> pd.DataFrame:
        """Bytes sent to and received from the workers and the time split of each block, as
        a DataFrame (``benchmarks/bench_dask.py`` reports them)."""
        import pandas as pd
        return pd.DataFrame(self.traffic)


__all__ = ["DaskBackend", "Placement", "WorkerLostError"]
