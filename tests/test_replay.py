"""Grading's replay of the solution's kernel runs (replay.py), with real runs under mpiexec.

The sandboxed end of it (the reference run records, a submission replays read-only) is checked
in test_grading_sandbox.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import hybridlab as hl
from conftest import mpi_leftovers
from hybridlab.engines import controller
from hybridlab.engines.engine import identity
from hybridlab.machine import reaper
from hybridlab.pykernels.exercise import numba_jacobi
from hybridlab.runs import replay


@pytest.fixture
def runs_in(monkeypatch, tmp_path):
    """Set HYBRIDLAB_RUNS=<mode>:<tmp folder>, with this process's count of runs reset."""

    def use(mode: str):
        monkeypatch.setattr(replay, "_seen", type(replay._seen)())
        monkeypatch.setenv(replay.ENV, f"{mode}:{tmp_path}")
        return tmp_path

    return use


def hello(spin_ms: int, **env):
    return hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=spin_ms, env=env or None)


def test_a_replay_gives_back_the_nth_recorded_run_and_says_so(runs_in):
    folder = runs_in("record")
    first, second = hello(1), hello(1)
    assert len(list(folder.glob("*-*.json"))) == 2  # and the index
    assert "replayed" not in first.meta and replay.WARNING not in first.warnings

    runs_in("replay")
    again_first, again_second = hello(1), hello(1)
    for recorded, replayed in [(first, again_first), (second, again_second)]:
        assert replayed.meta["replayed"] == "reference"
        assert replay.WARNING in replayed.warnings
        assert replayed.meta["seconds"] == recorded.meta["seconds"]
        assert replayed.records["cpu"].tolist() == recorded.records["cpu"].tolist()
        assert replayed.meta["probe"] == recorded.meta["probe"]
    # a third run of the same kind was never recorded: it runs for real
    assert "replayed" not in hello(1).meta


def test_another_argument_or_environment_runs_for_real(runs_in):
    runs_in("record")
    hello(1)
    runs_in("replay")
    assert "replayed" not in hello(2).meta
    assert "replayed" not in hello(1, OMP_WAIT_POLICY="passive").meta
    assert hello(1).meta["replayed"] == "reference"


def test_a_graded_cluster_whose_runs_are_all_replayed_launches_no_engine(runs_in, monkeypatch):
    runs_in("record")
    with hl.Cluster(ranks=2, threads=1, timeout=60) as recording:
        recorded = recording.run("hello_hybrid", spin_ms=1)
    runs_in("replay")
    monkeypatch.setenv(controller.ENGINES_ENV, controller.ON_FIRST_USE)  # as the grader sets
    graded = hl.Cluster(ranks=2, threads=1, timeout=60).start()
    replayed = graded.run("hello_hybrid", spin_ms=1)
    assert replayed.meta["replayed"] == "reference"
    assert replayed.records["cpu"].tolist() == recorded.records["cpu"].tolist()
    assert reaper.tagged(graded.tag) == [] and "first use" in repr(graded)
    fresh = graded.run("hello_hybrid", spin_ms=2)  # never recorded: the engines start for it
    assert "replayed" not in fresh.meta and list(fresh.records["rank"]) == [0, 1]
    assert len(reaper.tagged(graded.tag)) >= 2 and "running)" in repr(graded)
    graded.stop()
    assert mpi_leftovers(graded.tag) == []


def test_a_graded_cluster_says_who_its_engines_are_without_starting_them(runs_in, monkeypatch):
    """Lab 01 reads cluster.engines (the thread level each rank got) and activates the view: when
    grading replays the reference run, the n-th read of a placement's engines is the reference
    run's n-th, and the deferred engines stay unstarted; a read it has not is asked for real."""
    runs_in("record")
    with hl.Cluster(ranks=2, threads=1, thread_level="multiple", timeout=60) as recording:
        recorded = recording.engines
    assert [e["thread_level"] for e in recorded] == ["multiple", "multiple"]
    runs_in("replay")
    monkeypatch.setenv(controller.ENGINES_ENV, controller.ON_FIRST_USE)  # as the grader sets
    other = hl.Cluster(ranks=2, threads=1, timeout=60).start()  # another level: not replayed
    graded = hl.Cluster(ranks=2, threads=1, thread_level="multiple", timeout=60).start()
    graded.view.activate()  # %px would talk to it: its start does that when it comes
    assert graded.engines == recorded
    assert reaper.tagged(graded.tag) == [] and "first use" in repr(graded)
    again = graded.engines  # a second read, never recorded: the engines start for it
    assert [e["thread_level"] for e in again] == ["multiple", "multiple"]
    assert {e["pid"] for e in again}.isdisjoint(e["pid"] for e in recorded)
    assert len(reaper.tagged(graded.tag)) >= 2 and graded.view.block is True
    assert reaper.tagged(other.tag) == []
    other.view["x"] = 5  # a push through the view: the engines start for it
    assert other.view["x"] == [5, 5] and len(other.view) == 2
    assert [e["thread_level"] for e in other.engines] == ["funneled", "funneled"]
    for cluster in (graded, other):
        cluster.stop()
        assert mpi_leftovers(cluster.tag) == []


def test_a_graded_cluster_gives_back_the_reference_runs_kit_calls_without_starting(
    runs_in, monkeypatch
):
    """Lab 09 calls kit functions in its engines (numba_jacobi, the thread and GIL probes:
    Cluster.kept_apply). While a graded cluster's engines wait for their first use, a call the
    reference run made (same function, arguments, placement) gets its results back and the
    engines stay unstarted; a call with other arguments starts them, and once they run every call
    is made in them (the notebook's code may have run there)."""
    runs_in("record")
    with hl.Cluster(ranks=2, threads=1, timeout=60) as recording:
        recorded = numba_jacobi(recording, 12, 9, 3, gather=True)
        who = recording.kept_apply(identity)
    runs_in("replay")
    monkeypatch.setenv(controller.ENGINES_ENV, controller.ON_FIRST_USE)  # as the grader sets
    graded = hl.Cluster(ranks=2, threads=1, timeout=60).start()
    replayed = numba_jacobi(graded, 12, 9, 3, gather=True)
    assert np.array_equal(replayed.meta["grid"], recorded.meta["grid"])
    assert replayed.meta["jit_s"] == recorded.meta["jit_s"]
    assert replayed.records.equals(recorded.records)
    assert graded.kept_apply(identity) == who
    assert reaper.tagged(graded.tag) == [] and "first use" in repr(graded)
    fresh = numba_jacobi(graded, 12, 9, 4)  # never recorded: the engines start for it
    assert fresh.meta["iterations"] == 4 and len(reaper.tagged(graded.tag)) >= 2
    again = graded.kept_apply(identity)  # recorded, but the engines run: made in them
    assert {e["pid"] for e in again}.isdisjoint(e["pid"] for e in who)
    graded.stop()
    assert mpi_leftovers(graded.tag) == []


def test_a_bad_setting_is_refused(monkeypatch):
    monkeypatch.setenv(replay.ENV, "keep:/tmp/x")
    with pytest.raises(ValueError, match="record:<folder>, replay:<folder> or off"):
        replay.setting()
    for nothing in ("", "off"):
        monkeypatch.setenv(replay.ENV, nothing)
        assert replay.setting() is None
