"""Representative documents (issue 37): the documents that carry a topic most, overall and
within a class, each shown with its words coloured by their assigned topic."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from topicsup import Corpus, Session, summaries
from topicsup.models import LDA, LightMedLDA
from topicsup.synthetic import make_synthetic


@pytest.fixture(scope="module")
def fitted():
    syn = make_synthetic(n_docs=200, n_topics=5, task="multiclass", n_classes=3, seed=7)
    s = Session(LightMedLDA(K=5), syn.corpus, seed=3)
    s.sweep(20)
    return s


def _topic_tokens(s, k):
    """Each document's tokens assigned to topic ``k`` now, (D,)."""
    doc = np.repeat(np.arange(s.corpus.n_docs), s.corpus.doc_lengths)
    return np.bincount(doc[s.state.z == k], minlength=s.corpus.n_docs)


def _ranked(s, k, min_tokens=10):
    """The ranking by hand: the documents with a token of ``k``, those of at least
    ``min_tokens`` tokens first, each group by share, ties by document order."""
    theta = s.doc_topics(as_frame=False)
    docs = np.flatnonzero(_topic_tokens(s, k) > 0)
    short = s.corpus.doc_lengths[docs] < min_tokens
    return docs[np.lexsort((docs, -theta[docs, k], short))]


def test_documents_are_ranked_by_the_topics_share(fitted):
    theta = fitted.doc_topics(as_frame=False)
    for k in range(5):
        got = fitted.representative_docs(k, 8)
        want = _ranked(fitted, k)[:8]
        assert got["doc"].tolist() == want.tolist()
        np.testing.assert_allclose(got["share"], theta[want, k])
        assert got["rank"].tolist() == list(range(1, 9))
        assert got.index.equals(fitted.corpus.index[want])


def test_a_document_without_a_token_of_the_topic_never_ranks(fitted):
    """A document's share of a topic is smoothed by the prior: one with none of its tokens
    on the topic still has a share, and must not be shown as carrying it. Asked for every
    document, exactly those with a token of the topic come, in order."""
    D = fitted.corpus.n_docs
    for k in range(5):
        mine = _topic_tokens(fitted, k)
        assert (mine == 0).any()   # some documents have no token of the topic
        got = fitted.representative_docs(k, D)
        assert got["doc"].tolist() == _ranked(fitted, k).tolist()
        assert (got["topic_tokens"] >= 1).all()
        assert (got["topic_tokens"].to_numpy() == mine[got["doc"]]).all()


def test_short_documents_rank_after_long_ones_and_fill_in_when_too_few_are_long(monkeypatch):
    """Two-token documents get shares near 1 from one or two tokens: they rank after every
    document of at least ``min_tokens`` tokens that carries the topic, and fill the rows
    when too few do (a corpus of short texts still gets its documents, read here two
    documents a chunk, empty ones among them); ``min_tokens=1`` ranks by share alone."""
    syn = make_synthetic(n_docs=120, n_topics=4, doc_length=40, topic_purity=0.5, seed=5)
    c = syn.corpus
    vocab = np.asarray(c.vocabulary, dtype=object)
    docs = [list(vocab[c.words[c.doc_ptr[d]:c.doc_ptr[d + 1]]]) for d in range(c.n_docs)]
    rng = np.random.default_rng(0)
    docs += [list(rng.choice(vocab, 2)) for _ in range(30)]
    s = Session(LDA(K=4), Corpus.from_tokens(docs), seed=1)
    s.sweep(10)
    theta = s.doc_topics(as_frame=False)
    lengths = s.corpus.doc_lengths
    by_share = np.lexsort((np.arange(len(docs)), -theta[:, 3]))[:5]
    assert (lengths[by_share] == 2).all()   # by share alone the short ones would lead
    got = s.representative_docs(3, 5)
    assert got["doc"].tolist() == _ranked(s, 3)[:5].tolist()
    assert (got["n_tokens"] >= 10).all()
    for k in range(4):
        every = s.representative_docs(k, len(docs))
        assert every["doc"].tolist() == _ranked(s, k).tolist()
        n_tokens = every["n_tokens"].to_numpy()
        short = n_tokens < 10   # the short ones all after the long ones
        assert (n_tokens[short] == 2).all() and (np.diff(short.astype(int)) >= 0).all()
        alone = s.representative_docs(k, len(docs), min_tokens=1)
        assert alone["doc"].tolist() == _ranked(s, k, min_tokens=1).tolist()
    texts = [[], []] + docs[120:135] + [[]] + docs[135:] + [[], []]
    short = Session(LDA(K=2), Corpus.from_tokens(texts, empty="keep"), seed=1)
    short.sweep(5)
    monkeypatch.setattr(summaries, "CHUNK_VALUES", 4)   # two documents a chunk
    for k in range(2):
        got = short.representative_docs(k, 4)
        assert len(got) == 4 and got["doc"].tolist() == _ranked(short, k)[:4].tolist()
        every = short.representative_docs(k, len(texts))
        assert every["doc"].tolist() == _ranked(short, k).tolist()
        assert (every["topic_tokens"].to_numpy() == _topic_tokens(short, k)[every["doc"]]).all()


def test_a_class_restricts_the_documents_and_a_label_names_the_topic(fitted):
    labels = fitted.corpus.labels
    cls = labels.classes[1]
    got = fitted.representative_docs(fitted.topic_labels()[3], 6, cls=cls)
    assert (labels.values[got["doc"]] == 1).all() and (got["classes"] == cls).all()
    theta = fitted.doc_topics(as_frame=False)[:, 3]
    members = np.flatnonzero((labels.values == 1) & (fitted.corpus.doc_lengths > 0))
    assert got["share"].iloc[0] == pytest.approx(theta[members].max())


def test_multilabel_membership_is_having_the_class():
    syn = make_synthetic(n_docs=90, n_topics=3, task="multilabel", n_classes=3, seed=2)
    s = Session(LightMedLDA(K=3), syn.corpus, seed=1)
    s.sweep(5)
    got = s.representative_docs(0, 50, cls=syn.corpus.labels.classes[2])
    assert (syn.corpus.labels.values[got["doc"], 2] == 1).all()
    members = syn.corpus.labels.values[:, 2] == 1
    assert len(got) == int((members & (_topic_tokens(s, 0) > 0)).sum())


def test_each_document_is_shown_coloured_by_topic_with_the_topic_in_bold(fitted):
    got = fitted.representative_docs(2, 3, n_words=15)
    z = fitted.state.z
    for d, page, n_tok, mine in zip(got["doc"], got["html"], got["n_tokens"],
                                    got["topic_tokens"]):
        lo = fitted.corpus.doc_ptr[d]
        spans = re.findall(r'data-topic="(\d+)"', page)
        assert [int(t) for t in spans] == z[lo:lo + min(n_tok, 15)].tolist()
        assert page.count("font-weight:bold") == int((z[lo:lo + 15] == 2).sum())
        assert ("&hellip;" in page) == (n_tok > 15)
        assert mine == int((z[lo:fitted.corpus.doc_ptr[d + 1]] == 2).sum())


def test_words_are_escaped_and_the_index_is_the_corpus_own():
    docs = [["<b>", "x", "x"], ["y", "&", "y"], ["x", "y"]]
    corpus = Corpus.from_tokens(pd.Series(docs, index=["a", "b", "c"]))
    s = Session(LDA(K=1), corpus, seed=1)   # one topic: every document carries it
    s.sweep(2)
    got = s.representative_docs(0, 3)
    assert sorted(got.index) == ["a", "b", "c"] and "classes" not in got
    assert got.loc["a", "text"] == "<b> x x"
    page = got.loc["a", "html"]
    assert "&lt;b&gt;" in page and "<b>" not in page
    assert "&amp;" in got.loc["b", "html"]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"topic": 9}, ValueError, "topic"), ({"topic": "nope"}, ValueError, "no topic's label"),
    ({"topic": 1.5}, TypeError, "topic"), ({"topic": 0, "n": 0}, ValueError, "n"),
    ({"topic": 0, "cls": "zzz"}, ValueError, "one of the classes"),
    ({"topic": 0, "n_words": 0}, ValueError, "n_words"),
    ({"topic": 0, "min_tokens": 0}, ValueError, "min_tokens"),
    ({"topic": 0, "min_tokens": -3}, ValueError, "min_tokens"),
    ({"topic": 0, "min_tokens": 2.5}, TypeError, "min_tokens")])
def test_bad_requests_are_named(fitted, kwargs, error, match):
    with pytest.raises(error, match=match):
        fitted.representative_docs(**kwargs)


def test_a_class_needs_class_labels():
    s = Session(LDA(K=2), Corpus.from_tokens([["a", "b"], ["b"]]), seed=0)
    with pytest.raises(ValueError, match="no class labels"):
        s.representative_docs(0, cls="x")
