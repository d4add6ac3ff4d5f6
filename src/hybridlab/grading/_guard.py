"""Runs INSIDE the student's kernel during grading: keep the tests' tools as they were.

The grader inserts (and afterwards removes) guard cells and lines:
  capture(judging)     first, before any student cell: remember the functions and classes of
                       builtins, math, numpy, pandas, the kit's judging modules (student_c,
                       compliance, hidden_inputs, the hand-out channel and the topics'
                       exercise modules the notebook names: judging_modules), sys's hooks and
                       IPython's error display, with the code of each function; start watching
                       writes to them;
  remember(ns, names)  after each instructor cell (tests, locked cells): the helpers it defined;
  restore(ns, part)    before each test cell: put back whatever the student's code replaced,
                       and print one TAMPER line per replaced name for the grader's report;
                       the garbage collector off (test=True) until resume(), after the cell;
  verify(ns, part)     the last line of each test cell: if a test tool was changed WHILE the
                       test ran (a student function called by the test replaced it, even if it
                       put it back afterwards), print a CHANGED line and raise TestToolChanged,
                       so the part scores zero and its feedback says why.

What counts as a change: another object under a protected name; another __code__, __defaults__
or __kwdefaults__ of a protected function (numpy's dispatchers: of the function they wrap; the
methods of the kit's classes in a protected module, such as Results.dumps);
any write to a protected name of a protected module, or to an attribute of a protected class,
since the test cell started (writes are seen as they happen, so putting the tool back before
the check does not hide them); a trace or profile function, or the interpreter's tracing reached
through ctypes at any time since capture (PyEval_SetTrace and kin, or dlsym itself); an audit hook added later (refused,
a hidden test's too: programs_started() counts the programs the kernel started, for a test that
must see a function start none); code of the student's cells the shell would run around or
instead of a test cell (an IPython event callback such as post_run_cell, an input or AST
transformer) or beside it (a thread running the student's code, threading.Timer's and a pool's
worker too, judged by the code on its stack, not the file that code names; a process
the kernel started that is not the kit's launcher, controller or engines, known by how they were
started (the one child that appeared after a Popen of that very program by an installed library's
or the kit's code: _kits), never by how they look, a fork of the kernel among them): removed
(processes killed) after each answer cell and before each test cell,
refused while it runs (a fork during the test cell too); a signal handler other than the kernel's,
an interval timer left armed, a garbage collector callback (each runs the student's code at any
moment of a test: a fresh attacker's SIGALRM handler sampled the hidden test's frames every 2 ms,
P16c, 2026-12-05): put back, disarmed, removed; the garbage collector is off while a test cell
runs (an object of the student's with a finaliser in a reference cycle would run its code at any
collection, and may leave another behind), and a test that turns it on scores zero. The graded
kernel is undumpable from capture on (no other process opens its memory or its descriptors, the
hand-out pipe among them: made dumpable again, it is put back, and a test during which it was
scores zero); the hand-out channel's descriptor replaced, or held twice, at a test's start or end
fails it (handout.py: a pipe whose frames only the test cell's own from_kernel numbers). An event
callback counts as the
student's whatever file its code names, unless the shell had it at capture (IPython's own) or it
is a library's function exactly as its file defines it (matplotlib's). Limits (documented in the instructor guide): this runs in the
student's interpreter, so code written to find and disable this module itself can still do so,
and writes straight into a module's __dict__ that are undone before the check are not seen. Only
the standard library is imported here (numpy and pandas only if installed), so it needs no
grader files.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import functools
import gc
import importlib
import io
import os
import platform
import re
import shutil
import signal
import sys
import sysconfig
import threading
import time
import types
from time import monotonic as _monotonic  # bound before any student cell runs
from time import sleep as _sleep

_compile, _open_code = compile, io.open_code  # bound before any student cell runs
_frames, _threads, _ident = sys._current_frames, threading.enumerate, threading.get_ident

MODULES = (
    "builtins",
    "json",
    "zlib",
    "base64",
    "math",
    "operator",
    "functools",
    "itertools",
    "numpy",
    "numpy.testing",
    "numpy.linalg",
    "pandas",
    "pandas.testing",
    "subprocess",  # a run's records arrive through it (Popen.communicate)
    "posix",  # os's functions (listdir, sched_getaffinity) as hidden tests read them
    "tracemalloc",  # lab 08 (a) counts the bytes eps_bounds holds
    "time",  # and times it (thread_time)
    "dis",  # lab 01 (c) reads a function's instructions
)
# the kit's modules whose functions judge a part or carry its evidence, guarded in every lab:
# the run path from build to records too (a kernel's records are read in the kernel's process)
JUDGING = (
    "hybridlab.runs.student_c",
    "hybridlab.runs.compliance",
    "hybridlab.course.hidden_inputs",
    "hybridlab.grading.handout",
    "hybridlab.slurm.jobs",
    "hybridlab.slurm.steps",
    "hybridlab.kernels.build",
    "hybridlab.kernels.toolchain",
    "hybridlab.runs.launch",
    "hybridlab.runs.run_path",
    "hybridlab.runs.records",
    "hybridlab.runs.metadata",
    "hybridlab.runs.replay",
    "hybridlab.grading.kit_libraries",  # which loaded libraries are the kit's (lab 08 (a))
)
# modules a lab's hidden tests read evidence with (a function's source, numba's threads),
# guarded in the labs whose notebook imports them
EVIDENCE = ("numba", "inspect", "linecache")
EXERCISE = re.compile(
    r"hybridlab\.(\w+)\.exercise\b|from hybridlab\.(\w+) import [^\n]*\bexercise\b"
)
SHELL_METHODS = (
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "get_exception_only",
    "run_cell",
    "run_cell_async",
    "run_ast_nodes",
    "run_code",
    "ex",
    "ev",
)
# (not sys.excepthook: IPython does not use it for cell errors, and libraries set their own)
SYS_HOOKS = ("displayhook", "stdout", "stderr")
FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__")
# audit events of a program started (a kernel run starts mpiexec): counted for the hidden tests,
# whose own audit hooks this guard refuses
PROGRAM_STARTS = ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.fork")
# the interpreter's own tracing and profiling reached through its C API (ctypes.pythonapi), or the
# dynamic linker's lookup itself (a symbol found by address): a hook cleared or swapped with no
# sys.settrace/setprofile event (a fresh attacker's u08_untrace3 switched lab 08 (a)'s line
# counter off so, 3/3 twice, 2026-12-05)
_INTERPRETER_HOOKS = re.compile(r"(Trace|Profile)|^dl(v?sym|open)$")
# a frame of the interpreter handed out (audit events): from a traceback, a generator or coroutine,
# sys._getframe (a frame's f_trace and f_trace_lines switch the line tracer off in it: a fresh
# attacker's u08_tbsmall ran a search in eps_bounds unheard so, 3/3 twice, 2026-12-06)
FRAME_ATTRIBUTES = ("tb_frame", "gi_frame", "cr_frame", "ag_frame")
FRAME_EVENTS = ("sys._getframe", "sys._current_frames")
# calls that open, truncate, move or link a file: the hand-out pipe (handout.py) opened again while
# a test runs (/proc/self/fd/N) is a second writer of the channel (a function the test calls
# rewrote the test's measurements in the hand-out file it was before: attacker A2's K3, 2026-12-07)
FILE_EVENTS = ("open", "os.truncate", "os.rename", "os.replace", "os.remove", "os.link", "os.symlink")
# the name hidden test cells read builtins through (hidden_names rewrites them)
BUILTINS = "__hl_builtins__"
TAMPER = "HYBRIDLAB-TAMPER"
CHANGED = "HYBRIDLAB-TOOL-CHANGED"
# names the kernel itself rebinds (ipykernel sets builtins.input on every execution)
VOLATILE = {"input", "raw_input", "display", "get_ipython", "exit", "quit", "help"}
_MISSING = object()
_state: dict = {}


class TestToolChanged(Exception):
    """A test tool was replaced or altered while the test cell ran: the part scores zero."""


class _WatchedModule(types.ModuleType):
    """The class protected modules are given: it notes every write to a protected name."""

    def __setattr__(self, name, value):
        _note_write(self, name)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        _note_write(self, name)
        super().__delattr__(name)


def _note_write(module, name: str) -> None:
    names = _state.get("watched", {}).get(id(module))
    if not _state.get("restoring") and names is not None and (name in names or name == "__class__"):
        _state.setdefault("writes", []).append(f"{module.__name__}.{name}")


def _audit(event: str, args: tuple) -> None:
    """Audit hook: refuse later audit hooks; note changes to protected functions and classes;
    remember the kit's own programs started (_kits_start)."""
    if _state.get("kit_pending"):  # a kit Popen's pid, read at the first event after it is set
        _kit_pids()
    if event == "sys.addaudithook":
        raise RuntimeError("audit hooks are reserved for the grader")
    if event == "ctypes.dlsym" and _INTERPRETER_HOOKS.search(str(args[1])):
        _state.setdefault("interpreter_hooks", []).append(f"ctypes reached {args[1]}")
    if event == "ctypes.dlopen":  # a library loaded by ctypes (a student's own compiled code)
        _state.setdefault("libraries", []).append(str(args[0]))
    if event in FILE_EVENTS and "handout" in _state and _reaches_handout(event, args):
        _state.setdefault("writes", []).append(f"{event} of the grader's hand-out channel")
    if _state.get("looking"):  # (the guard's own look at its caller, below: not the student's)
        return
    if event in FRAME_EVENTS or (event == "object.__getattr__" and args[1] in FRAME_ATTRIBUTES):
        frames = _state.setdefault("frames", {})  # per thread: how many frames it was handed
        frames[_ident()] = frames.get(_ident(), 0) + 1
    if event in PROGRAM_STARTS:
        _state["started"] = _state.get("started", 0) + 1
    if event == "subprocess.Popen" and len(args) > 3 and (kind := _kit_program(args[0], args[1], args[3])):
        _kits_start(kind)
    if _state.get("restoring"):
        return
    if event == "object.__setattr__" or event == "object.__delattr__":
        target, name = args[0], args[1]
        if (name in FUNCTION_PARTS and id(target) in _state.get("functions", {})) or id(
            target
        ) in _state.get("classes", ()):
            what = getattr(target, "__qualname__", type(target).__name__)
            _state.setdefault("writes", []).append(f"{what}.{name}")
    elif event in ("sys.settrace", "sys.setprofile") and not _state.get("test_traces"):
        _state.setdefault("writes", []).append(event)
    elif event in (
        "os.fork",
        "os.forkpty",
    ):  # a copy of the kernel, beside the test (never the kit's)
        _state.setdefault("writes", []).append(f"{event}: a copy of the kernel")


def _reaches_handout(event: str, args: tuple) -> bool:
    """Whether an audited file call reaches the hand-out channel's pipe (through
    /proc/self/fd/N, /dev/fd/N or a descriptor): another way to write it than from_kernel's."""
    targets = args[:2] if event in ("os.rename", "os.replace", "os.link", "os.symlink") else args[:1]
    return any(_is_channel(t) for t in targets)


def _is_channel(target) -> bool:
    """`target` (a path or a descriptor) is the hand-out channel's pipe."""
    try:
        found = os.fstat(target) if isinstance(target, int) else os.stat(target)
    except (OSError, TypeError, ValueError):
        return False
    return (found.st_dev, found.st_ino) == _state["handout"][1]


def _handout_held() -> str | None:
    """What is wrong with the kernel's hand-out channel, if anything: its descriptor no longer
    the grader's pipe (another file put over it), or a second descriptor of that pipe held
    (a dup, or /proc/self/fd/N opened again: what writes it beside from_kernel, unheard)."""
    fd, channel = _state["handout"][:2]
    hand = _state["handout"][2]
    if hand._destination() != fd or not _is_channel(fd):
        return "the grader's hand-out channel replaced"
    try:
        others = [int(n) for n in os.listdir("/proc/self/fd") if n.isdigit() and int(n) != fd]
    except OSError:
        return None
    if any(_is_channel(n) for n in others):
        return "the grader's hand-out channel held open twice"
    return None


def _dumpable() -> bool:
    """Whether other processes of the sandbox's user may read and write this process's memory
    and descriptors (/proc/PID/mem, /proc/PID/fd/N): capture makes the graded kernel undumpable."""
    return _PRCTL(_PR_GET_DUMPABLE, 0, 0, 0, 0) != 0


# where the kernel compiles a cell's code (ipykernel: <tmp>/ipykernel_<pid>/<hash>.py; IPython:
# <ipython-input-...>): a function whose code comes from there is the student's
_CELL_FILE = re.compile(r"([\\/]ipykernel_\d+[\\/]|^<ipython-input-|^<string>$)")


def _from_a_cell(hook) -> bool:
    """Whether `hook` (a callback, transformer or thread target) runs code of a notebook cell:
    a function, method, partial or callable object defined in a cell, or a built-in such as
    exec (which runs whatever text it is handed)."""
    hook = _unwrapped(hook)
    code = _code_of(hook)
    if code is None:
        return isinstance(hook, types.BuiltinFunctionType) and hook.__name__ in ("exec", "eval")
    return bool(_CELL_FILE.search(code.co_filename))


def _unwrapped(hook):
    """The function a partial or a bound method calls."""
    for _ in range(8):
        if isinstance(hook, functools.partial):
            hook = hook.func
        elif isinstance(hook, types.MethodType):
            hook = hook.__func__
        else:
            break
    return hook


def _code_of(hook) -> types.CodeType | None:
    """The Python code a callable runs (a partial's, a method's, a callable object's __call__);
    None for a built-in."""
    hook = _unwrapped(hook)
    code = getattr(hook, "__code__", None)
    if code is None and not isinstance(hook, types.BuiltinFunctionType):
        call = next((vars(c)["__call__"] for c in type(hook).__mro__ if "__call__" in vars(c)), None)
        code = getattr(call, "__code__", None)
    return code


def _shell_hooks(shell) -> dict[str, list]:
    """The lists of code the shell runs around every cell: event callbacks, transformers."""
    if shell is None:
        return {}
    hooks = {f"events.{event}": callbacks for event, callbacks in shell.events.callbacks.items()}
    manager = shell.input_transformer_manager
    hooks.update({
        "ast_transformers": shell.ast_transformers,
        "input_transformers_post": shell.input_transformers_post,
        "input_transformers_cleanup": manager.cleanup_transforms,
        "input_transformer_manager.line_transforms": manager.line_transforms,
        "input_transformer_manager.token_transformers": manager.token_transformers,
    })  # fmt: skip
    return hooks


def _library_function(hook) -> bool:
    """Whether `hook` is a plain function of an installed library (the venv's or the standard
    library's) as its file defines it: a module-level function of that module, with the
    module's globals, no closure or defaults, and code equal to the code compiled from the
    module's file (matplotlib's post_execute callbacks). Code compiled by a cell under a
    library's file name is not: its code is not that file's."""
    if type(hook) is not types.FunctionType or hook.__closure__ or hook.__defaults__ or hook.__kwdefaults__:
        return False
    module = sys.modules.get(getattr(hook, "__module__", None) or "")
    path = getattr(module, "__file__", None) or ""
    if (module is None or hook.__globals__ is not vars(module)
            or vars(module).get(hook.__name__) is not hook or not path.endswith(".py")):
        return False
    return os.path.realpath(path) == os.path.realpath(hook.__code__.co_filename) and _library_code(
        hook.__code__, (sys.prefix, sys.base_prefix))


def _library_code(code: types.CodeType, roots: tuple[str, ...]) -> bool:
    """Whether `code` is code its own file compiles to, that file a .py under one of `roots`: code
    a cell compiled under a library's file name (`compile(text, ".../threading.py", "exec")`) is
    not, whatever it names."""
    path = os.path.realpath(code.co_filename)
    within = tuple(os.path.realpath(p) + os.sep for p in roots)
    if not path.endswith(".py") or not path.startswith(within):
        return False
    codes = _state.setdefault("library_code", {})
    if path not in codes:
        try:
            with _open_code(path) as f:
                top = _compile(f.read(), path, "exec", dont_inherit=True)
        except (OSError, SyntaxError, ValueError):
            top = None
        found, todo = [], [top] if top is not None else []
        while todo:
            each = todo.pop()
            found.append(each)
            todo += [c for c in each.co_consts if isinstance(c, types.CodeType)]
        codes[path] = found
    return any(code == each for each in codes[path])


_KIT_ROOTS = (sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def _students_thread(thread: threading.Thread) -> bool:
    """A thread that runs code no installed library or kit file compiles to (a cell's function,
    or code a cell compiled under a library's file name: a fresh attacker's thread that forged
    the lab cell's kept record while it ran, G03a8, 2026-12-05), or exec/eval. A thread alive
    when the guard captured the tools is the kernel's."""
    if any(thread is t for t in _state.get("threads", ())):
        return False
    for hook in (getattr(thread, "_target", None) or getattr(thread, "function", None),
                 type(thread).run):  # fmt: skip
        if hook is None:
            continue
        code = _code_of(hook)
        if code is None:
            if _from_a_cell(hook):  # exec or eval, handed a text
                return True
        elif not _library_code(code, _KIT_ROOTS):
            return True
    return False


def _students_stacks(looks: int = 3, pause: float = 0.05) -> list[str]:
    """The other threads running the student's code somewhere on their stack, whatever started
    them and whatever their target: a thread pool's worker running a work item (a fresh
    attacker's G03a9, 2026-12-05: the pool's `_worker` is the standard library's) or a thread of
    `_thread.start_new_thread` (not in threading.enumerate). A frame is the student's when its
    code is a cell's, or, on a thread the kernel did not have at capture, code no installed
    library or kit file compiles to (an import's `<frozen ...>` frames and generated code too:
    so a thread is named only if it is seen so in `looks` looks `pause` s apart, as a student's
    loop is and a library's passing import is not). A thread waiting in library code with the
    student's code still queued is not seen (the guard runs in the student's interpreter)."""
    known = {t.ident for t in _state.get("threads", ())}
    suspects = None
    for look in range(looks):
        if look:
            _sleep(pause)
        now = set()
        for ident, frame in _frames().items():
            if ident == _ident():
                continue
            while frame is not None:
                code = frame.f_code
                if _CELL_FILE.search(code.co_filename) or (
                    ident not in known and not _library_code(code, _KIT_ROOTS)
                ):
                    now.add(ident)
                    break
                frame = frame.f_back
        suspects = now if suspects is None else suspects & now
        if not suspects:
            return []
    names = {t.ident: t.name for t in _threads()}
    return [f"a thread running the student's code ({names.get(i, i)})" for i in sorted(suspects)]


def _the_kits_callback(event: str, hook) -> bool:
    """An event callback the kit may leave registered: one the shell had when capture ran
    (IPython's own), or a library's function as its file defines it (_library_function)."""
    return any(hook is k for k in _state.get("events", {}).get(event, ())) or _library_function(hook)


def _cell_hooks(put_back: bool) -> list[str]:
    """The student's event callbacks and transformers (removed with put_back), and threads
    running a cell's code (they cannot be stopped: named only). An event callback is the
    student's, whatever file its code names, unless the shell had it at capture or it is a
    library's function as its file defines it."""
    found = []
    shell = _shell()
    events = _state.get("event_manager")
    if shell is not None and events is not None:  # the event manager itself, as captured
        manager, callbacks = events
        if shell.events is not manager or manager.callbacks is not callbacks:
            found.append("get_ipython().events")
            if put_back:
                shell.events, manager.callbacks = manager, callbacks
        extra = set(vars(manager)) - {"shell", "callbacks", "print_on_error"}
        found += [f"get_ipython().events.{name}" for name in sorted(extra)]
        if put_back:
            for name in extra:
                delattr(manager, name)
    for where, hooks in _shell_hooks(shell).items():
        event = where[len("events."):] if where.startswith("events.") else None
        theirs = [hook for hook in hooks if _from_a_cell(hook)
                  or (event is not None and events is not None and not _the_kits_callback(event, hook))]
        found += [
            f"get_ipython().{where}: {getattr(h, '__name__', type(h).__name__)}" for h in theirs
        ]
        if put_back:
            for hook in theirs:
                hooks.remove(hook)
    for thread in _threads():
        if _students_thread(thread):
            found.append(f"a thread running the student's code ({thread.name})")
    return list(dict.fromkeys(found + _students_stacks()))


# What may run under the kernel between cells: the engines' launchers and the kit's controller
# and engines (hl.Cluster); a program run by a cell has ended by the end of the cell.
_LAUNCHERS = {"mpiexec", "mpiexec.hydra", "hydra_pmi_proxy", "mpirun", "srun", "prterun", "prted"}
_CONTROLLER = "ipyparallel.controller"
_ENGINES = {"ipyparallel.engine", "hybridlab.engines.engine"}


def _launcher_files() -> frozenset[str]:
    """The launchers' own files (real paths), on PATH or beside this Python when the guard is
    imported: a process is a launcher by the file it runs, not by its name (a fresh attacker's
    helper, a copy of Python named mpiexec in /tmp, lived through the test cells and rewrote the
    hand-out file: A10's F1, lab 09 (a), 5/5 twice, 2026-12-07)."""
    found = set()
    for where in (os.environ.get("PATH", ""), os.path.dirname(sys.executable)):
        for name in _LAUNCHERS:
            path = shutil.which(name, path=where)
            if path:
                found.add(os.path.realpath(path))
    for path in list(found):  # hydra's proxy and Open MPI's daemon, beside their launcher
        found |= {os.path.realpath(os.path.join(os.path.dirname(path), name)) for name in _LAUNCHERS
                  if os.path.isfile(os.path.join(os.path.dirname(path), name))}  # fmt: skip
    return frozenset(found)


_LAUNCHER_FILES = _launcher_files()
_PYTHON = os.path.realpath(sys.executable)
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep
_SITE = tuple(os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("purelib", "platlib"))
_KIT_CODE = (sys.prefix, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
_TICKS = os.sysconf("SC_CLK_TCK")
_FORKED_WITHIN = 2.0  # seconds from a kit Popen's audit event to its fork, at most (a loaded machine)
_clock = functools.partial(time.clock_gettime, time.CLOCK_BOOTTIME)  # /proc/PID/stat's clock


def _resolved(program, env) -> str:
    """The real path of the file `program` (a name or a path) runs, found on `env`'s PATH."""
    path = (env or {}).get("PATH") if isinstance(env, dict) else None
    found = shutil.which(os.fsdecode(program), path=path or os.environ.get("PATH"))
    return os.path.realpath(found) if found else ""


def _kit_program(executable, args, env) -> str | None:
    """"controller" or "launcher" when a Popen starts the kit's controller (this Python running
    ipyparallel's controller module) or a launcher (its file) of the kit's engines (this Python
    running an engine module); None for any other program."""
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args or ())
    try:
        argv = [os.fsdecode(a) for a in argv]
        exe = _resolved(executable or argv[0], env)
    except (TypeError, ValueError, IndexError):
        return None
    if exe == _PYTHON and argv[1:3] == ["-m", _CONTROLLER]:
        return "controller"
    engine = any(argv[i] == "-m" and argv[i + 1] in _ENGINES and _resolved(argv[i - 1], env) == _PYTHON
                 for i in range(1, len(argv) - 1))  # fmt: skip
    return "launcher" if exe in _LAUNCHER_FILES and engine else None


def _kits_start(kind: str) -> None:
    """At a Popen of a kit program (the audit hook, before the fork): when the code that called
    Popen (the first frame outside the standard library) is an installed library's or the kit's
    as its file compiles it, remember the kernel's children now; the one child that appears
    after them is the kit's (_kit_pids)."""
    _state["looking"] = True
    try:
        frame = sys._getframe(2)  # (0: here; 1: _audit; 2: what audited it: subprocess's Popen)
        while frame is not None and _standard_library(frame.f_code.co_filename):
            frame = frame.f_back
        kits = frame is not None and _library_code(frame.f_code, _KIT_CODE)
    finally:
        _state["looking"] = False
    if kits:
        _state.setdefault("kit_pending", []).append((kind, _clock(), _children()))


def _standard_library(path: str) -> bool:
    path = os.path.realpath(path)
    return path.startswith(_STDLIB) and not path.startswith(_SITE)


def _children() -> set[int]:
    """The kernel's children now (/proc/self/task/*/children: every thread's)."""
    found = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                found.update(int(p) for p in f.read().split())
    except (OSError, ValueError):
        pass
    return found


def _kit_pids() -> None:
    """The pids of the kit's programs started since the last look (the audit hook's next event,
    or the guard's next look): {pid: (kind, clock at its Popen, clock when found)}. A kit Popen's
    child is the one child of the kernel that appeared since it, started after it; none while
    several did (a fork of the student's at the same moment: neither is kept)."""
    if _state.get("resolving"):
        return
    _state["resolving"] = True
    try:
        now, later = _children(), []
        kept = _state.setdefault("kit_pids", {})
        for kind, when, before in _state.get("kit_pending", []):
            new = [pid for pid in now - before - set(kept)
                   if when - 2 / _TICKS <= (_started(pid) or 0.0) <= when + _FORKED_WITHIN]  # fmt: skip
            if len(new) == 1:
                kept[new[0]] = (kind, when, _clock())
            elif not new and _clock() - when < _FORKED_WITHIN:
                later.append((kind, when, before))  # not forked yet
        _state["kit_pending"] = later
    finally:
        _state["resolving"] = False


def _descendants() -> list[tuple[int, str, list[str], int]]:
    """The live processes under this one: (pid, executable, command line, parent), from /proc."""
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":  # a zombie runs nothing
            parent[int(entry)] = int(fields[1])
    mine, found = {os.getpid()}, []
    changed = True
    while changed:
        changed = False
        for pid, ppid in parent.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                changed = True
    for pid in sorted(mine - {os.getpid()}):
        try:  # an undumpable process (a fork of the graded kernel) hides its file: "" (not the kit's)
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            exe = ""
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue  # gone meanwhile
        found.append((pid, exe, argv, parent[pid]))
    return found


def _started(pid: int) -> float | None:
    """When process `pid` started (seconds of _clock), from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19]) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


def _kits(processes: list[tuple[int, str, list[str], int]]) -> set[int]:
    """The kit's own among `processes` (_descendants), known by how they were started, not by
    how they look: a root is a child of the kernel whose pid the kit's own Popen returned
    (_kits_start: kit code started that very program, the controller or a launcher of engines;
    the process started between that Popen and the read of its pid), and under a root only: a
    launcher's helpers (hydra's proxy: a launcher file) and the engines they run (this Python
    running an engine module, a child of those), the controller's forks (the controller's module).
    A fork of the kernel is never a root, whatever it runs or its command line says (the
    controller's, written over its own: issue 36; before, a launcher by its file and an engine
    by its command line under one: A10's F1 and F2, lab 09 (a), 5/5 twice, 2026-12-07)."""
    _kit_pids()
    parent = {pid: up for pid, _exe, _argv, up in processes}
    exes = {pid: os.path.realpath(exe) for pid, exe, _argv, _up in processes}
    modules = {pid: argv[2] for pid, exe, argv, _up in processes
               if len(argv) > 2 and argv[1] == "-m" and exes[pid] == _PYTHON}  # fmt: skip
    roots = {}
    for pid, (kind, since, read) in list(_state.get("kit_pids", {}).items()):
        began = _started(pid) if parent.get(pid) == os.getpid() else None
        if began is None or not since - 2 / _TICKS <= began <= read + 2 / _TICKS:
            _state["kit_pids"].pop(pid, None)  # ended (its number may come again): never a root
            continue
        roots[pid] = kind
    kits = set(roots)
    launchers = {pid for pid, kind in roots.items() if kind == "launcher"}
    controllers = {pid for pid, kind in roots.items() if kind == "controller"}
    while True:
        more = {pid for pid, up in parent.items() if pid not in kits and (
            (up in launchers and exes[pid] in _LAUNCHER_FILES)
            or (up in controllers and modules.get(pid) == _CONTROLLER))}  # fmt: skip
        if not more:
            break
        kits |= more
        launchers |= {pid for pid in more if exes[pid] in _LAUNCHER_FILES}
        controllers |= more - launchers
    return kits | {pid for pid, up in parent.items() if up in launchers and modules.get(pid) in _ENGINES}


def _foreign_processes(put_back: bool) -> list[str]:
    """Processes under the kernel that are not the kit's launchers, controller or engines
    (_kits; with put_back: killed, and looked for again until none is left or dying, so that the
    test cell after them does not see one still on its way out, or one started meanwhile)."""
    found: dict[int, str] = {}  # pid -> what it is, each once however many rounds saw it
    for _ in range(5 if put_back else 1):
        processes = _descendants()
        kits = _kits(processes)
        now = [(pid, os.path.basename(exe) or "its program hidden") for pid, exe, _argv, _up in processes
               if pid not in kits]  # fmt: skip
        found |= {pid: f"a process the student's code started ({name}, pid {pid})"
                  for pid, name in now}  # fmt: skip
        if not (put_back and now):
            break
        for pid, _name in now:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _wait_gone([pid for pid, _name in now])
    return list(found.values())


def _wait_gone(pids: list[int], seconds: float = 2.0) -> None:
    """Wait (at most `seconds`) until each of `pids` has ended: gone, or a zombie."""
    deadline = _monotonic() + seconds
    while _monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        alive.append(pid)
            except (OSError, IndexError):
                pass
        if not alive:
            return
        pids = alive
        _sleep(0.01)


_TIMERS = {"ITIMER_REAL": signal.ITIMER_REAL, "ITIMER_VIRTUAL": signal.ITIMER_VIRTUAL,
           "ITIMER_PROF": signal.ITIMER_PROF}  # fmt: skip


_SYSCALL = ctypes.CDLL(None, use_errno=True).syscall  # bound before any student cell runs
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl
_PR_GET_DUMPABLE, _PR_SET_DUMPABLE = 3, 4
_TIMER_DELETE = {"x86_64": 226, "aarch64": 111}.get(platform.machine())  # SYS_timer_delete


def _posix_timers() -> list[int]:
    """The ids of this process's POSIX timers (timer_create: a SIGEV_THREAD timer runs its
    callback on a thread of libc's between the guard's looks, a fresh attacker's k00timer,
    2026-12-05, rewrote a hidden test's locals while it ran), from /proc/self/timers."""
    try:
        with open("/proc/self/timers") as f:
            return [int(line.split()[1]) for line in f if line.startswith("ID:")]
    except (OSError, ValueError, IndexError):
        return []


def _handlers() -> dict:
    """{signal: its Python handler} of every signal a handler can be set for."""
    found = {}
    for number in signal.valid_signals():
        with contextlib.suppress(ValueError, OSError):
            found[number] = signal.getsignal(number)
    return found


def _students_code(hook) -> bool:
    """A callable that runs code no installed library or kit file compiles to (a cell's, or a
    cell's compiled under a library's file name), or exec/eval."""
    code = _code_of(hook)
    return _from_a_cell(hook) if code is None else not _library_code(code, _KIT_ROOTS)


def _interrupts(put_back: bool) -> list[str]:
    """What runs the student's code at any moment, whatever the kernel is doing: a signal handler
    of the student's code, an interval timer armed, a POSIX timer made since capture, a garbage
    collector callback of the student's code (with put_back: the kernel's handler put back, the
    timers disarmed or deleted, the callback removed). The kernel's and libraries' own
    handlers and callbacks are left alone."""
    found = []
    if threading.current_thread() is threading.main_thread():  # handlers: the main thread's
        for number, handler in _state.get("signals", {}).items():
            now = signal.getsignal(number)
            if callable(now) and now is not handler and _students_code(now):
                found.append(f"the handler of {signal.Signals(number).name}")
                if put_back:
                    signal.signal(number, handler if handler is not None else signal.SIG_DFL)
    for name, timer in _TIMERS.items():
        if signal.getitimer(timer) != (0.0, 0.0):
            found.append(f"an interval timer ({name})")
            if put_back:
                signal.setitimer(timer, 0.0)
    for timer in _posix_timers():
        if timer not in _state.get("posix_timers", ()):
            found.append(f"a POSIX timer (timer_create, id {timer})")
            if put_back and _TIMER_DELETE is not None:
                _SYSCALL(_TIMER_DELETE, timer)
    extra = [c for c in gc.callbacks if _students_code(c)]
    found += [f"gc.callbacks: {getattr(c, '__name__', type(c).__name__)}" for c in extra]
    if put_back:
        gc.callbacks[:] = [c for c in gc.callbacks if not any(c is e for e in extra)]
    return found


def _callables(namespace: dict) -> dict:
    return {
        k: v
        for k, v in namespace.items()
        if not k.startswith("_") and k not in VOLATILE and callable(v)
    }


def _functions(tool) -> list:
    """The Python functions behind a tool: itself, or what a wrapper or numpy dispatcher wraps."""
    found = []
    for _ in range(4):
        if isinstance(tool, types.FunctionType):
            found.append(tool)
            tool = tool.__dict__.get("__wrapped__")
        elif type(tool).__name__ == "_ArrayFunctionDispatcher":
            tool = getattr(tool, "_implementation", None)
        else:
            break
    return found


def _shell():
    try:
        return get_ipython()  # noqa: F821 - defined in an IPython kernel
    except NameError:
        return None


def _protect_functions(tools) -> None:
    functions = _state.setdefault("functions", {})
    for tool in tools:
        for fn in _functions(tool):
            functions.setdefault(id(fn), (fn, tuple(getattr(fn, p) for p in FUNCTION_PARTS)))


def judging_modules(text: str) -> list[str]:
    """The topics' exercise modules `text` (a notebook's source) names, the JUDGING modules
    it names (capture adds those its exercise modules import) and the EVIDENCE modules it
    imports."""
    topics = {a or b for a, b in EXERCISE.findall(text)}
    short = {m: m.rsplit(".", 1)[1] for m in JUDGING}  # also by the flat names labs import
    named = [
        m
        for m in JUDGING
        if any(w in text for w in (m, f"hybridlab.{short[m]}", f"import {short[m]}"))
    ]
    evidence = [m for m in EVIDENCE if re.search(rf"^\s*(?:import|from) {m}\b", text, re.M)]
    return [*(f"hybridlab.{topic}.exercise" for topic in sorted(topics)), *named, *evidence]


def capture(judging: list[str] = ()) -> None:
    """Remember the pristine tools: MODULES, the `judging` modules and the JUDGING modules
    imported with them; call once, before any student cell. In a graded kernel (one handed a
    hand-out channel) the hand-out module is imported here, whatever the notebook names: it takes
    the channel's descriptor before any student cell (a part graded apart hands its texts out)."""
    if os.environ.get("HYBRIDLAB_HANDOUT") and "hybridlab.grading.handout" not in judging:
        judging = [*judging, "hybridlab.grading.handout"]
    for name in judging:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    judging = [*judging, *(m for m in JUDGING if m in sys.modules and m not in judging)]
    modules, watched, classes = {}, {}, set()
    for name in (*MODULES, *judging):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        tools = _callables(vars(mod))
        modules[name] = (mod, tools)
        watched[id(mod)] = set(tools)
        classes.update(id(v) for v in tools.values() if isinstance(v, type) and name != "builtins")
    shell = _shell()
    shell_dicts = []
    if shell is not None:  # the shell's class and its bases, and the instance itself
        owners = [c for c in type(shell).__mro__ if c is not object] + [shell]
        shell_dicts = [(o, {k: vars(o).get(k, _MISSING) for k in SHELL_METHODS}) for o in owners]
        classes.update(id(o) for o in owners if isinstance(o, type))
    classes.add(id(_WatchedModule))
    events = getattr(shell, "events", None)
    _state.clear()
    _state.update(
        restoring=True,
        modules=modules,
        shell=shell_dicts,
        hooks={k: getattr(sys, k) for k in SYS_HOOKS},
        helpers={},
        watched=watched,
        classes=classes,
        functions={},
        writes=[],
        threads=tuple(threading.enumerate()),  # the kernel's own, before any student cell
        signals=_handlers(),
        posix_timers=tuple(_posix_timers()),  # the kernel's own, if any
    )
    if shell is not None:  # the builtins a hidden cell reads by name (hidden_names.BUILTINS), and
        for name in (BUILTINS, "__builtins__", "__builtin__"):  # the namespace's own: kept as they are
            shell.user_ns[name] = builtins
            _state["helpers"][name] = builtins
    if events is not None:  # the shell's event callbacks now, before any student cell: IPython's
        _state["event_manager"] = (events, events.callbacks)
        _state["events"] = {event: list(hooks) for event, hooks in events.callbacks.items()}
    for name, (_, tools) in modules.items():
        _protect_functions(tools.values())
        if name != "builtins":  # the methods of the kit's classes (Results.dumps hands out runs)
            _protect_functions(m for v in tools.values() if isinstance(v, type)
                               and v.__module__.startswith("hybridlab") for m in vars(v).values())  # fmt: skip
    for mod, _ in modules.values():
        if type(mod) is types.ModuleType:
            mod.__class__ = _WatchedModule
    hand = sys.modules.get("hybridlab.grading.handout")
    if hand is not None and hand._destination() is not None:  # the channel: its descriptor, pipe
        _state["handout"] = (hand._destination(), hand._CHANNEL, hand)
        _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # no other process opens its descriptors or memory
    sys.addaudithook(_audit)
    # the kit's programs already running (hybridlab's import may start the warm controller):
    # nothing of the student's has run yet, so the kernel's children now are the kit's
    kept = _state.setdefault("kit_pids", {})
    for pid, exe, argv, up in _descendants():
        kind = _kit_program(exe, argv, None) if up == os.getpid() else None
        if kind:
            kept[pid] = (kind, 0.0, _clock())
    _state["restoring"] = False


def libraries_loaded() -> list[str]:
    """The libraries ctypes loaded in this process since capture (their names as given): a
    hidden test's evidence that a function it judges by its Python ran compiled code of the
    student's own."""
    return list(_state.get("libraries", []))


def frames_reached() -> int:
    """How many frames of the interpreter this thread was handed since capture (a traceback's
    tb_frame, a generator's gi_frame, sys._getframe): a hidden test's evidence that a function it
    traces line by line reached a frame, whose line tracing it could switch off."""
    return _state.get("frames", {}).get(_ident(), 0)


def programs_started() -> int:
    """How many programs this process started since capture (0 without it): a hidden test's
    evidence that a function it calls ran a kernel, for its own audit hook would be refused."""
    return _state.get("started", 0)


def remember(namespace: dict, names: list[str]) -> None:
    """Remember the helpers an instructor cell defined (functions, classes, modules)."""
    for name in names:
        if name in namespace:
            helper = namespace[name]
            _state.setdefault("helpers", {})[name] = helper
            _protect_functions([helper])
            if isinstance(helper, type):
                _state.setdefault("classes", set()).add(id(helper))


def _differences(namespace: dict, *, put_back: bool, own: tuple = ()) -> list[str]:
    """What differs from the captured tools (and, with put_back, set it right again); `own`:
    helpers the test cell itself (re)defines."""
    changed = []
    for name, (mod, pristine) in _state.get("modules", {}).items():
        if sys.modules.get(name) is not mod:
            changed.append(f"sys.modules[{name!r}]")
            if put_back:
                sys.modules[name] = mod
        if type(mod) is not _WatchedModule:
            changed.append(f"{name}.__class__")
            if put_back:
                mod.__class__ = _WatchedModule
        current = vars(mod)
        for key, value in pristine.items():
            if current.get(key, _MISSING) is not value:
                changed.append(f"{name}.{key}")
                if put_back:
                    setattr(mod, key, value)
    for fn, parts in _state.get("functions", {}).values():
        if any(
            getattr(fn, p) is not value for p, value in zip(FUNCTION_PARTS, parts, strict=False)
        ):
            changed.append(f"{getattr(fn, '__module__', '?')}.{fn.__qualname__}.__code__")
            if put_back:
                for p, value in zip(FUNCTION_PARTS, parts, strict=False):
                    setattr(fn, p, value)
    for owner, methods in _state.get("shell", []):
        for key, value in methods.items():
            if vars(owner).get(key, _MISSING) is not value:
                name = "get_ipython()" if not isinstance(owner, type) else owner.__name__
                changed.append(f"{name}.{key}")
                if put_back and value is _MISSING:
                    delattr(owner, key)
                elif put_back:
                    setattr(owner, key, value)
    for key, value in _state.get("hooks", {}).items():
        if getattr(sys, key) is not value:
            changed.append(f"sys.{key}")
            if put_back:
                setattr(sys, key, value)
    for key, value in _state.get("helpers", {}).items():
        if key not in own and namespace.get(key, _MISSING) is not value:
            changed.append(key)
            if put_back:
                namespace[key] = value
    if "handout" in _state and _dumpable():
        changed.append("the kernel made dumpable (its memory and descriptors open to other processes)")
        if put_back:
            _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    changed += _cell_hooks(put_back) + _foreign_processes(put_back) + _interrupts(put_back)
    for what, get, put in (
        ("sys.settrace", sys.gettrace, sys.settrace),
        ("sys.setprofile", sys.getprofile, sys.setprofile),
        ("threading.settrace", lambda: threading._trace_hook, threading.settrace),
        ("threading.setprofile", lambda: threading._profile_hook, threading.setprofile),
    ):
        if get() is not None:
            changed.append(what)
        if put_back:  # also a hook set from C with no object, which the getter shows as None
            put(None)  # (PyEval_SetProfile(cb, NULL): a fresh attacker's L16g3, 2026-12-05)
    return changed


@contextlib.contextmanager
def traced_by_the_test():
    """A hidden test's own sys.settrace and sys.setprofile while it measures a student's function
    (lab 08 (a) counts the lines eps_bounds runs): not noted as a change of the tracing. The test
    must set them back to None; verify() still finds a hook left set."""
    _state["test_traces"] = True
    try:
        yield
    finally:
        _state["test_traces"] = False


def restore(namespace: dict, part: str = "", test: bool = False) -> list[str]:
    """Put every replaced tool back; print and return what had been replaced. From here on,
    every write to a protected tool is noted for verify(). Before a test cell (`test`): the
    garbage collector off until resume()."""
    _state["restoring"] = True
    try:
        changed = _differences(namespace, put_back=True)
    finally:
        _state["restoring"] = False
    _state["writes"] = []
    if test and "handout" in _state:
        held = _handout_held()
        if held:
            _state["writes"].append(held)
        _state["handout"][2].open_cell(part)  # the values handed out from now on are part's
    for what in changed:
        print(f"{TAMPER} {part}: {what}")
    if test:  # no finaliser of the student's garbage runs while the test draws its inputs;
        gc.disable()  # resume() turns the collector on again once the grader has read what
        _state["collector_off"] = True  # the test handed out
    return changed


def resume() -> None:
    """After a test cell (and the grader's read of what it handed out): the collector on again;
    no test cell's values are handed out now."""
    if "handout" in _state:
        _state["handout"][2].close_cell()
    _state["collector_off"] = False
    gc.enable()


def verify(namespace: dict, part: str = "", own: tuple = ()) -> None:
    """The end of a test cell: raise TestToolChanged if a test tool changed while it ran
    (`own`: the names the test cell defines itself)."""
    # turned on while the test ran: the student's finalisers could run
    collecting = bool(_state.get("collector_off")) and gc.isenabled()
    held = [_handout_held()] if "handout" in _state else []
    changed = list(dict.fromkeys(_state.get("writes", []) + ["gc.enable()"] * collecting
                                 + [h for h in held if h]
                                 + _state.get("interpreter_hooks", [])  # at any time: a pointer
                                 + _differences(namespace, put_back=False, own=own)))  # kept works later
    if changed:
        print(f"{CHANGED} {part}: {', '.join(changed[:6])}")
        raise TestToolChanged(
            f"test tool changed while the test ran ({', '.join(changed[:6])}): the grader "
            "does not trust this result, so this part scores zero"
        )
