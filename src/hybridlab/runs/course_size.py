"""The problem sizes the course grades at, as the released labs know them, and a student's check
of their runs folder against them.

The instructor chooses the size once (grading/nbgrader_config.py, c.GradingPolicy.size: "quick"
or "full"); `hybridlab release` writes it to FILE beside every released lab (labs/ and nbgrader's
release folder, which the exchange hands out). A lab then runs at that size unless
HYBRIDLAB_QUICK says otherwise (1: quick, 0: full), so the runs a student keeps
(own_runs.py) are the ones grading replays.

    hl.quick_mode()           HYBRIDLAB_QUICK when set, else the course's size, else full
    hl.grading_size_note()    "quick mode, the size this course grades at" (each lab's first cell)
    hl.check_my_runs()        how many of this notebook's kept runs match the grading size
    hybridlab check-runs NB   the same from a shell
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from . import own_runs

FILE = ".hybridlab-course.json"
SIZES = ("quick", "full")
DEFAULT = "full"  # what `hybridlab grade` uses when the course does not say (GradingPolicy.size)
ENV = "HYBRIDLAB_QUICK"


def write(folder: Path, size: str) -> Path:
    """Record the course's grading size beside the labs released into `folder`."""
    if size not in SIZES:
        raise ValueError(f"grading size {size!r}: expected one of {', '.join(SIZES)}")
    path = Path(folder) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    text = {
        "about": "written by `hybridlab release`: the problem sizes this course grades at; "
        "the labs run at them unless HYBRIDLAB_QUICK is set (1: quick, 0: full)",
        "grading_size": size,
    }
    path.write_text(json.dumps(text, indent=1) + "\n")
    return path


def read(folder: Path) -> str | None:
    """The grading size recorded in `folder`, or None (no file, or not one the kit wrote)."""
    try:
        size = json.loads((Path(folder) / FILE).read_text()).get("grading_size")
    except (OSError, ValueError, AttributeError):
        return None
    return size if size in SIZES else None


def _folders() -> list[Path]:
    """Where a running lab looks for FILE: its working folder, then its notebook's folder."""
    folders = [Path.cwd()]
    try:
        notebook = own_runs.notebook_path()
    except Exception:  # noqa: BLE001 - outside a kernel, or IPython half there: no notebook
        notebook = None
    if notebook is not None and notebook.parent not in folders:
        folders.append(notebook.parent)
    return folders


def course_size() -> str | None:
    """The size the course grades at, as released beside this lab; None when not released."""
    for folder in _folders():
        size = read(folder)
        if size is not None:
            return size
    return None


def quick_mode() -> bool:
    """HYBRIDLAB_QUICK when set (1: quick, anything else: full), else the course's grading size
    (released beside the lab), else full."""
    value = os.environ.get(ENV, "")
    if value:
        return value == "1"
    if os.environ.get("HYBRIDLAB_SANDBOX"):
        return False  # the grader always sets HYBRIDLAB_QUICK; a submitted file does not decide
    return course_size() == "quick"


def grading_size_note() -> str:
    """What each lab's first cell prints: the size it runs at and whether the course grades at
    that size."""
    size = "quick" if quick_mode() else "full"
    course = course_size()
    if course is None:
        return f"{size} mode"
    if course == size:
        return f"{size} mode, the size this course grades at"
    return (
        f"{size} mode ({ENV}={os.environ.get(ENV, '')!r}), but this course grades at the "
        f"{course} size: see hl.check_my_runs() before you hand in"
    )


# ------------------------------------------------------------------- the student's check


def check_runs(notebook: Path, size: str | None = None) -> tuple[bool, str]:
    """(all usable runs match, a text for the student): how many of the notebook's kept runs
    grading can replay at the course's size (`size`, else the one released beside it, else
    the grader's default), and what to do when they do not."""
    notebook = Path(notebook)
    if size is None:
        size = read(notebook.parent) or DEFAULT
        said = "" if read(notebook.parent) else f" (the grader's default: no {FILE} beside it)"
    else:
        said = ""
    folder = own_runs.runs_folder(notebook)
    scratch = Path(tempfile.mkdtemp(prefix="hybridlab-check-"))
    try:
        at = {s: own_runs.check(folder, scratch / s, quick=(s == "quick")) for s in SIZES}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    other = "full" if size == "quick" else "quick"
    mine, theirs = at[size], at[other]
    head = f"{folder.name}: "
    if mine["problem"]:
        return False, (
            f"{head}not usable: {mine['problem']}. Grading (at the {size} problem sizes{said}) "
            "will use the instructor's reference runs for every part."
        )
    total = mine["used"] + len(mine["rejected"])
    text = (
        f"{head}{total} run file(s); {mine['used']} made at the {size} problem sizes, the size "
        f"this course grades at{said}"
    )
    if theirs["used"]:
        text += f"; {theirs['used']} at the {other} sizes"
    invalid = {  # left out at both sizes: the reason that is not the size
        name: theirs["rejected"][name] if why.startswith(own_runs.SIZE_REASON) else why
        for name, why in mine["rejected"].items()
        if name in theirs["rejected"]
    }
    own_c = [name for name, why in invalid.items() if why == own_runs.NOTEBOOK_C]
    invalid = {name: why for name, why in invalid.items() if name not in own_c}
    if invalid:
        name, why = next(iter(invalid.items()))
        text += f"; {len(invalid)} not usable at all (e.g. {name}: {why})"
    if own_c:
        text += (
            f"; {len(own_c)} of C code you wrote in the notebook, which grading builds and runs "
            "again by design (these are never replayed, and nothing is wrong with them)"
        )
    text += "."
    if theirs["used"] == 0:
        if mine["used"]:
            text += " Grading replays them: hand the folder in with the notebook."
        return (mine["used"] > 0 or bool(own_c)) and not invalid, text
    if mine["used"] >= theirs["used"]:
        text += (
            f" Grading replays the {mine['used']} at the {size} sizes; the others are not used "
            f"(the reference runs serve them). To hand in one size only: delete {folder.name}, "
            "restart the kernel, run all cells."
        )
        return False, text
    text += (
        f" Grading will grade this notebook at the {other} sizes with these runs if the "
        f"instructor's grader can make its reference run at that size, and say so in your "
        f"feedback; otherwise every part falls back to the instructor's reference runs. "
        f"To match the course: run the lab at the {size} sizes (its first cell then says "
        f"'{size} mode'; {ENV} unset or {'1' if size == 'quick' else '0'}), delete "
        f"{folder.name}, restart the kernel and run all cells again."
    )
    return False, text


def check_my_runs(notebook: str | Path | None = None) -> bool:
    """Print how this notebook's kept runs match the course's grading size (from a lab's cell:
    `hl.check_my_runs()`); True when every run is usable at it."""
    path = Path(notebook) if notebook is not None else own_runs.notebook_path()
    if path is None:
        print("hl.check_my_runs(): name the notebook, e.g. hl.check_my_runs('02_lab.ipynb')")
        return False
    ok, text = check_runs(path)
    print(text)
    return ok
