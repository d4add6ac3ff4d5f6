"""Every lab is in every list a lab must join (hybridlab.course.authoring.LISTS): the book's toc, the
course map, the README's lab table and the grading round trip's LABS of tests/test_grading.py. A
lab left out of LABS would be skipped by `make test-grading-full` without a word; here it fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hybridlab.course.authoring import missing_entries
from hybridlab.grading import known_labs

ROOT = Path(__file__).resolve().parents[1]
LABS = known_labs(ROOT / "grading")


@pytest.mark.parametrize("lab", LABS)
def test_the_lab_is_in_every_list(lab):
    assert missing_entries(ROOT, lab) == [], f"add {lab} to these lists"


def test_a_lab_left_out_of_the_grading_list_is_found(tmp_path):
    (tmp_path / "tests").mkdir()
    text = (ROOT / "tests" / "test_grading.py").read_text()
    (tmp_path / "tests" / "test_grading.py").write_text(
        text.replace('"03_point_to_point": Broken(', '"03_renamed": Broken(')
    )
    missing = missing_entries(tmp_path, "03_point_to_point")
    assert any(m.startswith("tests/test_grading.py") for m in missing), missing


@pytest.mark.parametrize("lab", LABS)
def test_the_planning_page_covers_the_lab(lab):
    """Every lab has its row in the planning page's tables (assessed, machine time) and its week
    or track: the plan an instructor reads covers the whole course."""
    page = (ROOT / "book" / "planning.md").read_text()
    number = lab[:2]
    assessed = page.split("## The labs: what each assesses", 1)[1].split("\n## ", 1)[0]
    timed = page.split("## How long a lab takes", 1)[1].split("\n## ", 1)[0]
    plan = page.split("## A 12-week module", 1)[1]
    assert f"\n| {number} " in assessed, f"planning.md: no row for {lab} in the assessed table"
    assert f"\n| {number} |" in timed, f"planning.md: no machine time for {lab}"
    assert re.search(rf"\b{number}\b", plan), f"planning.md: {lab} in no week or track"
