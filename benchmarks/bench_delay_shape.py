#!/usr/bin/env python
"""The busy delay's shape and the `omp parallel` overhead: the kit's `hl_delay` as it is now, the
kit's delay before 2026-12-03 (a `long` counter) and a delay of EPCC syncbench's shape (an `int`
counter in its own unit at -O3), each sized to 100 ns by its own reference loop and timed in
2-thread regions, interleaved sample by sample in one process (delay_shape.c), so every shape
sees the same machine. The overhead is the median time per region less the median reference
repetition, EPCC's way. Written to benchmarks/delay_shape_results.md; nothing is asserted.

    python benchmarks/bench_delay_shape.py [--repeats 5] [--samples 300]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO, table
from _runner import Bench
from hybridlab.kernels import c_text

HERE = Path(__file__).resolve().parent
THREADS_ENV = {"OMP_NUM_THREADS": "2", "OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}


def kit_delay() -> str:
    """The kit's hl_delay definition, from `hl_delay(` to its closing brace."""
    header = (REPO / "kernels_c" / "hybridlab.h").read_text()
    for name, start, end in c_text.functions(header):
        if name == "hl_delay":
            return header[start : end + 1]
    raise SystemExit("kernels_c/hybridlab.h defines no hl_delay")


def build(folder: Path) -> Path:
    """delay_shape.c with the kit's delay pasted in (-O2, the kit's flags) and the EPCC-shaped
    delay in its own unit at -O3."""
    source = (HERE / "delay_shape.c").read_text().replace("void KIT_DELAY", "void " + kit_delay())
    (folder / "main.c").write_text(source)
    epcc = folder / "epcc.o"
    subprocess.run(["cc", "-O3", "-c", str(HERE / "delay_shape_epcc.c"), "-o", str(epcc)],
                   check=True)  # fmt: skip
    program = folder / "delay_shape"
    subprocess.run(["cc", "-std=gnu11", "-O2", "-fopenmp", "-fPIC", str(folder / "main.c"),
                    str(epcc), "-o", str(program)], check=True)  # fmt: skip
    return program


def run_once(program: Path, samples: int) -> dict[str, tuple[int, float, float, float]]:
    """shape -> (iterations, reference ns, region ns, overhead ns)."""
    out = subprocess.run([str(program), str(samples)], check=True, capture_output=True,
                         text=True, env={**os.environ, **THREADS_ENV}).stdout  # fmt: skip
    shapes = {}
    for line in out.splitlines():
        name, length, ref, par, over = line.split("\t")
        shapes[name] = (int(length), float(ref), float(par), float(over))
    return shapes


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_delay_shape", __doc__, "delay_shape_results.md", argv, repeats=5,
                  options=lambda p: p.add_argument("--samples", type=int, default=300),
                  quick={"repeats": 1, "samples": 20})  # fmt: skip
    args = bench.args
    bench.checkpoint("before")
    with tempfile.TemporaryDirectory(prefix="hybridlab-delay-shape-") as tmp:
        program = build(Path(tmp))
        runs = []
        for i in range(args.repeats):
            bench.say(f"run {i + 1} of {args.repeats}")
            runs.append(run_once(program, args.samples))
    bench.checkpoint("after")
    epcc = "EPCC's shape"
    rows = []
    for name in runs[0]:
        over = [r[name][3] for r in runs]
        gap = [r[name][3] - r[epcc][3] for r in runs]
        ratio = [r[name][3] / r[epcc][3] for r in runs]
        rows.append([name, " / ".join(str(r[name][0]) for r in runs),
                     " / ".join(f"{v:.1f}" for v in over),
                     " / ".join(f"{v:+.1f}" for v in gap),
                     f"{statistics.median(ratio):.3f}"])  # fmt: skip
    lines = [f"{args.repeats} run(s) of {args.samples} samples of 1000 regions each, 2 threads "
             "(OMP_PLACES=cores, OMP_PROC_BIND=close), shapes interleaved sample by sample.", "",
             *table(["delay", "iterations for 100 ns, by run", "overhead ns, by run",
                     "minus EPCC's shape, ns", "median ratio to EPCC's shape"], rows)]  # fmt: skip
    data = {"runs": [{k: dict(zip(("iterations", "reference_ns", "region_ns", "overhead_ns"), v,
                                  strict=True)) for k, v in r.items()} for r in runs]}  # fmt: skip
    return bench.report("The busy delay's shape and the omp parallel overhead", lines, data,
                        what=__doc__.split("\n\n")[0].replace("\n", " "))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
