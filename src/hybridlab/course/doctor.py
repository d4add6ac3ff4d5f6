"""`hybridlab doctor`: describe the machine and name anything that will get in the way."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from ..kernels.build import OFFLOAD_TARGETS
from ..kernels.offload import probe
from ..machine import launcher, reaper
from ..machine.topology import compiler_info, find_mpiexec, mpi_info, read_topology
from ..paths import venv_bin
from .kernelspec import NAME as KERNEL_NAME

SMALL_SHM_BYTES = 256 * 1024**2
SRUN_SECONDS = 60  # a task on each node of the allocation


@dataclass(frozen=True)
class Finding:
    level: str  # "ok", "note", "problem"
    text: str


def _binding_possible(cpus: tuple[int, ...]) -> bool:
    if len(cpus) < 1 or not hasattr(os, "sched_setaffinity"):
        return False
    saved = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {cpus[0]})
        return True
    except OSError:
        return False
    finally:
        os.sched_setaffinity(0, saved)


def _allocation(facts: dict[str, object], found: list[Finding]) -> None:
    """Inside a Slurm allocation: its nodes, one task started on each (the node every rank
    would run on, as srun names it), and where engines there reach this notebook's controller."""
    nodes = launcher.allocation_nodes()
    facts["Slurm nodes"] = f"{nodes} ({os.environ.get('SLURM_JOB_NODELIST', '?')})"
    facts["controller address"] = launcher.node_address()
    if nodes < 2 or shutil.which("srun") is None:
        return
    with contextlib.suppress(launcher.LauncherError):  # the launcher fact says what is wrong
        facts[f"launcher on {nodes} nodes"] = launcher.choose(nodes).describe()
    try:
        done = subprocess.run(
            ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", "--overlap",
             "--mpi=none",
             "--label", "hostname"],
            capture_output=True, text=True, timeout=SRUN_SECONDS, check=False,
        )  # fmt: skip
        ok, said = done.returncode == 0, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        ok, said = False, f"no answer within {SRUN_SECONDS} s"
    if ok:
        hosts = sorted(line.split(":", 1)[1].strip() for line in done.stdout.splitlines())
        facts["nodes reached by srun"] = ", ".join(hosts)
    else:
        found.append(
            Finding(
                "problem",
                f"srun could not start a task on each of the {nodes} nodes: {said[-500:]}",
            )
        )


def _mpicc() -> str | None:
    """The mpicc the kit builds with (build.mpicc: this venv's, else PATH's), or None."""
    local = venv_bin() / "mpicc"
    return str(local) if local.exists() else shutil.which("mpicc")


def _compiler_fact() -> str:
    """What doctor prints as the compiler, from the same mpicc the checks (and builds) use."""
    exe = _mpicc()
    if exe is None:
        return "no mpicc (neither this venv's nor on PATH)"
    if shutil.which("mpicc") != exe:
        return f"{exe} (this venv's; PATH has {shutil.which('mpicc') or 'no mpicc'})"
    return compiler_info()


def _offload(facts: dict[str, object], found: list[Finding]) -> None:
    """Which OpenMP offload targets clang builds for here, each probe built and run (lab 15)."""
    statuses = [probe(target) for target in OFFLOAD_TARGETS]
    facts["offload"] = "; ".join(f"{s.target}: {s.message}" for s in statuses)
    if not statuses[0].ready:
        found.append(Finding("note", "lab 15 (offload) skips its live cells: no clang offload "
                                     f"target for LLVM's host plugin ({statuses[0].message})"))


def examine() -> tuple[dict[str, object], list[Finding]]:
    """The machine's description and the findings about it."""
    topo = read_topology()
    on_path = mpi_info()
    mpi = find_mpiexec()
    facts: dict[str, object] = dict(topo.summary())
    try:
        facts["launcher"] = launcher.choose().describe()
        launcher_problem = None
    except launcher.LauncherError as err:
        facts["launcher"] = "none"
        launcher_problem = str(err)
    facts.update(
        {
            "NUMA node CPUs": "; ".join(f"{n}: {c}" for n, c in topo.numa_nodes.items()),
            "MPI": f"{mpi.implementation} {mpi.version} ({mpi.mpiexec})",
            "compiler": _compiler_fact(),
            "lstopo": shutil.which("lstopo-no-graphics")
            or shutil.which("lstopo")
            or "not installed",
            "numactl": shutil.which("numactl") or "not installed",
        }
    )
    found: list[Finding] = []
    if launcher_problem:
        found.append(Finding("problem", launcher_problem))
    if launcher.in_allocation():
        _allocation(facts, found)
    if mpi.mpiexec is None:
        found.append(
            Finding("problem", "no mpiexec: run `make setup` (it installs MPICH from PyPI)")
        )
    elif on_path.mpiexec and not on_path.in_venv:
        found.append(
            Finding(
                "problem",
                f"the mpiexec first on PATH ({on_path.mpiexec}, {on_path.implementation}) is not "
                f"this venv's; engines started from a shell would use it. Put {venv_bin()} first "
                "on PATH, or use the 'hybridlab' Jupyter kernel, which does.",
            )
        )
    if _mpicc() is None:
        found.append(
            Finding("problem", "no mpicc (neither this venv's nor on PATH): run `make setup`")
        )
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        found.append(
            Finding("problem", "no C compiler: install gcc (Debian: apt-get install gcc libc6-dev)")
        )
    _offload(facts, found)
    if len(topo.usable) < 2:
        found.append(
            Finding(
                "problem",
                f"only {len(topo.usable)} usable CPU: hybrid runs will all be oversubscribed",
            )
        )
    if not _binding_possible(topo.usable):
        found.append(
            Finding(
                "problem", "this process may not set CPU affinity: binding (bind='cores') will fail"
            )
        )
    if len(topo.numa_nodes) < 2:
        found.append(
            Finding(
                "note",
                "one NUMA node: the NUMA labs show published reference data beside your numbers",
            )
        )
    if facts["lstopo"] == "not installed":
        found.append(
            Finding(
                "note",
                "hwloc not installed: the machine picture is drawn from sysfs (apt-get install hwloc-nox)",
            )
        )
    try:
        KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        found.append(
            Finding("problem", f"Jupyter kernel '{KERNEL_NAME}' missing: run `make setup`")
        )
    shm = shutil.disk_usage("/dev/shm").total if os.path.isdir("/dev/shm") else 0
    if shm and shm < SMALL_SHM_BYTES:
        found.append(
            Finding(
                "note",
                f"/dev/shm is only {shm // 1024**2} MiB: large messages may fail (docker run --shm-size=1g)",
            )
        )
    leftovers = [p for pattern in reaper.SHM_PATTERNS for p in glob.glob(pattern)]
    if leftovers:
        found.append(
            Finding(
                "note",
                f"{len(leftovers)} MPI shared-memory segment(s) in /dev/shm: `hybridlab clean` removes unused ones",
            )
        )
    if not any(f.level == "problem" for f in found):
        found.append(Finding("ok", "ready: MPI, compiler and Jupyter kernel found"))
    return facts, found
