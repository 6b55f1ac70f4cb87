"""A real browser: JupyterLab on localhost, driven by Playwright in Debian's Chromium.

Opens the quickstart in a 1280-pixel-wide window (JupyterLab's default layout, file browser
open), runs it top to bottom, and checks that every dashboard control is whole within the
notebook's output area (label not cut, each slider with a track, nothing past the right
edge) and so are the charts; clicks Run and checks that the sweep counter advances while the
worker samples (several readings, each higher), that the charts render (Vega SVG with drawn
marks, with no internet: the Vega libraries are inlined), that a live change of the MH steps
is marked on the charts, that Pause stops the counter, and that no cell raised. A
screenshot is saved as an artifact (``$TOPICSUP_ARTIFACTS`` or ``reports/artifacts/``).
Skips, with the reason, only when no Chromium or no Playwright is found; ``.ci/run``
installs Chromium so CI runs it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from ..conftest import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("TOPICSUP_ARTIFACTS", ROOT / "reports" / "artifacts"))
TOKEN = "topicsup-test"
# how long to wait for JupyterLab, Chromium and the page before calling it a hang: every wait
# ends as soon as its condition holds, so this only bounds a hang and never judges speed
PATIENCE_S = 900
PATIENCE_MS = PATIENCE_S * 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def lab(tmp_path):
    """A JupyterLab server on localhost serving a copy of the notebooks, isolated settings."""
    root = tmp_path / "lab"
    shutil.copytree(ROOT / "notebooks", root)
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings")}
    # no "get notified about Jupyter news?" toast over the page (and no fetch attempt)
    news = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}",
         f"--ServerApp.root_dir={root}", "--expose-app-in-browser", "--allow-root",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + PATIENCE_S
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'lab.log').read_text()}")
                time.sleep(0.3)   # the pace of asking, not a limit
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


KERNEL_IDLE = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k && k.status === 'idle'; }"""

ALL_RUN = """() => { const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.widgets.filter(c => c.model.type === 'code');
  const k = w.sessionContext.session.kernel;
  return k.status === 'idle' && cells.every(c => c.model.executionCount !== null); }"""


@contextlib.contextmanager
def browser_page(chromium: str, height: int = 900) -> Iterator[Any]:
    """A page of headless Chromium (``chromium``: Debian's) at 1280 x ``height``, with the
    lab tests' patience for every action and wait; the browser closed at the end."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[test]')")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS,
                                    timeout=PATIENCE_MS)
        page = browser.new_page(viewport={"width": 1280, "height": height})
        page.set_default_timeout(PATIENCE_MS)   # every action and wait
        try:
            yield page
        finally:
            browser.close()


def open_and_run(page, lab: str, notebook: str) -> None:
    """Open ``notebook`` (in the lab's root) in JupyterLab, run every cell, wait until all
    have run, and fail on a traceback in any output."""
    page.goto(f"{lab}/lab/tree/{notebook}?token={TOKEN}")
    page.wait_for_function(KERNEL_IDLE)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_RUN, polling=500)
    errors = page.locator("[data-mime-type='application/vnd.jupyter.stderr']"
                          ":has-text('Traceback')")
    assert errors.count() == 0, errors.first.inner_text()


SWEEP = """() => { const s = document.querySelector('.topicsup-status');
  const m = s && /sweep (\\d+)/.exec(s.innerText); return m ? Number(m[1]) : -1; }"""

# the state the worker writes last, once it has stopped: "paused mid-sweep" or "idle"
STOPPED = """() => { const i = document.querySelector('.topicsup-status i');
  return i !== null && i.innerText !== 'running'; }"""


# every control of the dashboard, with what a user needs to see of it
CONTROLS = """() => {
  const d = document.querySelector('.topicsup-dashboard');
  const area = d.closest('.jp-OutputArea-output') || d.parentElement;
  const edge = area.getBoundingClientRect().right;
  const out = {edge: edge, controls: [], charts: []};
  d.querySelectorAll('.jupyter-button, .widget-inline-hbox:not(.widget-html), .widget-progress')
   .forEach(e => {
    const r = e.getBoundingClientRect();
    const label = e.querySelector(':scope > label');
    const track = e.querySelector('.slider-container');
    out.controls.push({text: (e.innerText || '').split('\\n')[0], left: r.left, right: r.right,
                       width: r.width, height: r.height,
                       labelCut: label ? label.scrollWidth > label.clientWidth + 1 : false,
                       track: track ? track.getBoundingClientRect().width : null});
  });
  d.querySelectorAll('.vega-embed svg').forEach(svg => {
    out.charts.push(svg.getBoundingClientRect().right);
  });
  return out; }"""


def _check_controls_visible(page) -> None:
    got = page.evaluate(CONTROLS)
    names = [c["text"] for c in got["controls"]]
    for needed in ("Run", "Pause", "Step", "sweeps", "per refresh", "MH steps", "composition",
                   "mix doc", "mix word", "mix exp", "label term"):
        assert needed in names, f"control {needed!r} missing: {names}"
    for c in got["controls"]:
        assert c["width"] > 20 and c["height"] > 10, f"{c['text']!r} is not drawn: {c}"
        assert c["right"] <= got["edge"] + 1, \
            f"{c['text']!r} runs past the output area ({c['right']} > {got['edge']})"
        assert not c["labelCut"], f"the label of {c['text']!r} is cut off"
        if c["track"] is not None:
            assert c["track"] >= 80, f"the slider {c['text']!r} has a {c['track']}px track"
    assert got["charts"] and max(got["charts"]) <= got["edge"] + 1, \
        f"a chart runs past the output area: {got['charts']} > {got['edge']}"


def _sweep(page) -> int:
    text = page.locator(".topicsup-status").first.inner_text()
    m = re.search(r"sweep (\d+)", text)
    assert m, f"no sweep counter in the status line: {text!r}"
    return int(m.group(1))


def test_quickstart_dashboard_runs_live_in_jupyterlab(lab, chromium):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser_page(chromium, 1000) as page:
        try:
            open_and_run(page, lab, "quickstart.ipynb")

            dash = page.locator(".topicsup-dashboard").first
            dash.scroll_into_view_if_needed()
            _check_controls_visible(page)
            dash.locator("input").first.fill("100000")      # sweeps: more than we will wait
            dash.locator("input").first.press("Enter")
            start = _sweep(page)
            dash.locator("button:has-text('Run')").click()
            readings, last = [], start
            for _ in range(4):   # each reading once the counter has passed the one before
                page.wait_for_function(f"() => ({SWEEP})() > {last}")
                last = _sweep(page)
                readings.append(last)
            assert readings[0] > start and all(b > a for a, b in zip(readings, readings[1:])), \
                f"the sweep counter did not advance live: {start} then {readings}"
            charts = dash.locator(".vega-embed svg")
            assert charts.count() >= 1, "the dashboard's charts did not render"
            box = charts.first.bounding_box()
            assert box and box["width"] > 300 and box["height"] > 150
            assert dash.locator(".vega-embed svg path").count() > 10, "charts have no marks"
            assert "acceptance doc" in page.locator(".topicsup-status").first.inner_text()
            rules = ("() => document.querySelectorAll('.topicsup-dashboard .vega-embed "
                     ".mark-rule line').length")
            before = page.evaluate(rules)    # the notebook's own change, one rule per chart
            steps = dash.locator(".widget-inline-hbox:has(label:text-is('MH steps')) input")
            steps.fill("4")                                  # a live change, while it runs
            steps.press("Enter")
            # a rule on each chart against sweeps
            page.wait_for_function(f"() => ({rules})() >= {before} + 3")
            assert "nan" not in page.locator(".topicsup-status").first.inner_text().lower()
            _check_controls_visible(page)
            page.screenshot(path=str(ARTIFACTS / "dashboard.png"))
            dash.locator("button:has-text('Pause')").click()
            # the worker's last status line says it stopped (it writes nothing after it),
            # and it disabled Pause before writing it
            page.wait_for_function(STOPPED)
            state = page.locator(".topicsup-status i").first.inner_text()
            assert state in ("paused mid-sweep", "idle"), f"not stopped after Pause: {state!r}"
            assert _sweep(page) >= readings[-1]
            assert "Pause" in dash.locator("button[disabled]").first.inner_text()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "dashboard-failure.png"), full_page=True)
            raise
