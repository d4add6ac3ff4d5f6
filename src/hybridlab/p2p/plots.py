"""Pictures of point-to-point messages (lab 03): the size sweep with its Hockney fit and eager
knee, send modes against a late receiver, and the aggregation ratio beside the SR8000 numbers.

    sweep_plot(records)                       # time and bandwidth vs size, fit, knee
    sendmodes_plot(records, REFERENCE["001-table-4"].frame)
    aggregation_plot(records, REFERENCE["002-slides-14-17"].frame, fit=pw.below)
    progress_plot(progress_table([res_plain, res_async]), REFERENCE["001-table-4"].frame)
    knee_plot({"default": sweep, "raised": sweep_raised}, knees, predicted)   # before and after
    paths_plot(sweeps, path_fits(sweeps), published_paths(REFERENCE["002-slides-14-17"].frame))

Plots take the pingpong kernel's records (tables from p2p.tables) and return a Figure; they
launch nothing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..plots.palette import OKABE_ITO
from ..runs.records import Results, as_frame, require_columns
from .hockney import HockneyFit, PiecewiseHockney, aggregated_time, piecewise_hockney
from .paths import ACROSS, INSIDE
from .tables import aggregation_ratio

_BLUE, _ORANGE, _GREEN, _VERMILLION = OKABE_ITO[5], OKABE_ITO[1], OKABE_ITO[3], OKABE_ITO[6]
_SKY, _PURPLE = OKABE_ITO[2], OKABE_ITO[7]
MODE_COLOURS = {"send": _BLUE, "ssend": _VERMILLION, "bsend": _GREEN, "isend": _ORANGE}


def _sizes_axis(ax, label: str = "message size (bytes)") -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlabel(label)
    ax.grid(True, which="major", alpha=0.3)


def sweep_plot(records: Results | pd.DataFrame, fit: PiecewiseHockney | None = None) -> Figure:
    """Half round-trip time (log-log) and bandwidth against size: every sample as a dot, the
    median as a line, the two Hockney lines (fitted here unless `fit` is given) and the knee."""
    df = as_frame(records)
    require_columns(df, ["bytes", "seconds"], "sweep plots")
    if "mode" in df:
        df = df[df["mode"] == "sweep"]
    fit = fit or piecewise_hockney(df["bytes"], df["seconds"])
    med = df.groupby("bytes")["seconds"].median()
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=(11, 4.2))
    sizes = med.index.to_numpy(dtype=float)
    ax_t.scatter(df["bytes"], df["seconds"] * 1e6, s=8, alpha=0.35, color="grey", label="samples")
    ax_t.plot(sizes, med * 1e6, "o-", color=_BLUE, ms=4, label="median")
    ax_b.plot(sizes, sizes / med / 1e9, "o-", color=_BLUE, ms=4, label="measured (median)")
    for part, colour, name in (
        (fit.below, _GREEN, "below"),
        (fit.above, _VERMILLION, "above"),
    ):
        s = sizes[(sizes >= part.min_bytes) & (sizes <= part.max_bytes)]
        label = (
            f"{name}: alpha={part.alpha * 1e6:.2f} us, beta={part.beta / 1e9:.2f} GB/s"
            if part.resolved
            else f"{name}: alpha={part.alpha * 1e6:.2f} us, beta not resolved"
        )
        ax_t.plot(s, part.predict(s) * 1e6, "--", color=colour, label=label)
        ax_b.plot(s, s / part.predict(s) / 1e9, "--", color=colour)
    for ax in (ax_t, ax_b):
        ax.axvline(fit.switch_bytes, color="black", lw=0.8, ls=":")
        _sizes_axis(ax)
    ax_t.text(
        fit.switch_bytes, ax_t.get_ylim()[0], f" knee: {fit.switch_bytes:.0f} B",
        va="bottom", fontsize=8,
    )  # fmt: skip
    ax_t.set_yscale("log")
    ax_t.set_ylabel("half round trip (us)")
    ax_t.set_title("Ping-pong time (Hockney: T = alpha + s / beta)")
    ax_t.legend(fontsize=7, loc="upper left")
    ax_b.set_ylabel("bandwidth (GB/s)")
    ax_b.set_title("Bandwidth = s / T")
    ax_b.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def sendmodes_plot(records: Results | pd.DataFrame, table4: pd.DataFrame | None = None) -> Figure:
    """Which call waits for a late receiver: the sender's time in the send call (Isend: and in
    MPI_Wait) against size, per send mode, with the receiver's lateness as a line; beside it
    (if given) H2MOL's Table 4 whole-code times relative to Bsend without css."""
    df = as_frame(records)
    require_columns(df, ["send_mode", "role", "bytes", "call_seconds", "wait_seconds"], "plots")
    sender = df[df["role"] == "sender"]
    late = float(df["late_seconds"].iloc[0]) if "late_seconds" in df else None
    ncols = 3 if table4 is not None else 2
    fig, axes = plt.subplots(1, ncols, figsize=(5 * ncols, 4.2))
    med = sender.groupby(["send_mode", "bytes"])[["call_seconds", "wait_seconds"]].median()
    for mode in [m for m in MODE_COLOURS if m in set(sender["send_mode"])]:
        part = med.loc[mode]
        colour = MODE_COLOURS[mode]
        axes[0].plot(part.index, part["call_seconds"] * 1e3, "o-", ms=4, color=colour, label=mode)
        if mode == "isend":
            axes[1].plot(
                part.index, part["wait_seconds"] * 1e3, "o-", ms=4, color=colour,
                label="isend: MPI_Wait",
            )  # fmt: skip
    receiver = df[df["role"] == "receiver"]
    if len(receiver):
        recv = receiver.groupby("bytes")["call_seconds"].median()
        axes[1].plot(recv.index, recv * 1e3, "s:", ms=3, color="grey", label="receiver: recv call")
    for ax in axes[:2]:
        if late is not None:
            ax.axhline(late * 1e3, color="black", lw=0.8, ls=":", label="receiver late by")
        _sizes_axis(ax)
        ax.set_ylabel("ms")
        ax.legend(fontsize=7)
    axes[0].set_title("Sender: time inside the send call")
    axes[1].set_title("Where the rest of the wait goes")
    if table4 is not None:
        _draw_h2mol_table4(axes[2], table4, "H2MOL, Smith et al. 2004, Table 4 (published)")
    fig.tight_layout()
    return fig


def aggregation_plot(
    records: Results | pd.DataFrame,
    sr8000: pd.DataFrame | None = None,
    fit: HockneyFit | None = None,
) -> Figure:
    """R = T(one message of V) / T(k messages of V/k) against the size of one of the k messages
    (slide 17's axis), with the Hockney prediction (if a fit is given) and, beside it, the
    SR8000 ratios of Rabenseifner, slides 16-17 (hybrid masteronly against pure MPI)."""
    table = aggregation_ratio(records)
    k = int(table["k"].iloc[0])
    fig, axes = plt.subplots(1, 2 if sr8000 is not None else 1, figsize=(11, 4.2), squeeze=False)
    ax = axes[0, 0]
    x = table["message_bytes"].clip(lower=1)
    ax.plot(x, table["ratio"], "o-", color=_BLUE, label="measured (median)")
    if fit is not None:
        model = aggregated_time(fit.alpha, fit.beta, table["bytes"], 1) / aggregated_time(
            fit.alpha, fit.beta, table["bytes"], k
        )
        ax.plot(
            x, model, "--", color=_GREEN, label="Hockney: (alpha + V/beta)/(k alpha + V/beta)"
        )
    ax.axhline(1.0, color="black", lw=0.8)
    ax.axhline(1 / k, color="grey", lw=0.8, ls=":", label=f"1/k = 1/{k} (latency bound)")
    if sr8000 is not None:
        ax.axvline(32 * 1024, color=_VERMILLION, lw=0.8, ls=":",
                   label="SR8000 crossover, 32 kB (8 CPUs per node sharing a network: not one link)")
        ax.annotate("SR8000: 8 x 8 CPUs on a network;\nthis plot: one link, one sender",
                    xy=(32 * 1024, 1.0), xytext=(4, -28), textcoords="offset points",
                    fontsize=7, color=_VERMILLION)
    _sizes_axis(ax, f"bytes per message of the k = {k} (V / k)")
    ax.set_ylabel("T(1 x V) / T(k x V/k)")
    ax.set_title("Aggregation on your machine (one link)")
    ax.legend(fontsize=7)
    if sr8000 is not None:
        ax2 = axes[0, 1]
        ms = sr8000.set_index("scheme")["milliseconds"]
        hybrid = ms["hybrid masteronly inter-node"]
        bars = {
            "hybrid / pure total": hybrid / ms["pure MPI total"],
            "hybrid / pure inter-node": hybrid / ms["pure MPI inter-node"],
        }
        ax2.bar(list(bars), list(bars.values()), color=[_PURPLE, _SKY])
        for i, v in enumerate(bars.values()):
            ax2.text(i, v, f"{v:.2f}", ha="center", va="bottom")
        ax2.axhline(1.0, color="black", lw=0.8)
        ax2.set_ylabel("time ratio (published, 1 MB per pure-MPI message)")
        ax2.set_title("Hitachi SR8000, Rabenseifner, slides 16-17 (8 x 8 MB vs 8 x 8 x 1 MB)")
    fig.tight_layout()
    return fig


def progress_plot(
    table: pd.DataFrame, table4: pd.DataFrame | None = None, note: str = ""
) -> Figure:
    """The receiver's wait (median) per busy-sender case beside the sender's compute time, and
    (if given) H2MOL's Smith et al. 2004, Table 4, whole-code time relative to Bsend without css.
    `note`, boxed on the left panel, says which case this MPI cannot run."""
    panels = 2 if table4 is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.8 * panels, 4.0), squeeze=False)
    ax = axes[0][0]
    y = np.arange(len(table))
    colours = [MODE_COLOURS.get(s, "0.5") for s in table["send"]]
    ax.barh(y, table["receiver_wait_s"] * 1e3, color=colours)
    ax.set_yticks(y, table["case"], fontsize=8)
    compute = float(table["sender_compute_s"].median()) * 1e3
    ax.axvline(compute, color="black", lw=0.8, ls=":", label="sender computes (ms)")
    ax.set_xlabel("receiver's wait in MPI_Wait (ms, median)")
    ax.set_title("Your machine: a busy sender, message above the eager limit", fontsize=9)
    ax.legend(fontsize=7)
    if note:
        ax.text(0.98, 0.02, textwrap.fill(note, 40), transform=ax.transAxes, ha="right",
                va="bottom", fontsize=7, bbox={"boxstyle": "round", "fc": "#fff3cd", "ec": "#c8a400"})  # fmt: skip
    if table4 is not None:
        _draw_h2mol_table4(
            axes[0][1], table4, "H2MOL on HPCx, Smith et al. 2004, Table 4 (published)\ncss = MP_CSS_INTERRUPT"
        )
    fig.tight_layout()
    return fig


def _draw_h2mol_table4(ax, table4, title):
    """001 Table 4 as bars: each send variant's whole-code time relative to Bsend without css."""
    t = table4.copy()
    base = t[(~t["css"]) & t["operation"].str.contains("Bsend")].set_index("processors")
    t["relative"] = t["seconds"] / t["processors"].map(base["seconds"])
    six = t[t["processors"] == 6]
    labels = [
        f"{op.split(' +')[0]}{' css' if css else ''}"
        for op, css in zip(six["operation"], six["css"], strict=True)
    ]
    x = np.arange(len(labels))
    for i, (p, colour) in enumerate(((6, _PURPLE), (120, _SKY))):
        rel = t[t["processors"] == p]["relative"].to_numpy()
        ax.bar(x + (i - 0.5) * 0.4, rel, width=0.4, color=colour, label=f"{p} processors")
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0.85, 1.05)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_ylabel("whole-code time / Bsend no css")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def knee_plot(
    sweeps: Mapping[str, pd.DataFrame],
    knees: Sequence[float] = (),
    predicted: float | None = None,
) -> Figure:
    """The median half round trip of each sweep against size (log-log), each with its own colour
    and marker, each sweep's knee as a dotted line of its colour labelled with the sweep's name
    (knees in the order of `sweeps`), and a predicted knee dashed."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    colours = (_BLUE, _ORANGE, _GREEN, _VERMILLION)
    styles = ("o-", "s--", "^-.", "D:")  # a second channel beside colour
    for (name, data), colour, style in zip(sweeps.items(), colours, styles, strict=False):
        med = data.groupby("bytes")["seconds"].median()
        ax.loglog(med.index, med.to_numpy() * 1e6, style, ms=3, color=colour, label=name, base=2)
    for knee, colour, name in zip(knees, colours, sweeps, strict=False):
        ax.axvline(knee, color=colour, ls=":")
        ax.text(knee, 0.98, f" {name} knee", transform=ax.get_xaxis_transform(), color=colour,
                fontsize=7, va="top", rotation=90)  # fmt: skip
    if predicted:
        ax.axvline(predicted, color="black", ls="--", lw=0.8, label="your prediction")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("half round trip (us, median)")
    ax.set_title("the knee before and after moving your MPI's eager switch (dotted: your knees)",
                 fontsize=9)  # fmt: skip
    ax.legend(fontsize=8)
    return fig


PATH_COLOURS = {INSIDE: _BLUE, ACROSS: _VERMILLION}
PATH_MARKERS = {INSIDE: "o", ACROSS: "s"}  # a second channel beside colour


def paths_plot(
    sweeps: dict[str, Results | pd.DataFrame],
    fits: dict[str, PiecewiseHockney],
    published: pd.DataFrame,
    note: str | None = None,
) -> Figure:
    """Left: the median half round trip of each path (log-log) with its two Hockney lines and
    its knee; right: Rabenseifner, slides 14-16 (1 MB exchanged inside and across SR8000
    nodes). `note` (what this machine cannot show) is written on the left panel."""
    fig, (ax, ref) = plt.subplots(1, 2, figsize=(11, 4.2), width_ratios=(1.6, 1))
    for path, records in sweeps.items():
        df = as_frame(records)
        colour, fit = PATH_COLOURS.get(path, "black"), fits[path]
        med = df.groupby("bytes")["seconds"].median()
        ax.loglog(med.index, med.to_numpy() * 1e6, PATH_MARKERS.get(path, "^"), ms=3,
                  color=colour, base=2,
                  label=f"{path}: knee {fit.switch_bytes:.0f} B")  # fmt: skip
        for part, sizes in ((fit.below, med.index[med.index < fit.switch_bytes]),
                            (fit.above, med.index[med.index >= fit.switch_bytes])):  # fmt: skip
            line = part.predict(sizes) * 1e6
            keep = line > 0  # a negative fitted alpha has no place on a log axis
            ax.plot(sizes[keep], line[keep], "-", color=colour, lw=1)
        ax.axvline(fit.switch_bytes, color=colour, ls=":", lw=1)
    _sizes_axis(ax)
    ax.set_ylabel("half round trip (us)")
    ax.set_title("ping-pong per path: samples' median, Hockney lines, knee (dotted)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    if note:
        machine_note(ax, note, where="top", width=70)
    bars = ref.bar(published["path"], published["milliseconds"],
                   color=[PATH_COLOURS[p] for p in published["path"]])  # fmt: skip
    for bar, path in zip(bars, published["path"], strict=True):
        bar.set_hatch("//" if path == ACROSS else "")
    for i, (ms, ratio) in enumerate(zip(published["milliseconds"], published["ratio_to_inside"],
                                        strict=True)):  # fmt: skip
        ref.text(i, ms, f"{ms:.1f} ms ({ratio:.1f}x)", ha="center", va="bottom", fontsize=8)
    ref.set_ylabel("ms per 1 MB exchange (MPI_Sendrecv)")
    ref.set_title("Published: Rabenseifner, slides 14-16\n(Hitachi SR8000, 8 nodes x 8 CPUs, "
                  "pure MPI)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return fig


from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
