"""A tiny course for the grading tests: one lab of three parts graded automatically and one
written answer graded by hand, and one bad submission per case.

Lab 90_sandbox: a 2-rank cluster, a kernel run (replayed from the solution's run when graded),
(a) square() checked with numpy through a locked helper,
(b) ring() on the engines, (c) total(), (d) RUN_SECONDS: the seconds of the kernel run, a value
only right for the run it was read from (the student's own runs when they hand them in), and
WRITTEN, a markdown answer (2 points, by hand, with its rubric in the instructor's answer). Each
BAD entry breaks one part in one of the ways issue 11 lists; `expected` is the score each
automatic part must get (1 point each).
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LAB = "90_sandbox"
PARTS = ("test_square", "test_ring", "test_total", "test_seconds")  # graded automatically
WRITTEN = "written_ring"  # graded by hand
WRITTEN_POINTS = 2


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _cell(source: str, meta: dict | None = None) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source.strip(), metadata=meta or {})


def _markdown(source: str, meta: dict | None = None) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(source.strip(), metadata=meta or {})


def instructor_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "hybridlab",
        "display_name": "hybridlab (Python 3, MPI)",
        "language": "python",
    }
    nb.cells = [
        _cell("import numpy as np\nimport hybridlab as hl"),
        _cell(
            "def check_close(a, b):\n    return bool(np.allclose(a, b))",
            _meta("helpers", locked=True),
        ),
        _cell("cluster = hl.Cluster(ranks=2, threads=1)\ncluster.start()"),
        _cell(
            'hello = hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=1)\n'
            'print("replayed:", hello.meta.get("replayed", False))'
        ),
        _cell(  # a figure: graded runs show its text line, not a picture (GradingPolicy.draw_figures)
            "import matplotlib\nimport matplotlib.pyplot as plt\nfrom pathlib import Path\n"
            'plt.plot([0, 1], [hello.meta["seconds"]] * 2, marker="o")\nplt.show()\n'
            'print("font lists:", sorted(p.name for p in Path(matplotlib.get_cachedir()).glob("fontlist-*")))'
        ),
        _cell(
            """
def square(x):
    ### BEGIN SOLUTION
    return np.asarray(x, dtype=float) ** 2
    ### END SOLUTION
""",
            _meta("square", solution=True),
        ),
        _cell(
            """
assert check_close(square([1, 2, 3]), [1, 4, 9])
### BEGIN HIDDEN TESTS
assert np.allclose(square(np.arange(4.0)), [0.0, 1.0, 4.0, 9.0]), "hidden square check"
### END HIDDEN TESTS
""",
            _meta("test_square", grade=True, locked=True, points=1),
        ),
        _cell(
            """
def ring():
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    ### BEGIN SOLUTION
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.sendrecv(rank, dest=(rank + 1) % size, source=(rank - 1) % size)
    ### END SOLUTION
""",
            _meta("ring", solution=True),
        ),
        _cell(
            """
got = cluster.apply(ring, timeout=15)
### BEGIN HIDDEN TESTS
assert [int(x) for x in got] == [1, 0], "hidden ring check"
### END HIDDEN TESTS
""",
            _meta("test_ring", grade=True, locked=True, points=1),
        ),
        _cell(
            """
def total(values):
    ### BEGIN SOLUTION
    return float(sum(values))
    ### END SOLUTION
""",
            _meta("total", solution=True),
        ),
        _cell(
            """
### BEGIN HIDDEN TESTS
assert total([1.5, 2.5]) == 4.0, "hidden total check"
assert total([]) == 0.0
### END HIDDEN TESTS
""",
            _meta("test_total", grade=True, locked=True, points=1),
        ),
        _cell(
            """
### BEGIN SOLUTION
RUN_SECONDS = hello.meta["seconds"]
### END SOLUTION
""",
            _meta("seconds", solution=True),
        ),
        _cell(
            """
assert isinstance(RUN_SECONDS, float), "the seconds of your hello run"
### BEGIN HIDDEN TESTS
assert abs(float(RUN_SECONDS) - float(hello.meta["seconds"])) <= 1e-12, "hidden seconds check"
### END HIDDEN TESTS
""",
            _meta("test_seconds", grade=True, locked=True, points=1),
        ),
        _markdown(
            "**Written (2 points, graded by hand).** Why does `ring()` need no barrier?",
            _meta("written_ring_question", locked=True),
        ),
        _markdown(
            """
Each rank's `sendrecv` waits for its neighbour's message, so the exchange synchronises the
ranks itself.

Rubric: 1 point for "sendrecv blocks until the message arrives", 1 for "so the ranks are
already in step".
""",
            _meta(WRITTEN, grade=True, solution=True, points=WRITTEN_POINTS),
        ),
        _cell("cluster.stop()"),
    ]
    return nb


def record_own_runs(folder: Path, nb: nbformat.NotebookNode, *, quick: bool = True) -> Path:
    """Run `nb` headless in `folder` as a student would before handing it in (quick mode, as
    grading, unless `quick` is False), keeping its kernel runs beside it; returns that runs
    folder."""
    from hybridlab.course import notebooks
    from hybridlab.runs import own_runs

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{LAB}.ipynb"
    nbformat.write(nb, path)
    saved = os.environ.pop("HYBRIDLAB_RUNS", None)  # the tests' default is off
    try:
        notebooks.run_notebook(path, folder / "executed", quick=quick, timeout=900)
    finally:
        if saved is not None:
            os.environ["HYBRIDLAB_RUNS"] = saved
    return own_runs.runs_folder(path)


LIMITS = """
# grading tests: the quick sizes (the course grades at full), short limits so the bad
# submissions are stopped quickly
c.GradingPolicy.size = "quick"
c.GradingPolicy.cell_minimum = 60  # a cluster start on a loaded 2-core machine can take 40 s
c.GradingPolicy.submission_minimum = 150
c.Limits.memory_mb = 1536
c.GradingPolicy.restarts = 3
c.Limits.disk_mb = 256
"""


def require_sandbox() -> None:
    """Skip the calling test where grading has no sandbox (bubblewrap, namespaces)."""
    from hybridlab.grading import sandbox

    try:
        sandbox.check()
    except sandbox.SandboxError as err:
        pytest.skip(f"no sandbox here: {err}")


def make_course(root: Path, *, labs: tuple[str, ...] = ()) -> Path:
    """A course folder with lab 90_sandbox (and copies of real labs `labs`), limits shortened."""
    root.mkdir(parents=True, exist_ok=True)
    config = (ROOT / "grading" / "nbgrader_config.py").read_text()
    (root / "nbgrader_config.py").write_text(config + LIMITS)
    folder = root / "source" / LAB
    folder.mkdir(parents=True)
    nbformat.write(instructor_notebook(), folder / f"{LAB}.ipynb")
    for lab in labs:
        shutil.copytree(ROOT / "grading" / "source" / lab, root / "source" / lab)
    return root


def submit(root: Path, student: str, nb: nbformat.NotebookNode | bytes, lab: str = LAB) -> Path:
    folder = root / "submitted" / student / lab
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lab}.ipynb"
    if isinstance(nb, bytes):
        path.write_bytes(nb)
    else:
        nbformat.write(nb, path)
    return path


def answer(nb: nbformat.NotebookNode, grade_id: str, source: str) -> nbformat.NotebookNode:
    """A copy of nb whose answer cell `grade_id` holds `source`."""
    nb = copy.deepcopy(nb)
    cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    assert len(cells) == 1, grade_id
    cells[0].source = source.strip()
    return nb


LOOP = """
def square(x):
    while True:
        pass
"""

LOOP_TOTAL = LOOP.replace("square(x)", "total(values)")

DEADLOCK = """
def ring():
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.ssend(rank, dest=(rank + 1) % size)
    return comm.recv(source=(rank - 1) % size)
"""

SEGFAULT = """
def ring():
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    if comm.Get_rank() == 1:
        import ctypes
        ctypes.string_at(0)
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.sendrecv(rank, dest=(rank + 1) % size, source=(rank - 1) % size)
"""

EXIT = """
def total(values):
    import os
    os._exit(3)
"""

FORK = """
import subprocess
sleepers = [subprocess.Popen(["sleep", "6127"], start_new_session=True) for _ in range(200)]
print(len(sleepers), "detached sleepers")

def total(values):
    return float(sum(values))
"""

MEMORY = """
def square(x):
    hog = []
    while True:
        hog.append(b"x" * 2**26)
"""

FLOOD = """
for _ in range(200):
    print("y" * 1_000_000)

def square(x):
    return np.asarray(x, dtype=float) ** 2
"""

SNOOP = """
import glob
import os
from pathlib import Path

course = Path.cwd().parents[2]
found = glob.glob(str(course / "**"), recursive=True)
hidden = [p for p in found if "source" in p or "gradebook" in p or "submitted" in p]
print("SNOOP saw", len(found), "paths; hidden ones:", hidden[:5],
      "gradebook:", os.path.exists(course / "gradebook.db"))

def total(values):
    return float(len(hidden))
"""

VANDAL = """
import os
from pathlib import Path

course = Path.cwd().parents[2]
recorded = Path(os.environ.get("HYBRIDLAB_RUNS", "none:/nonexistent").split(":", 1)[1])
attempts = {
    "recorded runs": recorded / "poison.json",
    "gradebook": course / "gradebook.db",
    "canary": course / "canary.txt",
    "outside": course.parent / "outside-canary.txt",
    "other student": course / "submitted" / "solution" / "90_sandbox" / "90_sandbox.ipynb",
    "source": course / "source" / "90_sandbox" / "90_sandbox.ipynb",
}
for name, path in attempts.items():
    try:
        path.write_text("vandalised")
        print("VANDAL wrote", name)
    except OSError as err:
        print("VANDAL could not write", name, type(err).__name__)

def total(values):
    return None
"""

NETWORK = """
import socket

def total(values):
    # the grader's listener greets first: the sandbox's own loopback may have something
    # (its controller, engines) on the same port number, which must not count as a way out
    for address in [("127.0.0.1", PORT), ("1.1.1.1", 53)]:
        try:
            with socket.create_connection(address, timeout=3) as conn:
                conn.settimeout(3)
                if conn.recv(64) == GREETING:
                    return float(sum(values))
                print("NETWORK", address, "answered, but not the grader")
        except OSError as err:
            print("NETWORK", address, type(err).__name__)
    return None
"""
GREETING = b"the grader's own listener"

TAMPER = """
import numpy

numpy.allclose = lambda *a, **k: True
np.allclose = lambda *a, **k: True

def check_close(a, b):
    return True

get_ipython().showtraceback = lambda *a, **k: None

def square(x):
    return x
"""

# issue 21: a determined student
PATCHER = """
import math
import numpy

def square(x):
    # replace the comparison tools at every call the test makes, return garbage
    numpy.allclose = lambda *a, **k: True
    numpy.isclose = lambda *a, **k: True
    math.isclose = lambda *a, **k: True
    return [42.0]
"""

RESTORER = """
import weakref
import numpy

class Garbage(list):
    pass

calls = []
real, code = numpy.allclose, check_close.__code__

def put_back():
    numpy.allclose, check_close.__code__ = real, code

def square(x):
    # the same, and once the hidden test (the second call) has compared, a finaliser puts
    # everything back: nothing to see when the test cell ends
    calls.append(x)
    numpy.allclose = lambda *a, **k: True
    check_close.__code__ = (lambda a, b: True).__code__
    garbage = Garbage([42.0])
    if len(calls) >= 2:
        weakref.finalize(garbage, put_back)
    return garbage
"""

DISK = """
import os

mounts = [line.split() for line in open("/proc/self/mountinfo")]
here = [m for m in mounts if m[4] == os.getcwd()]
stat = os.statvfs(".")
print("DISK working folder on", here[-1][-3] if here else "?", "of",
      stat.f_blocks * stat.f_frsize // 2**20, "MB")

def total(values):
    chunk = b"x" * 2**26
    with open("filler.bin", "wb") as f:
        for i in range(96):  # 6 GiB
            f.write(chunk)
            f.flush()
    return float(sum(values))
"""

SPY = """
import glob
import os
import sys

import pwd

# Where any Linux course server keeps its secrets (shadow files, host keys, the homes of root
# and of people, root's history), found from the account database: nothing of one machine's.
homes = sorted({p.pw_dir for p in pwd.getpwall()
                if (p.pw_uid == 0 or 1000 <= p.pw_uid < 65534) and p.pw_dir not in ("", "/")})
read = []
for pattern in ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_*key",
                "/etc/ssl/private/*", *(os.path.join(h, n) for h in homes for n in ("*", ".*"))]:
    for path in glob.glob(pattern):
        try:
            with open(path, "rb") as f:
                f.read(1)
            if os.path.isfile(path):
                read.append(path)
        except OSError:
            pass
print("SPY secrets read:", read)

try:
    environ = open("/proc/1/environ", "rb").read().decode(errors="replace").split(chr(0))
except OSError:
    environ = []
print("SPY environment:", sorted({*os.environ, *(v.split("=", 1)[0] for v in environ if v)}))

# spelled backwards: this cell's own source (kept in the kernel's history) must not match
wanted = [w[::-1].encode() for w in (MARKER, "))seulav(mus(taolf nruter")]
skip = ("/proc", "/sys", "/dev", "/usr", sys.base_prefix, sys.prefix)
seen = []
for folder, dirs, files in os.walk("/"):
    if folder.startswith(skip):
        dirs[:] = []
        continue
    for name in files + dirs:
        if wanted[0].decode() in name:
            seen.append(os.path.join(folder, name))
    for name in files:
        path = os.path.join(folder, name)
        try:
            if os.path.isfile(path) and os.path.getsize(path) < 2**21:
                data = open(path, "rb").read()
                seen += [path for w in wanted if w in data]
        except OSError:
            pass
print("SPY solution seen:", seen)

def total(values):
    return sum(float(v) for v in values)
"""
MARKER = "hl_solution_only_kernel"
SOLUTION_KERNEL = (
    '#include "hybridlab.h"\n/* ' + MARKER + ": built by an unsandboxed solution run */\n"
    'const char *const hl_kernel_description = "a solution";\n'
    "const hl_param hl_kernel_params[] = {HL_END_PARAMS};\n"
    "int hl_kernel(MPI_Comm comm, hl_ctx *ctx) { (void)comm; (void)ctx; return 0; }\n"
)


def bad_submissions(solution: nbformat.NotebookNode, port: int) -> dict[str, tuple[object, dict]]:
    """student -> (notebook or bytes, expected score per part)."""
    ok = dict.fromkeys(PARTS, 1.0)

    def zero(*parts):
        return {p: (0.0 if p in parts else 1.0) for p in PARTS}

    deleted = copy.deepcopy(solution)
    deleted.cells = [
        c for c in deleted.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_total"
    ]
    for cell in deleted.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "square":
            cell.id = "renamed-by-student"
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "ring":
            cell.metadata["nbgrader"]["grade_id"] = "ring_renamed"
    other = nbformat.read(ROOT / "labs" / "02_synchronisation.ipynb", as_version=4)
    return {
        "notjson": (b"this is { not a notebook", zero(*PARTS)),
        "otherlab": (other, zero(*PARTS)),
        "deleted": (deleted, {"test_square": 1.0, "test_total": 0.0}),
        "loop": (answer(solution, "square", LOOP), zero("test_square")),
        "deadlock": (answer(solution, "ring", DEADLOCK), zero("test_ring")),
        # three parts hang: 3 cell limits (180 s) exceed the submission's 150 s, yet the part
        # after them is graded (cells past the cell limit do not count toward the deadline)
        "hangs": (
            answer(answer(answer(solution, "square", LOOP), "ring", DEADLOCK), "total", LOOP_TOTAL),
            zero("test_square", "test_ring", "test_total"),
        ),
        "segfault": (answer(solution, "ring", SEGFAULT), zero("test_ring")),
        "exit": (answer(solution, "total", EXIT), zero("test_total")),
        "fork": (answer(solution, "total", FORK), ok),
        "memory": (answer(solution, "square", MEMORY), zero("test_square")),
        "flood": (answer(solution, "square", FLOOD), ok),
        "snoop": (answer(solution, "total", SNOOP), zero("test_total")),
        "vandal": (answer(solution, "total", VANDAL), zero("test_total")),
        "network": (
            answer(
                solution,
                "total",
                NETWORK.replace("PORT", str(port)).replace("GREETING", repr(GREETING)),
            ),
            zero("test_total"),
        ),
        "tamper": (answer(solution, "square", TAMPER), zero("test_square")),
        "patcher": (answer(solution, "square", PATCHER), zero("test_square")),
        "restorer": (answer(solution, "square", RESTORER), zero("test_square")),
        "disk": (answer(solution, "total", DISK), zero("test_total")),
        "spy": (answer(solution, "total", SPY.replace("MARKER", repr(MARKER[::-1]))), ok),
    }


def submit_own_runs(root: Path, runs: Path, solution: nbformat.NotebookNode) -> dict[str, dict]:
    """Submissions whose RUN_SECONDS is right only for the student's own run, handed in with the
    runs folder `runs` as recorded, emptied, edited, or forged; student -> expected scores."""
    import hashlib
    import json

    from hybridlab.runs import own_runs

    (run,) = sorted(runs.glob("*-0.json"))  # the hello_hybrid run
    seconds = round(json.loads(run.read_text())["seconds"], 4)  # as Results.meta shows it
    ok = dict.fromkeys(PARTS, 1.0)
    lost = {**ok, "test_seconds": 0.0}
    expected = {"own": ok, "ownempty": lost, "ownedited": lost, "ownforged": lost}
    for student in expected:
        claimed = 0.5 if student in ("ownedited", "ownforged") else seconds
        path = submit(root, student, answer(solution, "seconds", f"RUN_SECONDS = {claimed!r}"))
        folder = own_runs.runs_folder(path)
        shutil.copytree(runs, folder)
        target = folder / run.name
        data = json.loads(target.read_text())
        if student == "ownempty":
            for p in folder.iterdir():
                p.unlink()
        elif student == "ownedited":  # the claimed value written into the record by hand
            target.write_text(json.dumps({**data, "seconds": claimed}))
        elif student == "ownforged":  # another kernel's run under hello's name, index redone
            data["identity"]["name"] = "bench_compute"
            data["seconds"] = claimed
            target.write_text(json.dumps(data))
            (folder / "notes.txt").write_text("not a run")
            index = json.loads((folder / own_runs.INDEX).read_text())
            index["runs"][run.name] = hashlib.sha256(target.read_bytes()).hexdigest()
            index["digest"] = hashlib.sha256(
                json.dumps(index["runs"], sort_keys=True).encode()
            ).hexdigest()
            (folder / own_runs.INDEX).write_text(json.dumps(index))
    return expected
