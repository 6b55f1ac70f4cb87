"""Datasets: the bundled synthetic demo corpus, synthetic generators, and 20 Newsgroups.

* ``load_demo_corpus()``: the default data of the demo and the quickstart, a binary-labelled
  corpus drawn by ``make_synthetic(**DEMO_PARAMS)``; ``load_demo_frame()`` the same documents
  as a DataFrame (the shape of an analyst's own data: the README's quickstart starts from
  it, from a clone or an installed wheel); ``data/demo_corpus.jsonl`` in the source tree is
  an export of it (``data/make_demo_corpus.py``) for reading.
* ``make_synthetic(...)``: labelled corpora from the supervised generative process
  (``topicsup.synthetic``).
* ``load_20newsgroups(...)``, ``load_20newsgroups_binary(...)``: the canonical bydate archive
  (``topicsup.newsgroups``), with a named preprocessing: ``"benchmark"`` (default, the
  benchmark tables' recipe) or ``"readable"`` (headers, signatures, quotes and addresses
  removed: the notebooks' recipe).
* ``newsgroups_archive()``: where that archive is, or None after printing every place looked
  (``find_archive`` raises instead); in a notebook::

      archive = newsgroups_archive()
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .newsgroups import (BINARY_CATEGORIES, NEWSGROUPS, PREPROCESSINGS, find_archive,
                         load_20newsgroups, load_20newsgroups_binary, newsgroups_archive,
                         read_archive)
from .synthetic import THEMES, Synthetic, make_synthetic

DEMO_PARAMS: dict[str, Any] = dict(n_docs=400, n_topics=6, doc_length=60, task="binary",
                                   seed=2015)


def load_demo_corpus() -> Synthetic:
    """The bundled demo corpus: 400 binary-labelled documents from 6 known themes."""
    return make_synthetic(**DEMO_PARAMS)


def load_demo_frame() -> pd.DataFrame:
    """The bundled demo corpus as a pandas DataFrame, one row per document: ``tokens`` (its
    words, a list of str) and ``label`` (its class): the shape of an analyst's own data, for
    ``Corpus.from_tokens(df["tokens"], labels=df["label"])``. Ships with the package (drawn,
    not read from a file), so it works from an installed wheel."""
    corpus = load_demo_corpus().corpus
    labels = corpus.labels
    assert labels is not None   # the demo corpus is labelled
    return pd.DataFrame({"tokens": [corpus.document(d) for d in range(corpus.n_docs)],
                         "label": [labels.classes[int(v)] for v in labels.values]})


__all__ = ["BINARY_CATEGORIES", "DEMO_PARAMS", "NEWSGROUPS", "PREPROCESSINGS", "THEMES",
           "Synthetic", "find_archive", "load_20newsgroups", "load_20newsgroups_binary",
           "load_demo_corpus", "load_demo_frame", "make_synthetic", "newsgroups_archive", "read_archive"]
