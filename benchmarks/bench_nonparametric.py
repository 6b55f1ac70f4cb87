"""The PDP and HDP topic models and their alias samplers on 20 Newsgroups (Li et al. 2014
Fig. 2 and 6, and sec. 5.4's time per iteration), with tomotopy's HDPModel in the same run.

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_nonparametric.py            # k = 1024, 30 iterations (~20 min)
    python benchmarks/bench_nonparametric.py --quick    # smoke test: k = 64, 4 iterations
    python benchmarks/bench_nonparametric.py --samplers alias_pdp   # rerun some, keep the rest

Data: topicsup's default preprocessing of the 11,291 training posts (1.36 M tokens; the
paper's GPOL has 2.6 M); held-out perplexity by document completion (Wallach et al. 2009, as
``LDA.completion_log_likelihood``) on 1,000 test posts drawn once (seed 0): half of each
post's tokens, drawn at random, folded in (20 + 20 sweeps) with the topics fixed at the
model's point estimate, the other half scored. Evaluated after iterations 1, 5, 10, ... (the paper's schedule); the
evaluation is not counted in the time.

Samplers, one core each, the paper's settings (sec. 5.2): k = 1024 topics (HDP: a truncation
of 1024 slots, all live at the start), PDP alpha = 0.1, a = 0.1, b = 10, gamma = 0.1; HDP b0 =
b1 = 10, gamma (beta) = 0.1; the alias samplers with 2 MH steps:

* ``pdp`` / ``alias_pdp``: ``PDPLDA(sampler="gibbs" | "alias")``, the alias tables also
  rebuilt once per sweep (the default); ``alias_pdp_paper``: rebuilt only after serving 2K
  draws (``refresh="draws"``, the paper);
* ``hdp`` / ``alias_hdp``: ``HDPLDA(sampler="gibbs" | "alias")``, the alias tables also
  rebuilt once per sweep (the default); ``alias_hdp_paper``: rebuilt only after serving K + 1
  draws;
* ``tomotopy_hdp``: ``tomotopy.HDPModel`` (alpha = b1, gamma = b0, eta = 0.1, initial_k =
  1024, hyper-parameter optimisation off: optim_interval = 0), one worker; its perplexity
  from ``convert_to_lda`` (its live topics and their document-level weights) through the
  same document completion.

Outputs in benchmarks/results/nonparametric/ (quick/nonparametric for --quick): curves.csv
(sampler, iteration, seconds, perplexity, live_topics, acceptance), README.md (tables and the
command) and curves.png (perplexity against time and against iterations).
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import math  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa: E402

from topicsup import HDPLDA, PDPLDA, Session  # noqa: E402
from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.models.lda import document_completion, fold_in_topics  # noqa: E402

SAMPLERS = ("pdp", "alias_pdp", "alias_pdp_paper", "hdp", "alias_hdp", "alias_hdp_paper",
            "tomotopy_hdp")
N_TEST = 1000
FOLD_IN = (20, 20)


def models(K: int) -> dict[str, object]:
    return {"pdp": PDPLDA.as_published(K, sampler="gibbs"),
            "alias_pdp": PDPLDA.as_published(K, refresh="sweep"),
            "alias_pdp_paper": PDPLDA.as_published(K),
            "hdp": HDPLDA.as_published(K, sampler="gibbs"),
            "alias_hdp": HDPLDA.as_published(K, refresh="sweep"),
            "alias_hdp_paper": HDPLDA.as_published(K)}


def eval_points(n: int) -> list[int]:
    return sorted({1, *range(5, n + 1, 5), n})


def run_topicsup(name, model, train, test, n_iter, rows) -> None:
    s = Session(model, train, seed=0, log_joint_every=0)
    clock = 0.0
    points = eval_points(n_iter)
    for it in range(1, n_iter + 1):
        t0 = time.perf_counter()
        s.run(1)
        clock += time.perf_counter() - t0
        if it in points:
            ll, n = s.model.completion_log_likelihood(s.state, s.problem, test, seed_state(7),
                                                      *FOLD_IN)
            h = s.history
            last = h[h["sweep"] == it]
            acc = last[last["metric"] == "acceptance_rate"]["value"]
            rows.append({"sampler": name, "iteration": it, "seconds": clock,
                         "seconds_per_iteration": clock / it, "perplexity": math.exp(-ll / n),
                         "live_topics": float(s.metric("live_topics").iloc[-1]),
                         "tables": float(s.metric("tables").iloc[-1]),
                         "blocked_share": float(s.metric("blocked_share").iloc[-1]),
                         "acceptance": float(acc.iloc[0]) if len(acc) else np.nan})
            print(rows[-1], flush=True)


def run_tomotopy(K, train, test, n_iter, rows) -> None:
    import tomotopy as tp
    vocab = list(train.vocabulary)
    mdl = tp.HDPModel(initial_k=K, alpha=10.0, eta=0.1, gamma=10.0, seed=0)
    mdl.optim_interval = 0
    ptr = train.doc_ptr
    for d in range(train.n_docs):
        words = [vocab[w] for w in train.words[ptr[d]:ptr[d + 1]]]
        if words:
            mdl.add_doc(words)
    mdl.train(0, workers=1)
    index = {w: j for j, w in enumerate(vocab)}
    used = np.array([index[w] for w in mdl.used_vocabs])
    clock = 0.0
    for it in range(1, n_iter + 1):
        t0 = time.perf_counter()
        mdl.train(1, workers=1)
        clock += time.perf_counter() - t0
        if it in eval_points(n_iter):
            lda, mapping = mdl.convert_to_lda(topic_threshold=0.0)
            k = lda.k
            phi = np.full((len(vocab), k), 1e-12)
            for t in range(k):
                phi[used, t] = lda.get_topic_word_dist(t)
            phi /= phi.sum(axis=0, keepdims=True)
            alpha = np.asarray(lda.alpha, np.float64)
            ll, n = document_completion(
                test, lambda seen: fold_in_topics(phi, alpha, seen, seed_state(7), *FOLD_IN),
                phi, alpha, seed_state(7))
            rows.append({"sampler": "tomotopy_hdp", "iteration": it, "seconds": clock,
                         "seconds_per_iteration": clock / it, "perplexity": math.exp(-ll / n),
                         "live_topics": float(mdl.live_k), "tables": float(mdl.num_tables),
                         "blocked_share": np.nan, "acceptance": np.nan})
            print(rows[-1], flush=True)


def steady(df: pd.DataFrame) -> pd.Series:
    """Seconds per iteration over the last evaluation interval (the steady state), per
    sampler."""
    out = {}
    for name, g in df.sort_values("iteration").groupby("sampler"):
        a, b = g.iloc[-2], g.iloc[-1]
        out[name] = (b.seconds - a.seconds) / (b.iteration - a.iteration)
    return pd.Series(out)


def write_readme(out: Path, df: pd.DataFrame, command: str, K: int, n_iter: int) -> None:
    last = df.sort_values("iteration").groupby("sampler").tail(1).set_index("sampler")
    last["steady"] = steady(df)
    lines = [f"# PDP and HDP topic models and their alias samplers (k = {K}, {n_iter} "
             f"iterations)", "",
             f"Command: `{command}` ({_dt.date.today().isoformat()}, {cpu_model()}, one core "
             f"per sampler; {versions()})", "",
             "Held-out perplexity by document completion on 1,000 test posts after each "
             "iteration in the schedule; seconds exclude the evaluation.", "",
             "| sampler | seconds / iteration | over the last 5 | perplexity at the end "
             "| live topics | tables | acceptance |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name in [s for s in SAMPLERS if s in last.index]:
        r = last.loc[name]
        lines.append(f"| {name} | {r.seconds_per_iteration:.2f} | {r.steady:.2f} | "
                     f"{r.perplexity:.0f} | "
                     f"{r.live_topics:.0f} | {r.tables:.0f} | "
                     + ("" if np.isnan(r.acceptance) else f"{r.acceptance:.3f}") + " |")
    lines += ["", "Time reduction per iteration (1 - alias / exact; over the whole run and over "
              "the last 5 iterations; the paper: 60-80% for the PDP, 80-95% for the HDP):", ""]
    for exact, alias in (("pdp", "alias_pdp"), ("pdp", "alias_pdp_paper"), ("hdp", "alias_hdp"),
                         ("hdp", "alias_hdp_paper")):
        if exact in last.index and alias in last.index:
            red = 1 - last.loc[alias].seconds_per_iteration / last.loc[exact].seconds_per_iteration
            red5 = 1 - last.loc[alias].steady / last.loc[exact].steady
            lines.append(f"* {alias} against {exact}: {100 * red:.0f}% (last 5: "
                         f"{100 * red5:.0f}%)")
    lines += ["", "Perplexity per iteration (alias against exact at the same iteration):", ""]
    piv = df.pivot_table(index="iteration", columns="sampler", values="perplexity")
    lines.append("| iteration | " + " | ".join(piv.columns) + " |")
    lines.append("|---:|" + "---:|" * len(piv.columns))
    for it, r in piv.iterrows():
        lines.append(f"| {it} | " + " | ".join("" if np.isnan(v) else f"{v:.0f}" for v in r)
                     + " |")
    readme = out / "README.md"
    # the hand-written reading of the numbers is kept across reruns (to be revised by hand)
    old = readme.read_text() if readme.exists() else ""
    reading = old[old.index("## Reading"):] if "## Reading" in old else ""
    readme.write_text("\n".join(lines) + "\n" + ("\n" + reading if reading else ""))


def plot(out: Path, df: pd.DataFrame) -> None:
    import altair as alt
    base = alt.Chart(df).mark_line(point=True).encode(
        y=alt.Y("perplexity:Q", scale=alt.Scale(zero=False)), color="sampler:N")
    chart = alt.hconcat(base.encode(x=alt.X("seconds:Q", scale=alt.Scale(type="log"),
                                            title="seconds (log)")).properties(width=320),
                        base.encode(x="iteration:Q").properties(width=320))
    try:
        chart.save(str(out / "curves.png"))
    except Exception as e:   # vl-convert missing: the csv and README still stand
        print(f"no plot: {e}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--k", type=int, default=1024)
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=SAMPLERS)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    K, n_iter = (64, 4) if args.quick else (args.k, args.iterations)
    out = Path(args.out) if args.out else DEFAULT_OUT / ("quick" if args.quick else "") \
        / "nonparametric"
    out.mkdir(parents=True, exist_ok=True)
    from topicsup.datasets import load_20newsgroups
    train = load_20newsgroups("train", path=path)
    test_all = load_20newsgroups("test", path=path)
    pick = np.sort(np.random.default_rng(0).choice(test_all.n_docs, N_TEST, replace=False))
    test = test_all.take(pick)
    csv = out / "curves.csv"
    rows: list[dict] = []
    if csv.exists():   # keep the other samplers' curves of an earlier run of this k
        old = pd.read_csv(csv)
        rows = old[~old["sampler"].isin(args.samplers)].to_dict("records")
    for name in args.samplers:
        if name == "tomotopy_hdp":
            run_tomotopy(K, train, test, n_iter, rows)
        else:
            run_topicsup(name, models(K)[name], train, test, n_iter, rows)
        pd.DataFrame(rows).to_csv(csv, index=False)
    df = pd.DataFrame(rows)
    command = "python " + " ".join(["benchmarks/bench_nonparametric.py",
                                    *map(shlex.quote, argv if argv is not None else sys.argv[1:])])
    write_readme(out, df, command, K, n_iter)
    plot(out, df)
    print((out / "README.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
