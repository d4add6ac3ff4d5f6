"""The authoring guide (book/authoring.md) kept true: `hybridlab new-lab` scaffolds a lab in a
temporary copy of the project that passes the kit's convention tests as generated (the same test
functions, pointed at the copy), is in every list a lab must join, releases, and grades a right
and a wrong submission in the sandbox with its kernel found in the course's own kernels/; the
guide's whole program and job script, taken from the page, build traced and run as it says."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import test_notebooks
import test_wrong_answers
from grading_course import LIMITS, require_sandbox, submit
from hybridlab import grading
from hybridlab.course.authoring import (
    AuthoringError,
    corpus_folder,
    missing_entries,
    new_lab,
    new_part,
)
from hybridlab.kernels.c_cells import compile_check
from hybridlab.machine.topology import read_topology
from hybridlab.runs import compliance
from hybridlab.slurm import jobs
from wrong_answers import load

ROOT = Path(__file__).resolve().parents[1]
HYBRIDLAB = str(Path(sys.executable).parent / "hybridlab")
GUIDE = ROOT / "book" / "authoring.md"
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
    monkeypatch.setattr(test_wrong_answers, "COURSE", project / "grading")
    monkeypatch.setattr(test_wrong_answers, "CORPORA", project / "tests")
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


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes: what a failed scaffold must leave as it was."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _private_course(folder: Path) -> Path:
    folder.mkdir(parents=True)
    config = (ROOT / "grading" / "nbgrader_config.py").read_text()
    (folder / "nbgrader_config.py").write_text(config + LIMITS)
    return folder


def test_a_course_folder_of_ones_own_keeps_its_lab_and_corpora_inside(tmp_path, monkeypatch):
    """The kit's files are not touched; the course's corpora are in the course, not in tests/."""
    kit = tmp_path / "kit"
    for name in PROJECT_FILES:
        (kit / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, kit / name)
    (kit / "grading").mkdir()
    before = _tree(kit)
    course = _private_course(tmp_path / "mycourse")
    written = new_lab(LAB, root=kit, course=course, kernel=KERNEL)
    new_part(LAB, "python", "efficiency", root=kit, course=course)
    assert _tree(kit) == before, "the kit's checkout changed"
    assert all(course in p.parents for p in written), written
    assert corpus_folder(course, kit) == course / "tests"
    assert (course / "tests" / "wrong_answers" / f"{LAB}.py").is_file()
    assert "efficiency" in (course / "tests" / "gaming" / f"{LAB}.py").read_text()
    # the corpus checks run on the course folder (HYBRIDLAB_GRADING=<course> in a shell)
    monkeypatch.setenv("HYBRIDLAB_COURSE_KERNELS", str(course / "kernels"))
    monkeypatch.setattr(test_wrong_answers, "COURSE", course)
    monkeypatch.setattr(test_wrong_answers, "CORPORA", course / "tests")
    test_wrong_answers.test_every_graded_part_has_two_wrong_answers_that_name_real_cells(LAB)
    test_wrong_answers.test_every_automatic_part_has_three_gaming_attempts_that_lose_it(LAB)
    with pytest.raises(AuthoringError, match="not a course folder"):
        new_lab("92_nowhere", root=kit, course=tmp_path / "empty")


def test_a_scaffold_that_fails_leaves_nothing_behind(tmp_path):
    project = tmp_path / "kit"
    for name in PROJECT_FILES:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, project / name)
    (project / "grading").mkdir()
    (project / "grading" / "nbgrader_config.py").write_text("")
    course_map = project / "book" / "course_map.md"
    course_map.write_text("# The course map, without its table\n")  # no place for the lab
    before, folders = _tree(project), sorted(project.rglob("*/"))
    with pytest.raises(AuthoringError, match="no place for the new lab in the course map"):
        new_lab(LAB, root=project, kernel=KERNEL)  # after the notebook, kernels, toc: undone
    assert _tree(project) == before
    assert sorted(project.rglob("*/")) == folders, "folders it made are removed"
    # a part whose corpus file has no GAMING list: the notebook and wrong answers stay as were
    course_map.write_text((ROOT / "book" / "course_map.md").read_text())
    new_lab(LAB, root=project, kernel=KERNEL)
    gaming_file = project / "tests" / "gaming" / f"{LAB}.py"
    gaming_file.write_text('"""no list here"""\n')
    before = _tree(project)
    with pytest.raises(AuthoringError, match="no `GAMING = \\[...\\]` list"):
        new_part(LAB, "python", "efficiency", root=project)
    assert _tree(project) == before


@pytest.mark.timeout(900)
def test_new_lab_on_a_course_folder_releases_there_and_undoes_a_failed_release(tmp_path):
    """`hybridlab new-lab` with HYBRIDLAB_GRADING: scaffolded and released in that course (not
    "unknown lab"), the kit untouched; a release that fails undoes the whole scaffold."""
    course = _private_course(tmp_path / "term" / "course")
    env = dict(os.environ, HYBRIDLAB_GRADING=str(course))
    env.pop("HYBRIDLAB_LABS", None)
    env.pop("HYBRIDLAB_COURSE_KERNELS", None)
    done = subprocess.run([HYBRIDLAB, "new-lab", "93_private_sum", "--kernel", "private_sum"],
                          capture_output=True, text=True, env=env, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    released = tmp_path / "term" / "labs" / "93_private_sum.ipynb"
    assert f"released {released}" in done.stdout and released.is_file()
    assert (course / "tests" / "gaming" / "93_private_sum.py").is_file()
    assert not (ROOT / "tests" / "gaming" / "93_private_sum.py").exists()
    assert "93_private_sum" not in (ROOT / "README.md").read_text()
    assert f"HYBRIDLAB_GRADING={course} pytest tests/test_wrong_answers.py" in done.stdout
    done = subprocess.run([HYBRIDLAB, "new-part", "93_private_sum", "written", "why_it_holds"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0 and "changed" in done.stdout, done.stdout + done.stderr
    # a course whose release fails: nothing of the new lab is left
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + '\nc.GradingPolicy.size = "medium"\n')
    before = _tree(tmp_path / "term")
    done = subprocess.run([HYBRIDLAB, "new-lab", "94_undone", "--course", str(course)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 1 and "nothing was changed" in done.stderr, done.stdout + done.stderr
    assert _tree(tmp_path / "term") == before


def guide_block(language: str, after: str) -> str:
    """The first ```language block of the guide after the words `after`."""
    text = GUIDE.read_text()
    start = text.index(f"```{language}\n", text.index(after)) + len(language) + 4
    return text[start:text.index("```", start)]


@pytest.mark.timeout(900)
def test_the_guides_whole_program_runs_traced_as_the_guide_says(tmp_path):
    program = jobs.build_program("authoring_total", guide_block("c", "## A whole-program part"))
    script = guide_block("bash", "Thread counts belong in the job script")
    cpus = len(read_topology().usable)
    for ranks, threads in sorted({(min(2, cpus), 1), (1, cpus)}):
        job, trace = jobs.run_traced(script, program, tmp_path / f"{ranks}x{threads}",
                                     name="program", args=["5"], timeout=300,
                                     sbatch_args=[f"--ntasks={ranks}", f"--cpus-per-task={threads}"])  # fmt: skip
        (line,) = job.check().lines("total")  # rank 0's line; rank 0 hears from the last rank
        assert line == {"total": str(5 * threads * ranks * (ranks + 1) // 2),
                        "threads": str(threads), "left": str(5 * threads * ranks)}, job.output  # fmt: skip
        assert trace is not None, job.output
        init = trace.records[trace.records["record"] == "mpi_init"]
        assert sorted(init["rank"]) == list(range(ranks)) and set(init["required"]) == {"funneled"}
        calls = trace.mpi_calls
        ring = calls[calls["call"] == "MPI_Sendrecv"]
        assert len(ring) == ranks and (ring["thread"] == 0).all() and (ring["tag"] == 7).all()
        assert (ring["comm_id"] != -1).all() and ring.groupby("rank")["comm_id"].nunique().eq(1).all()
        reduce = calls[calls["call"] == "MPI_Reduce"]
        assert len(reduce) == ranks and (reduce["comm_size"] == ranks).all()
        # a collective names no communicator id; a reduction records its count (one long)
        assert (reduce["comm_id"] == -1).all() and (reduce["count"] == 1).all()
        compliance.check(trace, "funneled")
    # the provided-level stand-in: the program sees SINGLE, stops, and no rank writes a trace
    job, trace = jobs.run_traced(script, program, tmp_path / "single", name="program", args=["5"],
                                 sbatch_args=["--ntasks=1", "--cpus-per-task=1"], timeout=300,
                                 env={jobs.PROVIDE_AT_MOST: "single"})  # fmt: skip
    assert job.exit_code != 0 and "needs MPI_THREAD_FUNNELED" in job.output, job.output
    assert trace is None
    # more tasks than the machine has CPUs: refused before anything runs, naming the numbers
    with pytest.raises(jobs.JobRequestError, match=f"{cpus + 1} tasks x 1 CPUs per task"):
        jobs.run_traced(script, program, tmp_path / "too_many", name="program", args=["5"],
                        sbatch_args=[f"--ntasks={cpus + 1}"], timeout=300)
