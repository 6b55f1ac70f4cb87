"""Bitmaps of topics (K bits in int64 words): per word, the topics where it has tokens
(n_wk > 0), and per document its topics, for AliasPDP's sparse part
(``kernels.pdp.alias_sweep``).

Its exact document part needs the word's cached Stirling ratios at the document's k_d
topics: 16 bytes per topic of a (V, 2K) array, a row of 16 KB at k = 1024 far from the
caches, read at ~100 scattered lines per token. But a word has customers in few of its
document's topics (20 Newsgroups, PDP at k = 1024 after 10 iterations: a token's document
has ~118 topics, its word ~7 of them), and where it has none the ratios are known without a
read (join 0, open 1). The AND of the two bitmaps (16 words at k = 1024) lists the shared
topics; the others' mass is a running sum. On that state one sweep of the kernel alone took
1.88 s before, 1.45 s with the bitmap skipping reads inside the O(k_d) loop (1.29 s with
the next token's lines prefetched), 0.89 s with the AND and the running sum (the loop's bit tests mispredicted too often to pay).

AliasHDP does not use them: its document part reads a 4-byte count per topic at ~25 topics
(a 4 KB row, which the kernel prefetches for the next token), and on the same kind of state
(HDP at k = 1024 after 10 iterations; the word shares ~5.5 of the document's ~25 topics) the
bitmap cost more than the reads it saved: 1.14 s a sweep without, 1.25-1.35 s with the
bitmap inside the loop, 1.20 s with the AND and running sums. Its time is in the MH steps
(~0.24 s each) and the moves, not in the document part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..arrays import I32, I64

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numba.core.base import BaseContext
    from numba.core.typing.context import Context
    from numba.core.typing.templates import Signature


def n_words(K: int) -> int:
    """int64 words of a K-topic bitmap."""
    return (K + 63) // 64


def allocate(V: int, K: int) -> I64:
    """V empty K-topic bitmaps, (V, ceil(K / 64)) int64."""
    return np.zeros((V, n_words(K)), np.int64)


@njit(cache=True, nogil=True, inline="always")
def has(hw: I64, k: int) -> int:
    """Whether bit k of a word's bitmap ``hw`` is set (1 or 0)."""
    return (hw[k >> 6] >> (k & 63)) & 1


@njit(cache=True, nogil=True, inline="always")
def mark(hw: I64, k: int, on: bool) -> None:
    """Set (``on``) or clear bit k of a word's bitmap ``hw``."""
    if on:
        hw[k >> 6] |= np.int64(1) << (k & 63)
    else:
        hw[k >> 6] &= ~(np.int64(1) << (k & 63))


if TYPE_CHECKING:
    # the intrinsic as a kernel calls it: numba supplies the typing context, and the typing
    # function below sees the argument's numba type (numba's stub would ask for the context)
    def lowest(x: int) -> int:
        """The index of the lowest set bit of int64 ``x`` (LLVM's cttz; ``x`` must not be 0)."""
        ...
else:
    @intrinsic
    def lowest(typingctx: Context,
               x: types.Type) -> tuple[Signature, Callable[..., ir.Value]] | None:
        """The index of the lowest set bit of int64 ``x`` (LLVM's cttz; ``x`` must not be 0)."""
        if not isinstance(x, types.Integer) or x.bitwidth != 64:
            return None
        sig = types.int64(x)

        def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                    args: Sequence[ir.Value]) -> ir.Value:
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
            fn = builder.module.declare_intrinsic("llvm.cttz", [i64], fnty)
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

        return sig, codegen


@njit(cache=True, nogil=True)
def fill(n_wk: I32, bits: I64) -> None:
    """``bits`` from the counts: bit k of word w set iff n_wk[w, k] > 0."""
    bits[:] = 0
    V, K = n_wk.shape
    for w in range(V):
        for k in range(K):
            if n_wk[w, k] > 0:
                mark(bits[w], k, True)
