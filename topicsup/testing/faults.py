"""Faults injected into a Dask worker, for the tests of ``topicsup.backends.dask``."""

from __future__ import annotations

import os
from typing import Callable

import numpy as np

from ..backends import dask as backend


def _exit_at(partition: int) -> Callable[[int], None]:
    def hook(j: int) -> None:
        if j == partition:
            os._exit(1)   # the worker process dies as a lost machine would, mid-sweep
    return hook


def arm_worker_exit(partition: int) -> None:
    """Run on a worker (``Client.run(arm_worker_exit, j, workers=[address])``): the worker's
    process exits when it starts sweeping partition ``partition``."""
    backend._before_partition_hook = _exit_at(partition)


def arm_worker_exit_drawing_phi(shard: int) -> None:
    """Run on a worker: its process exits when it starts drawing shard ``shard`` of Phi."""
    backend._before_shard_hook = _exit_at(shard)


def corrupt_column_sums(on: bool) -> None:
    """Run on a worker: the column sums of Phi it replies are NaN (``on``), or its own
    again."""
    def nan(sums: np.ndarray) -> np.ndarray:
        return np.full_like(sums, np.nan)
    backend._column_sums_hook = nan if on else None


def exit_now() -> None:
    """Run on a worker: its process exits at once (a machine lost between sweeps)."""
    os._exit(1)
