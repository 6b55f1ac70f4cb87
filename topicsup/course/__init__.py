"""The course's checks (``notebooks/course/``, docs/course.md): one module per lesson, each
with the ``check_...`` functions its exercises call. A check runs the student's function or
takes the student's number, compares it with what the library computes exactly (on a tiny
corpus, by enumeration, or from a known distribution) and returns a ``Feedback``: right, or
not yet with a hint that names the mistake. A student's exception is feedback too.

    from topicsup.course import lesson1
    lesson1.check_conditional(my_conditional)
"""

from ._feedback import Feedback, StudentError, call, checked, right, wrong

__all__ = ["Feedback", "StudentError", "call", "checked", "right", "wrong"]
