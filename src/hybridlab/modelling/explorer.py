"""The interactive explorer of lab 08: pick the cores, threads per rank, message size, network
bandwidth and the fraction of communication hidden behind computation, and see the predicted
time of one step of a halo-exchange code, split into compute, exposed communication and
synchronisation, for every split of the same cores. `breakdown` and `splits_table` are plain
functions (tested without a browser); `explorer` wires them to ipywidgets and redraws live.

Model of one step, on nodes of `node_cores` cores (a rank's threads stay on its node):
  compute        W / (P T) points per thread at the calibrated update rate, slowed down when
                 more threads share a node than the calibrated memory bandwidth feeds
  communication  every rank sends `messages` messages of s T bytes (a rank of T threads holds
                 T times the data along the split, as in Stathopoulos's Jacobi) through its node's one
                 link: the node pays the latency once per message and the bandwidth per byte,
                 R = node_cores / T ranks per node: R messages alpha + R messages s T / beta
  hidden         min(overlap x communication, compute): overlapped, off the critical path
  sync           MPI barrier x log2(P) (a tree) + an OpenMP barrier when T > 1
"""

from __future__ import annotations

import math

import pandas as pd

from .calibration import Calibration

PARTS = ("compute", "communication", "sync")
DEFAULT_POINTS = 512**3


def breakdown(cal: Calibration, ranks: int, threads: int, message_bytes: float,
              bandwidth_Bps: float, overlap: float = 0.0, *, node_cores: int = 24,
              points: float = DEFAULT_POINTS, messages: int = 6) -> dict[str, float]:  # fmt: skip
    """Predicted seconds of one step for P = ranks, T = threads (see the module docstring)."""
    if ranks < 1 or threads < 1 or threads > node_cores:
        raise ValueError(f"need ranks >= 1 and 1 <= threads <= node_cores ({node_cores})")
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap is a fraction between 0 and 1 (got {overlap})")
    if bandwidth_Bps <= 0:
        raise ValueError("bandwidth must be positive")
    per_node = max(1, min(ranks, node_cores // threads))  # ranks sharing a node and its link
    shared = min(per_node * threads, int(cal.machine.get("cpus", 1)) or 1)
    rate = cal["stencil_rate"] * min(1.0, cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"] / shared)
    compute = points / (ranks * threads) / rate
    comm = 0.0
    if ranks > 1:
        comm = per_node * messages * (cal["latency_s"] + message_bytes * threads / bandwidth_Bps)
    hidden = min(overlap * comm, compute)
    sync = cal["mpi_barrier_s"] * math.log2(ranks) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    exposed = comm - hidden
    return {"compute": compute, "communication": exposed, "hidden": hidden, "sync": sync,
            "total": compute + exposed + sync}  # fmt: skip


def splits_table(cal: Calibration, cores: int, message_bytes: float, bandwidth_Bps: float,
                 overlap: float = 0.0, *, node_cores: int = 24, **kw) -> pd.DataFrame:  # fmt: skip
    """breakdown for every P x T = cores with T dividing both cores and node_cores."""
    rows = []
    for t in range(1, min(cores, node_cores) + 1):
        if cores % t or node_cores % t:
            continue
        p = cores // t
        rows.append({"ranks": p, "threads": t, "label": f"{p}x{t}",
                     **breakdown(cal, p, t, message_bytes, bandwidth_Bps, overlap,
                                 node_cores=node_cores, **kw)})  # fmt: skip
    return pd.DataFrame(rows)


def explorer_figure(cal: Calibration, cores: int, node_cores: int, threads: int,
                    message_bytes: float, bandwidth: float, overlap: float):  # fmt: skip
    """What the explorer draws for one setting of its sliders: every split's stacked bars."""
    from .plots import breakdown_bars

    table = splits_table(cal, cores, message_bytes, bandwidth, overlap, node_cores=node_cores)
    return breakdown_bars(table, chosen=f"{cores // threads}x{threads}",
                          title=f"{cores} cores, {node_cores} per node, {message_bytes} B per "
                          f"message (pure MPI), beta {bandwidth / 1e9:.2g} GB/s, "
                          f"overlap {overlap:.0%}")  # fmt: skip


def explorer(cal: Calibration):
    """ipywidgets sliders -> explorer_figure, redrawn live; returns the widget box."""
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    beta = cal["bandwidth_Bps"]
    controls = {
        "cores": w.SelectionSlider(options=[2**k for k in range(1, 15)], value=1024,
                                   description="P x T cores"),  # fmt: skip
        "node_cores": w.SelectionSlider(options=[2, 4, 8, 12, 16, 24, 32, 48, 64, 128],
                                        value=24, description="cores/node"),  # fmt: skip
        "threads": w.SelectionSlider(options=[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128],
                                     value=1, description="threads T"),  # fmt: skip
        "message_bytes": w.SelectionSlider(options=[2**k for k in range(3, 25)], value=16384,
                                           description="msg bytes"),  # fmt: skip
        "bandwidth": w.FloatLogSlider(value=beta, base=10, min=math.log10(beta) - 2,
                                      max=math.log10(beta) + 1, description="beta B/s"),  # fmt: skip
        "overlap": w.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.05, description="overlap"),
    }

    def draw(**values):
        explorer_figure(cal, **values)
        plt.show()

    out = w.interactive_output(draw, controls)
    items = list(controls.values())
    box = w.VBox([w.HBox(items[:3]), w.HBox(items[3:]), out])
    display(box)
    return box
