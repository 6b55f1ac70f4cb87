"""Tests for topicsup.newsgroups: locating, parsing and loading 20 Newsgroups (bydate)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import numpy as np
import pytest

from topicsup import Corpus
from topicsup import newsgroups as ng
from topicsup.newsgroups import (BINARY_CATEGORIES, NEWSGROUPS, find_archive,
                                 load_20newsgroups, load_20newsgroups_binary, read_archive)

ARCHIVE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "20news-bydate.tar.gz"
needs_archive = pytest.mark.skipif(
    not ARCHIVE.is_file(),
    reason=f"20 Newsgroups archive not found at {ARCHIVE}; put 20news-bydate.tar.gz there (from "
           f"{ng.DOWNLOAD_URL}) to run the tests on the real corpus")


# --------------------------------------------------------------------------------------------
# A tiny synthetic archive (no real data needed)

GROUPS = ("alt.atheism", "sci.space")
POSTS = {
    ("train", "alt.atheism"): {
        "101": "god belief atheism argument evidence religion",
        "20": "atheism belief evidence argument morality god",
        "3": "religion god belief morality atheism faith",
    },
    ("train", "sci.space"): {
        "7": "orbit rocket launch shuttle moon nasa",
        "55": "nasa orbit moon launch rocket satellite",
        "6": "shuttle launch orbit nasa rocket mars",
    },
    ("test", "alt.atheism"): {"9": "god atheism evidence unseenword", "8": "the and of"},
    ("test", "sci.space"): {"4": "rocket orbit nasa launch", "5": "moon shuttle novelword"},
}


def _post(group: str, doc_id: str, body: str) -> bytes:
    """A post with a header block; non-empty bodies get a quoted "From:" line further down."""
    header = (f"From: someone{doc_id}@example.org (Some One)\nSubject: post {doc_id}\n"
              f"Organization: Example\nNewsgroups: {group}\nLines: 3\n")
    trailer = "\n\nFrom: a quoted line inside the body\n" if body != "the and of" else "\n"
    return (header + "\n" + body + trailer).encode("latin-1")


@pytest.fixture(scope="module")
def tiny_archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / ng.ARCHIVE_NAME
    with tarfile.open(path, "w:gz") as tar:
        for (subset, group), posts in POSTS.items():
            folder = f"20news-bydate-{subset}/{group}"
            for doc_id, body in posts.items():
                data = _post(group, doc_id, body)
                info = tarfile.TarInfo(f"{folder}/{doc_id}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_tiny_archive_parsing(tiny_archive):
    frame = read_archive(tiny_archive)
    assert list(frame.columns) == ["subset", "newsgroup", "doc_id", "text"]
    assert len(frame) == 10
    # train first, then by newsgroup, then numeric doc id
    assert frame["subset"].tolist() == ["train"] * 6 + ["test"] * 4
    assert frame["doc_id"].tolist()[:3] == ["3", "20", "101"]
    assert frame["newsgroup"].tolist()[:6] == ["alt.atheism"] * 3 + ["sci.space"] * 3
    assert not frame["text"].str.startswith("From:").any()
    assert not frame["text"].str.contains("Subject:").any()
    first = frame.iloc[0]
    assert first["text"].startswith(POSTS[("train", "alt.atheism")]["3"])
    # the blank line ends the header block only; later lines stay
    assert "From: a quoted line" in first["text"]
    # the frame is a copy: modifying it does not affect the cache
    frame.loc[0, "text"] = "changed"
    assert read_archive(tiny_archive).loc[0, "text"] != "changed"


def test_tiny_archive_header_without_blank_line_is_kept(tmp_path):
    path = tmp_path / "x.tar.gz"
    data = b"no blank line here at all"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("20news-bydate-train/sci.space/1")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert read_archive(path)["text"].tolist() == ["no blank line here at all"]


def test_tiny_archive_labels_and_vocabulary(tiny_archive):
    train, frame = load_20newsgroups("train", path=tiny_archive, min_count=1, max_df=1.0,
                                     return_frame=True)
    assert train.labels.kind == "binary"  # two groups -> binary
    assert train.labels.classes == GROUPS
    assert train.n_docs == 6
    assert list(train.labels.names()) == frame["newsgroup"].tolist()
    assert "unseenword" not in train.vocabulary and "god" in train.vocabulary
    assert train.preprocessing["subset"] == "train"
    assert train.preprocessing["remove"] == "headers"
    assert train.preprocessing["n_empty_dropped"] == 0

    with _no_warnings():
        test, tframe = load_20newsgroups("test", path=tiny_archive, min_count=1, max_df=1.0,
                                         return_frame=True)
    assert test.vocabulary == train.vocabulary
    assert test.n_docs == 4  # the all-stop-word post is kept, empty
    assert test.preprocessing["n_empty"] == 1
    assert test.preprocessing["subset"] == "test"
    assert test.n_unknown_tokens == 2  # unseenword, novelword
    assert test.labels.values.tolist() == [0, 0, 1, 1]
    assert tframe["doc_id"].tolist() == ["8", "9", "4", "5"]
    assert np.array_equal(test.doc_index, np.arange(4))

    # one group -> multiclass with a single class; an empty train doc is dropped and counted
    one = load_20newsgroups("train", ["sci.space"], path=tiny_archive, min_count=1, max_df=1.0,
                            stop_words=["orbit"])
    assert one.labels.classes == ("sci.space",) and one.labels.kind == "multiclass"
    # a given stop-word list replaces the English one ("the" is in the quoted trailer line)
    assert "orbit" not in one.vocabulary and "the" in one.vocabulary


class _no_warnings:
    def __enter__(self):
        import warnings
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_empty_train_documents_dropped_silently_and_recorded(tmp_path):
    path = tmp_path / ng.ARCHIVE_NAME
    bodies = {"1": "alpha beta gamma", "2": "the and of", "3": "alpha beta delta",
              "4": "gamma delta alpha"}
    with tarfile.open(path, "w:gz") as tar:
        for subset in ("train", "test"):
            for group in GROUPS:
                for doc_id, body in bodies.items():
                    data = _post(group, doc_id, body)
                    info = tarfile.TarInfo(f"20news-bydate-{subset}/{group}/{doc_id}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
    with _no_warnings():
        corpus, frame = load_20newsgroups(path=path, min_count=1, max_df=1.0, return_frame=True)
    assert corpus.preprocessing["n_empty_dropped"] == 2
    assert corpus.n_docs == 6 and len(frame) == 8
    aligned = frame.iloc[corpus.doc_index]
    assert list(corpus.labels.names()) == aligned["newsgroup"].tolist()
    assert frame.loc[corpus.index, "newsgroup"].tolist() == aligned["newsgroup"].tolist()
    assert corpus.document(0)[:3] == ["alpha", "beta", "gamma"]


# --------------------------------------------------------------------------------------------
# Validation and archive lookup


def test_subset_validation(tiny_archive):
    with pytest.raises(ValueError, match=r"subset.*'validation'"):
        load_20newsgroups("validation", path=tiny_archive)


def test_categories_validation(tiny_archive):
    with pytest.raises(ValueError, match=r"unknown newsgroup.*'sci.spaec'.*alt\.atheism"):
        load_20newsgroups(categories=["sci.spaec"], path=tiny_archive)
    with pytest.raises(ValueError, match="categories is empty"):
        load_20newsgroups(categories=[], path=tiny_archive)
    with pytest.raises(TypeError, match="single string"):
        load_20newsgroups(categories="sci.space", path=tiny_archive)
    with pytest.raises(ValueError, match=r"no training posts.*rec\.autos"):
        load_20newsgroups(categories=["rec.autos"], path=tiny_archive)
    with pytest.raises(ValueError, match="stop_words"):
        load_20newsgroups(path=tiny_archive, stop_words="french")
    with pytest.raises(ValueError, match="min_count"):
        load_20newsgroups(path=tiny_archive, min_count=0)
    with pytest.raises(TypeError, match="categories"):
        load_20newsgroups_binary(path=tiny_archive, categories=["sci.space"])


def test_constants():
    assert len(NEWSGROUPS) == 20 and list(NEWSGROUPS) == sorted(NEWSGROUPS)
    assert BINARY_CATEGORIES == ("alt.atheism", "talk.religion.misc")
    assert set(BINARY_CATEGORIES) <= set(NEWSGROUPS)


def test_env_var_used_when_no_path(tiny_archive, monkeypatch, tmp_path):
    monkeypatch.setenv("TOPICSUP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOPICSUP_DATA", str(tiny_archive))
    assert find_archive(download=False) == tiny_archive
    monkeypatch.setenv("TOPICSUP_DATA", str(tiny_archive.parent))  # a directory works too
    assert find_archive(download=False) == tiny_archive
    corpus = load_20newsgroups(min_count=1, max_df=1.0, download=False)
    assert corpus.n_docs == 6
    monkeypatch.setenv("TOPICSUP_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="TOPICSUP_DATA.*nowhere"):
        find_archive(download=False)


def test_cache_dir_used(tiny_archive, monkeypatch, tmp_path):
    monkeypatch.delenv("TOPICSUP_DATA", raising=False)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ng.ARCHIVE_NAME).write_bytes(tiny_archive.read_bytes())
    assert find_archive(cache_dir=cache, download=False) == cache / ng.ARCHIVE_NAME
    monkeypatch.setenv("TOPICSUP_CACHE", str(cache))
    assert find_archive(download=False) == cache / ng.ARCHIVE_NAME


def test_missing_explicit_path(tmp_path):
    missing = tmp_path / "does-not-exist.tar.gz"
    with pytest.raises(FileNotFoundError, match="does-not-exist"):
        find_archive(missing)
    with pytest.raises(FileNotFoundError, match="does-not-exist"):
        load_20newsgroups(path=missing)
    with pytest.raises(FileNotFoundError, match="does not contain"):
        find_archive(tmp_path)  # a directory without the archive


def test_not_found_without_download(monkeypatch, tmp_path):
    monkeypatch.delenv("TOPICSUP_DATA", raising=False)
    cache = tmp_path / "empty-cache"
    monkeypatch.setenv("TOPICSUP_CACHE", str(cache))
    with pytest.raises(FileNotFoundError) as info:
        find_archive(download=False)
    msg = str(info.value)
    assert "TOPICSUP_DATA" in msg and "path=" in msg
    assert str(cache / ng.ARCHIVE_NAME) in msg
    with pytest.raises(FileNotFoundError, match="TOPICSUP_DATA"):
        load_20newsgroups_binary(download=False)


def test_failed_download_gives_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("TOPICSUP_DATA", raising=False)

    def offline(*args, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(ng.urllib.request, "urlopen", offline)
    with pytest.raises(FileNotFoundError, match=r"unreachable.*TOPICSUP_DATA") as info:
        find_archive(cache_dir=tmp_path)
    assert str(tmp_path / ng.ARCHIVE_NAME) in str(info.value)
    assert list(tmp_path.iterdir()) == []  # no partial file left behind


# --------------------------------------------------------------------------------------------
# The real archive


@pytest.fixture(scope="module")
def real_frame():
    return read_archive(ARCHIVE)


@needs_archive
def test_real_counts(real_frame):
    counts = real_frame["subset"].value_counts()
    assert counts["train"] == 11314 and counts["test"] == 7532
    assert tuple(sorted(real_frame["newsgroup"].unique())) == NEWSGROUPS
    for subset in ("train", "test"):
        assert real_frame.loc[real_frame["subset"] == subset, "newsgroup"].nunique() == 20


@needs_archive
def test_real_headers_stripped(real_frame):
    with tarfile.open(ARCHIVE, "r:gz") as tar:
        member = tar.getmember("20news-bydate-train/alt.atheism/51060")
        raw = tar.extractfile(member).read().decode("latin-1")
    assert raw.startswith("From:")
    row = real_frame[(real_frame["newsgroup"] == "alt.atheism")
                     & (real_frame["doc_id"] == "51060")].iloc[0]
    assert row["text"] == raw.partition("\n\n")[2]
    assert not row["text"].startswith("From:")
    # every raw post starts with its "From:" header; after stripping only a handful of bodies
    # (12 of 18,846) start with a quoted/forwarded "From:" line of another message
    assert real_frame["text"].str.startswith("From:").sum() < 20
    assert not real_frame["text"].str.match(r"From: .*\nSubject: .*\nOrganization: ").any()


@pytest.fixture(scope="module")
def binary_pair():
    if not ARCHIVE.is_file():
        pytest.skip(f"20 Newsgroups archive not found at {ARCHIVE}")
    return (load_20newsgroups_binary("train", path=ARCHIVE),
            load_20newsgroups_binary("test", path=ARCHIVE))


@needs_archive
def test_real_binary_task(binary_pair):
    train, test = binary_pair
    for c in (train, test):
        assert isinstance(c, Corpus)
        assert c.labels.kind == "binary"
        assert c.labels.classes == BINARY_CATEGORIES
        assert set(np.unique(c.labels.values)) == {0, 1}
    assert test.vocabulary == train.vocabulary
    assert test.n_unknown_tokens > 0
    assert train.n_unknown_tokens == 0
    assert train.n_docs + train.preprocessing["n_empty_dropped"] == 480 + 377
    assert test.n_docs == 319 + 251
    assert np.bincount(test.labels.values).tolist() == [319, 251]
    assert train.preprocessing["categories"] == list(BINARY_CATEGORIES)
    assert train.preprocessing["min_count"] == 5 and train.preprocessing["max_df"] == 0.5


@needs_archive
def test_real_full_corpus_shares_vocabulary():
    train = load_20newsgroups("train", path=ARCHIVE)
    test = load_20newsgroups("test", path=ARCHIVE)
    assert train.labels.kind == "multiclass" and train.labels.classes == NEWSGROUPS
    assert test.labels.classes == NEWSGROUPS
    assert train.n_docs + train.preprocessing["n_empty_dropped"] == 11314
    assert test.n_docs == 7532
    assert test.vocabulary == train.vocabulary
    assert test.n_unknown_tokens > 0
    # the cache returns corpora that cannot change it: their own metadata, read-only arrays
    again = load_20newsgroups("train", path=ARCHIVE)
    again.preprocessing["subset"] = "mutated"
    with pytest.raises(ValueError, match="read-only"):
        again.words[:] = 0
    assert load_20newsgroups("train", path=ARCHIVE).preprocessing["subset"] == "train"
    assert train.words.any()


@needs_archive
def test_a_document_count_max_df_is_not_the_fraction():
    """max_df=1 (words in at most one post) and max_df=1.0 (no cut) are different corpora,
    not one cache entry."""
    cats = list(BINARY_CATEGORIES)
    every = load_20newsgroups("train", cats, path=ARCHIVE, max_df=1.0, min_count=1)
    once = load_20newsgroups("train", cats, path=ARCHIVE, max_df=1, min_count=1)
    assert once.n_words < every.n_words
    assert once.preprocessing["max_df"] == 1 and every.preprocessing["max_df"] == 1.0
