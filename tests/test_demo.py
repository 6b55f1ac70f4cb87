"""The README's demo command and the bundled data's provenance."""

import json
import runpy
import sys
from pathlib import Path

from topicsup import demo

ROOT = Path(__file__).resolve().parents[1]


def test_demo_writes_a_report_with_chart_and_topics(tmp_path, capsys):
    out = demo.main(["--sweeps", "30", "--out", str(tmp_path / "r.html")])
    html = out.read_text()
    assert "Convergence" in html and "vega" in html.lower() and "top_words" in html
    assert "cdn.jsdelivr" not in html          # Vega libraries inlined: renders offline
    printed = capsys.readouterr().out
    assert "Report written to" in printed and str(out.resolve()) in printed


def test_bundled_demo_corpus_regenerates_bit_for_bit():
    """data/demo_corpus.jsonl is exactly what data/make_demo_corpus.py produces."""
    sys.path.insert(0, str(ROOT / "data"))
    try:
        mod = runpy.run_path(str(ROOT / "data" / "make_demo_corpus.py"))
    finally:
        sys.path.pop(0)
    lines = mod["export_lines"]()
    committed = (ROOT / "data" / "demo_corpus.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines == committed
    header = json.loads(committed[0])
    assert header["topic_names"][0] == "space"
