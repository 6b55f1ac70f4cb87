"""The partially collapsed sampler on a Dask cluster against the threaded backend: the
per-sweep overhead, the bytes moved per sweep and where the time goes, on 20 Newsgroups.

Run from the repository root with the project's virtualenv (``pip install -e ".[dask]"``), on
an otherwise idle machine::

    python benchmarks/bench_dask.py            # K = 100 and 1000 (LDA), K = 100 (DOLDA)
    python benchmarks/bench_dask.py --quick    # smoke test: K = 20, 3 sweeps

For each model and K, a chain (seed 1, random start) runs ``--burn-in`` sweeps (50) on the
threaded backend with 2 numba threads, the regime of a long run, where a minority of the
tokens change topic in a sweep; from its checkpoint the same chain goes on there, then on a
``LocalCluster`` of ``--workers`` worker processes of 1 thread each
(2, then 4: on this 2-core machine 4 processes share 2 cores, which measures the per-worker
overheads, not a speed-up), the documents in as many partitions; ``log_joint_every=0`` so only
sampling is timed. After 2 warm-up sweeps (compilation, placing the documents) each times
``--sweeps`` sweeps; reported: the median seconds per sweep, the overhead of Dask over threads,
the bytes sent to and received from the workers per sweep (n_wk's rows, each partition's
inputs; Phi's column sums, the sparse count changes, the info rows and DOLDA's features
back) and passed between the workers (the rows of Phi each drew; the changed tokens to the
replicas), the share of tokens that changed topic, the split of a Dask sweep (drawing Phi on
the workers, the workers' sweep including the round trip, adding the count changes, the
rest: the once-per-sweep steps here), the first read of the state after a sweep (the topics
fetched from the workers, the Session's Phi drawn here), and
whether the two chains are identical at the end (the saved state: topics, Phi and its key, the
weights, the augmentation and the prior's scales; the counts; the random stream).

Last, Phi's draw and the word tables are timed alone on one thread at the largest K (the
per-core rates the cost model of docs/scaling.md uses).

Outputs in benchmarks/results/dask/ (``quick/dask`` for --quick): README.md, overhead.csv and
constants.csv.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "2"   # before numba is imported: both cores

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import ALPHA, BETA, DEFAULT_OUT, archive_or_skip, cpu_model, versions  # noqa

os.environ["NUMBA_NUM_THREADS"] = "2"   # bench_lda sets 1 on import; numba is not loaded yet
os.environ.pop("OMP_NUM_THREADS", None)

CASES = (("LDA", 100), ("LDA", 1000), ("DOLDA", 100))
QUICK_CASES = (("LDA", 20), ("DOLDA", 20))
WARMUP = 2


def make_model(name: str, K: int):
    from topicsup.models import DOLDA, LDA
    if name == "LDA":
        return LDA(K=K, alpha=ALPHA, beta=BETA, sampler="partially_collapsed")
    return DOLDA(K=K, lda_init_sweeps=1)


def same_chain(a, b) -> bool:
    """The saved state (z, Phi, its key, the weights, the augmentation, the prior's
    scales), the counts and the random stream are equal bit for bit."""
    sa, sb = a.model.saved_arrays(a.state), b.model.saved_arrays(b.state)
    ca, cb = a.state.counts, b.state.counts
    return (all(np.array_equal(sa[k], sb[k]) for k in a.model.saved_state)
            and all(np.array_equal(x, y) for x, y in ((ca.n_dk, cb.n_dk), (ca.n_wk, cb.n_wk),
                                                     (a.rng, b.rng))))


def kernel_constants(session, reps: int = 3) -> dict[str, float]:
    """Per-core rates of the two O(V K) steps, timed alone on one thread on the session's
    state: Phi's Gamma draws and the word tables' entries (docs/scaling.md uses them)."""
    from topicsup.kernels import partially_collapsed as pc
    from topicsup.kernels.threads import numba_threads
    c, own = session.state.counts, session.state.sampler
    V, K = c.n_wk.shape
    phi, part = np.zeros((V, K)), np.zeros(((V + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK, K))
    prob, alias, mass = np.zeros((V, K)), np.zeros((V, K), np.int32), np.zeros(V)
    alpha = session.model.alpha_vector
    t_phi, t_tab = [], []
    with numba_threads(1):
        for _ in range(reps):
            t0 = time.perf_counter()
            pc.draw_phi(c.n_wk, c.n_k, session.model.beta, own.key, phi, part)
            t1 = time.perf_counter()
            pc.build_word_tables(phi, alpha, prob, alias, mass)
            t2 = time.perf_counter()
            t_phi.append(t1 - t0)
            t_tab.append(t2 - t1)
    return {"K": K, "V": V, "phi_draws_per_s_per_core": V * K / min(t_phi),
            "table_entries_per_s_per_core": V * K / min(t_tab),
            "table_seconds_per_worker": min(t_tab)}


def timed(session, sweeps: int) -> list[float]:
    out = []
    for _ in range(sweeps):
        t0 = time.perf_counter()
        session.run(1)
        out.append(time.perf_counter() - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--sweeps", type=int, default=None, help="timed sweeps per run")
    p.add_argument("--data", default=None, help="the 20news-bydate.tar.gz archive")
    p.add_argument("--out", default=None)
    p.add_argument("--workers", default="2,4", help="worker processes, comma-separated")
    p.add_argument("--burn-in", type=int, default=None,
                   help="sweeps on threads before both backends go on from the same state "
                        "(default 50; 2 with --quick)")
    args = p.parse_args(argv)
    burn_in = args.burn_in if args.burn_in is not None else (2 if args.quick else 50)
    archive = archive_or_skip(args.data)
    if archive is None:
        return 0
    import distributed

    from topicsup.backends.dask import DaskBackend
    from topicsup.newsgroups import load_20newsgroups
    from topicsup.session import Session
    out = Path(args.out) if args.out else DEFAULT_OUT / ("quick/dask" if args.quick else "dask")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    corpus = load_20newsgroups(subset="train", path=archive, min_count=5, max_df=0.5,
                               download=False)
    print(f"loaded {corpus!r} in {time.perf_counter() - t0:.1f} s", flush=True)
    cases = QUICK_CASES if args.quick else CASES
    sweeps = args.sweeps or (3 if args.quick else 8)
    threads: dict[tuple[str, int], tuple[object, list[float]]] = {}
    burned: dict[tuple[str, int], Path] = {}
    tmp = Path(tempfile.mkdtemp())
    for name, K in cases:   # the threaded chains first, with no cluster running
        t = Session(make_model(name, K).replace(threads=2), corpus, seed=1, log_joint_every=0)
        t.run(burn_in)   # then both backends go on from here: the regime of a long run
        burned[(name, K)] = t.save(tmp / f"{name}-{K}.topicsup")
        t = Session.load(burned[(name, K)])
        t.run(WARMUP)
        threads[(name, K)] = (t, timed(t, sweeps))
        if name == "LDA" and K == max(k for n, k in cases if n == "LDA"):
            consts = kernel_constants(t)
    rows = []
    for n_workers in (int(x) for x in args.workers.split(",")):
        cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                           processes=True, memory_limit=0,
                                           dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
        try:
            for name, K in cases:
                ref, t_threads = threads[(name, K)]
                backend = DaskBackend(client, partitions=n_workers)
                dask = Session.load(burned[(name, K)], backend=backend)
                dask.run(WARMUP)
                n_before = len(backend.traffic)
                t_dask = timed(dask, sweeps)
                traffic = backend.traffic_frame().iloc[n_before:]
                t0 = time.perf_counter()
                dask.state   # the first read after a sweep: the topics fetched, Phi drawn here
                sync_s = time.perf_counter() - t0
                same = same_chain(ref, dask)
                dask.close()
                med_t, med_d = float(np.median(t_threads)), float(np.median(t_dask))
                split = traffic.median()
                rest = med_d - split[["seconds_phi", "seconds_workers", "seconds_adopt"]].sum()
                row = {"model": name, "K": K, "workers": n_workers,
                       "n_tokens": corpus.n_tokens, "n_words": corpus.n_words,
                       "sweeps": sweeps, "threads_2_s_per_sweep": med_t,
                       "dask_s_per_sweep": med_d, "overhead_s": med_d - med_t,
                       "dask_over_threads": med_d / med_t,
                       "phi_mb": K * corpus.n_words * 8 / 1e6,
                       "sent_mb_per_sweep": split["bytes_sent"] / 1e6,
                       "received_mb_per_sweep": split["bytes_received"] / 1e6,
                       "reply_mb_per_sweep": split["bytes_reply"] / 1e6,
                       "to_replicas_mb_per_sweep": split["bytes_to_replicas"] / 1e6,
                       "count_changes_per_changed_token": float(
                           traffic["count_changes"].sum() / traffic["tokens_changed"].sum()),
                       "between_workers_mb_per_sweep": split["bytes_between_workers"] / 1e6,
                       "phi_to_each_worker_mb": K * corpus.n_words * 8 / 1e6,
                       "changed_share": float(traffic["tokens_changed"].sum()
                                              / traffic["tokens"].sum()),
                       "phi_s": split["seconds_phi"],
                       "workers_s": split["seconds_workers"],
                       "read_state_s": sync_s,
                       "adopt_s": split["seconds_adopt"], "rest_s": rest,
                       "adopted_tokens_per_s": split["tokens_changed"] / split["seconds_adopt"],
                       "adopted_entries_per_s": split["count_changes"] / split["seconds_adopt"],
                       "assemble_phi_s": split["seconds_assemble_phi"],
                       "tables_s": split["seconds_tables"],
                       "sweep_s": split["seconds_sweep"],
                       "worker_tokens_per_s": (corpus.n_tokens / n_workers
                                               / split["seconds_sweep"]),
                       "identical_chain": same}
                rows.append(row)
                print({k: (round(v, 3) if isinstance(v, float) else v)
                       for k, v in row.items()}, flush=True)
        finally:
            client.close()
            cluster.close()
    shutil.rmtree(tmp, ignore_errors=True)
    df = pd.DataFrame(rows)
    df["burn_in"] = burn_in
    df.to_csv(out / "overhead.csv", index=False)
    pd.DataFrame([consts]).to_csv(out / "constants.csv", index=False)
    print(consts)
    write_readme(out, df, corpus, args, sweeps, consts)
    print(f"wrote {out}")
    return 0


def write_readme(out: Path, df: pd.DataFrame, corpus, args, sweeps: int,
                 consts: dict[str, float]) -> None:
    v = versions()
    import dask
    workers = sorted(df["workers"].unique())
    lines = [
        "# The partially collapsed sampler on Dask: overhead against threads",
        "",
        f"Generated {_dt.datetime.now().isoformat(timespec='seconds')} by "
        f"`python benchmarks/bench_dask.py{' ' + shlex.join(sys.argv[1:]) if sys.argv[1:] else ''}`"
        f" on {cpu_model()} ({os.cpu_count()} cores); Python {v['python']}, numba {v['numba']},"
        f" dask {dask.__version__}.",
        "",
        f"20 Newsgroups train: {corpus.n_docs} documents, {corpus.n_words} words, "
        f"{corpus.n_tokens} tokens. Threads: one process, 2 numba threads. Dask: a "
        f"LocalCluster of {' or '.join(map(str, workers))} worker processes x 1 thread, as "
        f"many partitions of the documents (on {os.cpu_count()} cores: more processes than "
        f"cores share them). Both go on from the same state after {int(df['burn_in'].iloc[0])} "
        f"sweeps on threads; median of {sweeps} sweeps after {WARMUP} warm-up sweeps; log "
        f"joint off.",
        "",
        "| model | K | workers | threads s/sweep | Dask s/sweep | overhead s | Dask / threads "
        "| Phi MB | sent MB/sweep | received MB/sweep | of which reply MB | between workers "
        "MB/sweep | to replicas MB/sweep | changed | count changes per changed token | Phi s "
        "| workers s | of which assemble Phi s | tables s | sweep s | adopt s | rest s | "
        "tokens/s per worker | first read s | same chain |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        "---|---|---|---|",
    ]
    for r in df.itertuples():
        lines.append(
            f"| {r.model} | {r.K} | {r.workers} | {r.threads_2_s_per_sweep:.3f} | "
            f"{r.dask_s_per_sweep:.3f} | {r.overhead_s:.3f} | {r.dask_over_threads:.2f} | "
            f"{r.phi_mb:.0f} | {r.sent_mb_per_sweep:.1f} | {r.received_mb_per_sweep:.1f} | "
            f"{r.reply_mb_per_sweep:.1f} | {r.between_workers_mb_per_sweep:.1f} | "
            f"{r.to_replicas_mb_per_sweep:.1f} | {100 * r.changed_share:.0f}% | "
            f"{r.count_changes_per_changed_token:.2f} | {r.phi_s:.3f} | {r.workers_s:.3f} | "
            f"{r.assemble_phi_s:.3f} | {r.tables_s:.3f} | {r.sweep_s:.3f} | "
            f"{r.adopt_s:.3f} | {r.rest_s:.3f} | {r.worker_tokens_per_s / 1e6:.2f} M | "
            f"{r.read_state_s:.3f} | {'yes' if r.identical_chain else 'NO'} |")
    lines += [
        "",
        "Phi is drawn on the workers, each the rows of a range of words. Sent: each "
        "worker's rows of n_wk (V x K int32 in all, once per sweep), plus each partition's "
        "inputs (the stream key, the weights and, for DOLDA, its documents' labels, "
        "augmentation and covariate scores). Received: the chunks' column sums of Phi and "
        "the *reply*: the sparse changes of n_wk (a (word, topic) index and an integer "
        "change, 12 bytes each; *count changes per changed token* how many a changed token "
        "costs, at most 2), one info row per document and, for DOLDA, the documents' "
        "features; never the tokens, whose topics stay on the workers. *Between "
        "workers*: the rows of Phi each worker fetches from the others (not through the "
        "Session's process). *To replicas*: the tokens that changed topic (position and "
        "topic, 6 bytes each), from the worker that swept a partition to the one keeping "
        "its replica. *changed*: the share of tokens that changed topic in the timed sweeps. "
        "*Phi s*: sending n_wk's rows, drawing them and adding the sums here; *workers s* "
        "the time from submitting the partitions' sweeps to having their results here "
        "(fetching the others' rows of Phi, assembling it, building the word tables, their "
        "sweep, the round trip), of which the slowest partition's *assemble Phi*, *tables* "
        "and *sweep* on its worker (*tokens/s per worker* is its tokens over *sweep s*); "
        "*adopt s* adding the count changes to the Session's counts (the kernel); *rest* is "
        "what the Session does here besides (the replies' bookkeeping, releasing the "
        "sweep's rows of Phi on the workers) and, as on threads, for DOLDA the weights, the "
        "augmentation and the prior. *first read s*: neither the topics nor the Session's "
        "Phi come back each sweep; the first read of the state after a sweep (a read-out, a "
        "checkpoint) fetches the topics from the workers (4 bytes a token) and draws Phi "
        "here from the same counts and key, the same bits (`Backend.sync`). The previous "
        "design, which adopted every changed token into a copy of the topics here, is "
        "`overhead_z_on_driver.csv`. The cost model for larger corpora is in "
        "docs/scaling.md.",
        "",
    ]
    big = df[(df["model"] == "LDA") & (df["K"] == consts["K"])
             & (df["workers"] == workers[0])].iloc[0]
    sweep_rate = big["worker_tokens_per_s"]
    lines += [
        f"Per core, one thread, V = {consts['V']}, K = {consts['K']} (constants.csv): Phi's "
        f"Gamma draws {consts['phi_draws_per_s_per_core'] / 1e6:.0f} million per second, "
        f"word-table entries {consts['table_entries_per_s_per_core'] / 1e6:.0f} million per "
        f"second ({consts['table_seconds_per_worker']:.3f} s for a worker's tables); a "
        f"worker's sweep {sweep_rate / 1e6:.2f} million tokens per second "
        f"({big['workers']} workers at once); adding the count changes here "
        f"{big['adopted_entries_per_s'] / 1e6:.0f} million entries per second, "
        f"{big['adopted_tokens_per_s'] / 1e6:.0f} million changed tokens' worth "
        f"({big['count_changes_per_changed_token']:.2f} entries a changed token; 2 threads).",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
