"""DOLDA on 20 Newsgroups and on synthetic data: accuracy, sparsity, parallel speed-up, and
the recovery of known covariate weights.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_dolda.py                   # everything (about 65 min, both cores)
    python benchmarks/bench_dolda.py --quick           # smoke test: K = 20, one seed, 8 sweeps
    python benchmarks/bench_dolda.py --parts coverage  # one part; --resume keeps finished runs

Part ``accuracy`` (the paper's Fig. 2 on all 20 newsgroups, topicsup's default preprocessing,
the 11,291 training posts, the 7,532 test posts): for K in {20, 50, 100} and seeds {0, 1, 2},
``--sweeps`` sweeps (80) of every method, the weights averaged over the second half, test
accuracy by the default fold-in (50 + 50 sweeps):

* ``dolda``: the DOLDA preset (DO-probit, horseshoe per class, intercept, partially collapsed
  sampler on 2 threads); ``dolda-normal``: ``DOLDA.with_normal_prior()`` (eta ~ N(0, 100));
* ``dolda-c100``, ``dolda-normal-c100``: the same with the labels weighed up, c = 100 copies of
  each label (``DOProbit.c``, as gSLDA's c); ``dolda-c100-gibbs``: that model on collapsed Gibbs
  topics (``DOLDA(c=100, sampler="gibbs")``: one thread for the topics, the augmentation on
  two);
* ``medlda``: Gibbs MedLDA (hinge, lam = 102.4, nu = 4096, exact collapsed Gibbs, one core: its
  sampler is serial), the settings of benchmarks/results/supervised_multiclass;
* ``two-step``: LDA on the partially collapsed sampler (2 threads), then a DO-probit regression
  on the training posts' topic proportions and an intercept (normal prior N(0, 100), 400 Gibbs
  iterations, the second half averaged), as the paper's two-step baseline.

Every method has alpha = ``--alpha`` (0.5, the MedLDA benchmark's) and beta = 0.01. Reported per
run: accuracy, training and prediction seconds, and for the DOLDA fits the share of each class's
topic-weight mass on its 3 largest weights (``Session.shrinkage``), both priors side by side;
``heatmaps_c1.{html,png}`` and ``heatmaps_c100.{html,png}`` draw both priors' weights at K = 50,
seed 0 (``views.prior_comparison_chart``).

Part ``speedup``: DOLDA's topic sweep (the K x K label matrix path) on 1 and 2 threads at K in
{50, 100}: median seconds of the topic step, the same session switching its ``threads`` live
setting every sweep after 6 warm-up sweeps (8 sweeps each).

Part ``long`` (``--parts long``, about 8 min): DOLDA as published (c = 1, horseshoe) at K = 50,
seed 0, alpha = ``--alpha``, on ``--long-sampler`` topics (``pc``, the preset's partially
collapsed sampler on 2 threads, or ``gibbs``), for ``--long-sweeps`` sweeps (1,200; the weights
averaged after sweep 100), its test accuracy after 80, 200, 400, 800 and 1,200 sweeps: whether
far longer chains, another alpha or collapsed topics close the gap to MedLDA that 80 sweeps
leave. A run replaces the rows of its own (alpha, sampler) and keeps the others'.

Part ``mixing`` (``--parts mixing``, about 5 min): DOLDA with the labels weighed up (c = 100)
at K = 20, seed 0, on collapsed Gibbs topics for 80 sweeps and on the partially collapsed
sampler for 400, the log joint every 20 sweeps: how much slower the partially collapsed chain
climbs with the labels weighed up.

Part ``coverage``: synthetic corpora (make_synthetic's words and topics, 1,000 documents, K = 6,
4 standard normal covariates) with binary labels drawn from the probit model DOLDA fits, y =
sign(eta . (zbar, 1, x) + N(0, 1)), known covariate weights (1.0, -0.7, 0, 0); DOLDA with each
prior, 300 sweeps (150 kept), over 10 corpora: how often the 90% credible interval of a
covariate weight holds the true one (the topic weights and the intercept are identified only
up to the topics' order and a shared level, so they are not scored).

Outputs in benchmarks/results/dolda/ (``quick/dolda`` for --quick): README.md (the tables and the
command), accuracy.csv, shrinkage.csv, speedup.csv, long.csv, mixing.csv, coverage.csv and the heatmap
images.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; numba is not loaded yet
os.environ.pop("OMP_NUM_THREADS", None)

from topicsup import DOLDA, LDA, MedLDA, Session  # noqa: E402
from topicsup.corpus import make_labels  # noqa: E402
from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.losses.do_probit import do_probit_augment, stream_key  # noqa: E402
from topicsup.synthetic import make_synthetic  # noqa: E402
from topicsup.views import prior_comparison_chart  # noqa: E402

KS = (20, 50, 100)
SEEDS = (0, 1, 2)
METHODS = ("dolda", "dolda-normal", "dolda-c100", "dolda-normal-c100", "dolda-c100-gibbs",
           "medlda", "two-step")
BETA = 0.01
TOP = 3
HEATMAP_K = 50


def make_model(method: str, K: int, alpha: float, sweeps: int):
    common = dict(K=K, alpha=alpha, beta=BETA, burn_in=sweeps // 2)
    if method == "medlda":
        return MedLDA(**common, lam=102.4, nu=4096.0)
    if method == "two-step":
        return LDA(K=K, alpha=alpha, beta=BETA, sampler="partially_collapsed", threads=2)
    c = 100 if "-c100" in method else 1
    # "-gibbs": DOLDA's model on collapsed Gibbs topics (exact, O(K T) per token, serial)
    sampler = dict(sampler="gibbs") if method.endswith("-gibbs") else dict(threads=2)
    if method.startswith("dolda-normal"):
        return DOLDA.with_normal_prior(**common, c=c, **sampler)
    return DOLDA(**common, c=c, **sampler)


def do_probit_regression(X: np.ndarray, labels: np.ndarray, n_classes: int, seed: int,
                         n_iter: int = 400, variance: float = 100.0) -> np.ndarray:
    """The two-step baseline's second step: a DO-probit regression of the classes on fixed
    features X (D, M) by Gibbs sampling (a | eta: topicsup's truncated normals; eta | a: a
    normal with the fixed precision I / variance + X^T X, w being 1), eta averaged over the
    second half. Returns eta (C, M)."""
    rng = seed_state(seed, stream=77)
    rs = np.random.default_rng(seed)
    y = np.where(np.arange(n_classes)[:, None] == labels[None, :], 1.0, -1.0)
    prec = np.eye(X.shape[1]) / variance + X.T @ X
    L = np.linalg.cholesky(prec)
    eta = np.zeros((n_classes, X.shape[1]))
    a, w = np.zeros_like(y), np.zeros_like(y)
    total = np.zeros_like(eta)
    for it in range(n_iter):
        do_probit_augment(y, np.ascontiguousarray(eta @ X.T), 1, stream_key(rng), a, w)
        mean = np.linalg.solve(prec, X.T @ a.T)                       # (M, C)
        noise = np.linalg.solve(L.T, rs.standard_normal(mean.shape))
        eta = (mean + noise).T
        if it >= n_iter // 2:
            total += eta
    return total / (n_iter - n_iter // 2)


def seconds(s: Session) -> float:
    h = s.history
    return float(h.loc[h["metric"] == "seconds", "value"].sum())


def run_accuracy(method, K, seed, train, test, alpha, sweeps):
    model = make_model(method, K, alpha, sweeps)
    s = Session(model, train, seed=seed, log_joint_every=0)
    s.run(sweeps)
    row = {"K": K, "method": method, "seed": seed, "sweeps": sweeps, "alpha": alpha,
           "train_seconds": seconds(s)}
    t0 = time.perf_counter()
    if method == "two-step":
        held = s.corpus.heldout(test)
        ones = np.ones((train.n_docs, 1))
        X = np.hstack([s.doc_topics(as_frame=False), ones])
        t1 = time.perf_counter()
        eta = do_probit_regression(X, train.labels.values, train.labels.n_classes, seed)
        row["train_seconds"] += time.perf_counter() - t1
        t0 = time.perf_counter()
        zbar = model.fold_in(s.state, s.problem, held, seed_state(seed, stream=99))
        scores = np.hstack([zbar, np.ones((held.n_docs, 1))]) @ eta.T
        classes = np.asarray(train.labels.classes, dtype=object)
        row["accuracy"] = float(np.mean(classes[scores.argmax(1)]
                                        == np.asarray(test.labels.names())))
    else:
        row["accuracy"] = s.score(test)
    row["predict_seconds"] = time.perf_counter() - t0
    shrink = s.shrinkage(top=TOP) if method.startswith("dolda") else None
    if shrink is not None:
        row["top3_share_mean"] = float(shrink["top_share"].mean())
    return row, s, shrink


def accuracy_part(train, test, ks, seeds, methods, alpha, sweeps, out, resume):
    path, spath = out / "accuracy.csv", out / "shrinkage.csv"
    done = pd.read_csv(path) if resume and path.exists() else pd.DataFrame()
    shr = pd.read_csv(spath) if resume and spath.exists() else pd.DataFrame()
    keys = set(zip(done["K"], done["method"], done["seed"])) if len(done) else set()
    heat: dict[tuple, pd.DataFrame] = {}
    for K in ks:
        for seed in seeds:
            for method in methods:
                if (K, method, seed) in keys:
                    continue
                row, s, shrink = run_accuracy(method, K, seed, train, test, alpha, sweeps)
                print(row, flush=True)
                done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
                done.to_csv(path, index=False)
                if shrink is not None:
                    shr = pd.concat([shr, shrink.reset_index().assign(K=K, method=method,
                                                                      seed=seed)],
                                    ignore_index=True)
                    shr.to_csv(spath, index=False)
                    if K == HEATMAP_K and seed == 0 or len(ks) == 1 and seed == seeds[0]:
                        heat[(K, method)] = s.coefficients()
                del s
                gc.collect()
    for c, (hs, nm) in {"c1": ("dolda", "dolda-normal"),
                        "c100": ("dolda-c100", "dolda-normal-c100")}.items():
        for K in ks:
            if (K, hs) in heat and (K, nm) in heat:
                both = pd.concat({"horseshoe": heat[(K, hs)], "normal": heat[(K, nm)]},
                                 names=["prior"]).reset_index(0)
                chart = prior_comparison_chart(both, top=TOP, features=25)
                chart.save(out / f"heatmaps_{c}.html")
                chart.save(out / f"heatmaps_{c}.png", scale_factor=1.5)
    return done, shr


def topic_sampler(name: str) -> dict:
    """``pc``: the preset's partially collapsed sampler on 2 threads; ``gibbs``: collapsed
    Gibbs topics (serial; the augmentation on 2 threads)."""
    return dict(sampler="gibbs") if name == "gibbs" else dict(threads=2)


def long_part(train, test, K, seed, alpha, n_sweeps, sampler="pc"):
    """DOLDA (c = 1) for ``n_sweeps`` sweeps, test accuracy at a schedule of sweeps."""
    s = Session(DOLDA(K=K, alpha=alpha, beta=BETA, burn_in=100, **topic_sampler(sampler)),
                train, seed=seed, log_joint_every=0)
    rows, done, trained = [], 0, 0.0
    for at in [n for n in (80, 200, 400, 800, 1200, 2400) if n < n_sweeps] + [n_sweeps]:
        t0 = time.perf_counter()
        s.run(at - done)
        trained += time.perf_counter() - t0
        done = at
        rows.append({"K": K, "seed": seed, "alpha": alpha, "sampler": sampler, "sweeps": at,
                     "train_seconds": trained, "accuracy": s.score(test)})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def mixing_part(train, K, seed, sweeps):
    """The log joint every 20 sweeps of DOLDA with c = 100 on each topic sampler, ``sweeps``
    maps each sampler to its chain's length."""
    rows = []
    for sampler, n in sweeps.items():
        s = Session(DOLDA(K=K, alpha=0.5, beta=BETA, c=100, burn_in=n // 2,
                          **topic_sampler(sampler)), train, seed=seed, log_joint_every=20)
        s.run(n)
        h = s.history
        lj = h[h["metric"] == "log_joint"]
        secs = h[h["metric"] == "seconds"].set_index("sweep")["value"].cumsum()
        for sweep, value in zip(lj["sweep"], lj["value"]):
            rows.append({"K": K, "seed": seed, "c": 100, "sampler": sampler,
                         "sweep": int(sweep), "seconds": float(secs.loc[sweep]),
                         "log_joint": float(value)})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def speedup_part(train, ks, seed):
    """Median topic-step seconds on 1 and 2 threads, the same session alternating its
    ``threads`` setting sweep by sweep after 6 warm-up sweeps (16 sweeps in all), so both
    thread counts see the same stage of the chain (the sparse kernel gets faster as
    documents concentrate on fewer topics)."""
    rows = []
    for K in ks:
        s = Session(DOLDA(K=K, threads=2), train, seed=seed, log_joint_every=0)
        s.run(6)
        times: dict[int, list[float]] = {1: [], 2: []}
        for j in range(16):
            threads = 1 + j % 2
            s.set_params(threads=threads)
            s.run(1)
            h = s.history
            times[threads].append(float(h[(h["metric"] == "seconds_topics")
                                          & (h["sweep"] == s.n_sweeps)]["value"].iloc[0]))
        for threads, t in times.items():
            rows.append({"K": K, "threads": threads, "topic_seconds": float(np.median(t)),
                         "tokens_per_second": train.n_tokens / float(np.median(t))})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    one = df[df.threads == 1].set_index("K")["topic_seconds"]
    df["speedup"] = df["K"].map(one) / df["topic_seconds"]
    return df


TRUE_COVARIATE_WEIGHTS = np.array([1.0, -0.7, 0.0, 0.0])


def probit_corpus(seed: int, n_docs: int = 1000, K: int = 6):
    """make_synthetic's words and topics with 4 covariates; binary labels from the probit
    model DOLDA fits, with known covariate weights."""
    syn = make_synthetic(n_docs=n_docs, n_topics=K, task="real", n_covariates=4, seed=seed)
    c = syn.corpus
    rs = np.random.default_rng(1000 + seed)
    zbar = np.zeros((c.n_docs, K))
    doc = np.repeat(np.arange(c.n_docs), c.doc_lengths)
    np.add.at(zbar, (doc, syn.z), 1.0)
    zbar /= c.doc_lengths[:, None]
    topic_w = np.array([2.0, -2.0, 0.0, 0.0, 1.0, 0.0])[:K]
    s = zbar @ topic_w - 0.3 + c.covariates @ TRUE_COVARIATE_WEIGHTS
    y = np.where(s + rs.standard_normal(c.n_docs) > 0, "pos", "neg")
    return dataclasses.replace(c, labels=make_labels(y, c.n_docs, "binary",
                                                     classes=("neg", "pos")))


def coverage_part(n_corpora, sweeps):
    rows = []
    for seed in range(n_corpora):
        corpus = probit_corpus(seed)
        for prior, make in (("horseshoe", DOLDA), ("normal", DOLDA.with_normal_prior)):
            s = Session(make(K=6, burn_in=sweeps // 2), corpus, seed=seed, log_joint_every=0)
            s.run(sweeps)
            co = s.coefficients(0.9)
            cov = co[co["kind"] == "covariate"]
            for j, (_, r) in enumerate(cov.iterrows()):
                truth = TRUE_COVARIATE_WEIGHTS[j]
                rows.append({"corpus": seed, "prior": prior, "covariate": r["feature"],
                             "truth": truth, "mean": r["mean"], "lower": r["lower"],
                             "upper": r["upper"],
                             "covered": bool(r["lower"] <= truth <= r["upper"])})
        print(f"corpus {seed}: done", flush=True)
    return pd.DataFrame(rows)


def markdown(acc, shr, speed, cover, meta, long=None, mixing=None):
    out = ["# DOLDA: accuracy, sparsity, parallel speed-up, coverage", "",
           "Commands, in the order they were run (each adds or replaces its parts' CSVs):", "",
           *[f"    {c}" for c in meta["commands"]], "",
           f"The last run: {meta['date']}, {meta['cpu']}, NUMBA_NUM_THREADS=2, "
           f"{meta['versions']} (earlier runs may have been on another machine: "
           "benchmarks/README.md says which)", ""]
    if len(acc):
        out += ["## 20-class test accuracy (mean ± sd over seeds)", "",
                f"{meta['sweeps']} sweeps, alpha = {meta['alpha']}, beta = {BETA}; training "
                "seconds are sampling only (the two-step's regression included).", "",
                "| K | method | accuracy | seeds | training s | predict s | top-3 share |",
                "|---:|---|---:|---:|---:|---:|---:|"]
        for (K, method), g in acc.groupby(["K", "method"], sort=True):
            share = g["top3_share_mean"].mean() if "top3_share_mean" in g else np.nan
            out.append(f"| {K} | {method} | {g['accuracy'].mean():.3f} ± "
                       f"{g['accuracy'].std(ddof=1) if len(g) > 1 else 0:.3f} | {len(g)} | "
                       f"{g['train_seconds'].mean():.1f} | {g['predict_seconds'].mean():.1f} | "
                       + (f"{share:.3f} |" if share == share else "- |"))
        out.append("")
    if len(shr):
        out += ["## Share of each class's topic-weight mass on its 3 largest weights", "",
                "Mean over seeds and classes, with the smallest class-level value; "
                "horseshoe against normal at the same K and c.", "",
                "| K | c | horseshoe | normal | horseshoe min | normal min |",
                "|---:|---:|---:|---:|---:|---:|"]
        for K in sorted(shr["K"].unique()):
            for c, (hs, nm) in (("1", ("dolda", "dolda-normal")),
                                ("100", ("dolda-c100", "dolda-normal-c100"))):
                a = shr[(shr.K == K) & (shr.method == hs)]["top_share"]
                b = shr[(shr.K == K) & (shr.method == nm)]["top_share"]
                if len(a) and len(b):
                    out.append(f"| {K} | {c} | {a.mean():.3f} | {b.mean():.3f} | "
                               f"{a.min():.3f} | {b.min():.3f} |")
        out.append("")
    if len(speed):
        out += ["## DOLDA's topic sweep on 1 and 2 threads (20 Newsgroups train)", "",
                "| K | threads | topic s / sweep | tokens / s | speed-up |",
                "|---:|---:|---:|---:|---:|"]
        for _, r in speed.iterrows():
            out.append(f"| {int(r.K)} | {int(r.threads)} | {r.topic_seconds:.3f} | "
                       f"{r.tokens_per_second / 1e6:.2f} M | {r.speedup:.2f} |")
        out.append("")
    if long is not None and len(long):
        long = long.assign(sampler=long["sampler"] if "sampler" in long else "pc")
        out += ["## DOLDA as published (c = 1) over a long chain", "",
                f"K = {int(long['K'].iloc[0])}, seed {int(long['seed'].iloc[0])}, the weights "
                "averaged after sweep 100; test accuracy by the default fold-in; topics by the "
                "partially collapsed sampler (pc, 2 threads) or collapsed Gibbs (one thread).",
                "", "| alpha | topics | sweeps | training s | accuracy |",
                "|---:|---|---:|---:|---:|"]
        for _, r in long.sort_values(["alpha", "sampler", "sweeps"],
                                     ascending=[False, False, True]).iterrows():
            out.append(f"| {r.alpha:g} | {r.sampler} | {int(r.sweeps)} | "
                       f"{r.train_seconds:.0f} | {r.accuracy:.3f} |")
        out.append("")
    if mixing is not None and len(mixing):
        out += ["## How fast each topic sampler climbs with the labels weighed up (c = 100)", "",
                f"DOLDA, K = {int(mixing['K'].iloc[0])}, seed {int(mixing['seed'].iloc[0])}, "
                "alpha = 0.5; the log joint (collapsed over Phi, the same function of the state "
                "for both samplers) every 20 sweeps.", "",
                "| topics | sweep | seconds | log joint |", "|---|---:|---:|---:|"]
        for _, r in mixing.iterrows():
            out.append(f"| {r.sampler} | {int(r.sweep)} | {r.seconds:.0f} | "
                       f"{r.log_joint:,.0f} |")
        out.append("")
    if len(cover):
        out += ["## Coverage of the 90% intervals of known covariate weights (synthetic "
                "probit data)", "",
                "| prior | covariate weight | intervals | covered | mean estimate |",
                "|---|---:|---:|---:|---:|"]
        for (prior, truth), g in cover.groupby(["prior", "truth"], sort=False):
            out.append(f"| {prior} | {truth:g} | {len(g)} | {g['covered'].mean():.2f} | "
                       f"{g['mean'].mean():.3f} |")
        for prior, g in cover.groupby("prior", sort=False):
            out.append(f"| {prior} | all | {len(g)} | {g['covered'].mean():.2f} | |")
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--parts", default="accuracy,speedup,coverage")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--seeds", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--methods", type=lambda s: tuple(s.split(",")))
    ap.add_argument("--sweeps", type=int, default=80)
    ap.add_argument("--long-sweeps", type=int, default=1200, help="long: sweeps of the chain")
    ap.add_argument("--long-sampler", default="pc", choices=("pc", "gibbs"),
                    help="long: the topic sampler")
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--corpora", type=int, default=10, help="coverage: synthetic corpora")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    unknown = set(args.parts.split(",")) - {"accuracy", "speedup", "long", "mixing",
                                            "coverage"}
    if unknown:
        ap.error(f"--parts: unknown parts {sorted(unknown)}; expected accuracy, speedup, long, "
                 f"mixing, coverage")
    if args.long_sweeps < 1:
        ap.error(f"--long-sweeps must be a positive number of sweeps, got {args.long_sweeps}")
    import numba
    assert numba.config.NUMBA_NUM_THREADS == 2, numba.config.NUMBA_NUM_THREADS
    out = args.out or (DEFAULT_OUT / "quick" / "dolda" if args.quick else DEFAULT_OUT / "dolda")
    out.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    sweeps = 8 if args.quick else args.sweeps
    read = (lambda name: pd.read_csv(out / name) if (out / name).exists() else pd.DataFrame())
    acc, shr, speed, cover = read("accuracy.csv"), read("shrinkage.csv"), read("speedup.csv"), \
        read("coverage.csv")
    long, mixing = read("long.csv"), read("mixing.csv")
    if len(long) and "sampler" not in long:   # written before --long-sampler: pc topics
        long["sampler"] = "pc"
    if parts & {"accuracy", "speedup", "long", "mixing"}:
        path = archive_or_skip(args.data)
        if path is not None:
            from topicsup.datasets import load_20newsgroups
            train = load_20newsgroups("train", path=path)
            test = load_20newsgroups("test", path=path)
            if "accuracy" in parts:
                acc, shr = accuracy_part(
                    train, test, args.ks or ((20,) if args.quick else KS),
                    args.seeds or ((0,) if args.quick else SEEDS), args.methods or METHODS,
                    args.alpha, sweeps, out, args.resume)
            if "speedup" in parts:
                speed = speedup_part(train, args.ks or ((20,) if args.quick else (50, 100)), 0)
                speed.to_csv(out / "speedup.csv", index=False)
            if "long" in parts:
                run = long_part(train, test, 20 if args.quick else 50, 0, args.alpha,
                                10 if args.quick else args.long_sweeps, args.long_sampler)
                if len(long):   # this run's (alpha, sampler) replaces its earlier rows
                    long = long[(long["alpha"] != args.alpha)
                                | (long["sampler"] != args.long_sampler)]
                long = pd.concat([long, run], ignore_index=True)
                long.to_csv(out / "long.csv", index=False)
            if "mixing" in parts:
                mixing = mixing_part(train, 20, 0, {"gibbs": 20, "pc": 40} if args.quick
                                     else {"gibbs": 80, "pc": 400})
                mixing.to_csv(out / "mixing.csv", index=False)
    if "coverage" in parts:
        cover = coverage_part(2 if args.quick else args.corpora, 20 if args.quick else 300)
        cover.to_csv(out / "coverage.csv", index=False)
    # paths relative to where it ran: a results file holds no machine's absolute path
    command = " ".join(shlex.quote(os.path.relpath(a) if os.path.isabs(a) else a)
                       for a in ["python"] + sys.argv)
    with open(out / "commands.txt", "a") as f:   # every run that wrote these results
        f.write(command + "\n")
    meta = {"sweeps": sweeps, "alpha": args.alpha, "cpu": cpu_model(), "versions": versions(),
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "commands": (out / "commands.txt").read_text().splitlines()}
    md = markdown(acc, shr, speed, cover, meta, long, mixing)
    (out / "README.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
