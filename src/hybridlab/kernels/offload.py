"""Which OpenMP offload targets this machine's clang can build for, and how many devices each
gives a program: what lab 15 needs (`hybridlab doctor` prints it; the lab skips its live cells
with the reason when the host target is missing).

    status = probe()                     # the host plugin's target (x86_64): on every machine
    status.ready, status.devices, status.message
    [probe(t) for t in OFFLOAD_TARGETS]  # nvptx64 (NVIDIA) and amdgcn (AMD) need a GPU toolchain

A probe compiles a few lines with `clang -fopenmp -fopenmp-targets=<target>` and runs them:
omp_get_num_devices() and whether a target region ran off the host (omp_is_initial_device).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import progress
from .build import OFFLOAD_COMPILER, OFFLOAD_TARGETS, offload_flags
from .toolchain import toolchain_env

PROBE_SECONDS = 60
INSTALL = "apt-get install clang libomp-14-dev clang-tools-14 (Debian 12; README, What the machine needs)"
_PROGRAM = r"""
#include <omp.h>
#include <stdio.h>
int main(void) {
    int off_host = 0;
#pragma omp target map(from : off_host)
    off_host = !omp_is_initial_device();
    printf("%d %d\n", omp_get_num_devices(), off_host);
    return 0;
}
"""


@dataclass(frozen=True)
class OffloadStatus:
    target: str
    devices: int  # omp_get_num_devices() of a program built for the target (0: none)
    off_host: bool  # a target region ran on a device, not on the host
    message: str  # what was found, or why not

    @property
    def ready(self) -> bool:
        return self.devices > 0 and self.off_host


@functools.lru_cache(maxsize=len(OFFLOAD_TARGETS))
def probe(target: str = OFFLOAD_TARGETS[0]) -> OffloadStatus:
    """Build and run the probe for `target` (cached for the process)."""
    if shutil.which(OFFLOAD_COMPILER, path=toolchain_env().get("PATH")) is None:
        return OffloadStatus(target, 0, False, f"no {OFFLOAD_COMPILER} on PATH: {INSTALL}")
    with tempfile.TemporaryDirectory(prefix="hl-offload-") as work, \
            progress.running(f"offload probe {target}"):
        source, program = Path(work) / "probe.c", Path(work) / "probe"
        source.write_text(_PROGRAM)
        cmd = [OFFLOAD_COMPILER, "-fopenmp", *offload_flags(target), str(source), "-o", str(program)]
        try:
            built = subprocess.run(cmd, capture_output=True, text=True, timeout=PROBE_SECONDS,
                                   check=False, env=toolchain_env())  # fmt: skip
            if built.returncode != 0:
                said = (built.stderr.strip().splitlines() or ["no message"])[-1]
                return OffloadStatus(target, 0, False, f"clang cannot build for it ({said})")
            ran = subprocess.run([str(program)], capture_output=True, text=True,
                                 timeout=PROBE_SECONDS, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            return OffloadStatus(target, 0, False, f"the {target} probe took over {PROBE_SECONDS} s")
    words = ran.stdout.split()
    if ran.returncode != 0 or len(words) != 2:
        return OffloadStatus(target, 0, False, f"the {target} probe failed: {ran.stderr.strip()[-200:]}")
    devices, off_host = int(words[0]), words[1] == "1"
    where = "ran on a device" if off_host else "fell back to the host"
    return OffloadStatus(target, devices, off_host, f"{devices} device(s); a target region {where}")
