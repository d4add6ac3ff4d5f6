"""A graded kernel shows a cell's error as the same traceback without colours (execute.py's
first cell, PLAIN_TRACEBACKS: IPython highlights a coloured one line by line, 9 ms of CPU an
error)."""

from __future__ import annotations

import nbformat
from traitlets.config import Config

from hybridlab.grading.execute import PLAIN_TRACEBACKS, SandboxedExecute


def test_the_first_cell_turns_the_colours_off_whatever_the_figures():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    for draw in (False, True):
        config = Config({"GradingPolicy": {"draw_figures": draw}})
        cells, _ = SandboxedExecute(config=config)._prepare(nb)
        assert cells[0].source.startswith(PLAIN_TRACEBACKS), cells[0].source


def test_the_traceback_is_the_same_text_without_colours():
    import re

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell._showtraceback = lambda etype, evalue, stb: shown.append(stb)
    code = "def f():\n    raise NotImplementedError('write me')\nf()"
    shell.run_cell(code)
    shell.run_cell(PLAIN_TRACEBACKS.replace("get_ipython()", "__import__('IPython').get_ipython()"))
    shell.run_cell(code)
    coloured, plain = ("\n".join(stb) for stb in shown)
    assert "\x1b[" not in plain and "NotImplementedError: write me" in plain
    strip = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert re.sub(r"In\[\d+\]", "In[]", strip) == re.sub(r"In\[\d+\]", "In[]", plain)
