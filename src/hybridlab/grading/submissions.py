"""Bring submissions into the course and look at them before grading.

    import_submissions(src, lab)  a folder or a .zip as an LMS gives it -> submitted/<student>/<lab>/
    submitted(root, lab)          student -> their notebook of the lab in submitted/
    inspect(path, lab)            what is wrong with one submitted notebook, before it is run

Accepted layouts (lms.py names them): Moodle's "Download all submissions" in folders or flat,
Canvas's "Download Submissions" (the latest upload of each student is graded, a late one is
marked), `<student>_<anything>.ipynb`, `<student>_<anything>.zip` (the notebook and its runs
folder, zipped: any layout may hold such a zip), or one folder per student. A notebook's runs
folder (`<stem>_runs/` beside it, own_runs.py) is imported with it as `<lab>_runs/`. Every other
file of the download is listed in the report with the reason: nothing is dropped unsaid.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from ..runs import own_runs
from . import lms
from .course import Lab

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
    unmatched: dict[str, str] = field(default_factory=dict)  # file -> why not (to place by hand)
    left_out: dict[str, str] = field(default_factory=dict)  # file -> why not needed (an earlier upload)
    runs: dict[str, int] = field(default_factory=dict)  # student -> files in the runs folder
    late: set[str] = field(default_factory=set)  # students whose LMS marked the submission late

    def text(self) -> str:
        lines = [f"{self.lab}: imported {len(self.imported)} submission(s)"]
        lines += [
            f"  {s:<16} <- {f}"
            + (" (LATE)" if s in self.late else "")
            + (
                f" and its runs folder ({self.runs[s]} files)"
                if s in self.runs
                else " (no runs folder: graded on the reference run)"
            )
            for s, f in sorted(self.imported.items())
        ]
        if self.left_out:
            lines.append(f"left out ({len(self.left_out)}), nothing to do:")
            lines += [f"  {f}: {why}" for f, why in sorted(self.left_out.items())]
        if self.unmatched:
            lines.append(f"not matched ({len(self.unmatched)}): place these by hand")
            lines += [f"  {f}: {why}" for f, why in sorted(self.unmatched.items())]
        return "\n".join(lines)


@dataclass
class _Candidate:
    origin: lms.Origin
    notebook: Path  # where it is now (the download, or a student's zip unpacked)
    shown: str  # its name in the download (`a.zip!inner/path` inside a student's zip)
    student: str = ""


class _Download:
    """Every file of a download: the notebooks handed in, the runs files, and the rest reported."""

    def __init__(self, folder: Path, tmp: Path, report: ImportReport):
        self.tmp, self.report = tmp, report
        self.candidates: list[_Candidate] = []
        self.runs_files: dict[Path, str] = {}  # a file in some <stem>_runs/ -> its shown name
        self.copied: set[Path] = set()
        self._scan(folder, "", None)
        if not self.candidates and not report.unmatched and not self.runs_files:
            report.unmatched["(download)"] = "no files at all"

    def _scan(self, folder: Path, prefix: str, inside: lms.Origin | None) -> bool:
        """Read `folder` (a student's zip when `inside` is its origin); whether it held a notebook."""
        held = False
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if any(part in IGNORED for part in rel.parts) or path.is_dir():
                continue
            shown = prefix + str(rel)
            if any(part.endswith(own_runs.SUFFIX) for part in rel.parts[:-1]):
                self.runs_files[path] = shown  # taken with its notebook, or reported at the end
                continue
            found = inside or lms.origin(rel)
            why = self._why_not(path, found, rel, shown)
            if why:
                self.report.unmatched[shown] = why
            elif path.suffix == ".zip":
                into = self.tmp / f"zip{len(list(self.tmp.iterdir()))}"
                _unpack(path, into, self.report, shown + "!")
                if not self._scan(into, shown + "!", found):
                    self.report.unmatched[shown] = "no notebook (.ipynb) in this zip"
            else:
                self.candidates.append(_Candidate(found, path, shown))
                held = True
        return held

    @staticmethod
    def _why_not(path: Path, found: lms.Origin | str, rel: Path, shown: str) -> str | None:
        if isinstance(found, str):
            return found
        if path.is_symlink():
            return "a link, not followed"
        if path.stat().st_size == 0:
            return "empty file"
        if path.suffix == ".zip" and "!" in shown:
            return "a zip inside a zip: unpack it"
        if path.suffix == ".zip" and not zipfile.is_zipfile(path):
            return "not a readable zip"
        if path.suffix not in (".ipynb", ".zip"):
            return "not a notebook (.ipynb)"
        return None

    def copy_runs(self, notebook: Path, target: Path, report: ImportReport) -> None:
        self.copied |= _copy_runs(
            own_runs.runs_folder(notebook), own_runs.runs_folder(target), report
        )

    def report_runs_left(self) -> None:
        for path, shown in self.runs_files.items():
            if path not in self.copied:
                self.report.unmatched[shown] = (
                    "in a runs folder, not copied (its notebook was not imported, or it is a link "
                    "or in a subfolder)"
                )


def _choose(lab: str, mine: list[_Candidate], report: ImportReport) -> _Candidate | None:
    """The one notebook of a student to grade; the others are reported with the reason (left
    out when the choice is sure: an earlier upload, a second notebook beside the lab's own)."""
    if all(c.origin.lms == "canvas" for c in mine):
        chosen = max(mine, key=lambda c: c.origin.order)  # Canvas: the latest upload
        why = f"an earlier upload; the latest ({chosen.shown}) is graded"
    else:
        named = [c for c in mine if lab in c.notebook.name] if len(mine) > 1 else mine
        chosen = named[0] if len(named) == 1 else None
        why = (
            f"{mine[0].student} handed in {len(mine)} notebooks; keep one"
            if chosen is None
            else f"not graded: {chosen.shown} is the notebook of {lab}"
        )
    for c in mine:
        if c is not chosen:
            (report.unmatched if chosen is None else report.left_out)[c.shown] = why
    return chosen


def _by_student(
    candidates: list[_Candidate], ids: dict[str, str] | None, report: ImportReport
) -> dict[str, list[_Candidate]]:
    """student -> their candidates; an unknown id, or two people as one student, are reported."""
    found: dict[str, list[_Candidate]] = {}
    for c in candidates:
        try:
            c.student = lms.student_of(c.origin, ids)
        except LookupError as err:
            report.unmatched[c.shown] = str(err)
            continue
        found.setdefault(c.student, []).append(c)
    for student, mine in list(found.items()):
        people = sorted({f"{c.origin.name} ({c.origin.lms_id or c.origin.lms})" for c in mine})
        if len({c.origin.key for c in mine}) > 1:
            for c in mine:
                report.unmatched[c.shown] = (
                    f"duplicate: {', '.join(people)} are all student {student}; "
                    "tell them apart with an id map (--ids)"
                )
            del found[student]
    return found


def import_submissions(
    source: Path, the_lab: Lab, *, replace: bool = False, ids: dict[str, str] | None = None
) -> ImportReport:
    """Copy each student's notebook to submitted/<student>/<lab>/<lab>.ipynb; `ids` maps LMS ids
    or names to the course's student ids (lms.read_ids)."""
    root, lab, source = the_lab.root, the_lab.name, Path(source)
    report = ImportReport(lab)
    with tempfile.TemporaryDirectory() as tmp:
        if source.is_file() and zipfile.is_zipfile(source):
            folder = Path(tmp) / "download"
            _unpack(source, folder, report)
        elif source.is_dir():
            folder = source
        else:
            raise FileNotFoundError(f"{source} is neither a folder nor a zip file")
        (Path(tmp) / "zips").mkdir()
        download = _Download(folder, Path(tmp) / "zips", report)
        usable = []
        for c in download.candidates:
            why, _ = inspect(c.notebook, the_lab)
            if why:
                report.unmatched[c.shown] = why
            else:
                usable.append(c)
        identities = {}
        for student, mine in _by_student(usable, ids, report).items():
            chosen = _choose(lab, mine, report)
            if chosen is None:
                continue
            target = root / "submitted" / student / lab / f"{lab}.ipynb"
            if target.exists() and not replace:
                report.unmatched[chosen.shown] = (
                    f"{target} exists (import with --replace to overwrite)"
                )
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(chosen.notebook, target)
            report.imported[student] = chosen.shown
            if chosen.origin.late:
                report.late.add(student)
            identities[student] = (chosen.origin, chosen.shown)
            download.copy_runs(chosen.notebook, target, report)
        download.report_runs_left()
        lms.save(root, lab, identities)
    return report


def _unpack(archive: Path, into: Path, report: ImportReport, prefix: str = "") -> None:
    """Extract a zip's regular files into `into` (nothing outside it: no absolute paths, no ..)."""
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        for member in z.namelist():
            target = (into / member).resolve()
            if not str(target).startswith(str(into.resolve()) + "/"):
                report.unmatched[prefix + member] = "unsafe path in the zip"
                continue
            if not member.endswith("/"):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(member))


def _copy_runs(runs: Path, target: Path, report: ImportReport) -> set[Path]:
    """The notebook's runs folder (own_runs.py) beside the imported notebook, renamed after it;
    regular files only (a link is not followed). The grader checks the runs before use. Returns
    the files copied."""
    shutil.rmtree(target, ignore_errors=True)
    if runs.is_symlink() or not runs.is_dir():
        return set()
    target.mkdir()
    files = [p for p in runs.iterdir() if p.is_file() and not p.is_symlink()]
    for path in files:
        shutil.copyfile(path, target / path.name)
    report.runs[target.parents[1].name] = len(files)
    return set(files)


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


def inspect(path: Path, lab: Lab) -> tuple[str | None, list[str]]:
    """(why it cannot be graded at all or None, notes) for one submitted notebook of `lab`
    (wherever it is: in submitted/, or in a download being collected)."""
    parts = lab.parts
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
    strange = sorted(present - lab.cells)
    if strange:
        notes.append(f"cells the lab does not have: {', '.join(strange)} (run as plain cells)")
    duplicated = sorted({i for i in ids if i and ids.count(i) > 1})
    if duplicated:
        notes.append(f"duplicated cells: {', '.join(duplicated)} (the first is used)")
    return None, notes
