"""Hidden test cells graded apart from the student's kernel (the C parts, and the Python parts
judged on runs the lab's own cells made: labs 00 (c), 02 (e), 03 (e)).

A hidden test cell holding the line `### GRADED APART` never runs in the student's kernel: the
kernel runs KERNEL_SOURCE in its place. After the notebook has run, the grader runs the cell
whole, judge blocks included, in a fresh Python process in a fresh sandbox of its own (`python -m
hybridlab.grading.apart`), in a namespace that holds only the notebook's C: every `%%c NAME` cell
above the test, as the submitted notebook holds it (the last cell of a name wins, as in a kernel
that ran the notebook from the top). So nothing the student's Python did reaches the grade: no
module replaced, no guard switched off, no caller's frame read, no value left in the kernel, no
build planted in the kernel's cache (the fresh sandbox has its own copy of the released builds).

A part whose C is a Python string (lab 01 (a): `fixed_source`, often made with `str.replace`)
names it on the mark, `### GRADED APART: fixed_source`: the kernel hands out that global's text
(None when it is not a string), and the cell apart finds it in its namespace beside the C cells.
Text only: what the student's Python computes is the C source the part judges, nothing else.
The namespace also holds ANSWERS, {grade_id: source} of the notebook's answer cells above the
test as submitted: a part may run a Python answer again on inputs of its own (labs 00 (c),
02 (e) and 03 (e) run theirs on runs made or drawn apart, in a child process: answer_child.py).

The student's C runs in that process's children. The process makes itself undumpable first (its
memory and descriptors are then closed to processes of the same account), reads its whole input,
including a key only the grader and it know, before any C runs, and moves its own stdout and
stderr to a log, so a child inherits nothing of the result's channel. It signs each part's result
with the key (HMAC-SHA256); the grader reads only lines that carry a valid signature.

One process grades all of a submission's parts apart, one after the other (a Python start and a
sandbox each cost 0.6-0.8 s of CPU). In a sandbox, before each part after the first it puts the
box back as it started: every other process in the sandbox's PID namespace killed (a part's C
may leave one behind), the working folder, /tmp and /dev/shm emptied and filled again from the
seed (a part's C may plant a build, a file or an object for the next part, in a folder it made
read-only too); when something cannot be removed, the parts left run in a fresh sandbox. A part
past its time limit is stopped by an alarm; a part that ends the process (a crash, the memory
limit) loses its points alone: the parts after it run again in a fresh sandbox.

    is_apart(source)                the cell is graded apart
    c_sources(sources, before)      {NAME: the value `%%c NAME` gives} of the cells before `before`
    unwritten(source, c_cells)      the part fails without a run: every C cell it names is the stub
    Part(name, source, c_cells, timeout)   one cell to grade apart
    grade(parts, ...)               [{"error": [name, message] or None, "notes", "seconds"}] in order
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from contextlib import redirect_stdout
from dataclasses import dataclass

from ..kernels.build import APART_ENV, remove_all
from ..kernels.c_cells import MAGIC, STUB, cell_text, unanswered

MARK = "### GRADED APART"
ANSWERS = "ANSWER_CELLS"  # in the cell's namespace: {grade_id: source} of the answer cells above
KERNEL_SOURCE = (
    'print("This part is graded apart from your kernel: its tests run your answer cells (your C '
    'cells as your notebook holds them) again, in a fresh process after the notebook has run.")'
)
NOT_GRADED = "NotGradedApart"
TAG = "@apart "
MESSAGE = 2000  # characters of a failure's message kept (a judge's names what it saw at length)
_PR_SET_DUMPABLE = 4


def _mark(source: str) -> str | None:
    """The cell's `### GRADED APART[: names]` line, or None."""
    for line in source.splitlines():
        line = line.strip()
        if line == MARK or line.startswith(MARK + ":"):
            return line
    return None


def is_apart(source: str) -> bool:
    return _mark(source) is not None


def kernel_texts(source: str) -> list[str]:
    """The globals whose text the kernel hands out for the cell (`### GRADED APART: a, b`)."""
    names = [n.strip() for n in (_mark(source) or "").partition(":")[2].split(",") if n.strip()]
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise ValueError(f"{MARK}: {bad[0]!r} is not a Python name")
    return names


def kernel_source(source: str) -> str:
    """What the kernel runs in the cell's place: a note, and each named global handed out as
    text (handout.from_kernel; None when it is missing or not a string)."""
    lines = [KERNEL_SOURCE]
    names = kernel_texts(source)
    if names:
        lines.append("from hybridlab.grading.handout import from_kernel as _hl_hand_out")
        lines += [
            f"_hl_hand_out(lambda: (lambda v: v if isinstance(v, str) else None)"
            f"(globals().get({name!r})))"
            for name in names
        ]
    return "\n".join(lines)


def texts_handed(source: str, handed: list) -> dict[str, str | None]:
    """{name: text} of the cell's named globals from the values its kernel handed out (decoded),
    in order; anything but a string is None."""
    names = kernel_texts(source)
    given = [v if isinstance(v, str) else None for v in handed]
    return {n: (given[i] if i < len(given) else None) for i, n in enumerate(names)}


def c_sources(sources: list[str], before: int) -> dict[str, str]:
    """{NAME: text} of the `%%c NAME [KERNEL]` cells among sources[:before], each the value the
    magic gives NAME (c_cells.cell_text); a later cell of the same name replaces an earlier one."""
    found = {}
    for source in sources[:before]:
        head, _, body = source.lstrip("\n").partition("\n")
        words = head.split()
        if len(words) in (2, 3) and words[0] == f"%%{MAGIC}" and words[1].isidentifier():
            found[words[1]] = cell_text(body)
    return found


def unwritten(source: str, c_cells: dict[str, str]) -> dict | None:
    """The result of a cell whose C is not written: every `%%c` cell it names (and it names one,
    and no text of the kernel's) is still the released stub, which no part accepts (the kit's
    builds refuse it: student_c.build_student). Known without a sandbox; else None."""
    if kernel_texts(source):
        return None
    named = [name for name in c_cells if re.search(rf"\b{name}\b", source)]
    if not named or not all(unanswered(c_cells[name]) for name in named):
        return None
    return {"error": ["NotImplementedError", STUB], "notes": "", "seconds": 0.0}


def _sign(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


@dataclass
class Part:
    """One hidden test cell to grade apart: its part's name, its source, the C cells (and kernel
    texts, answer cells) its namespace holds, its time limit in seconds."""

    name: str
    source: str
    c_cells: dict
    timeout: float


def grade(parts: list[Part], *, limits=None, released=(), reset: bool = True) -> list[dict]:
    """Run `parts` apart, in order, in one process: in a fresh sandbox with `limits`
    (sandbox.Limits), put back as it started between parts when `reset` (the reference run's
    trusted code keeps its caches), else (`limits` None: `hybridlab grade --unsandboxed`) as a
    plain child process. Each draws its hidden inputs from the submission's seed, as the kernel
    would (hidden_inputs: the grader's environment). A part that ends the process gets the reason;
    the parts after it run again in a fresh one."""
    results: list[dict] = []
    while len(results) < len(parts):
        left = parts[len(results):]
        got, why, seconds = _one_process(left, limits, list(released), reset)
        results += got
        if len(got) < len(left) and why is not None:  # it ended in the part after the last
            results.append({"error": [NOT_GRADED, why], "notes": "", "seconds": seconds})
    return results


def _one_process(parts: list[Part], limits, released: list, reset: bool):
    """([result of each part the process finished, in order], why it ended early (None when it
    could not put the sandbox back: the parts left run in a fresh one), the seconds since its
    last result)."""
    key = secrets.token_bytes(32)
    given = {"key": key.hex(), "parts": [p.__dict__ for p in parts], "refill": None}
    if limits is not None and reset:
        from .sandbox import fill_steps

        given["refill"] = " && ".join(fill_steps())
    stdin = json.dumps(given)
    env = {k: v for k, v in os.environ.items() if k not in _HARNESS_ENV}
    command = [sys.executable, "-m", __name__]
    timeout = sum(p.timeout for p in parts) + 10.0 * len(parts)  # the alarms stop a part first
    started = time.monotonic()
    oom = False
    if limits is not None:
        from .sandbox import run_boxed

        status, out, oom = run_boxed(
            command, stdin=stdin, timeout=timeout, limits=limits, env=env, released=released
        )
    else:
        try:
            done = subprocess.run(
                command, input=stdin, capture_output=True, text=True, timeout=timeout, env=env
            )
            status, out = done.returncode, done.stdout
        except subprocess.TimeoutExpired as late:
            status, out = None, (late.stdout or b"").decode(errors="replace")
    results, fresh = [], False
    for line in out.splitlines():
        if line.startswith(TAG):
            signature, _, text = line[len(TAG) :].partition(" ")
            if hmac.compare_digest(signature, _sign(key, text)):
                result = json.loads(text)
                if result.pop("index") == len(results):
                    fresh = bool(result.get("fresh"))
                    if not fresh:
                        results.append(result)
    seconds = time.monotonic() - started - sum(r["seconds"] for r in results)
    if fresh:
        return results, None, seconds
    if status is None:
        why = _late(parts[len(results)].timeout if len(results) < len(parts) else timeout)
    elif oom:
        why = "the memory limit was hit"
    else:
        why = f"the test's process ended without a result (exit status {status})"
    return results, why, seconds


def _late(timeout: float) -> str:
    return f"the test ran past its time limit ({timeout:.0f} s): a deadlock, or far more work?"


def _harness_env() -> set[str]:
    """Variables of the kernel's harness an apart cell must not see: its runs are all real (no
    record, no replay, no runs log) and it hands nothing out."""
    from ..runs import replay
    from ..runs.run_format import ENV
    from . import handout

    return {ENV, replay.OWN, replay.LOG, handout.ENV}


_HARNESS_ENV = _harness_env()


class _Late(BaseException):
    """A part's alarm went off (BaseException: a kit's `except Exception` lets it through)."""


def _on_alarm(signum, frame):
    raise _Late


def _run(part: dict) -> dict:
    notes = io.StringIO()
    namespace = {"__name__": "apart", **part["c_cells"]}
    started = time.monotonic()
    signal.alarm(max(1, int(part["timeout"] + 0.999)))
    try:
        with redirect_stdout(notes):
            exec(compile(part["source"], f"<graded apart: {part['name']}>", "exec"), namespace)
        error = None
    except _Late:
        error = [NOT_GRADED, _late(part["timeout"])]
    except Exception as err:  # the part's failure, as a test cell's error would say it
        error = [type(err).__name__, str(err)[:MESSAGE]]
    finally:
        signal.alarm(0)
    return {"error": error, "notes": notes.getvalue()[-4000:],
            "seconds": time.monotonic() - started}  # fmt: skip


def _reset(refill: str) -> bool:
    """The sandbox as it started: every other process in its PID namespace killed (the namespace's
    first process is spared by the kernel), the working folder, /tmp and /dev/shm emptied and
    filled again from the seed (mount points stay, emptied). False when something could not be
    removed: the parts left then run in a fresh sandbox."""
    with open("/proc/1/comm") as first:
        boxed = first.read().strip() == "bwrap"  # never kill(-1) outside the sandbox's namespace
    for _ in range(1000 if boxed else 0):  # a process forking while it is killed: again
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break
        time.sleep(0.001)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break
    folders = (os.getcwd(), "/tmp", "/dev/shm")
    mounts = _mounts()
    read_only = {point for point, ro in mounts.items() if ro}
    for folder in folders:
        _empty(folder, read_only)
    if any(_left(folder, mounts) for folder in folders):
        return False
    subprocess.run(["/bin/sh", "-c", refill], check=True, stdout=subprocess.DEVNULL)
    return True


def _empty(folder: str, read_only: set[str]) -> None:
    """Remove everything under `folder`, whatever its modes (a part's code may make a folder
    read-only so that a plain rmtree leaves it: a fresh attacker's planted build, d10w); a mount
    point stays, emptied; a read-only mount (`read_only`: the kit's own code, bound where the
    grader's copy lies, under /tmp when it was cloned there) and the folders leading to one are
    left as they are."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.path in read_only:
                continue
            if any(m.startswith(entry.path + "/") for m in read_only):
                _empty(entry.path, read_only)
            else:
                remove_all(entry.path)


def _mounts() -> dict[str, bool]:
    """Where something is mounted in this process's view: {mount point: read-only}
    (/proc/self/mountinfo's fifth and sixth fields)."""
    found = {}
    with open("/proc/self/mountinfo") as info:
        for line in info:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])
            found[point] = "ro" in fields[5].split(",")
    return found


def _left(folder: str, mounts: dict[str, bool]) -> list[str]:
    """What is still under `folder` but mount points (emptied), the folders that lead to one (the
    box's kit-object folder is bound at /tmp/cache/objects) and what read-only mounts hold
    (`mounts`: _mounts(), read once by the caller)."""
    found = []
    for root, dirs, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files]
        for d in list(dirs):
            path = os.path.join(root, d)
            if mounts.get(path):  # read-only: nothing in it could have been left by a part
                dirs.remove(d)
            elif not any(m == path or m.startswith(path + "/") for m in mounts):
                found.append(path)
    return found


def main() -> None:
    """The process inside the sandbox: undumpable, its input read whole, each part's result
    signed on the stdout it kept; every child gets the log in its place."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.environ[APART_ENV] = "1"  # builds: only what this process made, or the seed's (build.py)
    given = json.loads(sys.stdin.read())
    key = bytes.fromhex(given.pop("key"))
    result = os.fdopen(os.dup(1), "w")  # not inherited (os.dup: close-on-exec)
    log_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "apart.log")
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the process's own, for its whole life
    signal.signal(signal.SIGALRM, _on_alarm)
    for index, part in enumerate(given["parts"]):
        if index and given["refill"] and not _reset(given["refill"]):
            text = json.dumps({"index": index, "fresh": True})  # the rest in a fresh sandbox
            result.write(f"{TAG}{_sign(key, text)} {text}\n")
            result.flush()
            return
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        for fd in (1, 2):
            os.dup2(log, fd)
        os.close(log)
        text = json.dumps({**_run(part), "index": index})
        result.write(f"{TAG}{_sign(key, text)} {text}\n")
        result.flush()


if __name__ == "__main__":
    main()
