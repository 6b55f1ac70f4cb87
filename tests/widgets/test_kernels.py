"""The dashboard under real Jupyter kernels: ipykernel >= 7.1 (the installed one) and
ipykernel 6 (installed into a scratch folder that shadows the project's on the kernel's path).

The worker thread updates widgets only; these tests prove that those updates reach the front
end (the widget state nbclient records holds the worker's last status line, "sweep 30", which
only the worker writes) and that the worker leaves no output in any cell, under both kernel
generations (ipykernel 7.0 changed how output from threads is routed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from ..conftest import NOTEBOOK_WAITS

CELLS = [
    "import ipykernel; print(ipykernel.__version__)",
    "from topicsup.datasets import load_demo_corpus\n"
    "from topicsup.models import LDA\n"
    "from topicsup.session import Session\n"
    "from topicsup.widgets import Dashboard\n"
    "s = Session(LDA(K=6, sampler='light'), load_demo_corpus().corpus, seed=0)\n"
    "dash = Dashboard(s, sweeps=30)\n"
    "dash",
    "dash.run_button.click()",
    "assert dash.wait() and s.n_sweeps == 30 and dash.error is None, dash.error\n"
    "dash.status.value",
]


def _kernelspec(folder: Path, extra_path: Path | None) -> str:
    """A kernel spec running this interpreter, optionally with ``extra_path`` first on
    sys.path (so packages installed there shadow the environment's)."""
    spec = folder / "kernels" / "topicsup-test"
    spec.mkdir(parents=True)
    env = {"PYTHONPATH": str(extra_path)} if extra_path else {}
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "topicsup test", "language": "python", "env": env}))
    return "topicsup-test"


def _run(tmp_path: Path, extra_path: Path | None, monkeypatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    name = _kernelspec(tmp_path / "jupyter", extra_path)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    NotebookClient(nb, kernel_name=name, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}, **NOTEBOOK_WAITS).execute()
    return nb


def _check(nb: nbformat.NotebookNode, major: int) -> None:
    version = nb.cells[0].outputs[0]["text"].strip()
    assert int(version.split(".")[0]) == major, f"kernel ran ipykernel {version}"
    for cell in nb.cells[1:3]:   # creating and starting the dashboard: widget view only
        texts = [o for o in cell.outputs if o.output_type in ("stream", "error")]
        assert not texts, f"the dashboard wrote output: {texts}"
    assert "sweep 30" in nb.cells[3].outputs[0]["data"]["text/plain"]
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    html = [m["state"].get("value", "") for m in state.values()
            if m["model_name"] == "HTMLModel"]
    assert any("sweep 30" in v for v in html), \
        "the worker's status updates did not reach the front end"


def test_dashboard_under_installed_ipykernel(tmp_path, monkeypatch):
    import ipykernel
    major = int(ipykernel.__version__.split(".")[0])
    assert (major, int(ipykernel.__version__.split(".")[1])) >= (7, 1) or major == 6
    _check(_run(tmp_path, None, monkeypatch), major)


def test_dashboard_under_ipykernel_6(tmp_path, monkeypatch):
    lib = tmp_path / "ipykernel6"
    try:   # the registry is outside our control: a generous limit, and skip past it
        pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target",
                              str(lib), "ipykernel>=6.29,<7"], capture_output=True, text=True,
                             timeout=900)
    except subprocess.TimeoutExpired:
        pytest.skip("could not install ipykernel 6 from the package registry within 15 "
                    "minutes")
    if pip.returncode:
        pytest.skip(f"could not install ipykernel 6 from the package registry: "
                    f"{pip.stderr.strip()[-300:]}")
    _check(_run(tmp_path, lib, monkeypatch), 6)
