"""The README's demo command and the bundled data's provenance."""

import contextlib
import io
import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from topicsup import demo

from .conftest import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
# at least: LDA's convergence and topic words; LightMedLDA's 5 supervised views besides
MIN_CHARTS = 2 + 7


def _charts(html: str) -> int:
    """The report's chart sections: every <h3> of a session but its Topics table and Run
    summary (so a view added to the table needs no change here)."""
    return html.count("<h3>") - 2 * html.count('<section class="session">')


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The demo's report (short runs) and what the demo printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        out = demo.main(["--sweeps", "30", "--supervised-sweeps", "15",
                         "--out", str(tmp_path_factory.mktemp("demo") / "r.html")])
    return out, printed.getvalue()


def test_demo_writes_a_report_with_the_views_of_both_models(report):
    out, printed = report
    html = out.read_text()
    assert "vega" in html.lower() and "top_words" in html
    assert "cdn.jsdelivr" not in html          # Vega libraries inlined: renders offline
    lda, supervised = html.split('<section class="session">')[1:]   # one per session
    assert "LDA, sampler gibbs" in lda and "LightMedLDA, supervised, sampler light" in supervised
    for heading in ("Convergence", "Topic words", "Topics", "Run"):
        assert f"<h3>{heading}</h3>" in lda and f"<h3>{heading}</h3>" in supervised
    for heading in ("Metropolis-Hastings acceptance", "Training score", "Coefficients",
                    "Weight traces", "Seconds per step"):   # Gibbs LDA: no proposals, weights
        assert f"<h3>{heading}</h3>" in supervised and heading not in lda
    for title in ("Metropolis-Hastings acceptance per proposal", "Classifier weights per class",
                  "Top words per topic", "Weight traces", "Score against sweep",
                  "Score against sampling seconds", "Seconds per sweep, by step"):
        assert title in supervised
    assert html.count('vegaEmbed("#chart-') == _charts(html) >= MIN_CHARTS   # all embedded...
    assert len(html) < 2_000_000                        # ...under one copy of the ~1 MB bundle
    assert "training accuracy after 15 sweeps" in printed
    assert "Report written to" in printed and str(out.resolve()) in printed


def test_demo_report_renders_every_chart_in_a_browser_without_network(report, chromium):
    # an unreachable proxy: any attempt to fetch a library from the internet fails
    # the page's time is virtual (its timers run out the budget, not the clock); the limit is
    # on Chromium itself, outside our control, and only bounds a hang
    dom = subprocess.run([chromium, "--headless", *CHROMIUM_ARGS,
                          "--proxy-server=http://127.0.0.1:9", "--virtual-time-budget=10000",
                          "--dump-dom", report[0].as_uri()],
                         capture_output=True, text=True, timeout=900, check=True).stdout
    assert dom.count('class="marks"') == _charts(report[0].read_text())   # each drawn as SVG


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


def readme_quickstart() -> str:
    """The README's quickstart: the first ```python block under "## Quickstart"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_readme_quickstart_needs_no_file_of_the_clone(tmp_path):
    """Issue 52, item 3: run where a wheel user runs it, outside the clone (the wheel ships no
    data/ folder; .ci/wheel runs it with the installed wheel too), it draws its corpus from
    the package, makes charts offline, and shows each chart it names."""
    code = readme_quickstart()
    assert "data/" not in code and "offline_charts()" in code
    assert code.count("display(views.") == code.count("views.") >= 2   # each chart shown
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("Chart") >= 2, done.stdout[-2000:]   # both charts displayed


def test_the_demo_frame_is_the_demo_corpus():
    from topicsup import Corpus
    from topicsup.datasets import load_demo_corpus, load_demo_frame
    df = load_demo_frame()
    corpus = load_demo_corpus().corpus
    assert list(df.columns) == ["tokens", "label"] and len(df) == corpus.n_docs
    again = Corpus.from_tokens(df["tokens"], labels=df["label"])
    assert again.n_tokens == corpus.n_tokens and set(again.labels.classes) == set(
        corpus.labels.classes)


def test_readme_quickstart_runs_verbatim_from_the_repository_root():
    """The quickstart is what a reader pastes in a clone: run as written, from the root."""
    code = readme_quickstart()
    assert "from topicsup import" in code and ".run(" in code
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "word_0" in done.stdout or "label" in done.stdout   # the topics table was printed
