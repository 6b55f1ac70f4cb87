"""A real browser: JupyterLab on localhost, driven by Playwright in Debian's Chromium.

Opens the quickstart, runs it top to bottom, clicks Run on the dashboard and checks that the
sweep counter advances while the worker samples (several readings, each higher), that the
charts render (Vega SVG with drawn marks, with no internet: the Vega libraries are inlined),
that Pause stops the counter, and that no cell raised. A screenshot is saved as an artifact
(``$TOPICSUP_ARTIFACTS`` or ``reports/artifacts/``). Skips, with the reason, only when no
Chromium or no Playwright is found; ``.ci/run`` installs Chromium so CI runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ..conftest import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("TOPICSUP_ARTIFACTS", ROOT / "reports" / "artifacts"))
TOKEN = "topicsup-test"


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
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'lab.log').read_text()}")
                time.sleep(0.3)
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


def _sweep(page) -> int:
    text = page.locator(".topicsup-status").first.inner_text()
    m = re.search(r"sweep (\d+)", text)
    assert m, f"no sweep counter in the status line: {text!r}"
    return int(m.group(1))


def test_quickstart_dashboard_runs_live_in_jupyterlab(lab, chromium):
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[test]')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            page.goto(f"{lab}/lab/tree/quickstart.ipynb?token={TOKEN}")
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(ALL_RUN, timeout=600_000, polling=500)
            errors = page.locator("[data-mime-type='application/vnd.jupyter.stderr']"
                                  ":has-text('Traceback')")
            assert errors.count() == 0, errors.first.inner_text()

            dash = page.locator(".topicsup-dashboard").first
            dash.scroll_into_view_if_needed()
            dash.locator("input").first.fill("100000")      # sweeps: more than we will wait
            dash.locator("input").first.press("Enter")
            start = _sweep(page)
            dash.locator("button:has-text('Run')").click()
            readings = []
            for _ in range(4):
                time.sleep(1.5)
                readings.append(_sweep(page))
            assert readings[0] > start and all(b > a for a, b in zip(readings, readings[1:])), \
                f"the sweep counter did not advance live: {start} then {readings}"
            charts = dash.locator(".vega-embed svg")
            assert charts.count() >= 1, "the dashboard's charts did not render"
            box = charts.first.bounding_box()
            assert box and box["width"] > 300 and box["height"] > 150
            assert dash.locator(".vega-embed svg path").count() > 10, "charts have no marks"
            assert "acceptance doc" in page.locator(".topicsup-status").first.inner_text()
            page.screenshot(path=str(ARTIFACTS / "dashboard.png"))
            dash.locator("button:has-text('Pause')").click()
            time.sleep(1.0)
            paused = _sweep(page)
            time.sleep(1.5)
            assert _sweep(page) == paused, "the counter kept moving after Pause"
            assert "Pause" in dash.locator("button[disabled]").first.inner_text()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "dashboard-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
