"""C cells (hybridlab.kernels.c_cells) in a real IPython shell, and their release stub (grading/c_stub)."""

import nbformat
import pytest
from IPython.testing.globalipapp import get_ipython

from hybridlab.grading.c_stub import ClearSolutionsC, release_preprocessors
from hybridlab.kernels.c_cells import CCellError, cell_text, unanswered

EXCHANGE = """int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int spare;
    MPI_Request r[2];
    MPI_Irecv(recv, n, MPI_INT, left, 0, comm, &r[0]);
    MPI_Issend(send, n, MPI_INT, right, 0, comm, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}"""


@pytest.fixture(scope="module")
def shell():
    ip = get_ipython()
    ip.run_line_magic("load_ext", "hybridlab.kernels.c_cells")
    return ip


def test_a_c_cell_keeps_its_c_and_reports_warnings_by_the_cells_lines(shell, capsys):
    shell.run_cell_magic("c", "EXCHANGE_C thread_ring", EXCHANGE)
    code = shell.user_ns["EXCHANGE_C"]
    assert code.split("\n")[6].strip() == "int spare;", "line 7 of the cell is line 7 of the value"
    out = capsys.readouterr().out
    assert "line 7: warning: unused variable" in out and "int spare;" in out, out


def test_a_compile_error_names_the_cells_line_and_no_traceback(shell):
    with pytest.raises(CCellError, match=r"line 3: error: .*undefined_thing") as failure:
        shell.run_cell_magic("c", "BAD thread_ring", "int f(void) {\n    return undefined_thing;\n}")
    assert failure.value._render_traceback_()[0].count("\n") >= 1
    assert shell.user_ns["BAD"].startswith("\nint f"), "the value is kept even when it fails"


def test_kernel_private_functions_and_unknown_kernels_are_refused(shell):
    with pytest.raises(CCellError, match="implicit declaration"):  # thread_ring.c's own code
        shell.run_cell_magic("c", "X thread_ring", "void f(void) {\n    ring_exchange_masteronly();\n}")
    with pytest.raises(ValueError, match="known: .*thread_ring"):
        shell.run_cell_magic("c", "X no_such_kernel", "int x;")
    with pytest.raises(ValueError, match="usage"):
        shell.run_cell_magic("c", "", "int x;")


def test_a_whole_program_compiles_without_a_kernel(shell, capsys):
    program = "#include <mpi.h>\nint main(int argc, char **argv) {\n    MPI_Init(&argc, &argv);\n    return MPI_Finalize();\n}"
    shell.run_cell_magic("c", "PROGRAM_C", program)
    assert "PROGRAM_C: compiled, no warnings" in capsys.readouterr().out


def test_the_stub_is_not_compiled_and_code_beside_the_stub_comment_is(shell, capsys):
    stub = "int check_thread_level(hl_ctx *ctx) {\n    /* YOUR CODE HERE */\n}\n"
    shell.run_cell_magic("c", "STUB thread_ring", stub)
    assert "not written yet" in capsys.readouterr().out
    assert unanswered(cell_text(stub)) and unanswered("") and unanswered("/* YOUR CODE HERE */")
    written = "int check_thread_level(hl_ctx *ctx) {\n    /* YOUR CODE HERE */\n    return 0;\n}\n"
    assert not unanswered(written), "a student who keeps the stub comment has written code"
    assert not unanswered('const char *const construct_name = "x";')
    assert unanswered('void f(void) { /* } "{" */ }')


def _release(cell_source: str, solution: bool = True) -> str:
    cell = nbformat.v4.new_code_cell(cell_source)
    cell.metadata["nbgrader"] = {"solution": solution, "grade": False, "locked": False,
                                 "grade_id": "answer", "schema_version": 3}
    nb = nbformat.v4.new_notebook(cells=[cell], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nb, _ = ClearSolutionsC().preprocess(nb, {})
    return nb.cells[0].source


def test_release_gives_c_cells_a_c_stub_and_python_cells_pythons():
    source = ("%%c EXCHANGE_C thread_ring\nint check_thread_level(hl_ctx *ctx) {\n"
              "    /* BEGIN SOLUTION */\n    return 0;\n    /* END SOLUTION */\n}")
    assert _release(source) == ("%%c EXCHANGE_C thread_ring\nint check_thread_level(hl_ctx *ctx) {\n"
                                "    /* YOUR CODE HERE */\n}")
    assert _release("%%c WHOLE_C\nint main(void) { return 0; }") == "%%c WHOLE_C\n/* YOUR CODE HERE */"
    python = _release("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION")
    assert python == "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert ClearSolutionsC in release_preprocessors()
