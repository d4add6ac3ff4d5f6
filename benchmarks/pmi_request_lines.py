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
`make test-multinode`). Nothing is written.

    python benchmarks/pmi_request_lines.py [--runs 10]
    UCX_TLS=tcp,sysv,posix,self python benchmarks/pmi_request_lines.py --runs 3
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs at each size (default 10)")
    args = parser.parse_args()
    from hybridlab.slurm.local_slurm import started, why_slurm_cannot_run

    why = why_slurm_cannot_run(nodes=2)
    if why:
        sys.exit(f"pmi_request_lines: cannot start the 2-node cluster here: {why}")
    with started(2, prefix="hybridlab-pmi-lines-", slurmd_debug="debug3") as slurm:
        done = slurm.run(
            ["salloc", "-N", "2", "-n", "2", "-c", "2", sys.executable, "-c", RUNS, str(args.runs)],
            timeout=3600, check=False, cwd=REPO,
            env={**slurm.env, "HYBRIDLAB_LAUNCHER": "srun"},
        )  # fmt: skip
        print(done.stdout + done.stderr[-3000:])
        logs = [p.read_text(errors="replace") for p in (slurm.scratch / "log").glob("slurmd-*.log")]
        lines = [m[1] for log in logs for m in REQUEST.finditer(log)]
    # what slurmd read: a whole line and its newline, or the first READ_BYTES of a longer one
    lengths = sorted(len(line) + 1 for line in lines)
    cut = [n for n in lengths if n > READ_BYTES]
    print(f"{len(lines)} put requests logged; the longest read (bytes, newline included): "
          f"{lengths[-5:]}; cut at {READ_BYTES}: {len(cut)}; slurmd's `{CUT}`: "
          f"{sum(log.count(CUT) for log in logs)}")  # fmt: skip


if __name__ == "__main__":
    main()
