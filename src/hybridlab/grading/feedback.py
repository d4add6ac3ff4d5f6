"""Feedback for students: nbgrader's HTML without the hidden tests, and a scan for leaks.

HideHiddenTests is named in grading/nbgrader_config.py (GenerateFeedback.preprocessors).
"""

from __future__ import annotations

import functools
import html
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Bool

from ..paths import kernel_dirs
from .course import RELEASE_TIMEOUT, GradingError, Lab, nbgrader
from .execute import DATA
from .hidden_names import BEGIN_HIDDEN

# nbgrader's own delimiters (grading/nbgrader_config.py names the same ones)
END_HIDDEN = ClearHiddenTests.end_test_delimeter.default_value
HIDDEN_NOTE = "# (the hidden tests are not shown in feedback)"


def _split_hidden(source: str) -> tuple[list[str], list[str]]:
    """(lines outside hidden-test regions, lines inside them) of one cell's source."""
    shown, hidden, inside = [], [], False
    for line in source.splitlines():
        if BEGIN_HIDDEN in line:
            inside = True
        elif END_HIDDEN in line:
            inside = False
        else:
            (hidden if inside else shown).append(line)
    return shown, hidden


class HideHiddenTests(Preprocessor):
    """Feedback preprocessor: drop hidden-test regions and the outputs of the cells holding them.

    Autograde copies the hidden tests back into the graded notebook, so nbgrader's feedback would
    show them, and their tracebacks quote them. Only the name of a failure is kept."""

    enabled = Bool(True).tag(config=True)  # nbconvert's preprocessors are off by default

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or BEGIN_HIDDEN not in cell.source:
            return cell, resources
        shown, _ = _split_hidden(cell.source)
        cell.source = "\n".join([*shown, HIDDEN_NOTE])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        text = (
            f"A test in this cell failed ({_failure(errors[0])}).\n"
            if errors
            else "The tests in this cell ran.\n"
        )
        data = [  # the grader's line saying which data the runs came from (execute.DATA)
            o
            for o in cell.outputs
            if o.get("name") == "stdout" and o.get("text", "").startswith(DATA)
        ]
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text), *data]
        return cell, resources


def _failure(error) -> str:
    """The name of a failure; with its message when the grader wrote it (it quotes no test)."""
    from .execute import GRADER_ERRORS

    name = error.get("ename", "error")
    return f"{name}: {error.get('evalue', '')}" if name in GRADER_ERRORS else name


def hidden_test_lines(lab: Lab) -> set[str]:
    """Distinctive lines of the lab's hidden tests: not also written outside hidden regions, nor
    in the kit's own source, which every student has installed (a traceback into the kit quotes
    it; a hidden cell may call the kit with the same words)."""
    hidden, shown = set(), set()
    for cell in lab.notebook().cells:
        outside, inside = _split_hidden(cell.source)
        shown.update(line.strip() for line in outside)
        hidden.update(line.strip() for line in inside)
    public = _kit_source()
    return {
        line
        for line in hidden
        if len(line) >= 20
        and not line.startswith("#")
        and not any(line in s for s in shown)
        and line not in public
    }


@functools.cache
def _kit_source() -> str:
    """The installed kit's Python and C source, as one text."""
    folders = [Path(__file__).resolve().parents[1], *kernel_dirs()]
    files = [p for folder in folders for p in folder.rglob("*") if p.suffix in (".py", ".c", ".h")]
    return "\n".join(p.read_text(errors="replace") for p in sorted(files))


def _visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _submitted_text(root: Path, student: str, lab: str) -> str:
    """What the student handed in (their own code: no leak when shown back), as one text."""
    return "\n".join(cell.source
                     for path in (Path(root) / "submitted" / student / lab).glob("*.ipynb")
                     for cell in nbformat.read(path, as_version=4).cells)  # fmt: skip


def feedback_leaks(lab: Lab) -> list[Path]:
    """Feedback files of `lab` that contain a line of its hidden tests the student did not write
    themselves (a hidden test's reference may hold the line a right answer has)."""
    lines = hidden_test_lines(lab)
    leaks = []
    for path in sorted((lab.root / "feedback").glob(f"*/{lab.name}/*.html")):
        text = _visible_text(path.read_text(errors="replace"))
        own = _submitted_text(lab.root, path.parts[-3], lab.name)
        if any(line in text and line not in own for line in lines):
            leaks.append(path)
    return leaks


def generate(
    the_lab: Lab, *, students: list[str] | None = None, written: set[str] = frozenset()
) -> list[Path]:
    """HTML feedback per student (all graded, or these), checked for hidden-test lines.

    `written`: students whose page grading wrote just now (autograde.py, in its pool), not
    written again. The others: one nbgrader process per usable core, each given its share of
    the students (nbgrader's student_id_exclude names the others), in parallel."""
    root, lab = the_lab.root, the_lab.name
    graded = sorted(p.parent.name for p in (root / "autograded").glob(f"*/{lab}"))
    chosen = [s for s in graded if (students is None or s in students) and s not in written]
    cores = len(os.sched_getaffinity(0))
    shares = [share for share in (chosen[i::cores] for i in range(cores)) if share]

    def write(share: list[str]) -> None:
        others = ",".join(s for s in graded if s not in share)
        args = ["generate_feedback", lab, "--force"]
        nbgrader(args + ([f"--CourseDirectory.student_id_exclude={others}"] if others else []),
                 root, timeout=RELEASE_TIMEOUT)  # fmt: skip

    with ThreadPoolExecutor(max(1, len(shares))) as pool:
        list(pool.map(write, shares))
    leaks = feedback_leaks(the_lab)
    if leaks:
        for path in leaks:
            path.unlink()
        raise GradingError(
            "hidden tests found in feedback (files removed, do not return them): "
            + ", ".join(str(p) for p in leaks)
        )
    pages = sorted((root / "feedback").glob(f"*/{lab}/*.html"))
    return [p for p in pages if students is None or p.parts[-3] in students]
