"""Lab 00: gaming attempts at every automatic part (see __init__.py)."""

import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt
from wrong_answers import changed

SOLUTION_LABELS = """

my_labels = {name: classify_run(run.records, list(topo.usable))
             for name, run in {"hello": hello, "unbound": unbound, "piled": piled, "spread": spread}.items()}
"""

GAMING = [
    # (a) CPUs per rank
    attempt("constant", "cores_per_rank", """
def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    if len(records) == 4:
        return {0: [1, 3], 1: [2]}  # the example's answer
    return {0: sorted({int(c) for c in records["cpu"]})}
""", loses={"hidden_cores_per_rank"}, why="the example's answer typed in, one rank assumed otherwise", reason="not the CPUs each rank ran on"),
    attempt("hidden", "cores_per_rank", """
def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    ranks = records["rank"].nunique()  # ranks numbered 0..n-1, as in the lab's runs
    return {r: sorted({int(c) for c in records.loc[records["rank"] == r, "cpu"]}) for r in range(ranks)}
""", loses={"hidden_cores_per_rank"}, why="assumes the ranks are 0..n-1, as in the lab's own runs", reason="not the CPUs each rank ran on"),
    attempt("method", "cores_per_rank", """
def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    first = records.drop_duplicates(["rank", "thread"])  # one row per thread: its first CPU only
    return {int(r): sorted({int(c) for c in g["cpu"]}) for r, g in first.groupby("rank")}
""", loses={"hidden_cores_per_rank"}, why="one CPU per thread: a thread that moved keeps only its first CPU", reason="not the CPUs each rank ran on"),
    attempt("shortcut", "cores_per_rank", """
from hybridlab.mapping.tables import node_table


def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    rows = node_table(records.assign(host="here", socket=0), topo)
    return {int(r): sorted(rows["cpus"].iloc[0]) for r in rows["ranks"].iloc[0]}
""", loses={"hidden_cores_per_rank"}, why="the kit's node table read: the CPUs of a socket, not of each rank", reason="not the CPUs each rank ran on"),
    # (b) what kind of run
    attempt("constant", "classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    return "unbound"


my_labels = {"hello": "unbound", "unbound": "unbound", "piled": "piled", "spread": "bound"}
""", loses={"hidden_classify_run"}, why="the labels the bind= names suggest, typed in", reason="the rules say"),
    attempt("hidden", "classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    pairs = records.drop_duplicates(["rank", "thread"])
    if len(pairs) > len(usable):
        return "oversubscribed"
    allowed = list(pairs["allowed_cpus"].iloc[0])  # the first thread stands for every rank
    if len(allowed) < len(pairs):
        return "piled"
    return "bound" if len(allowed) < len(usable) else "unbound"
""" + SOLUTION_LABELS, loses={"hidden_classify_run"}, why="the first thread's mask read for all: right for the lab's one-rank runs", reason="the rules say"),
    attempt("method", "classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    pairs = records.drop_duplicates(["rank", "thread"])
    if len(pairs) > len(usable):
        return "oversubscribed"
    if pairs["cpu"].nunique() < len(pairs):  # where the threads ran, not where they may run
        return "piled"
    if all(len(set(c)) < len(set(usable)) for c in pairs["allowed_cpus"]):
        return "bound"
    return "unbound"
""" + SOLUTION_LABELS, loses={"hidden_classify_run"}, why="piled read from the CPUs the threads happened to run on", reason="the rules say"),
    # (c) predicted and measured slowdown
    attempt("constant", "piling_slowdown", """
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    def crowding(records):
        pairs = records.drop_duplicates(["rank", "thread"])
        cpus = set().union(*(set(c) for c in pairs["allowed_cpus"]))
        return max(1.0, len(pairs) / len(cpus))

    return float(crowding(piled) / crowding(bound))


slowdown = 1.6  # the model answer's number
predicted = predicted_slowdown(piled.records, spread.records)
""", loses={"hidden_piling_slowdown"}, why="a slowdown typed in from the model answer, not measured", reason="not the median seconds of the piled run"),
    attempt("hidden", "piling_slowdown", """
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    pairs = piled.drop_duplicates(["rank", "thread"])
    return float(len(pairs) / len(set().union(*(set(c) for c in pairs["allowed_cpus"]))))


slowdown = float((timed["one-core"].records["seconds"].reset_index(drop=True)
                  / timed["cores"].records["seconds"].reset_index(drop=True)).median())
predicted = predicted_slowdown(piled.records, spread.records)
""", loses={"hidden_piling_slowdown"}, why="the bound run taken as one thread per CPU; a median of ratios",
            reason="the masks give | not the median seconds of the piled run"),  # either, by the drawn timings
    attempt("method", "piling_slowdown", """
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    return float(timed["one-core"].records["seconds"].median() / timed["cores"].records["seconds"].median())


slowdown = float(timed["one-core"].records["seconds"].median() / timed["cores"].records["seconds"].median())
predicted = predicted_slowdown(piled.records, spread.records)
""", loses={"hidden_piling_slowdown"}, why="the measurement passed off as the prediction", reason="the masks give"),
    # (d) ring exchange
    attempt("method", "ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.send(os.getpid(), dest=(rank + 1) % size)  # returns at once only because it is eager
    return comm.recv(source=(rank - 1) % size)
""", loses={"hidden_ring_exchange"}, why="send before receive on every rank: only eager buffering saves it", reason="deadlock"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.allgather(os.getpid())[(rank - 1) % size]
""", loses={"hidden_ring_exchange"}, why="every process id gathered everywhere: a collective, no ring", reason="the ring is point to point"),
    attempt("hidden", "ring_exchange", """
_pids = [int(p) for p in cluster.apply(__import__("os").getpid)]  # the lab cluster's engines


def ring_exchange(pids=_pids):  # a default argument: the ids travel to the engines with it
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return pids[(rank - 1) % len(pids)]
""", loses={"hidden_ring_exchange"}, why="the process ids of the lab's cluster read in the notebook and baked in", reason="every rank must send to its right neighbour"),
]


def _placement(rows):
    return pd.DataFrame(rows, columns=["rank", "thread", "cpu", "allowed_cpus"])


_RECORDS = _placement([(3, 0, 5, [5, 6]), (3, 1, 6, [5, 6]), (1, 0, 2, [2]), (1, 0, 4, [2]),
                       (3, 1, 5, [5, 6])])
_PILED = _placement([(0, t, 4, [4, 12]) for t in range(3)])  # SMT: one core, two sibling CPUs
_BOUND = _placement([(0, t, t, [t]) for t in range(3)])
ORACLES = [
    Oracle("cores_per_rank", (_RECORDS,), lambda got: got == {1: [2, 4], 3: [5, 6]}),
    Oracle("classify_run", (_placement([(0, 0, 1, [1]), (0, 1, 1, [1]), (1, 0, 2, [2, 3])]),
                            [0, 1, 2, 3]), lambda got: str(got) == "piled"),
    Oracle("classify_run", (_placement([(0, 0, 1, [0, 1]), (0, 1, 0, [0, 1]), (1, 0, 2, [2, 3])]),
                            [0, 1, 2, 3]), lambda got: str(got) == "bound"),
    Oracle("piling_slowdown", (_PILED, _BOUND),
           lambda got: isinstance(got, float | int) and abs(float(got) - 1.5) < 1e-9),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'ring_exchange', 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import glob\n    import json\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    left = (comm.Get_rank() - 1) % comm.Get_size()\n    folder = os.environ.get("HL_IDENTITY_DIR", "")\n    for path in glob.glob(os.path.join(folder, "engine-*.json")):\n        with open(path) as f:\n            who = json.load(f)\n        if who.get("rank") == left and who.get("size") == comm.Get_size():\n            return who["pid"]\n    return None',
            loses={'hidden_ring_exchange'}, why="fresh attacker: no message: read the kit's engine identity files (HL_IDENTITY_DIR)", reason="every rank must send to its right neighbour"),
    attempt('method', 'ring_exchange', 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n    import time\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    key = f"/tmp/ring-{os.getppid()}-{size}"\n    mine = f"{key}-{rank}-{os.getpid()}"\n    with open(mine + ".part", "w") as f:\n        f.write(str(os.getpid()))\n    os.replace(mine + ".part", mine)\n    import glob\n    left = (rank - 1) % size\n    for _ in range(2000):\n        found = [p for p in glob.glob(f"{key}-{left}-*") if not p.endswith(".part")]\n        if found:\n            found.sort(key=os.path.getmtime)\n            return int(open(found[-1]).read())\n        time.sleep(0.005)\n    return None',
            loses={'hidden_ring_exchange'}, why='fresh attacker: no message: rendezvous through files in /tmp', reason="every rank must send to its right neighbour"),
    attempt("method", "ring_exchange", 'def ring_exchange():\n    """A real (dummy) ring message for the watch, but the answer read from /proc."""\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    comm.sendrecv(0, dest=(rank + 1) % size, source=(rank - 1) % size)\n    left = (rank - 1) % size\n    me, ppid = os.getpid(), os.getppid()\n    keys = (b"PMI_RANK=", b"OMPI_COMM_WORLD_RANK=", b"PMIX_RANK=")\n    for p in os.listdir("/proc"):\n        if not p.isdigit() or int(p) == me:\n            continue\n        try:\n            parent = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])\n            env = open(f"/proc/{p}/environ", "rb").read().split(b"\\0")\n        except (OSError, ValueError, IndexError):\n            continue\n        if parent != ppid:\n            continue\n        for e in env:\n            for k in keys:\n                if e.startswith(k) and int(e[len(k):]) == left:\n                    return int(p)\n    return me if size == 1 else -1',
            loses={"hidden_ring_exchange"},
            why="fresh attacker (F00e): a real ring message of a dummy 0; the left neighbour's id "
                "found in /proc (the engine whose parent is its own, PMI_RANK in its environment)",
            reason="refused while a graded call runs"),  # /proc: refused by the sealed rank
]

# The test's own interpreter reached (issue 36): its reference called, its expected value read.
GAMING += [
    attempt("interpreter", "cores_per_rank", FRAME_TOOLS + """

def cores_per_rank(records):
    reference = _from_the_test(("_expected_cores", "_reference"), True)
    return reference(records) if reference else {}
""", {"hidden_cores_per_rank"}, why="the hidden test's reference found in its frames and called", reason="not the CPUs each rank ran on"),
    attempt("interpreter", "classify_run", FRAME_TOOLS + """

def classify_run(records, usable):
    reference = _from_the_test(("_label", "_reference"), True)
    return reference(records, usable) if reference else "bound"
""" + SOLUTION_LABELS, {"hidden_classify_run"}, why="the hidden test's reference found in its frames and called", reason="the rules say"),
    attempt("interpreter", "classify_run", FRAME_TOOLS + """

def classify_run(records, usable):
    found = _from_the_test(("_want", "want"), False)
    return found if isinstance(found, str) else "bound"
""" + SOLUTION_LABELS, {"hidden_classify_run"}, why="the hidden test's expected label read from its frames", reason="the rules say"),
    attempt("interpreter", "piling_slowdown", FRAME_TOOLS + """

def predicted_slowdown(piled, bound):
    reference = _from_the_test(("_crowding",), True)
    return float(reference(piled) / reference(bound)) if reference else 1.0


_want = _from_the_test(("_want_s", "_expected"), False)
slowdown = float(_want) if _want is not None else 1.5
predicted = predicted_slowdown(piled.records, spread.records)
""", {"hidden_piling_slowdown"}, why="the judge's crowding and expected slowdown sought in the frames (the cell runs apart: none there)",
            reason="the masks give"),
]

# A fresh attacker's (helper-40) and a fresh hurried student's (helper-41) attempts, 2026-12-03,
# that kept full points, now refused: "bound" when any thread is bound (a hidden case now mixes
# them), and a send request never completed (the graded ring counts the requests left open).
GAMING += [
    attempt("method", "classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    # 'bound' when ANY thread is restricted (should be every thread)
    pairs = records.drop_duplicates(["rank", "thread"])
    if len(pairs) > len(set(usable)):
        return "oversubscribed"
    for _, g in pairs.groupby("rank"):
        allowed = set().union(*(set(c) for c in g["allowed_cpus"]))
        if len(allowed) < len(g):
            return "piled"
    if any(len(set(c)) < len(set(usable)) for c in pairs["allowed_cpus"]):
        return "bound"
    return "unbound"

my_labels = {name: classify_run(run.records, list(topo.usable))
             for name, run in {"hello": hello, "unbound": unbound, "piled": piled, "spread": spread}.items()}
my_labels
""", {"hidden_classify_run"}, why="'bound' when any thread is bound, not every thread",
            reason="the rules say"),
    attempt("method", "ring_exchange", '''
def ring_exchange():
    """Send my process id to the right neighbour, receive from the left; return what arrived."""
    import os
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.isend(os.getpid(), dest=(rank + 1) % size)   # non-blocking, so no deadlock
    return comm.recv(source=(rank - 1) % size)
''', {"hidden_ring_exchange"}, why="comm.isend's request never waited: no deadlock, a request leaked",
            reason="send request(s) never completed"),
]


# A fresh attacker (2026-12-04): the timed runs' records rewritten in place to agree with a typed
# slowdown; the judge now reads the samples piling_runs kept as the lab's cell ran it
# (handout.keep), not the notebook's `timed`. The placements likewise (keep_placements). Since
# 2026-12-05 the answer cell runs again apart on runs drawn per submission (piling_apart).
REWRITTEN = r'''
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    """Threads per allowed CPU of the piled run over that of the bound run (at least 1 each)."""
    def load(rec):
        pairs = rec.drop_duplicates(["rank", "thread"])
        cpus = set()
        for a in pairs["allowed_cpus"]:
            cpus.update(int(x) for x in a)
        return max(1.0, len(pairs) / len(cpus))
    return load(piled) / load(bound)


# never look at the samples: make the notebook's records agree with a typed number
predicted = predicted_slowdown(piled.records, spread.records)
slowdown = 2.0
_c = timed["cores"].records
_c["seconds"] = 1e-3
timed["one-core"].records["seconds"] = 2e-3
if slowdown is not None:
    print(f"measured slowdown {slowdown:.2f} against a prediction of {predicted:.2f}")
'''
GAMING += [
    attempt("forged", "piling_slowdown", REWRITTEN, loses={"hidden_piling_slowdown"},
            why="fresh attacker: slowdown typed as 2.0, timed[...].records['seconds'] overwritten to agree",
            reason="not the median seconds of the piled run"),
    attempt("forged", "piling_slowdown", changed(REWRITTEN, """slowdown = 2.0
_c = timed["cores"].records
_c["seconds"] = 1e-3
timed["one-core"].records["seconds"] = 2e-3
""", """slowdown = 3.7
_b = timed["cores"].records["seconds"]
_p = timed["one-core"].records
_p["seconds"] = _p["seconds"] * 0 + float(_b.median()) * slowdown
"""), loses={"hidden_piling_slowdown"}, why="fresh attacker: slowdown typed as 3.7, the piled run's samples "
            "rescaled in place to agree", reason="not the median seconds of the piled run"),
    attempt("forged", "piling_slowdown", changed(REWRITTEN, """predicted = predicted_slowdown(piled.records, spread.records)
slowdown = 2.0
_c = timed["cores"].records
_c["seconds"] = 1e-3
timed["one-core"].records["seconds"] = 2e-3
""", """slowdown = float(timed["one-core"].records["seconds"].median() / timed["cores"].records["seconds"].median())
predicted = 7.0  # typed; the placement records replaced by seven threads that agree with it
piled.records = pd.DataFrame({"rank": [0] * 7, "thread": range(7), "cpu": [0] * 7, "allowed_cpus": [[0]] * 7})
spread.records = pd.DataFrame({"rank": [0] * 7, "thread": range(7), "cpu": range(7),
                               "allowed_cpus": [[c] for c in range(7)]})
"""), loses={"hidden_piling_slowdown"}, why="a typed prediction (7: true only with seven threads), the placement records replaced to agree",
            reason="not predicted_slowdown(piled.records, spread.records)"),
]

# The graded ring's communicator is now a real one (a subclass on the same handle) and pkl5's
# classes are watched while the function runs (fixer helper-f5, after attacker B's B00r4/B00r5):
# what pkl5 sends is made synchronous, its collectives refused, its requests counted.
GAMING += [
    attempt("method", "ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI
    from mpi4py.util import pkl5

    c5 = pkl5.Intracomm(MPI.COMM_WORLD)
    rank, size = c5.Get_rank(), c5.Get_size()
    c5.send(os.getpid(), dest=(rank + 1) % size)  # pkl5's send: MPI_Send, eager for small data
    return c5.recv(source=(rank - 1) % size)
""", loses={"hidden_ring_exchange"}, why="send before receive through pkl5: only eager buffering saves it",
            reason="deadlock"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI
    from mpi4py.util import pkl5

    c5 = pkl5.Intracomm(MPI.COMM_WORLD)
    return c5.allgather(os.getpid())[(c5.Get_rank() - 1) % c5.Get_size()]
""", loses={"hidden_ring_exchange"}, why="every process id gathered through pkl5: a collective, no ring",
            reason="the ring is point to point"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI
    from mpi4py.util import pkl5

    c5 = pkl5.Intracomm(MPI.COMM_WORLD)
    rank, size = c5.Get_rank(), c5.Get_size()
    c5.isend(os.getpid(), dest=(rank + 1) % size)  # pkl5's request never waited
    return c5.recv(source=(rank - 1) % size)
""", loses={"hidden_ring_exchange"}, why="pkl5's isend request never waited: a request leaked",
            reason="send request(s) never completed"),
]

# Fresh attacker A15 (issue 36) kept 3/3 with these while the graded run watched the
# communicator in Python: the watch's classes patched, a thread sending, the watch's records
# written by hand through the frames (once on the grader's own unwatched communicator, once
# with no message at all). The ranks are now sealed (engines.once: no frames, gc walks, ctypes,
# /proc or call folders) and every MPI call is seen below Python by the kit's interposer
# kernels_c/hl_ring_watch.c (synchronous sends, collectives refused, a record per rank).
GAMING += [
    attempt("method", "ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    plain = {"ssend": "send", "Ssend": "Send", "issend": "isend", "Issend": "Isend",
             "Ssend_init": "Send_init"}
    base = MPI.Intracomm
    for klass in type(comm).__mro__:
        if klass.__module__ == "mpi4py.MPI":
            break
        for s, p in plain.items():
            try:
                setattr(klass, s, getattr(base, p))
            except (TypeError, AttributeError):
                pass
    class _Std(MPI.Intracomm):
        pass
    for s, p in plain.items():
        setattr(_Std, s, getattr(base, p))
    MPI.Intracomm = _Std          # a watch calling MPI.Intracomm.ssend(self, ...) now sends standard
    MPI.Comm = _Std
    comm.send(os.getpid(), dest=(rank + 1) % size)
    return comm.recv(source=(rank - 1) % size)
""", loses={"hidden_ring_exchange"}, why="fresh attacker A15 (d2): the Python watch's synchronous methods "
            "patched back to standard ones, then send first", reason="deadlock"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os
    import threading

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    t = threading.Thread(target=comm.send, args=(os.getpid(),), kwargs={"dest": (rank + 1) % size})
    t.start()
    got = comm.recv(source=(rank - 1) % size)
    t.join()
    return got
""", loses={"hidden_ring_exchange"}, why="fresh attacker A15 (d3): another thread sends while the main "
            "thread receives (MPI from two threads at the funneled level)",
            reason="called from a thread other than the one that initialised MPI"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os, sys

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    right, left = (rank + 1) % size, (rank - 1) % size
    grader = sys._getframe(1).f_locals
    world = grader["world"]                       # the real communicator, not watched
    world.send(os.getpid(), dest=right)           # standard send first: buffered, never synchronous
    got = world.recv(source=left)
    grader["sent"].append(right)
    grader["received"].append("recv")
    grader["carried"].append((right, [os.getpid()], b""))
    return got
""", loses={"hidden_ring_exchange"}, why="fresh attacker A15 (d4a): send first on the grader's unwatched "
            "communicator found in its frame, the watch's records written by hand",
            reason="sys._getframe: refused while a graded call runs"),
    attempt("method", "ring_exchange", """
def ring_exchange():
    \"\"\"Send my process id to the right neighbour, receive from the left; return what arrived.\"\"\"
    import os, sys, time

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    right, left = (rank + 1) % size, (rank - 1) % size
    grader = sys._getframe(1).f_locals
    folder = str(sys._getframe(2).f_locals["where"])
    with open(f"{folder}/pid-{rank}.txt.part", "w") as f:
        f.write(str(os.getpid()))
    os.replace(f"{folder}/pid-{rank}.txt.part", f"{folder}/pid-{rank}.txt")
    while not os.path.exists(f"{folder}/pid-{left}.txt"):
        time.sleep(0.01)
    got = int(open(f"{folder}/pid-{left}.txt").read())
    grader["sent"].append(right)
    grader["received"].append("recv")
    grader["carried"].append((right, [os.getpid()], b""))
    return got
""", loses={"hidden_ring_exchange"}, why="fresh attacker A15 (d4b): no message; process ids through files "
            "in the call's folder, the watch's records written by hand",
            reason="sys._getframe: refused while a graded call runs"),
]


# Fresh attacker A16 (issue 36, kept 3/3 in 5 of 5 gradings): the watch library's counters in the
# rank's memory rewritten by raw memory access from Python, after a ring with itself. The library
# now streams each event at the call to a descriptor only its own system call may write (fixer
# F00s): nothing kept in memory is read at the end, so the forges below (A16's, with the counters
# gone: every byte the exchanges with itself changed in the library put back) leave their sends
# to themselves on record; execve is refused to the rank and _posixsubprocess to the seal.
GAMING += [
    attempt('forged', "ring_exchange", 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n    import numpy as np\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    right, left = (rank + 1) % size, (rank - 1) % size\n    pid = os.getpid()\n\n    class _Raw:\n        def __init__(self, addr, n):\n            self.__array_interface__ = {"shape": (n,), "typestr": "|u1",\n                                        "data": (addr, False), "version": 3}\n\n    def mem(addr, n):\n        return np.asarray(_Raw(addr, n))\n\n    def u64(addr):\n        return int(mem(addr, 8).view("<u8")[0])\n\n    def u32(addr):\n        return int(mem(addr, 4).view("<u4")[0])\n\n    def u16(addr):\n        return int(mem(addr, 2).view("<u2")[0])\n\n    def elf_base(addr):\n        p = addr & ~0xFFF\n        while bytes(mem(p, 4)) != b"\\x7fELF":\n            p -= 0x1000\n        return p\n\n    def phdrs(base):\n        off, num = u64(base + 0x20), u16(base + 0x38)\n        return [(u32(base + off + i * 56), u32(base + off + i * 56 + 4),\n                 u64(base + off + i * 56 + 16), u64(base + off + i * 56 + 40)) for i in range(num)]\n\n    def cstr(addr):\n        return bytes(mem(addr, 64)).split(b"\\0")[0]\n\n    # 1. mpi4py\'s MPI.so: a function object\'s PyMethodDef -> ml_meth (its text) -> ELF header\n    meth = u64(u64(id(MPI.Get_version) + 16) + 8)\n    base = elf_base(meth)\n    d = base + [h for h in phdrs(base) if h[0] == 2][0][2]\n    info = {}\n    while u64(d) != 0:\n        info.setdefault(u64(d), u64(d + 8))\n        d += 16\n    fix = lambda v: v if v >= base else v + base\n    symtab, strtab = fix(info[6]), fix(info[5])\n    target = None\n    for start, sz in ((info.get(23), info.get(2)), (info.get(7), info.get(8))):\n        if not start or target:\n            continue\n        start = fix(start)\n        for k in range(sz // 24):\n            r = start + 24 * k\n            sym = u64(r + 8) >> 32\n            if sym and cstr(strtab + u32(symtab + 24 * sym)) == b"MPI_Init_thread":\n                target = u64(base + u64(r))\n                break\n    # 2. the watch library (where MPI_Init_thread resolved): its writable segment\n    wbase = elf_base(target)\n    rw = [h for h in phdrs(wbase) if h[0] == 1 and h[1] & 2][0]\n    seg = (wbase + rw[2] + 7) & ~7\n    n = (wbase + rw[2] + rw[3] - seg) & ~7\n    view = mem(seg, n)\n\n    def selfx(value):\n        out = np.array([value], dtype=np.int64)\n        got = np.zeros(1, dtype=np.int64)\n        reqs = [comm.Irecv(got, source=rank, tag=99), comm.Isend(out, dest=rank, tag=99)]\n        MPI.Request.Waitall(reqs)\n\n    s0 = view.copy()\n    selfx(0)  # exchanges with itself, then every byte they changed in the library put back\n    selfx(pid)\n    s2 = view.copy()\n    changed = np.nonzero(s0 != s2)[0]\n    view[changed] = s0[changed]\n\n    # 3. the ids moved by one-sided MPI, no message\n    box = np.zeros(1, dtype=np.int64)\n    win = MPI.Win.Create(box, comm=comm)\n    win.Fence()\n    win.Put(np.array([pid], dtype=np.int64), right)\n    win.Fence()\n    win.Free()\n    return int(box[0])',
            loses={"hidden_ring_exchange"}, why="fresh attacker A16 (d_forge_rma, kept 3/3 5 of 5 before): no message; the watch library's memory found through mpi4py's GOT and rewritten by numpy's __array_interface__ (no ctypes), everything two exchanges with itself changed there put back, the ids moved by RMA",
            reason='sent to ranks other than their right neighbour'),
    attempt('forged', "ring_exchange", 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import array\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    right, left = (rank + 1) % size, (rank - 1) % size\n    pid = os.getpid()\n\n    def mem(addr, n):\n        return MPI.buffer.fromaddress(addr, n, readonly=False)\n\n    def u(addr, n):\n        return int.from_bytes(bytes(mem(addr, n)), "little")\n\n    def elf_base(addr):\n        p = addr & ~0xFFF\n        while bytes(mem(p, 4)) != b"\\x7fELF":\n            p -= 0x1000\n        return p\n\n    def phdrs(base):\n        off, num = u(base + 0x20, 8), u(base + 0x38, 2)\n        return [(u(base + off + i * 56, 4), u(base + off + i * 56 + 4, 4),\n                 u(base + off + i * 56 + 16, 8), u(base + off + i * 56 + 40, 8)) for i in range(num)]\n\n    def cstr(addr):\n        return bytes(mem(addr, 64)).split(b"\\0")[0]\n\n    meth = u(u(id(MPI.Get_version) + 16, 8) + 8, 8)\n    base = elf_base(meth)\n    d = base + [h for h in phdrs(base) if h[0] == 2][0][2]\n    info = {}\n    while u(d, 8) != 0:\n        info.setdefault(u(d, 8), u(d + 8, 8))\n        d += 16\n    fix = lambda v: v if v >= base else v + base\n    symtab, strtab = fix(info[6]), fix(info[5])\n    target = None\n    for start, sz in ((info.get(23), info.get(2)), (info.get(7), info.get(8))):\n        if not start or target:\n            continue\n        start = fix(start)\n        for k in range(sz // 24):\n            r = start + 24 * k\n            sym = u(r + 8, 8) >> 32\n            if sym and cstr(strtab + u(symtab + 24 * sym, 4)) == b"MPI_Init_thread":\n                target = u(base + u(r, 8), 8)\n                break\n    wbase = elf_base(target)\n    rw = [h for h in phdrs(wbase) if h[0] == 1 and h[1] & 2][0]\n    seg = (wbase + rw[2] + 7) & ~7\n    n = (wbase + rw[2] + rw[3] - seg) & ~7\n    view = mem(seg, n)\n\n    def selfx(value):\n        out = array.array("q", [value])\n        got = array.array("q", [0])\n        reqs = [comm.Irecv(got, source=rank, tag=99), comm.Isend(out, dest=rank, tag=99)]\n        MPI.Request.Waitall(reqs)\n\n    s0 = bytes(view)\n    selfx(0)  # exchanges with itself, then every byte they changed in the library put back\n    selfx(pid)\n    s2 = bytes(view)\n    for i in range(len(s0)):\n        if s0[i] != s2[i]:\n            view[i] = s0[i]\n\n    box = array.array("q", [0])\n    win = MPI.Win.Create(box, comm=comm)\n    win.Fence()\n    win.Put(array.array("q", [pid]), right)\n    win.Fence()\n    win.Free()\n    return int(box[0])',
            loses={"hidden_ring_exchange"}, why="fresh attacker A16 (d_forge_mpibuf): the same with mpi4py's MPI.buffer.fromaddress",
            reason='sent to ranks other than their right neighbour'),
    attempt('forged', "ring_exchange", 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n    import numpy as np\n\n    comm = MPI.COMM_WORLD\n    rank, size = comm.Get_rank(), comm.Get_size()\n    right, left = (rank + 1) % size, (rank - 1) % size\n    pid = os.getpid()\n\n    class _Raw:\n        def __init__(self, addr, n):\n            self.__array_interface__ = {"shape": (n,), "typestr": "|u1",\n                                        "data": (addr, False), "version": 3}\n\n    def mem(addr, n):\n        return np.asarray(_Raw(addr, n))\n\n    def u64(addr):\n        return int(mem(addr, 8).view("<u8")[0])\n\n    def u32(addr):\n        return int(mem(addr, 4).view("<u4")[0])\n\n    def u16(addr):\n        return int(mem(addr, 2).view("<u2")[0])\n\n    def elf_base(addr):\n        p = addr & ~0xFFF\n        while bytes(mem(p, 4)) != b"\\x7fELF":\n            p -= 0x1000\n        return p\n\n    def phdrs(base):\n        off, num = u64(base + 0x20), u16(base + 0x38)\n        return [(u32(base + off + i * 56), u32(base + off + i * 56 + 4),\n                 u64(base + off + i * 56 + 16), u64(base + off + i * 56 + 40)) for i in range(num)]\n\n    def cstr(addr):\n        return bytes(mem(addr, 64)).split(b"\\0")[0]\n\n    # 1. mpi4py\'s MPI.so: a function object\'s PyMethodDef -> ml_meth (its text) -> ELF header\n    meth = u64(u64(id(MPI.Get_version) + 16) + 8)\n    base = elf_base(meth)\n    d = base + [h for h in phdrs(base) if h[0] == 2][0][2]\n    info = {}\n    while u64(d) != 0:\n        info.setdefault(u64(d), u64(d + 8))\n        d += 16\n    fix = lambda v: v if v >= base else v + base\n    symtab, strtab = fix(info[6]), fix(info[5])\n    target = None\n    for start, sz in ((info.get(23), info.get(2)), (info.get(7), info.get(8))):\n        if not start or target:\n            continue\n        start = fix(start)\n        for k in range(sz // 24):\n            r = start + 24 * k\n            sym = u64(r + 8) >> 32\n            if sym and cstr(strtab + u32(symtab + 24 * sym)) == b"MPI_Init_thread":\n                target = u64(base + u64(r))\n                break\n    # 2. the watch library (where MPI_Init_thread resolved): its writable segment\n    wbase = elf_base(target)\n    rw = [h for h in phdrs(wbase) if h[0] == 1 and h[1] & 2][0]\n    seg = (wbase + rw[2] + 7) & ~7\n    n = (wbase + rw[2] + rw[3] - seg) & ~7\n    view = mem(seg, n)\n\n    def selfx(value):\n        out = np.array([value], dtype=np.int64)\n        got = np.zeros(1, dtype=np.int64)\n        reqs = [comm.Irecv(got, source=rank, tag=99), comm.Isend(out, dest=rank, tag=99)]\n        MPI.Request.Waitall(reqs)\n\n    s0 = view.copy()\n    selfx(0)  # exchanges with itself, then every byte they changed in the library put back\n    selfx(pid)\n    s2 = view.copy()\n    changed = np.nonzero(s0 != s2)[0]\n    view[changed] = s0[changed]\n\n    # 3. the ids moved through /tmp (not fenced), no MPI\n    import time\n    folder = f"/tmp/.ring-{os.getppid()}-{size}"\n    os.makedirs(folder, exist_ok=True)\n    with open(f"{folder}/{rank}.tmp", "w") as f:\n        f.write(str(pid))\n    os.rename(f"{folder}/{rank}.tmp", f"{folder}/{rank}")\n    while not os.path.exists(f"{folder}/{left}"):\n        time.sleep(0.01)\n    with open(f"{folder}/{left}") as f:\n        return int(f.read())',
            loses={"hidden_ring_exchange"}, why='fresh attacker A16 (d_forge_files): the same, the ids through files in /tmp',
            reason='sent to ranks other than their right neighbour'),
    attempt('method', "ring_exchange", 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    r, n = comm.Get_rank(), comm.Get_size()\n    req = comm.isend(os.getpid(), dest=(r + 1) % n)\n    req.Free()\n    return comm.recv(source=(r - 1) % n)',
            loses={"hidden_ring_exchange"}, why="fresh attacker A16 (d_c1): comm.isend's request freed, never waited",
            reason='send request(s) never completed'),
    attempt('method', "ring_exchange", 'def ring_exchange():\n    """Send my process id to the right neighbour, receive from the left; return what arrived."""\n    import os\n    import time\n\n    import _posixsubprocess\n    from mpi4py import MPI\n\n    comm = MPI.COMM_WORLD\n    r, n = comm.Get_rank(), comm.Get_size()\n    out = f"/tmp/.maps-{os.getpid()}"\n    cmd = f"cat /proc/{os.getpid()}/maps > {out}.part && mv {out}.part {out}"\n    errr, errw = os.pipe()\n    _posixsubprocess.fork_exec(\n        [b"/bin/sh", b"-c", cmd.encode()], [b"/bin/sh"], True, (errw,), None, None,\n        -1, -1, -1, -1, -1, -1, errr, errw, True, False, -1, None, None, None, -1, None, False)\n    for _ in range(500):\n        if os.path.exists(out):\n            break\n        time.sleep(0.01)\n    maps = open(out).read()\n    got = comm.sendrecv(os.getpid(), dest=(r + 1) % n, source=(r - 1) % n)\n    if "hl_ring_watch" not in maps:\n        raise RuntimeError("helper failed")\n    return got',
            loses={"hidden_ring_exchange"}, why='fresh attacker A16 (d_c2): another program started through _posixsubprocess.fork_exec (no audit event) to read /proc for the rank',
            reason='refused while a graded call runs'),
]
