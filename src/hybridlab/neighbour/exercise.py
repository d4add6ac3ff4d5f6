"""Lab 13's C parts, each the student's own translation unit linked with neighbour_halo.c
(hybridlab.runs.student_c), run for real and judged by what it did:

(a) make_grid + neighbour_exchange: the kernel checks every point against a serial sweep and
    refuses a communicator that is not a 2-D Cartesian one of every rank in the shape asked; the
    trace must show MPI_Cart_create, one neighbourhood collective per iteration on every rank's
    communicator of all the ranks (blocking, or non-blocking and completed before the kernel's
    next sweep reads the halo), each receiving at least the bytes of the rank's halo from its
    neighbours (the tracer's "recv_bytes": a collective of 0 elements moves no halo), and no
    point-to-point call. Each rank's block starts perturbed by a key it draws at run time and
    tells no other rank (neighbour_halo.c, "secret" records), so a rank that sweeps the whole
    grid itself cannot know its neighbours' edges; the judge rebuilds the perturbed start from
    the records (secret_start, out of the cell's reach) and compares the checksum with its own
    sweep of it;
(c) solve_overlapped: the kernel checks the grid, the iterations (one more than the blocking
    loop: the convergence test one iteration late) and the residual; the trace must show one
    MPI_Iallreduce over every rank per iteration tested, nothing but non-blocking reductions and
    their completions, and every iteration after the first computed (the kit's jacobi_iteration,
    whose computing is recorded) between the posting of a reduction and its completion, and no
    reduction's send buffer changed while it was in flight (MPI 3.0, section 5.12: the tracer
    hashes it at the posting and again at the completion of its request, and counts the stores
    into its first 32 bytes in between with the x86 debug registers on every thread, so a value
    written and put back before the completion counts too; "send_changed" in the completion's
    record; a library that copied the one double at the posting gives the right numbers all the
    same). Every byte of each reduction's send buffer is watched so: a reduction of more than
    the residual's RESIDUAL_BYTES is refused (the residual is one value; beyond the debug
    registers' 32 bytes, or the hashed 4 KiB, a store put back or left was unseen), as is one
    whose buffer the registers cover only in part (the posting's "watched": four registers,
    shared by the reductions in flight). Where perf_event_open is refused the hash alone judges,
    and the check prints a note.

    kernel = build_student_neighbour(code)
    check_student_neighbour(kernel, shapes=((4, 2, 2),), nx=12, ny=10)   # AssertionError if not

and the lab's measurements on 2 ranks x 1 thread, bound to cores: lab 04's hand-written exchange
(halo2d, rows, two MPI_Sendrecv) beside the student's neighbourhood collective on the same grid as
2 x 1 and 1 x 2 process grids, and the kit's blocking residual beside the student's overlapped one
per grid size (the per-iteration tables are the student's to compute: the lab's graded part).

    runs = exchange_runs(kernel, n=512, iterations=200)             # {label: Results}
    pairs = residual_runs(residual_kernel, sizes=(64, 256), iterations=400)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..halo.serial import initial2d
from ..kernels.build import Kernel
from ..runs.launch import run_program
from ..runs.records import SENDRECVS, Results
from ..runs.student_c import (
    BLOCKING,
    COLLECTIVES,
    COMPLETES,
    build_student,
    overlap_table,
    run_student,
)

LEVEL = "funneled"  # the kernel calls the student's code from its main thread only
NEIGHBOURHOOD = ("MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw")
# their non-blocking forms (MPI 3.0, section 7.7): one counts once its request is completed
POSTED = ("MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw")
# what completes a posted one: MPI_Wait or MPI_Test on its request, MPI_Waitall or MPI_Testall
# given it among theirs, MPI_Waitany, _Waitsome, _Testany or _Testsome that completed it (the
# tracer records the request; the requests given, or of some, the ones completed)
COMPLETES_ONE = ("MPI_Wait", "MPI_Test")
COMPLETES_MANY = ("MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testany",
                  "MPI_Testsome")  # fmt: skip
POINT_TO_POINT = (*BLOCKING, *SENDRECVS, "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend",
                  "MPI_Irecv", "MPI_Send_init", "MPI_Recv_init", "MPI_Psend_init", "MPI_Precv_init")  # fmt: skip
# (a): what else could move the halo: a collective that carries data, a shared window, or
# reductions of more than a few values (REDUCTION_BYTES per rank and iteration: a length or a
# flag is fine; a halo cut into small reductions is not)
REDUCTIONS = ("MPI_Reduce", "MPI_Allreduce", "MPI_Iallreduce")
ELSEWHERE = (*(c for c in COLLECTIVES if c not in ("MPI_Barrier", "MPI_Ibarrier", *REDUCTIONS)),
             "MPI_Win_allocate_shared", "MPI_Win_shared_query", "MPI_Neighbor_allgather",
             "MPI_Neighbor_allgatherv", "MPI_Ineighbor_allgather",
             "MPI_Ineighbor_allgatherv")  # fmt: skip
REDUCTION_BYTES = 16
# (b) may call these only: the reduction, its completion, and the communicator's size and rank.
RESIDUAL_CALLS = ("MPI_Iallreduce", *COMPLETES, "MPI_Comm_rank", "MPI_Comm_size")
# (b)'s reduction carries the residual, one double (a pair of parity slots: two, 16 bytes), so
# that the debug registers (32 bytes) and the hash watch all of its send buffer in flight
RESIDUAL_BYTES = 16


def build_student_neighbour(code: str, name: str = "student_neighbour") -> Kernel:
    """(a): the cell's make_grid and neighbour_exchange with neighbour_halo (variant=student)."""
    return build_student(name, "neighbour_halo", "HL_STUDENT_NEIGHBOUR", code,
                         ("make_grid", "neighbour_exchange"))  # fmt: skip


def build_student_residual(code: str, name: str = "student_residual") -> Kernel:
    """(b): the cell's solve_overlapped with neighbour_halo (variant=overlap)."""
    return build_student(name, "neighbour_halo", "HL_STUDENT_RESIDUAL", code, ("solve_overlapped",))


def student_calls(res: Results) -> pd.DataFrame:
    """The MPI calls the cell made (not the kernel's own), in time order."""
    calls = res.mpi_calls
    return calls[calls["student"] == 1].sort_values("start")


SECRET_WORDS = 32  # a rank's key in 64-bit words (neighbour_halo.c)
SECRET_FIELDS = ("key", "row0", "col0", "rows", "cols", "px", "py", "prow", "pcol")
SECRET_NOTE = ("(each rank's block starts perturbed by values only that rank knows, drawn for "
               "each run: the halo must come from the neighbours, by the neighbourhood collective)")


def _mix64(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 (wrapping), as neighbour_halo.c's mix64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def perturbation(key: str, at: np.ndarray) -> np.ndarray:
    """neighbour_halo.c's perturbation of the global points at indices `at` (row * (nx + 2) +
    column) from a block's key (SECRET_WORDS words of 16 hex digits): every word decides it."""
    if len(key) != 16 * SECRET_WORDS:
        raise ValueError(f"a key of {len(key)} hex digits, not {16 * SECRET_WORDS}")
    h = np.asarray(at, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in range(SECRET_WORDS):
            h = _mix64(h + np.uint64(int(key[16 * w:16 * w + 16], 16)))
    return (h >> np.uint64(12)).astype(np.float64) * 2.0**-52


def secret_start(nx: int, ny: int, secrets: pd.DataFrame) -> np.ndarray:
    """The (ny + 2) x (nx + 2) start of the student variant's grid: lab 04's start plus each
    block's perturbation from its "secret" record (one per rank: its key and place). ValueError
    when the records do not tile the interior once."""
    u = initial2d(nx, ny)
    covered = np.zeros((ny + 2, nx + 2), dtype=int)
    for rec in secrets.itertuples():
        r0, c0, m, n = int(rec.row0), int(rec.col0), int(rec.rows), int(rec.cols)
        if r0 < 1 or c0 < 1 or m < 1 or n < 1 or r0 + m - 1 > ny or c0 + n - 1 > nx:
            raise ValueError(f"a block of {m} x {n} at ({r0}, {c0}) outside the grid")
        i = np.arange(r0, r0 + m)[:, None]
        j = np.arange(c0, c0 + n)[None, :]
        u[r0:r0 + m, c0:c0 + n] += perturbation(str(rec.key), i * (nx + 2) + j)
        covered[r0:r0 + m, c0:c0 + n] += 1
    if not (covered[1:-1, 1:-1] == 1).all():
        raise ValueError("the blocks of the secret records do not tile the grid once")
    return u


def sweep_checksum(u: np.ndarray, iterations: int) -> float:
    """The interior's sum after `iterations` Jacobi sweeps of grid u (boundary included), added
    as neighbour_halo.c adds each point's four neighbours."""
    u = u.copy()
    for _ in range(iterations):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return float(u[1:-1, 1:-1].sum())


def halo_bytes(secrets: pd.DataFrame) -> dict[int, int]:
    """Per rank: the bytes of its halo that come from neighbours (a row of `cols` doubles from
    the process above and below, a column of `rows` from the left and right, where one is)."""
    out = {}
    for rec in secrets.itertuples():
        rows_from = (int(rec.prow) > 0) + (int(rec.prow) < int(rec.px) - 1)
        cols_from = (int(rec.pcol) > 0) + (int(rec.pcol) < int(rec.py) - 1)
        out[int(rec.rank)] = 8 * (rows_from * int(rec.cols) + cols_from * int(rec.rows))
    return out


def _secrets(res: Results, ranks: int, where: str) -> pd.DataFrame:
    """The kernel's "secret" records, one per rank (AssertionError naming what is missing)."""
    recs = res.records
    secrets = recs[recs["record"] == "secret"] if "record" in recs else recs.iloc[0:0]
    ok = len(secrets) == ranks and sorted(secrets["rank"].astype(int)) == list(range(ranks))
    assert ok and all(f in secrets for f in SECRET_FIELDS), (
        f"{where}: the kernel's secret records are missing or odd ({len(secrets)} for {ranks} "
        "ranks)")
    return secrets


def _members(comm: str) -> set[int]:
    return {int(x) for x in str(comm).split(",") if x.strip().isdigit()}


def _checksum(res: Results) -> float:
    return float(res.records.query("record == 'checksum'")["checksum"].iloc[0])


def _completed(posted, calls: pd.DataFrame, until: float) -> bool:
    """Whether a posted neighbourhood collective's request was completed by the same rank after
    it and before `until` (the start of the kernel's next sweep)."""
    after = calls[(calls["rank"] == posted.rank) & (calls["start"] >= posted.end)
                  & (calls["end"] <= until) & (calls["done"] == 1)]  # fmt: skip
    one = after["call"].isin(COMPLETES_ONE) & (after["request"] == posted.request)
    given = after["requests"].astype(str).str.split(",").apply(lambda r: str(posted.request) in r)
    return bool((one | (after["call"].isin(COMPLETES_MANY) & given)).any())


def changed_sends(calls: pd.DataFrame) -> pd.Series:
    """Per rank: how many non-blocking collectives' send buffers changed between their posting
    and their completion (the tracer's "send_changed" on the completion that took each request:
    hl_trace.c, HL_POSTED); ranks without one left out."""
    if calls.empty or "send_changed" not in calls:
        return pd.Series(dtype=int)
    changed = pd.to_numeric(calls["send_changed"], errors="coerce").fillna(0).astype(int)
    per_rank = changed.groupby(calls["rank"]).sum()
    return per_rank[per_rank > 0]


def unwatched_postings(posted: pd.DataFrame) -> pd.DataFrame:
    """The postings whose send buffer was not wholly watched in flight: larger than
    RESIDUAL_BYTES, or (where perf_event_open was not refused: "watch" >= 0) with fewer of its
    "bytes" covered by the debug registers than it has ("watched": hl_trace.c, HL_POSTED)."""
    if posted.empty:
        return posted
    size = pd.to_numeric(posted["bytes"], errors="coerce").fillna(0)
    watch = pd.to_numeric(posted["watch"], errors="coerce").fillna(0)
    watched = pd.to_numeric(posted["watched"], errors="coerce").fillna(0)
    return posted[(size > RESIDUAL_BYTES) | ((watch >= 0) & (watched < size))]


def watch_note(calls: pd.DataFrame) -> str:
    """A note when the debug registers could not watch a posting's send buffer (the tracer's
    "watch" on the posting: -errno when perf_event_open was refused), or "": then only a send
    buffer still changed at its completion is seen, not one written and put back."""
    if calls.empty or "watch" not in calls:
        return ""
    watch = pd.to_numeric(calls["watch"], errors="coerce").fillna(0).astype(int)
    refused = watch[watch < 0]
    if refused.empty:
        return ""
    return (f"note: this machine refused the hardware watch of send buffers (perf_event_open: "
            f"errno {-int(refused.iloc[0])}) for {len(refused)} posting(s): a send buffer was "
            "judged by its bytes at the posting and at the completion alone")


def _stores(calls: pd.DataFrame, rank: int) -> str:
    """", N stores counted in flight" for a rank whose completions' debug registers counted."""
    if "send_writes" not in calls:
        return ""
    writes = pd.to_numeric(calls.loc[calls["rank"] == rank, "send_writes"], errors="coerce")
    counted = int(writes[writes > 0].sum())
    return f", {counted} store(s) into it counted while in flight" if counted else ""


def late_completions(res: Results) -> list[str]:
    """The non-blocking neighbourhood collectives (POSTED) of the student's calls not completed
    before the kernel's next sweep on their rank (the kit's computing intervals), as
    "MPI_Ineighbor_alltoallw on rank 1" lines; [] when every one was."""
    calls = student_calls(res)
    sweeps = res.compute if not res.compute.empty else pd.DataFrame(columns=["rank", "start"])
    late = []
    for posted in calls[calls["call"].isin(POSTED)].itertuples():
        later = sweeps.loc[(sweeps["rank"] == posted.rank) & (sweeps["start"] >= posted.end), "start"]
        until = float(later.min()) if len(later) else float("inf")
        if not _completed(posted, calls, until):
            late.append(f"{posted.call} on rank {posted.rank}")
    return late


def check_student_neighbour(
    kernel: Kernel,
    shapes: tuple[tuple[int, int, int], ...] = ((4, 2, 2),),
    nx: int = 12,
    ny: int = 10,
    iterations: int = 4,
    threads: int = 1,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's neighbourhood halo at every (ranks, px, py) (0: the student's
    MPI_Dims_create chooses) and judge it; AssertionError naming the first fault. One row per
    shape: the process grid the communicator had, the checksum and numpy's (of the start the
    ranks' secret records give)."""
    rows = []
    for ranks, px, py in shapes:
        where = f"{ranks} ranks, process grid {px} x {py} asked, grid {nx} x {ny}"
        try:
            res = run_student(kernel, ranks, threads, LEVEL, timeout, variant="student", nx=nx,
                              ny=ny, iterations=iterations, px=px, py=py)  # fmt: skip
        except AssertionError as wrong:
            raise AssertionError(f"{wrong} {SECRET_NOTE}") from None
        secrets = _secrets(res, ranks, where)
        try:
            want = sweep_checksum(secret_start(nx, ny, secrets), iterations)
        except ValueError as bad:
            raise AssertionError(f"{where}: the kernel's secret records are odd: {bad}") from None
        got = _checksum(res)
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
            f"{where}: checksum {got!r}, numpy's {want!r} {SECRET_NOTE}")
        calls = student_calls(res)
        p2p = sorted(set(calls["call"]) & set(POINT_TO_POINT))
        assert not p2p, f"{where}: the halo went by point-to-point calls ({', '.join(p2p)}), not " \
                        "by a neighbourhood collective"
        other = sorted(set(calls["call"]) & set(ELSEWHERE))
        assert not other, f"{where}: {', '.join(other)}: the halo goes by the neighbourhood " \
                          "collective alone, not by another collective or a shared window"
        reduced = calls[calls["call"].isin(REDUCTIONS)].groupby("rank")["bytes"].sum()
        assert (reduced <= REDUCTION_BYTES * iterations).all(), (
            f"{where}: reductions of {int(reduced.max())} bytes on rank {int(reduced.idxmax())} "
            f"in {iterations} iterations: the halo goes by the neighbourhood collective alone "
            f"(a reduction of a value or two, {REDUCTION_BYTES} bytes an iteration at most, such "
            "as a length, is fine)")
        made = calls[calls["call"] == "MPI_Cart_create"].groupby("rank").size()
        assert len(made) == ranks, f"{where}: every rank makes the communicator with MPI_Cart_create"
        assert "MPI_Dist_graph_create_adjacent" not in set(calls["call"]), (
            f"{where}: the process grid is a Cartesian topology (MPI_Cart_create), not a graph")
        hood = calls[calls["call"].isin(NEIGHBOURHOOD + POSTED)]
        per_rank = hood.groupby("rank").size().reindex(range(ranks), fill_value=0)
        assert (per_rank == iterations).all(), (
            f"{where}: {iterations} iterations, neighbourhood collectives per rank "
            f"{per_rank.to_dict()}: one MPI_Neighbor_alltoall(v/w) per iteration exchanges the halo "
            "(or one MPI_Ineighbor_alltoall(v/w) completed in the same call)")
        late = late_completions(res)
        assert not late, (
            f"{where}: {late[0]} was not completed before the next sweep read the halo: complete "
            "it (MPI_Wait on its request) before neighbour_exchange returns")
        changed = changed_sends(calls)
        assert changed.empty, (
            f"{where}: rank {int(changed.index[0])} changed the send buffer of a neighbourhood "
            f"collective while it was in flight{_stores(calls, int(changed.index[0]))}: the send "
            "buffer must stay untouched until the collective completes (MPI 3.0, section 5.12)")
        note = watch_note(calls)
        if note:
            print(note)
        everyone = set(range(ranks))
        bad = [c for c in hood["comm"] if _members(c) != everyone]
        assert not bad, f"{where}: a neighbourhood collective on the ranks {bad[0]}, not on all"
        need = halo_bytes(secrets)
        got_bytes = pd.to_numeric(hood.get("recv_bytes", pd.Series(-1, index=hood.index)),
                                  errors="coerce").fillna(-1)
        short = [(int(r), int(b)) for r, b in zip(hood["rank"], got_bytes, strict=True)
                 if b < need.get(int(r), 0)]
        assert not short, (
            f"{where}: a neighbourhood collective on rank {short[0][0]} received {short[0][1]} "
            f"bytes from its neighbours; its halo is {need.get(short[0][0], 0)} bytes: every "
            "iteration's collective brings the whole halo from the neighbours")
        dims = res.records.query("record == 'timer'")[["px", "py"]].iloc[0]
        rows.append({"ranks": ranks, "asked": f"{px} x {py}",
                     "process grid": f"{int(dims['px'])} x {int(dims['py'])}",
                     "checksum": got, "numpy": want})  # fmt: skip
    return rows


def computed_in_windows(res: Results) -> pd.Series:
    """Per rank: how many of the kit's computing intervals started after a reduction was posted
    and ended before it completed (student_c.overlap_table's windows)."""
    windows = overlap_table(res)
    windows = windows[windows["window"] >= 0]
    work = res.compute
    counts = {}
    for rank, mine in work.groupby("rank"):
        open_ = windows[windows["rank"] == rank]
        counts[rank] = sum(
            bool(((open_["start"] <= w.start) & (w.end <= open_["end"])).any())
            for w in mine.itertuples()
        )
    return pd.Series(counts, name="computed inside", dtype=int)


def check_student_residual(
    kernel: Kernel,
    ranks: int = 2,
    nx: int = 24,
    ny: int = 16,
    iterations: int = 30,
    tolerance: float = 0.0,
    threads: int = 1,
    timeout: float = 30.0,
) -> dict:
    """Run the student's overlapped residual and judge it; AssertionError naming the first
    fault. Returns the iterations done, the residual and how many iterations each rank computed
    while a reduction was in flight."""
    where = f"{ranks} ranks, grid {nx} x {ny}, at most {iterations} iterations, tolerance {tolerance:g}"
    res = run_student(kernel, ranks, threads, LEVEL, timeout, variant="overlap", nx=nx, ny=ny,
                      iterations=iterations, tolerance=tolerance)  # fmt: skip
    check = res.records.query("record == 'check'").iloc[0]
    done = int(check["iterations"])
    calls = student_calls(res)
    other = sorted(set(calls["call"]) - set(RESIDUAL_CALLS))
    assert not other, (f"{where}: your code called {', '.join(other)}; the residual is reduced "
                       "with MPI_Iallreduce and completed with MPI_Wait or MPI_Test")  # fmt: skip
    posted = calls[calls["call"] == "MPI_Iallreduce"]
    per_rank = posted.groupby("rank").size().reindex(range(ranks), fill_value=0)
    assert ((per_rank >= done - 1) & (per_rank <= done)).all(), (
        f"{where}: {done} iterations, MPI_Iallreduce calls per rank {per_rank.to_dict()}: one "
        "reduction per iteration tested")
    bad = [c for c in posted["comm"] if _members(c) != set(range(ranks))]
    assert not bad, f"{where}: a reduction over the ranks {bad[0]}, not over every rank"
    unwatched = unwatched_postings(posted)
    if not unwatched.empty:
        first = unwatched.iloc[0]
        raise AssertionError(
            f"{where}: rank {int(first['rank'])} posted an MPI_Iallreduce of {int(first['bytes'])} "
            f"bytes whose send buffer the kit could not watch whole while in flight (the debug "
            f"registers covered {max(int(first['watched']), 0)} bytes of it): the residual is one "
            f"value, reduce it alone (a reduction of {RESIDUAL_BYTES} bytes at most), one reduction "
            "in flight at a time, its send buffer untouched until it completes")
    changed = changed_sends(calls)
    assert changed.empty, (
        f"{where}: rank {int(changed.index[0])} changed an MPI_Iallreduce's send buffer while "
        f"the reduction was in flight ({int(changed.iloc[0])} times"
        f"{_stores(calls, int(changed.index[0]))}): the send buffer must stay untouched until "
        "the reduction completes (MPI 3.0, section 5.12), even if its bytes are put back before "
        "it; compute the next iteration's value into another buffer")
    note = watch_note(calls)
    if note:
        print(note)
    inside = computed_in_windows(res).reindex(range(ranks), fill_value=0)
    assert (inside >= done - 1).all(), (
        f"{where}: iterations computed while a reduction was in flight, per rank "
        f"{inside.to_dict()}, of {done}: post MPI_Iallreduce, call jacobi_iteration for the next "
        "iteration, then complete the reduction (a Wait straight after posting overlaps nothing)")
    return {"ranks": ranks, "iterations": done, "expected": int(check["expected_iterations"]),
            "residual": float(check["residual"]),
            "computed while reducing (min over ranks)": int(inside.min())}  # fmt: skip


# ------------------------------------------------------------------------ the lab's own runs

RANKS = 2
# the measured runs judge no send buffer: the tracer arms no debug registers in them (arming costs
# some 10 us a thread and posting, more than a 64 x 64 grid's iteration; hl_trace.c, HL_POSTED)
MEASURED = {"HL_WATCH_STORES": "0"}


def exchange_runs(kernel: Kernel, n: int, iterations: int, bind: str = "cores") -> dict[str, Results]:
    """An n x n grid, `iterations` iterations, each exchange on 2 ranks: lab 04's rows
    (halo2d pure), then the student's neighbourhood collective on 2 x 1 and 1 x 2 grids."""
    common = dict(ranks=RANKS, threads=1, bind=bind, nx=n, ny=n, iterations=iterations,
                  env=MEASURED)  # fmt: skip
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
                      iterations=iterations, env=MEASURED)  # fmt: skip
        out.append((n, run_program("neighbour_halo", variant="blocking", **common),
                    run_program(kernel, variant="overlap", **common)))  # fmt: skip
    return out
