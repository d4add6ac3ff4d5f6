"""Every lab runs headless in quick mode: the instructor solution cleanly, the released lab (as
committed in labs/, kept in step by test_grading.py) up to its blanks. Neither leaves a process
of its session or an orphaned MPI shared-memory segment behind."""

from __future__ import annotations

import glob
import re
import time
from pathlib import Path

import nbformat
import pytest

from conftest import SHM, orphaned_segments
from hybridlab.course import notebooks
from hybridlab.grading import known_labs
from hybridlab.machine import reaper

ROOT = Path(__file__).resolve().parents[1]
LABS = known_labs(ROOT / "grading")


def source(lab: str) -> Path:
    return ROOT / "grading" / "source" / lab / f"{lab}.ipynb"


@pytest.fixture
def session(monkeypatch):
    """Record the session the runner reaps, then check that nothing of it survived."""
    seen: dict[str, int] = {}
    original = reaper.reap

    def recording_reap(value: str) -> int:
        seen[value] = original(value)
        return seen[value]

    monkeypatch.setattr(reaper, "reap", recording_reap)
    before = set(glob.glob(SHM))
    yield seen
    assert seen, "the runner did not reap its session"
    for value in seen:
        assert reaper.tagged(value) == [], f"processes of session {value} survived"
    assert orphaned_segments(before) == [], "MPI shared-memory segments were left behind"


def errors(nb: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode, dict]]:
    return [
        (i, cell, out)
        for i, cell in enumerate(nb.cells)
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


def test_there_are_labs():
    assert "00_getting_started" in LABS and len(LABS) >= 5


@pytest.mark.parametrize("lab", LABS)
def test_the_notebook_follows_the_course_conventions(lab):
    nb = nbformat.read(source(lab), as_version=4)
    assert nb.metadata["kernelspec"]["name"] == "hybridlab"
    assert all(
        not c.get("outputs") and not c.get("execution_count")
        for c in nb.cells
        if c.cell_type == "code"
    )
    graded = [c.metadata["nbgrader"] for c in nb.cells if "nbgrader" in c.metadata]
    ids = [g["grade_id"] for g in graded]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    assert all(g["schema_version"] == 3 for g in graded)
    assert sum(1 for g in graded if g["grade"]) >= 3, "at least three graded test cells"
    text = "\n".join(c.source for c in nb.cells)
    assert text.count("### BEGIN SOLUTION") == text.count("### END SOLUTION") >= 2
    assert text.count("### BEGIN HIDDEN TESTS") == text.count("### END HIDDEN TESTS") >= 2
    assert "hl.quick_mode()" in text, "the lab must shrink itself in quick mode"
    assert not re.search(r"/(work|root)/", text), "no absolute paths"
    # nbgrader scores a test cell that writes to stderr as failed: notes print to stdout
    assert not any(
        ".warn(" in c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
    ), "a graded test cell must not warn (stderr = failed): print a 'note (not graded)' instead"
    assert ".stop()" in nb.cells[-1].source, "the last cell stops the lab's cluster"


# tools a student's function can replace while the hidden test that called it runs (issue 21)
PATCHABLE = re.compile(
    r"\b(?:np|numpy)\.(?:allclose|isclose)\(|\bmath\.isclose\(|\bpytest\.approx\(|"
    r"\bassert_allclose\("
)


def hidden_test_lines(nb: nbformat.NotebookNode) -> list[str]:
    lines, inside = [], False
    for cell in nb.cells:
        for line in cell.source.splitlines():
            if "### BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "### END HIDDEN TESTS" in line:
                inside = False
            elif inside:
                lines.append(line.strip())
    return lines


@pytest.mark.parametrize("lab", LABS)
def test_hidden_tests_compare_plain_values(lab):
    """Hidden tests coerce what the student returns to builtin types and compare with plain
    operators: np.allclose, np.isclose, math.isclose, pytest.approx and assert_allclose can be
    replaced by the student's own function while the test that called it runs."""
    nb = nbformat.read(source(lab), as_version=4)
    offenders = [line for line in hidden_test_lines(nb) if PATCHABLE.search(line)]
    assert offenders == [], f"{lab}: compare with float(...) and plain operators: {offenders}"


# hidden tests that name a C cell but run none of its C: their answers are the student's own
# numbers from the kernel's runs, handed out and judged (a C part is otherwise graded apart).
# None now: lab 02 (e) runs its construct and its answer cells again apart (sync.exercise)
KERNEL_DATA_TESTS: set[tuple[str, str]] = set()


def _unbound_names(code: str) -> set[str]:
    """Names the code reads that neither it nor Python binds (it would need the notebook's)."""
    import builtins
    import symtable

    top = symtable.symtable(code, "cell", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    read, tables = set(), [top]
    while tables:
        table = tables.pop()
        tables += table.get_children()
        read |= {s.get_name() for s in table.get_symbols()
                 if s.is_referenced() and (s.is_global() or table is top)}  # fmt: skip
    return read - bound - set(dir(builtins))


@pytest.mark.parametrize("lab", LABS)
def test_c_parts_are_graded_apart_from_the_kernel(lab):
    """A hidden test that runs a student's C cell is graded apart (grading/apart.py): it carries
    the mark and needs nothing of the notebook but its C cells."""
    from hybridlab.grading import apart

    nb = nbformat.read(source(lab), as_version=4)
    names = set(apart.c_sources([c.source for c in nb.cells], len(nb.cells)))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        used = {n for n in names if re.search(rf"\b{n}\b", cell.source)}
        if not meta.get("grade") or cell.cell_type != "code":
            continue
        if not used and not apart.is_apart(cell.source):
            continue
        if (lab, meta["grade_id"]) in KERNEL_DATA_TESTS:
            assert not apart.is_apart(cell.source)
            continue
        assert apart.is_apart(cell.source), f"{lab} {meta['grade_id']}: mark it {apart.MARK!r}"
        missing = _unbound_names(cell.source) - names - set(apart.kernel_texts(cell.source))
        assert not missing, f"{lab} {meta['grade_id']}: import {sorted(missing)} in the cell"


@pytest.mark.parametrize("lab", LABS)
def test_every_hidden_test_is_judged_outside_the_kernel(lab):
    """Issue 36: no hidden test compares in the student's interpreter: each is judged in the
    grader's process (a judge block) or graded apart (a C part)."""
    from hybridlab.grading import apart, judge

    nb = nbformat.read(source(lab), as_version=4)
    in_kernel = [cell.metadata["nbgrader"]["grade_id"] for cell in nb.cells
                 if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
                 and "BEGIN HIDDEN TESTS" in cell.source
                 and not (judge.is_judged(cell.source) or apart.is_apart(cell.source))]  # fmt: skip
    assert in_kernel == [], f"{lab}: hidden tests that compare in the kernel: {in_kernel}"


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lab", LABS)
def test_solution_runs_clean_in_quick_mode(lab, tmp_path, session):
    start = time.monotonic()
    executed, figures = notebooks.run_notebook(source(lab), tmp_path, quick=True, timeout=600)
    print(f"{lab} solution, quick mode: {time.monotonic() - start:.1f} s, {len(figures)} figures")
    assert errors(nbformat.read(executed, as_version=4)) == []
    assert len(figures) >= 2 and all(f.stat().st_size > 1000 for f in figures)


def _blank_answer_error(out: dict) -> bool:
    """NotImplementedError, raised here or inside the engines (then wrapped by ipyparallel)."""
    return "NotImplementedError" in out["ename"] or "NotImplementedError" in out["evalue"]


@pytest.mark.slow
@pytest.mark.grading_full  # the blank lab, as the round trip grades it: make test-grading-full
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lab", LABS)
def test_released_lab_fails_only_at_its_blanks(lab, tmp_path, session):
    start = time.monotonic()
    released = ROOT / "labs" / f"{lab}.ipynb"
    executed, _ = notebooks.run_notebook(
        released, tmp_path, quick=True, timeout=600, allow_errors=True
    )
    print(f"{lab} released, quick mode: {time.monotonic() - start:.1f} s")
    found = errors(nbformat.read(executed, as_version=4))
    assert found, "the exercise tests of a blank lab must fail"
    for index, cell, out in found:
        where = f"cell {index}: {cell.source[:80]!r}"
        assert _blank_answer_error(out), f"unexpected {out['ename']} in {where}"
        assert "nbgrader" in cell.metadata, f"an error outside the exercises, in {where}"
