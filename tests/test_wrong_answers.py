"""The wrong answers of tests/wrong_answers/ cover every graded part (issue: no wrong answer may
pass unnoticed), the gaming attempts of tests/gaming/ every automatic part, and the honest
answers of tests/honest/ (right answers written another way) every automatic part of the labs
that have them; make test-grading-full grades them all (tests/test_grading.py).

With HYBRIDLAB_GRADING set, the same checks run on that course folder's labs and its corpora
(authoring.corpus_folder: <course>/tests/wrong_answers, gaming, honest)."""

from __future__ import annotations

import re
from collections import Counter

import nbformat
import pytest

from gaming import KINDS
from hybridlab.course.authoring import corpus_folder
from hybridlab.grading import known_labs
from hybridlab.paths import grading_dir
from wrong_answers import load as _load

COURSE = grading_dir(must_exist=False)  # HYBRIDLAB_GRADING: a course folder of your own
CORPORA = corpus_folder(COURSE)
LABS = known_labs(COURSE)
HONEST = CORPORA / "honest"
# labs whose every wrong answer and gaming attempt names the error it must lose with
REASONED = {"00_getting_started", "01_programming_models", "02_synchronisation",
            "03_point_to_point", "04_halo_exchange", "05_memory_numa", "06_placement_topology",
            "07_collectives", "08_predicting_at_scale", "09_python_kernels", "10_whole_program",
            "11_shared_memory", "12_threads_communicate", "13_neighbourhood_collectives",
            "14_simulated_scale", "15_offload", "16_tools"}
# labs whose every automatic part has two honest answers (the others: the parts they cover)
HONEST_COMPLETE = REASONED | {"12_threads_communicate"}


def load(lab: str) -> list:
    """The course's wrong answers of `lab`."""
    return _load(lab, CORPORA / "wrong_answers")


def gaming(lab: str) -> list:
    """The course's gaming attempts of `lab`."""
    return _load(lab, CORPORA / "gaming", "GAMING")


def honest(lab: str) -> list:
    """The course's honest answers of `lab` (right answers written another way)."""
    return _load(lab, HONEST, "HONEST")


def _cells(lab: str) -> dict[str, dict]:
    nb = nbformat.read(COURSE / "source" / lab / f"{lab}.ipynb", as_version=4)
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


@pytest.mark.parametrize("lab", LABS)
def test_every_automatic_part_has_three_gaming_attempts_that_lose_it(lab):
    """Each answer cell with autograded tests: at least three gaming attempts, each of a known
    kind, naming real cells and losing at least the hidden tests of the cell it touches."""
    cells = _cells(lab)
    answers = {g for g, m in cells.items() if m.get("solution") and not m.get("grade")}
    autograded = {g for g, m in cells.items() if m.get("grade") and not m.get("solution")}
    attempts = gaming(lab)
    counted: Counter = Counter()
    for attempt in attempts:
        named = {g for g, _ in attempt.answers}
        assert attempt.kind in KINDS, attempt.why
        assert named <= answers, f"{attempt.why}: no answer cells {sorted(named - answers)}"
        assert attempt.loses and attempt.loses <= autograded, f"{attempt.why}: {attempt.loses}"
        counted.update(named)
    graded_answers = _graded_answers(lab)
    thin = {a: counted[a] for a in sorted(graded_answers) if counted[a] < 3}
    assert thin == {}, f"{lab}: automatic parts with fewer than three gaming attempts: {thin}"


@pytest.mark.parametrize("lab", LABS)
def test_every_part_scores_in_its_hidden_tests_only(lab):
    """A part's points sit in its hidden test cells, so an answer that passes only the visible
    tests (which a gaming attempt is built to do) scores zero on the part."""
    cells = _cells(lab)
    visible = sorted(
        g for g, m in cells.items()
        if m.get("grade") and not m.get("solution") and not g.startswith("hidden_")
    )
    assert visible == [], f"{lab}: test cells that carry points but are not hidden: {visible}"


def _graded_answers(lab: str) -> set[str]:
    """Answer code cells that an autograded hidden test reads: a name the cell defines (a
    function, or a variable such as EXCHANGE_C) appears in a hidden test cell."""
    nb = nbformat.read(COURSE / "source" / lab / f"{lab}.ipynb", as_version=4)
    hidden = "\n".join(
        c.source for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and c.metadata["nbgrader"]["grade_id"].startswith("hidden_")
    )
    out: set[str] = set()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("solution") or meta.get("grade"):
            continue
        names = re.findall(r"^def (\w+)|^(\w+)\s*(?::[^=]*)?=|^%%c (\w+)", cell.source, re.M)
        if any(re.search(rf"\b{n}\b", hidden) for pair in names for n in pair if n):
            out.add(meta["grade_id"])
    return out


@pytest.mark.parametrize("lab", LABS)
def test_attempts_name_the_reason_they_lose(lab):
    """In a lab of REASONED, every wrong answer and gaming attempt names the error its part must
    end with (the grading test checks it); elsewhere, those that name one name a real fragment.
    A right answer that only carries an attempt at a later part (a tool replaced from its cell,
    `together`) loses nothing and has no reason to name."""
    attempts = [one for a in load(lab) + gaming(lab) for one in a.each()]
    unnamed = [a.why for a in attempts if a.loses and not a.reason.strip()]  # a right answer
    # carried beside an attempt (together) loses nothing, so it has no reason
    if lab in REASONED:
        assert unnamed == [], f"{lab}: attempts with no reason: {unnamed}"
    assert all(a.reason == a.reason.strip() for a in attempts)


@pytest.mark.parametrize("lab", LABS)
def test_honest_answers_come_in_twos_unlike_the_solution(lab):
    """Right answers written another way: each names a real answer cell, loses nothing (but the
    parts of the cells it leaves as released) and is not the solution's text; a part that has
    one has two, and in a lab of HONEST_COMPLETE every automatic part has two."""
    if not (HONEST / f"{lab}.py").exists():
        pytest.skip(f"{lab} has no honest answers yet ({HONEST / lab}.py)")
    nb = nbformat.read(COURSE / "source" / lab / f"{lab}.ipynb", as_version=4)
    solutions = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    counted: Counter = Counter()
    for answer in honest(lab):
        assert answer.kind == "honest", answer.why
        assert answer.loses == {f"hidden_{c}" for c in answer.blank}, answer.why  # theirs only
        for cell, text in answer.answers:
            assert cell in solutions, f"{answer.why}: no answer cell {cell!r}"
            if cell in answer.blank:
                continue
            assert _words(text) != _words(solutions[cell]), f"{answer.why}: the solution itself"
            counted[cell] += 1
    parts = _graded_answers(lab) if lab in HONEST_COMPLETE else set(counted)
    thin = {a: counted[a] for a in sorted(parts) if counted[a] < 2}
    assert thin == {}, f"{lab}: automatic parts with fewer than two honest answers: {thin}"


def _words(source: str) -> list[str]:
    """The code of a cell without its solution markers and comments, split at white space (a C
    cell keeps its #pragma lines: only /* */ and // are its comments)."""
    if source.lstrip().startswith("%%c"):
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    else:
        code = re.sub(r"#[^\n]*", "", source)
    return code.split()
