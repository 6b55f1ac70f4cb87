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
import signal
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import pandas as pd

from . import checkpoint, summaries, warmup
from . import validation as check
from .backends import Backend, Threads, resolve as resolve_backend
from .corpus import Corpus
from .heldout import HeldOut
from .history import STEP_SECONDS, Record, is_timing, kept_draws, to_inference_data
from .interrupts import SessionBusyError, SigintStop, one_run
from .kernels import info as info_layout
from .kernels.rng import seed_state
from .models import LDA
from .problem import Fit, Problem, State
from .readouts import Readouts
from .samplers import stepping


WARMUP_DOCS = 64   # the documents a warm-up sweeps (``Session.compile_ahead``)


def warmup_documents(corpus: Corpus) -> np.ndarray:
    """A few documents of ``corpus`` that hold every label value (a class, every column of a
    multi-label indicator), so a warm-up's label task has the real one's shape."""
    picked = set(range(min(WARMUP_DOCS, corpus.n_docs)))
    if corpus.labels is not None:
        values = np.asarray(corpus.labels.values)
        if values.ndim == 1 and values.dtype.kind in "iu":
            picked.update(np.unique(values, return_index=True)[1].tolist())
        elif values.ndim == 2:
            picked.update(int(np.argmax(col)) for col in values.T if col.any())
    return np.array(sorted(picked), dtype=np.int64)


class Session(Readouts, HeldOut):
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
    compile_ahead : bool
        Start compiling the model's kernels at once, in a background thread (a warm-up sweep
        on a few documents: ``compile_ahead``), so the first real sweep does not wait for
        numba in a fresh environment. Dashboards start it themselves.
    autosave : path, optional
        Write the chain's checkpoint there every ``autosave_every`` minutes, after a sweep, in
        a thread of its own while the chain samples on (``checkpoint.Autosave``; atomically:
        the file is always a whole checkpoint): a crashed kernel loses at most one interval,
        and ``Session.load(autosave)`` continues the same chain.
    autosave_every : float
        Minutes between two autosaves (default 10; 0: after every sweep).

    Every read (``topics``, ``coefficients``, ``predict``, ``history``, ...) is a function of
    the chain's ``Fit`` (``topicsup.problem``) run with the chain held still (``readout``):
    ``topicsup.readouts`` and ``topicsup.heldout`` name them.

    Examples
    --------
    >>> s = Session(LDA(K=10), corpus, seed=1)       # doctest: +SKIP
    >>> s.run(100, progress=True)                    # doctest: +SKIP
    >>> s.topics(8)                                  # doctest: +SKIP
    """

    # the model bound to the corpus (``topicsup.problem``): the one holder of the model the
    # chain runs, its corpus, tokens, label task and current Dirichlet parameters; a new
    # setting or a learned prior replaces it
    problem: Problem[LDA]
    _state: State

    def __init__(self, model: Any, corpus: Corpus, seed: int = 0, *,
                 block_tokens: int = 65536, log_joint_every: int = 1,
                 backend: Any = None, compile_ahead: bool = False,
                 autosave: str | Path | None = None, autosave_every: float = 10.0) -> None:
        self._setup(model, corpus, seed, block_tokens=block_tokens,
                    log_joint_every=log_joint_every, backend=backend,
                    compile_ahead=compile_ahead, autosave=autosave,
                    autosave_every=autosave_every, resume=None)

    @classmethod
    def _from_saved(cls, saved: checkpoint.SavedSession, backend: Any = None, *,
                    autosave: str | Path | None = None, autosave_every: float = 10.0
                    ) -> "Session":
        """The session that continues ``saved`` (``Session.load``'s). Built past
        ``__init__`` so that the public signature, which the API pages show, has no
        parameter only the loader may pass."""
        if not isinstance(saved, checkpoint.SavedSession):
            raise TypeError(f"saved must be a checkpoint.SavedSession (Session.load's), got "
                            f"{type(saved).__name__}")
        self = cls.__new__(cls)
        self._setup(saved.problem.model, saved.problem.corpus, saved.seed,
                    block_tokens=saved.block_tokens, log_joint_every=saved.log_joint_every,
                    backend=backend, compile_ahead=False, autosave=autosave,
                    autosave_every=autosave_every, resume=saved)
        return self

    def _setup(self, model: Any, corpus: Corpus, seed: int, *, block_tokens: int,
               log_joint_every: int, backend: Any, compile_ahead: bool,
               autosave: str | Path | None, autosave_every: float,
               resume: checkpoint.SavedSession | None) -> None:
        """``__init__``'s work: a new chain, or with ``resume`` (``_from_saved``'s, a checked
        checkpoint of this model and corpus) the saved one."""
        if isinstance(model, type):
            raise TypeError(f"model must be a model instance such as LDA(K=20), got the class "
                            f"{model.__name__}")
        if not isinstance(model, LDA):
            raise TypeError(f"model must be a topicsup model such as topicsup.models.LDA, got "
                            f"{type(model).__name__}")
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
        if resume is not None and (not isinstance(resume, checkpoint.SavedSession)
                                   or resume.problem.model is not model
                                   or resume.problem.corpus is not corpus):
            raise TypeError("resume is Session.load's: a checkpoint.SavedSession of this "
                            "model and corpus")
        # the corpus checked, and what the chain reads of (model, corpus) derived once
        problem = model.bind(corpus) if resume is None else resume.problem
        if corpus.n_tokens == 0:
            raise ValueError("corpus has no tokens: there is nothing to sample (every document "
                             "is empty)")
        self.block_tokens = check.integer("block_tokens", block_tokens, low=1, high=2**62)
        self.log_joint_every = check.integer("log_joint_every", log_joint_every, low=0,
                                             high=2**62)
        self.rng = seed_state(seed)  # validates seed
        self.seed = int(seed)
        self._blocks = corpus.blocks(self.block_tokens)
        if resume is None:
            # sampler="auto": the sampler chosen for this corpus (a copy either way: a user's
            # set_params cannot reach the session's model)
            resolved, choice = model.resolve(problem)
            model = resolved if choice is not None else model.copy()
            check.allocation(f"{type(model).__name__} with K = {model.K} on this corpus",
                             model.state_bytes(problem), hint="use fewer topics K")
            self.problem = problem = problem.with_model(model)
            self._state = model.init_state(problem, self.rng)
            self.n_sweeps = 0          # completed sweeps
            self._block = 0            # next block of the current sweep
            self._info = np.zeros(model.info_size, dtype=np.float64)
            self._seconds = 0.0        # kernel time spent in the current sweep so far
            self._record = Record()
            if choice is not None:   # kept with the chain (and its checkpoints) as a change
                self._record.change(0, "sampler", "auto", choice.describe())
        else:                          # Session.load: a checked SavedSession of this chain
            self.problem, self._state, self.rng = problem, resume.state, resume.rng
            self.n_sweeps, self._block = resume.n_sweeps, resume.block
            self._info, self._seconds = resume.info, resume.seconds
            self._record = resume.record
        self._autosave = None if autosave is None \
            else checkpoint.Autosave(autosave, autosave_every)
        self._init_sync()
        self._backend: Backend = Threads()
        self.use_backend(backend)
        if check.flag("compile_ahead", compile_ahead):
            self.compile_ahead()

    @property
    def model(self) -> LDA:
        """The model the chain runs (its own copy: ``set_params`` changes it)."""
        return self.problem.model

    @property
    def corpus(self) -> Corpus:
        """The training corpus."""
        return self.problem.corpus

    @property
    def state(self) -> State:
        """The chain's state (``topicsup.problem.State``: the counts and the parts' arrays)
        at the last completed block, up to date with what the backend keeps where it ran
        (a Dask backend draws Phi on its workers: the Session's copy is drawn again from the
        same numbers when read, ``Backend.sync``). Waits for a running block to end."""
        with self._lock:
            self._backend.sync()
            return self._state

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
            self._backend.sync()
            state = self.__dict__.copy()
        backend = state.pop("_backend", None)
        for k in ("_lock", "_stop", "_owner_lock", "_owner"):
            state.pop(k, None)
        state["_autosave"] = None   # a copy does not write the original's file
        # tables built elsewhere (a Dask backend's workers) are not in this state
        state["_tables_elsewhere"] = backend is not None and not backend.tables_here
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        elsewhere = state.pop("_tables_elsewhere", False)
        self.__dict__.update(state)
        self._init_sync()
        self._backend = Threads()   # a copy runs on its own process's threads
        if elsewhere:
            self.model.topic_sampler.refresh(self.problem, self.state.sampler)

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
            old.sync()
            old.detach()
            self._backend = new
            if new.tables_here and not old.tables_here:
                # the word tables were built where the documents were: build them here
                self.model.topic_sampler.refresh(self.problem, self.state.sampler)
        return self

    def close(self) -> None:
        """Release what the backend holds elsewhere (a Dask backend's placed documents; a
        session dropped without it releases them when it is garbage collected); the session
        goes on with this process's threads, and waits for an autosave under way. ``with
        Session(...) as s:`` closes at the end."""
        self.use_backend(None)
        if self._autosave is not None:
            self._autosave.wait()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ compiling ahead
    def compile_ahead(self, background: bool = True) -> warmup.Warmup:
        """Compile the kernels this session's sweeps use, without touching its chain: one
        warm-up per model configuration and process (``topicsup.warmup``), two sweeps of the
        same model on a few documents of this corpus (every label value among them, so the
        same specialisations: ``warmup_documents``), then (not waited for) the token
        replay's code where the sampler has one (``samplers.stepping``). Returns the warm-up
        (``done``, ``wait()``, ``seconds``); in a fresh environment it takes the seconds
        ``warmup.FIRST_RUN_SECONDS`` lists, with a warm numba cache well under one."""
        background = check.flag("background", background)
        started = warmup.get(self.model)
        if started is not None:
            return started
        model, corpus = self.model.copy(), self.corpus.take(warmup_documents(self.corpus))
        block_tokens, log_joint_every = self.block_tokens, 1 if self.log_joint_every else 0
        tiny: list[Session] = []

        def work() -> None:
            tiny.append(Session(model, corpus, seed=0, block_tokens=block_tokens,
                                log_joint_every=log_joint_every))
            tiny[0].run(2)

        def then() -> None:   # after the sweeps' kernels: the first Run waits for those only
            stepping.warm_up(tiny[0].problem, tiny[0].state)
        return warmup.start(self.model, work, background=background, then=then)

    # ------------------------------------------------------------------ blocks and stopping
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
        """Ask the run in progress (in any thread) to return after the current block (a Dask
        backend: after the sweep). The request goes to the run that owns the session when it
        is made: a run owns it from when it is accepted (``running`` turns True before its
        first block) until it returns, and a stop made meanwhile always reaches it. A stop
        made while no run owns the session (before ``run``, or after it returned) is dropped
        and does not stop a later run: to stop a run started in another thread, request the
        stop once ``running`` is True, or from its callback."""
        # under the owner lock, so that a run cannot take or give up ownership halfway
        # through: a stop lands wholly before a run (dropped) or wholly inside it (kept)
        with self._owner_lock:
            if self._owner is not None:
                self._stop.set()

    def set_params(self, **params: Any) -> None:
        """Change sampler settings between sweeps (e.g. ``mh_steps``, ``composition``,
        ``proposal_weights``), only those in ``model.live_params``: they change how the chain
        moves, not its stationary distribution. Takes effect at the next block; waits for a
        running block to end. The chain's problem is rebound to the new model (nothing
        derived from the corpus changes); the checkpoint records the current settings."""
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
                    self._record.change(self.n_sweeps + 1, name, before, after)
            self.problem = self.problem.with_model(new)

    @contextlib.contextmanager
    def locked(self) -> Iterator["Session"]:
        """Hold the chain still (no block runs meanwhile) for a read of several parts that
        must agree: ``with session.locked(): ...``. Re-entrant; a run waits at its next
        block."""
        with self._lock:
            yield self

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
            self.model.sweep_block(self._state, self.problem, self.rng, d0, d1, self._info,
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
        end_rows = self.model.end_sweep(self._state, self.problem, self.rng, sweep)
        if self.model.prior_due(sweep):
            self._backend.sync()   # the documents' topics, where a backend kept them
        # learned Dirichlet parameters (``LDA(optimize=...)``): the next sweeps read the new
        # problem, whose alpha the sampler's tables were rebuilt from
        self.problem, prior_rows = self.model.learn_prior(self._state, self.problem, sweep)
        end_rows += prior_rows
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
                self._backend.sync()   # the documents' topics, where a backend kept them
                lj = self.model.log_joint(self._state, self.problem)
                rows += [{"metric": "log_joint", "value": lj, "proposal": None},
                         {"metric": "log_joint_per_token", "value": lj / self.corpus.n_tokens,
                          "proposal": None}]
            traces = self.model.trace_arrays(self._state)
        finally:
            for r in rows:
                r["sweep"] = sweep
            self.n_sweeps = sweep
            self._block = 0
            self._info[:] = 0
            self._seconds = 0.0
            self._record.add_sweep(rows, traces)

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
                self._await_kernels(bar)
            try:
                while done < n and not self.model.finished(self._state):
                    with self._lock:
                        while self._block < self.n_blocks and not self._stop.is_set():
                            self._run_block()
                        if self._block < self.n_blocks:
                            break  # stop requested part-way: keep the position, lose nothing
                        self._finish_sweep()
                        self._autosave_if_due()
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

    def _owned(self) -> contextlib.AbstractContextManager[None]:
        """Make the calling thread the session's one runner for the duration."""
        return one_run(self, "this Session is", ", or use another Session")

    @contextlib.contextmanager
    def _interrupts_stop(self) -> Iterator[SigintStop]:
        """In the main thread, turn SIGINT (Ctrl-C, Jupyter's interrupt) into a stop request
        while the session samples, so the kernels are never left half-way through a block or
        the end of a sweep; a second SIGINT before the run returns interrupts at once (the
        way out of a block that takes too long: the chain may then redo that block)."""
        interrupts = SigintStop(self._stop)
        if threading.current_thread() is not threading.main_thread() or \
                signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            yield interrupts
            return
        interrupts.install()
        try:
            yield interrupts
        finally:
            interrupts.restore()

    def _await_kernels(self, bar: Any) -> None:
        """Before a progress bar's first sweep: compile ahead and say so while it lasts (a
        bar standing at 0 for half a minute looks like a hang); a stop request ends the wait
        and the run then stops as usual."""
        warm = self.compile_ahead()
        name = type(self.model).__name__
        while not warm.wait(0.25) and not self._stop.is_set():
            bar.set_description_str(f"{name}: {warmup.message(warm)}")
        bar.set_description_str(name)

    def _postfix(self) -> dict[str, str]:
        last = self._record.history.last_sweep(self.n_sweeps)
        out = {}
        if "log_joint_per_token" in last:
            out["ll/token"] = f"{last['log_joint_per_token']:.4f}"
        if "tokens_per_second" in last:
            out["Mtok/s"] = f"{last['tokens_per_second'] / 1e6:.2f}"
        return out

    # ------------------------------------------------------------------ reading the chain
    def _fit(self) -> Fit[LDA]:
        return Fit(self.problem, self.state, self._record, self.n_sweeps)

    def readout(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(fit, *args, **kwargs)`` on this chain held still: ``fn`` is a read-out, a
        function of a ``topicsup.problem.Fit`` (the bound problem, the state, the record and
        the sweeps), such as those of ``topicsup.summaries``; the methods of ``Readouts`` and
        ``HeldOut`` are this with a name."""
        if not callable(fn):
            raise TypeError(f"fn must be a read-out, a function of a topicsup.problem.Fit, got "
                            f"{type(fn).__name__}")
        with self._lock:
            return fn(self._fit(), *args, **kwargs)

    def set_topic_labels(self, labels: Mapping[int, str] | None) -> None:
        """Name topics (``{topic: "name"}``, added to the names given before; None forgets
        them all): the names replace the automatic labels in every table, chart, coefficient
        and ArviZ coordinate, and checkpoints keep them. Names must be distinct."""
        with self._lock:
            checked = {} if labels is None else summaries.check_labels(self._fit(), labels)
            self._record.labels = {} if labels is None else {**self._record.labels, **checked}

    def summary(self) -> pd.Series:
        """Model, corpus, progress and the latest metrics in one Series."""
        return self.readout(summaries.summary, self.seed, self.in_sweep)

    def to_arviz(self, burn: int = 0, scale: str = "identified") -> Any:
        """This chain's sweeps ``burn + 1 ..`` for ArviZ (0.x: ``InferenceData``; 1.x: a
        ``DataTree``): ``posterior`` ``eta`` (a supervised model) and ``sample_stats``
        ``lp``, ``acceptance_rate``, ``topic_change_rate``, draws numbered by sweep
        (``history.to_inference_data``; several chains: ``Chains.to_arviz``). The weights
        are on ``scale``, the scale of ``coefficients`` and the forest plot
        (``"identified"``, the default, or ``"raw"``; ``topicsup.summaries``), named in the
        attributes (``weight_scale``)."""
        burn = check.integer("burn", burn, low=0)
        scale = summaries.weight_scale(scale)
        with self._lock:
            sup = self.model.supervised
            eta = kept_draws(self._record.trace("eta"), self.n_sweeps, burn,
                             self.n_sweeps)[None] if sup and self.n_sweeps > burn else None
            if eta is not None and scale == "identified":
                eta = summaries.identified(eta, self.problem.feature_kinds)
            return to_inference_data(
                [self._record.history.frame()], burn, self.n_sweeps,
                bool(self.model.proposal_kinds), eta, self.problem.task_names,
                self.feature_names() if sup else (),
                {"model": repr(self.model), "seeds": [self.seed], "topics_aligned": False,
                 **summaries.weight_scale_attrs(scale, eta is not None)})

    def __repr__(self) -> str:
        choice = self.sampler_choice
        chosen = f", sampler chosen by auto: {choice}" if choice else ""
        return (f"Session({type(self.model).__name__}{self.model.get_params()}, "
                f"{self.corpus!r}, seed={self.seed}, sweeps={self.n_sweeps}{chosen})")

    # ------------------------------------------------------------------ checkpoints
    def _file(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The checkpoint's arrays (copies, so the chain may go on while the file is written)
        and metadata."""
        with self._lock:
            return checkpoint.session_file(checkpoint.SavedSession(
                self.problem, self.seed, self.block_tokens, self.log_joint_every,
                self.n_sweeps, self._block, self._seconds, self.state, self.rng, self._info,
                self._record))

    def save(self, path: str | Path) -> Path:
        """Write a checkpoint ``Session.load`` resumes exactly (``topicsup.checkpoint``: no
        pickled objects, written atomically, checksummed). A corpus index other than ints or
        str is a ``ValueError`` before anything is written."""
        check.path_like("path", path)
        return checkpoint.write(path, *self._file())

    def _autosave_if_due(self) -> None:
        """After a sweep: start the autosave when due, and say once if the last one failed."""
        if self._autosave is None:
            return
        failure = self._autosave.failure()
        if failure is not None:
            warnings.warn(f"autosave to {str(self._autosave.path)!r} failed ({failure}); the "
                          f"next one is tried in {self._autosave.every:g} minutes",
                          RuntimeWarning, stacklevel=4)
        if self._autosave.due():
            self._autosave.start(*self._file())

    @classmethod
    def load(cls, path: str | Path, backend: Any = None, *, autosave: str | Path | None = None,
             autosave_every: float = 10.0) -> "Session":
        """Restore a session saved by ``save`` (on ``backend``, autosaving as ``Session``
        does); continuing it equals never having stopped. The file is untrusted input,
        checked field by field before any kernel runs (``checkpoint.load_session``): a
        ``ValueError`` names the file and field."""
        return cls._from_saved(checkpoint.load_session(path), backend, autosave=autosave,
                               autosave_every=autosave_every)


__all__ = ["Session", "SessionBusyError", "is_timing"]
