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


def test_a_name_is_read_by_the_code_or_the_strings_of_a_cell_not_its_comments():
    """Lab 01's check of (b) ran in every graded submission (a cluster started, the student's C
    built again) partly because `serial` is a word of a comment, lab 04's because `student` is,
    lab 16's because the solution of (b) has a local `mine`: a comment reads nothing, nor does
    an attribute's name (`x.mine` reads x) or a function's own local; a string's words still
    count (df.query("a > @mine") reads mine)."""
    check = _check("mine = part(3)")
    for reads in ("x = 1  # mine is not read here", "print(pd.mine)",
                  "import pandas as pd  # the kit's mine\n%load_ext x",
                  "x = 1  # no eval, no globals() here",
                  "def g(calls):\n    mine = calls[0]\n    return mine",  # its own local (lab 16)
                  "def g(mine):\n    return [mine for mine in range(3)]"):  # fmt: skip
        assert _skipped([HEAD, ANSWER, check, _cell(reads)], 2), reads
    for reads in ('df.query("a > @mine")', '"""the mine of it"""', "f'{mine}'", "del mine",
                  "def g():\n    global mine", "%%time\nx = 1  # mine", "def g():\n    return mine",
                  "class K:\n    x = mine", "g = lambda: mine", "y = [mine for _ in range(2)]",
                  "def g(x=mine):\n    pass"):  # fmt: skip
        assert not _skipped([HEAD, ANSWER, check, _cell(reads)], 2), reads


def test_a_hidden_test_graded_apart_reads_only_the_globals_its_mark_names():
    """The kernel runs only the hand-out of the names on the mark (apart.kernel_source): the
    words of the cell's body, its comments, its strings, its eval, run in another process."""
    check = _check("mine = part(3)\nother = 2")
    body = "### BEGIN HIDDEN TESTS\n{mark}\nx = mine + other  # eval(globals())\n### END HIDDEN TESTS"
    hidden = _cell(body.format(mark="### GRADED APART"), grade=True, locked=True,
                   solution=False, grade_id="hidden_part", points=1)  # fmt: skip
    assert _skipped([HEAD, ANSWER, check, hidden], 2)
    hidden.source = body.format(mark="### GRADED APART: other")
    assert self_checks.graded_source([HEAD, ANSWER, check, hidden], 2) is None
    hidden.source = body.format(mark="### GRADED APART: mine")
    assert self_checks.graded_source([HEAD, ANSWER, check, hidden], 2) == (
        f"mine = part(3)\nprint({self_checks.NOTE!r})"
    )
    # the same body not graded apart runs in the kernel: its eval and globals() read by text
    hidden.source = body.format(mark="")
    assert self_checks.graded_source([HEAD, ANSWER, check, hidden], 2) is None


def test_a_hidden_test_reading_by_text_only_what_the_answers_code_names_says_so():
    """Lab 01's hidden test of (c) reads the globals of require_level's functions by the names
    their code uses, and compiles text with compile(..., "exec"): marked BY_CODE_NAMES, it no
    longer makes every self-check run; the names of its code, and its strings that are a
    name, are still read. The mark counts in a hidden test only."""
    check = _check("mine = part(3)\nlevel = 2")
    body = ("### BEGIN HIDDEN TESTS\n{mark}\nnames = part.__globals__\n"
            "code = compile('x', 'y', 'exec')  # eval(globals())\n"
            "v = [names.get(n) for n in part.__code__.co_names]\nassert {read}\n"
            "### END HIDDEN TESTS")  # fmt: skip

    def hidden(mark, read="'serial mine'", **meta):
        meta = {"grade": True, "locked": True, "solution": False, "grade_id": "hidden_part",
                "points": 1, **meta}  # fmt: skip
        return _cell(body.format(mark=mark, read=read), **meta)

    assert not _skipped([HEAD, ANSWER, check, hidden("")], 2)  # by text: every check runs
    assert _skipped([HEAD, ANSWER, check, hidden(self_checks.BY_CODE_NAMES)], 2)
    for read in ("mine", "'mine'", "globals().get('level')"):
        assert not _skipped([HEAD, ANSWER, check, hidden(self_checks.BY_CODE_NAMES, read)], 2), read
    # a student's cell (or any cell but a hidden test) cannot say it
    for meta in ({"grade": False, "grade_id": "lab"}, {"grade": True, "solution": True}):
        assert not _skipped([HEAD, ANSWER, check, hidden(self_checks.BY_CODE_NAMES, **meta)], 2)

