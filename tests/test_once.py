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
def test_the_watch_streams_a_ring_in_c_and_a_line_forged_in_python_spoils_the_record():
    runs = call_once(ring, ranks=3, timeout=30, watch="hl_ring_watch")
    pids = [int(record["pid"][0]) for _, record in runs]
    assert [pid for (_, pid), _ in runs] == pids  # the kernel's pid, read at MPI_Init
    assert [value for (value, _), _ in runs] == [pids[(r - 1) % 3] for r in range(3)]
    for rank, (_, record) in enumerate(runs):  # rebuilt from the lines streamed at each call
        right = str((rank + 1) % 3)
        assert record["sent"] == [right] and record["carried"] == [right], record
        assert record["received"] == ["1"] and record["open"] == ["0"] and record["refused"] == []

    def forged_then_ring():
        import os
        import sys

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        with open(os.path.join(sys.argv[1], f"watch-{rank}"), "a") as f:  # not sealed: reachable
            f.write("guessed send 0 1\nguessed recv 0\nguessed END\n")
        return comm.sendrecv(os.getpid(), dest=(rank + 1) % size, source=(rank - 1) % size)

    runs = call_once(forged_then_ring, ranks=3, timeout=30, watch="hl_ring_watch")
    assert [record for _, record in runs] == [None] * 3  # a line not framed by the key: no record


def test_a_record_is_rebuilt_from_its_event_lines(tmp_path):
    from hybridlab.engines.once import _read_record

    def record(*lines, key="k"):
        (tmp_path / "watch-0").write_text("".join(f"{key} {line}\n" for line in lines))
        return _read_record(tmp_path / "watch-0", "k")

    got = record("begin 7 0 4 1", "send 1 1", "start a1 2 0", "start a2 1 0", "done a1",
                 "recv 3", "recv -1", "init b1 3", "pstart b1 1", "done b1", "freed a2",
                 "start a3 1 0", "refused MPI_Bcast", "refused MPI_Bcast", "END")  # fmt: skip
    assert got == {"pid": ["7"], "rank": ["0"], "size": ["4"], "received": ["1"], "open": ["2"],
                   "sent": ["1", "2", "3"], "carried": ["1", "3"], "refused": ["MPI_Bcast"],
                   "guarded": ["1"]}  # fmt: skip
    assert record("begin 7 0 2 1", "start a1 1 1", "done a1", "END")["open"] == ["0"]
    assert record("begin 7 0 2 1", "start a1 1 1", "freed a1", "done a1", "END")["open"] == ["1"]
    assert record("begin 7 0 2 1", "pstart c1 1", "END")["sent"] == ["-1"]  # no init: no rank
    assert record("begin 7 0 2 1", "send 1 1") is None  # no END: the run's record incomplete
    assert record("begin 7 0 2 0", "END")["guarded"] == ["0"]  # read as the tracer's unguarded stream
    assert record("begin 7 0 2 1", "END", key="other") is None
    assert record("begin 7 0 2 1", "send 1 1", "mystery 1", "END") is None
    assert record("begin 7 0 2 1", "END", "begin 7 0 2 1", "END") is None
    assert _read_record(tmp_path / "watch-9", "k") is None


def test_the_record_descriptor_refuses_python_and_a_rank_starts_no_program():
    def writes_and_execs():
        import errno
        import os

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        got = comm.sendrecv(os.getpid(), dest=(comm.rank + 1) % comm.size,
                            source=(comm.rank - 1) % comm.size)  # fmt: skip
        refused = []
        for fd in range(900, 1024):  # written, replaced, closed, truncated: EPERM on the record's
            for action in (os.write, os.dup2, os.close, os.ftruncate):
                try:
                    if action is os.close:
                        action(fd)
                    else:
                        action(*{os.write: (fd, b"k END\n"), os.dup2: (0, fd)}.get(action, (fd, 0)))
                except OSError as err:
                    if err.errno == errno.EPERM:
                        refused.append(fd)
                    continue
        try:
            os.execv("/bin/true", ["true"])  # not sealed: no audit hook, the kernel refuses
        except OSError as err:
            refused.append(err.errno)
        return got, sorted(set(refused))

    runs = call_once(writes_and_execs, ranks=2, timeout=30, watch="hl_ring_watch")
    for rank, ((_, refused), record) in enumerate(runs):
        assert len(refused) == 2 and refused[0] == 1 and refused[1] >= 900, refused  # EPERM, fd
        assert record is not None and record["sent"] == [str(1 - rank)], record
    with pytest.raises(FunctionFailed, match="import _posixsubprocess: refused"):
        call_once(lambda: __import__("_posixsubprocess"), ranks=1, timeout=30, sealed=("numpy",))


def test_the_watch_streams_persistent_and_combined_sends_and_their_completions():
    def rings():
        import array
        import os

        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        right, left = (rank + 1) % size, (rank - 1) % size
        out, into = array.array("q", [0]), array.array("q", [0])
        sends = comm.Send_init(out, dest=right, tag=1)  # persistent: its destination at init
        recvs = comm.Recv_init(into, source=left, tag=1)
        out[0] = os.getpid()
        got = []
        for _ in range(2):
            MPI.Prequest.Startall([recvs, sends])
            MPI.Request.Waitany([sends])
            recvs.Wait()
            got.append(into[0])
        sends.Free()
        recvs.Free()
        req = comm.Isendrecv(out, right, 2, into, left, 2)  # the send half waited with it
        req.Test() or req.Wait()
        got.append(into[0])
        return got

    runs = call_once(rings, ranks=2, timeout=30, watch="hl_ring_watch")
    pids = [int(record["pid"][0]) for _, record in runs]
    for rank, (got, record) in enumerate(runs):
        assert got == [pids[1 - rank]] * 3
        assert record["sent"] == [str(1 - rank)] and record["carried"] == [str(1 - rank)], record
        assert record["received"] == ["3"] and record["open"] == ["0"], record


def _rewrites_the_watch_memory():
    """A16's forge (tests/gaming/00_getting_started.py): no message between ranks; the watch
    library's writable memory found through mpi4py's GOT with raw memory access (no ctypes),
    every byte two exchanges with itself changed there put back, the pids moved by RMA."""
    import array
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()

    def mem(addr, n):
        return MPI.buffer.fromaddress(addr, n, readonly=False)

    def u(addr, n):
        return int.from_bytes(bytes(mem(addr, n)), "little")

    def elf_base(addr):
        p = addr & ~0xFFF
        while bytes(mem(p, 4)) != b"\x7fELF":
            p -= 0x1000
        return p

    def phdrs(base):
        off, num = u(base + 0x20, 8), u(base + 0x38, 2)
        return [(u(base + off + i * 56, 4), u(base + off + i * 56 + 4, 4),
                 u(base + off + i * 56 + 16, 8), u(base + off + i * 56 + 40, 8))
                for i in range(num)]  # fmt: skip

    base = elf_base(u(u(id(MPI.Get_version) + 16, 8) + 8, 8))
    d = base + [h for h in phdrs(base) if h[0] == 2][0][2]
    info = {}
    while u(d, 8) != 0:
        info.setdefault(u(d, 8), u(d + 8, 8))
        d += 16
    fix = lambda v: v if v >= base else v + base  # noqa: E731
    symtab, strtab = fix(info[6]), fix(info[5])
    target = None
    for start, sz in ((info.get(23), info.get(2)), (info.get(7), info.get(8))):
        for k in range((sz or 0) // 24 if start and not target else 0):
            r = fix(start) + 24 * k
            sym = u(r + 8, 8) >> 32
            name = bytes(mem(strtab + u(symtab + 24 * sym, 4), 64)).split(b"\0")[0]
            if sym and name == b"MPI_Init_thread":
                target = u(base + u(r, 8), 8)
                break
    wbase = elf_base(target)
    rw = [h for h in phdrs(wbase) if h[0] == 1 and h[1] & 2][0]
    seg = (wbase + rw[2] + 7) & ~7
    view = mem(seg, (wbase + rw[2] + rw[3] - seg) & ~7)
    before = bytes(view)
    for value in (0, os.getpid()):  # a message to itself (the lines it streams stay)
        got = array.array("q", [0])
        reqs = [
            comm.Irecv(got, source=rank, tag=9),
            comm.Isend(array.array("q", [value]), dest=rank, tag=9),
        ]
        MPI.Request.Waitall(reqs)
    after = bytes(view)
    for i in range(len(before)):
        if before[i] != after[i]:
            view[i] = before[i]
    box = array.array("q", [0])
    win = MPI.Win.Create(box, comm=comm)
    win.Fence()
    win.Put(array.array("q", [os.getpid()]), (rank + 1) % size)
    win.Fence()
    win.Free()
    return int(box[0])


def test_a_rank_that_rewrites_the_watch_memory_cannot_forge_a_ring():
    runs = call_once(_rewrites_the_watch_memory, ranks=2, timeout=30,
                     sealed=("mpi4py.MPI", "numpy", "array"), watch="hl_ring_watch")  # fmt: skip
    for rank, (_, record) in enumerate(runs):  # the sends to itself stay in the stream
        assert record is not None and record["sent"] == [str(rank)], record
        assert record["carried"] == [str(rank)] and record["received"] == ["2"], record


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
