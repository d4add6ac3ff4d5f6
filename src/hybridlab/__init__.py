"""hybridlab: hybrid MPI + OpenMP programming, measured on your own machine."""

from .build import BuildError, Kernel, build, build_source
from .cluster import Cluster
from .errors import ClusterNotRunning, KernelCrash, KernelError, KernelTimeout
from .launch import run_program
from .placement import BIND_MODES, Placement, PlacementError
from .records import Results
from .topology import mpi_info, read_topology

__all__ = [
    "BIND_MODES",
    "BuildError",
    "Cluster",
    "ClusterNotRunning",
    "Kernel",
    "KernelCrash",
    "KernelError",
    "KernelTimeout",
    "Placement",
    "PlacementError",
    "Results",
    "build",
    "build_source",
    "mpi_info",
    "read_topology",
    "run_program",
    "quick_mode",
]


def quick_mode() -> bool:
    """True when HYBRIDLAB_QUICK=1: labs shrink their problem sizes (CI, a first look)."""
    import os

    return os.environ.get("HYBRIDLAB_QUICK") == "1"
