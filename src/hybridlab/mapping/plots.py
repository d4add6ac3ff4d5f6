"""Pictures of labs 00 and 06: the CPU of each unbound thread run after run, the triad bound
against piled (lab 00); rank maps coloured by node, PEs on an XT6 node, processes on modules,
time against cost, and weak scaling packed vs spread. They draw; they launch nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..machine.topology import Topology
from ..plots import RANK_COLOURS, machine_note, strip_plot
from ..runs.records import Results
from .tables import packed_cores, per_numa_cores, regions_of

CUT = "#d55e00"  # vermillion (Okabe-Ito): measured links across nodes


def _axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is None:
        return plt.subplots(figsize=size)
    return ax.figure, ax


def cpu_history_plot(history: pd.DataFrame, usable: Sequence[int]) -> Figure:
    """The CPU of each thread, run after run (records with a `run` column, one rank: see
    mapping.exercise.unbound_history), threads side by side around their CPU."""
    threads = history["thread"].nunique()
    runs = history["run"].nunique()
    fig, ax = plt.subplots(figsize=(7, 2.8))
    for thread, rows in history.groupby("thread"):
        ax.plot(rows["run"], rows["cpu"] + 0.08 * (thread - (threads - 1) / 2), "o-",
                color=RANK_COLOURS[int(thread) % len(RANK_COLOURS)], label=f"thread {thread}")  # fmt: skip
    ax.set_xlabel("run")
    ax.set_xticks(range(runs))
    ax.set_ylabel("CPU")
    ax.set_yticks(sorted(usable))
    ax.set_title(f"unbound, 1 rank x {threads} threads: the CPU of each thread, run after run",
                 fontsize=10)  # fmt: skip
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


def piling_plot(timed: Mapping[str, Results], threads: int) -> Figure:
    """Seconds per repetition of each sample of the bound and the piled run (mapping.exercise.
    piling_runs), a dot per sample and the median; says so when one CPU cannot show piling."""
    title = f"1 rank x {threads} threads: bound vs piled (median: black bar)"
    ax = strip_plot({f"bind='{b}'": r.records["seconds"] for b, r in timed.items()}, title=title)
    if threads < 2:
        machine_note(ax, "one usable CPU: piling cannot be shown on this machine")
    ax.figure.tight_layout()
    return ax.figure


def rank_map_plot(
    rows: int, cols: int, node_of_rank: Sequence[int], title: str = "", ax: Axes | None = None
) -> Figure:
    """Ranks on their grid, coloured by node; each link to the right and below drawn in two
    halves, each in the colour of its rank's node (a link in two colours joins two nodes)."""
    fig, ax = _axes(ax, (0.7 * cols + 1, 0.7 * rows + 1))
    pos = {r: (r % cols, rows - 1 - r // cols) for r in range(rows * cols)}
    colour = {r: RANK_COLOURS[node_of_rank[r] % len(RANK_COLOURS)] for r in pos}
    for r, (x, y) in pos.items():
        for dx, dy in ((0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5)):
            if 0 <= x + 2 * dx < cols and 0 <= y + 2 * dy < rows:
                ax.plot([x, x + dx], [y, y + dy], color=colour[r], lw=3, zorder=1)
        ax.add_patch(Rectangle((x - 0.3, y - 0.3), 0.6, 0.6, facecolor=colour[r], zorder=2))
        ax.text(x, y, str(r), ha="center", va="center", color="white", fontsize=8, zorder=3)
    ax.set_xlim(-0.6, cols - 0.4)
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9)
    return fig


def node_plot(
    node: Mapping[int, Sequence[int]],
    thread_counts: Sequence[int],
    per_numa: Mapping[int, int] | None = None,
    totals: Mapping[int, float] | None = None,
    title: str = "",
    ax: Axes | None = None,
) -> Figure:
    """One row per thread count: each PE's cores coloured, straddling PEs hatched; NUMA regions
    as bands. `per_numa` (threads -> aprun -S) places with -S where given; `totals` are written
    at the right of each row (e.g. Stathopoulos 2010, Table A.23's seconds)."""
    cores = [c for region in sorted(node) for c in sorted(node[region])]
    column = {c: i for i, c in enumerate(cores)}
    fig, ax = _axes(ax, (max(6.0, 0.32 * len(cores) + 3), 0.45 * len(thread_counts) + 1.4))
    for i, region in enumerate(sorted(node)):
        cols = [column[c] for c in node[region]]
        ax.axvspan(
            min(cols) - 0.5, max(cols) + 0.5, color="0.93" if i % 2 == 0 else "0.85", zorder=0
        )
        ax.text(
            (min(cols) + max(cols)) / 2,
            len(thread_counts) - 0.3,
            f"NUMA {region}",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    for row, t in enumerate(thread_counts):
        y = len(thread_counts) - 1 - row
        s = (per_numa or {}).get(t)
        pes = per_numa_cores(node, t, s) if s else packed_cores(node, t)
        for k, members in enumerate(pes):
            straddles = len(regions_of(node, members)) > 1
            for c in members:
                ax.add_patch(
                    Rectangle(
                        (column[c] - 0.45, y - 0.35),
                        0.9,
                        0.7,
                        facecolor=RANK_COLOURS[k % len(RANK_COLOURS)],
                        edgecolor=CUT if straddles else "white",
                        hatch="///" if straddles else None,
                        lw=1.2,
                        zorder=2,
                    )
                )
        label = f"{len(pes)} x {t}" + (f"  -S {s}" if s else "")
        ax.text(-0.8, y, label, ha="right", va="center", fontsize=8)
        if totals and t in totals:
            ax.text(len(cores) - 0.2, y, f"{totals[t]:.2f} s", ha="left", va="center", fontsize=8)
    ax.set_xlim(-0.6, len(cores) + (2.2 if totals else -0.4))
    ax.set_ylim(-0.6, len(thread_counts) + 0.3)
    ax.set_xticks(range(len(cores)), [str(c) for c in cores], fontsize=6)
    ax.set_yticks([])
    ax.set_xlabel(
        "core (hatched, red edge: the PE's threads span two or more NUMA regions)", fontsize=8
    )
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or "PEs x threads per node, packed", fontsize=9)
    fig.tight_layout()
    return fig


def modules_plot(
    processes: int,
    module_of: Sequence[int],
    modules: int = 4,
    cpus_per_module: int = 8,
    title: str = "",
    ax: Axes | None = None,
) -> Figure:
    """Processes (numbered from 1, as in Smith et al. 2004) in the CPU slots of each module of one frame."""
    fig, ax = _axes(ax, (5, 1.8))
    filled = [0] * modules
    for p, m in enumerate(module_of):
        x = m * (cpus_per_module + 1) + filled[m]
        filled[m] += 1
        ax.add_patch(Rectangle((x, 0), 0.9, 0.9, facecolor=RANK_COLOURS[m % len(RANK_COLOURS)]))
        ax.text(x + 0.45, 0.45, str(p + 1), ha="center", va="center", color="white", fontsize=7)
    for m in range(modules):
        x0 = m * (cpus_per_module + 1)
        ax.add_patch(Rectangle((x0 - 0.05, -0.05), cpus_per_module, 1.0, fill=False, lw=0.8))
        ax.text(
            x0 + cpus_per_module / 2,
            -0.3,
            f"MCM {m}: {filled[m]}",
            ha="center",
            va="top",
            fontsize=8,
        )
    ax.set_xlim(-0.5, modules * (cpus_per_module + 1))
    ax.set_ylim(-0.9, 1.1)
    ax.axis("off")
    ax.set_title(title or f"{processes} processes", fontsize=9)
    return fig


def time_cost_plot(dlpoly: pd.DataFrame, castep: pd.DataFrame | None = None) -> Figure:
    """Published time against AUs: DL_POLY per configuration (one line per configuration through
    16..512 processes), and CASTEP's five configurations of 144 processes."""
    panels = 2 if castep is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.2), squeeze=False)
    ax = axes[0][0]
    for i, (config, rows) in enumerate(dlpoly.groupby("config", sort=False)):
        rows = rows.sort_values("processes")
        ax.plot(
            rows["au"],
            rows["seconds"],
            "o-",
            ms=4,
            color=plt.get_cmap("tab10")(i % 10),
            label=config,
        )
        last = rows.iloc[-1]
        ax.annotate(
            f"{int(last['processes'])}",
            (last["au"], last["seconds"]),
            fontsize=6,
            xytext=(3, 0),
            textcoords="offset points",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cost (AU)")
    ax.set_ylabel("time (s)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("DL_POLY test 8, 16-512 processes (Armstrong et al.)", fontsize=9)
    ax.text(
        0.02,
        0.02,
        "as printed: S2N8's AUs at 64-512 repeat S3N12's (an erratum)",
        transform=ax.transAxes,
        fontsize=7,
        color="0.3",
    )
    if castep is not None:
        ax = axes[0][1]
        rows = castep.dropna(subset=["vanilla_au_ratio"])
        for col, ratio, marker in (
            ("vanilla_s", "vanilla_au_ratio", "o"),
            ("shm_s", "shm_au_ratio", "s"),
        ):
            ax.scatter(rows[ratio], rows[col], marker=marker, label=col[:-2])
            for _, r in rows.iterrows():
                ax.annotate(
                    f"{r['id']} (-N {int(r['per_node'])} -S {int(r['per_numa'])})",
                    (r[ratio], r[col]),
                    fontsize=6,
                    xytext=(3, 2),
                    textcoords="offset points",
                )
        ax.set_xlabel("cost relative to the XT4 run (AU ratio)")
        ax.set_ylabel("time (s)")
        ax.legend(fontsize=7)
        ax.set_title("CASTEP al3x3, 144 processes (Armstrong et al.)", fontsize=9)
    fig.tight_layout()
    return fig


def weak_scaling_plot(
    summary: pd.DataFrame,
    topology: Topology,
    castep: pd.DataFrame | None = None,
    title: str = "",
) -> Figure:
    """Per-rank time relative to 1 rank against ranks, for each work and placement; the caveat
    of a machine that cannot tell packed from spread is written on the plot, and CASTEP's
    published packed-to-spread configurations are drawn beside."""
    panels = 2 if castep is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.2), squeeze=False)
    ax = axes[0][0]
    styles = {"memory": "-", "compute": "--"}
    markers = {"cores": "o", "spread": "s", "none": "^", "one-core": "x"}
    for (work, bind), rows in summary.groupby(["work", "bind"]):
        rows = rows.sort_values("ranks")
        ax.plot(
            rows["ranks"],
            rows["slowdown"],
            styles.get(work, "-"),
            marker=markers.get(bind, "o"),
            label=f"{work}, {'packed' if bind == 'cores' else bind}",
        )
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set_xlabel("ranks (same work on every rank)")
    ax.set_ylabel("time per rank / time of 1 rank")
    ax.set_xticks(sorted(summary["ranks"].unique()))
    ax.legend(fontsize=7)
    ax.set_title(title or "your machine: weak scaling", fontsize=9)
    notes = []
    if len(topology.sockets) == 1 and len(topology.numa_nodes) == 1:
        notes.append(
            "1 socket, 1 NUMA node: packed and spread\nput ranks on the same memory bus here"
        )
    if len(topology.usable) < 4:
        notes.append(f"only {len(topology.usable)} usable CPUs")
    if notes:
        machine_note(ax, "\n".join(notes))
    if castep is not None:
        ax = axes[0][1]
        rows = castep.dropna(subset=["vanilla_au_ratio"]).sort_values("per_node")
        x = np.arange(len(rows))
        ax.bar(x - 0.2, rows["vanilla_s"], 0.4, label="vanilla")
        ax.bar(x + 0.2, rows["shm_s"], 0.4, label="SHM")
        ax.set_xticks(
            x,
            [f"{r.id}\n-N {int(r.per_node)} -S {int(r.per_numa)}" for r in rows.itertuples()],
            fontsize=7,
        )
        ax.set_ylabel("time (s)")
        ax.legend(fontsize=7)
        ax.set_title(
            "published: CASTEP, 144 processes, packed (A) to spread (D, E) (Armstrong et al.)", fontsize=8
        )
    fig.tight_layout()
    return fig


def cut_links_plot(
    table: pd.DataFrame, published: pd.DataFrame, *, grid: str, note: str | None = None
) -> Figure:
    """Left: for each rank map of the `grid` (e.g. '2 x 4 ranks on 2 nodes'), the inter-node
    links the model counts against the links the run's messages crossed (from the records);
    right: Rabenseifner, slide 13 (2 SMP nodes of 8 CPUs). `note` (what this machine cannot
    show) is written on the left panel."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 3.8))
    x = np.arange(len(table))
    ax.bar(x - 0.2, table["model_cut_links"], 0.4, color="0.7", label="model (your cut_edges)")
    ax.bar(x + 0.2, table["measured_cut_links"], 0.4, color=CUT,
           label="measured: messages across nodes / 2")  # fmt: skip
    ax.set_xticks(x, table["map"])
    ax.set_ylabel("inter-node links")
    ax.set_title(f"{grid}: cut links, model and measured", fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_ylim(0, max(1.0, float(table[["model_cut_links", "measured_cut_links"]].max().max())) * 1.6)
    if note:
        machine_note(ax, note, where="top", width=60)
    ref.bar(published["mapping"], published["inter_node_links"], color=CUT)
    for i, v in enumerate(published["inter_node_links"]):
        ref.text(i, v, str(v), ha="center", va="bottom", fontsize=8)
    ref.set_ylabel("inter-node links")
    ref.set_title("Published: Rabenseifner, slide 13 (16 ranks, 2 nodes of 8 CPUs)", fontsize=9)
    fig.tight_layout()
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
