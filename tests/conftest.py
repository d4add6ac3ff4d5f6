"""Shared fixtures: the venv's bin first on PATH (as the Makefile and kernelspec do), leak checks."""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

import psutil
import pytest

BIN = str(Path(sys.executable).parent)
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("IPP_NONINTERACTIVE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

REPO = Path(__file__).resolve().parents[1]


def mpi_leftovers(tag: str | None = None) -> list[str]:
    """MPI processes tagged `tag` (any hybridlab tag when None) and MPICH shm segments."""
    found = []
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            env = proc.environ()
        except (psutil.Error, OSError):
            continue
        values = {env.get("HYBRIDLAB_TAG"), env.get("HYBRIDLAB_SESSION")} - {None}
        if values and (tag is None or tag in values):
            found.append(f"pid {proc.pid} {proc.info['name']} {values}")
    used = set()
    for proc in psutil.process_iter():
        try:
            used.update(m.path for m in proc.memory_maps(grouped=True))
        except (psutil.Error, OSError):
            continue
    found += [p for p in glob.glob("/dev/shm/mpich_shm_*") if p not in used]
    return found


SHM = "/dev/shm/mpich_shm_*"


def orphaned_segments(before: set[str]) -> list[str]:
    """MPICH segments that appeared since `before` and that no live process maps or holds open."""
    new = set(glob.glob(SHM)) - before
    for proc in psutil.process_iter():
        if not new:
            break
        try:
            new -= {m.path for m in proc.memory_maps(grouped=True)}
            new -= {f.path for f in proc.open_files()}
        except (psutil.Error, OSError):
            continue
    return sorted(new)


@pytest.fixture
def repo() -> Path:
    return REPO
