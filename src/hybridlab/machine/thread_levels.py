"""MPI thread levels and their order.

Placement carries the level a run asks for (engines and standalone programs alike). The check a
program makes at start-up is lab 01's part (c), written by the student: the kit has none.
"""

from __future__ import annotations

THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")  # MPI_THREAD_*, in order


def check_level(level: str, what: str = "thread_level") -> int:
    """The level's position in MPI_THREAD_* order; ValueError naming the valid ones otherwise."""
    if level not in THREAD_LEVELS:
        raise ValueError(
            f"{what}={level!r} is not a thread level; valid: {', '.join(THREAD_LEVELS)}"
        )
    return THREAD_LEVELS.index(level)
