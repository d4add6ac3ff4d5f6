"""Autograde the submissions of one lab: checked, sandboxed, in parallel, with a report.

    grade("02_synchronisation")                  every submission in submitted/*/<lab>/
    grade("02_synchronisation", students=["bob"]) regrade bob only (the others are not touched)

Steps: take the course lock; look at each submission (unreadable, another lab's notebook:
zero without running it); time the instructor solution once in the sandbox (cached per source
version; it must pass its own tests) and derive the time limits from it; run one
`nbgrader autograde --student S` per submission in a pool (execute.SandboxedExecute runs the
kernel in bubblewrap); record time, outcome and notes per student; compare every submission's
answers with each other's and the published solution's (similarity.py: the flagged ones named in
their notes and the report); write grades.csv, the plot of the class per part, and the feedback
without hidden tests.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ..course import hidden_inputs
from ..course.notebooks import headless_environment
from ..engines import controller
from ..kernels.build import cache_dir
from ..machine import reaper
from ..runs import own_runs, replay
from . import bytecode, execute, feedback, gradebook, pool, sandbox, similarity
from .course import (
    GRADING,
    RELEASE_TIMEOUT,
    GradingError,
    Lab,
    check_kernel,
    course_environment,
    db_url,
    grading_lock,
    grading_policy,
    in_gradebook,
    load_config,
    nbgrader,
    read_lab,
)
from .execute import CELL_LIMITS, EVENTS, REFERENCE_BUSY
from .policy import GradingPolicy
from .reference import reference_timing, time_limits
from .submissions import inspect, submitted

UNSANDBOXED = "!!! UNSANDBOXED: submissions ran with the grader's own rights and files !!!"


# ------------------------------------------------------------------------------ grade


def _outcome(job: pool.Job, events: list[dict]) -> tuple[str, list[str]]:
    notes = []
    outcome = "graded"
    for e in events:
        kind = e.get("kind")
        if kind == "restart":
            notes.append(f"{e['part']}: {e['why']} -> zero")
            if e["reason"] in (execute.MEMORY, execute.DISK):
                outcome = "limit hit"
            elif e["reason"] == execute.TIME:
                outcome = "timed out" if outcome == "graded" else outcome
            elif outcome == "graded":
                outcome = "crashed"
        elif kind == "tool changed":
            notes.append(f"{e['part']}: test tool changed while the test ran ({e['what']}) -> zero")
        elif kind == "tamper":
            notes.append(f"before {e['part']}: replaced {', '.join(e['what'][:4])} (put back)")
        elif kind == "output cut":
            notes.append(f"{e['part']}: output cut")
            outcome = "limit hit" if outcome == "graded" else outcome
        elif kind == "zero" and e["reason"] == execute.DEADLINE:
            outcome = "timed out"
        elif kind == "zero":
            notes.append(f"{e['part']}: {e['why']} -> zero")
        elif kind == "failed":
            notes.append(f"{e['part']}: {e['error']}")
        elif kind == "data":
            notes.append(f"kernel runs: {e['text']}")
            if "matched" in e:  # grading replayed: how many runs the submission's folder served
                notes.append(f"own runs matched: {e['matched']} of {e['made']} kernel run(s)")
    if job.killed:
        outcome = "timed out"
        notes.append(f"killed after {job.timeout:.0f} s (the whole submission)")
    elif job.returncode != 0:
        outcome = "crashed"
        last = [ln for ln in job.log.splitlines() if "ERROR" in ln or "Error" in ln][-1:]
        notes.append("nbgrader failed: " + (last[0][:200] if last else f"exit {job.returncode}"))
    return outcome, notes


def _chosen(lab: Lab, students: list[str] | None) -> dict[str, Path]:
    """student -> notebook: every submission of `lab`, or those of `students` (all must exist)."""
    found = submitted(lab.root, lab.name)
    if not found:
        raise GradingError(
            f"no submissions of {lab.name}: expected notebooks in "
            f"{lab.root}/submitted/<student>/{lab.name}/"
        )
    if students:
        unknown = sorted(set(students) - set(found))
        if unknown:
            raise GradingError(f"no submission of {lab.name} from: {', '.join(unknown)}")
        found = {s: p for s, p in found.items() if s in students}
    return found


@dataclass
class _Run:
    """One `hybridlab grade`: what it grades, where, and under which limits."""

    lab: Lab
    quick: bool
    sandboxed: bool
    policy: GradingPolicy
    tag: str
    limits: dict  # reference.time_limits (at the grading size)
    events: Path  # one JSONL file of execute.py's events per student
    feedback: bool = True  # each student's feedback page written right after grading
    other: dict = field(default_factory=dict)  # quick -> limits at the other size, or None
    runs: dict = field(default_factory=dict)  # quick -> the reference run's runs folder (replay)
    other_problem: str = ""  # why the solution cannot be graded at the other size

    def limits_at(self, quick: bool) -> dict | None:
        """The time limits at a size: the grading size's, or the other size's from its own
        reference run (made once, cached like the first); None when the solution cannot be
        graded at that size (its reference run fails there)."""
        if quick == self.quick:
            return self.limits
        if quick not in self.other:
            try:
                timing = reference_timing(self.lab, quick=quick, sandboxed=self.sandboxed)
                self.other[quick] = time_limits(timing, self.policy)
                self.runs[quick] = timing["runs"]
                self.name_builds()  # the other size's run may have built more
            except GradingError as err:
                self.other[quick] = None
                self.other_problem = str(err).splitlines()[0][:300]
        return self.other[quick]

    @property
    def builds(self) -> Path:
        return self.events / "builds.json"

    def name_builds(self) -> None:
        """List the cache's released builds once for every submission's sandboxes."""
        if self.sandboxed:
            released = sorted((self.lab.root / "release" / self.lab.name).glob("*.ipynb"))
            sandbox.write_released_builds(self.builds, cache_dir(), released)

    def _own_runs(self, notebook: Path, own: Path, env: dict, notes: list[str]) -> bool:
        """Check the submission's runs folder into `own`; returns the size to grade it at: the
        course's, or the other one when its runs are mostly of that size and the solution's
        reference run of that size exists or can be made."""
        folder = own_runs.runs_folder(notebook)
        quick, summary = own_runs.check_sizes(folder, own, quick=self.quick)
        if quick != self.quick:
            made = "quick" if quick else "full"
            course = "quick" if self.quick else "full"
            if self.limits_at(quick) is None:  # not gradable at its size: the course's, as before
                shutil.rmtree(own, ignore_errors=True)
                summary = own_runs.check(folder, own, quick=self.quick)
                quick = self.quick
                notes.append(
                    f"its runs were made at the {made} problem sizes, but the solution cannot be "
                    f"graded at them ({self.other_problem}): graded at the {course} sizes"
                )
            else:
                words = (
                    f"graded at the {made} problem sizes, the size its own runs were made at "
                    f"(this course grades at the {course} sizes)"
                )
                notes.append(words)
                env[own_runs.SIZE_NOTE] = words.replace("its own", "your own")
        notes.append(own_runs.summary_text(summary))
        return quick

    def job(self, student: str, notebook: Path, workers: int, needs, notes: list[str]) -> pool.Job:
        """The `nbgrader autograde` of one student, with its environment."""
        env: dict[str, str] = {}
        seed = hidden_inputs.submission_seed(student, self.lab.name, notebook.read_bytes())
        env[hidden_inputs.SEED_ENV] = str(seed)
        notes.append(f"hidden inputs drawn with seed {seed}")
        quick = self.quick
        if self.policy.replay_runs:  # its own checked runs first, then the reference run's
            own = self.events / f"{student}-runs"
            quick = self._own_runs(notebook, own, env, notes)
            env[replay.ENV] = f"replay:{self.runs[quick]}"
            env[replay.OWN] = str(own)
            if controller.may_defer_engines(notebook.read_text()):  # most runs are replayed
                env[controller.ENGINES_ENV] = controller.ON_FIRST_USE
        else:
            env[replay.ENV] = "off"  # measure everything, keep nothing
        limits = self.limits_at(quick)
        env = {**headless_environment(f"{self.tag}-{student}", quick=quick),
               **course_environment(self.lab.root), **env}  # fmt: skip
        env[EVENTS] = str(self.events / f"{student}.jsonl")
        if self.builds.exists():
            env[sandbox.BUILDS] = str(self.builds)
        env[CELL_LIMITS] = json.dumps(limits["cells"])
        env[REFERENCE_BUSY] = str(limits["busy"])
        nbgrader_exe = str(Path(sys.executable).parent / "nbgrader")
        gradebook_flag = f"--CourseDirectory.db_url={db_url(self.lab.root)}"
        command = [
            nbgrader_exe,
            "autograde",
            self.lab.name,
            "--student",
            student,
            "--force",
            gradebook_flag,
            f"--SandboxedExecute.timeout={limits['cell']}",
            f"--SandboxedExecute.deadline={limits['deadline']}",
            f"--SandboxedExecute.sandbox={self.sandboxed}",
        ]
        env = pool.environment_for(workers, needs, env)
        job = pool.Job(student, command, env, self.lab.root, limits["backstop"])
        if self.feedback:  # the student's page at once, in the pool (feedback.generate checks it)
            job.then.append([nbgrader_exe, "generate_feedback", self.lab.name, "--force",
                             "--student", student, gradebook_flag])  # fmt: skip
        return job

    def record(self, job: pool.Job, record: dict) -> None:
        """After one job: reap what it left, read its events, zero it if nbgrader failed."""
        left = reaper.reap(f"{self.tag}-{job.student}")
        path = self.events / f"{job.student}.jsonl"
        events = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
        outcome, notes = _outcome(job, events)
        if left:
            notes.append(f"killed {left} process(es) left running")
        if job.killed or job.returncode != 0:
            gradebook.zero_submission(self.lab, job.student)
            log = self.lab.root / "reports" / "logs" / self.lab.name / f"{job.student}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(job.log)  # nbgrader's own account of what failed
            notes.append(f"nbgrader's log: {log}")
        if not self.sandboxed:
            notes.append("UNSANDBOXED")
        record.update(outcome=outcome, seconds=job.seconds, notes=record["notes"] + notes)
        record["feedback"] = job.extra.get("then") == [0]  # its page written (only after success)
        record["phases"] = [e for e in events if e.get("kind") == "seconds"][-1:]


def grade(
    lab: str,
    *,
    root: Path = GRADING,
    students: list[str] | None = None,
    jobs: int | None = None,
    quick: bool | None = None,
    unsandboxed: bool = False,
    wait: bool = False,
    progress: bool = True,
    make_feedback: bool = True,
    tag: str | None = None,
) -> str:
    """Autograde the submissions of `lab` (all, or `students`); return the report. The problem
    sizes: `quick` when given (the command line's --quick/--full), else the course's
    GradingPolicy.size; a submission whose own runs are of the other size is graded at theirs
    when it can be (_Run._own_runs)."""
    root = Path(root).resolve()
    the_lab = read_lab(root, lab)  # read once, handed to every step below
    found = _chosen(the_lab, students)
    config = load_config(root)
    policy = grading_policy(root, config)
    if quick is None:
        quick = policy.quick
    unsandboxed = unsandboxed or policy.unsandboxed
    limits = sandbox.Limits(config=config)
    how = "none (unsandboxed)" if unsandboxed else sandbox.check(limits.sandbox_user)
    if progress and not unsandboxed:
        account = sandbox.sandbox_account(limits.sandbox_user)
        print(sandbox.describe(limits, policy, how, account[2] if account else None), flush=True)
    check_kernel(the_lab)
    start = time.monotonic()
    with grading_lock(root, wait=wait):
        if not in_gradebook(root, lab):
            nbgrader(["generate_assignment", lab, "--force"], root, timeout=RELEASE_TIMEOUT)
        bytecode.compile_kit()  # once, for every Python the sandboxes start
        timing = reference_timing(the_lab, quick=quick, sandboxed=not unsandboxed)
        run = _Run(
            the_lab, quick, not unsandboxed, policy, tag or f"grade-{uuid.uuid4().hex[:10]}",
            time_limits(timing, policy), Path(tempfile.mkdtemp(prefix="hybridlab-events-")),
            make_feedback,
        )  # fmt: skip
        run.runs[quick] = timing["runs"]
        run.name_builds()
        records: dict[str, dict] = {}
        todo = []
        for student, path in found.items():
            fatal, notes = inspect(path, the_lab)
            if fatal:
                gradebook.zero_submission(the_lab, student)
                records[student] = {"outcome": "not gradable", "seconds": 0.0, "notes": [fatal]}
            else:
                records[student] = {"notes": notes}
                todo.append(student)
        needs = pool.lab_needs(the_lab.text)
        workers = jobs or policy.jobs or pool.default_jobs(needs, replaying=policy.replay_runs)
        workers = max(1, min(workers, len(todo) or 1))
        work = [run.job(s, found[s], workers, needs, records[s]["notes"]) for s in todo]
        pool.run(
            work, workers, progress=progress, after=lambda j: run.record(j, records[j.student])
        )
        shutil.rmtree(run.events, ignore_errors=True)
        similar = similarity.compare(the_lab)  # every submission, not only those graded now
        for student, others in similar.flagged().items():
            if student in records:
                records[student]["notes"].append(f"similar answers: {similarity.listed(others)}")
        gradebook.save_records(the_lab, records)
        csv_path = gradebook.write_csv(root)
        picture = gradebook.plot_parts(the_lab)
        pages = []
        if make_feedback:
            graded = [s for s in found if s in gradebook.scores(the_lab)]
            written = {s for s in todo if records[s].pop("feedback", False)}
            pages = feedback.generate(
                the_lab, students=None if students is None else graded, written=written
            )
    seconds = time.monotonic() - start
    t = run.limits
    lines = [UNSANDBOXED] if unsandboxed else []
    lines.append(
        f"{lab}: {len(found)} submission(s) in {seconds:.0f} s, {workers} at a time "
        f"(sandbox limits: {how}; cell {t['cell']} s, submission {t['deadline']} s, "
        f"from the solution's {timing['total']:.0f} s)"
    )
    lines.append(gradebook.table(the_lab, list(found)))
    lines.append(similar.text())
    if unsandboxed:
        lines.append(UNSANDBOXED)
    lines.append(
        f"grades: {csv_path}; plot: {picture}; records: {root / 'reports' / (lab + '.json')}; "
        f"feedback: {len(pages)} page(s) in {root / 'feedback'}/<student>/{lab}/"
    )
    return "\n".join(lines)
