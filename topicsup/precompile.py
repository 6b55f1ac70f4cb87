"""Compile the kernels of the models ahead: ``python -m topicsup.precompile``.

numba keeps compiled kernels on disk, so a fresh environment pays compilation once: run this
after installing (the README's demo command does) and the first sweep of every listed model,
in any later process, starts in a fraction of a second. ``--measure`` times each model's
first run in a fresh environment (a new process with an empty numba cache), the numbers
``topicsup.warmup.FIRST_RUN_SECONDS`` quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

from . import models
from .datasets import make_synthetic
from .session import Session
from .synthetic import Task

# the models the demo and the quickstart run (the default), and every model
DEMO_MODELS = ("LDA", "LightMedLDA")
ALL_MODELS = ("LDA", "LightMedLDA", "MedLDA", "GSLDA", "LightSLDA", "SLDA", "MedLDARegression",
              "DOLDA", "MCMedLDA", "PDPLDA", "HDPLDA")
# the label task each model's warm-up corpus needs
_TASKS: dict[str, Task] = {"MedLDARegression": "real", "SLDA": "real", "DOLDA": "multiclass"}


def warm(name: str) -> float:
    """Compile ``name``'s kernels in this process (a warm-up on a small synthetic corpus of
    the task the model fits); returns the seconds from creating the Session to the end."""
    model: Any = getattr(models, name)
    data = make_synthetic(n_docs=64, n_topics=4, doc_length=30,
                          task=_TASKS.get(name, "binary"), seed=0)
    start = time.perf_counter()
    session = Session(model(K=4), data.corpus, seed=0)
    done = session.compile_ahead(background=False)
    if done.error is not None:
        raise done.error
    return time.perf_counter() - start


def measure(name: str) -> float:
    """The first-run compilation time of ``name`` in a fresh environment: a new process with
    an empty numba cache (its own temporary directory)."""
    with tempfile.TemporaryDirectory() as cache:
        out = subprocess.run(
            [sys.executable, "-m", "topicsup.precompile", "--json", name],
            env={**os.environ, "NUMBA_CACHE_DIR": cache}, capture_output=True, text=True,
            check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])[name])


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(prog="python -m topicsup.precompile", description=__doc__)
    parser.add_argument("models", nargs="*", help=f"model classes (default: the demo's, "
                        f"{', '.join(DEMO_MODELS)})")
    parser.add_argument("--all", action="store_true", help="every model")
    parser.add_argument("--measure", action="store_true",
                        help="time each first run in a fresh process with an empty cache")
    parser.add_argument("--json", action="store_true", help="print the seconds as JSON")
    args = parser.parse_args(argv)
    names = ALL_MODELS if args.all else tuple(args.models) or DEMO_MODELS
    unknown = [n for n in names if n not in ALL_MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; choose from {list(ALL_MODELS)}")
    seconds = {}
    for name in names:
        if not args.json:
            print(f"compiling {name} ...", end=" ", flush=True)
        seconds[name] = measure(name) if args.measure else warm(name)
        if not args.json:
            print(f"{seconds[name]:.1f} s", flush=True)
    if args.json:
        print(json.dumps(seconds))
    return seconds


if __name__ == "__main__":
    main()
