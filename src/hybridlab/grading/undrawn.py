"""Figures a graded notebook never draws are never laid out either (GradingPolicy.draw_figures
False).

The kit's plot functions call `fig.tight_layout()`, which measures every tick label and title
with a renderer at once: 0.1-0.3 CPU s a figure, about 0.4 s of lab 05's cells, spent on a
figure that grading only shows as its text line. In the grading kernel `Figure.tight_layout`
instead sets the same tight layout engine (same padding and rectangle), which lays the figure
out when it is drawn (savefig, a figure format turned back on) and never otherwise.
"""

from __future__ import annotations

import sys


def tight_when_drawn(fig, *, pad=1.08, h_pad=None, w_pad=None, rect=None) -> None:
    """Figure.tight_layout's arguments, as the figure's layout engine (run at each draw)."""
    from matplotlib.layout_engine import TightLayoutEngine

    fig.set_layout_engine(TightLayoutEngine(pad=pad, h_pad=h_pad, w_pad=w_pad, rect=rect))


def defer_layout(shell) -> None:
    """After the first cell that imported matplotlib's figures (the kernel does not import
    matplotlib for this), Figure.tight_layout is tight_when_drawn."""

    def once_imported(*_) -> None:
        figure = sys.modules.get("matplotlib.figure")
        if figure is not None:
            figure.Figure.tight_layout = tight_when_drawn
            shell.events.unregister("post_run_cell", once_imported)

    shell.events.register("post_run_cell", once_imported)
