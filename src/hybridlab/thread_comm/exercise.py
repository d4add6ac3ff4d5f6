"""Lab 12's runs and exercises on lab 04's 2-D grid (kernels_c/thread_halo.c, hl_grid2d.h).

Each graded C part runs in the student's kernel and is judged in the grader's process: run_*
builds nothing but runs the student's kernel and returns each run's evidence (Results.evidence:
the kit's framed records and trace), which a hidden cell hands out; judge_* rebuilds the runs and
compares them with numpy's checksum and reads the trace; check_student_* does both at once (the
notebook's visible tests).

(a) variant=multiple: the student's thread_comms and exchange_slice, every thread exchanging its
own slice of the halo rows at once; judged by the checksum (halo.serial.jacobi2d) and the trace:
every thread of every rank exchanged bytes with a neighbouring rank (the tracer's peer and bytes:
calls to MPI_PROC_NULL, to the rank itself or of no values move nothing), about as many as the
others, no message longer than a thread's slice, each thread's messages on one slice of columns
of its own (the same columns in every halo row it exchanges, by the tracer's buffer addresses:
slice_faults), calls of different threads inside MPI at the same time (calls moving values,
completions of their requests), and no (communicator, tag) shared by two threads of a rank.
(b) variant=tasks: the
student's task_iteration, OpenMP tasks with `depend`; judged by the checksum (halo rows are NaN
until the exchange fills them), non-blocking calls, the kit's stencil_rows computing between
the posting of the requests and the arrival of a halo row (task_overlap_table) and what ran inside a
task (task_stamps); the run holds interior rows about to be computed before any MPI call of the
iteration up to 50 ms (thread_halo.c's hold_for_exchange), so the runtime's order of ready tasks
does not decide. No cell of the lab may hold a target or teams construct (offload_faults), nor
(a) make its MPI calls in a team nested in the kit's. (d) variant=pready:
the student's MPI-4 partitioned exchange (partitioned_init, pready_iteration); judged by the
checksum, the partitions each thread marked ready (partition_marks) and copied with the kit's
copy_partition (partition_copies), skipped with a note where
the library has no partitioned calls (partitioned_missing). The lab's own runs: the same exchange
funneled and multiple beside lab 04's pure MPI and masteronly, and the kit's MPI-4 partitioned
variant.

    runs = run_multiple(build_student_multiple(code), shapes=((2, 2),), nx=24, ny=12)
    judge_multiple(runs)                     # AssertionError naming why, in the grader's process
"""

from __future__ import annotations

import functools
import math
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..halo.exercise import (
    TYPE_CALLS,
    assert_halo_messages,
    assert_overlap_calls,
    assert_rows_once,
    assert_windows_covered,
    overlap_rows,
)
from ..halo.serial import check_grid, jacobi2d
from ..kernels import archer
from ..kernels.build import Kernel, build, has_partitioned
from ..kernels.c_cells import unanswered
from ..kernels.c_text import (
    CLOCKS_AND_SLEEPS,
    closing,
    comments_blanked,
    first_use,
    functions,
    inside_loop,
    loops,
    pragma_spans,
    statement_end,
    text_line,
)
from ..kernels.unit_checks import MPI_QUERIES
from ..paths import find_kernel_file
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import COMM_MAKERS, SENDRECVS, Results, as_frame
from ..runs.student_c import (
    COMPLETES,
    POSTS,
    SENDS,
    _within,
    blocking_calls,
    build_student,
    preprocessed_lines,
    request_ids,
)
from ..runs.student_c import _moves_data as _moves_window
from ..sync.exercise import inlined

LEVEL = "multiple"  # (a) and (b): threads other than the master call MPI, at once
STAGGER_US = 20000  # odd ranks start each exchange 20 ms late: even ranks' threads wait together
OVERLAP_POINTS = 8192  # (b): interior points per rank from which overlap is judged (lab 04's)
ANY_TAG = -1  # MPI_ANY_TAG in MPICH and Open MPI: a receive that matches every tag
DOUBLE = 8  # bytes of a grid value
POINT_TO_POINT = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Isend",
                  "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv", *SENDRECVS,
                  "MPI_Send_init", "MPI_Recv_init", "MPI_Psend_init", "MPI_Precv_init")  # fmt: skip
# (a) moves each slice with these (and makes and asks its threads' communicators, and may send
# a slice as a derived datatype it makes, commits and frees: a fresh attacker's right answer with
# a committed MPI_Type_contiguous per slice lost 4/4, 2026-12-04): a collective, a shared window
# or a neighbourhood collective moving the rows is another method
# (and frees a persistent request once it is done with it, no more MPI_Request_free than the
# rank set up persistent requests: attacker B's B12r13, persistent requests freed after their
# MPI_Waitall, lost 4/4 as "another method", 2026-12-04)
# (and asks MPI's queries of values, MPI_Query_thread among them: a fresh attacker's right answer
# L12r14 checked the level it was given and lost 4/4 as "another method", 2026-12-05)
# (and makes its threads' communicators any way MPI offers, MPI_Comm_dup_with_info or from a
# group among them, and may send by MPI-4's MPI_Isendrecv: a fresh attacker's right answers
# L12r13 and L12r8 were refused at the build, the tracer had no entry for them, 2026-12-05)
MULTIPLE_CALLS = (*POINT_TO_POINT, *COMPLETES, "MPI_Start", "MPI_Startall", *COMM_MAKERS,
                  "MPI_Comm_rank", "MPI_Comm_size", "MPI_Barrier", "MPI_Request_free",
                  *TYPE_CALLS, *MPI_QUERIES)  # fmt: skip
POLLS = ("MPI_Testany", "MPI_Testsome")  # the tracer names the requests these completed, only
PARTITIONED_SETUP = ("MPI_Psend_init", "MPI_Precv_init")
MARKS = ("MPI_Pready", "MPI_Pready_range", "MPI_Pready_list")  # calls that mark partitions ready
STAMPS = ("inline_rows", "inline_calls", "nested_rows", "edges_after_calls",
          "interior_after_calls")  # (b), task_stamps
_TASK_DEPEND = re.compile(r"#\s*pragma\s+omp\s+task\b[^\n]*\bdepend\s*\(")
# (b): the edge tasks wait for the exchange by depend alone, in the preprocessed unit: no wait
# construct with a task after it (a taskwait or barrier at the very end is fine), no if() or
# final() clause (an undeferred task)
_WAITS = re.compile(r"#\s*pragma\s+omp\s+(taskwait|taskgroup|barrier)\b")
# every construct that creates tasks (a fresh attacker's edges came from a taskloop after a
# taskwait, 4/4 kept, 2026-12-03)
_TASK = re.compile(r"#\s*pragma\s+omp\s+(?:task|taskloop|target)\b")
_UNDEFERRED = re.compile(r"#\s*pragma\s+omp\s+(?:task|taskloop)\b[^\n]*\b(if|final)\s*\(")
# (b): what holds an edge task until the exchange is done other than depend: a lock the
# exchange's task opens (a fresh attacker's omp_lock_t gate beside a depend clause for show, 4/4
# kept, 2026-12-03), a critical section or ordered block; and (b), (d): a clock read or a sleep,
# which times a wait (a fresh attacker's (d) threads each spun 20 ms x t on omp_get_wtime before
# copying, so they took turns, 4/4 kept, 2026-12-03)
_LOCKS = re.compile(r"#\s*pragma\s+omp\s+(?:critical|ordered)\b"
                    r"|#\s*pragma\s+omp\b[^\n]*\bordered\b"
                    r"|\bomp_(?:set|test)_(?:nest_)?lock\b"
                    r"|\bpthread_(?:mutex|spin|rwlock|cond)_(?:timed)?(?:lock|trylock|rdlock|wrlock|wait)\b"
                    r"|\bsem_(?:timed|try)?wait\b")
# what a task waiting on a flag of the cell's own is made of, in place of depend
# (an atomic read, write, capture or compare, its clauses in any order: a fresh attacker's
# `omp atomic seq_cst read` slipped past `atomic\s+read`, threads in turns kept 4/4, 2026-12-04)
_FLAG_WAIT = re.compile(r"#\s*pragma\s+omp\s+(?:taskyield|flush)\b"
                        r"|#\s*pragma\s+omp\s+atomic\b[^\n]*\b(?:read|write|capture|compare"
                        r"|seq_cst|acquire|release|acq_rel|relaxed)\b"
                        r"|\b(?:volatile|_Atomic|__atomic_\w+|__sync_\w+)\b")


def _checksum(res: Results) -> float:
    return float(res.records.query("record == 'checksum'")["checksum"].iloc[0])


def _assert_checksum(res: Results, nx: int, ny: int, iterations: int, where: str) -> float:
    want, _ = jacobi2d(nx, ny, iterations)
    got = _checksum(res)
    assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (
        f"{where}: checksum {got!r}, expected {want!r}: the halo rows do not hold the "
        "neighbours' edge rows (every column of both rows, every iteration)")
    return got


# lab 12's cells run on the kit's host team: no target or teams construct, no device memory call
# (a target region's host fallback starts from fresh ICVs, where the kit's task stamps live: a
# fresh attacker's J12tgt did lab 04's overlap by hand in `omp target`, untraced as tasks, 4/4,
# 2026-12-05)
# (the directive's name, not a clause's variable named target: depend(in: target) is fine; a
# metadirective that may pick a target construct too)
_OFFLOAD = re.compile(r"#\s*pragma\s+omp\s+(?:(?:begin|end)\s+)?(?:declare\s+)?(?:target|teams)\b"
                      r"|#\s*pragma\s+omp\s+(?:begin\s+)?metadirective\b[^\n]*\b(?:target|teams)\b"
                      r"|\bomp_target_\w+")


def offload_faults(text: str, allowed: str, cell_lines: list[int] | None = None) -> list[str]:
    """A target or teams construct (or an omp_target_ call) in preprocessed C, named with its
    line and what the part allows instead (`allowed`)."""
    found = _OFFLOAD.search(text)
    if not found:
        return []
    shown = re.sub(r"#\s*pragma\s+", "", found.group(0)).strip()
    return [f"no {shown} (line {text_line(text, found.start(), cell_lines)}): lab 12 runs on the "
            f"host threads of the kit's team, no target or teams region; {allowed}"]


def build_student_multiple(code: str, name: str = "student_multiple") -> Kernel:
    """Compile the student's thread_comms and exchange_slice with thread_halo (variant=multiple),
    traced; BuildError names the cell's lines, ValueError a target construct (offload_faults)."""
    if not unanswered(code):
        text, cell_lines = _preprocessed("HL_STUDENT_MULTIPLE", code)
        faults = offload_faults(text, "each thread of the team calls exchange_slice and moves "
                                      "its own slice with MPI calls", cell_lines)
        if faults:
            raise ValueError("exchange_slice: " + "; ".join(faults))
    return build_student(name, "thread_halo", "HL_STUDENT_MULTIPLE", code,
                         ("thread_comms", "exchange_slice"))  # fmt: skip


def build_student_tasks(code: str, name: str = "student_tasks") -> Kernel:
    """Compile the student's task_iteration with thread_halo (variant=tasks), traced; ValueError
    naming what is missing when the code, preprocessed (comments and #if'd-out lines gone), does
    not make the edge tasks wait by depend alone (task_construct_faults)."""
    if not unanswered(code):
        faults = task_construct_faults(*_preprocessed("HL_STUDENT_TASKS", code))
        if faults:
            raise ValueError("task_iteration: " + "; ".join(faults))
    return build_student(name, "thread_halo", "HL_STUDENT_TASKS", code, ("task_iteration",),
                         TASKS_FLAGS)  # fmt: skip


# each task the cell creates starts with a stamp of its own (kernels_c/thread_halo.c wraps
# libgomp's task and taskloop entries: r12e's interior tasks, created by the posting task)
TASKS_FLAGS = ("-Wl,--wrap=GOMP_task,--wrap=GOMP_taskloop,--wrap=GOMP_taskloop_ull"
               ",--wrap=omp_fulfill_event",)


def task_construct_faults(text: str, cell_lines: list[int] | None = None) -> list[str]:
    """What keeps preprocessed C from making its edge tasks wait by depend alone: no task with a
    depend clause; a taskwait, taskgroup or barrier with a task created after it; a task with an
    if() or final() clause; a flag watched (taskyield, flush, volatile, atomics); a target or
    teams construct (offload_faults)."""
    offload = offload_faults(text, "the exchange and the rows go in tasks (task, taskloop) the "
                                   "team that calls task_iteration runs", cell_lines)
    if not _TASK_DEPEND.search(text):
        return ["must create OpenMP tasks with depend clauses (#pragma omp task depend(...))",
                *offload]
    faults = offload
    waits = [m for m in _WAITS.finditer(text) if not _wait_at_end(text, m)]
    if waits:
        faults.append(f"no {waits[0].group(1)} between the tasks (line "
                      f"{text_line(text, waits[0].start(), cell_lines)}): the edge tasks wait for the exchange "
                      "by their depend clauses alone (a taskwait as the very last statement of "
                      "task_iteration, the cell's last function, outside any loop, is allowed)")
    if _UNDEFERRED.search(text):
        faults.append("no if() or final() clause on a task: it makes the task undeferred, the "
                      "creating thread waiting for it")
    flag = next((m for m in _FLAG_WAIT.finditer(text) if not _polls_own_requests(text, m.start())),
                None)
    if flag:
        faults.append(f"no {flag.group(0).replace('#', '').strip()}: a task waits for the "
                      "exchange by its depend clause, not by watching a flag of its own (a "
                      "taskyield is allowed only in the exchange task's loop that runs until an "
                      "MPI_Test... of its requests sets the loop's flag)")
    held = _LOCKS.search(text) or first_use(CLOCKS_AND_SLEEPS, text)
    if held:
        shown = re.sub(r"#\s*pragma\s+", "", held.group(0)).strip(" (")
        faults.append(f"no {shown} (line {text_line(text, held.start(), cell_lines)}): a task waits for the "
                      "exchange by its depend clause, not on a lock, a critical section, a clock "
                      "or a sleep")
    return faults


def _polls_own_requests(text: str, pos: int) -> bool:
    """Whether the `#pragma omp taskyield` at `pos` yields in a task that completes its own
    requests by polling (a fresh attacker's right answer, 2026-12-06, lost 4/4): its innermost
    loop runs while NAME is 0 (`!NAME`, `NAME == 0`), an MPI_Test, _Testall, _Testany or
    _Testsome (hl_traced_ in the preprocessed unit) in that loop's body sets NAME (`&NAME`), and
    the loop lies inside a task with a
    depend(out), depend(inout) or depend(mutexinoutset) clause: the one the edge tasks depend
    on. A flag of the cell's own, set by another task, does not pass."""
    if not re.match(r"#\s*pragma\s+omp\s+taskyield\b", text[pos:]):
        return False
    around = [loop for loop in loops(text) if loop[1] <= pos < loop[2]]
    if not around:
        return False
    start, body, end = max(around, key=lambda loop: loop[1])
    head = re.match(r"(while|for)\s*\(", text[start:])
    if head:
        inside = text[start + head.end() : closing(text, start + head.end() - 1) - 1]
        condition = inside.split(";")[1] if head.group(1) == "for" and inside.count(";") == 2 else inside
    else:  # do { ... } while (condition);
        body_end = statement_end(text, body)
        tail = re.match(r"\s*while\s*\(", text[body_end:])
        if not tail:
            return False
        opening = body_end + tail.end() - 1
        condition = text[opening + 1 : closing(text, opening) - 1]
    flag = re.fullmatch(r"\s*(?:!\s*\(?\s*(\w+)\s*\)?|(\w+)\s*==\s*0|0\s*==\s*(\w+))\s*",
                        condition)
    if not flag:
        return False
    name = next(g for g in flag.groups() if g)
    tests = re.finditer(r"\b(?:hl_traced_)?MPI_Test(?:all|any|some)?\s*\(", text[body:end])
    if not any(re.search(rf"&\s*{name}\b", text[body + t.end() - 1 : closing(text, body + t.end() - 1)])
               for t in tests):
        return False
    return any(s <= start and end <= e for s, e, _ in pragma_spans(
        text, r"task\b[^\n]*\bdepend\s*\(\s*(?:out|inout|mutexinoutset)\b"))


def _preprocessed(define: str, code: str) -> tuple[str, list[int]]:
    """The cell's preprocessed text (student_c.preprocessed) and the cell's line of each of its
    lines."""
    pairs = preprocessed_lines("thread_halo", define, code)
    return "\n".join(text for _, text in pairs), [line for line, _ in pairs]


def _wait_at_end(text: str, wait: re.Match) -> bool:
    """Whether a taskwait, taskgroup or barrier stands at the very end of task_iteration, the
    cell's last function, outside any loop, nothing but closing braces after it: then no task
    can be created after it (a wait before a task-creating construct, in a helper, or in a loop
    lets tasks be created after it)."""
    rest = text[text.find("\n", wait.end()) if "\n" in text[wait.end():] else len(text):]
    rest = re.sub(r"^\s*#[^\n]*", "", rest, flags=re.M)  # line markers
    if rest.strip(" \t\n;}") or _TASK.search(text, wait.end()) or inside_loop(text, wait.start()):
        return False
    enclosing = [name for name, start, end in functions(text) if start <= wait.start() < end]
    return enclosing == ["task_iteration"]


def point_to_point(res: Results) -> pd.DataFrame:
    """The student's point-to-point calls: rank, thread, call, start, end, comm_id, tag, count,
    peer (an MPI_COMM_WORLD rank, NO_PEER for MPI_PROC_NULL), bytes and an MPI_Sendrecv's
    receive side (recv_peer, recv_bytes)."""
    calls = res.mpi_calls
    mine = calls[(calls["student"] == 1) & calls["call"].isin(POINT_TO_POINT)]
    return mine[["rank", "thread", "call", "start", "end", "comm_id", "tag", "count", "peer",
                 "bytes", "recv_peer", "recv_bytes"]]  # fmt: skip


def neighbour_bytes(calls: pd.DataFrame) -> pd.Series:
    """Per (rank, thread): the bytes of the student's point-to-point messages with a neighbour,
    another rank (not MPI_PROC_NULL, not the rank itself), sent and received."""
    def real(peer: pd.Series, nbytes: pd.Series) -> pd.Series:
        return nbytes.where((peer >= 0) & (peer != calls["rank"]) & (nbytes > 0), 0)

    moved = real(calls["peer"], calls["bytes"]) + real(calls["recv_peer"], calls["recv_bytes"])
    return moved.groupby([calls["rank"], calls["thread"]]).sum()


def _neighbours(rank: int, ranks: int) -> list[int]:
    """A rank's neighbouring ranks in the grid's row split (up, down; none past the edges)."""
    return [r for r in (rank - 1, rank + 1) if 0 <= r < ranks]


SENDS_FROM = ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend",
              "MPI_Ibsend", "MPI_Irsend", "MPI_Send_init")  # fmt: skip
RECEIVES_INTO = ("MPI_Recv", "MPI_Irecv", "MPI_Recv_init")
# (a): the grid's rows a message names, by the kernel's "halo_rows" record
_ROW_KEYS = (("row_0", "row 0"), ("row_1", "row 1"), ("row_m", "row m"), ("row_m1", "row m + 1"))


def _sides(c) -> list[tuple[int, int, int]]:
    """A point-to-point call's sides that move values with another rank: (buffer address, bytes)
    of its send side (the tracer's "sent", or "buffer" for MPI_Send_init and
    MPI_Sendrecv_replace) and of its receive side ("buffer"), each with its peer."""
    def real(peer, nbytes) -> bool:
        return peer == peer and nbytes == nbytes and peer >= 0 and peer != c.rank and nbytes > 0

    sent = getattr(c, "sent", 0)
    sent = int(sent) if sent == sent and sent else 0
    out = []
    if c.call in SENDS_FROM or c.call in SENDRECVS:
        if real(c.peer, c.bytes):
            out.append((sent or int(c.buffer), int(c.bytes), int(c.peer)))
    if c.call in RECEIVES_INTO and real(c.peer, c.bytes):
        out.append((int(c.buffer), int(c.bytes), int(c.peer)))
    if c.call in SENDRECVS and real(c.recv_peer, c.recv_bytes):
        out.append((int(c.buffer), int(c.recv_bytes), int(c.recv_peer)))
    return out


def slice_faults(res: Results, ranks: int, threads: int, nx: int) -> list[str]:
    """Whether each thread moved one slice of columns of its own: per rank and thread, the
    columns its messages with another rank sent from and received into each of the grid's rows
    (the tracer's send and receive buffer addresses and bytes against the kernel's "halo_rows"
    record), the same columns in every row the rank exchanges (rows 0 and 1 with a rank above,
    m and m + 1 with one below), and a buffer in the grid's halo rows. Thread t sending slice s
    upwards and slice s' downwards (a fresh attacker's message for slice s and direction d
    handled by thread (2s + d) % T: with T = 2 thread 0 moved every slice up, thread 1 every
    slice down, 4/4 kept, 2026-12-04) moves no slice of its own; nor does a thread moving more
    than a slice's columns, ceil(nx / T) (thread 0 moving all but one column per other thread)."""
    calls = res.mpi_calls
    calls = calls[(calls["student"] == 1) & calls["call"].isin(POINT_TO_POINT)]
    if "sent" not in calls.columns:
        calls = calls.assign(sent=0)
    records = res.records[res.records["record"] == "halo_rows"]
    faults = []
    for rank in range(ranks):
        rows = records[records["rank"] == rank]
        if rows.empty:
            return [f"rank {rank}: the kernel recorded no halo_rows"]
        starts = {name: int(rows[key].iloc[0]) for key, name in _ROW_KEYS}
        want = (["row 0", "row 1"] if rank > 0 else []) + (["row m", "row m + 1"]
                                                           if rank < ranks - 1 else [])  # fmt: skip
        mine = calls[calls["rank"] == rank]
        for t in range(threads):
            columns: dict[str, set[int]] = {name: set() for name in want}
            for c in mine[mine["thread"] == t].itertuples():
                for address, nbytes, _ in _sides(c):
                    row = next((name for name, start in starts.items()
                                if start <= address < start + nx * DOUBLE), None)  # fmt: skip
                    if row is None:
                        faults.append(
                            f"rank {rank} thread {t}: {c.call} names a buffer that is not in the "
                            "grid's rows 0, 1, m or m + 1: each thread sends its slice from the "
                            "grid's rows 1 and m and receives it into rows 0 and m + 1 (&a[...])")
                        break
                    first = (address - starts[row]) // DOUBLE + 1
                    columns.setdefault(row, set()).update(
                        range(first, first + -(-nbytes // DOUBLE)))
            if len({frozenset(cols) for cols in columns.values()}) > 1:
                shown = "; ".join(f"{row}: {_columns(cols)}" for row, cols in columns.items())
                faults.append(f"rank {rank} thread {t} moved different columns in different rows "
                              f"({shown}): each thread sends and receives its own slice, the "
                              "same columns in rows 1 and 0 with the rank above and m and "
                              "m + 1 with the rank below")
            moved = max((len(cols) for cols in columns.values()), default=0)
            if moved > -(-nx // threads):  # a slice is nx / T columns, rounded up at most
                faults.append(f"rank {rank} thread {t} moved {moved} of the {nx} columns: each "
                              f"of the {threads} threads moves its own slice, at most "
                              f"{-(-nx // threads)} columns (a fresh attacker's thread 0 moving all "
                              "but one column per other thread was 4/4 before)")
    return faults


def _columns(cols: set[int]) -> str:
    """A set of columns as text: "columns 1 to 6", "4 columns from 1 to 12", "none"."""
    if not cols:
        return "none"
    lo, hi = min(cols), max(cols)
    return (f"columns {lo} to {hi}" if len(cols) == hi - lo + 1
            else f"{len(cols)} columns from {lo} to {hi}")  # fmt: skip


def _halo_bytes(rank: int, ranks: int, nx: int, iterations: int) -> int:
    """The bytes a rank's exchanges move with its neighbours over a run: two rows of nx doubles
    (one sent, one received) per neighbouring rank and iteration."""
    return len(_neighbours(rank, ranks)) * 2 * nx * DOUBLE * iterations


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


def _moves_data(calls: pd.DataFrame) -> pd.Series:
    """Per call (one rank's or many): whether it is a point-to-point call with another rank that
    moves values (a peer that is not MPI_PROC_NULL nor the rank itself, bytes > 0, on either side
    of an MPI_Sendrecv): messages of no values, to nobody or to itself move nothing."""
    def real(peer: str, nbytes: str) -> pd.Series:
        return (calls[peer] >= 0) & (calls[peer] != calls["rank"]) & (calls[nbytes] > 0)

    return calls["call"].isin(POINT_TO_POINT) & (real("peer", "bytes")
                                                 | real("recv_peer", "recv_bytes"))  # fmt: skip


def _completed(c, persistent: dict[int, bool]) -> int:
    """How many requests that are not persistent a completion call that reported done
    completed: an MPI_Waitall's or MPI_Testall's live requests (those given that were not
    MPI_REQUEST_NULL), an MPI_Wait's or MPI_Test's one, an MPI_Waitany's, _Waitsome's,
    _Testany's or _Testsome's named ones; the persistent ones among them left out."""
    ids = request_ids(c)
    kept = sum(i in persistent for i in ids)
    if c.call in ("MPI_Waitall", "MPI_Testall"):
        live = c.live if c.live == c.live else len(ids)
        return max(int(live) - kept, 0)
    return len(ids) - kept


def exchange_calls(res: Results) -> pd.DataFrame:
    """The student's calls that exchange values with a neighbouring rank: point-to-point calls
    that move values (_moves_data; not the set-up of a persistent request, which moves nothing
    yet), and completion calls (MPI_Wait... MPI_Test...) of a request in flight that moves
    values. A call of no values, to MPI_PROC_NULL or to the rank itself, a completion of
    MPI_REQUEST_NULL, of nothing, of only such calls' requests or of a persistent request not
    started again is no exchange: a thread spinning on them waits for its turn, it does not
    exchange (lab 12 (a): a fresh attacker's threads took turns in a critical section, then made
    two zero-value MPI_Sendrecv calls all at once).

    The tracer names the requests a completion is given or completed (MPI_Request_c2f), a
    persistent set-up's request and the one a non-blocking send or receive returned ("posted"):
    a completion counts when a request it names is a posting that moves values, not yet
    completed (an MPI_Waitany that returned an MPI_PROC_NULL request completed no exchange, and
    one that returned a neighbour's message did: a fresh attacker's right answer completing
    with MPI_Waitany lost 4/4 when the PROC_NULL completions were booked against the real
    postings, 2026-12-04). Without "posted" (a posting whose handle the tracer could not read)
    the non-blocking calls are counted: a persistent request (MPI_Send_init,
    MPI_Recv_init) is in flight from its MPI_Start (every one of the rank's at an MPI_Startall,
    which names none) to a completion that reported it done; the non-blocking calls are counted
    per thread (MPI completes a request on the thread that waits for it, which in (a) is the
    thread that posted it): a completion counts while its thread has a posting that moves values
    not yet completed, and what a completion completes is taken from those first (a thread
    completing its real messages in a critical section and waiting outside it for messages of
    no values has none left).

    An MPI_Testany or MPI_Testsome that completed nothing (polling) names no request: the tracer
    keeps only the ones these complete. Such a poll counts while its thread has a posting that
    moves values open (by its request, or a persistent request that moves values it started
    and no completion reported done yet) and nothing else it could be polling is open on the
    rank: no posting of no values that stays open (to the rank itself, an empty message; an
    MPI_PROC_NULL one completes at once, and a poll given it completes it), no persistent
    request of no values started and not completed (one to MPI_PROC_NULL completes at once;
    an inactive one is polled as done at once), and no MPI_Request_free made while a posting
    was open (a freed request's posting looks open for ever; a free of a thread's persistent
    requests ends its started ones' flight). An MPI_Startall names none: it starts the
    thread's own set-ups not in flight, else every one of the rank's. (A fresh attacker's right
    answer polling with MPI_Testany had only its polls that completed a request counted,
    together in 3 of 6 iterations, and lost 4/4, 2026-12-04; its polls are inside MPI as much
    as an MPI_Test's, which names its request. Another's, with persistent requests per thread
    (MPI_Recv_init, MPI_Send_init, MPI_Startall, MPI_Testany or MPI_Testsome, MPI_Request_free),
    lost 4/4 the same way while any persistent set-up made every poll unsure, 2026-12-04.)"""
    calls = res.mpi_calls
    calls = calls[(calls["student"] == 1)
                  & calls["call"].isin((*POINT_TO_POINT, *COMPLETES, "MPI_Start", "MPI_Startall",
                                        "MPI_Request_free"))].sort_values("start")  # fmt: skip
    if "live" not in calls.columns:
        calls = calls.assign(live=float("nan"))
    if "posted" not in calls.columns:
        calls = calls.assign(posted=-1)
    moves = _moves_data(calls)
    setups = ("MPI_Send_init", "MPI_Recv_init", *PARTITIONED_SETUP)
    keep = []
    for _, mine in calls.groupby("rank", sort=False):
        persistent: dict[int, bool] = {}  # a persistent request's number -> it moves values
        flight: set[int] = set()  # the persistent requests in flight that move values
        pending: dict[int, list[int]] = {}  # per thread: [postings moving values, others] open
        posted: dict[int, bool] = {}  # a named posting's request -> it moves values, open
        owner: dict[int, int] = {}  # a named posting's request -> the thread that posted it
        idle: set[int] = set()  # named postings of no values that stay open (not MPI_PROC_NULL)
        unsure = False  # a request freed while a posting was open: polls name nothing sure
        made_by: dict[int, int] = {}  # a persistent request -> the thread that set it up
        nowhere: set[int] = set()  # persistent requests to MPI_PROC_NULL
        starter: dict[int, int] = {}  # a persistent request in flight -> the thread that started it
        quiet: set[int] = set()  # persistent requests of no values started, not MPI_PROC_NULL
        for c in mine.itertuples():
            own = None if c.request != c.request or int(c.request) == -1 else int(c.request)
            handle = -1 if c.posted != c.posted else int(c.posted)
            open_ = pending.setdefault(int(c.thread), [0, 0])
            if c.call in COMPLETES:
                ids = request_ids(c)
                # once each: MPICH hands every MPI_PROC_NULL posting the same (predefined) request
                named = list(dict.fromkeys(i for i in ids if i in posted))
                done = c.done == c.done and int(c.done) == 1
                polled = (c.call in POLLS and not ids and not done and c.live == c.live
                          and int(c.live) > 0 and not (unsure or idle or quiet)
                          and not any(o[1] for o in pending.values())
                          and (open_[0] > 0 or any(moving and owner.get(i) == c.thread
                                                   for i, moving in posted.items())
                               or any(starter.get(i) == c.thread for i in flight)))  # fmt: skip
                if flight & set(ids) or any(posted[i] for i in named) or (open_[0] > 0 and ids
                                                                         and not named) or polled:
                    keep.append(c.Index)
                if done:
                    flight -= set(ids)
                    quiet -= set(ids)
                    idle -= set(named)
                    for i in named:
                        posted.pop(i, None)
                    left = _completed(c, persistent) - len(named)
                    first = min(max(left, 0), open_[0])
                    open_[0] -= first
                    open_[1] = max(open_[1] - (left - first), 0)
            elif c.call == "MPI_Request_free":
                # the tracer does not name the freed request: a posting open anywhere on the
                # rank may be it (it would look open for ever); else a persistent one, and the
                # thread's started ones are no longer counted as in flight for its polls
                if posted or any(o[0] or o[1] for o in pending.values()):
                    unsure = True
                for i in [i for i, by in starter.items() if by == c.thread]:
                    flight.discard(i)
                    del starter[i]
            elif c.call in ("MPI_Start", "MPI_Startall"):
                if c.call == "MPI_Start":
                    chosen = {own} if own is not None and own in persistent else set()
                else:  # names none: the thread's own set-ups, else every one of the rank's
                    idle_ones = {i for i in persistent if i not in flight and i not in quiet}
                    chosen = ({i for i in idle_ones if made_by.get(i) == c.thread}
                              or idle_ones)  # fmt: skip
                for i in chosen:
                    if persistent[i]:
                        flight.add(i)
                        starter[i] = int(c.thread)
                    elif i not in nowhere:
                        quiet.add(i)
            elif c.call in setups:
                if own is not None:
                    persistent[own] = bool(moves.loc[c.Index])
                    made_by[own] = int(c.thread)
                    if c.peer == c.peer and int(c.peer) == -1:
                        nowhere.add(own)
                    else:
                        nowhere.discard(own)
                    flight.discard(own)
                    quiet.discard(own)
                    starter.pop(own, None)
            elif c.call in POSTS and handle != -1:
                posted[handle] = bool(moves.loc[c.Index])
                owner[handle] = int(c.thread)
                if posted[handle]:
                    keep.append(c.Index)
                elif not (c.peer == c.peer and int(c.peer) == -1):
                    idle.add(handle)
            elif moves.loc[c.Index]:
                keep.append(c.Index)
                open_[0] += c.call in POSTS
            else:
                open_[1] += c.call in POSTS
    return calls.loc[keep]


def concurrent_threads(res: Results) -> pd.Series:
    """Per rank: how many of the student's exchange calls (exchange_calls: calls that move values
    with a neighbour, completions of their requests) began while an exchange call of another
    thread of the rank was inside MPI (an MPI_Comm_rank made beside another thread's wait, or
    a message of no values sent by every thread at once, is no exchange of its own)."""
    calls = exchange_calls(res)
    counts = {}
    for rank, mine in calls.sort_values("start").groupby("rank"):
        rows, n = list(mine.itertuples()), 0
        for i, c in enumerate(rows):
            n += any(o.thread != c.thread and o.start <= c.start < o.end for o in rows[:i])
        counts[rank] = n
    return pd.Series(counts, name="concurrent", dtype=int)


def concurrent_iterations(res: Results, iterations: int) -> pd.DataFrame:
    """Per rank and iteration (the kernel's step, marked before each exchange): how many of the
    student's exchange calls (exchange_calls) began while an exchange call of another thread of
    the rank was inside MPI, in that iteration; every iteration 0 .. iterations - 1 of every
    rank that made an exchange call, 0 where none overlapped."""
    calls = exchange_calls(res)
    if "step" not in calls.columns:
        calls = calls.assign(step=-1)
    rows = []
    for rank, mine in calls.groupby("rank"):
        counts = dict.fromkeys(range(iterations), 0)
        for step, made in mine.sort_values("start", kind="stable").groupby("step"):
            ends: dict = {}  # per thread, the latest end of its calls begun so far
            n = 0
            for c in made.itertuples():  # (in order of start: one pass, not every pair, so
                n += any(t != c.thread and end > c.start for t, end in ends.items())  # a polling
                ends[c.thread] = max(ends.get(c.thread, c.end), c.end)  # answer's 75,000 calls
            counts[int(step)] = n  # took 40 s to judge, past the graded test's limit)
        rows += [{"rank": int(rank), "iteration": it, "concurrent": n}
                 for it, n in sorted(counts.items()) if 0 <= it < iterations]  # fmt: skip
    return pd.DataFrame(rows, columns=["rank", "iteration", "concurrent"])


def together_faults(table: pd.DataFrame, iterations: int) -> str:
    """Empty when, in more than half of the iterations, exchange calls of different threads were
    inside MPI together on some rank (concurrent_iterations); else how many iterations had it:
    the threads took turns in most iterations (a fresh attacker's threads exchanged together in
    the first iteration and in turns on an atomic counter after it, 4/4 kept when one overlap
    in the run was enough, 2026-12-03). Some rank, not every even one: on the grader's
    oversubscribed cores a rank's threads may not run at once in an iteration (the solution's
    last rank at 3x2 overlapped in 2 of 5)."""
    together = table[table["concurrent"] > 0]["iteration"].nunique()
    return "" if 2 * together > iterations else f"{together} of {iterations} iterations"


def _runs(kernel: Kernel, variant: str, shapes: tuple[tuple[int, int], ...], nx: int, ny: int,
          iterations: int, timeout: float) -> list[dict]:  # fmt: skip
    """Run the student's `variant` at MULTIPLE (odd ranks staggered) at every (ranks, threads):
    per shape its size and the run's evidence (Results.evidence), for the grader to judge."""
    out = []
    for ranks, threads in shapes:
        check_grid(nx, ny, ranks)
        res = run_program(kernel, ranks=ranks, threads=threads, thread_level=LEVEL,
                          variant=variant, nx=nx, ny=ny, iterations=iterations,
                          stagger_us=STAGGER_US if ranks > 1 else 0, timeout=timeout)  # fmt: skip
        out.append({"ranks": ranks, "threads": threads, "nx": nx, "ny": ny,
                    "iterations": iterations, "run": res.evidence()})  # fmt: skip
    return out


def _judged_runs(runs: list[dict]):
    """Each run handed out by _runs, rebuilt and checked: its checksum against jacobi2d's and its
    thread compliance at MULTIPLE; yields (shape, results, where it ran, checksum)."""
    for shape in runs:
        res = Results.from_evidence(shape["run"])
        nx, ny, iterations = int(shape["nx"]), int(shape["ny"]), int(shape["iterations"])
        where = f"{shape['ranks']}x{shape['threads']} ({nx}x{ny}, {iterations} iterations)"
        got = _assert_checksum(res, nx, ny, iterations, where)
        compliance.check(res, LEVEL)
        yield shape, res, where, got


def run_multiple(kernel: Kernel, shapes: tuple[tuple[int, int], ...] = ((2, 2),), nx: int = 24,
                 ny: int = 12, iterations: int = 4, timeout: float = 30.0) -> list[dict]:  # fmt: skip
    """The student's MULTIPLE exchange run at every (ranks, threads): the evidence judge_multiple
    reads (a hidden cell hands it out of the kernel). A deadlock ends as KernelTimeout."""
    return _runs(kernel, "multiple", shapes, nx, ny, iterations, timeout)


def judge_multiple(runs: list[dict]) -> list[dict]:
    """Judge run_multiple's evidence, in the grader's process.

    Checks, per shape: the checksum equals jacobi2d's; with 2+ ranks and 2+ threads, every thread
    of every rank exchanged bytes with a neighbour (a peer that is another rank, not
    MPI_PROC_NULL, and a message of at least one value: calls to nobody, empty messages and
    messages to itself are padding), the threads of a rank together no more bytes than the halo
    rows (every value once: values sent beside the slices are padding too), as many
    point-to-point calls as every other thread of its rank (not thread 0 alone, nor thread
    0 for all beside calls for show: that is FUNNELED), none sent or received more than
    ceil(nx / threads) values in one call (its slice), each thread's messages on one slice of
    columns of its own, in the grid's rows (slice_faults), exchange calls of different threads
    (exchange_calls: calls moving values with a neighbour, completions of their requests) were
    inside MPI at the same time on some rank in most iterations (odd ranks start each
    exchange STAGGER_US late, so the even ranks' threads wait inside MPI together:
    concurrent_iterations, together_faults), and no (communicator, tag) is shared by two
    threads of a rank. Returns one row per shape."""
    rows = []
    for shape, res, where, got in _judged_runs(runs):
        ranks, threads, nx = int(shape["ranks"]), int(shape["threads"]), int(shape["nx"])
        calls = point_to_point(res)
        row = {"ranks": ranks, "threads": threads, "checksum": got}
        made_by_cell = set(res.mpi_calls.loc[res.mpi_calls["student"] == 1, "call"])
        other = sorted(made_by_cell - set(MULTIPLE_CALLS))
        assert not other, (f"{where}: {', '.join(other)}: each thread moves its own slice by its "
                           "own point-to-point messages; nothing else moves the rows (a "
                           "collective or a window moving them is another method)")  # fmt: skip
        own = res.mpi_calls[res.mpi_calls["student"] == 1]
        # the tracer's thread is omp_get_thread_num() of the innermost team: a team nested in
        # the kit's region would number its threads as the kit's (a fresh attacker's J12tgt:
        # outer thread 0 alone opened a nested team whose thread k sent slice k, 4/4,
        # 2026-12-05); exchange_slice runs on the kit's team (level 1), thread_comms outside it
        nested = own[own["level"] > 1] if "level" in own else own.iloc[0:0]
        assert nested.empty, (
            f"{where}: {len(nested)} MPI calls ({nested['call'].iloc[0] if len(nested) else ''}, "
            f"level {int(nested['level'].max()) if len(nested) else 0}) made inside a parallel "
            "region opened in exchange_slice: each thread of the kit's team, the one that calls "
            "exchange_slice, exchanges its own slice itself - no team of its own")
        for rank, mine in own.groupby("rank"):
            made = int(mine["call"].isin(["MPI_Send_init", "MPI_Recv_init"]).sum())
            freed = int((mine["call"] == "MPI_Request_free").sum())
            assert freed <= made, (
                f"{where}: rank {rank}: {freed} MPI_Request_free but {made} persistent requests "
                "set up: a thread's messages are completed by a wait or test; only a persistent "
                "request (MPI_Send_init, MPI_Recv_init), inactive after its wait, is freed, no "
                "request before it completed")
        if ranks > 1 and threads > 1:
            moved = neighbour_bytes(calls)
            silent = [f"rank {r} thread {t}" for r in range(ranks) for t in range(threads)
                      if moved.get((r, t), 0) <= 0]  # fmt: skip
            assert not silent, (f"{where}: {', '.join(silent)} exchanged nothing with a neighbour "
                                "(messages to MPI_PROC_NULL, to the rank itself or of no values "
                                "move nothing): every thread exchanges its own slice with the "
                                "neighbouring ranks (thread 0 sending for all is the FUNNELED "
                                "pattern)")  # fmt: skip
            iterations = int(shape["iterations"])
            extra = [f"rank {r}: {int(moved.loc[r].sum())} bytes, the halo rows "
                     f"{_halo_bytes(r, ranks, nx, iterations)}" for r in range(ranks)
                     if moved.loc[r].sum() > _halo_bytes(r, ranks, nx, iterations)]  # fmt: skip
            assert not extra, (f"{where}: bytes exchanged with neighbours, {'; '.join(extra)}: "
                               "every value once, each thread its own slice (one thread moving "
                               "every slice while the others send values of their own is the "
                               "FUNNELED pattern)")  # fmt: skip
            made = calls.groupby(["rank", "thread"]).size()
            uneven = [f"rank {r}: {dict(made.loc[r].items())}" for r in range(ranks)
                      if made.loc[r].nunique() > 1]  # fmt: skip
            assert not uneven, (f"{where}: point-to-point calls per thread, {'; '.join(uneven)}: "
                                "every thread exchanges its own slice with as many calls as the "
                                "others (one thread moving the slices of all, the others making "
                                "calls for show, is the FUNNELED pattern)")  # fmt: skip
            most = math.ceil(nx / threads) * DOUBLE
            big = calls[(calls["bytes"] > most) | (calls["recv_bytes"] > most)]
            assert big.empty, (
                f"{where}: {big['call'].iloc[0] if len(big) else ''} of "
                f"{int(big[['bytes', 'recv_bytes']].max().max()) // DOUBLE if len(big) else 0} "
                f"values by thread {int(big['thread'].iloc[0]) if len(big) else 0}: a thread "
                f"moves its own slice (at most {most // DOUBLE} of the {nx} columns), not the "
                "whole row")
            owned = slice_faults(res, ranks, threads, nx)
            assert not owned, f"{where}: {owned[0]}"
            shared = shared_keys(calls)
            assert not shared, (f"{where}: {shared[0]}: give each thread its own communicator "
                                "(or its own tags) so its messages cannot match another "
                                "thread's")  # fmt: skip
            table = concurrent_iterations(res, iterations)
            apart = together_faults(table, iterations)
            assert not apart, (
                f"{where}: exchange calls of different threads were inside MPI together in "
                f"{apart}: in most iterations (more than half) an exchange call of one thread "
                "begins while another thread's of its rank is inside MPI, on some rank (the even "
                "ranks' threads wait together for the late odd ranks; only calls that move values "
                "with a neighbour and the completions of their requests count, not messages of "
                "no values nor other calls): the threads took turns (a critical section, a lock "
                "or a counter taking turns around MPI is SERIALIZED, not MULTIPLE)")
            row["calls inside MPI together"] = int(table["concurrent"].sum())
        rows.append(row)
    return rows


def check_student_multiple(kernel: Kernel, shapes: tuple[tuple[int, int], ...] = ((2, 2),),
                           nx: int = 24, ny: int = 12, iterations: int = 4,
                           timeout: float = 30.0) -> list[dict]:  # fmt: skip
    """run_multiple and judge_multiple at once (the notebook's visible tests): AssertionError
    naming what failed, one row per shape."""
    return judge_multiple(run_multiple(kernel, shapes, nx, ny, iterations, timeout))


def run_tasks(kernel: Kernel, shapes: tuple[tuple[int, int], ...] = ((2, 2),), nx: int = 256,
              ny: int = 160, iterations: int = 3, timeout: float = 30.0) -> list[dict]:  # fmt: skip
    """The student's task iteration run at every (ranks, threads): the evidence judge_tasks
    reads."""
    return _runs(kernel, "tasks", shapes, nx, ny, iterations, timeout)


def judge_tasks(runs: list[dict]) -> list[dict]:
    """Judge run_tasks' evidence, in the grader's process.

    Checks, per shape: the checksum equals jacobi2d's (a row next to a halo computed before its
    message arrived reads NaN); no blocking point-to-point call (student_c.blocking_calls); every
    point-to-point message one halo row of nx values, at most one each way per neighbour and
    iteration (halo.exercise.assert_halo_messages: decoys kept in flight round an exchange done
    before the interior open windows of their own); with
    2+ ranks, 2+ threads and OVERLAP_POINTS interior points per rank, stencil_rows computed
    between the posting of the requests and their completion (student_c.overlap_table), some of
    it by a thread other than the one that waited for them (computed_beside_waits) or else none
    of the interior in the exchange's own task after its calls (task_stamps'
    interior_after_calls); and the tasks themselves (task_stamps,
    the kit's marks on the run-sched ICV, which each task keeps its own copy of): task_iteration's
    own body made no MPI call and no stencil_rows call outside a task, rows 1 and m were computed
    in tasks that had made no MPI call before (not in the exchange's task after its wait), and
    nothing ran in a parallel region nested in the iteration. Returns one row per shape."""
    rows = []
    for shape, res, where, got in _judged_runs(runs):
        ranks, threads = int(shape["ranks"]), int(shape["threads"])
        nx, ny = int(shape["nx"]), int(shape["ny"])
        blocking = blocking_calls(res)
        assert not blocking, (f"{where}: {', '.join(blocking)}: post MPI_Irecv and MPI_Isend in a "
                              "task and complete them with MPI_Waitall, so the other tasks run "
                              "while the messages travel")  # fmt: skip
        # one halo row each way per neighbour and iteration, no other message: messages kept in
        # flight beside an exchange done before the interior open windows of their own; no other
        # request (an MPI_Ibarrier, a request to MPI_PROC_NULL or to itself held open: attackH)
        assert_overlap_calls(res, where, function="task_iteration")
        assert_halo_messages(res, nx * DOUBLE, where)
        inside = 0.0
        if ranks > 1 and threads > 1 and (ny // ranks - 2) * nx >= OVERLAP_POINTS:
            windows = task_overlap_table(res)
            spans = task_step_windows(windows)
            inside = float(windows["computed_inside"].sum())
            assert inside > 0.0, _no_overlap(res, where, spans)
            own = int(task_stamps(res)["interior_after_calls"].sum())
            assert computed_beside_waits(res, windows) > 0.0 or own == 0, (
                f"{where}: only the threads that posted and waited for the requests computed "
                f"while they were open, and the interior rows came from the exchange's own task, "
                f"after its MPI calls ({own} stencil_rows calls): the interior goes in tasks of "
                "its own, created by task_iteration, which the other threads run while the "
                "exchange's task waits (a posting task and a waiting task are fine too, the "
                "interior tasks then running on any thread, the poster's included; a posting "
                "task that computes the interior itself is the overlap by hand of lab 04, not "
                "tasks)")
            # the exchange's own thread computing inside the window it posted and closed, in a
            # task that had made MPI calls: the overlap by hand, whatever the others did beside it
            by_hand = computed_by_exchange(res, windows) if own else 0
            assert not by_hand, (
                f"{where}: the thread that posted and completed the exchange computed {by_hand} "
                "interior rows while its requests were open, and the interior came from a task "
                f"after its MPI calls ({own} stencil_rows calls): the exchange's task computed the "
                "interior itself between its posting and its wait - the overlap by hand of lab "
                "04, not tasks, whatever token task another thread ran beside it. The interior "
                "goes in tasks of its own, which the other threads run while the exchange's task "
                "waits")
            # not one token task inside, the rest held for after the exchange; no row twice
            rows_traced = overlap_rows(res, spans)
            assert_rows_once(rows_traced, where)
            assert_windows_covered(rows_traced, where, early_ok=True)
        _assert_in_tasks(res, where)
        held = held_interior(res, threads)
        assert not held, (
            f"{where}: {held[0]}: the interior rows (2..m-1) go in tasks without depend, which "
            "the free threads run while the messages travel, in every iteration; not held for "
            "the exchange by a depend on its task (or on a task after it), nor created once the "
            "halos arrived")
        early = early_edges(res, threads)
        assert not early, (
            f"{where}: {early[0]}: rows 1 and m go in tasks created while the exchange is in "
            "flight that the runtime holds by depend(in: ...) on the exchange's task until it is "
            "done, not tasks that wait inside (a loop over the halo row, a flag) or tasks that "
            "another task creates once the halo arrived")
        rows.append({"ranks": ranks, "threads": threads, "checksum": got,
                     "seconds computed while the halos were in flight": inside})  # fmt: skip
    return rows


# (b): task_iteration's own time (the kit's "busy" of a task the body created: CPU time between
# its creations, wall time where it blocked in a system call) above which a body that created an
# edge task after its halo arrived waited for it: creating tasks takes microseconds; a body that
# spins until the exchange's task is done spends the exchange's time (the even ranks' 20 ms)
BODY_BUSY_S = 0.002


def _deps(text) -> list[tuple[str, str]]:
    """A task_run record's depend list (kernels_c/thread_halo.c's "deps": "o:<hex>,i:<hex>"):
    (kind, address) pairs, kind o (out, inout, mutexinoutset), i (in) or s (inoutset)."""
    if not isinstance(text, str) or not text:
        return []
    return [tuple(item.split(":", 1)) for item in text.split(",") if ":" in item]


def _conflict(later: list[tuple[str, str]], earlier: list[tuple[str, str]]) -> bool:
    """Whether the runtime orders a task with depend list `later` after an earlier sibling with
    `earlier`: an address in both, not in on both sides (nor inoutset on both); a null address
    in out (omp_all_memory) orders after every earlier task with a depend list."""
    if any(kind == "o" and addr == "0" for kind, addr in later + earlier) and later and earlier:
        return True
    return any(a == b and not (k == j and k in "is") for k, a in later for j, b in earlier)


class TaskGraph:
    """One rank's task_run records (kernels_c/thread_halo.c: id, parent, deps, start, waited;
    "event" and "fulfilled" where _with_events added them) indexed once: each task's parent,
    creation time and depend list, and each parent's children by creation time; the tasks that
    fulfilled each detached task's event; and each record's thread and interval, for the task
    round a piece of work (the judges ask the same questions of hundreds of rows)."""

    def __init__(self, tasks: pd.DataFrame):
        self.tasks = tasks
        self._spans: tuple | None = None  # thread, start, end as arrays, made on the first ask
        self.known = "deps" in tasks.columns and "id" in tasks.columns
        self.nodes: dict[int, tuple[int, float, list]] = {}
        self.children: dict[int, list[tuple[float, int]]] = {}
        self._answers: dict[tuple[int, int], bool] = {}
        self.fulfillers: dict[int, list[int]] = {}  # a detached task: who fulfilled its event
        if not self.known:
            return
        if "event" in tasks.columns and "fulfilled" in tasks.columns:
            by_event: dict[str, list[int]] = {}
            for tid, done in zip(tasks["id"].astype(int), tasks["fulfilled"], strict=True):
                for event in done:
                    by_event.setdefault(event, []).append(tid)
            for tid, event in zip(tasks["id"].astype(int), tasks["event"], strict=True):
                if event:
                    self.fulfillers[tid] = by_event.get(event, [])
        created = (tasks["start"] - tasks["waited"]).astype(float)
        for tid, parent, made, deps in zip(tasks["id"].astype(int), tasks["parent"].astype(int),
                                           created, tasks["deps"], strict=True):  # fmt: skip
            self.nodes[tid] = (parent, float(made), _deps(deps))
            self.children.setdefault(parent, []).append((float(made), tid))
        for kids in self.children.values():
            kids.sort()

    def around(self, thread, start, end):
        """The innermost task_run record on `thread` round the interval start..end (of those that
        began by `start` and ended at `end` or later, the last to begin), None when none is."""
        if self._spans is None:
            self._spans = tuple(self.tasks[c].to_numpy() for c in ("thread", "start", "end"))
        threads, starts, ends = self._spans
        hit = np.flatnonzero((threads == thread) & (starts <= start) & (ends >= end))
        if len(hit) == 0:
            return None
        latest = hit[starts[hit] == starts[hit].max()]
        if len(latest) == 1:
            return self.tasks.iloc[int(latest[0])]
        return self.tasks.iloc[hit].sort_values("start").iloc[-1]  # a tie: as pandas orders it

    def waits(self, task, producer) -> bool:
        """depend_waits, from the index (`task`, `producer`: task_run rows)."""
        if not self.known:
            return True  # a run without the kit's depend records: left to the other rules
        key = (int(task["id"]), int(producer["id"]))
        if key not in self._answers:
            self._answers[key] = self._search(task, key[1], float(producer["start"]) - float(producer["waited"]))
        return self._answers[key]

    def _search(self, task, pid: int, since: float) -> bool:
        start = (int(task["id"]), int(task["parent"]),
                 float(task["start"]) - float(task["waited"]), _deps(task["deps"]))  # fmt: skip
        chain, seen = [start], set()
        while chain:
            cid, parent, made_at, mine = chain.pop()
            if cid in seen:
                continue
            seen.add(cid)
            if cid == pid:
                return True
            # a detached task is done only once its event is fulfilled: what waits for it waits
            # for the task that fulfilled it (A2's l12_task_detach, 2026-12-07, a right answer)
            chain += [(fid, *self.nodes[fid]) for fid in self.fulfillers.get(cid, ())]
            for made, sid in self.children.get(parent, ()):
                if made >= made_at:
                    break
                if (made >= since or sid in self.fulfillers) and _conflict(mine, self.nodes[sid][2]):
                    chain.append((sid, *self.nodes[sid]))
            if parent and parent != pid and parent in self.nodes:  # the producer's own children
                chain.append((parent, *self.nodes[parent]))          # run while it runs
        return False


def depend_waits(tasks: pd.DataFrame, task, producer) -> bool:
    """Whether, by the depend lists the runtime got (kernels_c/thread_halo.c's task_run records
    of one rank: id, parent, deps, start, waited), `task` (or a task it descends from) waited for
    `producer`: a chain of sibling tasks, each created after the one before, each depend list
    conflicting with the previous (out against in, out or inout on one address), from the
    producer to the task or one of its creators (not the producer itself: a task it creates may
    run before it is done). Judges of many rows build one TaskGraph and ask it."""
    return TaskGraph(tasks).waits(task, producer)


def early_edges(res: Results, threads: int | None = None) -> list[str]:
    """Where a task that computed row 1 or m (the kit's stencil_rows intervals) did not wait for
    its halo row by depend: it began before the receive of that halo completed (it waited inside,
    spinning on the row: a fresh attacker's M12b_nanspin, 2026-12-05), or a task that had begun
    before created it after (its creator waited: task_iteration's own body creating it late is
    no fault, a slow creator on a busy machine). A halo's arrival is the end of the first completion call that
    reports done the request of the receive from that side's neighbour (row 0 comes from rank - 1
    for row 1, row m + 1 from rank + 1 for row m: the kernel's row split); the task is the
    innermost "task_run" of the kit's task wrapper (kernels_c/thread_halo.c) on the same thread
    round the interval. A row computed in no such task (a taskloop's task, which takes no depend
    clause, spinning on the row: a fresh attacker's p12bspin and p12bshow, 4/4 kept, 2026-12-05;
    or no task) is a fault too; one whose halo had no receive (the grid's edge) is left to the
    other rules.

    What the runtime linked, not the names in the text: the task (or a task it descends from)
    must wait by its depend list (the addresses the kit's wrapper recorded) for the task whose
    completion call brought its halo (depend_waits: a depend(in: halos) on a block-local
    `halos` that shadows the exchange's links nothing, a fresh attacker's T12b_flagspin2, 4/4,
    2026-12-05); and with 2+ threads, an edge task task_iteration's body created after its halo
    arrived must not come from a body that waited for it: more than BODY_BUSY_S of the body's
    own time (CPU between its creations, or blocked in a system call) before the creation (the
    body spinning on a plain counter the waiting task bumps). `threads`: the run's threads (from
    the records when None)."""
    found = []
    for rank, mine, m, arrivals, tasks, calls, team in _ranks_tasks(res, threads):
        graph = TaskGraph(tasks)
        producer_of = _producers(calls, graph, int(rank))
        for piece in mine.itertuples():
            for row in {1, m} & set(range(int(piece.first), int(piece.last) + 1)):
                arrived = arrivals.get((int(piece.step), row))
                if arrived is None:
                    continue
                task = graph.around(piece.thread, piece.start, piece.end)
                if task is None:  # a taskloop's task, or no task: no depend can hold it
                    found.append(f"rank {rank}, iteration {int(piece.step)}: row {row} was "
                                 "computed in no task of its own (`#pragma omp task`), where no "
                                 "depend clause can hold it until its halo row's message arrived")
                    continue
                began = float(task["start"])
                created = began - float(task["waited"])
                creator = created - float(task["made_after"]) if task["made_after"] >= 0 else None
                busy = float(task["busy"]) if "busy" in task.index and task["busy"] == task["busy"] else -1.0
                producer = producer_of(arrived)
                if began < arrived:
                    what = f"began {(arrived - began) * 1e3:.3f} ms before"
                elif creator is not None and creator < arrived < created:
                    what = (f"was created {(created - arrived) * 1e3:.3f} ms after, by a task "
                            "that had begun before,")
                elif team > 1 and created > arrived and busy > BODY_BUSY_S:
                    what = (f"was created {(created - arrived) * 1e3:.3f} ms after, by "
                            f"task_iteration's own body once it had spent {busy * 1e3:.1f} ms "
                            "waiting (a loop or a blocking call before the task's creation), "
                            "after")
                elif producer is not None and not graph.waits(task, producer):
                    found.append(
                        f"rank {rank}, iteration {int(piece.step)}: the task that computed row "
                        f"{row} does not wait by its depend clauses for the task that completed "
                        "its halo row's receive: the addresses its depend(in: ...) items name "
                        "(as the runtime got them) are not those the exchange's task names in "
                        "depend(out: ...) (a variable of the same name declared elsewhere is "
                        "another address)")
                    continue
                else:
                    continue
                found.append(f"rank {rank}, iteration {int(piece.step)}: the task that computed "
                             f"row {row} {what} its halo row's message arrived")
    return found


def held_interior(res: Results, threads: int | None = None) -> list[str]:
    """(b): where interior rows (2..m-1, the kit's stencil_rows intervals) were held for the
    exchange by the way the tasks were made, in any iteration: computed in a task that waits by
    its depend list (the addresses the runtime got: depend_waits) for the task whose completion
    call brought a halo of that iteration, or (2+ threads) created after that halo arrived by
    task_iteration's body once it had spent more than BODY_BUSY_S waiting. The part asks for the
    interior without waiting for the messages in every iteration; the window rule
    (halo.exercise.assert_windows_covered) forgives a minority of iterations for a loaded
    machine, which let the interior tasks depend on the exchange in every other iteration (a
    fresh attacker's T12b_half, 4/4 twice, 2026-12-05)."""
    found = []
    for rank, mine, m, arrivals, tasks, calls, team in _ranks_tasks(res, threads):
        graph = TaskGraph(tasks)
        producer_of = _producers(calls, graph, int(rank))
        inner = mine[(mine["last"] >= 2) & (mine["first"] <= m - 1)]
        for piece in inner.itertuples():
            step = int(piece.step)
            landed = sorted((t, r) for (s, r), t in arrivals.items() if s == step)
            if not landed:
                continue
            task = graph.around(piece.thread, piece.start, piece.end)
            if task is None:
                continue
            created = float(task["start"]) - float(task["waited"])
            busy = float(task["busy"]) if "busy" in task.index and task["busy"] == task["busy"] else -1.0
            rows = f"rows {max(int(piece.first), 2)}-{min(int(piece.last), m - 1)}"
            if team > 1 and created > landed[0][0] and busy > BODY_BUSY_S:
                found.append(f"rank {rank}, iteration {step}: interior {rows} were computed in a "
                             f"task task_iteration's body created {(created - landed[0][0]) * 1e3:.3f} "
                             f"ms after a halo row arrived, once it had spent {busy * 1e3:.1f} ms "
                             "waiting")
                continue
            for arrived, row in landed:
                producer = producer_of(arrived)
                if producer is not None and graph.waits(task, producer):
                    found.append(f"rank {rank}, iteration {step}: interior {rows} were computed "
                                 "in a task that waits by its depend clauses for the task that "
                                 f"completed the receive of row {row}'s halo")
                    break
    return found


def _producers(calls: pd.DataFrame, graph: TaskGraph, rank: int):
    """_producer of `rank`, remembered per arrival (every piece of an iteration asks the same)."""
    known: dict[float, object] = {}

    def producer_of(arrived: float):
        if arrived not in known:
            known[arrived] = _producer(calls, graph, rank, arrived)
        return known[arrived]

    return producer_of


def _producer(calls: pd.DataFrame, graph: TaskGraph, rank: int, arrived: float):
    """The kit's task_run record (innermost) of the task that made the completion call ending at
    `arrived` on `rank` (None when no wrapped task made it); `graph`: the rank's tasks."""
    done = calls[(calls["rank"] == rank) & calls["call"].isin(COMPLETES)
                 & ((calls["end"] - arrived).abs() < 1e-9)]  # fmt: skip
    if done.empty:
        return None
    call = done.iloc[0]
    return graph.around(call["thread"], call["start"], call["end"])


PEER_ANY = -2  # kernels_c/hl_trace.c HL_PEER_ANY: a receive from MPI_ANY_SOURCE
_ALL_SENDS = (*SENDS, "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Sendrecv",
              "MPI_Isendrecv", "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init",
              "MPI_Rsend_init")  # fmt: skip


def _any_source_sides(post, rank: int, sides: dict[int, int], everyone: pd.DataFrame) -> list[int]:
    """The neighbours of `sides` whose messages an MPI_ANY_SOURCE receive `post` of `rank` could
    take: those that sent `rank` a message with the receive's tag (any tag for MPI_ANY_TAG; a
    send-receive's whatever its tag), from every rank's calls (`everyone`)."""
    sent = everyone[everyone["rank"].isin(list(sides)) & everyone["call"].isin(_ALL_SENDS)
                    & (everyone["peer"] == rank)]  # fmt: skip
    tag = int(post.tag) if "tag" in everyone and post.tag == post.tag else -1
    if tag >= 0 and "tag" in sent:
        sent = sent[(sent["tag"] == tag) | sent["call"].isin(("MPI_Sendrecv", "MPI_Isendrecv"))]
    return sorted({int(r) for r in sent["rank"]})


def _ranks_tasks(res: Results, threads: int | None):
    """Per rank of a tasks run: (rank, its computed pieces, its last interior row m, when each
    (iteration, halo row) arrived, its task_run records, the student's MPI calls, the team's
    size: `threads`, else from the records); nothing when the run has no tasks, pieces or calls."""
    records = res.records
    runs = records[records["record"] == "task_run"] if "record" in records.columns else records
    work, calls = res.compute, res.mpi_calls
    if runs.empty or work.empty or "first" not in work.columns or calls.empty:
        return
    calls = calls[calls["student"] == 1].sort_values("start")
    team = int(threads) if threads is not None else int(runs["thread"].max()) + 1
    for rank, mine in work[work["first"] >= 1].groupby("rank"):
        m = int(mine["last"].max())
        arrivals = _arrivals(calls[calls["rank"] == rank], {int(rank) - 1: 1, int(rank) + 1: m},
                             calls)  # fmt: skip
        yield rank, mine, m, arrivals, _with_events(runs[runs["rank"] == rank], records, rank), calls, team


def _with_events(tasks: pd.DataFrame, records: pd.DataFrame, rank) -> pd.DataFrame:
    """One rank's task_run records with "event" (a detached task's event, the kit's
    "task_detached" record; "" for none) and "fulfilled" (the events the task fulfilled, its
    "task_fulfill" records) added."""
    def of(name: str) -> pd.DataFrame:
        made = records[(records["record"] == name) & (records["rank"] == rank)]
        return made if "event" in made.columns else made.assign(event=pd.Series(dtype=str))

    events = dict(zip(of("task_detached").get("id", []), of("task_detached")["event"], strict=True))
    done: dict[int, list[str]] = {}
    for by, event in zip(of("task_fulfill").get("by", []), of("task_fulfill")["event"], strict=True):
        done.setdefault(int(by), []).append(str(event))
    ids = tasks["id"].astype(int) if "id" in tasks.columns else pd.Series(dtype=int)
    return tasks.assign(event=[str(events.get(i, "")) for i in ids],
                        fulfilled=[done.get(i, []) for i in ids])


def _arrivals(calls: pd.DataFrame, sides: dict[int, int],
              everyone: pd.DataFrame | None = None) -> dict[tuple[int, int], float]:  # fmt: skip
    """(iteration, edge row) -> when the receive from that edge row's neighbour (`sides`: the
    neighbour's rank -> the edge row its halo feeds) completed: the end of the first completion
    call after the posting that reports done its request. A receive from MPI_ANY_SOURCE feeds
    the row of the one neighbour that sent this rank a message its tag matches (every rank's
    calls: `everyone`); where several could have (or none is known), each of their rows
    arrived at the latest completion of such receives in the iteration (the edge tasks of a
    receive from any source, spinning on the NaN halo row, kept 4/4: no arrival was known, a
    fresh attacker's Q12b_anysrc, 2026-12-05)."""
    found, unsure = {}, {}
    rank = int(calls["rank"].iloc[0]) if "rank" in calls and len(calls) else -1
    everyone = calls if everyone is None else everyone
    posted = calls[calls["call"].isin(("MPI_Irecv", "MPI_Isendrecv"))]
    for post in posted.itertuples():
        peer = post.recv_peer if post.call == "MPI_Isendrecv" else post.peer
        rows = [sides.get(int(peer))] if peer == peer and int(peer) >= 0 else []  # not PROC_NULL
        if peer == peer and int(peer) == PEER_ANY:
            could = _any_source_sides(post, rank, sides, everyone) or sorted(sides)
            rows = [sides[n] for n in could if n in sides]
        handle = post.posted if post.posted == post.posted else -1
        if not rows or rows[0] is None or int(handle) == -1:
            continue
        done = calls[calls["call"].isin(COMPLETES) & (calls["start"] >= post.start)
                     & (calls["done"] == 1)]  # fmt: skip
        for completion in done.itertuples():
            if int(handle) in request_ids(completion):
                if len(rows) == 1:
                    found.setdefault((int(post.step), rows[0]), float(completion.end))
                else:
                    unsure.setdefault(int(post.step), [set(), 0.0])
                    unsure[int(post.step)][0].update(rows)
                    unsure[int(post.step)][1] = max(unsure[int(post.step)][1], float(completion.end))
                break
    for step, (rows, latest) in unsure.items():
        for row in rows:
            found[(step, row)] = max(found.get((step, row), latest), latest)
    return found


def task_windows(calls: pd.DataFrame) -> list[dict]:
    """One rank's student calls (sorted by start) cut into (b)'s windows: from the call that has
    the exchange in flight (the later of a send and a receive posted that move values, not to or
    from MPI_PROC_NULL: student_c._windows) to the first completion that reports done a receive
    posted since (by the request each posting returned, the tracer's "posted", against the
    requests a completion names): the halo is in flight until a neighbour's row has arrived.
    Where a receive's request is not known, the first completion that reports done (student_c's
    rule). Each: start, end, the thread that posted first (posted_by), the one whose completion
    closed it (closed_by), the completing call, the iteration (step).

    An MPI_Waitany, _Waitsome, _Testany or _Testsome returns first the requests done at once (an
    edge rank's MPI_PROC_NULL ones, a send MPI buffered): closing the window there left no row
    inside it (attacker B's B12r10 and B12r11, right answers completing the exchange's task with
    MPI_Waitany or MPI_Waitsome, lost 4/4 as "no overlap", 2026-12-04); a send's completion
    closes nothing, as the halo rows are still on their way."""
    windows, first, opened, kinds, recvs, blind = [], None, None, set(), set(), False
    for call in calls.itertuples():
        if call.call in POSTS and _moves_window(call):
            first = first or call
            if call.call == "MPI_Irecv":
                handle = getattr(call, "posted", -1)
                if handle == handle and int(handle) != -1:
                    recvs.add(int(handle))
                else:
                    blind = True
            if opened is None:
                kinds.add("send" if call.call in SENDS else "receive" if call.call == "MPI_Irecv"
                          else "both")  # fmt: skip
                if "both" in kinds or {"send", "receive"} <= kinds:
                    opened = call
        elif call.call in COMPLETES and int(call.done) == 1 and first is not None:
            if blind or not recvs or recvs & set(request_ids(call)):
                if opened is not None:
                    windows.append({"start": opened.start, "end": call.end,
                                    "posted_by": int(first.thread), "closed_by": int(call.thread),
                                    "completed_by": call.call,
                                    "step": int(getattr(first, "step", -1))})  # fmt: skip
                first, opened, kinds, recvs, blind = None, None, set(), set(), False
    return windows


def task_overlap_table(res: Results) -> pd.DataFrame:
    """Per rank, each of (b)'s windows (task_windows): rank, window, start, end, seconds,
    posted_by, closed_by, completed_by, step and the seconds the kit's stencil_rows computed
    inside it (computed_inside, summed over threads); window -1 (nothing inside) for a rank that
    has none."""
    calls, work = res.mpi_calls, res.compute
    calls = calls[calls["student"] == 1]
    if "posted" not in calls.columns:
        calls = calls.assign(posted=-1)
    rows = []
    for rank, mine in calls.sort_values("start").groupby("rank"):
        done = work[work["rank"] == rank] if not work.empty else work
        found = task_windows(mine)
        for i, w in enumerate(found):
            rows.append({"rank": rank, "window": i, **w, "seconds": w["end"] - w["start"],
                         "computed_inside": _within(done, w["start"], w["end"])})  # fmt: skip
        if not found:
            rows.append({"rank": rank, "window": -1, "start": float("nan"), "end": float("nan"),
                         "posted_by": -1, "closed_by": -1, "completed_by": "", "step": -1,
                         "seconds": 0.0, "computed_inside": 0.0})  # fmt: skip
    return pd.DataFrame(rows)


def task_step_windows(windows: pd.DataFrame) -> pd.DataFrame:
    """Per rank and iteration, from task_overlap_table: the span from its first window's start
    to its last window's end, the thread that posted, the call that completed it (the shape of
    student_c.step_windows, for halo.exercise.overlap_rows)."""
    found = windows[windows["window"] >= 0].sort_values(["rank", "start"])
    rows = []
    for (rank, step), it in found.groupby(["rank", "step"], sort=True):
        rows.append({"rank": rank, "step": step, "start": float(it["start"].iloc[0]),
                     "end": float(it["end"].iloc[-1]), "posted_by": int(it["posted_by"].iloc[0]),
                     "completed_by": str(it["completed_by"].iloc[-1])})  # fmt: skip
    return pd.DataFrame(rows, columns=["rank", "step", "start", "end", "posted_by", "completed_by"])


def computed_beside_waits(res: Results, windows: pd.DataFrame) -> float:
    """Seconds the kit's stencil_rows computed inside the windows (task_overlap_table) on threads
    other than the one whose completion call closed the window and other than the one that
    posted it: some thread computed while the exchange, posted and waited for elsewhere, was in
    flight. The exchange posted and waited for in one task, the other threads computing the
    interior (the solution), counts. A posting task that goes on to compute the interior itself
    while a waiting task holds another thread does not (its thread computes in program order
    after posting: lab 04 (d)'s overlap by hand, the exchange's task computing the interior,
    which the part refuses; it kept its points only when the waiting task happened to run on
    another thread, 2026-12-04). A posting task and a waiting task with the interior in tasks of
    their own pass on task_stamps' interior_after_calls (judge_tasks)."""
    work = res.compute
    if work.empty:
        return 0.0
    total = 0.0
    for w in windows[windows["window"] >= 0].itertuples():
        mine = work[(work["rank"] == w.rank) & ~work["thread"].isin({w.closed_by, w.posted_by})]
        total += _within(mine, w.start, w.end)
    return total


def computed_by_exchange(res: Results, windows: pd.DataFrame) -> int:
    """Rows the kit's stencil_rows computed inside the windows (task_overlap_table) on the thread
    that both posted the window's requests and completed them: a task that posts, computes and
    waits keeps its thread between the posting and the wait (MPI_Wait... is no task scheduling
    point; a task it creates is queued for the team), so the rows its thread computed there
    came from the exchange's task itself. judge_tasks refuses them where task_stamps saw
    interior rows after MPI calls of their task (a fresh attacker's G12a3 and G12a4: the
    exchange's task computed the interior between posting and waiting, a token task of one row
    on another thread made computed_beside_waits > 0, 4/4, 2026-12-04). A row computed in part
    inside a window counts."""
    work = res.compute
    if work.empty:
        return 0
    rows = 0
    alone = windows[(windows["window"] >= 0) & (windows["posted_by"] == windows["closed_by"])]
    for w in alone.itertuples():
        mine = work[(work["rank"] == w.rank) & (work["thread"] == w.posted_by)
                    & (work["first"] >= 0) & (work["start"] < w.end)
                    & (work["end"] > w.start)]  # fmt: skip
        rows += int((mine["last"] - mine["first"] + 1).sum())
    return rows


def _no_overlap(res: Results, where: str, windows: pd.DataFrame | None = None) -> str:
    """Why no interior row was computed inside a window, by where the rows fell (overlap_rows):
    mostly before the requests were posted (the exchange's task started once the interior was
    done: a taskloop's implicit taskgroup, the exchange's task created after the interior's or
    depending on them), or after they completed (the interior waited for the exchange)."""
    rows = overlap_rows(res, windows)
    count = (rows["last"] - rows["first"] + 1).groupby(rows["where"]).sum()
    before, after = int(count.get("before", 0)), int(count.get("after", 0))
    if before > after:
        return (f"{where}: no row was computed between the posting of the requests and their "
                f"completion: {before} of the {before + after} interior rows were computed before "
                "the requests were posted, the exchange's task starting only once the interior was "
                "done - no overlap. The kit holds an interior row that is about to be computed "
                "before any MPI call of the iteration (up to 50 ms an iteration) so that a free "
                "thread can start the exchange's task first: here none could, so the exchange "
                "waited for the interior by the way the tasks were made: the exchange's task "
                "created after the interior's (or after a taskloop without nogroup, which waits "
                "for its tasks at its end: an implicit taskgroup), or depending on them (depend), "
                "or the interior computed in task_iteration's own body. Create the exchange's "
                "task first, the interior tasks without depend (a taskloop with nogroup, or tasks "
                "one by one) and the edge tasks depend(in:) on the exchange")
    return (f"{where}: no row was computed between the posting of the requests and their "
            "completion: the interior rows wait for the exchange (a depend on the halo, a "
            "taskwait, or the exchange done before the tasks) - no overlap")


def task_stamps(res: Results) -> pd.DataFrame:
    """Per rank, over the run, what the kit's task stamps saw (kernels_c/hl_trace.c): the
    stencil_rows calls and the student's MPI calls task_iteration's own body made outside every
    task (inline_rows, inline_calls), stencil_rows calls in a parallel region nested in it
    (nested_rows), and calls computing row 1 or m in a task that had made MPI calls before, or
    was created by one after them (edges_after_calls)."""
    timers = res.records[res.records["record"] == "timer"]
    return timers.groupby("rank")[list(STAMPS)].max().astype(int)


def _assert_in_tasks(res: Results, where: str) -> None:
    """The exchange and every row in tasks, rows 1 and m in tasks apart from the exchange's
    (task_stamps), and no MPI call in a parallel region nested in the iteration."""
    stamps = task_stamps(res)
    calls = res.mpi_calls
    nested = calls[(calls["student"] == 1) & (calls["level"] > 1)]
    assert nested.empty and not stamps["nested_rows"].any(), (
        f"{where}: {len(nested)} MPI calls and {int(stamps['nested_rows'].sum())} stencil_rows "
        "calls inside a parallel region opened in task_iteration: the tasks run on the team "
        "that calls it, no region of their own")
    for rank, seen in stamps.iterrows():
        assert not (seen["inline_calls"] or seen["inline_rows"]), (
            f"{where}: rank {rank}: task_iteration itself, outside any task, made "
            f"{seen['inline_calls']} MPI calls and {seen['inline_rows']} stencil_rows calls: the "
            "exchange goes in a task (MPI_Irecv, MPI_Isend, MPI_Waitall), the interior rows in "
            "tasks without depend, rows 1 and m in tasks that depend on the exchange's")
        assert not seen["edges_after_calls"], (
            f"{where}: rank {rank}: {seen['edges_after_calls']} stencil_rows calls computed row 1 "
            "or m in a task after MPI calls of that same task (or in a task it created after "
            "them): rows 1 and m go in tasks of their own that depend (depend(in: ...)) on the "
            "exchange's task")


def check_student_tasks(kernel: Kernel, shapes: tuple[tuple[int, int], ...] = ((2, 2),),
                        nx: int = 256, ny: int = 160, iterations: int = 3,
                        timeout: float = 30.0) -> list[dict]:  # fmt: skip
    """run_tasks and judge_tasks at once (the notebook's visible tests)."""
    return judge_tasks(run_tasks(kernel, shapes, nx, ny, iterations, timeout))


def partitioned_missing() -> str:
    """Why the student's partitioned part cannot run here (empty when it can): the MPI library
    the kit builds with has no MPI-4 partitioned calls."""
    if has_partitioned():
        return ""
    return ("this MPI library has no MPI-4 partitioned communication (MPI_Psend_init, MPI_Pready: "
            "MPI 4.0 and later, Open MPI 5): part (d) is skipped and keeps its points")  # fmt: skip


# (c): what keeps a thread from marking its partition as soon as it has copied it: a second
# parallel region (copies in one, marks in another); between the copies and the marks, a
# barrier, a construct one thread runs, a lock or critical section
# (and a worksharing construct without nowait, whose end the team waits at: an empty dynamic
# `omp for` between the copies and the marks kept 4/4, a fresh attacker's J12b, 2026-12-05)
_WORKSHARE_WAIT = r"|#\s*pragma\s+omp\s+(?:for|sections|loop|scope)\b(?![^\n]*\bnowait\b)"
_PREADY_HELD = re.compile(r"#\s*pragma\s+omp\s+(?:barrier|critical|single|masked|master)\b"
                          r"|\bomp_(?:set|test)_(?:nest_)?lock\b" + _WORKSHARE_WAIT)


# (d): what makes the threads take turns wherever it stands in the cell (around the copies and
# marks, or in a function that makes them): an ordered loop or block, a critical section, a lock
_PREADY_TURNS = re.compile(r"#\s*pragma\s+omp\s+(?:critical|ordered)\b"
                           r"|#\s*pragma\s+omp\b[^\n]*\bordered\b"
                           r"|\bomp_(?:set|test)_(?:nest_)?lock\b"
                           r"|\bpthread_(?:mutex|spin|rwlock)_(?:timed)?(?:lock|trylock|rdlock|wrlock)\b"
                           r"|\bsem_(?:timed)?wait\b")


# (d): a wait for the whole team inside a loop around the copies and marks (a fresh attacker's
# threads each copied and marked in its own turn of a loop with a barrier after every turn, 4/4
# kept, 2026-12-03)
# (or a worksharing construct's implicit barrier: J12tgt's turns, an empty dynamic `omp for` after
# every turn, 4/4 kept, 2026-12-05)
_TURN_WAIT = re.compile(r"#\s*pragma\s+omp\s+(?:barrier|taskwait|single|masked|master)\b"
                        + _WORKSHARE_WAIT)


# (d): the kit's own functions (hybridlab.h's clocks, samplers, sleeps and delays), none of which
# copies or marks a partition: hl_sample handed a function of the cell ran a team barrier no call
# in the text named (turns) or timed each thread's turn by a clock the text never named (a fresh
# attacker's A7 c1 and c2, 4/4 twice each, 2026-12-07)
_KIT_HEADERS = ("hl_student.h", "thread_halo_student.h")


@functools.lru_cache(maxsize=1)
def kit_names() -> frozenset[str]:
    """The hl_ names the kit's headers of a thread_halo cell define or declare (_KIT_HEADERS,
    hybridlab.h and the headers they include, comments left out), less the tracer's redirects
    (hl_traced_MPI_*), which every MPI call of the cell becomes. (The tracer's own entry points,
    hl_mpi_trace.h's, are refused in the object: kernels.unit_checks.)"""
    names, todo, seen = set(), list(_KIT_HEADERS), set()
    while todo:
        header = todo.pop()
        path = find_kernel_file(header)
        if header in seen or path is None:
            continue
        seen.add(header)
        text = comments_blanked(path.read_text())
        names |= set(re.findall(r"\bhl_\w+", text))
        todo += re.findall(r'#\s*include\s+"([^"]+)"', text)
    return frozenset(n for n in names if not n.startswith("hl_traced_"))


def kit_function_faults(text: str, cell_lines: list[int] | None = None) -> list[str]:
    """A name of the kit's own (kit_names) in the cell's preprocessed text: a pready cell calls
    copy_partition and MPI, nothing of hybridlab.h's, nor takes the address of it."""
    used = next((m for m in re.finditer(r"\bhl_\w+", text) if m.group(0) in kit_names()), None)
    if used is None:
        return []
    return [f"no {used.group(0)} (line {text_line(text, used.start(), cell_lines)}): the cell "
            "calls none of the kit's own functions (hybridlab.h's clocks, samplers, sleeps and "
            "delays): each thread copies its partition with copy_partition and marks it ready "
            "with MPI_Pready at once, and a kit function handed a function of the cell would run "
            "it where the checks of the cell's text do not follow"]


def pready_construct_faults(text: str, cell_lines: list[int] | None = None) -> list[str]:
    """What keeps preprocessed C from having each thread mark its partition ready as soon as it
    copied it, in the one parallel region: a second region; one of _PREADY_HELD between its
    first copy_partition and its last mark (before them, a masked MPI_Startall and its barrier
    are fine); one of _PREADY_TURNS or _FLAG_WAIT anywhere in the cell (an ordered loop, a
    critical section, a lock or a flag watched around the copies and marks makes the threads
    hand their partitions over one after another: a fresh attacker's omp for ordered kept 4/4,
    2026-12-03); a barrier (or a construct the team waits at) in a loop whose body copies or
    marks (_TURN_WAIT: turns, one thread a turn)."""
    faults = []
    turns = _PREADY_TURNS.search(text) or _FLAG_WAIT.search(text) or first_use(CLOCKS_AND_SLEEPS, text)
    if turns:
        shown = re.sub(r"#\s*pragma\s+", "", turns.group(0)).strip(" (")
        faults.append(f"no {shown} (line {text_line(text, turns.start(), cell_lines)}): the threads copy their partitions and mark them ready at "
                      "the same time, each as soon as it has copied its own, not in turns (an "
                      "ordered loop or block, a critical section, a lock, a flag watched, or a "
                      "clock read or sleep timing each thread's turn makes them take turns)")
    regions = len(re.findall(r"#\s*pragma\s+omp\s+parallel\b", text))
    if regions > 1:
        faults.append(f"{regions} parallel regions: one region, in which each thread copies its "
                      "partition and marks it ready at once")
    order, origin = _in_order(text)
    first = order.find("copy_partition(")
    marks = [m.start() for m in re.finditer(r"Pready\w*\s*\(", order)]
    held = (_PREADY_HELD.search(order, first, max(marks)) if first >= 0 and marks
            and max(marks) > first else None)  # fmt: skip
    if held:
        what = held.group(0).replace('#', '').strip()
        at = origin[held.start()] if origin else held.start()
        own = [(start, end) for name, start, end in functions(text) if name == "pready_iteration"]
        if origin and not any(start <= at < end for start, end in own):  # in a helper it calls
            faults.append(f"no barrier between the copies and the marks (line "
                          f"{text_line(text, at, cell_lines)}, through a function of the cell: "
                          f"{what}): each thread marks its partition as soon as it has copied "
                          "it, waiting for no other thread")
        else:
            faults.append(f"no {what}: each thread marks its partition as soon as it has copied "
                          "it, waiting for no other thread")
    for _, body, end in loops(text):  # a loop of turns: one thread copies and marks, the rest wait
        inner = text[body:end]
        if _TURN_WAIT.search(inner) and re.search(r"copy_partition\s*\(|Pready\w*\s*\(", inner):
            faults.append("no barrier in a loop around the copies and marks: each thread copies "
                          "and marks its own partition once, at once, not one thread a turn "
                          "while the others wait")
            break
    faults += _barrier_turn_faults(text, first, marks, cell_lines, order, origin)
    return faults


def _in_order(text: str) -> tuple[str, list[int] | None]:
    """pready_iteration with the cell's helpers inlined (sync.exercise.inlined), so that its
    copies, marks and waits stand in the order a thread meets them, and where each character
    came from in `text`; `text` itself (origin None) when it defines no pready_iteration or
    that has no copy or no mark once inlined. (A right answer marking in a static helper
    defined after pready_iteration put the region's barrier and masked MPI_Waitall after the
    marks "between" the copy and the last mark of the text: 0/4, a fresh attacker's
    Q12d_rhelper, 2026-12-05.)"""
    try:
        order, origin = inlined(text, "pready_iteration")
    except ValueError:
        return text, None
    if "copy_partition(" not in order or not re.search(r"Pready\w*\s*\(", order):
        return text, None
    return order, origin


# (d): a team barrier, where it stands (an explicit one; a POSIX one)
# (a worksharing construct without nowait too: its end is a team barrier, GOMP_loop_end for a
# dynamic loop; a helper holding an empty dynamic `omp for` between the copy and the mark held
# the marks, a fresh attacker's J12b's pattern, 2026-12-05)
_BARRIER = re.compile(r"#\s*pragma\s+omp\s+barrier\b|\bpthread_barrier_wait\s*\(" + _WORKSHARE_WAIT)


def _barrier_functions(text: str) -> tuple[set[str], set[str]]:
    """The functions the cell defines that make their thread wait at a team barrier (a barrier
    in their body, or a call to such a function), and those of them that reach themselves again
    (recursion: a loop of barriers without a loop statement). A function whose name a body
    names at all is called by it: its address handed on is a call the text does not show (a
    fresh attacker's A7 c1: turns held by a barrier in a function reached only through
    hl_sample's pointer, 4/4 twice, 2026-12-07)."""
    bodies = {}
    for name, start, end in functions(text):
        brace = text.find("{", start, end)
        bodies[name] = text[brace if brace >= 0 else start:end]
    calls = {name: {other for other in bodies if re.search(rf"\b{re.escape(other)}\b", body)}
             for name, body in bodies.items()}  # fmt: skip
    waiting = {name for name, body in bodies.items() if _BARRIER.search(body)}
    grown = True
    while grown:
        more = {name for name in bodies if calls[name] & waiting} - waiting
        waiting |= more
        grown = bool(more)
    looped = set()
    for name in waiting:  # reaches itself through the call graph
        seen, todo = set(), list(calls[name])
        while todo:
            other = todo.pop()
            if other == name:
                looped.add(name)
                break
            if other not in seen:
                seen.add(other)
                todo += calls.get(other, ())
    return waiting, looped


def _barrier_sites(text: str, waiting: set[str], start: int = 0, end: int | None = None) -> list[int]:
    """Where, in text[start:end], a thread waits at a team barrier: a barrier, or a call of a
    function of `waiting` (not its definition), or its name handed on (its address: whatever
    is handed it may call it there, _barrier_functions)."""
    end = len(text) if end is None else end
    sites = [m.start() for m in _BARRIER.finditer(text, start, end)]
    heads = [(s, text.find("{", s, e)) for _, s, e in functions(text)]
    for name in waiting:
        for m in re.finditer(rf"\b{re.escape(name)}\b", text[start:end]):
            at = start + m.start()
            if not any(s <= at < brace for s, brace in heads):  # a call, not the definition
                sites.append(at)
    return sorted(sites)


def _backward_gotos(text: str) -> list[tuple[int, int]]:
    """(label, goto) spans of every goto that jumps back to a label above it: a loop without a
    loop statement."""
    spans = []
    for jump in re.finditer(r"\bgoto\s+([A-Za-z_]\w*)\s*;", text):
        label = re.search(rf"(?<![\w:]){re.escape(jump.group(1))}\s*:(?!:)", text[:jump.start()])
        if label:
            spans.append((label.start(), jump.start()))
    return spans


def _barrier_turn_faults(text: str, first: int, marks: list[int],
                         cell_lines: list[int] | None, order: str | None = None,
                         origin: list[int] | None = None) -> list[str]:  # fmt: skip
    """Team barriers that hand the partitions over one thread a turn, wherever their text
    stands: one reached between the first copy_partition and the last mark through a function
    of the cell (a helper holding the barrier), one in any loop (for, while, do, a goto back to
    a label, a function that calls itself): thread t waiting t barriers before its copy and the
    rest after it (a fresh attacker's G12a1 and G12a2, 4/4, 2026-12-04: the barrier text sat
    in a helper defined above the first copy, or inline under a goto loop). The region's one
    barrier after a masked MPI_Startall, before the copies, is none of these."""
    waiting, looped = _barrier_functions(text)
    faults = []
    order = text if order is None else order  # first and marks: places in `order`
    if first >= 0 and marks and max(marks) > first:
        held = [at for at in _barrier_sites(order, waiting, first, max(marks))
                if not _BARRIER.match(order, at)]  # fmt: skip (explicit ones: the _PREADY_HELD check)
        if held:
            at = origin[held[0]] if origin else held[0]
            faults.append(f"no barrier between the copies and the marks (line "
                          f"{text_line(text, at, cell_lines)}, through a function of the "
                          "cell): each thread marks its partition as soon as it has copied it, "
                          "waiting for no other thread")
    spans = [(body, end) for _, body, end in loops(text)] + _backward_gotos(text)
    for body, end in spans:
        inside = _barrier_sites(text, waiting, body, end)
        if inside:
            faults.append(f"no barrier in a loop (line {text_line(text, inside[0], cell_lines)}): "
                          "threads that pass a barrier a number of times that depends on their "
                          "number copy and mark in turns; each thread copies and marks its own "
                          "partition once, at once, at most one barrier (after a masked "
                          "MPI_Startall) before it")
            break
    if looped:
        faults.append(f"no barrier in a function that calls itself ({sorted(looped)[0]}): a "
                      "recursion of barriers is a loop of turns; each thread copies and marks "
                      "its own partition once, at once")
    return faults


def build_student_pready(code: str, name: str = "student_pready") -> Kernel:
    """Compile the student's partitioned_init and pready_iteration with thread_halo
    (variant=pready), traced; BuildError names the cell's lines, ValueError what keeps a thread
    from marking its partition at once (kit_function_faults, pready_construct_faults)."""
    if not unanswered(code):
        text, cell_lines = _preprocessed("HL_STUDENT_PREADY", code)
        faults = offload_faults(text, "each thread of pready_iteration's parallel region copies "
                                      "its partition and marks it ready", cell_lines)
        faults += kit_function_faults(text, cell_lines) + pready_construct_faults(text, cell_lines)
        bare = re.sub(r"/\*.*?\*/|//[^\n]*", " ", code, flags=re.S)
        which = _COMPILER.search(bare)
        if which:
            faults.append(f"no {which.group(0)} (line {bare.count(chr(10), 0, which.start()) + 1}): "
                          "the cell is the same C for every compiler (the grader builds it with "
                          "gcc and, to look for data races, with clang)")
        if faults:
            raise ValueError("pready_iteration: " + "; ".join(faults))
    return build_student(name, "thread_halo", "HL_STUDENT_PREADY", code,
                         ("partitioned_init", "pready_iteration"), PREADY_FLAGS)  # fmt: skip


# the cell's build counts each thread's team barriers (kernels_c/thread_halo.c, __wrap_GOMP_barrier)
# and the implicit barriers GCC does not compile to GOMP_barrier (a dynamic `omp for`, sections,
# single copyprivate: turns kept 4/4, a fresh attacker's J12tgt, 2026-12-05)
MEET_S = 3.0  # kernels_c/thread_halo.c: how long a copy or mark waits for the team
PREADY_FLAGS = ("-Wl,--wrap=GOMP_barrier,--wrap=GOMP_barrier_cancel,--wrap=GOMP_loop_end"
                ",--wrap=GOMP_loop_end_cancel,--wrap=GOMP_sections_end"
                ",--wrap=GOMP_sections_end_cancel,--wrap=GOMP_single_copy_start"
                ",--wrap=GOMP_single_copy_end",)


# (d): what tells the compilers apart (pready_races builds the cell with clang as well as gcc: a
# cell that took turns for gcc only would race for neither)
_COMPILER = re.compile(r"\b__(?:clang\w*|llvm\w*|GNUC\w*|GCC\w*|SANITIZE_\w+|has_feature"
                       r"|has_extension|has_builtin|has_attribute|has_c_attribute|has_include\w*"
                       r"|has_warning|VERSION__|OPTIMIZE\w*|INTEL\w*|NO_INLINE__)\b")


def run_pready(code: str, shapes: tuple[tuple[int, int], ...] = ((2, 2),), nx: int = 24,
               ny: int = 12, iterations: int = 3, timeout: float = 30.0,
               name: str = "student_pready") -> list[dict]:  # fmt: skip
    """The student's partitioned exchange built and run at every (ranks, threads), nx divisible
    by every thread count: the evidence judge_pready reads; [] where the library has no
    partitioned calls (partitioned_missing), nothing built or run."""
    bad = [t for _, t in shapes if nx % t]
    if bad:
        raise ValueError(f"nx={nx} must be divisible by the threads of every shape ({bad})")
    if partitioned_missing():
        return []
    runs = _runs(build_student_pready(code, name), "pready", shapes, nx, ny, iterations, timeout)
    if runs and not archer.missing():
        ranks, threads = shapes[0]
        runs[0]["races"] = pready_races(code, ranks, threads, nx, ny, iterations, timeout,
                                        name=f"{name}_archer")  # fmt: skip
    return runs


def pready_races(code: str, ranks: int, threads: int, nx: int, ny: int, iterations: int,
                 timeout: float = 60.0, name: str = "student_pready_archer") -> list[str]:
    """The data races Archer (ThreadSanitizer told OpenMP's synchronisation,
    hybridlab.kernels.archer) saw in one run of the cell's partitioned exchange at ranks x
    threads, built with clang and ThreadSanitizer: those with an access on one of the cell's
    lines, "access at where against the previous access at where" each. Threads that take turns
    on a plain shared variable (one spins reading it, the one before writes it, with nothing
    of OpenMP's, no atomic and no lock between) race on it, in every run: ThreadSanitizer orders
    accesses by synchronisation, not by time. Attacker B's B12c2, `while (turn != t)
    fflush(stdout);` on a plain static int, kept 4/4 past the cell's text checks (2026-12-04);
    a helper function, a pointer, a goto loop or a shared local change nothing here. An
    answer whose threads copy and mark at once shares nothing it writes, and races on nothing."""
    kernel = build_student(name, "thread_halo", "HL_STUDENT_PREADY", code,
                           ("partitioned_init", "pready_iteration"), archer=True)  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="hl-archer-"))
    try:
        run_program(kernel, ranks=ranks, threads=threads, thread_level=LEVEL, variant="pready",
                    nx=nx, ny=ny, iterations=iterations, stagger_us=0, timeout=timeout,
                    env=archer.run_env(folder))  # fmt: skip
        races = archer.reports(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    def at(where: str) -> str:
        return re.sub(r" cell:(\d+)$", r" (cell line \1)", where)

    return list(dict.fromkeys(
        f"{r.access} at {at(r.where)} against the {r.previous.lower()} at {at(r.previous_where)}"
        for r in races if "cell:" in r.where or "cell:" in r.previous_where))


def _marked(c) -> list[int]:
    """The partitions one mark names: an MPI_Pready's one, an MPI_Pready_range's low to high,
    an MPI_Pready_list's list (the tracer's "requests" field holds it, "0,2"; a list cut with
    "+" counts as none of its partitions, so the judge finds them unmarked)."""
    if c.call == "MPI_Pready_list":
        text = str(c.requests if c.requests == c.requests else "")
        items = [t.strip() for t in text.split(",") if t.strip()]
        if any(not t.lstrip("-").isdigit() for t in items):
            return []
        return [int(t) for t in items]
    return list(range(int(c.partition), int(c.partition_last) + 1))


def partition_marks(calls: pd.DataFrame) -> pd.DataFrame:
    """One row per partition an MPI_Pready, MPI_Pready_range or MPI_Pready_list marked: rank,
    thread, request, partition, start, step (the kernel's iteration, -1 unmarked), in_parallel,
    team."""
    marks = calls[calls["call"].isin(MARKS)]
    rows = [{"rank": int(c.rank), "thread": int(c.thread), "request": int(c.request),
             "partition": p, "start": float(c.start),
             "step": int(c.step) if getattr(c, "step", -1) == getattr(c, "step", -1) else -1,
             "in_parallel": int(c.in_parallel), "team": int(c.team)}
            for c in marks.itertuples() for p in _marked(c)]  # fmt: skip
    return pd.DataFrame(rows, columns=["rank", "thread", "request", "partition", "start", "step",
                                       "in_parallel", "team"])  # fmt: skip


def judge_pready(runs: list[dict]) -> list[dict]:
    """Judge run_pready's evidence, in the grader's process; where the library has no
    partitioned calls, print a note (stdout) and judge nothing.

    Checks, per shape: the checksum equals jacobi2d's (the halo rows from a neighbour hold NaN
    until a message fills them: every partition arrived); every rank set up one MPI_Psend_init
    and one MPI_Precv_init per neighbouring rank (none towards MPI_PROC_NULL), of T partitions of
    nx / T values, and made no other point-to-point call (the rows travel as partitioned messages,
    not MPI_Send); every partition of every send was marked ready once per iteration, by the
    thread of its number (thread t, partition t), inside a parallel region of T threads, no other MPI call of the thread in the region before
    its marks (calls_before_marks); and every
    partition of rows 1 and m copied once per iteration with the kit's copy_partition (its log,
    partition_copies) by that same thread inside the region, before it marked the partition
    ready; and no thread used more than OWN_CPU_S of CPU time between its copy and its last mark
    of an iteration (own_cpu_before_marks). Returns one row per shape."""
    why = partitioned_missing()
    if why:
        print(f"note: {why}")
        return []
    assert runs, "no run of the partitioned exchange was handed out"
    races = [r for shape in runs for r in shape.get("races") or []]
    assert not races, (
        f"a data race in the cell: {races[0]} (Archer, ThreadSanitizer told OpenMP's "
        "synchronisation, in a run of your cell): the threads copy their partitions and mark "
        "them ready at the same time, not in turns; threads that take turns on a shared "
        "variable read and written plainly race on it (turns would need an `omp atomic read` or "
        "a lock, which this part refuses as turns anyway)")
    rows = []
    for shape, res, where, got in _judged_runs(runs):
        ranks, threads = int(shape["ranks"]), int(shape["threads"])
        nx, iterations = int(shape["nx"]), int(shape["iterations"])
        calls = res.mpi_calls[res.mpi_calls["student"] == 1]
        plain = sorted(set(calls.loc[calls["call"].isin(POINT_TO_POINT)
                                     & ~calls["call"].isin(PARTITIONED_SETUP), "call"]))  # fmt: skip
        assert not plain, (f"{where}: {', '.join(plain)}: the halo rows travel as partitioned "
                           "messages only (MPI_Psend_init, MPI_Precv_init, MPI_Start, "
                           "MPI_Pready, MPI_Wait)")  # fmt: skip
        for rank in range(ranks):
            mine, want = calls[calls["rank"] == rank], _neighbours(rank, ranks)
            for setup in PARTITIONED_SETUP:
                made = mine[mine["call"] == setup]
                peers = sorted(int(p) for p in made["peer"])
                assert peers == want, (f"{where}: rank {rank}'s {setup} calls go to ranks {peers}: "
                                       f"one per neighbouring rank, {want} (none towards "
                                       "MPI_PROC_NULL)")  # fmt: skip
                # a partition's bytes (count x the type's size, the tracer's "bytes" over the
                # partitions), not its count: one element of a contiguous type of nx / T doubles
                # is the same partition (a fresh attacker's right answer lost 4/4, 2026-12-04)
                odd = made[(made["partitions"] != threads)
                           | (made["bytes"] != nx * DOUBLE)]  # fmt: skip
                assert odd.empty, (f"{where}: rank {rank}'s {setup} of "
                                   f"{int(odd['partitions'].iloc[0]) if len(odd) else 0} partitions "
                                   f"of {_partition_values(odd)} values: "
                                   f"{threads} partitions of {nx // threads} (one per thread)")
            _assert_own_rows(res, rank, mine, where)
            marks = partition_marks(mine)
            for request in mine.loc[mine["call"] == "MPI_Psend_init", "request"]:
                sent = marks[marks["request"] == int(request)]
                for part in range(threads):
                    by = sent[sent["partition"] == part]
                    assert len(by) == iterations, (
                        f"{where}: rank {rank}: partition {part} of a send marked ready "
                        f"{len(by)} times in {iterations} iterations: once per iteration "
                        "(MPI_Start, then MPI_Pready)")
                    others = sorted(set(by["thread"]) - {part})
                    assert not others, (
                        f"{where}: rank {rank}: partition {part} of a send marked ready by thread "
                        f"{others[0]}: each thread marks its own partition (thread t, partition "
                        "t), as soon as it has copied it")
                    outside = by[(by["in_parallel"] == 0) | (by["team"] != threads)]
                    assert outside.empty, (
                        f"{where}: rank {rank}: partition {part} of a send marked ready outside "
                        f"a parallel region of {threads} threads: MPI_Pready inside the region, "
                        "by the thread that filled the partition")
            _assert_copied(res, rank, threads, iterations, marks, where)
            early = calls_before_marks(mine, threads)
            assert early.empty, (
                f"{where}: rank {rank}: thread {int(early['thread'].iloc[0])} called "
                f"{early['call'].iloc[0]} inside the region (or a team nested in it) before it "
                "marked its partition ready: in the region each thread copies its partition and marks it at once, "
                "with no MPI call before its MPI_Pready (MPI_Parrived and the rest after the "
                "marks, or outside the region; a mark of no partition is no mark)")
            _assert_marked_at_once(res, rank, mine, where)
        rows.append({"ranks": ranks, "threads": threads, "checksum": got,
                     "partitions marked": int(len(partition_marks(calls)))})  # fmt: skip
    return rows


def _partition_values(odd: pd.DataFrame) -> str:
    """The doubles in one partition of the first set-up in `odd` (its bytes over its
    partitions), as text."""
    if odd.empty:
        return "0"
    parts, nbytes = int(odd["partitions"].iloc[0]), int(odd["bytes"].iloc[0])
    return f"{nbytes / max(parts, 1) / DOUBLE:g}"


def calls_before_marks(calls: pd.DataFrame, threads: int) -> pd.DataFrame:
    """One rank's MPI calls in a region of `threads` threads, other than marks, that a thread
    made in an iteration (the kernel's step) before its last mark of that iteration: calls
    polled to hold a thread's turn (MPI_Parrived or MPI_Test a number of times that grows with
    the thread's number) before it marks; a mark that names no partition (an empty
    MPI_Pready_list, or a range from high to low) is no mark: made first, it let the kit's
    meeting of the marks pass and the real marks follow in turns (a fresh attacker's
    M12d_emptybar and M12d_emptyspin, 4/4 kept, 2026-12-05). A call made in a team nested in
    the region (omp_get_level() above 1) before the iteration's last mark counts too."""
    level = calls["level"] if "level" in calls else pd.Series(1, index=calls.index)
    inside = calls[(calls["in_parallel"] == 1) & (calls["team"] == threads) & (level <= 1)]
    real = pd.Series([c.call in MARKS and bool(_marked(c)) for c in inside.itertuples()],
                     index=inside.index, dtype=bool)
    marks = inside[real]
    last = marks.groupby(["step", "thread"])["start"].max()
    others = inside[~real]
    early = [c.Index for c in others.itertuples()
             if (c.step, c.thread) in last.index and c.start < last.loc[(c.step, c.thread)]]  # fmt: skip
    # a call in a team nested in the region (thread numbers of its own), before the iteration's
    # last mark: its MPI_Comm_rank was no call of the region's team (a fresh attacker's
    # Q12d_turns, 2026-12-05, marks in turns after it)
    latest = marks.groupby("step")["start"].max()
    nested = calls[(calls["in_parallel"] == 1) & (level > 1)]
    early += [c.Index for c in nested.itertuples()
              if c.step in latest.index and c.start < latest.loc[c.step]]  # fmt: skip
    return calls.loc[early]


# (d): the row of the grid each partitioned set-up names, by the neighbour's side (the kernel's
# "halo_rows" record): rows 1 and m are sent, rows 0 and m + 1 received
_OWN_ROWS = {("MPI_Psend_init", -1): ("row_1", "row 1"), ("MPI_Psend_init", 1): ("row_m", "row m"),
             ("MPI_Precv_init", -1): ("row_0", "row 0"),
             ("MPI_Precv_init", 1): ("row_m1", "row m + 1")}  # fmt: skip


def _assert_own_rows(res: Results, rank: int, mine: pd.DataFrame, where: str) -> None:
    """Every partitioned set-up of the rank names the grid's own row as its buffer (the
    tracer's "buffer" against the kit's "halo_rows"): the sends carry what copy_partition put in
    rows 1 and m, not a copy the cell made elsewhere."""
    rows = res.records[(res.records["record"] == "halo_rows") & (res.records["rank"] == rank)]
    assert len(rows), f"{where}: rank {rank}: the kernel recorded no halo_rows (no pready run)"
    for setup in mine[mine["call"].isin(PARTITIONED_SETUP)].itertuples():
        key, name = _OWN_ROWS[(setup.call, int(setup.peer) - rank)]
        assert int(setup.buffer) == int(rows[key].iloc[0]), (
            f"{where}: rank {rank}'s {setup.call} with rank {int(setup.peer)} names a buffer "
            f"that is not the grid's {name} from column 1 (&a[...]): the rows travel from and "
            "into the grid itself, where copy_partition copies them")


def partition_copies(res: Results) -> pd.DataFrame:
    """The kit's copy_partition calls (kernels_c/thread_halo.c, the kit's own object): rank,
    iteration, copier (the thread), partition, start, end, level (omp_get_level: 1 inside the
    cell's region, 0 outside any), team, barriers (the team barriers the copier had passed,
    where the build counted them: PREADY_FLAGS) and met (1: the whole team had come to
    copy_partition when this copy began)."""
    made = res.records[res.records["record"] == "partition_copy"]
    columns = ["rank", "iteration", "copier", "partition", "start", "end", "level", "team"]
    if "barriers" in made:  # the team barriers the copier had passed (the cell's gcc build)
        columns.append("barriers")
    if "met" in made:  # the whole team had come to copy_partition (the kit's meeting)
        columns.append("met")
    if made.empty:
        return pd.DataFrame(columns=columns)
    return made[columns].astype({c: int for c in columns if c not in ("start", "end")})


def _assert_copied(res: Results, rank: int, threads: int, iterations: int, marks: pd.DataFrame,
                   where: str) -> None:  # fmt: skip
    """Every partition of rows 1 and m copied by copy_partition once per iteration, by the thread
    of its number, inside the region of `threads` threads, before that thread marked it ready."""
    summary = res.records[(res.records["record"] == "partition_copies")
                          & (res.records["rank"] == rank)]  # fmt: skip
    made, kept = (int(summary[k].iloc[0]) if len(summary) else 0 for k in ("calls", "kept"))
    assert made == kept, (
        f"{where}: rank {rank}: copy_partition called {made} times in {iterations} iterations: "
        f"once per thread and iteration ({threads * iterations})")
    copies = partition_copies(res)
    copies = copies[copies["rank"] == rank]
    assert len(copies) == kept, (
        f"{where}: rank {rank}: {len(copies)} records of copy_partition calls, the kit counted "
        f"{kept}: records lost or forged")
    if "barriers" in copies:  # turns: threads copying after different numbers of team barriers
        spread = copies.groupby("iteration")["barriers"].agg(lambda b: int(b.max() - b.min()))
        assert not (spread > 0).any(), (
            f"{where}: rank {rank}: in iteration {int(spread.idxmax())} the threads copied their "
            f"partitions after different numbers of team barriers (up to {int(spread.max())} "
            "apart): they took turns; each thread copies and marks its own partition at once, "
            "all after the same barriers")
    odd = sorted(set(copies["partition"]) - set(range(threads)))
    assert not odd, (f"{where}: rank {rank}: copy_partition({odd[0]}): the partitions are 0 to "
                     f"{threads - 1}")  # fmt: skip
    for part in range(threads):
        mine = copies[copies["partition"] == part].sort_values("start")
        assert not mine.empty, (
            f"{where}: rank {rank}: no thread copied partition {part} of rows 1 and m with "
            f"copy_partition (thread {part} marked it ready): thread t copies its own partition "
            "with copy_partition(t), then marks it ready (a copy made by other code, such as the "
            "master's memcpy before the region, is not what the part asks)")
        others = sorted(set(mine["copier"]) - {part})
        assert not others, (
            f"{where}: rank {rank}: partition {part} of rows 1 and m copied by thread "
            f"{others[0]} (copy_partition), marked ready by thread {part}: each thread copies its "
            "own partition and marks it ready")
        per_iteration = mine.groupby("iteration").size()
        assert len(mine) == iterations and len(per_iteration) == iterations, (
            f"{where}: rank {rank}: partition {part} copied {len(mine)} times in {iterations} "
            "iterations: once per iteration")
        outside = mine[(mine["level"] != 1) | (mine["team"] != threads)]
        assert outside.empty, (
            f"{where}: rank {rank}: partition {part} copied outside a parallel region of "
            f"{threads} threads: copy_partition inside the region, by the thread of the "
            "partition")
        for _, sent in marks[marks["partition"] == part].groupby("request"):
            starts = sent["start"].sort_values().to_numpy()  # one per iteration, as the copies
            early = [k for k, (end, start) in enumerate(zip(mine["end"], starts, strict=True))
                     if start < end]  # fmt: skip
            assert not early, (
                f"{where}: rank {rank}: partition {part} marked ready before thread {part} had "
                f"copied it (iteration {early[0]}): copy_partition first, then MPI_Pready")
    unmet = copies[copies["met"] == 0] if "met" in copies else copies.iloc[:0]
    assert unmet.empty, (
        f"{where}: rank {rank}: in iteration {int(unmet['iteration'].iloc[0])} thread "
        f"{int(unmet['copier'].iloc[0])} waited {MEET_S:.0f} s in copy_partition for the rest of "
        "the team, which never all came: the threads reached their copies one at a time (turns); "
        "each thread copies and marks its own partition at once")
    late_marks = int(summary["marks_unmet"].iloc[0]) if "marks_unmet" in summary and len(summary) else 0
    assert not late_marks, (
        f"{where}: rank {rank}: {late_marks} thread(s) waited {MEET_S:.0f} s at their mark (their "
        "first MPI call after copy_partition) for the rest of the team, which never all came: the "
        "threads marked their partitions one at a time (turns); each thread marks its own "
        "partition as soon as it has copied it")


# (d): the CPU time a thread may use between the end of its copy_partition and its last mark of
# the iteration (the kit's "call_cpu" records, kernels_c/thread_halo.c). Right answers use
# microseconds there: at most 17 us in 117 thread-iterations of the solution and A2's two right
# answers at 3x3 and 2x2 (2026-12-07); A2's l12_pready_busy, marks of the second send after a busy
# loop growing with the thread number (30 ms apart at 3x3, 4/4 kept), used 14 ms.
OWN_CPU_S = 1e-3


def own_cpu_before_marks(res: Results, rank: int, calls: pd.DataFrame) -> pd.DataFrame:
    """Per iteration and thread of one rank (its MPI calls `calls`): the CPU time the thread used
    between the end of its copy_partition and the start of its last mark (a mark naming a
    partition) in that iteration, the kit's meeting at its first mark left out: iteration,
    thread, cpu (seconds). Empty where the run has no "call_cpu" records."""
    made = res.records[(res.records["record"] == "call_cpu") & (res.records["rank"] == rank)]
    columns = ["iteration", "thread", "cpu"]
    inside = calls[(calls["in_parallel"] == 1) & calls["call"].isin(MARKS)]
    if made.empty or inside.empty or "step" not in inside.columns:  # (a rank with no neighbour
        return pd.DataFrame(columns=columns)  # marks nothing: its trace has no steps)
    real = [bool(_marked(c)) for c in inside.itertuples()]
    last = inside[real].groupby(["step", "thread"])["start"].max()
    rows = []
    for (step, thread), start in last.items():
        before = made[(made["iteration"] == step) & (made["thread"] == thread)
                      & (made["start"] <= start)]  # fmt: skip
        if len(before):
            rows.append({"iteration": int(step), "thread": int(thread),
                         "cpu": float(before["cpu"].max())})  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _assert_marked_at_once(res: Results, rank: int, calls: pd.DataFrame, where: str) -> None:
    """No thread of the rank computed for more than OWN_CPU_S (CPU time) between its copy and its
    last mark of an iteration: work growing with the thread number there hands the partitions
    over in turns, with no clock, sleep or lock for the text checks to see."""
    own = own_cpu_before_marks(res, rank, calls)
    late = own[own["cpu"] > OWN_CPU_S]
    worst = late.loc[late["cpu"].idxmax()] if len(late) else None
    assert worst is None, (
        f"{where}: rank {rank}: in iteration {int(worst['iteration'])} thread "
        f"{int(worst['thread'])} used {worst['cpu'] * 1e3:.1f} ms of CPU time between its "
        f"copy_partition and its last MPI_Pready ({len(late)} thread-iterations above "
        f"{OWN_CPU_S * 1e3:.0f} ms; threads that mark at once use microseconds there): work "
        "between a thread's copy and its marks holds the marks back (growing with the thread "
        "number, it makes the threads take turns); each thread marks its partition of every send "
        "as soon as it has copied it")


def turn_spreads(copies: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """Per iteration of one rank: how far apart its threads handed their partitions over, in
    seconds: the latest thread's first copy_partition less the earliest's ("copies"), and the
    latest partition's first mark (MPI_Pready of it in any send) less the earliest's ("marks");
    a partition's k-th mark in a send is its mark of iteration k (each is marked once per
    iteration, judge_pready)."""
    first_copy = copies.groupby(["iteration", "partition"])["start"].min()
    marks = marks.sort_values("start").assign(
        iteration=lambda m: m.groupby(["request", "partition"]).cumcount())
    first_mark = marks.groupby(["iteration", "partition"])["start"].min()
    rows = []
    for it in sorted(set(first_copy.index.get_level_values(0))):
        made = first_copy.loc[it]
        marked = first_mark.loc[it] if it in first_mark.index.get_level_values(0) else made
        rows.append({"iteration": int(it), "copies": float(made.max() - made.min()),
                     "marks": float(marked.max() - marked.min())})  # fmt: skip
    return pd.DataFrame(rows, columns=["iteration", "copies", "marks"])


def check_student_pready(code: str, shapes: tuple[tuple[int, int], ...] = ((2, 2),),
                         nx: int = 24, ny: int = 12, iterations: int = 3,
                         timeout: float = 30.0) -> list[dict]:  # fmt: skip
    """run_pready and judge_pready at once (the notebook's visible tests)."""
    return judge_pready(run_pready(code, shapes, nx, ny, iterations, timeout))


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
