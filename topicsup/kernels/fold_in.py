"""Fold-in of held-out documents: Gibbs sweeps with the topics fixed (docs/math.md sec. 5).

This O(K)-per-token kernel is the reference: the models fold in with the sparse parallel
kernel of the same target, ``kernels.partially_collapsed.fold_in``, and both are tested
against the exact target (tests/kernels/test_fold_in.py). ``content_labels`` serves both.

With Phi fixed the documents are independent and each token's conditional is
p(z_i = k) ∝ phi[w_i, k] (n_kd^-i + alpha_k). The kernel returns each document's topic
proportions zbar_d averaged over the kept sweeps after a burn-in, the features the supervised
models score.

Each document draws from a stream of its own, derived from the caller's key and a 64-bit
label per document (``kernels.rng.derive_into``). The models label a document by its
content (``content_labels``), so its prediction does not depend on which other documents are
folded in with it or in what order (scikit-learn's subset and order invariance), and the same
document always gets the same proportions under the same key.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from ..arrays import F64, I32, I64, U64, Rng
from .gibbs import search_cumulative
from .rng import derive_into, randint, uniform


@njit(cache=True, nogil=True)
def content_labels(words: I32, doc_ptr: I64) -> U64:
    """A 64-bit FNV-1a hash of each document's word ids (in order) and length."""
    D = doc_ptr.shape[0] - 1
    out = np.empty(D, np.uint64)
    for d in range(D):
        h = uint64(0xCBF29CE484222325)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            h = (h ^ uint64(words[i])) * uint64(0x100000001B3)
        out[d] = (h ^ uint64(doc_ptr[d + 1] - doc_ptr[d])) * uint64(0x100000001B3)
    return out


@njit(cache=True, nogil=True)
def fold_in(words: I32, doc_ptr: I64, phi_wk: F64, alpha: F64, n_burn: int, n_keep: int, key: Rng,
            doc_labels: U64, z: I32, zbar: F64) -> None:
    """Sample ``z`` (int32, one per token) for every document and fill ``zbar`` (D, K) with
    the mean of n_kd / N_d over ``n_keep`` sweeps after ``n_burn``. ``phi_wk`` is (V, K),
    word-major; document d draws from the stream of ``doc_labels[d]`` under the key state
    ``key`` (which is not advanced). Documents without tokens get zbar = 0."""
    D = doc_ptr.shape[0] - 1
    K = phi_wk.shape[1]
    cum = alpha.copy()
    ndk = np.zeros(K, np.int32)
    rng = np.empty(4, np.uint64)
    zbar[:] = 0.0
    for d in range(D):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        if p1 == p0:
            continue
        derive_into(key, doc_labels[d], rng)
        ndk[:] = 0
        for i in range(p0, p1):
            z[i] = randint(rng, K)
            ndk[z[i]] += 1
        scale = 1.0 / ((p1 - p0) * n_keep)
        for sweep in range(n_burn + n_keep):
            for i in range(p0, p1):
                phi = phi_wk[words[i]]
                ndk[z[i]] -= 1
                total = 0.0
                for k in range(K):
                    total += phi[k] * (ndk[k] + alpha[k])  # docs/math.md sec. 5
                    cum[k] = total
                new = search_cumulative(cum, K, uniform(rng) * total)
                z[i] = new
                ndk[new] += 1
            if sweep >= n_burn:
                for k in range(K):
                    zbar[d, k] += ndk[k] * scale


# mixed into a document's content label for the split's stream, so the split and the
# fold-in (which derives the seen half's streams from the same key) draw unrelated numbers
SPLIT_SALT = uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def completion_split(words: I32, doc_ptr: I64, key: Rng, doc_labels: U64, seen: np.ndarray
                     ) -> None:
    """Document completion's split (docs/math.md sec. 5): mark ``seen`` for floor(N_d / 2)
    tokens of each document, chosen uniformly without replacement (a partial Fisher-Yates
    shuffle of its positions) from the stream of ``doc_labels[d] ^ SPLIT_SALT`` under
    ``key`` (not advanced). Given the tokens in canonical order (sorted by word within each
    document) and their content labels, the split depends on the document's bag of words
    and the key alone: not on the order its tokens came in (text or count matrix), nor on
    the other documents."""
    D = doc_ptr.shape[0] - 1
    rng = np.empty(4, np.uint64)
    for d in range(D):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        n = p1 - p0
        half = n // 2
        if half == 0:
            continue
        derive_into(key, doc_labels[d] ^ SPLIT_SALT, rng)
        pos = np.arange(n)
        for j in range(half):
            r = j + randint(rng, n - j)
            pos[j], pos[r] = pos[r], pos[j]
            seen[p0 + pos[j]] = True
