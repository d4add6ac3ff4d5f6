"""Copies found (grading/similarity.py, copydetect): a class of lab 04 submissions built from
the instructor notebook (tests/grading_course.py), compared for real. A copy of the published
solution and a classmate's answers with every name changed are flagged; two students who wrote
their own answers (tests/similar_answers.py) and the released notebook handed in blank are not;
the wrong answers' corpus (the solution with a mistake) is flagged, the honest answers beside it
are not."""

from __future__ import annotations

import re

import pytest

import grading_course as gc
import honest
import similar_answers as sa
from hybridlab import cli
from hybridlab.grading import similarity
from hybridlab.grading.course import GradingError, read_lab
from wrong_answers import load

LAB = "04_halo_exchange"


def _answered(nb, answers: dict[str, str]):
    for grade_id, source in answers.items():
        nb = gc.answer(nb, grade_id, source)
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = gc.make_course(tmp_path_factory.mktemp("similar") / "course", labs=(LAB,))
    lab = read_lab(root, LAB)
    solution = lab.notebook()
    gc.submit(root, "copier", solution, LAB)  # the published solution, delimiters and all
    for name, answers in (("ana", sa.ANA), ("boris", sa.BORIS), ("carla", sa.CARLA)):
        gc.submit(root, name, _answered(solution, answers), LAB)
    blank = lab.notebook()  # what the release gives: the lines outside the solution regions
    for cell in blank.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.source = similarity._released(cell.source)
    gc.submit(root, "blank", blank, LAB)
    return lab


def test_a_copy_of_the_solution_and_a_renamed_copy_are_flagged_honest_answers_not(course):
    report = similarity.compare(course)
    assert report.documents == {
        "C": ["ana", "blank", "boris", "carla", "copier"],
        "Python": ["ana", "blank", "boris", "carla", "copier"],
    }
    flagged = report.flagged()
    assert sorted(flagged) == ["ana", "carla", "copier"], report.text()
    assert flagged["copier"] == [f"{similarity.SOLUTION} (C 100%, Python 100%)"]
    assert [re.sub(r" \(.*", "", w) for w in flagged["carla"]] == ["ana"]
    assert [re.sub(r" \(.*", "", w) for w in flagged["ana"]] == ["carla"]
    shares = {(p.first, p.second, p.language): p.share for p in report.pairs}
    # the renamed copy shares most of both languages' code, more than any honest pair does
    assert min(shares[("ana", "carla", "C")], shares[("ana", "carla", "Python")]) >= 0.75
    honest = [s for (a, b, _), s in shares.items() if {a, b} & {"boris"} or
              {a, b} in ({"ana", similarity.SOLUTION}, {"ana", "copier"})]  # fmt: skip
    assert honest and max(honest) < similarity.THRESHOLD, shares
    assert not any("blank" in (p.first, p.second) for p in report.pairs)  # the given code only

    page = report.path.read_text()
    assert report.path == course.root / "reports" / f"{LAB}-similarity.html"
    assert "Flagged: 3 pair(s)" in page  # copier and the solution (C, Python), ana and carla (Python)
    assert page.count("<div class='side'>") == len(report.flagged_pairs) == 3
    assert "<mark>" in page and "names = " in page  # carla's Python, side by side


def test_the_command_prints_the_flagged_and_a_higher_threshold_flags_less(course, monkeypatch,
                                                                           capsys):  # fmt: skip
    monkeypatch.setattr("hybridlab.grading.course.GRADING", course.root)
    assert cli.main(["similarity", LAB]) == 0
    out = capsys.readouterr().out
    assert "3 submission(s) flagged" in out and f"{LAB}-similarity.html" in out
    assert re.search(r"copier: similar to published solution \(C 100%, Python 100%\)", out), out
    assert cli.main(["similarity", LAB, "--threshold", "0.95"]) == 0
    out = capsys.readouterr().out  # the renamed Python is the same code, the C only mostly
    assert "3 submission(s) flagged" in out and "  carla: similar to ana (Python 100%)\n" in out
    assert cli.main(["similarity", LAB, "--threshold", "0"]) == 1
    assert "expected a share above 0" in capsys.readouterr().err
    with pytest.raises(GradingError):
        similarity.compare(course, threshold=1.5)


def test_what_the_release_gives_is_not_counted(course):
    """The released lines (signatures, comments) are left out: a submission that only
    reformats them shares nothing."""
    given = {
        grade_id: similarity._released(cell.source)
        for cell in course.notebook().cells
        if (grade_id := cell.metadata.get("nbgrader", {}).get("grade_id")) in sa.ANA
    }
    assert all(given.values()) and "exchange_halos(double *a" in given["exchange_halos"]
    docs = similarity.documents(course.notebook(), similarity.answer_cells(course),
                                similarity._released)  # fmt: skip
    assert set(docs) == {"C", "Python"}
    assert docs["C"].startswith("// exchange_halos\n// %%c EXCHANGE_C halo2d\n")


def test_the_wrong_answers_corpus_is_the_solution_with_a_mistake(tmp_path):
    """tests/wrong_answers/04: each is the solution with one part changed; beside them, the
    honest answers stay below the threshold with every one of them."""
    root = gc.make_course(tmp_path / "course", labs=(LAB,))
    lab = read_lab(root, LAB)
    wrong = load(LAB)
    assert len(wrong) >= 3
    for i, mistake in enumerate(wrong):
        gc.submit(root, f"wrong{i}", _answered(lab.notebook(), dict(mistake.answers)), LAB)
    for name, answers in (("ana", sa.ANA), ("boris", sa.BORIS)):
        gc.submit(root, name, _answered(lab.notebook(), answers), LAB)
    flagged = similarity.compare(lab, write=False).flagged()
    assert sorted(flagged) == sorted(f"wrong{i}" for i in range(len(wrong))), flagged
    for i in range(len(wrong)):
        assert any(w.startswith(similarity.SOLUTION) for w in flagged[f"wrong{i}"])


def test_lab_12_a_renamed_copy_is_flagged_the_honest_answers_are_not(tmp_path):
    """Lab 12 with the code it gives left out (the released stubs, the notebook's other cells,
    the kit's thread_halo.c it sends the student to read): the solution with every declared name
    renamed, comments dropped and the layout changed is flagged, in C and in Python; the two
    honest students of tests/honest/12 (right answers written another way, following the
    notebook's recipe) are not, with the solution or with each other."""
    lab12 = "12_threads_communicate"
    root = gc.make_course(tmp_path / "course", labs=(lab12,))
    lab = read_lab(root, lab12)
    cells = similarity.answer_cells(lab)
    solution = {c.metadata["nbgrader"]["grade_id"]: similarity._without_delimiters(c.source)
                for c in lab.notebook().cells
                if c.metadata.get("nbgrader", {}).get("grade_id") in cells}  # fmt: skip
    copy = {g: sa.renamed(source, cells[g]) for g, source in solution.items()}
    assert all(copy[g] != solution[g] for g in cells)
    gc.submit(root, "renamer", _answered(lab.notebook(), copy), lab12)
    written: dict[str, list[str]] = {}
    for right in honest.load(lab12):
        for grade_id, source in right.answers:
            written.setdefault(grade_id, []).append(source)
    assert set(written) == set(cells)
    for k in (0, 1):
        gc.submit(root, f"honest{k}", _answered(lab.notebook(), {g: v[k] for g, v in written.items()}),
                  lab12)
    report = similarity.compare(lab, write=False)
    assert sorted(report.flagged()) == ["renamer"], report.text()
    copied = {p.language: p.share for p in report.flagged_pairs}
    assert copied.keys() == {"C", "Python"} and min(copied.values()) >= 0.95, copied
    honest_shares = [p.share for p in report.pairs if "renamer" not in (p.first, p.second)]
    assert max(honest_shares) < similarity.THRESHOLD - 0.1, report.pairs
