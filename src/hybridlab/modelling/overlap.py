"""The overlap model of Rabenseifner, slide 42 (Rabenseifner): funneled & reserved against masteronly.

A masteronly step (time 1) splits into f_comm (the master communicates, the others sleep),
f_non (computation that cannot overlap) and f_ov = 1 - f_comm - f_non (computation that can).
Funneled & reserved gives m of the n threads of a node to communication and the other n - m to
the overlappable work, and all n threads do the rest:

    T_FR / T_MO = f_non + max(f_comm / m, f_ov * n / (n - m)),    epsilon = T_MO / T_FR.

The slide prints only the bounds, epsilon_max = 1 + m (1 - 1/n) and epsilon_min = 1 - m/n, and
the curves for n = 2, 4, 8 (m = 1) with f_non = 0 % and 40 %; the ratio above is the
reconstruction (notes on Rabenseifner) that gives both printed bounds. Launches nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..records import Results, as_frame


def epsilon(f_comm, n: float, m: float = 1.0, f_non: float = 0.0, speedup: float | None = None):
    """Speed-up of funneled & reserved over masteronly (> 1: reserved is faster), for a
    communication fraction f_comm (number or array) of the masteronly time. `speedup`: how
    many times faster n threads do the overlappable work than n - m threads (default
    n / (n - m); less when memory bandwidth saturates, Rabenseifner, slide 44)."""
    if not 0 < m < n:
        raise ValueError(f"need 0 < m < n (got m={m}, n={n})")
    f = np.asarray(f_comm, dtype=float)
    if np.any((f < 0) | (f + f_non > 1 + 1e-12)):
        raise ValueError("fractions must satisfy 0 <= f_comm and f_comm + f_non <= 1")
    overlap = 1.0 - f - f_non
    slower = n / (n - m) if speedup is None else speedup
    return 1.0 / (f_non + np.maximum(f / m, overlap * slower))


def epsilon_max(n: float, m: float = 1.0) -> float:
    """The slide's best case (f_non = 0): 1 + m (1 - 1/n)."""
    return 1.0 + m * (1.0 - 1.0 / n)


def epsilon_min(n: float, m: float = 1.0) -> float:
    """The slide's worst case (f_comm -> 0, f_non = 0): 1 - m/n."""
    return 1.0 - m / n


def best_f_comm(n: float, m: float = 1.0, f_non: float = 0.0) -> float:
    """The f_comm where reserved gains most: the m threads' communication and the n - m
    threads' overlappable work take equally long."""
    return (1.0 - f_non) * m * n / (n - m + m * n)


def model_curves(ns=(2, 4, 8), f_nons=(0.0, 0.4), m: float = 1.0, points: int = 201) -> pd.DataFrame:
    """Slide 42's curves: epsilon against f_comm for every n and f_non (tidy table); each curve
    includes its peak, so a plot shows the exact maximum."""
    rows = []
    for f_non in f_nons:
        for n in ns:
            f = np.union1d(np.linspace(0.0, 1.0 - f_non, points), [best_f_comm(n, m, f_non)])
            rows.append(pd.DataFrame({"f_non": f_non, "n": n, "m": m, "f_comm": f,
                                      "epsilon": epsilon(f, n, m, f_non)}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def _run_summary(run: Results | pd.DataFrame) -> dict:
    """variant, wait, threads, loop time (slowest thread) and the master's halo time of a run."""
    t = as_frame(run)
    t = t[t["record"] == "timer"]
    return {"variant": t["variant"].iloc[0], "comm_wait_us": int(t["comm_wait_us"].iloc[0]),
            "threads": int(t["threads"].max()),
            "total": float(t.loc[t["phase"] == "total", "seconds"].max()),
            "halo": float(t.loc[(t["phase"] == "halo") & (t["thread"] == 0), "seconds"].max())}  # fmt: skip


def measured_epsilon(runs) -> pd.DataFrame:
    """Pairs masteronly and funnelled halo3d runs of the same emulated wait (comm_wait_us),
    keeping the fastest repeat of each: f_comm = the master's halo time / masteronly's loop
    time, epsilon = T_masteronly / T_funnelled; one row per wait, sorted by f_comm."""
    s = pd.DataFrame([_run_summary(r) for r in runs])
    best = s.loc[s.groupby(["comm_wait_us", "variant"])["total"].idxmin()]
    rows = []
    for wait, g in best.groupby("comm_wait_us"):
        v = g.set_index("variant")
        if not {"masteronly", "funnelled"} <= set(v.index):
            continue
        t_mo, t_fr = float(v.loc["masteronly", "total"]), float(v.loc["funnelled", "total"])
        rows.append({"comm_wait_us": int(wait), "threads": int(v["threads"].max()),
                     "t_masteronly": t_mo, "t_funnelled": t_fr,
                     "f_comm": float(v.loc["masteronly", "halo"]) / t_mo, "epsilon": t_mo / t_fr})  # fmt: skip
    return pd.DataFrame(rows).sort_values("f_comm").reset_index(drop=True)
