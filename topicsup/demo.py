"""The demo: sample LDA on the bundled synthetic corpus and write an HTML report.

Run ``python -m topicsup.demo`` (options: ``--help``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .datasets import load_demo_corpus
from .models import LDA
from .report import write_report
from .session import Session


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m topicsup.demo", description=__doc__)
    parser.add_argument("--sweeps", type=int, default=200, help="Gibbs sweeps (default 200)")
    parser.add_argument("--topics", type=int, default=6, help="number of topics K (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="reports/demo.html", help="report path")
    args = parser.parse_args(argv)

    data = load_demo_corpus()
    corpus = data.corpus
    print(f"topicsup demo: {corpus} (synthetic, {len(data.topic_names)} true topics: "
          f"{', '.join(data.topic_names)})")
    session = Session(LDA(K=args.topics, alpha=0.3, beta=0.05), corpus, seed=args.seed)
    session.run(args.sweeps, progress=True)
    print(session.topics(8)[["share", "top_words"]].to_string())
    path = write_report(session, args.out, title="topicsup demo: LDA on the synthetic corpus",
                        notes=f"{args.sweeps} collapsed Gibbs sweeps, K={args.topics}, seed "
                              f"{args.seed}; the corpus was drawn from {len(data.topic_names)} "
                              f"known themes: {', '.join(data.topic_names)}.")
    print(f"\nReport written to {path.resolve()}")
    return path


if __name__ == "__main__":
    main(sys.argv[1:])
