"""Tables of lab 03's pingpong runs: the aggregation ratio per volume, and the busy-sender
(progress) cases.

    ratios = aggregation_ratio(records)       # R = T(one message) / T(k messages) per volume
    progress = progress_table({"default": res_plain, "async": res_async})

Tables take records; they launch nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..runs.records import Results, as_frame, require_columns


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


def progress_table(
    runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame] | Mapping[str, Results],
) -> pd.DataFrame:
    """The busy-sender experiment (pingpong mode=progress), one row per case: send call, polling
    interval (0: no MPI call while computing), asynchronous progress on or off, and the medians
    of the receiver's wait and of the sender's compute and wait (seconds). Runs given by name
    (a mapping) have the name in front of each of their cases."""
    if isinstance(runs, Mapping):
        named = [progress_table(run).assign(case=lambda t, n=name: n + ": " + t["case"])
                 for name, run in runs.items()]  # fmt: skip
        return pd.concat(named, ignore_index=True)
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
