"""Which program starts the ranks, mpiexec or Slurm's srun, and its command line.

The one place that decides, for the engines (cluster.py) and for standalone programs (launch.py):
HYBRIDLAB_LAUNCHER=auto (the default) takes srun inside a Slurm allocation (SLURM_JOB_ID set and
srun on PATH) and the venv's mpiexec elsewhere; `srun` or `mpiexec` forces one. The placement's
flags come from placement.py (launcher_args for mpiexec, srun_args for srun). Ranks spread over
several nodes (nodes > 1) need srun inside an allocation of that many nodes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .paths import cache_root
from .placement import Placement
from .topology import NO_MPIEXEC, MpiInfo, find_mpiexec

CHOICE = "HYBRIDLAB_LAUNCHER"  # auto | srun | mpiexec
SRUN_MPI = "HYBRIDLAB_SRUN_MPI"  # srun's --mpi plugin: pmi2 (default), pmix, ...; "" = the site's
CHOICES = ("auto", "srun", "mpiexec")
STEP_PMI = ("PMI_", "PMIX_")  # what a job step's process manager sets for its tasks

# What every srun of the kit adds to the placement's flags, and why:
SRUN_ALWAYS = [
    "--overlap",  # share the allocation's CPUs with the lab's other steps (a cluster stays up
    # while run_program runs), as mpiexec runs do on a laptop
    "--kill-on-bad-exit=1",  # a rank that dies ends the step, as mpiexec ends the others
    "--export=ALL",  # the engines need the notebook's environment (PATH, placement, tag)
]


class LauncherError(RuntimeError):
    """The launcher asked for cannot be used here (srun missing, no allocation, no mpiexec)."""


@dataclass(frozen=True)
class Launcher:
    kind: str  # "mpiexec" or "srun"
    path: str
    mpi: MpiInfo  # the MPI the ranks use (its implementation picks environment tweaks)
    reason: str  # why this launcher was chosen (doctor prints it)

    def command(self, placement: Placement, program: list[str]) -> list[str]:
        """The full command line starting `program` once per rank with the placement's flags."""
        head = [self.path, "-n", str(placement.ranks)]
        if self.kind == "srun":
            return head + placement.srun_args() + srun_options() + program
        return head + placement.launcher_args(self.mpi.implementation) + program

    def environment(self, extra: dict[str, str]) -> dict[str, str]:
        """This process's environment plus `extra`, for the launcher. For srun, without the
        process-manager variables of the notebook's own job step (when JupyterLab runs as one):
        srun gives each rank its own, and stale ones mislead the MPI. For mpiexec inside an
        allocation, SLURM_OVERLAP=1: MPICH's mpiexec starts its proxies with srun, which would
        otherwise wait for the CPUs the notebook's own step holds."""
        env = dict(os.environ)
        if self.kind == "srun":
            env = {k: v for k, v in env.items() if not k.startswith(STEP_PMI)}
        elif in_allocation():
            env["SLURM_OVERLAP"] = "1"
        return {**env, **extra}

    def describe(self) -> str:
        pmi = f", {SRUN_MPI}={srun_mpi()!r}" if self.kind == "srun" else ""
        return f"{self.kind} ({self.path}): {self.reason}{pmi}"


def srun_mpi() -> str:
    """The PMI plugin srun offers the ranks (HYBRIDLAB_SRUN_MPI, pmi2 by default)."""
    return os.environ.get(SRUN_MPI, "pmi2")


def srun_options() -> list[str]:
    """srun's flags beside the placement: SRUN_ALWAYS, the PMI, and the notebook's node among
    the ranks' (the first ranks run beside the notebook when it runs in a job step)."""
    options = list(SRUN_ALWAYS)
    node = os.environ.get("SLURMD_NODENAME")  # set when the notebook itself runs in a job step
    if node:
        options.append(f"--nodelist={node}")
    plugin = srun_mpi()
    if plugin:
        options.append(f"--mpi={plugin}")
    return options


def in_allocation() -> bool:
    return bool(os.environ.get("SLURM_JOB_ID"))


def allocation_nodes() -> int:
    """How many nodes this process can spread ranks over: the Slurm allocation's node count
    (SLURM_JOB_NUM_NODES, or SLURM_NNODES), 1 outside an allocation."""
    if not in_allocation():
        return 1
    for name in ("SLURM_JOB_NUM_NODES", "SLURM_NNODES"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def shared_folder() -> Path:
    """A folder every node of the allocation sees, for the files the engines and the notebook
    exchange (the controller's connection files, crash reports): inside an allocation the kit's
    cache in the home folder (shared by a cluster's nodes, as ipyparallel's profiles are), else
    the temporary folder (/tmp is each node's own)."""
    if not in_allocation():
        return Path(tempfile.gettempdir())
    folder = cache_root() / "run"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# removes the MPI files no live process uses (what a killed rank leaves), on the node it runs on
CLEAN_FILES = "from hybridlab import _reaper; _reaper.clean_files()"
CLEAN_SECONDS = 60


def clean_nodes(nodes: list[str] | None = None) -> None:
    """Remove the MPI shared-memory files killed ranks left on other nodes: one small task on
    each of `nodes` (Slurm node names; None: every node of the allocation). This process can
    only clean its own node's /dev/shm (the reaper does that)."""
    srun = shutil.which("srun")
    if srun is None or not in_allocation():
        return
    count = len(nodes) if nodes else allocation_nodes()
    command = [srun, f"--nodes={count}", f"--ntasks={count}", "--ntasks-per-node=1",
               "--cpus-per-task=1", "--overlap", "--mpi=none", "--cpu-bind=none"]  # fmt: skip
    if nodes:
        command.append(f"--nodelist={','.join(nodes)}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(STEP_PMI)}
    subprocess.run(
        [*command, sys.executable, "-c", CLEAN_FILES],
        env=env, capture_output=True, timeout=CLEAN_SECONDS, check=False,
    )  # fmt: skip


def check_nodes(chosen: Launcher, nodes: int) -> None:
    """Ranks on `nodes` nodes need srun and an allocation of at least that many nodes."""
    if nodes == 1:
        return
    if not in_allocation():
        raise LauncherError(
            f"nodes={nodes} spreads the ranks over {nodes} nodes of a Slurm allocation, but this "
            f"process is not inside one: start JupyterLab (or the script) inside `salloc -N "
            f"{nodes} ...` or a batch job with --nodes={nodes}"
        )
    have = allocation_nodes()
    if nodes > have:
        raise LauncherError(
            f"nodes={nodes}, but this Slurm allocation (job {os.environ['SLURM_JOB_ID']}) has "
            f"{have} node{'s' if have > 1 else ''}: use nodes={have} or fewer, or allocate more "
            f"(`salloc -N {nodes} ...`)"
        )
    if chosen.kind != "srun":
        raise LauncherError(
            f"nodes={nodes} starts the ranks with srun, but {CHOICE}={chosen.kind}: unset "
            f"{CHOICE} (or set it to srun)"
        )


def choose(nodes: int = 1) -> Launcher:
    """The launcher for this process, from HYBRIDLAB_LAUNCHER and the Slurm environment, able to
    place ranks on `nodes` nodes (LauncherError saying what to start otherwise)."""
    chosen = _choose()
    check_nodes(chosen, nodes)
    return chosen


def _choose() -> Launcher:
    choice = os.environ.get(CHOICE, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise LauncherError(f"{CHOICE} must be one of {', '.join(CHOICES)}, not {choice!r}")
    mpi = find_mpiexec()
    srun = shutil.which("srun")
    if choice == "srun":
        if srun is None:
            raise LauncherError(
                f"{CHOICE}=srun but no srun on PATH: load Slurm (e.g. `module load slurm`) "
                f"or set {CHOICE}=mpiexec"
            )
        if not in_allocation():
            raise LauncherError(
                f"{CHOICE}=srun but this process is not inside a Slurm allocation (no "
                "SLURM_JOB_ID): start JupyterLab inside `salloc` or a batch job"
            )
        return Launcher("srun", srun, mpi, f"{CHOICE}=srun, job {os.environ['SLURM_JOB_ID']}")
    if choice == "auto" and srun is not None and in_allocation():
        return Launcher("srun", srun, mpi, f"inside Slurm job {os.environ['SLURM_JOB_ID']}")
    if mpi.mpiexec is None:
        raise LauncherError(NO_MPIEXEC)
    why = f"{CHOICE}=mpiexec" if choice == "mpiexec" else "not inside a Slurm allocation"
    return Launcher("mpiexec", mpi.mpiexec, mpi, why)
