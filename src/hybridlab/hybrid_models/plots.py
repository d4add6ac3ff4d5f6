"""The hybrid programming models (lab 01): the taxonomy as one figure, the price of asking for
MULTIPLE, and the master race.

    programming_models()          tree of Rabenseifner's slide 8, with what each
                                  model is used for, its advantages and its mismatch problems
    level_cost_plot(cost_runs)    MPI_Barrier and 8-byte latency samples per thread level
    race_plot(race, ranks=2, threads=2, delay_us=1000)   values read wrong per iteration, one panel per barrier setting

Plots launch nothing; the texts are summaries in our own words, with the slides they come from.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from ..plots.palette import PHASE_COLOURS
from ..plots.samples import strip_plot
from ..runs.records import Results
from ..sync.tables import slowest_rank_samples

FAMILY_COLOURS = {
    "pure MPI": "#dbe7f5",
    "no overlap": "#fbe3cf",
    "overlap": "#d9efd9",
    "OpenMP only": "#e9def3",
}
EDGE = "#444444"


@dataclass(frozen=True)
class Model:
    """One leaf of the taxonomy: a way to program a cluster of shared-memory nodes."""

    name: str
    family: str
    who_calls_mpi: str
    level: str
    used: str
    advantages: str
    problems: str


MODELS = (
    Model(
        "pure MPI",
        "pure MPI",
        "one MPI process per core; every process calls MPI",
        "SINGLE is enough",
        "most MPI codes; the baseline every hybrid code is measured against",
        "no code changes; the MPI library need not be thread-safe (slide 13)",
        "topology: which ranks share a node (slide 13); messages inside the node (14); "
        "every core communicates though 1-3 could fill the network (35)",
    ),
    Model(
        "masteronly",
        "no overlap",
        "MPI only outside parallel regions, by the master thread",
        "FUNNELED",
        "the usual first hybrid step: OpenMP loops added to an MPI code (HYDRA, SEAM, slides 6-7)",
        "no messages inside the node; no topology problem (slide 15)",
        "one thread may not fill the network (16-34); the other threads sleep during MPI (15, 35); "
        "fork/join and cache-flush cost (36)",
    ),
    Model(
        "funneled & reserved",
        "overlap",
        "the master thread communicates while the other threads compute",
        "FUNNELED",
        "halo exchange hidden behind interior work (slides 40-44)",
        "'a good chance' (slide 40); simpler than full load balancing; wins when memory "
        "bandwidth is saturated anyway (44)",
        "code split into halo-free and halo parts; thread-rank code instead of omp for (38); "
        "imbalance unless comm and compute shares match (41)",
    ),
    Model(
        "funneled, full load balancing",
        "overlap",
        "the master communicates, then joins the computation",
        "FUNNELED",
        "rarely written by hand (today: dynamic schedules or tasks)",
        "no thread idles",
        "'very hard to do' (slide 40); the same code split as with a reserved thread",
    ),
    Model(
        "multiple & reserved",
        "overlap",
        "a few reserved threads communicate, the others compute",
        "MULTIPLE",
        "networks one thread cannot fill (slides 21-28)",
        "several threads fill the network: most platforms reach >80% of the bandwidth with "
        "25% of the CPUs of a node communicating (28)",
        "needs MULTIPLE (a thread-safe MPI costs more per call); the same split and balance problems",
    ),
    Model(
        "multiple, full load balancing",
        "overlap",
        "any thread communicates and computes",
        "MULTIPLE",
        "rarely written by hand; the most flexible model",
        "no thread idles; communication from many threads",
        "'very hard to do' (slide 40); needs MULTIPLE",
    ),
    Model(
        "OpenMP only",
        "OpenMP only",
        "no MPI: OpenMP on a distributed virtual shared memory",
        "no MPI",
        "DSM research systems (TreadMarks); NAS benchmarks (slides 47-53)",
        "no message passing to write",
        "70-100% of MPI's efficiency on NAS class A (53); memory for page management; "
        "extra traffic from false page sharing? (52)",
    ),
)

MODEL_NAMES = tuple(m.name for m in MODELS)


def _box(ax: Axes, x: float, y: float, w: float, h: float, colour: str, **kw) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.15",
            facecolor=colour,
            edgecolor=EDGE,
            linewidth=kw.pop("linewidth", 1.0),
            **kw,
        )
    )


def _node(ax: Axes, x: float, y: float, w: float, title: str, note: str, colour: str) -> None:
    _box(ax, x, y, w, 0.95, colour)
    ax.text(x, y + 0.16, title, ha="center", va="center", fontsize=10, fontweight="bold")
    ax.text(x, y - 0.2, note, ha="center", va="center", fontsize=7.5, style="italic")


def _link(ax: Axes, x0: float, y0: float, x1: float, y1: float) -> None:
    """An elbow connector from the bottom of one box to the top of another."""
    mid = (y0 + y1) / 2
    ax.plot([x0, x0, x1, x1], [y0, mid, mid, y1], color=EDGE, linewidth=0.9, zorder=0)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width))


def programming_models(width_chars: int = 31) -> Figure:
    """The taxonomy of Rabenseifner's slide 8, one box per model.

    Each model's box says who calls MPI, the thread level it needs, where it is used, its
    advantages (+) and its mismatch problems (-), with the slides they come from."""
    fig, ax = plt.subplots(figsize=(19, 10.5))
    ax.set_xlim(-0.6, 6.6)
    ax.set_ylim(-0.2, 10.4)
    ax.axis("off")
    col = {m.name: i for i, m in enumerate(MODELS)}
    y_root, y1, y2, y3, y_leaf = 9.8, 8.55, 7.3, 6.05, 4.85

    _node(
        ax,
        3.0,
        y_root,
        4.2,
        "Parallel programming models on hybrid platforms",
        "clusters of shared-memory nodes (Rabenseifner, slides 5 and 8)",
        "white",
    )
    _node(ax, 0.0, y1, 0.95, "pure MPI", "one process per core", FAMILY_COLOURS["pure MPI"])
    _node(
        ax,
        3.0,
        y1,
        2.6,
        "hybrid MPI + OpenMP",
        "MPI between nodes, OpenMP inside each node",
        "#f4f4f4",
    )
    _node(ax, 6.0, y1, 0.95, "OpenMP only", "virtual shared memory", FAMILY_COLOURS["OpenMP only"])
    _node(
        ax, 1.0, y2, 1.1, "no overlap", "MPI outside parallel regions", FAMILY_COLOURS["no overlap"]
    )
    _node(
        ax,
        3.5,
        y2,
        2.9,
        "overlapping communication + computation",
        "some threads communicate while the others compute",
        FAMILY_COLOURS["overlap"],
    )
    _node(
        ax, 2.5, y3, 1.7, "funneled", "only the master thread calls MPI", FAMILY_COLOURS["overlap"]
    )
    _node(
        ax, 4.5, y3, 1.7, "multiple", "more than one thread may call MPI", FAMILY_COLOURS["overlap"]
    )

    half = 0.475
    for x in (0.0, 3.0, 6.0):
        _link(ax, 3.0, y_root - half, x, y1 + half)
    for x in (1.0, 3.5):
        _link(ax, 3.0, y1 - half, x, y2 + half)
    for x in (2.5, 4.5):
        _link(ax, 3.5, y2 - half, x, y3 + half)
    _link(ax, 0.0, y1 - half, 0.0, y_leaf)
    _link(ax, 6.0, y1 - half, 6.0, y_leaf)
    _link(ax, 1.0, y2 - half, 1.0, y_leaf)
    for parent, children in (
        (2.5, ("funneled & reserved", "funneled, full load balancing")),
        (4.5, ("multiple & reserved", "multiple, full load balancing")),
    ):
        for child in children:
            _link(ax, parent, y3 - half, col[child], y_leaf)

    # the leaves: one column each, all at the bottom; each text is placed below the one before
    top, height = y_leaf, 4.85
    renderer = fig.canvas.get_renderer()
    to_data = ax.transData.inverted()
    for m in MODELS:
        x = col[m.name]
        _box(ax, x, top - height / 2, 0.94, height, FAMILY_COLOURS[m.family], linewidth=1.3)
        title = ax.text(
            x,
            top - 0.12,
            _wrap(m.name, 22),
            ha="center",
            va="top",
            fontsize=10.5,
            fontweight="bold",
        )
        body = [
            (_wrap(m.who_calls_mpi, width_chars), {"style": "italic"}),
            (f"thread level: {m.level}", {"fontweight": "bold", "color": "#1f3d7a"}),
            (_wrap("used: " + m.used, width_chars), {}),
            (_wrap("+ " + m.advantages, width_chars), {"color": "#1a6b1a"}),
            (_wrap("- " + m.problems, width_chars), {"color": "#9b1c1c"}),
        ]
        below = title
        for text, style in body:
            y = below.get_window_extent(renderer).transformed(to_data).y0 - 0.17
            below = ax.text(
                x - 0.43, y, text, ha="left", va="top", fontsize=9.0, linespacing=1.2, **style
            )
    ax.text(
        3.0,
        -0.15,
        "Numbers in brackets are slides of Rabenseifner's 'Hybrid Parallel Programming'. Mismatch problems (slide 12): "
        "topology, intra-node messages, inter-node bandwidth, sleeping threads / saturation, "
        "OpenMP overhead, overlap. No model avoids them all: 'no silver bullet'.",
        ha="center",
        va="bottom",
        fontsize=8.5,
        color="#333333",
    )
    fig.tight_layout()
    return fig


def level_cost_plot(cost_runs: Mapping[str, Mapping[str, Results]]) -> Figure:
    """Per thread level (hybrid_models.exercise.level_cost_runs): the MPI_Barrier samples (the
    slowest rank's) and the 8-byte half round trips, a dot per sample and the median."""
    ranks = len(next(iter(cost_runs.values()))["sync"].meta["ranks"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3))
    barrier = {}
    for level, runs in cost_runs.items():
        samples = slowest_rank_samples(runs["sync"])
        barrier[level] = samples.loc[samples["construct"] == "mpi_barrier", "seconds"]
    latency = {level: runs["ping"].records["seconds"] for level, runs in cost_runs.items()}
    for ax, what, samples in ((axes[0], "MPI_Barrier", barrier), (axes[1], "8-byte latency", latency)):
        strip_plot(samples, ax=ax, unit="µs", title=f"{what}, {ranks} ranks (median: black bar)")
    fig.tight_layout()
    return fig


def race_plot(race: Mapping[str, Results], *, ranks: int, threads: int, delay_us: int) -> Figure:
    """The master race (master_race runs by barrier setting): the values read overwritten and
    stale in each iteration, summed over ranks and threads, one panel per setting."""
    fig, axes = plt.subplots(1, len(race), figsize=(15, 3.4), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, (name, run) in zip(axes, race.items(), strict=True):
        per_iteration = run.records.groupby("iteration")[["overwritten", "stale"]].sum()
        ax.bar(per_iteration.index, per_iteration["overwritten"], color=PHASE_COLOURS["barrier"],
               hatch="..", edgecolor="white", label="overwritten (needs barrier 1)")  # fmt: skip
        ax.bar(per_iteration.index, per_iteration["stale"], bottom=per_iteration["overwritten"],
               color=PHASE_COLOURS["compute"], label="stale (needs barrier 2)")  # fmt: skip
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("iteration")
        if len(run.records) and run.records["wrong"].sum() == 0:
            ax.text(0.5, 0.5, "no wrong value", transform=ax.transAxes, ha="center",
                    fontsize=11)  # fmt: skip
    axes[0].set_ylabel(f"values read wrong\n(all {ranks} ranks x {threads} threads)")
    axes[-1].legend(fontsize=8, loc="upper right")
    fig.suptitle(f"OMP MASTER + MPI_Sendrecv, delay {delay_us} us: wrong values per iteration",
                 fontsize=11)  # fmt: skip
    fig.tight_layout()
    return fig



from ..plots.alt import describe_figures  # noqa: E402

describe_figures(globals())
