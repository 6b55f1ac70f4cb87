"""Fold-in of held-out documents: Gibbs sweeps with the topics fixed (MATH.md sec. 5).

With Phi fixed the documents are independent and each token's conditional is
p(z_i = k) ∝ phi[w_i, k] (n_kd^-i + alpha_k). The kernel returns each document's topic
proportions zbar_d averaged over the kept sweeps after a burn-in, the features the supervised
models score.
"""

from __future__ import annotations

from numba import njit

from .gibbs import search_cumulative
from .rng import randint, uniform


@njit(cache=True, nogil=True)
def fold_in(words, doc_ptr, phi_wk, alpha, n_burn, n_keep, rng, z, n_dk, zbar):
    """Sample ``z`` (int32, one per token) for every document and fill ``zbar`` (D, K) with
    the mean of n_kd / N_d over ``n_keep`` sweeps after ``n_burn``. ``phi_wk`` is (V, K),
    word-major; ``n_dk`` is an int32 (D, K) scratch. Documents without tokens get zbar = 0."""
    D = doc_ptr.shape[0] - 1
    K = phi_wk.shape[1]
    cum = alpha.copy()
    n_dk[:] = 0
    zbar[:] = 0.0
    for i in range(z.shape[0]):
        z[i] = randint(rng, K)
    for d in range(D):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_dk[d, z[i]] += 1
    for sweep in range(n_burn + n_keep):
        for d in range(D):
            ndk = n_dk[d]
            for i in range(doc_ptr[d], doc_ptr[d + 1]):
                phi = phi_wk[words[i]]
                ndk[z[i]] -= 1
                total = 0.0
                for k in range(K):
                    total += phi[k] * (ndk[k] + alpha[k])  # MATH.md sec. 5
                    cum[k] = total
                new = search_cumulative(cum, K, uniform(rng) * total)
                z[i] = new
                ndk[new] += 1
            if sweep >= n_burn:
                N_d = doc_ptr[d + 1] - doc_ptr[d]
                if N_d > 0:
                    scale = 1.0 / (N_d * n_keep)
                    for k in range(K):
                        zbar[d, k] += ndk[k] * scale
