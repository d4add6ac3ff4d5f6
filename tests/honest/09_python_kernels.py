"""Right answers to lab 09 written another way: the six neighbours added in pairs and multiplied
by 1/6 (another rounding, within the part's 1e-12 of the grid's largest value), the outer two
loops collapsed into one prange index; the layers' pinning decided with sets of CPUs, or with
pandas' groupby and a mapping of CPUs to cores per row."""

from honest import right

HONEST = [
    # (a) jacobi_sweep3d
    right("jacobi_sweep3d", """
from numba import njit, prange


@njit(parallel=True, cache=False)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    total = 0.0
    sixth = 1.0 / 6.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                s = (u[i, j, k - 1] + u[i, j, k + 1]) + (u[i, j - 1, k] + u[i, j + 1, k])
                s = s + (u[i - 1, j, k] + u[i + 1, j, k])
                value = s * sixth  # another rounding than / 6
                new[i, j, k] = value
                total += (value - u[i, j, k]) * (value - u[i, j, k])
    return total
""", why="neighbours added in pairs from the innermost axis, times 1/6, njit imported by name"),
    right("jacobi_sweep3d", """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    ni, nj, nk = u.shape[0] - 2, u.shape[1] - 2, u.shape[2] - 2
    delta = 0.0
    for ij in numba.prange(ni * nj):  # the two outer loops collapsed into one shared index
        i = 1 + ij // nj
        j = 1 + ij % nj
        for k in range(nk, 0, -1):  # the inner loop backwards
            west, east = u[i - 1, j, k], u[i + 1, j, k]
            v = (u[i, j, k + 1] + u[i, j, k - 1] + u[i, j + 1, k] + u[i, j - 1, k] + east + west) / 6.0
            delta += (v - u[i, j, k]) ** 2
            new[i, j, k] = v
    return delta
""", why="the outer two loops collapsed into one numba.prange index, the inner loop backwards"),
]

HONEST += [
    # (b) pinned_layer_names
    right("pinned_layer_names", """
def pinned_layer_names(rows, cores):
    where = {}
    for core, cpus in cores.items():
        for cpu in cpus:
            where[int(cpu)] = core
    layers = {}
    for rec in rows.to_dict("records"):
        name = str(rec["layer"])
        layers.setdefault(name, [])
        thread = rec.get("thread")
        if thread is None or pd.isna(thread):
            continue  # a layer that did not load
        layers[name].append({where.get(int(c)) for c in rec["allowed"]})
    out = []
    for name, homes in layers.items():
        if homes and all(len(h) == 1 and None not in h for h in homes):
            owned = [next(iter(h)) for h in homes]
            if len(set(owned)) == len(owned):
                out.append(name)
    return sorted(out)
""", why="plain records and sets: each thread's cores, one each and all different"),
    right("pinned_layer_names", """
def pinned_layer_names(rows, cores):
    core_of = pd.Series({int(c): k for k, cs in cores.items() for c in cs}, dtype=object)
    ran = rows[rows["thread"].notna()].copy()
    ran["row"] = range(len(ran))
    cpus = ran[["layer", "row", "allowed"]].explode("allowed")
    cpus["core"] = pd.to_numeric(cpus["allowed"], errors="coerce").map(core_of)
    per_thread = cpus.groupby("row").agg(
        layer=("layer", "first"), cores=("core", "nunique"), core=("core", "first"),
        unknown=("core", lambda c: c.isna().any()))
    good = []
    for layer, g in per_thread.groupby("layer"):
        if (g["cores"] == 1).all() and not g["unknown"].any() and g["core"].is_unique:
            good.append(str(layer))
    return sorted(good)
""", why="pandas: the masks exploded to one CPU a row, mapped to cores, grouped per thread"),
    # a fresh attacker's (helper-52): delta from slices of new and u after the prange loop; its
    # temporaries' pages once made the calling thread look like the only worker (0/5)
    right("jacobi_sweep3d", """@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # the sweep in the prange loop; delta afterwards from array slices of new and u
    nx, ny, nz = u.shape
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    diff = new[1:-1, 1:-1, 1:-1] - u[1:-1, 1:-1, 1:-1]
    return float((diff * diff).sum())
""", why="delta from array slices after the prange sweep"),
    # and a prange over the last (contiguous) axis: its threads share every page of new in C
    # order, so the page check also reads a Fortran-ordered grid
    right("jacobi_sweep3d", """@numba.jit(nopython=True, parallel=True, nogil=True)
def jacobi_sweep3d(u, new):
    # prange over the last axis, i innermost; the six terms added in another order
    nx, ny, nz = u.shape
    acc = 0.0
    for k in prange(1, nz - 1):
        for j in range(1, ny - 1):
            for i in range(1, nx - 1):
                s = u[i, j, k + 1] + u[i, j, k - 1]
                s += u[i, j + 1, k] + u[i, j - 1, k]
                s += u[i + 1, j, k] + u[i - 1, j, k]
                new[i, j, k] = s / 6
                acc += (new[i, j, k] - u[i, j, k]) ** 2
    return acc
""", why="numba.jit(nopython, parallel), prange over the last axis, i innermost"),
    right("jacobi_sweep3d", r"""
import numba as nb
from numba import prange as pr


@nb.jit(nopython=True, parallel=True, cache=True)
def jacobi_sweep3d(u, new):
    n0 = u.shape[0]
    n1 = u.shape[1]
    n2 = u.shape[2]
    total = 0.0
    for i in pr(1, n0 - 1):
        for j in range(1, n1 - 1):
            for k in range(1, n2 - 1):
                nb_sum = u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1]
                new[i, j, k] = nb_sum / 6.0
                total += (new[i, j, k] - u[i, j, k]) ** 2
    return total
""", why="prange imported as `pr`, numba as `nb` (a fresh attacker's, 0/5 before: the reader knew prange by its spelling)"),
    right("jacobi_sweep3d", r"""
import numba


@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # prange over the middle axis j (every plane i inside), chained indexing new[i][j][k]
    nx, ny, nz = u.shape
    delta = 0.0
    for j in numba.prange(1, ny - 1):
        for i in range(1, nx - 1):
            for k in range(1, nz - 1):
                v = (u[i - 1][j][k] + u[i + 1][j][k] + u[i][j - 1][k] + u[i][j + 1][k]
                     + u[i][j][k - 1] + u[i][j][k + 1]) / 6.0
                new[i][j][k] = v
                delta += (v - u[i][j][k]) ** 2
    return delta
""", why="chained indexing u[i][j][k], prange over the middle axis (a fresh attacker's, 0/5 before)"),
]

# the judge compiles the sweep's source again with its stores into new recorded (each thread must
# last-write its share): blocks of planes tiled by rows, and writes through views of new's planes
# and rows, keep full points
HONEST += [
    right("jacobi_sweep3d", r"""@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # tiled: prange over blocks of 8 planes, rows in tiles of 8 inside each block
    nx, ny, nz = u.shape
    B = 8
    nb = (nx - 2 + B - 1) // B
    parts = np.zeros(nb)
    for b in prange(nb):
        lo = 1 + b * B
        hi = min(lo + B, nx - 1)
        acc = 0.0
        for jj in range(1, ny - 1, B):
            for i in range(lo, hi):
                for j in range(jj, min(jj + B, ny - 1)):
                    for k in range(1, nz - 1):
                        v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                             + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                        new[i, j, k] = v
                        acc += (v - u[i, j, k]) ** 2
        parts[b] = acc
    return parts.sum()
""", why="prange over blocks of 8 planes, rows tiled by 8 inside, per-block partial deltas"),
    right("jacobi_sweep3d", r"""@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # each iteration writes its plane through a view of it, rows through a view of the row
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        plane = new[i]
        for j in range(1, ny - 1):
            row = plane[j]
            for k in range(1, nz - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                row[k] = v
                delta += (v - u[i, j, k]) ** 2
    return delta
""", why="each plane written through a view `plane = new[i]`, each row through `row = plane[j]`"),
    right("jacobi_sweep3d", r"""@numba.njit(parallel=True, fastmath=True, cache=True)
def jacobi_sweep3d(u, new):
    # fastmath and the numba cache; the delta summed per plane into an array
    nx, ny, nz = u.shape
    parts = np.zeros(nx)
    for i in prange(1, nx - 1):
        s = 0.0
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                new[i, j, k] = v
                s += (v - u[i, j, k]) * (v - u[i, j, k])
        parts[i] = s
    return parts.sum()
""", why="fastmath=True and cache=True (the recorded copy is compiled with the same fastmath), per-plane partial deltas"),
]

# u read through views of its planes and through an inlined helper that only reads it: the stencil
# is computed in the prange loop all the same (attacker H's H09_uviews, H09_plane, H09_helper: 0/5
# before, the source check knew only u[...] subscripted with three indices in the loop itself)
HONEST += [
    right("jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        below, here, above = u[i - 1], u[i], u[i + 1]   # the three planes of u this i reads
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                v = (below[j, k] + above[j, k] + here[j - 1, k] + here[j + 1, k]
                     + here[j, k - 1] + here[j, k + 1]) / 6.0
                new[i, j, k] = v
                delta += (v - here[j, k]) ** 2
    return delta
""", why="u read through views of its three planes, `below, here, above = u[i - 1], u[i], u[i + 1]` (attacker H's H09_uviews, 0/5 before)"),
    right("jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        plane = new[i]
        below, here, above = u[i - 1], u[i], u[i + 1]
        for k in range(1, nz - 1):       # k outside, j inside
            for j in range(1, ny - 1):
                v = (below[j, k] + above[j, k] + here[j - 1, k] + here[j + 1, k]
                     + here[j, k - 1] + here[j, k + 1]) / 6.0
                plane[j, k] = v
                delta += (v - here[j, k]) * (v - here[j, k])
    return delta
""", why="views of u's planes, new written through `plane = new[i]`, k outside j (attacker H's H09_plane, 0/5 before)"),
    right("jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit(inline="always")
def six_mean(u, i, j, k):
    return (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
            + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = six_mean(u, i, j, k)     # the helper only reads u
                delta += (new[i, j, k] - u[i, j, k]) ** 2
    return delta
""", why="the six-neighbour mean in an @njit(inline='always') helper that only reads u (attacker H's H09_helper, 0/5 before)"),
]

# attacker T's R09_flat (2026-12-06, full points twice)
HONEST.append(right('jacobi_sweep3d', r"""
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    # one flat prange over the (i, j) columns of the interior; k innermost
    nx, ny, nz = u.shape
    cols = (nx - 2) * (ny - 2)
    delta = 0.0
    for q in prange(cols):
        i = 1 + q // (ny - 2)
        j = 1 + q % (ny - 2)
        part = 0.0
        for k in range(1, nz - 1):
            v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
            new[i, j, k] = v
            part += (v - u[i, j, k]) * (v - u[i, j, k])
        delta += part
    return delta
""", why='one flat prange over the (i, j) columns, k innermost, per-column partial sums'))
