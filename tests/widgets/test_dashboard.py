"""Dashboard: sampling in a worker thread driven by the buttons, pause mid-sweep losing
nothing, the chain equal to a plain Session's, live settings, status and charts; no browser
(tests/widgets/test_browser.py drives a real one)."""

from __future__ import annotations

import json
import re
import threading
from html.parser import HTMLParser

import ipywidgets as w
import numpy as np
import pytest

from topicsup.datasets import make_synthetic
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session
from topicsup.widgets.dashboard import Dashboard

from ..testing.threads import run_in_thread


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=200, n_topics=4, doc_length=40, seed=5).corpus


def _light(corpus, **kw):
    return Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                   block_tokens=400, **kw)


def test_buttons_run_step_and_pause_a_worker(corpus):
    """Run returns at once and samples in a worker; Pause stops it (the sweep counter stays
    put afterwards); Step adds exactly one sweep; the status line follows."""
    s = _light(corpus)
    run_block, three = s._run_block, threading.Event()

    def block():   # tells the test when 3 sweeps are done (or that sampling failed)
        try:
            run_block()
        except BaseException:
            three.set()
            raise
        if s.n_sweeps >= 3:
            three.set()
    s._run_block = block
    dash = Dashboard(s, sweeps=100000, refresh_seconds=0.0)
    dash.run_button.click()
    assert dash.running and dash.run_button.disabled and not dash.pause_button.disabled
    three.wait()
    dash.pause_button.click()
    assert dash.wait() and dash.error is None
    stopped = s.n_sweeps
    # the worker has ended and nothing else samples: the counter cannot move any more
    assert not dash.running and not s.running and 3 <= stopped < 100000
    assert not dash.run_button.disabled and dash.pause_button.disabled
    dash.step_button.click()
    assert dash.wait()
    assert s.n_sweeps == stopped + 1 and not s.in_sweep
    assert f"sweep {stopped + 1}" in dash.status.value
    assert "acceptance doc" in dash.status.value and "idle" in dash.status.value


def test_dashboard_chain_is_the_sessions_chain(corpus):
    """Chunking, refreshing and a pause in the middle of a sweep do not touch the random
    stream: the dashboard's chain equals an uninterrupted Session.run, bit for bit."""
    s = _light(corpus, log_joint_every=1)
    dash = Dashboard(s, sweeps_per_refresh=3, refresh_seconds=0.0)
    # pause after a few blocks of the 3rd sweep: request_stop from inside the kernel's loop
    blocks = {"n": 0}
    run_block = s._run_block

    def counting():
        run_block()
        blocks["n"] += 1
        if blocks["n"] == 2 * s.n_blocks + 2:
            dash.pause()
    s._run_block = counting
    dash.run(7)
    assert dash.wait()
    assert s.in_sweep and s.n_sweeps == 2
    s._run_block = run_block
    dash.run(5)              # finishes sweep 3, then 4 more: 7 sweeps in all
    assert dash.wait()
    ref = _light(corpus, log_joint_every=1)
    ref.run(7)
    assert s.n_sweeps == 7
    np.testing.assert_array_equal(s.state.z, ref.state.z)
    np.testing.assert_array_equal(s.rng, ref.rng)


def test_live_settings_change_the_sampler(corpus):
    """The proposal mix, MH steps and the form of the label term act on the session's model
    between sweeps; an invalid mix is refused with a message and leaves the model as it
    was."""
    data = make_synthetic(n_docs=120, n_topics=3, doc_length=30, seed=1)
    s = Session(LightMedLDA.as_published(K=3, lam=4.0), data.corpus, seed=0)
    dash = Dashboard(s, views=("loglik",))
    assert dash.settings["supervised_factor"].value == "augmented"
    dash.settings["mh_steps"].value = 3
    dash.settings["composition"].value = "cycle"
    dash.settings["proposal_weights/exp"].value = False     # a cycle's proposals: on or off
    dash.settings["supervised_factor"].value = "marginal"
    assert s.model.mh_steps == 3 and s.model.composition == "cycle"
    assert s.model.proposal_weights == (1.0, 1.0, 0.0) and s.model.supervised_factor == "marginal"
    dash.settings["proposal_weights/doc"].value = False
    dash.settings["proposal_weights/word"].value = False    # none left: refused, shown back
    assert s.model.proposal_weights == (0.0, 1.0, 0.0)
    assert "positive sum" in dash.status.value and dash.settings["proposal_weights/word"].value
    dash.step()
    assert dash.wait() and s.n_sweeps == 1 and dash.error is None


def test_step_right_after_pause_runs_when_the_pause_is_done(corpus):
    """Issue 52, item 1: Step (or Run) asked for while a paused run is still ending (its
    last block, its last charts) used to be dropped without a word; now it runs when the
    pause is done, the buttons stay disabled until then, and ``wait`` waits for it too."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik",))
    started = []
    start = dash._start
    dash._start = lambda n: (started.append(n), start(n))[1]
    dash.run(10_000)
    while s.n_sweeps < 1:      # a sweep done, so the run is under way (no clock decides)
        threading.Event().wait(0.01)
    dash.pause()
    dash.step()
    assert dash.run_button.disabled and dash.step_button.disabled   # not before it is done
    assert dash.wait() and started == [10_000, 1] and dash.error is None
    assert not s.in_sweep          # the step finished the sweep the pause stopped in
    assert not dash.run_button.disabled and not dash.step_button.disabled
    dash.run(10_000)               # while a run goes on (not paused), Run is ignored
    dash.run(5)
    dash.pause()
    assert dash.wait() and started == [10_000, 1, 10_000]


def test_a_setting_changed_from_code_shows_in_its_control(corpus):
    """Issue 52, item 4: ``session.set_params`` from a notebook cell, not the dashboard's
    control; the next refresh (a run's, or the status line's) shows the new values, and a
    change of composition rebuilds the controls for it."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik",))
    assert dash.settings["mh_steps"].value == s.model.mh_steps != 8
    s.set_params(mh_steps=8)
    dash.refresh(charts=False)
    assert dash.settings["mh_steps"].value == 8
    s.set_params(composition="mixture")
    dash.refresh(charts=False)
    assert dash.settings["composition"].value == "mixture"
    assert dash.settings["p_doc"].value == s.model.p_doc
    dash.step()   # the value shown is the model's: nothing changed it back
    assert dash.wait() and s.model.mh_steps == 8 and dash.settings["mh_steps"].value == 8


def test_charts_update_with_the_history(corpus):
    """The views are one JupyterChart whose spec carries the history's data; it changes as
    sweeps run (what the front end re-renders)."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik", "acceptance", "throughput"), refresh_seconds=0.0)
    before = dash.chart.spec
    dash.run(4)
    assert dash.wait()
    spec = dash.chart.spec
    assert spec != before
    rows = [r for data in spec["datasets"].values() for r in data]
    assert max(r["sweep"] for r in rows if "sweep" in r) == 4


def test_the_time_view_shows_each_step_when_asked_for(corpus):
    """The seconds of each step of a supervised sweep, a view shown on request only."""
    s = Session(LightMedLDA(K=4, lam=4.0), corpus, seed=0)
    assert "time" in s.views and "time" not in Dashboard(s).views
    dash = Dashboard(s, views=("time",), refresh_seconds=0.0)
    dash.run(3)
    assert dash.wait() and dash.error is None
    rows = [r for data in dash.chart.spec["datasets"].values() for r in data]
    assert {r["step"] for r in rows if "step" in r} == {"topics", "weights", "augmentation",
                                                        "prior"}
    with pytest.raises(ValueError, match=r"views \['time'\] are not available for LDA"):
        Dashboard(Session(LDA(K=3), corpus, seed=0), views=("time",))


def test_worker_errors_reach_the_status_line(corpus):
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik",))

    def broken(n, **kw):
        raise RuntimeError("kernel exploded")
    s.run = broken
    dash.run(3)
    assert dash.wait()
    assert isinstance(dash.error, RuntimeError)
    assert "kernel exploded" in dash.status.value and not dash.run_button.disabled


@pytest.mark.parametrize("kw, err, msg", [
    ({"session": "not a session"}, TypeError, "session must be a topicsup Session"),
    ({"sweeps": 0}, ValueError, r"sweeps must be an integer in \[1, 1000000000\], got 0"),
    ({"refresh_seconds": -1}, ValueError, r"refresh_seconds must be a finite number in \[0, 3600\]"),
    ({"views": ("coefficients",)}, ValueError, r"views \['coefficients'\] are not available"),
])
def test_bad_dashboard_input(corpus, kw, err, msg):
    args = {"session": _light(corpus), **kw}
    with pytest.raises(err, match=msg):
        Dashboard(**args)


def test_a_switched_off_proposal_reads_off_not_nan(corpus):
    data = make_synthetic(n_docs=120, n_topics=3, doc_length=30, seed=1)
    s = Session(LightMedLDA(K=3, lam=4.0), data.corpus, seed=0)   # exp weight 0
    dash = Dashboard(s, views=("loglik",))
    dash.step()
    assert dash.wait()
    assert "exp off" in dash.status.value and "nan" not in dash.status.value.lower()


def test_showing_a_model_never_changes_it(corpus):
    """Settings outside a widget's own range stay as the model has them: a change to one
    control applies that setting alone."""
    s = Session(LDA(K=3, sampler="light", mh_steps=100, p_doc=0.01, composition="mixture"),
                corpus, seed=0)
    dash = Dashboard(s, views=("loglik",))
    assert dash.settings["mh_steps"].value == 100 and dash.settings["p_doc"].value == 0.01
    dash.settings["composition"].value = "cycle"
    assert (s.model.mh_steps, s.model.p_doc, s.model.composition) == (100, 0.01, "cycle")
    dash.settings["p_doc"].value = 0.0      # the slider stays inside (0, 1): its end, 0.01
    assert s.model.p_doc == 0.01 and dash.settings["p_doc"].min == 0.01
    dash.settings["p_doc"].value = 0.7
    assert s.model.p_doc == 0.7 and s.model.mh_steps == 100


def test_live_changes_are_marked_on_the_charts(corpus):
    """A setting changed between sweeps is drawn as a rule on every chart against sweeps,
    with the change in its tooltip."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik", "acceptance"), refresh_seconds=0.0)
    dash.run(2)
    assert dash.wait()
    dash.settings["mh_steps"].value = 5
    dash.run(2)
    assert dash.wait()
    rows = [r for data in dash.chart.spec["datasets"].values() for r in data]
    marks = [r for r in rows if "change" in r]
    assert marks and {r["at"] for r in marks} == {2.5}
    assert marks == [{"at": 2.5, "change": "mh_steps: 2 -> 5"}]   # one dataset, shared
    rules = json.dumps(dash.chart.spec).count('"type": "rule"')
    assert rules == 2                                               # a rule on each chart


def test_the_dashboard_stays_usable_after_errors(corpus):
    """A worker error is shown and the next Run works; a refused run (the session running
    in another thread) is shown, not swallowed by the button's callback."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik",))
    original = s.run

    def flaky(n, **kw):
        s.run = original
        raise RuntimeError("kernel exploded")
    s.run = flaky
    dash.run_button.click()
    assert dash.wait() and "kernel exploded" in dash.status.value
    assert "Run retries" in dash.status.value
    dash.run(2)
    assert dash.wait() and s.n_sweeps == 2 and dash.error is None
    assert "error" not in dash.status.value
    worker, _, started = run_in_thread(s, 10**9)
    started.wait()
    assert s.running
    dash.run(1)
    assert dash.wait()
    s.request_stop()   # the worker's run owns the session: the stop reaches it
    worker.join()
    assert not s.running
    assert "SessionBusyError" in dash.status.value and "already running" in dash.status.value
    dash.run(1)
    assert dash.wait() and dash.error is None


def test_the_partially_collapsed_sampler_in_the_dashboard_and_the_report(corpus, tmp_path):
    """Its own view (the share of sparse draws from the document part), its live settings
    (MH steps for a supervised model, threads) and the report's section; its label
    acceptance in the acceptance view. The dashboard draws those two when named (near 1 at
    every sweep: flat lines by default, issue 52 item 6), the report always."""
    from topicsup.report import session_views
    s = Session(LightMedLDA(K=4, lam=4.0, sampler="partially_collapsed"), corpus, seed=0)
    assert "draws" in s.views and "acceptance" in s.views
    quiet = Dashboard(s, refresh_seconds=0.0)
    assert "draws" not in quiet.views and "acceptance" not in quiet.views
    assert {"loglik", "score", "coefficients"} <= set(quiet.views)
    dash = Dashboard(s, refresh_seconds=0.0,
                     views=("loglik", "acceptance", "draws", "score", "coefficients"))
    assert "draws" in dash.views
    assert {"mh_steps", "threads"} <= set(dash.settings)
    dash.run(3)
    assert dash.wait() and dash.error is None and s.n_sweeps == 3
    spec = json.dumps(dash.chart.spec)
    assert "Sparse draws from the document part" in spec
    share = s.metric("doc_part_share")
    assert ((share > 0) & (share <= 1)).all()
    assert s.metric("acceptance_rate", proposal="label").between(0, 1).all()
    headings = [h for h, _ in session_views(s, 5)]
    assert "Sparse draws" in headings
    dense = Session(LDA(K=4, sampler="partially_collapsed", kernel="dense"), corpus, seed=0)
    assert "draws" not in dense.views and "acceptance" not in dense.views


def test_dolda_in_the_dashboard(corpus):
    """DOLDA (the horseshoe, the DO-probit, an intercept, the partially collapsed sampler)
    runs live: its views (coefficients with the intercept among the features, the draws of
    its sampler) render and its sampler's settings are controls."""
    from topicsup import DOLDA
    s = Session(DOLDA(K=4), corpus, seed=0)
    assert {"coefficients", "draws", "acceptance"} <= set(s.views)
    dash = Dashboard(s, refresh_seconds=0.0)
    assert {"mh_steps", "threads"} <= set(dash.settings)
    dash.run(3)
    assert dash.wait() and dash.error is None and s.n_sweeps == 3
    assert "intercept" in set(s.coefficients()["feature"])
    assert np.isfinite(s.metric("do_probit_loss")).all()


def test_several_chains_live(corpus):
    """The chains dashboard runs every chain in its worker, keeps them level, draws the log
    joints one line per chain and R-hat with its threshold, and shows R-hat in the status."""
    from topicsup.chains import Chains
    from topicsup.widgets import ChainsDashboard
    chains = Chains(LDA(K=4, sampler="partially_collapsed"), corpus, n_chains=3, seed=1)
    dash = ChainsDashboard(chains, sweeps=10, sweeps_per_refresh=5, refresh_seconds=0.0)
    dash.run()
    assert dash.wait() and dash.error is None
    assert [s.n_sweeps for s in chains.sessions] == [10, 10, 10]
    spec = json.dumps(dash.chart.chart.to_dict())
    assert '"chain"' in spec and "R-hat" in spec and "1.01" in spec
    assert "R-hat log joint" in dash.status.value and "3 chains" in dash.status.value
    with pytest.raises(TypeError, match="Chains"):
        ChainsDashboard(Session(LDA(K=3), corpus))


def test_monte_carlo_medlda_runs_live_and_stops_when_converged(corpus):
    """MCMedLDA's alternation in the dashboard: the "alternation" view (the objective's
    change with its tolerance, support documents, training accuracy) renders, the status
    line names the outer iteration and says when it has converged, and Run stops by itself
    then; the report has its section."""
    from topicsup import MCMedLDA
    from topicsup.report import session_views
    s = Session(MCMedLDA(K=4, C=2000.0, epsilon=1e-2, max_iterations=4, max_inner=3), corpus,
                seed=0)
    assert "alternation" in s.views
    dash = Dashboard(s, refresh_seconds=0.0)
    dash.run(100)
    assert dash.wait() and dash.error is None
    assert s.model.finished(s.state) and s.n_sweeps < 100
    spec = json.dumps(dash.chart.spec)
    assert "Outer iterations: objective" in spec and "support documents (share)" in spec
    assert "outer iteration" in dash.status.value and "(converged)" in dash.status.value
    assert "Outer iterations" in [h for h, _ in session_views(s, 5)]


class _Shown(HTMLParser):
    """The text an HTML value shows: its text nodes, without tags or attributes (a title
    attribute is a tooltip, which the browser cuts with "…" when long)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _shown(value: str) -> str:
    parser = _Shown()
    parser.feed(value)
    return " ".join("".join(parser.text).split())


def _widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _widgets(child)


def test_the_samplers_reason_is_shown_whole_in_lines_that_wrap(corpus):
    """Issue 52 (b): ``sampler="auto"``'s reason (200-250 characters, citing result folders)
    was only the status line's tooltip, cut with "…" by the browser. It is shown as the text
    of an HTML widget of the dashboard, whole, whose lines wrap (between its words, and
    anywhere in a folder's name) at the dashboard's width, never past it: not a Label
    (ipywidgets draws those on one line cut with an ellipsis), no ellipsis or nowrap CSS. A
    sampler the model named has no such line."""
    s = Session(LightMedLDA(K=4, lam=4.0), corpus, seed=0)   # sampler="auto"
    choice = s.sampler_choice
    assert choice and len(choice) > 150
    sampler, why = choice.split(": ", 1)
    dash = Dashboard(s, refresh_seconds=0.0)
    showing = [x for x in _widgets(dash.widget)
               if isinstance(x, (w.HTML, w.Label)) and why in _shown(x.value)]
    assert showing, (f"the sampler's reason is not shown as text in the dashboard: "
                     f"{dash.status.value!r}")
    [line] = showing
    assert isinstance(line, w.HTML) and not isinstance(line, w.Label)
    assert f"chose {sampler}: {why}" in _shown(line.value)
    style = re.findall(r"style='([^']*)'", line.value)
    assert "white-space:normal" in style[0] and "overflow-wrap:anywhere" in style[0]
    assert not re.search(r"ellipsis|nowrap|overflow:\s*hidden|…", line.value)
    assert line.layout.width is None   # the dashboard's column sets it (margins too)
    assert line.layout.display != "none"
    assert why not in dash.status.value   # no longer a tooltip the browser cuts
    dash.run(1)
    assert dash.wait() and why in _shown(line.value)
    named = Dashboard(_light(corpus), refresh_seconds=0.0)
    assert named.session.sampler_choice is None
    assert named.reason.value == "" and named.reason.layout.display == "none"
