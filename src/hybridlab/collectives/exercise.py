"""The runs of lab 07 (the only module of the topic that launches kernels): the OSU-style
alltoall sweep, pure vs hybrid at the same core count, the ping-pong sweep that gives the
Hockney parameters when lab 03's are not at hand, the 3-D FFT for several P x T, and the
student's two-level alltoall (kernels_c/alltoall_nodes.c) built, run on real and made-up nodes,
and checked against MPI_Alltoall; the alltoall with its ranks on several nodes (across_nodes).

    from hybridlab.collectives.exercise import osu_sweep, fft_runs, measure_hockney
    res = osu_sweep(ranks=2, max_bytes=1 << 20)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import pandas as pd

from ..kernels.build import Kernel
from ..kernels.c_text import code_only
from ..p2p.hockney import PiecewiseHockney, piecewise_hockney
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import build_student, preprocessed, run_student

OSU_COUNTS = {"iterations": 1000, "skip": 100, "iterations_large": 100, "skip_large": 10}
QUICK_COUNTS = {"iterations": 100, "skip": 10, "iterations_large": 20, "skip_large": 2}


def osu_counts(quick: bool = False, scale: float = 1.0) -> dict[str, int]:
    """osu_alltoall's iteration counts (1000/100 up to 8 KiB, 100/10 above), scaled; quick mode
    uses a tenth to a fifth of them."""
    base = QUICK_COUNTS if quick else OSU_COUNTS
    return {k: max(1, int(v * scale)) for k, v in base.items()}


def osu_sweep(
    ranks: int = 2,
    threads: int = 1,
    *,
    op: str = "alltoall",
    min_bytes: int = 1,
    max_bytes: int = 1 << 20,
    quick: bool = False,
    bind: str = "cores",
    samples: int = 1,
    timeout: float = 300.0,
) -> Results:
    """MPI_Alltoall (or Alltoallv) latency from min_bytes to max_bytes, OSU's method and counts.
    bind='cores' needs ranks x threads CPUs; pass bind='none' to oversubscribe (timings then
    mean little: the harness warns)."""
    return run_program(
        "alltoall",
        ranks=ranks,
        threads=threads,
        bind=bind,
        timeout=timeout,
        op=op,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        samples=samples,
        **osu_counts(quick),
    )


def equal_volume(
    n: int,
    cores: int,
    threads: Iterable[int],
    messages: Callable[[int, int, int], tuple[int, int]],
    *,
    quick: bool = False,
    bind: str = "cores",
) -> list[Results]:
    """One alltoall of an n^3 complex grid's transpose for each P x T with P x T = cores, each
    message of the size `messages(n, cores, T)` gives (the student's alltoall_messages: messages
    per rank, bytes per message; ValueError for a split that does not fit, which is skipped)."""
    out = []
    for t in threads:
        try:
            _, size = messages(n, cores, t)
        except ValueError:
            continue
        out.append(
            run_program(
                "alltoall",
                ranks=cores // t,
                threads=t,
                bind=bind,
                timeout=300.0,
                min_bytes=int(size),
                max_bytes=int(size),
                samples=3,
                **osu_counts(quick, scale=0.5),
            )
        )
    return out


def measure_hockney(
    max_bytes: int = 1 << 22, quick: bool = False
) -> tuple[pd.DataFrame, PiecewiseHockney]:
    """Lab 03's ping-pong sweep (kernels_c/pingpong.c, 2 ranks bound to cores) and its two-piece
    Hockney fit: what the lab uses when lab 03's parameters were not saved."""
    counts = {"iterations": 200, "skip": 20, "iterations_large": 30, "skip_large": 3}
    if not quick:
        counts = {"iterations": 1000, "skip": 100, "iterations_large": 100, "skip_large": 10}
    res = run_program(
        "pingpong",
        ranks=2,
        threads=1,
        bind="cores",
        mode="sweep",
        min_bytes=1,
        max_bytes=max_bytes,
        samples=3 if quick else 5,
        **counts,
    )
    sweep = res.records
    return sweep, piecewise_hockney(sweep["bytes"], sweep["seconds"])


def fft_runs(
    shapes: Iterable[tuple[int, int]],
    n: int,
    *,
    repetitions: int = 5,
    schedule: str = "static",
    fft: str = "auto",
    bind: str = "cores",
) -> list[Results]:
    """fft3d for every (ranks, threads) in `shapes` on an n^3 grid; shapes whose ranks do not
    divide n are skipped. Oversubscribed shapes need bind='none'."""
    out = []
    for ranks, threads in shapes:
        if n % ranks:
            continue
        out.append(
            run_program(
                "fft3d",
                ranks=ranks,
                threads=threads,
                bind=bind,
                timeout=300.0,
                n=n,
                repetitions=repetitions,
                schedule=schedule,
                fft=fft,
            )
        )
    return out


# the leader's packing and unpacking loops shared by its threads (task of part (d))
PACKED_BY_THREADS = re.compile(r"#\s*pragma\s+omp\s+(?:parallel\s+for|for|taskloop)\b")


def build_student_alltoall(code: str, name: str = "student_alltoall") -> Kernel:
    """The student's alltoall_nodes() built into alltoall_nodes.c, MPI calls traced.
    NotImplementedError while the C cell is still the released stub: its body keeps the given
    sizes and buffers, so it is not empty, but it makes no MPI call beyond their sizes and ranks."""
    calls = re.findall(r"\b(MPI_\w+)\s*\(", code_only(code))
    if not set(calls) - {"MPI_Comm_size", "MPI_Comm_rank"}:
        raise NotImplementedError("write the three steps in the C cell above first (it is still the stub)")
    return build_student(name, "alltoall_nodes", "HL_STUDENT_ALLTOALL", code, ("alltoall_nodes",))


def assert_packed_by_threads(code: str) -> None:
    """AssertionError unless the cell, preprocessed, shares a loop among OpenMP threads (the
    leader's packing and unpacking: PACKED_BY_THREADS)."""
    assert PACKED_BY_THREADS.search(preprocessed("alltoall_nodes", "HL_STUDENT_ALLTOALL", code)), (
        "alltoall_nodes packs and unpacks the leader's blocks with no OpenMP loop: the leader's "
        "threads share the packing loops (#pragma omp parallel for, or a taskloop), MPI called "
        "outside them")


def check_student_alltoall(
    kernel: Kernel,
    shapes: tuple[tuple[int, int, int], ...] = ((2, 1, 0), (4, 1, 2)),
    count: int = 3,
    reps: int = 3,
    timeout: float = 60.0,
    compare: bool = True,
) -> pd.DataFrame:
    """Run the student's two-level alltoall at each (ranks, threads, ranks_per_node) (0: the real
    nodes; k > 0: nodes of k consecutive ranks) and, with `compare`, MPI_Alltoall beside it. AssertionError when a
    value differs from MPI_Alltoall's, KernelTimeout on a deadlock, ThreadComplianceError when
    MPI is called where FUNNELED does not allow it. One row per shape: nodes and median times."""
    rows = []
    for ranks, threads, per_node in shapes:
        common = {"ranks_per_node": per_node, "count": count, "reps": reps}
        mine = run_student(kernel, ranks, threads, "funneled", timeout, variant="student", **common)
        check = mine.records.query("record == 'check'").iloc[0]
        row = {"ranks": ranks, "threads": threads, "nodes": int(check["nodes"]),
               "ranks_per_node": int(check["ranks_per_node"]),
               "two_level_us": 1e6 * _median_seconds(mine)}
        if compare:
            flat = run_program(kernel, ranks=ranks, threads=threads, timeout=timeout,
                               variant="flat", **common)
            row["mpi_alltoall_us"] = 1e6 * _median_seconds(flat)
        rows.append(row)
    return pd.DataFrame(rows)


def _median_seconds(res: Results) -> float:
    return float(res.records.query("record == 'time'")["seconds"].median())


def across_nodes(
    n: int,
    nodes: int,
    cores_per_node: int,
    messages: Callable[[int, int, int], tuple[int, int]],
    *,
    quick: bool = False,
) -> list[Results]:
    """One transpose of an n^3 grid (equal_volume's alltoall, `messages` as there) with the ranks
    on `nodes` nodes: pure MPI (a rank per core) and one rank per node with a thread per core.
    Unbound (bind='none'): a node may have fewer CPUs than asked."""
    cores = nodes * cores_per_node
    out = []
    for threads in sorted({1, cores_per_node}):
        _, size = messages(n, cores, threads)
        out.append(run_program("alltoall", ranks=cores // threads, threads=threads, nodes=nodes,
                               bind="none", timeout=300.0, min_bytes=int(size),
                               max_bytes=int(size), samples=3,
                               **osu_counts(quick, scale=0.5)))  # fmt: skip
    return out
