"""Run a kernel as a standalone program under mpiexec, from the notebook's own process.

For kernels that must own MPI_Init_thread (a thread level of their choosing), and to check that
the engines do not disturb what they measure. An adapter of runs.run (which returns the same
Results as Cluster.run): it only says how mpiexec invokes the ranks.
"""

from __future__ import annotations

import os
import subprocess
import uuid

from . import _reaper as reaper
from . import runs
from .build import Kernel
from .errors import KernelCrash, KernelError, KernelTimeout, failed_rank
from .placement import Placement
from .records import Results
from .topology import NO_MPIEXEC, MpiInfo, find_mpiexec, read_topology, venv_bin

OUTPUT_TAIL = 2000  # characters of stderr quoted in an error


def mpiexec_command(
    mpi: MpiInfo, kernel: Kernel, placement: Placement, argv: list[str]
) -> list[str]:
    """The mpiexec command line for a placement: flags, then the program's thread level."""
    assert mpi.mpiexec is not None
    cmd = [mpi.mpiexec, "-n", str(placement.ranks), *placement.launcher_args(mpi.implementation)]
    return cmd + [str(kernel.program), *placement.program_arguments(), *argv]


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
    placement = Placement(ranks, threads, bind, thread_level)
    topology = read_topology()
    placement.check_fits(len(topology.usable))
    kernel = runs.as_kernel(kernel)
    mpi = find_mpiexec()
    if mpi.mpiexec is None:
        raise KernelError(NO_MPIEXEC)

    def invoke(kernel: Kernel, argv: list[str]) -> runs.Output:
        cmd = mpiexec_command(mpi, kernel, placement, argv)
        full_env = dict(os.environ)
        full_env.update(placement.environment(mpi.implementation, len(topology.usable)))
        full_env.update(env or {})
        out = _mpiexec(cmd, full_env, kernel.name, timeout)
        return runs.Output(
            [(kernel.name, out)],
            {
                "command": " ".join(cmd),
                "omp_wait_policy": full_env.get("OMP_WAIT_POLICY", "default"),
            },
        )

    return runs.run(kernel, params, placement, topology, mpi, invoke, run_by="mpiexec")


def _mpiexec(cmd: list[str], env: dict[str, str], name: str, timeout: float) -> str:
    """Run mpiexec tagged for the reaper; its stdout, or the error naming the rank that died."""
    tag = f"program-{uuid.uuid4().hex[:12]}"
    env[reaper.TAG] = tag
    env[reaper.OWNER] = reaper.owner_stamp()  # reaped as an orphan if this process dies
    env["PATH"] = f"{venv_bin()}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        reaper.kill([reaper.psutil.Process(proc.pid)] + reaper.tagged(tag))
        proc.communicate()
        reaper.clean_files()
        raise KernelTimeout(
            f"{name} did not finish within {timeout:g} s (a deadlock or an endless loop?); "
            "its processes were killed"
        ) from expired
    finally:
        reaper.reap(tag)
    if proc.returncode != 0:
        rank, how = failed_rank(out + err)
        tail = (err or out)[-OUTPUT_TAIL:].strip()
        if rank is not None:
            raise KernelCrash(f"rank {rank} of {name} died ({how}):\n{tail}", rank)
        raise KernelError(f"{name} exited with status {proc.returncode}:\n{tail}")
    return out
