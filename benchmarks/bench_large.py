"""An analyst's corpus end to end at 10^5 and 10^6 documents (issue 49): build it from a file
of texts, fit, read out, save, reload and predict, with each step's seconds and peak memory.

    python benchmarks/bench_large.py                    # 10^5 and 10^6 documents, ~25 min
    python benchmarks/bench_large.py --docs 1e5         # one size

The texts: a corpus drawn from LDA (``bench_scaling.draw_corpus``: Zipf topics, 125 tokens a
document on average) written as English-looking text, its word ids spelled as made-up
lowercase words, 40% of the words between them stop words, sentences capitalised and
punctuated (~1,100 characters a document), a class per document (20 classes); written in
batches to a Parquet file (never whole in memory), which the benchmark reads back with
``Corpus.from_file`` and the original texts kept in a file beside it (``keep_texts``).

Steps, each timed and its peak resident memory sampled every 10 ms (``psutil``), in one
fresh process per size, one size after the other:

* ``build, from_file``: the Parquet file in batches of 65,536 rows, texts kept on disk.
* ``build, from_texts``: the texts in a list in memory (read first, not timed) with the
  package's ``from_texts``; ``build, the old path``: the same texts through what
  ``from_texts`` did before (``Corpus.from_tokens`` on ``text.tokenize``'s lists), at 10^5
  documents only (at 10^6 it needs ~10 GB). Their ratio is the speed-up, and the peak above
  the texts, less the corpus's arrays, per token, is what a build holds beyond its result.
* ``fit``: LightMedLDA (light sampler, K = 50, the 20 classes), one sweep (compiled, away
  from the start), then ``--sweeps`` timed (seconds per sweep).
* ``read out``: the topics, the representative documents of a topic with their original
  texts marked, the topic sizes, the coefficients, the summary.
* ``save`` and ``load``: ``Session.save`` and ``Session.load``.
* ``predict``: 10,000 held-out texts from the same source, mapped and classified.

Writes ``large.csv`` and ``large.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DEFAULT_OUT = HERE / "results" / "large"
TOKENS_PER_DOC = 125
K, CLASSES = 50, 20
HELD_OUT = int(os.environ.get("BENCH_LARGE_HELD_OUT", 10_000))
BATCH = 65_536
STOP = np.array(["the", "of", "and", "to", "in", "is", "that", "for", "it", "with", "as",
                 "was", "on", "be", "at", "by", "this", "had", "not", "are"], dtype=object)


def _spelling(n_words: int, seed: int) -> np.ndarray:
    """Made-up words, one per word id: lowercase letters, 4-11 long, all distinct."""
    rng = np.random.default_rng(seed + 7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    out: dict[str, None] = {}
    while len(out) < n_words:
        for w in ("".join(rng.choice(letters, size=rng.integers(4, 12)))
                  for _ in range(n_words - len(out))):
            out.setdefault(w)
    return np.array(list(out), dtype=object)


def texts_of(words: np.ndarray, doc_ptr: np.ndarray, spelling: np.ndarray,
             rng: np.random.Generator) -> list[str]:
    """The documents' tokens as text: 2 stop words for every 3 words between them, a
    sentence of ~12 words capitalised and ended by a full stop."""
    out = []
    for d in range(doc_ptr.size - 1):
        toks = spelling[words[doc_ptr[d]:doc_ptr[d + 1]]]
        n = toks.size
        stops = STOP[rng.integers(0, STOP.size, size=n)]
        inter = np.empty(2 * n, dtype=object)
        inter[0::2] = toks
        inter[1::2] = np.where(rng.random(n) < 0.67, stops, "")
        sentence = " ".join(w for w in inter if w).split(" ")
        for i in range(0, len(sentence), 12):
            sentence[i] = sentence[i].capitalize()
            j = min(i + 11, len(sentence) - 1)
            sentence[j] = sentence[j] + "."
        out.append(" ".join(sentence))
    return out


def write_texts(path: Path, n_docs: int, seed: int) -> list[str]:
    """The Parquet file of ``n_docs`` texts (``text``, ``label``), written in batches;
    returns ``HELD_OUT`` more texts from the same source."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from bench_scaling import draw_corpus

    drawn = draw_corpus((n_docs + HELD_OUT) * TOKENS_PER_DOC, CLASSES,
                        mean_length=TOKENS_PER_DOC, seed=seed)
    words, doc_ptr = drawn["words"], drawn["doc_ptr"]
    spelling = _spelling(drawn["n_words"], seed)
    rng = np.random.default_rng(seed + 1)
    D = doc_ptr.size - 1 - HELD_OUT
    first = words[doc_ptr[:-1]]   # a class per document: cost, not accuracy, is measured
    with pq.ParquetWriter(path, pa.schema([("text", pa.string()), ("label", pa.string())])) \
            as out:
        for lo in range(0, D, BATCH):
            hi = min(D, lo + BATCH)
            texts = texts_of(words, doc_ptr[lo:hi + 1], spelling, rng)
            labels = [f"c{c}" for c in (first[lo:hi] % CLASSES)]
            out.write_table(pa.table({"text": texts, "label": labels}))
    return texts_of(words, doc_ptr[D:], spelling, rng)


class Peak:
    """The process's resident memory sampled every 10 ms while a step runs."""

    def __init__(self) -> None:
        import psutil
        self.proc = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()

    def rss(self) -> int:
        return int(self.proc.memory_info().rss)

    def __enter__(self) -> "Peak":
        gc.collect()
        self.start = self.rss()
        self.peak = self.start
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self.rss())

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())


def step(rows: list[dict[str, Any]], name: str, fn: Callable[[], Any], **extra: Any) -> Any:
    with Peak() as p:
        t0 = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - t0
    rows.append({"step": name, "seconds": seconds, "peak_gb": p.peak / 2**30,
                 "above_start_gb": (p.peak - p.start) / 2**30, **extra})
    print(f"  {name}: {seconds:.2f} s, peak {p.peak / 2**30:.2f} GB "
          f"(+{(p.peak - p.start) / 2**30:.2f})", flush=True)
    return out


def child(n_docs: int, sweeps: int, seed: int, old: bool) -> dict[str, Any]:
    import pyarrow.parquet as pq

    from topicsup import LightMedLDA, Session
    from topicsup.corpus import Corpus
    from topicsup.stopwords import ENGLISH_STOP_WORDS
    from topicsup.text import tokenize

    rows: list[dict[str, Any]] = []
    facts: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        held = write_texts(d / "train.parquet", n_docs, seed)
        facts["generate_seconds"] = time.perf_counter() - t0
        facts["parquet_mb"] = (d / "train.parquet").stat().st_size / 1e6
        corpus = step(rows, "build, from_file", lambda: Corpus.from_file(
            d / "train.parquet", labels="label", keep_texts=d / "texts.kept"))
        facts.update(documents=corpus.n_docs, tokens=corpus.n_tokens, words=corpus.n_words,
                     corpus_gb=(corpus.words.nbytes + corpus.doc_ptr.nbytes) / 2**30)
        texts: list[str] = pq.read_table(d / "train.parquet",
                                         columns=["text"]).column("text").to_pylist()
        facts["text_gb"] = sum(map(len, texts)) / 2**30
        built = step(rows, "build, from_texts", lambda: Corpus.from_texts(texts))
        assert np.array_equal(built.words, corpus.words)
        del built
        if old:
            stops = ENGLISH_STOP_WORDS
            base = step(rows, "build, the old path", lambda: Corpus.from_tokens(
                [tokenize(t, 3, stops) for t in texts]))
            assert np.array_equal(base.words, corpus.words)
            del base
        texts = []   # the list freed before the fit
        model = LightMedLDA(K=K, sampler="light")
        s = step(rows, "start (bind, initialise)",
                 lambda: Session(model, corpus, seed=seed, log_joint_every=0))
        step(rows, "fit, first sweep (compiles)", lambda: s.run(1))
        t0 = time.perf_counter()
        step(rows, f"fit, {sweeps} sweeps", lambda: s.run(sweeps))
        facts["sweep_seconds"] = (time.perf_counter() - t0) / sweeps

        def read() -> None:
            s.topics(10)
            s.representative_docs(0, n=5)
            s.readout(__import__("topicsup").summaries.topic_sizes)
            s.coefficients()
            s.summary()
        step(rows, "read out", read)
        path = d / "chain.npz"
        step(rows, "save", lambda: s.save(path))
        facts["checkpoint_mb"] = path.stat().st_size / 1e6
        s = None   # the chain freed before the load
        gc.collect()
        back = step(rows, "load", lambda: Session.load(path))
        step(rows, f"predict {HELD_OUT:,} held-out texts",
             lambda: back.predict(held))
    return {"rows": rows, "facts": facts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default="1e5,1e6", help="documents per corpus, comma-separated")
    ap.add_argument("--sweeps", type=int, default=2, help="timed sweeps (after one untimed)")
    ap.add_argument("--old-up-to", type=float, default=1e5,
                    help="run the old build path up to this many documents")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.sweeps, args.seed,
                               args.child <= args.old_up_to)))
        return
    sizes = [int(float(x)) for x in args.docs.split(",")]
    rows, facts = [], []
    for n in sizes:
        print(f"{n} documents ...", flush=True)
        got = subprocess.run([sys.executable, __file__, "--child", str(n), "--sweeps",
                              str(args.sweeps), "--seed", str(args.seed), "--old-up-to",
                              str(args.old_up_to)], capture_output=True, text=True)
        if got.returncode:
            sys.exit(got.stderr[-4000:])
        print(got.stdout[:-1].rsplit("\n", 1)[0] if "\n" in got.stdout.strip() else "")
        res = json.loads(got.stdout.strip().splitlines()[-1])
        for r in res["rows"]:
            rows.append({"size": n, **r})
        facts.append({"size": n, **res["facts"]})
    df = pd.DataFrame(rows)
    fx = pd.DataFrame(facts)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "large.csv", index=False)
    fx.to_csv(args.out / "large_facts.csv", index=False)
    from bench_lda import cpu_model, versions
    cmd = " ".join(["python", "benchmarks/bench_large.py", *map(shlex.quote, sys.argv[1:])])
    lines = ["# An analyst's corpus end to end", "",
             f"`{cmd}`, {_dt.datetime.now().isoformat(timespec='seconds')}, {cpu_model()}, "
             f"{os.cpu_count()} cores; {versions()}", "",
             f"Texts drawn from LDA and written as text ({TOKENS_PER_DOC} kept tokens a "
             f"document on average, stop words and punctuation between them) in a Parquet "
             f"file; LightMedLDA, light sampler, K = {K}, {CLASSES} classes. Peak: the "
             f"process's resident memory during the step (sampled every 10 ms); +: above "
             f"the step's start.", ""]
    for f in fx.itertuples():
        sub = df[df["size"] == f.size]
        lines += [f"## {f.documents:,} documents, {f.tokens:,} tokens, {f.words:,} words", "",
                  f"Texts: {f.text_gb:.2f} GB in memory, {f.parquet_mb:.0f} MB of Parquet "
                  f"(generated in {f.generate_seconds:.0f} s); the corpus's arrays "
                  f"{f.corpus_gb:.2f} GB; checkpoint {f.checkpoint_mb:.0f} MB; "
                  f"{f.sweep_seconds:.2f} s a sweep.", "",
                  "| step | seconds | peak (GB) | + (GB) |", "|---|---:|---:|---:|"]
        for r in sub.itertuples():
            lines.append(f"| {r.step} | {r.seconds:.2f} | {r.peak_gb:.2f} | "
                         f"{r.above_start_gb:.2f} |")
        by = sub.set_index("step")
        new = by.loc["build, from_texts"]
        per_token = (new.above_start_gb - f.corpus_gb) * 2**30 / f.tokens
        lines += ["", f"`from_texts`: {f.tokens / new.seconds / 1e6:.2f} M tokens/s, "
                      f"{per_token:.1f} bytes a token held above the texts beyond the corpus's "
                      f"arrays."]
        if "build, the old path" in by.index:
            o = by.loc["build, the old path"]
            old_per = (o.above_start_gb - f.corpus_gb) * 2**30 / f.tokens
            lines.append(f"The old path: {f.tokens / o.seconds / 1e6:.2f} M tokens/s, "
                         f"{old_per:.1f} bytes a token; `from_texts` is "
                         f"**{o.seconds / new.seconds:.1f}x** faster.")
        lines.append("")
    (args.out / "large.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
