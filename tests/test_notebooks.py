"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel, without errors
and with no committed outputs. Notebooks on 20 Newsgroups get the archive beside the project
through $TOPICSUP_DATA, and skip with the reason when it is absent."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import NEWS_ARCHIVE, NOTEBOOK_WAITS

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
NEEDS_NEWSGROUPS = {"newsgroups_experiments"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} has committed outputs; clear them"
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
