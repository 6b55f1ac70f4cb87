"""Build the documentation site: ``python docs/build.py [--notebooks DIR] [--out DIR]``.

1. The notebooks: for each ``notebooks/<stem>.ipynb`` the executed copy ``DIR/<stem>.ipynb``
   the browser tests save (default ``$TOPICSUP_ARTIFACTS/executed``, else
   ``reports/artifacts/executed``), or, when there is none (or it ran other code than the
   stored notebook holds), the notebook run here top to bottom (nbclient, a kernel of this
   Python, its widgets' state kept; a clone's first build, about 2 minutes), or with
   ``--no-execute`` (or a notebook whose data is not here: 20 Newsgroups) the stored
   notebook with a note at the top. Vega-Lite outputs and
   Altair chart widgets become static SVG pictures (vl-convert), so a page shows its charts
   offline; another widget (the dashboard, the inspector, a progress bar) becomes the picture
   the browser tests took of it as drawn in JupyterLab (``DIR/<stem>/cell-<index>.png``), or,
   without one, is rendered from its saved state, or by its text when no state was saved. The
   saved widget state keeps only what a remaining widget shows (none at all once every widget
   is a picture). Written to ``docs/_generated/notebooks`` (git-ignored: the notebooks are
   committed without outputs, and some outputs are 20 Newsgroups posts).
2. The gallery: every chart function of the package (a public function whose return type is
   an Altair chart, ``chart_functions()``) drawn by the code on small synthetic fits, as SVG,
   with the first line of its docstring and a link to its API page
   (``docs/_generated/gallery.md``): those the view table draws (``table_charts()``) as its
   views' sections, the others by their examples (``examples()``). A chart function without
   a picture fails the build. And the views' API page (``docs/_generated/views-api.md``): the
   functions of ``topicsup.views.__all__``, so a new chart function needs no edit of a page.
3. ``sphinx-build -W --keep-going -b html`` into ``--out`` (default ``docs/_build/html``),
   then every internal link of the HTML (``href``/``src`` to a local file, and its ``#anchor``)
   is checked. Exits non-zero and prints the problems when a warning or a broken link was
   found; prints the numbers of API pages and gallery pictures.

Only step 1 executes notebooks, and only those without an executed copy.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
NOTEBOOKS = ROOT / "notebooks"

VEGALITE = re.compile(r"application/vnd\.vegalite\.v\d+\+json")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
NOT_RUN_NOTE = (
    ":::{note}\nThis notebook is shown without outputs: `python docs/build.py` runs it "
    "(without `--no-execute`; a notebook on 20 Newsgroups needs the archive), or the browser "
    "tests save an executed copy to `reports/artifacts/executed/` "
    "(`tests/widgets/test_notebooks_browser.py`) for the next build.\n:::")


# notebooks that read the 20 Newsgroups archive: run here only when it is found
NEEDS_NEWSGROUPS = {"newsgroups_experiments"}


def default_executed() -> Path:
    """Where the browser tests save the executed notebooks (the artifacts' rule of
    tests/widgets/test_browser.py)."""
    return Path(os.environ.get("TOPICSUP_ARTIFACTS", ROOT / "reports" / "artifacts")) / "executed"


# ------------------------------------------------------------------------- 1. notebooks
def svg_of(spec: dict[str, Any]) -> str:
    import vl_convert
    return str(vl_convert.vegalite_to_svg(spec))


def _reachable(state: dict[str, Any], roots: list[str]) -> set[str]:
    """The widget models ``roots`` show, with every model they refer to (``IPY_MODEL_<id>``)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state[mid].get("state", {})))
    return seen


def _charts_within(state: dict[str, Any], mid: str) -> list[dict[str, Any]]:
    """The Altair chart widgets (models with a ``spec``) that the widget model ``mid`` shows,
    in the order its children are laid out (depth first)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        if m in seen or m not in state:
            return
        seen.add(m)
        model = state[m].get("state", {})
        if isinstance(model.get("spec"), dict) and model["spec"]:
            out.append(model["spec"])
        for ref in re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(model)):
            visit(ref)
    visit(mid)
    return out


def picture_of(pictures: Path | None, index: int, n: int) -> Path | None:
    """The browser tests' picture of the ``n``-th widget view of cell ``index`` (counted
    among all cells, markdown too), in the folder ``pictures``, if there is one: cell-<index>.png
    for the first, cell-<index>-<n>.png for the others (``screenshot_widgets`` in
    tests/widgets/test_browser.py)."""
    if pictures is None:
        return None
    path = pictures / (f"cell-{index}.png" if n == 0 else f"cell-{index}-{n}.png")
    return path if path.is_file() else None


def _what(state: dict[str, Any], mid: str) -> str:
    """What the widget model ``mid`` is, to a reader: its topicsup class, a progress bar."""
    model = state.get(mid, {}).get("state", {})
    classes = model.get("_dom_classes") or []
    if "topicsup-dashboard" in classes:
        return "the dashboard"
    if "topicsup-inspector" in classes:
        return "the token inspector"
    children = [state.get(c.removeprefix("IPY_MODEL_"), {}).get("model_name", "")
                for c in model.get("children", []) if isinstance(c, str)]
    if any(c.endswith("ProgressModel") for c in children):
        return "the progress bar"
    return "the widget"


def static_outputs(nb: Any, pictures: Path | None = None) -> dict[str, int]:
    """Turn ``nb``'s widget and chart outputs into pictures in place: a Vega-Lite output and
    an Altair chart widget (a model with a ``spec`` in the saved widget state) into SVG; any
    other widget view into its PNG in ``pictures`` (``picture_of``) when there is one, an
    ``image/png`` display output with the view's text, and the cell's images given an alt
    text (myst-nb's ``mystnb.image.alt`` is the cell's: set only when the cell has no other
    image). A widget view without a picture that holds chart widgets becomes their SVGs;
    another keeps its saved state to be rendered from, or its text when its state was not
    saved; the saved state keeps only the models the
    remaining views show, and goes when none does. Returns how many outputs of each kind
    were converted."""
    import base64

    import nbformat
    state = (nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}) or {}).get("state", {})
    counts = {"vegalite": 0, "chart widget": 0, "widget picture": 0, "widget charts": 0,
              "widget": 0, "widget text": 0}
    shown: list[str] = []
    for index, cell in enumerate(nb.cells):
        views = 0                 # the cell's widget views so far (the pictures' numbering)
        pictured: list[str] = []
        spliced: dict[int, list[Any]] = {}   # an output replaced by several
        outputs = cell.get("outputs", [])
        for at, out in enumerate(outputs):
            data = out.get("data")
            if not data:
                continue
            spec = None
            vl = [k for k in data if VEGALITE.fullmatch(k)]
            if vl:
                spec, kind = data[vl[0]], "vegalite"
            elif WIDGET_VIEW in data:
                mid = data[WIDGET_VIEW].get("model_id", "")
                model = state.get(mid, {}).get("state", {})
                png = picture_of(pictures, index, views)
                views += 1
                if isinstance(model.get("spec"), dict) and model["spec"]:
                    spec, kind = model["spec"], "chart widget"
                elif png is not None:
                    outputs[at] = nbformat.from_dict({
                        "output_type": "display_data", "metadata": {},
                        "data": {"image/png": base64.b64encode(png.read_bytes()).decode("ascii"),
                                 "text/plain": data.get("text/plain", "")}})
                    pictured.append(_what(state, mid))
                    counts["widget picture"] += 1
                    continue
                elif _charts_within(state, mid):
                    # a widget holding charts, without a picture (a build's own run): its
                    # charts as drawn, where its saved state would need the widgets'
                    # scripts from the internet and draws nothing offline
                    charts = _charts_within(state, mid)
                    text = (f"{_what(state, mid)[0].upper()}{_what(state, mid)[1:]}: its "
                            f"charts as the run left them (the live widget needs a kernel)")
                    spliced[at] = [nbformat.from_dict({
                        "output_type": "display_data", "metadata": {},
                        "data": {"image/svg+xml": svg_of(c), "text/plain": text}})
                        for c in charts]
                    counts["widget charts"] += 1
                    continue
                elif mid in state:
                    shown.append(mid)
                    counts["widget"] += 1
                    continue
                else:
                    del data[WIDGET_VIEW]
                    data.setdefault("text/plain", "")
                    counts["widget text"] += 1
                    continue
            else:
                continue
            out["data"] = {"image/svg+xml": svg_of(spec),
                           "text/plain": data.get("text/plain", "<chart>")}
            counts[kind] += 1
        if spliced:
            outputs[:] = [o for at, out in enumerate(outputs)
                          for o in spliced.get(at, [out])]
        images = [o for o in outputs if any(k.startswith("image/") for k in o.get("data", {}))]
        if pictured and len(images) == len(pictured):
            alt = " and ".join(dict.fromkeys(pictured))
            cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = (
                f"{alt[0].upper()}{alt[1:]} as the test run left it, in JupyterLab "
                f"(a screenshot; the live widget needs a kernel)")
    if state:
        keep = _reachable(state, shown)
        if keep:
            nb.metadata["widgets"][WIDGET_STATE]["state"] = {k: state[k] for k in keep}
        else:
            del nb.metadata["widgets"]
    return counts


def _code(nb: Any) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def run_here(stored: Path) -> tuple[Any, str]:
    """``stored`` run top to bottom with nbclient in a kernel of this Python, in a temporary
    folder, its widgets' state kept (so the build renders them from it); ``(None, why)``
    when it needs the 20 Newsgroups archive and none is found, or when a cell raises."""
    import tempfile

    import nbformat
    from topicsup.testing.notebooks import PatientClient as NotebookClient
    from nbclient.exceptions import CellExecutionError
    if stored.stem in NEEDS_NEWSGROUPS:
        from topicsup.newsgroups import find_archive
        try:
            find_archive()
        except (FileNotFoundError, ValueError):
            return None, "stored: not run here, the 20 Newsgroups archive is not found"
    nb = nbformat.read(stored, as_version=4)
    with tempfile.TemporaryDirectory() as where:
        client = NotebookClient(nb, kernel_name="python3", store_widget_state=True,
                                timeout=None, startup_timeout=600,
                                resources={"metadata": {"path": where}})
        try:
            client.execute()
        except CellExecutionError as exc:
            return None, f"stored: running it here raised {str(exc).splitlines()[-1][:200]}"
    return nb, "executed here"


def prepare_notebook(stored: Path, executed_dir: Path | None, execute: bool = True
                     ) -> tuple[Any, str]:
    """The notebook to render for ``stored`` and where it came from (``"executed"``: the
    browser tests' copy; ``"executed here"``: run by this build, ``execute``; or
    ``"stored"``, with the reason)."""
    import nbformat
    plain = nbformat.read(stored, as_version=4)
    executed = executed_dir / stored.name if executed_dir else None
    nb, origin = None, "stored: no executed copy"
    pictures = None
    if executed is not None and executed.is_file():
        candidate = nbformat.read(executed, as_version=4)
        if _code(candidate) == _code(plain):
            nb, origin = candidate, "executed"
            pictures = executed.with_suffix("")     # DIR/<stem>/cell-<index>.png
        else:
            origin = f"stored: {executed} ran other code (an older copy of the notebook)"
    if nb is None and execute:
        nb, why = run_here(stored)
        origin = why if nb is not None else f"{origin}; {why}"
    if nb is None:
        nb = plain
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.update(outputs=[], execution_count=None)
        at = 1 if nb.cells and nb.cells[0].cell_type == "markdown" \
            and nb.cells[0].source.lstrip().startswith("# ") else 0
        nb.cells.insert(at, nbformat.v4.new_markdown_cell(NOT_RUN_NOTE))
    static_outputs(nb, pictures)
    for cell in nb.cells:           # ids need not be stable here, but must be valid
        cell.pop("id", None)
    nb.nbformat_minor = 4
    return nb, origin


def prepare_notebooks(executed_dir: Path | None, out: Path = GENERATED / "notebooks",
                      execute: bool = True) -> dict[str, str]:
    """Every notebook of ``notebooks/`` and the course's lessons (``notebooks/course/``, as
    students get them; not their solutions) into ``out`` (``course/`` for the lessons); their
    origins by path without the suffix (``quickstart``, ``course/01_...``)."""
    import nbformat
    origins = {}
    for folder in ("", "course"):
        there = out / folder
        there.mkdir(parents=True, exist_ok=True)
        for old in there.glob("*.ipynb"):
            old.unlink()
        copies = executed_dir / folder if executed_dir is not None else None
        for stored in sorted((NOTEBOOKS / folder).glob("*.ipynb")):
            name = f"{folder}/{stored.stem}" if folder else stored.stem
            nb, origins[name] = prepare_notebook(stored, copies, execute)
            nbformat.write(nb, there / stored.name)
    return origins


# --------------------------------------------------------------------------- 2. gallery
def _is_chart_type(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    parts = [p.strip() for p in str(text).split("|")]
    return bool(text) and all(re.fullmatch(r"(alt\.)?\w*Chart", p) for p in parts)


def chart_functions() -> dict[str, Callable[..., Any]]:
    """Every public function of topicsup's modules (and topicsup.widgets') whose return type
    is an Altair chart, by its full name, in module order (a module's ``__all__`` order where
    it has one): the views the gallery must show. A package's function is named where users
    import it from: ``topicsup.views.loglik_chart`` (written in
    ``topicsup.views.convergence``, re-exported by the package); a module's re-export of
    another module's function (``topicsup.prevalence``'s charts) is not."""
    import topicsup
    import topicsup.widgets
    found: dict[str, Callable[..., Any]] = {}
    for pkg in (topicsup, topicsup.widgets):
        for info in pkgutil.iter_modules(pkg.__path__):
            module = importlib.import_module(f"{pkg.__name__}.{info.name}")
            order = list(getattr(module, "__all__", ()))
            members = sorted(vars(module).items(),
                             key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
            for name, obj in members:
                home = getattr(obj, "__module__", "")
                if (not name.startswith("_") and inspect.isfunction(obj)
                        and (home == module.__name__
                             or info.ispkg and home.startswith(module.__name__ + "."))
                        and _is_chart_type(obj.__annotations__.get("return", ""))):
                    found[f"{module.__name__}.{name}"] = obj
    # the views package first (its own order), then the others
    return dict(sorted(found.items(), key=lambda kv: kv[0].split(".")[1] != "views"))


def table_charts() -> dict[str, list[str]]:
    """The chart functions the view table draws (``View.charts`` of ``view_table.VIEWS``), by
    their full names (``chart_functions``'), each with the views that draw it: the gallery
    pictures them from the views' sections, so they need no example."""
    from topicsup.view_table import VIEWS
    names = {fn: name for name, fn in chart_functions().items()}
    out: dict[str, list[str]] = {}
    for view_name, view in VIEWS.items():
        for fn in view.charts:
            out.setdefault(names.get(fn, f"{fn.__module__}.{fn.__qualname__}"),
                           []).append(view_name)
    return out


def _fits() -> dict[str, Any]:
    """Small synthetic fits, a few sweeps each (seconds in all): one of each kind of model a
    view is drawn from. Its sessions, in this order, are the view table's: each view of
    ``view_table.VIEWS`` is pictured on the first that it applies to and whose history holds
    what it draws; the rest is what the examples draw from."""
    import pandas as pd

    from topicsup import DMR, DOLDA, HDPLDA, LDA, LightMedLDA, MCMedLDA, Session, search_k
    from topicsup.chains import run_chains
    from topicsup.datasets import make_synthetic
    from topicsup.inspector import TokenInspector
    from topicsup.prevalence import run_keeping_prevalence

    data = make_synthetic(n_docs=160, n_topics=4, doc_length=30, task="multiclass",
                          n_classes=3, n_covariates=1, seed=0)
    corpus = data.corpus
    sup = Session(LightMedLDA(K=4, burn_in=2), corpus, seed=0)
    for block in range(3):
        if block == 2:
            sup.set_params(mh_steps=2)          # a live setting changed: marked on the charts
        sup.run(5)
    dolda = Session(DOLDA(K=4), corpus, seed=0)
    dolda.run(10)
    normal = Session(DOLDA(K=4, prior="normal"), corpus, seed=0)
    normal.run(10)
    hdp = Session(HDPLDA(K=8), corpus, seed=0)
    hdp.run(10)
    mc = Session(MCMedLDA(K=4, max_inner=3), corpus, seed=0)    # an SVM step every 3 sweeps
    mc.run(12)
    lda = Session(LDA(K=4), corpus, seed=0)
    learned = Session(LDA(K=4, optimize="alpha+beta", optimize_every=2), corpus, seed=0)
    learned.run(20)
    dmr = Session(DMR(K=4), corpus, seed=0)     # the documents' prior by class
    dmr.run(10)
    draws = run_keeping_prevalence(lda, 20, burn=5)
    chains = run_chains(LDA(K=4), corpus, n_chains=2, sweeps=12, seed=0)
    searched = search_k(corpus, [2, 4], sweeps=5, n_burn=5, n_keep=5, seed=0)
    priors = pd.concat({"horseshoe": dolda.coefficients(), "normal": normal.coefficients()},
                       names=["prior"]).reset_index(0)
    step = TokenInspector(sup, doc=0, seed=0).step()
    return dict(sup=sup, dolda=dolda, priors=priors, hdp=hdp, mc=mc, learned=learned,
                dmr=dmr, draws=draws, chains=chains, searched=searched, step=step)


def examples() -> dict[str, Callable[[dict[str, Any]], Any]]:
    """How each chart function the view table does not draw (``table_charts``) is drawn in
    the gallery, by full name: the arguments a user passes, on the fits (``_fits``)."""
    from topicsup import views
    from topicsup.search import search_k_chart
    return {
        "topicsup.views.rhat_chart": lambda f: views.rhat_chart(f["chains"].convergence()),
        "topicsup.views.relevance_chart": lambda f: views.relevance_chart(
            f["sup"].topic_terms(15)),
        "topicsup.views.prior_comparison_chart": lambda f: views.prior_comparison_chart(
            f["priors"]),
        "topicsup.views.topic_words_chart": lambda f: views.topic_words_chart(
            f["sup"].topics(10), topic_word=f["sup"].topic_word(),
            vocabulary=f["sup"].corpus.vocabulary),
        "topicsup.views.conditional_chart": lambda f: views.conditional_chart(
            f["step"].conditional_table()),
        "topicsup.views.mark_settings_changes": lambda f: views.mark_settings_changes(
            views.loglik_chart(f["sup"].history), f["sup"].settings_changes),
        "topicsup.views.prevalence_chart": lambda f: views.prevalence_chart(
            f["draws"].prevalence()),
        "topicsup.views.effect_chart": lambda f: views.effect_chart(
            f["draws"].effects(), f["draws"].terms[1]),
        "topicsup.views.along_chart": lambda f: views.along_chart(
            f["draws"].along(f["draws"].terms[1])),
        "topicsup.search.search_k_chart": lambda f: search_k_chart(f["searched"]),
    }


@dataclass
class Picture:
    file: str                   # the SVG, relative to the gallery page
    functions: tuple[str, ...]  # the full names of the chart functions it shows


def _first_line(fn: Callable[..., Any]) -> str:
    doc = inspect.getdoc(fn) or ""
    para = doc.split("\n\n")[0].replace("\n", " ").strip()
    sentence = re.split(r"(?<=[.:;])\s", para, maxsplit=1)[0].rstrip(":;")
    return sentence if sentence.endswith(".") else sentence + "."


def _documented(name: str, fn: Callable[..., Any]) -> str:
    """Where the API reference documents a chart function: where users import it from."""
    import topicsup
    short = name.rsplit(".", 1)[1]
    return f"topicsup.{short}" if getattr(topicsup, short, None) is fn else name


def gallery_problems() -> list[str]:
    """What would leave a chart function without its one picture, found without drawing: a
    chart function neither the view table draws (``table_charts``) nor an example does
    (``examples``), an example of one the table draws, an example of no chart function, a
    chart of the table that is no chart function of the package. tests/test_view_table.py
    checks that there is none."""
    functions = chart_functions()
    drawn = table_charts()
    recipes = examples()
    problems = [f"no gallery picture for {n}: draw it in a view of view_table.VIEWS or give "
                f"it an example in examples()" for n in functions
                if n not in drawn and n not in recipes]
    problems += [f"{n} (drawn by the view table's {', '.join(drawn[n])}) has an example: "
                 f"the table draws its picture, remove it from examples()"
                 for n in recipes if n in drawn]
    problems += [f"examples() draws {n}, which is no chart function" for n in recipes
                 if n not in functions]
    problems += [f"the view table's {', '.join(v)} names {n}, which is no public chart "
                 f"function of the package" for n, v in drawn.items() if n not in functions]
    return problems


def make_gallery(out: Path = GENERATED) -> list[Picture]:
    """Draw every chart function (``chart_functions``) and write ``out/gallery.md``: those
    the view table draws (``table_charts``) as its views' sections (the report's), each view
    on the first fit it applies to, the others by their examples (``examples``). A chart
    function with no picture, an example of one the table draws, and a table's chart that is
    no chart function of the package fail the build."""
    from topicsup import Session
    from topicsup.view_table import VIEWS, applicable

    problems = gallery_problems()
    if problems:
        raise SystemExit("docs/build.py: " + "; ".join(problems))
    functions = chart_functions()
    recipes = examples()
    fits = _fits()
    sessions = [s for s in fits.values() if isinstance(s, Session)]
    folder = out / "gallery"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.svg"):
        old.unlink()
    pictures: list[Picture] = []
    names = {fn: name for name, fn in functions.items()}
    lines = ["# Gallery", "",
             "Every view of the package, drawn by the code when this site was built on small "
             "synthetic fits (a few sweeps of LightMedLDA, DOLDA under the horseshoe and the "
             "normal prior, HDP-LDA, Monte Carlo MedLDA, LDA learning its Dirichlet parameters, "
             "two LDA chains, `search_k` and the prevalence draws; `docs/build.py`). In Jupyter "
             "the same charts are interactive (tooltips, the relevance slider, a click on the "
             "topic map).", "",
             "## The views of a session", "",
             "What the dashboard and the offline report draw for a session: each view of the "
             "view table (`topicsup.view_table.VIEWS`) as the report draws it, on the first fit "
             "it applies to.", ""]
    for name, view in VIEWS.items():
        for s in sessions:
            h = s.history
            if name in s.readout(applicable) and view.ready(h) and (
                    sections := view.sections(s.readout(view.report_read()), h)):
                break
        else:   # drawn in another view's sections (throughput: under the log joint), or
            continue   # on no fit: its charts are missed below
        charts = tuple(names[fn] for fn in view.charts)
        lines += [f"### {view.title[:1].upper()}{view.title[1:]}", "",
                  f"The view `{name}` on the {type(s.model).__name__} fit, drawn by:", ""]
        lines += [f"* {{py:obj}}`{c.removeprefix('topicsup.')} <{_documented(c, functions[c])}>`"
                  f": {_first_line(functions[c])}" for c in charts]
        lines.append("")
        for i, (heading, chart) in enumerate(sections):
            file = f"gallery/view-{name}-{i}.svg"
            (out / file).write_text(svg_of(chart.to_dict()), encoding="utf-8")
            pictures.append(Picture(file, charts))
            lines += [f"**{heading}**", "", f"![{heading}]({file})", ""]
    shown = {c for p in pictures for c in p.functions}
    missing = [n for n in functions if n not in shown and n not in recipes]
    if missing:
        raise SystemExit("docs/build.py: no gallery picture for " + ", ".join(missing)
                         + ": the views of the table that draw it apply to none of "
                         "_fits()'s sessions (or their histories lack what they draw)")
    lines += ["## Other chart functions", "",
              "The charts no view of a session draws, each as a user calls it.", ""]
    for name, fn in functions.items():
        if name not in recipes:
            continue
        short = name.removeprefix("topicsup.")
        file = f"gallery/{short}.svg"
        (out / file).write_text(svg_of(recipes[name](fits).to_dict()), encoding="utf-8")
        pictures.append(Picture(file, (name,)))
        lines += [f"### `{short}`", "", _first_line(fn), "", f"![{short}]({file})", "",
                  f"API: {{py:obj}}`{_documented(name, fn)}`", ""]
    (out / "gallery.md").write_text("\n".join(lines), encoding="utf-8")
    return pictures


def views_api() -> list[str]:
    """The functions of ``topicsup.views.__all__`` in that order: the chart functions (and
    ``thin``) the views' API page lists."""
    from topicsup import views
    return [n for n in views.__all__ if inspect.isfunction(getattr(views, n))]


def write_views_api(out: Path = GENERATED) -> None:
    """Write ``out/views-api.md``, the API page of the views (docs/api.md's "Views" lists
    it): every function of ``views_api()``, so a new chart function is listed without
    editing a page."""
    names = views_api()
    lines = ["# Chart functions: `topicsup.views`", "",
             "Generated from the package by `docs/build.py`: every function of "
             "`topicsup.views.__all__`, each on its own page. Their pictures are in the "
             "[gallery](gallery.md).", "",
             "```{eval-rst}", ".. currentmodule:: topicsup.views", "", ".. autosummary::",
             "   :toctree: api", "   :nosignatures:", "", *[f"   {n}" for n in names], "```",
             ""]
    out.mkdir(parents=True, exist_ok=True)
    (out / "views-api.md").write_text("\n".join(lines), encoding="utf-8")


# ----------------------------------------------------------------------- 3. check links
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)
            if value and ((key == "href" and tag in ("a", "link", "area"))
                          or (key == "src" and tag in ("img", "script", "iframe", "source"))):
                self.links.append(value)


def broken_links(html_dir: Path) -> list[str]:
    """Every internal link of the HTML under ``html_dir`` that does not resolve, as
    ``page: target (why)``: a relative ``href`` or ``src`` must name a file that exists, and
    its ``#anchor`` an ``id`` (or ``name``) of that page. Links with a scheme (https:,
    mailto:, data:) or from the site's root (``//host``) are external."""
    html_dir = html_dir.resolve()
    parsed: dict[Path, _Links] = {}

    def page(path: Path) -> _Links:
        if path not in parsed:
            p = _Links()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = p
        return parsed[path]

    problems = []
    for html in sorted(html_dir.rglob("*.html")):
        if html.relative_to(html_dir).parts[0] in ("_static", "_sources", "_images"):
            continue       # the theme's templates and copied files, not pages
        for link in page(html).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue
            target = (html.parent / unquote(parts.path)).resolve() if parts.path else html
            where = html.relative_to(html_dir)
            if parts.path and not target.exists():
                problems.append(f"{where}: {link} (no such file)")
            elif target.is_dir() and not (target / "index.html").exists():
                problems.append(f"{where}: {link} (a folder without index.html)")
            elif (parts.fragment and target.suffix == ".html"
                  and unquote(parts.fragment) not in page(target).ids):
                problems.append(f"{where}: {link} (no id #{parts.fragment} in {target.name})")
    return problems


# -------------------------------------------------------------------------------- build
@dataclass
class Result:
    ok: bool
    warnings: list[str]
    broken: list[str]
    api_pages: int
    pictures: int
    notebooks: dict[str, str]
    seconds: float


def build(out: Path, executed_dir: Path | None = None, quiet: bool = False,
          execute: bool = True) -> Result:
    start = time.perf_counter()
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    origins = prepare_notebooks(executed_dir, execute=execute)
    for stem, origin in origins.items():
        say(f"notebook {stem}: {origin}")
    pictures = make_gallery()
    say(f"gallery: {len(pictures)} pictures ({time.perf_counter() - start:.1f} s)")
    write_views_api()
    out.mkdir(parents=True, exist_ok=True)
    doctrees = out.parent / f".doctrees-{out.name}"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
           "-d", str(doctrees), str(DOCS), str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    warnings = [line for line in (run.stderr + run.stdout).splitlines()
                if re.search(r"WARNING|ERROR|CRITICAL|Traceback|Exception", line)]
    if run.returncode and not warnings:
        warnings = [f"sphinx-build exited with {run.returncode}:", run.stderr[-2000:]]
    broken = broken_links(out) if (out / "index.html").exists() else ["no index.html built"]
    api = len(list((out / "_generated" / "api").glob("*.html")))
    gallery = out / "_generated" / "gallery.html"
    text = gallery.read_text(encoding="utf-8") if gallery.exists() else ""
    linked = set(re.findall(r'href="api/[^"#]+\.html#([^"]+)"', text))
    for name in dict.fromkeys(n for p in pictures for n in p.functions):
        short = name.rsplit(".", 1)[1]
        if name not in linked and f"topicsup.{short}" not in linked:
            broken.append(f"_generated/gallery.html: {name} has no link to its API page "
                          f"(list it in docs/api.md)")
    ok = not warnings and not broken and run.returncode == 0
    return Result(ok, warnings, broken, api, len(pictures), origins,
                  time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/build.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notebooks", type=Path, default=default_executed(),
                        help="the folder of executed notebooks (default %(default)s)")
    parser.add_argument("--out", type=Path, default=DOCS / "_build" / "html",
                        help="the HTML folder (default %(default)s)")
    parser.add_argument("--no-execute", action="store_true",
                        help="show a notebook without an executed copy without its outputs "
                             "instead of running it here")
    args = parser.parse_args(argv)
    result = build(args.out.resolve(), args.notebooks, execute=not args.no_execute)
    for w in result.warnings:
        print(w)
    if result.broken:
        print(f"{len(result.broken)} broken internal links:")
        for b in result.broken:
            print("  " + b)
    print(f"API pages: {result.api_pages}; gallery pictures: {result.pictures}; "
          f"{result.seconds:.1f} s")
    if result.ok:
        print(f"open {args.out.resolve() / 'index.html'}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
