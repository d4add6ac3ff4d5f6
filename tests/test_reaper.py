"""The reaper: what counts as an orphan, and what it leaves alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil

from hybridlab.machine import reaper


def _sleeper(owner: str) -> subprocess.Popen:
    env = {**os.environ, reaper.OWNER: owner}
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)


def test_a_process_whose_owner_died_is_an_orphan_unless_it_lives_in_another_pid_namespace(
    monkeypatch,
):
    dead_owner = "999999:1.00"  # no such process
    proc = _sleeper(dead_owner)
    try:
        deadline = time.monotonic() + 10
        while proc.pid not in {p.pid for p in reaper.orphans()} and time.monotonic() < deadline:
            time.sleep(0.1)  # until the child's environment can be read
        assert proc.pid in {p.pid for p in reaper.orphans()}
        ours = reaper._pid_namespace("self")
        monkeypatch.setattr(
            reaper,
            "_pid_namespace",
            lambda pid: "pid:[container]" if pid == proc.pid else ours,
        )
        # a container's owner pid names a process of its own namespace: not ours to judge
        assert proc.pid not in {p.pid for p in reaper.orphans()}
    finally:
        proc.kill()
        proc.wait()


def test_a_live_owner_keeps_its_processes():
    proc = _sleeper(reaper.owner_stamp())
    try:
        time.sleep(0.5)
        assert proc.pid not in {p.pid for p in reaper.orphans()}
    finally:
        proc.kill()
        proc.wait()


def test_wait_dead_counts_zombies_as_dead():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    handle = psutil.Process(proc.pid)
    assert reaper.wait_dead([handle], 10)
    proc.wait()
