"""Compiling a model's kernels ahead, so a first sweep does not freeze without a word.

numba compiles a kernel the first time it is called with a given set of argument types and
keeps the machine code on disk (``cache=True``): in a fresh environment a model's first sweep
pays seconds of compilation, every later process loads the cache in a fraction of a second.
A *warm-up* runs one sweep of the same model on a few documents of the same corpus (same
dtypes, same parts, so the same specialisations) in a background thread, started when a
Session is created with ``compile_ahead=True`` or shown in a dashboard, while the user is
still reading the screen. What waits on it (a dashboard's Run, ``Session.run(progress=True)``)
says so in plain words: :func:`message`.

This module keeps the process-wide record of warm-ups (one per model configuration: a
compiled kernel serves every Session of the process) and the measured first-run costs the
messages quote; ``Session.compile_ahead`` builds the warm-up's work.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable

# Seconds a first run spends compiling in a fresh environment (empty numba cache), by model
# class: ``python -m topicsup.precompile --measure --all`` on a 2-core AMD EPYC (Session
# creation and two sweeps of a small corpus, rounded up; the messages say "about N s"; a warm
# cache loads in well under a second). A slower machine takes longer: "about".
FIRST_RUN_SECONDS: dict[str, float] = {
    "LDA": 3.0, "LightMedLDA": 10.0, "MedLDA": 7.0, "GSLDA": 7.0, "LightSLDA": 10.0,
    "SLDA": 7.0, "MedLDARegression": 7.0, "DOLDA": 18.0, "MCMedLDA": 4.0, "PDPLDA": 4.0,
    "HDPLDA": 4.0,
}
DEFAULT_SECONDS = 20.0


class Warmup:
    """One warm-up: its thread, whether it has ended, how long it took and what it raised
    (a failed warm-up only means the first real sweep compiles instead)."""

    def __init__(self, key: str, model_name: str) -> None:
        self.key = key
        self.model_name = model_name
        self.started = time.monotonic()
        self.seconds: float | None = None
        self.error: BaseException | None = None
        self._done = threading.Event()
        self._ended = threading.Event()   # ``then`` finished too (the inspector's kernels)
        self._thread: threading.Thread | None = None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the warm-up has ended (or ``timeout`` seconds); True if it has."""
        return self._done.wait(timeout)

    @property
    def ended(self) -> bool:
        """The warm-up and what runs after it (``then``: the token inspector's kernels)."""
        return self._ended.is_set()

    def wait_ended(self, timeout: float | None = None) -> bool:
        """Block until ``ended`` (or ``timeout`` seconds); True if so."""
        return self._ended.wait(timeout)

    def _run(self, work: Callable[[], object], then: Callable[[], object] | None) -> None:
        try:
            work()
        except BaseException as e:   # recorded: the real run compiles what is left
            self.error = e
        finally:
            self.seconds = time.monotonic() - self.started
            self._done.set()
        try:
            if then is not None and self.error is None:
                then()   # what a later step may need (the token inspector)
        except Exception:
            pass         # that step compiles it instead
        finally:
            self._ended.set()

    def __repr__(self) -> str:
        state = f"done in {self.seconds:.1f} s" if self.done else "compiling"
        return f"Warmup({self.model_name}, {state})"


_LOCK = threading.Lock()
_WARMUPS: dict[str, Warmup] = {}
# at exit, a warm-up still compiling is let finish (bounded): a daemon thread stopped inside
# numba's compiler as the interpreter tears down can crash the exit
EXIT_PATIENCE = 120.0


@atexit.register
def _finish_at_exit() -> None:
    with _LOCK:
        threads = [w._thread for w in _WARMUPS.values() if w._thread is not None]
    for t in threads:
        t.join(EXIT_PATIENCE)


def key_of(model: object) -> str:
    """What decides the kernels a model compiles: its class and parts with their settings
    (a different K or seed compiles nothing new, but costs only a tiny sweep to check)."""
    return repr(model)


def start(model: object, work: Callable[[], object], background: bool = True,
          then: Callable[[], object] | None = None) -> Warmup:
    """The warm-up of ``model``'s configuration: the one already started in this process, or
    a new one running ``work`` (in a daemon thread when ``background``), done when ``work``
    returns; ``then`` runs after, in the same thread, for what may be needed later."""
    key = key_of(model)
    with _LOCK:
        warm = _WARMUPS.get(key)
        if warm is not None:
            return warm
        warm = _WARMUPS[key] = Warmup(key, type(model).__name__)
    if background:
        warm._thread = threading.Thread(target=warm._run, args=(work, then), daemon=True,
                                        name=f"topicsup-warmup-{warm.model_name}")
        warm._thread.start()
    else:
        warm._run(work, then)
    return warm


def get(model: object) -> Warmup | None:
    """The warm-up of ``model``'s configuration in this process, if one was started."""
    with _LOCK:
        return _WARMUPS.get(key_of(model))


def expected_seconds(model_name: str) -> float:
    """The measured first-run compilation time of a model class (a fresh environment)."""
    return FIRST_RUN_SECONDS.get(model_name, DEFAULT_SECONDS)


def message(warm: Warmup) -> str:
    """What a waiting front end shows: plain words, the measured cost, the time so far."""
    elapsed = time.monotonic() - warm.started
    return (f"compiling kernels (first run only, about "
            f"{expected_seconds(warm.model_name):.0f} s; {elapsed:.0f} s so far)")
