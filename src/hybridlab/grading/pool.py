"""Grade several submissions at once: a pool sized from the machine and the lab, a progress bar.

Each job is one `nbgrader autograde LAB --student S` subprocess (its kernel in a sandbox); the
pool only starts, times and, past a backstop, kills them. A lab needs ranks x threads CPUs while
its cells compute, but a submission spends much of its time starting kernels and engines, so the
default pool is twice what the cores hold (at least 1), or cores + 1 when the submissions replay
the solution's kernel runs instead of computing them; when the pool's ranks would oversubscribe
the cores, the MPI is told to yield while waiting (placement.MPICH_THROTTLE and
OPENMPI_THROTTLE: each MPI reads only its own), as the harness does for an oversubscribed run.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import psutil

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


_LIVE: set[int] = set()  # pids of the nbgrader processes running now (killed if we are stopped)


def _run(job: Job) -> Job:
    start = time.monotonic()
    proc = subprocess.Popen(
        job.command,
        cwd=job.cwd,
        env=job.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    _LIVE.add(proc.pid)
    try:
        out, _ = proc.communicate(timeout=job.timeout)
    except subprocess.TimeoutExpired:
        job.killed = True
        _kill_tree(proc.pid)
        out, _ = proc.communicate()
    finally:
        _LIVE.discard(proc.pid)
    job.returncode = proc.returncode
    job.seconds = time.monotonic() - start
    job.log = out[-20000:]
    return job


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
            return _run(job)
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
    order = {job.student: i for i, job in enumerate(jobs)}
    return sorted(done, key=lambda j: order[j.student])
