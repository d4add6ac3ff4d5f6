"""Lab 04's runs and exercises: the variants checked against numpy, the time breakdowns per
P x T (2-D and 3-D), a traced run, the master's share, square against rectangular domains and
the schedules; and the student's C, its own unit linked with halo2d.c (hybridlab.runs.student_c), checked:
(a) exchange_halos() inside hybrid 1's loop; (d) overlap_iteration(), funnelled with overlap: the
master exchanges the halos while the team computes the rows that do not need them, judged from
the trace. The only part of the halo topic that
compiles and runs kernels; the answers come from the serial numpy reference (halo.serial), the
thread level from hybridlab.runs.compliance. The multi-node section's runs are here too:
node_runs(nodes, ...) runs halo3d with its ranks on several nodes of an allocation, every split of
a node's cores, checksums checked.

    runs2 = breakdown_runs_2d(SHAPES, n=256, iterations=10)      # every variant at every P x T
    square = shape_runs(256, 256, pure_ranks=4, ranks=2, threads=2, bind="cores", iterations=10)

    from hybridlab.halo.exercise import build_student_halo, check_student_halo
    check_student_halo(code)        # AssertionError naming the first P x T that differs
    check_student_overlap(build_student_overlap(code))   # also ThreadComplianceError, no overlap
                                                         # (from the trace's timestamps)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import KernelError
from ..kernels.build import Kernel
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import SENDRECVS, Results
from ..runs.student_c import (
    BLOCKING,
    COMPLETES,
    NONBLOCKING,
    POSTS,
    SENDS,
    SETUPS,
    blocking_calls,
    build_student,
    freed_in_flight,
    step_windows,
)
from .serial import (
    THREAD_LEVEL_2D,
    THREAD_LEVEL_3D,
    VARIANTS_2D,
    VARIANTS_3D,
    check_grid,
    check_grid3d,
    drawn_start2d,
    jacobi2d,
    jacobi2d_grid,
    jacobi3d,
)
from .tables import breakdown_table

# The student's C is its own translation unit (hybridlab.runs.student_c): compiled against
# halo2d_student.h, traced, MPI_Send made synchronous (an order that needs buffering hangs).
OVERLAP_LEVEL = "funneled"  # (d): only the master calls MPI
# (d): a rank starts an iteration 40 ms late, so its neighbours' halos are in flight: odd ranks
# in even iterations, even ranks in odd ones (hl_grid2d.h's run_poisoned), so that every rank has
# long windows in half of its iterations (with odd ranks always 20 ms late, a fresh attacker's
# G04d_oddblock blocked on the odd ranks, whose windows were all short, and kept 4/4 twice,
# 2026-12-06; 40 ms: a loaded machine's drift between the ranks left some 20 ms windows a few
# ms long)
STAGGER_US = 40000
# (d): interior points per rank from which overlap is judged: fewer are computed in less time
# than the master takes to post its requests, so even an overlapping code may show none.
OVERLAP_POINTS = 8192
# (d): in the runs the overlap is judged on, every row stencil_rows computes also takes this
# long (the kit's helper sleeps): a rank's interior then takes milliseconds, as a wide grid's
# would, so a loaded machine pausing a thread for a timeslice does not decide the verdict.
ROW_US = 50
# (d): iterations in which rows were held back for after the Wait refuse a run: the master
# computing interior rows after its Wait while a free thread had finished, or a free thread
# idle for more than HELD_IDLE seconds of the window between its rows (5 ms: a held-back thread
# idles for most of a window the stagger makes long), or WAITED_IDLE in the master's wait
# before its first row, and computing rows after it. Counted over the run, on
# every rank, whatever the other iterations do (as lab 03 (d)'s STRUCTURAL blocked samples): a
# dynamic schedule shows either only when the machine pauses a free thread for that long in a
# window (rare, and never twice in a run in practice)
KEPT_SHARES = 2
HELD_IDLE = 0.005
# (d): a free thread idle in its master's wait before its first row (the team held at a barrier
# round the wait, the interior after it: a blocking exchange) for more than a quarter of the
# stagger, in an iteration its rank started on time (staggered), held its rows back. Measured at
# load 11-14 (f36, 2026-12-06): with the 40 ms stagger no honest free thread idled there for
# 1 ms (8 honest answers and the solution, 27 runs), the blocking attempts 12-70 ms, most
# 30-45 ms; with a 20 ms stagger one honest free thread a paused machine held 12 ms in 450 such
# iterations, and the late rank's free thread, waking from the kit's barrier after the
# master's sleep, 2-7 ms into a short wait (not judged there)
WAITED_IDLE = STAGGER_US * 1e-6 / 4
# (d): a window long enough for all of the interior (its distinct rows at the median time a row
# took) must see at least this share of them computed inside it, in a third of such windows at
# least (the interior computed before the requests were posted, or after, fails; rows computed
# again and again before the posting do not make the window look short)
COVERED = 0.5


# (a): in its runs rank r calls exchange_halos this late in the iterations where r + iteration is
# a multiple of 3 (halo2d.c), so the rows from above arrive first in some iterations and those
# from below in others (a rank's two neighbours are late in different ones): a halo placed by
# the messages' arrival order rather than their source lands in the wrong row. Without it every
# middle rank got the row from above first, in every run, as the ranks left the iteration's
# MPI_Allreduce in rank order, and MPI_Mprobe(MPI_ANY_SOURCE) + MPI_Mrecv into the halo of
# the k-th message found kept 4/4 (f40, 2026-12-06). 20 ms: more than a loaded machine's drift.
ARRIVAL_STAGGER_US = 20000
# The student's runs whose timing no check reads (every shape of (a); the shapes of (d) too small
# to judge overlap on: checksum, calls and thread level only) run with OpenMP's idle threads
# sleeping (OMP_WAIT_POLICY=passive), not spinning: on the grader's oversubscribed cores each
# rank's team spun through its barriers for nothing (the solution's hidden runs of (a) 0.90 ->
# 0.73 CPU s, (d)'s small ones 1.21 -> 0.45: means of 3 alternated sets, 2 CPUs at load 42,
# 2026-12-06). The run (d) judges overlap on keeps the default: its idle-time thresholds were
# measured with it.
UNTIMED_ENV = {"OMP_WAIT_POLICY": "passive"}


def _grid_run(kernel, ranks: int, threads: int, variant: str, nx: int, ny: int, iterations: int,
              **options) -> Results:  # fmt: skip
    """One halo2d run (kit or student kernel) on a grid the ranks can share (ValueError if not)."""
    check_grid(nx, ny, ranks)
    return run_program(kernel, ranks=ranks, threads=threads, variant=variant, nx=nx, ny=ny,
                       iterations=iterations, **options)  # fmt: skip


def _checksum(res: Results) -> pd.Series:
    """The checksum record of a halo run."""
    return res.records[res.records["record"] == "checksum"].iloc[0]


def build_student_halo(code: str, name: str = "student_halo") -> Kernel:
    """Compile the student's exchange_halos (code of a C cell) with halo2d (variant=student);
    BuildError names the cell's lines."""
    return build_student(name, "halo2d", "HL_STUDENT_EXCHANGE", code, ("exchange_halos",))


def check_student_halo(
    code_or_kernel,
    shapes: tuple[tuple[int, int], ...] = ((1, 1), (2, 1), (3, 1), (2, 2)),
    nx: int = 13,
    ny: int = 11,
    iterations: int = 5,
    timeout: float = 30.0,
    stagger_us: int = ARRIVAL_STAGGER_US,
) -> list[dict]:
    """Run the student's exchange at every (ranks, threads) and compare with jacobi2d from the
    run's own start (each rank's block drawn afresh: drawn_checksum). Rank r calls the exchange
    `stagger_us` late in the iterations where r + iteration is a multiple of 3 (halo2d.c), so a
    rank's neighbours' rows arrive in either order: a halo placed by arrival order, not by its
    source, lands in the wrong row in some iteration.

    Raises AssertionError naming the first P x T whose checksum differs; a deadlock ends as a
    KernelTimeout after `timeout` seconds. Returns one row per shape (checksums)."""
    kernel = code_or_kernel
    if not isinstance(kernel, Kernel):
        kernel = build_student_halo(str(code_or_kernel))
    rows = []
    for ranks, threads in shapes:
        res = _grid_run(kernel, ranks, threads, "student", nx, ny, iterations, timeout=timeout,
                        stagger_us=stagger_us, env=UNTIMED_ENV)  # fmt: skip
        got = float(_checksum(res)["checksum"])
        grid = drawn_grid(res, nx, ny, iterations, ranks)
        want = float(grid[1:-1, 1:-1].sum())
        ok = bool(np.isclose(got, want, rtol=1e-12, atol=0))
        rows.append({"ranks": ranks, "threads": threads, "checksum": got, "expected": want})
        assert ok, (
            f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations): checksum {got!r}, expected "
            f"{want!r}: the halo rows do not hold the neighbours' edge rows (each rank's block "
            "starts with a part drawn for the run that no other rank knows: a halo row can only "
            "come from the neighbour's message)"
        )
        _exchanged_by_messages(res, f"{ranks}x{threads} ({nx}x{ny})", kernel)
        by_row, want_by_row = _row_checksum(res), row_weighted(grid)
        assert by_row is not None and bool(np.isclose(by_row, want_by_row, rtol=1e-12, atol=0)), (
            f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations): the sum weighted by row is "
            f"{by_row!r}, expected {want_by_row!r} (the plain sum is right): a halo row landed in "
            "the other halo, the row from above in row `m + 1` or the one from below in row 0. "
            "Here the rows arrive in either order (a rank is late in some iterations): place "
            "each by its source, not by the order the messages come in"
        )
    return rows


def drawn_checksum(res: Results, nx: int, ny: int, iterations: int, ranks: int) -> float:
    """numpy's checksum of a variant-student run from its own start: the formula plus each rank's
    drawn part (serial.drawn_start2d), from the secret each rank wrote to the tracer's stream
    before the student's code ran ("halo_start" records: halo2d.c's draw_start). A fresh
    attacker's G04a_redundant swept its halo rows itself from the start formula, behind
    messages of the halo's shape that carried a row count, and kept 4/4 twice while the start
    was the formula alone (2026-12-05)."""
    return float(drawn_grid(res, nx, ny, iterations, ranks)[1:-1, 1:-1].sum())


def drawn_grid(res: Results, nx: int, ny: int, iterations: int, ranks: int) -> np.ndarray:
    """numpy's whole grid (boundary included) of a variant-student run from its own start
    (drawn_checksum's: its interior sums to the checksum)."""
    records = res.records
    drawn = (records[records["record"] == "halo_start"] if "record" in records.columns
             else records.iloc[0:0])
    secrets = {int(r.rank): int(str(r.secret), 16) for r in drawn.itertuples()} if len(drawn) else {}
    assert sorted(secrets) == list(range(ranks)), (
        f"{ranks} ranks: the kernel's start records came from ranks {sorted(secrets)}: the run "
        "is not the kit's halo2d (variant student)")
    return jacobi2d_grid(nx, ny, iterations, start=drawn_start2d(nx, ny, [secrets[r] for r in range(ranks)]))[0]


def row_weighted(grid: np.ndarray) -> float:
    """The interior's sum with each value weighted by its global row 1..ny (halo2d.c's
    emit_row_checksum): a rank's two halos swapped change it, not the plain sum."""
    inner = grid[1:-1, 1:-1]
    return float((np.arange(1, inner.shape[0] + 1, dtype=np.float64) * inner.sum(axis=1)).sum())


def _row_checksum(res: Results) -> float | None:
    """Rank 0's "row_checksum" record of a variant-student run (None without one)."""
    rec = res.records
    rows = rec[rec["record"] == "row_checksum"] if "record" in rec.columns else rec.iloc[0:0]
    return float(rows["checksum"].iloc[0]) if len(rows) else None


ANY_SOURCE = -2  # the tracer's peer of a receive from MPI_ANY_SOURCE (kernels_c/hl_trace.c)
# a row may travel as a derived datatype the cell builds, commits and frees (a message's "bytes"
# in the trace are then its count times the type's size: one row is still nx or nx + 2 doubles)
TYPE_CALLS = ("MPI_Type_contiguous", "MPI_Type_vector", "MPI_Type_create_hvector",
              "MPI_Type_indexed", "MPI_Type_create_subarray", "MPI_Type_create_resized",
              "MPI_Type_commit", "MPI_Type_free")  # fmt: skip
# persistent point-to-point requests: set up, started, completed by a wait or test, then freed
PERSISTENT = ("MPI_Send_init", "MPI_Recv_init", "MPI_Start", "MPI_Startall")
# MPI-4 partitioned requests are persistent point-to-point requests too, each to one peer, the
# send's partitions marked ready (a fresh attacker's right answer z04ar_partitioned2, one
# partition per row, lost 4/4 by name as "not a message to up and down", 2026-12-06)
PARTITIONED = ("MPI_Psend_init", "MPI_Precv_init", "MPI_Pready", "MPI_Pready_range",
               "MPI_Pready_list", "MPI_Parrived")  # fmt: skip
# a probe moves nothing; a matched probe takes the message it found out of matching and its
# MPI_Mrecv or MPI_Imrecv receives exactly that one, which the tracer records as a receive from
# the source MPI matched (a fresh attacker's right answer z04ar_mprobe, MPI_Mprobe from
# MPI_ANY_SOURCE and the halo chosen by the status's source, was refused at build as untraced,
# 2026-12-06)
PROBES = ("MPI_Probe", "MPI_Iprobe", "MPI_Get_count", "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv",
          "MPI_Imrecv")  # fmt: skip
# (d): the calls a cell may make: the halo rows' own non-blocking messages and their completion
OVERLAP_CALLS = ("MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv", *COMPLETES,
                 "MPI_Comm_rank", "MPI_Comm_size", *TYPE_CALLS)  # fmt: skip
# (a) sends its rows and receives its neighbours' with these, from the master (hybrid 1); an
# MPI_Request_free only of a persistent request not in flight (freed_in_flight); MPI-4's
# non-blocking send-receive as well as the blocking ones (a fresh attacker's right answer
# T04ar_isendrecv, one MPI_Isendrecv per direction and MPI_Waitall, lost 4/4 by name while
# MPI_Sendrecv_replace kept its points, 2026-12-05)
EXCHANGE_CALLS = (*OVERLAP_CALLS, *BLOCKING, *PERSISTENT, *PARTITIONED, *PROBES,
                  "MPI_Request_free", "MPI_Isendrecv", "MPI_Isendrecv_replace")  # fmt: skip
# every call that sends a message, with the peer and tag the trace records for its send side
SENDING = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", *SENDS, "MPI_Sendrecv",
           "MPI_Sendrecv_replace", "MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Send_init",
           "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Psend_init")  # fmt: skip


def _exchanged_by_messages(res: Results, where: str, kernel: Kernel | None = None) -> None:
    """exchange_halos moved the rows by point-to-point messages it completed, each to or from
    `up` or `down` (astray_messages), called from the master outside the team (FUNNELED):
    AssertionError or ThreadComplianceError naming what not."""
    calls = res.mpi_calls
    mine = set(calls[calls["student"] == 1]["call"]) if len(calls) else set()
    other = sorted(mine - set(EXCHANGE_CALLS))
    assert not other, (
        f"{where}: exchange_halos called {', '.join(other)}{_line_of(kernel, other)}, which "
        f"{'is' if len(other) == 1 else 'are'} not among this part's calls: the rows travel as "
        "messages to `up` and `down`, sends and receives (blocking, non-blocking, persistent or "
        "MPI-4 partitioned, or a matched probe's MPI_Mrecv), each request completed by a wait "
        "or test; a row may be a datatype of your own, committed and freed. A collective, a "
        "window or one-sided call, or anything else moving a row, is another method")
    own = calls[calls["student"] == 1]
    if "MPI_Request_free" not in mine:  # no request freed: none freed in flight (no walk)
        freed = []
    elif "request" in own.columns:
        freed = freed_in_flight(own)
    else:  # a trace without requests: the frees counted
        freed = [f"rank {rank}: {n} MPI_Request_free but {made} persistent requests set up"
                 for rank, theirs in own.groupby("rank")
                 for n, made in [(int((theirs["call"] == "MPI_Request_free").sum()),
                                  int(theirs["call"].isin(SETUPS).sum()))] if n > made]  # fmt: skip
    assert not freed, (
        f"{where}: {freed[0]}{_line_of(kernel, ['MPI_Request_free'])}: the rows travel as "
        "messages whose requests are completed by a wait or test; only a persistent request "
        "(MPI_Send_init, MPI_Recv_init, or partitioned: MPI_Psend_init, MPI_Precv_init), "
        "inactive after its wait, is freed, no request before it completed")
    ranks = max(len(res.meta.get("ranks", [])), int(calls["rank"].max()) + 1 if len(calls) else 0)
    astray = astray_messages(own, ranks)
    assert not astray, (
        f"{where}: {astray[0]}: the halo rows' messages go to `up` and `down` only, each rank "
        "sending its edge rows to its neighbours and receiving its halo rows from them (or "
        "MPI_PROC_NULL where the grid ends); no row relayed through another rank")
    ambiguous = any_source_faults(_by_exchange(calls))
    assert not ambiguous, (
        f"{where}: {ambiguous[0]}: a receive from MPI_ANY_SOURCE takes whichever matching "
        "message comes first, so the row from above can land in the halo below; receive row "
        "`m + 1` from `down` and row `0` from `up` by name, or give each direction a tag of its "
        "own that only one neighbour sends this rank")
    compliance.check(res, "funneled")


# every call that receives a message, with the source the trace records as its peer (a
# send-receive's source is its recv_peer; a matched probe's receive, the source MPI matched)
RECEIVING = ("MPI_Recv", "MPI_Irecv", "MPI_Recv_init", "MPI_Precv_init", "MPI_Mrecv",
             "MPI_Imrecv")  # fmt: skip


def astray_messages(calls: pd.DataFrame, ranks: int) -> list[str]:
    """(a) and (d) (lab 12 (b) too): each point-to-point call of `calls` (the cell's) whose
    destination or source, by the trace's world ranks, is a rank other than `up` and `down`
    (the ranks above and below: the kernel's communicator is in world order), MPI_PROC_NULL and
    MPI_ANY_SOURCE (judged by any_source_faults) aside: the rows relayed through another rank
    (a fresh attacker's G04a_relay, every rank's edge rows sent to rank 0 which sent each rank
    its halos, kept 4/4 twice while only (d) read the peers, 2026-12-06)."""
    if calls.empty or "peer" not in calls.columns:
        return []
    recv_peer = calls["recv_peer"] if "recv_peer" in calls.columns else pd.Series(-1, calls.index)
    sides = [(calls[calls["call"].isin((*SENDING, *RECEIVING))], calls["peer"]),
             (calls[calls["call"].isin(SENDRECVS)], recv_peer)]
    faults = []
    for part, peers in sides:
        peer = peers.loc[part.index]
        astray = part[(peer >= 0) & ((peer - part["rank"]).abs() != 1)]
        for row, other in zip(astray.itertuples(), peer.loc[astray.index], strict=True):
            near = " and ".join(str(n) for n in (row.rank - 1, row.rank + 1) if 0 <= n < ranks)
            itself = " (itself)" if other == row.rank else ""
            step = row.step if "step" in part.columns else -1
            when = f", iteration {step}" if step == step and step >= 0 else ""
            way = "from" if peers is recv_peer else "with"
            faults.append((row.Index, f"rank {row.rank}{when}: {row.call} {way} rank "
                                      f"{int(other)}{itself} (its neighbours: rank {near or 'none'})"))
    return [text for _, text in sorted(faults)]


def _by_exchange(calls: pd.DataFrame) -> pd.DataFrame:
    """The cell's calls, each with `exchange`: how many of the kit's own calls its rank had made
    before it (the kernel calls MPI between two calls of exchange_halos, so one call's calls
    share a number; the trace's steps are not marked in this variant)."""
    kit = (calls["student"] != 1).astype(int)
    return calls.assign(exchange=kit.groupby(calls["rank"]).cumsum())[calls["student"] == 1]


def any_source_faults(calls: pd.DataFrame) -> list[str]:
    """(a): each receive from MPI_ANY_SOURCE (the trace's peer, or an MPI_Sendrecv's recv_peer,
    ANY_SOURCE) whose tag more than one rank used for the messages it sent this rank in the run
    (any tag for an MPI_ANY_TAG receive or a send-receive's receive, whose tag the trace does
    not keep): there the row could come from either side. A tag only one neighbour sends this
    rank tells the directions apart as a source would (a fresh attacker's right answer
    T04ar_anysource, the direction in the tag, lost 4/4 to a refusal of MPI_ANY_SOURCE by
    name, 2026-12-05). Receives from MPI_ANY_SOURCE that all land in ONE buffer in an iteration
    (a row of the student's own, copied into the halo its status names: attacker R's L04_R3 lost
    4/4, 2026-12-06) decide no side by where they land: the checksum judges the placing. One
    call's receives: those of one `exchange` (_by_exchange) where the calls have it, else of a
    step."""
    if calls.empty or "peer" not in calls.columns:
        return []
    recv_peer = calls["recv_peer"] if "recv_peer" in calls.columns else pd.Series(-1, calls.index)
    wild = calls[(calls["peer"] == ANY_SOURCE) | (recv_peer == ANY_SOURCE)]
    call = ["rank", "exchange" if "exchange" in wild.columns else "step"]  # one exchange's receives
    if "buffer" in wild.columns and call[1] in wild.columns:
        landings = wild.groupby(call, dropna=False)["buffer"].transform("nunique")
        counts = wild.groupby(call, dropna=False)["buffer"].transform("size")
        wild = wild[(landings > 1) | (counts < 2)]
    sends = calls[calls["call"].isin(SENDING) & (calls["peer"] >= 0)]
    faults = []
    for post in wild.itertuples():
        tag = int(post.tag) if post.peer == ANY_SOURCE and post.tag == post.tag else -1
        mine = sends[sends["peer"] == post.rank]
        if tag >= 0:
            mine = mine[mine["tag"] == tag]
        senders = sorted({int(r) for r in mine["rank"]})
        if len(senders) > 1:
            shown = f"tag {tag}" if tag >= 0 else "any tag"
            when = f", iteration {post.step}" if post.step == post.step and post.step >= 0 else ""
            faults.append(f"rank {post.rank}{when}: {post.call} from "
                          f"MPI_ANY_SOURCE with {shown}, which ranks "
                          f"{' and '.join(map(str, senders))} both sent it messages with")
    return faults


def _line_of(kernel: Kernel | None, names: Sequence[str]) -> str:
    """" (cell line N: text)" of the first line of the student's cell (the kernel's unit, after
    its `#line 1 "cell"`, comments left out) that calls one of `names` (or names it: a constant
    such as MPI_PROC_NULL); "" when none is found (a macro)."""
    try:
        unit = Path(kernel.source).read_text() if kernel is not None else ""
    except OSError:
        return ""
    cell = unit.split('#line 1 "cell"\n', 1)[-1]
    bare = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), cell, flags=re.S)
    bare = re.sub(r"//[^\n]*", "", bare)
    for n, text in enumerate(bare.splitlines(), start=1):
        if any(re.search(rf"\b{name}\b" if name.isupper() else rf"\b{name}\s*\(", text)
               for name in names):  # fmt: skip
            return f" (cell line {n}: {text.strip()})"
    return ""


def build_student_overlap(code: str, name: str = "student_overlap") -> Kernel:
    """Compile the student's overlap_iteration with halo2d (variant=overlap), every MPI call and
    every stencil_rows interval traced."""
    return build_student(name, "halo2d", "HL_STUDENT_OVERLAP", code, ("overlap_iteration",))


class HeldBack(AssertionError):
    """judge_overlap's refusal of rows held back for after the window (KEPT_SHARES iterations):
    check_student_overlap runs the shape once more before it stands."""


def check_student_overlap(
    kernel: Kernel,
    shapes: tuple[tuple[int, int], ...] = ((2, 2),),
    nx: int = 24,
    ny: int = 12,
    iterations: int = 8,
    timeout: float = 30.0,
) -> list[dict]:
    """Run the student's funnelled overlap at every (ranks, threads) and check it.

    Checks, per shape: the checksum equals jacobi2d's (the halos hold NaN until the exchange
    fills them, so an edge row computed too early spoils it); only the master called MPI
    (compliance.check, FUNNELED: a ThreadComplianceError names the call and thread); with 2+
    ranks, 2+ threads and OVERLAP_POINTS interior points per rank (each row then taking ROW_US
    longer), the trace shows the overlap (judge_overlap; a HeldBack refusal is judged again on a
    second run, whose verdict stands: right tasks answers were refused in 1 run of 3-5 at load
    19-28, where a held-back answer holds rows back in every iteration its rank starts on time).
    A deadlock ends as KernelTimeout. Returns one row per shape."""
    want, _ = jacobi2d(nx, ny, iterations)
    rows = []
    for ranks, threads in shapes:
        try:
            rows.append(_check_overlap_shape(kernel, ranks, threads, nx, ny, iterations, timeout, want))
        except HeldBack:  # a loaded machine pausing a free thread twice looks held back: run again
            rows.append(_check_overlap_shape(kernel, ranks, threads, nx, ny, iterations, timeout, want))
    return rows


def _check_overlap_shape(kernel: Kernel, ranks: int, threads: int, nx: int, ny: int,
                         iterations: int, timeout: float, want: float) -> dict:
    """One shape of check_student_overlap: one run, every check, its row."""
    judged = ranks > 1 and threads > 1 and (ny // ranks - 2) * nx >= OVERLAP_POINTS
    res = _grid_run(kernel, ranks, threads, "overlap", nx, ny, iterations, timeout=timeout,
                    thread_level=OVERLAP_LEVEL, stagger_us=STAGGER_US if ranks > 1 else 0,
                    row_us=ROW_US if judged else 0, env=None if judged else UNTIMED_ENV)  # fmt: skip
    got = float(_checksum(res)["checksum"])
    where = f"{ranks}x{threads} ({nx}x{ny}, {iterations} iterations)"
    assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
        f"{where}: checksum {got!r}, expected {want!r}: some rows are not the Jacobi update "
        "(every row 1..m once per iteration, from the halos of this iteration)"
    )
    compliance.check(res, OVERLAP_LEVEL)
    assert_overlap_calls(res, where, kernel)
    blocking = blocking_calls(res)
    assert not blocking, (f"{', '.join(blocking)}: the master posts MPI_Irecv and MPI_Isend "
                          "and completes them with MPI_Waitall while the team computes")
    assert_halo_messages(res, (nx * 8, (nx + 2) * 8), where)  # the interior, or whole rows
    inside = judge_overlap(res, where, threads) if judged else 0.0
    return {"ranks": ranks, "threads": threads, "checksum": got, "expected": want,
            "seconds computed while the halos were in flight": inside}


def assert_overlap_calls(res: Results, where: str, kernel: Kernel | None = None,
                         function: str = "overlap_iteration") -> None:
    """(d) (and lab 12 (b), function="task_iteration"): AssertionError naming the first call (and the cell's line) outside OVERLAP_CALLS: the
    window is the halo rows' own requests, MPI_Irecv/MPI_Isend posted each iteration and completed
    by a wait or test; another request (a non-blocking collective such as MPI_Ibarrier, a
    persistent request) would carry no halo row, or none the trace can tie to its completion."""
    calls = res.mpi_calls
    mine = set(calls[calls["student"] == 1]["call"]) if len(calls) else set()
    other = sorted(mine - set(OVERLAP_CALLS) - set(BLOCKING))  # blocking: refused after this
    assert not other, (
        f"{where}: {function} called {', '.join(other)}{_line_of(kernel, other)}: here "
        "the only requests are the halo rows' own messages, MPI_Irecv and MPI_Isend posted each "
        "iteration (a row may be a datatype of your own, committed and freed) and completed by "
        "MPI_Waitall (or another wait or test); no other request (a non-blocking collective, "
        "a persistent request) and no collective")
    # a send to or receive from MPI_PROC_NULL (peer -1) is the exchange's only at the grid's edge:
    # at most one each way per missing neighbour and iteration (more are token requests)
    posts = calls[(calls["student"] == 1) & calls["call"].isin(["MPI_Irecv", *SENDS])]
    if posts.empty or "peer" not in posts.columns:
        return
    ranks = max(len(res.meta.get("ranks", [])), int(calls["rank"].max()) + 1)
    astray = astray_messages(posts, ranks)
    assert not astray, (f"{where}: {astray[0]}: the halo rows' messages go to `up` and `down` "
                        "only; no other message")
    null = posts[(posts["peer"] == -1) & (posts["step"] >= 0)]  # per iteration: marked ones
    way = np.where(null["call"] == "MPI_Irecv", "receives from", "sends to")
    counted = null.assign(way=way).groupby(["rank", "step", "way"]).size()
    for (rank, step, direction), n in counted.items():
        edges = int(rank == 0) + int(rank == ranks - 1)
        assert n <= edges, (
            f"{where}: rank {rank} of {ranks}, iteration {step}: {n} {direction} MPI_PROC_NULL"
            f"{_line_of(kernel, ['MPI_PROC_NULL'])}, for {edges} edge(s) of the grid: a request "
            "to or from MPI_PROC_NULL moves no row and is no window; the only requests are the "
            "halo rows' own, to `up` and `down` (MPI_PROC_NULL only where the grid ends)")


def assert_halo_messages(res: Results, row_bytes: int | tuple[int, ...], where: str) -> None:
    """AssertionError unless every point-to-point message the cell sent or received (MPI_PROC_NULL
    aside) is one halo row of `row_bytes` (one size, or a tuple of the sizes a row may have: lab
    04's interior nx values or the whole row of nx + 2), at most one each way per neighbour and
    iteration: a message of another size, or a second one, kept in flight while the interior is
    computed would open a window of its own round an exchange already done (lab 04 (d), lab 12
    (b))."""
    sizes = tuple(int(b) for b in row_bytes) if isinstance(row_bytes, tuple) else (int(row_bytes),)
    allowed = " or ".join(str(b) for b in sizes)
    calls = res.mpi_calls
    p2p = calls[(calls["student"] == 1) & calls["call"].isin([*POSTS, *BLOCKING])
                & calls["bytes"].notna() & (calls["peer"] >= 0)]  # fmt: skip
    for row in p2p[~p2p["bytes"].isin(sizes)].itertuples():
        raise AssertionError(
            f"{where}: rank {row.rank}, iteration {row.step}: {row.call} of {int(row.bytes)} "
            f"bytes with rank {row.peer}: every message of the exchange is one halo row "
            f"({allowed} bytes), one each way per neighbour and iteration; no other message")
    way = np.where(p2p["call"].isin(["MPI_Irecv", "MPI_Recv"]), "from", "to")
    counted = p2p.assign(way=way).groupby(["rank", "step", "peer", "way"]).size()
    for (rank, step, peer, direction), n in counted[counted > 1].items():
        raise AssertionError(
            f"{where}: rank {rank}, iteration {step}: {n} halo rows {direction} rank {peer}: "
            "one row each way per neighbour and iteration; no other message")


def overlap_rows(res: Results, windows: pd.DataFrame | None = None) -> pd.DataFrame:
    """The interior rows (2..m-1) of a traced overlap run, one row per stencil_rows call: rank,
    iteration (step), thread, first, last, start, end, and where it began against its
    iteration's window (step_windows, or `windows` of that shape: lab 12 (b)'s): "before" the
    first request was posted, "inside", or "after" the completing call returned ("no window"
    when the iteration posted nothing)."""
    work = res.compute
    if work.empty or "first" not in work.columns:
        return pd.DataFrame(columns=["rank", "step", "thread", "first", "last", "start", "end",
                                     "where", "posted_by", "completed_by"])  # fmt: skip
    work = work[work["first"] >= 1].copy()
    m = work.groupby("rank")["last"].transform("max")  # the edge row m is computed every iteration
    work["first"], work["last"] = work["first"].clip(lower=2), np.minimum(work["last"], m - 1)
    work = work[work["first"] <= work["last"]]
    windows = step_windows(res) if windows is None else windows
    work = work.merge(windows.rename(columns={"start": "window_start", "end": "window_end"}),
                      on=["rank", "step"], how="left")  # fmt: skip
    work["where"] = np.select(
        [work["window_start"].isna(), work["start"] >= work["window_end"],
         work["end"] <= work["window_start"]],
        ["no window", "after", "before"], "inside")  # fmt: skip
    return work


def _row_numbers(rows: pd.DataFrame) -> set[int]:
    """The row numbers of stencil_rows calls (first..last each)."""
    return {i for f, last in zip(rows["first"], rows["last"], strict=True)
            for i in range(int(f), int(last) + 1)}  # fmt: skip


def _rows_text(rows: pd.DataFrame) -> str:
    """Rows of stencil_rows calls as ranges: "rows 2-11, 14", "row 2"."""
    numbers = sorted(_row_numbers(rows))
    ranges: list[list[int]] = []
    for i in numbers:
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    text = ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in ranges)
    return f"rows {text}" if len(numbers) > 1 else f"row {text}"


def _iteration_text(rows: pd.DataFrame, completed_by: str) -> str:
    """Where one iteration's interior rows were computed, per thread: "rows 2-11 by thread 0
    after MPI_Waitall returned, rows 12-21 by thread 1 inside the window"."""
    said = {"inside": "inside the window", "after": f"after {completed_by} returned",
            "before": "before the first request was posted", "no window": "with nothing posted"}
    parts = [f"{_rows_text(part)} by thread {thread} {said[where]}"
             for (where, thread), part in rows.groupby(["where", "thread"], sort=True)]  # fmt: skip
    return ", ".join(parts)


def judge_overlap(res: Results, where: str, threads: int) -> float:
    """Lab 04 (d)'s verdict on a traced run (2+ ranks, 2+ threads): the interior rows are
    computed while the master communicates, by the threads that are free.

    Per rank and iteration the window runs from the first posted request to the call that
    completed them (step_windows). Refused (AssertionError, saying which rows were computed
    where) when no request was posted and completed; when the threads other than the master
    computed no interior row inside any window; or when, in KEPT_SHARES iterations or more, rows
    were held back for after the window: the master computed interior rows after it while a free
    thread had finished all of its rows before it closed (the master's share kept for after its
    Wait: a static schedule), or a free thread computed rows after it while it sat idle inside
    it for more than HELD_IDLE, between its rows or in the master's wait before its first row
    (one row inside, the rest after a barrier; a blocking exchange, the team held at a barrier
    round the master's wait: _held_back); or
    when the windows long enough for the whole interior missed it (assert_windows_covered: the
    interior computed before the requests were posted, a token row inside); or when a thread
    other than the master computed less than 1 / (4T) of an iteration's interior rows in most
    iterations, or of the late or on-time ones (the master computing the interior itself inside
    the window, a free thread a token row: a fresh attacker's n04det and n04det2, 4/4 kept,
    2026-12-05); or when the master computed its rows only after its wait in some iterations
    and only before it in others (_assert_one_order: blocking in the late ones). A free thread with
    a dynamic schedule or tasks stops only when no row is left, so it trips the held-back rules
    only when paused for most of a window; a thread the loaded machine pauses, or a short
    window, in some iterations is no refusal. Returns the seconds the free threads computed
    inside the windows."""
    rows = overlap_rows(res)
    windows = step_windows(res)
    assert not windows.empty, (
        f"{where}: no request was posted and then completed (MPI_Irecv/MPI_Isend, then "
        "MPI_Waitall): a blocking exchange leaves nothing in flight to overlap with"
    )
    assert_rows_once(rows, where)
    free = rows[rows["thread"] != rows["posted_by"]]
    inside = free[free["where"] == "inside"]
    seconds = float((np.minimum(inside["end"], inside["window_end"])
                     - np.maximum(inside["start"], inside["window_start"])).clip(lower=0).sum())  # fmt: skip
    first = windows.sort_values(["rank", "step"]).iloc[0]
    shown = rows[(rows["rank"] == first["rank"]) & (rows["step"] == first["step"])]
    assert len(inside) > 0, (
        f"{where}: no interior row (2..m-1) was computed by the threads other than the master "
        "between the posting of the requests and their completion, in any iteration (rank "
        f"{first['rank']}, iteration {first['step']}: {_iteration_text(shown, first['completed_by'])}): "
        "no overlap: the free threads compute the interior while the master communicates"
    )
    kept = []  # (rank, step, rows, what was held back): rows waiting for the master's Wait
    # the master's wait, in the iterations the rank started on time (the stagger's late rank's
    # free thread wakes from the kit's barrier after the master's sleep: measured at load 11-14,
    # the solution's free thread idle 2-7 ms into its master's short wait there)
    waits = {key: at for key, at in _wait_starts(res, windows).items() if not staggered(*key)}
    waited = _master_waited(res, windows)
    for (rank, step), it in rows.groupby(["rank", "step"]):
        late = it[(it["thread"] == it["posted_by"]) & (it["where"] == "after")]
        if waited.get((int(rank), int(step)), 0.0) <= HELD_IDLE:
            late = late.iloc[0:0]  # a master that polled between its rows kept nothing back
        others = it[it["thread"] != it["posted_by"]]
        idle = [t for t, own in others.groupby("thread") if (own["end"] < own["window_end"]).all()]
        held = [t for t, own in others.groupby("thread")
                if _held_back(own, waits.get((int(rank), int(step))))]
        if len(late) and idle:
            kept.append((rank, step, it, f"the master computed interior rows after its exchange "
                                         f"completed while thread {idle[0]} had finished its rows"))
        elif held:
            kept.append((rank, step, it, f"thread {held[0]} sat idle for more than "
                                         f"{HELD_IDLE * 1e3:.0f} ms of the window between its "
                                         f"rows, or {WAITED_IDLE * 1e3:.0f} ms in the master's "
                                         "wait before its first row, then computed rows after it"))
    iterations = rows.groupby(["rank", "step"]).ngroups
    if len(kept) >= KEPT_SHARES:
        rank, step, it, what = kept[0]
        raise HeldBack(
            f"{where}: in {len(kept)} of {iterations} iterations interior rows were held back "
            f"for after the exchange completed (rank {rank}, iteration {step}: {what}: "
            f"{_iteration_text(it, it['completed_by'].iloc[0])}): the interior goes to the "
            "threads that are free while the master communicates (a dynamic schedule, tasks), "
            "not kept for the master"
        )
    _assert_posted_first(rows, where)
    assert_windows_covered(rows, where)
    _assert_one_order(rows, waited, where)
    _assert_team_share(rows, threads, where)
    return seconds


def _assert_posted_first(rows: pd.DataFrame, where: str) -> None:
    """AssertionError when the interior was computed before the exchange was posted: in
    KEPT_SHARES iterations or more the master (the posting thread) computed interior rows before
    its first request, which its own program order puts there at any load; or in half the
    iterations or more (KEPT_SHARES at least) COVERED or more of the interior rows were computed
    before it (a fresh attacker's T04d_half, the interior first in every other iteration and
    overlapped in the others, kept 4/4 twice under assert_windows_covered's two-thirds rule,
    2026-12-05). Free threads that start the interior while a paused master has not yet posted
    (no barrier after the posting, as the instructor's solution) did so in 2-3 iterations of 16
    on a grader at load 10: that is no refusal."""
    iterations = rows.groupby(["rank", "step"])
    master, most = [], []
    for (rank, step), it in iterations:
        before = it[it["where"] == "before"]
        if (before["thread"] == before["posted_by"]).any():
            master.append((rank, step, it))
        if len(_row_numbers(before)) >= COVERED * len(_row_numbers(it)) > 0:
            most.append((rank, step, it))
    found = ("the master computed interior rows before it posted the first request", master)
    if len(master) < KEPT_SHARES:
        found = ("most interior rows were computed before the first request was posted", most)
        if len(most) < max(KEPT_SHARES, iterations.ngroups / 2):
            return
    what, early = found
    rank, step, it = early[0]
    raise AssertionError(
        f"{where}: in {len(early)} of {iterations.ngroups} iterations {what} (rank {rank}, "
        f"iteration {step}: {_iteration_text(it, it['completed_by'].iloc[0])}): post the "
        "exchange first, then compute the interior while it is in flight, in every iteration"
    )


def _assert_team_share(rows: pd.DataFrame, threads: int, where: str) -> None:
    """AssertionError when a thread that never posted the requests computed less than
    1 / (4 x threads) of an iteration's interior rows (overlap_rows) in more than half of the
    run's iterations (every rank's), or of the iterations its rank started late, or on time (the
    stagger's two kinds): the master computing the interior itself in most iterations, the free
    threads doing it now and then (a fresh attacker's p04alt: every 4th iteration, 4/4 kept
    against a share summed over the run, 2026-12-05), or in the late iterations only (A6's x6,
    2026-12-07: 14 right answers left a free thread short in at most 1 of 8 late iterations,
    2 runs each at load 19-28)."""
    counted = rows.assign(n=rows["last"] - rows["first"] + 1)
    late = np.array([staggered(r, s) for r, s in zip(rows["rank"], rows["step"], strict=True)],
                    dtype=bool)  # fmt: skip
    masters = set(counted["posted_by"].dropna().astype(int))
    kinds = [("", counted), (" its rank started on time", counted[~late]),
             (" its rank started late", counted[late])]  # fmt: skip
    for kind, part in kinds:
        iterations = part.groupby(["rank", "step"])
        for thread in sorted(set(range(threads)) - masters):
            short = [(rank, step, mine, total) for (rank, step), it in iterations
                     for mine, total in [(int(it.loc[it["thread"] == thread, "n"].sum()),
                                          int(it["n"].sum()))]
                     if 4 * threads * mine < total]  # fmt: skip
            assert 2 * len(short) <= iterations.ngroups, (
                f"{where}: in {len(short)} of {iterations.ngroups} iterations{kind} thread "
                f"{thread} computed fewer than 1/{4 * threads} of the interior rows (rank "
                f"{short[0][0]}, iteration {short[0][1]}: {short[0][2]} of {short[0][3]}): the "
                "interior goes to the threads that are free while the master communicates, each "
                "a share of it in every iteration, not to the master with a token row for the "
                "others")


def _assert_one_order(rows: pd.DataFrame, waited: dict[tuple[int, int], float], where: str) -> None:
    """AssertionError when the master computed interior rows only after its wait in KEPT_SHARES
    iterations or more and only before it in KEPT_SHARES or more: an exchange that blocks in
    some iterations and overlaps in others. Program order, not timing: every right answer keeps
    one order (its rows before the wait, as a nowait loop the master joins, or after it, as
    tasks or a loop it joins once its wait returns), whatever the load; timing cannot tell in
    the late rank's iterations, whose free threads wake late from the kit's barrier (a fresh
    attacker's x1 and x6 blocked in those only and kept 4/4 twice, 2026-12-07). A window a test
    closed counts as a wait when the master spent more than HELD_IDLE in its tests (`waited`:
    _master_waited), spinning: a master that tests before each of its rows may find a late
    rank's messages there at its first test."""
    blocked, overlapped = [], []
    for (rank, step), it in rows.groupby(["rank", "step"]):
        master = it.loc[it["thread"] == it["posted_by"], "where"]
        waits = (str(it["completed_by"].iloc[0]).startswith("MPI_Wait")
                 or waited.get((int(rank), int(step)), 0.0) > HELD_IDLE)  # fmt: skip
        if waits and (master == "after").any() and not (master == "inside").any():
            blocked.append((rank, step, it))
        elif (master == "inside").any() and not (master == "after").any():
            overlapped.append((rank, step, it))
    if min(len(blocked), len(overlapped)) < KEPT_SHARES:
        return
    (rank, step, it), (rank2, step2, it2) = blocked[0], overlapped[0]
    completed = it["completed_by"].iloc[0]
    raise AssertionError(
        f"{where}: in {len(blocked)} iterations the master waited before computing any interior "
        f"row (rank {rank}, iteration {step}: {_iteration_text(it, completed)}), in "
        f"{len(overlapped)} it computed its rows before its wait (rank {rank2}, iteration "
        f"{step2}: {_iteration_text(it2, it2['completed_by'].iloc[0])}): the exchange takes the "
        "same order in every iteration (post, the interior while the requests are in flight, "
        "complete), not a blocking wait in some of them")


def assert_windows_covered(rows: pd.DataFrame, where: str, early_ok: bool = False) -> None:
    """AssertionError when, in two thirds or more of the iterations whose window was long enough
    for the whole interior (KEPT_SHARES + 1 at least), the window missed it (_covered): the interior
    computed before the requests were posted (unless `early_ok`: tasks without a dependence
    may run before the exchange's task) or after they completed, a token row inside. `rows`:
    overlap_rows of a traced run (lab 04 (d), lab 12 (b))."""
    uncovered, long_windows = [], 0
    for (rank, step), it in rows.groupby(["rank", "step"]):
        covered = _covered(it[it["where"] != "before"] if early_ok else it)
        long_windows += covered is not None
        if covered is False:
            uncovered.append((rank, step, it))
    if len(uncovered) >= max(KEPT_SHARES + 1, 2 * long_windows / 3):
        rank, step, it = uncovered[0]
        raise AssertionError(
            f"{where}: in {len(uncovered)} of the {long_windows} iterations whose window lasted "
            "long enough for the whole interior, less than "
            f"{COVERED:.0%} of the interior's computing fell inside it (rank {rank}, iteration "
            f"{step}: {_iteration_text(it, it['completed_by'].iloc[0])}): the interior is "
            "computed while the requests are in flight, not before they are posted nor after "
            "they complete"
        )


def assert_rows_once(rows: pd.DataFrame, where: str) -> None:
    """AssertionError naming the first rank, iteration and rows of overlap_rows in which an
    interior row was computed more than once (rows computed again only look like work inside
    the window: lab 04 (d), lab 12 (b))."""
    for (rank, step), it in rows.groupby(["rank", "step"]):
        seen, again = set(), set()
        for first, last in zip(it["first"], it["last"], strict=True):
            for i in range(int(first), int(last) + 1):
                (again if i in seen else seen).add(i)
        shown = pd.DataFrame({"first": sorted(again), "last": sorted(again)})
        assert not again, (
            f"{where}: rank {rank}, iteration {step}: {_rows_text(shown)} computed more than "
            "once: every interior row once per iteration (rows computed again only look like "
            "work inside the window)")


def _covered(it: pd.DataFrame) -> bool | None:
    """One iteration's interior rows (overlap_rows): None when its window was shorter than its
    distinct rows take at the iteration's median time per row, or than HELD_IDLE (too short to
    tell: the late ranks' windows); else whether
    at least COVERED of those rows were computed inside the window (an interval that straddles
    an end counts for its share inside; rows computed again count once), or the free threads
    computed for at least COVERED of the window (busy, only slower than the window)."""
    if it.empty:
        return None
    start, end = float(it["window_start"].iloc[0]), float(it["window_end"].iloc[0])
    rows = it["last"] - it["first"] + 1
    seconds = it["end"] - it["start"]
    distinct = len(_row_numbers(it))
    if end - start < max(distinct * float((seconds / rows).median()), HELD_IDLE):
        return None
    inside = (it["end"].clip(upper=end) - it["start"].clip(lower=start)).clip(lower=0)
    share = (inside / seconds.where(seconds > 0)).fillna(0.0)
    if min(float((rows * share).sum()), distinct) >= COVERED * distinct:
        return True
    # rows outside a long window: the free threads' fault only if they sat idle in it (a loaded
    # machine slows a busy free thread, whose rows then run past the window)
    free = it["thread"] != it["posted_by"]
    threads = max(int(it.loc[free, "thread"].nunique()), 1)
    return float(inside[free].sum()) >= COVERED * threads * (end - start)


def _held_back(own: pd.DataFrame, wait_start: float | None = None) -> bool:
    """A free thread's interior rows in one iteration (overlap_rows): some computed after the
    window while, inside it, the thread sat idle for more than HELD_IDLE seconds in all between
    two of its rows, or for more than WAITED_IDLE before its first row while the master was
    completing its requests (from `wait_start`, the start of its first wait or test after the
    posting: _wait_starts; judge_overlap gives it in the iterations the rank started on time). That last is a blocking
    exchange by program order: the master posts and waits at once, the team held at a barrier
    through the wait, the interior computed after it (a fresh attacker's G04d_alt did so in every
    other iteration and kept 4/4 twice while the wait before the first row was not counted at
    all, 2026-12-06). The time the master spends posting is not counted: a free thread held at a
    barrier until the posting is done (a loaded machine can pause a posting master for
    milliseconds) is no refusal; one that starts when the posting is done, as a dynamic schedule
    or tasks do, idles in the master's wait only when the machine pauses it."""
    if not (own["where"] == "after").any():
        return False
    own = own.sort_values("start")
    start, end = float(own["window_start"].iloc[0]), float(own["window_end"].iloc[0])
    lo = own["end"].shift().clip(lower=start)
    hi = own["start"].clip(upper=end)
    if float((hi - lo).clip(lower=0).sum()) > HELD_IDLE:  # between its rows
        return True
    if wait_start is None or wait_start != wait_start:
        return False
    return min(float(own["start"].iloc[0]), end) - max(float(wait_start), start) > WAITED_IDLE


def _master_waited(res: Results, windows: pd.DataFrame) -> dict[tuple[int, int], float]:
    """Per (rank, iteration) of `windows` (step_windows): the seconds the posting thread spent
    inside waits and tests within the window. The master's share computed after the window
    while a free thread had finished is kept back only when the master waited (a wait, or tests
    spun without computing): a master polling MPI_Testall between the rows of its static share
    spends microseconds there, and when a loaded machine delays the team's start the window may
    close with a row or two of its share left (a fresh attacker's right answer X04d_poll lost
    4/4 in one run of three at load 12 under the rule without this, 2026-12-06)."""
    calls = res.mpi_calls
    if calls.empty or "step" not in calls.columns:
        return {}
    done = calls[(calls["student"] == 1) & calls["call"].isin(COMPLETES)]
    out = {}
    for w in windows.itertuples():
        mine = done[(done["rank"] == w.rank) & (done["step"] == w.step)
                    & (done["thread"] == w.posted_by)]  # fmt: skip
        inside = (mine["end"].clip(upper=w.end) - mine["start"].clip(lower=w.start)).clip(lower=0)
        out[(int(w.rank), int(w.step))] = float(inside.sum())
    return out


def staggered(rank: int, step: int) -> bool:
    """Whether `rank` started iteration `step` STAGGER_US late (hl_grid2d.h's run_poisoned: odd
    ranks in even iterations, even ranks in odd ones)."""
    return (int(rank) + int(step)) % 2 == 1


def _wait_starts(res: Results, windows: pd.DataFrame) -> dict[tuple[int, int], float]:
    """Per (rank, iteration) of `windows` (step_windows): when the master began to complete its
    requests, the start of the cell's first wait or test after its last posting of the window
    (a master that spins on MPI_Test while the team is held waits from its first test)."""
    calls = res.mpi_calls
    if calls.empty or "step" not in calls.columns:
        return {}
    calls = calls[calls["student"] == 1]
    posts = calls[calls["call"].isin(NONBLOCKING)]
    done = calls[calls["call"].isin(COMPLETES)]
    starts = {}
    for w in windows.itertuples():
        mine = posts[(posts["rank"] == w.rank) & (posts["step"] == w.step)
                     & (posts["start"] <= w.end)]  # fmt: skip
        after = float(mine["end"].max()) if len(mine) else float(w.start)
        waits = done[(done["rank"] == w.rank) & (done["step"] == w.step)
                     & (done["start"] >= after) & (done["start"] <= w.end)]  # fmt: skip
        if len(waits):
            starts[(int(w.rank), int(w.step))] = float(waits["start"].min())
    return starts


# ------------------------------------------------------------------------ the lab's own runs


def check_variants(
    nx: int = 64,
    ny: int = 48,
    iterations: int = 20,
    shapes: Sequence[tuple[int, int]] = ((1, 1), (2, 1), (1, 2), (2, 2)),
) -> pd.DataFrame:
    """Every 2-D variant at every (ranks, threads): its checksum and whether it equals numpy's
    (halo.serial.jacobi2d) to 12 digits."""
    want = jacobi2d(nx, ny, iterations)[0]
    rows = []
    for variant in VARIANTS_2D:
        for p, t in shapes:
            res = _grid_run("halo2d", p, t, variant, nx, ny, iterations,
                            thread_level=THREAD_LEVEL_2D[variant])  # fmt: skip
            got = float(_checksum(res)["checksum"])
            rows.append({"variant": variant, "PxT": f"{p}x{t}", "checksum": got,
                         "equal to numpy": bool(np.isclose(got, want, rtol=1e-12))})  # fmt: skip
    return pd.DataFrame(rows)


def refused_run(variant: str = "hybrid3", thread_level: str = "funneled") -> str:
    """The last line of the error of a variant started below the thread level it needs (the
    kernel checks what MPI provided); empty if it ran."""
    try:
        run_program("halo2d", ranks=2, threads=2, thread_level=thread_level, variant=variant)
    except KernelError as err:
        return str(err).splitlines()[-1]
    return ""


def breakdown_runs_2d(shapes: Sequence[tuple[int, int]], n: int, iterations: int) -> list[Results]:
    """halo2d on an n x n grid: every variant at every (ranks, threads), bound to cores (pure
    MPI only with 1 thread)."""
    return [
        run_program("halo2d", ranks=p, threads=t, bind="cores", thread_level=THREAD_LEVEL_2D[v],
                    variant=v, nx=n, ny=n, iterations=iterations)  # fmt: skip
        for p, t in shapes
        for v in VARIANTS_2D
        if not (v == "pure" and t > 1)
    ]


def breakdown_runs_3d(shapes: Sequence[tuple[int, int]], n: int, iterations: int) -> list[Results]:
    """halo3d on an n^3 grid: every variant at every (ranks, threads) whose decomposition fits
    (the others are printed as skipped), with blocking and non-blocking halos."""
    runs = []
    for p, t in shapes:
        for v in VARIANTS_3D:
            if v == "pure" and t > 1:
                continue
            try:
                check_grid3d(n, n, n, p, t, v)
            except ValueError as err:
                print("skipped:", err)
                continue
            runs += [
                run_program("halo3d", ranks=p, threads=t, bind="cores",
                            thread_level=THREAD_LEVEL_3D[v], variant=v, nx=n, ny=n, nz=n,
                            iterations=iterations, nonblocking=nonblocking)  # fmt: skip
                for nonblocking in (0, 1)
            ]
    return runs


def traced_run(ranks: int, threads: int, n: int, iterations: int, bind: str) -> Results:
    """Masteronly in 3-D with a timeline (timeline=1): every phase of every thread, with its
    start and end, for a trace file."""
    return run_program("halo3d", ranks=ranks, threads=threads, bind=bind,
                       thread_level=THREAD_LEVEL_3D["masteronly"], variant="masteronly",
                       nx=n, ny=n, nz=n, iterations=iterations, timeline=1)  # fmt: skip


def master_share_runs(shares: Sequence[float], ranks: int, threads: int, n: int,
                      iterations: int, bind: str) -> list[Results]:  # fmt: skip
    """Funnelled halo3d once per master's share of the inner planes."""
    return [
        run_program("halo3d", ranks=ranks, threads=threads, bind=bind, variant="funnelled",
                    master_share=s, nx=n, ny=n, nz=n, iterations=iterations)  # fmt: skip
        for s in shares
    ]


def shape_runs(nx: int, ny: int, *, pure_ranks: int, ranks: int, threads: int, bind: str,
               iterations: int) -> pd.DataFrame:  # fmt: skip
    """One domain shape (Luecke et al., Table 3): pure MPI on `pure_ranks` ranks and hybrid 1-3
    on ranks x threads, as a breakdown table (slowest thread)."""
    out = [run_program("halo2d", ranks=pure_ranks, threads=1, bind=bind, variant="pure",
                       nx=nx, ny=ny, iterations=iterations)]  # fmt: skip
    out += [
        run_program("halo2d", ranks=ranks, threads=threads, bind=bind,
                    thread_level=THREAD_LEVEL_2D[v], variant=v, nx=nx, ny=ny,
                    iterations=iterations)  # fmt: skip
        for v in ("hybrid1", "hybrid2", "hybrid3")
    ]
    return breakdown_table(out, how="max")


def schedule_runs(schedules: Sequence[tuple[str, int]], threads: int, n: int,
                  iterations: int) -> pd.DataFrame:  # fmt: skip
    """Hybrid 2 on 1 rank under each (schedule, chunk) of schedule(runtime): the slowest
    thread's total seconds."""
    rows = []
    for schedule, chunk in schedules:
        res = run_program("halo2d", ranks=1, threads=threads, thread_level="serialized",
                          variant="hybrid2", schedule=schedule, chunk=chunk, nx=n, ny=n,
                          iterations=iterations)  # fmt: skip
        total = res.records.query("record == 'timer' and phase == 'total'")["seconds"].max()
        rows.append({"schedule": schedule, "chunk": chunk, "seconds": total})
    return pd.DataFrame(rows)


def overlap_against_blocking(kernel: Kernel, n: int, iterations: int,
                             bind: str) -> tuple[Results, Results]:  # fmt: skip
    """The student's funnelled overlap and hybrid 1 (blocking), 2 ranks x 2 threads at
    FUNNELED on an n x n grid, without the stagger of the checks: (overlap, blocking)."""
    common = dict(ranks=2, threads=2, bind=bind, thread_level=OVERLAP_LEVEL, nx=n, ny=n,
                  iterations=iterations)  # fmt: skip
    return (run_program(kernel, variant="overlap", **common),
            run_program("halo2d", variant="hybrid1", **common))  # fmt: skip


def node_runs(
    nodes: int, cores_per_node: int, n: int, iterations: int, timeout: float = 300.0
) -> list[Results]:
    """halo3d on `nodes` nodes for every split of each node's cores into ranks x threads: pure
    MPI with one thread, masteronly with more (MPI outside the parallel region, as the
    published Master Only tables). Each run's checksum is compared with jacobi3d's
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
