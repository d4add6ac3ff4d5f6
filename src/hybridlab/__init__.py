"""hybridlab: hybrid MPI + OpenMP programming, measured on your own machine.

Layers, bottom to top (a module imports only from its own layer or below):

  harness   paths, errors, progress (a notebook cell's status line), topology (find_mpiexec),
            thread_levels, placement, launcher (mpiexec or Slurm's srun), records, stats, build
            with unit_checks (a student's object and preprocessed unit judged),
            compliance (a traced kernel's MPI calls judged against a thread level);
            internals _probe, _metadata, _reaper, _engine; runs (the one run path: build ->
            probe -> time -> parse -> Results), launch (run_program, the program adapter),
            jobs (a batch script: sbatch --wait on Slurm, else a one-node local runner with
            an srun stand-in; whole programs built traced),
            cluster (placement, deferral, runs on the engines) with engine_set (one start's
            engines: launcher process, registration, identities, a stop that leaves nothing),
            _supervisor (timeouts, crashes, restart) and _controller (the notebook's warm
            ipyparallel controller); local_slurm (a one-node Slurm of the user's own);
            simulate (the kit's MPI kernels under SimGrid SMPI: platforms, smpicc build,
            smpirun run; its own run path beside runs);
            kernelspec, doctor, cli, notebooks (was runner); reference (published data, cited);
            plots (pictures shared by several topics); traces (records -> Chrome trace-event
            JSON); grading
  topics    hybrid_models, sync, p2p, halo, memory, mapping, collectives, modelling, pykernels,
            thread_comm, shm, neighbour:
            one package per course topic, importing the harness and other topics'
            non-exercise modules

Rules (tests/test_architecture.py reads every module's imports and checks them):
  - a harness module never imports a topic;
  - records, stats, compliance, reference, plots, traces and every topic module except a topic's
    `exercise` never import cluster, engine_set, launch, build, runs, simulate or _engine: they
    launch nothing;
  - published numbers live in reference/data/*.toml with their citations, not in code.

Most names below are imported on first use, so that an MPI engine that only needs
hybridlab._engine does not import pandas, matplotlib and the ipyparallel client at start-up.
"""

from __future__ import annotations

import importlib
import os

# Light, and `build` must name the function, not the submodule of the same name.
from .build import BuildError as BuildError
from .build import Kernel as Kernel
from .build import build as build
from .build import build_source as build_source

_WHERE = {
    "Cluster": "cluster",
    "ClusterNotRunning": "errors",
    "KernelCrash": "errors",
    "KernelError": "errors",
    "KernelTimeout": "errors",
    "ThreadComplianceError": "errors",
    "LauncherError": "launcher",
    "run_program": "launch",
    "BIND_MODES": "placement",
    "Placement": "placement",
    "PlacementError": "placement",
    "Results": "records",
    "check_my_runs": "course_size",
    "grading_size_note": "course_size",
    "mpi_info": "topology",
    "read_topology": "topology",
    "shape_for_allocation": "topology",
}

__all__ = sorted([*_WHERE, "BuildError", "Kernel", "build", "build_source", "quick_mode"])


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'hybridlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


def quick_mode() -> bool:
    """True when labs shrink their problem sizes: HYBRIDLAB_QUICK=1 (0: full sizes), or, when it
    is not set, the size the course grades at, released beside the lab (course_size.py)."""
    from .course_size import quick_mode as chosen

    return chosen()


def _prestart_controller() -> None:
    """In a notebook kernel (not an engine, a script or a test), start the warm ipyparallel
    controller now, while the student reads: the lab's first Cluster.start() then finds it up
    (benchmarks/run_benchmarks.py measures the difference). HYBRIDLAB_PRESTART=0 turns it off."""
    if os.environ.get("HYBRIDLAB_PRESTART") == "0" or "HYBRIDLAB_TAG" in os.environ:
        return  # turned off, or inside an engine or a kernel run
    from . import _controller, progress

    if progress.notebook_kernel() is None:
        return

    try:
        _controller.prestart()
    except OSError:
        pass  # Cluster.start() starts one and reports what fails


_prestart_controller()
