"""Datasets: the bundled synthetic demo corpus, synthetic generators, and 20 Newsgroups.

* ``load_demo_corpus()``: the default data of the demo and the quickstart, a binary-labelled
  corpus drawn by ``make_synthetic(**DEMO_PARAMS)``; ``data/demo_corpus.jsonl`` in the source
  tree is an export of it (``data/make_demo_corpus.py``) for reading.
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

from .newsgroups import (BINARY_CATEGORIES, NEWSGROUPS, PREPROCESSINGS, find_archive,
                         load_20newsgroups, load_20newsgroups_binary, newsgroups_archive,
                         read_archive)
from .synthetic import THEMES, Synthetic, make_synthetic

DEMO_PARAMS: dict[str, Any] = dict(n_docs=400, n_topics=6, doc_length=60, task="binary",
                                   seed=2015)


def load_demo_corpus() -> Synthetic:
    """The bundled demo corpus: 400 binary-labelled documents from 6 known themes."""
    return make_synthetic(**DEMO_PARAMS)


__all__ = ["BINARY_CATEGORIES", "DEMO_PARAMS", "NEWSGROUPS", "PREPROCESSINGS", "THEMES",
           "Synthetic", "find_archive", "load_20newsgroups", "load_20newsgroups_binary",
           "load_demo_corpus", "make_synthetic", "newsgroups_archive", "read_archive"]
