"""Right answers written another way than the solution, one file per lab (`<lab>.py`, a list
HONEST), beside the wrong answers (tests/wrong_answers/) and gaming attempts (tests/gaming/).

Each is what a careful student could write from the notebook's text alone: another loop order,
another valid MPI call, another valid least-squares method, another order of additions within
the tolerance the part states. Each must keep every point: `make test-grading-full` grades them
beside the solution (tests/test_grading.py), and tests/test_wrong_answers.py checks that every
automatic part of a lab with a file here has at least two, none a copy of the solution.
"""

from __future__ import annotations

from pathlib import Path

from wrong_answers import Wrong
from wrong_answers import load as _load

HERE = Path(__file__).resolve().parent


def right(answer: str, source: str, why: str) -> Wrong:
    """A right answer to one answer cell, written another way (`why`: how): it loses nothing."""
    return Wrong(((answer, source.strip()),), frozenset(), why, "honest")


def load(lab: str) -> list[Wrong]:
    """The HONEST list of `<lab>.py` beside this file ([] when the lab has none yet)."""
    return _load(lab, HERE, "HONEST")
