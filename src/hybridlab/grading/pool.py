"""Grade several submissions at once: a pool sized from the machine and the lab, a progress bar.

Each job is one `nbgrader autograde LAB --student S` process (its kernel in a sandbox), forked
from a zygote that imported nbgrader once (zygote.py); the pool only starts, times and, past a
backstop, kills them. A lab needs ranks x threads CPUs while its cells compute, but a
submission spends much of its time starting kernels and engines, so the
default pool is twice what the cores hold (at least 1), or cores + 1 when the submissions replay
the solution's kernel runs instead of computing them; when the pool's ranks would oversubscribe
the cores, the MPI is told to yield while waiting (placement.MPICH_THROTTLE and
OPENMPI_THROTTLE: each MPI reads only its own), as the harness does for an oversubscribed run.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from ..machine import reaper
from ..machine.placement import MPICH_THROTTLE, OPENMPI_THROTTLE


def lab_needs(notebook_source: str) -> int:
    """CPUs one submission keeps busy: the largest ranks x threads its cells ask for."""
    ranks = [int(n) for n in re.findall(r"ranks\s*=\s*(\d+)", notebook_source)] or [2]
    threads = [int(n) for n in re.findall(r"threads\s*=\s*(\d+)", notebook_source)] or [1]
    return max(1, max(ranks) * max(threads))


def default_jobs(needs: int, cores: int | None = None, *, replaying: bool = False) -> int:
    """Submissions at once. When they replay the solution's kernel runs (replay.py), what is
    left is mostly one Python process each (measured on 2 cores: 11-16 CPU seconds over 10-15 s
    of a submission graded alone), so cores + 1; otherwise twice the cores over the lab's CPUs."""
    cores = cores or len(os.sched_getaffinity(0))
    if replaying:
        return cores + 1
    return max(1, math.ceil(2 * cores / needs))


def environment_for(jobs: int, needs: int, base: dict[str, str]) -> dict[str, str]:
    env = dict(base)
    if jobs * needs > len(os.sched_getaffinity(0)):
        env.update(MPICH_THROTTLE | OPENMPI_THROTTLE)
    return env


@dataclass
class Job:
    student: str
    command: list[str]
    env: dict[str, str]
    cwd: Path
    timeout: float
    returncode: int | None = None
    seconds: float = 0.0
    killed: bool = False
    log: str = ""
    extra: dict = field(default_factory=dict)
    then: list[list[str]] = field(default_factory=list)  # nbgrader commands run after, if it passed


_LIVE: set[int] = set()  # pids of the nbgrader processes running now (killed if we are stopped)
LOG_TAIL = 20000  # characters of a job's output kept


class Zygote:
    """The zygote process of one pool (zygote.py) and the thread that reads what it says."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hybridlab.grading.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        self.lock = threading.Lock()
        self.started: dict[str, int] = {}
        self.ended: dict[str, int] = {}
        self.changed = threading.Condition(self.lock)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            word, job, number = raw.decode().split()
            with self.changed:
                (self.started if word == "started" else self.ended)[job] = int(number)
                self.changed.notify_all()
        with self.changed:  # the zygote is gone: nothing more will start or end
            self.ended.setdefault("", -1)
            self.changed.notify_all()

    def _wait(self, table: dict, key: str, timeout: float | None) -> int | None:
        with self.changed:
            self.changed.wait_for(lambda: key in table or "" in self.ended, timeout)
            return table.get(key)

    def run(self, job: Job) -> Job:
        """The job's command, then, when it succeeded, each of `job.then` (their exit statuses
        in job.extra["then"]); every one a child of the zygote. job.seconds: the first's."""
        start = time.monotonic()
        job.returncode, job.log, job.killed = self._child(job.student, job.command, job)
        job.seconds = time.monotonic() - start
        for i, command in enumerate(job.then):
            if job.returncode != 0:
                break
            status, _, _ = self._child(f"{job.student}/{i + 1}", command, job)
            job.extra.setdefault("then", []).append(status)
        return job

    def _child(self, key: str, command: list[str], job: Job) -> tuple[int, str, bool]:
        """(exit status, -1 when unknown; the tail of its output; killed past job.timeout)"""
        killed = False
        with tempfile.TemporaryDirectory(prefix="hybridlab-job-") as folder:
            log = Path(folder) / "log"
            line = {"id": key, "command": command, "env": job.env, "cwd": str(job.cwd),
                    "log": str(log)}  # fmt: skip
            with self.lock:
                self.proc.stdin.write((json.dumps(line) + "\n").encode())
                self.proc.stdin.flush()
            pid = self._wait(self.started, key, 60)
            if pid is None:
                raise RuntimeError(f"the grading zygote did not start {key}'s job")
            _LIVE.add(pid)
            try:
                status = self._wait(self.ended, key, job.timeout)
                if status is None:
                    killed = True
                    _kill_tree(pid)
                    status = self._wait(self.ended, key, 60)
            finally:
                _LIVE.discard(pid)
            out = log.read_text(errors="replace")[-LOG_TAIL:] if log.exists() else ""
        return (-1 if status is None else status), out, killed

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            _kill_tree(self.proc.pid)


def _kill_tree(pid: int) -> None:
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=10)


def run(
    jobs: list[Job],
    workers: int,
    *,
    progress: bool = True,
    after: Callable[[Job], None] | None = None,
) -> list[Job]:
    """Run the jobs, `workers` at a time, with a tqdm bar (done/total, current, elapsed) on a
    terminal; elsewhere (a log file, a pipe, a CI job) one plain line per finished job."""
    from tqdm.auto import tqdm

    lines = progress and not sys.stderr.isatty()

    running: list[str] = []
    lock = threading.Lock()

    def one(job: Job) -> Job:
        with lock:
            running.append(job.student)
            bar.set_postfix_str("grading " + ", ".join(running[-3:]), refresh=True)
        try:
            return zygote.run(job)
        finally:
            with lock:
                running.remove(job.student)

    with tqdm(
        total=len(jobs),
        unit="submission",
        disable=not progress or lines,
        dynamic_ncols=True,
        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}] {postfix}",
    ) as bar:
        done = []
        zygote = Zygote({k: v for k, v in os.environ.items() if k != reaper.SESSION})
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        futures = [pool.submit(one, job) for job in jobs]
        try:
            for future in as_completed(futures):
                job = future.result()
                if after is not None:
                    after(job)
                done.append(job)
                bar.update(1)
                if lines:
                    print(f"graded {len(done)}/{len(jobs)}: {job.student} ({job.seconds:.0f} s)",
                          file=sys.stderr, flush=True)  # fmt: skip
                with lock:
                    bar.set_postfix_str(
                        f"last: {job.student} ({job.seconds:.0f} s)"
                        + (f"; grading {', '.join(running[-3:])}" if running else ""),
                        refresh=True,
                    )
        except BaseException:  # Ctrl-C or an error: stop every submission still running
            for future in futures:
                future.cancel()
            for pid in list(_LIVE):
                _kill_tree(pid)
            raise
        finally:
            pool.shutdown(wait=True)
            zygote.close()
    order = {job.student: i for i, job in enumerate(jobs)}
    return sorted(done, key=lambda j: order[j.student])
