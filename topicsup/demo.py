"""The demo: on the bundled synthetic corpus, sample LDA and the supervised LightMedLDA (topics
and classifier weights), each with the sampler ``sampler="auto"`` chooses for it (at the default
K = 6 collapsed Gibbs, and LightMedLDA's paper's light sampler, its doc and word
Metropolis-Hastings proposals in turn), and write an HTML report that names them.

Run ``python -m topicsup.demo`` (options: ``--help``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .datasets import load_demo_corpus
from .models import LDA
from .models.presets import LightMedLDA
from .report import write_report
from .session import Session


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m topicsup.demo", description=__doc__)
    parser.add_argument("--sweeps", type=int, default=200, help="LDA sweeps (default 200)")
    parser.add_argument("--supervised-sweeps", type=int, default=100,
                        help="LightMedLDA sweeps (default 100)")
    parser.add_argument("--topics", type=int, default=6, help="number of topics K (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="reports/demo.html", help="report path")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> Path:
    args = _parse(argv)
    data = load_demo_corpus()
    corpus = data.corpus
    themes = ", ".join(data.topic_names)
    print(f"topicsup demo: {corpus} (synthetic, {len(data.topic_names)} true topics: {themes})")
    lda = Session(LDA(K=args.topics, alpha=0.3, beta=0.05), corpus, seed=args.seed)
    lda.run(args.sweeps, progress=True)
    print(lda.topics(8)[["share", "top_words"]].to_string())
    # burn-in of a fifth: the averaged weights that predict skip the first, far-off sweeps
    supervised = Session(LightMedLDA(K=args.topics, lam=4.0, burn_in=args.supervised_sweeps // 5),
                         corpus, seed=args.seed)
    supervised.run(args.supervised_sweeps, progress=True)
    accuracy = supervised.metric("train_accuracy")
    if len(accuracy):
        print(f"LightMedLDA training accuracy after {accuracy.index[-1]} sweeps: "
              f"{accuracy.iloc[-1]:.3f}")
    path = write_report(
        {f"LDA, sampler {lda.model.sampler} ({args.sweeps} sweeps)": lda,
         f"LightMedLDA, supervised, sampler {supervised.model.sampler} "
         f"({args.supervised_sweeps} sweeps)": supervised},
        args.out, title="topicsup demo: LDA and LightMedLDA on the synthetic corpus",
        notes=f"K={args.topics}, seed {args.seed}; the corpus was drawn from "
              f"{len(data.topic_names)} known themes ({themes}) with binary labels that "
              f"depend on the topic proportions. Each model's topic sampler is the one "
              f"sampler=\"auto\" chose for it (why: sampler_choice in its Run table); "
              f"LightMedLDA has the hinge loss with lambda 4.")
    print(f"\nReport written to {path.resolve()}")
    return path


if __name__ == "__main__":
    main(sys.argv[1:])
