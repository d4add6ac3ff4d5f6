#!/usr/bin/env python
"""Lab 08's models against this machine: predicted vs measured, written to
benchmarks/modelling_results.md.

* A fresh calibration (hybridlab.modelling.exercise.calibrate; no file is read or written).
* halo3d (pure MPI, masteronly) for a few P x T and grid sides: the model's prediction from the
  calibration against the measured loop time (fastest of --repeats), and their ratio.
* The overlap model of Rabenseifner, slide 42 (n = 2, m = 1) against halo3d masteronly vs funnelled with
  an emulated wait: measured epsilon, the model's, and the model with the measured memory
  scaling.
* The published tables the lab predicts (Stathopoulos 2010, Table A.23, Luecke et al., Tables 2-3): the ratios, for the record.

The load (load average, other busy processes) is recorded at checkpoints: the machine is shared,
and a model calibrated on a quiet machine does not describe a busy one. Nothing is asserted.

    python benchmarks/bench_modelling.py [--repeats 3] [--quick]
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import hybridlab as hl
from hybridlab.modelling import overlap, predict
from hybridlab.modelling.exercise import calibrate, halo_run, overlap_runs
from hybridlab.reference import REFERENCE

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _models as models  # noqa: E402  (lab 08's models: the kit holds none)
from _common import fmt, table  # noqa: E402
from _runner import Bench  # noqa: E402  (the runner every benchmark uses)

CHECKOUT_PATH = r"/[^\s`]*?/(?=(\.venv|kernels_c|src|tests|grading|labs|benchmarks)\b)"


def without_machine_paths(lines: list[str]) -> list[str]:
    """Other processes' command lines as recorded, with checkouts shown as <checkout> and the
    home folder as ~ (the report names no machine's folders)."""
    home = os.path.expanduser("~")
    return [re.sub(CHECKOUT_PATH, "<checkout>/", line).replace(home + "/", "~/")
            for line in lines]  # fmt: skip


def measured_total(res: hl.Results) -> float:
    return float(res.records.query("record == 'timer' and phase == 'total'")["seconds"].max())


def halo_rows(cal, shapes, sides, iterations: int, repeats: int, say) -> list[list[object]]:
    rows = []
    for side in sides:
        for ranks, threads in shapes:
            say(f"halo3d {ranks}x{threads} {side}^3")
            best = min(measured_total(halo_run(ranks, threads, side, iterations))
                       for _ in range(repeats))  # fmt: skip
            p = models.halo3d(cal, side, ranks, threads, iterations)
            rows.append([f"{ranks}x{threads}", "pure" if threads == 1 else "masteronly",
                         f"{side}^3", iterations, fmt(p["compute"] * 1e3, 3),
                         fmt(p["halo"] * 1e3, 3), fmt(p["sync"] * 1e3, 3),
                         fmt(p["total"] * 1e3, 3), fmt(best * 1e3, 3),
                         fmt(best / p["total"], 2)])  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_modelling", __doc__, "modelling_results.md", argv,
                  quick_help="a quick calibration, small grids, one repeat")  # fmt: skip
    args, say = bench.args, bench.say
    repeats = 1 if args.quick else args.repeats
    cpus = len(hl.read_topology().usable)
    bench.checkpoint("start")

    say("calibrating")
    cal = calibrate(quick=args.quick)
    bench.checkpoint("after the calibration")

    shapes = [(1, 1)] + ([(2, 1), (1, 2)] if cpus >= 2 else [])
    sides = [64] if args.quick else [64, 128]
    halo = halo_rows(cal, shapes, sides, 10 if args.quick else 20, repeats, say)
    bench.checkpoint("after the halo3d runs")

    say("overlap runs")
    fractions = [0.25, 0.5, 0.75] if args.quick else [0.1, 0.25, 0.4, 0.55, 0.67, 0.8, 0.9]
    eps = overlap.measured_epsilon(overlap_runs(fractions, 96 if args.quick else 128,
                                                10 if args.quick else 30, threads=2,
                                                repeats=repeats))  # fmt: skip
    scale = min(2.0, cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"])
    eps["model"] = models.epsilon(eps["f_comm"], 2)
    eps["memory_bound"] = models.epsilon(eps["f_comm"], 2, speedup=scale)
    bench.checkpoint("end")

    a23 = models.predict_a23(REFERENCE["000-appendix-a5"].frame, REFERENCE["000-jacobi-setup"].frame)
    inputs = REFERENCE["003-jacobi-model-inputs"].frame
    t2 = predict.predict_table2(REFERENCE["003-table-2"].frame, inputs)
    t3 = predict.predict_table3(REFERENCE["003-table-3"].frame, inputs)

    lines = [f"Mode: {'quick' if args.quick else 'full'}, repeats {repeats}.", ""]
    lines += ["How to read the ratios: the model has no term for other processes. With the load "
              "above 1 per CPU, measured times include the time the OS gave the cores to them, "
              "and the calibration (measured minutes earlier) describes another state of the "
              "machine: ratios far from 1 then say more about the load than about the model.", ""]
    lines += ["## Calibration (measured in this run)", ""]
    cal_rows = [[r.quantity, fmt(float(r.value), 4), r.unit, r.source]
                for r in cal.table().itertuples()]  # fmt: skip
    lines += table(["quantity", "value", "unit", "source"], cal_rows)
    lines += ["## halo3d: predicted from the calibration vs measured", "",
              "Loop time of the slowest thread, fastest of the repeats; the prediction's terms "
              "in ms (lab 08's model, benchmarks/_models.py).", ""]  # fmt: skip
    lines += table(["P x T", "variant", "grid", "iterations", "compute", "halo", "sync",
                    "predicted ms", "measured ms", "measured / predicted"], halo)  # fmt: skip
    lines += ["## Overlap (Rabenseifner, slide 42, n = 2, m = 1): halo3d masteronly vs funnelled", "",
              f"One rank of 2 threads, an emulated wait after each exchange; the memory-bound "
              f"model uses the measured scaling S = {scale:.2f}.", ""]  # fmt: skip
    lines += table(["wait us", "f_comm", "epsilon measured", "model", "measured / model",
                    "model (memory-bound)"],
                   [[int(r.comm_wait_us), fmt(r.f_comm, 3), fmt(r.epsilon, 3), fmt(r.model, 3),
                     fmt(r.epsilon / r.model, 2), fmt(r.memory_bound, 3)]
                    for r in eps.itertuples()])  # fmt: skip
    lines += ["## Published tables (no measurement: the model against the paper)", "",
              f"- Luecke et al., Table 2: published / predicted over {len(t2)} rows: "
              f"{t2['published/predicted'].min():.3f} to {t2['published/predicted'].max():.3f}",
              "- Stathopoulos 2010, Table A.23 (master only halo), published / predicted per threads: "
              + ", ".join(f"{int(t)}: {ratio:.2f}{'' if ok else ' (NUMA)'}" for t, ratio, ok in
                          zip(a23["threads"], a23["published/predicted"], a23["applies"],
                              strict=True)),
              f"- Luecke et al., Table 3: speedups {t3['speedup'].min():.2f}-{t3['speedup'].max():.2f} "
              f"between the bounds 1.00 and {t3['predicted_per_node'].iloc[0]:.2f}", ""]  # fmt: skip
    return bench.report("Lab 08 models against this machine", without_machine_paths(lines))


if __name__ == "__main__":
    sys.exit(main())
