"""C cells: a notebook cell whose body is plain C, kept in a variable and compiled at once.

    %load_ext hybridlab.kernels.c_cells          # once, in the lab's first cell

    %%c EXCHANGE_C thread_ring
    int check_thread_level(hl_ctx *ctx) {
        return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");
    }

`%%c NAME [KERNEL]` sets the notebook variable NAME to the cell's C (a string whose line n is
line n of the cell: the magic's own line is kept as an empty first line, so every compiler
message and every later build of NAME names the lines the student sees) and compiles it right
away, reporting the compiler's errors and warnings against those lines:

    KERNEL given   the cell is a student's translation unit written against the kit's public
                   header (hl_student.h) and <KERNEL>_student.h (kernels_c/, else the course's
                   kernels folder: paths.course_kernels_dirs), with the flags the
                   part's build uses (student_c.build_student links and runs it later);
    no KERNEL      the cell is a whole program (its own includes and main).

A cell that is still the released stub (no statement in any function body) is stored and
reported as not written yet; nothing is compiled. JupyterLab shows these cells as C through the
kit's extension (labextension/); nbgrader releases them with a C stub
(hybridlab.grading.c_stub).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from ..paths import find_kernel_file, kernel_dirs
from . import unit_checks
from .build import (
    DEFAULT_FLAGS,
    STUDENT_UNIT_FLAGS,
    TRACE_FLAGS,
    diagnostics,
    include_flags,
    mpicc,
)
from .c_text import code_only
from .toolchain import direct_command, toolchain_env

MAGIC = "c"
STUB = "write the C code in the C cell above first (it is still the stub)"
_NAME = re.compile(r"[A-Za-z_]\w*")


class CCellError(RuntimeError):
    """The cell's C did not compile: the message lists the errors by the cell's line numbers."""

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"\x1b[31m{self}\x1b[0m"]


def unanswered(code: str) -> bool:
    """True while the C is the released stub: with comments and strings taken out, no brace
    block at the top level holds anything (or there is no code at all)."""
    text = code_only(code)
    depth, bodies, outside = 0, [], []
    for char in text:
        if char == "{":
            depth += 1
            if depth == 1:
                bodies.append([])
                continue
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                continue
        (bodies[-1] if depth else outside).append(char)
    if not bodies:
        return not "".join(outside).strip()
    return all(not "".join(body).strip() for body in bodies)


def cell_text(body: str) -> str:
    """The value NAME gets: the magic's line as an empty line, then the body (line n = cell line n)."""
    return "\n" + body.rstrip() + "\n"


def student_headers(kernel: str) -> str:
    """What precedes a C cell written against a kit kernel: the public headers, then the
    cell's own line numbering (`#line 1 "cell"`)."""
    return f'#include "hl_student.h"\n#include "{kernel}_student.h"\n#line 1 "cell"\n'


def compile_check(code: str, kernel: str | None = None) -> list[str]:
    """Compile the cell's C (nothing linked); the warnings as lines "line N: warning: ...".
    CCellError with every error and warning when it does not compile, and, for a cell written
    against a kit kernel, with what the kit refuses in its object or preprocessed unit
    (hybridlab.kernels.unit_checks; the part's exact list of definitions is checked when it is built)."""
    if kernel is None:
        unit, flags = f'#line 1 "cell"\n{code}', DEFAULT_FLAGS
    else:
        if find_kernel_file(f"{kernel}_student.h") is None:
            known = sorted(p.name[: -len("_student.h")] for d in kernel_dirs()
                           for p in d.glob("*_student.h"))  # fmt: skip
            raise ValueError(f"no kit kernel {kernel!r} takes a C cell (known: {', '.join(known)})")
        unit = student_headers(kernel) + code
        flags = (*DEFAULT_FLAGS, *STUDENT_UNIT_FLAGS, *TRACE_FLAGS)
    cmd = [mpicc(), *flags, *include_flags()]
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / "cell.o"
        env = toolchain_env()
        done = subprocess.run(direct_command([*cmd, *unit_checks.DEBUG_FLAGS, "-c", "-x", "c", "-",
                                              "-o", str(obj)], env),
                              input=unit, capture_output=True, text=True, check=False, env=env)  # fmt: skip
        refused = _refusals(kernel, unit, cmd, obj) if kernel and done.returncode == 0 else ""
    lines = code.split("\n")
    shown = []
    for d in diagnostics(done.stderr + refused):
        where = f"line {d.line}" if d.file == "cell" else d.file
        source = lines[d.line - 1].strip() if d.file == "cell" and 0 < d.line <= len(lines) else ""
        shown.append(f"{where}: {d.kind}: {d.message}" + (f"\n    {source}" if source else ""))
    if done.returncode != 0 or refused:
        raise CCellError(
            "the C in this cell does not compile:\n" + ("\n".join(shown) or done.stderr)
        )
    return shown


def _refusals(kernel: str, unit: str, cmd: list[str], obj: Path) -> str:
    """What unit_checks refuses in a compiled cell, as compiler-style lines (see compile_check):
    any name its part's header declares may be defined or called here."""
    declared = unit_checks.header_names(kernel)
    part = unit_checks.Part(declared, declared)
    found = unit_checks.check_symbols(obj, part, None) + unit_checks.check_code(obj)
    found += unit_checks.preprocessed_cell(unit, cmd)[1]
    return "".join(f"{r}\n" for r in found if r.line)


def c_magic(line: str, cell: str, namespace: dict) -> None:
    """The body of `%%c NAME [KERNEL]` (see the module docstring)."""
    args = line.split()
    if not args or len(args) > 2 or not _NAME.fullmatch(args[0]):
        raise ValueError("usage: %%c NAME [KERNEL]: NAME is the variable that keeps the C "
                         "(a Python name), KERNEL the kit kernel it is written against")  # fmt: skip
    code = cell_text(cell)
    namespace[args[0]] = code
    if unanswered(code):
        print(f"{args[0]}: not written yet (the cell is still the stub)")
        return
    warnings = compile_check(code, args[1] if len(args) == 2 else None)
    print(f"{args[0]}: compiled" + (":\n" + "\n".join(warnings) if warnings else ", no warnings"))


def load_ipython_extension(ipython) -> None:
    """`%load_ext hybridlab.kernels.c_cells`: registers the %%c cell magic."""

    def magic(line: str, cell: str) -> None:
        c_magic(line, cell, ipython.user_ns)

    magic.__doc__ = c_magic.__doc__
    ipython.register_magic_function(magic, magic_kind="cell", magic_name=MAGIC)
