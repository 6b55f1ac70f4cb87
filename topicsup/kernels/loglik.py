"""The collapsed LDA log joint log p(W, Z | alpha, beta) (docs/math.md sec. 4).

Computed from the assignments alone, word by word and then document by document, with one
scratch row of K counts: O(#tokens) work and lgamma calls, whatever K and whatever
layout a sampler keeps its counts in. Zero counts contribute nothing once
lgamma(0 + a) - lgamma(a) is folded in, so only the non-zero counts met are summed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64


@njit(cache=True, nogil=True)
def lda_log_joint(doc_ptr: I64, z: I32, word_ptr: I64, word_tok: I32 | I64, n_k: I32,
                  alpha: F64, beta: float) -> float:
    """log p(W, Z) with Theta and Phi integrated out; ``alpha`` is a length-K array and
    ``word_tok[word_ptr[w]:word_ptr[w+1]]`` are the tokens of word w."""
    K = n_k.shape[0]
    row = np.zeros(K, np.int64)  # counts of one document; own scratch, so thread-safe
    return lda_topic_part(z, word_ptr, word_tok, n_k, beta) \
        + lda_doc_part(doc_ptr, z, alpha, row)


@njit(cache=True, nogil=True)
def lda_topic_part(z: I32, word_ptr: I64, word_tok: I32 | I64, n_k: I32, beta: float) -> float:
    """The topics' Dirichlet-multinomial part of the collapsed joint, sum_k [log Gamma(V beta)
    - log Gamma(n_k + V beta) + sum_w log Gamma(n_kw + beta) / Gamma(beta)]."""
    K = n_k.shape[0]
    row = np.zeros(K, np.int64)  # counts of one word
    V = word_ptr.shape[0] - 1
    V_beta = V * beta
    lg_beta = math.lgamma(beta)
    topic_part = K * math.lgamma(V_beta)
    for k in range(K):
        topic_part -= math.lgamma(n_k[k] + V_beta)
    for w in range(V):
        for j in range(word_ptr[w], word_ptr[w + 1]):
            row[z[word_tok[j]]] += 1
        for j in range(word_ptr[w], word_ptr[w + 1]):
            k = z[word_tok[j]]
            if row[k] > 0:  # each topic of the word once, then cleared
                topic_part += math.lgamma(row[k] + beta) - lg_beta
                row[k] = 0
    return topic_part


@njit(cache=True, nogil=True)
def lda_doc_part(doc_ptr: I64, z: I32, alpha: F64, row: I64) -> float:
    """The documents' Dirichlet-multinomial part of the collapsed joint, sum_d [log Gamma(sum
    alpha) - log Gamma(N_d + sum alpha) + sum_k log Gamma(n_dk + alpha_k) / Gamma(alpha_k)];
    ``row`` is zeroed int64 scratch of length K (left zeroed)."""
    alpha_sum = 0.0
    for k in range(alpha.shape[0]):
        alpha_sum += alpha[k]
    D = doc_ptr.shape[0] - 1
    doc_part = D * math.lgamma(alpha_sum)
    for d in range(D):
        doc_part -= math.lgamma(doc_ptr[d + 1] - doc_ptr[d] + alpha_sum)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            row[z[i]] += 1
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = z[i]
            if row[k] > 0:
                doc_part += math.lgamma(row[k] + alpha[k]) - math.lgamma(alpha[k])
                row[k] = 0
    return doc_part
