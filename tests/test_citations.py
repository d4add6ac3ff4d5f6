"""Citations a reader can follow: no workspace file name ("002_<hex>.txt") and no document number
used as a name ("002 slide 13", "(000, Table 4.32)", "as in 003") anywhere a student or an
instructor reads (labs, book, README, plot and table text, published data, kernels, benchmarks);
the book's bibliography gives every source's full reference; scripts/cite.py converts notebooks.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from hybridlab.reference import REFERENCE, SOURCES

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("cite", ROOT / "scripts" / "cite.py")
cite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cite)

INTERNAL = (cite.FILE_NAME, cite.NUMBER, cite.NUMBER_POSSESSIVE)


def _internal_names(text: str) -> list[str]:
    found = []
    for pattern in INTERNAL:
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"line {line}: {text[max(0, m.start() - 30):m.end() + 30]!r}")
    return found


def _notebook_text(path: Path) -> str:
    """Every cell's source, one after the other (what a student reads and runs)."""
    cells = json.loads(path.read_text())["cells"]
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                     for c in cells)  # fmt: skip


def _read_files() -> list[Path]:
    """Everything but notebooks that a reader sees: pages, README, package (plot captions, table
    text, published data), C kernels (their --help), benchmarks and their results."""
    paths = [ROOT / "README.md", *sorted((ROOT / "book").rglob("*.md"))]
    paths += sorted((ROOT / "src" / "hybridlab").rglob("*.py"))
    paths += sorted((ROOT / "src" / "hybridlab" / "reference" / "data").glob("*.toml"))
    paths += sorted((ROOT / "kernels_c").glob("*.[ch]"))
    paths += sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "benchmarks").glob("*.md"))
    return [p for p in paths if "_build" not in p.parts]


def test_no_internal_source_names_in_book_package_data_or_benchmarks():
    bad = {str(p.relative_to(ROOT)): hits for p in _read_files() if (hits := _internal_names(
        p.read_text(encoding="utf-8")))}  # fmt: skip
    assert not bad, f"cite these in short form (scripts/cite.py does it): {bad}"


def test_no_internal_source_names_in_notebooks():
    notebooks = sorted((ROOT / "grading" / "source").glob("*/*.ipynb"))
    notebooks += sorted((ROOT / "labs").glob("*.ipynb"))
    assert notebooks
    bad = {str(p.relative_to(ROOT)): f"{len(hits)} names, first {hits[0]}" for p in notebooks
           if (hits := _internal_names(_notebook_text(p)))}  # fmt: skip
    assert not bad, (
        f"run `.venv/bin/python scripts/cite.py grading/source && make release`: {bad}")


def test_published_tables_cite_short_form_and_full_reference():
    for key, table in REFERENCE.items():
        source = SOURCES[key[:3]]
        assert table.citation.startswith(f"{source.short}, "), key
        assert table.source == source.full
        assert not _internal_names(table.citation + table.note), key


def test_the_bibliography_gives_every_full_reference():
    page = (ROOT / "book" / "bibliography.md").read_text()
    flat = " ".join(page.split())
    for source in SOURCES.values():
        assert f"| {source.short} | {source.full} |" in flat, source.short
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "bibliography" in files


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("(002_21a7b3db713838d9.txt, slide 42)", "(Rabenseifner, slide 42)"),
        ("the dissertation 000_137a3e4545ee2d4e.txt reports", "the dissertation Stathopoulos 2010 reports"),
        ("## The overlap model (002, slides 41-42)", "## The overlap model (Rabenseifner, slides 41-42)"),
        ("**003 Table 2** (square", "**Luecke et al., Table 2** (square"),
        ("Amdahl fitted (000 Table 4.32)", "Amdahl fitted (Stathopoulos 2010, Table 4.32)"),
        ("where it misses (000 A.23 with", "where it misses (Stathopoulos 2010, Table A.23 with"),
        ("as in 003.", "as in Luecke et al."),
        ("in 000's Jacobi", "in Stathopoulos's Jacobi"),
        ("(004, CASTEP talk)", "(Armstrong et al., CASTEP talk)"),
        ("after seed 001 section 6", "after Smith et al. 2004, section 6"),
        ("* **002** (Rabenseifner, slide 13, \"The", "* **Rabenseifner** (slide 13, \"The"),
        ("* **004** (HECToR XT6 talks", "* **Armstrong et al.** (HECToR XT6 talks"),
        # numbers that are not document names stay
        ("200 000 doubles, 300,000 turns, 0.004 s, 2004, #000", None),
        ('REFERENCE["003-table-1"], key "002"', None),
    ],
)
def test_the_converter_rewrites_names_and_keeps_other_numbers(text, want):
    want = text if want is None else want
    assert cite.convert(text) == want
    assert cite.convert(want) == want  # idempotent


def test_the_converter_on_copies_of_the_notebooks(tmp_path: Path):
    """Today's instructor notebooks, copied: after one pass no internal name is left in any cell,
    a second pass changes nothing, and only cell sources change (outputs, metadata, keys stay)."""
    shutil.copytree(ROOT / "grading" / "source", tmp_path / "source")
    before = {p: json.loads(p.read_text()) for p in (tmp_path / "source").glob("*/*.ipynb")}
    assert len(before) >= 10
    assert cite.main([str(tmp_path / "source")]) == 0
    assert cite.main([str(tmp_path / "source"), "--check"]) == 0
    for path, old in before.items():
        new = json.loads(path.read_text())
        assert not _internal_names(_notebook_text(path)), path.name
        assert new["metadata"] == old["metadata"] and len(new["cells"]) == len(old["cells"])
        for a, b in zip(old["cells"], new["cells"], strict=True):
            assert {k: v for k, v in a.items() if k != "source"} == {
                k: v for k, v in b.items() if k != "source"}
            keys_a = re.findall(r"\d{3}-[a-z][\w.-]*", "".join(a["source"]))
            assert keys_a == re.findall(r"\d{3}-[a-z][\w.-]*", "".join(b["source"]))


OUTSIDE = re.compile(r"\bDESIGN\b|\bseeds/|shared/notes")  # the course's working files


def test_nothing_a_reader_sees_points_to_files_outside_the_repository():
    """Labs, book, package, kernels and benchmarks stand alone: no design file or source folder
    of the authors' workspace is named where a reader would look for it."""
    paths = _read_files() + sorted((ROOT / "grading" / "source").glob("*/*.ipynb"))
    bad = {}
    for p in paths:
        text = _notebook_text(p) if p.suffix == ".ipynb" else p.read_text(encoding="utf-8")
        hits = [m.group(0) for m in OUTSIDE.finditer(text)]
        if hits:
            bad[str(p.relative_to(ROOT))] = hits[:3]
    assert not bad, f"say it in the book (book/method.md) or cite the publication: {bad}"


MACHINE_PATH = re.compile(r"(?:(?<=\s-[A-Za-z])|(?<![\w.<>~-]))/(?:work|root|home|tmp)/[^\s`'\"]*")


def test_committed_results_and_records_name_no_machines_folders():
    """Benchmark results and the tests' recorded runs are committed: their writers put
    placeholders for checkouts, home and /tmp (benchmarks/_common.scrub_paths,
    tests/two_nodes_records.save)."""
    files = sorted((ROOT / "benchmarks").glob("*_results.*")) + [ROOT / "benchmarks" / "RESULTS.md"]
    files += sorted((ROOT / "tests" / "data").rglob("*.json"))
    bad = {}
    for p in files:
        hits = MACHINE_PATH.findall(p.read_text(encoding="utf-8"))
        if hits:
            bad[str(p.relative_to(ROOT))] = hits[:3]
    assert not bad, f"rerun or scrub: {bad}"


def test_scrub_paths_replaces_checkouts_home_and_temporary_files():
    spec = importlib.util.spec_from_file_location("_common", ROOT / "benchmarks" / "_common.py")
    common = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(common)
    cmd = f"/srv/x/.venv/bin/python -m k -f /tmp/tmpab12.json {Path.home()}/.cache/y"
    assert common.scrub_paths(cmd) == "<checkout>/.venv/bin/python -m k -f <tmp> ~/.cache/y"
    # a checkout glued to a compiler flag (a busy clang seen beside a benchmark)
    assert common.scrub_paths("clang -O2 -I/srv/x/kernels_c -c a.c") == "clang -O2 -I<checkout>/kernels_c -c a.c"
