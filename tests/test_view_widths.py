"""Every view fits a notebook (the teacher's trial: charts cut off at JupyterLab's default
width). Each chart is rendered to SVG by vl-convert, the renderer of Vega that the report's
bundle comes from, and the SVG's width, axes, titles and legends included, must be at most
``views.FIT_WIDTH``: a notebook's output area at 1280 px with the file browser open (848 px)
less vega-embed's 38 px for its actions menu (tests/widgets/test_notebooks_browser.py checks
the notebooks themselves in Chromium).

Every view of the view table is measured from the table itself: its dashboard panel at the
dashboard's size (``widgets.dashboard.PANEL``) and its report sections at their defaults, on
every session of this module it applies to, so a new line of the table is measured without
editing this file; the chart functions it calls on the way are its ``charts`` (what the
docs' gallery and tests/test_view_table.py go by). The hand-written cases (``VARIANTS``) are
the variants the table does not draw: held-out scores, labels longer than a session's, the
fits compared, the topic words.

The data are the awkward cases of real use: two chains with long names, 6 and 20 classes
with 20 Newsgroups' names, topic labels of three long words, 10 and 15 top words, a
held-out score, two to four fits compared.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest

from topicsup import summaries, views
from topicsup.history import ACCEPTANCE
from topicsup.view_table import CHAIN_VIEWS, VIEWS, applicable
from topicsup.widgets.dashboard import PANEL

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


def _corpus(classes: int):
    from topicsup.datasets import make_synthetic
    return make_synthetic(n_docs=300, n_topics=6, doc_length=40, task="multiclass",
                          n_classes=classes, seed=0).corpus


def _session(classes: int, K: int):
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    s = Session(LightMedLDA(K=K, lam=4.0, burn_in=4), _corpus(classes), seed=0)
    s.run(10)
    return s


@pytest.fixture(scope="module", params=[6, 20], ids=["6-classes", "20-classes"])
def session(request):
    return _session(request.param, K=30 if request.param == 6 else 20)


@pytest.fixture(scope="module")
def others():
    """A session of each kind whose views LightMedLDA's lacks: the sparse kernel's draws
    (DOLDA), live topics and tables (HDP-LDA), the outer loop (Monte Carlo MedLDA), learned
    Dirichlet parameters (LDA), the documents' prior (DMR); 6 classes."""
    from topicsup.models import DMR, DOLDA, HDPLDA, LDA, MCMedLDA
    from topicsup.session import Session
    corpus = _corpus(6)
    out = []
    for model in (DOLDA(K=10), HDPLDA(K=12), MCMedLDA(K=10, max_inner=3),
                  LDA(K=10, optimize="alpha+beta", optimize_every=2), DMR(K=10)):
        s = Session(model, corpus, seed=0)
        s.run(9)
        out.append(s)
    return out


@pytest.fixture(scope="module")
def chains():
    from topicsup.chains import Chains
    from topicsup.models import LDA
    c = Chains(LDA(K=10), _corpus(6), n_chains=2, seed=0)
    c.run(10)
    return c


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


# the variants the table does not draw: name -> the chart at its default arguments (all but
# the data)
VARIANTS = {
    "rhat": lambda s, h: views.rhat_chart(pd.DataFrame(
        {"sweep": np.arange(7, 20), "quantity": "log_joint", "r_hat": 1.05})),
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
    "topic map": lambda s, h: views.topic_map_chart(s.readout(summaries.topic_map)),
    "relevance": lambda s, h: views.relevance_chart(s.topic_terms(15)),
}


def _too_wide(charts) -> dict[str, float]:
    return {what: w for what, chart in charts if (w := svg_width(chart)) > views.FIT_WIDTH}


@pytest.fixture
def called(monkeypatch):
    """The functions of ``topicsup.views`` called through the package (as the view table
    calls them) while the test runs."""
    calls = []

    def recording(fn):
        def call(*args, **kwargs):
            calls.append(fn)
            return fn(*args, **kwargs)
        return call

    for name in views.__all__:
        if inspect.isfunction(fn := getattr(views, name)):
            monkeypatch.setattr(views, name, recording(fn))
    return calls


@pytest.mark.parametrize("name", list(VIEWS))
def test_every_view_of_the_table_fits_a_notebook(session, others, called, name):
    """The view's panel at the dashboard's size and its report sections, drawn by the table
    on every session it applies to, with two long-named chains in the history; they call
    the chart functions its ``charts`` names."""
    view = VIEWS[name]
    drawn = []
    for s in [session, *others]:
        h = _chains_history(s)
        if name in s.readout(applicable) and view.ready(h):
            kind = type(s.model).__name__
            drawn += [(f"{kind} panel", view.panel(s.readout(view.read), h, *PANEL)),
                      *[(f"{kind} section {head!r}", chart)
                        for head, chart in view.sections(s.readout(view.report_read()), h)]]
    assert drawn, f"no session of this module draws the view {name!r}: add one to others()"
    assert set(called) == set(view.charts), f"{name} draws {set(called)}"
    wide = _too_wide(drawn)
    assert not wide, f"{name} is wider than {views.FIT_WIDTH} px: {wide}"


@pytest.mark.parametrize("name", list(CHAIN_VIEWS))
def test_every_view_of_several_chains_fits_a_notebook(chains, called, name):
    view = CHAIN_VIEWS[name]
    h = chains.history
    assert view.ready(h)
    drawn = [("panel", view.panel(view.read(chains), h, *PANEL)),
             *view.sections(view.report_read()(chains), h)]
    assert set(called) == set(view.charts), f"{name} draws {set(called)}"
    wide = _too_wide(drawn)
    assert not wide, f"{name} is wider than {views.FIT_WIDTH} px: {wide}"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_fits_a_notebook_at_its_defaults(session, name):
    h = _chains_history(session)
    assert h["metric"].eq(ACCEPTANCE).any()
    width = svg_width(VARIANTS[name](session, h))
    assert width <= views.FIT_WIDTH, \
        f"{name} is {width:.0f} px wide at its defaults, more than {views.FIT_WIDTH}"
