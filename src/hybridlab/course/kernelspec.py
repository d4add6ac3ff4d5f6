"""Install the Jupyter kernel `hybridlab`: this venv's Python, with the venv's bin first on PATH.

The engines are launched by the `mpiexec` found on PATH, so the notebook's kernel must see the
venv's MPICH before any other MPI on the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

from ..paths import venv_bin

NAME = "hybridlab"


def spec() -> dict:
    return {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "hybridlab (Python 3, MPI)",
        "language": "python",
        "env": {"PATH": f"{venv_bin()}:${{PATH}}", "IPP_NONINTERACTIVE": "1"},
        "metadata": {"debugger": False},
    }


def install(prefix: str = sys.prefix) -> str:
    """Install (or refresh) the kernelspec under `prefix`; returns where it went."""
    with tempfile.TemporaryDirectory() as tmp:
        # the kernelspec folder is copied with this folder's mode: readable by every user of a
        # shared install (a class hub), not TemporaryDirectory's 0700
        Path(tmp).chmod(0o755)
        (Path(tmp) / "kernel.json").write_text(json.dumps(spec(), indent=1))
        return KernelSpecManager().install_kernel_spec(tmp, NAME, prefix=prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quiet", action="store_true")
    where = install()
    if not parser.parse_args().quiet:
        print(f"installed Jupyter kernel '{NAME}' in {where}")


if __name__ == "__main__":
    main()
