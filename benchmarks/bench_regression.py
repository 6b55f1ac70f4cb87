"""Regression on a synthetic corpus with known weights: held-out predictive R^2 of topicsup's
regression models against the generating truth's (the true weights on the true topic
proportions of the same documents), and seconds per sweep.

    python benchmarks/bench_regression.py                 # writes results/regression/

The corpus is ``make_synthetic(task="real")`` (documents from known topics, a response
y = eta . theta + N(0, noise^2)); 400 documents train, 100 are held out. Models: ``SLDA``
(Gaussian response) and ``MedLDARegression`` (epsilon-insensitive), each with the Gibbs and
the light topic sampler, over seeds and two noise levels.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np
import pandas as pd

from topicsup.corpus import Corpus
from topicsup.models import SupervisedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.tasks import r_squared

OUT = Path(__file__).resolve().parent / "results" / "regression"
LOSSES = {"gaussian": dict(loss="gaussian", sigma2=0.5),
          "epsilon_insensitive": dict(loss="epsilon_insensitive", lam=1.5, eps=0.1)}


def split(data, n_train: int):
    c = data.corpus

    def sub(rows):
        docs = Corpus.from_matrix(c.to_matrix()[rows], c.vocabulary, empty="keep")
        return dataclasses.replace(docs, labels=c.labels.take(rows))
    rows = np.arange(c.n_docs)
    return sub(rows[:n_train]), sub(rows[n_train:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--noise", type=float, nargs="+", default=[0.3, 1.0])
    ap.add_argument("--sweeps", type=int, default=60)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    rows = []
    for noise in args.noise:
        for seed in args.seeds:
            data = make_synthetic(n_docs=500, n_topics=5, doc_length=60, task="real",
                                  noise=noise, seed=seed)
            train, test = split(data, 400)
            oracle = r_squared(test.labels.values, data.scores[400:, 0])
            for loss, kw in LOSSES.items():
                for sampler in ("gibbs", "light"):
                    weights = "cholesky" if sampler == "gibbs" else "coordinate"
                    model = SupervisedLDA(K=5, sampler=sampler, weight_sampler=weights,
                                          burn_in=args.sweeps // 3, **kw)
                    s = Session(model, train, seed=seed, log_joint_every=0)
                    t0 = time.perf_counter()
                    s.run(args.sweeps)
                    seconds = (time.perf_counter() - t0) / args.sweeps
                    r2 = s.score(test)
                    rows.append(dict(noise=noise, seed=seed, loss=loss, sampler=sampler,
                                     r2=r2, oracle_r2=oracle, ratio=r2 / oracle,
                                     seconds_per_sweep=seconds))
                    print(f"noise={noise} seed={seed} {loss:20s} {sampler:6s} R2={r2:.4f} "
                          f"oracle={oracle:.4f} ratio={r2 / oracle:.3f}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(rows)
    df.to_csv(out / "regression_runs.csv", index=False)
    table = df.groupby(["noise", "loss", "sampler"]).agg(
        r2=("r2", "mean"), oracle_r2=("oracle_r2", "mean"), ratio=("ratio", "mean"),
        min_ratio=("ratio", "min"), seconds=("seconds_per_sweep", "median")).reset_index()
    lines = ["| noise | loss | sampler | R^2 | truth's R^2 | ratio | min ratio | s / sweep |",
             "|---:|---|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.noise} | {r.loss} | {r.sampler} | {r.r2:.4f} | {r.oracle_r2:.4f} | "
              f"{r.ratio:.3f} | {r.min_ratio:.3f} | {r.seconds:.4f} |"
              for r in table.itertuples()]
    (out / "regression.md").write_text(
        "# Regression on a synthetic corpus with known weights\n\n"
        f"    python benchmarks/bench_regression.py --seeds {' '.join(map(str, args.seeds))} "
        f"--noise {' '.join(map(str, args.noise))} --sweeps {args.sweeps}\n\n"
        "Held-out R^2 (100 documents), the generating truth's R^2 on them, and the ratio; "
        "the ratio's mean and min over seeds.\n\n" + "\n".join(lines) + "\n")
    print(f"wrote {out}/regression_runs.csv, regression.md")


if __name__ == "__main__":
    main()
