"""Hybrid C written by a student in a notebook cell, built into one of the kit's kernels and run.

A lab's exercise module names the kernel file (kernels_c/<kernel>.c, which declares the student's
functions under `#ifdef <define>`) and the functions the cell must define; the student's code is
appended to that file and built with every MPI call traced (hybridlab.compliance), so one run
answers three questions: is the result right (the kernel's own "check" record), did it finish
(MPI_Send is synchronous, so an unsafe order deadlocks for certain and ends as KernelTimeout
after `timeout` seconds), and did only the threads the level
allows call MPI (ThreadComplianceError).

    kernel = build_student("student_nodes", "node_sum", "HL_STUDENT_NODES", code, ("node_sum",))
    res = run_student(kernel, ranks=4, threads=2, level="funneled", variant="student", ...)
"""

from __future__ import annotations

import re

from . import compliance
from .build import Kernel, build_source
from .launch import run_program
from .records import WHERE_COLUMNS, Results

# A standard send may legally wait for its receive (MPICH buffers small ones instead, which hides
# unsafe orderings on one machine): in the student's code MPI_Send always waits (MPI_Ssend).
SYNCHRONOUS = ("-DHL_SYNCHRONOUS_SENDS",)
_NOT_SHOWN = {"record", "ok", *WHERE_COLUMNS}


def build_student(
    name: str, kernel: str, define: str, code: str, functions: tuple[str, ...]
) -> Kernel:
    """kernels_c/<kernel>.c with `define` set and the student's `code` after it, MPI traced.
    NotImplementedError while the cell is the unanswered skeleton; BuildError names the lines."""
    if "NotImplementedError" in code or "YOUR CODE HERE" in code:
        raise NotImplementedError("write the C code in the cell above first")
    missing = [f for f in functions if not re.search(rf"\b{f}\s*\(", code)]
    if missing:
        raise ValueError(f"the code must define {', '.join(missing)} (see the skeleton)")
    source = f'#define {define} 1\n#include "{kernel}.c"\n{code}'
    return build_source(name, source, SYNCHRONOUS, trace_mpi=True)


def run_student(
    kernel: Kernel, ranks: int, threads: int, level: str, timeout: float = 60.0, **params
) -> Results:
    """Run the student's kernel under `level`; AssertionError with the kernel's own check when the
    result is wrong, ThreadComplianceError when a call needs a higher level than `level`."""
    res = run_program(kernel, ranks=ranks, threads=threads, thread_level=level, timeout=timeout,
                      **params)
    check = res.records[res.records["record"] == "check"]
    assert len(check) == 1, f"{kernel.name}: the kernel wrote no check record"
    row = check.iloc[0]
    if not int(row["ok"]):
        shown = ", ".join(
            f"{k}={row[k]}" for k in check.columns if k not in _NOT_SHOWN and row[k] == row[k]
        )
        raise AssertionError(f"{ranks} ranks x {threads} threads, {params}: wrong result ({shown})")
    compliance.check(res, level)
    return res
