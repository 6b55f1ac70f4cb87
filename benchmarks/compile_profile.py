"""Where a model's first sweep spends its compilation (issue 50, item 6: the cold start).

In a new process with an empty numba cache (``NUMBA_CACHE_DIR``, a fresh temporary
directory), ``Session(model(K=20), demo corpus).run(1)`` with numba's compile events recorded
(``numba.core.event``): each compiled function's seconds, nested (``depth`` 0: compiled
because the sweep called it; deeper: compiled for its caller), so the functions that make a
cold start slow are named. ``benchmarks/first_run.py`` times the cold start itself.

    python benchmarks/compile_profile.py DOLDA LightMedLDA
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "compile_profile"


def profile(name: str) -> list[dict[str, object]]:
    """In this process (an empty cache): the compile spans of ``name``'s first sweep."""
    from numba.core import event

    from topicsup import models
    from topicsup.datasets import load_demo_corpus
    from topicsup.session import Session
    corpus = load_demo_corpus().corpus
    with event.install_recorder("numba:compile") as rec:
        t0 = time.perf_counter()
        Session(getattr(models, name)(K=20), corpus, seed=0).run(1)
        total = time.perf_counter() - t0
    starts: dict[tuple[int, str], tuple[float, int]] = {}
    rows: list[dict[str, object]] = []
    depth = 0
    for ts, ev in rec.buffer:
        key = (id(ev.data["dispatcher"]), str(ev.data["args"]))
        if ev.is_start:
            starts[key] = (ts, depth)
            depth += 1
            continue
        depth -= 1
        t, d = starts.pop(key)
        fn = ev.data["dispatcher"].py_func
        rows.append({"model": name, "function": f"{fn.__module__}.{fn.__name__}",
                     "depth": d, "seconds": round(ts - t, 3)})
    rows.append({"model": name, "function": "(first sweep, from the Session's creation)",
                 "depth": -1, "seconds": round(total, 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.inner:
        print(json.dumps(profile(args.models[0])))
        return 0
    rows = []
    for name in args.models:
        env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-cold-")}
        out = subprocess.run([sys.executable, __file__, name, "--inner"], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True)
        rows += json.loads(out.stdout.strip().splitlines()[-1])
    df = pd.DataFrame(rows).sort_values(["model", "seconds"], ascending=[True, False])
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "spans.csv", index=False)
    for name, part in df.groupby("model"):
        print(f"{name}:")
        for r in part[part.seconds >= 0.3].itertuples():
            print(f"  {r.seconds:7.2f} s  depth {r.depth:2d}  {r.function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
