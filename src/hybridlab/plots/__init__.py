"""Pictures shared by several labs: the machine, where ranks and threads ran, which thread made
which MPI call (a traced kernel, hybridlab.compliance), and one palette.

Plots take records and a Topology; they launch nothing. A topic's own pictures live in its
package (hybridlab.sync.plots, hybridlab.p2p.plots, ...), with the colours of palette.py.
"""

from .machine import machine_picture
from .mpi_calls import mpi_calls_plot
from .palette import (
    PHASE_COLOURS,
    PHASE_HATCHES,
    RANK_COLOURS,
    SHARED,
    THREAD_LEVEL_COLOURS,
    phase_style,
)
from .placement import placement_map

__all__ = [
    "PHASE_COLOURS",
    "PHASE_HATCHES",
    "RANK_COLOURS",
    "SHARED",
    "THREAD_LEVEL_COLOURS",
    "machine_picture",
    "mpi_calls_plot",
    "phase_style",
    "placement_map",
]
