"""Session: reproducibility, incremental runs, checkpoints, stopping, invariants, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from topicsup import Corpus
from topicsup.datasets import make_synthetic
from topicsup.models import LDA
from topicsup.session import Session, is_timing

from .testing.sigint import interrupt_when
from .testing.threads import run_in_thread


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return make_synthetic(n_docs=120, n_topics=4, doc_length=40, seed=5).corpus


def _chain(s: Session):
    """Everything that defines where a chain is (not timings)."""
    h = s.history
    h = h[~is_timing(h["metric"])].reset_index(drop=True)
    return s.state.z.copy(), s.rng.copy(), h


def _same(a, b):
    assert np.array_equal(a[0], b[0]), "assignments differ"
    assert np.array_equal(a[1], b[1]), "random streams differ"
    pd.testing.assert_frame_equal(a[2], b[2])


def _session(corpus, seed=3, **kw):
    return Session(LDA(K=5, alpha=0.2, beta=0.05), corpus, seed=seed, block_tokens=500, **kw)


def test_same_seed_same_chain_and_other_seed_differs(corpus):
    a, b, c = _session(corpus), _session(corpus), _session(corpus, seed=4)
    for s in (a, b, c):
        s.run(10)
    _same(_chain(a), _chain(b))
    assert not np.array_equal(a.state.z, c.state.z)


def test_split_runs_equal_one_run(corpus):
    a, b = _session(corpus), _session(corpus)
    a.run(20)
    b.run(7)
    b.sweep()
    b.run(12)
    _same(_chain(a), _chain(b))
    assert b.n_sweeps == 20


def test_save_load_continue_equals_uninterrupted(corpus, tmp_path):
    a, b = _session(corpus), _session(corpus)
    a.run(12)
    b.run(5)
    path = b.save(tmp_path / "ck.npz")
    del b
    r = Session.load(path)
    assert r.n_sweeps == 5 and r.model == LDA(K=5, alpha=0.2, beta=0.05, sampler="gibbs")
    r.run(7)
    _same(_chain(a), _chain(r))


def test_public_signatures_have_no_private_parameters(corpus, tmp_path):
    """The API pages show ``inspect.signature`` of every public class (Sphinx autodoc): no
    parameter of ``Session`` or of any class of ``topicsup.__all__`` starts with "_".
    ``Session.load`` still restores the chain, and its private constructor refuses what is
    no checkpoint by name."""
    import inspect

    import topicsup
    classes = {n: c for n in topicsup.__all__ if inspect.isclass(c := getattr(topicsup, n))}
    assert "Session" in classes
    private = {n: [p for p in inspect.signature(c).parameters if p.startswith("_")]
               for n, c in classes.items()}
    assert not {n: p for n, p in private.items() if p}
    s = _session(corpus)
    s.run(2)
    r = Session.load(s.save(tmp_path / "ck.npz"))
    assert r.n_sweeps == 2 and np.array_equal(r.state.z, s.state.z)
    with pytest.raises(TypeError, match="saved must be a checkpoint.SavedSession"):
        Session._from_saved(s)


def _stop_after_blocks(s: Session, n_blocks: int) -> None:
    """Make ``s`` receive a stop request after its next ``n_blocks`` blocks."""
    orig, count = s._run_block, [0]

    def run_block():
        orig()
        count[0] += 1
        if count[0] == n_blocks:
            s.request_stop()
    s._run_block = run_block


def test_stop_mid_sweep_loses_nothing_and_resumes_exactly(corpus, tmp_path):
    """A stop inside a sweep keeps the position; continuing (also after a checkpoint taken
    mid-sweep) gives the uninterrupted chain."""
    a = _session(corpus)
    a.run(4)
    b = _session(corpus)
    assert b.n_blocks > 3
    _stop_after_blocks(b, b.n_blocks + 2)          # stop in the 2nd sweep
    assert b.run(4) == 1 and b.in_sweep and b.n_sweeps == 1
    r = Session.load(b.save(tmp_path / "mid.npz"))
    assert r.in_sweep
    assert r.run(3) == 3
    _same(_chain(a), _chain(r))


def test_stop_from_another_thread(corpus):
    """request_stop from another thread ends a long run early; the chain then continues to
    the same state as an uninterrupted run of the same length."""
    big = make_synthetic(n_docs=600, n_topics=4, doc_length=60, seed=1).corpus
    a = Session(LDA(K=4), big, seed=0, block_tokens=2000, log_joint_every=0)
    b = Session(LDA(K=4), big, seed=0, block_tokens=2000, log_joint_every=0)
    t, outcome, swept = run_in_thread(b, 10_000)
    swept.wait()
    b.request_stop()
    t.join()
    assert "error" not in outcome and outcome["done"] < 10_000, outcome
    remaining = 5 if not b.in_sweep else 6
    b.run(remaining)
    a.run(b.n_sweeps)
    assert np.array_equal(a.state.z, b.state.z) and np.array_equal(a.rng, b.rng)


def test_history_is_readable_while_a_worker_samples(corpus):
    s = _session(corpus)
    t = threading.Thread(target=s.run, args=(200,))
    t.start()
    seen = []
    while t.is_alive():
        seen.append(len(s.history))
        s.topics(3)
    t.join()
    assert s.n_sweeps == 200 and seen == sorted(seen)


def test_counts_consistent_with_assignments_after_every_sweep(corpus):
    """Invariants: counts equal a recount from z, non-negative, with the right margins."""
    lengths = corpus.doc_lengths

    def check(s):
        st = s.state
        ref = s.model.allocate_state(s.model.bind(corpus))
        ref.z[:] = st.z
        s.model.refresh_state(ref, s.model.bind(corpus))
        for k in ("n_dk", "n_wk", "n_k"):
            assert np.array_equal(getattr(st.counts, k), getattr(ref.counts, k)), k
            assert getattr(st.counts, k).min() >= 0
        assert np.array_equal(st.counts.n_dk.sum(1), lengths)
        assert st.counts.n_k.sum() == corpus.n_tokens
        assert np.array_equal(st.counts.n_wk.sum(0), st.counts.n_k)
        assert st.z.min() >= 0 and st.z.max() < s.model.K
    s = _session(corpus)
    calls = []
    s.run(15, callback=lambda s: (check(s), calls.append(s.n_sweeps)))
    assert calls == list(range(1, 16))


@pytest.mark.parametrize("preset", ["LDA", "GSLDA", "LightMedLDA", "SLDA"])
def test_the_time_split_over_steps_adds_up_to_each_sweeps_seconds(preset):
    """seconds_topics + seconds_weights + seconds_augmentation + seconds_prior is the sweep's
    seconds (Zhu 2013 Table 1's split), every step present from the first sweep, also over a
    paused sweep resumed; none of these rows is part of the chain (``is_timing``)."""
    import topicsup.models as models
    task = "real" if preset == "SLDA" else "binary"
    c = make_synthetic(n_docs=60, n_topics=3, doc_length=20, task=task, seed=2).corpus
    s = Session(getattr(models, preset)(K=3), c, seed=0, block_tokens=300)
    s.run(2)
    s._run_block()                      # half a sweep, then the rest
    s.run(1)
    h = s.history
    split = h[h["metric"].str.startswith("seconds_")].pivot(index="sweep", columns="metric",
                                                             values="value")
    steps = ["topics"] if preset == "LDA" else ["topics", "weights", "augmentation", "prior"]
    assert list(split.columns) == sorted("seconds_" + x for x in steps)
    assert (split.to_numpy() >= 0).all()
    assert np.allclose(split.sum(axis=1), s.metric("seconds").to_numpy(), rtol=1e-9)
    assert set(h.loc[is_timing(h["metric"]), "metric"]) == \
        {"seconds", "tokens_per_second", *("seconds_" + x for x in steps)}
    assert set(s._postfix()) == {"ll/token", "Mtok/s"}   # the progress bar reads the last sweep


def test_history_topics_and_summary(corpus):
    s = _session(corpus, log_joint_every=2)
    s.run(6, every=3, callback=lambda s: None)
    h = s.history
    assert list(h.columns) == ["sweep", "metric", "value", "proposal"]
    per = h.groupby("metric")["sweep"].apply(list)
    assert per["seconds"] == [1, 2, 3, 4, 5, 6] and per["log_joint"] == [2, 4, 6]
    assert (s.metric("tokens_per_second") > 0).all()
    lj = s.metric("log_joint_per_token")
    assert np.allclose(s.metric("log_joint") / corpus.n_tokens, lj)
    t = s.topics(4)
    assert t.shape == (5, 7) and np.isclose(t["share"].sum(), 1.0)
    assert t.loc[0, "top_words"].split() == list(t.loc[0, ["word_1", "word_2", "word_3",
                                                           "word_4"]])
    theta = s.doc_topics()
    assert theta.shape == (corpus.n_docs, 5) and np.allclose(theta.sum(axis=1), 1.0)
    assert np.allclose(s.topic_word().sum(axis=1), 1.0)
    summ = s.summary()
    assert summ["sweeps"] == 6 and summ["model"] == "LDA" and summ["param.K"] == 5
    assert "sweeps=6" in repr(s)


def test_same_chain_whatever_the_thread_count(corpus, tmp_path):
    """NUMBA_NUM_THREADS=1 and =2 give bit-identical chains (run in fresh processes)."""
    code = ("import hashlib;from topicsup.datasets import make_synthetic;"
            "from topicsup.models import LDA;from topicsup.session import Session;"
            "c=make_synthetic(n_docs=120,n_topics=4,doc_length=40,seed=5).corpus;"
            "s=Session(LDA(K=5),c,seed=9);s.run(5);"
            "print(hashlib.sha256(s.state.z.tobytes()+s.rng.tobytes()).hexdigest())")
    out = set()
    for n in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": n}
        out.add(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                               capture_output=True, text=True).stdout.strip())
    assert len(out) == 1


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, err, msg", [
    (lambda c: Session("LDA", c), TypeError, "model must be a topicsup model"),
    (lambda c: Session(LDA(), [["a"]]), TypeError, "corpus must be a topicsup.Corpus"),
    (lambda c: Session(LDA(), c, seed=-1), ValueError, "seed"),
    (lambda c: Session(LDA(), c, seed="1"), TypeError, "seed"),
    (lambda c: Session(LDA(), c, block_tokens=0), ValueError, "block_tokens"),
    (lambda c: Session(LDA(), c, log_joint_every=-1), ValueError, "log_joint_every"),
    (lambda c: Session(LDA(), c).run(-1), ValueError, "n must be an integer >= 0, got -1"),
    (lambda c: Session(LDA(), c).run(1.5), TypeError, "n must be an integer"),
    (lambda c: Session(LDA(), c).run(2, every=0), ValueError, "every"),
    (lambda c: Session(LDA(), c).run(2, callback=3), TypeError, "callback"),
    (lambda c: Session(LDA(), c).topics(0), ValueError, "n_words"),
])
def test_bad_session_input(corpus, call, err, msg):
    with pytest.raises(err, match=msg):
        call(corpus)


@pytest.mark.parametrize("kw, err, msg", [
    ({"K": 0}, ValueError, r"K must be an integer in \[1, 100000\], got 0"),
    ({"K": 2.0}, TypeError, "K must be an integer"),
    ({"alpha": -0.1}, ValueError, r"alpha must be a finite number in \[1e-10, 1e\+06\]"),
    ({"alpha": (0.1, 0.2)}, ValueError, "alpha has 2 values but K = 20"),
    ({"beta": 0}, ValueError, r"beta must be a finite number in \[1e-10, 1e\+06\], got 0; outside it"),
    ({"beta": float("nan")}, ValueError, "beta"),
    ({"beta": "0.1"}, TypeError, "beta"),
])
def test_bad_model_parameters(kw, err, msg):
    with pytest.raises(err, match=msg):
        LDA(**kw)


def test_bad_checkpoints(corpus, tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not a topicsup checkpoint: it has no metadata"):
        Session.load(tmp_path / "x.npz")
    s = _session(corpus)
    p = s.save(tmp_path / "ok.npz")
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(arrays["meta"].tobytes())
    bad = dict(arrays, meta=np.frombuffer(json.dumps({**meta, "format_version": 99}).encode(),
                                          np.uint8))
    np.savez(tmp_path / "future.npz", **bad)
    with pytest.raises(ValueError, match="format 99"):
        Session.load(tmp_path / "future.npz")
    arrays["state/z"] = arrays["state/z"] + 7
    np.savez(tmp_path / "corrupt.npz", **arrays)
    with pytest.raises(ValueError, match="checksum.*altered or damaged"):
        Session.load(tmp_path / "corrupt.npz")
    from topicsup.checkpoint import checksum   # a forger recomputes it: the range check holds
    meta["checksum"]["digest"] = checksum({k: v for k, v in arrays.items() if k != "meta"})
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(tmp_path / "forged.npz", **arrays)
    with pytest.raises(ValueError, match="field 'state'.*topics outside"):
        Session.load(tmp_path / "forged.npz")


SAMPLERS = {"alias": dict(sampler="alias"), "light": dict(sampler="light"),
            "partially_collapsed": dict(sampler="partially_collapsed"),
            "partially_collapsed-dense": dict(sampler="partially_collapsed", kernel="dense"),
            "light-stale": dict(sampler="light", word_proposal="stale", composition="mixture"),
            "sparse_gibbs": dict(sampler="sparse_gibbs")}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_every_sampler_resumes_exactly(corpus, tmp_path, name):
    """For the MH samplers (whose stale tables are chain state) split runs, a checkpoint taken
    mid-sweep and a load all continue the uninterrupted chain bit for bit."""
    assert_resumes_exactly(LDA(K=5, alpha=0.2, beta=0.05, **SAMPLERS[name]), corpus,
                           tmp_path / f"{name}.npz", block_tokens=500, before=2)


def assert_resumes_exactly(model, corpus, path, *, block_tokens: int, before: int,
                           total: int = 6) -> Session:
    """Run ``before`` sweeps, stop after 3 blocks of the next, checkpoint to ``path``, load
    and finish ``total`` sweeps: the chain and every saved array equal an uninterrupted run.
    Returns the resumed session."""
    a = Session(model, corpus, seed=3, block_tokens=block_tokens)
    a.run(total)
    b = Session(model, corpus, seed=3, block_tokens=block_tokens)
    b.run(before)
    _stop_after_blocks(b, 3)
    b.run(total - before)
    r = Session.load(b.save(path))
    r.run(total - r.n_sweeps)
    _same(_chain(a), _chain(r))
    for k, v in a.state.arrays().items():
        assert np.array_equal(v, r.state.arrays()[k]), k
    # the current Dirichlet parameters (learned ones: the problem holds them)
    assert np.array_equal(a.problem.alpha, r.problem.alpha) and a.problem.beta == r.problem.beta
    return r


@pytest.mark.parametrize("kw, msg", [({"sampler": "sparse"}, "sampler must be one of"),
                                     ({"composition": "chain"}, "composition must be one of"),
                                     ({"mh_steps": 0}, r"mh_steps must be an integer in \[1, 1024\], got 0"),
                                     ({"p_doc": 1.0}, r"p_doc must be a finite number in \(0, 1\)"),
                                     ({"word_proposal": "fresh"}, "word_proposal must be")])
def test_bad_sampler_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        LDA(**kw)


def test_set_params_changes_the_sampler_not_the_chain_rules(corpus, tmp_path):
    """Sampler settings may change between sweeps: the change applies from the next sweep, the
    same change at the same sweep gives the same chain, setting a value equal to the current
    one changes nothing, and a checkpoint carries the new settings."""
    def light():
        return Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                       block_tokens=500)
    a, b, c = light(), light(), light()
    for s in (a, b, c):
        s.run(3)
    a.set_params(mh_steps=4, composition="mixture", p_doc=0.3)
    b.set_params(mh_steps=4, composition="mixture", p_doc=0.3)
    c.set_params(mh_steps=2)     # the current value: the chain must not notice
    assert a.model.mh_steps == 4 and a.model.composition == "mixture"
    for s in (a, b, c):
        s.run(3)
    _same(_chain(a), _chain(b))
    reference = light()
    reference.run(6)
    _same(_chain(c), _chain(reference))
    assert not np.array_equal(a.state.z, c.state.z)
    resumed = Session.load(a.save(tmp_path / "a.npz"))
    assert resumed.model == a.model


@pytest.mark.parametrize("params, msg", [
    ({"K": 7}, r"cannot change \['K'\] during a chain"),
    ({"alpha": 1.0}, r"cannot change \['alpha'\]"),
    # the Gibbs sampler has no live settings: its parts declare none
    ({"mh_steps": 0}, r"cannot change \['mh_steps'\] during a chain; LDA allows \[\]"),
    ({"composition": "random"}, r"cannot change \['composition'\]"),
])
def test_set_params_rejects_what_would_change_the_posterior(corpus, params, msg):
    s = _session(corpus)
    with pytest.raises(ValueError, match=msg):
        s.set_params(**params)
    assert s.model == LDA(K=5, alpha=0.2, beta=0.05, sampler="gibbs")


def test_weight_trace_and_coefficient_summary(tmp_path):
    """Supervised sessions trace eta after every sweep; ``coefficients`` reports the model's
    averaged eta (the one prediction uses) with quantiles of the samples kept after burn-in,
    labelled by class and by topic top words; traces survive a checkpoint."""
    from topicsup.models import LightMedLDA
    data = make_synthetic(n_docs=150, n_topics=4, doc_length=30, task="multiclass",
                          n_classes=3, n_covariates=1, seed=2)
    s = Session(LightMedLDA(K=4, lam=4.0, burn_in=4), data.corpus, seed=1, block_tokens=500)
    s.run(10)
    eta = s.trace("eta")
    assert eta.shape == (10, 3, 5) and eta.dtype == np.float32
    np.testing.assert_array_equal(eta[-1], s.state.supervision.weights.eta.astype(np.float32))
    c = s.coefficients(interval=0.8)
    assert len(c) == 15 and set(c["task"]) == set(data.corpus.labels.classes)
    np.testing.assert_allclose(c["mean"].to_numpy().reshape(3, 5), s.model.coefficients(s.state))
    lo, hi = np.quantile(eta[4:].astype(np.float64), [0.1, 0.9], axis=0)   # sweeps 5..10
    np.testing.assert_allclose(c["lower"].to_numpy().reshape(3, 5), lo)
    np.testing.assert_allclose(c["width"].to_numpy().reshape(3, 5), hi - lo)
    assert (c["n_samples"] == 6).all()
    with pytest.raises(ValueError, match=r"interval must be a finite number in \(0, 1\)"):
        s.coefficients(interval=1.5)
    assert c["feature"].iloc[0].startswith("0: ") and c["feature"].iloc[4] == \
        data.corpus.covariate_names[0]
    wt = s.weights()
    assert len(wt) == 10 * 15 and wt["sweep"].min() == 1 and wt["sweep"].max() == 10
    np.testing.assert_allclose(wt[wt["sweep"] == 10]["value"], eta[-1].reshape(-1))
    resumed = Session.load(s.save(tmp_path / "s.npz"))
    resumed.run(2)
    s.run(2)
    np.testing.assert_array_equal(resumed.trace("eta"), s.trace("eta"))


def test_weight_summaries_need_a_supervised_model(corpus):
    s = _session(corpus)
    s.run(1)
    with pytest.raises(ValueError, match="LDA is unsupervised: it has no classifier weights"):
        s.coefficients()
    with pytest.raises(ValueError, match="no trace named 'eta'"):
        s.trace("eta")


def test_predict_and_score_held_out_documents():
    """Session.predict/score are the estimator's rules on the session's own chain: the sign
    rule for binary labels, class names out, accuracy on a labelled held-out corpus, well above
    chance on a separable synthetic task; a mismatched label set is refused by name."""
    from topicsup.models import LightMedLDA
    data = make_synthetic(n_docs=300, n_topics=4, doc_length=40, seed=4)
    c, X = data.corpus, data.corpus.to_matrix()
    names = c.labels.names()
    train = Corpus.from_matrix(X[:200], c.vocabulary, names[:200], empty="keep")
    test = Corpus.from_matrix(X[200:], c.vocabulary, names[200:], empty="keep")
    s = Session(LightMedLDA(K=4, lam=4.0, burn_in=10), train, seed=0)
    s.run(30)
    pred = s.predict(test)
    assert set(pred) <= set(train.labels.classes) and len(pred) == 100
    acc = s.score(test)
    assert acc == np.mean(pred == names[200:]) and acc > 0.8
    scores = s.decision_function(test, n_burn=5, n_keep=5, seed=3)
    assert scores.shape == (100, 1)
    np.testing.assert_array_equal(scores, s.decision_function(test, n_burn=5, n_keep=5, seed=3))
    # a document without a known word is scored at the prior mean of its proportions
    empty = s.decision_function([[]], n_burn=5, n_keep=5)
    a = s.model.alpha_vector
    np.testing.assert_allclose(empty, s.model.decision_scores(s.state, (a / a.sum())[None]))
    assert empty[0, 0] != 0.0
    other = make_synthetic(n_docs=30, n_topics=4, doc_length=20, task="multiclass",
                           n_classes=3, seed=1).corpus
    with pytest.raises(ValueError, match=r"labels\[0\] is 'class_1', which is not one of the "
                                         r"classes \['negative', 'positive'\]"):
        s.score(other)


# ---------------------------------------------------------------- one run at a time
def _busy_session(corpus):
    return Session(LDA(K=5, alpha=0.2, beta=0.05), corpus, seed=3, block_tokens=200,
                   log_joint_every=0)


def _start_worker(s):
    t, outcome, swept = run_in_thread(s, 10**9)
    swept.wait()
    assert "error" not in outcome, outcome
    return t, outcome


def test_a_second_concurrent_run_is_refused_and_stop_reaches_the_active_one(corpus):
    """While one thread runs the session, a run from another thread (or from the run's own
    callback) raises SessionBusyError naming the running thread; request_stop from a third
    party stops the active run, after which the session runs again from where it stopped."""
    from topicsup.session import SessionBusyError
    s = _busy_session(corpus)
    t, outcome = _start_worker(s)
    assert s.running
    with pytest.raises(SessionBusyError, match="already running in thread 'Thread-"):
        s.run(1)
    s.request_stop()
    t.join()
    assert outcome["done"] < 10**9 and not s.running, outcome
    at = s.n_sweeps
    assert s.run(2) == 2 and s.n_sweeps == at + 2

    def nested(sess):
        sess.run(1)
    with pytest.raises(SessionBusyError, match="this thread .a callback may not start"):
        s.run(1, callback=nested)
    assert not s.running and s.run(1) == 1


def test_save_set_params_and_stop_from_the_main_thread_during_a_run(corpus, tmp_path):
    """While another thread runs the session (issue 50): ``save`` writes the state at a
    block boundary the run passed (the checkpoint continues to the uninterrupted chain),
    ``set_params`` takes effect at the next sweep and is recorded there, ``request_stop``
    ends the run, which returns the sweeps it completed."""
    s = Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                block_tokens=200, log_joint_every=0)
    t, outcome = _start_worker(s)
    path = s.save(tmp_path / "during.npz")
    s.set_params(mh_steps=4)
    s.request_stop()
    t.join()
    assert "error" not in outcome and outcome["done"] == s.n_sweeps, outcome
    changes = s.settings_changes
    assert changes[["parameter", "old", "new"]].values.tolist() == [["mh_steps", "2", "4"]]
    saved = Session.load(path)
    assert saved.model.get_params()["mh_steps"] == 2
    assert int(changes["sweep"].iloc[0]) > saved.n_sweeps
    # the checkpoint is the chain's state where it was taken: continued, the chain that
    # was never saved (without the later change of setting)
    ref = Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                  block_tokens=200, log_joint_every=0)
    saved.run(2)
    ref.run(saved.n_sweeps)
    assert np.array_equal(saved.state.counts.z, ref.state.counts.z)


def test_two_threads_racing_to_run_one_session(corpus):
    """Of two threads that call run at once, exactly one runs and the other is refused;
    a stop requested once the other has been refused reaches the one that runs (it owned
    the session before the refusal and owns it until it returns), so no run is left that
    the stop missed. Events order the threads; nothing waits on the clock."""
    from topicsup.session import SessionBusyError
    s = _busy_session(corpus)
    go = threading.Barrier(2)
    outcome = []
    # set by a refusal or the end of a run, and by two runs each completing a sweep (a
    # bug, which must fail the test rather than run 10**9 sweeps)
    decided = threading.Event()
    swept, lock = set(), threading.Lock()

    def callback(_):
        with lock:
            swept.add(threading.current_thread().name)
            if len(swept) == 2:
                decided.set()

    def racer():
        go.wait()
        try:
            outcome.append(("ran", s.run(10**9, callback=callback)))
        except SessionBusyError:
            outcome.append(("refused", 0))
        finally:
            decided.set()
    threads = [threading.Thread(target=racer) for _ in range(2)]
    for t in threads:
        t.start()
    decided.wait()
    s.request_stop()
    for t in threads:
        t.join()
    assert sorted(k for k, _ in outcome) == ["ran", "refused"], outcome
    assert max(n for _, n in outcome) < 10**9 and not s.running


def test_a_stop_requested_while_no_run_owns_the_session_is_dropped(corpus):
    """request_stop before any run, between runs, or from the last callback of a run (the
    request then ends with that run) does not stop the next run: it runs all its sweeps."""
    s = _session(corpus)
    s.request_stop()
    assert s.run(3) == 3 and s.n_sweeps == 3 and not s.in_sweep
    s.request_stop()
    assert s.run(2, every=2, callback=lambda sess: sess.request_stop()) == 2
    assert s.run(2) == 2 and s.n_sweeps == 7 and not s.in_sweep
    ref = _session(corpus)
    ref.run(7)
    _same(_chain(ref), _chain(s))


def test_a_stop_requested_during_a_run_ends_it_after_the_current_block(corpus):
    """A stop requested by another thread while the run is at a block lets that block
    finish and ends the run before the next one; the run reports no complete sweep and the
    next run continues from there."""
    s = _busy_session(corpus)
    assert s.n_blocks > 3
    at_block, requested = threading.Event(), threading.Event()
    run_block, count = s._run_block, [0]

    def block():
        count[0] += 1
        if count[0] == 2:            # the run is at its 2nd block: the stop comes now
            at_block.set()
            requested.wait()
        run_block()
    s._run_block = block
    t, outcome, _ = run_in_thread(s, 10**9)
    at_block.wait()
    s.request_stop()
    requested.set()
    t.join()
    assert outcome == {"done": 0} and s._block == 2 and s.in_sweep and not s.running
    s._run_block = run_block
    assert s.run(1) == 1 and not s.in_sweep


class _OwnershipProbe(Session):
    """A Session that calls ``on_owned()`` the instant a run takes ownership of it (when
    ``running`` turns True), in the run's thread."""

    on_owned = None

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name == "_owner" and value is not None and self.on_owned is not None:
            self.on_owned()


def test_a_stop_requested_the_moment_a_run_owns_the_session_is_not_lost(corpus):
    """Another thread requests a stop at the very instant a run takes ownership, while
    the run is still setting itself up; the run must see it: it ends before completing a
    sweep (at the latest after its first block, which here waits for the request to be
    done). The next run is not stopped."""
    s = _OwnershipProbe(LDA(K=5, alpha=0.2, beta=0.05), corpus, seed=3, block_tokens=200,
                        log_joint_every=0)
    assert s.n_blocks > 1
    requesting = threading.Event()

    def stop():
        requesting.set()
        s.request_stop()
    stopper = threading.Thread(target=stop)

    def owned():                  # in the run's thread, with ownership just taken
        stopper.start()
        requesting.wait()         # the other thread is inside request_stop now
    s.on_owned = owned
    run_block = s._run_block

    def block():
        stopper.join()            # whatever it raced with, the request is complete
        run_block()
    s._run_block = block
    assert s.run(1) == 0 and s.n_sweeps == 0 and s._block <= 1 and not s.running
    s.on_owned = None
    assert s.run(1) == 1 and s.n_sweeps == 1


def test_ctrl_c_stops_between_blocks_and_loses_nothing():
    """SIGINT (Ctrl-C, Jupyter's interrupt) during a run in the main thread becomes a stop
    request: the run raises KeyboardInterrupt after the current block, the SIGINT handler is
    restored, and continuing gives the uninterrupted chain bit for bit (a fresh process, so
    the signal goes nowhere else)."""
    code = """
import signal, numpy as np
from topicsup.datasets import make_synthetic
from topicsup.models import LDA
from topicsup.session import Session
c = make_synthetic(n_docs=400, n_topics=4, doc_length=60, seed=1).corpus
def make():
    return Session(LDA(K=6), c, seed=0, block_tokens=300, log_joint_every=0)
s = make()
run_block = s._run_block
def announcing():
    run_block()
    if s.n_sweeps == 2 and s._block == 1:   # inside the 3rd sweep, where SIGINT is a stop
        print("READY", flush=True)
s._run_block = announcing
try:
    s.run(10**6)
    raise SystemExit("not interrupted")
except KeyboardInterrupt as e:
    assert "nothing is lost" in str(e), e
s._run_block = run_block
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
assert not s.running
total = s.n_sweeps + 3
s.run(total - s.n_sweeps)
ref = make(); ref.run(total)
assert np.array_equal(ref.state.z, s.state.z) and np.array_equal(ref.rng, s.rng)
print("SAME", total)
"""
    code, out, sent = interrupt_when(code, lambda lines: lines[-1] == "READY")
    assert sent and code == 0 and "\nSAME " in out, out[-3000:]


def test_ctrl_c_in_a_callback_interrupts_the_callback_at_once():
    """While the user's callback runs, SIGINT is Python's own: a slow callback is
    interrupted at once, not after it returns, and the run ends with the session between
    sweeps. The callback never returns by itself, so the run can only end through the
    interrupt reaching the callback."""
    code = """
import signal, time
from topicsup.datasets import make_synthetic
from topicsup.models import LDA
from topicsup.session import Session
c = make_synthetic(n_docs=50, n_topics=3, doc_length=20, seed=1).corpus
s = Session(LDA(K=3), c, seed=0)
def never_returns(sess):
    print("READY", flush=True)
    while True:   # short naps, not one long wait: a signal taken by another thread acts too
        time.sleep(0.01)
try:
    s.run(100, callback=never_returns)
    raise SystemExit("the callback returned")
except KeyboardInterrupt:
    pass
assert not s.running and not s.in_sweep and s.n_sweeps == 1
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
print("INTERRUPTED IN THE CALLBACK")
"""
    code, out, sent = interrupt_when(code, lambda lines: lines[-1] == "READY")
    assert sent and code == 0 and "INTERRUPTED IN THE CALLBACK" in out, out[-3000:]


def test_an_error_after_the_end_of_sweep_draws_commits_the_sweep_once():
    """Once end_sweep has drawn the weights and the augmentation, the sweep counts: if the
    log joint then raises, the sweep is committed without its log-joint rows and the error
    propagates; the next run goes on without drawing that sweep's end again, so the chain
    (assignments, generator, weights, kept samples) is the uninterrupted one and its
    checkpoint loads."""
    from topicsup.models import LightMedLDA
    data = make_synthetic(n_docs=80, n_topics=3, doc_length=25, seed=2)
    model = LightMedLDA(K=3, lam=4.0)
    a = Session(model, data.corpus, seed=1)
    a.run(4)
    b = Session(model, data.corpus, seed=1)
    b.run(1)
    original = b.model.log_joint
    object.__setattr__(b.model, "log_joint", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        b.run(1)
    object.__setattr__(b.model, "log_joint", original)
    assert b.n_sweeps == 2 and not b.running and not b.in_sweep
    assert not ((b.history["sweep"] == 2) & (b.history["metric"] == "log_joint")).any()
    b.run(2)
    for k in ("z", "eta", "eta_sum", "eta_kept"):
        assert np.array_equal(a.model.saved_arrays(a.state)[k],
                              b.model.saved_arrays(b.state)[k]), k
    assert np.array_equal(a.rng, b.rng)
    assert Session.load(b.save(Path(tempfile.mkdtemp()) / "b.npz")).n_sweeps == 4


def test_settings_changes_are_recorded_saved_and_marked(corpus, tmp_path):
    """set_params records each real change with the first sweep that uses it; a checkpoint
    keeps them; the views draw a rule for each on a chart against sweeps."""
    from topicsup import views
    s = Session(LDA(K=5, alpha=0.2, beta=0.05, sampler="light"), corpus, seed=3,
                block_tokens=500)
    s.run(2)
    s.set_params(mh_steps=4, composition="cycle")   # composition unchanged: not recorded
    s.run(1)
    s.set_params(p_doc=0.3)
    ch = s.settings_changes
    assert ch.to_dict("records") == [
        {"sweep": 3, "parameter": "mh_steps", "old": "2", "new": "4"},
        {"sweep": 4, "parameter": "p_doc", "old": "0.5", "new": "0.3"}]
    back = Session.load(s.save(tmp_path / "ch.npz"))
    pd.testing.assert_frame_equal(back.settings_changes, ch)
    chart = views.mark_settings_changes(views.loglik_chart(s.history), ch)
    spec = chart.to_dict()
    rules = [d for d in spec["datasets"].values() if d and "change" in d[0]]
    assert rules == [[{"at": 2.5, "change": "mh_steps: 2 -> 4"},
                      {"at": 3.5, "change": "p_doc: 0.5 -> 0.3"}]]
    assert views.mark_settings_changes(views.loglik_chart(s.history),
                                       ch.iloc[:0]).to_dict()["mark"]["type"] == "line"


def test_a_pickled_session_continues_the_chain(corpus):
    """Sessions pickle (for joblib and scikit-learn's clone/pickle checks): the copy has its
    own locks and continues the same chain."""
    import pickle
    a = _session(corpus)
    a.run(3)
    b = pickle.loads(pickle.dumps(a))
    a.run(2)
    b.run(2)
    _same(_chain(a), _chain(b))
    assert not b.running


def test_metric_selects_plain_and_per_proposal_rows(corpus):
    s = Session(LDA(K=5, sampler="light"), corpus, seed=3)
    s.run(3)
    assert len(s.metric("log_joint")) == 3
    doc = s.metric("acceptance_rate", proposal="doc")
    assert doc.name == "acceptance_rate[doc]" and len(doc) == 3 and doc.between(0, 1).all()
    with pytest.raises(ValueError, match="pass proposal= one of .'doc', 'word'."):
        s.metric("acceptance_rate")
    with pytest.raises(ValueError, match="proposal must be one of"):
        s.metric("acceptance_rate", proposal="exp")


def test_credible_intervals_leave_out_the_lda_initialisation():
    """Before the last LDA-initialisation sweep the weights are not drawn (zeros): the
    intervals summarise the samples prediction averages, as many as eta_kept."""
    from topicsup.models import LightMedLDA
    data = make_synthetic(n_docs=120, n_topics=3, doc_length=30, seed=2)
    s = Session(LightMedLDA(K=3, lam=4.0, lda_init_sweeps=5), data.corpus, seed=1)
    s.run(8)
    c = s.coefficients()
    assert s.state.supervision.weights.eta_kept[0] == 4 and (c["n_samples"] == 4).all()
    kept = s.trace("eta")[4:].astype(np.float64)    # sweeps 5..8
    lo, hi = np.quantile(kept, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(c["lower"].to_numpy().reshape(lo.shape), lo)
    np.testing.assert_allclose(c["upper"].to_numpy().reshape(hi.shape), hi)


def test_score_matches_classes_by_name():
    """Held-out labels are matched to the model's classes by name: a held-out corpus whose
    classes are ordered differently, a subset, or plain documents with labels score as the
    predictions compared by name."""
    from topicsup.models import LightMedLDA
    data = make_synthetic(n_docs=240, n_topics=4, doc_length=30, task="multiclass",
                          n_classes=3, seed=4)
    c = data.corpus
    train = Corpus.from_matrix(c.to_matrix()[:160], c.vocabulary, c.labels.names()[:160])
    s = Session(LightMedLDA(K=4, lam=4.0, burn_in=5), train, seed=0)
    s.run(12)
    docs = [c.document(d) for d in range(160, 240)]
    names = c.labels.names()[160:]
    reordered = Corpus.from_tokens(docs, names, classes=["class_2", "class_0", "class_1"],
                                   label_type="multiclass")
    assert reordered.labels.classes != train.labels.classes
    expected = float(np.mean(s.predict(docs) == names))
    assert s.score(reordered) == expected == s.score(docs, labels=list(names))
    keep = names != "class_2"
    subset = Corpus.from_tokens([d for d, k in zip(docs, keep) if k], names[keep],
                                classes=["class_0", "class_1"], label_type="multiclass")
    assert s.score(subset) == float(np.mean(s.predict(subset) == names[keep]))


def test_perplexity_by_document_completion(corpus):
    """Lower after sampling than at the random start, far below the vocabulary size (the
    uniform model's perplexity), the same for the same seed, and a held-out set with no
    second half to score is refused by name."""
    s = Session(LDA(K=5, alpha=0.2, beta=0.05), corpus, seed=3)
    start = s.perplexity(corpus)
    s.run(30)
    after = s.perplexity(corpus)
    assert after < start < corpus.n_words and after == s.perplexity(corpus)
    with pytest.raises(ValueError, match="docs: no document has 2 known words"):
        s.perplexity([[corpus.vocabulary[0]]])


def test_perplexity_splits_each_document_at_random_whatever_its_form():
    """Document completion's halves are drawn from each document's own stream, not taken in
    the order its tokens came in: on a vocabulary ordered by topic, the same documents as
    token lists (shuffled) and as a count matrix (columns in vocabulary order) score the
    same, bit for bit (the first half of a count matrix's tokens used to be its first
    columns: issue 50 reported 308.8 against 45.1 on such a corpus)."""
    gen = np.random.default_rng(4)
    V, K = 24, 3
    vocab = [f"w{v:02d}" for v in range(V)]                      # topic k: words 8k .. 8k+7
    docs = []
    for d in range(60):
        theta = gen.dirichlet(np.full(K, 0.3))
        z = gen.choice(K, size=40, p=theta)
        docs.append([vocab[8 * k + int(gen.integers(0, 8))] for k in z])
    corpus = Corpus.from_tokens(docs, vocabulary=vocab)
    s = Session(LDA(K=K, alpha=0.3, beta=0.05, sampler="gibbs"), corpus, seed=2)
    s.run(40)
    held = [list(gen.permutation(d)) for d in docs[:20]]
    counts = np.zeros((20, V), np.int64)
    for i, d in enumerate(held):
        for w in d:
            counts[i, vocab.index(w)] += 1
    as_lists, as_counts = s.perplexity(held), s.perplexity(counts)
    assert as_lists == as_counts, (as_lists, as_counts)
    assert as_lists == s.perplexity([sorted(d) for d in held])
    # each document's own stream: its split does not depend on the others
    from topicsup.kernels.fold_in import completion_split, content_labels
    from topicsup.kernels.rng import seed_state
    words = np.sort(np.array([vocab.index(w) for w in held[0]], np.int32))
    ptr = np.array([0, words.size], np.int64)
    alone = np.zeros(words.size, bool)
    completion_split(words, ptr, seed_state(0, 8), content_labels(words, ptr), alone)
    both_words = np.concatenate([np.sort(np.array([vocab.index(w) for w in held[1]],
                                                  np.int32)), words])
    both_ptr = np.array([0, len(held[1]), both_words.size], np.int64)
    both = np.zeros(both_words.size, bool)
    completion_split(both_words, both_ptr, seed_state(0, 8),
                     content_labels(both_words, both_ptr), both)
    np.testing.assert_array_equal(both[len(held[1]):], alone)
    assert alone.sum() == words.size // 2


def test_the_completion_split_is_uniform_over_halves():
    """Over many keys a document of 4 tokens keeps each of the 6 pairs as its seen half
    equally often (chi-square), and an odd one keeps floor(N / 2)."""
    from scipy import stats
    from topicsup.kernels.fold_in import completion_split
    from topicsup.kernels.rng import seed_state
    words = np.array([0, 1, 2, 3, 0, 1, 2], np.int32)
    ptr = np.array([0, 4, 7], np.int64)
    labels = np.array([11, 12], np.uint64)
    tally: dict[tuple[int, ...], int] = {}
    for k in range(6000):
        seen = np.zeros(7, bool)
        completion_split(words, ptr, seed_state(k, 8), labels, seen)
        assert seen[4:].sum() == 1
        key = tuple(np.flatnonzero(seen[:4]))
        tally[key] = tally.get(key, 0) + 1
    assert len(tally) == 6
    assert stats.chisquare(list(tally.values())).pvalue > 1e-3, tally


def _forge(path, out, **changes):
    """A checkpoint with some arrays replaced and its checksum recomputed (a forger's)."""
    from topicsup.checkpoint import checksum
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(changes)
    meta = json.loads(arrays["meta"].tobytes())
    meta["checksum"]["digest"] = checksum({k: v for k, v in arrays.items() if k != "meta"})
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(out, **arrays)
    return out


def test_forged_partially_collapsed_checkpoints_are_refused(corpus, tmp_path):
    """Phi is chain state mid-sweep: a file stopped part-way with no Phi, a Phi whose topic
    does not sum to one, or a word with no mass in any topic is refused by name (each would
    otherwise resume with draws from a degenerate table)."""
    s = Session(LDA(K=4, sampler="partially_collapsed"), corpus, seed=1, block_tokens=300)
    s.run(1)
    _stop_after_blocks(s, 1)
    s.run(1)   # stopped part-way through sweep 2
    assert s.in_sweep
    p = s.save(tmp_path / "mid.npz")
    with np.load(p) as z:
        phi = z["state/pc_phi"]
    zero = _forge(p, tmp_path / "zero.npz", **{"state/pc_phi": np.zeros_like(phi)})
    with pytest.raises(ValueError, match="pc_phi is all zero, but the checkpoint was taken "
                                         "part-way through a sweep"):
        Session.load(zero)
    scaled = _forge(p, tmp_path / "scaled.npz", **{"state/pc_phi": phi * 1.5})
    with pytest.raises(ValueError, match="every topic \\(column\\) must sum to one"):
        Session.load(scaled)
    hole = phi.copy()
    hole[3] = 0.0
    hole /= hole.sum(axis=0)
    holed = _forge(p, tmp_path / "hole.npz", **{"state/pc_phi": hole})
    with pytest.raises(ValueError, match="word 3 has probability 0 in every topic"):
        Session.load(holed)
    assert Session.load(p).in_sweep   # the file as written loads


# ---------------------------------------------------------------- pandas in, pandas out
def test_pandas_documents_get_pandas_outputs_with_their_index():
    """A corpus from a shuffled frame's columns (string index): doc_topics and
    document_entropy carry that index and join back onto the frame row by row; predict and
    decision_function on a Series with a shuffled integer index, or multi-label predict on a
    DataFrame of counts, give a Series / DataFrame with exactly the input's index and the
    values the same documents get as a list or an array (which still get arrays)."""
    from topicsup.models import LightMedLDA
    c = make_synthetic(n_docs=80, n_topics=3, doc_length=30, seed=2).corpus
    frame = pd.DataFrame({"tokens": [c.document(d) for d in range(c.n_docs)],
                          "label": c.labels.names()},
                         index=pd.Index([f"post{i}" for i in range(c.n_docs)], name="post"))
    frame = frame.sample(frac=1, random_state=0)
    s = Session(LightMedLDA(K=3, lam=4.0), Corpus.from_tokens(frame["tokens"], frame["label"]),
                seed=0)
    s.run(5)
    theta = s.doc_topics()
    pd.testing.assert_index_equal(theta.index, frame.index, exact=True)
    joined = frame.join(theta)
    np.testing.assert_array_equal(joined[list(theta.columns)].to_numpy(), theta.to_numpy())
    assert list(joined["tokens"]) == [s.corpus.document(d) for d in range(s.corpus.n_docs)]
    pd.testing.assert_index_equal(s.document_entropy().index, frame.index, exact=True)
    test = pd.Series([c.document(d) for d in range(10)],
                     index=np.random.default_rng(1).permutation(10) * 7)
    pred = s.predict(test, n_burn=2, n_keep=2)
    scores = s.decision_function(test, n_burn=2, n_keep=2)
    assert isinstance(pred, pd.Series) and pred.name == "prediction"
    pd.testing.assert_index_equal(pred.index, test.index, exact=True)
    pd.testing.assert_index_equal(scores.index, test.index, exact=True)
    assert list(scores.columns) == ["positive"]
    plain_pred = s.predict(list(test), n_burn=2, n_keep=2)
    plain_scores = s.decision_function(list(test), n_burn=2, n_keep=2)
    assert isinstance(plain_pred, np.ndarray) and isinstance(plain_scores, np.ndarray)
    assert pred.tolist() == plain_pred.tolist()
    np.testing.assert_array_equal(scores.to_numpy(), plain_scores)
    back = test.to_frame("tokens").join(pred)
    assert back["prediction"].tolist() == plain_pred.tolist()

    ml = make_synthetic(n_docs=60, n_topics=3, doc_length=30, task="multilabel", n_classes=3,
                        seed=3).corpus
    m = Session(LightMedLDA(K=3, lam=4.0), ml, seed=0)
    m.run(3)
    counts = pd.DataFrame(ml.to_matrix()[:6].toarray(), columns=list(ml.vocabulary),
                          index=pd.Index(list("fedcba"), name="doc"))
    hits = m.predict(counts, n_burn=2, n_keep=2)
    pd.testing.assert_index_equal(hits.index, counts.index, exact=True)
    assert list(hits.columns) == list(ml.labels.classes)
    np.testing.assert_array_equal(hits.to_numpy(), m.predict(counts.to_numpy(), n_burn=2,
                                                              n_keep=2))
