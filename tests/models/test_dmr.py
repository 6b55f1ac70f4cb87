"""DMR, Dirichlet-multinomial regression (``topicsup.models.dmr``, ``kernels.dmr``; docs/math.md
sec. 15): each step against its exact target, the whole chain by a joint test, the checkpoint
and the boundary.

* The topic step with lambda fixed: final states of chains started from the exact target
  p(Z | W, alpha_d) by enumeration (``testing.exact``); a mutant that gives each document its
  neighbour's alpha fails.
* The lambda step with z fixed: chains started from exact draws of p(lambda | z) (a fine grid,
  the density written here in numpy and scipy's gammaln, not the kernel's) still follow it
  after three slice sweeps (KS per coordinate); mutants without the documents' length term
  and with the prior's variance taken as its precision fail.
* Geweke's joint test of the whole chain (z then lambda, new words given z), with the same
  mutants failing.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import gammaln

from topicsup import DMR, Session
from topicsup.corpus import Corpus, make_labels
from topicsup.kernels import dmr as kernel
from topicsup.kernels.rng import seed_state
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, lda_log_joint_states, normalize_log,
                                    sample_final_states, tiny_corpus)

from .prevalence_models import (assert_classes_lean_and_the_chain_moves, counts_pvalue,
                                labelled)


def test_log_gamma_is_lgamma_to_the_last_digits():
    xs = np.concatenate([np.logspace(-10, 8, 4000), np.linspace(0.5, 40, 4000)])
    ours = np.array([kernel.log_gamma(x) for x in xs])
    ref = gammaln(xs)
    assert (np.abs(ours - ref) <= 2e-14 * np.maximum(1.0, np.abs(ref))).all()


# ---------------------------------------------------------------------- the topic step
ENUM_DOCS = [[0, 1], [2, 0, 1], [1, 2, 2]]
ENUM_CLASSES = ["a", "b", "a"]
ENUM_X = np.array([[0.5], [-1.0], [1.5]])
# lambda (F, K): the two classes' rows, then the covariate's
ENUM_LAM = np.array([[-0.5, 0.4, -1.2], [0.8, -0.9, 0.1], [0.6, -0.3, 0.2]])


class _NeighbourAlpha(DMR):
    """Mutant: each document sampled with the next document's alpha."""

    def sweep_block(self, state, problem, rng, d_start, d_end, info, backend=None):
        p = state.prior
        kept = p.alpha.copy()
        p.alpha[...] = np.roll(kept, 1, axis=0)
        super().sweep_block(state, problem, rng, d_start, d_end, info)
        p.alpha[...] = kept


def _enumeration(model_cls=DMR):
    corpus = tiny_corpus(ENUM_DOCS, labels=ENUM_CLASSES, covariates=ENUM_X)
    K = 3
    model = model_cls(K=K, alpha=0.3, beta=0.4)
    codes = np.array([0, 1, 0])
    alpha = np.exp(ENUM_LAM[codes] + ENUM_X * ENUM_LAM[2])
    Z = enumerate_assignments(corpus.n_tokens, K)
    target = normalize_log(lda_log_joint_states(corpus, K, alpha, 0.4, Z))

    def prepare(state):
        assert state.prior.design.names == ("class=a", "class=b", "x0")
        state.prior.lam[...] = ENUM_LAM

    return corpus, target, prepare, model


def test_the_topic_step_is_exact_given_lambda():
    corpus, target, prepare, model = _enumeration()
    idx = sample_final_states(model, corpus, target, n_chains=20000, n_sweeps=2, seed=61,
                              prepare=prepare)
    print(assert_matches_target(idx, target))


def test_the_topic_step_with_another_documents_alpha_fails():
    corpus, target, prepare, model = _enumeration(_NeighbourAlpha)
    idx = sample_final_states(model, corpus, target, n_chains=20000, n_sweeps=2, seed=62,
                              prepare=prepare)
    gof = goodness_of_fit(idx, target)
    assert gof.pvalue < 1e-6, gof


# ---------------------------------------------------------------------- the lambda step
SLICE_DOCS = [[0, 1, 1, 2], [2, 2, 0], [1, 0], [0, 0, 2, 1, 2], [1, 2, 0]]
SLICE_CLASSES = ["a", "a", "b", "b", "b"]
SLICE_Z = np.array([0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1], np.int32)
SLICE_SIGMA, SLICE_ALPHA = 1.5, 0.5
GRID = 600


class _NoLengthTerm(DMR):
    """Mutant: the documents' normaliser log Gamma(A_d) - log Gamma(A_d + N_d) left out (the
    documents' lengths taken as 0)."""

    def end_sweep(self, state, problem, rng, sweep):
        p = state.prior
        kept = p.n_d.copy()
        p.n_d[...] = 0
        try:
            return super().end_sweep(state, problem, rng, sweep)
        finally:
            p.n_d[...] = kept


class _VarianceAsPrecision(DMR):
    """Mutant: the prior's variance sigma^2 used as its precision."""

    def allocate_state(self, problem):
        state = super().allocate_state(problem)
        state.prior.inv_var[...] = self.sigma ** 2
        return state


def _class_grid(counts: np.ndarray, lengths: np.ndarray):
    """p(lambda_c | z) of one class on a grid (GRID x GRID over its two coordinates), written
    from the model's definition with scipy's gammaln: (axis values, normalised mass)."""
    mu = math.log(SLICE_ALPHA)
    axis = np.linspace(mu - 7 * SLICE_SIGMA, mu + 7 * SLICE_SIGMA, GRID)
    l0, l1 = np.meshgrid(axis, axis, indexing="ij")
    a0, a1 = np.exp(l0), np.exp(l1)
    logp = -((l0 - mu) ** 2 + (l1 - mu) ** 2) / (2 * SLICE_SIGMA ** 2)
    for n, N in zip(counts, lengths):
        A = a0 + a1
        logp += gammaln(A) - gammaln(A + N) + gammaln(a0 + n[0]) - gammaln(a0) \
            + gammaln(a1 + n[1]) - gammaln(a1)
    p = np.exp(logp - logp.max())
    return axis, p / p.sum()


def _slice_draws(model_cls, n_chains=3000, n_sweeps=3, seed=71):
    """Chains started from grid draws of p(lambda | z), each ``n_sweeps`` of the model's
    lambda step: the final lambdas (n_chains, 2 classes, 2 topics) and the grids."""
    corpus = tiny_corpus(SLICE_DOCS, labels=SLICE_CLASSES)
    model = model_cls(K=2, alpha=SLICE_ALPHA, beta=0.5, sigma=SLICE_SIGMA,
                      prevalence="classes")
    problem = model.bind(corpus)
    state = model.allocate_state(problem)
    state.z[:] = SLICE_Z
    model.refresh_state(state, problem)
    n_dk = state.counts.n_dk
    codes = np.array([0, 0, 1, 1, 1])
    grids = [_class_grid(n_dk[codes == c], corpus.doc_lengths[codes == c]) for c in (0, 1)]
    gen = np.random.default_rng(seed)
    starts = np.empty((n_chains, 2, 2))
    for c, (axis, p) in enumerate(grids):   # a cell by its mass, then uniform within it
        cells = gen.choice(p.size, size=n_chains, p=p.ravel())
        starts[:, c] = axis[np.stack(np.unravel_index(cells, p.shape), axis=1)] \
            + (axis[1] - axis[0]) * (gen.random((n_chains, 2)) - 0.5)
    out = np.empty((n_chains, 2, 2))
    rng = seed_state(seed, stream=1)
    for i in range(n_chains):
        state.prior.lam[...] = starts[i]
        model.refresh_state(state, problem)
        for s in range(n_sweeps):
            model.end_sweep(state, problem, rng, s + 1)
        out[i] = state.prior.lam
    return out, grids


def _slice_pvalues(draws, grids):
    p = {}
    for c, (axis, mass) in enumerate(grids):
        h = axis[1] - axis[0]
        for k in range(2):
            marginal = mass.sum(axis=1 - k)
            cdf = np.concatenate([[0.0], np.cumsum(marginal)])
            edges = np.concatenate([axis - h / 2, [axis[-1] + h / 2]])
            p[f"class {c} topic {k}"] = stats.kstest(
                draws[:, c, k], lambda x: np.interp(x, edges, cdf)).pvalue
    return p


def test_the_lambda_step_leaves_its_exact_conditional_invariant():
    draws, grids = _slice_draws(DMR)
    p = _slice_pvalues(draws, grids)
    assert min(p.values()) > 1e-3, p


@pytest.mark.parametrize("mutant", [_NoLengthTerm, _VarianceAsPrecision])
def test_a_wrong_lambda_conditional_fails(mutant):
    draws, grids = _slice_draws(mutant, seed=72)
    p = _slice_pvalues(draws, grids)
    assert min(p.values()) < 1e-6, p


# ---------------------------------------------------------------------- the whole chain
JOINT_DOCS, JOINT_LEN, JOINT_V = 4, 3, 3
JOINT_CLASSES = np.array([0, 0, 1, 1])
JOINT = dict(K=2, alpha=0.5, beta=0.5, sigma=1.5, prevalence="classes")


def _prior_draw(gen: np.random.Generator):
    """(lambda, z, words) from DMR's generative model."""
    mu = math.log(JOINT["alpha"])
    lam = mu + JOINT["sigma"] * gen.standard_normal((2, 2))
    alpha = np.exp(lam[JOINT_CLASSES])
    z = np.concatenate([gen.choice(2, size=JOINT_LEN, p=gen.dirichlet(a)) for a in alpha])
    return lam, z.astype(np.int32), _words(z, gen)


def _words(z, gen):
    phi = gen.dirichlet(np.full(JOINT_V, JOINT["beta"]), size=2)
    return np.array([gen.choice(JOINT_V, p=phi[k]) for k in z], np.int32)


def _prior_topic_counts(gen: np.random.Generator, n: int) -> np.ndarray:
    """The first document's and the corpus's tokens in topic 0 in ``n`` prior draws (2, n),
    vectorised: with K = 2 a token is in topic 0 with probability theta_d0 ~ Beta(a0, a1)."""
    mu = math.log(JOINT["alpha"])
    lam = mu + JOINT["sigma"] * gen.standard_normal((n, 2, 2))
    alpha = np.exp(lam[:, JOINT_CLASSES])                      # (n, D, 2)
    theta0 = gen.beta(alpha[..., 0], alpha[..., 1])            # (n, D)
    in0 = gen.binomial(JOINT_LEN, theta0)                      # (n, D)
    return np.stack([in0[:, 0], in0.sum(axis=1)])


def _stats(lam, z):
    n00 = int((z[:JOINT_LEN] == 0).sum())
    return lam.ravel(), n00, int((z == 0).sum())


def _joint_pvalues(model_cls, n_chains=2500, n_steps=3, seed=81):
    """Chains started from exact prior draws, each ``n_steps`` of (the model's sweep and
    lambda step given the words, new words given z); their final (lambda, z) against the
    prior: lambda N(mu, sigma^2) per coordinate (KS), the first document's and the corpus's
    tokens in topic 0 against their prior frequencies (chi-square, from 200,000 draws)."""
    gen = np.random.default_rng(seed)
    model = model_cls(**JOINT)
    labels = make_labels(np.array(["a", "b"])[JOINT_CLASSES], JOINT_DOCS)
    ptr = np.arange(0, JOINT_DOCS * JOINT_LEN + 1, JOINT_LEN)
    vocab = tuple(f"w{v}" for v in range(JOINT_V))
    lams, n00s, n0s = [], [], []
    info = np.zeros(model.info_size)
    for c in range(n_chains):
        lam, z, words = _prior_draw(gen)
        rng = seed_state(seed, stream=c + 1)
        for step in range(n_steps):
            problem = model.bind(Corpus(words, ptr, vocab, labels=labels))
            state = model.allocate_state(problem)
            state.z[:] = z
            state.prior.lam[...] = lam
            model.refresh_state(state, problem)
            model.sweep_block(state, problem, rng, 0, JOINT_DOCS, info)
            model.end_sweep(state, problem, rng, step + 1)
            z, lam = state.z.copy(), state.prior.lam.copy()
            words = _words(z, gen)
        a, b, t = _stats(lam, z)
        lams.append(a)
        n00s.append(b)
        n0s.append(t)
    lams = np.array(lams)
    mu = math.log(JOINT["alpha"])
    p = {f"lambda[{j}]": stats.kstest(lams[:, j], "norm", args=(mu, JOINT["sigma"])).pvalue
         for j in range(4)}
    ref = _prior_topic_counts(gen, 200_000)
    for name, got, col in (("n_00", n00s, 0), ("n_0", n0s, 1)):
        size = JOINT_LEN + 1 if col == 0 else JOINT_DOCS * JOINT_LEN + 1
        p[name] = counts_pvalue(got, ref[col], size)
    return p


def test_dmr_getting_it_right():
    """Geweke's (2004) joint test: the chain (z, then lambda) and new words given z leave
    DMR's joint invariant, so after three steps from exact prior draws lambda and z still
    have their prior marginals."""
    p = _joint_pvalues(DMR)
    assert min(p.values()) > 1e-3, p


@pytest.mark.parametrize("mutant", [_NoLengthTerm, _VarianceAsPrecision])
def test_dmr_getting_it_right_has_teeth(mutant):
    p = _joint_pvalues(mutant, seed=82)
    assert min(p.values()) < 1e-6, p


# ---------------------------------------------------------------------- the model in use
def test_the_design_follows_the_corpus_and_the_prevalence_setting():
    single, multi = labelled(), labelled(multilabel=True, covariates=False)
    names = lambda model, corpus: model.design(corpus).names   # noqa: E731
    assert names(DMR(K=2), single) == ("class=a", "class=b", "x")
    assert names(DMR(K=2, prevalence="classes"), single) == ("class=a", "class=b")
    assert names(DMR(K=2, prevalence="covariates"), single) == ("intercept", "x")
    assert names(DMR(K=2, prevalence="none"), single) == ("intercept",)
    assert names(DMR(K=2), multi) == ("intercept", "class=a", "class=b")
    d = DMR(K=2).design(single)
    X = np.zeros((single.n_docs, 3))
    for row in range(single.n_docs):
        cols = slice(d.row_ptr[row], d.row_ptr[row + 1])
        X[row, d.row_col[cols]] = d.row_val[cols]
    np.testing.assert_array_equal(X[:, 2], single.covariates[:, 0])
    np.testing.assert_array_equal(X[:, :2].argmax(axis=1), single.labels.values)
    for f in range(3):   # the columns hold the same non-zeros
        cols = slice(d.col_ptr[f], d.col_ptr[f + 1])
        np.testing.assert_array_equal(X[d.col_doc[cols], f], d.col_val[cols])
    # the classes' (and the intercept's) prior mean is log alpha; a covariate's 0
    s = Session(DMR(K=2, alpha=0.2), single, seed=0)
    np.testing.assert_allclose(s.state.prior.mu[:, 0], [math.log(0.2)] * 2 + [0.0])


def test_the_design_is_built_from_its_non_zeros_never_dense():
    """Many classes: the design's peak memory is its non-zeros, not a dense (D, F) matrix (at
    10^6 documents of 240 classes that was 1.9 GB, twice); single- and multi-label, with the
    same non-zeros a dense matrix's scan gives (the chain reads them in that order)."""
    import tracemalloc
    D, C = 6000, 200
    gen = np.random.default_rng(0)
    cls = gen.integers(0, C, D)
    single = Corpus.from_tokens([["a", "b"]] * D, labels=[f"c{c:03d}" for c in cls])
    multi = Corpus.from_tokens([["a", "b"]] * D,
                               labels=[[f"c{c:03d}", f"c{(c + 1) % C:03d}"] for c in cls])
    dense = 8 * D * (C + 1)
    for corpus, per_doc in ((single, 1), (multi, 3)):
        model = DMR(K=2)
        tracemalloc.start()
        d = model.design(corpus)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < dense / 4, (peak, dense)
        assert d.row_ptr[-1] == per_doc * D and len(d.names) == C + (per_doc == 3)
        X = np.zeros((D, len(d.names)))
        X[np.repeat(np.arange(D), np.diff(d.row_ptr)), d.row_col] = d.row_val
        r, c = np.nonzero(X)
        np.testing.assert_array_equal(d.row_col, c)   # by document, then feature
        order = np.lexsort((r, c))
        np.testing.assert_array_equal(d.col_doc, r[order])
        np.testing.assert_array_equal(d.col_val, X[r[order], c[order]])


def test_bad_settings_and_corpora_are_refused_by_name():
    plain = Corpus.from_tokens([["a", "b"], ["b", "c"]])
    with pytest.raises(ValueError, match="sigma"):
        DMR(K=2, sigma=0.0)
    with pytest.raises(ValueError, match="prevalence"):
        DMR(K=2, prevalence="topics")
    with pytest.raises(ValueError, match="cannot learn its Dirichlet parameters"):
        DMR(K=2, optimize="alpha")
    with pytest.raises(ValueError, match="no class labels"):
        Session(DMR(K=2, prevalence="classes"), plain)
    with pytest.raises(ValueError, match="no covariates"):
        Session(DMR(K=2, prevalence="covariates"), plain)
    s = Session(DMR(K=2), plain, seed=0)   # neither: an intercept, LDA with alpha sampled
    assert s.state.prior.design.names == ("intercept",)


def test_a_chain_resumes_bit_for_bit_and_refuses_a_forged_lambda(tmp_path):
    corpus = labelled()
    s = Session(DMR(K=2), corpus, seed=4)
    s.run(5)
    s.save(tmp_path / "c.tsup")
    r = Session.load(tmp_path / "c.tsup")
    s.run(5)
    r.run(5)
    np.testing.assert_array_equal(s.state.z, r.state.z)
    np.testing.assert_array_equal(s.state.prior.lam, r.state.prior.lam)
    np.testing.assert_array_equal(s.state.prior.alpha, r.state.prior.alpha)
    chain = ~s.history["metric"].str.startswith(("seconds", "tokens_per"))
    assert s.history[chain]["value"].equals(r.history[chain]["value"])
    from ..test_checkpoint import _rewritten
    good = s.save(tmp_path / "good.npz")
    for bad, match in ((np.nan, "finite"), (40.0, "outside")):
        lam = s.state.prior.lam.copy()
        lam[0, 0] = bad
        path = _rewritten(good, tmp_path / f"forged{bad}.npz", **{"state/dmr_lambda": lam})
        with pytest.raises(ValueError, match=f"dmr_lambda.*{match}"):
            Session.load(path)


def test_lambda_learns_the_classes_preference_and_the_log_joint_is_finite():
    # the classes prefer opposite topics: their alpha's log ratios have opposite signs
    s = Session(DMR(K=2, beta=0.1), labelled(n_docs=80), seed=5)
    s.run(150)
    assert_classes_lean_and_the_chain_moves(s)


def test_held_out_documents_are_folded_in_with_their_own_alpha():
    corpus = labelled()
    s = Session(DMR(K=2), corpus, seed=6)
    s.run(30)
    held = labelled(n_docs=10, seed=9)
    p = s.perplexity(held)
    assert np.isfinite(p) and 1.0 < p < corpus.n_words
    theta = s.readout(lambda fit: fit.problem.model.fold_in(
        fit.state, fit.problem, s.corpus.heldout(held), seed_state(0, 3), 10, 10))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    other = Corpus.from_tokens([["w0", "w1"]] * 2, labels=["a", "z"],
                               covariates=pd.DataFrame({"x": [0.0, 0.0]}))
    with pytest.raises(ValueError, match="classes"):
        s.perplexity(other)
    with pytest.raises(ValueError, match="no class labels"):
        s.perplexity(Corpus.from_tokens([["w0", "w1"]] * 2,
                                        covariates=pd.DataFrame({"x": [0.0, 0.0]})))


def test_prevalence_draws_read_each_documents_alpha():
    from topicsup.prevalence import PrevalenceDraws
    seen = []

    class Capture(PrevalenceDraws):
        def theta_draw(self, n_dk, alpha, rng):
            seen.append(alpha)
            return super().theta_draw(n_dk, alpha, rng)

    s = Session(DMR(K=2), labelled(), seed=7)
    draws = Capture(s)
    s.run(3, callback=draws.collect)
    assert len(seen) == 3 and seen[-1].shape == (40, 2)
    np.testing.assert_array_equal(seen[-1], s.state.prior.alpha)
    frame = draws.prevalence("class")
    assert set(frame["class"]) == {"a", "b"} and frame["mean"].between(0, 1).all()


def test_document_completion_sums_each_documents_own_alpha():
    """The completion's theta_d = (N1 zbar_d + a_d) / (N1 + sum_k a_dk): with (D, K) rows each
    document's own sum (a sum over all rows, the bug this pins, scored worse than uniform)."""
    from topicsup.kernels.fold_in import completion_split, content_labels
    from topicsup.models.lda import document_completion
    corpus = tiny_corpus([[0, 1, 0, 1], [2, 2, 2, 0]], n_words=3)
    phi = np.array([[0.5, 0.1], [0.4, 0.1], [0.1, 0.8]])
    zbar = np.array([[1.0, 0.0], [0.0, 1.0]])
    a = np.array([[0.5, 0.1], [0.2, 2.0]])
    key = seed_state(5, stream=8)
    words = np.array([0, 0, 1, 1, 0, 2, 2, 2], np.int32)   # each document by word
    seen = np.zeros(8, bool)
    completion_split(words, corpus.doc_ptr, key, content_labels(words, corpus.doc_ptr), seen)
    assert seen[:4].sum() == 2 and seen[4:].sum() == 2
    for rows in (a, a[0]):
        total = rows.sum(axis=-1, keepdims=True)
        theta = (zbar * 2 + rows) / (2 + total)
        want = sum(np.log(theta[i // 4] @ phi[words[i]]) for i in np.flatnonzero(~seen))
        ll, n = document_completion(corpus, lambda part: zbar, phi, rows, key)
        assert n == 4 and ll == pytest.approx(want, rel=1e-12)


def test_lambda_is_drawn_on_its_schedule():
    s = Session(DMR(K=2, lambda_every=3), labelled(), seed=8)
    seen = []
    s.run(7, callback=lambda sess: seen.append(sess.state.prior.lam.copy()))
    moved = [not np.array_equal(a, b) for a, b in zip(seen, seen[1:])]
    assert moved == [False, True, False, False, True, False]   # after sweeps 3 and 6
    evaluations = s.history.query("metric == 'slice_evaluations'")["sweep"].tolist()
    assert evaluations == [3, 6]
    with pytest.raises(ValueError, match="lambda_every"):
        DMR(K=2, lambda_every=0)


def test_the_document_prior_read_out_and_its_chart():
    from topicsup import LDA, views
    s = Session(DMR(K=3), labelled(), seed=9)
    s.run(5)
    frame = s.document_prior()
    lam = s.state.prior.lam
    assert list(frame["feature"].unique()) == ["class=a", "class=b", "x"]
    np.testing.assert_array_equal(frame["lam"].to_numpy(), lam.ravel())
    shift = frame["shift"].to_numpy().reshape(lam.shape)
    np.testing.assert_allclose(shift[:2].sum(axis=0), 0.0, atol=1e-12)   # classes: centred
    np.testing.assert_array_equal(shift[2], lam[2])                       # covariate: lambda
    spec = views.prior_heatmap(frame).to_dict()
    assert spec["mark"]["type"] == "rect" and "prior" in s.views
    with pytest.raises(ValueError, match="no prior that depends on the documents"):
        Session(LDA(K=2), labelled(), seed=0).document_prior()
    with pytest.raises(ValueError, match="document_prior"):
        views.prior_heatmap(frame.drop(columns="shift"))
