"""ipywidgets front ends for topicsup sessions (shipped as ``topicsup.widgets``).

The only layer that imports ipywidgets. ``Dashboard`` runs a Session in a worker thread with
live views (the kernels release the GIL and the Session stops between blocks on request, so the
notebook stays responsive and Pause acts within a fraction of a second); ``ChainsDashboard``
runs several chains at once with their log joints overlaid and R-hat live;
``InspectorWidget`` steps one document token by token, for teaching.
"""

from __future__ import annotations

import altair as alt

from .chains import ChainsDashboard
from .dashboard import Dashboard
from .explorer import Explorer
from .inspector import InspectorWidget


def offline_charts() -> None:
    """Render every Altair chart of this notebook as a widget with the Vega libraries inlined
    (``alt.JupyterChart`` in offline mode), so charts show without internet access."""
    alt.JupyterChart.enable_offline()
    alt.renderers.enable("jupyter", offline=True)


__all__ = ["ChainsDashboard", "Dashboard", "Explorer", "InspectorWidget", "offline_charts"]
