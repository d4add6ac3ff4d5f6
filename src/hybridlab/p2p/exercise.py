"""Lab 03's exercise: the student's overlap_exchange() built into p2p_overlap.c and checked.

The master thread starts MPI_Isend/MPI_Irecv, the team computes, the master polls with MPI_Test
inside its share of the loop. The check: every received value and step result (the kernel
checks them and fails naming the first wrong one), only the master calls MPI (FUNNELED,
hybridlab.compliance), MPI_Test is called while computing, and no deadlock (MPI_Send is
synchronous in the student's code; a hang ends as KernelTimeout). Hidden tests also run the
student's Python answers with the kit's fits unavailable (without_kit).

    kernel = build_student_overlap(code)
    check_student_overlap(kernel)      # AssertionError / ThreadComplianceError / KernelError
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, MutableMapping

from .. import compliance
from ..build import Kernel, build_source
from ..launch import run_program
from . import hockney

SIGNATURE = (
    "void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm, "
    "long steps, long poll)"
)
LEVEL = "funneled"  # only the master calls MPI
POLLS = ("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome")
KIT_ANSWERS = ("hockney_fit", "find_protocol_switch", "piecewise_hockney")  # (a) and (b)


def student_source(code: str) -> str:
    """p2p_overlap.c with the student's overlap_exchange() (code of a C cell) appended."""
    if "NotImplementedError" in code or "YOUR CODE HERE" in code:
        raise NotImplementedError("write overlap_exchange first (the C code in the cell above)")
    if "overlap_exchange" not in code:
        raise ValueError(f"the code must define {SIGNATURE} {{ ... }}")
    return f'#define HL_STUDENT_P2P_OVERLAP 1\n#include "p2p_overlap.c"\n{code}'


def build_student_overlap(code: str, name: str = "student_p2p_overlap") -> Kernel:
    """Compile the student's overlap into p2p_overlap (variant student), MPI calls traced."""
    return build_source(name, student_source(code), trace_mpi=True)


def check_student_overlap(
    kernel: Kernel,
    threads: tuple[int, ...] = (1, 2),
    bytes: int = 65536,
    steps: int = 64,
    flops: int = 2000,
    poll: int = 4,
    samples: int = 2,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's overlap on 2 ranks for each thread count and check it (see module).
    Returns one row per thread count: the MPI_Test calls made per sample."""
    rows = []
    for t in threads:
        res = run_program(kernel, ranks=2, threads=t, thread_level=LEVEL, timeout=timeout,
                          variants="student", bytes=bytes, steps=steps, flops=flops, poll=poll,
                          samples=samples)  # fmt: skip
        compliance.check(res, LEVEL)
        calls = compliance.calls_table(res)
        polls = int(calls[calls["call"].isin(POLLS)]["calls"].sum())
        assert polls >= 2 * (samples + 1), (
            f"2 ranks x {t} threads: {polls} MPI_Test calls in {samples + 1} samples on 2 ranks: "
            "the master must poll (MPI_Test) while it computes its share of the steps"
        )
        rows.append(
            {"threads": t, "MPI_Test calls per rank and sample": polls / (2 * (samples + 1))}
        )
    return rows


@contextlib.contextmanager
def without_kit(namespace: MutableMapping[str, object]) -> Iterator[None]:
    """While inside, the kit's Hockney fits raise, in hybridlab.p2p.hockney and wherever
    `namespace` (a notebook's globals()) holds them, under any name: a student's function graded
    inside cannot lean on them."""

    def unavailable(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the kit's Hockney fits are not available while your answer is graded")

    saved = {n: getattr(hockney, n) for n in KIT_ANSWERS}
    kit = {id(f) for f in saved.values()}
    shadowed = {n: v for n, v in list(namespace.items()) if id(v) in kit}
    try:
        for n in KIT_ANSWERS:
            setattr(hockney, n, unavailable)
        for n in shadowed:
            namespace[n] = unavailable
        yield
    finally:
        for n, f in saved.items():
            setattr(hockney, n, f)
        namespace.update(shadowed)
