"""The instructor solution's reference run: run once per source version in the sandbox, it must
pass its own tests; its seconds set the time limits and its kernel runs are recorded for the
submissions to replay (replay.py)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path

from ..course.notebooks import headless_environment
from ..machine import reaper
from ..paths import kernel_dirs
from ..runs import replay
from .course import GradingError, Lab, course_environment, load_config
from .execute import EVENTS, SandboxedExecute, is_test
from .policy import LOAD_ALLOWANCE_CAP, GradingPolicy, busy


@contextmanager
def _environ(values: dict[str, str]):
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _kit_c_digest() -> str:
    """A digest of the kit's C (every source and header of kernel_dirs()), which every build's
    cache key holds: after it changes no submission's build matches the reference run's, so each
    would compile the kit's kernels in its sandbox and run them for real instead of replaying."""
    sha = hashlib.sha1()
    for folder in kernel_dirs():
        for path in sorted(folder.glob("*.[ch]")):
            sha.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()[:12]


def _version(lab: Lab, quick: bool) -> str:
    """The lab, the version of its source notebook and of the kit's C, and the problem sizes."""
    size = "quick" if quick else "full"
    return f"{lab.name}:{lab.digest}:{size}:kit{_kit_c_digest()}:runs{replay.FORMAT}:cells"


def _recorded_runs(lab: Lab, version: str) -> Path:
    """Where the solution's reference run keeps its kernel runs for the submissions to replay."""
    return lab.root / "reports" / "runs" / version.replace(":", "-")


def reference_timing(lab: Lab, *, quick: bool, sandboxed: bool) -> dict:
    """Seconds of the instructor solution (total, slowest cell), run once in the sandbox, and
    the output of its kernel runs, recorded in the folder timing["runs"] for the submissions to
    replay (the one of this version: the kit's C may change while a class is graded).

    Cached in reports/timings.json per version of the source notebook and of the kit's C. The
    solution must pass every test here, or grading stops (a lab that fails on this machine would
    fail everyone)."""
    key = _version(lab, quick)
    cache = lab.root / "reports" / "timings.json"
    known = json.loads(cache.read_text()) if cache.exists() else {}
    runs = _recorded_runs(lab, key)
    if key in known and runs.is_dir():
        return {**known[key], "runs": str(runs)}
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    nb = lab.notebook()
    events = Path(tempfile.mkstemp(prefix="hybridlab-ref-", suffix=".jsonl")[1])
    tag = f"grade-ref-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="hybridlab-ref-") as tmp:
        shutil.copytree(lab.source.parent, tmp, dirs_exist_ok=True)
        env = {**headless_environment(tag, quick=quick), **course_environment(lab.root)}
        env[EVENTS] = str(events)
        env[replay.ENV] = f"record:{runs}"
        executor = SandboxedExecute(config=load_config(lab.root), timeout=1800, sandbox=sandboxed)
        try:
            with _environ(env):
                # the lab named as a submission's run names it: its box is seeded with the
                # released builds, and its builds of released C join the grader's cache
                # (sandbox.Box.builds_kept), so no submission compiles them again
                executor.preprocess(
                    nb, {"metadata": {"path": tmp}, "nbgrader": {"assignment": lab.name}}
                )
        finally:
            reaper.reap(tag)
    failed = [
        f"{c.metadata['nbgrader']['grade_id']} ({o.ename}: {str(o.evalue)[:200]})"
        for c in nb.cells
        if is_test(c)
        for o in c.get("outputs", [])
        if o.output_type == "error"
    ]
    lines = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    events.unlink()
    if failed:
        shutil.rmtree(runs, ignore_errors=True)
        raise GradingError(
            f"the instructor solution of {lab.name} fails its own tests in the sandbox: "
            f"{', '.join(failed)}; grading would be unfair. Events: {lines[-3:]}"
        )
    seconds = [e for e in lines if e.get("kind") == "seconds"][-1]
    timing = {
        "total": seconds["total"],
        "slowest": max(seconds["cells"].values(), default=1.0),
        "cells": seconds["cells"],  # grade_id (or #index) -> seconds
        "busy": busy(),  # the machine's load when these seconds were measured (load_allowance)
    }
    known[key] = timing
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(known, indent=1, sort_keys=True))
    return {**timing, "runs": str(runs)}


def time_limits(timing: dict, policy: GradingPolicy) -> dict:
    """Seconds per cell, per graded cell (its own reference time: a hung answer costs seconds,
    not the slowest cell's minute), per submission, and the pool's backstop."""
    cell = max(policy.cell_minimum, math.ceil(policy.factor * timing["slowest"]))
    graded = {
        key: max(policy.graded_cell_minimum, math.ceil(policy.factor * seconds))
        for key, seconds in timing.get("cells", {}).items()
        if not key.startswith("#")
    }
    deadline = max(policy.submission_minimum, math.ceil(policy.factor * timing["total"]))
    # the deadline leaves out cells that ran past the cell limit: one per restart at most, each
    # stretched at most LOAD_ALLOWANCE_CAP times for the machine's load
    backstop = deadline + math.ceil((policy.restarts + 2) * cell * LOAD_ALLOWANCE_CAP) + 120
    return {"cell": cell, "cells": graded, "deadline": deadline, "backstop": backstop,
            "busy": timing.get("busy", 1.0)}  # fmt: skip
