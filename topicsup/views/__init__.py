"""Altair chart builders: pure functions of tidy DataFrames. They never run sampling.

Every chart takes the Session ``history`` (columns ``sweep``, ``metric``, ``value``,
``proposal``, optionally ``chain``) or a table the Session returns (``coefficients()``,
``weights()``, ``topics()``), and returns an Altair chart; showing it is the caller's
business. Long traces are thinned here, never in the history, so charts stay under Altair's
5,000-row inline-data limit.

One module per family of charts, every public name re-exported here (``from topicsup import
views; views.loglik_chart(...)``):

* ``convergence``: the log joint, R-hat, the score and what the sampler records per sweep;
* ``weights``: the coefficients as a heatmap and a forest, prior comparisons, weight traces;
* ``topics``: relevance, the intertopic map, the top words, the topics' sizes;
* ``conditional``: the token inspector's conditional and proposals;
* ``marks``: where a live setting changed, on a chart against sweeps;
* ``prevalence``: topic prevalence with its posterior intervals;
* ``_common``: what they share (``FIT_WIDTH``, ``thin``, the frames' checks).

The charts import no read-out and no session: which chart a dashboard or the report draws
for a session, and from which read-out, is the view table's (``topicsup.view_table``).
"""

from typing import TYPE_CHECKING

from ..history import ACCEPTANCE, STEP_SECONDS, TRAIN_PREFIX
from ._common import CHAIN_SYMBOL, FIT_WIDTH, MAX_ROWS, POINTS_BELOW, thin
from .conditional import conditional_chart
from .convergence import (ALTERNATION, HYPERPARAMETERS, RHAT_OK, TABLES, acceptance_chart,
                          alternation_chart, change_rate_chart, draw_share_chart,
                          hyperparameter_chart,
                          loglik_chart, rhat_chart, score_chart, score_pair_chart,
                          step_time_chart, tables_chart, throughput_chart)
from .marks import mark_settings_changes
from .prevalence import INTERCEPT, along_chart, effect_chart, prevalence_chart
from .topics import relevance_chart, topic_map_chart, topic_sizes_chart, topic_words_chart
from .weights import (COEFFICIENT_COLUMNS, COEFFICIENT_VALUES, PANELS_PER_ROW,
                      coefficient_heatmap, forest_chart, prior_comparison_chart,
                      prior_heatmap,
                      weight_trace_chart)

if TYPE_CHECKING:
    from ._common import AnyChart as AnyChart

__all__ = [
    # shared
    "CHAIN_SYMBOL", "FIT_WIDTH", "MAX_ROWS", "POINTS_BELOW", "thin",
    # convergence and the sampler at work (the history's metric names they read)
    "ACCEPTANCE", "ALTERNATION", "HYPERPARAMETERS", "RHAT_OK", "STEP_SECONDS", "TABLES",
    "TRAIN_PREFIX", "loglik_chart", "rhat_chart", "throughput_chart", "draw_share_chart",
    "tables_chart", "hyperparameter_chart", "alternation_chart", "step_time_chart",
    "acceptance_chart", "score_chart", "score_pair_chart", "change_rate_chart",
    # weights
    "COEFFICIENT_COLUMNS", "COEFFICIENT_VALUES", "PANELS_PER_ROW", "coefficient_heatmap",
    "forest_chart", "prior_comparison_chart", "prior_heatmap", "weight_trace_chart",
    # topics
    "relevance_chart", "topic_map_chart", "topic_words_chart", "topic_sizes_chart",
    # the token inspector, settings changes, prevalence
    "conditional_chart", "mark_settings_changes", "INTERCEPT", "prevalence_chart",
    "effect_chart", "along_chart",
]
