"""The grader's side of judged hidden test cells (handout.py): the reference and the comparison
run here, in a fresh Python process the student's kernel never reaches.

    kernel_source(source)   the cell as the kernel runs it: each judge block replaced by `pass`
    judge(cells)            run each judged cell whole, from_kernel returning the values its
                            kernel handed out; per cell (error name and message, or None; notes)

A judged cell runs twice: in the kernel without its judge blocks (it draws the inputs and hands
out the student's answers), then here whole (it draws the same inputs from the same seed, reads
the handed-out answers in order and compares them with its reference). `python -m
hybridlab.grading.judge` is the fresh process: the cells as JSON on stdin, results on stdout.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import deque
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
    """Each cell {"part", "source", "values": the JSON lines its kernel handed out} judged in
    one fresh process: [{"error": [name, message] or None, "notes": what it printed}, ...]."""
    if not cells:
        return []
    try:
        done = subprocess.run(
            [sys.executable, "-m", __name__],
            input=json.dumps(cells),
            capture_output=True,
            text=True,
            timeout=SECONDS,
        )
        results = json.loads(done.stdout.strip().splitlines()[-1])
        if len(results) != len(cells):
            raise ValueError(f"{len(results)} results for {len(cells)} cells")
    except (subprocess.TimeoutExpired, ValueError, IndexError) as err:
        why = f"the grader's judge did not finish ({type(err).__name__}: {str(err)[:200]})"
        return [{"error": [NOT_JUDGED, why], "notes": ""} for _ in cells]
    return results


def _judge_one(cell: dict) -> dict:
    from . import handout

    notes = io.StringIO()
    try:
        try:
            handout._replayed = deque(json.loads(line) for line in cell["values"])
        except ValueError as cut:
            raise handout.HandOutMismatch(
                "a value the kernel handed out could not be read whole (cut at the grader's "
                f"read limit per cell?): {cut}"
            ) from None
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


def main() -> None:
    results = [_judge_one(cell) for cell in json.loads(sys.stdin.read())]
    print(json.dumps(results))


if __name__ == "__main__":
    main()
