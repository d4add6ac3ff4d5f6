#!/usr/bin/env python
"""The kit's STREAM triad (kernels_c/stream.c) beside `likwid-bench -t stream` on the same machine
in the same run, with lab 05's saturation and first-touch figures; written to
benchmarks/memory_results.md.

`stream` is the kit's bandwidth reference (lab 05): if it disagrees with a reference suite on the
same machine, the lab's bandwidths are wrong. Both count 24 bytes per triad iteration (two
loads, one store; write-allocate traffic not counted): the kit by STREAM's rule, likwid-bench as
its output states ("Load bytes per element", "Store bytes per elem."). They summarise
differently: STREAM keeps the best pass after dropping the first, likwid-bench reports the data
volume over the whole run time (a mean over its iterations). The table gives the kit's best and
its mean, and the ratio of each to likwid-bench's figure, per repeat (kit and likwid measured
back to back, so drift of a shared machine hits both) and as the median over repeats.

Arrays are 4x the last-level cache (STREAM's rule), the same size for both. Threads: 1 and every
usable CPU, bound (kit: OMP_PROC_BIND=close, OMP_PLACES=cores; likwid-bench pins its own).
Nothing is asserted: this is a benchmark, not a test. Progress goes to stderr.

    python benchmarks/bench_memory.py [--repeats 3] [--quick] [--out benchmarks/memory_results.md]
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys

import hybridlab as hl
from _common import Progress
from _runner import Bench, uptime
from hybridlab.memory import exercise as ex
from hybridlab.memory import tables as mt

say = Progress("bench_memory")


def likwid(test: str, threads: int, total_bytes: int, iterations: int) -> dict | None:
    """likwid-bench -t test -i iterations -w N:<bytes>:<threads>: MByte/s (1e6) and its byte
    counts; None if likwid-bench is absent."""
    exe = shutil.which("likwid-bench")
    if exe is None:
        return None
    cmd = [exe, "-t", test, "-i", str(iterations), "-w", f"N:{total_bytes // 1000}kB:{threads}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    text = done.stdout + done.stderr

    def field(name: str) -> float | None:
        m = re.search(rf"^{re.escape(name)}:\s*([\d.e+]+)", text, re.M)
        return float(m.group(1)) if m else None

    mbs = field("MByte/s")
    if done.returncode != 0 or mbs is None:
        say(f"{' '.join(cmd)} failed: {text[-400:]}")
        return None
    return {
        "command": " ".join(["likwid-bench", *cmd[1:]]),
        "gb_s": mbs / 1000,
        "load_bytes": field("Load bytes per element"),
        "store_bytes": field("Store bytes per elem."),
        "iterations": field("Iterations"),
        "size": field("Size (Byte)"),
    }


def kit_triad(threads: int, n: int, ntimes: int) -> dict:
    res = ex.run_stream(threads, n=n, ntimes=ntimes, kernels="triad")
    row = mt.stream_table(res).iloc[0]
    check = res.records.query("record == 'check'").iloc[0]
    return {
        "best": float(row["gb_s"]),
        "mean": 1e-9 * float(row["bytes"]) / float(row["avg_s"]),
        "ok": int(check["ok"]),
        "probe": res.meta["probe"],
    }


def probe_text(p: dict) -> str:
    b, a = p["before"], p["after"]
    return f"{b['roundtrip_ns']}->{a['roundtrip_ns']} ns ({b['state']}" + (
        ")" if b["state"] == a["state"] else f" -> {a['state']})"
    )


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_memory", __doc__, "memory_results.md", argv,
                  quick_help="small arrays (in cache): smoke run", progress=say)  # fmt: skip
    args = bench.args

    topo, cpus = bench.topology, bench.cpus
    n, llc = mt.stream_elements(topo, quick=args.quick), topo.last_level_cache_bytes()
    ntimes = 4 if args.quick else 10
    threads_list = sorted({1, cpus})
    say(f"{cpus} CPUs, LLC {llc >> 20} MiB: {n} doubles per array")
    uptime_before = uptime()
    bench.checkpoint("before")

    # ------------------------------------------------------------ kit vs likwid-bench
    tests = ["stream"] + (["stream_avx"] if shutil.which("likwid-bench") else [])
    compare = []
    for threads in threads_list:
        for repeat in range(args.repeats):
            kit = kit_triad(threads, n, ntimes)
            refs = {t: likwid(t, threads, 3 * 8 * n, ntimes) for t in tests}
            compare.append((threads, repeat, kit, refs))
            shown = ", ".join(f"{t} {r['gb_s']:.2f}" for t, r in refs.items() if r)
            say(f"{threads} thread(s) repeat {repeat + 1}: kit best {kit['best']:.2f} mean "
                f"{kit['mean']:.2f} GB/s; likwid {shown or 'absent'}")  # fmt: skip

    # ------------------------------------------------------------ saturation
    say("saturation")
    stream_runs, flops_runs = ex.saturation(n, ntimes=ntimes)
    sat = mt.saturation_table(stream_runs, flops_runs).set_index("threads")
    sat["triad_pct_of_max"] = 100 * sat["triad_gb_s"] / sat["triad_gb_s"].max()
    for kernel, column in (("triad", "triad_gb_s"), ("flops", "flops_gflop_s")):
        sat[f"{kernel}_speedup"] = sat[column] / sat[column].loc[1]
        sat[f"{kernel}_efficiency"] = sat[f"{kernel}_speedup"] / sat.index
    sat = sat.reset_index()
    sat_probes = [probe_text(r.meta["probe"]) for r in stream_runs]

    # ------------------------------------------------------------ first touch and matrix
    say("first touch")
    pages = 4096 if args.quick else 32768
    ft = {init: ex.run_first_touch(init, pages=pages) for init in ("serial", "parallel")}
    sweeps = mt.sweep_table(list(ft.values()))
    block = ex.cache_block_bytes(topo)
    matrices = {}
    for refresh, size in ((1, block), (0, 8 * n)):
        res = ex.run_numa_matrix(
            block_bytes=size,
            refresh=refresh,
            reps=(10 if refresh else 3) if args.quick else (20 if refresh else 5),
        )
        matrices[(refresh, size)] = (mt.matrix_table(res), probe_text(res.meta["probe"]))
    bench.checkpoint("after")
    uptime_after = uptime()

    # ------------------------------------------------------------ report
    first_ref = next((r for *_, refs in compare for r in refs.values() if r), None)
    lines = [
        f"{cpus} usable CPUs, {len(topo.numa_nodes)} NUMA node(s), last-level "
        f"cache {llc >> 20} MiB; {n} doubles per array ({8 * n >> 20} MiB, "
        f"{'quick: NOT 4x the LLC' if args.quick else '4x the LLC'}), {ntimes} passes per kit "
        f"run, {args.repeats} repeats; compiler {hl.build('stream').flags}.",
        "",
        f"Load average (1, 5, 15 min) {uptime_before} before and {uptime_after} "
        f"after ({cpus} CPUs). The machine is shared: with a load above {cpus} other programs "
        "compete for the cores and the memory, bandwidths are noisy and lower than the machine "
        "can do, and only ratios measured back to back mean much.",
        "",
        "## Triad: kit vs likwid-bench (same machine, same run)",
        "",
        "Byte counts: kit 24 B per iteration (STREAM: read b and c, write a; no write-allocate)."
        + (
            f" likwid-bench `stream`: {first_ref['load_bytes']:.0f} load + "
            f"{first_ref['store_bytes']:.0f} store bytes per element, as it prints them; same "
            f"array size ({3 * 8 * n} bytes for the three streams)."
            if first_ref
            else " likwid-bench is not installed here (Debian package `likwid`)."
        ),
        "",
        "| threads | repeat | kit best GB/s | kit mean GB/s | likwid test | likwid GB/s "
        "| kit best / likwid | kit mean / likwid | kit probe |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    ratios: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for threads, repeat, kit, refs in compare:
        for test, ref in refs.items():
            if not ref:
                continue
            rb, rm = kit["best"] / ref["gb_s"], kit["mean"] / ref["gb_s"]
            ratios.setdefault((threads, test), []).append((rb, rm))
            lines.append(
                f"| {threads} | {repeat + 1} | {kit['best']:.2f} | {kit['mean']:.2f} | {test} | "
                f"{ref['gb_s']:.2f} | {rb:.3f} | {rm:.3f} | {probe_text(kit['probe'])} |"
            )
    lines += ["", "Median over repeats:", "", "| threads | likwid test | kit best / likwid | "
              "kit mean / likwid | within 5 %? |", "|---|---|---|---|---|"]  # fmt: skip
    for (threads, test), rs in ratios.items():
        mb, mm = statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)
        lines.append(f"| {threads} | {test} | {mb:.3f} | {mm:.3f} | "
                     f"{'yes' if abs(mm - 1) <= 0.05 else 'no'} (mean vs mean) |")  # fmt: skip
    spreads = []
    for threads in threads_list:
        kits = [kit["best"] for t, _, kit, _ in compare if t == threads]
        refs = [r["stream"]["gb_s"] for t, _, _, r in compare if t == threads and r.get("stream")]
        if len(kits) > 1 and refs:
            spreads.append(f"{threads} thread(s): kit best {max(kits) / min(kits):.2f}, likwid "
                           f"stream {max(refs) / min(refs):.2f}")  # fmt: skip
    if spreads:
        lines += ["", "Spread of each tool's own repeats (max / min): " + "; ".join(spreads) + ". "
                  "A ratio between the tools cannot be judged closer than these spreads: the 5 % "
                  "goal needs a quiet machine."]  # fmt: skip
    lines += [
        "",
        "likwid-bench reports the run's data volume over its whole time, a mean over its "
        "iterations; 'kit mean / likwid' compares like with like, 'kit best / likwid' shows what "
        "STREAM's best-of-N adds. likwid's `stream` kernel is scalar assembly, `stream_avx` "
        "vectorised; the kit's triad is C compiled by gcc at -O2 (no -march).",
        "",
        "## Saturation (triad and flops vs threads, bound to cores)",
        "",
        "| threads | triad GB/s | % of max | speedup | efficiency | flops GFLOP/s | flops speedup "
        "| flops efficiency | triad probe |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (_, r), p in zip(sat.iterrows(), sat_probes, strict=True):
        lines.append(
            f"| {int(r['threads'])} | {r['triad_gb_s']:.2f} | {r['triad_pct_of_max']:.0f} | "
            f"{r['triad_speedup']:.2f} | {r['triad_efficiency']:.2f} | {r['flops_gflop_s']:.2f} | "
            f"{r['flops_speedup']:.2f} | {r['flops_efficiency']:.2f} | {p} |"
        )
    lines += [
        "",
        "## First touch (per-thread sweep of its own block)",
        "",
        f"{pages} pages of 4 KiB, {cpus} threads. On one NUMA node every page is local whatever "
        "the initialisation: the serial/parallel difference needs two or more nodes.",
        "",
        "| init | thread | cpu | node | pages | local pages | GB/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in sweeps.itertuples():
        lines.append(f"| {r.init} | {r.thread} | {r.cpu} | {r.numa} | {r.pages} | "
                     f"{r.local_pages} | {r.gb_s:.2f} |")  # fmt: skip
    probes = "; ".join(f"{k}: {probe_text(v.meta['probe'])}" for k, v in ft.items())
    lines += ["", f"Probe: {probes}.", "", "## Threads x data owners (numa_matrix)", ""]
    for (refresh, size), (m, p) in matrices.items():
        kind = "cache level (owner rewrites, then others read)" if refresh else "memory level"
        lines += [
            f"Blocks of {size >> 10} KiB, refresh={refresh} ({kind}); probe {p}; diagonal / "
            f"off-diagonal = {mt.matrix_contrast(m):.2f}.",
            "",
            "| reader \\ owner | " + " | ".join(str(c) for c in m.columns) + " |",
            "|---" * (len(m.columns) + 1) + "|",
        ]
        for reader, row in m.iterrows():
            lines.append(f"| {reader} | " + " | ".join(f"{v:.2f}" for v in row) + " |")
        lines.append("")
    lines += [
        f"This machine has {len(topo.numa_nodes)} NUMA node(s): "
        + (
            "the memory-level matrix cannot show local vs remote memory; the cache-level one "
            "shows the same mechanism one level down (a core's private cache vs another's)."
            if len(topo.numa_nodes) < 2
            else "the memory-level matrix shows local vs remote memory."
        ),
        "",
    ]
    return bench.report(
        "Memory: the kit's STREAM triad vs likwid-bench, saturation, first touch", lines
    )


if __name__ == "__main__":
    sys.exit(main())
