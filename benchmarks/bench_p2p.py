#!/usr/bin/env python
"""Point-to-point latency and bandwidth measured by the kit (kernels_c/pingpong.c, mode=sweep),
written to benchmarks/p2p_results.md (and p2p_results.json).

OSU osu_latency method (the book's *How the kit measures*): rank 0 and rank 1 ping-pong a message; `skip`
warm-up round trips are discarded, then `iterations` are timed and halved (OSU counts: 10000
and 100 skipped up to 8 KiB, 1000 and 10 above, scaled by --scale). Two numbers, for 2 ranks
bound to cores:

* latency: the half round trip of an 8-byte message (us);
* bandwidth: 1 MiB divided by the half round trip of a 1 MiB message (GB/s, 1e9 B/s). This is
  ping-pong bandwidth, one message in flight, not the windowed osu_bw.

Each run takes `--samples` samples; runs are repeated `--repeats` times, interleaved with each
other. The table gives the median over all samples with min and max, and the core-to-core probe
state of every run. Then the side-by-side (p2p_osu.py): the kit beside a minimal OSU-style loop
of our own, `--osu-repeats` alternating repeats, the ratio kit / reference at 8 B, 1 KiB and
1 MiB. Nothing is asserted: this is a benchmark, not a test.

    python benchmarks/bench_p2p.py [--repeats 5] [--samples 10] [--scale 1.0] [--quick]
                                   [--osu-repeats 9] [--out benchmarks/p2p_results.md]
(the raw figures go to the JSON beside --out)
"""

from __future__ import annotations

import argparse
import statistics
import sys

import hybridlab as hl
import p2p_osu
from _common import Progress, scrub_paths
from _runner import Bench

POINTS = (("latency", 8), ("bandwidth", 1 << 20))
say = Progress("bench_p2p")


def one_run(size: int, args) -> dict:
    counts = {
        "iterations": max(1, int(10000 * args.scale)),
        "skip": max(1, int(100 * args.scale)),
        "iterations_large": max(1, int(1000 * args.scale)),
        "skip_large": max(1, int(10 * args.scale)),
    }
    res = hl.run_program(
        "pingpong",
        ranks=2,
        threads=1,
        bind="cores",
        mode="sweep",
        min_bytes=size,
        max_bytes=size,
        samples=args.samples,
        **counts,
    )
    probe = res.meta["probe"]
    states = {probe["before"]["state"], probe["after"]["state"]}
    return {
        "bytes": size,
        "seconds": [float(s) for s in res.records["seconds"]],
        "iterations": int(res.records["iterations"].iloc[0]),
        "probe_state": states.pop() if len(states) == 1 else "changed during the run",
    }


def summarise(runs: list[dict]) -> list[dict]:
    rows = []
    for name, size in POINTS:
        mine = [r for r in runs if r["bytes"] == size]
        seconds = [s for r in mine for s in r["seconds"]]
        if name == "latency":
            values = [s * 1e6 for s in seconds]
            unit = "us"
        else:
            values = [size / s / 1e9 for s in seconds]
            unit = "GB/s"
        rows.append(
            {
                "quantity": f"{name} at {size} B",
                "unit": unit,
                "median": statistics.median(values),
                "min": min(values),
                "max": max(values),
                "samples": len(values),
                "runs": len(mine),
                "iterations": mine[0]["iterations"],
                "probe": ", ".join(sorted({r["probe_state"] for r in mine})),
            }
        )
    return rows


def markdown(rows: list[dict], osu: dict, args) -> list[str]:
    lines = [
        "Written by `benchmarks/bench_p2p.py`; do not edit by hand. OSU-style ping-pong between 2",
        "ranks bound to cores (one node, shared memory): half round trip, warm-up skipped.",
        "Bandwidth is ping-pong bandwidth (one message in flight), not the windowed `osu_bw`.",
        "",
        f"- {args.repeats} runs x {args.samples} samples per point; OSU counts scaled by "
        f"{args.scale}",
        "",
        "| quantity | median | min | max | unit | samples | iterations/sample | probe |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['quantity']} | {r['median']:.3f} | {r['min']:.3f} | {r['max']:.3f} | "
            f"{r['unit']} | {r['samples']} | {r['iterations']} | {r['probe']} |"
        )
    return lines + ["", *p2p_osu.markdown(osu, scrub_paths)]


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--scale", type=float, default=1.0, help="scale the OSU iteration counts")
    parser.add_argument(
        "--osu-repeats", type=int, default=9, help="alternating repeats of the side-by-side"
    )


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_p2p", __doc__, "p2p_results.md", argv, repeats=5, options=options,
                  quick_help="2 repeats, 3 samples, scale 0.1", progress=say,
                  quick={"repeats": 2, "samples": 3, "scale": 0.1})  # fmt: skip
    args = bench.args
    bench.checkpoint("before")
    runs = []
    for repeat in range(args.repeats):
        for name, size in POINTS:
            say(f"run {repeat + 1}/{args.repeats}: {name} at {size} B")
            runs.append(one_run(size, args))
    bench.checkpoint("after the kit's sweep")
    osu = p2p_osu.side_by_side(args.osu_repeats, say)
    bench.checkpoint("after the side-by-side")
    rows = summarise(runs)
    data = {"rows": rows, "runs": runs, "load": bench.loads, "osu_style": osu,
            "osu_style_rows": p2p_osu.rows(osu)}  # fmt: skip
    bench.report("Point-to-point benchmark (kernels_c/pingpong.c)", markdown(rows, osu, args), data)
    for r in rows:
        say(
            f"{r['quantity']}: median {r['median']:.3f} {r['unit']} ({r['min']:.3f}..{r['max']:.3f})"
        )
    for r in p2p_osu.rows(osu):
        say(
            f"{r['bytes']} B: kit / OSU-style reference {r['ratio']:.3f}, echo=1 {r['echo_ratio']:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
