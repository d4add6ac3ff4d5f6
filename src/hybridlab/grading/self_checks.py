"""The lab's "tests you can run" cells, and what of them grading need run.

Each graded part has, beside its hidden test, a locked cell of checks the student runs while
working (nbgrader grade_id `test_<part>`, no points). Grading runs the notebook from the top,
so these cells ran again for every submission, although no score depends on them: in lab 12 they
build and run the student's C a second time in the kernel (the hidden test builds and runs it
apart), about a tenth of a graded submission's CPU time. When graded, a self-check cell runs up
to its last top-level statement that binds a name another cell can read, in order and with
everything before it (lab 04's `overlap_kernel = build_student_overlap(OVERLAP_C)`, which a later
cell uses, without the checks after it that run it); a cell none of whose names can be read does
not run at all. A name can be read when another Python cell names it (a function defined above
runs later too; a C cell reads none): a name of its code (not an attribute's: `x.name` reads x;
not a function's own local) or a word of one of its strings, not a word of its comments; a
hidden test graded apart reads only the globals its mark names (apart.py); a cell that is not
plain Python (a magic other than %load_ext, %matplotlib and %config) reads every word of its
text. No statement is left out when a Python cell reads names by their text (globals() but with
one name given as a literal, eval, the IPython shell, such a magic), unless it is a hidden test
that says with BY_CODE_NAMES that what it reads by text matters only under the names the
answers' own code uses (lab 01's check that require_level reaches none of the kit's code,
through its globals): such a cell reads the names of its code and those of its strings that
are a name. What is left out prints NOTE instead.

    graded_source(cells, i)   what grading runs of cells[i]: None for the cell as it is
"""

from __future__ import annotations

import ast
import functools
import io
import re
import symtable
import tokenize

from ..kernels.c_cells import MAGIC
from . import apart

C_MAGIC = f"%%{MAGIC} "  # a C cell: C text, no Python reads a name there
# in a hidden test: what it reads by text (a function's __globals__, every global's value) it
# judges only under the names the answers' code uses, which the word rule reads in the answers
BY_CODE_NAMES = "### READS BY TEXT ONLY WHAT THE ANSWERS' CODE NAMES"
_PLAIN_MAGIC = re.compile(r"^[ \t]*%(?:load_ext|matplotlib|config)\b.*$", re.M)  # read no name
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
        readable_names(c)
        for j, c in enumerate(cells)
        if c.cell_type == "code" and j != i and not c.source.lstrip().startswith(C_MAGIC)
    ]
    if any(by_text for _, by_text in others):
        return None
    read = [k for k, s in enumerate(statements)
            if any(n in names for n in _bound_in(s) for names, _ in others)]  # fmt: skip
    if read and read[-1] == len(statements) - 1:
        return None
    ran = source.splitlines()[:statements[read[-1]].end_lineno] if read else []
    return "\n".join([*ran, f"print({NOTE!r})"])


def readable_names(cell) -> tuple[frozenset[str], bool]:
    """(the names a code cell can read of the kernel's, whether it reads names by their text):
    see the module's docstring."""
    meta = _meta(cell)
    return _readable(cell.source, bool(meta.get("grade")) and not meta.get("solution"))


@functools.lru_cache(maxsize=1024)
def _readable(source: str, hidden: bool) -> tuple[frozenset[str], bool]:
    """readable_names of a code cell's source, in a hidden test or not (read once per text:
    graded_source reads every other cell for each self-check)."""
    if hidden and apart.is_apart(source):
        try:  # the kernel runs only the hand-out of the globals its mark names
            return frozenset(apart.kernel_texts(source)), False
        except ValueError:
            pass
    python = _PLAIN_MAGIC.sub("", source)
    try:
        tree = ast.parse(python)
        names = _global_names(symtable.symtable(python, "<cell>", "exec"))
    except SyntaxError:  # not plain Python (a magic), or not valid (`nonlocal` at the top)
        return frozenset(re.findall(r"\w+", source)), bool(_BY_TEXT.search(source))
    by_code_names = hidden and any(line.strip() == BY_CODE_NAMES for line in source.splitlines())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            # a string may name names for a call that reads them (df.query("x > @mine"))
            words = re.findall(r"\w+", node.value)
            names |= {node.value} & set(words) if by_code_names else set(words)
    return frozenset(names), not by_code_names and bool(_BY_TEXT.search(_code_text(source)))


def _global_names(table: symtable.SymbolTable) -> set[str]:
    """The names a cell's code reads or binds in the kernel's namespace: every name of its top
    level and of its class bodies; of a function (a lambda, a comprehension), only the names it
    takes from the globals, not its own locals and arguments."""
    symbols = table.get_symbols()
    if table.get_type() == "function":
        symbols = [s for s in symbols if s.is_global() or s.is_declared_global()]
    found = {s.get_name() for s in symbols}
    for child in table.get_children():
        found |= _global_names(child)
    return found


def _code_text(source: str) -> str:
    """The cell's text without its comments (Python that tokenizes; else as it is)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    return tokenize.untokenize(
        (t.type, "" if t.type == tokenize.COMMENT else t.string, t.start, t.end, t.line)
        for t in tokens
    )
