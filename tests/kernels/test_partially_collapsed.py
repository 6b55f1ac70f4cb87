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


def _partitions(rs, K, V, D, sizes):
    """A corpus's words and topics, and new topics for tokens of each of several
    partitions, with each partition's sparse deltas (``count_deltas``)."""
    doc_ptr = np.concatenate([[0], np.cumsum(rs.integers(*sizes, D))]).astype(np.int64)
    N = int(doc_ptr[-1])
    words = np.minimum(rs.zipf(1.3, N) - 1, V - 1).astype(np.int32)
    z = rs.integers(0, K, N).astype(np.int32)
    new = z.copy()
    moved = rs.choice(N, N // 3, replace=False)
    new[moved] = (z[moved] + rs.integers(1, K, moved.size)) % K
    cuts = [0, N // 5, N // 2, N]
    parts = [pc.count_deltas(words[a:b], z[a:b], new[a:b], K) for a, b in zip(cuts, cuts[1:])]
    keys = np.concatenate([k for k, _ in parts])
    deltas = np.concatenate([d for _, d in parts])
    part_ptr = np.cumsum([0] + [k.size for k, _ in parts]).astype(np.int64)
    return words, z, new, keys, deltas, part_ptr


@pytest.mark.parametrize("threads", [1, 2])
def test_adopting_the_partitions_count_deltas_gives_the_recounted_counts(threads):
    """A distributed sweep's reply is each partition's sparse deltas of n_wk (``count_deltas``:
    flat indices ascending, each once, non-zero integer changes that add up to zero);
    ``adopt_deltas`` adds several partitions' (keys repeated across them) over all
    ``ADOPT_BUCKETS`` word ranges of a Zipf-skewed vocabulary, on 1 and 2 threads, and leaves
    n_wk and n_k as recounting the new topics. A mutant reply (a delta on the neighbouring
    topic) fails the recount."""
    from topicsup.kernels.threads import numba_threads
    rs = np.random.default_rng(11)
    K, V = 40, 3000
    words, z, new, keys, deltas, part_ptr = _partitions(rs, K, V, 4000, (40, 120))
    for a, b in zip(part_ptr, part_ptr[1:]):
        assert np.all(np.diff(keys[a:b]) > 0) and np.all(deltas[a:b] != 0)
        assert deltas[a:b].sum() == 0
    # fewer entries than the two a change makes: a word's moves between the same topics sum
    assert keys.size < 2 * np.count_nonzero(z != new)
    n_wk, n_k = _counts_of(words, z, K, V)
    with numba_threads(threads):
        assert pc.adopt_deltas(keys, deltas, part_ptr, n_wk, n_k) == -1
    for got, want in zip((n_wk, n_k), _counts_of(words, new, K, V)):
        assert np.array_equal(got, want)
    n_wk, n_k = _counts_of(words, z, K, V)
    shifted = keys.copy()
    shifted[0] = shifted[0] + 1 if (shifted[0] + 1) % K else shifted[0] - 1
    pc.adopt_deltas(np.sort(shifted), deltas[np.argsort(shifted, kind="stable")],
                    np.array([0, keys.size]), n_wk, n_k)
    assert not np.array_equal(n_wk, _counts_of(words, new, K, V)[0])


def test_bad_count_deltas_change_nothing():
    """All or nothing: a partition whose keys do not ascend or fall outside V K is named
    (its index) before any count changes, and deltas that would make a count negative are
    taken back whole (-2); the counts are then as they were."""
    rs = np.random.default_rng(4)
    K, V = 6, 50
    words, z, new, keys, deltas, part_ptr = _partitions(rs, K, V, 60, (5, 20))
    n_wk, n_k = _counts_of(words, z, K, V)
    last = part_ptr[-2]   # the last partition's first entry
    for bad_keys, bad_deltas, want in (
            (np.r_[keys[:last], keys[last:][::-1]], deltas, 2),
            (np.r_[keys[:-1], V * K], deltas, 2),
            (keys, np.r_[deltas[:-1], -n_wk.max() - 5], -2)):
        c = [n_wk.copy(), n_k.copy()]
        assert pc.adopt_deltas(bad_keys.astype(np.int64), bad_deltas.astype(np.int32),
                               part_ptr, *c) == want
        assert np.array_equal(c[0], n_wk) and np.array_equal(c[1], n_k)


def test_the_kernels_variant_is_in_the_types_of_its_arguments():
    """``kernel_args`` puts the variant where numba reads it as a constant (``prob.ndim``,
    ``term is None``, ``G.ndim``), so that each model compiles only its own: the sparse
    kernel keeps its 2-d word tables and the dense gets none; a term without tasks is None;
    the label matrix is passed only when it is used. A wrong mapping would still sample
    exactly, by another variant, so the mapping itself is pinned here."""
    from topicsup.kernels import supervised as sup
    K, V, D = 3, 5, 4
    prob, G = np.zeros((V, K)), np.zeros((K, K))
    lda = sup.no_term(K, D)
    labelled = lda._replace(eta_kt=np.zeros((K, 2)))
    got = pc.kernel_args(True, prob, labelled, G, True)
    assert got[0] is prob and got[1] is labelled and got[2] is G
    got = pc.kernel_args(False, prob, labelled, G, False)
    assert got[0].ndim == 1 and got[1] is labelled and got[2].ndim == 1
    got = pc.kernel_args(True, prob, lda, G, False)
    assert got[0] is prob and got[1] is None and got[2].ndim == 1
