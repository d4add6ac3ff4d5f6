"""The authoring guide (book/authoring.md) kept true: `hybridlab new-lab` scaffolds a lab in a
temporary copy of the project that passes the kit's convention tests as generated (the same test
functions, pointed at the copy), is in every list a lab must join, releases, and grades a right
and a wrong submission in the sandbox with its kernel found in the course's own kernels/."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat
import pytest

import test_notebooks
import test_wrong_answers
from grading_course import LIMITS, require_sandbox, submit
from hybridlab import grading
from hybridlab.course.authoring import AuthoringError, missing_entries, new_lab, new_part
from hybridlab.kernels.c_cells import compile_check
from wrong_answers import load

ROOT = Path(__file__).resolve().parents[1]
LAB, KERNEL = "91_authoring_check", "authoring_check"
PROJECT_FILES = ("README.md", "book/_toc.yml", "book/course_map.md", "tests/test_grading.py")
PARTS = {"python": "efficiency", "c": "total", "written": "numa_guess"}


def scaffold(tmp: Path) -> Path:
    for name in PROJECT_FILES:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp / name)
    (tmp / "grading").mkdir()
    config = (ROOT / "grading" / "nbgrader_config.py").read_text()
    (tmp / "grading" / "nbgrader_config.py").write_text(config + LIMITS)
    new_lab(LAB, root=tmp, kernel=KERNEL)
    for kind, part in PARTS.items():  # `hybridlab new-part` on top of the scaffold
        new_part(LAB, kind, part, root=tmp)
    return tmp


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = scaffold(tmp_path)
    monkeypatch.setenv("HYBRIDLAB_COURSE_KERNELS", str(root / "grading" / "kernels"))
    return root


def test_a_scaffolded_lab_passes_the_convention_tests(project, monkeypatch):
    assert missing_entries(project, LAB) == []
    monkeypatch.setattr(test_notebooks, "ROOT", project)
    monkeypatch.setattr(test_wrong_answers, "ROOT", project)
    tests = project / "tests"
    monkeypatch.setattr(test_wrong_answers, "load", lambda lab: load(lab, tests / "wrong_answers"))
    monkeypatch.setattr(
        test_wrong_answers, "gaming", lambda lab: load(lab, tests / "gaming", "GAMING")
    )
    test_notebooks.test_the_notebook_follows_the_course_conventions(LAB)
    test_notebooks.test_hidden_tests_compare_plain_values(LAB)
    test_wrong_answers.test_every_graded_part_has_two_wrong_answers_that_name_real_cells(LAB)
    test_wrong_answers.test_every_automatic_part_has_three_gaming_attempts_that_lose_it(LAB)
    test_wrong_answers.test_every_part_scores_in_its_hidden_tests_only(LAB)
    nb = nbformat.read(project / "grading" / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    (c_part,) = [c for c in nb.cells if c.source.startswith(f"%%c SUM_C {KERNEL}")]
    assert compile_check(c_part.source.split("\n", 1)[1], KERNEL) == []  # found in kernels/
    with pytest.raises(AuthoringError, match="exists already"):
        new_lab(LAB, root=project, kernel="another")
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert ids.index("hidden_best_rate") < ids.index("efficiency") < ids.index("hidden_total")
    assert "cluster.stop()" in nb.cells[-1].source, "the parts go before the cluster stops"
    (whole,) = [c for c in nb.cells if c.source.startswith("%%c TOTAL_C\n")]
    assert compile_check(whole.source.split("\n", 1)[1], None) == []
    with pytest.raises(AuthoringError, match="already"):
        new_part(LAB, "python", "efficiency", root=project)
    with pytest.raises(AuthoringError, match="one of c, python, written"):
        new_part(LAB, "fortran", "x", root=project)
    with pytest.raises(AuthoringError, match="no lab"):
        new_part("92_missing", "python", "x", root=project)


@pytest.mark.slow
@pytest.mark.grading_full
@pytest.mark.timeout(1800)
def test_a_scaffolded_lab_releases_and_grades_right_and_wrong(project):
    require_sandbox()
    course = project / "grading"
    (released,) = grading.release([LAB], root=course, labs_dir=project / "labs")
    assert "YOUR CODE HERE" in released.read_text() and "HIDDEN TESTS" not in released.read_text()
    # the course's kernel goes beside the released labs and into the exchange's copy
    assert (project / "labs" / "kernels" / f"{KERNEL}.c").is_file()
    assert (course / "release" / LAB / "kernels" / f"{KERNEL}_student.h").is_file()
    solution = nbformat.read(course / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    wrong = copy.deepcopy(solution)
    wrongs = load(LAB, project / "tests" / "wrong_answers")
    answers = {
        wrongs[0].answers[0][0]: wrongs[0].answers[0][1],  # MPI_Reduce: rank 0 only
        wrongs[2].answers[0][0]: wrongs[2].answers[0][1],  # the mean repetition
        **{w.answers[0][0]: w.answers[0][1] for w in wrongs if w.answers[0][0] in PARTS.values()},
    }  # and the last wrong answer of each added part
    for cell in wrong.cells:
        cell.source = answers.get(cell.metadata.get("nbgrader", {}).get("grade_id"), cell.source)
    submit(course, "right", solution, LAB)
    submit(course, "wrong", wrong, LAB)
    report = grading.grade(LAB, root=course, quick=True, progress=False)
    scores = grading.scores(grading.read_lab(course, LAB))
    auto = {"hidden_global_sum": 2.0, "hidden_best_rate": 1.0, "hidden_efficiency": 1.0,
            "hidden_total": 2.0}  # fmt: skip
    assert {g: scores["right"][g] for g in auto} == auto, report
    assert {g: scores["wrong"][g] for g in auto} == dict.fromkeys(auto, 0.0), report
