"""Coverage of the prevalence-by-class intervals on corpora the model did not generate (issue
50, item 1): the old recipe (LDA, then ``PrevalenceDraws``) against DMR, whose prior on theta
depends on the class, on the two generators of ``topicsup.testing.coverage`` (class-dependent
logistic-normal proportions; per-class Dirichlet proportions with 15% of the labels wrong),
and the logistic-normal model (stm's prior on theta).

Each replication fits the model (200 sweeps burned, 400 kept), takes the 90% intervals of the
classes' mean theta and counts the cells (3 classes x 3 topics) that hold the in-sample truth.

    python benchmarks/bench_prevalence_coverage.py                  # 200 replications each
                                                   # (about 15 min)
    python benchmarks/bench_prevalence_coverage.py --replications 20  # a quick look
    python benchmarks/bench_prevalence_coverage.py --models "LogisticNormal()" --merge
                                                   # one model's rows, the others kept
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
    from topicsup import DMR, LDA, LogisticNormal
    from topicsup.testing.coverage import BETA, K
    return {
        # the old recipe, as docs/prevalence.md's known-truth test runs it
        "LDA(alpha=0.5)": lambda: LDA(K=K, alpha=0.5, beta=BETA, sampler="gibbs"),
        "DMR()": lambda: DMR(K=K, beta=BETA),                # the defaults: sigma = 3
        "DMR(sigma=1)": lambda: DMR(K=K, beta=BETA, sigma=1.0),   # tomotopy's prior
        # stm's prior on theta, exact; the defaults (noise InvGamma(2, 1)), then shape 1
        "LogisticNormal()": lambda: LogisticNormal(K=K, beta=BETA),
        "LogisticNormal(noise_shape=1)": lambda: LogisticNormal(K=K, beta=BETA,
                                                                noise_shape=1.0),
    }


# (tokens per document, class strength): the generators' default, shorter documents, a
# stronger class effect, short documents
REGIMES = [((60, 101), 1.6), ((30, 61), 1.6), ((30, 61), 3.0), ((10, 31), 1.6)]


def write_readme(df: pd.DataFrame, out: Path, argv: list[str], merged: bool = False) -> None:
    """The results as a table, with the machine, the date and the command (merged: the
    earlier runs' lines kept above this one's)."""
    earlier: list[str] = []
    if merged and (out / "README.md").exists():
        earlier = [line for line in (out / "README.md").read_text().splitlines()
                   if line.startswith(("- Date", "- Command", "- Earlier"))]
        earlier = [line if line.startswith("- Earlier") else "- Earlier: " + line[2:]
                   for line in earlier]
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
    lines += ["", *earlier, f"- Machine: {cpu_model()}; versions: "
              + ", ".join(f"{k} {v}" for k, v in versions().items()),
              f"- Date: {_dt.datetime.now().isoformat(timespec='seconds')}",
              f"- Command: `{cmd}`"]
    (out / "README.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    from topicsup.testing.coverage import GENERATORS, replicate
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--models", default=None,
                    help="comma-separated model names (default: every one); with --merge "
                         "their rows replace those in the existing coverage.csv")
    ap.add_argument("--merge", action="store_true")
    args = ap.parse_args(argv)
    chosen = models()
    if args.models:
        names = [m.strip() for m in args.models.split(",")]
        unknown = sorted(set(names) - set(chosen))
        if unknown:
            ap.error(f"--models: unknown {unknown}; known: {sorted(chosen)}")
        chosen = {n: chosen[n] for n in names}
    rows = []
    for (lengths, strength), generator in itertools.product(REGIMES, GENERATORS):
        for name, make in chosen.items():
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
    old = args.out / "coverage.csv"
    if args.merge and old.exists():   # the other models' rows kept, in the table's order
        kept = pd.read_csv(old)
        kept = kept[~kept["model"].isin(df["model"])]
        df = pd.concat([kept, df], ignore_index=True)
        order = {m: i for i, m in enumerate(models())}
        df["_r"] = [REGIMES.index(((int(t.split("-")[0]), int(t.split("-")[1]) + 1), s))
                    for t, s in zip(df["tokens"], df["strength"])]
        df["_g"] = df["generator"].map(GENERATORS.index)
        df["_m"] = df["model"].map(order)
        df = df.sort_values(["_r", "_g", "_m"]).drop(columns=["_r", "_g", "_m"])
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "coverage.csv", index=False)
    write_readme(df, args.out, argv if argv is not None else sys.argv[1:],
                 merged=args.merge and bool(args.models))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
