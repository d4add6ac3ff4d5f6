"""Pictures of synchronisation (lab 02): EPCC overheads with their spread, timelines, barriers.

    table = overhead_table(records, by=["threads"])     # hybridlab.sync.tables
    overhead_plot(table, x="threads")                   # error bars, untrusted points hollow
    timeline_plot(imbalance_records)                    # Gantt: compute vs barrier per thread
    barrier_range_plot({"imbalanced": t1, "rebalanced": t2}, REFERENCE["001-table-3"].frame)
    wait_policy_plot({"active": res_a, "passive": res_p})
    run_time_plot(measured, predicted, ranks=4)         # measured runs beside a prediction

Plots take records and return a Figure; they launch nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..plots.palette import PHASE_COLOURS, phase_style
from ..runs.records import Results, as_frame, require_columns
from .tables import wait_policy_table

CONSTRUCT_MARKERS = {
    "parallel": "o",
    "for": "s",
    "barrier": "^",
    "single": "v",
    "critical": "D",
    "reduction": "P",
    "mpi_barrier": "X",
    "hybrid_barrier": "*",
}


# ------------------------------------------------------------------------------ overheads


def overhead_plot(
    table: pd.DataFrame,
    x: str = "threads",
    constructs: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    log: bool = False,
    reference: Mapping[str, float] | None = None,
    clip: bool = True,
) -> Figure:
    """Overhead (us) against `x` for each construct, with the spread as error bars.

    Points whose samples are too noisy to trust are drawn hollow and named in the legend, not
    hidden. With `clip`, the axis is scaled to the overheads, so that one huge error bar (a
    preempted sample) does not flatten every point; bars cut by the frame are said to be so.
    `reference` draws horizontal lines labelled by name (e.g. published values)."""
    require_columns(
        table, [x, "construct", "overhead_us", "spread_us", "trusted"], "overhead tables"
    )
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
    else:
        fig = ax.figure
    names = list(constructs) if constructs else list(dict.fromkeys(table["construct"]))
    colours = plt.get_cmap("tab10").colors
    n = max(len(names), 1)
    table = table.copy()
    categorical = not pd.api.types.is_numeric_dtype(table[x])
    if categorical:  # e.g. "2x1", "1x2": evenly spaced, in the order they first appear
        categories = list(dict.fromkeys(table[x]))
        table["_x"] = table[x].map({c: i for i, c in enumerate(categories)})
    else:
        table["_x"] = table[x]
    xs_all = sorted(table["_x"].unique())
    step = (min(np.diff(xs_all)) if len(xs_all) > 1 else 1.0) * 0.06
    any_untrusted = False
    for i, name in enumerate(names):
        rows = table[table["construct"] == name].sort_values("_x")
        if rows.empty:
            continue
        colour = colours[i % len(colours)]
        marker = CONSTRUCT_MARKERS.get(name, "o")
        offset = 0.0 if log else (i - (n - 1) / 2) * step  # keep error bars apart
        xs = rows["_x"].to_numpy(dtype=float) + offset
        ax.errorbar(
            xs,
            rows["overhead_us"],
            yerr=rows["spread_us"],
            color=colour,
            marker=marker,
            capsize=3,
            linewidth=1.2,
            label=name,
            markerfacecolor=colour,
        )
        bad = ~rows["trusted"].to_numpy(dtype=bool)
        if bad.any():
            any_untrusted = True
            ax.plot(
                xs[bad],
                rows["overhead_us"].to_numpy()[bad],
                linestyle="none",
                marker=marker,
                markersize=9,
                markerfacecolor="white",
                markeredgecolor=colour,
                markeredgewidth=1.5,
                zorder=5,
            )
    for label, value in (reference or {}).items():
        ax.axhline(value, color="0.4", linestyle=":", linewidth=1)
        ax.text(ax.get_xlim()[0], value, f" {label}", va="bottom", fontsize=8, color="0.3")
    handles, labels = ax.get_legend_handles_labels()
    if any_untrusted:
        handles.append(
            Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", color="0.3")
        )
        labels.append("hollow: spread too wide to trust")
    ax.legend(handles, labels, fontsize=8, loc="best")
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    if log:
        ax.set_yscale("symlog", linthresh=0.1)
    if clip:
        _clip_to_values(ax, table[table["construct"].isin(names)], log)
    ax.set_xticks(xs_all, categories if categorical else [f"{v:g}" for v in xs_all])
    ax.set_xlabel(x)
    ax.set_ylabel("overhead per repetition (µs)\nmedian test - median reference")
    ax.set_title(title or f"EPCC overheads against {x} (error bars: spread)", fontsize=10)
    fig.tight_layout()
    return fig


def _clip_to_values(ax: Axes, table: pd.DataFrame, log: bool) -> None:
    """Scale the y axis to the overheads (with room), and say so when error bars go beyond it."""
    values = table["overhead_us"].to_numpy(dtype=float)
    spreads = table["spread_us"].to_numpy(dtype=float)
    if values.size == 0 or not np.all(np.isfinite(values)):
        return
    lo, hi = min(0.0, values.min()), max(0.0, values.max())
    if log:
        top, bottom = hi * 3 + 0.1, (lo * 3 - 0.1) if lo < 0 else -0.05
    else:
        pad = 0.25 * (hi - lo) or 0.1
        top, bottom = hi + pad, lo - pad
    if np.any(values + spreads > top) or np.any(values - spreads < bottom):
        ax.set_ylim(bottom, top)
        ax.text(
            0.99,
            0.01,
            "some error bars extend beyond the frame",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=7,
            color="0.35",
        )


# ------------------------------------------------------------------------------ timelines


def timeline_plot(
    records: Results | pd.DataFrame,
    ax: Axes | None = None,
    title: str | None = None,
    unit: str = "ms",
) -> Figure:
    """Gantt chart: one row per (rank, thread), a bar per phase (compute, barrier, comm, idle)."""
    frame = as_frame(records)
    require_columns(frame, ["rank", "thread", "phase", "start", "end"], "timeline records")
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    rows = frame[["rank", "thread"]].drop_duplicates().sort_values(["rank", "thread"])
    lanes = {(int(r), int(t)): i for i, (r, t) in enumerate(rows.itertuples(index=False))}
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.0, 0.55 * len(lanes) + 1.6))
    else:
        fig = ax.figure
    phases = list(dict.fromkeys(frame["phase"]))
    for phase in phases:
        part = frame[frame["phase"] == phase]
        style = phase_style(phase)
        for (rank, thread), group in part.groupby(["rank", "thread"]):
            lane = lanes[(int(rank), int(thread))]
            spans = [
                (s * scale, (e - s) * scale)
                for s, e in zip(group["start"], group["end"], strict=True)
            ]
            ax.broken_barh(
                spans, (lane - 0.38, 0.76), facecolors=style["color"], hatch=style["hatch"],
                edgecolor="white", linewidth=0.4,
            )
    ax.set_yticks(list(lanes.values()), [f"rank {r} thread {t}" for r, t in lanes])
    ax.invert_yaxis()
    ax.set_xlabel(f"time since the common start ({unit})")
    ax.set_xlim(0, frame["end"].max() * scale * 1.01)
    ax.legend(
        handles=[Patch(facecolor=(st := phase_style(p))["color"], hatch=st["hatch"],
                       edgecolor="white", label=p) for p in phases],  # fmt: skip
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    ax.set_title(title or "timeline: each rank and thread, phase by phase", fontsize=10)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------- barrier tables


def barrier_range_plot(
    ours: Mapping[str, pd.DataFrame],
    published: pd.DataFrame | None = None,
    routine: str = "barrier",
    published_routine: str = "MPI_Barrier",
) -> Figure:
    """Barrier time, average with the min..max range across ranks: the student's runs (left) and
    the published table (right, e.g. Smith et al. 2004, Table 3), each on its own scale."""
    panels = 2 if published is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.0 * panels, 3.6), squeeze=False)
    ax = axes[0][0]
    labels = list(ours)
    for i, label in enumerate(labels):
        row = ours[label].loc[routine]
        ax.bar(i, row["avg_s"] * 1e3, color=PHASE_COLOURS["barrier"], alpha=0.8)
        ax.errorbar(
            i,
            row["avg_s"] * 1e3,
            yerr=[[(row["avg_s"] - row["min_s"]) * 1e3], [(row["max_s"] - row["avg_s"]) * 1e3]],
            color="black",
            capsize=5,
        )
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("barrier time per rank (ms)")
    ax.set_title("your runs: avg, whiskers min..max over ranks", fontsize=9)
    if published is not None:
        ax2 = axes[0][1]
        part = published[published["routine"] == published_routine]
        xs = np.arange(len(part))
        ax2.bar(xs, part["avg_s"], color="0.6")
        ax2.errorbar(
            xs,
            part["avg_s"],
            yerr=[part["avg_s"] - part["min_s"], part["max_s"] - part["avg_s"]],
            color="black",
            capsize=4,
            linestyle="none",
        )
        ax2.set_xticks(xs, [str(p) for p in part["processors"]])
        ax2.set_xlabel("processors")
        ax2.set_ylabel(f"{published_routine} time (s)")
        ax2.set_title("H2MOL, Smith et al. 2004, Table 3 (published)", fontsize=9)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- sleeping threads


def wait_policy_plot(runs: Mapping[str, Results | pd.DataFrame]) -> Figure:
    """For each run and thread: wall time outside compute (hatched) and the CPU time the thread
    burnt in it (solid). A sleeping thread burns almost none; a spinning one burns it all."""
    table = wait_policy_table(runs)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(table) + 2), 3.8))
    xs = np.arange(len(table))
    ax.bar(
        xs,
        table["waiting_wall_s"] * 1e3,
        color="white",
        edgecolor="0.3",
        hatch="//",
        label="wall time not computing",
    )
    colours = [
        PHASE_COLOURS["comm"] if r.startswith("master") else PHASE_COLOURS["idle"]
        for r in table["role"]
    ]
    ax.bar(xs, table["waiting_cpu_s"] * 1e3, width=0.5, color=colours, label="CPU time used")
    ax.set_xticks(
        xs,
        [f"{r.run}\nr{r.rank} t{r.thread}\n{'master' if r.role.startswith('master') else 'waits'}"
         for r in table.itertuples()],  # the role in words too, not only in colour
        fontsize=8,
    )
    ax.set_ylabel("ms")
    ax.legend(
        handles=[
            Patch(facecolor="white", edgecolor="0.3", hatch="//", label="wall time not computing"),
            Patch(facecolor=PHASE_COLOURS["comm"], label="CPU time: master in MPI"),
            Patch(facecolor=PHASE_COLOURS["idle"], label="CPU time: thread waiting"),
        ],
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    ax.set_title("sleeping threads: CPU burnt while the master communicates", fontsize=10)
    fig.tight_layout()
    return fig


__all__ = [
    "PHASE_COLOURS",
    "barrier_range_plot",
    "overhead_plot",
    "timeline_plot",
    "wait_policy_plot",
]


def run_time_plot(measured: Mapping[str, float], predicted: float, *, ranks: int) -> Figure:
    """Run times (seconds) as horizontal bars: the measured runs (imbalanced, then rebalanced)
    and, hatched, the student's prediction of the rebalanced one (nan: none yet)."""
    bars = {**measured, "rebalanced (your prediction)": predicted}
    colours = [PHASE_COLOURS["barrier"], PHASE_COLOURS["compute"]][: len(measured)]
    fig, ax = plt.subplots(figsize=(6, 2.6))
    drawn = ax.barh(list(bars), [v * 1e3 for v in bars.values()],
                    color=colours + ["0.6"] * (len(bars) - len(colours)))  # fmt: skip
    drawn[-1].set_hatch("//")
    ax.set_xlabel("run time (ms)")
    ax.set_title(f"{ranks} ranks: the imbalanced run, the rebalanced run, your prediction",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    return fig



from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
