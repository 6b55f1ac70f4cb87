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
from topicsup.testing.notebooks import PatientClient as NotebookClient

from .conftest import NEWS_ARCHIVE, NOTEBOOK_WAITS

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
# the notebooks and the course's lessons as students get them (the solutions notebooks run in
# tests/course); every stored notebook, solutions too, has no outputs
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb")) + sorted((FOLDER / "course").glob("*.ipynb"))
STORED = sorted(p for p in FOLDER.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
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


@pytest.mark.parametrize("path", STORED, ids=[p.relative_to(FOLDER).as_posix()
                                               for p in STORED])
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


def _run_cell(source: str, namespace: dict) -> list:
    """A code cell's source run in ``namespace``, as Jupyter runs it: what it shows, each
    ``display(x)`` in turn and then the value of its last line when that is an
    expression."""
    import ast
    shown: list = []
    namespace["display"] = shown.append
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<cell>", "exec"), namespace)
    if last is not None:
        shown.append(eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace))
    return shown


def test_the_monte_carlo_medlda_tables_have_a_value_in_every_cell():
    """The newsgroups notebook's Monte Carlo MedLDA cell, run on a small synthetic task in
    place of the archive's (with a Gibbs MedLDA run standing for the one above it): every
    table it shows has a value in every cell. Gibbs MedLDA has no outer iterations,
    convergence or support documents: its row is in the comparison of what every run has,
    not a row of NaN in the alternation's table."""
    import pandas as pd

    from topicsup.models import MedLDA
    from topicsup.session import Session
    from topicsup.synthetic import make_synthetic

    path = next(p for p in NOTEBOOKS if p.stem == "newsgroups_experiments")
    nb = nbformat.read(path, as_version=4)
    cell = next(c.source for c in nb.cells
                if c.cell_type == "code" and "def run_alternation" in c.source)
    corpus = make_synthetic(n_docs=120, n_topics=3, doc_length=40, seed=0).corpus
    train, test = corpus.take(range(80)), corpus.take(range(80, 120))
    gibbs = Session(MedLDA(K=3), train, seed=0, log_joint_every=0)
    gibbs.run(3)
    binary = {"Gibbs MedLDA": (gibbs, pd.DataFrame({"value": [gibbs.score(test)]}))}
    shown = _run_cell(cell, {"pd": pd, "Session": Session, "train": train, "test": test,
                             "binary": binary})
    assert shown and all(isinstance(t, pd.DataFrame) for t in shown)
    for table in shown:
        assert not table.isna().to_numpy().any(), f"a NaN cell in\n{table}"
    runs = ["gMedLDA", "iMedLDA", "gMedLDA, C = 16"]
    assert list(shown[0].index) == runs
    assert list(shown[-1].index) == runs + ["Gibbs MedLDA (above)"]
    assert shown[-1].loc["Gibbs MedLDA (above)", "sweeps"] == 3


def test_the_patient_client_runs_a_notebook_with_an_interact_cell(tmp_path):
    """``topicsup.testing.notebooks.PatientClient`` (the course's solutions, the site's build)
    runs cells and returns their outputs as nbclient's client does, its reads of the kernel's
    replies sliced (jupyter/nbclient#312: with ``interact``, a reply can wait for the whole
    timeout)."""
    from nbformat.v4 import new_code_cell, new_notebook
    nb = new_notebook(cells=[
        new_code_cell("import ipywidgets as w\nw.interact(lambda x: x * 2, x=3)"),
        new_code_cell("import time\ntime.sleep(1.5)\nprint('slept')")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}})
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   timeout=60).execute()
    # the widget's view and interact's return value (its result goes to the widget's own
    # Output, which the kernel fills in a comm message, not in the cell's outputs)
    shown = [o["data"]["text/plain"] for o in nb.cells[0].outputs]
    assert shown[0].startswith("interactive(") and "lambda" in shown[-1], shown
    assert [o["text"] for o in nb.cells[1].outputs] == ["slept\n"]
