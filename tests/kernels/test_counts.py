"""The word-by-word index of a corpus's tokens (``kernels.counts.tokens_of``): a counting sort
that must be ``np.argsort(words, kind="stable")`` exactly, since the exact word proposal and
the log joint read the tokens in its order (a chain would change with it)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topicsup.kernels.counts import fill_tokens_by_word, tokens_of


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=60), st.integers(0, 3))
def test_the_index_is_the_stable_argsort(words, extra_words):
    w = np.asarray(words, np.int32)
    V = (int(w.max()) + 1 if w.size else 1) + extra_words   # words with no token too
    t = tokens_of(w, np.array([0, w.size], np.int64), V)
    np.testing.assert_array_equal(t.word_tok, np.argsort(w, kind="stable"))
    np.testing.assert_array_equal(t.word_ptr, np.concatenate([[0], np.cumsum(
        np.bincount(w, minlength=V))]))
    assert t.word_tok.dtype == np.int32 and t.word_ptr.dtype == np.int64


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_both_index_types_on_a_larger_corpus(index_type):
    """int64 is the index past 2**31 tokens; the kernel writes either type."""
    w = np.random.default_rng(0).integers(0, 500, 100_000).astype(np.int32)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(w, minlength=500))]).astype(np.int64)
    out = np.empty(w.size, index_type)
    fill_tokens_by_word(w, ptr, out)
    np.testing.assert_array_equal(out, np.argsort(w, kind="stable"))
