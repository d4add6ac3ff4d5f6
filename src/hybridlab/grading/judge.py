"""The grader's side of judged hidden test cells (handout.py): the reference and the comparison
run here, in a fresh Python process the student's kernel never reaches.

    kernel_source(source)   the cell as the kernel runs it: each judge block replaced by `pass`
    judge(cells)            run each judged cell whole, from_kernel returning the values its
                            kernel handed out; per cell (error name and message, or None; notes)

A judged cell runs twice: in the kernel without its judge blocks (it draws the inputs and hands
out the student's answers), then here whole (it draws the same inputs from the same seed, reads
the handed-out answers in order and compares them with its reference). The fresh process is a
child forked from the grader's (nothing it changes comes back but its results): it starts with
the modules the grader imported, numpy and pandas among them (the pool's zygote imports them with
the grading modules, zygote.py), which a new Python imported for every submission (0.3-0.4 CPU s).
"""

from __future__ import annotations

import io
import json
import os
import select
import signal
import time
from collections import deque
from collections.abc import Callable
from contextlib import redirect_stdout

BEGIN, END = "### BEGIN JUDGE", "### END JUDGE"
SECONDS = 300  # for all judged cells of one notebook together
MESSAGE = 500  # characters of a failure's message kept
NOT_JUDGED = "NotJudged"


def is_judged(source: str) -> bool:
    return BEGIN in source


def kernel_source(source: str) -> str:
    """`source` without its judge blocks, each replaced by a `pass` at its indentation (so a
    block may end a loop or a function); an unclosed or nested block is an authoring error."""
    lines, inside = [], False
    for number, line in enumerate(source.splitlines(), 1):
        text = line.strip()
        if text.startswith(BEGIN) or text.startswith(END):
            if inside == text.startswith(BEGIN):
                raise ValueError(f"line {number}: {text[:40]!r} without its pair")
            inside = not inside
            if inside:
                lines.append(line[: len(line) - len(line.lstrip())] + "pass  # (the grader's side)")
        elif not inside:
            lines.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r}")
    return "\n".join(lines)


def judge(cells: list[dict]) -> list[dict]:
    """Each cell {"part", "source", "values": the lines the grader took from the hand-out
    channel after it, "grade_id": the part its frames must name (handout.values; "part" when
    missing)} judged in one fresh process: [{"error": [name, message] or None, "notes": what it
    printed}, ...]. A line that is not one of the cell's own frames in order fails the cell."""
    if not cells:
        return []
    try:
        results = json.loads(_forked(lambda: json.dumps([_judge_one(c) for c in cells]), SECONDS))
        if len(results) != len(cells):
            raise ValueError(f"{len(results)} results for {len(cells)} cells")
    except (TimeoutError, ValueError) as err:
        why = f"the grader's judge did not finish ({type(err).__name__}: {str(err)[:200]})"
        return [{"error": [NOT_JUDGED, why], "notes": ""} for _ in cells]
    return results


def _forked(work: Callable[[], str], seconds: float) -> str:
    """work()'s text, made in a child forked from this process (it ends there: nothing else of
    it comes back; "" when it failed); TimeoutError when not done within `seconds` (killed)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                out.write(work().encode())
        finally:
            os._exit(0)  # no exit handlers: they are the grader's (its kernel client, its log)
    os.close(write)
    chunks, deadline = [], time.monotonic() + seconds
    try:
        while chunk := _read_by(read, deadline, seconds):
            chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")
    finally:
        os.close(read)
        os.kill(pid, signal.SIGKILL)  # done, or past its time (unreaped, its pid is not reused)
        os.waitpid(pid, 0)


def _read_by(fd: int, deadline: float, seconds: float) -> bytes:
    """The next bytes of the pipe (b"" at its end), or TimeoutError past `deadline`."""
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([fd], [], [], left)[0]:
        raise TimeoutError(f"not done within {seconds:g} s")
    return os.read(fd, 1 << 20)


def _judge_one(cell: dict) -> dict:
    from . import handout

    notes = io.StringIO()
    try:
        handout._replayed = deque(handout.values(cell["values"], cell.get("grade_id", cell["part"])))
        with redirect_stdout(notes):
            exec(compile(cell["source"], f"<judge {cell['part']}>", "exec"), {"__name__": "judge"})
        if handout._replayed:
            raise handout.HandOutMismatch(
                f"the kernel handed out {len(handout._replayed)} value(s) more than the test reads"
            )
        error = None
    except Exception as err:  # the part's failure, as a test cell's error would say it
        error = [type(err).__name__, str(err)[:MESSAGE]]
    finally:
        handout._replayed = None
    return {"error": error, "notes": notes.getvalue()[-4000:]}
