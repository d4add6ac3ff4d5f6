#!/usr/bin/env python
"""Memory bandwidth of the halo kernels' Jacobi sweep against a STREAM-style triad on the same
machine, written to benchmarks/halo_results.md.

A Jacobi sweep is memory bound: the kit's kernels should reach a bandwidth close to what the
machine can stream, or they are measuring something else (a bad loop order, false sharing, a
stray barrier). Bytes are counted the STREAM way (no write-allocate traffic, each array read or
written once per sweep):

* triad (kernels_c/bench_compute.c): a = b + s*c, 24 bytes per element; best of `samples`;
* halo2d jacobi phase: the stencil reads u and writes new (16 bytes per point), the copy back
  reads new and writes u (16): 32 bytes per point per iteration;
* halo3d jacobi phase: the 7-point stencil reads u and writes new (old and new swap, no copy):
  16 bytes per point per iteration.

The jacobi time is the slowest thread's jacobi phase of a run; the bandwidth is the best of
`--repeats` runs; the ratio is the median of per-repeat ratios (triad and kernel
measured back to back). Arrays are at least 4x the last-level cache (STREAM's rule), so neither
fits in cache. Each configuration uses one rank with 1 thread and with every usable CPU.
Nothing is asserted: this is a benchmark, not a test. Progress goes to stderr.

    python benchmarks/bench_halo.py [--repeats 3] [--quick] [--out benchmarks/halo_results.md]
"""

from __future__ import annotations

import math
import statistics
import sys

import hybridlab as hl
from _runner import Bench


def triad_bandwidth(threads: int, n: int, samples: int) -> float:
    """Best triad bandwidth (bytes/s) over the samples, 1 rank."""
    res = hl.run_program(
        "bench_compute", ranks=1, threads=threads, bind="cores", n=n, samples=samples, timeout=600
    )
    rows = res.records[res.records["phase"] == "triad"]
    return float((rows["bytes"] / rows["seconds"]).max())


def jacobi_bandwidth(kernel: str, variant: str, threads: int, side: int, iterations: int) -> float:
    """Bytes/s of the jacobi phase of one run (slowest thread), STREAM-counted."""
    params = {"nx": side, "ny": side, "iterations": iterations, "variant": variant}
    per_point = 32
    if kernel == "halo3d":
        params["nz"] = side
        per_point = 16
    res = hl.run_program(kernel, ranks=1, threads=threads, bind="cores", timeout=600, **params)
    timers = res.records[(res.records["record"] == "timer") & (res.records["phase"] == "jacobi")]
    points = side ** (3 if kernel == "halo3d" else 2)
    return per_point * points * iterations / float(timers["seconds"].max())


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_halo", __doc__, "halo_results.md", argv,
                  quick_help="small arrays (in cache): smoke run")  # fmt: skip
    args, say = bench.args, bench.say

    topo = hl.read_topology()
    cpus = len(topo.usable)
    llc = topo.last_level_cache_bytes() or 32 << 20
    elements = 200_000 if args.quick else max(2_000_000, 4 * llc // 8)  # per array
    side2 = int(math.isqrt(elements)) + 1
    side3 = round(elements ** (1 / 3)) + 1
    iterations = 3 if args.quick else 10
    samples = 5 if args.quick else 20
    threads_list = sorted({1, cpus})
    configs = [  # (name, kernel, variant of the threaded run)
        ("halo2d (2-D, stencil + copy)", "halo2d", "hybrid1"),
        ("halo3d (3-D, 7-point)", "halo3d", "masteronly"),
    ]
    say(f"{cpus} CPUs, LLC {llc >> 20} MiB: {elements} doubles per array; sides {side2}, {side3}")

    bench.checkpoint("before")
    rows = []
    for threads in threads_list:
        # interleaved: each repeat measures the triad and then the kernels, so that drift of a
        # shared machine hits both sides of a ratio alike; the ratio is the median over repeats
        triads, kernels = [], {name: [] for name, _, _ in configs}
        for repeat in range(args.repeats):
            triads.append(triad_bandwidth(threads, elements, samples))
            for name, kernel, variant in configs:
                v = "pure" if threads == 1 else variant
                side = side3 if kernel == "halo3d" else side2
                kernels[name].append(jacobi_bandwidth(kernel, v, threads, side, iterations))
            say(f"{threads} thread(s), repeat {repeat + 1}: triad {triads[-1] / 1e9:.2f} GB/s")
        for name, _kernel, variant in configs:
            v = "pure" if threads == 1 else variant
            ratios = [k / t for k, t in zip(kernels[name], triads, strict=True)]
            rows.append(
                (name, v, threads, max(kernels[name]), max(triads), statistics.median(ratios))
            )
            say(f"{name} {v}, {threads} thread(s): median ratio {rows[-1][-1]:.2f}")
    bench.checkpoint("after")

    lines = [
        f"Last-level cache {llc >> 20} MiB. {elements} doubles per array (triad) / points per grid "
        f"(halo2d {side2}x{side2}, halo3d {side3}^3), {iterations} iterations, best of "
        f"{args.repeats} runs; 1 rank, bound to cores.",
        "",
        "Bytes counted the STREAM way: triad 24 B/element; halo2d jacobi 32 B/point/iteration "
        "(stencil 16 + copy 16); halo3d 16 B/point/iteration. A ratio near 1 means the sweep "
        "streams memory as fast as the triad; well below 1, the kernel is losing time elsewhere.",
        "",
        f"A load average above about {cpus - 1} means other programs were competing, and every "
        "figure is lower than the machine can do.",
        "",
        "| kernel | variant | threads | best jacobi GB/s | best triad GB/s | median ratio |",
        "|---|---|---|---|---|---|",
    ]
    for name, v, threads, best, triad, ratio in rows:
        lines.append(
            f"| {name} | {v} | {threads} | {best / 1e9:.2f} | {triad / 1e9:.2f} | {ratio:.2f} |"
        )
    plane = 8 * (side3 + 2) ** 2
    l2 = max((c.size_bytes for c in topo.caches if c.level == 2), default=0)
    lines += [
        "",
        "How to read the ratios: with write-allocate the real traffic is 32/24 = 1.33x the "
        "counted bytes for the triad and 1.5x for both Jacobi sweeps (24 real for 16 counted), "
        "so a sweep that streams perfectly reaches about 0.89 of the triad. The 3-D sweep also "
        f"reads the planes above and below: one plane is {plane >> 10} KiB, so the three it "
        f"needs {'do not fit' if 3 * plane > l2 else 'fit'} in the {l2 >> 10} KiB L2 and come "
        "from the last-level cache at every point. Without cache blocking the 3-D ratio is "
        "expected to be the lower one; it is a property of the loop, not of the timers.",
        "",
        "Timings on a shared or virtual machine drift (the book's *How the kit measures*): compare ratios from one "
        "run, not absolute numbers from different runs.",
        "",
    ]
    return bench.report("Halo kernels: Jacobi bandwidth vs a STREAM-style triad", lines)


if __name__ == "__main__":
    sys.exit(main())
