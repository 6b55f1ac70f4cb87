"""The cost model behind ``sampler="auto"``: measure, fit, and write the table it reads.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_auto.py              # measure (about 10 min, both cores), fit, write
    python benchmarks/bench_auto.py --fit-only   # refit from the saved measurements

What ``sampler="auto"`` predicts for an unsupervised model is the time a chain needs to reach a
given log joint: sweeps needed x seconds per sweep. Both are fitted here.

* **Seconds per sweep** of each exact LDA sampler, measured on three corpora that differ in
  what a sweep's cost can grow with: 20 Newsgroups train (N = 1.36 M tokens, D = 11,291
  documents, V = 25,139 words), the same posts joined four at a time (the same N and V,
  a quarter of the documents, four times longer), its first half (about half of N and
  D, most of V) and four copies of every post (four times N and D, the same V); K in
  {20, 50, 100, 200, 500, 1000}; the median of 3 sweeps after a warm-up sweep, on 2 numba
  threads (the parallel sampler's threads setting 0: all of them). Per
  sampler a non-negative least-squares fit of

      seconds per sweep = c_N N + c_NK N K + c_NsqrtK N sqrt(K) + c_DK D K + c_VK V K

  (the terms its kernel has: O(1), O(K) or about O(sqrt K) per token, O(K) per document,
  O(VK) per sweep for the Phi draw and the word tables), weighted by 1/seconds (relative
  error), so the model extrapolates by structure, not by a curve through four points.
* **Sweeps to a level, relative to collapsed Gibbs**, from the log-joint traces of
  benchmarks/results/parallel/curves.csv (the 2-core race on 20 Newsgroups, K = 20 to 1000):
  for each chain, the sweeps it needs to reach the level collapsed Gibbs reaches at half its
  run, over Gibbs's own; the median over K. The exact collapsed samplers (``gibbs``,
  ``sparse_gibbs``) share one chain law, so 1; the light sampler's MH steps and the partially
  collapsed sampler's Phi draw cost sweeps. Chains that never reached the level are left out
  (said in the output).

* **The supervised presets' table**: per preset and K, the sampler with the best test accuracy
  at equal wall-clock time in benchmarks/bench_supervised_time.py's runs (one per seed), kept
  at the paper's sampler unless another beat it by more than a point. A run's rows are filed
  under the model class that declares their model name as its ``MEASURED_AS``
  (``topicsup.models.presets``): the presets as shipped; other configurations it ran
  (``dolda-c100``) are no preset's and are left out.

The fit is written to ``topicsup/samplers/_auto_costs.py`` (the package reads it; a test
checks that it is what this script fits from the committed measurements), each table with the
``Provenance`` of its measurements (read from the runs' meta files: commands, date, machine,
versions, result files), and the tables to benchmarks/results/auto/README.md with the choice it
implies on a grid of corpus shapes.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import ast  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.optimize import nnls  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from bench_lda import ALPHA, BETA, archive_or_skip, cpu_model, versions  # noqa: E402

# bench_lda sets 1 on import; set 2 again before topicsup (and so numba) is imported (from
# 2026-11-29 to 2026-11-30 the import below came first, and a run measured the 2-thread
# chains on one thread; the committed measurements of 2026-11-27 predate it)
os.environ["NUMBA_NUM_THREADS"] = "2"
from topicsup.samplers.measured import (Measured, MeasuredAs, Provenance,  # noqa: E402
                                        SweepsFactor)
os.environ.pop("OMP_NUM_THREADS", None)

OUT = ROOT / "benchmarks" / "results" / "auto"
MEASUREMENTS = OUT / "measurements.csv"
TABLE = ROOT / "topicsup" / "samplers" / "_auto_costs.py"
# the races' log-joint traces, newest first: a chain's sweeps factor comes from the first
# that ran it (this run's race has the exact and partitioned chains, the older one light and
# the dense partially collapsed kernel)
CURVES = (ROOT / "benchmarks" / "results" / "speed" / "race" / "curves.csv",
          ROOT / "benchmarks" / "results" / "parallel" / "curves.csv")
# the races ran on 20 Newsgroups train: its tokens, documents and words (N / VK of a race at K)
NEWS = (1_360_021, 11_291, 25_139)
# benchmarks/bench_mixing.py's sweeps to a late level on corpora drawn from LDA, up to
# N / VK = 100 (the partially collapsed chains' factor as the table fills)
MIXING = (ROOT / "benchmarks" / "results" / "mixing" / "factors.csv",)
# the partially collapsed chains: one chain law (each token's topic drawn exactly given Phi,
# by either kernel), so one sweeps factor, fitted on the points of both
PARTIALLY_COLLAPSED = ("pc-sparse-2", "pc-dense-2")
# corpora drawn from LDA as benchmarks/bench_scaling.py's (the same seeds, so the same
# corpora as its run), each measured at the K it was drawn with: the seconds per sweep at 10^7
# and 10^8 tokens, where memory, not arithmetic, sets some kernels' cost
SYNTHETIC = ((10**7, 100), (10**7, 1000), (10**8, 100))
KS = (20, 50, 100, 200, 500, 1000)
# the candidates: name -> (sampler, settings); the race's chain names where they ran there
CANDIDATES: dict[str, tuple[str, dict[str, object]]] = {
    "gibbs": ("gibbs", {}),
    "sparse_gibbs": ("sparse_gibbs", {}),
    "light": ("light", {"mh_steps": 2}),
    "pc-sparse-2": ("partially_collapsed", {"kernel": "sparse", "threads": 0}),
    "pc-dense-2": ("partially_collapsed", {"kernel": "dense", "threads": 0}),
}
# one bench_supervised_time.py run per seed (speed.py's supervised and supervised-seed1 parts)
SUPERVISED_CURVES = [ROOT / "benchmarks" / "results" / "speed" / d / "curves.csv"
                     for d in ("supervised", "supervised_seed1")]
# bench_supervised_time.py's sampler names -> (sampler, settings)
SUPERVISED_CHAINS: dict[str, tuple[str, dict[str, object]]] = {
    "gibbs": ("gibbs", {}), "light": ("light", {}),
    "pc-sparse-2": ("partially_collapsed", {"kernel": "sparse", "threads": 0}),
    "pc-dense-2": ("partially_collapsed", {"kernel": "dense", "threads": 0})}
MARGIN_POINTS = 1.0   # the paper's sampler is kept unless another beat it by more
FEATURES = ("N", "NK", "NsqrtK", "NKfill", "DK", "VK")
TERMS: dict[str, tuple[str, ...]] = {   # the terms each kernel's cost has
    "gibbs": ("N", "NK", "DK"),
    # NKfill: SparseLDA's word bucket visits the topics the word's tokens occupy, on average
    # K (1 - exp(-N / VK)) (tokens spread over the topics, as in the sweeps timed); without it
    # the fit put a 10^8-token sweep at 10.8 s where it took 18.7 s
    "sparse_gibbs": ("N", "NsqrtK", "NKfill", "DK"),
    "light": ("N", "NsqrtK", "DK", "VK"),
    "pc-sparse-2": ("N", "NsqrtK", "DK", "VK"),
    "pc-dense-2": ("N", "NK", "DK", "VK"),
}


def features(N: float, D: float, V: float, K: float) -> dict[str, float]:
    return {"N": N, "NK": N * K, "NsqrtK": N * np.sqrt(K),
            "NKfill": N * K * -np.expm1(-N / (V * K)), "DK": D * K, "VK": V * K}


def corpora(archive: Path):
    from topicsup import Corpus
    from topicsup.datasets import load_20newsgroups
    full = load_20newsgroups("train", path=archive)
    docs = [full.document(d) for d in range(full.n_docs)]
    joined = [sum(docs[i:i + 4], []) for i in range(0, len(docs), 4)]
    vocab = list(full.vocabulary)
    return {"20news": full,
            "20news-joined4": Corpus.from_tokens(joined, vocabulary=vocab),
            "20news-half": full.take(np.arange(full.n_docs // 2)),
            # four copies of every post: N and D four times, the same V (towards N >> V K)
            "20news-x4": Corpus.from_tokens(docs * 4, vocabulary=vocab)}


def measure(archive: Path, ks, sweeps: int) -> pd.DataFrame:
    rows = []
    for cname, corpus in corpora(archive).items():
        rows += _measure_corpus(cname, corpus, ks, sweeps)
    return pd.DataFrame(rows)


def _measure_corpus(cname: str, corpus, ks, sweeps: int) -> list[dict[str, Any]]:
    import numba

    from topicsup import LDA, Session
    if numba.config.NUMBA_NUM_THREADS != 2:
        raise SystemExit(f"numba runs {numba.config.NUMBA_NUM_THREADS} threads, not the 2 the "
                         f"parallel candidates are costed on")
    rows: list[dict[str, Any]] = []
    for K in ks:
        for name, (sampler, settings) in CANDIDATES.items():
            s = Session(LDA(K=K, alpha=ALPHA, beta=BETA, sampler=sampler, **settings),
                        corpus, seed=0, log_joint_every=0)
            s.sweep(1)     # compiles; the first sweep from a random start is not typical
            times = []
            for _ in range(sweeps):
                t0 = time.perf_counter()
                s.sweep(1)
                times.append(time.perf_counter() - t0)
            rows.append({"corpus": cname, "N": corpus.n_tokens, "D": corpus.n_docs,
                         "V": int(np.count_nonzero(np.bincount(corpus.words,
                                                               minlength=corpus.n_words))),
                         "K": K, "chain": name, "seconds": float(np.median(times))})
            print(f"{cname:15s} K={K:5d} {name:13s} {rows[-1]['seconds']:.4f} s/sweep",
                  flush=True)
            del s
            gc.collect()
    return rows


def synthetic_corpora(shapes):
    """The corpora of ``SYNTHETIC``: bench_scaling.py's draw (seed K, as its run's)."""
    from bench_scaling import draw_corpus

    from topicsup import Corpus
    for N, K in shapes:
        c = draw_corpus(N, K, seed=K)
        yield (f"lda-1e{len(str(N)) - 1}-K{K}", K,
               Corpus(words=c["words"], doc_ptr=c["doc_ptr"],
                      vocabulary=tuple(f"w{v}" for v in range(c["n_words"]))))


def measure_synthetic(shapes, sweeps: int) -> pd.DataFrame:
    rows = []
    for cname, K, corpus in synthetic_corpora(shapes):
        rows += _measure_corpus(cname, corpus, (K,), sweeps)
        del corpus
        gc.collect()
    return pd.DataFrame(rows)


def fit_costs(m: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per chain, the non-negative coefficients of its terms (seconds per unit)."""
    out = {}
    for name, g in m.groupby("chain"):
        terms = TERMS[name]
        X = np.array([[features(r.N, r.D, r.V, r.K)[t] for t in terms] for r in g.itertuples()])
        y = g["seconds"].to_numpy()
        w = 1.0 / y                       # relative error
        scale = X.max(axis=0)
        coef, _ = nnls(X / scale * w[:, None], y * w)
        out[str(name)] = {t: float(c / s) for t, c, s in zip(terms, coef, scale)}
    return out


def predict(costs: dict[str, float], N: float, D: float, V: float, K: float) -> float:
    f = features(N, D, V, K)
    return sum(c * f[t] for t, c in costs.items())


def read_curves(paths) -> pd.DataFrame:
    """The traces of several races, each chain from the first file that ran it (its gibbs
    chain, the reference, from the same file)."""
    out, seen = [], set()
    for path in paths:
        c = pd.read_csv(path)
        c["source"] = Path(path).resolve().relative_to(ROOT).as_posix()
        new = [n for n in c["sampler"].unique() if n not in seen]
        seen.update(new)
        out.append(c[c["sampler"].isin(new + ["gibbs"])])
    return pd.concat(out, ignore_index=True)


def sweep_points(curves: pd.DataFrame) -> pd.DataFrame:
    """Sweeps each chain needs to reach the level Gibbs reaches at half its run, over Gibbs's
    own, per K (Gibbs of the same race), with the race corpus's N / VK (20 Newsgroups train,
    ``NEWS``); nan where the chain never reached it."""
    if "source" not in curves:
        curves = curves.assign(source="")
    rows = []
    N, _, V = NEWS
    for (K, _), ck in curves.groupby(["K", "source"]):
        g = ck[ck["sampler"] == "gibbs"].dropna(subset=["ll_per_token"])
        half = g["sweep"].max() / 2
        level = float(np.interp(half, g["sweep"], g["ll_per_token"]))
        for name, tr in ck.groupby("sampler"):
            if name == "gibbs" and ck["source"].iloc[0] != curves["source"].iloc[0]:
                continue   # the reference of a later file: counted once, from the first
            tr = tr.dropna(subset=["ll_per_token"])
            hit = tr[tr["ll_per_token"] >= level]
            rows.append({"corpus": "20news", "K": int(K), "chain": str(name),
                         "tokens_per_entry": N / (V * K), "source": ck["source"].iloc[0],
                         "factor": float(hit["sweep"].min() / half) if len(hit) else np.nan})
    return pd.DataFrame(rows)


def mixing_points(paths) -> pd.DataFrame:
    """bench_mixing.py's factors (the partially collapsed chain to Gibbs's level at half its
    run, on corpora drawn from LDA), as ``sweep_points`` rows."""
    out = []
    for path in paths:
        f = pd.read_csv(path)
        out.append(pd.DataFrame({"corpus": f["corpus"], "K": f["K"], "chain": f["chain"],
                                 "tokens_per_entry": f["tokens_per_entry"],
                                 "source": _relative(path), "factor": f["factor"]}))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(
        columns=["corpus", "K", "chain", "tokens_per_entry", "source", "factor"])


def fit_curve(x: np.ndarray, f: np.ndarray) -> SweepsFactor:
    """The ``SweepsFactor`` nearest the points (x, f) in log f (least squares): its factor on
    thin tables, its limit as they fill and the N / VK half way; a constant (the points'
    geometric mean) when the curve explains less than half their squared log spread (R^2 <
    0.5: they do not fall with N / VK), or there are fewer than 4 points."""
    from scipy.optimize import least_squares
    x, f = np.asarray(x, float), np.asarray(f, float)
    const = float(np.exp(np.mean(np.log(f))))
    flat = float(np.sum((np.log(const) - np.log(f)) ** 2))

    def curve(p: np.ndarray) -> np.ndarray:
        small, large, log_h = p
        return large + (small - large) / (1.0 + x / np.exp(log_h))

    def resid(p: np.ndarray) -> np.ndarray:
        return np.log(curve(p)) - np.log(f)

    start = [float(f[np.argmin(x)]), float(f[np.argmax(x)]), float(np.log(np.median(x)))]
    best = least_squares(resid, start, bounds=([1.0, 1.0, np.log(1e-3)],
                                               [50.0, 50.0, np.log(1e6)]))
    if len(f) < 4 or np.sum(resid(best.x) ** 2) > 0.5 * flat:
        return SweepsFactor(round(const, 4), round(const, 4), float("inf"))
    small, large, log_h = best.x
    return SweepsFactor(round(float(small), 4), round(float(large), 4),
                        round(float(np.exp(log_h)), 4))


def sweep_factors(curves: pd.DataFrame, mixing: pd.DataFrame | None = None
                  ) -> tuple[dict[str, SweepsFactor], pd.DataFrame]:
    """Per candidate, its ``SweepsFactor``: 1 for the collapsed samplers (one chain law);
    light's median over the races' K (its dependence on N / VK not measured: a constant); the
    partially collapsed chains' curve (``fit_curve``), one for both kernels, on the races'
    points and bench_mixing.py's. Returns the factors and the points."""
    df = sweep_points(curves)
    if mixing is not None and len(mixing):
        df = pd.concat([df, mixing], ignore_index=True)
    exact = SweepsFactor(1.0, 1.0, float("inf"))
    factors = {"gibbs": exact, "sparse_gibbs": exact}   # the same chain law: the same sweeps
    light = df[df["chain"] == "light"]["factor"].dropna()
    m = round(float(np.median(light)), 4) if len(light) else float("nan")
    factors["light"] = SweepsFactor(m, m, float("inf"))
    pc = df[df["chain"].isin(PARTIALLY_COLLAPSED)].dropna(subset=["factor"])
    curve = fit_curve(pc["tokens_per_entry"].to_numpy(), pc["factor"].to_numpy()) \
        if len(pc) else SweepsFactor(float("nan"), float("nan"), float("inf"))
    for name in PARTIALLY_COLLAPSED:
        factors[name] = curve
    return factors, df


def owners() -> dict[MeasuredAs, type]:
    """The model classes of ``topicsup.models`` that own a key of the supervised table (declare
    ``MEASURED_AS`` in their own body; a subclass inherits its parent's key, owns none), by
    key. A key declared by two classes is refused: their measurements would be one table."""
    import topicsup.models as models
    out: dict[MeasuredAs, type] = {}
    for name in models.__all__:
        cls = getattr(models, name)
        key = vars(cls).get("MEASURED_AS") if isinstance(cls, type) else None
        if key is None:
            continue
        if key in out:
            raise SystemExit(f"{out[key].__name__} and {cls.__name__} both declare "
                             f"MEASURED_AS = {key!r}: one key per model class")
        out[key] = cls
    return out


def supervised_table(runs: list[pd.DataFrame]) -> dict[MeasuredAs, dict[int, Measured]]:
    """Per preset and K: the sampler with the best test accuracy at the full budget, the mean
    over the runs (one per seed) that measured it, unless the paper's sampler is within
    ``MARGIN_POINTS`` of it (then the paper's). A run's rows are the preset's whose
    ``MEASURED_AS`` is their model name (the preset as shipped, ``owners``); a configuration
    no preset ships (``dolda-c100``) is left out. A run may measure only some samplers: each
    mean is over the runs that have it."""
    own = owners()
    last = pd.concat([r.sort_values("seconds").groupby(["model", "K", "sampler"]).tail(1)
                      for r in runs])
    out: dict[MeasuredAs, dict[int, Measured]] = {}
    for (model, K), g in last.groupby(["model", "K"]):
        key = MeasuredAs(str(model))
        if key not in own:
            continue
        published = own[key].PUBLISHED_SAMPLER
        pub_chain = {"partially_collapsed": "pc-sparse-2"}.get(published, published)
        acc = g.groupby("sampler")["accuracy"].mean().to_dict()
        n = g.groupby("sampler")["accuracy"].size().to_dict()
        best = max(acc, key=acc.__getitem__)
        secs = float(g["seconds"].max())
        if pub_chain in acc and 100 * (acc[best] - acc[pub_chain]) <= MARGIN_POINTS:
            best = pub_chain

        def runs_of(c: str) -> str:
            return f" (mean of {n[c]} seeds)" if n[c] > 1 else ""

        why = (f"{best} {acc[best]:.3f} test accuracy after {secs:.0f} s{runs_of(best)}"
               + (f", the paper's {pub_chain} {acc[pub_chain]:.3f}{runs_of(pub_chain)}"
                  if best != pub_chain and pub_chain in acc else ""))
        sampler, settings = SUPERVISED_CHAINS[best]
        out.setdefault(key, {})[int(K)] = Measured(sampler, dict(settings), why)
    return out


# ------------------------------------------------------------------------------ provenance
def _relative(path: Path) -> str:
    return Path(path).resolve().relative_to(ROOT).as_posix()


def _meta(path: Path, what: str) -> dict[str, Any]:
    if not path.exists():
        raise SystemExit(f"{_relative(path)} is missing: the provenance of {what}")
    meta: dict[str, Any] = json.loads(path.read_text())
    return meta


# measurements.meta, one line as the measuring run writes it (``measurements_meta``)
META_LINE = re.compile(r"(?P<commands>`[^`]+`(?:, then `[^`]+`)*), (?P<when>[^,]+), "
                       r"(?P<machine>.+), "
                       r"(?P<versions>\{.*\})")


def measurements_meta(run: Provenance) -> str:
    """The line measurements.meta holds for the measuring ``run``: `command`, date, machine,
    versions."""
    commands = ", then ".join(f"`{c}`" for c in run.commands)
    return f"{commands}, {run.when}, {run.machine}, {run.versions}"


def costs_provenance(meas: Path = MEASUREMENTS) -> Provenance:
    """Where the seconds per sweep of ``meas`` came from (the .meta file beside it)."""
    meta = meas.with_suffix(".meta")
    if not meta.exists():
        raise SystemExit(f"{_relative(meta)} is missing: the provenance of {_relative(meas)}")
    m = META_LINE.fullmatch(meta.read_text().strip())
    if m is None:
        raise SystemExit(f"{_relative(meta)}: expected `command`, date, machine, {{versions}} "
                         f"as the measuring run writes it")
    return Provenance(tuple(re.findall(r"`([^`]+)`", m["commands"])), m["when"], m["machine"],
                      dict(ast.literal_eval(m["versions"])), (_relative(meas),))


def race_provenance(curves: Path) -> Provenance:
    """Where a race's log-joint traces came from: bench_parallel.py's lda.meta.json beside
    them (its lda part writes the traces)."""
    meta = _meta(Path(curves).parent / "lda.meta.json", _relative(curves))
    return Provenance((meta["command"],), meta["date"], meta["machine"],
                      dict(meta["versions"]), (_relative(curves),))


def mixing_provenance(factors: Path) -> Provenance:
    """Where bench_mixing.py's factors came from: the meta.json beside them."""
    meta = _meta(Path(factors).parent / "meta.json", _relative(factors))
    return Provenance(tuple(meta["commands"]), meta["date"], meta["machine"],
                      dict(meta["versions"]), (_relative(factors),))


def supervised_provenance(curves: Path) -> Provenance:
    """Where a run of bench_supervised_time.py came from: the meta.json beside its curves
    (its commands, the last one's date, CPU and cores, versions as "name version, ...")."""
    meta = _meta(Path(curves).parent / "meta.json", _relative(curves))
    versions = dict(v.split(" ", 1) for v in meta["versions"].split(", "))
    return Provenance(tuple(meta["commands"]), meta["date"],
                      f"{meta['cpu']}, {meta['cores']} cores", versions, (_relative(curves),))


def _record(run: Provenance, indent: str) -> str:
    fields = "".join(f"{indent}    {k}={v!r},\n" for k, v in run._asdict().items())
    return f"Provenance(\n{fields}{indent})"


def smallest_corpus(m: pd.DataFrame) -> tuple[int, int, int]:
    """N, D, V of the corpus with the fewest tokens measured."""
    r = m.loc[m["N"].idxmin()]
    return int(r["N"]), int(r["D"]), int(r["V"])


def ks_range(m: pd.DataFrame) -> tuple[int, int]:
    """The fewest and the most topics the seconds per sweep were measured at."""
    return int(m["K"].min()), int(m["K"].max())


def tokens_range(m: pd.DataFrame) -> tuple[int, int]:
    """The fewest and the most tokens of the corpora the seconds per sweep were measured on."""
    return int(m["N"].min()), int(m["N"].max())


def write_table(costs, factors, costs_from: Provenance, sweeps_from: list[Provenance],
                supervised: dict[MeasuredAs, dict[int, Measured]] | None = None,
                supervised_from: list[Provenance] | None = None,
                tokens: tuple[int, int] | None = None,
                mixing_from: list[Provenance] | None = None,
                ks: tuple[int, int] | None = None,
                smallest: tuple[int, int, int] | None = None) -> None:
    missing = sorted(c for c, f in factors.items() if not np.isfinite(f.small))
    if missing:   # a nan in the package's table would not even import
        raise SystemExit(f"no sweeps factor for {missing}: give --curves a race that ran them")
    lines = ['"""The measured tables of ``sampler="auto"`` (``samplers.auto``): the fitted cost',
             "model of the unsupervised candidates and the measured best sampler of the",
             "supervised presets, each with the ``Provenance`` of its measurements",
             "(``samplers.measured``: commands, date, machine, versions, result files).",
             "",
             "Written by benchmarks/bench_auto.py (``--fit-only`` refits from the committed",
             "result files the records name, ``--check`` says whether this is their fit): do",
             'not edit by hand, rerun the script.', '"""', "",
             "from typing import Any", "",
             "from .measured import Measured, MeasuredAs, Provenance, SweepsFactor", "",
             "# chain -> (sampler, settings)",
             f"CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {CANDIDATES!r}",
             "# the seconds per sweep COSTS is fitted to",
             f"COSTS_MEASURED = {_record(costs_from, '')}",
             "# the fewest and the most tokens of the corpora measured (beyond them the cost",
             "# model extrapolates, and the reason says so)",
             f"COSTS_TOKENS: tuple[int, int] = {tokens!r}",
             "# the fewest and the most topics measured (below half the fewest, as below half",
             "# the fewest tokens, auto picks among the collapsed samplers)",
             f"COSTS_KS: tuple[int, int] = {ks!r}",
             "# N, D, V of the smallest corpus measured: a corpus below the sizes measured is",
             "# costed as this one (at K raised to the fewest measured)",
             f"COSTS_SMALLEST: tuple[int, int, int] = {smallest!r}",
             "# chain -> term -> seconds per unit of the term (N, NK = N K, NsqrtK = N sqrt(K),",
             "# NKfill = N K (1 - exp(-N / VK)), DK = D K, VK = V K) per sweep",
             "COSTS: dict[str, dict[str, float]] = {"]
    for name, c in costs.items():
        lines.append(f"    {name!r}: {{" + ", ".join(f"{t!r}: {v:.6g}" for t, v in c.items())
                     + "},")
    lines += ["}",
              "# the races' log-joint traces SWEEPS is fitted on, each chain from the first that",
              "# ran it (--check refits from them)",
              "SWEEPS_MEASURED: tuple[Provenance, ...] = ("]
    lines += [f"    {_record(r, '    ')}," for r in sweeps_from]
    lines += [")",
              "# bench_mixing.py's sweeps to a late level on corpora drawn from LDA, N / VK up",
              "# to 100: the partially collapsed chains' factor as the table fills",
              "MIXING_MEASURED: tuple[Provenance, ...] = ("]
    lines += [f"    {_record(r, '    ')}," for r in mixing_from or []]
    lines += [")",
              "# chain -> sweeps to a level relative to collapsed Gibbs, by N / VK (inf: constant)",
              "SWEEPS: dict[str, SweepsFactor] = {"]
    for name, f in factors.items():
        lines.append(f"    {name!r}: SweepsFactor({f.small!r}, {f.large!r}, float('inf')),"
                     if not np.isfinite(f.halves_at) else f"    {name!r}: {f!r},")
    lines += ["}",
              "# the runs of benchmarks/bench_supervised_time.py (one per seed) SUPERVISED is",
              "# chosen from",
              "SUPERVISED_MEASURED: tuple[Provenance, ...] = ("]
    lines += [f"    {_record(r, '    ')}," for r in supervised_from or []]
    lines += [")",
              "# model key (the MEASURED_AS of the model class that owns it, models.presets) ->",
              "# K measured -> the sampler with the best test accuracy at equal wall-clock time",
              "SUPERVISED: dict[MeasuredAs, dict[int, Measured]] = {"]
    for key, rows in (supervised or {}).items():
        lines.append(f"    MeasuredAs({key!r}): {{")
        for K, row in sorted(rows.items()):
            lines.append(f"        {K}: {row!r},")
        lines.append("    },")
    lines += ["}", ""]
    TABLE.write_text("\n".join(lines))


def readme(m, costs, factors, fdf, meta, fdf_sources=()) -> str:
    out = ["# The cost model of `sampler=\"auto\"`", "",
           "Seconds per sweep, measured (median of 3 after a warm-up sweep) and fitted "
           "(`benchmarks/bench_auto.py`; `lda-*`: corpora drawn from LDA as "
           "bench_scaling.py's, measured with `--synthetic`):", "",
           "| corpus | N | D | K | chain | measured s | fitted s |",
           "|---|---:|---:|---:|---|---:|---:|"]
    for r in m.itertuples():
        fit = predict(costs[r.chain], r.N, r.D, r.V, r.K)
        out.append(f"| {r.corpus} | {r.N} | {r.D} | {r.K} | {r.chain} | {r.seconds:.4f} | "
                   f"{fit:.4f} |")
    rel = [abs(predict(costs[r.chain], r.N, r.D, r.V, r.K) / r.seconds - 1)
           for r in m.itertuples()]
    out += ["", f"Fit: median relative error {np.median(rel):.1%}, largest {max(rel):.1%}.", "",
            "Sweeps to the level collapsed Gibbs reaches at half its run, over Gibbs's "
            "(" + ", ".join(sorted(fdf_sources)) + "; '-': not reached within the run), by "
            "the corpus's tokens per entry of the topic-word table N / VK, and the factor "
            "the cost model uses there:", "",
            "| corpus | K | N / VK | chain | measured | used |",
            "|---|---:|---:|---|---:|---:|"]
    for r in fdf.sort_values(["chain", "tokens_per_entry"]).itertuples():
        if r.chain not in factors or r.chain in ("gibbs", "sparse_gibbs"):
            continue
        meas = "-" if not np.isfinite(r.factor) else f"{r.factor:.2f}"
        out.append(f"| {r.corpus} | {r.K} | {r.tokens_per_entry:.3g} | {r.chain} | {meas} | "
                   f"{factors[r.chain].at(r.tokens_per_entry):.2f} |")
    out += ["", "Factors used (large + (small - large) / (1 + (N / VK) / halves_at); "
                "halves_at inf: a constant): "
            + ", ".join(f"{k} {v.small:.2f}" + (f" falling to {v.large:.2f}, half way at "
                                                 f"N / VK = {v.halves_at:.3g}"
                                                 if np.isfinite(v.halves_at) else "")
                        for k, v in factors.items()), "",
            "The choice this implies (expected time to a level relative to the best; the "
            "`auto` column is what `sampler=\"auto\"` picks):", "",
            "| N | D | V | K | " + " | ".join(CANDIDATES) + " | auto |",
            "|---:|---:|---:|---:|" + "---:|" * len(CANDIDATES) + "---|"]
    for N, D, V in ((1_360_021, 11_291, 25_139), (1e5, 1e3, 1e4), (1e7, 5e4, 5e4),
                    (1e8, 5e5, 5e4), (1e9, 5e6, 5e4)):
        for K in (20, 50, 100, 500, 1000):
            t = {c: predict(costs[c], N, D, V, K) * factors[c].at(N / (V * K))
                 for c in CANDIDATES}
            # below the sizes or K measured (by more than 2x) auto picks among the collapsed
            # samplers (samplers.auto.below_measured)
            small = 2 * N < m["N"].min() or 2 * K < m["K"].min()
            if small:   # costed as the smallest corpus measured, K at least the fewest
                n0, d0, v0 = smallest_corpus(m)
                n0, d0, v0 = (n0, d0, v0) if 2 * N < m["N"].min() else (N, D, V)
                k0 = max(K, int(m["K"].min()))
                t0 = {c: predict(costs[c], n0, d0, v0, k0) for c in ("gibbs", "sparse_gibbs")}
                best = min(t0, key=t0.__getitem__)
            else:
                best = min(t, key=t.__getitem__)
            out.append(f"| {N:.3g} | {D:.3g} | {V:.3g} | {K} | "
                       + " | ".join(f"{t[c] / t[best]:.2f}" for c in CANDIDATES)
                       + f" | {best} |")
    out += ["", meta, ""]
    return "\n".join(out)


def check_table() -> int:
    """0 if ``topicsup/samplers/_auto_costs.py`` holds the fit of the measurements its records
    name (refitted from those files) and the provenance their meta files give."""
    from topicsup.samplers import _auto_costs as table
    sweeps_files = [ROOT / s for r in table.SWEEPS_MEASURED for s in r.sources]
    mixing_files = [ROOT / s for r in table.MIXING_MEASURED for s in r.sources]
    supervised_files = [ROOT / s for r in table.SUPERVISED_MEASURED for s in r.sources]
    measured = pd.read_csv(ROOT / table.COSTS_MEASURED.sources[0])
    costs = fit_costs(measured)
    if (tokens_range(measured), ks_range(measured), smallest_corpus(measured)) != (
            table.COSTS_TOKENS, table.COSTS_KS, table.COSTS_SMALLEST):
        print("the table's COSTS_TOKENS, COSTS_KS or COSTS_SMALLEST differ from the "
              "measurements'")
        return 1
    factors, _ = sweep_factors(read_curves(sweeps_files), mixing_points(mixing_files))
    supervised = [pd.read_csv(c) for c in supervised_files]
    expect = supervised_table(supervised) if supervised else {}
    if expect != table.SUPERVISED:
        print("the supervised table differs from the measurements' choice")
        return 1
    provenance = {"COSTS_MEASURED": (costs_provenance(ROOT / table.COSTS_MEASURED.sources[0]),
                                     table.COSTS_MEASURED),
                  "SWEEPS_MEASURED": (tuple(race_provenance(c) for c in sweeps_files),
                                      table.SWEEPS_MEASURED),
                  "MIXING_MEASURED": (tuple(mixing_provenance(c) for c in mixing_files),
                                      table.MIXING_MEASURED),
                  "SUPERVISED_MEASURED": (tuple(supervised_provenance(c)
                                                for c in supervised_files),
                                          table.SUPERVISED_MEASURED)}
    stale = [name for name, (meta, kept) in provenance.items() if meta != kept]
    if stale:
        print(f"the table's {', '.join(stale)} differ from the runs' meta files")
        return 1
    bad = [f"{c}.{t}" for c in costs for t in costs[c]
           if not np.isclose(costs[c][t], table.COSTS[c][t], rtol=1e-4, atol=1e-18)]
    bad += [f"sweeps {c}" for c in factors
            if not np.allclose(factors[c], table.SWEEPS[c], rtol=2e-3)]
    if set(costs) != set(table.COSTS) or bad:
        print(f"the table differs from the fit: {bad or sorted(set(costs) ^ set(table.COSTS))}")
        return 1
    print("the table is the fit of the measurements")
    return 0


def _run_record(argv) -> Provenance:
    command = f"python {shlex.join(['benchmarks/bench_auto.py', *(argv or sys.argv[1:])])}"
    return Provenance((command.replace(str(ROOT) + "/", ""),),
                      _dt.datetime.now().isoformat(timespec="seconds"),
                      f"{cpu_model()}, {os.cpu_count()} cores, NUMBA_NUM_THREADS=2",
                      versions(), (_relative(MEASUREMENTS),))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--fit-only", action="store_true",
                    help="measure nothing: refit from benchmarks/results/auto/measurements.csv "
                         "and the --curves, --mixing and --supervised files, and write the "
                         "table")
    ap.add_argument("--synthetic", action="store_true",
                    help="measure only the corpora drawn from LDA (SYNTHETIC: 10^7 and 10^8 "
                         "tokens), replacing their rows in measurements.csv, then fit")
    ap.add_argument("--check", action="store_true",
                    help="refit from the result files the package's table names and exit 1 "
                         "if the table or its provenance differs (tests/test_auto.py)")
    ap.add_argument("--sweeps", type=int, default=3)
    ap.add_argument("--ks", type=lambda s: tuple(int(x) for x in s.split(",")), default=KS)
    ap.add_argument("--supervised", type=Path, nargs="+", default=SUPERVISED_CURVES,
                    help="bench_supervised_time.py's curves.csv, one per seed (those missing "
                         "are skipped)")
    ap.add_argument("--curves", type=Path, nargs="+", default=CURVES,
                    help="the race's log-joint traces (bench_parallel.py's curves.csv); "
                         "--check uses the ones the table names")
    ap.add_argument("--mixing", type=Path, nargs="*", default=MIXING,
                    help="bench_mixing.py's factors.csv (the partially collapsed chains' "
                         "sweeps to a late level by N / VK)")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.check:
        return check_table()
    if args.synthetic:
        new = measure_synthetic(SYNTHETIC, args.sweeps)
        old = pd.read_csv(MEASUREMENTS)
        m = pd.concat([old[~old["corpus"].isin(new["corpus"])], new], ignore_index=True)
        m.to_csv(MEASUREMENTS, index=False)
        before = costs_provenance()
        run = _run_record(argv)
        MEASUREMENTS.with_suffix(".meta").write_text(measurements_meta(
            run._replace(commands=tuple(c for c in before.commands if c != run.commands[0])
                         + run.commands)))
    elif not args.fit_only:
        archive = archive_or_skip(args.data)
        if archive is None:
            return 0
        m = measure(archive, args.ks, args.sweeps)
        old = pd.read_csv(MEASUREMENTS) if MEASUREMENTS.exists() else m.iloc[:0]
        # the corpora drawn from LDA are measured by --synthetic: kept
        synthetic = old[old["corpus"].str.startswith("lda-")]
        pd.concat([m, synthetic], ignore_index=True).to_csv(MEASUREMENTS, index=False)
        run = _run_record(argv)
        if len(synthetic):
            run = run._replace(commands=run.commands + tuple(
                c for c in costs_provenance().commands if "--synthetic" in c))
        MEASUREMENTS.with_suffix(".meta").write_text(measurements_meta(run))
    m = pd.read_csv(MEASUREMENTS)
    costs = fit_costs(m)
    curves = read_curves(args.curves)
    mixing = [c.resolve() for c in args.mixing if c.exists()]
    factors, fdf = sweep_factors(curves, mixing_points(mixing))
    costs_from = costs_provenance()
    sup = [c.resolve() for c in args.supervised if c.exists()]
    write_table(costs, factors, costs_from, [race_provenance(c) for c in args.curves],
                supervised_table([pd.read_csv(c) for c in sup]) if sup else None,
                [supervised_provenance(c) for c in sup], tokens_range(m),
                [mixing_provenance(c) for c in mixing], ks_range(m), smallest_corpus(m))
    (OUT / "README.md").write_text(readme(m, costs, factors, fdf,
                                          "Measured: " + measurements_meta(costs_from),
                                          set(fdf["source"])))
    print((OUT / "README.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
