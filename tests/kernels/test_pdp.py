"""The PDP topic model's samplers against its exact posterior over (z, r) by enumeration
(docs/math.md sec. 11; protocol of testing.exact: independent chains started from the exact
target, chi-square at level 1e-3 on their final states). Proven here:

* the joint the kernels use (``kernels.pdp.log_joint``) is the harness's, written apart;
* the exact Gibbs step over (topic, table indicator), with its exact removal move, leaves
  p(z, r | W) invariant; so do AliasPDP's Metropolis-Hastings steps with frozen tables (its
  ratio and its mixture of sparse and stale parts are right);
* AliasPDP with the paper's rebuilt stale tables is NOT invariant (the AliasLDA finding, here
  for the PDP): the bias is detected and its size reported;
* mutants fail: the printed eq. 8 (the root factor over the topic's own tables), a removal
  that lets a needed table head leave, and the real kernel run with a wrong b or a.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicsup import PDPLDA
from topicsup.kernels import pdp, stirling
from topicsup.testing import tables as T
from topicsup.testing.exact import assert_matches_target, goodness_of_fit, tiny_corpus

DOCS = [[0, 1, 0], [1, 0]]          # repeated words: tables with several customers
PARAMS = dict(K=2, alpha=(0.3, 0.7), discount=0.3, concentration=0.8, beta=0.4)
N_CHAINS = 20_000
N_MUTANT = 2_000


@pytest.fixture(scope="module")
def problem():
    c = tiny_corpus(DOCS)
    Z, R = T.pdp_states(c, PARAMS["K"])
    lj = np.array([T.pdp_log_joint(c, PARAMS["K"], PARAMS["alpha"], PARAMS["discount"],
                                   PARAMS["concentration"], PARAMS["beta"], z, r)
                   for z, r in zip(Z, R)])
    return c, Z, R, lj


def _final(model, problem, n, **kw):
    c, Z, R, lj = problem
    return T.sample_final_table_states(model, c, Z, R, T.target(lj), n_chains=n, n_sweeps=3,
                                       seed=4, **kw)


def test_kernel_log_joint_is_the_enumerated_joint(problem):
    """Every one of the 256 states: the kernel's log p(W, z, r) equals the harness's."""
    c, Z, R, lj = problem
    m = PDPLDA(**PARAMS, sampler="gibbs")
    bound = m.bind(c)
    state = m.allocate_state(bound)
    for z, r, want in zip(Z, R, lj):
        state.counts.z[:] = z
        state.tables.r[:] = r
        m.refresh_state(state, bound)
        assert m.log_joint(state, bound) == pytest.approx(want, rel=1e-12, abs=1e-10)


def test_exact_gibbs_leaves_the_posterior_invariant(problem):
    assert_matches_target(_final(PDPLDA(**PARAMS, sampler="gibbs"), problem, N_CHAINS),
                          T.target(problem[3]))


@pytest.mark.parametrize("mh_steps,scale", [(1, 1.0), (2, 1.0), (2, 1e3), (2, 1e-3)],
                         ids=["1-step", "2-steps", "stale-part-alone", "document-part-alone"])
def test_alias_pdp_with_frozen_tables_is_exact(problem, mh_steps, scale):
    """Tables fixed and unrelated to the chain: every proposal is independent of the state,
    so only a wrong ratio or a wrong proposal mass could fail (one MH step alone, and two: the
    second starts from the first's outcome and its proposal mass). Each part of the proposal
    also almost alone: the stale masses scaled by 1e3 (nearly every proposal the table's) and
    by 1e-3 (nearly every one the exact document part's)."""
    m = PDPLDA(**PARAMS, sampler="alias", mh_steps=mh_steps)
    assert_matches_target(_final(m, problem, N_CHAINS // 2,
                                 prepare=T.frozen_tables(scale=scale)), T.target(problem[3]))


def test_alias_pdp_with_rebuilt_stale_tables_is_biased(problem):
    """Stale tables, rebuilt every sweep and when their draws are used up, from counts that
    hold the token being moved, move mass away from the posterior on a tiny corpus: detected
    at p < 1e-6 with 50,000 chains (80,000: total variation 0.036 against 0.0195 for an exact
    sampler, p ~ 1e-41; the paper's refresh, after 2K draws only: 0.025, p ~ 4e-6). Before a
    word's table gave joining a table of a topic where the word had none a positive mass,
    both were further off (0.070 and 0.054 against 0.039 with 20,000 chains): a token could
    be held in such a state until the next build."""
    gof = goodness_of_fit(_final(PDPLDA(**PARAMS, sampler="alias"), problem, 50_000),
                          T.target(problem[3]))
    assert gof.pvalue < 1e-6, gof


@pytest.mark.parametrize("mutation", [None, "printed_root", "inexact_removal"])
def test_mutants_of_the_conditional_fail(problem, mutation):
    """The plain-Python reference passes (control); each mutation fails at p < 1e-6."""
    model = T.ReferenceSweeps(PDPLDA(**PARAMS, sampler="gibbs"), mutation)
    gof = goodness_of_fit(_final(model, problem, N_MUTANT), T.target(problem[3]))
    if mutation is None:
        assert gof.pvalue > 1e-3, gof
    else:
        assert gof.pvalue < 1e-6, gof


@pytest.mark.parametrize("sampler", ["gibbs", "alias"])
@pytest.mark.parametrize("wrong", [dict(concentration=1.6), dict(discount=0.45)])
def test_the_kernel_with_a_wrong_parameter_fails(problem, wrong, sampler):
    """Teeth for both kernels: run with a wrong b or a (the alias one with the frozen tables
    it passes with), each fails."""
    kw = dict(prepare=T.frozen_tables()) if sampler == "alias" else {}
    m = T.Perturbed(PDPLDA(**PARAMS, sampler=sampler), **wrong)
    gof = goodness_of_fit(_final(m, problem, N_MUTANT, **kw), T.target(problem[3]))
    assert gof.pvalue < 1e-6, gof


def test_a_word_with_many_tokens_grows_the_stirling_table():
    """One word 600 times in one topic: the sweep meets (m, s) beyond the shared table and
    grows it inside the kernel; the chain's numbers are those of a table built that large."""
    from topicsup.kernels.rng import seed_state
    c = tiny_corpus([[0] * 300, [0] * 300])
    m = PDPLDA(K=2, discount=0.5, concentration=1.0, sampler="gibbs")
    a = 0.5
    stirling._SHARED.pop(a, None)
    small = stirling.shared(a)
    s1 = m.init_state(m.bind(c), seed_state(1))
    for _ in range(3):
        m.sweep_block(s1, m.bind(c), seed_state(2), 0, 2, np.zeros(m.info_size))
    assert stirling.shared(a).join.shape[0] > small.join.shape[0] > 0
    stirling._SHARED[a] = stirling.table(a, rows=1024, cols=1024)
    s2 = m.init_state(m.bind(c), seed_state(1))
    for _ in range(3):
        m.sweep_block(s2, m.bind(c), seed_state(2), 0, 2, np.zeros(m.info_size))
    np.testing.assert_array_equal(s1.counts.z, s2.counts.z)
    np.testing.assert_array_equal(s1.tables.r, s2.tables.r)
    assert np.isfinite(m.log_joint(s1, m.bind(c)))
    assert pdp.KINDS == ("alias",)


def test_alias_pdp_tables_give_every_outcome_mass(problem):
    """A word's stale table gives every (topic, r) positive mass, joining a table of a topic
    where the word has none included: the proposal mass of a token's current state may be
    its table's alone, and a state of zero proposal mass could not be left until the table
    is rebuilt. Checked on the tables after sweeps with the paper's refresh."""
    from topicsup import Session
    s = Session(PDPLDA(**PARAMS, sampler="alias", refresh="draws"), problem[0], seed=1)
    s.run(4)
    t = s.state.sampler.tables
    assert (s.state.counts.n_wk == 0).any()   # some (word, topic) without customers
    built = t.used < t.supply
    assert built.any() and (t.q[built] > 0).all()


def _bits(topics, K):
    """A K-topic bitmap (int64 words) with ``topics`` set, built without the kernels' code."""
    words = []
    for h in range((K + 63) // 64):
        v = sum(1 << (k - 64 * h) for k in topics if 64 * h <= k < 64 * h + 64)
        words.append(v - (1 << 64) if v >= 1 << 63 else v)
    return np.array(words, np.int64)


def test_alias_pdp_sparse_part_equals_the_sum_over_the_document_topics():
    """The enumeration tests run at K = 2, where a bitmap is one word. Here, at K = 130 (three
    words, the sign bit and both word boundaries in use) on random masses: the sparse part
    from the bitmaps' AND and the running sum equals n_dt f(t, r) summed over every document
    topic as eq. 7-8 write it (join 0 and open 1 where the word has no table), outcome by
    outcome in the cumulative masses, and a draw in B lands on each topic where the word has
    no table by its share. A topic index off by a bitmap word, a shared topic's term left in
    B, or a wrong share fails."""
    rng = np.random.default_rng(3)
    K = 130
    doc = np.array(sorted({0, 5, 62, 63, 64, 65, 100, 127, 128, 129}
                          | set(rng.choice(K, 20, replace=False))))
    word = np.array(sorted({63, 64, 128, 7} | set(rng.choice(doc, 6, replace=False))))
    ndk = np.zeros(K, np.int32)
    ndk[doc] = rng.integers(1, 9, len(doc))
    inv, opening = rng.uniform(0.01, 1, K), rng.uniform(0.01, 1, K)
    lmw = np.tile([0.0, 1.0], K)
    lmw[2 * word] = rng.uniform(0.1, 2, len(word))
    lmw[2 * word + 1] = rng.uniform(0.1, 2, len(word))
    root = 0.3
    S = float((ndk[doc] * opening[doc]).sum())
    ix, p_dw = np.zeros(K, np.int32), np.zeros(2 * K)
    A, B, n_ix = pdp.sparse_part(_bits(doc, K), _bits(word, K), ndk, inv, opening, lmw, root,
                                 S, len(doc), ix, p_dw)
    shared = np.intersect1d(doc, word)
    others = np.setdiff1d(doc, word)
    join = ndk * inv * lmw[0::2]                   # eq. 7, r = 0
    open_ = ndk * opening * lmw[1::2] * root       # eq. 8, r = 1
    assert n_ix == len(shared) and list(ix[:n_ix]) == list(shared)
    np.testing.assert_allclose(np.diff(p_dw[:2 * n_ix], prepend=0.0),
                               np.column_stack([join[shared], open_[shared]]).ravel(),
                               rtol=1e-12)
    np.testing.assert_allclose(A, join[shared].sum() + open_[shared].sum(), rtol=1e-12)
    np.testing.assert_allclose(B, open_[others].sum(), rtol=1e-12)
    assert join[others].sum() == 0.0
    # a draw v (B's scale without root) in each unshared topic's interval lands on it
    cum = np.cumsum(ndk[others] * opening[others])
    lows = np.concatenate([[0.0], cum[:-1]])
    dbits, hw = _bits(doc, K), _bits(word, K)
    for k, lo, hi in zip(others, lows, cum):
        assert pdp._unshared(dbits, hw, ndk, opening, 0.5 * (lo + hi)) == k
    assert pdp._unshared(dbits, hw, ndk, opening, cum[-1] * 1.5) == others[-1]
