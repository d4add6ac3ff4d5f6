"""Self-check cells grading leaves out (grading/self_checks.py): only when nothing can read
what they bind."""

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


HEAD = _cell("%load_ext hybridlab.kernels.c_cells\nimport pandas as pd")
ANSWER = _cell("def part(x):\n    return x + 1", solution=True, grade_id="part")
HIDDEN = _cell("assert part(1) == 2", grade=True, solution=False, grade_id="hidden_part", points=1)


def test_a_check_whose_names_nothing_reads_is_left_out():
    cells = [HEAD, ANSWER, _check("mine = part(3)\nprint(mine)"), HIDDEN, _cell("%%c X_C k\nint mine;")]
    assert self_checks.skippable(cells, 2)
    assert not self_checks.skippable(cells, 1) and not self_checks.skippable(cells, 3)


def test_a_check_is_run_when_any_other_cell_could_read_what_it_binds():
    check = _check("mine = part(3)")
    reads_later = _cell("print(mine)")
    assert not self_checks.skippable([HEAD, ANSWER, check, reads_later], 2)
    # a function defined above runs later, when the hidden test calls it
    reads_above = _cell("def part(x):\n    return x + mine", solution=True, grade_id="part")
    assert not self_checks.skippable([HEAD, reads_above, check, HIDDEN], 2)
    for by_text in ("print(globals()['mi' + 'ne'])", "eval('mi' + 'ne')", "%time part(1)",
                    "get_ipython().user_ns"):  # fmt: skip
        assert not self_checks.skippable([HEAD, ANSWER, check, _cell(by_text)], 2), by_text
    # a loop variable, an import, a def, an except name are bindings too
    for binds, read in (("for k in range(2): pass", "k"), ("import numpy as q", "q.pi"),
                        ("def helper(): pass", "helper()"), ("try:\n    1/0\nexcept Exception as e:\n    pass", "e")):  # fmt: skip
        assert not self_checks.skippable([ANSWER, _check(binds), _cell(read)], 1), binds


def test_only_a_locked_pointless_test_named_cell_that_is_python_is_left_out():
    lone = [ANSWER, None]
    for cell in (_cell("x = 1", locked=True, grade=False, solution=False, grade_id="cell_x"),
                 _cell("x = 1", locked=False, grade=False, solution=False, grade_id="test_x"),
                 _cell("x = 1", locked=True, grade=True, solution=False, grade_id="test_x", points=1),
                 _check("%%time\nx = 1"), _check("x = (")):  # fmt: skip
        lone[1] = cell
        assert not self_checks.skippable(lone, 1), cell.source
