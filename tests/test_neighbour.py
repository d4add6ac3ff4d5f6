"""Lab 13's judge of the neighbourhood halo (hybridlab.neighbour.exercise) on real runs: a
non-blocking neighbourhood collective counts once the request it returned is completed before
the next sweep, by whichever completion call took it; no other collective may move the halo.
(c): a reduction's send buffer changed while it is in flight is refused, from the tracer's
"send_changed" on the completion that took its request (kernels_c/hl_trace.c, HL_POSTED)."""

from pathlib import Path

import numpy as np
import pytest

from gaming import source_of
from hybridlab.errors import RequestsLeftOpen
from hybridlab.halo.serial import jacobi2d
from hybridlab.neighbour.exercise import (
    LEVEL,
    build_student_neighbour,
    build_student_residual,
    check_student_neighbour,
    check_student_residual,
    student_calls,
)
from hybridlab.runs.student_c import run_student
from wrong_answers import lab_module


def _corpus(folder: str):
    """Lab 13's module of a test corpus (tests/honest, tests/gaming, tests/wrong_answers)."""
    return lab_module("13_neighbourhood_collectives", Path(__file__).parent / folder)


def _agrees(row: dict) -> bool:
    """The kernel's checksum is numpy's of the same perturbed start (the sums in another order)."""
    return abs(row["checksum"] - row["numpy"]) <= 1e-12 * abs(row["numpy"])


_honest = _corpus("honest")
# the cell's code without its %%c line
INEIGHBOR_W = _honest.INEIGHBOR_W.strip().split("\n", 1)[1]
WAIT = "MPI_Wait(&req, MPI_STATUS_IGNORE);"


@pytest.mark.parametrize("completion", [
    "int which;\n    MPI_Waitany(1, &req, &which, MPI_STATUS_IGNORE);",
    "int k, at[1];\n    do MPI_Waitsome(1, &req, &k, at, MPI_STATUSES_IGNORE); while (k == 0);",
    "int which, done = 0;\n    while (!done) MPI_Testany(1, &req, &which, &done, MPI_STATUS_IGNORE);",
])
def test_a_collective_completed_by_any_or_some_counts(completion):
    kernel = build_student_neighbour(INEIGHBOR_W.replace(WAIT, completion), name="t_neighbour_any")
    assert [_agrees(r) for r in check_student_neighbour(kernel)] == [True]


def test_a_collective_completed_after_the_next_sweep_does_not_count():
    # MPI_Waitany takes the collective's request only at the next call's start: the sweep in
    # between read the halo while the collective was still open
    late = INEIGHBOR_W.replace(WAIT, "")
    late = late.replace("    MPI_Request req;\n", "    static MPI_Request req = MPI_REQUEST_NULL;\n"
                        "    int which;\n    MPI_Waitany(1, &req, &which, MPI_STATUS_IGNORE);\n")
    kernel = build_student_neighbour(late, name="t_neighbour_late")
    # the last sweep's collective is never completed at all: refused as a request left open
    with pytest.raises((AssertionError, RequestsLeftOpen),
                       match="not completed before the next sweep|were never completed"):
        check_student_neighbour(kernel)


@pytest.mark.parametrize("beside, refusal", [
    ("int one = 1, all[16];\n    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, grid);",
     "MPI_Allgather: the halo goes by the neighbourhood collective alone"),
    ("double mine[100] = {0}, sum[100];\n"
     "    MPI_Allreduce(mine, sum, 100, MPI_DOUBLE, MPI_SUM, grid);",
     "reductions of 3200 bytes on rank"),
])
def test_another_collective_that_could_carry_the_halo_is_refused(beside, refusal):
    # a fresh attacker's halo: an ordinary collective moves it, a neighbourhood one for show
    other = INEIGHBOR_W.replace(WAIT, WAIT + "\n    " + beside)
    kernel = build_student_neighbour(other, name="t_neighbour_other")
    with pytest.raises(AssertionError, match=refusal):
        check_student_neighbour(kernel)


def test_a_barrier_and_a_reduction_of_one_value_beside_it_are_fine():
    beside = "long mine = n, most;\n    MPI_Allreduce(&mine, &most, 1, MPI_LONG, MPI_MAX, grid);" \
             "\n    MPI_Barrier(grid);"
    kernel = build_student_neighbour(INEIGHBOR_W.replace(WAIT, WAIT + "\n    " + beside),
                                     name="t_neighbour_small")
    assert [_agrees(r) for r in check_student_neighbour(kernel)] == [True]


_gaming = _corpus("gaming")


def _cell(source: str) -> str:
    """A corpus cell's C without its %%c line."""
    return source.strip().split("\n", 1)[1]


@pytest.mark.parametrize("attempt", ["_WHOLE_GRID_ZERO", "_WHOLE_GRID_DECOY"])
def test_a_halo_each_rank_computes_from_the_whole_grid_itself_is_refused(attempt):
    # attacker V: every rank sweeps the whole grid (the start and stencil are in the installed
    # sources) and fills its halo from its own copy; 4/4 while the start was known. Each block
    # now starts perturbed by a key only its rank knows (neighbour_halo.c, "secret")
    kernel = build_student_neighbour(_cell(getattr(_gaming, attempt)), name="t_neighbour_whole")
    with pytest.raises(AssertionError, match="wrong result.*only that rank knows"):
        check_student_neighbour(kernel)


def test_the_secret_start_is_the_judges_and_a_collective_of_nothing_is_refused_by_its_bytes():
    from hybridlab.neighbour.exercise import halo_bytes, secret_start, sweep_checksum

    # the judge's start from the records is the kernel's: one sweep, no exchange needed yet
    res = run_student(build_student_neighbour(INEIGHBOR_W, name="t_neighbour_secret"), 4, 1,
                      LEVEL, 30, variant="student", nx=9, ny=7, iterations=2, px=2, py=2)
    secrets = res.records.query("record == 'secret'")
    start = secret_start(9, 7, secrets)
    assert len(set(secrets["key"])) == 4 and (start[1:-1, 1:-1] % (1 / 16) != 0).all()
    checksum = float(res.records.query("record == 'checksum'")["checksum"].iloc[0])
    assert abs(checksum - sweep_checksum(start, 2)) <= 1e-12 * abs(checksum)
    # the tracer's bytes from the neighbours that are ranks: exactly the halo's for the right one
    hood = student_calls(res).query("call == 'MPI_Ineighbor_alltoallw'")
    need = halo_bytes(secrets)
    assert [int(b) for b in hood["recv_bytes"]] == [need[int(r)] for r in hood["rank"]], hood
    # one iteration needs no exchange of the student's (the kit fills the start's halo): the
    # whole-grid attempt's result is right there, its 0-element collective is not an exchange
    zero = build_student_neighbour(_cell(_gaming._WHOLE_GRID_ZERO), name="t_neighbour_zero")
    with pytest.raises(AssertionError, match="received 0 bytes from its neighbours"):
        check_student_neighbour(zero, iterations=1)


# (c): the solution's loop, its next value in a second variable (`next`) ...
OVERLAPPED = _corpus("wrong_answers").RESIDUAL
# ... and written into the send buffer while the reduction is in flight (MPICH copied the one
# double at the posting: the numbers are right all the same)
REUSED = OVERLAPPED.replace("double next = jacobi_iteration();", "mine = jacobi_iteration();") \
    .replace("        mine = next;\n", "")
IN_LOOP_WAIT = "        MPI_Wait(&request, MPI_STATUS_IGNORE);\n"


def _completions(code: str, ranks: int = 2, iterations: int = 6):
    """The student's completion calls of a run of `code` (no tolerance: every iteration)."""
    kernel = build_student_residual(code, name="t_residual_send")
    res = run_student(kernel, ranks, 1, LEVEL, 30, variant="overlap", nx=12, ny=10,
                      iterations=iterations, tolerance=0.0)  # fmt: skip
    calls = student_calls(res)
    return kernel, calls[calls["call"] != "MPI_Iallreduce"]


def test_an_untouched_send_buffer_is_recorded_unchanged_and_passes():
    kernel, done = _completions(OVERLAPPED)
    assert len(done) == 2 * 6 and (done["send_changed"] == 0).all(), done[["call", "send_changed"]]
    assert check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)["iterations"] == 6


@pytest.mark.parametrize("completion", [
    IN_LOOP_WAIT,
    "        MPI_Waitall(1, &request, MPI_STATUSES_IGNORE);\n",
    "        int which, flag = 0;\n"
    "        while (!flag) MPI_Testany(1, &request, &which, &flag, MPI_STATUS_IGNORE);\n",
])
def test_a_send_buffer_written_in_flight_is_recorded_and_refused(completion):
    kernel, done = _completions(REUSED.replace(IN_LOOP_WAIT, completion))
    done = done[done["done"] == 1]
    # per rank: the five completions inside the loop took a changed buffer, the last one not
    changed = done.groupby("rank")["send_changed"].sum().to_dict()
    assert changed == {0: 5, 1: 5}, done[["rank", "call", "requests", "send_changed"]]
    with pytest.raises(AssertionError, match="the send buffer must stay untouched until the "
                                             "reduction completes"):
        check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)


# a fresh attacker's (F13e): the next value written into the send buffer in flight and the
# posted bytes put back before MPI_Wait, so the hashes at posting and completion agree; the
# debug registers count the stores (hl_trace.c, HL_POSTED: "send_writes", "watch")
PUT_BACK = OVERLAPPED.replace(
    "        double next = jacobi_iteration();\n",
    "        double posted = mine;\n        mine = jacobi_iteration();\n        (void)hl_now();\n"
    "        double next = mine;\n        mine = posted;\n")
# the same from an OpenMP thread the parallel region makes (the first time: during the flight)
PUT_BACK_THREAD = OVERLAPPED.replace(
    "        double next = jacobi_iteration();\n",
    "        double next = jacobi_iteration(), posted = mine;\n"
    "        #pragma omp parallel num_threads(2)\n"
    "        if (omp_get_thread_num() == 1) { mine = next; (void)hl_now(); mine = posted; }\n")


def _run(code: str, ranks: int = 2, iterations: int = 6):
    """The kernel and every call of the student's of a run of `code` (no tolerance)."""
    kernel = build_student_residual(code, name="t_residual_watch")
    res = run_student(kernel, ranks, 1, LEVEL, 30, variant="overlap", nx=12, ny=10,
                      iterations=iterations, tolerance=0.0)  # fmt: skip
    return kernel, student_calls(res)


def _watched(calls):
    """Skip where this machine refused the debug registers (the posting's "watch" < 0)."""
    watch = calls.loc[calls["call"] == "MPI_Iallreduce", "watch"]
    if (watch < 0).any():
        pytest.skip(f"perf_event_open refused here (errno {-int(watch.min())}): the hash alone")
    assert (watch == 1).all(), watch  # one double: one debug register


@pytest.mark.parametrize("code", [PUT_BACK, PUT_BACK_THREAD], ids=["same thread", "omp thread"])
def test_a_send_buffer_written_and_put_back_in_flight_is_recorded_and_refused(code):
    kernel, calls = _run(code)
    _watched(calls)
    done = calls[(calls["call"] != "MPI_Iallreduce") & (calls["done"] == 1)]
    changed = done.groupby("rank")["send_changed"].sum().to_dict()
    assert changed == {0: 5, 1: 5}, done[["rank", "call", "send_changed", "send_writes"]]
    assert (done.groupby("rank")["send_writes"].sum() >= 5).all(), done[["rank", "send_writes"]]
    with pytest.raises(AssertionError, match="even if its bytes are put back"):
        check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)


def test_double_buffering_writes_no_watched_store_and_the_measured_runs_arm_nothing():
    # the honest answers' two slots side by side: the other slot's stores are not the send
    # buffer's; a measured run (HL_WATCH_STORES=0) keeps the hash alone
    two = OVERLAPPED.replace("double mine = jacobi_iteration(), sum = 0.0;",
                             "double slot[2] = {jacobi_iteration(), 0.0}, sum = 0.0;\n"
                             "    double *mine_ = slot; int at = 0;") \
        .replace("MPI_Iallreduce(&mine,", "MPI_Iallreduce(&slot[at],") \
        .replace("double next = jacobi_iteration();", "slot[1 - at] = jacobi_iteration();") \
        .replace("        mine = next;\n", "        at = 1 - at; (void)mine_;\n")
    kernel, calls = _run(two)
    _watched(calls)
    done = calls[calls["call"] != "MPI_Iallreduce"]
    assert (done["send_changed"] == 0).all() and (done["send_writes"] == 0).all(), done
    assert check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)["iterations"] == 6
    from hybridlab.neighbour.exercise import residual_runs
    (_, _, measured), = residual_runs(kernel, sizes=(16,), iterations=5, bind="none")
    calls = student_calls(measured)
    assert (calls["watch"] == 0).all() and (calls["send_writes"] == -1).all(), calls


# MPI_IN_PLACE: the buffer MPI reads the value from and writes the sum into (attacker V)
IN_PLACE = """
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double slot[2];
    MPI_Request req;
    long it = 1;
    int k = 0, done;
    slot[k] = jacobi_iteration();
    for (;;) {
        MPI_Iallreduce(MPI_IN_PLACE, &slot[k], 1, MPI_DOUBLE, MPI_SUM, comm, &req);
        int more = it < max_iterations;
        if (more) {
            slot[1 - k] = jacobi_iteration();
            it++;
        }
        done = 0;
        while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!more || slot[k] < tolerance) return slot[k];
        k = 1 - k;
    }
}
"""
# the next value written into the in-place buffer in flight and kept (MPI's sum overwrites it)
IN_PLACE_OVERWRITTEN = IN_PLACE.replace("slot[1 - k] = jacobi_iteration();",
                                        "slot[1 - k] = slot[k] = jacobi_iteration();")


def test_an_in_place_buffer_written_and_put_back_in_flight_is_refused():
    # attacker V's G13c_inplace_wr: 4/4 while an MPI_IN_PLACE posting was neither hashed nor
    # watched (hl_trace.c); MPI's own stores there (the sum) are not counted
    kernel, calls = _run(_cell(_gaming._IN_PLACE_PUT_BACK))
    _watched(calls)
    done = calls[(calls["call"] != "MPI_Iallreduce") & (calls["done"] == 1)]
    assert done.groupby("rank")["send_changed"].sum().to_dict() == {0: 6, 1: 6}, done
    with pytest.raises(AssertionError, match="even if its bytes are put back"):
        check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)


def test_an_in_place_buffer_is_judged_outside_mpi_calls_only():
    # the right answer: MPI writes the sum into the buffer during the MPI_Test loop, nobody else
    kernel, calls = _run(IN_PLACE)
    _watched(calls)
    done = calls[calls["call"] != "MPI_Iallreduce"]
    assert (done["send_changed"] == 0).all() and (done["send_writes"].isin([0, -1])).all(), done
    assert check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)["iterations"] == 6
    # a value written there in flight and left is a change found by the hash at the next MPI
    # call, with the debug registers off too
    kernel = build_student_residual(IN_PLACE_OVERWRITTEN, name="t_residual_inplace")
    res = run_student(kernel, 2, 1, LEVEL, 30, variant="overlap", nx=12, ny=10, iterations=6,
                      tolerance=0.0, env={"HL_WATCH_STORES": "0"})  # fmt: skip
    done = student_calls(res).query("done == 1 and call != 'MPI_Iallreduce'")
    assert done.groupby("rank")["send_changed"].sum().to_dict() == {0: 5, 1: 5}, done


def test_a_refused_watch_is_noted_on_stdout_not_failed():
    import pandas as pd

    from hybridlab.neighbour.exercise import changed_sends, watch_note

    calls = pd.DataFrame({"rank": [0, 0, 1], "call": ["MPI_Iallreduce", "MPI_Wait", "MPI_Iallreduce"],
                          "watch": [-13, 0, -13], "send_changed": [0, 0, 0]})  # fmt: skip
    assert "errno 13" in watch_note(calls) and "2 posting(s)" in watch_note(calls)
    assert changed_sends(calls).empty
    assert watch_note(calls.assign(watch=[1, 0, 1])) == ""


def test_b_a_loop_that_sets_the_kernels_tolerance_to_0_no_longer_passes():
    """Issue 36's F13_tolerance: (b)'s loop never tests the tolerance, and the kernel's tolerance,
    found on its stack above the cell's frame, is set to 0: on the old kernel its own check then
    expected every iteration and passed. The tolerance and the iterations done are hybridlab.h's
    sealed evidence now: the check expects the stop the run's tolerance gives."""
    code = source_of("13_neighbourhood_collectives", "a loop that never tests the tolerance")
    kernel = build_student_residual(code, "t_residual_forged_tolerance")
    nx, ny, stop = 20, 14, 6
    tolerance = float(np.sqrt(jacobi2d(nx, ny, stop)[1] * jacobi2d(nx, ny, stop - 1)[1]))
    with pytest.raises(AssertionError, match="wrong result"):
        check_student_residual(kernel, 2, nx=nx, ny=ny, iterations=stop + 5, tolerance=tolerance)


@pytest.mark.parametrize("attempt", ["_BEYOND_HASH", "_PUT_BACK_PAST_REGISTERS"])
def test_a_send_buffer_not_watched_whole_is_refused(attempt):
    # attacker A1's C1 and C2 (4/4 twice each): the residual written in flight where neither the
    # hash (its first 4096 bytes) nor the debug registers (32 bytes) looked, so no completion
    # records a change; the residual is one value, a reduction watched in part is refused
    kernel, calls = _run(_cell(getattr(_gaming, attempt)))
    done = calls[(calls["call"] != "MPI_Iallreduce") & (calls["done"] == 1)]
    assert (done["send_changed"] == 0).all(), done[["rank", "call", "send_changed"]]
    with pytest.raises(AssertionError, match="could not watch whole while in flight"):
        check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)


# every iteration's reduction kept in flight to the end: the four debug registers are held by
# the first four, the later ones' send buffers are hashed alone
HELD = """
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double mine[64], sum[64];
    MPI_Request req[64];
    long n = max_iterations < 64 ? max_iterations : 64;
    for (long k = 0; k < n; k++) {
        mine[k] = jacobi_iteration();
        MPI_Iallreduce(&mine[k], &sum[k], 1, MPI_DOUBLE, MPI_SUM, comm, &req[k]);
    }
    MPI_Waitall((int)n, req, MPI_STATUSES_IGNORE);
    return sum[n - 1];
}
"""


def test_the_posting_records_the_bytes_its_registers_cover_and_a_part_is_refused():
    kernel, calls = _run(_cell(_gaming._PUT_BACK_PAST_REGISTERS))
    posted = calls[calls["call"] == "MPI_Iallreduce"]
    if (posted["watch"] < 0).any():
        pytest.skip("perf_event_open refused here: the hash alone")
    assert (posted["watch"] == 4).all() and (posted["watched"] == 32).all(), posted
    kernel, calls = _run(HELD)
    posted = calls[calls["call"] == "MPI_Iallreduce"]
    watched = posted.groupby("rank")["watched"].apply(list).to_dict()
    assert watched == {0: [8, 8, 8, 8, 0, 0], 1: [8, 8, 8, 8, 0, 0]}, posted
    with pytest.raises(AssertionError, match="the debug registers covered 0 bytes"):
        check_student_residual(kernel, 2, nx=12, ny=10, iterations=6)
