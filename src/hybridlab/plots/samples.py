"""The strip plot of raw samples: one dot per sample, a black bar at the median, one column (or
row) per case, so the spread of a measurement is seen before any number is read from it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from .palette import OKABE_ITO

CASE_COLOURS = OKABE_ITO[5:7] + OKABE_ITO[1:4] + OKABE_ITO[7:]  # no black: the median is black
MEDIAN = "black"


def strip_plot(
    samples: Mapping[str, Sequence[float]],
    *,
    ax: Axes | None = None,
    scale: float = 1e6,
    unit: str = "µs per repetition",
    title: str | None = None,
    horizontal: bool = False,
    jitter: float = 0.12,
) -> Axes:
    """Each case's samples (seconds) times `scale` as dots spread a little across their column
    (rows when `horizontal`), with a black bar at the median; returns the axes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 2.4) if horizontal else (6, 2.8))
    rng = np.random.default_rng(0)  # the same spread of dots at every run
    for i, values in enumerate(samples.values()):
        v = np.asarray(values, dtype=float) * scale
        across = i + rng.uniform(-jitter, jitter, v.size)
        colour = CASE_COLOURS[i % len(CASE_COLOURS)]
        median = float(np.median(v)) if v.size else np.nan
        if horizontal:
            ax.plot(v, across, "o", alpha=0.7, color=colour)
            ax.vlines(median, i - 0.3, i + 0.3, color=MEDIAN)
        else:
            ax.plot(across, v, "o", alpha=0.7, color=colour)
            ax.hlines(median, i - 0.3, i + 0.3, color=MEDIAN)
    names, ticks = list(samples), range(len(samples))
    if horizontal:
        ax.set_yticks(ticks, names)
        ax.set_ylim(-0.5, len(samples) - 0.5)
        ax.set_xlabel(f"{unit} (one dot per sample, bar: median)")
    else:
        ax.set_xticks(ticks, names)
        ax.set_xlim(-0.5, len(samples) - 0.5)
        ax.set_ylabel(unit)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
