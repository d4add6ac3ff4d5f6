"""MPI thread support levels (MPI_THREAD_*), in order, and the check that one suffices."""

from __future__ import annotations

THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")  # MPI_THREAD_*, in order

_MEANING = {
    "single": "only one thread exists",
    "funneled": "only the main thread calls MPI",
    "serialized": "any thread may call MPI, one at a time",
    "multiple": "any thread may call MPI at any time",
}


class ThreadLevelError(RuntimeError):
    """The MPI library provided a lower thread level than the program needs."""


def _rank(level: str, what: str) -> int:
    if level not in THREAD_LEVELS:
        raise ValueError(
            f"{what}={level!r} is not a thread level; valid: {', '.join(THREAD_LEVELS)}"
        )
    return THREAD_LEVELS.index(level)


def require_level(required: str, provided: str) -> None:
    """Raise ThreadLevelError when `provided` is below `required` (MPI_THREAD_* order)."""
    if _rank(provided, "provided") < _rank(required, "required"):
        raise ThreadLevelError(
            f"MPI provided {provided!r} but this program needs {required!r}: "
            f"with {provided!r} {_MEANING[provided]}, and the program needs {_MEANING[required]}. "
            "Call MPI from fewer threads, or use an MPI library built with more thread support."
        )
