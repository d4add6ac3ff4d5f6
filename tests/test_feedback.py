"""The feedback leak scan (hybridlab.grading.feedback.feedback_leaks): a line of a hidden test in
a student's feedback page is a leak, unless the student wrote that line themselves (a hidden
test's inline reference may hold the very line a right answer has)."""

from __future__ import annotations

import nbformat

from hybridlab.grading.course import read_lab
from hybridlab.grading.feedback import feedback_leaks

LAB = "lab"
HIDDEN = "    ratio = float(runs['multiple'].median() / runs['funneled'].median())"


def _course(tmp_path, answer: str, page: str):
    source = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "def cost(runs):\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"
            ),
            nbformat.v4.new_code_cell(f"### BEGIN HIDDEN TESTS\n{HIDDEN}\n### END HIDDEN TESTS"),
        ]
    )
    for folder, nb in (
        ("source", source),
        ("submitted/ann", nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(answer)])),
    ):
        (tmp_path / folder / LAB).mkdir(parents=True)
        nbformat.write(nb, tmp_path / folder / LAB / f"{LAB}.ipynb")
    feedback = tmp_path / "feedback" / "ann" / LAB
    feedback.mkdir(parents=True)
    (feedback / f"{LAB}.html").write_text(f"<html><pre>{page}</pre></html>")
    return tmp_path


def test_a_hidden_line_in_feedback_is_a_leak(tmp_path):
    root = _course(tmp_path, "def cost(runs):\n    return 2", f"A test failed:\n{HIDDEN}")
    assert [p.parts[-3] for p in feedback_leaks(read_lab(root, LAB))] == ["ann"]


def test_a_line_the_student_wrote_is_not_a_leak(tmp_path):
    answer = f"def cost(runs):\n{HIDDEN}\n    return ratio"
    root = _course(tmp_path, answer, answer)
    assert feedback_leaks(read_lab(root, LAB)) == []


def test_a_line_inside_one_the_student_wrote_is_not_a_leak(tmp_path):
    # lab 10's right programs were refused feedback: the hidden test's `t = omp_get_thread_num();`
    # sits inside the student's own `int t = omp_get_thread_num();`
    hidden_c = "        t = omp_get_thread_num();  /* the thread */"
    answer = f"    int {hidden_c.strip()}"
    root = _course(tmp_path, answer, answer)
    nb = nbformat.read(root / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    nb.cells[1].source = f"### BEGIN HIDDEN TESTS\n{hidden_c}\n### END HIDDEN TESTS"
    nbformat.write(nb, root / "source" / LAB / f"{LAB}.ipynb")
    assert feedback_leaks(read_lab(root, LAB)) == []


def test_a_line_of_the_kits_own_source_is_not_a_leak(tmp_path):
    # lab 02's feedback was refused: a traceback into the kit quoted `name = check_method(code)`,
    # which the hidden test also calls; the kit's source is installed with every student's kit
    kit_line = "name = check_method(code)"
    root = _course(tmp_path, "def cost(runs):\n    return 2", f"--> 244     {kit_line}")
    nb = nbformat.read(root / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    nb.cells[1].source = f"### BEGIN HIDDEN TESTS\n{kit_line}\n{HIDDEN}\n### END HIDDEN TESTS"
    nbformat.write(nb, root / "source" / LAB / f"{LAB}.ipynb")
    assert feedback_leaks(read_lab(root, LAB)) == []
