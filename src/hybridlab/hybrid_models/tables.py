"""Tables of lab 01's runs: the thread levels asked for and provided, per rank and thread, and
the values the master race read wrong.

    thread_level_table(records)   thread_levels records of several runs, provided level coloured
    race_totals(race)             master_race runs by name: values overwritten, stale, wrong
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..machine.thread_levels import THREAD_LEVELS
from ..runs.records import Results


def _frame(records: Results | pd.DataFrame) -> pd.DataFrame:
    frame = records.records if isinstance(records, Results) else records
    needed = {"requested", "provided", "query", "is_thread_main", "rank", "thread"}
    missing = needed - set(frame.columns)
    if missing:
        raise ValueError(f"thread_levels records need the columns {sorted(missing)}")
    return frame


def thread_level_table(records: Results | pd.DataFrame):
    """One row per (requested, rank, thread): provided below requested on red in italics, at
    least it on green, and the main thread in bold. Returns a pandas Styler (renders in a
    notebook). No column says whether the level was enough: lab 01 (d) asks the student that."""
    frame = _frame(records)
    order = {level: i for i, level in enumerate(THREAD_LEVELS)}
    table = (
        frame[["requested", "rank", "thread", "provided", "query", "is_thread_main"]]
        .assign(_order=frame["requested"].map(order))
        .sort_values(["_order", "rank", "thread"])
        .drop(columns="_order")
        .set_index(["requested", "rank", "thread"])
    )
    requested = table.index.get_level_values("requested")

    def colour_levels(column: pd.Series) -> list[str]:
        return [
            "background-color: #f6d5d5; font-style: italic"
            if order[got] < order[want]
            else "background-color: #d9efd9"
            for got, want in zip(column, requested, strict=True)
        ]

    def bold_main(column: pd.Series) -> list[str]:
        return ["font-weight: bold" if bool(v) else "color: #777777" for v in column]

    return (
        table.style.apply(colour_levels, subset=["provided", "query"])
        .apply(bold_main, subset=["is_thread_main"])
        .set_caption(
            "MPI thread levels: requested, provided (red, italic: below the request), "
            "and which thread is main (bold)"
        )
    )


def race_totals(runs: Mapping[object, Results]) -> pd.DataFrame:
    """One row per master_race run (by its name): the values read overwritten (barrier 1
    missing), stale (barrier 2 missing) and wrong, summed over ranks, threads and iterations."""
    return pd.DataFrame(
        {name: run.records[["overwritten", "stale", "wrong"]].sum() for name, run in runs.items()}
    ).T
