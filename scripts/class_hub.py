"""A class hub on this machine, for a demo or a dry run before term, and for `make test-hub`.

Starts a one-node Slurm cluster (hybridlab.slurm.local_slurm) and JupyterHub with the kit's configuration
(deploy/jupyterhub_config.py: PAM, SlurmSpawner, nbgrader's exchange) in a scratch folder, with
three real accounts: an instructor (hlteacher, group hldemo-instructors) holding a copy of the
course in ~/course/grading, and two students (hlstudent1, hlstudent2, group hldemo-students),
each with a random password, a home no one else can read, and the exchange every user can
write. `stop` cancels every job, stops the hub, Slurm and the accounts' processes, and deletes
the accounts and their homes. Needs root, Debian's slurm-wlm and munge, the hub's packages
(requirements-hub.lock) and the proxy (`npm ci --prefix deploy`).

    python scripts/class_hub.py demo DIR    # start, print the URL and accounts, stop on Ctrl+C
    python scripts/class_hub.py start DIR   # start and leave running (a dry run)
    python scripts/class_hub.py stop DIR    # stop and remove everything start made
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

from hybridlab.machine import reaper
from hybridlab.slurm.local_slurm import SlurmCluster, free_ports, why_slurm_cannot_run

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent  # the kit's venv: the hub and every server run from it
PROXY = DEPLOY / "node_modules" / ".bin" / "configurable-http-proxy"
INSTRUCTOR = "hlteacher"
STUDENTS = ("hlstudent1", "hlstudent2")
GROUPS = {"students": "hldemo-students", "instructors": "hldemo-instructors"}
HUB_READY_SECONDS = 120
COMMAND_SECONDS = 900  # one instructor command (grading a lab for the class)


class HubError(RuntimeError):
    """The hub did not start, or an instructor's command failed."""


def why_hub_cannot_run() -> str | None:
    """None when the class hub can be started here, else why not."""
    why = why_slurm_cannot_run()
    if why:
        return why
    missing = [t for t in ("useradd", "userdel", "groupadd", "chpasswd") if not shutil.which(t)]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install passwd)"
    if not (BIN / "jupyterhub").exists() or not (BIN / "batchspawner-singleuser").exists():
        return f"JupyterHub is not in {BIN}: pip install -r requirements-hub.lock"
    if not PROXY.exists():
        return "configurable-http-proxy is not installed: npm ci --prefix deploy"
    hidden = [p for p in (Path(sys.executable).resolve(), ROOT) if not usable_by_everyone(p)]
    if hidden:
        return (
            f"the students' servers cannot run the kit's Python: {hidden[0]} is not readable by "
            "other users (a venv of a Python under /root?); make one from the system's Python: "
            "make test-hub VENV=.venv-hub PYTHON3=/usr/bin/python3"
        )
    return None


def usable_by_everyone(path: Path) -> bool:
    """Every folder above `path` can be entered, and `path` read, by any user."""
    if not path.stat().st_mode & 0o004:
        return False
    return all(parent.stat().st_mode & 0o001 for parent in path.parents)


@dataclass
class Account:
    name: str
    password: str
    group: str

    @property
    def home(self) -> Path:
        return Path("/home") / self.name


class ClassHub:
    """Slurm + JupyterHub + accounts in `scratch`; `state.json` there says what start made."""

    def __init__(self, scratch: Path, idle_timeout: int | None = None):
        self.scratch = scratch
        self.idle_timeout = idle_timeout  # seconds before the culler stops an idle server
        self.slurm = SlurmCluster(scratch / "slurm")
        self.exchange = scratch / "exchange"
        self.hub_dir = scratch / "hub"
        self.state_file = scratch / "state.json"
        self.state = json.loads(self.state_file.read_text()) if self.state_file.exists() else {}

    # --- what start made, kept as it is made (stop undoes exactly that) ---

    def _remember(self, key: str, value) -> None:
        self.state.setdefault(key, [])
        self.state[key].append(value)
        self.state_file.write_text(json.dumps(self.state, indent=1))
        self.state_file.chmod(0o600)  # it holds the demo's passwords

    @property
    def accounts(self) -> list[Account]:
        return [Account(**a) for a in self.state.get("accounts", [])]

    def account(self, name: str) -> Account:
        return next(a for a in self.accounts if a.name == name)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.state['port']}"

    # --- start ---

    def start(self) -> None:
        self.scratch.chmod(0o755)  # the accounts reach the exchange through it
        for name in (*STUDENTS, INSTRUCTOR):
            if _exists("passwd", name):
                raise HubError(f"an account {name} exists already: not ours, not touched")
        for group in GROUPS.values():
            subprocess.run(["groupadd", group], check=True, capture_output=True)
            self._remember("groups", group)
        for name, group in [(INSTRUCTOR, GROUPS["instructors"])] + [
            (s, GROUPS["students"]) for s in STUDENTS
        ]:
            self._add_account(name, group)
        # nbgrader's exchange: the root every user can write, sticky (nbgrader makes the course's
        # folders below it with their own modes when the instructor releases)
        self.exchange.mkdir()
        self.exchange.chmod(0o1777)
        self._copy_course()
        self.slurm.scratch.mkdir(mode=0o755)
        self.slurm.configure()
        self._share_cores()
        self.slurm.start()
        self.slurm.wait_until_idle()
        self._start_hub()

    def _add_account(self, name: str, group: str) -> None:
        password = secrets.token_urlsafe(12)
        self._remember("accounts", {"name": name, "password": password, "group": group})
        subprocess.run(
            ["useradd", "--create-home", "--shell", "/bin/bash", "--groups", group, name],
            check=True, capture_output=True,
        )  # fmt: skip
        subprocess.run(
            ["chpasswd"], input=f"{name}:{password}\n", text=True, check=True, capture_output=True
        )
        # Debian's useradd leaves homes 0755 (UMASK 022 in /etc/login.defs): others could read
        # a student's notebooks. A class's homes are the student's alone.
        (Path("/home") / name).chmod(0o700)

    def _copy_course(self) -> None:
        """The instructor's own course folder: the kit's grading/ (sources and configuration)."""
        course = self.account(INSTRUCTOR).home / "course" / "grading"
        shutil.copytree(ROOT / "grading" / "source", course / "source")
        shutil.copy(ROOT / "grading" / "nbgrader_config.py", course)
        subprocess.run(
            ["chown", "-R", f"{INSTRUCTOR}:{INSTRUCTOR}", str(course.parent)], check=True
        )

    def _share_cores(self) -> None:
        """Two students at once on a small machine: the partition lets two jobs share a core
        (OverSubscribe=FORCE:2), so each student's job still gets the cores of one lab. A site's
        partition does not do this: its nodes have the cores for the class."""
        lines = self.slurm.conf.read_text().splitlines()
        shared = [
            f"{x} OverSubscribe=FORCE:2" if x.startswith("PartitionName=") else x for x in lines
        ]
        self.slurm.conf.write_text("\n".join(shared) + "\n")

    def hub_environment(self) -> dict[str, str]:
        env = {k: v for k, v in self.slurm.env.items() if not k.startswith("JUPYTER")}
        env.update(
            PATH=f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}",
            HYBRIDLAB_HUB_URL=f"http://127.0.0.1:{self.state['port']}",
            HYBRIDLAB_HUB_API_PORT=str(self.state["api_port"]),
            HYBRIDLAB_HUB_PROXY_API_PORT=str(self.state["proxy_port"]),
            HYBRIDLAB_HUB_CONNECT_IP="127.0.0.1",
            HYBRIDLAB_HUB_STATE=str(self.hub_dir),
            HYBRIDLAB_HUB_STUDENTS=GROUPS["students"],
            HYBRIDLAB_HUB_INSTRUCTORS=GROUPS["instructors"],
            HYBRIDLAB_EXCHANGE=str(self.exchange),
            HYBRIDLAB_QUICK="1",  # the labs' small sizes: a demo on a small machine
        )
        if self.idle_timeout:  # the test's short one; else deploy's default (an hour)
            env["HYBRIDLAB_HUB_IDLE_TIMEOUT"] = str(self.idle_timeout)
            env["HYBRIDLAB_HUB_CULL_EVERY"] = str(max(10, self.idle_timeout // 6))
        return env

    def _start_hub(self) -> None:
        self.hub_dir.mkdir(mode=0o700)
        self.state["port"], self.state["api_port"], self.state["proxy_port"] = free_ports(3)
        log = (self.hub_dir / "jupyterhub.log").open("w")
        hub = subprocess.Popen(
            [str(BIN / "jupyterhub"), "-f", str(DEPLOY / "jupyterhub_config.py")],
            cwd=self.hub_dir, env=self.hub_environment(), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives `start`; stop signals it by its pid
        )  # fmt: skip
        self.state["hub_pid"] = hub.pid
        self.state_file.write_text(json.dumps(self.state, indent=1))
        deadline = time.monotonic() + HUB_READY_SECONDS
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api", timeout=5):
                    return
            except OSError:
                if hub.poll() is not None:
                    break
                time.sleep(1)
        raise HubError(f"JupyterHub did not answer on {self.url}:\n{self.hub_log()}")

    def hub_log(self) -> str:
        path = self.hub_dir / "jupyterhub.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "(no log)"

    # --- the instructor's terminal ---

    def instructor(self, *args: str, timeout: float = COMMAND_SECONDS):
        """`hybridlab ARGS` as the instructor, on their course, with the class's exchange."""
        home = self.account(INSTRUCTOR).home
        env = [
            f"PATH={BIN}:/usr/bin:/bin", f"HOME={home}", f"USER={INSTRUCTOR}",
            f"HYBRIDLAB_GRADING={home / 'course' / 'grading'}",
            f"HYBRIDLAB_EXCHANGE={self.exchange}", "IPP_NONINTERACTIVE=1", "HYBRIDLAB_QUICK=1",
        ]  # fmt: skip
        done = subprocess.run(
            ["runuser", "-u", INSTRUCTOR, "--", "env", "-i", *env, str(BIN / "hybridlab"), *args],
            cwd=home, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise HubError(f"hybridlab {' '.join(args)} failed ({done.returncode}):\n"
                           f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")  # fmt: skip
        return done

    # --- stop ---

    def processes(self) -> list[psutil.Process]:
        """The hub, its proxy, Slurm's daemons and steps, and every process of the accounts."""
        uids = {_uid(a.name) for a in self.accounts} - {None}
        found = {p.pid: p for p in self.slurm.processes()}
        for proc in psutil.process_iter(["pid", "uids", "cmdline"]):
            try:
                if proc.info["uids"] and proc.info["uids"].real in uids:
                    found[proc.pid] = proc
                elif str(self.hub_dir) in " ".join(proc.info["cmdline"] or []):
                    found[proc.pid] = proc
            except (psutil.Error, OSError):
                continue
        pid = self.state.get("hub_pid")
        if pid and psutil.pid_exists(pid):
            found[pid] = psutil.Process(pid)
        found.pop(os.getpid(), None)
        return list(found.values())

    def stop(self) -> None:
        """Stop the hub (it cancels the students' jobs), Slurm, the accounts' processes; delete
        the accounts, their homes and groups. Safe to run twice or after a failed start."""
        pid = self.state.get("hub_pid")
        if pid and psutil.pid_exists(pid):
            hub = psutil.Process(pid)
            family = [hub, *hub.children(recursive=True)]
            hub.send_signal(signal.SIGTERM)
            _, alive = psutil.wait_procs(family, timeout=60)
            reaper.kill(alive, timeout=10)
        if self.slurm.conf.exists():
            self.slurm.stop()
        reaper.kill(self.processes(), timeout=10)
        for account in self.accounts:
            if _exists("passwd", account.name):
                subprocess.run(["userdel", "--remove", account.name], capture_output=True)
        for group in self.state.get("groups", []):
            if _exists("group", group):
                subprocess.run(["groupdel", group], capture_output=True)


def _exists(database: str, name: str) -> bool:
    return subprocess.run(["getent", database, name], capture_output=True).returncode == 0


def _uid(name: str) -> int | None:
    done = subprocess.run(["id", "-u", name], capture_output=True, text=True)
    return int(done.stdout) if done.returncode == 0 else None


def describe(hub: ClassHub) -> str:
    lines = [f"JupyterHub: {hub.url}  (log: {hub.hub_dir / 'jupyterhub.log'})", "accounts:"]
    lines += [f"  {a.name:<12} {a.password}  ({a.group})" for a in hub.accounts]
    lines += [
        f"exchange: {hub.exchange}",
        f"Slurm: export SLURM_CONF={hub.slurm.conf}",
        "the instructor's commands (their terminal on the hub, or from here):",
        f"  runuser -u {INSTRUCTOR} -- env HYBRIDLAB_GRADING=~{INSTRUCTOR}/course/grading "
        f"HYBRIDLAB_EXCHANGE={hub.exchange} {BIN / 'hybridlab'} release 00_getting_started "
        "--exchange",
    ]
    return "\n".join(lines)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("demo", "start", "stop"))
    parser.add_argument("scratch", type=Path, help="the hub's folder (created by start)")
    args = parser.parse_args(argv)
    if args.action == "stop":
        ClassHub(args.scratch).stop()
        shutil.rmtree(args.scratch, ignore_errors=True)
        return 0
    why = why_hub_cannot_run()
    if why:
        print(f"cannot start the class hub here: {why}", file=sys.stderr)
        return 1
    args.scratch.mkdir()
    hub = ClassHub(args.scratch)
    try:
        hub.start()
    except BaseException:
        hub.stop()
        raise
    print(describe(hub), flush=True)
    if args.action == "start":
        return 0
    print("Ctrl+C stops the hub and removes the accounts.", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl+C does
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    hub.stop()
    shutil.rmtree(args.scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
