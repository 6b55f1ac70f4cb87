"""Checkpoint files: a session's chain in one ``.npz``, written atomically, read as untrusted.

A checkpoint holds no code and no pickled objects: NumPy arrays in a zip of ``.npy`` members
(as ``np.savez_compressed`` writes them) and one JSON document, the member ``meta``. Writing
goes to a temporary file beside the target, then replaces it, so a save that is interrupted
never leaves a half-written checkpoint in place of a good one.

Reading trusts nothing in the file. ``CheckpointReader`` checks the container before
anything is decoded:

1. the file is a readable zip whose members are ``.npy`` arrays, and only the members the
   format defines (``Session.load`` names them from the metadata before reading any array);
2. each member's declared size is bounded by its compressed size (1000x), all of them
   together by the file's size (200x, plus 64 MiB) and by the memory available, and each
   array header's shape fits its member's declared size, so no member can make the reader
   allocate more than the file promises: a small file cannot expand into gigabytes;
3. each array is a plain number or string array (no objects, no structured records, no
   zero-width items); the JSON metadata is at most 64 MiB with at most a million objects;
4. a SHA-256 checksum over every array's name, dtype, shape and bytes matches the one the
   writer stored: a first line against damage and careless edits. A forger can recompute it,
   so ``Session.load`` then checks every field for what it is (the corpus as any ``Corpus``,
   the model's parameters by the model, the state arrays' dtypes, shapes and ranges, the
   random stream, the position inside a sweep, the history) before any kernel runs.

Every failure is a ``ValueError`` that names the file and the field (``CheckpointError``).

The session's format (``save_session`` / ``load_session``): the model's name and parameters,
the corpus, the chain's state arrays, the random stream, the position inside a sweep, the
record (history, traces, settings changes), and the migrations from every earlier format
(``FORMAT_VERSION``). ``load_session`` returns a plain ``SavedSession`` from which
``Session.load`` builds the session through ``Session._from_saved``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import struct
import tempfile
import threading
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, cast

import numpy as np

from . import validation as check
from ._version import __version__
from .corpus import ARRAY_KINDS, Corpus
from .history import CHANGE_COLUMNS, HISTORY_COLUMNS, History, Record
from .models import LDA, model_from_params
from .problem import Problem, State
from .summaries import MAX_LABEL_LENGTH

# A member may expand at most this much over its compressed bytes (real chain state
# compresses 2-20x; all-zero arrays far more, hence the slack for small members).
MAX_EXPANSION = 1000
EXPANSION_SLACK = 16 * 2**20
MAX_FILE_EXPANSION = 200      # all members together, over the whole file's bytes
FILE_SLACK = 64 * 2**20
MAX_META_BYTES = 64 * 2**20
MAX_META_OBJECTS = 1_000_000  # JSON objects and lists (format 1 kept the history there)
_CONTAINER_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, struct.error,
                     NotImplementedError, RuntimeError, ValueError, UnicodeDecodeError)


class CheckpointError(ValueError):
    """A checkpoint file that is damaged, altered or not a topicsup checkpoint."""

    def __init__(self, path: Path, field: str | None, message: str) -> None:
        where = f"field {field!r}: " if field else ""
        super().__init__(f"checkpoint {str(path)!r}: {where}{message}")
        self.path = path
        self.field = field


def checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of every array's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode() + b"\0" + a.dtype.str.encode() + b"\0"
                 + repr(a.shape).encode() + b"\0")
        h.update(a.reshape(-1).view(np.uint8).data)   # the bytes, without a copy
    return h.hexdigest()


# How members are compressed. Deflate at its fastest level: on a chain's arrays it writes
# 4-6x faster than the default level 6 for files 5-10% larger (a checkpoint of 12.5 M tokens:
# benchmarks/bench_checkpoint.py). A member whose first SAMPLE_BYTES deflate to more than
# STORE_ABOVE of their size (floats such as an augmentation's draws) is stored as it is:
# compressing it would cost time for nothing.
COMPRESS_LEVEL = 1
SAMPLE_BYTES = 1 << 20
STORE_ABOVE = 0.9


def _compression(a: np.ndarray) -> int:
    """``zipfile.ZIP_DEFLATED`` for a member that compresses, ``ZIP_STORED`` for one that
    does not (its first ``SAMPLE_BYTES`` tried at ``COMPRESS_LEVEL``)."""
    raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)[:SAMPLE_BYTES]
    if raw.size < 4096:
        return zipfile.ZIP_DEFLATED
    packed = len(zlib.compress(raw.data, COMPRESS_LEVEL))
    return zipfile.ZIP_STORED if packed > STORE_ABOVE * raw.size else zipfile.ZIP_DEFLATED


def write_members(f: Any, members: dict[str, np.ndarray]) -> None:
    """The members as an ``.npz`` (a zip of ``.npy`` arrays, as ``numpy.savez`` writes it and
    ``numpy.load`` reads it) to the binary file ``f``, each streamed (no second copy of an
    array) and compressed by ``_compression``."""
    with zipfile.ZipFile(f, mode="w", allowZip64=True, compresslevel=COMPRESS_LEVEL) as zf:
        for name, value in members.items():
            a = np.asanyarray(value)
            zf.compression = _compression(a)   # the next member's (open reads it)
            with zf.open(name + ".npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, a, allow_pickle=False)


def write(path: str | os.PathLike[str], arrays: dict[str, np.ndarray],
          meta: dict[str, Any]) -> Path:
    """Write ``arrays`` and the JSON ``meta`` (with their checksum added) to ``path``,
    atomically: a temporary file in the same directory replaces the target at the end."""
    path = Path(check.path_like("path", path))
    if path.is_symlink():      # write through a link, as open() would, not over it
        path = path.resolve()
    meta = {**meta, "checksum": {"algorithm": "sha256", "digest": checksum(arrays)}}
    members = dict(arrays)
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write_members(f, members)
        umask = os.umask(0)    # the mode open() would give a new file (mkstemp's is 0600)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


class CheckpointReader:
    """The arrays and metadata of a checkpoint file, each checked before it is returned.

    Parameters
    ----------
    path : str or path-like
        The file. A missing file is a ``FileNotFoundError``; anything that is not a readable
        topicsup checkpoint is a ``CheckpointError`` (a ``ValueError``).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(check.path_like("path", path))
        if not self.path.exists():
            raise FileNotFoundError(f"checkpoint {str(self.path)!r} does not exist")
        if not self.path.is_file():
            raise self.error(None, "is not a file")
        try:
            self._zip = zipfile.ZipFile(self.path)
        except PermissionError:
            raise
        except _CONTAINER_ERRORS as exc:
            raise self.error(None, f"not a topicsup checkpoint: not a readable .npz (zip) "
                                   f"file ({type(exc).__name__}: {exc})") from None
        try:
            self._index()
        except BaseException:
            self._zip.close()
            raise
        self._arrays: dict[str, np.ndarray] = {}

    def _index(self) -> None:
        self._members: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in self._zip.infolist():
            if not info.filename.endswith(".npy") or info.is_dir():
                raise self.error(None, f"not a topicsup checkpoint: unexpected member "
                                       f"{info.filename!r} (only .npy arrays)")
            name = info.filename[:-4]
            if info.file_size > MAX_EXPANSION * info.compress_size + EXPANSION_SLACK:
                raise self.error(name, f"declares {info.file_size} bytes from "
                                       f"{info.compress_size} compressed: refused as damaged "
                                       f"or hostile")
            total += info.file_size
            self._members[name] = info
        size = self.path.stat().st_size
        if total > MAX_FILE_EXPANSION * size + FILE_SLACK:
            raise self.error(None, f"its members declare {total} bytes from a file of {size}: "
                                   f"refused as damaged or hostile")
        with self.checking(None):
            check.allocation(f"reading checkpoint {str(self.path)!r}", 2.0 * total)
        if "meta" not in self._members:
            raise self.error(None, "not a topicsup checkpoint: it has no metadata")

    def require_members(self, allowed: Any) -> None:
        """Refuse the file if it holds a member ``allowed(name)`` rejects, before any array
        is read (an unknown member would be decompressed for nothing)."""
        unknown = sorted(n for n in self._members if not allowed(n))
        if unknown:
            raise self.error(unknown[0], f"is not a member of a topicsup checkpoint of this "
                                         f"model ({len(unknown)} unknown member(s))")

    # ------------------------------------------------------------------ errors
    def error(self, field: str | None, message: str) -> CheckpointError:
        return CheckpointError(self.path, field, message)

    @contextlib.contextmanager
    def checking(self, field: str | None) -> Iterator[None]:
        """Turn an error raised inside (what a constructor or a model's own check found
        wrong, or a value too large or too deep to read) into a ``CheckpointError`` naming
        ``field``."""
        try:
            yield
        except CheckpointError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, OverflowError,
                RecursionError) as exc:
            raise self.error(field, str(exc) or type(exc).__name__) from None
        except MemoryError:
            raise self.error(field, "needs more memory than is available") from None

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> "CheckpointReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ arrays
    def names(self, prefix: str = "") -> list[str]:
        """Names of the arrays whose name starts with ``prefix``."""
        return sorted(n for n in self._members if n.startswith(prefix))

    def __contains__(self, name: str) -> bool:
        return name in self._members

    def _read(self, name: str) -> np.ndarray:
        if name in self._arrays:
            return self._arrays[name]
        info = self._members.get(name)
        if info is None:
            raise self.error(name, "is missing")
        try:
            with self._zip.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                elif version == (2, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                else:
                    raise ValueError(f"unsupported .npy format version {version}")
                if dtype.hasobject or dtype.names is not None or dtype.kind not in "biufcU" \
                        or dtype.itemsize == 0:
                    raise ValueError(f"holds dtype {dtype}; a checkpoint holds only plain "
                                     f"number and string arrays")
                if any(n < 0 for n in shape):
                    raise ValueError(f"its header declares the shape {shape}")
                count = math.prod(shape)
                n_bytes = count * dtype.itemsize
                if n_bytes > info.file_size:
                    raise ValueError(f"its header declares shape {shape} ({n_bytes} bytes), "
                                     f"more than the member's {info.file_size} bytes")
                # straight into the array (no bytes object beside it: a member of 10^8
                # tokens is read once, not twice)
                buf = np.empty(count, dtype=dtype)
                got = (cast(io.BufferedIOBase, f).readinto(buf.view(np.uint8).data)
                       if n_bytes else 0)
                if got != n_bytes:
                    raise ValueError(f"is truncated: {got} of {n_bytes} bytes")
            a = buf.reshape(shape, order="F" if fortran else "C")
            if not (a.flags.c_contiguous and a.dtype.isnative):
                a = np.array(a, dtype=dtype.newbyteorder("="), order="C")
        except CheckpointError:
            raise
        except _CONTAINER_ERRORS as exc:
            raise self.error(name, f"cannot be read ({type(exc).__name__}: {exc})") from None
        self._arrays[name] = a
        return a

    def array(self, name: str, *, kinds: str = "biufU", dtype: Any = None,
              shape: tuple[int, ...] | None = None, ndim: int | None = None) -> np.ndarray:
        """The array ``name``, checked: its dtype kind in ``kinds`` (or exactly ``dtype``),
        its shape or number of dimensions as given. Returned as a fresh writable array, the
        reader's own read handed over (not copied: a large member is held once)."""
        a = self._read(name)
        self._arrays.pop(name, None)   # asked again, it is read again
        if dtype is not None and a.dtype != np.dtype(dtype):
            raise self.error(name, f"has dtype {a.dtype}, expected {np.dtype(dtype)}")
        if a.dtype.kind not in kinds:
            raise self.error(name, f"has dtype {a.dtype}, expected one of the kinds {kinds!r}")
        if shape is not None and a.shape != tuple(shape):
            raise self.error(name, f"has shape {a.shape}, expected {tuple(shape)}")
        if ndim is not None and a.ndim != ndim:
            raise self.error(name, f"has {a.ndim} dimensions, expected {ndim}")
        return a

    def all_arrays(self) -> dict[str, np.ndarray]:
        """Every array but the metadata (for the checksum)."""
        return {n: self._read(n) for n in self._members if n != "meta"}

    # ------------------------------------------------------------------ metadata
    def meta(self) -> dict[str, Any]:
        """The JSON metadata, parsed: a dict (its fields are checked by the caller)."""
        info = self._members["meta"]
        if info.file_size > MAX_META_BYTES + 128:
            raise self.error("meta", f"is {info.file_size} bytes, more than {MAX_META_BYTES}")
        raw = self.array("meta", dtype=np.uint8, ndim=1).tobytes()
        objects = raw.count(b"{") + raw.count(b"[")
        if objects > MAX_META_OBJECTS:
            raise self.error("meta", f"holds {objects} JSON objects and lists, more than "
                                     f"{MAX_META_OBJECTS}")
        try:
            meta = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:   # JSONDecodeError, UnicodeDecodeError
            raise self.error("meta", f"is not valid JSON ({exc})") from None
        if not isinstance(meta, dict):
            raise self.error("meta", f"must be a JSON object, got {type(meta).__name__}")
        return meta

    def verify_checksum(self, meta: dict[str, Any], required: bool = True) -> None:
        """Compare the arrays with the checksum the writer stored (files of the first format,
        written before checksums existed, have none and rely on the field checks alone)."""
        stored = meta.get("checksum")
        if stored is None and not required:
            return
        if not isinstance(stored, dict) or stored.get("algorithm") != "sha256" \
                or not isinstance(stored.get("digest"), str):
            raise self.error("checksum", f"must be {{'algorithm': 'sha256', 'digest': ...}}, "
                                         f"got {stored!r:.80}")
        if checksum(self.all_arrays()) != stored["digest"]:
            raise self.error("checksum", "the arrays do not match the checksum written with "
                                         "them: the file was altered or damaged")

    # typed getters for metadata fields: the value, or a CheckpointError naming the field
    def meta_int(self, meta: dict[str, Any], name: str, low: int | None = None,
                 high: int | None = None, default: Any = None) -> int:
        value = meta.get(name, default)
        if value is None:
            raise self.error(name, "is missing")
        with self.checking(name):
            return check.integer(name, value, low=low, high=high)

    def meta_number(self, meta: dict[str, Any], name: str, low: float | None = None,
                    default: Any = None) -> float:
        value = meta.get(name, default)
        if value is None:
            raise self.error(name, "is missing")
        with self.checking(name):
            return check.number(name, value, low=low)

    def meta_str(self, meta: dict[str, Any], name: str) -> str:
        value = meta.get(name)
        if not isinstance(value, str):
            raise self.error(name, f"must be a str, got {type(value).__name__}")
        return value

    def meta_dict(self, meta: dict[str, Any], name: str, default: Any = None) -> dict[str, Any]:
        value = meta.get(name, default)
        if not isinstance(value, dict):
            raise self.error(name, f"must be a JSON object, got {type(value).__name__}")
        return value

    def meta_list(self, meta: dict[str, Any], name: str, default: Any = None) -> list[Any]:
        value = meta.get(name, default)
        if not isinstance(value, list):
            raise self.error(name, f"must be a JSON list, got {type(value).__name__}")
        return value


# ---------------------------------------------------------------------------------------------
# The session's format

FORMAT = "topicsup-session"
# 2: checksum, settings changes, history as arrays; 3: the corpus's pandas index
# (corpus/index, corpus/index_name). Files of 1 and 2 still load (with the default index).
FORMAT_VERSION = 3
INDEX_SINCE = 3
HISTORY_KINDS = ("sweep", "value", "metric", "proposal", "names", "kinds")
MAX_METRIC_NAMES = 10_000


@dataclass
class SavedSession:
    """Everything a session's chain is, as a checkpoint holds it: the ``problem`` (the model
    bound to its corpus with the Dirichlet parameters it has learned, ``Model.bind``) run as
    ``Session(model, corpus, seed, block_tokens=..., log_joint_every=...)``, resumed at
    ``n_sweeps`` completed sweeps, ``block`` blocks into the next (``seconds`` of it spent),
    with its ``state``, random stream ``rng``, the current sweep's counters ``info`` and its
    ``record``."""

    problem: Problem[LDA]
    seed: int
    block_tokens: int
    log_joint_every: int
    n_sweeps: int
    block: int
    seconds: float
    state: State
    rng: np.ndarray
    info: np.ndarray
    record: Record


class Autosave:
    """A session's checkpoint written every ``every`` minutes (0: after every sweep) to
    ``path``, so a crashed kernel loses at most one interval of a long run
    (``Session(..., autosave=path, autosave_every=minutes)``).

    The session asks ``due()`` after each sweep; when it is, it copies what the file holds
    with the chain held still (``session_file``: a memory copy of the state, well under a
    second at 10^6 documents) and hands it to ``start``, which writes it in a thread of its
    own while the chain samples on; one write at a time (a sweep that ends while the last
    one is still writing does not start another). Each write is atomic (``write``): the
    file on disk is always a whole checkpoint, the last one finished. A write that failed
    (a full disk) is reported by ``failure`` once, and the next one is tried."""

    def __init__(self, path: str | os.PathLike[str], every: float) -> None:
        self.path = Path(check.path_like("autosave", path))
        if self.path.is_dir():
            raise ValueError(f"autosave must be the path of a file to write, got the "
                             f"directory {str(self.path)!r}")
        self.every = check.number("autosave_every", every, low=0.0, high=1e9)
        self._last = time.monotonic()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.n_written = 0      # files finished
        self.sweep = -1         # the sweep the last finished file holds

    def due(self) -> bool:
        """Whether a write is due: ``every`` minutes since the last one began, none under
        way."""
        busy = self._thread is not None and self._thread.is_alive()
        return not busy and time.monotonic() - self._last >= 60.0 * self.every

    def start(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Write ``arrays`` and ``meta`` (copies the chain no longer touches) in a thread."""
        self._last = time.monotonic()
        sweep = int(meta["n_sweeps"])

        def run() -> None:
            try:
                write(self.path, arrays, meta)
                self.n_written += 1
                self.sweep = sweep
            except BaseException as e:   # reported by failure(), in the session's thread
                self._error = e
        self._thread = threading.Thread(target=run, name="topicsup-autosave", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Until the write under way (if any) has finished."""
        if self._thread is not None:
            self._thread.join()

    def failure(self) -> str | None:
        """What the last failed write raised, once (None when none failed since)."""
        error, self._error = self._error, None
        return None if error is None else f"{type(error).__name__}: {error}"


def save_session(path: str | os.PathLike[str], saved: SavedSession) -> Path:
    """Write ``saved`` as a checkpoint (``write``: atomically)."""
    return write(path, *session_file(saved))


def session_file(saved: SavedSession) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays (copies: a running session may change its own meanwhile) and metadata of
    ``saved``'s checkpoint."""
    model, corpus = saved.problem.model, saved.problem.corpus
    meta = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "topicsup_version": __version__,
        "model": type(model).__name__, "params": model.get_params(),
        "seed": saved.seed, "n_sweeps": saved.n_sweeps, "block": saved.block,
        "block_tokens": saved.block_tokens, "log_joint_every": saved.log_joint_every,
        "seconds": saved.seconds, "n_unknown_tokens": corpus.n_unknown_tokens,
        "preprocessing": corpus.preprocessing,
        **corpus.texts_meta(),
        "settings_changes": [dict(c) for c in saved.record.changes],
        "topic_labels": {str(k): v for k, v in sorted(saved.record.labels.items())},
    }
    state = {**model.saved_arrays(saved.state), **model.saved_prior(saved.problem)}
    arrays = {f"state/{k}": state[k].copy() for k in model.saved_state}
    arrays.update(saved.record.to_arrays())
    arrays.update(corpus.to_arrays())
    arrays["rng"] = saved.rng.copy()
    arrays["info"] = saved.info.copy()
    return arrays, meta


def load_session(path: str | os.PathLike[str]) -> SavedSession:
    """Read a session's checkpoint as untrusted input (module docstring): every field is
    checked for what it is before any kernel could see it."""
    with CheckpointReader(path) as f:
        with f.checking(None):   # a MemoryError is the file's fault too
            return _session(f)


def _session(f: CheckpointReader) -> SavedSession:
    meta = f.meta()
    if meta.get("format") != FORMAT:
        raise f.error("format", "not a topicsup session checkpoint")
    version = f.meta_int(meta, "format_version", low=1)
    if version > FORMAT_VERSION:
        raise f.error("format_version", f"the file has checkpoint format {version}; this "
                                        f"topicsup ({__version__}) reads up to "
                                        f"{FORMAT_VERSION}")
    # the model, checked by its own constructor; then which members the file may hold
    name = f.meta_str(meta, "model")
    params = f.meta_dict(meta, "params")
    with f.checking("params"):
        model = model_from_params(name, params)
        if not isinstance(model, LDA):   # every registered model is one (models.base)
            raise ValueError(f"{name} is not a topic model of the frame")
    known = ({"meta", "rng", "info"} | {f"state/{k}" for k in model.saved_state}
             | {f"corpus/{k}" for k in _CorpusArrays.KINDS
                if version >= INDEX_SINCE or k not in _CorpusArrays.INDEX}
             | {f"trace/{k}" for k in model.trace_names}
             | ({f"history/{k}" for k in HISTORY_KINDS} if version >= 2 else set()))
    f.require_members(known.__contains__)
    f.verify_checksum(meta, required=version >= 2)
    n_unknown = f.meta_int(meta, "n_unknown_tokens", low=0, default=0)
    prep = f.meta_dict(meta, "preprocessing", default={})
    if version >= INDEX_SINCE and "corpus/index" not in f:
        raise f.error("corpus/index", "is missing")
    with f.checking("corpus"):
        texts: dict[str, Any] = {k: f.meta_str(meta, k)
                                 for k in ("texts_file", "texts_fingerprint") if k in meta}
        corpus = Corpus.from_arrays(_CorpusArrays(f), {"n_unknown_tokens": n_unknown,
                                                      "preprocessing": prep, **texts})
        if corpus.n_tokens == 0:
            raise ValueError("the corpus has no tokens")
    # the Dirichlet parameters the chain has learned, checked before the problem is bound
    # with them (the one holder of the current alpha and beta)
    learned = {k: f.array(f"state/{k}", dtype=np.float64, shape=shape)
               for k, shape in _prior_shapes(model).items()}
    with f.checking("state"):
        prior = model.check_prior(learned)
    with f.checking("corpus"):
        problem = model.bind(corpus, prior=prior)
    # the run's position and settings
    seed = f.meta_int(meta, "seed", low=0, high=2**64 - 1)
    block_tokens = f.meta_int(meta, "block_tokens", low=1, high=2**62)
    log_joint_every = f.meta_int(meta, "log_joint_every", low=0, high=2**62)
    n_sweeps = f.meta_int(meta, "n_sweeps", low=0, high=2**62)
    n_blocks = len(corpus.blocks(block_tokens)) - 1
    block = f.meta_int(meta, "block", low=0, high=n_blocks - 1)
    seconds = f.meta_number(meta, "seconds", low=0.0)
    # the chain: exact dtypes and shapes from the model, values by the model's checks
    with f.checking("params"):
        check.allocation(f"{name} with K = {model.K} on this corpus",
                         model.state_bytes(problem))
    state = model.allocate_state(problem)
    saved = model.saved_arrays(state)
    for k in model.saved_paths():
        ref = saved[k]
        ref[...] = f.array(f"state/{k}", dtype=ref.dtype, shape=ref.shape)
    with f.checking("state"):
        model.validate_state(state, problem)
        if block > 0:   # a sweep stopped part-way: what it started must be there
            model.topic_sampler.validate_mid_sweep(problem, state.sampler)
    if "eta_kept" in saved and saved["eta_kept"][0] > n_sweeps:
        raise f.error("state/eta_kept", f"counts {saved['eta_kept'][0]} kept samples "
                                        f"in {n_sweeps} sweeps")
    rng = f.array("rng", dtype=np.uint64, shape=(4,))
    if not rng.any():   # xoshiro's one fixed point: it would draw zeros forever
        raise f.error("rng", "is the all-zero generator state, which never leaves zero")
    info = f.array("info", dtype=np.float64, shape=(model.info_size,))
    if not (np.isfinite(info).all() and (info >= 0).all()):
        raise f.error("info", "must hold finite non-negative counts")
    history = History()
    with f.checking("history"):
        if version >= 2:
            _history_arrays(f, history, n_sweeps)
        else:
            history.extend(_history_json(f, meta, n_sweeps))
    with f.checking("settings_changes"):
        changes = _changes(f, meta, n_sweeps)
    labels = _topic_labels(f, meta, model.K)
    shapes = model.trace_arrays(state)
    traces: dict[str, list[np.ndarray]] = {}
    for key in f.names("trace/"):
        tname = key[len("trace/"):]
        ref = shapes[tname]
        a = f.array(key, dtype=ref.dtype, ndim=ref.ndim + 1)
        if a.shape[1:] != ref.shape or a.shape[0] > n_sweeps:
            raise f.error(key, f"has shape {a.shape}; expected (at most {n_sweeps}, "
                               f"*{ref.shape})")
        if not np.isfinite(a).all():
            raise f.error(key, "has non-finite values")
        traces[tname] = list(a)
    model.refresh_state(state, problem)
    return SavedSession(problem, seed, block_tokens, log_joint_every, n_sweeps, block, seconds,
                        state, rng, info, Record(history, traces, changes, labels))


def _prior_shapes(model: LDA) -> dict[str, tuple[int, ...]]:
    """The shapes of the learned Dirichlet parameters a checkpoint holds (``saved_prior``)."""
    return {f"hyper_{name}": (model.K,) if name == "alpha" else (1,) for name in model.learned}


def _history_arrays(f: CheckpointReader, out: History, n_sweeps: int) -> None:
    """The history's columns (format 2), each checked: sweeps in 1..n_sweeps, codes naming
    a metric and a proposal kind of the file's lists, values finite or NaN."""
    sweep = f.array("history/sweep", dtype=np.int64, ndim=1)
    n = sweep.size
    value = f.array("history/value", dtype=np.float64, shape=(n,))
    metric = f.array("history/metric", dtype=np.uint32, shape=(n,))
    proposal = f.array("history/proposal", dtype=np.uint32, shape=(n,))
    names = [str(x) for x in f.array("history/names", kinds="U", ndim=1)]
    kinds = [str(x) for x in f.array("history/kinds", kinds="U", ndim=1)]
    if len(names) > MAX_METRIC_NAMES or len(kinds) > MAX_METRIC_NAMES:
        raise ValueError(f"more than {MAX_METRIC_NAMES} metric or proposal names")
    if not all(names) or not all(kinds) or check.first_duplicate(names) is not None \
            or check.first_duplicate(kinds) is not None:
        raise ValueError("metric and proposal names must be distinct, non-empty names")
    if n and (sweep.min() < 1 or sweep.max() > n_sweeps):
        raise ValueError(f"sweeps must be in 1..{n_sweeps}")
    if n and (metric.max() >= len(names) or proposal.max() > len(kinds)):
        raise ValueError("a row's metric or proposal code names no metric or proposal")
    if np.isinf(value).any():
        raise ValueError("values must be finite (or NaN)")
    out.extend({"sweep": int(s), "metric": names[m], "value": float(v),
                "proposal": kinds[p - 1] if p else None}
               for s, m, v, p in zip(sweep, metric, value, proposal))


class _CorpusArrays:
    """The ``corpus/`` arrays of a checkpoint, each read with its expected dtype kind and
    number of dimensions, as ``Corpus.from_arrays`` asks for them."""

    KINDS = ARRAY_KINDS
    INDEX = ("index", "index_name")   # since format 3 (INDEX_SINCE)

    def __init__(self, reader: CheckpointReader) -> None:
        self.reader = reader

    def __contains__(self, key: str) -> bool:
        return key in self.reader

    def __getitem__(self, key: str) -> np.ndarray:
        kinds, ndim = self.KINDS.get(key[len("corpus/"):], ("", 0))
        # the reader's own array, which nothing else holds: the Corpus takes it uncopied
        return check.frozen(self.reader.array(key, kinds=kinds, ndim=ndim))


def _history_json(f: CheckpointReader, meta: dict[str, Any], n_sweeps: int) -> list[dict[str, Any]]:
    """The history rows of a format-1 file (a JSON list), each checked: a sweep in
    1..n_sweeps, a metric name, a number (or NaN) and a proposal kind or None."""
    rows = []
    for j, r in enumerate(f.meta_list(meta, "history", default=[])):
        field = f"history[{j}]"
        if not isinstance(r, dict) or set(r) != set(HISTORY_COLUMNS):
            raise f.error(field, f"must be an object with the keys {HISTORY_COLUMNS}")
        sweep, metric, value, proposal = (r[c] for c in HISTORY_COLUMNS)
        if isinstance(sweep, bool) or not isinstance(sweep, int) or not 1 <= sweep <= n_sweeps:
            raise f.error(field, f"sweep must be an integer in 1..{n_sweeps}, got {sweep!r}")
        if not isinstance(metric, str) or not metric:
            raise f.error(field, f"metric must be a name, got {metric!r}")
        if value is None:
            value = float("nan")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                math.isinf(float(value)):
            raise f.error(field, f"value must be a finite number or NaN, got {value!r:.50}")
        if proposal is not None and not isinstance(proposal, str):
            raise f.error(field, f"proposal must be a name or null, got {proposal!r}")
        rows.append({"metric": metric, "value": float(value), "proposal": proposal,
                     "sweep": sweep})
    return rows




def _topic_labels(f: CheckpointReader, meta: dict[str, Any], K: int) -> dict[int, str]:
    """The names the user gave topics (absent from files before them): topic numbers in
    0..K-1 written as decimal strings, distinct non-empty names of at most
    ``MAX_LABEL_LENGTH`` characters."""
    out: dict[int, str] = {}
    for key, name in f.meta_dict(meta, "topic_labels", default={}).items():
        field = f"topic_labels[{key!r}]"
        if not (isinstance(key, str) and key.isdecimal() and int(key) < K):
            raise f.error(field, f"must be keyed by a topic number in 0..{K - 1}")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_LABEL_LENGTH:
            raise f.error(field, f"must be a non-empty name of at most {MAX_LABEL_LENGTH} "
                                 f"characters")
        if name in out.values():
            raise f.error(field, f"names a second topic {name!r}")
        out[int(key)] = name
    return out


def _changes(f: CheckpointReader, meta: dict[str, Any], n_sweeps: int) -> list[dict[str, Any]]:
    """The saved settings changes (format 2), each checked like a history row."""
    out = []
    for j, c in enumerate(f.meta_list(meta, "settings_changes", default=[])):
        field = f"settings_changes[{j}]"
        if not isinstance(c, dict) or set(c) != set(CHANGE_COLUMNS):
            raise f.error(field, f"must be an object with the keys {CHANGE_COLUMNS}")
        if isinstance(c["sweep"], bool) or not isinstance(c["sweep"], int) \
                or not 0 <= c["sweep"] <= n_sweeps + 1:
            raise f.error(field, f"sweep must be an integer in 0..{n_sweeps + 1}")
        if not isinstance(c["parameter"], str):
            raise f.error(field, "parameter must be a name")
        # sweep 0: only sampler="auto"'s choice, made before the chain began
        if c["sweep"] == 0 and (c["parameter"] != "sampler" or c["old"] != "auto"
                                or not isinstance(c["new"], str) or j != 0):
            raise f.error(field, "only the choice of sampler='auto' is made at sweep 0 (first)")
        out.append(dict(c))
    return out
