"""The view table: which charts of ``topicsup.views`` a screen draws for a chain, and from
what. The one module that joins the charts (pure functions of frames) to what a chain holds:
the dashboard, the offline report, the docs' gallery and the width tests iterate the table
and know no view by name.

A view is a line of ``VIEWS`` (a session's) or ``CHAIN_VIEWS`` (several chains', the
``ChainsDashboard``'s): a new view is a chart function in ``topicsup.views`` and one line
here. A line reads what it draws from the chain's ``Fit`` (``topicsup.problem``), the one
snapshot every reader takes, in two steps: ``read`` (and ``read_sections`` for the report)
takes the read-outs it needs, with the chain held still (``Session.readout(view.read)``),
and ``panel`` / ``sections`` draw them and the history, with the chain free to sample again,
so a dashboard's redraw never holds up the sampler for longer than a read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

import altair as alt
import pandas as pd

from . import summaries, views
from .history import ACCEPTANCE, STEP_SECONDS, TRAIN_PREFIX
from .summaries import ModelFit

if TYPE_CHECKING:
    from .chains import Chains
    from .views import AnyChart

T = TypeVar("T")   # what a view is read from: a session's Fit, or several chains (Chains)
# what a view's read gives its panel and sections: read-outs by name
Frames = dict[str, Any]


def _has(metric: str, prefix: bool = False) -> Callable[[pd.DataFrame], bool]:
    def ready(h: pd.DataFrame) -> bool:
        m = h["metric"].astype(str)
        return bool((m.str.startswith(metric) if prefix else m.eq(metric)).any())
    return ready


def _nothing(subject: Any) -> Frames:
    return {}


def _no_sections(frames: Frames, history: pd.DataFrame) -> list[tuple[str, AnyChart]]:
    return []


@dataclass(frozen=True)
class View(Generic[T]):
    """One view of a chain (or of several chains), for every screen that shows it: the
    dashboard draws ``panel(frames, history, width, height)`` (settings changes marked when
    ``sweep_axis``), the offline report the ``sections(frames, history)`` (heading, chart)
    pairs, once the history holds what it draws (``ready``). ``frames`` is what ``read``
    took of the chain's ``Fit`` (``read_sections`` for the report, when its sections draw
    more than the panel: the weight traces), read with the chain held still; a view drawn
    from the history alone reads nothing. ``charts`` names the chart functions of
    ``topicsup.views`` the panel and the sections call (the docs' gallery pictures them with
    the sections; tests/test_view_widths.py checks that they are what the view calls,
    tests/test_view_table.py that they are public). Which views apply to a chain is its
    model's rule (``Model.views``); ``on_request`` views (timings) the dashboard shows only
    when asked for; ``applies(fit)`` says which chains it is for."""

    title: str
    charts: tuple[Callable[..., AnyChart], ...]
    ready: Callable[[pd.DataFrame], bool]
    panel: Callable[[Frames, pd.DataFrame, int, int], AnyChart]
    # none: the view is a dashboard's panel only (the report draws it elsewhere, or the
    # report is of sessions and it is of several chains)
    sections: Callable[[Frames, pd.DataFrame], list[tuple[str, AnyChart]]] = _no_sections
    read: Callable[[T], Frames] = _nothing
    read_sections: Callable[[T], Frames] | None = None   # None: ``read``
    sweep_axis: bool = True
    on_request: bool = False
    # which chains it applies to; None: those whose model names it (``Model.views``: the
    # parts know what their sampler records)
    applies: Callable[[T], bool] | None = None

    def report_read(self) -> Callable[[T], Frames]:
        """What the report's sections read (``read_sections``, else ``read``)."""
        return self.read if self.read_sections is None else self.read_sections


# ---------------------------------------------------------------------- what views read
def _target(fit: ModelFit) -> str:
    """What the tasks are, for titles: ``"class"``, ``"response"`` or ``""``."""
    return "" if fit.problem.task is None else fit.problem.task.target


def _coefficients(fit: ModelFit) -> Frames:
    return {"coefficients": summaries.coefficients(fit), "target": _target(fit)}


def _coefficients_and_traces(fit: ModelFit) -> Frames:
    return {**_coefficients(fit), "weights": summaries.weight_trace(fit)}


def _epsilon(fit: ModelFit) -> Frames:
    return {"epsilon": fit.problem.model.epsilon}


def _document_prior(fit: ModelFit) -> Frames:
    return {"prior": summaries.document_prior(fit)}


def _topic_map(fit: ModelFit) -> Frames:
    return {"topic_map": summaries.topic_map(fit)}


def _topic_map_and_terms(fit: ModelFit) -> Frames:
    return {**_topic_map(fit), "terms": summaries.topic_terms(fit, 15)}


def _sizes(fit: ModelFit) -> Frames:
    return {"sizes": summaries.topic_sizes(fit)}


# every view of a session, in reading order: a new view is a chart function in
# ``topicsup.views`` and a line here
VIEWS: dict[str, View[ModelFit]] = {
    "loglik": View(
        "log joint", (views.loglik_chart, views.throughput_chart),
        _has("log_joint_per_token"),
        lambda f, h, w, ht: views.loglik_chart(h, width=w, height=ht),
        lambda f, h: [("Convergence", alt.vconcat(views.loglik_chart(h),
                                                  views.throughput_chart(h)))]),
    "acceptance": View(
        "Metropolis-Hastings acceptance", (views.acceptance_chart,), _has(ACCEPTANCE),
        lambda f, h, w, ht: views.acceptance_chart(h, width=w, height=ht),
        lambda f, h: [("Metropolis-Hastings acceptance", views.acceptance_chart(h))]),
    "draws": View(
        "sparse draws", (views.draw_share_chart,), _has("doc_part_share"),
        lambda f, h, w, ht: views.draw_share_chart(h, width=w, height=ht),
        lambda f, h: [("Sparse draws", views.draw_share_chart(h))]),
    "hyperparameters": View(   # panels: no settings marks (they need one chart)
        "learned alpha and beta", (views.hyperparameter_chart,),
        lambda h: _has("alpha_sum")(h) or _has("beta")(h),
        lambda f, h, w, ht: views.hyperparameter_chart(h, width=w, height=ht),
        lambda f, h: [("Learned Dirichlet parameters", views.hyperparameter_chart(h))],
        sweep_axis=False),
    "alternation": View(   # two panels: no settings marks (they need one chart)
        "outer iterations", (views.alternation_chart,), _has("outer_iteration"),
        lambda f, h, w, ht: views.alternation_chart(h, epsilon=f["epsilon"], width=w,
                                                    height=ht // 2 + 10),
        lambda f, h: [("Outer iterations",
                       views.alternation_chart(h, epsilon=f["epsilon"]))],
        read=_epsilon, sweep_axis=False),
    "tables": View(
        "topics and tables", (views.tables_chart,), _has("live_topics"),
        lambda f, h, w, ht: views.tables_chart(h, width=w, height=ht),
        lambda f, h: [("Topics and tables", views.tables_chart(h))], sweep_axis=False),
    "score": View(
        "training score", (views.score_chart, views.score_pair_chart),
        _has(TRAIN_PREFIX, prefix=True),
        lambda f, h, w, ht: views.score_chart(h, width=w, height=ht),
        lambda f, h: [("Training score", views.score_pair_chart(h))]),
    "coefficients": View(
        "coefficients", (views.coefficient_heatmap, views.weight_trace_chart), lambda h: True,
        lambda f, h, w, ht: views.coefficient_heatmap(f["coefficients"], top=12,
                                                      target=f["target"]),
        lambda f, h: [("Coefficients", views.coefficient_heatmap(f["coefficients"],
                                                                 target=f["target"])),
                      ("Weight traces", views.weight_trace_chart(f["weights"],
                                                                 target=f["target"]))]
        if len(h) else [],
        read=_coefficients, read_sections=_coefficients_and_traces, sweep_axis=False),
    "prior": View(
        "documents' prior", (views.prior_heatmap,),
        lambda h: _has("mean_alpha_sum")(h) or _has("mean_sigma")(h),
        lambda f, h, w, ht: views.prior_heatmap(f["prior"]),
        lambda f, h: [("The documents' prior by class", views.prior_heatmap(f["prior"]))],
        read=_document_prior, sweep_axis=False),
    "topic_map": View(
        "intertopic map", (views.topic_map_chart,), lambda h: True,
        lambda f, h, w, ht: views.topic_map_chart(f["topic_map"], width=min(w, 480),
                                                  height=ht),
        lambda f, h: [("Intertopic distance map",
                       views.topic_map_chart(f["topic_map"], f["terms"]))],
        read=_topic_map, read_sections=_topic_map_and_terms, sweep_axis=False,
        on_request=True, applies=lambda fit: True),
    "forest": View(
        "weights with intervals", (views.forest_chart,), lambda h: True,
        lambda f, h, w, ht: views.forest_chart(f["coefficients"], top=8, columns=2),
        lambda f, h: [("Topic weights with their intervals",
                       views.forest_chart(f["coefficients"]))] if len(h) else [],
        read=_coefficients, sweep_axis=False, on_request=True,
        applies=lambda fit: bool(fit.problem.model.supervised)),
    "throughput": View(   # the report draws it under the log joint ("loglik")
        "tokens per second", (views.throughput_chart,), _has("tokens_per_second"),
        lambda f, h, w, ht: views.throughput_chart(h, width=w, height=ht), on_request=True),
    "sizes": View(
        "topic sizes", (views.topic_sizes_chart,), lambda h: True,
        lambda f, h, w, ht: views.topic_sizes_chart(f["sizes"], width=w),
        lambda f, h: [("Topic sizes", views.topic_sizes_chart(f["sizes"]))],
        read=_sizes, sweep_axis=False, on_request=True, applies=lambda fit: True),
    "moves": View(
        "tokens that changed topic", (views.change_rate_chart,), _has("topic_change_rate"),
        lambda f, h, w, ht: views.change_rate_chart(h, width=w, height=ht),
        lambda f, h: [("Tokens that changed topic", views.change_rate_chart(h))],
        on_request=True, applies=lambda fit: True),
    "time": View(
        "seconds per step", (views.step_time_chart,), _has(STEP_SECONDS, prefix=True),
        lambda f, h, w, ht: views.step_time_chart(h, width=w, height=ht),
        lambda f, h: [("Seconds per step", views.step_time_chart(h))], on_request=True),
}


def _convergence(chains: Chains) -> Frames:
    return {"convergence": chains.convergence(weights=chains.model.supervised)}


# the views of several chains (``Chains``: a ChainsDashboard's), in reading order; every one
# applies to any chains. Several chains are read through their sessions' own reads.
CHAIN_VIEWS: dict[str, View[Chains]] = {
    "loglik": View(   # one line per chain (the history's chain column)
        "log joint", (views.loglik_chart,), _has("log_joint_per_token"),
        lambda f, h, w, ht: views.loglik_chart(h, width=w, height=ht)),
    "rhat": View(   # of the whole chains (Chains.convergence), not of the history shown
        "R-hat", (views.rhat_chart,), lambda h: True,
        lambda f, h, w, ht: views.rhat_chart(f["convergence"], width=w, height=ht),
        read=_convergence, sweep_axis=False),
}


def applicable(fit: ModelFit) -> tuple[str, ...]:
    """The names of the views that apply to the chain of ``fit``, in the table's reading
    order (``Session.readout(applicable)``)."""
    names = set(fit.problem.model.views)
    return tuple(name for name, view in VIEWS.items()
                 if (name in names if view.applies is None else view.applies(fit)))


def shown(fit: ModelFit) -> tuple[str, ...]:
    """The views a dashboard draws unless told which (``Session.readout(shown)``): those that
    apply (``applicable``) except the ones drawn on request, the table's (``View.on_request``:
    the timings) and the model's (``views_on_request``: its sampler's statistics that are
    flat for its kernel)."""
    quiet = set(getattr(fit.problem.model, "views_on_request", ()))
    return tuple(name for name in applicable(fit)
                 if not VIEWS[name].on_request and name not in quiet)


__all__ = ["CHAIN_VIEWS", "VIEWS", "Frames", "View", "applicable", "shown"]
