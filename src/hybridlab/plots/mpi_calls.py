"""Which thread made which MPI call: one bar per (rank, thread), one segment per MPI function."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ..machine.thread_levels import THREAD_LEVELS
from ..runs import compliance
from ..runs.records import Results
from .palette import THREAD_LEVEL_COLOURS, ink_on

BREAKS = "//"  # the hatch of calls that break the level asked for


def mpi_calls_plot(
    results: Results, level: str | None = None, title: str | None = None, ax: Axes | None = None
) -> Figure:
    """Calls per rank and thread of a kernel built with trace_mpi=True: a segment per MPI
    function, as long as its number of calls and labelled with it, coloured by the lowest thread
    level the calls need and naming it (so the colour is never the only cue); with `level`,
    calls that break it are also hatched and outlined."""
    table = compliance.calls_table(results)
    rows = list(table[["rank", "thread"]].drop_duplicates().itertuples(index=False))
    if ax is None:
        fig, ax = plt.subplots(figsize=(8.0, 1.0 + 0.5 * max(len(rows), 1)))
    else:
        fig = ax.figure
    asked = THREAD_LEVELS.index(level.lower().removeprefix("mpi_thread_")) if level else None
    broken = 0
    for y, (rank, thread) in enumerate(rows):
        left = 0
        mine = table[(table["rank"] == rank) & (table["thread"] == thread)]
        for call in mine.itertuples(index=False):
            bad = asked is not None and THREAD_LEVELS.index(call.needs) > asked
            broken += call.calls if bad else 0
            ax.barh(y, call.calls, left=left, height=0.7, color=THREAD_LEVEL_COLOURS[call.needs],
                    hatch=BREAKS if bad else None, edgecolor="black", lw=2.0 if bad else 0.5)  # fmt: skip
            fill = THREAD_LEVEL_COLOURS[call.needs]
            # on a hatched segment the words get a plain patch of its colour behind them
            text = {"ha": "center", "va": "center", "color": ink_on(fill),
                    "bbox": {"fc": fill, "ec": "none", "pad": 0.8} if bad else None}  # fmt: skip
            ax.text(left + call.calls / 2, y - 0.08, f"{call.call.removeprefix('MPI_')} x{call.calls}",
                    fontsize=7, **text)  # fmt: skip
            ax.text(left + call.calls / 2, y + 0.2, call.needs, fontsize=6, **text)
            left += call.calls
    ax.set_yticks(range(len(rows)), [f"rank {r}, thread {t}" for r, t in rows])
    ax.invert_yaxis()
    ax.set_xlabel("MPI calls (each segment: one function, its count and the level it needs)")
    handles = [Patch(color=THREAD_LEVEL_COLOURS[n], label=f"needs {n}") for n in THREAD_LEVELS]
    if asked is not None:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch=BREAKS,
                             label=f"breaks '{THREAD_LEVELS[asked]}'"))  # fmt: skip
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if title is None:
        title = "MPI calls per thread"
        if asked is not None:
            verdict = f"{broken} call(s) break it" if broken else "all calls allowed"
            title += f" (level asked: '{THREAD_LEVELS[asked]}': {verdict})"
    ax.set_title(title, fontsize=10)
    if not rows:
        ax.text(0.5, 0.5, "no MPI calls", transform=ax.transAxes, ha="center", va="center")
    fig.tight_layout()
    return fig
