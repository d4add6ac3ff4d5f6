"""The names Moodle and Canvas give submissions, and the names they want back.

    origin(rel)              a file of a download -> who handed it in, as the LMS named it (or why not)
    student_of(origin, ids)  that LMS identity -> the course's student id (or why not)
    read_ids(path)           an id map: LMS id or name -> course student id
    load / save              lms/<lab>.json: who each imported student is in the LMS (for grades, feedback)
    feedback_name(record)    the archive path Moodle's or Canvas's bulk feedback upload matches

Moodle (mod/assign/classes/downloader.php, Moodle >= 4.1; mod/assign/feedback/file/importziplib.php
reads both forms back): the prefix is `<Full Name>_<participant id>` with every `_` of the name
turned into a space; "Download submissions in folders" on (the default) puts each plugin's files in
`<prefix>_assignsubmission_<plugin>/` (before 4.1 with a trailing `_`), the folder structure kept
(online text: `.../onlinetext.html`); off, files are flat: `<prefix>_assignsubmission_file_<name>`.

Canvas (lib/content_zipper.rb, get_filename and add_upload_submission): a file is
`<sortable name, lowercased, non-word characters removed>[_LATE]_<user id>_<attachment id>_<file name>`,
flat; online text is `<name>[_LATE]_<user id>_text.html`. Canvas renames a re-uploaded file of the
same name `<stem>-1<ext>`, `-2`, ...; the later upload has the higher attachment id.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path, PurePath

STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]*$")
MOODLE_FOLDER = re.compile(r"^(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?$")
MOODLE_FLAT = re.compile(
    r"^(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.+)$"
)
CANVAS_FILE = re.compile(r"^(?P<name>.+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<file>\d+)_(?P<rest>.+)$")
CANVAS_TEXT = re.compile(r"^(?P<name>.+?)(?P<late>_LATE)?_(?P<id>\d+)_(?:text|link)\.html$")
ATTEMPT = re.compile(r"^(?P<stem>.*?)-(?P<n>\d+)(?P<ext>\.[^.]*)?$")


@dataclass(frozen=True)
class Origin:
    """Who handed a file in, as the download names them."""

    lms: str  # moodle, canvas, folder (one folder per student) or file (<student>_<anything>)
    name: str  # Moodle's full name, Canvas's sortable name, the folder or the file's prefix
    lms_id: str = ""  # Moodle participant id, Canvas user id
    file_id: int = 0  # Canvas attachment id (its feedback re-upload names it)
    attempt: int = 0  # Canvas's -1, -2 suffix of a re-uploaded file
    late: bool = False  # Canvas's _LATE_

    @property
    def key(self) -> tuple[str, str]:
        """One person in the LMS (two files with the same key are the same person's)."""
        return (self.lms, self.lms_id or self.name)

    @property
    def order(self) -> tuple[int, int]:
        """Later uploads sort higher."""
        return (self.file_id, self.attempt)


def origin(rel: PurePath) -> Origin | str:
    """Who handed in the file at `rel` (a path inside the download), or why that is unknown."""
    top, single = rel.parts[0], len(rel.parts) == 1
    if not single and (m := MOODLE_FOLDER.match(top)):
        if m["plugin"] != "file":
            return f"Moodle {m['plugin']} submission, not a file: hand in the .ipynb as a file"
        return Origin("moodle", m["name"], m["id"])
    if single and (m := MOODLE_FLAT.match(top)):
        if m["plugin"] != "file":
            return f"Moodle {m['plugin']} submission, not a file: hand in the .ipynb as a file"
        return Origin("moodle", m["name"], m["id"])
    if single and CANVAS_TEXT.match(top):
        return "Canvas online text or link, not a file: hand in the .ipynb as a file"
    if single and (m := CANVAS_FILE.match(top)):
        attempt = ATTEMPT.match(m["rest"])
        return Origin("canvas", m["name"], m["id"], int(m["file"]),
                      int(attempt["n"]) if attempt else 0, bool(m["late"]))  # fmt: skip
    if not single:
        return Origin("folder", top)
    if "_" in top and top.split("_", 1)[0]:
        return Origin("file", top.split("_", 1)[0])
    return "unknown layout: not <student>_<anything>, nor a Moodle or Canvas download name"


def _slug(name: str) -> str:
    """A full name as a student id: "José Núñez" -> "jose-nunez"."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


def student_of(found: Origin, ids: dict[str, str] | None) -> str:
    """The course's id of the student who handed `found` in (LookupError: why there is none)."""
    if ids is not None:
        for key in (found.lms_id, found.name):
            if key and key in ids:
                return ids[key]
        raise LookupError(
            f"{found.lms} {found.name!r} (id {found.lms_id or '-'}) is not in the id map"
        )
    student = _slug(found.name) if found.lms == "moodle" else found.name.replace("_", "-")
    if not STUDENT.match(student):
        raise LookupError(f"{found.name!r} is not a usable student id (give an id map: --ids)")
    return student


def read_ids(path: Path) -> dict[str, str]:
    """An id map: CSV rows `LMS id or name,student id` (a first row starting `lms` is a header)."""
    ids: dict[str, str] = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        for i, row in enumerate(csv.reader(f)):
            cells = [c.strip() for c in row]
            if not cells or not cells[0] or cells[0].startswith("#"):
                continue
            if i == 0 and cells[0].lower().startswith("lms"):
                continue
            if len(cells) < 2 or not STUDENT.match(cells[1]):
                raise ValueError(f"{path}:{i + 1}: not `LMS id or name,student id`: {row}")
            ids[cells[0]] = cells[1]
    return ids


def _path(root: Path, lab: str) -> Path:
    return Path(root) / "lms" / f"{lab}.json"


def load(root: Path, lab: str) -> dict[str, dict]:
    """student -> their LMS identity (Origin's fields and the file it came from) for `lab`."""
    path = _path(root, lab)
    return json.loads(path.read_text()) if path.exists() else {}


def save(root: Path, lab: str, found: dict[str, tuple[Origin, str]]) -> None:
    """Merge these students' LMS identities into lms/<lab>.json (others are kept)."""
    if not found:
        return
    merged = load(root, lab)
    merged.update({s: {**asdict(o), "source": src} for s, (o, src) in found.items()})
    path = _path(root, lab)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merged, indent=1, sort_keys=True))


def feedback_name(record: dict, page: str) -> str | None:
    """Where a student's feedback page goes in the LMS's bulk feedback zip (None: it cannot).

    Moodle's "Upload multiple feedback files in a zip" finds the participant id in a folder named
    as in the download; Canvas's "Re-Upload Submissions" takes the user id and the attachment id of
    a file of the student's submission from the file name, and attaches the file as a comment."""
    if record.get("lms") == "moodle":
        return f"{record['name']}_{record['lms_id']}_assignsubmission_file/{page}"
    if record.get("lms") == "canvas" and record.get("file_id"):
        late = "_LATE" if record.get("late") else ""
        return f"{record['name']}{late}_{record['lms_id']}_{record['file_id']}_{page}"
    return None
