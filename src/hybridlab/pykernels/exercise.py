"""The runs of lab 09 (the only module of the topic that runs things): the numba Jacobi and the
thread probe in the engines (kept and given back like kernel runs: Cluster.kept_apply), numba's
JIT timed in this process, one short process per threading layer, and the checks of the
student's numba kernel (right answer, more than one thread).

    from hybridlab.pykernels.exercise import numba_jacobi, check_sweep, thread_work
    res = numba_jacobi(cluster, nx=256, ny=256, iterations=50)    # Results, like cluster.run
    check_sweep(my_sweep, sizes=[(7, 5), (33, 17)])                # AssertionError if it differs
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numba
import numpy as np
import pandas as pd

from .. import progress
from ..halo.serial import initial2d, initial3d, jacobi2d_grid, jacobi3d_grid
from ..machine.placement import Placement
from ..machine.topology import find_mpiexec, read_topology
from ..runs import run_path
from ..runs.records import Results
from . import jacobi, probe
from .tables import numba_records, thread_rows

LAYERS = ("omp", "workqueue", "tbb")


def _jacobi_in_engine(nx: int, ny: int, iterations: int, gather: bool) -> dict:
    from mpi4py import MPI

    from hybridlab.pykernels.jacobi import jacobi_rank

    out = jacobi_rank(MPI.COMM_WORLD, nx, ny, iterations, gather)
    if out.get("grid") is not None:
        out["grid"] = out["grid"].tolist()  # a JSON value, as kept_apply keeps it
    return out


def _report_in_engine() -> dict:
    from mpi4py import MPI

    from hybridlab.pykernels.probe import report

    out = report()
    out["rank"] = MPI.COMM_WORLD.Get_rank()
    out["mpi_thread_level"] = MPI.Query_thread()
    return out


def _gil_in_engine(seconds: float) -> list:
    from mpi4py import MPI

    from hybridlab.pykernels.probe import gil_rates

    return gil_rates(MPI.COMM_WORLD, seconds)


def gil_table(cluster, seconds: float = 0.2) -> pd.DataFrame:
    """How fast a second Python thread of rank 0 counts while rank 0's own thread sleeps, waits
    in MPI, or runs numba kernels with and without nogil (needs 2 ranks or more)."""
    if cluster.placement.ranks < 2:
        raise ValueError("the GIL probe needs a cluster of at least 2 ranks (rank 1 sends)")
    rates = cluster.kept_apply(_gil_in_engine, seconds)[0]
    frame = pd.DataFrame(rates, columns=["rank 0's thread is in", "steps/s"])
    frame["share of sleep"] = frame["steps/s"] / frame["steps/s"].iloc[0]
    return frame


def numba_jacobi(cluster, nx: int, ny: int, iterations: int, gather: bool = False) -> Results:
    """The numba Jacobi in every engine of `cluster`: timer records as halo2d's (variant
    'numba', thread 0 = the rank's Python thread); meta holds the checksum, last delta, the JIT
    seconds of each rank and, with gather=True, the final interior."""
    outs = cluster.kept_apply(_jacobi_in_engine, nx, ny, iterations, gather)
    p = cluster.placement
    frame = numba_records(outs, p.ranks, p.threads)
    meta = {
        "checksum": outs[0]["checksum"],
        "delta": outs[0]["delta"],
        "jit_s": [o["jit_s"] for o in outs],
        "grid": None if outs[0].get("grid") is None else np.array(outs[0]["grid"]),
        "nx": nx,
        "ny": ny,
        "iterations": iterations,
    }
    return Results(frame, meta)


def engine_threads(cluster) -> tuple[pd.DataFrame, list[dict]]:
    """Where numba's threads ran in every engine: one row per (rank, thread) with its CPU and
    the CPUs its affinity allows, and the engines' reports (layer, pool size, variables)."""
    reports = cluster.kept_apply(_report_in_engine)
    return thread_rows(reports), reports


PROBE = "hybridlab.pykernels.probe"


def _probe_layer(env: dict[str, str], layer: str, threads: int, timeout: float) -> dict:
    """The numba report of a new Python process running threading layer `layer`."""
    with progress.running(f"threading layer {layer} in a new process ({threads} threads)"):
        done = subprocess.run(
            [sys.executable, "-m", PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}


def layer_reports(
    threads: int = 2, bind: str = "cores", layers: tuple[str, ...] = LAYERS, timeout: float = 120
) -> tuple[pd.DataFrame, list[dict]]:
    """One short Python process per threading layer (a process can load only one), with the
    OpenMP placement of Placement(1, threads, bind) and NUMBA_NUM_THREADS = threads."""
    topo = read_topology()
    placement = Placement(1, threads, bind)
    steering = placement.engine_environment(find_mpiexec().implementation, len(topo.usable))
    env = {**os.environ, **steering}
    reports = []
    for layer in layers:
        env["NUMBA_THREADING_LAYER"] = layer
        # kept like a kernel run: graded on the student's own runs of it
        out = json.loads(run_path.kept_output(
            PROBE, [layer], placement, steering,
            lambda layer=layer: json.dumps(_probe_layer(env, layer, threads, timeout)),
        ))  # fmt: skip
        out["layer"] = layer
        out["rank"] = 0
        reports.append(out)
    return thread_rows(reports), reports


def jit_times(nx: int = 32) -> pd.DataFrame:
    """Seconds of numba's JIT in this process: the module's kernel at its first and second call,
    a fresh compile without the cache, and a fresh dispatcher loading from the cache."""
    u = initial2d(nx, nx)
    new = u.copy()
    rows = []

    def timed(step: str, func) -> None:
        start = time.perf_counter()
        func(u, new)
        seconds = time.perf_counter() - start
        stats = func.stats
        rows.append(
            {
                "step": step,
                "seconds": seconds,
                "cache_hits": sum(stats.cache_hits.values()),
                "cache_misses": sum(stats.cache_misses.values()),
                "cache_path": stats.cache_path,
            }
        )

    timed("first call (cache or compile)", jacobi.sweep)
    timed("second call (compiled)", jacobi.sweep)
    timed("compile, no cache", numba.njit(parallel=True)(jacobi.sweep.py_func))
    timed("load from the cache", numba.njit(parallel=True, cache=True)(jacobi.sweep.py_func))
    return pd.DataFrame(rows)


def _grid(size: tuple[int, ...]) -> np.ndarray:
    """halo2d's start grid for (nx, ny) ([row, column]), halo3d's for (nx, ny, nz) ([i, j, k])."""
    return initial2d(*size) if len(size) == 2 else initial3d(*size)


def _reference(size: tuple[int, ...], iterations: int) -> tuple[np.ndarray, float]:
    return jacobi2d_grid(*size, iterations) if len(size) == 2 else jacobi3d_grid(*size, iterations)


def check_sweep(
    func,
    sizes=((5, 4, 3), (13, 11, 7), (64, 3, 2), (1, 9, 1)),
    iterations: int = 6,
    rtol: float = 1e-12,
) -> list[dict]:
    """Apply func(u, new) -> delta `iterations` times to each grid, (nx, ny) 2-D or (nx, ny, nz)
    3-D, swapping u and new, and compare the grid and the last delta with the numpy reference
    (halo.serial). Raises AssertionError naming the first size that differs (relative
    tolerance rtol: another order of additions changes the last bits)."""
    rows = []
    for size in sizes:
        u = _grid(size)
        new = u.copy()
        delta = None
        for _ in range(iterations):
            delta = func(u, new)
            u, new = new, u
        want, want_delta = _reference(size, iterations)
        # plain Python on copies: nothing the student's code patched decides the comparison
        got_values = np.array(u, dtype=float).ravel().tolist()
        want_values = want.ravel().tolist()
        worst = max(
            abs(g - w) / max(abs(w), 1e-300) for g, w in zip(got_values, want_values, strict=True)
        )
        name = " x ".join(map(str, size))
        got_delta = float(delta) if delta is not None else float("nan")
        rows.append({"size": name, "max_rel_error": worst, "delta": got_delta})
        assert got_delta == got_delta and abs(got_delta) != float("inf"), (
            f"{name}: no delta returned"
        )
        assert worst <= rtol, (
            f"{name}, {iterations} iterations: the grid differs from the reference by "
            f"{worst:.3g} (relative); new must hold the mean of u's neighbours"
        )
        assert abs(got_delta - want_delta) <= 1e-9 * abs(want_delta) + 1e-300, (
            f"{name}: delta {got_delta!r}, expected {want_delta!r} (the sum of the squared "
            "changes of the last sweep)"
        )
    return rows


def thread_work(func, size: tuple[int, ...] = (1024, 1024), seconds: float = 0.3) -> pd.DataFrame:
    """CPU seconds each thread of this process spent while func(u, new) ran for about `seconds`
    on a grid of `size` (after one call that compiles it): one row per thread that used any,
    busiest first, with its share of the busiest thread's time."""
    u = _grid(size)
    new = u.copy()
    func(u, new)
    time.sleep(0.05)  # threads that spin after a parallel region settle first
    before = probe.thread_cpu_seconds()
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < seconds or calls < 3:
        func(u, new)
        calls += 1
    used = probe.thread_cpu_seconds(before)
    frame = pd.DataFrame({"tid": list(used), "cpu_s": list(used.values())})
    frame = frame[frame["cpu_s"] > 0].sort_values("cpu_s", ascending=False)
    top = frame["cpu_s"].max() if len(frame) else 0.0
    frame["share"] = frame["cpu_s"] / top if top > 0 else 0.0
    frame.attrs.update(calls=calls, numba_threads=numba.get_num_threads())
    return frame.reset_index(drop=True)


def working_threads(work: pd.DataFrame, share: float = 0.25) -> int:
    """Threads that did at least `share` of the busiest thread's work (from thread_work)."""
    return int((work["share"] >= share).sum())
