"""A graded kernel lays a figure out only when it is drawn (grading/undrawn.py)."""

import io

import pytest
from IPython.core.interactiveshell import InteractiveShell

from hybridlab.grading.execute import NO_FIGURES

FIGURE = (
    "import matplotlib\n"
    "matplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\n"
    "fig, ax = plt.subplots()\n"
    "ax.set_title('a title long enough to need room ' * 2)\n"
    "ax.set_ylabel('GB/s')\n"
    "ax.plot([1, 2, 3], [1e6, 2e6, 3e6])\n"
)


@pytest.fixture
def shell():
    from matplotlib.figure import Figure

    tight_layout = Figure.tight_layout
    shell = InteractiveShell.instance()
    yield shell
    shell.run_cell("import matplotlib.pyplot as plt\nplt.close('all')")
    InteractiveShell.clear_instance()
    Figure.tight_layout = tight_layout  # as matplotlib has it, for the tests that follow


def _margins(fig):
    p = fig.subplotpars
    return (p.left, p.right, p.bottom, p.top)


def test_tight_layout_waits_for_the_draw_and_then_lays_out_the_same(shell):
    shell.run_cell(FIGURE + "eager = fig\neager.tight_layout()\n")
    eager = shell.user_ns["eager"]
    shell.run_cell(NO_FIGURES)  # as the grader's first cell; matplotlib already imported here
    shell.run_cell(FIGURE + "lazy = fig\nbefore = (lazy.subplotpars.left, lazy.subplotpars.top)\n"
                   "lazy.tight_layout()\n")  # fmt: skip
    lazy = shell.user_ns["lazy"]
    untouched = (lazy.subplotpars.left, lazy.subplotpars.top)
    assert untouched == shell.user_ns["before"], "laid out before any draw"
    lazy.savefig(io.BytesIO(), format="png")
    assert _margins(lazy) == pytest.approx(_margins(eager)), (_margins(lazy), _margins(eager))
    assert _margins(lazy) != pytest.approx((0.125, 0.9, 0.11, 0.88)), "not laid out when drawn"


def test_the_guard_counts_the_deferring_callback_as_the_graders(shell, monkeypatch):
    """Registered before the guard's capture (the grader's first cell), the callback still
    waiting for matplotlib is not taken for the student's code around a cell."""
    import sys

    import nbformat

    monkeypatch.delitem(sys.modules, "matplotlib.figure")  # as in a kernel that has not imported it

    from hybridlab.grading.execute import SandboxedExecute

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    cells, _ = SandboxedExecute()._prepare(nb)
    assert shell.run_cell(cells[0].source).success
    shell.run_cell("x = 1")  # no matplotlib yet: the callback is still registered
    assert any(getattr(h, "__name__", "") == "once_imported"
               for h in shell.events.callbacks["post_run_cell"])
    shell.run_cell("found = _hl_guard._cell_hooks(put_back=False)")  # in a cell: the guard's shell
    assert shell.user_ns["found"] == [], shell.user_ns["found"]
