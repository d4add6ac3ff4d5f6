"""Records -> Chrome trace-event JSON, the format Perfetto (ui.perfetto.dev) and chrome://tracing
open.

    trace = chrome_trace(results, "imbalance_trace.json")

One process per MPI rank (pid = rank, named "rank R"), one thread per OpenMP thread (tid =
thread, named "rank R thread T"), and one complete event ("ph": "X") per timeline record: name =
its phase (compute, barrier, comm, idle, halo, ...), ts and dur in microseconds since the run's
common start, args with the cpu, the NUMA node, the iteration and the phase's seconds.

Only timeline records can be traced: rows with `start` and `end` seconds. Lab 02's `imbalance`
kernel always emits them; lab 04's halo2d and halo3d emit them with `timeline=1` ("timeline"
records: one per interval a thread spent in jacobi, halo, reduction or other, for the first
`timeline_iterations` iterations), beside their per-phase "timer" totals, whose rows (no
start/end) are left out of the trace. Records of totals alone have no times to place on a track,
and chrome_trace says so.

This module reads records only; it launches nothing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .records import Results, as_frame

TIMELINE_COLUMNS = ("rank", "thread", "phase", "start", "end")
US = 1e6  # trace-event times are microseconds
ARG_COLUMNS = (
    "cpu",
    "numa",
    "iteration",
    "seconds",
    "cpu_seconds",
    "mpi_seconds",
    "mode",
    "weight",
)


def _plain(value):
    """A JSON-friendly scalar (numpy ints/floats to Python; NaN dropped as None)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def chrome_trace(results_or_frame: Results | pd.DataFrame, path: str | Path | None = None) -> dict:
    """The Chrome trace-event document of timeline records; written to `path` when given.

    Raises ValueError naming the missing columns when the records have no start/end timeline.
    """
    frame = as_frame(results_or_frame)
    missing = [c for c in TIMELINE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            "a trace needs timeline records with the columns "
            f"{', '.join(TIMELINE_COLUMNS)}; missing: {', '.join(missing)} "
            "(per-phase totals have no timeline: run halo2d/halo3d with timeline=1)"
        )
    frame = frame.dropna(subset=list(TIMELINE_COLUMNS))
    if frame.empty:
        raise ValueError(
            "a trace needs timeline records; these records have no start/end rows "
            "(halo2d/halo3d write them with timeline=1)"
        )
    bad = frame[frame["end"] < frame["start"]]
    if not bad.empty:
        raise ValueError(f"{len(bad)} timeline records end before they start")
    for column in ("cpu", "numa", "iteration"):  # whole numbers, even beside NaN rows dropped
        if column in frame and frame[column].notna().all() and (frame[column] % 1 == 0).all():
            frame[column] = frame[column].astype(int)
    order = ["rank", "thread", "start", "end"]
    frame = frame.sort_values(order, kind="stable")

    events: list[dict] = []
    for rank in sorted({int(r) for r in frame["rank"]}):
        events.append(
            {
                "ph": "M",
                "name": "process_name",
                "pid": rank,
                "tid": 0,
                "args": {"name": f"rank {rank}"},
            }
        )
        events.append(
            {
                "ph": "M",
                "name": "process_sort_index",
                "pid": rank,
                "tid": 0,
                "args": {"sort_index": rank},
            }
        )
    places = frame[["rank", "thread"]].drop_duplicates()
    for rank, thread in sorted((int(r), int(t)) for r, t in places.itertuples(index=False)):
        events.append(
            {
                "ph": "M",
                "name": "thread_name",
                "pid": rank,
                "tid": thread,
                "args": {"name": f"rank {rank} thread {thread}"},
            }
        )
        events.append(
            {
                "ph": "M",
                "name": "thread_sort_index",
                "pid": rank,
                "tid": thread,
                "args": {"sort_index": thread},
            }
        )
    args_cols = [c for c in ARG_COLUMNS if c in frame.columns]
    for row in frame.to_dict(orient="records"):
        start, end = float(row["start"]), float(row["end"])
        ts = round(start * US, 3)  # microseconds to the nanosecond, without float noise
        args = {c: _plain(row[c]) for c in args_cols if _plain(row[c]) is not None}
        events.append(
            {
                "ph": "X",
                "name": str(row["phase"]),
                "cat": str(row["phase"]),
                "pid": int(row["rank"]),
                "tid": int(row["thread"]),
                "ts": ts,
                "dur": round(round(end * US, 3) - ts, 3),  # ends stay where the next slice starts
                "args": args,
            }
        )
    trace = {"traceEvents": events, "displayTimeUnit": "ms"}
    if isinstance(results_or_frame, Results):
        kernel = results_or_frame.meta.get("kernel")
        if kernel is not None:
            trace["otherData"] = {"kernel": str(kernel)}
    if path is not None:
        Path(path).write_text(json.dumps(trace, default=str))
    return trace


__all__ = ["TIMELINE_COLUMNS", "chrome_trace"]
