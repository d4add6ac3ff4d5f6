"""Where ranks and threads ran: one column per CPU, a box per (rank, thread)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..records import Results, as_frame, require_columns
from ..topology import Topology
from .palette import RANK_COLOURS, SHARED


def placement_map(
    records: Results | pd.DataFrame,
    topology: Topology,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """One column per CPU; a box for each (rank, thread) that ran there; a CPU shared by threads
    has its boxes stacked, outlined thick and labelled "shared"."""
    frame = as_frame(records)
    require_columns(frame, ["rank", "thread", "cpu"], "placement maps")
    frame = frame.drop_duplicates(["rank", "thread"])
    cpus = [c.cpu for c in topology.cpus]
    column = {cpu: i for i, cpu in enumerate(cpus)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(cpus) + 1.5), 3.2))
    else:
        fig = ax.figure
    # NUMA nodes as shaded bands behind the columns
    for node, members in topology.numa_nodes.items():
        cols = [column[c] for c in members if c in column]
        if cols:
            ax.axvspan(
                min(cols) - 0.5,
                max(cols) + 0.5,
                color="0.93" if node % 2 == 0 else "0.86",
                zorder=0,
            )
            ax.text(
                (min(cols) + max(cols)) / 2,
                -0.55,
                f"NUMA {node}",
                ha="center",
                va="top",
                fontsize=8,
            )
    height = 1
    for cpu, group in frame.groupby("cpu"):
        if cpu not in column:
            continue
        shared = len(group) > 1
        for level, (_, row) in enumerate(group.sort_values(["rank", "thread"]).iterrows()):
            colour = RANK_COLOURS[int(row["rank"]) % len(RANK_COLOURS)]
            ax.add_patch(
                Rectangle(
                    (column[cpu] - 0.4, level + 0.05),
                    0.8,
                    0.9,
                    facecolor=colour,
                    edgecolor=SHARED if shared else "black",
                    linewidth=2.5 if shared else 0.8,
                    zorder=2,
                )
            )
            ax.text(
                column[cpu],
                level + 0.5,
                f"r{int(row['rank'])} t{int(row['thread'])}",
                ha="center",
                va="center",
                color="white",
                fontsize=8,
                zorder=3,
            )
        if shared:
            ax.text(
                column[cpu],
                len(group) + 0.1,
                "shared",
                ha="center",
                va="bottom",
                color=SHARED,
                fontsize=8,
            )
        height = max(height, len(group) + 1)
    labels = [
        f"cpu {c.cpu}\ncore {c.core}" + (f"\nsock {c.socket}" if len(topology.sockets) > 1 else "")
        for c in topology.cpus
    ]
    ax.set_xticks(range(len(cpus)), labels, fontsize=8)
    ax.set_xlim(-0.6, len(cpus) - 0.4)
    ax.set_ylim(-0.9, height + 0.2)
    ax.set_yticks([])
    ax.set_ylabel("threads on the CPU")
    ax.set_title(title or "where each rank (r) and thread (t) ran")
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig
