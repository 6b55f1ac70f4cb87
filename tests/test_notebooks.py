"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel, without errors
and with no committed outputs. Notebooks on 20 Newsgroups get the archive beside the project
through $TOPICSUP_DATA, and skip with the reason when it is absent.

Where Chromium and Playwright are found, the notebooks run in real JupyterLab instead
(tests/widgets/test_notebooks_browser.py, and the quickstart in tests/widgets/test_browser.py),
which checks the same and what a student sees: running each notebook twice would cost the
suite minutes. Here they run with nbclient only when no browser can."""

import importlib.util
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import NEWS_ARCHIVE, NOTEBOOK_WAITS

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
NEEDS_NEWSGROUPS = {"newsgroups_experiments"}


def _in_the_browser(request) -> bool:
    """True when the browser tests run the notebooks: Chromium found (the ``chromium``
    fixture, which skips without it), Playwright and JupyterLab installed, and
    ``$TOPICSUP_NOTEBOOKS`` is not ``nbclient`` (CI's newest-releases leg runs the quickstart
    here, without the browser tests)."""
    if os.environ.get("TOPICSUP_NOTEBOOKS") == "nbclient":
        return False
    try:
        request.getfixturevalue("chromium")
    except pytest.skip.Exception:
        return False
    return all(importlib.util.find_spec(m) is not None for m in ("playwright", "jupyterlab"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_has_no_committed_outputs(path):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} has committed outputs; clear them"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch, request):
    if _in_the_browser(request):
        pytest.skip(f"{path.name} runs in JupyterLab (tests/widgets/test_notebooks_browser.py, "
                    f"the quickstart in tests/widgets/test_browser.py)")
    nb = nbformat.read(path, as_version=4)
    if path.stem in NEEDS_NEWSGROUPS:
        if not NEWS_ARCHIVE.exists():
            pytest.skip(f"{path.name} needs the 20 Newsgroups archive, not found at "
                        f"{NEWS_ARCHIVE}")
        monkeypatch.setenv("TOPICSUP_DATA", str(NEWS_ARCHIVE))
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   **NOTEBOOK_WAITS).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
