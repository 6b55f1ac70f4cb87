"""How many sweeps the partially collapsed chain needs, against collapsed Gibbs, as the corpus
grows past its topic-word table (issue 50, item 6): the sweeps factor ``sampler="auto"``
multiplies a chain's seconds per sweep by (``benchmarks/bench_auto.py`` fits it from these
traces and the 20 Newsgroups races).

Run from the repository root with the project's virtualenv::

    python benchmarks/bench_mixing.py            # four corpora, about 30 min on 2 cores
    python benchmarks/bench_mixing.py --quick    # smoke test, under a minute
    python benchmarks/bench_mixing.py --corpora 1e7:12000:100 --append   # one more corpus
    python benchmarks/bench_mixing.py --corpora 1e7:4000:100 --seed 1 --append   # another draw

Why a factor that depends on the corpus: the partially collapsed sampler draws Phi | Z, then Z
| Phi, where collapsed Gibbs integrates Phi out. Its extra autocorrelation comes from Phi's
draw, whose spread about its mean shrinks as the topic-word counts grow, so the factor should
fall towards 1 as the tokens per entry of the V x K table, N / (V K), grow. On 20 Newsgroups
(N / VK from 0.05 to 2.7) it stays about 2; the scaling run (benchmarks/bench_scaling.py) saw
the exact partially collapsed chain overtake at N / VK = 24, but at an early level.

What is measured, per corpus: collapsed Gibbs (``gibbs``) runs ``--gibbs-sweeps`` sweeps from a
random start, its log joint per token log p(W, Z) / N evaluated every few sweeps; the level is
the log joint it has at half its run (the definition of bench_auto.py's factor, a late level,
not an early one). The partially collapsed chain on 2 threads (``pc-sparse-2``) then runs from
its own random start until its log joint, evaluated after every sweep, reaches that level (or
``--max-factor`` times Gibbs's half run). The factor is the sweeps it took over Gibbs's. Only
sweeps are counted: the factor does not depend on the machine's speed or load (seconds per
sweep come from bench_auto.py and bench_scaling.py, measured alone).

The dense and sparse partially collapsed kernels draw the same chain law (each token's topic
exactly from its conditional given Phi), so one factor serves both, as one serves ``gibbs``
and ``sparse_gibbs``.

Corpora are drawn from LDA as bench_scaling.py's (``draw_corpus``, the Zipf base measure,
alpha = 0.1, beta = 0.01, 200 tokens a document on average); the vocabulary drawn from sets
N / VK. Outputs in benchmarks/results/mixing/: curves.csv (the traces), factors.csv (a row per
corpus), meta.json and README.md.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from bench_lda import ALPHA, BETA, cpu_model, versions  # noqa: E402
from bench_scaling import draw_corpus  # noqa: E402

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; numba is not loaded yet

OUT = ROOT / "benchmarks" / "results" / "mixing"
# (tokens, vocabulary drawn, K): N / VK about 0.34, 2.7, 25 and 100 at K = 100
CORPORA = ((10**6, 50_000, 100), (10**7, 50_000, 100), (10**7, 4_000, 100),
           (10**7, 1_000, 100))
QUICK = ((10**5, 2_000, 20), (10**5, 200, 20))
GIBBS_SWEEPS = 200
GIBBS_EVERY = 5
MAX_FACTOR = 4.0
REFERENCE = "gibbs"
CHAIN = "pc-sparse-2"
SETTINGS = {REFERENCE: {"sampler": "gibbs"},
            CHAIN: {"sampler": "partially_collapsed", "kernel": "sparse", "threads": 0}}


def session(corpus, K: int, chain: str, seed: int):
    from topicsup import LDA, Session
    return Session(LDA(K=K, alpha=ALPHA, beta=BETA, **SETTINGS[chain]), corpus, seed=seed,
                   log_joint_every=0)


def ll(s) -> float:
    return float(s.model.log_joint(s.state, s.problem)) / s.corpus.n_tokens


def run_corpus(N: int, V_draw: int, K: int, gibbs_sweeps: int, max_factor: float,
               seed: int) -> tuple[dict, list[dict]]:
    from topicsup import Corpus
    c = draw_corpus(N, K, V=V_draw, seed=seed)
    V = int(c["n_words"])
    corpus = Corpus(words=c["words"], doc_ptr=c["doc_ptr"],
                    vocabulary=tuple(f"w{v}" for v in range(V)))
    name = f"N{N:.0e}-V{V_draw}-K{K}".replace("+", "") + (f"-seed{seed}" if seed else "")
    x = N / (V * K)
    D = corpus.n_docs
    print(f"{name}: {corpus.n_docs:,} documents, V = {V:,}, N / VK = {x:.3g}", flush=True)
    rows: list[dict] = []

    def record(chain: str, sweep: int, value: float) -> None:
        rows.append({"corpus": name, "N": N, "D": D, "V": V, "K": K,
                     "sampler": chain, "sweep": sweep, "ll_per_token": value})

    half = gibbs_sweeps // 2
    s = session(corpus, K, REFERENCE, seed)
    record(REFERENCE, 0, ll(s))
    for sweep in range(1, gibbs_sweeps + 1):
        s.sweep(1)
        if sweep % GIBBS_EVERY == 0 or sweep == half:
            record(REFERENCE, sweep, ll(s))
    level = next(r["ll_per_token"] for r in rows if r["sweep"] == half)
    print(f"  {REFERENCE}: level {level:.5f} at sweep {half}, "
          f"{rows[-1]['ll_per_token']:.5f} at {gibbs_sweeps}", flush=True)
    del s
    gc.collect()
    s = session(corpus, K, CHAIN, seed + 1)
    record(CHAIN, 0, ll(s))
    hit = None
    for sweep in range(1, int(max_factor * half) + 1):
        s.sweep(1)
        value = ll(s)
        record(CHAIN, sweep, value)
        if value >= level:
            hit = sweep
            break
    factor = hit / half if hit is not None else float("nan")
    print(f"  {CHAIN}: {'-' if hit is None else hit} sweeps, factor {factor:.3f}", flush=True)
    del s, corpus
    gc.collect()
    return ({"corpus": name, "N": N, "D": D, "V": V, "K": K,
             "tokens_per_entry": x, "gibbs_half": half, "level": level,
             "chain": CHAIN, "sweeps": hit, "factor": factor}, rows)


def readme(factors: pd.DataFrame, meta: dict) -> str:
    out = ["# Sweeps to a late level: the partially collapsed chain against collapsed Gibbs",
           "",
           "`benchmarks/bench_mixing.py` (its docstring says how). Per corpus drawn from LDA: "
           "the level collapsed Gibbs reaches at half its run of "
           f"{meta['gibbs_sweeps']} sweeps, and the sweeps `{CHAIN}` needs to reach it, over "
           "Gibbs's (the factor `sampler=\"auto\"` multiplies its seconds per sweep by).", "",
           "| corpus | N | documents | V | K | N / VK | level | pc sweeps | factor |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in factors.itertuples():
        sweeps = "-" if not np.isfinite(r.factor) else f"{int(r.sweeps)}"
        fac = "not reached" if not np.isfinite(r.factor) else f"{r.factor:.2f}"
        out.append(f"| {r.corpus} | {r.N:,} | {r.D:,} | {r.V:,} | {r.K} | "
                   f"{r.tokens_per_entry:.3g} | {r.level:.4f} | {sweeps} | {fac} |")
    commands = ", then ".join(f"`{c}`" for c in meta["commands"])
    out += ["", f"Commands: {commands}; {meta['date']}; {meta['machine']}; "
                f"{meta['versions']}.", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gibbs-sweeps", type=int, default=None)
    ap.add_argument("--max-factor", type=float, default=MAX_FACTOR)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--corpora", default=None,
                    help="N:V:K,... (tokens, vocabulary drawn, K) instead of the default four")
    ap.add_argument("--append", action="store_true",
                    help="keep the corpora already in --out (a corpus measured again is "
                         "replaced)")
    args = ap.parse_args(argv)
    corpora = QUICK if args.quick else CORPORA
    if args.corpora:
        corpora = tuple(tuple(int(float(v)) for v in c.split(":"))
                        for c in args.corpora.split(","))
    gibbs_sweeps = args.gibbs_sweeps or (40 if args.quick else GIBBS_SWEEPS)
    out = args.out or (ROOT / "benchmarks" / "results" / "quick" / "mixing" if args.quick
                       else OUT)
    out.mkdir(parents=True, exist_ok=True)
    old_rows: list[dict] = []
    old_traces: list[dict] = []
    old_meta: dict = {}
    if args.append and (out / "factors.csv").exists():
        old_rows = pd.read_csv(out / "factors.csv").to_dict("records")
        old_traces = pd.read_csv(out / "curves.csv").to_dict("records")
        old_meta = json.loads((out / "meta.json").read_text())
    rows, traces = [], []
    t0 = time.perf_counter()
    for N, V, K in corpora:
        row, trace = run_corpus(N, V, K, gibbs_sweeps, args.max_factor, args.seed)
        rows.append(row)
        traces += trace
        names = {r["corpus"] for r in rows}
        kept = [r for r in old_rows if r["corpus"] not in names]
        pd.DataFrame(kept + rows).sort_values("tokens_per_entry").to_csv(
            out / "factors.csv", index=False)
        pd.DataFrame([t for t in old_traces if t["corpus"] not in names] + traces).to_csv(
            out / "curves.csv", index=False)
    rows = pd.read_csv(out / "factors.csv").to_dict("records")
    command = "python " + shlex.join(["benchmarks/bench_mixing.py",
                                      *(argv if argv is not None else sys.argv[1:])])
    meta = {"commands": [c for c in old_meta.get("commands", []) if c != command] + [command],
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "machine": f"{cpu_model()}, {os.cpu_count()} cores, NUMBA_NUM_THREADS=2",
            "versions": versions(), "gibbs_sweeps": gibbs_sweeps,
            "seconds": round(time.perf_counter() - t0 + old_meta.get("seconds", 0.0), 1)}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    (out / "README.md").write_text(readme(pd.DataFrame(rows), meta))
    print((out / "README.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
