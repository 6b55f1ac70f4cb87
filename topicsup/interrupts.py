"""Ctrl-C (Jupyter's interrupt button) as a stop request while a Session samples in the main
thread (``Session.run``), so the kernels are never left half-way through a block."""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import Iterator


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


__all__ = ["SigintStop"]
