"""What a first ``Session(model(K=20), corpus).run(1)`` costs in a fresh environment (issue 39).

Each measurement is a new process with its own empty numba cache (``NUMBA_CACHE_DIR``), on the
bundled demo corpus, timing from creating the Session to the end of the first sweep (numba
compiling the kernels is nearly all of it):

* ``cold``: nothing compiled yet (``pip install topicsup`` and straight to a notebook);
* ``after demo``: the same fresh cache after the README's demo command
  (``python -m topicsup.demo``, which compiles LDA's and LightMedLDA's kernels while it
  samples, and numba keeps them on disk), then a new process: the newcomer's first session.
  The demo's own time is reported too.

``--source DIR`` measures another checkout (an older commit: ``git worktree add DIR REV``)
with the same code here, for before/after numbers on one machine; ``--repeat R`` measures
each case R times and reports the median (compile times vary by up to 1.7x between runs);
``--out DIR`` writes the rows to ``DIR/first_run.csv`` (appending to the rows of other models,
sources and cases already there) with ``meta.json``. Run on an idle machine:

    python benchmarks/first_run.py                      # LDA and LightMedLDA
    python benchmarks/first_run.py MedLDA GSLDA DOLDA HDPLDA
    python benchmarks/first_run.py --source /tmp/old --cases cold
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def first_run(name: str) -> float:
    """In this process: seconds from Session creation to the end of the first sweep."""
    from topicsup import models
    from topicsup.datasets import load_demo_corpus
    from topicsup.session import Session
    corpus = load_demo_corpus().corpus
    model = getattr(models, name)(K=20)
    start = time.perf_counter()
    Session(model, corpus, seed=0).run(1)
    return time.perf_counter() - start


def _python(args: list[str], cache: str, source: Path, cwd: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(source)}
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, check=True)


def measure(name: str, case: str, source: Path) -> dict[str, float | str]:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        row: dict[str, float | str] = {"model": name, "case": case}
        if case == "after demo":
            start = time.perf_counter()
            _python(["-m", "topicsup.demo", "--out", str(Path(work) / "demo.html")], cache,
                    source, work)
            row["demo_s"] = round(time.perf_counter() - start, 2)
        out = _python([__file__, "--inner", name], cache, source, work)
        row["first_run_s"] = round(float(out.stdout.strip().splitlines()[-1]), 2)
        return row


def main(argv: list[str] | None = None) -> list[dict[str, float | str]]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=["LDA", "LightMedLDA"])
    parser.add_argument("--cases", nargs="+", default=["cold", "after demo"],
                        choices=["cold", "after demo"])
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the checkout whose topicsup is measured (default: this one)")
    parser.add_argument("--label", default=None,
                        help="the name of the source in the rows (default: 'this checkout' "
                             "or --source's folder name)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from topicsup.precompile import ALL_MODELS
    unknown = [m for m in args.models if m not in ALL_MODELS]
    if unknown:   # checked here, not as a traceback from a child process
        parser.error(f"unknown models {unknown}; choose from {list(ALL_MODELS)}")
    if args.inner:
        print(first_run(args.inner))
        return []
    label = args.label or ("this checkout" if args.source.resolve() == ROOT
                           else args.source.resolve().name)
    rows = []
    for name in args.models:
        for case in args.cases:
            runs = [measure(name, case, args.source.resolve()) for _ in range(args.repeat)]
            row = {**runs[0], "source": label, "runs": len(runs),
                   "first_run_s": round(statistics.median(r["first_run_s"] for r in runs), 2),
                   "all_s": " ".join(str(r["first_run_s"]) for r in runs)}
            if "demo_s" in row:
                row["demo_s"] = round(statistics.median(r["demo_s"] for r in runs), 2)
            rows.append(row)
            print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        write(args.out, rows, argv if argv is not None else sys.argv[1:])
    return rows


def write(out: Path, rows: list[dict[str, float | str]], argv: list[str]) -> None:
    """Append ``rows`` to ``out/first_run.csv`` (a row of the same model, case and source is
    replaced) and the command to ``out/meta.json``."""
    import pandas as pd
    out.mkdir(parents=True, exist_ok=True)
    path = out / "first_run.csv"
    new = pd.DataFrame(rows)
    if path.exists():
        old = pd.read_csv(path)
        keys = ["model", "case", "source"]
        old = old[~old.set_index(keys).index.isin(new.set_index(keys).index)]
        new = pd.concat([old, new], ignore_index=True)
    new.to_csv(path, index=False)
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"commands": []}
    # another checkout's path is this machine's: written as SOURCE (--label names its commit)
    command = "python " + shlex.join(["benchmarks/first_run.py",
                                      *("SOURCE" if os.path.isabs(a) else a for a in argv)])
    meta["commands"] = [c for c in meta["commands"] if c != command] + [command]
    # imported here, after the children ran: bench_lda sets NUMBA_NUM_THREADS on import
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_lda import cpu_model
    meta.update(date=_dt.datetime.now().isoformat(timespec="seconds"),
                machine=f"{cpu_model()}, {os.cpu_count()} cores",
                python=platform.python_version())
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
