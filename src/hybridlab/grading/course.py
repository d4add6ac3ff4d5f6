"""The course folder: its labs, nbgrader run inside it, release, the grading lock, limits.

    release()   grading/source/<lab>/ -> nbgrader generate_assignment -> labs/ (no outputs),
                with the course's grading size beside them (course_size.FILE)

nbgrader runs as a subprocess from the course folder (its nbgrader_config.py sets the course).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..course.notebooks import headless_environment
from ..paths import KERNELS_FOLDER, grading_dir, labs_dir
from ..runs import course_size

GRADING = grading_dir(must_exist=False)
LABS = labs_dir(must_exist=False)
COURSE_ID = "hybridlab"
RELEASE_TIMEOUT = 600  # seconds for one `nbgrader generate_assignment`
OUTPUT_TAIL = 3000  # characters of nbgrader's log quoted in an error
LOCK = ".grading.lock"
COURSE_KERNELS = "HYBRIDLAB_COURSE_KERNELS"  # paths.course_kernels_dirs
HEADING = re.compile(r"^#{2,4}\s+(?P<title>\S.*)$")  # a part's title: the heading above it
TITLE_CHARS = 60


class GradingError(RuntimeError):
    """Releasing or grading could not be done; the message says why and what to do."""


def known_labs(root: Path = GRADING) -> list[str]:
    """Labs with an instructor notebook: grading/source/<lab>/<lab>.ipynb."""
    source = Path(root) / "source"
    return sorted(d.name for d in source.glob("*") if (d / f"{d.name}.ipynb").is_file())


def check_labs(labs: list[str], root: Path) -> None:
    known = known_labs(root)
    unknown = [lab for lab in labs if lab not in known]
    if unknown:
        raise GradingError(
            f"unknown lab(s): {', '.join(unknown)}; known labs: {', '.join(known) or 'none'} "
            f"(from {Path(root) / 'source'})"
        )


def course_environment(root: Path) -> dict[str, str]:
    """What grading adds to the environment of a course's runs: its own kernels folder
    (`<root>/kernels`, searched after kernels_c/) when it has one and none is set already."""
    folder = Path(root).resolve() / "kernels"
    if folder.is_dir() and not os.environ.get(COURSE_KERNELS):
        return {COURSE_KERNELS: str(folder)}
    return {}


def source_notebook(root: Path, lab: str) -> Path:
    return Path(root) / "source" / lab / f"{lab}.ipynb"


def db_url(root: Path, *, wait: float = 120) -> str:
    """The gradebook; several nbgrader processes write it at once, so SQLite waits for locks."""
    return f"sqlite:///{Path(root).resolve() / 'gradebook.db'}?timeout={wait:g}"


def nbgrader(
    args: list[str],
    root: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess:
    """Run the venv's nbgrader in the course folder; raise GradingError with its log on failure."""
    exe = Path(sys.executable).parent / "nbgrader"
    if not exe.exists():
        raise GradingError(f"no nbgrader next to {sys.executable}: run `make setup`")
    if not (Path(root) / "nbgrader_config.py").is_file():
        raise GradingError(f"{root} has no nbgrader_config.py: it is not a course folder")
    try:
        done = subprocess.run(
            [str(exe), *args, f"--CourseDirectory.db_url={db_url(root)}"],
            cwd=root,
            env=env or headless_environment(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise GradingError(f"`nbgrader {' '.join(args)}` took longer than {timeout:g} s") from err
    if check and done.returncode != 0:
        log = (done.stdout + done.stderr)[-OUTPUT_TAIL:]
        raise GradingError(f"`nbgrader {' '.join(args)}` failed ({done.returncode}):\n{log}")
    return done


def load_config(root: Path):
    """The course's nbgrader_config.py as a traitlets Config (for the grading limits)."""
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()


def grading_policy(root: Path, config=None):
    """The course's GradingPolicy; a GradingError names a setting it cannot take (such as a
    grading size other than quick or full)."""
    from traitlets import TraitError

    from .policy import GradingPolicy

    try:
        return GradingPolicy(config=load_config(root) if config is None else config)
    except TraitError as err:
        raise GradingError(f"{Path(root) / 'nbgrader_config.py'}: {err}") from err


@contextmanager
def grading_lock(root: Path, *, wait: bool = False):
    """One grader per course at a time: a second one refuses (or, with wait, waits)."""
    path = Path(root) / LOCK
    with open(path, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            raise GradingError(
                f"another grader is working on {root} ({holder}); wait for it to finish, "
                "or run with --wait to queue behind it"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}")
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()
            fcntl.flock(f, fcntl.LOCK_UN)


def check_kernel(lab: Lab) -> None:
    """The Jupyter kernel the lab names must be installed, or every submission would fail."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(lab.kernel)
    except NoSuchKernel as err:
        raise GradingError(
            f"{lab.name} runs on the Jupyter kernel '{lab.kernel}', which is not installed: "
            "run `make setup` (or python -m hybridlab.course.kernelspec)"
        ) from err


def in_gradebook(root: Path, lab: str) -> bool:
    from nbgrader.api import Gradebook, MissingEntry

    if not (Path(root) / "gradebook.db").exists():
        return False
    with Gradebook(db_url(root), course_id=COURSE_ID) as gb:
        try:
            return bool(gb.find_assignment(lab).notebooks)
        except MissingEntry:
            return False


def release(
    labs: list[str] | None = None, *, root: Path = GRADING, labs_dir: Path = LABS
) -> list[Path]:
    """Generate the student version of each lab (all by default) and copy it to labs_dir."""
    root, labs_dir = Path(root), Path(labs_dir)
    names = list(labs) if labs else known_labs(root)
    if not names:
        raise GradingError(f"no labs found in {root / 'source'}")
    check_labs(names, root)
    size = grading_policy(root).size  # the released labs run at it by default
    written = []
    for lab in names:
        try:
            nbgrader(["generate_assignment", lab, "--force"], root, timeout=RELEASE_TIMEOUT)
        except GradingError as err:
            if "Cannot add or remove cells" not in str(err):
                raise
            raise GradingError(
                f"{lab} has grades of cells its notebook no longer has, and nbgrader will not "
                f"release it over them: run `hybridlab release {lab} --after-grading`, which "
                "keeps the manual grades of the parts that remain, regrades, and says what it "
                "dropped"
            ) from None
        released = root / "release" / lab / f"{lab}.ipynb"
        for kept in (root / "release" / lab).glob("*_runs"):
            shutil.rmtree(kept)  # runs of the instructor's notebook (own_runs.py) stay home
        if not released.is_file():
            raise GradingError(f"nbgrader did not write {released}")
        nb = nbformat.read(released, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        labs_dir.mkdir(parents=True, exist_ok=True)
        target = labs_dir / f"{lab}.ipynb"
        nbformat.write(nb, target)
        course_size.write(labs_dir, size)
        course_size.write(root / "release" / lab, size)  # handed out by the exchange
        written.append(target)
    released_to = [labs_dir, *(root / "release" / lab for lab in names)]
    _copy_course_kernels(root / KERNELS_FOLDER, released_to)
    return written


def _copy_course_kernels(kernels: Path, targets: list[Path]) -> None:
    """The course's own kernels (<course>/kernels/) into each target's kernels/: a student's
    machine, the image and the exchange have the released labs but no course folder."""
    if not kernels.is_dir() or not any(kernels.iterdir()):
        return
    for target in targets:
        shutil.copytree(kernels, target / KERNELS_FOLDER, dirs_exist_ok=True)


@dataclass(frozen=True)
class Lab:
    """One lab of a course, its instructor notebook read once (`read_lab`): what release, grading,
    feedback and the gradebook need of it, handed from one to the next."""

    root: Path  # the course folder
    name: str
    text: str  # the instructor notebook, as read
    parts: dict[str, float]  # grade_id -> points of every graded cell, in notebook order
    manual: dict[str, float]  # the parts graded by hand (graded answer cells: written_*, ...)
    kernel: str  # the Jupyter kernel it runs on

    @property
    def source(self) -> Path:
        return source_notebook(self.root, self.name)

    @property
    def digest(self) -> str:
        """A short hash of the instructor notebook: its version."""
        return hashlib.sha1(self.text.encode()).hexdigest()[:12]

    def notebook(self) -> nbformat.NotebookNode:
        """A fresh copy of the instructor notebook (to execute or edit)."""
        return nbformat.reads(self.text, as_version=4)

    @property
    def cells(self) -> set[str]:
        """The id of every nbgrader cell of the lab (graded or not)."""
        return {
            c.metadata["nbgrader"]["grade_id"]
            for c in self.notebook().cells
            if "grade_id" in c.metadata.get("nbgrader", {})
        }

    def titles(self) -> dict[str, str]:
        """grade_id -> how the notebook names the part to students: the last heading above its
        cell ("(b) Locate the knee", "2. A Cartesian communicator"), cut at TITLE_CHARS, with
        ", part 2" where two parts share a heading and "(written)" for a part graded by hand;
        the id itself when no heading comes before it."""
        found, heading, seen = {}, None, Counter()
        for cell in self.notebook().cells:
            if cell.cell_type == "markdown":
                for line in cell.source.splitlines():
                    match = HEADING.match(line)
                    if match and "SOLUTION" not in match["title"]:
                        text = match["title"].strip()
                        cut = len(text) > TITLE_CHARS
                        heading = text[: TITLE_CHARS - 3].rstrip() + "..." if cut else text
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id not in self.parts:
                continue
            title = heading or grade_id
            seen[title] += 1
            title += f", part {seen[title]}" if seen[title] > 1 else ""
            written = grade_id in self.manual and "written" not in title.lower()
            found[grade_id] = title + (" (written)" if written else "")
        return found


def read_lab(root: Path, name: str) -> Lab:
    """The lab `name` of the course in `root`, read once; GradingError when it has none."""
    check_labs([name], Path(root))
    text = source_notebook(root, name).read_text()
    nb = nbformat.reads(text, as_version=4)
    graded = [
        c.metadata["nbgrader"] for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
    ]
    return Lab(
        root=Path(root),
        name=name,
        text=text,
        parts={m["grade_id"]: float(m.get("points", 0)) for m in graded},
        manual={m["grade_id"]: float(m.get("points", 0)) for m in graded if m.get("solution")},
        kernel=nb.metadata.get("kernelspec", {}).get("name", "python3"),
    )
