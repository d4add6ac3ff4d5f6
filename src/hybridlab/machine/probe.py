"""The core-to-core probe recorded with every result (book: How the kit measures, "Where it ran").

A virtual machine can move its vCPUs so that two of them become SMT siblings of one host core;
synchronisation then gets faster and bandwidth per thread drops. A cache-line round trip between
two CPUs, measured before and after a run, tells the two states apart.
"""

from __future__ import annotations

import ctypes
import functools

from ..kernels.build import build

SIBLING_BELOW_NS = 150.0  # siblings: about 60 ns here; separate cores: about 350 ns


@functools.lru_cache(maxsize=1)
def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(build("core_probe").library), mode=ctypes.RTLD_LOCAL)
    lib.hl_probe_roundtrip_ns.restype = ctypes.c_double
    lib.hl_probe_roundtrip_ns.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_double]
    return lib


def roundtrip_ns(
    cpu_a: int, cpu_b: int, iterations: int = 2000, budget_s: float = 0.01
) -> float | None:
    """Round trip in ns between two CPUs, the best mean of batches of 64 (up to `iterations`
    round trips, fewer once `budget_s` has passed: a loaded machine costs no more time);
    None when they cannot both be used."""
    ns = _library().hl_probe_roundtrip_ns(cpu_a, cpu_b, iterations, budget_s)
    return None if ns < 0 else round(ns, 1)


def machine_state(ns: float | None) -> str:
    if ns is None:
        return "unknown (fewer than two usable CPUs)"
    return "shared core (SMT siblings)" if ns < SIBLING_BELOW_NS else "separate cores"


def probe(usable: tuple[int, ...]) -> dict[str, object]:
    """Round trip between the first two usable CPUs, with the state it suggests."""
    if len(usable) < 2:
        return {"cpus": list(usable), "roundtrip_ns": None, "state": machine_state(None)}
    ns = roundtrip_ns(usable[0], usable[1])
    return {"cpus": list(usable[:2]), "roundtrip_ns": ns, "state": machine_state(ns)}


def not_probed(usable: tuple[int, ...]) -> dict[str, object]:
    """What a graded run records in the probe's place: a graded run is judged, never compared
    across machine states, and on a busy grader the probe's two spinning threads wait for both
    CPUs at once (tenths of a second a probe)."""
    return {"cpus": list(usable[:2]), "roundtrip_ns": None, "state": "not probed (a graded run)"}


def compare(before: dict[str, object], after: dict[str, object]) -> str | None:
    """A warning when the machine changed state during a run."""
    if before["state"] != after["state"]:
        return (
            f"the machine changed state during the run (core-to-core round trip "
            f"{before['roundtrip_ns']} ns before, {after['roundtrip_ns']} ns after: "
            f"{before['state']} -> {after['state']}); compare only runs made in the same state"
        )
    return None
