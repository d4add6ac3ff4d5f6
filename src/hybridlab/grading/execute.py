"""nbgrader's Execute step, sandboxed, limited and guarded (named in grading/nbgrader_config.py).

SandboxedExecute replaces nbgrader's Execute in autograde's preprocessors. For one submission:
  - the kernel runs in a bubblewrap sandbox (sandbox.SandboxedKernelManager);
  - output kept per cell is capped (Limits.output_bytes), the rest cut with a marker;
  - guard cells (see _guard) are inserted before running and removed afterwards: one capturing
    the pristine tools before any student cell (and, unless GradingPolicy.draw_figures, turning
    off the drawing of figures: a figure costs 0.5-0.8 s, a notebook draws ten or more), one
    restoring them before each test cell, one remembering the helpers each instructor cell
    defined;
  - each test cell ends with the guard's check that no test tool changed while it ran (a student
    function the test calls may replace numpy.allclose and put it back): if one did, the part
    scores zero with "test tool changed" in its feedback;
  - each test cell then prints a per-run random token, and a test cell scores only if the token
    arrived (the cell ran to its end) and its reply was not an error;
  - a judged test cell (judge.py) reaches the kernel without its judge blocks: it hands the
    student's answers out (handout.py, through a pipe each kernel inherits, handout.Channel) and the
    reference and the comparison run afterwards in the grader's own fresh process; a failure
    there is the cell's error, so the part scores zero as if the test had failed in the kernel;
  - a cell that fills a writable folder of the sandbox (Limits.disk_mb) is treated like one that
    kills the kernel: zero for it, the notebook run again without it;
  - a cell that kills the kernel (os._exit, a segfault, the memory limit) or hangs past the cell
    time limit gets an error and zero; the notebook is then run again in a fresh sandbox without
    that cell (up to GradingPolicy.restarts times), so the other parts are still graded;
  - past the submission deadline the remaining cells are not run (their tests score zero); the
    seconds of cells that ran past the cell time limit do not count (each is bounded by that
    limit and zeroed already: a deadlocked part must not cost the parts after it);
  - of a "tests you can run" cell (no points) only the statements that define what another cell
    reads are run (self_checks.py), none when it defines nothing read: its output says so;
  - under each test cell a line says which data the kernel runs made up to it came from (the
    student's own runs, the reference run and why, or measured during grading: replay.py logs
    each run to $HYBRIDLAB_RUNS_LOG in the kernel's working folder).
What happened is appended as JSON lines to $HYBRIDLAB_GRADING_EVENTS for the grader's report.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import os
import time
import uuid
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbgrader.preprocessors import Execute
from traitlets import Bool, Float

from ..course import hidden_inputs
from ..runs import own_runs, replay
from . import _guard, apart, handout, hidden_names, judge, self_checks
from ._guard import CHANGED, TAMPER
from .policy import GradingPolicy, load_allowance
from .sandbox import Limits, SandboxedKernelManager

EVENTS = "HYBRIDLAB_GRADING_EVENTS"
CELL_LIMITS = "HYBRIDLAB_CELL_LIMITS"  # JSON: grade_id -> seconds (reference.time_limits)
REFERENCE_BUSY = "HYBRIDLAB_REFERENCE_BUSY"  # the load the limits were measured at (policy.busy)
DONE = "HYBRIDLAB-DONE"
CUT = "\n[... output cut by the grader: more than {n} bytes in this cell ...]\n"
DISK_FULL = ("No space left on device", "[Errno 28]", "Disk quota exceeded")
# errors the grader puts in a test cell: their message quotes no hidden test (feedback shows it)
GRADER_ERRORS = {
    "TestToolChanged",
    "NotGraded",
    "IncompleteTest",
    "SubmissionTimeLimit",
    "HandOutMismatch",
    judge.NOT_JUDGED,
    apart.NOT_GRADED,
}


RUNS_LOG = ".hybridlab-runs-log.jsonl"  # in the kernel's working folder (replay.LOG)
SOURCES = {
    "own": "your own runs",
    "reference": "the reference run",
    "measured": "measured during grading",
}
NAMES_SHOWN = 3  # kernels named per source in the line under a test cell
DATA = "Data: "  # starts the line under each test cell (feedback keeps it)
LOG_BYTES = 2**20  # read per cell at most
# Set before the notebook's first cell (GradingPolicy.draw_figures False): the inline backend
# then shows each figure as its text line and closes it, drawing nothing; nor is a figure laid
# out until it is drawn (undrawn.py).
NO_FIGURES = (
    "get_ipython().run_line_magic('config', 'InlineBackend.figure_formats = set()')\n"
    "__import__('hybridlab.grading.undrawn').grading.undrawn.defer_layout(get_ipython())"
)
# Set before the notebook's first cell, always: a cell's error is shown as the same traceback
# without colours. Coloured, IPython highlights every line of it (pygments): 9 ms of CPU more an
# error, and a blank or half-done submission raises one in each cell it left (the feedback page
# shows the same text, uncoloured).
PLAIN_TRACEBACKS = "get_ipython().run_line_magic('colors', 'nocolor')"


def describe(runs: list[dict]) -> str:
    """'your own runs (3: ring, pingpong), the reference run (1: halo2d): why' for a list of
    logged runs: how many came from where, of what (the kernels or programs, NAMES_SHOWN at
    most), and why they did not come from the student's own runs."""
    if not runs:
        return "no kernel runs"
    parts = []
    for source, words in SOURCES.items():
        mine = [r for r in runs if r["source"] == source]
        if not mine:
            continue
        names = sorted({str(r.get("name") or "?") for r in mine})
        more = ", ..." if len(names) > NAMES_SHOWN else ""
        whys = sorted({str(r.get("why") or "") for r in mine} - {""})
        why = f": {'; '.join(whys[:2])}{'; ...' if len(whys) > 2 else ''}" if whys else ""
        parts.append(f"{words} ({len(mine)}: {', '.join(names[:NAMES_SHOWN])}{more}){why}")
    return ", ".join(parts)


def own_runs_matched(runs: list[dict]) -> str:
    """How many run files of the submission's runs folder were checked and passed, and how many
    of the kernel runs grading made matched one of them (own_runs.check wrote the first in the
    checked copy, $HYBRIDLAB_OWN_RUNS); "" when grading replays nothing."""
    own = os.environ.get(replay.OWN)
    if not own:
        return ""
    try:
        checked = json.loads((Path(own) / replay.CHECKED).read_text())
    except (OSError, ValueError):
        checked = {}
    matched = sum(r["source"] == "own" for r in runs)
    if checked.get("problem"):
        return (
            f"your runs folder was not used ({checked['problem']}): none of the {len(runs)} "
            "kernel run(s) grading made came from it"
        )
    used = checked.get("used", 0)
    return (
        f"{used + len(checked.get('rejected', {}))} file(s) of your runs folder checked, "
        f"{used} usable; {matched} of the {len(runs)} kernel run(s) grading made matched one of "
        "them and were given back"
    )


def data_note(since: list[dict], before: list[dict], own: str = "") -> str:
    """The line under a test cell: where the runs it could use came from (and `own`, the first
    test's: own_runs_matched)."""
    text = f"{DATA}runs made since the previous test: {describe(since)}."
    if before:
        text += f" Runs made before: {describe(before)}."
    if own:
        text += f" Own runs: {own}."
    if os.environ.get(hidden_inputs.SEED_ENV):
        text += f" Hidden inputs drawn with seed {hidden_inputs.seed()}."
    size = os.environ.get(own_runs.SIZE_NOTE)  # graded at the size of the student's own runs
    if size:
        text += f" {size[:1].upper()}{size[1:]}."
    return text + "\n"


# Why a cell stopped the kernel, as a code the grade's outcome is read from (autograde._outcome);
# the text beside it is for people and may be reworded freely.
TIME, MEMORY, DISK, DIED = "time", "memory", "disk", "died"
DEADLINE, INCOMPLETE = "deadline", "incomplete"  # why a test cell scored zero without running


class _Restart(Exception):
    def __init__(self, index: int, code: str, reason: str):
        super().__init__(reason)
        self.index, self.code, self.reason = index, code, reason


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {}) if cell.cell_type == "code" else {}


def cell_key(cell, index: int | None = None) -> str:
    """A cell's name across notebooks: its nbgrader grade_id, else `#<index>` (its place)."""
    return _nbgrader(cell).get("grade_id") or f"#{index}"


def is_test(cell) -> bool:
    meta = _nbgrader(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


def _defined_names(source: str) -> list[str]:
    """Functions, classes and imports bound at the top level of an instructor cell."""
    try:
        tree = ast.parse(
            "\n".join(line for line in source.splitlines() if not line.startswith("%"))
        )
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    return names


def _lab_sources(released: list[Path]) -> set[str]:
    """The sources of the lab's own code cells (neither answer nor test) as released."""
    found = set()
    for path in released:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and not is_test(cell):
                if not _nbgrader(cell).get("solution"):
                    found.add(cell.source.strip())
    return found


def _add_judgement(cell, result: dict) -> None:
    """The judge's notes (stdout) and failure (the cell's error) under a judged test cell."""
    if result["notes"]:
        cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=result["notes"]))
    if result["error"]:
        cell.outputs.append(_error(*result["error"]))


def _code(source: str, injected: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["hybridlab"] = injected
    return cell


STDERR_NOTE = "[written to stderr while the test ran (a warning?): shown here, not scored]\n"


def _stderr_shown(output: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A test cell's stderr text on stdout, under a note: nbgrader scores a test cell with any
    stderr output 0, and no test of the kit writes there, so only the student's code did (a
    library's warning: pandas' FutureWarning about a string set into a float Series zeroed a
    right answer with no reason given, a fresh attacker's F04h, 2026-12-04). What fails a part
    is an error; the grader's own cut of a flood of output stays on stderr."""
    if output.get("output_type") != "stream" or output.get("name") != "stderr":
        return output
    text = output.get("text", "")
    if CUT.strip().split(":")[0] in text:  # "[... output cut by the grader"
        return output
    return nbformat.v4.new_output("stream", name="stdout", text=STDERR_NOTE + text)


def _error(ename: str, evalue: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output(
        "error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"]
    )


class SandboxedExecute(Execute):
    sandbox = Bool(True, help="run the kernel in bubblewrap (False: --unsandboxed)").tag(
        config=True
    )
    deadline = Float(0, help="seconds for the whole notebook (0: none)").tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.limits = Limits(parent=self)
        self.policy = GradingPolicy(parent=self)
        self.kernel_manager_class = SandboxedKernelManager if self.sandbox else AsyncKernelManager
        # a flood of output may still be arriving after the reply: let it drain (the cap drops
        # it) instead of failing the whole notebook, as nbgrader's default would
        self.raise_on_iopub_timeout = False
        self.iopub_timeout = max(self.iopub_timeout, 30)
        # seconds per graded cell (grade_id -> limit, reference.time_limits); others: `timeout`
        self.cell_limits = json.loads(os.environ.get(CELL_LIMITS) or "{}")
        self.reference_busy = float(os.environ.get(REFERENCE_BUSY) or 1.0)
        self._stretch, self._limit = 1.0, None  # the running cell's load allowance and limit
        self._lab_sources: set[str] | None = None  # the released lab's own cells (preprocess)

    def _get_timeout(self, cell):
        """The cell's own limit (from its reference time) when it is a graded cell, else the
        cell limit; either stretched while the machine is busier than at the reference run."""
        limit = self.cell_limits.get(cell_key(cell)) if cell is not None else None
        base = int(limit) if limit else super()._get_timeout(cell)
        self._stretch = load_allowance(self.reference_busy) if base else 1.0
        self._limit = math.ceil(base * self._stretch) if base else base
        return self._limit

    def _limit_text(self, cell) -> str:
        """The limit a cell ran past, as its time-out message gives it."""
        text = f"{self._limit} s"
        if cell_key(cell) in self.cell_limits:
            text += f", {self.policy.factor:g}x the solution's time in it"
        if self._stretch > 1.0:
            text += f", stretched x{self._stretch:.1f} for the machine's load"
        return text

    # ------------------------------------------------------------------ events

    def _event(self, **what) -> None:
        path = os.environ.get(EVENTS)
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(what) + "\n")

    # ------------------------------------------------------------------ output cap

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        if msg.get("msg_type") == "stream" and self._token in content.get("text", ""):
            self._completed.add(cell_index)
            content["text"] = (
                content["text"].replace(self._token + "\n", "").replace(self._token, "")
            )
        size = len(json.dumps(content, default=str))
        used = self._used.get(cell_index, 0) + size
        self._used[cell_index] = used
        if used > self.limits.output_bytes:
            if cell_index not in self._cut:
                self._cut.add(cell_index)
                outs.append(
                    nbformat.v4.new_output(
                        "stream", name="stderr", text=CUT.format(n=self.limits.output_bytes)
                    )
                )
            return None
        return super().output(outs, msg, display_id, cell_index)

    # ------------------------------------------------------------------ cells

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.released = self._released
        return km

    def _disk_full(self, cell) -> bool:
        texts = [
            o.get("text", "") + o.get("evalue", "") + "".join(o.get("traceback", []))
            for o in cell.get("outputs", [])
        ]
        return any(marker in text for text in texts for marker in DISK_FULL)

    def preprocess_cell(self, cell, resources, index):
        if self.deadline and time.monotonic() - self._start - self._timed_out > self.deadline:
            self._late.add(index)
            return cell, resources
        self._current = index
        started = time.monotonic()
        if self._kernel_up is None:
            self._kernel_up = started - self._start
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except CellTimeoutError as err:
            self._timed_out += time.monotonic() - started
            raise _Restart(
                index,
                TIME,
                f"the cell ran past its time limit ({self._limit_text(cell)}; output still "
                "arriving)",
            ) from err
        except DeadKernelError as err:
            oom = bool(getattr(self.km, "oom_killed", lambda: False)())
            if oom:
                raise _Restart(
                    index, MEMORY, "the memory limit was hit and the kernel killed"
                ) from err
            raise _Restart(index, DIED, "the kernel died") from err
        self._seconds[index] = time.monotonic() - started
        self._runs[index] = self._new_runs()
        self._handed[index] = self._new_values()  # a student cell's are read and dropped
        if self.sandbox and self._disk_full(cell):
            raise _Restart(
                index,
                DISK,
                f"the disk limit was reached ({self.limits.disk_mb} MB per writable folder)",
            )
        if any(
            o.output_type == "error" and o.get("ename") == "CellTimeoutError"
            for o in cell.get("outputs", [])
        ):
            self._timed_out += self._seconds[index]
            raise _Restart(
                index,
                TIME,
                f"the cell ran past its time limit ({self._limit_text(cell)}): a deadlock, an "
                "endless loop, or far more work?",
            )
        return cell, resources

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        """A hidden test cell runs without entering the kernel's input history (In, _ih, _i...):
        a student's function it calls does not find the cell's text there."""
        store_history = store_history and cell_index not in self._hidden
        return await super().async_execute_cell(cell, cell_index, execution_count, store_history)

    def _prepare(self, nb):
        """The notebook with guard cells, judged test cells without their judge blocks;
        origin[j] = index of cell j in nb, or None."""
        judging = _guard.judging_modules("\n".join(c.source for c in nb.cells))
        # figures off first: the guard then counts undrawn's callback as the shell's own
        capture = [PLAIN_TRACEBACKS] + ([] if self.policy.draw_figures else [NO_FIGURES])
        capture += [
            "import hybridlab.grading._guard as _hl_guard",
            f"_hl_guard.capture({judging!r})",
        ]
        cells, origin = [_code("\n".join(capture), "capture")], [None]
        self._hidden: set[int] = set()  # hidden test cells, kept out of the kernel's history
        for i, cell in enumerate(nb.cells):
            meta = _nbgrader(cell)
            part = meta.get("grade_id", "")
            answer = nb.cells[origin[-1]] if origin[-1] is not None else None
            if (
                answer is not None
                and answer.cell_type == "code"
                and _nbgrader(answer).get("solution")
            ):  # after an answer: what it replaced is put back before the lab's next cell runs
                tag = _nbgrader(answer).get("grade_id", "")
                cells.append(_code(f"_hl_guard.restore(get_ipython().user_ns, {tag!r})", tag))
                origin.append(None)
            if is_test(cell):
                cells.append(_code(f"_hl_guard.restore(get_ipython().user_ns, {part!r}, True)",
                                   part))  # fmt: skip
                origin.append(None)
                cell = copy.deepcopy(cell)
                own = tuple(_defined_names(cell.source))
                graded_apart = apart.is_apart(cell.source)
                if graded_apart:  # nothing the kernel holds is judged: no verify (a thread the
                    # student left idle cost a part graded apart, a fresh attacker's L13b1)
                    cell.source = apart.kernel_source(cell.source)
                else:
                    if judge.is_judged(cell.source):
                        cell.source = judge.kernel_source(cell.source)
                    if hidden_names.BEGIN_HIDDEN in nb.cells[i].source:
                        cell.source = hidden_names.separate(cell.source)
                        self._hidden.add(len(cells))
                check = f"_hl_guard.verify(get_ipython().user_ns, {part!r}, {own!r})\n"
                cell.source = f"{cell.source}\n{'' if graded_apart else check}print({self._token!r})"
            elif (graded := self_checks.graded_source(nb.cells, i)) is not None:
                cell = copy.deepcopy(cell)
                cell.source = graded
                cells.append(cell)
                origin.append(i)
                continue
            cells.append(cell)
            origin.append(i)
            if is_test(cell):  # the grader has read what it handed out: the collector on again
                cells.append(_code("_hl_guard.resume()", part))
                origin.append(None)
            if cell.cell_type == "code" and (
                meta.get("locked") or is_test(cell) or self._as_released(nb.cells[i])
            ):
                names = _defined_names(nb.cells[i].source)
                if names:
                    cells.append(
                        _code(f"_hl_guard.remember(get_ipython().user_ns, {names!r})", "remember")
                    )
                    origin.append(None)
        return cells, origin

    def preprocess(self, nb, resources=None, km=None):
        lab = ((resources or {}).get("nbgrader") or {}).get("assignment")
        root = Path(self.config.CourseDirectory.get("root", os.getcwd()))
        self._released = sorted((root / "release" / lab).glob("*.ipynb")) if lab else []
        self._lab_sources = _lab_sources(self._released) if self._released else None
        self._token = f"{DONE}-{uuid.uuid4().hex}"
        self._start = time.monotonic()
        self._timed_out = 0.0  # seconds of cells that ran past the cell limit (not counted)
        self._kernel_up = None  # seconds from here to the first cell: sandbox and kernel start
        folder = Path(((resources or {}).get("metadata") or {}).get("path") or os.getcwd())
        self._log = folder.resolve() / RUNS_LOG
        os.environ[replay.LOG] = str(self._log)  # the kernel (started below) inherits it
        self._channel: handout.Channel | None = None  # each kernel's own (async_start_new_kernel)
        prepared, origin = self._prepare(nb)
        skipped: dict[int, str] = {}  # index in prepared -> why it was not run
        for attempt in range(self.policy.restarts + 1):
            work = copy.deepcopy(nb)
            work.cells = [
                _code("", "skipped") if j in skipped else copy.deepcopy(c)
                for j, c in enumerate(prepared)
            ]
            self._used, self._cut, self._completed, self._late = {}, set(), set(), set()
            self._seconds: dict[int, float] = {}
            self._runs: dict[int, list[dict]] = {}  # cell -> the runs it made (replay.LOG)
            self._handed: dict[int, list[str]] = {}  # test cell -> the values it handed out
            self._log_read = 0
            self._log.unlink(missing_ok=True)
            self._current = -1
            try:
                work, resources = super().preprocess(work, resources, km)
                break
            except _Restart as restart:
                self._release_sandbox()
                skipped[restart.index] = restart.reason
                self._event(
                    kind="restart",
                    part=self._part(prepared, origin, restart.index),
                    reason=restart.code,
                    why=restart.reason,
                )
                if attempt == self.policy.restarts:
                    later = range(restart.index + 1, len(prepared))
                    skipped.update({j: "too many kernel restarts" for j in later})
                    work.cells = [
                        _code("", "skipped") if j in skipped else c
                        for j, c in enumerate(work.cells)
                    ]
        self._release_sandbox()
        self._log.unlink(missing_ok=True)
        if self._channel is not None:
            self._channel.close()
        self._finish(nb, work, prepared, origin, skipped)
        return nb, resources

    def _new_runs(self) -> list[dict]:
        """The runs the kernel logged since the last look: which data served each (replay.py).
        In the sandbox the log is the box's file, bound at the log's place in the working folder."""
        box = getattr(self.km, "box", None)
        path = box.runs_log if box is not None else self._log
        try:
            with open(path, "rb") as f:
                f.seek(self._log_read)
                text = f.read(LOG_BYTES)  # the kernel can write to it: read a bounded piece
        except OSError:
            return []
        self._log_read += len(text)
        runs = []
        for line in text.decode(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("source") in SOURCES:
                runs.append(entry)
        return runs

    def _new_values(self) -> list[str]:
        """The lines the kernel handed out since the last look (handout.py), unread: the judge
        checks their frames and decodes them as data in its own process."""
        return self._channel.take() if self._channel is not None else []

    async def async_start_new_kernel(self, **kwargs):
        """Each kernel (a restart's too) hands values out through a pipe of its own: it inherits
        the write end (its number in $HYBRIDLAB_HANDOUT), the grader reads the other."""
        if self._channel is not None:
            self._channel.close()
        self._channel = handout.Channel()
        kwargs["env"] = {**(kwargs.get("env") or os.environ), **self._channel.env()}
        kwargs["pass_fds"] = (*kwargs.get("pass_fds", ()), self._channel.fd)
        try:
            await super().async_start_new_kernel(**kwargs)
        finally:
            self._channel.started()

    start_new_kernel = run_sync(async_start_new_kernel)  # (nbclient binds its own at import)

    def _ran_clean(self, nb, work, origin, skipped, kind) -> list[int]:
        """The test cells for which kind(source) holds that ran to their end without an error."""
        return [
            j
            for j, done in enumerate(work.cells)
            if origin[j] is not None
            and is_test(nb.cells[origin[j]])
            and kind(nb.cells[origin[j]].source)
            and j in self._completed
            and j not in skipped
            and not any(o.output_type == "error" for o in done.get("outputs", []))
        ]

    def _judged(self, nb, work, prepared, origin, skipped) -> dict[int, dict]:
        """Judge the judged test cells that ran to their end without an error: {j: result};
        the cells graded apart run now, one after the other in a fresh sandbox of their own, put
        back as it started between them (apart.py)."""
        results, parts = {}, {}
        sources = [c.source if c.cell_type == "code" else "" for c in nb.cells]
        for j in self._ran_clean(nb, work, origin, skipped, apart.is_apart):
            cell = nb.cells[origin[j]]
            try:
                handed = [handout.decode(v) for v in
                          handout.values(self._handed.get(j, []), _nbgrader(cell).get("grade_id", ""))]
            except handout.HandOutMismatch as refused:
                results[j] = {"error": ["HandOutMismatch", str(refused)], "notes": "", "seconds": 0.0}
                continue
            c_cells = apart.c_sources(sources, origin[j])
            results[j] = apart.unwritten(cell.source, c_cells)
            if results[j] is None:
                parts[j] = apart.Part(
                    self._part(prepared, origin, j),
                    cell.source,
                    c_cells | apart.texts_handed(cell.source, handed)
                    | {apart.ANSWERS: {_nbgrader(c).get("grade_id", ""): c.source
                                       for c in nb.cells[: origin[j]] if _nbgrader(c).get("solution")}},
                    self._get_timeout(cell) or judge.SECONDS,
                )  # fmt: skip
        done = apart.grade(list(parts.values()), limits=self.limits if self.sandbox else None,
                           released=self._released, reset=replay.folder("record") is None)  # fmt: skip
        results.update(zip(parts, done, strict=True))
        for j, result in results.items():
            self._seconds[j] = self._seconds.get(j, 0.0) + result.pop("seconds")

        def judged_here(source: str) -> bool:
            return judge.is_judged(source) and not apart.is_apart(source)

        chosen = self._ran_clean(nb, work, origin, skipped, judged_here)
        cells = [
            {
                "part": self._part(prepared, origin, j),
                "source": nb.cells[origin[j]].source,
                "values": self._handed.get(j, []),
                "grade_id": _nbgrader(nb.cells[origin[j]]).get("grade_id", ""),
            }
            for j in chosen
        ]
        return {**results, **dict(zip(chosen, judge.judge(cells), strict=True))}

    def _as_released(self, cell) -> bool:
        """A code cell of the lab's own (neither answer nor test) as the lab released it."""
        if cell.cell_type != "code" or is_test(cell) or _nbgrader(cell).get("solution"):
            return False
        return self._lab_sources is None or cell.source.strip() in self._lab_sources

    def _release_sandbox(self) -> None:
        """Remove the last kernel's cgroup and files, even when nbclient skipped its cleanup."""
        for part in ("cgroup", "box"):
            thing = getattr(self.km, part, None)
            if thing is not None:
                thing.remove()

    @staticmethod
    def _part(prepared, origin, j) -> str:
        if 0 <= j < len(prepared):
            meta = _nbgrader(prepared[j])
            return meta.get("grade_id") or f"cell {origin[j]}"
        return "?"

    def _finish(self, nb, work, prepared, origin, skipped) -> None:
        """Copy outputs back to the submission's own cells; judge each test cell; say under
        each test cell which data the runs made up to it came from."""
        since, before = [], []  # runs since the previous test cell, and all runs before those
        every = [r for runs in self._runs.values() for r in runs]
        own = own_runs_matched(every)  # said once, under the first test cell
        judged = self._judged(nb, work, prepared, origin, skipped)
        for j, done in enumerate(work.cells):
            since += self._runs.get(j, [])
            tag = prepared[j].metadata.get("hybridlab")
            if origin[j] is None:
                if tag not in ("capture", "remember", "skipped"):
                    text = "".join(o.get("text", "") for o in done.get("outputs", []))
                    found = [line.split(": ", 1)[1] for line in text.splitlines() if TAMPER in line]
                    if found:
                        self._event(kind="tamper", part=tag, what=found)
                continue
            cell = nb.cells[origin[j]]
            if cell.cell_type != "code":
                continue
            part = self._part(prepared, origin, j)
            cell.outputs = done.get("outputs", [])
            cell.execution_count = done.get("execution_count")
            if j in self._cut:
                self._event(kind="output cut", part=part)
            if j in skipped:
                cell.outputs = [_error("NotGraded", skipped[j])]
                continue  # the restart event already says why
            if j in self._late:
                cell.outputs = [
                    _error("SubmissionTimeLimit", f"past the {self.deadline:.0f} s deadline")
                ]
                if is_test(cell):
                    self._event(
                        kind="zero", part=part, reason=DEADLINE, why="submission deadline passed"
                    )
                continue
            if is_test(cell):
                cell.outputs = [_stderr_shown(o) for o in cell.outputs]
                if j in judged:
                    _add_judgement(cell, judged[j])
                cell.outputs.append(
                    nbformat.v4.new_output(
                        "stream", name="stdout", text=data_note(since, before, own)
                    )
                )
                own = ""
                before, since = before + since, []
                text = "".join(o.get("text", "") for o in cell.outputs)
                changed = [ln.split(": ", 1)[1] for ln in text.splitlines() if CHANGED in ln]
                if changed:
                    if not any(o.get("ename") == "TestToolChanged" for o in cell.outputs):
                        cell.outputs.append(
                            _error("TestToolChanged", f"test tool changed: {changed[0]}")
                        )
                    self._event(kind="tool changed", part=part, what=changed[0])
                    continue
                errors = [o for o in cell.outputs if o.output_type == "error"]
                if errors:
                    self._event(kind="failed", part=part, error=errors[0].get("ename", "error"))
                elif j not in self._completed:
                    cell.outputs.append(
                        _error("IncompleteTest", "the test cell did not run to its end")
                    )
                    self._event(
                        kind="zero",
                        part=part,
                        reason=INCOMPLETE,
                        why="the test cell did not run to its end",
                    )
        if every:
            counts = {}
            if os.environ.get(replay.OWN):  # replayed: how many runs its own folder served
                counts = {"matched": sum(r["source"] == "own" for r in every), "made": len(every)}
            self._event(kind="data", text=describe(every), **counts)
        self._event(
            kind="seconds",
            total=time.monotonic() - self._start,
            cells={
                cell_key(nb.cells[origin[j]], origin[j]): s
                for j, s in self._seconds.items()
                if origin[j] is not None
            },
            guard=sum(s for j, s in self._seconds.items() if origin[j] is None),
            start=self._kernel_up or 0.0,
        )
