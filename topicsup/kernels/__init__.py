"""numba kernels: pure functions over arrays of state. No Python objects, pandas or widgets.

A kernel mutates state arrays in place and fills a float64 info record (``kernels.info``); the
layers above choose kernels and own the state: the parts (``topicsup.samplers``, ``losses``,
``priors``, ``weight_samplers``) call them, the models compose the parts and the session owns
the chain's state.

numba's on-disk cache (``cache=True``) is checked against each function's own source file
only: a sweep that inlines ``kernels.supervised`` keeps its old compiled copy after
``supervised.py`` changes, and would silently run the old arithmetic. So before any kernel is
compiled, the package's cached files are dropped whenever its numba sources differ from those
the cache was built from (a digest kept next to the cache).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]
_MARKER = "topicsup-numba-sources.sha256"


def _drop_stale_numba_cache(package: Path = _PACKAGE) -> bool:
    """Remove the ``__pycache__`` numba files (.nbi, .nbc) of ``package`` if its modules that
    use numba changed since they were written; return whether it removed any."""
    sources = sorted(p for p in package.rglob("*.py") if b"numba" in p.read_bytes())
    digest = hashlib.sha256()
    for p in sources:
        digest.update(str(p.relative_to(package)).encode() + b"\0" + p.read_bytes())
    marker = package / "kernels" / "__pycache__" / _MARKER
    try:
        if marker.exists() and marker.read_text() == digest.hexdigest():
            return False
        stale = [f for d in {p.parent / "__pycache__" for p in sources} if d.is_dir()
                 for f in d.iterdir() if f.suffix in (".nbi", ".nbc")]
        for f in stale:
            f.unlink(missing_ok=True)
        marker.parent.mkdir(exist_ok=True)
        marker.write_text(digest.hexdigest())
        return bool(stale)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        return False


_drop_stale_numba_cache()
