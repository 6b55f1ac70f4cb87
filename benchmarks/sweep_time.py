"""Median wall seconds per ``Session.sweep(1)`` on 20 Newsgroups train (K = 100, one core),
for comparing two versions of topicsup on the same machine: run it once with each on the
path, e.g. the version before a change from a git worktree:

    git worktree add /tmp/topicsup-before <commit>
    PYTHONPATH=/tmp/topicsup-before python benchmarks/sweep_time.py --data <archive>
    python benchmarks/sweep_time.py --data <archive>

Cases: LDA with the Gibbs, the light and the partially collapsed sampler, Gibbs MedLDA,
LightMedLDA and DOLDA (partially collapsed topics, horseshoe, Cholesky weights) on the 20
classes (T = 20 tasks). Each case gets a fresh session, two warm-up sweeps, then ``--sweeps``
timed ones.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from topicsup.models import DOLDA, LDA, LightMedLDA, MedLDA
from topicsup.newsgroups import load_20newsgroups
from topicsup.session import Session

# each case names its sampler: the default, sampler="auto", would choose per version
CASES = {"lda-gibbs": lambda: LDA(K=100, alpha=0.1, beta=0.01, sampler="gibbs"),
         "lda-light": lambda: LDA(K=100, alpha=0.1, beta=0.01, sampler="light"),
         "medlda-gibbs-T20": lambda: MedLDA(K=100, lam=4.0, sampler="gibbs"),
         "lightmedlda-T20": lambda: LightMedLDA(K=100, lam=4.0, sampler="light"),
         "lda-pc": lambda: LDA(K=100, alpha=0.1, beta=0.01, sampler="partially_collapsed"),
         "dolda-pc-T20": lambda: DOLDA(K=100, sampler="partially_collapsed")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None, help="20news-bydate.tar.gz")
    ap.add_argument("--sweeps", type=int, default=6)
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    train = load_20newsgroups("train", path=args.data)
    out = []
    for name in args.cases:
        s = Session(CASES[name](), train, seed=0, log_joint_every=0)
        s.sweep(2)
        times = []
        for _ in range(args.sweeps):
            t0 = time.perf_counter()
            s.sweep(1)
            times.append(time.perf_counter() - t0)
        out.append(f"{name}={np.median(times):.4f}")
        del s
    print(" ".join(out))


if __name__ == "__main__":
    main()
