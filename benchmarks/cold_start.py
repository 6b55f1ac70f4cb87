"""Time from the first Run click to the first chart in a fresh environment (issue 38).

Each case runs in a new process with an empty numba cache (its own temporary
``NUMBA_CACHE_DIR``): the quickstart's dashboard (LightMedLDA, K = 6, the demo corpus) is
shown, Run is clicked after ``delay`` seconds (the teacher talking), and the script reports
when the status line first says "compiling kernels" and when the chart first holds a sweep.
"before" is the same code with the dashboard's compile-ahead switched off (the behaviour
before ``Session.compile_ahead``).

    python benchmarks/cold_start.py            # before 0 s, after 0 s, after 5 s
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

CASES = (("before", 0.0), ("after", 0.0), ("after", 5.0))


def one(mode: str, delay: float) -> str:
    from topicsup.datasets import load_demo_corpus
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    from topicsup.widgets.dashboard import Dashboard
    if mode == "before":
        Dashboard._compile_ahead = lambda self: None   # type: ignore[method-assign]
    corpus = load_demo_corpus().corpus
    live = Session(LightMedLDA(K=6, lam=4.0), corpus, seed=1)
    dash = Dashboard(live, sweeps=300)
    time.sleep(delay)
    seen: dict[str, float] = {}

    def watch(change: dict[str, str]) -> None:
        if "compiling kernels" in change["new"]:
            seen.setdefault("message", time.monotonic())
    dash.status.observe(watch, names="value")
    click = time.monotonic()
    dash.run()
    while not any("sweep" in r for d in dash.chart.spec.get("datasets", {}).values()
                  for r in d):
        time.sleep(0.02)
    chart = time.monotonic()
    dash.pause()
    dash.wait()
    message = f"{seen['message'] - click:.2f} s" if "message" in seen else "never"
    return (f"{mode:6s} Run clicked {delay:.0f} s after the dashboard: first chart "
            f"{chart - click:.2f} s after the click; compiling message: {message}")


def main() -> None:
    if len(sys.argv) == 3:
        print(one(sys.argv[1], float(sys.argv[2])))
        return
    for mode, delay in CASES:
        with tempfile.TemporaryDirectory() as cache:
            out = subprocess.run([sys.executable, __file__, mode, str(delay)],
                                 env={**os.environ, "NUMBA_CACHE_DIR": cache},
                                 capture_output=True, text=True, check=True)
        print(out.stdout.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
