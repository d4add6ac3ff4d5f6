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



def test_the_leftover_check_blames_a_test_only_for_segments_it_left():
    """Issue 39 (a `make test` that failed once while other work ran): /dev/shm is the machine's,
    and another program's rank killed in its MPI_Init leaves a segment there until its own
    cleanup removes it. The tests' leftover check counts only segments that appeared since the
    test began and that stay unused past the other program's cleanup."""
    import threading
    import uuid

    from conftest import orphaned_segments

    # files of a name no cleaner on the machine removes (every kit's cleanup removes unused
    # mpich_shm_* files, this test's too), judged as the check judges MPICH's
    pattern = "/dev/shm/hybridlab_leftover_check_*"
    made: list[str] = []

    def segment(name: str) -> str:
        path = pattern.replace("*", f"{name}_{uuid.uuid4().hex[:8]}")
        with open(path, "wb") as f:
            f.write(b"\0" * 4096)
        os.utime(path, (time.time() - 60, time.time() - 60))  # older than an MPI_Init under way
        made.append(path)
        return path

    before = {segment("already_there")}
    theirs = segment("theirs")
    cleaner = threading.Timer(1.0, os.remove, [theirs])  # its owner's cleanup, a moment later
    cleaner.start()
    try:
        assert orphaned_segments(before, grace=10.0, pattern=pattern) == []
        cleaner.join()
        ours = segment("ours")
        assert orphaned_segments(before, grace=1.0, pattern=pattern) == [ours]
    finally:
        cleaner.cancel()
        for path in made:
            if os.path.exists(path):
                os.remove(path)
