"""Supervised models as a Session runs them: learning, telemetry, checkpoints, bad input.

The kernels' exactness is proven in tests/kernels; here: MedLDA and LightMedLDA learn a
synthetic task whose truth is known (binary, multi-class, multi-label), the history carries
the per-proposal acceptance (doc, word, exp) and the training fit, a checkpoint taken mid-sweep
resumes the uninterrupted chain bit for bit (topics, weights, augmentation and the weight
average), and bad parameters or corpora are rejected by name.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from topicsup import Corpus
from topicsup.datasets import make_synthetic
from topicsup.kernels.rng import derive, seed_state
from topicsup.models import LDA, LightMedLDA, MedLDA, SupervisedLDA
from topicsup.session import Session
from scipy import stats

from topicsup.kernels.weights import row_scores
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, score_states,
                                    state_index, tiny_corpus)

from .test_session import assert_resumes_exactly


def _split(task, seed=0, n=600):
    c = make_synthetic(n_docs=n, task=task, n_classes=3, seed=seed).corpus
    tr, te = np.arange(n) < 400, np.arange(n) >= 400
    def sub(mask):
        docs = Corpus.from_matrix(c.to_matrix()[mask], c.vocabulary, empty="keep")
        return dataclasses.replace(docs, labels=c.labels.take(np.flatnonzero(mask)))

    return sub(tr), sub(te)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA, LightMedLDA.as_published],
                         ids=["MedLDA", "LightMedLDA", "LightMedLDA.as_published"])
def test_presets_learn_a_synthetic_task(task, Model):
    """Held-out accuracy (F1 for multi-label) well above chance after 30 sweeps; the light
    samplers record an acceptance rate for each proposal kind they use."""
    tr, te = _split(task)
    model = Model(K=6, lam=4.0, burn_in=15)
    s = Session(model, tr, seed=1, log_joint_every=5)
    s.run(30)
    X = model.fold_in(s.state, s.problem, te, seed_state(2))
    scores = model.decision_scores(s.state, X)
    bound = s.problem.task
    got = bound.score(bound.encode(te.labels), scores.T)
    assert got > {"binary": 0.7, "multiclass": 0.6, "multilabel": 0.6}[task], got
    h = s.history
    assert (h["metric"] == f"train_{bound.score_name}").sum() == 30
    assert np.isfinite(s.metric("log_joint")).all()
    if model.sampler == "light":
        rates = h[h["metric"] == "acceptance_rate"].groupby("proposal")["value"].mean()
        used = {"doc", "word", "exp"} if Model == LightMedLDA.as_published else {"doc", "word"}
        assert set(rates.dropna().index) == used and (rates.dropna() > 0).all()


@pytest.mark.parametrize("kw, per_token", [
    (dict(composition="cycle", mh_steps=3, proposal_weights=(1, 1, 1)),
     {"doc": 1, "word": 1, "exp": 1}),
    (dict(composition="cycle", mh_steps=4, proposal_weights=(1, 1, 1)),
     {"doc": 2, "word": 1, "exp": 1}),
    (dict(), {"doc": 3, "word": 3, "exp": 0}),   # the preset: doc and word in turn
    (dict(composition="cycle", mh_steps=3, proposal_weights=(0, 2, 1)),
     {"doc": 0, "word": 2, "exp": 1}),
    (dict(composition="mixture", mh_steps=2, proposal_weights=(1, 1, 0)),
     {"doc": None, "word": None, "exp": 0}),
])
def test_light_supervised_telemetry_counts_every_step(kw, per_token):
    """A cycle runs the kinds with a positive weight in turn (doc, word, exp); a mixture
    with a zero weight never proposes that kind; every step is counted once and rates lie in
    [0, 1]."""
    tr, _ = _split("multiclass")
    model = LightMedLDA(K=4, lam=4.0, **kw)
    s = Session(model, tr, seed=0)
    s.run(3)
    h = s.history
    made = h[h.metric == "proposals"].pivot(index="sweep", columns="proposal", values="value")
    assert (made.sum(axis=1) == model.mh_steps * tr.n_tokens).all()
    for kind, n in per_token.items():
        if n is not None:
            assert (made[kind] == n * tr.n_tokens).all(), kind
    rates = h[h.metric == "acceptance_rate"]["value"].dropna()
    assert ((rates >= 0) & (rates <= 1)).all()


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_supervised_chain_resumes_exactly(tmp_path, Model):
    tr, _ = _split("multiclass")
    r = assert_resumes_exactly(Model(K=5, lam=4.0, burn_in=2), tr, tmp_path / "s.npz",
                               block_tokens=3000, before=1, total=5)
    assert r.state.supervision.weights.eta_kept[0] == 3


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA, LightMedLDA.as_published],
                         ids=["MedLDA", "LightMedLDA", "LightMedLDA.as_published"])
def test_lda_initialisation_runs_the_plain_lda_kernel(Model):
    """During ``lda_init_sweeps`` the topic sweeps are exactly LDA's (same sampler, same
    draws: z equal bit for bit to an LDA session started from the same z and random stream),
    the weights stay at zero and no training rows are written; the weights are first drawn at
    the end of the last of those sweeps, and the supervised sweeps follow."""
    tr, _ = _split("multiclass")
    n = 3
    s = Session(Model(K=5, lam=4.0, lda_init_sweeps=n), tr, seed=4, block_tokens=2000)
    model = s.model   # sampler="auto" chosen
    settings = {k: v for k, v in model.topic_sampler.params().items()
                if k != "proposal_weights"}   # LDA has no exp proposal to weigh
    lda = Session(LDA(K=5, alpha=model.alpha, beta=model.beta, sampler=model.sampler,
                      **settings), tr, seed=0, block_tokens=2000)
    lda.state.z[:] = s.state.z
    lda.model.refresh_state(lda.state, lda.model.bind(tr))
    lda.rng[:] = s.rng
    for sweep in range(1, n + 1):
        assert s.model.initialising(s.state)
        s.run(1)
        lda.run(1)
        assert np.array_equal(s.state.z, lda.state.z), sweep
        assert (s.state.supervision.weights.eta == 0).all() == (sweep < n), sweep
    assert not s.model.initialising(s.state)
    s.run(2)
    assert not np.array_equal(s.state.z, lda.state.z)
    h = s.history
    assert h[h.metric == "train_accuracy"]["sweep"].tolist() == [3, 4, 5]
    if Model == LightMedLDA.as_published:  # no exp proposal before the weights are drawn
        made = h[h.metric == "proposals"].pivot(index="sweep", columns="proposal",
                                                values="value")
        assert (made.loc[[1, 2, 3], "exp"] == 0).all() and (made.loc[[4, 5], "exp"] > 0).all()


def test_lda_initialisation_ignores_the_labels():
    """Permuting the labels leaves the chain unchanged through the initialisation (the labels
    reach nothing before its end) and changes it afterwards."""
    tr, _ = _split("multiclass")
    perm = dataclasses.replace(tr, labels=tr.labels.take(np.random.default_rng(0).permutation(
        tr.n_docs)))
    a, b = (Session(LightMedLDA(K=5, lam=4.0, lda_init_sweeps=3), c, seed=1) for c in (tr, perm))
    a.run(3), b.run(3)
    assert np.array_equal(a.state.z, b.state.z)
    a.run(1), b.run(1)
    assert not np.array_equal(a.state.z, b.state.z)


@pytest.mark.parametrize("Model", [MedLDA, LightMedLDA])
def test_chain_resumes_exactly_inside_the_lda_initialisation(tmp_path, Model):
    tr, _ = _split("multiclass")
    r = assert_resumes_exactly(Model(K=5, lam=4.0, lda_init_sweeps=3), tr,
                               tmp_path / "s.npz", block_tokens=3000, before=1, total=5)
    assert r.state.supervision.lda_init_left[0] == 0


def test_unsupervised_lda_is_unchanged_by_the_frame():
    """T = 0: LDA's state carries empty supervision arrays and no end-of-sweep work."""
    tr, _ = _split("binary")
    s = Session(LDA(K=4), tr, seed=0)
    assert s.state.supervision is None
    assert s.model.term(s.state, s.problem)[0].eta_kt.shape == (4, 0)
    assert s.model.end_sweep(s.state, s.model.bind(tr), s.rng, 1) == []


@pytest.mark.parametrize("kw, err, msg", [
    (dict(lam=-1.0), ValueError, "lam must be"),
    (dict(nu=0), ValueError, "nu must be"),
    (dict(sampler="alias"), ValueError, "sampler 'auto' or 'gibbs' or 'light'"),
    (dict(weight_sampler="newton"), ValueError, "weight_sampler must be"),
    (dict(S_gibbs=0), ValueError, "S_gibbs must be"),
    (dict(lda_init_sweeps=-1), ValueError, "lda_init_sweeps must be"),
    (dict(lda_init_sweeps=2.5), TypeError, "lda_init_sweeps must be an integer"),
    (dict(loss="squared"), ValueError, "loss must be"),
    (dict(proposal_weights=(1, 0)), ValueError, "proposal_weights must be"),
    (dict(proposal_weights=(0, 0, 0)), ValueError, "proposal_weights must be"),
    (dict(supervised_factor="gaussian"), ValueError, "supervised_factor must be one of"),
    (dict(sampler="gibbs", mh_steps=5), ValueError, r"mh_steps=5 \(sampler='gibbs' does not use it\): would "
                                   r"be ignored"),
    (dict(weight_shift=True), ValueError, r"weight_shift=True \(weight_sampler='cholesky' "
                                          r"does not use it\)"),
    (dict(sampler="gibbs", S_gibbs=3, composition="mixture"), ValueError,
     r"S_gibbs=3 \(weight_sampler='cholesky' does not use it\); composition='mixture' "
     r"\(sampler='gibbs' does not use it\): would be ignored"),
    (dict(intercept=1), TypeError, "intercept must be"),
    (dict(intercept=True, intercept_variance=0.0), ValueError, "intercept_variance must be"),
    (dict(intercept=True, intercept_variance=np.inf), ValueError, "intercept_variance must be"),
    (dict(intercept_variance=4.0), ValueError,
     r"intercept_variance=4.0 \(intercept=False does not use it\): would be ignored"),
    (dict(loss="do_probit", c=0), ValueError, r"c must be an integer in \[1, 1024\]"),
    (dict(loss="do_probit", c=2000), ValueError, r"c must be an integer in \[1, 1024\]"),
])
def test_bad_supervised_parameters(kw, err, msg):
    with pytest.raises(err, match=msg):
        SupervisedLDA(**kw)


def test_supervised_models_need_class_labels():
    tr, _ = _split("binary")
    with pytest.raises(ValueError, match="corpus.labels is None"):
        Session(LightMedLDA(K=3), dataclasses.replace(tr, labels=None))
    real = make_synthetic(n_docs=50, task="real", seed=0).corpus
    with pytest.raises(ValueError, match="'real'"):
        Session(MedLDA(K=3), real)


def test_default_alpha_and_presets():
    assert LightMedLDA(K=64).alpha == pytest.approx(0.1)
    m = LightMedLDA(K=10)
    # sampler="auto" by default; the preset's settings for its light sampler kept for it
    assert (m.sampler, m.mh_steps, m.composition, m.weight_sampler, m.S_gibbs,
            m.supervised_factor, m.proposal_weights, LightMedLDA.PUBLISHED_SAMPLER) == \
        ("auto", 6, "cycle", "coordinate", 2, "marginal", (1.0, 1.0, 0.0), "light")
    light = m.replace(sampler="light")
    assert (light.mh_steps, light.composition) == (6, "cycle")
    assert list(light.topic_sampler.cycle_order(supervised=True)) == [0, 1]
    p = LightMedLDA.as_published(K=10, mh_steps=4)
    assert (p.sampler, p.composition, p.supervised_factor, p.proposal_weights, p.mh_steps) == \
        ("light", "mixture", "augmented", (1.0, 1.0, 1.0), 4)
    assert (MedLDA(K=10).sampler, MedLDA.PUBLISHED_SAMPLER, MedLDA(K=10).weight_sampler,
            MedLDA(K=10).supervised_factor) == ("auto", "gibbs", "cholesky", "augmented")


def test_prediction_rejects_mismatched_features():
    tr, _ = _split("binary")
    s = Session(MedLDA(K=4, lam=2.0), tr, seed=0)
    with pytest.raises(ValueError, match="features have 5 columns"):
        s.model.decision_scores(s.state, np.zeros((3, 5)))


def test_fold_in_with_given_topics_and_ensemble_scores():
    """fold_in at phi_wk = the current point estimate is the default fold-in (same rng, bit
    for bit); ensemble_scores is the mean over its snapshots; bad inputs are named."""
    tr, te = _split("multiclass")
    model = LightMedLDA(K=5, lam=4.0, burn_in=4)
    s = Session(model, tr, seed=2, log_joint_every=0)
    s.run(6)
    a = model.fold_in(s.state, s.problem, te, seed_state(7), 3, 3)
    b = model.fold_in(s.state, s.problem, te, seed_state(7), 3, 3,
                      model.topic_word(s.state, s.problem).T)
    assert np.array_equal(a, b)
    snaps = [model.topic_snapshot(s.state, s.problem)]
    s.run(2)
    snaps.append(model.topic_snapshot(s.state, s.problem))
    rng = seed_state(8)
    got = model.ensemble_scores(s.state, s.problem, te, rng, snaps, 3, 3)
    rng = seed_state(8)
    expect = sum(model.decision_scores(s.state, model.fold_in(s.state, s.problem, te,
                                                              derive(rng, j), 3, 3, phi))
                 for j, phi in enumerate(snaps)) / 2
    assert np.allclose(got, expect)
    with pytest.raises(ValueError, match="phi_wk must have shape"):
        model.fold_in(s.state, s.problem, te, rng, 1, 1, snaps[0].T)
    with pytest.raises(ValueError, match="snapshots must hold"):
        model.ensemble_scores(s.state, s.problem, te, rng, [])


# ---------------------------------------------------------------- the whole sweep, exactly
class _StaleAugmentation:
    """Test-only mutant: topics with the marginal factor, but the weights drawn with the
    augmentation of the previous sweep (the augmented order), i.e. (Z, xi) | eta not one
    block."""

    def __init__(self, model):
        self._model = model
        self._augmented_order = model.replace(supervised_factor="augmented")

    def __getattr__(self, name):
        return getattr(self._model, name)

    def end_sweep(self, state, problem, rng, sweep):
        return self._augmented_order.end_sweep(state, problem, rng, sweep)


_TARGETS: dict = {}


@pytest.fixture(autouse=True, scope="module")
def _forget_targets():
    """The shared targets hold ~300 MB each: dropped when the module's tests are done."""
    yield
    _TARGETS.clear()


def _joint_target(corpus, model, grid=np.linspace(-7.0, 7.0, 561)):
    """p(Z) with eta integrated out on a grid, and p(eta | Z) on that grid, for a binary
    model with K = 2 and no covariates: p(Z, eta) ∝ LDA(Z) N(eta; 0, I / nu)
    prod_d psi(y_d | eta . zbar_d), psi the loss's pseudo-likelihood (docs/math.md sec. 1). Returns
    the assignments, the grid points (G, 2), the spacing, p(Z) and p(eta | Z) (S, G).

    The target depends on the corpus, the priors and the loss, not on the samplers, so it is
    computed once per posterior and shared by the tests of every sampler (each costs seconds:
    315,000 grid points x 128 assignments)."""
    loss = model.loss_function
    key = (corpus.words.tobytes(), corpus.doc_ptr.tobytes(),
           model.bind(corpus, check_labels=False).targets.tobytes(), model.K,
           tuple(model.alpha_vector), model.beta,
           model.nu, type(loss).__name__, tuple(sorted(loss.params().items())),
           grid.tobytes())
    if key not in _TARGETS:
        _TARGETS[key] = _compute_joint_target(corpus, model, grid)
    return _TARGETS[key]


def _compute_joint_target(corpus, model, grid):
    K = model.K
    Z = enumerate_assignments(corpus.n_tokens, K)
    E = np.stack(np.meshgrid(grid, grid, indexing="ij"), -1).reshape(-1, K)
    y = model.bind(corpus, check_labels=False).targets[0]
    zbar = score_states(corpus, K, np.eye(K), Z)                             # (S, K, D)
    s = np.einsum("gk,skd->sgd", E, zbar)
    logp = (model.loss_function.log_psi(y, s).sum(-1) - 0.5 * model.nu * (E ** 2).sum(1)[None]
            + lda_log_joint_states(corpus, K, model.alpha_vector, model.beta, Z)[:, None])
    w = np.exp(logp - logp.max())
    return Z, E, grid[1] - grid[0], w.sum(1) / w.sum(), w / w.sum(1, keepdims=True)


def _whole_sweeps(model, corpus, n_chains, n_sweeps, seed):
    """Independent chains started from the exact joint (Z, eta) ~ p (eta uniform within its
    grid cell) and the augmentation drawn given them; ``n_sweeps`` whole sweeps each (topics,
    then ``end_sweep``). Returns p(Z), the marginal p(eta_0) on the grid, the final Z
    indices and the final eta_0."""
    Z, E, h, pz, peta = _joint_target(corpus, model)
    rs = np.random.default_rng(seed)
    starts = rs.choice(len(pz), size=n_chains, p=pz)
    eta0 = np.empty((n_chains, 2))
    for zi in np.unique(starts):   # one draw per start state: p(eta | Z) is long
        at = starts == zi
        eta0[at] = E[rs.choice(len(E), size=at.sum(), p=peta[zi])]
    eta0 += rs.uniform(-h / 2, h / 2, eta0.shape)
    idx, eta_end = np.empty(n_chains, np.int64), np.empty(n_chains)
    info = np.zeros(model.info_size)
    problem = model.bind(corpus)
    for c in range(n_chains):
        state = model.allocate_state(problem)
        state.z[:] = Z[starts[c]]
        state.supervision.weights.eta[0] = eta0[c]
        model.refresh_state(state, problem)
        rng = seed_state(seed, stream=c + 1)
        sup = state.supervision
        model.loss_function.start(sup.loss, rng)
        row_scores(*model.feature_rows(state, problem), sup.weights.eta, sup.weights.scores)
        model.loss_function.augment(sup.y, sup.weights.scores, rng, sup.loss)
        for sweep in range(1, n_sweeps + 1):
            model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
            model.end_sweep(state, problem, rng, sweep)
        idx[c] = state_index(state.z, model.K)
        eta_end[c] = state.supervision.weights.eta[0, 0]
    grid_eta0 = (pz[:, None] * peta).sum(0).reshape(int(np.sqrt(len(E))), -1).sum(1)
    return pz, grid_eta0, E[::int(np.sqrt(len(E))), 0], idx, eta_end


def _eta_ks(grid_p, grid_x, draws):
    """KS p-value of eta_0 draws against its exact marginal on the grid (cell masses spread
    uniformly over the cells, as the starts are)."""
    h = grid_x[1] - grid_x[0]
    cdf = np.concatenate([[0.0], np.cumsum(grid_p)])
    edges = np.concatenate([grid_x - h / 2, [grid_x[-1] + h / 2]])
    return stats.kstest(draws, lambda x: np.interp(x, edges, cdf)).pvalue


JOINT_CORPUS = ([[0, 1], [1, 0, 1], [0, 0]], ["a", "b", "a"])
JOINT = dict(K=2, alpha=0.5, beta=0.5, lam=3.0, nu=0.25)


@pytest.mark.parametrize("kw", [
    dict(sampler="gibbs", supervised_factor="augmented", weight_sampler="cholesky"),
    dict(sampler="gibbs", supervised_factor="marginal", weight_sampler="cholesky"),
    dict(sampler="light", supervised_factor="marginal", weight_sampler="coordinate",
         composition="cycle", mh_steps=2),
    dict(sampler="light", supervised_factor="augmented", weight_sampler="coordinate",
         composition="mixture", mh_steps=3),
    dict(sampler="partially_collapsed", kernel="sparse", supervised_factor="marginal",
         weight_sampler="coordinate", mh_steps=2),
    dict(sampler="partially_collapsed", kernel="dense", supervised_factor="augmented",
         weight_sampler="cholesky"),
], ids=["gibbs-augmented", "gibbs-marginal", "light-marginal", "light-augmented",
        "pc-sparse-marginal", "pc-dense-augmented"])
def test_whole_sweeps_leave_the_joint_posterior_invariant(kw):
    """Proves the order of a sweep's draws, which the kernel tests (eta and the augmentation
    held fixed) cannot: chains started from the exact joint posterior of (Z, eta) (eta
    integrated on a grid, K = 2, 7 tokens) and run through two whole sweeps (topics, then
    augmentation and weights in the model's order) end in the exact marginals: p(Z) by
    chi-square and p(eta_0) by KS, each at 1e-3, on 6,000 independent chains. The grid
    start's discretisation (cells 0.025 wide) is far below what that many chains resolve."""
    tr = tiny_corpus(JOINT_CORPUS[0], labels=JOINT_CORPUS[1])
    model = SupervisedLDA(**JOINT, **kw)
    pz, p_eta, x_eta, idx, eta = _whole_sweeps(model, tr, n_chains=6000, n_sweeps=2, seed=41)
    assert_matches_target(idx, pz)
    assert _eta_ks(p_eta, x_eta, eta) > 1e-3


def test_marginal_topics_with_a_stale_augmentation_are_rejected():
    """Teeth: the marginal factor's topics followed by the weights drawn with the previous
    sweep's augmentation (the augmented order) leave the joint posterior: rejected by both
    checks, Z (chi2 ~ 91 on 24 df) and eta (KS p ~ 1e-24), at the size the right order
    passes."""
    tr = tiny_corpus(JOINT_CORPUS[0], labels=JOINT_CORPUS[1])
    model = SupervisedLDA(**JOINT, sampler="gibbs", supervised_factor="marginal")
    pz, p_eta, x_eta, idx, eta = _whole_sweeps(_StaleAugmentation(model), tr, n_chains=6000,
                                               n_sweeps=2, seed=41)
    gof = goodness_of_fit(idx, pz)
    assert gof.pvalue < 1e-6, f"a stale augmentation went undetected in Z: {gof}"
    assert _eta_ks(p_eta, x_eta, eta) < 1e-6


def test_checkpoints_from_before_the_marginal_factor_keep_the_augmented_one():
    """A saved model without ``supervised_factor`` (written before it existed) sampled with
    the augmented factor; it is restored as such, not with the preset's new default."""
    from topicsup.models import model_from_params
    params = LightMedLDA.as_published(K=5).get_params()
    del params["supervised_factor"]
    m = model_from_params("LightMedLDA", params)
    assert m.supervised_factor == "augmented" and m.composition == "mixture"
    assert model_from_params("LightMedLDA", LightMedLDA(K=5).get_params()).supervised_factor \
        == "marginal"


def test_a_precision_that_is_not_positive_definite_is_named(monkeypatch):
    """If the Cholesky draw of the weights fails (a precision not positive definite in
    floating point), the error says which settings to change, not numpy's LinAlgError."""
    tr, _ = _split("binary")
    s = Session(MedLDA(K=3, lam=4.0), tr, seed=0)

    def fails(*args):
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    monkeypatch.setattr("topicsup.weight_samplers.cholesky.cholesky_weights", fails)
    with pytest.raises(ValueError, match=r"precision is not positive definite .*nu = 1, "
                                         r"lam = 4.*larger prior precision"):
        s.run(1)
    assert s.n_sweeps == 0 and not s.running


@pytest.mark.parametrize("sampler", ["gibbs", "alias", "light", "partially_collapsed",
                                     "sparse_gibbs"])
def test_one_topic_is_the_unigram_model_under_every_sampler(sampler):
    """K = 1 is a model (scikit-learn's n_components = 1, and the baseline a topic model is
    compared with): every token in topic 0, whatever the sampler, and the log joint the
    collapsed unigram model's, log Gamma(V beta) - log Gamma(N + V beta)
    + sum_w [log Gamma(n_w + beta) - log Gamma(beta)] plus the document part, which with one
    topic is 0 (alpha's Dirichlet over one outcome)."""
    from math import lgamma
    corpus = make_synthetic(n_docs=30, n_topics=3, doc_length=15, seed=2).corpus
    s = Session(LDA(K=1, beta=0.05, sampler=sampler), corpus, seed=0)
    s.run(3)
    assert (s.state.z == 0).all()
    n_w = np.bincount(corpus.words, minlength=corpus.n_words)
    V, N, b = corpus.n_words, corpus.n_tokens, 0.05
    unigram = lgamma(V * b) - lgamma(N + V * b) + sum(lgamma(n + b) - lgamma(b) for n in n_w)
    assert s.metric("log_joint").iloc[-1] == pytest.approx(unigram, rel=1e-12)
