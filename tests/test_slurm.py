"""A real one-node Slurm cluster: the engines and programs start through srun, lab 00 runs in it.

The test configures and starts munged (as the munge user), slurmctld and slurmd (as root) in a
scratch folder with ports of their own, and waits until the node is idle. Then, with the
notebook's process in the shell of `salloc -n 2` and again as a job step (as batchspawner starts
JupyterLab): a Cluster, a kernel on its 2 ranks, a crash and a restart, standalone programs with
each bind (slurm_job.py); and lab 00's instructor notebook headless in quick mode. Everything is
stopped afterwards, and the test checks that no daemon, step or engine of it is left.

Run with `make test-slurm`; `make test` leaves it out (marker `slurm`). Needs root and Debian's
slurm-wlm and munge (`apt-get install slurm-wlm munge`); skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from hybridlab import _reaper as reaper

pytestmark = [pytest.mark.slurm, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sinfo", "scancel", "runuser")
LAB = "00_getting_started"
READY_SECONDS = 90  # until the node is idle in sinfo
JOB_SECONDS = 600  # one salloc'd job at most (lab 00 in quick mode is one of them)


def why_slurm_cannot_run() -> str | None:
    """None when a Slurm cluster can be started here, else why not."""
    if os.geteuid() != 0:
        return "starting slurmctld and slurmd needs root: run `make test-slurm` as root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install slurm-wlm munge)"
    try:
        pwd.getpwnam("munge")
    except KeyError:
        return "no munge user (the munge package creates it)"
    return None


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def node_line() -> tuple[str, str]:
    """(node name, the NodeName line) as `slurmd -C` describes this machine."""
    text = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    line = next(x for x in text.splitlines() if x.startswith("NodeName="))
    return line.split()[0].split("=", 1)[1], line


class OneNodeSlurm:
    """munged + slurmctld + slurmd in a scratch folder; `env` points Slurm's commands at it."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.conf = scratch / "slurm.conf"
        self.socket = scratch / "munge" / "munge.socket"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        for var in [v for v in self.env if v.startswith(("SLURM_", "SALLOC_", "SRUN_"))]:
            if var != "SLURM_CONF":
                del self.env[var]  # a CI inside a Slurm job must not leak its own job here

    def configure(self) -> None:
        s = self.scratch
        for name in ("state", "spool", "log"):
            (s / name).mkdir()
        munge = s / "munge"
        munge.mkdir(mode=0o755)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(128))
        key.chmod(0o400)
        shutil.chown(munge, "munge", "munge")
        shutil.chown(key, "munge", "munge")
        name, line = node_line()
        ctld_port, slurmd_port = free_ports(2)
        self.conf.write_text(
            f"""ClusterName=hybridlab
SlurmctldHost={name}(127.0.0.1)
SlurmUser=root
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
StateSaveLocation={s / "state"}
SlurmdSpoolDir={s / "spool"}
SlurmctldPidFile={s / "slurmctld.pid"}
SlurmdPidFile={s / "slurmd.pid"}
SlurmctldLogFile={s / "log" / "slurmctld.log"}
SlurmdLogFile={s / "log" / "slurmd.log"}
PlugStackConfig={s / "plugstack.conf"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmi2
ReturnToService=2
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
{line.split(" UpTime")[0]} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=kit Nodes={name} Default=YES MaxTime=INFINITE State=UP
"""
        )
        (s / "plugstack.conf").write_text("")  # none of the site's SPANK plugins
        # cgroup plugins are not used (linuxproc, affinity), but slurmd reads cgroup.conf:
        # CgroupPlugin=disabled would make it refuse to start
        (s / "cgroup.conf").write_text("CgroupAutomount=yes\n")

    def start(self) -> None:
        munge = self.scratch / "munge"
        subprocess.run(
            ["runuser", "-u", "munge", "--", "munged", f"--socket={self.socket}",
             f"--key-file={munge / 'munge.key'}", f"--pid-file={munge / 'munged.pid'}",
             f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run(
                [daemon, "-f", str(self.conf)], env=self.env, check=True, capture_output=True,
                timeout=60,
            )  # fmt: skip

    def wait_until_idle(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        state = ""
        while time.monotonic() < deadline:
            done = self.run(["sinfo", "--noheader", "--format=%T"], timeout=30, check=False)
            state = done.stdout.strip()
            if state == "idle":
                return
            time.sleep(0.5)
        pytest.fail(f"the node did not become idle (sinfo: {state!r}):\n{self.logs()}")

    def run(self, cmd: list[str], *, timeout: float, check: bool = True, **kwargs):
        return subprocess.run(
            cmd, env=kwargs.pop("env", self.env), capture_output=True, text=True,
            timeout=timeout, check=check, **kwargs,
        )  # fmt: skip

    def logs(self) -> str:
        parts = []
        for path in sorted((self.scratch / "log").glob("*.log")):
            parts.append(f"--- {path.name}\n{path.read_text()[-3000:]}")
        return "\n".join(parts)

    def processes(self) -> list[psutil.Process]:
        """Everything of this cluster still alive: its daemons (their command lines name the
        scratch folder), step daemons and tasks (their environment names its slurm.conf)."""
        found = []
        for proc in psutil.process_iter(["pid"]):
            if proc.pid == os.getpid():
                continue
            try:
                if str(self.scratch) in " ".join(proc.cmdline()):
                    found.append(proc)
                elif proc.environ().get("SLURM_CONF") == str(self.conf):
                    found.append(proc)
            except (psutil.Error, OSError):
                continue
        return found

    def stop(self) -> None:
        """Cancel every job, stop the daemons (TERM, then KILL after 20 s)."""
        self.run(["scancel", "--full", "--partition=kit"], timeout=30, check=False)
        procs = self.processes()
        for proc in procs:
            try:
                proc.send_signal(signal.SIGTERM)
            except psutil.Error:
                continue
        _, alive = psutil.wait_procs(procs, timeout=20)
        reaper.kill(alive, timeout=10)


@pytest.fixture(scope="module")
def slurm():
    why = why_slurm_cannot_run()
    if why:
        pytest.skip(why)
    scratch = Path(tempfile.mkdtemp(prefix="hybridlab-slurm-"))
    scratch.chmod(0o755)  # munged (the munge user) reaches its socket folder through it
    cluster = OneNodeSlurm(scratch)
    try:
        cluster.configure()
        cluster.start()
        cluster.wait_until_idle()
        yield cluster
    finally:
        cluster.stop()
        left = [f"{p.pid} {p.name()}" for p in cluster.processes()]
        shutil.rmtree(scratch, ignore_errors=True)
        assert left == [], f"Slurm processes left behind: {left}"


# Where the notebook runs: in the shell of `salloc -n 2` (JupyterLab started from it), or as a
# job step of a one-task job with 2 CPUs (as batchspawner's `srun jupyterhub-singleuser` does).
SHELL = ["salloc", "-n", "2"]
STEP = ["salloc", "-n", "1", "--cpus-per-task=2", "srun", "-n", "1", "--cpus-per-task=2"]


def salloc(slurm: OneNodeSlurm, command: list[str], where: list[str] = SHELL):
    """Run `command` inside an allocation (`where`); fail with the output and the daemons' logs
    when it fails."""
    try:
        done = slurm.run(
            [*where, *command],
            timeout=JOB_SECONDS, check=False, cwd=ROOT,
            env={**slurm.env, "PYTHONPATH": str(ROOT / "tests")},
        )  # fmt: skip
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"salloc did not finish within {JOB_SECONDS} s: {err}\n{slurm.logs()}")
    if done.returncode != 0:
        pytest.fail(f"salloc exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}\n{slurm.logs()}")  # fmt: skip
    return done


@pytest.mark.parametrize("where", [SHELL, STEP], ids=["salloc-shell", "job-step"])
def test_the_engines_and_programs_start_through_srun_and_record_their_placement(
    slurm, tmp_path, where
):
    out = tmp_path / "seen.json"
    salloc(slurm, [sys.executable, str(ROOT / "tests" / "slurm_job.py"), str(out)], where)
    seen = json.loads(out.read_text())
    assert seen["job"] and seen["launcher"] == "srun"
    assert seen["doctor"].startswith("srun") and f"job {seen['job']}" in seen["doctor"]
    assert "srun" in seen["repr"]
    assert all(step is not None for step in seen["step"]), "the engines are not a Slurm step"
    engines = seen["engines"]
    assert engines["meta_launcher"] == "srun"
    assert sorted(r["rank"] for r in engines["records"]) == [0, 1]
    assert all(r["cpu"] in seen["usable"] for r in engines["records"])
    assert out.with_suffix(".png").stat().st_size > 0  # drawn as on a laptop
    assert seen["crash"]["rank"] == 1, seen["crash"]
    assert seen["after_restart"] == 2
    assert seen["engines_left"] == []

    programs = seen["programs"]
    assert {p["run_by"] for p in programs.values()} == {"srun"}
    assert all(p["command"].split()[0].endswith("srun") for p in programs.values())
    cores = programs["cores"]["records"]  # --cpu-bind=cores: a CPU of its own for each rank
    assert "--cpu-bind=cores" in programs["cores"]["command"]
    assert all(len(r["allowed"]) == 1 for r in cores)
    assert len({r["allowed"][0] for r in cores}) == 2
    piled = programs["one-core"]["records"]  # --cpus-per-task 1: both threads on one CPU
    assert len({tuple(r["allowed"]) for r in piled}) == 1 and len(piled[0]["allowed"]) == 1
    free = programs["none"]["records"]  # --cpu-bind=none: every CPU of the allocation
    assert all(len(r["allowed"]) == 2 for r in free)
    assert seen["mpiexec_inside"]["run_by"] == "mpiexec"  # HYBRIDLAB_LAUNCHER=mpiexec still works
    assert seen["mpiexec_inside"]["ranks"] == [0, 1]
    assert "not one MPI world" in seen["without_pmi"] and "--mpi=none" in seen["without_pmi"]


def test_lab_00_runs_headless_inside_the_allocation(slurm, tmp_path):
    notebook = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
    code = (
        "import sys\n"
        "from hybridlab import notebooks\n"
        "notebooks.run_notebook(sys.argv[1], sys.argv[2], quick=True, timeout=600)\n"
    )
    salloc(slurm, [sys.executable, "-c", code, str(notebook), str(tmp_path)])
    nb = nbformat.read(tmp_path / notebook.name, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors == []
    shown = "\n".join(
        o.get("data", {}).get("text/plain", "") for c in nb.cells for o in c.get("outputs", [])
    )
    assert re.search(r"Cluster\(ranks=2, threads=1, .*srun", shown), "the lab's cluster used srun"
    images = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert images >= 3
