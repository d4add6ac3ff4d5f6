"""Pictures shared by several labs: the machine, where ranks and threads ran, and one palette.

Plots take records and a Topology; they launch nothing. A topic's own pictures live in its
package (hybridlab.sync.plots, hybridlab.p2p.plots, ...), with the colours of palette.py.
"""

from .machine import machine_picture
from .palette import PHASE_COLOURS, PHASE_HATCHES, RANK_COLOURS, SHARED, phase_style
from .placement import placement_map

__all__ = [
    "PHASE_COLOURS", "PHASE_HATCHES", "RANK_COLOURS", "SHARED", "machine_picture", "phase_style",
    "placement_map",
]
