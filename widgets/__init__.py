"""ipywidgets front ends for topicsup sessions (shipped as ``topicsup.widgets``).

The only layer that imports ipywidgets. ``Dashboard`` runs a Session in a worker thread with
live views (the kernels release the GIL and the Session stops between blocks on request, so the
notebook stays responsive and Pause acts within a fraction of a second); ``ChainsDashboard``
runs several chains at once with their log joints overlaid and R-hat live;
``InspectorWidget`` steps one document token by token, for teaching.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from .charts import FiniteChart, finite_spec
from .chains import ChainsDashboard
from .dashboard import Dashboard
from .explorer import Explorer
from .inspector import InspectorWidget


def _render(spec: dict[str, Any], **metadata: Any) -> Any:
    """Altair's "jupyter" renderer through ``FiniteChart``: a plain chart shown in a cell
    passes the same check as the dashboards' before its spec is sent."""
    chart = FiniteChart(alt.Chart.from_dict(spec), embed_options=metadata.get("embed_options"))
    return chart._repr_mimebundle_()


def offline_charts() -> None:
    """Render every Altair chart of this notebook as a widget with the Vega libraries inlined
    (``FiniteChart``: offline, and no NaN or infinity sent), so charts show without internet
    access."""
    alt.renderers.register("topicsup", _render)
    alt.renderers.enable("topicsup")


__all__ = ["ChainsDashboard", "Dashboard", "Explorer", "FiniteChart", "InspectorWidget",
           "finite_spec", "offline_charts"]
