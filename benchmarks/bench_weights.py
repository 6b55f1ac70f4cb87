"""The exact weight draw (``kernels.weights.cholesky_weights``) with many tasks sharing w, as
DOLDA's 240 classes do (the DO-probit's w = c for every class): one X^T X for all tasks
against one per task, the code before it (the same bits; ``tests/kernels/test_weights.py``).

    python benchmarks/bench_weights.py            # ~1 minute, 2 numba threads

Features as DOLDA's at 10^5 documents: K = 50 topic shares (12 non-zero a document, as after
burn-in) and an intercept, M = 51; T = 240 tasks. Each is timed three times after one call
that compiles it; the median is reported. Writes ``results/weights/gram.csv``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from topicsup.kernels.rng import seed_state
from topicsup.kernels.weights import (cholesky_weights, column_scores, gaussian_weights,
                                      precision_and_shift, rows_to_columns, sparse_rows)

OUT = Path(__file__).resolve().parent / "results" / "weights"


@njit(cache=True)
def per_task(row_ptr, cols, vals, b, w, prior, eta, scores, rng):   # the code before
    col_ptr, rows, cvals = rows_to_columns(row_ptr, cols, vals, eta.shape[1])
    for t in range(eta.shape[0]):
        P, r = precision_and_shift(row_ptr, cols, vals, b[t], w[t], prior[t])
        gaussian_weights(P, r, rng, eta[t])
    column_scores(col_ptr, rows, cvals, eta, scores)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--tasks", type=int, default=240)
    args = ap.parse_args()
    rs = np.random.default_rng(0)
    D, K, T = args.docs, 50, args.tasks
    X = np.zeros((D, K + 1))
    for d in range(D):
        X[d, rs.choice(K, 12, replace=False)] = rs.dirichlet(np.ones(12))
    X[:, K] = 1.0
    rows = sparse_rows(X)
    b, w = rs.normal(size=(T, D)), np.ones((T, D))
    prior = rs.gamma(2.0, size=(T, K + 1))
    out, draws = [], {}
    for name, fn in (("one X^T X a task (before)", per_task),
                     ("one X^T X for all tasks", cholesky_weights)):
        eta, scores = np.zeros((T, K + 1)), np.zeros((T, D))
        fn(*rows, b, w, prior, eta, scores, seed_state(1))   # compiles
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn(*rows, b, w, prior, eta, scores, seed_state(1))
            times.append(time.perf_counter() - t0)
        draws[name] = eta.copy()
        out.append({"code": name, "documents": D, "tasks": T, "features": K + 1,
                    "seconds": float(np.median(times))})
        print(f"{name}: {np.median(times):.3f} s", flush=True)
    a, c = draws.values()
    assert np.array_equal(a, c), "the two draws differ"
    OUT.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(out).to_csv(OUT / "gram.csv", index=False)


if __name__ == "__main__":
    main()
