"""A C cell's LLVM IR as the kit reads it: clang's `-S -emit-llvm` of the cell's unit, built for
ThreadSanitizer (Archer) as the counted or watched build compiles it, after the sanitizer's pass.

ThreadSanitizer instruments plain stores of 1, 2, 4, 8 or 16 bytes only: a wider or odd-sized
store (a `vector_size(32)` one, a `long double`), or a write made by a target intrinsic
(`llvm.x86.*`, masked stores) or a libatomic call, reaches none of the `__tsan_*` entry points
the kit wraps to count a thread's writes. `odd_writes` finds them, each with its cell line; the
topics (lab 07 (d)'s count of copies, lab 16 (a)'s watch on the bins) say why in their words.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator, Sequence

from . import archer
from .build import (
    DEFAULT_FLAGS,
    STUDENT_UNIT_FLAGS,
    TRACE_FLAGS,
    compiler_env,
    include_flags,
    mpicc,
)
from .toolchain import direct_command

TSAN_STORE_BYTES = (1, 2, 4, 8, 16)
_SIZES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 10, "fp128": 16,
          "ppc_fp128": 16}  # fmt: skip
_STORE = re.compile(r"^\s*store\s+(?:atomic\s+)?(?:volatile\s+)?(<[^>]*>|\[[^\]]*\]|\S+)")
# calls that write memory out of ThreadSanitizer's sight, in every topic
UNSEEN_CALLS = r"llvm\.x86\.[\w.]+|llvm\.masked\.[\w.]+|llvm\.vp\.[\w.]+|__atomic_\w+"
_DBG = re.compile(r"!dbg !(\d+)")
_LOCATION = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)")


def store_bytes(ty: str) -> int | None:
    """The store size in bytes of an LLVM IR type as written (None: an aggregate or unknown)."""
    ty = ty.strip()
    if ty.endswith("*") or ty == "ptr":
        return 8
    if m := re.fullmatch(r"i(\d+)", ty):
        return (int(m.group(1)) + 7) // 8
    if ty in _SIZES:
        return _SIZES[ty]
    if m := re.fullmatch(r"[<\[]\s*(\d+)\s+x\s+(.+?)\s*[>\]]", ty):
        inner = store_bytes(m.group(2))
        return None if inner is None else int(m.group(1)) * inner
    return None


def cell_lines(ir: str) -> dict[str, str]:
    """Debug location id -> cell line, from the IR's DILocation records."""
    return {m.group(1): m.group(2) for ln in ir.splitlines() if (m := _LOCATION.match(ln))}


def where(line: str, lines: dict[str, str]) -> str:
    """'cell line N' for an IR line carrying a debug location, else 'the cell'."""
    dbg = _DBG.search(line)
    return f"cell line {lines[dbg.group(1)]}" if dbg and dbg.group(1) in lines else "the cell"


def odd_writes(ir: str, calls: str = UNSEEN_CALLS) -> Iterator[tuple[str, str, int | None]]:
    """(where, what, size) for each store ThreadSanitizer does not instrument (what: its type,
    size: its bytes, None for an aggregate) and each call of a routine `calls` matches (what: the
    routine, size: -1), in the IR's order."""
    lines = cell_lines(ir)
    called = re.compile(rf"\bcall\b.*?@({calls})\(")
    for ln in ir.splitlines():
        if m := _STORE.match(ln):
            size = store_bytes(m.group(1))
            if size not in TSAN_STORE_BYTES:
                yield where(ln, lines), m.group(1), size
        elif m := called.search(ln):
            yield where(ln, lines), m.group(1), -1


def store_sentence(at: str, ty: str, size: int | None, why: str) -> str:
    """'cell line N: a 32-byte store (<4 x double>), WHY' (an aggregate store has no size)."""
    return f"{at}: a {size or 'aggregate'}{'-byte' if size else ''} store ({ty}), {why}"


def cell_ir(unit: str, flags: Sequence[str], sanitized: bool = True) -> str:
    """A cell's unit (runs.student_c.student_unit: the kernel's headers, then the cell) compiled
    by Archer's clang with the kit's student-unit flags, `flags` and Archer's, as LLVM IR after
    ThreadSanitizer's pass; not `sanitized`: clang's plain IR with debug lines (split_rmw)."""
    tool = archer.FLAGS if sanitized else ("-g",)
    all_flags = (*DEFAULT_FLAGS, *STUDENT_UNIT_FLAGS, *flags, *TRACE_FLAGS, *tool)
    cmd = [mpicc(), *all_flags, *include_flags(), "-S", "-emit-llvm", "-o", "-", "-x", "c", "-"]
    env = compiler_env(archer.FLAGS)
    done = subprocess.run(direct_command(cmd, env), input=unit, capture_output=True, text=True,
                          check=False, timeout=300, env=env)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the kit could not compile the cell to IR: {done.stderr[-2000:]}")
    return done.stdout
