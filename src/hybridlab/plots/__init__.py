"""Pictures shared by several labs: the machine, where ranks and threads ran, which thread made
which MPI call (a traced kernel, hybridlab.runs.compliance), raw samples as a strip plot, the note that
says what this machine cannot show, and one palette.

Plots take records and a Topology; they launch nothing. A topic's own pictures live in its
package (hybridlab.sync.plots, hybridlab.p2p.plots, ...), with the colours of palette.py.
"""

from .machine import machine_picture
from .mpi_calls import mpi_calls_plot
from .notes import machine_note
from .palette import (
    PHASE_COLOURS,
    PHASE_HATCHES,
    RANK_COLOURS,
    SHARED,
    THREAD_LEVEL_COLOURS,
    phase_style,
)
from .placement import placement_map
from .samples import strip_plot

__all__ = [
    "PHASE_COLOURS",
    "PHASE_HATCHES",
    "RANK_COLOURS",
    "SHARED",
    "THREAD_LEVEL_COLOURS",
    "machine_note",
    "machine_picture",
    "mpi_calls_plot",
    "phase_style",
    "placement_map",
    "strip_plot",
]
