#!/usr/bin/env python
"""Synchronisation overheads measured by the kit (kernels_c/syncbench.c), written to
benchmarks/sync_results.md (and sync_results.json).

EPCC syncbench method (the book's *How the kit measures*): for each construct, the median time per repetition of
the test loop minus that of the reference loop, with the spread sqrt(sd_test^2 + sd_ref^2), from
`samples` outer samples of at least `target_ms` each. Measured here:

* OpenMP parallel, for, barrier and reduction with 1 and 2 threads (1 rank, bound to cores);
* MPI_Barrier with 2 ranks (1 thread each, bound to cores).

Each configuration is run `--repeats` times, interleaved, so that drift of the machine hits all
alike; every run records the core-to-core probe before and after it (SMT siblings or separate
cores). Nothing is asserted: this is a benchmark, not a test. Progress goes to stderr.

    python benchmarks/bench_sync.py [--repeats 5] [--samples 20] [--target-ms 1]
                                    [--out benchmarks/sync_results.md] [--quick]
(the raw figures go to the JSON beside --out)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections import Counter

import pandas as pd

import hybridlab as hl
from _common import Progress, plain
from _runner import Bench
from hybridlab.sync.tables import overhead_table

OPENMP = ["parallel", "for", "barrier", "reduction"]
CONFIGS = (  # (label, ranks, threads, constructs)
    ("1 thread", 1, 1, OPENMP),
    ("2 threads", 1, 2, OPENMP),
    ("2 ranks", 2, 1, ["mpi_barrier"]),
)

say = Progress("bench_sync")


def one_run(label: str, ranks: int, threads: int, constructs: list[str], args) -> dict:
    """One program run: its overheads, spreads, trust flags and probe states."""
    res = hl.run_program(
        "syncbench",
        ranks=ranks,
        threads=threads,
        bind="cores",
        construct=",".join(["reference", *constructs]),
        samples=args.samples,
        target_ms=args.target_ms,
        timeout=300,
    )
    table = overhead_table(res.records, by=[])
    probe = res.meta["probe"]
    states = {probe["before"]["state"], probe["after"]["state"]}
    return {
        "config": label,
        "ranks": ranks,
        "threads": threads,
        "probe_before_ns": probe["before"]["roundtrip_ns"],
        "probe_after_ns": probe["after"]["roundtrip_ns"],
        "probe_state": states.pop() if len(states) == 1 else "changed during the run",
        "loadavg_1min": round(os.getloadavg()[0], 2),
        "warnings": res.warnings,
        "overheads": table[
            ["construct", "overhead_us", "spread_us", "test_us", "reference_us", "trusted"]
        ].to_dict(orient="records"),
    }


def _name(construct: str) -> str:
    return "MPI_Barrier" if construct == "mpi_barrier" else f"omp {construct}"


def summarise(runs: list[dict]) -> pd.DataFrame:
    rows = []
    for run in runs:
        for o in run["overheads"]:
            rows.append({"config": run["config"], "probe_state": run["probe_state"], **o})
    frame = pd.DataFrame(rows)
    out = []
    for (config, construct), group in frame.groupby(["config", "construct"], sort=False):
        states = Counter(group["probe_state"])
        out.append(
            {
                "construct": _name(construct),
                "config": config,
                "overhead_us": statistics.median(group["overhead_us"]),
                "spread_us": statistics.median(group["spread_us"]),
                "min_us": min(group["overhead_us"]),
                "max_us": max(group["overhead_us"]),
                "trusted": f"{int(group['trusted'].sum())}/{len(group)}",
                "probe": ", ".join(f"{n}x {s}" for s, n in states.items()),
            }
        )
    return pd.DataFrame(out)


def by_state(runs: list[dict]) -> pd.DataFrame:
    rows = []
    for run in runs:
        for o in run["overheads"]:
            rows.append(
                {
                    "construct": _name(o["construct"]),
                    "config": run["config"],
                    "probe_state": run["probe_state"],
                    "overhead_us": o["overhead_us"],
                }
            )
    frame = pd.DataFrame(rows)
    return (
        frame.groupby(["construct", "config", "probe_state"], sort=False)["overhead_us"]
        .agg(["median", "count"])
        .reset_index()
    )


def report(runs: list[dict], args, seconds: float) -> list[str]:
    table = summarise(runs)
    states = by_state(runs)
    lines = [
        f"{args.repeats} runs per configuration, interleaved; each run {args.samples} samples of "
        f"at least {args.target_ms:g} ms per construct; delay 0.1 µs inside every construct; "
        f"bind=cores. Benchmark time {seconds:.0f} s."
        + (" **Quick mode**: few samples, not for comparison." if args.quick else ""),
        "",
        "| construct | placement | overhead (µs), median of runs | spread (µs), median of runs "
        "| overhead min .. max over runs (µs) | runs trusted | probe state of the runs |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.construct} | {r.config} | {r.overhead_us:.3f} | {r.spread_us:.3f} | "
            f"{r.min_us:.3f} .. {r.max_us:.3f} | {r.trusted} | {r.probe} |"
        )
    lines += [
        "",
        "Overhead = median test time per repetition - median reference time per repetition "
        "(EPCC syncbench), from the kit's own records (`hybridlab.sync.tables.overhead_table`, "
        "which uses `hybridlab.runs.stats.overhead`); for MPI_Barrier each sample is the slowest "
        "rank's. Spread = sqrt(sd_test^2 + sd_reference^2) within one run. A run is trusted "
        "when both its test and its reference samples scatter by at most 10 % of their median. "
        "The probe is the core-to-core round trip before and after each run: 'shared core (SMT "
        "siblings)' makes synchronisation faster than 'separate cores'; compare like with like.",
        "",
        "By probe state (median overhead of the runs in each state, µs):",
        "",
        "| construct | placement | probe state | median (µs) | runs |",
        "|---|---|---|---|---|",
    ]
    for r in states.itertuples():
        lines.append(
            f"| {r.construct} | {r.config} | {r.probe_state} | {r.median:.3f} | {r.count} |"
        )
    loads = [r["loadavg_1min"] for r in runs]
    lines += [
        "",
        f"Load average (1 min) after the runs: {min(loads):.2f} .. {max(loads):.2f}. Other "
        "programs on the machine go straight into these figures (wider spreads, untrusted "
        "runs); run it on a quiet machine for reference numbers.",
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_sync", __doc__, "sync_results.md", argv, repeats=5, options=options,
                  quick_help="1 repeat, 5 samples of 0.2 ms", progress=say,
                  quick={"repeats": 1, "samples": 5, "target_ms": 0.2})  # fmt: skip
    args = bench.args
    if args.repeats < 1 or args.samples < 2 or args.target_ms <= 0:
        raise SystemExit("bench_sync: need --repeats >= 1, --samples >= 2 and --target-ms > 0")
    if len(hl.read_topology().usable) < 2:
        raise SystemExit("bench_sync: needs at least 2 usable CPUs (2 threads, 2 ranks)")
    bench.checkpoint("before")
    runs = []
    for repeat in range(args.repeats):
        order = CONFIGS if repeat % 2 == 0 else tuple(reversed(CONFIGS))
        for label, ranks, threads, constructs in order:
            say(f"repeat {repeat + 1}/{args.repeats}: {label}")
            runs.append(one_run(label, ranks, threads, constructs, args))
    bench.checkpoint("after")
    data = {"args": {k: plain(v) for k, v in vars(args).items()}, "runs": runs}
    return bench.report("Synchronisation overheads (syncbench)",
                        report(runs, args, say.elapsed()), data)  # fmt: skip


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--target-ms", type=float, default=1.0)


if __name__ == "__main__":
    sys.exit(main())
