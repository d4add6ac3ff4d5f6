"""Which of the libraries a graded notebook loaded through ctypes are the kit's own builds.

A hidden test that judges a function by its Python refuses compiled code of the notebook's own
(grading/_guard.libraries_loaded). The kit loads compiled kernels of its own too: the calibration
of lab 08, on a machine with no calibration yet, measures the machine with the core probe
(machine/probe.py, kernels_c/core_probe.c). Those are not the notebook's code. A library is the
kit's when it is the build of a kernels_c/ kernel with no caller's flags (an `-include` of the
notebook's header would make it the notebook's code), at that build's place in the cache, and
its files are what this process built there or the grader's seed of it (read-only in the box).
A C cell's build, a course kernel's, a kit kernel built with extra flags, or files planted under a
kit build's name are not. Whether the kit's code ran while a judged function ran is another
question: its machine code is judged like any other (lab 08 (a): the pages that ran).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..kernels.build import BuildError, cache_dir, cache_key, made_here, mpicc
from ..paths import kernels_dir
from .sandbox import SEED


def kit_library(path: str | os.PathLike, *, kernels: Path = kernels_dir(),  # noqa: B008
                seeded: Path = SEED / "cache") -> bool:
    """Whether `path` (as ctypes was given it) is a kit kernel's library as the kit built it.
    `kernels` and `seeded` (where a box's seeded builds lie: sandbox.fill_steps links them) are
    fixed at import, before any cell of a notebook ran (a changed HYBRIDLAB_KERNELS would name
    the notebook's C the kit's); a guarded function's defaults are put back before each test."""
    path = Path(path)
    name = path.parent.name.rpartition("-")[0]
    source = kernels / f"{name}.c"
    if not name or path.name != f"lib{name}.so" or not source.is_file():
        return False
    try:
        build = cache_dir() / f"{name}-{cache_key(source.read_text(), (), mpicc())}"
        if path != build / path.name:
            return False
        if made_here(build, [path, build / name]):
            return True
        real = Path(os.path.realpath(build))
        return real == seeded / build.name and bool(os.statvfs(real).f_flag & os.ST_RDONLY)
    except (OSError, BuildError):
        return False
