"""Lab 09's numba Jacobi: halo2d.c's 2-D Jacobi with `prange` over the rows of a rank, the halo
rows exchanged by mpi4py's buffer methods (numpy arrays, no pickles), delta by Allreduce.

Importing this module points numba's cache at the kit's folder (paths.numba_cache_dir) unless
NUMBA_CACHE_DIR is set already, so `cache=True` kernels compile once per machine.

    from hybridlab.pykernels.jacobi import sweep, jacobi_rank
    delta = sweep(u, new)                   # one sweep on a block with its halo rows
    out = jacobi_rank(MPI.COMM_WORLD, nx=256, ny=256, iterations=100)   # in every rank
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np
from numba import prange

from ..halo.serial import initial2d
from ..paths import numba_cache_dir


def use_kit_cache() -> str:
    """Set NUMBA_CACHE_DIR to the kit's folder unless the user chose one; returns the folder."""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir()))
    if numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:
        numba.config.reload_config()
    return numba.config.CACHE_DIR


use_kit_cache()  # before the first @njit(cache=True) below: the cache locator is chosen then

TAG_DOWN, TAG_UP = 1, 2  # as halo2d.c: a message travelling to rank + 1, to rank - 1


@numba.njit(parallel=True, cache=True)
def sweep(u, new):  # pragma: no cover - compiled by numba
    """new = the 4-neighbour mean of u on rows 1..m (added in halo2d's order); returns the sum of
    the squared changes. The rows are shared by numba's threads (prange)."""
    m, nx = u.shape[0] - 2, u.shape[1] - 2
    delta = 0.0
    for i in prange(1, m + 1):
        for j in range(1, nx + 1):
            v = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
            d = v - u[i, j]
            delta += d * d
            new[i, j] = v
    return delta


def block_rows(ny: int, ranks: int, rank: int) -> tuple[int, int]:
    """(first interior row, rows) of `rank`: the first ny mod P ranks get one row more."""
    base, extra = divmod(ny, ranks)
    rows = base + (rank < extra)
    return 1 + rank * base + min(rank, extra), rows


def exchange(comm, u: np.ndarray, up: int, down: int) -> None:
    """The last own row to `down` into our top halo from `up`, then the first own row to `up`
    into our bottom halo from `down` (halo2d's send_down, send_up); MPI.PROC_NULL at the edges."""
    m = u.shape[0] - 2
    comm.Sendrecv(u[m, 1:-1], down, TAG_DOWN, u[0, 1:-1], up, TAG_DOWN)
    comm.Sendrecv(u[1, 1:-1], up, TAG_UP, u[m + 1, 1:-1], down, TAG_UP)


def jacobi_rank(comm, nx: int, ny: int, iterations: int, gather: bool = False) -> dict:
    """Run the Jacobi on this rank's rows (called in every rank at once). Returns the phase
    seconds (jacobi, halo, reduction, total), the JIT seconds of the first call, the checksum and
    last delta (rank 0), and with gather=True the whole final grid's interior (rank 0)."""
    from mpi4py import MPI

    rank, ranks = comm.Get_rank(), comm.Get_size()
    first, m = block_rows(ny, ranks, rank)
    u = initial2d(nx, ny, first - 1, m + 2)  # own rows and the two halo rows
    new = u.copy()  # the boundary columns and rows are in both arrays
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < ranks - 1 else MPI.PROC_NULL
    start = time.perf_counter()
    sweep(np.zeros((3, 3)), np.zeros((3, 3)))  # compile, or load from the cache
    jit = time.perf_counter() - start
    seconds = {"jacobi": 0.0, "halo": 0.0, "reduction": 0.0}
    local, delta = np.zeros(1), np.zeros(1)
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(iterations):
        t0 = time.perf_counter()
        local[0] = sweep(u, new)
        u, new = new, u
        t1 = time.perf_counter()
        exchange(comm, u, up, down)
        t2 = time.perf_counter()
        comm.Allreduce(local, delta, op=MPI.SUM)
        seconds["jacobi"] += t1 - t0
        seconds["halo"] += t2 - t1
        seconds["reduction"] += time.perf_counter() - t2
    seconds["total"] = time.perf_counter() - start
    mine, total = np.array([u[1:-1, 1:-1].sum()]), np.zeros(1)
    comm.Reduce(mine, total, op=MPI.SUM, root=0)
    out = {"rank": rank, "seconds": seconds, "jit_s": jit, "rows": m, "delta": float(delta[0])}
    out["checksum"] = float(total[0]) if rank == 0 else None
    if gather:
        counts = comm.gather(m * nx, root=0)  # a few integers: pickled is fine here
        grid = np.empty((ny, nx)) if rank == 0 else None
        interior = np.ascontiguousarray(u[1:-1, 1:-1])
        comm.Gatherv(interior, (grid, counts) if rank == 0 else None, root=0)
        out["grid"] = grid
    return out
