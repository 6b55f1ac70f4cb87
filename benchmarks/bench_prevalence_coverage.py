"""Coverage of the prevalence-by-class intervals on corpora the model did not generate (issue
50, item 1): the old recipe (LDA, then ``PrevalenceDraws``) against DMR, whose prior on theta
depends on the class, on the two generators of ``topicsup.testing.coverage`` (class-dependent
logistic-normal proportions; per-class Dirichlet proportions with 15% of the labels wrong).

Each replication fits the model (200 sweeps burned, 400 kept), takes the 90% intervals of the
classes' mean theta and counts the cells (3 classes x 3 topics) that hold the in-sample truth.

    python benchmarks/bench_prevalence_coverage.py                  # 200 replications each
                                                   # (about 15 min)
    python benchmarks/bench_prevalence_coverage.py --replications 20  # a quick look
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import itertools  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import cpu_model, versions  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "prevalence_coverage"
SEED0 = 20_000   # the test's replications use other seeds (tests/test_prevalence.py)


def models() -> dict[str, object]:
    from topicsup import DMR, LDA
    from topicsup.testing.coverage import BETA, K
    return {
        # the old recipe, as docs/prevalence.md's known-truth test runs it
        "LDA(alpha=0.5)": lambda: LDA(K=K, alpha=0.5, beta=BETA, sampler="gibbs"),
        "DMR()": lambda: DMR(K=K, beta=BETA),                # the defaults: sigma = 3
        "DMR(sigma=1)": lambda: DMR(K=K, beta=BETA, sigma=1.0),   # tomotopy's prior
    }


# (tokens per document, class strength): the generators' default, shorter documents, a
# stronger class effect, short documents
REGIMES = [((60, 101), 1.6), ((30, 61), 1.6), ((30, 61), 3.0), ((10, 31), 1.6)]


def write_readme(df: pd.DataFrame, out: Path, argv: list[str]) -> None:
    """The results as a table, with the machine, the date and the command."""
    cmd = " ".join(shlex.quote(a) for a in
                   ["python", f"benchmarks/{Path(__file__).name}", *argv])
    lines = ["# Prevalence by class: coverage of the 90% intervals on corpora no topic model "
             "generated", "",
             "Generators of `topicsup.testing.coverage`; the estimand is each class's "
             "in-sample mean of the true theta (3 classes x 3 topics per replication); `se` is "
             "the standard error of the mean of the per-replication rates.", "",
             "| tokens | strength | generator | model | replications | cells | coverage | se |",
             "|---|---:|---|---|---:|---:|---:|---:|"]
    lines += [f"| {r.tokens} | {r.strength} | {r.generator} | {r.model} | {r.replications} "
              f"| {r.cells} | {r.coverage:.3f} | {r.se:.3f} |" for r in df.itertuples()]
    lines += ["", f"- Machine: {cpu_model()}; versions: "
              + ", ".join(f"{k} {v}" for k, v in versions().items()),
              f"- Date: {_dt.datetime.now().isoformat(timespec='seconds')}",
              f"- Command: `{cmd}`"]
    (out / "README.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    from topicsup.testing.coverage import GENERATORS, replicate
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for (lengths, strength), generator in itertools.product(REGIMES, GENERATORS):
        for name, make in models().items():
            t0 = time.perf_counter()
            hits = np.stack([replicate(SEED0 + r, generator, make(), lengths=lengths,
                                       strength=strength).ravel()
                             for r in range(args.replications)])
            rates = hits.mean(axis=1)
            rows.append({"tokens": f"{lengths[0]}-{lengths[1] - 1}", "strength": strength,
                         "generator": generator, "model": name,
                         "replications": args.replications, "cells": hits.size,
                         "coverage": round(float(hits.mean()), 3),
                         "se": round(float(rates.std(ddof=1) / np.sqrt(len(rates))), 3),
                         "seconds": round(time.perf_counter() - t0, 1)})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "coverage.csv", index=False)
    write_readme(df, args.out, argv if argv is not None else sys.argv[1:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
