"""The overlap model of Rabenseifner, slide 42 (Rabenseifner): funneled & reserved against masteronly.

A masteronly step (time 1) splits into f_comm (the master communicates, the others sleep),
f_non (computation that cannot overlap) and f_ov = 1 - f_comm - f_non (computation that can).
Funneled & reserved gives m of the n threads of a node to communication and the other n - m to
the overlappable work, and all n threads do the rest:

    T_FR / T_MO = f_non + max(f_comm / m, f_ov * n / (n - m)),    epsilon = T_MO / T_FR.

The slide prints only the bounds, epsilon_max = 1 + m (1 - 1/n) and epsilon_min = 1 - m/n, and
the curves for n = 2, 4, 8 (m = 1) with f_non = 0 % and 40 %; the ratio above is the
reconstruction (notes on Rabenseifner) that gives both printed bounds. The model itself is lab
08's graded part (a): `model_curves` draws it with the student's function, and
`measured_epsilon` reads the runs. Launches nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..runs.records import Results, as_frame


def model_curves(epsilon, ns=(2, 4, 8), f_nons=(0.0, 0.4), m: float = 1.0,
                 points: int = 401) -> pd.DataFrame:  # fmt: skip
    """Slide 42's curves drawn with `epsilon(f_comm, n, m, f_non)`, the student's own model:
    epsilon against f_comm for every n and f_non (tidy table)."""
    rows = []
    for f_non in f_nons:
        for n in ns:
            f = np.linspace(0.0, 1.0 - f_non, points)
            eps = np.asarray(epsilon(f, n, m, f_non), dtype=float).ravel()
            rows.append(pd.DataFrame({"f_non": f_non, "n": n, "m": m, "f_comm": f, "epsilon": eps}))
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
