"""Archer: LLVM's data-race detector for OpenMP (ThreadSanitizer told OpenMP's synchronisation).

A kernel built with `archer=True` (hybridlab.kernels.build) is compiled by clang through the MPI
wrapper with `-fsanitize=thread -g`; run with `run_env(folder)` its OpenMP runtime loads
libarcher.so (OMP_TOOL_LIBRARIES), which tells ThreadSanitizer every barrier, task and lock of
the runtime, so a race report means two threads touched one address with nothing of OpenMP's
ordering them. ThreadSanitizer writes its reports to files in `folder` (log_path), the kit's own
channel: never the program's output. `reports(folder)` reads them back as Race records.

Needs clang, libomp (libomp-14-dev on Debian 12, which ships libarcher.so) and the sanitizer
runtime (libclang-rt-14-dev); `missing()` says which is absent, and a lab's live cells skip with
that sentence.
"""

from __future__ import annotations

import glob
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .toolchain import toolchain_env

FLAGS = ("-fsanitize=thread", "-g")  # with DEFAULT_FLAGS' -O2 -fopenmp: a race names its line
COMPILER = "clang"
# the wrappers' variables that name the compiler: MPICH's mpicc and Open MPI's
COMPILER_ENV = {"MPICH_CC": COMPILER, "OMPI_CC": COMPILER}
LIBRARY_GLOBS = ("/usr/lib/llvm-*/lib/libarcher.so", "/usr/lib/x86_64-linux-gnu/libarcher.so",
                 "/usr/local/lib/libarcher.so")  # fmt: skip
INSTALL = "apt-get install clang libomp-14-dev libclang-rt-14-dev (Debian 12)"
LOG_NAME = "tsan"  # ThreadSanitizer writes <folder>/tsan.<pid>
# ThreadSanitizer's entry points for every plain and atomic store and atomic update of a clang
# -fsanitize=thread build, and the copies and fills: what a kernel that counts a cell's writes
# wraps at link time (-Wl,--wrap; labs 06 (e) and 07 (d))
WRITE_ENTRIES = ([f"__tsan_write{s}" for s in (1, 2, 4, 8, 16)]
                 + [f"__tsan_unaligned_write{s}" for s in (2, 4, 8, 16)]
                 + [f"__tsan_atomic{b}_{op}" for b in (8, 16, 32, 64)
                    for op in ("store", "exchange", "compare_exchange_strong", "compare_exchange_weak",
                               "compare_exchange_val", "fetch_add", "fetch_sub", "fetch_and",
                               "fetch_or", "fetch_xor", "fetch_nand")]
                 + ["memcpy", "memmove", "memset"])  # fmt: skip


def library() -> Path | None:
    """libarcher.so, the newest LLVM's first; None when no LLVM OpenMP runtime is installed."""
    found = sorted((p for g in LIBRARY_GLOBS for p in glob.glob(g)), reverse=True)
    return Path(found[0]) if found else None


def _runtime_present() -> bool:
    """The ThreadSanitizer runtime clang links (libclang_rt.tsan), beside clang's resources."""
    import subprocess

    done = subprocess.run([COMPILER, "-print-file-name=libclang_rt.tsan-x86_64.a"],
                          capture_output=True, text=True, check=False, env=toolchain_env())  # fmt: skip
    path = done.stdout.strip()
    if Path(path).is_file():
        return True
    resource = subprocess.run([COMPILER, "-print-resource-dir"], capture_output=True, text=True,
                              check=False, env=toolchain_env()).stdout.strip()  # fmt: skip
    return bool(resource) and any(Path(resource).glob("lib/**/libclang_rt.tsan*"))


def missing() -> str | None:
    """Why Archer cannot run here (a sentence naming what to install), or None."""
    if shutil.which(COMPILER, path=toolchain_env().get("PATH")) is None:
        return f"Archer needs clang, which is not installed: {INSTALL}"
    if library() is None:
        return f"Archer needs libarcher.so (LLVM's OpenMP runtime), not found: {INSTALL}"
    if not _runtime_present():
        return f"Archer needs clang's ThreadSanitizer runtime (libclang_rt.tsan), not found: {INSTALL}"
    return None


def run_env(folder: Path) -> dict[str, str]:
    """The environment a run under Archer gets: the tool loaded, the reports written into
    `folder`, every option the kit's (a student's TSAN_OPTIONS, suppressions or ARCHER_OPTIONS
    are replaced, not added to), and Open MPI's PMIx kept out of ThreadSanitizer's memory."""
    lib = library()
    if lib is None:
        raise RuntimeError(missing() or "no libarcher.so")
    options = {
        "log_path": str(Path(folder) / LOG_NAME),
        "ignore_noninstrumented_modules": "1",  # MPI's and the runtime's own memory accesses
        "exitcode": "0",  # a race is read from the reports, the run itself goes on
        "report_bugs": "1",
        "history_size": "4",
        "suppressions": "",
        "symbolize": "1",
    }
    return {
        "OMP_TOOL_LIBRARIES": str(lib),
        "OMP_TOOL": "enabled",
        "TSAN_OPTIONS": " ".join(f"{k}={v}" for k, v in options.items()),
        "ARCHER_OPTIONS": "verbose=0",
        # Open MPI 5's PMIx keeps its job data in a segment every rank attaches at one fixed
        # address (gds/shmem2), inside the range ThreadSanitizer reserves for its shadow: the
        # rank fails in MPI_Init ("attempted to attach ... at a particular base address"). The
        # hash store has no segment; MPICH does not read the variable.
        "PMIX_MCA_gds": "hash",
    }


@dataclass(frozen=True)
class Race:
    """One ThreadSanitizer report: the two accesses (kind, function, file, line) and the pid."""

    access: str  # "Write of size 8", ...
    where: str  # function file:line of the access reported
    previous: str  # "Previous write of size 8"
    previous_where: str
    pid: int

    def lines(self) -> tuple[str, str]:
        return (self.where.rsplit(" ", 1)[-1], self.previous_where.rsplit(" ", 1)[-1])


_REPORT = re.compile(r"WARNING: ThreadSanitizer: data race \(pid=(\d+)\)\n(.*?)\n(?:SUMMARY|=====)",
                     re.S)  # fmt: skip
_ACCESS = re.compile(r"^  ((?:Previous )?(?:[Aa]tomic )?(?:read|write|Read|Write)[^\n]*?)(?: at 0x\w+)?"
                     r" by [^\n]*:\n((?:\s+#\d+ [^\n]*\n?)+)", re.M)  # fmt: skip
_FRAME = re.compile(r"#\d+ (\S+) (\S+)")
_KIT_ANNOTATION = "hl_archer.h"  # the frame of hl_mpi_wrote: the kernel's line is the next one


# A task reduction's combiner and initializer (clang names them `.red_comb.`, `.red_init.`): the
# runtime runs them on each thread's private copy when the taskgroup ends, after every task that
# added into it, but LLVM 14's Archer does not see that ordering and reports a correct
# `taskloop reduction` or `task_reduction`/`in_reduction` as a race (a fresh attacker's right
# answers to lab 16 (a), 2026-12-05; also in a plain program outside the kit). A report with one
# access in them is that false positive.
_REDUCTION_STEPS = (".red_comb.", ".red_init.")


def parse(text: str) -> list[Race]:
    """The data races of ThreadSanitizer's report text (other warnings are left out, and the
    reports of a task reduction's own combine step: _REDUCTION_STEPS)."""
    races = []
    for match in _REPORT.finditer(text):
        accesses = [(kind, _frame(frames)) for kind, frames in _ACCESS.findall(match.group(2))]
        if len(accesses) >= 2:
            (kind, where), (pkind, pwhere) = accesses[0], accesses[1]
            if not any(w.startswith(_REDUCTION_STEPS) for w in (where, pwhere)):
                races.append(Race(kind, where, pkind, pwhere, int(match.group(1))))
    return races


def _frame(frames: str) -> str:
    """'function file:line' of the first frame that is not the kit's annotation."""
    found = [(fn, _short(where)) for fn, where in _FRAME.findall(frames)]
    mine = [f for f in found if not f[1].startswith(_KIT_ANNOTATION)] or found
    return f"{mine[0][0]} {mine[0][1]}" if mine else "?"


def _short(where: str) -> str:
    """file:line of file:line:column, the file without its folders."""
    parts = Path(where).name.split(":")
    return ":".join(parts[:2])


def reports(folder: Path) -> list[Race]:
    """Every data race ThreadSanitizer reported into `folder` (one file per process)."""
    races: list[Race] = []
    for path in sorted(Path(folder).glob(f"{LOG_NAME}.*")):
        races += parse(path.read_text(errors="replace"))
    return races


def report_text(folder: Path) -> str:
    """The reports as ThreadSanitizer wrote them, every process's after another."""
    return "\n".join(p.read_text(errors="replace") for p in sorted(Path(folder).glob(f"{LOG_NAME}.*")))
