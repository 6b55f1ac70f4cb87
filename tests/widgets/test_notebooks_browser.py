"""Every notebook of notebooks/ as a student sees it: run top to bottom in real JupyterLab
(Debian's Chromium through Playwright, 1280 x 900, the file browser open), then every output
of every cell checked as drawn:

* no chart (Vega SVG or canvas, ``.vega-embed``) and no widget runs past the right edge of
  its output area, is clipped inside it (an element narrower than its content, the output
  area scrolling sideways) or has a label cut, and every chart has drawn;
* no red box: no stderr output at all (a warning or a progress line is as alarming to a
  student as an error; an exception would go in ``ALLOWED_STDERR`` with its reason), no
  error;
* no NaN or Infinity in any message from the kernel (the page's websocket frames);
* no SVG id defined by two charts (a later chart's colour legend would be drawn with an
  earlier chart's gradient).

This is the one place a notebook runs when a browser is here: tests/test_notebooks.py checks
that no notebook holds committed outputs and runs them with nbclient only when Chromium or
Playwright is missing. The quickstart runs once, in tests/widgets/test_browser.py's dashboard
test, which makes the same checks (``output_problems`` there). A screenshot of the whole
notebook goes to the artifacts folder (``$TOPICSUP_ARTIFACTS`` or ``reports/artifacts/``, as
notebook-<name>.png), and also to ``$TOPICSUP_SCREENSHOTS`` when set. Once the checks have
looked (passed or not), the notebook is saved in JupyterLab with its outputs and widget state
and kept as ``executed/<name>.ipynb`` in the artifacts folder (``save_executed`` in
tests/widgets/test_browser.py), with a picture of each widget other than a chart as drawn
(``executed/<name>/cell-<index>.png``): the executed copies the documentation site renders
without running them again (artifacts, never committed). Notebooks on 20 Newsgroups skip, with the
reason, when the archive is not found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from ..conftest import NEWS_ARCHIVE, NEWS_ARCHIVE_MISSING
from .test_browser import (ARTIFACTS, KernelMessages, browser_page,  # noqa: F401
                           forget_executed, keep_executed, lab, lab_root, output_problems,
                           run_all, save_executed, screenshot_notebook)

ROOT = Path(__file__).resolve().parents[2]
# the notebooks and the course's lessons (as students get them; the solutions notebooks run
# in tests/course, with nbclient)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "course").glob("*.ipynb"))
# run in the browser by tests/widgets/test_browser.py (the dashboard's test), with these checks
RUN_ELSEWHERE = {"quickstart"}
# notebooks that cannot run without the archive (interpreting_topics skips its real-data
# cells, with a message, and is checked on the rest)
NEEDS_NEWSGROUPS = {"newsgroups_experiments"}
# stderr output a notebook may show, by notebook: {pattern: why it is justified}
ALLOWED_STDERR: dict[str, dict[str, str]] = {}
# a notebook's own checks, run on the same page once the common ones are through (its
# widgets' behaviour, its charts' marks): one run of the notebook serves them all
NOTEBOOK_CHECKS: dict[str, Callable[[Any], None]] = {}


def check_notebook(page, lab: str, path: Path, root: Path) -> None:  # noqa: F811
    """Run ``path`` (in the lab's ``root``) in the page, screenshot it, fail with every
    problem of its outputs, and save it with its widgets' pictures (``save_executed``; after
    a failure too, where the save's own failure is only a warning). The page's kernel
    messages are watched from before it opens."""
    name = path.relative_to(ROOT / "notebooks").as_posix()   # course/01_... for a lesson
    forget_executed(name)
    kernel = KernelMessages(page)
    try:
        try:
            run_all(page, lab, name)
            problems = output_problems(page, kernel, ALLOWED_STDERR.get(path.stem))
        finally:
            screenshot_notebook(page, path.stem)
        assert not problems, (f"{name} in JupyterLab at 1280 px (screenshot "
                              f"{ARTIFACTS / f'notebook-{path.stem}.png'}):\n"
                              + "\n".join(f"- {p}" for p in problems))
        if path.stem in NOTEBOOK_CHECKS:
            NOTEBOOK_CHECKS[path.stem](page)
    except Exception:
        keep_executed(page, root, name)
        raise
    save_executed(page, root, name)


@pytest.fixture(params=[p for p in NOTEBOOKS if p.stem not in RUN_ELSEWHERE],
                ids=lambda p: p.stem)
def notebook(request, monkeypatch) -> Path:
    """A notebook, with $TOPICSUP_DATA set for the lab's kernels (before the lab fixture
    starts JupyterLab) when the 20 Newsgroups archive is found; a notebook that needs it
    skips, with the reason, when it is not."""
    path = request.param
    found = not NEWS_ARCHIVE_MISSING and NEWS_ARCHIVE.exists()
    if path.stem in NEEDS_NEWSGROUPS and not found:
        pytest.skip(f"{path.name} needs the 20 Newsgroups archive: "
                    f"{NEWS_ARCHIVE_MISSING or f'not found at {NEWS_ARCHIVE}'}")
    if found:
        monkeypatch.setenv("TOPICSUP_DATA", str(NEWS_ARCHIVE))
    return path


def test_every_output_fits_in_jupyterlab(notebook, lab, chromium, tmp_path):  # noqa: F811
    with browser_page(chromium, 900) as page:
        check_notebook(page, lab, notebook, lab_root(tmp_path))


def test_the_kernel_message_check_finds_nan_and_infinity_in_every_protocol():
    """What the browser test's websocket listener does with a frame (no browser needed):
    JupyterLab's binary protocol (jupyter_server's own serializer), the legacy text one."""
    connection = pytest.importorskip("jupyter_server.services.kernels.connection.base")

    class Page:
        def on(self, event, handler):
            self.handler = handler

    page = Page()
    kernel = KernelMessages(page)

    def frame(content: bytes) -> bytes:
        parts = [b'{"msg_type": "comm_msg"}', b"{}", b"{}", content, b"\x00NaN buffer"]
        return connection.serialize_msg_to_ws_v1(parts, "iopub")

    kernel._frame(frame(b'{"data": {"values": [1.5, null, "NaN"]}}'))
    kernel._frame('{"header": {}, "content": {"x": 1e308}}')
    assert kernel.frames == 2 and kernel.bad == []     # a string "NaN" and buffers are fine
    kernel._frame(frame(b'{"data": {"values": [1.5, NaN]}}'))
    kernel._frame('{"header": {}, "content": {"x": -Infinity}}')
    assert len(kernel.bad) == 2 and "NaN" in kernel.bad[0] and "Infinity" in kernel.bad[1]
