"""Pictures of the halo exchange lab (04): time breakdowns, the master-share curve, square vs
rectangular domains, with the published numbers beside the student's.

    table = breakdown_table([res_pure_2x1, ...])   # halo.tables: one row per run, seconds/phase
    breakdown_plot(table, reference=REFERENCE["000-appendix-a5"].frame)
    master_share_plot([res_share_0, res_share_25, ...])
    shape_plot(square_table, rect_table, reference=REFERENCE["003-table-3"].frame)
    halo_share_plot(halo_share_table(runs), published_halo_share(appendix), title="...")

Plots take records and return a Figure; they launch nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..plots.palette import PHASE_COLOURS, phase_style
from ..runs.records import Results, require_columns
from .tables import PHASES, master_share_table


def _stack(ax, labels: Sequence[str], table: pd.DataFrame, columns: Sequence[str]) -> None:
    bottom = np.zeros(len(table))
    xs = np.arange(len(table))
    for phase, column in zip(PHASES, columns, strict=True):
        values = table[column].fillna(0.0).to_numpy(dtype=float)
        ax.bar(xs, values, bottom=bottom, label=phase, width=0.7, **phase_style(phase))
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
    ax.set_ylabel("seconds (max over ranks and threads)")
    ax.set_title(title or "your machine: time per phase, max over ranks and threads", fontsize=10)
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
            f"published: Cray {system}, {procs} cores (Stathopoulos 2010, Appendix A.5)\n"
            "reduction = 'delta' (squared change + all-reduce); masteronly: the master's\n"
            "time; multiple: halo and jacobi are means over threads (section 4.6.1)",
            fontsize=9,
        )
    return fig


def master_share_plot(
    runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame] | None = None,
    table: pd.DataFrame | None = None,
    title: str | None = None,
    note: str | None = None,
) -> Figure:
    """Total time against the master's share of the inner planes (funnelled halo3d); the best
    share balances the master's halo + jacobi against the workers' jacobi (Stathopoulos 2010, Table 4.36).
    `note` is written on the plot (e.g. that the run was oversubscribed)."""
    if table is None:
        if runs is None:
            raise ValueError("pass the runs (Results) or a master_share_table")
        table = master_share_table(runs)
    fig, ax = plt.subplots(figsize=(6.0, 4.0), constrained_layout=True)
    ax.plot(
        table["master_share"],
        table["total"],
        "o-",
        color="k",
        label="total (max over ranks and threads)",
    )
    for column, style, phase, label in (
        ("master_jacobi_halo", "s--", "halo", "master: jacobi + halo (mean over ranks)"),
        ("workers_jacobi", "^--", "jacobi", "other threads: jacobi (mean over threads, ranks)"),
    ):
        ax.plot(
            table["master_share"], table[column], style, color=PHASE_COLOURS[phase], label=label
        )
    best = table.loc[table["total"].idxmin()]
    ax.axvline(best["master_share"], color="0.6", linestyle=":")
    ax.text(best["master_share"], best["total"], f" best {best['master_share']:.2f}", fontsize=8)
    ax.set_xlabel("master_share (fraction of the inner X planes the master updates)")
    ax.set_ylabel("seconds")
    ax.set_title(title or "funneled: tuning the master's share", fontsize=10)
    ax.legend(fontsize=8)
    machine_note(ax, note, where="figure")
    return fig


def shape_plot(
    square: pd.DataFrame,
    rectangular: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    title: str | None = None,
    note: str | None = None,
) -> Figure:
    """Speedup over pure MPI (pure time / hybrid time, totals = max over ranks and threads) of
    each hybrid variant on a square and on a rectangular domain (breakdown tables), beside Luecke et al.
    Table 3 (rectangular, Cray XT5). `note` is written on the plot (e.g. oversubscription, or
    that the comparison is degenerate on this machine)."""
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
    ax.set_ylabel("speedup over pure MPI (run time = max over ranks, threads)")
    ax.set_title(title or "square vs rectangular domain (Luecke et al., Table 3)", fontsize=10)
    ax.legend(fontsize=8)
    machine_note(ax, note, where="figure")
    return fig


def halo_share_plot(measured: pd.DataFrame, published: pd.DataFrame, *, title: str,
                    note: str | None = None) -> Figure:  # fmt: skip
    """Left: the halo's share of the master's iteration for each measured P x T (halo_share_table),
    labelled with the nodes it ran on; right: the same share published by Stathopoulos 2010
    (published_halo_share) against threads per process. `note` goes on the left panel."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 4), width_ratios=(1, 1.3))
    xs = np.arange(len(measured))
    ax.bar(xs, 100 * measured["halo_share"], color=PHASE_COLOURS["halo"])
    ax.set_xticks(xs, [f"{r.ranks}x{r.threads} {r.variant}\n{r.nodes} node{'s' * (r.nodes > 1)}"
                       for r in measured.itertuples()], fontsize=8)  # fmt: skip
    ax.set_ylabel("halo / (jacobi + halo + reduction + other), %")
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, min(140.0, max(10.0, 100 * float(measured["halo_share"].max())) * 1.5))
    if note:
        machine_note(ax, note, where="top", width=55)
    for scheme, g in published.groupby("scheme", sort=False):
        ref.plot(g["threads"], 100 * g["halo_share"], "o-" if len(g) > 1 else "s",
                 label=scheme, color=PHASE_COLOURS["halo"] if len(g) > 1 else "black")  # fmt: skip
    ref.set_xscale("log", base=2)
    ticks = sorted(published["threads"].unique())
    ref.set_xticks(ticks, [str(t) for t in ticks])
    ref.set_xlabel("threads per process")
    ref.set_ylabel("halo swap / total, %")
    first = published.iloc[-1]
    ref.set_title(f"Published: Stathopoulos 2010, Table {first['table']} (Cray {first['system']}, "
                  f"{int(first['processors'])} cores)", fontsize=9)  # fmt: skip
    ref.legend(fontsize=8)
    fig.tight_layout()
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
