"""Lab 12's evidence: the peer and bytes the tracer records for each point-to-point call, the
partitions it records as marked ready, and the hand-out of a run's evidence to the grader's
judge (thread_comm.exercise, kernels_c/hl_trace.c)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import hybridlab as hl
from hybridlab.grading import handout
from hybridlab.kernels.build import build, has_partitioned
from hybridlab.runs.records import Results
from hybridlab.thread_comm import exercise
from wrong_answers import lab_module

needs_partitioned = pytest.mark.skipif(not has_partitioned(),
                                       reason="the MPI library has no MPI-4 partitioned calls")


@pytest.fixture(scope="module")
def funneled() -> Results:
    """The kit's funneled exchange at 3 ranks x 2 threads, traced: ranks 0 and 2 have one
    neighbour, rank 1 two."""
    return hl.run_program(build("thread_halo", trace_mpi=True), ranks=3, threads=2,
                          thread_level="funneled", variant="funneled", nx=10, ny=9, iterations=2)


def test_point_to_point_calls_record_their_peer_and_bytes(funneled):
    calls = funneled.mpi_calls
    sent = calls[calls["call"] == "MPI_Isend"]
    for rank, mine in sent.groupby("rank"):
        real = {r for r in (rank - 1, rank + 1) if 0 <= r < 3}
        assert set(mine["peer"]) == real | ({-1} if len(real) == 1 else set()), rank
    assert (sent["bytes"] == 8 * sent["count"]).all() and set(sent["count"]) == {5}
    assert (calls.loc[calls["call"] == "MPI_Allreduce", "peer"] == -1).all()  # no peer


def test_neighbour_bytes_leave_out_nobody_the_rank_itself_and_empty_messages():
    calls = pd.DataFrame({
        "rank": [0, 0, 0, 0, 1, 1],
        "thread": [0, 1, 1, 1, 0, 1],
        "peer": [1, -1, 0, 1, 0, 0],
        "bytes": [80, 80, 80, 0, 40, 8],
        "recv_peer": [-1, -1, -1, -1, 0, -1],
        "recv_bytes": [-1, -1, -1, -1, 40, -1],
    })
    moved = exercise.neighbour_bytes(calls)
    assert moved.to_dict() == {(0, 0): 80, (0, 1): 0, (1, 0): 80, (1, 1): 8}


@needs_partitioned
def test_each_thread_marks_its_own_partition_of_the_send_it_set_up():
    res = exercise.partitioned_run(2, 2, nx=8, ny=6, iterations=3)
    calls = res.mpi_calls
    marks = exercise.partition_marks(calls)
    assert len(marks) == 2 * 2 * 3  # 2 ranks, one send each, 2 partitions, 3 iterations
    assert (marks["thread"] == marks["partition"]).all() and (marks["in_parallel"] == 1).all()
    for rank, mine in marks.groupby("rank"):
        setup = calls[(calls["rank"] == rank) & (calls["call"] == "MPI_Psend_init")]
        assert set(mine["request"]) == set(setup["request"]) and set(setup["partitions"]) == {2}
        assert set(setup["peer"]) == {1 - rank} and set(setup["bytes"]) == {8 * 8}


def test_a_runs_evidence_survives_the_handout(funneled):
    data = json.loads(json.dumps(handout.encode(funneled.evidence())))
    back = Results.from_evidence(handout.decode(data))
    pd.testing.assert_frame_equal(back.mpi_calls, funneled.mpi_calls, check_dtype=False)
    pd.testing.assert_frame_equal(back.records, funneled.records, check_dtype=False)
    assert back.traced and back.meta["ranks"] == funneled.meta["ranks"]


def test_without_partitioned_calls_the_kernel_skips_with_a_reason():
    kernel = build("thread_halo", ("-DHL_NO_PARTITIONED",), trace_mpi=True)
    res = hl.run_program(kernel, ranks=2, threads=2, thread_level="multiple",
                         variant="partitioned", nx=8, ny=6, iterations=2)
    assert "no partitioned communication" in exercise.partitioned_skipped(res)


def test_without_partitioned_calls_part_d_is_skipped_with_a_note(monkeypatch, capsys):
    """A library without the calls (has_partitioned False): nothing is built or run, and the
    judge prints a note on stdout and fails nothing."""
    monkeypatch.setattr(exercise, "has_partitioned", lambda: False)
    assert exercise.run_pready("this is not C", shapes=((2, 2),), nx=8) == []
    assert exercise.judge_pready([]) == []
    assert "no MPI-4 partitioned communication" in capsys.readouterr().out


def _task_run(code: str, name: str) -> Results:
    kernel = exercise.build_student_tasks(code, name)
    runs = exercise.run_tasks(kernel, shapes=((2, 2),), nx=64, ny=40, iterations=2)
    return Results.from_evidence(runs[0]["run"])


_INLINE_EXCHANGE = """
    MPI_Request r[4];
    MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
    MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);
    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[2]);
    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 2, comm, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    stencil_rows(1, 1);
    stencil_rows(m, m);
"""


def test_task_stamps_tell_the_iterations_own_work_from_its_tasks():
    """The kit's marks on the run-sched ICV (kernels_c/hl_trace.c): the solution does nothing
    outside a task; the exchange and the edge rows made by task_iteration's body itself count
    5 MPI calls and 2 rows per iteration on every rank (and the rows as computed after the MPI
    calls of their task); the same inside one task count only the latter."""
    from gaming import solution_cell

    solution = solution_cell("12_threads_communicate", "task_iteration").split("\n", 1)[1]
    head = ("void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
            "    long w = nx + 2;\n    int dummy = 0;\n"
            "#pragma omp task depend(out: dummy)\n    dummy = 1;\n"
            "    for (long i = 2; i < m; i++) {\n#pragma omp task firstprivate(i)\n"
            "        stencil_rows(i, i);\n    }\n")  # fmt: skip
    zero = {stamp: 0 for stamp in exercise.STAMPS}
    stamps = exercise.task_stamps(_task_run(solution, "stamps_solution"))
    assert list(stamps.index) == [0, 1] and (stamps == 0).all().all(), stamps
    inline = exercise.task_stamps(_task_run(head + _INLINE_EXCHANGE + "}\n", "stamps_inline"))
    edges = {"edges_after_calls": 4}  # rows 1 and m, twice: after the MPI calls of their task
    assert inline.to_dict("records") == [zero | edges | {"inline_calls": 10, "inline_rows": 4}] * 2
    one_task = head + "#pragma omp task\n    {" + _INLINE_EXCHANGE + "    }\n}\n"
    inside = exercise.task_stamps(_task_run(one_task, "stamps_one_task"))
    assert inside.to_dict("records") == [zero | edges] * 2


@needs_partitioned
def test_copy_partition_logs_which_thread_copied_which_partition():
    from gaming import solution_cell

    code = solution_cell("12_threads_communicate", "pready_iteration").split("\n", 1)[1]
    runs = exercise.run_pready(code, shapes=((2, 2),), nx=8, ny=6, iterations=2,
                               name="copies_solution")  # fmt: skip
    res = Results.from_evidence(runs[0]["run"])
    copies = exercise.partition_copies(res)
    assert len(copies) == 2 * 2 * 2  # ranks, partitions, iterations
    assert (copies["copier"] == copies["partition"]).all()
    assert (copies["level"] == 1).all() and (copies["team"] == 2).all()
    assert sorted(set(copies["iteration"])) == [0, 1] and (copies["end"] >= copies["start"]).all()
    exercise.judge_pready(runs)


@needs_partitioned
def test_a_lone_rank_with_no_neighbour_is_judged_without_marks():
    """The notebook's visible (d) test runs 1 rank x 1 thread: no neighbour, no mark, no step in
    its trace; the judge passes it (it once failed with KeyError 'step')."""
    from gaming import solution_cell

    code = solution_cell("12_threads_communicate", "pready_iteration").split("\n", 1)[1]
    runs = exercise.run_pready(code, shapes=((1, 1),), nx=8, ny=6, iterations=2, name="lone_rank")
    rows = exercise.judge_pready(runs)
    assert [r["partitions marked"] for r in rows] == [0]

def test_tasks_the_posting_task_creates_carry_stamps_of_their_own():
    """Lab 12 (b) (a fresh attacker's r12e, 2026-12-05, a right answer that lost 4/4): the posting
    task posts, then creates the interior as its own child tasks (and a taskloop); a child task
    starts with a clean stamp (the tasks build wraps GOMP_task and GOMP_taskloop), so none of its
    rows counts as the posting task's own after its MPI calls, and the part's checks pass. The
    same rows computed in the posting task's own body still count."""
    cell = """static MPI_Request pend[4];
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    double *top = a, *bottom = a + (m + 1) * w;
#pragma omp task depend(out: pend[0:4])
    {
        MPI_Irecv(top + 1, (int)nx, MPI_DOUBLE, up, 7, comm, &pend[0]);
        MPI_Irecv(bottom + 1, (int)nx, MPI_DOUBLE, down, 8, comm, &pend[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 8, comm, &pend[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 7, comm, &pend[3]);
        INTERIOR
    }
#pragma omp task depend(in: pend[0:4]) depend(out: top[0], bottom[0])
    MPI_Waitall(4, pend, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
"""
    children = ("for (long lo = 2; lo <= m - 1; lo += 8) {\n"
                "            long hi = lo + 7 < m - 1 ? lo + 7 : m - 1;\n"
                "#pragma omp task firstprivate(lo, hi)\n            stencil_rows(lo, hi);\n        }")  # fmt: skip
    taskloop = "#pragma omp taskloop nogroup\n        for (long i = 2; i < m; i++) stencil_rows(i, i);"
    for interior, name in ((children, "stamps_children"), (taskloop, "stamps_taskloop")):
        stamps = exercise.task_stamps(_task_run(cell.replace("INTERIOR", interior), name))
        assert (stamps == 0).all().all(), (name, stamps)
    inline = "for (long i = 2; i < m; i++) stencil_rows(i, i);"
    stamps = exercise.task_stamps(_task_run(cell.replace("INTERIOR", inline), "stamps_own_body"))
    assert (stamps["interior_after_calls"] > 0).all(), stamps


def test_the_edge_tasks_must_wait_by_depend_alone_in_the_preprocessed_code():
    from hybridlab.thread_comm.exercise import task_construct_faults

    def cell(body: str, before: str = "", after: str = "") -> str:
        return (before + "void task_iteration(double *a, long m) {\n" + body + "}\n" + after)

    exchange = "#pragma omp task depend(out: top[0])\n{ post(); wait(); }\n"
    edges = "#pragma omp task depend(in: top[0])\nstencil_rows(1, 1);\n"
    interior = "#pragma omp task firstprivate(i)\nstencil_rows(i, i);\n"
    assert task_construct_faults(cell(exchange + interior + edges)) == []
    # a taskwait (or barrier) at the very end waits for nothing the tasks need
    assert task_construct_faults(cell(exchange + interior + edges + "#pragma omp taskwait\n")) == []
    assert task_construct_faults(cell(exchange + interior + "if (m > 1) {\n" + edges
                                      + "}\n#pragma omp taskwait\n")) == []  # fmt: skip
    between = task_construct_faults(cell(interior + exchange + "#pragma omp taskwait\n" + edges))
    assert len(between) == 1 and "no taskwait between the tasks" in between[0]
    group = task_construct_faults(cell("#pragma omp taskgroup\n{\n" + exchange + "}\n" + edges))
    assert len(group) == 1 and "no taskgroup between the tasks" in group[0]
    undeferred = task_construct_faults(cell(exchange + edges.replace("task ", "task if(0) ")))
    assert len(undeferred) == 1 and "no if() or final() clause" in undeferred[0]
    assert "must create OpenMP tasks with depend" in task_construct_faults(cell(interior))[0]
    # a fresh attacker (2026-12-03): the edges from a taskloop after a taskwait
    looped = "#pragma omp taskloop grainsize(1)\nfor (long r = 1; r <= m; r += m - 1) stencil_rows(r, r);\n"
    assert "no taskwait between" in task_construct_faults(
        cell(exchange + interior + "#pragma omp taskwait\n" + looped))[0]
    # a wait at the cell's end, but in a helper called between the tasks, or in a loop
    helper = "static void all_done(void) {\n#pragma omp taskwait\n}\n"
    assert "no taskwait between" in task_construct_faults(
        cell(exchange + interior + "all_done();\n" + edges, before="static void all_done(void);\n",
             after=helper))[0]  # fmt: skip
    assert "no taskwait between" in task_construct_faults(cell(
        "for (int k = 0; k < 2; k++) {\nif (k) {\n" + edges + "} else {\n" + exchange
        + "}\n#pragma omp taskwait\n}\n"))[0]  # fmt: skip
    # a fresh attacker (2026-12-03): the edges wait on a lock the exchange's task opens
    gated = task_construct_faults(cell(exchange + interior + "#pragma omp task\n{ omp_set_lock(&gate); "
                                       "omp_unset_lock(&gate); stencil_rows(1, 1); }\n"))
    assert len(gated) == 1 and gated[0].startswith("no omp_set_lock (line ")
    slept = task_construct_faults(cell(exchange + interior + "#pragma omp task depend(in: x[0])\n"
                                       "{ usleep(100000); stencil_rows(1, 1); }\n"))
    assert len(slept) == 1 and "no usleep" in slept[0]


def test_a_taskyield_passes_only_in_the_exchange_tasks_own_polling_loop():
    """Lab 12 (b): attacker R's right answer (L12_R4, 2026-12-06) polls its requests with
    MPI_Testall and a taskyield in the exchange's task (depend(out)); a taskyield on a flag no
    MPI_Test of the loop sets, or in a task without depend(out), is still a flag watched."""
    from hybridlab.thread_comm.exercise import task_construct_faults

    def cell(task: str, loop: str) -> str:
        return ("void task_iteration(double *a, long m) {\n" + task + "\n{\n int done = 0, other = 0;\n"
                " hl_traced_MPI_Irecv(a, 1, t, 0, 0, c, &r[0]);\n" + loop
                + "\n}\n#pragma omp task depend(in: top[0])\nstencil_rows(1, 1);\n}\n")

    out = "#pragma omp task depend(out: top[0])"
    yielded = "#pragma omp taskyield\n hl_traced_MPI_Testall(1, r, &done, s);\n"
    assert task_construct_faults(cell(out, "while (!done) {\n" + yielded + "}")) == []
    assert task_construct_faults(cell(out, "do {\n" + yielded + "} while (done == 0);")) == []
    assert task_construct_faults(cell(out, "for (; !done;) {\n" + yielded + "}")) == []
    assert task_construct_faults(cell(out.replace("out:", "inout:"),
                                      "while (!(done)) {\n" + yielded + "}")) == []
    refused = [cell(out, "while (!other) {\n" + yielded + "}"),  # the test sets another flag
               cell("#pragma omp task", "while (!done) {\n" + yielded + "}"),  # no depend(out)
               cell(out.replace("out:", "in:"), "while (!done) {\n" + yielded + "}"),
               cell(out, "while (!done) {\n#pragma omp taskyield\n}")]  # nothing tested
    for text in refused:
        faults = task_construct_faults(text)
        assert len(faults) == 1 and faults[0].startswith("no pragma omp taskyield"), (text, faults)


def test_a_partition_is_marked_as_soon_as_it_is_copied_in_one_region():
    """Lab 12 (c), read from the preprocessed cell: between the first copy and the last mark no
    barrier, construct of one thread, lock or critical section, and one parallel region; before
    the copies a masked MPI_Startall and its barrier are fine (a fresh attacker, 2026-12-03)."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    own = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n copy_partition(t);\n"
           " hl_traced_MPI_Pready(t, req[0]);\n}\n")
    assert pready_construct_faults(own) == []
    started = own.replace("{\n", "{\n#pragma omp masked\n hl_traced_MPI_Startall(4, req);\n"
                                  "#pragma omp barrier\n", 1)
    assert pready_construct_faults(started) == []
    held = own.replace(" hl_traced_MPI_Pready", "#pragma omp barrier\n#pragma omp critical\n"
                                                " hl_traced_MPI_Pready")
    assert any("no pragma omp barrier" in f for f in pready_construct_faults(held))
    twice = own.replace(" hl_traced_MPI_Pready(t, req[0]);\n}\n",
                        "}\n#pragma omp parallel\n hl_traced_MPI_Pready(omp_get_thread_num(), req[0]);\n")
    assert any("2 parallel regions" in f for f in pready_construct_faults(twice))
    # a fresh attacker (2026-12-03): each thread's turn timed on the clock, 20 ms x t
    timed = own.replace(" copy_partition(t);", " double t0 = omp_get_wtime();\n"
                        " while (omp_get_wtime() - t0 < 0.02 * t) { }\n copy_partition(t);")
    faults = pready_construct_faults(timed, [10, 11, 12, 13, 14, 15, 16, 17])
    assert len(faults) == 1 and faults[0].startswith("no omp_get_wtime (line 13)")
    # a definition of a clock is the build's to refuse (it replaces the library's own)
    assert pready_construct_faults(own + "int clock_gettime(int c, void *t) { return 0; }\n") == []


def test_no_thread_calls_mpi_in_the_region_before_its_marks():
    from hybridlab.thread_comm.exercise import calls_before_marks

    def call(thread, name, start, step=0, marked=None):
        marked = str(thread) if marked is None else marked  # the partitions a mark names
        return {"thread": thread, "call": name, "start": start, "step": step, "in_parallel": 1,
                "team": 2, "partition": int(marked) if marked else -1,
                "partition_last": int(marked) if marked else -2, "requests": marked}

    right = pd.DataFrame([call(0, "MPI_Pready", 1.0), call(1, "MPI_Pready_list", 1.1),
                          call(1, "MPI_Parrived", 1.2), call(0, "MPI_Pready", 2.0, 1)])
    assert calls_before_marks(right, 2).empty
    polled = pd.concat([right, pd.DataFrame([call(1, "MPI_Parrived", 1.05)])], ignore_index=True)
    assert list(calls_before_marks(polled, 2)["call"]) == ["MPI_Parrived"]
    # a mark of no partition first (M12d_emptybar: it let the meeting pass) is no mark
    empty = pd.concat([right, pd.DataFrame([call(1, "MPI_Pready_list", 1.0, marked=""),
                                            call(0, "MPI_Pready_range", 0.9, marked="")])],
                      ignore_index=True)  # fmt: skip
    assert sorted(calls_before_marks(empty, 2)["call"]) == ["MPI_Pready_list", "MPI_Pready_range"]


def _calls(*rows) -> pd.DataFrame:
    """Traced calls of rank 0 (student's): (thread, call, start, end, peer, bytes, request,
    requests, done); an MPI_Sendrecv's receive side as its send side, a completion's live
    requests those it names."""
    cols = ["thread", "call", "start", "end", "peer", "bytes", "request", "requests", "done"]
    frame = pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    is_sr = frame["call"] == "MPI_Sendrecv"
    live = [len([i for i in f"{q},{r}".split(",") if i not in ("", "-1")])
            for q, r in zip(frame["requests"], frame["request"], strict=True)]
    return frame.assign(rank=0, student=1, recv_peer=frame["peer"].where(is_sr, -1),
                        recv_bytes=frame["bytes"].where(is_sr, -1), live=live)


def test_only_calls_that_move_values_count_as_inside_mpi_together():
    """Lab 12 (a) (a fresh attacker, 2026-12-03): the threads' exchanges in turns (a critical
    section), then every thread at once an MPI_Sendrecv of no values, to MPI_PROC_NULL or to
    itself, a wait for a message of no values, or a wait on a persistent request not started
    again: no call counted together. Two threads' waits for messages that move values, at once,
    count. (The tracer names no non-blocking call's request: -1.)"""
    from types import SimpleNamespace

    turns = [(0, "MPI_Isend", 0.0, 0.1, 1, 80, -1, "", -1),
             (0, "MPI_Wait", 0.1, 0.2, -1, -1, 11, "", 1),
             (1, "MPI_Isend", 0.3, 0.4, 1, 80, -1, "", -1),
             (1, "MPI_Wait", 0.4, 0.5, -1, -1, 12, "", 1)]
    decoys = [(0, "MPI_Sendrecv", 1.0, 1.5, 1, 0, -1, "", -1),
              (1, "MPI_Sendrecv", 1.1, 1.6, 1, 0, -1, "", -1),
              (0, "MPI_Send", 2.0, 2.5, -1, 80, -1, "", -1),
              (1, "MPI_Send", 2.1, 2.6, 0, 80, -1, "", -1),
              (0, "MPI_Isend", 2.7, 2.8, 1, 0, -1, "", -1),
              (1, "MPI_Irecv", 2.7, 2.8, 1, 0, -1, "", -1),
              (0, "MPI_Wait", 3.0, 3.5, -1, -1, 13, "", 1),
              (1, "MPI_Testall", 3.1, 3.6, -1, -1, -1, "14,-1", 1)]
    def together(rows):
        return int(exercise.concurrent_threads(SimpleNamespace(mpi_calls=_calls(*rows))).sum())

    assert together(turns + decoys) == 0
    persistent = [(0, "MPI_Send_init", 0.0, 0.1, 1, 80, 21, "", -1),
                  (1, "MPI_Recv_init", 0.0, 0.1, 1, 80, 22, "", -1),
                  (0, "MPI_Start", 0.2, 0.3, -1, -1, 21, "", -1),
                  (0, "MPI_Wait", 0.3, 0.4, -1, -1, 21, "", 1),
                  (1, "MPI_Start", 0.5, 0.6, -1, -1, 22, "", -1),
                  (1, "MPI_Wait", 0.6, 0.7, -1, -1, 22, "", 1),
                  (0, "MPI_Wait", 1.0, 1.5, -1, -1, 21, "", 1),  # not started again
                  (1, "MPI_Wait", 1.1, 1.6, -1, -1, 22, "", 1)]
    assert together(persistent) == 0
    at_once = [(0, "MPI_Irecv", 0.0, 0.1, 1, 80, -1, "", -1),
               (1, "MPI_Irecv", 0.1, 0.2, 1, 80, -1, "", -1),
               (0, "MPI_Waitall", 0.2, 0.9, -1, -1, -1, "31", 1),
               (1, "MPI_Waitall", 0.3, 0.9, -1, -1, -1, "32", 1)]
    assert together(at_once) == 1
    assert together([*persistent[:4], (1, "MPI_Sendrecv", 0.35, 0.36, 1, 80, -1, "", -1)]) == 1


def test_the_threads_are_inside_mpi_together_in_most_iterations():
    """Lab 12 (a) (a fresh attacker, 2026-12-03): the threads together in the first iteration
    and in turns after it kept 4/4 when one overlap in the run was enough; now it on some rank in more than half of the iterations."""
    from types import SimpleNamespace

    def iteration(step, start, apart):
        gap = 1.0 if apart else 0.0  # thread 1 begins after thread 0 is done, or beside it
        return [(0, "MPI_Irecv", start, start + 0.1, 1, 80, -1, "", -1),
                (0, "MPI_Waitall", start + 0.1, start + 0.5, -1, -1, -1, "31", 1),
                (1, "MPI_Irecv", start + 0.2 + gap, start + 0.3 + gap, 1, 80, -1, "", -1),
                (1, "MPI_Waitall", start + 0.3 + gap, start + 0.6 + gap, -1, -1, -1, "32", 1)]

    def table(*apart):
        rows, steps = [], []
        for k, a in enumerate(apart):
            made = iteration(k, 10.0 * k, a)
            rows += made
            steps += [k] * len(made)
        calls = _calls(*rows).assign(step=steps)
        return exercise.concurrent_iterations(SimpleNamespace(mpi_calls=calls), len(apart))

    first_only = table(False, True, True, True)
    assert list(first_only["concurrent"]) == [2, 0, 0, 0]
    assert exercise.together_faults(first_only, 4) == "1 of 4 iterations"
    assert exercise.together_faults(table(False, False, True, False), 4) == ""
    assert exercise.together_faults(table(False, True), 2) == "1 of 2 iterations"
    # some rank in each iteration: rank 1 together where rank 0 was not
    other = table(True, False, False).assign(rank=1)
    both = pd.concat([table(False, True, True), other])
    assert exercise.together_faults(both, 3) == ""


def test_turns_timed_by_the_kits_own_clock_or_sleeps_are_refused():
    """Lab 12 (d) (A4, 2026-12-07): the second send's marks taken in turns with hybridlab.h's
    hl_sleep_us, hl_sleep_seconds or hl_now (no CPU time, no library name) kept 4/4 twice; the
    text check names the kit's own clock and sleeps too."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    own = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n copy_partition(t);\n"
           " hl_traced_MPI_Pready(t, req[0]);\n WAIT\n hl_traced_MPI_Pready(t, req[2]);\n}\n")
    assert pready_construct_faults(own.replace("WAIT", "")) == []
    for wait, name in (("hl_sleep_us(4000L * t);", "hl_sleep_us"),
                       ("hl_sleep_seconds(0.005 * t);", "hl_sleep_seconds"),
                       ("while (hl_now() < t0 + 0.003 * t) ;", "hl_now")):  # fmt: skip
        faults = pready_construct_faults(own.replace("WAIT", wait))
        assert faults and faults[0].startswith(f"no {name} (line"), faults

def test_a_partition_is_never_handed_over_in_turns():
    """Lab 12 (d) (a fresh attacker, 2026-12-03): an ordered loop or block, a critical section,
    a lock or a flag watched anywhere in the cell (around the copy and the mark, or in a function
    that makes them) is refused; the solution's shape is not."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    own = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n copy_partition(t);\n"
           " hl_traced_MPI_Pready(t, req[0]);\n}\n")
    assert pready_construct_faults(own) == []
    ordered = ("#pragma omp parallel\n{\n#pragma omp for ordered schedule(static, 1)\n"
               "for (int t = 0; t < n; t++) {\n#pragma omp ordered\n{\n copy_partition(t);\n"
               " hl_traced_MPI_Pready(t, req[0]);\n}\n}\n}\n")
    helper = ("static void hand(int t) {\n#pragma omp critical\n{\n copy_partition(t);\n"
              " hl_traced_MPI_Pready(t, req[0]);\n}\n}\n#pragma omp parallel\nhand(omp_get_thread_num());\n")
    locked = own.replace(" copy_partition(t);\n", " omp_set_lock(&l);\n copy_partition(t);\n")
    flag = own.replace(" copy_partition(t);\n", " while (__atomic_load_n(&turn, 2) != t);\n"
                                                " copy_partition(t);\n")
    for text, shown in ((ordered, "omp for ordered"), (helper, "omp critical"),
                        (locked, "omp_set_lock"), (flag, "__atomic_load_n")):
        faults = pready_construct_faults(text)
        assert len(faults) == 1 and faults[0].startswith(f"no {shown} (line "), faults
        assert "not in turns" in faults[0]


def test_no_overlap_names_where_the_interior_was_computed(monkeypatch):
    """Lab 12 (b): with no row inside a window, the feedback says whether the interior was
    computed before the requests were posted (a taskloop without nogroup: its implicit taskgroup
    keeps the creating thread on the interior while the exchange's task waits) or after they
    completed (the interior waited for the exchange)."""
    def rows(where):
        return pd.DataFrame({"first": [2, 10], "last": [9, 20], "where": where})

    monkeypatch.setattr(exercise, "overlap_rows", lambda res, windows=None: rows(["before", "before"]))
    text = exercise._no_overlap(None, "2x3")
    assert "19 of the 19 interior rows were computed before the requests" in text
    assert "taskloop without nogroup" in text and "implicit taskgroup" in text
    monkeypatch.setattr(exercise, "overlap_rows", lambda res, windows=None: rows(["before", "after"]))
    assert "the interior rows wait for the exchange" in exercise._no_overlap(None, "2x3")


def test_the_task_iteration_moves_one_halo_row_each_way_and_nothing_else(monkeypatch):
    """Lab 12 (b) (a fresh attacker, 2026-12-03): one-value decoy messages kept in flight round
    an exchange done before the interior are refused (halo.exercise.assert_halo_messages, one
    row of nx doubles); the solution's messages are not."""
    from gaming import solution_cell

    solution = solution_cell("12_threads_communicate", "task_iteration").split("\n", 1)[1]
    kernel = exercise.build_student_tasks(solution, "halo_messages_solution")
    runs = exercise.run_tasks(kernel, shapes=((2, 2),), nx=64, ny=40, iterations=2)
    exercise.judge_tasks(runs)
    calls = runs[0]["run"]["mpi_calls"]
    decoy = calls[calls["call"] == "MPI_Isend"].head(1).assign(bytes=8, count=1)
    runs[0]["run"]["mpi_calls"] = pd.concat([calls, decoy], ignore_index=True)
    monkeypatch.setattr(exercise.compliance, "check", lambda res, level: None)  # a record added
    with pytest.raises(AssertionError, match="MPI_Isend of 8 bytes .* one halo row"):
        exercise.judge_tasks(runs)


def test_an_atomic_read_or_write_is_a_flag_watched_whatever_its_clauses():
    """Lab 12 (d) (attacker B, 2026-12-04): `omp atomic seq_cst read` (a memory-order clause
    before `read`) slipped past `atomic\\s+read` and the threads took turns on it, 4/4 kept; an
    atomic read, write, capture or compare, or one with a memory order, is refused in any order
    of its clauses. A plain `omp atomic` update is not a flag read."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    own = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n copy_partition(t);\n"
           " hl_traced_MPI_Pready(t, req[0]);\n}\n")
    for pragma in ("atomic seq_cst read", "atomic read seq_cst", "atomic acquire read",
                   "atomic write release", "atomic capture", "atomic compare",
                   "atomic relaxed read"):
        text = own.replace(" copy_partition(t);\n", f"#pragma omp {pragma}\n v = turn;\n"
                                                    " copy_partition(t);\n")
        faults = pready_construct_faults(text)
        assert len(faults) == 1 and faults[0].startswith(f"no omp {pragma} (line "), faults
    update = own.replace(" copy_partition(t);\n", "#pragma omp atomic\n n++;\n copy_partition(t);\n")
    assert pready_construct_faults(update) == []


def test_a_waitany_completion_is_booked_against_the_request_it_returned():
    """Lab 12 (a) (attacker B, 2026-12-04): an edge rank's MPI_Waitany returns its MPI_PROC_NULL
    requests first; booked against the real postings by count, the later waits for the
    neighbour's messages were dropped and a right answer lost 4/4. With the request each posting
    returned ("posted"), a completion counts when it names a value-moving posting."""
    from types import SimpleNamespace

    def thread(t, start):
        rows = [(t, "MPI_Isend", start, start + 0.01, 1, 80, -1, "", -1),
                (t, "MPI_Isend", start + 0.01, start + 0.02, -1, 80, -1, "", -1),
                (t, "MPI_Irecv", start + 0.02, start + 0.03, 1, 80, -1, "", -1),
                (t, "MPI_Irecv", start + 0.03, start + 0.04, -1, 80, -1, "", -1),
                (t, "MPI_Waitany", start + 0.04, start + 0.05, -1, -1, -1, f"{t}2", 1),
                (t, "MPI_Waitany", start + 0.05, start + 0.06, -1, -1, -1, f"{t}4", 1),
                (t, "MPI_Waitany", start + 0.06, start + 0.9, -1, -1, -1, f"{t}1", 1),
                (t, "MPI_Waitany", start + 0.9, start + 0.95, -1, -1, -1, f"{t}3", 1)]
        return rows, [int(f"{t}{k}") for k in (1, 2, 3, 4)] + [-1] * 4

    rows0, posted0 = thread(1, 0.0)
    rows1, posted1 = thread(2, 0.005)
    calls = _calls(*rows0, *rows1).assign(posted=posted0 + posted1)
    kept = exercise.exchange_calls(SimpleNamespace(mpi_calls=calls))
    waits = kept[kept["call"] == "MPI_Waitany"]
    assert sorted(waits["requests"]) == ["11", "13", "21", "23"], waits
    assert int(exercise.concurrent_threads(SimpleNamespace(mpi_calls=calls)).sum()) > 0


def test_a_testany_poll_counts_while_its_thread_has_a_message_in_flight():
    """Lab 12 (a) (attacker B's B12r10, 2026-12-04): an MPI_Testany that completes nothing names
    no request (the tracer keeps the ones it completed), so a right answer polling with it had
    only its last polls counted and lost 4/4. A poll counts while its thread has a posting that
    moves values open; not while a posting of no values that stays open (a receive from the
    rank itself) could be what it polls, nor once a request was freed."""
    from types import SimpleNamespace

    def thread(t, start, dummy=False):
        rows = [(t, "MPI_Irecv", start, start + 0.01, 1, 80, -1, "", -1),
                (t, "MPI_Isend", start + 0.01, start + 0.02, 1, 80, -1, "", -1)]
        posted = [int(f"{t}1"), int(f"{t}2")]
        if dummy:  # a receive from the rank itself (rank 0) that nothing meets while it polls
            rows.append((t, "MPI_Irecv", start + 0.02, start + 0.03, 0, 8, -1, "", -1))
            posted.append(int(f"{t}9"))
        rows += [(t, "MPI_Testany", start + 0.03 + 0.1 * k, start + 0.04 + 0.1 * k, -1, -1, -1,
                  "", 0) for k in range(6)]  # fmt: skip
        rows += [(t, "MPI_Testany", start + 0.7, start + 0.71, -1, -1, -1, f"{t}1", 1),
                 (t, "MPI_Testany", start + 0.72, start + 0.73, -1, -1, -1, f"{t}2", 1)]
        posted += [-1] * 8
        return rows, posted

    def kept(dummy=False, extra=()):
        rows0, posted0 = thread(1, 0.0, dummy)
        rows1, posted1 = thread(2, 0.005, dummy)
        calls = _calls(*rows0, *rows1, *extra)
        calls = calls.assign(posted=posted0 + posted1 + [-1] * len(extra))
        polls = (calls["call"] == "MPI_Testany") & (calls["done"] == 0)
        calls.loc[polls, "live"] = 2
        res = SimpleNamespace(mpi_calls=calls)
        out = exercise.exchange_calls(res)
        return int(((out["call"] == "MPI_Testany") & (out["done"] == 0)).sum()), res

    polled, res = kept()
    assert polled == 12
    assert int(exercise.concurrent_threads(res).sum()) >= 6
    assert kept(dummy=True)[0] == 0
    assert kept(extra=[(1, "MPI_Request_free", 0.001, 0.002, -1, -1, -1, "", -1)])[0] == 0


_TURNS = r"""
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0, c = (int)(nx / parts);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL,
                       &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

static int turn;
static int whose(void) { return turn; }

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;
    MPI_Startall(nreq, req);
    turn = 0;
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        WAIT
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
        STEP
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""


@needs_partitioned
def test_threads_in_turns_on_a_plain_shared_int_race_under_archer():
    """Lab 12 (d) (attacker B's B12c2, 2026-12-04): threads that take turns on a plain static int,
    polled through a helper with an opaque call in the loop, pass every text check; built with
    clang and ThreadSanitizer and run under Archer, the read and the write of the counter race
    (ordered by nothing OpenMP knows), whatever the timing. Each thread copying and marking at
    once races on nothing. A cell that tells clang from gcc is refused."""
    from hybridlab.kernels import archer

    if archer.missing():
        pytest.skip(archer.missing())
    turns = _TURNS.replace("WAIT", "while (whose() != t) fflush(stdout);").replace(
        "STEP", "fflush(stdout);\n        turn = t + 1;")
    found = exercise.pready_races(turns, 2, 2, 24, 12, 2, name="test_pready_turns_archer")
    assert found and "cell line" in found[0], found
    together = _TURNS.replace("WAIT", "").replace("STEP", "")
    assert exercise.pready_races(together, 2, 2, 24, 12, 2, name="test_pready_own_archer") == []
    with pytest.raises(ValueError, match="no __clang__"):
        exercise.build_student_pready("#ifndef __clang__\n#endif\n" + together)


def _pready_meeting(cell: str, name: str):
    """The cell built as the part builds it but without the text checks (so that turns the text
    would refuse reach the kit's copy_partition), run on 2 ranks x 2 threads: its Results."""
    from hybridlab.runs.launch import run_program
    from hybridlab.runs.student_c import build_student

    kernel = build_student(name, "thread_halo", "HL_STUDENT_PREADY", cell,
                           ("partitioned_init", "pready_iteration"), exercise.PREADY_FLAGS)  # fmt: skip
    return run_program(kernel, ranks=2, threads=2, thread_level=exercise.LEVEL, variant="pready",
                       nx=24, ny=12, iterations=2, stagger_us=0, timeout=60)  # fmt: skip


def _judged_pready(res) -> str:
    runs = [{"ranks": 2, "threads": 2, "nx": 24, "ny": 12, "iterations": 2, "run": res.evidence()}]
    try:
        exercise.judge_pready(runs)
    except AssertionError as err:
        return str(err)
    return ""


@needs_partitioned
def test_copies_and_marks_meet_so_threads_held_apart_copy_and_mark_together():
    """Lab 12 (d) (a fresh attacker's J12c, 2026-12-05: thread t busy for a time growing with t
    before its copy, marks 10-30 ms apart, 4/4 kept): each thread's first copy_partition of an
    iteration, and its first MPI call after it, wait until the whole team has come that far, so a
    delay the text cannot see no longer makes turns (every copy met, the part's checks pass).
    Threads in real turns (one waiting for another's mark, before its copy or between its copy
    and its mark) never all arrive: after MEET_S the copy or mark is recorded as not met and the
    part is refused."""
    delayed = _TURNS.replace(
        "WAIT", "double x = 0;\n        for (long i = 0; i < 3000000L * t; i++) x += 1e-9 * i;\n"
        "        if (x < 0) turn = 1;").replace("STEP", "")
    res = _pready_meeting(delayed, "meet_delayed")
    assert (exercise.partition_copies(res)["met"] == 1).all()
    assert _judged_pready(res) == ""
    wait = "while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != t) ;"
    step = "__atomic_store_n(&turn, t + 1, __ATOMIC_RELEASE);"
    copies_in_turns = _TURNS.replace("WAIT", wait).replace("STEP", step)
    res = _pready_meeting(copies_in_turns, "meet_copy_turns")
    assert (exercise.partition_copies(res)["met"] == 0).any()
    assert "reached their copies one at a time" in _judged_pready(res)
    marks_in_turns = _TURNS.replace("copy_partition(t);", "copy_partition(t);\n        " + wait
                                    ).replace("WAIT", "").replace("STEP", step)  # fmt: skip
    res = _pready_meeting(marks_in_turns, "meet_mark_turns")
    assert (exercise.partition_copies(res)["met"] == 1).all()
    assert "marked their partitions one at a time" in _judged_pready(res)


def test_a_task_window_closes_when_a_halo_row_arrives_not_at_the_first_completion():
    """Lab 12 (b) (attacker B's B12r10/B12r11, 2026-12-04): the exchange's task completing with
    MPI_Waitany returns an edge rank's MPI_PROC_NULL requests and a buffered send first; the
    window closed there held no row and a right answer lost 4/4. It closes at the completion
    of a receive that moves values (by the request its MPI_Irecv returned)."""
    calls = pd.DataFrame([
        {"thread": 0, "call": "MPI_Irecv", "start": 0.00, "end": 0.01, "peer": -1, "posted": 7},
        {"thread": 0, "call": "MPI_Irecv", "start": 0.01, "end": 0.02, "peer": 1, "posted": 11},
        {"thread": 0, "call": "MPI_Isend", "start": 0.02, "end": 0.03, "peer": -1, "posted": 8},
        {"thread": 0, "call": "MPI_Isend", "start": 0.03, "end": 0.04, "peer": 1, "posted": 12},
        {"thread": 0, "call": "MPI_Waitany", "start": 0.04, "end": 0.05, "requests": "7"},
        {"thread": 0, "call": "MPI_Waitany", "start": 0.05, "end": 0.06, "requests": "8"},
        {"thread": 0, "call": "MPI_Waitany", "start": 0.06, "end": 0.07, "requests": "12"},
        {"thread": 0, "call": "MPI_Waitany", "start": 0.07, "end": 0.90, "requests": "11"},
    ]).assign(done=lambda f: f["call"].str.startswith("MPI_Wait").astype(int), request=-1,
              step=0)
    calls["requests"] = calls["requests"].fillna("")
    (window,) = exercise.task_windows(calls)
    assert (window["start"], window["end"], window["closed_by"]) == (0.03, 0.90, 0)
    # without the requests' numbers, the first completion closes it (student_c's rule)
    (blind,) = exercise.task_windows(calls.assign(posted=-1))
    assert blind["end"] == 0.05
    # a posting task that goes on to compute the interior while another thread waits: its
    # computing is not beside the exchange (the poster's thread), another thread's is
    from types import SimpleNamespace

    table = pd.DataFrame([{"window": 0, "rank": 0, "start": 0.0, "end": 1.0, "posted_by": 0,
                           "closed_by": 1}])
    work = pd.DataFrame([{"rank": 0, "thread": 0, "start": 0.1, "end": 0.8}])
    assert exercise.computed_beside_waits(SimpleNamespace(compute=work), table) == 0.0
    other = work.assign(thread=2)
    assert exercise.computed_beside_waits(SimpleNamespace(compute=other), table) > 0.6


@needs_partitioned
def test_threads_that_copy_after_different_numbers_of_barriers_took_turns():
    """A fresh attacker's G12a5 (2026-12-05): thread t passes t team barriers (a helper holding
    one, called under `if (t > k)`) before it copies and marks, no loop for the text rules to see;
    the kit counts each thread's barriers (thread_halo.c wraps GOMP_barrier)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from wrong_answers import load

    turns = next(w for w in load("12_threads_communicate", Path(__file__).parent / "gaming", "GAMING")
                 if w.why.startswith("G12a5"))  # fmt: skip
    code = turns.answers[0][1].split("\n", 1)[1]
    with pytest.raises(AssertionError, match="after different numbers of team barriers"):
        exercise.judge_pready(exercise.run_pready(code, shapes=((2, 2),)))


def test_a_worksharing_barrier_holds_the_marks_or_makes_turns():
    """Lab 12 (d) (a fresh attacker's J12tgt and J12b, 2026-12-05): a worksharing construct
    without nowait waits for the team at its end (GOMP_loop_end for a dynamic loop, not
    GOMP_barrier): between the first copy and the last mark, or in a loop of turns, it is
    refused; with nowait, or a combined parallel for around the copies, it is not."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    own = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n copy_partition(t);\n"
           " hl_traced_MPI_Pready(t, req[0]);\n}\n")
    held = own.replace(" hl_traced_MPI_Pready", "#pragma omp for schedule(dynamic)\n"
                                                " for (int j = 0; j < 4; j++) { }\n hl_traced_MPI_Pready")
    assert any(f.startswith("no pragma omp for") for f in pready_construct_faults(held))
    assert pready_construct_faults(held.replace("schedule(dynamic)", "schedule(dynamic) nowait")) == []
    sections = own.replace(" hl_traced_MPI_Pready", "#pragma omp sections\n{ }\n hl_traced_MPI_Pready")
    assert any(f.startswith("no pragma omp sections") for f in pready_construct_faults(sections))
    turns = ("#pragma omp parallel\n{\n int t = omp_get_thread_num();\n"
             " for (int k = 0; k < 4; k++) {\n  if (k == t) { copy_partition(t);"
             " hl_traced_MPI_Pready(t, req[0]); }\n#pragma omp for schedule(dynamic)\n"
             "  for (int j = 0; j < 4; j++) { }\n }\n}\n")
    assert any("no barrier in a loop" in f for f in pready_construct_faults(turns))
    combined = ("#pragma omp parallel for schedule(static, 1)\nfor (int p = 0; p < 4; p++) {\n"
                " copy_partition(p);\n hl_traced_MPI_Pready_range(p, p, req[0]);\n}\n")
    assert pready_construct_faults(combined) == []


def test_no_target_or_teams_construct_in_lab_12():
    """Lab 12 (a fresh attacker's J12tgt, 2026-12-05): a target region's host fallback starts
    from fresh ICVs (where the kit's task stamps live); a target or teams construct, or an
    omp_target_ call, is refused with its line and what the part allows; a word `target` in
    code is not."""
    from hybridlab.thread_comm.exercise import offload_faults, task_construct_faults

    tasks = ("#pragma omp task depend(out: a[0])\n x();\n#pragma omp target\n{ y(); }\n")
    faults = task_construct_faults(tasks, [5, 6, 7, 8])
    assert len(faults) == 1 and faults[0].startswith("no omp target (line 7)"), faults
    assert "tasks (task, taskloop)" in faults[0]
    assert offload_faults("#pragma omp teams num_teams(2)\n{ }\n", "x")[0].startswith("no omp teams")
    assert offload_faults("void *p = omp_target_alloc(8, 0);\n", "x")
    assert offload_faults("int target = 1;\n#pragma omp task depend(in: target)\n", "x") == []
    assert offload_faults("#pragma omp declare target\nint g;\n", "x")
    assert offload_faults("#pragma omp metadirective when(user={condition(1)}: target)\n", "x")


def test_exchange_slice_calls_in_a_nested_team_are_refused(monkeypatch):
    """Lab 12 (a) (a fresh attacker's J12tgt, 2026-12-05): MPI calls of the cell made at a
    nesting level above 1 (a team opened in exchange_slice numbers its threads as the kit's) are
    refused before any other rule."""
    calls = pd.DataFrame({"student": [1, 1], "call": ["MPI_Irecv", "MPI_Isend"], "level": [2, 2],
                          "rank": [0, 0], "thread": [0, 1]})
    fake = type("R", (), {"mpi_calls": calls})()
    monkeypatch.setattr(exercise, "_judged_runs",
                        lambda runs: [({"ranks": 2, "threads": 2, "nx": 8}, fake, "2x2", 1.0)])
    monkeypatch.setattr(exercise, "point_to_point", lambda res: calls)
    with pytest.raises(AssertionError, match="made inside a parallel region opened in exchange_slice"):
        exercise.judge_multiple([])


def test_an_edge_task_waits_by_the_depend_addresses_the_runtime_got():
    """The dependence is judged from the depend lists the kit's GOMP_task wrapper recorded
    (addresses, not names): an edge task linked to the task that completed its halo's receive
    directly, through a chain of siblings, or through the task that created it waits; one whose
    in-address no earlier sibling writes, or an in against an in, does not (a fresh attacker's
    T12b_flagspin2: depend(in: halos) on a block-local `halos` shadowing the exchange's)."""
    tasks = pd.DataFrame([
        {"id": 1, "parent": 0, "deps": "o:a0,o:b0", "start": 1.0, "waited": 0.0},  # exchange
        {"id": 2, "parent": 0, "deps": "", "start": 1.1, "waited": 0.0},  # interior
        {"id": 3, "parent": 0, "deps": "i:b0,o:c0", "start": 1.3, "waited": 0.1},  # relay
        {"id": 4, "parent": 0, "deps": "i:c0", "start": 1.4, "waited": 0.1},  # edge by the relay
        {"id": 5, "parent": 0, "deps": "i:7ff0", "start": 1.5, "waited": 0.2},  # shadowing local
        {"id": 6, "parent": 0, "deps": "i:a0", "start": 1.5, "waited": 0.2},  # edge, direct
        {"id": 7, "parent": 6, "deps": "", "start": 1.6, "waited": 0.0},  # created by an edge
        {"id": 8, "parent": 0, "deps": "i:d0", "start": 1.6, "waited": 0.3},
        {"id": 9, "parent": 0, "deps": "i:d0", "start": 1.7, "waited": 0.3},  # in against in
        {"id": 10, "parent": 1, "deps": "", "start": 1.2, "waited": 0.1},  # the exchange's child
    ])
    row = {int(r["id"]): r for _, r in tasks.iterrows()}
    waits = [i for i in range(2, 11) if exercise.depend_waits(tasks, row[i], row[1])]
    assert waits == [3, 4, 6, 7], waits
    assert exercise.depend_waits(tasks, row[9], row[8]) is False
    everything = tasks.assign(deps=tasks["deps"].replace({"i:7ff0": "o:0"}))  # omp_all_memory
    assert exercise.depend_waits(everything, everything.iloc[4], row[1])



def test_a_rank_s_depend_lists_are_read_once_however_many_rows_ask(monkeypatch):
    """The judges ask depend_waits of every computed row (hundreds per run): an honest answer
    whose exchange task completes by an MPI_Testall loop, one task per interior row, took 24-42 s
    to judge at load 11 (the frame filtered and each sibling's list parsed again per step of
    every chain), past the part's time limit: 0/4 in grading_full 12 (2026-12-06). A TaskGraph
    parses each list once and gives depend_waits' answers."""
    parsed = []
    real = exercise._deps
    monkeypatch.setattr(exercise, "_deps", lambda text: parsed.append(text) or real(text))
    n = 200
    tasks = pd.DataFrame([{"id": 1, "parent": 0, "deps": "o:a0", "start": 1.0, "waited": 0.0}]
                         + [{"id": i, "parent": 0, "deps": "i:a0" if i % 2 else "",
                             "start": 1.0 + i / 1e3, "waited": 0.0} for i in range(2, n + 1)])
    graph = exercise.TaskGraph(tasks)
    rows = [r for _, r in tasks.iterrows()]
    waits = [int(r["id"]) for r in rows[1:] for _ in range(3) if graph.waits(r, rows[0])]
    assert waits == [i for i in range(3, n + 1, 2) for _ in range(3)]
    assert len(parsed) <= 2 * n, f"{len(parsed)} depend lists parsed for {n} tasks"

def test_the_task_round_a_piece_is_the_innermost_on_its_thread():
    """The judges ask, for every computed piece (hundreds per run), which task_run record was
    innermost round it on its thread: the last to begin of those that began by its start and
    ended at its end or later (a frame filtered per piece cost lab 12 (b)'s judge 1.2 of its 2.7
    CPU s, 2026-12-06); a tie in start comes out as pandas' sort gives it, none is None."""
    tasks = pd.DataFrame([
        {"id": 1, "thread": 0, "start": 1.0, "end": 9.0},  # the body's task
        {"id": 2, "thread": 0, "start": 2.0, "end": 5.0},  # a task it runs inside it
        {"id": 3, "thread": 1, "start": 2.5, "end": 5.0},  # another thread's
        {"id": 4, "thread": 0, "start": 6.0, "end": 8.0},
        {"id": 5, "thread": 0, "start": 6.0, "end": 8.5},  # same start as 4
    ], index=[10, 11, 12, 13, 14])
    graph = exercise.TaskGraph(tasks)
    assert int(graph.around(0, 3.0, 4.0)["id"]) == 2
    assert int(graph.around(0, 1.5, 4.0)["id"]) == 1  # began before task 2
    assert int(graph.around(1, 3.0, 4.0)["id"]) == 3
    assert graph.around(1, 1.0, 4.0) is None and graph.around(2, 3.0, 4.0) is None
    tie = tasks.iloc[[0, 3, 4]].sort_values("start").iloc[-1]
    assert graph.around(0, 7.0, 7.5).equals(tie) and graph.around(0, 7.0, 7.5).name == tie.name
    assert graph.around(0, 3.0, 4.0).name == 11  # the record itself, its index kept


def test_edges_held_by_a_waiting_body_or_a_shadowed_depend_are_refused():
    """T12b_flagspin2 (a fresh attacker's, 4/4 twice, 2026-12-05): task_iteration's body spins
    on a plain counter the waiting task bumps, then creates the edge task, whose depend(in:
    halos) names a block-local `halos`: the body's own time before the creation is the
    exchange's (kernels_c/thread_halo.c counts it), and the edge's depend address is not the
    exchange's; the solution shows neither (test_an_edge_task_that_waits_inside_...)."""
    res = _task_run(_FLAGSPIN2, "edges_flagspin2")
    early = exercise.early_edges(res, 2)
    assert any("task_iteration's own body once it had spent" in e for e in early), early
    slow = exercise.BODY_BUSY_S
    try:
        exercise.BODY_BUSY_S = 1e9  # the body's wait forgiven: the depend addresses still tell
        shadowed = exercise.early_edges(res, 2)
    finally:
        exercise.BODY_BUSY_S = slow
    assert shadowed and all("does not wait by its depend clauses" in e for e in shadowed), shadowed


def test_an_interior_held_by_depend_on_the_exchange_is_refused_in_any_iteration():
    """T12b_half (a fresh attacker's, 4/4 twice, 2026-12-05): in every other iteration the
    interior tasks depend(in:) on the exchange's task, so half the iterations overlap nothing,
    which the window rule's tolerance forgave: the interior tasks' depend addresses (recorded by
    the kit) wait for the task that completed the receive, in the second of two iterations."""
    half = _HALF.replace("%%c TASKS_C thread_halo\n", "")
    held = exercise.held_interior(_task_run(half, "held_half"), 2)
    assert held and all("iteration 1: interior rows" in h and "waits by its depend clauses" in h
                        for h in held), held


def test_a_task_given_task_iterations_locals_by_reference_reads_them_as_left():
    """helperE's right answer (the interior as a taskloop grainsize(4) nogroup after the edge
    tasks) gives the exchange's task `a` by reference (shared(a)): the task reads it after
    task_iteration returned, from the stack the calling thread reused at the single's barrier, so
    once the kit's task wrapper kept more on its frames the halo rows were received into another
    thread's stack (SIGSEGV in about 1 graded run of 5, 0/4, 2026-12-05). The kit keeps
    task_iteration's frame as it left it until the barrier ends (thread_halo.c's tasks_call): the
    cell itself keeps the part at the graded shapes, and so does the same cell with the edge task
    given m by reference (the honest corpus' next entry), which runs late, after its halo arrived
    (a wrong checksum in every run of the crashing code)."""
    from honest import source_of

    cell = source_of("12_threads_communicate", "the interior as a taskloop grainsize(4)")
    late = source_of("12_threads_communicate", "task_iteration's locals taken by reference")
    assert "shared(a)" in cell and "shared(m)" in late
    for code, name in ((cell, "shared_a"), (late, "shared_m")):
        runs = exercise.run_tasks(exercise.build_student_tasks(code, f"frame_kept_{name}"),
                                  shapes=((2, 3), (3, 2)), nx=224, ny=160, iterations=3)
        exercise.judge_tasks(runs)


_HALF = """%%c TASKS_C thread_halo
static char halos;
static long iterations_made = 0;

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int first = ++iterations_made % 2 == 1;
#pragma omp task depend(out: halos) firstprivate(a, m, w, nx, up, down, comm)
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 71, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 72, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 72, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 71, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    for (long lo = 2; lo <= m - 1; lo += 8) {
        long hi = lo + 7 < m - 1 ? lo + 7 : m - 1;
        if (first) {
#pragma omp task firstprivate(lo, hi)
            stencil_rows(lo, hi);
        } else {
#pragma omp task depend(in: halos) firstprivate(lo, hi)
            stencil_rows(lo, hi);
        }
    }
#pragma omp task depend(in: halos) firstprivate(m)
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""


_FLAGSPIN2 = """static MPI_Request reqs[4];
static char posted, halos;
static long waited_iterations, made_iterations;

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    long target = ++made_iterations;
#pragma omp task depend(out: posted) firstprivate(a, m, w, nx, up, down, comm)
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 71, comm, &reqs[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 72, comm, &reqs[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 72, comm, &reqs[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 71, comm, &reqs[3]);
    }
    for (long lo = 2; lo <= m - 1; lo += 8) {
        long hi = lo + 7 < m - 1 ? lo + 7 : m - 1;
#pragma omp task firstprivate(lo, hi)
        stencil_rows(lo, hi);
    }
#pragma omp task depend(inout: posted) depend(out: halos)
    {
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        waited_iterations++;
    }
    while (waited_iterations < target) omp_in_parallel();
    {
        char halos = 0;
#pragma omp task depend(in: halos) firstprivate(m)
        {
            stencil_rows(1, 1);
            if (m > 1) stencil_rows(m, m);
        }
    }
}
"""


def test_an_edge_task_that_waits_inside_for_its_halo_is_seen_by_the_task_wrapper():
    """The kit's wrapper of GOMP_task records when each task was created, began and ended: the
    solution's edge tasks begin after their halo's receive completed; edge tasks on an unrelated
    depend item that spin on the halo row until it is no longer NaN (a fresh attacker's
    M12b_nanspin) begin before it."""
    from gaming import solution_cell

    solution = solution_cell("12_threads_communicate", "task_iteration").split("\n", 1)[1]
    done = _task_run(solution, "edges_solution")
    assert exercise.early_edges(done) == [] and exercise.held_interior(done) == []
    spin = ("#include <math.h>\n#include <stdio.h>\nstatic int unrelated;\n"
            "static void wait_row(const double *row, long nx) {\n"
            "    for (int bad = 1; bad;) {\n        bad = 0;\n"
            "        for (long j = 1; j <= nx; j++) bad |= isnan(row[j]);\n"
            "        fflush(stdout);\n    }\n}\n"
            "void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
            "    long w = nx + 2;\n#pragma omp task firstprivate(a, m, nx, up, down, comm)\n    {"
            + _INLINE_EXCHANGE.split("    stencil_rows")[0].replace("\n", "\n    ") + "}\n"
            "    for (long i = 2; i < m; i++) {\n#pragma omp task firstprivate(i)\n"
            "        stencil_rows(i, i);\n    }\n"
            "#pragma omp task depend(in: unrelated)\n    { wait_row(&a[0], nx); stencil_rows(1, 1); }\n"
            "#pragma omp task depend(in: unrelated)\n"
            "    { wait_row(&a[(m + 1) * w], nx); stencil_rows(m, m); }\n}\n")  # fmt: skip
    early = exercise.early_edges(_task_run(spin, "edges_spin"))
    # an edge task the loaded machine started only after its halo arrived is still refused: its
    # depend address is not the exchange's (depend_waits)
    assert early and all("began" in e and "before its halo row's message arrived" in e
                         or "does not wait by its depend clauses" in e for e in early), early
    # the spinning task creates the edge's task once the halo row holds values: created after the
    # receive completed by a task that had begun before, or begun before the exchange's
    # completion returned (the row's values land before MPI_Waitall returns)
    child = spin.replace("{ wait_row(&a[0], nx); stencil_rows(1, 1); }",
                         "{ wait_row(&a[0], nx);\n#pragma omp task\n    stencil_rows(1, 1); }")
    assert child != spin
    late = exercise.early_edges(_task_run(child, "edges_child"))
    assert any("row 1 was created" in e and "by a task that had begun before" in e
               or "row 1 began" in e for e in late), late
    # row m in a taskloop's task (no depend clause there), spinning on its halo row (a fresh
    # attacker's p12bspin): computed in no wrapped task
    looped = spin.replace("#pragma omp task depend(in: unrelated)\n"
                          "    { wait_row(&a[(m + 1) * w], nx); stencil_rows(m, m); }",
                          "#pragma omp taskloop grainsize(1) nogroup\n"
                          "    for (long k = m; k <= m; k++) { wait_row(&a[(m + 1) * w], nx); "
                          "stencil_rows(k, k); }")
    assert looped != spin
    assert any("in no task of its own" in e
               for e in exercise.early_edges(_task_run(looped, "edges_taskloop")))


def test_the_copy_and_mark_window_follows_the_order_of_execution_not_the_text():
    """Lab 12 (d) (a fresh attacker's Q12d_rhelper, 0/4, 2026-12-05): a right answer marks in a
    static helper defined after pready_iteration; the region's barrier and masked MPI_Waitall
    after the marks stood "between" the copy and the last mark of the text. pready_iteration is
    read with the cell's helpers inlined: allowed; a barrier the helper makes before its mark,
    or one between the copy and the helper's call, is still refused."""
    from hybridlab.thread_comm.exercise import pready_construct_faults

    cell = ("static void mark_mine(int t);\n"
            "void pready_iteration(int nreq, MPI_Request req[]) {\n"
            "hl_traced_MPI_Startall(nreq, req);\n#pragma omp parallel\n{\n"
            " int t = omp_get_thread_num();\n copy_partition(t);\n mark_mine(t);\n"
            "#pragma omp barrier\n#pragma omp masked\n hl_traced_MPI_Waitall(nreq, req, 0);\n}\n}\n"
            "static void mark_mine(int t) {\n hl_traced_MPI_Pready(t, req[0]);\n}\n")
    assert pready_construct_faults(cell) == []
    inside = cell.replace(" hl_traced_MPI_Pready(t", "#pragma omp barrier\n hl_traced_MPI_Pready(t")
    assert any(f.startswith("no barrier between the copies and the marks (line ")
               and "through a function of the cell: pragma omp barrier" in f
               for f in pready_construct_faults(inside))
    before = cell.replace(" mark_mine(t);\n#pragma omp barrier", "#pragma omp barrier\n mark_mine(t);")
    assert any(f.startswith("no pragma omp barrier") for f in pready_construct_faults(before))
    # a helper that waits at a barrier, called between the copy and the mark, defined last
    helper = cell.replace(" mark_mine(t);\n", " hold();\n mark_mine(t);\n") + (
        "static void hold(void) {\n#pragma omp barrier\n}\n")
    assert any("pragma omp barrier" in f for f in pready_construct_faults(helper))


def test_a_barrier_function_handed_on_by_address_is_called_and_kit_functions_are_refused():
    """Lab 12 (d) (a fresh attacker's A7 c1 and c2, 4/4 twice each, 2026-12-07): a function
    holding a team barrier reached only through a pointer (hl_sample's, or a caller of the
    cell's own) makes turns in a loop, though nothing calls it by name; and no kit function
    (hl_sample, which also timed c2's turns) is named at all, at its line. A cell's own
    variable named hl_... is not the kit's."""
    from hybridlab.thread_comm.exercise import kit_function_faults, pready_construct_faults

    cell = ("static void team_wait(void) {\n#pragma omp barrier\n}\n"
            "static void run(void (*f)(void)) { f(); }\n"
            "void pready_iteration(int parts, MPI_Request req[]) {\n#pragma omp parallel\n{\n"
            " int t = omp_get_thread_num();\n copy_partition(t);\n hl_traced_MPI_Pready(t, req[0]);\n"
            " for (int turn = 0; turn < parts; turn++) {\n"
            "  if (turn == t) hl_traced_MPI_Pready(t, req[1]);\n  run(team_wait);\n }\n}\n}\n")
    assert any(f.startswith("no barrier in a loop (line 13)") for f in pready_construct_faults(cell))
    once = cell.replace("  run(team_wait);\n }\n", " }\n run(team_wait);\n")
    assert pready_construct_faults(once) == []  # one barrier after the marks
    sampled = cell.replace("run(team_wait);", "hl_sample((hl_work_fn)team_wait, 0, 1, 1, x);")
    assert kit_function_faults(sampled)[0].startswith("no hl_sample (line 13): ")
    assert kit_function_faults(cell.replace("parts", "hl_parts")) == []


def test_a_call_in_a_nested_team_before_the_marks_counts():
    """Lab 12 (d) (a fresh attacker's Q12d_turns, 2026-12-05): an MPI_Comm_rank in a nested
    region of one thread, between the copy and the marks, is a call before the marks."""
    from hybridlab.thread_comm.exercise import calls_before_marks

    def call(thread, name, start, level=1, team=2):
        return {"thread": thread, "call": name, "start": start, "step": 0, "in_parallel": 1,
                "team": team, "level": level, "partition": thread if name == "MPI_Pready" else -1,
                "partition_last": thread if name == "MPI_Pready" else -2,
                "requests": str(thread) if name == "MPI_Pready" else ""}

    right = pd.DataFrame([call(0, "MPI_Pready", 1.0), call(1, "MPI_Pready", 1.1)])
    assert calls_before_marks(right, 2).empty
    nested = pd.concat([right, pd.DataFrame([call(0, "MPI_Comm_rank", 0.9, level=2, team=1)])],
                       ignore_index=True)  # fmt: skip
    assert list(calls_before_marks(nested, 2)["call"]) == ["MPI_Comm_rank"]
    after = pd.concat([right, pd.DataFrame([call(0, "MPI_Comm_rank", 1.2, level=2, team=1)])],
                      ignore_index=True)  # fmt: skip
    assert calls_before_marks(after, 2).empty


@needs_partitioned
def test_threads_marking_in_turns_after_a_nested_call_are_refused():
    """Lab 12 (d) (a fresh attacker's Q12d_turns, 2026-12-05, 4/4 kept with its text hidden):
    each thread copies, makes an MPI_Comm_rank in a nested region of one thread (the kit's
    meeting of the marks waited at it), then marks in turns, a barrier after each turn. Built
    without the text checks (which refuse its second region and its loop of barriers), the run
    is refused: the meeting waits at a call of the region itself, and the nested call is a call
    before the marks."""
    cell = _TURNS.replace("WAIT", "").replace("STEP", "").replace(
        "copy_partition(t);",
        "copy_partition(t);\n        #pragma omp parallel num_threads(1)\n"
        "        { int me; MPI_Comm_rank(MPI_COMM_WORLD, &me); }\n"
        "        for (int turn = 0; turn < parts; turn++) {\n"
        "            if (turn == t) MARKS\n            #pragma omp barrier\n        }")
    marks = re.search(r"\n(\s*for \(int k = 0; k < nreq; k \+= 2\) MPI_Pready\(t, req\[k\]\);)",
                      cell)
    assert marks, cell
    cell = cell.replace(marks.group(0), "").replace("MARKS", marks.group(1).strip())
    res = _pready_meeting(cell, "meet_nested_turns")
    judged = _judged_pready(res)
    assert "one at a time" in judged or "nested in it" in judged, judged


_ANY_SOURCE_SPIN = r"""
/* wait for a halo row by looking at it: NaN until its message has landed */
static void until_arrived(const double *row, long nx) {
    for (long j = 0; j < nx; j++)
        while (row[j] != row[j]) (void)rand(); /* an opaque call: row[j] is read again */
}

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int link = 0;
    if (m < 0) { /* never runs: only shows a depend link in the text */
        #pragma omp task depend(out: link)
        MPI_Comm_size(comm, &link);
        #pragma omp task depend(in: link)
        stencil_rows(1, 1);
    }
    #pragma omp task
    {
        MPI_Request r[4];
        int n = 0;
        /* from any source: the tag says which side the row comes from */
        if (up != MPI_PROC_NULL)
            MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 1, comm, &r[n++]);
        if (down != MPI_PROC_NULL)
            MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 2, comm, &r[n++]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[n++]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[n++]);
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    }
    for (long i = 2; i <= m - 1; i++) {
        #pragma omp task firstprivate(i)
        stencil_rows(i, i);
    }
    #pragma omp task
    {
        if (up != MPI_PROC_NULL) until_arrived(&a[1], nx);
        if (m == 1 && down != MPI_PROC_NULL) until_arrived(&a[2 * w + 1], nx);
        stencil_rows(1, 1);
    }
    if (m > 1) {
        #pragma omp task
        {
            if (down != MPI_PROC_NULL) until_arrived(&a[(m + 1) * w + 1], nx);
            stencil_rows(m, m);
        }
    }
}
"""


def test_a_receive_from_any_source_feeds_the_row_its_tag_names():
    """Lab 12 (b) (a fresh attacker's Q12b_anysrc, 4/4 kept, 2026-12-05): receives posted with
    MPI_ANY_SOURCE (tags 1 and 2 tell the sides apart) gave early_edges no halo arrival, and the
    edge tasks, without depend, spun on the NaN halo row. The receive's row is that of the one
    neighbour that sent this rank a message of its tag: the edge tasks began before it arrived.
    The same receives naming their neighbours are judged alike."""
    early = exercise.early_edges(_task_run(_ANY_SOURCE_SPIN, "edges_any_source"))
    # each fault is judged against the receive's arrival (a task begun before it, created after
    # it by one that had begun before, or not waiting by depend for the task that completed it:
    # which one a row shows is the machine's timing)
    assert early and all("its halo row's" in e for e in early), early
    named = _ANY_SOURCE_SPIN.replace("MPI_ANY_SOURCE, 1,", "up, 1,").replace(
        "MPI_ANY_SOURCE, 2,", "down, 2,")
    assert named != _ANY_SOURCE_SPIN
    assert exercise.early_edges(_task_run(named, "edges_named_source"))


def test_an_any_source_receive_is_told_by_its_tag():
    """Which neighbour's row an MPI_ANY_SOURCE receive of rank 1 takes: the one that sent rank 1
    its tag; both when both did (or with MPI_ANY_TAG)."""
    from types import SimpleNamespace

    sends = pd.DataFrame({"rank": [0, 2, 2], "call": ["MPI_Isend", "MPI_Isend", "MPI_Send"],
                          "peer": [1, 1, 0], "tag": [2, 1, 2]})
    sides = {0: 1, 2: 9}
    assert exercise._any_source_sides(SimpleNamespace(tag=2), 1, sides, sends) == [0]
    assert exercise._any_source_sides(SimpleNamespace(tag=1), 1, sides, sends) == [2]
    assert exercise._any_source_sides(SimpleNamespace(tag=-1), 1, sides, sends) == [0, 2]


def test_concurrency_is_counted_in_one_pass_as_every_pair_would():
    """concurrent_iterations counts, per iteration, the calls that began while another thread's
    call was inside MPI: one pass in order of start (a polling answer's 75,000 calls took 40 s
    to judge pair by pair, past the graded test's limit), the same counts as every pair."""
    import random
    from types import SimpleNamespace

    draw = random.Random(7)
    rows, steps = [], []
    for step in range(3):
        for _ in range(60):
            start = step * 10.0 + draw.uniform(0.0, 5.0)
            rows.append((draw.randrange(3), "MPI_Test", start, start + draw.uniform(0.0, 0.4),
                         -1, -1, -1, "", 0))
            steps.append(step)
    calls = _calls(*rows).assign(step=steps)
    got = exercise.concurrent_iterations(SimpleNamespace(mpi_calls=calls), 3)
    made = exercise.exchange_calls(SimpleNamespace(mpi_calls=calls))
    for step, it in made.sort_values("start", kind="stable").groupby("step"):
        seen = list(it.itertuples())
        want = sum(any(o.thread != c.thread and o.start <= c.start < o.end for o in seen[:i])
                   for i, c in enumerate(seen))
        assert int(got.loc[got["iteration"] == step, "concurrent"].iloc[0]) == want > 0


def test_a_cell_that_zeroes_the_kits_task_counters_on_the_stack_no_longer_keeps_the_part():
    """f46: (b)'s overlap by hand (the posting task computes the whole interior itself) then the
    kit's count of it, interior_after_calls, found by scanning up the master thread's stack (the
    grid was a local of hl_kernel) and set back to 0: judge_tasks passed it. The grid's counters
    are hybridlab.h's sealed evidence now (read-only pages written through /proc/self/mem): the
    run is judged on the count the kit made, or dies where the scan runs off the stack."""
    from gaming import source_of
    from hybridlab.errors import KernelError

    cell = source_of("12_threads_communicate", "the interior by the posting task itself")
    code = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    with pytest.raises((KernelError, AssertionError),
                       match=r"signal 11|Segmentation|exited with status|exchange's own task"):
        exercise.judge_tasks(exercise.run_tasks(exercise.build_student_tasks(code, "sealed_stamps"),
                                                shapes=((2, 2),), nx=224, ny=160, iterations=3))


def test_a_cell_that_writes_the_kits_counters_through_the_kits_own_descriptor_loses_the_part():
    """Attacker U (u12_postforge): (b)'s overlap by hand, then the kit's task counters zeroed
    through the kit's own /proc/self/mem descriptor, its number read from the sealed page, by
    stdout's FILE (fflush: lseek, then write): judge_tasks passed it. hybridlab.h's seccomp filter
    leaves that descriptor to the kit's pwrite64: the write fails and the count is judged."""
    from gaming import source_of

    cell = source_of("12_threads_communicate", "the kit's own /proc/self/mem descriptor")
    kernel = exercise.build_student_tasks(cell, "sealed_descriptor")
    with pytest.raises(AssertionError, match="exchange's own task"):
        exercise.judge_tasks(exercise.run_tasks(kernel, shapes=((2, 2),), nx=224, ny=160,
                                                iterations=3))



@needs_partitioned
def test_a_thread_that_computes_between_its_copy_and_its_marks_takes_turns():
    """Lab 12 (d) (A2's l12_pready_busy, 4/4 twice, 2026-12-07): a busy loop growing with the
    thread number between the copy and the marks (no clock, sleep or lock; the kit's meeting at
    the first mark met) hands the partitions over in turns. The kit records each thread's CPU
    time between its copy_partition and each of its MPI calls (thread_halo.c's call_cpu records):
    milliseconds there are refused; the same cell marking at once passes."""
    busy = _TURNS.replace("copy_partition(t);", "copy_partition(t);\n        double x = 1.0;\n"
                          "        for (long i = 0; i < 3000000L * t; i++) x = x * 1.0000001 + 1e-9;"
                          ).replace("MPI_Pready(t,", "if (x > 0.0) MPI_Pready(t,"  # the mark after it
                                    ).replace("WAIT", "").replace("STEP", "")  # fmt: skip
    res = _pready_meeting(busy, "own_cpu_busy")
    assert "of CPU time between its copy_partition and its last MPI_Pready" in _judged_pready(res)
    calls = res.mpi_calls[res.mpi_calls["student"] == 1]
    own = exercise.own_cpu_before_marks(res, 0, calls[calls["rank"] == 0])
    assert own.loc[own["thread"] == 1, "cpu"].min() > exercise.OWN_CPU_S
    together = _TURNS.replace("WAIT", "").replace("STEP", "")
    res = _pready_meeting(together, "own_cpu_together")
    assert _judged_pready(res) == ""
    calls = res.mpi_calls[res.mpi_calls["student"] == 1]
    own = exercise.own_cpu_before_marks(res, 0, calls[calls["rank"] == 0])
    assert len(own) == 4 and own["cpu"].max() < exercise.OWN_CPU_S  # 2 threads x 2 iterations


_DETACHED = lab_module("12_threads_communicate", Path(__file__).parent / "honest").DETACHED


def test_a_detached_exchange_task_holds_the_edges_until_its_event_is_fulfilled():
    """Lab 12 (b) (A2's l12_task_detach, a right answer, 0/4 on SIGSEGV, 2026-12-07): libgomp
    writes a detached task's event handle into the first word of the data it runs the task with,
    which the kit's task wrapper had filled with its own head; the wrapper keeps a slot for it
    and hands it to the task's data (the run completes). The edge tasks wait by depend on the
    detached task, which the runtime completes only once its event is fulfilled, by the child
    task that completed the requests: the kit records the detached task's event and who
    fulfilled it, and the judge follows that link (without it, no depend chain reaches the
    child)."""
    res = _task_run(_DETACHED, "tasks_detached")
    assert exercise.early_edges(res, 2) == []
    records = res.records
    detached = records[records["record"] == "task_detached"]
    fulfilled = records[records["record"] == "task_fulfill"]
    assert len(detached) == 4 and set(detached["event"]) == set(fulfilled["event"])  # 2 x 2
    blind = dataclasses.replace(
        res, records=records[~records["record"].isin(["task_detached", "task_fulfill"])])
    assert any("does not wait by its depend clauses" in f for f in exercise.early_edges(blind, 2))
