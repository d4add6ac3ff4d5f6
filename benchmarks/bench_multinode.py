#!/usr/bin/env python
"""Start-up and ping-pong across two nodes against one node, on the kit's own 2-node Slurm
cluster (hybridlab.slurm.local_slurm), written to benchmarks/multinode_results.md (and .json).

The two "nodes" are namespaces of this one machine (own hostname, IPC, /dev/shm): between them
MPICH takes its network path, which here is TCP through the host's own network stack (the
packets never leave the machine), not a cluster's interconnect. The figures show what the kit
adds across nodes and how the inter-node path differs from shared memory, not what a real
network does. Inside `salloc -N 2`, interleaved in each repeat:

* start-up: `Cluster(ranks=2, threads=1)` on one node (`nodes=1`) and one rank on each node
  (`nodes=2`), timed around start() and stop();
* ping-pong (kernels_c/pingpong.c, mode=sweep, OSU counts scaled by --scale): 2 ranks x 1 thread
  bound to cores on one node (shared memory) and on two nodes, half round trip at 8 B (latency)
  and 1 MiB (bandwidth).

Across the nodes the kit starts the ranks with MPICH's mpiexec (Hydra, its proxies by srun):
under srun --mpi=pmi2 the 1 MiB run failed in MPI_Init every time (book/slurm.md).

Each inter-node figure is given as a ratio to the intra-node one of the same run. Needs root,
slurm-wlm, munge and bubblewrap (as `make test-multinode`). Nothing is asserted.

    python benchmarks/bench_multinode.py [--repeats 3] [--samples 5] [--scale 0.05] [--quick]
    python benchmarks/bench_multinode.py --inside OUT.json ...   # the part run inside salloc
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import hybridlab as hl
from _common import Progress, other_load
from _runner import Bench

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SIZES = {"latency": 8, "bandwidth": 1 << 20}
ALLOCATION = ["salloc", "-N", "2", "-n", "2", "-c", "2"]
RUN_SECONDS = 300  # one ping-pong run: the inter-node path is slow under load
say = Progress("bench_multinode")


def pingpong(nodes: int, size: int, args) -> list[float]:
    counts = {
        "iterations": max(1, int(10000 * args.scale)),
        "skip": max(1, int(100 * args.scale)),
        "iterations_large": max(1, int(1000 * args.scale)),
        "skip_large": max(1, int(10 * args.scale)),
    }
    res = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", nodes=nodes, mode="sweep",
                         min_bytes=size, max_bytes=size, samples=args.samples, timeout=RUN_SECONDS,
                         **counts)  # fmt: skip
    hosts = sorted({r["host"] for r in res.meta["ranks"]})
    assert len(hosts) == nodes, f"nodes={nodes} ran on {hosts}"
    return [float(s) for s in res.records["seconds"]]


def start_stop(nodes: int) -> tuple[float, float]:
    cluster = hl.Cluster(ranks=2, threads=1, nodes=nodes)
    t0 = time.perf_counter()
    cluster.start()
    started = time.perf_counter() - t0
    hosts = {e["host"] for e in cluster.engines}
    t0 = time.perf_counter()
    cluster.stop()
    assert len(hosts) == nodes, f"nodes={nodes} ran on {hosts}"
    return started, time.perf_counter() - t0


def inside(args) -> None:
    """Measure, inside the 2-node allocation; the raw figures to args.inside."""
    raw: dict[str, dict[int, list[float]]] = {k: {1: [], 2: []} for k in ("start", "stop", *SIZES)}
    load = [other_load("start")]
    start_stop(1)  # the warm controller, the page cache
    for repeat in range(args.repeats):
        order = (1, 2) if repeat % 2 == 0 else (2, 1)
        for nodes in order:
            started, stopped = start_stop(nodes)
            raw["start"][nodes].append(started)
            raw["stop"][nodes].append(stopped)
            for name, size in SIZES.items():
                raw[name][nodes] += pingpong(nodes, size, args)
        load.append(other_load(f"repeat {repeat + 1}"))
    Path(args.inside).write_text(json.dumps({"raw": raw, "load": load}))


def row(quantity: str, unit: str, intra: list[float], inter: list[float]) -> dict:
    one = statistics.median(intra) if intra else float("nan")
    two = statistics.median(inter) if inter else float("nan")
    return {"quantity": quantity, "unit": unit, "intra": one, "inter": two, "ratio": two / one,
            "n": (len(intra), len(inter))}  # fmt: skip


def summarise(raw: dict) -> list[dict]:
    r = {k: {int(n): v for n, v in per.items()} for k, per in raw.items()}
    big = SIZES["bandwidth"]
    return [
        row("Cluster(ranks=2) start", "s", r["start"][1], r["start"][2]),
        row("Cluster(ranks=2) stop", "s", r["stop"][1], r["stop"][2]),
        row("ping-pong latency, 8 B", "us", [s * 1e6 for s in r["latency"][1]],
            [s * 1e6 for s in r["latency"][2]]),
        row("ping-pong bandwidth, 1 MiB", "GB/s", [big / s / 1e9 for s in r["bandwidth"][1]],
            [big / s / 1e9 for s in r["bandwidth"][2]]),
    ]  # fmt: skip


def markdown(rows: list[dict], args) -> list[str]:
    lines = [
        "Written by `benchmarks/bench_multinode.py`; do not edit by hand. The kit's 2-node Slurm",
        "cluster (`hybridlab.slurm.local_slurm`, as `make test-multinode`): two namespaces of this",
        "one machine, each with its own hostname, IPC and /dev/shm. **The inter-node path is TCP",
        "through this host's own network stack** (MPICH's default UCX netmod picks its tcp",
        "transport between the two; the packets never leave the machine): it shows the kit's cost",
        "across nodes and the step from shared memory to a network path, not a real",
        "interconnect. One node: 2 ranks on node1 (shared memory), started by srun; two nodes: one",
        "rank on each, started by MPICH's mpiexec (Hydra) whose proxies srun starts (book/slurm.md).",
        "Interleaved within each repeat; ratio = two nodes / one node, from the same run. Whether",
        "other work disturbed the figures: the load checkpoints below.",
        "",
        f"- {args.repeats} repeats; ping-pong {args.samples} samples per run, OSU counts scaled "
        f"by {args.scale}",
        "",
        "| quantity | one node | two nodes | ratio | unit | n (one, two) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['quantity']} | {r['intra']:.3g} | {r['inter']:.3g} | {r['ratio']:.2f} | "
            f"{r['unit']} | {r['n'][0]}, {r['n'][1]} |"
        )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_multinode", __doc__, "multinode_results.md", argv, options=options,
                  quick_help="1 repeat, 2 samples", quick={"repeats": 1, "samples": 2},
                  progress=say)  # fmt: skip
    args = bench.args
    if args.inside:
        inside(args)
        return 0
    own = [f"--{k}={getattr(args, k)}" for k in ("repeats", "samples", "scale")]
    with bench.two_nodes() as slurm:
        measured = bench.inside(slurm, ALLOCATION, own, timeout=3600)
    rows = summarise(measured["raw"])
    bench.loads = measured["load"]  # the checkpoints taken inside the allocation
    bench.report("Across nodes: start-up and ping-pong", markdown(rows, args),
                 {"rows": rows, **measured})  # fmt: skip
    for r in rows:
        say(f"{r['quantity']}: one node {r['intra']:.3g}, two {r['inter']:.3g} {r['unit']} "
            f"(ratio {r['ratio']:.2f})")  # fmt: skip
    return 0


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--scale", type=float, default=0.05, help="scale the OSU iteration counts")
    parser.add_argument("--inside", help=argparse.SUPPRESS)  # run inside the allocation


if __name__ == "__main__":
    sys.exit(main())
