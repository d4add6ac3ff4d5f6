"""The student's kernel runs, kept beside the notebook and checked before grading uses them.

While a lab notebook runs (JupyterLab, `hybridlab run`, or any Jupyter kernel that says which
notebook it runs), the output of every kernel run is kept in `<notebook stem>_runs/` in the
notebook's folder: one JSON file per run (replay.py) and `index.json`, the SHA-256 of each file
as it was written and a digest over those. The folder travels with the notebook (nbgrader's
submit and collect copy the assignment folder; `hybridlab collect` takes it from a student's
folder or zip). HYBRIDLAB_RUNS=off keeps nothing (grading then uses the reference run).

Before a submission is graded, `check` copies the runs that pass every check into a fresh
folder that the sandbox sees read-only; a run that fails one is left out with the reason,
which the feedback repeats. What the checks can and cannot do: they catch a folder that was
emptied, a file that is not a run, a run of a kernel or program the kit does not have, a run
whose identity does not match its name, a run made with other problem sizes than grading
uses, a kernel whose own check failed, and any file edited after it was recorded without its
digest being redone. The kit runs on the student's machine, so a student who reads it can
write records that pass every check the kit can make offline; nothing here can prevent that.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from ..paths import find_kernel_file
from . import run_format
from .records import RecordError, parse_lines

INDEX = "index.json"
SUFFIX = "_runs"
# Python programs whose runs are kept (lab 09; pykernels.exercise.PROBE)
PROGRAMS = ("hybridlab.pykernels.probe",)
SIZE_REASON = "made with the "  # starts why a run of the other problem sizes is left out
NOTEBOOK_C = "a run of C code written in the notebook: the grader runs it again"  # by design
SIZE_NOTE = "HYBRIDLAB_SIZE_NOTE"  # set by the grader: said under each test (grading/execute.py)
RUN_NAME = re.compile(r"^[0-9a-f]{24}-\d{1,6}\.json$")
MAX_FILES = 5000
MAX_BYTES = 4 * 2**20  # one run file
ABOUT = (
    "Your kernel runs, kept by hybridlab as the notebook ran. Hand this folder in with the "
    "notebook: grading replays these runs (checked against the digests below) before the "
    "instructor's reference run. An edited file is not used."
)


# ------------------------------------------------------------------- the notebook's folder


def notebook_path() -> Path | None:
    """The notebook this Jupyter kernel runs, when the kernel can tell: JupyterLab (and
    `hybridlab run`) say it in JPY_SESSION_NAME, VS Code in __vsc_ipynb_file__; otherwise the one
    notebook in the kernel's working folder (nbgrader, nbclient). None outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None  # a script, a test, an engine: not a notebook
    named = os.environ.get("JPY_SESSION_NAME") or shell.user_ns.get("__vsc_ipynb_file__") or ""
    if named.endswith(".ipynb"):
        return Path.cwd() / named  # an absolute name stays as it is
    found = sorted(Path.cwd().glob("*.ipynb"))
    return found[0] if len(found) == 1 else None


def folder_for_this_notebook() -> Path | None:
    """Where this notebook keeps its runs, or None (HYBRIDLAB_RUNS=off, inside the grading
    sandbox, or no notebook to put them beside)."""
    if os.environ.get(run_format.ENV) == "off" or os.environ.get("HYBRIDLAB_SANDBOX"):
        return None
    path = notebook_path()
    return None if path is None else runs_folder(path)


def runs_folder(notebook: Path) -> Path:
    return Path(notebook).parent / f"{Path(notebook).stem}{SUFFIX}"


# ------------------------------------------------------------------- writing


def _digest(runs: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(runs, sort_keys=True).encode()).hexdigest()


def _write(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.part")
    partial.write_text(text)
    partial.replace(path)  # a reader never sees half a file


def write_run(path: Path, data: dict) -> None:
    """Write one run file and enter its SHA-256 in the folder's index."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data)
    _write(path, text)
    index_path = path.parent / INDEX
    index = _read_json(index_path) or {}
    runs = index.get("runs") if isinstance(index.get("runs"), dict) else {}
    runs[path.name] = hashlib.sha256(text.encode()).hexdigest()
    index = {"about": ABOUT, "format": run_format.FORMAT, "runs": runs, "digest": _digest(runs)}
    _write(index_path, json.dumps(index, indent=1, sort_keys=True))


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        return None


# ------------------------------------------------------------------- checking


def _kit_source(name: str) -> str | None:
    if not re.fullmatch(r"[A-Za-z_]\w*", str(name)):
        return None
    path = find_kernel_file(f"{name}.c")
    if path is None:
        return None
    return path.read_text()


def _failed_self_check(rows: list[dict]) -> str | None:
    """A record field the kernel sets to say its own check failed (`ok`, `*_ok`, an error)."""
    for row in rows:
        for field, value in row.items():
            if (field == "ok" or field.endswith("_ok")) and not value:
                return f"{field}={value!r}"
            if field == "error" and value:
                return f"error={str(value)[:80]!r}"
    return None


def problem_with(name: str, data, *, quick: bool) -> str | None:
    """Why one run file (already matched to its digest) cannot be used; None: it can."""
    if not isinstance(data, dict) or data.get("format") != run_format.FORMAT:
        return "not a run file of this kit version"
    identity, texts = data.get("identity"), data.get("texts")
    shapes = {
        "identity": isinstance(identity, dict),
        "texts": isinstance(texts, list)
        and all(
            isinstance(t, list) and len(t) == 2 and all(isinstance(s, str) for s in t)
            for t in texts
        ),
        "meta": isinstance(data.get("meta"), dict),
        "seconds": isinstance(data.get("seconds"), (int, float)) and data["seconds"] >= 0,
        "probes": isinstance(data.get("probes"), list),
        "quick": isinstance(data.get("quick"), bool),
    }
    broken = [field for field, ok in shapes.items() if not ok]
    if broken:
        return f"incomplete (missing or malformed: {', '.join(broken)})"
    if run_format.key_of(identity) != name.split("-")[0]:
        return "its identity does not match its name"
    if data["quick"] != quick:
        made, used = ("quick", "full") if data["quick"] else ("full", "quick")
        return f"{SIZE_REASON}{made} problem sizes; grading uses the {used} ones"
    kind = identity.get("kind")
    if kind == "program":
        if identity.get("name") not in PROGRAMS:
            return f"a run of a program the kit does not have ({identity.get('name')!r})"
        try:
            out = json.loads(texts[0][1])
        except (IndexError, ValueError):
            out = None
        if not isinstance(out, dict):
            return "its output is not the program's JSON report"
        return None
    if kind == "kernel" and identity.get("kit") is False:
        return NOTEBOOK_C
    if kind != "kernel" or identity.get("kit") is not True:
        return "not a run of one of the kit's kernels"
    code = _kit_source(identity.get("name", ""))
    flags = identity.get("flags")
    if code is None or not isinstance(flags, list):
        return f"a run of a kernel the kit does not have ({identity.get('name')!r})"
    if run_format.source_hash(code, flags) != identity.get("source"):
        return f"a run of another version of the kernel {identity['name']!r} than this kit's"
    rows: list[dict] = []
    for label, text in texts:
        try:
            rows += parse_lines(text, label)[0]
        except RecordError as err:
            return f"its output is not the kernel's records ({str(err)[:80]})"
    if not rows:
        return "the kernel's output holds no records"
    failed = _failed_self_check(rows)
    if failed:
        return f"the kernel's own check failed ({failed})"
    if len(data["probes"]) != 2:
        return "incomplete (the probes before and after the run)"
    return None


def check(submitted: Path | None, out: Path, *, quick: bool) -> dict:
    """Copy the usable runs of a submission's runs folder to `out` (fresh JSON, nothing else)
    and write why the others were left out (run_format.CHECKED). Returns that summary:
    {"folder", "problem" (the whole folder is unusable) or None, "used", "rejected": {file: why}}."""
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {
        "folder": submitted.name if submitted else None,
        "problem": None,
        "used": 0,
        "rejected": {},
    }
    summary["problem"] = _folder_problem(submitted)
    if summary["problem"] is None:
        index = _read_json(submitted / INDEX)
        for path in sorted(submitted.iterdir()):
            name = path.name
            if name == INDEX or name.startswith("."):
                continue
            why, data = _file_problem(path, index["runs"], quick)
            if why is not None:
                summary["rejected"][name] = why
                continue
            (out / name).write_text(json.dumps(data))
            summary["used"] += 1
        missing = sorted(set(index["runs"]) - {p.name for p in submitted.iterdir()})
        for name in missing:
            summary["rejected"][name] = "listed in the index but not in the folder"
    (out / run_format.CHECKED).write_text(json.dumps(summary))
    return summary


def other_size(summary: dict) -> int:
    """How many runs `check` left out only because they were made at the other problem sizes."""
    return sum(why.startswith(SIZE_REASON) for why in summary.get("rejected", {}).values())


def check_sizes(submitted: Path | None, out: Path, *, quick: bool) -> tuple[bool, dict]:
    """`check` at the grading size (`quick`), and, when the folder's runs are mostly of the
    other size, at that size: (the size to grade this submission at, quick or not; the summary
    of the chosen size, whose usable runs are in `out`). "Mostly": more usable runs at the other
    size than at this one, and at least half of the folder's run files."""
    summary = check(submitted, out, quick=quick)
    if summary["problem"] or not other_size(summary):
        return quick, summary
    trial = out.with_name(f"{out.name}-other-size")
    shutil.rmtree(trial, ignore_errors=True)
    other = check(submitted, trial, quick=not quick)
    total = other["used"] + len(other["rejected"])
    if other["used"] > summary["used"] and 2 * other["used"] >= total:
        shutil.rmtree(out)
        trial.rename(out)
        return not quick, other
    shutil.rmtree(trial, ignore_errors=True)
    return quick, summary


def _folder_problem(folder: Path | None) -> str | None:
    if folder is None or not folder.exists():
        return "there is none (hand in the runs folder with the notebook)"
    if folder.is_symlink() or not folder.is_dir():
        return "it is not a folder"
    names = list(folder.iterdir())
    if len(names) > MAX_FILES:
        return f"it holds more than {MAX_FILES} files"
    if (folder / INDEX).is_symlink():
        return f"its {INDEX} is not a regular file"
    index = _read_json(folder / INDEX) if (folder / INDEX).is_file() else None
    if index is None:
        return f"it has no readable {INDEX} (it was emptied, or not made by the kit)"
    runs = index.get("runs")
    if not isinstance(runs, dict) or not all(isinstance(v, str) for v in runs.values()):
        return f"its {INDEX} is malformed"
    if index.get("digest") != _digest(runs):
        return f"its {INDEX} was edited after the runs were recorded (digest)"
    if not runs:
        return "it holds no runs"
    return None


def _file_problem(path: Path, digests: dict[str, str], quick: bool) -> tuple[str | None, object]:
    name = path.name
    if not RUN_NAME.match(name):
        return "not a run file (runs are named <key>-<n>.json)", None
    if path.is_symlink() or not path.is_file():
        return "not a regular file", None
    if path.stat().st_size > MAX_BYTES:
        return f"larger than {MAX_BYTES // 2**20} MB", None
    raw = path.read_bytes()
    if name not in digests:
        return f"not in the folder's {INDEX} (added after recording)", None
    if hashlib.sha256(raw).hexdigest() != digests[name]:
        return "its content changed after it was recorded (digest)", None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return "not JSON", None
    why = problem_with(name, data, quick=quick)
    return why, data


def summary_text(summary: dict) -> str:
    """One line for the grader's report."""
    folder = summary.get("folder") or "runs folder"
    if summary.get("problem"):
        return f"own runs ({folder}): not used, {summary['problem']}"
    text = f"own runs ({folder}): {summary['used']} usable"
    rejected = summary.get("rejected", {})
    if rejected:
        first = next(iter(rejected.items()))
        text += f", {len(rejected)} left out (e.g. {first[0]}: {first[1]})"
    return text
