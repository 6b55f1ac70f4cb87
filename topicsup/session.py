"""Session: a model's state on a corpus, sampled incrementally, with a tidy history.

A sweep is split into blocks of documents. Between blocks the session checks for a stop
request (``request_stop()`` from any thread), so a long sweep can be paused within a fraction
of a second. A stopped sweep is not lost or redone: the next ``sweep``/``run`` continues from
the next block with the same random stream, so interrupted and uninterrupted chains are the
same chain, bit for bit. The kernels release the GIL, so sampling in a worker thread leaves a
notebook responsive; a lock guards the state so readers see it between blocks only.

One run at a time: a session is owned by the thread whose ``run`` is in progress, a second
concurrent ``run`` is refused (``SessionBusyError``) and ``request_stop`` reaches the run in
progress, from any thread (one made while no run is in progress is dropped). In the main
thread, Ctrl-C (Jupyter's interrupt button) becomes a stop request: the run ends after the
current block and then raises ``KeyboardInterrupt``, with the session consistent and nothing
lost.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import signal
import threading
import time
from array import array
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd

from . import checkpoint, metrics, summaries
from . import validation as check
from .backends import Backend, Threads, resolve as resolve_backend
from ._version import __version__
from .corpus import Corpus, is_pandas, make_labels
from .inspector import TokenInspector
from .kernels import info as info_layout
from .kernels.rng import seed_state
from .tasks import check_responses
from .models import FOLD_IN_BURN, FOLD_IN_KEEP, MAX_FOLD_IN_SWEEPS, Model, model_from_params
from .views import STEP_SECONDS

FORMAT = "topicsup-session"
# 2: checksum, settings changes, history as arrays; 3: the corpus's pandas index
# (corpus/index, corpus/index_name). Files of 1 and 2 still load (with the default index).
FORMAT_VERSION = 3
INDEX_SINCE = 3

HISTORY_COLUMNS = ["sweep", "metric", "value", "proposal"]
CHANGE_COLUMNS = ["sweep", "parameter", "old", "new"]


def is_timing(metric: pd.Series) -> pd.Series:
    """Which history rows are wall-clock measurements (``seconds``, the time split
    ``seconds_<step>``, ``tokens_per_second``): the rows that differ between two runs of the
    same chain."""
    metric = metric.astype(str)
    return (metric == "seconds") | metric.str.startswith(STEP_SECONDS) \
        | (metric == "tokens_per_second")


def _plain(value: Any) -> Any:
    """A setting's value as JSON stores it (tuples as lists, numpy scalars as Python ones)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class _History:
    """The history's rows, stored by column: a sweep, a metric and a proposal code and a
    value take 24 bytes, not the ~650 of a dict per row, so a long run's memory stays flat
    (``tests/test_soak.py``); checkpoints store the same columns as arrays."""

    def __init__(self) -> None:
        self.sweep = array("q")
        self.value = array("d")
        self.metric = array("I")
        self.proposal = array("I")          # 0: none
        self.names: list[str] = []          # metric names by code
        self.kinds: list[str | None] = [None]
        self._code: dict[str, int] = {}
        self._kind: dict[str | None, int] = {None: 0}

    def __len__(self) -> int:
        return len(self.sweep)

    def extend(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            m, p = r["metric"], r["proposal"]
            if m not in self._code:
                self._code[m] = len(self.names)
                self.names.append(m)
            if p not in self._kind:
                self._kind[p] = len(self.kinds)
                self.kinds.append(p)
            self.sweep.append(int(r["sweep"]))
            self.value.append(float(r["value"]))
            self.metric.append(self._code[m])
            self.proposal.append(self._kind[p])

    def rows(self, start: int = 0) -> list[dict[str, Any]]:
        """The rows from ``start`` as dicts (``sweep``, ``metric``, ``value``, ``proposal``)."""
        return [{"sweep": self.sweep[i], "metric": self.names[self.metric[i]],
                 "value": self.value[i], "proposal": self.kinds[self.proposal[i]]}
                for i in range(start, len(self))]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The columns as arrays for a checkpoint (``history/...``)."""
        return {"history/sweep": np.array(self.sweep, dtype=np.int64),
                "history/value": np.array(self.value, dtype=np.float64),
                "history/metric": np.array(self.metric, dtype=np.uint32),
                "history/proposal": np.array(self.proposal, dtype=np.uint32),
                "history/names": np.asarray(self.names, dtype=str).reshape(-1),
                "history/kinds": np.asarray(self.kinds[1:], dtype=str).reshape(-1)}

    def frame(self) -> pd.DataFrame:
        metric = np.asarray(self.names, dtype=object)[np.frombuffer(self.metric, np.uint32)] \
            if len(self) else np.zeros(0, object)
        kinds = np.asarray(self.kinds, dtype=object)
        proposal = kinds[np.frombuffer(self.proposal, np.uint32)] if len(self) \
            else np.zeros(0, object)
        return pd.DataFrame({"sweep": np.array(self.sweep, dtype=np.int64),
                             "metric": metric, "value": np.array(self.value, dtype=np.float64),
                             "proposal": proposal}, columns=HISTORY_COLUMNS)


class _Interrupts:
    """SIGINT as a stop request for one run (``Session._interrupts_stop``)."""

    def __init__(self, session: "Session") -> None:
        self.session = session
        self.hit = False
        self.active = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.hit:               # a second Ctrl-C: the user wants out now
            raise KeyboardInterrupt
        self.hit = True
        self.session._stop.set()

    def install(self) -> None:
        self.active = True
        signal.signal(signal.SIGINT, self._handler)

    def restore(self) -> None:
        if self.active:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self.active = False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Python's own SIGINT behaviour while user code (a callback) runs."""
        was = self.active
        self.restore()
        try:
            yield
        finally:
            if was:
                self.install()


class SessionBusyError(RuntimeError):
    """``Session.run`` called while another run of the same session is in progress."""


class Session:
    """Run a model's sampler on a corpus, a few sweeps at a time.

    Parameters
    ----------
    model : topicsup model (e.g. ``topicsup.models.LDA``)
    corpus : Corpus
    seed : int
        Seed of the chain; the same seed gives the same chain bit for bit.
    block_tokens : int
        Approximate number of tokens between two checks for a stop request.
    log_joint_every : int
        Evaluate the log joint every this many sweeps (0 never).
    backend : None, "threads", "dask" or a backend
        Where the partially collapsed sampler's documents' step runs
        (``topicsup.backends``): this process's threads (default), or a Dask cluster
        (``"dask"`` for the current client, or ``DaskBackend(client, partitions=...)``). The
        same seed gives the same chain on every backend. Changed later with ``use_backend``.

    Examples
    --------
    >>> s = Session(LDA(K=10), corpus, seed=1)       # doctest: +SKIP
    >>> s.run(100, progress=True)                    # doctest: +SKIP
    >>> s.topics(8)                                  # doctest: +SKIP
    """

    def __init__(self, model: Any, corpus: Corpus, seed: int = 0, *,
                 block_tokens: int = 65536, log_joint_every: int = 1,
                 backend: Any = None) -> None:
        if isinstance(model, type):
            raise TypeError(f"model must be a model instance such as LDA(K=20), got the class "
                            f"{model.__name__}")
        if not isinstance(model, Model):
            raise TypeError(f"model must be a topicsup model such as topicsup.models.LDA, got "
                            f"{type(model).__name__}")
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
        model.check_corpus(corpus)
        if corpus.n_tokens == 0:
            raise ValueError("corpus has no tokens: there is nothing to sample (every document "
                             "is empty)")
        self.block_tokens = check.integer("block_tokens", block_tokens, low=1, high=2**62)
        self.log_joint_every = check.integer("log_joint_every", log_joint_every, low=0,
                                             high=2**62)
        self.rng = seed_state(seed)  # validates seed
        self.seed = int(seed)
        check.allocation(f"{type(model).__name__} with K = {model.K} on this corpus",
                         model.state_bytes(corpus), hint="use fewer topics K")
        self.model = model = model.copy()   # its own: a user's set_params cannot reach it
        self.corpus = corpus
        self.state = model.init_state(corpus, self.rng)
        self.n_sweeps = 0          # completed sweeps
        self._block = 0            # next block of the current sweep
        self._info = np.zeros(model.info_size, dtype=np.float64)
        self._seconds = 0.0        # kernel time spent in the current sweep so far
        self._records = _History()
        self._traces: dict[str, list[np.ndarray]] = {}
        self._changes: list[dict[str, Any]] = []
        self._init_sync()
        self._blocks = self._make_blocks()
        self._backend: Backend = Threads()
        self.use_backend(backend)

    def _init_sync(self) -> None:
        """The locks and flags of a live session (recreated after unpickling or loading)."""
        self._lock = threading.RLock()    # the state: sampling blocks, readers between them
        self._stop = threading.Event()
        # re-entrant: a SIGINT handler of the user's that calls request_stop may run in the
        # main thread while it holds this lock taking or giving up ownership
        self._owner_lock = threading.RLock()
        self._owner: threading.Thread | None = None   # the thread whose run is in progress

    def __getstate__(self) -> dict[str, Any]:
        # locks and events cannot be pickled: a copy starts without a run in progress
        with self._lock:
            state = self.__dict__.copy()
        backend = state.pop("_backend", None)
        for k in ("_lock", "_stop", "_owner_lock", "_owner"):
            state.pop(k, None)
        # tables built elsewhere (a Dask backend's workers) are not in this state
        state["_tables_elsewhere"] = backend is not None and not backend.tables_here
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        elsewhere = state.pop("_tables_elsewhere", False)
        self.__dict__.update(state)
        self._init_sync()
        self._backend = Threads()   # a copy runs on its own process's threads
        if elsewhere:
            self.model.topic_sampler.refresh(self.model, self.state.sampler)

    # ------------------------------------------------------------------ backend
    @property
    def backend(self) -> Backend:
        """Where the documents' step runs (``topicsup.backends``; ``use_backend``)."""
        return self._backend

    def use_backend(self, backend: Any) -> "Session":
        """Run the next blocks on ``backend`` (None or ``"threads"``, ``"dask"``, or a
        backend object); waits for a running block to end. The chain goes on unchanged,
        even part-way through a sweep. Returns the session."""
        new = resolve_backend(backend)
        new.check_model(self.model)
        with self._lock:
            old = self._backend
            if new is old:
                return self
            new.attach(self)
            old.detach()
            self._backend = new
            if new.tables_here and not old.tables_here:
                # the word tables were built where the documents were: build them here
                self.model.topic_sampler.refresh(self.model, self.state.sampler)
        return self

    def close(self) -> None:
        """Release what the backend holds elsewhere (a Dask backend's placed documents; a
        session dropped without it releases them when it is garbage collected); the session
        goes on with this process's threads. ``with Session(...) as s:`` closes at the end."""
        self.use_backend(None)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ blocks and stopping
    def _make_blocks(self) -> np.ndarray:
        """Document boundaries so each block holds about ``block_tokens`` tokens."""
        ptr = self.corpus.doc_ptr
        cuts = np.searchsorted(ptr, np.arange(self.block_tokens, ptr[-1], self.block_tokens))
        bounds = np.unique(np.concatenate([[0], cuts, [self.corpus.n_docs]]))
        return bounds.astype(np.int64)

    @property
    def n_blocks(self) -> int:
        return len(self._blocks) - 1

    @property
    def in_sweep(self) -> bool:
        """True when a sweep was stopped part-way; the next call finishes it first."""
        return self._block > 0

    @property
    def running(self) -> bool:
        """True while a ``run`` (in any thread) is in progress."""
        return self._owner is not None

    def request_stop(self) -> None:
        """Ask the ``sweep``/``run`` in progress (in any thread) to return after the current
        block (with a Dask backend, after the current sweep: it hands the workers whole
        sweeps).

        The request goes to the run that owns the session when it is made. A run owns the
        session from the moment it is accepted (its arguments valid and no other run in
        progress; ``running`` turns True before its first block) until it returns. A stop
        requested while a run owns the session, from another thread once ``running`` is True
        or from the run's callback, always reaches that run: the block in progress finishes
        and the run returns before the next one (a request that comes after its last block
        ends with it). A stop requested while no run owns the session (before ``run`` is
        called, or after it has returned) is dropped: it does not stop a later run, which
        runs all its sweeps. So to stop a run started in another thread, request the stop
        once ``running`` is True, or from the run's callback.
        """
        # under the owner lock, so that a run cannot take or give up ownership halfway
        # through: a stop lands wholly before a run (dropped) or wholly inside it (kept)
        with self._owner_lock:
            if self._owner is not None:
                self._stop.set()

    pause = request_stop

    def set_params(self, **params: Any) -> None:
        """Change sampler settings between sweeps (e.g. ``mh_steps``, ``composition``,
        ``proposal_weights``), only those in ``model.live_params``: they change how the chain
        moves, not its stationary distribution. Takes effect at the next block; waits for a
        running block to end. The checkpoint records the current settings."""
        allowed = self.model.live_params
        bad = sorted(set(params) - set(allowed))
        if bad:
            raise ValueError(f"cannot change {bad} during a chain; {type(self.model).__name__} "
                             f"allows {list(allowed)} (the rest change the posterior or the "
                             f"state's shape: start a new Session)")
        new = self.model.replace(**params)   # validates the values
        with self._lock:
            old = self.model
            for name in sorted(params):
                before, after = getattr(old, name), getattr(new, name)
                if before != after:   # the first sweep that runs (at least partly) with it
                    self._changes.append({"sweep": self.n_sweeps + 1, "parameter": name,
                                          "old": _plain(before), "new": _plain(after)})
            self.model = new

    @property
    def settings_changes(self) -> pd.DataFrame:
        """Every change of a live setting (``set_params``): the first ``sweep`` run with the new
        value (at least partly: a change made while a sweep was paused applies to its remaining
        blocks), the ``parameter``, and its ``old`` and ``new`` values as text. The views mark
        them on the charts (``topicsup.views.mark_settings_changes``)."""
        with self._lock:
            rows = [{**c, "old": str(c["old"]), "new": str(c["new"])} for c in self._changes]
        df = pd.DataFrame(rows, columns=CHANGE_COLUMNS)
        df["sweep"] = df["sweep"].astype(np.int64)
        return df

    # ------------------------------------------------------------------ sampling
    def _run_block(self) -> None:
        """The next block, or with a backend that takes ``whole_sweeps`` the rest of the
        sweep. If it raises an error (a lost worker: nothing of the block is applied), or an
        interrupt before anything was applied, the random stream is put back where the block
        began, so running it again gives the chain that never failed."""
        end = self.n_blocks if self._backend.whole_sweeps else self._block + 1
        d0, d1 = self._blocks[self._block], self._blocks[end]
        rng = self.rng.copy()
        t0 = time.perf_counter()
        try:
            self.model.sweep_block(self.state, self.corpus, self.rng, d0, d1, self._info,
                                   self._backend)
        except BaseException as e:
            # an error, or an interrupt the backend caught before applying anything
            if isinstance(e, Exception) or getattr(e, "topicsup_nothing_applied", False):
                self.rng[...] = rng
            raise
        self._seconds += time.perf_counter() - t0
        self._block = end

    def _finish_sweep(self) -> None:
        """The once-per-sweep work (``end_sweep``: the weights' and augmentation's draws),
        then the sweep's history rows and traces. Once ``end_sweep`` has drawn, the sweep
        counts whatever follows: if the log joint or a trace then raises, the sweep is still
        committed (without those rows) before the error propagates, so a retry never draws
        the sweep's end twice. (If ``end_sweep`` itself raises, nothing is committed.)"""
        tokens = int(self._info[info_layout.TOKENS])
        sweep = self.n_sweeps + 1
        t0 = time.perf_counter()
        end_rows = self.model.end_sweep(self.state, self.corpus, self.rng, sweep)
        self._seconds += time.perf_counter() - t0
        # the time split: what the model's end of sweep did not charge to its own steps
        # (weights, augmentation, ...) was topic sampling (the blocks, the tables' refresh)
        steps = sum(r["value"] for r in end_rows if r["metric"].startswith(STEP_SECONDS))
        rows = [{"metric": "seconds", "value": self._seconds, "proposal": None},
                {"metric": STEP_SECONDS + "topics", "value": max(self._seconds - steps, 0.0),
                 "proposal": None},
                {"metric": "tokens_per_second",
                 "value": tokens / self._seconds if self._seconds > 0 else float("nan"),
                 "proposal": None}]
        rows += self.model.sweep_metrics(self._info) + end_rows
        traces: dict[str, np.ndarray] = {}
        try:
            if self.log_joint_every and sweep % self.log_joint_every == 0:
                lj = self.model.log_joint(self.state, self.corpus)
                rows += [{"metric": "log_joint", "value": lj, "proposal": None},
                         {"metric": "log_joint_per_token", "value": lj / self.corpus.n_tokens,
                          "proposal": None}]
            traces = self.model.trace_arrays(self.state)
        finally:
            for r in rows:
                r["sweep"] = sweep
            self.n_sweeps = sweep
            self._block = 0
            self._info[:] = 0
            self._seconds = 0.0
            self._records.extend(rows)
            for name, a in traces.items():
                self._traces.setdefault(name, []).append(a)

    def sweep(self, n: int = 1) -> int:
        """Run ``n`` sweeps (finishing a stopped one first); return how many completed.

        Fewer than ``n`` complete only if ``request_stop`` was called meanwhile, or once the
        model's algorithm has ended (``model.finished``).
        """
        return self.run(n)

    def run(self, n: int, callback: Callable[["Session"], Any] | None = None, every: int = 1,
            progress: bool = False) -> int:
        """Run ``n`` sweeps, calling ``callback(session)`` every ``every`` sweeps.

        Parameters
        ----------
        n : int
            Number of sweeps.
        callback : callable, optional
            Called with the session after every ``every``-th completed sweep, outside the lock's
            hot path; returning ``False`` stops the run.
        every : int
            Sweeps between callbacks.
        progress : bool
            Show a tqdm progress bar.

        Returns
        -------
        int
            Number of sweeps completed by this call: fewer than ``n`` after a stop request,
            or once the model's algorithm has ended (``model.finished``: Monte Carlo
            MedLDA's alternation has converged), after which runs complete none.
        """
        n = check.integer("n", n, low=0)
        every = check.integer("every", every, low=1)
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        progress = check.flag("progress", progress)
        bar = None
        done = 0
        with self._owned(), self._interrupts_stop() as interrupts:
            if progress:
                from tqdm.auto import tqdm
                bar = tqdm(total=n, unit="sweep", desc=type(self.model).__name__)
            try:
                while done < n and not self.model.finished(self.state):
                    with self._lock:
                        while self._block < self.n_blocks and not self._stop.is_set():
                            self._run_block()
                        if self._block < self.n_blocks:
                            break  # stop requested part-way: keep the position, lose nothing
                        self._finish_sweep()
                    done += 1
                    if bar is not None:
                        bar.update(1)
                        bar.set_postfix(self._postfix(), refresh=False)
                    if callback is not None and done % every == 0:
                        with interrupts.paused():   # the user's code: Ctrl-C acts at once
                            go_on = callback(self)
                        if go_on is False:
                            break
                    if self._stop.is_set():
                        break
            finally:
                if bar is not None:
                    bar.close()
        if interrupts.hit:
            raise KeyboardInterrupt(f"Session.run interrupted after {done} sweep(s) and "
                                    f"{self._block} block(s) of the next; nothing is lost: the "
                                    f"next run continues the same chain")
        return done

    @contextlib.contextmanager
    def _owned(self) -> Iterator[None]:
        """Make the calling thread the session's one runner for the duration."""
        me = threading.current_thread()
        with self._owner_lock:
            if self._owner is not None:
                where = "this thread (a callback may not start another run)" \
                    if self._owner is me else f"thread {self._owner.name!r}"
                raise SessionBusyError(f"this Session is already running in {where}; one run "
                                       f"at a time: call request_stop() and wait for it to "
                                       f"return, or use another Session")
            # cleared before ownership shows (running): a stop requested by a thread that
            # sees this run is then never wiped out by the run's own start
            self._stop.clear()
            self._owner = me
        try:
            yield
        finally:
            with self._owner_lock:
                self._owner = None
                self._stop.clear()   # a stop that came after the last block ends with its run

    @contextlib.contextmanager
    def _interrupts_stop(self) -> Iterator["_Interrupts"]:
        """In the main thread, turn SIGINT (Ctrl-C, Jupyter's interrupt) into a stop request
        while the session samples, so the kernels are never left half-way through a block or
        the end of a sweep; a second SIGINT before the run returns interrupts at once (the
        way out of a block that takes too long: the chain may then redo that block)."""
        interrupts = _Interrupts(self)
        if threading.current_thread() is not threading.main_thread() or \
                signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            yield interrupts
            return
        interrupts.install()
        try:
            yield interrupts
        finally:
            interrupts.restore()

    def _postfix(self) -> dict[str, str]:
        # the last sweep's rows, however many its model writes (proposals, steps, tasks)
        start = len(self._records)
        while start > 0 and self._records.sweep[start - 1] == self.n_sweeps:
            start -= 1
        last = {r["metric"]: r["value"] for r in self._records.rows(start)}
        out = {}
        if "log_joint_per_token" in last:
            out["ll/token"] = f"{last['log_joint_per_token']:.4f}"
        if "tokens_per_second" in last:
            out["Mtok/s"] = f"{last['tokens_per_second'] / 1e6:.2f}"
        return out

    # ------------------------------------------------------------------ results
    @property
    def history(self) -> pd.DataFrame:
        """One tidy row per (sweep, metric[, proposal]): columns sweep, metric, value, proposal."""
        with self._lock:
            return self._records.frame()

    @property
    def target(self) -> str:
        """What the model's tasks are: ``"class"`` (classifiers) or ``"response"``
        (regression), for the views' titles (``Task.target``); ``""`` unsupervised."""
        return self.model.task(self.corpus).target if self.model.supervised else ""

    @property
    def views(self) -> tuple[str, ...]:
        """The views that apply to this session's model (``loglik``, ``acceptance``,
        ``draws``, ``alternation``, ``score``, ``coefficients``, ``throughput``, ``time``): one
        rule, the model's
        (``LDA.views``), for the dashboard and the report."""
        return self.model.views

    def metric(self, name: str, proposal: str | None = None) -> pd.Series:
        """One metric as a Series indexed by sweep: a plain metric, or with ``proposal`` the
        rows of one proposal kind (e.g. ``metric("acceptance_rate", proposal="doc")``)."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a metric name (str), got {type(name).__name__}")
        h = self.history
        rows = h[h["metric"] == name]
        if rows.empty:
            known = sorted(set(h["metric"]))
            if self.n_sweeps == 0:
                raise ValueError(f"no metric {name!r} yet: run a sweep first")
            raise ValueError(f"no metric named {name!r} in this session's history; known: "
                             f"{known}")
        kinds = sorted(p for p in set(rows["proposal"]) if isinstance(p, str))
        if proposal is None:
            if rows["proposal"].isna().all():
                return rows.set_index("sweep")["value"].rename(name)
            raise ValueError(f"{name!r} has one row per proposal kind: pass proposal= one of "
                             f"{kinds}")
        if proposal not in kinds:
            raise ValueError(f"proposal must be one of {kinds} for {name!r}, got {proposal!r}")
        rows = rows[rows["proposal"] == proposal]
        return rows.set_index("sweep")["value"].rename(f"{name}[{proposal}]")

    def trace(self, name: str = "eta") -> np.ndarray:
        """The values of a traced array after every sweep, stacked: (n_sweeps, ...).

        Supervised models trace the weights ``"eta"`` (tasks x features, float32).
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a trace name (str), got {type(name).__name__}")
        with self._lock:
            if not self._traces.get(name):
                known = sorted(self._traces) or "none"
                raise ValueError(f"no trace named {name!r} in this session (traced: {known}; "
                                 f"run a sweep first)")
            return np.stack(self._traces[name])

    def _feature_names(self) -> list[str]:
        """Topics labelled by their 3 top words, then the intercept and the covariates."""
        words = self.topics(3)["top_words"]
        return ([f"{k}: {w}" for k, w in zip(words.index, words)]
                + self.model.covariate_names(self.corpus))

    def _check_supervised(self) -> None:
        if not self.model.supervised:
            raise ValueError(f"{type(self.model).__name__} is unsupervised: it has no "
                             f"classifier weights and makes no predictions; use a supervised "
                             f"model such as LightMedLDA on a labelled corpus")

    def weights(self, scale: str = "identified") -> pd.DataFrame:
        """Tidy weight trace: one row per (sweep, task, feature) with the sampled eta.

        Columns ``sweep``, ``task`` (class name), ``feature`` (topic with its top words, or
        covariate), ``kind`` (``"topic"``, ``"intercept"`` or ``"covariate"``), ``index``
        (column of eta) and ``value``, on the ``scale`` of ``coefficients`` (identified by
        default: with an intercept the raw weights drift along the direction only the prior
        pins, which a trace would show as a wandering level).
        """
        self._check_supervised()
        scale = summaries.weight_scale(scale)
        with self._lock:
            samples = list(self._traces.get("eta", []))
            T, M = self.state.supervision.weights.eta.shape
        S = len(samples)
        eta = np.stack(samples) if S else np.zeros((0, T, M), np.float32)
        if scale == "identified":
            eta = summaries.identified(eta, self.model.feature_kinds(self.corpus))
        tasks = self.model.task_names(self.corpus)
        return pd.DataFrame({
            "sweep": np.repeat(np.arange(self.n_sweeps - S + 1, self.n_sweeps + 1), T * M),
            "task": np.tile(np.repeat(tasks, M), S),
            "feature": np.tile(self._feature_names(), S * T),
            "kind": np.tile(self.model.feature_kinds(self.corpus), S * T),
            "index": np.tile(np.arange(M), S * T),
            "value": eta.reshape(-1).astype(np.float64)})

    def to_arviz(self, burn: int = 0) -> Any:
        """This chain for ArviZ (one chain) of sweeps ``burn + 1 .. n_sweeps``: an
        ``InferenceData`` with ArviZ 0.x, an xarray ``DataTree`` with ArviZ 1.x (Python >=
        3.12), alike in groups, variables, dims, coords and attrs. ``posterior`` with the
        weights ``eta`` (dims ``chain``, ``draw``, ``task``, ``feature``; a supervised
        model), ``sample_stats`` with ``lp`` (the log joint),
        ``acceptance_rate`` (when the sampler makes Metropolis-Hastings proposals) and
        ``topic_change_rate``; the draw coordinate is the sweep. Several chains:
        ``topicsup.chains.Chains.to_arviz``."""
        from .chains import to_inference_data, traced_weights
        burn = check.integer("burn", burn, low=0)

        def weights(b: int, align: bool) -> np.ndarray:
            return traced_weights(self, b, self.n_sweeps)[None]

        with self._lock:
            return to_inference_data([self], burn, False,
                                     weights if self.model.supervised else None)

    def coefficients(self, interval: float = 0.9, scale: str = "identified"
                     ) -> pd.DataFrame:
        """Posterior summary of the classifier weights: one row per (task, feature).

        Parameters
        ----------
        interval : float
            Probability of the equal-tailed credible interval.
        scale : {"identified", "raw"}
            ``"identified"`` (default): with an intercept, each class's topic weights centred
            within the class (the topic's pull on the score against the average topic's) and
            the intercept plus their mean, the quantities the data determine; without an
            intercept the weights as drawn. ``"raw"``: the weights as drawn, whose level with
            an intercept only the prior sets (``topicsup.summaries``).

        Returns
        -------
        DataFrame
            ``task`` (class name), ``feature`` (topic with its top words, or covariate),
            ``kind`` (``"topic"``, ``"intercept"`` or ``"covariate"``), ``index`` (column of
            eta), ``mean``, ``lower`` / ``upper`` and ``width``, all of the same draws: those
            kept after burn-in (all while none is kept; the current weights before any sweep),
            ``n_samples`` (their number) and ``scale``. Prediction uses the
            running average of the kept weights (``model.coefficients(state)``), the same
            mean up to the float32 rounding of the trace.
        """
        self._check_supervised()
        scale = summaries.weight_scale(scale)
        with self._lock:
            current = self.state.supervision.weights.eta.copy()
            samples = list(self._traces.get("eta", []))
        first = self.n_sweeps - len(samples) + 1   # the sweep samples[0] was drawn in
        # the samples prediction averages: after burn_in, and from the last sweep of an LDA
        # initialisation on (before it the weights are not drawn yet: zeros)
        first_kept = max(self.model.burn_in + 1, self.model.lda_init_sweeps)
        kept = samples[max(first_kept - first, 0):] or samples
        draws = np.stack(kept) if kept else current[None]
        return summaries.coefficient_table(
            draws, self.model.task_names(self.corpus), self._feature_names(),
            self.model.feature_kinds(self.corpus), interval, scale, n_samples=len(kept))

    def signal_topics(self, n: int = 3, n_words: int = 10, interval: float = 0.9,
                      scale: str = "identified") -> pd.DataFrame:
        """Each class's ``n`` topics with the largest positive mean weights: the topics that
        most raise its score, with their intervals and top words. On the identified scale
        (``scale``, as ``coefficients``) a weight says how much more the topic raises the
        class's score than the average topic does.

        Returns
        -------
        DataFrame
            One row per (class, rank): ``task``, ``rank`` (1 = strongest), ``topic``,
            ``mean``, ``lower``, ``upper`` (the ``interval`` credible interval, of the same
            draws as the mean), ``sign_certain`` (the interval excludes 0), ``share`` (the
            topic's share of the corpus's tokens) and ``top_words``.
        """
        n = check.integer("n", n, low=1)
        coefs = self.coefficients(interval, scale)
        topics = self.topics(n_words)
        coefs = coefs[(coefs["kind"] == "topic") & (coefs["mean"] > 0)]
        best = (coefs.sort_values("mean", ascending=False, kind="stable")
                .groupby("task", sort=False).head(n))
        order = {t: i for i, t in enumerate(self.model.task_names(self.corpus))}
        best = best.sort_values(["task", "mean"], key=lambda c: c.map(order) if c.name == "task"
                                else -c, kind="stable")
        return pd.DataFrame({
            "task": best["task"].to_numpy(),
            "rank": best.groupby("task", sort=False).cumcount().to_numpy() + 1,
            "topic": best["index"].to_numpy(), "mean": best["mean"].to_numpy(),
            "lower": best["lower"].to_numpy(), "upper": best["upper"].to_numpy(),
            "sign_certain": (best["lower"] > 0).to_numpy(),
            "share": topics["share"].to_numpy()[best["index"].to_numpy()],
            "top_words": topics["top_words"].to_numpy()[best["index"].to_numpy()]})

    def shrinkage(self, top: int = 3, interval: float = 0.9, scale: str = "identified"
                  ) -> pd.DataFrame:
        """How concentrated each class's topic weights are: the horseshoe's promise, in
        numbers (``metrics.top_weight_share``).

        Returns
        -------
        DataFrame
            One row per task (index ``task``): ``top_share``, the share of the class's
            topic-weight mass sum_k |mean eta_k| on its ``top`` largest; ``n_certain``, the
            topics whose ``interval`` credible interval excludes 0; ``n_topics``. The weights
            on the ``scale`` of ``coefficients`` (identified by default: with an
            intercept, relative to the class's average topic).
        """
        coefs = self.coefficients(interval, scale)
        out = metrics.top_weight_share(coefs, top).to_frame("top_share")
        topic = coefs[coefs["kind"] == "topic"]
        certain = (topic["lower"] > 0) | (topic["upper"] < 0)
        out["n_certain"] = certain.groupby(topic["task"], sort=False).sum()
        out["n_topics"] = self.model.K
        return out

    def inspector(self, doc: int = 0, seed: int = 0) -> TokenInspector:
        """A ``topicsup.inspector.TokenInspector`` on document ``doc``: resample its tokens one
        at a time, as the sampler would, with every proposal, acceptance probability and
        decision recorded (teaching mode)."""
        return TokenInspector(self, doc, seed=seed)

    def decision_function(self, docs: Any, n_burn: int = FOLD_IN_BURN,
                          n_keep: int = FOLD_IN_KEEP, seed: int = 0
                          ) -> np.ndarray | pd.DataFrame:
        """Scores (n_docs, T) of held-out documents: fold-in with the current topics, then
        the weights averaged over the kept samples (MATH.md sec. 5).

        Parameters
        ----------
        docs : Corpus, texts, token lists, a count matrix or a DataFrame of counts on this
            corpus's vocabulary, or a pandas Series of texts or token lists
        n_burn, n_keep : int
            Fold-in sweeps discarded, then averaged (50 and 50 by default:
            ``topicsup.models.FOLD_IN_BURN``, chosen by measurement).
        seed : int
            Seed of the fold-in's own random streams (the chain's is not touched); each
            document draws from a stream of its own, so its scores do not depend on the other
            documents passed with it.

        Returns
        -------
        ndarray (n_docs, T), or DataFrame
            For documents in a pandas Series or DataFrame, a DataFrame with their index and a
            column per task (named by ``task``: the positive class for binary labels, else
            the classes, ``"response"`` for real ones); an array otherwise.
        """
        scores, corpus = self._scores(docs, n_burn, n_keep, seed)
        if not is_pandas(docs):
            return scores
        return pd.DataFrame(scores, index=corpus.index,
                            columns=pd.Index(self.model.task_names(self.corpus), name="task"))

    def _scores(self, docs: Any, n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                seed: int = 0) -> tuple[np.ndarray, Corpus]:
        """``decision_function``'s scores as an array, and the held-out corpus (its index)."""
        self._check_supervised()
        n_burn = check.integer("n_burn", n_burn, low=0, high=MAX_FOLD_IN_SWEEPS)
        n_keep = check.integer("n_keep", n_keep, low=1, high=MAX_FOLD_IN_SWEEPS)
        corpus = self.corpus.heldout(docs)
        rng = seed_state(seed, stream=7)
        with self._lock:
            X = self.model.fold_in(self.state, corpus, rng, n_burn, n_keep)
            return self.model.decision_scores(self.state, X), corpus

    def perplexity(self, docs: Any, n_burn: int = FOLD_IN_BURN, n_keep: int = FOLD_IN_KEEP,
                   seed: int = 0) -> float:
        """Held-out perplexity by document completion, exp(-log likelihood per scored
        token): each document's first half folded in with the current topics, its second
        half scored (``LDA.completion_log_likelihood``). The number topic models are
        compared by; the same definition for every sampler and model (lower is better).

        Parameters
        ----------
        docs : Corpus, texts, token lists, a count matrix or a DataFrame of counts on this
            corpus's vocabulary (words it does not know are dropped)
        n_burn, n_keep : int
            Fold-in sweeps of the first halves, as in ``decision_function``.
        seed : int
            Seed of the fold-in's own streams (the chain's is not touched).
        """
        n_burn = check.integer("n_burn", n_burn, low=0, high=MAX_FOLD_IN_SWEEPS)
        n_keep = check.integer("n_keep", n_keep, low=1, high=MAX_FOLD_IN_SWEEPS)
        corpus = self.corpus.heldout(docs)
        if (corpus.doc_lengths >= 2).sum() == 0:
            raise ValueError("docs: no document has 2 known words, so there is no second half "
                             "to score")
        with self._lock:
            ll, n = self.model.completion_log_likelihood(self.state, corpus,
                                                         seed_state(seed, stream=8), n_burn,
                                                         n_keep)
        return math.exp(-ll / n)

    def predict(self, docs: Any, **fold_in: Any) -> np.ndarray | pd.Series | pd.DataFrame:
        """Class names of held-out documents (sign rule for binary labels, argmax for
        multi-class), or a (n_docs, C) 0/1 matrix for multi-label; ``fold_in`` as in
        ``decision_function``.

        Documents in a pandas Series or DataFrame get a Series named ``"prediction"`` (a
        DataFrame with a column per class for multi-label) with their index, so it joins
        back onto their frame; other documents get an array, as before.
        """
        scores, corpus = self._scores(docs, **fold_in)
        lab = self.corpus.labels
        pred = self.model.task(self.corpus).predict(scores, lab.classes)
        if not is_pandas(docs):
            return pred
        if pred.ndim == 2:
            return pd.DataFrame(pred, index=corpus.index,
                                columns=pd.Index(lab.classes, name="class"))
        return pd.Series(pred, index=corpus.index, name="prediction")

    def score(self, docs: Any, labels: Any = None, **fold_in: Any) -> float:
        """Accuracy (micro F1 for multi-label, predictive R^2 for real responses) on held-out
        documents.

        Parameters
        ----------
        docs : Corpus or documents
            A labelled held-out ``Corpus`` (its own labels are used), or documents as
            ``predict`` takes them with ``labels``.
        labels : optional
            One label per document, as class names of the training corpus; required unless
            ``docs`` is a labelled Corpus.

        Class names are matched by name, so a held-out corpus whose classes are a subset of
        the model's, or in another order, is scored right; a class the model does not know is
        an error, never a silent zero.
        """
        self._check_supervised()
        train = self.corpus.labels
        if train.kind == "real":   # regression: predictive R^2 of the responses
            return self._score_responses(docs, labels, **fold_in)
        if labels is None:
            if not isinstance(docs, Corpus) or docs.labels is None:
                raise ValueError("score needs labels: a labelled held-out Corpus, or documents "
                                 "and labels=...")
            held_labels = docs.labels
            if held_labels.kind == "real" or (held_labels.kind == "multilabel") != \
                    (train.kind == "multilabel"):
                raise ValueError(f"the held-out labels are {held_labels.kind} with "
                                 f"{held_labels.n_classes} classes; the model was trained on "
                                 f"{train.kind} labels with classes {list(train.classes)[:10]}")
            labels = held_labels.names() if held_labels.kind != "multilabel" else \
                [set(x) for x in held_labels.names()]
            n = docs.n_docs
        else:
            n = docs.n_docs if isinstance(docs, Corpus) else None
        corpus = self.corpus.heldout(docs)
        n = corpus.n_docs if n is None else n
        # by name, onto the model's classes: a class it does not know is an error
        y = make_labels(labels, n, kind=train.kind, classes=train.classes)
        truth = dataclasses.replace(corpus, labels=y)
        scores = self.decision_function(corpus, **fold_in)
        return self.model.task(truth).score(self.model.targets(truth), scores.T)

    def _score_responses(self, docs: Any, labels: Any, **fold_in: Any) -> float:
        if labels is None:
            if not isinstance(docs, Corpus) or docs.labels is None \
                    or docs.labels.kind != "real":
                raise ValueError("score needs the held-out responses: a Corpus with real "
                                 "labels, or documents and labels=...")
        corpus = self.corpus.heldout(docs)
        if labels is None:
            y = docs.labels.values
        else:
            y = make_labels(labels, corpus.n_docs, kind="real").values
        check_responses(y, "score (R^2 of held-out responses)")
        scores = self.decision_function(corpus, **fold_in)
        return self.model.task(self.corpus).score(y[None, :], scores.T)

    def topic_word(self) -> np.ndarray:
        """(K, V) point estimate of the topics."""
        with self._lock:
            return self.model.topic_word(self.state)

    def doc_topics(self, as_frame: bool = True) -> pd.DataFrame | np.ndarray:
        """Document-topic proportions theta (n_docs x K) from the current state.

        Returns
        -------
        DataFrame or ndarray
            With ``as_frame`` (the default) a DataFrame indexed by ``corpus.index``: the
            index of the Series or DataFrame the documents came in (so ``df.join(
            session.doc_topics())`` puts each document's proportions on its row), else their
            input positions named ``"document"``; one column per topic (named ``topic``).
        """
        as_frame = check.flag("as_frame", as_frame)
        with self._lock:
            theta = self.model.doc_topic(self.state, self.corpus)
        if not as_frame:
            return theta
        return pd.DataFrame(theta, index=self.corpus.index,
                            columns=pd.Index(range(theta.shape[1]), name="topic"))

    def topics(self, n_words: int = 10) -> pd.DataFrame:
        """Top words of each topic: one row per topic with its share of tokens and words
        (the topics the model shows: HDP-LDA's live ones).

        Columns: ``share`` (fraction of corpus tokens in the topic), ``top_words`` (a readable
        string), and ``word_1 .. word_n`` with the words in order of phi.
        """
        n_words = check.integer("n_words", n_words, low=1)
        with self._lock:
            n_wk = self.state.counts.n_wk
            n_k = self.state.counts.n_k.astype(np.float64)
            # phi_k is increasing in n_kw: the top words by count, ties by word id, one
            # topic at a time (O(V) memory, not a (K, V) copy)
            shown = self.model.shown_topics(self.state)
            top = np.stack([metrics.top_indices(n_wk[:, k], n_words) for k in shown]) \
                if len(shown) else np.zeros((0, min(n_words, n_wk.shape[0])), np.int64)
        vocab = np.asarray(self.corpus.vocabulary, dtype=object)
        words = vocab[top]
        df = pd.DataFrame(words, columns=[f"word_{i + 1}" for i in range(top.shape[1])])
        df.insert(0, "top_words", [" ".join(r) for r in words])
        df.insert(0, "share", n_k[shown] / max(n_k.sum(), 1.0))
        df.index = (pd.RangeIndex(len(shown), name="topic") if len(shown) == self.model.K
                    else pd.Index(shown, name="topic"))
        return df

    def coherence(self, n_words: int = 10, measure: str = "npmi") -> pd.DataFrame:
        """Coherence of each topic's top words on the training corpus (``metrics``).

        Parameters
        ----------
        n_words : int
            Top words per topic, >= 2 (a coherence scores pairs of words).
        measure : {"npmi", "umass"}
            NPMI (mean over pairs, in [-1, 1]) or UMass (mean over pairs, <= ~0); see
            ``topicsup.metrics.topic_coherence``.

        Returns
        -------
        DataFrame
            One row per topic (index ``topic``): ``coherence`` (NaN for a topic with a word
            that occurs in no training document) and ``top_words``, the same string as
            ``topics(n_words)["top_words"]``.
        """
        n_words = check.integer("n_words", n_words, low=2)
        measure = check.choice("measure", measure, metrics.MEASURES)
        # topic_word takes the lock; the counts below read only the immutable corpus
        top = metrics.top_word_ids(self.topic_word(), n_words)
        values = metrics.topic_coherence(self.corpus, top, measure)
        vocab = np.asarray(self.corpus.vocabulary, dtype=object)
        return pd.DataFrame({"coherence": values,
                             "top_words": [" ".join(r) for r in vocab[top]]},
                            index=pd.RangeIndex(top.shape[0], name="topic"))

    def document_entropy(self) -> pd.Series:
        """Entropy (nats) of each training document's topic proportions, indexed like
        ``doc_topics()``: 0 for a document in one topic, log K for one spread over all."""
        theta = self.doc_topics(as_frame=False)   # takes the lock itself
        return pd.Series(metrics.document_entropy(theta), index=self.corpus.index,
                         name="entropy")

    def summary(self) -> pd.Series:
        """Model, corpus, progress and the latest metrics in one Series."""
        h = self.history
        last = h[h["sweep"] == self.n_sweeps] if len(h) else h
        lastv = {m: v for m, v, p in zip(last["metric"], last["value"], last["proposal"])
                 if p is None or p != p}
        total_s = h.loc[h["metric"] == "seconds", "value"].sum() if len(h) else 0.0
        info = {
            "model": type(self.model).__name__,
            **{f"param.{k}": v for k, v in self.model.get_params().items()},
            "n_docs": self.corpus.n_docs, "n_words": self.corpus.n_words,
            "n_tokens": self.corpus.n_tokens, "seed": self.seed, "sweeps": self.n_sweeps,
            "in_sweep": self.in_sweep, "sampling_seconds": total_s,
            "log_joint": lastv.get("log_joint", np.nan),
            "log_joint_per_token": lastv.get("log_joint_per_token", np.nan),
            "tokens_per_second": lastv.get("tokens_per_second", np.nan),
        }
        return pd.Series(info, name="session", dtype=object)

    def __repr__(self) -> str:
        return (f"Session({type(self.model).__name__}{self.model.get_params()}, "
                f"{self.corpus!r}, seed={self.seed}, sweeps={self.n_sweeps})")

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str | Path) -> Path:
        """Write a checkpoint (``.npz``, no pickled objects) that ``Session.load`` resumes.

        It holds the model's parameters, the corpus, the chain state (assignments and the
        random stream), the position inside a stopped sweep, the history, the settings
        changes and a checksum of the arrays. The file is replaced atomically: an interrupted
        save leaves the previous file intact (``topicsup.checkpoint``).

        The corpus's ``index`` is saved too when it holds integers or str (with a str name or
        none); any other index (dates, floats, a MultiIndex) is a ``ValueError`` before
        anything is written (``Corpus.to_arrays``).
        """
        check.path_like("path", path)
        with self._lock:
            meta = {
                "format": FORMAT, "format_version": FORMAT_VERSION,
                "topicsup_version": __version__,
                "model": type(self.model).__name__, "params": self.model.get_params(),
                "seed": self.seed, "n_sweeps": self.n_sweeps, "block": self._block,
                "block_tokens": self.block_tokens, "log_joint_every": self.log_joint_every,
                "seconds": self._seconds,
                "n_unknown_tokens": self.corpus.n_unknown_tokens,
                "preprocessing": self.corpus.preprocessing,
                "settings_changes": [dict(c) for c in self._changes],
            }
            saved = self.model.saved_arrays(self.state)
            arrays = {f"state/{k}": saved[k].copy() for k in self.model.saved_state}
            arrays.update(self._records.to_arrays())
            arrays.update(self.corpus.to_arrays())
            arrays.update({f"trace/{k}": np.stack(v) for k, v in self._traces.items() if v})
            arrays["rng"] = self.rng.copy()
            arrays["info"] = self._info.copy()
        return checkpoint.write(path, arrays, meta)

    @classmethod
    def load(cls, path: str | Path, backend: Any = None) -> "Session":
        """Restore a session saved by ``save``; continuing it equals never having stopped,
        on ``backend`` (as ``Session``'s) as on any other.

        The file is untrusted input: every array's dtype, shape and range and every
        metadata field are checked against the corpus and the model before any kernel runs
        (``topicsup.checkpoint``). A file that fails is a ``ValueError`` naming the file and
        the field; a missing file is a ``FileNotFoundError``. The corpus's ``index`` must
        hold integers or str, one per document; files written before it was saved (formats
        1 and 2) load with the default index (``Corpus.index``).
        """
        with checkpoint.CheckpointReader(path) as f:
            with f.checking(None):   # a MemoryError is the file's fault too
                session = cls._from_checkpoint(f)
        return session.use_backend(backend)

    @classmethod
    def _from_checkpoint(cls, f: checkpoint.CheckpointReader) -> "Session":
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
        known = ({"meta", "rng", "info"} | {f"state/{k}" for k in model.saved_state}
                 | {f"corpus/{k}" for k in _CorpusArrays.KINDS
                    if version >= INDEX_SINCE or k not in _CorpusArrays.INDEX}
                 | {f"trace/{k}" for k in model.trace_names}
                 | ({f"history/{k}" for k in _HISTORY_KINDS} if version >= 2 else set()))
        f.require_members(known.__contains__)
        f.verify_checksum(meta, required=version >= 2)
        n_unknown = f.meta_int(meta, "n_unknown_tokens", low=0, default=0)
        prep = f.meta_dict(meta, "preprocessing", default={})
        if version >= INDEX_SINCE and "corpus/index" not in f:
            raise f.error("corpus/index", "is missing")
        with f.checking("corpus"):
            corpus = Corpus.from_arrays(_CorpusArrays(f), {"n_unknown_tokens": n_unknown,
                                                          "preprocessing": prep})
            model.check_corpus(corpus)
            if corpus.n_tokens == 0:
                raise ValueError("the corpus has no tokens")
        # the run's position and settings
        self = cls.__new__(cls)
        self.model, self.corpus = model, corpus
        self.seed = f.meta_int(meta, "seed", low=0, high=2**64 - 1)
        self.block_tokens = f.meta_int(meta, "block_tokens", low=1, high=2**62)
        self.log_joint_every = f.meta_int(meta, "log_joint_every", low=0, high=2**62)
        self.n_sweeps = f.meta_int(meta, "n_sweeps", low=0, high=2**62)
        self._blocks = self._make_blocks()
        self._block = f.meta_int(meta, "block", low=0, high=self.n_blocks - 1)
        self._seconds = f.meta_number(meta, "seconds", low=0.0)
        # the chain: exact dtypes and shapes from the model, values by the model's checks
        with f.checking("params"):
            check.allocation(f"{name} with K = {model.K} on this corpus",
                             model.state_bytes(corpus))
        self.state = model.allocate_state(corpus)
        saved = model.saved_arrays(self.state)
        for k in model.saved_state:
            ref = saved[k]
            ref[...] = f.array(f"state/{k}", dtype=ref.dtype, shape=ref.shape)
        with f.checking("state"):
            model.validate_state(self.state, corpus)
            if self._block > 0:   # a sweep stopped part-way: what it started must be there
                model.topic_sampler.validate_mid_sweep(model, self.state.sampler)
        if "eta_kept" in saved and saved["eta_kept"][0] > self.n_sweeps:
            raise f.error("state/eta_kept", f"counts {saved['eta_kept'][0]} kept samples "
                                            f"in {self.n_sweeps} sweeps")
        self.rng = f.array("rng", dtype=np.uint64, shape=(4,))
        if not self.rng.any():   # xoshiro's one fixed point: it would draw zeros forever
            raise f.error("rng", "is the all-zero generator state, which never leaves zero")
        self._info = f.array("info", dtype=np.float64, shape=(model.info_size,))
        if not (np.isfinite(self._info).all() and (self._info >= 0).all()):
            raise f.error("info", "must hold finite non-negative counts")
        self._records = _History()
        with f.checking("history"):
            if version >= 2:
                _history_arrays(f, self._records, self.n_sweeps)
            else:
                self._records.extend(_history_json(f, meta, self.n_sweeps))
        with f.checking("settings_changes"):
            self._changes = _changes(f, meta, self.n_sweeps)
        shapes = model.trace_arrays(self.state)
        self._traces = {}
        for key in f.names("trace/"):
            tname = key[len("trace/"):]
            ref = shapes[tname]
            a = f.array(key, dtype=ref.dtype, ndim=ref.ndim + 1)
            if a.shape[1:] != ref.shape or a.shape[0] > self.n_sweeps:
                raise f.error(key, f"has shape {a.shape}; expected (at most {self.n_sweeps}, "
                                   f"*{ref.shape})")
            if not np.isfinite(a).all():
                raise f.error(key, "has non-finite values")
            self._traces[tname] = list(a)
        model.refresh_state(self.state, corpus)
        self._init_sync()
        self._backend = Threads()
        return self


_HISTORY_KINDS = ("sweep", "value", "metric", "proposal", "names", "kinds")
MAX_METRIC_NAMES = 10_000


def _history_arrays(f: checkpoint.CheckpointReader, out: _History, n_sweeps: int) -> None:
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

    KINDS = {"words": ("iu", 1), "doc_ptr": ("iu", 1), "vocabulary": ("U", 1),
             "doc_index": ("iu", 1), "dropped_documents": ("iu", 1),
             "labels/values": ("biuf", None), "labels/kind": ("U", 0),
             "labels/classes": ("U", 1), "covariates": ("biuf", 2),
             "covariate_names": ("U", 1), "index": ("iuU", 1), "index_name": ("U", 0)}
    INDEX = ("index", "index_name")   # since format 3 (INDEX_SINCE)

    def __init__(self, reader: checkpoint.CheckpointReader) -> None:
        self.reader = reader

    def __contains__(self, key: str) -> bool:
        return key in self.reader

    def __getitem__(self, key: str) -> np.ndarray:
        kinds, ndim = self.KINDS.get(key[len("corpus/"):], ("", 0))
        return self.reader.array(key, kinds=kinds, ndim=ndim)


def _history_json(f: checkpoint.CheckpointReader, meta: dict,
                  n_sweeps: int) -> list[dict[str, Any]]:
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


def _changes(f: checkpoint.CheckpointReader, meta: dict, n_sweeps: int) -> list[dict[str, Any]]:
    """The saved settings changes (format 2), each checked like a history row."""
    out = []
    for j, c in enumerate(f.meta_list(meta, "settings_changes", default=[])):
        field = f"settings_changes[{j}]"
        if not isinstance(c, dict) or set(c) != set(CHANGE_COLUMNS):
            raise f.error(field, f"must be an object with the keys {CHANGE_COLUMNS}")
        if isinstance(c["sweep"], bool) or not isinstance(c["sweep"], int) \
                or not 1 <= c["sweep"] <= n_sweeps + 1:
            raise f.error(field, f"sweep must be an integer in 1..{n_sweeps + 1}")
        if not isinstance(c["parameter"], str):
            raise f.error(field, "parameter must be a name")
        out.append(dict(c))
    return out
