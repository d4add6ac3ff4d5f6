#!/usr/bin/env python
"""How long the PMI-1 requests are that MPICH's ranks send to Slurm's pmi2 plugin at MPI_Init
across two nodes under `srun --mpi=pmi2`, against the 1024 bytes the plugin reads per request:
why MPI_Init across nodes failed under srun (book/slurm.md, "The MPI's network path").

Starts the kit's 2-node Slurm cluster (hybridlab.slurm.local_slurm) with slurmd logging at debug3,
which logs each request; inside `salloc -N 2` runs the ping-pong program across the nodes at 8 B
and 1 MiB, --runs times each, under srun (HYBRIDLAB_LAUNCHER=srun, as the kit ran them before it
took MPICH's mpiexec across nodes); prints the runs that failed and the longest `put` request
lines. A line of 1024 bytes or more (with its newline) is cut by the plugin's single read: the
run fails with `mpi/pmi2: value not properly terminated`, or hangs in MPI_Init. The ranks
inherit this environment: with UCX_TLS=tcp,sysv,posix,self the 8 B runs sent lines over 1024
bytes here and failed every time. Needs root, slurm-wlm, munge and bubblewrap (as
`make test-multinode`). Written to benchmarks/pmi_request_lines.md (and printed).

    python benchmarks/pmi_request_lines.py [--runs 10]
    UCX_TLS=tcp,sysv,posix,self python benchmarks/pmi_request_lines.py --runs 3
"""

from __future__ import annotations

import os
import re
import sys

from _common import REPO, scrub_paths
from _runner import Bench

READ_BYTES = 1024  # Slurm's src/plugins/mpi/pmi2/pmi1.c: one read() of at most this per request
REQUEST = re.compile(r"got client request: (cmd=put .*)")
CUT = "mpi/pmi2: value not properly terminated"
RUNS = """
import sys
import hybridlab as hl
for run in range(int(sys.argv[1])):
    for size in (8, 1 << 20):
        try:
            hl.run_program("pingpong", ranks=2, bind="cores", nodes=2, mode="sweep", min_bytes=size,
                           max_bytes=size, iterations=20, skip=2, iterations_large=10,
                           skip_large=1, samples=1, timeout=120)
            print(f"run {run}, {size} B: ran")
        except hl.KernelError as err:
            print(f"run {run}, {size} B: FAILED: {str(err)[-300:]}")
"""


def main(argv: list[str] | None = None) -> int:
    bench = Bench("pmi_request_lines", __doc__, "pmi_request_lines.md", argv, repeats=None,
                  options=lambda p: p.add_argument("--runs", type=int, default=10,
                                                   help="runs at each size (default 10)"),
                  quick_help="1 run at each size", quick={"runs": 1})  # fmt: skip
    bench.checkpoint("before")
    allocation = ["salloc", "-N", "2", "-n", "2", "-c", "2"]
    with bench.two_nodes(slurmd_debug="debug3") as slurm:
        bench.say(f"{bench.args.runs} runs at each size inside `{' '.join(allocation)}`, under srun")
        done = slurm.run([*allocation, sys.executable, "-c", RUNS, str(bench.args.runs)],
                         timeout=3600, check=False, cwd=REPO,
                         env={**slurm.env, "HYBRIDLAB_LAUNCHER": "srun"})  # fmt: skip
        logs = [p.read_text(errors="replace") for p in (slurm.scratch / "log").glob("slurmd-*.log")]
    bench.checkpoint("after")
    runs = scrub_paths(done.stdout.strip()).splitlines()
    lines = [m[1] for log in logs for m in REQUEST.finditer(log)]
    # what slurmd read: a whole line and its newline, or the first READ_BYTES of a longer one
    lengths = sorted(len(line) + 1 for line in lines)
    cut = [n for n in lengths if n > READ_BYTES]
    found = (f"{len(lines)} put requests logged; the longest read (bytes, newline included): "
             f"{lengths[-5:]}; cut at {READ_BYTES}: {len(cut)}; slurmd's `{CUT}`: "
             f"{sum(log.count(CUT) for log in logs)}")  # fmt: skip
    print("\n".join([*runs, done.stderr[-3000:], found]))
    ucx = f"UCX_TLS={os.environ['UCX_TLS']}" if "UCX_TLS" in os.environ else "UCX_TLS unset"
    return bench.report(
        "PMI-1 request lines across two nodes under srun --mpi=pmi2",
        [f"The ping-pong at 8 B and 1 MiB, {bench.args.runs} runs each, in `{' '.join(allocation)}`"
         f" under srun (HYBRIDLAB_LAUNCHER=srun), {ucx}:", "", *[f"- {r}" for r in runs], "",
         found + ".", ""],
        what=__doc__.split("\n\n")[0].replace("\n", " "),
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
