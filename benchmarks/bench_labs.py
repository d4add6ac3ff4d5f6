#!/usr/bin/env python
"""Full-size run time of every lab: each instructor notebook (the solution) executed headless at
full problem sizes, as a student's complete run of the lab, written to benchmarks/labs_results.md.

Each lab runs once in its own `hybridlab run` process (no --quick), in lab order; the wall
time is the whole notebook from the first cell to the last, cluster starts included. The
1-minute load average and the processes of others busy beside it are recorded before and after
each lab: on a shared machine a figure is an upper bound of what the lab takes alone. This is
the machine's share of a lab's duration; the book's planning page adds the student's reading,
coding and writing time. Nothing is asserted: this is a benchmark, not a test.

    python benchmarks/bench_labs.py [--labs 00,03] [--quick] [--out benchmarks/labs_results.md]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import other_load, table
from _runner import Bench

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SOURCE = REPO / "grading" / "source"
HYBRIDLAB = Path(sys.executable).parent / "hybridlab"


def labs(chosen: str | None) -> list[Path]:
    notebooks = sorted(SOURCE.glob("*/*.ipynb"))
    if chosen:
        wanted = {c.strip() for c in chosen.split(",")}
        notebooks = [nb for nb in notebooks if nb.stem[:2] in wanted or nb.stem in wanted]
    return notebooks


def run_lab(notebook: Path, quick: bool, timeout: float) -> dict:
    """One headless run of the notebook; wall time, outcome and the load around it."""
    before = other_load(f"before {notebook.stem}")
    with tempfile.TemporaryDirectory(prefix="bench-lab-") as out:
        command = [str(HYBRIDLAB), "run", str(notebook), "--out", out, "--timeout", "3600"]
        env = dict(os.environ, IPP_NONINTERACTIVE="1")
        env.pop("HYBRIDLAB_QUICK", None)
        if quick:
            command.append("--quick")
        start = time.monotonic()
        try:
            proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
            outcome = "ok" if proc.returncode == 0 else f"failed ({proc.returncode})"
            tail = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)[-400:]  # no colours
        except subprocess.TimeoutExpired:
            outcome, tail = f"stopped after {timeout:.0f} s", ""
        seconds = time.monotonic() - start
    after = other_load(f"after {notebook.stem}")
    print(f"{notebook.stem}: {seconds:.0f} s, {outcome}", file=sys.stderr, flush=True)
    return {"lab": notebook.stem, "seconds": seconds, "outcome": outcome, "tail": tail,
            "load": (before["loadavg_1min"], after["loadavg_1min"]),
            "busy": len(before["busy_others"]) + len(after["busy_others"])}  # fmt: skip


def report(results: list[dict], quick: bool) -> list[str]:
    mode = "quick (`--quick`)" if quick else "full size"
    lines = [
        f"Each instructor notebook (the solution) run headless, {mode}, one lab at a time, with "
        "`hybridlab run <notebook>`: the machine's share of a lab, from the first cell to the "
        "last. The load average (1 min, on "
        f"{os.cpu_count()} CPUs) is taken before and after each lab; where it is above the "
        "CPU count, or other processes were busy, the figure is an **upper bound** of the lab "
        "alone. Regenerate with `python benchmarks/bench_labs.py`.",
        "",
    ]
    rows = [[r["lab"], f"{r['seconds'] / 60:.1f}", f"{r['seconds']:.0f}", r["outcome"],
             f"{r['load'][0]:g} / {r['load'][1]:g}",
             "yes" if r["busy"] or max(r["load"]) > (os.cpu_count() or 1) else "no"]
            for r in results]  # fmt: skip
    lines += table(["lab", "minutes", "seconds", "outcome", "load before / after",
                    "upper bound (a busy machine)"], rows)  # fmt: skip
    total = sum(r["seconds"] for r in results)
    lines += ["", f"These labs: {total / 60:.0f} minutes of machine time. A failed lab's time is "
              "until it stopped: a lower bound.", ""]
    failed = [r for r in results if r["outcome"] != "ok"]
    for r in failed:
        lines += [f"- {r['lab']} {r['outcome']}: `{' '.join(r['tail'].split())[-300:]}`"]
    return lines + ([""] if failed else [])


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_labs", __doc__, "labs_results.md", argv, repeats=None, options=options,
                  quick_help="quick sizes (a check of the script)")  # fmt: skip
    args = bench.args
    results = []
    for notebook in labs(args.labs):  # the report is rewritten after each lab: a run cut short
        results.append(run_lab(notebook, args.quick, args.timeout))  # keeps what it measured
        bench.report("Labs: the run time of every lab", report(results, args.quick))
    return 0 if all(r["outcome"] == "ok" for r in results) else 1


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--labs", help="comma list of lab numbers or names (default: all)")
    parser.add_argument("--timeout", type=float, default=7200, help="seconds per lab at most")


if __name__ == "__main__":
    sys.exit(main())
