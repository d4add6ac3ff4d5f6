"""Lab 13's judge of the neighbourhood halo (hybridlab.neighbour.exercise) on real runs: a
non-blocking neighbourhood collective counts once the request it returned is completed before
the next sweep, by whichever completion call took it."""

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


def test_a_completion_that_took_another_request_does_not_count():
    # the barrier is completed in the exchange; the collective only after the sweep has begun
    # (the next call's first act), so the halo the sweep read was the last one's
    late = INEIGHBOR_W.replace(WAIT, "MPI_Ibarrier(grid, &other);\n    int which;\n    MPI_Waitany(1, &other, &which, MPI_STATUS_IGNORE);")
    late = late.replace("    MPI_Request req;\n", "    static MPI_Request req = MPI_REQUEST_NULL;\n    MPI_Request other;\n    " + WAIT + "\n")
    kernel = build_student_neighbour(late, name="t_neighbour_late")
    with pytest.raises(AssertionError, match="not completed before the next sweep"):
        check_student_neighbour(kernel)
