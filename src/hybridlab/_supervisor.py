"""Watch the engines of one Cluster: timeouts, crash detection, which rank died, killing.

The supervisor knows the launcher processes (mpiexec), where the kernels write their crash
reports, and the cluster's tag; it knows nothing of how the engines were started, so Cluster's
life cycle and this watching stay separate units.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from . import _reaper as reaper
from .errors import KernelCrash, KernelTimeout, failed_rank

POLL_SECONDS = 0.05
REPORT_SECONDS = 2.0  # how long a dying launcher gets to finish writing its report


class Supervisor:
    def __init__(self, tag: str, crash_file: Path):
        self.tag = tag
        self.crash_file = crash_file
        self.launchers: list[psutil.Process] = []
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

    def kill(self) -> None:
        """SIGKILL everything of this cluster at once (engines, launcher, controller)."""
        reaper.kill(reaper.tagged(self.tag) + self.launchers)

    def wait(
        self,
        result: Any,
        name: str,
        limit: float,
        stop: Callable[[str], None],
        ranks_by_pid: dict[int, int],
    ) -> None:
        """Wait for an ipyparallel AsyncResult; on a hang, a death or ^C call stop(reason), raise."""
        start = time.monotonic()
        while not result.ready():
            if not self.launcher_alive():
                self.crashed(name, stop, ranks_by_pid)
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

    def crashed(self, name: str, stop: Callable[[str], None], ranks_by_pid: dict[int, int]):
        """An engine died: find the rank from the launcher's report, stop(reason), raise."""
        deadline = time.monotonic() + REPORT_SECONDS
        while self.launcher_alive() and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)  # the launcher is still writing its report
        rank, how = failed_rank(self.output(), ranks_by_pid)
        where = f"rank {rank}" if rank is not None else "a rank"
        stop(f"{where} died running {name}")
        raise KernelCrash(
            f"{where} died while running {name}{f' ({how})' if how else ''}; "
            "the engines were stopped: call cluster.restart()",
            rank,
        )
