"""The dashboard in a lecture: a cold start that says what it waits for, a pace a class can
follow, slow motion counting the tokens that moved, charts zoomed on the tail, controls that
mean what they show (a mixture's probabilities, a cycle's on/off), a tooltip on every control,
placeholders in plain words, and no non-finite number in any chart spec sent."""

from __future__ import annotations

import threading

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd
import pytest

from topicsup import warmup
from topicsup.datasets import make_synthetic
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session
from topicsup.widgets import FiniteChart, finite_spec
from topicsup.widgets.chains import ChainsDashboard
from topicsup.chains import Chains
from topicsup.widgets.dashboard import Dashboard


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=120, n_topics=3, doc_length=30, seed=2).corpus


def _session(corpus, **model):
    return Session(LDA(K=4, alpha=0.2, beta=0.05, sampler="light", **model), corpus, seed=1)


class _Pending(warmup.Warmup):
    """A warm-up the test ends: the dashboard must wait for it and say so."""

    def __init__(self):
        super().__init__("test", "LightMedLDA")


# ---------------------------------------------------------------------- the cold start
def test_run_waits_for_the_kernels_and_says_so(corpus):
    s = _session(corpus)
    dash = Dashboard(s, views=("loglik",), refresh_seconds=0.0)
    pending = dash._warmup = _Pending()
    shown = threading.Event()
    seen: list[tuple[str, int]] = []

    def watch(change):
        seen.append((change["new"], s.n_sweeps))
        if "compiling kernels" in change["new"]:
            shown.set()
    dash.status.observe(watch, names="value")
    dash.run(2)
    # the status says so the moment Run is clicked, before any sweep
    about = f"compiling kernels (first run only, about {warmup.expected_seconds('LightMedLDA'):.0f} s"
    assert about in dash.status.value
    assert shown.is_set() and s.n_sweeps == 0    # set by run() itself, before it returns
    title = dash.chart.spec["title"] if "title" in dash.chart.spec else str(dash.chart.spec)
    assert "compiling kernels" in str(dash._chart().to_dict()) or title
    pending._done.set()
    assert dash.wait() and s.n_sweeps == 2 and dash.error is None
    assert all(n == 0 for text, n in seen if "compiling kernels" in text)
    assert "compiling" not in dash.status.value


def test_pause_ends_the_wait_for_the_kernels(corpus):
    s = _session(corpus)
    dash = Dashboard(s, views=("loglik",))
    dash._warmup = _Pending()
    dash.run(5)
    dash.pause()
    assert dash.wait() and s.n_sweeps == 0 and not dash.running


def test_compile_ahead_is_once_per_configuration_and_leaves_the_chain_alone(corpus):
    model = LDA(K=4, alpha=0.25, beta=0.05, sampler="light", mh_steps=3)
    a = Session(model, corpus, seed=7, compile_ahead=True)
    warm = a.compile_ahead()
    assert warm.wait() and warm.error is None and warm.seconds is not None
    assert Session(model, corpus, seed=8).compile_ahead() is warm    # one per process
    b = Session(model, corpus, seed=7)
    a.run(3)
    b.run(3)
    np.testing.assert_array_equal(a.state.z, b.state.z)
    np.testing.assert_array_equal(a.rng, b.rng)
    assert a.history[["sweep", "metric"]].equals(b.history[["sweep", "metric"]])


def test_a_warm_up_keeps_every_class(corpus):
    """A few documents holding every label value: the label task has the real one's shape."""
    data = make_synthetic(n_docs=300, n_topics=3, doc_length=20, task="multiclass",
                          n_classes=7, seed=3)
    from topicsup.session import warmup_documents
    docs = warmup_documents(data.corpus)
    assert len(docs) <= 64 + 7
    codes = np.asarray(data.corpus.labels.values)
    assert set(codes[docs]) == set(codes) and len(set(codes)) >= 5


def test_the_progress_bar_says_it_is_compiling(corpus, monkeypatch):
    s = _session(corpus)
    pending = _Pending()
    monkeypatch.setattr(Session, "compile_ahead", lambda self, background=True: pending)
    said: list[str] = []

    class Bar:
        def set_description_str(self, text):
            said.append(text)
            if len(said) == 2:
                pending._done.set()
    s._await_kernels(Bar())
    about = f"about {warmup.expected_seconds('LightMedLDA'):.0f} s"
    assert said[0].startswith(f"LDA: compiling kernels (first run only, {about}")
    assert said[-1] == "LDA"


def test_precompile_names_its_models_and_compiles_them(capsys):
    from topicsup import precompile
    with pytest.raises(SystemExit):
        precompile.main(["NoSuchModel"])
    err = capsys.readouterr().err
    assert err.startswith("usage: ") and "unknown models ['NoSuchModel']" in err
    with pytest.raises(SystemExit):   # the flag an analyst tries first: the usage line too
        precompile.main(["--model", "nosuch"])
    err = capsys.readouterr().err
    assert err.startswith("usage: ") and "[models ...]" in err and "--model" in err
    seconds = precompile.main(["LDA"])
    assert set(seconds) == {"LDA"} and seconds["LDA"] >= 0
    assert set(precompile.ALL_MODELS) <= set(warmup.FIRST_RUN_SECONDS)


# ---------------------------------------------------------------------- pace and slow motion
def test_pace_spaces_the_sweeps_and_refreshes_each(corpus):
    s = _session(corpus)
    dash = Dashboard(s, views=("loglik",), pace=4.0)
    waits: list[float] = []
    real_wait = dash._pause.wait
    dash._pause.wait = lambda timeout=None: (waits.append(timeout), real_wait(0))[1]
    refreshes: list[int] = []
    real_refresh = dash.refresh
    dash.refresh = lambda charts=True: (refreshes.append(s.n_sweeps), real_refresh(charts))
    dash.run(3)
    assert dash.wait() and s.n_sweeps == 3
    # each one-sweep chunk waits out the rest of its quarter second, then refreshes
    assert len(waits) == 3 and all(0.0 <= t <= 0.25 for t in waits)
    assert [1, 2, 3] == [n for n in refreshes if n][:3]


def test_slow_motion_counts_the_tokens_that_changed_topic(corpus):
    s = _session(corpus)
    dash = Dashboard(s, views=("loglik",), sweeps_per_refresh=5)
    dash.slow_box.value = True
    assert dash.per_refresh_box.value == 1 and dash.pace_box.value == 1.0
    dash.pace_box.value = 0.0      # the test need not watch
    before = s.state.z.copy()
    dash.run(1)
    assert dash.wait()
    moved = int(np.count_nonzero(s.state.z != before))
    assert f"{moved:,} of {s.state.z.size:,} tokens" in dash.status.value
    assert "changed topic in sweep 1" in dash.status.value
    dash.slow_box.value = False
    assert dash.per_refresh_box.value == 5 and dash.pace_box.value == 0.0


def test_the_charts_zoom_on_the_last_sweeps(corpus):
    s = _session(corpus)
    dash = Dashboard(s, views=("loglik", "acceptance"), refresh_seconds=0.0, tail=3)
    dash.run(8)
    assert dash.wait()
    rows = [r for d in dash.chart.spec["datasets"].values() for r in d if "sweep" in r]
    assert rows and min(r["sweep"] for r in rows) == 6
    dash.tail_box.value = 0
    rows = [r for d in dash.chart.spec["datasets"].values() for r in d if "sweep" in r]
    assert min(r["sweep"] for r in rows) == 1


# ---------------------------------------------------------------------- controls that mean it
def test_mixture_sliders_show_the_probabilities_the_kernel_uses(corpus):
    data = make_synthetic(n_docs=80, n_topics=3, doc_length=20, seed=4)
    s = Session(LightMedLDA(K=3, lam=4.0, composition="mixture",
                            proposal_weights=(1.0, 1.0, 2.0)), data.corpus, seed=0)
    dash = Dashboard(s, views=("loglik",))
    shown = [dash.settings[f"proposal_weights/{k}"].value for k in ("doc", "word", "exp")]
    assert shown == [0.25, 0.25, 0.5]
    assert np.allclose(np.diff(s.model.topic_sampler.kind_cumulative(True), prepend=0), shown)
    dash.settings["proposal_weights/doc"].value = 0.5    # the others share the rest 1 : 2
    shown = [dash.settings[f"proposal_weights/{k}"].value for k in ("doc", "word", "exp")]
    assert np.allclose(shown, [0.5, 1 / 6, 1 / 3], atol=1e-4)
    probs = np.diff(s.model.topic_sampler.kind_cumulative(True), prepend=0)
    assert np.allclose(probs, shown, atol=1e-4) and abs(sum(shown) - 1) < 1e-3
    dash.settings["composition"].value = "cycle"         # now on/off, not probabilities
    assert all(isinstance(dash.settings[f"proposal_weights/{k}"], w.Checkbox)
               for k in ("doc", "word", "exp"))
    assert [dash.settings[f"proposal_weights/{k}"].description for k in ("doc", "exp")] == \
        ["use doc", "use exp"]


def test_an_unused_setting_is_greyed_out_with_the_reason(corpus):
    s = _session(corpus, composition="cycle")
    dash = Dashboard(s, views=("loglik",))
    assert dash.settings["p_doc"].disabled and "Unused in a cycle" in dash.settings["p_doc"].tooltip
    dash.settings["composition"].value = "mixture"
    assert not dash.settings["p_doc"].disabled


def _controls(widget):
    out = []
    for child in getattr(widget, "children", ()):
        if isinstance(child, (w.Button, w.IntText, w.BoundedIntText, w.Dropdown, w.Checkbox,
                              w.FloatSlider, w.IntProgress)):
            out.append(child)
        out += _controls(child)
    return out


@pytest.mark.parametrize("model", [LDA(K=3, sampler="light"), LightMedLDA(K=3, lam=4.0),
                                   LDA(K=3)], ids=["light", "lightmedlda", "gibbs"])
def test_every_control_has_a_one_sentence_tooltip(model):
    data = make_synthetic(n_docs=60, n_topics=3, doc_length=20, seed=4)
    dash = Dashboard(Session(model, data.corpus, seed=0))
    controls = _controls(dash.widget)
    assert len(controls) >= 9
    for c in controls:
        tip = c.tooltip or ""
        assert len(tip.split()) >= 4 and tip.count(". ") == 0, \
            f"{type(c).__name__} {c.description!r} has no one-sentence tooltip: {tip!r}"


def test_placeholders_are_plain_words(corpus):
    dash = Dashboard(_session(corpus), views=("loglik", "acceptance"))
    dash._warmup = None
    spec = dash._chart().to_dict()
    text = str(spec)
    titles = [c["title"] for row in spec["vconcat" if "vconcat" in spec else "hconcat"]
              for c in row.get("hconcat", [row])]
    assert {"text": "log joint", "subtitle": "appears after the first sweep"} in titles
    assert "loglik" not in text and "waiting" not in text


def test_the_chains_legends_stay_apart_and_the_threshold_shows(corpus):
    chains = Chains(LDA(K=3), corpus, n_chains=2, seed=0)
    dash = ChainsDashboard(chains, sweeps=12, sweeps_per_refresh=12, refresh_seconds=0.0)
    dash.run()
    assert dash.wait() and dash.error is None
    spec = dash.chart.spec
    assert spec["hconcat"] if "hconcat" in spec else spec["vconcat"]
    row = spec if "hconcat" in spec else spec["vconcat"][0]
    assert row["resolve"]["scale"]["color"] == "independent"
    assert "1.01 (converged below)" in str(spec)


# ---------------------------------------------------------------------- nothing non-finite sent
def test_a_non_finite_value_never_reaches_the_front_end():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, np.inf, -np.inf]})
    spec = {"data": {"values": df.to_dict("records")}, "mark": "line"}
    clean = finite_spec(spec)
    assert [r["y"] for r in clean["data"]["values"]] == [1.0, None, None]
    with pytest.raises(ValueError, match=r"nan at encoding\.y\.scale\.domain\[1\]"):
        FiniteChart(alt.Chart(df).mark_line().encode(
            x="x", y=alt.Y("y", scale=alt.Scale(domain=[0, float("nan")]))))
    chart = FiniteChart(alt.Chart(pd.DataFrame({"x": [1.0]})).mark_point().encode(x="x"))
    chart.spec = spec          # every spec, however set, is checked before it is sent
    assert chart.spec["data"]["values"][1]["y"] is None


def test_every_chart_widget_goes_through_the_check():
    """No widget module builds a JupyterChart but through FiniteChart (the one check)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "widgets"
    offenders = [p.name for p in root.glob("*.py")
                 if p.name != "charts.py" and "alt.JupyterChart(" in p.read_text()]
    assert offenders == []


def test_colour_bars_are_sent_as_symbol_legends():
    """Each chart widget runs its own Vega, whose gradients are all named gradient_0, ...:
    a colour bar would take the first chart's colours, so none is sent."""
    from topicsup.widgets.charts import symbol_legends
    df = pd.DataFrame({"x": ["a", "b"], "y": ["c", "d"], "v": [0.1, 0.9]})
    heat = alt.Chart(df).mark_rect().encode(x="x", y="y", color="v:Q")
    spec = FiniteChart(heat).spec
    assert spec["encoding"]["color"]["legend"]["type"] == "symbol"
    none = alt.Chart(df).mark_rect().encode(x="x", color=alt.Color("v:Q", legend=None))
    assert FiniteChart(none).spec["encoding"]["color"]["legend"] is None
    nominal = alt.Chart(df).mark_point().encode(x="x", color="y:N")
    assert "legend" not in FiniteChart(nominal).spec["encoding"]["color"]
    assert symbol_legends({"datasets": {"d": [{"color": {"type": "quantitative"}}]}}) == \
        {"datasets": {"d": [{"color": {"type": "quantitative"}}]}}   # data left alone
