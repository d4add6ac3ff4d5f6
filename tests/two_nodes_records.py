"""Make the real two-node records the topic tests read (tests/data/two_nodes/*.json).

Run inside an allocation of two nodes, e.g. on the kit's own test cluster:

    python -m hybridlab.slurm.local_slurm start /tmp/c --nodes 2 && export SLURM_CONF=/tmp/c/slurm.conf
    salloc -N 2 -n 2 -c 2 .venv/bin/python tests/two_nodes_records.py tests/data/two_nodes

It runs the multi-node sections' own runs (the topics' exercise functions, quick sizes) and saves
each Results as JSON, so that the tables and plots are tested on records that name two hosts.
The tests read them with `two_node_run(name)`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hybridlab as hl
from hybridlab.collectives.exercise import across_nodes
from hybridlab.halo.exercise import node_runs
from hybridlab.machine.launcher import allocation_nodes
from hybridlab.mapping import tables
from hybridlab.mapping.exercise import grid_runs
from hybridlab.p2p.exercise import path_sweeps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _common import scrub_paths  # noqa: E402 - the benchmarks' writers scrub the same way

DATA = Path(__file__).resolve().parent / "data" / "two_nodes"
GRID_MAPS = {"round-robin": tables.round_robin(8, 2), "sequential": tables.sequential(8, 2),
             "blocks": tables.blocks(2, 4, 2, 2)}  # fmt: skip


def _transpose_messages(n: int, cores: int, threads: int) -> tuple[int, int]:
    """Messages per rank and bytes per message of an n^3 complex transpose (lab 07 (a))."""
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2


def two_node_run(name: str) -> hl.Results:
    """One saved run of the two-node cluster, e.g. 'grid_blocks' or 'halo3d_2x2'."""
    return hl.Results.load(DATA / f"{name}.json")


def save(res: hl.Results, path: Path) -> None:
    """Save a run without this machine's folders (the files are committed)."""
    res.save(path)
    path.write_text(scrub_paths(path.read_text()))


def main(out: Path) -> None:
    nodes = allocation_nodes()
    if nodes != 2:
        sys.exit(f"run me inside an allocation of two nodes (salloc -N 2 ...), not {nodes}")
    out.mkdir(parents=True, exist_ok=True)
    save(hl.run_program("hello_hybrid", ranks=4, threads=1, bind="cores", nodes=2, spin_ms=20),
         out / "hello.json")  # fmt: skip
    sweeps = path_sweeps(2, min_bytes=1, max_bytes=2**20, samples=3, iterations=200, skip=20,
                         iterations_large=50, skip_large=5)  # fmt: skip
    for path, res in sweeps.items():
        save(res, out / f"pingpong_{path.replace(' ', '_')}.json")
    for res in node_runs(2, 2, 32, 5):
        save(res, out / f"halo3d_{res.records['ranks'].iloc[0]}x{res.records['threads'].iloc[0]}.json")
    runs, _ = grid_runs(2, 4, GRID_MAPS, 2, bytes=4096, reps=5)
    for name, res in runs.items():
        save(res, out / f"grid_{name}.json")
    for res in across_nodes(16, 2, 2, _transpose_messages, quick=True):
        line = res.records.query("record == 'osu'").iloc[0]
        save(res, out / f"alltoall_{line['ranks']}x{line['threads']}.json")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
