"""Run inside a 2-node Slurm allocation by test_multinode.py: consecutive steps across the two
nodes, as bench_multinode.py runs them (engines started and stopped, ping-pong programs at 8 B
and 1 MiB, three rounds), each step's MPI_Init publishing MPICH's UCX address through the PMI,
then the two ping-pongs again with UCX_TLS=LONG_CARD_TLS. Writes what each step saw as JSON to
OUT; a step that fails is noted with its error, not raised.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hybridlab as hl

ROUNDS = 3
SIZES = (8, 1 << 20)  # the ping-pong's latency and bandwidth sizes, one step each
# With these transports, on the kit's test cluster, the 8 B ping-pong's ranks sent PMI-1 lines
# over 1024 bytes at MPI_Init every time (benchmarks/pmi_request_lines.py): under srun
# --mpi=pmi2 the run failed or hung in MPI_Init (book/slurm.md)
LONG_CARD_TLS = "tcp,sysv,posix,self"
COUNTS = {"iterations": 20, "skip": 2, "iterations_large": 10, "skip_large": 1, "samples": 2}


def program_step(size: int, env: dict[str, str] | None = None) -> dict[str, object]:
    res = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", nodes=2, mode="sweep",
                         min_bytes=size, max_bytes=size, timeout=120, env=env, **COUNTS)  # fmt: skip
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
    for round_ in range(ROUNDS + 1):
        work = [("engines", engines_step)] + [
            (f"pingpong {size} B", lambda size=size: program_step(size)) for size in SIZES
        ]
        if round_ == ROUNDS:
            work = [
                (f"pingpong {size} B, UCX_TLS={LONG_CARD_TLS}",
                 lambda size=size: program_step(size, {"UCX_TLS": LONG_CARD_TLS}))
                for size in SIZES
            ]  # fmt: skip
        for name, run in work:
            try:
                seen = run()
            except (hl.KernelError, hl.ClusterNotRunning) as err:  # KernelTimeout too
                seen = {"error": str(err)[-1500:]}
            steps.append({"round": round_, "step": name, **seen})
    out.write_text(json.dumps(steps, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
