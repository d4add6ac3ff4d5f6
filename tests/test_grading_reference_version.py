"""The reference run's version: the lab's source notebook, the sizes, and the kit's C.

Every build's cache key holds the kit's C sources and headers (build.cache_key), so once they
change, no submission's build matches the builds the cached reference run recorded its runs with:
every submission then compiled the kit's kernels in its sandbox and ran them for real instead of
replaying them (seen while kernels_c/ headers were being edited: 5 compiler runs and 4 real
mpiexec runs of a blank lab 01, 18 % of its CPU in cc1). The reference run is made again instead,
and the class is graded against the runs folder that run wrote.
"""

from __future__ import annotations

import json
import shutil

import grading_course as gc
from hybridlab.grading import reference
from hybridlab.grading.course import read_lab
from hybridlab.paths import kernels_dir


def _course_with_own_kit(tmp_path, monkeypatch):
    kit = tmp_path / "kernels_c"
    shutil.copytree(kernels_dir(), kit)
    monkeypatch.setenv("HYBRIDLAB_KERNELS", str(kit))
    root = gc.make_course(tmp_path / "course")
    return read_lab(root, gc.LAB), kit


def test_the_version_changes_with_the_kits_c_and_only_then(tmp_path, monkeypatch):
    lab, kit = _course_with_own_kit(tmp_path, monkeypatch)
    first = reference._version(lab, True)
    assert reference._version(lab, True) == first  # nothing changed: the cached run serves
    assert reference._version(lab, False) != first  # the other size has its own
    header = kit / "hybridlab.h"
    header.write_text(header.read_text() + "\n/* an edited header */\n")
    after_header = reference._version(lab, True)
    assert after_header != first
    source = kit / "hello_hybrid.c"
    source.write_text(source.read_text() + "\n/* an edited kernel */\n")
    assert reference._version(lab, True) not in (first, after_header)
    assert after_header.split(":")[2] == "quick"  # the size stays where readers find it


def test_a_cached_reference_run_names_its_runs_folder(tmp_path, monkeypatch):
    """A cached timing comes back with the folder its runs are in (autograde replays from that
    one, whatever the kit's C is by the time a submission starts)."""
    lab, kit = _course_with_own_kit(tmp_path, monkeypatch)
    key = reference._version(lab, True)
    runs = lab.root / "reports" / "runs" / key.replace(":", "-")
    runs.mkdir(parents=True)
    cached = {"total": 1.0, "slowest": 1.0, "cells": {}, "busy": 1.0}
    (lab.root / "reports" / "timings.json").write_text(json.dumps({key: cached}))
    timing = reference.reference_timing(lab, quick=True, sandboxed=False)
    assert timing == {**cached, "runs": str(runs)}
    (kit / "hybridlab.h").write_text((kit / "hybridlab.h").read_text() + "\n/* edited */\n")
    assert reference._version(lab, True) != key  # a changed kit is not served by this run
