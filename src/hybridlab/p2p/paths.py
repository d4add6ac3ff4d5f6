"""Message paths: ping-pong inside a node and across nodes (lab 03's multi-node section), a
Hockney fit and the eager knee per path, and the published intra- and inter-node times beside
them. They launch nothing; the sweeps come from hybridlab.p2p.exercise.path_sweeps (or lab 03's
own sweep).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..mapping.tables import rank_hosts
from ..runs.records import Results, as_frame, require_columns
from .hockney import PiecewiseHockney, piecewise_hockney

INSIDE, ACROSS = "inside a node", "across nodes"
MIB = 2**20


def path_fits(sweeps: Mapping[str, Results | pd.DataFrame]) -> dict[str, PiecewiseHockney]:
    """The two-piece Hockney fit (below and above the eager knee) of each path's sweep."""
    out = {}
    for path, records in sweeps.items():
        frame = as_frame(records)
        require_columns(frame, ["bytes", "seconds"], "Hockney fits")
        out[path] = piecewise_hockney(frame["bytes"], frame["seconds"])
    return out


def paths_table(
    sweeps: Mapping[str, Results | pd.DataFrame], fits: Mapping[str, PiecewiseHockney]
) -> pd.DataFrame:
    """One row per path: the hosts its ranks ran on, the knee, alpha (us) and beta (GB/s) below and above it,
    and the median time of a 1 MiB message (measured, when the sweep reached it)."""
    rows = []
    for path, records in sweeps.items():
        frame, fit = as_frame(records), fits[path]
        at_mib = frame.loc[frame["bytes"] == MIB, "seconds"]
        rows.append({
            "path": path,
            "hosts": len(set(rank_hosts(records).values())),
            "knee_bytes": fit.switch_bytes,
            "alpha_below_us": 1e6 * fit.below.alpha,
            "beta_below_GBps": fit.below.beta / 1e9 if fit.below.resolved else float("nan"),
            "alpha_above_us": 1e6 * fit.above.alpha,
            "beta_above_GBps": fit.above.beta / 1e9 if fit.above.resolved else float("nan"),
            "one_MiB_us": 1e6 * float(at_mib.median()) if len(at_mib) else float("nan"),
        })  # fmt: skip
    return pd.DataFrame(rows)


def published_paths(slides: pd.DataFrame) -> pd.DataFrame:
    """Rabenseifner, slides 14-17 (Hitachi SR8000): the pure MPI exchange of 1 MB inside a node
    and across nodes, its time (ms) and the ratio across / inside."""
    pure = slides[slides["scheme"].isin(["pure MPI intra-node", "pure MPI inter-node"])]
    out = pure.assign(path=pure["scheme"].map({"pure MPI intra-node": INSIDE,
                                               "pure MPI inter-node": ACROSS}))  # fmt: skip
    out = out[["path", "message_bytes", "milliseconds"]].reset_index(drop=True)
    inside = float(out.loc[out["path"] == INSIDE, "milliseconds"].iloc[0])
    return out.assign(ratio_to_inside=out["milliseconds"] / inside)
