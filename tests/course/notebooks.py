"""What every lesson's tests do with its two notebooks (the student's and the solutions):
run them side by side (two kernels, one event loop; ``PatientClient``: no stall on
``interact``), their outputs, the checks' feedback boxes, and the stored notebooks' form."""

from __future__ import annotations

import asyncio
from pathlib import Path

import nbformat
import pytest

from topicsup.testing.notebooks import PatientClient

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def run_side_by_side(paths: dict[str, Path], tmp_path_factory, one_blas_thread: bool = False):
    """The notebooks of ``paths`` (name -> path) run top to bottom, by name. With
    ``one_blas_thread`` each kernel gets one BLAS thread (small eigenproblems are no faster
    on more, and on a shared 2-core machine more threads only contend)."""
    nbs = {k: nbformat.read(p, as_version=4) for k, p in paths.items()}
    clients = [PatientClient(nb, kernel_name="python3", timeout=600, resources={
        "metadata": {"path": str(tmp_path_factory.mktemp(k))}}) for k, nb in nbs.items()]

    async def run_all():
        await asyncio.gather(*(c.async_execute() for c in clients))
    with pytest.MonkeyPatch.context() as mp:
        if one_blas_thread:
            for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                mp.setenv(name, "1")
        asyncio.run(run_all())
    return nbs


def outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def feedback(nb):
    """The HTML of every check's feedback box (``Feedback._repr_html_``), in order."""
    return [o["data"]["text/html"] for o in outputs(nb)
            if "text/html" in o.get("data", {}) and ("Right." in o["data"]["text/html"]
                                                     or "Not yet." in o["data"]["text/html"])]


def no_errors(nb):
    """The notebook's outputs, asserted free of errors and of anything written to stderr."""
    outs = outputs(nb)
    bad = [o for o in outs if o["output_type"] == "error" or o.get("name") == "stderr"]
    assert not bad, bad
    return outs


def all_right(nb, n: int):
    """The notebook (no error, nothing on stderr) shows ``n`` feedback boxes, each "Right."
    and none "Not yet."; returns them."""
    no_errors(nb)
    boxes = feedback(nb)
    assert len(boxes) == n, boxes
    assert all("Right." in f and "Not yet." not in f for f in boxes), boxes
    return boxes


def all_not_yet(nb, n: int):
    """The notebook (no error, nothing on stderr) shows ``n`` feedback boxes, each "Not
    yet."; returns them."""
    no_errors(nb)
    boxes = feedback(nb)
    assert len(boxes) == n, boxes
    assert all("Not yet." in f for f in boxes), boxes
    return boxes


def text_of(outs) -> str:
    """What the outputs print (their streams' text), joined."""
    return "".join(o.get("text", "") for o in outs)


def assert_stored_clean(paths, lesson: int) -> None:
    """Stored as the course keeps them: no outputs, the kernelspec, the lesson's title."""
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata["kernelspec"] == KERNELSPEC
        assert not outputs(nb), path
        assert all(c.get("execution_count") is None for c in nb.cells
                   if c.cell_type == "code"), path
        assert nb.cells[0].source.startswith(f"# Lesson {lesson}: ")
