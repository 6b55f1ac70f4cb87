"""A directory of ``.npy`` files and a JSON file of metadata: how a ``Corpus`` is saved so that
it loads memory-mapped (``Corpus.save``, ``Corpus.load(path, mmap=True)``): a 10^6-document
corpus opens in milliseconds and its arrays are read from the file as the kernels touch them,
instead of being built again from the texts.

Read as untrusted input: ``allow_pickle=False``, every array checked for its dtype kind and
number of dimensions before the caller's own checks (``Corpus.__post_init__``), a name with
no ``.npy`` file of its own a ``ValueError``, the metadata a JSON object of bounded size.
Written atomically: into a sibling directory, renamed over the old one when whole."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .arrays import Array

META = "meta.json"
MAX_META_BYTES = 1 << 20


def _file(name: str) -> str:
    """The file of an array named ``name`` (``labels/values`` -> ``labels__values.npy``)."""
    if not name or "__" in name or name.startswith(".") or "\\" in name:
        raise ValueError(f"array name {name!r} cannot be a file name here")
    return name.replace("/", "__") + ".npy"


def write(path: str | os.PathLike[str], arrays: Mapping[str, Array],
          meta: dict[str, Any]) -> Path:
    """``arrays`` and ``meta`` to the directory ``path`` (created or replaced whole)."""
    path = Path(path)
    if path.exists() and not (path / META).is_file():
        raise ValueError(f"{path} exists and is not a saved corpus: not replaced")
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.mkdir(parents=False)
    try:
        for name, a in arrays.items():
            np.save(tmp / _file(name), np.asarray(a, order="C"), allow_pickle=False)
        (tmp / META).write_text(json.dumps({**meta, "arrays": sorted(arrays)}),
                                encoding="utf-8")
        if path.exists():
            old = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.old")
            path.rename(old)
            tmp.rename(path)
            shutil.rmtree(old)
        else:
            tmp.rename(path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


class Arrays:
    """The arrays of a directory ``write`` made, by name, each checked against ``kinds``
    (name -> (dtype kinds, number of dimensions or None)) when read; ``mmap``: read-only
    memory maps, else copies in memory."""

    def __init__(self, path: str | os.PathLike[str], kinds: Mapping[str, tuple[str, int | None]],
                 mmap: bool = True) -> None:
        self.path = Path(path)
        if not (self.path / META).is_file():
            raise ValueError(f"{self.path} is not a saved corpus (no {META})")
        size = (self.path / META).stat().st_size
        if size > MAX_META_BYTES:
            raise ValueError(f"{self.path / META} is {size} bytes, more than {MAX_META_BYTES}")
        try:
            meta = json.loads((self.path / META).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{self.path / META} is not JSON: {e}") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("arrays"), list) \
                or not all(isinstance(n, str) for n in meta["arrays"]):
            raise ValueError(f"{self.path / META} must be an object listing its arrays")
        unknown = [n for n in meta["arrays"] if n not in kinds]
        if unknown:
            raise ValueError(f"{self.path} holds the array {unknown[0]!r}, not one of "
                             f"{sorted(kinds)}")
        self.meta: dict[str, Any] = meta
        self.kinds = kinds
        self.mmap = mmap

    def __contains__(self, name: str) -> bool:
        return name in self.meta["arrays"]

    def __getitem__(self, name: str) -> Array:
        if name not in self:
            raise KeyError(name)
        file = self.path / _file(name)
        kinds, ndim = self.kinds[name]
        try:   # a 0-d array is a value (numpy maps it as 1-d): read, not mapped
            a = np.load(file, mmap_mode="r" if self.mmap and ndim != 0 else None,
                        allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ValueError(f"{file.name} cannot be read as an array: {e}") from None
        if a.dtype.kind not in kinds or (ndim is not None and a.ndim != ndim):
            raise ValueError(f"{file.name} has dtype {a.dtype} and {a.ndim} dimensions, "
                             f"expected the kinds {kinds!r}"
                             + (f" and {ndim} dimensions" if ndim is not None else ""))
        return a


__all__ = ["Arrays", "META", "write"]
