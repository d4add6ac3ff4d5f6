"""What students read stays clean (issue 32): no talk of OCR or text extraction, no source
named by its workspace number, and one spelling per term: masteronly (Rabenseifner's term;
"Master Only" only where a table header is quoted) and funneled (MPI's spelling; `funnelled`
only as the kernels' variant name in code). Scanned: the instructor notebooks' markdown, the
released labs' markdown, and every page of the book.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EMBARRASSING = re.compile(
    r"\bOCR\b|text extraction|\bour copy\b|did not survive|survives? only as|noisy scan", re.I
)
# a source named by its workspace number: "002", "003, 4 nodes", REFERENCE["001-table-3"], 000 A.23
WORKSPACE_NUMBER = re.compile(
    r"\"00[0-4]\"|REFERENCE\[\"00[0-4]-|(?<![\w.,/#-])00[0-4](?:,? (?:Table|table|slide|section|"
    r"A\.\d|\d+ nodes?)|'s\b)"
)
# inline code, quoted words (a quoted table header, Stathopoulos's own term) and code blocks pass
PROTECTED = re.compile(r"```.*?```|`[^`\n]*`|\"[^\"\n]{0,60}\"|'[^'\n]{0,30}'", re.S)
NOT_CHOSEN = re.compile(r"\b[Mm]aster[ -]only\b|\bMaster Only\b|\b[Ff]unnelled\b")
THE_MASTER_ONLY = re.compile(r"\b[Tt]he master only\s+\"?(communicates|exchanges)")  # "only" modifies


def _markdown(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _student_texts() -> dict[str, str]:
    texts = {}
    for path in sorted((ROOT / "grading" / "source").glob("*/*.ipynb")):
        texts[str(path.relative_to(ROOT))] = _markdown(path)
    for path in sorted((ROOT / "labs").glob("*.ipynb")):
        texts[str(path.relative_to(ROOT))] = _markdown(path)
    for path in sorted((ROOT / "book").rglob("*.md")):
        if "_build" not in path.parts:
            texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return texts


TEXTS = _student_texts()


def _hits(pattern: re.Pattern, text: str) -> list[str]:
    return [text[max(0, m.start() - 30):m.end() + 30].replace("\n", " ") for m in pattern.finditer(text)]


def test_there_is_something_to_read():
    assert len([k for k in TEXTS if k.startswith("grading")]) >= 10
    assert any(k.startswith("book/labs/") for k in TEXTS)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_ocr_talk(name):
    assert not _hits(EMBARRASSING, TEXTS[name]), "say what the slide or page shows"


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_workspace_numbers_as_names(name):
    assert not _hits(WORKSPACE_NUMBER, TEXTS[name]), "cite by author, title, year and table"


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_one_spelling_per_term(name):
    prose = PROTECTED.sub(" ", TEXTS[name])
    prose = THE_MASTER_ONLY.sub(" ", prose)
    assert not _hits(NOT_CHOSEN, prose), "write masteronly and funneled (book/glossary.md)"


def test_luecke_et_al_is_not_followed_by_its_own_citation():
    bad = {n: h for n, t in TEXTS.items() if (h := _hits(re.compile(
        r"Luecke et al\.\s+\(Luecke et al\."), t))}  # fmt: skip
    assert not bad


def test_the_glossary_is_in_the_book_and_defines_the_terms():
    toc = (ROOT / "book" / "_toc.yml").read_text()
    assert "- file: glossary" in toc
    page = (ROOT / "book" / "glossary.md").read_text()
    for term in ("masteronly", "funneled", "serialized", "multiple", "halo", "first touch",
                 "NUMA node", "EPCC overhead", "eager / rendezvous"):  # fmt: skip
        assert f"\n{term}\n: " in page, term


def test_the_patterns_catch_what_they_are_for():
    assert EMBARRASSING.search("The OCR of slide 8") and EMBARRASSING.search("a noisy OCR")
    assert EMBARRASSING.search("did not survive the slides' text extraction")
    for s in ('("002" below)', "003, 4 nodes", 'REFERENCE["001-table-3"]', "000 A.23", "as 003's"):
        assert WORKSPACE_NUMBER.search(s), s
    for s in ("200 000 doubles", "0.004 s", "2004"):
        assert not WORKSPACE_NUMBER.search(s), s
    assert NOT_CHOSEN.search("master only") and NOT_CHOSEN.search("Funnelled was")
    assert not NOT_CHOSEN.search(PROTECTED.sub(" ", 'the "Master Only" rows, `variant="funnelled"`'))
