#!/usr/bin/env python
"""What the grading size costs: one lab's solution graded at "quick" and at "full", sandboxed,
from nothing each time (a fresh copy of the course folder, release, the solution's reference run
at that size, then the solution as the one submission), written to
benchmarks/grading_size_results.md. The figure to read is the ratio full / quick of the same lab
in the same run of this script (the machine's speed and load cancel out as far as they can);
the load average (1 min) before and after each grading is beside it, and the solution's
reference run (the part of grading that grows with the size: the submissions replay its kernel
runs) apart. Nothing is asserted.

    python benchmarks/bench_grading_size.py [--labs 02_synchronisation,04_halo_exchange,13_neighbourhood_collectives]
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from _common import table
from _runner import Bench
from hybridlab import grading

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LABS = "02_synchronisation,04_halo_exchange,13_neighbourhood_collectives"


def load() -> float:
    return os.getloadavg()[0]


def grade_once(lab: str, quick: bool) -> dict:
    """Release `lab` in a fresh course copy, submit its solution, grade it at one size."""
    root = Path(tempfile.mkdtemp(prefix=f"bench-size-{lab}-")) / "course"
    root.mkdir(parents=True)
    shutil.copy(REPO / "grading" / "nbgrader_config.py", root)
    shutil.copytree(REPO / "grading" / "source" / lab, root / "source" / lab)
    try:
        grading.release([lab], root=root, labs_dir=root / "labs")
        solution = nbformat.read(root / "source" / lab / f"{lab}.ipynb", as_version=4)
        folder = root / "submitted" / "solution" / lab
        folder.mkdir(parents=True)
        nbformat.write(solution, folder / f"{lab}.ipynb")
        before, start = load(), time.monotonic()
        grading.grade(lab, root=root, quick=quick, progress=False)
        seconds = time.monotonic() - start
        after = load()
        scores = grading.scores(grading.read_lab(root, lab))["solution"]
        (reference,) = json.loads((root / "reports" / "timings.json").read_text()).values()
        return {"seconds": seconds, "load": (before, after), "points": sum(scores.values()),
                "reference": reference["total"]}
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_grading_size", __doc__, "grading_size_results.md", argv, repeats=None,
                  options=lambda p: p.add_argument("--labs", default=LABS),
                  quick_help="lab 02 only", quick={"labs": "02_synchronisation"})  # fmt: skip
    args = bench.args
    bench.checkpoint("before")
    rows = []
    for lab in args.labs.split(","):
        quick = grade_once(lab, True)
        full = grade_once(lab, False)
        rows.append((lab, quick, full))
        print(lab, f"quick {quick['seconds']:.0f} s, full {full['seconds']:.0f} s", file=sys.stderr)
    rows = [
        [lab, f"{q['seconds']:.0f}", f"{f['seconds']:.0f}", f"{f['seconds'] / q['seconds']:.2f}",
         f"{q['reference']:.0f}, {f['reference']:.0f}", f"{q['points']:g}, {f['points']:g}",
         f"{q['load'][0]:.1f} / {q['load'][1]:.1f}; {f['load'][0]:.1f} / {f['load'][1]:.1f}"]
        for lab, q, f in rows
    ]  # fmt: skip
    header = ["lab", "quick s", "full s", "full / quick", "solution's reference run s (quick, full)",
              "points (quick, full)", "load before / after (quick; full)"]  # fmt: skip
    bench.checkpoint("after")
    return bench.report("Grading size: one lab's solution graded at quick and at full",
                        table(header, rows), what=__doc__.split("\n\n")[0].replace("\n", " "))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
