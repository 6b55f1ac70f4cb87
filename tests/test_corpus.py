"""Corpus construction, the tokenizer, labels, covariates, held-out mapping and validation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from topicsup import Corpus, tokenize
from topicsup.corpus import make_labels

TEXTS = ["The rocket reached orbit; the orbit was stable.",
         "Hockey playoffs: the goalie stopped 40 shots!",
         "Orbit, rocket and goalie",
         "a an the of"]


def _csr(corpus):
    return corpus.to_matrix().toarray()


# ---------------------------------------------------------------- tokenizer
def test_tokenizer_rules():
    assert tokenize("The ROCKET's e-mail 3D x11 ab abc naïve") == ["rocket", "mail", "abc",
                                                                    "naïve"]
    assert tokenize("the and of", stop_words=None) == ["the", "and"]
    assert tokenize("ab abc", min_length=2, stop_words=None) == ["ab", "abc"]
    with pytest.raises(TypeError, match="text must be a str"):
        tokenize(3)


# ---------------------------------------------------------------- constructors
def test_from_texts_builds_sorted_vocabulary_and_csr():
    with pytest.warns(UserWarning, match="dropped 1 empty document"):
        c = Corpus.from_texts(TEXTS, labels=["sci", "sport", "sci", "sport"])
    assert c.vocabulary == tuple(sorted(c.vocabulary))
    assert c.n_docs == 3 and c.dropped_documents.tolist() == [3]
    assert c.doc_index.tolist() == [0, 1, 2]
    assert c.document(0) == ["rocket", "reached", "orbit", "orbit", "stable"]
    assert c.words.dtype == np.int32 and c.doc_ptr.dtype == np.int64
    assert c.doc_ptr[-1] == c.n_tokens
    assert c.labels.kind == "binary" and c.labels.classes == ("sci", "sport")
    assert c.labels.values.tolist() == [0, 1, 0]


def test_min_count_and_max_df_cutoffs():
    docs = [["a1", "a1", "b1"], ["a1", "c1"], ["a1", "c1"]]
    assert Corpus.from_tokens(docs).vocabulary == ("a1", "b1", "c1")
    assert Corpus.from_tokens(docs, min_count=2).vocabulary == ("a1", "c1")
    assert Corpus.from_tokens(docs, max_df=0.7).vocabulary == ("b1", "c1")  # a1 in 3/3 docs
    assert Corpus.from_tokens(docs, max_df=2).vocabulary == ("b1", "c1")
    with pytest.raises(ValueError, match="min_count"):
        Corpus.from_tokens(docs, min_count=0)
    with pytest.raises(ValueError, match="max_df"):
        Corpus.from_tokens(docs, max_df=1.5)
    with pytest.raises(ValueError, match="no word survives"):
        Corpus.from_tokens(docs, min_count=100)


def test_from_matrix_equals_from_tokens():
    X = sp.csr_matrix(np.array([[2, 0, 1], [0, 3, 0], [1, 1, 1]]))
    c = Corpus.from_matrix(X, ["x", "y", "zz"])
    assert np.array_equal(_csr(c), X.toarray())
    t = Corpus.from_tokens([["x", "x", "zz"], ["y"] * 3, ["x", "y", "zz"]], vocabulary=["x", "y", "zz"])
    assert np.array_equal(_csr(t), X.toarray())
    assert np.array_equal(_csr(Corpus.from_matrix(X.toarray().astype(float), ["x", "y", "zz"])),
                          X.toarray())


def test_countvectorizer_interop():
    from sklearn.feature_extraction.text import CountVectorizer
    cv = CountVectorizer()
    X = cv.fit_transform(TEXTS[:3])
    c = Corpus.from_matrix(X, cv.get_feature_names_out().tolist(), labels=[0, 1, 0])
    assert np.array_equal(_csr(c), X.toarray())
    c2 = Corpus.from_matrix(X, cv.vocabulary_)       # dict word -> column also accepted
    assert c2.vocabulary == c.vocabulary


# ---------------------------------------------------------------- labels
def test_label_kinds():
    assert make_labels(["b", "a", "b"], 3).kind == "binary"
    lab = make_labels([-1, 1, 1], 3)
    assert lab.classes == ("-1", "1") and lab.signs.tolist() == [-1.0, 1.0, 1.0]
    mc = make_labels(pd.Series(["x", "y", "z", "x"]), 4)
    assert mc.kind == "multiclass" and mc.n_classes == 3 and list(mc.names()) == ["x", "y", "z", "x"]
    ml = make_labels([{"a", "b"}, ["b"], ()], 3)
    assert ml.kind == "multilabel" and ml.values.tolist() == [[1, 1], [0, 1], [0, 0]]
    assert make_labels(np.array([[1, 0], [0, 1]]), 2).kind == "multilabel"
    real = make_labels([0.5, 1.25, -3.0], 3)
    assert real.kind == "real" and real.values.dtype == np.float64
    assert make_labels([1.0, 2.0, 3.0], 3, kind="real").kind == "real"
    fixed = make_labels(["a", "a"], 2, kind="binary", classes=["a", "b"])
    assert fixed.values.tolist() == [0, 0]


@pytest.mark.parametrize("labels, kw, err, msg", [
    ([0, 1], {}, ValueError, "labels has 2 entries but the corpus has 3"),
    ([1, 1, 1], {}, ValueError, "single class"),
    ([0.5, np.nan, 1.0], {}, ValueError, "NaN"),
    ([1, None, 0], {}, ValueError, r"labels\[1\] is missing"),
    ("abc", {}, TypeError, "sequence"),
    ([0, 1, 2], {"kind": "binary"}, ValueError, "exactly 2 classes"),
    (["a", "c", "a"], {"classes": ["a", "b"]}, ValueError, r"labels\[1\] is 'c'"),
    ([{"a"}, "b", {"a"}], {"kind": "multilabel"}, TypeError, r"labels\[1\]"),
    ([0, 1, 0], {"kind": "ordinal"}, ValueError, "label_type"),
    (np.array([[0, 2], [1, 0], [0, 0]]), {}, ValueError, "0/1 indicator"),
])
def test_bad_labels(labels, kw, err, msg):
    with pytest.raises(err, match=msg):
        make_labels(labels, 3, **kw)


def test_labels_are_dropped_with_empty_documents():
    with pytest.warns(UserWarning):
        c = Corpus.from_texts(TEXTS, labels=[0.1, 0.2, 0.3, 0.4],
                              covariates=np.arange(8.0).reshape(4, 2))
    assert c.labels.values.tolist() == [0.1, 0.2, 0.3]
    assert c.covariates.shape == (3, 2) and c.covariates[2].tolist() == [4.0, 5.0]


# ---------------------------------------------------------------- covariates
def test_covariates_from_dataframe_keep_names():
    df = pd.DataFrame({"age": [30, 40, 50], "score": [0.1, 0.2, 0.3]})
    c = Corpus.from_tokens([["a1"], ["b1"], ["a1", "b1"]], covariates=df)
    assert c.covariate_names == ("age", "score") and c.covariates.dtype == np.float64


@pytest.mark.parametrize("cov, err, msg", [
    (np.array([[1.0], [np.nan], [2.0]]), ValueError, "row 1"),
    (np.array([[1.0], [np.inf], [2.0]]), ValueError, "finite"),
    (np.ones((2, 1)), ValueError, "2 rows but the corpus has 3"),
    (np.array([["a"], ["b"], ["c"]]), TypeError, "numeric"),
    (pd.DataFrame({"g": ["x", "y", "z"]}), TypeError, r"column\(s\) \['g'\]"),
    (np.ones((3, 1, 1)), ValueError, "2-d"),
])
def test_bad_covariates(cov, err, msg):
    with pytest.raises(err, match=msg):
        Corpus.from_tokens([["a1"], ["b1"], ["a1"]], covariates=cov)


# ---------------------------------------------------------------- documents
@pytest.mark.parametrize("call, err, msg", [
    (lambda: Corpus.from_texts([]), ValueError, "empty: no documents"),
    (lambda: Corpus.from_texts("one string"), TypeError, "single str"),
    (lambda: Corpus.from_texts(["ok", 3]), TypeError, r"texts\[1\] must be a str"),
    (lambda: Corpus.from_tokens([["a"], "ab"]), TypeError, r"docs\[1\]"),
    (lambda: Corpus.from_tokens([["a", 1]]), TypeError, "tokens must be str"),
    (lambda: Corpus.from_texts(["the of", "and"]), ValueError, "no word survives"),
    (lambda: Corpus.from_tokens([["a"], []], empty="error"), ValueError, r"positions \[1\]"),
    (lambda: Corpus.from_tokens([["a"]], empty="maybe"), ValueError, "empty must be"),
    (lambda: Corpus.from_tokens([["a"], ["b"]], vocabulary=["c"]), ValueError, "every document"),
    (lambda: Corpus.from_tokens([["a"]], vocabulary=["a", "a"]), ValueError, "duplicate word 'a'"),
    (lambda: Corpus.from_tokens([["a"]], vocabulary="abc"), TypeError, "vocabulary"),
    (lambda: Corpus.from_tokens([["a"]], vocabulary=["a", 2]), TypeError, r"vocabulary\[1\]"),
])
def test_bad_documents(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


@pytest.mark.parametrize("X, err, msg", [
    (sp.csr_matrix(np.array([[1, -2], [0, 1]])), ValueError, "non-negative.*row 0, column 1"),
    (np.array([[1.5, 0], [0, 1]]), ValueError, "integer counts"),
    (np.array([[np.nan, 0], [0, 1]]), ValueError, "NaN"),
    (np.array([[1, 0, 1], [0, 1, 1]]), ValueError, "3 columns but vocabulary has 2"),
    (np.zeros((0, 2)), ValueError, "empty"),
    (np.array(["a", "b"]), ValueError, "2-d"),
    ("counts", TypeError, "sparse matrix, a 2-d array or a DataFrame"),
    (np.array([[True, False], [False, True]], dtype=object), TypeError, "numeric"),
])
def test_bad_matrix(X, err, msg):
    with pytest.raises(err, match=msg):
        Corpus.from_matrix(X, ["a", "b"])


# ---------------------------------------------------------------- held-out documents
def test_map_held_out_texts_onto_training_vocabulary():
    with pytest.warns(UserWarning):
        train = Corpus.from_texts(TEXTS, labels=["sci", "sport", "sci", "sport"])
    with pytest.warns(UserWarning, match="2 of the 3 tokens"):   # zeppelin, known
        test = train.map(["orbit of the zeppelin", "nothing known here"],
                         labels=["sport", "sci"])
    assert test.vocabulary == train.vocabulary
    assert test.n_docs == 2 and test.doc_lengths.tolist() == [1, 0]   # empty kept, aligned
    assert test.n_unknown_tokens == 2       # zeppelin, known ("nothing", "here" are stop words)
    assert test.labels.classes == train.labels.classes and test.labels.values.tolist() == [1, 0]
    m = train.map(sp.csr_matrix(np.ones((1, train.n_words), int)))
    assert m.n_tokens == train.n_words
    with pytest.raises(ValueError, match="not one of the classes"):
        train.map(["orbit"], labels=["history"])


def test_to_arrays_round_trip():
    c = Corpus.from_tokens([["a1", "b1"], ["b1"]], labels=[{"x"}, {"x", "y"}],
                           covariates=pd.DataFrame({"u": [1.0, 2.0]}))
    arrs = c.to_arrays()
    assert all(isinstance(v, np.ndarray) and v.dtype != object for v in arrs.values())
    r = Corpus.from_arrays(arrs, {})
    assert r.vocabulary == c.vocabulary and np.array_equal(r.words, c.words)
    assert r.labels.kind == "multilabel" and np.array_equal(r.labels.values, c.labels.values)
    assert r.covariate_names == ("u",)


# ---------------------------------------------------------------- no silent wrong answers
def test_stop_words_english_is_the_list_not_its_letters():
    texts = ["the cat sat on a mat", "dogs are there"]
    by_name = Corpus.from_texts(texts, stop_words="english")
    assert by_name.vocabulary == Corpus.from_texts(texts).vocabulary == ("cat", "dogs", "mat",
                                                                          "sat")
    assert tokenize("the cat", stop_words="english") == ["cat"]


def test_a_corpus_is_checked_however_it_is_built_and_stays_valid():
    """Direct construction is validated like the constructors; the arrays are read-only
    copies, so a corpus that exists cannot be made invalid behind its checks."""
    words = np.array([0, 1, 1], np.int32)
    c = Corpus(words=words, doc_ptr=np.array([0, 2, 3]), vocabulary=("a", "b"))
    assert c.doc_index.tolist() == [0, 1] and c.doc_ptr.dtype == np.int64
    words[0] = 9                        # the caller's array is not the corpus's
    assert c.words[0] == 0
    with pytest.raises(ValueError, match="read-only"):
        c.words[0] = 9
    with pytest.raises(ValueError, match=r"words\[0\] = 9 is not a word id"):
        Corpus(words=words, doc_ptr=np.array([0, 2, 3]), vocabulary=("a", "b"))
    mine = np.array([0, 1, 1], np.int32)    # the caller's read-only array may be made
    mine.flags.writeable = False            # writable again: it is copied too
    assert not np.shares_memory(Corpus(words=mine, doc_ptr=np.array([0, 2, 3]),
                                       vocabulary=("a", "b")).words, mine)
    # a corpus derived from another (new labels, one-vs-rest) shares its frozen arrays
    labelled = dataclasses.replace(c, labels=make_labels(["x", "y"], 2))
    assert labelled.words is c.words and labelled.doc_ptr is c.doc_ptr


def test_texts_mapped_onto_a_matrix_corpus_keep_every_vocabulary_word():
    """A corpus from a count matrix records no tokenizer: held-out texts are split into
    lowercase word runs with nothing dropped, so short and stop-list words of its
    vocabulary are found; a batch where most tokens are unknown warns; a vocabulary with
    capitals keeps case."""
    c = Corpus.from_matrix(sp.csr_matrix([[1, 2, 0], [0, 1, 3]]), ["an", "is", "x11"])
    m = c.map(["An is X11 unknown"])
    assert m.document(0) == ["an", "is", "x11"] and m.n_unknown_tokens == 1
    with pytest.warns(UserWarning, match="2 of the 2 tokens of the mapped documents are not in "
                                         "the vocabulary"):
        c.map(["nothing known"])
    cased = Corpus.from_tokens([["NASA", "Rocket", "moon"]])
    assert cased.map(["NASA Rocket moon nasa"]).document(0) == ["NASA", "Rocket", "moon"]


def test_held_out_corpora_carry_their_covariates():
    from topicsup.datasets import make_synthetic
    data = make_synthetic(n_docs=30, n_topics=3, doc_length=10, n_covariates=2, seed=0)
    c = data.corpus
    other = Corpus.from_tokens([c.document(d) for d in range(5)],
                               covariates=c.covariates[:5])
    held = c.heldout(other)
    assert held.covariate_names == c.covariate_names
    np.testing.assert_array_equal(held.covariates, c.covariates[:5])
    with pytest.raises(ValueError, match="held-out documents have the covariates"):
        c.heldout([c.document(0)])


def test_metadata_is_plain_json():
    """preprocessing holds plain JSON values (numpy scalars converted), so every corpus can
    be saved; anything else is refused by name."""
    c = Corpus.from_tokens([["a"]], _preprocessing={"seed": np.int64(3), "x": (1, 2)})
    assert c.preprocessing == {"seed": 3, "x": [1, 2]} and type(c.preprocessing["seed"]) is int
    with pytest.raises(TypeError, match=r"preprocessing\['f'\] must hold plain values"):
        Corpus.from_tokens([["a"]], _preprocessing={"f": object()})


def test_a_given_vocabulary_the_tokenizer_cannot_reach_warns():
    with pytest.warns(UserWarning, match=r"2 of the 3 vocabulary words can never be produced "
                                         r"by the tokenizer .* e.g. \['NASA', 'mp3'\]"):
        c = Corpus.from_texts(["NASA mp3 rocket"], vocabulary=["NASA", "mp3", "rocket"])
    assert c.n_tokens == 1


def test_take_selects_documents_with_their_labels_and_covariates():
    """take keeps each chosen document's tokens in order, its label, covariates and input
    position, in the order given (repeats allowed); bad positions are named."""
    c = Corpus.from_tokens([["a", "b"], ["c"], ["b", "b", "a"]], ["x", "y", "x"],
                           np.array([[1.0], [2.0], [3.0]]))
    t = c.take([2, 0, 2])
    assert [t.document(d) for d in range(3)] == [["b", "b", "a"], ["a", "b"], ["b", "b", "a"]]
    assert list(t.labels.names()) == ["x", "x", "x"] and t.covariates[:, 0].tolist() == [3, 1, 3]
    assert t.doc_index.tolist() == [2, 0, 2] and t.vocabulary == c.vocabulary
    with pytest.raises(ValueError, match=r"index holds 3, not a document position \(0..2\)"):
        c.take([0, 3])
    with pytest.raises(TypeError, match="index must be a 1-d array of document positions"):
        c.take(np.array([True, False, True]))
    with pytest.raises(ValueError, match="index selects no document"):
        c.take([])


# ---------------------------------------------------------------- pandas in, pandas out
def test_documents_in_pandas_lend_the_corpus_their_index():
    """A Series of texts or token lists, or a DataFrame of counts, gives the corpus its index
    (less the dropped empty documents); take and map keep the matching entries; documents
    given otherwise get their positions, named "document" (a RangeIndex when none dropped)."""
    texts = pd.Series(TEXTS, index=["d", "b", "a", "c"], name="text").rename_axis("key")
    with pytest.warns(UserWarning, match="dropped 1 empty document"):
        c = Corpus.from_texts(texts)
    pd.testing.assert_index_equal(c.index, pd.Index(["d", "b", "a"], name="key"))
    pd.testing.assert_index_equal(c.take([2, 0]).index, pd.Index(["a", "d"], name="key"))
    toks = pd.Series([["x", "y"], ["y"], ["x"]], index=[30, 10, 20])
    pd.testing.assert_index_equal(Corpus.from_tokens(toks).index, pd.Index([30, 10, 20]))
    df = pd.DataFrame([[1, 0], [0, 2], [3, 1]], columns=["u", "v"], index=[7, 3, 5])
    m = Corpus.from_matrix(df)
    pd.testing.assert_index_equal(m.index, df.index)
    pd.testing.assert_index_equal(m.map(df.iloc[::-1]).index, pd.Index([5, 3, 7]))
    held = c.map(pd.Series(["rocket orbit", "goalie"], index=["p", "q"]))
    pd.testing.assert_index_equal(held.index, pd.Index(["p", "q"]))
    other = Corpus.from_tokens(pd.Series([["orbit", "zeppelin"]], index=["z"]))
    pd.testing.assert_index_equal(c.heldout(other).index, pd.Index(["z"]))   # mapped
    with pytest.warns(UserWarning):
        plain = Corpus.from_texts(TEXTS)
    pd.testing.assert_index_equal(plain.index, pd.RangeIndex(3, name="document"), exact=True)
    pd.testing.assert_index_equal(Corpus.from_tokens([["a"], ["b"]]).index,
                                  pd.RangeIndex(2, name="document"), exact=True)
    with pytest.raises(ValueError, match=r"index \(the documents' pandas index\) has 1 entries "
                                         r"but the corpus has 2 documents"):
        dataclasses.replace(Corpus.from_tokens([["a"], ["b"]]), index=pd.Index(["x"]))
    with pytest.raises(TypeError, match="index must be a pandas Index"):
        dataclasses.replace(Corpus.from_tokens([["a"], ["b"]]), index=["x", "y"])


def test_pandas_labels_and_covariates_align_with_pandas_documents():
    """Beside pandas documents, pandas labels and covariates pair by index: the same entries
    in another order are reordered; missing, extra or repeated entries are refused naming
    both indexes. Beside documents that are not pandas they pair by position, as before."""
    docs = pd.Series([["a", "b"], ["b"], ["c"]], index=["x", "y", "z"])
    labels = pd.Series(["no", "yes", "no"], index=["x", "y", "z"])
    cov = pd.DataFrame({"u": [1.0, 2.0, 3.0]}, index=["x", "y", "z"])
    c = Corpus.from_tokens(docs, labels.iloc[[2, 0, 1]], cov.iloc[[1, 2, 0]])
    assert list(c.labels.names()) == ["no", "yes", "no"]
    assert c.covariates[:, 0].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"labels is a pandas Series whose index differs from "
                                         r"the documents' index \(documents \['x', 'y', 'z'\] "
                                         r"\(3 entries\), labels \[0, 1, 2\] \(3 entries\)\); "
                                         r"the document 'x' has no entry in labels"):
        Corpus.from_tokens(docs, labels.reset_index(drop=True))
    with pytest.raises(ValueError, match=r"labels has the entry 'w', which is no document"):
        Corpus.from_tokens(docs, pd.concat([labels, pd.Series(["no"], index=["w"])]))
    with pytest.raises(ValueError, match="repeats a label"):
        Corpus.from_tokens(docs, pd.concat([labels, labels.iloc[[2]]]))
    with pytest.raises(ValueError, match="covariates is a pandas DataFrame whose index differs"):
        Corpus.from_tokens(docs, labels, cov.iloc[:2])
    shuffled = labels.iloc[[2, 0, 1]]          # documents as a list: by position
    positional = Corpus.from_tokens(list(docs), shuffled)
    assert list(positional.labels.names()) == shuffled.tolist()
    m = Corpus.from_matrix(pd.DataFrame([[1, 0], [0, 1]], columns=["a", "b"], index=[5, 9]),
                           labels=pd.Series(["b", "a"], index=[9, 5]))
    assert list(m.labels.names()) == ["a", "b"]


def test_the_index_round_trips_through_arrays_and_odd_ones_are_refused():
    """to_arrays stores an index of ints or str (and its str name); from_arrays restores it
    and refuses an array that is neither; an index a checkpoint could not check (dates) or a
    name that is not a str is refused by to_arrays, naming it."""
    for index in (pd.Index(["b", "a"], name="key"), pd.Index([12, 3]),
                  pd.RangeIndex(2, name="document")):
        c = dataclasses.replace(Corpus.from_tokens([["a"], ["b"]]), index=index)
        pd.testing.assert_index_equal(Corpus.from_arrays(c.to_arrays(), {}).index, index)
    old = {k: v for k, v in c.to_arrays().items() if "index_name" not in k and
           not k.endswith("/index")}
    pd.testing.assert_index_equal(Corpus.from_arrays(old, {}).index,
                                  pd.RangeIndex(2, name="document"), exact=True)
    with pytest.raises(ValueError, match="index must be a 1-d array of integers or str, got "
                                         "dtype float64"):
        Corpus.from_arrays({**c.to_arrays(), "corpus/index": np.array([0.5, 1.5])}, {})
    dates = dataclasses.replace(c, index=pd.date_range("2024-01-01", periods=2))
    pd.testing.assert_index_equal(dates.take([1]).index, dates.index[[1]])   # kept in memory
    with pytest.raises(ValueError, match=r"the corpus's index has dtype datetime64\[.*\].*a "
                                         r"checkpoint stores an index of integers or of str"):
        dates.to_arrays()
    with pytest.raises(ValueError, match="the corpus's index is named 3"):
        dataclasses.replace(c, index=pd.Index(["a", "b"], name=3)).to_arrays()
