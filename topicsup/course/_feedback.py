"""What a ``check`` of the course says: passed or not, what was checked and, on a wrong
answer, a hint that names what is wrong (``Feedback``); and the guard every check puts
around a student's function (``call``), so an exception in the student's code is feedback
too, never a traceback in the middle of a lesson."""

from __future__ import annotations

import html
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


_PACKAGE = str(Path(__file__).resolve().parents[1])   # topicsup's own frames are not the student's


@dataclass(frozen=True)
class Feedback:
    """The result of a course check: ``passed``, and ``message``: what was checked (on a
    right answer) or what is wrong and a hint toward the fix (on a wrong one). True in a
    boolean context when passed; drawn as a green or red box in a notebook."""

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"{'right' if self.passed else 'not yet'}: {self.message}"

    def _repr_html_(self) -> str:
        colour, mark, word = (("#15803d", "&#10003;", "Right") if self.passed
                              else ("#b91c1c", "&#10007;", "Not yet"))
        return (f"<div style='border-left:4px solid {colour};padding:4px 10px;"
                f"margin:4px 0;white-space:normal;overflow-wrap:anywhere'>"
                f"<b style='color:{colour}'>{mark} {word}.</b> "
                f"{html.escape(self.message)}</div>")


def right(message: str) -> Feedback:
    return Feedback(True, message)


def wrong(message: str) -> Feedback:
    return Feedback(False, message)


class StudentError(Exception):
    """The student's function raised or returned nothing usable: carried as feedback."""

    def __init__(self, feedback: Feedback) -> None:
        super().__init__(feedback.message)
        self.feedback = feedback


def call(fn: Any, *args: Any, what: str = "your function") -> Any:
    """``fn(*args)``, the student's code: a ``StudentError`` (with a hint) when ``fn`` is not
    callable, raises, or returns None (an exercise cell left as ``...``)."""
    if not callable(fn):
        raise StudentError(wrong(f"{what} must be a function (def ...), got "
                                 f"{type(fn).__name__}"))
    try:
        out = fn(*args)
    except Exception as exc:   # the student's bug, shown as a hint, not a traceback
        frames = traceback.extract_tb(exc.__traceback__)
        # the student's own line, not numpy's or ours, where an error surfaces in a library
        own = [f for f in frames if "site-packages" not in f.filename
               and not f.filename.startswith(_PACKAGE)
               and not f.filename.endswith(".pyx")] or frames
        last = own[-1]
        raise StudentError(wrong(f"{what} raised {type(exc).__name__}: {exc} (line "
                                 f"{last.lineno}: {last.line})")) from None
    if out is None:
        raise StudentError(wrong(f"{what} returned None: replace the ... with your code "
                                 f"and return the result"))
    return out


def checked(body: Callable[..., Feedback]) -> Callable[..., Feedback]:
    """A check whose student errors become its feedback."""
    def run(*args: Any, **kwargs: Any) -> Feedback:
        try:
            return body(*args, **kwargs)
        except StudentError as e:
            return e.feedback
    run.__name__, run.__doc__ = body.__name__, body.__doc__
    run.__wrapped__ = body   # type: ignore[attr-defined]
    return run
