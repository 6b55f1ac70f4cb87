"""How a run is owned and stopped: one run at a time of a Session or of Chains
(``one_run``), and Ctrl-C (Jupyter's interrupt button) as a stop request while a Session
samples in the main thread (``Session.run``), so the kernels are never left half-way through
a block."""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import Any, Iterator


class SessionBusyError(RuntimeError):
    """``Session.run`` (or ``Chains.run``) called while another run of it is in progress."""


@contextlib.contextmanager
def one_run(owner: Any, what: str, advice: str) -> Iterator[None]:
    """Make the calling thread the one runner of ``owner`` (a Session or Chains: its
    ``_owner_lock``, ``_owner`` thread and ``_stop`` event) for the duration; a second run
    raises ``SessionBusyError`` naming the running thread (``what``: "this Session", ...).
    The stop is cleared as the run takes ownership, so a stop requested by a thread that
    sees the run is never wiped out by its start, and again as it gives it up, so a stop
    that came after the last block ends with its run."""
    me = threading.current_thread()
    with owner._owner_lock:
        running = owner._owner
        if running is not None:
            where = "this thread (a callback may not start another run)" \
                if running is me else f"thread {running.name!r}"
            raise SessionBusyError(f"{what} already running in {where}; one run at a time: "
                                   f"call request_stop() and wait for it to return{advice}")
        owner._stop.clear()
        owner._owner = me
    try:
        yield
    finally:
        with owner._owner_lock:
            owner._owner = None
            owner._stop.clear()


class SigintStop:
    """SIGINT as a stop request for one run: the first Ctrl-C sets ``stop`` (the run ends
    after its block), a second raises ``KeyboardInterrupt`` at once."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.hit = False
        self.active = False

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.hit:               # a second Ctrl-C: the user wants out now
            raise KeyboardInterrupt
        self.hit = True
        self.stop.set()

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


__all__ = ["SessionBusyError", "SigintStop", "one_run"]
