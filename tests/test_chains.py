"""Several chains: each equal to its Session alone, histories with a chain column, topic
alignment, R-hat over sweeps, the ArviZ export."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from topicsup.chains import Chains, run_chains
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session, is_timing
from topicsup.synthetic import make_synthetic


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=150, n_topics=4, doc_length=40, task="multiclass",
                          n_classes=3, seed=5).corpus


@pytest.fixture(scope="module")
def chains(corpus):
    return run_chains(LightMedLDA(K=4, lda_init_sweeps=2), corpus, n_chains=3, sweeps=10,
                      seed=4)


def test_each_chain_is_its_session_alone(corpus, chains):
    """Chains run side by side on threads; chain c is Session(model, corpus, seed + c) run
    alone, bit for bit (state, stream and every non-timing history row)."""
    for c, s in enumerate(chains.sessions):
        alone = Session(LightMedLDA(K=4, lda_init_sweeps=2), corpus, seed=4 + c)
        alone.run(10)
        np.testing.assert_array_equal(alone.state.z, s.state.z)
        np.testing.assert_array_equal(alone.rng, s.rng)
        np.testing.assert_array_equal(alone.trace("eta"), s.trace("eta"))
        a, b = alone.history, s.history
        np.testing.assert_array_equal(a[~is_timing(a.metric)].value, b[~is_timing(b.metric)].value)
    h = chains.history
    assert list(h.columns[:2]) == ["chain", "sweep"] and set(h["chain"]) == {0, 1, 2}
    assert chains.log_joint().shape == (3, 10) and np.isfinite(chains.log_joint()).all()


def test_run_with_a_callback_keeps_the_chains_level_and_can_stop(corpus):
    ch = Chains(LDA(K=4), corpus, n_chains=2, seed=1)
    seen = []
    assert ch.run(7, callback=lambda c: seen.append(c.n_sweeps), every=3) == 7
    assert seen == [3, 6, 7]
    assert ch.run(10, callback=lambda c: False, every=2) == 2
    assert [s.n_sweeps for s in ch.sessions] == [9, 9]


def test_a_second_concurrent_run_of_the_chains_is_refused(corpus):
    """Chains.run from two threads at once (issue 50): the second raises SessionBusyError
    naming the running thread, where it interleaved the chains' sweeps; request_stop ends
    the first (also between the chunks its callback splits it into), and the chains run
    again from where they stopped."""
    from topicsup.session import SessionBusyError
    from .testing.threads import run_in_thread
    ch = Chains(LDA(K=3, alpha=0.2, beta=0.05), corpus, n_chains=2, seed=1, block_tokens=200,
                log_joint_every=0)
    t, outcome, swept = run_in_thread(ch, 10**9)
    swept.wait()
    assert "error" not in outcome, outcome
    with pytest.raises(SessionBusyError, match="already running in thread 'Thread-"):
        ch.run(1)
    ch.request_stop()
    t.join()
    assert "error" not in outcome and outcome["done"] < 10**9, outcome
    at = ch.n_sweeps
    assert ch.run(2) == 2 and ch.n_sweeps == at + 2
    assert len({s.n_sweeps for s in ch.sessions}) == 1   # level


def test_topic_alignment_finds_a_permuted_copy(corpus):
    """A chain whose state is chain 0's with the topics relabelled is matched back with
    distance 0, and its aligned weights equal chain 0's."""
    ch = run_chains(LightMedLDA(K=4, lda_init_sweeps=1), corpus, n_chains=2, sweeps=3, seed=2)
    a, b = ch.sessions
    perm = np.array([2, 0, 3, 1])                       # b's topic perm[k] is a's topic k
    inv = np.argsort(perm)
    b.state.counts.z[:] = perm[a.state.counts.z]
    b.model.refresh_state(b.state, b.problem)
    eta = a.trace("eta")
    b._record.traces["eta"] = [np.concatenate([e[:, inv], e[:, 4:]], axis=1) for e in eta]
    al = ch.topic_alignment()
    np.testing.assert_array_equal(al[al.chain == 1].chain_topic, perm)
    assert al["hellinger"].max() < 1e-6
    w = ch.weight_draws()
    np.testing.assert_array_equal(w[0], w[1])
    np.testing.assert_array_equal(ch.weight_draws(align=False, scale="raw")[1],
                                  np.stack(b._record.traces["eta"]))


def test_diagnostics_and_convergence(chains):
    d = chains.diagnostics()
    T, M = chains.sessions[0].state.supervision.weights.eta.shape
    assert len(d) == 1 + T * M and d.loc[0, "quantity"] == "log_joint"
    assert {"r_hat", "ess_bulk", "ess_tail", "mean", "sd"} <= set(d.columns)
    conv = chains.convergence(weights=True)
    assert set(conv["quantity"]) == {"log_joint", "max_weight"}
    assert conv["sweep"].max() == 10
    assert np.isfinite(conv.loc[conv.sweep >= 8, "r_hat"]).all()


def test_rhat_of_mixed_chains_is_near_one():
    """Four chains of a posterior that mixes fast (40 documents of 10 tokens, K = 2, flat
    priors), 400 sweeps: over the second half the log joint's R-hat is below 1.05 and its
    bulk ESS above 100. (On 200 documents of 60 tokens, K = 3, the log joint's R-hat is
    still 1.2-1.5 after 100 sweeps, its ESS about 10: the collapsed log joint drifts slowly,
    which is what the diagnostics are for.)"""
    corpus = make_synthetic(n_docs=40, n_topics=2, doc_length=10, seed=1).corpus
    ch = run_chains(LDA(K=2, alpha=1.0, beta=0.5, sampler="partially_collapsed"), corpus,
                    n_chains=4, sweeps=400, seed=1)
    d = ch.diagnostics(engine="topicsup").iloc[0]
    assert d["r_hat"] < 1.05 and d["ess_bulk"] > 100


def test_to_arviz(chains):
    """posterior eta (chain, draw, task, feature) equals the aligned traces; sample_stats lp
    equals the log joints and acceptance_rate the accepted share of all proposals; ArviZ's
    own R-hat of the export equals the diagnostics table's."""
    pytest.importorskip("arviz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        idata = chains.to_arviz(burn=2)
    eta = idata.posterior["eta"]
    assert eta.dims == ("chain", "draw", "task", "feature")
    np.testing.assert_array_equal(eta.values, chains.weight_draws(burn=2))
    assert list(idata.posterior["draw"].values) == list(range(3, 11))
    np.testing.assert_array_equal(idata.sample_stats["lp"].values, chains.log_joint()[:, 2:])
    h = chains.sessions[0].history
    acc = h[(h.metric == "acceptance_rate") & (h.sweep == 5)].set_index("proposal").value
    made = h[(h.metric == "proposals") & (h.sweep == 5)].set_index("proposal").value
    assert idata.sample_stats["acceptance_rate"].sel(chain=0, draw=5).item() == \
        pytest.approx((acc * made).sum() / made.sum())
    import arviz
    d = chains.diagnostics(burn=2, engine="topicsup").iloc[1:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from_arviz = arviz.rhat(idata)["eta"].values.reshape(-1)
    np.testing.assert_allclose(from_arviz, d["r_hat"].to_numpy(), rtol=1e-10)
    one = chains.sessions[1].to_arviz()
    assert one.posterior["eta"].shape[:2] == (1, 10)
    with pytest.raises(ValueError, match="no draws after burn"):
        chains.sessions[1].to_arviz(burn=10)


def test_every_weight_export_has_one_scale(corpus):
    """``weight_draws``, ``diagnostics`` and ``to_arviz`` (of the chains and of one
    session) give the weights on the scale of ``coefficients`` and the forest plot,
    identified by default, name it in the export's attributes, and the draws as sampled
    with ``scale="raw"`` (issue 50: the export was raw while the tables were centred, 1.02
    apart on the same session)."""
    pytest.importorskip("arviz")
    from topicsup.models import DOLDA
    from topicsup.summaries import identified
    ch = run_chains(DOLDA(K=4, lda_init_sweeps=1), corpus, n_chains=2, sweeps=6, seed=3)
    kinds = ch.sessions[0].problem.feature_kinds
    assert "intercept" in kinds
    raw, ident = ch.weight_draws(scale="raw"), ch.weight_draws()
    np.testing.assert_array_equal(ident, identified(raw, kinds))
    assert np.abs(ident - raw).max() > 1e-3   # the scales differ on this model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        exported, as_sampled = ch.to_arviz(), ch.to_arviz(scale="raw")
        one = ch.sessions[0].to_arviz(burn=2)
    np.testing.assert_array_equal(exported.posterior["eta"].values, ident)
    np.testing.assert_array_equal(as_sampled.posterior["eta"].values, raw)
    attrs = _export_parts(exported)[1]
    assert attrs["weight_scale"] == "identified" and "centred" in attrs["weight_scale_meaning"]
    assert _export_parts(as_sampled)[1]["weight_scale"] == "raw"
    trace = np.stack(ch.sessions[0].trace("eta"))
    np.testing.assert_array_equal(one.posterior["eta"].values[0],
                                  identified(trace[2:], kinds))
    d = ch.diagnostics(burn=2, engine="topicsup", scale="raw").iloc[1:]
    assert d["mean"].to_numpy() == pytest.approx(raw[:, 2:].mean(axis=(0, 1)).reshape(-1))
    with pytest.raises(ValueError, match="scale"):
        ch.sessions[0].to_arviz(scale="centred")
    assert "weight_scale" not in _export_parts(_lda_export(corpus))[1]   # no weights


def _lda_export(corpus):
    s = Session(LDA(K=2), corpus, seed=0)
    s.run(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return s.to_arviz()


def _export_parts(idata):
    """An export's groups as {name: xarray.Dataset} and its top-level attrs, from an ArviZ
    0.x ``InferenceData`` or an ArviZ 1.x (xarray) ``DataTree``."""
    if hasattr(idata, "children"):                                  # DataTree (ArviZ 1.x)
        return {k: v.to_dataset() for k, v in idata.children.items()}, dict(idata.attrs)
    return {g: idata[g] for g in idata.groups()}, dict(idata.attrs)


def test_to_arviz_structure_is_the_same_in_arviz_0_and_1(corpus, chains):
    """The export has the same groups, variables, dims, coords and top-level attrs whichever
    ArviZ is installed; its type is ArviZ 0.x's InferenceData or ArviZ 1.x's DataTree."""
    arviz = pytest.importorskip("arviz")
    import xarray as xr

    from topicsup import __version__
    lda = Session(LDA(K=3), corpus, seed=9)                     # unsupervised: no posterior
    lda.run(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        idata = chains.to_arviz(burn=2)
        unaligned = chains.to_arviz(align=False)
        unsupervised = lda.to_arviz(burn=1)
    if int(arviz.__version__.split(".")[0]) >= 1:
        assert isinstance(idata, xr.DataTree)
    else:
        assert isinstance(idata, arviz.InferenceData)
    groups, attrs = _export_parts(idata)
    s0 = chains.sessions[0]
    T, M = s0.state.supervision.weights.eta.shape
    assert list(groups) == ["posterior", "sample_stats"]
    post, stats = groups["posterior"], groups["sample_stats"]
    assert list(post.data_vars) == ["eta"]
    assert set(stats.data_vars) == {"lp", "acceptance_rate", "topic_change_rate"}
    assert post["eta"].dims == ("chain", "draw", "task", "feature")
    assert all(stats[v].dims == ("chain", "draw") for v in stats.data_vars)
    assert dict(post.sizes) == {"chain": 3, "draw": 8, "task": T, "feature": M}
    assert dict(stats.sizes) == {"chain": 3, "draw": 8}
    assert set(post.coords) == {"chain", "draw", "task", "feature"}
    assert set(stats.coords) == {"chain", "draw"}
    for ds in (post, stats):
        assert list(ds["chain"].values) == [0, 1, 2]
        assert list(ds["draw"].values) == list(range(3, 11))
    assert list(post["task"].values) == list(s0.problem.task_names)
    assert list(post["feature"].values) == list(s0.feature_names())
    from topicsup.summaries import SCALE_MEANING
    assert attrs == {"inference_library": "topicsup", "inference_library_version": __version__,
                     "model": repr(s0.model), "seeds": [4, 5, 6], "topics_aligned": True,
                     "weight_scale": "identified",
                     "weight_scale_meaning": SCALE_MEANING["identified"]}
    assert _export_parts(unaligned)[1]["topics_aligned"] is False
    groups, attrs = _export_parts(unsupervised)
    assert list(groups) == ["sample_stats"]
    assert {"lp", "topic_change_rate"} <= set(groups["sample_stats"].data_vars)
    assert dict(groups["sample_stats"].sizes) == {"chain": 1, "draw": 2}
    assert attrs["seeds"] == [9] and attrs["topics_aligned"] is False


def test_bad_chains_input_is_named(corpus):
    with pytest.raises(ValueError, match="n_chains"):
        Chains(LDA(K=3), corpus, n_chains=0)
    with pytest.raises(TypeError, match="backend must be"):
        Chains(LDA(K=3), corpus, backend="mpi")
    with pytest.raises(ValueError, match="unsupervised"):
        Chains(LDA(K=3), corpus, n_chains=2).weight_draws()
