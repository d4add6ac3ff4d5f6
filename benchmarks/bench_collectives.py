#!/usr/bin/env python
"""MPI_Alltoall latency and the 3-D FFT measured by the kit (kernels_c/alltoall.c, fft3d.c),
written to benchmarks/collectives_results.md (and collectives_results.json).

* osu_alltoall's method and counts (1000 calls and 100 warm-up up to 8 KiB, 100 and 10 above,
  scaled by --scale), one table per P x T in the form osu_alltoall prints (size, average
  latency over ranks in us; min and max beside). P x T splits that need more CPUs than the
  machine has run oversubscribed and are marked so.
* One transpose of an n^3 grid for every P x T at the machine's core count (pure MPI and hybrid
  moving the same bytes).
* The 3-D FFT's phases (fft, rearrange, alltoall) per P x T, best of --fft-repetitions.
* --mpi4py-demo PATH: also run mpi4py's demo/osu_alltoall.py (from the mpi4py sdist; OSU's
  method ported to Python: back-to-back calls, rank 0's time) under the same mpiexec, beside.

The load is recorded before and after each part (the benchmarks' runner): the machine is
shared. Nothing is asserted: this is a benchmark, not a test. osu_alltoall itself, run beside
the kit's sweep, is in bench_anchors.py.

    python benchmarks/bench_collectives.py [--scale 1.0] [--quick] [--mpi4py-demo PATH]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import hybridlab as hl
from hybridlab.collectives.exercise import equal_volume, fft_runs, osu_counts
from hybridlab.collectives.tables import fft_breakdown, osu_table
from hybridlab.paths import venv_bin
from hybridlab.runs.launch import run_program

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import Progress  # noqa: E402
from _runner import Bench  # noqa: E402

say = Progress("bench_collectives")


def sweep(ranks: int, threads: int, usable: int, args, op: str = "alltoall") -> hl.Results:
    counts = osu_counts(scale=args.scale)
    return run_program(
        "alltoall",
        ranks=ranks,
        threads=threads,
        bind="cores" if ranks * threads <= usable else "none",
        timeout=1800.0,
        op=op,
        min_bytes=1,
        max_bytes=args.max_bytes,
        samples=args.samples,
        **counts,
    )


def mpi4py_demo(path: Path, ranks: int, max_bytes: int) -> dict[int, float]:
    """size -> latency (us) printed by mpi4py's osu_alltoall.py under the venv's mpiexec."""
    env = dict(os.environ, PATH=f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}")
    code = (
        f"import runpy, sys; sys.argv=['osu']; g = runpy.run_path({str(path)!r}); "
        f"g['osu_alltoall'](MAX_MSG_SIZE={max_bytes})"
    )
    done = subprocess.run(
        [str(venv_bin() / "mpiexec"), "-n", str(ranks), sys.executable, "-c", code],
        capture_output=True, text=True, timeout=1800, env=env, check=True,
    )  # fmt: skip
    out = {}
    for line in done.stdout.splitlines():
        m = re.match(r"^\s*(\d+)\s+([\d.]+)\s*$", line)
        if m and int(m.group(1)) > 0:
            out[int(m.group(1))] = float(m.group(2))
    return out


def lines(usable: int, tables: list, same, fft, demo, args) -> list[str]:
    """The report's body: the OSU-format tables, the equal-volume transpose, the FFT's phases."""
    lines = [
        "`MPI_Alltoall` timed the way `osu_alltoall` times it: warm-up calls skipped, a barrier",
        "after every call (not timed), each rank's average per call, then the average (and min,",
        "max) over ranks. Size = bytes sent to each rank.",
        "",
        f"- OSU counts scaled by {args.scale}; {args.samples} sample(s) per size (median shown)",
        "",
    ]
    for (ranks, threads, over), table in tables:
        tag = " (oversubscribed: timings mean little)" if over else ""
        lines += [f"## MPI_Alltoall, {ranks} x {threads}{tag}", "", "```text",
                  f"# OSU-format: {ranks} ranks x {threads} threads",
                  f"{'# Size':<10}{'Avg Latency(us)':>18}{'Min(us)':>14}{'Max(us)':>14}"]  # fmt: skip
        for _, row in table.iterrows():
            lines.append(
                f"{int(row['size']):<10}{row['avg_us']:>18.2f}{row['min_us']:>14.2f}"
                f"{row['max_us']:>14.2f}"
            )
        lines += ["```", ""]
    lines += [
        f"## One transpose of a {args.n_equal}^3 complex grid, same bytes per core",
        "",
        "| P x T | messages per rank | size (B) | avg (us) | min (us) | max (us) | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, r in same.iterrows():
        notes = ["one rank: a local copy only"] if r["ranks"] == 1 else []
        if r["ranks"] * r["threads"] > usable:
            notes.append("oversubscribed")
        note = "; ".join(notes)
        lines.append(
            f"| {r['ranks']} x {r['threads']} | {r['ranks'] - 1} | {int(r['size'])} | "
            f"{r['avg_us']:.1f} | {r['min_us']:.1f} | {r['max_us']:.1f} | {note} |"
        )
    lines += [
        "",
        f"## 3-D FFT, n = {args.n_fft}: phases of the slowest rank, best of "
        f"{args.fft_repetitions} repetitions (ms)",
        "",
        "| P x T | FFT library | fft | rearrange | alltoall | total | alltoall share |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, r in fft.iterrows():
        lines.append(
            f"| {r['label']} | {r['fft_library']} | {1e3 * r['fft']:.2f} | "
            f"{1e3 * r['rearrange']:.2f} | {1e3 * r['alltoall']:.2f} | {1e3 * r['total']:.2f} | "
            f"{100 * r['alltoall_share']:.0f} % |"
        )
    lines += [""]
    if demo:
        kit = dict(zip(tables[0][1]["size"], tables[0][1]["avg_us"], strict=True))
        lines += [
            "## Beside mpi4py's osu_alltoall.py (2 ranks)",
            "",
            "mpi4py's demo ports OSU's method to Python: back-to-back calls with no barrier between",
            "them, rank 0's time only. Same MPICH, same machine, run right after the kit's sweep.",
            "",
            "| size (B) | kit avg (us) | mpi4py demo (us) | kit / demo |",
            "|---|---|---|---|",
        ]
        for size, us in sorted(demo.items()):
            if size in kit:
                lines.append(f"| {size} | {kit[size]:.2f} | {us:.2f} | {kit[size] / us:.2f} |")
        lines += [""]
    return lines


def transpose_messages(n: int, cores: int, threads: int) -> tuple[int, int]:
    """Messages per rank and bytes per message of an n^3 complex transpose over cores / threads
    ranks (what lab 07's part (a) asks the student to derive; the benchmark's own copy)."""
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2


def options(parser) -> None:
    parser.add_argument("--scale", type=float, default=1.0, help="scale OSU's iteration counts")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--max-bytes", type=int, default=1 << 20)
    parser.add_argument("--n-equal", type=int, default=64)
    parser.add_argument("--n-fft", type=int, default=128)
    parser.add_argument("--fft-repetitions", type=int, default=5)
    parser.add_argument("--mpi4py-demo", type=Path, default=None)


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_collectives", __doc__, "collectives_results.md", argv, repeats=None,
                  options=options, progress=say, quick_help="scale 0.1, 1 sample, 256 KiB, n=64",
                  quick={"scale": 0.1, "samples": 1, "max_bytes": 1 << 18, "n_fft": 64})  # fmt: skip
    args = bench.args
    usable = len(hl.read_topology().usable)
    shapes = [(p, usable // p) for p in range(1, usable + 1) if usable % p == 0 and p > 1]
    if usable < 4:
        shapes += [(4, 1), (2, 2)]  # more ranks, oversubscribed
    bench.checkpoint("before")
    tables = []
    for ranks, threads in shapes:
        say(f"alltoall sweep {ranks} x {threads}")
        res = sweep(ranks, threads, usable, args)
        tables.append(((ranks, threads, ranks * threads > usable), osu_table(res)))
    bench.checkpoint("after the alltoall sweeps")
    demo = {}
    if args.mpi4py_demo:
        say("mpi4py demo osu_alltoall.py, 2 ranks")
        demo = mpi4py_demo(args.mpi4py_demo, 2, args.max_bytes)
    say("equal volume")
    threads = [t for t in range(1, usable + 1) if usable % t == 0]
    same = equal_volume(args.n_equal, usable, threads, transpose_messages)
    if usable < 4:
        same += equal_volume(args.n_equal, 4, [1, 2, 4], transpose_messages, bind="none")
    same = osu_table(same)
    say("3-D FFT")
    fft_shapes = [(p, usable // p) for p in range(1, usable + 1) if usable % p == 0]
    fft = fft_breakdown(fft_runs(fft_shapes, args.n_fft, repetitions=args.fft_repetitions))
    bench.checkpoint("after")
    data = {
        "osu": [
            {"ranks": r, "threads": t, "oversubscribed": o, "rows": tab.to_dict("records")}
            for (r, t, o), tab in tables
        ],
        "equal_volume": same.to_dict("records"),
        "fft": fft.to_dict("records"),
        "mpi4py_demo": demo,
        "n_equal": args.n_equal,
        "scale": args.scale,
        "samples": args.samples,
    }
    title = "Collectives benchmark (kernels_c/alltoall.c, kernels_c/fft3d.c)"
    return bench.report(title, lines(usable, tables, same, fft, demo, args), data)


if __name__ == "__main__":
    sys.exit(main())
