"""Tables of lab 07 (collectives): the Hockney prediction of an alltoall's time, the kit's
alltoall records in osu_alltoall's form, the 3-D FFT's phase breakdown, Luecke et al.'s "faster"
read both ways, and alltoall runs across nodes (nodes_table) beside Luecke et al.'s Table 5
(published_nodes). Launches nothing. How many messages of what size a transpose sends for
P x T is lab 07's exercise (a): the student's `alltoall_messages` answers it, nothing here does.

    from hybridlab.collectives.tables import osu_table, fft_breakdown
    osu_table(results)                             # size, avg/min/max latency (us) per P x T
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..reference import REFERENCE
from ..runs.records import Results, as_frame, require_columns

PHASES = ("fft", "rearrange", "alltoall")


def predicted_alltoall(alpha: float, beta: float, ranks, message_bytes):
    """Hockney time of one rank's alltoall sent as P - 1 messages one after another:
    (P - 1) (alpha + s / beta). Ignores the copy of the rank's own block and any overlap."""
    if beta <= 0:
        raise ValueError(f"beta must be positive (got {beta})")
    p = np.asarray(ranks, dtype=float)
    return (p - 1) * (alpha + np.asarray(message_bytes, dtype=float) / beta)


def _frames(results: Results | pd.DataFrame | Iterable) -> pd.DataFrame:
    if isinstance(results, (Results, pd.DataFrame)):
        return as_frame(results)
    return pd.concat([as_frame(r) for r in results], ignore_index=True)


def osu_table(results) -> pd.DataFrame:
    """The alltoall kernel's OSU lines: op, ranks, threads, size (bytes to each rank), avg, min
    and max latency over ranks (us), iterations; the median over samples when there are several.
    """
    df = _frames(results)
    require_columns(df, ["record", "bytes", "avg_us", "min_us", "max_us"], "osu_table")
    osu = df[df["record"] == "osu"]
    keys = ["op", "ranks", "threads", "bytes"]
    out = osu.groupby(keys, as_index=False).agg(
        avg_us=("avg_us", "median"),
        min_us=("min_us", "median"),
        max_us=("max_us", "median"),
        iterations=("iterations", "first"),
        samples=("avg_us", "size"),
    )
    return out.rename(columns={"bytes": "size"})


def osu_text(table: pd.DataFrame, title: str = "") -> str:
    """A table in the form osu_alltoall prints by default: '# Size  Avg Latency(us)'."""
    lines = [f"# {title}"] if title else []
    lines.append(f"{'# Size':<10}{'Avg Latency(us)':>18}")
    for _, row in table.iterrows():
        lines.append(f"{int(row['size']):<10}{row['avg_us']:>18.2f}")
    return "\n".join(lines)


def fft_breakdown(results) -> pd.DataFrame:
    """One row per run of fft3d: ranks, threads, n, fft library and, for the repetition with the
    smallest total (Luecke et al. reports the minimum of 10 trials), the phases of that repetition's
    slowest rank (the one with the largest total), the total, and the alltoall share of it.
    The alltoall phase includes waiting for the other ranks to arrive."""
    runs = [results] if isinstance(results, (Results, pd.DataFrame)) else list(results)
    rows = []
    for run in runs:
        df = as_frame(run)
        require_columns(df, ["record", "phase", "repetition", "seconds"], "fft_breakdown")
        ph = df[df["record"] == "phase"]
        # per repetition, the slowest rank (largest total) and that rank's own phases
        wide = ph.pivot_table(
            index=["repetition", "rank"], columns="phase", values="seconds", aggfunc="first"
        )
        slowest = wide.loc[wide.groupby(level="repetition")["total"].idxmax()]
        best = slowest.iloc[int(np.argmin(slowest["total"].to_numpy()))]
        first = ph.iloc[0]
        row = {
            "ranks": int(first["ranks"]),
            "threads": int(first["threads"]),
            "n": int(first["n"]),
            "fft_library": first["fft"],
            "schedule": first["schedule"],
        }
        row.update({p: float(best[p]) for p in (*PHASES, "total")})
        row["alltoall_share"] = row["alltoall"] / row["total"]
        row["label"] = f"{row['ranks']}x{row['threads']}"
        rows.append(row)
    return pd.DataFrame(rows)


def faster_two_ways() -> pd.DataFrame:
    """003 Table 5 read both ways: for each node count, the best hybrid time with 2 processes
    per node against pure MPI as 'time saved' (1 - T_hybrid / T_MPI) and as 'speed gain'
    (T_MPI / T_hybrid - 1), beside the percentages section 5 prints. Derived, not published."""
    t = REFERENCE["003-table-5"].frame
    says = {4: "13% faster", 8: "", 16: "about the same", 32: "19% faster", 64: "25% faster"}
    rows = []
    for nodes, group in t.groupby("nodes"):
        mpi = float(group.loc[group["version"] == "pure MPI", "seconds"].iloc[0])
        two = group[group["mpi_per_node"] == 2]
        best = two.loc[two["seconds"].idxmin()]
        hyb = float(best["seconds"])
        rows.append(
            {
                "nodes": nodes,
                "pure_mpi_s": mpi,
                "hybrid_2_per_node_s": hyb,
                "schedule": best["schedule"],
                "time_saved_pct": round(100 * (1 - hyb / mpi), 1),
                "speed_gain_pct": round(100 * (mpi / hyb - 1), 1),
                "section_5_says": says[nodes],
            }
        )
    return pd.DataFrame(rows)


def nodes_table(results: Iterable[Results]) -> pd.DataFrame:
    """Alltoall runs whose ranks spread over several nodes (osu_table per run, the median over
    samples) with the nodes the ranks ran on (hosts in the records), the ranks per node, the
    messages each rank sends and, of all P (P - 1) messages of one call, how many cross nodes:
    each rank sends to the P - P/N ranks of the other nodes."""
    rows = []
    for res in results:
        frame = as_frame(res)
        line = osu_table(res).iloc[0]
        nodes = frame["host"].nunique() if "host" in frame else 1
        ranks = int(line["ranks"])
        rows.append({
            "ranks": ranks, "threads": int(line["threads"]), "nodes": nodes,
            "ranks_per_node": ranks // nodes, "size": int(line["size"]),
            "messages_per_rank": ranks - 1,
            "messages_across_nodes": ranks * (ranks - ranks // nodes),
            "avg_us": float(line["avg_us"]), "min_us": float(line["min_us"]),
            "max_us": float(line["max_us"]),
        })  # fmt: skip
    return pd.DataFrame(rows)


def published_nodes(table5: pd.DataFrame) -> pd.DataFrame:
    """Luecke et al., Table 5: the 3-D FFT's seconds per node count, pure MPI (12 ranks per
    node) and the hybrid with 2 ranks of 6 threads per node (the fastest of its schedules)."""
    pure = table5[table5["version"] == "pure MPI"].set_index("nodes")["seconds"]
    hybrid = table5[(table5["version"] == "hybrid") & (table5["mpi_per_node"] == 2)]
    best = hybrid.groupby("nodes")["seconds"].min()
    return pd.DataFrame({"pure_MPI_s": pure, "hybrid_2_per_node_s": best}).reset_index()
