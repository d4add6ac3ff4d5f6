"""Where ranks and threads ran: one column per CPU, a box per (rank, thread)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..machine.topology import Topology
from ..runs.records import Results, as_frame, require_columns
from .palette import RANK_COLOURS, SHARED


def placement_map(
    records: Results | pd.DataFrame,
    topology: Topology,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """One column per CPU; a box for each (rank, thread) that ran there; a CPU shared by threads
    has its boxes stacked, outlined thick and labelled "shared".

    Ranks on several nodes (records with more than one `host`) get one map per node, titled
    with the node's name, one under the other; every node is drawn with `topology` (this node's:
    the nodes of an allocation are alike)."""
    frame = as_frame(records)
    require_columns(frame, ["rank", "thread", "cpu"], "placement maps")
    frame = frame.drop_duplicates(["rank", "thread"])
    hosts = sorted(frame["host"].dropna().unique()) if "host" in frame else []
    width = max(4.0, 0.9 * len(topology.cpus) + 1.5)
    if len(hosts) < 2:
        fig, ax = plt.subplots(figsize=(width, 3.2)) if ax is None else (ax.figure, ax)
        _draw(frame, topology, ax, title or "where each rank (r) and thread (t) ran")
    else:
        if ax is not None:
            raise ValueError(f"ranks ran on {len(hosts)} nodes: one map each, so no `ax`")
        fig, axes = plt.subplots(len(hosts), 1, figsize=(width, 2.9 * len(hosts)), squeeze=False)
        for host, node_ax in zip(hosts, axes[:, 0], strict=True):
            ranks = sorted(int(r) for r in frame.loc[frame["host"] == host, "rank"].unique())
            named = f"node {host}: ranks {', '.join(map(str, ranks))}"
            _draw(
                frame[frame["host"] == host],
                topology,
                node_ax,
                f"{title}, {named}" if title else named,
            )
    fig.tight_layout()
    return fig


def _draw(frame: pd.DataFrame, topology: Topology, ax: Axes, title: str) -> None:
    """The map of one node's records on `ax`."""
    cpus = [c.cpu for c in topology.cpus]
    column = {cpu: i for i, cpu in enumerate(cpus)}
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
    ax.set_title(title)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
