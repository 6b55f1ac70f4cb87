"""The 20 Newsgroups corpus ("bydate" version) as ``Corpus`` objects.

Source
------
The canonical archive ``20news-bydate.tar.gz`` (18,846 posts, 20 newsgroups, split by date into
11,314 training and 7,532 test posts; folders ``20news-bydate-train/<newsgroup>/<id>`` and
``20news-bydate-test/<newsgroup>/<id>``). ``find_archive`` looks for it, in order: the ``path``
argument, the environment variable ``TOPICSUP_DATA``, the cache directory (``cache_dir``,
``$TOPICSUP_CACHE`` or ``~/.cache/topicsup``), and finally downloads it from the dataset's
public address (``DOWNLOAD_URL``) into the cache when ``download=True`` and the machine is online.

Preprocessing (recorded in ``Corpus.preprocessing``)
----------------------------------------------------
1. Bytes are decoded as latin-1 and ``\\r\\n`` line ends normalised to ``\\n``.
2. Header stripping: every post starts with a header block (``From:``, ``Subject:``,
   ``Organization:`` ...) that ends at the first blank line; everything before the first blank
   line is dropped (a post without a blank line is kept whole). Quoted replies and signatures
   are kept.
3. Tokenization with ``topicsup.corpus.tokenize``: lowercase, maximal runs of letters (digits,
   ``_`` and punctuation split words), tokens shorter than ``min_length`` (default 3) dropped,
   stop words dropped (``stop_words="english"`` is ``topicsup.stopwords.ENGLISH_STOP_WORDS``).
4. Vocabulary: built on the TRAIN posts of the selected newsgroups only, keeping words with a
   total count of at least ``min_count`` (default 5) that occur in at most ``max_df`` (default
   0.5, a fraction of the training documents) of them, sorted alphabetically. Test posts are
   mapped onto that vocabulary (``Corpus.map``); their unknown tokens are dropped and counted in
   ``Corpus.n_unknown_tokens``.
5. Empty documents: training posts left without tokens are dropped (their input positions are in
   ``Corpus.dropped_documents``, the count in ``preprocessing["n_empty_dropped"]``); test posts
   left without tokens are kept with zero tokens so predictions stay aligned with the input.

Labels are the newsgroup names: multiclass with ``classes`` the selected newsgroups in sorted
order (the same for train and test), or binary when exactly two newsgroups are selected (the
second in sorted order is the positive class). The binary task of the papers is alt.atheism
(negative) vs talk.religion.misc (positive): ``load_20newsgroups_binary``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tarfile
import tempfile
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Iterable, cast

import numpy as np
import pandas as pd

from . import validation as check
from .corpus import Corpus, LabelKind, _check_count_arg, _check_max_df, stop_word_set

__all__ = [
    "ARCHIVE_NAME", "BINARY_CATEGORIES", "DOWNLOAD_URL", "NEWSGROUPS", "find_archive",
    "load_20newsgroups", "load_20newsgroups_binary", "read_archive",
]

ARCHIVE_NAME = "20news-bydate.tar.gz"
DOWNLOAD_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
DATASET_NAME = "20newsgroups-bydate"
_TRAIN_DIR = "20news-bydate-train"
_TEST_DIR = "20news-bydate-test"
_SUBSETS = ("train", "test")
_DOWNLOAD_TIMEOUT = 30.0

NEWSGROUPS: tuple[str, ...] = tuple(sorted((
    "alt.atheism", "comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
    "comp.sys.mac.hardware", "comp.windows.x", "misc.forsale", "rec.autos", "rec.motorcycles",
    "rec.sport.baseball", "rec.sport.hockey", "sci.crypt", "sci.electronics", "sci.med",
    "sci.space", "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast",
    "talk.politics.misc", "talk.religion.misc",
)))
BINARY_CATEGORIES: tuple[str, str] = ("alt.atheism", "talk.religion.misc")


# --------------------------------------------------------------------------------------------
# Locating the archive


def default_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory: ``cache_dir``, else ``$TOPICSUP_CACHE``, else ``~/.cache/topicsup``."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("TOPICSUP_CACHE")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/topicsup").expanduser()


def _resolve_candidate(candidate: str | os.PathLike[str], source: str) -> Path:
    """A file, or a directory holding ``ARCHIVE_NAME``; anything else is FileNotFoundError."""
    p = Path(candidate).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        inner = p / ARCHIVE_NAME
        if inner.is_file():
            return inner
        raise FileNotFoundError(f"{source} is the directory {str(p)!r}, which does not contain "
                                f"{ARCHIVE_NAME}")
    raise FileNotFoundError(f"{source} {str(p)!r} does not exist (expected {ARCHIVE_NAME} or a "
                            f"directory containing it)")


def _verify_archive(path: Path) -> None:
    """Raise ValueError unless ``path`` is a gzip tar holding the train and test folders."""
    seen: set[str] = set()
    try:
        with tarfile.open(path, "r:gz") as tar:
            for member in tar:
                top = member.name.lstrip("./").split("/", 1)[0]
                if top in (_TRAIN_DIR, _TEST_DIR):
                    seen.add(top)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable gzip tar archive: {exc}") from exc
    missing = sorted({_TRAIN_DIR, _TEST_DIR} - seen)
    if missing:
        raise ValueError(f"{str(path)!r} does not contain the folder(s) {missing}; is it the "
                         f"'bydate' 20 Newsgroups archive?")


def _download(url: str, target: Path, timeout: float = _DOWNLOAD_TIMEOUT) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=ARCHIVE_NAME + ".", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            while True:
                chunk = resp.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        _verify_archive(tmp)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def find_archive(path: str | os.PathLike[str] | None = None, *,
                 cache_dir: str | os.PathLike[str] | None = None,
                 download: bool = True) -> Path:
    """Locate ``20news-bydate.tar.gz``, downloading it into the cache if needed.

    Parameters
    ----------
    path : str or path-like, optional
        The archive itself or a directory containing ``20news-bydate.tar.gz``. When given it
        must exist (no fallback to the other places).
    cache_dir : str or path-like, optional
        Cache directory; defaults to ``$TOPICSUP_CACHE`` or ``~/.cache/topicsup``.
    download : bool
        Download from ``DOWNLOAD_URL`` into the cache when the archive is found nowhere else.

    Returns
    -------
    pathlib.Path
        The archive file.

    Raises
    ------
    FileNotFoundError
        If ``path`` or ``$TOPICSUP_DATA`` names something that does not exist or holds no
        archive, or if the archive is nowhere and cannot be (or may not be) downloaded; the
        message says how to provide it.

    Notes
    -----
    Search order: ``path``; ``$TOPICSUP_DATA`` (file or directory); ``<cache>/20news-bydate.tar.gz``;
    download (written to a temporary file in the cache directory, checked to be a gzip tar with
    the ``20news-bydate-train`` and ``20news-bydate-test`` folders, then renamed).
    """
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or path-like, got {type(path).__name__}")
        return _resolve_candidate(path, "path")
    env = os.environ.get("TOPICSUP_DATA")
    if env:
        return _resolve_candidate(env, "TOPICSUP_DATA")
    cache = default_cache_dir(cache_dir)
    cached = cache / ARCHIVE_NAME
    if cached.is_file():
        return cached
    how = (f"Provide the archive ({ARCHIVE_NAME}, from {DOWNLOAD_URL}) in one of these ways: "
           f"pass path='/path/to/{ARCHIVE_NAME}' (or its directory), set the environment "
           f"variable TOPICSUP_DATA to the file or its directory, or put it in the cache at "
           f"{str(cached)!r}.")
    if not download:
        raise FileNotFoundError(f"20 Newsgroups archive not found and download=False. {how}")
    try:
        return _download(DOWNLOAD_URL, cached)
    except Exception as exc:  # offline, HTTP error, corrupt download, read-only cache ...
        raise FileNotFoundError(f"20 Newsgroups archive not found and downloading {DOWNLOAD_URL} "
                                f"failed ({type(exc).__name__}: {exc}). {how}") from exc


# --------------------------------------------------------------------------------------------
# Reading the archive


def _strip_header(text: str) -> str:
    head, sep, body = text.partition("\n\n")
    return body if sep else text


def _doc_key(doc_id: str) -> tuple[int, int, str]:
    return (0, int(doc_id), doc_id) if doc_id.isdigit() else (1, 0, doc_id)


@functools.lru_cache(maxsize=4)
def _read_archive_cached(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    rows: list[tuple[int, str, tuple[int, int, str], str, str]] = []
    subset_of = {_TRAIN_DIR: 0, _TEST_DIR: 1}
    try:
        with tarfile.open(path, "r:gz") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                parts = member.name.lstrip("./").split("/")
                if len(parts) != 3 or parts[0] not in subset_of:
                    continue
                _, group, doc_id = parts
                f = tar.extractfile(member)
                if f is None:
                    continue
                raw = f.read().decode("latin-1").replace("\r\n", "\n")
                rows.append((subset_of[parts[0]], group, _doc_key(doc_id), doc_id,
                             _strip_header(raw)))
    except (tarfile.TarError, EOFError) as exc:
        raise ValueError(f"{path!r} is not a readable gzip tar archive: {exc}") from exc
    if not rows:
        raise ValueError(f"{path!r} holds no posts under {_TRAIN_DIR}/<newsgroup>/<id> or "
                         f"{_TEST_DIR}/<newsgroup>/<id>; is it the 'bydate' 20 Newsgroups "
                         f"archive?")
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    frame = pd.DataFrame({
        "subset": pd.Series([_SUBSETS[r[0]] for r in rows], dtype=object),
        "newsgroup": pd.Series([r[1] for r in rows], dtype=object),
        "doc_id": pd.Series([r[3] for r in rows], dtype=object),
        "text": pd.Series([r[4] for r in rows], dtype=object),
    })
    return frame


def _archive_key(archive: str | os.PathLike[str]) -> tuple[str, int, int]:
    if not isinstance(archive, (str, os.PathLike)):
        raise TypeError(f"archive must be a str or path-like, got {type(archive).__name__}")
    p = Path(archive).expanduser()
    if not p.is_file():
        raise FileNotFoundError(f"archive {str(p)!r} does not exist or is not a file")
    p = p.resolve()
    st = p.stat()
    return str(p), st.st_mtime_ns, st.st_size


def read_archive(archive: str | os.PathLike[str]) -> pd.DataFrame:
    """Read every post of a 20 Newsgroups "bydate" archive into a DataFrame.

    Parameters
    ----------
    archive : str or path-like
        The ``20news-bydate.tar.gz`` file (see ``find_archive``).

    Returns
    -------
    pandas.DataFrame
        Columns ``subset`` ("train" or "test"), ``newsgroup``, ``doc_id`` (the file name) and
        ``text`` (decoded as latin-1, header block stripped: everything before the first blank
        line is dropped). Rows are sorted by subset (train first), newsgroup and numeric
        ``doc_id``, with a fresh ``RangeIndex``.

    Notes
    -----
    The parsed frame is cached in memory per (resolved path, modification time, size); every
    call returns a copy, so callers may modify it.
    """
    return _read_archive_cached(*_archive_key(archive)).copy()


# --------------------------------------------------------------------------------------------
# Loading corpora


def _check_subset(subset: Any) -> str:
    if not isinstance(subset, str) or subset not in _SUBSETS:
        raise ValueError(f"subset must be one of {list(_SUBSETS)}, got {subset!r}")
    return subset


def _check_categories(categories: Any) -> tuple[str, ...] | None:
    if categories is None:
        return None
    if isinstance(categories, (str, bytes)):
        raise TypeError(f"categories must be a list of newsgroup names, got the single string "
                        f"{categories!r}; use [{categories!r}]")
    try:
        cats = list(categories)
    except TypeError:
        raise TypeError(f"categories must be a list of newsgroup names, got "
                        f"{type(categories).__name__}") from None
    if not cats:
        raise ValueError(f"categories is empty; pass None for all 20 newsgroups or some of "
                         f"{list(NEWSGROUPS)}")
    bad_type = [c for c in cats if not isinstance(c, str)]
    if bad_type:
        raise TypeError(f"categories must be newsgroup names (str); got {bad_type[0]!r} of type "
                        f"{type(bad_type[0]).__name__}")
    unknown = [c for c in cats if c not in NEWSGROUPS]
    if unknown:
        raise ValueError(f"unknown newsgroup(s) in categories: {unknown}; valid names are "
                         f"{list(NEWSGROUPS)}")
    return tuple(sorted(set(cats)))


def _check_min_length(min_length: Any) -> int:
    return check.integer("min_length", min_length, low=1)


def _select(frame: pd.DataFrame, subset: str, categories: tuple[str, ...]) -> pd.DataFrame:
    rows = frame[(frame["subset"] == subset) & frame["newsgroup"].isin(categories)]
    return rows.reset_index(drop=True)


def _label_type(categories: tuple[str, ...]) -> LabelKind:
    return "binary" if len(categories) == 2 else "multiclass"


@functools.lru_cache(maxsize=8, typed=True)   # typed: max_df=1 (one post) is not 1.0 (all)
def _train_corpus_cached(key: tuple[str, int, int], categories: tuple[str, ...], min_count: int,
                         max_df: float | int, min_length: int,
                         stops: frozenset[str]) -> tuple[Corpus, int]:
    frame = _read_archive_cached(*key)
    rows = _select(frame, "train", categories)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"dropped \d+ empty document")
        corpus = Corpus.from_texts(rows["text"].tolist(), rows["newsgroup"].tolist(),
                                   min_count=min_count, max_df=max_df, min_length=min_length,
                                   stop_words=stops, empty="drop",
                                   label_type=_label_type(categories), classes=categories)
    return corpus, len(rows)


def _fresh(corpus: Corpus, preprocessing: dict[str, Any]) -> Corpus:
    """A corpus that shares nothing mutable with the cached one (its arrays are read-only;
    its metadata is its own)."""
    return dataclasses.replace(corpus, preprocessing=preprocessing)


def load_20newsgroups(subset: str = "train", categories: Iterable[str] | None = None,
                      path: str | os.PathLike[str] | None = None, *, min_count: int = 5,
                      max_df: float | int = 0.5, min_length: int = 3,
                      stop_words: str | Iterable[str] | None = "english",
                      cache_dir: str | os.PathLike[str] | None = None, download: bool = True,
                      return_frame: bool = False) -> Corpus | tuple[Corpus, pd.DataFrame]:
    """Load the 20 Newsgroups "bydate" train or test split as a labelled ``Corpus``.

    Parameters
    ----------
    subset : {"train", "test"}
        Which split to return.
    categories : list of str, optional
        Newsgroups to keep (names from ``NEWSGROUPS``); ``None`` keeps every newsgroup in the
        archive (all 20 for the canonical one).
    path : str or path-like, optional
        The archive or its directory; see ``find_archive`` for the other places searched.
    min_count : int
        Keep words occurring at least this many times in the training posts.
    max_df : float or int
        Drop words occurring in more than this fraction (float) or number (int) of the
        training posts.
    min_length : int
        Shortest token kept by the tokenizer.
    stop_words : "english", None or iterable of str
        ``"english"`` is ``topicsup.stopwords.ENGLISH_STOP_WORDS``; ``None`` keeps every word;
        an iterable is used as given.
    cache_dir : str or path-like, optional
        Where the archive is cached / downloaded (default ``$TOPICSUP_CACHE`` or
        ``~/.cache/topicsup``).
    download : bool
        Allow downloading the archive when it is found nowhere else.
    return_frame : bool
        Also return the raw rows used (see Returns).

    Returns
    -------
    Corpus
        Labels are the newsgroup names: multiclass with the selected newsgroups as classes in
        sorted order, or binary when exactly two are selected (the second in sorted order is
        positive). The vocabulary is always built on the training posts of the selected
        newsgroups, so train and test corpora share it; the test corpus reports the dropped
        unknown tokens in ``n_unknown_tokens``. ``preprocessing`` records every setting plus
        ``n_documents_raw`` and ``n_empty_dropped`` (train) or ``n_empty`` (test, kept).
    frame : pandas.DataFrame
        Only with ``return_frame=True``: the rows of ``read_archive`` used, in input order with
        a fresh ``RangeIndex``. Empty training posts are dropped from the corpus but not from the
        frame; ``frame.iloc[corpus.doc_index]`` aligns the frame with the corpus documents
        (for the test split ``doc_index`` is ``0..n-1``). ``corpus.index`` holds the same
        positions, which are the frame's index labels, so ``frame.join(session.doc_topics())``
        puts each post's topics on its row.

    Raises
    ------
    ValueError
        Bad ``subset``, unknown or empty ``categories``, bad frequency cut-offs, or a selected
        newsgroup with no training posts in the archive.
    TypeError
        ``categories`` or ``stop_words`` of the wrong type.
    FileNotFoundError
        The archive cannot be found or downloaded (see ``find_archive``).

    Notes
    -----
    The parsed archive and the training corpus for a given (archive, categories, settings) are
    cached in memory, so loading the test split after the training split does not tokenize the
    training posts again. Each call returns independent copies.
    """
    subset = _check_subset(subset)
    cats = _check_categories(categories)
    stops = stop_word_set(stop_words)
    _check_count_arg("min_count", min_count)
    _check_max_df(max_df)
    min_length = _check_min_length(min_length)
    if isinstance(max_df, (np.integer, np.floating)):
        max_df = max_df.item()
    min_count = int(min_count)
    download = check.flag("download", download)
    return_frame = check.flag("return_frame", return_frame)
    if cache_dir is not None:
        check.path_like("cache_dir", cache_dir)

    archive = find_archive(path, cache_dir=cache_dir, download=download)
    key = _archive_key(archive)
    frame = _read_archive_cached(*key)
    train_groups = set(frame.loc[frame["subset"] == "train", "newsgroup"])
    if cats is None:
        cats = tuple(sorted(train_groups))
    else:
        missing = [c for c in cats if c not in train_groups]
        if missing:
            raise ValueError(f"the archive {key[0]!r} has no training posts for newsgroup(s) "
                             f"{missing}")

    train, n_train_raw = _train_corpus_cached(key, cats, min_count, max_df, min_length, stops)
    prep = dict(train.preprocessing)
    prep.update({
        "dataset": DATASET_NAME, "subset": subset, "categories": list(cats),
        "remove": "headers", "encoding": "latin-1", "min_count": min_count, "max_df": max_df,
        "min_length": min_length, "vocabulary_built_on": "train", "archive": key[0],
    })
    if subset == "train":
        prep.update({"n_documents_raw": n_train_raw,
                     "n_empty_dropped": int(train.dropped_documents.size)})
        corpus = _fresh(train, prep)
        rows = _select(frame, "train", cats) if return_frame else None
    else:
        rows = _select(frame, "test", cats)
        mapped = train.map(rows["text"].tolist(), rows["newsgroup"].tolist(), empty="keep")
        prep.update({"n_documents_raw": len(rows),
                     "n_empty": int(np.count_nonzero(mapped.doc_lengths == 0))})
        corpus = dataclasses.replace(mapped, preprocessing=prep)
    if return_frame:
        return corpus, cast(pd.DataFrame, rows).copy()   # rows: selected when return_frame
    return corpus


def load_20newsgroups_binary(subset: str = "train",
                             path: str | os.PathLike[str] | None = None,
                             **kwargs: Any) -> Corpus | tuple[Corpus, pd.DataFrame]:
    """The papers' binary task: alt.atheism (negative, 0) vs talk.religion.misc (positive, 1).

    Parameters
    ----------
    subset : {"train", "test"}
        Which split to return.
    path : str or path-like, optional
        The archive or its directory (see ``find_archive``).
    **kwargs
        Any keyword of ``load_20newsgroups`` except ``categories``.

    Returns
    -------
    Corpus
        Binary labels with ``classes == ("alt.atheism", "talk.religion.misc")``; the vocabulary
        is built on the training posts of these two newsgroups.
    """
    if "categories" in kwargs:
        raise TypeError("load_20newsgroups_binary fixes categories to "
                        f"{list(BINARY_CATEGORIES)}; use load_20newsgroups for other groups")
    return load_20newsgroups(subset, list(BINARY_CATEGORIES), path, **kwargs)
