"""One submission's `nbgrader autograde` forked from a process that imported nbgrader once.

A fresh `nbgrader autograde` process spends about 1.3 CPU seconds importing nbgrader, nbconvert,
jupyter_client and the kit's grading modules before it grades anything; in a class of 30 on two
cores that is 20 s of the class's time. The pool (pool.py) starts one zygote per grading run
(`python -m hybridlab.grading.zygote`): it imports those modules, then forks one child per
submission. The child is what the command would have been as a fresh process: its own session,
working folder, environment (the job's whole, nothing of the zygote's), argv and log; it runs
the command's first word, a Python script (nbgrader's, the venv's console script), as
`__main__`, and exits with its status. Nothing passes from one child to the next: each
is a copy of the zygote as it was before any submission, which never grades, computes or starts a
thread itself.

The zygote reads one JSON job per line on stdin ({"id", "command", "env", "cwd", "log"}) and says
on stdout `started ID PID` after each fork and `ended ID STATUS` when that child ends (STATUS:
the exit status, or -N for signal N). It ends when its stdin closes, after its children.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import select
import sys

PRELOAD = (
    "nbgrader.apps.nbgraderapp",
    "nbgrader.converters.autograde",
    "nbgrader.preprocessors",
    "nbclient",
    "jupyter_client.manager",
    "hybridlab.grading.execute",
)


def _child(job: dict) -> int:
    """In the forked child: become the job's process, run its command's script."""
    os.setsid()
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(null)
    sys.argv = list(job["command"])
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
        status = 0
    except SystemExit as done:
        status = done.code
    except BaseException:  # as the interpreter would: the traceback on stderr, status 1
        import traceback

        traceback.print_exc()
        status = 1
    if status is None:
        status = 0
    elif not isinstance(status, int):
        print(status, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    return status


def _say(line: str) -> None:
    os.write(1, (line + "\n").encode())


def serve() -> None:
    """Import once, then fork a child per job line until stdin closes and every child ended."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    children: dict[int, str] = {}
    reading = True
    buffer = b""
    while reading or children:
        if reading:
            ready, _, _ = select.select([0], [], [], 0.05)
        else:
            ready = []
            select.select([], [], [], 0.05)
        if ready:
            chunk = os.read(0, 65536)
            reading = bool(chunk)
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                job = json.loads(line)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    code = 1
                    try:
                        code = _child(job)
                    finally:
                        try:
                            sys.stdout.flush()
                            sys.stderr.flush()
                        finally:
                            os._exit(code & 0xFF)
                children[pid] = job["id"]
                _say(f"started {job['id']} {pid}")
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            _say(f"ended {children.pop(pid)} {os.waitstatus_to_exitcode(status)}")


if __name__ == "__main__":
    serve()
