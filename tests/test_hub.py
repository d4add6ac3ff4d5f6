"""A class on a JupyterHub, end to end: real accounts, Slurm jobs, nbgrader's exchange, chromium.

The class hub of scripts/class_hub.py (the deploy/ configuration: PAM, SlurmSpawner, the exchange;
a one-node Slurm cluster; an instructor and two student accounts) is started in a scratch folder.
Then the term's story of lab 00:

1. The instructor releases lab 00 to the exchange (`hybridlab release LAB --exchange`, run as the
   instructor's account on their copy of the course).
2. Both students log in through the hub's login page (PAM, their passwords) at the same time; each
   server starts as a Slurm job of the student's own (squeue). Student A fetches the lab in
   JupyterLab's assignment list, answers every exercise with the instructor's solution, runs the
   whole notebook (the lab's engines start as a step inside A's job) and submits; student B
   fetches and submits the released notebook untouched.
3. The instructor collects, grades (sandboxed) and marks the written part, and returns feedback
   through the exchange: A full marks, B zero, A graded on A's own kernel runs (made through
   srun in A's job, matched by the sandbox's mpiexec runs: the feedback says how many). Each
   student fetches their own feedback, which shows no hidden test. From a notebook of their own,
   each student tries to read the other's home, fetched lab and submission cache, and to list the
   exchange's submissions and feedback: all refused.
4. Logging out ends each student's job; after the hub stops, nothing of it is left: no job, no
   process of the accounts or of Slurm, no account.

Timings (login to a running server, to a started cluster) go to test-artifacts/hub/timings.json
for benchmarks/RESULTS.md, never into pass/fail. Screenshots are kept beside them.

Run with `make test-hub` (installs requirements-hub.lock, the proxy from npm, and Playwright);
`make test` leaves it out (marker `hub`). Needs root, Slurm and munge, chromium, and a kit whose
Python every account can run (see scripts/class_hub.py: why_hub_cannot_run).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from test_browser import CHROMIUM, SETTINGS, launched_chromium

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from class_hub import INSTRUCTOR, STUDENTS, ClassHub, why_hub_cannot_run  # noqa: E402

from hybridlab.grading import gradebook  # noqa: E402
from hybridlab.grading.course import read_lab  # noqa: E402
from hybridlab.grading.feedback import hidden_test_lines  # noqa: E402

pytestmark = [pytest.mark.hub, pytest.mark.timeout(2400)]

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "hub"
LAB = "00_getting_started"
SOURCE = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
COURSE = "hybridlab"
A, B = STUDENTS
SPAWN_MS = 400_000  # the hub's start_timeout (300 s) and the page's own wait
RUN_SECONDS = 900  # lab 00 run whole in the browser, on a loaded machine
MS = 1000
# The culler's timeout on the test hub (deploy's default is an hour): longer than any pause of the
# story's open JupyterLab tabs, whose requests keep their servers active.
IDLE_SECONDS = 180


@pytest.fixture(scope="module")
def hub():
    why = why_hub_cannot_run()
    if why:
        pytest.skip(why)
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM}: apt-get install chromium")
    scratch = Path(tempfile.mkdtemp(prefix="hybridlab-hub-"))
    hub = ClassHub(scratch, idle_timeout=IDLE_SECONDS)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        hub.start()
        for student in STUDENTS:
            lab_settings(hub, student)
        yield hub
    finally:
        (ARTIFACTS / "jupyterhub.log").write_text(hub.hub_log())
        uids = [hub_uid(a.name) for a in hub.accounts]
        hub.stop()
        left = [f"{p.pid} {p.name()}" for p in hub.processes()]
        accounts = [a.name for a in hub.accounts if hub_uid(a.name) is not None]
        shm = [str(p) for d in ("/dev/shm", "/tmp") for p in Path(d).iterdir() if _owner(p) in uids]
        shutil.rmtree(scratch, ignore_errors=True)
        assert left == [], f"processes of the class hub left behind: {left}"
        assert accounts == [], f"accounts left behind: {accounts}"
        assert shm == [], f"files of the accounts left in /dev/shm or /tmp: {shm}"


def hub_uid(name: str) -> int | None:
    import pwd

    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def _owner(path: Path) -> int | None:
    try:
        return path.stat().st_uid
    except OSError:
        return None


def lab_settings(hub: ClassHub, student: str) -> None:
    """The student's own JupyterLab settings: every cell in the page, no autosave, no news."""
    home = hub.account(student).home
    settings = home / ".jupyter" / "lab" / "user-settings"
    for name, values in SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    shutil.chown(home / ".jupyter", student, student)
    for path in (home / ".jupyter").rglob("*"):
        shutil.chown(path, student, student)


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


# --- a student in the browser -------------------------------------------------------------------


class Student:
    """One student's browser session on the hub."""

    def __init__(self, hub: ClassHub, browser, name: str):
        self.hub, self.name = hub, name
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.base = f"{hub.url}/user/{name}"
        self.times: dict[str, float] = {}

    def shot(self, what: str) -> None:
        self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-{what}.png"))

    def log_in(self) -> None:
        """Fill the hub's login form; the server's start begins (the spawn page)."""
        page = self.page
        page.goto(f"{self.hub.url}/hub/login", timeout=60 * MS)
        page.fill("input[name=username]", self.name)
        page.fill("input[name=password]", self.hub.account(self.name).password)
        self.times["login"] = time.monotonic()
        page.click("input[type=submit], button[type=submit]")

    def wait_for_lab(self) -> None:
        """JupyterLab of the student's server has loaded (after the spawn page)."""
        self.page.wait_for_url(f"{self.base}/lab**", timeout=SPAWN_MS)
        self.page.wait_for_selector(".jp-LabShell", timeout=120 * MS)
        self.times["server"] = time.monotonic()
        self.shot("lab")

    def menu(self, menu: str, item: str) -> None:
        """Click JupyterLab's menu `menu`, then its entry `item`."""
        page = self.page
        page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
        page.locator(".lm-Menu-itemLabel", has_text=item).first.click()

    def assignments(self):
        """nbgrader's assignment list, opened from the command palette."""
        self.page.goto(f"{self.base}/lab", timeout=120 * MS)
        self.page.wait_for_selector(".jp-LabShell", timeout=120 * MS)
        self.menu("Nbgrader", "Assignment List")
        panel = self.page.locator("#nbgrader-assignment-list")
        panel.wait_for(timeout=60 * MS)
        panel.locator(".list_loading").first.wait_for(state="hidden", timeout=60 * MS)
        return panel

    def press_in_row(self, panel, lab: str, button: str) -> None:
        named = self.page.get_by_role("button", name=button, exact=True)
        row = panel.locator(".list_item:not(.nested_list_item)", has_text=lab).filter(has=named)
        row.first.wait_for(timeout=60 * MS)
        row.first.get_by_role("button", name=button, exact=True).click()

    def fetch(self) -> None:
        panel = self.assignments()
        self.press_in_row(panel, LAB, "Fetch")
        self._wait_for(self.home / COURSE / LAB / f"{LAB}.ipynb")
        self.shot("fetched")

    def submit(self) -> None:
        panel = self.assignments()
        before = self._submissions()
        self.press_in_row(panel, LAB, "Submit")
        deadline = time.monotonic() + 120
        while self._submissions() == before and time.monotonic() < deadline:
            time.sleep(1)
        assert self._submissions() != before, f"{self.name}: no submission reached the exchange"
        self.shot("submitted")

    def fetch_feedback(self) -> Path:
        panel = self.assignments()
        self.press_in_row(panel, LAB, "Fetch Feedback")
        folder = self.home / COURSE / LAB / "feedback"
        pages = self._wait_for_glob(folder, f"*/{LAB}.html")
        self.shot("feedback-fetched")
        return pages[0]

    @property
    def home(self) -> Path:
        return self.hub.account(self.name).home

    def _submissions(self) -> list[str]:
        inbound = self.hub.exchange / COURSE / "inbound"
        return (
            sorted(p.name for p in inbound.glob(f"{self.name}+{LAB}+*")) if inbound.exists() else []
        )

    def _wait_for(self, path: Path, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(1)
        assert path.exists(), f"{self.name}: {path} did not appear"

    def _wait_for_glob(self, folder: Path, pattern: str, seconds: float = 120) -> list[Path]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = sorted(folder.glob(pattern)) if folder.exists() else []
            if found:
                return found
            time.sleep(1)
        raise AssertionError(f"{self.name}: nothing like {folder / pattern} appeared")

    # --- a notebook ---

    def open_notebook(self, relative: str) -> None:
        page = self.page
        page.goto(f"{self.base}/lab/tree/{relative}", timeout=120 * MS)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120 * MS)
        page.wait_for_selector(
            ".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']",
            timeout=180 * MS,
        )

    def replace_cell(self, index: int, text: str) -> None:
        """Select cell `index`, edit it, put `text` in place of its source."""
        page = self.page
        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
        cell.scroll_into_view_if_needed()
        cell.locator(".jp-InputArea").first.click()
        page.keyboard.press("Escape")
        page.keyboard.press("Enter")  # edit mode, also for a rendered markdown cell
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(text)
        page.keyboard.press("Escape")

    def run_all(self, watch: int, on_cluster) -> None:
        """Run every cell; when cell `watch` (the one starting the cluster) has finished, note
        the time and call `on_cluster()`."""
        page = self.page
        start = time.monotonic()
        self.menu("Run", "Run All Cells")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(watch)
        deadline = start + RUN_SECONDS
        while not re.fullmatch(r"\[\d+\]:", _prompt(cell)):
            assert time.monotonic() < deadline, f"{self.name}: the cluster's cell never finished"
            time.sleep(0.5)
        self.times["cluster"] = time.monotonic()
        on_cluster()
        indicator = ".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']"
        prompts = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt")
        while True:
            busy = [t for t in prompts.all_inner_texts() if "*" in t]
            if not busy and page.locator(indicator).count():
                break
            assert time.monotonic() < deadline, f"{self.name}: lab {LAB} still running"
            time.sleep(2)
        page.keyboard.press("Control+s")
        time.sleep(3)
        self.shot("ran")

    def probe(self, code: str) -> str:
        """Run `code` in a new notebook of the student's own (hybridlab kernel); its output."""
        page = self.page
        page.goto(f"{self.base}/lab/workspaces/probe?reset", timeout=120 * MS)  # the launcher
        page.locator(".jp-LauncherCard[title*='hybridlab']").first.click()  # a new notebook
        # the kernel is connected and idle (the status bar says so)
        page.locator(
            ".jp-StatusBar-TextItem", has_text="hybridlab (Python 3, MPI) | Idle"
        ).wait_for(timeout=180 * MS)
        cell = page.locator(".jp-Notebook .jp-Cell").first
        cell.locator(".jp-InputArea").first.click()
        page.keyboard.insert_text(code)
        page.keyboard.press("Shift+Enter")
        output = cell.locator(".jp-OutputArea-output").first
        output.wait_for(timeout=120 * MS)
        self.shot("probe")
        return output.inner_text()

    def log_out(self) -> None:
        self.page.goto(f"{self.hub.url}/hub/logout", timeout=120 * MS)
        self.times["logout"] = time.monotonic()


def record_timings(a: Student, b: Student, steps_seen: list[str]) -> None:
    """Seconds from the login click to a running server (JupyterLab loaded) and, for A, to the
    lab's started cluster: test-artifacts/hub/timings.json, for benchmarks/hub_results.md."""
    timings = {
        s.name: {
            "login to running server (s)": round(s.times["server"] - s.times["login"], 1),
            "login to started cluster (s)": round(s.times["cluster"] - s.times["login"], 1)
            if "cluster" in s.times
            else None,
        }
        for s in (a, b)
    }
    timings["steps of A's job while the lab ran"] = steps_seen
    (ARTIFACTS / "timings.json").write_text(json.dumps(timings, indent=1))


def _prompt(cell) -> str:
    return cell.locator(".jp-InputPrompt").first.inner_text().strip()


def solutions() -> dict[int, str]:
    """cell index -> the instructor's answer (without nbgrader's delimiters), per answer cell."""
    source = nbformat.read(SOURCE, as_version=4)
    answers = {}
    for index, cell in enumerate(source.cells):
        if cell.metadata.get("nbgrader", {}).get("solution"):
            lines = [line for line in cell.source.splitlines() if "SOLUTION" not in line]
            answers[index] = "\n".join(lines)
    return answers


def cluster_cell() -> int:
    """The cell that starts the lab's cluster (its first `.start()`)."""
    source = nbformat.read(SOURCE, as_version=4)
    return next(i for i, c in enumerate(source.cells) if ".start()" in c.source)


def jobs(hub: ClassHub) -> dict[str, str]:
    """user -> state of the Slurm jobs the hub started (squeue)."""
    done = hub.slurm.run(["squeue", "--noheader", "--format=%u %T %j"], timeout=30)
    return {u: s for u, s, _ in (line.split() for line in done.stdout.splitlines())}


def steps(hub: ClassHub, user: str) -> list[str]:
    done = hub.slurm.run(["squeue", "--steps", "--noheader", f"--user={user}"], timeout=30)
    return done.stdout.splitlines()


PROBE = """
import os
def tries(path):
    try:
        os.listdir(path) if os.path.isdir(path) else open(path).read(1)
        return "read"
    except PermissionError:
        return "refused"
    except FileNotFoundError:
        return "missing"
print({{name: tries(path) for name, path in {paths!r}.items()}})
"""


def other_students_files(hub: ClassHub, other: str) -> dict[str, str]:
    home = hub.account(other).home
    course = hub.exchange / COURSE
    return {
        "home": str(home),
        "fetched lab": str(home / COURSE / LAB / f"{LAB}.ipynb"),
        "submission cache": str(home / ".local" / "share" / "jupyter" / "nbgrader_cache"),
        "feedback fetched": str(home / COURSE / LAB / "feedback"),
        "exchange inbound": str(course / "inbound"),
        "exchange feedback": str(course / "feedback"),
    }


# --- the story ----------------------------------------------------------------------------------


def test_a_class_on_the_hub(hub, browser):
    # 1. the instructor releases lab 00 to the exchange
    hub.instructor("release", LAB, "--exchange")
    released = hub.exchange / COURSE / "outbound" / LAB / f"{LAB}.ipynb"
    assert released.is_file(), "the lab is not in the exchange"

    # 2. both students log in at the same time; each server is a Slurm job of their own
    a, b = Student(hub, browser, A), Student(hub, browser, B)
    a.log_in()
    b.log_in()
    a.wait_for_lab()
    b.wait_for_lab()
    running = jobs(hub)
    assert running == {A: "RUNNING", B: "RUNNING"}, f"squeue: {running}"

    a.fetch()
    b.fetch()
    b.submit()  # the released notebook, untouched

    a.open_notebook(f"{COURSE}/{LAB}/{LAB}.ipynb")
    for index, text in solutions().items():
        a.replace_cell(index, text)
    during: list[str] = []
    watch = cluster_cell()
    a.run_all(watch, lambda: during.extend(steps(hub, A)))
    # the engines are a step of A's own job, beside the batch script and JupyterLab's step (.0)
    step_ids = [line.split()[0].split(".", 1)[1] for line in during]
    assert set(step_ids) - {"batch", "0"}, f"no step of the engines in A's job: {during}"
    ran = nbformat.read(a.home / COURSE / LAB / f"{LAB}.ipynb", as_version=4)
    errors = [
        f"cell {i}: {o['ename']}: {o['evalue'][:200]}"
        for i, c in enumerate(ran.cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == [], "A's answered lab raised:\n" + "\n".join(errors)
    shown = "\n".join(o.get("data", {}).get("text/plain", "") for o in ran.cells[watch].outputs)
    assert re.search(r"Cluster\(ranks=2, threads=1, .*srun", shown), shown
    record_timings(a, b, during)
    a.submit()

    # 3. the instructor collects, grades, marks the written part, returns feedback
    hub.instructor("collect", LAB, "--exchange")
    hub.instructor("grade", LAB)
    hub.instructor("mark", LAB, A, "written_piling", "2", "--comment", "measured and explained")
    hub.instructor("mark", LAB, B, "written_piling", "0", "--comment", "no answer")
    hub.instructor("feedback", LAB, "--exchange")
    course = hub.account(INSTRUCTOR).home / "course" / "grading"
    scores = gradebook.scores(read_lab(course, LAB))
    most = sum(scores[A].values())
    assert most > 0 and all(v == 0 for v in scores[B].values()), scores
    total = nbformat.read(SOURCE, as_version=4)
    points = sum(
        float(c.metadata["nbgrader"].get("points", 0))
        for c in total.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )
    assert most == points, f"A scored {most} of {points}: {scores[A]}"
    # A's kernel runs, made through srun in A's job, were the ones grading used (its sandbox
    # launches with mpiexec): every run grading made matched one of them
    notes = "; ".join(gradebook.load_records(read_lab(course, LAB))[A]["notes"])
    matched = re.search(r"own runs matched: (\d+) of (\d+) kernel run", notes)
    assert matched and int(matched[1]) == int(matched[2]) > 0, notes

    hidden = hidden_test_lines(read_lab(course, LAB))
    for student, score in ((a, points), (b, 0)):
        page = student.fetch_feedback()
        text = page.read_text()
        assert not [line for line in hidden if line in text], f"{student.name}: hidden test shown"
        assert re.search(rf"Score:\s*{score:g}(\.0)?\s*/\s*{points:g}", text), student.name
        if student is a:  # the feedback says how many of A's runs were checked and matched
            said = re.search(r"Own runs: (\d+) file\(s\) of your runs folder checked, (\d+) "
                             r"usable; (\d+) of the (\d+) kernel run", text)  # fmt: skip
            assert said and said[3] == said[4] == matched[1], said and said.group(0)
        student.page.goto(f"{student.base}/files/{page.relative_to(student.home)}")
        student.shot("feedback")
        assert f"{score:g}" in student.page.inner_text("body")

    # ... and neither student can read the other's work
    for student, other in ((a, B), (b, A)):
        seen = student.probe(PROBE.format(paths=other_students_files(hub, other)))
        tried = ast.literal_eval(seen.strip().splitlines()[-1])  # the dict the probe printed
        assert set(tried.values()) == {"refused"}, f"{student.name} reading {other}'s: {tried}"

    # 4. logging out ends each student's job
    for student in (a, b):
        student.log_out()
    deadline = time.monotonic() + 120
    while jobs(hub) and time.monotonic() < deadline:
        time.sleep(2)
    assert jobs(hub) == {}, f"jobs left after logging out: {jobs(hub)}"


# --- the book, and idle servers -----------------------------------------------------------------


def test_the_book_is_a_path_of_the_students_server(hub, browser):
    """A released lab's link to its book chapter (/hub/user-redirect/hybridlab/book/...) leads to
    the page served by the student's own server (hybridlab.course.bookserver), under /user/<name>/."""
    released = nbformat.read(ROOT / "labs" / f"{LAB}.ipynb", as_version=4)
    link = re.search(r"\]\((/hub/user-redirect/hybridlab/book/[^)]+)\)", released.cells[0].source)
    assert link, "lab 00's first cell has no link to its book chapter"
    chapter = (ROOT / "book" / "labs" / f"{LAB}.md").read_text().splitlines()[0].lstrip("# ")
    student = Student(hub, browser, B)
    student.log_in()
    student.wait_for_lab()
    response = student.page.goto(f"{hub.url}{link.group(1)}", timeout=120 * MS)
    student.shot("book")
    assert response is not None and response.status == 200, response and response.status
    assert student.page.url == f"{student.base}/hybridlab/book/labs/{LAB}.html", student.page.url
    assert student.page.title().startswith(chapter), student.page.title()
    student.log_out()
    student.context.close()
    deadline = time.monotonic() + 120
    while B in jobs(hub) and time.monotonic() < deadline:
        time.sleep(2)
    assert B not in jobs(hub), f"{B}'s job left after logging out: {jobs(hub)}"


def test_an_idle_server_is_culled_and_its_job_ends(hub, browser):
    """jupyterhub-idle-culler, a service of the hub: a student who closes the tab without logging
    out leaves an idle server; after the idle timeout it is stopped, and its Slurm job ends."""
    student = Student(hub, browser, A)
    student.log_in()
    student.wait_for_lab()
    assert jobs(hub).get(A) == "RUNNING", jobs(hub)
    student.context.close()  # the tab closed: no request reaches the server any more
    closed = time.monotonic()
    deadline = closed + IDLE_SECONDS + 300  # the timeout, the culler's and the hub's intervals
    while A in jobs(hub) and time.monotonic() < deadline:
        time.sleep(5)
    assert A not in jobs(hub), f"{A}'s idle server still runs after {IDLE_SECONDS} s: {jobs(hub)}"
    log = (hub.hub_dir / "jupyterhub.log").read_text(errors="replace")
    assert re.search(rf"Culling server {A}\b", log), "the job ended, but not by the culler"
    gone = round(time.monotonic() - closed, 1)
    culled = {"idle timeout (s)": IDLE_SECONDS, "tab closed to job gone (s)": gone}
    (ARTIFACTS / "culled.json").write_text(json.dumps(culled, indent=1))
