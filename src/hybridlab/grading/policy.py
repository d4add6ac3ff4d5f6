"""The grader's policy, set in grading/nbgrader_config.py as c.GradingPolicy.<name> = value: how
long a submission may take (from the solution's reference run), how often its kernel may be
restarted, how many are graded at once, whether kernel runs are replayed, whether figures are
drawn, and whether there is a sandbox at all. What one sandbox may use (memory, tasks, output,
disk) is sandbox.Limits."""

from __future__ import annotations

from traitlets import Bool, Float, Integer
from traitlets.config import Configurable


class GradingPolicy(Configurable):
    """The grader's choices for a run of `hybridlab grade`."""

    factor = Float(
        4.0, help="time limits are this many times the instructor solution's quick run"
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
