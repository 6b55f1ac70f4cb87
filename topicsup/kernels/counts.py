"""Count bookkeeping shared by every collapsed topic sampler: random initialisation and
rebuilding ``n_dk``, ``n_wk``, ``n_k`` from the assignments ``z``."""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import randint


@njit(cache=True, nogil=True)
def init_assignments(z, K, rng):
    """Draw every ``z[i]`` uniformly from {0, ..., K-1} (the usual LDA start)."""
    for i in range(z.shape[0]):
        z[i] = randint(rng, K)


@njit(cache=True, nogil=True)
def fill_doc_topic_counts(doc_ptr, z, n_dk):
    """Set the (D, K) matrix ``n_dk`` from the assignments."""
    n_dk[:] = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_dk[d, z[i]] += 1


def doc_topic_counts(doc_ptr, z, K):
    """A new (D, K) int32 matrix n_dk from the assignments."""
    n_dk = np.zeros((doc_ptr.shape[0] - 1, K), np.int32)
    fill_doc_topic_counts(doc_ptr, z, n_dk)
    return n_dk


@njit(cache=True, nogil=True)
def rebuild_counts(words, doc_ptr, z, n_dk, n_wk, n_k):
    """Set the count arrays from scratch so they agree with ``z``.

    ``n_dk`` is (D, K) document-major (None for the light sampler, which keeps no such
    matrix) and ``n_wk`` (V, K) word-major, so a token reads all K counts of its document and
    of its word from two contiguous rows.
    """
    n_wk[:] = 0
    n_k[:] = 0
    for i in range(z.shape[0]):
        n_wk[words[i], z[i]] += 1
        n_k[z[i]] += 1
    if n_dk is not None:
        fill_doc_topic_counts(doc_ptr, z, n_dk)


@njit(cache=True, nogil=True, inline="always")
def move_token(ndk, nwk, n_k, k, delta):
    """Add ``delta`` (+1 or -1) to the counts of topic k for one token: its document row
    ``ndk``, its word row ``nwk`` and the topic totals."""
    ndk[k] += delta
    nwk[k] += delta
    n_k[k] += delta
