"""The machine drawn from sysfs, for when hwloc's lstopo is not installed."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..machine.topology import Topology


def machine_picture(topology: Topology) -> Figure:
    """The machine drawn from sysfs (for when hwloc's lstopo is not installed):
    sockets contain NUMA nodes, which contain cores, which contain CPUs (hardware threads)."""
    nodes = topology.numa_nodes
    cores = topology.cores
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(cores) + 1), 2.2 + 0.4 * len(nodes)))
    x = 0.0
    for node, members in nodes.items():
        node_cores = [core for core, cpus in cores.items() if cpus[0] in members]
        width = 1.1 * len(node_cores) + 0.1
        socket = topology.cpu(members[0]).socket
        ax.add_patch(Rectangle((x, 0), width, 2.2, facecolor="#e8f0f8", edgecolor="#336"))
        ax.text(x + 0.05, 2.1, f"socket {socket} / NUMA node {node}", va="top", fontsize=8)
        for i, core in enumerate(node_cores):
            cx = x + 0.1 + 1.1 * i
            ax.add_patch(Rectangle((cx, 0.1), 1.0, 1.6, facecolor="#fdf6e3", edgecolor="#663"))
            ax.text(cx + 0.5, 1.6, f"core {core}", ha="center", va="top", fontsize=8)
            pus = cores[core]
            for j, cpu in enumerate(pus):
                w = 0.9 / len(pus)
                ax.add_patch(
                    Rectangle(
                        (cx + 0.05 + j * w, 0.2), w - 0.04, 0.8, facecolor="white", edgecolor="0.4"
                    )
                )
                ax.text(
                    cx + 0.05 + (j + 0.5) * w,
                    0.6,
                    f"cpu\n{cpu}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
        x += width + 0.2
    caches = topology.summary()["caches"]
    ax.set_title(
        f"{len(topology.cpus)} CPUs, {len(cores)} cores, {len(nodes)} NUMA node(s)\n{caches}",
        fontsize=9,
    )
    ax.set_xlim(-0.1, x)
    ax.set_ylim(-0.1, 2.4)
    ax.axis("off")
    fig.tight_layout()
    return fig
