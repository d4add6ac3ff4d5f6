"""Which libraries a graded notebook loaded are the kit's own (grading/kit_libraries.py): lab 08
(a)'s judge refuses compiled code of the notebook's own, and on a machine with no calibration yet
the calibration cell loads the kit's core probe (a fresh machine could not grade lab 08 at all:
attacker U, 2026-12-06)."""

import os
import subprocess
import sys

PROBE = """
import ctypes
from pathlib import Path
import hybridlab.grading._guard as g
from hybridlab.grading.kit_libraries import kit_library
from hybridlab.kernels.build import build, build_source
from hybridlab.machine import probe
from hybridlab.paths import kernels_dir

g.capture(["hybridlab.grading.kit_libraries"])
probe.roundtrip_ns(0, 0, 64, 0.001)  # the kit loads its probe (the calibration measuring the machine)
print("kit", [kit_library(n) for n in g.libraries_loaded()])
text = (kernels_dir() / "core_probe.c").read_text()
cell = build_source("core_probe", text + "\\nint hl_cell_own(void) { return 7; }\\n")  # a C cell under the kit's name
flagged = build("core_probe", ("-DHL_CELL_OWN=1",))  # the kit's source, a caller's flags
planted = Path(str(build("core_probe").library))
for lib in (cell.library, flagged.library):
    ctypes.CDLL(str(lib))
planted.unlink()  # the kit's build replaced by a cell's library under its name
planted.write_bytes(Path(cell.library).read_bytes())
print("own", [kit_library(n) for n in g.libraries_loaded()])
"""


def test_the_kits_probe_is_the_kits_and_a_cells_build_is_not(tmp_path):
    env = {**os.environ, "HYBRIDLAB_CACHE": str(tmp_path)}  # a fresh machine: nothing built yet
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=300, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "kit [True]", done.stdout
    assert lines[1] == "own [False, False, False]", done.stdout
