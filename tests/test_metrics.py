"""Interpretation metrics: topic coherence (gensim's u_mass, c_v, c_uci and c_npmi against gensim
itself; the document-level UMass and NPMI by hand and against a brute-force reference) and
document entropy, on bad input, and through a Session."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from gensim.corpora import Dictionary
from gensim.models import CoherenceModel

from topicsup import Corpus, metrics
from topicsup.datasets import make_synthetic
from topicsup.metrics import document_entropy, top_weight_share, top_word_ids, topic_coherence
from topicsup.models import LDA
from topicsup.session import Session

# Four documents. a and z are in every document; b, c, d, e in some. Co-occurrence
# (documents containing both): a-z 4, a-b 2, b-c 1, b-d 0, c-d 0, b-e 1, c-e 1.
HAND_DOCS = [["a", "z", "b"],
             ["a", "z", "b", "c", "e"],
             ["a", "z", "c"],
             ["a", "z", "d", "d"]]       # a repeated word counts once: frequencies are binary


@pytest.fixture(scope="module")
def hand() -> Corpus:
    return Corpus.from_tokens(HAND_DOCS)


def _ids(corpus: Corpus, *topics: str) -> np.ndarray:
    index = {w: j for j, w in enumerate(corpus.vocabulary)}
    return np.array([[index[w] for w in t.split()] for t in topics], dtype=np.int64)


# ---------------------------------------------------------------------- by hand
def test_umass_by_hand(hand):
    """UMass is the mean over pairs i > j of log((D(w_i, w_j) + eps) / D(w_j)), the
    denominator the higher-ranked word's document frequency, with repeats counted once."""
    top = _ids(hand, "a z b", "b c d", "e c b")
    got = topic_coherence(hand, top, "doc_umass")
    expected = [
        # (z,a): (4+1)/4   (b,a): (2+1)/4   (b,z): (2+1)/4
        (math.log(5 / 4) + 2 * math.log(3 / 4)) / 3,
        # (c,b): (1+1)/2   (d,b): never together, (0+1)/2   (d,c): (0+1)/2
        (0.0 + 2 * math.log(1 / 2)) / 3,
        # (c,e): (1+1)/1   (b,e): (1+1)/1   (b,c): (1+1)/2
        (2 * math.log(2) + 0.0) / 3,
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_umass_smoothing_and_order(hand):
    """eps replaces UMass's +1, and UMass is not symmetric: reversing a list changes which
    word's frequency divides."""
    eps = 0.5
    got = topic_coherence(hand, _ids(hand, "b c d"), "doc_umass", eps=eps)
    np.testing.assert_allclose(got, [(math.log(1.5 / 2) + 2 * math.log(0.5 / 2)) / 3])
    forward = topic_coherence(hand, _ids(hand, "e c"), "doc_umass")    # log((1+1)/D(e)=1)
    backward = topic_coherence(hand, _ids(hand, "c e"), "doc_umass")   # log((1+1)/D(c)=2)
    np.testing.assert_allclose([forward[0], backward[0]], [math.log(2), 0.0], atol=1e-15)


def test_npmi_by_hand(hand):
    """NPMI is the mean over pairs of log(p_ij / (p_i p_j)) / -log p_ij from document
    frequencies over D = 4 documents, with the documented conventions: 1 for a pair in
    every document (a-z, where the formula is 0/0), -1 for a pair never together (b-d,
    c-d), and it is symmetric in the order of the words."""
    top = _ids(hand, "a z b", "b c d", "e c b", "b c e")
    got = topic_coherence(hand, top, "doc_npmi")
    half = math.log(0.25 / (0.5 * 0.25)) / -math.log(0.25)        # b-e, c-e: log 2 / log 4
    expected = [
        (1.0 + 0.0 + 0.0) / 3,          # a-z in every document; a-b, z-b independent
        (0.0 - 1.0 - 1.0) / 3,          # b-c: p 1/4 = 1/2 * 1/2; b-d, c-d never together
        (half + half + 0.0) / 3,
        (half + half + 0.0) / 3,        # the same words in another order
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert half == pytest.approx(0.5)


def test_word_in_no_document_gives_nan():
    """A word of a given vocabulary that no document contains has probability 0: every
    measure is undefined for its topic (NaN), the other topics are unaffected."""
    c = Corpus.from_tokens([["x", "y"], ["x"]], vocabulary=["x", "y", "unused"])
    for measure in metrics.MEASURES:
        got = topic_coherence(c, np.array([[0, 1], [0, 2]]), measure)
        assert np.isfinite(got[0]) and np.isnan(got[1])


# ---------------------------------------------------------------------- brute force
def _reference(docs: list[set[int]], top: np.ndarray, measure: str, eps: float) -> list[float]:
    """Coherence by the definitions, one pair and one document at a time."""
    D = len(docs)
    out = []
    for row in top.tolist():
        scores = []
        for i in range(len(row)):
            for j in range(i):
                wi, wj = row[i], row[j]
                d_i = sum(wi in s for s in docs)
                d_j = sum(wj in s for s in docs)
                d_ij = sum(wi in s and wj in s for s in docs)
                if measure == "doc_umass":
                    scores.append(math.log((d_ij + eps) / d_j))
                elif d_ij == 0:
                    scores.append(-1.0)
                elif d_ij == D:
                    scores.append(1.0)
                else:
                    p_ij, p_i, p_j = d_ij / D, d_i / D, d_j / D
                    scores.append(math.log(p_ij / (p_i * p_j)) / -math.log(p_ij))
        out.append(sum(scores) / len(scores))
    return out


@pytest.mark.parametrize("measure,eps", [("doc_umass", 1.0), ("doc_umass", 0.01),
                                         ("doc_npmi", None)])
def test_vectorised_matches_brute_force(measure, eps):
    """The sparse-product coherence equals the pure-Python definition on a random corpus of
    50 documents with skewed word frequencies (so pairs range from never to always
    together), K = 5 topics of 6 words taken from random topic-word weights."""
    rng = np.random.default_rng(7)
    V = 25
    p = 1.0 / np.arange(1, V + 1) ** 1.2
    p /= p.sum()
    tokens = [[f"w{w:02d}" for w in rng.choice(V, size=rng.integers(1, 15), p=p)]
              for _ in range(50)]
    corpus = Corpus.from_tokens(tokens)
    top = top_word_ids(rng.gamma(0.3, size=(5, corpus.n_words)), 6)
    docs = [set(corpus.words[corpus.doc_ptr[d]:corpus.doc_ptr[d + 1]].tolist())
            for d in range(corpus.n_docs)]
    got = topic_coherence(corpus, top, measure, eps=eps)
    np.testing.assert_allclose(got, _reference(docs, top, measure, eps or 1.0), rtol=1e-12,
                               atol=1e-12)


def test_top_word_ids_is_a_stable_ranking():
    """Top words are the first n of a stable descending argsort: largest weight first and
    equal weights (many, from rounding) in order of word id; n_words > V gives all V."""
    rng = np.random.default_rng(3)
    phi = np.round(rng.random((8, 40)), 1)       # ~10 distinct values: ties everywhere
    expected = np.argsort(-phi, axis=1, kind="stable")
    for n in (1, 5, 13, 40):
        got = top_word_ids(phi, n)
        assert got.dtype == np.int64 and got.shape == (8, n)
        np.testing.assert_array_equal(got, expected[:, :n])
    np.testing.assert_array_equal(top_word_ids(phi, 100), expected)


# ---------------------------------------------------------------------- gensim's measures
# Documents of varied length: shorter than gensim's 10-token window (one window each),
# exactly 10, longer (sliding), with words repeated within a window (which gensim's window
# update drops while they are still inside: "fig" at positions 0 and 2 of the fourth
# document, "date elder date elder" in the last), up to 26 tokens.
GENSIM_DOCS = [
    "apple banana apple cherry".split(),
    "banana date".split(),
    "cherry apple date banana elder fig grape apple banana honey".split(),
    ("fig grape fig honey apple banana cherry cherry date elder fig apple grape honey "
     "banana apple date apple elder elder").split(),
    "kiwi lemon kiwi".split(),
    "grape".split(),
    ("apple kiwi apple lemon banana cherry lemon lemon date fig apple grape kiwi banana "
     "honey elder apple cherry fig date kiwi lemon banana apple grape").split(),
    ("date elder date elder fig fig grape honey apple banana cherry date elder fig grape "
     "honey kiwi lemon apple banana cherry date elder fig grape honey").split(),
]
GENSIM_TOPICS = ["apple banana cherry date fig", "fig grape honey elder kiwi",
                 "banana apple lemon honey date", "lemon kiwi date grape cherry"]
WINDOW_MEASURES = ("c_v", "c_uci", "c_npmi")


@pytest.fixture(scope="module")
def fruit() -> Corpus:
    return Corpus.from_tokens(GENSIM_DOCS)


def _gensim(corpus: Corpus, top: np.ndarray, measure: str,
            window_size: int | None = None) -> np.ndarray:
    """gensim's CoherenceModel on the corpus's documents as token lists."""
    texts = [corpus.document(d) for d in range(corpus.n_docs)]
    topics = [[corpus.vocabulary[w] for w in row] for row in top.tolist()]
    model = CoherenceModel(topics=topics, texts=texts, dictionary=Dictionary(texts),
                           coherence=measure, window_size=window_size, processes=1,
                           topn=top.shape[1])
    return np.asarray(model.get_coherence_per_topic(), dtype=np.float64)


@pytest.mark.parametrize("measure,window_size", [
    ("u_mass", None),
    *[(m, w) for m in WINDOW_MEASURES for w in (None, 4, 1, 26, 60)],
])
def test_gensim_measures_equal_gensim(fruit, measure, window_size):
    """u_mass, c_v, c_uci and c_npmi equal gensim's CoherenceModel per topic to 1e-6 (they
    agree to ~1e-15), at gensim's default window and others: 4 (the long documents slide,
    the short ones are one window each), 1 (no pair shares a window), 26 (exactly the longest
    documents' length: one window each) and 60 (every document one window)."""
    top = _ids(fruit, *GENSIM_TOPICS)
    got = topic_coherence(fruit, top, measure, window_size=window_size)
    expected = _gensim(fruit, top, measure, window_size)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("window_size", [None, 3, 7])
def test_gensim_measures_on_random_corpora(seed, window_size):
    """On random corpora of 40 documents (1 to 39 tokens, skewed word frequencies so words
    repeat inside windows) and K = 5 topics of 5 random words, all four measures equal
    gensim's to 1e-6."""
    rng = np.random.default_rng(seed)
    V = 12
    p = 1.0 / np.arange(1, V + 1)
    p /= p.sum()
    corpus = Corpus.from_tokens([[f"w{w:02d}" for w in rng.choice(V, size=rng.integers(1, 40),
                                                                   p=p)] for _ in range(40)])
    top = np.array([rng.choice(corpus.n_words, 5, replace=False) for _ in range(5)])
    for measure in (("u_mass",) if window_size is None else ()) + WINDOW_MEASURES:
        np.testing.assert_allclose(topic_coherence(corpus, top, measure, window_size=window_size),
                                   _gensim(corpus, top, measure, window_size), rtol=0,
                                   atol=1e-6, err_msg=measure)


def _exact_window_counts(corpus: Corpus, top: np.ndarray, window: int) -> tuple[np.ndarray, int]:
    """A mutant of gensim's counting: the true set of words in each window (gensim drops a
    word whose token slides out while another of its tokens is still in the window)."""
    windows = []
    for d in range(corpus.n_docs):
        doc = corpus.words[corpus.doc_ptr[d]:corpus.doc_ptr[d + 1]].tolist()
        starts = range(max(len(doc) - window + 1, 1))
        windows += [set(doc[t:t + window]) for t in starts]
    counts = np.array([[[sum(a in w and b in w for w in windows) for b in row] for a in row]
                       for row in top.tolist()])
    return counts, len(windows)


def test_mutants_differ_from_gensim(fruit):
    """The comparison has teeth: a window one token shorter, exact window sets instead of
    gensim's sliding update, and u_mass with the pairs reversed (s_one_pre conditions on the
    higher-ranked word) each move some topic by more than 1e-3 from gensim's number. (At
    c_v's 110 tokens every document here is one window, so c_v is taken at 6.)"""
    top = _ids(fruit, *GENSIM_TOPICS)
    for measure in WINDOW_MEASURES:
        window = min(metrics.WINDOW_SIZES[measure], 6)
        expected = _gensim(fruit, top, measure, window)
        shorter = topic_coherence(fruit, top, measure, window_size=window - 1)
        assert np.abs(shorter - expected).max() > 1e-3, measure
        # the same measure from exact window sets
        counts, total = _exact_window_counts(fruit, top, window)
        exact = metrics._gensim_coherence(measure, counts, total)
        assert np.abs(exact - expected).max() > 1e-3, measure
        # ... which is what the implementation computes from its own counts
        own, own_total = metrics._window_cooccurrence(fruit, top, window)
        np.testing.assert_allclose(metrics._gensim_coherence(measure, own, own_total), expected,
                                   rtol=0, atol=1e-12)
    reversed_umass = topic_coherence(fruit, top[:, ::-1], "u_mass")
    assert np.abs(reversed_umass - _gensim(fruit, top, "u_mass")).max() > 1e-3


def test_gensim_window_counts_by_hand():
    """Gensim's window counts on one document "a b a c d" with a window of 3: windows
    [a b a], [b a c], [a c d]. Sliding from the first to the second gensim removes the "a"
    that left although another "a" is inside, and no "a" slides in after that, so "a"
    counts in 1 window, not 3: pairs a-b 1, a-c 0, a-d 0, b-c 1, b-d 0, c-d 1."""
    corpus = Corpus.from_tokens([["a", "b", "a", "c", "d"]])
    top = _ids(corpus, "a b c d")
    counts, total = metrics._window_cooccurrence(corpus, top, 3)
    assert total == 3
    np.testing.assert_array_equal(counts[0], [[1, 1, 0, 0],
                                              [1, 2, 1, 0],
                                              [0, 1, 2, 1],
                                              [0, 0, 1, 1]])
    np.testing.assert_allclose(topic_coherence(corpus, top, "c_uci", window_size=3),
                               _gensim(corpus, top, "c_uci", 3), rtol=0, atol=1e-12)


def test_gensim_measures_on_a_reference_corpus(fruit):
    """The counts come from the corpus given: topics' word ids of one corpus scored on
    another of the same vocabulary (a different, shorter set of documents) equal gensim on
    that corpus's texts."""
    other = fruit.take([0, 2, 3, 6])
    assert other.vocabulary == fruit.vocabulary
    top = _ids(fruit, *GENSIM_TOPICS[:2])
    for measure in ("u_mass",) + WINDOW_MEASURES:
        got = topic_coherence(other, top, measure)
        np.testing.assert_allclose(got, _gensim(other, top, measure), rtol=0, atol=1e-6)
        assert np.abs(got - topic_coherence(fruit, top, measure)).max() > 1e-6


def test_deprecated_measure_names(hand):
    """"umass" and "npmi" still give the document-level measures, with a DeprecationWarning
    that names the new names."""
    top = _ids(hand, "a z b", "b c d")
    for old, new in (("umass", "doc_umass"), ("npmi", "doc_npmi")):
        with pytest.warns(DeprecationWarning, match=f"measure '{old}' is deprecated .* now "
                                                    f"named '{new}'"):
            got = topic_coherence(hand, top, old)
        np.testing.assert_array_equal(got, topic_coherence(hand, top, new))


def test_gensim_measures_on_20_newsgroups(news_archive):
    """On 20 Newsgroups train (11k posts, 1.4M tokens) with the K = 20 topics of a short
    LDA chain, all four measures equal gensim's to 1e-6."""
    from topicsup.newsgroups import load_20newsgroups
    corpus = load_20newsgroups("train", path=news_archive)
    s = Session(LDA(K=20), corpus, seed=0)
    s.run(5)
    top = top_word_ids(s.topic_word(), 10)
    texts = [corpus.document(d) for d in range(corpus.n_docs)]
    dictionary = Dictionary(texts)
    topics = [[corpus.vocabulary[w] for w in row] for row in top.tolist()]
    for measure in ("u_mass",) + WINDOW_MEASURES:
        start = time.perf_counter()
        got = topic_coherence(corpus, top, measure)
        seconds = time.perf_counter() - start
        expected = CoherenceModel(topics=topics, texts=texts, dictionary=dictionary,
                                  coherence=measure, processes=1).get_coherence_per_topic()
        print(f"{measure}: {seconds:.2f} s, max |topicsup - gensim| = "
              f"{np.abs(got - expected).max():.2e}")
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6, err_msg=measure)


# ---------------------------------------------------------------------- entropy
def test_entropy_of_uniform_and_one_hot_rows():
    """Entropy is log K for rows spread evenly over K topics, 0 for one-hot rows (0 log 0 is
    taken as 0, not NaN), and -sum p log p in between."""
    for K in (1, 2, 7, 50):
        np.testing.assert_allclose(document_entropy(np.full((3, K), 1.0 / K)), math.log(K))
        np.testing.assert_array_equal(document_entropy(np.eye(K)), np.zeros(K))
    got = document_entropy(np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]]))
    np.testing.assert_allclose(got, [math.log(2), 1.5 * math.log(2)])
    assert document_entropy(np.zeros((0, 3))).shape == (0,)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,error,message", [
    (lambda c: topic_coherence([["a"]], [[0, 1]]), TypeError, "corpus must be a topicsup"),
    (lambda c: topic_coherence(c, [0, 1]), ValueError, "top_words must be a 2-d array"),
    (lambda c: topic_coherence(c, [[0.0, 1.0]]), TypeError,
     "top_words must be a 2-d array of integer word ids"),
    (lambda c: topic_coherence(c, [[0, 1], [2]]), ValueError, "top_words"),
    (lambda c: topic_coherence(c, [[0, 99]]), ValueError,
     r"top_words\[0, 1\] = 99 is not a word id of the corpus's vocabulary \(0..5\)"),
    (lambda c: topic_coherence(c, [[0, -1]]), ValueError, r"top_words\[0, 1\] = -1"),
    (lambda c: topic_coherence(c, [[0, 1, 0]]), ValueError, "lists word id 0 more than once"),
    (lambda c: topic_coherence(c, [[0]]), ValueError, "at least 2 words per topic"),
    (lambda c: topic_coherence(c, np.zeros((0, 3), int)), ValueError, "at least one topic"),
    (lambda c: topic_coherence(c, [[0, 1]], "cv"), ValueError,
     (r"measure must be one of \['u_mass', 'c_v', 'c_uci', 'c_npmi', 'doc_umass', 'doc_npmi'\], "
      r"got 'cv'")),
    (lambda c: topic_coherence(c, [[0, 1]], "C_NPMI"), ValueError, "measure must be one of"),
    (lambda c: topic_coherence(c, [[0, 1]], "c_npmi", eps=0.5), ValueError,
     ("eps is the smoothing count of measure 'doc_umass' only, got eps=0.5 with measure "
      "'c_npmi'")),
    (lambda c: topic_coherence(c, [[0, 1]], "doc_npmi", eps=1.0), ValueError,
     "eps is the smoothing count of measure 'doc_umass' only"),
    (lambda c: topic_coherence(c, [[0, 1]], "c_v", window_size=0), ValueError,
     "window_size must be an integer >= 1, got 0"),
    (lambda c: topic_coherence(c, [[0, 1]], "c_uci", window_size=5.0), TypeError,
     "window_size must be an integer"),
    (lambda c: topic_coherence(c, [[0, 1]], "c_uci", window_size="10"), TypeError,
     "window_size must be an integer"),
    (lambda c: topic_coherence(c, [[0, 1]], "u_mass", window_size=10), ValueError,
     (r"window_size applies to the sliding-window measures \['c_v', 'c_uci', 'c_npmi'\] only, "
      r"got window_size=10 with measure 'u_mass'")),
    (lambda c: topic_coherence(c, [[0, 1]], "doc_npmi", window_size=10), ValueError,
     "window_size applies to the sliding-window measures"),
    (lambda c: topic_coherence(c, [[0, 1]], None), TypeError, "measure must be one of"),
    (lambda c: topic_coherence(c, [[0, 1]], "doc_umass", eps=0), ValueError, "eps must be"),
    (lambda c: topic_coherence(c, [[0, 1]], eps="1"), TypeError, "eps must be a number"),
    (lambda c: top_word_ids(np.ones(4), 2), ValueError, "topic_word must be a 2-d array"),
    (lambda c: top_word_ids([["x"]], 2), TypeError, "topic_word must be a 2-d array of numbers"),
    (lambda c: top_word_ids(np.array([[0.5, np.nan]]), 1), ValueError,
     r"topic_word must be finite; topic_word\[0, 1\] = nan"),
    (lambda c: top_word_ids(np.ones((2, 3)), 0), ValueError, "n_words must be an integer >= 1"),
    (lambda c: top_word_ids(np.ones((2, 3)), 2.0), TypeError, "n_words must be an integer"),
    (lambda c: document_entropy(np.ones(3) / 3), ValueError, "doc_topics must be a 2-d array"),
    (lambda c: document_entropy("0.5 0.5"), TypeError, "doc_topics"),
    (lambda c: document_entropy(np.zeros((2, 0))), ValueError, "at least one topic"),
    (lambda c: document_entropy([[1.5, -0.5]]), ValueError,
     r"non-negative proportions; doc_topics\[0, 1\] = -0.5"),
    (lambda c: document_entropy([[0.5, 0.5], [0.5, 0.4]]), ValueError,
     "rows must sum to one .* row 1 sums to 0.9"),
    (lambda c: document_entropy([[np.inf, 0.0]]), ValueError, "doc_topics must be finite"),
])
def test_bad_input_is_named(hand, call, error, message):
    with pytest.raises(error, match=message):
        call(hand)


# ---------------------------------------------------------------------- Session
@pytest.fixture(scope="module")
def session() -> Session:
    data = make_synthetic(n_docs=60, n_topics=4, doc_length=30, seed=11)
    # an empty document, dropped: the training documents' index is no longer 0..D-1
    docs = [data.corpus.document(d) for d in range(data.corpus.n_docs)]
    with pytest.warns(UserWarning, match="dropped 1 empty document"):
        corpus = Corpus.from_tokens(docs[:10] + [[]] + docs[10:])
    assert corpus.doc_index[10] == 11
    s = Session(LDA(K=4), corpus, seed=0)
    s.run(3)
    return s


@pytest.mark.parametrize("measure", ["doc_npmi", "doc_umass", "c_npmi", "c_v", "c_uci",
                                     "u_mass"])
def test_session_coherence(session, measure):
    """One row per topic indexed "topic", with the coherence of the same top words that
    ``topics`` shows, equal to ``topic_coherence`` on the training corpus and in range:
    NPMI in [-1, 1], every UMass term log((D_ij + 1) / D_j) <= log 2, gensim's c_v a mean
    of cosines, its u_mass terms log((P_ij + 1e-12) / P_j) <= ~0."""
    df = session.coherence(n_words=5, measure=measure)
    assert list(df.columns) == ["coherence", "top_words"]
    assert df.index.name == "topic" and list(df.index) == list(range(4))
    pd.testing.assert_series_equal(df["top_words"], session.topics(5)["top_words"])
    top = top_word_ids(session.topic_word(), 5)
    np.testing.assert_allclose(df["coherence"], topic_coherence(session.corpus, top, measure))
    assert np.isfinite(df["coherence"]).all()
    low, high = {"doc_npmi": (-1.0, 1.0), "doc_umass": (-np.inf, math.log(2)),
                 "c_v": (-1.0, 1.0), "u_mass": (-np.inf, 1e-9)}.get(measure, (-np.inf, np.inf))
    assert ((df["coherence"] >= low) & (df["coherence"] <= high)).all()


def test_session_coherence_default_and_bad_arguments(session):
    """The default is gensim's c_npmi of 10 top words; window_size and reference pass
    through to ``topic_coherence``; the old names warn; bad arguments are named."""
    default = session.coherence()
    assert len(default) == 4
    assert default["top_words"].str.split().str.len().eq(10).all()
    top = top_word_ids(session.topic_word(), 10)
    np.testing.assert_array_equal(default["coherence"],
                                  topic_coherence(session.corpus, top, "c_npmi"))
    np.testing.assert_array_equal(session.coherence(measure="c_v", window_size=20)["coherence"],
                                  topic_coherence(session.corpus, top, "c_v", window_size=20))
    reference = session.corpus.take(range(0, session.corpus.n_docs, 2))
    np.testing.assert_array_equal(session.coherence(reference=reference)["coherence"],
                                  topic_coherence(reference, top, "c_npmi"))
    with pytest.warns(DeprecationWarning, match="'npmi' is deprecated.*'doc_npmi'"):
        old = session.coherence(measure="npmi")
    np.testing.assert_array_equal(old["coherence"],
                                  session.coherence(measure="doc_npmi")["coherence"])
    with pytest.raises(ValueError, match="n_words must be an integer >= 2"):
        session.coherence(n_words=1)
    with pytest.raises(ValueError, match="measure must be one of"):
        session.coherence(measure="cv")
    with pytest.raises(ValueError, match="window_size applies to the sliding-window measures"):
        session.coherence(measure="u_mass", window_size=10)
    with pytest.raises(TypeError, match="reference must be a topicsup.Corpus or None, got list"):
        session.coherence(reference=[["a", "b"]])
    with pytest.raises(ValueError, match="reference must have the training corpus's vocabulary"):
        session.coherence(reference=Corpus.from_tokens([["a", "b"]]))


def test_session_document_entropy(session):
    """A Series named "entropy" with one value per training document, indexed like
    ``doc_topics()`` (the input positions, here skipping the dropped empty document), each
    the entropy of that row of theta, so in [0, log K]."""
    h = session.document_entropy()
    theta = session.doc_topics()
    assert isinstance(h, pd.Series) and h.name == "entropy"
    pd.testing.assert_index_equal(h.index, theta.index)
    assert h.index.name == "document" and 10 not in h.index
    np.testing.assert_allclose(h, [-(r * np.log(r)).sum() for r in theta.to_numpy()])
    assert ((h >= 0) & (h <= math.log(4) + 1e-12)).all()



def test_top_weight_share_by_hand():
    """|means| 3, 1, 0 (and an intercept of 9, left out): top-1 share 3/4, top-2 1; a class
    with one weight carries all of its mass; all-zero weights give NaN; order of first
    appearance."""
    coefs = pd.DataFrame({"task": ["b"] * 4 + ["a"] * 4 + ["z"] * 4,
                          "kind": ["topic"] * 3 + ["intercept"] + ["topic"] * 3 + ["intercept"]
                          + ["topic"] * 3 + ["intercept"],
                          "mean": [3.0, -1.0, 0.0, 9.0, 0.0, 2.0, 0.0, -5.0, 0, 0, 0, 1.0]})
    one = top_weight_share(coefs, 1)
    assert list(one.index) == ["b", "a", "z"]
    assert one["b"] == 0.75 and one["a"] == 1.0 and np.isnan(one["z"])
    assert top_weight_share(coefs, 2)["b"] == 1.0
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['kind'\]"):
        top_weight_share(coefs.drop(columns="kind"))
    with pytest.raises(ValueError, match="top must be"):
        top_weight_share(coefs, 0)
    with pytest.raises(TypeError, match="coefficients must be a DataFrame"):
        top_weight_share(coefs.to_dict())


def test_session_signal_topics_and_shrinkage():
    """On a fitted DOLDA session (intercept and a covariate): ``coefficients`` marks each
    weight's kind; ``signal_topics`` lists each class's strongest positive topics in order,
    with the topics' top words and shares; ``shrinkage`` gives one row per class that agrees
    with ``top_weight_share`` and counts the intervals that exclude 0."""
    from topicsup import DOLDA
    data = make_synthetic(n_docs=150, n_topics=4, task="multiclass", n_classes=3,
                          n_covariates=1, seed=0)
    s = Session(DOLDA(K=4, burn_in=3), data.corpus, seed=0)
    s.run(8)
    coefs = s.coefficients()
    assert list(coefs["kind"][:6]) == ["topic"] * 4 + ["intercept", "covariate"]
    assert list(coefs["feature"][4:6]) == ["intercept", "x0"]
    sig = s.signal_topics(n=2, n_words=3)
    topics = s.topics(3)
    for task, rows in sig.groupby("task", sort=False):
        c = coefs[(coefs["task"] == task) & (coefs["kind"] == "topic") & (coefs["mean"] > 0)]
        expect = c.sort_values("mean", ascending=False)["index"].head(2).tolist()
        assert rows["topic"].tolist() == expect and rows["rank"].tolist() == [1, 2][:len(expect)]
        assert (rows["top_words"] == topics["top_words"].to_numpy()[rows["topic"]]).all()
        assert np.allclose(rows["share"], topics["share"].to_numpy()[rows["topic"]])
        assert (rows["sign_certain"] == (rows["lower"] > 0)).all()
    shr = s.shrinkage(top=2)
    assert list(shr.index) == list(data.corpus.labels.classes)
    assert np.allclose(shr["top_share"], top_weight_share(coefs, 2))
    topic = coefs[coefs["kind"] == "topic"]
    certain = ((topic["lower"] > 0) | (topic["upper"] < 0)).groupby(topic["task"]).sum()
    assert (shr["n_certain"] == certain[shr.index]).all() and (shr["n_topics"] == 4).all()
