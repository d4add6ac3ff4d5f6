"""Issue 31: own runs graded at the size they were run. The instructor chooses the grading size in
the course config; `release` tells the released labs; a submission whose runs folder was made at
the other size is graded at that size, with its own runs, on the real sandboxed grader (the tiny
lab of tests/grading_course.py, one student)."""

from __future__ import annotations

import json
import shutil
import uuid

import nbformat
import pytest

import grading_course as gc
from hybridlab.grading import autograde, course, gradebook
from hybridlab.grading.course import read_lab
from hybridlab.runs import course_size

pytestmark = [pytest.mark.timeout(1800)]


def test_the_course_grades_at_full_size_and_the_tests_at_quick(tmp_path):
    """Issue 39: the course grades at the sizes its written parts draw conclusions from (the
    config, and the default where a config does not say); the grading tests choose quick."""
    shipped = gc.ROOT / "grading"
    assert course.grading_policy(shipped).size == "full"
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "nbgrader_config.py").write_text(
        "\n".join(line for line in (shipped / "nbgrader_config.py").read_text().splitlines()
                  if not line.startswith("c.GradingPolicy.size"))  # fmt: skip
    )
    assert course.grading_policy(bare).size == "full" and course_size.DEFAULT == "full"
    assert course.grading_policy(gc.make_course(tmp_path / "tests")).size == "quick"


def test_the_grading_size_is_checked_where_it_is_set(tmp_path):
    root = gc.make_course(tmp_path / "course")
    assert course.grading_policy(root).size == "quick"  # the tests' course (gc.LIMITS)
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + '\nc.GradingPolicy.size = "medium"\n')
    with pytest.raises(course.GradingError, match=r"size = 'medium'.*'quick' or 'full'"):
        course.grading_policy(root)
    gc.submit(root, "solution", gc.instructor_notebook())
    with pytest.raises(course.GradingError, match="'quick' or 'full'"):
        course.release([gc.LAB], root=root, labs_dir=root / "labs")
    with pytest.raises(course.GradingError, match="'quick' or 'full'"):
        autograde.grade(gc.LAB, root=root, progress=False)  # before anything is run
    config.write_text(config.read_text().replace('"medium"', '"full"'))
    assert course.grading_policy(root).quick is False


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    gc.require_sandbox()
    root = gc.make_course(tmp_path_factory.mktemp("sizes") / "course")
    (released,) = course.release([gc.LAB], root=root, labs_dir=root / "labs")
    solution = gc.instructor_notebook()
    # a student who ran the lab at the full sizes (HYBRIDLAB_QUICK=0) and handed in the folder
    runs = gc.record_own_runs(tmp_path_factory.mktemp("student"), solution, quick=False)
    (run,) = sorted(runs.glob("*-0.json"))
    data = json.loads(run.read_text())
    assert data["quick"] is False
    seconds = round(data["seconds"], 4)  # right only for this run: its own runs must serve it
    path = gc.submit(root, "fullsize", gc.answer(solution, "seconds", f"RUN_SECONDS = {seconds!r}"))
    shutil.copytree(runs, path.parent / runs.name)
    gc.submit(root, "solution", solution)  # no runs folder: graded at the course's size
    report = autograde.grade(
        gc.LAB, root=root, tag=f"test-sizes-{uuid.uuid4().hex[:8]}", jobs=2, progress=False
    )
    print(report)
    return root, released, report


@pytest.mark.grading_full  # a sandboxed grading round trip: make test-grading-full
def test_release_tells_the_labs_the_grading_size(graded):
    root, released, _ = graded
    assert course_size.read(released.parent) == "quick"  # beside labs/<lab>.ipynb
    assert course_size.read(root / "release" / gc.LAB) == "quick"  # what the exchange hands out


@pytest.mark.grading_full  # a sandboxed grading round trip: make test-grading-full
def test_a_full_size_runs_folder_is_graded_at_full_size_with_its_own_runs(graded):
    root, _, report = graded
    scores = gradebook.scores(read_lab(root, gc.LAB))
    records = gradebook.load_records(read_lab(root, gc.LAB))
    notes = "; ".join(records["fullsize"]["notes"])
    assert {p: scores["fullsize"].get(p) for p in gc.PARTS} == dict.fromkeys(gc.PARTS, 1.0), notes
    assert "graded at the full problem sizes, the size its own runs were made at" in notes, notes
    assert "own runs (90_sandbox_runs): 1 usable" in notes, notes
    assert "graded at the full" not in "; ".join(records["solution"]["notes"])
    assert {p: scores["solution"].get(p) for p in gc.PARTS} == dict.fromkeys(gc.PARTS, 1.0)
    # one reference run per size, cached
    keys = json.loads((root / "reports" / "timings.json").read_text())
    assert sorted(k.split(":")[2] for k in keys) == ["full", "quick"], keys
    # the student reads it under every test and in the feedback
    nb = nbformat.read(root / "autograded" / "fullsize" / gc.LAB / f"{gc.LAB}.ipynb", as_version=4)
    lines = [
        o["text"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("name") == "stdout" and o.get("text", "").startswith("Data: ")
    ]
    assert lines and all("Graded at the full problem sizes" in line for line in lines), lines
    assert "your own runs (1: " in lines[-1], lines  # how many, and of which kernels
    page = root / "feedback" / "fullsize" / gc.LAB / f"{gc.LAB}.html"
    assert "Graded at the full problem sizes, the size your own runs were made at" in (
        page.read_text()
    )
