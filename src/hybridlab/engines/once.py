"""A Python function called once on every rank of a fresh MPI job, without engines.

What Cluster.apply does for a caller that needs one call and no state kept between calls (a
graded test of a student's function): the launcher starts one plain Python per rank, which
initialises MPI, calls the function and writes what it returned, so no controller or
ipyparallel engine has to start (a few CPU seconds a cluster). The function travels as
ipyparallel's engines receive it (its code, defaults and closure; the globals of a function
defined in the notebook are a fresh namespace, like an engine's before anything ran on it).

    python -m hybridlab.engines.once FOLDER [MODULE,...]   (one rank: FOLDER/function.pkl in,
                                                           rank-N.pkl out; sealed after MODULEs)

A graded call that must not reach past its function (a hidden test judging a student's MPI
code) asks for two things more. sealed=MODULES: each rank imports them, then adds an audit hook
(sys.addaudithook: it cannot be removed) refusing, from then on, the interpreter's frames
(sys._getframe, a traceback's or generator's frame), tracing and profiling, gc's walks of the
objects, every ctypes event, other programs and processes, and files under /proc or the kit's
call folders (the function's, its results' and every other call's): Python-level evidence the
caller keeps in the rank is out of the function's reach. watch=NAME: the kit's PMPI interposer
kernels_c/NAME.c, built once, LD_PRELOADed into the ranks (not into mpiexec): it sees every MPI
call of the rank below Python and streams its record, one line per event at the call, to a
file named, with a key, in WATCH_ENV, which it reads and erases at MPI_Init (the rank then drops
os.environ's copy before the function runs). The file's descriptor is guarded by a seccomp filter
(kernels_c/hl_stream_guard.h: only the library's own system call writes to it), which also
refuses execve to the rank: evidence the function cannot rewrite, not even with raw memory
access from Python, since nothing is kept in memory to be read at the end (_read_record rebuilds
the record from the lines; the caller trusts only lines framed by that key, begun and ENDed).
"""

from __future__ import annotations

import functools
import importlib
import io
import marshal
import os
import pickle
import secrets
import sys
import tempfile
import traceback
import types
from collections.abc import Callable
from pathlib import Path

FUNCTION_FILE = "function.pkl"
WATCH_ENV = (
    "HL_ONCE_WATCH"  # "PATH-PREFIX<TAB>KEY": where and how a watch library writes its record
)
WATCH_PREFIX = "watch"  # its record of rank N: FOLDER/watch-N
WATCH_FLAGS = ("-std=gnu11", "-O2", "-fPIC", "-shared", "-s")  # built in one step, stripped
_TRACEBACK_TAIL = 3000  # characters of a rank's traceback quoted in the error


class FunctionFailed(RuntimeError):
    """The function raised on a rank; .rank says which, the message carries its traceback."""

    def __init__(self, message: str, rank: int):
        super().__init__(message)
        self.rank = rank


class _Empty:
    """Stands for an empty closure cell (a name the function's maker had not yet bound)."""


_namespace: dict = {}  # the globals of the functions rebuilt in this rank (main)


def _rebuild(code: bytes, name: str, defaults, kwdefaults, cells: tuple) -> types.FunctionType:
    closure = tuple(types.CellType() if isinstance(v, _Empty) else types.CellType(v) for v in cells)
    func = types.FunctionType(marshal.loads(code), _namespace, name, defaults, closure or None)
    func.__kwdefaults__ = kwdefaults
    return func


# where the modules lie that a rank imports as the caller does (installed, or the kit's own)
_IMPORTABLE = tuple({sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])})


def _by_value(func: types.FunctionType) -> bool:
    """Whether a function travels by value: the notebook's (module __main__), one defined inside
    another, or one of a module a rank may not import (neither installed nor the kit's)."""
    if func.__module__ == "__main__" or "<locals>" in func.__qualname__:
        return True
    path = getattr(sys.modules.get(func.__module__), "__file__", None)
    return path is None or not str(Path(path).resolve()).startswith(_IMPORTABLE)


class _ByValue(pickle.Pickler):
    """Pickles the functions _by_value says travel by value so; everything else as pickle does."""

    def reducer_override(self, obj):
        if not isinstance(obj, types.FunctionType) or not _by_value(obj):
            return NotImplemented
        cells = []
        for cell in obj.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:
                cells.append(_Empty())
        return _rebuild, (marshal.dumps(obj.__code__), obj.__name__, obj.__defaults__,
                          obj.__kwdefaults__, tuple(cells))  # fmt: skip


def _dumps(func: Callable) -> bytes:
    out = io.BytesIO()
    _ByValue(out).dump(func)
    return out.getvalue()


def _result_file(folder: Path, rank: int) -> Path:
    return folder / f"rank-{rank}.pkl"


@functools.lru_cache(maxsize=4)
def watch_library(name: str) -> Path:
    """The kit's interposer kernels_c/NAME.c as a shared library, built once with the kit's
    compiler and kept with the kit's objects (kernels.build._kit_object: a grading sandbox is
    handed it built, else builds it)."""
    from ..kernels import build
    from ..paths import cache_root, find_kernel_file

    source = find_kernel_file(f"{name}.c")
    if source is None:
        raise FileNotFoundError(f"no kit source {name}.c")
    cache_root().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache_root()))
    made, _ = build._kit_object(name, [build.mpicc(), *WATCH_FLAGS], source, work, WATCH_FLAGS,
                                build.compiler_env(()))  # fmt: skip
    if not made.is_relative_to(work):  # kept in the cache (else used where it was made)
        build.remove_all(work)
    return made


def _read_record(path: Path, key: str) -> dict[str, list[str]] | None:
    """A watch library's record, rebuilt from the event lines it streamed (each `KEY event
    values...`, kernels_c/hl_ring_watch.c): a dict of name -> values (strings): pid, rank, size,
    sent (world ranks sent to), carried (those whose message held the pid), received (receives
    completed from a real source), open (send requests started and never completed, freed while
    active included), refused (calls refused), guarded (1: the descriptor was guarded; 0 where the
    machine is not x86-64 Linux or refuses seccomp, read as the tracer's unguarded stream is). None
    when missing, when a line is not framed by the key, when it does not begin with `begin` and end
    with `END` (the run's record incomplete: the rank never reached MPI_Finalize), or when a line
    is malformed."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    frame = f"{key} "
    if len(lines) < 2 or not all(line.startswith(frame) for line in lines):
        return None
    events = [line[len(frame) :].split(" ") for line in lines]
    if events[0][0] != "begin" or events[-1] != ["END"]:
        return None
    if any(event[0] in ("begin", "END") for event in events[1:-1]):
        return None
    try:
        pid, rank, size, guarded = (int(v) for v in events[0][1:])
        sent: set[int] = set()
        carried: set[int] = set()
        refused: list[str] = []
        pending: set[str] = set()  # nonblocking sends started, not yet completed (by handle)
        inits: dict[str, int] = {}  # persistent sends: handle -> destination
        received = abandoned = 0
        for name, *values in events[1:-1]:
            if name == "send":
                world, held = int(values[0]), int(values[1])
            elif name in ("start", "pstart"):
                handle = values[0]
                if name == "start":
                    world, held = int(values[1]), int(values[2])
                else:
                    world, held = inits.get(handle, -1), int(values[1])
                abandoned += handle in pending  # (a handle MPI reused: the old send never done)
                pending.add(handle)
            elif name == "init":
                inits[values[0]] = int(values[1])
                continue
            elif name in ("done", "freed"):
                if values[0] in pending:
                    pending.discard(values[0])
                    abandoned += name == "freed"
                continue
            elif name == "recv":
                received += int(values[0]) >= 0
                continue
            elif name == "refused":
                if values[0] not in refused:
                    refused.append(values[0])
                continue
            else:
                return None
            sent.add(world)
            if held:
                carried.add(world)
    except (ValueError, IndexError):
        return None
    return {"pid": [str(pid)], "rank": [str(rank)], "size": [str(size)],
            "received": [str(received)], "open": [str(abandoned + len(pending))],
            "sent": [str(w) for w in sorted(sent)], "carried": [str(w) for w in sorted(carried)],
            "refused": refused, "guarded": [str(guarded)]}  # fmt: skip


def call_once(
    func: Callable, ranks: int = 2, threads: int = 1, bind: str = "none", *,
    timeout: float = 60.0, thread_level: str = "funneled", sealed: tuple[str, ...] | None = None,
    watch: str | None = None,
) -> list:  # fmt: skip
    """func() on every rank of a fresh `mpiexec -n ranks` job (srun in an allocation); what
    each rank returned, in rank order. A rank that raises fails the call (FunctionFailed, with
    its traceback); a job still running after `timeout` seconds is killed (KernelTimeout). The
    placement and thread level are those of hl.Cluster, which this stands in for.
    sealed: modules each rank imports before the function runs, after which it is sealed (the
    module's docstring). watch: a kit interposer's name (kernels_c/NAME.c) preloaded into the
    ranks; each rank's answer is then (value, record): the library's record as a dict of
    name -> values (strings), None when the rank left none framed by this call's key."""
    from ..machine import launcher
    from ..machine.placement import Placement
    from ..machine.topology import read_topology
    from ..paths import cache_root
    from ..runs.launch import launch

    placement = Placement(ranks, threads, bind, thread_level)
    usable = len(read_topology().usable)
    placement.check_fits(usable)
    chosen = launcher.choose(1)
    calls = cache_root() / "calls"
    calls.mkdir(parents=True, exist_ok=True, mode=0o700)
    library = watch_library(watch) if watch else None
    with tempfile.TemporaryDirectory(dir=calls) as made:
        folder = Path(made)
        (folder / FUNCTION_FILE).write_bytes(_dumps(func))
        program = [sys.executable, "-m", __name__, str(folder)]
        if sealed is not None:
            program.append(",".join(sealed) or ",")
        extra = placement.engine_environment(chosen.mpi.implementation, usable)
        key = secrets.token_hex(16)
        if library is not None:  # preloaded into the ranks only (env, between mpiexec and python)
            extra[WATCH_ENV] = f"{folder / WATCH_PREFIX}\t{key}"
            program = ["env", f"LD_PRELOAD={library}", *program]
        cmd = chosen.command(placement, program)
        env = chosen.environment(extra)
        name = f"{getattr(func, '__name__', 'function')} on {ranks} rank{'s' * (ranks > 1)}"
        launch(cmd, env, name, timeout, False, chosen.kind)
        outcomes, records = [], []
        for rank in range(ranks):
            path = _result_file(folder, rank)
            data = path.read_bytes() if path.exists() else b""
            if not data:
                raise FunctionFailed(f"{name}: rank {rank} returned nothing (exited early)", rank)
            outcomes.append(pickle.loads(data))
            records.append(_read_record(folder / f"{WATCH_PREFIX}-{rank}", key))
    for rank, (ok, value) in enumerate(outcomes):
        if not ok:
            raise FunctionFailed(f"{name}: rank {rank} raised\n{value}", rank)
    if library is not None:
        return [(value, record) for (_, value), record in zip(outcomes, records, strict=True)]
    return [value for _, value in outcomes]


# what a sealed rank refuses (as grading._guard names them; that module is not imported here)
_FRAME_EVENTS = ("sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile")
_FRAME_ATTRIBUTES = ("tb_frame", "gi_frame", "cr_frame", "ag_frame")
_GC_EVENTS = ("gc.get_referrers", "gc.get_referents", "gc.get_objects")
_PROGRAM_STARTS = (
    "subprocess.Popen",
    "os.system",
    "os.posix_spawn",
    "os.exec",
    "os.fork",
    "os.forkpty",
    "os.spawn",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
)
_PATH_EVENTS = (
    "open",
    "os.listdir",
    "os.scandir",
    "os.chdir",
    "os.truncate",
    "os.rename",
    "os.replace",
    "os.remove",
    "os.rmdir",
    "os.mkdir",
    "os.link",
    "os.symlink",
    "os.chmod",
    "os.chown",
    "os.utime",
    "shutil.copyfile",
    "shutil.rmtree",
)


_PATH_PAIRS = ("os.rename", "os.replace", "os.link", "os.symlink", "shutil.copyfile")
# native code and memory reached without a ctypes event
_NATIVE_MODULES = ("cffi", "_cffi_backend", "llvmlite", "numba")
# processes and shared memory started with no audit event (_posixsubprocess.fork_exec: a program,
# whose execve the watch library refuses anyway; shared memory beside MPI)
_PROCESS_MODULES = ("_posixsubprocess", "_posixshmem", "_multiprocessing")


def _seal(fenced: tuple[str, ...], frames_allowed: list) -> None:
    """From now on in this process: refused frames (until frames_allowed holds True: the
    traceback of a function that raised), gc's walks, ctypes (and the other ways to native
    code), other programs, and any path under `fenced` (resolved through symbolic links, as the
    kernel does). The hook itself is reachable from nowhere (not a name here once this returns),
    and it reads nothing the function could rebind: its names, sets and the C functions it
    resolves paths with are bound here (not this module's globals, not os.path's)."""
    import posix

    frames = frozenset(_FRAME_EVENTS)
    attributes = frozenset(_FRAME_ATTRIBUTES)
    refused = frozenset(_GC_EVENTS + _PROGRAM_STARTS)
    paths, pairs, native = (
        frozenset(_PATH_EVENTS),
        frozenset(_PATH_PAIRS),
        frozenset(_NATIVE_MODULES + _PROCESS_MODULES),
    )
    fences = tuple(fenced)
    lstat, readlink, getcwd, fspath = posix.lstat, posix.readlink, posix.getcwd, posix.fspath
    denied, is_int, is_bytes, is_str = PermissionError, int, bytes, str
    no_hook, not_path, not_found, kind, size = RuntimeError, TypeError, OSError, type, len

    def refuse(what: str):
        raise denied(f"{what}: refused while a graded call runs (the function runs on its own: "
                     "no frames, no gc walks, no ctypes or other native code, no other programs, "
                     "no /proc, no call folders)")  # fmt: skip

    def refusing(what: str):
        def refused(*args, **kwargs):
            refuse(what)

        return refused

    def text(path) -> str | None:
        try:
            path = fspath(path)
        except not_path:
            return None
        if kind(path) is is_bytes:
            return path.decode("utf-8", "surrogateescape")
        return path if kind(path) is is_str else None

    def resolved(path: str) -> str:
        """The absolute path the kernel would open, symbolic links followed (40 at most)."""
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        todo = [p for p in path.split("/") if p and p != "."][::-1]
        done, hops = [], 0
        while todo:
            part = todo.pop()
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = "/" + "/".join([*done, part])
            try:
                link = (lstat(candidate).st_mode & 0o170000) == 0o120000
            except not_found:
                link = False
            if link and hops < 40:
                hops += 1
                target = readlink(candidate)
                if target.startswith("/"):
                    done = []
                todo.extend([p for p in target.split("/") if p and p != "."][::-1])
            else:
                done.append(part)
        return "/" + "/".join(done)

    def under(path) -> bool:
        if kind(path) is is_int or path is None:
            return False
        name = text(path)
        if name is None:
            return False
        for where in (resolved(name),):
            for fence in fences:
                if where == fence or where.startswith(fence + "/"):
                    return True
        return False

    def hook(event: str, args: tuple) -> None:
        if event == "sys.addaudithook":
            raise no_hook("sys.addaudithook: refused while a graded call runs")
        if event in frames or (event == "object.__getattr__" and size(args) > 1
                               and args[1] in attributes):  # fmt: skip
            if event.startswith("sys.") or not frames_allowed[0]:
                refuse(event if event.startswith("sys.") else f"the attribute {args[1]}")
        elif event in refused or event.startswith("ctypes."):
            refuse(event)
        elif (
            event == "import"
            and args
            and kind(args[0]) is is_str
            and args[0].partition(".")[0] in native
        ):
            refuse(f"import {args[0]}")
        elif event in paths:
            for target in args[:2] if event in pairs else args[:1]:
                if under(target):
                    refuse(f"{event} of {text(target)}")

    # the process modules already imported: out of sys.modules (an import is then refused) and
    # their entry points refusing (the module objects other modules still hold)
    for name in _PROCESS_MODULES:
        module = sys.modules.pop(name, None)
        for attribute in dir(module) if module is not None else ():
            if callable(getattr(module, attribute, None)) and not attribute.startswith("__"):
                setattr(module, attribute, refusing(f"{name}.{attribute}"))
    sys.addaudithook(hook)


def main(folder: str, sealed: str | None = None) -> None:
    """One rank: initialise MPI, call the function, write (True, result) or (False, traceback).
    sealed: the modules (comma-separated) imported before the rank is sealed (_seal)."""
    import builtins

    from mpi4py import MPI

    rank = MPI.COMM_WORLD.Get_rank()
    where = Path(folder)
    os.environ.pop(WATCH_ENV, None)  # the watch library read (and erased) its own at MPI_Init
    # the namespace an engine gives a function defined in the notebook (engine.main): builtins,
    # also under the name a grader's hidden test reads them by (grading/hidden_names)
    _namespace.update(__name__="__main__", __builtins__=builtins, __hl_builtins__=builtins)
    func = pickle.loads((where / FUNCTION_FILE).read_bytes())
    # the result's file opened now: a sealed rank opens nothing in the folder later
    result = os.open(
        _result_file(where, rank), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600
    )
    frames_allowed = [False]
    if sealed is not None:
        for module in filter(None, sealed.split(",")):
            importlib.import_module(module)
        calls = str(where.resolve().parent)
        _seal((calls, "/proc"), frames_allowed)
    try:
        outcome = (True, func())
        data = pickle.dumps(outcome)
    except BaseException:  # noqa: BLE001 - everything the function raised goes to the caller
        frames_allowed[0] = True  # the traceback's frames, for its text
        data = pickle.dumps((False, traceback.format_exc()[-_TRACEBACK_TAIL:]))
    os.pwrite(result, data, 0)
    os.ftruncate(result, len(data))
    os.close(result)


if __name__ == "__main__":  # the module's own names (its _namespace), not a __main__ copy's
    from hybridlab.engines import once

    once.main(*sys.argv[1:3])
