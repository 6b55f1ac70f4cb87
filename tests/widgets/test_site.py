"""The documentation site builds (``docs/build.py``): Sphinx with warnings as errors, every
internal link of the HTML resolving, an API page per public object and every chart function
pictured in the gallery.

The notebooks are rendered from the executed copies the browser tests save
(``$TOPICSUP_ARTIFACTS/executed``, by default ``reports/artifacts/executed``: the rule of
tests/widgets/test_browser.py), so this module is scheduled after them on the same worker; a
notebook without an executed copy is rendered with a note instead (a clone's build runs it:
tested on a small notebook).
The build writes its generated sources to ``docs/_generated`` (git-ignored) and the HTML to a
temporary folder: about 20 s, more when numba compiles the gallery's kernels first.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("TOPICSUP_ARTIFACTS", ROOT / "reports" / "artifacts"))

for _tool in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme", "vl_convert"):
    pytest.importorskip(_tool, reason=f"{_tool} is missing: the site's tools are the [docs] "
                                      f"extra (pip install -c constraints.txt -e '.[docs]')")


def _load_build():
    spec = importlib.util.spec_from_file_location("topicsup_docs_build", ROOT / "docs" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


build = _load_build()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "html"
    # the browser tests' executed copies, or the note: running them here again would cost
    # the suite minutes (test_a_clone_s_build_runs_a_notebook_without_an_executed_copy)
    result = build.build(out, ARTIFACTS / "executed", quiet=True, execute=False)
    print(f"site built in {result.seconds:.1f} s: {result.api_pages} API pages, "
          f"{result.pictures} gallery pictures; notebooks: {result.notebooks}")
    return result, out


def test_the_site_builds_with_no_warning_and_no_broken_link(site):
    result, out = site
    assert not result.warnings, "Sphinx warnings (errors with -W):\n" + "\n".join(result.warnings)
    assert not result.broken, "broken internal links:\n" + "\n".join(result.broken)
    assert result.ok
    for page in ("index", "getting-started", "user-guide", "math", "api", "notebooks",
                 "_generated/gallery", "background", "prediction", "interpretation",
                 "checkpoints"):
        assert (out / f"{page}.html").is_file(), page


def test_every_public_object_has_an_api_page(site):
    import topicsup
    result, out = site
    public = [name for name in topicsup.__all__ if name != "__version__"]
    assert result.api_pages >= len(public)
    missing = [n for n in public if not (out / "_generated" / "api" / f"topicsup.{n}.html").is_file()]
    assert not missing, f"topicsup.__all__ names without an API page (docs/api.md): {missing}"


def test_every_chart_function_is_in_the_gallery(site):
    """Each chart function is pictured, linked to its API page: the view table's as its
    views' sections, the others by their examples."""
    result, out = site
    gallery = (out / "_generated" / "gallery.html").read_text(encoding="utf-8")
    assert gallery.count('src="../_images/') == result.pictures
    for name in build.examples():
        assert f'src="../_images/{name.removeprefix("topicsup.")}.svg"' in gallery, name
    for name in build.chart_functions():
        short = name.rsplit(".", 1)[1]
        assert f'#{name}"' in gallery or f'#topicsup.{short}"' in gallery, name
    views = (out / "_generated" / "views-api.html").read_text(encoding="utf-8")
    for name in build.views_api():
        assert f'href="api/topicsup.views.{name}.html' in views, name


def test_every_notebook_is_rendered(site):
    result, out = site
    stems = sorted([p.stem for p in (ROOT / "notebooks").glob("*.ipynb")]
                   + [f"course/{p.stem}" for p in (ROOT / "notebooks" / "course").glob("*.ipynb")])
    assert sorted(result.notebooks) == stems
    for stem in stems:
        page = (out / "_generated" / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        executed = result.notebooks[stem].startswith("executed")
        assert ("shown without outputs" in page) != executed, stem
        assert "application/vnd.vegalite" not in page, stem


def test_every_widget_of_an_executed_notebook_is_a_picture(site):
    """On the page of an executed notebook no widget is left to draw (myst-nb's widget
    manager, from a CDN, cannot draw the dashboard's chart widgets): each is the browser
    tests' picture of it (``executed/<stem>/cell-<index>.png``), and no widget state is
    embedded; the quickstart's dashboard is an image."""
    result, out = site
    executed = [stem for stem, origin in result.notebooks.items() if origin == "executed"]
    for stem in executed:
        page = (out / "_generated" / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        left = page.count("application/vnd.jupyter.widget-view+json")
        assert left == 0, (
            f"{stem}: {left} widgets without a picture on the page (pictures in "
            f"{ARTIFACTS / 'executed' / stem}: "
            f"{sorted(p.name for p in (ARTIFACTS / 'executed' / stem).glob('*.png'))}; an "
            f"executed copy from before the pictures? run tests/widgets/test_browser.py again)")
        assert "application/vnd.jupyter.widget-state+json" not in page, stem
    if "quickstart" in executed:
        page = (out / "_generated" / "notebooks" / "quickstart.html").read_text(encoding="utf-8")
        assert len(re.findall(r'<img alt="The dashboard as the test run left it', page)) == 1


# ------------------------------------------------- the build's parts, on hand-made input
def test_the_chart_functions_are_found_by_their_return_type():
    functions = build.chart_functions()
    for name in ("topicsup.views.loglik_chart", "topicsup.views.coefficient_heatmap",
                 "topicsup.views.mark_settings_changes", "topicsup.search.search_k_chart",
                 "topicsup.views.prevalence_chart"):
        assert name in functions
    assert "topicsup.report.session_views" not in functions     # a list of charts
    assert "topicsup.views.thin" not in functions
    # a chart is named once, where it is documented: not by a module that re-exports it
    assert "topicsup.prevalence.prevalence_chart" not in functions
    assert not [n for n in functions if n.startswith("topicsup.views.convergence.")]


def test_the_link_checker_flags_a_broken_link(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "img.svg").write_text("<svg/>")
    (tmp_path / "sub" / "there.html").write_text('<h1 id="top">x</h1><a name="old">y</a>')
    (tmp_path / "index.html").write_text(
        '<a href="sub/there.html#top">ok</a> <a href="sub/there.html#old">ok</a>'
        '<a href="#here" id="here">ok</a> <img src="img.svg"> <a href="https://x.org/no">web</a>'
        '<a href="mailto:a@b.c">mail</a> <img src="data:image/png;base64,AA==">'
        '<a href="missing.html">gone</a> <a href="sub/there.html#nope">bad anchor</a>'
        '<img src="gone.png"> <a href="#nowhere">bad self</a>')
    assert build.broken_links(tmp_path) == [
        "index.html: missing.html (no such file)",
        "index.html: sub/there.html#nope (no id #nope in there.html)",
        "index.html: gone.png (no such file)",
        "index.html: #nowhere (no id #nowhere in index.html)"]


def test_notebook_outputs_become_static(tmp_path):
    """A Vega-Lite output and an Altair chart widget become SVG; a widget view whose state
    was not saved keeps its text; a widget with saved state and no picture keeps it (and only
    the models it shows stay in the saved state)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "data": {"values": [{"a": 1, "b": 2}, {"a": 2, "b": 3}]},
            "mark": "line", "encoding": {"x": {"field": "a", "type": "quantitative"},
                                         "y": {"field": "b", "type": "quantitative"}}}
    view = "application/vnd.jupyter.widget-view+json"

    def shown(mid):
        return new_output("display_data", data={
            view: {"model_id": mid, "version_major": 2, "version_minor": 0},
            "text/plain": f"widget {mid}"})

    nb = new_notebook(cells=[new_code_cell("chart", outputs=[
        new_output("execute_result", data={"application/vnd.vegalite.v5+json": spec,
                                           "text/plain": "alt.Chart(...)"}, execution_count=1),
        shown("aaa"), shown("bbb"), shown("ccc")])])
    nb.metadata["widgets"] = {build.WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": {
        "aaa": {"model_name": "AnyModel", "state": {"spec": spec, "_esm": "x" * 1000}},
        "bbb": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_ddd"]}},
        "ddd": {"model_name": "ButtonModel", "state": {"description": "Run"}},
        "eee": {"model_name": "LayoutModel", "state": {}}}}}
    nbformat.validate(nb)
    counts = build.static_outputs(nb)
    assert counts == {"vegalite": 1, "chart widget": 1, "widget picture": 0,
                      "widget charts": 0, "widget": 1, "widget text": 1}
    outs = nb.cells[0].outputs
    for out in outs[:2]:
        assert set(out.data) == {"image/svg+xml", "text/plain"}
        assert out.data["image/svg+xml"].lstrip().startswith("<svg")
    assert view in outs[2].data
    assert set(outs[3].data) == {"text/plain"} and outs[3].data["text/plain"] == "widget ccc"
    assert set(nb.metadata["widgets"][build.WIDGET_STATE]["state"]) == {"bbb", "ddd"}
    nbformat.write(nb, tmp_path / "out.ipynb")       # still a valid notebook


def test_a_widget_with_a_picture_becomes_the_picture(tmp_path):
    """A widget view other than a chart, with the browser tests' picture of it
    (``executed/<stem>/cell-<index>.png``, the index counting markdown cells), becomes that
    PNG with an alt text; the chart widget of the same notebook becomes SVG; with no widget
    view left, the saved widget state goes (no widget JavaScript on the page)."""
    import base64

    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    view = "application/vnd.jupyter.widget-view+json"
    spec = {"data": {"values": [{"a": 1}]}, "mark": "point",
            "encoding": {"x": {"field": "a", "type": "quantitative"}}}

    def shown(mid, kind="display_data"):
        extra = {"execution_count": 2} if kind == "execute_result" else {}
        return new_output(kind, data={view: {"model_id": mid, "version_major": 2,
                                             "version_minor": 0},
                                      "text/plain": f"VBox({mid})"}, **extra)

    code = ["from topicsup.widgets import Dashboard", "chart"]
    stored = new_notebook(cells=[new_markdown_cell("# A"), new_code_cell(code[0]),
                                 new_markdown_cell("text"), new_code_cell(code[1])])
    executed = new_notebook(cells=[
        new_markdown_cell("# A"),
        new_code_cell(code[0], outputs=[shown("da", "execute_result")], execution_count=2),
        new_markdown_cell("text"),
        new_code_cell(code[1], outputs=[shown("ba"), shown("cc")], execution_count=3)])
    executed.metadata["widgets"] = {build.WIDGET_STATE: {
        "version_major": 2, "version_minor": 0, "state": {
            "da": {"model_name": "VBoxModel", "state": {
                "_dom_classes": ["topicsup-dashboard"], "children": ["IPY_MODEL_ab"]}},
            "ab": {"model_name": "ButtonModel", "state": {"description": "Run"}},
            "ba": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_bb"]}},
            "bb": {"model_name": "FloatProgressModel", "state": {"value": 50}},
            "cc": {"model_name": "AnyModel", "state": {"spec": spec}}}}}
    (tmp_path / "notebooks").mkdir()
    nbformat.write(stored, tmp_path / "notebooks" / "nb.ipynb")
    folder = tmp_path / "executed"
    (folder / "nb").mkdir(parents=True)
    nbformat.write(executed, folder / "nb.ipynb")
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
                           "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    (folder / "nb" / "cell-1.png").write_bytes(png)          # the dashboard's cell
    (folder / "nb" / "cell-3.png").write_bytes(png)          # the progress bar, 1st view
    (folder / "nb" / "cell-3-1.png").write_bytes(png)        # of the chart: SVG wins

    nb, origin = build.prepare_notebook(tmp_path / "notebooks" / "nb.ipynb", folder)
    assert origin == "executed"
    dash, = nb.cells[1].outputs
    assert dash.output_type == "display_data" and set(dash.data) == {"image/png", "text/plain"}
    assert base64.b64decode(dash.data["image/png"]) == png
    assert dash.data["text/plain"] == "VBox(da)"
    assert nb.cells[1].metadata["mystnb"]["image"]["alt"].startswith("The dashboard as the")
    bar, chart = nb.cells[3].outputs
    assert set(bar.data) == {"image/png", "text/plain"}
    assert set(chart.data) == {"image/svg+xml", "text/plain"}
    assert "mystnb" not in nb.cells[3].metadata      # its alt would be the chart's too
    assert "widgets" not in nb.metadata
    assert view not in json.dumps(nb)
    nbformat.validate(nb)

    (folder / "nb" / "cell-1.png").unlink()          # no picture: the widget as before
    nb, _ = build.prepare_notebook(tmp_path / "notebooks" / "nb.ipynb", folder)
    assert view in nb.cells[1].outputs[0].data
    assert set(nb.metadata["widgets"][build.WIDGET_STATE]["state"]) == {"da", "ab"}


def test_a_clone_s_build_runs_a_notebook_without_an_executed_copy(tmp_path):
    """Built from a clone (no browser tests run, no executed copy), a notebook is run here
    and shown with its outputs: a chart as SVG, a widget holding a chart (the dashboard) as
    its chart's SVG, not as widget state that needs scripts from the internet; with
    ``execute=False`` it keeps the note. (Issue 52, item 5: the clone's site showed every
    notebook without outputs.)"""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    stored = new_notebook(cells=[
        new_markdown_cell("# Tiny"),
        new_code_cell("import altair as alt, pandas as pd\n"
                      "from topicsup.widgets import offline_charts\noffline_charts()\n"
                      "chart = alt.Chart(pd.DataFrame({'a': [1, 2]})).mark_point()"
                      ".encode(x='a')\nchart"),
        new_code_cell("import ipywidgets as w\nw.VBox([w.HTML('status'), "
                      "alt.JupyterChart(chart)])"),
        new_code_cell("print(6 * 7)")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}})
    path = tmp_path / "tiny.ipynb"
    nbformat.write(stored, path)
    nb, origin = build.prepare_notebook(path, tmp_path / "no-executed-copies")
    assert origin == "executed here", origin
    text = json.dumps(nb)
    noted = [c for c in nb.cells if c.source == build.NOT_RUN_NOTE]
    assert not noted and "42" in text
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if "image/svg+xml" in o.get("data", {})]
    assert len(images) == 2, [c.outputs for c in nb.cells if c.cell_type == "code"]
    assert "application/vnd.jupyter.widget-view+json" not in text
    plain, origin = build.prepare_notebook(path, None, execute=False)
    assert origin.startswith("stored")
    assert [c for c in plain.cells if c.source == build.NOT_RUN_NOTE]
