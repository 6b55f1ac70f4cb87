"""Defaults by measurement: what a user who changes nothing gets, against the settings the
benchmarks use, on the 20-class 20 Newsgroups task, one core.

    taskset -c 1 python benchmarks/bench_defaults.py      # ~15 min; results/defaults/

Two questions, each answered with test accuracy against seconds:

* **prediction** (``--part prediction``): one LightMedLDA chain per seed (K = 50, lambda =
  102.4, nu = 4096, alpha = 0.5, ``--sweeps`` sweeps, topic snapshots kept 2 sweeps apart at
  the end), scored with every fold-in setting of the grid (burn-in, kept sweeps, snapshots):
  the same chain, so differences are the prediction's alone. Seconds are the fold-in's.
* **model** (``--part model``): the hinge presets with the loss and prior settings a user
  may leave alone (lambda, nu, alpha), each trained ``--sweeps`` sweeps and scored after
  half of them and at the end with fold-in 10 + 10 and 30 + 30 (one snapshot). Seconds are
  the training's.

* **shipped** (``--part shipped``): ``Session(LightMedLDA(K=50))`` and ``MedLDA(K=50)`` with
  every default, ``--sweeps`` sweeps, then ``Session.score`` with its defaults: what a user
  who changes nothing gets.

Writes ``prediction.csv``, ``model.csv``, ``shipped.csv`` and ``defaults.md`` (a part not run
is read back from its csv; ``commands.txt`` lists the commands run).
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
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.models import LightMedLDA, MedLDA  # noqa: E402
from topicsup.newsgroups import load_20newsgroups  # noqa: E402
from topicsup.session import Session  # noqa: E402

K = 50
# (burn-in, kept, snapshots) of the prediction grid
FOLD_IN = ((10, 10, 1), (20, 20, 1), (30, 30, 1), (50, 50, 1), (10, 10, 5), (30, 30, 5))
# the model part: name -> (preset, settings); "shipped" is what a user who changed nothing got
# before this measurement (lam = 1 was the hinge presets' default then)
MODELS = {
    "LightMedLDA shipped (lam 1, nu 1)": (LightMedLDA, {"lam": 1.0}),   # the old defaults
    "LightMedLDA lam 102.4, nu 1": (LightMedLDA, {"lam": 102.4}),
    "LightMedLDA lam 102.4, nu 4096": (LightMedLDA, {"lam": 102.4, "nu": 4096.0}),
    "LightMedLDA lam 102.4, nu 4096, alpha 0.5": (LightMedLDA, {"lam": 102.4, "nu": 4096.0,
                                                                "alpha": 0.5}),
    "MedLDA shipped (lam 1, nu 1)": (MedLDA, {"lam": 1.0}),
    "MedLDA lam 102.4, nu 4096": (MedLDA, {"lam": 102.4, "nu": 4096.0}),
}


def accuracy(model, state, problem, test, rng_seed: int, snapshots, n_burn: int, n_keep: int):
    t0 = time.perf_counter()
    scores = model.ensemble_scores(state, problem, test, seed_state(rng_seed, stream=99),
                                   snapshots, n_burn, n_keep)
    seconds = time.perf_counter() - t0
    return float(np.mean(scores.argmax(axis=1) == test.labels.values)), seconds


def prediction(train, test, seeds, sweeps: int) -> pd.DataFrame:
    rows = []
    for seed in seeds:
        model = LightMedLDA(K=K, lam=102.4, nu=4096.0, alpha=0.5, beta=0.01,
                            burn_in=sweeps // 2)
        s = Session(model, train, seed=seed, log_joint_every=0)
        s.run(sweeps - 8)
        snaps = [model.topic_snapshot(s.state, s.problem)]
        for _ in range(4):       # snapshots at sweeps - 8, ..., sweeps, 2 apart
            s.run(2)
            snaps.append(model.topic_snapshot(s.state, s.problem))
        for n_burn, n_keep, n_snap in FOLD_IN:
            acc, sec = accuracy(model, s.state, s.problem, test, seed, snaps[-n_snap:], n_burn,
                                n_keep)
            rows.append({"seed": seed, "n_burn": n_burn, "n_keep": n_keep, "snapshots": n_snap,
                         "accuracy": acc, "fold_in_seconds": sec})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def models(train, test, seeds, sweeps: int) -> pd.DataFrame:
    rows = []
    for name, (Preset, kw) in MODELS.items():
        for seed in seeds:
            model = Preset(K=K, beta=0.01, burn_in=sweeps // 2, **kw)
            s = Session(model, train, seed=seed, log_joint_every=0)
            for upto in (sweeps // 2, sweeps):
                s.run(upto - s.n_sweeps)
                seconds = float(s.history.loc[s.history["metric"] == "seconds", "value"].sum())
                snap = [model.topic_snapshot(s.state, s.problem)]
                for n_burn, n_keep in ((10, 10), (30, 30)):
                    acc, _ = accuracy(model, s.state, s.problem, test, seed, snap, n_burn, n_keep)
                    rows.append({"model": name, "seed": seed, "sweeps": upto,
                                 "train_seconds": seconds, "fold_in": f"{n_burn}+{n_keep}",
                                 "accuracy": acc})
                    print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def shipped(train, test, seeds, sweeps: int) -> pd.DataFrame:
    """What a user who changes nothing but K and the sweeps gets: the preset's defaults, then
    ``Session.score`` with its own."""
    rows = []
    for Preset in (LightMedLDA, MedLDA):
        for seed in seeds:
            s = Session(Preset(K=K), train, seed=seed, log_joint_every=0)
            s.run(sweeps)
            t0 = time.perf_counter()
            acc = s.score(test)
            rows.append({"model": f"{Preset.__name__}(K={K})", "seed": seed,
                         "accuracy": acc, "score_seconds": time.perf_counter() - t0,
                         "train_seconds": float(s.history.loc[s.history["metric"] == "seconds",
                                                              "value"].sum())})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def _section(df: pd.DataFrame | None, title: str, keys: list[str], names: list[str],
             seconds: dict[str, str]) -> list[str]:
    """A markdown table of ``df`` by ``keys``: accuracy mean ± sd over seeds, the number of
    seeds and the mean of each ``seconds`` column (name -> heading)."""
    if df is None or not len(df):
        return []
    g = df.groupby(keys, sort=False).agg(
        acc=("accuracy", "mean"), sd=("accuracy", "std"), seeds=("seed", "count"),
        **{c: (c, "mean") for c in seconds}).reset_index()
    head = [*names, "accuracy", "seeds", *seconds.values()]
    rows = [[*(str(getattr(r, k)) for k in keys), f"{r.acc:.4f} ± {r.sd:.4f}", str(r.seeds),
             *(f"{getattr(r, c):.1f}" for c in seconds)] for r in g.itertuples()]
    return [f"## {title}", "", "| " + " | ".join(head) + " |",
            "|" + "|".join("---" for _ in head) + "|",
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def markdown(pred: pd.DataFrame | None, mod: pd.DataFrame | None, command: str,
             ship: pd.DataFrame | None = None) -> str:
    return "\n".join([
        "# Defaults by measurement (20 Newsgroups, 20 classes, K = 50)", "",
        f"    {command}", "", f"Date: {_dt.date.today()}  ", f"CPU: {cpu_model()}  ",
        f"Versions: {versions()}", "",
        *_section(pred, "Prediction: fold-in settings on the same chains",
                  ["n_burn", "n_keep", "snapshots"], ["burn-in", "kept", "snapshots"],
                  {"fold_in_seconds": "fold-in s"}),
        *_section(mod, "Model settings (one snapshot)", ["model", "sweeps", "fold_in"],
                  ["model", "sweeps", "fold-in"], {"train_seconds": "training s"}),
        *_section(ship, "The defaults as shipped (`Session(Preset(K=50)).run(sweeps)`, then "
                  "`Session.score`)", ["model"], ["model"],
                  {"train_seconds": "training s", "score_seconds": "score s"})])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--part", nargs="+", default=["prediction", "model", "shipped"],
                   choices=["prediction", "model", "shipped"])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    p.add_argument("--sweeps", type=int, default=60)
    p.add_argument("--data", default=None, help="path to 20news-bydate.tar.gz")
    p.add_argument("--out", default=str(DEFAULT_OUT / "defaults"))
    args = p.parse_args(argv)
    archive = archive_or_skip(args.data)
    if archive is None:
        return 0
    train = load_20newsgroups("train", path=archive)
    test = load_20newsgroups("test", path=archive)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # a part not run is read back from an earlier run's file, so defaults.md shows all three
    def part(name: str, fn) -> pd.DataFrame | None:
        path = out / f"{name}.csv"
        if name in args.part:
            df = fn(train, test, args.seeds, args.sweeps)
            df.to_csv(path, index=False)
            return df
        return pd.read_csv(path) if path.exists() else None
    pred, mod = part("prediction", prediction), part("model", models)
    ship = part("shipped", shipped)
    # paths relative to where it ran: a results file holds no machine's absolute path
    command = "python benchmarks/bench_defaults.py " + shlex.join(
        os.path.relpath(a) if os.path.isabs(a) else a for a in (argv or sys.argv[1:]))
    with open(out / "commands.txt", "a") as f:
        f.write(command.strip() + "\n")
    commands = (out / "commands.txt").read_text().strip().splitlines()
    (out / "defaults.md").write_text(markdown(pred, mod, "\n    ".join(commands), ship))
    print((out / "defaults.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
