"""The sparse collapsed Gibbs kernel (SparseLDA's buckets, ``kernels.sparse_gibbs``) against
the exact LDA posterior p(Z | W) by enumeration, as ``test_gibbs.py`` checks the dense one.

Proven here:

* 20,000 chains started from the exact target and run three sweeps of the model's own
  ``sweep_block`` end in the target (chi-square over the enumerated assignments, p > 1e-3),
  symmetric and asymmetric alpha, a word with fewer tokens than topics and one with none;
  from uniform starts they reach it (mixing);
* mutants of the kernel's own source, each one edit, fail the same check (p < 1e-6): the
  smoothing bucket dropped from the total, a stale coefficient (not updated after the token
  leaves its topic), a stale document bucket (not updated after it joins one), and an
  off-by-one in the word lists' update (a topic leaves a word's list with one token left);
* after sweeps the counts are those of z and each word's list is the nonzero pattern of its
  n_kw row, ascending;
* the same seed gives the same chain, whatever blocks the Session cuts the sweeps into, and a
  checkpoint taken part-way through a sweep continues it bit for bit;
* through ``LDA(sampler="sparse_gibbs")`` the log joint after a few sweeps has the
  distribution of the dense Gibbs chain's (two-sample Kolmogorov-Smirnov over independent
  seeds). Both are the same systematic-scan kernel (each token from its exact conditional,
  in the same order) from the same start distribution, so the two distributions are equal
  at every sweep, not only in the limit: the test is exact at its nominal level.
"""

from __future__ import annotations

import inspect
import types

import numpy as np
import pytest
from scipy import stats

from topicsup.kernels import sparse_gibbs
from topicsup.kernels.counts import Dirichlet, rebuild_counts
from topicsup.kernels.info import CHANGED, TOKENS
from topicsup.kernels.rng import seed_state
from topicsup.models import LDA, SupervisedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, normalize_log,
                                    sample_final_states, tiny_corpus)

N_CHAINS = 20_000

CASES = {
    # 3 documents, 8 tokens, K = 2: 256 states
    "K2": ([[0, 1], [1, 2, 2], [0, 2, 1]], None, 2, 0.3, 0.2),
    # 2 documents, 6 tokens, K = 3: 729 states, asymmetric alpha; word lists of capacity 2 < K
    "K3-asymmetric": ([[0, 1, 1], [2, 0, 2]], None, 3, (0.2, 0.5, 1.0), 0.3),
    # 2 documents, 5 tokens, K = 3: three words of one token (capacity 1), a word of none
    "K3-rare-words": ([[0, 1, 2], [1, 3]], 5, 3, 0.4, 0.1),
}


def _target(case):
    docs, n_words, K, alpha, beta = CASES[case]
    corpus = tiny_corpus(docs, n_words)
    Z = enumerate_assignments(corpus.n_tokens, K)
    return corpus, LDA(K=K, alpha=alpha, beta=beta, sampler="sparse_gibbs"), \
        normalize_log(lda_log_joint_states(corpus, K, alpha, beta, Z))


@pytest.mark.parametrize("case", list(CASES))
def test_sparse_gibbs_leaves_exact_posterior_invariant(case):
    """Final states of 20k chains follow p(Z | W): chi-square p > 1e-3."""
    corpus, model, p = _target(case)
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=3, seed=11)
    assert_matches_target(idx, p)


def test_sparse_gibbs_converges_from_a_random_start():
    """From uniform random starts, 20 sweeps reach the target (mixing, not just invariance)."""
    corpus, model, p = _target("K2")
    uniform_start = np.full_like(p, 1.0 / len(p))
    idx = sample_final_states(model, corpus, uniform_start, n_chains=N_CHAINS, n_sweeps=20,
                              seed=12)
    assert_matches_target(idx, p)


# ---------------------------------------------------------------------- mutants of the kernel
# Each mutant is the kernel module's own source with one edit, compiled apart (no cache): the
# edit must occur exactly once, so a mutant cannot silently be the kernel itself.
MUTATIONS = {
    "smoothing-bucket-dropped": ("u = uniform(rng) * (q + r + s)", "u = uniform(rng) * (q + r)"),
    "stale-coefficient": ("            coef[old] = (alpha[old] + ndk[old]) * inv[old]\n", ""),
    "stale-document-bucket": ("            r += ndk[new] * beta * inv[new]\n", ""),
    "word-list-off-by-one": ("if nwk[old] == 0:", "if nwk[old] <= 1:"),
}


def _mutant_kernel(mutation):
    src = inspect.getsource(sparse_gibbs)
    if mutation is not None:
        old, new = MUTATIONS[mutation]
        assert src.count(old) == 1, f"the mutation {mutation!r} no longer matches the kernel"
        src = src.replace(old, new)
    module = types.ModuleType("topicsup.kernels._sparse_gibbs_mutant")
    module.__package__ = "topicsup.kernels"
    exec(compile(src.replace("cache=True", "cache=False"), f"<{mutation}>", "exec"),
         module.__dict__)
    return module


class _WithKernel:
    """Test-only: ``model`` (sampler "sparse_gibbs") whose sweeps run ``kernel``'s sweep."""

    def __init__(self, model, kernel):
        self._model, self._kernel = model, kernel

    def __getattr__(self, name):
        return getattr(self._model, name)

    def sweep_block(self, state, problem, rng, d_start, d_end, info):
        own = state.sampler
        if own.stale[0]:
            sparse_gibbs.build_word_lists(state.counts.n_wk, own.lists)
            own.stale[0] = False
        self._kernel.sparse_gibbs_sweep(problem.tokens, state.counts,
                                        Dirichlet(problem.alpha, problem.beta), own.lists, rng,
                                        d_start, d_end, info)


@pytest.mark.parametrize("mutation", [None, *MUTATIONS])
def test_mutants_of_the_kernel_fail(mutation):
    """The check of ``test_sparse_gibbs_leaves_exact_posterior_invariant`` ("K2": 20,000
    chains, three sweeps, the same seed): the unedited source compiled the same way passes
    (p > 1e-3), each mutant is rejected at p < 1e-6 (measured: p ~ 1e-60 for the word lists'
    off-by-one, the weakest; 0 in double precision for the others)."""
    corpus, model, p = _target("K2")
    idx = sample_final_states(_WithKernel(model, _mutant_kernel(mutation)), corpus, p,
                              n_chains=N_CHAINS, n_sweeps=3, seed=11)
    gof = goodness_of_fit(idx, p)
    if mutation is None:
        assert gof.pvalue > 1e-3, gof
    else:
        assert gof.pvalue < 1e-6, f"the mutant {mutation!r} went undetected: {gof}"


# ---------------------------------------------------------------------- state and chains
def _corpus():
    return make_synthetic(n_docs=120, n_topics=4, doc_length=40, seed=5).corpus


def test_counts_and_word_lists_agree_with_z_after_sweeps():
    """K = 30 (most words have fewer tokens than topics, so lists run at their capacity),
    asymmetric alpha, small blocks: after each sweep the counts are those rebuilt from z and
    each word's list is its row's nonzero topics in ascending order, within capacity."""
    c = _corpus()
    K = 30
    alpha = tuple(np.linspace(0.05, 0.5, K))
    s = Session(LDA(K=K, alpha=alpha, beta=0.02, sampler="sparse_gibbs"), c, seed=2,
                block_tokens=700)
    lists = s.state.sampler.lists
    capacity = np.diff(lists.ptr)
    assert (capacity == np.minimum(np.bincount(c.words, minlength=c.n_words), K)).all()
    for _ in range(4):
        s.run(1)
        st = s.state.counts
        n_dk, n_wk, n_k = (np.zeros_like(a) for a in (st.n_dk, st.n_wk, st.n_k))
        rebuild_counts(c.words, c.doc_ptr, st.z, n_dk, n_wk, n_k)
        for mine, fresh in ((st.n_dk, n_dk), (st.n_wk, n_wk), (st.n_k, n_k)):
            np.testing.assert_array_equal(mine, fresh)
        assert (lists.length <= capacity).all()
        for w in range(c.n_words):
            held = lists.topics[lists.ptr[w]:lists.ptr[w] + lists.length[w]]
            np.testing.assert_array_equal(held, np.flatnonzero(n_wk[w]), err_msg=f"word {w}")


def test_info_record_counts_tokens_and_changes():
    corpus, model, _ = _target("K2")
    rng = seed_state(0)
    problem = model.bind(corpus)
    state = model.init_state(problem, rng)
    info = np.zeros(model.info_size)
    before = state.z.copy()
    model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
    assert info[TOKENS] == corpus.n_tokens
    assert info[CHANGED] == (before != state.z).sum()


def test_same_seed_same_chain_whatever_the_blocks_and_across_a_checkpoint(tmp_path):
    """Two sessions of one seed draw the same chain; blocks of 300 tokens or one block per
    sweep give it too (nothing floating crosses a document boundary); a checkpoint taken
    part-way through a sweep loads and continues it bit for bit; another seed differs."""
    from ..test_session import assert_resumes_exactly
    c = _corpus()
    model = LDA(K=7, alpha=0.2, beta=0.05, sampler="sparse_gibbs")
    runs = [Session(model, c, seed=3, block_tokens=b) for b in (300, 300, 10**9)]
    for s in runs:
        s.run(4)
    for s in runs[1:]:
        np.testing.assert_array_equal(s.state.z, runs[0].state.z)
        np.testing.assert_array_equal(s.rng, runs[0].rng)
    other = Session(model, c, seed=4)
    other.run(4)
    assert (other.state.z != runs[0].state.z).any()
    assert_resumes_exactly(model, c, tmp_path / "sparse.npz", block_tokens=500, before=2)


def test_supervised_models_refuse_it():
    with pytest.raises(ValueError, match="got 'sparse_gibbs'"):
        SupervisedLDA(K=3, sampler="sparse_gibbs")


def test_log_joint_has_the_dense_gibbs_chains_distribution():
    """150 independent chains of each sampler (distinct seeds), 6 sweeps, K = 8, on a small
    synthetic corpus: the final log joints' two-sample Kolmogorov-Smirnov p > 1e-3. Both are
    the same Markov kernel from the same start distribution, so under a correct kernel the
    two samples are i.i.d. from one distribution."""
    c = make_synthetic(n_docs=40, n_topics=4, doc_length=25, seed=8).corpus
    finals = {}
    for offset, name in enumerate(("gibbs", "sparse_gibbs")):
        model = LDA(K=8, alpha=0.3, beta=0.05, sampler=name)
        out = []
        for seed in range(150):
            s = Session(model, c, seed=1000 * offset + seed)
            s.run(6)
            out.append(float(s.metric("log_joint").iloc[-1]))
        finals[name] = np.array(out)
    res = stats.ks_2samp(finals["gibbs"], finals["sparse_gibbs"])
    assert res.pvalue > 1e-3, res
