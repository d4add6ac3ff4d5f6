"""Lab 12's picture: the halo time of the same exchange funnelled and multiple beside lab 04's
variants, measured here, and the published Master Only / Funnelled / Multiple halo times of
Stathopoulos 2010 (XT6, 192 cores) beside it. Takes records; launches nothing.

    fig = comparison_plot(table, REFERENCE["000-appendix-a5"].frame, note="2 cores: ...")
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..plots.notes import machine_note
from ..runs.records import require_columns

PUBLISHED = (("A.23", "Master Only"), ("A.25", "Funnelled"), ("A.28", "Multiple"))


def published_halo(appendix: pd.DataFrame) -> pd.DataFrame:
    """Stathopoulos 2010, Tables A.23, A.25, A.28 (Cray XT6, 192 cores): the halo swap seconds
    per threads per process of each scheme (Multiple: the mean over threads, section 4.6.1)."""
    rows = [appendix[(appendix["table"] == t) & (appendix["scheme"] == s)] for t, s in PUBLISHED]
    return pd.concat(rows)[["table", "scheme", "threads", "halo_s", "total_s"]].reset_index(drop=True)


def comparison_plot(table: pd.DataFrame, appendix: pd.DataFrame, note: str | None = None,
                    title: str = "") -> Figure:  # fmt: skip
    """Left: halo and total seconds of each run of `table` (breakdown_table of the comparison
    runs, slowest thread), with `note` on the plot; right: the published halo times per thread
    count (published_halo)."""
    require_columns(table, ["label", "halo", "total"], "the comparison plot")
    fig, (ax, pax) = plt.subplots(1, 2, figsize=(12, 4.4), constrained_layout=True)
    xs = range(len(table))
    ax.bar([x - 0.2 for x in xs], table["halo"], width=0.4, label="halo")
    ax.bar([x + 0.2 for x in xs], table["total"], width=0.4, label="total", alpha=0.5)
    ax.set_xticks(list(xs), list(table["label"]), rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("seconds (slowest rank and thread)")
    ax.set_title(title or "your machine: the same grid, ranks x threads", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    machine_note(ax, note, where="top", width=70)
    for scheme, rows in published_halo(appendix).groupby("scheme", sort=False):
        pax.plot(rows["threads"], rows["halo_s"], marker="o", label=scheme)
    pax.set_xscale("log", base=2)
    pax.set_xlabel("threads per process")
    pax.set_ylabel("halo swap seconds")
    pax.set_title("published: 3-D Jacobi, Cray XT6, 192 cores\n(Stathopoulos 2010, Tables A.23, "
                  "A.25, A.28; Multiple: mean over threads)", fontsize=9)  # fmt: skip
    pax.legend(fontsize=8)
    return fig
