"""The machine as the kit sees it: CPUs, cores, sockets, NUMA nodes, caches, MPI and compiler.

Everything is read (sysfs, `lstopo`, `mpiexec --version`), nothing is launched on engines.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import venv_bin

SYSFS = Path("/sys/devices/system")


@dataclass(frozen=True)
class Cpu:
    """One logical CPU (hardware thread) and where it sits."""

    cpu: int
    core: int  # physical core id, unique across sockets
    socket: int
    numa: int


@dataclass(frozen=True)
class Cache:
    level: int
    kind: str  # Data, Instruction, Unified
    size_bytes: int
    cpus: tuple[int, ...]  # the CPUs sharing it


@dataclass(frozen=True)
class MpiInfo:
    """Which MPI the engines will use, found from the `mpiexec` first on PATH."""

    implementation: str  # "mpich", "openmpi" or "unknown"
    version: str
    mpiexec: str | None
    in_venv: bool  # the mpiexec is the one next to this Python


@dataclass
class Topology:
    cpus: list[Cpu]
    caches: list[Cache] = field(default_factory=list)
    usable: tuple[int, ...] = ()  # CPUs this process may run on (its affinity)

    @property
    def sockets(self) -> list[int]:
        return sorted({c.socket for c in self.cpus})

    @property
    def numa_nodes(self) -> dict[int, list[int]]:
        nodes: dict[int, list[int]] = {}
        for c in self.cpus:
            nodes.setdefault(c.numa, []).append(c.cpu)
        return dict(sorted(nodes.items()))

    @property
    def cores(self) -> dict[int, list[int]]:
        """Physical core -> its logical CPUs (more than one with SMT)."""
        cores: dict[int, list[int]] = {}
        for c in self.cpus:
            cores.setdefault(c.core, []).append(c.cpu)
        return dict(sorted(cores.items()))

    @property
    def smt(self) -> int:
        return max((len(v) for v in self.cores.values()), default=1)

    def cpu(self, n: int) -> Cpu:
        return next(c for c in self.cpus if c.cpu == n)

    def last_level_cache_bytes(self) -> int:
        data = [c for c in self.caches if c.kind != "Instruction"]
        return max(data, key=lambda c: (c.level, c.size_bytes)).size_bytes if data else 0

    def summary(self) -> dict[str, object]:
        """A flat description, stored with every result."""
        return {
            "cpus": len(self.cpus),
            "usable_cpus": len(self.usable),
            "cores": len(self.cores),
            "sockets": len(self.sockets),
            "numa_nodes": len(self.numa_nodes),
            "smt": self.smt,
            "caches": ", ".join(
                f"L{c.level}{c.kind[0].lower()} {c.size_bytes // 1024} KiB x{n}"
                for c, n in _distinct_caches(self.caches)
            ),
        }


def _distinct_caches(caches: list[Cache]) -> list[tuple[Cache, int]]:
    seen: dict[tuple[int, str, int], tuple[Cache, int]] = {}
    for c in caches:
        key = (c.level, c.kind, c.size_bytes)
        first, n = seen.get(key, (c, 0))
        seen[key] = (first, n + 1)
    return list(seen.values())


def _read(path: Path, default: str = "") -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return default


def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]."""
    cpus: list[int] = []
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def _size_bytes(text: str) -> int:
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]


def read_topology(root: Path = SYSFS) -> Topology:
    """Read CPUs, cores, sockets, NUMA nodes and caches from sysfs (`root` for tests)."""
    cpu_dir = root / "cpu"
    online = parse_cpu_list(_read(cpu_dir / "online")) or list(range(os.cpu_count() or 1))
    numa_of: dict[int, int] = {}
    for node in sorted((root / "node").glob("node[0-9]*")):
        for c in parse_cpu_list(_read(node / "cpulist")):
            numa_of[c] = int(node.name[4:])
    cpus, caches, seen_caches = [], [], set()
    for n in online:
        topo = cpu_dir / f"cpu{n}" / "topology"
        socket = int(_read(topo / "physical_package_id", "0") or 0)
        core = int(_read(topo / "core_id", str(n)) or n)
        cpus.append(Cpu(cpu=n, core=socket * 100000 + core, socket=socket, numa=numa_of.get(n, 0)))
        for index in sorted((cpu_dir / f"cpu{n}" / "cache").glob("index[0-9]*")):
            shared = tuple(parse_cpu_list(_read(index / "shared_cpu_list", str(n))))
            key = (_read(index / "level"), _read(index / "type"), shared)
            if key in seen_caches:
                continue
            seen_caches.add(key)
            caches.append(
                Cache(
                    level=int(key[0] or 0),
                    kind=key[1] or "Unified",
                    size_bytes=_size_bytes(_read(index / "size")),
                    cpus=shared,
                )
            )
    # Renumber physical cores 0..n-1 in order of first CPU, so plots read naturally.
    order = {core: i for i, core in enumerate(dict.fromkeys(c.core for c in cpus))}
    cpus = [Cpu(c.cpu, order[c.core], c.socket, c.numa) for c in cpus]
    usable = tuple(sorted(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else ()
    return Topology(cpus=cpus, caches=caches, usable=usable or tuple(online))


@functools.lru_cache(maxsize=4)
def _mpiexec_version(path: str) -> str:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def mpi_info(path: str | None = None) -> MpiInfo:
    """The MPI implementation behind the first `mpiexec` on PATH (or `path`)."""
    exe = path or shutil.which("mpiexec")
    if exe is None:
        return MpiInfo("unknown", "", None, False)
    text = _mpiexec_version(exe)
    if "Open MPI" in text or "OpenRTE" in text or "PRRTE" in text:
        impl = "openmpi"
        m = re.search(r"Open MPI\)?\s*v?([\d.]+)", text) or re.search(r"([\d]+\.[\d.]+)", text)
    elif "HYDRA" in text or "MPICH" in text:
        impl = "mpich"
        m = re.search(r"Version:\s*([\d.]+\w*)", text)
    else:
        impl, m = "unknown", None
    in_venv = Path(exe).resolve().parent == venv_bin().resolve()
    return MpiInfo(impl, m.group(1) if m else "", exe, in_venv)


def find_mpiexec() -> MpiInfo:
    """The MPI the kit launches with: this venv's mpiexec when there is one, else PATH's.

    The one way cluster, launch and doctor find mpiexec; `.mpiexec` is None when there is none.
    """
    local = venv_bin() / "mpiexec"
    return mpi_info(str(local) if local.exists() else None)


NO_MPIEXEC = "no mpiexec found: run `make setup` (it installs MPICH)"


@functools.lru_cache(maxsize=1)
def compiler_info() -> str:
    """First line of `mpicc --version` (the C compiler behind the MPI wrapper)."""
    exe = shutil.which("mpicc")
    if exe is None:
        return "no mpicc on PATH"
    try:
        out = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "mpicc did not answer"
    return out.splitlines()[0] if out else "unknown"


def lstopo_picture(path: Path) -> Path | None:
    """Draw the machine with hwloc's lstopo into `path` (PNG); None when hwloc is absent."""
    exe = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
    if exe is None:
        return None
    done = subprocess.run(
        [exe, "--of", "png", "--force", str(path)], capture_output=True, timeout=60, check=False
    )
    return path if done.returncode == 0 and path.exists() else None


def allocation_cpus() -> int:
    """The CPUs this process may use: its affinity mask, and no more than Slurm gave the job on
    this node (SLURM_CPUS_ON_NODE) where Slurm does not confine the mask (no task/affinity or
    cgroup plugin)."""
    mask = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
    cpus = mask or os.cpu_count() or 1
    slurm = os.environ.get("SLURM_CPUS_ON_NODE", "")
    if slurm.isdigit() and int(slurm) > 0:
        cpus = min(cpus, int(slurm))
    return cpus


def shape_for_allocation(cpus: int | None = None, most: int = 32) -> tuple[int, int]:
    """(ranks, threads) of a lab's hybrid runs for the allocation it runs in (`cpus`, by default
    allocation_cpus()): 2 x 2 on up to 7 CPUs, as the labs run on a laptop (oversubscribed below
    4 CPUs), then threads and ranks doubled in turn while the shape fits: 8 CPUs -> 2 x 4,
    16 -> 4 x 4, 32 -> 4 x 8. At most `most` CPUs (32): the labs' problem sizes are small, and
    more engines mostly add start-up time (a judgement, not a measurement; book/instructors.md,
    "Sizing a class")."""
    fits = min(cpus if cpus is not None else allocation_cpus(), most)
    ranks, threads = 2, 2
    while True:
        grown = (ranks, threads * 2) if threads <= ranks else (ranks * 2, threads)
        if grown[0] * grown[1] > fits:
            return ranks, threads
        ranks, threads = grown
