"""Release a lab again after it was graded: nbgrader refuses ("Cannot add or remove cells") once
the gradebook holds grades of the old cells.

    release_after_grading(lab, root=root)   # hybridlab release LAB --after-grading

keeps every grade it can: the manual scores and comments of the parts that still exist are
exported first (kept in reports/<lab>-manual-<time>.json), the lab's assignment is removed from
the gradebook, the lab is released, the submissions are graded again (the automatic grades come
back by regrading), and the manual scores and comments are put back. The report says which it
dropped: parts that are gone, and scores above a part's new maximum.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .course import (
    COURSE_ID,
    GRADING,
    LABS,
    RELEASE_TIMEOUT,
    check_labs,
    db_url,
    in_gradebook,
    nbgrader,
    read_lab,
    release,
)


def export_manual(root: Path, lab: str) -> dict[str, dict[str, dict]]:
    """student -> part -> {"score": manual score or None, "comment": text or None}: what was
    given by hand (in the formgrader or with `hybridlab mark`) for each submission of `lab`."""
    from nbgrader.api import Gradebook, MissingEntry

    kept: dict[str, dict[str, dict]] = {}
    with Gradebook(db_url(root), course_id=COURSE_ID) as gb:
        try:
            submissions = gb.find_assignment(lab).submissions
        except MissingEntry:
            return kept
        for sub in submissions:
            for notebook in sub.notebooks:
                parts: dict[str, dict] = {}
                for grade in notebook.grades:
                    if grade.manual_score is not None:
                        parts.setdefault(grade.name, {})["score"] = float(grade.manual_score)
                for comment in notebook.comments:
                    if comment.manual_comment:
                        parts.setdefault(comment.name, {})["comment"] = comment.manual_comment
                if parts:
                    kept[sub.student.id] = parts
    return kept


def restore_manual(root: Path, lab: str, kept: dict[str, dict[str, dict]]) -> list[str]:
    """Put the exported scores and comments back on the parts that still exist; the lines of
    what was dropped."""
    from nbgrader.api import Gradebook, MissingEntry

    the_lab = read_lab(root, lab)
    dropped = []
    with Gradebook(db_url(root), course_id=COURSE_ID) as gb:
        for student, parts in sorted(kept.items()):
            for part, given in sorted(parts.items()):
                try:
                    grade = gb.find_grade(part, lab, lab, student)
                except MissingEntry:
                    grade = None
                if "score" in given:
                    most = the_lab.parts.get(part)
                    if grade is None or most is None:
                        dropped.append(f"{student} {part}: score {given['score']:g} dropped "
                                       "(the part is gone)")  # fmt: skip
                    elif given["score"] > most:
                        dropped.append(f"{student} {part}: score {given['score']:g} dropped "
                                       f"(above the part's new maximum {most:g})")  # fmt: skip
                    else:
                        grade.manual_score = given["score"]
                        grade.needs_manual_grade = False
                if given.get("comment"):
                    try:
                        gb.find_comment(part, lab, lab, student).manual_comment = given["comment"]
                    except MissingEntry:
                        dropped.append(f"{student} {part}: comment dropped (the cell is gone)")
        gb.db.commit()
    return dropped


def release_after_grading(
    lab: str,
    *,
    root: Path = GRADING,
    labs_dir: Path = LABS,
    regrade: bool = True,
    **grade_options,
) -> str:
    """Release `lab` again although it has grades, keeping what can be kept; the report."""
    from .autograde import grade

    root = Path(root).resolve()
    check_labs([lab], root)
    lines = []
    kept = export_manual(root, lab) if in_gradebook(root, lab) else {}
    if kept:
        saved = root / "reports" / f"{lab}-manual-{time.strftime('%Y%m%d-%H%M%S')}.json"
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(kept, indent=1, sort_keys=True))
        count = sum(len(p) for p in kept.values())
        lines.append(
            f"kept the manual grades and comments of {count} part(s) of {len(kept)} "
            f"student(s): {saved}"
        )
    nbgrader(["db", "assignment", "remove", lab, "--force"], root, timeout=RELEASE_TIMEOUT,
             check=False)  # fmt: skip
    for path in release([lab], root=root, labs_dir=labs_dir):
        lines.append(f"released {path}")
    submitted = sorted(p.parent.name for p in (root / "submitted").glob(f"*/{lab}"))
    if regrade and submitted:
        lines.append(grade(lab, root=root, make_feedback=False, **grade_options))
    elif submitted:
        lines.append(
            f"not regraded: {len(submitted)} submission(s) wait for `hybridlab grade {lab}`"
        )
    dropped = restore_manual(root, lab, kept) if kept and regrade and submitted else []
    if regrade and submitted:  # the table and the feedback with the grades put back
        from . import feedback, gradebook

        gradebook.write_csv(root)
        lines.append("after the manual grades were put back:")
        lines.append(gradebook.table(read_lab(root, lab), submitted))
        pages = feedback.generate(read_lab(root, lab))
        lines.append(f"feedback: {len(pages)} page(s) in {root / 'feedback'}/<student>/{lab}/")
    if kept and not (regrade and submitted):
        lines.append("manual grades not restored (nothing regraded); they are in the file above")
    lines += dropped or ([f"dropped: nothing of {lab}'s manual grades"] if kept else [])
    return "\n".join(lines)
