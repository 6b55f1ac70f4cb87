"""DMR's cost beside tomotopy's ``DMRModel`` on 20 Newsgroups (issue 50, item 1), in one run.

Both fit the train posts with each post's newsgroup as its metadata (20 classes), one thread,
alpha = 0.1, eta (beta) = 0.01, each library's default sigma (topicsup 3, tomotopy 1). The
work differs and the table says how: topicsup samples every lambda by slice sampling after
every sweep, or every 10 (``lambda_every``; exact either way, ``seconds_lambda`` its share),
and the topics by the exact O(K) conditional;
tomotopy optimises lambda by L-BFGS every ``optim_interval`` (10) iterations, a point
estimate, with its own sparse sampler. Seconds per sweep over the timed sweeps after one
warm-up sweep (numba compiled before).

    python benchmarks/bench_dmr.py                    # K = 20 and 100, 30 sweeps
    python benchmarks/bench_dmr.py --ks 20 --sweeps 5 # a quick look
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


def topicsup_run(train, K: int, sweeps: int, every: int = 1) -> dict:
    from topicsup import DMR, Session
    s = Session(DMR(K=K, alpha=ALPHA, beta=BETA, lambda_every=every), train, seed=0,
                log_joint_every=0)
    s.run(1)   # warm-up (compiles)
    t0 = time.perf_counter()
    s.run(sweeps)
    seconds = (time.perf_counter() - t0) / sweeps
    h = s.history[s.history["sweep"] > 1]
    lam = h[h["metric"] == "seconds_lambda"]["value"].mean()
    when = "every sweep" if every == 1 else f"every {every} sweeps"
    return {"library": "topicsup", "model": f"DMR (lambda sampled {when})",
            "s_per_sweep": seconds, "lambda_share": lam / seconds}


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")),
                    default=(20, 100))
    ap.add_argument("--sweeps", type=int, default=30)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT / "dmr")
    args = ap.parse_args(argv)
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    rows = []
    for K in args.ks:
        for run in (topicsup_run, lambda *a: topicsup_run(*a, every=10), tomotopy_run):
            rows.append({"K": K, **run(train, K, args.sweeps)})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "speed.csv", index=False)
    lines = ["# DMR beside tomotopy's DMRModel: seconds per sweep", "",
             f"20 Newsgroups train posts ({train.n_docs} posts, {train.n_tokens} tokens), "
             f"the newsgroup as metadata (20 classes), one thread, {args.sweeps} timed "
             f"sweeps after one warm-up.", "",
             "| K | library | model | s / sweep | lambda's share |", "|---:|---|---|---:|---:|"]
    for r in df.itertuples():
        share = "" if r.lambda_share != r.lambda_share else f"{r.lambda_share:.0%}"
        lines.append(f"| {r.K} | {r.library} | {r.model} | {r.s_per_sweep:.3f} | {share} |")
    lines += ["", f"- Machine: {cpu_model()}; versions: "
              + ", ".join(f"{k} {v}" for k, v in versions().items()),
              f"- Date: {_dt.datetime.now().isoformat(timespec='seconds')}",
              "- Command: `" + " ".join(shlex.quote(a) for a in ["python"] + sys.argv) + "`"]
    (args.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
