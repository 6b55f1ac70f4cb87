"""iMedLDA's importance estimate of E[z] (Jiang et al. 2012 eq. 15-19; kernels.importance):
its exact limit against the tilted categorical computed by hand, its error against the
self-normalised estimator's known variance as J grows, eq. 19's update, and the fold-in's
fixed point."""

from __future__ import annotations

import numpy as np
import pytest

from topicsup.kernels import importance as kernel
from topicsup.kernels.counts import rebuild_counts
from topicsup.kernels.rng import seed_state
from topicsup.kernels.supervised import AUGMENTED, Term


def _setup(seed, D=3, V=7, K=4, T=3, length=6):
    """Random point estimates, a tilt from random (b, eta) with w = 0, and a corpus."""
    rng = np.random.default_rng(seed)
    doc_ptr = np.arange(D + 1, dtype=np.int64) * length
    words = rng.integers(0, V, D * length).astype(np.int32)
    theta = rng.dirichlet(np.ones(K), D)
    phi = rng.dirichlet(np.ones(V), K).T.copy()              # (V, K) word-major
    eta_kt = rng.normal(0, 3, (K, T))
    b = rng.normal(0, 2, (T, D))
    term = Term(AUGMENTED, np.zeros(0), eta_kt, b, np.zeros((T, D)), np.ones((T, D)),
                np.zeros((T, D)), np.zeros(K), np.zeros((4, T)), np.zeros(T), np.zeros(K),
                np.zeros(K, np.int32))
    return words, doc_ptr, theta, phi, term


def _exact(words, doc_ptr, theta, phi, term, tilt=True):
    """p(z_dn = k) ∝ theta_dk phi_kw exp((1/N_d) sum_t b_td eta_kt) per token, by numpy."""
    out = []
    for d in range(doc_ptr.size - 1):
        N = doc_ptr[d + 1] - doc_ptr[d]
        g = term.eta_kt @ term.b[:, d] / N if tilt else np.zeros(theta.shape[1])
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            p = theta[d] * phi[words[i]] * np.exp(g)
            out.append(p / p.sum())
    return np.array(out)


def _run(words, doc_ptr, theta, phi, term, J, key=(1, 2, 3, 4)):
    """One pass of ``importance_sweep``: the expected counts and the modes."""
    D, K = theta.shape
    V = phi.shape[0]
    z = np.zeros(words.size, np.int32)
    n_dk, n_wk, n_k = np.zeros((D, K), np.int32), np.zeros((V, K), np.int32), np.zeros(K, np.int32)
    rebuild_counts(words, doc_ptr, z, n_dk, n_wk, n_k)
    next_dk, next_wk = np.zeros((D, K)), np.zeros((V, K))
    work = np.zeros((4, K))
    info = np.zeros(2)
    kernel.importance_sweep(words, doc_ptr, z, n_dk, n_wk, n_k, theta, phi, next_dk, next_wk,
                            np.array(key, np.uint64), J, term, work[0], work[1], work[2],
                            work[3], np.zeros(4, np.uint64), 0, D, info)
    return next_dk, next_wk, z, n_dk


def test_the_exact_expectation_is_the_tilted_conditional_and_eq19_normalises_it():
    """J = 0: each token's E[z] is theta_dk phi_kw exp(tilt_dk) normalised (eq. 16), summed
    into the documents' and words' expected counts; z is each token's mode with the counts
    following; eq. 19's estimates are (counts + alpha) and (counts + beta) normalised. A tilt
    with the wrong sign is rejected."""
    words, doc_ptr, theta, phi, term = _setup(0)
    e = _exact(words, doc_ptr, theta, phi, term)
    next_dk, next_wk, z, n_dk = _run(words, doc_ptr, theta, phi, term, 0)
    docs = np.repeat(np.arange(doc_ptr.size - 1), np.diff(doc_ptr))
    np.testing.assert_allclose(next_dk, np.array([e[docs == d].sum(0) for d in range(3)]),
                               rtol=1e-12)
    np.testing.assert_allclose(next_wk, np.array([e[words == w].sum(0) for w in range(7)]),
                               rtol=1e-12, atol=1e-15)
    assert np.array_equal(z, e.argmax(1))
    assert np.array_equal(n_dk, np.array([np.bincount(z[docs == d], minlength=4)
                                          for d in range(3)]))
    flipped = term._replace(b=-term.b)
    assert not np.allclose(_run(words, doc_ptr, theta, phi, flipped, 0)[0], next_dk, rtol=1e-3)
    alpha = np.array([0.1, 0.2, 0.3, 0.4])
    theta_new, phi_new = np.empty_like(theta), np.empty_like(phi)
    kernel.normalise_rows(next_dk, alpha, theta_new)
    kernel.normalise_columns(next_wk, 0.01, phi_new)
    np.testing.assert_allclose(theta_new, (next_dk + alpha) / (next_dk + alpha).sum(1,
                                                                                   keepdims=True))
    np.testing.assert_allclose(phi_new, (next_wk + 0.01) / (next_wk + 0.01).sum(0))


def _theory_mse(p):
    """The self-normalised estimator's asymptotic variance with a uniform proposal, per token
    and topic, times J: K [p_k^2 (1 - p_k)^2 + p_k^2 sum_{l != k} p_l^2] (delta method)."""
    K = p.shape[1]
    sq = (p ** 2).sum(1, keepdims=True)
    return K * (p ** 2 * (1 - p) ** 2 + p ** 2 * (sq - p ** 2))


@pytest.mark.parametrize("J", [40, 400, 4000])
def test_the_importance_estimate_converges_to_the_exact_expectation_as_j_grows(J):
    """Over 1,500 tokens, the squared error of the estimate against the exact E[z] is the
    self-normalised estimator's variance / J within 20% (its standard error here is
    about 5%; at J = 40 the O(1/J) bias adds some), and so are the documents' expected
    counts from one pass over whole documents (its error shrinks as 1/sqrt(J),
    towards the exact limit, not to a floor), so the estimate is the paper's (eq. 17 with
    uniform g). Mutants that forget the tilt or the topics' phi have an error that does not
    shrink with J: at J = 4000 they are far outside the band."""
    words, doc_ptr, theta, phi, term = _setup(1, D=50, V=30, K=5, T=3, length=30)
    theta = np.random.default_rng(2).dirichlet(np.full(5, 2.0), 50)   # not too peaked
    e = _exact(words, doc_ptr, theta, phi, term)
    next_dk, _, _, _ = _run(words, doc_ptr, theta, phi, term, J)
    # the per-token estimates, recovered document by document from one-token documents
    est = []
    for d in range(50):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            one = np.array([0, 1], np.int64)
            t = term._replace(b=term.b[:, [d]] / (doc_ptr[d + 1] - doc_ptr[d]),
                              w=np.zeros((3, 1)), y=np.ones((3, 1)), r=np.zeros((3, 1)))
            est.append(_run(words[i:i + 1], one, theta[[d]], phi, t, J, key=(1, 2, 3, 4 + i))[0][0])
    est = np.array(est)
    ratio = ((est - e) ** 2).sum() / (_theory_mse(e).sum() / J)
    assert 0.8 < ratio < 1.2, ratio
    # the whole documents' pass (draws keyed by token): its expected counts err by the sum
    # of their tokens' variances (250 document-topic sums: a wider band)
    docs = np.repeat(np.arange(50), np.diff(doc_ptr))
    exact_dk = np.array([e[docs == d].sum(0) for d in range(50)])
    var_dk = np.array([_theory_mse(e)[docs == d].sum(0) for d in range(50)]) / J
    doc_ratio = ((next_dk - exact_dk) ** 2).sum() / var_dk.sum()
    assert 0.6 < doc_ratio < 1.5, doc_ratio
    if J == 4000:
        for mutant in (_exact(words, doc_ptr, theta, phi, term, tilt=False),
                       _exact(words, doc_ptr, theta, np.ones_like(phi), term)):
            assert ((est - mutant) ** 2).sum() / (_theory_mse(e).sum() / J) > 5


def test_the_fold_in_reaches_the_fixed_point_of_eq17_and_eq19():
    """Exact expectations (J = 0): a held-out document's proportions after many rounds
    satisfy theta ∝ sum_n E[z_n | theta, Phi] + alpha, with zbar the mean of E[z_n]; the
    draws of J > 0 give a nearby answer that does not depend on the other documents."""
    words, doc_ptr, theta, phi, term = _setup(3, D=2, V=7, K=4, length=12)
    alpha = np.full(4, 0.2)
    labels = np.array([11, 12], np.uint64)
    zbar = np.zeros((2, 4))
    kernel.fold_in(words, doc_ptr, phi, alpha, 0, 500, seed_state(0), labels, zbar)
    for d in range(2):
        w = words[doc_ptr[d]:doc_ptr[d + 1]]
        th = (zbar[d] * w.size + alpha) / (w.size + alpha.sum())
        p = th * phi[w]
        np.testing.assert_allclose((p / p.sum(1, keepdims=True)).mean(0), zbar[d], atol=1e-8)
    sampled = np.zeros((2, 4))
    kernel.fold_in(words, doc_ptr, phi, alpha, 300, 500, seed_state(0), labels, sampled)
    assert np.abs(sampled - zbar).max() < 0.1
    alone = np.zeros((1, 4))
    kernel.fold_in(words[doc_ptr[1]:], np.array([0, 12]), phi, alpha, 300, 500, seed_state(0),
                   labels[1:], alone)
    assert np.array_equal(alone[0], sampled[1])


def test_a_tilt_of_hundreds_of_nats_gives_finite_expectations_that_sum_to_one():
    """Documents far from their margin get tilts of hundreds of nats: every weight of the
    drawn topics can then be subnormal; the estimate is still finite and normalised (the
    sum was once subnormal, its reciprocal infinite)."""
    words, doc_ptr, theta, phi, term = _setup(5, D=3, V=7, K=4, length=6)
    phi = phi * 1e-305                       # likelihoods at the edge of the normal range
    term = term._replace(b=term.b * 100)     # tilts of tens to hundreds of nats
    for J in (0, 2, 12):
        next_dk, next_wk, _, _ = _run(words, doc_ptr, theta, phi, term, J)
        assert np.isfinite(next_dk).all() and np.isfinite(next_wk).all()
        np.testing.assert_allclose(next_dk.sum(1), np.diff(doc_ptr))
