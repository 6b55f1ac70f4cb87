"""Checks of public arguments: one rule per kind of value, in one place.

Every public entry point (``Corpus``, the models, ``Session``, the estimators, the loaders and
the widgets) checks its arguments with these functions, once, before anything reaches a
kernel: the kernels never validate, so a value that got past here could crash the process.

Each error names the argument, what was expected (with the range that works) and what came:
a ``TypeError`` for a value of the wrong kind (a str where a number belongs, a bool where a
count belongs), a ``ValueError`` for a value of the right kind out of range.
"""

from __future__ import annotations

import math
import os
import weakref
from typing import Any, Iterable

import numpy as np

from .arrays import Array, Rng

# the largest value an int32 count, index or number of sweeps may take
INT32_MAX = 2**31 - 1


def _shown(value: Any) -> str:
    """The value as an error message shows it: its repr, and its type when that says more."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    if isinstance(value, (str, bytes, bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        kind = type(value).__name__
        return f"{text} ({'an' if kind[0] in 'aeiou' else 'a'} {kind})"
    return text


def _bounds(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f" in [{low:g}, {high:g}]" if isinstance(low, float) or isinstance(high, float) \
            else f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def integer(name: str, value: Any, *, low: int | None = None,
            high: int | None = None) -> int:
    """``value`` as a Python int in [low, high]; bools and integral floats are refused.

    Raises
    ------
    TypeError
        ``value`` is not an integer (``int`` or a numpy integer).
    ValueError
        It is outside [low, high].
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer{_bounds(low, high)}, got {_shown(value)}")
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise ValueError(f"{name} must be an integer{_bounds(low, high)}, got {v}")
    return v


def number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False, why: str = "") -> float:
    """``value`` as a finite Python float in the interval given by ``low``/``high`` (closed
    unless ``low_open``/``high_open``); ``why`` is appended to a range error, to say what goes
    wrong outside it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {_shown(value)}")
    v = float(value)
    bad = not math.isfinite(v)
    if low is not None:
        bad |= v <= low if low_open else v < low
    if high is not None:
        bad |= v >= high if high_open else v > high
    if bad:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must be a finite number in {left}{lo}, {hi}{right}, got "
                         f"{value!r}{'; ' + why if why else ''}")
    return v


def choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` if it is one of the strings ``choices`` (a ``TypeError`` for a non-str)."""
    options = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(options)}, got {_shown(value)}")
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}")
    return str(value)   # a numpy str_ becomes a plain str


def first_duplicate(values: Iterable[Any]) -> Any:
    """The first value that occurs twice, or None."""
    seen: set[Any] = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None


def flag(name: str, value: Any) -> bool:
    """``value`` as a bool; only True and False (and numpy bools) are accepted."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_shown(value)}")
    return bool(value)


def generator_state(name: str, value: Any) -> Rng:
    """A caller's xoshiro256** state (``kernels.rng``), copied: a uint64 array of shape (4,),
    not all zero (the generator's one fixed point, which would draw zeros forever)."""
    if not isinstance(value, np.ndarray) or value.dtype != np.uint64 or value.shape != (4,):
        raise TypeError(f"{name} must be a xoshiro state: a uint64 array of shape (4,) (e.g. "
                        f"kernels.rng.seed_state(seed)), got {type(value).__name__} "
                        f"{getattr(value, 'dtype', '')} {getattr(value, 'shape', '')}")
    if not value.any():
        raise ValueError(f"{name} is the all-zero state, which draws zeros forever")
    return np.array(value, dtype=np.uint64)


def path_like(name: str, value: Any) -> os.PathLike[str] | str:
    """A file system path: a str or an ``os.PathLike``."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (str or pathlib.Path), got {_shown(value)}")
    return value


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (Linux's MemAvailable; the physical
    memory where that cannot be read; a large number where neither can)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 2**50


def allocation(what: str, n_bytes: float, hint: str = "") -> None:
    """Refuse to allocate more than the memory available now: a ``ValueError`` saying what
    needs how much, instead of swapping for hours or a ``MemoryError`` deep inside."""
    limit = available_memory()
    if n_bytes > limit:
        raise ValueError(f"{what} would need {n_bytes / 2**30:.1f} GiB, more than the "
                         f"{limit / 2**30:.1f} GiB of memory available"
                         f"{'; ' + hint if hint else ''}")


# the arrays a Corpus or Labels has frozen: a corpus derived from another (dataclasses.replace,
# one_vs_rest, a mapped held-out corpus) shares them instead of copying each time
_FROZEN: weakref.WeakValueDictionary[int, Array] = weakref.WeakValueDictionary()


def frozen(value: Array) -> Array:
    """``value`` made read-only and known as frozen, for a Corpus to hold without a copy: for
    an array nobody else holds (a builder's result, a checkpoint's member just read)."""
    value.flags.writeable = False
    _FROZEN[id(value)] = value
    return value


def frozen_copy(value: Array, dtype: type[np.generic]) -> Array:
    """``value`` as a read-only C-contiguous array of ``dtype``, so what a Corpus holds can no
    longer be changed behind its checks: ``value`` itself when a Corpus or Labels froze it
    already, else a copy (a caller's array, even a read-only one, may still change)."""
    if _FROZEN.get(id(value)) is value and value.dtype == np.dtype(dtype):
        return value
    if isinstance(value, np.memmap) and value.mode == "r" and value.dtype == np.dtype(dtype) \
            and value.flags.c_contiguous:   # a file mapped read-only (``Corpus.load``)
        return value
    a = np.array(value, dtype=dtype, order="C")
    a.flags.writeable = False
    _FROZEN[id(a)] = a
    return a
