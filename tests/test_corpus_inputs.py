"""Other ways in (issue 39): a tokenizer of one's own, recorded in the corpus and its
checkpoint; gensim's bags of words with their Dictionary; the one import line."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup import Corpus
from topicsup.session import Session


def split_on_spaces(text):
    return text.split()


def test_a_tokenizer_of_ones_own_is_used_and_recorded(tmp_path):
    texts = ["Don't panic, U.S.A. rules", "中文 分词 测试 中文"]
    with pytest.warns(UserWarning, match="dropped 1 empty document"):   # 2-letter words
        default = Corpus.from_texts(texts, stop_words=None)
    assert default.document(0) == ["don", "panic", "rules"]       # the built-in rule
    corpus = Corpus.from_texts(texts, stop_words=None, tokenizer=split_on_spaces)
    assert corpus.document(0) == ["Don't", "panic,", "U.S.A.", "rules"]
    assert corpus.document(1) == ["中文", "分词", "测试", "中文"]   # min_length 1 by default
    assert corpus.preprocessing["tokenizer"] == f"{__name__}.split_on_spaces"
    assert corpus.preprocessing["min_length"] == 1
    from topicsup.models import LDA
    s = Session(LDA(K=2), corpus, seed=0)
    s.run(1)
    loaded = Session.load(s.save(tmp_path / "c.npz"))
    assert loaded.corpus.preprocessing["tokenizer"] == f"{__name__}.split_on_spaces"


def test_stop_words_and_min_length_apply_after_ones_tokenizer():
    corpus = Corpus.from_texts(["the cat sat on a mat", "a dog"], tokenizer=str.split,
                               min_length=2)
    assert corpus.document(0) == ["cat", "sat", "mat"] and corpus.document(1) == ["dog"]


@pytest.mark.parametrize("tokenizer, match", [
    ("split", "tokenizer must be a callable"),
    (lambda t: t, "tokenizer on texts\\[0\\]: must return an iterable of str tokens, got str"),
    (lambda t: [1, 2], "tokenizer on texts\\[0\\]: must return str tokens, got a int"),
])
def test_a_bad_tokenizer_is_named(tokenizer, match):
    with pytest.raises(TypeError, match=match):
        Corpus.from_texts(["some text here"], tokenizer=tokenizer)


def test_gensim_bags_of_words_with_their_dictionary():
    gensim = pytest.importorskip("gensim", reason="gensim is the reference (pip install -e '.[test]')")
    docs = [["space", "shuttle", "launch", "space"], ["hockey", "game", "launch"],
            ["game", "space"]]
    dictionary = gensim.corpora.Dictionary(docs)
    bow = [dictionary.doc2bow(d) for d in docs]
    corpus = Corpus.from_bow(bow, dictionary, labels=["a", "b", "a"])
    ref = Corpus.from_tokens(docs, labels=["a", "b", "a"])
    for d in range(3):
        assert sorted(corpus.document(d)) == sorted(ref.document(d))
    np.testing.assert_array_equal(corpus.to_matrix().sum(axis=0).A1.sum(), 9)
    assert set(corpus.vocabulary) == set(dictionary.token2id)
    plain = Corpus.from_bow(bow, {i: w for w, i in dictionary.token2id.items()})
    assert plain.n_tokens == 9


@pytest.mark.parametrize("bow, dictionary, error, match", [
    ([[(0, 1)]], ["a"], TypeError, "dictionary must be a gensim Dictionary"),
    ([[(5, 1)]], {0: "a"}, ValueError, r"bow\[0\] has word id 5, which the dictionary"),
    ([[(0, 1.5)]], {0: "a"}, ValueError, r"bow\[0\] has count 1.5"),
    ([[(0, -1)]], {0: "a"}, ValueError, r"bow\[0\] has count -1"),
    ([[(0, float("nan"))]], {0: "a"}, ValueError, r"bow\[0\] has count nan"),
    ([[(0, float("inf"))]], {0: "a"}, ValueError, r"bow\[0\] has count inf"),
    ([[(0, 2**70)]], {0: "a"}, ValueError, r"bow\[0\] has count 1180591620717411303424"),
    ([["a"]], {0: "a"}, TypeError, r"bow\[0\] holds 'a', not a \(word id, count\) pair"),
    ("text", {0: "a"}, TypeError, "bow must be a list of documents"),
    ([], {0: "a"}, ValueError, "bow holds no document"),
    ([[(0, 1)]], {"0": "a"}, TypeError, "dictionary must map word ids"),
])
def test_bad_bags_of_words_are_named(bow, dictionary, error, match):
    with pytest.raises(error, match=match):
        Corpus.from_bow(bow, dictionary)


def test_one_import_line_brings_what_the_quickstart_uses():
    from topicsup import (DOLDA, GSLDA, HDPLDA, LDA, Corpus, LightMedLDA,  # noqa: F401
                          MCMedLDA, Session, views)
    assert callable(views.loglik_chart)
