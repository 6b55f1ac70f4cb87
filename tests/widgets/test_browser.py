"""A real browser: JupyterLab on localhost, driven by Playwright in Debian's Chromium.

Opens the quickstart in a 1280-pixel-wide window (JupyterLab's default layout, file browser
open), runs it top to bottom, and checks that every dashboard control is whole within the
notebook's output area (label not cut, each slider with a track, nothing past the right
edge) and so are the charts; clicks Run and checks that the sweep counter advances while the
worker samples (several readings, each higher), that the charts render (Vega SVG with drawn
marks, with no internet: the Vega libraries are inlined), that a live change of the MH steps
is marked on the charts, that Pause stops the counter, and that no cell raised. This is the
quickstart's one run: every output of it gets the checks of tests/widgets/test_notebooks_browser.py
(``output_problems``: fits its output area, no stderr, no NaN sent), and the whole notebook is
screenshot too. Screenshots are saved as artifacts (``$TOPICSUP_ARTIFACTS`` or
``reports/artifacts/``). Once it has run (checks passed or not), the notebook is saved in
JupyterLab (File > Save Notebook) with its outputs and its widgets' state, and the saved file
is kept as ``executed/quickstart.ipynb`` in the artifacts (``save_executed``; every other
notebook's by tests/widgets/test_notebooks_browser.py): the documentation site renders these
executed copies as they are, without running them again. Just before the save, each output
holding a widget other than a chart (the dashboard, a progress bar) is screenshot as drawn,
into ``executed/quickstart/cell-<index>.png`` (``screenshot_widgets``): the site shows these
pictures in place of widgets it cannot draw without a kernel. They are artifacts, never
committed.
Skips, with the reason, only when no Chromium or no Playwright is found; ``.ci/run``
installs Chromium so CI runs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Iterator

import pytest

from ..conftest import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("TOPICSUP_ARTIFACTS", ROOT / "reports" / "artifacts"))
# each notebook as saved in JupyterLab after its run, outputs and widget state in it
# (``save_executed``): what the documentation site renders
EXECUTED = ARTIFACTS / "executed"
TOKEN = "topicsup-test"
# how long to wait for JupyterLab, Chromium and the page before calling it a hang: every wait
# ends as soon as its condition holds, so this only bounds a hang and never judges speed
PATIENCE_S = 900
PATIENCE_MS = PATIENCE_S * 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_root(tmp_path: Path) -> Path:
    """The folder the ``lab`` fixture's JupyterLab serves (a copy of notebooks/), given the
    test's ``tmp_path``: where a notebook saved in JupyterLab is written."""
    return tmp_path / "lab"


@pytest.fixture()
def lab(tmp_path):
    """A JupyterLab server on localhost serving a copy of the notebooks (in
    ``lab_root(tmp_path)``), isolated settings."""
    root = lab_root(tmp_path)
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
    # every cell attached and laid out, on screen or not (JupyterLab's default skips the
    # rendering of cells out of view): the checks measure every output, and a screenshot of
    # the whole notebook shows them all
    tracker = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    # a notebook saved in the lab keeps its widgets' state (ipywidgets' setting, off by
    # default), so the executed copies show the widgets without a kernel; and only the tests
    # save (no autosave every two minutes: the saved file is the one save_executed asked for)
    widgets = tmp_path / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
    widgets.mkdir(parents=True)
    (widgets / "plugin.jupyterlab-settings").write_text('{"saveState": true}')
    docmanager = tmp_path / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": false}')
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

# every code cell has run, or one raised (run-all then cancels the cells after it, which never
# run: waiting for them would wait for ever)
ALL_RUN = """() => { const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.widgets.filter(c => c.model.type === 'code');
  const k = w.sessionContext.session.kernel;
  const raised = cells.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'));
  return k.status === 'idle' && (raised || cells.every(c => c.model.executionCount !== null)); }"""


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


def run_all(page, lab: str, notebook: str) -> None:
    """Open ``notebook`` (in the lab's root) in JupyterLab, run every cell and wait until all
    have run (or one raised, which stops the run)."""
    page.goto(f"{lab}/lab/tree/{notebook}?token={TOKEN}")
    page.wait_for_function(KERNEL_IDLE)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_RUN, polling=500)


def open_and_run(page, lab: str, notebook: str) -> None:
    """``run_all``, and fail on a traceback in any output."""
    run_all(page, lab, notebook)
    errors = page.locator("[data-mime-type='application/vnd.jupyter.stderr']"
                          ":has-text('Traceback')")
    assert errors.count() == 0, errors.first.inner_text()


# ---------------------------------------------------------- what a student sees of each output
# Shared by the quickstart's test here and tests/widgets/test_notebooks_browser.py: every
# output of every cell, as JupyterLab drew it.

def _json_parts(payload: str | bytes) -> list[str]:
    """The JSON texts of one websocket frame from the server: the whole frame in the legacy
    text protocol; header, parent header, metadata and content in the binary protocol
    (v1.kernel.websocket.jupyter.org: a count, 64-bit offsets, the channel, the parts, then
    buffers, which are not JSON and are left out) or in the legacy binary one (32-bit big-endian
    count and offsets, the message's JSON first)."""
    if isinstance(payload, str):
        return [payload]
    n = int.from_bytes(payload[:8], "little")
    offsets = [int.from_bytes(payload[8 * (i + 1):8 * (i + 2)], "little") for i in range(n)]
    if 2 < n < 1000 and offsets[0] == 8 * (n + 1) and offsets == sorted(offsets) \
            and offsets[-1] <= len(payload):
        offsets.append(len(payload))
        return [payload[a:b].decode("utf-8", "replace")
                for a, b in zip(offsets[1:5], offsets[2:6])]
    n = int.from_bytes(payload[:4], "big")
    start = int.from_bytes(payload[4:8], "big")
    end = int.from_bytes(payload[8:12], "big") if n > 1 else len(payload)
    return [payload[start:end].decode("utf-8", "replace")]


def _not_json(token: str) -> Any:
    raise ValueError(token)


class KernelMessages:
    """Every frame the server sends the page on a kernel's websocket (the kernel's messages,
    comm messages with the charts' specs among them), checked as it arrives: JSON has no NaN
    or Infinity, so a bare ``NaN``/``Infinity`` token there is a message the browser cannot
    read (the kernel itself refuses most such messages, with a "Message serialization
    failed" warning on stderr, which the stderr check catches). Listening starts with the
    instance, so make it before the page opens the notebook."""

    def __init__(self, page: Any) -> None:
        self.frames = 0
        self.bad: list[str] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        if "/api/kernels/" in ws.url:
            ws.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        self.frames += 1
        for text in _json_parts(payload):
            if not text:
                continue
            try:
                json.loads(text, parse_constant=_not_json)
            except ValueError as exc:
                where = max(text.find("NaN"), text.find("Infinity"), 0)
                self.bad.append(f"{exc}: ...{text[max(where - 200, 0):where + 100]}...")


# each output of each code cell: its kind, what runs past the output area's right edge or is
# clipped inside it, widgets' labels cut, charts not drawn, and its text (stderr's, errors')
OUTPUTS = """() => {
  const nb = window.jupyterapp.shell.currentWidget;
  const name = e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
    ? '.' + String(e.className).trim().split(/\\s+/).slice(0, 2).join('.') : '');
  const out = [];
  nb.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const model = cell.model.outputs.toJSON();
    cell.node.querySelectorAll('.jp-OutputArea-output').forEach(area => {
      const box = area.getBoundingClientRect();
      const mime = area.getAttribute('data-mime-type') || '';
      const chart = area.querySelector('.vega-embed') !== null;
      const widget = mime.includes('widget-view') || area.querySelector('.jupyter-widgets');
      const past = [], clipped = [], cut = [], undrawn = [];
      if (chart || widget) {
        area.querySelectorAll('.vega-embed, .vega-embed svg, .vega-embed canvas, .jupyter-widgets,'
            + ' .widget-inline-hbox, .jupyter-button, .widget-progress, .widget-html, svg, canvas')
          .forEach(e => { const r = e.getBoundingClientRect();
            if (r.width > 0 && r.right > box.right + 1)
              past.push(name(e) + ' right ' + Math.round(r.right) + ' > ' + Math.round(box.right)); });
        area.querySelectorAll('*').forEach(e => {
          if (!(e instanceof HTMLElement) || e.clientWidth === 0) return;
          const ov = getComputedStyle(e).overflowX;
          if (ov !== 'visible' && e.scrollWidth > e.clientWidth + 1 && !e.matches('label, .widget-label'))
            clipped.push(name(e) + ' ' + e.scrollWidth + ' > ' + e.clientWidth);
        });
        area.querySelectorAll('label, .widget-label').forEach(e => {
          if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) cut.push(e.textContent); });
        area.querySelectorAll('.vega-embed').forEach(e => {
          const g = e.querySelector('svg.marks, canvas.marks, svg, canvas');
          if (!g || g.getBoundingClientRect().width === 0) undrawn.push(name(e)); });
      }
      out.push({cell: index, mime: mime, chart: chart, widget: Boolean(widget),
                right: box.right, width: box.width, scroll: area.scrollWidth - area.clientWidth,
                past: past, clipped: clipped, cut: cut, undrawn: undrawn,
                text: area.innerText.slice(0, 2000)});
    });
    model.filter(o => o.output_type === 'error').forEach(o => out.push(
      {cell: index, mime: 'error', error: o.ename + ': ' + o.evalue,
       text: (o.traceback || []).join('\\n').replace(/\\x1b\\[[0-9;]*m/g, '').slice(-3000)}));
  });
  return out; }"""

# the outputs' layout once every chart has drawn: unchanged between two readings, every
# chart with its marks, every widget's view in place
LAYOUT = """() => { const nb = window.jupyterapp.shell.currentWidget.node;
  const embeds = [...nb.querySelectorAll('.vega-embed')];
  const drawn = embeds.every(e => { const g = e.querySelector('svg, canvas');
    return g && g.getBoundingClientRect().width > 0; });
  // JupyterLab gives a widget view's output area no data-mime-type: find it by its view
  const views = [...nb.querySelectorAll('.jp-OutputArea-output')].filter(
    o => o.querySelector('.jupyter-widgets'));
  const shown = views.every(v => v.getBoundingClientRect().height > 0);
  const sizes = [...nb.querySelectorAll('.jp-OutputArea-output')].map(o => {
    const r = o.getBoundingClientRect(); return [r.width, r.height, o.scrollWidth].join(','); });
  return drawn && shown ? embeds.length + '|' + sizes.join(';') : null; }"""

STDERR = "application/vnd.jupyter.stderr"

# ids defined in more than one chart's SVG: a reference to one (url(#gradient_0), a colour
# legend's gradient) resolves to the first in the page, so a later chart shows an earlier
# chart's colours (each chart widget runs its own copy of Vega, which numbers from 0)
SHARED_IDS = """() => { const where = {};
  document.querySelectorAll('.jp-OutputArea-output svg [id]').forEach(e => {
    const cell = e.closest('.jp-Cell'); const i = [...cell.parentNode.children].indexOf(cell);
    (where[e.id] = where[e.id] || []).push(i); });
  return Object.entries(where).filter(([id, cells]) => cells.length > 1); }"""


def wait_for_outputs(page) -> None:
    """Wait until the outputs are drawn and their layout has settled (two readings half a
    second apart agree: the pace of asking, the wait itself ends when they do)."""
    last = None
    while True:
        page.wait_for_function(f"() => ({LAYOUT})() !== null")
        now = page.evaluate(LAYOUT)
        if now == last:
            return
        last = now
        page.wait_for_timeout(500)


def output_problems(page, kernel: KernelMessages, allowed_stderr: dict[str, str] | None = None
                    ) -> list[str]:
    """Everything wrong with the notebook's outputs as drawn: a chart or widget running past
    its output area's right edge or clipped inside it (or with a label cut, or a chart not
    drawn, or not drawn at all because its Vega could not be loaded), any stderr output (a red
    box to a student; ``allowed_stderr``: a pattern each that a justified one matches, with the
    reason), an error, an SVG id two charts define, a NaN or Infinity in a message from the
    kernel; [] when none."""
    wait_for_outputs(page)
    problems = []
    outputs = page.evaluate(OUTPUTS)
    raised = {o["cell"] for o in outputs if o["mime"] == "error"}
    for o in outputs:
        where = f"cell {o['cell']}"
        if o["mime"] == "error":
            problems.append(f"{where} raised {o['error']}\n{o['text']}")
            continue
        if o["mime"] == STDERR:
            if o["cell"] in raised and "Traceback" in o["text"]:
                continue   # the error's own red box: reported above with its traceback
            if not any(re.search(p, o["text"]) for p in (allowed_stderr or {})):
                problems.append(f"{where}: stderr (a red box): {o['text'][:1500]!r}")
            continue
        if "Error loading script" in o["text"]:
            # Altair's HTML output when Vega cannot be fetched (no internet and no
            # offline_charts()): no .vega-embed is made, so the checks below never see it
            problems.append(f"{where}: a chart that did not draw, its Vega not loaded: "
                            f"{o['text'][:300]!r}")
            continue
        if o["chart"] or o["widget"]:
            what = "chart" if o["chart"] else "widget"
            where += f" (an output area {o['width']:.0f} px wide)"
            if o["scroll"] > 1:
                problems.append(f"{where}: the {what}'s output area scrolls: {o['scroll']} px "
                                f"wider than it is")
            for key, says in (("past", "runs past the output area"),
                              ("clipped", "clipped inside it"), ("cut", "label cut"),
                              ("undrawn", "not drawn")):
                if o[key]:
                    problems.append(f"{where}: {what} {says}: {o[key][:5]}")
    for id_, cells in page.evaluate(SHARED_IDS):
        problems.append(f"the SVG id {id_!r} is defined by the charts of several outputs "
                        f"(cells {cells}, counted with markdown cells): every chart after the "
                        f"first draws with the first one's (a colour legend with another "
                        f"chart's gradient)")
    if kernel.frames == 0:
        problems.append("no websocket frame from the kernel was seen: the NaN check saw nothing")
    problems += [f"a message from the kernel is not JSON: {b}" for b in kernel.bad]
    return problems


# the notebook's scrolling element, scrolled to the top: how much more it holds than it shows
SCROLL_TOP = """() => { const s = [...window.jupyterapp.shell.currentWidget.node.querySelectorAll('*')]
  .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowY))
  .sort((a, b) => (b.scrollHeight - b.clientHeight) - (a.scrollHeight - a.clientHeight))[0];
  if (!s) return 0; s.scrollTop = 0; return s.scrollHeight - s.clientHeight; }"""


@contextlib.contextmanager
def whole_notebook_in_view(page) -> Iterator[None]:
    """The window made as tall as the notebook (its width stays: the layout across is the one
    checked), scrolled to the top, then back to its height: every output on screen whole."""
    size = page.viewport_size
    extra = page.evaluate(SCROLL_TOP)
    try:
        page.set_viewport_size({"width": size["width"], "height": size["height"] + extra})
        page.evaluate(SCROLL_TOP)
        page.wait_for_timeout(300)   # a frame or two for the resize to paint
        yield
    finally:
        page.set_viewport_size(size)


def screenshot_notebook(page, name: str) -> Path:
    """A screenshot of the whole notebook, ARTIFACTS/notebook-``name``.png (and a copy in
    ``$TOPICSUP_SCREENSHOTS`` when set), taken in ``whole_notebook_in_view``."""
    path = ARTIFACTS / f"notebook-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    with whole_notebook_in_view(page):
        page.screenshot(path=str(path))
    if os.environ.get("TOPICSUP_SCREENSHOTS"):
        copy = Path(os.environ["TOPICSUP_SCREENSHOTS"])
        copy.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy / path.name)
    return path


# from before a save is asked for until it is over: "completed", "failed" or null (not yet)
WATCH_SAVE = """() => { const context = window.jupyterapp.shell.currentWidget.context;
  window.topicsupSaved = null;
  context.saveState.connect((_, state) => {
    if (state === 'completed' || state === 'failed') window.topicsupSaved = state; }); }"""


# the output areas of the open notebook that show a widget other than a chart (a box of
# controls, a progress bar, the dashboard, the inspector: ipywidgets' own views, classed
# widget-*; a chart widget draws only its .vega-embed, which the site draws from its spec),
# each marked with its picture's name: cell-<i> for the first widget view (an output with
# the widget-view mimetype, in the cell's model: JupyterLab gives the view's area no
# data-mime-type) of the cell whose index among all cells (markdown too, as in the .ipynb)
# is i, cell-<i>-<n> for its n-th; and the cells whose outputs and drawn output areas differ
# in number (not pictured)
WIDGET_AREAS = """() => {
  const names = [], odd = [];
  document.querySelectorAll('[data-topicsup-picture]').forEach(
    e => e.removeAttribute('data-topicsup-picture'));
  window.jupyterapp.shell.currentWidget.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const outs = cell.model.outputs.toJSON();
    const children = cell.outputArea.widgets;
    if (children.length !== outs.length) { odd.push(index); return; }
    let n = 0;
    outs.forEach((o, i) => {
      if (!(o.data && o.data['application/vnd.jupyter.widget-view+json'])) return;
      const name = n === 0 ? 'cell-' + index : 'cell-' + index + '-' + n;
      n += 1;
      const area = children[i].node.querySelector('.jp-OutputArea-output');
      if (!area || !area.querySelector('.widget-container, .widget-inline-hbox, .widget-html, '
          + '.widget-progress, .widget-output, .widget-label, .jupyter-button')) return;
      area.setAttribute('data-topicsup-picture', name);
      names.push(name);
    });
  });
  return {names: names, odd: odd}; }"""


def screenshot_widgets(page, stem: str) -> list[Path]:
    """A picture of each output area of the open notebook that shows a widget other than a
    chart (``WIDGET_AREAS``), as drawn: EXECUTED/``stem``/cell-<index>.png (the folder removed
    first, so no picture of a run before survives; none made when there is no such widget), each taken in ``whole_notebook_in_view``
    (an output taller than the window is whole). docs/build.py shows them in place of the
    widgets. The pictures' paths."""
    folder = EXECUTED / stem
    shutil.rmtree(folder, ignore_errors=True)
    found = page.evaluate(WIDGET_AREAS)
    names = found["names"]
    if found["odd"]:
        warnings.warn(f"no picture of the widgets of cells {found['odd']} of {stem}: their "
                      f"outputs and their drawn output areas differ in number")
    paths = []
    if names:
        folder.mkdir(parents=True)
        with whole_notebook_in_view(page):
            for name in names:
                path = folder / f"{name}.png"
                page.locator(f"[data-topicsup-picture='{name}']").screenshot(path=str(path))
                paths.append(path)
    return paths


def save_executed(page, root: Path, notebook: str) -> Path:
    """Save the open ``notebook`` in JupyterLab as a user would (File > Save Notebook): its
    outputs and, with the lab's ``saveState`` setting, its widgets' state go into the file in
    the lab's ``root``; wait until JupyterLab says the save is over (its context's saveState
    signal) and the file on disk has changed, check that it holds outputs, and copy it to
    EXECUTED/``notebook`` (replacing the copy of a run before). Just before the save, its
    widgets are screenshot (``screenshot_widgets``), and each picture's cell is checked to
    hold a widget view in the saved file (the cell indices agree). The copy's path."""
    # a notebook in a folder of notebooks/ (the course's) keeps it: executed/course/...
    pictures = screenshot_widgets(page, Path(notebook).with_suffix("").as_posix())
    path = root / notebook
    before = path.stat().st_mtime_ns
    page.evaluate(WATCH_SAVE)
    page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-item[data-command='docmanager:save']").click()
    page.wait_for_function("() => window.topicsupSaved !== null")
    state = page.evaluate("() => window.topicsupSaved")
    assert state == "completed", f"JupyterLab could not save {notebook}: {state}"
    assert path.stat().st_mtime_ns != before, f"{path} is unchanged after JupyterLab saved it"
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert any(cell.get("outputs") for cell in saved["cells"]), \
        f"{notebook} as saved in JupyterLab has no outputs"
    for picture in pictures:          # cell-<index>[-<n>]: the cell's n-th widget view
        index, n = (int(x) for x in (picture.stem.split("-")[1:] + ["0"])[:2])
        views = [o for o in saved["cells"][index].get("outputs", [])
                 if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert len(views) > n, \
            f"{picture} is of cell {index}, which has {len(views)} widget views in {path}"
    copy = EXECUTED / notebook
    copy.parent.mkdir(parents=True, exist_ok=True)
    part = copy.with_name(copy.name + ".part")   # never half a file under the real name
    shutil.copyfile(path, part)
    os.replace(part, copy)
    return copy


def keep_executed(page, root: Path, notebook: str) -> None:
    """``save_executed`` for a test that has failed: the executed copy helps see why, but its
    own failure (a page in no state to save) must not hide the test's, so it is only a
    warning, and its waits are a minute rather than the lab tests' patience."""
    try:
        page.set_default_timeout(60_000)
        save_executed(page, root, notebook)
    except Exception as exc:   # noqa: BLE001 - reported, and the test's own failure raised
        warnings.warn(f"{notebook} was not saved after the failure: {exc!r}")
    finally:
        with contextlib.suppress(Exception):
            page.set_default_timeout(PATIENCE_MS)


def forget_executed(notebook: str) -> None:
    """Remove the executed copy of ``notebook`` left by a run before, and its widgets'
    pictures, so that a run that saves none leaves none (rather than an older one the site
    would render)."""
    (EXECUTED / notebook).unlink(missing_ok=True)
    shutil.rmtree(EXECUTED / Path(notebook).with_suffix(""), ignore_errors=True)


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
    for needed in ("Run", "Pause", "Step", "sweeps", "per refresh", "pace", "slow motion", "show",
                   "MH steps", "composition", "use doc", "use word", "use exp", "label term"):
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


def test_quickstart_dashboard_runs_live_in_jupyterlab(lab, chromium, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    forget_executed("quickstart.ipynb")
    with browser_page(chromium, 1000) as page:
        try:
            kernel = KernelMessages(page)
            open_and_run(page, lab, "quickstart.ipynb")
            # the quickstart's one run: every output as tests/widgets/test_notebooks_browser.py
            # checks the other notebooks', asserted once the dashboard is through
            problems = output_problems(page, kernel)
            screenshot_notebook(page, "quickstart")

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
            assert not problems, ("quickstart.ipynb in JupyterLab at 1280 px (screenshot "
                                  f"{ARTIFACTS / 'notebook-quickstart.png'}):\n"
                                  + "\n".join(f"- {p}" for p in problems))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "dashboard-failure.png"), full_page=True)
            keep_executed(page, lab_root(tmp_path), "quickstart.ipynb")
            raise
        # paused: the dashboard as the run left it, outputs and widget state, for the site
        save_executed(page, lab_root(tmp_path), "quickstart.ipynb")
