"""Plots of the student's machine and runs. Plots take records and a Topology; they launch nothing.

One module per kind of picture; the names below are the ones labs use.
"""

from .machine import machine_picture
from .placement import RANK_COLOURS, SHARED, placement_map

__all__ = ["RANK_COLOURS", "SHARED", "machine_picture", "placement_map"]
