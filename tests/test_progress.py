"""A cell's status line (hybridlab.progress) and the controller a notebook starts at import.

In a real hybridlab kernel (the headless runner): the import starts the warm controller, and a
cell that runs a kernel shows one `hybridlab [n]: ...` line, updated when the run is done.
Outside a notebook nothing is printed.
"""

from __future__ import annotations

import re

import nbformat

import hybridlab as hl
from hybridlab.course.notebooks import run_notebook


def test_nothing_is_printed_outside_a_notebook(capsys):
    hl.run_program("hello_hybrid", ranks=1, threads=1, spin_ms=1)
    captured = capsys.readouterr()
    assert "hybridlab [" not in captured.out + captured.err


def executed_cells(folder, *sources: str) -> list:
    """The cells of a notebook of these code cells, run headless in a hybridlab kernel."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, folder / "cells.ipynb")
    executed, _ = run_notebook(folder / "cells.ipynb", folder / "out", quick=True)
    return nbformat.read(executed, as_version=4).cells


def test_a_notebook_cell_shows_its_steps_and_finds_the_controller_started(tmp_path):
    cells = executed_cells(
        tmp_path,
        "import hybridlab as hl\nfrom hybridlab.engines import controller\n"
        "print('prestarted:', controller._warm is not None)",
        "r = hl.run_program('hello_hybrid', ranks=1, threads=1, spin_ms=1)\n"
        "with hl.Cluster(ranks=1) as c:\n    c.run('hello_hybrid', spin_ms=1)",
    )
    assert "prestarted: True" in "".join(o.get("text", "") for o in cells[0].outputs)
    shown = [o for o in cells[1].outputs if o.output_type == "display_data"]
    assert len(shown) == 1, "one status line per cell, updated in place"
    line = shown[0].data["text/plain"]
    # the last step (after run_program, start and the run in the engines; a compile too when
    # hello_hybrid was not built yet)
    assert re.fullmatch(
        r"hybridlab \[[45]\]: stop the engines \(1 rank x 1 thread, bind=none\): [\d.]+ s", line
    ), line


def test_lab_09s_threading_layers_show_a_line_per_process(tmp_path):
    (cell,) = executed_cells(
        tmp_path,
        "from hybridlab.pykernels.exercise import layer_reports\n"
        "rows, reports = layer_reports(threads=1, layers=('workqueue',))",
    )
    (shown,) = [o for o in cell.outputs if o.output_type == "display_data"]
    assert re.fullmatch(
        r"hybridlab \[1\]: threading layer workqueue in a new process \(1 threads\): [\d.]+ s",
        shown.data["text/plain"],
    ), shown.data
