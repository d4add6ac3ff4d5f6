"""A way in for lab authors: `hybridlab new-lab NAME` scaffolds a lab that passes the kit's own
convention tests as generated, `hybridlab new-part LAB KIND NAME` adds a graded part to one
(book, "Writing a lab").

    written = new_lab("11_reductions", course=Path("~/course"))  # a course folder of your own
    missing_entries(root, "11_reductions")      # the kit's lists a lab must join that lack it

A new lab is: the instructor notebook <course>/source/NAME/NAME.ipynb (a C part against a kernel,
its visible and hidden tests, a Python part, a written part), a kernel of the course's own
(<course>/kernels/KERNEL.c and KERNEL_student.h, searched after kernels_c/), a book page, and its
wrong answers and gaming attempts (the course's corpora: corpus_folder). In the kit's own course
(the checkout's grading/) the corpora are the kit's tests/wrong_answers/ and tests/gaming/ and the
lab joins every list a lab of the kit must join (LISTS): the book's toc, the course map, the
README's lab table and the grading round trip's LABS (tests/test_grading.py). A course folder of
an instructor's own keeps all of it inside itself (<course>/tests/, <course>/book/labs/): the kit's
checkout is not changed. A scaffold that fails is undone whole (Scaffold). The texts are files
in templates/lab/, filled with the lab's names ({{lab}}, {{kernel}}, ...).
"""

from __future__ import annotations

import ast
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import nbformat

from ..paths import CHECKOUT, find_kernel_file, grading_dir

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "lab"
PART_TEMPLATES = TEMPLATES.parent / "part"
PART_KINDS = ("c", "python", "written")  # a whole C program, a Python function, a written answer
PART_NAME = re.compile(r"[a-z][a-z0-9_]*")
LAB_NAME = re.compile(r"(?P<number>\d+)_(?P<rest>[a-z][a-z0-9_]*)")
KERNEL_NAME = re.compile(r"[a-z][a-z0-9_]*")
KERNELSPEC = {
    "name": "hybridlab",
    "display_name": "hybridlab (Python 3, MPI)",
    "language": "python",
}
# Every list a lab must join: (file under the project root, what names the lab in it)
LISTS = {
    "book/_toc.yml": "      - file: labs/{lab}",
    "book/course_map.md": "{{doc}}`labs/{lab}`",
    "README.md": "| {number} ",
    "tests/test_grading.py": '    "{lab}": Broken(',
}


class AuthoringError(ValueError):
    """The lab cannot be scaffolded as asked; the message says why."""


class Scaffold:
    """What a scaffold wrote, with what each file held before: `undo` puts everything back (a
    file it changed gets its old text, a file or folder it made is removed)."""

    def __init__(self) -> None:
        self.before: dict[Path, str | None] = {}  # file -> its text before (None: it was new)
        self.made: list[Path] = []  # folders (and paths other steps make) that were not there

    def write(self, path: Path, text: str) -> Path:
        path = Path(path)
        if path not in self.before:
            self.before[path] = path.read_text() if path.exists() else None
        for folder in reversed([path.parent, *path.parent.parents]):
            self.adopt(folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def adopt(self, path: Path) -> None:
        """Remove `path` too on undo when it does not exist now (another step may make it)."""
        if not Path(path).exists() and Path(path) not in self.made:
            self.made.append(Path(path))

    def undo(self) -> None:
        for path, text in self.before.items():
            if text is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(text)
        for path in reversed(self.made):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink()


@contextmanager
def scaffolding(scaffold: Scaffold | None = None):
    """A Scaffold (this one, or a new one) undone when the block raises."""
    scaffold = scaffold or Scaffold()
    try:
        yield scaffold
    except BaseException:
        scaffold.undo()
        raise


def is_kit_course(course: Path, root: Path = CHECKOUT) -> bool:
    """Whether `course` is the kit's own course folder (the checkout's grading/)."""
    return Path(course).resolve() == (Path(root) / "grading").resolve()


def corpus_folder(course: Path, root: Path = CHECKOUT) -> Path:
    """Where a course's wrong answers and gaming attempts live (wrong_answers/, gaming/ in it):
    the kit's tests/ for the kit's own course, else tests/ inside the course folder, so a
    course's answers stay out of the kit's public tests."""
    return Path(root) / "tests" if is_kit_course(course, root) else Path(course) / "tests"


def _course(course: Path | None, root: Path) -> Path:
    """The course folder to scaffold in: `course`, else HYBRIDLAB_GRADING, else root/grading;
    AuthoringError when it is not one (no nbgrader_config.py)."""
    if course is None:
        course = grading_dir(must_exist=False) if Path(root) == CHECKOUT else Path(root) / "grading"
    course = Path(course).expanduser()
    if not (course / "nbgrader_config.py").is_file():
        raise AuthoringError(
            f"{course} is not a course folder (no nbgrader_config.py): give one with --course "
            "or HYBRIDLAB_GRADING (book/instructors.md, 'A course folder of your own')"
        )
    return course


def names(lab: str, kernel: str | None = None) -> dict[str, str]:
    """The values the templates are filled with."""
    match = LAB_NAME.fullmatch(lab)
    if not match:
        raise AuthoringError(
            f"lab name {lab!r}: a number, an underscore, then lower-case words joined by _ "
            "(e.g. 11_reductions)"
        )
    kernel = kernel or match["rest"]
    if not KERNEL_NAME.fullmatch(kernel):
        raise AuthoringError(f"kernel name {kernel!r} must be a lower-case C identifier")
    return {
        "lab": lab,
        "number": match["number"],
        "title": match["rest"].replace("_", " ").capitalize(),
        "kernel": kernel,
        "KERNEL": kernel.upper(),
        # nbgrader's region markers, spelt out only in what is written: the kit's own files hold
        # none (the student image is checked for them)
        "BEGIN": "BEGIN",
        "END": "END",
    }


def render(template: str, values: dict[str, str], folder: Path = TEMPLATES) -> str:
    """templates/lab/<template> (or folder/<template>) with every {{key}} replaced."""
    text = (folder / template).read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    left = re.findall(r"\{\{\w+\}\}", text)
    if left:
        raise AuthoringError(f"{template}: no value for {sorted(set(left))}")
    return text


def _metadata(words: list[str]) -> dict:
    """nbgrader's metadata of a cell from its header words: id=ID, grade, solution, locked,
    points=N."""
    flags = dict(w.split("=", 1) if "=" in w else (w, True) for w in words)
    meta = {
        "grade": "grade" in flags,
        "grade_id": flags["id"],
        "locked": "locked" in flags,
        "schema_version": 3,
        "solution": "solution" in flags,
        "task": False,
    }
    if meta["grade"]:
        meta["points"] = float(flags.get("points", 1))
    return {"nbgrader": meta}


def notebook(text: str) -> nbformat.NotebookNode:
    """A notebook from the cells format of templates/lab/lab.cells: a line `%% markdown` or
    `%% code`, with `id=... grade solution locked points=N` for nbgrader's cells, starts a cell."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    header, lines = None, []

    def flush() -> None:
        if header is None:
            return
        kind, *words = header
        meta = _metadata(words) if words else {}
        source = "\n".join(lines).strip("\n")
        make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        nb.cells.append(make(source, metadata=meta))

    for line in text.splitlines():
        if line.startswith("%% "):
            flush()
            header, lines = line[3:].split(), []
        else:
            lines.append(line)
    flush()
    return nb


def missing_entries(root: Path, lab: str) -> list[str]:
    """The lists a lab must join (LISTS) that do not name `lab`, as 'file: what is missing'."""
    values = names(lab, "x")
    missing = []
    for name, entry in LISTS.items():
        path = Path(root) / name
        text = path.read_text() if path.is_file() else ""
        if name == "tests/test_grading.py":
            found = lab in grading_labs(text)
        elif name == "README.md":
            table = text.split("## The labs", 1)[-1].split("\n## ", 1)[0]
            found = any(line.startswith(entry.format(**values)) for line in table.splitlines())
        else:
            found = entry.format(**values) in text
        if not found:
            missing.append(f"{name}: {entry.format(**values).strip()}")
    return missing


def grading_labs(text: str) -> list[str]:
    """The labs of the grading round trip's LABS dict (tests/test_grading.py), read with ast."""
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "LABS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return []


def _insert_after_last(text: str, pattern: str, new: str, what: str) -> str:
    """`new` (a line) after the last line matching `pattern`."""
    found = list(re.finditer(pattern, text, re.M))
    if not found:
        raise AuthoringError(f"no place for the new lab in {what}")
    end = text.index("\n", found[-1].end()) + 1 if "\n" in text[found[-1].end() :] else len(text)
    return text[:end] + new + "\n" + text[end:]


def _join_lists(root: Path, v: dict[str, str], scaffold: Scaffold) -> list[Path]:
    toc = root / "book" / "_toc.yml"
    scaffold.write(
        toc,
        _insert_after_last(
            toc.read_text(),
            r"^\s+- file: labs/.*$",
            LISTS["book/_toc.yml"].format(**v),
            "book/_toc.yml",
        ),
    )
    course_map = root / "book" / "course_map.md"
    row = (
        f"| {v['number']} {v['title'].lower()} | **draft** | one collective against a ring; a C part "
        f"judged by its trace | the kit's MPI_Allreduce timed; your global_sum checked | "
        f"see {{doc}}`labs/{v['lab']}` |"
    )
    scaffold.write(
        course_map,
        _insert_after_last(course_map.read_text(), r"^\| \d+ .*\|$", row, "the course map"),
    )
    readme = root / "README.md"
    row = f"| {v['number']} {v['title'].lower()} | a sum over ranks in C, judged by its trace (scaffolded) | draft |"
    head, sep, rest = readme.read_text().partition("## The labs")
    table, sep2, tail = rest.partition("\n## ")
    scaffold.write(
        readme,
        head
        + sep
        + _insert_after_last(table, r"^\| \d+ .*\|$", row, "README's lab table")
        + sep2
        + tail,
    )
    grading = root / "tests" / "test_grading.py"
    text = grading.read_text()
    start = re.search(r"^LABS = \{\n", text, re.M)
    if not start:
        raise AuthoringError("no LABS = { in tests/test_grading.py")
    close = text.index("\n}\n", start.end()) + 1
    scaffold.write(grading, text[:close] + render("grading_entry.py.txt", v) + text[close:])
    return [toc, course_map, readme, grading]


def new_lab(
    lab: str,
    *,
    root: Path = CHECKOUT,
    course: Path | None = None,
    kernel: str | None = None,
    scaffold: Scaffold | None = None,
) -> list[Path]:
    """Scaffold lab `lab` in the course folder `course` (default: HYBRIDLAB_GRADING, else
    root/grading) of the kit at `root`; return every file written or changed. AuthoringError
    when the lab or its kernel exists already, or a list has no place for it; nothing is left
    behind then (the files go through `scaffold`, undone on any error)."""
    root = Path(root)
    course = _course(course, root)
    kit = is_kit_course(course, root)
    v = names(lab, kernel)
    folder = course / "source" / lab
    if folder.exists():
        raise AuthoringError(f"{folder} exists already")
    kernels = course / "kernels"
    if find_kernel_file(f"{v['kernel']}.c") or (kernels / f"{v['kernel']}.c").exists():
        raise AuthoringError(f"a kernel {v['kernel']!r} exists already: pass another (--kernel)")
    corpora = corpus_folder(course, root)
    files = {
        folder / f"{lab}.ipynb": None,
        kernels / f"{v['kernel']}.c": "kernel.c",
        kernels / f"{v['kernel']}_student.h": "kernel_student.h",
        (root if kit else course) / "book" / "labs" / f"{lab}.md": "book.md",
        corpora / "wrong_answers" / f"{lab}.py": "wrong_answers.py.txt",
        corpora / "gaming" / f"{lab}.py": "gaming.py.txt",
    }
    for path in files:
        if path.exists():
            raise AuthoringError(f"{path} exists already")
    if kit:
        missing = missing_entries(root, lab)
        if len(missing) < len(LISTS):
            raise AuthoringError(
                f"{lab} is listed already: {set(LISTS) - {m.split(':')[0] for m in missing}}"
            )
    with scaffolding(scaffold) as done:
        for path, template in files.items():
            if template is None:
                done.write(path, _text(notebook(render("lab.cells", v))))
            else:
                done.write(path, render(template, v))
        return list(files) + (_join_lists(root, v, done) if kit else [])


def new_part(
    lab: str,
    kind: str,
    part: str,
    *,
    root: Path = CHECKOUT,
    course: Path | None = None,
    scaffold: Scaffold | None = None,
) -> list[Path]:
    """Add a graded part of `kind` (PART_KINDS) named `part` to lab `lab` of the course folder
    `course` (as new_lab): its cells (question, answer, visible test, hidden test with points; a
    written part's question and rubric) before the notebook's last cell when that stops the
    cluster, and for an automatic part two wrong answers and three gaming attempts in the
    course's corpora (corpus_folder). Returns the files changed. AuthoringError when the kind,
    the name or the lab is wrong, or a cell id exists already; nothing is changed then."""
    root = Path(root)
    course = _course(course, root)
    if kind not in PART_KINDS:
        raise AuthoringError(f"part kind {kind!r}: one of {', '.join(PART_KINDS)}")
    if not PART_NAME.fullmatch(part):
        raise AuthoringError(f"part name {part!r} must be a lower-case Python identifier")
    path = course / "source" / lab / f"{lab}.ipynb"
    if not path.is_file():
        raise AuthoringError(f"no lab {lab!r}: {path} does not exist")
    nb = nbformat.read(path, as_version=4)
    sections = [c for c in nb.cells if c.cell_type == "markdown" and re.match(r"## \d+\.", c.source)]
    v = {**names(lab, "x"), "part": part, "PART": part.upper(), "section": str(len(sections) + 1),
         "title": part.replace("_", " ").capitalize()}  # fmt: skip
    cells = notebook(render(f"{kind}.cells", v, PART_TEMPLATES)).cells
    taken = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
    clash = sorted(taken & {c.metadata.get("nbgrader", {}).get("grade_id") for c in cells} - {None})
    if clash:
        raise AuthoringError(f"{lab} has cells {clash} already: pick another part name")
    last = nb.cells[-1] if nb.cells else None
    at = len(nb.cells) - 1 if last is not None and "cluster.stop()" in last.source else len(nb.cells)
    nb.cells[at:at] = cells
    corpora = corpus_folder(course, root)
    lists = {"wrong": ("wrong_answers", "WRONG"), "gaming": ("gaming", "GAMING")}
    with scaffolding(scaffold) as done:
        changed = [done.write(path, _text(nb))]
        if kind == "written":
            return changed
        for suffix, (folder, name) in lists.items():
            target = corpora / folder / f"{lab}.py"
            text = target.read_text() if target.is_file() else ""
            close = _list_end(text, name, target)
            text = text[:close] + render(f"{kind}.{suffix}.txt", v, PART_TEMPLATES) + text[close:]
            if kind == "c" and not re.search(r"^from wrong_answers import .*\bc_cell\b", text, re.M):
                last = list(re.finditer(r"^(from|import) .*\n", text, re.M))[-1]
                text = text[: last.end()] + "from wrong_answers import c_cell\n" + text[last.end() :]
            changed.append(done.write(target, text))
        return changed


def _text(nb: nbformat.NotebookNode) -> str:
    """A notebook's file text, as nbformat.write puts it."""
    return nbformat.writes(nb) + "\n"


def _list_end(text: str, name: str, path: Path) -> int:
    """Where the entries of the module-level list `name` end (the offset of its closing `]`)."""
    for node in ast.parse(text).body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.List)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)):  # fmt: skip
            lines = text.splitlines(keepends=True)
            return sum(len(line) for line in lines[: node.value.end_lineno - 1]) + node.value.end_col_offset - 1
    raise AuthoringError(f"{path}: no `{name} = [...]` list to add the part's entries to")
