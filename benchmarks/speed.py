"""Every speed table of topicsup beside tomotopy, in one run: one command.

Run from the repository root with the project's virtualenv and the benchmark extra
(``pip install -e ".[bench]"``), on an otherwise idle machine (both cores)::

    python benchmarks/speed.py                        # every part (about 150 min)
    python benchmarks/speed.py --parts race,bias      # some parts
    python benchmarks/speed.py --sizes 1e6,1e7        # the scaling part on fewer sizes

The parts run one after another (never two at once: each measures time), each the benchmark
script that owns it, with its output under benchmarks/results/speed/<part>/; this script then
writes benchmarks/results/speed/README.md, the parts' tables in one page with the command,
the machine and each part's wall time. The parts:

* ``per-core``: collapsed Gibbs per core, the dense and the sparse exact kernel against
  tomotopy with 1 worker, K in {20, 100, 500, 1000} (``bench_samplers.py``);
* ``race``: the 2-core race, time to tomotopy-2's half-budget log joint per token at K in
  {20, 100, 500, 1000}: the exact chains (``gibbs``, ``sparse_gibbs`` on one core, the
  partially collapsed sampler on two) and the approximate partitioned sampler (labelled),
  beside tomotopy-1 and tomotopy-2 (``bench_parallel.py --parts lda``);
* ``race-seeds``: the race again on seeds 1-4 for the approximate chains (and the exact
  ``sparse_gibbs`` from K = 500), every seed's ratio and the median with the race's seed 0
  (``bench_race_seeds.py``);
* ``bias``: the partitioned sampler's and tomotopy's PARTITION scheme's bias against the
  enumerated posterior of a tiny corpus (``bench_partition_bias.py``);
* ``hyper``: learned alpha and beta against tomotopy's optimisation, held-out perplexity
  (``bench_hyper.py``);
* ``supervised``: DOLDA's, MedLDA's and gSLDA's 20-class accuracy against wall-clock time on
  2 cores at K in {20, 50, 100}, per topic sampler (``bench_supervised_time.py``);
* ``supervised-seed1``: the same on seed 1 (auto's supervised table is the mean of the two);
* ``scaling``: cost against corpus size on synthetic LDA corpora (``bench_scaling.py``);
* ``auto``: the cost model of ``sampler="auto"`` measured and fitted, from this run's race
  curves (``bench_auto.py``; it rewrites ``topicsup/samplers/_auto_costs.py``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "speed"
PARTS = ("per-core", "race", "race-seeds", "bias", "hyper", "supervised", "supervised-seed1",
         "scaling", "auto")
TITLES = {"per-core": "Collapsed Gibbs per core against tomotopy-1",
          "race": "The 2-core race against tomotopy-2",
          "race-seeds": "The 2-core race on five seeds",
          "bias": "The approximate partitioned mode's bias",
          "hyper": "Learned Dirichlet parameters",
          "supervised": "Supervised models: accuracy against wall-clock time",
          "supervised-seed1": "Supervised models: accuracy against wall-clock time, seed 1",
          "scaling": "Cost against corpus size",
          "auto": "The cost model of sampler=\"auto\""}


def commands(args) -> dict[str, list[str]]:
    py, b = sys.executable, "benchmarks/"
    rel = OUT.relative_to(ROOT)   # paths relative to the repository: they land in the READMEs
    data = ["--data", args.data] if args.data else []
    return {
        "per-core": [py, b + "bench_samplers.py", *data, "--samplers",
                     "gibbs,sparse_gibbs,tomotopy", "--ks", "20,100,500,1000", "--budget",
                     str(15 * args.budget_scale), "--out", str(rel / "per-core")],
        "race": [py, b + "bench_parallel.py", *data, "--parts", "lda", "--ks",
                 "20,100,500,1000", "--samplers",
                 "gibbs,sparse_gibbs,pc-sparse-2,part-sparse-2,part-dense-2,tomotopy-1",
                 "--out", str(rel / "race")],
        "race-seeds": [py, b + "bench_race_seeds.py", *data, "--seeds", "1,2,3,4", "--with",
                       str(rel / "race"), "--out", str(rel / "race_seeds")],
        "bias": [py, b + "bench_partition_bias.py", "--out", str(rel / "bias")],
        "hyper": [py, b + "bench_hyper.py", *data, "--out", str(rel / "hyper")],
        "supervised": [py, b + "bench_supervised_time.py", *data, "--out",
                       str(rel / "supervised"),
                       *(["--budget", str(20 * args.budget_scale)])],
        "supervised-seed1": [py, b + "bench_supervised_time.py", *data, "--seed", "1", "--out",
                             str(rel / "supervised_seed1"),
                             *(["--budget", str(20 * args.budget_scale)])],
        "scaling": [py, b + "bench_scaling.py", "--out", str(rel / "scaling"),
                    *(["--sizes", args.sizes] if args.sizes else []),
                    "--budget", str(20 * args.budget_scale)],
        "auto": [py, b + "bench_auto.py", *data, "--curves",
                 str(rel / "race" / "curves.csv"), "--supervised",
                 str(rel / "supervised" / "curves.csv"),
                 str(rel / "supervised_seed1" / "curves.csv")],
    }


# each part's page (its script's name for it)
PAGES = {"per-core": "per-core/samplers_throughput.md", "race-seeds": "race_seeds/README.md",
         "supervised-seed1": "supervised_seed1/README.md", "auto": "../auto/README.md"}


def _page(part: str) -> Path:
    return OUT / PAGES.get(part, f"{part}/README.md")


def _wall_times() -> dict[str, float]:
    """The wall times the last run's page recorded (for --readme-only)."""
    out: dict[str, float] = {}
    page = OUT / "README.md"
    for line in page.read_text().splitlines() if page.exists() else []:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0] in PARTS and cells[1].endswith(" min"):
            out[cells[0]] = 60 * float(cells[1].split()[0])
    return out


def readme(done: dict[str, float], argv: list[str], run: str = "") -> str:
    run = run or (f"`python {shlex.join(['benchmarks/speed.py', *argv])}`, "
                  f"{_dt.datetime.now().isoformat(timespec='seconds')}, {os.cpu_count()} cores.")
    out = ["# Speed: topicsup beside tomotopy, every table in one run", "", run, "",
           "| part | wall time | tables |", "|---|---:|---|"]
    for part in PARTS:
        if part in done:
            where = _page(part).resolve().relative_to(ROOT).as_posix()
            t = "run alone" if done[part] != done[part] else f"{done[part] / 60:.1f} min"
            out.append(f"| {part} | {t} | {where} |")
        else:
            out.append(f"| {part} | not run | |")
    for part in PARTS:
        src = _page(part)
        if part not in done or not src.exists():
            continue
        body = src.read_text().splitlines()
        body = [("##" + line if line.startswith("#") else line) for line in body]
        out += ["", f"## {TITLES[part]}", "", *body[1:]]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", type=lambda s: tuple(s.split(",")), default=PARTS)
    ap.add_argument("--data", help="20news-bydate.tar.gz (default: found as the loaders do)")
    ap.add_argument("--sizes", help="scaling: tokens N, e.g. 1e6,1e7 (default its own)")
    ap.add_argument("--budget-scale", type=float, default=1.0,
                    help="multiplies the per-core, supervised and scaling budgets")
    ap.add_argument("--readme-only", action="store_true",
                    help="rewrite the page from the parts' pages and the last run's times")
    args = ap.parse_args(argv)
    if args.readme_only:   # the run's own line kept: it says what ran, when
        page = OUT / "README.md"
        run = page.read_text().splitlines()[2] if page.exists() else ""
        times = {p: _wall_times().get(p, float("nan")) for p in PARTS if _page(p).exists()}
        page.write_text(readme(times, argv, run))
        return 0
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        ap.error(f"--parts: unknown {unknown}; choose from {list(PARTS)}")
    OUT.mkdir(parents=True, exist_ok=True)
    cmds, done = commands(args), {}
    for part in PARTS:
        if part not in args.parts:
            continue
        print(f"== {part}: {shlex.join(cmds[part])}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmds[part], cwd=ROOT)
        if rc != 0:
            print(f"== {part} failed (exit {rc}); the other parts go on", flush=True)
            continue
        done[part] = time.perf_counter() - t0
    (OUT / "README.md").write_text(readme(done, argv))
    print(f"wrote {OUT / 'README.md'}")
    return 0 if len(done) == len(args.parts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
