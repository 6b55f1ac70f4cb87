"""A run in another thread that a test can wait for without a clock."""

from __future__ import annotations

import threading
from typing import Any


def run_in_thread(s: Any, n: int) -> tuple[threading.Thread, dict, threading.Event]:
    """Start ``s.run(n)`` in a new thread. Returns the thread, its outcome (``done``, the
    sweeps run, or ``error``; filled when the run ends) and an event set by the run's first
    callback (the run owns the session and has completed a sweep), or by the run's end if
    it fails before that, so that waiting for it cannot outlast the run."""
    swept = threading.Event()
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["done"] = s.run(n, callback=lambda _: swept.set())
        except BaseException as e:   # noqa: BLE001 - reported through outcome
            outcome["error"] = e
        finally:
            swept.set()
    t = threading.Thread(target=target)
    t.start()
    return t, outcome, swept
