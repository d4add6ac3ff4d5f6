"""Pictures of lab 07: the alltoall latency sweep (osu_alltoall's numbers per P x T), pure vs
hybrid at the same data per core beside Luecke et al., Table 4, and the 3-D FFT's phases beside Luecke et al.
Table 5. Plots take tables (collectives.tables) and return a Figure; they launch nothing.

    osu_plot(osu_table(runs))
    equal_volume_plot(osu_table(equal), cores=2, reference=REFERENCE["003-table-4"].frame)
    fft_plot(fft_breakdown(runs), reference=REFERENCE["003-table-5"].frame)
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..plots.palette import OKABE_ITO, phase_style
from ..runs.records import require_columns

FFT_PHASES = ("fft", "rearrange", "alltoall")
SHAPE_COLOURS = OKABE_ITO[5:7] + OKABE_ITO[3:4] + OKABE_ITO[7:] + OKABE_ITO[1:3]
SHAPE_MARKERS = ("o", "s", "^", "D", "v", "P")  # with the colour: one shape, one marker
SMALL_MACHINE = (
    "{cores} cores here: {why}. The published numbers (right) are what this machine cannot show."
)


def _label(ranks: int, threads: int) -> str:
    return f"{ranks}x{threads}"


def _machine_note(ax, usable: int, why: str) -> None:
    """What this machine cannot show, in the kit's note box (on the plot itself, not only in
    the text)."""
    machine_note(ax, SMALL_MACHINE.format(cores=usable, why=why), width=62, fontsize=7)


def osu_plot(table: pd.DataFrame, *, title: str = "MPI_Alltoall, OSU method") -> Figure:
    """Average latency (us, over ranks) against the message size to each rank, one line per
    op and P x T, with the min-max over ranks as a band."""
    require_columns(table, ["op", "ranks", "threads", "size", "avg_us", "min_us", "max_us"], "plot")
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    groups = table.groupby(["op", "ranks", "threads"])
    for i, ((op, ranks, threads), g) in enumerate(groups):
        g = g.sort_values("size")
        colour = SHAPE_COLOURS[i % len(SHAPE_COLOURS)]
        ax.plot(g["size"], g["avg_us"], "-", marker=SHAPE_MARKERS[i % len(SHAPE_MARKERS)], ms=3,
                color=colour,
                label=f"{op}, {_label(ranks, threads)}")  # fmt: skip
        ax.fill_between(g["size"], g["min_us"], g["max_us"], color=colour, alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size to each rank (bytes)")
    ax.set_ylabel("latency per call (us): avg, band min-max over ranks")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def equal_volume_plot(
    table: pd.DataFrame, *, cores: int, usable: int, reference: pd.DataFrame | None = None
) -> Figure:
    """Left: the measured alltoall (avg over ranks, us) for each P x T at the same bytes per
    core, labelled with messages per rank x size; hatched bars are oversubscribed. Right (if
    given): Luecke et al., Table 4, whole 3-D FFT on 4 XT5 nodes, pure MPI against 2, 4, 6 ranks per node."""
    require_columns(table, ["ranks", "threads", "size", "avg_us"], "plot")
    fig, axes = plt.subplots(1, 2 if reference is not None else 1, figsize=(12, 4.4),
                             squeeze=False)  # fmt: skip
    ax = axes[0, 0]
    t = table.sort_values("threads").reset_index(drop=True)
    xs = np.arange(len(t))
    for i, row in t.iterrows():
        over = row["ranks"] * row["threads"] > usable
        ax.bar(i, row["avg_us"], color=SHAPE_COLOURS[i % len(SHAPE_COLOURS)],
               hatch="//" if over else None, edgecolor="black", lw=0.5)  # fmt: skip
        msgs = int(row["ranks"]) - 1
        ax.text(i, row["avg_us"], f"{msgs} x {int(row['size']) / 1024:.0f} KiB", ha="center",
                va="bottom", fontsize=8)  # fmt: skip
    ax.set_xticks(xs, [
        _label(r, th) + ("\n(oversubscribed)" if r * th > usable else "")
        for r, th in zip(t["ranks"], t["threads"], strict=True)
    ], fontsize=8)  # fmt: skip
    ax.set_ylabel("MPI_Alltoall, avg over ranks (us)")
    ax.set_title(f"One transpose, same bytes per core, {cores} cores", fontsize=9)
    why = (
        "with one rank (1 x T) the alltoall is only a local copy; two or more ranks per "
        "split need more cores, or oversubscription (hatched), whose timings mean little"
    )
    _machine_note(ax, usable, why)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.7)
    if reference is not None:
        ref = axes[0, 1]
        pure = reference[reference["version"] == "pure MPI"]
        hyb = reference[reference["version"] == "hybrid"]
        ref.axhline(float(pure["seconds"].iloc[0]), color="black", ls="--",
                    label=f"pure MPI, 12 per node: {float(pure['seconds'].iloc[0]):.2f} s")  # fmt: skip
        width = 0.25
        for j, sched in enumerate(("dynamic", "static", "guided")):
            s = hyb[hyb["schedule"] == sched].sort_values("mpi_per_node")
            ref.bar(np.arange(len(s)) + (j - 1) * width, s["seconds"], width, label=sched,
                    color=SHAPE_COLOURS[j + 1])  # fmt: skip
        per_node = sorted(hyb["mpi_per_node"].unique())
        ref.set_xticks(range(len(per_node)),
                       [f"{p} ranks x {12 // p} threads\nper node" for p in per_node], fontsize=8)  # fmt: skip
        ref.set_ylim(50, 72)
        ref.set_ylabel("whole 3-D FFT (s), min of 10 trials")
        ref.set_title("Published: Luecke et al., Table 4 (4 XT5 nodes, 48 cores, n = 1536)",
                      fontsize=9)  # fmt: skip
        ref.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def fft_plot(
    breakdown: pd.DataFrame, *, usable: int, reference: pd.DataFrame | None = None
) -> Figure:
    """Left: the 3-D FFT's phases (slowest rank, best repetition) per P x T, stacked.
    Right (if given): Luecke et al., Table 5, time against nodes for pure MPI and the hybrid with 2 and 4
    ranks per node (every schedule), the 64-node static outlier marked."""
    require_columns(
        breakdown, ["label", "ranks", "threads", "fft", "rearrange", "alltoall"], "plot"
    )
    fig, axes = plt.subplots(1, 2 if reference is not None else 1, figsize=(12, 4.4),
                             squeeze=False)  # fmt: skip
    ax = axes[0, 0]
    b = breakdown.reset_index(drop=True)
    bottom = np.zeros(len(b))
    for phase in FFT_PHASES:
        values = b[phase].to_numpy() * 1e3
        ax.bar(range(len(b)), values, bottom=bottom, label=phase, **phase_style(phase))
        bottom += values
    for i, row in b.iterrows():
        over = row["ranks"] * row["threads"] > usable
        ax.text(i, bottom[i], f"{100 * row['alltoall'] / (row['fft'] + row['rearrange'] + row['alltoall']):.0f}% a2a"
                + ("\noversubscribed" if over else ""), ha="center", va="bottom", fontsize=7)  # fmt: skip
    ax.set_xticks(range(len(b)), b["label"])
    ax.set_xlabel("ranks x threads")
    ax.set_ylabel("ms (slowest rank, best repetition)")
    lib = ", ".join(sorted(set(b.get("fft_library", pd.Series(["?"])).astype(str))))
    ax.set_title(f"3-D FFT n = {int(b['n'].iloc[0]) if 'n' in b else '?'}: phases ({lib})",
                 fontsize=9)  # fmt: skip
    ax.legend(fontsize=8, loc="upper right")
    _machine_note(
        ax,
        usable,
        "on one node the transpose is a memory copy, not a network "
        "transfer; Luecke et al. measured 60-70 % of the time in the alltoall over 4-64 nodes",
    )
    ax.set_ylim(0, bottom.max() * 1.8 if len(b) else 1)
    if reference is not None:
        ref = axes[0, 1]
        pure = reference[reference["version"] == "pure MPI"].sort_values("nodes")
        ref.plot(pure["nodes"], pure["seconds"], "k--o", ms=4, label="pure MPI, 12 per node")
        markers = {"dynamic": "v", "static": "s", "guided": "^"}
        for per_node, colour in ((2, SHAPE_COLOURS[1]), (4, SHAPE_COLOURS[2])):
            for sched, marker in markers.items():
                s = reference[(reference["mpi_per_node"] == per_node)
                              & (reference["schedule"] == sched)].sort_values("nodes")  # fmt: skip
                ref.plot(s["nodes"], s["seconds"], marker=marker, ms=4, lw=0.8, color=colour,
                         label=f"hybrid {per_node} per node, {sched}")  # fmt: skip
        out = reference[(reference["nodes"] == 64) & (reference["mpi_per_node"] == 4)
                        & (reference["schedule"] == "static")]  # fmt: skip
        if len(out):
            ref.annotate("5.51 s: outlier\n(dynamic 4.53, guided 4.51)",
                         (64, float(out["seconds"].iloc[0])), xytext=(-120, 10),
                         textcoords="offset points", fontsize=7,
                         arrowprops={"arrowstyle": "->", "lw": 0.6})  # fmt: skip
        ref.set_xscale("log", base=2)
        ref.set_yscale("log")
        ref.set_xlabel("XT5 nodes (12 cores each)")
        ref.set_ylabel("whole 3-D FFT (s)")
        ref.set_title("Published: Luecke et al., Table 5 (n = 1536; Cray XT5)",
                      fontsize=9)  # fmt: skip
        ref.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig


def nodes_plot(table: pd.DataFrame, published: pd.DataFrame, *, note: str | None = None) -> Figure:
    """Left: each measured alltoall across nodes (nodes_table), avg over ranks with the min-max
    band, labelled with the messages that cross nodes per call; right: Luecke et al., Table 5
    (published_nodes), pure MPI against 2 ranks per node, 4 to 64 XT5 nodes. `note` (what this
    machine cannot show) is written on the left panel."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 4.2))
    t = table.sort_values("threads").reset_index(drop=True)
    for i, row in t.iterrows():
        ax.bar(i, row["avg_us"], color=SHAPE_COLOURS[i % len(SHAPE_COLOURS)], edgecolor="black",
               lw=0.5, yerr=[[row["avg_us"] - row["min_us"]], [row["max_us"] - row["avg_us"]]])  # fmt: skip
        ax.text(i, row["avg_us"], f"{int(row['messages_across_nodes'])} across nodes\n"
                f"{int(row['messages_per_rank'])} x {int(row['size']) / 1024:.0f} KiB per rank",
                ha="center", va="bottom", fontsize=8)  # fmt: skip
    ax.set_xticks(range(len(t)), [
        f"{_label(r.ranks, r.threads)}\n{r.ranks_per_node} rank{'s' * (r.ranks_per_node > 1)}"
        f" per node, {r.nodes} node{'s' * (r.nodes > 1)}" for r in t.itertuples()], fontsize=8)  # fmt: skip
    ax.set_ylabel("MPI_Alltoall, avg over ranks (us)")
    ax.set_title("One transpose across nodes: pure MPI vs one rank per node", fontsize=9)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.5)
    if note:
        machine_note(ax, note, where="top", width=60)
    ref.plot(published["nodes"], published["pure_MPI_s"], "s--", color="black",
             label="pure MPI, 12 ranks per node")  # fmt: skip
    ref.plot(published["nodes"], published["hybrid_2_per_node_s"], "o-", color=SHAPE_COLOURS[1],
             label="hybrid, 2 ranks x 6 threads per node (best schedule)")  # fmt: skip
    ref.set_xscale("log", base=2)
    ref.set_yscale("log")
    ref.set_xticks(published["nodes"], [str(n) for n in published["nodes"]])
    ref.set_xlabel("XT5 nodes (12 cores each)")
    ref.set_ylabel("whole 3-D FFT (s), min of 10 trials")
    ref.set_title("Published: Luecke et al., Table 5 (n = 1536)", fontsize=9)
    ref.legend(fontsize=8)
    fig.tight_layout()
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
