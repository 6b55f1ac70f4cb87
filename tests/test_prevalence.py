"""Topic prevalence with exact posterior uncertainty (``topicsup.prevalence``, issue 37).

* Known truth: data sets simulated exactly from LDA's prior on documents (theta_d ~
  Dirichlet(alpha), alpha the model's) with three well-separated topics, classes and a
  covariate drawn independently of theta. The estimands are the realized functionals of the
  true theta: each class's mean theta_d and the least-squares coefficients of theta_dk on
  [1, x]. The 90% intervals of the draws cover them at a rate consistent with 0.9 (pooled
  over every (replication, cell), with a tolerance for cells of a replication being
  correlated, and as the average of the per-replication rates with their own standard
  error); intervals from the point estimate of theta (z's variability only) under-cover
  and fail the same check.
* Every draw's class prevalences sum to 1 over topics, the intercepts to 1, the effects to 0.
* The chain is the same chain, bit for bit, with and without the draws.
* A supervised model, multi-label classes, the memory bound, bad inputs, the charts.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.stats import norm

from topicsup import HDPLDA, LDA, Session
from topicsup.corpus import Corpus, make_labels
from topicsup.models import LightMedLDA
from topicsup.prevalence import (
    PrevalenceDraws,
    along_chart,
    effect_chart,
    prevalence_chart,
    run_keeping_prevalence,
)

# ---------------------------------------------------------------------- the known truth
K, V, D, C = 3, 30, 60, 3
ALPHA, BETA = 0.5, 0.1
BLOCK, STARTS = 12, (0, 9, 18)      # each topic on its own 12 words; neighbours share 3
SEPARATION = 1.0                    # least L1 distance between two true topics (of 2)
R = 60                              # replications
BURN, KEEP = 200, 400
LEVEL = 0.9
Z = float(norm.ppf(1 - 0.001 / 2))  # two-sided 0.1% tolerance: 3.29 standard errors


def simulate(seed: int, n_docs: int = D, covariates: bool = True
             ) -> tuple[Corpus, np.ndarray, np.ndarray, np.ndarray]:
    """A corpus drawn from LDA's generative model; returns it with the true phi (K, V), the
    class means of the true theta (C, K) and its OLS coefficients on [1, x] (2, K)."""
    rng = np.random.default_rng([seed, 37])
    phi = np.zeros((K, V))
    while True:   # topics well apart (a sparse draw can put two on their shared words)
        for k, s in enumerate(STARTS):
            phi[k] = 0.0
            phi[k, s:s + BLOCK] = rng.dirichlet(np.full(BLOCK, BETA))
        apart = np.abs(phi[:, None, :] - phi[None, :, :]).sum(axis=-1)
        if (apart + 2 * np.eye(K)).min() > SEPARATION:
            break
    theta = rng.dirichlet(np.full(K, ALPHA), size=n_docs)
    lengths = rng.integers(60, 101, size=n_docs)
    words = []
    for d in range(n_docs):
        z = rng.choice(K, size=lengths[d], p=theta[d])
        words.append(np.array([rng.choice(V, p=phi[k]) for k in z], dtype=np.int32))
    cls = rng.integers(0, C, size=n_docs)
    while len(set(cls)) < C:     # every class present (independent of theta either way)
        cls = rng.integers(0, C, size=n_docs)
    x = rng.standard_normal(n_docs)
    corpus = Corpus(np.concatenate(words), np.concatenate([[0], np.cumsum(lengths)]),
                    tuple(f"w{v}" for v in range(V)),
                    labels=make_labels(np.array([f"c{c}" for c in cls]), n_docs),
                    covariates=x[:, None] if covariates else None,
                    covariate_names=("x",) if covariates else ())
    class_means = np.stack([theta[cls == c].mean(axis=0) for c in range(C)])
    coefs = np.linalg.lstsq(np.column_stack([np.ones(n_docs), x]), theta, rcond=None)[0]
    return corpus, phi, class_means, coefs


class PointEstimateDraws(PrevalenceDraws):
    """The mutant: theta at its point estimate (n_dk + alpha) / (N_d + sum alpha) at each
    kept sweep, no draw of theta given z: the intervals carry z's variability only."""

    def theta_draw(self, n_dk, alpha, rng):
        return (n_dk + alpha) / (n_dk.sum(axis=1, keepdims=True) + alpha.sum())


def _grid(frame: pd.DataFrame, row: str, rows: list[str], perm: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """lower and upper as (rows, K) arrays in the true topics' order."""
    lower, upper = np.full((len(rows), K), np.nan), np.full((len(rows), K), np.nan)
    for name, topic, lo, hi in zip(frame[row], frame["topic"], frame["lower"],
                                   frame["upper"]):
        i, k = rows.index(name), perm[topic]
        lower[i, k], upper[i, k] = lo, hi
    return lower, upper


def replicate(seed: int) -> dict[str, dict[str, np.ndarray]]:
    """One known-truth replication: which cells each recorder's 90% intervals cover."""
    corpus, phi, class_means, coefs = simulate(seed)
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=seed, log_joint_every=0)
    exact, point = PrevalenceDraws(s, burn=BURN), PointEstimateDraws(s, burn=BURN)

    def both(session):
        exact.collect(session)
        point.collect(session)

    assert s.run(BURN + KEEP, callback=both) == BURN + KEEP
    # align the fitted topics to the true ones: fitted topic j is true topic perm[j]
    cost = np.abs(s.topic_word()[:, None, :] - phi[None, :, :]).sum(axis=-1)
    rows, perm = linear_sum_assignment(cost)
    assert (rows == np.arange(K)).all()
    # identifiable: each fitted topic is near its true one and far from the others
    assert cost[rows, perm].max() < 0.4, cost
    assert (np.sort(cost, axis=1)[:, 1] > 0.6).all(), cost
    out = {}
    for name, draws in (("exact", exact), ("point", point)):
        assert draws.n_draws == KEEP
        lo, hi = _grid(draws.prevalence("class", LEVEL), "class", [f"c{c}" for c in range(C)],
                       perm)
        elo, ehi = _grid(draws.effects(LEVEL), "term", ["intercept", "x"], perm)
        out[name] = {"class": (lo <= class_means) & (class_means <= hi),
                     "effect": (elo <= coefs) & (coefs <= ehi)}
    return out


def coverage_check(hits: np.ndarray, level: float = LEVEL) -> dict[str, float | bool]:
    """Whether the covered cells (R, cells) are consistent with ``level``.

    pooled: the rate over all R x m cells within Z binomial standard errors of ``level``,
    with the replications as the independent units (the cells of a replication share its
    chain and sum to one over topics, so they are correlated: counting them as R
    independent Bernoulli trials, as if perfectly correlated, is the conservative bound).
    per replication: the mean of the R per-replication rates within Z of their empirical
    standard error (the replications are independent, so this is a valid standard error
    whatever the correlation within one)."""
    R_ = hits.shape[0]
    pooled = float(hits.mean())
    tol_indep = Z * np.sqrt(level * (1 - level) / hits.size)
    tol_pooled = Z * np.sqrt(level * (1 - level) / R_)
    rates = hits.mean(axis=1)
    se = float(rates.std(ddof=1) / np.sqrt(R_))
    tol_rep = Z * max(se, np.sqrt(level * (1 - level) / hits.size))   # never below binomial
    return {"pooled": pooled, "tol_independent": float(tol_indep), "tol_pooled": tol_pooled,
            "per_replication": float(rates.mean()), "se_replication": se,
            "pooled_ok": abs(pooled - level) <= tol_pooled,
            "replication_ok": abs(float(rates.mean()) - level) <= tol_rep}


@pytest.fixture(scope="module")
def known_truth() -> dict[str, dict[str, np.ndarray]]:
    reps = [replicate(4000 + i) for i in range(R)]
    return {name: {what: np.stack([r[name][what].reshape(-1) for r in reps])
                   for what in ("class", "effect")} for name in ("exact", "point")}


@pytest.mark.parametrize("what", ["class", "effect"])
def test_intervals_cover_the_known_truth_at_their_level(known_truth, what):
    hits = known_truth["exact"][what]
    result = coverage_check(hits)
    print(f"{what}: {hits.shape[0]} replications x {hits.shape[1]} cells: {result}")
    assert result["pooled_ok"] and result["replication_ok"], result


@pytest.mark.parametrize("what", ["class", "effect"])
def test_intervals_without_the_draw_of_theta_under_cover_and_fail(known_truth, what):
    """The mutant's intervals (z's variability alone) fail the same check, by far."""
    hits = known_truth["point"][what]
    result = coverage_check(hits)
    print(f"point estimate, {what}: {result}")
    assert not result["pooled_ok"] and not result["replication_ok"], result
    assert result["pooled"] < LEVEL - 2 * result["tol_pooled"], result


# ---------------------------------------------------------------------- data no model drew
# Class-dependent proportions from generators outside every Dirichlet model's family
# (``topicsup.testing.coverage``: logistic-normal class means; per-class Dirichlets with 15%
# of the labels wrong). LDA's prior is the same for every class and pulls the classes' shares
# together; DMR's depends on the class. Seeds apart from the benchmark's
# (benchmarks/bench_prevalence_coverage.py, which measures both over four regimes).
R_CLASSES = 60


@pytest.fixture(scope="module")
def class_dependent() -> dict[tuple[str, str], np.ndarray]:
    from topicsup import DMR, LogisticNormal
    from topicsup.testing import coverage
    makers = {"LogisticNormal": lambda: LogisticNormal(K=K, beta=BETA),
              "DMR": lambda: DMR(K=K, beta=BETA),
              "LDA": lambda: LDA(K=K, alpha=ALPHA, beta=BETA, sampler="gibbs")}
    return {(name, gen): np.stack([coverage.replicate(30_000 + r, gen, make()).ravel()
                                   for r in range(R_CLASSES)])
            for gen in coverage.GENERATORS for name, make in makers.items()}


def test_dmr_intervals_cover_class_means_with_misspecified_labels(class_dependent):
    """Per-class Dirichlet proportions, 15% of the labels wrong: DMR's 90% intervals of the
    labelled classes' mean theta cover at least 0.88 and are consistent with 0.9; the old
    recipe's (LDA) cover less (0.84 over the benchmark's 200 replications, 0.87 here)."""
    dmr = coverage_check(class_dependent["DMR", "flipped"])
    lda = coverage_check(class_dependent["LDA", "flipped"])
    print(f"flipped labels: DMR {dmr}; LDA {lda}")
    assert dmr["pooled"] >= 0.88 and dmr["pooled_ok"] and dmr["replication_ok"], dmr
    assert lda["pooled"] < dmr["pooled"], (dmr, lda)


def test_dmr_intervals_on_logistic_normal_proportions(class_dependent):
    """Logistic-normal proportions, outside the Dirichlet family: DMR's intervals under-cover
    (0.84 here, 0.85 in the benchmark: the gap docs/prevalence.md states) but by less than
    LDA's, which fail the coverage check (0.80 here, 0.82 in the benchmark)."""
    dmr = coverage_check(class_dependent["DMR", "logistic"])
    lda = coverage_check(class_dependent["LDA", "logistic"])
    print(f"logistic normal: DMR {dmr}; LDA {lda}")
    assert dmr["pooled"] >= 0.82 and not lda["replication_ok"], (dmr, lda)
    assert dmr["pooled"] > lda["pooled"], (dmr, lda)


@pytest.mark.parametrize("generator", ["logistic", "flipped"])
def test_logistic_normal_intervals_cover_class_means_on_both_generators(class_dependent,
                                                                      generator):
    """The recipe: LogisticNormal's 90% intervals of the classes' mean theta cover at least
    0.88 and are consistent with 0.9 on logistic-normal proportions and on per-class
    Dirichlets with 15% of the labels wrong (0.896 and 0.898 in the benchmark); on the
    logistic normal, more than DMR's."""
    ln = coverage_check(class_dependent["LogisticNormal", generator])
    dmr = coverage_check(class_dependent["DMR", generator])
    print(f"{generator}: LogisticNormal {ln}; DMR {dmr}")
    assert ln["pooled"] >= 0.88 and ln["pooled_ok"] and ln["replication_ok"], ln
    if generator == "logistic":
        assert ln["pooled"] > dmr["pooled"], (ln, dmr)


# ---------------------------------------------------------------------- sums, chain, bounds
@pytest.fixture(scope="module")
def small() -> tuple[Session, PrevalenceDraws]:
    corpus = simulate(11)[0]
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=3)
    draws = run_keeping_prevalence(s, 60, burn=10)
    return s, draws


def test_every_draw_sums_to_one_over_topics(small):
    """Topic proportions sum to one: every draw's class prevalences and corpus mean sum to 1
    over topics, its intercepts to 1 and its covariate effects to 0."""
    _, draws = small
    assert draws.n_draws == 50
    np.testing.assert_allclose(draws.class_draws.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(draws.overall_draws.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    eff = draws.effect_draws
    assert eff.shape == (50, 2, K)
    np.testing.assert_allclose(eff[:, 0].sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(eff[:, 1].sum(axis=-1), 0.0, rtol=0, atol=1e-12)
    assert np.abs(eff[:, 1]).max() > 1e-3   # the effects themselves are not all zero
    # and so do the read-outs' means
    p = draws.prevalence()
    np.testing.assert_allclose(p.groupby("class")["mean"].sum(), 1.0, atol=1e-12)
    e = draws.effects()
    np.testing.assert_allclose(e.groupby("term")["mean"].sum()[["intercept", "x"]], [1, 0],
                               atol=1e-12)


def test_read_outs_are_tidy(small):
    s, draws = small
    p = draws.prevalence(by="class", interval=0.8)
    assert list(p.columns) == ["class", "topic", "label", "mean", "lower", "upper", "n_draws",
                               "n_docs"]
    assert len(p) == C * K and list(pd.unique(p["class"])) == ["c0", "c1", "c2"]
    assert (p["lower"] <= p["mean"]).all() and (p["mean"] <= p["upper"]).all()
    assert (p["n_draws"] == 50).all() and p.groupby("class")["n_docs"].first().sum() == D
    assert list(p["label"][:K]) == s.topic_labels()
    wide = draws.prevalence(interval=0.95)
    assert ((wide["upper"] - wide["lower"]) >= (p["upper"] - p["lower"]) - 1e-12).all()
    overall = draws.prevalence(by="corpus")
    assert len(overall) == K and set(overall["class"]) == {"all documents"}
    assert (overall["n_docs"] == D).all()
    e = draws.effects()
    assert list(e.columns) == ["term", "topic", "label", "mean", "lower", "upper", "n_draws"]
    assert list(pd.unique(e["term"])) == ["intercept", "x"] and len(e) == 2 * K


def test_the_chain_is_the_same_with_and_without_the_draws():
    corpus = simulate(12)[0]
    plain = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=5)
    kept = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=5)
    plain.run(30)
    draws = run_keeping_prevalence(kept, 30, burn=0)
    assert draws.n_draws == 30
    np.testing.assert_array_equal(plain.state.z, kept.state.z)
    np.testing.assert_array_equal(plain.rng, kept.rng)
    np.testing.assert_array_equal(plain.state.counts.n_dk, kept.state.counts.n_dk)


def test_burn_every_the_bound_and_reproducible_draws():
    corpus = simulate(13)[0]
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=7)
    s.run(2)                                     # counted from the recorder's start
    thinned = PrevalenceDraws(s, burn=3, every=2)
    bounded = PrevalenceDraws(s, max_draws=4)
    every = PrevalenceDraws(s)

    def all_three(session):
        for d in (thinned, bounded, every):
            d.collect(session)
        every.collect(session)                   # a sweep is kept once

    s.run(10, callback=all_three)
    assert list(thinned.sweeps) == [7, 9, 11]
    assert list(bounded.sweeps) == [9, 10, 11, 12] and bounded.n_dropped == 6
    assert list(every.sweeps) == list(range(3, 13))
    # a sweep's draw is the same whichever recorder made it (its own stream: seed, sweep)
    np.testing.assert_array_equal(thinned.class_draws[0], every.class_draws[4])
    np.testing.assert_array_equal(bounded.effect_draws[-1], every.effect_draws[-1])
    assert bounded.bytes_per_draw == 8 * (C + 1 + 2) * K


def test_a_sweep_stopped_part_way_is_not_drawn_from():
    corpus = simulate(17)[0]
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA), corpus, seed=4, block_tokens=500)
    assert s.n_blocks > 2
    orig, count = s._run_block, [0]

    def run_block():       # stop in the second sweep (as tests/test_session.py does)
        orig()
        count[0] += 1
        if count[0] == s.n_blocks + 1:
            s.request_stop()

    s._run_block = run_block
    draws = PrevalenceDraws(s)
    assert s.run(3, callback=draws.collect) == 1 and s.in_sweep
    assert list(draws.sweeps) == [1]
    with pytest.raises(ValueError, match="part-way"):
        draws.collect()
    s.run(1, callback=draws.collect)             # finishes sweep 2, then draws from it
    assert list(draws.sweeps) == [1, 2]


class _Capture(PrevalenceDraws):
    """Keeps each theta drawn, to check the functionals against plain numpy."""

    def theta_draw(self, n_dk, alpha, rng):
        theta = super().theta_draw(n_dk, alpha, rng)
        self.thetas = [*getattr(self, "thetas", []), theta]
        return theta


def test_functionals_are_the_class_means_and_least_squares_of_the_draw():
    corpus, *_ = simulate(14)
    rng = np.random.default_rng(0)
    member = rng.random((D, C)) < 0.4
    member[:, 2] = False                         # a class without documents is left out
    member[0, 0] = True
    cov = rng.standard_normal((D, 2))
    multi = Corpus(corpus.words, corpus.doc_ptr, corpus.vocabulary,
                   labels=make_labels(member.astype(np.uint8), D, kind="multilabel",
                                      classes=["a", "b", "c"]),
                   covariates=cov, covariate_names=("u", "v"))
    s = Session(LDA(K=K, alpha=ALPHA, beta=BETA), multi, seed=1)
    draws = _Capture(s)
    s.run(3, callback=draws.collect)
    assert draws.classes == ("a", "b") and draws.n_draws == 3
    theta = draws.thetas[-1]
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    want = np.stack([theta[member[:, c]].mean(axis=0) for c in range(2)])
    np.testing.assert_allclose(draws.class_draws[-1], want, atol=1e-12)
    X = np.column_stack([np.ones(D), cov])
    np.testing.assert_allclose(draws.effect_draws[-1],
                               np.linalg.lstsq(X, theta, rcond=None)[0], atol=1e-10)
    e = draws.effects()
    assert list(pd.unique(e["term"])) == ["intercept", "u", "v"]


def test_a_supervised_model_on_a_labelled_corpus():
    corpus = simulate(15, covariates=False)[0]
    s = Session(LightMedLDA(K=K, lam=4.0), corpus, seed=2)
    draws = run_keeping_prevalence(s, 20, burn=5)
    p = draws.prevalence()
    assert len(p) == C * K and draws.n_draws == 15
    assert np.isfinite(p[["mean", "lower", "upper"]].to_numpy()).all()
    np.testing.assert_allclose(draws.class_draws.sum(axis=-1), 1.0, atol=1e-12)
    # LightMedLDA's alpha (6.4 / K by default) is the one drawn with
    np.testing.assert_allclose(draws.alpha, s.problem.alpha)
    with pytest.raises(ValueError, match="covariates"):
        draws.effects()


# ---------------------------------------------------------------------- bad inputs
def test_bad_inputs_are_refused_naming_the_argument(small):
    s, draws = small
    with pytest.raises(ValueError, match="by"):
        draws.prevalence(by="topic")
    with pytest.raises(TypeError, match="by"):
        draws.prevalence(by=1)
    for bad in (0.0, 1.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="interval"):
            draws.prevalence(interval=bad)
        with pytest.raises(ValueError, match="interval"):
            draws.effects(interval=bad)
    with pytest.raises(TypeError, match="interval"):
        draws.prevalence(interval="0.9")
    with pytest.raises(ValueError, match="no draws"):
        PrevalenceDraws(s).prevalence()
    with pytest.raises(ValueError, match="no draws"):
        PrevalenceDraws(s).effects()
    for name, kwargs in (("burn", {"burn": -1}), ("every", {"every": 0}),
                         ("max_draws", {"max_draws": 0})):
        with pytest.raises(ValueError, match=name):
            PrevalenceDraws(s, **kwargs)
    with pytest.raises(TypeError, match="burn"):
        PrevalenceDraws(s, burn=1.5)
    with pytest.raises(TypeError, match="session"):
        PrevalenceDraws("a session")
    with pytest.raises(TypeError, match="session"):
        PrevalenceDraws(Session)
    other = Session(LDA(K=K, alpha=ALPHA, beta=BETA), s.corpus, seed=9)
    with pytest.raises(ValueError, match="session"):
        draws.collect(other)
    hdp = Session(HDPLDA(K=8), s.corpus, seed=0)
    with pytest.raises(ValueError, match="session.*HDP"):
        PrevalenceDraws(hdp)
    bare = Corpus(s.corpus.words, s.corpus.doc_ptr, s.corpus.vocabulary)
    plain = run_keeping_prevalence(Session(LDA(K=K, alpha=ALPHA, beta=BETA), bare, seed=0), 2)
    with pytest.raises(ValueError, match="by='class'"):
        plain.prevalence(by="class")
    assert len(plain.prevalence(by="corpus")) == K
    with pytest.raises(ValueError, match="covariates"):
        plain.effects()
    with pytest.raises(ValueError, match="covariates"):
        _ = plain.effect_draws
    # a constant covariate: the effects are not identified
    flat = Corpus(s.corpus.words, s.corpus.doc_ptr, s.corpus.vocabulary,
                  covariates=np.ones((D, 1)))
    collinear = run_keeping_prevalence(Session(LDA(K=K, alpha=ALPHA, beta=BETA), flat, seed=0),
                                       2)
    with pytest.raises(ValueError, match="rank deficient"):
        collinear.effects()


def test_an_importance_sampler_is_refused():
    corpus = simulate(16, covariates=False)[0]
    s = Session(LDA(K=K, sampler="importance"), corpus, seed=0)
    with pytest.raises(ValueError, match="importance"):
        PrevalenceDraws(s)


# ---------------------------------------------------------------------- charts
def _spec(chart) -> dict:
    spec = chart.to_dict()
    json.dumps(spec, allow_nan=False)   # no NaN or inf anywhere
    return spec


def test_prevalence_chart(small):
    _, draws = small
    frame = draws.prevalence()
    spec = _spec(prevalence_chart(frame, top=2))
    assert spec["columns"] == 2 and spec["spec"]["width"] == 180
    assert 3 * (spec["spec"]["width"] + 180) <= 1280   # three panels with their labels
    rows = spec["datasets"][next(iter(spec["datasets"]))]
    assert len(rows) == C * 2                          # the top 2 topics of each class
    one = _spec(prevalence_chart(draws.prevalence(by="corpus")))
    assert "facet" not in one and one["width"] == 180
    broken = frame.copy()
    broken.loc[0, "upper"] = np.nan                    # a non-finite row is left out
    rows = _spec(prevalence_chart(broken))["datasets"]
    assert all(r["upper"] is not None for v in rows.values() for r in v)
    with pytest.raises(ValueError, match="frame"):
        prevalence_chart(draws.effects())
    with pytest.raises(TypeError, match="frame"):
        prevalence_chart(frame.to_dict())
    with pytest.raises(ValueError, match="top"):
        prevalence_chart(frame, top=0)


def test_effect_chart(small):
    _, draws = small
    frame = draws.effects()
    spec = _spec(effect_chart(frame, "x"))
    assert spec["width"] <= 1280 - 220
    rows = spec["datasets"][next(iter(spec["datasets"]))]
    assert len(rows) == K and {r["term"] for r in rows} == {"x"}
    with pytest.raises(ValueError, match="term"):
        effect_chart(frame, "y")
    with pytest.raises(ValueError, match="frame"):
        effect_chart(draws.prevalence(), "x")


def test_prevalence_along_a_covariate_is_the_regression_per_draw(small):
    """Each draw's curve is its regression at x with the other covariates at their mean; the
    band is the draws' interval at each x; the curves of all topics sum to 1 at every x."""
    s, draws = small
    name = draws.terms[1]
    frame = draws.along(name, points=5)
    b = draws.effect_draws                                # (S, P + 1, K)
    cov = s.corpus.covariates
    j = draws.terms.index(name) - 1
    xs = np.linspace(cov[:, j].min(), cov[:, j].max(), 5)
    for k in (0, 1):
        mine = frame[frame["topic"] == k]
        design = np.tile(np.concatenate([[1.0], cov.mean(axis=0)]), (5, 1))
        design[:, j + 1] = xs
        per_draw = np.einsum("gp,sp->sg", design, b[:, :, k])   # (S, G)
        np.testing.assert_allclose(mine["x"], xs)
        np.testing.assert_allclose(mine["mean"], per_draw.mean(axis=0), atol=1e-12)
        np.testing.assert_allclose(mine["lower"], np.minimum(
            np.quantile(per_draw, 0.05, axis=0), per_draw.mean(axis=0)), atol=1e-12)
    total = frame.groupby("x")["mean"].sum()
    np.testing.assert_allclose(total, 1.0, atol=1e-9)
    spec = _spec(along_chart(draws.along(name, topics=[0, 2])))
    assert spec["facet"]["field"] == "label" and spec["columns"] == 3
    with pytest.raises(ValueError, match="covariate must be one of"):
        draws.along("nope")
    with pytest.raises(ValueError, match="points"):
        draws.along(name, points=1)
