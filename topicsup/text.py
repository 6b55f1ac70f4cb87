"""Texts to tokens, and tokens to a vocabulary: what ``Corpus.from_texts`` and the loaders
apply to raw documents (``topicsup.corpus``).

Tokenizer (``tokenize``): lowercase the text, take maximal runs of letters (Unicode letters;
digits, ``_`` and punctuation split words), keep tokens of at least ``min_length`` (default 3)
characters, drop English stop words (``topicsup.stopwords``).

Vocabulary (``build_vocabulary``, built only when none is given): drop words whose total count
is below ``min_count`` and words that occur in more than ``max_df`` of the documents (a
fraction if a float, a number of documents if an int); the surviving words are sorted
alphabetically. A given vocabulary (a sequence of words, or ``CountVectorizer.vocabulary_``)
is checked by ``check_vocabulary``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Set
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from . import validation as check
from .stopwords import ENGLISH_STOP_WORDS

WORD_RE = re.compile(r"[^\W\d_]+")


# Texts mapped onto a corpus built from tokens or a count matrix, which records no tokenizer:
# runs of word characters, lowercased, nothing dropped (words outside the vocabulary are).
ANY_WORD_RE = re.compile(r"\w+")


TOKENIZERS = {"letters-lowercase": WORD_RE, "words-lowercase": ANY_WORD_RE}


SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(what: str, value: str) -> str:
    """Names stored in checkpoints as NumPy strings, which cannot end in NUL characters, and
    shown in pages, tables and widgets, all UTF-8, which cannot hold a lone surrogate (what
    bytes decoded with ``errors="surrogateescape"`` leave)."""
    if "\x00" in value:
        raise ValueError(f"{what} {value!r} contains a NUL character")
    bad = SURROGATE.search(value)
    if bad:
        raise ValueError(f"{what} {value!r} holds a lone surrogate (U+{ord(bad.group()):04X}), "
                         f"which no UTF-8 page or file can hold: decode the texts with "
                         f"errors='replace', or drop it")
    return value


def are_texts(docs: list[Any]) -> bool:
    """Whether documents are given as texts (every one a str) rather than token lists; a
    mix is refused, naming the first document of the other kind."""
    texts = [isinstance(t, str) for t in docs]
    if any(texts) and not all(texts):
        bad = texts.index(False) if texts[0] else texts.index(True)
        raise TypeError(f"docs[{bad}] is a {type(docs[bad]).__name__} while docs[0] is a "
                        f"{type(docs[0]).__name__}: give every document as a str, or every "
                        f"one as a list of tokens")
    return bool(docs) and all(texts)


def all_str(values: Iterable[Any], what: str) -> None:
    """Refuse any value that is not a str, naming the first, its position and its type."""
    for j, v in enumerate(values):
        if not isinstance(v, str):
            raise TypeError(f"{what} must hold str; {what}[{j}] is {v!r} of type "
                            f"{type(v).__name__}")


def stop_word_set(stop_words: Any) -> frozenset[str]:
    """The stop words a tokenizer drops: ``"english"`` (``ENGLISH_STOP_WORDS``), ``None``
    (none) or an iterable of str. Any other str is refused rather than taken as a set of
    letters."""
    if stop_words is None:
        return frozenset()
    if isinstance(stop_words, frozenset) and stop_words is ENGLISH_STOP_WORDS:
        return stop_words
    if isinstance(stop_words, str):
        if stop_words == "english":
            return ENGLISH_STOP_WORDS
        raise ValueError(f"stop_words must be 'english', None or an iterable of str, got the "
                         f"str {stop_words!r}")
    if isinstance(stop_words, (bytes, Mapping)) or not isinstance(stop_words, Iterable):
        raise TypeError(f"stop_words must be 'english', None or an iterable of str, got "
                        f"{type(stop_words).__name__}")
    words = list(stop_words)
    all_str(words, "stop_words")
    return frozenset(words)


def callable_name(fn: Callable[..., Any]) -> str:
    """How a corpus records a user's tokenizer: its module and qualified name."""
    module = getattr(fn, "__module__", None) or type(fn).__module__
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{name}"


def custom_tokenizer(tokenizer: Callable[[str], Iterable[str]], min_length: int,
                      stops: frozenset[str]) -> Callable[[str], list[str]]:
    """A user's tokenizer with the stop words and ``min_length`` applied after it; a
    ``TypeError`` when it returns anything but an iterable of str, a ``ValueError`` naming
    it when it raises (its own error as the cause)."""
    def split(text: str) -> list[str]:
        try:
            out = tokenizer(text)
        except Exception as e:
            raise ValueError(f"{callable_name(tokenizer)} raised {type(e).__name__}: {e}") \
                from e
        if isinstance(out, (str, bytes)) or not isinstance(out, Iterable):
            raise TypeError(f"must return an iterable of str tokens, got {type(out).__name__}")
        tokens = list(out)
        bad = next((t for t in tokens if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"must return str tokens, got a {type(bad).__name__} ({bad!r})")
        return [t for t in tokens if len(t) >= min_length and t not in stops]
    return split


def tokenize(text: str, min_length: int = 3,
             stop_words: str | Iterable[str] | None = ENGLISH_STOP_WORDS) -> list[str]:
    """Split ``text`` into lowercase alphabetic tokens.

    Parameters
    ----------
    text : str
        The raw document.
    min_length : int
        Shortest token kept.
    stop_words : "english", iterable of str or None
        Tokens to drop; ``"english"`` is the default list, ``None`` keeps all.

    Returns
    -------
    list of str
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    min_length = check.integer("min_length", min_length, low=1)
    stops = stop_word_set(stop_words)
    return [t for t in WORD_RE.findall(text.lower()) if len(t) >= min_length and t not in stops]


def token_spans(text: str, min_length: int, stops: frozenset[str]
                ) -> list[tuple[int, int, str]]:
    """Where ``tokenize``'s tokens lie in ``text``: (start, end, token) in the original
    text, in order, the same tokens ``tokenize(text, min_length, stops)`` gives. Found in the
    lowercased text, whose positions are the original's unless lowercasing changed a
    character's length (a dotted capital I): then each is mapped back."""
    lowered = text.lower()
    back: list[int] | None = None
    if len(lowered) != len(text):   # where each lowered character came from
        back = []
        for i, c in enumerate(text):
            back.extend([i] * len(c.lower()))
        back.append(len(text))
    out = []
    for m in WORD_RE.finditer(lowered):
        t = m.group()
        if len(t) >= min_length and t not in stops:
            a, b = m.span()
            out.append((a, b, t) if back is None else (back[a], back[b - 1] + 1, t))
    return out


def check_count(name: str, value: Any) -> None:
    check.integer(name, value, low=1)


def check_max_df(max_df: Any) -> None:
    if isinstance(max_df, (bool, np.bool_)) or not isinstance(
            max_df, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_df must be a float in (0, 1] or a positive int, got {max_df!r}")
    if isinstance(max_df, (float, np.floating)) and not 0.0 < max_df <= 1.0:
        raise ValueError(f"max_df as a fraction must be in (0, 1], got {max_df}")
    if isinstance(max_df, (int, np.integer)) and max_df < 1:
        raise ValueError(f"max_df as a document count must be >= 1, got {max_df}")


def build_vocabulary(docs: list[Sequence[str]], min_count: int,
                      max_df: float | int) -> list[str]:
    check_count("min_count", min_count)
    check_max_df(max_df)
    total: Counter[str] = Counter()
    dfreq: Counter[str] = Counter()
    for toks in docs:
        total.update(toks)
        dfreq.update(set(toks))
    limit = max_df * len(docs) if isinstance(max_df, (float, np.floating)) else max_df
    return sorted(w for w, c in total.items() if c >= min_count and dfreq[w] <= limit)


def check_vocabulary(vocabulary: Any) -> tuple[str, ...]:
    if isinstance(vocabulary, Mapping):  # CountVectorizer.vocabulary_: word -> column
        cols = list(vocabulary.values())
        if not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in cols) \
                or sorted(int(c) for c in cols) != list(range(len(cols))):
            raise ValueError("vocabulary dict must map words to the columns 0..V-1, each once")
        vocabulary = [w for w, _ in sorted(vocabulary.items(), key=lambda kv: int(kv[1]))]
    if isinstance(vocabulary, (str, bytes, Set)) or not isinstance(
            vocabulary, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise TypeError(f"vocabulary must be a sequence of str, got {type(vocabulary).__name__}")
    vocab = tuple(vocabulary)
    all_str(vocab, "vocabulary")
    if len(vocab) == 0:
        raise ValueError("vocabulary is empty")
    for w in vocab:
        check_text("vocabulary word", w)
    dup = check.first_duplicate(vocab)
    if dup is not None:
        raise ValueError(f"vocabulary has duplicate word {dup!r}")
    return tuple(str(w) for w in vocab)



__all__ = ["ANY_WORD_RE", "TOKENIZERS", "WORD_RE", "all_str", "are_texts", "build_vocabulary",
           "callable_name", "check_count", "check_max_df", "check_text", "check_vocabulary",
           "custom_tokenizer", "stop_word_set", "token_spans", "tokenize"]
