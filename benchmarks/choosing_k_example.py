"""The example table of docs/choosing_k.md: ``search_k`` on a synthetic corpus drawn from 4
topics, one seed (a few seconds).

    python benchmarks/choosing_k_example.py
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results" / "choosing_k"


def main() -> int:
    from topicsup import search_k
    from topicsup.datasets import make_synthetic
    corpus = make_synthetic(n_docs=200, n_topics=4, doc_length=50, seed=1).corpus
    frame = search_k(corpus, [2, 4, 12], sweeps=40)
    OUT.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT / "example.csv", index=False)
    print(frame)
    return 0


if __name__ == "__main__":
    sys.exit(main())
