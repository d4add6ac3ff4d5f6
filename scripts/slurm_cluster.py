"""A real Slurm cluster on this machine, in a scratch folder, for the tests and for a dry run.

munged (as the munge user), slurmctld and slurmd (as root) are configured with ports of their own
in a scratch folder; `env` points Slurm's commands (salloc, srun, sinfo) at it. Needs root and
Debian's slurm-wlm and munge; `why_slurm_cannot_run()` says what is missing.

    python scripts/slurm_cluster.py start DIR    # configure and start, wait until idle
    python scripts/slurm_cluster.py stop DIR     # cancel every job, stop the daemons
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

from hybridlab import _reaper as reaper

TOOLS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sinfo", "scancel", "runuser")
READY_SECONDS = 90  # until the node is idle in sinfo


class SlurmStartError(RuntimeError):
    """The cluster's daemons started but the node never became idle."""


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
        raise SlurmStartError(f"the node did not become idle (sinfo: {state!r}):\n{self.logs()}")

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("scratch", type=Path, help="the cluster's folder (created by start)")
    args = parser.parse_args(argv)
    if args.action == "start":
        why = why_slurm_cannot_run()
        if why:
            print(f"cannot start Slurm here: {why}", file=sys.stderr)
            return 1
        args.scratch.mkdir(mode=0o755)
        cluster = OneNodeSlurm(args.scratch)
        cluster.configure()
        cluster.start()
        cluster.wait_until_idle()
        print(f"export SLURM_CONF={cluster.conf}")
    else:
        OneNodeSlurm(args.scratch).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
