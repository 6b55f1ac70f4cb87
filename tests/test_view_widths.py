"""Every view fits a notebook at its default arguments (the teacher's trial: charts cut off at
JupyterLab's default width). Each chart is rendered to SVG by vl-convert, the renderer of
Vega that the report's bundle comes from, and the SVG's width, axes, titles and legends
included, must be at most ``views.FIT_WIDTH``: a notebook's output area at 1280 px with the
file browser open (848 px) less vega-embed's 38 px for its actions menu
(tests/widgets/test_notebooks_browser.py checks the notebooks themselves in Chromium).

The data are the awkward cases of real use: two chains with long names, 6 and 20 classes
with 20 Newsgroups' names, topic labels of three long words, 10 and 15 top words, a
held-out score, two to four fits compared.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from topicsup import summaries, views
from topicsup.history import ACCEPTANCE

vl_convert = pytest.importorskip("vl_convert")

NEWSGROUPS = ["alt.atheism", "comp.graphics", "comp.os.ms-windows.misc",
              "comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware", "comp.windows.x",
              "misc.forsale", "rec.autos", "rec.motorcycles", "rec.sport.baseball",
              "rec.sport.hockey", "sci.crypt", "sci.electronics", "sci.med", "sci.space",
              "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast",
              "talk.politics.misc", "talk.religion.misc"]
LONG_WORDS = ["christianity", "encryption", "motorcycles", "spacecraft", "electronics",
              "administration", "scriptures", "windows", "baseball", "hardware", "israeli",
              "government", "university", "graphics", "shuttle", "hockey", "medicine",
              "physician", "atheists", "politics"]
CHAINS = ["Gibbs MedLDA", "LightMedLDA (cycle)"]


def svg_width(chart) -> float:
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    return float(re.search(r'<svg[^>]*?\swidth="([\d.]+)"', svg).group(1))


def _long_labels(frame: pd.DataFrame, classes: int) -> pd.DataFrame:
    """Tasks named as 20 Newsgroups', topics labelled with three long words."""
    tasks = {t: NEWSGROUPS[i] for i, t in enumerate(pd.unique(frame["task"]))}
    words = {f: f"{i}: " + " ".join(LONG_WORDS[(3 * i + j) % len(LONG_WORDS)] for j in range(3))
             for i, f in enumerate(pd.unique(frame["feature"]))}
    return frame.assign(task=frame["task"].map(tasks), feature=frame["feature"].map(words))


def _session(classes: int, K: int):
    from topicsup.datasets import make_synthetic
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    data = make_synthetic(n_docs=300, n_topics=6, doc_length=40, task="multiclass",
                          n_classes=classes, seed=0)
    s = Session(LightMedLDA(K=K, lam=4.0, burn_in=4), data.corpus, seed=0)
    s.run(10)
    return s


@pytest.fixture(scope="module", params=[6, 20], ids=["6-classes", "20-classes"])
def session(request):
    return _session(request.param, K=30 if request.param == 6 else 20)


def _chains_history(s) -> pd.DataFrame:
    h = pd.concat([s.history.assign(chain=c) for c in CHAINS], ignore_index=True)
    sweeps = np.arange(1, s.n_sweeps + 1)
    extra = [pd.DataFrame({"sweep": sweeps, "metric": metric, "value": value, "proposal": None,
                           "chain": c})
             for c in CHAINS
             for metric, value in (("doc_part_share", 0.4), ("live_topics", 12.0),
                                   ("tables", 900.0), ("outer_iteration", 1.0),
                                   ("objective_change", 0.01), ("support", 0.3),
                                   ("alpha_sum", 1.5), ("beta", 0.02))]
    return pd.concat([h, *extra], ignore_index=True)


def _heldout(h: pd.DataFrame) -> pd.DataFrame:
    seconds = h[h["metric"] == "seconds"].groupby("chain")["value"].cumsum()
    rows = h[h["metric"] == "seconds"].assign(seconds=seconds, metric="test_accuracy",
                                              value=0.8)
    return rows[["sweep", "metric", "value", "chain", "seconds"]]


def _fits(s, n: int) -> pd.DataFrame:
    """The session's coefficients as ``n`` fits stacked for ``prior_comparison_chart``."""
    priors = ["horseshoe", "normal", "Laplace", "spike and slab"][:n]
    return pd.concat({p: _long_labels(s.coefficients(), 0) for p in priors},
                     names=["prior"]).reset_index(0)


# name -> the chart at its default arguments (all but the data)
CHARTS = {
    "loglik": lambda s, h: views.loglik_chart(h),
    "rhat": lambda s, h: views.rhat_chart(pd.DataFrame(
        {"sweep": np.arange(7, 20), "quantity": "log_joint", "r_hat": 1.05})),
    "throughput": lambda s, h: views.throughput_chart(h),
    "draw share": lambda s, h: views.draw_share_chart(h),
    "tables": lambda s, h: views.tables_chart(h),
    "hyperparameters": lambda s, h: views.hyperparameter_chart(h),
    "alternation": lambda s, h: views.alternation_chart(h, epsilon=1e-4),
    "step time": lambda s, h: views.step_time_chart(h),
    "acceptance": lambda s, h: views.acceptance_chart(h),
    "score": lambda s, h: views.score_chart(h, _heldout(h)),
    "score against seconds": lambda s, h: views.score_chart(h, _heldout(h), x="seconds"),
    "score pair": lambda s, h: views.score_pair_chart(h, _heldout(h)),
    "heatmap": lambda s, h: views.coefficient_heatmap(_long_labels(s.coefficients(), 0)),
    "heatmap of widths": lambda s, h: views.coefficient_heatmap(
        _long_labels(s.coefficients(), 0), value="width"),
    "forest": lambda s, h: views.forest_chart(_long_labels(s.coefficients(), 0)),
    "forest of a class": lambda s, h: views.forest_chart(
        _long_labels(s.coefficients(), 0), task=NEWSGROUPS[2]),
    "weight traces": lambda s, h: views.weight_trace_chart(_long_labels(s.weights(), 0)),
    "prior comparison": lambda s, h: views.prior_comparison_chart(_fits(s, 2)),
    "prior comparison, 3 fits": lambda s, h: views.prior_comparison_chart(_fits(s, 3)),
    "prior comparison, 4 fits": lambda s, h: views.prior_comparison_chart(_fits(s, 4)),
    "topic words, 10": lambda s, h: views.topic_words_chart(
        s.topics(10), topic_word=s.topic_word(), vocabulary=s.corpus.vocabulary),
    "topic words, 15": lambda s, h: views.topic_words_chart(
        s.topics(15), topic_word=s.topic_word(), vocabulary=s.corpus.vocabulary),
    "topic sizes": lambda s, h: views.topic_sizes_chart(s.readout(summaries.topic_sizes)),
    "topic map": lambda s, h: views.topic_map_chart(s.readout(summaries.topic_map)),
    "topic map with terms": lambda s, h: views.topic_map_chart(
        s.readout(summaries.topic_map), s.topic_terms(15)),
    "relevance": lambda s, h: views.relevance_chart(s.topic_terms(15)),
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_every_view_fits_a_notebook_at_its_defaults(session, name):
    h = _chains_history(session)
    assert h["metric"].eq(ACCEPTANCE).any()
    width = svg_width(CHARTS[name](session, h))
    assert width <= views.FIT_WIDTH, \
        f"{name} is {width:.0f} px wide at its defaults, more than {views.FIT_WIDTH}"


def test_every_report_section_fits_a_notebook(session):
    """The report's charts (the view table's sections, the topic words): its page is wider,
    but the same charts are what a notebook shows."""
    from topicsup.report import session_views
    wide = {head: w for head, chart in session_views(session)
            if (w := svg_width(chart)) > views.FIT_WIDTH}
    assert not wide, f"report sections wider than {views.FIT_WIDTH} px: {wide}"
