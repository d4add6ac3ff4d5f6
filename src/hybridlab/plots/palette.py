"""The kit's colours, defined once: every topic's pictures take them from here.

PHASE_COLOURS names what a rank or thread is doing; the same colour means the same kind of
work in every lab (computing, waiting at a barrier or reduction, communicating, idle).
"""

from __future__ import annotations

import matplotlib.pyplot as plt

_BLUE, _ORANGE, _GREEN, _RED = "#4c72b0", "#dd8452", "#55a868", "#c44e52"

PHASE_COLOURS = {
    # lab 02 (synchronisation timelines)
    "compute": _BLUE,
    "barrier": _ORANGE,
    "comm": _GREEN,
    "idle": _RED,
    # lab 04 (halo exchange breakdowns)
    "jacobi": _BLUE,
    "halo": _GREEN,
    "reduction": _ORANGE,
    "other": _RED,
    # lab 07 (3-D FFT phases)
    "fft": _BLUE,
    "rearrange": _ORANGE,
    "alltoall": _GREEN,
}

# the lowest MPI thread level a call needs (hybridlab.compliance), from harmless to demanding
THREAD_LEVEL_COLOURS = {
    "single": _BLUE,
    "funneled": _GREEN,
    "serialized": _ORANGE,
    "multiple": _RED,
}

RANK_COLOURS = plt.get_cmap("tab10").colors  # one colour per rank in placement maps
SHARED = "#d62728"  # a CPU that more than one thread shares
