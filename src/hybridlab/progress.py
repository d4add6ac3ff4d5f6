"""What a student sees while a long cell runs: one status line per cell, updated at every step.

    with progress.running("starting 2 engines (2 ranks x 1 thread, bind=none)"):
        ...

In a notebook, a cell that starts or stops a cluster, builds or runs kernels gets one line,
`hybridlab [3]: run hello_hybrid (1 rank x 2 threads, bind=none) ...` while the cell's 3rd step
runs, then `... : 0.8 s` when it is done; the line is rewritten in place as the cell moves on.
Outside a notebook (scripts, tests, the command line) nothing is shown; HYBRIDLAB_PROGRESS=0
hides it in notebooks too.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from time import monotonic

_line: dict[str, object] = {}  # this cell's execution count, display handle and step count


def notebook_kernel():
    """The IPython kernel shell this code runs in, or None (a script, a test, an engine's CLI).
    A kernel has imported IPython before any cell runs: a process that has not is none (and
    does not pay IPython's import to learn it)."""
    if "IPython" not in sys.modules:
        return None
    shell = sys.modules["IPython"].get_ipython()
    return shell if getattr(shell, "kernel", None) is not None else None


def _shell():
    """The notebook kernel, or None (no kernel, or progress turned off)."""
    if os.environ.get("HYBRIDLAB_PROGRESS") == "0":
        return None
    return notebook_kernel()


def show(text: str, *, new_step: bool = False) -> None:
    """Show `text` as this cell's status line (the first call in a cell adds the line)."""
    shell = _shell()
    if shell is None:
        return
    from IPython.display import display

    if _line.get("count") != shell.execution_count:
        _line.update(count=shell.execution_count, handle=None, steps=0)
    if new_step:
        _line["steps"] = int(_line["steps"]) + 1  # type: ignore[call-overload]
    shown = {"text/plain": f"hybridlab [{_line['steps']}]: {text}"}
    if _line["handle"] is None:
        _line["handle"] = display(shown, raw=True, display_id=True)
    else:
        _line["handle"].update(shown, raw=True)  # type: ignore[attr-defined]


@contextmanager
def running(what: str):
    """Show 'what ...' while the block runs, then 'what: 1.2 s' (or 'what: failed')."""
    show(f"{what} ...", new_step=True)
    start = monotonic()
    try:
        yield
    except BaseException:
        show(f"{what}: failed after {monotonic() - start:.1f} s")
        raise
    show(f"{what}: {monotonic() - start:.1f} s")
