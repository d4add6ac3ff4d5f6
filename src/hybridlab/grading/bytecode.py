"""The kit's bytecode, compiled before a class is graded: sandboxed Pythons cannot write it.

Every Python a submission starts in its sandbox (the kernel, engines and MPI ranks, the
processes that grade parts apart) imports the kit from its source folder, bound read-only.
Where a kit module has no current bytecode beside it (an editable install whose modules were
never imported outside a sandbox, or PYTHONDONTWRITEBYTECODE set), each of those processes
compiles it again: 0.07 CPU s for the 52 kit modules of a lab 02 kernel, in every kernel, rank
and judge of every submission. compile_kit() writes once, before the reference run, the bytecode
Python itself would write (`__pycache__/NAME.cpython-XY.pyc`, used only while its source's
time and size match); current files are left as they are, and a folder the grader may not
write (an installed kit) is left alone.
"""

from __future__ import annotations

import compileall
from pathlib import Path

import hybridlab


def kit_folder() -> Path:
    return Path(hybridlab.__file__).resolve().parent


def compile_kit(folder: Path | None = None) -> None:
    """Bring the bytecode of every module under `folder` (the kit's package) up to date."""
    compileall.compile_dir(folder or kit_folder(), quiet=2)
