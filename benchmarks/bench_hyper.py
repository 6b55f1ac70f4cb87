"""Learned Dirichlet parameters against fixed ones, beside tomotopy's default optimisation
(issue 40, item 5): held-out perplexity on 20 Newsgroups.

Each run trains on the train posts from alpha = 0.1, beta = 0.01 for the same number of
sweeps, one thread: topicsup's ``LDA`` with the parameters fixed and with
``optimize="alpha"`` and ``"alpha+beta"`` (Minka's fixed point every 10 sweeps), and tomotopy's
``LDAModel`` with ``optim_interval`` 0 (fixed) and 10 (its default: learns an asymmetric
alpha). Every run is scored by the same code: document-completion perplexity on the test posts
(half of each post's tokens, drawn at random, folded in with the run's topics and alpha, the
other half scored; ``topicsup.models.lda.document_completion``), so the numbers compare
across libraries.

    python benchmarks/bench_hyper.py                       # K = 20 and 100, 200 sweeps
    python benchmarks/bench_hyper.py --ks 20 --sweeps 50   # a quick look
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

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import (ALPHA, BETA, DEFAULT_OUT, archive_or_skip, cpu_model,  # noqa: E402
                       versions)


def completion_perplexity(held, phi_wk: np.ndarray, alpha: np.ndarray) -> float:
    """Document-completion perplexity of the held-out corpus under topics ``phi_wk`` (V, K)
    and document prior ``alpha`` (K,): the same code for every library."""
    from topicsup.kernels.rng import seed_state
    from topicsup.models.lda import document_completion, fold_in_topics
    phi_wk = np.ascontiguousarray(phi_wk, dtype=np.float64)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    ll, n = document_completion(
        held, lambda seen: fold_in_topics(phi_wk, alpha, seen, seed_state(0, stream=8), 50, 50),
        phi_wk, alpha, seed_state(0, stream=8))
    return float(np.exp(-ll / n))


def topicsup_run(train, held, K: int, sweeps: int, optimize: str | None, seed: int) -> dict:
    from topicsup import LDA, Session
    sampler = "gibbs" if K <= 20 else "sparse_gibbs"   # the faster exact kernel (models.md)
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA, optimize=optimize, sampler=sampler), train,
                seed=seed, log_joint_every=0)
    t0 = time.perf_counter()
    s.run(sweeps)
    seconds = time.perf_counter() - t0
    alpha = s.model.doc_prior(s.state, s.problem)
    return {"library": "topicsup", "setting": f"optimize={optimize}", "sampler": sampler,
            "train_seconds": seconds, "alpha_sum": float(alpha.sum()),
            "beta": s.problem.beta,
            "perplexity": completion_perplexity(held, s.topic_word().T, alpha)}


def tomotopy_run(train, held, K: int, sweeps: int, interval: int, seed: int) -> dict:
    import tomotopy as tp
    m = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed, min_cf=0, min_df=0, rm_top=0,
                    tw=tp.TermWeight.ONE)
    m.optim_interval = interval
    for d in range(train.n_docs):
        m.add_doc(train.document(d))
    t0 = time.perf_counter()
    m.train(sweeps, workers=1, parallel=tp.ParallelScheme.NONE)
    seconds = time.perf_counter() - t0
    index = {w: i for i, w in enumerate(m.used_vocabs)}
    rows = np.array([index.get(w, -1) for w in train.vocabulary])
    dists = np.array([m.get_topic_word_dist(k) for k in range(K)])   # (K, V_tomotopy)
    phi_wk = np.where(rows[:, None] >= 0, dists.T[np.maximum(rows, 0)], 0.0)
    alpha = np.asarray(m.alpha, dtype=np.float64)
    return {"library": "tomotopy", "setting": f"optim_interval={interval}", "sampler": "gibbs",
            "train_seconds": seconds, "alpha_sum": float(alpha.sum()), "beta": float(m.eta),
            "perplexity": completion_perplexity(held, phi_wk, alpha)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")),
                    default=(20, 100))
    ap.add_argument("--sweeps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT / "hyperparameters")
    args = ap.parse_args(argv)
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    test = load_20newsgroups("test", path=path)
    held = train.heldout([test.document(d) for d in range(test.n_docs)])
    rows = []
    for K in args.ks:
        for optimize in (None, "alpha", "alpha+beta"):
            rows.append({"K": K, **topicsup_run(train, held, K, args.sweeps, optimize,
                                                args.seed)})
            print(rows[-1], flush=True)
        for interval in (0, 10):
            rows.append({"K": K, **tomotopy_run(train, held, K, args.sweeps, interval,
                                                args.seed)})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "perplexity.csv", index=False)
    lines = ["# Learned Dirichlet parameters: held-out perplexity", "",
             f"20 Newsgroups: {train.n_docs} train posts ({train.n_tokens} tokens), "
             f"{test.n_docs} test posts scored by document completion (a random half of each folded in, "
             f"the other half scored; the same code for both libraries); {args.sweeps} sweeps "
             f"from alpha = {ALPHA}, beta = {BETA}, one thread, seed {args.seed}.", "",
             "| K | library | setting | sampler | train s | alpha sum | beta | perplexity |",
             "|---:|---|---|---|---:|---:|---:|---:|"]
    for _, r in df.iterrows():
        lines.append(f"| {r.K} | {r.library} | {r.setting} | {r.sampler} | "
                     f"{r.train_seconds:.1f} | {r.alpha_sum:.3f} | {r.beta:.4f} | "
                     f"{r.perplexity:.1f} |")
    lines += ["", f"- Machine: {cpu_model()}; versions: "
              + ", ".join(f"{k} {v}" for k, v in versions().items()),
              f"- Date: {_dt.datetime.now().isoformat(timespec='seconds')}",
              "- Command: `" + " ".join(shlex.quote(a) for a in ["python"] + sys.argv) + "`",
              "- One seed per run: differences of a few units of perplexity are noise."]
    (args.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
