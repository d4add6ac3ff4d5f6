"""What every result records about where and how it ran (book: How the kit measures)."""

from __future__ import annotations

import os
import platform

from ..kernels.build import Kernel
from ..machine.placement import Placement
from ..machine.probe import compare
from ..machine.topology import MpiInfo, Topology, compiler_info
from .records import Results


def describe_run(
    kernel: Kernel, params: dict, placement: Placement, topology: Topology, mpi: MpiInfo
) -> dict[str, object]:
    return {
        "kernel": kernel.name,
        "params": {k: str(v) for k, v in params.items()},
        "placement": f"{placement.ranks} ranks x {placement.threads} threads, bind={placement.bind}"
        + (f", on {placement.nodes} nodes" if placement.nodes > 1 else ""),
        "ranks": placement.ranks,
        "nodes": placement.nodes,
        "threads": placement.threads,
        "bind": placement.bind,
        "oversubscribed": placement.oversubscribed(len(topology.usable)),
        "machine": topology.summary(),
        "host": platform.node(),  # the notebook's; each rank's is in the records' `host`
        "mpi": f"{mpi.implementation} {mpi.version}".strip(),
        "mpiexec": mpi.mpiexec,
        "compiler": compiler_info(),
        "flags": " ".join(kernel.flags),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
    }


def run_warnings(placement: Placement, topology: Topology, kernel: Kernel) -> list[str]:
    warnings = []
    over = placement.oversubscription_warning(len(topology.usable))
    if over:
        warnings.append(over)
    warnings.extend(f"compiler: {w}" for w in kernel.warnings)
    return warnings


def make_results(
    kernel: Kernel,
    params: dict,
    placement: Placement,
    topology: Topology,
    mpi: MpiInfo,
    rows: list[dict],
    ranks: list[dict],
    probes: tuple[dict, dict],
    **extra: object,
) -> Results:
    """Records plus everything about the run, and the warnings that say how far to trust it."""
    meta = describe_run(kernel, params, placement, topology, mpi)
    meta.update(extra)
    meta["probe"] = {"before": probes[0], "after": probes[1]}
    warnings = run_warnings(placement, topology, kernel)
    changed = compare(*probes)
    if changed:
        warnings.append(changed)
    return Results.from_rows(rows, ranks, meta, warnings)
