"""The collapsed LDA log joint log p(W, Z | alpha, beta) (MATH.md sec. 4).

Zero counts contribute nothing once lgamma(0 + a) - lgamma(a) is folded in, so only non-zero
counts cost an lgamma: the evaluation is O(K V) comparisons plus O(#tokens) lgamma calls.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True)
def lda_log_joint(doc_ptr, n_dk, n_wk, n_k, alpha, beta):
    """log p(W, Z) with Theta and Phi integrated out; ``alpha`` is a length-K array."""
    D, K = n_dk.shape
    V = n_wk.shape[0]
    V_beta = V * beta
    lg_beta = math.lgamma(beta)
    topic_part = K * math.lgamma(V_beta)
    for w in range(V):
        for k in range(K):
            c = n_wk[w, k]
            if c > 0:
                topic_part += math.lgamma(c + beta) - lg_beta
    for k in range(K):
        topic_part -= math.lgamma(n_k[k] + V_beta)

    alpha_sum = 0.0
    for k in range(K):
        alpha_sum += alpha[k]
    lg_alpha_sum = math.lgamma(alpha_sum)
    doc_part = 0.0
    for d in range(D):
        doc_part += lg_alpha_sum - math.lgamma(doc_ptr[d + 1] - doc_ptr[d] + alpha_sum)
        for k in range(K):
            c = n_dk[d, k]
            if c > 0:
                doc_part += math.lgamma(c + alpha[k]) - math.lgamma(alpha[k])
    return topic_part + doc_part
