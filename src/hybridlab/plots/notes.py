"""The note that says, on the plot itself, what this machine cannot show (one NUMA node, few
cores, one node), beside the published data that shows it: one look in every lab."""

from __future__ import annotations

import textwrap

from matplotlib.axes import Axes
from matplotlib.text import Text

BOX = {"boxstyle": "round", "facecolor": "#fff3cd", "edgecolor": "#c8a400", "alpha": 0.95}
# where -> (x, y, vertical alignment) in axes coordinates
PLACES = {"top": (0.02, 0.97, "top"), "bottom": (0.02, 0.03, "bottom"),
          "below": (0.0, -0.2, "top")}  # fmt: skip


def machine_note(ax: Axes, text: str | None, where: str = "top", width: int | None = None,
                 fontsize: float = 7.5) -> Text | None:  # fmt: skip
    """Write `text` in the kit's note box: inside the axes ('top', 'bottom'), under them
    ('below'), or above every panel of the figure ('figure', clear of the data); lines longer
    than `width` characters are wrapped. No text, no note."""
    if not text:
        return None
    if width:
        text = "\n".join(textwrap.fill(line, width) for line in text.splitlines())
    if where == "figure":
        return ax.figure.suptitle(text, fontsize=fontsize + 0.5, bbox=BOX)
    x, y, va = PLACES[where]
    return ax.text(x, y, text, transform=ax.transAxes, va=va, ha="left", fontsize=fontsize,
                   bbox=BOX)  # fmt: skip
