"""Run a kit kernel under SimGrid SMPI (smpirun) and read its records like a real run's.

    res = simulate("halo3d", ranks=256, platform="xt6", nx=..., dims="32x4x2")

The records' times are simulated seconds on the platform. They are marked `simulated` and carry
no cpu, numa or host (those would describe this laptop, not the simulated machine). The memory
the simulation took is measured as PSS (proportional set size, shared pages counted once): RSS
counts each folded array once per rank. What SMPI cannot simulate is refused with
SimulationError: threads inside a rank, a thread level above MPI_THREAD_SINGLE.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psutil

from .. import progress
from ..errors import KernelError, KernelTimeout
from ..runs import replay
from ..runs.records import Results, parse_lines
from .build import build_simulated, simulated_flags, tool
from .platforms import Platform, hostfile, named, platform_xml

SIMULABLE = ("halo2d", "halo3d", "pingpong", "alltoall")
# variants whose ranks run OpenMP threads (and need a thread level above SINGLE)
THREADED = {"halo3d": ("masteronly", "funnelled", "multiple"),
            "halo2d": ("hybrid1", "hybrid2", "hybrid3")}  # fmt: skip
SPEED = 1e9  # flop/s of a simulated core and of this machine (smpi/host-speed): computation
# is charged at this machine's own speed
SHARED_FROM = 1 << 20  # bytes: smpi/auto-shared-malloc-thresh
LARGE_P = 256  # above: sends never detached (--cfg=smpi/send-is-detached-thresh:0)
HOST_FIELDS = ("cpu", "numa", "host")


class SimulationError(ValueError):
    """A kernel, variant or setting SimGrid SMPI cannot simulate."""


def check_simulable(kernel: str, threads: int, thread_level: str, params: dict) -> None:
    """SimulationError naming why, when SMPI cannot run this (threads inside a rank: SMPI
    charges only the calling thread and crashed on them; levels above SINGLE: SMPI provides
    only MPI_THREAD_SINGLE)."""
    if kernel not in SIMULABLE:
        raise SimulationError(
            f"kernel {kernel!r} cannot be simulated here (simulated: {', '.join(SIMULABLE)})"
        )
    variant = str(params.get("variant", ""))
    if threads != 1 or variant in THREADED.get(kernel, ()):
        raise SimulationError(
            f"{kernel} {variant or ''} with {threads} thread(s) per rank cannot be simulated: "
            "SimGrid SMPI runs no threads inside a simulated rank (they crash it, or an OpenMP "
            "loop shows a perfect speedup). Model hybrid instead: P/T ranks with T-times "
            "larger subdomains, the threads' compute measured on this machine (lab 14)."
        )
    if thread_level != "single":
        raise SimulationError(
            f"thread_level={thread_level!r} cannot be simulated: SimGrid SMPI provides only "
            "MPI_THREAD_SINGLE (use thread_level='single' and one thread per rank)"
        )


def smpi_options(kernel: str, ranks: int, platform: Platform, network_only: bool) -> list[str]:
    """The --cfg options the kit's kernels need under SMPI (see the lab 14 book page)."""
    eager = 0 if ranks > LARGE_P else int(platform.eager_limit.number)
    options = {
        "smpi/host-speed": f"{SPEED:.0f}f",
        "smpi/simulate-computation": "no" if network_only else "yes",
        # fold every block of 1 MiB or more (the grids) onto pages the ranks share: the
        # records are allocated past SMPI's malloc (hl_runtime.h), so none is lost
        "smpi/shared-malloc": "local",
        "smpi/auto-shared-malloc-thresh": str(SHARED_FROM),
        "smpi/send-is-detached-thresh": str(eager),
        # the platform's alpha and beta as given, without SMPI's calibration of another cluster
        "smpi/bw-factor": "0:1",
        "smpi/lat-factor": "0:1",
    }
    if platform.pack.number > 0:  # size:offset:factor, seconds per byte of every send
        options["smpi/ois"] = f"0:0:{platform.pack.number:.6g}"
    if kernel == "alltoall":
        options["smpi/alltoall"] = "pair"  # the default did not finish 64 ranks in 10 minutes
    return [f"--cfg={k}:{v}" for k, v in options.items()]


def simulate(
    kernel: str,
    ranks: int = 256,
    platform: str | Platform = "xt6",
    *,
    ranks_per_node: int | None = None,
    threads: int = 1,
    thread_level: str = "single",
    network_only: bool = True,
    timeout: float = 600.0,
    **params,
) -> Results:
    """Simulate `kernel` on `ranks` ranks of `platform` ('xt4', 'xt6' or a Platform), placed
    ranks_per_node a node (default: one per core). network_only=True: computation takes no
    simulated time (halo3d skips its stencil). Records as a real run's, marked simulated."""
    check_simulable(kernel, threads, thread_level, params)
    chosen = named(platform) if isinstance(platform, str) else platform
    per_node = ranks_per_node or int(chosen.cores.number)
    if not 1 <= per_node <= chosen.cores.number:
        raise ValueError(f"ranks_per_node={per_node} must be 1 to {chosen.cores.number:.0f}")
    program = build_simulated(kernel, network_only)
    options = smpi_options(kernel, ranks, chosen, network_only)
    nodes = -(-ranks // per_node)
    xml_text, hosts_text = platform_xml(chosen, nodes, SPEED), hostfile(ranks, per_node)
    args = [*options, "--thread-level=single", *(f"{k}={_format(v)}" for k, v in params.items())]
    identity = replay.simulation_identity(kernel, simulated_flags(network_only),
                                          ["-np", str(ranks), hosts_text, *args], xml_text)  # fmt: skip
    # grading gives back the reference run's simulation (replay.py); a student's notebook
    # always simulates (its runs folder keeps kernel runs only)
    recorded, record_to = replay.take(identity) if replay.setting() else (None, None)
    with tempfile.TemporaryDirectory(prefix="hl-smpi-") as tmp:
        xml, hosts = Path(tmp) / "platform.xml", Path(tmp) / "hosts"
        xml.write_text(xml_text)
        hosts.write_text(hosts_text)
        cmd = [tool("smpirun"), "-np", str(ranks), "-platform", str(xml), "-hostfile", str(hosts),
               *options, "--log=root.thres:warning", str(program),
               "--thread-level=single", *(f"{k}={_format(v)}" for k, v in params.items())]  # fmt: skip
        what = f"simulate {kernel} ({ranks} ranks on {chosen.name}, {per_node} a node)"
        if recorded is not None:
            out, kept = recorded["texts"][0][1], recorded["meta"]
            wall, pss = kept["wall_seconds"], kept["pss_peak_bytes"]
        else:
            with progress.running(what):
                out, _, wall, pss = _run(cmd, timeout, what, cwd=tmp)
            if record_to is not None:
                replay.record(record_to, identity, [("smpirun", out)],
                              {"wall_seconds": wall, "pss_peak_bytes": pss}, wall, [])  # fmt: skip
    rows, described = parse_lines(out, f"{kernel} (simulated)")
    rows = [{**{k: v for k, v in r.items() if k not in HOST_FIELDS}, "simulated": True}
            for r in rows]  # fmt: skip
    described = [{k: r[k] for k in ("rank", "size", "thread_level") if k in r} for r in described]
    meta = {
        "kernel": kernel,
        "params": params,
        "simulated": True,
        "platform": chosen.name,
        "platform_values": chosen.table().reset_index().to_dict(orient="records"),
        "ranks_per_node": per_node,
        "nodes": nodes,
        "network_only": network_only,
        "smpi_options": options,
        "command": " ".join(cmd),
        "wall_seconds": wall,
        "pss_peak_bytes": pss,
    }
    if recorded is not None:
        meta["replayed"] = recorded["from"]
    warnings = [f"{chosen.name}: assumed values (no source gives them): "
                f"{', '.join(chosen.assumed_values())}"] if chosen.assumed_values() else []  # fmt: skip
    if recorded is not None:
        warnings.append(replay.WARNING)
    res = Results.from_rows(rows, described, meta, warnings)
    res.records = res.records.drop(columns=[c for c in HOST_FIELDS if c in res.records])
    return res


def _format(value: object) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else str(value)


def _run(cmd: list[str], timeout: float, what: str, cwd: str) -> tuple[str, str, float, int]:
    """Run smpirun in `cwd` (it leaves its temporary host files in its working directory);
    (stdout, stderr, wall seconds, peak PSS bytes of its processes). A failure
    raises KernelError with SMPI's and the kernel's messages; a run past `timeout`
    KernelTimeout."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, cwd=cwd,
                                start_new_session=True)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _pss(proc.pid))
            progress.show(f"{what} ... {time.monotonic() - start:.0f} s")
            if time.monotonic() - start > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise KernelTimeout(f"{what}: no end after {timeout:.0f} s (stopped)")
            time.sleep(0.25)
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        said = "\n".join(line for line in stderr.splitlines() if line.strip())[-2000:]
        raise KernelError(f"{what} failed (exit {proc.returncode}):\n{said}")
    return stdout, stderr, time.monotonic() - start, peak


def _pss(pid: int) -> int:
    """PSS bytes of process `pid` and its children (0 for those already gone)."""
    total = 0
    try:
        procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_full_info().pss
        except psutil.Error:
            pass
    return total
