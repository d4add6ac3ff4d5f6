"""Bring submissions into the course and look at them before grading.

    import_submissions(src, lab)  a folder or a .zip as an LMS gives it -> submitted/<student>/<lab>/
    submitted(root, lab)          student -> their notebook of the lab in submitted/
    collect_exchange(lab)         `nbgrader collect` from the nbgrader exchange (JupyterHub)
    inspect(path, parts)          what is wrong with one submitted notebook, before it is run

Accepted layouts: `<student>_<anything>.ipynb` (Canvas, Moodle and Blackboard downloads start
with the student's name or id), `<student>_<anything>.zip` (the notebook and its runs folder,
zipped), or one folder per student holding exactly one notebook. A notebook's runs folder
(`<stem>_runs/` beside it, own_runs.py) is imported with it as `<lab>_runs/`. Anything else is
listed in the report as not matched, with the reason.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from .. import own_runs
from .course import GRADING, RELEASE_TIMEOUT, check_labs, nbgrader

STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]*$")
IGNORED = ("__MACOSX", ".DS_Store", ".ipynb_checkpoints")


def submitted(root: Path, lab: str) -> dict[str, Path]:
    """student -> the submitted notebook of `lab` (submitted/<student>/<lab>/<lab>.ipynb)."""
    found = {}
    for folder in sorted((Path(root) / "submitted").glob(f"*/{lab}")):
        notebooks = sorted(folder.glob("*.ipynb"))
        if folder.is_dir() and notebooks:
            named = folder / f"{lab}.ipynb"
            found[folder.parent.name] = named if named in notebooks else notebooks[0]
    return found


@dataclass
class ImportReport:
    lab: str
    imported: dict[str, str] = field(default_factory=dict)  # student -> file it came from
    unmatched: dict[str, str] = field(default_factory=dict)  # file -> why not
    runs: dict[str, int] = field(default_factory=dict)  # student -> files in the runs folder

    def text(self) -> str:
        lines = [f"{self.lab}: imported {len(self.imported)} submission(s)"]
        lines += [
            f"  {s:<16} <- {f}"
            + (
                f" and its runs folder ({self.runs[s]} files)"
                if s in self.runs
                else " (no runs folder: graded on the reference run)"
            )
            for s, f in sorted(self.imported.items())
        ]
        if self.unmatched:
            lines.append(f"not matched ({len(self.unmatched)}): place these by hand")
            lines += [f"  {f}: {why}" for f, why in sorted(self.unmatched.items())]
        return "\n".join(lines)


def _candidates(folder: Path) -> tuple[dict[str, list[Path]], dict[str, str]]:
    found: dict[str, list[Path]] = {}
    unmatched: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part in IGNORED for part in rel.parts) or path.is_dir():
            continue
        if any(part.endswith(own_runs.SUFFIX) for part in rel.parts[:-1]):
            continue  # a notebook's runs folder: taken with the notebook
        if path.suffix == ".zip" and len(rel.parts) == 1 and "_" in path.stem:
            continue  # one student's zip: unpacked and read as that student's folder
        if path.suffix != ".ipynb":
            unmatched[str(rel)] = "not a notebook (.ipynb)"
            continue
        if len(rel.parts) == 1:
            student = path.stem.split("_", 1)[0] if "_" in path.stem else ""
            why = "name is not <student>_<anything>.ipynb"
        else:
            student = rel.parts[0]
            why = "folder name is not a usable student id"
        if not STUDENT.match(student):
            unmatched[str(rel)] = why
            continue
        found.setdefault(student, []).append(path)
    return found, unmatched


def import_submissions(
    source: Path, lab: str, *, root: Path = GRADING, replace: bool = False
) -> ImportReport:
    """Copy each student's notebook to submitted/<student>/<lab>/<lab>.ipynb."""
    root, source = Path(root), Path(source)
    check_labs([lab], root)
    report = ImportReport(lab)
    with tempfile.TemporaryDirectory() as tmp:
        if source.is_file() and zipfile.is_zipfile(source):
            folder = Path(tmp) / "download"
            _unpack(source, folder, report)
        elif source.is_dir():
            folder = source
        else:
            raise FileNotFoundError(f"{source} is neither a folder nor a zip file")
        found, unmatched = _candidates(folder)
        # <student>_<anything>.zip: a student who handed in the notebook with its runs folder
        for archive in sorted(folder.glob("*_*.zip")):
            student = archive.name.split("_", 1)[0]
            if STUDENT.match(student) and zipfile.is_zipfile(archive):
                unpacked = Path(tmp) / "zips"
                _unpack(archive, unpacked / student, report)
                for who, paths in _candidates(unpacked)[0].items():
                    if who == student:
                        found.setdefault(student, []).extend(paths)
        report.unmatched.update(unmatched)
        for student, paths in found.items():
            if len(paths) > 1:
                named = [p for p in paths if lab in p.name]
                if len(named) != 1:
                    for p in paths:
                        report.unmatched[str(p.relative_to(folder))] = (
                            f"{student} handed in {len(paths)} notebooks; keep one"
                        )
                    continue
                paths = named
            target = root / "submitted" / student / lab / f"{lab}.ipynb"
            if target.exists() and not replace:
                report.unmatched[str(paths[0].relative_to(folder))] = (
                    f"{target} exists (import with --replace to overwrite)"
                )
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(paths[0], target)
            report.imported[student] = str(paths[0].name)
            _copy_runs(own_runs.runs_folder(paths[0]), own_runs.runs_folder(target), report)
    return report


def _unpack(archive: Path, into: Path, report: ImportReport) -> None:
    """Extract a zip's regular files into `into` (nothing outside it: no absolute paths, no ..)."""
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        for member in z.namelist():
            target = (into / member).resolve()
            if not str(target).startswith(str(into.resolve()) + "/"):
                report.unmatched[member] = "unsafe path in the zip"
                continue
            if not member.endswith("/"):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(member))


def _copy_runs(runs: Path, target: Path, report: ImportReport) -> None:
    """The notebook's runs folder (own_runs.py) beside the imported notebook, renamed after it;
    regular files only (a link is not followed). The grader checks the runs before use."""
    shutil.rmtree(target, ignore_errors=True)
    if runs.is_symlink() or not runs.is_dir():
        return
    target.mkdir()
    files = [p for p in runs.iterdir() if p.is_file() and not p.is_symlink()]
    for path in files:
        shutil.copyfile(path, target / path.name)
    report.runs[target.parents[1].name] = len(files)


def collect_exchange(lab: str, *, root: Path = GRADING) -> str:
    """Collect what students submitted through the nbgrader exchange (on a JupyterHub)."""
    done = nbgrader(["collect", lab, "--update"], root, timeout=RELEASE_TIMEOUT)
    return (done.stdout + done.stderr).strip()


class ForgetUnknownCells(NbGraderPreprocessor):
    """Sanitize step (before OverwriteCells): a cell whose grade_id the lab does not know (the
    student renamed it) becomes a plain cell. nbgrader would otherwise reject the whole notebook
    as corrupt; this way the renamed cell's part scores zero and the other parts are graded."""

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook, MissingEntry

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:  # as OverwriteCells opens it
            try:
                known = {
                    c.name
                    for c in gb.find_notebook(info["notebook"], info["assignment"]).source_cells
                }
            except MissingEntry:
                return nb, resources
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if "nbgrader" in cell.metadata and grade_id not in known:
                self.log.warning("cell %r is not part of the lab: graded as a plain cell", grade_id)
                del cell.metadata["nbgrader"]
        return nb, resources


def _lab_cells(path: Path, parts: dict[str, float]) -> set[str]:
    """Every nbgrader cell id of the lab (from its source notebook beside the submitted/ tree)."""
    lab = path.parent.name
    source = path.parents[3] / "source" / lab / f"{lab}.ipynb"
    try:
        nb = nbformat.read(source, as_version=4)
    except (OSError, ValueError):
        return set(parts)
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if "grade_id" in c.metadata.get("nbgrader", {})
    }


def inspect(path: Path, parts: dict[str, float]) -> tuple[str | None, list[str]]:
    """(why it cannot be graded at all or None, notes) for one submitted notebook."""
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as err:  # noqa: BLE001 - any reading error means: not a notebook
        return f"not a readable notebook ({type(err).__name__}: {str(err)[:120]})", []
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    present = {i for i in ids if i}
    if parts and not present & set(parts):
        return "a notebook of another lab (none of this lab's graded cells)", []
    notes = []
    missing = [p for p in parts if p not in present]
    if missing:
        notes.append(f"cells deleted or their ids changed: {', '.join(missing)} (score zero)")
    known = _lab_cells(path, parts)
    strange = sorted(present - known) if known else []
    if strange:
        notes.append(f"cells the lab does not have: {', '.join(strange)} (run as plain cells)")
    duplicated = sorted({i for i in ids if i and ids.count(i) > 1})
    if duplicated:
        notes.append(f"duplicated cells: {', '.join(duplicated)} (the first is used)")
    return None, notes
