#!/usr/bin/env python
"""Benchmarks of the hybridlab foundation, written to benchmarks/RESULTS.md and results.json.

1. Cluster start and stop time (2 ranks x 1 thread): how long a student waits.
2. The same self-timed kernel (kernels_c/bench_compute.c) run in the ipyparallel engines and
   as a plain program under mpiexec, interleaved, for 2 ranks x 1 thread and 1 rank x 2 threads:
   the engines must not disturb what they measure, so the ratio engines/mpiexec should be ~1.
3. The machine, the MPI, the compiler and the date.

Benchmarks are not tests: nothing here asserts a timing. Each figure is compared with its target
and marked PASS or MISS in the report, benchmarks/foundation_results.md (every raw figure in
foundation_results.json beside it). Progress goes to stderr.

    python benchmarks/run_benchmarks.py [--repeats 5] [--quick] [--no-breakdown]
    python benchmarks/run_benchmarks.py --report-only   # the report again from the JSON
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter

import psutil

import foundation_report as report
import hybridlab as hl
from _common import Progress, describe_machine, fmt, run_text, summary, verdict
from _runner import Bench
from foundation_report import (
    KERNEL,
    RATIO_HIGH,
    RATIO_LOW,
    RESTART_TARGET_S,
    START_TARGET_S,
    STOP_TARGET_S,
)
from hybridlab.kernels.build import build
from hybridlab.machine import reaper
from hybridlab.paths import venv_bin

START_STOP_PLACEMENT = (2, 1, "none")
CRASH = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "rank 1 dereferences NULL (restart benchmark)";
const hl_param hl_kernel_params[] = {HL_END_PARAMS};
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    if (ctx->rank == 1) { volatile int *p = NULL; *p = 1; }
    MPI_Barrier(comm);
    return 0;
}
"""
COMPARE_PLACEMENTS = ((2, 1, "cores"), (1, 2, "cores"))
FULL_PARAMS = {"n": 2_000_000, "samples": 20}
QUICK_PARAMS = {"n": 200_000, "samples": 5}

say = Progress("bench")


# ---------------------------------------------------------------- 1. start and stop


def _children_cpu() -> dict[int, float]:
    """CPU seconds each process started by this one (at any depth) has used so far."""
    found = {}
    for p in psutil.Process().children(recursive=True):
        try:
            t = p.cpu_times()
            found[p.pid] = t.user + t.system
        except psutil.Error:
            continue
    return found


def _cpu_since(before: dict[int, float]) -> float:
    """CPU seconds used since `before` by processes this one started: what a start costs the
    machine, less sensitive to other load than wall time (a warm controller's earlier CPU
    is not counted)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in _children_cpu().items())


def _one_cycle(options: dict[str, bool]) -> dict[str, object]:
    """Start and stop one Cluster with the start-up options given; its times and steps."""
    ranks, threads, bind = START_STOP_PLACEMENT
    cluster = hl.Cluster(ranks=ranks, threads=threads, bind=bind)
    for name, value in options.items():
        setattr(cluster, name, value)  # public knobs, the defaults being the fastest
    row: dict[str, object] = {"options": options}
    try:
        cpu = _children_cpu()
        t0 = time.perf_counter()
        cluster.start()
        row["start_s"] = round(time.perf_counter() - t0, 4)
        row["start_cpu_s"] = round(_cpu_since(cpu), 4)
        row["start_steps"] = cluster.start_steps
        row["engines"] = len(cluster.engines)
    except Exception as err:  # noqa: BLE001 - a benchmark reports, it does not stop
        row["error"] = f"start failed: {type(err).__name__}: {err}"
    finally:
        t0 = time.perf_counter()
        cluster.stop()
        row["stop_s"] = round(time.perf_counter() - t0, 4)
        row["stop_steps"] = cluster.stop_steps
    row["left_behind"] = len(reaper.tagged(cluster.tag))  # outside the timing
    return row


def measure_start_stop(repeats: int) -> dict[str, object]:
    ranks, threads, bind = START_STOP_PLACEMENT
    rows: list[dict[str, object]] = []
    for i in range(repeats):
        row = {"repeat": i + 1, **_one_cycle({})}
        rows.append(row)
        say(
            f"start/stop {i + 1}/{repeats}: start {row.get('start_s', 'failed')} s, "
            f"stop {row['stop_s']} s (load {os.getloadavg()[0]:.1f})"
            + (f", {row['left_behind']} processes left behind" if row["left_behind"] else "")
        )
    starts = [float(r["start_s"]) for r in rows if "start_s" in r]
    stops = [float(r["stop_s"]) for r in rows if "start_s" in r]
    start, stop = summary(starts), summary(stops)
    return {
        "placement": f"{ranks} ranks x {threads} thread, bind={bind}",
        "repeats": rows,
        "start_s": start,
        "stop_s": stop,
        "start_cpu_s": summary([float(r["start_cpu_s"]) for r in rows if "start_cpu_s" in r]),
        "first_start_s": starts[0] if starts else None,
        "targets": {"start_s": START_TARGET_S, "stop_s": STOP_TARGET_S},
        "pass": {
            "start": None if start["median"] is None else start["median"] < START_TARGET_S,
            "stop": None if stop["median"] is None else stop["median"] < STOP_TARGET_S,
        },
    }


def measure_restart_after_crash(repeats: int) -> dict[str, object]:
    """A kernel crashes a rank: how long until the error is raised, and until restart() returns."""
    kernel = hl.build_source("bench_crash", CRASH)
    ranks, threads, bind = START_STOP_PLACEMENT
    rows = []
    cluster = hl.Cluster(ranks=ranks, threads=threads, bind=bind)
    try:
        cluster.start()
        for i in range(repeats):
            t0 = time.perf_counter()
            try:
                cluster.run(kernel, timeout=60)
            except hl.KernelCrash:
                pass
            detected = time.perf_counter() - t0
            t0 = time.perf_counter()
            cluster.restart()
            restart = time.perf_counter() - t0
            rows.append({"repeat": i + 1, "crash_to_error_s": detected, "restart_s": restart})
            say(f"crash {i + 1}/{repeats}: error after {detected:.2f} s, restart {restart:.2f} s")
    except Exception as err:  # noqa: BLE001 - a benchmark reports, it does not stop
        rows.append({"error": f"{type(err).__name__}: {err}"})
    finally:
        cluster.stop()
    restarts = summary([r["restart_s"] for r in rows if "restart_s" in r])
    return {
        "repeats": rows,
        "crash_to_error_s": summary([r["crash_to_error_s"] for r in rows if "restart_s" in r]),
        "restart_s": restarts,
        "target_s": RESTART_TARGET_S,
        "pass": None if restarts["median"] is None else restarts["median"] < RESTART_TARGET_S,
    }


def _import_seconds(statement: str, setup: str = "pass", repeats: int = 3) -> float | None:
    """Median wall time of `statement` in a fresh interpreter, after `setup`."""
    code = (
        f"import time\n{setup}\nt = time.perf_counter()\n{statement}\n"
        "print(time.perf_counter() - t)"
    )
    times = []
    for _ in range(repeats):
        out = run_text([sys.executable, "-c", code])
        try:
            times.append(float(out.splitlines()[-1]))
        except (ValueError, IndexError):
            return None
    return round(statistics.median(times), 3)


def _process_seconds(repeats: int = 3) -> float:
    """Median wall time of `python -c pass`, start to exit."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        run_text([sys.executable, "-c", "pass"])
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)


# The start-up ideas of issue 12 that the harness implements, as Cluster's options; the
# harness's defaults are the last (the fastest). Measured in interleaved cycles.
STARTUP_VARIANTS = {
    "new controller, engines after it is ready, with nanny (ipyparallel's way)": {
        "warm_controller": False,
        "overlap_start": False,
        "nanny": True,
    },
    "new controller, engines after it is ready, no nanny": {
        "warm_controller": False,
        "overlap_start": False,
        "nanny": False,
    },
    "new controller, engines launched while it starts, with nanny": {
        "warm_controller": False,
        "overlap_start": True,
        "nanny": True,
    },
    "new controller, engines launched while it starts, no nanny": {
        "warm_controller": False,
        "overlap_start": True,
        "nanny": False,
    },
    "warm controller reused, no nanny, engines asked who they are": {
        "warm_controller": True,
        "overlap_start": True,
        "nanny": False,
        "identity_files": False,
    },
    "warm controller reused, no nanny, engines write who they are (the default)": {
        "warm_controller": True,
        "overlap_start": True,
        "nanny": False,
        "identity_files": True,
    },
}


# A notebook's first cluster, in a fresh Python process: hybridlab imported, then the cells
# before the lab's first Cluster.start() (READING_S of them), then the start. With prestart the
# warm controller starts at the import, as it does in a notebook kernel.
READING_S = 3.0
FIRST_START = r"""
import json, sys, time
import hybridlab as hl
from hybridlab.engines import controller
if sys.argv[1] == "prestart":
    controller.prestart()
time.sleep(float(sys.argv[2]))
cluster = hl.Cluster(ranks=2, threads=1)
t0 = time.perf_counter()
cluster.start()
start = time.perf_counter() - t0
cluster.stop()
print(json.dumps({"start_s": round(start, 4), "steps": cluster.start_steps}))
"""


def measure_first_start(repeats: int) -> dict[str, object]:
    """The first start in a fresh process, with and without the controller started at import."""
    modes = ["prestart", "no prestart"]
    rows: dict[str, list[dict]] = {m: [] for m in modes}
    for i in range(repeats):
        for mode in modes if i % 2 == 0 else modes[::-1]:
            done = subprocess.run(
                [sys.executable, "-c", FIRST_START, mode.replace(" ", "-"), str(READING_S)],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            load = round(os.getloadavg()[0], 2)
            if done.returncode != 0:
                rows[mode].append({"error": done.stderr[-500:], "load": load})
                say(f"first start {i + 1}/{repeats} [{mode}] failed: {done.stderr[-200:]}")
                continue
            row = {**json.loads(done.stdout.strip().splitlines()[-1]), "load": load}
            rows[mode].append(row)
            say(f"first start {i + 1}/{repeats} [{mode}]: {row['start_s']} s (load {load})")
    return {
        "reading_s": READING_S,
        "modes": {
            m: {
                "start_s": summary([float(r["start_s"]) for r in rows[m] if "start_s" in r]),
                "loadavg_1min": [r["load"] for r in rows[m]],
                "runs": rows[m],
            }
            for m in modes
        },
    }


def startup_breakdown(repeats: int) -> dict[str, object]:
    """Each start-up variant's start, stop, CPU and steps, in interleaved cycles."""
    names = list(STARTUP_VARIANTS)
    cycles: dict[str, list[dict]] = {name: [] for name in names}
    for i in range(repeats):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            row = _one_cycle(STARTUP_VARIANTS[name])
            row["loadavg_1min"] = round(os.getloadavg()[0], 2)
            cycles[name].append(row)
            say(
                f"start-up variant {i + 1}/{repeats} [{name}]: start {row.get('start_s')} s, "
                f"CPU {row.get('start_cpu_s')} s, stop {row['stop_s']} s "
                f"(load {row['loadavg_1min']})"
            )
    variants = {}
    for name, rows in cycles.items():
        ok = [r for r in rows if "start_s" in r]
        steps: dict[str, list[float]] = {}
        for r in ok:
            for step, seconds in r["start_steps"] + r["stop_steps"]:
                steps.setdefault(step, []).append(seconds)
        variants[name] = {
            "options": STARTUP_VARIANTS[name],
            "start_s": summary([r["start_s"] for r in ok]),
            "start_cpu_s": summary([r["start_cpu_s"] for r in ok]),
            "stop_s": summary([r["stop_s"] for r in ok]),
            "steps_s": {k: summary(v) for k, v in steps.items()},
            "errors": [r["error"] for r in rows if "error" in r],
            "loadavg_1min": [r["loadavg_1min"] for r in rows],
        }
    imports = {
        "python -c pass (a whole interpreter start and exit)": _process_seconds(),
        "import ipyparallel.engine.app": _import_seconds("import ipyparallel.engine.app"),
        "the same without ipyparallel.cluster (hybridlab.engines.engine.import_engine_app)": (
            _import_seconds(
                "import_engine_app()", setup="from hybridlab.engines.engine import import_engine_app"
            )
        ),
        "import ipyparallel.engine.nanny": _import_seconds("import ipyparallel.engine.nanny"),
        "import hybridlab.engines.engine, after ipyparallel": _import_seconds(
            "import hybridlab.engines.engine", setup="import ipyparallel.engine.app"
        ),
        "import ipyparallel.controller.app": _import_seconds("import ipyparallel.controller.app"),
    }
    say("import times measured")
    return {"variants": variants, "imports_s": imports}


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            continue
    return total


def summarise_run(res: hl.Results, repeat: int, mode: str, position: int) -> dict[str, object]:
    """The figure of one run: median over samples of the slowest rank's seconds per repetition."""
    df = res.records[res.records["phase"] == "triad"]
    per_sample = df.groupby("sample")["seconds"].max().sort_index()
    values = [float(v) for v in per_sample]
    median = statistics.median(values)
    mean = statistics.fmean(values)
    sigma = statistics.pstdev(values)
    total_bytes = int(df.groupby("rank")["bytes"].first().sum())
    probe = res.meta["probe"]
    return {
        "repeat": repeat,
        "mode": mode,
        "position": position,  # 0: ran first in its repeat, 1: second
        "median_s": median,
        "min_s": min(values),
        "max_s": max(values),
        "outliers_3sigma": sum(abs(v - mean) > 3 * sigma for v in values) if sigma > 0 else 0,
        "samples_s": values,
        "inner": int(df["inner"].iloc[0]),
        "bytes": total_bytes,
        "gb_per_s": total_bytes / median / 1e9,
        "cpus": sorted({int(c) for c in df["cpu"]}),
        "probe": probe,
        "state_before": probe["before"]["state"],
        "state_after": probe["after"]["state"],
        "warnings": list(res.warnings),
        "wall_s": res.meta.get("seconds"),
    }


def compare_placement(ranks: int, threads: int, bind: str, repeats: int, params: dict) -> dict:
    label = f"{ranks} rank{'s' if ranks > 1 else ''} x {threads} thread{'s' if threads > 1 else ''}"
    kernel = build(KERNEL)
    runs: list[dict] = []
    error = None
    cluster = hl.Cluster(ranks=ranks, threads=threads, bind=bind)
    say(f"{label}: starting the engines")
    try:
        cluster.start()
        for r in range(repeats):
            order = ("engines", "mpiexec") if r % 2 == 0 else ("mpiexec", "engines")
            for position, mode in enumerate(order):
                if mode == "engines":
                    res = cluster.run(kernel, **params)
                    idle, idle_procs = None, None
                else:
                    # the engines sit idle meanwhile: count the CPU time they take
                    procs = psutil.Process().children(recursive=True)
                    before = _cpu_seconds(procs)
                    res = hl.run_program(kernel, ranks, threads, bind, **params)
                    idle = round(_cpu_seconds(procs) - before, 4)
                    idle_procs = len(procs)
                run = summarise_run(res, r + 1, mode, position)
                run["idle_cluster_cpu_s"] = idle
                run["idle_cluster_processes"] = idle_procs
                runs.append(run)
                say(
                    f"{label} repeat {r + 1}/{repeats} {mode:8s}: "
                    f"median {run['median_s'] * 1e3:.3f} ms"
                    f" ({run['gb_per_s']:.1f} GB/s), probe {run['probe']['before']['roundtrip_ns']}"
                    f" -> {run['probe']['after']['roundtrip_ns']} ns"
                )
    except Exception as err:  # noqa: BLE001 - report what was measured, and the failure
        error = f"{type(err).__name__}: {err}"
        say(f"{label}: failed: {error}")
    finally:
        cluster.stop()
    return {
        "placement": f"{label}, bind={bind}",
        "ranks": ranks,
        "threads": threads,
        "bind": bind,
        "params": params,
        "runs": runs,
        "error": error,
        **ratio_of(runs),
    }


def ratio_of(runs: list[dict]) -> dict[str, object]:
    """engines/mpiexec of the medians over repeats, per-repeat ratios, and probe flags."""
    by_repeat: dict[int, dict[str, dict]] = {}
    for run in runs:
        by_repeat.setdefault(run["repeat"], {})[run["mode"]] = run
    pairs = {r: p for r, p in sorted(by_repeat.items()) if {"engines", "mpiexec"} <= p.keys()}
    flags = []
    for run in runs:
        if run["state_before"] != run["state_after"]:
            flags.append(
                f"repeat {run['repeat']} {run['mode']}: the machine changed state during the run "
                f"({run['probe']['before']['roundtrip_ns']} -> "
                f"{run['probe']['after']['roundtrip_ns']} ns: "
                f"{run['state_before']} -> {run['state_after']})"
            )
    like: list[int] = []
    for r, p in pairs.items():
        states = {p[m][k] for m in ("engines", "mpiexec") for k in ("state_before", "state_after")}
        if len(states) == 1:
            like.append(r)
        elif p["engines"]["state_before"] == p["engines"]["state_after"] and (
            p["mpiexec"]["state_before"] == p["mpiexec"]["state_after"]
        ):
            flags.append(
                f"repeat {r}: engines ran with '{p['engines']['state_before']}', "
                f"mpiexec with '{p['mpiexec']['state_before']}'"
            )
    if not pairs:
        return {
            "ratio": None,
            "ratio_min": None,
            "ratio_max": None,
            "per_repeat_ratio": {},
            "like_with_like_ratio": {},
            "like_with_like_repeats": [],
            "flags": flags,
            "states": {},
            "pass": None,
        }
    eng = [pairs[r]["engines"]["median_s"] for r in pairs]
    mpi = [pairs[r]["mpiexec"]["median_s"] for r in pairs]
    per_repeat = {
        r: pairs[r]["engines"]["median_s"] / pairs[r]["mpiexec"]["median_s"] for r in pairs
    }
    ratio = statistics.median(eng) / statistics.median(mpi)
    by_state: dict[str, list[int]] = {}
    for r in like:
        by_state.setdefault(pairs[r]["engines"]["state_before"], []).append(r)
    like_ratio = {
        state: {
            "ratio": statistics.median(pairs[r]["engines"]["median_s"] for r in rs)
            / statistics.median(pairs[r]["mpiexec"]["median_s"] for r in rs),
            "repeats": rs,
        }
        for state, rs in by_state.items()
    }
    states = Counter(run[k] for run in runs for k in ("state_before", "state_after"))
    return {
        "engines_median_s": statistics.median(eng),
        "mpiexec_median_s": statistics.median(mpi),
        "engines_gb_per_s": statistics.median(pairs[r]["engines"]["gb_per_s"] for r in pairs),
        "mpiexec_gb_per_s": statistics.median(pairs[r]["mpiexec"]["gb_per_s"] for r in pairs),
        "ratio": ratio,
        # best sample of each mode: the least disturbed by anything else on the machine
        "best_ratio": min(pairs[r]["engines"]["min_s"] for r in pairs)
        / min(pairs[r]["mpiexec"]["min_s"] for r in pairs),
        "ratio_min": min(per_repeat.values()),
        "ratio_max": max(per_repeat.values()),
        "per_repeat_ratio": per_repeat,
        "like_with_like_ratio": like_ratio,
        "like_with_like_repeats": like,
        "flags": flags,
        "states": dict(states),
        "pass": RATIO_LOW <= ratio <= RATIO_HIGH,
    }


# ---------------------------------------------------------------------------- main


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-breakdown", action="store_true", help="skip the step-by-step timing of the start-up"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="measure nothing: write the report again from the figures in its JSON",
    )


def main(argv: list[str] | None = None) -> int:
    bench = Bench("run_benchmarks", __doc__, "foundation_results.md", argv, repeats=5,
                  options=options, progress=say,
                  quick_help="small arrays and few samples, no start-up breakdown (smoke run)")  # fmt: skip
    args = bench.args
    if args.repeats < 1:
        sys.exit("run_benchmarks: --repeats must be at least 1")
    if args.report_only:
        data = json.loads(args.out.with_suffix(".json").read_text())
        for c in data["compare"]:
            c.update(ratio_of(c["runs"]))
        bench.loads = data["load"]
        return bench.report(report.TITLE, report.lines(data), measured=data)

    os.environ["PATH"] = f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ.setdefault("IPP_NONINTERACTIVE", "1")
    warnings.filterwarnings("ignore", message="The IPython parallel magics")
    params = dict(QUICK_PARAMS if args.quick else FULL_PARAMS)

    say("describing the machine, building the kernel")
    kernel = build(KERNEL)
    if kernel.warnings:
        say(f"compiler warnings: {[str(w) for w in kernel.warnings]}")
    data: dict[str, object] = {
        "command": bench.command(),
        "quick": args.quick,
        "repeats": args.repeats,
        "params": params,
        "flags": " ".join(kernel.flags),
        "machine": describe_machine(),
    }
    bench.checkpoint("before")
    steps = [  # (what, where its figures go, how it is measured, the checkpoint after it)
        ("cluster start/stop cycles", "start_stop", measure_start_stop, "after start/stop"),
        ("restarts after a crash", "restart", measure_restart_after_crash, "after restarts"),
    ]
    if not (args.quick or args.no_breakdown):
        steps += [
            ("cycles of each start-up variant", "breakdown", startup_breakdown,
             "after the start-up variants"),
            ("first starts of a notebook each way", "first_start", measure_first_start,
             "after the first starts"),
        ]  # fmt: skip
    for what, key, measure, after in steps:
        say(f"{args.repeats} {what}")
        data[key] = measure(args.repeats)
        bench.checkpoint(after)
    data["compare"] = []
    for ranks, threads, bind in COMPARE_PLACEMENTS:
        data["compare"].append(compare_placement(ranks, threads, bind, args.repeats, params))
        bench.checkpoint(f"after {data['compare'][-1]['placement']}")
    data["load"] = bench.loads
    try:  # the library string the kernels themselves report
        res = hl.run_program(kernel, 1, 1, "none", n=1000, samples=1)
        data["mpi_library"] = res.meta.get("mpi_library")
    except hl.KernelError as err:
        data["mpi_library"] = f"unknown ({err})"

    bench.report(report.TITLE, report.lines(data), data, measured=data)
    s = data["start_stop"]
    say(
        f"start {fmt(s['start_s']['median'])} s ({verdict(s['pass']['start'])}), "
        f"stop {fmt(s['stop_s']['median'])} s ({verdict(s['pass']['stop'])}); "
        + "; ".join(
            f"{c['placement']}: ratio {fmt(c['ratio'], 3)} ({verdict(c['pass'])})"
            for c in data["compare"]
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
