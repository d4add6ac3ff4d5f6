"""The core-to-core probe around each run (machine/probe.py): what it measures and when it is
skipped."""

from __future__ import annotations

import os

import pytest

import hybridlab as hl
from hybridlab import settings
from hybridlab.machine import probe

TWO = len(os.sched_getaffinity(0)) >= 2


def test_one_cpu_cannot_bounce():
    assert probe.roundtrip_ns(0, 0) is None
    assert probe.probe((0,))["state"].startswith("unknown")


@pytest.mark.skipif(not TWO, reason="needs two usable CPUs")
def test_round_trip_is_a_positive_time_in_ns():
    cpus = sorted(os.sched_getaffinity(0))[:2]
    ns = probe.roundtrip_ns(*cpus, iterations=256, budget_s=0.001)
    assert ns is not None and 1.0 < ns < 1e6


def test_a_graded_run_records_no_probe(monkeypatch):
    monkeypatch.setenv(settings.GRADING_SEED, "7")
    res = hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=1)
    assert res.meta["probe"]["before"] == res.meta["probe"]["after"]
    assert res.meta["probe"]["before"]["roundtrip_ns"] is None
    assert res.meta["probe"]["before"]["state"] == "not probed (a graded run)"
    assert not any("changed state" in w for w in res.warnings)


@pytest.mark.skipif(not TWO, reason="needs two usable CPUs")
def test_a_run_outside_grading_is_probed(monkeypatch):
    monkeypatch.delenv(settings.GRADING_SEED, raising=False)
    res = hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=1)
    assert res.meta["probe"]["before"]["roundtrip_ns"] > 0
