"""A student's answer cells run again, apart, on inputs the grader made (labs 00 (c), 02 (e),
03 (e)).

A part graded apart (apart.py) runs in a process of the grader's, which makes or draws the runs
the lab's cells would have made, then runs the Python answer cells that read them in a child
process: the child gets the names the cells read (pickled on its stdin) and gives back plain
values (JSON in a file), so the student's code never touches the runs, the grading process
(undumpable) or its result. The child starts first, so its imports overlap the build and the run.

    with answer_child(PRELUDE, "hl-overlap-") as hand:
        ... build, run ...
        got = hand(Answers(names, answers, order, read, calls), timeout)

PRELUDE is the lab's first-cell imports. The child runs the answer cells of `order` (a failure of
any but the last is left to its own part's test), then gives back each name of `read` and what
each call of `calls` returned, made plain by its kind ("float", "floats", "str" or "data": numbers,
text, None, and lists and dicts of them); or the error.
Where no grader hands the answer cells (the notebook run whole in Jupyter), answers_in_history
finds them in the kernel's inputs.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path

# the child: the prelude's imports, then (once the parent's pickle arrives) the answer cells, the
# names read and the calls made, written to sys.argv[2] as {"read", "calls"} or {"error"}
_CHILD = r"""
import json, pickle, sys

def plain(value, kind):
    if kind == "float":
        return float(value)
    if kind == "floats":
        return [float(v) for v in value]
    if kind == "data":  # numbers, text, None and lists (tuples) and dicts of them; else its text
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
            return plain(value.item(), kind)
        if hasattr(value, "tolist"):  # a numpy array, a pandas Series or Index
            return plain(value.tolist(), kind)
        if isinstance(value, (list, tuple, set, frozenset)):
            return [plain(v, kind) for v in value]
        if isinstance(value, dict):
            return {str(k): plain(v, kind) for k, v in value.items()}
    return str(value)

ns = {"__name__": "__main__"}
exec(sys.argv[1], ns)
given = pickle.load(sys.stdin.buffer)
ns.update(given["names"])
try:
    for part in given["order"]:
        last = part == given["order"][-1]
        source = given["answers"].get(part)
        if source is None and last:
            raise LookupError(f"the notebook has no answer cell {part}")
        try:
            exec(compile(source or "", f"<your answer cell {part}>", "exec"), ns)
        except Exception:
            if last:
                raise
    read = {}
    for name, kind in given["read"].items():
        if ns.get(name) is None:
            raise NotImplementedError(f"{name} is not set")
        read[name] = plain(ns[name], kind)
    result = {"read": read,
              "calls": [plain(ns[name](*args), kind) for name, args, kind in given["calls"]]}
except BaseException as err:
    result = {"error": f"{type(err).__name__}: {err}"[:600]}
with open(sys.argv[2], "w") as f:
    json.dump(result, f)
"""


@dataclass
class Answers:
    """What the child is given: `names` bound before the cells run, the answer cells (grade id
    -> source) and the `order` they run in, the names to `read` ({name: kind}) and the `calls`
    to make ([(function name, args, kind)])."""

    names: dict
    answers: dict[str, str]
    order: list[str]
    read: dict[str, str] = field(default_factory=dict)
    calls: list[tuple] = field(default_factory=list)


@contextmanager
def answer_child(prelude: str, prefix: str) -> Iterator[Callable[[Answers, float], dict]]:
    """Start the child; yield hand(answers, timeout): {"read": {name: value}, "calls": [value]}
    or {"error": the cells' failure}, also when the child ran past `timeout`, broke its pipe or
    wrote nothing readable. The child is killed on the way out."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        result = Path(tmp) / "answers.json"
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, prelude, str(result)], cwd=tmp,
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=dict(os.environ))  # fmt: skip

        def hand(given: Answers, timeout: float) -> dict:
            try:
                proc.communicate(pickle.dumps({f.name: getattr(given, f.name) for f in fields(given)}),
                                 timeout=timeout)  # not asdict: it takes a Results apart
                got = json.loads(result.read_text()) if result.exists() else None
            except (subprocess.TimeoutExpired, BrokenPipeError, ValueError):
                got = None
            if isinstance(got, dict) and ("error" in got or {"read", "calls"} <= set(got)):
                return got
            what = f"setting {', '.join(given.read)}" if given.read else "an answer"
            return {"error": f"your answer cell ended without {what} (or ran past {timeout:.0f} s)"}

        try:
            yield hand
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def answers_in_history(marks: dict[str, str]) -> dict[str, str]:
    """{grade id: the last input of the kernel's history that matches its regex in `marks`}: the
    answer cells of a notebook run whole in Jupyter, where no grader hands them (hidden test
    cells left out)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    inputs = [str(i) for i in (shell.user_ns.get("In", []) if shell is not None else [])
              if "HIDDEN TESTS" not in str(i)]  # a hidden test cell's delimiter  # fmt: skip
    found = {}
    for part, mark in marks.items():
        hits = [i for i in inputs if re.search(mark, i)]
        if hits:
            found[part] = hits[-1]
    return found
