"""Release labs and autograde submissions with nbgrader, isolated and cleaned up.

    release()                   grading/source/<lab>/ -> nbgrader generate_assignment -> labs/
    grade("00_getting_started") grading/submitted/<student>/<lab>/ -> autograde -> grades.csv,
                                feedback/ (without hidden tests)

nbgrader runs as a subprocess from the grading folder (its nbgrader_config.py sets the course).
Everything an autograde run starts carries a fresh HYBRIDLAB_SESSION tag, so engines and MPI
processes a submission leaves behind (a deadlock, a crash) are killed afterwards, and MPI's
shared-memory files removed.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from . import _reaper as reaper

REPO = Path(__file__).resolve().parents[2]
GRADING = REPO / "grading"
LABS = REPO / "labs"
COURSE_ID = "hybridlab"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
HIDDEN_NOTE = "# (the hidden tests are not shown in feedback)"
RELEASE_TIMEOUT = 600  # seconds for one `nbgrader generate_assignment`
STUDENT_TIMEOUT = 1200  # seconds of autograding allowed per submission
OUTPUT_TAIL = 3000  # characters of nbgrader's log quoted in an error


class GradingError(RuntimeError):
    """Releasing or grading could not be done; the message says why and what to do."""


# ------------------------------------------------------------------------------ helpers


def known_labs(root: Path = GRADING) -> list[str]:
    """Labs with an instructor notebook: grading/source/<lab>/<lab>.ipynb."""
    source = Path(root) / "source"
    return sorted(d.name for d in source.glob("*") if (d / f"{d.name}.ipynb").is_file())


def _check_labs(labs: list[str], root: Path) -> None:
    known = known_labs(root)
    unknown = [lab for lab in labs if lab not in known]
    if unknown:
        raise GradingError(
            f"unknown lab(s): {', '.join(unknown)}; known labs: {', '.join(known) or 'none'} "
            f"(from {Path(root) / 'source'})"
        )


def _nbgrader(
    args: list[str],
    root: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess:
    """Run the venv's nbgrader in the grading folder; raise GradingError with its log on failure."""
    exe = Path(sys.executable).parent / "nbgrader"
    if not exe.exists():
        raise GradingError(f"no nbgrader next to {sys.executable}: run `make setup`")
    if not (Path(root) / "nbgrader_config.py").is_file():
        raise GradingError(f"{root} has no nbgrader_config.py: it is not a course folder")
    try:
        done = subprocess.run(
            [str(exe), *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise GradingError(f"`nbgrader {' '.join(args)}` took longer than {timeout:g} s") from err
    if check and done.returncode != 0:
        log = (done.stdout + done.stderr)[-OUTPUT_TAIL:]
        raise GradingError(f"`nbgrader {' '.join(args)}` failed ({done.returncode}):\n{log}")
    return done


def _environment(tag: str | None = None, quick: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["IPP_NONINTERACTIVE"] = "1"
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # figures in the feedback
    if tag:
        env[reaper.SESSION] = tag
    if quick:
        env["HYBRIDLAB_QUICK"] = "1"
    return env


# ------------------------------------------------------------------------------ release


def release(
    labs: list[str] | None = None, *, root: Path = GRADING, labs_dir: Path = LABS
) -> list[Path]:
    """Generate the student version of each lab (all by default) and copy it to labs_dir."""
    root, labs_dir = Path(root), Path(labs_dir)
    names = list(labs) if labs else known_labs(root)
    if not names:
        raise GradingError(f"no labs found in {root / 'source'}")
    _check_labs(names, root)
    written = []
    for lab in names:
        _nbgrader(
            ["generate_assignment", lab, "--force"],
            root,
            timeout=RELEASE_TIMEOUT,
            env=_environment(),
        )
        released = root / "release" / lab / f"{lab}.ipynb"
        if not released.is_file():
            raise GradingError(f"nbgrader did not write {released}")
        nb = nbformat.read(released, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        labs_dir.mkdir(parents=True, exist_ok=True)
        target = labs_dir / f"{lab}.ipynb"
        nbformat.write(nb, target)
        written.append(target)
    return written


# -------------------------------------------------------------------------------- grade


def grade(lab: str, *, root: Path = GRADING, quick: bool = False, tag: str | None = None) -> str:
    """Autograde every submission of `lab`, export grades.csv, write feedback; return a report.

    `tag` (default: a fresh one) is set as HYBRIDLAB_SESSION on everything autograde starts;
    `quick` runs the notebooks with HYBRIDLAB_QUICK=1."""
    root = Path(root)
    _check_labs([lab], root)
    submitted = root / "submitted"
    students = sorted(
        d.parent.name for d in submitted.glob(f"*/{lab}") if d.is_dir() and any(d.glob("*.ipynb"))
    )
    if not students:
        raise GradingError(
            f"no submissions of {lab}: expected notebooks in {submitted}/<student>/{lab}/"
        )
    _check_kernel(root, lab)
    if not _in_gradebook(root, lab):
        _nbgrader(
            ["generate_assignment", lab, "--force"],
            root,
            timeout=RELEASE_TIMEOUT,
            env=_environment(),
        )

    tag = tag or f"grade-{uuid.uuid4().hex[:12]}"
    start = time.monotonic()
    try:
        auto = _nbgrader(
            ["autograde", lab, "--force"],
            root,
            timeout=STUDENT_TIMEOUT * len(students) + 120,
            env=_environment(tag, quick),
            check=False,
        )
    finally:
        leftovers = reaper.reap(tag)  # engines, mpiexec, kernels a submission left running
    seconds = time.monotonic() - start

    _nbgrader(["export", "--to", str(root / "grades.csv")], root, timeout=RELEASE_TIMEOUT)
    _nbgrader(["generate_feedback", lab, "--force"], root, timeout=RELEASE_TIMEOUT)
    leaks = feedback_leaks(root, lab)
    if leaks:
        for path in leaks:
            path.unlink()
        raise GradingError(
            "hidden tests found in feedback (files removed, do not return them): "
            + ", ".join(str(p) for p in leaks)
        )

    lines = [f"{lab}: {len(students)} submission(s) autograded in {seconds:.0f} s"]
    lines += _scores(root, lab, students)
    if leftovers:
        lines.append(f"killed {leftovers} process(es) that submissions left running")
    if auto.returncode != 0:
        log = (auto.stdout + auto.stderr)[-OUTPUT_TAIL:]
        lines.append(f"nbgrader autograde reported errors (exit {auto.returncode}):\n{log}")
    lines.append(f"grades: {root / 'grades.csv'}; feedback: {root / 'feedback'}/<student>/{lab}/")
    return "\n".join(lines)


def _check_kernel(root: Path, lab: str) -> None:
    """The Jupyter kernel the lab names must be installed, or every submission would fail."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    nb = nbformat.read(Path(root) / "source" / lab / f"{lab}.ipynb", as_version=4)
    name = nb.metadata.get("kernelspec", {}).get("name", "python3")
    try:
        KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel as err:
        raise GradingError(
            f"{lab} runs on the Jupyter kernel '{name}', which is not installed: "
            "run `make setup` (or python -m hybridlab.kernelspec)"
        ) from err


def _gradebook_url(root: Path) -> str:
    return f"sqlite:///{Path(root) / 'gradebook.db'}"


def _in_gradebook(root: Path, lab: str) -> bool:
    from nbgrader.api import Gradebook, MissingEntry

    if not (Path(root) / "gradebook.db").exists():
        return False
    with Gradebook(_gradebook_url(root), course_id=COURSE_ID) as gb:
        try:
            return bool(gb.find_assignment(lab).notebooks)
        except MissingEntry:
            return False


def _scores(root: Path, lab: str, students: list[str]) -> list[str]:
    """One line per student: score / max, and the graded cells that lost points."""
    from nbgrader.api import Gradebook, MissingEntry

    lines = []
    width = max(len(s) for s in students)
    with Gradebook(_gradebook_url(root), course_id=COURSE_ID) as gb:
        for student in students:
            try:
                sub = gb.find_submission(lab, student)
            except MissingEntry:
                lines.append(f"  {student:<{width}}  not graded (see nbgrader's log above)")
                continue
            lost = [
                g.name
                for notebook in sub.notebooks
                for g in notebook.grades
                if g.score is None or g.score < g.max_score
            ]
            note = f"  lost: {', '.join(lost)}" if lost else ""
            lines.append(f"  {student:<{width}}  {sub.score:g} / {sub.max_score:g}{note}")
    return lines


def scores(root: Path, lab: str) -> dict[str, dict[str, float]]:
    """student -> {grade cell id: score}, from the gradebook (for tests and reports)."""
    from nbgrader.api import Gradebook

    out: dict[str, dict[str, float]] = {}
    with Gradebook(_gradebook_url(root), course_id=COURSE_ID) as gb:
        for sub in gb.find_assignment(lab).submissions:
            out[sub.student.id] = {
                g.name: float(g.score or 0) for nb in sub.notebooks for g in nb.grades
            }
    return out


# --------------------------------------------------------------- hidden tests in feedback


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
        errors = [o.get("ename", "error") for o in cell.outputs if o.output_type == "error"]
        text = (
            f"A test in this cell failed ({errors[0]}).\n"
            if errors
            else "The tests in this cell ran.\n"
        )
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        return cell, resources


def hidden_test_lines(root: Path, lab: str) -> set[str]:
    """Distinctive lines of the lab's hidden tests (not also written outside hidden regions)."""
    hidden, shown = set(), set()
    for path in (Path(root) / "source" / lab).glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            outside, inside = _split_hidden(cell.source)
            shown.update(line.strip() for line in outside)
            hidden.update(line.strip() for line in inside)
    return {
        line
        for line in hidden
        if len(line) >= 20 and not line.startswith("#") and not any(line in s for s in shown)
    }


def _visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def feedback_leaks(root: Path, lab: str) -> list[Path]:
    """Feedback files of `lab` that contain a line of its hidden tests."""
    lines = hidden_test_lines(root, lab)
    leaks = []
    for path in sorted((Path(root) / "feedback").glob(f"*/{lab}/*.html")):
        text = _visible_text(path.read_text(errors="replace"))
        if any(line in text for line in lines):
            leaks.append(path)
    return leaks
