"""Predictions of published tables from a model plus the published setting (Luecke et al.,
Tables 2 and 3). Every function computes from numbers; none launches anything. The models of lab
08's graded parts (the student's own halo3d runs, Stathopoulos 2010's Master Only halo tables)
are the student's to write: they are not here.
"""

from __future__ import annotations

import pandas as pd


def _inputs(inputs: pd.DataFrame) -> dict[str, float]:
    return dict(zip(inputs["quantity"], inputs["value"].astype(float), strict=True))


def predict_table2(table2: pd.DataFrame, inputs: pd.DataFrame) -> pd.DataFrame:
    """003 Table 2 from its 2-node pure MPI time: compute halves with each doubling of nodes,
    communication (0.2 % at 2 nodes, section 3) stays: T(N) = T2 ((1 - c) 2 / N + c)."""
    c = _inputs(inputs)["comm_share_square"]
    out = table2.copy()
    base = out.query("nodes == 2 and version == 'pure MPI'")["seconds"].iloc[0]
    out["predicted_s"] = base * ((1 - c) * 2 / out["nodes"] + c)
    out["published/predicted"] = out["seconds"] / out["predicted_s"]
    return out


def predict_table3(table3: pd.DataFrame, inputs: pd.DataFrame) -> pd.DataFrame:
    """003 Table 3's speedups under two bounds: 'per node' (communication is the 25 % design
    share of pure MPI's time and falls 6-fold with 6 times fewer processes, as the authors
    state) and 'per rank' (each rank still sends two rows of n1 points: no gain)."""
    v = _inputs(inputs)
    c, k = v["comm_share_rectangular_target"], v["comm_reduction_2_per_node"]
    out = table3[table3["version"] != "pure MPI"].copy()
    out["predicted_per_node"] = 1.0 / ((1 - c) + c / k)
    out["predicted_per_rank"] = 1.0
    out["published/predicted"] = out["speedup"].astype(float) / out["predicted_per_node"]
    return out.reset_index(drop=True)
