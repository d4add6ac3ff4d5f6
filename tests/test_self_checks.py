"""Self-check cells grading leaves out, whole or after their last statement another cell can
read (grading/self_checks.py)."""

from __future__ import annotations

import nbformat

from hybridlab.grading import self_checks


def _cell(source: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if meta:
        cell.metadata["nbgrader"] = meta
    return cell


def _check(source: str) -> nbformat.NotebookNode:
    return _cell(source, locked=True, grade=False, solution=False, grade_id="test_part")


def _skipped(cells: list, i: int) -> bool:
    """cells[i] is not run at all when graded."""
    return self_checks.graded_source(cells, i) == f"print({self_checks.NOTE!r})"


HEAD = _cell("%load_ext hybridlab.kernels.c_cells\nimport pandas as pd")
ANSWER = _cell("def part(x):\n    return x + 1", solution=True, grade_id="part")
HIDDEN = _cell("assert part(1) == 2", grade=True, solution=False, grade_id="hidden_part", points=1)


def test_a_check_whose_names_nothing_reads_is_left_out():
    cells = [HEAD, ANSWER, _check("mine = part(3)\nprint(mine)"), HIDDEN, _cell("%%c X_C k\nint mine;")]
    assert _skipped(cells, 2)
    assert not _skipped(cells, 1) and not _skipped(cells, 3)


def test_a_check_is_run_when_any_other_cell_could_read_what_it_binds():
    check = _check("mine = part(3)")
    reads_later = _cell("print(mine)")
    assert not _skipped([HEAD, ANSWER, check, reads_later], 2)
    # a function defined above runs later, when the hidden test calls it
    reads_above = _cell("def part(x):\n    return x + mine", solution=True, grade_id="part")
    assert not _skipped([HEAD, reads_above, check, HIDDEN], 2)
    for by_text in ("print(globals()['mi' + 'ne'])", "eval('mi' + 'ne')", "%time part(1)",
                    "get_ipython().user_ns"):  # fmt: skip
        assert not _skipped([HEAD, ANSWER, check, _cell(by_text)], 2), by_text
    # a loop variable, an import, a def, an except name are bindings too
    for binds, read in (("for k in range(2): pass", "k"), ("import numpy as q", "q.pi"),
                        ("def helper(): pass", "helper()"), ("try:\n    1/0\nexcept Exception as e:\n    pass", "e")):  # fmt: skip
        assert not _skipped([ANSWER, _check(binds), _cell(read)], 1), binds


def test_only_a_locked_pointless_test_named_cell_that_is_python_is_left_out():
    lone = [ANSWER, None]
    for cell in (_cell("x = 1", locked=True, grade=False, solution=False, grade_id="cell_x"),
                 _cell("x = 1", locked=False, grade=False, solution=False, grade_id="test_x"),
                 _cell("x = 1", locked=True, grade=True, solution=False, grade_id="test_x", points=1),
                 _check("%%time\nx = 1"), _check("x = (")):  # fmt: skip
        lone[1] = cell
        assert not _skipped(lone, 1), cell.source


def test_a_check_runs_up_to_its_last_statement_another_cell_reads():
    """Lab 04's self-check builds the kernel a later cell uses, then checks it: grading runs the
    build (and everything before it, in order) and leaves the checks after it out."""
    check = _check("# tests you can run\nwritten(1)\nkernel = part(1)\nkernel.touch()\n"
                   "more = kernel + 1\nprint(check(kernel))\nassert more")
    later = _cell("print(more)")
    graded = self_checks.graded_source([HEAD, ANSWER, check, later], 2)
    assert graded == ("# tests you can run\nwritten(1)\nkernel = part(1)\nkernel.touch()\n"
                      f"more = kernel + 1\nprint({self_checks.NOTE!r})")
    # its last statement binds what another cell reads: run as it is
    ends = _check(check.source + "\nfinal = more")
    assert self_checks.graded_source([HEAD, ANSWER, ends, _cell("print(final)")], 2) is None
    # a hidden test's globals().get("name") reads that name, by the word rule
    reads = _cell('x = globals().get("more", 0)')
    assert self_checks.graded_source([HEAD, ANSWER, check, reads], 2) == graded
    assert self_checks.graded_source([HEAD, ANSWER, check, _cell("x = globals()")], 2) is None
