"""``exp`` and ``log`` whose bits are the same on every machine, for every kernel that draws.

Why not ``math.exp``/``math.log``: in a numba kernel they become calls into the platform's C
library, and its bits depend on the machine. glibc picks, at load time, a variant compiled
with fused multiply-adds when the CPU has them (differing from the plain one in about 7 of
10,000 ``exp`` results, 5 of 100,000 ``log``), and macOS's and Windows' libraries are other
code again. A chain draws through thousands of them per sweep (the normal and gamma draws, the
supervised factor exp(g_d(k)), the Stirling tables), so a last-bit difference becomes a
different chain a few sweeps later. These use only +, -, *, / and exact bit operations, which
IEEE 754 fixes bit for bit, and no fused multiply-add (numba does not contract a * b + c
unless ``fastmath`` allows it, which no kernel does: docs/math.md sec. 14).

Accuracy: below one unit in the last place over the whole range (tested against
``decimal``'s correctly rounded values, and against the C library's to 1 ulp), which is all a
sampler needs. Speed (``benchmarks/bench_fmath.py``, one core of an AMD EPYC): exp 4.0 ns a
call against glibc's 3.0, log 3.0 against 2.5; a sweep of the partially collapsed sampler,
which draws V K gammas and logs for Phi, takes 9% longer than with glibc's, Gibbs MedLDA 2-4%,
the collapsed Gibbs and light LDA samplers (no exp or log per token) no longer.

* ``exp(x)``: x = (64 k + j) ln2/64 + r, |r| <= ln2/128 (Cody and Waite's two-part ln2/64),
  exp(x) = 2^k 2^(j/64) exp(r), 2^(j/64) as a head and a tail, exp(r) - 1 by its Taylor
  series to r^5 (the next term is below 2^-54).
* ``log(x)``: x = 2^k z with z in [0.707, 1.414) read off x's bits, c the centre of z's cell
  (one of 128), log x = k ln2 + log c + log(1 + r), r = (z - c) / c by a stored 1/c, the
  Taylor series of log(1 + r) to r^8; in the two cells beside 1, c = 1, so near x = 1 the
  result is r (exact) plus a small correction and loses nothing to cancellation.

The tables are computed once at import by ``decimal`` (correctly rounded at 40 digits, then to
the nearest double), so they too are the same everywhere.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import TYPE_CHECKING

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ..arrays import F64

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from llvmlite import ir
    from numba.core.base import BaseContext
    from numba.core.typing.context import Context
    from numba.core.typing.templates import Signature

    # An intrinsic as a kernel calls it: numba supplies the typing context, and the typing
    # function below sees the arguments' numba types (numba's stub would ask for the context).
    def _bits(x: float) -> int:
        """The IEEE 754 bits of a float64 as an int64 (a bit cast, no conversion)."""
        ...

    def _from_bits(n: int) -> float:
        """The float64 whose IEEE 754 bits are the int64 ``n``."""
        ...
else:
    @intrinsic
    def _bits(typingctx: Context,
              x: types.Type) -> tuple[Signature, Callable[..., ir.Value]] | None:
        """The IEEE 754 bits of a float64 as an int64 (a bit cast, no conversion)."""
        if not isinstance(x, types.Float):
            return None

        def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                    args: Sequence[ir.Value]) -> ir.Value:
            return builder.bitcast(args[0], context.get_value_type(types.int64))
        return types.int64(types.float64), codegen

    @intrinsic
    def _from_bits(typingctx: Context,
                   n: types.Type) -> tuple[Signature, Callable[..., ir.Value]] | None:
        """The float64 whose IEEE 754 bits are the int64 ``n``."""
        if not isinstance(n, types.Integer):
            return None

        def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                    args: Sequence[ir.Value]) -> ir.Value:
            return builder.bitcast(args[0], context.get_value_type(types.float64))
        return types.float64(types.int64), codegen


# log's reduction: x = 2^k z with z in [Z0, 2 Z0), Z0 = 0.70703125 (bits 0x3FE6A...), read off
# x's bits by one integer subtraction; z's cell j is the next 7 bits of the difference, 128
# cells of width 2^-8 below 1 and 2^-7 above. c_j is the cell's midpoint (few significant
# bits, so z - c_j is exact), except the two cells either side of 1, where c = 1: there
# r = z - 1 is exact and log x = r - r^2/2 + ..., no cancellation for x near 1.
_LOG_OFF = 0x3FE6A00000000000
_LOG_CELL_BITS = 7


def _tables() -> tuple[F64, ...]:
    """exp's 2^(j/64) as head and tail for j < 64; log's c_j, 1/c_j and log c_j as head and
    tail for its 128 cells. A head is the double nearest the exact value, the tail the double
    nearest what is left; every exact value is ``decimal``'s at 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        exact = [Decimal(2) ** (Decimal(j) / 64) for j in range(64)]
        e_hi = np.array([float(v) for v in exact])
        e_lo = np.array([float(v - Decimal(h)) for v, h in zip(exact, e_hi)])
        step = 1 << (52 - _LOG_CELL_BITS)
        lo = np.array([_LOG_OFF + j * step for j in range(1 << _LOG_CELL_BITS)],
                      dtype=np.int64).view(np.float64)
        hi = np.array([_LOG_OFF + (j + 1) * step for j in range(1 << _LOG_CELL_BITS)],
                      dtype=np.int64).view(np.float64)
        c = np.where((lo <= 1.0) & (1.0 <= hi) | (hi == 1.0), 1.0, (lo + hi) / 2)
        inv = np.array([float(1 / Decimal(v)) for v in c])
        logs = [Decimal(v).ln() for v in c]
        l_hi = np.array([float(v) for v in logs])
        l_lo = np.array([float(v - Decimal(h)) for v, h in zip(logs, l_hi)])
    return e_hi, e_lo, c, inv, l_hi, l_lo


_EXP_HI, _EXP_LO, _LOG_C, _LOG_INV, _LOG_HI, _LOG_LO = _tables()


def _head(v: Decimal, bits: int) -> float:
    """v cut to its leading ``bits`` significant bits: n * head is then exact for any integer
    n of up to 53 - bits bits."""
    e = math.floor(math.log2(float(v)))
    scale = Decimal(2) ** (bits - 1 - e)
    return float(Decimal(int(v * scale)) / scale)


with localcontext() as _ctx:
    _ctx.prec = 40
    _ln2 = Decimal(2).ln()
    # ln2/64 for exp's reduction, Cody and Waite's two parts: |n| < 2^17 for any finite
    # result, so n * head and x - n * head are exact
    _LN2_64_HI = _head(_ln2 / 64, 32)
    _LN2_64_LO = float(_ln2 / 64 - Decimal(_LN2_64_HI))
    # ln2 for log's e ln2, |e| <= 1074
    _LN2_HI = _head(_ln2, 32)
    _LN2_LO = float(_ln2 - Decimal(_LN2_HI))
    _INV_LN2_64 = float(64 / _ln2)
    del _ln2
del _ctx
_ROUND = 6755399441055744.0        # 1.5 * 2^52
_EXP_MAX = 709.782712893384        # the largest double whose exp is finite
_EXP_MIN = -745.1332191019412      # exp of anything below rounds to 0


@njit(cache=True, nogil=True, inline="always")
def _pow2(k: int) -> float:
    """2^k for an integer -1022 <= k <= 1023, exactly."""
    return _from_bits((k + 1023) << 52)


@njit(cache=True, nogil=True)
def exp(x: float) -> float:
    """e^x, the same bits on every machine; below 1 ulp."""
    if not (_EXP_MIN <= x <= _EXP_MAX):
        if x != x:
            return x
        return 0.0 if x < 0.0 else math.inf
    # n = x 64/ln2 rounded to the nearest integer (ties to even): adding and taking away 1.5
    # 2^52 leaves no bits below the unit, with no branch on the sign
    n = int((x * _INV_LN2_64 + _ROUND) - _ROUND)
    r_hi = x - n * _LN2_64_HI                          # exact
    r = r_hi - n * _LN2_64_LO
    j = n & 63
    k = (n - j) >> 6
    # exp(r) - 1, Taylor to r^5: |r| <= ln2/128, so the r^6 term is below 2^-54
    p = r + r * r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0))))
    hi = _EXP_HI[j]
    y = hi + (_EXP_LO[j] + hi * p)
    if -1022 <= k <= 1023:
        return y * _pow2(k)
    if k > 1023:
        return (y * 2.0) * _pow2(k - 1)
    return (y * _pow2(k + 1000)) * _pow2(-1000)       # a subnormal result


@njit(cache=True, nogil=True)
def log(x: float) -> float:
    """The natural logarithm, the same bits on every machine; below 1 ulp."""
    if not (2.2250738585072014e-308 <= x < math.inf):
        if x != x or x < 0.0:
            return math.nan
        if x == 0.0:
            return -math.inf
        if x == math.inf:
            return x
        return log(x * 18014398509481984.0) - 54.0 * _LN2_HI - 54.0 * _LN2_LO  # subnormal
    t = _bits(x) - _LOG_OFF
    k = t >> 52                                           # arithmetic: floor
    j = (t >> (52 - _LOG_CELL_BITS)) & ((1 << _LOG_CELL_BITS) - 1)
    z = _from_bits(_bits(x) - (k << 52))                  # x / 2^k, in [Z0, 2 Z0)
    # r = z / c - 1: z - c exact; 1/c rounded, so r carries a relative error of about 2^-52,
    # of no weight against log c (|log c| > 2^-7 wherever c != 1, |r| < 2^-8)
    r = (z - _LOG_C[j]) * _LOG_INV[j]
    r2 = r * r
    # log(1 + r) - r, the Taylor series to r^8 (|r| < 2^-7: the r^9 term is below 2^-60 of r),
    # in two halves that evaluate side by side
    p = r2 * ((-0.5 + r * (1.0 / 3.0)) + r2 * (-0.25 + r * 0.2)
              + r2 * r2 * ((-1.0 / 6.0 + r * (1.0 / 7.0)) + r2 * -0.125))
    kf = float(k)
    return (kf * _LN2_HI + _LOG_HI[j]) + (kf * _LN2_LO + _LOG_LO[j] + r + p)


__all__ = ["exp", "log"]
