"""Tables of the halo exchange lab (04): seconds per phase for each run, and the master-share
curve, from the records of halo2d/halo3d runs. They launch nothing.

    table = breakdown_table([res_pure_2x1, res_hyb_1x2, ...])   # one row per run, seconds/phase
    master_share_table([res_share_0, res_share_25, ...])
    halo_share_table(runs)   # the halo's share per P x T and the nodes of each run (multi-node)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..runs.records import Results, as_frame, require_columns

PHASES = ("jacobi", "halo", "reduction", "other")
HOW = ("mean", "max", "master")


def _frame(runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame]) -> pd.DataFrame:
    if isinstance(runs, (Results, pd.DataFrame)):
        runs = [runs]
    frames = [as_frame(r) for r in runs]
    if not frames:
        raise ValueError("no runs given: pass the Results of at least one halo2d/halo3d run")
    frame = pd.concat(frames, ignore_index=True)
    if "record" in frame:
        frame = frame[frame["record"] == "timer"]
    require_columns(
        frame,
        ["rank", "thread", "phase", "seconds", "variant", "ranks", "threads"],
        "halo breakdowns",
    )
    return frame


def breakdown_table(
    runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame],
    how: str = "mean",
    by: Sequence[str] = ("variant", "ranks", "threads"),
) -> pd.DataFrame:
    """Seconds per phase for each run (one row per `by` group), and their total.

    how='mean' averages over every rank and thread (Stathopoulos 2010 does so for Multiple); 'max' takes the
    slowest rank and thread per phase; 'master' uses thread 0 averaged over ranks (Stathopoulos 2010 times
    the master, the critical path of Master Only and Funnelled). `label` reads "P x T variant"."""
    if how not in HOW:
        raise ValueError(f"how must be one of {', '.join(HOW)}, not {how!r}")
    frame = _frame(runs)
    by = [c for c in by if c in frame]
    if how == "master":
        frame = frame[frame["thread"] == 0]
    wide = frame.pivot_table(
        index=[*by, "rank", "thread"], columns="phase", values="seconds", aggfunc="sum"
    ).reset_index()
    for phase in (*PHASES, "total"):
        if phase not in wide:
            wide[phase] = 0.0
    agg = "max" if how == "max" else "mean"
    table = wide.groupby(by, sort=False)[[*PHASES, "total"]].agg(agg).reset_index()
    table["sum"] = table[list(PHASES)].sum(axis=1)
    table["label"] = [
        f"{r.ranks}x{r.threads} {r.variant}" if {"ranks", "threads", "variant"} <= set(by) else ""
        for r in table.itertuples()
    ]
    table["cores"] = table["ranks"] * table["threads"] if "ranks" in table else np.nan
    return table


def master_share_table(
    runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame],
) -> pd.DataFrame:
    """Per master_share: the loop time (slowest thread's total), the master's jacobi + halo, and
    the other threads' mean jacobi: the master should finish its halo and its share together
    with the others."""
    frame = _frame(runs)
    require_columns(frame, ["master_share"], "master-share curves")
    rows = []
    for share, g in frame.groupby("master_share"):
        total = g[g["phase"] == "total"]["seconds"].max()
        master = g[(g["thread"] == 0) & g["phase"].isin(["jacobi", "halo"])]
        workers = g[(g["thread"] != 0) & (g["phase"] == "jacobi")]
        rows.append(
            {
                "master_share": float(share),
                "total": float(total),
                "master_jacobi_halo": float(master["seconds"].sum() / max(g["rank"].nunique(), 1)),
                "workers_jacobi": float(
                    workers.groupby("rank")["seconds"].mean().mean() if len(workers) else np.nan
                ),
            }
        )
    return pd.DataFrame(rows).sort_values("master_share").reset_index(drop=True)


def halo_share_table(runs: Iterable[Results | pd.DataFrame]) -> pd.DataFrame:
    """Per run (P x T variant): the master thread's phases (breakdown_table, how='master'), the
    nodes its ranks ran on (hosts in its records), and the halo's share of the phases' sum: the
    part of an iteration spent exchanging halos, as Stathopoulos 2010 times it."""
    rows = []
    for run in runs:
        frame = as_frame(run)
        row = breakdown_table(run, how="master")
        rows.append(row.assign(nodes=frame["host"].nunique() if "host" in frame else 1))
    table = pd.concat(rows, ignore_index=True)
    return table.assign(halo_share=table["halo"] / table["sum"])


def published_halo_share(
    appendix: pd.DataFrame, system: str = "XT6", processors: int = 192, scheme: str = "Master Only"
) -> pd.DataFrame:
    """Stathopoulos 2010, Appendix A.5: the halo swap's share of the total for pure MPI and one
    scheme on one system and processor count, per threads per process."""
    rows = appendix[(appendix["system"] == system) & (appendix["processors"] == processors)
                    & appendix["scheme"].isin(["pure MPI", scheme])]  # fmt: skip
    rows = rows.drop_duplicates(["scheme", "threads"]).sort_values("threads")
    out = rows[["table", "system", "processors", "scheme", "decomposition", "threads", "halo_s",
                "total_s"]]  # fmt: skip
    return out.assign(halo_share=out["halo_s"] / out["total_s"]).reset_index(drop=True)
