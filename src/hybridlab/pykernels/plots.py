"""Pictures of lab 09: numba's JIT time, and numba's threads on the cores (the kit's placement
map, one panel per threading layer or per run). They launch nothing.

    jit_plot(jit_times())
    layer_maps(layers, topology)
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..machine.topology import Topology
from ..plots.palette import phase_style
from ..plots.placement import placement_map
from ..runs.records import require_columns


def jit_plot(times: pd.DataFrame, title: str | None = None) -> Figure:
    """Horizontal bars of the seconds of each JIT step (log scale: they span 1000x)."""
    require_columns(times, ["step", "seconds"], "JIT plots")
    fig, ax = plt.subplots(figsize=(7.0, 0.5 * len(times) + 1.4), constrained_layout=True)
    styles = [phase_style("compute" if "compile" in s else "comm") for s in times["step"]]
    bars = ax.barh(list(times["step"]), times["seconds"], edgecolor="white")
    for bar, style in zip(bars, styles, strict=True):  # colour and hatch per bar
        bar.set_facecolor(style["color"])
        bar.set_hatch(style["hatch"])
    for y, s in enumerate(times["seconds"]):
        ax.text(s, y, f" {s * 1e3:.3g} ms", va="center", fontsize=8)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("seconds (log scale)")
    ax.set_title(
        title or "numba's JIT: compiling vs loading from the cache vs calling", fontsize=10
    )
    return fig


def layer_maps(threads: pd.DataFrame, topology: Topology, by: str = "layer") -> Figure:
    """One placement map per value of `by` (threading layer, or rank): a box per numba thread
    on the CPU it ran on; a layer that could not load gets a note instead."""
    groups = list(threads.groupby(by, sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.4), squeeze=False)
    for ax, (name, group) in zip(axes[0], groups, strict=True):
        ran = group.dropna(subset=["cpu"]) if "cpu" in group else group.iloc[:0]
        if ran.empty:
            ax.set_axis_off()
            ax.set_title(f"{by} {name}: not available", fontsize=9)
            continue
        ran = ran.astype({"rank": int, "thread": int, "cpu": int})
        placement_map(ran, topology, ax=ax)
        allowed = sorted({len(a) for a in ran["allowed"]})
        ax.set_title(f"{by} {name}: CPUs allowed per thread {allowed}", fontsize=9)
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
