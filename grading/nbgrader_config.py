"""nbgrader configuration of the hybridlab course: this folder is the course folder.

Every path is derived from this file's own location, so a copy of the folder (for example the
grading tests' temporary copy) is a complete course of its own. Run nbgrader from this folder,
or use `hybridlab release` / `hybridlab grade LAB` (src/hybridlab/grading.py), which do.
"""

from pathlib import Path

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

HERE = Path(__file__).resolve().parent

c.CourseDirectory.root = str(HERE)
c.CourseDirectory.course_id = "hybridlab"
# course-local exchange (gitignored), instead of the system-wide /srv/nbgrader/exchange
c.Exchange.root = str(HERE / "exchange")

# Seconds per cell. There is no per-cell override, and the default 30 s is too short for cells
# that start MPI engines; a deadlocked exercise is stopped sooner by the lab's own timeouts.
c.Execute.timeout = 300

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Feedback: nbgrader renders the autograded notebook, into which autograde has copied the hidden
# tests back (and their tracebacks quote them). HideHiddenTests (src/hybridlab/grading.py)
# removes both before rendering; `hybridlab grade` then checks the HTML for any hidden line.
# Named by string, so hybridlab is imported only when feedback is generated.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "hybridlab.grading.HideHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
