"""A text description (alt text) for every figure a lab draws.

Inline matplotlib output in JupyterLab carries no alt attribute that the kit could set, so each
plot function of the kit (the topic packages' plots.py call `describe_figures(globals())`) gives
its figure a description: `fig.get_label()` holds it, and in a notebook one line,
"Figure: ...", is printed with the figure, where a screen reader finds it.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, MutableMapping

from matplotlib.figure import Figure


def _first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").split())
    text = re.sub(r"`([^`]*)`", r"\1", text)
    match = re.match(r"(.+?[.:;])(\s|$)", text)
    return (match.group(1) if match else text).rstrip(".:;")


def description(fig: Figure, purpose: str) -> str:
    """What the figure shows: its purpose, then each panel's title and axis labels."""
    panels = []
    for ax in fig.axes:
        title = ax.get_title() or ax.get_title("left")
        x, y = ax.get_xlabel(), ax.get_ylabel()
        bits = [b for b in (title, f"x: {x}" if x else "", f"y: {y}" if y else "") if b]
        if bits:
            panels.append(", ".join(" ".join(b.split()) for b in bits))
    text = purpose
    if panels:
        text += ". " + ("Panel: " if len(panels) == 1 else "Panels: ") + "; ".join(panels)
    return text + "."


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def with_description(func: Callable, purpose: str | None = None) -> Callable:
    purpose = purpose or _first_sentence(func.__doc__) or func.__name__.replace("_", " ")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        fig = func(*args, **kwargs)
        if isinstance(fig, Figure):
            text = description(fig, purpose)
            fig.set_label(text)
            if _in_notebook():
                print("Figure:", text)
        return fig

    wrapper.__wrapped_for_alt__ = True
    return wrapper


def describe_figures(namespace: MutableMapping[str, object]) -> None:
    """Wrap every public function of a plots module (a result that is not a Figure passes)."""
    module = namespace.get("__name__")
    for name, obj in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != module:
            continue
        if getattr(obj, "__wrapped_for_alt__", False):
            continue
        namespace[name] = with_description(obj)  # acts only on what returns a Figure
