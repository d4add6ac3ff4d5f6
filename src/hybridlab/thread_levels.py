"""MPI thread levels: their order, what each allows, and the check a program makes at start-up.

Placement carries the level a run asks for (engines and standalone programs alike); lab 01's
hidden tests compare a student's require_level with the one here.
"""

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


def check_level(level: str, what: str = "thread_level") -> int:
    """The level's position in MPI_THREAD_* order; ValueError naming the valid ones otherwise."""
    if level not in THREAD_LEVELS:
        raise ValueError(
            f"{what}={level!r} is not a thread level; valid: {', '.join(THREAD_LEVELS)}"
        )
    return THREAD_LEVELS.index(level)


def require_level(required: str, provided: str) -> None:
    """Raise ThreadLevelError when `provided` is below `required` (MPI_THREAD_* order)."""
    if check_level(provided, "provided") < check_level(required, "required"):
        raise ThreadLevelError(
            f"MPI provided {provided!r} but this program needs {required!r}: "
            f"with {provided!r} {_MEANING[provided]}, and the program needs {_MEANING[required]}. "
            "Call MPI from fewer threads, or use an MPI library built with more thread support."
        )
