"""Grading replays the instructor solution's kernel runs instead of measuring them again.

nbgrader re-executes every submission from the top, so a class of 30 would repeat the same
measurements 30 times. Instead the solution's reference run (grading.autograde) records the
output of every kernel run in a folder, and each submission's n-th run of the same kernel
source, flags, arguments, placement, launcher and OpenMP/MPI environment gets the solution's
n-th output back. Runs that differ in any of these (the student's own C code, other
parameters, more runs than the solution made, a run that failed) run for real.

Every submission is then graded on the same measurements (no noise between students) and the
machine spends its time on the students' code. A replayed Results says so: meta["replayed"]
and a warning line, which the feedback shows.

    HYBRIDLAB_RUNS=record:<folder>   the reference run writes one JSON file per run
    HYBRIDLAB_RUNS=replay:<folder>   a submission reads them (the sandbox binds it read-only)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from .build import Kernel
from .placement import MPICH_THROTTLE, Placement

ENV = "HYBRIDLAB_RUNS"
MODES = ("record", "replay")
ENV_PREFIXES = ("OMP_", "GOMP_", "MPIR_", "MPICH_", "KMP_")  # what changes a run's behaviour
WARNING = (
    "replayed: grading gave back the output of the same run in the instructor solution's "
    "reference run, not a new measurement"
)

_seen: Counter = Counter()  # key -> runs of it so far in this process


def setting(environ: dict[str, str] | None = None) -> tuple[str, Path] | None:
    """(mode, folder) from HYBRIDLAB_RUNS, or None when runs are neither recorded nor replayed."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    if not value:
        return None
    mode, _, folder = value.partition(":")
    if mode not in MODES or not folder:
        raise ValueError(f"{ENV}={value!r}: expected record:<folder> or replay:<folder>")
    return mode, Path(folder)


def folder(mode: str) -> Path | None:
    """The folder runs are recorded to (mode "record") or replayed from ("replay"), when that
    is what HYBRIDLAB_RUNS says; otherwise None."""
    chosen = setting()
    return chosen[1] if chosen is not None and chosen[0] == mode else None


def run_key(
    kernel: Kernel, argv: list[str], placement: Placement, run_by: str, env: dict[str, str]
) -> str:
    """What makes two runs the same run: the kernel's build (its folder in the build cache is
    named by a hash of its C source, the header, the flags and the compiler), its arguments,
    where and how its ranks run, and the environment variables that steer OpenMP and MPI."""
    steering = {
        k: v
        for k, v in {**os.environ, **env}.items()
        if k.startswith(ENV_PREFIXES) and k not in MPICH_THROTTLE  # how MPI waits: not the run
    }
    what = [
        kernel.library.parent.name,
        argv,
        asdict(placement),
        run_by,
        sorted(steering.items()),
    ]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]


def take(
    kernel: Kernel, argv: list[str], placement: Placement, run_by: str, env: dict[str, str]
) -> tuple[dict | None, Path | None]:
    """This run's recorded output when replaying (None: run it), and where to record it when
    recording (None otherwise). Nothing is looked at when HYBRIDLAB_RUNS is not set."""
    chosen = setting()
    if chosen is None:
        return None, None
    mode, folder = chosen
    key = run_key(kernel, argv, placement, run_by, env)
    path = folder / f"{key}-{_seen[key]}.json"  # the n-th run of its kind in this process
    _seen[key] += 1
    if mode == "record":
        return None, path
    try:
        return json.loads(path.read_text()), None
    except (OSError, ValueError):
        return None, None  # not recorded (or unreadable): run it for real


def record(path: Path, texts: list[tuple[str, str]], meta: dict, seconds: float, probes) -> None:
    """Keep one run's output (written whole, then renamed: a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"texts": texts, "meta": meta, "seconds": seconds, "probes": list(probes)}
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps(data))
    partial.replace(path)
