"""The kernels package drops numba's cached machine code when the sources it came from change.

numba checks a cached function against its own file only, so a sweep that inlines
``kernels.supervised`` would keep running the old arithmetic after ``supervised.py`` changes.
Proven on a copy of a package: the cached files survive an import with unchanged sources,
are removed after a change to any module that uses numba (not after a change elsewhere), and
an unwritable cache is left alone without an error.
"""

from __future__ import annotations

from pathlib import Path

from topicsup.kernels import _MARKER, _drop_stale_numba_cache


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "kernels" / "__pycache__").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / "kernels" / "light.py").write_text("from numba import njit\n")
    (pkg / "kernels" / "supervised.py").write_text("import numba\nA = 1\n")
    (pkg / "losses.py").write_text("from numba import njit\n")
    (pkg / "views.py").write_text("import altair\n")
    return pkg


def _cached(pkg: Path) -> list[Path]:
    for d in (pkg / "kernels" / "__pycache__", pkg / "__pycache__"):
        for name in ("f-1.py311.nbi", "f-1.py311.1.nbc"):
            (d / name).write_bytes(b"machine code")
    (pkg / "kernels" / "__pycache__" / "light.cpython-311.pyc").write_bytes(b"bytecode")
    return sorted(p for p in pkg.rglob("*") if p.suffix in (".nbi", ".nbc"))


def test_cache_kept_while_sources_are_unchanged_and_dropped_after_a_change(tmp_path):
    pkg = _package(tmp_path)
    files = _cached(pkg)
    assert _drop_stale_numba_cache(pkg)                 # no digest yet: unknown provenance
    assert not any(f.exists() for f in files)
    assert (pkg / "kernels" / "__pycache__" / "light.cpython-311.pyc").exists()
    files = _cached(pkg)
    assert not _drop_stale_numba_cache(pkg)             # same sources: kept
    assert all(f.exists() for f in files)
    (pkg / "views.py").write_text("import altair  # a plain module\n")
    assert not _drop_stale_numba_cache(pkg)             # a module without numba: kept
    (pkg / "kernels" / "supervised.py").write_text("import numba\nA = 2\n")
    assert _drop_stale_numba_cache(pkg)                 # an inlined module changed: dropped
    assert not any(f.exists() for f in files)
    assert (pkg / "kernels" / "__pycache__" / _MARKER).exists()


def test_an_unwritable_cache_is_left_alone(tmp_path, monkeypatch):
    """Where the cache cannot be changed (a read-only install), the import goes on."""
    pkg = _package(tmp_path)
    files = _cached(pkg)

    def refuse(self, *args, **kwargs):
        raise PermissionError(f"read-only: {self}")

    monkeypatch.setattr(Path, "unlink", refuse)
    assert not _drop_stale_numba_cache(pkg)
    assert all(f.exists() for f in files)
