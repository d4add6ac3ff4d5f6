"""Right answers to lab 00 written another way: the CPUs gathered row by row or with pandas'
unique; the labels from a dictionary of masks per rank and thread; the crowding counted with
sets of pairs; the ring with a non-blocking receive posted first, or the even ranks sending
first (a safe order under synchronous sends)."""

from honest import right

HONEST = [
    # (a) cores_per_rank
    right("cores_per_rank", """
def cores_per_rank(records):
    seen = {}
    for rank, cpu in zip(records["rank"].tolist(), records["cpu"].tolist()):
        seen.setdefault(int(rank), set()).add(int(cpu))
    return {rank: sorted(cpus) for rank, cpus in seen.items()}
""", why="a dictionary of sets filled row by row"),
    right("cores_per_rank", """
import numpy as np


def cores_per_rank(records):
    per_rank = records.groupby("rank")["cpu"].unique()
    return {int(r): [int(c) for c in np.sort(cpus)] for r, cpus in per_rank.items()}
""", why="pandas' unique per rank, sorted with numpy"),
    # (b) classify_run
    right("classify_run", """
def classify_run(records, usable):
    masks = {}
    for rank, thread, cpus in zip(records["rank"], records["thread"], records["allowed_cpus"]):
        masks[(int(rank), int(thread))] = frozenset(int(c) for c in cpus)
    usable = set(usable)
    if len(masks) > len(usable):
        return "oversubscribed"
    ranks = {rank for rank, _ in masks}
    for rank in ranks:
        mine = [m for (r, _), m in masks.items() if r == rank]
        if len(frozenset().union(*mine)) < len(mine):  # fewer CPUs than threads
            return "piled"
    return "bound" if max(len(m) for m in masks.values()) < len(usable) else "unbound"


my_labels = {name: classify_run(run.records, list(topo.usable))
             for name, run in {"hello": hello, "unbound": unbound, "piled": piled, "spread": spread}.items()}
my_labels
""", why="a dictionary of masks per (rank, thread), the largest mask compared"),
    right("classify_run", """
def classify_run(records, usable):
    threads = records[["rank", "thread"]].drop_duplicates()
    if len(threads) > len(set(usable)):
        return "oversubscribed"
    allowed = records.groupby(["rank", "thread"])["allowed_cpus"].first()
    for rank in threads["rank"].unique():
        union = set()
        for cpus in allowed.loc[rank]:
            union |= set(cpus)
        if len(union) < len(allowed.loc[rank]):
            return "piled"
    narrow = all(len(set(c)) < len(set(usable)) for c in allowed)
    return "bound" if narrow else "unbound"


my_labels = {}
for name, run in (("hello", hello), ("unbound", unbound), ("piled", piled), ("spread", spread)):
    my_labels[name] = classify_run(run.records, list(topo.usable))
my_labels
""", why="the first mask of each (rank, thread) from a groupby, the labels in a loop"),
    # (c) piling_slowdown
    right("piling_slowdown", """
import statistics


def predicted_slowdown(piled, bound):
    def threads_per_cpu(records):
        pairs = set(zip(records["rank"], records["thread"]))
        cpus = set()
        for mask in records["allowed_cpus"]:
            cpus.update(mask)
        return max(1.0, len(pairs) / len(cpus))

    return threads_per_cpu(piled) / threads_per_cpu(bound)


slowdown = statistics.median(timed["one-core"].records["seconds"]) / statistics.median(
    timed["cores"].records["seconds"])
predicted = predicted_slowdown(piled.records, spread.records)
""", why="sets of (rank, thread) pairs, the statistics module's medians"),
    right("piling_slowdown", """
import numpy as np


def predicted_slowdown(piled, bound):
    ratio = []
    for records in (piled, bound):
        team = records.groupby(["rank", "thread"])["allowed_cpus"].first()
        cpus = {c for mask in team for c in mask}
        ratio.append(max(len(team) / len(cpus), 1.0))
    return ratio[0] / ratio[1]


_medians = {k: float(np.percentile(timed[k].records["seconds"], 50)) for k in ("one-core", "cores")}
slowdown = _medians["one-core"] / _medians["cores"]
predicted = predicted_slowdown(piled.records, spread.records)
""", why="a groupby of the masks, the medians as the 50th percentile"),
    # (d) ring_exchange
    right("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    me, n = comm.Get_rank(), comm.Get_size()
    incoming = comm.irecv(source=(me + n - 1) % n)  # posted before the send: no deadlock
    comm.send(os.getpid(), dest=(me + 1) % n)
    return incoming.wait()
""", why="a non-blocking receive posted first, then the send"),
    right("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    me, n = comm.Get_rank(), comm.Get_size()
    right_, left = (me + 1) % n, (me - 1) % n
    if me % 2 == 0:  # even ranks send first, odd ones receive first: safe with synchronous sends
        comm.send(os.getpid(), dest=right_)
        got = comm.recv(source=left)
    else:
        got = comm.recv(source=left)
        comm.send(os.getpid(), dest=right_)
    return got
""", why="even ranks send first, odd ranks receive first"),
    right("ring_exchange", '''
def ring_exchange():
    """Buffered mode: MPI_Bsend with an attached buffer is local (never waits for the receive)."""
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    buf = MPI.Attach_buffer(bytearray(1 << 16))
    try:
        comm.bsend(os.getpid(), dest=(rank + 1) % size, tag=3)
        got = comm.recv(source=(rank - 1) % size, tag=3)
    finally:
        MPI.Detach_buffer()
    return got
''', why="buffered mode with an attached buffer: local, safe with every other send synchronous"),
]

# A fresh attacker (attacker B, B00r4) found this right answer scored 0: the graded run handed the
# function a stand-in for MPI.COMM_WORLD that was no mpi4py communicator. It is now a subclass of
# the communicator's class on the same handle, and pkl5's classes are watched while it runs.
HONEST += [
    right("ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os

    from mpi4py import MPI
    from mpi4py.util import pkl5

    comm = MPI.COMM_WORLD
    c5 = pkl5.Intracomm(comm)  # pickle-5 out-of-band sends (large objects), same semantics
    rank, size = c5.Get_rank(), c5.Get_size()
    return c5.sendrecv(os.getpid(), dest=(rank + 1) % size, source=(rank - 1) % size)
""", why="fresh attacker (B00r4): mpi4py.util.pkl5.Intracomm(comm).sendrecv"),
    right("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI
    from mpi4py.util import pkl5

    c5 = pkl5.Intracomm(MPI.COMM_WORLD.Dup())
    rank, size = c5.Get_rank(), c5.Get_size()
    request = c5.isend(os.getpid(), dest=(rank + 1) % size)
    got = c5.recv(source=(rank - 1) % size)
    request.wait()
    return got
""", why="pkl5 on a duplicate of the communicator: isend, recv, then the request waited"),
    right("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    world = MPI.COMM_WORLD
    ring = world.Create_cart([world.Get_size()], periods=[True])
    left, right_ = ring.Shift(0, 1)
    return ring.sendrecv(os.getpid(), dest=right_, source=left)
""", why="a periodic Cartesian communicator, its neighbours from Shift"),
    right("ring_exchange", """
def ring_exchange():
    import os

    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    mine, theirs = np.array([os.getpid()], dtype=np.int64), np.zeros(1, dtype=np.int64)
    comm.Sendrecv([mine, MPI.INT64_T], dest=(rank + 1) % size, recvbuf=[theirs, MPI.INT64_T],
                  source=(rank - 1) % size)
    return int(theirs[0])
""", why="buffers: numpy arrays of one int64 through the upper-case Sendrecv"),
    right("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    got = comm.sendrecv({"pid": str(os.getpid())}, dest=(rank + 1) % size, source=(rank - 1) % size)
    return int(got["pid"])
""", why="the id sent as text inside a dict"),
]

# Right once the graded run saw MPI below Python (issue 36, kernels_c/hl_ring_watch.c): a
# method called through its class on the communicator's handle (attacker B's B00r5) was out of
# the Python watch's sight and scored nothing; the interposer sees its messages as any other.
HONEST += [
    right("ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return MPI.Comm.sendrecv(comm, os.getpid(), dest=(rank + 1) % size, source=(rank - 1) % size)
""", why="a sendrecv called through the class on the communicator (B00r5)"),
]

# Fresh attacker A15's right answers (issue 36): they keep their points with the ranks sealed and
# their MPI calls seen by the kit's interposer (kernels_c/hl_ring_watch.c).
HONEST += [
    right("ring_exchange", '\ndef ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    import numpy as np\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    mine = np.array([os.getpid()], dtype=np.int64)\n    got = np.zeros(1, dtype=np.int64)\n    reqs = [comm.Irecv([got, MPI.INT64_T], source=(rank - 1) % size, tag=7),\n            comm.Isend([mine, MPI.INT64_T], dest=(rank + 1) % size, tag=7)]\n    MPI.Request.Waitall(reqs)\n    return int(got[0])\n',
          why='fresh attacker A15 (r1): isend and irecv, then MPI.Request.waitall'),
    right("ring_exchange", '\ndef ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    ring = comm.Create_cart([comm.Get_size()], periods=[True], reorder=False)\n    left, right = ring.Shift(0, 1)\n    got = ring.sendrecv(os.getpid(), dest=right, sendtag=3, source=left, recvtag=3)\n    ring.Free()\n    return got\n',
          why="fresh attacker A15 (r2): a periodic Cartesian communicator's Shift"),
    right("ring_exchange", '\ndef ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    buf = bytearray(1 << 16)\n    MPI.Attach_buffer(buf)\n    try:\n        comm.bsend(os.getpid(), dest=(rank + 1) % size, tag=11)\n        got = comm.recv(source=(rank - 1) % size, tag=11)\n    finally:\n        MPI.Detach_buffer()\n    return got\n',
          why='fresh attacker A15 (r3): a buffered send with an attached buffer'),
    right("ring_exchange", '\ndef ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    right, left = (rank + 1) % size, (rank - 1) % size\n    if rank == 0:\n        comm.ssend(os.getpid(), dest=right)\n        got = comm.recv(source=left)\n    else:\n        got = comm.recv(source=left)\n        comm.ssend(os.getpid(), dest=right)\n    return got\n',
          why='fresh attacker A15 (r4): a chain: rank 0 sends first, every other rank receives first'),
    right("ring_exchange", '\ndef ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n    import array\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    out, into = array.array("q", [os.getpid()]), array.array("q", [0])\n    req = comm.Isendrecv([out, MPI.INT64_T], (rank + 1) % size, 5, [into, MPI.INT64_T], (rank - 1) % size, 5)\n    req.Wait()\n    return into[0]\n',
          why='fresh attacker A15 (r5): MPI-4 Isendrecv on buffers, waited'),
]
