"""Running a notebook top to bottom outside JupyterLab (the course's solutions, the site's
build, the suite without a browser): nbclient's client, reading the kernel's replies in short
slices (``PatientClient``).

nbclient waits for a cell's reply with one read of the shell channel as long as the cell's
whole timeout; with ipywidgets' ``interact`` in the notebook, a reply that arrives during that
read is sometimes seen only when the read times out (jupyter/nbclient#312, open), so a cell of
a second took the full timeout (10 minutes, seen in 3 of 12 runs of a lesson). Reading in
slices of a second sees it at the next slice; a cell that really runs long still gets its
whole timeout.
"""

from __future__ import annotations

from queue import Empty
from time import monotonic
from typing import Any

from nbclient import NotebookClient
from nbclient.util import ensure_async

SLICE_SECONDS = 1.0


class PatientClient(NotebookClient):
    """``nbclient.NotebookClient`` whose wait for a cell's reply reads the shell channel in
    slices of ``SLICE_SECONDS`` (module docstring), the cell's timeout kept as a whole."""

    async def _async_poll_for_reply(self, msg_id: str, cell: Any, timeout: int | None,
                                    *args: Any) -> dict[str, Any]:
        assert self.kc is not None   # started by nbclient before any cell runs
        channel = self.kc.shell_channel
        read = channel.get_msg

        async def sliced(timeout: float | None = None, **kwargs: Any) -> Any:
            end = None if timeout is None else monotonic() + timeout
            while True:
                left = SLICE_SECONDS if end is None else min(SLICE_SECONDS,
                                                             max(0.0, end - monotonic()))
                try:
                    return await ensure_async(read(timeout=left, **kwargs))
                except Empty:
                    if end is not None and monotonic() >= end:
                        raise

        channel.get_msg = sliced
        try:
            reply: dict[str, Any] = await super()._async_poll_for_reply(msg_id, cell, timeout,
                                                                       *args)
            return reply
        finally:
            channel.get_msg = read


__all__ = ["PatientClient", "SLICE_SECONDS"]
