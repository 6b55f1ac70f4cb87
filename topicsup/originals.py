"""The documents' original texts, kept beside a corpus built from texts
(``Corpus.from_texts(..., keep_texts=...)``), so that a reader of "the documents that carry
this topic" reads what was written, not the tokens left after the stop words.

A ``TextStore`` holds the texts UTF-8 encoded one after another with their byte offsets, in
memory or in a file read through a memory map (``np.memmap``): at 10^6 documents the texts
stay on disk and a page is read when a document is shown. Row ``i`` is the ``i``-th text
given, so a corpus finds document ``d``'s text at its input position ``doc_index[d]`` (empty
documents dropped and sub-corpora keep working).

A store built in memory is kept in a checkpoint (its bytes and offsets); a store in a file is
kept by reference (its path, size and ``fingerprint``) and reopened on load when the file is
still there and still the one written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import BinaryIO

import numpy as np

from .arrays import I64, Array

# a texts file's fingerprint reads this many blocks of this many bytes, spread evenly over
# the file (first and last included): O(1) whatever the corpus (a whole-file hash would add
# 1.5 s a GB to every load)
FINGERPRINT_BLOCKS, FINGERPRINT_BLOCK = 64, 1 << 14


def fingerprint(data: Array, offsets: I64) -> str:
    """A texts file's fingerprint: BLAKE2b of its size, its offsets (every document's
    length) and ``FINGERPRINT_BLOCKS`` blocks of its bytes spread over it (all of it when
    small). A file rewritten with other texts is told apart unless every document keeps its
    byte length and the changes miss every block read."""
    h = hashlib.blake2b(digest_size=16)
    n = int(data.shape[0])
    h.update(n.to_bytes(8, "little"))
    h.update(np.ascontiguousarray(offsets, np.int64).tobytes())
    if n <= FINGERPRINT_BLOCKS * FINGERPRINT_BLOCK:
        h.update(np.asarray(data[:n]).tobytes())
    else:
        for j in range(FINGERPRINT_BLOCKS):
            start = (n - FINGERPRINT_BLOCK) * j // (FINGERPRINT_BLOCKS - 1)
            h.update(np.asarray(data[start:start + FINGERPRINT_BLOCK]).tobytes())
    return h.hexdigest()


class TextStore:
    """Texts by row: ``store[i]`` is the ``i``-th text, ``len(store)`` how many. Built with
    ``TextWriter``; ``path`` is None for a store in memory."""

    def __init__(self, data: Array, offsets: I64, path: Path | None = None) -> None:
        offsets = np.asarray(offsets)
        if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 1:
            raise ValueError("a text store's data must be a 1-d uint8 array (UTF-8 bytes)")
        if offsets.dtype != np.int64 or offsets.ndim != 1 or offsets.size < 1:
            raise ValueError("a text store's offsets must be a 1-d int64 array (rows + 1)")
        if offsets[0] != 0 or offsets[-1] != data.shape[0] or (np.diff(offsets) < 0).any():
            raise ValueError(f"a text store's offsets must rise from 0 to its size "
                             f"({data.shape[0]} bytes), got {offsets[0]} ... {offsets[-1]}")
        self.data = data
        self.offsets = offsets
        self.path = path
        self.offsets.flags.writeable = False

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < len(self):
            raise IndexError(f"text {i} of a store of {len(self)}")
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        raw = bytes(self.data[lo:hi])
        try:   # what the writer wrote: UTF-8, a lone surrogate kept
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:   # bytes of another origin (a tampered file): shown, U+FFFD
            return raw.decode("utf-8", "replace")

    @property
    def nbytes(self) -> int:
        return int(self.offsets[-1])

    def __repr__(self) -> str:
        where = "in memory" if self.path is None else f"in {self.path.name}"
        return f"TextStore({len(self)} texts, {self.nbytes:,} bytes {where})"

    # ---------------------------------------------------------------- files
    def fingerprint(self) -> str:
        """``fingerprint`` of this store's bytes and offsets (recorded for a file)."""
        return fingerprint(self.data, self.offsets)

    @classmethod
    def open(cls, path: str | os.PathLike[str], offsets: I64,
             expected: str | None = None) -> "TextStore":
        """The store of the file at ``path`` written by a ``TextWriter``, with its
        ``offsets``; a ``ValueError`` when the file's size is not the offsets' end, or when
        ``expected`` (a ``fingerprint`` recorded with it) is not the file's."""
        path = Path(path)
        size = path.stat().st_size
        offsets = np.asarray(offsets)
        if offsets.ndim != 1 or offsets.size < 1 or offsets.dtype != np.int64 \
                or offsets[-1] != size:
            raise ValueError(f"the texts file {path} holds {size:,} bytes, the offsets end at "
                             f"{offsets[-1] if offsets.size else None}: not the texts kept")
        data: Array = (np.memmap(path, dtype=np.uint8, mode="r") if size
                       else np.zeros(0, np.uint8))
        store = cls(data, offsets, path)
        if expected is not None and store.fingerprint() != expected:
            raise ValueError(f"the texts file {path} has the size recorded but other "
                             f"contents: not the texts kept (rewritten since?)")
        return store


class TextWriter:
    """Texts appended chunk by chunk (``add``), then ``close()``: the ``TextStore``. With a
    ``path`` they go straight to that file (created or replaced), otherwise to memory."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._file: BinaryIO | None = None   # opened by the first chunk
        self._chunks: list[bytes] = []
        self._lengths: list[I64] = []
        self._size = 0

    def add(self, texts: list[str]) -> None:
        encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
        self._lengths.append(np.fromiter(map(len, encoded), np.int64, len(encoded)))
        blob = b"".join(encoded)
        self._size += len(blob)
        if self.path is not None:
            if self._file is None:
                self._file = open(self.path, "wb")
            self._file.write(blob)
        else:
            self._chunks.append(blob)

    def close(self) -> TextStore:
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, np.int64)
        offsets = np.zeros(lengths.size + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if self.path is not None:
            if self._file is None:
                self._file = open(self.path, "wb")
            self._file.close()
            return TextStore.open(self.path, offsets)
        data = np.frombuffer(b"".join(self._chunks), np.uint8)
        self._chunks = []
        return TextStore(data, offsets)

    def abort(self) -> None:
        """Drop what was written (a build that failed): the file is removed."""
        if self._file is not None and self.path is not None:
            self._file.close()
            self.path.unlink(missing_ok=True)
        self._chunks = []


def keep_texts_option(keep_texts: object) -> TextWriter | None:
    """``keep_texts``: False (do not keep them), True (in memory) or a file path (on disk,
    memory-mapped when read)."""
    if keep_texts is False or keep_texts is None:
        return None
    if keep_texts is True:
        return TextWriter()
    if isinstance(keep_texts, (str, os.PathLike)):
        path = Path(keep_texts)
        if path.is_dir():
            raise ValueError(f"keep_texts must be a file to write the texts to, got the "
                             f"directory {path}")
        if not path.parent.is_dir():
            raise ValueError(f"keep_texts: the directory of {path} does not exist")
        return TextWriter(path)
    raise TypeError(f"keep_texts must be False, True (in memory) or a file path, got "
                    f"{type(keep_texts).__name__}")


__all__ = ["TextStore", "TextWriter", "keep_texts_option"]
