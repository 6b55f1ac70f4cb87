"""The per-word topic bitmaps of AliasPDP's sparse part (``kernels.bitmaps``)."""

import numpy as np
from numba import njit

from topicsup.kernels import bitmaps


@njit(cache=True)
def _set_bits(x):
    out = np.zeros(64, np.int64)
    n = 0
    while x != 0:
        out[n] = bitmaps.lowest(x)
        x &= x - 1
        n += 1
    return out[:n]


@njit(cache=True)
def _marked(K, on, off):
    hw = np.zeros((K + 63) // 64, np.int64)
    for k in on:
        bitmaps.mark(hw, k, True)
    for k in off:
        bitmaps.mark(hw, k, False)
    return hw, np.array([bitmaps.has(hw, k) for k in range(K)])


def test_lowest_lists_every_set_bit_including_the_sign_bit():
    """``lowest`` (LLVM cttz) walks the set bits of an int64 in order, the sign bit too."""
    for x in (1, 5, 2**40 + 2**3, -2**63, -1, 0x5555555555555555):
        x = np.int64(x) if x < 2**63 else np.int64(x - 2**64)
        expected = [b for b in range(64) if (int(x) >> b) & 1]
        np.testing.assert_array_equal(_set_bits(x), expected)


def test_mark_and_has_agree_with_a_boolean_array_across_words():
    """Bits set and cleared across three int64 words (bits 0, 63, 64, 129) read back as a
    boolean array would."""
    K = 130
    on = np.array([0, 5, 63, 64, 100, 127, 129])
    off = np.array([5, 100])
    hw, got = _marked(K, on, off)
    assert bitmaps.n_words(K) == 3
    want = np.zeros(K, np.int64)
    want[on] = 1
    want[off] = 0
    np.testing.assert_array_equal(got, want)
    assert hw.shape == (3,) and hw[0] < 0   # bit 63 is the sign bit


def test_fill_marks_exactly_the_nonzero_counts():
    """``fill`` from a count matrix: bit (w, k) set iff n_wk[w, k] > 0, stale bits cleared."""
    rng = np.random.default_rng(0)
    n_wk = (rng.random((7, 130)) < 0.2).astype(np.int32) * rng.integers(1, 5, (7, 130),
                                                                        dtype=np.int32)
    bits = np.full((7, bitmaps.n_words(130)), -1, np.int64)   # stale: every bit set
    bitmaps.fill(n_wk, bits)
    for w in range(7):
        _, got = _marked(130, np.flatnonzero(n_wk[w]), np.zeros(0, np.int64))
        hw = bits[w]
        np.testing.assert_array_equal([(int(hw[k >> 6]) >> (k & 63)) & 1 for k in range(130)],
                                      (n_wk[w] > 0).astype(int))
        np.testing.assert_array_equal(got, (n_wk[w] > 0).astype(int))
