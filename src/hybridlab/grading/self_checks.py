"""The lab's "tests you can run" cells that grading need not run.

Each graded part has, beside its hidden test, a locked cell of checks the student runs while
working (nbgrader grade_id `test_<part>`, no points). Grading runs the notebook from the top,
so these cells ran again for every submission, although no score depends on them: in lab 12 they
build and run the student's C a second time in the kernel (the hidden test builds and runs it
apart), about a tenth of a graded submission's CPU time. A self-check cell is not run when
graded if no other cell can read what it leaves: no name it binds appears (as a word) in any
other Python cell (a function defined above runs later too; a C cell reads none), and no
Python cell reads names by their text (globals(), eval, the IPython shell, a magic other than
%load_ext, %matplotlib and %config). It prints NOTE instead.

    skippable(cells, i)   cells[i] is a self-check cell grading can leave out
"""

from __future__ import annotations

import ast
import re

from ..kernels.c_cells import MAGIC

C_MAGIC = f"%%{MAGIC} "  # a C cell: C text, no Python reads a name there
NOTE = (
    "[not run when graded: these checks carry no points (the hidden test below does) and no "
    "later cell reads what they define; run them yourself while you work]"
)
# a later cell that reads names by their text could read one the skipped cell bound
_BY_TEXT = re.compile(r"\b(globals|vars|locals|eval|exec|get_ipython|__main__|__dict__|user_ns)\b"
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
        tree = ast.parse(source)
    except SyntaxError:
        return None
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


def skippable(cells: list, i: int) -> bool:
    """cells[i] is a self-check cell whose bindings no other code cell can read (an earlier cell's
    function runs later too)."""
    if not is_self_check(cells[i]):
        return False
    names = bound_names(cells[i].source)
    if names is None:
        return False
    others = [
        c.source
        for j, c in enumerate(cells)
        if c.cell_type == "code" and j != i and not c.source.lstrip().startswith(C_MAGIC)
    ]
    if any(_BY_TEXT.search(text) for text in others):
        return False
    return not any(re.search(rf"\b{re.escape(n)}\b", text) for n in names for text in others)
