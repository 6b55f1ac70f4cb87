"""The weight read-outs show what they say: mean and interval of the same draws, the identified
quantity by default, and its intervals calibrated against known weights."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from topicsup import Corpus
from topicsup.datasets import make_synthetic
from topicsup.models import DOLDA, LightMedLDA
from topicsup.session import Session
from topicsup.summaries import coefficient_table, identified

KINDS = ["topic"] * 4 + ["intercept", "covariate"]


def test_identified_weights_give_every_score_the_raw_ones_give():
    """Centring a class's topic weights and moving their mean into the intercept changes no
    score of any document (its topic proportions sum to one): the same classifier."""
    rs = np.random.default_rng(0)
    draws = rs.normal(size=(7, 3, 6))
    zbar = rs.dirichlet(np.ones(4), size=20)
    X = np.hstack([zbar, np.ones((20, 1)), rs.normal(size=(20, 1))])
    new = identified(draws, KINDS)
    np.testing.assert_allclose(new @ X.T, draws @ X.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(new[..., :4].sum(axis=-1), 0.0, atol=1e-12)
    assert (new[..., 5] == draws[..., 5]).all()           # covariates as they are
    # without an intercept the topic weights' level is the bias the data see: unchanged
    no_intercept = ["topic"] * 4 + ["covariate"] * 2
    assert (identified(draws, no_intercept) == draws).all()


def test_mean_and_interval_come_from_the_same_draws():
    rs = np.random.default_rng(1)
    draws = rs.normal(size=(50, 2, 6))
    for scale in ("identified", "raw"):
        t = coefficient_table(draws, ["a", "b"], list("uvwxyz"), KINDS, 0.9, scale)
        x = identified(draws, KINDS) if scale == "identified" else draws
        np.testing.assert_allclose(t["mean"], x.mean(axis=0).reshape(-1), rtol=1e-12)
        np.testing.assert_allclose(t["lower"], np.quantile(x, 0.05, axis=0).reshape(-1))
        assert (t["lower"] <= t["mean"]).all() and (t["mean"] <= t["upper"]).all()
        assert (t["scale"] == scale).all() and (t["n_samples"] == 50).all()
    # nearly equal draws: an interpolated quantile may not leave the mean outside
    flat = np.full((9, 1, 6), 1.247) + np.arange(9)[:, None, None] * 1e-16
    t = coefficient_table(flat, ["a"], list("uvwxyz"), KINDS, 0.5, "raw")
    assert (t["lower"] <= t["mean"]).all() and (t["mean"] <= t["upper"]).all()


def test_session_coefficients_mean_lies_in_its_interval_and_scale_is_checked():
    """The case of the issue: a LightMedLDA, whose running average (prediction's) and kept
    draws could disagree; now the table's mean is the kept draws' mean."""
    corpus = make_synthetic(n_docs=80, n_topics=4, doc_length=30, task="multiclass",
                            seed=2).corpus
    s = Session(LightMedLDA(K=4, burn_in=3), corpus, seed=0)
    s.run(12)
    for scale in ("identified", "raw"):
        t = s.coefficients(0.9, scale=scale)
        assert ((t["lower"] <= t["mean"]) & (t["mean"] <= t["upper"])).all()
        assert (t["n_samples"] == 9).all()
        kept = s.trace("eta")[3:].astype(np.float64)
        np.testing.assert_allclose(t["mean"], kept.mean(axis=0).reshape(-1), rtol=1e-12)
    assert list(s.signal_topics(scale="raw")["mean"]) != []
    with pytest.raises(ValueError, match="scale"):
        s.coefficients(scale="centred")


# ------------------------------------------------------------------ coverage of known weights
K, C, WORDS_PER_TOPIC, D, LENGTH = 4, 3, 25, 500, 40
# known weights, not drawn from the prior: each class rests on one or two topics, and every
# topic weight sits LEVEL above the sparse pattern the horseshoe favours (the intercept LEVEL
# below), a level only the prior could place, so the raw intervals have no reason to cover it
LEVEL = 1.0
ETA = np.array([[2.0, -1.0, 0.0, 0.0], [0.0, 2.0, -1.5, 0.0], [-1.0, 0.0, 0.0, 2.5]]) + LEVEL
INTERCEPT = np.array([-0.5, -0.7, -0.6]) - LEVEL


def _corpus(seed: int) -> tuple[Corpus, np.ndarray]:
    """Documents from LDA with K topics on disjoint words, each class's label from DOLDA's
    likelihood (independent probits per class: y_dl = [a_dl > 0], a_dl ~ N(s_dl, 1) with
    s_dl = eta_l . zbar_d + b_l, zbar_d the document's topic proportions)."""
    rs = np.random.default_rng(seed)
    V = K * WORDS_PER_TOPIC
    phi = np.zeros((K, V))
    for k in range(K):
        phi[k, k * WORDS_PER_TOPIC:(k + 1) * WORDS_PER_TOPIC] = rs.dirichlet(
            np.ones(WORDS_PER_TOPIC))
    phi = 0.97 * phi + 0.03 / V
    docs, labels = [], []
    for _ in range(D):
        z = rs.choice(K, size=LENGTH, p=rs.dirichlet(np.full(K, 0.5)))
        docs.append([f"w{rs.choice(V, p=phi[k])}" for k in z])
        s = ETA @ (np.bincount(z, minlength=K) / LENGTH) + INTERCEPT
        labels.append((rs.normal(s, 1.0) > 0).astype(np.uint8))
    corpus = Corpus.from_tokens(docs, np.array(labels), label_type="multilabel",
                                classes=tuple(f"c{c}" for c in range(C)))
    return corpus, phi


def _hits(seed: int) -> dict[str, list[bool]]:
    """Whether each 90% interval of the fitted DOLDA covers the known value, per scale."""
    corpus, phi = _corpus(seed)
    s = Session(DOLDA(K=K, alpha=0.5, beta=0.1, sampler="gibbs", burn_in=100), corpus,
                seed=seed)
    s.run(400)
    # the fitted topics matched to the true ones by their word distributions
    true = phi[:, [int(w[1:]) for w in corpus.vocabulary]]
    fitted = s.topic_word()
    fitted = fitted if fitted.shape[0] == K else fitted.T
    rows, cols = linear_sum_assignment(-(np.sqrt(fitted) @ np.sqrt(true).T))
    fitted_of = dict(zip(cols, rows))                  # true topic -> fitted topic
    out: dict[str, list[bool]] = {}
    for scale in ("identified", "raw"):
        table = s.coefficients(0.9, scale=scale)
        hits = []
        for c in range(C):
            eta, b = ETA[c], INTERCEPT[c]
            if scale == "identified":
                eta, b = eta - eta.mean(), b + eta.mean()
            rows_c = table[table["task"] == f"c{c}"].set_index("index")
            for j in range(K):
                r = rows_c.loc[fitted_of[j]]
                hits.append(bool(r["lower"] <= eta[j] <= r["upper"]))
            r = rows_c.loc[K]
            hits.append(bool(r["lower"] <= b <= r["upper"]))
        out[scale] = hits
    return out


def test_identified_intervals_cover_known_weights():
    """Eight data sets with known weights, DOLDA fitted to each (400 sweeps, 300 kept): the
    identified 90% intervals of the 15 weights per fit cover the known values 83% of the time
    (100 of 120; the nominal 90% less the topics' own estimation), the raw ones 44% (53 of
    120): their level is the prior's, not the data's. Measured values, the chain being the same
    on every machine; the bounds below leave room for a change of sampler."""
    hits = {"identified": [], "raw": []}
    for seed in range(8):
        for scale, h in _hits(seed).items():
            hits[scale] += h
    identified_cover = np.mean(hits["identified"])
    raw_cover = np.mean(hits["raw"])
    assert identified_cover >= 0.75, identified_cover
    assert raw_cover <= 0.65, raw_cover


def test_topic_sizes_and_their_view():
    """Each topic's token share and the documents it leads, from the state: the shares sum to
    one, the leads to the non-empty documents, and both agree with doc_topics and the counts;
    the view draws them (offline report too) with nothing non-finite."""
    import json

    from topicsup.models import LDA
    from topicsup.report import session_views
    from topicsup.summaries import topic_sizes
    from topicsup.view_table import VIEWS, applicable

    corpus = make_synthetic(n_docs=60, n_topics=4, doc_length=20, seed=4).corpus
    s = Session(LDA(K=4), corpus, seed=1)
    s.run(5)
    sizes = s.readout(topic_sizes)
    n_k = np.bincount(s.state.z, minlength=4)
    np.testing.assert_allclose(sizes["share"].sort_index(), n_k / n_k.sum())
    assert list(sizes["share"]) == sorted(sizes["share"], reverse=True)
    lead = s.doc_topics(as_frame=False).argmax(axis=1)
    assert sizes["documents"].sort_index().tolist() == np.bincount(lead, minlength=4).tolist()
    assert sizes["documents"].sum() == corpus.n_docs
    assert sizes["label"].tolist() == [s.topic_labels()[k] for k in sizes.index]
    assert "sizes" in s.readout(applicable)
    chart = VIEWS["sizes"].panel(s.readout(VIEWS["sizes"].read), s.history, 300, 180)
    spec = json.dumps(chart.to_dict())
    assert "NaN" not in spec and "Infinity" not in spec
    assert "Topic sizes" in [heading for heading, _ in session_views(s)]


def test_the_heatmap_says_when_its_weights_are_centred():
    """DOLDA's identified weights (an intercept) are centred per class: the legend says so;
    raw weights, or a model without an intercept, keep the plain title."""
    from topicsup import views
    corpus = make_synthetic(n_docs=60, n_topics=3, doc_length=20, task="multiclass",
                            seed=6).corpus
    s = Session(DOLDA(K=3, sampler="gibbs"), corpus, seed=0)
    s.run(3)
    legend = str(views.coefficient_heatmap(s.coefficients()).to_dict())
    assert "centred per class" in legend
    assert "centred" not in str(views.coefficient_heatmap(s.coefficients(scale="raw")).to_dict())
