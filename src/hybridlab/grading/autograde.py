"""Autograde the submissions of one lab: checked, sandboxed, in parallel, with a report.

    grade("02_synchronisation")                  every submission in submitted/*/<lab>/
    grade("02_synchronisation", students=["bob"]) regrade bob only (the others are not touched)

Steps: take the course lock; look at each submission (unreadable, another lab's notebook:
zero without running it); time the instructor solution once in the sandbox (cached per source
version; it must pass its own tests) and derive the time limits from it; run one
`nbgrader autograde --student S` per submission in a pool (execute.SandboxedExecute runs the
kernel in bubblewrap); record time, outcome and notes per student; write grades.csv, the plot
of the class per part, and the feedback without hidden tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import nbformat

from .. import _reaper as reaper
from .. import own_runs, replay
from ..notebooks import headless_environment
from . import feedback, gradebook, pool, sandbox
from .course import (
    GRADING,
    RELEASE_TIMEOUT,
    GradingError,
    check_kernel,
    check_labs,
    db_url,
    graded_parts,
    grading_lock,
    in_gradebook,
    load_config,
    nbgrader,
    source_notebook,
)
from .execute import EVENTS, SandboxedExecute, is_test
from .submissions import inspect

UNSANDBOXED = "!!! UNSANDBOXED: submissions ran with the grader's own rights and files !!!"


def submissions(root: Path, lab: str) -> dict[str, Path]:
    """student -> the submitted notebook of `lab` (submitted/<student>/<lab>/<lab>.ipynb)."""
    found = {}
    for folder in sorted((Path(root) / "submitted").glob(f"*/{lab}")):
        notebooks = sorted(folder.glob("*.ipynb"))
        if folder.is_dir() and notebooks:
            named = folder / f"{lab}.ipynb"
            found[folder.parent.name] = named if named in notebooks else notebooks[0]
    return found


# ------------------------------------------------------------------------- time limits


@contextmanager
def _environ(values: dict[str, str]):
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _version(root: Path, lab: str, quick: bool) -> str:
    """The lab, the version of its source notebook, and the problem sizes."""
    digest = hashlib.sha1(source_notebook(root, lab).read_bytes()).hexdigest()[:12]
    return f"{lab}:{digest}:{'quick' if quick else 'full'}:runs{replay.FORMAT}"


def recorded_runs(root: Path, lab: str, quick: bool) -> Path:
    """Where the solution's reference run keeps its kernel runs for the submissions to replay."""
    return Path(root) / "reports" / "runs" / _version(root, lab, quick).replace(":", "-")


def reference_timing(root: Path, lab: str, *, quick: bool, sandboxed: bool) -> dict:
    """Seconds of the instructor solution (total, slowest cell), run once in the sandbox, and
    the output of its kernel runs, recorded in `recorded_runs` for the submissions to replay.

    Cached in reports/timings.json per version of the source notebook. The solution must pass
    every test here, or grading stops (a lab that fails on this machine would fail everyone)."""
    source = source_notebook(root, lab)
    key = _version(root, lab, quick)
    cache = Path(root) / "reports" / "timings.json"
    known = json.loads(cache.read_text()) if cache.exists() else {}
    runs = recorded_runs(root, lab, quick)
    if key in known and runs.is_dir():
        return known[key]
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    nb = nbformat.read(source, as_version=4)
    events = Path(tempfile.mkstemp(prefix="hybridlab-ref-", suffix=".jsonl")[1])
    tag = f"grade-ref-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="hybridlab-ref-") as tmp:
        shutil.copytree(source.parent, tmp, dirs_exist_ok=True)
        env = headless_environment(tag, quick=quick)
        env[EVENTS] = str(events)
        env[replay.ENV] = f"record:{runs}"
        executor = SandboxedExecute(config=load_config(root), timeout=1800, sandbox=sandboxed)
        try:
            with _environ(env):
                executor.preprocess(nb, {"metadata": {"path": tmp}})
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
            f"the instructor solution of {lab} fails its own tests in the sandbox: "
            f"{', '.join(failed)}; grading would be unfair. Events: {lines[-3:]}"
        )
    seconds = [e for e in lines if e.get("kind") == "seconds"][-1]
    timing = {"total": seconds["total"], "slowest": max(seconds["cells"].values(), default=1.0)}
    known[key] = timing
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(known, indent=1, sort_keys=True))
    return timing


def time_limits(timing: dict, limits: sandbox.Limits) -> dict:
    cell = max(limits.cell_minimum, math.ceil(limits.factor * timing["slowest"]))
    deadline = max(limits.submission_minimum, math.ceil(limits.factor * timing["total"]))
    return {"cell": cell, "deadline": deadline, "backstop": deadline + 2 * cell + 120}


# ------------------------------------------------------------------------------ grade


def _outcome(job: pool.Job, events: list[dict]) -> tuple[str, list[str]]:
    notes = []
    outcome = "graded"
    for e in events:
        kind = e.get("kind")
        if kind == "restart":
            notes.append(f"{e['part']}: {e['why']} -> zero")
            why = e["why"]
            if "memory" in why:
                outcome = "limit hit"
            elif "time limit" in why:
                outcome = "timed out" if outcome == "graded" else outcome
            elif outcome == "graded":
                outcome = "crashed"
        elif kind == "tamper":
            notes.append(f"before {e['part']}: replaced {', '.join(e['what'][:4])} (put back)")
        elif kind == "output cut":
            notes.append(f"{e['part']}: output cut")
            outcome = "limit hit" if outcome == "graded" else outcome
        elif kind == "zero" and "deadline" in e.get("why", ""):
            outcome = "timed out"
        elif kind == "zero":
            notes.append(f"{e['part']}: {e['why']} -> zero")
        elif kind == "failed":
            notes.append(f"{e['part']}: {e['error']}")
        elif kind == "data":
            notes.append(f"kernel runs: {e['text']}")
    if job.killed:
        outcome = "timed out"
        notes.append(f"killed after {job.timeout:.0f} s (the whole submission)")
    elif job.returncode != 0:
        outcome = "crashed"
        last = [ln for ln in job.log.splitlines() if "ERROR" in ln or "Error" in ln][-1:]
        notes.append("nbgrader failed: " + (last[0][:200] if last else f"exit {job.returncode}"))
    return outcome, notes


def grade(
    lab: str,
    *,
    root: Path = GRADING,
    students: list[str] | None = None,
    jobs: int | None = None,
    quick: bool = True,
    unsandboxed: bool = False,
    wait: bool = False,
    progress: bool = True,
    make_feedback: bool = True,
    tag: str | None = None,
) -> str:
    """Autograde the submissions of `lab` (all, or `students`); return the report."""
    root = Path(root).resolve()
    check_labs([lab], root)
    found = submissions(root, lab)
    if not found:
        raise GradingError(
            f"no submissions of {lab}: expected notebooks in {root}/submitted/<student>/{lab}/"
        )
    if students:
        unknown = sorted(set(students) - set(found))
        if unknown:
            raise GradingError(f"no submission of {lab} from: {', '.join(unknown)}")
        found = {s: p for s, p in found.items() if s in students}
    config = load_config(root)
    limits = sandbox.Limits(config=config)
    unsandboxed = unsandboxed or limits.unsandboxed
    how = "none (unsandboxed)" if unsandboxed else sandbox.check()
    check_kernel(root, lab)
    tag = tag or f"grade-{uuid.uuid4().hex[:10]}"
    start = time.monotonic()
    with grading_lock(root, wait=wait):
        if not in_gradebook(root, lab):
            nbgrader(["generate_assignment", lab, "--force"], root, timeout=RELEASE_TIMEOUT)
        timing = reference_timing(root, lab, quick=quick, sandboxed=not unsandboxed)
        t = time_limits(timing, limits)
        parts = graded_parts(root, lab)
        records: dict[str, dict] = {}
        todo = []
        for student, path in found.items():
            fatal, notes = inspect(path, parts)
            if fatal:
                gradebook.zero_submission(root, lab, student)
                records[student] = {"outcome": "not gradable", "seconds": 0.0, "notes": [fatal]}
            else:
                records[student] = {"notes": notes}
                todo.append(student)
        needs = pool.lab_needs(source_notebook(root, lab).read_text())
        workers = jobs or limits.jobs or pool.default_jobs(needs, replaying=limits.replay_runs)
        workers = max(1, min(workers, len(todo) or 1))
        event_dir = Path(tempfile.mkdtemp(prefix="hybridlab-events-"))
        exe = str(Path(sys.executable).parent / "nbgrader")
        work = []
        for student in todo:
            env = headless_environment(f"{tag}-{student}", quick=quick)
            env[EVENTS] = str(event_dir / f"{student}.jsonl")
            if limits.replay_runs:  # its own checked runs first, then the reference run's
                env[replay.ENV] = f"replay:{recorded_runs(root, lab, quick)}"
                own = event_dir / f"{student}-runs"
                summary = own_runs.check(own_runs.runs_folder(found[student]), own, quick=quick)
                env[replay.OWN] = str(own)
                records[student]["notes"].append(own_runs.summary_text(summary))
            else:
                env[replay.ENV] = "off"  # measure everything, keep nothing
            env = pool.environment_for(workers, needs, env)
            command = [
                exe,
                "autograde",
                lab,
                "--student",
                student,
                "--force",
                f"--CourseDirectory.db_url={db_url(root)}",
                f"--SandboxedExecute.timeout={t['cell']}",
                f"--SandboxedExecute.deadline={t['deadline']}",
                f"--SandboxedExecute.sandbox={not unsandboxed}",
            ]
            work.append(pool.Job(student, command, env, root, t["backstop"]))

        def after(job: pool.Job) -> None:
            left = reaper.reap(f"{tag}-{job.student}")
            path = event_dir / f"{job.student}.jsonl"
            events = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
            outcome, notes = _outcome(job, events)
            if left:
                notes.append(f"killed {left} process(es) left running")
            if job.killed or job.returncode != 0:
                gradebook.zero_submission(root, lab, job.student)
                log = root / "reports" / "logs" / lab / f"{job.student}.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(job.log)  # nbgrader's own account of what failed
                notes.append(f"nbgrader's log: {log}")
            rec = records[job.student]
            rec.update(outcome=outcome, seconds=job.seconds, notes=rec["notes"] + notes)
            rec["phases"] = [e for e in events if e.get("kind") == "seconds"][-1:]
            if unsandboxed:
                rec["notes"].append("UNSANDBOXED")

        done = pool.run(work, workers, progress=progress, after=after)
        shutil.rmtree(event_dir, ignore_errors=True)
        gradebook.save_records(root, lab, records)
        csv_path = gradebook.write_csv(root)
        picture = gradebook.plot_parts(root, lab)
        pages = []
        if make_feedback:
            graded = [s for s in found if s in gradebook.scores(root, lab)]
            pages = feedback.generate(lab, root=root, students=None if students is None else graded)
    seconds = time.monotonic() - start
    lines = [UNSANDBOXED] if unsandboxed else []
    lines.append(
        f"{lab}: {len(found)} submission(s) in {seconds:.0f} s, {workers} at a time "
        f"(sandbox limits: {how}; cell {t['cell']} s, submission {t['deadline']} s, "
        f"from the solution's {timing['total']:.0f} s)"
    )
    lines.append(gradebook.table(root, lab, list(found)))
    if unsandboxed:
        lines.append(UNSANDBOXED)
    lines.append(
        f"grades: {csv_path}; plot: {picture}; records: {root / 'reports' / (lab + '.json')}; "
        f"feedback: {len(pages)} page(s) in {root / 'feedback'}/<student>/{lab}/"
    )
    del done
    return "\n".join(lines)
