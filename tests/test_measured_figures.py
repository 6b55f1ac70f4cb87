"""Figures in the docs are the committed benchmark results: each table or sentence quoted here
is read back from its page and compared with the result file the benchmark wrote, so a rerun
that changes a number fails until the page says the new one. Nothing is timed here."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _rows(page: Path, header: str) -> list[list[str]]:
    """The body rows of the Markdown table whose header row starts with ``header``."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _number(cell: str) -> float:
    return float(re.search(r"[-+]?\d[\d,]*\.?\d*", cell).group().replace(",", ""))


def _shown(cell: str, measured: float) -> None:
    """The first number in ``cell`` is ``measured`` rounded to the decimals it shows."""
    text = re.search(r"[-+]?\d[\d,]*\.?\d*", cell).group().replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert float(text) == round(measured, decimals), (cell, measured)


def test_the_checkpoint_page_quotes_the_checkpoint_benchmark():
    measured = pd.read_csv(RESULTS / "checkpoint" / "checkpoint.csv")
    rows = _rows(ROOT / "docs" / "checkpoints.md", "| documents | tokens | a sweep")
    assert len(rows) == len(measured)
    for row, m in zip(rows, measured.itertuples()):
        sweep, save, level6, autosave = row[2], row[3], row[4], row[5]
        _shown(sweep, m.sweep_seconds)
        _shown(save, m.save_seconds)
        _shown(save.split("(")[1], m.file_mb)
        _shown(level6, m.save_seconds_level6)
        _shown(level6.split("(")[1], m.file_mb_level6)
        _shown(autosave, 100 * (m.sweep_seconds_autosave / m.sweep_seconds - 1))


def _large() -> tuple[pd.DataFrame, pd.DataFrame]:
    steps = pd.read_csv(RESULTS / "large" / "large.csv")
    facts = pd.read_csv(RESULTS / "large" / "large_facts.csv")
    return steps, facts


def test_the_large_corpus_table_quotes_the_end_to_end_benchmark():
    steps, facts = _large()
    header = "| step | 10^5 documents"
    rows = _rows(ROOT / "docs" / "benchmarks.md", header)
    sizes = sorted(facts["size"])
    by = {(r.size, r.step): r for r in steps.itertuples()}
    assert {r[0] for r in rows} <= {s for s in steps["step"]}
    for row in rows:
        for j, size in enumerate(sizes):
            cell = row[1 + j]
            if cell == "-":
                assert (size, row[0]) not in by
                continue
            r = by[(size, row[0])]
            seconds, gb = cell.split("s,")
            _shown(seconds, r.seconds)
            _shown(gb, r.peak_gb)


def test_the_corpus_pages_speed_up_and_bytes_a_token_are_measured():
    steps, facts = _large()
    f = facts.set_index("size").loc[100_000]
    at = steps[steps["size"] == 100_000].set_index("step")
    speedup = at.loc["build, the old path", "seconds"] / at.loc["build, from_texts", "seconds"]
    per_token = ((at.loc["build, from_texts", "above_start_gb"] - f.corpus_gb) * 2**30
                 / f.tokens)
    text = (ROOT / "docs" / "corpora.md").read_text(encoding="utf-8")
    quoted = re.search(r"at (\d+\.\d) times the rate of\s+the path it replaced", text)
    assert quoted
    _shown(quoted.group(1), speedup)
    quoted = re.search(r"holding (\d+) bytes a token beyond the corpus's own arrays", text)
    assert quoted and int(quoted.group(1)) == round(per_token)
    old = ((at.loc["build, the old path", "above_start_gb"] - f.corpus_gb) * 2**30 / f.tokens)
    quoted = re.search(r"where that path\s+held (\d+)", text)
    assert quoted and int(quoted.group(1)) == round(old)
