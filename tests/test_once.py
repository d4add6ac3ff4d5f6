"""A function called once on every rank of a fresh MPI job (engines.once): real mpiexec."""

import os

import numpy as np
import pytest

from conftest import mpi_leftovers
from hybridlab.engines.once import FunctionFailed, call_once
from hybridlab.errors import KernelError, KernelTimeout


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


# A sealed call (sealed=MODULES): the function reaches no frames, gc walks, ctypes, other
# programs, /proc or call folders; modules imported before the seal import again inside it.
def _tries(action):
    """What `action` (a name below) gives on a sealed rank: 'refused: ...' or what it returned."""

    def attempt():
        import gc
        import os
        import sys

        try:
            if action == "frame":
                return str(sys._getframe(1).f_locals.keys())
            if action == "traceback":
                try:
                    raise ValueError
                except ValueError as err:
                    return str(err.__traceback__.tb_frame.f_back)
            if action == "gc":
                return len(gc.get_objects())
            if action == "ctypes":
                import ctypes

                return ctypes.string_at(id(0), 8)
            if action == "proc":
                return open(f"/proc/{os.getppid()}/environ", "rb").read()[:10]
            if action == "symlink":  # /dev/fd is a link to /proc/self/fd
                return open("/dev/fd/0", "rb").read(1)
            if action == "rebound":  # what the hook could read rebound first: it reads none
                once = sys.modules["hybridlab.engines.once"]
                once.type, once.isinstance, once._PATH_EVENTS = (lambda _: None), (lambda *_: 0), ()
                os.path.realpath = os.path.normpath = lambda _: "/"
                os.fspath = lambda _: "/"
                return open("/proc/self/environ", "rb").read(10)
            if action == "folder":
                return os.listdir(sys.argv[1])
            if action == "native":  # native code without a ctypes event
                import cffi

                return str(cffi.FFI().dlopen(None))
            if action == "program":
                import subprocess

                return subprocess.run(["true"]).returncode
            if action == "imports":  # a right answer's imports, already imported: no file opened
                import itertools
                import time

                import numpy as np
                from mpi4py.util import pkl5

                return bool(pkl5 and np and time and itertools)
            if action == "environment":
                return os.environ.get("HL_ONCE_WATCH", "gone")
        except PermissionError as err:
            return f"refused: {err}"
        return None

    return attempt


@pytest.mark.parametrize(
    "action",
    [
        "frame",
        "traceback",
        "gc",
        "ctypes",
        "native",
        "proc",
        "symlink",
        "rebound",
        "folder",
        "program",
    ],
)
def test_a_sealed_rank_refuses_what_reaches_past_the_function(action):
    (got,) = call_once(_tries(action), ranks=1, timeout=30, sealed=("mpi4py.util.pkl5", "numpy"))
    assert str(got).startswith("refused: ") and "refused while a graded call runs" in got, got


def test_a_sealed_rank_imports_what_was_imported_and_keeps_no_watch_variable():
    sealed = ("mpi4py.util.pkl5", "numpy")
    assert call_once(_tries("imports"), ranks=1, timeout=30, sealed=sealed) == [True]
    (got, record), = call_once(_tries("environment"), ranks=1, timeout=30, sealed=sealed,
                               watch="hl_ring_watch")  # fmt: skip
    assert got == "gone" and record is not None


def test_a_function_that_raises_on_a_sealed_rank_still_gives_its_traceback():
    def fails():
        raise ValueError("sealed and failing")

    with pytest.raises(FunctionFailed, match="ValueError: sealed and failing"):
        call_once(fails, ranks=1, timeout=30, sealed=())


# The watch library (kernels_c/hl_ring_watch.c, LD_PRELOADed): real MPI below Python.
def test_the_watch_records_a_ring_in_c_and_ignores_a_record_forged_in_python():
    def forged_then_ring():
        import os
        import sys

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        with open(os.path.join(sys.argv[1], f"watch-{rank}"), "w") as f:  # not sealed: writable
            f.write("HLWATCH guessed\npid 1\nsent 0 1 2\ncarried 0 1 2\nreceived 9\nEND guessed\n")
        return comm.sendrecv(os.getpid(), dest=(rank + 1) % size, source=(rank - 1) % size)

    runs = call_once(forged_then_ring, ranks=3, timeout=30, watch="hl_ring_watch")
    pids = [int(record["pid"][0]) for _, record in runs]
    assert [value for value, _ in runs] == [pids[(r - 1) % 3] for r in range(3)]
    for rank, (_, record) in enumerate(runs):  # the library's record, written at MPI_Finalize
        right = str((rank + 1) % 3)
        assert record["sent"] == [right] and record["carried"] == [right], record
        assert record["received"] == ["1"] and record["open"] == ["0"] and record["refused"] == []


def test_a_record_framed_by_another_key_is_none(tmp_path):
    from hybridlab.engines.once import _read_record

    (tmp_path / "watch-0").write_text("HLWATCH abc\npid 7\nsent 1\nEND abc\n")
    assert _read_record(tmp_path / "watch-0", "abc") == {"pid": ["7"], "sent": ["1"]}
    assert _read_record(tmp_path / "watch-0", "other") is None
    assert _read_record(tmp_path / "watch-1", "abc") is None


def _send_first():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.send(os.getpid(), dest=(rank + 1) % size)  # eager: returns at once unless synchronous
    return comm.recv(source=(rank - 1) % size)


def test_the_watch_makes_sends_synchronous_so_a_send_first_ring_deadlocks():
    assert len(call_once(_send_first, ranks=2, timeout=30)) == 2  # unwatched: eager, it passes
    with pytest.raises(KernelTimeout, match="did not finish within 4 s"):
        call_once(_send_first, ranks=2, timeout=4, watch="hl_ring_watch")
    assert mpi_leftovers() == []


def test_the_watch_refuses_collectives_and_counts_requests_left_open():
    def gathers():
        import os

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        try:
            return comm.allgather(os.getpid())
        except MPI.Exception as err:
            return str(err)

    runs = call_once(gathers, ranks=2, timeout=30, watch="hl_ring_watch")
    for value, record in runs:
        assert "the ring is point to point, with no collective operation" in value
        assert record["refused"] and all(name.startswith("MPI_") for name in record["refused"])

    def leaks():
        import os

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        comm.isend(os.getpid(), dest=(rank + 1) % size)  # never waited
        return comm.recv(source=(rank - 1) % size)

    runs = call_once(leaks, ranks=2, timeout=30, watch="hl_ring_watch")
    assert [record["open"] for _, record in runs] == [["1"], ["1"]]


def test_the_watch_ends_a_job_whose_other_thread_calls_mpi():
    def threaded():
        import os
        import threading

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        sender = threading.Thread(target=comm.send, args=(os.getpid(),),
                                  kwargs={"dest": (rank + 1) % size})  # fmt: skip
        sender.start()
        got = comm.recv(source=(rank - 1) % size)
        sender.join()
        return got

    with pytest.raises(
        KernelError, match="called from a thread other than the one that initialised"
    ):
        call_once(threaded, ranks=2, timeout=20, watch="hl_ring_watch")
    assert mpi_leftovers() == []
