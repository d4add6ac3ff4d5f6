"""Lab 03's exercise: the student's overlap_exchange() built into p2p_overlap.c and checked.

The master thread starts MPI_Isend/MPI_Irecv, the team computes, the master polls with MPI_Test
inside its share of the loop. The check: every received value and step result (the kernel
checks them and fails naming the first wrong one), only the master calls MPI (FUNNELED,
hybridlab.compliance), MPI_Test is called while computing, and no deadlock (MPI_Send is
synchronous in the student's code; a hang ends as KernelTimeout). Hidden tests also run the
student's Python answers with the kit's fits unavailable:
`with shortcuts.unavailable(KIT_FITS, namespace=globals()): ...`.

    kernel = build_student_overlap(code)
    check_student_overlap(kernel)      # AssertionError / ThreadComplianceError / KernelError

The multi-node section's runs are here too: path_sweeps(nodes, ...) sweeps a ping-pong inside a
node and across two nodes of an allocation.
"""

from __future__ import annotations

from .. import compliance
from ..build import Kernel
from ..launch import run_program
from ..records import Results
from ..student_c import build_student
from . import hockney
from .paths import ACROSS, INSIDE

SIGNATURE = (
    "void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm, "
    "long steps, long poll)"
)
LEVEL = "funneled"  # only the master calls MPI
POLLS = ("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome")
# what computes the answers of (a) and (b): unavailable while the student's functions are graded
KIT_FITS = (hockney, "hockney_fit", "find_protocol_switch", "piecewise_hockney")


def build_student_overlap(code: str, name: str = "student_p2p_overlap") -> Kernel:
    """Compile the student's overlap into p2p_overlap (variant student), MPI calls traced."""
    return build_student(name, "p2p_overlap", "HL_STUDENT_P2P_OVERLAP", code, ("overlap_exchange",))


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


def path_sweeps(nodes: int, **sweep) -> dict[str, Results]:
    """The ping-pong sweep (mode=sweep, `sweep` = its size range, samples and OSU counts) with
    both ranks on one node, and, when `nodes` >= 2, with one rank on each of two nodes."""
    paths = {INSIDE: 1} | ({ACROSS: 2} if nodes >= 2 else {})
    return {path: run_program("pingpong", ranks=2, threads=1, bind="none", nodes=n,
                              mode="sweep", **sweep)
            for path, n in paths.items()}  # fmt: skip
