"""A software prefetch hint for numba kernels (LLVM's ``llvm.prefetch``).

O(1) samplers touch a few counts at random places of large arrays per token; at large K each
touch is a cache miss. Asking for the next token's lines while the current token is sampled
overlaps those misses with useful work. A prefetch is only a hint: a wrong or stale address
costs a wasted memory read, never a wrong result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numba.core.base import BaseContext
    from numba.core.typing.context import Context
    from numba.core.typing.templates import Signature

    from ..arrays import Array

    # the intrinsic as a kernel calls it: numba supplies the typing context, and the typing
    # function below sees the arguments' numba types (numba's stub would ask for the context)
    def prefetch(arr: Array, idx: int) -> None:
        """Hint that ``arr[idx]`` (1-D array, integer index in range) will be read soon."""
else:
    @intrinsic
    def prefetch(typingctx: Context, arr: types.Type,
                 idx: types.Type) -> tuple[Signature, Callable[..., ir.Value]] | None:
        """Hint that ``arr[idx]`` (1-D array, integer index in range) will be read soon."""
        if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(idx, types.Integer):
            return None
        sig = types.void(arr, idx)

        def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                    args: Sequence[ir.Value]) -> ir.Value:
            aryty, idxty = signature.args
            ary = context.make_array(aryty)(context, builder, args[0])
            index = context.cast(builder, args[1], idxty, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [index])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            # llvmlite mangles the name for the pointer type: .p0 (opaque) or .p0i8 (typed)
            fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
            # read access, high temporal locality, data cache
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return sig, codegen
