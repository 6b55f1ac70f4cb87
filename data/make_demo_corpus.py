"""Export the bundled demo corpus (topicsup.datasets.load_demo_corpus) to demo_corpus.jsonl.

Run from the repository root: ``python data/make_demo_corpus.py``. Each line is one document:
its tokens, its label, and the true topic of every token; the first line holds the generator
parameters, the topic names and each true topic's 10 most probable words. The file is
regenerated bit for bit by this script (the test suite checks that).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from topicsup.datasets import DEMO_PARAMS, load_demo_corpus


def export_lines() -> list[str]:
    data = load_demo_corpus()
    c = data.corpus
    vocab = np.asarray(c.vocabulary)
    top = np.argsort(-data.topic_word, axis=1, kind="stable")[:, :10]
    header = {"generator": "topicsup.datasets.load_demo_corpus", "params": DEMO_PARAMS,
              "topic_names": list(data.topic_names),
              "topic_top_words": [vocab[t].tolist() for t in top]}
    lines = [json.dumps(header, sort_keys=True)]
    labels = c.labels.names()
    for d in range(c.n_docs):
        a, b = c.doc_ptr[d], c.doc_ptr[d + 1]
        lines.append(json.dumps({"doc": d, "label": str(labels[d]),
                                 "tokens": vocab[c.words[a:b]].tolist(),
                                 "topics": data.z[a:b].tolist()}))
    return lines


if __name__ == "__main__":
    out = Path(__file__).with_name("demo_corpus.jsonl")
    out.write_text("\n".join(export_lines()) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
