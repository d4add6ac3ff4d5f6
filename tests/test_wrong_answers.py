"""The wrong answers of tests/wrong_answers/ cover every graded part (issue: no wrong answer may
pass unnoticed); make test-grading-full grades them (tests/test_grading.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import nbformat
import pytest

from hybridlab.grading import known_labs
from wrong_answers import load

ROOT = Path(__file__).resolve().parents[1]
LABS = known_labs(ROOT / "grading")


def _cells(lab: str) -> dict[str, dict]:
    nb = nbformat.read(ROOT / "grading" / "source" / lab / f"{lab}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]
        for c in nb.cells
        if "nbgrader" in c.metadata and "grade_id" in c.metadata["nbgrader"]
    }


@pytest.mark.parametrize("lab", LABS)
def test_every_graded_part_has_two_wrong_answers_that_name_real_cells(lab):
    cells = _cells(lab)
    answers = {g for g, m in cells.items() if m.get("solution")}
    autograded = {g for g, m in cells.items() if m.get("grade") and not m.get("solution")}
    hidden = {g for g in autograded if g.startswith("hidden_")}
    wrongs = load(lab)
    counted: Counter = Counter()
    for mistake in wrongs:
        named = {g for g, _ in mistake.answers}
        assert named <= answers, f"{mistake.why}: no answer cells {sorted(named - answers)}"
        assert mistake.loses, f"{mistake.why}: loses nothing"
        assert mistake.loses <= autograded, f"{mistake.why}: {sorted(mistake.loses - autograded)}"
        counted.update(mistake.loses & hidden)
    thin = {g: counted[g] for g in sorted(hidden) if counted[g] < 2}
    assert thin == {}, f"{lab}: hidden parts with fewer than two wrong answers: {thin}"
