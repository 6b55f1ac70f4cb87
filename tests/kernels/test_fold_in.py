"""Fold-in of held-out documents with the topics fixed, against its exact target.

With Phi fixed, z of one document has target p(z) ∝ prod_i phi[w_i, z_i] *
prod_k Gamma(n_k + alpha_k) (the Dirichlet-multinomial). 20,000 copies of one 5-token document
are independent chains; after 30 burn-in sweeps from a uniform start their final states follow
the target (chi-square at 1e-3; the start's influence decays geometrically, far below the test's
resolution), the averaged zbar equals E[n_k / N] within 4 standard errors, and a kernel run with
a wrong alpha is rejected (teeth). A document's proportions depend on its own stream only: the
same with other documents beside it, in any order. Each for both kernels of the target: the
O(K) reference (``kernels.fold_in``) and the sparse parallel one the models use
(``kernels.partially_collapsed.fold_in``: the document part plus word alias tables).
"""

import numpy as np
import pytest
from scipy.special import gammaln

from topicsup.kernels import fold_in as dense
from topicsup.kernels import partially_collapsed as sparse
from topicsup.kernels.rng import seed_state
from topicsup.testing.exact import (assert_matches_target, enumerate_assignments,
                                    goodness_of_fit, normalize_log, state_index)

DOC = np.array([0, 2, 1, 2, 0], dtype=np.int32)
K, COPIES = 3, 20_000
PHI = np.array([[0.6, 0.1, 0.3], [0.1, 0.7, 0.2], [0.3, 0.2, 0.5]])  # (V, K), word-major
ALPHA = np.array([0.3, 0.8, 0.5])


def _target(alpha):
    Z = enumerate_assignments(len(DOC), K)
    n = np.stack([(Z == k).sum(1) for k in range(K)], 1)
    logp = np.log(PHI[DOC[None, :], Z]).sum(1) + gammaln(n + alpha).sum(1)
    return Z, normalize_log(logp)


KERNELS = ("dense", "sparse")


def fold_in(kernel, words, doc_ptr, phi, alpha, n_burn, n_keep, key, labels, z, zbar):
    """One call to either kernel (the sparse one with the word tables of alpha_k phi)."""
    if kernel == "dense":
        return dense.fold_in(words, doc_ptr, phi, alpha, n_burn, n_keep, key, labels, z, zbar)
    V, K_ = phi.shape
    prob, alias, mass = np.empty((V, K_)), np.empty((V, K_), np.int32), np.empty(V)
    sparse.build_word_tables(phi, alpha, prob, alias, mass)
    sparse.fold_in(words, doc_ptr, phi, prob, alias, mass, alpha, n_burn, n_keep, key, labels,
                   z, zbar)


def _run(kernel, alpha, n_burn, n_keep, seed):
    words = np.tile(DOC, COPIES)
    doc_ptr = np.arange(COPIES + 1, dtype=np.int64) * len(DOC)
    z = np.zeros(len(words), np.int32)
    zbar = np.zeros((COPIES, K))
    labels = np.arange(COPIES, dtype=np.uint64)   # copies of one document: a stream each
    fold_in(kernel, words, doc_ptr, PHI, alpha, n_burn, n_keep, seed_state(seed), labels, z,
            zbar)
    return z.reshape(COPIES, len(DOC)), zbar


@pytest.mark.parametrize("kernel", KERNELS)
def test_fold_in_reaches_the_exact_target(kernel):
    Z, p = _target(ALPHA)
    z, _ = _run(kernel, ALPHA, 30, 1, 1)
    assert_matches_target(state_index(z, K), p)
    z, _ = _run(kernel, ALPHA * 2.5, 30, 1, 1)  # teeth
    assert goodness_of_fit(state_index(z, K), p).pvalue < 1e-6


@pytest.mark.parametrize("kernel", KERNELS)
def test_fold_in_zbar_is_the_average_of_kept_sweeps(kernel):
    Z, p = _target(ALPHA)
    n = np.stack([(Z == k).sum(1) for k in range(K)], 1) / len(DOC)
    expect = p @ n
    _, zbar = _run(kernel, ALPHA, 30, 5, 2)
    assert np.allclose(zbar.sum(1), 1.0)
    se = zbar.std(0) / np.sqrt(COPIES)
    assert (np.abs(zbar.mean(0) - expect) < 4 * se).all(), (zbar.mean(0), expect)


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_document_is_folded_in_the_same_whatever_documents_come_with_it(kernel):
    """Each document draws from the stream of its label under the key: folding in a subset,
    or the documents in another order, gives each document the same z and zbar bit for bit;
    content labels give equal documents equal labels."""
    from topicsup.kernels.fold_in import content_labels
    docs = [np.array(d, np.int32) for d in ([0, 1, 2], [2, 2], [1, 0, 0, 2], [0, 1, 2])]

    def run(order):
        words = np.concatenate([docs[d] for d in order])
        ptr = np.concatenate([[0], np.cumsum([len(docs[d]) for d in order])]).astype(np.int64)
        labels = content_labels(words, ptr)
        zbar = np.zeros((len(order), K))
        fold_in(kernel, words, ptr, PHI, ALPHA, 3, 4, seed_state(5), labels,
                np.zeros(len(words), np.int32), zbar)
        return labels, zbar

    labels, zbar = run([0, 1, 2, 3])
    assert labels[0] == labels[3] and len(set(labels[:3].tolist())) == 3
    assert np.array_equal(zbar[0], zbar[3])
    sub_labels, sub = run([2, 0])
    assert np.array_equal(sub, zbar[[2, 0]]) and np.array_equal(sub_labels, labels[[2, 0]])
    long_doc = np.tile(np.array([0, 1, 2], np.int32), 8)   # another key: another stream
    z = [np.zeros(24, np.int32) for _ in range(2)]
    for seed, zz in zip((5, 6), z):
        fold_in(kernel, long_doc, np.array([0, 24], np.int64), PHI, ALPHA, 0, 1,
                seed_state(seed), labels[:1], zz, np.zeros((1, K)))
    assert not np.array_equal(z[0], z[1])
