"""Names for the array types the package passes around (annotations only).

numba compiles a kernel for the dtypes it is called with, so these say what the Python side
hands it; ``Rng`` is a counter-based stream's state (``kernels.rng``: 4 uint64 words).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]            # any dtype
F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Bool = npt.NDArray[np.bool_]
Rng = npt.NDArray[np.uint64]        # a stream's state (kernels.rng)
Row = dict[str, Any]                # one history row: metric, value, proposal, ...
