"""Gaming attempts: how a hurried student tries to score without doing the work, one file per lab
(`<lab>.py`, a list GAMING), beside the honest mistakes of tests/wrong_answers/.

Five kinds (issues 28 and 36), each attempt named with one:
  shortcut     a kit function, table or constant reached any way at all (an alias, a default
               argument, another module, a private helper, the package's data);
  method       the method skipped but the numbers right (no overlap passing as overlap, a flat
               collective for a node-aware one, MPI from every thread under FUNNELED, the eager
               path taken for a safe ordering);
  hidden       an answer right only for the inputs the notebook shows (a hard-coded case, the
               machine at hand, an odd sample count, one MPI library);
  constant     a number or letter typed in (a published value, the letter the hint names);
  interpreter  the test's own interpreter reached (issue 36): a reference helper called, or an
               expected value read, from the test's frames (FRAME_TOOLS), or a judging module
               of the kit (student_c, a topic's exercise module) replaced from an earlier cell.

Each must score zero on the part it touches and keep every other part's points: `make
test-grading-full` grades them beside the wrong answers (tests/test_grading.py), and
tests/test_wrong_answers.py checks that every automatic part has at least three of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wrong_answers import Wrong
from wrong_answers import load as _load

HERE = Path(__file__).resolve().parent
KINDS = ("shortcut", "method", "hidden", "constant", "interpreter")
# an answer cell's preamble for the "interpreter" kind: what the calling test holds, by name
FRAME_TOOLS = """
import sys


def _from_the_test(names, want_callable):
    \"\"\"A helper (want_callable) or a value the calling test holds under one of `names`,
    found in its frames (its locals, then its globals, outwards); None when there is none.\"\"\"
    frame = sys._getframe(2)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name in names:
                if name in scope and callable(scope[name]) == want_callable:
                    return scope[name]
        frame = frame.f_back
    return None
"""


def attempt(kind: str, answer: str, source: str, loses: set[str], why: str,
            reason: str = "") -> Wrong:
    """One gaming attempt at one answer cell, of one of KINDS; `reason`: a fragment of the error
    one of the `loses` cells must end with (tests/wrong_answers/__init__.py)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return Wrong(((answer, source.strip()),), frozenset(loses), why, kind, reason)


@dataclass(frozen=True)
class Oracle:
    """A graded function's hidden inputs and a judge of its answer, for the scan of every kit
    function (tests/test_no_kit_answers.py): no function a student can import may return a value
    `is_answer` accepts. `is_answer` holds the instructor's reference (here, never in the kit)."""

    part: str  # the answer cell
    args: tuple
    is_answer: Callable[[object], bool]
    kwargs: dict = field(default_factory=dict)


def oracles(lab: str) -> list[Oracle]:
    """The ORACLES list of `<lab>.py` beside this file ([] when it has none)."""
    path = HERE / f"{lab}.py"
    return _load(lab, HERE, "ORACLES") if path.exists() and "ORACLES" in path.read_text() else []


def load(lab: str) -> list[Wrong]:
    """The GAMING list of `<lab>.py` beside this file ([] when the lab has none yet)."""
    return _load(lab, HERE, "GAMING")
