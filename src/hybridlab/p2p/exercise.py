"""Lab 03's runs of the pingpong kernel under mpiexec (a size sweep, the send modes against a
late receiver, the busy sender with and without progress), and its exercise: the student's
overlap_exchange() built into p2p_overlap.c, checked and timed against its variants.

The master thread starts MPI_Isend/MPI_Irecv, the team computes, the master polls with MPI_Test
inside its share of the loop. The check: every received value and step result (the kernel
checks them and fails naming the first wrong one), only the master calls MPI (FUNNELED,
hybridlab.runs.compliance), MPI_Test is called about every `poll` steps while the exchange is
open (counted where one thread computes every step), the team computes while the exchange is open
(the trace's timestamps: hybridlab.runs.student_c.overlap_share), the master does not block in
a Wait with the exchange open while it has steps left, or after a step or so with the team idle,
nor does the team put its computing off until the exchange has completed in most samples
(_check_stalls), nor compute the steps before the exchange is posted (judge_posted_first), no
request is freed in flight (student_c.freed_in_flight, lab 04 (a)'s rule too), the master
computes a share of its own in the runs of a team, where every thread's steps are slowed alike
(STEP_US; judge_master_share: no communication thread), the cell reads no clock and sleeps not
(clock_faults), each posting moves the sample's `count` doubles to or from `peer` on `comm`
(_check_postings; the values are drawn afresh per sample and told to no one before the exchange
returns, so they cannot be made from the rank's own), and no deadlock (MPI_Send is
synchronous in the student's code; a hang ends as KernelTimeout).

    kernel = build_student_overlap(code)
    check_student_overlap(kernel)      # AssertionError / ThreadComplianceError / KernelError
    runs = student_overlap_runs(kernel, (1, 2), ...)  # the same in two steps: run (in the kernel),
    judge_overlap(runs[0], 1, ...)                    # then judge each run (in the grader's process)
    overlap_variants(kernel, bytes=2**21, flops=5000, samples=3)   # the four variants timed
    overlap_apart(answers, code, bytes=..., flops=..., samples=..., drawn=[...])  # (e), apart

The multi-node section's runs are here too: path_sweeps(nodes, ...) sweeps a ping-pong inside a
node and across two nodes of an allocation.
"""

from __future__ import annotations

import re

import pandas as pd

from ..kernels.build import Kernel
from ..kernels.c_cells import unanswered
from ..kernels.c_text import text_line, timed_name, timed_use
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import (
    COMPLETES,
    POSTS,
    blocking_calls,
    build_student,
    freed_in_flight,
    overlap_share,
    overlap_table,
    preprocessed_lines,
)
from .paths import ACROSS, INSIDE
from .switches import Switches

SIGNATURE = (
    "void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm, "
    "long steps, long poll)"
)
LEVEL = "funneled"  # only the master calls MPI
POLLS = ("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome")
# (d): in the judged runs one rank of the pair calls overlap_exchange this late in each sample,
# each in turn (p2p_overlap.c's late_us), so the other's exchange is open at least that long: a
# window a team has the time to compute in (all of the steps take well under 1 ms), where the
# team's idling is judged (_idle_team); as lab 04 (d)'s stagger
LATE_US = 20000
# (d): _idle_team judges only windows at least this long (a quarter of the stagger: the early
# rank's); a shorter one (the late rank's: the message had waited for it) says too little
# against a thread the loaded machine pauses
IDLE_WINDOW = LATE_US * 1e-6 / 4
# (d): _idle_team's floor: the other threads computed more than this many times as many steps after
# a long window as inside it (a token step inside, the rest after)
LATE_FACTOR = 3
# (d): in every run of more than one thread, compute_step sleeps this long (us) after each step,
# on every thread alike (p2p_overlap.c's step_us): a team sharing the steps gives the master about
# 1/T of them however loaded the machine (a step's sleep leaves the CPU to a paused master), a
# communication thread none, and no run of a team looks different from another: judge_master_share
# judges them all (the hidden test's 29 to 45 steps: at most 23 ms a sample at 2 threads, 15 at
# 3; a fresh attacker's A11 d03_1 timed the other threads' steps to find the one slowed run of
# 2026-12-07 and was a communication thread in the others, 4/4 twice)
STEP_US = 500


def live_polls(calls: pd.DataFrame) -> pd.Series:
    """Which calls are polls of a request still open: an MPI_Test* given at least one request
    that is not MPI_REQUEST_NULL (the tracer's "live"): a test of a completed request's
    variable, or of none, gives the library nothing to move."""
    return calls["call"].isin(POLLS) & (calls["live"] > 0)


def sweep_run(max_bytes: int, samples: int, env: dict[str, str] | None = None, **osu) -> Results:
    """The ping-pong size sweep (1 B to max_bytes) on 2 ranks bound to cores, with OSU's
    iteration counts (`osu`: iterations, skip, iterations_large, skip_large) and `env`."""
    return run_program("pingpong", ranks=2, bind="cores", mode="sweep", min_bytes=1,
                       max_bytes=max_bytes, samples=samples, env=env, **osu)  # fmt: skip


def sendmodes_run(max_bytes: int, samples: int, late_us: int) -> Results:
    """Send, Ssend, Bsend and Isend from 8 B to max_bytes to a receiver `late_us` late."""
    return run_program("pingpong", ranks=2, bind="cores", mode="sendmodes", min_bytes=8,
                       max_bytes=max_bytes, samples=samples, late_us=late_us)  # fmt: skip


def progress_runs(
    bytes: int, compute_us: int, samples: int, switches: Switches
) -> dict[str, Results]:
    """The busy sender (mode=progress: a message above the eager limit, the sender computes
    `compute_us`) under the MPI of `switches`: its defaults (CMA), without CMA (polling every
    100 us too), and, where the MPI has one, without CMA with an asynchronous progress thread
    (MULTIPLE): case -> its run."""
    common = dict(ranks=2, bind="cores", mode="progress", max_bytes=bytes, compute_us=compute_us,
                  samples=samples)  # fmt: skip
    no_cma = switches.no_single_copy
    runs = {
        "default (CMA)": run_program("pingpong", poll_us="0", **common),
        "no CMA": run_program("pingpong", poll_us="0,100", env=no_cma, **common),
    }
    if switches.async_progress is not None:
        runs["no CMA + async"] = run_program("pingpong", thread_level="multiple", poll_us="0",
                                             env={**no_cma, **switches.async_progress}, **common)  # fmt: skip
    return runs


def build_student_overlap(code: str, name: str = "student_p2p_overlap") -> Kernel:
    """Compile the student's overlap into p2p_overlap (variant student), MPI calls traced;
    ValueError naming a clock read or a sleep of the cell (clock_faults)."""
    if not unanswered(code):
        pairs = preprocessed_lines("p2p_overlap", "HL_STUDENT_P2P_OVERLAP", code)
        faults = clock_faults("\n".join(text for _, text in pairs), [line for line, _ in pairs])
        if faults:
            raise ValueError("overlap_exchange: " + "; ".join(faults))
    return build_student(name, "p2p_overlap", "HL_STUDENT_P2P_OVERLAP", code, ("overlap_exchange",))


def clock_faults(text: str, cell_lines: list[int] | None = None) -> list[str]:
    """A clock read, sleep or delay (kernels.c_text.timed_use) in the preprocessed cell,
    named with its line: the text asks for none, and a clock is what tells one run from another
    (a fresh attacker's A11 d03_1 timed the other threads' steps with omp_get_wtime to find the
    one run that judged the master's share, and was a communication thread in the others, 4/4
    twice, 2026-12-07). hl_sleep_us(N), N a constant, in the innermost loop whose body tests
    requests (the pause between tests, lab 01 (b)'s rule) is allowed."""
    found = timed_use(text)
    if found is None:
        return []
    return [f"no {timed_name(found)} (line {text_line(text, found.start(), cell_lines)}): "
            "the cell reads no clock and sleeps not (the one pause allowed: hl_sleep_us(N), N a "
            "constant, in the loop that tests your requests): the master shares the steps and "
            "polls inside its share, whatever the steps cost"]


def check_student_overlap(
    kernel: Kernel,
    threads: tuple[int, ...] = (1, 2),
    bytes: int = 65536,
    steps: int = 64,
    flops: int = 2000,
    poll: int = 4,
    samples: int = 2,
    timeout: float = 30.0,
    min_share: float = 0.0,
) -> list[dict]:
    """Run the student's overlap on 2 ranks for each thread count and check it (see module):
    the data, FUNNELED, polling, and overlap read from the trace's timestamps: on every rank, more
    than `min_share` of the computing (compute_step) must fall between the posting of the
    requests and their completion (student_c.overlap_share); in the runs of more than one
    thread every step is slowed (STEP_US) and the master's own share judged (judge_team, then
    judge_master_share). Returns one row per thread count."""
    runs = student_overlap_runs(kernel, threads, bytes=bytes, steps=steps, flops=flops, poll=poll,
                        samples=samples, timeout=timeout)  # fmt: skip
    rows = [judge_overlap(res, t, steps=steps, poll=poll, samples=samples, min_share=min_share)
            for t, res in zip(threads, runs, strict=True)]  # fmt: skip
    judge_team(rows)
    return rows


def judge_team(rows: list[dict]) -> None:
    """The team computes a real share: in most runs of more than one thread (more than half:
    on a busy machine a dynamic schedule may leave a thread idle in one run), each thread other
    than the master computed at least 1/(4T) of all the steps (team_computes). Read from the
    kit's own records of compute_step (the trace's intervals), summed over the ranks and
    samples. Their share while the exchange was open is shown, not judged: on a loaded machine
    the instructor's solution computed none of it there in one run of five (the exchange done
    before the other threads started), and whether the computing overlaps the exchange is
    judge_overlap's to say. Then judge_blocking: no sample blocked by program order twice over the
    runs; judge_posted_first; and judge_master_share: the master's own share in the runs of a
    team."""
    runs = [row for row in rows if row["threads"] > 1]
    good = [row for row in runs if team_computes(row)]
    assert 2 * len(good) > len(runs), (
        f"the threads other than the master computed too little in {len(runs) - len(good)} of "
        f"{len(runs)} runs of more than one thread ("
        + "; ".join(f"{row['threads']} threads: {row[OTHERS]:.0%} of the steps computed while "
                    f"the exchange was open, the least of them {row[LEAST]:.0%} of all steps"
                    for row in runs)
        + "): the OpenMP team shares the steps: with T threads, each thread other than the "
        "master computes at least 1/(4T) of all the steps, in most runs")
    judge_blocking(rows)
    judge_posted_first(rows)
    judge_master_share(rows)


def judge_posted_first(rows: list[dict]) -> None:
    """The exchange is posted before the sample's steps are computed, over all the part's runs
    (`rows`, from judge_overlap: each run's MASTER_FIRST and EARLY, from _posted_late). Refused
    when the master (the thread that posts) computed steps of the sample before the exchange was
    in flight in STRUCTURAL samples or more (its own program order, at any load); or when, in the
    runs of more than one thread, so many of a sample's steps were computed before it on a rank
    that fewer than steps / (2T) were left (the floor _check_stalls (b) sets for a master's share),
    in EARLY_KEPT samples or more: a team that computes all but a token step and only then posts
    leaves nothing to overlap, however long the window (a fresh attacker's G03_tail, 4/4 twice,
    2026-12-06: with a team, every step but one computed before the posting, the master posted
    and waited at once, thread 1 computed the held-back step inside the window; share > 0, no
    stall, each thread its 1/(4T)). The threads other than the master may compute their share
    while a paused master has not yet posted (no barrier after the posting, as the instructor's
    solution: on a grader at load 5 to 20, in a third to two thirds of the samples at three
    threads), but a master that keeps a share of at least steps / (2T) + 1 for itself (a static
    share, or half of one) leaves them fewer than that: no sample of theirs counts."""
    master = [text for row in rows for text in row.get(MASTER_FIRST, [])]
    assert len(master) < STRUCTURAL, (
        f"the master computed steps before it posted the exchange in {len(master)} samples over "
        f"this part's {len(rows)} runs (" + "; ".join(master[:2])
        + ("; ..." if len(master) > 2 else "") + "): post the exchange first (its receive and "
        "its send), then compute the steps while it is in flight, in every sample")
    team = [row for row in rows if row["threads"] > 1]
    early = [f"{row['threads']} threads, {text}" for row in team for text in row.get(EARLY, [])]
    judged = sum(row.get(SAMPLED, 0) for row in team)
    assert len(early) < EARLY_KEPT, (
        f"in {len(early)} of the {judged} samples (ranks x samples) of this part's runs with a "
        "team, the steps were computed before the exchange was posted, all but fewer than "
        "steps / (2T) (" + "; ".join(early[:2]) + ("; ..." if len(early) > 2 else "")
        + "): post the exchange first (its receive and its send), then the team computes the "
        "steps while it is in flight; steps computed before the posting overlap nothing")


def _samples_posted(res: Results):
    """Per rank and sample (the span between two of the kit's calls in which the cell posted):
    (rank, sample, the master's threads (those that call MPI on the rank), when the exchange was
    in flight there (its window opened: a receive and a send both posted, overlap_table; the
    last posting of a sample with no window), the trace's compute_step intervals started in
    the span, the cell's calls on the rank started in the span)."""
    calls, work = res.mpi_calls, res.compute
    windows = overlap_table(res)
    windows = windows[windows["window"] >= 0]
    for rank, mine in calls[calls["student"] == 1].groupby("rank"):
        kit = calls[(calls["rank"] == rank) & (calls["student"] != 1)]
        posts = mine[mine["call"].isin(POSTS)].sort_values("start")
        opened = windows.loc[windows["rank"] == rank, "start"]
        master = set(mine["thread"])
        done = work[work["rank"] == rank] if len(work) else work
        spans: dict[float, tuple[float, float]] = {}  # sample start -> (its end, last posting)
        for p in posts.itertuples():
            ends = kit.loc[kit["end"] <= p.start, "end"]
            starts = kit.loc[kit["start"] >= p.start, "start"]
            begin = float(ends.max()) if len(ends) else float("-inf")
            end = float(starts.min()) if len(starts) else float("inf")
            spans[begin] = (end, max(float(p.start), spans.get(begin, (end, float("-inf")))[1]))
        for sample, (begin, (end, last)) in enumerate(sorted(spans.items())):
            inside = opened[(opened >= begin) & (opened < end)]
            first = float(inside.min()) if len(inside) else last
            in_span = done[(done["start"] >= begin) & (done["start"] < end)] if len(done) else done
            yield rank, sample, master, first, in_span, mine[(mine["start"] >= begin)
                                                             & (mine["start"] < end)]


def _posted_late(res: Results, threads: int) -> tuple[list[str], list[str], int]:
    """Per rank and sample (_samples_posted): the steps computed before the exchange was in
    flight there, from the trace's intervals of compute_step (each `pieces` steps, counted
    before it in proportion to its time there): a receive posted first and the send only after
    the computing leaves as little in flight as both posted after it. Returns the samples in
    which the master (the thread that calls MPI on the rank) computed steps before it (one text
    each), those in which so many of the sample's steps were computed before it that fewer than
    steps / (2T) were left for after it (`threads`: T; one text each), and how many samples
    (ranks x samples) were judged."""
    master_first: list[str] = []
    early: list[str] = []
    judged = 0
    for rank, sample, master, first, mine_work, _ in _samples_posted(res):
        judged += 1
        if mine_work.empty:
            continue
        span = (mine_work["end"] - mine_work["start"]).clip(lower=1e-12)
        part = ((first - mine_work["start"]) / span).clip(lower=0.0, upper=1.0)
        before = mine_work["pieces"] * part
        total = float(mine_work["pieces"].sum())
        by_master = float(before[mine_work["thread"].isin(master)].sum())
        if by_master > 0:
            master_first.append(f"rank {rank} sample {sample}: {by_master:.0f} of the master's "
                                "steps before it posted")
        if total and 2 * threads * (total - float(before.sum())) < total:
            early.append(f"rank {rank} sample {sample}: {float(before.sum()):.0f} of "
                         f"{total:.0f} steps before the exchange was posted")
    return master_first, early, judged


def _master_short(res: Results, threads: int, steps: int) -> tuple[list[str], int]:
    """Per rank and sample (_samples_posted) of a run of `threads` > 1: the samples in which the
    master (the thread that calls MPI on the rank) computed fewer than steps / (4T) of the steps
    (one text each: its steps, and how many the sample had), and how many samples were judged."""
    short, judged = [], 0
    for rank, sample, master, _, work, _ in _samples_posted(res):
        judged += 1
        mine = int(work.loc[work["thread"].isin(master), "pieces"].sum()) if len(work) else 0
        if 4 * threads * mine < steps:
            short.append(f"{threads} threads, rank {rank} sample {sample}: {mine} of {steps}")
    return short, judged


def judge_master_share(rows: list[dict]) -> None:
    """The master takes part in sharing the steps and polls inside its share (the text's step
    2), over the part's runs of more than one thread (`rows`, from judge_overlap: each run's
    MASTER_SHORT and MASTER_SAMPLED, _master_short). In each of them every thread's steps are
    slowed alike (student_overlap_runs' step_us=STEP_US): a master that shares the steps (a
    static share, half of one, or a dynamic schedule behind a barrier) computes about 1/T of them
    in every sample, however loaded the machine; a communication thread that posts and waits (or
    tests in a loop) while the others compute every step (a fresh attacker's K1, 4/4 twice,
    2026-12-07), or that computes a token step, computes fewer than steps / (4T). Refused when it
    did so in more than a quarter of the samples (ranks x samples) over those runs: a
    communication thread in any one of the hidden test's three runs of a team, in any run told
    apart by its thread count or its steps, or in a third of the samples, is a third of them (a
    fresh attacker's A11 d03_1, 4/4 twice, 2026-12-07: when only one run of each thread count was
    slowed, it timed the other threads' steps and shared honestly there only). Measured at load
    9 to 17 on 2 CPUs, 500 us a step, 37 steps: static masters 19 / 13 at 2 / 3 threads, the half
    share 10 / 7, dynamic and guided ones 8 to 24 (the floor 4.6 / 3.1), communication threads 0;
    in the 5-step eager run a dynamic master took none in up to 2 of its 6 samples. A step's
    thread is the tracer's outermost team number, 0 only for MPI's main thread (hl_trace.c,
    outermost_thread): steps another thread computes in a team of one nested in its own, or in a
    target region run on the host, where omp_get_thread_num() is 0, are not the master's (a fresh
    attacker's A14 d03_c3, 4/4 twice, 2026-12-07)."""
    team = [row for row in rows if row["threads"] > 1 and MASTER_SAMPLED in row]
    short = [text for row in team for text in row[MASTER_SHORT]]
    judged = sum(row[MASTER_SAMPLED] for row in team)
    assert 4 * len(short) <= judged, (
        f"in the {len(team)} runs of a team (2 ranks, every thread's steps slowed by {STEP_US} "
        f"us), the master computed fewer than steps / (4T) of the steps in {len(short)} of the "
        f"{judged} samples (ranks x samples) (" + "; ".join(short[:2])
        + ("; ..." if len(short) > 2 else "") + "): the master takes part in sharing the "
        "steps (a static schedule, or a barrier after the posting: then it takes steps as the "
        "others do) and polls inside its share; a master that only posts and waits while the "
        "other threads compute (a communication thread) is not the exercise")


def judge_blocking(rows: list[dict]) -> None:
    """No sample a blocking exchange by program order, over all the part's runs (`rows`, from
    judge_overlap, each run's BLOCKED: _check_stalls' rules (a), (b), the blocking call inside
    and the wait made of tests, and _blocked_at_once): STRUCTURAL samples or more fail. Each is
    what the cell's order of calls and steps made, not a pause of the machine, so a run's other
    samples do not outvote it (a fresh attacker's G03_alt, 4/4 three times, 2026-12-05: with a
    team every other call posted, waited in MPI_Waitall at once and computed after, one sample
    in three per run under the per-run majority rule); one is let pass, for a team the loaded
    machine pauses for a whole window of a communication thread (_blocked_at_once's long
    window)."""
    blocked = [text for row in rows for text in row.get(BLOCKED, [])]
    assert len(blocked) < STRUCTURAL, (
        f"the master blocked with the exchange open in {len(blocked)} samples over this part's "
        f"{len(rows)} runs ("
        + "; ".join(blocked[:2]) + ("; ..." if len(blocked) > 2 else "")
        + "): in every sample, compute (your share, polling) while the exchange is open, or "
        "let the other threads compute while the master waits; a sample that posts, waits and "
        "only then computes is a blocking exchange, whatever the other samples do")


def team_computes(row: dict) -> bool:
    """One run's row (judge_overlap) shows the team computing (judge_team's rule)."""
    return row[LEAST] >= 1.0 / (4 * row["threads"])


def team_shares(res: Results, windows: pd.DataFrame, threads: int) -> tuple[float, float]:
    """From the trace's intervals of compute_step (each `pieces` steps, counted inside a window
    in proportion to its time there), summed over ranks and samples: the share of the steps
    computed while an exchange was open that threads other than the master (the thread that
    calls MPI on its rank) computed, and the least share of all steps of any of those threads
    (0 for a thread that computed nothing)."""
    calls = res.mpi_calls[res.mpi_calls["student"] == 1]
    inside = others = 0.0
    per_thread = dict.fromkeys(range(threads), 0.0)
    for rank, work in res.compute.groupby("rank"):
        master = set(calls.loc[calls["rank"] == rank, "thread"]) or {0}
        open_ = windows[(windows["rank"] == rank) & (windows["window"] >= 0)]
        for v in work.itertuples():
            if v.thread not in master:
                per_thread[v.thread] = per_thread.get(v.thread, 0.0) + v.pieces
            span = v.end - v.start
            for w in open_.itertuples():
                if span > 0:
                    part = max(0.0, min(v.end, w.end) - max(v.start, w.start)) / span
                else:
                    part = float(w.start <= v.start < w.end)
                inside += v.pieces * part
                others += v.pieces * part * (v.thread not in master)
    total = float(res.compute["pieces"].sum()) if len(res.compute) else 0.0
    masters = set(calls["thread"]) or {0}
    shares = [n / total for t, n in per_thread.items() if t not in masters] if total else [0.0]
    return (others / inside if inside else 0.0), min(shares, default=0.0)


def student_overlap_runs(kernel: Kernel, threads: tuple[int, ...], *, bytes: int, steps: int,
                         flops: int, poll: int, samples: int, timeout: float,
                         late_us: int = LATE_US, step_us: int = STEP_US) -> list[Results]:  # fmt: skip
    """The student's overlap run on 2 ranks at each thread count, traced (KernelError when the
    kernel finds a wrong value, KernelTimeout on a deadlock), one rank of the pair `late_us`
    late in each sample, each in turn (LATE_US); in each run of more than one thread,
    compute_step sleeps `step_us` after each step, on every thread alike (STEP_US: the runs
    judge_master_share reads; one thread: no sleep)."""
    return [run_program(kernel, ranks=2, threads=t, thread_level=LEVEL, timeout=timeout,
                        variants="student", bytes=bytes, steps=steps, flops=flops, poll=poll,
                        samples=samples, late_us=late_us, step_us=step_us if t > 1 else 0)  # fmt: skip
            for t in threads]


def judge_overlap(res: Results, threads: int, *, steps: int, poll: int, samples: int,
                  min_share: float = 0.0) -> dict:  # fmt: skip
    """One run of student_overlap_runs checked from its trace (the module's checks): its row."""
    compliance.check(res, LEVEL)
    calls = res.mpi_calls[res.mpi_calls["student"] == 1]
    polls = int(live_polls(calls).sum())
    assert threads > 1 or polls >= 2 * (samples + 1), (
        f"2 ranks x {threads} threads: {polls} MPI_Test calls in {samples + 1} samples on 2 "
        "ranks: the master must poll (MPI_Test) while it computes its share of the steps"
    )
    _check_method(res, threads, samples, steps, poll)
    _check_postings(res)
    blocked = _check_stalls(res, threads, steps)
    others, least = team_shares(res, overlap_table(res), threads)
    master_first, early, judged = _posted_late(res, threads)
    master_short, master_judged = _master_short(res, threads, steps) if threads > 1 else ([], 0)
    share = overlap_share(res)
    assert len(share) == 2 and (share > min_share).all(), (
        f"2 ranks x {threads} threads: share of the computing done while the exchange was open, "
        f"per rank: {share.round(3).to_dict()} (needs more than {min_share:g}): compute between "
        "posting the requests and completing them (masked and single nowait have no barrier: "
        "threads that do not wait for the posting may finish before it)"
    )
    return {"threads": threads, "MPI_Test calls per rank and sample": polls / (2 * (samples + 1)),
            "computing while the exchange was open": float(share.min()),
            OTHERS: others, LEAST: least, BLOCKED: blocked, MASTER_FIRST: master_first,
            EARLY: early, SAMPLED: judged, MASTER_SHORT: master_short,
            MASTER_SAMPLED: master_judged}  # fmt: skip


# a row's share of the steps computed while the exchange was open that the threads other than
# the master computed, and the least share of all steps of one of them (judge_team)
OTHERS = "others' share while open"
LEAST = "least other thread's share"
# a row's samples that the program order made a blocking exchange (_check_stalls: what stalled
# on some rank, one text per sample); judge_team refuses STRUCTURAL of them over the part's runs
BLOCKED = "samples blocked"
STRUCTURAL = 2
# a row's samples in which the master computed steps before the exchange was posted, those in
# which the steps computed before it left fewer than steps / (2T) for after it (texts), and how
# many samples (ranks x samples) were judged (_posted_late); judge_posted_first refuses STRUCTURAL
# of the first, or EARLY_KEPT of the second in the runs with a team, over the part's runs
MASTER_FIRST = "samples the master computed before posting"
EARLY = "samples computed before posting"
SAMPLED = "samples judged for posting first"
EARLY_KEPT = 3
# a row's samples in which the master computed fewer than steps / (4T) of the steps (texts), and
# how many samples were judged, in a run of a team (_master_short); judge_master_share refuses
# more than a quarter of them over the part's runs of a team
MASTER_SHORT = "samples the master computed too little"
MASTER_SAMPLED = "samples judged for the master's share"
# (d): the master's steps in a row with no test while the exchange is open: at most this many
# times `poll` (plus one); tests bunched together leave the message still for the rest
STRETCH = 2


# (d): what the cell may call: the exchange's requests, their completion, and queries. A persistent
# or partitioned exchange beside them carried the data while a 0-byte pair held the window open (a
# fresh attacker's p03pers and p03part, 4/4 kept, 2026-12-05)
EXCHANGE_CALLS = frozenset({"MPI_Isend", "MPI_Irecv", *COMPLETES, "MPI_Request_free",
                            "MPI_Comm_rank", "MPI_Comm_size", "MPI_Query_thread", "MPI_Get_count",
                            "MPI_Barrier"})  # fmt: skip


# (d): the kit's own call that tells each rank its partner's secret once a sample's exchange has
# returned (p2p_overlap.c): its record (student 0) names the kit's communicator and the partner
REVEAL = "MPI_Sendrecv"
ANY_SOURCE = -2  # the tracer's peer for a receive from MPI_ANY_SOURCE


def _check_postings(res: Results) -> None:
    """Every MPI_Isend and MPI_Irecv of the cell moves the sample's message: the run's `bytes`
    (`count` doubles), to or from the partner (a receive may name MPI_ANY_SOURCE), on the kit's
    communicator; both read from the trace (the posting's "bytes", "peer" as an MPI_COMM_WORLD
    rank, "comm_id") against the kit's own reveal call (REVEAL) and sample records. A 0-element
    pair holding the window while `in` was made from `out`, or a full exchange with the rank
    itself (a fresh attacker's T03_zero and T03_self, 4/4 kept, 2026-12-05), fail here as well as
    on the data (the values a rank sends are drawn afresh for each sample and told to no one
    before the exchange returns)."""
    calls = res.mpi_calls
    mine = calls[(calls["student"] == 1) & calls["call"].isin(POSTS)]
    if mine.empty:
        return  # nothing posted: _check_method says so
    records = res.records
    sample = records[records["record"] == "sample"] if "record" in records else records.iloc[:0]
    size = int(sample["bytes"].iloc[0]) if len(sample) else None
    kit = calls[(calls["student"] != 1) & (calls["call"] == REVEAL)]
    for rank, posts in mine.groupby("rank"):
        reveal = kit[kit["rank"] == rank]
        partner = int(reveal["peer"].iloc[0]) if len(reveal) else int(rank) ^ 1
        comm_id = int(reveal["comm_id"].iloc[0]) if len(reveal) else None
        for p in posts.itertuples():
            wrong = []
            if size is not None and int(p.bytes) != size:
                wrong.append(f"{int(p.count)} element(s), {int(p.bytes)} bytes (the message is "
                             f"{size // 8} doubles, {size} bytes)")
            peers = {partner, ANY_SOURCE} if p.call == "MPI_Irecv" else {partner}
            if int(p.peer) not in peers:
                wrong.append(f"rank {int(p.peer)} (MPI_COMM_WORLD) as its peer, not the partner, "
                             f"rank {partner}")
            if comm_id is not None and int(p.comm_id) != comm_id:
                wrong.append("another communicator than `comm`")
            assert not wrong, (
                f"rank {rank}: an {p.call} with {'; '.join(wrong)}: each sample's MPI_Isend and "
                "MPI_Irecv carry the exchange itself: `count` doubles to and from `peer` on "
                "`comm`")


def _check_method(res: Results, threads: int, samples: int, steps: int, poll: int) -> None:
    """The exchange's own requests (no blocking send or receive, one MPI_Isend and one MPI_Irecv
    per sample on each rank: a blocking exchange dressed with a dummy message fails), and
    polling while computing (on
    every rank where the master computed while the exchange was open, an MPI_Test after the
    computing began, in a window; a master the other threads left no step to waits in MPI,
    which moves the message too), interleaved with the
    master's own steps: while the exchange was open the master computed k steps, so between the
    start of the first and the end of the last of them it must have tested about every `poll`
    of them (k // poll - 1 at least, at every thread count: a token MPI_Testall, or tests only
    after the computing, fail), and never more than STRETCH * poll + 1 of its steps in a row
    without a test (a burst of tests after the first step, then the rest untested, fails)."""
    calls = res.mpi_calls[res.mpi_calls["student"] == 1]
    blocking = blocking_calls(res)
    assert not blocking, (f"{', '.join(blocking)}: the exchange is MPI_Isend and MPI_Irecv, "
                          "completed while the team computes")
    windows = overlap_table(res)
    for rank, mine in calls.groupby("rank"):
        posts = mine[mine["call"].isin(POSTS)]["call"].value_counts().to_dict()
        assert posts == {"MPI_Isend": samples + 1, "MPI_Irecv": samples + 1}, (
            f"rank {rank}: posted {posts} in {samples + 1} samples: one MPI_Isend and one "
            "MPI_Irecv per sample, the exchange itself, and no other message")
        other = sorted(set(mine["call"]) - EXCHANGE_CALLS)
        assert not other, (
            f"rank {rank}: {', '.join(other)}: one MPI_Isend and one MPI_Irecv per sample carry "
            "the exchange, completed by waits and tests, and no other message (no persistent, "
            "partitioned or collective one beside them)")
        # lab 04 (a)'s rule: a request freed in flight is never completed (a fresh attacker's
        # G03_sendfree freed its MPI_Isend at once and kept 4/4 twice, 2026-12-06)
        freed = freed_in_flight(mine) if "request" in mine.columns else []
        assert not freed, (
            f"{freed[0]}: the master completes the exchange's requests (MPI_Wait, MPI_Test and "
            "their kin); a request freed while in flight (MPI_Request_free) is never completed: "
            "its buffer is not known to be free again, nor the message delivered")
        work = res.compute[res.compute["rank"] == rank]
        polled, sparse, computed = 0, [], False
        master = set(mine["thread"])  # the thread that calls MPI (FUNNELED: one)
        polling = live_polls(mine)
        for w in windows[(windows["rank"] == rank) & (windows["window"] >= 0)].itertuples():
            inside = work[(work["end"] > w.start) & (work["start"] < w.end)]
            if not inside.empty:
                began = float(inside["start"].min())
                polled += bool(((mine["start"] > began) & (mine["start"] < w.end)
                                & polling).any())  # fmt: skip
            own = inside[inside["thread"].isin(master)]  # the master's computing while it was open
            if own.empty:
                continue
            computed = True
            first, last = float(own["start"].min()), float(own["end"].max())
            tests = int((polling & (mine["start"] > first) & (mine["start"] < last)).sum())
            made = int(own["pieces"].sum())  # compute_step calls: the intervals join them
            if tests < made // poll - 1:
                sparse.append(f"{tests} among its {made} steps in sample {w.window}")
            # an interval joins the steps computed with no MPI call between them
            runs = own.loc[(own["start"] >= w.start) & (own["start"] < w.end), "pieces"]
            stretch = int(runs.max()) if len(runs) else 0
            if stretch > STRETCH * poll + 1:
                sparse.append(f"{stretch} steps in a row with no MPI_Test in sample {w.window}")
        assert polled > 0 or not computed, (
            f"rank {rank}: no MPI_Test while the team computed: poll while computing, so the "
            "library can move the message")
        assert not sparse, (
            f"rank {rank}, {threads} thread(s), {steps} steps: MPI_Test calls while the exchange "
            f"was open, between the master's own steps: {', '.join(sparse)}: poll about every "
            f"`poll` ({poll}) of the master's steps until the exchange completes")


WAITS = ("MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome")
def _tested(t) -> set[int] | None:
    """The live requests a test call was given (MPI_REQUEST_NULL's -1 left out); None where the
    record keeps only those it completed (an MPI_Testany or _Testsome that completed none)."""
    text = str(t.requests) if isinstance(t.requests, str) else ""
    if text:
        return {int(r) for r in re.findall(r"-?\d+", text)} - {-1}
    if t.call == "MPI_Test":
        return {int(t.request)} - {-1}
    return None


def _spins(tests: pd.DataFrame, steps: list[float]) -> int:
    """How often the master tested again a request a test found not done, with no step of its
    own started between the two (`tests`: its test calls in time order). Judged by request, not
    by the call's array: the same requests tested in another array (one with a null beside
    them) or one by one are the same wait (a fresh attacker's k03spin1/k03spin2, 2026-12-05,
    4/4 while arrays were compared as text). A test whose requests the record does not keep
    (an MPI_Testsome that completed none) repeats any test not done before it."""
    spins, pending, unknown, k = 0, set(), False, 0
    for t in tests.itertuples():
        while k < len(steps) and steps[k] < t.start:
            k, pending, unknown = k + 1, set(), False
        given = _tested(t)
        repeat = (bool(pending) or unknown) if given is None else bool(given & pending) or (
            unknown and bool(given))
        spins += repeat
        if int(t.done) == 0:
            pending |= given or set()
            unknown = unknown or given is None
        elif given:
            pending -= given  # completed (a Testsome's record keeps the ones it completed)
    return spins


def _held_inside(mine: pd.DataFrame, work: pd.DataFrame, kit: pd.DataFrame, master: set,
                 w) -> str:  # fmt: skip
    """A blocking call of the master (a Wait given a live request, an MPI_Barrier) inside window
    `w` that is not the call that closed it, with steps of the master's own computed after it in
    the sample: it blocked with its steps still to compute (a Wait on its own rendezvous send and
    a barrier before any step moved the whole message, the one test after a step then found the
    receive done: a fresh attacker's Q03d_sendwait, 4/4 kept, 2026-12-05). What it says, "" if
    none."""
    live = mine["live"] > 0 if "live" in mine else True
    blocking = mine[(mine["call"].isin(WAITS) & live) | (mine["call"] == "MPI_Barrier")]
    blocking = blocking[(blocking["start"] >= w.start) & (blocking["end"] < w.end)]
    own = work[work["thread"].isin(master)]
    for b in blocking.sort_values("start").itertuples():
        later = kit.loc[kit["start"] >= b.end, "start"]
        sample_end = float(later.min()) if len(later) else float("inf")
        after = int(own.loc[(own["start"] >= b.end) & (own["start"] < sample_end), "pieces"].sum())
        if after > 0:
            return (f"{b.call} inside the open exchange (not its completion), then {after} more "
                    "of the master's steps")
    return ""


def _idle_team(work: pd.DataFrame, kit: pd.DataFrame, master: set, w, sample_end: float) -> str:
    """(c) of _check_stalls, for a window `w` in which the master computed fewer than
    steps / (2T) of its own steps, at least IDLE_WINDOW long (the early rank's, its partner
    LATE_US late): the team's computing was put off until the exchange had completed: the other
    threads computed more than LATE_FACTOR times as many steps after the window (up to the kit's
    next call, `sample_end`) as inside it (their steps, not the master's: a master the loaded
    machine held up computes its share after the window while the others, their share done
    inside it, have nothing left; counted in steps, each interval's `pieces` in proportion to
    its time inside, not seconds: in a run of a team a step's time is mostly STEP_US's sleep,
    which a loaded machine stretches unevenly, and a dynamic schedule's loop may outlast the
    window there: at load 15 to 17 a step took 1 to 3.5 ms and the honest answers' other threads
    computed 12 of their steps after a window and 6 or more inside it), while the
    threads other than the master that computed in the sample sat idle inside the window for at
    least as long as that late computing took (the team had the time, and did not use it: a
    master that posts and waits, then the team computes; a fresh attacker's T03_once2, 4/4 kept
    twice, 2026-12-05, did that in every timed sample and overlapped only in the untimed
    warm-up). A communication thread's team computes inside such a window (all the steps take
    far less than it) unless the machine pauses it for most of the window; a master that
    computes its share inside (any schedule) is not judged here. What it says, "" if none.
    `work`: the rank's compute intervals; `kit`: the kit's calls on the rank."""
    span = w.end - w.start
    if span < IDLE_WINDOW:
        return ""
    earlier = kit.loc[kit["end"] <= w.start, "end"]
    sample_start = float(earlier.max()) if len(earlier) else float("-inf")
    inside = (work["end"].clip(upper=w.end) - work["start"].clip(lower=w.start)).clip(lower=0)
    theirs = ~work["thread"].isin(master)
    inside_steps = float((work["pieces"] * inside / (work["end"] - work["start"]).clip(lower=1e-12))
                         .clip(upper=work["pieces"])[theirs].sum())
    late = work[(work["start"] >= w.end) & (work["start"] < sample_end) & theirs]
    late_seconds = float((late["end"] - late["start"]).sum())
    late_steps = int(late["pieces"].sum())
    if late_steps == 0 or late_steps <= LATE_FACTOR * inside_steps:
        return ""
    in_sample = work[(work["end"] > sample_start) & (work["start"] < sample_end)]
    others = [t for t in sorted(set(in_sample["thread"])) if t not in master]
    idle = sum(max(0.0, span - float(inside[work["thread"] == t].sum())) for t in others)
    if not others or idle < late_seconds:
        return ""
    return (f"{late_steps} steps ({late_seconds * 1e6:.0f} us) computed by the other threads "
            f"after the exchange completed, {float(inside.sum()) * 1e6:.0f} us of computing inside it, while the "
            f"other threads sat idle in it for {idle * 1e6:.0f} us")


def _blocked_at_once(w, mine: pd.DataFrame, kit: pd.DataFrame, master: set,
                     work: pd.DataFrame) -> str:
    """A window `w` of a rank that the program order made a blocking exchange, the master
    computing nothing inside it (a window where it computed is _stall_in's): no thread computed
    a step inside it, steps were computed after it in the same sample (before the kit's next
    call), and either the master waited (a Wait closed it, or it tested again the very
    requests a test found not done: _spins) and then computed steps of its own (the master
    blocked with its share still to do: program order, at any load and any window length), or
    the window was at least IDLE_WINDOW long (the team had the time, and computed only once
    the exchange had completed: a master that posts and waits at once while the team waits at
    a barrier; a communication thread's team computes in such a window unless the machine
    pauses it for all of it). A fresh attacker's G03_alt (4/4 three times, 2026-12-05) did so
    in every other call with a team. What it says, "" if none. `mine`: the cell's calls on
    the rank, `kit`: the kit's, `work`: the rank's compute intervals."""
    if ((work["end"] > w.start) & (work["start"] < w.end)).any():
        return ""
    later = kit.loc[kit["start"] >= w.end, "start"]
    sample_end = float(later.min()) if len(later) else float("inf")
    after = work[(work["start"] >= w.end) & (work["start"] < sample_end)]
    if after.empty:
        return ""
    own = int(after.loc[after["thread"].isin(master), "pieces"].sum())
    closing = mine[(mine["done"] == 1) & (mine["end"] == w.end)]
    waits = closing[closing["call"].isin(WAITS)]
    how = str(waits["call"].iloc[0]) if len(waits) else ""
    if not how:
        tests = mine[mine["thread"].isin(master) & mine["call"].str.startswith("MPI_Test")
                     & (mine["start"] >= w.start) & (mine["start"] <= w.end)]  # fmt: skip
        how = "tests of the same requests" if _spins(tests.sort_values("start"), []) else ""
    span = w.end - w.start
    late = f"{int(after['pieces'].sum())} steps computed after it"
    if how and own:
        return (f"no step computed in the open exchange, closed by {how}, then {own} of the "
                f"master's own steps ({late})")
    if span >= IDLE_WINDOW:
        return (f"no step computed in the {span * 1e3:.1f} ms the exchange was open, {late}")
    return ""


def _stall_in(w, mine: pd.DataFrame, kit: pd.DataFrame, master: set, work: pd.DataFrame,
              threads: int, steps: int) -> tuple[str, int | None, float]:
    """_check_stalls' (a), (b) and its blocking and spinning rules on one window `w` of a rank
    (`mine`: the cell's calls there, `kit`: the kit's, `work`: its compute intervals): what
    stalled ("" if nothing), the master's steps inside the window before its completing call
    (None when no completing call was found) and the kit's next call after the window (the
    sample's end)."""
    later = kit.loc[kit["start"] >= w.end, "start"]
    sample_end = float(later.min()) if len(later) else float("inf")
    closing = mine[(mine["done"] == 1) & (mine["end"] == w.end)]
    if closing.empty:
        return "", None, sample_end
    held = _held_inside(mine[mine["thread"].isin(master)], work, kit, master, w)
    if held:
        return held, None, sample_end
    waited = closing["call"].isin(WAITS).any()
    stop = float(closing[closing["call"].isin(WAITS)].iloc[0]["start"]) if waited else w.end
    own = work[work["thread"].isin(master)]
    before = own[(own["end"] > w.start) & (own["start"] < stop)]
    made = int(before["pieces"].sum())
    if made == 0:
        return "", made, sample_end  # the master computed nothing inside: (c) and the share rule
    after = int(own.loc[(own["start"] >= w.end) & (own["start"] < sample_end),
                        "pieces"].sum())  # fmt: skip
    if not waited:  # closed by a test: a wait made of tests (many in a row with no step of the
        # master's between them, then steps of its own after it) is a stall too
        tests = mine[mine["thread"].isin(master) & mine["call"].str.startswith("MPI_Test")
                     & (mine["start"] >= w.start) & (mine["start"] <= w.end)]  # fmt: skip
        spun = _spins(tests.sort_values("start"), sorted(before["start"]))
        if after > 0 and spun > 0:
            return (f"{made} step(s), then the same requests tested again with no step between "
                    f"({spun} time(s)), then {after} more of the master's steps"), made, sample_end
        return "", made, sample_end
    wait = closing[closing["call"].isin(WAITS)].iloc[0]
    others = work[~work["thread"].isin(master)]
    team_inside = bool(((others["end"] > w.start) & (others["start"] < w.end)).any())
    if after > 0:
        return (f"{made} step(s), then {wait['call']}, then {after} more of the master's steps",
                made, sample_end)
    if 2 * threads * made < steps and not team_inside:
        return (f"{made} step(s), then {wait['call']}, the other threads computing nothing "
                "meanwhile"), made, sample_end
    return "", made, sample_end


def _check_stalls(res: Results, threads: int, steps: int) -> list[str]:
    """No blocking exchange dressed with a step or two: a window (the exchange open) that the
    master closed in a Wait after computing some of its steps inside it is a stall when
    (a) the master computed steps of its own after that Wait returned, in the same sample (before
    the kit's next call on the rank): it blocked with steps of its own still to compute; or
    (b) the master computed fewer than steps / (2T) steps inside the window and no other thread
    computed inside it: one step or so, then the whole message waited out; or
    (c) the master computed fewer than steps / (2T) steps inside the window (none included: a
    master that waits at once) and the sample's computing was put off until after it while the
    other threads sat idle in it (_idle_team): every timed sample a blocking exchange, the
    team computing after it.
    A blocking call of the master inside the window that does not close it (a Wait on the send,
    an MPI_Barrier) with steps of its own after it is a stall too (_held_inside).
    A window closed by a test is a stall when the master tested again the very requests its last
    test found not done, with no step of its own between, and computed steps of its own after
    the window: a wait made of tests (a fresh attacker's d03g; a drain of MPI_Testsome, whose
    completed requests come back null, is no repeat).
    Neither depends on how fast threads run: a master that computes its share of the loop (any
    schedule) and only then waits computes nothing after its Wait; a static share is at least
    steps / T; under a dynamic schedule behind a barrier, a master left with few steps means the
    others took the rest while it computed and polled (inside the window); a master that computes
    nothing (a communication thread) is judged by the share rule, and by (c), which depends on
    the others being busy inside the window (a thread the machine pauses for a whole window now
    and then is outvoted by the run's other samples). Judged per run: it fails when
    more than half of its samples stalled on some rank (the rank that posts first waits for the
    other: a stall shows on one rank of a sample, the later one's single test may complete it).
    A window in which no thread computed, with steps after it, is a stall too (_blocked_at_once).
    Returns the samples the program order made blocking (every rule here but (c), whose idle team
    a loaded machine can make), one text each, for judge_blocking to count over the part's runs."""
    calls = res.mpi_calls
    work = res.compute
    windows = overlap_table(res)
    windows = windows[windows["window"] >= 0]
    stalls: list[tuple[int, str]] = []  # (sample, what happened on one rank)
    structural: dict[int, str] = {}  # sample -> what the program order made there (one rank's)
    for rank, w_rank in windows.groupby("rank"):
        mine = calls[(calls["rank"] == rank) & (calls["student"] == 1)]
        kit = calls[(calls["rank"] == rank) & (calls["student"] != 1)]
        master = set(mine["thread"])
        done_rank = work[work["rank"] == rank]
        for w in w_rank.itertuples():
            text, made, sample_end = _stall_in(w, mine, kit, master, done_rank, threads, steps)
            at_once = "" if text else _blocked_at_once(w, mine, kit, master, done_rank)
            if text or at_once:  # the program order's: judged over the part's runs too
                structural.setdefault(w.window, f"rank {rank} sample {w.window}: {text or at_once}")
            if not text and made is not None and 2 * threads * made < steps:
                # (c): the master left its share out of the window; did the team too?
                text = _idle_team(done_rank, kit, master, w, sample_end)
            text = text or at_once
            if text:
                stalls.append((w.window, f"rank {rank} sample {w.window}: {text}"))
    stalled = {w for w, _ in stalls}
    samples = set(windows["window"])
    assert 2 * len(stalled) <= len(samples), (
        f"2 ranks x {threads} threads, {steps} steps: the master blocked (in a Wait, or testing "
        f"without computing) with the exchange open in {len(stalled)} of {len(samples)} samples "
        f"({'; '.join(text for _, text in stalls[:2])}"
        f"{'; ...' if len(stalls) > 2 else ''}): a "
        "blocking exchange with a step inside overlaps nothing: compute your share of the steps "
        "(polling) while the exchange is open, and wait only when your share is done; the team "
        "computes while the exchange is open in every sample, not after it"
    )
    return [structural[w] for w in sorted(structural)]


def overlap_variants(kernel: Kernel, *, bytes: int, flops: int, samples: int,
                     steps: int = 200, poll: int = 4, timeout: float = 120.0) -> Results:  # fmt: skip
    """The student's kernel on 2 ranks x 2 threads (unbound), `samples` times each variant: the
    team's computation alone, the message alone, one after the other, and the student's
    overlap of the two. Shown, not judged: lab 03 (e) is judged on a run of its own made apart
    (overlap_apart)."""
    return run_program(kernel, ranks=2, threads=2, bind="none", thread_level=LEVEL,
                       variants=",".join(VARIANTS), bytes=bytes, steps=steps, flops=flops,
                       poll=poll, samples=samples, timeout=timeout)  # fmt: skip


# ---------------------------------------------------------------- lab 03 (e), graded apart
VARIANTS = ("compute", "message", "blocking", "student")
NUMBERS_ANSWER = "overlap_numbers"  # the answer cell (e) runs again apart
# what the lab's first cell gives the answer cell (its imports; its constants are given beside
# the run cell's names)
_APART_PRELUDE = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

import hybridlab as hl
from hybridlab.runs import compliance
from hybridlab.p2p.exercise import (build_student_overlap, check_student_overlap, overlap_variants,
                                    progress_runs, sendmodes_run, sweep_run)
from hybridlab.p2p.hockney import piecewise_hockney
from hybridlab.p2p.plots import aggregation_plot, knee_plot, progress_plot, sendmodes_plot, sweep_plot
from hybridlab.p2p.tables import aggregation_ratio, progress_table
from hybridlab.reference import REFERENCE
"""


def overlap_apart(answers: dict[str, str] | None, code: str, *, bytes: int, flops: int,
                  samples: int, drawn: list[dict[str, float]], timeout: float = 120.0) -> dict:  # fmt: skip
    """Lab 03 (e), run apart from the student's kernel (grading/apart.py): the student's
    OVERLAP_C built and its four variants run here as the lab's run_overlap cell runs them
    (overlap_variants' run: 2 ranks x 2 threads, `bytes`, `flops`, `samples`); then the answer
    cell overlap_numbers (`answers`: grade id -> source, as the submitted notebook holds it)
    runs again in a child process, with overlap_runs, overlap_medians, OV_BYTES, QUICK,
    OVERLAP_C and the first cell's names bound to that run, and overlap_numbers called on each
    Series of `drawn` medians. Returns the samples ({variant: seconds}) and what the cell gave
    ("predicted", "hidden", "drawn": [(perfect, hidden)]), or its "error". The child gets the
    run and gives back numbers only: the student's code never touches the run, nor this
    process (made undumpable by apart.py), nor its result. A build or run failure (a wrong
    value, a hang) is raised."""
    from ..grading.answer_child import Answers, answer_child, answers_in_history
    from ..runs.course_size import quick_mode

    answers = answers or answers_in_history({NUMBERS_ANSWER: r"\bdef\s+overlap_numbers\b"})
    if NUMBERS_ANSWER not in answers:
        raise LookupError(f"the notebook has no answer cell {NUMBERS_ANSWER}")
    with answer_child(_APART_PRELUDE, "hl-overlap-") as hand:
        kernel = build_student_overlap(code, name="student_p2p_overlap_apart")
        run = overlap_variants(kernel, bytes=bytes, flops=flops, samples=samples,
                               timeout=timeout)
        records = run.records
        seconds = {str(v): [float(x) for x in g] for v, g in records.groupby("variant")["seconds"]}
        names = {"QUICK": quick_mode(), "OVERLAP_C": code, "OV_BYTES": bytes,
                 "overlap_runs": run,
                 "overlap_medians": records.groupby("variant")["seconds"].median()}  # fmt: skip
        calls = [("overlap_numbers", (pd.Series(d, name="seconds").rename_axis("variant"),),
                  "floats") for d in drawn]  # fmt: skip
        got = hand(Answers(names, answers, [NUMBERS_ANSWER],
                           {"PREDICTED_OVERLAP_S": "float", "HIDDEN_FRACTION": "float"}, calls),
                   timeout)  # fmt: skip
    if "error" not in got:
        got = {"predicted": got["read"]["PREDICTED_OVERLAP_S"],
               "hidden": got["read"]["HIDDEN_FRACTION"], "drawn": got["calls"]}  # fmt: skip
    return {"seconds": seconds, "answers": got}


def path_sweeps(nodes: int, **sweep) -> dict[str, Results]:
    """The ping-pong sweep (mode=sweep, `sweep` = its size range, samples and OSU counts) with
    both ranks on one node, and, when `nodes` >= 2, with one rank on each of two nodes."""
    paths = {INSIDE: 1} | ({ACROSS: 2} if nodes >= 2 else {})
    return {path: run_program("pingpong", ranks=2, threads=1, bind="none", nodes=n,
                              mode="sweep", **sweep)
            for path, n in paths.items()}  # fmt: skip
