"""Collapsed-Gibbs LDA sweep throughput: topicsup vs lda (Cython) vs tomotopy (C++), one core.

Run from the repository root with the project's virtualenv active::

    python benchmarks/bench_lda.py            # full run: K in {20, 100, 500}
    python benchmarks/bench_lda.py --quick    # smoke test: K in {20, 100}, 3 sweeps

All three libraries get the same corpus (20 Newsgroups train with topicsup's default
preprocessing), the same symmetric alpha = 0.1 and beta (eta) = 0.01, and one thread. Each one is
initialised, warmed up with one untimed sweep, then timed over the same number of sweeps with
``time.perf_counter``; throughput is ``n_tokens * sweeps / seconds``. Initialisation, numba
compilation and log-likelihood evaluation are outside the timed region. See benchmarks/README.md.
"""

from __future__ import annotations

import os

# One thread everywhere; must happen before numpy / numba / tomotopy are imported.
os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import logging  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import gammaln  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results"
ALPHA = 0.1
BETA = 0.01
DEFAULT_KS = (20, 100, 500)
QUICK_KS = (20, 100)
QUICK_SWEEPS = 3
LIBRARIES = ("topicsup", "lda", "tomotopy")
CSV_COLUMNS = ["library", "K", "n_tokens", "sweeps", "seconds", "tokens_per_second",
               "ll_per_token", "notes"]


def default_sweeps(K: int) -> int:
    return 20 if K < 500 else 10


# --------------------------------------------------------------------------------------------
# The reference log joint, used to check what each library's log-likelihood means.

def log_joint_from_counts(n_dk: np.ndarray, n_wk: np.ndarray, alpha: float,
                          beta: float) -> float:
    """log p(W, Z | alpha, beta), Theta and Phi collapsed, symmetric priors.

    ``n_dk`` is (D, K) and ``n_wk`` (V, K); V is the vocabulary the model uses.
    """
    n_dk = np.asarray(n_dk, dtype=np.float64)
    n_wk = np.asarray(n_wk, dtype=np.float64)
    D, K = n_dk.shape
    V = n_wk.shape[0]
    n_k = n_wk.sum(axis=0)
    n_d = n_dk.sum(axis=1)
    nz = n_wk[n_wk > 0]
    topic = K * gammaln(V * beta) - gammaln(n_k + V * beta).sum() \
        + (gammaln(nz + beta) - gammaln(beta)).sum()
    nz = n_dk[n_dk > 0]
    doc = D * gammaln(K * alpha) - gammaln(n_d + K * alpha).sum() \
        + (gammaln(nz + alpha) - gammaln(alpha)).sum()
    return float(topic + doc)


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# --------------------------------------------------------------------------------------------
# The three samplers. Each returns (seconds, ll_per_token, notes dict).

def run_topicsup(corpus, K: int, sweeps: int):
    from topicsup.models import LDA
    from topicsup.session import Session

    session = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=0, log_joint_every=0)
    session.sweep(1)  # warm-up: numba compilation / cache load, first touch of the arrays
    t0 = time.perf_counter()
    done = session.sweep(sweeps)
    seconds = time.perf_counter() - t0
    assert done == sweeps, (done, sweeps)
    h = session.history
    kernel = h[(h["metric"] == "seconds") & (h["sweep"] > 1)]["value"].to_numpy()
    assert len(kernel) == sweeps
    ll = session.model.log_joint(session.state, session.problem)
    st = session.state
    ref = log_joint_from_counts(st["n_dk"], st["n_wk"], ALPHA, BETA)
    notes = {
        "median_kernel_sweep_s": f"{float(np.median(kernel)):.4f}",
        "kernel_tokens_per_second": f"{corpus.n_tokens / float(np.median(kernel)):.4g}",
        "ll": "log p(w,z)/N (Session.model.log_joint)",
        "ll_check_rel_diff": f"{_rel(ll, ref):.1e}",
        "block_tokens": session.block_tokens,
        "init": "uniform random z (seed 0)",
    }
    del session
    return seconds, ll / corpus.n_tokens, notes


def run_lda(corpus, K: int, sweeps: int):
    import lda
    import lda.utils

    logging.getLogger("lda").setLevel(logging.WARNING)
    X = corpus.to_matrix().astype(np.int64)
    model = lda.LDA(n_topics=K, n_iter=sweeps, alpha=ALPHA, eta=BETA, random_state=0)
    # Mirror LDA._fit: same RandomState, a private copy of the reused uniforms, _initialize(X),
    # then per iteration shuffle(rands) + _sample_topics(rands). _fit's every-`refresh`
    # loglikelihood() call is left out (topicsup runs with log_joint_every=0 too).
    random_state = lda.utils.check_random_state(model.random_state)
    rands = model._rands.copy()
    t0 = time.perf_counter()
    model._initialize(X)
    init_s = time.perf_counter() - t0
    n_ws = len(model.WS)
    assert n_ws == corpus.n_tokens, f"lda has {n_ws} tokens, topicsup {corpus.n_tokens}"
    random_state.shuffle(rands)
    model._sample_topics(rands)  # warm-up sweep (untimed)
    t0 = time.perf_counter()
    for _ in range(sweeps):
        random_state.shuffle(rands)  # inside the timed region, as in _fit's loop body
        model._sample_topics(rands)
    seconds = time.perf_counter() - t0
    ll = model.loglikelihood()
    ref = log_joint_from_counts(model.ndz_, model.nzw_.T, ALPHA, BETA)
    notes = {
        "len_WS": n_ws,
        "ll": "log p(w,z)/N (LDA.loglikelihood)",
        "ll_check_rel_diff": f"{_rel(ll, ref):.1e}",
        "timed": "shuffle(rands)+_sample_topics(rands) per sweep",
        "init_s": f"{init_s:.2f}",
        "init": "z_i = i mod K (lda's deterministic start); tokens ordered by word id per doc",
    }
    del model
    return seconds, ll / corpus.n_tokens, notes


def run_tomotopy(corpus, K: int, sweeps: int):
    import tomotopy as tp

    mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=0, min_cf=0, min_df=0, rm_top=0,
                      tw=tp.TermWeight.ONE)
    for d in range(corpus.n_docs):
        mdl.add_doc(corpus.document(d))
    mdl.optim_interval = 0  # no hyper-parameter optimisation: alpha stays 0.1
    scheme_name = "NONE" if hasattr(tp.ParallelScheme, "NONE") else "DEFAULT"
    scheme = getattr(tp.ParallelScheme, scheme_name)
    t0 = time.perf_counter()
    mdl.train(0, workers=1, parallel=scheme)  # prepare + random initial assignment
    init_s = time.perf_counter() - t0
    n_words = mdl.num_words
    assert n_words == corpus.n_tokens, f"tomotopy has {n_words} tokens, topicsup {corpus.n_tokens}"
    assert len(mdl.docs) == corpus.n_docs, (len(mdl.docs), corpus.n_docs)
    V = len(mdl.used_vocabs)
    mdl.train(1, workers=1, parallel=scheme)  # warm-up sweep (untimed)
    t0 = time.perf_counter()
    mdl.train(sweeps, workers=1, parallel=scheme)
    seconds = time.perf_counter() - t0
    ll_per_word = mdl.ll_per_word
    # Rebuild the counts from the assignments to check what ll_per_word is.
    n_dk = np.zeros((len(mdl.docs), K), dtype=np.int64)
    n_wk = np.zeros((V, K), dtype=np.int64)
    for i, doc in enumerate(mdl.docs):
        w = np.asarray(doc.words, dtype=np.int64)
        z = np.asarray(doc.topics, dtype=np.int64)
        n_dk[i] = np.bincount(z, minlength=K)
        np.add.at(n_wk, (w, z), 1)
    ref = log_joint_from_counts(n_dk, n_wk, ALPHA, BETA)
    alpha_now = np.asarray(mdl.alpha, dtype=np.float64)
    notes = {
        "num_words": n_words,
        "used_vocabs": V,
        "parallel": scheme_name,
        "workers": 1,
        "isa": getattr(tp, "isa", "?"),
        "optim_interval": mdl.optim_interval,
        "alpha_after": f"{alpha_now.min():.4g}..{alpha_now.max():.4g}",
        "ll": "ll_per_word (log p(w,z)/N)",
        "ll_check_rel_diff": f"{_rel(ll_per_word * n_words, ref):.1e}",
        "init_s": f"{init_s:.2f}",
        "init": "random z (seed 0)",
    }
    del mdl
    return seconds, ll_per_word, notes


RUNNERS = {"topicsup": run_topicsup, "lda": run_lda, "tomotopy": run_tomotopy}


# --------------------------------------------------------------------------------------------
# Reporting

def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions() -> dict[str, str]:
    from importlib import metadata
    out = {"python": platform.python_version()}
    for name in ("numpy", "numba", "scipy", "tomotopy", "lda", "topicsup"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _fmt_m(x: float) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x / 1e6:.2f}"


def _fmt_ratio(a: float, b: float) -> str:
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)) or b == 0:
        return "n/a"
    return f"{a / b:.2f}x"


def markdown(rows: list[dict], meta: dict) -> str:
    by = {(r["library"], r["K"]): r for r in rows}
    ks = sorted({r["K"] for r in rows})

    def tps(lib, K):
        r = by.get((lib, K))
        return r["tokens_per_second"] if r else float("nan")

    lines = [
        "# LDA collapsed-Gibbs sweep throughput" + (" (quick trial run)" if meta["quick"] else ""),
        "",
        f"Corpus: 20 Newsgroups train, topicsup default preprocessing "
        f"({meta['n_docs']} documents, {meta['n_words']} words, {meta['n_tokens']} tokens). "
        f"Symmetric alpha = {ALPHA}, beta (eta) = {BETA}; one thread per library; "
        f"1 untimed warm-up sweep, then the timed sweeps.",
        "",
        "Throughput in millions of tokens per second (higher is better):",
        "",
        "| K | sweeps | topicsup | lda | tomotopy | topicsup / lda | topicsup / tomotopy |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for K in ks:
        sw = next(r["sweeps"] for r in rows if r["K"] == K)
        t, l, m = tps("topicsup", K), tps("lda", K), tps("tomotopy", K)
        lines.append(f"| {K} | {sw} | {_fmt_m(t)} | {_fmt_m(l)} | {_fmt_m(m)} | "
                     f"{_fmt_ratio(t, l)} | {_fmt_ratio(t, m)} |")
    checks = []
    for lib in LIBRARIES:
        vals = [float(r["notes"].split("ll_check_rel_diff=")[1].split(";")[0])
                for r in rows if r["library"] == lib and "ll_check_rel_diff=" in r["notes"]]
        if vals:
            checks.append(f"{lib} {max(vals):.0e}")
    lines += [
        "",
        "Log joint per token, log p(w, z) / N, after the timed sweeps. The three columns are the "
        "same quantity: each library's own value (topicsup `log_joint`, lda `loglikelihood()`, "
        "tomotopy `ll_per_word`) was checked against one formula evaluated on that library's "
        "counts; largest relative difference: " + (", ".join(checks) or "n/a") + " (tomotopy "
        "evaluates lgamma in single precision). The chains start differently (topicsup and "
        "tomotopy random, lda z_i = i mod K) and have run only warm-up + timed sweeps, so the "
        "values are not converged and differences between libraries mean nothing about quality.",
        "",
        "| K | topicsup | lda | tomotopy |",
        "|---:|---:|---:|---:|",
    ]
    for K in ks:
        cells = []
        for lib in LIBRARIES:
            r = by.get((lib, K))
            v = r["ll_per_token"] if r else float("nan")
            cells.append("n/a" if not math.isfinite(v) else f"{v:.4f}")
        lines.append(f"| {K} | " + " | ".join(cells) + " |")
    v = meta["versions"]
    lines += [
        "",
        f"- Machine: {meta['cpu']}; nproc = {meta['nproc']} (usable by this process: "
        f"{meta['affinity']}); {platform.system()} {platform.release()}",
        "- Versions: " + ", ".join(f"{k} {v[k]}" for k in
                                   ("python", "numpy", "numba", "scipy", "topicsup", "lda",
                                    "tomotopy")),
        f"- tomotopy SIMD build: {meta.get('tomotopy_isa', '?')}",
        f"- Date: {meta['date']}",
        f"- Command: `{meta['command']}` (interpreter {meta['executable']})",
        "- Environment: NUMBA_NUM_THREADS=1, OMP_NUM_THREADS=1",
        "- Timed: topicsup `Session.sweep(n)` (log_joint_every=0); lda `random_state.shuffle"
        "(rands)` + `_sample_topics(rands)` per sweep, as in `LDA._fit` minus its periodic "
        "`loglikelihood()`; tomotopy `train(n, workers=1, parallel=ParallelScheme.NONE)` with "
        "`optim_interval = 0`. Not timed: corpus loading, model construction, initial "
        "assignment, numba compilation (absorbed by the warm-up sweep), log-likelihoods.",
    ]
    if meta["quick"]:
        lines.append("- Quick trial run (few sweeps): numbers are indicative only.")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------

def archive_or_skip(arg: str | None) -> Path | None:
    """The 20 Newsgroups archive, found as every loader finds it
    (``topicsup.newsgroups.find_archive``: ``--data``, ``$TOPICSUP_DATA``, ``../shared/data``
    beside the repository, the cache; never a download), or None after printing every place
    looked and that the benchmark skips."""
    from topicsup.newsgroups import newsgroups_archive

    archive = newsgroups_archive(arg, download=False)
    if archive is None:
        print("skipped: no 20 Newsgroups archive (why is printed above); pass --data or set "
              "TOPICSUP_DATA")
    return archive


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help=f"trial run: K in {list(QUICK_KS)}, {QUICK_SWEEPS} sweeps, results "
                        f"written to <out>/quick/")
    p.add_argument("--data", help="20news-bydate.tar.gz or its directory (default: "
                                  "$TOPICSUP_DATA, <repo>/../shared/data/, the cache: "
                                  "topicsup.newsgroups.find_archive)")
    p.add_argument("--ks", type=int, nargs="+", help=f"numbers of topics (default "
                                                     f"{list(DEFAULT_KS)})")
    p.add_argument("--sweeps", type=int, help="timed sweeps for every K (default 20 for K < 500, "
                                              "10 for K >= 500; 3 with --quick)")
    p.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES),
                   help="subset of libraries to run (default: all)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="results directory")
    args = p.parse_args(argv)

    archive = archive_or_skip(args.data)
    if archive is None:
        return 0

    ks = args.ks or (QUICK_KS if args.quick else DEFAULT_KS)
    if args.sweeps is not None and args.sweeps < 1:
        p.error("--sweeps must be at least 1")
    out = Path(args.out)
    if args.quick:
        out = out / "quick"

    from topicsup.newsgroups import load_20newsgroups

    t0 = time.perf_counter()
    corpus = load_20newsgroups(subset="train", path=archive, min_count=5, max_df=0.5,
                               download=False)
    print(f"loaded {corpus!r} from {archive} in {time.perf_counter() - t0:.1f} s", flush=True)

    available = []
    for lib in args.libraries:
        try:
            __import__(lib)
            available.append(lib)
        except ImportError as exc:
            print(f"{lib}: not installed ({exc}); skipped. Install the peers with "
                  f"pip install -e \".[bench]\"", flush=True)

    rows: list[dict] = []
    for K in ks:
        sweeps = args.sweeps or (QUICK_SWEEPS if args.quick else default_sweeps(K))
        for lib in available:  # strictly one after the other
            gc.collect()
            seconds, llpt, notes = RUNNERS[lib](corpus, K, sweeps)
            tps = corpus.n_tokens * sweeps / seconds
            rows.append({"library": lib, "K": K, "n_tokens": corpus.n_tokens,
                         "sweeps": sweeps, "seconds": seconds, "tokens_per_second": tps,
                         "ll_per_token": llpt,
                         "notes": "; ".join(f"{k}={v}" for k, v in notes.items())})
            print(f"K={K:4d} {lib:9s} {sweeps:3d} sweeps {seconds:8.3f} s "
                  f"{tps / 1e6:7.3f} Mtok/s  ll/token {llpt:.4f}", flush=True)

    try:
        import tomotopy
        isa = getattr(tomotopy, "isa", "?")
    except ImportError:
        isa = "n/a"
    meta = {
        "quick": args.quick, "n_docs": corpus.n_docs, "n_words": corpus.n_words,
        "n_tokens": corpus.n_tokens, "cpu": cpu_model(), "nproc": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?",
        "versions": versions(), "tomotopy_isa": isa,
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": "python " + shlex.join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "executable": os.path.relpath(sys.executable),   # no machine's absolute path
    }
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "lda_throughput.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({**r, "seconds": f"{r['seconds']:.4f}",
                        "tokens_per_second": f"{r['tokens_per_second']:.1f}",
                        "ll_per_token": f"{r['ll_per_token']:.6f}"})
    md = markdown(rows, meta)
    (out / "lda_throughput.md").write_text(md)
    print()
    print(md)
    print(f"wrote {out / 'lda_throughput.csv'} and {out / 'lda_throughput.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
