"""The logistic-normal topic model (``topicsup.models.logistic_normal``,
``kernels.logistic_normal``; docs/math.md sec. 16): each step against its exact target, the
whole chain by a joint test, the checkpoint and the boundary.

* The topic step with eta fixed: final states of chains started from the exact target
  p(Z | W, theta) by enumeration (``testing.exact``); a mutant that gives each document its
  neighbour's theta fails.
* The eta step with z fixed: chains started from exact draws of p(eta_d | z, mu, sigma) (a
  fine grid, the density written here in numpy), three sweeps, KS per coordinate; mutants
  without the documents' length term and with the variance taken as the precision fail.
* gamma's and sigma^2's draws against their closed-form conditionals (scipy), with mutants.
* Geweke's joint test of the whole chain (z, eta, gamma, sigma^2; new words given z), with
  the mutants failing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import gammaln

from topicsup import DMR, LogisticNormal, Session
from topicsup.corpus import Corpus, make_labels
from topicsup.kernels import logistic_normal as kernel
from topicsup.kernels.rng import seed_state
from topicsup.testing.exact import (assert_matches_target, doc_topic_states,
                                    enumerate_assignments, goodness_of_fit,
                                    lda_log_joint_states, normalize_log, sample_final_states,
                                    tiny_corpus)

from .prevalence_models import (assert_classes_lean_and_the_chain_moves, counts_pvalue,
                                labelled)

# ---------------------------------------------------------------------- the topic step
ENUM_DOCS = [[0, 1], [2, 0, 1], [1, 2, 2]]
ENUM_ETA = np.array([[0.3, -1.0, 0.8], [1.2, 0.1, -0.4], [-0.6, 0.9, 0.0]])
BETA = 0.4


def _topic_target(corpus: Corpus, K: int, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """p(Z | W, theta) for every row of Z: the topics' collapsed part (LDA's joint with alpha =
    1, minus its documents' part) plus sum_i log theta_{d_i z_i}; numpy and gammaln only."""
    n_dk = doc_topic_states(corpus, K, Z)
    N = corpus.doc_lengths
    docs_at_one = (gammaln(K) - gammaln(N + K)).sum() + gammaln(n_dk + 1).sum(axis=(1, 2))
    topics = lda_log_joint_states(corpus, K, 1.0, BETA, Z) - docs_at_one
    return normalize_log(topics + (n_dk * np.log(theta)[None]).sum(axis=(1, 2)))


class _NeighbourTheta(LogisticNormal):
    """Mutant: each document sampled with the next document's theta."""

    def sweep_block(self, state, problem, rng, d_start, d_end, info, backend=None):
        p = state.prior
        kept = p.theta.copy()
        p.theta[...] = np.roll(kept, 1, axis=0)
        super().sweep_block(state, problem, rng, d_start, d_end, info)
        p.theta[...] = kept


def _enumeration(model_cls):
    corpus = tiny_corpus(ENUM_DOCS)
    K = 3
    theta = np.exp(ENUM_ETA) / np.exp(ENUM_ETA).sum(axis=1, keepdims=True)
    target = _topic_target(corpus, K, theta, enumerate_assignments(corpus.n_tokens, K))

    def prepare(state):
        state.prior.eta[...] = ENUM_ETA

    return corpus, target, prepare, model_cls(K=K, beta=BETA)


def test_the_topic_step_is_exact_given_eta():
    corpus, target, prepare, model = _enumeration(LogisticNormal)
    idx = sample_final_states(model, corpus, target, n_chains=20000, n_sweeps=2, seed=161,
                              prepare=prepare)
    print(assert_matches_target(idx, target))


def test_the_topic_step_with_another_documents_theta_fails():
    corpus, target, prepare, model = _enumeration(_NeighbourTheta)
    idx = sample_final_states(model, corpus, target, n_chains=20000, n_sweeps=2, seed=162,
                              prepare=prepare)
    gof = goodness_of_fit(idx, target)
    assert gof.pvalue < 1e-6, gof


# ---------------------------------------------------------------------- the eta step
# two documents, K = 2: p(eta_d | z) on a grid per document
ETA_COUNTS = np.array([[3, 1], [0, 5]], np.int32)
ETA_MEAN = np.array([[0.5, -0.5], [0.0, 1.0]])
ETA_VAR = np.array([0.8, 1.5])
GRID = 500


def _eta_grid(d: int):
    """p(eta_d | z) on a GRID x GRID grid, from the model's definition in numpy: (axis, mass)."""
    axis = np.linspace(-9.0, 9.0, GRID)
    e0, e1 = np.meshgrid(axis, axis, indexing="ij")
    n, N = ETA_COUNTS[d], ETA_COUNTS[d].sum()
    logp = -(e0 - ETA_MEAN[d, 0]) ** 2 / (2 * ETA_VAR[0]) \
        - (e1 - ETA_MEAN[d, 1]) ** 2 / (2 * ETA_VAR[1]) \
        + n[0] * e0 + n[1] * e1 - N * np.logaddexp(e0, e1)
    p = np.exp(logp - logp.max())
    return axis, p / p.sum()


def _eta_draws(mutant: str | None = None, n_chains=3000, n_sweeps=3, seed=171):
    grids = [_eta_grid(d) for d in range(2)]
    gen = np.random.default_rng(seed)
    starts = np.empty((n_chains, 2, 2))
    for d, (axis, p) in enumerate(grids):   # a cell by its mass, then uniform within it
        cells = gen.choice(p.size, size=n_chains, p=p.ravel())
        starts[:, d] = axis[np.stack(np.unravel_index(cells, p.shape), axis=1)] \
            + (axis[1] - axis[0]) * (gen.random((n_chains, 2)) - 0.5)
    n_d = ETA_COUNTS.sum(axis=1).astype(np.int64)
    inv_var = 1.0 / ETA_VAR
    if mutant == "no length term":
        n_d = np.zeros(2, np.int64)
    elif mutant == "variance as precision":
        inv_var = ETA_VAR.copy()
    out = np.empty((n_chains, 2, 2))
    rng = seed_state(seed, stream=1)
    for c in range(n_chains):
        eta = starts[c].copy()
        for _ in range(n_sweeps):
            kernel.eta_sweep(ETA_COUNTS, n_d, eta, ETA_MEAN, inv_var, np.sqrt(ETA_VAR), 0, 2,
                             rng)
        out[c] = eta
    return out, grids


def _grid_pvalues(draws, grids):
    p = {}
    for d, (axis, mass) in enumerate(grids):
        h = axis[1] - axis[0]
        edges = np.concatenate([axis - h / 2, [axis[-1] + h / 2]])
        for k in range(2):
            cdf = np.concatenate([[0.0], np.cumsum(mass.sum(axis=1 - k))])
            p[f"doc {d} topic {k}"] = stats.kstest(
                draws[:, d, k], lambda x: np.interp(x, edges, cdf)).pvalue
    return p


def test_the_eta_step_leaves_its_exact_conditional_invariant():
    draws, grids = _eta_draws()
    p = _grid_pvalues(draws, grids)
    assert min(p.values()) > 1e-3, p


@pytest.mark.parametrize("mutant", ["no length term", "variance as precision"])
def test_a_wrong_eta_conditional_fails(mutant):
    draws, grids = _eta_draws(mutant, seed=172)
    p = _grid_pvalues(draws, grids)
    assert min(p.values()) < 1e-6, p


def test_the_running_sum_gives_the_direct_log_sums():
    """eta_sweep's O(1) log-sum of the others (a running sum, recomputed when it cancels)
    against eta_update fed the direct O(K) log_sum_others, on the same streams: rows with a
    coordinate a million-fold above the others, rows near 700 (overflow without the shift) and
    ordinary ones."""
    gen = np.random.default_rng(3)
    K = 6
    eta = gen.normal(0.0, 2.0, size=(5, K))
    eta[1, 2] += 40.0                    # one coordinate outweighs the others
    eta[2] += 690.0                      # exp would overflow without the shift
    eta[3, :] = [-30.0, 30.0, 0.0, 29.0, -5.0, 30.0]
    eta[4, :] = [45.0, 0.0, 0.0, 1.0, -1.0, 0.5]   # dominant, and none of the tokens its own
    n_dk = gen.integers(0, 9, size=(5, K)).astype(np.int32)
    n_dk[4, 0] = 0
    n_d = n_dk.sum(axis=1).astype(np.int64)
    mean = gen.normal(0.0, 1.0, size=(5, K))
    mean[2] += 690.0
    # a wide prior (sigma 15, slices as wide) lets a dominant coordinate fall in one update
    # to where the others' sum matters: the cancelled difference must have been recomputed
    for sd in (np.sqrt(2.0), 15.0):
        inv_var, width = np.full(K, sd ** -2), np.full(K, sd)
        start = eta.copy()
        fast = eta.copy()
        for sweep in range(20):
            rng = seed_state(sweep, stream=4)
            kernel.eta_sweep(n_dk, n_d, fast, mean, inv_var, width, 0, 5, rng)
            rng = seed_state(sweep, stream=4)
            for d in range(5):
                for k in range(K):
                    kernel.eta_update(eta[d], k, kernel.log_sum_others(eta[d], k),
                                      float(n_dk[d, k]), float(n_d[d]), mean[d, k],
                                      inv_var[k], width[k], rng)
            np.testing.assert_allclose(fast, eta, rtol=1e-12, atol=1e-9)
        eta = start


def test_the_others_log_sum_from_the_running_sum_survives_cancellation():
    """A coordinate that outweighs the others e^40-fold leaves S minus its term 0 or a few
    ulps (six digits or more lost): recomputed, the others' log-sum is the direct one."""
    for row in ([40.0, 0.1, -0.3], [45.0, 0.0, 0.0, 1.0, -1.0, 0.5], [1.0, 2.0, 3.0],
                [700.0, 699.0, -700.0], [-5.0, 14.0, 0.0]):
        row = np.array(row)
        top = row.max()
        S = np.exp(row - top).sum()
        for k in range(len(row)):
            rest, others = kernel.others_from_sum(row, k, top, S)
            want = kernel.log_sum_others(row, k)
            assert rest == pytest.approx(want, rel=1e-12, abs=1e-12), (row, k)
            assert others == pytest.approx(np.exp(want - top), rel=1e-9), (row, k)


def test_the_log_sums_never_overflow():
    row = np.array([800.0, -800.0, 799.0])
    assert kernel.log_sum_others(row, 1) == pytest.approx(np.logaddexp(800.0, 799.0))
    v = kernel.eta_log_density(900.0, 2.0, 5.0, 800.0, 0.0, 1.0)
    assert v == pytest.approx(2 * 900 - 5 * 900 - 0.5 * 900 ** 2)


# ---------------------------------------------------------------------- gamma and sigma^2
def _regression(seed=5, D=7):
    """A design with two classes and a covariate, eta, and variances."""
    gen = np.random.default_rng(seed)
    cls = np.arange(D) % 2
    corpus = Corpus.from_tokens([["a"]] * D, labels=[["p", "q"][c] for c in cls],
                                covariates=pd.DataFrame({"x": gen.standard_normal(D)}))
    design = DMR(K=2).design(corpus)
    X = np.zeros((D, 3))
    X[np.repeat(np.arange(D), np.diff(design.row_ptr)), design.row_col] = design.row_val
    eta = gen.normal(0.5, 1.0, size=(D, 2))
    return design, X, eta, np.array([0.7, 2.0])


def test_gamma_is_drawn_from_its_gaussian_conditional():
    design, X, eta, var = _regression()
    s2 = 4.0
    xtx = kernel.gram(design.row_ptr, design.row_col, design.row_val, 3)
    np.testing.assert_allclose(xtx, X.T @ X, rtol=1e-14)
    p = {}
    for name, prior_inv_var in (("exact", 1 / s2), ("mutant: sigma^2 as precision", s2)):
        rng = seed_state(9, stream=2)
        gamma = np.zeros((3, 2))
        draws = np.empty((4000, 3, 2))
        for i in range(len(draws)):
            kernel.gamma_draw(design.row_ptr, design.row_col, design.row_val, xtx, eta, var,
                              np.zeros((3, 2)), prior_inv_var, gamma, rng)
            draws[i] = gamma
        worst = 1.0
        for k in range(2):
            P = X.T @ X / var[k] + np.eye(3) / s2
            cov = np.linalg.inv(P)
            mean = cov @ (X.T @ eta[:, k] / var[k])
            for f in range(3):
                worst = min(worst, stats.kstest(draws[:, f, k], "norm",
                                                args=(mean[f], np.sqrt(cov[f, f]))).pvalue)
            # the coordinates' correlation too, not only the marginals
            corr = np.corrcoef(draws[:, :, k].T)
            want = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
            assert name != "exact" or np.abs(corr - want).max() < 0.06, (corr, want)
        p[name] = worst
    assert p["exact"] > 1e-3 and p["mutant: sigma^2 as precision"] < 1e-6, p


def test_the_variances_are_drawn_from_their_inverse_gamma_conditional():
    design, X, eta, _ = _regression()
    mean = np.full_like(eta, 0.2)
    a, b = 1.5, 0.7
    rng = seed_state(11, stream=3)
    var = np.ones(2)
    draws = np.empty((4000, 2))
    for i in range(len(draws)):
        kernel.variance_draw(eta, mean, a, b, var, rng)
        draws[i] = var
    D = eta.shape[0]
    for k in range(2):
        scale = b + 0.5 * ((eta[:, k] - mean[:, k]) ** 2).sum()
        exact = stats.kstest(draws[:, k], "invgamma", args=(a + D / 2, 0, scale)).pvalue
        wrong = stats.kstest(draws[:, k], "invgamma", args=(a + D, 0, scale)).pvalue
        assert exact > 1e-3 and wrong < 1e-6, (exact, wrong)


# ---------------------------------------------------------------------- the whole chain
JOINT_DOCS, JOINT_LEN, JOINT_V = 4, 3, 3
JOINT_CLASSES = np.array([0, 0, 1, 1])
JOINT = dict(K=2, beta=0.5, sigma=1.2, noise_shape=3.0, noise_scale=2.0,
             prevalence="classes")


class _NoLengthTerm(LogisticNormal):
    """Mutant: eta's step without the documents' lengths (the softmax's normaliser)."""

    def end_sweep(self, state, problem, rng, sweep):
        p = state.prior
        kept = p.n_d.copy()
        p.n_d[...] = 0
        try:
            return super().end_sweep(state, problem, rng, sweep)
        finally:
            p.n_d[...] = kept


class _PriorVarianceAsPrecision(LogisticNormal):
    """Mutant: gamma's prior variance sigma^2 used as its precision."""

    def coefficient_precision(self) -> float:
        return float(self.sigma) ** 2


def _prior_draw(gen: np.random.Generator, n: int | None = None):
    """(gamma, var, eta, z) from the model's generative model; ``n``: that many, vectorised."""
    shape = () if n is None else (n,)
    gamma = JOINT["sigma"] * gen.standard_normal((*shape, 2, 2))
    var = JOINT["noise_scale"] / gen.gamma(JOINT["noise_shape"], size=(*shape, 2))
    mean = gamma[..., JOINT_CLASSES, :]
    eta = mean + np.sqrt(var)[..., None, :] * gen.standard_normal((*shape, JOINT_DOCS, 2))
    theta0 = 1.0 / (1.0 + np.exp(eta[..., 1] - eta[..., 0]))
    return gamma, var, eta, theta0


def _words(z, gen):
    phi = gen.dirichlet(np.full(JOINT_V, JOINT["beta"]), size=2)
    return np.array([gen.choice(JOINT_V, p=phi[k]) for k in z], np.int32)


def _joint_pvalues(model_cls, n_chains=2500, n_steps=3, seed=181):
    """Chains started from exact prior draws, each ``n_steps`` of (the model's sweep and
    prior step given the words, new words given z); their final state against the prior:
    gamma normal and sigma^2 inverse gamma (KS per coordinate), eta_00 and eta_31 normal
    given their gamma and sigma (KS of the standardised values), the first document's and the
    corpus's tokens in topic 0 against their prior frequencies (chi-square, 200,000 draws)."""
    gen = np.random.default_rng(seed)
    model = model_cls(**JOINT)
    labels = make_labels(np.array(["a", "b"])[JOINT_CLASSES], JOINT_DOCS)
    ptr = np.arange(0, JOINT_DOCS * JOINT_LEN + 1, JOINT_LEN)
    vocab = tuple(f"w{v}" for v in range(JOINT_V))
    out: dict[str, list] = {"gamma": [], "var": [], "std": [], "n00": [], "n0": []}
    info = np.zeros(model.info_size)
    for c in range(n_chains):
        gamma, var, eta, theta0 = _prior_draw(gen)
        z = (gen.random(JOINT_DOCS * JOINT_LEN) >= np.repeat(theta0, JOINT_LEN)).astype(
            np.int32)
        words = _words(z, gen)
        rng = seed_state(seed, stream=c + 1)
        for step in range(n_steps):
            problem = model.bind(Corpus(words, ptr, vocab, labels=labels))
            state = model.allocate_state(problem)
            state.z[:] = z
            p = state.prior
            p.eta[...], p.lam[...], p.var[...] = eta, gamma, var
            model.refresh_state(state, problem)
            model.sweep_block(state, problem, rng, 0, JOINT_DOCS, info)
            model.end_sweep(state, problem, rng, step + 1)
            z, eta = state.z.copy(), p.eta.copy()
            gamma, var = p.lam.copy(), p.var.copy()
            words = _words(z, gen)
        out["gamma"].append(gamma.ravel())
        out["var"].append(var)
        mean = gamma[JOINT_CLASSES]
        out["std"].append([(eta[0, 0] - mean[0, 0]) / np.sqrt(var[0]),
                           (eta[3, 1] - mean[3, 1]) / np.sqrt(var[1])])
        out["n00"].append(int((z[:JOINT_LEN] == 0).sum()))
        out["n0"].append(int((z == 0).sum()))
    g, v, s = (np.array(out[k]) for k in ("gamma", "var", "std"))
    p = {f"gamma[{j}]": stats.kstest(g[:, j], "norm", args=(0, JOINT["sigma"])).pvalue
         for j in range(4)}
    p.update({f"var[{k}]": stats.kstest(v[:, k], "invgamma", args=(
        JOINT["noise_shape"], 0, JOINT["noise_scale"])).pvalue for k in range(2)})
    p.update({f"eta std[{j}]": stats.kstest(s[:, j], "norm").pvalue for j in range(2)})
    _, _, _, theta0 = _prior_draw(gen, 200_000)
    in0 = gen.binomial(JOINT_LEN, theta0)
    for name, got, ref, size in (("n_00", out["n00"], in0[:, 0], JOINT_LEN + 1),
                                 ("n_0", out["n0"], in0.sum(axis=1),
                                  JOINT_DOCS * JOINT_LEN + 1)):
        p[name] = counts_pvalue(got, ref, size)
    return p


def test_logistic_normal_getting_it_right():
    """Geweke's (2004) joint test: the chain (z, eta, gamma, sigma^2) and new words given z
    leave the model's joint invariant, so after three steps from exact prior draws every
    variable still has its prior marginal."""
    p = _joint_pvalues(LogisticNormal)
    assert min(p.values()) > 1e-3, p


@pytest.mark.parametrize("mutant", [_NoLengthTerm, _PriorVarianceAsPrecision])
def test_logistic_normal_getting_it_right_has_teeth(mutant):
    p = _joint_pvalues(mutant, seed=182)
    assert min(p.values()) < 1e-6, p


# ---------------------------------------------------------------------- the model in use
def test_bad_settings_are_refused_by_name():
    for name in ("sigma", "noise_shape", "noise_scale"):
        with pytest.raises(ValueError, match=name):
            LogisticNormal(K=2, **{name: 0.0})
    with pytest.raises(TypeError, match="alpha"):
        LogisticNormal(K=2, alpha=0.1)
    with pytest.raises(ValueError, match="cannot learn"):
        LogisticNormal(K=2, optimize="beta")
    with pytest.raises(ValueError, match="no class labels"):
        Session(LogisticNormal(K=2, prevalence="classes"),
                Corpus.from_tokens([["a", "b"], ["b", "c"]]))


def test_a_chain_resumes_bit_for_bit_and_refuses_forged_state(tmp_path):
    corpus = labelled()
    s = Session(LogisticNormal(K=2), corpus, seed=4)
    s.run(5)
    s.save(tmp_path / "c.tsup")
    r = Session.load(tmp_path / "c.tsup")
    s.run(5)
    r.run(5)
    for name in ("eta", "lam", "var", "theta", "mean"):
        np.testing.assert_array_equal(getattr(s.state.prior, name),
                                      getattr(r.state.prior, name))
    np.testing.assert_array_equal(s.state.z, r.state.z)
    from ..test_checkpoint import _rewritten
    good = s.save(tmp_path / "good.npz")
    # non-finite, negative, and finite values past which the eta step would never end
    for field, value, match in (("ln_eta", np.nan, "finite"), ("ln_gamma", np.inf, "finite"),
                                ("ln_variance", -1.0, "positive"),
                                ("ln_eta", 1e200, "within"), ("ln_gamma", -1e7, "within"),
                                ("ln_variance", 1e-300, "lie in"),
                                ("ln_variance", 1e30, "lie in")):
        arr = {"ln_eta": s.state.prior.eta, "ln_gamma": s.state.prior.lam,
               "ln_variance": s.state.prior.var}[field].copy()
        arr.flat[0] = value
        path = _rewritten(good, tmp_path / f"forged_{field}_{value}.npz",
                          **{f"state/{field}": arr})
        with pytest.raises(ValueError, match=f"{field}.*{match}"):
            Session.load(path)


def test_the_classes_lean_their_way_and_the_log_joint_rises():
    s = Session(LogisticNormal(K=2, beta=0.1), labelled(n_docs=80), seed=5)
    s.run(150)
    gamma = assert_classes_lean_and_the_chain_moves(s)
    np.testing.assert_allclose(s.doc_topics(as_frame=False), s.state.prior.theta)
    frame = s.document_prior()
    np.testing.assert_array_equal(frame["lam"].to_numpy(), gamma.ravel())


def test_prevalence_draws_are_the_chains_own_theta():
    from topicsup.prevalence import PrevalenceDraws
    corpus = labelled()
    s = Session(LogisticNormal(K=2), corpus, seed=7)
    draws = PrevalenceDraws(s)
    seen = []
    s.run(3, callback=lambda sess: (draws.collect(sess), seen.append(
        sess.state.prior.theta.copy())))
    codes = np.asarray(corpus.labels.values)
    for got, theta in zip(draws.class_draws, seen):
        np.testing.assert_allclose(got, [theta[codes == c].mean(axis=0) for c in (0, 1)])


def test_held_out_documents_are_folded_in_from_their_features():
    corpus = labelled()
    s = Session(LogisticNormal(K=2), corpus, seed=6)
    s.run(40)
    held = labelled(n_docs=10, seed=9)

    def fold(fit):
        return fit.problem.model.fold_in(fit.state, fit.problem, s.corpus.heldout(held),
                                         seed_state(0, 3), 10, 20)

    theta = s.readout(fold)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(theta, s.readout(fold))   # the same stream, the same rows
    # a document's class moves its proportions the way the class leans
    codes = np.asarray(held.labels.values)
    assert abs(theta[codes == 0, 0].mean() - theta[codes == 1, 0].mean()) > 0.2
    with pytest.raises(TypeError, match="document completion"):
        s.perplexity(held)
    other = Corpus.from_tokens([["w0", "w1"]] * 2, labels=["a", "z"],
                               covariates=pd.DataFrame({"x": [0.0, 0.0]}))
    with pytest.raises(ValueError, match="classes"):
        s.readout(lambda fit: fit.problem.model.fold_in(
            fit.state, fit.problem, s.corpus.heldout(other), seed_state(0, 3), 2, 2))
