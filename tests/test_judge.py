"""Judged hidden test cells (issue 36): the reference and the comparison run in the grader's own
process, the kernel only hands the student's answers out (grading/handout.py, grading/judge.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import types

import nbformat
import numpy as np
import pandas as pd
import pytest
from traitlets.config import Config

from hybridlab.grading import _guard, handout, judge
from hybridlab.grading.execute import SandboxedExecute

CELL = """### BEGIN HIDDEN TESTS
from hybridlab.grading.handout import from_kernel as _from_kernel
from hybridlab.course.hidden_inputs import rng as _rng

### BEGIN JUDGE
def _ref(x):
    return 2 * x
### END JUDGE

_r = _rng("NAME")
for _ in range(3):
    _x = int(_r.integers(0, 100))
    _got = _from_kernel(lambda: NAME(_x))
    ### BEGIN JUDGE
    _want = _ref(_x)
    assert _got == _want, (_x, _got)
    print("judged", _x)
    ### END JUDGE
### END HIDDEN TESTS"""

FRAMES = """
import sys


def _found(callables):
    frame = sys._getframe(2)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name, value in list(scope.items()):
                if ("ref" in name or "want" in name) and callable(value) == callables:
                    return value
        frame = frame.f_back
    return None
"""
ANSWERS = {  # function name -> (its cell, whether it keeps its point)
    "right": ("def right(x):\n    return x + x", True),
    "wrong": ("def wrong(x):\n    return 3 * x", False),
    "calls_reference": (
        FRAMES
        + "\ndef calls_reference(x):\n    ref = _found(True)\n    return ref(x) if ref else 0",
        False,
    ),
    "reads_want": (FRAMES + "\ndef reads_want(x):\n    return _found(False) or 0", False),
    "forges_the_channel": (
        "import os\n\n\ndef forges_the_channel(x):\n"
        "    with open(os.environ['HYBRIDLAB_HANDOUT'], 'a') as f:\n"
        "        f.write('0\\n')\n"
        "    return 0",
        False,
    ),
    "hands_out_nothing": (
        "import hybridlab.grading.handout as _h\n"
        "_h.from_kernel = lambda answer: 2\n\n\n"
        "def hands_out_nothing(x):\n    return 2",
        False,
    ),
}
# Code the shell runs around the test cell, or beside it (a fresh attacker's route, issue 36):
# each doubled the value the student's function handed out in the hand-out file, when it was a
# file. The channel is now a pipe nothing rewrites (test_the_channel_is_written_by_the_test_alone):
# they work on a file of the kernel's folder instead, so that the code stays alive and the guard
# must still find it (a thread, a handler, a callback) and refuse the test.
DOUBLE = """
import json as _json
import os as _os
import hybridlab.grading.handout as _h

_PATH = _os.path.abspath("hl-handout-stand-in.jsonl")
open(_PATH, "a").close()


def _size():
    return _os.path.getsize(_PATH) if _PATH and _os.path.exists(_PATH) else 0


def _double_from(offset):
    # the whole numbers handed out after `offset`, doubled in place
    with open(_PATH, "r+") as f:
        f.seek(offset)
        out = []
        for line in f.read().splitlines():
            try:
                value = _h.decode(_json.loads(line))
            except Exception:
                value = None
            out.append(_json.dumps(_h.encode(2 * value)) if type(value) is int else line)
        f.seek(offset)
        f.truncate()
        f.write("".join(line + "\\n" for line in out))
"""
ANSWERS.update({
    "rewrites_after_the_cell": (
        DOUBLE + "\n_at = [0]\n\n\ndef _before(*args):\n    _at[0] = _size()\n\n\n"
        "def _after(*args):\n    if _size() > _at[0]:\n        _double_from(_at[0])\n\n\n"
        "get_ipython().events.register('pre_run_cell', _before)\n"
        "get_ipython().events.register('post_run_cell', _after)\n\n\n"
        "def rewrites_after_the_cell(x):\n    return x",
        False,
    ),
    # the same callbacks, their code compiled under a library's file name (a fresh attacker's
    # route: the guard judged a callback by the file its code names)
    "rewrites_after_the_cell_as_a_library": (
        DOUBLE + "\nimport numpy as _np\n\n_SRC = '''\n_at = [0]\n\n\ndef _before(*args):\n"
        "    _at[0] = _size()\n\n\ndef _after(*args):\n    if _size() > _at[0]:\n"
        "        _double_from(_at[0])\n'''\n"
        "exec(compile(_SRC, _os.path.join(_os.path.dirname(_np.__file__), '_core', '_hl_hook.py'),"
        " 'exec'), globals())\n"
        "get_ipython().events.register('pre_run_cell', _before)\n"
        "get_ipython().events.register('post_run_cell', _after)\n\n\n"
        "def rewrites_after_the_cell_as_a_library(x):\n    return x",
        False,
    ),
    "rewrites_the_test": (
        "def _rewrite(lines):\n"
        "    return [line.replace('rewrites_the_test(_x)', '2 * _x') for line in lines]\n\n\n"
        "get_ipython().input_transformers_post.append(_rewrite)\n\n\n"
        "def rewrites_the_test(x):\n    return 0",
        False,
    ),
    "rewrites_from_a_fork": (
        DOUBLE + "import time as _time\n\n\n"
        "def _watch():\n    seen = _size()\n    while True:\n"
        "        with open(_PATH) as f:\n            f.seek(seen)\n            new = f.read()\n"
        "        if new.count('\\n') == 3:\n            _double_from(seen)\n            seen = _size()\n"
        "        elif _size() < seen:\n            seen = _size()\n"
        "        _time.sleep(0.001)\n\n\n"
        "if _os.fork() == 0:  # a copy of the kernel, outside any thread the guard lists\n"
        "    try:\n        _watch()\n    finally:\n        _os._exit(0)\n\n\n"
        "def rewrites_from_a_fork(x):\n    return x",
        False,
    ),
    # last: its thread runs on beside every later cell
    "rewrites_from_a_thread": (
        DOUBLE + "import threading as _threading\nimport time as _time\n\n\n"
        "def _watch():\n    seen = _size()\n    while True:\n"
        "        with open(_PATH) as f:\n            f.seek(seen)\n            new = f.read()\n"
        "        if new.count('\\n') == 3:\n            _double_from(seen)\n            seen = _size()\n"
        "        elif _size() < seen:\n            seen = _size()\n"
        "        _time.sleep(0.001)\n\n\n"
        "_threading.Thread(target=_watch, daemon=True).start()\n\n\n"
        "def rewrites_from_a_thread(x):\n    return x",
        False,
    ),
})  # fmt: skip
# threads the guard once missed, each graded in a notebook of its own (the thread above doubles
# whatever is handed out after it): one whose code was compiled under the standard library's
# threading.py, and a thread pool's worker running the same loop as a work item (a fresh
# attacker's G03a8 and G03a9, 2026-12-05: the guard judged a thread by the file its target's code
# names, and a pool's worker is the standard library's `_worker`)
_LOOP = (DOUBLE + "import threading as _threading\nimport types as _types\n_SRC = \'\'\'\n"
         "import time as _time\nseen = _size()\nwhile True:\n"
         "    with open(_PATH) as f:\n        f.seek(seen)\n        new = f.read()\n"
         "    if new.count(\'\\\\n\') == 3:\n        _double_from(seen)\n        seen = _size()\n"
         "    elif _size() < seen:\n        seen = _size()\n"
         "    _time.sleep(0.001)\n\'\'\'\n"
         "_run = _types.FunctionType(compile(_SRC, _threading.__file__, \'exec\'), globals())\n")
LIBRARY_THREADS = {
    "rewrites_from_a_thread_as_a_library": (
        _LOOP + "_threading.Thread(target=_run, daemon=True).start()\n\n\n"
        "def rewrites_from_a_thread_as_a_library(x):\n    return x", False),
    "rewrites_from_a_pools_worker": (
        _LOOP + "import concurrent.futures as _cf\n_pool = _cf.ThreadPoolExecutor(1)\n"
        "_pool.submit(_run)\n\n\ndef rewrites_from_a_pools_worker(x):\n    return x", False),
}
# code the kernel runs at any moment, set up by an answer cell: a signal handler on an interval
# timer (a fresh attacker's P16c, 2026-12-05, sampled the hidden test's frames every 2 ms) and a
# garbage collector callback, each doubling what the student's function handed out
_TICK = ("\n_seen = [None]\n\n\ndef _tick(*args):\n    if not _PATH or not _os.path.exists(_PATH):\n"
         "        return\n    if _seen[0] is None or _size() < _seen[0]:\n        _seen[0] = _size()\n"
         "    with open(_PATH) as f:\n        f.seek(_seen[0])\n        new = f.read()\n"
         "    if new.count('\\n') == 3:\n        _double_from(_seen[0])\n        _seen[0] = _size()\n")
INTERRUPTS = {
    "rewrites_from_a_signal_handler": (
        DOUBLE + _TICK + "\nimport signal as _signal\n_signal.signal(_signal.SIGALRM, _tick)\n"
        "_signal.setitimer(_signal.ITIMER_REAL, 0.001, 0.001)\n\n\n"
        "def rewrites_from_a_signal_handler(x):\n    return x", False),
    "rewrites_from_a_gc_callback": (
        DOUBLE + _TICK + "\nimport gc as _gc\n_gc.set_threshold(1)\n_gc.callbacks.append(_tick)\n\n\n"
        "def rewrites_from_a_gc_callback(x):\n    _junk = [[] for _ in range(50)]\n    return x", False),
    # a POSIX timer whose SIGEV_THREAD callback runs on a thread of libc's between the guard's looks
    # (a fresh attacker's k00timer, 2026-12-05, rewrote a hidden test's pass/fail dict)
    "rewrites_from_a_posix_timer": (
        DOUBLE + _TICK + "\nimport ctypes as _c\n_libc = _c.CDLL(None)\n"
        "_CB = _c.CFUNCTYPE(None, _c.c_void_p)(lambda v: _tick())\n\n\n"
        "class _Ev(_c.Structure):\n    _fields_ = [('value', _c.c_void_p), ('signo', _c.c_int),\n"
        "                ('notify', _c.c_int), ('function', _c.c_void_p), ('attr', _c.c_void_p),\n"
        "                ('pad', _c.c_byte * 32)]\n\n\n"
        "_ev = _Ev(notify=2, function=_c.cast(_CB, _c.c_void_p))\n_timer = _c.c_void_p()\n"
        "_libc.timer_create(1, _c.byref(_ev), _c.byref(_timer))\n"
        "_spec = (_c.c_long * 4)(0, 1000000, 0, 1000000)\n"
        "_libc.timer_settime(_timer, 0, _spec, None)\n\n\n"
        "def rewrites_from_a_posix_timer(x):\n    return x", False),
    # a finaliser in a reference cycle, which leaves another behind: it runs at every collection
    "rewrites_from_a_finaliser": (
        DOUBLE + _TICK + "\nimport gc as _gc\n\n\nclass _Again:\n    def __init__(self):\n"
        "        self.me = self\n\n    def __del__(self):\n        _tick()\n        _Again()\n\n\n"
        "_Again()\n_gc.set_threshold(1)\n\n\n"
        "def rewrites_from_a_finaliser(x):\n    _junk = [[] for _ in range(50)]\n    return x", False),
}
SNOOP = "print('left in the kernel:', sorted(k for k in globals() if k in ('_ref', '_want')))"


def test_the_kernel_never_gets_the_judge_blocks():
    source = CELL.replace("NAME", "double")
    kernel = judge.kernel_source(source)
    compile(kernel, "kernel", "exec")  # a block ending a loop leaves a `pass` in its place
    assert "_ref" not in kernel and "_want" not in kernel and "assert" not in kernel
    assert "    pass  # (the grader's side)" in kernel
    assert judge.is_judged(source) and not judge.is_judged(kernel)
    for broken in (f"{judge.BEGIN}\nx = 1", f"x = 1\n{judge.END}", f"{judge.BEGIN}\n{judge.BEGIN}"):
        with pytest.raises(ValueError):
            judge.kernel_source(broken)


def test_handed_out_values_come_back_as_they_were():
    frame = pd.DataFrame(
        {"bind": ["cores", "cores", "spread"], "ranks": [1, 2, 2], "GBps": [9.8, 11.5, np.nan]}
    ).set_index(["bind", "ranks"])
    values = [None, True, 3, 0.1, "x", (1, [2.5, {"a": (1, 2)}]), {3, 4}, {(1, "a"): 2.0},
              np.int64(7), np.arange(6.0).reshape(2, 3), np.array(["a", None], dtype=object),
              frame, frame["GBps"], frame.index]  # fmt: skip
    for value in values:
        back = handout.decode(json.loads(json.dumps(handout.encode(value))))
        assert type(back) is type(value)
        if isinstance(value, (pd.DataFrame, pd.Series)):
            assert back.equals(value)
        elif isinstance(value, (np.ndarray, pd.Index)):
            assert back.tolist() == value.tolist()
        else:
            assert back == value
    odd = handout.decode(handout.encode(object()))
    assert isinstance(odd, handout.Unreadable) and odd != object()
    with pytest.raises(ValueError):  # a forged tag is refused, never run
        handout.decode({"type": "pickle", "data": "..."})


def test_a_long_text_is_handed_out_compressed_and_a_bomb_is_refused(monkeypatch):
    """A trace of a polling loop (tens of MB of JSON) is handed out compressed, so the grader's
    bounded read of a cell's hand-out gets it whole; a packed text that would unpack past the
    bound is refused, not unpacked."""
    import base64
    import zlib

    trace = json.dumps([{"call": "MPI_Test", "thread": t % 2, "start": t * 1e-6}
                        for t in range(60_000)])  # fmt: skip
    line = json.dumps(handout.encode(("x", trace)))
    assert len(trace) > handout.LONG_TEXT and len(line) < len(trace) / 5
    assert handout.decode(json.loads(line)) == ("x", trace)
    assert handout.encode("short") == "short"
    monkeypatch.setattr(handout, "MAX_TEXT", 1 << 16)  # the bound, small for the test
    bomb = base64.b64encode(zlib.compress(b"0" * (handout.MAX_TEXT + 1))).decode()
    with pytest.raises(ValueError, match="longer than"):
        handout.decode({"type": "text", "data": bomb})


def _framed(lines: list[str], part: str = "p") -> list[str]:
    """The lines as the kernel's from_kernel writes them: frames of the test cell `part`."""
    return [json.dumps({"part": part, "n": i, "value": json.loads(v)}) for i, v in enumerate(lines)]


def _judged(lines: list[str], framed: bool = True) -> dict:
    cell = {"part": "p", "source": CELL.replace("NAME", "double"),
            "values": _framed(lines) if framed else lines}
    return judge.judge([cell])[0]


def test_the_judge_compares_what_the_kernel_handed_out():
    from hybridlab.course.hidden_inputs import rng

    r = rng("double")
    right = [str(2 * int(r.integers(0, 100))) for _ in range(3)]
    done = _judged(right)
    assert done["error"] is None and done["notes"].count("judged") == 3
    assert _judged(right[:2] + ["1"])["error"][0] == "AssertionError"
    assert _judged(right[:2])["error"][0] == "HandOutMismatch"  # fewer than the test reads
    assert _judged([*right, "0"])["error"][0] == "HandOutMismatch"  # more
    assert _judged(right[:2] + ['{"type": "code"}'])["error"][0] == "ValueError"


def test_a_line_that_is_not_the_cells_own_frame_in_order_is_refused():
    """The judge takes a test cell's lines only as its own frames numbered 0, 1, 2, ...: a
    line another writer added (a plain value, a frame numbered again or of another cell, one
    handed out outside any test cell, a hand-out cut at the grader's bound) refuses the part."""
    from hybridlab.course.hidden_inputs import rng

    r = rng("double")
    right = _framed([str(2 * int(r.integers(0, 100))) for _ in range(3)])
    assert _judged(right, framed=False)["error"] is None
    cases = {
        "not a value the test's from_kernel wrote": [right[0], "154", *right[1:]],
        "numbered 1, not 2": [*right[:2], right[1], right[2]],
        "not in this test cell": [*right[:2], right[2].replace('"part": "p"', '"part": "q"')],
        "outside any test cell": [*right[:2], right[2].replace('"part": "p"', '"part": null')],
        "MiB handed out": [*right, handout.OVERFLOW],
    }
    for why, lines in cases.items():
        error = _judged(lines, framed=False)["error"]
        assert error[0] == "HandOutMismatch" and why in error[1], (why, error)


def test_the_judge_is_forked_from_the_grader_and_stopped_past_its_time(monkeypatch):
    """The judge starts with the grader's imports (numpy and pandas, which the pool's zygote
    imports: no new Python imports them for every submission), nothing it changes comes back,
    and one past its time is killed: its cells are not judged."""
    monkeypatch.setitem(sys.modules, "_hl_grader_only", types.ModuleType("_hl_grader_only"))
    seen = {"part": "p", "values": [], "source": "import os, sys\n"
            "assert '_hl_grader_only' in sys.modules\nos.environ['HL_JUDGE_CHANGED'] = '1'\n"}  # fmt: skip
    assert judge.judge([seen])[0] == {"error": None, "notes": ""}
    assert "HL_JUDGE_CHANGED" not in os.environ
    monkeypatch.setattr(judge, "SECONDS", 1)
    start = time.monotonic()
    hung = judge.judge([{"part": "p", "values": [], "source": "while True:\n    pass\n"}] * 2)
    assert [r["error"][0] for r in hung] == [judge.NOT_JUDGED] * 2
    assert time.monotonic() - start < 30


def meta(grade_id, **flags):
    base = {"grade": False, "solution": False, "locked": False, "task": False}
    return {"nbgrader": {**base, **flags, "grade_id": grade_id, "schema_version": 3}}


def _notebook(answers: dict = ANSWERS) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "py", "language": "python"}
    for name, (answer, _) in answers.items():
        nb.cells.append(nbformat.v4.new_code_cell(answer, metadata=meta(name, solution=True)))
        nb.cells.append(
            nbformat.v4.new_code_cell(
                CELL.replace("NAME", name),
                metadata=meta(f"hidden_{name}", grade=True, locked=True, points=1),
            )
        )
    nb.cells.append(nbformat.v4.new_code_cell(SNOOP))
    return nb


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandbox"])
def test_answers_that_reach_into_the_test_lose_and_the_right_one_keeps(sandboxed, tmp_path):
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("no bubblewrap here")
    nb = _notebook()
    SandboxedExecute(config=Config(), timeout=120, sandbox=sandboxed).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    tests = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "HIDDEN" in c.source}
    for name, (_, keeps) in ANSWERS.items():
        errors = [o for o in tests[f"hidden_{name}"].outputs if o.output_type == "error"]
        assert (not errors) == keeps, (name, errors)
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert "left in the kernel: []" in text, text
    notes = "".join(o.get("text", "") for o in tests["hidden_right"].outputs)
    assert notes.count("judged") == 3  # what the judge printed is under its cell
    assert not list(tmp_path.glob(".hybridlab-*"))  # the hand-out file went with the kernel


@pytest.mark.parametrize("attack", sorted({**LIBRARY_THREADS, **INTERRUPTS}))
def test_code_the_student_left_running_cannot_act_in_a_test(attack, tmp_path):
    """A thread judged by the code it runs, not the file it names; a signal handler, interval
    timer, POSIX timer, gc callback or finaliser of the student's cannot act while a test runs."""
    answers = {"right": ANSWERS["right"], attack: {**LIBRARY_THREADS, **INTERRUPTS}[attack]}
    nb = _notebook(answers)
    SandboxedExecute(config=Config(), timeout=120, sandbox=False).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    tests = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "HIDDEN" in c.source}
    for name, (_, keeps) in answers.items():
        errors = [o for o in tests[f"hidden_{name}"].outputs if o.output_type == "error"]
        assert (not errors) == keeps, (name, errors)
    if attack in LIBRARY_THREADS:
        text = "".join(o.get("text", "") for o in tests[f"hidden_{attack}"].outputs)
        assert "a thread running the student's code" in text, text


# a function the test calls, writing the channel itself between two of the test's calls (A2's
# K3 on lab 08 (a), 2026-12-07, rewrote the test's in-kernel measurements in the hand-out file,
# 3/3 twice; the channel is now a pipe: what was written stays): on its third call it writes the
# three right values as frames of the test cell, numbered as the test's own would be (the test's
# own follow, numbered on: the count refuses them)
_FORGE = ("import json as _json\nimport os as _os\nimport hybridlab.grading.handout as _h\n"
          "from hybridlab.course.hidden_inputs import rng as _rng\n\n\n"
          "def _forged(name):  # the test's three right values, drawn as it draws them\n"
          "    r = _rng(name)\n    part, n = _h._cell\n    return ''.join(_json.dumps({'part': part, "
          "'n': n + i, 'value': 2 * int(r.integers(0, 100))}) + '\\n' for i in range(3))\n")
CHANNEL = {
    "writes_the_channel_in_a_call": (
        _FORGE + "\n\ndef writes_the_channel_in_a_call(x):\n"
        "    if _h._cell[1] == 0:  # (the counter moved on: the test's own are numbered after)\n"
        "        _os.write(_h._destination(), _forged('writes_the_channel_in_a_call').encode())\n"
        "        _h._cell[1] += 3\n    return 0",
        False, "3 value(s) more than the test reads"),
    # ... or its own frames written and the test's own sent elsewhere (/dev/null over the pipe)
    "puts_a_file_over_the_channel": (
        _FORGE + "\n\ndef puts_a_file_over_the_channel(x):\n    fd = _h._destination()\n"
        "    if _h._cell[1] == 0:\n        _os.write(fd, _forged('puts_a_file_over_the_channel').encode())\n"
        "        _os.dup2(_os.open(_os.devnull, _os.O_WRONLY), fd)\n    return 0",
        False, "descriptor was replaced"),
    # ... or through a descriptor an earlier cell opened again (/proc/self/fd/N)
    "holds_the_channel_open": (
        _FORGE + "\n_fd = _os.open(f'/proc/self/fd/{_h._destination()}', _os.O_WRONLY)\n\n\n"
        "def holds_the_channel_open(x):\n    if _h._cell[1] == 0:\n"
        "        _os.write(_fd, _forged('holds_the_channel_open').encode())\n        _h._cell[1] += 3\n"
        "    return 0",
        False, "held open twice"),
}


@pytest.mark.parametrize("attack", sorted(CHANNEL))
def test_the_channel_is_written_by_the_test_alone(attack, tmp_path):
    """The hand-out channel written by the student's code while a test runs (its frames, numbered
    as the test's own), replaced, or held open from an earlier cell, costs the part (and that
    part alone), the reason in its feedback."""
    answers = {"right": ANSWERS["right"], attack: CHANNEL[attack][:2]}
    nb = _notebook(answers)
    SandboxedExecute(config=Config(), timeout=120, sandbox=False).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    tests = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "HIDDEN" in c.source}
    for name, (_, keeps) in answers.items():
        errors = [o for o in tests[f"hidden_{name}"].outputs if o.output_type == "error"]
        assert (not errors) == keeps, (name, errors)
    shown = json.dumps(tests[f"hidden_{attack}"].outputs)
    assert CHANNEL[attack][2] in shown, shown


def test_the_hand_out_channel_is_the_descriptor_named_at_import():
    """The kernel hands out to the pipe whose descriptor $HYBRIDLAB_HANDOUT named when handout.py
    was imported (the variable changed later sends nothing elsewhere), as frames of the test cell
    open; the descriptor is close-on-exec (no program the kernel starts inherits it)."""
    channel = handout.Channel()
    code = ("import os\nimport hybridlab.grading.handout as h\n"
            "assert not os.get_inheritable(h._destination())\n"
            "os.environ['HYBRIDLAB_HANDOUT'] = '2'\nh.open_cell('p')\nh.from_kernel(lambda: 5)\n"
            "h.from_kernel(lambda: [1, 2])\nh.close_cell()\nh.from_kernel(lambda: 6)")
    env = {**os.environ, **channel.env()}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, pass_fds=(channel.fd,))
    channel.started()
    lines = channel.take()
    channel.close()
    assert [json.loads(line) for line in lines] == [{"part": "p", "n": 0, "value": 5},
        {"part": "p", "n": 1, "value": [1, 2]}, {"part": None, "n": 0, "value": 6}]  # fmt: skip
    assert handout.values(lines[:2], "p") == [5, [1, 2]]


def test_the_grader_reads_the_channel_as_it_fills_and_bounds_a_cell():
    """More than a pipe holds is read while the kernel writes (it never waits on a full pipe);
    more than the bound in one cell is cut, and the cell's lines are refused."""
    channel = handout.Channel(cap=1 << 20)
    code = "import os, sys\nfd = int(sys.argv[1])\nfor _ in range(3):\n    os.write(fd, b'x' * 400_000 + b'\\n')"
    subprocess.run([sys.executable, "-c", code, str(channel.fd)], check=True, timeout=60,
                   pass_fds=(channel.fd,))  # fmt: skip
    channel.started()
    lines = channel.take()
    channel.close()
    assert lines[-1] == handout.OVERFLOW and len(lines) <= 4
    with pytest.raises(handout.HandOutMismatch, match="MiB handed out"):
        handout.values(lines, "p")


GUARD_PROBE = """
import hybridlab.grading._guard as g
g.capture(["hybridlab.mapping.exercise", "hybridlab.runs.student_c"])
import hybridlab.student_c as sc  # the flat name the released labs import
import hybridlab.mapping.exercise as ex
real = sc.collective_comms
sc.collective_comms = lambda results: None  # an earlier cell
ex.check_student_nodes = lambda *a, **k: None
print("put back:", g.restore({}, "part"), sc.collective_comms is real)
try:
    sc.overlap_table = lambda *a, **k: None  # during the test
    g.verify({}, "part")
except g.TestToolChanged:
    print("caught")
try:  # a method of the kit's class that hands a run out (Results.dumps), its code swapped
    sc.Results.dumps.__code__ = (lambda self: "{}").__code__
    g.verify({}, "part")
except g.TestToolChanged as err:
    print("method caught:", err, sc.Results.dumps.__code__.co_name)
"""


C_PROFILE = """
import ctypes, sys
import hybridlab.grading._guard as g
g.capture([])
calls = [0]
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
def cb(obj, frame, what, arg):
    calls[0] += 1
    return 0
hook = CB(cb)
ctypes.pythonapi.PyEval_SetProfile.argtypes = [CB, ctypes.c_void_p]
ctypes.pythonapi.PyEval_SetProfile(hook, None)
def f():
    return 1
f()
print("profiled:", calls[0] > 0, "getter:", sys.getprofile())
g.restore({}, "part")
calls[0] = 0
f()
print("after restore:", calls[0])
"""


def test_a_profiler_set_from_c_is_removed_before_a_test():
    """A profile function set with PyEval_SetProfile and no object (sys.getprofile() says None: a
    fresh attacker's L16g3, 2026-12-05) runs no more once restore() has run."""
    out = subprocess.run([sys.executable, "-c", C_PROFILE], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert "profiled: True getter: None" in out and "after restore: 0" in out, out


def test_the_judging_modules_are_guarded_as_numpy_is():
    text = "from hybridlab.mapping.exercise import weak_summary\nfrom hybridlab.student_c import x"
    assert _guard.judging_modules(text) == [
        "hybridlab.mapping.exercise",
        "hybridlab.runs.student_c",
    ]
    done = subprocess.run(
        [sys.executable, "-c", GUARD_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "hybridlab.runs.student_c.collective_comms" in done.stdout, done.stdout
    assert "hybridlab.mapping.exercise.check_student_nodes" in done.stdout
    assert "] True" in done.stdout and "caught" in done.stdout, done.stdout
    assert "method caught" in done.stdout and "Results.dumps" in done.stdout, done.stdout


def test_a_warning_the_answer_raises_in_a_test_costs_no_points(tmp_path):
    """A test cell's stderr is the student's code's (no test of the kit writes there): shown on
    stdout under a note, so nbgrader's rule (stderr scores 0) cannot zero a right answer."""
    from nbgrader.utils import determine_grade

    from hybridlab.grading.execute import STDERR_NOTE

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "py", "language": "python"}
    answer = "import warnings\n\ndef f(x):\n    warnings.warn('deprecated, still right')\n    return 2 * x\n"
    nb.cells.append(nbformat.v4.new_code_cell(answer, metadata=meta("f", solution=True)))
    for name, test in (("right", "assert f(2) == 4"), ("wrong", "assert f(2) == 5")):
        nb.cells.append(nbformat.v4.new_code_cell(
            test, metadata=meta(f"hidden_{name}", grade=True, locked=True, points=1)))
    SandboxedExecute(config=Config(), timeout=120, sandbox=False).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    right, wrong = nb.cells[1], nb.cells[2]
    assert not [o for o in right.outputs if o.get("name") == "stderr"], right.outputs
    shown = "".join(o.get("text", "") for o in right.outputs)
    assert STDERR_NOTE.strip() in shown and "deprecated, still right" in shown
    assert determine_grade(right, None) == (1, 1)
    assert determine_grade(wrong, None)[0] == 0  # an error still fails the part
