"""A real Slurm cluster on this machine, in a scratch folder, for the tests and for a dry run.

munged (as the munge user), slurmctld and one slurmd per compute node (as root) are configured
with ports of their own in a scratch folder; `env` points Slurm's commands (salloc, srun, sinfo)
at it. Needs root and Debian's slurm-wlm and munge; `why_slurm_cannot_run()` says what is missing.

One node (the default) is this machine under its own name. With nodes=N > 1 the nodes are
node1..nodeN, each slurmd started in namespaces of its own by bubblewrap: its own hostname (UTS),
System V IPC, /dev/shm and /tmp, so an MPI cannot take a shared-memory path between two "nodes"
and must use its network path (TCP over the host's loopback: the network namespace is shared).
The rest of the file system, the project's folder with it, is the same on every node, as a
cluster's shared home is; the process table too, so the test sees (and kills) every node's
processes. Jobs are submitted from this machine's own namespace, the "login node".

    python scripts/slurm_cluster.py start DIR [--nodes N]   # configure and start, wait until idle
    python scripts/slurm_cluster.py stop DIR                # cancel every job, stop the daemons
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

from hybridlab import _reaper as reaper

TOOLS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sinfo", "scancel", "runuser")
NODE_TOOLS = ("bwrap",)  # the namespaces of a node when there are several
READY_SECONDS = 90  # until every node is idle in sinfo
ROOT = Path(__file__).resolve().parents[1]  # the project: seen at the same place on every node


class SlurmStartError(RuntimeError):
    """The cluster's daemons started but the node never became idle."""


def why_slurm_cannot_run(nodes: int = 1) -> str | None:
    """None when a Slurm cluster of `nodes` nodes can be started here, else why not."""
    if os.geteuid() != 0:
        return "starting slurmctld and slurmd needs root: run the Slurm suites as root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install slurm-wlm munge)"
    if nodes > 1 and shutil.which("bwrap") is None:
        return "not installed: bwrap, which gives each node its namespaces (apt-get install bubblewrap)"
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
    """(this machine's name, its hardware as `slurmd -C` describes it: CPUs=... RealMemory=...)."""
    text = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
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
SlurmUser=root
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
        slurmd = ["slurmd", "-f", str(self.conf), "-N", name]
        if self.nodes == 1:
            return slurmd
        shared = [a for p in sorted({ROOT, self.scratch}) for a in ("--bind", str(p), str(p))]
        return [
            "bwrap", "--dev-bind", "/", "/", "--unshare-uts", "--unshare-ipc",
            "--hostname", name, "--tmpfs", "/dev/shm", "--tmpfs", "/tmp", *shared, "--", *slurmd,
        ]  # fmt: skip

    def start(self) -> None:
        munge = self.scratch / "munge"
        subprocess.run(
            ["runuser", "-u", "munge", "--", "munged", f"--socket={self.socket}",
             f"--key-file={munge / 'munge.key'}", f"--pid-file={munge / 'munged.pid'}",
             f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
        commands = [["slurmctld", "-f", str(self.conf)]]
        commands += [self.slurmd_command(name) for name in self.node_names()]
        for command in commands:
            subprocess.run(command, env=self.env, check=True, capture_output=True, timeout=60)

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("scratch", type=Path, help="the cluster's folder (created by start)")
    parser.add_argument("--nodes", type=int, default=1, help="compute nodes (start; default 1)")
    args = parser.parse_args(argv)
    if args.action == "start":
        why = why_slurm_cannot_run(args.nodes)
        if why:
            print(f"cannot start Slurm here: {why}", file=sys.stderr)
            return 1
        args.scratch.mkdir(mode=0o755)
        cluster = SlurmCluster(args.scratch.resolve(), args.nodes)
        cluster.configure()
        cluster.start()
        cluster.wait_until_idle()
        print(f"export SLURM_CONF={cluster.conf}")
    else:
        SlurmCluster(args.scratch.resolve()).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
