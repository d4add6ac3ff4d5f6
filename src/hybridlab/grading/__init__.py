"""Grading with nbgrader, one step per module (imported lazily: the kernel-side _guard needs none).

course       the course folder, its labs, release, the grading lock
submissions  LMS folders/zips -> submitted/<student>/<lab>/
lms          Moodle's and Canvas's names: who handed a file in, who is who, feedback names
lms_export   grades and feedback in the files Moodle and Canvas import
exchange     nbgrader's exchange on a class hub: release, collect, return feedback
sandbox      bubblewrap sandbox and limits for one submission's kernel
execute      nbgrader's Execute step, sandboxed, capped and guarded (_guard runs in the kernel)
judge        a judged test's reference and comparison, in a fresh process of the grader's
apart        a C part's test, run whole after the notebook in a fresh sandbox (no kernel)
pool         several submissions at once, with a progress bar
autograde    grade(lab): the whole step for a class or one student
gradebook    scores, the class table, grades.csv, the plot per part
similarity   answers compared with each other's and the published solution's (copydetect)
feedback     HTML feedback without hidden tests, and the leak scan
"""

from __future__ import annotations

import importlib

_NAMES = {
    "GRADING": "course",
    "LABS": "course",
    "COURSE_ID": "course",
    "GradingError": "course",
    "known_labs": "course",
    "Lab": "course",
    "read_lab": "course",
    "release": "course",
    "grade": "autograde",
    "scores": "gradebook",
    "HideHiddenTests": "feedback",
    "feedback_leaks": "feedback",
    "import_submissions": "submissions",
    "SandboxError": "sandbox",
}


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_NAMES)
