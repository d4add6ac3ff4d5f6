#!/usr/bin/env python
"""numba's Jacobi (lab 09) against the C kernel halo2d on the same engines and P x T, and
numba's JIT: cold compile vs loading the cache, written to benchmarks/pykernels_results.md.

* per-iteration time of the compute phase (numba's prange sweep vs halo2d hybrid1's stencil and
  copy) and of the whole iteration, numba / C as a ratio of two runs made back to back in the
  same cluster; the ratio is the median over `--repeats` pairs;
* JIT: the first call of a fresh Python process with an empty numba cache (compile and save)
  and with the cache filled (load), and the import of the module; plus, in this process, a
  fresh compile without the cache against a fresh dispatcher loading it (median of repeats).

Load before and after is recorded beside the figures. Nothing is asserted: this is a
benchmark, not a test. Progress goes to stderr.

    python benchmarks/bench_pykernels.py [--repeats 3] [--quick] [--out benchmarks/pykernels_results.md]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

import llvmlite
import numba

import hybridlab as hl
from _common import Progress, summary, table
from _runner import Bench
from hybridlab.pykernels.exercise import jit_times, numba_jacobi
from hybridlab.pykernels.tables import numba_vs_c

say = Progress("bench_pykernels")

FIRST_CALL = """
import json, time
t0 = time.perf_counter()
import numpy as np
from hybridlab.pykernels.jacobi import sweep
t1 = time.perf_counter()
u = np.zeros((34, 34))
sweep(u, u.copy())
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_call_s": t2 - t1, "hits": sum(sweep.stats.cache_hits.values())}))
"""


def fresh_process(cache: str) -> dict:
    """Import and first call of the numba sweep in a new Python process using `cache`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return json.loads(done.stdout.strip().splitlines()[-1])


def jit_rows(repeats: int) -> list[list[object]]:
    cold, cached = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            cold.append(fresh_process(cache))
            cached.append(fresh_process(cache))
    inproc = [jit_times().set_index("step")["seconds"] for _ in range(repeats)]
    rows = []
    for name, values in (
        (
            "new process, empty cache: first call (compile + save + start the pool)",
            [c["first_call_s"] for c in cold],
        ),
        (
            "new process, cache filled: first call (load + start the pool)",
            [c["first_call_s"] for c in cached],
        ),
        ("new process: import numpy + numba + the module", [c["import_s"] for c in cold + cached]),
        ("this process: fresh compile, no cache", [s["compile, no cache"] for s in inproc]),
        (
            "this process: fresh dispatcher, load from cache",
            [s["load from the cache"] for s in inproc],
        ),
        ("this process: a compiled call (34 x 34)", [s["second call (compiled)"] for s in inproc]),
    ):
        s = summary(values)
        ms = [1e3 * s[k] for k in ("median", "min", "max")]
        rows.append([name, *(f"{v:.0f}" if v >= 100 else f"{v:.3g}" for v in ms), s["n"]])
    hits = [c["hits"] for c in cached]
    say(
        f"JIT: cold {rows[0][1]} ms, cached {rows[1][1]} ms (cache hits in the cached runs: {hits})"
    )
    return rows


def pair_rows(shapes, side: int, iterations: int, repeats: int) -> list[list[object]]:
    rows = []
    for ranks, threads in shapes:
        ratios = {"jacobi": [], "total": []}
        per_it = {"numba": [], "hybrid1": []}
        with hl.Cluster(ranks=ranks, threads=threads, bind="cores") as cluster:
            numba_jacobi(cluster, 34, 34, 2)  # engines import numba and load the kernel first
            for _ in range(repeats):
                nb = numba_jacobi(cluster, side, side, iterations)
                c = cluster.run(
                    "halo2d", variant="hybrid1", nx=side, ny=side, iterations=iterations
                )
                t = numba_vs_c([nb, c], iterations).set_index("variant")
                for phase in ratios:
                    ratios[phase].append(t.loc["numba", phase] / t.loc["hybrid1", phase])
                for v in per_it:
                    per_it[v].append(t.loc[v, "total_ms_per_it"])
        rows.append(
            [
                f"{ranks} x {threads}",
                f"{statistics.median(per_it['numba']):.3f}",
                f"{statistics.median(per_it['hybrid1']):.3f}",
                f"{statistics.median(ratios['jacobi']):.2f}",
                f"{statistics.median(ratios['total']):.2f}",
                f"{min(ratios['total']):.2f} - {max(ratios['total']):.2f}",
            ]
        )
        say(f"{ranks} x {threads}: numba/C compute {rows[-1][3]}, total {rows[-1][4]}")
    return rows


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_pykernels", __doc__, "pykernels_results.md", argv,
                  quick_help="small grid: smoke run", progress=say)  # fmt: skip
    args = bench.args
    cpus = len(hl.read_topology().usable)
    shapes = [(cpus, 1), (1, cpus)] if cpus > 1 else [(1, 1)]
    side, iterations = (256, 50) if args.quick else (1024, 200)
    bench.checkpoint("before")
    jit = jit_rows(args.repeats)
    pairs = pair_rows(shapes, side, iterations, args.repeats)
    bench.checkpoint("after")

    lines = [
        f"{side} x {side} grid, {iterations} iterations, {args.repeats} numba/C pairs per "
        "P x T, run back to back in the same engines (bound to cores). numba: "
        "`hybridlab.pykernels.jacobi` (prange sweep, mpi4py Sendrecv/Allreduce on numpy "
        "buffers); C: `halo2d` variant hybrid1. Phase times are the slowest rank's.",
        "",
        f"- numba {numba.__version__}, llvmlite {llvmlite.__version__}; numba's cache: "
        "`$HYBRIDLAB_CACHE/numba` (this process and the engines), a fresh temporary folder for "
        "the new-process rows",
        "",
        "## Per iteration, numba / C",
        "",
        *table(
            [
                "P x T",
                "numba ms/iteration",
                "C ms/iteration",
                "compute numba/C",
                "total numba/C",
                "total ratio range",
            ],
            pairs,
        ),
        "## JIT: milliseconds",
        "",
        *table(["step", "median ms", "min ms", "max ms", "n"], jit),
        "A ratio below 1 means numba was faster. The compute phase compares the compilers "
        "(LLVM via numba, gcc) on the same loop; the total adds the halo exchange, where numba "
        "pays Python's overhead around each mpi4py call, and the reduction. Timings on a shared "
        "or virtual machine drift: compare ratios from one run, not absolute numbers from "
        "different runs.",
        "",
    ]
    return bench.report("numba kernels (lab 09): numba vs C per iteration, and numba's JIT", lines)


if __name__ == "__main__":
    sys.exit(main())
