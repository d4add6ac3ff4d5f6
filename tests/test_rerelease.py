"""`hybridlab release LAB --after-grading` on the tiny course of grading_course.py: release,
grade, mark by hand, change the notebook's cells, release again. nbgrader alone refuses; the
re-release keeps the manual grade of the part that remains, drops (and says so) the one of the
part that is gone, and brings the automatic grades back by regrading."""

from __future__ import annotations

import nbformat
import pytest

from grading_course import LAB, WRITTEN, instructor_notebook, make_course, require_sandbox, submit
from hybridlab import grading
from hybridlab.grading import gradebook
from hybridlab.grading.rerelease import release_after_grading

pytestmark = [pytest.mark.slow, pytest.mark.grading_full, pytest.mark.timeout(1800)]


def test_release_after_grading_keeps_the_grades_it_can(tmp_path):
    require_sandbox()
    root = make_course(tmp_path / "course")
    grading.release([LAB], root=root, labs_dir=tmp_path / "labs")
    submit(root, "alice", instructor_notebook())
    grading.grade(LAB, root=root, quick=True, progress=False, make_feedback=False)
    lab = grading.read_lab(root, LAB)
    gradebook.mark(lab, "alice", WRITTEN, 1.5, "clear, but say why sendrecv blocks")
    gradebook.mark(lab, "alice", "test_total", 0.5)  # by hand, on a part about to go

    nb = instructor_notebook()  # the author drops part (c): total() and its test
    nb.cells = [
        c
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") not in ("total", "test_total")
    ]
    nbformat.write(nb, root / "source" / LAB / f"{LAB}.ipynb")
    with pytest.raises(grading.GradingError, match="--after-grading"):
        grading.release([LAB], root=root, labs_dir=tmp_path / "labs")

    report = release_after_grading(
        LAB, root=root, labs_dir=tmp_path / "labs", quick=True, progress=False
    )
    print(report)
    assert "kept the manual grades and comments of 2 part(s) of 1 student(s)" in report
    assert "alice test_total: score 0.5 dropped (the part is gone)" in report
    scores = grading.scores(grading.read_lab(root, LAB))["alice"]
    assert "test_total" not in scores
    assert scores[WRITTEN] == 1.5
    assert scores["test_square"] == 1.0 and scores["test_seconds"] == 1.0  # regraded
    page = (root / "feedback" / "alice" / LAB / f"{LAB}.html").read_text()
    assert "clear, but say why sendrecv blocks" in page
