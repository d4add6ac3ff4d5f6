"""Scores out of the gradebook, the run records beside it, the class table, CSV and plots.

The gradebook (nbgrader's SQLite file) holds the points; reports/<lab>.json holds what the
grader saw per student (time, outcome, notes), updated student by student so a regrade of one
student leaves the others' records alone.

Parts are graded two ways: automatically (test cells) and by hand (written answers, nbgrader's
manually graded answer cells). A written answer scores what the grader gave it in the formgrader
or with `mark` (nbgrader's manual score, which also overrides an automatic one); until then it
is pending, except an answer left as released, which nbgrader scores zero itself.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import NamedTuple

from .course import COURSE_ID, GradingError, Lab, db_url, known_labs, read_lab

OUTCOMES = ("graded", "timed out", "crashed", "limit hit", "not gradable")


class _Grade(NamedTuple):
    """One graded part of a submission, read out of the gradebook."""

    name: str
    score: float
    pending: bool  # nbgrader needs a manual grade and none was given


def _grades(lab: Lab) -> dict[str, list[_Grade]]:
    """student -> the grades of their submission of `lab` (none without a gradebook or lab)."""
    from nbgrader.api import Gradebook, MissingEntry

    if not (lab.root / "gradebook.db").exists():
        return {}
    with Gradebook(db_url(lab.root), course_id=COURSE_ID) as gb:
        try:
            assignment = gb.find_assignment(lab.name)
        except MissingEntry:
            return {}
        return {
            sub.student.id: [
                _Grade(
                    g.name,
                    float(g.score or 0),
                    bool(g.needs_manual_grade and g.manual_score is None),
                )  # fmt: skip
                for nb in sub.notebooks
                for g in nb.grades
            ]
            for sub in assignment.submissions
        }


def scores(lab: Lab) -> dict[str, dict[str, float]]:
    """student -> {grade cell id: score}, from the gradebook."""
    return {s: {g.name: g.score for g in grades} for s, grades in _grades(lab).items()}


def pending(lab: Lab) -> dict[str, list[str]]:
    """student -> the parts still to grade by hand (nbgrader: needs a manual grade, none given)."""
    todo = {s: [g.name for g in grades if g.pending] for s, grades in _grades(lab).items()}
    return {student: parts for student, parts in todo.items() if parts}


def unmarked(lab: Lab, shown: int = 5) -> str | None:
    """A warning naming the parts graded by hand that are not marked yet (they count as 0 in
    totals, LMS files and feedback) and whose they are; None when every one is marked."""
    todo = pending(lab)
    if not todo:
        return None
    titles = lab.titles()
    waiting = [p for p in lab.parts if any(p in mine for mine in todo.values())]
    lines = [
        f"warning: {lab.name}: {sum(map(len, todo.values()))} answer(s) graded by hand are not "
        "marked yet and count as 0:"
    ]
    for part in waiting:
        students = [s for s, mine in todo.items() if part in mine]
        more = f" and {len(students) - shown} more" if len(students) > shown else ""
        lines.append(f"  {titles[part]} ({part}): {', '.join(students[:shown])}{more}")
    lines.append(
        f"mark them (`hybridlab mark {lab.name} STUDENT PART SCORE`, or nbgrader's formgrader), "
        "then write the grades and feedback again"
    )
    return "\n".join(lines)


def mark(lab: Lab, student: str, part: str, score: float, comment: str | None = None) -> float:
    """Give a graded part of a submission a score by hand (and a comment for the feedback), as
    the formgrader does; the part's maximum. A later autograde keeps it. nbgrader keeps comments
    on answer cells only: a comment on an automatically graded part goes to the answer cell its
    test checks (the last one above it), as a line starting with the part's title."""
    from nbgrader.api import Gradebook, MissingEntry

    parts = lab.parts
    if part not in parts:
        raise GradingError(f"{lab.name} has no graded part {part!r}; parts: {', '.join(parts)}")
    if not 0 <= score <= parts[part]:
        raise GradingError(f"{part} is worth 0 to {parts[part]:g} points, not {score:g}")
    cell = part if part in lab.manual or comment is None else _answer_above(lab, part)
    with Gradebook(db_url(lab.root), course_id=COURSE_ID) as gb:
        try:
            grade = gb.find_grade(part, lab.name, lab.name, student)
        except MissingEntry:
            raise GradingError(f"no graded submission of {lab.name} from {student}") from None
        grade.manual_score = float(score)
        grade.needs_manual_grade = False
        if comment is not None:
            kept = gb.find_comment(cell, lab.name, lab.name, student)
            if cell != part:
                comment = _comment_line(kept.manual_comment, lab.titles()[part], comment)
            kept.manual_comment = comment
        gb.db.commit()
    return parts[part]


def _answer_above(lab: Lab, part: str) -> str:
    """The answer cell an automatically graded part's test checks: the last one above it (not a
    written answer, which is a part of its own)."""
    answer = None
    for cell in lab.notebook().cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") == part:
            break
        if meta.get("solution") and not meta.get("grade"):
            answer = meta["grade_id"]
    if answer is None:
        raise GradingError(f"{part} has no answer cell above it to hold a comment")
    return answer


def _comment_line(kept: str | None, title: str, comment: str) -> str:
    """An answer cell's comment with the line of part `title` set to `comment` (others kept)."""
    lines = [line for line in (kept or "").splitlines() if not line.startswith(f"{title}: ")]
    return "\n".join([*lines, f"{title}: {comment}"])


def zero_submission(lab: Lab, student: str) -> None:
    """Record zero for every part of a submission that could not be run at all."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url(lab.root), course_id=COURSE_ID) as gb:
        gb.update_or_create_student(student)
        sub = gb.update_or_create_submission(lab.name, student)
        for notebook in sub.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.manual_score = None
                grade.needs_manual_grade = False
        gb.db.commit()


def _records_path(lab: Lab) -> Path:
    return lab.root / "reports" / f"{lab.name}.json"


def load_records(lab: Lab) -> dict[str, dict]:
    path = _records_path(lab)
    return json.loads(path.read_text()) if path.exists() else {}


def save_records(lab: Lab, records: dict[str, dict]) -> Path:
    """Merge these students' records into reports/<lab>.json (others are kept)."""
    path = _records_path(lab)
    path.parent.mkdir(parents=True, exist_ok=True)
    merged = load_records(lab)
    merged.update(records)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=1, sort_keys=True))
    tmp.replace(path)
    return path


def rows(lab: Lab) -> list[dict]:
    """One row per student: score per part, total (auto + by hand), max, the automatic and the
    hand-graded share, the parts still to grade by hand, time, outcome, notes."""
    parts, by_hand = lab.parts, lab.manual
    got = scores(lab)
    todo = pending(lab)
    records = load_records(lab)
    out = []
    for student in sorted(set(got) | set(records)):
        mine = got.get(student, {})
        row = {"student": student, "lab": lab.name}
        row.update({p: mine.get(p, 0.0) for p in parts})
        row["total"] = sum(mine.get(p, 0.0) for p in parts)
        row["max"] = sum(parts.values())
        row["auto"] = sum(mine.get(p, 0.0) for p in parts if p not in by_hand)
        row["auto_max"] = sum(v for p, v in parts.items() if p not in by_hand)
        row["manual"] = sum(mine.get(p, 0.0) for p in by_hand)
        row["manual_max"] = sum(by_hand.values())
        row["to_grade"] = " ".join(todo.get(student, []))
        rec = records.get(student, {})
        row["seconds"] = round(rec.get("seconds", 0.0), 1)
        row["outcome"] = rec.get("outcome", "graded" if student in got else "not graded")
        row["notes"] = "; ".join(rec.get("notes", []))
        out.append(row)
    return out


def table(lab: Lab, students: list[str] | None = None) -> str:
    """The class table as text (parts abbreviated as p1, p2, ... with a legend)."""
    parts, by_hand = list(lab.parts), lab.manual
    selected = [r for r in rows(lab) if students is None or r["student"] in students]
    if not selected:
        return f"{lab.name}: nothing graded yet"
    width = max(7, *(len(r["student"]) for r in selected))
    head = f"{'student':<{width}} " + " ".join(f"p{i + 1:<3}" for i in range(len(parts)))
    head += "  total" + ("       auto + by hand" if by_hand else "") + "       time  outcome"
    lines = [head]
    for r in selected:
        todo = r["to_grade"].split()
        cells = ["?" if p in todo else f"{r[p]:g}" for p in parts]  # ? = to grade by hand
        line = f"{r['student']:<{width}} " + " ".join(f"{c:<4}" for c in cells)
        line += f"  {r['total']:g} / {r['max']:g}".ljust(13)
        if by_hand:
            line += f"{r['auto']:g}/{r['auto_max']:g} + {r['manual']:g}/{r['manual_max']:g}".ljust(
                16
            )
        line += f"{r['seconds']:>5.0f} s  {r['outcome']}"
        lines.append(line)
        if r["notes"]:
            lines.append(f"{'':<{width}}   {r['notes']}")
    lines.append(
        "parts: "
        + ", ".join(f"p{i + 1}={p}" + (" (by hand)" if p in by_hand else "")
                    for i, p in enumerate(parts))
    )  # fmt: skip
    waiting = [r for r in selected if r["to_grade"]]
    if waiting:
        count = sum(len(r["to_grade"].split()) for r in waiting)
        lines.append(
            f"to grade by hand: {count} answer(s) of {len(waiting)} student(s), shown as ?: "
            "nbgrader's formgrader, or `hybridlab mark LAB STUDENT PART SCORE`; totals count "
            "them as 0 until then"
        )
    return "\n".join(lines)


def write_csv(root: Path, labs: list[str] | None = None, path: Path | None = None) -> Path:
    """grades.csv: one row per student and lab, one column per part (parts of all labs)."""
    root = Path(root)
    path = Path(path or root / "grades.csv")
    everything = [r for name in (labs or known_labs(root)) for r in rows(read_lab(root, name))]
    columns = ["student", "lab", "total", "max", "auto", "auto_max", "manual", "manual_max",
               "to_grade", "seconds", "outcome", "notes"]  # fmt: skip
    for r in everything:
        columns += [k for k in r if k not in columns]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(everything)
    return path


def plot_parts(lab: Lab, path: Path | None = None) -> Path | None:
    """A picture of the class per part: the share of points students got (which parts were hard)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    parts = lab.parts
    got = scores(lab)
    if not got or not parts:
        return None
    path = Path(path or lab.root / "reports" / f"{lab.name}-parts.png")
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(parts)
    shares = [[got[s].get(p, 0) / parts[p] if parts[p] else 0 for s in got] for p in names]
    fig, ax = plt.subplots(figsize=(max(5, 0.7 * len(names) + 2), 3.6))
    ax.boxplot(shares, widths=0.5, showmeans=True)
    for i, values in enumerate(shares, start=1):
        jitter = [i + 0.12 * ((k % 5) - 2) / 2 for k in range(len(values))]
        ax.plot(jitter, values, "o", alpha=0.4, ms=4)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("share of the part's points")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"{lab.name}: {len(got)} student(s), score per part", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
