"""Property-based tests (hypothesis) over random small corpora and parameters.

Proven, for every topic sampler (Gibbs, AliasLDA, light with exact or stale word
proposals) and every supervised preset on every label kind, with empty documents among the
others, on tiny corpora (up to 6 documents of 8 tokens, K = 2 to 5, 1 to 3 MH steps) with
alpha, beta, lam and nu at typical values and at the ends of their documented ranges:

* no crash and no non-finite number: every history value is finite (acceptance rates in
  [0, 1] or NaN for a kind that made no proposal), and so are the weights and the scores;
* the count invariants hold after every run: the counts equal a recount from ``z``, are
  non-negative and have the right margins, and every topic is in 0..K-1;
* the same seed gives the same chain, and a checkpoint taken after the first sweep, loaded
  and continued, gives the uninterrupted chain bit for bit;
* a corpus built from a count matrix gives the matrix back, and labels their names.

And at scale (``test_the_range_bounds_at_scale``): 300 documents of about 60 tokens, K = 50,
every sampler and preset with alpha and beta, and lam and nu, at each combination of their
bounds, sample three sweeps with finite numbers and consistent counts.

CI runs a fixed set of examples (300 problems); ``HYPOTHESIS_PROFILE=explore
TOPICSUP_PROPERTY_EXAMPLES=5000`` draws fresh ones, as many as asked (``tests/conftest.py``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed "
                                 "(pip install -e '.[test]')")
from hypothesis import given, settings, strategies as st  # noqa: E402

from topicsup import Corpus  # noqa: E402
from topicsup.models import (DIRICHLET_RANGE, LAM_RANGE, LDA, NU_RANGE,  # noqa: E402
                             LightMedLDA, MedLDA)
from topicsup.session import Session  # noqa: E402

WORDS = [f"w{j}" for j in range(6)]


def examples(n: int) -> int:
    return int(os.environ.get("TOPICSUP_PROPERTY_EXAMPLES", n))

# a document: 0-8 tokens over a 6-word vocabulary; a corpus: 1-6 documents, some tokens
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=8), min_size=1,
                     max_size=6).filter(lambda docs: any(docs))
dirichlet = st.sampled_from([DIRICHLET_RANGE[0], 0.01, 0.5, DIRICHLET_RANGE[1]])
SAMPLERS = {"gibbs": {}, "alias": {"sampler": "alias"}, "light": {"sampler": "light"},
            "light-stale": {"sampler": "light", "word_proposal": "stale",
                            "composition": "mixture"},
            "sparse_gibbs": {"sampler": "sparse_gibbs"}}


def _labels(kind, n, draw):
    if kind == "binary":
        return draw(st.lists(st.sampled_from(["no", "yes"]), min_size=n, max_size=n)
                    .filter(lambda y: len(set(y)) == 2))
    if kind == "multiclass":
        return draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)
                    .filter(lambda y: len(set(y)) == 3))
    return [set(x) for x in draw(st.lists(st.sets(st.sampled_from(["p", "q"])), min_size=n,
                                          max_size=n).filter(lambda y: set().union(*y)))]


@st.composite
def problems(draw):
    """A corpus, a model on it and a seed."""
    docs = draw(documents)
    supervised = draw(st.booleans())
    common = dict(K=draw(st.integers(2, 5)), alpha=draw(dirichlet), beta=draw(dirichlet))
    if not supervised:
        sampler = draw(st.sampled_from(sorted(SAMPLERS)))
        exact = sampler in ("gibbs", "sparse_gibbs")
        mh = {} if exact else {"mh_steps": draw(st.integers(1, 3))}
        model = LDA(**mh, **common, **SAMPLERS[sampler])
        corpus = Corpus.from_tokens(docs, vocabulary=WORDS, empty="keep")
    else:
        if len(docs) < 3:
            docs = docs + [["w0", "w1"]] * (3 - len(docs))
        kind = draw(st.sampled_from(["binary", "multiclass", "multilabel"]))
        labels = _labels(kind, len(docs), draw)
        corpus = Corpus.from_tokens(docs, labels, vocabulary=WORDS, empty="keep",
                                    label_type=kind)
        preset = draw(st.sampled_from(["MedLDA", "LightMedLDA", "as_published"]))
        build = {"MedLDA": MedLDA, "LightMedLDA": LightMedLDA,
                 "as_published": LightMedLDA.as_published}[preset]
        light = {} if preset == "MedLDA" else {"weight_shift": draw(st.booleans()),
                                               "mh_steps": draw(st.integers(1, 3))}
        model = build(lam=draw(st.sampled_from([LAM_RANGE[0], 4.0, 102.4, LAM_RANGE[1]])),
                      nu=draw(st.sampled_from([NU_RANGE[0], 1.0, NU_RANGE[1]])),
                      **light, **common)
    return corpus, model, draw(st.integers(0, 2**32))


def _check_counts(s: Session) -> None:
    st_, model, corpus = s.state, s.model, s.corpus
    z = st_.z
    assert z.size == corpus.n_tokens and (z.size == 0 or (z.min() >= 0 and z.max() < model.K))
    ref = model.allocate_state(s.problem)
    ref.z[:] = z
    model.refresh_state(ref, s.problem)
    for k in ("n_dk", "n_wk", "n_k"):
        assert np.array_equal(getattr(st_.counts, k), getattr(ref.counts, k)), k
        assert getattr(st_.counts, k).min(initial=0) >= 0
    assert st_.counts.n_k.sum() == corpus.n_tokens
    assert np.array_equal(st_.counts.n_wk.sum(0), st_.counts.n_k)
    if st_.counts.n_dk.shape[0]:
        assert np.array_equal(st_.counts.n_dk.sum(1), corpus.doc_lengths)


def _check_finite(s: Session) -> None:
    h = s.history
    for metric in ("acceptance_rate", "mean_acceptance_probability"):
        assert h[h["metric"] == metric]["value"].dropna().between(0, 1).all(), metric
    assert not np.isinf(h["value"]).any()   # NaN only where a kind made no proposal, or
    other = h[~h["metric"].isin(["acceptance_rate", "mean_acceptance_probability",
                                 "tokens_per_second"])]   # a sweep too short to time
    assert np.isfinite(other["value"]).all(), other[~np.isfinite(other["value"])]
    for k, a in s.state.arrays().items():
        if a.dtype.kind == "f":
            assert np.isfinite(a).all(), k


@settings(max_examples=examples(300))
@given(problems())
def test_any_corpus_and_settings_sample_soundly(tmp_path_factory, problem):
    corpus, model, seed = problem
    a = Session(model, corpus, seed=seed, block_tokens=7)
    a.run(1)
    _check_counts(a)
    path = a.save(tmp_path_factory.mktemp("ck") / "a.npz")
    a.run(2)
    _check_counts(a)
    _check_finite(a)
    b = Session(model, corpus, seed=seed, block_tokens=7)
    b.run(3)
    resumed = Session.load(path)
    resumed.run(2)
    for other in (b, resumed):
        assert np.array_equal(a.state.z, other.state.z)
        assert np.array_equal(a.rng, other.rng)
        if a.state.supervision is not None:
            assert np.array_equal(a.state.supervision.weights.eta,
                                  other.state.supervision.weights.eta)


@settings(max_examples=examples(60))
@given(st.lists(st.lists(st.integers(0, 5), min_size=4, max_size=4), min_size=1,
                max_size=6).filter(lambda rows: any(map(any, rows))))
def test_a_count_matrix_round_trips(rows):
    X = np.array(rows)
    c = Corpus.from_matrix(X, ["a", "b", "c", "d"], empty="keep")
    assert np.array_equal(c.to_matrix().toarray(), X)
    assert c.n_tokens == X.sum() and np.array_equal(c.doc_lengths, X.sum(1))


@settings(max_examples=examples(60))
@given(st.lists(st.sampled_from(["x", "y", "z"]), min_size=2, max_size=12)
       .filter(lambda y: len(set(y)) >= 2))
def test_labels_round_trip_to_their_names(names):
    c = Corpus.from_tokens([["a"]] * len(names), labels=names)
    assert list(c.labels.names()) == names
    assert c.labels.kind == ("binary" if len(set(names)) == 2 else "multiclass")


@settings(max_examples=examples(200))
@given(st.lists(st.integers(0, 4), min_size=1, max_size=40), st.integers(1, 45))
def test_top_words_are_a_stable_sort_prefix(counts, n):
    """Session.topics' top words (O(V) per topic) are exactly the first n of a stable sort
    of the counts, descending, ties by word id."""
    from topicsup.metrics import top_indices
    c = np.array(counts, dtype=np.int32)
    assert np.array_equal(top_indices(c, n), np.argsort(-c, kind="stable")[:n])


LOW_HIGH = [(a, b) for a in DIRICHLET_RANGE for b in DIRICHLET_RANGE]


@pytest.fixture(scope="module")
def scale_corpus():
    from topicsup.datasets import make_synthetic
    return make_synthetic(n_docs=300, n_topics=6, doc_length=60, task="multiclass",
                          n_classes=3, seed=9).corpus


@pytest.mark.parametrize("ab", LOW_HIGH, ids=[f"alpha{a:g}-beta{b:g}" for a, b in LOW_HIGH])
@pytest.mark.parametrize("make", [
    lambda a, b, lam, nu: LDA(K=50, alpha=a, beta=b),
    lambda a, b, lam, nu: LDA(K=50, alpha=a, beta=b, sampler="alias"),
    lambda a, b, lam, nu: LDA(K=50, alpha=a, beta=b, sampler="light", word_proposal="stale",
                              composition="mixture"),
    lambda a, b, lam, nu: MedLDA(K=50, alpha=a, beta=b, lam=lam, nu=nu),
    lambda a, b, lam, nu: LightMedLDA(K=50, alpha=a, beta=b, lam=lam, nu=nu,
                                      weight_shift=True),
    lambda a, b, lam, nu: LightMedLDA.as_published(K=50, alpha=a, beta=b, lam=lam, nu=nu)],
    ids=["gibbs", "alias", "light-stale", "MedLDA", "LightMedLDA", "as_published"])
def test_the_range_bounds_at_scale(scale_corpus, make, ab):
    for lam, nu in [(LAM_RANGE[0], NU_RANGE[1]), (LAM_RANGE[1], NU_RANGE[0])]:
        s = Session(make(*ab, lam, nu), scale_corpus, seed=1)
        s.run(3)
        _check_counts(s)
        _check_finite(s)
        if s.state.supervision is None:
            break
