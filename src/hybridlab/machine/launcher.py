"""Which program starts the ranks, mpiexec or Slurm's srun, and its command line.

The one place that decides, for the engines (cluster.py) and for standalone programs (launch.py):
HYBRIDLAB_LAUNCHER=auto (the default) takes srun inside a Slurm allocation (SLURM_JOB_ID set and
srun on PATH) and the venv's mpiexec elsewhere; `srun` or `mpiexec` forces one. The placement's
flags come from placement.py (launcher_args for mpiexec, srun_args for srun). Ranks spread over
several nodes (nodes > 1) need an allocation of that many nodes; MPICH's ranks are then started by
its own mpiexec (Hydra), which starts its proxies with srun (see across_nodes_by_hydra).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psutil

from ..paths import cache_root
from .placement import Placement
from .topology import NO_MPIEXEC, MpiInfo, find_mpiexec

ADDRESS = "HYBRIDLAB_CONTROLLER_IP"  # the address engines and proxies on other nodes reach
CHOICE = "HYBRIDLAB_LAUNCHER"  # auto | srun | mpiexec
SRUN_MPI = "HYBRIDLAB_SRUN_MPI"  # srun's --mpi plugin: pmi2 (default), pmix, ...; "" = the site's
# MPICH on one machine (outside an allocation): UCX carries no message there (ch4's shared memory
# does), yet its memory hooks, patched into every rank at MPI_Init, cost ~0.03 CPU s a rank
# (a 3-rank run 0.35 -> 0.25 CPU s, 2026-12-07); a variable already set is kept
UCX_NO_MEM_EVENTS = ("UCX_MEM_EVENTS", "no")
CHOICES = ("auto", "srun", "mpiexec")
STEP_PMI = ("PMI_", "PMIX_")  # what a job step's process manager sets for its tasks
HYDRA_SRUN = "HYDRA_LAUNCHER_EXTRA_ARGS"  # flags MPICH's mpiexec adds to the srun of its proxies

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
        return (
            head
            + hydra_nodes(placement)
            + placement.launcher_args(self.mpi.implementation)
            + program
        )

    def environment(self, extra: dict[str, str]) -> dict[str, str]:
        """This process's environment plus `extra`, for the launcher, without the
        process-manager variables of the notebook's own job step (when JupyterLab runs as one):
        the launcher gives each rank its own, and stale ones mislead the MPI. For mpiexec inside
        an allocation, MPICH's mpiexec starts its proxies with srun: SLURM_OVERLAP=1 (else that
        srun would wait for the CPUs the notebook's own step holds) and hydra_srun_flags()."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(STEP_PMI)}
        if self.kind == "mpiexec" and in_allocation():
            env["SLURM_OVERLAP"] = "1"
            env.setdefault(HYDRA_SRUN, hydra_srun_flags())
        if self.mpi.implementation == "mpich" and not in_allocation():
            env.setdefault(*UCX_NO_MEM_EVENTS)
        return {**env, **extra}

    def describe(self) -> str:
        pmi = f", {SRUN_MPI}={srun_mpi()!r}" if self.kind == "srun" else ""
        return f"{self.kind} ({self.path}): {self.reason}{pmi}"


def node_address() -> str:
    """This node's address as the other nodes of the allocation reach it: HYBRIDLAB_CONTROLLER_IP
    when set, else the address of the host name when it is not a loopback one (Debian maps the
    host name to 127.0.1.1), else the first address of an interface that is up."""
    given = os.environ.get(ADDRESS, "").strip()
    if given:
        return given
    with contextlib.suppress(OSError):
        address = socket.gethostbyname(socket.gethostname())
        if not address.startswith("127."):
            return address
    up = psutil.net_if_stats()
    for name, addresses in psutil.net_if_addrs().items():
        if name in up and up[name].isup:
            for a in addresses:
                if a.family == socket.AF_INET and not a.address.startswith("127."):
                    return a.address
    return "127.0.0.1"


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


def across_nodes_by_hydra(chosen: Launcher) -> bool:
    """Whether ranks on several nodes are better started by MPICH's own mpiexec (Hydra, whose
    proxies srun starts on the nodes) than by srun --mpi=pmi2. MPICH (the PyPI wheel speaks only
    PMI-1 to srun) publishes its UCX address through the PMI at MPI_Init when the ranks span
    nodes: 4096 bytes per rank, hex-encoded in segments of 511 bytes, each a request line of up
    to 53 + 1022 bytes. Slurm's pmi2 plugin reads a PMI-1 request with one read of at most 1024 bytes
    (src/plugins/mpi/pmi2/pmi1.c, "TODO: read until newline"), so a line that long is cut:
    "mpi/pmi2: value not properly terminated in client request" and MPI_Init fails or hangs. How
    long a line is depends on what lies in the rank's memory after the address (runs of zero
    bytes are shortened), so some programs fail every time and others never. Hydra reads any
    length. An explicit HYBRIDLAB_LAUNCHER=srun keeps srun (a site's MPICH built for PMI-2 or
    PMIx, or a Slurm that reads whole lines)."""
    return (
        chosen.kind == "srun"
        and os.environ.get(CHOICE, "auto").strip().lower() in ("", "auto")
        and chosen.mpi.implementation == "mpich"
        and chosen.mpi.mpiexec is not None
        and srun_mpi() == "pmi2"
    )


def hydra_nodes(placement: Placement) -> list[str]:
    """MPICH mpiexec's flags that spread the ranks over placement.nodes nodes of the allocation
    (none on one node): as many on each (-ppn), the nodes named (this process's node first when
    it runs in a job step, as srun_options does), the proxies started by srun and told this
    node's address, as the engines are (a compute node's host name may not resolve elsewhere)."""
    if placement.nodes == 1:
        return []
    hosts = allocation_hosts()[: placement.nodes]
    return [
        "-ppn", str(placement.ranks_per_node), "-hosts", ",".join(hosts),
        "-launcher", "slurm", "-launcher-exec", shutil.which("srun") or "srun",
        "-localhost", node_address(),  # where the proxies reach mpiexec (not its host name)
    ]  # fmt: skip


def hydra_srun_flags() -> str:
    """srun's flags for the step of MPICH mpiexec's proxies (one per node): no PMI of Slurm's
    (Hydra is the ranks' PMI server), sharing the allocation's CPUs with the notebook's step, all
    the node's CPUs of the job for the proxy and its ranks, unbound (mpiexec binds the ranks)."""
    counts = re.findall(r"(\d+)(?:\(x\d+\))?", os.environ.get("SLURM_JOB_CPUS_PER_NODE", ""))
    cpus = min((int(n) for n in counts), default=1)  # "72(x2),36": 72 on two nodes, 36 on one
    return f"--mpi=none --overlap --cpus-per-task={cpus} --cpu-bind=none"


def expand_nodelist(nodelist: str) -> list[str]:
    """Slurm's compact node list ("node[1-3,7],gpu01") as names, in order."""
    names = []
    for prefix, ranges, plain in re.findall(r"([^,\[]+)\[([^\]]+)\]|([^,\[\]]+)", nodelist):
        if plain:
            names.append(plain)
            continue
        for part in ranges.split(","):
            first, _, last = part.partition("-")
            for i in range(int(first), int(last or first) + 1):
                names.append(f"{prefix}{i:0{len(first)}d}")
    return names


def allocation_hosts() -> list[str]:
    """The allocation's nodes (SLURM_JOB_NODELIST), this process's node first when it runs in a
    job step (SLURMD_NODENAME)."""
    names = expand_nodelist(
        os.environ.get("SLURM_JOB_NODELIST") or os.environ.get("SLURM_NODELIST", "")
    )
    here = os.environ.get("SLURMD_NODENAME")
    return [here, *(n for n in names if n != here)] if here in names else names


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
CLEAN_FILES = "from hybridlab.machine import reaper; reaper.clean_files()"
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
    if chosen.kind != "srun" and chosen.mpi.implementation != "mpich":
        raise LauncherError(
            f"nodes={nodes} starts the ranks with srun (or MPICH's mpiexec), but {CHOICE}="
            f"{chosen.kind} runs {chosen.mpi.implementation}'s: unset {CHOICE} (or set it to srun)"
        )


def choose(nodes: int = 1) -> Launcher:
    """The launcher for this process, from HYBRIDLAB_LAUNCHER and the Slurm environment, able to
    place ranks on `nodes` nodes (LauncherError saying what to start otherwise)."""
    chosen = _choose()
    if nodes > 1 and across_nodes_by_hydra(chosen):
        reason = (
            f"{chosen.reason}; ranks on {nodes} nodes: MPICH's mpiexec (Hydra), its proxies "
            "started by srun"
        )
        chosen = Launcher("mpiexec", chosen.mpi.mpiexec, chosen.mpi, reason)
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
