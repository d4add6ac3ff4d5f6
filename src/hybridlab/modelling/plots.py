"""Pictures of lab 08: slide 42's overlap panels with the measured points, the two Amdahl fits
of Stathopoulos 2010, Table 4.32, published tables beside their predictions, and the explorer's stacked bars.
Plots take tables and return a Figure; they launch nothing."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..plots.palette import OKABE_ITO, phase_style
from .amdahl import AmdahlFit

N_COLOURS = {2: OKABE_ITO[5], 4: OKABE_ITO[3], 8: OKABE_ITO[6]}
N_STYLES = {2: "-", 4: "--", 8: ":"}  # with the colour: one n, one line style
BAR_STYLES = {"compute": phase_style("compute"), "communication": phase_style("comm"),
              "sync": phase_style("barrier")}  # fmt: skip


def overlap_panels(curves: pd.DataFrame | None, measured: pd.DataFrame | None = None, *,
                   usable: int = 2, note: str | None = None) -> Figure:  # fmt: skip
    """epsilon = T_masteronly / T_funneled&reserved against f_comm, one panel per f_non (Rabenseifner
    slide 42: 0 % and 40 %), a curve per n (m = 1; `curves` from overlap.model_curves, or None
    before the student's model exists); measured points (1 rank x 2 threads) on the first
    panel."""
    if curves is None:
        curves = pd.DataFrame({"f_non": [0.0, 0.4], "n": 2, "m": 1.0, "f_comm": np.nan,
                               "epsilon": np.nan})  # fmt: skip
    f_nons = sorted(curves["f_non"].unique())
    fig, axes = plt.subplots(1, len(f_nons), figsize=(11, 4.2), sharey=True, squeeze=False)
    for ax, f_non in zip(axes[0], f_nons, strict=True):
        for n, g in curves[curves["f_non"] == f_non].groupby("n"):
            m = float(g["m"].iloc[0])
            ax.plot(100 * g["f_comm"], g["epsilon"], color=N_COLOURS.get(int(n), "k"),
                    ls=N_STYLES.get(int(n), "-"),
                    label=f"model n = {n}, m = {m:g}" + (
                        f" (max {g['epsilon'].max():.3f}, min {g['epsilon'].min():.3f})"
                        if f_non == 0 else ""))  # fmt: skip
        ax.axhline(1.0, color="black", lw=0.7, ls=":")
        ax.set_xlabel("f_comm: communication share of the masteronly time (%)")
        ax.set_title(f"f_comp,non-overlap = {100 * f_non:.0f} %  (Rabenseifner, slide 42)", fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0, 0].set_ylabel("epsilon = T_masteronly / T_reserved  (> 1: reserved faster)")
    if measured is not None and len(measured):
        ax = axes[0, 0]
        ax.plot(100 * measured["f_comm"], measured["epsilon"], "ko", ms=6,
                label=f"measured here, 1 rank x {int(measured['threads'].iloc[0])} threads")  # fmt: skip
        machine_note(ax, note or (
            f"{usable} cores: only the n = 2 curve can be measured here, with the "
            "'communication' an emulated wait (the master sleeps). n = 4 and 8, and real "
            "network transfers, need a bigger node: those curves are the model only."), width=58)
    for ax in axes[0]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def amdahl_plot(threads, user, fits: list[AmdahlFit], *, title: str = "") -> Figure:
    """The published USER times and each fitted line U(T) = U1 (T - (T - 1) f); right: the
    relative misfit of each fit per thread count."""
    t = np.asarray(threads, dtype=float)
    u = np.asarray(user, dtype=float)
    fig, (ax, res) = plt.subplots(1, 2, figsize=(11, 4.0), gridspec_kw={"width_ratios": [3, 2]})
    ax.plot(t, u, "ko", label="USER (Stathopoulos 2010, Table 4.32)")
    grid = np.linspace(1, t.max(), 100)
    for fit, colour in zip(fits, ("#4c72b0", "#c44e52", "#55a868"), strict=False):
        label = (f"{fit.how}: f = {fit.f:.3f}, U1 = {fit.u1:.2f} s")
        ax.plot(grid, fit.predict(grid), color=colour, label=label)
        res.plot(t, 100 * (u - fit.predict(t)) / u, "o-", color=colour, label=fit.how)
    ax.set_xlabel("threads per process T (216 cores, 216 domains)")
    ax.set_ylabel("USER time per process (s)")
    ax.set_title(title or "Amdahl inside a rank: IRS on the Cray XT6", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    inset = ax.inset_axes([0.55, 0.08, 0.4, 0.35])
    small = t <= 6
    inset.plot(t[small], u[small], "ko", ms=4)
    for fit, colour in zip(fits, ("#4c72b0", "#c44e52", "#55a868"), strict=False):
        inset.plot(grid[grid <= 6], fit.predict(grid[grid <= 6]), color=colour, lw=1)
    inset.set_title("T <= 6", fontsize=7)
    inset.tick_params(labelsize=6)
    res.axhline(0, color="black", lw=0.7)
    res.set_xscale("log", base=2)
    res.set_xlabel("threads per process T")
    res.set_ylabel("(published - fit) / published (%)")
    res.set_title("where each fit misses", fontsize=10)
    res.legend(fontsize=8)
    res.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def _log2_axes(ax, xlabel: str, ylabel: str, title: str) -> None:
    """A log2 x axis, the labels, a small title and legend."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)


def published_vs_predicted(a23: pd.DataFrame, table2: pd.DataFrame, table3: pd.DataFrame,
                           tolerance: float = 0.15) -> Figure:  # fmt: skip
    """Three panels: Stathopoulos 2010, Table A.23 masteronly halo (published, and predicted by the
    student's model when `a23` has `predicted_s`; the NUMA-affine thread counts marked), Luecke et al., Table 2 (every row's published / predicted) and Luecke et al., Table 3 (speedups
    and the two bounds)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
    ax = axes[0]
    if "predicted_s" not in a23:  # before the student's predict_master_only exists
        a23 = a23.assign(predicted_s=np.nan)
    ax.plot(a23["threads"], a23["published_s"], "ko-", label="published (Stathopoulos 2010, Table A.23)")
    ax.plot(a23["threads"], a23["predicted_s"], "s--", color=OKABE_ITO[5],
            label="predicted: bytes / rate of the 1-thread run")  # fmt: skip
    bad = a23[~a23["applies"]]
    ax.plot(bad["threads"], bad["published_s"], "o", mfc="none", mec="#c44e52", ms=12,
            label="processes not spread over NUMA regions")  # fmt: skip
    _log2_axes(ax, "threads per process (XT6, 192 cores)", "masteronly: halo swap time (s)",
               "Stathopoulos 2010, Table A.23: masteronly halo vs threads")  # fmt: skip
    ax = axes[1]
    for version, g in table2.groupby("version"):
        ax.plot(g["nodes"], g["published/predicted"], "o", ms=4, label=version)
    ax.axhspan(1 - tolerance, 1 + tolerance, color="green", alpha=0.08,
               label=f"within {tolerance:.0%}")  # fmt: skip
    _log2_axes(ax, "XT5 nodes", "published / predicted", "003 Table 2: square Jacobi, every row")
    ax = axes[2]
    x = np.arange(len(table3))
    ax.bar(x, table3["speedup"].astype(float), color=OKABE_ITO[5], label="published speedup")
    ax.axhline(float(table3["predicted_per_node"].iloc[0]), color=OKABE_ITO[6], ls="--",
               label="bound: comm / 6 (per node)")  # fmt: skip
    ax.axhline(1.0, color="black", ls=":", label="bound: no gain (per rank)")
    ax.set_xticks(x, [f"{v}\n{s}" for v, s in zip(table3["version"], table3["schedule"], strict=True)],
                  fontsize=7)  # fmt: skip
    ax.set_ylim(0.9, 1.35)
    ax.set_ylabel("pure MPI time / hybrid time")
    ax.set_title("003 Table 3: rectangular Jacobi, 2 nodes", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    for a in axes:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def breakdown_bars(table: pd.DataFrame, *, chosen: str | None = None, title: str = "",
                   ax=None) -> Figure:  # fmt: skip
    """Stacked bars of compute, exposed communication and sync per P x T (label); the hidden
    (overlapped) communication drawn hatched above, off the critical path."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 3.8))
    else:
        fig = ax.figure
    x = np.arange(len(table))
    bottom = np.zeros(len(table))
    for part in ("compute", "communication", "sync"):
        values = table[part].to_numpy() * 1e3
        ax.bar(x, values, bottom=bottom, label=part, **BAR_STYLES[part])
        bottom += values
    if "hidden" in table and table["hidden"].any():
        ax.bar(x, table["hidden"].to_numpy() * 1e3, bottom=bottom, color="none", hatch="oo",
               edgecolor=BAR_STYLES["communication"]["color"], label="hidden by overlap")  # fmt: skip
    labels = list(table["label"])
    ax.set_xticks(x, labels, fontsize=8, rotation=45 if len(labels) > 8 else 0)
    if chosen in labels:
        ax.get_xticklabels()[labels.index(chosen)].set_fontweight("bold")
        ax.annotate("chosen", (labels.index(chosen), bottom[labels.index(chosen)]),
                    xytext=(0, 12), textcoords="offset points", ha="center", fontsize=8,
                    arrowprops={"arrowstyle": "->", "lw": 0.6})  # fmt: skip
    ax.set_xlabel("ranks x threads")
    ax.set_ylabel("predicted time per step (ms)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
