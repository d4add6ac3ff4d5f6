"""Lab 05's pictures. Each takes tables (hybridlab.memory.tables) and launches nothing.

An effect the student's machine cannot show (one NUMA node, few cores) is said so ON the plot,
with the published numbers drawn beside the student's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..plots.notes import machine_note
from ..reference import REFERENCE
from .tables import xt6_openmp_test

NODE_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")
ABSENT = "#eeeeee"


def saturation_plot(table: pd.DataFrame, *, cores: int, numa_nodes: int, note: str = ""):
    """Bandwidth and speedup against threads, memory-bound (triad) vs compute-bound (flops).

    `table`: threads, triad_gb_s, flops_gflop_s (from the student's runs); each curve of the
    right panel is its column over its first row's."""
    fig, (bw, sp) = plt.subplots(1, 2, figsize=(11, 4))
    t = table["threads"].to_numpy()
    triad, flops = table["triad_gb_s"].to_numpy(), table["flops_gflop_s"].to_numpy()
    bw.plot(t, table["triad_gb_s"], "o-", color=NODE_COLOURS[0], label="triad, this machine")
    bw.set(xlabel="threads", ylabel="GB/s (best of N)", title="memory bandwidth vs threads",
           xticks=t, ylim=(0, None))  # fmt: skip
    sp.plot(t, t, ":", color="grey", label="ideal")
    sp.plot(t, triad / triad[0], "o-", color=NODE_COLOURS[0], label="triad (memory-bound)")
    sp.plot(t, flops / flops[0], "s-", color=NODE_COLOURS[1], label="flops (compute-bound)")
    sp.set(xlabel="threads", ylabel="speedup over 1 thread", title="speedup vs threads", xticks=t)
    sp.legend(fontsize=8, loc="lower right")
    bw.legend(fontsize=8, loc="upper left")
    ref = REFERENCE["002-slide-44"].frame.iloc[0]
    if cores < 8:
        machine_note(bw, f"{cores} cores: too few to see a bandwidth curve flatten.\nPublished: an "
                f"{ref['system']} node of {ref['cpus_per_node']} CPUs, memory bandwidth\n"
                f"saturated by {ref['memory_bandwidth_saturated_by_cpus']} CPUs "
                "(Rabenseifner, slide 44; inset values not readable)", where="bottom")  # fmt: skip
    if note:
        fig.text(0.5, -0.02, note, ha="center", fontsize=8, color="#a40")
    fig.tight_layout()
    return fig


def page_map_plot(maps: Mapping[str, np.ndarray], *, touchers: Mapping[str, np.ndarray] | None = None,
                  numa_nodes: int = 1, title: str = "where each page lives (move_pages)"):  # fmt: skip
    """One strip per run: every page coloured by its NUMA node (grey: not present), one bar per
    run of pages on the same node (a bar per page took 117 s for lab 05's seven maps of 16384
    pages)."""
    fig, axes = plt.subplots(len(maps), 1, figsize=(11, 0.9 + 0.75 * len(maps)), squeeze=False)
    for ax, (label, nodes) in zip(axes[:, 0], maps.items(), strict=True):
        for first, count, node in _runs(np.asarray(nodes, dtype=int)):
            colour = ABSENT if node < 0 else NODE_COLOURS[node % len(NODE_COLOURS)]
            ax.barh(0.5, count, left=first, height=1.0, color=colour, linewidth=0)
        if touchers is not None and label in touchers:
            tt = touchers[label]
            for edge in np.flatnonzero(np.diff(tt)) + 1:
                ax.axvline(edge, color="black", lw=0.8)
        ax.set(xlim=(0, len(nodes)), yticks=[], ylabel=label)
        ax.yaxis.label.set(rotation=0, ha="right", va="center", fontsize=8)
    axes[-1, 0].set_xlabel("page (black lines: where the touching thread changes)")
    axes[0, 0].set_title(title)
    seen = sorted({int(n) for nodes in maps.values() for n in nodes})
    handles = [plt.Rectangle((0, 0), 1, 1, color=ABSENT if n < 0 else NODE_COLOURS[n % 7]) for n in seen]
    names = ["not present" if n < 0 else f"node {n}" for n in seen]
    fig.legend(handles, names, loc="upper right", fontsize=8, ncol=len(seen))
    if numa_nodes < 2:
        t1 = REFERENCE["003-table-1"].frame.query("version == 'hybrid 1' and schedule == 'static'")
        one, two = (float(t1.loc[t1["mpi_per_node"] == k, "seconds"].iloc[0]) for k in (1, 2))
        machine_note(axes[0, 0], "1 NUMA node: every present page is on node 0 whatever the policy. "
                "On 2+ nodes serial init puts all on the master's node.\nPublished (Luecke et al., Table 1, "
                f"2-socket Cray XT5, hybrid 1, static): 1 process per node {one} s vs 1 per "
                f"socket {two} s (Luecke et al.: \"expected because of the ccNUMA architecture\")")  # fmt: skip
    fig.tight_layout()
    return fig


THREAD_HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo", "--")  # a second channel beside colour
UNTOUCHED = "#dddddd"


def _runs(values: np.ndarray) -> list[tuple[int, int, int]]:
    """(first, count, value) for each run of equal values."""
    edges = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [len(values)]])
    return [(int(a), int(b - a), int(values[a])) for a, b in zip(starts, ends, strict=True)]


def page_owner_plot(owners: pd.DataFrame, *, title: str = "which thread first touched each page"):
    """One strip per rank and array (hybridlab.memory.tables.page_owners): each page coloured,
    hatched and labelled by the thread whose first write placed it (grey: never written);
    triangles mark pages another thread had read first. Works on one NUMA node: it shows
    threads, not nodes."""
    strips = list(owners.groupby(["rank", "array"], sort=True))
    fig, axes = plt.subplots(len(strips), 1, figsize=(11, 0.9 + 0.8 * len(strips)), squeeze=False)
    threads = sorted({int(t) for t in owners["writer"] if t >= 0})
    for ax, ((rank, array), pages) in zip(axes[:, 0], strips, strict=True):
        writer = pages["writer"].to_numpy(dtype=int)
        for first, count, thread in _runs(writer):
            colour = UNTOUCHED if thread < 0 else NODE_COLOURS[thread % len(NODE_COLOURS)]
            hatch = None if thread < 0 else THREAD_HATCHES[thread % len(THREAD_HATCHES)]
            ax.barh(0, count, left=first, height=1.0, color=colour, hatch=hatch,
                    edgecolor="white", linewidth=0.6)  # fmt: skip
            if count >= len(writer) / 40:
                ax.text(first + count / 2, 0, "none" if thread < 0 else f"t{thread}",
                        ha="center", va="center", fontsize=8,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})  # fmt: skip
        page = pages["page"].to_numpy()
        read = (pages["toucher"].to_numpy() != writer) & (writer >= 0)
        if read.any():
            ax.scatter(page[read] + 0.5, np.full(read.sum(), 0.4), marker="v", s=10,
                       color="black", zorder=3)  # fmt: skip
        ax.set(xlim=(0, len(writer)), ylim=(-0.5, 0.5), yticks=[],
               ylabel=f"rank {rank}\n{array}")  # fmt: skip
        ax.yaxis.label.set(rotation=0, ha="right", va="center", fontsize=8)
    axes[-1, 0].set_xlabel("page of the array (label: the thread whose first write placed it)")
    axes[0, 0].set_title(title)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=NODE_COLOURS[t % len(NODE_COLOURS)],
                             hatch=THREAD_HATCHES[t % len(THREAD_HATCHES)], edgecolor="white")
               for t in threads]  # fmt: skip
    names = [f"thread {t}" for t in threads]
    if (owners["writer"] < 0).any():
        handles.append(plt.Rectangle((0, 0), 1, 1, color=UNTOUCHED))
        names.append("never written")
    if ((owners["toucher"] != owners["writer"]) & (owners["writer"] >= 0)).any():
        handles.append(plt.Line2D([], [], marker="v", color="black", linestyle=""))
        names.append("read first by another thread")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.legend(handles, names, loc="lower center", fontsize=8, ncol=len(names))
    return fig


def matrix_plot(matrix: pd.DataFrame, *, level: str, block_bytes: int, note: str = ""):
    """The student's threads x owners GB/s heatmap beside Armstrong et al.'s 24-thread XT6 OpenMP test."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1.3]})
    m = matrix.to_numpy(dtype=float)
    im = ax.imshow(m, cmap="viridis")
    for (i, j), v in np.ndenumerate(m):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", color="white", fontsize=8)
    ax.set(xticks=range(m.shape[1]), yticks=range(m.shape[0]), xlabel="owner (first toucher)",
           ylabel="reading thread", title=f"this machine: GB/s, blocks of {block_bytes // 1024} KiB")
    fig.colorbar(im, ax=ax, shrink=0.8)
    shows = {"numa": "NUMA level:\nown node vs remote node",
             "cache": "cache level only (1 NUMA node):\nown private cache vs another core's"}[level]
    machine_note(ax, f"this machine shows the {shows}", where="below")
    data = xt6_openmp_test(REFERENCE["004-openmp-test"].frame)
    order = ["own data", "neighbouring die", "counterpart die", "diagonally opposite die"]
    for i, rel in enumerate(order):
        y = data.loc[data["relation"] == rel, "seconds"]
        ref.scatter(np.full(len(y), i), y, color=NODE_COLOURS[i], s=18)
    ref.set(xticks=range(4), xticklabels=["own", "neighb. die", "counterpart", "diagonal"],
            ylabel="seconds (lower is better)",
            title="published: Cray XT6, 24 threads (Armstrong et al., OpenMP test)")  # fmt: skip
    machine_note(ref, "published data (relation to the data: derived from\n004's description; "
            "own 22.52-22.56 s, other dies 22.82-22.90 s)")  # fmt: skip
    if note:
        fig.text(0.5, -0.02, note, ha="center", fontsize=8, color="#a40")
    fig.tight_layout()
    return fig


def schedule_plot(table: pd.DataFrame, *, numa_nodes: int):
    """Triad GB/s per loop schedule beside Luecke et al., Table 1 (1 MPI process per XT5 node)."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 3.8))
    ax.bar(table["label"], table["gb_s"], color=NODE_COLOURS[0])
    ax.set(ylabel="triad GB/s", title="schedules on statically first-touched data (this machine)")
    ax.tick_params(axis="x", labelsize=8)
    if numa_nodes < 2:
        machine_note(ax, "1 NUMA node: no remote data; what differs is\nscheduling overhead and "
                "cache reuse, not page placement")  # fmt: skip
    t1 = REFERENCE["003-table-1"].frame
    row = t1[(t1["version"] == "hybrid 1") & (t1["mpi_per_node"] == 1)]
    ref.bar(row["schedule"], row["seconds"], color=NODE_COLOURS[1], label="hybrid 1, 1 process/node")
    mpi = float(t1.loc[t1["version"] == "pure MPI", "seconds"].iloc[0])
    ref.axhline(mpi, color="black", ls="--", label=f"pure MPI {mpi} s")
    ref.set(ylabel="seconds (lower is better)", title="published: 2 Cray XT5 nodes (Luecke et al., Table 1)")
    ref.legend(fontsize=8)
    fig.tight_layout()
    return fig


def roofline_plot(peak_gflops: float, bandwidth_gbs: float, points: Sequence[Mapping],
                  *, title: str = "roofline of this machine", note: str = ""):  # fmt: skip
    """Log-log roofline: min(peak, intensity x bandwidth), with kernels placed by intensity.

    points: dicts with label, intensity (flop/byte) and optionally gflop_s (measured)."""
    fig, ax = plt.subplots(figsize=(8, 5))
    x = np.logspace(-3, 3, 200)
    ax.loglog(x, np.minimum(peak_gflops, x * bandwidth_gbs), color="black", lw=2)
    ridge = peak_gflops / bandwidth_gbs
    ax.axvline(ridge, color="grey", ls=":", lw=1)
    ax.text(ridge * 1.1, peak_gflops * 0.3, f"ridge {ridge:.2g} flop/B", fontsize=8, color="grey")
    ax.text(1.5e-3, 1.5e-3 * bandwidth_gbs * 1.4, f"{bandwidth_gbs:.3g} GB/s (triad)", fontsize=8,
            rotation=30)  # fmt: skip
    ax.text(3e1, peak_gflops * 1.15, f"{peak_gflops:.3g} GFLOP/s (flops kernel)", fontsize=8)
    for i, p in enumerate(points):
        colour = NODE_COLOURS[i % len(NODE_COLOURS)]
        roof = min(peak_gflops, p["intensity"] * bandwidth_gbs)
        ax.plot(p["intensity"], roof, "o", mfc="none", mec=colour, ms=10)
        if p.get("gflop_s"):
            ax.plot(p["intensity"], p["gflop_s"], "o", color=colour, ms=6)
        ax.annotate(p["label"], (p["intensity"], roof), textcoords="offset points",
                    xytext=(6, -12 - 10 * (i % 2)), fontsize=8, color=colour)  # fmt: skip
    ax.set(xlabel="arithmetic intensity (flop/byte)", ylabel="GFLOP/s", title=title,
           xlim=(1e-3, 1e3), ylim=(min(1e-3 * bandwidth_gbs, peak_gflops) / 2, peak_gflops * 3))  # fmt: skip
    ax.text(0.99, 0.02, "open circle: attainable (the roof); dot: measured", ha="right",
            transform=ax.transAxes, fontsize=8)  # fmt: skip
    if note:
        machine_note(ax, note)
    fig.tight_layout()
    return fig



from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
