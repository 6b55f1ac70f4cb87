"""Where a supervised sweep spends its time: seconds per step (topics, weights, the loss's
augmentation, the prior), the split of Zhu, Zheng, Zhang 2013 Table 1, one core.

    taskset -c 1 python benchmarks/bench_step_time.py      # ~5 min; results/step_time/

Zhu et al. time gSLDA+ (c = 256) on 20 Newsgroups, one-vs-all: 20 binary models, each on all
training documents, K in {20, 30, 40, 50}. Here one of those binary models (class 0 against
the rest; every one of the 20 costs the same, their topic counts are equally sized) for each
model below, ``--sweeps`` sweeps after ``--warmup`` untimed ones, from the Session's history
rows ``seconds_<step>`` (``topicsup.views.step_time_chart`` draws them):

* ``GSLDA.plus(c=256)``: the paper's gSLDA+ (Gibbs topics, Cholesky weights, Polya-Gamma
  augmentation with the package's hybrid draws at h = 256);
* ``GSLDA.plus()``: the preset's c = 25, whose Polya-Gamma draws are exact (Devroye, a
  sum of c PG(1, s) draws: the cost the paper's Table 1 shows);
* ``LightSLDA(c=256)``: the same loss with light topics and coordinate weights;
* ``MedLDA`` and ``LightMedLDA``: the hinge (lambda = 102.4, nu = 4096, as the supervised
  benchmark), whose augmentation is an inverse-Gaussian draw per document.

Writes ``step_time.csv`` (median seconds per sweep per step) and ``step_time.md``.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

from topicsup.estimators import one_vs_rest  # noqa: E402
from topicsup.models import GSLDA, LightMedLDA, LightSLDA, MedLDA  # noqa: E402
from topicsup.newsgroups import load_20newsgroups  # noqa: E402
from topicsup.session import Session  # noqa: E402
from topicsup.history import STEP_SECONDS  # noqa: E402

STEPS = ("topics", "augmentation", "weights", "prior")
MODELS = {
    "gslda+ (c=256)": lambda K: GSLDA.plus(K=K, c=256.0, alpha=0.5, beta=0.01),
    "gslda+ (c=25, exact)": lambda K: GSLDA.plus(K=K, alpha=0.5, beta=0.01),
    "light-slda (c=256)": lambda K: LightSLDA(K=K, c=256.0, alpha=0.5, beta=0.01),
    "medlda": lambda K: MedLDA(K=K, lam=102.4, nu=4096.0, alpha=0.5, beta=0.01),
    "lightmedlda": lambda K: LightMedLDA(K=K, lam=102.4, nu=4096.0, alpha=0.5, beta=0.01),
}


def measure(model, corpus, sweeps: int, warmup: int, seed: int) -> dict[str, float]:
    s = Session(model, corpus, seed=seed, log_joint_every=0)
    s.run(warmup + sweeps)
    h = s.history[s.history["sweep"] > warmup]
    split = h[h["metric"].str.startswith(STEP_SECONDS)]
    med = split.groupby("metric")["value"].median()
    out = {step: float(med.get(STEP_SECONDS + step, 0.0)) for step in STEPS}
    out["sweep"] = float(h.loc[h["metric"] == "seconds", "value"].median())
    return out


def markdown(df: pd.DataFrame, command: str) -> str:
    out = ["# Seconds per sweep by step (one binary model of the 20-class one-vs-all task)", "",
           f"    {command}", "", f"Date: {_dt.date.today()}  ", f"CPU: {cpu_model()}  ",
           f"Versions: {versions()}", "",
           "Median seconds per sweep of each step, and its share of the sweep in brackets.", "",
           "| model | K | topics | augmentation | weights | prior | sweep |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in df.itertuples():
        cells = [f"{getattr(r, s):.4f} ({100 * getattr(r, s) / r.sweep:.1f}%)" for s in STEPS]
        out.append(f"| {r.model} | {r.K} | " + " | ".join(cells) + f" | {r.sweep:.3f} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ks", type=int, nargs="+", default=[20, 30, 40, 50])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--sweeps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None, help="path to 20news-bydate.tar.gz")
    p.add_argument("--out", default=str(DEFAULT_OUT / "step_time"))
    args = p.parse_args(argv)
    archive = archive_or_skip(args.data)
    if archive is None:
        return 0
    corpus = one_vs_rest(load_20newsgroups("train", path=archive), 0)
    rows = []
    for name in args.models:
        for K in args.ks:
            r = {"model": name, "K": K, **measure(MODELS[name](K), corpus, args.sweeps,
                                                   args.warmup, args.seed)}
            print({k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()},
                  flush=True)
            rows.append(r)
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "step_time.csv", index=False)
    command = "python benchmarks/bench_step_time.py " + shlex.join(argv or sys.argv[1:])
    (out / "step_time.md").write_text(markdown(df, command.strip()))
    print((out / "step_time.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
