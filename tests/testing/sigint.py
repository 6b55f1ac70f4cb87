"""Ctrl-C in a child process, sent when the child says it is ready rather than after a delay,
so that no test of an interrupt depends on how fast the machine is."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable


def interrupt_when(code: str, ready: Callable[[list[str]], bool]) -> tuple[int, str, bool]:
    """Run ``code`` in a fresh Python and send it SIGINT once the lines it has printed so far
    satisfy ``ready``; then wait for it to end.

    Parameters
    ----------
    code : str
        The child's program. It prints (and flushes) a line when it reaches the point where
        the interrupt is to arrive; nothing is sent before that, however long it takes.
    ready : callable
        Called with the child's lines so far (stdout and stderr merged, without line ends)
        after each new line; True sends the signal.

    Returns
    -------
    tuple
        The child's exit code, everything it printed, and whether the signal was sent (not
        when the child ended before it was ready).
    """
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    sent = False
    assert proc.stdout is not None
    for line in proc.stdout:   # ends at the child's exit if it is never ready
        lines.append(line.rstrip("\n"))
        if ready(lines):
            proc.send_signal(signal.SIGINT)
            sent = True
            break
    rest, _ = proc.communicate()
    return proc.returncode, "\n".join(lines) + "\n" + rest, sent
