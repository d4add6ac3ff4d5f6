"""Lab 12's runs and exercises on lab 04's 2-D grid (kernels_c/thread_halo.c, hl_grid2d.h).

(a) variant=multiple: the student's thread_comms and exchange_slice, every thread exchanging its
own slice of the halo rows at once; judged by the checksum (halo.serial.jacobi2d) and the trace:
every thread of every rank made point-to-point calls, no message longer than a thread's slice,
calls of different threads inside MPI at the same time, and no (communicator, tag) shared by two
threads of a rank. (b) variant=tasks: the student's task_iteration, OpenMP tasks with `depend`;
judged by the checksum (halo rows are NaN until the exchange fills them), non-blocking calls and
the kit's stencil_rows computing between the posting of the requests and their completion
(student_c.overlap_table). The lab's own runs: the same exchange funneled and multiple beside
lab 04's pure MPI and masteronly, and the kit's MPI-4 partitioned variant.

    kernel = build_student_multiple(code)
    check_student_multiple(kernel, shapes=((2, 2),), nx=24, ny=12)   # AssertionError naming why
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..halo.serial import check_grid, jacobi2d
from ..kernels.build import Kernel, build
from ..kernels.c_cells import unanswered
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import Results, as_frame
from ..runs.student_c import blocking_calls, build_student, overlap_table

LEVEL = "multiple"  # (a) and (b): threads other than the master call MPI, at once
STAGGER_US = 20000  # odd ranks start each exchange 20 ms late: even ranks' threads wait together
OVERLAP_POINTS = 8192  # (b): interior points per rank from which overlap is judged (lab 04's)
ANY_TAG = -1  # MPI_ANY_TAG in MPICH and Open MPI: a receive that matches every tag
POINT_TO_POINT = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Isend",
                  "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv", "MPI_Sendrecv",
                  "MPI_Sendrecv_replace", "MPI_Send_init", "MPI_Recv_init", "MPI_Psend_init",
                  "MPI_Precv_init")  # fmt: skip
_TASK_DEPEND = re.compile(r"#\s*pragma\s+omp\s+task\b[^\n]*\bdepend\s*\(")


def _checksum(res: Results) -> float:
    return float(res.records.query("record == 'checksum'")["checksum"].iloc[0])


def _assert_checksum(res: Results, nx: int, ny: int, iterations: int, where: str) -> float:
    want, _ = jacobi2d(nx, ny, iterations)
    got = _checksum(res)
    assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
        f"{where}: checksum {got!r}, expected {want!r}: the halo rows do not hold the "
        "neighbours' edge rows (every column of both rows, every iteration)")
    return got


def build_student_multiple(code: str, name: str = "student_multiple") -> Kernel:
    """Compile the student's thread_comms and exchange_slice with thread_halo (variant=multiple),
    traced; BuildError names the cell's lines."""
    return build_student(name, "thread_halo", "HL_STUDENT_MULTIPLE", code,
                         ("thread_comms", "exchange_slice"))  # fmt: skip


def build_student_tasks(code: str, name: str = "student_tasks") -> Kernel:
    """Compile the student's task_iteration with thread_halo (variant=tasks), traced; ValueError
    when the code has no `#pragma omp task ... depend(...)`."""
    if not unanswered(code) and not _TASK_DEPEND.search(code):
        raise ValueError("task_iteration must create OpenMP tasks with depend clauses "
                         "(#pragma omp task depend(...))")  # fmt: skip
    return build_student(name, "thread_halo", "HL_STUDENT_TASKS", code, ("task_iteration",))


def point_to_point(res: Results) -> pd.DataFrame:
    """The student's point-to-point calls: rank, thread, call, start, end, comm_id, tag, count."""
    calls = res.mpi_calls
    mine = calls[(calls["student"] == 1) & calls["call"].isin(POINT_TO_POINT)]
    return mine[["rank", "thread", "call", "start", "end", "comm_id", "tag", "count"]]


def shared_keys(calls: pd.DataFrame) -> list[str]:
    """Per rank, the (communicator, tag) pairs two threads both used (a receive on MPI_ANY_TAG
    matches every tag of its communicator): where messages of different threads could match."""
    out = []
    for rank, mine in calls.groupby("rank"):
        users: dict[tuple[int, int], set[int]] = {}
        for c in mine.itertuples():
            users.setdefault((int(c.comm_id), int(c.tag)), set()).add(int(c.thread))
        for (comm, tag), threads in users.items():
            wild = {t for (c2, g2), ts in users.items() if c2 == comm and ANY_TAG in (tag, g2)
                    for t in ts}  # fmt: skip
            if len(threads | wild) > 1:
                shown = "MPI_ANY_TAG" if tag == ANY_TAG else f"tag {tag}"
                out.append(f"rank {rank}: threads {sorted(threads | wild)} on one communicator "
                           f"with {shown}")  # fmt: skip
    return sorted(set(out))


def concurrent_threads(res: Results) -> pd.Series:
    """Per rank: how many of the student's MPI calls began while a call of another thread of the
    rank was inside MPI."""
    calls, counts = res.mpi_calls[res.mpi_calls["student"] == 1], {}
    for rank, mine in calls.sort_values("start").groupby("rank"):
        rows, n = list(mine.itertuples()), 0
        for i, c in enumerate(rows):
            n += any(o.thread != c.thread and o.start <= c.start < o.end for o in rows[:i])
        counts[rank] = n
    return pd.Series(counts, name="concurrent", dtype=int)


def _run_checked(kernel: Kernel, variant: str, ranks: int, threads: int, nx: int, ny: int,
                 iterations: int, timeout: float) -> tuple[Results, str, float]:
    """Run the student's `variant` at MULTIPLE (odd ranks staggered) and check its checksum and
    thread compliance: (results, where it ran, checksum)."""
    check_grid(nx, ny, ranks)
    res = run_program(kernel, ranks=ranks, threads=threads, thread_level=LEVEL, variant=variant,
                      nx=nx, ny=ny, iterations=iterations,
                      stagger_us=STAGGER_US if ranks > 1 else 0, timeout=timeout)  # fmt: skip
    where = f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations)"
    got = _assert_checksum(res, nx, ny, iterations, where)
    compliance.check(res, LEVEL)
    return res, where, got


def check_student_multiple(
    kernel: Kernel,
    shapes: tuple[tuple[int, int], ...] = ((2, 2),),
    nx: int = 24,
    ny: int = 12,
    iterations: int = 4,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's MULTIPLE exchange at every (ranks, threads) and judge it.

    Checks, per shape: the checksum equals jacobi2d's; with 2+ ranks and 2+ threads, every thread
    of every rank made point-to-point calls, as many as every other thread of its rank (not
    thread 0 alone, nor thread 0 for all beside calls for show: that is FUNNELED), none sent or
    received more than ceil(nx / threads) values in one call (its slice), calls of different
    threads were inside MPI at the same time on some rank (odd ranks start each exchange
    STAGGER_US late, so the even ranks' threads wait inside MPI together), and no (communicator, tag) is shared by two threads
    of a rank. A deadlock ends as KernelTimeout. Returns one row per shape."""
    rows = []
    for ranks, threads in shapes:
        res, where, got = _run_checked(kernel, "multiple", ranks, threads, nx, ny, iterations,
                                       timeout)  # fmt: skip
        calls = point_to_point(res)
        row = {"ranks": ranks, "threads": threads, "checksum": got}
        if ranks > 1 and threads > 1:
            silent = [f"rank {r} thread {t}" for r in range(ranks) for t in range(threads)
                      if calls[(calls["rank"] == r) & (calls["thread"] == t)].empty]  # fmt: skip
            assert not silent, (f"{where}: {', '.join(silent)} made no point-to-point call: every "
                                "thread exchanges its own slice (thread 0 sending for all is "
                                "the FUNNELED pattern)")  # fmt: skip
            made = calls.groupby(["rank", "thread"]).size()
            uneven = [f"rank {r}: {dict(made.loc[r].items())}" for r in range(ranks)
                      if made.loc[r].nunique() > 1]  # fmt: skip
            assert not uneven, (f"{where}: point-to-point calls per thread, {'; '.join(uneven)}: "
                                "every thread exchanges its own slice with as many calls as the "
                                "others (one thread moving the slices of all, the others making "
                                "calls for show, is the FUNNELED pattern)")  # fmt: skip
            most = math.ceil(nx / threads)
            big = calls[calls["count"] > most]
            assert big.empty, (
                f"{where}: {big['call'].iloc[0] if len(big) else ''} of "
                f"{int(big['count'].max()) if len(big) else 0} values by thread "
                f"{int(big['thread'].iloc[0]) if len(big) else 0}: a thread moves its own slice "
                f"(at most {most} of the {nx} columns), not the whole row")
            shared = shared_keys(calls)
            assert not shared, (f"{where}: {shared[0]}: give each thread its own communicator "
                                "(or its own tags) so its messages cannot match another "
                                "thread's")  # fmt: skip
            together = concurrent_threads(res)
            assert (together > 0).any(), (
                f"{where}: on no rank did a call begin while another thread of the rank was "
                "inside MPI (the even ranks' threads wait for the late odd ranks together): the "
                "threads took turns (a critical section or a "
                "lock around MPI is SERIALIZED, not MULTIPLE)")
            row["calls inside MPI together"] = int(together.sum())
        rows.append(row)
    return rows


def check_student_tasks(
    kernel: Kernel,
    shapes: tuple[tuple[int, int], ...] = ((2, 2),),
    nx: int = 256,
    ny: int = 160,
    iterations: int = 3,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's task iteration at every (ranks, threads) and judge it.

    Checks, per shape: the checksum equals jacobi2d's (a row next to a halo computed before its
    message arrived reads NaN); no blocking point-to-point call (student_c.blocking_calls); with
    2+ ranks, 2+ threads and OVERLAP_POINTS interior points per rank, stencil_rows computed
    between the posting of the requests and their completion (student_c.overlap_table), some of
    it by a thread other than the one that posted them. Returns one row per shape."""
    rows = []
    for ranks, threads in shapes:
        res, where, got = _run_checked(kernel, "tasks", ranks, threads, nx, ny, iterations,
                                       timeout)  # fmt: skip
        blocking = blocking_calls(res)
        assert not blocking, (f"{where}: {', '.join(blocking)}: post MPI_Irecv and MPI_Isend in a "
                              "task and complete them with MPI_Waitall, so the other tasks run "
                              "while the messages travel")  # fmt: skip
        inside = 0.0
        if ranks > 1 and threads > 1 and (ny // ranks - 2) * nx >= OVERLAP_POINTS:
            windows = overlap_table(res)
            inside = float(windows["computed_inside"].sum())
            assert inside > 0.0, (
                f"{where}: no row was computed between the posting of the requests and their "
                "completion: the interior rows wait for the exchange (a depend on the halo, a "
                "taskwait, or the exchange done before the tasks) - no overlap")
            assert float(windows["computed_inside_by_others"].sum()) > 0.0, (
                f"{where}: only the thread that posted the requests computed while they were "
                "open: the tasks must let the other threads compute the interior while one "
                "thread communicates")
        rows.append({"ranks": ranks, "threads": threads, "checksum": got,
                     "seconds computed while the halos were in flight": inside})  # fmt: skip
    return rows


# ------------------------------------------------------------------------ the lab's own runs


def _named(res: Results, name: str) -> pd.DataFrame:
    """A run's records with its variant renamed (two runs of one variant at two levels)."""
    return as_frame(res).assign(variant=name)


def comparison_runs(ranks: int, threads: int, n: int, iterations: int, bind: str,
                    multiple: Kernel | None = None) -> list[pd.DataFrame]:  # fmt: skip
    """One n x n grid, ranks x threads: lab 04's pure MPI (ranks * threads ranks) and masteronly
    (hybrid1), the sliced exchange funneled at FUNNELED and at MULTIPLE, and the student's
    multiple (when built), as records with the variant naming the level."""
    common = dict(threads=threads, bind=bind, nx=n, ny=n, iterations=iterations)
    runs = [
        _named(run_program("halo2d", ranks=ranks * threads, threads=1, bind=bind, variant="pure",
                           nx=n, ny=n, iterations=iterations), "pure MPI"),  # fmt: skip
        _named(run_program("halo2d", ranks=ranks, thread_level="funneled", variant="hybrid1",
                           **common), "masteronly"),  # fmt: skip
        _named(run_program("thread_halo", ranks=ranks, thread_level="funneled",
                           variant="funneled", **common), "funneled@FUNNELED"),  # fmt: skip
        _named(run_program("thread_halo", ranks=ranks, thread_level=LEVEL, variant="funneled",
                           **common), "funneled@MULTIPLE"),  # fmt: skip
    ]
    if multiple is not None:
        runs.append(_named(run_program(multiple, ranks=ranks, thread_level=LEVEL,
                                       variant="multiple", **common), "multiple@MULTIPLE"))  # fmt: skip
    return runs


def timer_records(run: pd.DataFrame) -> pd.DataFrame:
    """The "timer" records of a run (one row per rank, thread and phase)."""
    return run[run["record"] == "timer"].reset_index(drop=True)


def partitioned_run(ranks: int, threads: int, nx: int, ny: int, iterations: int,
                    bind: str = "none") -> Results:  # fmt: skip
    """The kit's MPI-4 partitioned variant, traced (which thread called MPI_Pready and
    MPI_Parrived). Where the library is older than MPI 4.0 the run holds one "skipped" record
    with the reason (partitioned_skipped) and nothing ran."""
    return run_program(build("thread_halo", trace_mpi=True), ranks=ranks, threads=threads,
                       bind=bind, thread_level=LEVEL, variant="partitioned", nx=nx, ny=ny,
                       iterations=iterations)  # fmt: skip


def partitioned_skipped(res: Results) -> str:
    """Why a partitioned run did not run (empty when it ran)."""
    skipped = res.records[res.records["record"] == "skipped"]
    return "" if skipped.empty else str(skipped["reason"].iloc[0])
