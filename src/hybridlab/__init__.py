"""hybridlab: hybrid MPI + OpenMP programming, measured on your own machine.

The package is a house of wings (ARCHITECTURE.md walks through them), on floors numbered
bottom first; a wing imports its own modules and the wings below it, never one above (nor one
beside it on its floor):

  1 shared     errors, settings (every environment variable), progress (a cell's status line),
               paths (the kit's folders, caches, the venv's bin), reference (published data)
  2 kernels    build (mpicc with the kit's flags, a content-hashed cache, Kernel), c_cells (%%c),
               unit_checks (a student's object and preprocessed unit judged)
  3 machine    topology (cores, NUMA, the MPI library, find_mpiexec), placement, thread_levels,
               launcher (mpiexec or Slurm's srun), probe (core-to-core, around each run), reaper
  4 runs       run_path (the one run path: build -> probe -> time -> parse -> Results), launch
               (run_program: a program under mpiexec), records, metadata, replay, own_runs,
               run_format, course_size (quick or full), compliance, student_c, traces, stats
  5 engines    cluster (placement, deferral, runs on the engines), engine_set, supervisor,
               controller (the notebook's warm ipyparallel controller), engine (a rank's process),
               once (a function once on every rank of a fresh MPI job, no engines)
  5 slurm      jobs (a batch script: sbatch --wait, else a local runner), local_slurm
  5 simulate   the kit's MPI kernels under SimGrid SMPI (its own run path beside runs)
  5 course     authoring, notebooks (run headless), kernelspec, labsettings, bookserver,
               hidden_inputs, doctor
  5 plots      pictures shared by several topics
  6 grading    nbgrader in a bubblewrap sandbox
  7 topics     hybrid_models, sync, p2p, halo, memory, mapping, collectives, modelling,
               pykernels, whole_program, thread_comm, shm, neighbour, offload, tools:
               one package per course topic, importing
               the harness and other topics' non-exercise modules
  8 door       __init__ (this public API), cli (the `hybridlab` command)

Rules (tests/test_architecture.py reads every module's imports and checks them):
  - a wing never imports one above it: so the harness never imports a topic;
  - runs.records, runs.stats, runs.compliance, runs.traces, reference, plots and every topic
    module except a topic's `exercise` never import engines, kernels, slurm, simulate,
    runs.launch or runs.run_path: they launch nothing;
  - published numbers live in reference/data/*.toml with their citations, not in code.

The names below are imported on first use, so that an MPI engine that only needs
hybridlab.engines.engine imports nothing of the kit (no pandas, matplotlib, ipyparallel client
or C build) at start-up.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

_WHERE = {
    "BuildError": "kernels.build",
    "Kernel": "kernels.build",
    "build": "kernels.build",
    "build_source": "kernels.build",
    "Cluster": "engines.cluster",
    "ClusterNotRunning": "errors",
    "KernelCrash": "errors",
    "KernelError": "errors",
    "KernelTimeout": "errors",
    "ThreadComplianceError": "errors",
    "LauncherError": "machine.launcher",
    "run_program": "runs.launch",
    "BIND_MODES": "machine.placement",
    "Placement": "machine.placement",
    "PlacementError": "machine.placement",
    "Results": "runs.records",
    "check_my_runs": "runs.course_size",
    "grading_size_note": "runs.course_size",
    "mpi_info": "machine.topology",
    "read_topology": "machine.topology",
    "shape_for_allocation": "machine.topology",
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


# The flat names the labs released before the harness moved into wings (issue 37) import, in
# cells a student's notebook of then still has (`%load_ext hybridlab.c_cells`, `from hybridlab
# import compliance`): each is the same module as its new place, found by _Moved.
_MOVED = {
    "c_cells": "kernels.c_cells",
    "compliance": "runs.compliance",
    "jobs": "slurm.jobs",
    "launch": "runs.launch",
    "launcher": "machine.launcher",
    "student_c": "runs.student_c",
    "thread_levels": "machine.thread_levels",
    "topology": "machine.topology",
    "traces": "runs.traces",
}


class _Moved:
    """Imports hybridlab.<old name> of _MOVED as the module at its new place (a finder and
    loader of the import system; not derived from importlib.abc, whose own imports cost every
    engine's start)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, old = fullname.rpartition(".")
        if package == __name__ and old in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(f"{__name__}.{_MOVED[spec.name.rpartition('.')[2]]}")

    def exec_module(self, module):
        pass  # already run at its new place


sys.meta_path.append(_Moved())


def quick_mode() -> bool:
    """True when labs shrink their problem sizes: HYBRIDLAB_QUICK=1 (0: full sizes), or, when it
    is not set, the size the course grades at, released beside the lab (course_size.py)."""
    from .runs.course_size import quick_mode as chosen

    return chosen()


def _prestart_controller() -> None:
    """In a notebook kernel (not an engine, a script or a test), start the warm ipyparallel
    controller now, while the student reads: the lab's first Cluster.start() then finds it up
    (benchmarks/run_benchmarks.py measures the difference). HYBRIDLAB_PRESTART=0 turns it off."""
    if os.environ.get("HYBRIDLAB_PRESTART") == "0" or "HYBRIDLAB_TAG" in os.environ:
        return  # turned off, or inside an engine or a kernel run
    from . import progress

    if progress.notebook_kernel() is None:
        return
    from .engines import controller

    try:
        controller.prestart()
    except OSError:
        pass  # Cluster.start() starts one and reports what fails


_prestart_controller()
