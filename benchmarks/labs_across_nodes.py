#!/usr/bin/env python
"""The labs with a "Beyond one node" section (00, 03, 04, 06, 07) run headless, in quick mode,
inside an allocation of the kit's own 2-node Slurm cluster (hybridlab.slurm.local_slurm), as a
trainer's JupyterLab started in `salloc -N 2` would run them; written to
benchmarks/labs_across_nodes.md.

Per lab: the outcome, the run time, and the nodes the section saw (a cell appended to the copy
that runs prints its NODES): 2 means its cells (those that ask for `allocation_nodes()`) took
their multi-node branch and ran it to the end; on one node they show the published data. The two "nodes" are
namespaces of this one machine (book/slurm.md): the figures are the kit's, not a network's.
Needs root, slurm-wlm, munge and bubblewrap (as `make test-multinode`). Nothing is asserted.

    python benchmarks/labs_across_nodes.py [--labs 00_getting_started,...]
    python benchmarks/labs_across_nodes.py --inside OUT.json LAB...   # the part run in salloc
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import nbformat

from _common import REPO, Progress, table
from _runner import Bench

LABS = ("00_getting_started", "03_point_to_point", "04_halo_exchange", "06_placement_topology",
        "07_collectives")  # fmt: skip
ALLOCATION = ["salloc", "-N", "2", "-n", "4", "-c", "1"]
LAB_SECONDS = 1500
NODES_SEEN = "HYBRIDLAB-NODES"  # printed by a cell appended to the copy that runs
say = Progress("labs_across_nodes")


def section_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The code cells of the lab's multi-node section: those asking for the allocation's nodes."""
    return [c for c in nb.cells if c.cell_type == "code" and "allocation_nodes()" in c.source]


def with_nodes_cell(source: Path) -> Path:
    """A copy of the notebook beside it (same folder: the lab's files) whose last cell prints the
    nodes its section saw: NODES >= 2 there means the section took its multi-node branch."""
    nb = nbformat.read(source, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(f'print("{NODES_SEEN}", NODES)'))
    copy = source.with_name(f".{source.stem}-across-nodes.ipynb")
    nbformat.write(nb, copy)
    return copy


def inside(out: Path, labs: list[str]) -> None:
    """Run each lab's instructor notebook in quick mode here, in the allocation."""
    from hybridlab.course import notebooks
    from hybridlab.machine.launcher import allocation_nodes
    from hybridlab.runs import own_runs

    seen = {"allocation_nodes": allocation_nodes(), "labs": {}}
    for lab in labs:
        folder = Path(os.environ["LABS_OUT"]) / lab
        copy = with_nodes_cell(REPO / "grading" / "source" / lab / f"{lab}.ipynb")
        start = time.monotonic()
        try:
            executed, _ = notebooks.run_notebook(copy, folder, quick=True, timeout=LAB_SECONDS)
            outcome, nb = "ok", nbformat.read(executed, as_version=4)
        except Exception as err:  # noqa: BLE001 - recorded for the report, the next lab runs
            outcome, nb = f"failed: {str(err).splitlines()[-1][:300]}", None
        finally:
            copy.unlink(missing_ok=True)
            shutil.rmtree(own_runs.runs_folder(copy), ignore_errors=True)
        last = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", [])) if nb else ""
        seen["labs"][lab] = {
            "outcome": outcome,
            "seconds": time.monotonic() - start,
            "section_cells": len(section_cells(nb)) if nb else 0,
            "nodes_seen": last.split()[-1] if last.startswith(NODES_SEEN) else "?",
        }
        say(f"{lab}: {outcome} in {seen['labs'][lab]['seconds']:.0f} s")
    out.write_text(json.dumps(seen, indent=1))


def report(seen: dict) -> list[str]:
    rows = [[lab, r["outcome"], f"{r['seconds']:.0f}", r["section_cells"], r["nodes_seen"]]
            for lab, r in seen["labs"].items()]  # fmt: skip
    return [
        f"Each lab's instructor notebook run headless in quick mode inside `{' '.join(ALLOCATION)}`"
        " on the kit's own 2-node cluster (two namespaces of this machine: TCP through the host's"
        " own network stack between them, not an interconnect). *Nodes seen*: the section's NODES"
        " (2: its multi-node branch ran; 1: it showed the published data instead).",
        "",
        f"- nodes in the allocation, as the notebooks saw it: {seen['allocation_nodes']}",
        "",
        *table(["lab", "outcome", "seconds", "section cells", "nodes seen"], rows),
    ]


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--labs", default=",".join(LABS), help="the labs, comma-separated")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)  # run in the allocation
    parser.add_argument("lab", nargs="*", help=argparse.SUPPRESS)


def main(argv: list[str] | None = None) -> int:
    bench = Bench("labs_across_nodes", __doc__, "labs_across_nodes.md", argv, repeats=None,
                  options=options, quick_help="lab 00 only", quick={"labs": LABS[0]},
                  progress=say)  # fmt: skip
    args = bench.args
    if args.inside:
        inside(args.inside, args.lab)
        return 0
    labs = args.labs.split(",")
    unknown = sorted(set(labs) - set(LABS))
    if unknown:
        sys.exit(f"labs_across_nodes: no 'Beyond one node' section in {', '.join(unknown)}")
    bench.checkpoint("before")
    with bench.two_nodes() as slurm:
        labs_out = {"LABS_OUT": str(slurm.scratch / "labs")}
        seen = bench.inside(slurm, ALLOCATION, labs, timeout=LAB_SECONDS * len(labs), env=labs_out)
    bench.checkpoint("after")
    return bench.report("The multi-node sections live on a 2-node Slurm cluster", report(seen),
                        what=__doc__.split("\n\n")[0].replace("\n", " "))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
