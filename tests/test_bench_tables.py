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


# ---------------------------------------------------------------------- the papers' scale
def test_the_paper_scale_generator_draws_what_it_says_small():
    """``bench_paper_scale.py``'s corpora at a few thousand documents: each document's topic
    counts add to its length and its words come from its topics' supports; the multi-label
    rule gives each class the frequency it was set to; the 240 classes have topic pairs of
    their own; the 240-class ceiling is the exact argmax of prior x Dirichlet density; the
    plateau is the first scoring within the tolerance of the best, with the lowest after it
    (a dip is reported) and no scorings after it while the score still rises."""
    import numpy as np
    from scipy import stats
    ps = _import("bench_paper_scale")
    rng = np.random.default_rng(0)
    K, V = ps.K_TRUE, 400
    phi = np.zeros((K, V))
    for k in range(K):   # each topic on 8 words of its own
        phi[k, 8 * k:8 * k + 8] = rng.dirichlet(np.ones(8))
    words, ptr, n_dk, theta = ps.draw_documents(phi, np.full((3000, K), 0.1), 3000, rng)
    assert np.array_equal(n_dk.sum(1), np.diff(ptr)) and words.size == ptr[-1]
    for d in (0, 1, 2999):
        own = words[ptr[d]:ptr[d + 1]]
        assert np.array_equal(np.bincount(own // 8, minlength=K), n_dk[d])
    assert np.allclose(theta.sum(1), 1.0)

    rule = ps.wiki_rule(rng, phi)
    _, _, n_dk, _ = ps.draw_documents(phi, np.full((20_000, K), 0.1), 20_000, rng)
    y, ceiling = ps.wiki_labels(rule, n_dk, rng)
    assert y.shape == (20_000, 20) and y.dtype == np.uint8
    assert np.allclose(y.mean(0), rule["freq"], atol=0.015)
    assert 0.5 < ps._score("wiki", y, ceiling) < 1.0   # the noise the words do not explain

    nyt = ps.nyt_rule(rng)
    assert nyt["alpha"].shape == (240, K) and len({tuple(np.flatnonzero(a > 0.1))
                                                   for a in nyt["alpha"]}) == 240
    theta = np.maximum(rng.dirichlet(nyt["alpha"][17], 5), 1e-12)   # scipy wants > 0
    brute = [int(np.argmax([np.log(nyt["prior"][c])
                            + stats.dirichlet.logpdf(t, nyt["alpha"][c]) for c in range(240)]))
             for t in theta / theta.sum(1, keepdims=True)]
    assert list(ps.nyt_bayes(nyt, theta / theta.sum(1, keepdims=True))) == brute

    curve = [{"sweep": 3 * (i + 1), "sampling_seconds": 10.0 * (i + 1), "score": s}
             for i, s in enumerate([0.1, 0.5, 0.705, 0.71, 0.712, 0.709])]
    got = ps.plateau(curve, 0.01)
    assert (got["plateau_sweep"], got["best"], got["scorings_after"]) == (9, 0.712, 3)
    curve[4]["score"], curve[5]["score"] = 0.69, 0.712   # a dip after it is reported
    got = ps.plateau(curve, 0.01)
    assert (got["plateau_sweep"], got["lowest_after"]) == (9, 0.69)
    rising = [dict(c, score=0.1 * i) for i, c in enumerate(curve)]   # no plateau yet
    assert ps.plateau(rising, 0.01)["scorings_after"] == 0
