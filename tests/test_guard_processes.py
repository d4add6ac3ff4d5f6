"""The guard knows the kit's processes by how they were started, not by how they look
(grading/_guard.py _kits): a root is a child of the kernel that the kit's own code started with
Popen (a launcher running engines, or the controller), and under it only the launcher's helpers,
its engines and the controller's forks. Before, a launcher was known by its file and an engine by
its command line (A10's F1 and F2, lab 09 (a), 5/5 twice each, 2026-12-07), and a fork of the
kernel that wrote the controller's command line over its own lived through every test cell (issue
36). The graded kernel is also made undumpable: no other process opens its descriptors (the
hand-out pipe) or its memory."""

import os
import shutil
import subprocess
import sys

PROBE = r"""
import ctypes, os, shutil, subprocess, sys, time
import psutil
import hybridlab.grading._guard as g

here = sys.argv[1]
for name in ("hl_engine_like", "hl_controller_like"):
    with open(os.path.join(here, name + ".py"), "w") as f:
        f.write("import time\ntime.sleep(60)\n")
g._ENGINES = {*g._ENGINES, "hl_engine_like"}  # stand-ins for the kit's programs (no real cluster)
g._CONTROLLER = "hl_controller_like"
mpiexec = shutil.which("mpiexec")
g.capture([])
# the kit's own starts: library code (psutil.Popen) starting a launcher of engines, a controller
kit_launcher = psutil.Popen([mpiexec, "-n", "1", sys.executable, "-m", "hl_engine_like"], cwd=here)
kit_controller = psutil.Popen([sys.executable, "-m", "hl_controller_like"], cwd=here)
# the student's: the same programs started from the cell itself
own_launcher = subprocess.Popen([mpiexec, "-n", "1", sys.executable, "-m", "hl_engine_like"], cwd=here)
own_engine = subprocess.Popen([sys.executable, "-m", "hl_engine_like"], cwd=here)
own_controller = subprocess.Popen([sys.executable, "-m", "hl_controller_like"], cwd=here)
# a copy of Python named mpiexec (A10's F1)
copy = os.path.join(here, "mpiexec")
shutil.copy(os.path.realpath(sys.executable), copy)
home = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
renamed = subprocess.Popen([copy, "-c", "import time; time.sleep(60)"], env=dict(os.environ, PYTHONHOME=home))
# a fork of the kernel that writes the controller's command line over its own (issue 36)
forked = os.fork()
if forked == 0:
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])
    want = b"python\0-m\0hl_controller_like\0"
    ctypes.memmove(start, want + b"\0" * (end - start - len(want)), end - start)
    time.sleep(60)
    os._exit(0)
time.sleep(3)
processes = g._descendants()
kits = g._kits(processes)
argv = {pid: " ".join(a[:4]) for pid, _e, a, _u in processes}
under = lambda root: {pid for pid, _e, _a, up in processes if up == root}
print("kit launcher", kit_launcher.pid in kits)
print("its engine", any(p in kits and "hl_engine_like" in argv[p] for p in argv if p not in (own_engine.pid,)))
print("kit controller", kit_controller.pid in kits)
print("own launcher", own_launcher.pid in kits or bool(under(own_launcher.pid) & kits))
print("own engine", own_engine.pid in kits)
print("own controller", own_controller.pid in kits)
print("renamed", renamed.pid in kits)
print("forked", forked in kits, argv.get(forked, "")[:40])
for p in (kit_launcher, kit_controller, own_launcher, own_engine, own_controller, renamed):
    p.kill()
os.kill(forked, 9)
"""


def test_the_kits_processes_are_known_by_how_they_were_started(tmp_path):
    assert shutil.which("mpiexec")
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "kit launcher True", "its engine True", "kit controller True", "own launcher False",
        "own engine False", "own controller False", "renamed False",
        "forked False python -m hl_controller_like",
    ], done.stdout


def test_a_kit_program_is_told_by_its_file_and_module():
    from hybridlab.grading import _guard as g

    mpiexec = shutil.which("mpiexec")
    engine = [sys.executable, "-m", "hybridlab.engines.engine"]
    assert g._kit_program(None, [mpiexec, "-n", "2", *engine], None) == "launcher"
    assert g._kit_program(None, [sys.executable, "-m", "ipyparallel.controller"], None) == "controller"
    assert g._kit_program(None, [mpiexec, "-n", "2", sys.executable, "-c", "pass"], None) is None
    assert g._kit_program(None, engine, None) is None  # an engine outside a launcher
    assert g._kit_program(None, ["/bin/sh", "-c", "mpiexec -n 2 python -m hybridlab.engines.engine"],
                          None) is None  # fmt: skip


UNDUMPABLE = r"""
import ctypes, os, subprocess, sys
import hybridlab.grading.handout as h
import hybridlab.grading._guard as g
g.capture(["hybridlab.grading.handout"])
fd = h._destination()
print("dumpable", g._dumpable())
other = subprocess.run(["/bin/sh", "-c", f"exec 9>/proc/{os.getpid()}/fd/{fd}"], capture_output=True)
print("opened by another process", other.returncode == 0)
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # an answer cell makes the kernel dumpable again
print("put back", any("dumpable" in c for c in g.restore({}, "p")), g._dumpable())
child = os.fork()  # a fork of the undumpable kernel hides its program (/proc/PID/exe): still killed
if child == 0:
    import time
    time.sleep(60)
    os._exit(0)
found = g._foreign_processes(put_back=True)
print("fork killed", any(f"pid {child})" in f for f in found), os.waitpid(child, 0)[1] != 0)
"""


def test_the_graded_kernel_is_undumpable_and_its_hand_out_descriptor_closed_to_others():
    from hybridlab.grading import handout

    # as the sandbox runs it: an account without capabilities (root's CAP_SYS_PTRACE opens any)
    account = (["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "--inh-caps=-all"]
               if os.geteuid() == 0 and shutil.which("setpriv") else [])  # fmt: skip
    channel = handout.Channel()
    done = subprocess.run([*account, sys.executable, "-c", UNDUMPABLE], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **channel.env()},
                          pass_fds=(channel.fd,), cwd="/")  # fmt: skip
    channel.close()
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if not line.startswith("HYBRIDLAB-TAMPER")]
    assert said == ["dumpable False", "opened by another process False", "put back True False",
                    "fork killed True True"], said
    assert "HYBRIDLAB-TAMPER p: the kernel made dumpable" in done.stdout
