"""Simulating the kit's MPI kernels at scale with SimGrid SMPI (lab 14).

    from hybridlab import simulate as sim
    res = sim.simulate("halo3d", ranks=256, platform="xt6", nx=..., ny=..., nz=..., dims="32x4x2")

platforms (the machines: XT4, XT6 from Stathopoulos 2010, this laptop from its own ping-pong),
build (smpicc), run (smpirun: options, records marked simulated, memory as PSS), calibrate
(the HECToR values the report does not give, fitted on its XT4 halo rows, checked on the XT6's).
"""

from __future__ import annotations

from .build import INSTALL_HINT, SimGridMissing, available
from .platforms import Platform, Value, hector, laptop, named
from .run import SIMULABLE, SimulationError, check_simulable, simulate

__all__ = [
    "INSTALL_HINT",
    "SIMULABLE",
    "Platform",
    "SimGridMissing",
    "SimulationError",
    "Value",
    "available",
    "check_simulable",
    "hector",
    "laptop",
    "named",
    "simulate",
]
