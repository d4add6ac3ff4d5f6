#!/usr/bin/env python
"""Memory of a cluster by its number of engines: the proportional set size (PSS) of this process
and everything it started (ipyparallel's controller, mpiexec, the engines), after a cluster of N
engines x 1 thread has started and run `hello_hybrid` once, for N = 2 and 8 (more engines than
CPUs is allowed: memory does not depend on the cores). What an 8-core student server adds over a
2-core one for a lab's largest shape (book/instructors.md, "Sizing a class"); the labs' own
arrays are not in it. Written to benchmarks/engine_memory_results.md; nothing is asserted.

    python benchmarks/bench_engine_memory.py [--engines 2,8]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psutil

import hybridlab as hl
from _common import table
from _runner import Bench

HERE = Path(__file__).resolve().parent


def pss_tree() -> tuple[float, int]:
    """MiB of PSS of this process and its descendants, and how many processes."""
    me = psutil.Process()
    total, count = 0, 0
    for proc in [me, *me.children(recursive=True)]:
        try:
            total += proc.memory_full_info().pss
            count += 1
        except psutil.Error:
            continue
    return total / 2**20, count


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_engine_memory", __doc__, "engine_memory_results.md", argv, repeats=None,
                  options=lambda p: p.add_argument("--engines", default="2,8"),
                  quick_help="2 engines only", quick={"engines": "2"})  # fmt: skip
    args = bench.args
    bench.checkpoint("before")
    rows = []
    for ranks in (int(n) for n in args.engines.split(",")):
        cluster = hl.Cluster(ranks=ranks, threads=1, timeout=300, start_timeout=300).start()
        try:
            cluster.run("hello_hybrid")
            mib, count = pss_tree()
        finally:
            cluster.stop()
        rows.append((ranks, mib, count, os.getloadavg()[0]))
        print(f"{ranks} engines: {mib:.0f} MiB PSS, {count} processes", file=sys.stderr)
    bench.checkpoint("after")
    lines = [
        *table(["engines x threads", "PSS MiB", "processes", "load (1 min) after"],
               [[f"{r} x 1", f"{m:.0f}", c, f"{load:.1f}"] for r, m, c, load in rows]),
    ]  # fmt: skip
    if len(rows) >= 2:
        (r0, m0, _, _), (r1, m1, _, _) = rows[0], rows[-1]
        lines.append(f"Per engine: {(m1 - m0) / (r1 - r0):.0f} MiB.")
    return bench.report("Memory of a cluster by its engines", lines + [""],
                        what=__doc__.split("\n\n")[0].replace("\n", " "))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
