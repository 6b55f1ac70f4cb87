"""numba's runtime threads: how many the parallel kernels use, and whether they may be
launched from several Python threads at once (the samplers, the backends and ``Chains``
ask)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba
import numpy as np

from .supervised import label_matrix


@contextlib.contextmanager
def numba_threads(n: int) -> Iterator[None]:
    """Run the parallel kernels on ``n`` threads (0: all of numba's), then restore."""
    if not n:
        yield
        return
    before = numba.get_num_threads()
    # numba.config sets its NUMBA_* attributes from the environment at run time: unseen by mypy
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        numba.set_num_threads(before)


def concurrent_kernels_safe() -> bool:
    """Whether parallel kernels may be launched from several Python threads at once: numba's
    OpenMP and TBB layers allow it, its fallback ``workqueue`` layer aborts the process
    ("Concurrent access has been detected"). Callers that run chains or partitions side by
    side in threads run them one at a time when it is False."""
    try:
        layer = numba.threading_layer()  # type: ignore[attr-defined]  # not in numba.__all__
    except ValueError:   # no parallel kernel has run yet: run a tiny one to choose the layer
        label_matrix(np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1)))
        layer = numba.threading_layer()  # type: ignore[attr-defined]  # not in numba.__all__
    return layer != "workqueue"


__all__ = ["concurrent_kernels_safe", "numba_threads"]
