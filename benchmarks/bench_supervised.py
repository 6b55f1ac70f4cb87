"""Supervised topic models on 20 Newsgroups: test accuracy and training time, one core.

Run from the repository root with the project's virtualenv active::

    python benchmarks/bench_supervised.py                       # the full grid (hours)
    python benchmarks/bench_supervised.py --task binary         # binary task only (minutes)
    python benchmarks/bench_supervised.py --task multiclass --ks 100 200 --seeds 0 \\
        --methods light-mt gibbs-mt tomotopy

Tasks (topicsup's default preprocessing, vocabulary built on the training posts):

* ``binary``: alt.atheism vs talk.religion.misc (856 train / 569 test posts), K in
  {10, 20, 50, 100}; methods ``light-marg``, ``light``, ``light-cycle``, ``light-cycle-chol``
  (full-Gaussian Cholesky weights instead of coordinate Gibbs), ``gibbs``, ``gibbs-marg``,
  ``tomotopy``.
* ``multiclass``: all 20 newsgroups, K in {20, 50, 100, 200, 400}; methods ``light-mt-marg``,
  ``light-mt``, ``gibbs-mt``, ``gibbs-mt-marg`` (one model, 20 classifiers on shared topics,
  argmax rule; ``light-mt-cycle-shift`` also ends each coordinate pass with the weight-shift
  draw; ``light-mt-cycle-init`` and ``gibbs-mt-init`` start with 20 sweeps of plain LDA,
  ``lda_init_sweeps``, counted in ``--sweeps`` and in the training time), ``light-ovr-marg``,
  ``light-ovr`` and ``gibbs-ovr`` (20 binary models, one-vs-all, argmax rule), ``tomotopy``
  (``SLDAModel`` with one binary response per class, class = argmax of the estimates).

Method names (``method_settings`` spells each out, independent of the presets' defaults):
``light*`` is LightMedLDA as published (the augmented factor, a uniform mixture of the doc,
word and exp proposals; ``-cycle``: the three in turn) and ``light*-marg`` the marginal hinge
factor with doc and word proposals in turn (the ``LightMedLDA`` preset); ``gibbs*`` is Gibbs
MedLDA as published (augmented factor, Cholesky weights) and ``gibbs*-marg`` the same with the
marginal factor.

gSLDA (Zhu 2013), any task: ``gslda-c<c>`` (the logistic loss with constant c, Gibbs topics,
Cholesky weights), ``lightslda-c<c>`` (Light-sLDA: light topics, coordinate weights), either
with ``-ovr`` for one binary model per class; these use the unit-variance prior nu = 1.

Every hinge run uses lambda = 102.4 (binary: 262.4), nu = 4096, alpha = 6.4 / K (or
``--alpha``), beta = 0.01 (Zheng et al. 2015 sec. 5; nu = ell^2 converts the reference
implementation's margin ell = 64 with unit prior variance to topicsup's unit margin),
``--sweeps`` sweeps with the weights averaged over the second half, and fold-in prediction
(``--fold-in``, default 10 burn-in + 10 kept sweeps; the final prediction averages over
``--snapshots`` topic snapshots 2 sweeps apart). Training time is sampling time only: test accuracy is evaluated every
``--eval-every`` sweeps off the clock, which gives the accuracy-vs-time curves. tomotopy gets
the same alpha, beta and number of sweeps, one worker. Each (task, K, method) runs over
``--seeds``; the tables report mean and standard deviation.

Writes ``results/supervised_runs.csv`` (one row per run), ``results/supervised_curves.csv``
(accuracy vs training seconds) and ``results/supervised.md`` (tables with the command).
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

from topicsup.estimators import one_vs_rest  # noqa: E402
from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.models import GSLDA, LightMedLDA, LightSLDA, MedLDA  # noqa: E402
from topicsup.newsgroups import load_20newsgroups, load_20newsgroups_binary  # noqa: E402
from topicsup.session import Session  # noqa: E402
from topicsup.synthetic import make_synthetic  # noqa: E402

GRID = {"binary": ((10, 20, 50, 100), ("light-marg", "gibbs", "gibbs-marg", "light",
                                       "light-cycle", "light-cycle-chol", "tomotopy")),
        "multiclass": ((20, 50, 100, 200, 400),
                       ("light-mt-marg", "gibbs-mt", "gibbs-mt-marg", "light-mt",
                        "light-mt-cycle", "light-mt-cycle-shift", "light-mt-cycle-init",
                        "gibbs-mt-init", "light-ovr-marg", "light-ovr", "gibbs-ovr",
                        "tomotopy"))}
# gSLDA's logistic loss with regularisation constant c (Zhu 2013), Gibbs or light topics
LOGISTIC = re.compile(r"(gslda|lightslda)-c[0-9.]+(-ovr)?")
LDA_INIT = 20  # methods ending in -init start with this many plain-LDA sweeps
LEVELS = (0.99, 0.97, 0.95)  # time-to-accuracy levels, as shares of the lower final accuracy
LAM = {"binary": 262.4, "multiclass": 102.4}
NU = 4096.0
BETA = 0.01


def method_settings(method: str) -> dict:
    """The model parameters a method name stands for, spelled out so a name keeps its meaning
    when a preset's defaults change. ``light*``: the paper's LightMedLDA (uniform mixture of
    doc, word and exp proposals, the augmented factor; ``-cycle``: the three in turn) or, with
    ``-marg``, the marginal hinge factor with doc and word proposals in turn (the preset since
    it was measured here); ``gibbs*``: Gibbs MedLDA, the augmented factor or with ``-marg`` the
    marginal one."""
    marginal = "-marg" in method
    kw: dict = {"supervised_factor": "marginal" if marginal else "augmented"}
    if method.startswith("light"):
        kw.update(composition="cycle" if "-cycle" in method or marginal else "mixture",
                  proposal_weights=(1.0, 1.0, 0.0) if marginal else None)
    return kw


def _accuracy(scores: np.ndarray, y: np.ndarray, binary: bool) -> float:
    pred = (scores[:, 0] > 0).astype(int) if binary else scores.argmax(axis=1)
    return float(np.mean(pred == y))


def run_topicsup(method: str, task: str, train, test, K: int, seed: int, sweeps: int,
                 eval_every: int, alpha: float | None = None, fold_in: tuple = (10, 10),
                 snapshots: int = 1, dense_until: int = 0) -> tuple[dict, list[dict]]:
    binary = task == "binary"
    Model = LightMedLDA if method.startswith("light") else MedLDA
    kw = method_settings(method)
    loss_kw = {"lam": LAM[task]}
    if method.startswith(("gslda", "lightslda")):   # gslda-c<c>: the logistic loss, c given
        Model = GSLDA if method.startswith("gslda") else LightSLDA
        # nu = 1: the unit-variance normal prior of gSLDA (Zhu 2013), not the hinge runs' 4096
        loss_kw = {"c": float(method.split("-c")[1].split("-")[0]), "nu": 1.0}
        kw = {}
    if method.endswith("-chol"):   # exact Cholesky weights instead of coordinate Gibbs
        kw["weight_sampler"] = "cholesky"
    if method.endswith("-shift"):  # coordinate passes end with the all-topics shift draw
        kw["weight_shift"] = True
    if method.endswith("-init"):  # counted in --sweeps and in the training time
        kw["lda_init_sweeps"] = LDA_INIT
    model = Model(K=K, **{"nu": NU, **loss_kw}, alpha=alpha, beta=BETA, burn_in=sweeps // 2,
                  **kw)
    # compile (or load from numba's cache) off the clock: a tiny corpus has the same types
    Session(model, make_synthetic(n_docs=20, n_topics=3, doc_length=10, task="multiclass",
                                  seed=0).corpus, seed=0, log_joint_every=0).run(1)
    if "ovr" in method:
        corpora = [one_vs_rest(train, c) for c in range(train.labels.n_classes)]
    else:
        corpora = [train]
    sessions = [Session(model, c, seed=seed * 1000 + j, log_joint_every=0)
                for j, c in enumerate(corpora)]
    y = test.labels.values
    # the last evaluation averages over topic snapshots 2 sweeps apart (ensemble_scores)
    snap_at = {sweeps - 2 * j for j in range(snapshots)}
    evals = set(range(eval_every, min(sweeps, dense_until + 1), eval_every)) \
        | set(range(10, sweeps, 10)) | {sweeps} if dense_until else \
        set(range(eval_every, sweeps, eval_every)) | {sweeps}
    if "ovr" in method:
        evals = {sweeps}  # 20 fold-ins per evaluation: only at the end
    kept: list[list[np.ndarray]] = [[] for _ in sessions]
    curve, done = [], 0
    while done < sweeps:
        step = min(e for e in evals | snap_at if e > done) - done
        for s in sessions:
            s.run(step)
        done += step
        if done in snap_at:
            for j, s in enumerate(sessions):
                kept[j].append(s.model.topic_snapshot(s.state, s.problem))
        if done not in evals:
            continue
        seconds = sum(s.history.query("metric == 'seconds'")["value"].sum() for s in sessions)
        scores = np.hstack([s.model.ensemble_scores(
            s.state, s.problem, test, seed_state(seed, stream=99 + j),
            kept[j] if done == sweeps else [s.model.topic_snapshot(s.state, s.problem)], *fold_in)
            for j, s in enumerate(sessions)])
        curve.append({"sweep": done, "train_seconds": seconds,
                      "accuracy": _accuracy(scores, y, binary)})
    per_sweep = np.sum([s.history.query("metric == 'seconds'")["value"].to_numpy()
                        for s in sessions], axis=0)
    return ({"accuracy": curve[-1]["accuracy"], "train_seconds": curve[-1]["train_seconds"],
             "seconds_per_sweep": float(np.median(per_sweep))}, curve)


def run_tomotopy(task: str, train, test, K: int, seed: int, sweeps: int,
                 eval_every: int, alpha: float | None = None) -> tuple[dict, list[dict]]:
    import tomotopy as tp
    binary = task == "binary"
    T = 1 if binary else train.labels.n_classes
    mdl = tp.SLDAModel(k=K, vars=["b"] * T, alpha=alpha or 6.4 / K, eta=BETA, seed=seed)
    vocab = np.asarray(train.vocabulary, dtype=object)
    lab = train.labels.values
    for d in range(train.n_docs):
        words = list(vocab[train.words[train.doc_ptr[d]:train.doc_ptr[d + 1]]])
        y = [float(lab[d])] if binary else [1.0 if lab[d] == c else 0.0 for c in range(T)]
        mdl.add_doc(words, y=y)
    mdl.train(0, workers=1)
    test_words = [list(vocab[test.words[test.doc_ptr[d]:test.doc_ptr[d + 1]]])
                  for d in range(test.n_docs)]
    curve, done, seconds = [], 0, 0.0
    per_sweep = []
    while done < sweeps:
        step = min(eval_every, sweeps - done)
        t0 = time.perf_counter()
        mdl.train(step, workers=1)
        dt = time.perf_counter() - t0
        seconds += dt
        per_sweep.append(dt / step)
        done += step
        nonempty = [d for d, w in enumerate(test_words) if w]  # tomotopy rejects empty docs
        docs = [mdl.make_doc(test_words[d]) for d in nonempty]
        mdl.infer(docs, iterations=20, workers=1)
        est = np.full((test.n_docs, T), 0.5)
        est[nonempty] = np.asarray(mdl.estimate(docs), dtype=np.float64).reshape(len(docs), T)
        scores = est - 0.5 if binary else est
        curve.append({"sweep": done, "train_seconds": seconds,
                      "accuracy": _accuracy(scores, test.labels.values, binary)})
    return ({"accuracy": curve[-1]["accuracy"], "train_seconds": seconds,
             "seconds_per_sweep": float(np.median(per_sweep))}, curve)


def load(task: str, path):
    if task == "binary":
        return load_20newsgroups_binary("train", path), load_20newsgroups_binary("test", path)
    return load_20newsgroups("train", path=path), load_20newsgroups("test", path=path)


def time_to(curve: pd.DataFrame, level: float) -> float:
    """Seconds of sampling until the test accuracy first reaches ``level``: interpolated
    linearly between the last evaluation below it and the first at or above it (the first
    evaluation's time if that one already reaches it); NaN if none does."""
    acc, sec = curve["accuracy"].to_numpy(), curve["train_seconds"].to_numpy()
    hit = np.flatnonzero(acc >= level)
    if not len(hit):
        return float("nan")
    j = hit[0]
    if j == 0:
        return float(sec[0])
    return float(sec[j - 1] + (sec[j] - sec[j - 1]) * (level - acc[j - 1]) / (acc[j] - acc[j - 1]))


def markdown(runs: pd.DataFrame, curves: pd.DataFrame, meta: dict) -> str:
    out = ["# Supervised topic models on 20 Newsgroups", "",
           "Commands, in the order they were run:", "",
           *[f"    {c}" for c in meta["commands"]], "", f"Date: {meta['date']}  ",
           f"CPU: {meta['cpu']} (one core, pinned by the caller)  ",
           f"Versions: {meta['versions']}", "",
           "Test accuracy (mean ± sd over seeds), training seconds (sampling only) and median "
           "seconds per sweep (all models of a one-vs-all run together).", ""]
    g = runs.groupby(["task", "K", "method"])
    table = g.agg(acc_mean=("accuracy", "mean"), acc_sd=("accuracy", "std"),
                  seeds=("seed", "count"), train_s=("train_seconds", "mean"),
                  s_per_sweep=("seconds_per_sweep", "mean")).reset_index()
    for task, t in table.groupby("task"):
        out += [f"## {task}", "", "| K | method | accuracy | seeds | training s | s / sweep |",
                "|---:|---|---:|---:|---:|---:|"]
        for r in t.itertuples():
            sd = "" if np.isnan(r.acc_sd) else f" ± {r.acc_sd:.3f}"
            out.append(f"| {r.K} | {r.method} | {r.acc_mean:.3f}{sd} | {r.seeds} | "
                       f"{r.train_s:.1f} | {r.s_per_sweep:.3f} |")
        out.append("")
    # time for light and Gibbs (multi-task) to reach the accuracy both reach, per K and seed
    rows = []
    for (task, K, seed), c in curves.groupby(["task", "K", "seed"]):
        pair = [(m, "gibbs") for m in ("light-marg", "light", "light-cycle",
                                        "light-cycle-chol")] + [("light-marg", "gibbs-marg")] \
            if task == "binary" else \
            [(m, "gibbs-mt") for m in ("light-mt-marg", "light-mt", "light-mt-cycle",
                                       "light-mt-cycle-shift", "light-mt-cycle-init")] + \
            [("light-mt-marg", "gibbs-mt-marg"), ("light-mt-cycle-init", "gibbs-mt-init")]
        for light, gibbs in pair:
            a = c[c["method"] == light].sort_values("sweep")
            b = c[c["method"] == gibbs].sort_values("sweep")
            if len(a) and len(b):
                final = min(a["accuracy"].iloc[-1], b["accuracy"].iloc[-1])
                cells = []
                for share in LEVELS:
                    ta, tb = time_to(a, share * final), time_to(b, share * final)
                    cells.append(f"{share * final:.3f} | {ta:.1f} | {tb:.1f} | {tb / ta:.1f}x")
                own = a["accuracy"].iloc[-1]   # LightMedLDA's own final accuracy
                ta, tb = time_to(a, own), time_to(b, own)
                gibbs_cell = f"{tb:.1f}" if np.isfinite(tb) else \
                    f"> {b['train_seconds'].iloc[-1]:.1f}"
                rows.append(f"| {task} | {K} | {seed} | {light} | {gibbs} | "
                            + " | ".join(cells)
                            + f" | {own:.3f} | {ta:.1f} | {gibbs_cell} |")
    if rows:
        head = " | ".join(f"level {s} | light s | gibbs s | speed-up" for s in LEVELS)
        out += ["## Time to accuracy: LightMedLDA vs Gibbs MedLDA", "",
                "Levels: " + ", ".join(str(s) for s in LEVELS) + " x the lower of the two "
                "final accuracies, and LightMedLDA's own final accuracy; seconds of sampling "
                "until the test accuracy reaches it, interpolated between evaluations ('>' the "
                "whole run: not reached). Near the plateau (0.99, light's final) the "
                "evaluations fluctuate by about as much as the gap to the level, so those "
                "columns are noisy; 0.97 and 0.95 are reached on the rise.", "",
                f"| task | K | seed | light | gibbs | {head} | light final | light s | "
                "gibbs s |",
                "|---|---:|---:|---|---|" + "---:|" * (4 * len(LEVELS) + 3), *rows, ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--task", choices=["binary", "multiclass", "both"], default="both")
    p.add_argument("--ks", type=int, nargs="+", help="topic numbers (default: the task's grid)")
    p.add_argument("--methods", nargs="+", help="methods (default: the task's list)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--sweeps", type=int, default=40)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--dense-until", type=int, default=0, metavar="SWEEP",
                   help="evaluate every --eval-every sweeps only up to this sweep, then every "
                        "10 (time to accuracy needs the rise, not the plateau, finely)")
    p.add_argument("--alpha", type=float, help="Dirichlet alpha (default 6.4 / K)")
    p.add_argument("--fold-in", type=int, nargs=2, default=[10, 10], metavar=("BURN", "KEEP"),
                   help="fold-in sweeps on the test posts: burn-in and kept")
    p.add_argument("--snapshots", type=int, default=1,
                   help="topic snapshots (2 sweeps apart) averaged by the final prediction")
    p.add_argument("--data", help="20news-bydate.tar.gz or its folder")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--resume", action="store_true",
                   help="keep the runs already in --out and skip the (task, K, method, seed) "
                        "they cover, so a long grid accumulates over several invocations")
    p.add_argument("--report", action="store_true",
                   help="only rewrite supervised.md from the runs and commands in --out")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.report:
        return write_report(out, pd.read_csv(out / "supervised_runs.csv"),
                            pd.read_csv(out / "supervised_curves.csv"),
                            (out / "commands.txt").read_text().splitlines())
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    out.mkdir(parents=True, exist_ok=True)
    tasks = ["binary", "multiclass"] if args.task == "both" else [args.task]
    runs, curves = [], []
    if args.resume and (out / "supervised_runs.csv").exists():
        runs = pd.read_csv(out / "supervised_runs.csv").to_dict("records")
        curves = pd.read_csv(out / "supervised_curves.csv").to_dict("records")
    done = {(r["task"], r["K"], r["method"], r["seed"]) for r in runs}
    for task in tasks:
        train, test = load(task, path)
        ks, methods = GRID[task]
        for K in args.ks or ks:
            for method in args.methods or methods:
                if method not in GRID[task][1] and not LOGISTIC.fullmatch(method):
                    raise SystemExit(f"unknown method {method!r} for the {task} task; known: "
                                     f"{list(GRID[task][1])} and gslda-c<c>, lightslda-c<c>")
                for seed in args.seeds:
                    if (task, K, method, seed) in done:
                        continue
                    if method == "tomotopy":
                        res, curve = run_tomotopy(task, train, test, K, seed, args.sweeps,
                                                  args.eval_every, args.alpha)
                    else:
                        res, curve = run_topicsup(method, task, train, test, K, seed,
                                                  args.sweeps, args.eval_every, args.alpha,
                                                  tuple(args.fold_in), args.snapshots,
                                                  args.dense_until)
                    key = dict(task=task, K=K, method=method, seed=seed)
                    runs.append({**key, **res})
                    curves += [{**key, **c} for c in curve]
                    # written after every run, so an interrupted grid keeps what it measured
                    pd.DataFrame(runs).to_csv(out / "supervised_runs.csv", index=False)
                    pd.DataFrame(curves).to_csv(out / "supervised_curves.csv", index=False)
                    print(f"{task:10s} K={K:<4d} {method:10s} seed={seed} "
                          f"acc={res['accuracy']:.4f} train={res['train_seconds']:.1f}s "
                          f"sweep={res['seconds_per_sweep']:.3f}s", flush=True)
    # paths relative to where it ran: a results file holds no machine's absolute path
    command = "python benchmarks/bench_supervised.py " + shlex.join(
        os.path.relpath(a) if os.path.isabs(a) else a for a in (argv or sys.argv[1:]))
    log = out / "commands.txt"
    previous = log.read_text().splitlines() if args.resume and log.exists() else []
    log.write_text("\n".join(previous + [command]) + "\n")
    return write_report(out, pd.DataFrame(runs), pd.DataFrame(curves), previous + [command])


def write_report(out: Path, runs: pd.DataFrame, curves: pd.DataFrame,
                 commands: list[str]) -> int:
    meta = {"commands": commands, "date": _dt.date.today().isoformat(), "cpu": cpu_model(),
            "versions": ", ".join(f"{k} {v}" for k, v in versions().items())}
    (out / "supervised.md").write_text(markdown(runs, curves, meta))
    print(f"wrote {out / 'supervised.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
