"""Hybrid C written by a student in a notebook cell: built as its own translation unit, run, and
judged by what it did.

    kernel = build_student("student_overlap", "halo2d", "HL_STUDENT_OVERLAP", code,
                           ("overlap_iteration",))
    res = run_student(kernel, ranks=2, threads=2, level="funneled", variant="overlap", ...)
    overlap_table(res)        # per rank and window: computing between posting and completion
    step_windows(res)         # per rank and iteration (kernels that mark them): its window
    collective_comms(res)     # per collective: the communicator's size and members

The cell is compiled against the kit's public header only (kernels_c/hl_student.h and
kernels_c/<kernel>_student.h, which declares the functions the cell must define and the kit
helpers it may call), then linked with kernels_c/<kernel>.c built with the part's define: none of
the kernel's static functions or data can be reached. Both units are built with every MPI call
traced (hl_mpi_trace.h) and the student's MPI_Send made synchronous (MPI_Ssend), so one run
answers: is the result right (the kernel's own "check" record), did it finish (an order that is
only safe while MPI buffers deadlocks for certain and ends as KernelTimeout), did only the
threads the level allows call MPI (ThreadComplianceError), and how it worked (the trace: when
each call began and ended, whether a Wait or Test completed, the communicator of each
collective, and when the kit's helpers computed). Compiler messages name the cell's own lines
("cell:3: error: ...").

The kit helpers a cell may call are those its <kernel>_student.h declares (halo2d: stencil_rows;
p2p_overlap: compute_step; construct_bench: reference_loop and construct_state) and hybridlab.h's
public ones (hl_require_level, hl_measure, hl_now, ...). In Results.mpi_calls, "student" is 1 for
the calls the cell made and 0 for the kernel's own; "done" says whether a Wait or Test
completed; "comm" lists a collective's members. Results.compute holds the helpers' intervals.
"""

from __future__ import annotations

import re

import pandas as pd

from ..kernels.build import (
    DEFAULT_FLAGS,
    LINK,
    STUDENT_UNIT_FLAGS,
    TRACE_FLAGS,
    Kernel,
    build_source,
    include_flags,
    mpicc,
)
from ..kernels.c_cells import STUB, student_headers, unanswered
from ..kernels.unit_checks import preprocessed_cell
from . import compliance
from .launch import run_program
from .records import POSTS, SENDRECVS, WHERE_COLUMNS, Results

_NOT_SHOWN = {"record", "ok", *WHERE_COLUMNS}
# Calls that post a non-blocking request, and those that may complete one.
COMPLETES = (
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
)
# Point-to-point calls that return only once their message is done: no window opens around them.
BLOCKING = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Sendrecv",
            "MPI_Sendrecv_replace")
COLLECTIVES = (
    "MPI_Barrier",
    "MPI_Ibarrier",
    "MPI_Bcast",
    "MPI_Ibcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Iallreduce",
    "MPI_Ireduce",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Reduce_scatter_block",
    "MPI_Alltoall",
    "MPI_Ialltoall",
    "MPI_Alltoallv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
)


def student_unit(kernel: str, define: str, code: str) -> str:
    """The translation unit of a C cell: the link line, the public headers, the cell."""
    return f"// hl-link: {kernel}.c -D{define}\n{student_headers(kernel)}{code}\n"


def unit_flags() -> list[str]:
    """The compiler and flags a C cell's unit is compiled with (before -c)."""
    return [mpicc(), *DEFAULT_FLAGS, *STUDENT_UNIT_FLAGS, *TRACE_FLAGS, *include_flags()]


def preprocessed(kernel: str, define: str, code: str) -> str:
    """The cell's own C after preprocessing, as the compiler reads it: comments gone, macros
    expanded, #if'd-out lines left out, each #pragma on its own line. What a check that symbols
    cannot make (a pragma, a clause) reads, never the text as typed. ValueError for a unit the
    kit refuses there (asm, #line, a foreign #include)."""
    return "\n".join(text for _, text in preprocessed_lines(kernel, define, code))


def preprocessed_lines(kernel: str, define: str, code: str) -> list[tuple[int, str]]:
    """preprocessed() as (cell line, text) pairs, for a check that names the student's line."""
    lines, refused = preprocessed_cell(student_unit(kernel, define, code), unit_flags())
    if refused:
        raise ValueError("\n".join(str(r) for r in refused))
    return lines


def build_student(
    name: str, kernel: str, define: str, code: str, functions: tuple[str, ...],
    flags: tuple[str, ...] = (), *, archer: bool = False,
) -> Kernel:
    """The cell's C as its own unit linked with kernels_c/<kernel>.c built with `define`, traced
    (`flags` added to both: an offload build's; archer=True: with clang and ThreadSanitizer,
    hybridlab.kernels.archer; the same checks). NotImplementedError while the cell is the
    unanswered skeleton; BuildError names the lines."""
    if unanswered(code):
        raise NotImplementedError(STUB)
    missing = [f for f in functions if not re.search(rf"\b{f}\s*\(", code)]
    if missing:
        raise ValueError(f"the code must define {', '.join(missing)} (see the skeleton)")
    unit = student_unit(kernel, define, code)
    assert LINK.match(unit), unit.splitlines()[0]
    return build_source(name, unit, STUDENT_UNIT_FLAGS + tuple(flags), trace_mpi=True, archer=archer)


def run_student(
    kernel: Kernel, ranks: int, threads: int, level: str, timeout: float = 60.0, **params
) -> Results:
    """Run the student's kernel under `level`; AssertionError with the kernel's own check when the
    result is wrong, ThreadComplianceError when a call needs a higher level than `level`."""
    res = run_program(
        kernel, ranks=ranks, threads=threads, thread_level=level, timeout=timeout, **params
    )
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


def overlap_table(results: Results) -> pd.DataFrame:
    """Per rank, each window from the call that puts an exchange's data in flight (a send and a
    receive both posted, or a non-blocking collective: _windows) to the first Wait that returns
    or Test that reports completion after it: its length, the thread that posted it, and
    the seconds the kit's helpers computed inside it (summed over threads; and by the threads
    other than the poster: what tasks or other threads did while it communicated) and outside
    every window.

    Overlap is computing inside a window: a blocking exchange has no window, requests completed
    at once (a Wait right after posting) leave nothing inside, and work done before posting or
    after completion falls outside."""
    calls, work = results.mpi_calls, results.compute
    if calls.empty or "done" not in calls.columns:
        raise ValueError("no traced calls with completion: build the kernel with build_student")
    calls = calls[calls["student"] == 1]  # the kernel's own calls open no window
    rows = []
    for rank, mine in calls.sort_values("start").groupby("rank"):
        windows = [(w["start"], w["posted_by"], w["end"]) for w in _windows(mine)]
        done = work[work["rank"] == rank] if not work.empty else work
        inside_total = 0.0
        for i, (begin, poster, end) in enumerate(windows):
            inside = _within(done, begin, end)
            inside_total += inside
            rows.append(
                {
                    "rank": rank,
                    "window": i,
                    "start": begin,
                    "end": end,
                    "seconds": end - begin,
                    "posted_by": poster,
                    "computed_inside": inside,
                    "computed_inside_by_others": _within(
                        done[done["thread"] != poster] if not done.empty else done, begin, end
                    ),
                }
            )
        computed = float((done["end"] - done["start"]).sum()) if not done.empty else 0.0
        if not windows:
            rows.append(
                {
                    "rank": rank,
                    "window": -1,
                    "start": float("nan"),
                    "end": float("nan"),
                    "seconds": 0.0,
                    "posted_by": -1,
                    "computed_inside": 0.0,
                    "computed_inside_by_others": 0.0,
                }
            )
        for row in rows:
            if row["rank"] == rank:
                row["computed_outside"] = computed - inside_total
    return pd.DataFrame(rows)


SENDS = ("MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend")


def _windows(calls: pd.DataFrame) -> list[dict]:
    """One rank's calls (sorted by start) cut into windows: from the call that has an exchange's
    data in flight (a non-blocking collective but MPI_Ibarrier, or the later of a send and a
    receive posted, MPI_PROC_NULL ones aside (_moves_data):
    a receive posted alone moves nothing, nor a send the partner's receive does not meet) to the
    first Wait that returns or Test that reports completion of a request posted since that
    receives (a receive's, a send-receive's, a collective's; start, end, the thread that posted
    first, the completing call, the kernel's iteration "step" when the kernel gives it). A
    completion before the window opened closes what was posted. A completion that names no such
    request closes nothing: an MPI_Test of MPI_REQUEST_NULL reports done at once, as does one of
    a send MPI buffered (a fresh attacker's M03d_nulltest closed lab 03 (d)'s window so after one
    step and then blocked in MPI_Waitall, 4/4 kept, 2026-12-05). Where a posting's request is not
    in its record, any completion that reports done closes the window. Sends posted alone and
    completed before any receive was posted open nothing later: a late rank's receive completed
    at its first test, then its send posted after the computing and waited, left that send
    counted and the next sample's receive opened a window at once (an older gaming entry, a
    receive posted before the computing and the send after, kept 4/4 so once the graded runs
    staggered the ranks, 2026-12-05)."""
    windows, first, opened, kinds, handles, blind = [], None, None, set(), set(), False
    sends = set()  # sends posted while no window is open, not yet completed
    for call in calls.itertuples():
        if call.call in POSTS and _moves_data(call):
            handle = _posted(call)
            if handle is None:
                blind = True
            elif call.call not in SENDS:  # a send's completion says nothing of what arrives
                handles.add(handle)
            elif opened is None:
                sends.add(handle)
            if opened is not None:
                continue
            first = first or call
            kinds.add("send" if call.call in SENDS else "receive" if call.call == "MPI_Irecv"
                      else "both")  # fmt: skip
            if "both" in kinds or {"send", "receive"} <= kinds:
                opened = call
        elif call.call in COMPLETES and int(call.done) == 1 and first is not None:
            if not (blind or handles & set(request_ids(call)) or "+" in str(
                    getattr(call, "requests", ""))):  # fmt: skip
                sends -= set(request_ids(call))
                if opened is None and not sends and kinds == {"send"}:
                    first, kinds = None, set()  # the sends completed before any receive
                continue
            if opened is not None:
                windows.append({"start": opened.start, "end": call.end,
                                "posted_by": int(first.thread), "completed_by": call.call,
                                "step": int(getattr(first, "step", -1))})  # fmt: skip
            first, opened, kinds, handles, blind, sends = None, None, set(), set(), False, set()
    return windows


def _posted(call) -> int | None:
    """The request a posting made, as the tracer names it: a non-blocking send's or receive's
    "posted", a non-blocking collective's "request"; None where the record has neither."""
    for field in ("posted", "request"):
        value = getattr(call, field, None)
        if value is not None and value == value and int(value) != -1:
            return int(value)
    return None


def request_ids(call) -> list[int]:
    """The requests a completion call names (the tracer's "request", and "requests": those given
    to an MPI_Waitall or MPI_Testall, those an MPI_Waitany, _Waitsome, _Testany or _Testsome
    completed), MPI_REQUEST_NULL (-1) and a cut list's "+" left out."""
    one = getattr(call, "request", None)
    ids = [] if one is None or one != one or int(one) == -1 else [int(one)]
    many = getattr(call, "requests", None)
    for text in str(many if many is not None and many == many else "").split(","):
        text = text.strip()
        if text.lstrip("-").isdigit() and int(text) != -1:
            ids.append(int(text))
    return ids



# the calls that post a non-blocking point-to-point request (its handle: the record's "posted"),
# and those that set up a persistent one (its handle: "request"; MPI-4's partitioned set-ups
# make persistent requests too, started, completed and freed alike)
NONBLOCKING = ("MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv",
               "MPI_Isendrecv", "MPI_Isendrecv_replace")  # fmt: skip
SETUPS = ("MPI_Send_init", "MPI_Ssend_init", "MPI_Recv_init", "MPI_Psend_init", "MPI_Precv_init")


def _handle(value) -> int:
    """A request handle of a record's field (-1: none, MPI_REQUEST_NULL or a missing value)."""
    return -1 if value is None or value != value else int(value)


def freed_in_flight(calls: pd.DataFrame) -> list[str]:
    """Each MPI_Request_free of the cell (in the rank's order of calls) whose request, by
    its handle (the tracer's "request" of the free: the request it was given), is a non-blocking
    call's posting ("posted") that no wait or test completed since, a persistent request an
    MPI_Start ("request") or MPI_Startall ("requests") started and no completion reported done
    since, or no persistent request of the cell's set-ups (MPI_Send_init, MPI_Recv_init, and
    the partitioned MPI_Psend_init, MPI_Precv_init) at all.
    A handle MPI hands out again once its request completed or was freed is a new request. (A
    fresh attacker's G04a_freeactive freed two MPI_Isend at once beside two MPI_Send_init and
    MPI_Recv_init to MPI_PROC_NULL it never started, and kept 4/4 twice while frees were only
    counted against set-ups, 2026-12-05; labs 03 (d) and 04 (a) judge by it.)"""
    faults = []
    for rank, mine in calls.sort_values("start", kind="stable").groupby("rank", sort=True):
        active: dict[int, str] = {}  # a request in flight -> what made it active
        persistent: set[int] = set()  # set up and not yet freed
        for c in mine.itertuples():
            if c.call in NONBLOCKING:
                if _handle(c.posted) != -1:
                    active[_handle(c.posted)] = f"a request {c.call} posted"
            elif c.call in SETUPS:
                persistent.add(_handle(c.request))
                active.pop(_handle(c.request), None)
            elif c.call in ("MPI_Start", "MPI_Startall"):
                for h in request_ids(c):
                    if h in persistent:
                        active[h] = f"a persistent request {c.call} started"
            elif c.call in COMPLETES and c.done == c.done and int(c.done) == 1:
                for h in request_ids(c):
                    active.pop(h, None)
            elif c.call == "MPI_Request_free":
                h = _handle(c.request)
                if h in active:
                    what = f"{active.pop(h)} and no wait or test completed"
                elif h not in persistent:
                    what = "a request that is not a persistent request the cell set up"
                else:
                    persistent.discard(h)
                    continue
                persistent.discard(h)
                when = f", iteration {int(c.step)}" if c.step == c.step and int(c.step) >= 0 else ""
                faults.append(f"rank {rank}{when}: MPI_Request_free of {what}")
    return faults


def _moves_data(call) -> bool:
    """A posted request that can carry an exchange's data: not an MPI_Ibarrier, nor a send to or
    a receive from MPI_PROC_NULL (the tracer's peer -1), nor a send-receive with both: a token request of that kind held open
    round an exchange already completed opens no window (lab 04 (d)'s decoys)."""
    if call.call == "MPI_Ibarrier":
        return False
    def null(peer) -> bool:
        return peer == peer and peer is not None and int(peer) == -1

    if call.call in SENDRECVS:  # both sides to MPI_PROC_NULL
        return not (null(getattr(call, "peer", None)) and null(getattr(call, "recv_peer", None)))
    return not (call.call in (*SENDS, "MPI_Irecv") and null(getattr(call, "peer", None)))


def step_windows(results: Results) -> pd.DataFrame:
    """Per rank and iteration of a kernel that marks its iterations (hl_trace_step: lab 04's
    overlap): the span from the iteration's first posted request to the completion of its last
    window (start, end), the thread that posted, the call that completed it. An iteration with
    no window has no row."""
    calls = results.mpi_calls
    if calls.empty or "done" not in calls.columns:
        raise ValueError("no traced calls with completion: build the kernel with build_student")
    calls = calls[calls["student"] == 1]
    rows = []
    for rank, mine in calls.sort_values("start").groupby("rank"):
        spans: dict[int, dict] = {}
        for w in _windows(mine):
            span = spans.setdefault(w["step"], {**w, "rank": rank})
            span["end"], span["completed_by"] = w["end"], w["completed_by"]
        rows.extend(spans.values())
    columns = ["rank", "step", "start", "end", "posted_by", "completed_by"]
    return pd.DataFrame(rows, columns=columns)


def _within(work: pd.DataFrame, begin: float, end: float) -> float:
    """Seconds of the intervals in `work` that fall between begin and end (summed over threads)."""
    if work.empty:
        return 0.0
    lo = work["start"].clip(lower=begin)
    hi = work["end"].clip(upper=end)
    return float((hi - lo).clip(lower=0).sum())


def blocking_calls(results: Results) -> list[str]:
    """The blocking point-to-point calls the cell made: where a part asks for an overlapped
    exchange, the exchange itself must be non-blocking (a blocking one dressed with a dummy
    message to self would open a window of its own)."""
    calls = results.mpi_calls
    return sorted(set(calls.loc[calls["student"] == 1, "call"]) & set(BLOCKING))


def overlap_share(results: Results) -> pd.Series:
    """Per rank: the share of the kit helpers' computing that fell inside a window (0 to 1)."""
    table = overlap_table(results)
    per_rank = table.groupby("rank").agg(
        inside=("computed_inside", "sum"), outside=("computed_outside", "first")
    )
    total = per_rank["inside"] + per_rank["outside"]
    return (per_rank["inside"] / total.where(total > 0)).fillna(0.0).rename("overlap_share")


def comm_members(comm: object) -> tuple[int, ...]:
    """A collective record's "comm" ("0,2,4", cut with "+" when long) as MPI_COMM_WORLD ranks."""
    return tuple(int(x) for x in str(comm).split(",") if x.strip().isdigit())


def collective_comms(results: Results) -> pd.DataFrame:
    """One row per collective call the student's code made (not the kit kernel's own): rank,
    thread, call, the communicator's size and its members (MPI_COMM_WORLD ranks, a tuple), and
    the hosts those members ran on."""
    calls = results.mpi_calls
    if calls.empty or "comm" not in calls.columns:
        raise ValueError("no traced communicators: build the kernel with build_student")
    hosts = {r.get("rank"): r.get("host") for r in results.meta.get("ranks", [])}
    coll = calls[calls["call"].isin(COLLECTIVES) & (calls["student"] == 1)].copy()
    coll["members"] = [comm_members(c) for c in coll["comm"].fillna("")]
    coll["hosts"] = [tuple(sorted({hosts.get(m) for m in members})) for members in coll["members"]]
    return coll[["rank", "thread", "call", "start", "end", "comm_size", "members", "hosts"]]
