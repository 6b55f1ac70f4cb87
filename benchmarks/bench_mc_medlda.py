"""Monte Carlo MedLDA (Jiang et al. 2012) on 20 Newsgroups, 20 classes: accuracy, entropies,
the sensitivity to J and to epsilon, and training and prediction time.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_mc_medlda.py                 # everything (times: docs/benchmarks.md)
    python benchmarks/bench_mc_medlda.py --quick         # smoke test: K = 20, one seed, 12 sweeps
    python benchmarks/bench_mc_medlda.py --parts epsilon # one part; --resume keeps finished runs

All on topicsup's default preprocessing of the 11,291 training and 7,532 test posts, one core
(every sampler here is serial), beta = 0.01 unless said.

Part ``c``: C (Jiang: "the same C for different MedLDA methods", chosen by cross-validation
from {1, 4, ..., 64}): the training posts split 80/20 (seed 0); validation accuracy at K = 50
of gMedLDA (at most 100 sweeps) and of LDA + SVM (one LDA fit, ``--sweeps`` sweeps, the SVM
at each C) for C in {16, 1e3, 1e4, 1e5, 1e6}. The MedLDA methods use gMedLDA's C, LDA + SVM
its own, unless ``--C`` is given (then both): the smallest C within 0.005 of the best
validation accuracy (a larger C costs more SVM epochs for no measurable gain).

Part ``accuracy`` (Jiang's Fig. 1): for K in {20, 50, 90} and seeds {0, 1, 2}:

* ``imedlda``: ``MCMedLDA.importance`` (J = 3K uniform draws per token, alpha = 0.01 / K,
  beta = 1e-5, sec. 5);
* ``gmedlda``: ``MCMedLDA`` on collapsed Gibbs topics, J = 1 in training (sec. 5.2), alpha =
  ``--alpha``; prediction by the default fold-in (50 + 50 sweeps: J = 50 at prediction);
* both with epsilon = ``--epsilon`` (1e-3; the paper's 1e-4 needs up to 100 sweeps per
  outer iteration here, and part ``epsilon`` shows what it changes), at most 100 outer
  iterations and 100 topic sweeps per iteration (sec. 5), and at most ``--max-sweeps`` sweeps
  in all (then reported as not converged);
* ``medlda``: Gibbs MedLDA (Zhu/Zheng: hinge, lam = 102.4, nu = 4096, collapsed Gibbs,
  ``--sweeps`` sweeps, weights averaged over the second half), the settings of
  benchmarks/results/supervised_multiclass and /dolda;
* ``lda-svm``: LDA (collapsed Gibbs, ``--sweeps`` sweeps), then the Crammer-Singer SVM with the
  same C and cost on the training posts' topic proportions; held-out proportions by the
  default fold-in.

Reported per run: test accuracy; training and prediction seconds; outer iterations, sweeps
and whether the alternation converged; the share of non-zero multipliers and of support
documents; the average entropy (nats) of the test posts' topic proportions (Fig. 1b; theta =
(N zbar + alpha) / (N + K alpha) from the fold-in) and of the topics (Fig. 1c).

Part ``j`` (Fig. 2b), at K = 50, seed 0, on the part's own gMedLDA and iMedLDA fits: test
accuracy against the prediction J: the fold-in's kept sweeps for gMedLDA (1 to 100 after 50
burn-in), the importance draws per token for iMedLDA (K / 2 to 30 K, and the exact
expectation).

Part ``epsilon`` (Fig. 2c): gMedLDA at K = 50, seed 0, epsilon in {1e-4, 1e-3, 1e-2} with
neither bound (max_iterations and max_inner 10^6, ``--max-sweeps`` still applies): accuracy and
training seconds; and epsilon = 0 (never converged: an SVM step after every sweep, stopped by
``--max-sweeps``), what the alternation reaches when no rule stops it.

Outputs in benchmarks/results/mc_medlda/ (``quick/mc_medlda`` for --quick): README.md (the
tables and the commands), c.csv, accuracy.csv, j.csv, epsilon.csv.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"

import argparse  # noqa: E402
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

from topicsup import LDA, MCMedLDA, MedLDA, Session  # noqa: E402
from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.svm import COST, crammer_singer_dual  # noqa: E402

KS = (20, 50, 90)
SEEDS = (0, 1, 2)
METHODS = ("imedlda", "gmedlda", "medlda", "lda-svm")
C_GRID = (16.0, 1e3, 1e4, 1e5, 1e6)
C_SWEEPS = 100
C_TIE = 0.005
BETA = 0.01
J_K = 50
GMEDLDA_J = (1, 5, 10, 20, 50, 100)
IMEDLDA_J = (0.5, 1, 3, 10, 30)        # times K; and 0: the exact expectation
EPSILONS = (1e-4, 1e-3, 1e-2, 0.0)
SVM_TOL = 1e-2


def entropy(p: np.ndarray) -> np.ndarray:
    """Row entropies in nats."""
    p = np.clip(p, 1e-300, None)
    return -(p * np.log(p)).sum(axis=1)


def svm_predict(kappa: np.ndarray, X: np.ndarray) -> np.ndarray:
    return (X @ kappa.T).argmax(axis=1)


def validated_c(train, K, sweeps, grid, alpha, epsilon, seed=0):
    """Validation accuracy (80/20 split of the training posts) of gMedLDA and LDA + SVM per C."""
    order = np.random.default_rng(seed).permutation(train.n_docs)
    cut = int(0.8 * train.n_docs)
    fit_part, val = train.take(np.sort(order[:cut])), train.take(np.sort(order[cut:]))
    lda, _, _ = fit("lda-svm", K, seed, fit_part, grid[0], alpha, sweeps, sweeps)
    held = lda.corpus.heldout(val)
    Z = lda.model.fold_in(lda.state, lda.problem, held, seed_state(seed, stream=99))
    X = lda.doc_topics(as_frame=False)
    y = np.asarray(fit_part.labels.values)
    truth = np.asarray(val.labels.names())
    classes = np.asarray(fit_part.labels.classes, dtype=object)
    rows = []
    for C in grid:
        sol = crammer_singer_dual(X, y, C, n_classes=train.labels.n_classes, tol=SVM_TOL)
        rows.append({"C": C, "method": "lda-svm",
                     "val_accuracy": float(np.mean(classes[svm_predict(sol.kappa, Z)] == truth))})
        s, row, _ = fit("gmedlda", K, seed, fit_part, C, alpha, sweeps, C_SWEEPS, epsilon)
        acc, _, _ = evaluate(s, val, None, seed)
        rows.append({"C": C, "method": "gmedlda", "val_accuracy": acc,
                     "train_seconds": row["train_seconds"], "sweeps": row["sweeps"]})
        print(rows[-2:], flush=True)
    return pd.DataFrame(rows)


def make_model(method, K, C, alpha, sweeps, epsilon=1e-3, bounded=True):
    # unbounded; epsilon = 0 never settles, so an SVM step after every sweep
    bounds = {} if bounded else {"max_iterations": 10**6,
                                 "max_inner": 10**6 if epsilon > 0 else 1}
    if method == "imedlda":
        return MCMedLDA.importance(K=K, C=C, epsilon=epsilon, svm_tol=SVM_TOL, **bounds)
    if method == "gmedlda":
        return MCMedLDA(K=K, C=C, alpha=alpha, beta=BETA, epsilon=epsilon, svm_tol=SVM_TOL,
                        **bounds)
    if method == "medlda":
        return MedLDA(K=K, alpha=alpha, beta=BETA, lam=102.4, nu=4096.0, burn_in=sweeps // 2)
    return LDA(K=K, alpha=alpha, beta=BETA)


def seconds(s: Session) -> float:
    h = s.history
    return float(h.loc[h["metric"] == "seconds", "value"].sum())


def fit(method, K, seed, train, C, alpha, sweeps, max_sweeps, epsilon=1e-3, bounded=True):
    """Train; returns the session, the training row and, for lda-svm, kappa."""
    model = make_model(method, K, C, alpha, sweeps, epsilon, bounded)
    s = Session(model, train, seed=seed, log_joint_every=0)
    n = s.run(max_sweeps if method.endswith("imedlda") or method == "gmedlda" else sweeps)
    row = {"K": K, "method": method, "seed": seed, "C": C, "sweeps": n,
           "train_seconds": seconds(s)}
    kappa = None
    if method == "lda-svm":
        t0 = time.perf_counter()
        sol = crammer_singer_dual(s.doc_topics(as_frame=False), np.asarray(train.labels.values),
                                  C, n_classes=train.labels.n_classes, tol=SVM_TOL)
        row["train_seconds"] += time.perf_counter() - t0
        kappa = sol.kappa
        D, M = sol.multipliers.shape
        row.update(support=sol.support,
                   nonzero_multipliers=float((sol.multipliers > 0).sum() / (D * (M - 1))))
    if isinstance(model, MCMedLDA):
        h = s.history
        last = h[h["sweep"] == h.loc[h["metric"] == "outer_iteration", "sweep"].max()]
        d = dict(zip(last["metric"], last["value"]))
        row.update(outer_iterations=int(d.get("outer_iteration", 0)),
                   converged=bool(s.model.finished(s.state))
                   and d.get("outer_iteration", 0) < model.max_iterations,
                   support=d.get("support"), nonzero_multipliers=d.get("nonzero_multipliers"),
                   train_accuracy=d.get("train_accuracy"))
    return s, row, kappa


def evaluate(s, test, kappa, seed, **fold_in):
    """Accuracy, prediction seconds and the test posts' theta entropy."""
    t0 = time.perf_counter()
    held = s.corpus.heldout(test)
    zbar = s.model.fold_in(s.state, s.problem, held, seed_state(seed, stream=99), **fold_in)
    if kappa is None:
        pred = s.model.decision_scores(s.state, zbar).argmax(axis=1)
    else:
        pred = svm_predict(kappa, zbar)
    seconds = time.perf_counter() - t0
    classes = np.asarray(s.corpus.labels.classes, dtype=object)
    acc = float(np.mean(classes[pred] == np.asarray(test.labels.names())))
    a = s.model.alpha_vector
    N = held.doc_lengths.astype(float)[:, None]
    theta = (N * zbar + a) / (N + a.sum())
    return acc, seconds, float(entropy(theta[held.doc_lengths > 0]).mean())


def accuracy_part(train, test, ks, seeds, methods, C, alpha, sweeps, max_sweeps, epsilon,
                  out, resume, j_part):
    path = out / "accuracy.csv"
    done = pd.read_csv(path) if resume and path.exists() else pd.DataFrame()
    keys = set(zip(done["K"], done["method"], done["seed"])) if len(done) else set()
    jrows = []
    for K in ks:
        for seed in seeds:
            for method in methods:
                want_j = j_part and K == J_K and seed == 0 and method in ("gmedlda", "imedlda")
                if (K, method, seed) in keys and not want_j:
                    continue
                c = C["lda-svm"] if method == "lda-svm" else C["medlda"]
                s, row, kappa = fit(method, K, seed, train, c, alpha, sweeps, max_sweeps,
                                    epsilon)
                acc, pred_s, ent = evaluate(s, test, kappa, seed)
                row.update(accuracy=acc, predict_seconds=pred_s, test_theta_entropy=ent,
                           topic_entropy=float(entropy(s.topic_word()).mean()))
                print(row, flush=True)
                if (K, method, seed) not in keys:
                    done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
                    done.to_csv(path, index=False)
                if want_j:
                    jrows += j_sensitivity(s, test, method, K, seed)
                del s
                gc.collect()
    return done, pd.DataFrame(jrows)


def j_sensitivity(s, test, method, K, seed):
    rows = []
    if method == "gmedlda":
        for J in GMEDLDA_J:
            acc, sec, _ = evaluate(s, test, None, seed, n_keep=J)
            rows.append({"method": method, "K": K, "J": J, "accuracy": acc,
                         "predict_seconds": sec})
            print(rows[-1], flush=True)
    else:
        before = s.model.importance_samples
        for mult in (*IMEDLDA_J, 0):
            J = int(round(mult * K))
            s.set_params(importance_samples=J)
            acc, sec, _ = evaluate(s, test, None, seed)
            rows.append({"method": method, "K": K, "J": J if J else "exact", "accuracy": acc,
                         "predict_seconds": sec})
            print(rows[-1], flush=True)
        s.set_params(importance_samples=before)
    return rows


def epsilon_part(train, test, C, alpha, sweeps, max_sweeps, epsilons):
    rows = []
    for eps in epsilons:
        s, row, _ = fit("gmedlda", J_K, 0, train, C["medlda"], alpha, sweeps, max_sweeps, eps,
                        bounded=False)
        acc, pred_s, _ = evaluate(s, test, None, 0)
        row.update(epsilon=eps, accuracy=acc, predict_seconds=pred_s)
        rows.append(row)
        print(row, flush=True)
    return pd.DataFrame(rows)


def markdown(cv, acc, jdf, eps, meta):
    out = ["# Monte Carlo MedLDA on 20 Newsgroups (20 classes)", "",
           "Commands, in the order they were run (each adds or replaces its parts' CSVs):", "",
           *[f"    {c}" for c in meta["commands"]], "", f"Date: {meta['date']}  ",
           f"CPU: {meta['cpu']}, one core  ", f"Versions: {meta['versions']}", "",
           f"C = {meta['C']['medlda']:g} for iMedLDA and gMedLDA, {meta['C']['lda-svm']:g} for "
           f"LDA + SVM, cost = {COST:g}; gMedLDA, MedLDA and LDA: alpha "
           f"= {meta['alpha']}, beta = {BETA}; iMedLDA: alpha = 0.01 / K, beta = 1e-5; "
           f"MedLDA and LDA {meta['sweeps']} sweeps; the alternations epsilon = "
           f"{meta['epsilon']:g} (but part epsilon) and at most "
           f"{meta['max_sweeps']} sweeps. Seconds are sampling (and SVM) time only.", ""]
    if len(cv):
        out += ["## C by validation (80/20 split of the training posts, K = 50, seed 0)", "",
                "| C | gMedLDA (at most 100 sweeps) | LDA + SVM |", "|---:|---:|---:|"]
        wide = cv.pivot_table(index="C", columns="method", values="val_accuracy")
        out += [f"| {C:g} | {r['gmedlda']:.3f} | {r['lda-svm']:.3f} |"
                for C, r in wide.iterrows()]
        out.append("")
    if len(acc):
        out += ["## Test accuracy, entropies, time (mean ± sd over seeds)", "",
                "| K | method | accuracy | seeds | train s | predict s | sweeps | outer it. | "
                "converged | non-zero multipliers | support docs | H(test theta) | H(topic) |",
                "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for (K, method), g in acc.groupby(["K", "method"], sort=True):
            def mean(col, fmt):
                return (fmt.format(g[col].mean()) if col in g and g[col].notna().any()
                        else "-")
            conv = (f"{int(g['converged'].astype(bool).sum())}/{len(g)}"
                    if "converged" in g and g["converged"].notna().any() else "-")
            out.append(
                f"| {K} | {method} | {g['accuracy'].mean():.3f} ± "
                f"{g['accuracy'].std(ddof=1) if len(g) > 1 else 0:.3f} | {len(g)} | "
                f"{g['train_seconds'].mean():.0f} | {g['predict_seconds'].mean():.1f} | "
                f"{mean('sweeps', '{:.0f}')} | {mean('outer_iterations', '{:.0f}')} | {conv} | "
                f"{mean('nonzero_multipliers', '{:.4f}')} | {mean('support', '{:.3f}')} | "
                f"{mean('test_theta_entropy', '{:.2f}')} | {mean('topic_entropy', '{:.2f}')} |")
        out.append("")
    if len(jdf):
        out += [f"## Accuracy against the prediction sample size J (K = {J_K}, seed 0)", "",
                "| method | J | accuracy | predict s |", "|---|---:|---:|---:|"]
        out += [f"| {r.method} | {r.J} | {r.accuracy:.3f} | {r.predict_seconds:.1f} |"
                for r in jdf.itertuples()]
        out.append("")
    if len(eps):
        out += [f"## gMedLDA against epsilon (K = {J_K}, seed 0, no iteration bounds)", "",
                "| epsilon | accuracy | train s | sweeps | outer it. | converged |",
                "|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {r.epsilon:g} | {r.accuracy:.3f} | {r.train_seconds:.0f} | {r.sweeps} | "
                f"{r.outer_iterations} | {r.converged} |" for r in eps.itertuples()]
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--parts", default="c,accuracy,j,epsilon")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--seeds", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--methods", type=lambda s: tuple(s.split(",")))
    ap.add_argument("--epsilons", type=lambda s: tuple(float(x) for x in s.split(",")))
    ap.add_argument("--C", type=float, help="C for every method (default: part c's best)")
    ap.add_argument("--sweeps", type=int, default=80)
    ap.add_argument("--max-sweeps", type=int, default=200)
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--epsilon", type=float, default=1e-3, help="parts c and accuracy")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    out = args.out or (DEFAULT_OUT / "quick" / "mc_medlda" if args.quick
                       else DEFAULT_OUT / "mc_medlda")
    out.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    sweeps = 12 if args.quick else args.sweeps
    max_sweeps = 30 if args.quick else args.max_sweeps
    read = (lambda name: pd.read_csv(out / name) if (out / name).exists() else pd.DataFrame())
    cv, acc, jdf, eps = read("c.csv"), read("accuracy.csv"), read("j.csv"), read("epsilon.csv")
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    test = load_20newsgroups("test", path=path)
    if "c" in parts:
        cv = validated_c(train, 20 if args.quick else 50, sweeps,
                         C_GRID[-2:] if args.quick else C_GRID, args.alpha, args.epsilon)
        cv.to_csv(out / "c.csv", index=False)

    def best(method):
        g = cv[cv["method"] == method] if len(cv) else cv
        if args.C or not len(g):
            return args.C or 1e5
        near = g[g["val_accuracy"] >= g["val_accuracy"].max() - C_TIE]
        return float(near["C"].min())
    C = {"medlda": best("gmedlda"), "lda-svm": best("lda-svm")}
    if parts & {"accuracy", "j"}:
        acc, j_new = accuracy_part(
            train, test, args.ks or ((20,) if args.quick else KS),
            args.seeds or ((0,) if args.quick else SEEDS), args.methods or METHODS, C,
            args.alpha, sweeps, max_sweeps, args.epsilon, out,
            args.resume or "accuracy" not in parts,
            "j" in parts)
        if "j" in parts:
            jdf = j_new
            jdf.to_csv(out / "j.csv", index=False)
    if "epsilon" in parts:
        eps = epsilon_part(train, test, C, args.alpha, sweeps, max_sweeps,
                           args.epsilons or ((1e-2,) if args.quick else EPSILONS))
        eps.to_csv(out / "epsilon.csv", index=False)
    # paths relative to where it ran: a results file holds no machine's absolute path
    command = " ".join(shlex.quote(os.path.relpath(a) if os.path.isabs(a) else a)
                       for a in ["python"] + sys.argv)
    with open(out / "commands.txt", "a") as f:
        f.write(command + "\n")
    meta = {"C": C, "alpha": args.alpha, "epsilon": args.epsilon, "sweeps": sweeps, "max_sweeps": max_sweeps,
            "cpu": cpu_model(), "versions": versions(),
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "commands": (out / "commands.txt").read_text().splitlines()}
    md = markdown(cv, acc, jdf, eps, meta)
    (out / "README.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
