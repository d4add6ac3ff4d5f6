"""Lab 13's judge of the neighbourhood halo (hybridlab.neighbour.exercise) on real runs: a
non-blocking neighbourhood collective counts once the request it returned is completed before
the next sweep, by whichever completion call took it; no other collective may move the halo.
(c): a reduction's send buffer changed while it is in flight is refused, from the tracer's
"send_changed" on the completion that took its request (kernels_c/hl_trace.c, HL_POSTED)."""

import importlib.util
from pathlib import Path

import pytest

from hybridlab.errors import RequestsLeftOpen
from hybridlab.neighbour.exercise import (
    LEVEL,
    build_student_neighbour,
    build_student_residual,
    check_student_neighbour,
    check_student_residual,
    student_calls,
)
from hybridlab.runs.student_c import run_student


def _corpus(folder: str):
    """Lab 13's module of a test corpus (tests/honest, tests/wrong_answers)."""
    path = Path(__file__).parent / folder / "13_neighbourhood_collectives.py"
    spec = importlib.util.spec_from_file_location(f"{folder}_13", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    assert [r["checksum"] == r["numpy"] for r in check_student_neighbour(kernel)] == [True]


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
    assert [r["checksum"] == r["numpy"] for r in check_student_neighbour(kernel)] == [True]


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


def test_a_refused_watch_is_noted_on_stdout_not_failed():
    import pandas as pd

    from hybridlab.neighbour.exercise import changed_sends, watch_note

    calls = pd.DataFrame({"rank": [0, 0, 1], "call": ["MPI_Iallreduce", "MPI_Wait", "MPI_Iallreduce"],
                          "watch": [-13, 0, -13], "send_changed": [0, 0, 0]})  # fmt: skip
    assert "errno 13" in watch_note(calls) and "2 posting(s)" in watch_note(calls)
    assert changed_sends(calls).empty
    assert watch_note(calls.assign(watch=[1, 0, 1])) == ""
