"""The grader's policy, set in grading/nbgrader_config.py as c.GradingPolicy.<name> = value: how
long a submission may take (from the solution's reference run), how often its kernel may be
restarted, how many are graded at once, whether kernel runs are replayed, whether figures are
drawn, whether there is a sandbox at all, and the problem sizes the course grades at. What one sandbox may use (memory, tasks, output,
disk) is sandbox.Limits. A time limit stretches while the machine is busier than it was when
the solution's reference run set it (load_allowance)."""

from __future__ import annotations

import os

from traitlets import Bool, Float, Integer, TraitError, Unicode, validate
from traitlets.config import Configurable

from ..runs.course_size import DEFAULT, SIZES


class GradingPolicy(Configurable):
    """The grader's choices for a run of `hybridlab grade`."""

    size = Unicode(
        DEFAULT,
        help="the problem sizes the course grades at: 'full' (the default) or 'quick' "
        "(HYBRIDLAB_QUICK=1, the labs' small sizes); `hybridlab release` tells the released labs, which then run at "
        "it by default, and a submission whose own runs are of the other size is graded at "
        "theirs when the solution's reference run of that size can be made",
    ).tag(config=True)
    factor = Float(
        4.0, help="time limits are this many times the instructor solution's run at the size graded"
    ).tag(config=True)
    cell_minimum = Integer(
        60, help="seconds: the shortest limit of a cell that is not graded (no reference time)"
    ).tag(config=True)
    graded_cell_minimum = Integer(
        10, help="seconds: the shortest limit of a graded cell (factor x its own reference time)"
    ).tag(config=True)
    submission_minimum = Integer(240, help="seconds: the shortest submission time limit").tag(
        config=True
    )
    restarts = Integer(
        4, help="kernel restarts per submission (a cell that kills or hangs the kernel)"
    ).tag(config=True)
    jobs = Integer(0, help="submissions graded at once; 0: from the cores and the lab").tag(
        config=True
    )
    replay_runs = Bool(
        True,
        help="give each submission the solution's recorded output for the same kernel run "
        "instead of measuring it again (replay.py); False: every submission measures",
    ).tag(config=True)
    draw_figures = Bool(
        False,
        help="draw each figure into the graded notebook (about 0.5-0.8 s each on 2 cores); False: "
        "a figure shows as its text line, '<Figure size ... with N Axes>' (the student's own "
        "notebook keeps the drawn figures)",
    ).tag(config=True)
    unsandboxed = Bool(
        False, help="grade WITHOUT a sandbox (trusted code only); loudly reported"
    ).tag(config=True)

    @validate("size")
    def _size(self, proposal):
        if proposal["value"] not in SIZES:
            raise TraitError(
                f"c.GradingPolicy.size = {proposal['value']!r} in nbgrader_config.py: "
                f"the grading size is {' or '.join(repr(s) for s in SIZES)}"
            )
        return proposal["value"]

    @property
    def quick(self) -> bool:
        return self.size == "quick"


# a limit stretches at most this many times for the machine's load: a hung cell still ends
LOAD_ALLOWANCE_CAP = 4.0


def busy() -> float:
    """How oversubscribed the machine is now: the 1-minute load average per usable CPU, at
    least 1 (a machine with a CPU to spare runs a cell at full speed)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1.0, os.getloadavg()[0] / max(1, cpus or 1))


def load_allowance(reference_busy: float, now: float | None = None) -> float:
    """How many times its limit a cell may take because the machine is busier now than when the
    solution's reference run measured the cell: busy now / busy then, from 1 to the cap. So a
    right answer graded on a loaded machine (a class graded 3 at a time, a shared hub) is not
    cut off for the load, and one graded on a quiet machine gets the limit unchanged."""
    current = busy() if now is None else now
    return min(LOAD_ALLOWANCE_CAP, max(1.0, current / max(1.0, reference_busy)))
