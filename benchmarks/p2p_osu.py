"""The kit's ping-pong beside a minimal OSU-style loop (benchmarks/osu_style_latency.c), in the
same run: bench_p2p.py's side-by-side.

Both programs are launched by the same mpiexec with the same placement (2 ranks x 1 thread,
bind=cores), alternately (the kit first in odd repeats, the reference first in even ones), each
over the same doubling sweep of sizes with OSU's counts (10000 timed and 100 warm-up round trips
up to 8 KiB, 1000 and 10 above). The kit runs pingpong.c mode=sweep as OSU measures (each rank
sends from a buffer of its own) and, as a third program, with echo=1 (rank 1 sends back the
buffer it has just received): the difference that made the kit 1.24x osu_latency at 1 MiB.
The reference is written here with none of the kit's code, so the ratio kit / reference checks
the kit's method, not one implementation against itself.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import hybridlab as hl
from _runner import launch_reference, reference_command
from hybridlab.kernels.build import mpicc

HERE = Path(__file__).resolve().parent
REFERENCE_SOURCE = HERE / "osu_style_latency.c"
SIZES = (8, 1024, 1 << 20)  # the three the side-by-side reports
SWEEP = (8, 1 << 20)  # min and max of the doubling sweep both programs run
PLACEMENT = (2, 1, "cores")
OSU_COUNTS = {"iterations": 10000, "skip": 100, "iterations_large": 1000, "skip_large": 10}
PROGRAMS = ("kit", "reference", "kit echo=1")


def compile_reference(folder: Path) -> Path:
    """osu_style_latency.c built with the kit's mpicc and -O2 (the kit's optimisation)."""
    binary = folder / "osu_style_latency"
    subprocess.run([mpicc(), "-O2", str(REFERENCE_SOURCE), "-o", str(binary)], check=True)
    return binary


def run_reference(binary: Path) -> tuple[dict[int, float], str]:
    """One reference run: {bytes: half round trip in seconds}, and its command line."""
    counts = [str(OSU_COUNTS[k]) for k in ("iterations", "skip", "iterations_large", "skip_large")]
    argv = [str(SWEEP[0]), str(SWEEP[1]), *counts]
    out = launch_reference(binary, argv, *PLACEMENT, timeout=300)
    seconds = {int(b): float(us) * 1e-6 for b, us in (line.split() for line in out.splitlines())}
    return seconds, " ".join(reference_command(binary, argv, *PLACEMENT))


def run_kit(echo: int) -> tuple[dict[int, float], str]:
    """One run of pingpong.c mode=sweep, one sample per size: {bytes: seconds}, its command."""
    res = hl.run_program(
        "pingpong",
        ranks=PLACEMENT[0],
        threads=PLACEMENT[1],
        bind=PLACEMENT[2],
        mode="sweep",
        min_bytes=SWEEP[0],
        max_bytes=SWEEP[1],
        samples=1,
        echo=echo,
        **OSU_COUNTS,
    )
    rec = res.records
    seconds = dict(zip(rec["bytes"].astype(int), rec["seconds"].astype(float), strict=True))
    return seconds, res.meta["command"]


def side_by_side(repeats: int, say) -> dict:
    """`repeats` alternating runs of the three programs; every figure, the load average beside
    each repeat and the commands."""
    runs = {p: [] for p in PROGRAMS}
    loads, commands = [], {}
    with tempfile.TemporaryDirectory(prefix="osu-style-") as tmp:
        binary = compile_reference(Path(tmp))
        for repeat in range(repeats):
            order = list(PROGRAMS) if repeat % 2 == 0 else list(reversed(PROGRAMS))
            for program in order:
                say(f"side-by-side {repeat + 1}/{repeats}: {program}")
                if program == "reference":
                    seconds, commands[program] = run_reference(binary)
                else:
                    seconds, commands[program] = run_kit(1 if "echo" in program else 0)
                runs[program].append({str(b): seconds[b] for b in SIZES})
            loads.append(round(os.getloadavg()[0], 2))
    return {"runs": runs, "loadavg_1min": loads, "commands": commands, "repeats": repeats}


def rows(data: dict) -> list[dict]:
    """Per size: each program's median half round trip (us) and the ratios to the reference."""
    out = []
    for size in SIZES:
        med = {p: statistics.median(r[str(size)] for r in data["runs"][p]) for p in PROGRAMS}
        paired = [
            k[str(size)] / r[str(size)]
            for k, r in zip(data["runs"]["kit"], data["runs"]["reference"], strict=True)
        ]
        out.append(
            {
                "bytes": size,
                "kit_us": med["kit"] * 1e6,
                "reference_us": med["reference"] * 1e6,
                "echo_us": med["kit echo=1"] * 1e6,
                "ratio": med["kit"] / med["reference"],
                "paired_min": min(paired),
                "paired_max": max(paired),
                "echo_ratio": med["kit echo=1"] / med["reference"],
            }
        )
    return out


def markdown(data: dict, scrub) -> list[str]:
    """The side-by-side section of p2p_results.md."""
    lines = [
        "## Beside an OSU-style reference loop (same run)",
        "",
        "The kit's `pingpong.c` (mode=sweep) and `benchmarks/osu_style_latency.c`, a minimal copy",
        "of `osu_latency`'s loop written without the kit's code (separate send and receive",
        "buffers on both ranks, a barrier per size, MPI_Wtime), launched by the same mpiexec with",
        f"the same placement, {data['repeats']} alternating repeats, one sample per size and run,",
        "OSU's counts (10000 + 100 warm-up round trips up to 8 KiB, 1000 + 10 above). `kit echo=1`",
        "is the kit with rank 1 sending back the buffer it has just received (its lines dirty in",
        "its own cache), the kit's default before issue 20. Medians over the repeats; the paired",
        "range is kit / reference within each repeat.",
        "",
        "| size | kit (us) | reference (us) | kit / reference | paired range | kit echo=1 (us) "
        "| echo=1 / reference |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows(data):
        lines.append(
            f"| {r['bytes']} B | {r['kit_us']:.3f} | {r['reference_us']:.3f} | "
            f"{r['ratio']:.3f} | {r['paired_min']:.2f} .. {r['paired_max']:.2f} | "
            f"{r['echo_us']:.3f} | {r['echo_ratio']:.3f} |"
        )
    loads = ", ".join(f"{v:g}" for v in data["loadavg_1min"])
    lines += [
        "",
        f"Load average (1 min) after each repeat: {loads} on {os.cpu_count()} CPUs. This",
        "machine is shared: unless those figures are near 0, the ratios above are not",
        "quiet-machine figures, and the within-5 % check (issue 20) needs a rerun on a quiet",
        "machine (`make bench-p2p`).",
        "",
        "Commands (the last repeat's):",
        "",
    ]
    lines += [f"- {p}: `{scrub(c)}`" for p, c in data["commands"].items()]
    return lines + [""]
