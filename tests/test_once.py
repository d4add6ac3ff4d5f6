"""A function called once on every rank of a fresh MPI job (engines.once): real mpiexec."""

import os

import numpy as np
import pytest

from conftest import mpi_leftovers
from hybridlab.engines.once import FunctionFailed, call_once
from hybridlab.errors import KernelTimeout


def ring():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.sendrecv(os.getpid(), dest=(rank + 1) % size, source=(rank - 1) % size), os.getpid()


@pytest.mark.parametrize("ranks", [2, 3])
def test_every_rank_runs_the_function_and_answers_in_rank_order(ranks):
    out = call_once(ring, ranks=ranks, timeout=30)
    pids = [pid for _, pid in out]
    assert len(set(pids)) == ranks and os.getpid() not in pids  # fresh processes, one a rank
    assert [got for got, _ in out] == [pids[(r - 1) % ranks] for r in range(ranks)]
    assert mpi_leftovers() == []


def test_closures_and_defaults_travel_by_value_and_globals_are_fresh():
    def outer(scale, helper):
        def inner(offset=10):
            from mpi4py import MPI

            return helper(MPI.COMM_WORLD.Get_rank()) * scale + offset

        return inner

    def helper(rank):
        return rank + 1

    assert call_once(outer(100, helper), ranks=2, timeout=30) == [110, 210]

    weights = np.arange(3)

    def recursive():  # itself through its closure cell, an array beside it
        def total(n):
            return int(weights[n]) + (total(n - 1) if n else 0)

        return total(2)

    assert call_once(recursive, ranks=1, timeout=30) == [3]

    def reads_a_notebook_global():
        return ring  # a name of this module's namespace: not on a fresh rank

    with pytest.raises(FunctionFailed, match="NameError: name 'ring' is not defined") as err:
        call_once(reads_a_notebook_global, ranks=2, timeout=30)
    assert err.value.rank == 0


def test_a_rank_that_raises_fails_the_call_with_its_traceback():
    def half_fails():
        from mpi4py import MPI

        if MPI.COMM_WORLD.Get_rank() == 1:
            raise ValueError("rank one refuses")
        return "fine"

    with pytest.raises(
        FunctionFailed, match="rank 1 raised(.|\n)*ValueError: rank one refuses"
    ) as err:
        call_once(half_fails, ranks=2, timeout=30)
    assert err.value.rank == 1


def test_a_deadlock_is_killed_at_the_time_limit():
    def both_send_first():
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        comm.ssend(1, dest=(comm.Get_rank() + 1) % comm.Get_size())

    with pytest.raises(KernelTimeout, match="did not finish within 3 s"):
        call_once(both_send_first, ranks=2, timeout=3)
    assert mpi_leftovers() == []
