"""Tables of lab 11 from the records of halo2d (memory=1) and shm_halo runs; they launch nothing.

    node_memory([pure, openmp, shared])     # per run and node: PSS summed over its ranks, MB
    iteration_times([pure, openmp, shared]) # per run: seconds per iteration (slowest rank)
    race_table(runs)                        # per run: stale reads and the checksum's error
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..runs.records import Results, require_columns

MB = 1e6


def model_of(frame: pd.DataFrame) -> str:
    """The programming model of one run's records: pure MPI, MPI+OpenMP or MPI+MPI."""
    variant = str(frame["variant"].dropna().iloc[0]) if "variant" in frame else ""
    if variant == "student":
        return "MPI+MPI (your shared window)"
    if variant == "shared":
        return "MPI+MPI (shared window)"
    return "pure MPI" if variant == "pure" else f"MPI+OpenMP ({variant})"


def _label(frame: pd.DataFrame) -> str:
    ranks = int(frame["ranks"].dropna().iloc[0])
    threads = int(frame["threads"].dropna().iloc[0])
    return f"{model_of(frame)} {ranks}x{threads}"


def node_memory(runs: Iterable[Results]) -> pd.DataFrame:
    """Per run and node (host): the PSS of its ranks added up (what the node really holds: a
    shared page counts once), their RSS added up (shared pages counted in every rank), the grid
    and the halo copies (rows of a neighbour kept by a rank), all in MB."""
    rows = []
    for run in runs:
        frame = run.records
        mem = frame[frame["record"] == "memory"]
        require_columns(mem, ["pss_kb", "rss_kb", "grid_bytes", "halo_bytes"],
                        "memory per node (run halo2d with memory=1, or shm_halo)")  # fmt: skip
        timer = frame[frame["record"] == "timer"]
        for host, node in mem.groupby("host"):
            rows.append({"run": _label(timer), "model": model_of(timer), "node": host,
                         "ranks": int(node["rank"].nunique()),
                         "threads": int(timer["threads"].dropna().iloc[0]),
                         "nx": int(timer["nx"].dropna().iloc[0]),
                         "ny": int(timer["ny"].dropna().iloc[0]),
                         "pss_mb": float(node["pss_kb"].sum()) * 1024 / MB,
                         "rss_mb": float(node["rss_kb"].sum()) * 1024 / MB,
                         "grid_mb": float(node["grid_bytes"].sum()) / MB,
                         "halo_mb": float(node["halo_bytes"].sum()) / MB})  # fmt: skip
    return pd.DataFrame(rows)


def iteration_times(runs: Iterable[Results]) -> pd.DataFrame:
    """Per run: its loop time over the iterations, slowest rank (the `total` timer), with the
    share of it spent in the halo (messages or synchronisation)."""
    rows = []
    for run in runs:
        timer = run.records[run.records["record"] == "timer"]
        wide = timer.pivot_table(index=["rank", "thread"], columns="phase", values="seconds")
        iterations = int(timer["iterations"].dropna().iloc[0])
        slowest = wide.loc[wide["total"].idxmax()]
        rows.append({"run": _label(timer), "model": model_of(timer),
                     "iterations": iterations,
                     "ms_per_iteration": 1e3 * float(slowest["total"]) / max(iterations, 1),
                     "halo_share": float(slowest["halo"] / slowest["total"])
                     if slowest["total"] > 0 else 0.0})  # fmt: skip
    return pd.DataFrame(rows)


def race_table(runs: Iterable[Results]) -> pd.DataFrame:
    """Per shm_halo run: its synchronisation, stagger, the stale reads counted and how far its
    checksum is from the serial sweep's."""
    rows = []
    for run in runs:
        check = run.records[run.records["record"] == "check"]
        require_columns(check, ["stale_reads", "checksum", "expected"], "the race table")
        row = check.iloc[0]
        rows.append({"sync": row["sync"], "stagger_us": int(row["stagger_us"]),
                     "stale_reads": int(row["stale_reads"]),
                     "checksum_error": float(row["checksum"] - row["expected"]),
                     "right": bool(int(row["ok"]))})  # fmt: skip
    return pd.DataFrame(rows)
