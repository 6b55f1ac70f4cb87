"""The papers' scale on this machine (issue 49, item 5): a Wikipedia-shaped multi-label run
(Zheng et al. 2015, sec. 5.2: 1.1 million documents, 20 classes, multi-label, LightMedLDA)
and a 240-class run (Magnusson et al. 2020, the NYT hierarchical corpus's classes, DOLDA),
each fitted until its held-out score stops rising, with seconds, peak memory and the score
against the known truth.

    python benchmarks/bench_paper_scale.py                   # both runs, ~95 min
    python benchmarks/bench_paper_scale.py --runs wiki       # one run
    python benchmarks/bench_paper_scale.py --quick           # 3 minutes, a small version

The corpora are semi-synthetic and generated here, never stored: topics fitted to real text
(LDA, K = 50, on the 20 Newsgroups training posts: ``--data``, skipped with a reason when the
archive is absent), documents drawn from them (lengths 1 + Poisson(124), a document's tokens
topic after topic: the models see bags of words), and labels drawn from the documents' true
topics by a rule that is not the fitted model's:

* ``wiki``: theta_d ~ Dirichlet(0.1); class c is linked to 3 topics with weights in
  [0.5, 1.5] and a document carries it when its score (those weights on its true topic
  shares) plus Gaussian noise (half the score's spread) is above the threshold that gives the
  class its frequency, log-uniform in 3-25% (about 2 classes a document); the noise stands for
  labels the words do not explain. LightMedLDA (the preset, K = 50, the multi-task form the
  paper used on Wikipedia), scored by micro F1 on 5,000 held-out documents.
* ``nyt240``: 240 classes with Zipf frequencies (1 / (rank + 10)); the class first, then the
  document's topics from a Dirichlet that depends on it (two topics of its own weighted 1.0 and
  0.5, the rest 0.02): the direction real corpora have, not DOLDA's labels-from-topics
  model. DOLDA (the preset, K = 50), scored by accuracy on 5,000 held-out documents.

Each run reports the known truth's ceiling: the rule that knows each held-out document's true
topics (``wiki``: its score above the class's threshold; ``nyt240``: the most probable class
given theta, exactly).

A run samples for ``--minutes`` of sampling time (the scoring is not counted) and scores the
held-out documents every ``--every`` sweeps (the default fold-in). Its plateau: the first
scoring within ``--tolerance`` (0.01) of the run's best, reached when at least ``--confirm``
(5) scorings follow it (else the score was still rising when the time ran out, and the table
says by how much over the last five scorings); the time to it is sampling seconds, and the
lowest score after it is reported (a chain that drifts down after its best shows it). Peak: the
process's resident memory, sampled every 10 ms through the whole run. Each run in a fresh
process. Writes ``curves.csv``, ``summary.csv`` and ``README.md`` to ``--out``. """

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
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DEFAULT_OUT = HERE / "results" / "paper_scale"
K_TRUE, MEAN_LENGTH, N_TEST, CHUNK = 50, 125, 5_000, 65_536

# run -> (documents, model, K, minutes, every); --quick shrinks documents and minutes
RUNS: dict[str, dict[str, Any]] = {
    "wiki": {"docs": 1_100_000, "model": "LightMedLDA", "K": 50, "minutes": 65.0, "every": 3,
             "what": "Wikipedia-shaped: 20 classes, multi-label", "score": "micro F1"},
    "nyt240": {"docs": 100_000, "model": "DOLDA", "K": 50, "minutes": 22.0, "every": 25,
               "what": "240 classes, one a document", "score": "accuracy"},
}


# ---------------------------------------------------------------------- the corpora
def real_topics(archive: Path, sweeps: int, seed: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Topics (K_TRUE, V) fitted by LDA to the 20 Newsgroups training posts, and their words."""
    from topicsup import LDA, Session
    from topicsup.datasets import load_20newsgroups

    corpus = load_20newsgroups("train", path=archive)
    s = Session(LDA(K=K_TRUE, alpha=0.1, beta=0.01), corpus, seed=seed, log_joint_every=0)
    s.run(sweeps)
    return np.asarray(s.topic_word(), np.float64), corpus.vocabulary


def draw_documents(phi: np.ndarray, alpha_of: np.ndarray, n: int,
                   rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` documents from the topics ``phi`` (K, V): document d's topic shares from
    Dirichlet(``alpha_of[d]``) (n, K), its length 1 + Poisson(MEAN_LENGTH - 1), its topic
    counts multinomial, its words drawn from each topic. Returns ``words`` (int32, a document's
    tokens topic after topic), ``doc_ptr`` (int64), the topic counts ``n_dk`` (n, K) and the
    shares ``theta`` (n, K)."""
    K, V = phi.shape
    cdf = np.cumsum(phi, axis=1)
    cdf /= cdf[:, -1:]
    lengths = 1 + rng.poisson(MEAN_LENGTH - 1, n)
    theta = rng.gamma(alpha_of)
    theta /= theta.sum(axis=1, keepdims=True)
    n_dk = rng.multinomial(lengths, theta).astype(np.int32)
    doc_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=doc_ptr[1:])
    words = np.empty(int(doc_ptr[-1]), np.int32)
    start = doc_ptr[:-1, None] + np.cumsum(n_dk, axis=1) - n_dk   # where (d, k)'s tokens begin
    for k in range(K):
        c = n_dk[:, k]
        total = int(c.sum())
        if not total:
            continue
        base = np.repeat(start[:, k] - (np.cumsum(c) - c), c)
        pos = base + np.arange(total)
        words[pos] = np.minimum(np.searchsorted(cdf[k], rng.random(total), side="right"),
                                V - 1)
    return words, doc_ptr, n_dk, theta


def wiki_rule(rng: np.random.Generator, phi: np.ndarray, n_classes: int = 20
              ) -> dict[str, np.ndarray]:
    """The multi-label rule: each class's 3 topics and weights, its noise and threshold (set
    on 50,000 documents of the same source for the class's frequency)."""
    K = phi.shape[0]
    eta = np.zeros((n_classes, K))
    for c in range(n_classes):
        eta[c, rng.choice(K, 3, replace=False)] = rng.uniform(0.5, 1.5, 3)
    _, _, n_dk, _ = draw_documents(phi, np.full((50_000, K), 0.1), 50_000, rng)
    s = (n_dk / n_dk.sum(1, keepdims=True)) @ eta.T
    sigma = 0.5 * s.std(axis=0)
    freq = np.exp(rng.uniform(np.log(0.03), np.log(0.25), n_classes))
    noisy = s + sigma * rng.standard_normal(s.shape)
    tau = np.array([np.quantile(noisy[:, c], 1 - freq[c]) for c in range(n_classes)])
    return {"eta": eta, "sigma": sigma, "tau": tau, "freq": freq}


def wiki_labels(rule: dict[str, np.ndarray], n_dk: np.ndarray, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """Labels (n, 20) uint8 by the rule, and the truth-knowing rule's labels (no noise)."""
    s = (n_dk / n_dk.sum(1, keepdims=True)) @ rule["eta"].T
    noisy = s + rule["sigma"] * rng.standard_normal(s.shape)
    return (noisy > rule["tau"]).astype(np.uint8), (s > rule["tau"]).astype(np.uint8)


def nyt_rule(rng: np.random.Generator, n_classes: int = 240) -> dict[str, np.ndarray]:
    """240 classes: Zipf frequencies, each with a Dirichlet over topics of its own (two
    topics weighted 1.0 and 0.5, every other 0.02; no two classes share both)."""
    pairs = [(a, b) for a in range(K_TRUE) for b in range(a + 1, K_TRUE)]
    pick = rng.choice(len(pairs), n_classes, replace=False)
    alpha = np.full((n_classes, K_TRUE), 0.02)
    for c, i in enumerate(pick):
        a, b = pairs[i] if rng.random() < 0.5 else pairs[i][::-1]
        alpha[c, a], alpha[c, b] = 1.0, 0.5
    prior = 1.0 / (np.arange(n_classes) + 10.0)
    return {"alpha": alpha, "prior": prior / prior.sum()}


def nyt_bayes(rule: dict[str, np.ndarray], theta: np.ndarray) -> np.ndarray:
    """The most probable class given the true topic shares: argmax_c log prior_c +
    log Dirichlet(theta; alpha_c), exactly."""
    from scipy.special import gammaln
    a = rule["alpha"]
    logp = (np.log(rule["prior"]) + gammaln(a.sum(1)) - gammaln(a).sum(1))[None, :] \
        + np.log(np.maximum(theta, 1e-300)) @ (a - 1).T
    return logp.argmax(axis=1)


def make_corpus(run: str, phi: np.ndarray, vocabulary: tuple[str, ...], n_docs: int,
                seed: int) -> tuple[Any, Any, dict[str, float]]:
    """The training and held-out corpora of ``run`` and the facts of their generation."""
    from topicsup.corpus import Corpus
    from topicsup.labels import Labels

    rng = np.random.default_rng([seed, 49])
    t0 = time.perf_counter()
    if run == "wiki":
        rule = wiki_rule(rng, phi)
        classes = tuple(f"category{c:02d}" for c in range(20))
    else:
        rule = nyt_rule(rng)
        classes = tuple(f"section{c:03d}" for c in range(240))
    parts: list[tuple[np.ndarray, ...]] = []
    test: tuple[np.ndarray, ...] = ()
    for lo in [*range(0, n_docs, CHUNK), n_docs]:
        n = N_TEST if lo == n_docs else min(CHUNK, n_docs - lo)
        if run == "wiki":
            words, ptr, n_dk, _ = draw_documents(phi, np.full((n, K_TRUE), 0.1), n, rng)
            y, ceiling = wiki_labels(rule, n_dk, rng)
        else:
            y = rng.choice(240, n, p=rule["prior"]).astype(np.int32)
            words, ptr, _, theta = draw_documents(phi, rule["alpha"][y], n, rng)
            ceiling = nyt_bayes(rule, theta)
        if lo < n_docs:
            parts.append((words, ptr, y))
        else:
            test = (words, ptr, y, ceiling)
    words = np.concatenate([p[0] for p in parts])
    ptr = np.concatenate([[0], *(p[1][1:] + off for p, off in
                                 zip(parts, np.cumsum([0] + [p[1][-1] for p in parts])))])
    y = np.concatenate([p[2] for p in parts])
    del parts

    def corpus(words: np.ndarray, ptr: np.ndarray, y: np.ndarray) -> Any:
        kind = "multilabel" if run == "wiki" else "multiclass"
        return Corpus(words=words, doc_ptr=ptr.astype(np.int64), vocabulary=vocabulary,
                      labels=Labels(kind, y, classes))
    train = corpus(words, ptr, y)
    held = corpus(*test[:3])
    facts = {"generate_seconds": time.perf_counter() - t0,
             "documents": train.n_docs, "tokens": train.n_tokens, "words": train.n_words,
             "classes": len(classes), "ceiling": _score(run, test[2], test[3]),
             "labels_per_doc": float(y.sum(1).mean()) if run == "wiki" else 1.0}
    return train, held, facts


def _score(run: str, truth: np.ndarray, pred: np.ndarray) -> float:
    if run == "wiki":
        tp = float((truth & pred).sum())
        return 2 * tp / max(1.0, float(truth.sum() + pred.sum()))
    return float((truth == pred).mean())


def _macro_f1(truth: np.ndarray, pred: np.ndarray) -> float:
    tp = (truth & pred).sum(0).astype(float)
    den = truth.sum(0) + pred.sum(0)
    return float(np.mean(np.where(den > 0, 2 * tp / np.maximum(den, 1), 1.0)))


# ---------------------------------------------------------------------- a run
def child(run: str, topics: Path, n_docs: int, minutes: float, every: int, tolerance: float,
          seed: int) -> dict[str, Any]:
    import topicsup
    from bench_large import Peak
    from topicsup import Session

    spec = RUNS[run]
    saved = np.load(topics)
    phi, vocabulary = saved["phi"], tuple(str(w) for w in saved["vocabulary"])
    with Peak() as peak:
        train, held, facts = make_corpus(run, phi, vocabulary, n_docs, seed)
        facts["corpus_peak_gb"] = peak.peak / 2**30
        model = getattr(topicsup, spec["model"])(K=spec["K"])
        t0 = time.perf_counter()
        s = Session(model, train, seed=seed, log_joint_every=0)
        facts["start_seconds"] = time.perf_counter() - t0
        facts["sampler"] = s.sampler_choice or str(model.sampler)
        truth = held.labels.values
        curve: list[dict[str, float]] = []
        sampling, sweeps = 0.0, 0
        while sampling < minutes * 60:
            t0 = time.perf_counter()
            s.run(every)
            sampling += time.perf_counter() - t0
            sweeps += every
            t0 = time.perf_counter()
            scores = np.asarray(s.decision_function(held))
            if run == "wiki":
                pred = (scores > 0).astype(np.uint8)
                row = {"score": _score(run, truth, pred), "macro_f1": _macro_f1(truth, pred)}
            else:
                row = {"score": _score(run, truth, scores.argmax(1))}
            curve.append({"sweep": sweeps, "sampling_seconds": sampling,
                          "score_seconds": time.perf_counter() - t0,
                          "peak_gb": peak.peak / 2**30, **row})
            print(f"  {run} sweep {sweeps}: {sampling:.0f} s, {spec['score']} "
                  f"{row['score']:.4f}, peak {peak.peak / 2**30:.2f} GB", file=sys.stderr,
                  flush=True)
    facts["peak_gb"] = peak.peak / 2**30
    facts["corpus_gb"] = (train.words.nbytes + train.doc_ptr.nbytes) / 2**30
    return {"curve": curve, "facts": facts}


def plateau(curve: list[dict[str, float]], tolerance: float) -> dict[str, float]:
    """The first scoring within ``tolerance`` of the run's best (the plateau's level), its
    sweep and sampling seconds, how many scorings came after it and the lowest of them (a
    chain that drifts down after its best shows it)."""
    scores = np.array([c["score"] for c in curve])
    best = float(scores.max())
    i = int(np.flatnonzero(scores >= best - tolerance)[0])
    return {"best": best, "final": float(scores[-1]), "plateau_sweep": curve[i]["sweep"],
            "plateau_seconds": curve[i]["sampling_seconds"], "plateau_score": float(scores[i]),
            "scorings_after": len(curve) - 1 - i, "lowest_after": float(scores[i:].min()),
            "sweep_seconds": curve[-1]["sampling_seconds"] / curve[-1]["sweep"]}


def curve_from_log(path: Path, run: str) -> list[dict[str, float]]:
    """A run's scorings as its log printed them (``  wiki sweep 3: 224 s, micro F1 0.0438,
    peak 3.91 GB``): the record of a run whose results were not written."""
    import re
    pattern = re.compile(rf"^\s*{run} sweep (\d+): (\d+) s, [a-zA-Z0-9 ]+? ([0-9.]+), "
                         rf"peak ([0-9.]+) GB$")
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = pattern.match(line)
        if m:
            out.append({"sweep": int(m.group(1)), "sampling_seconds": float(m.group(2)),
                        "score": float(m.group(3)), "peak_gb": float(m.group(4))})
    if not out:
        raise SystemExit(f"{path}: no scorings of run {run!r}")
    return out


# ---------------------------------------------------------------------- driver
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default="wiki,nyt240", help="comma-separated: wiki, nyt240")
    ap.add_argument("--quick", action="store_true",
                    help="a small version: 20,000 documents, 1.5 minutes a run, results in "
                         "<out>/quick")
    ap.add_argument("--minutes", type=float, help="sampling minutes a run (default: per run)")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--confirm", type=int, default=5,
                    help="scorings after the plateau that confirm it")
    ap.add_argument("--topic-sweeps", type=int, default=150,
                    help="LDA sweeps fitting the real topics")
    ap.add_argument("--data", help="20news-bydate.tar.gz or its directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--merge", action="store_true",
                    help="keep the other runs' results already in --out")
    ap.add_argument("--curve-from-log", nargs=2, metavar=("RUN", "LOG"),
                    help="take RUN's scorings from the log of an earlier run (whose results "
                         "were not written); the corpus is generated again for its facts")
    ap.add_argument("--readme-only", action="store_true",
                    help="write README.md from the results in --out")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--topics", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--docs", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--every", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.topics, args.docs, args.minutes, args.every,
                               args.tolerance, args.seed)))
        return
    if args.readme_only:
        write_readme(args.out, args.tolerance, args.confirm)
        return
    from bench_lda import archive_or_skip
    archive = archive_or_skip(args.data)
    if archive is None:
        return
    out = args.out / "quick" if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    curves: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    if args.merge and (out / "summary.csv").exists():
        runs = args.runs.split(",")
        kept = pd.read_csv(out / "summary.csv")
        summary = kept[~kept["run"].isin(runs)].to_dict("records")
        old = pd.read_csv(out / "curves.csv")
        curves = old[~old["run"].isin(runs)].to_dict("records")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        phi, vocabulary = real_topics(archive, args.topic_sweeps, args.seed)
        topic_seconds = time.perf_counter() - t0
        topics = Path(tmp) / "topics.npz"
        np.savez(topics, phi=phi, vocabulary=np.array(vocabulary, dtype=str))
        print(f"real topics: K = {K_TRUE}, V = {phi.shape[1]:,}, {topic_seconds:.0f} s",
              flush=True)
        for run in args.runs.split(","):
            spec = RUNS[run]
            docs = 20_000 if args.quick else spec["docs"]
            minutes = args.minutes or (1.5 if args.quick else spec["minutes"])
            every = max(1, spec["every"] // 3) if args.quick else spec["every"]
            logged = args.curve_from_log and args.curve_from_log[0] == run
            if logged:
                minutes = 0.0   # the corpus and the session's start only: the facts
            print(f"{run}: {docs:,} documents, {minutes} minutes ...", flush=True)
            got = subprocess.run(
                [sys.executable, __file__, "--child", run, "--topics", str(topics), "--docs",
                 str(docs), "--minutes", str(minutes), "--every", str(every), "--tolerance",
                 str(args.tolerance), "--seed", str(args.seed)],
                stdout=subprocess.PIPE, text=True)
            if got.returncode:
                sys.exit(f"{run} failed")
            res = json.loads(got.stdout.strip().splitlines()[-1])
            (out / f"{run}.json").write_text(json.dumps(res), encoding="utf-8")
            if logged:
                log = Path(args.curve_from_log[1])
                res["curve"] = curve_from_log(log, run)
                res["facts"]["curve_from"] = log.name
                res["facts"]["peak_gb"] = max(c["peak_gb"] for c in res["curve"])
            res["facts"].update(plateau(res["curve"], args.tolerance))
            curves += [{"run": run, **c} for c in res["curve"]]
            summary.append({"run": run, "model": spec["model"], "K": spec["K"],
                            "what": spec["what"], "score_name": spec["score"],
                            "topic_fit_seconds": topic_seconds, **res["facts"]})
            pd.DataFrame(curves).to_csv(out / "curves.csv", index=False)
            pd.DataFrame(summary).to_csv(out / "summary.csv", index=False)
    cmd = " ".join(["python", "benchmarks/bench_paper_scale.py", *map(shlex.quote,
                                                                      sys.argv[1:])])
    if not args.quick:
        with open(out / "commands.txt", "a", encoding="utf-8") as f:
            f.write(cmd + "\n")
    write_readme(out, args.tolerance, args.confirm)


def write_readme(out: Path, tolerance: float, confirm: int) -> None:
    """``README.md`` from ``summary.csv``, ``curves.csv`` and ``commands.txt`` in ``out``."""
    from bench_lda import cpu_model, versions
    summary = pd.read_csv(out / "summary.csv").to_dict("records")
    curves = pd.read_csv(out / "curves.csv")
    for r in summary:
        scores = curves.loc[curves["run"] == r["run"], "score"].to_numpy()
        r["plateau_reached"] = bool(r["scorings_after"] >= confirm)
        r["last_rise"] = scores[-1] - scores[max(0, len(scores) - 1 - confirm)]
        r["sampled_minutes"] = curves.loc[curves["run"] == r["run"],
                                          "sampling_seconds"].max() / 60
    pd.DataFrame(summary).to_csv(out / "summary.csv", index=False)
    commands = (out / "commands.txt").read_text(encoding="utf-8").splitlines() \
        if (out / "commands.txt").exists() else []
    lines = ["# The papers' scale", "", "Commands, in the order they were run (each replaces "
             "the results of the runs it names):", "",
             *(f"    {c}" for c in commands), "",
             f"The last: {_dt.datetime.now().isoformat(timespec='seconds')}, {cpu_model()}, "
             f"{os.cpu_count()} cores; {versions()}", "",
             f"Semi-synthetic corpora (the script's docstring): topics fitted by LDA (K = "
             f"{K_TRUE}) to the 20 Newsgroups training posts, documents of 125 tokens on "
             f"average drawn from them, labels from the documents' true topics by a rule that "
             f"is not the model's. Scores on {N_TEST:,} held-out documents; the ceiling is the "
             f"rule that knows their true topics (not reachable from 125 words). Plateau: the "
             f"first scoring within {tolerance} of the run's best, confirmed by {confirm} "
             f"more (sampling time; scoring not counted). Peak: the process's resident memory "
             f"over the whole run.", "",
             "| run | model | documents | tokens | classes | sampler | s / sweep | sampled "
             "(min) | plateau | score there | best | final | ceiling | peak (GB) |",
             "|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in summary:
        where = (f"sweep {r['plateau_sweep']}, {r['plateau_seconds'] / 60:.1f} min"
                 if r["plateau_reached"] else
                 f"not reached (+{r['last_rise']:.3f} over the last {confirm} scorings)")
        there = f"{r['plateau_score']:.3f}" if r["plateau_reached"] else "-"
        lines.append(
            f"| {r['run']} ({r['what']}) | {r['model']}, K = {r['K']} | {r['documents']:,} | "
            f"{r['tokens']:,} | {r['classes']} | {r['sampler'].split(':')[0]} | "
            f"{r['sweep_seconds']:.1f} | {r['sampled_minutes']:.0f} | {where} | {there} | "
            f"{r['best']:.3f} | {r['final']:.3f} {r['score_name']} | {r['ceiling']:.3f} | "
            f"{r['peak_gb']:.2f} |")
    lines += ["", "Generation (seconds), the corpus's arrays and labels per document:", ""]
    for r in summary:
        lines.append(f"- {r['run']}: generated in {r['generate_seconds']:.0f} s (topics fitted "
                     f"in {r['topic_fit_seconds']:.0f} s), session started in "
                     f"{r['start_seconds']:.1f} s, {r['corpus_gb']:.2f} GB of token arrays, "
                     f"{r['labels_per_doc']:.2f} labels a document; after the plateau "
                     f"{r['scorings_after']} scorings, the lowest {r['lowest_after']:.3f}; "
                     f"sampler: {r['sampler']}"
                     + (f"; the scorings from the run's log, {r['curve_from']}, its results "
                        f"not written (the generation and the session's start measured "
                        f"again)" if isinstance(r.get("curve_from"), str) else ""))
    lines += ["", "The curves: `curves.csv` (sweep, sampling seconds, score, peak)."]
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
