"""What a newcomer meets first, in real JupyterLab (Debian's Chromium through Playwright, 1280
px wide, the file browser open), with the internet cut off as on these machines (every
request but the lab's own is refused):

* the README's quickstart, pasted into a notebook as written, draws every chart it displays
  (an Altair chart whose Vega comes from a CDN draws nothing offline, "Error loading script");
* DOLDA's dashboard fits its output area before its first run and after a step, and shows the
  panels that mean something for its sampler (not the partially collapsed kernel's flat
  acceptance and sparse-draw shares);
* Step clicked right after Pause, while the paused run winds down, runs its sweep.

Every output gets the notebooks' checks (``output_problems``: past or clipped, a label cut, a
chart not drawn, a red box, a NaN from the kernel). Issue 52, items 1, 2 and 6.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ..test_demo import readme_quickstart
from .test_browser import (ARTIFACTS, STOPPED, SWEEP, KernelMessages,  # noqa: F401
                           browser_page, lab, lab_root, output_problems, run_all)

KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                             "language": "python"}}
DEMO = """from topicsup import Corpus, Session, DOLDA, LightMedLDA
from topicsup.datasets import load_demo_frame
from topicsup.widgets import Dashboard, offline_charts
offline_charts()
df = load_demo_frame()
corpus = Corpus.from_tokens(df["tokens"], labels=df["label"])
"""


STEP_ENABLED = """() => [...document.querySelectorAll('.topicsup-dashboard button')]
  .some(b => b.innerText.includes('Step') && !b.disabled)"""


def _notebook(root: Path, name: str, *cells: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells],
                                  metadata=KERNELSPEC)
    nbformat.write(nb, root / name)
    return name


def _offline(page) -> list[str]:
    """Refuse every request that leaves the lab's host (the page's record of them)."""
    refused: list[str] = []

    def route(r) -> None:
        if r.request.url.startswith("http://127.0.0.1"):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    return refused


def _problems(page, kernel, name: str) -> list[str]:
    problems = output_problems(page, kernel)
    page.screenshot(path=str(ARTIFACTS / f"newcomer-{name}.png"), full_page=True)
    return problems


def test_readme_quickstart_draws_every_chart_offline(lab, chromium, tmp_path):
    code = readme_quickstart()
    shown = code.count("display(")
    assert shown >= 2, "the quickstart displays its charts (the heatmap and the log joint)"
    name = _notebook(lab_root(tmp_path), "readme_quickstart.ipynb", code)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser_page(chromium, 1400) as page:
        refused = _offline(page)
        kernel = KernelMessages(page)
        run_all(page, lab, name)
        problems = _problems(page, kernel, "readme-quickstart")
        drawn = page.evaluate("""() => [...document.querySelectorAll(
            '.jp-OutputArea-output .vega-embed')].filter(e => { const g = e.querySelector(
            'svg.marks, canvas.marks'); return g && g.getBoundingClientRect().width > 0; })
            .length""")
        text = page.evaluate("() => document.querySelector('.jp-Notebook').innerText")
    assert not problems, "\n".join(problems)
    assert "Error loading script" not in text, text[:3000]
    assert drawn == shown, (f"the quickstart displays {shown} charts, {drawn} drew offline "
                            f"(requests refused: {refused[:5]})")


def test_dolda_dashboard_fits_and_shows_the_panels_of_its_sampler(lab, chromium, tmp_path):
    name = _notebook(lab_root(tmp_path), "dolda.ipynb",
                     DEMO + "dash = Dashboard(Session(DOLDA(K=6), corpus, seed=0))\ndash")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    titles = """() => [...document.querySelectorAll(
        '.topicsup-dashboard .vega-embed svg .role-title-text')].map(t => t.textContent)"""
    with browser_page(chromium, 1000) as page:
        _offline(page)
        kernel = KernelMessages(page)
        run_all(page, lab, name)
        before = _problems(page, kernel, "dolda-before")   # 897 px in 848 px before the fix
        first = page.evaluate(titles)
        dash = page.locator(".topicsup-dashboard").first
        dash.locator("button:has-text('Step')").click()
        page.wait_for_function(f"() => ({SWEEP})() >= 1 && ({STOPPED})()")
        page.wait_for_function("""() => [...document.querySelectorAll(
            '.topicsup-dashboard .vega-embed svg')].every(s => !s.textContent.includes(
            'first sweep') && !s.textContent.includes('compiling'))""")
        after = _problems(page, kernel, "dolda-after-step")
        then = page.evaluate(titles)
    assert not before, "before the first run:\n" + "\n".join(before)
    assert not after, "after a step:\n" + "\n".join(after)
    for seen in (first, then):
        assert any("log joint" in t for t in seen) and not any("acceptance" in t or "sparse draws" in t
                                               for t in seen), seen


def test_step_right_after_pause_runs_its_sweep(lab, chromium, tmp_path):
    name = _notebook(lab_root(tmp_path), "pause_step.ipynb",
                     DEMO + "dash = Dashboard(Session(LightMedLDA(K=4), corpus, seed=0), "
                            "sweeps=100000, pace=20)\ndash")
    with browser_page(chromium, 1000) as page:
        _offline(page)
        kernel = KernelMessages(page)
        run_all(page, lab, name)
        dash = page.locator(".topicsup-dashboard").first
        dash.locator("button:has-text('Run')").click()
        page.wait_for_function(f"() => ({SWEEP})() >= 3")
        dash.locator("button:has-text('Pause')").click()
        # the first moment Step can be clicked (the run winding down, or done): the counter
        # then, and one sweep more once the click has run (before the fix, the buttons came
        # back while the worker still drew, and a click then did nothing)
        page.wait_for_function(STEP_ENABLED, polling="raf")
        paused = page.evaluate(SWEEP)
        dash.locator("button:has-text('Step')").click()
        page.wait_for_function(f"() => ({SWEEP})() === {paused} + 1 && ({STOPPED})() "
                               f"&& ({STEP_ENABLED})()")
        problems = _problems(page, kernel, "pause-step")
    assert not problems, "\n".join(problems)
