"""Tables of lab 09, from what the runs returned (they launch nothing): the numba Jacobi's timer
records in halo2d's shape, numba vs C per P x T, and numba's threads per threading layer.

    frame = numba_records(outputs, ranks=2, threads=1)     # breakdown_table() reads it
    compare = numba_vs_c([numba_2x1, c_2x1, numba_1x2, c_1x2])
    layer_table(thread_rows(reports))                       # per threading layer: its threads
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..halo.tables import PHASES, breakdown_table
from ..runs.records import Results, as_frame

PHASE_NAMES = {"jacobi": "compute", "halo": "halo", "reduction": "reduction", "total": "total"}


def numba_records(outputs: list[dict], ranks: int, threads: int) -> pd.DataFrame:
    """One timer record per rank and phase, as halo2d writes them (variant 'numba', thread 0:
    the numba kernel is timed by the rank's Python thread around each parallel sweep)."""
    rows = [
        {
            "record": "timer",
            "rank": out["rank"],
            "thread": 0,
            "phase": phase,
            "seconds": seconds,
            "variant": "numba",
            "ranks": ranks,
            "threads": threads,
        }
        for out in outputs
        for phase, seconds in out["seconds"].items()
    ]
    return pd.DataFrame(rows)


def numba_vs_c(
    runs: Iterable[Results | pd.DataFrame], iterations: int | None = None
) -> pd.DataFrame:
    """Seconds per phase (slowest rank and thread) of every run, one row per variant and P x T,
    and per iteration in ms when `iterations` is given."""
    table = breakdown_table([as_frame(r) for r in runs], how="max")
    if iterations:
        for phase in (*PHASES, "total"):
            table[f"{phase}_ms_per_it"] = 1e3 * table[phase] / iterations
    return table


def ratio_table(table: pd.DataFrame) -> pd.DataFrame:
    """numba / C (variant hybrid1) of each phase for every P x T present in both."""
    rows = []
    for (ranks, threads), group in table.groupby(["ranks", "threads"]):
        by = group.set_index("variant")
        if not {"numba", "hybrid1"} <= set(by.index):
            continue
        row = {"ranks": ranks, "threads": threads}
        for phase in ("jacobi", "halo", "total"):
            c = float(by.loc["hybrid1", phase])
            row[f"{PHASE_NAMES[phase]} numba/C"] = float(by.loc["numba", phase]) / c if c else None
        rows.append(row)
    return pd.DataFrame(rows)


def thread_rows(reports: list[dict]) -> pd.DataFrame:
    """One row per (rank or layer, numba thread) of probe reports: cpu, allowed CPUs, layer."""
    rows = []
    for rep in reports:
        for t in rep.get("threads", []):
            rows.append(
                {
                    "rank": rep.get("rank", 0),
                    "layer": rep.get("layer"),
                    "thread": t["thread"],
                    "tid": t["tid"],
                    "cpu": t["cpu"],
                    "cpus_seen": t["cpus_seen"],
                    "allowed": t["allowed"],
                    "numba_threads": rep.get("numba_threads"),
                }
            )
        if "error" in rep:
            rows.append(
                {"rank": rep.get("rank", 0), "layer": rep.get("layer"), "error": rep["error"]}
            )
    return pd.DataFrame(rows)


def layer_table(threads: pd.DataFrame) -> pd.DataFrame:
    """Per threading layer: available or not, numba's threads, the CPUs they ran on and the CPUs
    each thread was allowed (whether that pins them is lab 09's exercise, not the kit's)."""
    rows = []
    for layer, group in threads.groupby("layer", sort=False):
        ran = group.dropna(subset=["thread"]) if "thread" in group else group.iloc[:0]
        if ran.empty:
            error = group["error"].dropna().iloc[0] if "error" in group else "no threads seen"
            rows.append({"layer": layer, "available": False, "note": str(error).splitlines()[0]})
            continue
        rows.append(
            {
                "layer": layer,
                "available": True,
                "threads": len(ran),
                "cpus": sorted({int(c) for c in ran["cpu"]}),
                "allowed": [list(a) for a in ran["allowed"]],
            }
        )
    return pd.DataFrame(rows)

