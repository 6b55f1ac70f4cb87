"""The view table and the chart functions stay one (docs/architecture.md: a new view is a
chart function in ``topicsup.views`` and a line of ``topicsup.view_table.VIEWS``): every chart
a line of a table names is a public chart function of ``topicsup.views``, and every chart
function of the package is pictured in the docs' gallery, from a line of ``VIEWS`` (its
sections) or by an example of its own (docs/build.py's ``examples()``, only for the charts
the table does not draw). The build checks the same when it draws the gallery; this reads
the tables and the build's lists without fitting anything.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from topicsup import views
from topicsup.view_table import CHAIN_VIEWS, VIEWS, View

ROOT = Path(__file__).resolve().parents[1]


def _load_build():
    spec = importlib.util.spec_from_file_location("topicsup_docs_build", ROOT / "docs" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


build = _load_build()


def _not_public(tables: dict[str, dict[str, View]]) -> list[str]:
    """The charts lines of ``tables`` name that are no public chart function of
    ``topicsup.views`` (in its ``__all__``, an Altair chart its return type), and the lines
    that name no chart."""
    charts = build.chart_functions()
    out = []
    for table, lines in tables.items():
        for name, view in lines.items():
            if not view.charts:
                out.append(f"{table}[{name!r}] names no chart")
            for fn in view.charts:
                full = f"topicsup.views.{fn.__name__}"
                if not (fn.__name__ in views.__all__ and charts.get(full) is fn):
                    out.append(f"{table}[{name!r}]: {fn.__module__}.{fn.__qualname__}")
    return out


def test_every_chart_of_a_table_line_is_a_public_chart_function_of_the_package():
    assert _not_public({"VIEWS": VIEWS, "CHAIN_VIEWS": CHAIN_VIEWS}) == []


def test_a_line_naming_another_function_is_reported():
    from topicsup.views._common import _line
    fake = View("a view", (views.loglik_chart, views.thin, _line), lambda h: True,
                lambda s, h, w, ht: views.loglik_chart(h))
    assert _not_public({"T": {"fake": fake, "none": View("", (), fake.ready, fake.panel)}}) == [
        "T['fake']: topicsup.views._common.thin", "T['fake']: topicsup.views._common._line",
        "T['none'] names no chart"]


def test_every_chart_function_is_drawn_by_the_table_or_has_a_gallery_example():
    assert build.gallery_problems() == []


def test_a_chart_function_with_neither_is_reported(monkeypatch):
    """A new public chart function of the package with no line of the table and no example
    is what the check above (and the build) reports."""
    import altair as alt

    def orphan_chart(frame) -> alt.Chart:
        return alt.Chart(frame)

    orphan_chart.__module__ = "topicsup.views.convergence"
    monkeypatch.setattr(views, "orphan_chart", orphan_chart, raising=False)
    assert build.gallery_problems() == [
        "no gallery picture for topicsup.views.orphan_chart: draw it in a view of "
        "view_table.VIEWS or give it an example in examples()"]
