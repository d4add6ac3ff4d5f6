"""Chrome trace-event JSON from timeline records: the file a standard viewer opens.

The written file is read back with json and its structure checked: one process per rank, one
track per (rank, thread), metadata names, times in microseconds, events of one track that do not
overlap, and a clear error for records without a timeline.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pandas as pd
import pytest

import hybridlab as hl
from hybridlab.halo.serial import VARIANTS_2D, VARIANTS_3D, jacobi2d, jacobi3d
from hybridlab.runs.records import Results
from hybridlab.runs.traces import chrome_trace
from test_halo import run_halo


def _synthetic() -> pd.DataFrame:
    """2 ranks x 2 threads x 2 iterations of compute then barrier, written out of order."""
    rows = []
    for rank in range(2):
        for thread in range(2):
            t = 0.0
            for it in range(2):
                work = 0.010 * (1 + rank) + 0.001 * thread
                where = dict(rank=rank, thread=thread, cpu=2 * rank + thread, numa=0, iteration=it)
                end_of_work, end_of_barrier = t + work, 0.025 * (it + 1)
                rows.append(dict(where, phase="compute", start=t, end=end_of_work))
                rows.append(dict(where, phase="barrier", start=end_of_work, end=end_of_barrier))
                t = 0.025 * (it + 1)
    return pd.DataFrame(rows).iloc[::-1].reset_index(drop=True)


def _load(path) -> list[dict]:
    data = json.loads(path.read_text())
    assert set(data) >= {"traceEvents"}
    return data["traceEvents"]


def check_structure(events: list[dict], frame: pd.DataFrame) -> None:
    """The checks every trace passes, against the records it came from."""
    meta = [e for e in events if e["ph"] == "M"]
    slices = [e for e in events if e["ph"] == "X"]
    assert len(slices) == len(frame)
    ranks = sorted(set(frame["rank"]))
    tracks = sorted(set(zip(frame["rank"], frame["thread"], strict=True)))
    # every rank a process, named
    names = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert names == {r: f"rank {r}" for r in ranks}
    # every thread a track, named
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert threads == {(r, t): f"rank {r} thread {t}" for r, t in tracks}
    assert sorted({(e["pid"], e["tid"]) for e in slices}) == tracks
    # times in microseconds: dur == (end - start) * 1e6, ts == start * 1e6
    for e in slices:
        row = frame[
            (frame["rank"] == e["pid"])
            & (frame["thread"] == e["tid"])
            & (frame["phase"] == e["name"])
            & ((frame["start"] * 1e6 - e["ts"]).abs() < 1e-3)
        ]
        assert len(row) >= 1, e
        row = row.iloc[0]
        assert e["dur"] == pytest.approx((row["end"] - row["start"]) * 1e6, abs=1e-3)
        assert e["dur"] >= 0
        assert {"cpu", "numa"} <= set(e["args"])
        assert e["args"]["cpu"] == row["cpu"] and e["args"]["numa"] == row["numa"]
    # sorted, and the events of one track do not overlap (or nest properly)
    by_track = defaultdict(list)
    for e in slices:
        by_track[(e["pid"], e["tid"])].append(e)
    for track in by_track.values():
        assert [e["ts"] for e in track] == sorted(e["ts"] for e in track)
        stack: list[float] = []  # ends of the open slices
        for e in track:
            while stack and stack[-1] <= e["ts"] + 1e-3:
                stack.pop()
            end = e["ts"] + e["dur"]
            assert not stack or end <= stack[-1] + 1e-3, f"slice crosses its parent: {e}"
            stack.append(end)
    keys = [(e["pid"], e["tid"], e["ts"]) for e in slices]
    assert keys == sorted(keys)


def test_synthetic_trace_structure(tmp_path):
    frame = _synthetic()
    path = tmp_path / "trace.json"
    returned = chrome_trace(frame, path)
    events = _load(path)
    assert events == returned["traceEvents"]
    check_structure(events, frame)
    slices = [e for e in events if e["ph"] == "X"]
    assert {e["name"] for e in slices} == {"compute", "barrier"}
    assert {e["args"]["iteration"] for e in slices} == {0, 1}
    # 10 ms of compute is 10000 microseconds
    first = next(e for e in slices if (e["pid"], e["tid"], e["name"]) == (0, 0, "compute"))
    assert first["ts"] == 0 and first["dur"] == pytest.approx(10_000)


def test_results_and_frame_agree(tmp_path):
    frame = _synthetic()
    results = Results(frame, {"kernel": "imbalance"}, [])
    trace = chrome_trace(results)
    assert trace["traceEvents"] == chrome_trace(frame)["traceEvents"]
    assert trace["otherData"] == {"kernel": "imbalance"}
    assert chrome_trace(results, tmp_path / "t.json")["traceEvents"] == trace["traceEvents"]
    assert (tmp_path / "t.json").exists()


def test_nested_slices_are_allowed():
    frame = pd.DataFrame(
        [
            dict(rank=0, thread=0, cpu=0, numa=0, phase="jacobi", start=0.0, end=0.010),
            dict(rank=0, thread=0, cpu=0, numa=0, phase="halo", start=0.002, end=0.004),
        ]
    )
    check_structure(chrome_trace(frame)["traceEvents"], frame)


def test_totals_only_records_name_the_missing_columns():
    # halo2d/halo3d (timeline=0) emit one "timer" record per thread and phase: no start/end
    totals = pd.DataFrame(
        [dict(rank=0, thread=0, cpu=0, numa=0, record="timer", phase="halo", seconds=0.01)]
    )
    with pytest.raises(ValueError, match=r"missing: start, end"):
        chrome_trace(totals)
    with pytest.raises(ValueError, match="no start/end rows"):
        chrome_trace(pd.DataFrame(columns=["rank", "thread", "phase", "start", "end"]))


def test_real_imbalance_run(tmp_path):
    """One tiny run of lab 02's imbalance kernel: 2 ranks, 1 thread, 2 iterations."""
    imb = hl.run_program("imbalance", ranks=2, threads=1, work_ms=2, iterations=2)
    path = tmp_path / "imbalance_trace.json"
    chrome_trace(imb, path)
    frame = imb.records.dropna(subset=["start", "end"])
    check_structure(_load(path), frame)
    names = {e["name"] for e in _load(path) if e["ph"] == "X"}
    assert names == {"compute", "barrier"}


# ------------------------------------------------------------- lab 04: halo2d/halo3d timelines

HALO_PHASES = {"jacobi", "halo", "reduction", "other"}  # "total" is the loop, not an interval
HALO_RUNS = {
    "halo2d": {"nx": 24, "ny": 16},
    "halo3d": {"nx": 8, "ny": 8, "nz": 8},
}


def run_2x2(kernel: str, variant: str, iterations: int = 3, **params) -> hl.Results:
    """2 ranks x 2 threads of halo2d/halo3d on HALO_RUNS' grid."""
    return run_halo(kernel, variant, 2, 2, iterations=iterations, **HALO_RUNS[kernel], **params)


@pytest.mark.parametrize(
    "kernel,variant",
    [("halo2d", v) for v in VARIANTS_2D] + [("halo3d", v) for v in VARIANTS_3D],
)
def test_halo_timeline_is_a_trace(tmp_path, kernel, variant):
    """Every version (hybrid1 and masteronly communicate between parallel regions, hybrid2 in
    omp single, hybrid3 in sections, funnelled while the others compute, multiple from every
    thread): the same answer with a timeline, and a trace whose slices add up to the totals."""
    iterations = 3
    res = run_2x2(kernel, variant, iterations, timeline=1)
    records = res.records
    serial = jacobi2d if kernel == "halo2d" else jacobi3d
    want = serial(*HALO_RUNS[kernel].values(), iterations)
    got = records[records["record"] == "checksum"][["checksum", "delta"]].iloc[0]
    assert got.tolist() == pytest.approx(list(want), rel=1e-12), (got, want)
    timeline = records[records["record"] == "timeline"]
    timers = records[records["record"] == "timer"]
    assert len(timeline) and len(timers)
    assert set(timeline["recorded_iterations"]) == {iterations}
    assert set(timeline["phase"]) <= HALO_PHASES
    threads = 1 if variant == "pure" else 2
    assert set(zip(timeline["rank"], timeline["thread"], strict=True)) == {
        (r, t) for r in range(2) for t in range(threads)
    }
    for _, track in timeline.groupby(["rank", "thread"]):
        assert set(track["iteration"]) == set(range(iterations))
    path = tmp_path / "halo_phases_trace.json"
    chrome_trace(res, path)
    events = _load(path)
    check_structure(events, timeline)  # the timer and checksum rows are left out
    slices = [e for e in events if e["ph"] == "X"]
    assert {e["name"] for e in slices} <= HALO_PHASES
    assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in slices)
    # one thread's slices are disjoint: each starts where or after the one before ends
    by_track = defaultdict(list)
    for e in slices:
        by_track[(e["pid"], e["tid"])].append(e)
    for track in by_track.values():
        for before, after in zip(track, track[1:], strict=False):
            assert after["ts"] >= before["ts"] + before["dur"] - 1e-3, (before, after)
    assert {e["args"]["iteration"] for e in slices} == set(range(iterations))
    # every iteration kept: a thread's intervals of a phase add up to its timer total
    kept = timeline.groupby(["rank", "thread", "phase"])["seconds"].sum()
    for row in timers[timers["phase"] != "total"].itertuples():
        got = kept.get((row.rank, row.thread, row.phase), 0.0)
        assert got == pytest.approx(row.seconds, rel=1e-6, abs=1e-8), row


def test_halo_timeline_keeps_the_first_iterations_only():
    res = run_2x2("halo3d", "funnelled", iterations=5, timeline=1, timeline_iterations=2)
    timeline = res.records[res.records["record"] == "timeline"]
    assert set(timeline["iteration"]) == {0, 1}
    assert set(timeline["recorded_iterations"]) == {2}
    checksums = res.records[res.records["record"] == "checksum"]
    assert len(checksums) == 1


def test_halo_without_timeline_emits_none():
    res = run_2x2("halo2d", "hybrid2")
    assert "timeline" not in set(res.records["record"])
    assert "start" not in res.records.columns
    with pytest.raises(ValueError, match="timeline=1"):
        chrome_trace(res)
