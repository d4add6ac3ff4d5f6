"""nbgrader configuration of the hybridlab course: this folder is the course folder.

Every path is derived from this file's own location, so a copy of the folder (for example the
grading tests' temporary copy) is a complete course of its own. Run nbgrader from this folder,
or use `hybridlab release` / `hybridlab grade LAB` (src/hybridlab/grading/), which do.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

HERE = Path(__file__).resolve().parent

c.CourseDirectory.root = str(HERE)
c.CourseDirectory.course_id = "hybridlab"
# nbgrader's exchange: on a class hub the shared folder its servers use (HYBRIDLAB_EXCHANGE, set by
# deploy/jupyterhub_config.py; /srv/nbgrader/exchange there by default), else course-local
# (gitignored). Fetched labs go to ~/hybridlab/<lab>/, as the students' servers are configured
# (deploy/jupyter/nbgrader_config.py).
c.Exchange.root = os.environ.get("HYBRIDLAB_EXCHANGE") or str(HERE / "exchange")
c.Exchange.path_includes_course = True

# Release: C cells (`%%c`, hybridlab.kernels.c_cells) get a C stub, not Python's NotImplementedError.
from hybridlab.grading.c_stub import release_preprocessors  # noqa: E402

c.GenerateAssignment.preprocessors = release_preprocessors()

# Lab 10's batch-job folder (<stem>_job/: the built program, the jobs' output) is neither released
# nor submitted. (The kernel runs folder, <stem>_runs/, must travel with a submission: release
# removes the instructor's own, hybridlab.grading.course.release.)
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*_job"]

# Seconds per cell when nbgrader runs a notebook itself (e.g. `nbgrader autograde` by hand).
# `hybridlab grade` derives tighter limits from the solution's own run (GradingPolicy below).
c.Execute.timeout = 300

# Autograde: nbgrader's Execute step replaced by the sandboxed one (src/hybridlab/grading/
# execute.py): each submission's kernel runs in bubblewrap, output is capped, the tests' tools
# are guarded, a kernel that dies or hangs costs only its part.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "hybridlab.grading.submissions.ForgetUnknownCells",  # renamed cells: plain, not fatal
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "hybridlab.grading.execute.SandboxedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# What one sandbox may use (hybridlab.grading.sandbox.Limits; these are the defaults).
c.Limits.memory_mb = 3072  # the whole sandbox: kernel, controller, engines (cgroup or rlimit)
c.Limits.tasks = 768  # processes + threads in one sandbox (cgroup pids.max)
c.Limits.output_bytes = 200_000  # kept per cell; the rest is cut with a marker
c.Limits.disk_mb = 1024  # each writable folder (work, /tmp, /dev/shm): a tmpfs in the memory cgroup
c.Limits.sandbox_user = "hybridlab-grader"  # kernels run as this user when grading as root

# The grader's policy (hybridlab.grading.policy.GradingPolicy; these are the defaults).
# The problem sizes this course grades at: "quick" (the labs' small sizes, HYBRIDLAB_QUICK=1) or
# "full". `hybridlab release` writes it beside the released labs (labs/.hybridlab-course.json),
# which then run at it unless HYBRIDLAB_QUICK says otherwise; `hybridlab grade --quick/--full`
# overrides it for one run. A submission whose own runs are of the other size is graded at theirs.
c.GradingPolicy.size = "quick"
c.GradingPolicy.factor = 4.0  # time limits = factor x the solution's quick run (cell and notebook)
c.GradingPolicy.cell_minimum = 60  # seconds, at least, per cell
c.GradingPolicy.submission_minimum = 240  # seconds, at least, per submission
c.GradingPolicy.restarts = 4  # fresh sandboxes per submission after a cell kills or hangs the kernel
c.GradingPolicy.jobs = 0  # submissions at once; 0: twice the cores / (ranks x threads of the lab)
c.GradingPolicy.replay_runs = True  # submissions get the solution's kernel runs back (replay.py)
c.GradingPolicy.draw_figures = False  # True draws figures into graded notebooks (0.5-0.8 s each)
c.GradingPolicy.unsandboxed = False  # True grades WITHOUT a sandbox: trusted code only

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Feedback: nbgrader renders the autograded notebook, into which autograde has copied the hidden
# tests back (and their tracebacks quote them). HideHiddenTests (src/hybridlab/grading/feedback.py)
# removes both before rendering; `hybridlab grade` then checks the HTML for any hidden line.
# Named by string, so hybridlab is imported only when feedback is generated.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "hybridlab.grading.feedback.HideHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
