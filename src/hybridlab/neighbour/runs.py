"""Lab 13's measurements on 2 ranks x 1 thread, bound to cores: lab 04's hand-written exchange
(halo2d, rows, two MPI_Sendrecv) beside the student's neighbourhood collective on the same grid
(kernels_c/neighbour_halo.c, variant=student, as 2 x 1 and 1 x 2 process grids), and the kit's
blocking residual beside the student's overlapped one (variant=blocking / overlap) per grid size.
The per-iteration tables are the student's to compute (the lab's graded part).

    runs = exchange_runs(student_kernel, n=512, iterations=200)   # {label: Results}
    pairs = residual_runs(residual_kernel, sizes=(64, 256), iterations=400)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..build import Kernel
from ..launch import run_program
from ..records import Results
from .exercise import LEVEL

RANKS = 2


def exchange_runs(kernel: Kernel, n: int, iterations: int, bind: str = "cores") -> dict[str, Results]:
    """An n x n grid, `iterations` iterations, each exchange on 2 ranks: lab 04's rows
    (halo2d pure), then the student's neighbourhood collective on 2 x 1 and 1 x 2 grids."""
    common = dict(ranks=RANKS, threads=1, bind=bind, nx=n, ny=n, iterations=iterations)
    runs = {"lab 04: 2 x MPI_Sendrecv, 2 x 1": run_program("halo2d", variant="pure", **common)}
    for px, py in ((2, 1), (1, 2)):
        runs[f"neighbourhood collective, {px} x {py}"] = run_program(
            kernel, thread_level=LEVEL, variant="student", px=px, py=py, **common)
    return runs


def residual_runs(kernel: Kernel, sizes: Sequence[int], iterations: int,
                  bind: str = "cores") -> list[tuple[int, Results, Results]]:  # fmt: skip
    """Per grid size n (n x n, rows on 2 ranks): the kit's blocking MPI_Allreduce loop and the
    student's overlapped one, each for `iterations` iterations (no tolerance): (n, blocking,
    overlapped)."""
    out = []
    for n in sizes:
        common = dict(ranks=RANKS, threads=1, bind=bind, thread_level=LEVEL, nx=n, ny=n,
                      iterations=iterations)  # fmt: skip
        out.append((n, run_program("neighbour_halo", variant="blocking", **common),
                    run_program(kernel, variant="overlap", **common)))  # fmt: skip
    return out
