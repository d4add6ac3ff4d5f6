"""Tables derived from syncbench and imbalance records (lab 02): EPCC overheads, barrier time
across ranks (the shape of Smith et al. 2004, Table 3), and the CPU idle threads burn while they wait."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..runs.records import WHERE_COLUMNS, Results, as_frame, require_columns
from ..runs.stats import overhead

US = 1e6  # seconds -> microseconds


def slowest_rank_samples(records: Results | pd.DataFrame) -> pd.DataFrame:
    """One row per (construct, sample, other columns): the slowest rank's seconds per repetition.

    Collectives finish together, so the slowest rank's time is the time of the operation (the
    OSU/IMB convention reports min/avg/max over ranks; for overheads the max is the honest one).
    """
    frame = as_frame(records)
    require_columns(frame, ["construct", "sample", "seconds"], "syncbench records")
    per_rank = {*WHERE_COLUMNS, "seconds"}
    keys = [c for c in frame.columns if c not in per_rank]  # the same on every rank
    return frame.groupby(keys, as_index=False, dropna=False, sort=False)["seconds"].max()


def overhead_table(
    records: Results | pd.DataFrame,
    by: Sequence[str] = ("threads",),
    reference: str = "reference",
) -> pd.DataFrame:
    """EPCC overheads: for each group of `by` and each construct, test - reference.

    Columns: the `by` columns, construct, overhead_us (median test - median reference), spread_us
    (sqrt(std_test^2 + std_ref^2), sample standard deviations), test_us, reference_us,
    relative_spread (spread / |overhead|), outliers, n, trusted (both sets of samples have a
    spread within hybridlab.runs.stats.WIDE_SPREAD of their median) and resolved (|overhead| > spread:
    the overhead stands out from the noise).
    """
    frame = slowest_rank_samples(records)
    by = list(by)
    require_columns(frame, by, "syncbench records")
    rows = []
    for key, group in frame.groupby(by, sort=False) if by else [((), frame)]:
        key = key if isinstance(key, tuple) else (key,)
        ref = group.loc[group["construct"] == reference, "seconds"]
        if ref.empty:
            raise ValueError(
                f"no '{reference}' samples for {dict(zip(by, key, strict=True))}: run the "
                "reference construct in the same run as the constructs it is subtracted from"
            )
        for construct, test in group.groupby("construct", sort=False):
            if construct == reference:
                continue
            o = overhead(test["seconds"], ref)
            rows.append(
                {
                    **dict(zip(by, key, strict=True)),
                    "construct": construct,
                    "overhead_us": o.value * US,
                    "spread_us": o.spread * US,
                    "test_us": o.test.median * US,
                    "reference_us": o.reference.median * US,
                    "relative_spread": o.spread / abs(o.value) if o.value else np.inf,
                    "outliers": o.test.outliers + o.reference.outliers,
                    "n": o.test.n,
                    "trusted": o.trusted,
                    "resolved": abs(o.value) > o.spread,
                }
            )
    return pd.DataFrame(rows)


def barrier_table(
    records: Results | pd.DataFrame, phases: Sequence[str] = ("compute", "barrier")
) -> pd.DataFrame:
    """Seconds per rank in each phase (its master thread, summed over iterations), then the
    average, maximum and minimum across ranks: the shape of Smith et al. 2004, Table 3."""
    frame = as_frame(records)
    require_columns(frame, ["rank", "thread", "phase", "seconds"], "timeline records")
    master = frame[frame["thread"] == 0]
    per_rank = master.groupby(["phase", "rank"])["seconds"].sum()
    rows = []
    for phase in phases:
        if phase not in per_rank.index.get_level_values(0):
            continue
        values = per_rank.loc[phase]
        rows.append(
            {
                "routine": phase,
                "avg_s": float(values.mean()),
                "max_s": float(values.max()),
                "min_s": float(values.min()),
                "slowest_rank": int(values.idxmax()),
                "fastest_rank": int(values.idxmin()),
            }
        )
    return pd.DataFrame(rows).set_index("routine")


def wait_policy_table(runs: Mapping[str, Results | pd.DataFrame]) -> pd.DataFrame:
    """Per run (e.g. OMP_WAIT_POLICY) and thread: wall and CPU seconds of each phase, and the
    share of the thread's wall time it had the CPU while not computing."""
    rows = []
    for name, records in runs.items():
        frame = as_frame(records)
        require_columns(
            frame, ["rank", "thread", "phase", "seconds", "cpu_seconds"], "timeline records"
        )
        for (rank, thread), group in frame.groupby(["rank", "thread"]):
            sums = group.groupby("phase")[["seconds", "cpu_seconds"]].sum()
            waiting = sums.drop(index="compute", errors="ignore")
            wall = float(waiting["seconds"].sum())
            cpu = float(waiting["cpu_seconds"].sum())
            rows.append(
                {
                    "run": name,
                    "rank": int(rank),
                    "thread": int(thread),
                    "role": "master (communicates)" if "comm" in sums.index else "waits",
                    "compute_wall_s": float(sums["seconds"].get("compute", 0.0)),
                    "compute_cpu_s": float(sums["cpu_seconds"].get("compute", 0.0)),
                    "waiting_wall_s": wall,
                    "waiting_cpu_s": cpu,
                    "cpu_share_while_waiting": cpu / wall if wall > 0 else np.nan,
                }
            )
    return pd.DataFrame(rows)
