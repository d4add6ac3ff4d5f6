"""The calibration of this machine: a few measured numbers, kept in a small JSON file that later
cells (and later sessions) load instead of measuring again.

The file lives in the notebook's working folder (`calibration.json` beside the lab): it belongs
to the machine the notebook runs on, the student can see and delete it, the package folder may
be read-only (Docker, a system install), and a grader's fresh folder has none, so a submission
is graded with numbers measured where it is graded. JSON, because the standard library both
reads and writes it. Each value keeps its unit and where it came from; a file written on another
machine (host name or CPU count differ) is ignored. Launches nothing: exercise.calibrate measures.

    cal = load("calibration.json")            # None if missing, unreadable or from elsewhere
    cal["latency_s"], cal.table()
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

DEFAULT_FILE = "calibration.json"
FORMAT = 1

# name -> (what it is, display unit, factor from SI to the display unit)
QUANTITIES = {
    "latency_s": ("MPI latency, small messages (Hockney alpha)", "us", 1e6),
    "bandwidth_Bps": ("MPI bandwidth, large messages (Hockney beta)", "GB/s", 1e-9),
    "bandwidth_small_Bps": ("MPI bandwidth of the small-message line", "GB/s", 1e-9),
    "latency_large_s": ("MPI latency of the large-message line", "us", 1e6),
    "switch_bytes": ("protocol switch (eager -> rendezvous)", "B", 1.0),
    "mem_bw_1_Bps": ("memory bandwidth, 1 thread (STREAM triad)", "GB/s", 1e-9),
    "mem_bw_all_Bps": ("memory bandwidth, all cores (STREAM triad)", "GB/s", 1e-9),
    "stencil_rate": ("7-point Jacobi update rate, 1 thread", "Mpoint/s", 1e-6),
    "omp_barrier_s": ("OpenMP barrier, all cores (EPCC overhead)", "us", 1e6),
    "mpi_barrier_s": ("MPI_Barrier, 2 ranks (EPCC overhead)", "us", 1e6),
}


@dataclass(frozen=True)
class Quantity:
    """One calibrated number in SI units, and where it came from."""

    value: float
    unit: str
    source: str


@dataclass
class Calibration:
    """Named quantities measured on one machine (see QUANTITIES), and that machine."""

    values: dict[str, Quantity] = field(default_factory=dict)
    machine: dict = field(default_factory=dict)
    created: str = ""
    quick: bool = False

    def __getitem__(self, name: str) -> float:
        return self.values[name].value

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def missing(self, names=tuple(QUANTITIES)) -> list[str]:
        """The names of `names` not calibrated yet."""
        return [n for n in names if n not in self.values]

    def merged(self, other: Calibration) -> Calibration:
        """These values with `other`'s added (other wins on a clash)."""
        return Calibration({**self.values, **other.values}, other.machine or self.machine,
                           other.created or self.created, self.quick or other.quick)  # fmt: skip

    def table(self) -> pd.DataFrame:
        """One row per quantity: what, value in display units, unit, where it came from."""
        rows = []
        for name, q in self.values.items():
            what, unit, factor = QUANTITIES.get(name, (name, q.unit, 1.0))
            rows.append({"quantity": what, "name": name, "value": q.value * factor,
                         "unit": unit, "source": q.source})  # fmt: skip
        return pd.DataFrame(rows, columns=["quantity", "name", "value", "unit", "source"])

    def to_dict(self) -> dict:
        return {"format": FORMAT, "created": self.created, "quick": self.quick,
                "machine": self.machine,
                "values": {k: asdict(v) for k, v in self.values.items()}}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> Calibration:
        if data.get("format") != FORMAT:
            raise ValueError(f"calibration format {data.get('format')!r}, expected {FORMAT}")
        values = {k: Quantity(float(v["value"]), str(v["unit"]), str(v["source"]))
                  for k, v in data["values"].items()}  # fmt: skip
        return cls(values, dict(data.get("machine", {})), str(data.get("created", "")),
                   bool(data.get("quick", False)))  # fmt: skip


def this_machine() -> dict:
    """What identifies the machine a calibration belongs to: host name, usable CPUs, arch."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"host": platform.node(), "cpus": cpus, "arch": platform.machine()}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def save(cal: Calibration, path: str | os.PathLike = DEFAULT_FILE) -> Path:
    """Write the calibration as JSON (atomically: a half-written file is never read)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(cal.to_dict(), indent=2) + "\n")
    tmp.replace(path)
    return path


def load(path: str | os.PathLike = DEFAULT_FILE, machine: dict | None = None) -> Calibration | None:
    """The calibration in `path`, or None when the file is missing, unreadable, or was written
    on another machine than `machine` (default: this one)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        cal = Calibration.from_dict(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError):
        return None
    want = this_machine() if machine is None else machine
    if cal.machine != want:
        return None
    return cal
