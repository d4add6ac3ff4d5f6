"""Run one submission's Jupyter kernel, and everything it starts, inside a bubblewrap sandbox.

nbgrader stays outside: it reads the notebook, restores the tests, executes the cells through a
kernel client and writes the gradebook. Only the kernel process is launched differently:
`SandboxedKernelManager` wraps the kernel command in `bwrap` and talks to it over ZeroMQ's ipc
transport (Unix sockets in a folder bound into the sandbox), since the sandbox has a network
namespace of its own and TCP on the grader's loopback cannot reach it.

Inside the sandbox (one per kernel start):
  - own PID namespace (the kernel is the only tree; all of it dies with the sandbox), own network
    namespace with only loopback (the ipyparallel controller and engines still talk), own IPC,
    UTS and user namespaces (as root: uid 1000 without capabilities);
  - read-only: /usr, /etc, the /bin and /lib links, /sys, the venv, the installed hybridlab
    package and its C kernels; nothing else of the machine (no home, no course folder: the
    hidden tests, solutions, gradebook, release and feedback folders and other students'
    submissions are not there at all);
  - writable: private /tmp and /dev/shm (MPI segments vanish with the sandbox), HOME under /tmp,
    a copy of the kernel's working folder without notebooks (the autograded copy of the notebook
    holds the hidden tests) and without runs folders, and a copy of the kernel build cache;
  - read-only as well: the reference run's kernel runs and the grader's checked copy of the
    submission's own runs (replay.py, own_runs.py);
  - limits: memory and number of tasks through a cgroup when one can be made (v1 or v2),
    otherwise rlimits (address space per process; RLIMIT_NPROC, which does not bind root).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Float, Integer
from traitlets.config import Configurable

from .. import replay

SANDBOX_UID = 1000  # who the kernel is inside the sandbox when the grader runs as root
SYSTEM_DIRS = ("/usr", "/etc", "/opt/conda")  # read-only when present
LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class SandboxError(RuntimeError):
    """No sandbox can be made here; the message says why and what to do."""


class Limits(Configurable):
    """Grading limits, set in grading/nbgrader_config.py as c.Limits.<name> = value."""

    memory_mb = Integer(3072, help="memory of one whole sandbox (kernel, engines, MPI)").tag(
        config=True
    )
    tasks = Integer(768, help="processes + threads in one sandbox (cgroup pids.max)").tag(
        config=True
    )
    output_bytes = Integer(200_000, help="output kept per cell; the rest is cut with a marker").tag(
        config=True
    )
    factor = Float(
        4.0, help="time limits are this many times the instructor solution's quick run"
    ).tag(config=True)
    cell_minimum = Integer(60, help="seconds: the shortest cell time limit").tag(config=True)
    submission_minimum = Integer(240, help="seconds: the shortest submission time limit").tag(
        config=True
    )
    restarts = Integer(
        4, help="kernel restarts per submission (a cell that kills or hangs the kernel)"
    ).tag(config=True)
    jobs = Integer(0, help="submissions graded at once; 0: from the cores and the lab").tag(
        config=True
    )
    replay_runs = Bool(
        True,
        help="give each submission the solution's recorded output for the same kernel run "
        "instead of measuring it again (replay.py); False: every submission measures",
    ).tag(config=True)
    unsandboxed = Bool(
        False, help="grade WITHOUT a sandbox (trusted code only); loudly reported"
    ).tag(config=True)


# ---------------------------------------------------------------------------- cgroups


def _own_cgroup(controller: str) -> Path | None:
    """The folder of this process's cgroup for `controller` (v1), or the v2 one."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            folder = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            return folder if folder.is_dir() else None
    for line in lines:
        if line.startswith("0::"):
            folder = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
            if (folder / "cgroup.controllers").exists():
                return folder
    return None


class Cgroup:
    """A memory + tasks cgroup for one sandbox, or nothing when none can be made here."""

    def __init__(self, memory_mb: int, tasks: int):
        self.folders: list[Path] = []
        self.how = "rlimits"
        name = f"hybridlab-{uuid.uuid4().hex[:10]}"
        memory = memory_mb * 2**20
        try:
            mem, pids = _own_cgroup("memory"), _own_cgroup("pids")
            if mem is not None and (mem / "memory.limit_in_bytes").exists():  # v1
                m = mem / name
                m.mkdir()
                self.folders.append(m)
                (m / "memory.limit_in_bytes").write_text(str(memory))
                if (m / "memory.memsw.limit_in_bytes").exists():
                    (m / "memory.memsw.limit_in_bytes").write_text(str(memory))
                if pids is not None:
                    p = pids / name
                    p.mkdir()
                    self.folders.append(p)
                    (p / "pids.max").write_text(str(tasks))
                self.how = "cgroup v1"
            elif mem is not None and (mem / "cgroup.controllers").exists():  # v2
                g = mem / name
                g.mkdir()
                self.folders.append(g)
                (g / "memory.max").write_text(str(memory))
                (g / "memory.swap.max").write_text("0")
                (g / "pids.max").write_text(str(tasks))
                self.how = "cgroup v2"
        except OSError:
            self.remove()
            self.folders, self.how = [], "rlimits"

    def enter_command(self) -> str:
        """Shell words that move the shell itself into the cgroup(s) before it execs bwrap."""
        return "; ".join(f"echo $$ > {shlex.quote(str(f / 'cgroup.procs'))}" for f in self.folders)

    def oom_killed(self) -> bool:
        """Did the sandbox reach its memory limit (v1: a failcnt or an oom kill; v2: oom_kill)?"""
        for folder in self.folders:
            for name in (
                "memory.failcnt",
                "memory.memsw.failcnt",
                "memory.oom_control",
                "memory.events",
            ):
                try:
                    text = (folder / name).read_text()
                except OSError:
                    continue
                if name.endswith("failcnt") and text.strip() not in ("", "0"):
                    return True
                if any(
                    line.split()[0] == "oom_kill" and line.split()[1] != "0"
                    for line in text.splitlines()
                    if len(line.split()) == 2
                ):
                    return True
        return False

    def remove(self) -> None:
        for folder in self.folders:
            for _ in range(50):  # the tasks of a killed sandbox take a moment to leave
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


# ---------------------------------------------------------------------------- the box


def _read_only_roots() -> list[str]:
    """Folders the kernel needs to read: the system, the venv, Python, hybridlab and its kernels."""
    import hybridlab
    from hybridlab.paths import kernels_dir

    roots = [d for d in SYSTEM_DIRS if Path(d).is_dir()]
    roots += [sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent.parent)]
    roots += [str(Path(hybridlab.__file__).resolve().parents[1]), str(kernels_dir().resolve())]
    out: list[str] = []
    for root in sorted(set(roots), key=len):
        if Path(root).is_dir() and not any(root == o or root.startswith(o + "/") for o in out):
            out.append(root)
    return out


def bwrap_args(
    workdir: Path,
    binds: list[tuple[Path, Path]],
    env: dict[str, str],
    read_only: list[Path] = (),
) -> list[str]:
    """The bwrap command line (before the kernel's own command); `binds` writable, `read_only`
    folders visible at the same place, read-only."""
    exe = shutil.which("bwrap")
    if exe is None:
        raise SandboxError(_HELP.format(why="bubblewrap (bwrap) is not installed"))
    args = [exe, "--unshare-all", "--die-with-parent"]
    if os.geteuid() == 0:
        args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        args += ["--cap-drop", "ALL"]
    for link in LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    # the private /tmp first: a checkout or venv that lives under /tmp is bound on top of it
    args += ["--tmpfs", "/tmp", "--dir", "/tmp/home"]
    for root in _read_only_roots():
        args += ["--ro-bind", root, root]
    args += ["--ro-bind", "/sys", "/sys", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]
    for source, target in binds:
        args += ["--bind", str(source), str(target)]
    for folder in read_only:
        args += ["--ro-bind", str(folder), str(folder)]
    for key, value in env.items():
        args += ["--setenv", key, value]
    # the grader's pid means nothing in the sandbox's PID namespace (ipykernel would exit)
    args += ["--unsetenv", "JPY_PARENT_PID"]
    args += ["--remount-ro", "/", "--chdir", str(workdir)]  # only /tmp, /dev/shm, binds writable
    return args


_HELP = """no sandbox for grading: {why}.
Grading runs each submission's kernel in a bubblewrap sandbox (Linux user namespaces).
  - install it: sudo apt-get install bubblewrap   (Fedora: dnf install bubblewrap)
  - user namespaces must be allowed: sysctl user.max_user_namespaces (> 0);
    Debian < 11: sysctl kernel.unprivileged_userns_clone=1;
    Ubuntu >= 23.10: sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor
    profile allowing bwrap userns; in a container ("Can't mount proc"): start it with
    --security-opt unmask=/proc/* --security-opt seccomp=unconfined (podman) or
    --security-opt systempaths=unconfined --security-opt seccomp=unconfined (Docker),
    or grade on the host / a VM;
  - or, for code you trust only (e.g. your own test submissions), grade without a sandbox:
    hybridlab grade LAB --unsandboxed   (every report then says UNSANDBOXED)"""


def check() -> str:
    """Make a throw-away sandbox; return the limit mechanism or raise SandboxError saying why not."""
    with tempfile.TemporaryDirectory(prefix="hybridlab-check-") as tmp:
        try:
            args = bwrap_args(Path(tmp), [(Path(tmp), Path(tmp))], {})
        except SandboxError:
            raise
        try:
            done = subprocess.run(
                [*args, "/bin/sh", "-c", "test ! -e ~root/.bashrc && echo ok"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            raise SandboxError(_HELP.format(why=f"bwrap could not run ({err})")) from err
        if done.returncode != 0 or "ok" not in done.stdout:
            why = (done.stderr.strip() or done.stdout.strip() or "unknown error")[:300]
            raise SandboxError(_HELP.format(why=f"bwrap failed: {why}"))
    group = Cgroup(64, 64)
    group.remove()
    return group.how


class Box:
    """The files of one sandbox: ipc sockets, a working copy, HOME, the build cache copy."""

    def __init__(self, workdir: Path):
        self.workdir = Path(workdir).resolve()
        self.root = Path(tempfile.mkdtemp(prefix="hybridlab-box-"))
        self.ipc = self.root / "ipc"
        self.work = self.root / "work"
        self.cache = self.root / "cache"
        self.ipc.mkdir()
        self.files: list = []
        shutil.copytree(  # a runs folder only as checked and bound read-only (replay.py)
            self.workdir,
            self.work,
            ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints", "*_runs"),
        )
        from hybridlab.build import cache_dir

        built = cache_dir()
        self.cache.mkdir()
        if built.is_dir():  # finished builds only (a build in progress is a hidden folder)
            try:
                shutil.copytree(
                    built,
                    self.cache,
                    symlinks=True,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".*"),
                )
            except shutil.Error:
                pass  # a build removed while copying: the sandbox rebuilds it if needed

    def binds(self) -> list[tuple[Path, Path]]:
        own = [(self.ipc, self.ipc), (self.work, self.workdir), (self.cache, Path("/tmp/cache"))]
        recording = replay.folder("record")  # the solution's reference run
        return own + ([(recording, recording)] if recording else [])

    @staticmethod
    def read_only() -> list[Path]:
        """The solution's recorded kernel runs and the checked copy of the submission's own,
        when a submission replays them (replay.py)."""
        return replay.read_only_folders()

    @staticmethod
    def environment() -> dict[str, str]:
        return {
            "HOME": "/tmp/home",
            "TMPDIR": "/tmp",
            "IPYTHONDIR": "/tmp/home/.ipython",
            "MPLCONFIGDIR": "/tmp/home/.matplotlib",
            "XDG_CACHE_HOME": "/tmp/home/.cache",
            "JUPYTER_RUNTIME_DIR": "/tmp/home/.jupyter-runtime",
            "HYBRIDLAB_CACHE": "/tmp/cache",
            "HYBRIDLAB_SANDBOX": "1",
        }

    def remove(self) -> None:
        for f in self.files:
            f.close()
        shutil.rmtree(self.root, ignore_errors=True)


class SandboxedKernelManager(AsyncKernelManager):
    """An AsyncKernelManager whose kernel runs in a fresh bubblewrap sandbox, over ipc sockets.

    Interrupts go as messages (the kernel is not our child: a signal would hit bwrap)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.limits = Limits(config=self.config)
        self.box: Box | None = None
        self.cgroup: Cgroup | None = None

    async def _async_pre_start_kernel(self, **kw):
        cwd = Path(kw.get("cwd") or os.getcwd())
        self.box = Box(cwd)
        self.transport = "ipc"
        self.ip = str(self.box.ipc / "kernel")
        self.connection_file = str(self.box.ipc / "kernel.json")
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        self.kernel_spec.interrupt_mode = "message"
        self.cgroup = Cgroup(self.limits.memory_mb, self.limits.tasks)
        inner = bwrap_args(
            self.box.workdir, self.box.binds(), Box.environment(), Box.read_only()
        )
        steps = [self.cgroup.enter_command()] if self.cgroup.folders else []
        if self.cgroup.how == "rlimits":
            steps.append(f"ulimit -v {self.limits.memory_mb * 1024}")
            steps.append(f"ulimit -u {self.limits.tasks}")
        steps.append("exec " + shlex.join([*inner, *kernel_cmd]))
        kw.pop("cwd", None)  # the sandbox chdirs itself; the working folder outside is unused
        log = open(self.box.root / "kernel.log", "ab")  # noqa: SIM115 - closed with the box
        kw["stdout"] = kw["stderr"] = log  # the kernel's own chatter, not the grader's terminal
        self.box.files.append(log)
        return ["/bin/sh", "-c", "; ".join(steps)], kw

    @property
    def limit_mechanism(self) -> str:
        return self.cgroup.how if self.cgroup else "none"

    def oom_killed(self) -> bool:
        return bool(self.cgroup and self.cgroup.oom_killed())

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.box is not None and not restart:
            self.box.remove()
