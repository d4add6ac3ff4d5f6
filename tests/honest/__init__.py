"""Right answers written another way than the solution, one file per lab (`<lab>.py`, a list
HONEST), beside the wrong answers (tests/wrong_answers/) and gaming attempts (tests/gaming/).

Each is what a careful student could write from the notebook's text alone: another loop order,
another valid MPI call, another valid least-squares method, another order of additions within
the tolerance the part states. Each must keep every point: `make test-grading-full` grades them
beside the solution (tests/test_grading.py), and tests/test_wrong_answers.py checks that every
automatic part of a lab with a file here has at least two, none a copy of the solution. One may
leave other answer cells as released (`right(..., blank=...)`): it keeps its own part's points
without them, and loses only theirs.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from wrong_answers import Wrong, first_source
from wrong_answers import load as _load

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def right(answer: str, source: str, why: str, blank: tuple[tuple[str, str], ...] = ()) -> Wrong:
    """A right answer to one answer cell, written another way (`why`: how): it loses nothing.
    `blank`: other answer cells left as released (`released`), whose parts alone score zero: the
    right answer keeps its points without them."""
    cells = frozenset(cell for cell, _ in blank)
    return Wrong(((answer, source.strip()), *blank), frozenset(f"hidden_{c}" for c in cells), why,
                 "honest", blank=cells)


def released(lab: str, answer: str) -> tuple[str, str]:
    """Answer cell `answer` of the released lab (labs/<lab>.ipynb) as a student gets it: the
    skeleton, unanswered."""
    nb = nbformat.read(ROOT / "labs" / f"{lab}.ipynb", as_version=4)
    return answer, next(c.source for c in nb.cells
                        if c.metadata.get("nbgrader", {}).get("grade_id") == answer)  # fmt: skip


def load(lab: str) -> list[Wrong]:
    """The HONEST list of `<lab>.py` beside this file ([] when the lab has none yet)."""
    return _load(lab, HERE, "HONEST")


def source_of(lab: str, why: str) -> str:
    """The code of `lab`'s right answer whose `why` starts so (wrong_answers.first_source)."""
    return first_source(load(lab), why)
