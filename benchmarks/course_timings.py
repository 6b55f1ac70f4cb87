"""What each lesson of the course costs to run (docs/classroom.md, "The course"): every lesson
of ``notebooks/course/`` as a student gets it (exercises unanswered) and its solutions
notebook, each run top to bottom with nbclient in a fresh kernel once numba's cache is warm
(a first run compiles; ``python -m topicsup.precompile --all`` does that before a class).
Per notebook: the wall seconds from the kernel's start to the last cell, the seconds of the
cells alone, its exercises (the ``check_`` calls) and how many of them say "Right". About
4 minutes on 2 cores; run it alone.

    python benchmarks/course_timings.py
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "course"
OUT = Path(__file__).resolve().parent / "results" / "course"


def _cell_seconds(nb: object) -> float:
    """The cells' own time, from nbclient's timing record of each cell."""
    total = 0.0
    for cell in nb.cells:   # type: ignore[attr-defined]
        timing = cell.get("metadata", {}).get("execution", {})
        start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        if start and end:
            total += (datetime.fromisoformat(end.replace("Z", "+00:00"))
                      - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()
    return total


def run(path: Path) -> dict[str, float]:
    import nbformat
    from topicsup.testing.notebooks import PatientClient as NotebookClient
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as where:
        start = time.perf_counter()
        NotebookClient(nb, kernel_name="python3", timeout=600, record_timing=True,
                       resources={"metadata": {"path": where}}).execute()
        wall = time.perf_counter() - start
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    checks = sum(c.source.count(".check_") for c in nb.cells if c.cell_type == "code")
    errors = text.count('"output_type": "error"')
    return {"seconds": wall, "cell_seconds": _cell_seconds(nb), "exercises": checks,
            "right": text.count("Right."), "errors": errors}


def main() -> int:
    rows = []
    for lesson in sorted(COURSE.glob("*.ipynb")):
        title = next(c.source.splitlines()[0].lstrip("# ").strip()
                     for c in __import__("nbformat").read(lesson, as_version=4).cells
                     if c.cell_type == "markdown")
        student = run(lesson)
        solved = run(COURSE / "solutions" / lesson.name)
        rows.append({"lesson": lesson.stem, "title": title,
                     "exercises": solved["exercises"],
                     "student_seconds": student["seconds"],
                     "student_cell_seconds": student["cell_seconds"],
                     "solutions_seconds": solved["seconds"],
                     "solutions_cell_seconds": solved["cell_seconds"],
                     "solutions_right": solved["right"],
                     "errors": student["errors"] + solved["errors"]})
        print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT / "timings.csv", index=False, float_format="%.2f")
    (OUT / "machine.json").write_text(json.dumps(
        {"python": platform.python_version(), "machine": platform.machine(),
         "processor": platform.processor() or "unknown",
         "date": datetime.now().date().isoformat()}, indent=1) + "\n")
    print(frame.to_string(index=False))
    return 0 if (frame["errors"] == 0).all() else 1


if __name__ == "__main__":
    sys.exit(main())
