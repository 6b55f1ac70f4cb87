"""The PDP and HDP topic models in the frame: sessions, history, checkpoints, estimates,
views and bad input (their kernels' exactness is tests/kernels/test_pdp.py, test_hdp.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from topicsup import HDPLDA, PDPLDA, Session, views
from topicsup.checkpoint import checksum
from topicsup.datasets import make_synthetic
from topicsup.inspector import TokenInspector
from tests.test_session import assert_resumes_exactly

MODELS = {"pdp-gibbs": PDPLDA(K=6, sampler="gibbs"), "pdp-alias": PDPLDA(K=6, sampler="alias"),
          "hdp-gibbs": HDPLDA(K=12, sampler="gibbs"), "hdp-alias": HDPLDA(K=12, sampler="alias")}


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=120, n_topics=4, doc_length=30, seed=5).corpus


@pytest.mark.parametrize("name", list(MODELS))
def test_a_session_records_topics_tables_and_acceptance(corpus, name):
    """History per sweep: live topics, tables, the share of blocked tokens, acceptance for the
    alias samplers; the log joint rises from the random start; views and topics work."""
    s = Session(MODELS[name], corpus, seed=1)
    s.run(12)
    lj = s.metric("log_joint")
    assert lj.iloc[-1] > lj.iloc[0]
    live = s.metric("live_topics")
    assert ((live >= 1) & (live <= s.model.K)).all()
    assert (s.metric("tables") >= live).all()
    assert ((s.metric("blocked_share") >= 0) & (s.metric("blocked_share") < 1)).all()
    if "alias" in name:
        rate = s.metric("acceptance_rate", proposal="alias")
        assert ((rate > 0.5) & (rate <= 1)).all()
    assert "tables" in s.views and "draws" not in s.views
    views.tables_chart(s.history).to_dict()
    topics = s.topics(3)
    assert len(topics) == live.iloc[-1] and (topics["share"] > 0).all()
    ll, n = s.model.completion_log_likelihood(s.state, s.problem, corpus, s.rng)
    assert n > 0 and 1 < math.exp(-ll / n) < corpus.n_words


@pytest.mark.parametrize("name", list(MODELS))
def test_a_checkpoint_mid_sweep_resumes_exactly(corpus, tmp_path, name):
    """z, the table indicators, the alias tables and every derived array equal an
    uninterrupted run's (the Stirling table is shared and grows when needed: no effect)."""
    assert_resumes_exactly(MODELS[name], corpus, tmp_path / "c.npz", block_tokens=600,
                           before=2, total=5)


@pytest.mark.parametrize("sampler", ["gibbs", "alias"])
def test_hdp_retires_topics_and_reports_only_the_live_ones(corpus, sampler):
    """Started with all 40 slots live on a corpus of 4 topics, the sampler retires topics
    (AliasHDP too: its stale table keeps a new topic's mass when every slot is live, else a
    token alone in its topic could never leave it); dead slots get no proportions in fold-in
    and no row in ``topics``."""
    s = Session(HDPLDA(K=40, b0=1.0, b1=1.0, sampler=sampler), corpus, seed=2)
    s.run(40)
    live = s.metric("live_topics")
    assert live.iloc[-1] < 40
    shown = s.model.shown_topics(s.state)
    assert list(s.topics(2).index) == list(shown)
    theta = s.model.fold_in(s.state, s.problem, corpus, s.rng, 5, 5)
    dead = np.setdiff1d(np.arange(40), shown)
    assert (theta[:, dead] == 0).all()
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def _non_finite(spec, path=""):
    """The paths of every float in a chart's spec that JSON cannot carry."""
    if isinstance(spec, dict):
        return [p for k, v in spec.items() for p in _non_finite(v, f"{path}/{k}")]
    if isinstance(spec, list):
        return [p for i, v in enumerate(spec) for p in _non_finite(v, f"{path}[{i}]")]
    return [path] if isinstance(spec, float) and not math.isfinite(spec) else []


def test_the_tables_chart_of_several_chains_is_json_and_tells_them_apart(corpus):
    """The teaching notebook's chart: the histories of an exact and an alias chain,
    concatenated. AliasHDP's ``proposal`` column is pandas' string dtype (missing = NaN), the
    exact sampler's holds None: concatenated, the live_topics rows carry a float NaN there,
    which the chart used to pass on to its data, and Jupyter then refused the message ("Out
    of range float values are not JSON compliant"). Only sweep, count and chain reach the
    chart now; the chains get a colour and a dash pattern each, in one legend below; a row
    without a finite count is left out and the title says so."""
    hist = []
    for sampler in ("gibbs", "alias"):
        s = Session(HDPLDA(K=6, sampler=sampler), corpus, seed=0)
        s.run(3)
        hist.append(s.history.assign(chain=sampler))
    both = pd.concat(hist)
    assert both.loc[both["metric"] == "live_topics", "proposal"].isna().any()
    spec = views.tables_chart(both).to_dict()
    assert _non_finite(spec) == []
    json.dumps(spec, allow_nan=False)
    for panel in spec["vconcat"]:
        enc = panel["encoding"]
        assert enc["color"]["field"] == enc["strokeDash"]["field"] == "chain"
        assert enc["color"]["legend"]["orient"] == "bottom"
        data = spec["datasets"][panel["data"]["name"]]
        assert set(data[0]) == {"sweep", "value", "chain"}
        assert {r["chain"] for r in data} == {"gibbs", "alias"}
    assert "title" not in spec
    # a forged history: a NaN and an infinite count are left out, and said to be
    bad = both.reset_index(drop=True)
    rows = bad.index[bad["metric"] == "tables"]
    bad.loc[rows[:2], "value"] = [np.nan, np.inf]
    spec = views.tables_chart(bad).to_dict()
    assert _non_finite(spec) == []
    assert "2 row(s)" in spec["title"]["text"]
    # one session: no legend, points while there are few sweeps
    one = views.tables_chart(hist[0].drop(columns="chain")).to_dict()
    assert _non_finite(one) == [] and "color" not in one["vconcat"][0]["encoding"]


@pytest.mark.parametrize("sampler", ["gibbs", "alias"])
def test_hdp_started_in_one_topic_opens_topics(corpus, sampler, tmp_path):
    """``init_topics=1``: every token in slot 0 at the start (one table per document), and
    the sampler opens topics as the data ask; the setting is kept by a checkpoint. The
    default start has every slot live, the same chain as before the setting existed (the
    fingerprints)."""
    m = HDPLDA(K=12, b0=1.0, b1=1.0, sampler=sampler, init_topics=1)
    s = Session(m, corpus, seed=0)
    assert (s.state.counts.z == 0).all()
    assert s.model.structure(s.state) == (1, corpus.n_docs)
    s.run(30)
    live = s.metric("live_topics")
    assert live.max() > 1
    assert Session.load(s.save(tmp_path / "c.npz")).model.init_topics == 1
    full = Session(HDPLDA(K=12, sampler=sampler), corpus, seed=0)
    assert full.model.structure(full.state)[0] == 12


def test_the_dashboard_and_the_report_show_topics_and_tables(corpus, tmp_path):
    """The dashboard's status line and its "tables" view, and the report's section."""
    from topicsup.report import session_views
    from topicsup.widgets import Dashboard
    s = Session(HDPLDA(K=8, sampler="alias"), corpus, seed=0)
    s.run(3)
    dash = Dashboard(s)
    dash.refresh()
    assert "live topics" in dash.status.value and "tables" in dash.status.value
    assert "tables" in dash.views
    dash.chart.chart.to_dict()
    titles = [t for t, _ in session_views(s)]
    assert "Topics and tables" in titles and "Metropolis-Hastings acceptance" in titles


def test_the_token_inspector_refuses_their_samplers_by_name(corpus):
    """HDP-LDA's "gibbs" is its own sampler, not LDA's: the inspector has no stepping for
    it and says so, naming the part."""
    s = Session(HDPLDA(K=5), corpus, seed=0)
    with pytest.raises(ValueError, match="HDPGibbs"):
        TokenInspector(s, 0)


def test_presets_are_the_papers_settings():
    p, h = PDPLDA.as_published(), HDPLDA.as_published()
    assert (p.K, p.alpha, p.beta, p.discount, p.concentration, p.sampler, p.mh_steps,
            p.refresh) == (1024, 0.1, 0.1, 0.1, 10.0, "alias", 2, "draws")
    assert (h.K, h.b0, h.b1, h.beta, h.sampler, h.mh_steps, h.refresh) == (
        1024, 10.0, 10.0, 0.1, "alias", 2, "draws")
    # the exact samplers with the paper's hyper-parameters (the benchmark's baselines)
    assert PDPLDA.as_published(64, sampler="gibbs").concentration == 10.0
    assert HDPLDA.as_published(64, sampler="gibbs").b1 == 10.0


@pytest.mark.parametrize("make, err, msg", [
    (lambda: PDPLDA(discount=1.0), ValueError, "discount"),
    (lambda: PDPLDA(discount=0.5, concentration=-0.5), ValueError, "concentration"),
    (lambda: PDPLDA(discount=0.5, concentration=0.0), ValueError, "concentration"),
    (lambda: PDPLDA(sampler="light"), ValueError, "sampler must be one of"),
    (lambda: PDPLDA(sampler="gibbs", mh_steps=3), ValueError, "mh_steps=3"),
    (lambda: HDPLDA(b0=0.0), ValueError, "b0"),
    (lambda: HDPLDA(b1="x"), TypeError, "b1"),
    (lambda: HDPLDA(alpha=0.5), TypeError, "alpha"),
    (lambda: HDPLDA(K=5, init_topics=6), ValueError, "init_topics"),
    (lambda: HDPLDA(init_topics=0), ValueError, "init_topics"),
    (lambda: HDPLDA(init_topics=2.0), TypeError, "init_topics"),
])
def test_bad_parameters_are_named(make, err, msg):
    with pytest.raises(err, match=msg):
        make()


@pytest.mark.parametrize("name", ["pdp-alias", "hdp-gibbs", "hdp-alias"])
def test_a_forged_checkpoint_is_refused_by_name(corpus, tmp_path, name):
    """Indicators other than 0/1, or a dish with customers and no table, are refused naming
    state/r; forged alias tables naming them (a table in use, its samples and mass otherwise
    consistent, that gives an outcome no mass: AliasHDP's new topic or a slot, AliasPDP's
    join or open of a topic)."""
    s = Session(MODELS[name], corpus, seed=0)
    s.run(1)
    path = s.save(tmp_path / "ok.npz")
    data = dict(np.load(path, allow_pickle=False))
    forged = []   # (the arrays changed, the message)
    r = data["state/r"].copy()
    r[0] = 2
    forged.append(({"state/r": r}, "table indicators"))
    forged.append(({"state/r": np.zeros_like(data["state/r"])}, "has no table"))
    if name == "pdp-alias":
        q = data["state/wt_q"].copy()
        q[0, 0] = -1.0
        forged.append(({"state/wt_q": q}, "wt_q"))
    if name in ("hdp-alias", "pdp-alias"):
        q, mass = data["state/wt_q"].copy(), data["state/wt_mass"].copy()
        supply, used, samples = (data[f"state/wt_{n}"] for n in ("supply", "used", "samples"))
        # HDP: the new topic, a slot; PDP: joining and opening a table of topic 0
        for k in ((q.shape[1] - 1, 0) if name == "hdp-alias" else (0, 1)):
            q2, mass2 = q.copy(), mass.copy()
            w = next(w for w in range(len(q)) if used[w] < supply[w]
                     and (samples[w, :supply[w]] != k).all())
            mass2[w] -= q2[w, k]
            q2[w, k] = 0.0
            forged.append(({"state/wt_q": q2, "state/wt_mass": mass2},
                           "every outcome .* positive stale mass"))
    for changes, msg in forged:
        bad = {**data, **changes}
        # a forger recomputes the checksum
        meta = json.loads(bad.pop("meta").tobytes())
        meta["checksum"] = {"algorithm": "sha256", "digest": checksum(bad)}
        np.savez(tmp_path / "bad.npz", meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                 **bad)
        with pytest.raises(ValueError, match=msg):
            Session.load(tmp_path / "bad.npz")


def test_a_state_whose_stirling_numbers_would_not_fit_is_refused(corpus, monkeypatch):
    """A forged r with a table per token makes s = m everywhere, whose Stirling numbers grow
    with the square of the largest count: the state is refused by name before any kernel
    allocates them (here with the memory made small)."""
    from topicsup import validation
    m = PDPLDA(K=6, sampler="gibbs")
    s = Session(m, corpus, seed=0)
    s.state.tables.r[:] = 1
    m.refresh_state(s.state, m.bind(corpus))
    m.validate_state(s.state, m.bind(corpus))   # fits in the machine's memory
    monkeypatch.setattr(validation, "available_memory", lambda: 1e5)
    with pytest.raises(ValueError, match="Stirling numbers of state/r"):
        m.validate_state(s.state, m.bind(corpus))


@pytest.mark.parametrize("K", [6, 130])   # 130: a bitmap of three int64 words per word
def test_alias_pdp_keeps_its_ratio_cache_equal_to_the_counts(corpus, tmp_path, K):
    """AliasPDP's cache of Stirling ratios per (word, topic) is updated token by token; after
    sweeps (with a large discount, so table counts move) and after a load it equals the
    cache filled afresh from the counts, bit for bit, and says which discount it holds; so
    does its bitmap of the topics where each word has customers. A missed update would feed
    the kernel a wrong target here."""
    from topicsup.kernels import pdp, stirling
    m = PDPLDA(K=K, sampler="alias", discount=0.6)

    def fresh(state):
        lm = np.zeros_like(state.sampler.ratios)
        has = np.zeros_like(state.sampler.has)
        stirling.keep(pdp.fill_ratios(state.counts.n_wk, state.tables.s_wk,
                                      stirling.shared(m.discount), lm, has))
        np.testing.assert_array_equal(state.sampler.has, has)
        return lm

    s = Session(m, corpus, seed=2)
    s.run(3)
    if K > 64:   # the sign bit and the later words of the bitmap in use
        has = s.state.sampler.has
        assert (has[:, 0] < 0).any() and (has[:, 1] != 0).any() and (has[:, 2] != 0).any()
    assert s.state.sampler.ratios_a[0] == 0.6
    np.testing.assert_array_equal(s.state.sampler.ratios, fresh(s.state))
    r = Session.load(s.save(tmp_path / "p.npz"))
    assert np.isnan(r.state.sampler.ratios_a[0])   # derived, filled at the next sweep
    r.run(2)
    np.testing.assert_array_equal(r.state.sampler.ratios, fresh(r.state))
