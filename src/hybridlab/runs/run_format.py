"""What names a kept kernel run, shared by the runs a notebook keeps (own_runs) and the runs
grading gives back (replay): the setting that turns keeping on or off, the run file's format,
and the hashes of a run's identity and of the C it ran."""

from __future__ import annotations

import hashlib
import json

from ..kernels.build import LINK
from ..paths import find_kernel_file, kernel_dirs

ENV = "HYBRIDLAB_RUNS"  # off | record:<folder> | replay:<folder> (replay.py)
FORMAT = 3  # of a run file (3: the launcher left out of the identity); part of the reference
# run's cache key (autograde)
CHECKED = "checked.json"  # in the checked copy: why runs of the submission were not taken


def source_hash(code: str, flags: tuple[str, ...] | list[str]) -> str:
    """A kernel's C source with the kit's headers and the flags: the same on every machine with
    the same kit (the build cache adds the compiler, which differs between machines)."""
    headers = [p.read_text() for d in kernel_dirs() for p in sorted(d.glob("*.h"))]  # as build.py
    linked = LINK.match(code)  # a student's unit: the kit kernel it is linked with
    found = find_kernel_file(linked.group(1)) if linked else None
    kernel = [found.read_text()] if found else []
    return hashlib.sha256("\0".join([code, *headers, *kernel, *flags]).encode()).hexdigest()[:16]


def key_of(identity: dict) -> str:
    """A run's name: the hash of its identity (what ran, with what, where)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]
