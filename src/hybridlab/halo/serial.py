"""Serial numpy references for the halo kernels (halo2d.c, halo3d.c), and grid checks.

The kernels start from a formula and apply a fixed update, so the answer of every variant and
every P x T is the answer of one serial sweep here: the lab and the tests compare checksums.

    from hybridlab.halo.serial import jacobi2d, check_grid
    check_grid(nx=64, ny=64, ranks=4)          # raises ValueError before anything is launched
    checksum, delta = jacobi2d(64, 64, iterations=10)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

VARIANTS_2D = ("pure", "hybrid1", "hybrid2", "hybrid3")
VARIANTS_3D = ("pure", "masteronly", "funnelled", "multiple")
SCHEDULES = ("static", "dynamic", "guided")
THREAD_LEVEL_2D = {"pure": None, "hybrid1": None, "hybrid2": "serialized", "hybrid3": "multiple"}
THREAD_LEVEL_3D = {"pure": None, "masteronly": None, "funnelled": None, "multiple": "multiple"}


def initial2d(nx: int, ny: int, first: int = 0, count: int | None = None) -> np.ndarray:
    """u0(i, j) = ((7 i + 13 j) mod 17) / 16 on the (ny+2) x (nx+2) grid, boundary included;
    only rows first .. first+count-1 when count is given (one rank's block with its halos)."""
    i = np.arange(first, ny + 2 if count is None else first + count)[:, None]
    j = np.arange(nx + 2)[None, :]
    return ((7 * i + 13 * j) % 17) / 16.0


def block_rows(ny: int, ranks: int) -> list[tuple[int, int]]:
    """(first global row, rows) of each rank's block, as hl_grid2d.h splits the ny rows: the
    first ny mod ranks ranks get one row more."""
    base, extra = divmod(ny, ranks)
    blocks, first = [], 1
    for rank in range(ranks):
        rows = base + (rank < extra)
        blocks.append((first, rows))
        first += rows
    return blocks


def start_part(secret: int, rows: Sequence[int] | np.ndarray,
               cols: Sequence[int] | np.ndarray) -> np.ndarray:  # fmt: skip
    """halo2d.c's start_part on global rows x columns: the splitmix64 finaliser of
    secret ^ (i << 32) ^ j, shifted right by 44, over 2^20 (a whole number of 2^-20 below 1)."""
    i = np.asarray(rows, dtype=np.uint64)[:, None]
    j = np.asarray(cols, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):
        z = (np.uint64(secret) ^ (i << np.uint64(32)) ^ j) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(44)).astype(np.float64) / float(1 << 20)


def drawn_start2d(nx: int, ny: int, secrets: Sequence[int]) -> np.ndarray:
    """The start of halo2d's variant student (lab 04 (a)) with one secret per rank: the formula
    (initial2d), plus on each rank's block of interior points (block_rows) the part its secret
    draws (start_part); exact in doubles."""
    u = initial2d(nx, ny)
    cols = np.arange(1, nx + 1)
    for secret, (first, rows) in zip(secrets, block_rows(ny, len(secrets)), strict=True):
        u[first:first + rows, 1:nx + 1] += start_part(secret, np.arange(first, first + rows), cols)
    return u


def jacobi2d_grid(nx: int, ny: int, iterations: int,
                  start: np.ndarray | None = None) -> tuple[np.ndarray, float]:  # fmt: skip
    """The whole grid after `iterations` sweeps (boundary included) and the last delta, from the
    formula or from `start` ((ny+2) x (nx+2), boundary included: drawn_start2d)."""
    u = initial2d(nx, ny) if start is None else np.array(start, dtype=np.float64)
    delta = 0.0
    for _ in range(iterations):
        new = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        change = new - u[1:-1, 1:-1]
        delta = float(np.sum(change * change))
        u[1:-1, 1:-1] = new
    return u, delta


def jacobi2d(nx: int, ny: int, iterations: int,
             start: np.ndarray | None = None) -> tuple[float, float]:  # fmt: skip
    """(sum of the interior after the last iteration, delta of the last iteration), as halo2d
    (from `start` when given: jacobi2d_grid)."""
    u, delta = jacobi2d_grid(nx, ny, iterations, start)
    return float(u[1:-1, 1:-1].sum()), delta


def initial3d(nx: int, ny: int, nz: int) -> np.ndarray:
    """u0(i, j, k) = ((7 i + 13 j + 19 k) mod 23) / 22, indexed [i, j, k], boundary included."""
    i = np.arange(nx + 2)[:, None, None]
    j = np.arange(ny + 2)[None, :, None]
    k = np.arange(nz + 2)[None, None, :]
    return ((7 * i + 13 * j + 19 * k) % 23) / 22.0


def jacobi3d(nx: int, ny: int, nz: int, iterations: int) -> tuple[float, float]:
    """(interior sum after the last iteration, last delta) of the 7-point Jacobi, as halo3d."""
    u, delta = jacobi3d_grid(nx, ny, nz, iterations)
    return float(u[(slice(1, -1),) * 3].sum()), delta


def jacobi3d_grid(nx: int, ny: int, nz: int, iterations: int) -> tuple[np.ndarray, float]:
    """The whole [i, j, k] grid after `iterations` 7-point sweeps, and the last delta."""
    u = initial3d(nx, ny, nz)
    c = (slice(1, -1),) * 3
    delta = 0.0
    for _ in range(iterations):
        new = (
            u[:-2, 1:-1, 1:-1]
            + u[2:, 1:-1, 1:-1]
            + u[1:-1, :-2, 1:-1]
            + u[1:-1, 2:, 1:-1]
            + u[1:-1, 1:-1, :-2]
            + u[1:-1, 1:-1, 2:]
        ) / 6.0
        change = new - u[c]
        delta = float(np.sum(change * change))
        u[c] = new
    return u, delta


def _whole(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be a whole number of at least {least}, not {value!r}")
    return int(value)


def check_grid(
    nx: int, ny: int, ranks: int, variant: str = "pure", schedule: str = "static"
) -> None:
    """Raise ValueError, before launch, when halo2d cannot run (each rank needs a row)."""
    nx, ny, ranks = _whole("nx", nx, 1), _whole("ny", ny, 1), _whole("ranks", ranks, 1)
    if variant not in VARIANTS_2D:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS_2D)}, not {variant!r}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}")
    if ranks > ny:
        raise ValueError(
            f"grid too small: ny={ny} rows cannot be split over {ranks} ranks (each rank needs "
            f"at least one row); use ny >= {ranks} or at most {ny} ranks"
        )
    if nx * ny > 400_000_000:
        raise ValueError(f"grid nx={nx} x ny={ny} is too large (at most 4e8 points)")


def process_grid(ranks: int) -> tuple[int, int, int]:
    """MPI_Dims_create(ranks, 3): the most even 3-D factorisation, largest first."""
    ranks = _whole("ranks", ranks, 1)
    best: tuple[int, int, int] | None = None
    for a in range(1, ranks + 1):
        if ranks % a:
            continue
        for b in range(1, ranks // a + 1):
            if (ranks // a) % b:
                continue
            dims = tuple(sorted((a, b, ranks // a // b), reverse=True))
            if best is None or max(dims) - min(dims) < max(best) - min(best):
                best = dims  # type: ignore[assignment]
    assert best is not None
    return best


def check_grid3d(
    nx: int, ny: int, nz: int, ranks: int, threads: int = 1, variant: str = "pure"
) -> tuple[int, int, int]:
    """Raise ValueError before launch when halo3d cannot run; returns the process grid.

    Each rank needs at least one point per dimension of the grid MPI_Dims_create gives it."""
    nx, ny, nz = _whole("nx", nx, 1), _whole("ny", ny, 1), _whole("nz", nz, 1)
    threads = _whole("threads", threads, 1)
    if variant not in VARIANTS_3D:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS_3D)}, not {variant!r}")
    dims = process_grid(ranks)
    for name, n, p in zip(("nx", "ny", "nz"), (nx, ny, nz), dims, strict=True):
        if n < p:
            raise ValueError(
                f"grid too small: {ranks} ranks form a {dims[0]} x {dims[1]} x {dims[2]} process "
                f"grid, so {name}={n} must be at least {p}"
            )
    if variant == "multiple" and nx // dims[0] < threads:
        raise ValueError(
            f"variant multiple gives each thread its own X planes: nx={nx} over {dims[0]} ranks "
            f"along X leaves fewer than {threads} planes (threads) on some rank"
        )
    if nx * ny * nz > 400_000_000:
        raise ValueError(f"grid {nx} x {ny} x {nz} is too large (at most 4e8 points)")
    return dims
