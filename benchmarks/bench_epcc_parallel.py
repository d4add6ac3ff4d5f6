"""The kit's `omp parallel` overhead beside EPCC's syncbench, alternated run by run.

    python benchmarks/bench_epcc_parallel.py --epcc PATH/TO/syncbench [--pairs 40]

PATH is an EPCC OpenMP micro-benchmark syncbench executable you built (the suite is not part of
the kit; build it with `gcc -O2 -fopenmp`): its "PARALLEL overhead = X microseconds" line is
read. Each pair runs EPCC's binary (2 threads, OMP_PROC_BIND=close, OMP_PLACES=cores) and the
kit's syncbench (1 rank x 2 threads bound to cores, constructs reference and parallel, 20
samples, 100 ns delay, 1 ms target), the overhead being the mean parallel time per repetition
less the mean reference time, as EPCC computes it. The kit's figure is compared with EPCC's of
the same pair, so drift hits both. Writes benchmarks/epcc_parallel_results.md.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import hybridlab as hl

HERE = Path(__file__).resolve().parent
OVERHEAD = re.compile(r"PARALLEL overhead\s*=\s*([-\d.]+) microseconds")
THREADS = 2


def epcc_overhead_ns(binary: Path) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": str(THREADS), "OMP_PROC_BIND": "close",
           "OMP_PLACES": "cores"}  # fmt: skip
    out = subprocess.run([str(binary)], env=env, capture_output=True, text=True, check=True,
                         timeout=600).stdout  # fmt: skip
    found = OVERHEAD.search(out)
    if not found:
        raise SystemExit(f"{binary} printed no 'PARALLEL overhead = ... microseconds' line")
    return float(found.group(1)) * 1e3


def kit_overhead_ns() -> float:
    res = hl.run_program("syncbench", ranks=1, threads=THREADS, bind="cores",
                         thread_level="funneled", construct="reference,parallel", samples=20,
                         delay_ns=100, target_ms=1)  # fmt: skip
    seconds = res.records.groupby("construct")["seconds"].mean()
    return float(seconds["parallel"] - seconds["reference"]) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epcc", type=Path, required=True, help="EPCC's syncbench executable")
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--out", type=Path, default=HERE / "epcc_parallel_results.md")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    epcc, kit = [], []
    for i in range(args.pairs):
        runs = [("epcc", lambda: epcc_overhead_ns(args.epcc)), ("kit", kit_overhead_ns)]
        for name, run in runs if i % 2 == 0 else runs[::-1]:
            (epcc if name == "epcc" else kit).append(run())
    load_after = os.getloadavg()[0]
    diff = [k - e for k, e in zip(kit, epcc, strict=True)]
    q = statistics.quantiles
    lines = [
        "# The kit's `omp parallel` overhead beside EPCC's syncbench",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by `python "
        f"benchmarks/bench_epcc_parallel.py --pairs {args.pairs}` on {os.uname().nodename} "
        f"({os.cpu_count()} CPUs); load average (1 min) {load_before:.2f} before, "
        f"{load_after:.2f} after. {THREADS} threads bound to cores; kit and EPCC alternated, "
        "the order swapped every pair.",
        "",
        "| | median ns | quartiles ns |",
        "|---|---|---|",
        f"| EPCC syncbench, PARALLEL overhead | {statistics.median(epcc):.1f} | "
        f"{q(epcc, n=4)[0]:.1f} - {q(epcc, n=4)[2]:.1f} |",
        f"| kit syncbench, parallel overhead | {statistics.median(kit):.1f} | "
        f"{q(kit, n=4)[0]:.1f} - {q(kit, n=4)[2]:.1f} |",
        f"| kit - EPCC, same pair | {statistics.median(diff):.1f} | "
        f"{q(diff, n=4)[0]:.1f} - {q(diff, n=4)[2]:.1f} |",
        "",
        f"kit / EPCC (medians): {statistics.median(kit) / statistics.median(epcc):.3f}; the kit "
        f"read higher in {sum(d > 0 for d in diff)} of {len(diff)} pairs.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
