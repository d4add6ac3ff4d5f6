"""Lab 13's judge of the neighbourhood halo (hybridlab.neighbour.exercise) on real runs: a
non-blocking neighbourhood collective counts once the request it returned is completed before
the next sweep, by whichever completion call took it; no other collective may move the halo."""

import importlib.util
from pathlib import Path

import pytest

from hybridlab.neighbour.exercise import build_student_neighbour, check_student_neighbour

_HONEST = Path(__file__).parent / "honest" / "13_neighbourhood_collectives.py"
_spec = importlib.util.spec_from_file_location("honest_13", _HONEST)
_honest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_honest)
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
    with pytest.raises(AssertionError, match="not completed before the next sweep"):
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
