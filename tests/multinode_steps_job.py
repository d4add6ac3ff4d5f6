"""Run inside a 2-node Slurm allocation by test_multinode.py: consecutive steps across the two
nodes, as bench_multinode.py runs them (engines started and stopped, ping-pong programs at 8 B
and 1 MiB, three rounds), each step's MPI_Init publishing MPICH's UCX address through the PMI.
Writes what each step saw as JSON to OUT; a step that fails is noted with its error, not raised.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hybridlab as hl

ROUNDS = 3
SIZES = (8, 1 << 20)  # the ping-pong's latency and bandwidth sizes, one step each
COUNTS = {"iterations": 20, "skip": 2, "iterations_large": 10, "skip_large": 1, "samples": 2}


def program_step(size: int) -> dict[str, object]:
    res = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", nodes=2, mode="sweep",
                         min_bytes=size, max_bytes=size, timeout=120, **COUNTS)  # fmt: skip
    return {
        "hosts": sorted(r["host"] for r in res.meta["ranks"]),
        "launcher": res.meta["launcher"],
        "command": res.meta["command"],
        "bytes": sorted(int(b) for b in res.records["bytes"].unique()),
        "positive": bool((res.records["seconds"] > 0).all()),
    }


def engines_step() -> dict[str, object]:
    with hl.Cluster(ranks=2, threads=1, nodes=2, timeout=120) as cluster:
        res = cluster.run("pingpong", min_bytes=1 << 20, max_bytes=1 << 20, **COUNTS)
        return {
            "hosts": sorted(cluster.nodes_of_ranks().values()),
            "launcher": res.meta["launcher"],
            "bytes": sorted(int(b) for b in res.records["bytes"].unique()),
            "positive": bool((res.records["seconds"] > 0).all()),
        }


def main(out: Path) -> None:
    steps = []
    for round_ in range(ROUNDS):
        work = [("engines", engines_step)] + [
            (f"pingpong {size} B", lambda size=size: program_step(size)) for size in SIZES
        ]
        for name, run in work:
            try:
                seen = run()
            except (hl.KernelError, hl.ClusterNotRunning) as err:  # KernelTimeout too
                seen = {"error": str(err)[-1500:]}
            steps.append({"round": round_, "step": name, **seen})
    out.write_text(json.dumps(steps, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
