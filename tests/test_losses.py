"""Losses: the augmentation draw follows its conditional and (b, w) reproduce the augmented
factor exp(b s - w s^2 / 2) up to terms free of s."""

import numpy as np
import pytest
from scipy import stats

from topicsup.kernels.rng import seed_state
from topicsup.losses import Augmentation, Hinge


def test_hinge_augmentation_is_inverse_gaussian_and_b_w_match_the_factor():
    """xi | s ~ IG(1/(lam |1 - y s|), 1) (KS, 50k draws), and log of the augmented hinge factor
    -lam zeta - lam^2 xi zeta^2 / 2 (Zheng 2015 eq. 14, xi = 1/gamma) minus b s - w s^2/2 is
    the same for every s."""
    lam, n = 1.7, 50_000
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)[:, None]
    s = np.full((n, 1), 0.3)
    b, w = np.empty((n, 1)), np.empty((n, 1))
    Hinge(lam).augment(y, s, seed_state(1), Augmentation(b, w))
    xi = w[:, 0] / lam**2
    assert np.allclose(b[:, 0], lam * y[:, 0] * (1 + lam * xi))
    for sign in (1.0, -1.0):
        zeta = 1 - sign * 0.3
        mean = 1 / (lam * abs(zeta))
        x = xi[y[:, 0] == sign]
        assert stats.kstest(x, stats.invgauss(mean, scale=1.0).cdf).pvalue > 1e-3
    for j in range(5):
        xi_j, y_j = xi[j], y[j, 0]
        grid = np.linspace(-3, 3, 7)
        zeta = 1 - y_j * grid
        exact = -lam * zeta - lam**2 * xi_j * zeta**2 / 2
        frame = b[j, 0] * grid - w[j, 0] * grid**2 / 2
        assert np.allclose(exact - frame, (exact - frame)[0])


def test_hinge_on_the_margin_draws_from_the_limit():
    n = 20_000
    y = np.ones((n, 1))
    b, w = np.empty((n, 1)), np.empty((n, 1))
    Hinge(2.0).augment(y, np.ones((n, 1)), seed_state(2), Augmentation(b, w))  # zeta = 0
    assert np.isfinite(w).all() and (w > 0).all()


@pytest.mark.parametrize("bad, err", [(0, ValueError), (-1.0, ValueError),
                                      (float("nan"), ValueError), (1e7, ValueError),
                                      ("1", TypeError), (True, TypeError)])
def test_hinge_rejects_bad_lambda(bad, err):
    with pytest.raises(err, match=r"lam must be a (finite )?number"):
        Hinge(bad)
