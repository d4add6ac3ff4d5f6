#!/usr/bin/env python
"""Benchmarks of the hybridlab foundation, written to benchmarks/RESULTS.md and results.json.

1. Cluster start and stop time (2 ranks x 1 thread): how long a student waits.
2. The same self-timed kernel (kernels_c/bench_compute.c) run in the ipyparallel engines and
   as a plain program under mpiexec, interleaved, for 2 ranks x 1 thread and 1 rank x 2 threads:
   the engines must not disturb what they measure, so the ratio engines/mpiexec should be ~1.
3. The machine, the MPI, the compiler and the date.

Benchmarks are not tests: nothing here asserts a timing. Each figure is compared with its target
and marked PASS or MISS in the report. Progress goes to stderr.

    python benchmarks/run_benchmarks.py [--repeats 5] [--out benchmarks/RESULTS.md]
                                        [--json benchmarks/results.json] [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter
from importlib import metadata
from pathlib import Path

import psutil

import hybridlab as hl
from hybridlab import reaper
from hybridlab.build import build
from hybridlab.topology import compiler_info, venv_bin

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
KERNEL = "bench_compute"

START_TARGET_S = 3.0  # start under 3 s
STOP_TARGET_S = 1.5  # stop under 1.5 s
RATIO_LOW, RATIO_HIGH = 0.9, 1.1  # engines / mpiexec
START_STOP_PLACEMENT = (2, 1, "none")
COMPARE_PLACEMENTS = ((2, 1, "cores"), (1, 2, "cores"))
FULL_PARAMS = {"n": 2_000_000, "samples": 20}
QUICK_PARAMS = {"n": 200_000, "samples": 5}

_T0 = time.monotonic()


def say(message: str) -> None:
    print(f"[bench {time.monotonic() - _T0:6.1f} s] {message}", file=sys.stderr, flush=True)


def summary(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "MISS")


# ------------------------------------------------------------------------- the machine


def _run(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def describe_machine() -> dict[str, object]:
    topo = hl.read_topology()
    local = venv_bin() / "mpiexec"
    mpi = hl.mpi_info(str(local) if local.exists() else None)
    commit = _run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = _run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"])
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "os": f"{platform.system()} {platform.release()}",
        "cpu_model": _cpu_model(),
        "topology": topo.summary(),
        "usable_cpus": list(topo.usable),
        "mpi": {
            "implementation": mpi.implementation,
            "version": mpi.version,
            "mpiexec": os.path.relpath(mpi.mpiexec, REPO) if mpi.mpiexec else None,
            "in_venv": mpi.in_venv,
        },
        "compiler": compiler_info(),
        "python": platform.python_version(),
        "packages": {p: _version(p) for p in ("ipyparallel", "mpi4py", "mpich", "pyzmq")},
        "git": f"{commit}{' (uncommitted changes)' if dirty else ''}" if commit else "unknown",
    }


def other_load(label: str, window: float = 0.5) -> dict[str, object]:
    """Load average and processes outside this run busy over `window` s: noise to declare."""
    me = psutil.Process()
    mine = {me.pid} | {p.pid for p in me.children(recursive=True)}
    procs = [p for p in psutil.process_iter(["pid", "name", "cmdline"]) if p.pid not in mine]
    for p in procs:
        try:
            p.cpu_percent(None)
        except psutil.Error:
            continue
    time.sleep(window)
    busy = []
    for p in procs:
        try:
            pct = p.cpu_percent(None)
        except psutil.Error:
            continue
        if pct >= 10:
            cmd = " ".join(p.info["cmdline"] or [p.info["name"] or "?"])
            busy.append({"pid": p.pid, "cmd": cmd[:100], "cpu_percent": round(pct)})
    return {"when": label, "loadavg_1min": round(os.getloadavg()[0], 2), "busy_others": busy}


# ---------------------------------------------------------------- 1. start and stop


def measure_start_stop(repeats: int) -> dict[str, object]:
    ranks, threads, bind = START_STOP_PLACEMENT
    rows: list[dict[str, object]] = []
    for i in range(repeats):
        cluster = hl.Cluster(ranks=ranks, threads=threads, bind=bind)
        row: dict[str, object] = {"repeat": i + 1}
        try:
            t0 = time.perf_counter()
            cluster.start()
            row["start_s"] = round(time.perf_counter() - t0, 4)
            row["engines"] = len(cluster.engines)
        except Exception as err:  # noqa: BLE001 - a benchmark reports, it does not stop
            row["error"] = f"start failed: {type(err).__name__}: {err}"
        finally:
            t0 = time.perf_counter()
            cluster.stop()
            row["stop_s"] = round(time.perf_counter() - t0, 4)
        row["left_behind"] = len(reaper.tagged(cluster.tag))  # outside the timing
        rows.append(row)
        say(
            f"start/stop {i + 1}/{repeats}: start {row.get('start_s', 'failed')} s, "
            f"stop {row['stop_s']} s"
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
        "first_start_s": starts[0] if starts else None,
        "targets": {"start_s": START_TARGET_S, "stop_s": STOP_TARGET_S},
        "pass": {
            "start": None if start["median"] is None else start["median"] < START_TARGET_S,
            "stop": None if stop["median"] is None else stop["median"] < STOP_TARGET_S,
        },
    }


def _import_seconds(statement: str, setup: str = "pass", repeats: int = 3) -> float | None:
    """Median wall time of `statement` in a fresh interpreter, after `setup`."""
    code = (
        f"import time\n{setup}\nt = time.perf_counter()\n{statement}\n"
        "print(time.perf_counter() - t)"
    )
    times = []
    for _ in range(repeats):
        out = _run([sys.executable, "-c", code])
        try:
            times.append(float(out.splitlines()[-1]))
        except (ValueError, IndexError):
            return None
    return round(statistics.median(times), 3)


NO_NANNY = "--IPEngine.enable_nanny=False"


def _startup_cycle(nanny: bool) -> list[tuple[str, float]]:
    """One start/stop of 2 engines, step by step, as Cluster.start and Cluster.stop do them.

    Mirrors the harness (same launcher, environment and heartbeat); the engines' first call
    is split in two, a bare os.getpid and then hybridlab's engine.identity, to show the cost of
    importing hybridlab inside each engine. With nanny=False each engine is started without
    ipyparallel's nanny process (a second Python per engine that the engine waits for).
    Returns (step, seconds) pairs; raises on failure.
    """
    import ipyparallel as ipp
    from traitlets.config import Config

    from hybridlab import cluster as cluster_module
    from hybridlab import engine

    ranks, threads, bind = START_STOP_PLACEMENT
    c = hl.Cluster(ranks=ranks, threads=threads, bind=bind)
    config = Config()
    launcher = config.MPIEngineSetLauncher
    launcher.mpi_cmd = [c.mpi.mpiexec]
    launcher.mpi_args = c.placement.launcher_args(c.mpi.implementation)
    launcher.environment = c._engine_environment()  # noqa: SLF001 - the same as start()
    if not nanny:
        launcher.engine_args = [NO_NANNY]
    marks = [("begin", time.perf_counter())]

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter()))

    ipc = ipp.Cluster(
        engines="mpi",
        n=ranks,
        controller_args=[f"--HeartMonitor.period={cluster_module.HEARTBEAT_MS}"],
        engine_timeout=60,
        delay=0,
        config=config,
        log_level=logging.WARNING,
    )
    client, stopped = None, False
    try:
        ipc.start_controller_sync()
        mark("controller started (start_controller)")
        ipc.start_engines_sync()
        mark("mpiexec launched, controller ready (start_engines)")
        client = ipc.connect_client_sync()
        mark("client connected")
        client.wait_for_engines(ranks, timeout=60)
        mark("engines registered (Python, imports, nanny, MPI init)")
        client[:].apply_sync(os.getpid)
        mark("first call to every engine (os.getpid)")
        client[:].apply_sync(engine.identity)
        mark("engine.identity (imports hybridlab in each engine)")
        begin_stop = marks[-1]
        client.close()
        client = None
        ipc.stop_engines_sync()
        mark("stop engines")
        ipc.stop_controller_sync()
        mark("stop controller")
        stopped = True
        reaper.reap(c.tag)
        mark("reaper: look for leftovers, clean MPI files")
    finally:
        if client is not None:
            client.close()
        if not stopped:
            try:
                ipc.stop_engines_sync()
                ipc.stop_controller_sync()
            except Exception:  # noqa: BLE001 - the reaper below finishes the job
                pass
            reaper.reap(c.tag)
    pairs = zip(marks, marks[1:], strict=False)
    steps = [(name, after - before) for (_, before), (name, after) in pairs]
    steps.append(("start total", begin_stop[1] - marks[0][1]))
    steps.append(("stop total", marks[-1][1] - begin_stop[1]))
    return steps


def _process_seconds(repeats: int = 3) -> float:
    """Median wall time of `python -c pass`, start to exit."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        _run([sys.executable, "-c", "pass"])
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)


def startup_breakdown(repeats: int) -> dict[str, object]:
    """Where start and stop time goes, as the harness does it and without the nanny, interleaved.

    Diagnostic only: the figures that count are the Cluster.start/stop timings.
    """
    steps: dict[str, dict[str, list[float]]] = {"harness": {}, "no_nanny": {}}
    for i in range(repeats):
        for variant in ("harness", "no_nanny") if i % 2 == 0 else ("no_nanny", "harness"):
            try:
                cycle = _startup_cycle(nanny=variant == "harness")
            except Exception as err:  # noqa: BLE001 - a benchmark reports, it does not stop
                say(f"start-up breakdown failed: {type(err).__name__}: {err}")
                return {"error": f"{type(err).__name__}: {err}"}
            for name, seconds in cycle:
                steps[variant].setdefault(name, []).append(seconds)
            totals = dict(cycle)
            say(
                f"start-up breakdown {i + 1}/{repeats} ({variant}): "
                f"start {totals['start total']:.2f} s, stop {totals['stop total']:.2f} s"
            )
    imports = {
        "python -c pass (a whole interpreter start and exit)": _process_seconds(),
        "import ipyparallel.engine.app": _import_seconds("import ipyparallel.engine.app"),
        "import ipyparallel.engine.nanny": _import_seconds("import ipyparallel.engine.nanny"),
        "import hybridlab.engine, after ipyparallel": _import_seconds(
            "import hybridlab.engine", setup="import ipyparallel.engine.app"
        ),
        "import ipyparallel.controller.app": _import_seconds("import ipyparallel.controller.app"),
    }
    say("import times measured")
    return {
        "steps_s": {k: summary([round(v, 4) for v in vs]) for k, vs in steps["harness"].items()},
        "steps_no_nanny_s": {
            k: summary([round(v, 4) for v in vs]) for k, vs in steps["no_nanny"].items()
        },
        "no_nanny_flag": NO_NANNY,
        "imports_s": imports,
    }


# --------------------------------------------------------- 2. engines vs plain mpiexec


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


# -------------------------------------------------------------------------- report


def _fmt(value: object, digits: int = 2, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}{unit}"
    return f"{value}{unit}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def write_report(data: dict, path: Path) -> None:
    m = data["machine"]
    topo = m["topology"]
    out = [
        "# hybridlab benchmarks",
        "",
        f"Generated {m['date']} by `{data['command']}` (hybridlab {m['git']}). "
        "Regenerate with `make bench`; the raw figures are in "
        f"`{data['json_name']}`. Benchmarks are not tests: nothing asserts a timing, each figure "
        "is compared with its target and marked PASS or MISS."
        + (
            " **Quick mode** (small arrays, few samples): a smoke run, not the real figures."
            if data["quick"]
            else ""
        ),
        "",
        "## Machine",
        "",
    ]
    out += _table(
        ["", ""],
        [
            ["host", m["host"]],
            ["CPU", m["cpu_model"]],
            ["cores / CPUs / usable", f"{topo['cores']} / {topo['cpus']} / {topo['usable_cpus']}"],
            ["sockets, NUMA nodes, SMT", f"{topo['sockets']}, {topo['numa_nodes']}, {topo['smt']}"],
            ["caches", topo["caches"]],
            ["OS", m["os"]],
            ["MPI", f"{m['mpi']['implementation']} {m['mpi']['version']} ({m['mpi']['mpiexec']})"],
            ["MPI library", data.get("mpi_library") or "n/a"],
            ["compiler", f"{m['compiler']}; flags `{data.get('flags', '')}`"],
            [
                "Python, packages",
                f"{m['python']}; " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()),
            ],
            ["date (UTC)", m["date"]],
            [
                "load average (1 min) at checkpoints",
                ", ".join(f"{e['loadavg_1min']:g} ({e['when']})" for e in data.get("load", [])),
            ],
        ],
    )
    busy = [(e["when"], b) for e in data.get("load", []) for b in e["busy_others"]]
    if busy:
        out += [
            "**Other processes were busy during this run**, so its timings are disturbed "
            "(sampled for 0.5 s at each checkpoint, 10 % CPU or more):",
            "",
        ]
        out += [f"- {when}: pid {b['pid']} `{b['cmd']}` {b['cpu_percent']} %" for when, b in busy]
        out.append("")
    else:
        out += [
            "No other process used 10 % CPU or more at any checkpoint (sampled for 0.5 s "
            "before, between and after the measurements).",
            "",
        ]

    s = data["start_stop"]
    out += ["## Cluster start and stop", ""]
    out += [
        f"`Cluster({s['placement']})`, {s['start_s']['n']} start/stop cycles in one process. "
        "Start is `Cluster.start()` until it returns (every engine registered and asked for "
        "its rank); stop is `Cluster.stop()` until it returns (engines, controller, and the "
        "reaper's check that nothing is left).",
        "",
    ]
    out += _table(
        ["measurement", "median", "min", "max", "first cycle", "target", "result"],
        [
            [
                "start",
                _fmt(s["start_s"]["median"], 2, " s"),
                _fmt(s["start_s"]["min"], 2, " s"),
                _fmt(s["start_s"]["max"], 2, " s"),
                _fmt(s["first_start_s"], 2, " s"),
                f"< {START_TARGET_S:g} s",
                verdict(s["pass"]["start"]),
            ],
            [
                "stop",
                _fmt(s["stop_s"]["median"], 2, " s"),
                _fmt(s["stop_s"]["min"], 2, " s"),
                _fmt(s["stop_s"]["max"], 2, " s"),
                _fmt(next((r["stop_s"] for r in s["repeats"]), None), 2, " s"),
                f"< {STOP_TARGET_S:g} s",
                verdict(s["pass"]["stop"]),
            ],
        ],
    )
    errors = [r for r in s["repeats"] if "error" in r or r.get("left_behind")]
    for r in errors:
        out.append(
            f"- cycle {r['repeat']}: {r.get('error', '')} "
            f"{r.get('left_behind', 0)} processes left behind after stop"
        )
    if errors:
        out.append("")
    out += [start_stop_explanation(s, data.get("breakdown")), ""]

    b = data.get("breakdown")
    if b and "steps_s" in b:
        out += ["### Where the start-up time goes", ""]
        out += [
            "Cluster.start's and Cluster.stop's steps redone one by one with ipyparallel (same "
            "launcher, environment and heartbeat), median of "
            f"{next(iter(b['steps_s'].values()))['n']} cycles; the last column is the same with "
            "each engine started without ipyparallel's nanny process, in cycles interleaved "
            "with the others:",
            "",
        ]
        nn = b.get("steps_no_nanny_s", {})
        out += _table(
            ["step", "median", "min", "max", f"median with engine_args `{b.get('no_nanny_flag')}`"],
            [
                [
                    k,
                    _fmt(v["median"], 2, " s"),
                    _fmt(v["min"], 2, " s"),
                    _fmt(v["max"], 2, " s"),
                    _fmt(nn.get(k, {}).get("median"), 2, " s"),
                ]
                for k, v in b["steps_s"].items()
            ],
        )
        out += [
            "Import times in a fresh interpreter (median of 3), which every engine and the "
            "controller pay at start-up:",
            "",
        ]
        out += _table(
            ["import", "seconds"], [[k, _fmt(v, 2, " s")] for k, v in b["imports_s"].items()]
        )
    elif b and "error" in b:
        out += [f"(The start-up breakdown failed: {b['error']}.)", ""]

    out += ["## Engines vs mpiexec", ""]
    p = data["params"]
    out += [
        f"`{KERNEL}` (n={p['n']} doubles per array per rank, samples={p['samples']}): a triad "
        "over n doubles with `omp parallel for` plus an `MPI_Allreduce` of its checksum per "
        "repetition, self-timed inside the kernel (warm-up, repetitions to 1 ms, then the "
        "samples). Each run's figure is the median over samples of the slowest rank's "
        "seconds per repetition. The two modes alternate within each repeat (engines first "
        "in odd repeats, mpiexec first in even ones) so drift affects both. ratio = median "
        "of the engine runs / median of the mpiexec runs; spread = min and max of the "
        f"per-repeat ratios. Target {RATIO_LOW:g} <= ratio <= {RATIO_HIGH:g}.",
        "",
    ]
    rows = []
    for c in data["compare"]:
        rows.append(
            [
                c["placement"],
                _fmt(_ms(c.get("engines_median_s")), 3, " ms")
                + f" ({_fmt(c.get('engines_gb_per_s'), 1)} GB/s)",
                _fmt(_ms(c.get("mpiexec_median_s")), 3, " ms")
                + f" ({_fmt(c.get('mpiexec_gb_per_s'), 1)} GB/s)",
                _fmt(c["ratio"], 3),
                f"{_fmt(c['ratio_min'], 3)} .. {_fmt(c['ratio_max'], 3)}",
                _fmt(c.get("best_ratio"), 3),
                "; ".join(
                    f"{state}: {_fmt(v['ratio'], 3)} ({len(v['repeats'])} of "
                    f"{len(c['per_repeat_ratio'])})"
                    for state, v in c["like_with_like_ratio"].items()
                )
                or "none",
                ", ".join(f"{k}: {v}" for k, v in c["states"].items()) or "n/a",
                f"{RATIO_LOW:g} .. {RATIO_HIGH:g}",
                verdict(c["pass"]),
            ]
        )
    out += _table(
        [
            "placement",
            "engines",
            "mpiexec",
            "ratio",
            "spread",
            "ratio of best samples",
            "ratio per probe state (repeats with all 4 probes in it)",
            "probe states seen (before+after)",
            "target",
            "result",
        ],
        rows,
    )
    out += [
        "Every run (probe = core-to-core round trip before -> after, ns; idle cluster CPU = "
        "CPU seconds the idle engines and controller used while the mpiexec run ran):",
        "",
    ]
    run_rows = []
    for c in data["compare"]:
        for r in c["runs"]:
            run_rows.append(
                [
                    c["placement"].split(",")[0],
                    r["repeat"],
                    r["mode"],
                    _fmt(r["median_s"] * 1e3, 3),
                    _fmt(r["min_s"] * 1e3, 3),
                    _fmt(r["max_s"] * 1e3, 3),
                    r["outliers_3sigma"],
                    r["inner"],
                    f"{r['probe']['before']['roundtrip_ns']} -> "
                    f"{r['probe']['after']['roundtrip_ns']}",
                    _fmt(r["idle_cluster_cpu_s"], 3),
                ]
            )
    out += _table(
        [
            "placement",
            "repeat",
            "mode",
            "median ms",
            "min ms",
            "max ms",
            "outliers > 3 sigma",
            "inner reps",
            "probe ns",
            "idle cluster CPU s",
        ],
        run_rows,
    )
    flags = [(c["placement"], f) for c in data["compare"] for f in c["flags"]]
    errors = [(c["placement"], c["error"]) for c in data["compare"] if c["error"]]
    if flags or errors:
        out += ["Flagged:", ""]
        out += [f"- {pl}: {f}" for pl, f in flags + errors]
        out.append("")
    out += [ratio_explanation(data["compare"]), ""]

    out += ["## What the numbers mean", ""]
    out += [
        "Start and stop are what a student waits for at the top of a lab and when restarting "
        "after a crash. They are dominated by starting Python processes and importing "
        "ipyparallel, ZeroMQ and mpi4py on a machine with two cores, not by MPI itself, so they "
        "scale with the speed of one core and with how many processes start at once (the "
        "controller and every engine).",
        "",
        "The ratio checks the promise that the engines do not disturb what they measure: a kernel "
        "timed inside an ipyparallel engine (a Python process with ZeroMQ threads and a "
        "heartbeat) should see the same time as the same kernel in a plain C program under "
        "mpiexec. It is a ratio of self-timed medians, so launch costs do not enter it. A ratio "
        "inside 0.9 .. 1.1 means the engines are transparent to within the noise of this "
        "machine; a single repeat can fall outside because memory bandwidth on this virtual "
        "machine drifts (DESIGN section 4 saw 4x within an hour), which is why the modes "
        "alternate and the ratio is taken of medians over repeats. The core probe tells the two "
        "states of the virtual CPUs apart (SMT siblings of one host core: about 60-120 ns; "
        "separate cores: about 350 ns); only runs made in the same state are like with like, "
        "hence the column that recomputes the ratio for each state from the repeats whose four probes all saw it. The ratio of "
        "best samples (the fastest sample of each mode over all repeats) is the least "
        "sensitive to other load: when it is near 1 and the ratio of medians is not, the "
        "difference comes from outside (other processes, the host), not from the engines.",
        "",
    ]
    path.write_text("\n".join(out))


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3


def start_stop_explanation(s: dict, b: dict | None) -> str:
    med_start, med_stop = s["start_s"]["median"], s["stop_s"]["median"]
    if med_start is None:
        return "No cycle started: see the errors above."
    text = (
        f"Median start {med_start:.2f} s against a target of {START_TARGET_S:g} s "
        f"({verdict(s['pass']['start'])}), median stop {med_stop:.2f} s against "
        f"{STOP_TARGET_S:g} s ({verdict(s['pass']['stop'])})."
    )
    if b and "steps_s" in b:
        st = {k: v["median"] for k, v in b["steps_s"].items()}
        nn = {k: v["median"] for k, v in b.get("steps_no_nanny_s", {}).items()}
        imp = b["imports_s"]

        def get(prefix: str, table: dict = st) -> float:
            return next((v for k, v in table.items() if k.startswith(prefix)), 0.0) or 0.0

        text += (
            f" In the breakdown (start {get('start total'):.2f} s there), the controller takes "
            f"{get('controller started') + get('mpiexec launched'):.2f} s before the engines are "
            "launched (ipyparallel waits for its connection file; importing the controller "
            f"alone takes {_fmt(imp.get('import ipyparallel.controller.app'), 2, ' s')}). "
            f"The engines then take {get('engines registered'):.2f} s to register: each starts "
            "Python, imports ipyparallel "
            f"({_fmt(imp.get('import ipyparallel.engine.app'), 2, ' s')}), then starts a nanny "
            "process, a second Python that imports ipyparallel again "
            f"({_fmt(imp.get('import ipyparallel.engine.nanny'), 2, ' s')}), and waits for it "
            "before registering, all at once on two cores next to the controller. Without the "
            f"nanny ({b.get('no_nanny_flag')}) registration took "
            f"{get('engines registered', nn):.2f} s and the whole start "
            f"{get('start total', nn):.2f} s. The first call to the engines "
            f"(a bare os.getpid) takes {get('first call'):.2f} s, and the harness's "
            f"engine.identity {get('engine.identity'):.2f} s more"
            + (
                ": unpickling a function of hybridlab.engine imports the hybridlab package "
                "(pandas, the ipyparallel client) in every engine "
                f"({_fmt(imp.get('import hybridlab.engine, after ipyparallel'), 2, ' s')} "
                "on its own). "
                if get("engine.identity") > 0.2
                else " (importing hybridlab.engine in an engine costs "
                f"{_fmt(imp.get('import hybridlab.engine, after ipyparallel'), 2, ' s')}: the "
                "package imports its heavy parts lazily). "
            )
            + f"Stop: engines {get('stop engines'):.2f} s "
            f"({get('stop engines', nn):.2f} s without the nanny), "
            f"controller {get('stop controller'):.2f} s, "
            f"reaper {get('reaper'):.2f} s (it reads every process's environment and memory maps)."
        )
        if not s["pass"]["start"]:
            text += (
                " So most of the start is Python start-up and imports, serialised in two waves "
                "(the controller, then the engines and their nannies) on two cores. What would "
                "shorten it, in the harness: start the engines without the nanny (the harness "
                "kills engines itself and does not use ipyparallel's per-engine signals); and, "
                "untested, launch mpiexec while the controller is still starting instead of "
                "after its connection file appears (ipengine can wait for that file itself)."
            )
    return text


def ratio_explanation(compare: list[dict]) -> str:
    parts = []
    for c in compare:
        if c["ratio"] is None:
            parts.append(f"{c['placement']}: no complete pair of runs ({c['error']}).")
            continue
        inside = sum(RATIO_LOW <= v <= RATIO_HIGH for v in c["per_repeat_ratio"].values())
        parts.append(
            f"{c['placement']}: engines/mpiexec = {c['ratio']:.3f} "
            f"({verdict(c['pass'])}); {inside} of {len(c['per_repeat_ratio'])} repeats fall "
            f"inside {RATIO_LOW:g} .. {RATIO_HIGH:g} on their own (spread "
            f"{c['ratio_min']:.3f} .. {c['ratio_max']:.3f}); best samples "
            f"{c['best_ratio']:.3f}."
        )
    idle = [
        r["idle_cluster_cpu_s"]
        for c in compare
        for r in c["runs"]
        if r.get("idle_cluster_cpu_s") is not None
    ]
    if idle:
        parts.append(
            f"While the mpiexec runs ran, the idle cluster used at most {max(idle):.3f} "
            "CPU seconds, so its presence does not bias the mpiexec side."
        )
    return " ".join(parts)


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each measurement")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md", help="Markdown report")
    parser.add_argument("--json", type=Path, default=HERE / "results.json", help="raw figures")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small arrays and few samples, no start-up breakdown (smoke run)",
    )
    parser.add_argument(
        "--no-breakdown", action="store_true", help="skip the step-by-step timing of the start-up"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="measure nothing: rewrite --out from the figures already in --json",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.report_only:
        data = json.loads(args.json.read_text())
        for c in data["compare"]:
            c.update(ratio_of(c["runs"]))
        write_report(data, args.out)
        say(f"rewrote {args.out} from {args.json}")
        return 0

    os.environ["PATH"] = f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ.setdefault("IPP_NONINTERACTIVE", "1")
    warnings.filterwarnings("ignore", message="The IPython parallel magics")
    params = dict(QUICK_PARAMS if args.quick else FULL_PARAMS)

    say("describing the machine, building the kernel")
    machine = describe_machine()
    kernel = build(KERNEL)
    if kernel.warnings:
        say(f"compiler warnings: {[str(w) for w in kernel.warnings]}")
    data: dict[str, object] = {
        "command": " ".join(
            ["python", "benchmarks/run_benchmarks.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "json_name": args.json.name,
        "quick": args.quick,
        "repeats": args.repeats,
        "params": params,
        "flags": " ".join(kernel.flags),
        "machine": machine,
    }
    load = [other_load("before")]
    say(f"cluster start/stop, {args.repeats} cycles")
    data["start_stop"] = measure_start_stop(args.repeats)
    load.append(other_load("after start/stop"))
    if not (args.quick or args.no_breakdown):
        cycles = min(3, args.repeats)
        say(f"start-up breakdown, {cycles} cycles")
        data["breakdown"] = startup_breakdown(cycles)
        load.append(other_load("after the breakdown"))
    data["compare"] = []
    for ranks, threads, bind in COMPARE_PLACEMENTS:
        data["compare"].append(compare_placement(ranks, threads, bind, args.repeats, params))
        load.append(other_load(f"after {data['compare'][-1]['placement']}"))
    data["load"] = load
    for entry in load:
        if entry["busy_others"]:
            say(
                f"other processes busy {entry['when']}: "
                + ", ".join(f"{b['cmd'][:40]} {b['cpu_percent']}%" for b in entry["busy_others"])
            )
    try:  # the library string the kernels themselves report
        res = hl.run_program(kernel, 1, 1, "none", n=1000, samples=1)
        data["mpi_library"] = res.meta.get("mpi_library")
    except hl.KernelError as err:
        data["mpi_library"] = f"unknown ({err})"

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    write_report(data, args.out)
    say(f"wrote {args.out} and {args.json}")
    s = data["start_stop"]
    say(
        f"start {_fmt(s['start_s']['median'])} s ({verdict(s['pass']['start'])}), "
        f"stop {_fmt(s['stop_s']['median'])} s ({verdict(s['pass']['stop'])}); "
        + "; ".join(
            f"{c['placement']}: ratio {_fmt(c['ratio'], 3)} ({verdict(c['pass'])})"
            for c in data["compare"]
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
