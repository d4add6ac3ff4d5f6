"""Predictions: of the student's own halo3d runs from the calibration, and of published tables
from a model plus the published setting (Stathopoulos 2010, Appendix A.23, Luecke et al., Tables 2 and 3). Every function
computes from numbers; none launches anything.

The halo3d model (one iteration of the busiest rank, blocking exchange, masteronly threads):

    t = points / (T r_eff) + sum over faces (alpha + s / beta) + sync
    r_eff = r min(1, S / c)    S = mem_bw_all / mem_bw_1: how far memory bandwidth scales,
                               c = min(P T, C): threads sharing one node of C cores

with r the one-thread update rate, (alpha, beta) the Hockney line of the face's size, and sync
an MPI barrier when P > 1 plus an OpenMP barrier when T > 1 (the reduction and the loop's end).
Nodes are taken to be like the calibrated machine (C = its usable CPUs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .calibration import Calibration

DOUBLE = 8


def dims_create(ranks: int, ndims: int = 3) -> tuple[int, ...]:
    """A balanced process grid as MPI_Dims_create makes it (non-increasing factors)."""
    if ranks < 1:
        raise ValueError(f"ranks must be at least 1 (got {ranks})")
    dims = [1] * ndims
    left = ranks
    factors = []
    p = 2
    while p * p <= left:
        while left % p == 0:
            factors.append(p)
            left //= p
        p += 1
    if left > 1:
        factors.append(left)
    for f in sorted(factors, reverse=True):  # largest factor to the smallest dimension
        dims[int(np.argmin(dims))] *= f
    return tuple(sorted(dims, reverse=True))


@dataclass(frozen=True)
class Geometry:
    """The busiest rank of halo3d on a side^3 grid: its process grid, local extents, interior
    points and the bytes of each face it exchanges with a neighbour."""

    dims: tuple[int, ...]
    local: tuple[int, ...]
    points: int
    face_bytes: tuple[int, ...]


def halo3d_geometry(side: int, ranks: int) -> Geometry:
    """Block split of a side^3 grid over dims_create(ranks); the first blocks are the largest,
    and a middle rank has two neighbours along each dimension split more than once."""
    dims = dims_create(ranks)
    local = tuple(-(-side // d) for d in dims)  # the largest block along each dimension
    faces = []
    for d, p in enumerate(dims):
        area = int(np.prod([local[e] for e in range(3) if e != d]))
        faces += [area * DOUBLE] * min(2, p - 1)
    return Geometry(dims, local, int(np.prod(local)), tuple(faces))


def message_time(cal: Calibration, size) -> np.ndarray:
    """Hockney time of one message of `size` bytes, from the line of its side of the switch."""
    s = np.asarray(size, dtype=float)
    small = cal["latency_s"] + s / cal["bandwidth_small_Bps"]
    large = cal["latency_large_s"] + s / cal["bandwidth_Bps"]
    return np.where(s < cal["switch_bytes"], small, large)


def effective_rate(cal: Calibration, ranks: int, threads: int) -> float:
    """Update rate of one thread when min(ranks x threads, C) threads share a node's memory."""
    scale = cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"]
    per_node = min(ranks * threads, int(cal.machine.get("cpus", 1)) or 1)
    return cal["stencil_rate"] * min(1.0, scale / per_node)


def predict_halo3d(cal: Calibration, points: int, face_bytes, ranks: int, threads: int,
                   iterations: int) -> dict[str, float]:  # fmt: skip
    """Seconds of compute, halo and sync (and their total) for `iterations` of halo3d."""
    compute = points / (threads * effective_rate(cal, ranks, threads))
    halo = float(np.sum(message_time(cal, np.asarray(face_bytes, dtype=float)))) if len(face_bytes) else 0.0
    sync = (cal["mpi_barrier_s"] if ranks > 1 else 0.0) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    parts = {"compute": compute * iterations, "halo": halo * iterations, "sync": sync * iterations}
    return {**parts, "total": sum(parts.values())}


# ---------------------------------------------------------------- published tables

def a23_face_bytes(threads: int, setup: pd.Series) -> int:
    """Bytes one middle process sends per halo swap in Stathopoulos's Jacobi when `threads` threads
    replace processes along X (local X = local * T, px = px / T)."""
    px, py, pz = int(setup["px"]) // threads, int(setup["py"]), int(setup["pz"])
    lx, ly, lz = int(setup["local"]) * threads, int(setup["local"]), int(setup["local"])
    faces = {0: ly * lz, 1: lx * lz, 2: lx * ly}
    return DOUBLE * sum(2 * faces[d] for d, p in enumerate((px, py, pz)) if p > 1)


def predict_a23(appendix: pd.DataFrame, setup: pd.DataFrame, affine=(1, 2, 3, 6)) -> pd.DataFrame:
    """Master only's halo time on the XT6 (Table A.23) from one published point: the master
    sends every face alone, so at the rate the 1-thread master-only run reached, the time
    grows with the bytes of its faces. `applies`: the thread counts whose processes can be
    spread evenly over the node's NUMA regions (Stathopoulos 2010, section 4.6.2: 2, 3 and 6 threads)."""
    s = setup.set_index("system").loc["XT6"]
    mo = appendix.query("table == 'A.23' and scheme == 'Master Only'").set_index("threads")
    base = float(mo.loc[1, "halo_s"]) / a23_face_bytes(1, s)
    rows = []
    for t, row in mo.iterrows():
        b = a23_face_bytes(int(t), s)
        rows.append({"threads": int(t), "decomposition": row["decomposition"], "face_MB": b / 1e6,
                     "published_s": float(row["halo_s"]), "predicted_s": base * b,
                     "applies": int(t) in affine})  # fmt: skip
    out = pd.DataFrame(rows)
    out["published/predicted"] = out["published_s"] / out["predicted_s"]
    return out


def _inputs(inputs: pd.DataFrame) -> dict[str, float]:
    return dict(zip(inputs["quantity"], inputs["value"].astype(float), strict=True))


def predict_table2(table2: pd.DataFrame, inputs: pd.DataFrame) -> pd.DataFrame:
    """003 Table 2 from its 2-node pure MPI time: compute halves with each doubling of nodes,
    communication (0.2 % at 2 nodes, section 3) stays: T(N) = T2 ((1 - c) 2 / N + c)."""
    c = _inputs(inputs)["comm_share_square"]
    out = table2.copy()
    base = out.query("nodes == 2 and version == 'pure MPI'")["seconds"].iloc[0]
    out["predicted_s"] = base * ((1 - c) * 2 / out["nodes"] + c)
    out["published/predicted"] = out["seconds"] / out["predicted_s"]
    return out


def predict_table3(table3: pd.DataFrame, inputs: pd.DataFrame) -> pd.DataFrame:
    """003 Table 3's speedups under two bounds: 'per node' (communication is the 25 % design
    share of pure MPI's time and falls 6-fold with 6 times fewer processes, as the authors
    state) and 'per rank' (each rank still sends two rows of n1 points: no gain)."""
    v = _inputs(inputs)
    c, k = v["comm_share_rectangular_target"], v["comm_reduction_2_per_node"]
    out = table3[table3["version"] != "pure MPI"].copy()
    out["predicted_per_node"] = 1.0 / ((1 - c) + c / k)
    out["predicted_per_rank"] = 1.0
    out["published/predicted"] = out["speedup"].astype(float) / out["predicted_per_node"]
    return out.reset_index(drop=True)
