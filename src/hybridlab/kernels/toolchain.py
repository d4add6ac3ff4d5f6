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
import subprocess
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


# The MPI compiler wrapper run directly: MPICH's mpicc is a bash script that runs `expr` once per
# argument and `dirname`, `sed` and friends (28 ms of CPU for a build's compile line of 20 flags,
# 10-12 compile lines in a graded solution's kernel and as many in its parts graded apart). What
# it runs is the compiler it wraps with its own flags around the command's arguments, which the
# wrapper itself says (`mpicc -show`, MPICH's and Open MPI's): read once per process for each kind
# of command (compile, preprocess, link) and environment that steers it (MPICH_CC, OMPI_CC, PATH:
# an offload or Archer build's clang), then the compiler runs without the wrapper.
_MARK = "hl-the-commands-arguments"
# a command with one of the wrappers' own options runs the wrapper (-show, -cc=, -profile=, ...)
_WRAPPER_OPTION = re.compile(
    r"-(?:show|showme|echo|nativelinking|static|static-mpi|mpi[-_]abi|compile[-_]info|link[-_]info|help|"
    r"v|lcuda|lcudart|lze_loader)$|-(?:show|cc=|config=|profile=)|--showme"
)
_SPLITS: dict[tuple, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}


def _mode(args: list[str]) -> str:
    """The kind of command, as the wrappers tell them apart: preprocess, compile or link."""
    if any(a in ("-E", "-M", "-MM") for a in args):
        return "-E"
    return "-c" if any(a in ("-c", "-S") for a in args) else ""


def _split(cc: str, mode: str, env: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(the words before the command's arguments, the words after) of the wrapper `cc` for a
    command of `mode`, as `cc -show` says them; None when it cannot say (then the wrapper runs)."""
    key = (cc, mode, tuple(sorted((k, v) for k, v in env.items() if STEERING.fullmatch(k))))
    if key not in _SPLITS:
        found = None
        try:
            done = subprocess.run([cc, "-show", *([mode] if mode else []), _MARK], capture_output=True,
                                  text=True, check=False, timeout=60, env=env)  # fmt: skip
            words = done.stdout.split()
            at = words.index(_MARK) if done.returncode == 0 and words.count(_MARK) == 1 else -1
            before = words[: at - 1] if mode else words[:at]
            if at > 0 and (not mode or words[at - 1] == mode) and before and shutil.which(
                before[0], path=env.get("PATH", os.defpath)
            ):
                found = (tuple(before), tuple(words[at + 1 :]))
        except (OSError, subprocess.SubprocessError):
            pass
        _SPLITS[key] = found
    return _SPLITS[key]


def direct_command(cmd: list[str], env: dict[str, str] | None = None) -> list[str]:
    """`cmd`, a command of the MPI compiler wrapper cmd[0] run in `env`, as the command the wrapper
    would run: its compiler and flags around the arguments (the wrapper's -show); `cmd` as it is
    when the wrapper cannot say or the command uses one of the wrapper's own options."""
    if not cmd or any(_WRAPPER_OPTION.match(a) for a in cmd[1:]):
        return list(cmd)
    split = _split(cmd[0], _mode(cmd[1:]), dict(os.environ) if env is None else env)
    if split is None:
        return list(cmd)
    return [*split[0], *cmd[1:], *split[1]]
