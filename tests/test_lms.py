"""Moodle and Canvas in and out: their downloads collected, their grade CSVs and feedback zips
written (no MPI, no grading run: the gradebook is filled through nbgrader's API).

The downloads are made up here in each LMS's real layout (names as grading/lms.py cites them), with
the bad cases an instructor meets; each test checks what was imported, what was reported, and that
no file of the download went unaccounted for.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

import grading_course as gc
from hybridlab.grading import lms, lms_export, submissions
from hybridlab.grading.course import COURSE_ID, db_url, read_lab

HYBRIDLAB = str(Path(sys.executable).parent / "hybridlab")
REAL_LAB = "00_getting_started"  # a released lab of the course, as students hand it in


@pytest.fixture
def course(tmp_path):
    return gc.make_course(tmp_path / "course", labs=(REAL_LAB,))


NOTEBOOK = nbformat.writes(gc.instructor_notebook())


def download(path: Path | io.BytesIO, files: dict[str, str | bytes]) -> Path | io.BytesIO:
    """A zip of `files` (name -> content) at `path`."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    download(buffer, files)
    return buffer.getvalue()


def student_zip(notebook: str = NOTEBOOK) -> bytes:
    """What a student uploads as one zip: the notebook and its runs folder."""
    runs = {"lab/mine_runs/index.json": "{}", f"lab/mine_runs/{'a' * 24}-0.json": "{}"}
    return _zip_of({"lab/mine.ipynb": notebook, **runs})


def unaccounted(archive: Path, report: submissions.ImportReport) -> list[str]:
    """Files of the download neither imported (with their runs) nor reported: must be none."""
    taken = set(report.imported.values())
    lost = []
    for name in zipfile.ZipFile(archive).namelist():
        folder, _, _ = name.rpartition("/")
        runs_of = folder[: -len("_runs")] + ".ipynb" if folder.endswith("_runs") else None
        reported = {**report.unmatched, **report.left_out}
        if name.endswith("/") or name in taken or name in reported or runs_of in taken:
            continue
        if any(k.startswith(name + "!") for k in (*taken, *reported)):
            continue  # a student's zip: its notebook imported, or what is in it reported
        lost.append(name)
    return lost


def test_moodle_in_folders_with_online_text_a_zip_and_bad_submissions(course, tmp_path):
    archive = download(
        tmp_path / "moodle.zip",
        {  # Moodle >= 4.1 folder names, and one from before (trailing _)
            "Alice Smith_101_assignsubmission_file/90_sandbox.ipynb": NOTEBOOK,
            "Alice Smith_101_assignsubmission_file/90_sandbox_runs/index.json": "{}",
            "Bob Jones_102_assignsubmission_file_/work.ipynb": NOTEBOOK,
            "Carol White_103_assignsubmission_onlinetext/onlinetext.html": "<p>my answer</p>",
            "Dan Brown_104_assignsubmission_file/hand-in.zip": student_zip(),
            "Eve Empty_105_assignsubmission_file/90_sandbox.ipynb": "",
            "Fay Notes_106_assignsubmission_file/notes.txt": "notes",
            "Gus Other_107_assignsubmission_file/lab.zip": student_zip("{not a notebook"),
            "Hal Nothing_108_assignsubmission_file/empty.zip": _zip_of({"readme.md": "no"}),
        },
    )
    report = submissions.import_submissions(archive, read_lab(course, gc.LAB))
    assert set(report.imported) == {"alice-smith", "bob-jones", "dan-brown"}, report.text()
    assert report.runs == {"alice-smith": 1, "dan-brown": 2}
    why = report.unmatched
    assert "onlinetext" in why["Carol White_103_assignsubmission_onlinetext/onlinetext.html"]
    assert why["Eve Empty_105_assignsubmission_file/90_sandbox.ipynb"] == "empty file"
    assert "not a notebook" in why["Fay Notes_106_assignsubmission_file/notes.txt"]
    assert (
        "not a readable notebook"
        in why["Gus Other_107_assignsubmission_file/lab.zip!lab/mine.ipynb"]
    )
    assert "no notebook" in why["Hal Nothing_108_assignsubmission_file/empty.zip"]
    assert unaccounted(archive, report) == []
    runs = course / "submitted" / "dan-brown" / gc.LAB / f"{gc.LAB}_runs"
    assert sorted(p.name for p in runs.iterdir()) == [f"{'a' * 24}-0.json", "index.json"]
    who = lms.load(course, gc.LAB)
    assert who["alice-smith"]["lms"] == "moodle" and who["alice-smith"]["lms_id"] == "101"


def test_moodle_flat_duplicate_names_and_an_id_map(course, tmp_path):
    files = {  # "Download submissions in folders" off: flat, the file name kept after the prefix
        "Alice Smith_101_assignsubmission_file_90_sandbox.ipynb": NOTEBOOK,
        "Alice Smith_109_assignsubmission_file_mine.ipynb": NOTEBOOK,  # another Alice Smith
        "Bob Jones_102_assignsubmission_file_lab.zip": student_zip(),
        "Carol White_103_assignsubmission_onlinetext_onlinetext.html": "<p>text</p>",
        "Zed Unknown_199_assignsubmission_file_90_sandbox.ipynb": NOTEBOOK,
    }
    archive = download(tmp_path / "flat.zip", files)
    report = submissions.import_submissions(archive, read_lab(course, gc.LAB))
    assert set(report.imported) == {"bob-jones", "zed-unknown"}
    for name in list(files)[:2]:
        assert report.unmatched[name].startswith("duplicate: Alice Smith (101), Alice Smith (109)")
    assert unaccounted(archive, report) == []

    ids = tmp_path / "ids.csv"
    ids.write_text("lms,student\n101,s1001\n109,s1009\nBob Jones,s1002\n")
    again = submissions.import_submissions(archive, read_lab(course, gc.LAB), ids=lms.read_ids(ids))
    assert set(again.imported) == {"s1001", "s1009", "s1002"}, again.text()
    assert again.runs["s1002"] == 2
    assert "is not in the id map" in again.unmatched[list(files)[-1]]
    assert unaccounted(archive, again) == []


def test_canvas_resubmission_late_and_bad_files(course, tmp_path):
    files = {  # <sortable name>[_LATE]_<user id>_<attachment id>_<file name>; -1: a re-upload
        "smithalice_2001_5001_90_sandbox.ipynb": NOTEBOOK,
        "smithalice_2001_5009_90_sandbox-1.ipynb": NOTEBOOK,
        "jonesbob_LATE_2002_5003_90_sandbox.ipynb": NOTEBOOK,
        "whitecarol_2003_text.html": "<p>online text</p>",
        "greendan_2004_5004_lab.zip": student_zip(),
        "blackeve_2005_5005_readme.txt": "read me",
        "brownfay_2006_5006_90_sandbox.ipynb": "{not json",
        "nobody.ipynb": NOTEBOOK,
    }
    archive = download(tmp_path / "canvas.zip", files)
    report = submissions.import_submissions(archive, read_lab(course, gc.LAB))
    assert report.imported == {
        "smithalice": "smithalice_2001_5009_90_sandbox-1.ipynb",
        "jonesbob": "jonesbob_LATE_2002_5003_90_sandbox.ipynb",
        "greendan": "greendan_2004_5004_lab.zip!lab/mine.ipynb",
    }
    assert report.late == {"jonesbob"} and "(LATE)" in report.text()
    why = report.unmatched
    assert "earlier upload" in report.left_out["smithalice_2001_5001_90_sandbox.ipynb"]
    assert "smithalice_2001_5001_90_sandbox.ipynb" not in why  # nothing to place by hand
    assert "online text" in why["whitecarol_2003_text.html"]
    assert "not a notebook" in why["blackeve_2005_5005_readme.txt"]
    assert "not a readable notebook" in why["brownfay_2006_5006_90_sandbox.ipynb"]
    assert "unknown layout" in why["nobody.ipynb"]
    assert unaccounted(archive, report) == []
    who = lms.load(course, gc.LAB)
    assert who["smithalice"]["file_id"] == 5009 and who["smithalice"]["attempt"] == 1
    assert who["jonesbob"]["late"] and who["jonesbob"]["lms_id"] == "2002"


def test_a_folder_per_student_of_a_released_lab_through_the_command(course, tmp_path):
    released = (gc.ROOT / "labs" / f"{REAL_LAB}.ipynb").read_text()
    folders = tmp_path / "folders"
    for student, name in {"Ann.Lee": "mine.ipynb", "ben": f"{REAL_LAB}.ipynb"}.items():
        (folders / student).mkdir(parents=True)
        (folders / student / name).write_text(released)
    (folders / "ben" / "scratch.ipynb").write_text(NOTEBOOK)  # a notebook of another lab
    ids = tmp_path / "ids.csv"
    ids.write_text("Ann.Lee,s7\nben,s8\n")
    env = dict(os.environ, HYBRIDLAB_GRADING=str(course))
    done = subprocess.run(
        [HYBRIDLAB, "collect", REAL_LAB, str(folders), "--ids", str(ids)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # something is reported
    assert "imported 2 submission(s)" in done.stdout
    assert "ben/scratch.ipynb: a notebook of another lab" in done.stdout
    assert (course / "submitted" / "s7" / REAL_LAB / f"{REAL_LAB}.ipynb").is_file()
    done = subprocess.run(
        [HYBRIDLAB, "grades", REAL_LAB, "--format", "canvas", "--assignment", "Lab 0 (77)"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"canvas: {course / 'lms' / f'{REAL_LAB}-canvas.csv'}" in done.stdout


# ------------------------------------------------------------------------------- going back


def _graded(root: Path, scores: dict[str, dict[str, float]]) -> None:
    """The gradebook as autograde leaves it: the lab's cells, each student's scores."""
    from nbgrader.api import Gradebook

    parts = read_lab(root, gc.LAB).parts
    with Gradebook(db_url(root), course_id=COURSE_ID) as gb:
        gb.add_assignment(gc.LAB)
        gb.add_notebook(gc.LAB, gc.LAB)
        for part, points in parts.items():
            gb.add_grade_cell(part, gc.LAB, gc.LAB, max_score=points, cell_type="code")
        for student, mine in scores.items():
            gb.add_student(student)
            gb.add_submission(gc.LAB, student)
            for part, score in mine.items():
                grade = gb.find_grade(part, gc.LAB, gc.LAB, student)
                grade.auto_score = score
                grade.needs_manual_grade = False
        gb.db.commit()


def _collect_both(course: Path, tmp_path: Path) -> None:
    moodle = download(tmp_path / "m.zip", {
        "Alice Smith_101_assignsubmission_file/90_sandbox.ipynb": NOTEBOOK,
    })  # fmt: skip
    canvas = download(tmp_path / "c.zip", {
        "jonesbob_LATE_2002_5003_90_sandbox.ipynb": NOTEBOOK,
    })  # fmt: skip
    submissions.import_submissions(moodle, read_lab(course, gc.LAB))
    submissions.import_submissions(canvas, read_lab(course, gc.LAB))


def test_grade_csvs_have_the_headers_each_lms_imports(course, tmp_path):
    _collect_both(course, tmp_path)
    _graded(course, {
        "alice-smith": {"test_square": 1, "test_ring": 1, "test_total": 0, "test_seconds": 1},
        "jonesbob": {"test_square": 1, "test_ring": 0, "test_total": 0, "test_seconds": 0},
        "walkin": {"test_square": 1},  # collected by hand: no LMS identity
    })  # fmt: skip

    path, left_out = lms_export.grades_csv(read_lab(course, gc.LAB), "moodle")
    rows = list(csv.DictReader(path.open(newline="")))
    header = next(csv.reader(path.open(newline="")))
    # mod/assign/feedback/offline/importgradeslib.php: these three found by name
    assert {"Identifier", "Grade", "Last modified (grade)"} <= set(header)
    assert [r["Identifier"] for r in rows] == ["Participant 101"]
    assert rows[0]["Grade"] == "3" and rows[0]["Full name"] == "Alice Smith"
    assert "test_total: 0/1" in rows[0]["Feedback comments"]  # a lab without headings: its ids
    assert "Still to grade by hand (counted 0): written_ring" in rows[0]["Feedback comments"]
    assert sorted(left_out) == ["jonesbob", "walkin"]

    path, left_out = lms_export.grades_csv(read_lab(course, gc.LAB), "canvas", assignment="Lab 90 (1234)")
    header = next(csv.reader(path.open(newline="")))
    # lib/gradebook_importer.rb: Student, ID, [SIS User ID, SIS Login ID,] Section, assignments
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 90 (1234)"]
    rows = {r["Student"]: r for r in csv.DictReader(path.open(newline=""))}
    assert list(rows) == ["jonesbob"], "only students who came from Canvas"
    assert rows["jonesbob"]["ID"] == "2002" and rows["jonesbob"]["Lab 90 (1234)"] == "1"
    assert sorted(left_out) == ["alice-smith", "walkin"]


def test_parts_are_named_as_the_notebook_names_them_to_students():
    titles = read_lab(gc.ROOT / "grading", "04_halo_exchange").titles()
    assert titles["hidden_exchange_halos"] == "(a) Write the halo exchange (C)"
    assert titles["hidden_phase_shares"] == "(b) Read a breakdown"
    assert titles["written_halo_model"].endswith(", part 2 (written)")  # under (c), by hand
    assert titles["written_halo_overlap"].startswith("(e) Your overlap on your machine")


def test_feedback_zips_are_named_as_each_lms_matches_them(course, tmp_path):
    _collect_both(course, tmp_path)
    for student in ("alice-smith", "jonesbob", "walkin"):
        page = course / "feedback" / student / gc.LAB / f"{gc.LAB}.html"
        page.parent.mkdir(parents=True)
        page.write_text(f"<p>feedback for {student}</p>")

    path, left_out = lms_export.feedback_zip(read_lab(course, gc.LAB), "moodle")
    assert zipfile.ZipFile(path).namelist() == [
        "Alice Smith_101_assignsubmission_file/90_sandbox-feedback.html"
    ]
    assert left_out == ["jonesbob", "walkin"]
    # Moodle's importer splits the first folder at "_" (at most 5 parts): name, participant id,
    # plugin type, plugin name
    info = zipfile.ZipFile(path).namelist()[0].split("/")[0].split("_", 4)
    assert info[1] == "101" and info[2:4] == ["assignsubmission", "file"]

    path, left_out = lms_export.feedback_zip(read_lab(course, gc.LAB), "canvas")
    (name,) = zipfile.ZipFile(path).namelist()
    assert name == "jonesbob_LATE_2002_5003_90_sandbox-feedback.html"
    # Canvas's re-upload takes the first two all-digit parts: user id, then attachment id
    assert [p for p in name.split("_") if p.isdigit()][:2] == ["2002", "5003"]
    assert left_out == ["alice-smith", "walkin"]


# ------------------------------------------------------------------- the whole instructor path


def _hybridlab(*args: str, env: dict, cwd: Path, code: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([HYBRIDLAB, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=1500, check=False)  # fmt: skip
    said = f"hybridlab {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stdout + done.stderr, said
    assert done.returncode == code, said
    return done


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_the_instructor_path_release_collect_grade_mark_feedback_grades(tmp_path):
    """As an instructor types it, lab 00 with the solution (from Moodle) and a blank lab (from
    Canvas): every command ends without a traceback and says what it did."""
    gc.require_sandbox()
    course = gc.make_course(tmp_path / "term" / "course", labs=(REAL_LAB,))
    env = dict(os.environ, HYBRIDLAB_GRADING=str(course), HYBRIDLAB_LABS=str(tmp_path / "labs"))
    run = lambda *args, code=0: _hybridlab(*args, env=env, cwd=tmp_path, code=code)  # noqa: E731
    run("release", REAL_LAB)
    solution = (course / "source" / REAL_LAB / f"{REAL_LAB}.ipynb").read_text()
    blank = (tmp_path / "labs" / f"{REAL_LAB}.ipynb").read_text()

    # Moodle, flat, unpacked in a shallow folder (a path relative to where the command runs),
    # with two students of one name: told apart by an id map
    moodle = tmp_path / "m"
    moodle.mkdir()
    for who in ("Alice Smith_101", "Alice Smith_109"):
        (moodle / f"{who}_assignsubmission_file_{REAL_LAB}.ipynb").write_text(solution)
    done = run("collect", REAL_LAB, "m", code=1)
    assert "duplicate: Alice Smith (101), Alice Smith (109)" in done.stdout
    (tmp_path / "ids.csv").write_text("lms,student\n101,s101\n")
    done = run("collect", REAL_LAB, "m", "--ids", "ids.csv", code=1)
    assert "imported 1 submission(s)" in done.stdout and "is not in the id map" in done.stdout
    # Canvas: an upload and a later one; nothing to place by hand
    canvas = download(tmp_path / "canvas.zip", {
        f"jonesbob_2002_5001_{REAL_LAB}.ipynb": blank,
        f"jonesbob_2002_5009_{REAL_LAB}-1.ipynb": blank,
    })  # fmt: skip
    done = run("collect", REAL_LAB, str(canvas))
    assert "left out (1), nothing to do" in done.stdout and "place these by hand" not in done.stdout

    done = run("grade", REAL_LAB)
    assert "graded 2/2: " in done.stderr  # plain lines: the output is not a terminal
    titles = read_lab(course, REAL_LAB).titles()
    written = next(iter(read_lab(course, REAL_LAB).manual))
    hidden = next(p for p in titles if p.startswith("hidden_"))
    # before hand-marking: the LMS file and the feedback say the written part counts 0
    for args in (("grades", REAL_LAB, "--format", "moodle"), ("feedback", REAL_LAB)):
        done = run(*args)
        assert "graded by hand are not marked yet and count as 0" in done.stderr, done.stderr
        assert f"{titles[written]} ({written}): s101" in done.stderr

    run("mark", REAL_LAB, "s101", written, "2", "--comment", "Right, and well put.")
    done = run("mark", REAL_LAB, "jonesbob", hidden, "1", "--comment", "One point for the try.")
    assert f"{hidden}: 1 / " in done.stdout
    done = run("grades", REAL_LAB, "--format", "moodle")
    assert "not marked yet" not in done.stderr
    (row,) = csv.DictReader((course / "lms" / f"{REAL_LAB}-moodle.csv").open(newline=""))
    assert row["Identifier"] == "Participant 101" and "hidden_" not in row["Feedback comments"]
    assert f"{titles[hidden]}: " in row["Feedback comments"]
    done = run("grades", REAL_LAB, "--format", "canvas")
    assert "not in it (collected without a canvas download): s101" in done.stdout
    rows = list(csv.DictReader((course / "lms" / f"{REAL_LAB}-canvas.csv").open(newline="")))
    assert [(r["Student"], r["ID"], r[REAL_LAB]) for r in rows] == [("jonesbob", "2002", "1")]
    run("feedback", REAL_LAB, "--format", "canvas")
    page = (course / "feedback" / "jonesbob" / REAL_LAB / f"{REAL_LAB}.html").read_text()
    assert "One point for the try." in page
    (name,) = zipfile.ZipFile(course / "lms" / f"{REAL_LAB}-feedback-canvas.zip").namelist()
    assert name == f"jonesbob_2002_5009_{REAL_LAB}-feedback.html"
    run("feedback", REAL_LAB, "--format", "moodle")
    page = (course / "feedback" / "s101" / REAL_LAB / f"{REAL_LAB}.html").read_text()
    assert "Right, and well put." in page
