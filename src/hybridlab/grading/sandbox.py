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

import contextlib
import functools
import json
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Integer, Unicode
from traitlets.config import Configurable

from ..paths import numba_cache_dir
from ..runs import replay

SANDBOX_UID = 1000  # who the kernel is inside the sandbox
SYSTEM_DIRS = ("/usr", "/etc", "/opt/conda")  # read-only when present
LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SEED = Path("/run/hybridlab")
SEED_FILES = "submission"  # the seed's copy of the submission's folder (no notebook, no runs)
SEED_OBJECTS = "objects"  # where the grader's kit objects are bound, read-only (build._kit_object)
SEED_NUMBA = "numba"  # the grader's numba cache (the kit's `cache=True` kernels), copied in
SEED_HOME = "home"  # what the sandbox's home starts with: matplotlib's font list (font_cache)
# what the root stage inside keeps to fill the folders and become the account (then: nothing)
FILL_CAPS = (
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
)  # inside: read-only copies the writable folders are filled from
# the grader's environment variables a kernel gets (names, or prefixes ending in "_")
ENV_ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_",
    "TZ",
    "TERM",
    "IPP_NONINTERACTIVE",
    "MPLBACKEND",
    "PYTHONHASHSEED",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONWARNINGS",
    "OMP_",
    "GOMP_",
    "KMP_",
    "MPIR_",
    "MPICH_",
    "HYDRA_",
    "OMPI_MCA_",
    "OPENBLAS_",
    "MKL_",
    "NUMEXPR_",
    "HYBRIDLAB_",
)
BUILDS = "HYBRIDLAB_GRADING_BUILDS"  # a file naming the released builds, found once per class
ENV_DENIED = {"HYBRIDLAB_GRADING", "HYBRIDLAB_LABS", "HYBRIDLAB_GRADING_EVENTS", BUILDS}


class SandboxError(RuntimeError):
    """No sandbox can be made here; the message says why and what to do."""


class Limits(Configurable):
    """What one sandbox may use, set in grading/nbgrader_config.py as c.Limits.<name> = value
    (the grader's own policy, time limits included, is policy.GradingPolicy)."""

    memory_mb = Integer(3072, help="memory of one whole sandbox (kernel, engines, MPI)").tag(
        config=True
    )
    tasks = Integer(768, help="processes + threads in one sandbox (cgroup pids.max)").tag(
        config=True
    )
    output_bytes = Integer(200_000, help="output kept per cell; the rest is cut with a marker").tag(
        config=True
    )
    disk_mb = Integer(
        1024,
        help="size of each writable folder of a sandbox (working folder, /tmp, /dev/shm): "
        "tmpfs, counted in the sandbox's memory",
    ).tag(config=True)
    sandbox_user = Unicode(
        "hybridlab-grader",
        help="the unprivileged account sandboxes run as when grading as root (created if "
        "missing; 'nobody' if it cannot be)",
    ).tag(config=True)


def describe(limits: Limits, policy, how: str, account: str | None) -> str:
    """The limits of this run and what enforces them, in one short block for the report."""
    memory = "cgroup memory.limit" if how.startswith("cgroup") else "ulimit -v per process"
    tasks = "cgroup pids.max" if how.startswith("cgroup") else "ulimit -u (per user)"
    who = f"as user {account}" if account else f"as the grader's own user ({_user_name()})"
    return "\n".join(
        [
            f"sandbox limits ({how}; kernels run {who}):",
            f"  time     graded cell {policy.factor:g} x the solution's time of that cell (>= "
            f"{policy.graded_cell_minimum} s), other cells {policy.factor:g} x the slowest (>= "
            f"{policy.cell_minimum} s), submission {policy.factor:g} x its total (>= "
            f"{policy.submission_minimum} s, cells past their limit not counted): nbclient "
            "timeout, deadline",
            f"  memory   {limits.memory_mb} MB per sandbox: {memory}",
            f"  tasks    {limits.tasks} processes + threads: {tasks}",
            f"  output   {limits.output_bytes} bytes per cell: cut by the grader",
            f"  disk     {limits.disk_mb} MB per writable folder (work, /tmp, /dev/shm): "
            "tmpfs size" + (", counted in the memory cgroup" if how.startswith("cgroup") else ""),
        ]
    )


def _user_name() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def sandbox_account(name: str) -> tuple[int, int, str] | None:
    """(uid, gid, name) the sandboxes run as: None unless the grader is root; then `name`,
    created as a system account without home or shell if missing, else nobody."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        subprocess.run(
            [
                useradd,
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                name,
            ],
            capture_output=True,
            check=False,
        )
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            entry = pwd.getpwnam("nobody")
    if entry.pw_uid == 0:
        raise SandboxError(_HELP.format(why=f"the sandbox account {name} is root"))
    return entry.pw_uid, entry.pw_gid, entry.pw_name


def sandbox_environment(env: dict[str, str]) -> dict[str, str]:
    """The grader's variables a kernel may see: ENV_ALLOWED, without course paths."""
    return {
        k: v
        for k, v in env.items()
        if k not in ENV_DENIED
        and any(k == a or (a.endswith("_") and k.startswith(a)) for a in ENV_ALLOWED)
    }


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
    """Folders the kernel needs to read: the system, the venv, Python, hybridlab, its kernels and
    the course's (not secret: students build them too)."""
    import hybridlab
    from hybridlab.paths import kernel_dirs

    roots = [d for d in SYSTEM_DIRS if Path(d).is_dir()]
    roots += [sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent.parent)]
    roots += [str(Path(hybridlab.__file__).resolve().parents[1])]
    roots += [str(d.resolve()) for d in kernel_dirs()]  # the kit's and the course's kernels
    out: list[str] = []
    for root in sorted(set(roots), key=len):
        if Path(root).is_dir() and not any(root == o or root.startswith(o + "/") for o in out):
            out.append(root)
    return out


def bwrap_args(box: Box, env: dict[str, str], disk_mb: int) -> list[str]:
    """The bwrap command line (before the command run inside): the box's folders, the system
    read-only, size-limited tmpfs for everything writable, only `env` in the environment."""
    exe = shutil.which("bwrap")
    if exe is None:
        raise SandboxError(_HELP.format(why="bubblewrap (bwrap) is not installed"))
    size = ["--size", str(disk_mb * 2**20)]
    shared = ["--perms", "1777", *size]
    if box.account is None:  # a user namespace; the kernel is uid SANDBOX_UID inside
        args = [exe, "--unshare-all", "--die-with-parent", "--unshare-user"]
        args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
    else:  # root: no user namespace; FILL drops to the account before the kernel starts
        args = [exe, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        args += ["--unshare-cgroup-try", "--die-with-parent", "--cap-drop", "ALL"]
        args += [w for cap in FILL_CAPS for w in ("--cap-add", cap)]
    for link in LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    made: set[str] = set()

    def at(target: Path | str) -> list[str]:
        """Its missing parent folders, readable by all (bwrap would make them owner-only)."""
        words = []
        for parent in reversed(Path(target).parents[:-1]):
            if str(parent) not in made and not str(parent).startswith(LINKS):
                made.add(str(parent))
                words += ["--perms", "0755", "--dir", str(parent)]
        return words

    # the private /tmp first: a checkout or venv that lives under /tmp is bound on top of it
    args += [*shared, "--tmpfs", "/tmp", "--dir", "/tmp/home"]
    made.add("/tmp")
    for root in _read_only_roots():
        args += [*at(root), "--ro-bind", root, root]
    args += ["--ro-bind", "/sys", "/sys", "--dev", "/dev", "--proc", "/proc"]
    args += [*shared, "--tmpfs", "/dev/shm", *at(box.workdir), *size, "--tmpfs", str(box.workdir)]
    args += [*at(SEED), "--ro-bind", str(box.seed), str(SEED)]
    for source, target, writable in box.binds():
        args += [*at(target), "--bind" if writable else "--ro-bind", str(source), str(target)]
    args += ["--clearenv"]
    for key, value in {**env, **Box.environment()}.items():
        args += ["--setenv", key, value]
    args += ["--remount-ro", "/", "--chdir", str(box.workdir)]  # only the tmpfs stay writable
    return args


def font_cache() -> list[Path]:
    """The grader's matplotlib font list (fontlist-v*.json), found without importing matplotlib.
    A sandbox whose home starts with it does not scan the fonts again (0.4 s per submission)."""
    home = Path.home()
    folders = [os.environ.get("MPLCONFIGDIR", ""),
               Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib",
               home / ".matplotlib"]  # fmt: skip
    for folder in (Path(f) for f in folders if str(f)):
        found = sorted(folder.glob("fontlist-v*.json"))
        if found:
            return found
    return []


def fill_steps() -> list[str]:
    """The shell steps that fill a fresh box's working folder (the current one), home and build
    cache from its seed (also run again between the parts one apart process grades: apart.py)."""
    return [
        f"cp -a {SEED}/{SEED_FILES}/. .",
        "mkdir -p /tmp/home",
        f"cp -a {SEED}/{SEED_HOME}/. /tmp/home",
        "mkdir -p /tmp/cache/build /tmp/cache/numba",
        f"cp -a {SEED}/{SEED_NUMBA}/. /tmp/cache/numba",
        # every released build linked by one ln (a loop ran one per build: 40-55 in a box, 1 ms
        # of CPU each); none when the cache is empty. Names starting with a dot are left out, as
        # the glob `*` did (a build in progress)
        f"find {SEED}/cache -mindepth 1 -maxdepth 1 -name '[!.]*' -exec ln -s -t /tmp/cache/build {{}} +",
    ]


def fill(account: tuple[int, int, str] | None) -> list[str]:
    """The command that, inside the sandbox, fills the working folder, links the released
    builds into the cache and, as root, hands the writable folders to the account and becomes
    it; then execs the command after it (the kernel)."""
    steps = fill_steps()
    drop = ""
    if account is not None:
        uid, gid, _ = account
        steps.append(f"chown -h {uid}:{gid} . /tmp/cache /tmp/cache/build")
        steps.append(f"chown -hR {uid}:{gid} /tmp/cache/numba")
        steps.append(f"chown -hR {uid}:{gid} /tmp/home")
        drop = f"setpriv --reuid={uid} --regid={gid} --clear-groups -- "
    return ["/bin/sh", "-c", " && ".join(steps) + f' && exec {drop}"$0" "$@"']


def boxed_command(
    box: Box, cgroup: Cgroup, limits: Limits, env: dict[str, str], command: list[str]
) -> list[str]:
    """The shell command that runs `command` in `box`: into the cgroup (or under rlimits), no
    file larger than a writable folder, then bwrap and the filling of its folders."""
    steps = [cgroup.enter_command()] if cgroup.folders else []
    # no file larger than a writable folder, also the runs log written outside (in 512-byte
    # blocks, as dash counts; a shell counting KiB allows twice that)
    steps.append(f"ulimit -f {(limits.disk_mb + 1) * 2048}")
    if cgroup.how == "rlimits":
        steps.append(f"ulimit -v {limits.memory_mb * 1024}")
        steps.append(f"ulimit -u {limits.tasks}")
    inner = bwrap_args(box, env, limits.disk_mb)
    steps.append("exec " + shlex.join([*inner, *fill(box.account), *command]))
    return ["/bin/sh", "-c", "; ".join(steps)]


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


def check(user: str = Limits.sandbox_user.default_value) -> str:
    """Make a throw-away sandbox (as the grading would: same account, folders and limits);
    return the limit mechanism or raise SandboxError saying why not."""
    account = sandbox_account(user)
    with tempfile.TemporaryDirectory(prefix="hybridlab-check-") as tmp:
        box = Box(Path(tmp), account=account)
        try:
            args = bwrap_args(box, {"PATH": "/usr/bin:/bin"}, 16)
            probe = (
                "test ! -e ~root/.bashrc && test ! -r /etc/shadow -o ! -e /etc/shadow && echo ok"
            )
            done = subprocess.run(
                [*args, *fill(account), "/bin/sh", "-c", probe],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            raise SandboxError(_HELP.format(why=f"bwrap could not run ({err})")) from err
        finally:
            box.remove()
        if done.returncode != 0 or "ok" not in done.stdout:
            why = (done.stderr.strip() or done.stdout.strip() or "unknown error")[:300]
            if account is not None and "Permission denied" in why:
                why += (
                    f" (the kernels run as the unprivileged user {account[2]}, which must be "
                    f"able to read {', '.join(_read_only_roots())}: install the kit where other "
                    "users can read it, or chmod o+rx the folders above it)"
                )
            raise SandboxError(_HELP.format(why=f"bwrap failed: {why}"))
    group = Cgroup(64, 64)
    group.remove()
    return group.how


def _released_text(notebooks: list[Path]) -> str:
    """The code of every cell of the released notebooks, one text."""
    import nbformat

    texts = []
    for path in notebooks:
        try:
            nb = nbformat.read(path, as_version=4)
        except (OSError, ValueError):
            continue
        texts += [c.source for c in nb.cells if c.cell_type == "code"]
    return "\n".join(texts)


def _cell_of(source: str) -> str:
    """What of a build's source a notebook holds: of a C cell's unit (student_c.student_unit:
    the link line, the kit's headers for the cell, the cell) the cell, else the whole source."""
    from hybridlab.kernels.build import LINK
    from hybridlab.kernels.c_cells import student_headers

    link = LINK.match(source)
    if link is None:
        return source.strip()
    headers = student_headers(link.group(1).removesuffix(".c"))
    rest = source[link.end() :]
    return rest[len(headers) :].strip() if rest.startswith(headers) else source.strip()


def released_builds(cache: Path, released: list[Path]) -> list[Path]:
    """The current builds in `cache` made from released sources only: a kernel of the kit's
    kernels_c/ (no C file in its folder), or C source found verbatim in a released notebook
    (a C cell's unit: its cell, such as lab 16's racy count). A build of a solution (C code of an
    instructor notebook) is never among them, nor one of older sources or headers
    (build.is_current: the sandbox would never use it)."""
    from hybridlab.kernels.build import available_kernels, is_current

    if not cache.is_dir():
        return []
    kit, text, keep, keys = set(available_kernels()), None, [], {}
    for entry in sorted(cache.iterdir()):
        if entry.name.startswith(".") or not entry.is_dir():
            continue  # a build in progress
        sources = list(entry.glob("*.c"))
        if sources:
            text = _released_text(released) if text is None else text
            try:
                cells = [_cell_of(s.read_text()) for s in sources]
                released_source = all(cell and cell in text for cell in cells)
            except OSError:
                continue
        else:
            released_source = entry.name.rsplit("-", 1)[0] in kit
        if released_source and is_current(entry, keys):  # else no run of today's kit uses it
            keep.append(entry)
    return keep


def write_released_builds(path: Path, cache: Path, released: list[Path]) -> int:
    """Name the released builds of `cache` in the file `path` (for $HYBRIDLAB_GRADING_BUILDS);
    returns how many. A class's grader looks once, after the reference run has built what the
    solution uses, instead of every submission's process looking again (2-4 CPU s each on a
    cache of 4300 builds: the cache grows over a term, the class would grade slower)."""
    names = [entry.name for entry in released_builds(cache, released)]
    path.write_text(json.dumps(names))
    return len(names)


@functools.lru_cache(maxsize=4)
def _released_builds_once(cache: Path, released: tuple[Path, ...]) -> list[Path]:
    """The released builds: those the grader named in $HYBRIDLAB_GRADING_BUILDS (still there),
    else released_builds, looked for once per grading process (one submission's kernel starts
    and its tests graded apart all see the same cache)."""
    listed = os.environ.get(BUILDS)
    if listed:
        try:
            names = json.loads(Path(listed).read_text())
            return [cache / n for n in names if "/" not in n and (cache / n).is_dir()]
        except (OSError, ValueError, TypeError):
            pass  # unreadable: look again
    return released_builds(cache, list(released))


class Box:
    """The files of one sandbox: ipc sockets, the seed of its working folder and build cache."""

    def __init__(
        self,
        workdir: Path,
        *,
        released: list[Path] = (),
        account: tuple[int, int, str] | None = None,
        kernel: bool = True,
    ):
        self.workdir = Path(workdir).resolve()
        self.account = account
        self.kernel = kernel  # False: a command of the grader's (apart.py), no kernel's files
        self.root = Path(tempfile.mkdtemp(prefix="hybridlab-box-"))
        self.ipc = self.root / "ipc"
        self.seed = self.root / "seed"
        self.runs_log = self.root / "runs-log.jsonl"  # which data served each run (replay.LOG)
        self.ipc.mkdir()
        self.runs_log.touch()
        self.files: list = []
        shutil.copytree(  # a runs folder only as checked and bound read-only (replay.py)
            self.workdir,
            self.seed / SEED_FILES,
            ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints", "*_runs"),
        )
        from hybridlab.kernels.build import cache_dir

        fonts = self.seed / SEED_HOME / Path(Box.environment()["MPLCONFIGDIR"]).name
        fonts.mkdir(parents=True)
        for found in font_cache():
            shutil.copy2(found, fonts / found.name)
        (self.seed / "cache").mkdir()
        # numba's machine code of the kit's kernels, as the reference run left it (numba_kept):
        # a box loads it instead of compiling them again (seconds of CPU in every engine)
        (self.seed / SEED_NUMBA).mkdir()
        if numba_cache_dir().is_dir():
            shutil.copytree(numba_cache_dir(), self.seed / SEED_NUMBA, dirs_exist_ok=True)
        self.made_numba = self.root / "numba"  # the reference run's numba cache, bound in
        self.made_numba.mkdir()
        (self.seed / SEED_OBJECTS).mkdir()
        self.made_objects = self.root / "objects"  # the kit objects its builds compile
        self.made_objects.mkdir()
        self.released = tuple(released)
        self.made_builds = self.root / "builds"  # the reference run's kernel builds (builds_kept)
        self.made_builds.mkdir()
        for entry in _released_builds_once(cache_dir(), tuple(released)):
            try:
                shutil.copytree(entry, self.seed / "cache" / entry.name, symlinks=True)
            except (shutil.Error, OSError):
                pass  # a build removed while copying: the sandbox rebuilds it if needed
        self.give(self.root)

    def give(self, folder: Path) -> None:
        """Make `folder` and everything in it the sandbox account's (when there is one)."""
        if self.account is None:
            return
        uid, gid, _ = self.account
        os.chown(folder, uid, gid)
        for parent, dirs, files in os.walk(folder):
            for name in dirs + files:
                os.chown(os.path.join(parent, name), uid, gid, follow_symlinks=False)

    def binds(self) -> list[tuple[Path, Path, bool]]:
        """(source, target, writable): the kit objects the grader's cache holds (read-only) and
        the folder its builds keep theirs in (objects_kept), and in the reference run the folder
        of numba's cache (numba_kept); a kernel's box also: the ipc folder (and in the reference
        run its build cache: builds_kept);
        the runs log; the solution's kernel runs when they are recorded
        (writable) or replayed (read-only), the checked copy of the submission's own runs
        (read-only; see replay.py)."""
        from hybridlab.kernels.build import objects_dir

        kit = [(self.made_objects, Path(Box.environment()["HYBRIDLAB_CACHE"]) / "objects", True)]
        if objects_dir().is_dir():
            kit.insert(0, (objects_dir(), SEED / SEED_OBJECTS, False))
        if replay.folder("record"):  # the reference run's numba cache outlives its box
            kit.append((self.made_numba, Path(Box.environment()["HYBRIDLAB_CACHE"]) / "numba", True))
        if not self.kernel:
            return kit
        if replay.folder("record"):  # and so do the builds its kernel made (builds_kept)
            kit.append(
                (self.made_builds, Path(Box.environment()["HYBRIDLAB_CACHE"]) / "build", True)
            )
        own = [*kit, (self.ipc, self.ipc, True)]
        for mine, env in ((self.runs_log, replay.LOG),):
            if os.environ.get(env):  # a file of the box where the kernel expects it (ulimit -f)
                own.append((mine, Path(os.environ[env]), True))
        recording = replay.folder("record")  # the solution's reference run
        if recording:
            self.give(recording)
            own.append((recording, recording, True))
        # the reference runs and the checked copy of the submission's own runs folder
        return own + [(folder, folder, False) for folder in replay.read_only_folders()]

    @staticmethod
    def environment() -> dict[str, str]:
        from hybridlab.kernels.build import SEEDED_OBJECTS_ENV

        return {
            "HOME": "/tmp/home",
            "TMPDIR": "/tmp",
            "IPYTHONDIR": "/tmp/home/.ipython",
            "MPLCONFIGDIR": "/tmp/home/.matplotlib",
            "XDG_CACHE_HOME": "/tmp/home/.cache",
            "JUPYTER_RUNTIME_DIR": "/tmp/home/.jupyter-runtime",
            "HYBRIDLAB_CACHE": "/tmp/cache",
            SEEDED_OBJECTS_ENV: str(SEED / SEED_OBJECTS),
            "HYBRIDLAB_SANDBOX": "1",
        }

    def objects_kept(self) -> int:
        """The reference run's box (the solution's code): the kit objects its builds compiled
        join the grader's cache, so every submission's box finds them made (a submission's
        never do). How many joined."""
        from hybridlab.kernels.build import OBJECT_NAME, keep_object

        if replay.folder("record") is None or not self.made_objects.is_dir():
            return 0
        made = [f for f in self.made_objects.iterdir() if OBJECT_NAME.fullmatch(f.name)]
        for found in made:
            keep_object(found)
        return len(made)

    def builds_kept(self) -> int:
        """The reference run's kernel box (the solution's code): its builds of released sources
        (a kit kernel at any flags, as Archer or the tracer builds it, or C found verbatim in a
        released notebook: released_builds, current ones only) join the grader's build cache,
        whose released builds seed every submission's box (write_released_builds, after the
        reference run). Before, each submission's kernel and its parts graded apart compiled
        them again. A build of the solution's own C is not kept, and a submission's never are.
        How many joined."""
        from hybridlab.kernels.build import cache_dir

        if replay.folder("record") is None or not self.made_builds.is_dir():
            return 0
        kept = 0
        for entry in released_builds(self.made_builds, list(self.released)):
            target = cache_dir() / entry.name
            if entry.is_symlink() or target.exists():
                continue  # a seeded build (linked from the grader's cache), or one it has
            cache_dir().mkdir(parents=True, exist_ok=True)
            part = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=cache_dir()))
            try:
                shutil.copytree(entry, part, symlinks=True, dirs_exist_ok=True)
                part.rename(target)  # whole or not at all; a concurrent copy simply loses
                kept += 1
            except OSError:
                shutil.rmtree(part, ignore_errors=True)
        return kept

    def numba_kept(self) -> int:
        """The reference run's box (the solution's code): the numba cache its kernels wrote joins
        the grader's (paths.numba_cache_dir), which seeds every later box. How many files."""
        if replay.folder("record") is None or not self.made_numba.is_dir():
            return 0
        kept = 0
        for found in self.made_numba.rglob("*"):
            target = numba_cache_dir() / found.relative_to(self.made_numba)
            if found.is_file() and not found.is_symlink() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(found, target)
                kept += 1
        return kept

    def remove(self) -> None:
        for f in self.files:
            f.close()
        self.objects_kept()
        self.builds_kept()
        self.numba_kept()
        shutil.rmtree(self.root, ignore_errors=True)


def run_boxed(
    command: list[str],
    *,
    stdin: str,
    timeout: float,
    limits: Limits,
    env: dict[str, str],
    released: list[Path] = (),
) -> tuple[int | None, str, bool]:
    """Run a command of the grader's own (apart.py) in a fresh sandbox: an empty working folder,
    none of a kernel's files, a kernel's limits; `stdin` its input, `env` filtered as a kernel's.
    (exit status, or None when it ran past `timeout` and was killed; its stdout; memory limit hit)"""
    account = sandbox_account(limits.sandbox_user)
    with tempfile.TemporaryDirectory(prefix="hybridlab-apart-") as work:
        box = Box(Path(work), released=released, account=account, kernel=False)
        group = Cgroup(limits.memory_mb, limits.tasks)
        try:
            with open(box.root / "stderr.log", "wb") as log:
                proc = subprocess.Popen(
                    boxed_command(box, group, limits, sandbox_environment(env), command),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    start_new_session=True,
                )
                try:
                    out, _ = proc.communicate(stdin.encode(), timeout=timeout)
                    status = proc.returncode
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, 9)
                    out, _ = proc.communicate()
                    status = None
            return status, out.decode(errors="replace"), group.oom_killed()
        finally:
            group.remove()
            box.remove()


class SandboxedKernelManager(AsyncKernelManager):
    """An AsyncKernelManager whose kernel runs in a fresh bubblewrap sandbox, over ipc sockets.

    Interrupts go as messages (the kernel is not our child: a signal would hit bwrap).
    `released`: the released notebooks of the lab, whose C kernels the build cache may offer."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.limits = Limits(config=self.config)
        self.box: Box | None = None
        self.cgroup: Cgroup | None = None
        self.released: list[Path] = []

    async def _async_pre_start_kernel(self, **kw):
        cwd = Path(kw.get("cwd") or os.getcwd())
        account = sandbox_account(self.limits.sandbox_user)
        self.box = Box(cwd, released=self.released, account=account)
        self.transport = "ipc"
        self.ip = str(self.box.ipc / "kernel")
        self.connection_file = str(self.box.ipc / "kernel.json")
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        self.box.give(self.box.ipc)  # the connection file, written just now
        self.kernel_spec.interrupt_mode = "message"
        self.cgroup = Cgroup(self.limits.memory_mb, self.limits.tasks)
        env = sandbox_environment(kw.get("env") or dict(os.environ))
        command = boxed_command(self.box, self.cgroup, self.limits, env, kernel_cmd)
        kw.pop("cwd", None)  # the sandbox chdirs itself; the working folder outside is unused
        log = open(self.box.root / "kernel.log", "ab")  # noqa: SIM115 - closed with the box
        kw["stdout"] = kw["stderr"] = log  # the kernel's own chatter, not the grader's terminal
        self.box.files.append(log)
        return command, kw

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
