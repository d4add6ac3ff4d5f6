"""Watch the engines of one Cluster: timeouts, crash detection, which rank died, killing.

The supervisor knows the launcher processes (mpiexec or srun), where the kernels write their crash
reports, and the cluster's tag; it knows nothing of how the engines were started, so Cluster's
life cycle and this watching stay separate units.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from ..errors import KernelCrash, KernelTimeout, failed_node, failed_rank, on_node
from ..machine import reaper

POLL_SECONDS = 0.05
LAUNCHER_EXIT_SECONDS = 3.0  # mpiexec exits within ms once its ranks are gone
REPORT_SECONDS = 2.0  # how long a dying launcher gets to finish writing its report


class Supervisor:
    def __init__(self, tag: str, crash_file: Path):
        self.tag = tag
        self.crash_file = crash_file
        self.launchers: list[psutil.Process] = []
        self.segments: set[str] = set()  # MPI shared-memory files of this cluster's ranks
        self.noted = False  # the segments were noted once every rank had initialised MPI
        self._output: Callable[[], str] = lambda: ""

    def watch(self, launchers: list[psutil.Process], output: Callable[[], str]) -> None:
        """The launcher processes of a fresh start, and how to read what they printed."""
        self.launchers = list(launchers)
        self._output = output

    def forget(self) -> None:
        self.launchers = []
        self._output = lambda: ""

    def launcher_alive(self) -> bool:
        if not self.launchers:
            return False
        for proc in self.launchers:
            try:
                if not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE:
                    return False
            except psutil.Error:
                return False
        return True

    def wait_for_launcher(self, seconds: float) -> None:
        psutil.wait_procs(self.launchers, timeout=seconds)

    def output(self) -> str:
        """The kernels' own crash reports, then what the launcher printed."""
        crash = self.crash_file.read_text() if self.crash_file.exists() else ""
        try:
            printed = self._output()
        except OSError:
            printed = ""
        return crash + printed

    def ranks(self) -> list[psutil.Process]:
        """The engines: the launcher's descendants that are not part of the launcher. srun's
        ranks are children of Slurm's step daemon, not of srun: they are found by the crash
        file their environment names (this cluster's own)."""
        found = []
        for launcher in self.launchers:
            try:
                found += [
                    p for p in launcher.children(recursive=True) if p.name() not in reaper.LAUNCHERS
                ]
            except psutil.Error:
                continue
        if found or not self.launchers:
            return found
        return [p for p in reaper.tagged(self.tag) if self._is_rank(p)]

    def _is_rank(self, proc: psutil.Process) -> bool:
        try:
            return proc.name() not in reaper.LAUNCHERS and proc.environ().get(
                "HL_CRASH_FILE"
            ) == str(self.crash_file)
        except psutil.Error:
            return False

    def note_segments(self) -> None:
        """Remember the MPI segments the engines map (call once every rank has initialised
        MPI), so that stop() can remove them even after the ranks died."""
        self.segments |= _shared_memory(self.ranks())  # none with MPICH: it unlinks them
        self.noted = True

    def stop(self, others: list[psutil.Process]) -> bool:
        """Kill the engines and `others` (the controller) at once, let the launcher exit by
        itself (so it removes its own files), and remove the MPI segments the engines mapped.

        Faster than asking each engine to shut down (a Python exit and MPI_Finalize each).
        Returns True when that was all: the segments were noted and the launcher exited by
        itself. Otherwise the caller cleans up with the reaper's scans.
        """
        engines = self.ranks()
        noted, self.noted = self.noted, False
        segments = self.segments | _shared_memory(engines)
        reaper.end_steps(self.launchers)  # srun: the ranks on other nodes too
        reaper.kill(engines + others)
        alive = [p for p in self.launchers if not reaper.wait_dead([p], LAUNCHER_EXIT_SECONDS)]
        reaper.kill(alive)
        for path in segments:
            with contextlib.suppress(OSError):
                os.remove(path)
        self.segments = set()
        return noted and not alive

    def wait(
        self,
        result: Any,
        name: str,
        limit: float,
        stop: Callable[[str], None],
        ranks_by_pid: dict[int, int],
        nodes: dict[int, str] | None = None,
    ) -> None:
        """Wait for an ipyparallel AsyncResult; on a hang, a death or ^C call stop(reason), raise.
        `nodes`: the host (node) of each rank, to name where a rank died."""
        start = time.monotonic()
        while not result.ready():
            if not self.launcher_alive():
                self.crashed(name, stop, ranks_by_pid, nodes)
            if time.monotonic() - start > limit:
                stop(f"{name} timed out")
                raise KernelTimeout(
                    f"{name} did not finish within {limit:g} s (a deadlock or an endless loop?); "
                    "the engines were stopped: call cluster.restart()"
                )
            try:
                result.wait(POLL_SECONDS)
            except KeyboardInterrupt:
                # the engines cannot be interrupted inside C code: stop them, keep the notebook
                stop(f"{name} was interrupted")
                raise

    def crashed(
        self,
        name: str,
        stop: Callable[[str], None],
        ranks_by_pid: dict[int, int],
        nodes: dict[int, str] | None = None,
    ):
        """An engine died: find the rank (and its node) from the launcher's report, stop(reason),
        raise."""
        deadline = time.monotonic() + REPORT_SECONDS
        while self.launcher_alive() and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)  # the launcher is still writing its report
        output = self.output()
        rank, how = failed_rank(output, ranks_by_pid)
        node = (nodes or {}).get(rank) if rank is not None else None
        node = node or failed_node(output)
        spans = len(set((nodes or {}).values())) > 1
        who = (f"rank {rank}" if rank is not None else "a rank") + on_node(node, spans)
        stop(f"{who} died running {name}")
        raise KernelCrash(
            f"{who} died while running {name}{f' ({how})' if how else ''}; "
            "the engines were stopped: call cluster.restart()",
            rank,
            node,
        )


def _shared_memory(procs: list[psutil.Process]) -> set[str]:
    """MPI shared-memory files the processes map (read from /proc/<pid>/maps: cheap)."""
    found: set[str] = set()
    for proc in procs:
        try:
            with open(f"/proc/{proc.pid}/maps") as maps:
                paths = {line.split(maxsplit=5)[-1].strip() for line in maps if "/dev/shm/" in line}
            paths = {p for p in paths if not p.endswith("(deleted)")}  # already unlinked
        except OSError:
            continue
        found |= {
            p for p in paths if any(fnmatch.fnmatch(p, pattern) for pattern in reaper.SHM_PATTERNS)
        }
    return found
