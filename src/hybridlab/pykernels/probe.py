"""Where numba's threads run, read from inside a prange, and how much CPU time each thread of
this process used (/proc/self/task/*/schedstat). Linux only: elsewhere the readings are empty.

    rows = where_threads()          # one row per numba thread: thread, tid, cpu, allowed CPUs
    before = thread_cpu_seconds(); f(...); used = thread_cpu_seconds(before)

`python -m hybridlab.pykernels.probe` prints this process's numba report as JSON: the lab runs it
with NUMBA_THREADING_LAYER set to each layer, since a process can use only one.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
import time
from pathlib import Path

import numba
import numpy as np
from numba import prange

_libc = ctypes.CDLL(None, use_errno=True)
_sched_getcpu = getattr(_libc, "sched_getcpu", None)
_gettid = getattr(_libc, "gettid", None)
for _f in (_sched_getcpu, _gettid):
    if _f is not None:
        _f.restype, _f.argtypes = ctypes.c_int, ()
HAVE_CPU = _sched_getcpu is not None and _gettid is not None


if HAVE_CPU:
    # ctypes functions cannot be cached (their address changes): compiled at the first call, ~1 s

    @numba.njit(parallel=True)
    def _samples(n, spin):  # pragma: no cover - compiled by numba
        """Per iteration of a prange: numba's thread id, the kernel's thread id, the CPU."""
        out = np.empty((n, 3), dtype=np.int64)
        for k in prange(n):
            acc = 0.0
            for s in range(spin):  # some work, so that every thread of the pool takes a share
                acc += s * 1e-9
            out[k, 0] = numba.get_thread_id()
            out[k, 1] = _gettid()
            out[k, 2] = _sched_getcpu() + (acc < 0)
        return out


def where_threads(iterations_per_thread: int = 8, spin: int = 200_000) -> list[dict]:
    """One row per numba thread: its numba id, kernel thread id, the CPUs it was seen on (first
    one in `cpu`), and the CPUs its affinity mask allows (what the binding left it)."""
    if not HAVE_CPU:
        return []
    samples = _samples(iterations_per_thread * numba.get_num_threads(), spin)
    rows = []
    for thread in sorted(set(samples[:, 0].tolist())):
        mine = samples[samples[:, 0] == thread]
        tid = int(mine[0, 1])
        try:
            allowed = sorted(os.sched_getaffinity(tid))
        except OSError:  # the thread is gone (a pool that shrank)
            allowed = []
        rows.append(
            {
                "thread": int(thread),
                "tid": tid,
                "cpu": int(mine[0, 2]),
                "cpus_seen": sorted(set(mine[:, 2].tolist())),
                "allowed": allowed,
            }
        )
    return rows


def thread_cpu_seconds(since: dict[int, float] | None = None) -> dict[int, float]:
    """CPU seconds of every thread of this process (tid -> s), minus `since` when given."""
    now = {}
    for stat in Path("/proc/self/task").glob("*/schedstat"):
        try:
            now[int(stat.parent.name)] = int(stat.read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            continue
    if since is None:
        return now
    return {tid: s - since.get(tid, 0.0) for tid, s in now.items()}


@numba.njit(cache=True)
def _busy(n):  # pragma: no cover - compiled by numba
    acc = 0.0
    for k in range(n):
        acc += (k % 7) * 1e-9
    return acc


@numba.njit(cache=True, nogil=True)
def _busy_nogil(n):  # pragma: no cover - compiled by numba
    acc = 0.0
    for k in range(n):
        acc += (k % 7) * 1e-9
    return acc


def _counted(action) -> float:
    """Steps per second a second Python thread makes while this thread runs `action`: it can
    step only while this thread does not hold the GIL."""
    steps, stop = [0], threading.Event()

    def count() -> None:
        while not stop.is_set():
            steps[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.02)
    try:
        start, before = time.perf_counter(), steps[0]
        action()
        return (steps[0] - before) / (time.perf_counter() - start)
    finally:  # an action that raises must not leave the counter spinning in this process
        stop.set()
        counter.join()


def gil_rates(comm, seconds: float = 0.2) -> list[tuple[str, float]]:
    """On rank 0 (collective: every rank calls it): how fast a second Python thread counts
    while the rank's thread sleeps, waits in comm.Recv (rank 1 sends after `seconds`), runs a
    numba kernel, and runs the same kernel compiled with nogil=True. Other ranks return []."""
    n = 1_000_000
    _busy(10), _busy_nogil(10)  # compile (or load from the cache) first
    start = time.perf_counter()
    _busy(n)
    n = max(1000, int(n * seconds / max(time.perf_counter() - start, 1e-6)))
    buf = np.zeros(1)
    rank = comm.Get_rank()
    rates = []
    comm.Barrier()
    if rank == 0:
        rates.append(("time.sleep (releases the GIL)", _counted(lambda: time.sleep(seconds))))
        rates.append(("comm.Recv, waiting for rank 1", _counted(lambda: comm.Recv(buf, source=1))))
        rates.append(("numba kernel", _counted(lambda: _busy(n))))
        rates.append(("numba kernel, nogil=True", _counted(lambda: _busy_nogil(n))))
    elif rank == 1:
        time.sleep(seconds + 0.1)  # rank 0 is in its sleep, then waits in Recv
        comm.Send(buf, dest=0)
    comm.Barrier()
    return rates


def report() -> dict:
    """This process's numba: threading layer, pool size, the variables it read, thread rows."""
    # read before the pool starts: the omp layer binds the calling thread to a core
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    rows = where_threads()  # launches the pool: the layer is known from here on
    return {
        "pid": os.getpid(),
        "layer": numba.threading_layer(),
        "numba_threads": numba.get_num_threads(),
        "NUMBA_NUM_THREADS": os.environ.get("NUMBA_NUM_THREADS", ""),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", ""),
        "OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", ""),
        "OMP_PLACES": os.environ.get("OMP_PLACES", ""),
        "process_allowed": allowed,
        "threads": rows,
    }


def main() -> None:
    start = time.perf_counter()
    try:
        out = report()
    except (ValueError, RuntimeError, ImportError) as err:  # the layer is not installed
        out = {"layer": os.environ.get("NUMBA_THREADING_LAYER", ""), "error": str(err)}
    out["seconds"] = time.perf_counter() - start
    print(json.dumps(out))


if __name__ == "__main__":
    main()
