"""Run a kernel as a standalone program under mpiexec, from the notebook's own process.

For kernels that must own MPI_Init_thread (a thread level of their choosing), and to check that
the engines do not disturb what they measure. Returns the same Results as Cluster.run.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid

from . import reaper
from .build import Kernel, build
from .errors import KernelCrash, KernelError, KernelTimeout, failed_rank
from .metadata import make_results
from .placement import Placement
from .probe import probe
from .records import Results, parse_lines
from .topology import mpi_info, read_topology, venv_bin

OUTPUT_TAIL = 2000  # characters of stderr quoted in an error


def mpiexec_command(kernel: Kernel, placement: Placement, argv: list[str]) -> tuple[list[str], str]:
    """The mpiexec command line for a placement, and the MPI implementation it uses."""
    local = venv_bin() / "mpiexec"
    mpi = mpi_info(str(local) if local.exists() else None)
    if mpi.mpiexec is None:
        raise KernelError("no mpiexec found: run `make setup` (it installs MPICH)")
    cmd = [mpi.mpiexec, "-n", str(placement.ranks)]
    cmd += placement.launcher_args(mpi.implementation) + [str(kernel.program), *argv]
    return cmd, mpi.implementation


def run_program(
    kernel: str | Kernel,
    ranks: int = 2,
    threads: int = 1,
    bind: str = "none",
    *,
    thread_level: str | None = None,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
    **params,
) -> Results:
    """`mpiexec -n ranks program name=value...`; parse its JSON lines into Results."""
    placement = Placement(ranks, threads, bind)
    if thread_level is not None:
        Placement.check_thread_level(thread_level)
    topology = read_topology()
    placement.check_fits(len(topology.usable))
    kernel = build(kernel) if isinstance(kernel, str) else kernel
    argv = kernel.arguments(params)
    if thread_level is not None:
        argv.insert(0, f"--thread-level={thread_level}")
    cmd, implementation = mpiexec_command(kernel, placement, argv)
    tag = f"program-{uuid.uuid4().hex[:12]}"
    full_env = dict(os.environ)
    full_env.update(placement.environment(implementation, len(topology.usable)))
    full_env.update(env or {})
    full_env[reaper.TAG] = tag
    full_env["PATH"] = f"{venv_bin()}{os.pathsep}{full_env.get('PATH', '')}"
    before = probe(topology.usable)
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        reaper.kill([reaper.psutil.Process(proc.pid)] + reaper.tagged(tag))
        proc.communicate()
        reaper.clean_files()
        raise KernelTimeout(
            f"{kernel.name} did not finish within {timeout:g} s (a deadlock or an endless loop?); "
            "its processes were killed"
        ) from expired
    finally:
        reaper.reap(tag)
    seconds = time.monotonic() - start
    after = probe(topology.usable)
    if proc.returncode != 0:
        rank, how = failed_rank(out + err)
        tail = (err or out)[-OUTPUT_TAIL:].strip()
        if rank is not None:
            raise KernelCrash(f"rank {rank} of {kernel.name} died ({how}):\n{tail}", rank)
        raise KernelError(f"{kernel.name} exited with status {proc.returncode}:\n{tail}")
    rows, ranks_meta = parse_lines(out, kernel.name)
    return make_results(
        kernel,
        params,
        placement,
        topology,
        mpi_info(cmd[0]),
        rows,
        ranks_meta,
        (before, after),
        run_by="mpiexec",
        command=" ".join(cmd),
        seconds=round(seconds, 4),
        omp_wait_policy=full_env.get("OMP_WAIT_POLICY", "default"),
    )
