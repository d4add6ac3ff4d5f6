"""Pictures of the halo exchange lab (04): time breakdowns, the master-share curve, square vs
rectangular domains, with the published numbers beside the student's.

    table = breakdown_table([res_pure_2x1, res_hyb_1x2, ...])   # one row per run, seconds/phase
    breakdown_plot(table, reference=REFERENCE["000-appendix-a5"].frame)
    master_share_plot([res_share_0, res_share_25, ...])
    shape_plot(square_table, rect_table, reference=REFERENCE["003-table-3"].frame)

Plots take records and return a Figure; they launch nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..records import Results, as_frame, require_columns

PHASES = ("jacobi", "halo", "reduction", "other")
PHASE_COLOURS = {
    "jacobi": "#4c72b0",
    "halo": "#55a868",
    "reduction": "#dd8452",
    "other": "#c44e52",
}
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

    how='mean' averages over every rank and thread (000 does so for Multiple); 'max' takes the
    slowest rank and thread per phase; 'master' uses thread 0 averaged over ranks (000 times
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


def _stack(ax, labels: Sequence[str], table: pd.DataFrame, columns: Sequence[str]) -> None:
    bottom = np.zeros(len(table))
    xs = np.arange(len(table))
    for phase, column in zip(PHASES, columns, strict=True):
        values = table[column].fillna(0.0).to_numpy(dtype=float)
        ax.bar(xs, values, bottom=bottom, color=PHASE_COLOURS[phase], label=phase, width=0.7)
        bottom += values
    ax.set_xticks(xs, labels, rotation=40, ha="right", fontsize=8)


def breakdown_plot(
    table: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    system: str = "XT4",
    processors: int | None = None,
    title: str | None = None,
) -> Figure:
    """Stacked bars jacobi / halo / reduction / other for every run of `table` (from
    breakdown_table); with `reference` (REFERENCE['000-appendix-a5'].frame) a second panel
    shows the published breakdown of one system (XT4 or XT6) at one processor count."""
    require_columns(table, [*PHASES, "label"], "breakdown plots")
    panels = 2 if reference is not None else 1
    fig, axes = plt.subplots(
        1, panels, figsize=(6.0 * panels, 4.2), squeeze=False, constrained_layout=True
    )
    ax = axes[0][0]
    _stack(ax, list(table["label"]), table, PHASES)
    ax.set_ylabel("seconds")
    ax.set_title(title or "your machine: time per phase", fontsize=10)
    ax.legend(fontsize=8)
    if reference is not None:
        ref = reference[reference["system"] == system]
        if ref.empty:
            raise ValueError(f"no published rows for system {system!r} (XT4 or XT6)")
        procs = processors or int(ref["processors"].min())
        ref = ref[ref["processors"] == procs]
        # each table repeats its pure MPI row: show it once
        ref = ref.drop_duplicates(subset=["scheme", "decomposition"])
        labels = [
            "pure MPI" if s == "pure MPI" else f"{s} {t}t"
            for s, t in zip(ref["scheme"], ref["threads"], strict=True)
        ]
        rax = axes[0][1]
        _stack(rax, labels, ref, ("jacobi_s", "halo_s", "delta_s", "other_s"))
        rax.set_ylabel("seconds")
        rax.set_title(
            f"published: Cray {system}, {procs} cores (000, Appendix A.5)\n"
            "reduction = 'delta' (squared change + all-reduce)",
            fontsize=9,
        )
    return fig


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


def master_share_plot(
    runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame] | None = None,
    table: pd.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """Total time against the master's share of the inner planes (funnelled halo3d); the best
    share balances the master's halo + jacobi against the workers' jacobi (000 Table 4.36)."""
    if table is None:
        if runs is None:
            raise ValueError("pass the runs (Results) or a master_share_table")
        table = master_share_table(runs)
    fig, ax = plt.subplots(figsize=(6.0, 4.0), constrained_layout=True)
    ax.plot(table["master_share"], table["total"], "o-", color="k", label="total (slowest thread)")
    ax.plot(
        table["master_share"],
        table["master_jacobi_halo"],
        "s--",
        color=PHASE_COLOURS["halo"],
        label="master: jacobi + halo",
    )
    ax.plot(
        table["master_share"],
        table["workers_jacobi"],
        "^--",
        color=PHASE_COLOURS["jacobi"],
        label="other threads: jacobi",
    )
    best = table.loc[table["total"].idxmin()]
    ax.axvline(best["master_share"], color="0.6", linestyle=":")
    ax.text(best["master_share"], best["total"], f" best {best['master_share']:.2f}", fontsize=8)
    ax.set_xlabel("master_share (fraction of the inner X planes the master updates)")
    ax.set_ylabel("seconds")
    ax.set_title(title or "funnelled: tuning the master's share", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def shape_plot(
    square: pd.DataFrame,
    rectangular: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """Speedup over pure MPI (pure time / hybrid time) of each hybrid variant on a square and on
    a rectangular domain (breakdown tables), beside 003 Table 3 (rectangular, Cray XT5)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0), constrained_layout=True)
    groups: dict[str, dict[str, float]] = {}
    for name, table in (("square", square), ("rectangular", rectangular)):
        require_columns(table, ["variant", "total"], "shape plots")
        pure = table[table["variant"] == "pure"]["total"]
        if pure.empty:
            raise ValueError(f"the {name} table needs a pure run to compute speedups")
        for row in table[table["variant"] != "pure"].itertuples():
            groups.setdefault(name, {})[row.variant] = float(pure.iloc[0]) / float(row.total)
    if reference is not None:
        ref = reference.dropna(subset=["speedup"])
        ref = ref[ref["schedule"] == "static"]
        groups["003 XT5 rectangular"] = {
            v.replace("hybrid ", "hybrid"): s
            for v, s in zip(ref["version"], ref["speedup"], strict=True)
        }
    variants = sorted({v for g in groups.values() for v in g})
    width = 0.8 / max(len(groups), 1)
    xs = np.arange(len(variants))
    for i, (name, values) in enumerate(groups.items()):
        ax.bar(
            xs + (i - (len(groups) - 1) / 2) * width,
            [values.get(v, np.nan) for v in variants],
            width,
            label=name,
        )
    ax.axhline(1.0, color="0.4", linewidth=0.8)
    ax.set_xticks(xs, variants)
    ax.set_ylabel("speedup over pure MPI")
    ax.set_title(title or "square vs rectangular domain (003 Table 3)", fontsize=10)
    ax.legend(fontsize=8)
    return fig
