"""Every environment variable the kit reads: one table, shown by the README and `hybridlab doctor`.

A setting a user may change says so (`user=True`); the others are set by the kit itself on the
processes it starts (engines, sandboxes, headless runs) and are listed so nothing is hidden.
tests/test_settings.py keeps this table, the code and the README in step.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    purpose: str
    user: bool = True  # False: set by the kit on what it starts, not by hand


SETTINGS = (
    Setting(
        "HYBRIDLAB_QUICK",
        "the course's grading size",
        "1 shrinks every lab's problem sizes (CI, a first look), 0 keeps the full ones",
    ),
    Setting("HYBRIDLAB_PROGRESS", "1", "0 hides the status line of long cells in notebooks"),
    Setting("HYBRIDLAB_PRESTART", "1", "0 stops a notebook kernel starting the controller early"),
    Setting(
        "HYBRIDLAB_LAUNCHER", "auto", "srun or mpiexec: force the launcher of engines/programs"
    ),
    Setting("HYBRIDLAB_SRUN_MPI", "pmi2", "the --mpi= plugin given to srun"),
    Setting(
        "HYBRIDLAB_CONTROLLER_IP",
        "this node's address",
        "in a Slurm allocation, where engines on other nodes reach the controller",
    ),
    Setting(
        "HYBRIDLAB_JOBS",
        "auto",
        "local: run batch scripts with the kit's one-node runner even where Slurm answers",
    ),
    Setting("HYBRIDLAB_CACHE", "~/.cache/hybridlab", "where kernels are built and cached"),
    Setting("HYBRIDLAB_KERNELS", "<checkout>/kernels_c", "the kit's C kernels and header"),
    Setting(
        "HYBRIDLAB_COURSE_KERNELS",
        "<course folder>/kernels",
        "the course's own C kernels (a list like PATH), searched after the kit's kernels_c/",
    ),
    Setting("HYBRIDLAB_GRADING", "<checkout>/grading", "the nbgrader course folder"),
    Setting("HYBRIDLAB_LABS", "<checkout>/labs", "the released notebooks"),
    Setting(
        "HYBRIDLAB_BOOK_HTML",
        "<checkout>/book/_build/html",
        "the built course book, served by JupyterLab at /hybridlab/book/ (`make book`)",
    ),
    Setting(
        "HYBRIDLAB_EXCHANGE",
        "<checkout>/grading/exchange",
        "nbgrader's exchange folder (a class hub's shared one, e.g. /srv/nbgrader/exchange)",
    ),
    Setting(
        "HYBRIDLAB_RUNS", "unset", "off: a notebook keeps no <notebook>_runs/ (grading sets it)"
    ),
    Setting("HYBRIDLAB_TAG", "set by the kit", "marks one cluster's processes", user=False),
    Setting("HYBRIDLAB_SESSION", "set by the kit", "marks a headless run's processes", user=False),
    Setting("HYBRIDLAB_OWNER", "set by the kit", "the process that launched them", user=False),
    Setting(
        "HYBRIDLAB_OWN_RUNS", "set by the grader", "a submission's checked own runs", user=False
    ),
    Setting(
        "HYBRIDLAB_RUNS_LOG", "set by the grader", "which data served each kernel run", user=False
    ),
    Setting("HYBRIDLAB_SANDBOX", "set by the grader", "1 inside a grading sandbox", user=False),
    Setting("HYBRIDLAB_APART", "set by the grader",
            "1 in the process grading a submission's parts apart: builds only as it made them",
            user=False),
    Setting("HYBRIDLAB_SEEDED_OBJECTS", "set by the grader",
            "the read-only kit objects a sandbox's builds link (kernels/build.py)", user=False),
    Setting(
        "HYBRIDLAB_SIZE_NOTE",
        "set by the grader",
        "a submission graded at the size of its own runs",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_ENGINES",
        "set by the grader",
        "on-first-use: a cluster's engines start when a run is not replayed",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_HANDOUT", "set by the grader", "where a judged cell hands its answers out",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_GRADING_EVENTS", "set by the grader", "where cell events are written", user=False
    ),
    Setting(
        "HYBRIDLAB_GRADING_BUILDS",
        "set by the grader",
        "a file naming the cache's released builds, found once per class for every sandbox",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_CELL_LIMITS",
        "set by the grader",
        "each graded cell's time limit, from its own reference time",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_REFERENCE_BUSY",
        "set by the grader",
        "the machine's load per CPU when the reference run set the limits: a limit stretches "
        "while the machine is busier",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_GRADING_SEED",
        "set by the grader",
        "the submission's seed for the hidden tests' inputs (runs made while it is set skip the "
        "core-to-core probe)",
        user=False,
    ),
    Setting(
        "HYBRIDLAB_LOCAL_JOB", "set by the kit", "1 inside a job of the local runner", user=False
    ),
)


GRADING_SEED = "HYBRIDLAB_GRADING_SEED"


def grading() -> bool:
    """This process was started by the grader for a submission (or the reference run)."""
    return bool(os.environ.get(GRADING_SEED))


def current() -> list[tuple[Setting, str | None]]:
    """Each user setting with its value in this environment (None when unset)."""
    return [(s, os.environ.get(s.name)) for s in SETTINGS if s.user]


def markdown_table() -> str:
    """The README's table of settings."""
    rows = ["| variable | default | what it does |", "|---|---|---|"]
    rows += [f"| `{s.name}` | {s.default} | {s.purpose} |" for s in SETTINGS]
    return "\n".join(rows)
