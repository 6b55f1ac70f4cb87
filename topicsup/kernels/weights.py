"""Weight samplers: draws of eta_t | Z, augmentation ~ N(mu_t, P_t^-1) (docs/math.md sec. 1) with

    P_t = diag(prior precision_t) + sum_d w_dt xt_d xt_d^T,   P_t mu_t = sum_d b_dt xt_d.

Every loss reaches the weights only through (b, w), and every prior through its diagonal
precision, so these two samplers serve all models. Prior means are zero (all priors here).

* ``gaussian_weights``: the exact joint draw by Cholesky, O(M^3 + D M^2) for M = K + P.
* ``coordinate_weights``: Gibbs over coordinates (Zheng et al. 2015 eq. 23-24), O(non-zeros
  of X) per pass, keeping the scores s_d = eta . xt_d up to date; each coordinate draw is
  exact given the others, so the pass leaves N(mu, P^-1) invariant. Optionally each pass ends
  with an exact draw along the all-topics direction (``shift_topic_weights``), which the
  coordinates explore slowly.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..arrays import F64, I32, I64, Rng
from .draws import normal
from .linalg import cholesky


@njit(cache=True, nogil=True)
def gram(row_ptr: I64, cols: I64, vals: F64, w: F64, M: int) -> F64:
    """The lower triangle of X^T diag(w) X (M, M), the features X by row (``sparse_rows``,
    ``topic_rows``): O(sum_d nnz_d^2), a document's topic proportions being zero outside
    the few topics it uses."""
    P = np.zeros((M, M))
    for d in range(row_ptr.shape[0] - 1):
        wd = w[d]
        for a in range(row_ptr[d], row_ptr[d + 1]):
            i = cols[a]
            wx = wd * vals[a]
            for c in range(row_ptr[d], a + 1):  # columns ascending: j <= i
                P[i, cols[c]] += wx * vals[c]
    return P


@njit(cache=True, nogil=True)
def shift(row_ptr: I64, cols: I64, vals: F64, b: F64, M: int) -> F64:
    """r = X^T b for one task."""
    r = np.zeros(M)
    for d in range(row_ptr.shape[0] - 1):
        for a in range(row_ptr[d], row_ptr[d + 1]):
            r[cols[a]] += b[d] * vals[a]
    return r


@njit(cache=True, nogil=True)
def add_prior(P: F64, prior_precision: F64) -> None:
    """P (lower triangle of X^T diag(w) X) += diag(prior_precision), made symmetric."""
    for i in range(P.shape[0]):
        P[i, i] += prior_precision[i]
        for j in range(i):
            P[j, i] = P[i, j]


@njit(cache=True, nogil=True)
def precision_and_shift(row_ptr: I64, cols: I64, vals: F64, b: F64, w: F64,
                        prior_precision: F64) -> tuple[F64, F64]:
    """P = diag(prior_precision) + X^T diag(w) X and r = X^T b for one task."""
    M = prior_precision.shape[0]
    P = gram(row_ptr, cols, vals, w, M)
    add_prior(P, prior_precision)
    return P, shift(row_ptr, cols, vals, b, M)


@njit(cache=True, nogil=True)
def same_rows(w: F64) -> bool:
    """Every task's w (T, D) is the first's (the DO-probit's w = c everywhere)."""
    for t in range(1, w.shape[0]):
        for d in range(w.shape[1]):
            if w[t, d] != w[0, d]:
                return False
    return True


@njit(cache=True, nogil=True)
def gaussian_weights(P: F64, r: F64, rng: Rng, out: F64) -> None:
    """Draw out ~ N(P^-1 r, P^-1): with P = L L^T, out = L^-T (L^-1 r + eps)."""
    L = cholesky(P)
    M = r.shape[0]
    v = np.empty(M)
    for i in range(M):  # forward: L v = r
        acc = r[i]
        for j in range(i):
            acc -= L[i, j] * v[j]
        v[i] = acc / L[i, i]
    for i in range(M):
        v[i] += normal(rng)
    for i in range(M - 1, -1, -1):  # backward: L^T out = v
        acc = v[i]
        for j in range(i + 1, M):
            acc -= L[j, i] * out[j]
        out[i] = acc / L[i, i]


@njit(cache=True, nogil=True)
def sparse_rows(X: F64) -> tuple[I64, I64, F64]:
    """The non-zeros of dense (D, M) features by row: ``row_ptr`` (D + 1), ``cols``
    (ascending within a row) and ``vals``."""
    D, M = X.shape
    row_ptr = np.zeros(D + 1, np.int64)
    for d in range(D):
        n = 0
        for m in range(M):
            if X[d, m] != 0.0:
                n += 1
        row_ptr[d + 1] = row_ptr[d] + n
    cols = np.empty(row_ptr[D], np.int64)
    vals = np.empty(row_ptr[D])
    j = 0
    for d in range(D):
        for m in range(M):
            if X[d, m] != 0.0:
                cols[j] = m
                vals[j] = X[d, m]
                j += 1
    return row_ptr, cols, vals


@njit(cache=True, nogil=True)
def topic_rows(doc_ptr: I64, z: I32, K: int, covariates: F64,
               counts: I32) -> tuple[I64, I64, F64]:
    """The features xt_d = (zbar_d, x_d) by row straight from the assignments, as
    ``sparse_rows`` of the dense matrix would give them, in O(tokens + D K) without the
    (D, K + P) matrix: ``counts`` is an int32 scratch row of K zeros (zero again on return),
    ``covariates`` (D, P) (P = 0 for none)."""
    D = doc_ptr.shape[0] - 1
    P = covariates.shape[1]
    row_ptr = np.zeros(D + 1, np.int64)
    cols = np.empty(z.shape[0] + D * P, np.int64)  # at most a column per token, plus x_d
    vals = np.empty(z.shape[0] + D * P)
    j = 0
    for d in range(D):
        p0, p1 = doc_ptr[d], doc_ptr[d + 1]
        for i in range(p0, p1):
            counts[z[i]] += 1
        if p1 > p0:
            n = float(p1 - p0)
            for k in range(K):
                if counts[k]:
                    cols[j] = k
                    vals[j] = counts[k] / n
                    counts[k] = 0
                    j += 1
        for q in range(P):
            if covariates[d, q] != 0.0:
                cols[j] = K + q
                vals[j] = covariates[d, q]
                j += 1
        row_ptr[d + 1] = j
    return row_ptr, cols[:j], vals[:j]


@njit(cache=True, nogil=True)
def rows_to_columns(row_ptr: I64, cols: I64, vals: F64, M: int) -> tuple[I64, I64, F64]:
    """The same non-zeros by column: ``col_ptr`` (M + 1), ``rows`` (d, ascending within a
    column) and ``vals``. A document's topic proportions are zero outside the few topics it
    uses, so the coordinate passes cost O(non-zeros), not O(D M): flat in K once K exceeds
    the topics per document."""
    col_ptr = np.zeros(M + 1, np.int64)
    for a in range(cols.shape[0]):
        col_ptr[cols[a] + 1] += 1
    for m in range(M):
        col_ptr[m + 1] += col_ptr[m]
    rows = np.empty(cols.shape[0], np.int64)
    cvals = np.empty(cols.shape[0])
    fill = col_ptr[:M].copy()
    for d in range(row_ptr.shape[0] - 1):
        for a in range(row_ptr[d], row_ptr[d + 1]):
            m = cols[a]
            rows[fill[m]] = d
            cvals[fill[m]] = vals[a]
            fill[m] += 1
    return col_ptr, rows, cvals


@njit(cache=True, nogil=True)
def sparse_columns(X: F64) -> tuple[I64, I64, F64]:
    """The non-zeros of dense (D, M) features by column (``rows_to_columns``)."""
    row_ptr, cols, vals = sparse_rows(X)
    return rows_to_columns(row_ptr, cols, vals, X.shape[1])


@njit(cache=True, nogil=True)
def topic_row_sums(col_ptr: I64, rows: I64, vals: F64, n_topics: int, D: int) -> F64:
    """s_d = sum over the first ``n_topics`` columns of X_d: 1 for a document with tokens
    (its topic proportions), 0 for an empty one."""
    s = np.zeros(D)
    for j in range(col_ptr[n_topics]):
        s[rows[j]] += vals[j]
    return s


@njit(cache=True, nogil=True)
def shift_topic_weights(row_sums: F64, b: F64, w: F64, prior_precision: F64, eta: F64,
                        score: F64, n_topics: int, rng: Rng) -> None:
    """Gibbs draw along the line eta + c (1, .., 1, 0, ..): all topic weights move together.

    Topic proportions sum to one, so adding c to every topic weight shifts each score by c,
    a per-task bias; coordinate passes change it only through many small correlated steps.
    The target restricted to the line is Gaussian in c, so the draw leaves N(mu, P^-1)
    invariant. On 20 Newsgroups (K = 200, 20 classes) it lifts LightMedLDA's test accuracy
    after 20 sweeps from about 0.42 to 0.50 (benchmarks/README.md)."""
    prec = 0.0
    num = 0.0
    for d in range(row_sums.shape[0]):
        s_d = row_sums[d]
        if s_d != 0.0:
            prec += w[d] * s_d * s_d
            num += s_d * (b[d] - w[d] * score[d])
    for k in range(n_topics):
        prec += prior_precision[k]
        num -= prior_precision[k] * eta[k]
    c = num / prec + normal(rng) / math.sqrt(prec)
    for k in range(n_topics):
        eta[k] += c
    for d in range(row_sums.shape[0]):
        score[d] += c * row_sums[d]


@njit(cache=True, nogil=True)
def coordinate_weights(col_ptr: I64, rows: I64, vals: F64, b: F64, w: F64,
                       prior_precision: F64, eta: F64, score: F64, n_passes: int, rng: Rng,
                       row_sums: F64, n_topics: int) -> None:
    """``n_passes`` Gibbs passes over the coordinates of ``eta`` (in place), the features given
    by column (``sparse_columns``), each pass followed by ``shift_topic_weights`` when
    ``n_topics`` > 1 (``row_sums`` from ``topic_row_sums``; n_topics = 0 for plain passes);
    ``score`` must hold X @ eta on entry and holds it on return."""
    M = col_ptr.shape[0] - 1
    for _ in range(n_passes):
        for k in range(M):
            e_k = eta[k]
            num = 0.0
            prec = prior_precision[k]
            for j in range(col_ptr[k], col_ptr[k + 1]):
                d = rows[j]
                x = vals[j]
                # Zheng 2015 eq. 23-24: the score without coordinate k, s_d - x_dk eta_k
                num += x * (b[d] - w[d] * (score[d] - x * e_k))
                prec += w[d] * x * x
            new = num / prec + normal(rng) / math.sqrt(prec)
            delta = new - e_k
            for j in range(col_ptr[k], col_ptr[k + 1]):
                score[rows[j]] += vals[j] * delta
            eta[k] = new
        if n_topics > 1:
            shift_topic_weights(row_sums, b, w, prior_precision, eta, score, n_topics, rng)


@njit(cache=True, nogil=True)
def column_scores(col_ptr: I64, rows: I64, vals: F64, eta: F64, out: F64) -> None:
    """out[t, d] = eta_t . X_d for the features by column (``sparse_columns``), (T, M) weights.
    Each document's terms are added in column order, as a dense row-by-row dot product would."""
    M = col_ptr.shape[0] - 1
    for t in range(eta.shape[0]):
        e = eta[t]
        o = out[t]
        o[:] = 0.0
        for m in range(M):
            e_m = e[m]
            for j in range(col_ptr[m], col_ptr[m + 1]):
                o[rows[j]] += vals[j] * e_m


@njit(cache=True, nogil=True)
def compute_scores(X: F64, eta: F64, out: F64) -> None:
    """out[t, d] = eta_t . X_d for (D, M) features and (T, M) weights."""
    col_ptr, rows, vals = sparse_columns(X)
    column_scores(col_ptr, rows, vals, eta, out)


# Two kernels, not one with a ``cholesky`` flag: numba compiles every branch of a kernel, and
# the Cholesky branch (precision, factor, Gaussian draw) was 1.1 s of a coordinate model's
# first run in a fresh environment (benchmarks/first_run.py).
@njit(cache=True, nogil=True)
def cholesky_weights(row_ptr: I64, cols: I64, vals: F64, b: F64, w: F64, prior_precision: F64,
                     eta: F64, scores: F64, rng: Rng) -> None:
    """Draw every task's weights exactly given (b, w) (T, D) and the features by row
    (``topic_rows``, ``sparse_rows``): eta_t ~ N(P^-1 r, P^-1) through the Cholesky factor of
    the precision P (Zheng et al. 2015 eq. 22); ``scores`` (T, D) = X eta_t^T on return."""
    M = eta.shape[1]
    col_ptr, rows, cvals = rows_to_columns(row_ptr, cols, vals, M)
    # one X^T diag(w) X for all tasks when their w agree (DOLDA's 240 classes: the Gram
    # matrix was 240 times the same O(sum_d nnz_d^2) sum); the same sum in the same order,
    # so the same bits as one per task
    shared = gram(row_ptr, cols, vals, w[0], M) if same_rows(w) else np.zeros((0, 0))
    for t in range(eta.shape[0]):
        P = shared.copy() if shared.shape[0] else gram(row_ptr, cols, vals, w[t], M)
        add_prior(P, prior_precision[t])
        gaussian_weights(P, shift(row_ptr, cols, vals, b[t], M), rng, eta[t])
    column_scores(col_ptr, rows, cvals, eta, scores)


@njit(cache=True, nogil=True)
def coordinate_passes(row_ptr: I64, cols: I64, vals: F64, b: F64, w: F64, prior_precision: F64,
                      eta: F64, scores: F64, n_passes: int, rng: Rng, n_shift: int,
                      scores_current: bool) -> None:
    """``n_passes`` coordinate-wise Gibbs passes over every task's weights given (b, w) (T, D)
    and the features by row (Zheng et al. 2015 eq. 23-24), each ending with a shift of the
    first ``n_shift`` (topic) weights when n_shift > 1; ``scores`` (T, D) = X eta_t^T on
    return. ``scores_current``: ``scores`` already holds X eta_t^T for these features
    (``row_scores``, the same bits), so the passes need not recompute it."""
    D = row_ptr.shape[0] - 1
    col_ptr, rows, cvals = rows_to_columns(row_ptr, cols, vals, eta.shape[1])
    row_sums = topic_row_sums(col_ptr, rows, cvals, n_shift, D)
    if not scores_current:  # the passes need the current scores
        column_scores(col_ptr, rows, cvals, eta, scores)
    for t in range(eta.shape[0]):
        coordinate_weights(col_ptr, rows, cvals, b[t], w[t], prior_precision[t], eta[t],
                           scores[t], n_passes, rng, row_sums, n_shift)


@njit(cache=True, nogil=True)
def row_scores(row_ptr: I64, cols: I64, vals: F64, eta: F64, out: F64) -> None:
    """out[t, d] = eta_t . X_d for the features by row, in column order within a row (the
    order of ``column_scores``, so both give the same bits)."""
    for t in range(eta.shape[0]):
        e = eta[t]
        o = out[t]
        for d in range(row_ptr.shape[0] - 1):
            acc = 0.0
            for a in range(row_ptr[d], row_ptr[d + 1]):
                acc += vals[a] * e[cols[a]]
            o[d] = acc
