"""nbgrader's exchange: the folder a class hub shares between the instructor and the students.

    release(lab)          the released lab into the exchange: students fetch it (assignment list)
    collect(lab)          what students submitted -> submitted/<student>/<lab>/
    return_feedback(lab)  feedback/<student>/<lab>/*.html into the exchange: each student fetches
                          their own (named by a hash of their submission, in a folder no student
                          can list)

The exchange's folder is grading/nbgrader_config.py's Exchange.root: HYBRIDLAB_EXCHANGE when set
(a hub: deploy/jupyterhub_config.py sets it for every server), else grading/exchange/. Folder
modes are nbgrader's own (the root 0777, the course's inbound 2733 and feedback 0711); see
book/instructors.md, "The term on a JupyterHub".
"""

from __future__ import annotations

from pathlib import Path

from .course import GRADING, LABS, RELEASE_TIMEOUT, GradingError, check_labs, nbgrader, read_lab
from .course import release as generate_release
from .feedback import generate


def _log(done) -> str:
    return (done.stdout + done.stderr).strip()


def release(lab: str, *, root: Path = GRADING, labs_dir: Path = LABS) -> str:
    """Generate the student version of `lab` (also into labs_dir) and release it to the
    exchange (again: replaced)."""
    generate_release([lab], root=root, labs_dir=labs_dir)
    return _log(
        nbgrader(["release_assignment", lab, "--force"], Path(root), timeout=RELEASE_TIMEOUT)
    )


def collect(lab: str, *, root: Path = GRADING) -> str:
    """Collect what students submitted through the exchange (the latest of each student)."""
    check_labs([lab], Path(root))
    return _log(nbgrader(["collect", lab, "--update"], Path(root), timeout=RELEASE_TIMEOUT))


def return_feedback(lab: str, *, root: Path = GRADING, students: list[str] | None = None) -> str:
    """Generate the feedback (checked for hidden tests) and release it to the exchange."""
    pages = generate(read_lab(Path(root), lab), students=students)
    if not pages:
        raise GradingError(f"no feedback for {lab}: grade it first (hybridlab grade {lab})")
    logs = []
    for student in students or [None]:
        args = ["release_feedback", lab] + (["--student", student] if student else [])
        logs.append(_log(nbgrader(args, Path(root), timeout=RELEASE_TIMEOUT)))
    return "\n".join(logs)
