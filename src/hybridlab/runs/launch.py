"""Run a kernel as a standalone program under mpiexec (or srun), from the notebook's process.

For kernels that must own MPI_Init_thread (a thread level of their choosing), and to check that
the engines do not disturb what they measure. An adapter of run_path.run (which returns the same
Results as Cluster.run): it only says how the launcher (launcher.py) invokes the ranks.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import KernelCrash, KernelError, KernelTimeout, failed_node, failed_rank, on_node
from ..kernels.build import Kernel
from ..machine import launcher, reaper
from ..machine.placement import Placement
from ..machine.topology import read_topology
from ..paths import cache_root, venv_bin
from . import run_path
from .records import Results

OUTPUT_TAIL = 2000  # characters of stderr quoted in an error
KEY_FILE = "HL_RECORD_KEY_FILE"  # where the kit's tracer reads the run's key (kernels_c/hl_trace.c)
STREAM = "HL_TRACE_STREAM"  # the folder the tracer writes each rank's calls to as they end


def failure_text(out: str, err: str) -> str:
    """What a failed run said: its standard error, then what it printed to standard output that
    is not a record (a reason printed before MPI_Abort lands there), each cut to OUTPUT_TAIL."""
    said = [line for line in out.splitlines()
            if line.strip() and not line.lstrip().startswith(("{", "@hl "))]  # fmt: skip
    parts = [err[-OUTPUT_TAIL:].strip(), "\n".join(said)[-OUTPUT_TAIL:].strip()]
    return "\n".join(p for p in parts if p) or "(it printed nothing)"


@contextlib.contextmanager
def record_key() -> Iterator[tuple[str, dict[str, str]]]:
    """A fresh key for one run's records and the environment that hands it to the kit's tracer:
    a file only this user reads, in the cache (which every node of a run sees), named by
    HL_RECORD_KEY_FILE and removed after the run. A student's unit cannot open files (no
    fopen or open passes hybridlab.kernels.unit_checks), so it cannot learn the key and frame a line."""
    folder = cache_root() / "keys"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = secrets.token_hex(16)
    fd, path = tempfile.mkstemp(dir=folder)
    try:
        os.write(fd, key.encode())
        os.close(fd)
        yield key, {KEY_FILE: path}
    finally:
        Path(path).unlink(missing_ok=True)


@contextlib.contextmanager
def trace_stream(
    folder: Path | None = None,
) -> Iterator[tuple[dict[str, str], Callable[[], list[tuple[str, str]]]]]:
    """Where a traced run's ranks write each MPI call and piece of computing the moment it ends
    (kernels_c/hl_trace.c: stream-RANK.jsonl, framed like the records): `folder`, else a fresh
    folder of the kit's cache (every node of a run sees it) removed after the run; the
    environment that names it and a reader of the streams, [(file name, text)] in rank order."""
    made = folder is None
    if made:
        streams = cache_root() / "streams"
        streams.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder = Path(tempfile.mkdtemp(dir=streams))

    def read() -> list[tuple[str, str]]:
        files = sorted(folder.glob("stream-*.jsonl"), key=lambda p: int(p.stem.split("-")[1]))
        return [(p.name, p.read_text(errors="replace")) for p in files]

    try:
        yield {STREAM: str(folder)}, read
    finally:
        if made:
            shutil.rmtree(folder, ignore_errors=True)


def program_command(
    chosen: launcher.Launcher, kernel: Kernel, placement: Placement, argv: list[str]
) -> list[str]:
    """The launcher's command line for a placement: flags, then the program's thread level."""
    return chosen.command(placement, [str(kernel.program), *placement.program_arguments(), *argv])


def run_program(
    kernel: str | Kernel,
    ranks: int = 2,
    threads: int = 1,
    bind: str = "none",
    *,
    thread_level: str | None = None,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
    nodes: int = 1,
    **params,
) -> Results:
    """`mpiexec -n ranks program name=value...` (srun in a Slurm allocation, over `nodes` of
    its nodes: ranks/nodes on each); parse its JSON lines into Results."""
    placement = Placement(ranks, threads, bind, thread_level, nodes)
    topology = read_topology()
    placement.check_fits(len(topology.usable))
    kernel = run_path.as_kernel(kernel)
    chosen = launcher.choose(nodes)
    mpi = chosen.mpi

    def invoke(kernel: Kernel, argv: list[str]) -> run_path.Output:
        cmd = program_command(chosen, kernel, placement, argv)
        full_env = chosen.environment(
            {**placement.environment(mpi.implementation, len(topology.usable)), **(env or {})}
        )
        with record_key() as (key, key_env), trace_stream() as (stream_env, streams):
            full_env.update({**key_env, **stream_env})
            out = launch(cmd, full_env, kernel.name, timeout, placement.nodes > 1, chosen.kind)
            texts = [(kernel.name, out), *streams()]
        return run_path.Output(
            texts,
            {
                "command": " ".join(cmd),
                "launcher": chosen.kind,
                "omp_wait_policy": full_env.get("OMP_WAIT_POLICY", "default"),
                run_path.RECORD_KEY: key,
            },
        )

    return run_path.run(kernel, params, placement, topology, mpi, invoke, run_by=chosen.kind, env=env)


def launch(
    cmd: list[str], env: dict[str, str], name: str, timeout: float, spans_nodes: bool,
    chosen_kind: str,
) -> str:  # fmt: skip
    """Run the launcher (mpiexec or srun) tagged for the reaper; its stdout, or the error naming
    the rank that died (and its node, when that tells something)."""
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
        launched = reaper.psutil.Process(proc.pid)
        doing = reaper.describe([launched] + reaper.tagged(tag))
        reaper.end_steps([launched])  # srun (mpiexec's too): the ranks on other nodes
        reaper.kill([launched] + reaper.tagged(tag))
        proc.communicate()
        reaper.clean_files()
        if chosen_kind == "srun" or spans_nodes:
            launcher.clean_nodes()
        raise KernelTimeout(
            f"{name} did not finish within {timeout:g} s (a deadlock or an endless loop?); "
            f"its processes were killed. They were: {doing}"
        ) from expired
    finally:
        reaper.reap(tag)
    if proc.returncode != 0:
        rank, how = failed_rank(out + err)
        node = failed_node(out + err)
        tail = failure_text(out, err)
        if chosen_kind == "srun" or spans_nodes:
            launcher.clean_nodes()  # what the killed ranks left on every node
        if rank is not None:
            died = f"rank {rank} of {name} died{on_node(node, spans_nodes)} ({how})"
            raise KernelCrash(f"{died}:\n{tail}", rank, node)
        raise KernelError(f"{name} exited with status {proc.returncode}:\n{tail}")
    return out
