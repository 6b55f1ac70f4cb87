"""The partially collapsed sampler on 1 and 2 threads against tomotopy with 1 and 2 workers,
and prediction (fold-in) before and after the parallel sparse kernel.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_parallel.py            # full run (about 26 min with part 3, both cores)
    python benchmarks/bench_parallel.py --quick    # smoke test: K = 20, 4 s budgets

Part 1, LDA (20 Newsgroups train, alpha = 0.1, beta = 0.01, random start, the same budget of
sampling time per K for every chain): topicsup's ``gibbs`` and ``light`` (one thread), the
partially collapsed sampler ``pc-<kernel>-<threads>`` (sparse on 1 and 2 threads at every K,
dense at K <= 100), and tomotopy's ``LDAModel`` with ``workers`` 1 (scheme NONE) and 2 (its
default scheme for LDA, PARTITION). Reported: tokens per second, the speed-up from 1 to 2
threads, and the time to reach the log joint per token that tomotopy with 2 workers reaches at
half its budget, as a ratio to tomotopy's own time (below 1: sooner). The log joint is log p(W,
Z) with Theta and Phi collapsed, the same quantity for every chain (bench_lda.py checks it).

Part 2, 20-class prediction on the 7,532 test posts: LightMedLDA (the shipped preset, light
sampler) trained for 60 sweeps at K in {50, 200}; its training time; the fold-in with 50 + 50
sweeps by the old kernel (``kernels.fold_in.fold_in``: O(K) per token, one thread) and by the
new one (``LDA.fold_in``: the sparse exact kernel, 2 threads), each with its accuracy; and the
same preset on the partially collapsed sampler on 2 threads, accuracy against training time.

Part 3, sweeps to the target (``--parts sweeps``, K in {100, 1000}, about 6 min): tomotopy with 2
workers for the budget (the target, as in part 1), then tomotopy-2 and pc-sparse-2 again with no
time limit, the log joint every few sweeps, until each reaches the target (or a cap of sweeps);
and the time of the partially collapsed sweep's fixed costs on its final state (Phi | Z and the
word tables, median of 5). From these: the sweeps each needs, and the tokens per second the
partially collapsed sampler would need on 2 threads to reach the target when tomotopy does.

Outputs in benchmarks/results/parallel/ (``quick/parallel`` for --quick): README.md (the tables),
lda.csv, prediction.csv, sweeps.csv, curves.csv and curves.{html,png} (log joint against time
per K).
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import ALPHA, BETA, DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa
from bench_samplers import curves_chart, level_at, run_chain, time_to_reach  # noqa: E402

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; numba is not loaded yet
os.environ.pop("OMP_NUM_THREADS", None)

KS = (20, 100, 500, 1000)
BUDGET = {20: 15.0, 100: 25.0, 500: 30.0, 1000: 40.0}
REFERENCE = "tomotopy-2"
# the lda part's chains, in its order (the dense partially collapsed kernel at K <= 100 only)
LDA_CHAINS = ("gibbs", "sparse_gibbs", "light", "pc-sparse-1", "pc-sparse-2", "pc-dense-1",
              "pc-dense-2", "part-sparse-2", "part-dense-2", "tomotopy-1", "tomotopy-2")
# the approximate partitioned sampler (2 x 2 grid, 2 threads; samplers.partitioned), beside
# tomotopy's own PARTITION scheme: labelled "approximate" in every table


class Topicsup:
    def __init__(self, corpus, K, name, seed):
        from topicsup import LDA, Session
        if name.startswith("pc-"):
            _, kernel, threads = name.split("-")
            kw = dict(sampler="partially_collapsed", kernel=kernel, threads=int(threads))
        elif name.startswith("part-"):
            _, kernel, threads = name.split("-")
            kw = dict(sampler="partitioned", partitions=2, kernel=kernel, threads=int(threads))
        else:
            exact = name in ("gibbs", "sparse_gibbs")
            kw = dict(sampler=name, **({} if exact else {"mh_steps": 2}))
        self.s = Session(LDA(K=K, alpha=ALPHA, beta=BETA, **kw), corpus, seed=seed,
                         log_joint_every=0)

    def sweep(self):
        self.s.sweep(1)

    def log_joint_per_token(self):
        return self.s.model.log_joint(self.s.state, self.s.problem) / self.s.corpus.n_tokens


class Tomotopy:
    def __init__(self, corpus, K, workers, seed):
        import tomotopy as tp
        self.mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed, min_cf=0, min_df=0,
                               rm_top=0, tw=tp.TermWeight.ONE)
        for d in range(corpus.n_docs):
            self.mdl.add_doc(corpus.document(d))
        self.mdl.optim_interval = 0
        self.workers = workers
        # 1 worker: tomotopy itself switches to NONE; 2: its default for LDA (PARTITION)
        self.scheme = tp.ParallelScheme.NONE if workers == 1 else tp.ParallelScheme.DEFAULT
        self.mdl.train(0, workers=workers, parallel=self.scheme)
        assert self.mdl.num_words == corpus.n_tokens

    def sweep(self):
        self.mdl.train(1, workers=self.workers, parallel=self.scheme)

    def log_joint_per_token(self):
        return float(self.mdl.ll_per_word)


def make(name, corpus, K, seed):
    if name.startswith("tomotopy-"):
        return Tomotopy(corpus, K, int(name.split("-")[1]), seed)
    return Topicsup(corpus, K, name, seed)


def run(name, corpus, K, budget, seed):
    """bench_samplers' timed loop, with this script's chains."""
    return run_chain(name, corpus, K, budget, 0, seed, warm_up=not name.startswith("tomotopy"),
                     make=lambda n, c, k, _, s: make(n, c, k, s))


def lda_part(corpus, ks, budgets, seed, only=None):
    traces = []
    for K in ks:
        names = [n for n in LDA_CHAINS
                 if K <= 100 or not n.startswith(("pc-dense", "part-dense"))]
        if only:   # the reference always runs: every time is measured against it
            names = [n for n in names if n in only or n == REFERENCE]
        for name in names:
            tr = run(name, corpus, K, budgets[K], seed)
            traces.append(tr)
            print(f"K={K:5d} {name:12s} sweeps={int(tr['sweep'].max()):5d} "
                  f"ll/token={tr['ll_per_token'].dropna().iloc[-1]:.4f}", flush=True)
    traces = pd.concat(traces, ignore_index=True)
    rows = []
    for K, tk in traces.groupby("K"):
        ref = tk[tk["sampler"] == REFERENCE]
        target = level_at(ref, budgets[K] / 2)
        t_ref = time_to_reach(ref, target)
        for name, tr in tk.groupby("sampler", sort=False):
            timed = tr[tr["sweep"] >= 2]
            t = time_to_reach(tr, target)
            rows.append({"K": K, "sampler": name, "sweeps": int(tr["sweep"].max()),
                         "tokens_per_second": corpus.n_tokens * len(timed)
                         / timed["sweep_seconds"].sum(),
                         "final_ll_per_token": float(tr["ll_per_token"].dropna().iloc[-1]),
                         "target_ll_per_token": target, "seconds_to_target": t,
                         "time_vs_tomotopy_2": t / t_ref})
    return traces, pd.DataFrame(rows)


def sweeps_to(name, corpus, K, target, cap, every, seed):
    """Sweep until the log joint per token (evaluated every ``every`` sweeps) reaches
    ``target`` or ``cap`` sweeps; return (sweeps, sampling seconds, final level, chain)."""
    if not name.startswith("tomotopy"):   # compile numba kernels outside any timing
        w = make(name, corpus, K, seed + 1)
        w.sweep()
        del w
        gc.collect()
    chain = make(name, corpus, K, seed)
    elapsed, ll = 0.0, -math.inf
    for sweep in range(1, cap + 1):
        t0 = time.perf_counter()
        chain.sweep()
        elapsed += time.perf_counter() - t0
        if sweep % every == 0 or sweep == cap:
            ll = chain.log_joint_per_token()
            print(f"K={K:5d} {name:12s} sweep {sweep:5d} {elapsed:7.1f} s ll/token={ll:.4f}",
                  flush=True)
            if ll >= target:
                return sweep, elapsed, ll, chain
    return math.nan, math.nan, ll, chain


def fixed_costs(chain, repeats=5):
    """Median seconds of the partially collapsed sweep's fixed costs on the chain's state:
    Phi | Z (V K Gamma draws) and the per-word alias tables over Phi."""
    from topicsup.kernels import partially_collapsed as pc
    s = chain.s
    own, counts, m = s.state.sampler, s.state.counts, s.model
    phi, tables = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        pc.draw_phi(counts.n_wk, counts.n_k, m.beta, own.key, own.phi, own.partial)
        t1 = time.perf_counter()
        pc.build_word_tables(own.phi, m.alpha_vector, own.prob, own.alias, own.mass)
        t2 = time.perf_counter()
        phi.append(t1 - t0)
        tables.append(t2 - t1)
    return float(np.median(phi)), float(np.median(tables))


SWEEP_CAPS = {100: 1500, 1000: 400}
EVERY = {100: 10, 1000: 5}


def sweeps_part(corpus, ks, budgets, seed):
    """Part 3: the sweeps tomotopy-2 and pc-sparse-2 need to reach tomotopy-2's half-budget
    level, and what the partially collapsed sampler would need to get there as soon."""
    rows = []
    for K in ks:
        ref = run(REFERENCE, corpus, K, budgets[K], seed)
        target = level_at(ref, budgets[K] / 2)
        t_ref = time_to_reach(ref, target)
        cap = SWEEP_CAPS.get(K, 400)
        for name, every in ((REFERENCE, 2), ("pc-sparse-2", EVERY.get(K, 5))):
            n, t, ll, chain = sweeps_to(name, corpus, K, target, cap, every, seed)
            row = {"K": K, "sampler": name, "target_ll_per_token": target,
                   "tomotopy_2_seconds": t_ref, "sweeps_to_target": n,
                   "seconds_to_target": t, "final_ll_per_token": ll,
                   "phi_seconds": math.nan, "tables_seconds": math.nan}
            if name.startswith("pc-"):
                row["phi_seconds"], row["tables_seconds"] = fixed_costs(chain)
            rows.append(row)
            print(row, flush=True)
            del chain
            gc.collect()
    out = pd.DataFrame(rows)
    out["seconds_per_sweep"] = out["seconds_to_target"] / out["sweeps_to_target"]
    # to reach the target when tomotopy-2 does (its time in the budget run), a chain needing
    # n sweeps must sweep n N tokens in that time
    out["needed_tokens_per_second"] = (out["sweeps_to_target"] * corpus.n_tokens
                                       / out["tomotopy_2_seconds"])
    out["tokens_per_second"] = corpus.n_tokens / out["seconds_per_sweep"]
    return out


def prediction_part(train, test, ks, sweeps, seed):
    from topicsup import LightMedLDA, Session
    from topicsup.kernels.fold_in import content_labels, fold_in as old_fold_in
    from topicsup.kernels.rng import seed_state
    from topicsup.models import FOLD_IN_BURN, FOLD_IN_KEEP
    rows = []
    held = None
    for K in ks:
        for sampler in ("light", "partially_collapsed"):
            kw = {} if sampler == "light" else dict(sampler="partially_collapsed", threads=2)
            s = Session(LightMedLDA(K=K, **kw), train, seed=seed, log_joint_every=0)
            held = s.corpus.heldout(test)
            trained = 0.0
            for block in range(3):
                t0 = time.perf_counter()
                s.run(sweeps // 3)
                trained += time.perf_counter() - t0
                if sampler == "partially_collapsed" or block == 2:
                    t0 = time.perf_counter()
                    acc = s.score(test)
                    new_seconds = time.perf_counter() - t0
                    rows.append({"K": K, "sampler": sampler, "sweeps": s.n_sweeps,
                                 "train_seconds": trained, "accuracy": acc,
                                 "predict_seconds": new_seconds, "fold_in": "sparse, 2 threads"})
                    print(rows[-1], flush=True)
            if sampler == "light":   # the same state, folded in by the old kernel
                st, m = s.state, s.model
                phi = np.ascontiguousarray(m.topic_word(st, s.problem).T)
                zbar = np.zeros((held.n_docs, K))
                t0 = time.perf_counter()
                old_fold_in(held.words, held.doc_ptr, phi, m.alpha_vector, FOLD_IN_BURN,
                            FOLD_IN_KEEP, seed_state(0, stream=7),
                            content_labels(held.words, held.doc_ptr),
                            np.zeros(held.n_tokens, np.int32), zbar)
                a = m.alpha_vector
                zbar[held.doc_lengths == 0] = a / a.sum()
                scores = m.decision_scores(st, zbar)
                old_seconds = time.perf_counter() - t0
                acc = float((np.asarray(s.corpus.labels.classes)[scores.argmax(1)]
                             == np.asarray(test.labels.names())).mean())
                rows.append({"K": K, "sampler": sampler, "sweeps": s.n_sweeps,
                             "train_seconds": trained, "accuracy": acc,
                             "predict_seconds": old_seconds, "fold_in": "dense, 1 thread (old)"})
                print(rows[-1], flush=True)
            del s
            gc.collect()
    return pd.DataFrame(rows)


def save_curves(traces, out):
    """The log joint per token against sampling time, a panel per K (curves.{html,png});
    ``python benchmarks/bench_parallel.py --curves-only`` redraws it from curves.csv."""
    chart = curves_chart(traces, "sampling time (s)").properties(
        title="Log joint per token against time, 20 Newsgroups train, both cores "
              "(pc-<kernel>-<threads>, tomotopy-<workers>)")
    chart.save(str(out / "curves.html"), format="html", inline=True)
    chart.save(str(out / "curves.png"), scale_factor=1.5)


def markdown(lda, pred, sweeps, meta):
    out = ["# The partially collapsed sampler in parallel, and prediction", "",
           f"Corpus: 20 Newsgroups train ({meta['n_docs']} documents, {meta['n_words']} words, "
           f"{meta['n_tokens']} tokens), alpha = 0.1, beta = 0.01, random start; budgets "
           f"{meta['budgets']} s of sampling per chain. Reference: tomotopy with 2 workers "
           f"(PARTITION).", ""]
    if len(lda):
        out += ["Millions of tokens per second (sweeps after the first) and the speed-up from "
                "1 to 2 threads:", ""]
        piv = lda.pivot(index="K", columns="sampler", values="tokens_per_second") / 1e6
        cols = [c for c in ["gibbs", "sparse_gibbs", "light", "pc-dense-1", "pc-dense-2",
                            "pc-sparse-1", "pc-sparse-2", "part-sparse-2", "part-dense-2",
                            "tomotopy-1", "tomotopy-2"] if c in piv.columns]
        out.append("| K | " + " | ".join(cols) + " | pc-sparse 2/1 | pc-dense 2/1 | "
                   "tomotopy 2/1 |")
        out.append("|---:|" + "---:|" * (len(cols) + 3))
        for K, r in piv.iterrows():
            def ratio(a, b):
                return f"{r[a] / r[b]:.2f}" if a in r and b in r and not math.isnan(r[a]) \
                    else "-"
            out.append(f"| {K} | " + " | ".join(
                "-" if math.isnan(r.get(c, math.nan)) else f"{r[c]:.2f}" for c in cols)
                + f" | {ratio('pc-sparse-2', 'pc-sparse-1')} | "
                f"{ratio('pc-dense-2', 'pc-dense-1')} | {ratio('tomotopy-2', 'tomotopy-1')} |")
        out += ["", "Seconds to reach tomotopy-2's half-budget log joint per token, and the "
                "ratio to tomotopy-2's own time (below 1: sooner; '-': not reached). "
                "**Approximate** chains (stale topic totals within a step of a 2 x 2 grid: "
                "part-*, topicsup's `sampler=\"partitioned\"`, and tomotopy-2's PARTITION "
                "scheme; their bias on an enumerable corpus: benchmarks/results/partition_bias) "
                "are marked; the others are exact:", ""]
        out.append("| K | target | sampler | seconds | ratio | final ll/token |")
        out.append("|---:|---:|---|---:|---:|---:|")
        for _, r in lda.iterrows():
            t = "-" if math.isnan(r.seconds_to_target) else f"{r.seconds_to_target:.1f}"
            q = "-" if math.isnan(r.time_vs_tomotopy_2) else f"{r.time_vs_tomotopy_2:.2f}"
            approx = " (approximate)" if r.sampler.startswith("part-") \
                or r.sampler == "tomotopy-2" else ""
            out.append(f"| {r.K} | {r.target_ll_per_token:.4f} | {r.sampler}{approx} | {t} | "
                       f"{q} | {r.final_ll_per_token:.4f} |")
    if len(pred):
        out += ["", "20-class prediction on the test posts (LightMedLDA preset; fold-in 50 + 50 "
                "sweeps):", "", "| K | sampler | sweeps | training s | fold-in | predict s | "
                "accuracy |", "|---:|---|---:|---:|---|---:|---:|"]
        for _, r in pred.iterrows():
            out.append(f"| {r.K} | {r.sampler} | {r.sweeps} | {r.train_seconds:.1f} | "
                       f"{r.fold_in} | {r.predict_seconds:.1f} | {r.accuracy:.3f} |")
    if len(sweeps):
        out += ["", "Sweeps to tomotopy-2's half-budget log joint per token with no time limit "
                "(log joint every 2 sweeps for tomotopy-2, every 10 / 5 for pc-sparse-2 at K = "
                "100 / 1000), the partially collapsed sweep's fixed costs on its final state, "
                "and the tokens per second a chain needing that many sweeps must sweep to reach "
                "the target when tomotopy-2 does (its time in the budget run):", "",
                "| K | target | sampler | sweeps | seconds | s / sweep | M tokens/s | "
                "M tokens/s needed | Phi s / sweep | tables s / sweep |",
                "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]

        def f(x, fmt):
            return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt % x
        for _, r in sweeps.iterrows():
            out.append(f"| {r.K} | {r.target_ll_per_token:.4f} | {r.sampler} | "
                       f"{f(r.sweeps_to_target, '%d')} | {f(r.seconds_to_target, '%.1f')} | "
                       f"{f(r.seconds_per_sweep, '%.3f')} | "
                       f"{f(r.tokens_per_second / 1e6, '%.2f')} | "
                       f"{f(r.needed_tokens_per_second / 1e6, '%.2f')} | "
                       f"{f(r.phi_seconds, '%.3f')} | {f(r.tables_seconds, '%.3f')} |")
    out += ["", "Runs (each part's tables come from its own run; a run of some parts reads "
            "the others' tables from their CSV files):", ""]
    for part, r in meta["runs"].items():
        out += [f"- {part}: `{r['command']}`, {r['date']}, {r['machine']}, {r['versions']}"]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--prediction-ks", type=lambda s: tuple(int(x) for x in s.split(",")),
                    default=(50, 200))
    ap.add_argument("--parts", default="lda,prediction,sweeps",
                    help="comma-separated parts to run (lda, prediction, sweeps); the tables of "
                         "the others are read from their CSV files of an earlier run")
    ap.add_argument("--sweeps", type=int, default=60, help="prediction part: training sweeps")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--readme-only", action="store_true",
                    help="rewrite README.md from the results' CSV files, running nothing")
    ap.add_argument("--curves-only", action="store_true",
                    help="redraw curves.{html,png} from the results' curves.csv")
    ap.add_argument("--samplers", type=lambda s: tuple(s.split(",")),
                    help="lda part: only these chains (and the reference, tomotopy-2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    unknown = sorted(set(args.samplers or ()) - set(LDA_CHAINS))
    if unknown:
        ap.error(f"--samplers: unknown {unknown}; choose from {list(LDA_CHAINS)}")
    if args.curves_only:
        out = args.out or DEFAULT_OUT / "parallel"
        save_curves(pd.read_csv(out / "curves.csv"), out)
        return 0
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    import numba
    assert numba.config.NUMBA_NUM_THREADS == 2, numba.config.NUMBA_NUM_THREADS
    ks = args.ks or ((20,) if args.quick else KS)
    budgets = {K: 4.0 if args.quick else BUDGET.get(K, 40.0) for K in ks}
    out = args.out or (DEFAULT_OUT / "quick" / "parallel" if args.quick
                       else DEFAULT_OUT / "parallel")
    out.mkdir(parents=True, exist_ok=True)
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    test = load_20newsgroups("test", path=path)
    parts = set() if args.readme_only else set(args.parts.split(","))
    unknown = parts - {"lda", "prediction", "sweeps"}
    if unknown:
        ap.error(f"--parts: unknown parts {sorted(unknown)}; expected lda, prediction, sweeps")

    def earlier(name):
        f = out / name
        return pd.read_csv(f) if f.exists() else pd.DataFrame()
    lda = earlier("lda.csv")
    sweeps = earlier("sweeps.csv")
    pred = earlier("prediction.csv")
    if "lda" in parts:
        lda_traces, lda = lda_part(train, ks, budgets, args.seed, args.samplers)
        lda_traces.to_csv(out / "curves.csv", index=False)
        lda.to_csv(out / "lda.csv", index=False)
        save_curves(lda_traces, out)
    if "sweeps" in parts:
        sks = args.ks or ((20,) if args.quick else (100, 1000))
        sweeps = sweeps_part(train, sks, {K: 4.0 if args.quick else BUDGET.get(K, 40.0)
                                          for K in sks}, args.seed)
        sweeps.to_csv(out / "sweeps.csv", index=False)
    if "prediction" in parts:
        pred = prediction_part(train, test, (50,) if args.quick else args.prediction_ks,
                               6 if args.quick else args.sweeps, args.seed)
        pred.to_csv(out / "prediction.csv", index=False)
    run_meta = {"machine": f"{cpu_model()}, NUMBA_NUM_THREADS=2", "versions": versions(),
                "date": _dt.datetime.now().isoformat(timespec="seconds"),
                "command": " ".join(shlex.quote(a) for a in ["python"] + sys.argv)}
    for part in parts:   # each part's tables say which run made them
        (out / f"{part}.meta.json").write_text(json.dumps(run_meta, indent=1) + "\n")
    meta = {"n_docs": train.n_docs, "n_words": train.n_words, "n_tokens": train.n_tokens,
            "budgets": budgets, "runs": {}}
    for part in ("lda", "prediction", "sweeps"):
        f = out / f"{part}.meta.json"
        if f.exists():
            meta["runs"][part] = json.loads(f.read_text())
    md = markdown(lda, pred, sweeps, meta)
    (out / "README.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
