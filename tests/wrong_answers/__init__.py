"""Plausible wrong answers to every graded part, one file per lab (`<lab>.py`, a list WRONG).

A hurried student's answers: a one-line call of a kit function, a formula misread, a race left
in, a count of the wrong thing. Each must lose exactly the parts it names and keep every other
part's points; `make test-grading-full` grades them all beside the solution
(tests/test_grading.py), and tests/test_wrong_answers.py checks that every graded part has at
least two of them.

An answer may name its `reason`: a fragment of the error ("AssertionError: <message>") that one
of the cells it loses must end with in the graded notebook. The grading test then checks that
the part was lost for that reason, not for another (a build error, a name left undefined by an
earlier cell), which a score alone cannot tell. Where the load decides which of two errors comes
first (threads calling MPI at FUNNELED may hang MPICH before the trace is judged), the reason
names both, separated by " | ": either one counts.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Wrong:
    """One wrong submission: answer cells replaced, and the graded cells it must lose."""

    answers: tuple[tuple[str, str], ...]  # (grade_id of an answer cell, what the student wrote)
    loses: frozenset[str]  # grade_ids of the graded cells that must score zero
    why: str  # the mistake, in a few words (shown when the test fails)
    kind: str = "wrong"  # "wrong", a gaming attempt's kind (tests/gaming/), or "honest"
    reason: str = ""  # a fragment of the error one of the `loses` cells must end with
    members: tuple[Wrong, ...] = ()  # the answers `together` put in this one submission
    blank: frozenset[str] = frozenset()  # answer cells left as released (an honest answer's)

    def each(self) -> tuple[Wrong, ...]:
        """The single answers of this submission (itself when it is one)."""
        return self.members or (self,)


def wrong(answer: str, source: str, loses: set[str] | frozenset[str], why: str,
          reason: str = "") -> Wrong:
    """A wrong answer to one answer cell, losing `loses` (with `reason` in one of their errors)."""
    return Wrong(((answer, source.strip()),), frozenset(loses), why, reason=reason)


def c_cell(name: str, kernel: str, code: str) -> str:
    """What a student types into a C cell (hybridlab.kernels.c_cells): the magic line, then the C (no
    kernel: a whole program)."""
    return " ".join(filter(None, ["%%c", name, kernel])) + "\n" + code.strip("\n")


def changed(answer: str, old: str, new: str) -> str:
    """A right answer with `old` replaced by `new` (which must be in it): a wrong answer that
    differs from the right one in one place."""
    assert old in answer, old
    return answer.replace(old, new)


def together(*mistakes: Wrong) -> Wrong:
    """Several wrong answers to different parts in one submission (grading each submission runs
    the whole notebook: fewer submissions keep the round trip short). Each part still loses."""
    answers = tuple(a for m in mistakes for a in m.answers)
    cells = [grade_id for grade_id, _ in answers]
    assert len(cells) == len(set(cells)), f"two mistakes in one answer cell: {cells}"
    kinds = sorted({m.kind for m in mistakes})
    members = tuple(one for m in mistakes for one in m.each())
    return Wrong(answers, frozenset().union(*(m.loses for m in mistakes)),
                 "; ".join(f"[{m.kind}] {m.why}" for m in mistakes), "+".join(kinds),
                 members=members)


def first_source(answers: list[Wrong], why: str) -> str:
    """The first answer cell of the first of `answers` whose `why` starts so, without a C cell's
    magic line: a unit test runs a corpus answer's code itself, from the corpus, not a copy."""
    text = next(a for a in answers if a.why.startswith(why)).answers[0][1]
    return (text.split("\n", 1)[1] if text.startswith("%%") else text) + "\n"


def lab_module(lab: str, folder: Path = HERE):
    """`<lab>.py` of a corpus folder (tests/wrong_answers, tests/honest, tests/gaming) as a module."""
    spec = importlib.util.spec_from_file_location(f"{folder.name}_{lab}", folder / f"{lab}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(lab: str, folder: Path = HERE, name: str = "WRONG") -> list[Wrong]:
    """The list `name` of `<lab>.py` in `folder` ([] when the lab has none yet)."""
    if not (folder / f"{lab}.py").exists():
        return []
    return list(getattr(lab_module(lab, folder), name))
