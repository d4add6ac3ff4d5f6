"""Leave nothing behind: kill tagged MPI processes and remove the files a killed MPICH leaves.

Every process the kit launches carries HYBRIDLAB_TAG (and, under a headless notebook run,
HYBRIDLAB_SESSION) in its environment, so it can be found and killed even when its parent died.
A killed MPICH leaves /dev/shm/mpich_shm_* segments and /tmp/hydra_hwloc_xmlfile_* files; they
are removed once no live process uses them. A killed process of LLVM's OpenMP runtime (clang's
libomp: labs 15 and 16) leaves /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid>, removed once that pid
is gone.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import time
from pathlib import Path

import psutil

TAG = "HYBRIDLAB_TAG"  # set on the processes of one cluster or program run
SESSION = "HYBRIDLAB_SESSION"  # set on everything one headless notebook run starts
OWNER = "HYBRIDLAB_OWNER"  # "pid:start time" of the Python process that launched them
SHM_PATTERNS = ("/dev/shm/mpich_shm_*", "/dev/shm/ompi.*", "/dev/shm/sm_segment.*")
HYDRA_FILES = "/tmp/hydra_hwloc_xmlfile_*"
# libomp's registration of a process: shm_open'd, written and closed, unlinked at a normal exit
KMP_FILES = "/dev/shm/__KMP_REGISTERED_LIB_*"
_KMP_PID = re.compile(r"__KMP_REGISTERED_LIB_(\d+)_\d+$")
LAUNCHERS = ("mpiexec", "mpiexec.hydra", "mpirun", "hydra_pmi_proxy", "prterun", "prted", "srun")


def tagged(value: str | None, owner: str | None = None) -> list[psutil.Process]:
    """Live processes (other than us) whose HYBRIDLAB_TAG or HYBRIDLAB_SESSION is `value`
    (any value when None: everything the kit launched), launched by `owner` when given (an
    owner_stamp())."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        if proc.pid == os.getpid():
            continue
        try:
            env = proc.environ()
            values = {env.get(TAG), env.get(SESSION)} - {None}
            if owner is not None and env.get(OWNER) != owner:
                continue
            if values and (value is None or value in values):
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


def describe(procs: list[psutil.Process]) -> str:
    """What each of `procs` was doing, one phrase per program name: how many, their states and
    CPU seconds ("thread_halo x2: running, 29.8 and 29.7 s of CPU"). Said when a run times out: a
    rank spinning in MPI runs at full CPU, a stalled machine leaves every process with little."""
    seen: dict[str, list[tuple[str, float]]] = {}
    for proc in procs:
        try:
            with proc.oneshot():
                cpu = proc.cpu_times()
                seen.setdefault(proc.name(), []).append((proc.status(), cpu.user + cpu.system))
        except (psutil.Error, OSError):
            continue
    phrases = []
    for name, states in sorted(seen.items()):
        status = ", ".join(sorted({state for state, _ in states}))
        seconds = " and ".join(f"{cpu:.1f}" for _, cpu in states)
        count = f" x{len(states)}" if len(states) > 1 else ""
        phrases.append(f"{name}{count}: {status}, {seconds} s of CPU")
    return "; ".join(phrases) or "none left"


def owner_stamp() -> str:
    """This process as an owner: its pid and start time (pids are reused, start times are not)."""
    me = psutil.Process()
    return f"{me.pid}:{me.create_time():.2f}"


def _owner_alive(stamp: str) -> bool:
    pid, _, started = stamp.partition(":")
    try:
        return f"{psutil.Process(int(pid)).create_time():.2f}" == started
    except (psutil.Error, ValueError):
        return False


def _pid_namespace(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def orphans() -> list[psutil.Process]:
    """Processes the kit launched for a notebook or script that has since died.

    Only processes in our own PID namespace: the owner pid in the stamp of a process in a
    container (another namespace) names a process we cannot see, not a dead one.
    """
    found = []
    ours = _pid_namespace("self")
    for proc in psutil.process_iter(["pid"]):
        try:
            stamp = proc.environ().get(OWNER)
        except (psutil.Error, OSError):
            continue
        if stamp and _pid_namespace(proc.pid) != ours:
            continue
        if stamp and not _owner_alive(stamp):
            found.append(proc)
    return found


def kill(processes: list[psutil.Process], timeout: float = 5.0) -> None:
    """SIGKILL the processes and their children, and wait for them to go."""
    everything: dict[int, psutil.Process] = {}
    for proc in processes:
        try:
            everything[proc.pid] = proc
            for child in proc.children(recursive=True):
                everything[child.pid] = child
        except psutil.Error:
            continue
    for proc in everything.values():
        try:
            proc.kill()
        except psutil.Error:
            continue
    wait_dead(list(everything.values()), timeout)


def end_steps(launchers: list[psutil.Process], timeout: float = 10.0) -> None:
    """SIGTERM each srun among `launchers` and their descendants (MPICH's mpiexec starts its
    proxies on the nodes with one) and wait for it: srun then kills its step's tasks on every
    node (SIGKILL to srun would leave the tasks on other nodes running)."""
    sruns = []
    for launched in launchers:
        try:
            family = [launched, *launched.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in family:
            try:
                if proc.name() == "srun":
                    proc.terminate()
                    sruns.append(proc)
            except psutil.Error:
                continue
    wait_dead(sruns, timeout)


def wait_dead(processes: list[psutil.Process], timeout: float) -> bool:
    """Wait until the processes are gone or zombies (dead; only their parent's wait is
    missing, which for an orphan is init's business); True when they all are."""
    deadline = time.monotonic() + timeout
    pending = list(processes)
    while True:
        still = []
        for proc in pending:
            try:
                if proc.status() != psutil.STATUS_ZOMBIE:
                    still.append(proc)
                else:
                    with contextlib.suppress(psutil.Error, psutil.TimeoutExpired):
                        proc.wait(0)  # reaps it when it is our own child
            except psutil.Error:
                continue
        if not still:
            return True
        if time.monotonic() > deadline:
            return False
        pending = still
        time.sleep(0.01)


_WATCHED = ("/dev/shm/", "/tmp/hydra_")  # where the files the reaper may remove live


def _files_in_use() -> set[str]:
    """Files under /dev/shm and /tmp/hydra_* that a live process maps or holds open.

    Read from /proc/<pid>/maps and /proc/<pid>/fd, not psutil's memory_maps (which parses
    smaps, seconds for a browser's processes)."""
    used: set[str] = set()
    for pid in psutil.pids():
        try:
            with open(f"/proc/{pid}/maps") as maps:
                for line in maps:
                    if any(w in line for w in _WATCHED):
                        used.add(line.split(maxsplit=5)[-1].strip())
            fds = f"/proc/{pid}/fd"
            for fd in os.listdir(fds):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"{fds}/{fd}")
                    if target.startswith(_WATCHED):
                        used.add(target)
        except OSError:
            continue
    return used


def _oldest_live_launcher() -> float | None:
    starts = []
    for proc in psutil.process_iter(["name", "create_time"]):
        if proc.info["name"] in LAUNCHERS:
            starts.append(proc.info["create_time"])
    return min(starts, default=None)


def _segments(patterns: tuple[str, ...], min_age: float) -> list[str]:
    """The files matching `patterns` written at least `min_age` seconds ago."""
    now = time.time()
    found = []
    for path in (p for pattern in patterns for p in glob.glob(pattern)):
        try:
            if now - os.stat(path).st_mtime >= min_age:
                found.append(path)
        except OSError:
            continue  # gone meanwhile
    return found


def unused_segments(patterns: tuple[str, ...] = SHM_PATTERNS, min_age: float = 0.0) -> list[str]:
    """MPI shared-memory segments that no live process maps or holds open (and that were
    written at least `min_age` seconds ago: an MPI_Init under way creates its segment moments
    before it maps it).

    The segments are listed before the processes are scanned, so a segment created during the
    scan (another program's MPI_Init) is never a candidate."""
    candidates = _segments(patterns, min_age)
    if not candidates:
        return []
    used = _files_in_use()
    return sorted(p for p in candidates if p not in used)


def clean_files() -> list[str]:
    """Remove MPI shared-memory segments and hydra files that no live process still needs.

    Both kinds are listed before the one scan of every process's files (the scan is the cost:
    tenths of a second on a desktop with a browser), and there is no scan when neither is there."""
    segments, hydra = _segments(SHM_PATTERNS, 0.0), glob.glob(HYDRA_FILES)
    removed = []
    if segments or hydra:
        used = _files_in_use()
        removed = [path for path in sorted(segments) if path not in used and _remove(path)]
        oldest = _oldest_live_launcher()
        for path in hydra:
            try:
                written = Path(path).stat().st_mtime
            except OSError:
                continue
            # a live launcher started before the file was written may still read it
            if (oldest is None or written < oldest) and path not in used and _remove(path):
                removed.append(path)
    return removed + [path for path in dead_registrations() if _remove(path)]


def dead_registrations() -> list[str]:
    """libomp's registration files of processes that no longer run (nothing maps them: the
    process named in the file's name is the only owner)."""
    found = []
    for path in glob.glob(KMP_FILES):
        named = _KMP_PID.search(path)
        if named and not psutil.pid_exists(int(named.group(1))):
            found.append(path)
    return sorted(found)


def _remove(path: str) -> bool:
    try:
        os.remove(path)
        return True
    except OSError:
        return False


def kill_orphans() -> int:
    """Kill what dead notebooks left running (engines, controllers); returns how many."""
    procs = orphans()
    kill(procs)
    return len(procs)


def reap_orphans() -> int:
    """Kill what dead notebooks left running (engines, controllers) and clean their files."""
    killed = kill_orphans()
    if killed:  # the scan for unused files reads every process's maps: only when needed
        clean_files()
    return killed


def reap(value: str) -> int:
    """Kill every process tagged `value` and clean the files; returns how many were killed."""
    procs = tagged(value)
    kill(procs)
    clean_files()
    return len(procs)
