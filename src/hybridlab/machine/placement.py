"""Turn (ranks, threads, bind, thread_level, nodes) into the launcher's flags and the environment.

One place knows how MPICH's hydra, Open MPI and Slurm's srun spell binding, and how each run path
asks MPI for a thread level (an environment variable for mpi4py in the engines, a flag for a program), so the
engines (cluster.py) and standalone runs (launch.py) place processes the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .thread_levels import THREAD_LEVELS

BIND_MODES = {
    "none": "no binding: the operating system moves ranks and threads freely",
    "cores": "each rank bound to `threads` neighbouring cores, one thread per core (close)",
    "spread": "ranks spread over sockets/NUMA nodes, threads spread over the rank's cores",
    "one-core": "each rank bound to a single core, so all its threads share it "
    "(Open MPI's default binding, a classic hybrid mistake)",
}

# Slurm's srun (task/affinity plugin) for each bind; --cpus-per-task gives each rank its CPUs:
# `threads` of them, 1 for 'one-core'. srun's --cpu-bind=threads (a hardware thread per CPU) is not
# used: the kit places threads on cores (OMP_PLACES=cores), as the mpiexec flags do.
SRUN_BIND = {
    "none": ["--cpu-bind=none"],
    "cores": ["--cpu-bind=cores", "--distribution=block:block"],  # a socket filled first
    "spread": ["--cpu-bind=cores", "--distribution=block:cyclic"],  # ranks round the sockets
    "one-core": ["--cpu-bind=cores"],
}

# MPICH's busy polling makes oversubscribed runs crawl; these make a waiting rank yield.
MPICH_THROTTLE = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "1",
}
OPENMPI_THROTTLE = {"OMPI_MCA_mpi_yield_when_idle": "1"}  # Open MPI's: yield while waiting


class PlacementError(ValueError):
    """Parameters that cannot be placed; raised before anything is launched."""


@dataclass(frozen=True)
class Placement:
    ranks: int = 2
    threads: int = 1
    bind: str = "none"
    # MPI_THREAD_* asked of MPI_Init_thread; None: the program's own choice (no flag is passed)
    thread_level: str | None = "funneled"
    nodes: int = 1  # the ranks (all of them, `ranks`) are spread evenly over this many nodes

    def __post_init__(self) -> None:
        for name in ("ranks", "threads", "nodes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise PlacementError(f"{name} must be a whole number of at least 1, not {value!r}")
        if self.ranks % self.nodes:
            raise PlacementError(
                f"ranks is the total over the nodes and must divide by nodes: {self.ranks} ranks "
                f"cannot be spread evenly over {self.nodes} nodes"
            )
        if self.bind not in BIND_MODES:
            modes = ", ".join(f"'{m}'" for m in BIND_MODES)
            raise PlacementError(f"bind must be one of {modes}, not {self.bind!r}")
        if self.thread_level is not None:
            self.check_thread_level(self.thread_level)

    @property
    def label(self) -> str:
        """'2 ranks x 1 thread, bind=none' (', on 2 nodes' when spread over several)"""
        ranks = f"{self.ranks} rank{'s' if self.ranks > 1 else ''}"
        threads = f"{self.threads} thread{'s' if self.threads > 1 else ''}"
        nodes = f", on {self.nodes} nodes" if self.nodes > 1 else ""
        return f"{ranks} x {threads}, bind={self.bind}{nodes}"

    @property
    def ranks_per_node(self) -> int:
        return self.ranks // self.nodes

    @property
    def cpus_wanted(self) -> int:
        """CPUs one node's ranks want (every node runs as many ranks)."""
        return self.ranks_per_node * self.threads

    def oversubscribed(self, usable_cpus: int) -> bool:
        """More threads on a node than `usable_cpus` (this node's; the others are alike)."""
        return self.cpus_wanted > usable_cpus

    def check_fits(self, usable_cpus: int) -> None:
        """Binding needs a CPU per thread (one per rank for 'one-core'); say so before launch."""
        per_node = " per node" if self.nodes > 1 else ""
        if self.bind in ("cores", "spread") and self.oversubscribed(usable_cpus):
            raise PlacementError(
                f"bind='{self.bind}' needs a CPU for each of the {self.ranks_per_node} x "
                f"{self.threads} = {self.cpus_wanted} threads{per_node}, but this process may use "
                f"{usable_cpus}; use fewer ranks or threads, or bind='none' to oversubscribe"
            )
        if self.bind == "one-core" and self.ranks_per_node > usable_cpus:
            raise PlacementError(
                f"bind='one-core' needs a CPU for each of the {self.ranks_per_node} ranks"
                f"{per_node}, but this process may use {usable_cpus}"
            )

    def launcher_args(self, implementation: str) -> list[str]:
        """The mpiexec flags that place the ranks."""
        t = self.threads
        if implementation == "openmpi":
            common = ["--oversubscribe"]
            return (
                common
                + {
                    "none": ["--bind-to", "none"],
                    "cores": ["--map-by", f"slot:PE={t}", "--bind-to", "core"],
                    "spread": ["--map-by", f"numa:PE={t}", "--bind-to", "core"],
                    "one-core": ["--map-by", "core", "--bind-to", "core"],
                }[self.bind]
            )
        if implementation == "mpich":
            return {
                "none": [],
                "cores": ["-bind-to", f"core:{t}", "-map-by", f"core:{t}"],
                "spread": ["-bind-to", f"core:{t}", "-map-by", "socket"],
                "one-core": ["-bind-to", "core", "-map-by", "core"],
            }[self.bind]
        return []

    def srun_args(self) -> list[str]:
        """srun's flags that place the ranks: as many on each of `nodes` nodes, then SRUN_BIND;
        unbound runs may share CPUs."""
        cpus = 1 if self.bind == "one-core" else self.threads
        args = [f"--nodes={self.nodes}", f"--ntasks-per-node={self.ranks_per_node}"]
        args += ["--cpus-per-task", str(cpus), *SRUN_BIND[self.bind]]
        return args + (["--overcommit"] if self.bind == "none" else [])

    def environment(self, implementation: str, usable_cpus: int) -> dict[str, str]:
        """OpenMP placement for the threads, and what the MPI needs when oversubscribed."""
        env = {"OMP_NUM_THREADS": str(self.threads)}
        if self.bind == "none":
            env["OMP_PROC_BIND"] = "false"
        else:
            env["OMP_PLACES"] = "cores" if self.bind != "one-core" else "threads"
            env["OMP_PROC_BIND"] = "spread" if self.bind == "spread" else "close"
        if implementation == "openmpi" and os.geteuid() == 0:
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        if self.oversubscribed(usable_cpus):
            if implementation == "mpich":
                env.update(MPICH_THROTTLE)
            elif implementation == "openmpi":
                env.update(OPENMPI_THROTTLE)
        return env

    def engine_environment(self, implementation: str, usable_cpus: int) -> dict[str, str]:
        """environment() plus the thread level mpi4py asks for when an engine initialises MPI, and
        numba's thread pool sized like the OpenMP team (numba's default is every CPU)."""
        env = self.environment(implementation, usable_cpus)
        env["NUMBA_NUM_THREADS"] = str(self.threads)
        if self.thread_level is not None:
            env["MPI4PY_RC_THREAD_LEVEL"] = self.thread_level
        return env

    def program_arguments(self) -> list[str]:
        """The flag a standalone program (hl_runtime.h's main) reads its thread level from."""
        return [] if self.thread_level is None else [f"--thread-level={self.thread_level}"]

    @staticmethod
    def check_thread_level(level: str) -> None:
        if level not in THREAD_LEVELS:
            raise PlacementError(
                f"thread_level must be one of {', '.join(THREAD_LEVELS)}, not {level!r}"
            )

    def oversubscription_warning(self, usable_cpus: int) -> str | None:
        if not self.oversubscribed(usable_cpus):
            return None
        per_node = " per node" if self.nodes > 1 else ""
        return (
            f"oversubscribed: {self.ranks_per_node} ranks x {self.threads} threads = "
            f"{self.cpus_wanted}{per_node} on {usable_cpus} usable CPUs. Threads take turns on the CPUs, so timings of this run "
            "mean little (the MPI's busy polling was throttled to soften it)."
        )
