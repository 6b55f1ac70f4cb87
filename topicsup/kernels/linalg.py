"""Linear algebra whose bits are the same on every machine: every sum in a fixed order.

Why not numpy's ``@`` or ``np.linalg``: they call BLAS and LAPACK, whose sums follow the kernel
the library picks for the CPU when it loads (OpenBLAS's Haswell, SkylakeX and generic kernels
add in different orders), so a chain whose weights or scores pass through them would depend on
the machine it ran on. These are the few products a chain needs, at sizes where plain loops
cost about what LAPACK does (a K = 1000 Cholesky: 59 ms here against OpenBLAS's 45 ms).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..arrays import F64


@njit(cache=True, nogil=True, inline="always")
def dot(a: F64, b: F64, n: int) -> float:
    """sum_k < n a[k] b[k] in a fixed order: four running sums over k mod 4, the k past the
    last multiple of 4 added to the first, then (s0 + s1) + (s2 + s3). The same bits on every
    machine; the four sums are independent, so the loop is not one long chain of additions
    and the compiler can keep them in one vector register."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    k = 0
    while k + 4 <= n:
        s0 += a[k] * b[k]
        s1 += a[k + 1] * b[k + 1]
        s2 += a[k + 2] * b[k + 2]
        s3 += a[k + 3] * b[k + 3]
        k += 4
    while k < n:
        s0 += a[k] * b[k]
        k += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True)
def cholesky(P: F64) -> F64:
    """The lower factor L of P = L L^T (Cholesky-Banachiewicz, row by row), every sum in the
    order of ``dot``. Why not ``np.linalg.cholesky``: it calls LAPACK's potrf, whose sums
    follow the BLAS kernel the library picks for the CPU at load time (OpenBLAS's Haswell and
    SkylakeX kernels drew different weights from the same chain), so the chain would depend on
    the machine. Raises ``np.linalg.LinAlgError`` unless P is positive definite."""
    M = P.shape[0]
    L = np.zeros((M, M))
    for i in range(M):
        Li = L[i]
        for j in range(i):
            Li[j] = (P[i, j] - dot(Li, L[j], j)) / L[j, j]
        d = P[i, i] - dot(Li, Li, i)
        if not d > 0.0:   # NaN too
            raise np.linalg.LinAlgError("Matrix is not positive definite.")
        Li[i] = math.sqrt(d)
    return L


@njit(cache=True, nogil=True)
def matmul(A: F64, B: F64) -> F64:
    """A @ B for 2-d float64 arrays, each entry summed over the inner index in ascending
    order (the loop over the output's columns vectorises, the sums keep their order)."""
    n, m = A.shape
    p = B.shape[1]
    out = np.zeros((n, p))
    for i in range(n):
        o = out[i]
        for k in range(m):
            a = A[i, k]
            b = B[k]
            for j in range(p):
                o[j] += a * b[j]
    return out


__all__ = ["cholesky", "dot", "matmul"]
