"""Pictures of point-to-point messages (lab 03): the size sweep with its Hockney fit and eager
knee, send modes against a late receiver, and the aggregation ratio beside the SR8000 numbers.

    sweep_plot(records)                       # time and bandwidth vs size, fit, knee
    sendmodes_plot(records, REFERENCE["001-table-4"].frame)
    aggregation_plot(records, REFERENCE["002-slides-14-17"].frame, fit=pw.below)
    progress_plot(progress_table([res_plain, res_async]), REFERENCE["001-table-4"].frame)

Plots take the pingpong kernel's records and return a Figure; they launch nothing.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..records import Results, as_frame, require_columns
from .hockney import HockneyFit, PiecewiseHockney, aggregated_time, piecewise_hockney

MODE_COLOURS = {"send": "#4c72b0", "ssend": "#c44e52", "bsend": "#55a868", "isend": "#dd8452"}


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
    ax_t.plot(sizes, med * 1e6, "o-", color="#4c72b0", ms=4, label="median")
    ax_b.plot(sizes, sizes / med / 1e9, "o-", color="#4c72b0", ms=4, label="measured (median)")
    for part, colour, name in (
        (fit.below, "#55a868", "below"),
        (fit.above, "#c44e52", "above"),
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


def aggregation_ratio(records: Results | pd.DataFrame) -> pd.DataFrame:
    """Per volume V: median times of one message of V bytes and of k messages of V/k bytes, and
    the ratio R = T_one / T_split (R < 1: aggregating wins)."""
    df = as_frame(records)
    require_columns(df, ["variant", "bytes", "seconds", "k"], "aggregation ratios")
    med = df.groupby(["bytes", "variant"])["seconds"].median().unstack("variant")
    out = pd.DataFrame(
        {
            "bytes": med.index.to_numpy(),
            "k": int(df["k"].iloc[0]),
            "one_s": med["one"].to_numpy(),
            "split_s": med["split"].to_numpy(),
        }
    )
    out["message_bytes"] = out["bytes"] // out["k"]
    out["ratio"] = out["one_s"] / out["split_s"]
    return out


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
    ax.plot(x, table["ratio"], "o-", color="#4c72b0", label="measured (median)")
    if fit is not None:
        model = aggregated_time(fit.alpha, fit.beta, table["bytes"], 1) / aggregated_time(
            fit.alpha, fit.beta, table["bytes"], k
        )
        ax.plot(
            x, model, "--", color="#55a868", label="Hockney: (alpha + V/beta)/(k alpha + V/beta)"
        )
    ax.axhline(1.0, color="black", lw=0.8)
    ax.axhline(1 / k, color="grey", lw=0.8, ls=":", label=f"1/k = 1/{k} (latency bound)")
    if sr8000 is not None:
        ax.axvline(32 * 1024, color="#c44e52", lw=0.8, ls=":", label="SR8000 crossover, 32 kB")
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
        ax2.bar(list(bars), list(bars.values()), color=["#8172b2", "#937860"])
        for i, v in enumerate(bars.values()):
            ax2.text(i, v, f"{v:.2f}", ha="center", va="bottom")
        ax2.axhline(1.0, color="black", lw=0.8)
        ax2.set_ylabel("time ratio (published, 1 MB per pure-MPI message)")
        ax2.set_title("Hitachi SR8000, Rabenseifner, slides 16-17 (8 x 8 MB vs 8 x 8 x 1 MB)")
    fig.tight_layout()
    return fig


def progress_table(runs) -> pd.DataFrame:
    """The busy-sender experiment (pingpong mode=progress), one row per case: send call, polling
    interval (0: no MPI call while computing), asynchronous progress on or off, and the medians
    of the receiver's wait and of the sender's compute and wait (seconds)."""
    if isinstance(runs, (Results, pd.DataFrame)):
        runs = [runs]
    df = pd.concat([as_frame(r) for r in runs], ignore_index=True)
    require_columns(df, ["send", "poll_us", "async_progress", "role"], "progress tables")
    df = df[df["mode"] == "progress"] if "mode" in df else df
    keys = ["send", "poll_us", "async_progress"]
    recv = df[df["role"] == "receiver"].groupby(keys)["recv_wait_seconds"].median()
    send = df[df["role"] == "sender"].groupby(keys)[["compute_seconds", "wait_seconds"]].median()
    out = send.rename(
        columns={"compute_seconds": "sender_compute_s", "wait_seconds": "sender_wait_s"}
    )
    out.insert(0, "receiver_wait_s", recv)
    out = out.reset_index()
    out["case"] = [
        f"{s} {'poll ' + format(p, 'g') + ' us' if p > 0 else 'no poll'}{' +async' if a else ''}"
        for s, p, a in zip(out["send"], out["poll_us"], out["async_progress"], strict=True)
    ]
    return out


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
    for i, (p, colour) in enumerate(((6, "#8172b2"), (120, "#937860"))):
        rel = t[t["processors"] == p]["relative"].to_numpy()
        ax.bar(x + (i - 0.5) * 0.4, rel, width=0.4, color=colour, label=f"{p} processors")
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0.85, 1.05)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_ylabel("whole-code time / Bsend no css")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
