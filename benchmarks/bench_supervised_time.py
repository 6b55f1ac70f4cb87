"""Supervised topic models' 20-class accuracy against wall-clock time on 2 cores, for each
topic sampler: which sampler each supervised model should use by default, by measurement.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_supervised_time.py             # the full grid (prints its estimate)
    python benchmarks/bench_supervised_time.py --quick     # smoke test: K = 20, 2 models, 4 s
    python benchmarks/bench_supervised_time.py --models dolda-c100 --ks 20 \\
        --samplers pc-sparse-2,pc-sparse-2-mh8,pc-dense-2 --budget 20 --train-docs 3000
    python benchmarks/bench_supervised_time.py --readme-only   # tables again from the CSVs

Models (``MODELS``; each the preset as shipped, so its own alpha, beta, loss, prior and weight
step, unless said):

* ``dolda``: the ``DOLDA`` preset (c = 1, alpha = beta = 0.01, horseshoe, intercept);
* ``dolda-c100``: ``DOLDA(c=100, alpha=0.5)``, the labels weighed up, the setting of the
  earlier measurement and of bench_dolda.py's ``dolda-c100`` (beta 0.01 as the preset);
* ``medlda``: the ``MedLDA`` preset (Gibbs MedLDA: hinge, lam = 102.4, nu = 1, alpha = 6.4 / K,
  beta = 0.01, Cholesky weights);
* ``lightmedlda``: the ``LightMedLDA`` preset (marginal hinge factor, light sampler with
  mh_steps = 6 in a doc/word cycle, coordinate weights);
* ``gslda``: the ``GSLDA`` preset (logistic loss, c = 1, nu = 1, Cholesky weights).

Topic samplers (``--samplers``; each model's preset with ``sampler=`` switched, as a user
passing it gets: settings the new sampler shares with the preset, such as ``mh_steps``, are
the preset's): ``gibbs`` (collapsed, one thread for the topics), ``light`` (the light sampler;
``light-mh<n>``: n MH steps), ``pc-<kernel>-<threads>`` (partially collapsed, kernel sparse or
dense, e.g. ``pc-sparse-2``, ``pc-dense-2``; ``pc-sparse-<t>-mh<n>``: n label MH steps). A
sampler a model cannot take (``TopicSampler.supports_supervision``) is skipped with the reason
printed. NUMBA_NUM_THREADS=2 for every run: the weight and augmentation steps may use both
cores whatever the topic sampler.

Each run: 20 Newsgroups (topicsup's default preprocessing; the 11,291 training posts, or
``--train-docs`` of them drawn with ``--seed``; the 7,532 test posts) and a Session sampled
for ``--budget`` seconds of wall-clock sampling time (``Session.run(1)`` timed with
``perf_counter``; the kernels compiled beforehand on a tiny corpus). At 1/4, 1/2 and 1 of the
budget (the sweep boundary nearest to it, predicted from the last sweep's time; the actual
seconds are recorded) the clock is paused and the run evaluated:

* test accuracy by the model's usual prediction, fold-in with the topics fixed then the
  linear scores with the averaged weights, where the weights are averaged over the second half
  of the sweeps done so far (read from the session's eta trace: the burn_in = sweeps // 2 of
  bench_dolda.py and bench_supervised.py, which a time budget cannot fix in advance), and a
  cheaper fold-in than the default 50 + 50 sweeps: ``--fold-in`` 10 + 10 (bench_supervised.py's),
  the same for every sampler (the default would take about a third of each run's time);
* the log joint per token (``model.log_joint``: the collapsed LDA part, the loss's
  pseudo-likelihood and the prior: the same function of the state for every sampler).

From the history: sweeps done, seconds per sweep and the share of the topic step, the share
of tokens changing topic, and for the samplers that propose (light: doc, word, exp; the sparse
partially collapsed kernel: ``label``, its MH correction of the sparse draw by the label
factor) the acceptance rate per proposal kind, per sweep (acceptance.csv) and its mean over
the last quarter of the sweeps (runs.csv).

Outputs in benchmarks/results/supervised_time/ (``quick/supervised_time`` for --quick):
curves.csv (one row per evaluation), runs.csv (one per run), acceptance.csv (per sweep and
proposal kind), choice.csv (per model and K: the best sampler at the full budget, the
default's, the gap), README.md (tables, the command, the machine, and what slows the partially
collapsed chain), curves.{html,png}.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; numba is not loaded yet
os.environ.pop("OMP_NUM_THREADS", None)

from topicsup import DOLDA, GSLDA, LightMedLDA, MedLDA, Session  # noqa: E402
from topicsup.synthetic import make_synthetic  # noqa: E402

THREADS = 2
MODELS: dict[str, Callable[..., Any]] = {
    "dolda": lambda K, **kw: DOLDA(K=K, **kw),
    "dolda-c100": lambda K, **kw: DOLDA(K=K, c=100, alpha=0.5, **kw),
    "medlda": lambda K, **kw: MedLDA(K=K, **kw),
    "lightmedlda": lambda K, **kw: LightMedLDA(K=K, **kw),
    "gslda": lambda K, **kw: GSLDA(K=K, **kw),
}
MODEL_NOTES = {
    "dolda": "DOLDA preset: c = 1, alpha = beta = 0.01",
    "dolda-c100": "DOLDA(c=100, alpha=0.5), beta = 0.01 (the earlier measurement's)",
    "medlda": "MedLDA preset: hinge lam = 102.4, nu = 1, alpha = 6.4/K, beta = 0.01",
    "lightmedlda": "LightMedLDA preset: marginal hinge, lam = 102.4, alpha = 6.4/K, "
                   "beta = 0.01",
    "gslda": "GSLDA preset: logistic c = 1, nu = 1, alpha = 6.4/K, beta = 0.01",
}
# the model class and the parameters given on top of its preset ("": the preset as shipped,
# whose class declares this name as its MEASURED_AS: bench_auto.py files the runs of a preset
# as shipped under it in samplers.auto's SUPERVISED table)
MODEL_CLASS = {"dolda": "DOLDA", "dolda-c100": "DOLDA", "medlda": "MedLDA",
               "lightmedlda": "LightMedLDA", "gslda": "GSLDA"}
MODEL_PARAMS = {"dolda": "", "dolda-c100": "c=100, alpha=0.5", "medlda": "",
                "lightmedlda": "", "gslda": ""}
SAMPLERS = ("gibbs", "light", "pc-sparse-2", "pc-dense-2")
SAMPLER_NAME = re.compile(r"gibbs|light(-mh(?P<lmh>\d+))?"
                          r"|pc-(?P<kernel>sparse|dense)-(?P<threads>\d+)(-mh(?P<pmh>\d+))?")
KS = (20, 50, 100)
EVAL_FRACTIONS = (0.25, 0.5, 1.0)
BUDGET = 20.0           # seconds of sampling per run: the default grid in about 25 min
QUICK_BUDGET = 4.0
QUICK_MODELS = ("dolda-c100", "medlda")
FOLD_IN = (10, 10)
# off-the-clock seconds per run, measured on the quick run (AMD EPYC, 2 cores): the session's
# start and the kernels' warm-up, and one evaluation (fold-in of the 7,532 test posts + log joint)
SETUP_SECONDS = 2.0
EVAL_SECONDS = {20: 0.5, 50: 0.8, 100: 1.2}
LOAD_SECONDS = 20.0


# ------------------------------------------------------------------------------ settings
def sampler_kwargs(name: str) -> dict[str, Any]:
    """The model keywords a sampler name stands for; a ``ValueError`` for an unknown name."""
    m = SAMPLER_NAME.fullmatch(name)
    if m is None:
        raise ValueError(f"unknown sampler {name!r}: expected gibbs, light, light-mh<n>, "
                         f"pc-<sparse|dense>-<threads> or pc-sparse-<threads>-mh<n> "
                         f"(default {','.join(SAMPLERS)})")
    if name == "gibbs":
        return {"sampler": "gibbs"}
    if name.startswith("light"):
        return {"sampler": "light", **({"mh_steps": int(m["lmh"])} if m["lmh"] else {})}
    if m["kernel"] == "dense" and m["pmh"]:
        raise ValueError(f"sampler {name!r}: the dense kernel draws exactly, it has no MH steps")
    threads = int(m["threads"])
    if not 1 <= threads <= THREADS:
        raise ValueError(f"sampler {name!r}: threads must be 1..{THREADS} (NUMBA_NUM_THREADS)")
    return {"sampler": "partially_collapsed", "kernel": m["kernel"], "threads": threads,
            **({"mh_steps": int(m["pmh"])} if m["pmh"] else {})}


def settings_of(model: Any) -> str:
    """The topic sampler's name and settings as the model holds them."""
    ts = model.topic_sampler
    params = ", ".join(f"{k}={v}" for k, v in ts.params().items()
                       if k not in ts.ignored(model))
    return f"{ts.name}({params})"


def _normal(model: Any) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """A model's topic sampler and settings, threads = 0 (all numba threads) read as 2."""
    ts = model.topic_sampler
    p = {k: v for k, v in ts.params().items() if k not in ts.ignored(model)}
    if p.get("threads") == 0:
        p["threads"] = THREADS
    return ts.name, tuple(sorted(p.items()))


def default_config(model_name: str, K: int, train: Any, measured: tuple[str, ...]
                   ) -> dict[str, str]:
    """The model's default configuration on ``train``: its sampler as ``--samplers`` spells
    it (one of ``measured`` with the same settings if there is one), its settings and, for
    ``sampler="auto"``, the reason of the choice (resolved as a Session resolves it)."""
    model, reason = MODELS[model_name](K), ""
    if getattr(model.topic_sampler, "chooses", False):
        model, choice = model.resolve(model.bind(train))
        reason = "" if choice is None else f"auto: {choice.reason}"
    want = _normal(model)
    for name in measured:
        try:
            if _normal(MODELS[model_name](K, **sampler_kwargs(name))) == want:
                return {"default_sampler": name, "default_settings": settings_of(model),
                        "default_reason": reason}
        except ValueError:
            continue
    p = dict(want[1])
    label = {"gibbs": "gibbs", "light": f"light-mh{p.get('mh_steps')}",
             "partially_collapsed": f"pc-{p.get('kernel')}-{p.get('threads')}"
                                    f"-mh{p.get('mh_steps')}"}.get(want[0], want[0])
    return {"default_sampler": label, "default_settings": settings_of(model),
            "default_reason": reason}


def parse_list(text: str, known: tuple[str, ...] | None, what: str) -> tuple[str, ...]:
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    if not names:
        raise ValueError(f"--{what}: no names given")
    if known is not None:
        bad = [n for n in names if n not in known]
        if bad:
            raise ValueError(f"--{what}: unknown {bad}; choose from {list(known)}")
    return names


# ------------------------------------------------------------------------------ one run
def warm_up(model_name: str, K: int, kw: dict[str, Any]) -> None:
    """Compile (or load from numba's cache) the run's kernels off the clock, on a tiny corpus
    of the same types."""
    tiny = make_synthetic(n_docs=40, n_topics=3, doc_length=12, task="multiclass",
                          seed=0).corpus
    Session(MODELS[model_name](K, **kw), tiny, seed=0, log_joint_every=0).run(2)


def evaluate(s: Session, test: Any, classes: np.ndarray, truth: np.ndarray, seed: int,
             fold_in: tuple[int, int]) -> tuple[float, float]:
    """Test accuracy (fold-in, the weights averaged over the second half of the sweeps so
    far) and the log joint per token."""
    eta = s.trace("eta").astype(np.float64)
    eta_bar = eta[eta.shape[0] // 2:].mean(axis=0)          # (T, M)
    X, _ = s.fold_in(test, n_burn=fold_in[0], n_keep=fold_in[1], seed=seed)
    scores = X @ eta_bar.T
    acc = float(np.mean(classes[scores.argmax(axis=1)] == truth))
    lj = s.model.log_joint(s.state, s.problem) / s.corpus.n_tokens
    return acc, float(lj)


def history_rows(s: Session, key: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, float]]:
    """Per-sweep acceptance (and doc-part share, topic change rate) rows; the run's summary:
    seconds per sweep, topic step share, and the means over the last quarter of the sweeps."""
    h = s.history
    n = s.n_sweeps
    last = max(1, math.ceil(n / 4))
    tail = h[h["sweep"] > n - last]
    secs = h[h["metric"] == "seconds"].set_index("sweep")["value"]
    summary: dict[str, float] = {
        "seconds_per_sweep": float(secs.median()),
        "topic_share": float(h[h["metric"] == "seconds_topics"]["value"].sum() / secs.sum()),
        "topic_change_rate": float(tail[tail["metric"] == "topic_change_rate"]["value"]
                                   .mean()),
    }
    # the time split of a sweep (seconds_topics, seconds_weights, seconds_augmentation, ...):
    # mean seconds per sweep of each step
    for step, g in h[h["metric"].str.startswith("seconds_")].groupby("metric"):
        summary[step] = float(g["value"].sum() / n)
    acc = h[h["metric"] == "acceptance_rate"]
    for kind, g in tail[tail["metric"] == "acceptance_rate"].groupby("proposal"):
        summary[f"acceptance_{kind}"] = float(g["value"].mean())
    dp = tail[tail["metric"] == "doc_part_share"]["value"]
    if len(dp):
        summary["doc_part_share"] = float(dp.mean())
    cum = secs.cumsum()
    rows = [{**key, "sweep": int(r.sweep), "seconds": float(cum.loc[r.sweep]),
             "metric": "acceptance_rate", "proposal": r.proposal, "value": float(r.value)}
            for r in acc.itertuples()]
    for metric in ("topic_change_rate", "doc_part_share"):
        rows += [{**key, "sweep": int(r.sweep), "seconds": float(cum.loc[r.sweep]),
                  "metric": metric, "proposal": "", "value": float(r.value)}
                 for r in h[h["metric"] == metric].itertuples()]
    return pd.DataFrame(rows), summary


def run_one(model_name: str, K: int, sampler: str, train: Any, test: Any, budget: float,
            seed: int, fold_in: tuple[int, int], default: dict[str, str]
            ) -> tuple[list[dict[str, Any]], dict[str, Any], pd.DataFrame]:
    kw = sampler_kwargs(sampler)
    model = MODELS[model_name](K, **kw)
    warm_up(model_name, K, kw)
    s = Session(model, train, seed=seed, log_joint_every=0)
    classes = np.asarray(s.model.task_names(s.corpus), dtype=object)
    truth = np.asarray(test.labels.names(), dtype=object)
    key = {"model": model_name, "K": K, "sampler": sampler}
    curve: list[dict[str, Any]] = []
    elapsed, last_dt, eval_total, n_evals = 0.0, 0.0, 0.0, 0
    for frac in EVAL_FRACTIONS:
        target = frac * budget
        # the sweep boundary nearest to the target: one more sweep if it ends closer to it
        while s.n_sweeps == 0 or elapsed + 0.5 * last_dt < target:
            t0 = time.perf_counter()
            s.run(1)
            last_dt = time.perf_counter() - t0
            elapsed += last_dt
        if not curve or curve[-1]["sweeps"] != s.n_sweeps:   # else: the same state again
            t0 = time.perf_counter()
            acc, lj = evaluate(s, test, classes, truth, seed, fold_in)
            eval_total += time.perf_counter() - t0
            n_evals += 1
        curve.append({**key, "settings": settings_of(s.model), "at": frac,
                      "target_seconds": target, "seconds": elapsed, "sweeps": s.n_sweeps,
                      "accuracy": acc, "log_joint_per_token": lj})
        print(f"  {model_name:11s} K={K:<4d} {sampler:16s} t={elapsed:6.1f}s "
              f"sweeps={s.n_sweeps:4d} acc={acc:.3f} lj/token={lj:.4f}", flush=True)
    acc_rows, summary = history_rows(s, key)
    run = {**key, "settings": settings_of(s.model), "budget": budget, "sweeps": s.n_sweeps,
           "seconds": elapsed, **summary, "eval_seconds": eval_total / n_evals,
           "accuracy": curve[-1]["accuracy"], **default}
    del s
    gc.collect()
    return curve, run, acc_rows


# ------------------------------------------------------------------------------ analysis
def choices(curves: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per model and K, at the full budget: the best sampler, the default's, the gap."""
    rows = []
    full = curves[curves["at"] == 1.0]
    for (model, K), g in full.groupby(["model", "K"], sort=False):
        best = g.loc[g["accuracy"].idxmax()]
        r0 = runs[(runs["model"] == model) & (runs["K"] == K)].iloc[0]
        d_label, d_settings = r0["default_sampler"], r0["default_settings"]
        d = g[g["sampler"] == d_label]
        d_acc = float(d["accuracy"].iloc[0]) if len(d) else math.nan
        rows.append({
            "model": model, "model_class": MODEL_CLASS[model],
            "model_params": MODEL_PARAMS[model], "preset_as_shipped": not MODEL_PARAMS[model],
            "K": int(K), "budget_seconds": float(runs["budget"].max()),
            "best_sampler": best["sampler"], "best_settings": best["settings"],
            "best_kwargs": json.dumps(sampler_kwargs(best["sampler"])),
            "best_accuracy": float(best["accuracy"]), "best_seconds": float(best["seconds"]),
            "best_sweeps": int(best["sweeps"]), "default_sampler": d_label,
            "default_settings": d_settings, "default_accuracy": d_acc,
            "default_seconds": float(d["seconds"].iloc[0]) if len(d) else math.nan,
            "gap_points": 100 * (float(best["accuracy"]) - d_acc),
            "default_within_1_point": bool(100 * (float(best["accuracy"]) - d_acc) <= 1.0)
            if len(d) else False,
            "default_reason": r0["default_reason"] if isinstance(r0["default_reason"], str)
            else "", "samplers_compared": " ".join(g["sampler"])})
    return pd.DataFrame(rows)


def fmt(x: Any, spec: str = ".3f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def pc_analysis(curves: pd.DataFrame, runs: pd.DataFrame, acc: pd.DataFrame) -> list[str]:
    """What slows the partially collapsed chain, computed from the runs: the label MH
    acceptance per sweep of the sparse kernel, and the sparse and dense kernels (and collapsed
    Gibbs) at equal time."""
    out: list[str] = []
    for (model, K), g in runs.groupby(["model", "K"], sort=False):
        sparse = [s for s in g["sampler"] if s.startswith("pc-sparse")]
        if not sparse:
            continue
        out.append(f"**{model}, K = {K}.**")
        for s in sparse:
            a = acc[(acc["model"] == model) & (acc["K"] == K) & (acc["sampler"] == s)
                    & (acc["metric"] == "acceptance_rate") & (acc["proposal"] == "label")]
            per = ", ".join(f"{v:.3f}" for v in a.sort_values("sweep")["value"])
            r = g[g["sampler"] == s].iloc[0]
            out.append(f"- {s} ({r['settings']}): label MH acceptance per sweep: {per} "
                       f"(mean over the last quarter {fmt(r.get('acceptance_label'))}); "
                       f"share of draws from the document part "
                       f"{fmt(r.get('doc_part_share'))}; tokens changing topic per sweep "
                       f"{fmt(r['topic_change_rate'])}.")
        c = curves[(curves["model"] == model) & (curves["K"] == K)]
        full = c[c["at"] == 1.0].set_index("sampler")
        cells = []
        for s, r in full.iterrows():
            rr = g[g["sampler"] == s].iloc[0]
            split = ", ".join(f"{k[len('seconds_'):]} {rr[k]:.2f}" for k in rr.index
                              if k.startswith("seconds_") and k != "seconds_per_sweep"
                              and isinstance(rr[k], float) and not math.isnan(rr[k]))
            cells.append(f"{s}: {int(r['sweeps'])} sweeps ({rr['seconds_per_sweep']:.2f} s "
                         f"each: {split}), log joint/token "
                         f"{r['log_joint_per_token']:.4f}, accuracy {r['accuracy']:.3f}, "
                         f"tokens changing topic {rr['topic_change_rate']:.3f}")
        out.append(f"- At the full budget ({fmt(float(g['budget'].max()), '.0f')} s): "
                   + "; ".join(cells) + ".")
        dense = [s for s in full.index if s.startswith("pc-dense")]
        for s in sparse:
            for d in dense:
                at = c.pivot_table(index="at", columns="sampler", values="log_joint_per_token")
                ac = c.pivot_table(index="at", columns="sampler", values="accuracy")
                lj_better = int((at[d] > at[s]).sum())
                acc_better = int((ac[d] > ac[s]).sum())
                n = len(at)
                verdict = ("mixes better per second" if lj_better == n and acc_better >= n - 1
                           else "does not mix better per second" if lj_better == 0
                           else "is mixed")
                out.append(f"- {d} against {s} at equal time: higher log joint at "
                           f"{lj_better}/{n} evaluation times, higher accuracy at "
                           f"{acc_better}/{n}: the dense kernel {verdict}.")
        out.append("")
    return out


def markdown(curves: pd.DataFrame, runs: pd.DataFrame, acc: pd.DataFrame,
             choice: pd.DataFrame, meta: dict[str, Any]) -> str:
    budget = float(runs["budget"].max()) if len(runs) else math.nan
    out = ["# Supervised topic models: 20-class accuracy against wall-clock time, 2 cores", "",
           "Commands, in the order they were run:", "",
           *[f"    {c}" for c in meta["commands"]], "",
           f"Machine: {meta['cpu']}, {meta['cores']} cores, NUMBA_NUM_THREADS=2; "
           f"{meta['date']}; {meta['versions']}.", "",
           f"20 Newsgroups, all 20 classes, topicsup's default preprocessing: "
           f"{meta['n_train']} training posts, {meta['n_test']} test posts; seed "
           f"{meta['seed']}. Each run samples for {fmt(budget, 'g')} s of wall-clock "
           f"sampling time and is evaluated (clock paused) at "
           f"{', '.join(f'{f:g}' for f in EVAL_FRACTIONS)} of it: test accuracy by fold-in "
           f"({meta['fold_in'][0]} + {meta['fold_in'][1]} sweeps, the same for every sampler; "
           f"the default 50 + 50 would take about a third of each run) with the weights "
           f"averaged over the second half of the sweeps done, and the log joint per token. "
           f"Acceptance: the mean over the last quarter of the sweeps, per proposal kind "
           f"(label: the sparse partially collapsed kernel's MH correction; doc, word, exp: "
           f"the light sampler's); '-' where the sampler draws exactly. One seed: "
           f"differences below about 1 point are within the run-to-run noise. The default "
           f"configuration is the model's sampler as a Session on these training posts "
           f"resolves it (with `sampler=\"auto\"`: auto's choice, which is the published "
           f"sampler where nothing was measured); the best is the highest accuracy at the "
           f"full budget.", "",
           "Models:", "", *[f"- `{m}`: {MODEL_NOTES[m]}" for m in MODELS
                             if m in set(runs.get("model", []))], ""]
    if meta.get("skipped"):
        out += ["Skipped: " + "; ".join(meta["skipped"]), ""]
    for (model, K), g in runs.groupby(["model", "K"], sort=False):
        c = curves[(curves["model"] == model) & (curves["K"] == K)]
        kinds = sorted({k[len("acceptance_"):] for k in g.columns
                        if k.startswith("acceptance_") and g[k].notna().any()})
        head = " | ".join(f"acc. at {f:g} (s)" for f in EVAL_FRACTIONS)
        out += [f"## {model}, K = {K}", "",
                f"| sampler | settings | sweeps | s / sweep | {head} | log joint / token | "
                + "".join(f"acceptance {k} | " for k in kinds),
                "|---|---|---:|---:|" + "---:|" * len(EVAL_FRACTIONS) + "---:|"
                + "---:|" * len(kinds)]
        for _, r in g.iterrows():
            cc = c[c["sampler"] == r["sampler"]].set_index("at")
            cells = " | ".join(
                f"{cc.loc[f, 'accuracy']:.3f} ({cc.loc[f, 'seconds']:.1f})" if f in cc.index
                else "-" for f in EVAL_FRACTIONS)
            lj = cc.loc[1.0, "log_joint_per_token"] if 1.0 in cc.index else math.nan
            out.append(f"| {r['sampler']} | {r['settings']} | {int(r['sweeps'])} | "
                       f"{r['seconds_per_sweep']:.3f} | {cells} | {fmt(lj, '.4f')} | "
                       + "".join(f"{fmt(r.get('acceptance_' + k))} | " for k in kinds))
        ch = choice[(choice["model"] == model) & (choice["K"] == K)]
        if len(ch):
            r = ch.iloc[0]
            gap = ("not measured (the default sampler was not run)"
                   if math.isnan(r["default_accuracy"]) else
                   f"{r['gap_points']:.1f} points ({r['default_accuracy']:.3f})")
            out += ["", f"Best configuration at equal wall-clock time ({fmt(budget, 'g')} s): "
                    f"**{r['best_sampler']}** ({r['best_settings']}), accuracy "
                    f"{r['best_accuracy']:.3f}. The default ({r['default_sampler']}, "
                    f"{r['default_settings']}) is {gap} below it."
                    + (f" Default chosen by {r['default_reason']}." if r["default_reason"]
                       else "")]
        for f in EVAL_FRACTIONS[:-1]:
            at = c[c["at"] == f]
            if len(at):
                b = at.loc[at["accuracy"].idxmax()]
                out.append(f"At {f:g} of the budget the best is {b['sampler']} "
                           f"({b['accuracy']:.3f}).")
        out.append("")
    if len(choice):
        out += ["## Summary (choice.csv)", "",
                "| model | K | best sampler | accuracy | default sampler | accuracy | gap "
                "(points) |", "|---|---:|---|---:|---|---:|---:|"]
        for _, r in choice.iterrows():
            out.append(f"| {r['model']} | {r['K']} | {r['best_sampler']} | "
                       f"{r['best_accuracy']:.3f} | {r['default_sampler']} | "
                       f"{fmt(r['default_accuracy'])} | {fmt(r['gap_points'], '.1f')} |")
        out.append("")
    analysis = pc_analysis(curves, runs, acc)
    if analysis:
        out += ["## What slows the partially collapsed chain", "",
                "The sparse kernel draws each token from the LDA conditional given Phi without "
                "the label factor and corrects it by `mh_steps` independence MH steps "
                "(proposal kind `label`): a rejected step keeps the token's topic, so a low "
                "acceptance is a chain that moves less per sweep. The dense kernel draws the "
                "exact conditional (label factor included, O(K) per token), no correction. "
                "Both draw Phi | Z each sweep (its noise makes the topics wander: compare the "
                "share of tokens changing topic with collapsed Gibbs'). The log joint per token "
                "is the same function of the state for every sampler.", "", *analysis]
    out += ["![accuracy against seconds](curves.png)", "",
            "Files: curves.csv (per evaluation), runs.csv (per run), acceptance.csv (per sweep "
            "and proposal kind), choice.csv (per model and K), curves.html / curves.png.", ""]
    return "\n".join(out)


def save_chart(curves: pd.DataFrame, out: Path) -> None:
    import altair as alt
    chart = alt.Chart(curves).mark_line(point=True).encode(
        x=alt.X("seconds:Q", title="sampling seconds"),
        y=alt.Y("accuracy:Q", scale=alt.Scale(zero=False), title="test accuracy"),
        color=alt.Color("sampler:N"),
        tooltip=["model", "K", "sampler", "sweeps", "seconds", "accuracy"],
    ).properties(width=220, height=160).facet(
        row=alt.Row("model:N"), column=alt.Column("K:O")).resolve_scale(y="independent").properties(
        title="20 Newsgroups, 20 classes: test accuracy against sampling time, 2 cores")
    try:
        chart.save(str(out / "curves.html"), format="html", inline=True)
        chart.save(str(out / "curves.png"), scale_factor=1.5)
    except Exception as e:   # vl-convert missing: the CSVs and README still stand
        print(f"no chart: {e}")


# ------------------------------------------------------------------------------ main
def estimate_seconds(n_runs_by_k: dict[int, int], budget: float) -> float:
    return LOAD_SECONDS + sum(n * (budget + SETUP_SECONDS + len(EVAL_FRACTIONS)
                                   * EVAL_SECONDS.get(K, 1.2 * K / 100))
                              for K, n in n_runs_by_k.items())


def write_outputs(out: Path, curves: pd.DataFrame, runs: pd.DataFrame, acc: pd.DataFrame,
                  meta: dict[str, Any]) -> pd.DataFrame:
    choice = choices(curves, runs) if len(curves) else pd.DataFrame()
    choice.to_csv(out / "choice.csv", index=False)
    (out / "README.md").write_text(markdown(curves, runs, acc, choice, meta))
    if len(curves):
        save_chart(curves, out)
    return choice


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="20news-bydate.tar.gz or its folder")
    ap.add_argument("--models", help=f"comma-separated, from {','.join(MODELS)} (default all)")
    ap.add_argument("--ks", help="comma-separated topic numbers (default 20,50,100)")
    ap.add_argument("--samplers", help=f"comma-separated (default {','.join(SAMPLERS)})")
    ap.add_argument("--budget", type=float, help=f"seconds of sampling per run (default "
                                                 f"{BUDGET:g}; --quick {QUICK_BUDGET:g})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fold-in", type=int, nargs=2, default=list(FOLD_IN),
                    metavar=("BURN", "KEEP"), help="fold-in sweeps on the test posts")
    ap.add_argument("--train-docs", type=int, default=0,
                    help="sample this many training posts (diagnostics; 0: all)")
    ap.add_argument("--quick", action="store_true",
                    help=f"K = 20, models {','.join(QUICK_MODELS)}, {QUICK_BUDGET:g} s budgets")
    ap.add_argument("--resume", action="store_true",
                    help="keep the runs already in --out and skip the (model, K, sampler) "
                         "they cover")
    ap.add_argument("--readme-only", action="store_true",
                    help="rebuild README.md, choice.csv and the chart from the CSVs in --out")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    try:
        models = parse_list(args.models, tuple(MODELS), "models") if args.models else \
            (QUICK_MODELS if args.quick else tuple(MODELS))
        samplers = parse_list(args.samplers, None, "samplers") if args.samplers else SAMPLERS
        for name in samplers:
            sampler_kwargs(name)
        ks = tuple(int(x) for x in parse_list(args.ks, None, "ks")) if args.ks else \
            ((20,) if args.quick else KS)
    except ValueError as e:
        ap.error(str(e))
    if any(K < 2 for K in ks):
        ap.error(f"--ks: topic numbers must be at least 2, got {list(ks)}")
    budget = args.budget if args.budget is not None else (QUICK_BUDGET if args.quick
                                                          else BUDGET)
    if not budget > 0:
        ap.error(f"--budget must be positive seconds, got {budget}")
    if args.train_docs < 0:
        ap.error("--train-docs must be 0 (all) or a positive number of posts")
    out = args.out or (DEFAULT_OUT / "quick" / "supervised_time" if args.quick
                       else DEFAULT_OUT / "supervised_time")
    def read(name: str) -> pd.DataFrame:
        return pd.read_csv(out / name) if (out / name).exists() else pd.DataFrame()
    if args.readme_only:
        meta_path = out / "meta.json"
        if not meta_path.exists():
            ap.error(f"--readme-only: no earlier run in {out} (meta.json missing)")
        meta = json.loads(meta_path.read_text())
        write_outputs(out, read("curves.csv"), read("runs.csv"), read("acceptance.csv"), meta)
        print((out / "README.md").read_text())
        return 0
    import numba
    # numba.config sets its NUMBA_* attributes from the environment at run time
    threads = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    assert threads == THREADS, threads
    # which (model, sampler) pairs can run: a sampler the model refuses is skipped, with why
    plan: list[tuple[str, str]] = []
    skipped: list[str] = []
    for model in models:
        for sampler in samplers:
            try:
                MODELS[model](ks[0], **sampler_kwargs(sampler))
            except (ValueError, TypeError) as e:
                skipped.append(f"{model} with {sampler}: {e}")
                print(f"skip {model} with {sampler}: {e}", flush=True)
                continue
            plan.append((model, sampler))
    n_by_k = {K: len(plan) for K in ks}
    est = estimate_seconds(n_by_k, budget)
    print(f"{len(plan) * len(ks)} runs of {budget:g} s sampling each: about {est / 60:.1f} min "
          f"in all (evaluation and set-up included)", flush=True)
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    out.mkdir(parents=True, exist_ok=True)
    from topicsup.corpus import Corpus
    from topicsup.datasets import load_20newsgroups
    train, test = (load_20newsgroups(subset, path=path) for subset in ("train", "test"))
    assert isinstance(train, Corpus) and isinstance(test, Corpus)   # return_frame=False
    if args.train_docs and args.train_docs < train.n_docs:
        pick = np.sort(np.random.default_rng(args.seed).choice(train.n_docs, args.train_docs,
                                                               replace=False))
        train = train.take(pick)
    curves, runs, acc = (read("curves.csv"), read("runs.csv"), read("acceptance.csv")) \
        if args.resume else (pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    done = set(zip(runs["model"], runs["K"], runs["sampler"])) if len(runs) else set()
    t_start = time.perf_counter()
    defaults: dict[tuple[str, int], dict[str, str]] = {}
    for K in ks:
        for model, sampler in plan:
            if (model, K, sampler) in done:
                continue
            if (model, K) not in defaults:
                defaults[(model, K)] = default_config(model, K, train, samplers)
            curve, run, acc_rows = run_one(model, K, sampler, train, test, budget, args.seed,
                                           tuple(args.fold_in), defaults[(model, K)])
            curves = pd.concat([curves, pd.DataFrame(curve)], ignore_index=True)
            runs = pd.concat([runs, pd.DataFrame([run])], ignore_index=True)
            acc = pd.concat([acc, acc_rows], ignore_index=True)
            # after every run, so an interrupted grid keeps what it measured
            curves.to_csv(out / "curves.csv", index=False)
            runs.to_csv(out / "runs.csv", index=False)
            acc.to_csv(out / "acceptance.csv", index=False)
    print(f"measured in {(time.perf_counter() - t_start) / 60:.1f} min (estimate "
          f"{est / 60:.1f})", flush=True)
    # paths relative to where it ran: a results file holds no machine's absolute path
    command = "python benchmarks/bench_supervised_time.py " + shlex.join(
        os.path.relpath(a) if os.path.isabs(a) else a
        for a in (sys.argv[1:] if argv is None else argv))
    log = out / "commands.txt"
    previous = log.read_text().splitlines() if args.resume and log.exists() else []
    log.write_text("\n".join(previous + [command.strip()]) + "\n")
    meta = {"commands": previous + [command.strip()], "cpu": cpu_model(),
            "cores": os.cpu_count(), "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "versions": ", ".join(f"{k} {v}" for k, v in versions().items()),
            "n_train": train.n_docs, "n_test": test.n_docs, "seed": args.seed,
            "fold_in": list(args.fold_in), "skipped": skipped}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    choice = write_outputs(out, curves, runs, acc, meta)
    print(choice.to_string(index=False))
    print(f"wrote {out / 'README.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
