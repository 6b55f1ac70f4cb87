"""How the cost of each LDA topic sampler grows with the corpus size, beside tomotopy.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_scaling.py                 # N in {1e6, 1e7, 1e8}, K in {100, 1000}
                                                       # (about 40 min by its estimate)
    python benchmarks/bench_scaling.py --quick         # smoke test, 1.5 min: N in {1e5, 1e6}, K 100
    python benchmarks/bench_scaling.py --readme-only   # rewrite README.md and the chart from CSV

Corpora are drawn from LDA (``draw_corpus``): V = 50,000 words, K_true = the K fitted, alpha =
0.1, document lengths 1 + Poisson(199), topic-word distributions phi_k ~ Dirichlet(V beta b)
with beta = 0.01 and a Zipf-Mandelbrot base measure b_v proportional to 1 / (v + 10) (so word
frequencies look like text after stop-word removal: the commonest word is about 1% of the
tokens, frequent words are shared by every topic, rare words belong to few; ``--phi
symmetric`` draws from the symmetric Dirichlet(beta) instead). The vocabulary is then cut to
the words that occur, so topicsup and tomotopy see the same V and compute the same log joint.

Each chain runs in a fresh child process (this script with ``--child``) on the corpus saved
once per (N, K) as .npy files, so that numba compilation (a warm-up chain on a tiny corpus
first), the library's copy of the corpus and the sampler's state are measured separately:

* seconds per sweep: the median over the sweeps after the first (the first touches fresh
  memory), and tokens per second from it;
* the log joint per token log p(W, Z) / N after each sweep (thinned to about 40 points;
  topicsup ``model.log_joint``, tomotopy ``ll_per_word``: the same quantity, see
  benchmarks/README.md), and the sampling seconds to reach the level tomotopy with 2 workers
  reaches at half its run, interpolated (as bench_parallel.py), as a ratio to tomotopy-2's;
* memory per token: the resident memory the library's corpus adds, and the peak the model adds
  during setup and sweeps (log-joint evaluation excluded), each divided by N;
* setup seconds: topicsup ``Corpus`` + ``Session``; tomotopy ``add_doc`` of every document and
  ``train(0)``; neither counted as sampling.

Chains: topicsup ``gibbs``, ``sparse_gibbs``, ``light`` (mh_steps = 2) on one thread, the
partially collapsed sampler ``pc-<kernel>-<threads>``, ``partitioned-2`` (when the sampler
``partitioned`` is registered) and tomotopy ``LDAModel`` with 1 worker (scheme NONE) and 2
(PARTITION), alpha 0.1, eta 0.01, no hyper-parameter optimisation. Every chain gets ``--budget``
seconds of sampling and at least 3 sweeps; a chain whose 3 sweeps are predicted to take more
than ``--max-over`` times the budget (from its speed at the previous size, or a prior table at
the first) is skipped and the tables say so.

Outputs in benchmarks/results/scaling/ (``quick/scaling`` for --quick): README.md (the tables),
scaling.csv (a row per chain, N and K), curves.csv (the log joint after each evaluated sweep),
corpora.csv, meta.json and scaling.{html,png}.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import ALPHA, BETA, DEFAULT_OUT, cpu_model, versions  # noqa: E402
from bench_samplers import level_at, time_to_reach  # noqa: E402

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; children inherit this
os.environ.pop("OMP_NUM_THREADS", None)

V_DRAW = 50_000          # the generator's vocabulary (the corpus keeps the words that occur)
MEAN_LENGTH = 200        # tokens per document, on average
ZIPF_OFFSET = 10.0       # base measure b_v ~ 1 / (v + 10): top word ~1% of the tokens
SIZES = (10**6, 10**7, 10**8)
QUICK_SIZES = (10**5, 10**6)
KS = (100, 1000)
QUICK_KS = (100,)
BUDGET = 20.0            # seconds of sampling per chain
QUICK_BUDGET = 1.5
MIN_SWEEPS = 3           # the first, then at least 2 timed ones
MAX_OVER = 4.0           # skip a chain whose MIN_SWEEPS sweeps would take > this x budget
N_POINTS = 40            # log-joint evaluations per chain, about
REFERENCE = "tomotopy-2"
PARTITIONED = "partitioned-2"
CHAINS = ("gibbs", "sparse_gibbs", "light", "pc-sparse-1", "pc-sparse-2", PARTITIONED,
          "tomotopy-1", "tomotopy-2")
OPTIONAL_CHAINS = ("alias", "pc-dense-1", "pc-dense-2")
VALID_CHAINS = CHAINS + OPTIONAL_CHAINS
# the comparison the issue asks for: the partially collapsed sampler on 2 threads against the
# collapsed (exact) ones
PC2, COLLAPSED = "pc-sparse-2", ("sparse_gibbs", "gibbs")

# Millions of tokens per second at K = 100 and 1000 (20 Newsgroups, results/parallel,
# results/race_sparse, samplers_throughput.md), for the first size's skip decisions and the
# estimate printed before a run; a partially collapsed chain's token part only (its per-sweep
# fixed cost, V K Gamma draws and word tables, is PC_FIXED_NS per V K entry and thread).
PRIOR_MTOK = {"gibbs": (8.0, 1.0), "sparse_gibbs": (13.7, 6.2), "light": (10.3, 9.2),
              "alias": (4.0, 1.6), "pc-sparse-1": (7.0, 2.2), "pc-sparse-2": (13.0, 3.9),
              "pc-dense-1": (7.0, 0.6), "pc-dense-2": (13.0, 1.2), PARTITIONED: (13.0, 3.9),
              "tomotopy-1": (11.0, 1.6), "tomotopy-2": (21.0, 2.6)}
PC_FIXED_NS = 30.0


# --------------------------------------------------------------------------------------------
# The corpus: LDA's generative process, vectorised.

def zipf_base(V: int, offset: float = ZIPF_OFFSET) -> np.ndarray:
    """The Zipf-Mandelbrot base measure b_v proportional to 1 / (v + 1 + offset)."""
    b = 1.0 / (np.arange(1, V + 1) + offset)
    return b / b.sum()


def draw_corpus(n_tokens: int, K: int, *, V: int = V_DRAW, alpha: float = ALPHA,
                beta: float = BETA, mean_length: int = MEAN_LENGTH, phi_kind: str = "zipf",
                seed: int = 0) -> dict[str, Any]:
    """A corpus of exactly ``n_tokens`` tokens drawn from LDA with K topics.

    Document lengths are 1 + Poisson(mean_length - 1) (the last one cut to make the total);
    topics phi_k ~ Dirichlet(V beta b) with b the Zipf base measure (``phi_kind="zipf"``) or
    uniform (``"symmetric"``: Dirichlet(beta)); each document's topics are drawn from the
    Dirichlet-multinomial by its Polya urn, one token position at a time for all documents at
    once: token i of a document copies the topic of one of its i earlier tokens with
    probability i / (i + K alpha), else takes a topic uniformly, which is
    p(z_i = k | z_<i) = (n_k + alpha) / (i + K alpha), theta integrated out, and costs O(N)
    whatever K. The words of topic k's tokens are a multinomial draw from phi_k, spread over
    those tokens by a shuffle. Words that never occur are removed from the vocabulary.

    Returns a dict: ``words`` (int32, the tokens document after document), ``doc_ptr``
    (int64), ``n_words`` (the vocabulary kept), ``true_ll_per_token`` (the collapsed log joint
    per token at the generating topics, a reference level), ``seconds``.
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    # document lengths, >= 1, summing to n_tokens
    lengths = 1 + rng.poisson(mean_length - 1, int(n_tokens / mean_length * 1.1) + 16)
    while lengths.sum() < n_tokens:
        lengths = np.concatenate([lengths, 1 + rng.poisson(mean_length - 1, lengths.size)])
    cum = np.cumsum(lengths)
    D = int(np.searchsorted(cum, n_tokens)) + 1
    lengths = lengths[:D].astype(np.int64)
    lengths[-1] -= int(cum[D - 1]) - n_tokens
    doc_ptr = np.zeros(D + 1, np.int64)
    np.cumsum(lengths, out=doc_ptr[1:])

    z = polya_topics(lengths, doc_ptr, K, alpha, rng)

    # words: topic k's tokens get a multinomial draw from phi_k, shuffled
    base = zipf_base(V) if phi_kind == "zipf" else np.full(V, 1.0 / V)
    shape = V * beta * base
    per_topic = np.bincount(z, minlength=K)
    order = np.argsort(z, kind="stable")      # radix sort for int16: O(N)
    grouped = np.empty(n_tokens, np.int32)
    ids = np.arange(V, dtype=np.int32)
    off = 0
    for k in range(K):
        g = rng.standard_gamma(shape)
        phi = g / g.sum()
        seg = grouped[off:off + per_topic[k]]
        seg[:] = np.repeat(ids, rng.multinomial(per_topic[k], phi))
        rng.shuffle(seg)
        off += per_topic[k]
    words = np.empty(n_tokens, np.int32)
    words[order] = grouped
    del grouped

    # keep the words that occur
    counts = np.bincount(words, minlength=V)
    used = np.flatnonzero(counts)
    remap = np.full(V, -1, np.int32)
    remap[used] = np.arange(used.size, dtype=np.int32)
    np.take(remap, words, out=words)
    counts = counts[used]
    V_used = int(used.size)

    # the collapsed log joint at the generating topics: the nonzero counts n_wk and n_dk are
    # the runs of (topic, word) and (topic, document) in topic order
    true_ll = collapsed_log_joint(words, doc_ptr, z, order, K, V_used, alpha, beta)
    return {"words": words, "doc_ptr": doc_ptr, "n_words": V_used,
            "true_ll_per_token": true_ll / n_tokens, "seconds": time.perf_counter() - t0}


def polya_topics(lengths: np.ndarray, doc_ptr: np.ndarray, K: int, alpha: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Every token's topic, theta_d ~ Dirichlet(alpha) integrated out: token i of a document
    copies the topic of one of its i earlier tokens (uniformly) with probability
    i / (i + K alpha), else takes one of the K topics uniformly, so
    p(z_i = k | z_<i) = (n_k + alpha) / (i + K alpha). One step per token position, for every
    document that long at once (documents ordered by length, so those are a prefix)."""
    D = lengths.size
    ztype = np.int16 if K < 2**15 else np.int32
    z = np.zeros(int(doc_ptr[-1]), ztype)
    by_len = np.argsort(-lengths, kind="stable")
    starts = doc_ptr[:-1][by_len]
    active = D - np.cumsum(np.bincount(lengths, minlength=int(lengths.max()) + 1))
    ka = K * alpha
    for i in range(int(lengths.max())):
        s = starts[:int(active[i])]
        v = rng.random(s.size) * (i + ka)    # below i: copy token floor(v); else topic
        fresh = np.minimum(((v - i) / alpha).astype(np.int64), K - 1).astype(ztype)
        src = s + np.minimum(v.astype(np.int64), max(i - 1, 0))
        z[s + i] = np.where(v < i, z[src], fresh)
    return z


def _run_lengths(*keys: np.ndarray) -> np.ndarray:
    """Lengths of the runs of equal consecutive tuples of ``keys``."""
    change = np.zeros(keys[0].size, bool)
    change[0] = True
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    return np.diff(np.append(np.flatnonzero(change), keys[0].size))


def collapsed_log_joint(words: np.ndarray, doc_ptr: np.ndarray, z: np.ndarray,
                        order: np.ndarray, K: int, V: int, alpha: float, beta: float) -> float:
    """log p(W, Z) with Theta and Phi collapsed (bench_lda.log_joint_from_counts), from the
    nonzero counts only (n_dk never dense: D K is 5e8 at N = 1e8, K = 1000); ``order`` sorts
    the tokens by topic, stably."""
    from scipy.special import gammaln
    zs = z[order]
    D = doc_ptr.size - 1
    doc = np.repeat(np.arange(D, dtype=np.int32), np.diff(doc_ptr))[order]
    n_dk = _run_lengths(zs, doc)           # tokens are in document order within a topic
    del doc
    n_k = np.bincount(z, minlength=K)
    del zs
    key = z.astype(np.int64)                # n_wk by a bincount over the V K cells: O(N)
    key += words.astype(np.int64) * K
    n_wk = np.bincount(key, minlength=V * K)
    del key
    n_wk = n_wk[n_wk > 0]
    topic = (K * gammaln(V * beta) - gammaln(n_k + V * beta).sum()
             + (gammaln(n_wk + beta) - gammaln(beta)).sum())
    n_d = np.diff(doc_ptr)
    dk = (D * gammaln(K * alpha) - gammaln(n_d + K * alpha).sum()
          + (gammaln(n_dk + alpha) - gammaln(alpha)).sum())
    return float(topic + dk)


# --------------------------------------------------------------------------------------------
# Memory: the resident set of this process (Linux /proc; ru_maxrss elsewhere).

def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


class Memory:
    """Peak resident memory over chosen stretches of the run: ``reset`` sets the high-water
    mark to the current resident size (/proc/self/clear_refs, Linux >= 4.0), ``mark`` records
    it, so the log-joint evaluation between a mark and the next reset is left out."""

    def __init__(self) -> None:
        try:
            _status("VmHWM")
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.exact = True
        except OSError:
            self.exact = False
        self.peak = 0

    def rss(self) -> int:
        if self.exact:
            return _status("VmRSS")
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def reset(self) -> None:
        if self.exact:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")

    def mark(self) -> None:
        hwm = _status("VmHWM") if self.exact else \
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self.peak = max(self.peak, hwm)


# --------------------------------------------------------------------------------------------
# The chains, each behind sweep() and log_joint_per_token() (as in bench_parallel.py).

def topicsup_settings(name: str) -> dict[str, Any]:
    if name.startswith("pc-"):
        _, kernel, threads = name.split("-")
        return dict(sampler="partially_collapsed", kernel=kernel, threads=int(threads))
    if name == PARTITIONED:
        return dict(sampler="partitioned", partitions=2, kernel="sparse", threads=2)
    if name in ("gibbs", "sparse_gibbs"):
        return dict(sampler=name)
    return dict(sampler=name, mh_steps=2)


class Topicsup:
    def __init__(self, corpus: Any, K: int, name: str, seed: int) -> None:
        from topicsup import LDA, Session
        self.s = Session(LDA(K=K, alpha=ALPHA, beta=BETA, **topicsup_settings(name)), corpus,
                         seed=seed, log_joint_every=0)

    def sweep(self) -> None:
        self.s.sweep(1)

    def log_joint_per_token(self) -> float:
        s = self.s
        return float(s.model.log_joint(s.state, s.problem)) / s.corpus.n_tokens


class Tomotopy:
    def __init__(self, mdl: Any, workers: int) -> None:
        import tomotopy as tp  # type: ignore[import-untyped]
        self.mdl = mdl
        self.workers = workers
        self.scheme = tp.ParallelScheme.NONE if workers == 1 else tp.ParallelScheme.PARTITION
        mdl.optim_interval = 0   # alpha stays 0.1
        mdl.train(0, workers=workers, parallel=self.scheme)   # its initialisation

    @staticmethod
    def build(words: np.ndarray, doc_ptr: np.ndarray, K: int, seed: int) -> Any:
        """The model with every document added as a list of str (the fastest add_doc takes:
        about 0.25 s per million tokens)."""
        import tomotopy as tp
        mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed, min_cf=0, min_df=0,
                          rm_top=0, tw=tp.TermWeight.ONE)
        vocab = np.array([f"w{v}" for v in range(int(words.max()) + 1)], dtype=object)
        for d in range(doc_ptr.size - 1):
            mdl.add_doc(vocab[words[doc_ptr[d]:doc_ptr[d + 1]]].tolist())
        return mdl

    def sweep(self) -> None:
        self.mdl.train(1, workers=self.workers, parallel=self.scheme)

    def log_joint_per_token(self) -> float:
        return float(self.mdl.ll_per_word)


def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    """One chain on the saved corpus (in a fresh process): see the module docstring."""
    name, K, seed, budget = spec["chain"], spec["K"], spec["seed"], spec["budget"]
    mem = Memory()
    out: dict[str, Any] = {"compile_seconds": 0.0, "build_seconds": 0.0,
                           "memory_exact": mem.exact}
    tomotopy = name.startswith("tomotopy-")
    if tomotopy:
        import warnings
        import tomotopy as tp  # noqa: F401  (imported before the baseline)
        warnings.filterwarnings("ignore", message="The training result may differ")
    else:
        # compile numba kernels (or load them from the cache) on a tiny corpus first
        from topicsup import Corpus
        t0 = time.perf_counter()
        rng = np.random.default_rng(seed)
        tiny = Corpus(words=rng.integers(0, 50, 2000).astype(np.int32),
                      doc_ptr=np.arange(0, 2001, 100, dtype=np.int64),
                      vocabulary=tuple(f"w{v}" for v in range(50)))
        w = Topicsup(tiny, K, name, seed + 1)
        w.sweep()
        w.log_joint_per_token()
        del w, tiny
        gc.collect()
        out["compile_seconds"] = time.perf_counter() - t0
    base = mem.rss()
    words = np.load(spec["words"])
    doc_ptr = np.load(spec["doc_ptr"])
    n = int(words.size)
    t0 = time.perf_counter()
    if tomotopy:
        mdl = Tomotopy.build(words, doc_ptr, K, seed)
        out["build_seconds"] = time.perf_counter() - t0
        del words, doc_ptr
        gc.collect()
        corpus_rss = mem.rss()
        mem.reset()
        t0 = time.perf_counter()
        chain: Any = Tomotopy(mdl, int(name.split("-")[1]))
        assert mdl.num_words == n, (mdl.num_words, n)
    else:
        from topicsup import Corpus
        corpus = Corpus(words=words, doc_ptr=doc_ptr,
                        vocabulary=tuple(f"w{v}" for v in range(spec["n_words"])))
        out["build_seconds"] = time.perf_counter() - t0
        del words, doc_ptr
        gc.collect()
        corpus_rss = mem.rss()
        mem.reset()
        t0 = time.perf_counter()
        chain = Topicsup(corpus, K, name, seed)
    out["setup_seconds"] = time.perf_counter() - t0
    out["corpus_bytes"] = corpus_rss - base
    mem.mark()
    rows = [{"sweep": 0, "seconds": 0.0, "sweep_seconds": math.nan,
             "ll_per_token": chain.log_joint_per_token()}]
    mem.reset()
    elapsed, sweep, last_eval = 0.0, 0, 0.0
    while elapsed < budget or sweep < MIN_SWEEPS:
        t0 = time.perf_counter()
        chain.sweep()
        dt = time.perf_counter() - t0
        elapsed += dt
        sweep += 1
        row = {"sweep": sweep, "seconds": elapsed, "sweep_seconds": dt, "ll_per_token": math.nan}
        last = elapsed >= budget and sweep >= MIN_SWEEPS
        if sweep <= 10 or elapsed - last_eval >= budget / N_POINTS or last:
            mem.mark()
            row["ll_per_token"] = chain.log_joint_per_token()
            mem.reset()
            last_eval = elapsed
        rows.append(row)
        if not math.isnan(row["ll_per_token"]):
            print(f"    {name} N={n:.0e} K={K} sweep {sweep:4d} {dt:8.3f} s "
                  f"ll/token={row['ll_per_token']:.4f}", flush=True)
    mem.mark()
    out["model_peak_bytes"] = mem.peak - corpus_rss
    out["trace"] = rows
    return out


# --------------------------------------------------------------------------------------------
# The parent: corpora, chains in children, the summary.

def prior_sweep_seconds(name: str, N: int, K: int, V: int) -> float:
    """A guess of a sweep's seconds from PRIOR_MTOK (power law in K between 100 and 1000)."""
    lo, hi = PRIOR_MTOK.get(name, (5.0, 1.0))
    b = math.log(lo / hi) / math.log(10.0)
    rate = lo * 1e6 * (K / 100.0) ** (-b)
    return N / rate + fixed_seconds(name, K, V)


def fixed_seconds(name: str, K: int, V: int) -> float:
    """The partially collapsed sweep's cost that does not grow with N (Phi and the tables)."""
    if not name.startswith("pc-") and name != PARTITIONED:
        return 0.0
    threads = int(name.rsplit("-", 1)[1])
    return V * K * PC_FIXED_NS * 1e-9 / threads


def predicted_sweep(name: str, N: int, K: int, V: int, seen: dict[tuple[str, int], Any]
                    ) -> float:
    """From the chain's median sweep at the largest smaller N already run at this K (its part
    that grows with N scaled linearly), else the prior."""
    prev = seen.get((name, K))
    if prev is None:
        return prior_sweep_seconds(name, N, K, V)
    n0, s0 = prev
    fixed = min(fixed_seconds(name, K, V), s0)
    return fixed + (s0 - fixed) * N / n0


def chain_wall(sweep_s: float, N: int, budget: float) -> float:
    """Seconds a chain is predicted to take: process start and compile, the corpus and model
    setup, sampling and log-joint evaluations."""
    sampling = max(budget, MIN_SWEEPS * sweep_s)
    return 6.0 + 2.5e-7 * N + sampling * 1.25


def estimate(sizes: tuple[int, ...], ks: tuple[int, ...], chains: list[str],
             budgets: dict[int, float], max_over: float) -> tuple[float, list[str]]:
    """Predicted seconds of the whole run from the priors, and the chains the priors would
    skip."""
    total, skipped = 0.0, []
    for N in sizes:
        for K in ks:
            total += 0.45e-6 * N + 2e-9 * N * K / 100   # generation, saving
            for name in chains:
                s = prior_sweep_seconds(name, N, K, V_DRAW)
                if MIN_SWEEPS * s > max_over * budgets[N] and name != REFERENCE:
                    skipped.append(f"{name} (N={N:.0e}, K={K}: ~{s:.0f} s/sweep)")
                    continue
                total += chain_wall(s, N, budgets[N])
    return total, skipped


def summarise(chains: pd.DataFrame, traces: pd.DataFrame) -> pd.DataFrame:
    """Add the level (what tomotopy-2 reaches at half its sampling time, per (N, K)) and each
    chain's seconds to it and ratio to tomotopy-2's."""
    out = chains.copy()
    for col in ("target_ll_per_token", "seconds_to_target", "time_vs_tomotopy_2"):
        out[col] = math.nan
    for (N, K), g in out.groupby(["N", "K"]):
        tk = traces[(traces["N"] == N) & (traces["K"] == K)]
        ref = tk[tk["chain"] == REFERENCE]
        if ref.empty:
            continue
        target = level_at(ref, float(ref["seconds"].max()) / 2)
        t_ref = time_to_reach(ref, target)
        for i in g.index:
            tr = tk[tk["chain"] == out.at[i, "chain"]]
            out.at[i, "target_ll_per_token"] = target
            if len(tr):
                t = time_to_reach(tr, target)
                out.at[i, "seconds_to_target"] = t
                out.at[i, "time_vs_tomotopy_2"] = t / t_ref
    return out


def run_one(name: str, N: int, K: int, files: dict[str, Any], budget: float, seed: int,
            work: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    spec = {"chain": name, "K": K, "seed": seed, "budget": budget, **files}
    spec_path = work / f"spec_{name}_{N}_{K}.json"
    result_path = work / f"result_{name}_{N}_{K}.json"
    spec["result"] = str(result_path)
    spec_path.write_text(json.dumps(spec))
    timeout = 600 + 20 * budget + 3e-6 * N * max(1, K // 100)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                               str(spec_path)], timeout=timeout)
        status = "ran" if proc.returncode == 0 and result_path.exists() else \
            f"failed (exit {proc.returncode})"
    except subprocess.TimeoutExpired:
        status = f"failed (timeout {timeout:.0f} s)"
    wall = time.perf_counter() - t0
    row: dict[str, Any] = {"chain": name, "N": N, "K": K, "status": status,
                           "wall_seconds": wall}
    trace: list[dict[str, Any]] = []
    if status == "ran":
        res = json.loads(result_path.read_text())
        trace = [{"chain": name, "N": N, "K": K, **r} for r in res.pop("trace")]
        sw = [r["sweep_seconds"] for r in trace if r["sweep"] >= 2]
        med = float(np.median(sw))
        ev = [r["ll_per_token"] for r in trace if not math.isnan(r["ll_per_token"])]
        row.update(res)
        row.update({"sweeps": trace[-1]["sweep"], "sampling_seconds": trace[-1]["seconds"],
                    "first_sweep_seconds": trace[1]["sweep_seconds"],
                    "median_sweep_seconds": med, "tokens_per_second": N / med,
                    "final_ll_per_token": ev[-1],
                    "corpus_bytes_per_token": res["corpus_bytes"] / N,
                    "model_bytes_per_token": res["model_peak_bytes"] / N})
        result_path.unlink()
    spec_path.unlink()
    return row, trace


def partitioned_available() -> str:
    """'' if the sampler ``partitioned`` is registered with the settings the chain uses, else
    why not."""
    try:
        from topicsup.samplers import REGISTRY
        if "partitioned" not in REGISTRY.names():
            return "the sampler 'partitioned' is not in topicsup.samplers.REGISTRY"
        params = REGISTRY.get("partitioned").param_defaults()
        missing = {"partitions", "kernel", "threads"} - set(params)
        if missing:
            return f"the sampler 'partitioned' has no setting {sorted(missing)}"
    except Exception as exc:   # a module being written may not import yet
        return f"topicsup.samplers failed to load: {type(exc).__name__}: {exc}"
    return ""


def fmt_n(N: float) -> str:
    e = int(round(math.log10(N)))
    return f"1e{e}" if 10**e == N else f"{N:.3g}"


def label(chain: str) -> str:
    """The chain's name in every table and chart, "(approximate)" on the approximate ones:
    the partitioned sampler and tomotopy's PARTITION scheme (tomotopy-2)."""
    return f"{chain} (approximate)" if chain in (PARTITIONED, REFERENCE) else chain


def chart(summary: pd.DataFrame, out: Path) -> None:
    """Tokens per second and model bytes per token against N (log x), a line per chain, a
    column per K (scaling.{html,png})."""
    import altair as alt
    ran = summary[summary["status"] == "ran"].copy()
    ran["chain"] = ran["chain"].map(label)
    ran["M tokens/s"] = ran["tokens_per_second"] / 1e6
    ran["seconds per sweep"] = ran["median_sweep_seconds"]
    ran["total bytes per token"] = ran["corpus_bytes_per_token"] + ran["model_bytes_per_token"]
    long = ran.melt(id_vars=["chain", "N", "K"], value_vars=["seconds per sweep", "M tokens/s",
                                                             "total bytes per token"],
                    var_name="measure")
    c = alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("N:Q", scale=alt.Scale(type="log"), title="tokens N"),
        y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
        color=alt.Color("chain:N", title="chain"),
        tooltip=["chain", "N", "K", "measure", alt.Tooltip("value:Q", format=".3g")],
    ).properties(width=260, height=180).facet(
        row=alt.Row("measure:N", title=None, sort=["seconds per sweep", "M tokens/s",
                                                   "total bytes per token"]), column=alt.Column("K:O", title="topics K"),
    ).resolve_scale(y="independent").properties(
        title="Cost against corpus size, synthetic LDA corpora (V 50,000), both cores")
    c.save(str(out / "scaling.html"), format="html", inline=True)
    try:
        c.save(str(out / "scaling.png"), scale_factor=1.5)
    except Exception as exc:   # vl-convert missing: the html still holds the chart
        print(f"scaling.png not written: {exc}")


def overtakes(summary: pd.DataFrame, K: int, n_words: dict[int, int]) -> str:
    """Where, if anywhere, pc-sparse-2 reaches the level sooner than sparse_gibbs and gibbs
    (from the measurements; a chain that did not reach the level within its run counts as
    slower than one that did; ``n_words`` is each size's vocabulary at this K)."""
    g = summary[summary["K"] == K].set_index(["chain", "N"])
    sizes = sorted(summary.loc[summary["K"] == K, "N"].unique())
    verdicts: list[bool | None] = []
    notes: list[str] = []
    for N in sizes:
        def t(c: str) -> float | None:
            if (c, N) not in g.index or g.loc[(c, N), "status"] != "ran":
                return None
            v = g.loc[(c, N), "seconds_to_target"]
            return math.inf if not math.isfinite(v) else float(v)
        tp, others = t(PC2), {c: t(c) for c in COLLAPSED}
        ran = {c: v for c, v in others.items() if v is not None}
        why = (f"{PC2} not run" if tp is None else
               f"{' and '.join(COLLAPSED)} not run" if not ran else
               "none reached the level" if tp == math.inf
               and all(v == math.inf for v in ran.values()) else "")
        if why or tp is None:
            verdicts.append(None)
            notes.append(f"N = {fmt_n(N)}: undecided, {why}")
            continue
        verdicts.append(all(tp < v for v in ran.values()))
        parts = [f"{c} {'-' if v == math.inf else f'{v:.1f} s'}" for c, v in ran.items()]
        parts += [f"{c} not run" for c in COLLAPSED if c not in ran]
        notes.append(f"N = {fmt_n(N)}: {PC2} {'-' if tp == math.inf else f'{tp:.1f} s'} "
                     f"against {', '.join(parts)}")
    first = None
    for i, v in enumerate(verdicts):   # the first N from which on it stays ahead
        if v and all(w is not False for w in verdicts[i:]):
            first = sizes[i]
            break
    vk = n_words.get(first, V_DRAW) * K if first is not None else V_DRAW * K
    if first is None:
        head = (f"K = {K}: at no measured N does {PC2} reach the level sooner than both "
                f"{' and '.join(COLLAPSED)}")
    elif first == sizes[0]:
        head = (f"K = {K}: {PC2} reaches the level sooner than {' and '.join(COLLAPSED)} "
                f"already at the smallest N measured ({fmt_n(first)}, N / VK = "
                f"{first / vk:.2g}) and at every larger one")
    else:
        head = (f"K = {K}: {PC2} overtakes {' and '.join(COLLAPSED)} in time to the level "
                f"at N = {fmt_n(first)} (N / VK = {first / vk:.2g}) and stays ahead")
    return head + " (" + "; ".join(notes) + ")."


def markdown(summary: pd.DataFrame, corpora: pd.DataFrame, meta: dict[str, Any]) -> str:
    def cell(v: Any, f: str) -> str:
        return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f % v

    lines = ["# How the samplers' cost grows with the corpus"
             + (" (quick trial run)" if meta["quick"] else ""), "",
             f"Synthetic corpora drawn from LDA: V = {meta['V']:,} words drawn (the vocabulary "
             f"keeps those that occur), K_true = K, alpha = {ALPHA}, beta = {BETA}, phi_k ~ "
             f"Dirichlet(V beta b) with b {meta['phi']}, document lengths 1 + Poisson("
             f"{MEAN_LENGTH - 1}). Every chain: a fresh process, a random start, alpha = "
             f"{ALPHA}, beta = {BETA}, {meta['budgets']} s of sampling (per N) and at least "
             f"{MIN_SWEEPS} sweeps; skipped where {MIN_SWEEPS} sweeps would take more than "
             f"{meta['max_over']:g} x the budget. Numba compilation, the corpus and the "
             "model's setup and the log-joint evaluations are outside the sampling time.", "",
             "Corpora (N / VK: tokens per entry of the V x K topic-word table; target: the log "
             "joint per token tomotopy-2 reaches at half its run; true: the collapsed log joint "
             "per token at the topics that generated the corpus):", "",
             "| N | K | documents | V | N / VK | generated in s | target | true |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in corpora.itertuples():
        tg = summary[(summary["N"] == r.N) & (summary["K"] == r.K)]["target_ll_per_token"]
        target = float(tg.dropna().iloc[0]) if tg.notna().any() else math.nan
        lines.append(f"| {fmt_n(r.N)} | {r.K} | {int(r.n_docs):,} | {int(r.n_words):,} | "
                     f"{r.N / (r.n_words * r.K):.2g} | {r.seconds:.1f} | "
                     f"{cell(target, '%.4f')} | {r.true_ll_per_token:.4f} |")
    order = [c for c in VALID_CHAINS if c in set(summary["chain"])]

    def table(title: str, value: Any, unit_note: str = "") -> list[str]:
        out = ["", title + unit_note, ""]
        for K in sorted(summary["K"].unique()):
            g = summary[summary["K"] == K]
            sizes = sorted(g["N"].unique())
            out += [f"K = {K}:", "", "| chain | " + " | ".join(fmt_n(n) for n in sizes) + " |",
                    "|---|" + "---:|" * len(sizes)]
            for c in order:
                cells = []
                for n in sizes:
                    r = g[(g["chain"] == c) & (g["N"] == n)]
                    if r.empty:
                        cells.append("")
                    elif r.iloc[0]["status"] != "ran":
                        cells.append(str(r.iloc[0]["status"]).split(" (")[0])
                    else:
                        cells.append(value(r.iloc[0]))
                if any(cells):
                    out.append(f"| {label(c)} | " + " | ".join(cells) + " |")
            out.append("")
        return out

    lines += table("Seconds per sweep (median of the sweeps after the first; 'skipped': "
                   "predicted too slow for the budget, see the notes):",
                   lambda r: f"{r.median_sweep_seconds:.3g}")
    lines += table("Millions of tokens per second (from the median sweep):",
                   lambda r: f"{r.tokens_per_second / 1e6:.2f}")
    lines += table("Seconds of sampling to the target level, and the ratio to tomotopy-2's "
                   "own time (below 1: sooner; '-': not reached within the run):",
                   lambda r: "-" if not math.isfinite(r.seconds_to_target) else
                   f"{r.seconds_to_target:.1f} ({cell(r.time_vs_tomotopy_2, '%.2f')})")
    lines += table("Memory, bytes per token: the library's corpus + the model's peak during "
                   "setup and sweeps (resident memory; log-joint evaluation excluded):",
                   lambda r: f"{r.corpus_bytes_per_token:.1f} + {r.model_bytes_per_token:.1f}")
    lines += table("Setup seconds, not sampling: building the corpus (topicsup `Corpus`; "
                   "tomotopy `add_doc` of every document) + the model (topicsup `Session`; "
                   "tomotopy `train(0)`); and the final log joint per token:",
                   lambda r: f"{r.build_seconds:.1f} + {r.setup_seconds:.1f}; "
                             f"{r.final_ll_per_token:.4f}")
    lines += ["Where the partially collapsed sampler on 2 threads overtakes the collapsed "
              "ones in time to the level (computed from the tables above, per K):", ""]
    for K in sorted(summary["K"].unique()):
        vocab = {int(r.N): int(r.n_words) for r in corpora.itertuples() if r.K == K}
        lines += [f"- {overtakes(summary, K, vocab)}"]
    notes = list(meta.get("notes", []))
    for r in summary[summary["status"] != "ran"].itertuples():
        notes.append(f"{r.chain} at N = {fmt_n(r.N)}, K = {r.K}: {r.status}.")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    v = meta["versions"]
    load = meta.get("load")
    lines += ["", f"- Machine: {meta['cpu']}, {meta['cores']} cores, NUMBA_NUM_THREADS=2 "
              "(one-thread chains use one)" + (f"; load average at the start {load} (1, 5, "
                                               "15 min; well above 0: other work shared the cores)"
                                               if load else ""),
              "- Versions: " + ", ".join(f"{k} {v[k]}" for k in v),
              f"- Date: {meta['date']}", f"- Command: `{meta['command']}`",
              "- Timed: one sweep per call (topicsup `Session.sweep(1)`, log_joint_every = 0; "
              "tomotopy `train(1, workers, parallel)`). One seed per corpus and chain: treat "
              "differences of a few percent as noise. With a fixed budget, the level at large N "
              "is the one reached after a few sweeps (early burn-in), at small N after many; "
              "`--budget-growth 1` gives every N the same number of reference sweeps instead."]
    return "\n".join(lines) + "\n"


def earlier_results(out: Path, sizes: tuple[int, ...], meta: dict[str, Any]
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]],
                               dict[str, Any]]:
    """``--append``: the rows, traces and corpora of ``out``'s earlier run at sizes other
    than ``sizes``, and this run's meta with the earlier run's command, date and budgets
    kept beside it (the tables say which run measured what)."""
    if not (out / "scaling.csv").exists():
        raise SystemExit(f"--append: no earlier results in {out}")
    old_meta = json.loads((out / "meta.json").read_text())
    keep = [fmt_n(n) for n in sizes]
    summary = pd.read_csv(out / "scaling.csv")
    summary = summary[~summary["N"].isin(sizes)].drop(
        columns=["target_ll_per_token", "seconds_to_target", "time_vs_tomotopy_2"])
    traces = pd.read_csv(out / "curves.csv")
    corpora = pd.read_csv(out / "corpora.csv")
    meta = {**meta,
            "budgets": {**{n: b for n, b in old_meta["budgets"].items() if n not in keep},
                        **meta["budgets"]},
            "date": f"{old_meta['date']} and {meta['date']}",
            "command": f"{old_meta['command']}`, then `{meta['command']}",
            "notes": [*old_meta.get("notes", []), *meta["notes"]]}

    def records(df: pd.DataFrame) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if not (isinstance(v, float) and math.isnan(v))}
                for r in df.to_dict("records")]

    return (records(summary), records(traces[~traces["N"].isin(sizes)]),
            records(corpora[~corpora["N"].isin(sizes)]), meta)


def write_outputs(out: Path, rows: list[dict[str, Any]], traces: list[dict[str, Any]],
                  corpora: list[dict[str, Any]], meta: dict[str, Any]) -> pd.DataFrame:
    chains = pd.DataFrame(rows)
    tr = pd.DataFrame(traces, columns=["chain", "N", "K", "sweep", "seconds", "sweep_seconds",
                                       "ll_per_token"])
    summary = summarise(chains, tr)
    tr.to_csv(out / "curves.csv", index=False)
    summary.to_csv(out / "scaling.csv", index=False)
    pd.DataFrame(corpora).to_csv(out / "corpora.csv", index=False)
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return summary


def readme(out: Path) -> str:
    summary = pd.read_csv(out / "scaling.csv")
    meta = json.loads((out / "meta.json").read_text())
    md = markdown(summary, pd.read_csv(out / "corpora.csv"), meta)
    (out / "README.md").write_text(md)
    if (summary["status"] == "ran").any():
        chart(summary, out)
    return md


def parse_sizes(s: str) -> tuple[int, ...]:
    return tuple(int(float(x)) for x in s.split(","))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=parse_sizes, help="tokens N, e.g. 1e6,1e7,1e8")
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--chains", type=lambda s: tuple(s.split(",")),
                    help=f"comma-separated, from {list(VALID_CHAINS)} (default: "
                         f"{','.join(CHAINS)}); {REFERENCE} always runs")
    ap.add_argument("--budget", type=float, help=f"seconds of sampling per chain "
                                                 f"(default {BUDGET:g}, quick {QUICK_BUDGET:g})")
    ap.add_argument("--budget-growth", type=float, default=0.0,
                    help="budget(N) = budget * (N / smallest N) ** this (default 0: the same "
                         "budget at every N; 1: the same number of sweeps)")
    ap.add_argument("--max-over", type=float, default=MAX_OVER,
                    help=f"skip a chain whose {MIN_SWEEPS} sweeps are predicted to take more "
                         f"than this times the budget")
    ap.add_argument("--phi", choices=("zipf", "symmetric"), default="zipf")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: N in 1e5,1e6, K = 100, 1.5 s budgets")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--data-dir", type=Path,
                    help="where the corpora are saved (kept, and reused by a later run with "
                         "the same settings); default a temporary directory, removed at the end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--append", action="store_true",
                    help="keep the other sizes' results already in --out (a larger N measured "
                         "later, on the same machine and settings); this run's sizes replace "
                         "theirs")
    ap.add_argument("--readme-only", action="store_true",
                    help="rewrite README.md and the chart from scaling.csv, corpora.csv and "
                         "meta.json, running nothing")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:   # one chain, in this fresh process
        spec = json.loads(args.child.read_text())
        res = run_child(spec)
        Path(spec["result"]).write_text(json.dumps(res))
        return 0

    out = args.out or (DEFAULT_OUT / "quick" / "scaling" if args.quick
                       else DEFAULT_OUT / "scaling")
    if args.readme_only:
        print(readme(out))
        return 0
    chains = list(args.chains or CHAINS)
    unknown = sorted(set(chains) - set(VALID_CHAINS))
    if unknown:
        ap.error(f"--chains: unknown {unknown}; choose from {list(VALID_CHAINS)}")
    notes = []
    if REFERENCE not in chains:   # every time to the level is measured against it
        chains.append(REFERENCE)
    if PARTITIONED in chains:
        why = partitioned_available()
        if why:
            chains.remove(PARTITIONED)
            print(f"skipping {PARTITIONED}: {why}", flush=True)
            notes.append(f"{PARTITIONED} not run: {why}.")
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    ks = args.ks or (QUICK_KS if args.quick else KS)
    budget = args.budget or (QUICK_BUDGET if args.quick else BUDGET)
    budgets = {N: budget * (N / min(sizes)) ** args.budget_growth for N in sizes}
    total, skip_guess = estimate(sizes, ks, chains, budgets, args.max_over)
    print(f"sizes {[fmt_n(n) for n in sizes]}, K {list(ks)}, chains {chains}, budgets "
          f"{ {fmt_n(n): round(b, 1) for n, b in budgets.items()} } s", flush=True)
    print(f"estimated total: about {total / 60:.0f} min"
          + (f"; the priors predict skipping {', '.join(skip_guess)}" if skip_guess else ""),
          flush=True)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="topicsup-scaling-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    meta = {"quick": args.quick, "V": V_DRAW, "phi": "Zipf-Mandelbrot 1 / (v + 10)"
            if args.phi == "zipf" else "uniform (symmetric Dirichlet(beta))",
            "budgets": {fmt_n(n): round(b, 2) for n, b in budgets.items()},
            "max_over": args.max_over, "notes": notes, "cpu": cpu_model(),
            "load": [round(x, 1) for x in os.getloadavg()] if hasattr(os, "getloadavg")
            else None,
            "cores": os.cpu_count(), "versions": versions(),
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(shlex.quote(a) for a in ["python"] + (
                sys.argv if argv is None else [sys.argv[0]] + list(argv)))}
    rows: list[dict[str, Any]] = []
    traces: list[dict[str, Any]] = []
    corpora: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], Any] = {}
    if args.append:
        rows, traces, corpora, meta = earlier_results(out, sizes, meta)
        for r in rows:      # the speeds measured at smaller N predict the larger's
            if r["status"] == "ran" and r["N"] < min(sizes):
                seen[(r["chain"], r["K"])] = (r["N"], r["median_sweep_seconds"])
    t_start = time.perf_counter()
    try:
        for N in sizes:
            for K in ks:
                stem = data_dir / f"lda_N{N}_K{K}_V{V_DRAW}_{args.phi}_seed{args.seed}"
                info_path = Path(f"{stem}.json")
                if info_path.exists():
                    info = json.loads(info_path.read_text())
                    print(f"corpus N={fmt_n(N)} K={K}: reusing {stem}.*", flush=True)
                else:
                    c = draw_corpus(N, K, phi_kind=args.phi, seed=args.seed * 1000 + K)
                    np.save(f"{stem}_words.npy", c["words"])
                    np.save(f"{stem}_doc_ptr.npy", c["doc_ptr"])
                    info = {"N": N, "K": K, "n_docs": int(c["doc_ptr"].size - 1),
                            "n_words": c["n_words"], "seconds": c["seconds"],
                            "true_ll_per_token": c["true_ll_per_token"]}
                    info_path.write_text(json.dumps(info))
                    del c
                    gc.collect()
                    print(f"corpus N={fmt_n(N)} K={K}: {info['n_docs']:,} documents, "
                          f"V = {info['n_words']:,}, drawn in {info['seconds']:.1f} s, true "
                          f"ll/token {info['true_ll_per_token']:.4f}", flush=True)
                corpora.append(info)
                files = {"words": f"{stem}_words.npy", "doc_ptr": f"{stem}_doc_ptr.npy",
                         "n_words": info["n_words"]}
                for name in chains:
                    s = predicted_sweep(name, N, K, info["n_words"], seen)
                    if MIN_SWEEPS * s > args.max_over * budgets[N] and name != REFERENCE:
                        why = (f"skipped (~{s:.0f} s per sweep predicted, {MIN_SWEEPS} sweeps "
                               f"> {args.max_over:g} x {budgets[N]:.0f} s)")
                        print(f"  {name} N={fmt_n(N)} K={K}: {why}", flush=True)
                        rows.append({"chain": name, "N": N, "K": K, "status": why})
                        continue
                    print(f"  {name} N={fmt_n(N)} K={K}: ~{s:.2f} s per sweep predicted",
                          flush=True)
                    row, trace = run_one(name, N, K, files, budgets[N], args.seed, data_dir)
                    rows.append(row)
                    traces += trace
                    if row["status"] == "ran":
                        seen[(name, K)] = (N, row["median_sweep_seconds"])
                        print(f"  {name} N={fmt_n(N)} K={K}: {row['sweeps']} sweeps, "
                              f"{row['median_sweep_seconds']:.3f} s/sweep, "
                              f"{row['tokens_per_second'] / 1e6:.2f} M tokens/s, "
                              f"{row['corpus_bytes_per_token']:.1f} + "
                              f"{row['model_bytes_per_token']:.1f} B/token, "
                              f"ll/token {row['final_ll_per_token']:.4f}", flush=True)
                    else:
                        print(f"  {name} N={fmt_n(N)} K={K}: {row['status']}", flush=True)
                    write_outputs(out, rows, traces, corpora, meta)
                if args.data_dir is None:
                    for f in data_dir.glob(f"{stem.name}*"):
                        f.unlink()
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    meta["total_minutes"] = round((time.perf_counter() - t_start) / 60, 1)
    write_outputs(out, rows, traces, corpora, meta)
    md = readme(out)
    print(md)
    print(f"wrote {out}/README.md, scaling.csv, curves.csv, corpora.csv, scaling.{{html,png}} "
          f"in {meta['total_minutes']} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
