"""The one way a chart reaches the front end: ``FiniteChart``, an Altair ``JupyterChart`` whose
spec is checked before any comm message carries it.

JSON has no NaN or infinity: a spec holding one is refused by the kernel's serializer (a red
"Message serialization failed ... Out of range float values are not JSON compliant" box in
the notebook, and a chart that never updates). Every spec a widget of this package sends
passes ``finite_spec``: a non-finite number in a data row becomes a missing value (null, which
Vega-Lite leaves out, as pandas' NaN is meant), and one anywhere else (a scale's domain, a
mark's size) is a bug in the view, raised with its place in the spec.

Legends of continuous colour scales are sent as symbol legends (a few sampled colours), not
gradients: each chart widget runs its own copy of Vega, every copy names its gradients
``gradient_0``, ``gradient_1``, ... and an SVG id is global to the page, so every later
chart's colour bar would be drawn with the first chart's colours.
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import traitlets


def finite_spec(spec: Any) -> Any:
    """``spec`` (a Vega-Lite dict) with every non-finite number of a data row replaced by
    None; a ``ValueError`` naming the path of a non-finite number outside the data."""
    def walk(node: Any, path: str, in_data: bool) -> Any:
        if isinstance(node, float) and not math.isfinite(node):
            if in_data:
                return None
            raise ValueError(f"the chart's spec holds {node} at {path or 'its top'}: a view "
                             f"must not send a non-finite number outside its data")
        if isinstance(node, dict):
            return {k: walk(v, f"{path}.{k}" if path else str(k),
                            in_data or k in ("datasets", "values"))
                    for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [walk(v, f"{path}[{i}]", in_data) for i, v in enumerate(node)]
        return node
    return walk(spec, "", False)


_COLOUR_CHANNELS = ("color", "fill", "stroke")


def symbol_legends(spec: Any) -> Any:
    """``spec`` with every legend of a continuous colour channel a symbol legend (see the
    module's note); a channel without legend (``legend: null``) stays without."""
    if isinstance(spec, list):
        return [symbol_legends(v) for v in spec]
    if not isinstance(spec, dict):
        return spec
    out = {}
    for k, v in spec.items():
        if k in _COLOUR_CHANNELS and isinstance(v, dict) and \
                v.get("type") in ("quantitative", "temporal") and \
                not ("legend" in v and v["legend"] is None):
            v = {**v, "legend": {**(v.get("legend") or {}), "type": "symbol"}}
        out[k] = symbol_legends(v) if k not in ("datasets", "values") else v
    return out


class FiniteChart(alt.JupyterChart):
    """``alt.JupyterChart`` with the Vega libraries inlined (no internet needed) and every
    spec passed through ``finite_spec`` before it is sent."""

    def __init__(self, chart: Any, **kwargs: Any) -> None:
        alt.JupyterChart.enable_offline()   # a no-op after the first call
        super().__init__(chart, **kwargs)

    @traitlets.validate("spec")
    def _finite(self, proposal: Any) -> Any:
        spec = proposal["value"]
        return None if spec is None else symbol_legends(finite_spec(spec))
