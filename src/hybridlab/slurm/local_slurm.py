"""A real Slurm cluster on this machine, in a scratch folder: lab 10's jobs in the image or on a
laptop (`hybridlab slurm start`), and the Slurm suites' clusters.

munged, slurmctld and one slurmd per compute node are configured with ports of their own in a
scratch folder; `env` points Slurm's commands (sbatch, salloc, srun, sinfo) at it. As root, munged
runs as the munge user and the daemons as root, and every user may run jobs. As any other user
(the image's student), the whole cluster is that user's own: munged with a key of its own,
SlurmUser and SlurmdUser that user, one node, jobs of that user only. Needs Debian's slurm-wlm
and munge; `why_slurm_cannot_run()` says what is missing.

One node (the default) is this machine under its own name. With nodes=N > 1 the nodes are
node1..nodeN, each slurmd started in namespaces of its own by bubblewrap: its own hostname (UTS),
System V IPC, /dev/shm and /tmp, so an MPI cannot take a shared-memory path between two "nodes"
and must use its network path (TCP over the host's loopback: the network namespace is shared).
The rest of the file system, the project's folder with it, is the same on every node, as a
cluster's shared home is; the process table too, so the test sees (and kills) every node's
processes. Jobs are submitted from this machine's own namespace, the "login node".

    hybridlab slurm start [DIR] [--nodes N]   # configure and start, wait until idle
    hybridlab slurm stop [DIR]                # cancel every job, stop the daemons
(DIR defaults to ~/.hybridlab-slurm; `export SLURM_CONF=DIR/slurm.conf` points a terminal at it.)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from ..machine import reaper

TOOLS = ("munged", "slurmctld", "slurmd", "srun", "sbatch", "salloc", "sinfo", "scancel")
DAEMONS = ("munged", "slurmctld", "slurmd")
READY_SECONDS = 90  # until every node is idle in sinfo
ROOT = Path(__file__).resolve().parents[3]  # the project: seen at the same place on every node
DEFAULT_FOLDER = Path.home() / ".hybridlab-slurm"


class SlurmStartError(RuntimeError):
    """A daemon of the cluster did not start, or the nodes never became idle."""


def why_slurm_cannot_run(nodes: int = 1) -> str | None:
    """None when a Slurm cluster of `nodes` nodes can be started here, else why not."""
    tools = [*TOOLS, "runuser"] if os.geteuid() == 0 else TOOLS
    missing = [tool for tool in tools if _which(tool) is None]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install slurm-wlm munge)"
    if nodes > 1 and os.geteuid() != 0:
        return "a cluster of several nodes (each in namespaces of its own) needs root"
    if nodes > 1 and shutil.which("bwrap") is None:
        return "not installed: bwrap, which gives each node its namespaces (apt-get install bubblewrap)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("munge")
        except KeyError:
            return "no munge user (the munge package creates it)"
    return None


def _which(tool: str) -> str | None:
    """A daemon's path: Debian puts munged, slurmctld and slurmd in /usr/sbin, which is not on a
    user's PATH."""
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin")


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
    """(this machine's name, its hardware as `slurmd -C` describes it: CPUs=... RealMemory=...)."""
    text = subprocess.run([_which("slurmd") or "slurmd", "-C"], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    line = next(x for x in text.splitlines() if x.startswith("NodeName="))
    name, hardware = line.split(" UpTime")[0].split(" ", 1)
    return name.split("=", 1)[1], hardware


class SlurmCluster:
    """munged + slurmctld + a slurmd per node in a scratch folder; `env` points Slurm's commands
    at it. `nodes` compute nodes: this machine itself when 1, else node1..nodeN in namespaces."""

    def __init__(self, scratch: Path, nodes: int = 1, slurmd_debug: str = "info"):
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, not {nodes}")
        self.scratch = scratch
        self.nodes = nodes
        self.slurmd_debug = slurmd_debug  # slurmd's log level (debug3 logs each PMI request)
        self.conf = scratch / "slurm.conf"
        self.socket = scratch / "munge" / "munge.socket"
        self.user = pwd.getpwuid(os.geteuid()).pw_name  # root, or the user whose cluster it is
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
        if os.geteuid() == 0:
            shutil.chown(munge, "munge", "munge")
            shutil.chown(key, "munge", "munge")
        host, hardware = node_line()
        ctld_port, *slurmd_ports = free_ports(1 + self.nodes)
        names = self.node_names(host)
        lines = "\n".join(
            f"NodeName={name} NodeHostname={name} NodeAddr=127.0.0.1 Port={port} {hardware} "
            "State=UNKNOWN"
            for name, port in zip(names, slurmd_ports, strict=True)
        )
        self.conf.write_text(
            f"""ClusterName=hybridlab
SlurmctldHost={host}(127.0.0.1)
SlurmUser={self.user}
SlurmdUser={self.user}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_ports[0]}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
StateSaveLocation={s / "state"}
SlurmdSpoolDir={s / "spool" / "%n"}
SlurmctldPidFile={s / "slurmctld.pid"}
SlurmdPidFile={s / "slurmd-%n.pid"}
SlurmctldLogFile={s / "log" / "slurmctld.log"}
SlurmdLogFile={s / "log" / "slurmd-%n.log"}
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
SlurmdDebug={self.slurmd_debug}
{lines}
PartitionName=kit Nodes={",".join(names)} Default=YES MaxTime=INFINITE State=UP
"""
        )
        (s / "plugstack.conf").write_text("")  # none of the site's SPANK plugins
        # cgroup plugins are not used (linuxproc, affinity), but slurmd reads cgroup.conf:
        # CgroupPlugin=disabled would make it refuse to start
        (s / "cgroup.conf").write_text("CgroupAutomount=yes\n")

    def node_names(self, host: str | None = None) -> list[str]:
        if self.nodes == 1:
            return [host or node_line()[0]]
        return [f"node{i}" for i in range(1, self.nodes + 1)]

    def slurmd_command(self, name: str) -> list[str]:
        """slurmd for node `name`; with several nodes, inside its own namespaces (bubblewrap):
        hostname, IPC, /dev/shm and /tmp of its own, the project and the scratch folder
        (possibly under /tmp) at the same place."""
        slurmd = [_which("slurmd") or "slurmd", "-f", str(self.conf), "-N", name]
        if self.nodes == 1:
            return slurmd
        shared = [a for p in sorted({ROOT, self.scratch}) for a in ("--bind", str(p), str(p))]
        return [
            "bwrap", "--dev-bind", "/", "/", "--unshare-uts", "--unshare-ipc",
            "--hostname", name, "--tmpfs", "/dev/shm", "--tmpfs", "/tmp", *shared, "--", *slurmd,
        ]  # fmt: skip

    def start(self) -> None:
        """Start munged, slurmctld and the slurmds; SlurmStartError with a daemon's own words when
        one refuses to start."""
        munge = self.scratch / "munge"
        as_munge = ["runuser", "-u", "munge", "--"] if os.geteuid() == 0 else []
        commands = [
            [*as_munge, _which("munged") or "munged", f"--socket={self.socket}",
             f"--key-file={munge / 'munge.key'}", f"--pid-file={munge / 'munged.pid'}",
             f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"],
            [_which("slurmctld") or "slurmctld", "-f", str(self.conf)],
            *(self.slurmd_command(name) for name in self.node_names()),
        ]  # fmt: skip
        for command in commands:
            done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=60)
            if done.returncode != 0:
                said = (done.stderr or done.stdout).strip()[-1500:]
                daemon = next(Path(a).name for a in command if Path(a).name in DAEMONS)
                raise SlurmStartError(f"{daemon} did not start (exit {done.returncode}): {said}\n"
                                      f"{self.logs()}")  # fmt: skip

    def wait_until_idle(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        state = ""
        while time.monotonic() < deadline:
            done = self.run(
                ["sinfo", "--noheader", "--Node", "--format=%T"], timeout=30, check=False
            )
            state = done.stdout.split()
            if state == ["idle"] * self.nodes:
                return
            time.sleep(0.5)
        raise SlurmStartError(f"the nodes did not become idle (sinfo: {state!r}):\n{self.logs()}")

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
        me = psutil.Process()
        mine = {me.pid, *(p.pid for p in me.parents())}  # `hybridlab slurm stop DIR` and its shell
        for proc in psutil.process_iter(["pid"]):
            if proc.pid in mine:
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


@contextlib.contextmanager
def started(nodes: int = 1, prefix: str = "hybridlab-slurm-", slurmd_debug: str = "info"):
    """A cluster of `nodes` nodes in a fresh scratch folder, started and idle; afterwards stopped
    and its folder removed, and RuntimeError if any of its processes outlived the stop."""
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    scratch.chmod(0o755)  # munged (the munge user) reaches its socket folder through it
    cluster = SlurmCluster(scratch, nodes, slurmd_debug)
    try:
        cluster.configure()
        cluster.start()
        cluster.wait_until_idle()
        yield cluster
    finally:
        cluster.stop()
        left = [f"{p.pid} {p.name()}" for p in cluster.processes()]
        shutil.rmtree(scratch, ignore_errors=True)
        if left:
            raise RuntimeError(f"Slurm processes left behind: {left}")


# `hybridlab slurm --help`: the module's first paragraph, whole
DESCRIPTION = " ".join(__doc__.split("\n\n")[0].split())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `hybridlab slurm` (the kit's command and this module's main)."""
    parser.add_argument("action", choices=("start", "stop", "status"),
                        help="start: configure, start and wait until idle; stop: cancel every "
                             "job and stop the daemons; status: running or not (exit 1 when not)")  # fmt: skip
    parser.add_argument("folder", type=Path, nargs="?", default=DEFAULT_FOLDER,
                        help=f"the cluster's folder (default {DEFAULT_FOLDER}); then "
                             "`export SLURM_CONF=FOLDER/slurm.conf`")  # fmt: skip
    parser.add_argument("--nodes", type=int, default=1, help="compute nodes (start; default 1)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hybridlab slurm", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Start, stop or describe the cluster in args.folder (add_arguments)."""
    folder = args.folder.expanduser().resolve()
    cluster = SlurmCluster(folder, args.nodes)
    running = cluster.conf.exists() and bool(cluster.processes())
    if args.action == "status":
        print(f"Slurm in {folder}: {'running' if running else 'not running'}")
        return 0 if running else 1
    if args.action == "stop":
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
        print(f"Slurm in {folder} stopped")
        return 0
    if running:
        print(f"Slurm already runs in {folder}\nexport SLURM_CONF={cluster.conf}")
        return 0
    why = why_slurm_cannot_run(args.nodes)
    if why:
        print(f"cannot start Slurm here: {why}", file=sys.stderr)
        return 1
    shutil.rmtree(folder, ignore_errors=True)  # a cluster's folder left by a stopped container
    try:
        folder.mkdir(mode=0o755, parents=True)
    except OSError as err:
        print(f"cannot start Slurm in {folder}: {err.strerror}", file=sys.stderr)
        return 1
    try:
        cluster.configure()
        cluster.start()
        cluster.wait_until_idle()
    except SlurmStartError as err:
        cluster.stop()
        print(f"cannot start Slurm in {folder}: {err}", file=sys.stderr)
        return 1
    print(f"Slurm runs in {folder} ({args.nodes} node{'s' if args.nodes > 1 else ''}): "
          f"sbatch, srun and sinfo need\nexport SLURM_CONF={cluster.conf}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
