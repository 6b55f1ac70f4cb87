"""``kernels.fmath``'s exp and log against the C library's (numba's ``math.exp``/``math.log``):
nanoseconds per call in a numba loop over 5 million arguments, and the largest error in units
in the last place against ``decimal``'s correctly rounded values over 20,000 of them.

    python benchmarks/bench_fmath.py

Prints a markdown table (one core; the median of 5 timed passes after a warm-up).
"""

from __future__ import annotations

import math
import os
import time
from decimal import Decimal, localcontext

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from topicsup.kernels import fmath  # noqa: E402


def _loop(f):
    @njit
    def run(x, out):
        for i in range(x.shape[0]):
            out[i] = f(x[i])
    return run


def _ns(run, x) -> float:
    out = np.empty_like(x)
    run(x, out)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        run(x, out)
        times.append(time.perf_counter() - t)
    return float(np.median(times)) / x.size * 1e9


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.abs(a.view(np.int64) - b.view(np.int64)).max())


def main() -> None:
    rs = np.random.default_rng(0)
    args = {"exp": rs.uniform(-50.0, 50.0, 5_000_000),
            "log": np.exp(rs.uniform(-700.0, 700.0, 5_000_000))}
    exact = {"exp": lambda v: Decimal(v).exp(), "log": lambda v: Decimal(v).ln()}
    ours = {"exp": fmath.exp, "log": fmath.log}
    libm = {"exp": math.exp, "log": math.log}
    print("| function | fmath ns/call | C library ns/call | fmath max ulp | C library max ulp |")
    print("|---|---:|---:|---:|---:|")
    for name, x in args.items():
        a, b = _loop(ours[name]), _loop(libm[name])
        sub = x[:20_000]
        with localcontext() as ctx:
            ctx.prec = 40
            ref = np.array([float(exact[name](v)) for v in sub])
        oa, ob = np.empty_like(sub), np.empty_like(sub)
        a(sub, oa)
        b(sub, ob)
        print(f"| {name} | {_ns(a, x):.2f} | {_ns(b, x):.2f} | {_ulps(oa, ref)} | "
              f"{_ulps(ob, ref)} |")


if __name__ == "__main__":
    main()
