"""The lab's "tests you can run" cells, and what of them grading need run.

Each graded part has, beside its hidden test, a locked cell of checks the student runs while
working (nbgrader grade_id `test_<part>`, no points). Grading runs the notebook from the top,
so these cells ran again for every submission, although no score depends on them: in lab 12 they
build and run the student's C a second time in the kernel (the hidden test builds and runs it
apart), about a tenth of a graded submission's CPU time. When graded, a self-check cell runs up
to its last top-level statement that binds a name another cell can read, in order and with
everything before it (lab 04's `overlap_kernel = build_student_overlap(OVERLAP_C)`, which a later
cell uses, without the checks after it that run it); a cell none of whose names can be read does
not run at all. A name can be read when it appears (as a word) in any other Python cell (a function defined
above runs later too; a C cell reads none); no statement is left out when a Python cell reads
names by their text (globals() but with one name given as a literal, eval, the IPython shell, a
magic other than %load_ext, %matplotlib and %config). What is left out prints NOTE instead.

    graded_source(cells, i)   what grading runs of cells[i]: None for the cell as it is
"""

from __future__ import annotations

import ast
import re

from ..kernels.c_cells import MAGIC

C_MAGIC = f"%%{MAGIC} "  # a C cell: C text, no Python reads a name there
NOTE = (
    "[the checks of this cell were not run when graded: they carry no points (the hidden test "
    "below does); only what another cell reads was defined; run them yourself while you work]"
)
# a later cell that reads names by their text could read one the skipped cell bound (not
# globals() given one name, a literal or the apart answers' key: the word rule reads the literal)
_BY_TEXT = re.compile(r"\b(?:globals(?!\(\)\s*(?:\.get\(|\[)\s*(?:\"\w+\"|'\w+'|_ANSWERS)\s*[,)\]])"
                      r"|vars|locals|eval|exec|get_ipython|__main__|__dict__|user_ns)\b"
                      r"|^\s*%(?!load_ext\b|matplotlib\b|config\b)", re.M)  # fmt: skip


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {}) if cell.cell_type == "code" else {}


def is_self_check(cell) -> bool:
    """A locked cell without points, of checks named after a part (`test_<part>`)."""
    meta = _meta(cell)
    return (
        bool(meta.get("locked"))
        and not meta.get("grade")
        and not meta.get("solution")
        and str(meta.get("grade_id", "")).startswith("test_")
    )


def bound_names(source: str) -> set[str] | None:
    """Every name the cell binds anywhere (assignments, loops, defs, imports, globals); None when
    it is not plain Python (a magic, a syntax error): then it is run."""
    try:
        return _bound_in(ast.parse(source))
    except SyntaxError:
        return None


def _bound_in(tree: ast.AST) -> set[str]:
    """bound_names of a parsed cell or statement."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names |= set(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
    return names


def graded_source(cells: list, i: int) -> str | None:
    """What grading runs of cells[i]: None to run it as it is (not a self-check, or its last
    statement may bind what another cell reads), else its lines up to the last statement that
    binds a name another cell can read (none when there is none), then a print of NOTE."""
    if not is_self_check(cells[i]):
        return None
    source = cells[i].source
    try:
        statements = ast.parse(source).body
    except SyntaxError:
        return None
    others = [
        c.source
        for j, c in enumerate(cells)
        if c.cell_type == "code" and j != i and not c.source.lstrip().startswith(C_MAGIC)
    ]
    if any(_BY_TEXT.search(text) for text in others):
        return None
    read = [k for k, s in enumerate(statements)
            if any(re.search(rf"\b{re.escape(n)}\b", text)
                   for n in _bound_in(s) for text in others)]  # fmt: skip
    if read and read[-1] == len(statements) - 1:
        return None
    ran = source.splitlines()[:statements[read[-1]].end_lineno] if read else []
    return "\n".join([*ran, f"print({NOTE!r})"])
