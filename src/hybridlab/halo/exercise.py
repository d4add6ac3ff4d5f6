"""Lab 04's exercise: build the student's exchange_halos() into halo2d.c and check it.

The only part of the halo topic that compiles and runs kernels; the answers come from the serial
numpy reference (halo.serial).

    from hybridlab.halo.exercise import build_student_halo, check_student_halo
    check_student_halo(code)        # AssertionError naming the first P x T that differs
"""

from __future__ import annotations

import numpy as np

from ..build import Kernel, build_source
from ..launch import run_program
from .serial import check_grid, jacobi2d

# MPI_Send may legally wait for the matching receive (the standard allows it; MPICH buffers
# instead, which hides unsafe orderings on one machine): the exercise makes it do so.
STUDENT_PROLOGUE = (
    "#define HL_STUDENT_EXCHANGE 1\n"
    '#include "halo2d.c"\n'
    "/* a standard send is allowed to wait for its receive: here it always does */\n"
    "#define MPI_Send MPI_Ssend\n"
)
STUDENT_SIGNATURE = (
    "void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm)"
)


def student_halo_source(code: str) -> str:
    """The whole kernel: halo2d.c with the student's exchange_halos() (code of a C cell)."""
    if "NotImplementedError" in code or "YOUR CODE HERE" in code:
        raise NotImplementedError("write exchange_halos first (the C code in the cell above)")
    if "exchange_halos" not in code:
        raise ValueError(f"the code must define {STUDENT_SIGNATURE} {{ ... }}")
    return STUDENT_PROLOGUE + code


def build_student_halo(code: str, name: str = "student_halo"):
    """Compile the student's exchange into halo2d (variant=student); BuildError names lines."""
    return build_source(name, student_halo_source(code))


def check_student_halo(
    code_or_kernel,
    shapes: tuple[tuple[int, int], ...] = ((1, 1), (2, 1), (3, 1), (2, 2)),
    nx: int = 13,
    ny: int = 11,
    iterations: int = 5,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's exchange at every (ranks, threads) and compare with jacobi2d.

    Raises AssertionError naming the first P x T whose checksum differs; a deadlock ends as a
    KernelTimeout after `timeout` seconds. Returns one row per shape (checksums)."""
    kernel = code_or_kernel
    if not isinstance(kernel, Kernel):
        kernel = build_student_halo(str(code_or_kernel))
    want, want_delta = jacobi2d(nx, ny, iterations)
    rows = []
    for ranks, threads in shapes:
        check_grid(nx, ny, ranks)
        res = run_program(
            kernel,
            ranks=ranks,
            threads=threads,
            timeout=timeout,
            variant="student",
            nx=nx,
            ny=ny,
            iterations=iterations,
        )
        rec = res.records[res.records["record"] == "checksum"]
        got = float(rec["checksum"].iloc[0])
        ok = bool(np.isclose(got, want, rtol=1e-12, atol=0))
        rows.append({"ranks": ranks, "threads": threads, "checksum": got, "expected": want})
        assert ok, (
            f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations): checksum {got!r}, expected "
            f"{want!r}: the halo rows do not hold the neighbours' edge rows"
        )
    return rows
