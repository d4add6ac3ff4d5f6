"""The interactive explorer of lab 08: pick ranks x threads, message size, network bandwidth and
the fraction of communication hidden behind computation, and see the predicted time of one step
of a halo-exchange code, split into compute, exposed communication and synchronisation, for
every split of the same cores. `breakdown` and `splits_table` are plain functions (tested
without a browser); `explorer` wires them to ipywidgets and redraws on every change.

Model of one step (each node like the calibrated machine):
  compute        W / (P T) points per thread at the calibrated update rate, slowed down when
                 more threads share a node than its memory bandwidth feeds (calibration)
  communication  `messages` per rank of s T bytes (a rank of T threads holds T times the data
                 along the split, as in 000's Jacobi): messages (alpha + s T / beta)
  hidden         min(overlap x communication, compute): overlapped, not on the critical path
  sync           MPI barrier x log2(P) (a tree) + an OpenMP barrier when T > 1
"""

from __future__ import annotations

import math

import pandas as pd

from .calibration import Calibration
from .predict import effective_rate

PARTS = ("compute", "communication", "sync")
DEFAULT_POINTS = 512**3


def breakdown(cal: Calibration, ranks: int, threads: int, message_bytes: float,
              bandwidth_Bps: float, overlap: float = 0.0, *, points: float = DEFAULT_POINTS,
              messages: int = 6) -> dict[str, float]:  # fmt: skip
    """Predicted seconds of one step for P = ranks, T = threads (see the module docstring)."""
    if ranks < 1 or threads < 1:
        raise ValueError("ranks and threads must be at least 1")
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap is a fraction between 0 and 1 (got {overlap})")
    if bandwidth_Bps <= 0:
        raise ValueError("bandwidth must be positive")
    compute = points / (ranks * threads) / effective_rate(cal, ranks, threads)
    comm = 0.0 if ranks == 1 else messages * (cal["latency_s"] + message_bytes * threads / bandwidth_Bps)
    hidden = min(overlap * comm, compute)
    sync = cal["mpi_barrier_s"] * math.log2(ranks) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    exposed = comm - hidden
    return {"compute": compute, "communication": exposed, "hidden": hidden, "sync": sync,
            "total": compute + exposed + sync}  # fmt: skip


def splits_table(cal: Calibration, cores: int, message_bytes: float, bandwidth_Bps: float,
                 overlap: float = 0.0, **kw) -> pd.DataFrame:  # fmt: skip
    """breakdown for every P x T = cores (T a divisor of cores), one row each."""
    rows = []
    for t in (d for d in range(1, cores + 1) if cores % d == 0):
        p = cores // t
        rows.append({"ranks": p, "threads": t, "label": f"{p}x{t}",
                     **breakdown(cal, p, t, message_bytes, bandwidth_Bps, overlap, **kw)})  # fmt: skip
    return pd.DataFrame(rows)


def explorer(cal: Calibration):
    """ipywidgets sliders -> splits_table -> plots.breakdown_bars, redrawn live."""
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    from .plots import breakdown_bars

    powers = [2**k for k in range(0, 15)]
    sizes = [2**k for k in range(3, 25)]
    beta = cal["bandwidth_Bps"]
    controls = {
        "cores": w.SelectionSlider(options=powers[1:], value=1024, description="P x T cores"),
        "threads": w.SelectionSlider(options=powers[:7], value=1, description="threads T"),
        "message_bytes": w.SelectionSlider(options=sizes, value=16384, description="msg bytes"),
        "bandwidth": w.FloatLogSlider(value=beta, base=10, min=math.log10(beta) - 2,
                                      max=math.log10(beta) + 1, description="beta B/s"),  # fmt: skip
        "overlap": w.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.05, description="overlap"),
    }

    def draw(cores, threads, message_bytes, bandwidth, overlap):
        table = splits_table(cal, cores, message_bytes, bandwidth, overlap)
        chosen = f"{cores // threads}x{threads}" if cores % threads == 0 else None
        breakdown_bars(table, chosen=chosen, title=f"{cores} cores, {message_bytes} B per "
                       f"message (pure MPI), beta {bandwidth / 1e9:.2g} GB/s, overlap {overlap:.0%}")
        plt.show()

    out = w.interactive_output(draw, controls)
    box = w.VBox([w.HBox(list(controls.values())[:3]), w.HBox(list(controls.values())[3:]), out])
    display(box)
    return box
