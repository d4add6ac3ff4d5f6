"""Compile a kit kernel with SimGrid's smpicc into a program smpirun runs, cached by content.

The kernel is built with the kit's own flags and headers (hybridlab.kernels.build), plus
-DHL_HALO_MAX_POINTS (the halo kernels accept the report's grids) and, for a network-only run,
-DHL_NETWORK_ONLY (halo3d skips its stencil: SMPI does not simulate computation then).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .. import progress
from ..kernels.build import DEFAULT_FLAGS, BuildError, cache_key, include_flags
from ..paths import cache_root, find_kernel_file

MAX_POINTS = "-DHL_HALO_MAX_POINTS=20000000000L"  # 2e10: the report's 1024-rank grids fit
NETWORK_ONLY = "-DHL_NETWORK_ONLY"
INSTALL_HINT = (
    "SimGrid's smpicc/smpirun are not installed. Debian/Ubuntu: `sudo apt-get install "
    "libsimgrid-dev simgrid`; conda: `conda install -c conda-forge simgrid`; or use the course's "
    "Docker image, which has them (PyPI's simgrid package has no SMPI)."
)


class SimGridMissing(RuntimeError):
    """smpicc or smpirun is not on this machine."""


def tool(name: str) -> str:
    """The path of smpicc or smpirun; SimGridMissing (saying how to get them) when absent."""
    found = shutil.which(name)
    if found is None:
        raise SimGridMissing(f"no {name}: {INSTALL_HINT}")
    return found


def available() -> bool:
    """True when smpicc and smpirun are both installed."""
    return all(shutil.which(t) for t in ("smpicc", "smpirun"))


def simulated_flags(network_only: bool) -> tuple[str, ...]:
    """The flags a kernel is built with for SimGrid (beside the kit's defaults)."""
    return (MAX_POINTS, *((NETWORK_ONLY,) if network_only else ()))


def build_simulated(name: str, network_only: bool) -> Path:
    """kernels_c/<name>.c built with smpicc (cached): the program's path."""
    source = find_kernel_file(f"{name}.c")
    if source is None:
        raise FileNotFoundError(f"no kernel '{name}' in the kit's kernels")
    cc = tool("smpicc")
    flags = simulated_flags(network_only)
    code = source.read_text()
    target = cache_root() / "simulate" / f"{name}-{cache_key(code, flags, cc)}"
    program = target / name
    if program.exists():
        return program
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=target.parent))
    cmd = [cc, *DEFAULT_FLAGS, *flags, *include_flags(), str(source), "-o", str(work / name),
           "-lm"]  # fmt: skip
    with progress.running(f"compile {name} for SimGrid (smpicc)"):
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise BuildError(name, cmd, done.stderr)
    try:
        work.rename(target)  # atomic: a concurrent build of the same key simply loses
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
    return program
