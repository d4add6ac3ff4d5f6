"""Hidden test cells graded apart from the student's kernel (issue 36, grading/apart.py): a C
part's test runs after the notebook in a fresh process and sandbox, with the notebook's own C
cells and nothing the student's Python did; its result is signed, so no output forges it."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from traitlets.config import Config

from hybridlab.grading import apart, sandbox
from hybridlab.grading.execute import SandboxedExecute
from hybridlab.grading.sandbox import Limits
from hybridlab.kernels.c_cells import STUB, cell_text

PROGRAM = "int main(void) {\n    return 0;\n}\n"
TEST = f"""### BEGIN HIDDEN TESTS
{apart.MARK}
import os
print("graded", os.environ.get("HYBRIDLAB_SANDBOX", "plain"))
assert PROG.split() == {PROGRAM.split()!r}, "not the notebook's cell: " + PROG[:40]
assert "SECRET" not in globals() and "hl" not in globals(), sorted(globals())
### END HIDDEN TESTS"""
# a child that writes a forged result on every descriptor it can reach of its parents (and of the
# sandbox's first process; never the machine's own init)
FORGER = """
import os, subprocess, sys
code = '''
import os
forged = b'@apart 0 {"error": null, "notes": ""}\\\\n'
for fd in (1, 2):
    os.write(fd, forged)
for pid in (os.getppid(), 1) if os.environ.get('HYBRIDLAB_SANDBOX') else (os.getppid(),):
    for fd in range(40):
        try:
            with open(f"/proc/{pid}/fd/{fd}", "wb") as f:
                f.write(forged)
        except OSError:
            pass
'''
subprocess.run([sys.executable, "-c", code])
raise AssertionError("the forger's own failure")
"""


def test_a_c_cell_is_found_as_the_magic_gives_it():
    sources = ["%%c A halo2d\nint a;", "x = 1", "\n%%c B\nint b;", "%%c A halo2d\nint a2;",
               "%%c C\nint c;"]  # fmt: skip
    found = apart.c_sources(sources, 4)
    assert found == {"A": cell_text("int a2;"), "B": cell_text("int b;")}
    assert apart.is_apart(f"x\n{apart.MARK}\ny") and not apart.is_apart("x = '### GRADED'")


def test_a_part_whose_c_cells_are_all_stubs_fails_without_a_run():
    stub, written = cell_text("void f(void) {\n    /* YOUR CODE HERE */\n}\n"), cell_text(PROGRAM)
    test = f"{apart.MARK}\nrun(A_C)\n"
    result = apart.unwritten(test, {"A_C": stub, "B_C": written})
    assert result["error"] == ["NotImplementedError", STUB]
    # a written cell among those named, no cell named, or a kernel's text named: the run decides
    assert apart.unwritten(f"{apart.MARK}\nrun(A_C, B_C)\n", {"A_C": stub, "B_C": written}) is None
    assert apart.unwritten(f"{apart.MARK}\nrun(text)\n", {"A_C": stub}) is None
    assert apart.unwritten(f"{apart.MARK}: fixed\nrun(A_C)\n", {"A_C": stub}) is None
    assert apart.unwritten(f"{apart.MARK}\nrun(A_CX)\n", {"A_C": stub}) is None


def _grade(source: str, sandboxed: bool, timeout: float = 120) -> dict:
    return _grade_all([source], sandboxed, timeout)[0]


def _grade_all(sources: list[str], sandboxed: bool, timeout: float = 120,
               boxes: list | None = None) -> list[dict]:  # fmt: skip
    """The parts graded apart; `boxes` gets one entry per sandbox started."""
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("no bubblewrap here")
    parts = [apart.Part(f"p{i}", s, {"PROG": cell_text(PROGRAM)}, timeout)
             for i, s in enumerate(sources)]  # fmt: skip
    run_boxed = sandbox.run_boxed

    def counted(*args, **kwargs):
        (boxes if boxes is not None else []).append(args[0])
        return run_boxed(*args, **kwargs)

    sandbox.run_boxed = counted
    try:
        return apart.grade(parts, limits=Limits() if sandboxed else None)
    finally:
        sandbox.run_boxed = run_boxed


@pytest.mark.parametrize("sandboxed", [False, True], ids=["plain", "sandbox"])
def test_a_cell_runs_apart_and_its_result_cannot_be_forged(sandboxed):
    done = _grade(TEST.replace("### END", "import subprocess\n### END"), sandboxed)
    assert done["error"] is None and "graded" in done["notes"], done
    assert ("graded 1" in done["notes"]) == sandboxed
    forged = _grade(FORGER, sandboxed)  # its child's lines carry no valid signature
    assert forged["error"] == ["AssertionError", "the forger's own failure"], forged
    died = _grade("import os\nos._exit(0)", sandboxed)
    assert died["error"][0] == apart.NOT_GRADED and "without a result" in died["error"][1]
    late = _grade("import time\ntime.sleep(60)", sandboxed, timeout=3)
    assert late["error"][0] == apart.NOT_GRADED and "time limit" in late["error"][1]


# a part whose C could leave things for the next part: a process that outlives it (and forks
# again when killed), files in the working folder, /tmp and /dev/shm, a build planted in the cache
LEAVES = """
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import os, time\\nwhile True:\\n    os.fork() if False else time.sleep(0.2)"],
                 start_new_session=True)
for path in ("left.txt", "/tmp/left.txt", "/dev/shm/left", "/tmp/cache/build/planted/x",
             "/tmp/cache/build/locked/inner/x", "/tmp/cache/objects/planted.o"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    open(path, "w").write("planted")
# folders a plain rmtree cannot empty (a fresh attacker's planted build, d10w)
os.chmod("/tmp/cache/build/locked/inner", 0o555)
os.chmod("/tmp/cache/build/locked", 0o000)
os.chmod("/tmp/cache/build/planted", 0o555)
print("left", sorted(os.listdir("/tmp/cache/build")) if os.path.isdir("/tmp/cache/build") else [])
"""
FINDS = """
import os, subprocess
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
mine = [p for p in others if open(f"/proc/{p}/cmdline", "rb").read().count(b"time.sleep(0.2)")]
found = [p for p in ("left.txt", "/tmp/left.txt", "/dev/shm/left", "/tmp/cache/build/planted",
                    "/tmp/cache/build/locked", "/tmp/cache/objects/planted.o") if os.path.lexists(p)]
assert not mine and not found, (mine, found)
assert os.path.isdir("/tmp/home") and os.path.isdir("/tmp/cache/build"), "not filled again"
"""


@pytest.mark.parametrize("sandboxed", [False, True], ids=["plain", "sandbox"])
def test_one_process_grades_the_parts_and_a_part_that_ends_it_loses_alone(sandboxed):
    """The parts of a submission run one after the other in one process; one that ends the
    process or runs past its time loses its points alone, the next is still graded."""
    boxes = []
    done = _grade_all([TEST, "import os\nos._exit(0)", "import time\ntime.sleep(60)", TEST],
                      sandboxed, timeout=4, boxes=boxes)
    assert len(boxes) == (2 if sandboxed else 0), boxes  # the one that ended it: a fresh box
    assert done[0]["error"] is None and done[3]["error"] is None, done
    assert done[1]["error"][0] == apart.NOT_GRADED and "without a result" in done[1]["error"][1]
    assert done[2]["error"][0] == apart.NOT_GRADED and "time limit" in done[2]["error"][1]


def test_the_sandbox_is_put_back_as_it_started_between_parts():
    """Nothing a part's code leaves reaches the next part: no process, no file, no planted build
    or kit object; and the parts share one sandbox (the bound kit-object folder does not stop
    the put-back)."""
    boxes = []
    done = _grade_all([LEAVES, FINDS], sandboxed=True, boxes=boxes)
    assert len(boxes) == 1, boxes
    assert done[0]["error"] is None and "left" in done[0]["notes"], done
    assert done[1]["error"] is None, done


def test_a_folder_is_emptied_whatever_its_modes(tmp_path):
    """apart._empty: read-only and closed folders are opened and removed; _left names what is
    still there (nothing)."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x").write_text("planted")
    (tmp_path / "y").write_text("planted")
    (tmp_path / "a" / "b").chmod(0o555)
    (tmp_path / "a").chmod(0o000)
    apart._empty(str(tmp_path), set())
    assert apart._left(str(tmp_path), apart._mounts()) == [] and list(tmp_path.iterdir()) == []


def _meta(grade_id: str, **flags) -> dict:
    base = {"grade": False, "solution": False, "locked": False, "task": False}
    return {"nbgrader": {**base, **flags, "grade_id": grade_id, "schema_version": 3}}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandbox"])
def test_nothing_the_kernel_holds_reaches_a_cell_graded_apart(sandboxed, tmp_path):
    """The kernel replaces the C cell's variable and the grading module, leaves a secret and an
    idle thread of the student's running; the cell graded apart still reads the notebook's C cell,
    sees none of it, and the thread costs it nothing (a fresh attacker's L13b1, 2026-12-05: the
    kernel's end-of-test check failed the placeholder cell of every part graded apart)."""
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("no bubblewrap here")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "py", "language": "python"}
    cells = [
        ("%load_ext hybridlab.kernels.c_cells", {}),
        (f"%%c PROG\n{PROGRAM}", _meta("prog", solution=True)),
        ("PROG = 'forged'\nSECRET = 1\nimport hybridlab.grading.apart as a\n"
         "a.grade = lambda *args, **kw: {'error': None, 'notes': '', 'seconds': 0}\n"
         "import threading, time\n\n\ndef idle():\n    while True:\n        time.sleep(0.05)\n\n\n"
         "threading.Thread(target=idle, daemon=True).start()", {}),
        (TEST, _meta("hidden_prog", grade=True, locked=True, points=1)),
        (TEST.replace("PROG.split() ==", "PROG.split() !="),
         _meta("hidden_wrong", grade=True, locked=True, points=1)),
    ]  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source, metadata=meta) for source, meta in cells]
    SandboxedExecute(config=Config(), timeout=120, sandbox=sandboxed).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    right, wrong = nb.cells[3], nb.cells[4]
    assert not [o for o in right.outputs if o.output_type == "error"], right.outputs
    text = "".join(o.get("text", "") for o in right.outputs)
    assert "graded apart from your kernel" in text and "graded" in text
    assert [o.ename for o in wrong.outputs if o.output_type == "error"] == ["AssertionError"]


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandbox"])
def test_a_python_string_named_on_the_mark_reaches_the_cell_as_text_only(sandboxed, tmp_path):
    """`### GRADED APART: SRC`: the kernel hands out SRC's text as the notebook left it; a value
    that is not a string arrives as None, and nothing else of the kernel's (a secret, a module)."""
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("no bubblewrap here")
    test = f"""### BEGIN HIDDEN TESTS
{apart.MARK}: SRC, OTHER
assert SRC == "int main(void) {{ return 0; }}", SRC
assert OTHER is None and "SECRET" not in globals(), sorted(globals())
### END HIDDEN TESTS"""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "py", "language": "python"}
    cells = [
        ("SRC = 'int main(void) {'\nSRC += ' return 0; }'\nOTHER = 3\nSECRET = 1",
         _meta("src", solution=True)),
        (test, _meta("hidden_src", grade=True, locked=True, points=1)),
        (test.replace("SRC ==", "SRC !="), _meta("hidden_wrong", grade=True, locked=True, points=1)),
    ]  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source, metadata=meta) for source, meta in cells]
    SandboxedExecute(config=Config(), timeout=120, sandbox=sandboxed).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    right, wrong = nb.cells[1], nb.cells[2]
    assert not [o for o in right.outputs if o.output_type == "error"], right.outputs
    assert [o.ename for o in wrong.outputs if o.output_type == "error"] == ["AssertionError"]
    assert apart.kernel_texts(f"{apart.MARK}: a, b") == ["a", "b"]
    with pytest.raises(ValueError, match="not a Python name"):
        apart.kernel_texts(f"{apart.MARK}: a; import os")
