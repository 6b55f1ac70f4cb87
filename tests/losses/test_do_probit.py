"""The diagonal-orthant probit (topicsup.losses.do_probit). Proven here:

* the augmentation draws each latent from N(s, 1) truncated by its label (KS against scipy's
  truncated normal, 100,000 draws, scores from -8 to 8 on both sides, the far tails included;
  the law moved by 5% of the latent's spread is rejected), with (b, w) = (a, 1);
* a saved augmentation on the wrong side of zero is refused by position, one with w != c
  by name, and a non-finite score before any draw (the proposal would never accept);
* the class probabilities are DOLDA's P(y = j | s) ∝ Phi(s_j) prod_{l != j} Phi(-s_l)
  (against the product formula), finite for extreme scores, with the argmax of the scores;
* log_psi is log Phi(y s), finite far in the tail (the joint and learning tests of the DOLDA
  preset are tests/models/test_dolda.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from topicsup.kernels.rng import seed_state
from topicsup.losses import Augmentation
from topicsup.losses.do_probit import DOProbit, class_probabilities

N = 100_000


@pytest.mark.parametrize("s", [-8.0, -1.3, 0.0, 0.4, 2.5, 8.0])
def test_latents_are_truncated_normals_on_the_label_side(s):
    loss = DOProbit()
    y = np.repeat([[1.0], [-1.0]], N, axis=1)
    scores = np.full_like(y, s)
    own = Augmentation(np.zeros_like(y), np.zeros_like(y))
    loss.augment(y, scores, seed_state(11), own)
    assert (own.w == 1.0).all()
    pos, neg = own.b[0], own.b[1]
    assert (pos >= 0).all() and (neg <= 0).all()
    above = stats.truncnorm(-s, np.inf, loc=s)
    below = stats.truncnorm(-np.inf, -s, loc=s)
    assert stats.kstest(pos, above.cdf).pvalue > 1e-3
    assert stats.kstest(neg, below.cdf).pvalue > 1e-3
    # teeth: the law moved by 5% of the latent's spread is rejected at this size: its
    # truncation point where the bound shapes it (s <= 0), its centre where it barely does
    d = 0.05 * pos.std()
    wrong = stats.truncnorm(d - s, np.inf, loc=s) if s <= 0 else \
        stats.truncnorm(-s - d, np.inf, loc=s + d)
    assert stats.kstest(pos, wrong.cdf).pvalue < 1e-6


def test_a_forged_augmentation_is_refused_by_position():
    loss = DOProbit()
    y = np.array([[1.0, -1.0], [-1.0, 1.0]])
    own = Augmentation(np.array([[0.3, -0.2], [-1.0, 2.0]]), np.ones((2, 2)))
    loss.check_augmentation(y, own)
    own.b[1, 1] = -0.5
    with pytest.raises(ValueError, match="task 1, document 1 has a = -0.5 with label [+]1"):
        loss.check_augmentation(y, own)
    own.b[1, 1] = 2e6                        # a latent no score reaches (a forged file)
    with pytest.raises(ValueError, match="task 1, document 1 has a = 2000000"):
        loss.check_augmentation(y, own)
    own.b[1, 1] = 0.5
    own.w[0, 0] = 2.0
    with pytest.raises(ValueError, match="w must be c = 1"):
        loss.check_augmentation(y, own)


def test_class_probabilities_are_the_diagonal_orthant_ones():
    rs = np.random.default_rng(0)
    s = rs.normal(0, 2, (50, 4))
    Phi = stats.norm.cdf
    expect = np.stack([Phi(s[:, j]) * np.prod(np.delete(Phi(-s), j, axis=1), axis=1)
                       for j in range(4)], axis=1)
    expect /= expect.sum(axis=1, keepdims=True)
    p = class_probabilities(s)
    assert np.allclose(p, expect, rtol=1e-10)
    assert (p.argmax(axis=1) == s.argmax(axis=1)).all()
    extreme = class_probabilities(np.array([[60.0, -60.0, 55.0], [-80.0, -90.0, -85.0]]))
    assert np.isfinite(extreme).all() and np.allclose(extreme.sum(axis=1), 1.0)
    assert extreme[0].argmax() == 0 and extreme[1].argmax() == 0


def test_log_psi_is_the_orthant_probability():
    y = np.array([[1.0, -1.0, 1.0]])
    s = np.array([[0.5, 0.5, -40.0]])
    assert np.allclose(DOProbit().log_psi(y, s), stats.norm.logcdf(y * s))


@pytest.mark.parametrize("s", [-1.0, 0.7])
def test_c_copies_of_a_label_sum_c_truncated_latents(s):
    """With c = 3 copies of each label, b is the sum of 3 independent latents from the same
    truncated normal and w = 3: two-sample KS against sums of scipy's draws (50,000 each),
    and a sum of 2 (a wrong c) rejected; the log pseudo-likelihood is 3 log Phi(y s)."""
    loss, n = DOProbit(c=3), 50_000
    y = np.repeat([[1.0], [-1.0]], n, axis=1)
    own = Augmentation(np.zeros_like(y), np.zeros_like(y))
    loss.augment(y, np.full_like(y, s), seed_state(12), own)
    assert (own.w == 3.0).all()
    rs = np.random.default_rng(0)
    for row, (lo, hi) in ((0, (-s, np.inf)), (1, (-np.inf, -s))):
        ref = stats.truncnorm(lo, hi, loc=s).rvs((3, n), random_state=rs)
        assert stats.ks_2samp(own.b[row], ref.sum(axis=0)).pvalue > 1e-3
        assert stats.ks_2samp(own.b[row], ref[:2].sum(axis=0)).pvalue < 1e-6
    assert np.allclose(loss.log_psi(y[:, :2], np.full((2, 2), s)),
                       3 * stats.norm.logcdf(y[:, :2] * s))
    with pytest.raises(ValueError, match="w must be c = 3"):
        loss.check_augmentation(y, Augmentation(own.b, np.ones_like(y)))
    with pytest.raises(TypeError, match="c must be an integer"):
        DOProbit(c=2.5)


def test_a_non_finite_score_is_refused_before_drawing():
    loss = DOProbit()
    y = np.array([[1.0, -1.0]])
    own = Augmentation(np.zeros((1, 2)), np.zeros((1, 2)))
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="score of task 0, document 1 is"):
            loss.augment(y, np.array([[0.5, bad]]), seed_state(0), own)


def test_the_augmentation_keeps_to_the_samplers_threads():
    """DOLDA's probit draws are a parallel kernel: with ``threads=1`` they run on one thread
    (numba's count while each draw runs, in a fresh process of 2 numba threads), with
    ``threads=0`` on all of numba's, and the chain is the same either way."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = (
        "import numba\n"
        "from topicsup import DOLDA, Session\n"
        "from topicsup.datasets import make_synthetic\n"
        "from topicsup.losses.do_probit import DOProbit\n"
        "seen = []\n"
        "real = DOProbit.augment\n"
        "def spy(self, *a):\n"
        "    seen.append(numba.get_num_threads())\n"
        "    return real(self, *a)\n"
        "DOProbit.augment = spy\n"
        "c = make_synthetic(n_docs=60, n_topics=3, doc_length=15, task='multiclass', "
        "seed=1).corpus\n"
        "import sys\n"
        "s = Session(DOLDA(K=3, sampler='partially_collapsed', threads=int(sys.argv[1])), c, "
        "seed=0)\n"
        "s.run(3)\n"
        "print(sorted(set(seen)), numba.get_num_threads(), int(s.state.z.sum()))")
    root = Path(__file__).resolve().parents[2]
    outs = [subprocess.run([sys.executable, "-c", code, n], capture_output=True, text=True,
                           env={**os.environ, "NUMBA_NUM_THREADS": "2"}, cwd=root,
                           check=True).stdout.strip() for n in ("1", "0")]
    one, every = (o.rsplit(" ", 2) for o in outs)
    assert one[0] == "[1]" and every[0] == "[2]", outs   # during the draws
    assert one[1] == every[1] == "2", outs                # restored after them
    assert one[2] == every[2], outs                       # the same chain
