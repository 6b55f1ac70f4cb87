"""A checkpoint's cost against a sweep's, on corpora of 10^5 and 10^6 documents (issue 49):
the seconds ``Session.save`` takes with the writer of the package (``checkpoint.write``:
deflate at its fastest level, members that do not compress stored) and with the writer it
replaced (``numpy.savez_compressed``, deflate at level 6, which took longer than a sweep at
10^5 documents), the file's size, ``Session.load``'s seconds, and a sweep's seconds with an
autosave after every sweep against none (the write runs in a thread of its own).

    python benchmarks/bench_checkpoint.py                     # 10^5 and 10^6 documents, ~15 min
    python benchmarks/bench_checkpoint.py --docs 1e5          # one size

The corpus: LDA's generative process (``bench_scaling.draw_corpus``: Zipf topics, documents of
125 tokens on average), with a class per document (20 classes, from the document's first
word: what is measured is cost, not accuracy); the model LightMedLDA with the light sampler at
K = 50 on the 20 classes (T = 20 tasks). Each size runs in a fresh process, one
after the other. Writes ``checkpoint.csv`` and ``checkpoint.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DEFAULT_OUT = HERE / "results" / "checkpoint"
TOKENS_PER_DOC = 125
K, CLASSES = 50, 20


def child(n_docs: int, sweeps: int, seed: int) -> dict[str, float]:
    """One size, in this process: the sweep, the two writers, the load, autosave's cost."""
    from bench_scaling import draw_corpus

    from topicsup import LightMedLDA, Session, checkpoint
    from topicsup.corpus import Corpus
    from topicsup.labels import Labels

    drawn = draw_corpus(n_docs * TOKENS_PER_DOC, CLASSES, mean_length=TOKENS_PER_DOC, seed=seed)
    words, doc_ptr = drawn["words"], drawn["doc_ptr"]
    D = doc_ptr.size - 1
    # a class per document (its first word's bucket): the cost does not depend on what they say
    first = words[doc_ptr[:-1]]
    labels = Labels("multiclass", (first % CLASSES).astype(np.int32),
                    tuple(f"c{j}" for j in range(CLASSES)))
    corpus = Corpus(words, doc_ptr, tuple(f"w{j}" for j in range(drawn["n_words"])),
                    labels=labels)
    model = LightMedLDA(K=K, sampler="light")
    out: dict[str, float] = {"documents": D, "tokens": int(words.size)}
    with tempfile.TemporaryDirectory() as d:
        s = Session(model, corpus, seed=seed, log_joint_every=0)
        s.run(1)   # compiled, the chain away from its start
        t0 = time.perf_counter()
        s.run(sweeps)
        out["sweep_seconds"] = (time.perf_counter() - t0) / sweeps
        path = Path(d) / "s.npz"
        t0 = time.perf_counter()
        s.save(path)
        out["save_seconds"] = time.perf_counter() - t0
        out["file_mb"] = path.stat().st_size / 1e6
        arrays, meta = s._file()
        old = Path(d) / "old.npz"
        t0 = time.perf_counter()
        meta = {**meta, "checksum": {"algorithm": "sha256",
                                     "digest": checkpoint.checksum(arrays)}}
        members = {**arrays, "meta": np.frombuffer(json.dumps(meta).encode(), np.uint8)}
        np.savez_compressed(old, **members)
        out["save_seconds_level6"] = time.perf_counter() - t0
        out["file_mb_level6"] = old.stat().st_size / 1e6
        t0 = time.perf_counter()
        Session.load(path)
        out["load_seconds"] = time.perf_counter() - t0
        auto = Session(model, corpus, seed=seed, log_joint_every=0,
                       autosave=Path(d) / "auto.npz", autosave_every=0)
        auto.run(1)
        t0 = time.perf_counter()
        auto.run(sweeps)
        out["sweep_seconds_autosave"] = (time.perf_counter() - t0) / sweeps
        auto.close()
        out["autosaves_written"] = auto._autosave.n_written if auto._autosave else 0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default="1e5,1e6", help="documents per corpus, comma-separated")
    ap.add_argument("--sweeps", type=int, default=3, help="timed sweeps (after one untimed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.sweeps, args.seed)))
        return
    sizes = [int(float(x)) for x in args.docs.split(",")]
    rows = []
    for n in sizes:
        print(f"{n} documents ...", flush=True)
        got = subprocess.run([sys.executable, __file__, "--child", str(n), "--sweeps",
                              str(args.sweeps), "--seed", str(args.seed)],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(got.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    df["save_per_sweep"] = df["save_seconds"] / df["sweep_seconds"]
    df["level6_per_sweep"] = df["save_seconds_level6"] / df["sweep_seconds"]
    df["autosave_overhead"] = df["sweep_seconds_autosave"] / df["sweep_seconds"] - 1.0
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "checkpoint.csv", index=False)
    from bench_lda import cpu_model, versions
    lines = [
        "# A checkpoint's cost against a sweep's",
        "",
        f"`{' '.join(['python', 'benchmarks/bench_checkpoint.py', *map(shlex.quote, sys.argv[1:])])}`, "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}, {cpu_model()}, "
        f"{os.cpu_count()} cores; {versions()}",
        "",
        f"LightMedLDA, light sampler, K = {K}, {CLASSES} classes (T = {CLASSES}), a corpus "
        f"drawn from LDA ({TOKENS_PER_DOC} tokens per document on average); seconds per "
        f"sweep the mean of {args.sweeps} after one untimed.",
        "",
        "| documents | tokens | s / sweep | save (s) | save / sweep | file (MB) | level 6 save (s) "
        "| level 6 / sweep | level 6 file (MB) | load (s) | s / sweep, autosave every sweep "
        "| autosave's cost |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in df.itertuples():
        lines.append(
            f"| {r.documents:,} | {r.tokens:,} | {r.sweep_seconds:.2f} | {r.save_seconds:.2f} "
            f"| {r.save_per_sweep:.2f} | {r.file_mb:.0f} | {r.save_seconds_level6:.2f} "
            f"| {r.level6_per_sweep:.2f} | {r.file_mb_level6:.0f} | {r.load_seconds:.2f} "
            f"| {r.sweep_seconds_autosave:.2f} | {100 * r.autosave_overhead:+.0f}% |")
    (args.out / "checkpoint.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
