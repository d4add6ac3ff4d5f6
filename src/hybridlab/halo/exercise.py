"""Lab 04's exercises: build the student's C into halo2d.c and check it; the multi-node runs.

(a) exchange_halos() inside hybrid 1's loop; (d) overlap_iteration(), funnelled with overlap:
the master exchanges the halos while the team computes the rows that do not need them. The
only part of the halo topic that compiles and runs kernels; the answers come from the serial
numpy reference (halo.serial), the thread level from hybridlab.compliance.

    from hybridlab.halo.exercise import build_student_halo, check_student_halo
    check_student_halo(code)        # AssertionError naming the first P x T that differs
    check_student_overlap(build_student_overlap(code))   # also ThreadComplianceError, no overlap

The multi-node section's runs are here too: node_runs(nodes, ...) runs halo3d with its ranks on
several nodes of an allocation, every split of a node's cores, checksums checked.
"""

from __future__ import annotations

import numpy as np

from .. import compliance
from ..build import Kernel, build_source
from ..launch import run_program
from ..records import Results
from .serial import THREAD_LEVEL_3D, check_grid, check_grid3d, jacobi2d, jacobi3d

# halo2d.c turns MPI_Send into MPI_Ssend for the student's code: a standard send may legally
# wait for its receive, and MPICH's buffering would hide an unsafe order on one machine.
STUDENT_SIGNATURE = (
    "void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm)"
)
OVERLAP_SIGNATURE = (
    "void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm)"
)
OVERLAP_LEVEL = "funneled"  # (d): only the master calls MPI
STAGGER_US = 20000  # (d): odd ranks start each iteration 20 ms late, so halos are in flight


def _student_source(macro: str, function: str, signature: str, code: str) -> str:
    """halo2d.c with the student's C function (code of a C cell) appended."""
    if "NotImplementedError" in code or "YOUR CODE HERE" in code:
        raise NotImplementedError(f"write {function} first (the C code in the cell above)")
    if function not in code:
        raise ValueError(f"the code must define {signature} {{ ... }}")
    return f'#define {macro} 1\n#include "halo2d.c"\n{code}'


def student_halo_source(code: str) -> str:
    """The whole kernel: halo2d.c with the student's exchange_halos() (code of a C cell)."""
    return _student_source("HL_STUDENT_EXCHANGE", "exchange_halos", STUDENT_SIGNATURE, code)


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


def build_student_overlap(code: str, name: str = "student_overlap") -> Kernel:
    """Compile the student's overlap_iteration into halo2d (variant=overlap), every MPI call
    recorded with its thread (trace_mpi) for the thread-compliance check."""
    source = _student_source("HL_STUDENT_OVERLAP", "overlap_iteration", OVERLAP_SIGNATURE, code)
    return build_source(name, source, trace_mpi=True)


def check_student_overlap(
    kernel: Kernel,
    shapes: tuple[tuple[int, int], ...] = ((2, 2),),
    nx: int = 24,
    ny: int = 12,
    iterations: int = 3,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's funnelled overlap at every (ranks, threads) and check it.

    Checks, per shape: the checksum equals jacobi2d's (the kernel fails with a clear message when
    an edge row was computed before its halo arrived: the halos hold NaN until then); only the master called MPI (compliance.check, FUNNELED: a
    ThreadComplianceError names the call and thread); with 2+ ranks, 2+ threads and rows that need
    no halo (3+ rows per rank), some were computed while the halos were in flight (the overlap). A deadlock ends as KernelTimeout.
    Returns one row per shape (checksum, rows computed early)."""
    want, _ = jacobi2d(nx, ny, iterations)
    rows = []
    for ranks, threads in shapes:
        check_grid(nx, ny, ranks)
        res = run_program(
            kernel,
            ranks=ranks,
            threads=threads,
            thread_level=OVERLAP_LEVEL,
            timeout=timeout,
            variant="overlap",
            nx=nx,
            ny=ny,
            iterations=iterations,
            stagger_us=STAGGER_US if ranks > 1 else 0,
        )
        rec = res.records[res.records["record"] == "checksum"].iloc[0]
        got, early = float(rec["checksum"]), int(rec["early_rows"])
        where = f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations)"
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
            f"{where}: checksum {got!r}, expected {want!r}: some rows are not the Jacobi update "
            "(every row 1..m once per iteration, from the halos of this iteration)"
        )
        compliance.check(res, OVERLAP_LEVEL)
        if ranks > 1 and threads > 1 and ny // ranks >= 3:  # every rank has interior rows
            assert early > 0, (
                f"{where}: no row was computed while the halos were in flight: the team waited "
                "for the exchange before the interior rows (no overlap)"
            )
        rows.append(
            {
                "ranks": ranks,
                "threads": threads,
                "checksum": got,
                "expected": want,
                "rows computed before the halos arrived": early,
            }
        )
    return rows


def node_runs(
    nodes: int, cores_per_node: int, n: int, iterations: int, timeout: float = 300.0
) -> list[Results]:
    """halo3d on `nodes` nodes for every split of each node's cores into ranks x threads: pure
    MPI with one thread, master only with more (MPI outside the parallel region, as the
    published master-only tables). Each run's checksum is compared with jacobi3d's
    (AssertionError naming the split); splits the grid cannot take are skipped."""
    want, _ = jacobi3d(n, n, n, iterations)
    runs = []
    for threads in (t for t in range(1, cores_per_node + 1) if cores_per_node % t == 0):
        ranks = nodes * cores_per_node // threads
        variant = "pure" if threads == 1 else "masteronly"
        try:
            check_grid3d(n, n, n, ranks, threads, variant)
        except ValueError:
            continue
        res = run_program("halo3d", ranks=ranks, threads=threads, nodes=nodes, bind="cores",
                          thread_level=THREAD_LEVEL_3D[variant], variant=variant, nx=n, ny=n,
                          nz=n, iterations=iterations, timeout=timeout)  # fmt: skip
        got = float(res.records.query("record == 'checksum'")["checksum"].iloc[0])
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
            f"{ranks}x{threads} {variant} on {nodes} nodes: checksum {got!r}, expected {want!r}"
        )
        runs.append(res)
    return runs
