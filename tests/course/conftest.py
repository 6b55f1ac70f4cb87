"""The course's shared fixture: a lesson's two notebooks, run once per test module."""

from __future__ import annotations

import pytest

from .notebooks import run_side_by_side


@pytest.fixture(scope="module")
def executed(request, tmp_path_factory):
    """The lesson module's two notebooks (its ``NOTEBOOKS``: name -> path) run side by side;
    with its ``ONE_BLAS_THREAD`` each kernel on one BLAS thread (tests/course/notebooks.py)."""
    return run_side_by_side(request.module.NOTEBOOKS, tmp_path_factory,
                            getattr(request.module, "ONE_BLAS_THREAD", False))
