"""The Dask backend against the threaded one on a real 2-process ``LocalCluster``: the same
chain bit for bit with 1, 2 and 3 partitions, checkpoint and resume, a worker lost mid-sweep,
and several chains on the workers."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed", reason="the Dask backend needs "
                                  "dask.distributed (pip install 'topicsup[dask]')")

from topicsup.backends.dask import DaskBackend, WorkerLostError  # noqa: E402
from topicsup.models import DOLDA, LDA, LightMedLDA  # noqa: E402
from topicsup.session import Session, is_timing  # noqa: E402
from topicsup.synthetic import make_synthetic  # noqa: E402
from topicsup.backends.dask import (PartitionMissing, _apply_replica, _changes,  # noqa: E402
                                    _drop, _export, _install, _Partition)
from topicsup.testing.faults import (arm_worker_exit, arm_worker_exit_drawing_phi,  # noqa
                                     corrupt_column_sums, exit_now)

SWEEPS = 3


def test_backend_dask_without_a_client_is_refused_by_name():
    """Runs first in the module, before its cluster exists."""
    corpus = make_synthetic(n_docs=10, n_topics=2, doc_length=5, seed=1).corpus
    with pytest.raises(ValueError, match="no Dask client is running"):
        Session(LDA(K=2, sampler="partially_collapsed"), corpus, backend="dask")


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each, the memory manager off; closed at the end
    of the module (never restarted). Dask's connection limits (30 s) become 10 minutes: on a
    loaded machine starting a worker process and connecting it can take long, which is not
    a failure; each wait still ends as soon as the connection is made."""
    import dask
    with dask.config.set({"distributed.comm.timeouts.connect": "600s",
                          "distributed.comm.timeouts.tcp": "600s"}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           memory_limit=0, dashboard_address=None,
                                           silence_logs=50)
        c = distributed.Client(cluster)
        try:
            yield c
        finally:
            c.close()
            cluster.close()


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=240, n_topics=6, doc_length=40, task="multiclass",
                          n_classes=3, seed=5).corpus


MODELS = {
    "lda-sparse": LDA(K=6, sampler="partially_collapsed"),
    "lda-dense": LDA(K=6, sampler="partially_collapsed", kernel="dense"),
    "lightmedlda": LightMedLDA(K=6, sampler="partially_collapsed", lda_init_sweeps=1),
    "dolda": DOLDA(K=6, lda_init_sweeps=1),
}


def chain_of(s: Session) -> dict[str, np.ndarray]:
    """What defines the chain and what it recorded: the saved state, the counts, the random
    stream, the history without its timings, the traces."""
    out = {f"state/{k}": np.array(v) for k, v in s.model.saved_arrays(s.state).items()}
    c = s.state.counts
    out.update({"n_dk": c.n_dk, "n_wk": c.n_wk, "n_k": c.n_k, "rng": s.rng})
    h = s.history
    h = h[~is_timing(h["metric"])]
    out["history"] = h["value"].to_numpy()
    out.update({f"trace/{k}": s.trace(k) for k in s.model.trace_names if s.n_sweeps})
    return out


def assert_same_chain(a: Session, b: Session) -> None:
    ca, cb = chain_of(a), chain_of(b)
    assert ca.keys() == cb.keys()
    for k in ca:
        np.testing.assert_array_equal(ca[k], cb[k], err_msg=k)


def test_a_blocks_reply_is_the_changed_tokens_or_every_topic_whichever_is_smaller():
    """A worker replies with the positions and new topics of the tokens that changed (6
    bytes each: int32 and uint16) when that is smaller than every token's topic (4 bytes
    each), else with every topic; either way the new topics follow from the reply and the old
    ones. Topics past uint16 (K > 65,536) go as int32."""
    rs = np.random.default_rng(1)
    for K in (9, 70_000):
        before = rs.integers(0, K, 1000).astype(np.int32)
        for share, sparse in ((0.1, True), (0.6, K == 9), (0.7, False), (0.9, False)):
            after = before.copy()
            moved = rs.choice(1000, int(share * 1000), replace=False)
            after[moved] = (after[moved] + 1) % K
            pos, topics = _changes(before, after, K)
            assert (pos is not None) == sparse, (K, share)
            rebuilt = before.copy()
            if pos is None:
                rebuilt = topics
            else:
                assert pos.dtype == np.int32 and np.all(np.diff(pos) > 0)
                assert topics.dtype == (np.uint16 if K == 9 else np.int32)
                rebuilt[pos] = topics
            assert np.array_equal(rebuilt, after)


@pytest.mark.parametrize("name", list(MODELS))
def test_same_chain_as_threads_with_1_2_and_3_partitions(client, corpus, name):
    """Each model's chain on threads and on the cluster split into 1, 2 and 3 partitions
    (3 on 2 workers: one worker sweeps two) agrees bit for bit: state, counts, stream,
    every non-timing history row (log joint, acceptance, shares) and the weight traces."""
    model = MODELS[name]
    ref = Session(model, corpus, seed=7)
    ref.run(SWEEPS)
    for parts in (1, 2, 3):
        backend = DaskBackend(client, partitions=parts)
        s = Session(model, corpus, seed=7, backend=backend)
        s.run(SWEEPS)
        assert len(backend.placements) == parts
        assert_same_chain(ref, s)
        traffic = backend.traffic_frame()
        assert traffic["bytes_sent"].gt(0).all()
        # every token was swept once a sweep; the replies carried at most every topic
        assert traffic["tokens"].sum() == SWEEPS * corpus.n_tokens
        assert (traffic["tokens_changed"] <= traffic["tokens"]).all()
        s.close()
        assert isinstance(s.backend, type(Session(model, corpus).backend))


@pytest.mark.parametrize("n_shards", [1, 2, 3, 7])
def test_phi_drawn_in_shards_is_the_threaded_draw_bit_for_bit(n_shards):
    """``draw_phi``'s steps run apart, as the workers and the driver run them (rows of word
    chunks drawn per shard, the chunks' column sums added here, rows scaled and assembled,
    an empty topic's column drawn here), give ``draw_phi``'s Phi bit for bit, with a topic
    without tokens; a mutant adding the shards' sums per shard first does not."""
    from topicsup.backends.dask import assemble_phi, _draw_shard
    from topicsup.kernels import partially_collapsed as pc
    from topicsup.kernels.rng import seed_state
    rs = np.random.default_rng(4)
    V, K = 5 * pc.PHI_CHUNK + 17, 6
    n_wk = rs.integers(0, 4, (V, K)).astype(np.int32)
    n_wk[:, 2] = 0   # topic 2 has no tokens
    n_k = n_wk.sum(axis=0).astype(np.int32)
    key = seed_state(9)
    want, partial = np.empty((V, K)), np.empty(((V + pc.PHI_CHUNK - 1) // pc.PHI_CHUNK, K))
    pc.draw_phi(n_wk, n_k, 0.05, key, want, partial)
    n_chunks = partial.shape[0]
    cuts = np.unique(np.linspace(0, n_chunks, n_shards + 1).round().astype(int))
    shards = [_draw_shard(i, int(c0), n_wk[c0 * pc.PHI_CHUNK:min(V, c1 * pc.PHI_CHUNK)], n_k,
                          0.05, key) for i, (c0, c1) in enumerate(zip(cuts[:-1], cuts[1:]))]
    inv = pc.normalisers(np.concatenate([p for p, _ in shards]), n_k)
    empty_topics = np.flatnonzero(n_k == 0).astype(np.int64)
    empty = np.stack([pc.empty_topic(V, int(k), 0.05, key) for k in empty_topics], axis=1)
    got = np.empty((V, K))
    assemble_phi(shards, inv, empty, empty_topics, got)
    assert np.array_equal(got, want)
    assert np.allclose(got.sum(axis=0), 1.0)
    if n_shards == 3:   # the mutant: each shard's sums (2 chunks) first, then their totals
        by_shard = np.stack([p.sum(axis=0) for p, _ in shards])
        wrong = np.empty((V, K))
        assemble_phi(shards, pc.normalisers(by_shard, n_k), empty, empty_topics, wrong)
        assert not np.array_equal(wrong, want)


def test_a_vocabulary_of_several_shards_gives_the_threaded_chain(client):
    """A vocabulary of 9 chunks of words: both workers draw rows of Phi, fetch each other's,
    and the chain (the Session's Phi included, drawn when read) is the threaded one bit for
    bit; the traffic says what the driver sent (n_wk's rows once, not Phi to each worker),
    what the workers passed each other, and that Phi did not come back."""
    from topicsup.corpus import Corpus
    from topicsup.kernels import partially_collapsed as pc
    rs = np.random.default_rng(8)
    V = 9 * pc.PHI_CHUNK
    docs = [[f"w{int(w)}" for w in rs.integers(0, V, rs.integers(20, 60))] for _ in range(300)]
    docs[0] += [f"w{w}" for w in range(V)]   # every word present
    big = Corpus.from_tokens(docs)
    assert big.n_words == V
    model = LDA(K=5, sampler="partially_collapsed")
    ref = Session(model, big, seed=4)
    ref.run(SWEEPS)
    backend = DaskBackend(client, partitions=3)
    s = Session(model, big, seed=4, backend=backend)
    s.run(SWEEPS)
    assert_same_chain(ref, s)
    t = backend.traffic_frame().iloc[-1]
    assert t["bytes_between_workers"] == 8 * V * 5   # each of 2 workers fetches the other's
    assert t["bytes_sent"] < 2 * 8 * V * 5   # less than Phi to each worker
    assert t["bytes_received"] < 8 * V * 5   # Phi is not gathered: drawn here when read
    s.close()


def test_a_workers_bad_column_sums_are_refused_before_use(client, corpus):
    """A worker replying column sums of Phi that are not finite: a RuntimeError naming it
    and its rows, before any worker sweeps with them; nothing of the sweep is applied, and
    with sound replies again the chain is the threaded one."""
    ref = Session(MODELS["lda-sparse"], corpus, seed=6)
    ref.run(SWEEPS)
    s = Session(MODELS["lda-sparse"], corpus, seed=6, backend=DaskBackend(client))
    s.run(1)
    before = s.state.counts.z.copy()
    client.run(corrupt_column_sums, True)
    try:
        with pytest.raises(RuntimeError, match=r"replied column sums .*rows of Phi of words"):
            s.run(1)
    finally:
        client.run(corrupt_column_sums, False)
    assert s.n_sweeps == 1 and np.array_equal(s.state.counts.z, before)
    s.run(SWEEPS - 1)
    assert_same_chain(ref, s)
    s.close()


def test_checkpoint_and_resume_on_the_cluster(client, corpus, tmp_path):
    """A chain saved part-way through a threaded sweep and resumed on the cluster, then
    saved on the cluster and resumed on threads, equals the uninterrupted threaded chain."""
    model = MODELS["dolda"]
    ref = Session(model, corpus, seed=3, block_tokens=2000)
    ref.run(SWEEPS + 1)
    s = Session(model, corpus, seed=3, block_tokens=2000)
    assert s.n_blocks > 2
    blocks = [0]
    run_block = s._run_block

    def stop_in_sweep_two():
        run_block()
        blocks[0] += 1
        if blocks[0] == s.n_blocks + 2:
            s.request_stop()
    s._run_block = stop_in_sweep_two
    assert s.run(3) == 1 and s.in_sweep
    s.save(tmp_path / "a.npz")
    t = Session.load(tmp_path / "a.npz", backend=DaskBackend(client, partitions=2))
    t.run(2)   # finishes sweep 2 on the cluster, then sweep 3
    t.save(tmp_path / "b.npz")
    t.close()
    u = Session.load(tmp_path / "b.npz")
    u.run(SWEEPS + 1 - u.n_sweeps)
    assert u.n_sweeps == ref.n_sweeps
    assert_same_chain(ref, u)


def _threads_and_one_dask_sweep(client, corpus, name, seed):
    """The reference chain on threads (SWEEPS sweeps), and the same chain's first sweep on
    the cluster in 2 partitions."""
    ref = Session(MODELS[name], corpus, seed=seed)
    ref.run(SWEEPS)
    backend = DaskBackend(client, partitions=2)
    s = Session(MODELS[name], corpus, seed=seed, backend=backend)
    s.run(1)
    return ref, backend, s


@pytest.mark.parametrize("stage", ["sweep", "phi"])
def test_a_worker_lost_mid_sweep_is_reported_and_the_chain_continues(client, corpus, stage):
    """One worker's process dies as it starts its partition of sweep 2 (``sweep``), or its
    rows of sweep 2's Phi (``phi``): the run raises ``WorkerLostError`` naming the worker and
    what it held, nothing of sweep 2 is applied, and running again (on the worker the nanny
    started in its place) gives the chain that never failed."""
    ref, backend, s = _threads_and_one_dask_sweep(client, corpus, "lightmedlda", seed=11)
    before = chain_of(s)
    if stage == "sweep":
        victim = backend.placements[1]
        client.run(arm_worker_exit, 1, workers=[victim.worker])
        held = f"documents {victim.d0}"
    else:   # shard i is drawn on the i-th worker by address; this vocabulary is one shard
        victim = backend.placements[0]
        client.run(arm_worker_exit_drawing_phi, 0, workers=[victim.worker])
        held = "the rows of Phi of words 0"
    with pytest.raises(WorkerLostError, match=f"{victim.worker}.*{held}"):
        s.run(1)
    assert s.n_sweeps == 1 and not s.in_sweep
    after = chain_of(s)
    for k in before:
        # the failed sweep's Phi and key stay drawn, unread: the next sweep draws them again
        # from the stream, which is back where the sweep began
        if k not in ("state/pc_phi", "state/pc_key"):
            np.testing.assert_array_equal(before[k], after[k], err_msg=k)
    _wait_for_workers(client, gone=victim.worker)
    s.run(SWEEPS - 1)
    assert victim.worker not in {p.worker for p in backend.placements}
    assert_same_chain(ref, s)
    s.close()


def _wait_for_workers(client, n=2, gone=None):
    """Until the scheduler lists ``n`` workers, ``gone`` not among them. The nanny's restart
    of a killed worker is Dask's and takes what it takes; the 10-minute bound only turns a
    restart that never comes into a failure with a message, it does not judge speed."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        live = client.nthreads()   # asked now (scheduler_info's cache may list none)
        if len(live) >= n and gone not in live:
            return
        time.sleep(0.2)   # the pace of asking, not a limit
    raise AssertionError(f"the cluster did not get {n} workers back (without {gone}) in 10 "
                         f"minutes: {sorted(client.nthreads())}")


def test_a_worker_lost_between_sweeps_is_replaced_without_error(client, corpus):
    """A worker holding a partition (and the other's replica) dies between two sweeps: the
    next sweep places the documents again on the workers there are, each partition from its
    surviving copy (the topics live on the workers, not in the Session's process), and the
    chain is the one that lost nothing."""
    ref, backend, s = _threads_and_one_dask_sweep(client, corpus, "lda-sparse", seed=5)
    victim = backend.placements[0].worker
    try:
        client.run(exit_now, workers=[victim])
    except Exception:   # the worker's connection closes under the call
        pass
    _wait_for_workers(client, gone=victim)
    s.run(SWEEPS - 1)
    assert victim not in {p.worker for p in backend.placements}
    assert_same_chain(ref, s)
    s.close()


def test_a_dropped_session_releases_the_workers_memory(client, corpus):
    """Dropping a Dask-backed Session without close() forgets its documents on the workers
    (the backend holds the session weakly; a finalizer releases them)."""
    import gc
    backend = DaskBackend(client, partitions=2)
    s = Session(MODELS["lda-sparse"], corpus, seed=1, backend=backend)
    s.run(1)
    token = backend.token
    del s
    gc.collect()
    assert sum(client.run(_drop, token).values()) == 0
    t = Session(MODELS["lda-sparse"], corpus, seed=1, backend=DaskBackend(client))
    t.run(1)
    # held until dropped: two partitions, each on one worker and its replica on the other
    assert sum(client.run(_drop, t.backend.token).values()) == 4


def test_a_closed_client_is_refused_by_name(corpus):
    """A DaskBackend on a closed client, or whose client was closed before a run (issue
    50): a ValueError saying so, where the first call said only that an event loop was
    closed; the session's chain is where it was."""
    # in-process: ":0", a free port for its dashboard (None would ask for 8787, in use)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    try:
        c = distributed.Client(cluster)
        c.close()
        with pytest.raises(ValueError,
                           match="client is closed: create a new distributed.Client"):
            DaskBackend(c)
        c = distributed.Client(cluster)
        s = Session(MODELS["lda-sparse"], corpus, seed=1, backend=DaskBackend(c))
        c.close()
        with pytest.raises(ValueError, match="client is closed"):
            s.run(1)
        assert s.n_sweeps == 0 and not s.in_sweep
        s.use_backend(None)
        assert s.run(1) == 1
    finally:
        cluster.close()


def test_bad_backends_are_refused_by_name(client, corpus):
    chosen = Session(LDA(K=4), corpus, seed=0).model.sampler   # a collapsed one, by auto
    assert chosen in ("gibbs", "sparse_gibbs")
    with pytest.raises(ValueError, match=f"sampler='{chosen}'"):
        Session(LDA(K=4), corpus, backend=DaskBackend(client))
    with pytest.raises(TypeError, match="client must be a distributed.Client"):
        DaskBackend("tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match="partitions"):
        DaskBackend(client, partitions=0)
    with pytest.raises(TypeError, match="backend must be"):
        Session(MODELS["lda-sparse"], corpus, backend="spark")
    backend = DaskBackend(client)
    first = Session(MODELS["lda-sparse"], corpus, backend=backend)
    with pytest.raises(ValueError, match="another Session"):
        Session(MODELS["lda-sparse"], corpus, backend=backend)
    first.close()


def test_chains_on_the_workers_equal_chains_on_threads(client, corpus):
    """Four chains sent to the cluster's workers come back as the chains run on threads,
    bit for bit; their R-hat table is the same."""
    from topicsup.chains import Chains
    model = MODELS["lightmedlda"]
    here = Chains(model, corpus, n_chains=4, seed=2)
    there = Chains(model, corpus, n_chains=4, seed=2, backend=client)
    assert here.run(8) == there.run(8) == 8
    for a, b in zip(here.sessions, there.sessions):
        assert_same_chain(a, b)
    table = here.diagnostics(engine="topicsup")
    assert table["r_hat"].notna().all()
    pd.testing.assert_frame_equal(table, there.diagnostics(engine="topicsup"))


def test_the_documents_state_stays_on_the_workers(client, corpus):
    """Between reads the Session's process holds no topic: after two sweeps (no log joint)
    its z is still the one it placed, while its counts are the threaded chain's, adopted
    from the workers' sparse count changes (at most two a changed token) and never their
    tokens; the changes went to the replicas. Reading the state fetches the workers'
    topics: the threaded chain, features and weights included (DOLDA's end of sweep read the
    features the workers computed)."""
    model = MODELS["dolda"]
    ref = Session(model, corpus, seed=9, log_joint_every=0)
    ref.run(2)
    backend = DaskBackend(client, partitions=3)
    s = Session(model, corpus, seed=9, backend=backend, log_joint_every=0)
    placed = s.state.counts.z.copy()
    s.run(2)
    raw = s._state.counts   # as held here, without the fetch a read of ``state`` makes
    assert np.array_equal(raw.z, placed)
    assert not np.array_equal(ref.state.counts.z, placed)
    assert np.array_equal(raw.n_wk, ref.state.counts.n_wk)
    assert np.array_equal(raw.n_k, ref.state.counts.n_k)
    traffic = backend.traffic_frame()
    assert (traffic["count_changes"] <= 2 * traffic["tokens_changed"]).all()
    # the replicas take the changed tokens (6 bytes each) or, where more than two thirds
    # changed (the first sweeps), every token's topic (4 bytes)
    assert (traffic["bytes_to_replicas"] > 0).all()
    assert (traffic["bytes_to_replicas"] <= np.minimum(6 * traffic["tokens_changed"],
                                                       4 * traffic["tokens"])).all()
    assert {p.replica for p in backend.placements} == {p.worker for p in backend.placements}
    assert all(p.replica != p.worker for p in backend.placements)
    assert_same_chain(ref, s)
    assert not backend._z_stale
    s.close()


def test_a_partition_whose_every_copy_is_lost_is_named(client, corpus):
    """With every copy of a partition gone (its worker and its replica's, or the one worker
    of a cluster without replicas), the topics since the last read are gone: the error names
    the partition, the workers and what to do, and says nothing was applied."""
    backend = DaskBackend(client, partitions=2)
    s = Session(MODELS["lda-sparse"], corpus, seed=1, backend=backend, log_joint_every=0)
    s.run(1)
    with pytest.raises(WorkerLostError, match=r"every copy of documents 0\.\..* was on "
                       r"workers lost .* and .*load the last checkpoint") as info:
        backend._sources(set())
    assert info.value.topicsup_nothing_applied
    s.close()


def test_a_copy_a_step_ahead_gives_back_the_step_before():
    """A copy that took a sweep the Session did not (it failed elsewhere) exports the topics
    of the step before (its undo), the current step's as they are, and refuses any other;
    a replica takes a sweep's changes only at the step they follow from. In-process: the
    worker side's functions on this process's table."""
    words = np.arange(6, dtype=np.int32)
    z = np.array([0, 1, 2, 0, 1, 2], np.int32)
    part = _Partition(1, 0, 2, words, np.array([0, 3, 6]), z.copy(), np.zeros((2, 0)))
    token = "test-undo"
    try:
        _install(token, 0, 1, part)
        _apply_replica(token, 0, 1, 0, (3, np.array([0, 2], np.int32),
                                        np.array([2, 0], np.uint16)))
        after = np.array([0, 1, 2, 2, 1, 0], np.int32)
        assert np.array_equal(_export(token, 0, 1, 1, 1), after)
        assert np.array_equal(_export(token, 0, 1, 1, 0), z)
        with pytest.raises(PartitionMissing, match="at step 1, not 2"):
            _export(token, 0, 1, 1, 2)
        with pytest.raises(PartitionMissing, match="at step 1, not 0"):
            _apply_replica(token, 0, 1, 0, (0, None, np.zeros(6, np.int32)))
        # every topic of a block from its first token (the reply when most tokens moved)
        _apply_replica(token, 0, 1, 1, (0, None, np.full(3, 2, np.int32)))
        assert np.array_equal(_export(token, 0, 1, 1, 1), after)
        assert np.array_equal(_export(token, 0, 1, 1, 2), np.r_[2, 2, 2, after[3:]])
        with pytest.raises(PartitionMissing, match="placement 2"):
            _export(token, 0, 1, 2, 2)
    finally:
        _drop(token)


@pytest.mark.parametrize("n_workers", [1, 3])
def test_one_and_three_worker_processes_give_the_threaded_chain(corpus, n_workers):
    """On a cluster of 1 worker process (no replica: nowhere else to keep one) and of 3 (a
    replica of each partition on the next worker), DOLDA's chain is the threaded one bit
    for bit, the documents' state kept on the workers between reads."""
    import dask
    model = MODELS["dolda"]
    ref = Session(model, corpus, seed=4)
    ref.run(SWEEPS)
    with dask.config.set({"distributed.comm.timeouts.connect": "600s",
                          "distributed.comm.timeouts.tcp": "600s"}):
        # ":0", a free port for its dashboard (None would ask for 8787, in use)
        cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                           processes=True, memory_limit=0,
                                           dashboard_address=":0", silence_logs=50)
        c = distributed.Client(cluster)
        try:
            backend = DaskBackend(c)
            s = Session(model, corpus, seed=4, backend=backend)
            s.run(SWEEPS)
            workers = sorted(c.nthreads())
            assert [p.worker for p in backend.placements] == workers
            want = [None] if n_workers == 1 else workers[1:] + workers[:1]
            assert [p.replica for p in backend.placements] == want
            assert_same_chain(ref, s)
            s.close()
        finally:
            c.close()
            cluster.close()
