"""The 2-core race on several seeds: is it won, or was one seed lucky?

Run from the repository root with the project's virtualenv, on an otherwise idle machine::

    python benchmarks/bench_race_seeds.py                       # seeds 1-4, about 45 min
    python benchmarks/bench_race_seeds.py --seeds 3,4 --ks 20,100
    python benchmarks/bench_race_seeds.py --readme-only         # the table from the CSV files

The race (``bench_parallel.py --parts lda``): time to reach the log joint per token tomotopy
with 2 workers reaches at half its budget, as a ratio to tomotopy-2's own time, on 20
Newsgroups. At K = 20 that level lies on a plateau where chains differ by which mode they
find, so one seed's ratio says little: this runs the race again per seed (each seed is
tomotopy's seed too, so its level moves with it) and reports every seed's ratio and their
median.

Per seed the race runs into ``<out>/seed<n>/k<K...>/`` (one ``bench_parallel.py`` run per
group of K with the chains that group races: the approximate partitioned chains at every K,
the exact ``sparse_gibbs`` from K = 500); ``--with DIR`` adds an earlier race's results
(``benchmarks/results/speed/race`` is seed 0 of ``speed.py``), its seed read from the
command in its ``lda.meta.json``. A seed directory whose ``lda.csv`` already holds the
group's chains is not run again (``--rerun`` to run it anyway). Writes ``<out>/README.md``
and ``<out>/race_seeds.csv``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "speed" / "race_seeds"
# K groups and the chains each races (tomotopy-2, the reference, always runs)
GROUPS = {(20, 100): ("part-dense-2", "part-sparse-2"),
          (500, 1000): ("sparse_gibbs", "part-sparse-2")}
APPROXIMATE = ("part-", "tomotopy-2")


def _seed_of(meta_path: Path) -> int:
    words = shlex.split(json.loads(meta_path.read_text())["command"])
    return int(words[words.index("--seed") + 1]) if "--seed" in words else 0


def _has(csv: Path, ks: tuple[int, ...], chains: tuple[str, ...]) -> bool:
    if not csv.exists():
        return False
    df = pd.read_csv(csv)
    return all(((df["K"] == K) & (df["sampler"] == c)).any() for K in ks for c in chains)


def run(seeds: list[int], ks: set[int], out: Path, data: str | None, rerun: bool) -> None:
    for seed in seeds:
        for group, chains in GROUPS.items():
            gks = tuple(K for K in group if K in ks)
            if not gks:
                continue
            where = out / f"seed{seed}" / ("k" + "-".join(map(str, gks)))
            if not rerun and _has(where / "lda.csv", gks, chains):
                print(f"seed {seed}, K {gks}: already in {where}", flush=True)
                continue
            rel = where.resolve().relative_to(ROOT)   # relative: it lands in the meta file
            cmd = [sys.executable, "benchmarks/bench_parallel.py", "--parts", "lda",
                   "--ks", ",".join(map(str, gks)), "--samplers", ",".join(chains),
                   "--seed", str(seed), "--out", str(rel), *(["--data", data] if data else [])]
            print("$", shlex.join(cmd[1:]), flush=True)
            subprocess.run(cmd, cwd=ROOT, check=True)


def collect(out: Path, extra: list[Path]) -> pd.DataFrame:
    frames = []
    for csv in sorted(out.glob("seed*/k*/lda.csv")) + [d / "lda.csv" for d in extra]:
        if not csv.exists():
            raise SystemExit(f"no race results in {csv.parent}")
        df = pd.read_csv(csv)
        df["seed"] = _seed_of(csv.parent / "lda.meta.json")
        df["source"] = csv.parent.resolve().relative_to(ROOT).as_posix()
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    # a (seed, K, chain) measured twice (seed 0 in --with and here): the later directory
    return df.drop_duplicates(["seed", "K", "sampler"], keep="last")


def label(chain: str) -> str:
    return f"{chain} (approximate)" if chain.startswith(APPROXIMATE) else chain


def markdown(df: pd.DataFrame, command: str) -> str:
    seeds = sorted(df["seed"].unique())
    out = ["# The 2-core race on several seeds", "",
           "Seconds to reach tomotopy-2's half-budget log joint per token, as a ratio to "
           "tomotopy-2's own time (below 1: sooner; '-': not reached within the budget, "
           "counted as losing in the median). Each seed is also tomotopy's seed, so the level "
           "moves with it. 20 Newsgroups train, alpha = 0.1, beta = 0.01, 2 cores; "
           "**approximate** chains are marked (their bias: benchmarks/results/speed/bias).",
           "", "| K | chain | " + " | ".join(f"seed {s}" for s in seeds)
           + " | median | won |", "|---:|---|" + "---:|" * len(seeds) + "---:|---|"]
    raced = {(K, c) for group, chains in GROUPS.items() for K in group for c in chains}
    for (K, chain), g in df.groupby(["K", "sampler"]):
        if (K, chain) not in raced:     # the seed-0 run's other chains: in its own table
            continue
        by_seed = dict(zip(g["seed"], g["time_vs_tomotopy_2"]))
        cells = [("-" if pd.isna(by_seed[s]) else f"{by_seed[s]:.2f}") if s in by_seed else ""
                 for s in seeds]
        ratios = pd.Series([by_seed[s] for s in seeds if s in by_seed]).fillna(float("inf"))
        med = ratios.median()
        won = f"{int((ratios <= 1).sum())} of {len(ratios)}"
        out.append(f"| {K} | {label(chain)} | " + " | ".join(cells)
                   + f" | {'-' if med == float('inf') else f'{med:.2f}'} | {won} |")
    levels = df[df["sampler"] == "tomotopy-2"].pivot(index="K", columns="seed",
                                                     values="target_ll_per_token")
    out += ["", "The level (tomotopy-2's log joint per token at half its budget) per seed:", "",
            "| K | " + " | ".join(f"seed {s}" for s in levels.columns) + " |",
            "|---:|" + "---:|" * len(levels.columns)]
    for K, row in levels.iterrows():
        out.append(f"| {K} | " + " | ".join("" if pd.isna(v) else f"{v:.4f}" for v in row)
                   + " |")
    out += ["", f"Command: `{command}`; the runs: "
            + ", ".join(sorted(f"`{s}`" for s in df["source"].unique())) + "."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1,2,3,4")
    ap.add_argument("--ks", default="20,100,500,1000")
    ap.add_argument("--with", dest="extra", action="append", type=Path, default=[],
                    help="an earlier race's directory (its lda.csv, lda.meta.json) to include")
    ap.add_argument("--data")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--rerun", action="store_true")
    ap.add_argument("--readme-only", action="store_true")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    if not args.readme_only:
        run([int(s) for s in args.seeds.split(",")], {int(k) for k in args.ks.split(",")},
            out, args.data, args.rerun)
    df = collect(out, args.extra)
    df.to_csv(out / "race_seeds.csv", index=False)
    command = shlex.join(["python", "benchmarks/bench_race_seeds.py", *(
        sys.argv[1:] if argv is None else argv)])
    md = markdown(df, command)
    (out / "README.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
