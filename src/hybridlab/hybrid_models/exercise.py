"""Lab 01's runs, and its exchange exercise: the student's exchange_block() built into
thread_ring.c, checked (the only module of the topic that launches kernels).

    levels = thread_level_runs(2, 2)              # thread_levels at every level asked for
    cost = level_cost_runs(quick=True)            # MPI_Barrier and 8-byte latency per level
    race = master_race_runs(CONFIGS, delay_us=1000, iterations=10, cluster=cluster)

    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring
    kernel = build_student_ring(code)             # its own unit, traced: Results.mpi_calls
    check_ring(cluster.run(kernel, ...))          # AssertionError naming the first wrong block
    held_blocks(results)                          # receives that held another thread's block
    received_bytes(results)                       # per (rank, thread): bytes its receives got

The expected values of the masteronly kernel come from a serial reference in Python
(ring_reference), not from the kernel's own count. The student's exchange sends values each
thread draws at run time (thread_ring.c), which no other rank can compute: each thread's checksum
is compared with the "sent" record of the same thread of the left rank (what the kit put in its
blocks), judged here from the records, outside the kernel; and each thread's own receives, read
by the tracer as they complete, must have held only that thread's blocks (held_blocks).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..kernels.build import Kernel
from ..kernels.c_cells import unanswered
from ..kernels.c_text import text_line, timed_name, timed_use
from ..machine.thread_levels import THREAD_LEVELS
from ..runs.launch import run_program
from ..runs.records import SENDRECVS, Results
from ..runs.student_c import build_student, preprocessed_lines, request_ids

if TYPE_CHECKING:
    from ..engines.cluster import Cluster

STUDENT_FUNCTIONS = ("check_thread_level", "exchange_block")  # kernels_c/thread_ring_student.h
# Sends whose completion says the receive was posted: a standard send may return early because
# the library buffered it, which hides an ordering that deadlocks elsewhere.
STANDARD_SENDS = ("MPI_Send", "MPI_Isend", *SENDRECVS, "MPI_Bsend", "MPI_Ibsend", "MPI_Rsend",
                  "MPI_Irsend", "MPI_Send_init")
# the synchronous sends (a persistent one, MPI_Ssend_init, sends at every start: A7's right
# answer r2 was refused at the build, the tracer had no entry for it, 2026-12-07)
SYNCHRONOUS_SENDS = ("MPI_Ssend", "MPI_Issend", "MPI_Ssend_init")


def ring_value(rank: int, thread: int, k: int, i: int) -> int:
    """What thread `thread` of `rank` sends in iteration k, element i (thread_ring.c)."""
    return ((k * 64 + rank) * 64 + thread) * 1000 + i % 1000


def ring_reference(ranks: int, threads: int, iterations: int, count: int) -> pd.DataFrame:
    """Serial reference: per (rank, thread) the checksum of every block it should receive."""
    rows = []
    for rank in range(ranks):
        left = (rank - 1) % ranks
        for thread in range(threads):
            total = sum(
                ring_value(left, thread, k, i)
                for k in range(1, iterations + 1)
                for i in range(count)
            )
            rows.append({"rank": rank, "thread": thread, "expected": float(total)})
    return pd.DataFrame(rows)


def build_student_ring(code: str, name: str = "student_ring") -> Kernel:
    """The student's exchange (a C cell) as its own translation unit, linked with thread_ring.c
    and every MPI call traced (hybridlab.runs.student_c); ValueError naming a clock read or a
    timed wait of the cell (timing_faults)."""
    if not unanswered(code):
        pairs = preprocessed_lines("thread_ring", "HL_STUDENT_EXCHANGE", code)
        faults = timing_faults("\n".join(text for _, text in pairs), [line for line, _ in pairs])
        if faults:
            raise ValueError("exchange_block: " + "; ".join(faults))
    return build_student(name, "thread_ring", "HL_STUDENT_EXCHANGE", code, STUDENT_FUNCTIONS)


# (b): one thread of a rank inside MPI at a time by mutual exclusion (a critical section, a lock,
# turns between barriers), not by when each thread calls: a fresh attacker's A7 c4 had no lock,
# each thread calling MPI only in its own 500 us slot of hl_now, and kept 4/4 twice, 2026-12-07
# (the run's overlaps in time are all the trace sees, and a slot schedule is a race a loaded
# machine only hides). The cell's clocks, sleeps and delays (kernels.c_text.CLOCKS_AND_SLEEPS) and
# hybridlab.h's samplers and timers, which time what they are handed (A7 timed lab 12's turns with
# hl_sample of an empty function); the one pause allowed is a constant hl_sleep_us in a loop that
# tests or probes the thread's requests. Turns kept without a clock (busy work, A12's counted loops) and no
# lock at all are met at run time: the build holds each call until another thread is inside MPI
# or the others wait for the one inside (thread_ring.c, unexcluded).
_KIT_TIMERS = re.compile(r"\b(?:hl_sample|hl_calibrate|hl_measure\w*|hl_timers\w*|hl_timeline\w*"
                         r"|hl_emit_timeline\w*)\b")
def timing_faults(text: str, cell_lines: list[int] | None = None) -> list[str]:
    """A clock read, sleep, delay or timer (kernels.c_text.timed_use, and _KIT_TIMERS) in the
    preprocessed cell, named with its line; the pause between tests is allowed."""
    found = timed_use(text, _KIT_TIMERS)
    if found is None:
        return []
    return [f"no {timed_name(found)} (line {text_line(text, found.start(), cell_lines)}): "
            "one thread at a time calls MPI because a critical section, a lock or a barrier "
            "keeps the others out, not because of when each thread calls; the cell reads no "
            "clock and times no wait (the one pause allowed: hl_sleep_us(N), N a constant, in "
            "the loop that tests your requests)"]


def unexcluded(results: Results) -> list[str]:
    """The threads whose MPI call waited RING_HOLD_LIMIT (1 s) inside MPI while another thread of
    the rank ran the cell's own code, neither calling MPI nor waiting at a lock, a critical
    section or a barrier (thread_ring.c's hold, the record's "unexcluded": that thread + 1).

    The student's exchange build holds each of the cell's MPI calls in a parallel region, once
    begun, until another thread of the rank is inside MPI too (then the trace shows the two
    overlapping: hybridlab.runs.compliance) or every other thread waits at a lock, a critical
    section or a barrier, or is in the kernel's own code between exchanges: code without mutual
    exclusion overlaps for certain in every graded run, code with it only waits. A fresh
    attacker's A12 (2026-12-07) kept 4/4 in 2 of 4 gradings with no lock at all (an overlap was
    seen only when one happened to occur), and 4/4 three times with turns kept by busy work (a
    counted arithmetic loop per thread, no clock); a turn longer than the hold is named here.
    A thread whose try of a lock another thread holds failed waits (A14's right answer r3 spun on
    omp_test_lock and lost 0/4, 2026-12-07) until it takes that lock; a thread that called MPI
    after such a try without the lock, or took or released a lock another thread held, is named
    too (the record's "lock_fault", LOCK_FAULTS). The hold's state is on the kernel's sealed
    pages, out of the cell's reach (A14 kept 4/4 by storing into it, 2026-12-07)."""
    rec = results.records
    if "unexcluded" not in rec:
        return []
    found = [f"rank {int(r.rank)}, thread {int(r.thread)}: an MPI call it made waited 1 s inside "
             f"MPI while thread {int(r.unexcluded) - 1} ran your code outside MPI, neither "
             "calling MPI nor waiting at a critical section, an OpenMP lock or a barrier: one "
             "thread at a time calls MPI because the others wait for the one inside (mutual "
             "exclusion), not because of when each thread calls or how long it computes first"
             for r in rec[rec["unexcluded"].fillna(0) > 0].itertuples()]  # fmt: skip
    if "lock_fault" in rec:
        found += [f"rank {int(r.rank)}, thread {int(r.thread)}: {LOCK_FAULTS.get(int(r.lock_fault), 'a lock misused')}"
                  for r in rec[rec["lock_fault"].fillna(0) > 0].itertuples()]  # fmt: skip
    return found


# thread_ring.c's RING_FAULT_*: what a thread did with a lock that no thread waiting for it does
# (the hold counts a thread whose try of a lock another thread holds failed as waiting, until it
# takes that lock: fresh attacker A14's right answer r3 spun on omp_test_lock, 2026-12-07)
LOCK_FAULTS = {
    1: ("it called MPI after a try of a lock (omp_test_lock, a trylock) that failed, without "
        "taking that lock since: a thread that does not get the lock waits for it (tries again "
        "until it has it) before it calls MPI"),
    2: ("it took a lock that another thread held (never released through omp_unset_lock or "
        "the unlock call): locks are taken and released only through their calls"),
    3: "it released a lock that another thread held: only the thread holding a lock releases it",
}


def sent_reference(records: pd.DataFrame, ranks: int, threads: int) -> pd.DataFrame:
    """The student's exchange: per (rank, thread) the sum of what the same thread of the left
    rank sent (its "sent" record; NaN where that record is missing)."""
    sent = records[["rank", "thread", "sent"]].astype(float).astype({"rank": int, "thread": int})
    sent = sent.assign(rank=(sent["rank"] + 1) % ranks).rename(columns={"sent": "expected"})
    rows = pd.DataFrame([(r, t) for r in range(ranks) for t in range(threads)],
                        columns=["rank", "thread"])  # fmt: skip
    return rows.merge(sent, on=["rank", "thread"], how="left")


def check_ring(results: Results) -> pd.DataFrame:
    """Compare each thread's received checksum with what the same thread of the left rank sent
    (the student's exchange: its "sent" record) or with the serial reference (masteronly);
    AssertionError names the first (rank, thread) that got wrong data. Returns the comparison."""
    rec = results.records
    rec = rec[rec["checksum"].notna()] if "checksum" in rec else rec
    ranks = len(results.meta["ranks"])
    threads = int(results.meta["ranks"][0]["omp_max_threads"])
    assert len(rec) == ranks * threads, (
        f"{len(rec)} records, expected one per thread of every rank ({ranks} x {threads})"
    )
    iterations, count = int(rec["iterations"].iloc[0]), int(rec["count"].iloc[0])
    if "sent" in rec:
        want = sent_reference(rec, ranks, threads)
    else:
        want = ring_reference(ranks, threads, iterations, count)
    got = rec[["rank", "thread", "checksum", "wrong"]].astype(float)
    both = want.merge(got.astype({"rank": int, "thread": int}), on=["rank", "thread"], how="left")
    for row in both.itertuples():
        assert row.checksum == row.expected and row.wrong == 0, (
            f"rank {row.rank}, thread {row.thread}: received checksum {row.checksum}, expected "
            f"{row.expected} ({int(row.wrong)} elements wrong): its block did not arrive from "
            "the same thread of the left neighbour"
        )
    return both


# every call that receives a message into a buffer (a matched probe's MPI_Mrecv, MPI_Imrecv too:
# fresh attacker A4's right answer r1, MPI_Improbe and MPI_Mrecv with its own tag, lost 4/4 as
# "0 receives", 2026-12-07)
RECEIVES = ("MPI_Recv", "MPI_Irecv", "MPI_Mrecv", "MPI_Imrecv", *SENDRECVS)
INT_BYTES = 4


def foreign_receives(results: Results) -> list[str]:
    """The student's receives (rank, thread, call) whose buffer lies in another thread's receive
    block (the kernel's "block" record of each thread, `count` ints; the trace keeps each
    receive's buffer address): a thread receiving the block meant for another."""
    rec = results.records
    blocks = rec[rec["block"].notna()] if "block" in rec else rec.iloc[0:0]
    calls = results.mpi_calls
    if not len(blocks) or not len(calls) or "buffer" not in calls:
        return []
    calls = calls[(calls["student"] == 1) & calls["call"].isin(RECEIVES) & (calls["buffer"] > 0)]
    found = []
    for b in blocks.itertuples():
        start, size = int(b.block), int(b.count) * INT_BYTES
        into = calls[(calls["rank"] == b.rank) & (calls["thread"] != b.thread)
                     & (calls["buffer"] >= start) & (calls["buffer"] < start + size)]  # fmt: skip
        found += [f"rank {int(c.rank)}, thread {int(c.thread)}: {c.call} into thread "
                  f"{int(b.thread)}'s block" for c in into.itertuples()]  # fmt: skip
    return found


def readings(results: Results) -> pd.DataFrame:
    """The tracer's readings of the student's receives, one row each: the rank, the thread that
    posted the receive (started it, for a persistent one), the call that completed it, the bytes
    it got and what the kernel read in them, the tag its elements share and their sum
    (thread_ring.c); "held" of the completing call's record, "THREAD/BYTES/TAG:SUM". A field
    that was full ("+") is a row with no tag, under the completing call's thread."""
    calls = results.mpi_calls
    rows = []
    if "held" in calls:
        calls = calls[(calls["student"] == 1) & (calls["held"].fillna("").astype(str) != "")]
        for rank, thread, call, held in zip(calls["rank"], calls["thread"], calls["call"],
                                            calls["held"], strict=True):  # fmt: skip
            for reading in str(held).split(","):
                poster, _, rest = reading.partition("/")
                got, _, text = rest.partition("/")
                tag, _, value = text.partition(":")
                row = {"rank": int(rank), "call": call, "thread": int(thread), "bytes": 0,
                       "tag": None, "sum": 0}  # fmt: skip
                if value:
                    row.update(thread=int(poster), bytes=int(got), tag=int(tag), sum=int(value))
                rows.append(row)
    return pd.DataFrame(rows, columns=["rank", "thread", "call", "bytes", "tag", "sum"])


def received_bytes(results: Results) -> dict[tuple[int, int], int]:
    """Per (rank, thread): the bytes the receives it posted got, as the tracer read them."""
    got = readings(results).groupby(["rank", "thread"])["bytes"].sum()
    return {(int(r), int(t)): int(b) for (r, t), b in got.items()}


def unread_receives(results: Results) -> list[str]:
    """The student's receives the tracer never read ("unread" in the record of the call that
    posted or freed it): one it could not keep (a fresh attacker's 1100 persistent receives set up
    and never started took every slot, so later receives went unread), one whose request was
    freed before it completed (another's, each MPI_Irecv freed at once and its buffer polled)."""
    calls = results.mpi_calls
    if "unread" not in calls:
        return []
    calls = calls[(calls["student"] == 1) & (calls["unread"].fillna(0) > 0)]
    found = []
    for (rank, thread, call), n in calls.groupby(["rank", "thread", "call"]).size().items():
        if call == "MPI_Request_free":
            found.append(f"rank {rank}, thread {thread}: {n} MPI_Request_free freed a receive "
                         "before it completed, so the kit never read what it received: complete "
                         "every receive by a wait or a test")
        else:
            found.append(f"rank {rank}, thread {thread}: {n} {call} posted receives the kit "
                         "could not keep to read (more than 1024 receives open at once): "
                         "complete each receive before posting many more")
    return found


def held_blocks(results: Results) -> list[str]:
    """The student's exchange: per (rank, thread), what the receives it posted held as they
    completed (the tracer's readings). Each reading must be of the thread's own blocks (the tag's
    thread), and the readings must sum to what the same thread of the left rank sent: a thread
    that took another thread's message and got its block back through shared memory
    afterwards (or handed that receive to the thread whose block it held, to complete), or
    received its block by no message of its own, is named; so is every receive never read
    (unread_receives)."""
    rec = results.records
    if "sent" not in rec:
        return ["no \"sent\" records: the student's exchange was not run"]
    rec = rec[rec["sent"].notna()]
    ranks = len(results.meta["ranks"])
    threads = int(results.meta["ranks"][0]["omp_max_threads"])
    read = readings(results)
    found = unread_receives(results)
    for want in sent_reference(rec, ranks, threads).itertuples():
        rank, thread = int(want.rank), int(want.thread)
        mine = read[(read["rank"] == rank) & (read["thread"] == thread)]
        for call, tag in zip(mine["call"], mine["tag"], strict=True):
            if tag is None or pd.isna(tag):
                found.append(f"rank {rank}, thread {thread}: {call} completed more receives "
                             "than its record can hold: complete them one or two at a time")
            elif int(tag) == -2:
                found.append(f"rank {rank}, thread {thread}: {call} completed a receive "
                             "whose buffer is not contiguous ints: receive the block as "
                             "MPI_INT into a plain buffer")
            elif int(tag) == -1 or int(tag) >> 5 != thread:
                whose = ("elements of several blocks" if int(tag) == -1 else
                         f"thread {int(tag) >> 5}'s block of iteration {int(tag) & 31}")
                found.append(
                    f"rank {rank}, thread {thread}: a receive it posted (completed by {call}) "
                    f"held {whose}: each thread must receive its own block by its own message "
                    "(messages told apart by their tags or communicators), not take another "
                    "thread's and sort the blocks out afterwards")
        total = int(mine["sum"].sum())
        if float(total) != want.expected:
            found.append(f"rank {rank}, thread {thread}: the blocks the receives it posted held "
                         f"as they completed sum to {total}, the same thread of the left rank "
                         f"sent {want.expected:.0f}: every block must arrive by the thread's own "
                         "receive")
    return found


def messages(results: Results) -> pd.DataFrame:
    """The student's synchronous sends and receives (SYNCHRONOUS_SENDS, RECEIVES), one row per
    message a thread sent or posted: rank, thread, call, peer, bytes. A persistent request's
    set-up (MPI_Ssend_init, MPI_Recv_init) is no message; each MPI_Start or MPI_Startall of it
    is one, under the thread that started it, with the set-up's call, peer and bytes (by handle,
    the rank's latest set-up of it before the start: a freed handle is given out again). (A7's
    right answer r3 started its MPI_Recv_init in every exchange and lost 4/4 as "0 receives",
    2026-12-07.)"""
    calls = results.mpi_calls
    columns = ["rank", "thread", "call", "peer", "bytes"]
    if not len(calls):
        return pd.DataFrame(columns=columns)
    calls = calls[calls["student"] == 1].sort_values("start", kind="stable")
    moving = (*SYNCHRONOUS_SENDS, *RECEIVES, "MPI_Recv_init")
    rows = []
    for rank, mine in calls.groupby("rank", sort=True):
        setups = {}  # handle -> the set-up's (call, peer, bytes)
        for c in mine.itertuples():
            if c.call in ("MPI_Ssend_init", "MPI_Recv_init"):
                setups[c.request] = (c.call, c.peer, c.bytes)
            elif c.call in ("MPI_Start", "MPI_Startall"):
                rows += [(rank, int(c.thread), *setups[h]) for h in request_ids(c) if h in setups]
            elif c.call in moving:
                rows.append((rank, int(c.thread), c.call, c.peer, c.bytes))
    return pd.DataFrame(rows, columns=columns)


def standard_sends(calls: pd.DataFrame) -> list[str]:
    """The standard-mode sends among a calls table (compliance.calls_table)."""
    return sorted(set(calls["call"]) & set(STANDARD_SENDS))


def thread_level_runs(ranks: int, threads: int, timeout: float = 60.0) -> dict[str, Results]:
    """thread_levels under mpiexec once per MPI thread level (the kernel calls MPI_Init_thread
    itself, so each run asks for its own level): level asked for -> its run."""
    return {
        level: run_program("thread_levels", ranks=ranks, threads=threads, thread_level=level,
                           requested=level, timeout=timeout)  # fmt: skip
        for level in THREAD_LEVELS
    }


def level_cost_runs(
    levels: Sequence[str] = ("funneled", "multiple"), ranks: int = 2, quick: bool = False
) -> dict[str, dict[str, Results]]:
    """What asking for a thread level costs: per level, an EPCC MPI_Barrier run ("sync":
    syncbench, reference and mpi_barrier) and an 8-byte OSU-style ping-pong ("ping"), both with
    1 thread per rank; `quick` takes fewer samples and iterations."""
    runs = {}
    for level in levels:
        sync = run_program("syncbench", ranks=ranks, threads=1, thread_level=level,
                           construct="reference,mpi_barrier", samples=8 if quick else 20,
                           timeout=120)  # fmt: skip
        ping = run_program("pingpong", ranks=ranks, threads=1, thread_level=level, mode="sweep",
                           min_bytes=8, max_bytes=8, samples=5 if quick else 15,
                           iterations=200 if quick else 1000, skip=20 if quick else 100,
                           timeout=120)  # fmt: skip
        runs[level] = {"sync": sync, "ping": ping}
    return runs


def master_race_runs(
    configs: Mapping[str, tuple[int, int]],
    *,
    delay_us: int,
    iterations: int,
    cluster: Cluster | None = None,
    timeout: float = 120.0,
) -> dict[str, Results]:
    """master_race once per (barrier_before, barrier_after) of `configs`: on the cluster's
    engines, or without one as 1 rank x 2 threads under mpiexec (the rank sends to itself)."""
    runs = {}
    for name, (before, after) in configs.items():
        params = dict(barrier_before=before, barrier_after=after, delay_us=delay_us,
                      iterations=iterations, timeout=timeout)  # fmt: skip
        if cluster is not None:
            runs[name] = cluster.run("master_race", **params)
        else:
            runs[name] = run_program("master_race", ranks=1, threads=2,
                                     thread_level="funneled", **params)  # fmt: skip
    return runs

