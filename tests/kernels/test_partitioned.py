"""The partitioned sampler (``kernels.partitioned``: AD-LDA on a P x P grid, approximate for
P > 1) against what it promises.

Proven here:

* with ``partitions=1`` both kernels (sparse buckets, dense conditional) are exact: 20,000
  chains started from the exact posterior p(Z | W) and run three sweeps of the model's own
  ``sweep_block`` end in it (chi-square over the enumerated assignments, p > 1e-3), with a
  symmetric and an asymmetric alpha;
* with 2 and 3 partitions, after every sweep the counts are those rebuilt from z and each
  word's topic list is the nonzero pattern of its n_kw row;
* mutants of the kernel's own source, each one edit, fail: a merge that forgets the groups'
  changes of n_k fails the consistency check, a perturbed conditional (sparse: the smoothing
  bucket dropped; dense: beta doubled in the word factor) fails the enumeration at P = 1;
* the chain is bit-identical on 1 and 2 threads (fresh processes, ``NUMBA_NUM_THREADS``),
  the same with the ``threads`` setting in one process, the same for the same seed and
  block size, and a checkpoint taken part-way through a sweep continues it bit for bit;
* it is labelled an approximation (``exact is False``) at P > 1, built through
  ``LDA(sampler="partitioned", partitions=2)``, and exact at P = 1; refused by a supervised
  model.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from topicsup.kernels import partitioned, sparse_gibbs
from topicsup.kernels.counts import Dirichlet, rebuild_counts
from topicsup.kernels.info import CHANGED, TOKENS
from topicsup.kernels.rng import next_u64, seed_state
from topicsup.models import LDA, SupervisedLDA
from topicsup.samplers import REGISTRY
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.testing.exact import (enumerate_assignments, goodness_of_fit,
                                    lda_log_joint_states, normalize_log, sample_final_states,
                                    tiny_corpus)

N_CHAINS = 20_000

CASES = {
    # 3 documents, 8 tokens, K = 2: 256 states
    "K2": ([[0, 1], [1, 2, 2], [0, 2, 1]], None, 2, 0.3, 0.2),
    # 2 documents, 6 tokens, K = 3: 729 states, asymmetric alpha; word lists of capacity 2 < K
    "K3-asymmetric": ([[0, 1, 1], [2, 0, 2]], None, 3, (0.2, 0.5, 1.0), 0.3),
}


def _target(case, **settings):
    docs, n_words, K, alpha, beta = CASES[case]
    corpus = tiny_corpus(docs, n_words)
    Z = enumerate_assignments(corpus.n_tokens, K)
    # one thread: these runs are thousands of tiny blocks, where launching threads dominates
    model = LDA(K=K, alpha=alpha, beta=beta, sampler="partitioned", threads=1, **settings)
    return corpus, model, normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z))


@pytest.mark.parametrize("kernel", ["sparse", "dense"])
@pytest.mark.parametrize("case", list(CASES))
def test_one_partition_leaves_the_exact_posterior_invariant(case, kernel):
    """P = 1: one cell, n_k never stale; final states of 20k chains follow p(Z | W)."""
    corpus, model, p = _target(case, partitions=1, kernel=kernel)
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue > 1e-3, gof


# ---------------------------------------------------------------------- mutants of the kernel
# Each mutant is a kernel module's own source with one edit, compiled apart (no cache): the
# edit must occur exactly once, so a mutant cannot silently be the kernel itself. The sparse
# cell is ``sparse_gibbs.sweep_documents``: its mutant is that module edited, and the
# partitioned module compiled beside it calls the edited function. The unedited source
# compiled the same way is the control.
MUTATIONS = {
    "merge-forgotten": (partitioned, "tot += local[g, k] - base[k]", "tot += 0"),
    "smoothing-bucket-dropped": (sparse_gibbs, "u = uniform(rng) * (q + r + s)",
                                 "u = uniform(rng) * (q + r)"),
    "dense-beta-doubled": (partitioned,
                           "conditional_weight(ndk[k], alpha[k], nwk[k], beta, inv[k])",
                           "conditional_weight(ndk[k], alpha[k], nwk[k], 2 * beta, inv[k])"),
}
_MUTANTS: dict[str | None, types.ModuleType] = {}


def _compiled(source_module, edit, name):
    """``source_module``'s source with ``edit`` (old, new) applied, compiled apart."""
    src = inspect.getsource(source_module)
    if edit is not None:
        old, new = edit
        assert src.count(old) == 1, f"the mutation {name!r} no longer matches the kernel"
        src = src.replace(old, new)
    module = types.ModuleType(f"{source_module.__name__}_mutant")
    module.__package__ = "topicsup.kernels"
    # serial (prange runs as range): the chain does not depend on the threads (tested
    # below), and a parallel compile would take most of this file's time
    src = src.replace("cache=True", "cache=False").replace("parallel=True", "parallel=False")
    exec(compile(src, f"<{name}>", "exec"), module.__dict__)
    return module


def _mutant_kernel(mutation):
    if mutation in _MUTANTS:
        return _MUTANTS[mutation]
    target, edit = None, None
    if mutation is not None:
        target, *edit = MUTATIONS[mutation]
    module = _compiled(partitioned, edit if target is partitioned else None, str(mutation))
    if target is sparse_gibbs:
        # numba resolves a global when the caller first compiles: this binding is the one
        # ``_group_step`` calls
        module.sweep_documents = _compiled(sparse_gibbs, edit, str(mutation)).sweep_documents
    _MUTANTS[mutation] = module
    return module


class _WithKernel:
    """Test-only: ``model`` (sampler "partitioned") whose sweeps run ``kernel``'s sweep, as
    ``samplers.partitioned.Partitioned.sweep`` runs the real one; ``sweeps`` counts them, so
    a test can show the edited kernel is the one that ran."""

    def __init__(self, model, kernel):
        self._model, self._kernel = model, kernel
        self.sweeps = 0

    def __getattr__(self, name):
        return getattr(self._model, name)

    def resolve(self, problem):
        # the sampler is named, nothing to choose: itself. Delegated, the model would answer
        # with itself, the unwrapped model, and a harness running that answer (as
        # ``sample_final_states`` did) sweeps with the real kernel: every mutant "passed"
        return self, None

    def sweep_block(self, state, problem, rng, d_start, d_end, info):
        self.sweeps += 1
        state.topics_moved()
        own, sampler = state.sampler, self._model.topic_sampler
        if sampler.sparse and own.stale[0]:
            sparse_gibbs.build_word_lists(state.counts.n_wk, own.lists)
            own.stale[0] = False
        for j in range(4):
            own.key[j] = next_u64(rng)
        self._kernel.partitioned_sweep(problem.tokens, state.counts,
                                       Dirichlet(problem.alpha, problem.beta), own.lists,
                                       own.grid, sampler.sparse, own.key, d_start, d_end, info)


@pytest.mark.parametrize("mutation, kernel", [(None, "sparse"),
                                              ("smoothing-bucket-dropped", "sparse"),
                                              ("dense-beta-doubled", "dense")])
def test_mutants_with_a_wrong_conditional_fail_the_enumeration(mutation, kernel):
    """The check of ``test_one_partition_leaves_the_exact_posterior_invariant`` ("K2", the
    same seed) through a kernel compiled from its edited source: the unedited source passes
    (p > 1e-3), each mutant is rejected at p < 1e-6."""
    corpus, model, p = _target("K2", partitions=1, kernel=kernel)
    runner = _WithKernel(model, _mutant_kernel(mutation))
    idx = sample_final_states(runner, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    # every sweep went through the compiled source, not the real kernel
    assert runner.sweeps == 3 * N_CHAINS, runner.sweeps
    gof = goodness_of_fit(idx, p)
    if mutation is None:
        assert gof.pvalue > 1e-3, gof
    else:
        assert gof.pvalue < 1e-6, f"the mutant {mutation!r} went undetected: {gof}"


# ---------------------------------------------------------------------- state and chains
def _corpus():
    return make_synthetic(n_docs=120, n_topics=4, doc_length=40, seed=5).corpus


def _inconsistencies(model, corpus, sweeps=3, kernel_module=None):
    """Run ``sweeps`` sweeps in blocks of 700 tokens; after each, the names of the counts or
    word lists that differ from those rebuilt from z."""
    problem = model.bind(corpus)
    rng = seed_state(2)
    state = model.init_state(problem, rng)
    runner = model if kernel_module is None else _WithKernel(model, kernel_module)
    info = np.zeros(model.info_size)
    blocks = corpus.blocks(700)
    bad: list[str] = []
    for _ in range(sweeps):
        for a, b in zip(blocks[:-1], blocks[1:]):
            runner.sweep_block(state, problem, rng, int(a), int(b), info)
        st = state.counts
        n_dk, n_wk, n_k = (np.zeros_like(a) for a in (st.n_dk, st.n_wk, st.n_k))
        rebuild_counts(corpus.words, corpus.doc_ptr, st.z, n_dk, n_wk, n_k)
        for name, mine, fresh in (("n_dk", st.n_dk, n_dk), ("n_wk", st.n_wk, n_wk),
                                  ("n_k", st.n_k, n_k)):
            if not np.array_equal(mine, fresh):
                bad.append(name)
        if model.topic_sampler.sparse:
            lists = state.sampler.lists
            capacity = np.diff(lists.ptr)
            if not (lists.length <= capacity).all():
                bad.append("capacity")
            for w in range(corpus.n_words):
                held = lists.topics[lists.ptr[w]:lists.ptr[w] + lists.length[w]]
                if not np.array_equal(held, np.flatnonzero(n_wk[w])):
                    bad.append(f"list of word {w}")
                    break
    return bad


@pytest.mark.parametrize("kernel", ["sparse", "dense"])
@pytest.mark.parametrize("P", [2, 3])
def test_counts_and_word_lists_agree_with_z_after_sweeps(P, kernel):
    """K = 30 (word lists at their capacity), asymmetric alpha, blocks of 700 tokens."""
    K = 30
    model = LDA(K=K, alpha=tuple(np.linspace(0.05, 0.5, K)), beta=0.02,
                sampler="partitioned", partitions=P, kernel=kernel)
    assert _inconsistencies(model, _corpus()) == []


def test_a_merge_that_forgets_the_groups_changes_fails_the_consistency_check():
    model = LDA(K=8, alpha=0.2, beta=0.02, sampler="partitioned", partitions=2)
    assert _inconsistencies(model, _corpus(), sweeps=1,
                            kernel_module=_mutant_kernel(None)) == []
    assert "n_k" in _inconsistencies(model, _corpus(), sweeps=1,
                                     kernel_module=_mutant_kernel("merge-forgotten"))


def test_the_grid():
    """Word groups contiguous, ordered, about equal in tokens; each document's tokens
    reordered stably by word group; document groups of a block contiguous and covering it."""
    c = _corpus()
    model = LDA(K=4, sampler="partitioned", partitions=3)
    problem = model.bind(c)
    grid = model.allocate_state(problem).sampler.grid
    g = grid.word_group
    assert (np.diff(g) >= 0).all() and g[0] == 0 and g[-1] == 2
    per_group = np.bincount(g[c.words], minlength=3)
    assert per_group.min() > 0.25 * c.n_tokens, per_group
    for d in range(c.n_docs):
        p0, p1 = c.doc_ptr[d], c.doc_ptr[d + 1]
        mine = grid.order[p0:p1]
        np.testing.assert_array_equal(np.sort(mine), np.arange(p0, p1))
        np.testing.assert_array_equal(mine, p0 + np.argsort(g[c.words[p0:p1]], kind="stable"))
        np.testing.assert_array_equal(grid.cell_ptr[d], np.concatenate(
            [[0], np.cumsum(np.bincount(g[c.words[p0:p1]], minlength=3))]))
    out = np.empty(4, np.int64)
    partitioned.document_groups(c.doc_ptr, 10, 70, out)
    assert out[0] == 10 and out[-1] == 70 and (np.diff(out) >= 0).all()
    sizes = np.diff(c.doc_ptr[out])
    assert sizes.max() - sizes.min() <= 2 * np.diff(c.doc_ptr).max(), sizes


def test_info_record_counts_tokens_and_changes():
    corpus, model, _ = _target("K2", partitions=2)
    rng = seed_state(0)
    problem = model.bind(corpus)
    state = model.init_state(problem, rng)
    info = np.zeros(model.info_size)
    before = state.z.copy()
    model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
    assert info[TOKENS] == corpus.n_tokens
    assert info[CHANGED] == (before != state.z).sum()


def _digest(s):
    h = hashlib.sha256()
    for k, a in sorted(s.state.arrays().items()):
        h.update(k.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


_CHAIN = """
import json, hashlib, sys
import numba, numpy as np
from topicsup.models import LDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
corpus = make_synthetic(n_docs=120, n_topics=4, doc_length=40, seed=5).corpus
out = {"threads": numba.get_num_threads()}
for kernel in ("sparse", "dense"):
    s = Session(LDA(K=8, sampler="partitioned", partitions=3, kernel=kernel), corpus, seed=7,
                block_tokens=1500)
    s.run(4)
    h = hashlib.sha256()
    for k, a in sorted(s.state.arrays().items()):
        h.update(k.encode()); h.update(np.ascontiguousarray(a).tobytes())
    out[kernel] = h.hexdigest()
print(json.dumps(out))
"""


def test_same_chain_bit_for_bit_on_1_and_2_threads():
    """Each thread count in a fresh process (numba's pool size is fixed at its start)."""
    runs = {}
    for t in (1, 2):
        env = dict(os.environ, NUMBA_NUM_THREADS=str(t))
        res = subprocess.run([sys.executable, "-c", _CHAIN], env=env, capture_output=True,
                             text=True)
        assert res.returncode == 0, res.stderr[-3000:]
        runs[t] = json.loads(res.stdout.strip().splitlines()[-1])
    assert [runs[t]["threads"] for t in (1, 2)] == [1, 2]
    for kernel in ("sparse", "dense"):
        assert runs[1][kernel] == runs[2][kernel], kernel


def test_the_threads_setting_changes_nothing_of_the_chain():
    c = _corpus()
    digests = set()
    for threads in (1, 2, 0):
        s = Session(LDA(K=8, sampler="partitioned", partitions=2, threads=threads), c, seed=3,
                    block_tokens=1000)
        s.run(3)
        digests.add(_digest(s))
    assert len(digests) == 1


def test_same_seed_same_chain_and_across_a_checkpoint(tmp_path):
    """Two sessions of one seed and block size draw the same chain; another seed differs;
    a checkpoint taken part-way through a sweep loads and continues it bit for bit."""
    from ..test_session import assert_resumes_exactly
    c = _corpus()
    model = LDA(K=7, alpha=0.2, beta=0.05, sampler="partitioned", partitions=2)
    runs = [Session(model, c, seed=3, block_tokens=300) for _ in range(2)]
    for s in runs:
        s.run(4)
    np.testing.assert_array_equal(runs[0].state.z, runs[1].state.z)
    np.testing.assert_array_equal(runs[0].rng, runs[1].rng)
    other = Session(model, c, seed=4, block_tokens=300)
    other.run(4)
    assert (other.state.z != runs[0].state.z).any()
    assert_resumes_exactly(model, c, tmp_path / "partitioned.npz", block_tokens=500, before=2)


def test_labelled_as_an_approximation_and_lda_only():
    """Approximate at P > 1 (the class, what sampler="auto" reads, and the instance), exact
    at P = 1 in every label (the status line, the summary)."""
    cls = REGISTRY.get("partitioned")
    assert cls.exact is False
    assert REGISTRY.get("sparse_gibbs").exact is True and REGISTRY.get("gibbs").exact is True
    model = LDA(sampler="partitioned", partitions=2)
    assert model.topic_sampler.partitions == 2 and not model.topic_sampler.exact
    # one partition is the exact sweep the enumeration above tests: labelled so (issue 50)
    one = LDA(K=3, sampler="partitioned", partitions=1)
    assert one.topic_sampler.exact
    from topicsup.synthetic import make_synthetic
    from topicsup.widgets.dashboard import sampler_html
    corpus = make_synthetic(n_docs=20, n_topics=3, doc_length=10, seed=1).corpus
    s1, s2 = Session(one, corpus, seed=0), Session(LDA(K=3, sampler="partitioned"), corpus)
    assert "approximate" not in sampler_html(s1) and "approximate" in sampler_html(s2)
    assert s1.summary()["sampler_exact"] and not s2.summary()["sampler_exact"]
    with pytest.raises(ValueError, match="got 'partitioned'"):
        SupervisedLDA(K=3, sampler="partitioned")
    with pytest.raises(ValueError, match="partitions"):
        LDA(sampler="partitioned", partitions=0)
    with pytest.raises(ValueError, match="kernel"):
        LDA(sampler="partitioned", kernel="alias")
