"""The guard tells the kit's processes from the student's by what they run (grading/_guard.py
_kits): a launcher by its file, an engine by its module under a launcher. A fresh attacker's
helper (A10, lab 09 (a), 5/5 twice each, 2026-12-07) lived through the test cells as a copy of
Python named mpiexec (F1), or as a child of the kernel that wrote `python -m ipyparallel.engine`
over its own command line (F2), and rewrote the hand-out file."""

import shutil
import subprocess
import sys

PROBE = r"""
import ctypes, os, shutil, subprocess, sys, tempfile, time
import hybridlab.grading._guard as g

folder = tempfile.mkdtemp()
copy = os.path.join(folder, "mpiexec")
shutil.copy(os.path.realpath(sys.executable), copy)
home = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
renamed = subprocess.Popen([copy, "-c", "import time; time.sleep(60)"], env=dict(os.environ, PYTHONHOME=home))
DISGUISE = r'''
import ctypes, time
with open("/proc/self/stat") as f:
    fields = f.read().rsplit(")", 1)[1].split()
start, end = int(fields[45]), int(fields[46])
want = b"python\0-m\0ipyparallel.engine\0"
ctypes.memmove(start, want + b"\0" * (end - start - len(want)), end - start)
time.sleep(60)
'''
disguised = subprocess.Popen([sys.executable, "-c", DISGUISE])
real = subprocess.Popen([shutil.which("mpiexec"), "-n", "1", sys.executable, "-c", "import time; time.sleep(60)"])
time.sleep(2)
found = g._foreign_processes(put_back=False)
kits = g._kits(g._descendants())
print("renamed", any(f"pid {renamed.pid})" in f for f in found))
print("disguised", any(f"pid {disguised.pid})" in f for f in found))
print("launcher", real.pid in kits and real.pid not in [p for p, *_ in g._descendants() if f"pid {p})" in " ".join(found)])
for p in (renamed, disguised, real):
    p.kill()
"""


def test_a_renamed_copy_and_a_disguised_engine_are_the_students_a_launcher_the_kits():
    assert shutil.which("mpiexec")
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["renamed True", "disguised True", "launcher True"], done.stdout
