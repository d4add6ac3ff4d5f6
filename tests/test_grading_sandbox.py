"""The real sandboxed grader against every bad submission of issue 11, in ONE grading run.

A tiny lab (tests/grading_course.py) keeps it short: 16 submissions (the solution, the blank
lab and 14 bad ones) graded in parallel in bubblewrap sandboxes, then one check per case: the
part it breaks scores zero, the other parts are graded, the report says what happened, nothing is
left running and no file outside the submission's own folder changed.
"""

from __future__ import annotations

import csv
import hashlib
import html
import importlib
import io
import json
import os
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import nbformat
import psutil
import pytest

import grading_course as gc
from hybridlab.grading import autograde, course, execute, gradebook, pool, sandbox, submissions
from hybridlab.grading.course import read_lab
from hybridlab.grading.policy import GradingPolicy
from hybridlab.machine import reaper

pytestmark = [pytest.mark.timeout(3000)]  # a loaded machine: the one grading run took 15+ min

PROTECTED = ("source", "release", "submitted", "canary.txt")
SECRET = "GRADER_API_TOKEN"


def _fingerprint(root: Path) -> dict[str, str]:
    """Hash of every file outside the grader's own outputs (and the canary beside the course)."""
    files = [
        p
        for name in PROTECTED
        for p in ([root / name] if (root / name).is_file() else sorted((root / name).rglob("*")))
    ]
    files.append(root.parent / "outside-canary.txt")
    return {str(p): hashlib.sha1(p.read_bytes()).hexdigest() for p in files if p.is_file()}


class _Listener:
    """A TCP server on the grader's loopback that greets whoever connects; a sandbox must never
    reach it (the NETWORK submission checks the greeting, not only that a connect succeeded)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.connections += 1
                conn.sendall(gc.GREETING)
                conn.close()
            except OSError:
                continue

    def close(self):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


def _sleepers() -> set[int]:
    return {
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if (p.info["cmdline"] or [])[:2] == ["sleep", "6127"]
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    gc.require_sandbox()
    # what a course server holds: a solution-built kernel in the build cache (as unsandboxed
    # solution runs such as `make test` leave there), a token in the grader's environment
    import hybridlab

    hybridlab.build_source(gc.MARKER, gc.SOLUTION_KERNEL)
    import matplotlib.font_manager  # noqa: F401  (the grader's font list, which sandboxes start with)
    os.environ[SECRET] = "grader-secret-value"
    root = gc.make_course(tmp_path_factory.mktemp("sandboxed") / "course")
    (root / "canary.txt").write_text("the course's own file")
    (root.parent / "outside-canary.txt").write_text("a file beside the course")
    (released,) = course.release([gc.LAB], root=root, labs_dir=root / "labs")
    solution = gc.instructor_notebook()
    listener = _Listener()
    cases = gc.bad_submissions(solution, listener.port)
    gc.submit(root, "solution", solution)
    gc.submit(root, "blank", nbformat.read(released, as_version=4))
    for student, (nb, _) in cases.items():
        gc.submit(root, student, nb)
    # a student's own runs: recorded by running the lab as a student does, then handed in
    runs = gc.record_own_runs(tmp_path_factory.mktemp("student"), solution)
    own = gc.submit_own_runs(root, runs, solution)
    before = _fingerprint(root)
    sleepers = _sleepers()
    # unique per run: two runs of this suite on one machine (two checkouts) must not reap each
    # other's graders, which are found by this tag
    tag = f"test-sandboxed-{uuid.uuid4().hex[:8]}"
    try:
        report = autograde.grade(gc.LAB, root=root, tag=tag, jobs=3, progress=False)
    finally:
        listener.close()
        os.environ.pop(SECRET, None)
    print(report)
    return SimpleNamespace(
        root=root,
        report=report,
        cases=cases,
        own=own,
        tag=tag,
        before=before,
        after=_fingerprint(root),
        listener=listener,
        sleepers=sleepers,
        scores=gradebook.scores(read_lab(root, gc.LAB)),
        records=gradebook.load_records(read_lab(root, gc.LAB)),
        autograded=lambda s: root / "autograded" / s / gc.LAB / f"{gc.LAB}.ipynb",
    )


def _notes(graded, student) -> str:
    rec = graded.records[student]
    return f"{rec['outcome']}: " + "; ".join(rec["notes"])


def _auto(scores: dict[str, float]) -> dict[str, float]:
    """The automatically graded parts of one student's scores."""
    return {p: scores.get(p) for p in gc.PARTS}


def test_solution_full_and_blank_zero(graded):
    assert _auto(graded.scores["solution"]) == dict.fromkeys(gc.PARTS, 1.0), graded.report
    assert graded.scores["blank"] == {**dict.fromkeys(gc.PARTS, 0.0), gc.WRITTEN: 0.0}
    assert graded.records["solution"]["outcome"] == "graded"


def test_the_report_names_the_copies(graded):
    """Every submission of the tiny lab but the blank one is the solution with a part changed:
    the report names them (similarity.py), the blank is not named."""
    assert "  solution: similar to published solution (Python 100%)" in graded.report
    assert "similar answers: published solution (Python 100%)" in _notes(graded, "solution")
    assert "\n  blank:" not in graded.report and "similar answers" not in _notes(graded, "blank")
    page = graded.root / "reports" / f"{gc.LAB}-similarity.html"
    assert "<mark>" in page.read_text() and str(page) in graded.report


@pytest.mark.parametrize("student", sorted(gc.bad_submissions(gc.instructor_notebook(), 1)))
def test_bad_submission_loses_only_its_part(graded, student):
    _, expected = graded.cases[student]
    got = graded.scores.get(student, {})
    for part, score in expected.items():
        assert got.get(part, 0.0) == score, f"{student} {part}: {got} ({_notes(graded, student)})"
    assert student in graded.report
    assert graded.records[student]["outcome"], graded.records[student]


def test_the_report_says_what_happened(graded):
    expect = {
        "notjson": "not a readable notebook",
        "otherlab": "another lab",
        "deleted": "cells deleted or their ids changed",
        "loop": "time limit",
        "exit": "kernel died",
        "memory": "memory limit",
        "flood": "output cut",
        "tamper": "numpy.allclose",
    }
    for student, words in expect.items():
        assert words in _notes(graded, student), f"{student}: {_notes(graded, student)}"
    assert graded.records["memory"]["outcome"] == "limit hit"
    assert graded.records["loop"]["outcome"] == "timed out"
    limit = re.search(r"time limit \((\d+) s", _notes(graded, "loop"))
    assert limit and int(limit.group(1)) < 60, (
        "a hung answer is stopped at its own cell's limit, not the slowest cell's minute: "
        + _notes(graded, "loop"))
    assert "deadline" not in _notes(graded, "hangs"), _notes(graded, "hangs")
    assert graded.records["notjson"]["outcome"] == "not gradable"


def test_nothing_left_running(graded):
    for student in [*graded.cases, *graded.own, "solution", "blank"]:
        assert reaper.tagged(f"{graded.tag}-{student}") == [], student
    assert _sleepers() - graded.sleepers == set(), "detached processes survived their sandbox"


def test_no_file_outside_the_submission_changed_and_gradebook_intact(graded):
    assert graded.after == graded.before
    db = sqlite3.connect(graded.root / "gradebook.db")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    vandal = _outputs(graded, "vandal")
    # the course's real files are untouched (above); the sandbox does not even see other students'
    # submissions or the sources. (A course under /tmp, as here, has its parent folders inside
    # the sandbox's private /tmp, so writes there land in that throw-away tmpfs.)
    assert "VANDAL could not write other student" in vandal
    assert "VANDAL could not write source" in vandal
    # the solution's recorded kernel runs are read-only to the submissions that replay them
    assert "VANDAL could not write recorded runs" in vandal
    assert not list((graded.root / "reports" / "runs").rglob("poison.json"))


def test_submissions_replay_the_solutions_kernel_runs(graded):
    assert "replayed: reference" in _outputs(graded, "solution")
    assert any((graded.root / "reports" / "runs").rglob("*.json"))


def test_without_replay_a_submission_measures_again(graded):
    config = graded.root / "nbgrader_config.py"
    kept = config.read_text()
    config.write_text(kept + "\nc.GradingPolicy.replay_runs = False\n")
    try:
        report = autograde.grade(gc.LAB, root=graded.root, students=["solution"], progress=False)
    finally:
        config.write_text(kept)
    assert "replayed: False" in _outputs(graded, "solution"), report
    assert "Data: runs made since the previous test: measured during grading (1: hello_hybrid)." in (
        _outputs(graded, "solution")
    )
    assert _auto(gradebook.scores(read_lab(graded.root, gc.LAB))["solution"]) == dict.fromkeys(gc.PARTS, 1.0)


@pytest.mark.parametrize("student", ["own", "ownempty", "ownedited", "ownforged"])
def test_a_submission_is_graded_on_its_own_runs_when_they_pass_the_checks(graded, student):
    got = graded.scores.get(student, {})
    assert _auto(got) == graded.own[student], f"{student}: {got} ({_notes(graded, student)})"


def _data_lines(graded, student) -> list[str]:
    nb = nbformat.read(graded.autograded(student), as_version=4)
    return [
        o["text"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("name") == "stdout" and o.get("text", "").startswith("Data: ")
    ]


def test_the_feedback_says_which_data_each_part_used(graded):
    lines = {s: _data_lines(graded, s) for s in ["own", "ownempty", "ownedited", "ownforged"]}
    lines["fork"] = _data_lines(graded, "fork")  # the solution's kernel runs, no runs folder
    assert all(len(v) == len(gc.PARTS) for v in lines.values()), lines
    assert "since the previous test: your own runs (1: hello_hybrid)." in lines["own"][0]
    assert "before: your own runs (1: hello_hybrid)." in lines["own"][-1]
    assert (
        "the reference run (1: hello_hybrid): your runs folder was not used: there is none" in (lines["fork"][0])
    )
    assert "was not used: it has no readable index.json" in lines["ownempty"][0]
    assert "was invalid: its content changed after it was recorded" in lines["ownedited"][0]
    assert "was invalid: its identity does not match its name" in lines["ownforged"][0]
    notes = _notes(graded, "ownforged")
    assert "notes.txt" in notes or "2 left out" in notes, notes
    assert "own runs (90_sandbox_runs): 1 usable" in _notes(graded, "own")
    # how many runs were checked and matched: once, under the first test
    assert "Own runs: 1 file(s) of your runs folder checked, 1 usable; 1 of the 1 kernel " \
        "run(s) grading made matched one of them" in lines["own"][0]
    assert not any("Own runs:" in line for line in lines["own"][1:])
    assert "Own runs: your runs folder was not used (there is none" in lines["fork"][0]
    assert "Own runs: 2 file(s) of your runs folder checked, 0 usable; 0 of the 1" in (
        lines["ownforged"][0]
    )
    assert "own runs matched: 1 of 1 kernel run(s)" in _notes(graded, "own")
    assert "own runs matched: 0 of 1 kernel run(s)" in _notes(graded, "fork")
    # the feedback page keeps the line under the hidden tests too
    page = graded.root / "feedback" / "ownedited" / gc.LAB / f"{gc.LAB}.html"
    assert "its content changed after it was recorded" in page.read_text()


def _outputs(graded, student) -> str:
    nb = nbformat.read(graded.autograded(student), as_version=4)
    return "".join(
        o.get("text", "") + o.get("evalue", "") for c in nb.cells for o in c.get("outputs", [])
    )


def test_graded_notebooks_show_figures_as_text_not_pictures(graded):
    nb = nbformat.read(graded.autograded("solution"), as_version=4)
    shown = [o.get("data", {}) for c in nb.cells for o in c.get("outputs", []) if "data" in o]
    assert any(d.get("text/plain", "").startswith("<Figure size") for d in shown), shown
    assert not any(k.startswith("image/") for d in shown for k in d), "a figure was drawn"


def test_a_sandbox_starts_with_the_graders_font_list(graded):
    """matplotlib in a fresh home would scan the fonts again in every submission (0.4 s)."""
    assert re.search(r"font lists: \['fontlist-v[\d.]+\.json'\]", _outputs(graded, "solution")), (
        _outputs(graded, "solution")[:2000]
    )


def test_figures_are_drawn_only_when_the_policy_says():
    from traitlets.config import Config

    from hybridlab.grading.execute import NO_FIGURES, SandboxedExecute

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    first = {}
    for draw in (False, True):
        config = Config({"GradingPolicy": {"draw_figures": draw}})
        cells, _ = SandboxedExecute(config=config)._prepare(nb)
        first[draw] = cells[0].source
    assert NO_FIGURES in first[False] and NO_FIGURES not in first[True], first


def test_hidden_tests_and_gradebook_invisible(graded):
    text = _outputs(graded, "snoop")
    assert "hidden ones: []" in text and "gradebook: False" in text, text[:500]


def test_no_network(graded):
    assert graded.listener.connections == 0
    assert "NETWORK" in _outputs(graded, "network")


def test_output_is_cut(graded):
    path = graded.autograded("flood")
    assert path.stat().st_size < 2_000_000
    assert "output cut by the grader" in path.read_text()


def test_feedback_has_no_hidden_tests(graded):
    from hybridlab.grading.feedback import feedback_leaks

    pages = sorted((graded.root / "feedback").glob(f"*/{gc.LAB}/*.html"))
    assert len(pages) >= 10
    assert feedback_leaks(read_lab(graded.root, gc.LAB)) == []
    assert "hidden square check" not in "".join(p.read_text() for p in pages)


def test_grades_csv_and_plot(graded):
    text = (graded.root / "grades.csv").read_text()
    assert text.splitlines()[0].startswith("student,lab,total")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["student"] for r in rows if r["lab"] == gc.LAB) == sorted(
        [*graded.cases, *graded.own, "solution", "blank"]
    )
    assert (graded.root / "reports" / f"{gc.LAB}-parts.png").stat().st_size > 1000


def test_regrade_one_student_leaves_the_others(graded):
    before = gradebook.scores(read_lab(graded.root, gc.LAB))
    records = gradebook.load_records(read_lab(graded.root, gc.LAB))
    nbformat.write(
        gc.instructor_notebook(), graded.root / "submitted" / "exit" / gc.LAB / f"{gc.LAB}.ipynb"
    )
    report = autograde.grade(gc.LAB, root=graded.root, students=["exit"], progress=False)
    after = gradebook.scores(read_lab(graded.root, gc.LAB))
    assert _auto(after["exit"]) == dict.fromkeys(gc.PARTS, 1.0), report
    assert {s: v for s, v in after.items() if s != "exit"} == {
        s: v for s, v in before.items() if s != "exit"
    }
    new = gradebook.load_records(read_lab(graded.root, gc.LAB))
    assert {s: r for s, r in new.items() if s != "exit"} == {
        s: r for s, r in records.items() if s != "exit"
    }


def _cli(graded, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HYBRIDLAB_GRADING=str(graded.root))
    exe = Path(sys.executable).parent / "hybridlab"
    return subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=600)


def test_written_answers_are_left_for_the_grader(graded):
    """Autograde scores no written answer: the solution's waits for a grader (shown as ?); the
    blank lab's, left as released, nbgrader scores zero itself; the report says what to do."""
    waiting = gradebook.pending(read_lab(graded.root, gc.LAB))
    assert gc.WRITTEN in waiting["solution"] and "blank" not in waiting
    assert "to grade by hand" in graded.report and "(by hand)" in graded.report
    row = next(r for r in gradebook.rows(read_lab(graded.root, gc.LAB)) if r["student"] == "blank")
    assert (row["manual_max"], row["to_grade"]) == (gc.WRITTEN_POINTS, "")


def test_a_score_given_by_hand_is_merged_and_returned(graded):
    """The round trip: `hybridlab mark` gives the solution's written answer 1.5 of 2 with a
    comment; `hybridlab grades` merges it (total, auto + by hand, csv) and nothing is left to
    grade for that student; the feedback shows the score and the comment; a regrade keeps it."""
    with pytest.raises(course.GradingError, match="0 to 2 points"):
        gradebook.mark(read_lab(graded.root, gc.LAB), "solution", gc.WRITTEN, 3)
    with pytest.raises(course.GradingError, match="no graded part"):
        gradebook.mark(read_lab(graded.root, gc.LAB), "solution", "written_nothing", 1)
    comment = "Right mechanism; say why the ranks end in step."
    marked = _cli(graded, "mark", gc.LAB, "solution", gc.WRITTEN, "1.5", "--comment", comment)
    assert marked.returncode == 0, marked.stderr
    shown = _cli(graded, "grades", gc.LAB)
    assert shown.returncode == 0, shown.stderr
    line = next(ln for ln in shown.stdout.splitlines() if ln.startswith("solution "))
    assert "?" not in line and "5.5 / 6" in line and "4/4 + 1.5/2" in line, shown.stdout
    assert "solution" not in gradebook.pending(read_lab(graded.root, gc.LAB))
    rows = list(csv.DictReader(io.StringIO((graded.root / "grades.csv").read_text())))
    row = next(r for r in rows if r["student"] == "solution" and r["lab"] == gc.LAB)
    assert (float(row[gc.WRITTEN]), float(row["manual"]), float(row["total"])) == (1.5, 1.5, 5.5)
    returned = _cli(graded, "feedback", gc.LAB, "--students", "solution")
    assert returned.returncode == 0, returned.stderr
    page = (graded.root / "feedback" / "solution" / gc.LAB / f"{gc.LAB}.html").read_text()
    assert comment in html.unescape(page) and "1.5" in page
    autograde.grade(gc.LAB, root=graded.root, students=["solution"], progress=False)
    assert gradebook.scores(read_lab(graded.root, gc.LAB))["solution"][gc.WRITTEN] == 1.5


def test_second_grader_refuses(graded):
    with course.grading_lock(graded.root):
        with pytest.raises(course.GradingError, match="another grader"):
            autograde.grade(gc.LAB, root=graded.root, students=["blank"], progress=False)


# ------------------------------------------------------------------ issue 21


def _feedback(graded, student) -> str:
    return "".join(
        p.read_text() for p in (graded.root / "feedback" / student / gc.LAB).glob("*.html")
    )


@pytest.mark.parametrize("student", ["patcher", "restorer"])
def test_comparison_tools_changed_inside_the_answer_score_zero(graded, student):
    """square() replaces numpy.allclose (and isclose, math.isclose, the helper's __code__) at
    every call the test makes, returning garbage; the restorer puts them back by finalisers."""
    assert graded.scores[student]["test_square"] == 0.0
    assert "test tool changed" in _notes(graded, student), _notes(graded, student)
    assert "test tool changed" in _feedback(graded, student)


def test_root_grader_exposes_no_secrets(graded):
    """A submission cannot read what only root may read: /etc/shadow, ssh host keys, homes."""
    text = _outputs(graded, "spy")
    assert "SPY secrets read: []" in text, text[:2000]
    if os.geteuid() == 0:  # the check above means something only if root could read them
        assert Path("/etc/shadow").exists()
        assert not Path("/etc/shadow").stat().st_mode & stat.S_IROTH


def test_grader_environment_stays_outside(graded):
    text = _outputs(graded, "spy")
    line = next(ln for ln in text.splitlines() if ln.startswith("SPY environment:"))
    assert SECRET not in line and "HYBRIDLAB_GRADING_EVENTS" not in line, line
    assert "HYBRIDLAB_SESSION" in line  # what the kernel needs still arrives


def test_no_solution_in_sight(graded):
    """Neither the solution-built kernel in the grader's build cache nor a solution line."""
    text = _outputs(graded, "spy")
    assert "SPY solution seen: []" in text, text[-2000:]
    assert "SPY secrets read" in text  # the search ran


def test_disk_limit_stops_a_submission(graded):
    """total() writes 6 GiB into its working folder: stopped at the limit (a tmpfs of
    c.Limits.disk_mb = 256 MB, in the sandbox's memory), zero for that part, the rest graded."""
    scores = _auto(graded.scores["disk"])  # the written answer waits for a grader
    assert scores == {**dict.fromkeys(gc.PARTS, 1.0), "test_total": 0.0}, graded.report
    assert "disk limit was reached (256 MB" in _notes(graded, "disk"), _notes(graded, "disk")
    assert graded.records["disk"]["outcome"] == "limit hit"
    assert "DISK working folder on tmpfs of 256 MB" in _outputs(graded, "disk")


# ------------------------------------------------------------------ cheap, no grading run


GUARD_PROBE = """
import math, weakref, numpy
import numpy as np
import hybridlab.grading._guard as g

g.capture()
ns = {}
def check_close(a, b):
    return bool(np.allclose(a, b))
ns["check_close"] = check_close
g.remember(ns, ["check_close"])

class Garbage(list):
    pass

def answer(how):
    if how == "replace":
        numpy.isclose = lambda *a, **k: True
        math.isclose = lambda *a, **k: True
        return [42.0]
    real, code = numpy.allclose, check_close.__code__
    numpy.allclose = lambda *a, **k: True
    check_close.__code__ = (lambda a, b: True).__code__
    garbage = Garbage([42.0])
    weakref.finalize(garbage, setattr, numpy, "allclose", real)
    weakref.finalize(garbage, setattr, check_close, "__code__", code)
    return garbage

for how in ("replace", "restore", "honest"):
    g.restore(ns, how)
    try:
        if how == "honest":
            ok = np.allclose(np.arange(3.0) ** 2, [0, 1, 4]) and math.isclose(1.0, 1.0)
        else:
            got = answer(how)
            ok = bool(np.isclose(got, 4)) and math.isclose(got[0], 4) if how == "replace" else (
                check_close(got, 4) and np.allclose(got, 4))
            del got
        assert ok
        g.verify(ns, how)
        print(how, "trusted")
    except g.TestToolChanged as err:
        print(how, "caught:", err)
"""


def test_guard_sees_tools_changed_while_a_test_ran():
    done = subprocess.run(
        [sys.executable, "-c", GUARD_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["replace"].startswith("caught: test tool changed"), done.stdout
    assert "numpy.isclose" in lines["replace"] and "math.isclose" in lines["replace"]
    assert lines["restore"].startswith("caught:"), done.stdout
    assert "numpy.allclose" in lines["restore"] and "check_close.__code__" in lines["restore"]
    assert lines["honest"] == "trusted", done.stdout


RUN_PATH_PROBE = """
import subprocess
import hybridlab.grading._guard as g
import hybridlab.runs.run_path as run_path

g.capture()
ns = {}
real_parse, real_popen = run_path.parse_framed, subprocess.Popen
for how in ("records", "popen", "honest"):
    g.restore(ns, how)
    try:
        if how == "records":  # a fresh attacker's route: every later run's records rewritten
            run_path.parse_framed = lambda *a, **k: real_parse(*a, **k)
        elif how == "popen":
            class Forging(real_popen):
                pass
            subprocess.Popen = Forging
        g.verify(ns, how)
        print(how, "trusted")
    except g.TestToolChanged as err:
        print(how, "caught:", err)
"""


def test_guard_sees_the_run_path_and_subprocess_changed():
    """The records of a kernel run are read in the kernel: the modules on their way (the kit's
    run path, subprocess) are guarded as the judging ones are."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_PATH_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["records"].startswith("caught:") and "parse_framed" in lines["records"], done.stdout
    assert lines["popen"].startswith("caught:") and "Popen" in lines["popen"], done.stdout
    assert lines["honest"] == "trusted", done.stdout


SPAWN_PROBE = """
import subprocess, sys
import hybridlab.grading._guard as g

g.capture()
seen = []
sys.addaudithook(lambda event, args: seen.append(event))  # a hidden test's own hook: refused
before = g.programs_started()
sorted([3, 1, 2])
print("pure", g.programs_started() - before)
subprocess.run(["true"], check=True)
print("run", g.programs_started() - before, "own hook saw", len(seen))
"""


def test_guard_counts_the_programs_a_function_starts():
    """A hidden test's own audit hook is refused under the guard: the guard's count is how a
    test sees a function start a program (lab 05's prediction may not run the kernel)."""
    done = subprocess.run(
        [sys.executable, "-c", SPAWN_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["pure 0", "run 1 own hook saw 0"], done.stdout


CTYPES_PROBE = """
import ctypes, sys
import hybridlab.grading._guard as g

g.capture()
ns = {}
g.restore(ns, "clean", test=True)
g.verify(ns, "clean")
print("clean trusted")
libm = ctypes.CDLL("libm.so.6")
print("loaded", any("libm" in name for name in g.libraries_loaded()))
clear = ctypes.pythonapi.PyEval_SetTrace  # looked up in an answer cell, called in a test later
g.restore(ns, "later", test=True)
clear(None, None)
try:
    g.verify(ns, "later")
    print("later trusted")
except g.TestToolChanged as err:
    print("later caught:", err)
"""


def test_guard_refuses_the_interpreters_tracing_reached_by_ctypes():
    """A fresh attacker (u08_untrace3, 3/3 twice) cleared lab 08 (a)'s line counter with
    ctypes.pythonapi.PyEval_SetTrace inside eps_bounds, where the test's own hooks are on and its
    sys.settrace events are the test's (traced_by_the_test): the lookup itself is refused in every
    later test; a library ctypes loads is listed (libraries_loaded)."""
    done = subprocess.run(
        [sys.executable, "-c", CTYPES_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["clean trusted", "loaded True"], done.stdout
    assert lines[-1].startswith("later caught:") and "PyEval_SetTrace" in lines[-1], done.stdout


def test_the_limits_block_names_every_limit_and_how():
    limits, policy = sandbox.Limits(), GradingPolicy(factor=3.0, cell_minimum=45)
    block = sandbox.describe(limits, policy, "cgroup v2", "hybridlab-grader")
    for word in ("time", "memory", "tasks", "output", "disk", "cgroup", "tmpfs"):
        assert word in block, block
    assert f"{limits.disk_mb} MB" in block and f"{limits.memory_mb} MB" in block
    assert "other cells 3 x the slowest (>= 45 s)" in block, block
    assert "graded cell 3 x the solution's time of that cell (>= 10 s)" in block, block
    assert "ulimit" in sandbox.describe(limits, policy, "rlimits", None)


def test_the_outcome_is_read_from_reason_codes_not_from_the_words():
    """Rewording a message cannot change a student's recorded outcome."""
    job = pool.Job("s", ["true"], {}, Path("."), 10)
    job.returncode, job.killed = 0, False

    def outcome(*events):
        return autograde._outcome(job, list(events))[0]

    reworded = "the sandbox ran out of room"  # no "memory", "disk" or "time limit" in it
    assert (
        outcome({"kind": "restart", "part": "a", "reason": execute.MEMORY, "why": reworded})
        == "limit hit"
    )
    assert (
        outcome({"kind": "restart", "part": "a", "reason": execute.DISK, "why": reworded})
        == "limit hit"
    )
    assert (
        outcome({"kind": "restart", "part": "a", "reason": execute.TIME, "why": reworded})
        == "timed out"
    )
    died = {"kind": "restart", "part": "a", "reason": execute.DIED, "why": "memory time limit"}
    assert outcome(died) == "crashed"
    late = {"kind": "zero", "part": "b", "reason": execute.DEADLINE, "why": reworded}
    assert outcome(late) == "timed out"
    cut = {"kind": "zero", "part": "b", "reason": execute.INCOMPLETE, "why": "deadline"}
    assert outcome(cut) == "graded"


def test_the_policy_and_the_limits_are_read_from_their_own_sections(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.GradingPolicy.factor = 2.5\nc.Limits.disk_mb = 64\n"
    )
    config = course.load_config(tmp_path)
    assert GradingPolicy(config=config).factor == 2.5
    assert sandbox.Limits(config=config).disk_mb == 64
    assert GradingPolicy().factor == 4.0 and not hasattr(sandbox.Limits(), "factor")


def test_kernel_environment_is_an_allowlist():
    env = {
        "PATH": "/usr/bin",
        "OMP_NUM_THREADS": "2",
        "HYBRIDLAB_SESSION": "s",
        "HYBRIDLAB_GRADING": "/srv/course",
        "HYBRIDLAB_GRADING_EVENTS": "/tmp/e.jsonl",
        "GITHUB_TOKEN": "x",
        "AWS_SECRET_ACCESS_KEY": "y",
        "SSH_AUTH_SOCK": "/run/ssh",
    }
    assert sandbox.sandbox_environment(env) == {
        "PATH": "/usr/bin",
        "OMP_NUM_THREADS": "2",
        "HYBRIDLAB_SESSION": "s",
    }


def test_only_current_builds_of_released_sources_reach_a_sandbox(tmp_path):
    import nbformat

    build = importlib.import_module("hybridlab.kernels.build")
    from hybridlab.paths import kernels_dir
    from hybridlab.runs.student_c import student_unit

    cache, cc = tmp_path / "build", build.mpicc()

    def entry(name: str, code: str, *, kept: bool, key: str | None = None) -> Path:
        path = cache / f"{name}-{key or build.cache_key(code, (), cc)}"
        path.mkdir(parents=True)
        (path / build.FLAGS_FILE).write_text("[]")
        if kept:  # C code from a notebook is kept beside its build
            (path / f"{name}.c").write_text(code)
        return path

    kit = entry("hello_hybrid", (kernels_dir() / "hello_hybrid.c").read_text(), kept=False)
    stale_kit = entry("hello_hybrid", "", kept=False, key="0123456789abcdef")  # older headers
    solution = entry("ring_fixed", "int secret;\n", kept=True)
    given = entry("given", "int given;\n", kept=True)
    stale_given = entry("given", "int given;\n", kept=True, key="1111111111111111")
    unrecorded = (
        cache / f"pingpong-{build.cache_key((kernels_dir() / 'pingpong.c').read_text(), (), cc)}"
    )
    unrecorded.mkdir()  # no flags recorded: its key cannot be checked
    # C cells linked with a kit kernel (lab 16's racy count): a unit of the released cell's
    # code, and one of an answer the released notebook does not hold
    racy = "void count_bins(long n, int nbins, long *bins) { bins[0] += n; }"
    cell = entry("racy_bins", student_unit("race_bins", "HL_STUDENT_RACE_BINS", racy), kept=True)
    answer = student_unit("race_bins", "HL_STUDENT_RACE_BINS", racy.replace("+= n", "+= nbins"))
    entry("student_bins", answer, kept=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('code = r"""\nint given;\n"""'),
        nbformat.v4.new_code_cell(f"%%c RACY_C race_bins\n{racy}\n"),
    ]
    released = tmp_path / "lab.ipynb"
    nbformat.write(nb, released)
    assert sandbox.released_builds(cache, [released]) == [given, kit, cell]
    assert sandbox.released_builds(cache, []) == [kit]
    assert not any(
        build.is_current(e) for e in (stale_kit, stale_given, unrecorded, solution / "x")
    )
    # a class's grader names them once; every submission's process reads the list
    listed = tmp_path / "builds.json"
    assert sandbox.write_released_builds(listed, cache, [released]) == 3
    shutil.rmtree(given)  # named, then removed: not handed to a sandbox
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(sandbox.BUILDS, str(listed))
        sandbox._released_builds_once.cache_clear()
        assert sandbox._released_builds_once(cache, (released,)) == [kit, cell]
    sandbox._released_builds_once.cache_clear()
    assert sandbox.BUILDS in sandbox.ENV_DENIED


def test_the_reference_runs_builds_of_released_sources_seed_every_later_box(tmp_path, monkeypatch):
    """A build the solution's kernel made in its box (a kit kernel at the tracer's or Archer's
    flags, C found verbatim in the released notebook) joins the grader's cache when that box
    goes, so a submission's box is handed it made; the solution's own C, a build the box only
    linked from its seed, or a submission's box's builds never join."""
    import nbformat

    build = importlib.import_module("hybridlab.kernels.build")
    from hybridlab.paths import kernels_dir

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    cc, traced = build.mpicc(), list(build.TRACE_FLAGS)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('code = r"""\nint given;\n"""')]
    released = tmp_path / "lab.ipynb"
    nbformat.write(nb, released)

    def made_in(box, name: str, code: str, flags: list[str], *, kept: bool) -> str:
        path = box.made_builds / f"{name}-{build.cache_key(code, tuple(flags), cc)}"
        path.mkdir()
        (path / build.FLAGS_FILE).write_text(json.dumps(flags))
        (path / name).write_text("a program")
        if kept:  # C code from a notebook is kept beside its build
            (path / f"{name}.c").write_text(code)
        return path.name

    def box_made(mode: str) -> tuple[sandbox.Box, list[str]]:
        monkeypatch.setenv("HYBRIDLAB_RUNS", f"{mode}:{tmp_path / 'runs'}")
        work = tmp_path / f"work-{mode}"
        work.mkdir()
        box = sandbox.Box(work, released=[released])
        names = [
            made_in(
                box,
                "mpi_mistakes",
                (kernels_dir() / "mpi_mistakes.c").read_text(),
                traced,
                kept=False,
            ),
            made_in(box, "given", "int given;\n", [], kept=True),
            made_in(box, "ring_fixed", "int secret;\n", [], kept=True),  # the solution's C
        ]
        (box.made_builds / "seeded-0123456789abcdef").symlink_to(SEED_LINK)
        return box, names

    SEED_LINK = "/run/hybridlab/cache/seeded-0123456789abcdef"
    box, (kit, given, solution) = box_made("record")
    target = [(s, t) for s, t, _ in box.binds() if s == box.made_builds]
    assert target == [(box.made_builds, Path("/tmp/cache/build"))]  # the kernel's build cache
    box.remove()
    cache = build.cache_dir()
    assert sorted(p.name for p in cache.iterdir()) == sorted([kit, given])
    assert (cache / kit / "mpi_mistakes").read_text() == "a program"
    assert sandbox.released_builds(cache, [released]) == [cache / given, cache / kit]
    shutil.rmtree(cache)
    box, _ = box_made("replay")  # a submission's box: its builds stay its own
    assert all(s != box.made_builds for s, _, _ in box.binds())
    box.remove()
    assert not cache.exists() or not list(cache.iterdir())


def test_the_reference_run_names_its_lab_so_its_box_keeps_the_released_builds(tmp_path, monkeypatch):
    """The solution's reference run is the run whose builds of released C join the grader's
    cache (above): its executor must know the lab's released notebooks, as a submission's does,
    or a notebook's released C (lab 01's ring_master_racy) is compiled again by every
    submission. Stopped where the executor has read them, before any kernel starts."""
    from hybridlab.grading import reference

    root = gc.make_course(tmp_path / "course")
    (released,) = course.release([gc.LAB], root=root, labs_dir=tmp_path / "labs")
    seen = []

    class Stop(Exception):
        pass

    def stop(self, nb):
        seen.append(self._released)
        raise Stop

    monkeypatch.setattr(execute.SandboxedExecute, "_prepare", stop)
    with pytest.raises(Stop):
        reference.reference_timing(read_lab(root, gc.LAB), quick=True, sandboxed=False)
    assert seen == [[root / "release" / gc.LAB / released.name]]


def test_clean_stale_removes_only_old_builds_todays_kit_would_not_use(tmp_path, monkeypatch):
    build = importlib.import_module("hybridlab.kernels.build")
    from hybridlab.paths import kernels_dir

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path))
    code = (kernels_dir() / "hello_hybrid.c").read_text()
    made = {}
    for label, key in (("current", build.cache_key(code, (), build.mpicc())),
                       ("stale", "0123456789abcdef"), ("young", "fedcba9876543210")):  # fmt: skip
        made[label] = build.cache_dir() / f"hello_hybrid-{key}"
        made[label].mkdir(parents=True)
        (made[label] / build.FLAGS_FILE).write_text("[]")
    for label in ("current", "stale"):
        os.utime(made[label], (time.time() - 7200, time.time() - 7200))
    assert build.remove_stale_builds(min_age=3600) == 1
    assert [label for label, path in made.items() if path.exists()] == ["current", "young"]


def test_a_box_reads_the_graders_kit_objects_and_only_the_reference_run_adds_to_them(
    tmp_path, monkeypatch
):
    """The kit objects in the grader's cache are bound read-only into every box; the objects a
    box's builds compile join that cache only from the reference run (the solution's code)."""
    gc.require_sandbox()
    from hybridlab.kernels.build import SEEDED_OBJECTS_ENV, objects_dir
    from hybridlab.runs import replay

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    objects_dir().mkdir(parents=True)
    (objects_dir() / "kit-0123456789abcdef.o").write_text("kit")
    script = f"""
import os
seeded = os.environ["{SEEDED_OBJECTS_ENV}"]
print(open(os.path.join(seeded, "kit-0123456789abcdef.o")).read())
try:
    open(os.path.join(seeded, "kit-0123456789abcdef.o"), "w").write("forged")
except OSError:
    print("read-only")
os.makedirs("/tmp/cache/objects", exist_ok=True)
open("/tmp/cache/objects/made-fedcba9876543210.o", "w").write("made")
"""
    for mode, joins in (("replay", False), ("record", True)):
        (tmp_path / mode).mkdir()
        monkeypatch.setenv(replay.ENV, f"{mode}:{tmp_path / mode}")
        status, out, _ = sandbox.run_boxed(
            [sys.executable, "-c", script], stdin="", timeout=120, limits=sandbox.Limits(),
            env=dict(os.environ),
        )  # fmt: skip
        assert status == 0 and out.split() == ["kit", "read-only"], (status, out)
        assert (objects_dir() / "made-fedcba9876543210.o").exists() == joins, mode
    assert (objects_dir() / "kit-0123456789abcdef.o").read_text() == "kit"


def test_a_box_starts_with_the_graders_numba_cache_and_only_the_reference_run_adds_to_it(
    tmp_path, monkeypatch
):
    """Lab 09's kernels load from numba's cache in every box instead of compiling in each engine
    (issue 40): the grader's cache is copied in, and what a box's numba writes joins it only from
    the reference run."""
    gc.require_sandbox()
    from hybridlab.paths import numba_cache_dir
    from hybridlab.runs import replay

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    (numba_cache_dir() / "kit_0123").mkdir(parents=True)
    (numba_cache_dir() / "kit_0123" / "sweep.nbi").write_text("kit")
    script = """
import os
print(open("/tmp/cache/numba/kit_0123/sweep.nbi").read())
open("/tmp/cache/numba/kit_0123/sweep.nbi", "w").write("forged")
open("/tmp/cache/numba/kit_0123/made.nbc", "w").write("made")
"""
    for mode, joins in (("replay", False), ("record", True)):
        (tmp_path / mode).mkdir()
        monkeypatch.setenv(replay.ENV, f"{mode}:{tmp_path / mode}")
        status, out, _ = sandbox.run_boxed(
            [sys.executable, "-c", script], stdin="", timeout=120, limits=sandbox.Limits(),
            env=dict(os.environ),
        )  # fmt: skip
        assert status == 0 and out.split() == ["kit"], (status, out)
        assert (numba_cache_dir() / "kit_0123" / "made.nbc").exists() == joins, mode
    assert (numba_cache_dir() / "kit_0123" / "sweep.nbi").read_text() == "kit"  # never rewritten


def test_a_build_records_its_flags_and_is_current_until_a_header_changes(tmp_path, monkeypatch):
    from hybridlab import paths

    build = importlib.import_module("hybridlab.kernels.build")
    kernels = tmp_path / "kernels_c"
    shutil.copytree(paths.kernels_dir(), kernels)
    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(paths, "kernels_dir", lambda: kernels)
    monkeypatch.setenv("HYBRIDLAB_COURSE_KERNELS", str(tmp_path / "no-course-kernels"))
    made = build.build_source("given", (kernels / "hello_hybrid.c").read_text(), ("-DX=1",))
    entry = made.library.parent
    assert json.loads((entry / build.FLAGS_FILE).read_text()) == ["-DX=1"]
    assert build.is_current(entry)
    with (kernels / "hybridlab.h").open("a") as header:
        header.write("/* a newer header */\n")
    assert not build.is_current(entry)


# ------------------------------------------------------------------ cheap, no grading run (11)


def test_lock_waits_when_asked(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("")
    order = []

    def second():
        with course.grading_lock(tmp_path, wait=True):
            order.append("second")

    with course.grading_lock(tmp_path):
        t = threading.Thread(target=second)
        t.start()
        t.join(0.5)
        order.append("first")
    t.join(10)
    assert order == ["first", "second"]


def test_a_grader_with_no_kernel_built_yet_gets_a_sandbox(tmp_path, monkeypatch):
    """A new instructor account has an empty build cache: the sandbox still fills and starts
    (the empty cache once ended the fill step before the kernel, silently)."""
    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "empty-cache"))
    assert sandbox.check()


@pytest.mark.slow
def test_a_lab_goes_out_and_comes_back_through_the_exchange(tmp_path, monkeypatch):
    """release --exchange, a student's fetch and submit (nbgrader, as a class hub's servers are
    configured), collect --exchange: the submission lands in submitted/<student>/<lab>/."""
    import getpass

    from hybridlab.grading import exchange as ex

    root = gc.make_course(tmp_path / "course")
    monkeypatch.setenv("HYBRIDLAB_EXCHANGE", str(tmp_path / "exchange"))
    ex.release(gc.LAB, root=root, labs_dir=tmp_path / "labs")
    assert (tmp_path / "exchange" / "hybridlab" / "outbound" / gc.LAB / f"{gc.LAB}.ipynb").is_file()
    home = tmp_path / "student"
    home.mkdir()
    student = [  # deploy/jupyter/nbgrader_config.py, without the hub's course membership
        f"--Exchange.root={tmp_path / 'exchange'}", "--CourseDirectory.course_id=hybridlab",
        "--Exchange.path_includes_course=True", f"--Exchange.cache={home / 'cache'}",
        "--Authenticator.plugin_class=nbgrader.auth.NoAuthPlugin",
    ]  # fmt: skip
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    for step in ("fetch_assignment", "submit"):
        subprocess.run([nbgrader, step, gc.LAB, *student], cwd=home, check=True, timeout=300)
    assert (home / "hybridlab" / gc.LAB / f"{gc.LAB}.ipynb").is_file()
    ex.collect(gc.LAB, root=root)
    submitted = root / "submitted" / getpass.getuser() / gc.LAB
    assert (submitted / f"{gc.LAB}.ipynb").is_file() and (submitted / "timestamp.txt").is_file()


def test_no_sandbox_says_what_to_do(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxError) as err:
        sandbox.check()
    text = str(err.value)
    assert "apt-get install bubblewrap" in text and "--unsandboxed" in text


def test_import_from_an_lms_zip_and_folder(tmp_path):
    import zipfile

    root = gc.make_course(tmp_path / "course")
    nb = nbformat.writes(gc.instructor_notebook())
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("alice_12345_90_sandbox.ipynb", nb)
        z.writestr("bob_late_final.ipynb", nb)
        z.writestr("notes.txt", "hello")
        z.writestr("_nobody.ipynb", nb)
        z.writestr("__MACOSX/._alice_12345_90_sandbox.ipynb", "junk")
    report = submissions.import_submissions(archive, read_lab(root, gc.LAB))
    assert set(report.imported) == {"alice", "bob"}
    assert set(report.unmatched) == {"notes.txt", "_nobody.ipynb"}
    assert (root / "submitted" / "alice" / gc.LAB / f"{gc.LAB}.ipynb").is_file()
    again = submissions.import_submissions(archive, read_lab(root, gc.LAB))
    assert "exists" in again.unmatched["alice_12345_90_sandbox.ipynb"]

    folders = tmp_path / "per-student"
    for student, names in {"carol": ["work.ipynb"], "dave": ["a.ipynb", "b.ipynb"]}.items():
        (folders / student).mkdir(parents=True)
        for name in names:
            (folders / student / name).write_text(nb)
    (folders / "carol" / "work_runs").mkdir()  # carol's runs folder beside her notebook
    (folders / "carol" / "work_runs" / "index.json").write_text("{}")
    (folders / "carol" / "work_runs" / "escape.json").symlink_to(root / "nbgrader_config.py")
    report = submissions.import_submissions(folders, read_lab(root, gc.LAB))
    assert set(report.imported) == {"carol"}
    assert "dave handed in 2 notebooks" in report.text()
    runs = root / "submitted" / "carol" / gc.LAB / f"{gc.LAB}_runs"
    assert [p.name for p in runs.iterdir()] == ["index.json"]  # a link is not followed
    assert "and its runs folder (1 files)" in report.text()

    # a student's zip: the notebook and its runs folder
    inner = tmp_path / "erin.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("lab/mine.ipynb", nb)
        z.writestr("lab/mine_runs/index.json", "{}")
        z.writestr(f"lab/mine_runs/{'b' * 24}-0.json", "{}")
    download = tmp_path / "download2.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.write(inner, "erin_987_lab.zip")
    report = submissions.import_submissions(download, read_lab(root, gc.LAB))
    assert set(report.imported) == {"erin"}, report.text()
    runs = root / "submitted" / "erin" / gc.LAB / f"{gc.LAB}_runs"
    assert sorted(p.name for p in runs.iterdir()) == [f"{'b' * 24}-0.json", "index.json"]


def test_inspect_finds_what_cannot_be_graded(tmp_path):
    lab = read_lab(gc.make_course(tmp_path / "course"), gc.LAB)
    bad = tmp_path / "x.ipynb"  # a shallow folder: not in a course's submitted/ tree
    bad.write_text("{not json")
    assert "not a readable notebook" in submissions.inspect(bad, lab)[0]
    nbformat.write(nbformat.v4.new_notebook(), bad)
    assert "another lab" in submissions.inspect(bad, lab)[0]
    renamed = gc.answer(gc.instructor_notebook(), "square", "def square(x):\n    return x * x")
    renamed.cells[-2].metadata["nbgrader"]["grade_id"] = "my_own_cell"
    nbformat.write(renamed, bad)
    assert submissions.inspect(bad, lab) == (None, [
        f"cells deleted or their ids changed: {gc.WRITTEN} (score zero)",
        "cells the lab does not have: my_own_cell (run as plain cells)",
    ])  # fmt: skip


def test_the_line_under_a_test_says_what_ran_and_where_its_data_came_from():
    from hybridlab.grading.execute import describe

    runs = [{"source": "measured", "name": "hello_hybrid", "why": ""},
            {"source": "own", "name": "ring", "why": ""},
            *({"source": "reference", "name": n, "why": "no such run"} for n in "abcd")]  # fmt: skip
    assert describe(runs) == (
        "your own runs (1: ring), the reference run (4: a, b, c, ...): no such run, "
        "measured during grading (1: hello_hybrid)"
    )
    assert describe([]) == "no kernel runs"


def test_pool_size_from_cores_and_lab():
    from hybridlab.grading import pool

    assert pool.lab_needs("hl.Cluster(ranks=4, threads=2)\nhl.Cluster(ranks=2)") == 8
    assert pool.default_jobs(2, cores=2) == 2
    assert pool.default_jobs(8, cores=2) == 1
    assert pool.default_jobs(1, cores=8) == 16
    assert pool.default_jobs(8, cores=2, replaying=True) == 3


def test_a_test_cell_may_redefine_its_own_helper():
    """Two test cells that each define `_close` are the lab's own doing, not tampering."""
    probe = (
        "import hybridlab.grading._guard as g\n"
        "g.capture()\n"
        "ns = {}\n"
        "exec('def _close(a, b):\\n    return a == b', ns)\n"
        "g.remember(ns, ['_close'])\n"
        "g.restore(ns, 'second')\n"
        "exec('def _close(a, b):\\n    return abs(a - b) < 1', ns)\n"
        "g.verify(ns, 'second', ('_close',))\n"
        "print('trusted')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "trusted", done.stdout + done.stderr


def test_the_runs_folder_travels_through_nbgraders_exchange(tmp_path):
    """release (without the instructor's runs) -> fetch -> submit -> collect keeps <lab>_runs/."""
    root = gc.make_course(tmp_path / "course")
    (root / "source" / gc.LAB / f"{gc.LAB}_runs").mkdir()  # the instructor ran the notebook
    (root / "source" / gc.LAB / f"{gc.LAB}_runs" / "index.json").write_text("{}")
    (root / "exchange").mkdir()
    course.release([gc.LAB], root=root, labs_dir=root / "labs")
    assert not (root / "release" / gc.LAB / f"{gc.LAB}_runs").exists()
    course.nbgrader(["release_assignment", gc.LAB, "--force"], root, timeout=300)
    home = tmp_path / "student"
    home.mkdir()
    nbgrader = [str(Path(sys.executable).parent / "nbgrader")]
    where = ["--course", "hybridlab", f"--Exchange.root={root / 'exchange'}"]
    done = subprocess.run(
        [*nbgrader, "fetch_assignment", gc.LAB, *where], cwd=home, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    runs = home / gc.LAB / f"{gc.LAB}_runs"
    runs.mkdir()
    (runs / "index.json").write_text('{"runs": {}}')
    (runs / f"{'a' * 24}-0.json").write_text("{}")
    done = subprocess.run(
        [*nbgrader, "submit", gc.LAB, *where], cwd=home, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    from hybridlab.grading import exchange

    exchange.collect(gc.LAB, root=root)
    (student,) = (root / "submitted").iterdir()
    collected = student / gc.LAB / f"{gc.LAB}_runs"
    assert sorted(p.name for p in collected.iterdir()) == [f"{'a' * 24}-0.json", "index.json"]


def test_a_time_limit_stretches_with_the_load_the_reference_did_not_see(monkeypatch):
    """A right answer graded while the machine is busier than at the solution's reference run
    (a class 3 at a time, a shared hub) gets its limit stretched by the ratio, up to the cap;
    graded as quiet as the reference, the limit is the reference's."""
    from hybridlab.grading import policy

    assert policy.load_allowance(1.0, now=1.0) == 1.0
    assert policy.load_allowance(1.0, now=3.0) == 3.0
    assert policy.load_allowance(2.0, now=3.0) == 1.5
    assert policy.load_allowance(3.0, now=1.0) == 1.0  # never shorter than measured
    assert policy.load_allowance(1.0, now=50.0) == policy.LOAD_ALLOWANCE_CAP
    assert policy.load_allowance(0.2, now=0.5) == 1.0  # a CPU to spare on both: no stretch

    cpus = len(os.sched_getaffinity(0))
    monkeypatch.setenv(execute.CELL_LIMITS, json.dumps({"hidden_a": 10}))
    monkeypatch.setenv(execute.REFERENCE_BUSY, "1.0")
    executor = execute.SandboxedExecute(timeout=60, sandbox=False)
    graded = nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade_id": "hidden_a"}})
    other = nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade_id": "answer_a"}})
    monkeypatch.setattr(policy.os, "getloadavg", lambda: (0.5 * cpus, 0.0, 0.0))
    assert executor._get_timeout(graded) == 10
    assert executor._limit_text(graded) == "10 s, 4x the solution's time in it"
    assert executor._get_timeout(other) == 60
    monkeypatch.setattr(policy.os, "getloadavg", lambda: (2.5 * cpus, 0.0, 0.0))
    assert executor._get_timeout(graded) == 25
    assert executor._limit_text(graded) == (
        "25 s, 4x the solution's time in it, stretched x2.5 for the machine's load"
    )
    assert executor._get_timeout(other) == 150


def test_the_limits_carry_the_reference_load_and_a_backstop_for_stretched_cells():
    from hybridlab.grading.policy import LOAD_ALLOWANCE_CAP
    from hybridlab.grading.reference import time_limits

    policy = GradingPolicy()
    timing = {"total": 30.0, "slowest": 5.0, "cells": {"hidden_a": 4.0}, "busy": 2.0}
    limits = time_limits(timing, policy)
    assert limits["busy"] == 2.0 and limits["cells"] == {"hidden_a": 16}
    cells = (policy.restarts + 2) * limits["cell"]
    assert limits["backstop"] >= limits["deadline"] + cells * LOAD_ALLOWANCE_CAP
    assert time_limits({k: v for k, v in timing.items() if k != "busy"}, policy)["busy"] == 1.0
