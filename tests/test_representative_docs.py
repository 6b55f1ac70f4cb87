"""Representative documents (issue 37): the documents that carry a topic most, overall and
within a class, each shown with its words coloured by their assigned topic."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from topicsup import Corpus, Session
from topicsup.models import LDA, LightMedLDA
from topicsup.synthetic import make_synthetic


@pytest.fixture(scope="module")
def fitted():
    syn = make_synthetic(n_docs=200, n_topics=5, task="multiclass", n_classes=3, seed=7)
    s = Session(LightMedLDA(K=5), syn.corpus, seed=3)
    s.sweep(20)
    return s


def test_documents_are_ranked_by_the_topics_share(fitted):
    theta = fitted.doc_topics(as_frame=False)
    for k in range(5):
        got = fitted.representative_docs(k, 8)
        full = np.flatnonzero(fitted.corpus.doc_lengths > 0)
        want = full[np.lexsort((full, -theta[full, k]))][:8]
        assert got["doc"].tolist() == want.tolist()
        np.testing.assert_allclose(got["share"], theta[want, k])
        assert got["rank"].tolist() == list(range(1, 9))
        assert got.index.equals(fitted.corpus.index[want])


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
    assert len(got) == int((syn.corpus.labels.values[:, 2] == 1).sum())


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
    s = Session(LDA(K=2), corpus, seed=1)
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
    ({"topic": 0, "n_words": 0}, ValueError, "n_words")])
def test_bad_requests_are_named(fitted, kwargs, error, match):
    with pytest.raises(error, match=match):
        fitted.representative_docs(**kwargs)


def test_a_class_needs_class_labels():
    s = Session(LDA(K=2), Corpus.from_tokens([["a", "b"], ["b"]]), seed=0)
    with pytest.raises(ValueError, match="no class labels"):
        s.representative_docs(0, cls="x")
