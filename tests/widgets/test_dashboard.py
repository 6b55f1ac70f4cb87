"""Dashboard: sampling in a worker thread driven by the buttons, pause mid-sweep losing
nothing, the chain equal to a plain Session's, live settings, status and charts; no browser
(tests/widgets/test_browser.py drives a real one)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from topicsup.datasets import make_synthetic
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session
from topicsup.widgets.dashboard import Dashboard


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=200, n_topics=4, doc_length=40, seed=5).corpus


def _light(corpus, **kw):
    return Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                   block_tokens=400, **kw)


def _wait_for(cond, timeout=30.0):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_buttons_run_step_and_pause_a_worker(corpus):
    """Run returns at once and samples in a worker; Pause stops it (the sweep counter stays
    put afterwards); Step adds exactly one sweep; the status line follows."""
    s = _light(corpus)
    dash = Dashboard(s, sweeps=100000, refresh_seconds=0.0)
    dash.run_button.click()
    assert dash.running and dash.run_button.disabled and not dash.pause_button.disabled
    _wait_for(lambda: s.n_sweeps >= 3)
    dash.pause_button.click()
    assert dash.wait(30)
    stopped = s.n_sweeps
    time.sleep(0.2)
    assert s.n_sweeps == stopped < 100000
    assert not dash.run_button.disabled and dash.pause_button.disabled
    dash.step_button.click()
    assert dash.wait(30)
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
    assert dash.wait(30)
    assert s.in_sweep and s.n_sweeps == 2
    s._run_block = run_block
    dash.run(5)              # finishes sweep 3, then 4 more: 7 sweeps in all
    assert dash.wait(30)
    ref = _light(corpus, log_joint_every=1)
    ref.run(7)
    assert s.n_sweeps == 7
    np.testing.assert_array_equal(s.state["z"], ref.state["z"])
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
    dash.settings["mix_exp"].value = 0.0
    dash.settings["supervised_factor"].value = "marginal"
    assert s.model.mh_steps == 3 and s.model.composition == "cycle"
    assert s.model.proposal_weights[2] == 0.0 and s.model.supervised_factor == "marginal"
    before = s.model
    for k in ("doc", "word"):
        dash.settings[f"mix_{k}"].value = 0.0
    assert s.model.proposal_weights == (0.0, before.proposal_weights[1], 0.0) or \
        "at least one positive weight" in dash.status.value
    dash.step()
    assert dash.wait(30) and s.n_sweeps == 1 and dash.error is None


def test_charts_update_with_the_history(corpus):
    """The views are one JupyterChart whose spec carries the history's data; it changes as
    sweeps run (what the front end re-renders)."""
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik", "acceptance", "throughput"), refresh_seconds=0.0)
    before = dash.chart.spec
    dash.run(4)
    assert dash.wait(30)
    spec = dash.chart.spec
    assert spec != before
    rows = [r for data in spec["datasets"].values() for r in data]
    assert max(r["sweep"] for r in rows if "sweep" in r) == 4


def test_worker_errors_reach_the_status_line(corpus):
    s = _light(corpus)
    dash = Dashboard(s, views=("loglik",))

    def broken(n):
        raise RuntimeError("kernel exploded")
    s.run = broken
    dash.run(3)
    assert dash.wait(30)
    assert isinstance(dash.error, RuntimeError)
    assert "kernel exploded" in dash.status.value and not dash.run_button.disabled


@pytest.mark.parametrize("kw, err, msg", [
    ({"session": "not a session"}, TypeError, "session must be a topicsup Session"),
    ({"sweeps": 0}, ValueError, "sweeps must be a positive integer"),
    ({"refresh_seconds": -1}, ValueError, "refresh_seconds must be a non-negative number"),
    ({"views": ("coefficients",)}, ValueError, r"views \['coefficients'\] are not available"),
])
def test_bad_dashboard_input(corpus, kw, err, msg):
    args = {"session": _light(corpus), **kw}
    with pytest.raises(err, match=msg):
        Dashboard(**args)
