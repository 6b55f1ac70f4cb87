"""The partially collapsed sampler against its exact targets (docs/math.md sec. 7).

Proven here, each with a mutant that must fail:

* Phi | Z: every entry phi[w, k] of a draw follows its Beta marginal of Dir(beta + n_.k)
  (KS over 4,000 draws); a draw that ignores the counts is rejected;
* Z | Phi, by enumeration: with Phi held fixed, one pass of each per-token kernel (dense,
  sparse; LDA, the augmented and the marginal hinge supervised terms) leaves
  p(Z | Phi, W) ∝ prod_i phi[w_i, z_i] prod_{d,k} Gamma(n_dk + alpha_k) exp(g) invariant
  (20,000 chains started from it, chi-square at 1e-3); a kernel with alpha x 2.5 fails;
* the whole sweep (Phi drawn, then Z): the chain's marginal on Z leaves the collapsed target
  p(Z | W) invariant; Phi drawn from Dir(beta) without the counts fails. (The supervised
  whole sweeps run in ``tests/kernels/test_supervised.py`` and the loss tests through
  ``TOPIC_KERNEL_VARIANTS``.)
* with one w per task shared by the documents, the label term through DOLDA's K x K matrix
  (appendix B) gives the same exact targets, Z | Phi and whole sweeps; a matrix scaled by 2
  fails;
* (fold-in by the sparse parallel kernel: tests/kernels/test_fold_in.py, beside the
  reference kernel;)
* the same seed gives the same chain bit for bit on 1, 2 and 4 threads, each in a fresh
  process (``NUMBA_NUM_THREADS``), and across block sizes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from topicsup.kernels import partially_collapsed as pc
from topicsup.kernels.rng import seed_state
from topicsup.models import LDA, SupervisedLDA
from topicsup.samplers.partially_collapsed import PartiallyCollapsed
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_given_phi_states,
                                    lda_log_joint_states, loss_log_factor_states,
                                    normalize_log, sample_final_states,
                                    supervised_log_factor_states, tiny_corpus)

from .test_light import _target as _collapsed
from .test_supervised import CASES, MARGINAL_LAM

N_CHAINS = 20_000
K2 = ([[0, 1], [1, 2, 2], [0, 2, 1]], 2, 0.3, 0.2)
K3 = ([[0, 1, 1], [2, 0, 2]], 3, (0.2, 0.5, 1.0), 0.3)
KERNELS = ("dense", "sparse")


# ---------------------------------------------------------------------- Phi | Z
def test_phi_entries_follow_their_beta_marginals():
    """phi[w, k] ~ Beta(beta + n_wk, sum_w (beta + n_wk) - beta - n_wk): KS on 4,000 draws
    for every entry of a 7 x 3 matrix (some counts zero, some large); the mutant ignoring
    the counts fails."""
    rng = np.random.default_rng(3)
    n_wk = rng.integers(0, 6, size=(7, 3)).astype(np.int32)
    n_wk[0, 0], n_wk[1], n_wk[:, 2] = 40, 0, 0   # topic 2 empty: drawn in log space
    beta, draws = 0.3, 4000
    out = np.empty((draws, 7, 3))
    wrong = np.empty_like(out)
    phi = np.empty((7, 3))
    partial = np.empty((1, 3))
    for j in range(draws):
        key = seed_state(9, stream=j)
        pc.draw_phi(n_wk, n_wk.sum(axis=0), beta, key, phi, partial)
        out[j] = phi
        pc.draw_phi(np.zeros_like(n_wk), np.ones(3, np.int32), beta, key, phi, partial)
        wrong[j] = phi
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-12)
    a = beta + n_wk
    b = a.sum(axis=0) - a
    pvalues = [stats.kstest(out[:, w, k], stats.beta(a[w, k], b[w, k]).cdf).pvalue
               for w in range(7) for k in range(3)]
    assert min(pvalues) > 1e-3 / len(pvalues), min(pvalues)
    assert stats.kstest(wrong[:, 0, 0], stats.beta(a[0, 0], b[0, 0]).cdf).pvalue < 1e-6


def test_an_empty_topic_at_a_tiny_beta_is_still_a_distribution():
    """At beta = 1e-6 every Gamma(beta) draw underflows; an empty topic's column (drawn in
    log space) still sums to one and puts its mass on one word or a few."""
    n_wk = np.zeros((50, 2), np.int32)
    n_wk[:, 0] = 1
    phi, partial = np.empty((50, 2)), np.empty((1, 2))
    pc.draw_phi(n_wk, n_wk.sum(axis=0), 1e-6, seed_state(1), phi, partial)
    assert np.isfinite(phi).all()
    np.testing.assert_allclose(phi.sum(axis=0), 1.0, rtol=1e-12)
    assert phi[:, 1].max() > 0.5


# ---------------------------------------------------------------------- Z | Phi
PHI = np.array([[0.5, 0.1, 0.3], [0.2, 0.6, 0.2], [0.3, 0.3, 0.5]])   # (V, K), columns sum 1


@dataclass(frozen=True)
class _FixedPhi(PartiallyCollapsed):
    """Test-only: the sampler with Phi held at ``PHI[:, :K]`` (renormalised), so one sweep is
    the Z | Phi step alone."""

    def draw_phi(self, problem, counts, own):
        phi = PHI[:, :problem.K]
        own.phi[...] = phi / phi.sum(axis=0)


class _ZStep:
    """Test-only: ``model`` whose sweeps run ``sampler`` (``_FixedPhi`` by default; optionally
    with ``alpha`` x ``alpha_factor``, a mutant)."""

    def __init__(self, model, kernel, alpha_factor=1.0, sampler=None):
        self._model = model
        self._kernel_model = model.replace(alpha=model.alpha * alpha_factor) \
            if alpha_factor != 1.0 else model
        self._sampler = (sampler or _FixedPhi)(kernel=kernel, mh_steps=2)

    def __getattr__(self, name):
        return getattr(self._model, name)

    def sweep_block(self, state, problem, rng, d_start, d_end, info):
        term, active = self._model.term(state, problem)
        # the mutant's alpha bound as a Session binds it: the kernel reads the problem's
        bound = self._kernel_model.bind(problem.corpus)
        self._sampler.sweep(bound, state.counts, state.sampler, term, active, rng, d_start,
                            d_end, info)


def _phi(K):
    phi = PHI[:, :K]
    return phi / phi.sum(axis=0)


def _z_target(setup):
    if setup == "lda":
        docs, K, alpha, beta = K3
        corpus = tiny_corpus(docs)
        Z = enumerate_assignments(corpus.n_tokens, K)
        logp = lda_log_given_phi_states(corpus, K, alpha, _phi(K), Z)
        return corpus, normalize_log(logp), None, LDA(K=K, alpha=0.7, beta=beta,
                                                      sampler="partially_collapsed")
    docs, K, alpha, beta, labels, cov, eta, b, w = CASES["multitask"]
    corpus = tiny_corpus(docs, labels=labels, covariates=cov)
    Z = enumerate_assignments(corpus.n_tokens, K)
    logp = lda_log_given_phi_states(corpus, K, 0.7, _phi(K), Z)
    if setup == "augmented":
        logp = logp + supervised_log_factor_states(corpus, K, eta, b, w, Z)
        model = SupervisedLDA(K=K, alpha=0.7, beta=beta, sampler="partially_collapsed")
    else:
        from topicsup.losses.hinge import Hinge
        model = SupervisedLDA(K=K, alpha=0.7, beta=beta, lam=MARGINAL_LAM,
                              supervised_factor="marginal", sampler="partially_collapsed")
        targets = model.bind(corpus, check_labels=False).targets
        logp = logp + loss_log_factor_states(corpus, K, eta, targets,
                                             Hinge(MARGINAL_LAM), Z)

    def prepare(state):
        state.supervision.weights.eta[...] = eta
        state.supervision.loss.b[...] = b
        state.supervision.loss.w[...] = w

    return corpus, normalize_log(logp), prepare, model


@pytest.mark.parametrize("setup", ["lda", "augmented", "marginal"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_z_step_given_phi_leaves_its_target_invariant(kernel, setup):
    corpus, p, prepare, model = _z_target(setup)
    # the LDA case has an asymmetric alpha: the model's own
    if setup == "lda":
        model = model.replace(alpha=K3[2])
        corpus, p = corpus, normalize_log(lda_log_given_phi_states(
            corpus, 3, K3[2], _phi(3), enumerate_assignments(corpus.n_tokens, 3)))
    idx = sample_final_states(_ZStep(model, kernel), corpus, p, n_chains=N_CHAINS, n_sweeps=2,
                              seed=41, prepare=prepare)
    assert_matches_target(idx, p)


@pytest.mark.parametrize("setup", ["lda", "augmented"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_z_step_with_a_wrong_alpha_is_rejected(kernel, setup):
    corpus, p, prepare, model = _z_target(setup)
    idx = sample_final_states(_ZStep(model, kernel, alpha_factor=2.5), corpus, p,
                              n_chains=N_CHAINS, n_sweeps=2, seed=42, prepare=prepare)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"a wrong alpha went undetected: {gof}"


# ---------------------------------------------------------------------- whole sweeps
@pytest.mark.parametrize("case", ["K2", "K3-asymmetric"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_whole_sweep_leaves_the_collapsed_target_invariant(case, kernel):
    """Phi | Z then Z | Phi: the marginal chain on Z has the collapsed LDA posterior."""
    c = K2 if case == "K2" else K3
    corpus, p = _collapsed(c)
    model = LDA(K=c[1], alpha=c[2], beta=c[3], sampler="partially_collapsed", kernel=kernel)
    idx = sample_final_states(model, corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=43)
    assert_matches_target(idx, p)


@dataclass(frozen=True)
class _PhiWithoutCounts(PartiallyCollapsed):
    """Test-only mutant: Phi from Dir(beta), forgetting the counts."""

    def draw_phi(self, problem, counts, own):
        pc.draw_phi(np.zeros_like(counts.n_wk), np.ones_like(counts.n_k), problem.beta, own.key,
                    own.phi, own.partial)


@pytest.mark.parametrize("kernel", KERNELS)
def test_whole_sweep_with_phi_drawn_without_counts_is_rejected(kernel):
    corpus, p = _collapsed(K3)
    model = LDA(K=3, alpha=K3[2], beta=K3[3], sampler="partially_collapsed", kernel=kernel)
    mutant = _PhiWithoutCounts(kernel=kernel)

    class Mutant:
        def __getattr__(self, name):
            return getattr(model, name)

        def sweep_block(self, state, problem, rng, d_start, d_end, info):
            term, active = model.term(state, problem)
            mutant.sweep(problem, state.counts, state.sampler, term, active, rng, d_start,
                         d_end, info)

    idx = sample_final_states(Mutant(), corpus, p, n_chains=N_CHAINS, n_sweeps=2, seed=44)
    gof = goodness_of_fit(idx, p)
    assert gof.pvalue < 1e-6, f"Phi without counts went undetected: {gof}"


# ---------------------------------------------------------------------- the K x K label matrix
W_SHARED = np.array([0.7, 1.2, 0.9])   # one w per task, the same for every document


def _shared_w():
    docs, K, alpha, beta, labels, cov, eta, b, _ = CASES["multitask"]
    corpus = tiny_corpus(docs, labels=labels, covariates=cov)
    w = np.repeat(W_SHARED[:, None], corpus.n_docs, axis=1)
    Z = enumerate_assignments(corpus.n_tokens, K)
    label = supervised_log_factor_states(corpus, K, eta, b, w, Z)
    given_phi = normalize_log(lda_log_given_phi_states(corpus, K, 0.7, _phi(K), Z) + label)
    collapsed = normalize_log(lda_log_joint_states(corpus, K, 0.7, beta, Z) + label)

    def prepare(state):
        state.supervision.weights.eta[...] = eta
        state.supervision.loss.b[...] = b
        state.supervision.loss.w[...] = w

    model = SupervisedLDA(K=K, alpha=0.7, beta=beta, sampler="partially_collapsed")
    return corpus, given_phi, collapsed, prepare, model


@dataclass(frozen=True)
class _DoubledMatrix(_FixedPhi):
    """Test-only mutant: the K x K label matrix scaled by 2."""

    def label_matrix(self, term, own):
        super().label_matrix(term, own)
        own.G[...] *= 2.0


def test_the_label_matrix_is_used_exactly_when_w_is_shared():
    corpus, _, _, prepare, model = _shared_w()
    problem = model.bind(corpus)
    state = model.allocate_state(problem)
    prepare(state)
    model.refresh_state(state, problem)
    term, active = model.term(state, problem)
    assert active and PartiallyCollapsed.uses_label_matrix(term, state.sampler)
    state.supervision.loss.w[0, 1] += 0.5   # one document's w differs: the O(K T) path
    assert not PartiallyCollapsed.uses_label_matrix(model.term(state, problem)[0], state.sampler)


@pytest.mark.parametrize("kernel", KERNELS)
def test_label_matrix_z_step_and_whole_sweep_are_exact(kernel):
    corpus, given_phi, collapsed, prepare, model = _shared_w()
    idx = sample_final_states(_ZStep(model, kernel), corpus, given_phi, n_chains=N_CHAINS,
                              n_sweeps=2, seed=45, prepare=prepare)
    assert_matches_target(idx, given_phi)
    idx = sample_final_states(model.replace(kernel=kernel), corpus, collapsed,
                              n_chains=N_CHAINS, n_sweeps=2, seed=46, prepare=prepare)
    assert_matches_target(idx, collapsed)


def test_a_wrong_label_matrix_is_rejected():
    corpus, given_phi, _, prepare, model = _shared_w()
    idx = sample_final_states(_ZStep(model, "dense", sampler=_DoubledMatrix), corpus,
                              given_phi, n_chains=N_CHAINS, n_sweeps=2, seed=47,
                              prepare=prepare)
    gof = goodness_of_fit(idx, given_phi)
    assert gof.pvalue < 1e-6, f"a doubled label matrix went undetected: {gof}"


# ---------------------------------------------------------------------- threads
_CHAIN = r"""
import json, sys, hashlib
import numpy as np, numba
from topicsup.models import DOLDA, LDA, LightMedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
corpus = make_synthetic(n_docs=300, n_topics=8, doc_length=40, task="multiclass",
                        n_classes=3, seed=5).corpus
out = {"threads": numba.get_num_threads()}
for name, model in [("lda-sparse", LDA(K=8, sampler="partially_collapsed")),
                    ("lda-dense", LDA(K=8, sampler="partially_collapsed", kernel="dense")),
                    ("medlda", LightMedLDA(K=8, sampler="partially_collapsed",
                                           lda_init_sweeps=1)),
                    ("dolda", DOLDA(K=8, lda_init_sweeps=1))]:
    s = Session(model, corpus, seed=7, block_tokens=int(sys.argv[1]))
    s.run(4)
    h = hashlib.sha256()
    for k, a in sorted(s.state.arrays().items()):
        h.update(k.encode()); h.update(np.ascontiguousarray(a).tobytes())
    h.update(np.asarray(s.history.query("metric == 'log_joint'")["value"]).tobytes())
    out[name] = h.hexdigest()
print(json.dumps(out))
"""


def _chain_in_process(threads: int, block_tokens: int) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    res = subprocess.run([sys.executable, "-c", _CHAIN, str(block_tokens)], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_same_chain_bit_for_bit_on_1_2_and_4_threads():
    """Each thread count in a fresh process (numba's pool size is fixed at start): the whole
    state (z, counts, Phi, the weights, the augmentation, DOLDA's horseshoe scales) and the
    log joints agree; the run on 2 threads also cuts its sweeps into blocks of another size."""
    runs = {t: _chain_in_process(t, blocks) for t, blocks in ((1, 2000), (2, 300), (4, 2000))}
    assert [runs[t]["threads"] for t in (1, 2, 4)] == [1, 2, 4]
    for name in ("lda-sparse", "lda-dense", "medlda", "dolda"):
        assert runs[1][name] == runs[2][name] == runs[4][name], name


def test_the_share_of_document_part_draws_is_recorded_in_every_sweep():
    """Per token in LDA initialisation sweeps, per MH proposal after them; a share of all
    draws, so in (0, 1]; the label proposals' acceptance only once the labels count."""
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    from topicsup.synthetic import make_synthetic
    corpus = make_synthetic(n_docs=60, n_topics=4, doc_length=30, seed=2).corpus
    s = Session(LightMedLDA(K=4, sampler="partially_collapsed", lda_init_sweeps=2), corpus,
                seed=1)
    s.run(4)
    share = s.metric("doc_part_share")
    assert list(share.index) == [1, 2, 3, 4] and ((share > 0) & (share <= 1)).all()
    made = s.metric("proposals", proposal="label")
    assert (made.loc[[1, 2]] == 0).all()
    assert (made.loc[[3, 4]] == s.model.mh_steps * corpus.n_tokens).all()


def _counts_of(words, z, K, V):
    n_wk = np.zeros((V, K), np.int32)
    np.add.at(n_wk, (words, z), 1)
    return n_wk, np.bincount(z, minlength=K).astype(np.int32)


def test_adopting_a_blocks_changes_gives_the_counts_of_its_new_topics():
    """``adopt_changes`` (a distributed block's reply: the tokens that changed topic) leaves
    z, n_wk and n_k as recounting the new topics from scratch would, touches no document
    outside the block, and adds the info rows; positions that do not ascend within the block
    are refused (a mutant taking the topics one token off fails the recount)."""
    rs = np.random.default_rng(3)
    K, V, D = 5, 30, 40
    doc_ptr = np.concatenate([[0], np.cumsum(rs.integers(1, 12, D))]).astype(np.int64)
    N = int(doc_ptr[-1])
    words = rs.integers(0, V, N).astype(np.int32)
    z = rs.integers(0, K, N).astype(np.int32)
    n_wk, n_k = _counts_of(words, z, K, V)
    d0, d1 = 7, 31
    lo, hi = doc_ptr[d0], doc_ptr[d1]
    new = z.copy()
    moved = np.sort(rs.choice(np.arange(lo, hi), (hi - lo) // 3, replace=False))
    new[moved] = (z[moved] + rs.integers(1, K, moved.size)) % K
    info, rows = np.zeros(3), rs.random((d1 - d0, 3))
    pc.adopt_changes(words, doc_ptr, d0, d1, moved.astype(np.int64), new[moved], z, n_wk, n_k,
                     rows, info)
    assert np.array_equal(z, new)
    for got, want in zip((n_wk, n_k), _counts_of(words, new, K, V)):
        assert np.array_equal(got, want)
    assert np.allclose(info, rows.sum(0))
    # the mutant: every changed token's topic written one position later
    z2 = new.copy()
    c2 = list(_counts_of(words, new, K, V))
    back = (moved + 1).astype(np.int64)
    back = back[back < hi]
    pc.adopt_changes(words, doc_ptr, d0, d1, back, new[back - 1], z2, *c2, rows, info)
    assert not np.array_equal(c2[0], _counts_of(words, new, K, V)[0])
    # refused before anything changes: positions not ascending within the block, a topic out
    # of range (the last entry, after valid ones that would otherwise have been applied)
    for bad, topics, match in (
            (moved[::-1], np.zeros(moved.size, np.int32), "ascend within the block"),
            (np.array([hi]), np.zeros(1, np.int32), "ascend within the block"),
            (np.array([lo - 1]), np.zeros(1, np.int32), "ascend within the block"),
            (moved, np.r_[np.zeros(moved.size - 1, np.int32), K], "topic out of range"),
            (moved, np.r_[np.zeros(moved.size - 1, np.int32), -1], "topic out of range")):
        z3, c3 = z.copy(), [n_wk.copy(), n_k.copy()]
        with pytest.raises(ValueError, match=match):
            pc.adopt_changes(words, doc_ptr, d0, d1, bad.astype(np.int64),
                             topics.astype(np.int32), z3, *c3, rows, info.copy())
        assert np.array_equal(z3, z) and np.array_equal(c3[0], n_wk)


@pytest.mark.parametrize("threads", [1, 2])
def test_adopting_many_changes_in_parallel_gives_the_recounted_state(threads):
    """Past one unit of parallel work (``ADOPT_CHUNK`` changes, several of them here, over
    all ``ADOPT_BUCKETS`` word ranges and a Zipf-skewed vocabulary), on 1 and 2 threads: the
    same z and counts as recounting; a position out of order in the last chunk is refused
    before the first chunk's changes are taken (nothing changes)."""
    from topicsup.kernels.threads import numba_threads
    rs = np.random.default_rng(11)
    K, V, D = 40, 3000, 4000
    doc_ptr = np.concatenate([[0], np.cumsum(rs.integers(40, 120, D))]).astype(np.int64)
    N = int(doc_ptr[-1])
    words = np.minimum(rs.zipf(1.3, N) - 1, V - 1).astype(np.int32)
    z = rs.integers(0, K, N).astype(np.int32)
    n_wk, n_k = _counts_of(words, z, K, V)
    d0, d1 = 100, D - 50
    lo, hi = doc_ptr[d0], doc_ptr[d1]
    moved = np.sort(rs.choice(np.arange(lo, hi), 3 * pc.ADOPT_CHUNK + 77, replace=False))
    new = z.copy()
    new[moved] = (z[moved] + rs.integers(1, K, moved.size)) % K
    rows, info = rs.random((d1 - d0, 3)), np.zeros(3)
    with numba_threads(threads):
        bad = moved.copy()
        bad[-3], bad[-2] = bad[-2], bad[-3]
        z0, c0 = z.copy(), [n_wk.copy(), n_k.copy()]
        with pytest.raises(ValueError, match="ascend within the block"):
            pc.adopt_changes(words, doc_ptr, d0, d1, bad.astype(np.int64), new[bad], z0, *c0,
                             rows, info.copy())
        assert np.array_equal(z0, z) and np.array_equal(c0[0], n_wk)
        assert np.array_equal(c0[1], n_k)
        pc.adopt_changes(words, doc_ptr, d0, d1, moved.astype(np.int64), new[moved], z, n_wk,
                         n_k, rows, info)
    assert np.array_equal(z, new)
    for got, want in zip((n_wk, n_k), _counts_of(words, new, K, V)):
        assert np.array_equal(got, want)
