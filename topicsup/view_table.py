"""The view table: which charts of ``topicsup.views`` a screen draws for a session, and from
what. The one module that joins the charts (pure functions of frames) to what a session
holds (its history, its tables and read-outs): the dashboard, the offline report, the docs'
gallery and the width tests iterate the table and know no view by name.

A view is a line of ``VIEWS`` (a session's) or ``CHAIN_VIEWS`` (several chains', the
``ChainsDashboard``'s): a new view is a chart function in ``topicsup.views`` and one line
here. A view's callables read a session only through its public methods and
``Session.readout``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

import altair as alt
import pandas as pd

from . import summaries, views
from .history import ACCEPTANCE, STEP_SECONDS, TRAIN_PREFIX

if TYPE_CHECKING:
    from .chains import Chains
    from .session import Session
    from .views import AnyChart

T = TypeVar("T")   # what a view is drawn from: a Session, or several chains (Chains)


def _has(metric: str, prefix: bool = False) -> Callable[[pd.DataFrame], bool]:
    def ready(h: pd.DataFrame) -> bool:
        m = h["metric"].astype(str)
        return bool((m.str.startswith(metric) if prefix else m.eq(metric)).any())
    return ready


def _no_sections(subject: Any, history: pd.DataFrame) -> list[tuple[str, AnyChart]]:
    return []


@dataclass(frozen=True)
class View(Generic[T]):
    """One view of a session (or of several chains), for every screen that shows it: the
    dashboard draws ``panel(session, history, width, height)`` (settings changes marked when
    ``sweep_axis``), the offline report the ``sections(session, history)`` (heading, chart)
    pairs, once the history holds what it draws (``ready``). ``charts`` names the chart
    functions of ``topicsup.views`` the panel and the sections call (the docs' gallery
    pictures them with the sections; tests/test_view_widths.py checks that they are what
    the view calls, tests/test_view_table.py that they are public). Which views apply to a
    session is its model's rule (``Model.views``); ``on_request`` views (timings) the
    dashboard shows only when asked for; ``applies(session)`` says which sessions it is
    for."""

    title: str
    charts: tuple[Callable[..., AnyChart], ...]
    ready: Callable[[pd.DataFrame], bool]
    panel: Callable[[T, pd.DataFrame, int, int], AnyChart]
    # none: the view is a dashboard's panel only (the report draws it elsewhere, or the
    # report is of sessions and it is of several chains)
    sections: Callable[[T, pd.DataFrame], list[tuple[str, AnyChart]]] = _no_sections
    sweep_axis: bool = True
    on_request: bool = False
    # which sessions it applies to; None: those whose model names it (``Model.views``: the
    # parts know what their sampler records)
    applies: Callable[[T], bool] | None = None


# every view of a session, in reading order: a new view is a chart function in
# ``topicsup.views`` and a line here
VIEWS: dict[str, View[Session]] = {
    "loglik": View(
        "log joint", (views.loglik_chart, views.throughput_chart),
        _has("log_joint_per_token"),
        lambda s, h, w, ht: views.loglik_chart(h, width=w, height=ht),
        lambda s, h: [("Convergence", alt.vconcat(views.loglik_chart(h),
                                                  views.throughput_chart(h)))]),
    "acceptance": View(
        "Metropolis-Hastings acceptance", (views.acceptance_chart,), _has(ACCEPTANCE),
        lambda s, h, w, ht: views.acceptance_chart(h, width=w, height=ht),
        lambda s, h: [("Metropolis-Hastings acceptance", views.acceptance_chart(h))]),
    "draws": View(
        "sparse draws", (views.draw_share_chart,), _has("doc_part_share"),
        lambda s, h, w, ht: views.draw_share_chart(h, width=w, height=ht),
        lambda s, h: [("Sparse draws", views.draw_share_chart(h))]),
    "hyperparameters": View(   # panels: no settings marks (they need one chart)
        "learned alpha and beta", (views.hyperparameter_chart,),
        lambda h: _has("alpha_sum")(h) or _has("beta")(h),
        lambda s, h, w, ht: views.hyperparameter_chart(h, width=w, height=ht),
        lambda s, h: [("Learned Dirichlet parameters", views.hyperparameter_chart(h))],
        sweep_axis=False),
    "alternation": View(   # two panels: no settings marks (they need one chart)
        "outer iterations", (views.alternation_chart,), _has("outer_iteration"),
        lambda s, h, w, ht: views.alternation_chart(h, epsilon=s.model.epsilon, width=w,
                                                    height=ht // 2 + 10),
        lambda s, h: [("Outer iterations",
                       views.alternation_chart(h, epsilon=s.model.epsilon))],
        sweep_axis=False),
    "tables": View(
        "topics and tables", (views.tables_chart,), _has("live_topics"),
        lambda s, h, w, ht: views.tables_chart(h, width=w, height=ht),
        lambda s, h: [("Topics and tables", views.tables_chart(h))], sweep_axis=False),
    "score": View(
        "training score", (views.score_chart, views.score_pair_chart),
        _has(TRAIN_PREFIX, prefix=True),
        lambda s, h, w, ht: views.score_chart(h, width=w, height=ht),
        lambda s, h: [("Training score", views.score_pair_chart(h))]),
    "coefficients": View(
        "coefficients", (views.coefficient_heatmap, views.weight_trace_chart), lambda h: True,
        lambda s, h, w, ht: views.coefficient_heatmap(s.coefficients(), top=12,
                                                      target=s.target),
        lambda s, h: [("Coefficients", views.coefficient_heatmap(s.coefficients(),
                                                                 target=s.target)),
                      ("Weight traces", views.weight_trace_chart(s.weights(),
                                                                 target=s.target))]
        if len(h) else [], sweep_axis=False),
    "topic_map": View(
        "intertopic map", (views.topic_map_chart,), lambda h: True,
        lambda s, h, w, ht: views.topic_map_chart(s.readout(summaries.topic_map),
                                                  width=min(w, 480), height=ht),
        lambda s, h: [("Intertopic distance map", views.topic_map_chart(
            s.readout(summaries.topic_map), s.topic_terms(15)))],
        sweep_axis=False, on_request=True, applies=lambda s: True),
    "forest": View(
        "weights with intervals", (views.forest_chart,), lambda h: True,
        lambda s, h, w, ht: views.forest_chart(s.coefficients(), top=8, columns=2),
        lambda s, h: [("Topic weights with their intervals",
                       views.forest_chart(s.coefficients()))] if len(h) else [],
        sweep_axis=False, on_request=True, applies=lambda s: bool(s.model.supervised)),
    "throughput": View(   # the report draws it under the log joint ("loglik")
        "tokens per second", (views.throughput_chart,), _has("tokens_per_second"),
        lambda s, h, w, ht: views.throughput_chart(h, width=w, height=ht), on_request=True),
    "sizes": View(
        "topic sizes", (views.topic_sizes_chart,), lambda h: True,
        lambda s, h, w, ht: views.topic_sizes_chart(s.readout(summaries.topic_sizes),
                                                    width=w),
        lambda s, h: [("Topic sizes",
                       views.topic_sizes_chart(s.readout(summaries.topic_sizes)))],
        sweep_axis=False, on_request=True, applies=lambda s: True),
    "time": View(
        "seconds per step", (views.step_time_chart,), _has(STEP_SECONDS, prefix=True),
        lambda s, h, w, ht: views.step_time_chart(h, width=w, height=ht),
        lambda s, h: [("Seconds per step", views.step_time_chart(h))], on_request=True),
}

# the views of several chains (``Chains``: a ChainsDashboard's), in reading order; every one
# applies to any chains
CHAIN_VIEWS: dict[str, View[Chains]] = {
    "loglik": View(   # one line per chain (the history's chain column)
        "log joint", (views.loglik_chart,), _has("log_joint_per_token"),
        lambda c, h, w, ht: views.loglik_chart(h, width=w, height=ht)),
    "rhat": View(   # of the whole chains (Chains.convergence), not of the history shown
        "R-hat", (views.rhat_chart,), lambda h: True,
        lambda c, h, w, ht: views.rhat_chart(c.convergence(weights=c.model.supervised),
                                             width=w, height=ht),
        sweep_axis=False),
}


def applicable(session: Session) -> tuple[str, ...]:
    """The names of the views that apply to ``session``, in the table's reading order."""
    names = set(session.views)
    return tuple(name for name, view in VIEWS.items()
                 if (name in names if view.applies is None else view.applies(session)))


__all__ = ["CHAIN_VIEWS", "VIEWS", "View", "applicable"]
