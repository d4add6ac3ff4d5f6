"""The reaper: what counts as an orphan, and what it leaves alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import psutil
import pytest

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


LIBOMP_PROGRAM = r"""
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    printf("%d\n", n);
    fflush(stdout);
    if (argc > 1) raise(SIGKILL);  /* killed: libomp never unregisters */
    sleep(60);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is not installed")
def test_libomp_registrations_of_killed_processes_are_removed_and_live_ones_kept(tmp_path):
    source = tmp_path / "registers.c"
    source.write_text(LIBOMP_PROGRAM)
    program = tmp_path / "registers"
    subprocess.run(["clang", "-fopenmp", "-o", str(program), str(source)], check=True)
    killed = subprocess.Popen([str(program), "die"], stdout=subprocess.DEVNULL)
    assert killed.wait(timeout=30) == -9
    live = subprocess.Popen([str(program)], stdout=subprocess.PIPE, text=True)
    try:
        live.stdout.readline()  # its parallel region ran: registered
        left = f"/dev/shm/__KMP_REGISTERED_LIB_{killed.pid}_{os.getuid()}"
        mine = f"/dev/shm/__KMP_REGISTERED_LIB_{live.pid}_{os.getuid()}"
        assert os.path.exists(mine)
        assert left in reaper.dead_registrations()
        reaper.clean_files()
        assert not os.path.exists(left)
        assert os.path.exists(mine), "a live process's registration was removed"
    finally:
        live.kill()
        live.wait()
