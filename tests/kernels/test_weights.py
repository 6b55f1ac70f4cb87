"""Weight samplers against N(mu, P^-1) with P = diag(prior) + X^T W X, P mu = X^T b.

Proven: the precision and shift equal the numpy formula; the Cholesky draw is that Gaussian
(mean within 4 standard errors, Mahalanobis distances chi^2_M by KS); a coordinate-Gibbs pass
leaves it invariant, with or without the shift of all topic weights that may end it (chains
started from exact draws end as exact draws), and keeps the scores equal to X @ eta, reading
the features' non-zeros by column. A pass with a wrong precision is rejected at the same size.
"""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from topicsup.kernels.draws import normal
from topicsup.kernels.rng import seed_state
from topicsup.kernels.weights import (coordinate_weights, gaussian_weights, precision_and_shift,
                                      row_scores, rows_to_columns, sparse_columns, sparse_rows,
                                      topic_row_sums, topic_rows)

M, D, N = 4, 30, 20_000


def _problem(seed=0):
    rs = np.random.default_rng(seed)
    X = np.column_stack([rs.dirichlet(np.ones(M - 1), size=D), np.ones(D)])
    X[:, :M - 1][rs.random((D, M - 1)) < 0.4] = 0.0  # sparse like topic proportions
    b = rs.normal(size=D)
    w = rs.gamma(2.0, size=D)
    prior = np.array([1.0, 2.0, 0.5, 0.01])
    return X, b, w, prior


def _exact(X, b, w, prior):
    P = np.diag(prior) + X.T @ (w[:, None] * X)
    return np.linalg.solve(P, X.T @ b), P


@njit
def _cholesky_draws(P, r, n, rng):
    out = np.empty((n, r.shape[0]))
    for i in range(n):
        gaussian_weights(P, r, rng, out[i])
    return out


@njit
def _coordinate_from(starts, X, b, w, prior, rng, n_shift):
    out = starts.copy()
    err = 0.0
    col_ptr, rows, vals = sparse_columns(X)
    row_sums = topic_row_sums(col_ptr, rows, vals, n_shift, X.shape[0])
    for i in range(out.shape[0]):
        eta = out[i]
        score = np.dot(X, eta)
        coordinate_weights(col_ptr, rows, vals, b, w, prior, eta, score, 1, rng, row_sums,
                           n_shift)
        err = max(err, np.max(np.abs(score - np.dot(X, eta))))
    return out, err


def _check_gaussian(draws, mu, P):
    n = len(draws)
    se = np.sqrt(np.diag(np.linalg.inv(P)) / n)
    assert (np.abs(draws.mean(0) - mu) < 4 * se).all(), (draws.mean(0), mu)
    diff = draws - mu
    maha = np.einsum("ij,jk,ik->i", diff, P, diff)
    return stats.kstest(maha, stats.chi2(len(mu)).cdf).pvalue


def test_sparse_columns_hold_exactly_the_non_zeros():
    X = _problem()[0]
    col_ptr, rows, vals = sparse_columns(X)
    back = np.zeros_like(X)
    for m in range(M):
        back[rows[col_ptr[m]:col_ptr[m + 1]], m] = vals[col_ptr[m]:col_ptr[m + 1]]
    assert np.array_equal(back, X) and len(vals) == np.count_nonzero(X)


def test_topic_rows_are_the_dense_features_by_row_and_column():
    """The features built from the assignments (topic shares, then non-zero covariates) are
    the dense (zbar_d, x_d) matrix's non-zeros, by row and, transposed, by column; an empty
    document has covariates only; row_scores gives column_scores' bits."""
    rs = np.random.default_rng(3)
    K, lengths = 6, [5, 0, 3, 9, 1]
    doc_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    z = rs.integers(0, K, size=doc_ptr[-1]).astype(np.int32)
    cov = rs.normal(size=(len(lengths), 2))
    cov[2, 1] = 0.0
    X = np.zeros((len(lengths), K + 2))
    for d in range(len(lengths)):
        n = np.bincount(z[doc_ptr[d]:doc_ptr[d + 1]], minlength=K)
        X[d, :K] = n / max(lengths[d], 1)
    X[:, K:] = cov
    counts = np.zeros(K, np.int32)
    got = topic_rows(doc_ptr, z, K, cov, counts)
    for a, b in zip(got, sparse_rows(X)):
        assert np.array_equal(a, b)
    assert not counts.any()
    for a, b in zip(rows_to_columns(*got, K + 2), sparse_columns(X)):
        assert np.array_equal(a, b)
    eta = rs.normal(size=(3, K + 2))
    s1, s2 = np.zeros((3, 5)), np.zeros((3, 5))
    row_scores(*got, eta, s1)
    from topicsup.kernels.weights import column_scores
    column_scores(*sparse_columns(X), eta, s2)
    assert np.array_equal(s1, s2) and np.allclose(s1, eta @ X.T)


def test_precision_and_shift_match_numpy():
    X, b, w, prior = _problem()
    P, r = precision_and_shift(*sparse_rows(X), b, w, prior)
    mu, P_ref = _exact(X, b, w, prior)
    assert np.allclose(P, P_ref) and np.allclose(r, X.T @ b)


@pytest.mark.parametrize("shared", [True, False], ids=["one-w", "w-per-task"])
def test_cholesky_weights_are_each_tasks_draw(shared):
    """``cholesky_weights`` builds one Gram matrix for all tasks when their w agree (the
    DO-probit's w = c): the draws are bit for bit those of one precision per task, and when
    the w differ in one entry of one task, that task gets its own (a mutant sharing the first
    task's matrix would give other bits)."""
    from topicsup.kernels.weights import cholesky_weights
    X, _, w0, prior = _problem(2)
    T = 5
    rs = np.random.default_rng(9)
    b = rs.normal(size=(T, D))
    w = np.tile(w0, (T, 1))
    if not shared:
        w[3, 7] *= 2.0
    priors = prior * rs.gamma(2.0, size=(T, M))
    rows = sparse_rows(X)
    eta, scores = np.zeros((T, M)), np.zeros((T, D))
    key = seed_state(11)
    cholesky_weights(*rows, b, w, priors, eta, scores, key.copy())
    ref = np.zeros((T, M))
    rng = key.copy()
    for t in range(T):
        P, r = precision_and_shift(*rows, b[t], w[t], priors[t])
        _cholesky_draws_into(P, r, rng, ref[t])
    assert np.array_equal(eta, ref)
    assert np.allclose(scores, eta @ X.T)
    mutant = np.zeros((T, M))
    rng = key.copy()
    for t in range(T):   # the first task's Gram matrix for every task
        P, r = precision_and_shift(*rows, b[t], w[0], priors[t])
        _cholesky_draws_into(P, r, rng, mutant[t])
    assert np.array_equal(eta, mutant) == shared


@njit
def _cholesky_draws_into(P, r, rng, out):
    gaussian_weights(P, r, rng, out)


def test_cholesky_draw_is_the_conditional():
    X, b, w, prior = _problem()
    mu, P = _exact(X, b, w, prior)
    P2, r = precision_and_shift(*sparse_rows(X), b, w, prior)
    assert _check_gaussian(_cholesky_draws(P2, r, N, seed_state(4)), mu, P) > 1e-3


@pytest.mark.parametrize("n_shift", [0, M - 1], ids=["coordinates", "with-shift"])
def test_coordinate_pass_leaves_the_conditional_invariant(n_shift):
    """A pass, with or without the all-topics shift draw, from exact draws ends in exact
    draws; the same pass under a wrong prior precision is rejected at the same size."""
    X, b, w, prior = _problem(1)
    mu, P = _exact(X, b, w, prior)
    starts = np.random.default_rng(5).multivariate_normal(mu, np.linalg.inv(P), size=N)
    out, err = _coordinate_from(starts, X, b, w, prior, seed_state(6), n_shift)
    assert err < 1e-9  # the pass keeps the scores equal to X @ eta
    assert _check_gaussian(out, mu, P) > 1e-3
    # teeth: the same pass under a prior precision off by 3x on one coordinate is rejected
    wrong = prior.copy()
    wrong[0] *= 3.0
    out, _ = _coordinate_from(starts, X, b, w, wrong, seed_state(6), n_shift)
    diff = out - mu
    maha = np.einsum("ij,jk,ik->i", diff, P, diff)
    assert stats.kstest(maha, stats.chi2(M).cdf).pvalue < 1e-3


def test_multi_task_wrapper_draws_each_task_from_its_own_conditional():
    """cholesky_weights and coordinate_passes with T = 2 tasks (different b, w and prior per
    task): each task's draws have its own conditional mean (4 SE) and Mahalanobis law (KS),
    and the returned scores equal X eta^T. The coordinate chain (plain, and with the shift draw) runs 2
    passes per call from an exact start, so it must stay exact."""
    from topicsup.kernels.weights import cholesky_weights, coordinate_passes
    X, b0, w0, prior0 = _problem(2)
    _, b1, w1, _ = _problem(3)
    prior1 = prior0[::-1].copy()
    b, w, prior = np.vstack([b0, b1]), np.vstack([w0, w1]), np.vstack([prior0, prior1])
    exact = [_exact(X, b[t], w[t], prior[t]) for t in range(2)]
    n = 4000
    rs = np.random.default_rng(9)
    for cholesky, n_shift in ((True, 0), (False, 0), (False, M - 1)):
        rng = seed_state(10)
        draws = np.empty((n, 2, M))
        for i in range(n):
            eta = np.vstack([rs.multivariate_normal(mu, np.linalg.inv(P)) for mu, P in exact])
            scores = np.zeros((2, D))
            current = bool(i % 2)  # odd draws start from scores already equal to X eta^T
            if current:
                row_scores(*sparse_rows(X), eta, scores)
            if cholesky:
                cholesky_weights(*sparse_rows(X), b, w, prior, eta, scores, rng)
            else:
                coordinate_passes(*sparse_rows(X), b, w, prior, eta, scores, 2, rng, n_shift,
                                  current)
            assert np.allclose(scores, eta @ X.T)
            draws[i] = eta
        for t, (mu, P) in enumerate(exact):
            assert _check_gaussian(draws[:, t], mu, P) > 1e-3


@njit
def _pass_with_bad_shift(starts, X, b, w, prior, rng, n_shift):
    """A pass followed by a shift draw that forgets the prior's pull on the topic weights."""
    out = starts.copy()
    col_ptr, rows, vals = sparse_columns(X)
    row_sums = topic_row_sums(col_ptr, rows, vals, n_shift, X.shape[0])
    for i in range(out.shape[0]):
        eta = out[i]
        score = np.dot(X, eta)
        coordinate_weights(col_ptr, rows, vals, b, w, prior, eta, score, 1, rng, row_sums, 0)
        prec, num = 0.0, 0.0
        for d in range(X.shape[0]):
            prec += w[d] * row_sums[d] ** 2
            num += row_sums[d] * (b[d] - w[d] * score[d])
        eta[:n_shift] += num / prec + normal(rng) / np.sqrt(prec)
    return out


def test_a_wrong_shift_draw_is_rejected():
    """Teeth of the with-shift invariance test: a shift whose conditional omits the prior
    precision of the topic weights moves exact draws off N(mu, P^-1) (KS on the Mahalanobis
    distances rejects it at the size the correct shift passes)."""
    X, b, w, prior = _problem(1)
    mu, P = _exact(X, b, w, prior)
    starts = np.random.default_rng(5).multivariate_normal(mu, np.linalg.inv(P), size=N)
    out = _pass_with_bad_shift(starts, X, b, w, prior, seed_state(6), M - 1)
    diff = out - mu
    maha = np.einsum("ij,jk,ik->i", diff, P, diff)
    assert stats.kstest(maha, stats.chi2(M).cdf).pvalue < 1e-3
