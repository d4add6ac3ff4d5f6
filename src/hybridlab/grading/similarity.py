"""Copies found: every submission's answer cells compared with each other's and with the
published solution, by copydetect (winnowing, as MOSS: Schleimer, Wilkerson and Aiken,
"Winnowing: local algorithms for document fingerprinting", SIGMOD 2003).

    hybridlab similarity LAB [--threshold 0.85]   the HTML report, and who is flagged

One document per submission and language: its C answer cells (`%%c`) in one, its Python answer
cells in the other, each cell headed by a comment naming its grade_id. copydetect tokenizes them
(pygments), replaces every name by one letter and every string by another (a renamed variable or
function changes nothing; so does the name of the MPI call), makes every preprocessor line (an
OpenMP pragma too) one letter, drops comments and hashes every k-gram of what is left. The code
the lab gives every student is left out as boilerplate (`boilerplate`): what the release keeps of
the answer cells (signatures, comments, stubs), the notebook's other code cells and code blocks,
and the kit's kernel files its C cells are built with. A pair's share, for each side, is the part
of that side's tokens found in the other; a pair is flagged when either share reaches the
threshold, THRESHOLD by default: set from the shares measured on the kit's corpora (right
answers written independently, renamed copies of the solution; book/instructors.md). The published solution
(the instructor notebook in source/, minus nbgrader's delimiter lines) is one more document,
named SOLUTION. The report is written to reports/<lab>-similarity.html: the flagged pairs side
by side with the shared code highlighted, then the highest shares below the threshold.

A flag is a reason to read two answers, not a verdict: short answers to a narrow question (one
MPI call with the arguments the exercise fixes) are alike when written independently, and the
shares say how much was alike.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rest is imported where it is used: the command line's parser imports
    import nbformat  # this module (add_command), and nbgrader takes seconds to import

    from .course import Lab

SOLUTION = "published solution"  # the instructor notebook's answers, as a document of its own
THRESHOLD = 0.85  # a pair is flagged when either side shares this much (measured: book/instructors.md)
NOISE = 25  # characters of tokenized code: shorter matches are not counted (copydetect default)
# Matches this long are always found: the winnowing window is GUARANTEE - NOISE + 1. copydetect's
# default, 1, keeps every k-gram: the shares are then the same each time (Python's string hashes
# differ between processes, and a wider window keeps another sample each time: +-3% measured)
GUARANTEE = NOISE
LANGUAGES = {"C": ("c", "//"), "Python": ("py", "#")}  # extension (picks the lexer), comment
FENCE = re.compile(r"```(\w*)[^\n]*\n(.*?)```", re.S)  # a code block in a markdown cell
C_FENCES = ("c", "h", "cpp")  # a block of C (any other is Python's, or text left as it is)
# nbgrader's hidden-test delimiters, spelt in two pieces: this module is in the student's image,
# whose files must hold no marker text (tests/test_packaging.py)
HIDDEN = tuple(f"### {edge} HIDDEN TESTS" for edge in ("BEGIN", "END"))
SHOWN_BELOW = 10  # pairs below the threshold listed (not shown side by side) in the report
SHOWN_OTHERS = 4  # documents named per flagged submission in the printed text and notes


@dataclass
class Pair:
    """Two documents of one language and how much of each the other holds."""

    first: str
    second: str
    language: str
    shares: tuple[float, float]  # of first's tokens found in second, and of second's in first
    shown: tuple[str, str]  # each document as HTML, the shared code highlighted

    @property
    def share(self) -> float:
        return max(self.shares)

    def other(self, who: str) -> str:
        return self.second if who == self.first else self.first


@dataclass
class Report:
    lab: str
    threshold: float
    documents: dict[str, list[str]]  # language -> names of the documents compared
    pairs: list[Pair]  # every pair with code in common, highest share first
    path: Path | None = None  # where the HTML was written

    @property
    def flagged_pairs(self) -> list[Pair]:
        return [p for p in self.pairs if p.share >= self.threshold]

    def flagged(self) -> dict[str, list[str]]:
        """student -> whose answers theirs are flagged with, the most alike first, each as
        'published solution (C 97%, Python 88%)'."""
        found: dict[str, dict[str, list[str]]] = {}
        for pair in self.flagged_pairs:  # highest share first
            for who in (pair.first, pair.second):
                if who != SOLUTION:
                    shares = found.setdefault(who, {}).setdefault(pair.other(who), [])
                    shares.append(f"{pair.language} {pair.share:.0%}")
        return {
            who: [f"{other} ({', '.join(shares)})" for other, shares in others.items()]
            for who, others in sorted(found.items())
        }

    def text(self) -> str:
        """What `hybridlab similarity` and `hybridlab grade` print."""
        counts = " and ".join(f"{len(v)} with {k}" for k, v in self.documents.items() if v)
        flagged = self.flagged()
        head = (
            f"similarity: submissions' answers ({counts or 'none'}) compared with each other and "
            f"the {SOLUTION}, flagged at {self.threshold:.0%} shared: "
            + (f"{len(flagged)} submission(s) flagged" if flagged else "none flagged")
        )
        lines = [head + (f"; report: {self.path}" if self.path else "")]
        lines += [f"  {who}: similar to {listed(others)}" for who, others in flagged.items()]
        return "\n".join(lines)


def listed(others: list[str]) -> str:
    """The first SHOWN_OTHERS of a flagged submission's others, and how many more (the report
    names them all)."""
    more = f" and {len(others) - SHOWN_OTHERS} more" if len(others) > SHOWN_OTHERS else ""
    return ", ".join(others[:SHOWN_OTHERS]) + more


# ------------------------------------------------------------------------------ documents


def _delimiters() -> tuple[str, str]:
    """nbgrader's solution delimiters (grading/nbgrader_config.py names the same ones)."""
    from nbgrader.preprocessors import ClearSolutions

    return (ClearSolutions.begin_solution_delimeter.default_value,
            ClearSolutions.end_solution_delimeter.default_value)  # fmt: skip


def _without_delimiters(source: str) -> str:
    begin, end = _delimiters()
    return "\n".join(line for line in source.splitlines() if begin not in line and end not in line)


def _released(source: str) -> str:
    """What the released notebook keeps of an answer cell: the lines outside its solution
    regions (a cell without regions is released as a stub: nothing of it is given)."""
    begin, end = _delimiters()
    kept, inside, regions = [], False, False
    for line in source.splitlines():
        if begin in line:
            inside = regions = True
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept) if regions else ""


def _as_code(source: str, language: str) -> str:
    """A cell as plain code of its language: magic lines (`%%c NAME kernel`, `%%px`, `!cmd`)
    become comments, so the lexer reads the rest."""
    comment = LANGUAGES[language][1]
    return "\n".join(
        f"{comment} {line}" if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    )


def _shown_to_students(source: str) -> str:
    """A test cell as released: without its hidden tests."""
    kept, hidden = [], False
    for line in source.splitlines():
        if HIDDEN[0] in line:
            hidden = True
        elif HIDDEN[1] in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def boilerplate(lab: Lab, language: str) -> list[str]:
    """The code `lab` gives every student in `language`, left out of every comparison: what the
    release keeps of the answer cells (signatures, comments, stubs), the notebook's other code
    cells (examples, visible tests) and code blocks in its text, and for C the kit's files the
    C cells are built with (kernels_c/<kernel>.c and <kernel>_student.h), which the notebook
    sends the student to read: an answer that follows the notebook's recipe or the kit's own
    variant shares that code with the solution without copying it."""
    from ..paths import find_kernel_file
    from .c_stub import is_c_cell

    nb = lab.notebook()
    cells = answer_cells(lab)
    given = [documents(nb, cells, _released).get(language, "")]
    kernels: set[str] = set()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown":
            given += [block for kind, block in FENCE.findall(cell.source)
                      if (kind.lower() in C_FENCES) == (language == "C")]  # fmt: skip
            continue
        kernels |= set(re.findall(r"^%%c\s+\w+\s+(\w+)", cell.source, re.M))
        if cell.cell_type == "code" and not meta.get("solution") \
                and is_c_cell(cell) == (language == "C"):  # fmt: skip
            given.append(_as_code(_shown_to_students(cell.source), language))
    if language == "C":
        for kernel in sorted(kernels):
            for name in (f"{kernel}.c", f"{kernel}_student.h"):
                path = find_kernel_file(name)
                if path is not None:
                    given.append(path.read_text())
    return [text for text in given if text.strip()]


def answer_cells(lab: Lab) -> dict[str, str]:
    """grade_id -> language of every code answer cell of the instructor notebook."""
    from .c_stub import is_c_cell

    return {
        cell.metadata["nbgrader"]["grade_id"]: "C" if is_c_cell(cell) else "Python"
        for cell in lab.notebook().cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
    }


def documents(nb: nbformat.NotebookNode, cells: dict[str, str], edit=None) -> dict[str, str]:
    """language -> the notebook's answer cells of that language as one document (the cells the
    instructor notebook names, found by grade_id), each edited by `edit` first."""
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    out: dict[str, list[str]] = {}
    for grade_id, language in cells.items():
        cell = by_id.get(grade_id)
        if cell is None or cell.cell_type != "code":
            continue
        source = edit(cell.source) if edit else cell.source
        comment = LANGUAGES[language][1]
        out.setdefault(language, []).append(f"{comment} {grade_id}\n{_as_code(source, language)}")
    return {language: "\n\n".join(parts) + "\n" for language, parts in out.items()}


# ------------------------------------------------------------------------------ comparing


def _fingerprint(name: str, text: str, language: str, boilerplate=None):
    from copydetect import CodeFingerprint

    window = GUARANTEE - NOISE + 1
    ext = LANGUAGES[language][0]
    return CodeFingerprint(
        f"{name}.{ext}", NOISE, window, boilerplate=boilerplate, fp=io.StringIO(text)
    )


def _shown(text: str, slices) -> str:
    from copydetect.utils import highlight_overlap

    marked, _ = highlight_overlap(text, slices, "<mark>", "</mark>", escape_html=True)
    return marked


def compare(lab: Lab, threshold: float = THRESHOLD, write: bool = True) -> Report:
    """Compare the answer cells of every submission of `lab` (submitted/) with each other's and
    with the published solution's; write the HTML report (unless `write` is False)."""
    import nbformat
    from copydetect import compare_files

    from .course import GradingError
    from .submissions import submitted

    if not 0 < threshold <= 1:
        raise GradingError(f"threshold {threshold!r}: expected a share above 0, at most 1")
    cells = answer_cells(lab)
    instructor = lab.notebook()
    docs = {SOLUTION: documents(instructor, cells, _without_delimiters)}
    for student, path in submitted(lab.root, lab.name).items():
        try:
            docs[student] = documents(nbformat.read(path, as_version=4), cells)
        except (OSError, ValueError, nbformat.ValidationError):
            continue  # not a readable notebook: grading says so
    names: dict[str, list[str]] = {}
    pairs = []
    for language in LANGUAGES:
        given = set()
        for text in boilerplate(lab, language):
            given |= set(_fingerprint("given", text, language, None).hashes)
        prints = {
            name: _fingerprint(name, texts[language], language, sorted(given) or None)
            for name, texts in docs.items()
            if texts.get(language)
        }
        names[language] = [n for n in prints if n != SOLUTION]
        for a, b in combinations(prints, 2):
            overlap, shares, slices = compare_files(prints[a], prints[b])
            if overlap:
                shown = (_shown(prints[a].raw_code, slices[0]),
                         _shown(prints[b].raw_code, slices[1]))  # fmt: skip
                pairs.append(Pair(a, b, language, (float(shares[0]), float(shares[1])), shown))
    pairs.sort(key=lambda p: -p.share)
    report = Report(lab.name, threshold, names, pairs)
    if write:
        report.path = lab.root / "reports" / f"{lab.name}-similarity.html"
        report.path.parent.mkdir(parents=True, exist_ok=True)
        report.path.write_text(page(report))
    return report


# ------------------------------------------------------------------------------ the page

STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table.pairs td, table.pairs th { padding: 0.2em 0.8em; text-align: left; }
.side { display: flex; gap: 1em; }
.side > div { flex: 1; min-width: 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
mark { background: #ffd27a; }
"""


def _row(pair: Pair) -> str:
    a, b = (html.escape(n) for n in (pair.first, pair.second))
    return (
        f"<tr><td>{a}</td><td>{b}</td><td>{pair.language}</td>"
        f"<td>{pair.shares[0]:.0%}</td><td>{pair.shares[1]:.0%}</td></tr>"
    )


def _table(pairs: list[Pair]) -> str:
    head = (
        "<tr><th>submission</th><th>other</th><th>language</th>"
        "<th>share of the first in the other</th><th>share of the other in the first</th></tr>"
    )
    return f"<table class='pairs'>{head}{''.join(_row(p) for p in pairs)}</table>"


def page(report: Report) -> str:
    """The report as one HTML page (no script, no file beside it)."""
    flagged = report.flagged_pairs
    below = [p for p in report.pairs if p.share < report.threshold][:SHOWN_BELOW]
    counts = ", ".join(f"{len(v)} in {k}" for k, v in report.documents.items())
    parts = [
        f"<h1>{html.escape(report.lab)}: similar answers</h1>",
        f"<p>Submissions with answers: {counts or 'none'}; each compared with every other and "
        f"with the {SOLUTION}. A pair is flagged when at least {report.threshold:.0%} of either "
        "side's code (after names and strings are made anonymous, the code the released "
        "notebook gives left out) is also in the other. Shared code is "
        "<mark>highlighted</mark>. A flag is a reason to read both answers, not a verdict.</p>",
        f"<h2>Flagged: {len(flagged)} pair(s)</h2>",
        _table(flagged) if flagged else "<p>None.</p>",
    ]
    for pair in flagged:
        a, b = (html.escape(n) for n in (pair.first, pair.second))
        parts.append(
            f"<h3>{a} and {b} ({pair.language}: {pair.shares[0]:.0%} / {pair.shares[1]:.0%})</h3>"
            f"<div class='side'><div><b>{a}</b><pre>{pair.shown[0]}</pre></div>"
            f"<div><b>{b}</b><pre>{pair.shown[1]}</pre></div></div>"
        )
    parts.append(f"<h2>Highest shares below {report.threshold:.0%}</h2>")
    parts.append(_table(below) if below else "<p>None.</p>")
    body = "\n".join(parts)
    title = html.escape(f"{report.lab} similarity")
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )


def add_command(sub) -> None:
    """`hybridlab similarity LAB`: the subcommand, on the command line's parser (cli.py)."""
    command = sub.add_parser(
        "similarity", help="compare the answers of LAB's submissions: an HTML report of copies"
    )
    command.add_argument("lab")
    command.add_argument(
        "--threshold", type=float, default=THRESHOLD,
        help=f"flag a pair when either shares this much of its code (default {THRESHOLD})",
    )  # fmt: skip
    command.set_defaults(func=_command)


def _command(args) -> int:
    import sys

    from .course import GRADING, GradingError, read_lab

    try:
        report = compare(read_lab(GRADING, args.lab), args.threshold)
    except GradingError as err:
        print(err, file=sys.stderr)
        return 1
    print(report.text())
    return 0


