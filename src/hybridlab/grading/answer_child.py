"""A student's answer cells run again, apart, on a run the grader made (labs 02 (e), 03 (e)).

A part graded apart (apart.py) builds and runs the student's C in its own process, then runs the
Python answer cells that read that run in a child process: the child gets the names the cells
read (pickled on its stdin) and gives back plain values (JSON in a file), so the student's code
never touches the run, the grading process (undumpable) or its result. The child starts first,
so its imports overlap the build and the run.

    with answer_child(CHILD, PRELUDE, "hl-overlap-") as hand:
        ... build, run ...
        got = hand({"names": ..., ...}, timeout)   # the child's JSON, or None

CHILD is the child's program: it runs sys.argv[1] (PRELUDE: the lab's first-cell imports), reads
the pickle, runs the cells and writes its JSON to sys.argv[2]. Where no grader hands the answer
cells (the notebook run whole in Jupyter), answers_in_history finds them in the kernel's inputs.
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
from pathlib import Path


@contextmanager
def answer_child(
    child: str, prelude: str, prefix: str
) -> Iterator[Callable[[dict, float], dict | None]]:
    """Start the child; yield hand(given, timeout): what it wrote (a dict), or None when it ran
    past `timeout`, broke its pipe or wrote nothing readable. The child is killed on the way out."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        result = Path(tmp) / "answers.json"
        proc = subprocess.Popen([sys.executable, "-c", child, prelude, str(result)], cwd=tmp,
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=dict(os.environ))  # fmt: skip

        def hand(given: dict, timeout: float) -> dict | None:
            try:
                proc.communicate(pickle.dumps(given), timeout=timeout)
                got = json.loads(result.read_text()) if result.exists() else None
            except (subprocess.TimeoutExpired, BrokenPipeError, ValueError):
                return None
            return got if isinstance(got, dict) else None

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
