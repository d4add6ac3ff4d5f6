"""Errors a run can end with, and reading which rank failed from the launcher's report."""

from __future__ import annotations

import re
import signal
import socket


class KernelError(RuntimeError):
    """A kernel reported an error (bad parameter, failed self-check...)."""


class KernelCrash(KernelError):
    """A rank died (segfault, abort, exit) while running a kernel; .rank and .node (its host
    name) say which, when known."""

    def __init__(self, message: str, rank: int | None = None, node: str | None = None):
        super().__init__(message)
        self.rank = rank
        self.node = node


class KernelTimeout(KernelError):
    """A kernel did not finish within its time limit (deadlock or endless loop)."""


class ThreadComplianceError(KernelError):
    """A traced kernel called MPI in a way its thread level does not allow
    (hybridlab.runs.compliance.check); .violations lists them, .level is the level asked for."""

    def __init__(self, violations: list, level: str, allows: str, shown: int = 8):
        self.violations, self.level = list(violations), level
        calls = sum(v.count for v in self.violations)
        lines = [f"- {v}" for v in self.violations[:shown]]
        if len(self.violations) > shown:
            lines.append(f"- ... and {len(self.violations) - shown} more kinds of call")
        super().__init__(
            f"{calls} MPI call(s) break thread level '{level}', which allows {allows}:\n"
            + "\n".join(lines)
        )


class RequestsLeftOpen(KernelError):
    """A traced kernel's own code (a student's cell) made requests active (non-blocking sends,
    receives or collectives, MPI_Start) that no wait, test or MPI_Request_free of it ended."""


class ClusterNotRunning(RuntimeError):
    """The cluster was stopped, or stopped itself after a crash or timeout."""


# Our own report, written by the kernel's signal handler (hl_runtime.h)
_OURS = re.compile(r"hybridlab: rank (?P<rank>\d+) died on signal (?P<signal>\d+)")
# MPICH (hydra) names the process id: "PID 4242 RUNNING AT vm\n=   EXIT CODE: 11"
_HYDRA = re.compile(r"PID (?P<pid>\d+) RUNNING AT (?P<node>\S+)\s*\n[=\s]*EXIT CODE: (?P<code>\d+)")
# Open MPI: "process rank 1 with PID 4242 on node vm exited on signal 11 (Segmentation fault)"
_OPENMPI = re.compile(
    r"process rank (?P<rank>\d+) with PID \d+ on node (?P<node>\S+) exited on signal "
    r"(?P<signal>\d+)"
)

# Slurm's srun: "srun: error: vm: task 1: Segmentation fault" (or "Killed", "Exited with exit code 3")
_SRUN = re.compile(r"srun: error: (?P<node>\S+): tasks? (?P<rank>\d+)[-\d,]*: (?P<how>[^\n]+)")


def _signal_name(number: int) -> str:
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def failed_rank(output: str, ranks_by_pid: dict[int, int] | None = None) -> tuple[int | None, str]:
    """The rank the output reports as dead and how it died; (None, '') when none is named."""
    for pattern in (_OURS, _OPENMPI):
        m = pattern.search(output)
        if m:
            return int(m["rank"]), _signal_name(int(m["signal"]))
    m = _HYDRA.search(output)
    if m:
        code = int(m["code"])
        how = _signal_name(code) if 0 < code < 64 else f"exit code {code}"
        return (ranks_by_pid or {}).get(int(m["pid"])), how
    m = _SRUN.search(output)
    if m:
        return int(m["rank"]), m["how"].strip()
    return None, ""


def failed_node(output: str) -> str | None:
    """The node (host name) the launcher's report names for the rank that died, if it does."""
    for pattern in (_OPENMPI, _HYDRA, _SRUN):
        m = pattern.search(output)
        if m:
            return m["node"]
    return None


def on_node(node: str | None, spans_nodes: bool) -> str:
    """' on node2' when naming the node tells something: the ranks span several nodes, or the
    rank ran on another node than this process; else ''."""
    if node and (spans_nodes or node != socket.gethostname()):
        return f" on {node}"
    return ""
