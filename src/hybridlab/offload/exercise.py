"""Lab 15's runs: kernels_c/offload_halo.c built with clang for LLVM's host offload plugin
(kernels.build.offload_flags: devices with memory of their own on any machine), each rank's
block on device rank % devices, with the offload runtime's report (LIBOMPTARGET_INFO) read by
the kernel while the variant runs.

    status()                                    # the offload target's probe: .ready, .message
    runs = variant_runs(nx=256, ny=256, iterations=50)   # {variant: Results}
    kernel = build_student_offload(JACOBI_C)    # (b): the cell's jacobi_offload, traced
    got = run_student_offload(kernel, ranks=2, nx=40, ny=20, iterations=8)  # plain data

The student's unit is judged from its objects (host and device) before it is linked
(kernels.unit_checks: it may not write to stderr, where the report is read); what it did, from
the kernel's records (the report's bytes and launches, the grid's checksums), never its output.
"""

from __future__ import annotations

from ..kernels.build import OFFLOAD_COMPILER, BuildError, Kernel, build, offload_flags
from ..kernels.offload import OffloadStatus, probe
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import build_student

KERNEL = "offload_halo"
VARIANTS = ("resident", "remap", "stale", "host")
LEVEL = "funneled"  # MPI from the main thread, outside parallel regions
# LIBOMPTARGET_INFO's bits (LLVM 14, openmp/libomptarget/include/Debug.h): 0x01 each region
# entered with its arguments, 0x20 each copy between host and device with its size.
REPORT_ENV = {"LIBOMPTARGET_INFO": str(0x01 | 0x20)}


def status() -> OffloadStatus:
    """Whether this machine's clang builds for the host plugin's devices, and why not."""
    return probe()


def _require_offload() -> None:
    """BuildError saying what is missing where clang cannot build for the host plugin."""
    found = status()
    if not found.ready:
        raise BuildError(KERNEL, [OFFLOAD_COMPILER, *offload_flags()],
                         f"lab 15 needs an OpenMP offload target: {found.message}\n")  # fmt: skip


def kit_kernel() -> Kernel:
    """The kit's variants, built for the host plugin's devices."""
    _require_offload()
    return build(KERNEL, offload_flags())


def run_offload(kernel: Kernel, variant: str, ranks: int = 2, timeout: float = 120.0,
                **params) -> Results:  # fmt: skip
    """One run of `variant` on `ranks` x 1 thread with the runtime's report read."""
    return run_program(kernel, ranks=ranks, threads=1, thread_level=LEVEL, timeout=timeout,
                       env=REPORT_ENV, variant=variant, report=1, **params)  # fmt: skip


def variant_runs(nx: int, ny: int, iterations: int, ranks: int = 2,
                 variants: tuple[str, ...] = VARIANTS) -> dict[str, Results]:  # fmt: skip
    """The kit's variants on the same grid, one run each."""
    kernel = kit_kernel()
    return {v: run_offload(kernel, v, ranks, nx=nx, ny=ny, iterations=iterations) for v in variants}


def build_student_offload(code: str, name: str = "student_offload") -> Kernel:
    """(b): the cell's jacobi_offload with offload_halo (variant=student), for the host plugin."""
    _require_offload()
    return build_student(name, KERNEL, "HL_STUDENT_OFFLOAD", code, ("jacobi_offload",),
                         offload_flags())  # fmt: skip


def run_student_offload(kernel: Kernel, ranks: int, nx: int, ny: int, iterations: int) -> dict:
    """The student's loop run on `ranks` x 1 thread: what the grader judges, as plain data (the
    "offload" records, rank 0's checksums, seconds per iteration). ThreadComplianceError for an
    MPI call FUNNELED does not allow."""
    res = run_offload(kernel, "student", ranks, timeout=60.0, nx=nx, ny=ny, iterations=iterations)
    compliance.check(res, LEVEL)
    records = res.records
    checksum = records[records["record"] == "checksum"].iloc[0]
    offload = records[records["record"] == "offload"].dropna(axis=1, how="all")
    times = records[records["record"] == "time"]
    return {
        "offload": offload.to_dict("records"),
        "checksum": float(checksum["checksum"]),
        "weighted": float(checksum["weighted"]),
        "per_iteration": float(times["per_iteration"].max()),
    }
