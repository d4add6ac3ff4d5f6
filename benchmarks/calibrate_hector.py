#!/usr/bin/env python
"""Lab 14's HECToR platforms calibrated on the report, written to
benchmarks/calibrate_hector_results.md.

The values Stathopoulos 2010 does not give (the node latency, the intra-node bandwidth as a
share of the node's memory bandwidth, and copy_traffic: the bytes of memory traffic the sending
core moves per byte of halo sent, at one core's share of the node's memory bandwidth) are fitted
by least squares (hybridlab.simulate.calibrate.fit) on the XT4's Master Only halo rows with 1, 2
and 4 threads (Tables A.16 and A.17), then checked on rows never fitted: the XT6's Master Only
rows (Table A.23, and A.24's 1 thread), judged within 0.8-1.25 of the published halo where the
ranks split evenly over the XT6's NUMA regions (1, 2, 3 and 6 threads; the report blames 4, 8,
12 and 24 threads' times on remote NUMA placement, which no simulation here models). The
simulations are network only, 2 iterations, the kit's non-blocking exchange; the blocking one
is shown on the fitting rows. The load is recorded (it does not change simulated times, only
how long the script takes). Copy the fitted values into hybridlab/simulate/platforms.py
(FITTED).

    python benchmarks/calibrate_hector.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from hybridlab.simulate.calibrate import START, check, fit, halo_rows
from hybridlab.simulate.platforms import core_bandwidth

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import fmt, table  # noqa: E402
from _runner import Bench  # noqa: E402

FIT_ROWS = (["A.16", "A.17"], [1, 2, 4])
HELD_OUT = [
    (["A.23"], [1, 2, 3, 6], True),
    (["A.24"], [1], True),
    (["A.23"], [4, 8, 12, 24], False),
]
BAND = (0.8, 1.25)
# what is fitted, most first: the rows decide how many they determine (a value left at or below
# zero is not determined)
TRIES = [("node_latency", "intra_share", "copy_traffic"), ("node_latency", "copy_traffic"),
         ("intra_share", "copy_traffic"),
         ("copy_traffic",)]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    bench = Bench("calibrate_hector", __doc__, "calibrate_hector_results.md", argv, repeats=None,
                  quick_help="(no effect: the fit is the same size either way)")
    say = bench.say
    bench.checkpoint("start")
    fitting = halo_rows(*FIT_ROWS)
    say(f"fitting on {len(fitting)} rows: {', '.join(r.label for r in fitting)}")
    before = check(fitting, START)
    tried = []
    for names in TRIES:
        try:
            values = fit(fitting, names)
        except ValueError as e:  # the rows do not determine them all: fit fewer
            tried.append(f"{', '.join(names)}: {e}")
            say(tried[-1])
            continue
        tried.append(f"{', '.join(names)}: fitted {values}")
        fitted_names = names
        break
    say(f"fitted: {values}")
    bench.checkpoint("after the fit")
    on_fit = check(fitting, values)
    blocking = check(fitting, values, nonblocking=0)
    held = []
    for tables, threads, judged in HELD_OUT:
        frame = check(halo_rows(tables, threads), values)
        frame["judged"] = judged
        held.append(frame)
        say(f"held out {tables} {threads}: ratios {[round(x, 2) for x in frame['ratio']]}")
    # sensitivity, not used: the XT4's seconds per byte carried to the XT6 unchanged (the cost
    # not scaled by the core's share of the memory bandwidth)
    same_pack = {**values, "copy_traffic": values["copy_traffic"] / core_bandwidth("XT4")
                 * core_bandwidth("XT6")}  # fmt: skip
    flat = check(halo_rows(["A.23"], [1, 2, 3, 6]) + halo_rows(["A.24"], [1]), same_pack)
    bench.checkpoint("end")
    judged = [f for f in held if f["judged"].all()]
    inside = all(BAND[0] <= r <= BAND[1] for f in judged for r in f["ratio"])
    pack = {s: values["copy_traffic"] / core_bandwidth(s) * 1e9 for s in ("XT4", "XT6")}
    lines = ["## Fitted values", ""]
    lines += table(["value", "start", "fitted"],
                   [["node_latency (us)", fmt(START["node_latency"] * 1e6), fmt(values["node_latency"] * 1e6)],
                    ["intra_share (of node memory bandwidth)", fmt(START["intra_share"], 3), fmt(values["intra_share"], 3)],
                    ["copy_traffic (bytes of one core's memory traffic per byte sent)", fmt(START["copy_traffic"], 3), fmt(values["copy_traffic"], 3)]])  # fmt: skip
    lines += [
        f"Fitted: {', '.join(fitted_names)}; the others stay at their start (assumed).",
        f"Python: `{ {k: float(f'{v:.4g}') for k, v in values.items()} }`",
        "",
        "copy_traffic becomes `pack`, seconds per byte sent charged to the sending rank, over one "
        f"core's share of the node's memory bandwidth: XT4 {fmt(pack['XT4'], 3)} ns/B "
        f"(12.8 GB/s / 4 cores), XT6 {fmt(pack['XT6'], 3)} ns/B (85.3 GB/s / 24 cores).",
        "",
        "Tried, most values first:",
        "",
        *[f"- {t}" for t in tried],
        "",
    ]

    def rows(frame):
        return [[i, fmt(r.sent_mb, 3), fmt(r.simulated_ms), fmt(r.report_ms), fmt(r.ratio),
                 fmt(r.report_ns_per_byte, 3)] for i, r in frame.iterrows()]  # fmt: skip

    head = ["row", "MB sent (slowest process)", "simulated ms", "report ms", "ratio",
            "report ns per byte sent"]  # fmt: skip
    lines += ["## Fitting rows (XT4)", "", "At the start values:", ""]
    lines += table(head, rows(before))
    lines += ["Fitted:", ""]
    lines += table(head, rows(on_fit))
    lines += ["The kit's blocking exchange (one MPI_Sendrecv per face, the minus neighbour first) "
              "with the fitted values, not used: above the eager limit it waits along each line "
              "of ranks, so its halo grows from 16 to 32 ranks along X, where the report's "
              "does not:", ""]
    lines += table(head, rows(blocking))
    lines += ["## Held-out rows (XT6, never fitted)", ""]
    for frame in held:
        note = "judged" if frame["judged"].all() else "shown, not judged: uneven NUMA placement"
        lines += [f"{note}:", ""]
        lines += table(head, rows(frame))
    lines += [
        f"Judged held-out rows within {BAND[0]}-{BAND[1]}: **{'yes' if inside else 'no'}**.",
        "",
        "## Sensitivity (not used): the XT4's seconds per byte on the XT6 unchanged",
        "",
        "The model form (the cost over one core's share of the memory bandwidth) was chosen "
        "before the check; this is the same fit with the per-byte cost in seconds carried to "
        "the XT6 as it is:",
        "",
    ]
    lines += table(head, rows(flat))
    return bench.report("Lab 14's HECToR platforms, calibrated on the report", lines,
                        what=__doc__.split("\n\n")[1])


if __name__ == "__main__":
    sys.exit(main())
