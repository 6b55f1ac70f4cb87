"""The benchmark scripts' tables from their saved results: the race over seeds
(``bench_race_seeds.py``) and a larger corpus size appended to the scaling results
(``bench_scaling.py --append``). Pure functions of CSV files: nothing is timed here."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _import(name):
    # the scripts set NUMBA_NUM_THREADS for their own runs on import: not for this process's
    # children
    with mock.patch.dict(os.environ), mock.patch.object(sys, "path", [str(BENCH), *sys.path]):
        return importlib.import_module(name)


def _race(where: Path, seed: int, rows):
    where.mkdir(parents=True)
    pd.DataFrame(rows, columns=["K", "sampler", "target_ll_per_token",
                                "time_vs_tomotopy_2"]).to_csv(where / "lda.csv", index=False)
    command = "python benchmarks/bench_parallel.py --parts lda" + (
        f" --seed {seed}" if seed else "")
    (where / "lda.meta.json").write_text(json.dumps({"command": command}))


def test_the_race_over_seeds_reports_each_seed_and_a_median_that_counts_misses_as_losses(
        tmp_path, monkeypatch):
    rs = _import("bench_race_seeds")
    monkeypatch.setattr(rs, "ROOT", tmp_path)
    out = tmp_path / "seeds"
    level = -8.7
    _race(tmp_path / "race", 0, [(20, "part-dense-2", level, 1.25), (20, "gibbs", level, 2.0),
                                 (20, "tomotopy-2", level, 1.0)])
    _race(out / "seed1" / "k20-100", 1, [(20, "part-dense-2", level, 0.5),
                                         (20, "tomotopy-2", level, 1.0)])
    _race(out / "seed2" / "k20-100", 2, [(20, "part-dense-2", level, float("nan")),
                                         (20, "tomotopy-2", level, 1.0)])
    df = rs.collect(out, [tmp_path / "race"])
    assert sorted(df["seed"].unique()) == [0, 1, 2]
    md = rs.markdown(df, "cmd")
    row = next(line for line in md.splitlines() if line.startswith("| 20 | part-dense-2"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # seeds 0, 1, 2; the miss ('-') counts as losing: median of (1.25, 0.5, inf) is 1.25
    assert cells[2:] == ["1.25", "0.50", "-", "1.25", "1 of 3"], cells
    assert "(approximate)" in cells[1]
    assert "| 20 | gibbs" not in md     # the seed-0 run's other chains stay in its own table


def test_the_race_over_seeds_names_the_missing_results(tmp_path, monkeypatch):
    rs = _import("bench_race_seeds")
    monkeypatch.setattr(rs, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match="no race results"):
        rs.collect(tmp_path / "seeds", [tmp_path / "nowhere"])


def test_appending_a_size_keeps_the_earlier_sizes_and_recomputes_nothing_of_theirs(tmp_path):
    sc = _import("bench_scaling")
    src = BENCH / "results" / "speed" / "scaling"
    if not (src / "scaling.csv").exists():
        pytest.skip("no committed scaling results")
    for name in ("scaling.csv", "curves.csv", "corpora.csv", "meta.json"):
        (tmp_path / name).write_text((src / name).read_text())
    before = pd.read_csv(tmp_path / "scaling.csv")
    largest = int(before["N"].max())
    meta = {**json.loads((src / "meta.json").read_text()),
            "budgets": {sc.fmt_n(largest): 20.0}, "date": "later", "command": "python again",
            "notes": []}
    rows, traces, corpora, meta = sc.earlier_results(tmp_path, (largest,), meta)
    assert {r["N"] for r in rows} == set(before["N"]) - {largest}
    sc.write_outputs(tmp_path, rows, traces, corpora, meta)
    after = pd.read_csv(tmp_path / "scaling.csv")
    kept = before[before["N"] != largest].reset_index(drop=True)
    pd.testing.assert_frame_equal(after[kept.columns], kept, check_dtype=False)
    assert meta["command"].endswith("`, then `python again")
    with pytest.raises(SystemExit, match="no earlier results"):
        sc.earlier_results(tmp_path / "empty", (largest,), meta)
