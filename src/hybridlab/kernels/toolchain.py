"""The environment every compiler, compiler wrapper and binary tool of a build runs in.

A notebook cell can change os.environ, and a build must not follow it: a fresh attacker pointed
MPICH_CC (or PATH) at a script of their own that compiled lab 01 (a)'s racy kernel with a header
of theirs, and kept 4/4; a `nm` of their own first on PATH would have read the student's object
for the checks. So the variables that choose or steer a compiler, the wrapper, the linker, the
loader or the programs found on PATH are taken as they were when the kit was first imported (in
a graded kernel: before any student cell), the rest as they are now.

    toolchain_env()                          the environment of a host build's commands
    toolchain_env(MPICH_CC="clang")          the kit's own choice of compiler on top
    nm()                                     the nm command the kit reads objects with
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from pathlib import Path

STEERING = re.compile(
    r"PATH|LD_\w+|(?:MPICH|OMPI|OPAL|MPICC|MPI)_\w+|CC|CPP|CFLAGS|CPPFLAGS|LDFLAGS|CPATH|"
    r"C_INCLUDE_PATH|LIBRARY_PATH|GCC_\w+|COMPILER_PATH|CCC_\w+|BINUTILS_\w+"
)
# a tuple of pairs: nothing in it can be changed in place
AT_IMPORT = tuple(sorted((k, v) for k, v in os.environ.items() if STEERING.fullmatch(k)))


def toolchain_env(**chosen: str) -> dict[str, str]:
    """os.environ with every variable that steers a compiler or tool as the kit found it at
    import, and `chosen` (the kit's own choice, such as clang behind mpicc) on top."""
    env = {k: v for k, v in os.environ.items() if not STEERING.fullmatch(k)}
    env.update(AT_IMPORT)
    env.update(chosen)
    return env


@functools.lru_cache(maxsize=1)
def nm() -> tuple[str, ...]:
    """nm with GCC's LTO plugin named: unnamed, nm loads every plugin of its folder
    (<prefix>/lib/bfd-plugins) at each start, LLVM's LLVMgold.so too, 17 of its 19 CPU ms a
    call (a graded solution of lab 04 or 12 runs it 29-42 times). The objects the kit reads
    are ELF, which no plugin reads; GCC's reads GCC's LTO objects as before. Plain nm when
    there is no such plugin."""
    found = shutil.which("nm", path=dict(AT_IMPORT).get("PATH", os.defpath))
    if found:
        plugin = Path(found).parent.parent / "lib" / "bfd-plugins" / "liblto_plugin.so"
        if plugin.is_file():
            return ("nm", "--plugin", str(plugin))
    return ("nm",)
