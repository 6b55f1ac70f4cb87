"""DOLDA: the diagonal-orthant probit, the horseshoe prior, the intercept and covariates on the
partially collapsed sampler, checked against exact targets (docs/math.md sec. 4, 7)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from topicsup import DOLDA, GSLDA, LDA, LightMedLDA, Session
from topicsup.corpus import Corpus
from topicsup.kernels.rng import seed_state
from topicsup.kernels.weights import row_scores
from topicsup.losses.do_probit import DOProbit, do_probit_augment, stream_key
from topicsup.priors.horseshoe import Horseshoe
from topicsup.synthetic import make_synthetic
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_given_phi_states,
                                    lda_log_joint_states, normalize_log, sample_final_states,
                                    state_index, supervised_log_factor_states, tiny_corpus)

# ---------------------------------------------------------------------- the joint test
# 3 documents, 6 tokens, K = 2 (64 assignments); one covariate; two multi-label classes, so
# the DO-probit is two independent probits, a proper generative model
GEWEKE_DOCS = [[0, 1], [1, 2, 1], [0]]
GEWEKE_X = np.array([[0.8], [-1.1], [0.4]])
GEWEKE_Y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)


def _half_cauchy(rs, size):
    return np.abs(rs.standard_cauchy(size))


def _joint_draws(model, corpus, rs, n):
    """n exact draws of (Z, scales, eta) from p(Z | words) x prior: the parameters' marginal
    under the joint of (parameters, labels, latents) that DOLDA's generative model defines."""
    K = model.K
    Z = enumerate_assignments(corpus.n_tokens, K)
    pz = normalize_log(lda_log_joint_states(corpus, K, model.alpha_vector, model.beta, Z))
    T, M = 2, model.bind(corpus).n_features
    P = M - 1                                          # the shrunk columns (not the intercept)
    lam2 = _half_cauchy(rs, (n, T, P)) ** 2
    tau2 = _half_cauchy(rs, (n, T)) ** 2
    nu = (1 + 1 / lam2) / rs.exponential(size=lam2.shape)     # nu | lambda^2 ~ IG(1, 1 + 1/l2)
    xi = (1 + 1 / tau2) / rs.exponential(size=tau2.shape)
    eta = np.empty((n, T, M))
    cols = model.prior_columns(M)
    eta[:, :, cols] = rs.standard_normal((n, T, P)) * np.sqrt(tau2[..., None] * lam2)
    eta[:, :, K] = rs.normal(0.0, np.sqrt(model.intercept_variance), (n, T))
    starts = rs.choice(len(pz), size=n, p=pz)
    return Z, pz, starts, eta, lam2, nu, tau2, xi




def _regenerate_labels(model, state, problem, rs, rng):
    """(y, a) | parameters, exactly: y = +1 with probability Phi(s) (the probit with a
    integrated out), then a | y, s by the model's own augmentation draw (so the test covers
    the truncated normals too). (The logistic with c = 1 is also a proper likelihood, but
    the horseshoe's prior tails reach scores beyond the Polya-Gamma draws' limit.)"""
    sup = state.supervision
    row_scores(*model.feature_rows(state, problem), sup.weights.eta, sup.weights.scores)
    s = sup.weights.scores
    sup.y[...] = np.where(rs.random(s.shape) < stats.norm.cdf(s), 1.0, -1.0)
    model.loss_function.augment(sup.y, s, rng, sup.loss)


def _geweke(model, n_chains, n_steps, seed):
    """Successive-conditional chains started from exact joint draws: each step one whole DOLDA
    sweep given the labels, then new labels given the parameters. Returns the final states'
    Z indices, tau^2, lambda^2, eta, the latents' noise a - s and the exact p(Z)."""
    corpus = tiny_corpus(GEWEKE_DOCS, labels=GEWEKE_Y, covariates=GEWEKE_X)
    rs = np.random.default_rng(seed)
    Z, pz, starts, eta, lam2, nu, tau2, xi = _joint_draws(model, corpus, rs, n_chains)
    out_z = np.empty(n_chains, np.int64)
    out_tau2, out_lam2 = np.empty_like(tau2), np.empty_like(lam2)
    out_eta = np.empty_like(eta)
    out_noise = np.empty((n_chains, 2, corpus.n_docs))
    info = np.zeros(model.info_size)
    problem = model.bind(corpus)
    for c in range(n_chains):
        state = model.allocate_state(problem)
        state.z[:] = Z[starts[c]]
        sup = state.supervision
        sup.weights.eta[...] = eta[c]
        for name, a in (("lam2", lam2), ("nu", nu), ("tau2", tau2), ("xi", xi)):
            getattr(sup.prior, name)[...] = a[c]
        model.refresh_state(state, problem)
        rng = seed_state(seed, stream=c + 1)
        model.loss_function.start(sup.loss, rng)
        _regenerate_labels(model, state, problem, rs, rng)
        for step in range(1, n_steps + 1):
            model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
            model.end_sweep(state, problem, rng, step)
            _regenerate_labels(model, state, problem, rs, rng)
        out_z[c] = state_index(state.z, model.K)
        out_tau2[c], out_lam2[c] = sup.prior.tau2, sup.prior.lam2
        out_eta[c] = sup.weights.eta
        out_noise[c] = sup.loss.b - sup.weights.scores      # a - s
    return out_z, out_tau2, out_lam2, out_eta, out_noise, pz


def _half_cauchy_cdf(x):
    return 2 / np.pi * np.arctan(x)


def _joint_pvalues(model, seed=51, n_chains=3000, n_steps=3):
    z, tau2, lam2, eta, noise, pz = _geweke(model, n_chains, n_steps, seed)
    K = model.K
    cols = model.prior_columns(eta.shape[2])
    std = eta[:, :, cols] / np.sqrt(tau2[..., None] * lam2)
    return {"Z": goodness_of_fit(z, pz).pvalue,
            "tau": stats.kstest(np.sqrt(tau2).ravel(), _half_cauchy_cdf).pvalue,
            "lambda": stats.kstest(np.sqrt(lam2).ravel(), _half_cauchy_cdf).pvalue,
            "eta | scales": stats.kstest(std.ravel(), "norm").pvalue,
            "intercept": stats.kstest(eta[:, :, K].ravel() / np.sqrt(model.intercept_variance),
                                      "norm").pvalue,
            "a - s": stats.kstest(noise[:, :, 0].ravel(), "norm").pvalue}


# c0 = 2: with DOLDA's c0 = 100 most scores are far from 0 and the labels nearly certain,
# so the latents' truncation would rarely matter to the test; not 1, where a variance used
# as a precision would go unseen
# the published sampler, named: the joint test is of DOLDA's partially collapsed step
JOINT_MODEL = dict(K=2, alpha=0.5, beta=0.5, intercept_variance=2.0,
                   sampler="partially_collapsed")


def test_dolda_getting_it_right():
    """Geweke's (2004) joint test on a tiny DOLDA (horseshoe, intercept, one covariate, DO-probit
    on two multi-label classes, the partially collapsed sampler): 3,000 chains started from exact
    draws of (parameters, labels, latents), each three steps of (one whole sweep given the
    labels, new labels and latents given the parameters), a chain that leaves the joint
    invariant. At the end the parameters must still have their prior marginals: Z its exact
    p(Z | words) (chi-square), tau and lambda half-Cauchy, eta / (tau lambda) standard normal,
    the intercept N(0, c0), and the latents' noise a - s of the first document standard
    normal (KS each, p > 1e-3). The sparse kernel (the default); the dense
    one is held to Z | Phi by enumeration below."""
    p = _joint_pvalues(DOLDA(**JOINT_MODEL))
    assert min(p.values()) > 1e-3, p


@dataclass(frozen=True)
class _ShapeWithIntercept(Horseshoe):
    """Mutant: the global scale's Gamma shape counts one weight more (the intercept; docs/math.md
    sec. 8 says p excludes it)."""

    name = "_test_shape_mutant"

    def update(self, own, eta, rng, precision):
        from topicsup.kernels.horseshoe import horseshoe_update
        padded = np.hstack([eta, np.zeros((eta.shape[0], 1))])   # a zero weight more
        lam2 = np.hstack([own.lam2, np.ones((eta.shape[0], 1))])
        nu = np.hstack([own.nu, np.ones((eta.shape[0], 1))])
        prec = np.empty_like(lam2)
        horseshoe_update(padded, lam2, nu, own.tau2, own.xi, rng, prec)
        own.lam2[...], own.nu[...] = lam2[:, :-1], nu[:, :-1]
        precision[...] = prec[:, :-1]


@dataclass(frozen=True)
class _ShiftedTruncation(DOProbit):
    """Mutant: the latents truncated at 0.5 instead of 0 (a class boundary off by half a
    standard deviation)."""

    name = "_test_truncation_mutant"

    def augment(self, y, scores, rng, own):
        do_probit_augment(y, scores - 0.5, self.c, stream_key(rng), own.b, own.w)
        own.b[...] += 0.5


def _with_part(model, role, part):
    mutant = model.replace()
    object.__setattr__(mutant, "_parts", {**model._parts, role: part})
    return mutant


class _InterceptVarianceAsPrecision(DOLDA):
    """Mutant: the intercept's prior precision set to c0 instead of 1 / c0."""

    def refresh_state(self, state, problem):
        super().refresh_state(state, problem)
        state.supervision.prior_precision[:, self.K] = self.intercept_variance


def test_dolda_getting_it_right_has_teeth():
    """The joint test rejects (p < 1e-6 on some marginal, at the same size) a global scale
    whose Gamma shape counts the intercept (the misprint docs/math.md sec. 8 warns of), latents
    truncated at the wrong point, and the intercept's variance used as its precision."""
    model = DOLDA(**JOINT_MODEL)
    p = _joint_pvalues(_with_part(model, "prior", _ShapeWithIntercept()), seed=52)
    assert min(p.values()) < 1e-6, p
    p = _joint_pvalues(_with_part(model, "loss", _ShiftedTruncation()), seed=53)
    assert min(p.values()) < 1e-6, p
    p = _joint_pvalues(_InterceptVarianceAsPrecision(**JOINT_MODEL), seed=55)
    assert min(p.values()) < 1e-6, p


# ---------------------------------------------------------------------- Z | Phi, eta, a
ENUM_DOCS = [[0, 1], [2, 0], [1, 2, 2]]
ENUM_LABELS = ["a", "b", "c"]
ENUM_X = np.array([[1.0], [-0.5], [2.0]])
# (T, K + 1 + P): topics, the intercept, the covariate
ENUM_ETA = np.array([[1.5, -0.8, 0.2, -0.4, 0.3], [-1.0, 1.2, 0.4, 0.6, -0.2],
                     [0.1, -0.6, 1.7, -0.3, 0.5]])
# DO-probit latents: positive for the document's class, negative for the others
ENUM_A = np.array([[1.1, -0.9, -0.7], [-0.8, 1.3, -1.0], [-0.6, -0.7, 1.2]])


class _NoInterceptInScores(DOLDA):
    """Mutant: the topic kernels' covariate scores without the intercept's column."""

    def covariate_matrix(self, corpus):
        cov = super().covariate_matrix(corpus)
        cov[:, 0] = 0.0
        return cov


def _enumeration(model_cls=DOLDA):
    from tests.kernels.test_partially_collapsed import _phi
    corpus = tiny_corpus(ENUM_DOCS, labels=ENUM_LABELS, covariates=ENUM_X)
    K = 3
    model = model_cls(K=K, alpha=0.7, beta=0.3, sampler="partially_collapsed")
    Z = enumerate_assignments(corpus.n_tokens, K)
    # the target's features: the intercept's ones, then the covariate (DOLDA's, not the mutant's)
    features = np.hstack([np.ones((3, 1)), ENUM_X])
    target = normalize_log(lda_log_given_phi_states(corpus, K, 0.7, _phi(K), Z)
                           + supervised_log_factor_states(corpus, K, ENUM_ETA, ENUM_A,
                                                          np.ones((3, 3)), Z, features))

    def prepare(state):
        state.supervision.weights.eta[...] = ENUM_ETA
        state.supervision.loss.b[...] = ENUM_A
        state.supervision.loss.w[...] = 1.0

    return corpus, target, prepare, model


@pytest.mark.parametrize("kernel", ["dense", "sparse"])
def test_topic_step_given_phi_eta_and_latents_is_exact(kernel):
    """DOLDA's topic step with Phi, the weights (topics, intercept, a covariate) and the
    DO-probit latents held: three classes, w = 1 everywhere, so the label term goes through the
    K x K matrix of appendix B; 20,000 chains of two sweeps from the exact target end in it
    (chi-square over the 3^7 assignments, p > 1e-3)."""
    from tests.kernels.test_partially_collapsed import N_CHAINS, _ZStep
    corpus, target, prepare, model = _enumeration()
    idx = sample_final_states(_ZStep(model, kernel), corpus, target, n_chains=N_CHAINS,
                              n_sweeps=2, seed=61, prepare=prepare)
    assert_matches_target(idx, target)


def test_topic_step_without_the_intercept_is_rejected():
    """Teeth: the kernels' scores without the intercept's part fail the same test."""
    from tests.kernels.test_partially_collapsed import N_CHAINS, _ZStep
    corpus, target, prepare, model = _enumeration(_NoInterceptInScores)
    idx = sample_final_states(_ZStep(model, "sparse"), corpus, target, n_chains=N_CHAINS,
                              n_sweeps=2, seed=62, prepare=prepare)
    assert goodness_of_fit(idx, target).pvalue < 1e-6


# ---------------------------------------------------------------------- learning, chains
def _synthetic_split(seed=0, n=600, n_train=400):
    """A 3-class synthetic corpus with two covariates (known weights), split train / test."""
    syn = make_synthetic(n_docs=n, n_topics=6, task="multiclass", n_classes=3,
                         n_covariates=2, seed=seed)
    c = syn.corpus

    def sub(idx):
        docs = Corpus.from_matrix(c.to_matrix()[idx], c.vocabulary, empty="keep")
        return dataclasses.replace(docs, labels=c.labels.take(idx),
                                   covariates=c.covariates[idx],
                                   covariate_names=c.covariate_names)

    return sub(np.arange(n_train)), sub(np.arange(n_train, n)), syn


def _heldout_accuracy(model, tr, te, sweeps=40):
    s = Session(model, tr, seed=1, log_joint_every=5)
    s.run(sweeps)
    X = model.fold_in(s.state, s.problem, te, seed_state(2))
    scores = model.decision_scores(s.state, X)
    assert np.isfinite(s.metric("log_joint")).all()
    task = s.problem.task
    return task.score(task.encode(te.labels), scores.T), s


@pytest.mark.parametrize("make", [
    lambda: DOLDA(K=6, burn_in=20),
    lambda: DOLDA.with_normal_prior(K=6, burn_in=20),
    lambda: LightMedLDA(K=6, lam=4.0, prior="horseshoe", intercept=True, burn_in=20),
    lambda: GSLDA(K=6, prior="horseshoe", intercept=True, burn_in=20),
], ids=["DOLDA", "DOLDA-normal", "horseshoe-LightMedLDA", "horseshoe-gSLDA"])
def test_dolda_and_the_horseshoe_with_other_losses_learn(make):
    """Held-out accuracy on 3 classes (chance 0.33) above 0.75 after 40 sweeps (0.86-0.90
    measured), for DOLDA with
    either prior and for the horseshoe with the hinge (a horseshoe LightMedLDA, which no paper
    offers) and the logistic loss; and the covariates' weights point the way the generating
    ones do (correlation of the class-centred weights above 0.8: a softmax's weights are
    defined up to a shift across classes)."""
    tr, te, syn = _synthetic_split()
    model = make()
    acc, s = _heldout_accuracy(model, tr, te)
    assert acc > 0.75, acc
    eta = model.coefficients(s.state)[:, -2:]
    truth = syn.eta[:, -2:]
    centred = [a - a.mean(axis=0) for a in (eta, truth)]
    assert np.corrcoef(centred[0].ravel(), centred[1].ravel())[0, 1] > 0.8


def test_the_intercept_mixes_along_the_collinear_line():
    """With the intercept collinear with the topic proportions (properness: every weight has
    a proper prior, and the joint test above holds the intercept's marginal), the chain moves
    along the collinear line: over 60 sweeps after 20, each class's intercept has a lag-1
    autocorrelation below 0.9, and the intercept plus the mean topic weight (the part the
    data identify) varies less than the intercept itself, so the intercept's spread is the
    prior's trade-off along the line, explored within the run."""
    tr, _, _ = _synthetic_split()
    model = DOLDA(K=6)
    s = Session(model, tr, seed=4, log_joint_every=0)
    s.run(80)
    trace = s.trace("eta")[20:].astype(np.float64)          # (S, T, M)
    K = model.K
    icpt = trace[:, :, K]
    x = icpt - icpt.mean(axis=0)
    lag1 = (x[1:] * x[:-1]).sum(axis=0) / (x * x).sum(axis=0)
    assert (lag1 < 0.9).all(), lag1
    identified = icpt + trace[:, :, :K].mean(axis=2)
    assert (identified.std(axis=0) < icpt.std(axis=0)).all()


def test_the_log_joint_adds_the_horseshoe_and_the_intercept_prior():
    """log joint = collapsed LDA + sum c log Phi(y s) + the horseshoe's hierarchy on the shrunk
    weights + N(0, c0) on the intercept, each term computed here independently (scipy)."""
    tr, _, _ = _synthetic_split()
    model = DOLDA(K=4, intercept_variance=3.0, c=2)
    s = Session(model, tr, seed=5, log_joint_every=0)
    s.run(3)
    st, sup = s.state, s.state.supervision
    eta, hs = sup.weights.eta, sup.prior
    X = model.features(st, model.bind(tr))
    scores = eta @ X.T
    cols = [0, 1, 2, 3, 5, 6]                                   # all but the intercept (4)
    ig = stats.invgamma
    prior = (stats.norm(0, np.sqrt(hs.tau2[:, None] * hs.lam2)).logpdf(eta[:, cols]).sum()
             + ig(0.5, scale=1 / hs.nu).logpdf(hs.lam2).sum() + ig(0.5).logpdf(hs.nu).sum()
             + ig(0.5, scale=1 / hs.xi).logpdf(hs.tau2).sum() + ig(0.5).logpdf(hs.xi).sum()
             + stats.norm(0, np.sqrt(3.0)).logpdf(eta[:, 4]).sum())
    expect = (LDA.log_joint(model, st, model.bind(tr)) + 2 * stats.norm.logcdf(sup.y * scores).sum()
              + prior)
    assert np.isclose(model.log_joint(st, model.bind(tr)), expect, rtol=1e-10)


def test_perplexity_of_a_model_with_an_intercept():
    """Held-out perplexity folds in topic proportions alone, whatever features the model's
    classifier adds (the intercept, covariates)."""
    tr, te, _ = _synthetic_split()
    s = Session(DOLDA(K=4), tr, seed=0, log_joint_every=0)
    s.run(3)
    p = s.perplexity(te, n_burn=2, n_keep=2)
    assert np.isfinite(p) and 1 < p < tr.n_words


def test_dolda_resumes_exactly_and_refuses_forged_scales(tmp_path):
    """Checkpoint mid-sweep and resume equals the uninterrupted chain (the horseshoe's scales
    and auxiliaries, the latents, the partially collapsed sampler's Phi); a saved global scale
    that is not positive is refused by name."""
    from tests.test_session import _forge, assert_resumes_exactly
    tr, _, _ = _synthetic_split()
    r = assert_resumes_exactly(DOLDA(K=5, burn_in=2), tr, tmp_path / "s.npz",
                               block_tokens=3000, before=1, total=5)
    path = r.save(tmp_path / "r.npz")
    bad = _forge(path, tmp_path / "bad.npz", **{"state/hs_tau2": -np.ones(3)})
    with pytest.raises(ValueError, match="hs_tau2 must hold finite positive scales"):
        Session.load(bad)
