"""Every lab is in every list a lab must join (hybridlab.course.authoring.LISTS): the book's toc, the
course map, the README's lab table and the grading round trip's LABS of tests/test_grading.py. A
lab left out of LABS would be skipped by `make test-grading-full` without a word; here it fails."""

from __future__ import annotations

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
