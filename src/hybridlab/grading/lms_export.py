"""Grades and feedback in the files Moodle and Canvas import (who is who: lms.py's records).

    grades_csv(lab, fmt)     lms/<lab>-<fmt>.csv, one row per student, the lab's total
    feedback_zip(lab, fmt)   lms/<lab>-feedback-<fmt>.zip, each page named for the LMS

Moodle: the assignment's offline grading worksheet (Assignment > Grading action "Upload grading
worksheet"; feedback type "Offline grading worksheet" on). Its importer
(mod/assign/feedback/offline/importgradeslib.php) needs the columns `Identifier` ("Participant
<id>", the participant id of the download), `Grade` and `Last modified (grade)`, and reads each
feedback plugin's column by its name (`Feedback comments`). The course gradebook's CSV import would
need an email, username or ID number, which the download does not carry; the worksheet matches the
download's own id, and per assignment. One grade column only: the parts go into the comments.

Canvas: the gradebook import (lib/gradebook_importer.rb): the header starts `Student`, `ID`, then
optionally `SIS User ID`, `SIS Login ID`, and `Section` ends the student columns; each further
column is an assignment, `Title (assignment id)` or its title. A student is found by `ID` (the
Canvas user id of the download), else by SIS ids, else by name. Each column is an assignment, so
only the lab's total is written, and only for students collected from a Canvas download (the
others are named as left out).

Parts are named as the notebook names them to students (Lab.titles: "(b) Read a breakdown").
"""

from __future__ import annotations

import csv
import time
import zipfile
from pathlib import Path

from . import gradebook, lms
from .course import GradingError, Lab

FORMATS = ("moodle", "canvas")
MOODLE_COLUMNS = ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)",
                  "Feedback comments"]  # fmt: skip
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise GradingError(f"unknown LMS format {fmt!r}; known: {', '.join(FORMATS)}")


def _comments(row: dict, lab: Lab, late: bool) -> str:
    """The per-part scores as text, what is still to grade by hand, and a late mark."""
    titles = lab.titles()
    text = "; ".join(f"{titles[p]}: {row[p]:g}/{points:g}" for p, points in lab.parts.items())
    if row["to_grade"]:
        todo = "; ".join(titles[p] for p in row["to_grade"].split())
        text += f". Still to grade by hand (counted 0): {todo}"
    return text + (". Handed in late" if late else "")


def _moodle_row(row: dict, record: dict, lab: Lab, now: str) -> dict | None:
    if record.get("lms") != "moodle":
        return None
    return {
        "Identifier": f"Participant {record['lms_id']}",
        "Full name": record["name"],
        "Grade": f"{row['total']:g}",
        "Maximum Grade": f"{row['max']:g}",
        "Last modified (grade)": now,
        "Feedback comments": _comments(row, lab, bool(record.get("late"))),
    }


def _canvas_row(row: dict, record: dict, assignment: str) -> dict | None:
    if record.get("lms") != "canvas":
        return None
    return {
        "Student": record["name"],
        "ID": record["lms_id"],
        "SIS User ID": "",
        "SIS Login ID": "",
        "Section": "",
        assignment: f"{row['total']:g}",
    }


def grades_csv(lab: Lab, fmt: str, *, assignment: str | None = None) -> tuple[Path, list[str]]:
    """The LMS's grade import file for `lab`, and the students left out (no LMS identity)."""
    _check(fmt)
    records = lms.load(lab.root, lab.name)
    now = time.strftime("%Y-%m-%d %H:%M:%S")  # Moodle reads it with strtotime()
    rows, left_out = [], []
    for row in gradebook.rows(lab):
        record = records.get(row["student"], {})
        if fmt == "moodle":
            out = _moodle_row(row, record, lab, now)
        else:
            out = _canvas_row(row, record, assignment or lab.name)
        if out is None:
            left_out.append(row["student"])
        else:
            rows.append(out)
    columns = MOODLE_COLUMNS if fmt == "moodle" else [*CANVAS_COLUMNS, assignment or lab.name]
    path = lab.root / "lms" / f"{lab.name}-{fmt}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path, left_out


def feedback_zip(the_lab: Lab, fmt: str) -> tuple[Path, list[str]]:
    """The feedback pages in the LMS's bulk feedback zip, and the students left out."""
    _check(fmt)
    root, lab = the_lab.root, the_lab.name
    records = lms.load(root, lab)
    path = root / "lms" / f"{lab}-feedback-{fmt}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    left_out = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for page in sorted((Path(root) / "feedback").glob(f"*/{lab}/*.html")):
            student = page.parts[-3]
            record = records.get(student, {})
            name = lms.feedback_name(record, f"{page.stem}-feedback.html")
            if name is None or record["lms"] != fmt:
                left_out.append(student)
            else:
                z.write(page, name)
    return path, sorted(set(left_out))
