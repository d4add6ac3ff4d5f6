"""The kit's figures beside the public suites they follow, on the same machine in the same run:
twelve figures, each a ratio kit / reference measured pair by pair (issue 40's goal: 0.95-1.05).

| group    | kit kernel                   | reference (not part of the kit)   | figures               |
|----------|------------------------------|-----------------------------------|-----------------------|
| latency  | pingpong.c mode=sweep, 2 x 1 | OSU 7.4 osu_latency               | 8 B, 1 KiB, 1 MiB     |
| alltoall | alltoall.c, 2 x 1            | OSU 7.4 osu_alltoall              | 8 B, 64 KiB, 1 MiB    |
| openmp   | syncbench.c, 1 x 2           | EPCC OpenMP syncbench (3.1 / 4.0) | parallel, for,        |
|          |                              |                                   | barrier, reduction    |
| triad    | stream.c triad, 1 x 1, 1 x 2 | STREAM 5.10 stream.c              | 1 and 2 threads       |

Both sides of a pair are launched by the kit's launcher with the same placement (ranks x threads
bound to cores, OMP_PLACES=cores, OMP_PROC_BIND=close), the order swapped every pair; the load
average is recorded after every pair. Each side reports what its suite reports: OSU's average
latency (us), EPCC's overhead (mean time per repetition of the construct less that of the
reference loop, ns), STREAM's best triad rate (GB/s, the kit's triad on STREAM's array size, read
from the binary's own output).

The suites are not part of the kit and are never committed: build them from their own sources
(OSU with the kit's MPI compiler wrapper, so both sides use the same MPI) and point the script at
the folder that holds them (searched for the executables `osu_latency`, `osu_alltoall`,
`syncbench`, `stream`), or name each binary. A group whose binary is missing is left out, and
the report says so.

    python benchmarks/bench_anchors.py --refs DIR [--pairs 5] [--only openmp,triad] [--quick]
    HYBRIDLAB_REFSUITES=DIR python benchmarks/bench_anchors.py

Writes benchmarks/anchors_results.md and anchors_results.json. Nothing is asserted: this is a
benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import hybridlab as hl
import p2p_osu
from _common import table
from _runner import Alternation, Bench, alternate, launch_reference, lscpu_summary
from hybridlab.memory import exercise as ex
from hybridlab.memory import tables as mt

GOAL = (0.95, 1.05)
SWEEP = (8, 1 << 20)
EPCC_LINE = re.compile(r"^(PARALLEL|FOR|BARRIER|REDUCTION) overhead\s*=\s*([-\d.]+) microseconds",
                       re.M)  # fmt: skip
STREAM_TRIAD = re.compile(r"^Triad:\s+([\d.]+)", re.M)
STREAM_SIZE = re.compile(r"Array size = (\d+)")
CONSTRUCTS = {"PARALLEL": "parallel", "FOR": "for", "BARRIER": "barrier", "REDUCTION": "reduction"}


@dataclass(frozen=True)
class Group:
    """Programs run as one pair: the kit's kernel and the suite's binary, each giving several
    figures (a value per figure name); `higher` is what a larger value means."""

    name: str
    binary: str
    suite: str
    unit: str
    higher: str


GROUPS = {
    "latency": Group("latency", "osu_latency", "OSU 7.4 osu_latency", "us", "slower"),
    "alltoall": Group("alltoall", "osu_alltoall", "OSU 7.4 osu_alltoall", "us", "slower"),
    "openmp": Group("openmp", "syncbench", "EPCC syncbench", "ns overhead", "slower"),
    "triad": Group("triad", "stream", "STREAM 5.10", "GB/s", "faster"),
}
FIGURES = {
    "latency": [f"latency {n}" for n in ("8 B", "1 KiB", "1 MiB")],
    "alltoall": [f"alltoall {n}" for n in ("8 B", "64 KiB", "1 MiB")],
    "openmp": [f"omp {c}, 2 threads" for c in CONSTRUCTS.values()],
    "triad": ["triad, 1 thread", "triad, 2 threads"],
}
SIZE_NAMES = {8: "8 B", 1024: "1 KiB", 65536: "64 KiB", 1 << 20: "1 MiB"}


def find_binaries(args: argparse.Namespace) -> dict[str, Path | None]:
    """Each group's reference binary: named by its option, else found under --refs."""
    found: dict[str, Path | None] = {}
    for name, group in GROUPS.items():
        named = getattr(args, group.binary)
        if named is None and args.refs is not None:
            hits = sorted(p for p in args.refs.rglob(group.binary)
                          if p.is_file() and os.access(p, os.X_OK))  # fmt: skip
            named = hits[0] if hits else None
        found[name] = named
    return found


def osu_figures(group: str, out: str) -> dict[str, float]:
    """OSU's `size latency` lines: the group's figures, us."""
    sizes = {int(s): float(v) for s, v, *_ in
             (line.split() for line in out.splitlines() if line and line[0].isdigit())}  # fmt: skip
    return {f"{group} {SIZE_NAMES[b]}": sizes[b] for b in SIZE_NAMES if
            f"{group} {SIZE_NAMES[b]}" in FIGURES[group]}  # fmt: skip


def kit_latency(quick: bool) -> dict[str, float]:
    counts = (
        {k: max(1, v // 100) for k, v in p2p_osu.OSU_COUNTS.items()}
        if quick
        else p2p_osu.OSU_COUNTS
    )
    res = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", mode="sweep",
                         min_bytes=SWEEP[0], max_bytes=SWEEP[1], samples=1, **counts)  # fmt: skip
    us = dict(zip(res.records["bytes"].astype(int), res.records["seconds"] * 1e6, strict=True))
    return {
        f: float(us[b])
        for b, n in SIZE_NAMES.items()
        if (f := f"latency {n}") in FIGURES["latency"]
    }


def kit_alltoall(quick: bool) -> dict[str, float]:
    counts = {"iterations": 10, "skip": 1, "iterations_large": 5, "skip_large": 1} if quick else {}
    res = hl.run_program("alltoall", ranks=2, threads=1, bind="cores", min_bytes=SWEEP[0],
                         max_bytes=SWEEP[1], **counts)  # fmt: skip
    osu = res.records.query("record == 'osu'")
    us = dict(zip(osu["bytes"].astype(int), osu["avg_us"].astype(float), strict=True))
    return {
        f: us[b] for b, n in SIZE_NAMES.items() if (f := f"alltoall {n}") in FIGURES["alltoall"]
    }


def kit_openmp(quick: bool) -> dict[str, float]:
    """EPCC's overhead from the kit's syncbench: mean seconds per repetition of each construct
    less the reference's (EPCC: 20 samples, 0.1 us delay, 1 ms target)."""
    res = hl.run_program("syncbench", ranks=1, threads=2, bind="cores", thread_level="funneled",
                         construct="reference," + ",".join(CONSTRUCTS.values()),
                         samples=5 if quick else 20, delay_ns=100,
                         target_ms=0.2 if quick else 1)  # fmt: skip
    mean = res.records.groupby("construct")["seconds"].mean()
    return {f"omp {c}, 2 threads": float(mean[c] - mean["reference"]) * 1e9
            for c in CONSTRUCTS.values()}  # fmt: skip


def epcc_openmp(binary: Path, quick: bool) -> dict[str, float]:
    argv = ["--outer-repetitions", "5", "--test-time", "200"] if quick else []
    out = launch_reference(binary, argv, ranks=1, threads=2)
    found = {CONSTRUCTS[name]: float(us) * 1e3 for name, us in EPCC_LINE.findall(out)}
    if set(found) != set(CONSTRUCTS.values()):
        raise SystemExit(f"{binary} printed no overhead line for "
                         f"{sorted(set(CONSTRUCTS.values()) - set(found))}: is it EPCC's syncbench?")  # fmt: skip
    return {f"omp {c}, 2 threads": v for c, v in found.items()}


def stream_triad(binary: Path, threads: int) -> tuple[float, int]:
    """STREAM's best triad rate (GB/s) and its array size."""
    out = launch_reference(binary, [], ranks=1, threads=threads)
    rate, size = STREAM_TRIAD.search(out), STREAM_SIZE.search(out)
    if not (rate and size):
        raise SystemExit(f"{binary} printed no 'Triad:' or 'Array size' line: is it STREAM?")
    return float(rate.group(1)) / 1e3, int(size.group(1))


def kit_triad(threads: int, n: int) -> float:
    res = ex.run_stream(threads, n=n, ntimes=10, kernels="triad")
    return float(mt.stream_table(res).iloc[0]["gb_s"])


def programs(group: str, binary: Path, quick: bool) -> dict[str, Callable[[], dict[str, float]]]:
    """The kit's side and the reference's side of a group, as alternate() runs them."""
    if group == "latency":
        args = ["-m", f"{SWEEP[0]}:{SWEEP[1]}"] + (["-i", "100", "-x", "1"] if quick else [])
        return {
            "kit": lambda: kit_latency(quick),
            "reference": lambda: osu_figures(group, launch_reference(binary, args, 2, 1)),
        }
    if group == "alltoall":
        args = ["-m", f"{SWEEP[0]}:{SWEEP[1]}"] + (["-i", "10", "-x", "1"] if quick else [])
        return {
            "kit": lambda: kit_alltoall(quick),
            "reference": lambda: osu_figures(group, launch_reference(binary, args, 2, 1)),
        }
    if group == "openmp":
        return {"kit": lambda: kit_openmp(quick), "reference": lambda: epcc_openmp(binary, quick)}
    n = stream_triad(binary, 1)[1]  # STREAM's array size is compiled in: the kit runs the same
    return {
        "kit": lambda: {f: kit_triad(t, n) for t, f in enumerate(FIGURES["triad"], start=1)},
        "reference": lambda: {f: stream_triad(binary, t)[0]
                              for t, f in enumerate(FIGURES["triad"], start=1)},
    }  # fmt: skip


def figure_rows(group: Group, measured: Alternation) -> list[list[object]]:
    rows = []
    for figure in FIGURES[group.name]:
        paired = measured.paired("kit", "reference", figure)
        ratio = statistics.median(paired)
        above = sum(r > 1 for r in paired)
        rows.append([figure, group.suite, f"{measured.median('kit', figure):.3f}",
                     f"{measured.median('reference', figure):.3f}", group.unit, f"{ratio:.3f}",
                     f"{min(paired):.3f} - {max(paired):.3f}", f"{above} of {len(paired)}",
                     "yes" if GOAL[0] <= ratio <= GOAL[1] else "**no**"])  # fmt: skip
    return rows


def options(parser: argparse.ArgumentParser) -> None:
    env = os.environ.get("HYBRIDLAB_REFSUITES")
    parser.add_argument(
        "--refs",
        type=Path,
        default=Path(env) if env else None,
        help="folder holding the suites' executables (env HYBRIDLAB_REFSUITES)",
    )
    for group in GROUPS.values():
        parser.add_argument(
            f"--{group.binary.replace('_', '-')}",
            dest=group.binary,
            type=Path,
            help=f"{group.suite} executable (else found under --refs)",
        )
    parser.add_argument("--pairs", type=int, default=5, help="kit/reference pairs per group")
    parser.add_argument("--only", default=",".join(GROUPS),
                        help=f"comma list of groups: {', '.join(GROUPS)}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    bench = Bench(
        "bench_anchors",
        __doc__,
        "anchors_results.md",
        argv,
        options=options,
        quick_help="one pair, OSU/EPCC/kit counts cut: checks the wiring, not a figure",
    )
    args = bench.args
    if args.refs is not None:  # the suites' folder is this machine's: the report names it DIR
        bench.named[str(args.refs)] = "DIR"
    only = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = sorted(set(only) - set(GROUPS))
    if unknown:
        raise SystemExit(
            f"--only: unknown group(s) {', '.join(unknown)} (known: {', '.join(GROUPS)})"
        )
    binaries = find_binaries(args)
    pairs = 1 if args.quick else args.pairs
    bench.checkpoint("start")
    rows, missing, data = [], [], {"pairs": pairs, "groups": {}}
    for name in only:
        group, binary = GROUPS[name], binaries[name]
        if binary is None:
            where = "under the --refs folder" if args.refs else "(no --refs folder given)"
            missing.append(f"- {name}: no `{group.binary}` ({group.suite}) found {where}")
            continue
        bench.say(f"{name}: kit beside {binary}")
        measured = alternate(pairs, programs(name, binary, args.quick), bench.say)
        rows += figure_rows(group, measured)
        data["groups"][name] = {"reference": group.suite, "runs": measured.runs,
                                "load_after_each_pair": measured.loads}  # fmt: skip
        bench.checkpoint(f"after {name}")
    lines = [
        f"Machine (lscpu): {lscpu_summary()}.",
        "",
        f"{pairs} pair(s) per group, kit and reference alternated (order swapped every pair), "
        "both launched by the kit's launcher with the same placement. Ratio: the median over "
        "the pairs of kit / reference within a pair; for times (us, ns) above 1 means the kit "
        "reads slower, for GB/s above 1 means the kit reads faster. Goal: "
        f"{GOAL[0]}-{GOAL[1]} of every anchor.",
        "",
        *table(
            [
                "figure",
                "reference",
                "kit",
                "reference",
                "unit",
                "kit / reference",
                "pairs range",
                "kit above in",
                f"within {GOAL[0]}-{GOAL[1]}",
            ],
            rows,
        ),  # fmt: skip
    ]
    if missing:
        lines += ["Left out (the suites are not part of the kit; see this script's help):", "",
                  *missing, ""]  # fmt: skip
    if args.quick:
        lines += ["**--quick: one pair with cut counts: these are not figures to compare.**", ""]
    if data["groups"]:
        lines += ["Load average (1, 5, 15 min) after each pair:", ""]
        lines += [f"- {g}: " + "; ".join(d["load_after_each_pair"])
                  for g, d in data["groups"].items()]  # fmt: skip
        lines += [""]
    return bench.report("The kit beside the public suites (anchors)", lines, data)


if __name__ == "__main__":
    sys.exit(main())
