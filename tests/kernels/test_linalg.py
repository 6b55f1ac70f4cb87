"""kernels.linalg: the fixed-order Cholesky and product are right, and their sums are in the
order their docstrings give (so the bits do not depend on BLAS, LAPACK or the CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.kernels.linalg import cholesky, matmul


def _dot_in_order(a, b, n):
    """The order of ``linalg.dot``: four running sums over k mod 4, the rest of k added to the
    first, then (s0 + s1) + (s2 + s3)."""
    s = [0.0, 0.0, 0.0, 0.0]
    k = 0
    while k + 4 <= n:
        for q in range(4):
            s[q] += float(a[k + q]) * float(b[k + q])
        k += 4
    while k < n:
        s[0] += float(a[k]) * float(b[k])
        k += 1
    return (s[0] + s[1]) + (s[2] + s[3])


def _cholesky_in_order(P):
    M = P.shape[0]
    L = np.zeros((M, M))
    for i in range(M):
        for j in range(i):
            L[i, j] = (P[i, j] - _dot_in_order(L[i], L[j], j)) / L[j, j]
        L[i, i] = np.sqrt(P[i, i] - _dot_in_order(L[i], L[i], i))
    return L


@pytest.mark.parametrize("M", [1, 3, 6, 13, 40])
def test_cholesky_is_lapacks_factor_summed_in_its_stated_order(M):
    rs = np.random.default_rng(M)
    A = rs.normal(size=(M + 3, M))
    P = A.T @ A + np.eye(M)
    L = cholesky(P)
    np.testing.assert_allclose(L, np.linalg.cholesky(P), rtol=1e-10, atol=1e-12)
    assert (L.view(np.int64) == _cholesky_in_order(P).view(np.int64)).all()


def test_cholesky_refuses_a_matrix_that_is_not_positive_definite():
    for P in (-np.eye(3), np.array([[1.0, 2.0], [2.0, 1.0]]), np.full((2, 2), np.nan)):
        with pytest.raises(np.linalg.LinAlgError):
            cholesky(P)


def test_matmul_sums_over_the_inner_index_in_ascending_order():
    rs = np.random.default_rng(0)
    A, B = rs.normal(size=(5, 9)), rs.normal(size=(9, 4))
    got = matmul(A, B)
    np.testing.assert_allclose(got, A @ B, rtol=1e-12, atol=1e-12)
    want = np.zeros((5, 4))
    for i in range(5):
        for j in range(4):
            acc = 0.0
            for k in range(9):
                acc += A[i, k] * B[k, j]
            want[i, j] = acc
    assert (got.view(np.int64) == want.view(np.int64)).all()
