"""The 20 Newsgroups corpus ("bydate" version) as ``Corpus`` objects.

Source
------
The canonical archive ``20news-bydate.tar.gz`` (18,846 posts, 20 newsgroups, split by date into
11,314 training and 7,532 test posts; folders ``20news-bydate-train/<newsgroup>/<id>`` and
``20news-bydate-test/<newsgroup>/<id>``). Every loader, notebook and benchmark finds it with
``find_archive``, which looks, in this order, at:

1. the ``path`` argument (the file or its directory);
2. the environment variable ``TOPICSUP_DATA`` (the file or its directory);
3. ``../shared/data`` beside the repository, i.e. ``shared/data`` next to the root of the
   source checkout topicsup runs from (skipped for an installed package, which has none);
4. the cache: ``cache_dir``, else ``$TOPICSUP_CACHE``, else ``~/.cache/topicsup``;
5. a download from the dataset's public address (``DOWNLOAD_URL``) into the cache, only when
   ``download=True``.

A ``path`` or ``TOPICSUP_DATA`` that names nothing usable is an error at once (a setting with
a typo does not silently fall back to another copy). When every place fails, the
``FileNotFoundError`` lists each place looked, with its path, and how to provide the archive.
``newsgroups_archive()`` is the same search for notebooks: the path, or ``None`` after
printing that message.

Preprocessing, by name (recorded in ``Corpus.preprocessing``)
-------------------------------------------------------------
``preprocessing="benchmark"`` (the default) is the loader's original recipe, kept bit for bit
so the benchmark tables stay reproducible; ``preprocessing="readable"`` gives topics without
mail residue (the notebooks' choice). Both record their name under ``"preprocessing"``.

1. Bytes are decoded as latin-1 and ``\\r\\n`` line ends normalised to ``\\n``.
2. Text removal (recorded under ``"remove"``):

   * ``"benchmark"``: the header block (``From:``, ``Subject:``, ``Organization:`` ...)
     ends at the first blank line and everything before it is dropped; a post without a blank
     line is kept whole (recorded as ``"headers"``). Quoted replies and signatures are kept.
   * ``"readable"``: ``remove=("headers", "footers", "quotes")``, the three strips of
     scikit-learn's ``fetch_20newsgroups(remove=...)``, reimplemented line for line: headers
     (everything before the first blank line), footers (from the last line that is blank or
     made of hyphens, the signature), quotes (lines starting with ``>`` or ``|`` and lines
     such as ``In article <...> ... writes:`` that introduce a quotation). Any ``remove``
     given explicitly replaces the recipe's (recorded as a list).

3. Mail residue (``"readable"`` only, recorded as ``"drop_addresses": True``): e-mail
   addresses and message ids (anything around an ``@``), URLs and host names ending in
   ``.edu``, ``.com``, ``.org``, ``.net``, ``.gov`` or ``.mil`` are removed from the text.
   The quote strip already drops the attribution lines (``In article <...> ... writes:``)
   that made ``writes``, ``article`` and ``apr`` frequent tokens; the addresses and host
   names are what made ``edu`` and ``com`` frequent. No word is banned: what remains of
   ``article``, ``net`` or ``wrote`` is mostly content ("the puck hit the net", "com ports"),
   and ``re`` is shorter than ``min_length``.
4. Tokenization with ``topicsup.text.tokenize``: lowercase, maximal runs of letters (digits,
   ``_`` and punctuation split words), tokens shorter than ``min_length`` (default 3) dropped,
   stop words dropped (``stop_words="english"`` is ``topicsup.stopwords.ENGLISH_STOP_WORDS``).
5. Vocabulary: built on the TRAIN posts of the selected newsgroups only, keeping words with a
   total count of at least ``min_count`` (default 5) that occur in at most ``max_df`` (default
   0.5, a fraction of the training documents) of them, sorted alphabetically. Test posts are
   mapped onto that vocabulary (``Corpus.map``); their unknown tokens are dropped and counted in
   ``Corpus.n_unknown_tokens``.
6. Empty documents: training posts left without tokens are dropped (their input positions are in
   ``Corpus.dropped_documents``, the count in ``preprocessing["n_empty_dropped"]``); test posts
   left without tokens are kept with zero tokens so predictions stay aligned with the input.

On the four newsgroups comp.graphics, rec.sport.hockey, sci.space and soc.religion.christian
(train, default cut-offs) "benchmark" keeps 282,730 tokens and 9,250 words, and four of its
20 most frequent words are mail residue (writes, article, com, apr); "readable" keeps 193,888
tokens and 7,105 words (60 of the 2,376 posts, all quotation or signature, become empty and
are dropped), and none of its 20 most frequent words is mail residue.

Labels are the newsgroup names: multiclass with ``classes`` the selected newsgroups in sorted
order (the same for train and test), or binary when exactly two newsgroups are selected (the
second in sorted order is the positive class). The binary task of the papers is alt.atheism
(negative) vs talk.religion.misc (positive): ``load_20newsgroups_binary``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import tarfile
import tempfile
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Iterable, cast

import numpy as np
import pandas as pd

from . import validation as check
from .corpus import Corpus
from .labels import LabelKind
from .text import check_count, check_max_df, stop_word_set

__all__ = [
    "ARCHIVE_NAME", "BINARY_CATEGORIES", "DOWNLOAD_URL", "NEWSGROUPS", "PREPROCESSINGS",
    "find_archive", "load_20newsgroups", "load_20newsgroups_binary", "newsgroups_archive",
    "read_archive",
]

ARCHIVE_NAME = "20news-bydate.tar.gz"
DOWNLOAD_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
DATASET_NAME = "20newsgroups-bydate"
_TRAIN_DIR = "20news-bydate-train"
_TEST_DIR = "20news-bydate-test"
_SUBSETS = ("train", "test")
_DOWNLOAD_TIMEOUT = 30.0
PREPROCESSINGS: tuple[str, ...] = ("benchmark", "readable")
_REMOVABLE: tuple[str, ...] = ("headers", "footers", "quotes")   # scikit-learn's names, order

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


def _resolve_candidate(candidate: str | os.PathLike[str], source: str, hint: str = "") -> Path:
    """A file, or a directory holding ``ARCHIVE_NAME``; anything else is FileNotFoundError."""
    p = Path(candidate).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        inner = p / ARCHIVE_NAME
        if inner.is_file():
            return inner
        raise FileNotFoundError(f"{source} is the directory {str(p)!r}, which does not contain "
                                f"{ARCHIVE_NAME}{hint}")
    raise FileNotFoundError(f"{source} {str(p)!r} does not exist (expected {ARCHIVE_NAME} or a "
                            f"directory containing it){hint}")


def _source_checkout_root() -> Path | None:
    """The root of the source checkout topicsup runs from (the directory holding this package
    and ``pyproject.toml``), or None when topicsup is an installed package (a wheel in
    site-packages has no ``pyproject.toml`` beside it)."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() else None


def _beside_repository() -> Path | None:
    """``shared/data`` next to the source checkout's root (``<repo>/../shared/data``), or None
    for an installed package."""
    root = _source_checkout_root()
    return None if root is None else root.parent / "shared" / "data"


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
    """Locate ``20news-bydate.tar.gz``: the one search every loader, notebook and benchmark uses.

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
        archive (the message names which), or if the archive is nowhere and cannot be (or may
        not be) downloaded: the message then lists every place looked, in order, with its path
        and what was there, and how to provide the archive.

    Notes
    -----
    Search order, the first hit wins:

    1. ``path`` (the file or its directory);
    2. ``$TOPICSUP_DATA`` (the file or its directory);
    3. ``<repo>/../shared/data/20news-bydate.tar.gz``: ``shared/data`` next to the root of the
       source checkout topicsup runs from, derived from this module's location (an installed
       package has no checkout, and the step is skipped);
    4. ``<cache>/20news-bydate.tar.gz`` (``cache_dir``, ``$TOPICSUP_CACHE`` or
       ``~/.cache/topicsup``);
    5. only with ``download=True``: a download, written to a temporary file in the cache
       directory, checked to be a gzip tar with the ``20news-bydate-train`` and
       ``20news-bydate-test`` folders, then renamed.

    ``newsgroups_archive()`` runs the same search and returns None (after printing this
    message) instead of raising.
    """
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or path-like, got {type(path).__name__}")
        return _resolve_candidate(path, "path")
    looked = ["the path argument: not given"]
    env = os.environ.get("TOPICSUP_DATA")
    if env:
        return _resolve_candidate(env, "TOPICSUP_DATA",
                                  "; fix it, or unset it to search beside the repository and "
                                  "in the cache")
    looked.append("$TOPICSUP_DATA: not set")
    shared = _beside_repository()
    if shared is None:
        looked.append("../shared/data beside the repository: skipped (topicsup is installed, "
                      "not run from a source checkout)")
    else:
        beside = shared / ARCHIVE_NAME
        if beside.is_file():
            return beside
        looked.append(f"../shared/data beside the repository: {beside} (absent)")
    cache = default_cache_dir(cache_dir)
    cached = cache / ARCHIVE_NAME
    if cached.is_file():
        return cached
    which = ("cache_dir" if cache_dir is not None
             else "$TOPICSUP_CACHE" if os.environ.get("TOPICSUP_CACHE") else "the default")
    looked.append(f"the cache ({which}): {cached} (absent)")
    failure: Exception | None = None
    if not download:
        looked.append(f"download from {DOWNLOAD_URL}: not attempted (download=False)")
    else:
        try:
            return _download(DOWNLOAD_URL, cached)
        except Exception as exc:  # offline, HTTP error, corrupt download, read-only cache ...
            failure = exc
            looked.append(f"download from {DOWNLOAD_URL}: failed ({type(exc).__name__}: {exc})")
    places = "\n".join(f"  {i}. {place}" for i, place in enumerate(looked, 1))
    how = (f"To fix it, get {ARCHIVE_NAME} (from {DOWNLOAD_URL}) and do one of: pass "
           f"path='/path/to/{ARCHIVE_NAME}' (or its directory); set the environment variable "
           f"TOPICSUP_DATA to the file or its directory; copy it to {cached}"
           + ("." if download else "; or, online, pass download=True to fetch it into the "
                                   "cache."))
    raise FileNotFoundError(f"20 Newsgroups archive {ARCHIVE_NAME} not found. Looked, in this "
                            f"order, at:\n{places}\n{how}") from failure


def newsgroups_archive(path: str | os.PathLike[str] | None = None, *,
                       cache_dir: str | os.PathLike[str] | None = None,
                       download: bool = False) -> Path | None:
    """The 20 Newsgroups archive found by ``find_archive``, or None after printing why not.

    For notebooks and scripts that carry on without the data: one line, no try block::

        archive = newsgroups_archive()       # a Path, or None and the places looked printed
        if archive is not None:
            corpus = load_20newsgroups("train", path=archive, preprocessing="readable")

    Parameters are those of ``find_archive``, except that ``download`` defaults to False
    (never a network access unless asked). Only a missing archive returns None (the message
    of ``find_archive``'s ``FileNotFoundError`` printed: every place looked, with its path,
    and how to provide it); a ``path`` of the wrong type still raises.
    """
    try:
        return find_archive(path, cache_dir=cache_dir, download=download)
    except FileNotFoundError as exc:
        print(exc)
        return None


# --------------------------------------------------------------------------------------------
# Reading the archive


def _strip_header(text: str) -> str:
    """The "benchmark" recipe's header block: everything up to the first blank line, unless
    the post has none (then it is kept whole, where scikit-learn's strip leaves nothing)."""
    head, sep, body = text.partition("\n\n")
    return body if sep else text


# The three strips of scikit-learn's fetch_20newsgroups(remove=...), reimplemented line for
# line from sklearn/datasets/_twenty_newsgroups.py (strip_newsgroup_header, _footer,
# _quoting; scikit-learn 1.3 to 1.9, BSD-3-Clause licence) so that topicsup does not depend
# on module-private names. tests/test_newsgroups.py checks them equal to scikit-learn's.

_QUOTE_RE = re.compile(
    r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)"
)


def _strip_newsgroup_header(text: str) -> str:
    """Everything before the first blank line removed (all of it when there is none)."""
    _before, _blankline, after = text.partition("\n\n")
    return after


def _strip_newsgroup_quoting(text: str) -> str:
    """Lines starting with ``>`` or ``|`` removed, and lines that usually introduce a quoted
    section (``In article ...``, ``... writes:``, ``wrote:``, ``says:``, ``said:``)."""
    good_lines = [line for line in text.split("\n") if not _QUOTE_RE.search(line)]
    return "\n".join(good_lines)


def _strip_newsgroup_footer(text: str) -> str:
    """The signature removed: everything from the last line that is blank or made of hyphens
    (blank lines at the end disregarded); the text unchanged when that line is the first."""
    lines = text.strip().split("\n")
    for line_num in range(len(lines) - 1, -1, -1):
        line = lines[line_num]
        if line.strip().strip("-") == "":
            break

    if line_num > 0:
        return "\n".join(lines[:line_num])
    else:
        return text


# Mail residue of the "readable" recipe: e-mail addresses and message ids (anything joined by
# an @), URLs, and host names ending in a generic top-level domain (ftp.uu.net, cs.cmu.edu)
_ADDRESS_RE = re.compile(r"\S+@\S+"
                         r"|\b[a-z][a-z0-9+.-]*://\S+"
                         r"|\b[\w-]+(?:\.[\w-]+)*\.(?:edu|com|org|net|gov|mil)\b",
                         re.IGNORECASE)

# How a post's text is made: the strips (None: the "benchmark" header block; else the
# scikit-learn strips named, in scikit-learn's order) and whether mail residue is dropped
_Recipe = tuple[tuple[str, ...] | None, bool]


def _clean_text(raw: str, recipe: _Recipe) -> str:
    strips, drop_addresses = recipe
    if strips is None:
        text = _strip_header(raw)
    else:
        text = raw
        if "headers" in strips:
            text = _strip_newsgroup_header(text)
        if "footers" in strips:
            text = _strip_newsgroup_footer(text)
        if "quotes" in strips:
            text = _strip_newsgroup_quoting(text)
    if drop_addresses:
        text = _ADDRESS_RE.sub(" ", text)
    return text


def _as_list(name: str, value: Any, what: str, one: str) -> list[Any]:
    """``value`` as a list; a ``TypeError`` naming ``name`` for a single string (``one`` is
    how to write it) or for what is not iterable."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what}, got the single string {value!r}; use {one}")
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}") from None


def _check_recipe(preprocessing: Any, remove: Any) -> _Recipe:
    """The recipe a named preprocessing and an optional ``remove`` stand for."""
    if not isinstance(preprocessing, str) or preprocessing not in PREPROCESSINGS:
        raise ValueError(f"preprocessing must be one of {list(PREPROCESSINGS)}, got "
                         f"{preprocessing!r}")
    drop_addresses = preprocessing == "readable"
    if remove is None:
        return (None if preprocessing == "benchmark" else _REMOVABLE), drop_addresses
    items = _as_list("remove", remove, f"a tuple of some of {list(_REMOVABLE)}",
                     f"({remove!r},)")
    unknown = [r for r in items if not isinstance(r, str) or r not in _REMOVABLE]
    if unknown:
        raise ValueError(f"remove may hold only {list(_REMOVABLE)}, got {unknown[0]!r}")
    return tuple(r for r in _REMOVABLE if r in items), drop_addresses


def _recipe_record(preprocessing: str, recipe: _Recipe) -> dict[str, Any]:
    strips, drop_addresses = recipe
    return {"preprocessing": preprocessing,
            "remove": "headers" if strips is None else list(strips),
            "drop_addresses": drop_addresses}


def _doc_key(doc_id: str) -> tuple[int, int, str]:
    return (0, int(doc_id), doc_id) if doc_id.isdigit() else (1, 0, doc_id)


@functools.lru_cache(maxsize=2)
def _read_raw_cached(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """Every post of the archive, whole (decoded, line ends normalised), sorted."""
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
                rows.append((subset_of[parts[0]], group, _doc_key(doc_id), doc_id, raw))
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


@functools.lru_cache(maxsize=4)
def _read_archive_cached(path: str, mtime_ns: int, size: int, recipe: _Recipe) -> pd.DataFrame:
    raw = _read_raw_cached(path, mtime_ns, size)
    frame = raw.copy()
    frame["text"] = pd.Series([_clean_text(t, recipe) for t in raw["text"]], dtype=object)
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


def read_archive(archive: str | os.PathLike[str], *, preprocessing: str = "benchmark",
                 remove: Iterable[str] | None = None) -> pd.DataFrame:
    """Read every post of a 20 Newsgroups "bydate" archive into a DataFrame.

    Parameters
    ----------
    archive : str or path-like
        The ``20news-bydate.tar.gz`` file (see ``find_archive``).
    preprocessing : {"benchmark", "readable"}
        The named recipe whose text steps make the ``text`` column (module docstring):
        ``"benchmark"`` strips the header block only; ``"readable"`` applies scikit-learn's
        header, footer and quote strips and removes addresses and host names.
    remove : tuple of {"headers", "footers", "quotes"}, optional
        Replaces the recipe's strips with these of scikit-learn's
        ``fetch_20newsgroups(remove=...)``; ``()`` gives the posts whole, headers included.

    Returns
    -------
    pandas.DataFrame
        Columns ``subset`` ("train" or "test"), ``newsgroup``, ``doc_id`` (the file name) and
        ``text`` (decoded as latin-1, then made by the recipe; by default the header block
        stripped: everything before the first blank line is dropped). Rows are sorted by
        subset (train first), newsgroup and numeric ``doc_id``, with a fresh ``RangeIndex``.

    Notes
    -----
    The parsed frame is cached in memory per (resolved path, modification time, size, recipe);
    every call returns a copy, so callers may modify it.
    """
    recipe = _check_recipe(preprocessing, remove)
    return _read_archive_cached(*_archive_key(archive), recipe).copy()


# --------------------------------------------------------------------------------------------
# Loading corpora


def _check_subset(subset: Any) -> str:
    if not isinstance(subset, str) or subset not in _SUBSETS:
        raise ValueError(f"subset must be one of {list(_SUBSETS)}, got {subset!r}")
    return subset


def _check_categories(categories: Any) -> tuple[str, ...] | None:
    if categories is None:
        return None
    cats = _as_list("categories", categories, "a list of newsgroup names", f"[{categories!r}]")
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
                         max_df: float | int, min_length: int, stops: frozenset[str],
                         recipe: _Recipe) -> tuple[Corpus, int]:
    frame = _read_archive_cached(*key, recipe)
    rows = _select(frame, "train", categories)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"dropped \d+ empty document")
        corpus = Corpus.from_texts(rows["text"].tolist(), rows["newsgroup"].tolist(),
                                   min_count=min_count, max_df=max_df, min_length=min_length,
                                   stop_words=stops, empty="drop",
                                   label_type=_label_type(categories), classes=categories,
                                   keep_texts=True)   # the posts, shown beside their topics
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
                      return_frame: bool = False, preprocessing: str = "benchmark",
                      remove: Iterable[str] | None = None
                      ) -> Corpus | tuple[Corpus, pd.DataFrame]:
    """Load the 20 Newsgroups "bydate" train or test split as a labelled ``Corpus``.

    Examples
    --------
    >>> archive = newsgroups_archive()     # doctest: +SKIP
    >>> train = load_20newsgroups("train", ["sci.space", "rec.sport.hockey"], archive,
    ...                           preprocessing="readable")   # doctest: +SKIP

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
    preprocessing : {"benchmark", "readable"}
        The named recipe (module docstring, "Preprocessing"). ``"benchmark"`` (default) is
        the loader's original one, unchanged bit for bit (same tokens, same vocabulary), that
        the benchmark tables use: the header block stripped, nothing else. ``"readable"``
        also removes signatures and quoted replies (scikit-learn's
        ``remove=("headers", "footers", "quotes")``) and e-mail addresses, URLs and host
        names, so that mail residue (writes, article, edu, com ...) does not crowd the topics.
    remove : tuple of {"headers", "footers", "quotes"}, optional
        As in scikit-learn's ``fetch_20newsgroups``: replaces the recipe's text strips with
        these (scikit-learn's rules exactly, applied in that order); ``()`` keeps the posts
        whole. ``None`` keeps the recipe's.

    Returns
    -------
    Corpus
        Labels are the newsgroup names: multiclass with the selected newsgroups as classes in
        sorted order, or binary when exactly two are selected (the second in sorted order is
        positive). The vocabulary is always built on the training posts of the selected
        newsgroups, so train and test corpora share it; the test corpus reports the dropped
        unknown tokens in ``n_unknown_tokens``. ``preprocessing`` records every setting (the
        recipe's name under ``"preprocessing"``, its strips under ``"remove"``: ``"headers"``
        for the benchmark header block, else the list of scikit-learn strips; and
        ``"drop_addresses"``) plus ``n_documents_raw`` and ``n_empty_dropped`` (train) or
        ``n_empty`` (test, kept), so ``load_20newsgroups(subset, categories,
        preprocessing=p["preprocessing"], ...)`` rebuilds the same corpus. The training
        corpus keeps its posts' texts (``Corpus.texts``, ~20 MB), so its representative
        documents show the posts as written with the topic's words marked.
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
        Bad ``subset``, unknown or empty ``categories``, bad frequency cut-offs, an unknown
        ``preprocessing`` or ``remove`` entry, or a selected newsgroup with no training posts
        in the archive.
    TypeError
        ``categories``, ``stop_words`` or ``remove`` of the wrong type.
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
    check_count("min_count", min_count)
    check_max_df(max_df)
    min_length = _check_min_length(min_length)
    if isinstance(max_df, (np.integer, np.floating)):
        max_df = max_df.item()
    min_count = int(min_count)
    download = check.flag("download", download)
    return_frame = check.flag("return_frame", return_frame)
    if cache_dir is not None:
        check.path_like("cache_dir", cache_dir)
    recipe = _check_recipe(preprocessing, remove)

    archive = find_archive(path, cache_dir=cache_dir, download=download)
    key = _archive_key(archive)
    frame = _read_archive_cached(*key, recipe)
    train_groups = set(frame.loc[frame["subset"] == "train", "newsgroup"])
    if cats is None:
        cats = tuple(sorted(train_groups))
    else:
        missing = [c for c in cats if c not in train_groups]
        if missing:
            raise ValueError(f"the archive {key[0]!r} has no training posts for newsgroup(s) "
                             f"{missing}")

    train, n_train_raw = _train_corpus_cached(key, cats, min_count, max_df, min_length, stops,
                                              recipe)
    prep = dict(train.preprocessing)
    prep.update({
        "dataset": DATASET_NAME, "subset": subset, "categories": list(cats),
        **_recipe_record(preprocessing, recipe), "encoding": "latin-1",
        "min_count": min_count, "max_df": max_df, "min_length": min_length,
        "vocabulary_built_on": "train", "archive": key[0],
    })
    if subset == "train":
        prep.update({"n_documents_raw": n_train_raw,
                     "n_empty_dropped": int(train.dropped_documents.size)})
        corpus = _fresh(train, prep)
        rows = _select(frame, "train", cats) if return_frame else None
    else:
        rows = _select(frame, "test", cats)
        if rows.empty:   # a train-only archive (or one whose test folder lacks these groups)
            raise ValueError(f"the archive {key[0]!r} has no test posts (no folder "
                             f"{_TEST_DIR}/<newsgroup>/<id>) for newsgroup(s) {list(cats)}; "
                             f"use subset='train', or the full 20news-bydate archive")
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
        Any keyword of ``load_20newsgroups`` except ``categories`` (``preprocessing``,
        ``remove``, ``min_count`` ...).

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
