"""Errors raised by the fastwindow Python package."""

from __future__ import annotations

__all__ = ["FastWindowError"]


class FastWindowError(RuntimeError):
    """A problem using fastwindow from Python, with a message that says what to do about it.

    Raised, for example, when the bundled jar is missing, when the jar was built for another Spark
    minor version than the one in use, or when a Spark Connect session (which has no local JVM)
    is passed to a function that needs one.
    """
