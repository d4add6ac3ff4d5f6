"""A real nbgrader round trip on lab 00, in a temporary copy of the course folder.

One release and one `nbgrader autograde` run serve every check: three students submit the
instructor solution, the blank released lab, and a solution whose ring exchange deadlocks.
"""

from __future__ import annotations

import copy
import glob
import html
import re
import shutil
import time
import uuid
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import nbformat
import psutil
import pytest

from hybridlab import grading, reaper

ROOT = Path(__file__).resolve().parents[1]
LAB = "00_getting_started"
SOURCE = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
COMMITTED = ROOT / "labs" / f"{LAB}.ipynb"
SHM = "/dev/shm/mpich_shm_*"
CELL_TIMEOUT = 300  # c.Execute.timeout in grading/nbgrader_config.py
RING_PARTS = {"test_ring_exchange", "hidden_ring_exchange"}

DEADLOCK = '''
def ring_exchange():
    """Blocking synchronous send first on every rank: nobody ever reaches the receive."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.ssend(rank, dest=(rank + 1) % size)
    return comm.recv(source=(rank - 1) % size)
'''

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def orphaned_segments(before: set[str]) -> list[str]:
    """MPICH segments that appeared since `before` and that no live process maps or holds open."""
    new = set(glob.glob(SHM)) - before
    for proc in psutil.process_iter():
        if not new:
            break
        try:
            new -= {m.path for m in proc.memory_maps(grouped=True)}
            new -= {f.path for f in proc.open_files()}
        except (psutil.Error, OSError):
            continue
    return sorted(new)


def points() -> dict[str, float]:
    """grade_id -> points of every graded cell of the instructor notebook."""
    nb = nbformat.read(SOURCE, as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


def submit(root: Path, student: str, nb: nbformat.NotebookNode) -> None:
    folder = root / "submitted" / student / LAB
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{LAB}.ipynb")


def cell_seconds(nb: nbformat.NotebookNode) -> list[float]:
    """Execution time of each executed cell, from the timings nbclient records."""
    found = []
    for cell in nb.cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            start, end = (
                datetime.fromisoformat(timing[k].replace("Z", "+00:00"))
                for k in ("iopub.execute_input", "shell.execute_reply")
            )
            found.append((end - start).total_seconds())
    return found


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Release lab 00 in a copy of grading/, then autograde three submissions in one run."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "grading" / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "grading" / "source", root / "source")
    timings = {}

    start = time.monotonic()
    (released,) = grading.release([LAB], root=root, labs_dir=root / "labs")
    timings["release"] = time.monotonic() - start

    solution = nbformat.read(SOURCE, as_version=4)
    deadlock = copy.deepcopy(solution)
    for cell in deadlock.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "ring_exchange":
            cell.source = DEADLOCK.strip()
    submit(root, "solution", solution)
    submit(root, "blank", nbformat.read(released, as_version=4))
    submit(root, "deadlock", deadlock)

    tag = f"test-grading-{uuid.uuid4().hex[:8]}"
    shm_before = set(glob.glob(SHM))
    start = time.monotonic()
    report = grading.grade(LAB, root=root, quick=True, tag=tag)
    timings["grade (3 submissions)"] = time.monotonic() - start
    print(report)
    print("timings:", {k: f"{v:.0f} s" for k, v in timings.items()})

    def autograded(student: str) -> nbformat.NotebookNode:
        return nbformat.read(root / "autograded" / student / LAB / f"{LAB}.ipynb", as_version=4)

    return SimpleNamespace(
        root=root,
        released=released,
        report=report,
        tag=tag,
        shm_before=shm_before,
        scores=grading.scores(root, LAB),
        autograded=autograded,
        timings=timings,
    )


def test_committed_lab_is_up_to_date(course):
    fresh = nbformat.read(course.released, as_version=4)
    committed = nbformat.read(COMMITTED, as_version=4)
    stale = "labs/00_getting_started.ipynb is out of date with grading/source: run `make release`"
    assert [c.cell_type for c in fresh.cells] == [c.cell_type for c in committed.cells], stale
    for new, old in zip(fresh.cells, committed.cells, strict=True):
        assert new.source == old.source, f"{stale}\n(first difference in: {old.source[:80]!r})"
        assert new.metadata.get("nbgrader") == old.metadata.get("nbgrader"), stale
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code")


def test_solution_gets_full_marks(course):
    assert course.scores["solution"] == points()
    total = sum(points().values())
    assert re.search(rf"solution\s+{total:g} / {total:g}", course.report), course.report


def test_blank_lab_gets_zero_quickly(course):
    assert set(course.scores["blank"]) == set(points())
    assert all(score == 0 for score in course.scores["blank"].values())
    nb = course.autograded("blank")
    seconds = cell_seconds(nb)
    assert seconds, "no execution timings recorded"
    assert max(seconds) < CELL_TIMEOUT / 5, f"a cell of the blank lab took {max(seconds):.0f} s"
    names = {o.ename for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"}
    assert "KernelTimeout" not in names and "CellTimeoutError" not in names


def test_deadlock_loses_only_its_part_and_leaves_nothing(course):
    expected = {gid: (0.0 if gid in RING_PARTS else p) for gid, p in points().items()}
    assert course.scores["deadlock"] == expected
    nb = course.autograded("deadlock")
    timeouts = [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.output_type == "error" and o.ename == "KernelTimeout"
    ]
    assert set(timeouts) == RING_PARTS, f"KernelTimeout expected in both ring tests: {timeouts}"
    seconds = cell_seconds(nb)
    assert max(seconds) < CELL_TIMEOUT / 3, f"a cell took {max(seconds):.0f} s"
    print(f"deadlocked submission: slowest cell {max(seconds):.0f} s, all {sum(seconds):.0f} s")
    assert reaper.tagged(course.tag) == [], "processes of the autograde run survived"
    assert orphaned_segments(course.shm_before) == [], "MPI shared memory was left behind"


def _hidden_lines() -> set[str]:
    """Lines between the hidden-test markers that are not also visible code."""
    hidden, shown = set(), set()
    for cell in nbformat.read(SOURCE, as_version=4).cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            else:
                (hidden if inside else shown).add(line.strip())
    return {h for h in hidden if len(h) >= 20 and not any(h in s for s in shown)}


def test_feedback_exists_without_hidden_tests(course):
    lines = _hidden_lines()
    assert len(lines) > 10
    pages = sorted((course.root / "feedback").glob(f"*/{LAB}/{LAB}.html"))
    assert {p.parts[-3] for p in pages} == {"solution", "blank", "deadlock"}
    for page in pages:
        raw = page.read_text()
        text = html.unescape(re.sub(r"<[^>]+>", "", raw))
        leaked = [line for line in lines if line in text]
        assert leaked == [], f"{page.parts[-3]}'s feedback shows hidden tests: {leaked[:3]}"
        for name in ("_expected_cores", "_same_pair_twice", "_ring3"):
            assert name not in raw
        assert "Score" in text
    assert grading.feedback_leaks(course.root, LAB) == []
    assert (course.root / "grades.csv").read_text().count(LAB) == 3
