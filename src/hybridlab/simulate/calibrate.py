"""Fitting the HECToR platforms' unpublished values on the report's own halo times.

Stathopoulos 2010 gives no latency, no intra-node bandwidth and no cost of packing the halo's
strided faces. Three values are fitted, by linear least squares, on one set of its rows (the
XT4's Master Only halo swap, Tables A.16-A.17) and checked on rows never fitted (the XT6's):

    node_latency  seconds from one node to another
    intra_share   intra-node bandwidth as a share of the node's memory bandwidth (section 3.1)
    copy_traffic  bytes of the sending core's memory traffic per byte sent (packing, copies,
                  unpacking), at one core's share of the node's memory bandwidth (section 3.1);
                  charged to the sending rank, one send after the other (smpi/ois)

The runs are the kit's non-blocking exchange (every face posted at once, one MPI_Waitall): the
report's halo does not grow from 128 to 256 processes on the XT4 (Tables A.16-A.17, one thread:
7.54 and 7.20 ms), and the kit's blocking exchange (one MPI_Sendrecv per face, the minus
neighbour first) waits along each line of ranks above the eager limit, so its halo grows with
the ranks along X (`check(..., nonblocking=0)` shows it).

The simulated halo time is close to linear in node_latency, 1/intra_share and copy_traffic: one
Gauss-Newton step from a start point (a finite-difference Jacobian, one simulation per value and
row) solves the least squares; `check` simulates the fitted platform on any rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..reference import REFERENCE
from .platforms import UNGIVEN, hector
from .run import simulate

# the fitted quantities and how each enters the (linear) least squares: x -> regressor
LINEAR = {
    "node_latency": (lambda v: v, lambda x: x),
    "intra_share": (lambda v: 1.0 / v, lambda x: 1.0 / x),
    "copy_traffic": (lambda v: v, lambda x: x),
}
START = {**UNGIVEN, "copy_traffic": 4.0}  # the assumed values, and a copying cost to move from
STEP = {"node_latency": 5e-6, "intra_share": 1.0 / 8.0, "copy_traffic": 4.0}  # linear variable
NONBLOCKING = 1  # the exchange the calibration simulates (see the module's docstring)


@dataclass(frozen=True)
class HaloRow:
    """One published halo swap: a Master Only row of the report's Appendix A.5."""

    table: str
    system: str
    processors: int
    threads: int
    halo_ms: float  # per iteration, as published (halo_s over the table's iterations)

    @property
    def label(self) -> str:
        return f"{self.table} {self.system} {self.processors}p {self.threads}t"


def halo_rows(tables: list[str], threads: list[int]) -> list[HaloRow]:
    """The Master Only rows of `tables` with these thread counts, halo per iteration in ms."""
    jacobi = REFERENCE["000-appendix-a5"].frame
    setup = REFERENCE["000-jacobi-setup"].frame.set_index("system")
    pick = jacobi.query("table in @tables and scheme == 'Master Only' and threads in @threads")
    if pick.empty:
        raise ValueError(f"no Master Only rows in tables {tables} with threads {threads}")
    return [HaloRow(r.table, r.system, int(r.processors), int(r.threads),
                    float(r.halo_s) / int(setup.loc[r.system, "iterations"]) * 1e3)
            for r in pick.itertuples()]  # fmt: skip


def run_of(row: HaloRow, nonblocking: int = NONBLOCKING) -> dict:
    """simulate() arguments of the report's run: T threads replace ranks along X (P/T ranks,
    T-times longer blocks, cores/T ranks a node), py x pz as published; the exchange
    non-blocking unless nonblocking=0."""
    s = REFERENCE["000-jacobi-setup"].frame.set_index("system").loc[row.system]
    py, pz, n = int(s["py"]), int(s["pz"]), int(s["local"])
    px = row.processors // (py * pz)
    return dict(ranks=row.processors // row.threads, nx=n * px, ny=n * py, nz=n * pz,
                dims=f"{px // row.threads}x{py}x{pz}", nonblocking=nonblocking,
                ranks_per_node=int(s["cores_per_node"]) // row.threads)  # fmt: skip


def bytes_sent(row: HaloRow) -> int:
    """Bytes of halo the slowest process of `row` sends each iteration (two neighbours in a
    dimension of three or more processes, one in a dimension of two): the faces of its
    T-times longer block, 8 bytes a point."""
    s = REFERENCE["000-jacobi-setup"].frame.set_index("system").loc[row.system]
    n, t = int(s["local"]), row.threads
    dims = (row.processors // (int(s["py"]) * int(s["pz"])) // t, int(s["py"]), int(s["pz"]))
    local = (n * t, n, n)
    total = 0
    for d in range(3):
        others = [local[e] for e in range(3) if e != d]
        total += min(dims[d] - 1, 2) * others[0] * others[1] * 8
    return total


def simulated_halo_ms(
    row: HaloRow, values: dict[str, float] | None = None, nonblocking: int = NONBLOCKING
) -> float:
    """The simulated halo per iteration (ms, mean over ranks, as the report's mean of runs) of
    `row` on its system with these values (default: the platform's fitted ones)."""
    run = run_of(row, nonblocking)
    platform = hector(row.system, values)
    res = simulate("halo3d", run.pop("ranks"), platform, iterations=2, **run)
    return float(res.records.query("phase == 'halo'")["seconds"].mean()) / 2 * 1e3


def fit(
    rows: list[HaloRow], names: tuple[str, ...] = tuple(LINEAR), start: dict[str, float] = START
) -> dict[str, float]:
    """The values `names` (of node_latency, intra_share, copy_traffic; the others at `start`)
    minimising the squared relative error of the simulated halo on `rows`: one Gauss-Newton step
    from `start`, least squares in the linear variables. ValueError when the least squares
    leaves the physical range (a value at or below zero, or above `ceiling`): the rows do not
    determine it."""
    names = list(names)
    x0 = np.array([LINEAR[k][0](start[k]) for k in names])
    base = np.array([simulated_halo_ms(r, start) for r in rows])
    jac = np.empty((len(rows), len(names)))
    for j, k in enumerate(names):
        x = x0.copy()
        x[j] += STEP[k]
        moved = {**start, **{n: LINEAR[n][1](x[i]) for i, n in enumerate(names)}}
        jac[:, j] = (np.array([simulated_halo_ms(r, moved) for r in rows]) - base) / STEP[k]
    want = np.array([r.halo_ms for r in rows])
    weight = 1.0 / want  # relative error: every row counts alike
    dx, *_ = np.linalg.lstsq(jac * weight[:, None], (want - base) * weight, rcond=None)
    x = x0 + dx
    got = {k: float(LINEAR[k][1](x[i])) for i, k in enumerate(names)}
    if np.any(x <= 0):
        raise ValueError(f"the fit left the physical range (a value at or below zero): {got}")
    outside = {k: v for k, v in got.items() if v > ceiling(k, rows)}
    if outside:
        raise ValueError(f"the fit left the physical range: {outside} above "
                         f"{ {k: ceiling(k, rows) for k in outside} } ({CEILING_WHY})")  # fmt: skip
    return {**start, **got}


CEILING_WHY = (
    "intra_share: a share of the node's memory bandwidth is at most 1; node_latency: at most "
    "the link time of the smallest message of the rows, as the report reads larger messages "
    "as hiding the network's latency (Stathopoulos 2010, sections 4.4.2 and 4.5.1)"
)


def ceiling(name: str, rows: list[HaloRow]) -> float:
    """The largest physical value of `name` (CEILING_WHY): 1 for intra_share, the link time of
    the rows' smallest face (an X face, local^2 doubles) for node_latency, none else."""
    if name == "intra_share":
        return 1.0
    if name == "node_latency":
        setup = REFERENCE["000-jacobi-setup"].frame.set_index("system")
        return min(int(setup.loc[r.system, "local"]) ** 2 * 8
                   / hector(r.system).node_bandwidth.number for r in rows)  # fmt: skip
    return float("inf")


def check(
    rows: list[HaloRow], values: dict[str, float] | None = None, nonblocking: int = NONBLOCKING
) -> pd.DataFrame:
    """Simulated beside published halo per iteration, and their ratio, one line per row; with
    the bytes the slowest process sends and the report's time per byte of them."""
    out = [{"row": r.label, "simulated_ms": simulated_halo_ms(r, values, nonblocking),
            "report_ms": r.halo_ms, "sent_mb": bytes_sent(r) / 1e6,
            "report_ns_per_byte": r.halo_ms * 1e6 / bytes_sent(r)} for r in rows]  # fmt: skip
    frame = pd.DataFrame(out).set_index("row")
    frame["ratio"] = frame["simulated_ms"] / frame["report_ms"]
    return frame
