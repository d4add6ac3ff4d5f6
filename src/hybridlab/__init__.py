"""hybridlab: hybrid MPI + OpenMP programming, measured on your own machine.

The names below are imported on first use, so that an MPI engine that only needs
hybridlab.engine does not import pandas, matplotlib and the ipyparallel client at start-up.
"""

from __future__ import annotations

import importlib
import os

_WHERE = {
    "BuildError": "build",
    "Kernel": "build",
    "build": "build",
    "build_source": "build",
    "Cluster": "cluster",
    "ClusterNotRunning": "errors",
    "KernelCrash": "errors",
    "KernelError": "errors",
    "KernelTimeout": "errors",
    "run_program": "launch",
    "BIND_MODES": "placement",
    "Placement": "placement",
    "PlacementError": "placement",
    "Results": "records",
    "mpi_info": "topology",
    "read_topology": "topology",
}

__all__ = sorted([*_WHERE, "quick_mode"])


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'hybridlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


def quick_mode() -> bool:
    """True when HYBRIDLAB_QUICK=1: labs shrink their problem sizes (CI, a first look)."""
    return os.environ.get("HYBRIDLAB_QUICK") == "1"
