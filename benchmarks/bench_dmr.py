"""DMR's cost beside tomotopy's ``DMRModel`` on 20 Newsgroups (issue 50, item 1), in one run.

Both fit the train posts with each post's newsgroup as its metadata (20 classes), one thread,
alpha = 0.1, eta (beta) = 0.01, each library's default sigma (topicsup 3, tomotopy 1). The
work differs and the table says how: topicsup samples every lambda by slice sampling after
every sweep, or every 10 (``lambda_every``; exact either way, ``seconds_lambda`` its share),
and the topics by the exact O(K) conditional;
tomotopy optimises lambda by L-BFGS every ``optim_interval`` (10) iterations, a point
estimate, with its own sparse sampler. Seconds per sweep over the timed sweeps after one
warm-up sweep (numba compiled before).

LogisticNormal (stm's prior, exact) is timed on the same posts and classes: its prior step
(every eta_dk by slice sampling, gamma and sigma^2) after every sweep, ``lambda_share`` its
share.

    python benchmarks/bench_dmr.py                    # K = 20 and 100, 30 sweeps
    python benchmarks/bench_dmr.py --ks 20 --sweeps 5 # a quick look
    python benchmarks/bench_dmr.py --runs logistic_normal --merge   # one run's rows, the
                                                      # others kept from speed.csv
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"   # before numba is imported: one core for everyone

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import ALPHA, BETA, DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402


def topicsup_run(train, K: int, sweeps: int, every: int = 1,
                 logistic_normal: bool = False) -> dict:
    """DMR with lambda drawn every ``every`` sweeps, or LogisticNormal (its prior step after
    every sweep): seconds per sweep and the prior step's share (``seconds_lambda``,
    LogisticNormal's ``seconds_prior``)."""
    from topicsup import DMR, LogisticNormal, Session
    model = (LogisticNormal(K=K, beta=BETA) if logistic_normal
             else DMR(K=K, alpha=ALPHA, beta=BETA, lambda_every=every))
    s = Session(model, train, seed=0, log_joint_every=0)
    s.run(1)   # warm-up (compiles)
    t0 = time.perf_counter()
    s.run(sweeps)
    seconds = (time.perf_counter() - t0) / sweeps
    h = s.history[s.history["sweep"] > 1]
    step = "seconds_prior" if logistic_normal else "seconds_lambda"
    prior = h[h["metric"] == step]["value"].mean()
    when = "every sweep" if every == 1 else f"every {every} sweeps"
    name = ("LogisticNormal (eta, gamma, sigma every sweep)" if logistic_normal
            else f"DMR (lambda sampled {when})")
    return {"library": "topicsup", "model": name, "s_per_sweep": seconds,
            "lambda_share": prior / seconds}


def tomotopy_run(train, K: int, sweeps: int) -> dict:
    import tomotopy as tp
    m = tp.DMRModel(k=K, alpha=ALPHA, eta=BETA, seed=0, min_cf=0, min_df=0, rm_top=0,
                    tw=tp.TermWeight.ONE)
    classes = train.labels.classes
    codes = train.labels.values
    for d in range(train.n_docs):
        m.add_doc(train.document(d), metadata=classes[codes[d]])
    scheme = getattr(tp.ParallelScheme, "NONE", tp.ParallelScheme.DEFAULT)
    m.train(1, workers=1, parallel=scheme)   # prepare and one warm-up iteration
    assert m.num_words == train.n_tokens, (m.num_words, train.n_tokens)
    t0 = time.perf_counter()
    m.train(sweeps, workers=1, parallel=scheme)
    seconds = (time.perf_counter() - t0) / sweeps
    return {"library": "tomotopy", "model": f"DMRModel (L-BFGS every {m.optim_interval})",
            "s_per_sweep": seconds, "lambda_share": float("nan")}


RUNS = {"dmr": topicsup_run, "dmr_every_10": lambda *a: topicsup_run(*a, every=10),
        "tomotopy": tomotopy_run,
        "logistic_normal": lambda *a: topicsup_run(*a, logistic_normal=True)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")),
                    default=(20, 100))
    ap.add_argument("--sweeps", type=int, default=30)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT / "dmr")
    ap.add_argument("--runs", default=",".join(RUNS),
                    help=f"comma-separated, of {', '.join(RUNS)}")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other runs' rows of the existing speed.csv")
    args = ap.parse_args(argv)
    runs = [r.strip() for r in args.runs.split(",")]
    unknown = sorted(set(runs) - set(RUNS))
    if unknown:
        ap.error(f"--runs: unknown {unknown}; known: {list(RUNS)}")
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    rows = []
    for K in args.ks:
        for name in runs:
            rows.append({"K": K, **RUNS[name](train, K, args.sweeps)})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    old = args.out / "speed.csv"
    if args.merge and old.exists():   # the others' rows kept, in K then the runs' order
        kept = pd.read_csv(old)
        kept = kept[~kept.set_index(["K", "model"]).index.isin(
            df.set_index(["K", "model"]).index)]
        df = pd.concat([kept, df], ignore_index=True).sort_values("K", kind="stable")
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "speed.csv", index=False)
    lines = ["# DMR beside tomotopy's DMRModel: seconds per sweep", "",
             f"20 Newsgroups train posts ({train.n_docs} posts, {train.n_tokens} tokens), "
             f"the newsgroup as metadata (20 classes), one thread, {args.sweeps} timed "
             f"sweeps after one warm-up.", "",
             "| K | library | model | s / sweep | lambda's (the prior step's) share |",
             "|---:|---|---|---:|---:|"]
    for r in df.itertuples():
        share = "" if r.lambda_share != r.lambda_share else f"{r.lambda_share:.0%}"
        lines.append(f"| {r.K} | {r.library} | {r.model} | {r.s_per_sweep:.3f} | {share} |")
    earlier: list[str] = []
    if args.merge and (args.out / "README.md").exists():   # the earlier runs' lines kept
        earlier = [line if line.startswith("- Earlier") else "- Earlier: " + line[2:]
                   for line in (args.out / "README.md").read_text().splitlines()
                   if line.startswith(("- Date", "- Command", "- Earlier"))]
    lines += ["", *earlier, f"- Machine: {cpu_model()}; versions: "
              + ", ".join(f"{k} {v}" for k, v in versions().items()),
              f"- Date: {_dt.datetime.now().isoformat(timespec='seconds')}",
              "- Command: `" + " ".join(shlex.quote(a) for a in ["python"] + sys.argv) + "`"]
    (args.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
