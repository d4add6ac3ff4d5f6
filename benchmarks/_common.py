"""What every benchmark shares: the machine description, the load beside the figures,
statistics (from hybridlab.runs.stats, the kit's own method), Markdown tables and report writing.

Benchmarks are scripts run from the repository (`python benchmarks/bench_x.py`), so this module
is imported as `_common` from the benchmarks folder.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import psutil

import hybridlab as hl
from hybridlab.machine.topology import compiler_info, find_mpiexec
from hybridlab.runs.stats import summarize

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PACKAGES = ("ipyparallel", "mpi4py", "mpich", "pyzmq")
BUSY_PERCENT = 10  # another process using this much CPU disturbs a 2-core machine's figures


class Progress:
    """`[name  12.3 s] message` lines on stderr, timed from the benchmark's start."""

    def __init__(self, name: str):
        self.name = name
        self.t0 = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def __call__(self, message: str) -> None:
        print(f"[{self.name} {self.elapsed():6.1f} s] {message}", file=sys.stderr, flush=True)


def run_text(cmd: list[str], timeout: float = 30) -> str:
    """A command's stdout, stripped; empty when it cannot run."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def relative(path: str | Path | None) -> str | None:
    """A path relative to the repository: reports record no machine's folders."""
    return None if path is None else os.path.relpath(path, REPO)


def describe_machine() -> dict[str, object]:
    """The machine, the MPI, the compiler, the packages, the commit and the date (UTC)."""
    topo = hl.read_topology()
    mpi = find_mpiexec()
    commit = run_text(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = run_text(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"])
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "os": f"{platform.system()} {platform.release()}",
        "cpu_model": _cpu_model(),
        "topology": topo.summary(),
        "usable_cpus": list(topo.usable),
        "cores": len(topo.cores),
        "numa_nodes": len(topo.numa_nodes),
        "mpi": {
            "implementation": mpi.implementation,
            "version": mpi.version,
            "mpiexec": relative(mpi.mpiexec),
            "in_venv": mpi.in_venv,
        },
        "compiler": compiler_info(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "unset (libgomp default)"),
        "python": platform.python_version(),
        "packages": {p: _version(p) for p in PACKAGES},
        "git": f"{commit}{' (uncommitted changes)' if dirty else ''}" if commit else "unknown",
    }


def machine_lines(m: dict) -> list[str]:
    """The machine in a few Markdown bullet lines, for a report's header."""
    mpi = m["mpi"]
    return [
        f"- date (UTC): {m['date']}, host: {m['host']}, git: {m['git']}",
        f"- CPU: {m['cpu_model']}; {len(m['usable_cpus'])} usable CPUs, {m['cores']} cores, "
        f"{m['numa_nodes']} NUMA node(s)",
        f"- MPI: {mpi['implementation']} {mpi['version']}".rstrip()
        + f"; compiler: {m['compiler']}; OMP_WAIT_POLICY {m['omp_wait_policy']}",
    ]


def scrub_paths(cmd: str) -> str:
    """A command line without this machine's folders: any checkout's path as <checkout>, the
    home folder as ~, a temporary file or folder as <tmp> (reports are committed)."""
    start = r"(?:(?<=\s-[A-Za-z])|(?<![\w.~-]))"  # a path alone or glued to a flag (-I/...)
    cmd = re.sub(start + r"/[^\s`'\"]*?(?=/\.venv[\w-]*/|/kernels_c\b)", "<checkout>", cmd)
    cmd = re.sub(r"(?<![\w.~-])/tmp/[^\s`'\"/]+", "<tmp>", cmd)
    return cmd.replace(str(Path.home()), "~")


def other_load(label: str, window: float = 0.5) -> dict[str, object]:
    """Load average and processes outside this run busy over `window` s: noise to declare."""
    me = psutil.Process()
    mine = {me.pid} | {p.pid for p in me.children(recursive=True)}
    procs = [p for p in psutil.process_iter(["pid", "name", "cmdline"]) if p.pid not in mine]
    for p in procs:
        try:
            p.cpu_percent(None)
        except psutil.Error:
            continue
    time.sleep(window)
    busy = []
    for p in procs:
        try:
            pct = p.cpu_percent(None)
        except psutil.Error:
            continue
        if pct >= BUSY_PERCENT:
            cmd = scrub_paths(" ".join(p.info["cmdline"] or [p.info["name"] or "?"]))
            busy.append({"pid": p.pid, "cmd": cmd[:100], "cpu_percent": round(pct)})
    return {"when": label, "loadavg_1min": round(os.getloadavg()[0], 2), "busy_others": busy}


def load_lines(load: list[dict]) -> list[str]:
    """What the load checkpoints say about how far to trust the figures, in Markdown."""
    out = [
        "Load average (1 min) at checkpoints: "
        + ", ".join(f"{e['loadavg_1min']:g} ({e['when']})" for e in load)
        + f" on {os.cpu_count()} CPUs.",
        "",
    ]
    busy = [(e["when"], b) for e in load for b in e["busy_others"]]
    if busy:
        out += [
            "**Other processes were busy during this run**, so its timings are disturbed "
            f"(sampled for 0.5 s at each checkpoint, {BUSY_PERCENT} % CPU or more):",
            "",
        ]
        out += [f"- {when}: pid {b['pid']} `{b['cmd']}` {b['cpu_percent']} %" for when, b in busy]
    else:
        out.append(
            f"No other process used {BUSY_PERCENT} % CPU or more at any checkpoint (sampled "
            "for 0.5 s at each)."
        )
    return out + [""]


def summary(values: Sequence[float]) -> dict[str, float | int | None]:
    """median, min, max, n (and the kit's spread figures) of timing samples."""
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0}
    s = summarize(values)
    return {
        "median": s.median,
        "min": s.min,
        "max": s.max,
        "n": s.n,
        "std": s.std,
        "outliers_3sigma": s.outliers,
    }


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "MISS")


def fmt(value: object, digits: int = 2, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}{unit}"
    return f"{value}{unit}"


def table(header: list[str], rows: list[list[object]]) -> list[str]:
    """A Markdown table (with a blank line after it)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def plain(value: object) -> object:
    """A value for JSON: paths relative to the repository (no machine's folders recorded)."""
    return relative(value) if isinstance(value, Path) else value


def write_report(path: Path, lines: list[str] | str) -> None:
    """Write a Markdown report and say where on stderr."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(lines if isinstance(lines, str) else "\n".join(lines))
    print(f"wrote {relative(path)}", file=sys.stderr, flush=True)


def _scrubbed(value: object) -> object:
    """`value` with scrub_paths applied to every string in it (results are committed)."""
    if isinstance(value, str):
        return scrub_paths(value)
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrubbed(v) for v in value]
    return value


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_scrubbed(data), indent=1, default=str) + "\n")
