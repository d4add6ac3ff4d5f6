"""Pictures of lab 11 from its tables (hybridlab.shm.tables); they launch nothing.

    race_plot(race_table(runs), cpus=2)
    memory_plot(node_memory(runs), cpus=2)
    time_plot(iteration_times(runs), cpus=2, ranks=2)

Each says on the plot what one small machine cannot show, and the time plot puts published
numbers beside the student's.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..runs.records import require_columns

# Rabenseifner, "Hybrid Parallel Programming" (HLRS, 2003), slide 14: pure MPI on a Hitachi
# SR8000, 8 nodes of 8 CPUs, MPI_Sendrecv of 8 x 8 x 1 MB: the intra-node messages (what a
# shared window or threads remove) and the inter-node ones, in ms.
PUBLISHED_INTRA_INTER_MS = {"intra-node": 2.0, "inter-node": 9.6}
PUBLISHED = "Rabenseifner 2003, slide 14: pure MPI, Hitachi SR8000,\n8 nodes x 8 CPUs, 8 x 8 x 1 MB"
HOEFLER = ("Hoefler et al. 2013: the shared window cut the communication part of a five-point "
           "stencil by 40 % on average (their nodes)")


def race_plot(race: pd.DataFrame, cpus: int) -> Figure:
    """Stale reads per run for each synchronisation, with and without the stagger."""
    require_columns(race, ["sync", "stagger_us", "stale_reads", "right"], "the race plot")
    fig, ax = plt.subplots(figsize=(7.0, 3.8), constrained_layout=True)
    groups = list(race.groupby(["sync", "stagger_us"], sort=False))
    for x, (_, runs) in enumerate(groups):
        colours = ["#2a9d8f" if ok else "#e63946" for ok in runs["right"]]
        ax.scatter(np.full(len(runs), x) + np.linspace(-0.15, 0.15, len(runs)),
                   runs["stale_reads"], c=colours, s=40, zorder=3)  # fmt: skip
    ax.set_xticks(range(len(groups)), [f"{s}\nstagger {t} us" for (s, t), _ in groups], fontsize=8)
    ax.set_ylabel("stale reads per run (all ranks)")
    ax.set_title("shared window: stale reads (red: wrong checksum, green: right)", fontsize=10)
    machine_note(ax, f"{cpus} CPUs, shared with other work: without the stagger, whether a rank "
                     "runs ahead is the scheduler's choice", width=70)  # fmt: skip
    return fig


def memory_plot(memory: pd.DataFrame, cpus: int) -> Figure:
    """Per run: PSS per node split into the grid (halo copies apart) and everything else."""
    require_columns(memory, ["run", "pss_mb", "grid_mb", "halo_mb"], "the memory plot")
    fig, ax = plt.subplots(figsize=(7.0, 4.0), constrained_layout=True)
    xs = np.arange(len(memory))
    grid = (memory["grid_mb"] - memory["halo_mb"]).to_numpy(float)
    halo = memory["halo_mb"].to_numpy(float)
    rest = (memory["pss_mb"] - memory["grid_mb"]).to_numpy(float)
    ax.bar(xs, grid, label="grid (own rows)", color="#457b9d")
    ax.bar(xs, halo, bottom=grid, label="halo copies", color="#e9c46a")
    ax.bar(xs, rest, bottom=grid + halo, label="the rest of the processes (MPI, C library)",
           color="#adb5bd")  # fmt: skip
    ax.set_xticks(xs, memory["run"], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("MB per node (PSS of its ranks, summed)")
    ax.set_title("memory per node, one grid, measured", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    machine_note(ax, f"one node of {cpus} CPUs: with many cores per node the halo copies and "
                     "the per-process part grow with the ranks", width=70)  # fmt: skip
    return fig


def time_plot(times: pd.DataFrame, cpus: int, ranks: int) -> Figure:
    """Milliseconds per iteration of each run (halo share hatched), beside the published split
    of pure MPI's halo time into intra- and inter-node messages."""
    require_columns(times, ["run", "ms_per_iteration", "halo_share"], "the time plot")
    fig, (ax, pub) = plt.subplots(1, 2, figsize=(11.0, 4.0), constrained_layout=True,
                                  gridspec_kw={"width_ratios": [2, 1]})  # fmt: skip
    xs = np.arange(len(times))
    total = times["ms_per_iteration"].to_numpy(float)
    halo = total * times["halo_share"].to_numpy(float)
    ax.bar(xs, total - halo, color="#457b9d", label="stencil and the rest")
    ax.bar(xs, halo, bottom=total - halo, color="#e9c46a", hatch="//",
           label="halo (messages or synchronisation)")  # fmt: skip
    ax.set_xticks(xs, times["run"], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("ms per iteration (slowest rank)")
    ax.set_title(f"your machine: {ranks} cores' worth of work", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    over = f"; {ranks} ranks on {cpus} CPUs: oversubscribed" if ranks > cpus else ""
    machine_note(ax, f"one node, no network{over}: every halo is a copy in shared memory; "
                     + HOEFLER, width=70)  # fmt: skip
    names = list(PUBLISHED_INTRA_INTER_MS)
    pub.bar(names, [PUBLISHED_INTRA_INTER_MS[n] for n in names], color=["#e9c46a", "#6c757d"])
    pub.set_ylabel("ms")
    pub.set_title(PUBLISHED, fontsize=8)
    return fig
