"""Fast topic samplers against Gibbs, tomotopy and lda: throughput and log joint vs time.

Run from the repository root with the project's virtualenv::

    python benchmarks/bench_samplers.py             # full run (about 30 min, one core)
    python benchmarks/bench_samplers.py --quick     # smoke test: K in {20, 500}, 4 s budgets

Every sampler gets the same corpus (20 Newsgroups train, topicsup's default preprocessing),
symmetric alpha = 0.1, beta = 0.01, one thread, a random start, and the same budget of sampling
time per K. Each run records, after each sweep, the cumulative sampling time (log-joint
evaluation, initialisation and numba compilation excluded) and, at thinned sweeps, the log
joint per token log p(w, z) / N (Li et al. 2014 Fig. 6). From the run it reports

* tokens per second: ``N * sweeps / seconds`` over the sweeps after the first;
* time to reach a fixed log joint per token: the level tomotopy's ``LDAModel`` reaches at half
  its budget at that K (so tomotopy's own time is about half the budget by construction),
  interpolated linearly between evaluated sweeps; the ratio column is that time over
  tomotopy's (below 1 is faster than tomotopy).

Outputs in benchmarks/results/ (``quick/`` for --quick): samplers_throughput.{csv,md},
samplers_curves.csv (every evaluated point) and samplers_curves.{html,png} (the Altair chart).
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numpy / numba / tomotopy are imported
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import logging  # noqa: E402
import math  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import (ALPHA, BETA, DEFAULT_OUT, archive_or_skip, cpu_model,  # noqa: E402
                       versions)

KS = (20, 100, 500, 1000, 2000)
QUICK_KS = (20, 500)
SAMPLERS = ("gibbs", "sparse_gibbs", "alias", "light", "tomotopy", "lda")
N_POINTS = 60  # evaluated sweeps per run, about


def budget_seconds(K: int) -> float:
    """Sampling time per run: larger K converges more slowly."""
    return {20: 20.0, 100: 25.0}.get(K, 40.0)


# --------------------------------------------------------------------------------------------
# One chain per library behind the same two calls: sweep() (timed) and log_joint() (not).

class TopicsupChain:
    def __init__(self, corpus, K: int, sampler: str, mh_steps: int, seed: int):
        from topicsup import LDA, Session
        exact = sampler in ("gibbs", "sparse_gibbs")
        mh = {} if exact else {"mh_steps": mh_steps}   # exact draws: no MH steps
        self.session = Session(LDA(K=K, alpha=ALPHA, beta=BETA, sampler=sampler, **mh), corpus,
                               seed=seed, log_joint_every=0)
        self.n_tokens = corpus.n_tokens

    def sweep(self) -> None:
        self.session.sweep(1)

    def log_joint_per_token(self) -> float:
        s = self.session
        return s.model.log_joint(s.state, s.problem) / self.n_tokens


class TomotopyChain:
    def __init__(self, corpus, K: int, seed: int):
        import tomotopy as tp
        self.tp = tp
        self.mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed, min_cf=0, min_df=0,
                               rm_top=0, tw=tp.TermWeight.ONE)
        for d in range(corpus.n_docs):
            self.mdl.add_doc(corpus.document(d))
        self.mdl.optim_interval = 0  # alpha stays 0.1
        self.scheme = getattr(tp.ParallelScheme, "NONE", tp.ParallelScheme.DEFAULT)
        self.mdl.train(0, workers=1, parallel=self.scheme)
        assert self.mdl.num_words == corpus.n_tokens

    def sweep(self) -> None:
        self.mdl.train(1, workers=1, parallel=self.scheme)

    def log_joint_per_token(self) -> float:
        return float(self.mdl.ll_per_word)


class LdaChain:
    """lda's LDA._fit loop body, one iteration per call (see bench_lda.run_lda)."""

    def __init__(self, corpus, K: int, seed: int):
        import lda
        import lda.utils
        logging.getLogger("lda").setLevel(logging.WARNING)
        self.model = lda.LDA(n_topics=K, n_iter=1, alpha=ALPHA, eta=BETA, random_state=seed)
        self.random_state = lda.utils.check_random_state(seed)
        self.rands = self.model._rands.copy()
        self.model._initialize(corpus.to_matrix().astype(np.int64))
        self.n_tokens = corpus.n_tokens
        assert len(self.model.WS) == corpus.n_tokens

    def sweep(self) -> None:
        self.random_state.shuffle(self.rands)
        self.model._sample_topics(self.rands)

    def log_joint_per_token(self) -> float:
        return float(self.model.loglikelihood()) / self.n_tokens


def make_chain(name: str, corpus, K: int, mh_steps: int, seed: int):
    if name == "tomotopy":
        return TomotopyChain(corpus, K, seed)
    if name == "lda":
        return LdaChain(corpus, K, seed)
    return TopicsupChain(corpus, K, name, mh_steps, seed)


def run_chain(name: str, corpus, K: int, budget: float, mh_steps: int, seed: int,
              warm_up: bool, make=None) -> pd.DataFrame:
    """Sweep until ``budget`` seconds of sampling; return the per-sweep trace. ``make(name,
    corpus, K, mh_steps, seed)`` builds a chain (``make_chain`` by default)."""
    make = make or make_chain
    if warm_up:  # compile numba kernels outside any timing
        w = make(name, corpus, K, mh_steps, seed + 1)
        w.sweep()
        w.log_joint_per_token()
        del w
        gc.collect()
    chain = make(name, corpus, K, mh_steps, seed)
    rows = [{"sweep": 0, "seconds": 0.0, "ll_per_token": chain.log_joint_per_token()}]
    elapsed, sweep, last_eval = 0.0, 0, 0.0
    while elapsed < budget:
        t0 = time.perf_counter()
        chain.sweep()
        dt = time.perf_counter() - t0
        elapsed += dt
        sweep += 1
        row = {"sweep": sweep, "seconds": elapsed, "sweep_seconds": dt,
               "ll_per_token": math.nan}
        if sweep <= 10 or elapsed - last_eval >= budget / N_POINTS or elapsed >= budget:
            row["ll_per_token"] = chain.log_joint_per_token()
            last_eval = elapsed
        rows.append(row)
    del chain
    gc.collect()
    df = pd.DataFrame(rows)
    df.insert(0, "sampler", name)
    df.insert(1, "K", K)
    return df


# --------------------------------------------------------------------------------------------

def time_to_reach(trace: pd.DataFrame, level: float) -> float:
    """Sampling seconds at which the evaluated log joint first reaches ``level``, linearly
    interpolated between evaluated sweeps; nan if never reached."""
    ev = trace.dropna(subset=["ll_per_token"])
    t, y = ev["seconds"].to_numpy(), ev["ll_per_token"].to_numpy()
    hit = np.nonzero(y >= level)[0]
    if not len(hit):
        return math.nan
    j = hit[0]
    if j == 0:
        return float(t[0])
    return float(t[j - 1] + (level - y[j - 1]) / (y[j] - y[j - 1]) * (t[j] - t[j - 1]))


def level_at(trace: pd.DataFrame, seconds: float) -> float:
    """The evaluated log joint per token interpolated at ``seconds`` of sampling."""
    ev = trace.dropna(subset=["ll_per_token"])
    return float(np.interp(seconds, ev["seconds"], ev["ll_per_token"]))


def summarise(traces: pd.DataFrame, n_tokens: int, budgets: dict[int, float]) -> pd.DataFrame:
    rows = []
    for K, tk in traces.groupby("K"):
        ref = "tomotopy" if "tomotopy" in set(tk["sampler"]) else "gibbs"
        target = level_at(tk[tk["sampler"] == ref], budgets[K] / 2)
        t_ref = time_to_reach(tk[tk["sampler"] == ref], target)
        for name, tr in tk.groupby("sampler", sort=False):
            timed = tr[tr["sweep"] >= 2]
            tps = n_tokens * len(timed) / timed["sweep_seconds"].sum() if len(timed) else math.nan
            t = time_to_reach(tr, target)
            ev = tr.dropna(subset=["ll_per_token"])
            rows.append({
                "K": K, "sampler": name, "sweeps": int(tr["sweep"].max()),
                "tokens_per_second": tps,
                "median_sweep_seconds": float(tr.loc[tr["sweep"] >= 1, "sweep_seconds"]
                                              .median()),
                "final_ll_per_token": float(ev["ll_per_token"].iloc[-1]),
                "target_ll_per_token": target, "target_from": ref,
                "seconds_to_target": t, "time_vs_reference": t / t_ref,
            })
    return pd.DataFrame(rows)


def curves_chart(traces: pd.DataFrame, x_title: str = "sampling time (s, one core)"):
    import altair as alt
    ev = traces.dropna(subset=["ll_per_token"])
    ev = ev[ev["sweep"] > 0]
    return alt.Chart(ev).mark_line(point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X("seconds:Q", title=x_title),
        y=alt.Y("ll_per_token:Q", title="log joint per token", scale=alt.Scale(zero=False)),
        color=alt.Color("sampler:N", title="sampler"),
        tooltip=["sampler", "K", "sweep", "seconds", "ll_per_token"],
    ).properties(width=260, height=200).facet(
        facet=alt.Facet("K:O", title="topics K"), columns=3,
    ).resolve_scale(y="independent").properties(
        title="Log joint per token against time, 20 Newsgroups train (Li et al. 2014 Fig. 6)")


def markdown(summary: pd.DataFrame, meta: dict) -> str:
    pivot = summary.pivot(index="K", columns="sampler", values="tokens_per_second")
    names = [s for s in meta["samplers"] if s in pivot.columns]
    ours = [n for n in names if n not in ("tomotopy", "lda")]
    lines = [
        "# Fast samplers: throughput and time to a fixed log joint"
        + (" (quick trial run)" if meta["quick"] else ""), "",
        f"Corpus: 20 Newsgroups train ({meta['n_docs']} documents, {meta['n_words']} words, "
        f"{meta['n_tokens']} tokens), alpha = {ALPHA}, beta = {BETA}, one thread, random "
        f"start, light and alias with mh_steps = {meta['mh_steps']}. Budget of sampling time "
        "per run: " + ", ".join(f"K={k}: {b:g} s" for k, b in meta["budgets"].items()) + ".",
        "", "Throughput, millions of tokens per second (sweeps after the first):", "",
        "| K | " + " | ".join(names) + " | " + " | ".join(f"{n} / tomotopy" for n in ours)
        + " |",
        "|---:|" + "---:|" * (len(names) + len(ours)),
    ]
    for K, r in pivot.iterrows():
        ratios = [r[n] / r.get("tomotopy", math.nan) for n in ours]
        lines.append(f"| {K} | " + " | ".join(f"{r[n] / 1e6:.2f}" for n in names)
                     + " | " + " | ".join(f"{x:.2f}x" for x in ratios) + " |")
    light = summary[summary["sampler"] == "light"].set_index("K")["median_sweep_seconds"]
    if len(light) > 1 and 100 in light.index:
        lines += ["", "Light sampler, median seconds per sweep and ratio to K = 100 (flatness):",
                  "", "| K | s / sweep | / K=100 |", "|---:|---:|---:|"]
        lines += [f"| {K} | {s:.4f} | {s / light[100]:.2f} |" for K, s in light.items()]
    lines += ["", "Time to reach the target log joint per token (the level the reference, "
              "tomotopy, reaches at half its budget), seconds of sampling; ratio = time / "
              "reference time (below 1 is faster); '-' = not reached within the budget:", "",
              "| K | target | " + " | ".join(names) + " | " +
              " | ".join(f"{n} ratio" for n in names if n != "tomotopy") + " |",
              "|---:|---:|" + "---:|" * (2 * len(names) - 1)]
    for K, g in summary.groupby("K"):
        g = g.set_index("sampler")
        cell = lambda v, f: "-" if not math.isfinite(v) else f.format(v)  # noqa: E731
        lines.append(f"| {K} | {g['target_ll_per_token'].iloc[0]:.4f} | "
                     + " | ".join(cell(g.loc[n, "seconds_to_target"], "{:.1f}") for n in names)
                     + " | " + " | ".join(cell(g.loc[n, "time_vs_reference"], "{:.2f}")
                                          for n in names if n != "tomotopy") + " |")
    lines += ["", "Final log joint per token (end of budget):", "",
              "| K | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    fin = summary.pivot(index="K", columns="sampler", values="final_ll_per_token")
    for K, r in fin.iterrows():
        lines.append(f"| {K} | " + " | ".join(f"{r[n]:.4f}" for n in names) + " |")
    v = meta["versions"]
    lines += ["", f"- Machine: {meta['cpu']}; runs pinned to one core when possible "
              f"({meta['affinity']})",
              "- Versions: " + ", ".join(f"{k} {v[k]}" for k in v),
              f"- Date: {meta['date']}", f"- Command: `{meta['command']}`",
              "- Timed: one sweep per call (topicsup `Session.sweep(1)` with "
              "log_joint_every=0; tomotopy `train(1, workers=1, parallel=NONE)`, "
              "optim_interval = 0; lda `shuffle(rands)` + `_sample_topics(rands)`). Not timed: "
              "loading, initialisation, numba compilation (a separate warm-up chain), log-joint "
              "evaluation (thinned to about 60 points per run).",
              "- The chains of different libraries start from different random states; "
              "one seed per run, so treat differences of a few percent as noise."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="20news-bydate.tar.gz (default: $TOPICSUP_DATA, "
                                   "../shared/data, the cache: find_archive)")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--samplers", type=lambda s: tuple(s.split(",")), default=SAMPLERS)
    ap.add_argument("--budget", type=float, help="seconds of sampling per run (all K)")
    ap.add_argument("--mh-steps", type=int, default=2, help="light and alias MH steps/token")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    path = archive_or_skip(args.data)
    if path is None:
        return 0
    try:  # one core, so timings are not disturbed by migrations
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        pass
    ks = args.ks or (QUICK_KS if args.quick else KS)
    budgets = {K: args.budget or (4.0 if args.quick else budget_seconds(K)) for K in ks}
    out = args.out or (DEFAULT_OUT / "quick" if args.quick else DEFAULT_OUT)
    out.mkdir(parents=True, exist_ok=True)

    from topicsup.datasets import load_20newsgroups
    corpus = load_20newsgroups("train", path=path)
    print(f"corpus: {corpus.n_docs} docs, {corpus.n_words} words, {corpus.n_tokens} tokens",
          flush=True)
    traces = []
    for K in ks:
        for i, name in enumerate(args.samplers):
            tr = run_chain(name, corpus, K, budgets[K], args.mh_steps, args.seed,
                           warm_up=name not in ("tomotopy", "lda"))
            traces.append(tr)
            ev = tr.dropna(subset=["ll_per_token"])
            print(f"K={K:5d} {name:9s} sweeps={int(tr['sweep'].max()):5d} "
                  f"final ll/token={ev['ll_per_token'].iloc[-1]:.4f}", flush=True)
    traces = pd.concat(traces, ignore_index=True)
    summary = summarise(traces, corpus.n_tokens, budgets)
    meta = {"quick": args.quick, "n_docs": corpus.n_docs, "n_words": corpus.n_words,
            "n_tokens": corpus.n_tokens, "mh_steps": args.mh_steps, "budgets": budgets,
            "samplers": args.samplers, "cpu": cpu_model(),
            "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else "?", "versions": versions(),
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(shlex.quote(a) for a in ["python"] + sys.argv)}
    traces.to_csv(out / "samplers_curves.csv", index=False)
    summary.to_csv(out / "samplers_throughput.csv", index=False)
    md = markdown(summary, meta)
    (out / "samplers_throughput.md").write_text(md)
    chart = curves_chart(traces)
    chart.save(str(out / "samplers_curves.html"), format="html", inline=True)
    chart.save(str(out / "samplers_curves.png"), scale_factor=1.5)
    print(md)
    print(f"wrote {out}/samplers_throughput.{{csv,md}}, samplers_curves.{{csv,html,png}}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
