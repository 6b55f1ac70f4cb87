"""HDP-LDA's samplers against its exact posterior over (partition z, r) by enumeration
(docs/math.md sec. 12; topics unlabelled, at most K live). Proven here:

* the kernels' joint is the harness's, written apart;
* the exact Gibbs step (join a table, open one, or a new topic; the exact removal move)
  leaves p(z, r | W) invariant, with the truncation binding (K = 3 < 5 tokens) and not
  (K = 5); so do AliasHDP's Metropolis-Hastings steps with frozen per-word tables;
* AliasHDP with its rebuilt stale tables is NOT invariant on a tiny corpus: detected;
* mutants fail: eq. 9 as printed (b1 T_t^2 / ((T_t + 1)(T + b0))), a removal that lets a
  needed table head leave, and the real kernel with a wrong b0 or b1.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicsup import HDPLDA
from topicsup.testing import tables as T
from topicsup.testing.exact import assert_matches_target, goodness_of_fit, tiny_corpus

DOCS = [[0, 1, 0], [1, 1]]
PARAMS = dict(b0=1.5, b1=0.7, beta=0.4)
N_CHAINS = 12_000
N_MUTANT = 2_000


def _problem(K):
    c = tiny_corpus(DOCS)
    Z, R = T.hdp_states(c, K)
    lj = np.array([T.hdp_log_joint(c, PARAMS["b0"], PARAMS["b1"], PARAMS["beta"], z, r)
                   for z, r in zip(Z, R)])
    return K, c, Z, R, lj


@pytest.fixture(scope="module", params=[3, 5], ids=["truncated", "untruncated"])
def problem(request):
    return _problem(request.param)


@pytest.fixture(scope="module")
def truncated():
    """K = 3 live topics at most for 5 tokens: the truncation binds."""
    return _problem(3)


def _final(model, problem, n, **kw):
    K, c, Z, R, lj = problem
    return T.sample_final_table_states(model, c, Z, R, T.target(lj), n_chains=n, n_sweeps=3,
                                       seed=4, unlabelled=True, **kw)


def test_kernel_log_joint_is_the_enumerated_joint(problem):
    K, c, Z, R, lj = problem
    m = HDPLDA(K=K, **PARAMS, sampler="gibbs")
    bound = m.bind(c)
    state = m.allocate_state(bound)
    for z, r, want in zip(Z, R, lj):
        state.counts.z[:] = z
        state.tables.r[:] = r
        m.refresh_state(state, bound)
        assert m.log_joint(state, bound) == pytest.approx(want, rel=1e-12, abs=1e-10)


def test_exact_gibbs_leaves_the_posterior_invariant(problem):
    K = problem[0]
    assert_matches_target(_final(HDPLDA(K=K, **PARAMS, sampler="gibbs"), problem, N_CHAINS),
                          T.target(problem[4]))


@pytest.mark.parametrize("mh_steps,scale", [(1, 1.0), (2, 1.0), (2, 1e3), (2, 1e-3)],
                         ids=["1-step", "2-steps", "stale-part-alone", "document-part-alone"])
def test_alias_hdp_with_frozen_tables_is_exact(problem, mh_steps, scale):
    """The words' stale tables fixed and unrelated to the chain, the document part fresh:
    only a wrong ratio or proposal mass could fail (one MH step, and two). Each part of the
    proposal also almost alone: the stale masses scaled by 1e3 (nearly every proposal the
    table's) and by 1e-3 (nearly every one the exact document part's)."""
    K = problem[0]
    m = HDPLDA(K=K, **PARAMS, sampler="alias", mh_steps=mh_steps)
    assert_matches_target(_final(m, problem, N_CHAINS // 2,
                                 prepare=T.frozen_tables(scale=scale)), T.target(problem[4]))


@pytest.mark.parametrize("refresh,n_chains", [("sweep", 15_000), ("draws", 40_000)])
def test_alias_hdp_with_its_rebuilt_stale_tables_is_biased(refresh, n_chains):
    """A word's table rebuilt from the chain's counts, once a sweep or after K + 1 draws: on
    5 tokens it always holds the other tokens' current topics, and the chain drifts.
    Measured with 40,000 chains, K = 5: total variation 0.044 (per sweep, p ~ 1e-39) and
    0.037 (the paper's, p ~ 1e-11) against 0.025 for an exact sampler; K = 3: 0.041 and
    0.038 against 0.024 (p ~ 1e-33, 1e-12)."""
    problem = _problem(5)
    gof = goodness_of_fit(_final(HDPLDA(K=5, **PARAMS, sampler="alias", refresh=refresh),
                                 problem, n_chains), T.target(problem[4]))
    assert gof.pvalue < 1e-6, gof


@pytest.mark.parametrize("mutation", [None, "printed_eq9", "inexact_removal"])
def test_mutants_of_the_conditional_fail(truncated, mutation):
    model = T.ReferenceSweeps(HDPLDA(K=3, **PARAMS, sampler="gibbs"), mutation)
    gof = goodness_of_fit(_final(model, truncated, N_MUTANT), T.target(truncated[4]))
    if mutation is None:
        assert gof.pvalue > 1e-3, gof
    else:
        assert gof.pvalue < 1e-6, gof


@pytest.mark.parametrize("sampler", ["gibbs", "alias"])
@pytest.mark.parametrize("wrong", [dict(b1=1.0), dict(b0=3.0)])
def test_the_kernel_with_a_wrong_parameter_fails(truncated, wrong, sampler):
    """Teeth for both kernels (the alias one with the frozen table it passes with)."""
    kw = dict(prepare=T.frozen_tables()) if sampler == "alias" else {}
    m = T.Perturbed(HDPLDA(K=3, **PARAMS, sampler=sampler), **wrong)
    gof = goodness_of_fit(_final(m, truncated, N_MUTANT, **kw), T.target(truncated[4]))
    assert gof.pvalue < 1e-6, gof


def test_alias_hdp_tables_give_every_outcome_mass():
    """A word's stale table gives every slot, dead ones too, and the new topic positive mass:
    the proposal mass of a token's current state may be its table's alone, and a state of
    zero proposal mass could not be left until the table is rebuilt (a topic born into a
    slot that was dead at the build). Checked on the tables after sweeps with dead slots."""
    from topicsup import Session
    K, c = 5, _problem(5)[1]
    s = Session(HDPLDA(K=K, **PARAMS, sampler="alias", refresh="draws"), c, seed=1)
    s.run(4)
    t = s.state.sampler.tables
    assert s.state.tables.n_live[0] < K   # dead slots exist
    built = t.used < t.supply
    assert built.any() and (t.q[built] > 0).all()
