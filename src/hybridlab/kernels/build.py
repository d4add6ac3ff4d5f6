"""Compile a C kernel with mpicc into a shared library and a program, cached by content.

A kernel is a file in kernels_c/, or in the course's own kernels folder searched after it
(paths.course_kernels_dirs: HYBRIDLAB_COURSE_KERNELS, else <course>/kernels/), or C source from a
notebook cell, that includes hybridlab.h. The cache key covers the source, every header of those
folders, the flags and the MPI/compiler in
use, so a change to any of them rebuilds and nothing else does. trace_mpi=True compiles the
kernel with hl_mpi_trace.h forced in first and links it with the kit's tracer object
(kernels_c/hl_trace.c, compiled out of line): its MPI calls are recorded with the calling thread
(Results.mpi_calls), which hybridlab.runs.compliance judges against a thread level. A student's own
unit (a C cell linked with a kit kernel, or a whole program) is then judged from its object and
its preprocessed unit before it is linked (hybridlab.kernels.unit_checks): a refused construct is a
BuildError naming the cell's line. flags=offload_flags() builds for an OpenMP offload target (lab
15): clang behind the MPI wrapper (compiler_env), its host and device code both judged.
archer=True builds with clang and ThreadSanitizer for Archer, the OpenMP race detector
(hybridlab.kernels.archer): the same checks, the same cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import progress
from ..paths import cache_root, find_kernel_file, kernel_dirs, venv_bin
from . import archer as archer_tool
from . import unit_checks
from .toolchain import direct_command, toolchain_env

TRACE_HEADER = "hl_mpi_trace.h"  # trace_mpi=True: records each MPI call with its thread
TRACE_FLAGS = ("-DHL_TRACE_MPI", "-include", TRACE_HEADER)
TRACER_SOURCE = "hl_trace.c"  # the tracer, compiled out of line and linked beside a traced unit
# kit sources in kernels_c/ that are no kernel: the tracer, and the PMPI interposer preloaded
# into the ranks of a graded call (engines.once: lab 00 (d))
NOT_KERNELS = (TRACER_SOURCE, "hl_ring_watch.c")
TRACER_FLAGS = ("-DHL_TRACE_MPI", "-fvisibility=hidden")
WHOLE_PROGRAM_FLAG = "-DHL_WHOLE_PROGRAM"  # a student's whole program (hybridlab.slurm.jobs)
# An OpenMP offload build (lab 15): clang behind the MPI wrapper, with the offload target given;
# LLVM's host plugin (x86_64) runs everywhere, nvptx64 and amdgcn need a GPU's toolchain.
OFFLOAD_TARGETS = ("x86_64-pc-linux-gnu", "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa")
OFFLOAD_COMPILER = "clang"


def offload_flags(target: str = OFFLOAD_TARGETS[0]) -> tuple[str, ...]:
    """The flags of an OpenMP offload build for `target` (build(..., offload_flags()))."""
    return (f"-fopenmp-targets={target}",)


def offload_target(flags: tuple[str, ...]) -> str | None:
    """The offload target the flags ask for, None for a host build."""
    return next((f.partition("=")[2] for f in flags if f.startswith("-fopenmp-targets=")), None)


def compiler_env(flags: tuple[str, ...]) -> dict[str, str]:
    """The environment a build's commands run in (toolchain.toolchain_env, never what a cell
    set): for an offload build clang as the compiler under MPICH's and Open MPI's mpicc
    (MPICH_CC, OMPI_CC), for Archer's its clang, else the wrapper's own compiler."""
    if archer_tool.FLAGS[0] in flags:
        return toolchain_env(**archer_tool.COMPILER_ENV)
    if offload_target(flags) is not None:
        return toolchain_env(MPICH_CC=OFFLOAD_COMPILER, OMPI_CC=OFFLOAD_COMPILER)
    return toolchain_env()
DEFAULT_FLAGS = ("-std=gnu11", "-O2", "-Wall", "-Wextra", "-fopenmp")
_LIBS = ("-lm", "-latomic")  # linked last: the maths library, libatomic (see _build)
# Full RELRO (every symbol bound at load, then the GOT read-only): a cell that stores into the
# GOT's slot of a function the kit calls (omp_in_parallel, to switch lab 01's hold off: F01p's
# poke_got, 2026-12-07) faults instead. Not for an offload build: libomptarget could not load
# the device image linked so ("Unable to generate entries table").
_RELRO = ("-Wl,-z,relro,-z,now",)


def _link_libs(flags: tuple[str, ...]) -> tuple[str, ...]:
    """What a build of `flags` links last: _LIBS, and _RELRO but for an offload build."""
    return (*_LIBS, *(() if offload_target(flags) else _RELRO))
# A student's translation unit (LINK): kit helpers only, synchronous sends, no undeclared calls
# (a kernel's static function is an error naming the cell's line); not the kernel's flags.
STUDENT_UNIT_FLAGS = (
    "-DHL_STUDENT_TU",
    "-DHL_SYNCHRONOUS_SENDS",
    "-Werror=implicit-function-declaration",
)
SEEDED_OBJECTS_ENV = "HYBRIDLAB_SEEDED_OBJECTS"  # a folder of kit objects a sandbox may read
OBJECT_NAME = re.compile(r"\w+-[0-9a-f]{16}\.o")  # a kit object's file: source stem, digest
FLAGS_FILE = "flags.json"  # in each build: its flags beyond DEFAULT_FLAGS (see is_current)
# set in a process that grades parts apart (grading/apart.py): a build or kit object in the cache
# is used only if this process made it (its digest as made) or it lies on a read-only mount (the
# sandbox's seed); anything else a part's code may have planted, and is made again
APART_ENV = "HYBRIDLAB_APART"
_made: dict[str, str] = {}  # path -> digest of what this process made there (made_here)
_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<kind>error|warning|fatal error): (?P<msg>.*)$",
    re.M,
)


@dataclass(frozen=True)
class Diagnostic:
    file: str
    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.kind}: {self.message}"


class BuildError(RuntimeError):
    """The compiler refused a kernel; the message shows its diagnostics with file and line."""

    def __init__(self, name: str, command: list[str], output: str):
        self.name, self.command, self.output = name, command, output
        self.diagnostics = diagnostics(output)
        shown = "\n".join(str(d) for d in self.diagnostics if d.kind != "warning") or output
        super().__init__(
            f"kernel '{name}' did not compile:\n{shown}\n\ncommand: {' '.join(command)}"
        )


def diagnostics(output: str) -> list[Diagnostic]:
    """The compiler's messages in `output`: file (base name), line, kind, text."""
    return [
        Diagnostic(Path(m["file"]).name, int(m["line"]), m["kind"], m["msg"])
        for m in _DIAGNOSTIC.finditer(output)
    ]


@dataclass(frozen=True)
class Kernel:
    """A built kernel: the library engines load, the program mpiexec runs, and its parameters."""

    name: str
    source: Path
    library: Path
    program: Path
    flags: tuple[str, ...]
    warnings: tuple[Diagnostic, ...] = field(default=())

    @property
    def params(self) -> dict[str, dict[str, str]]:
        """name -> {default, help}, as the program's --help lists them: read from a child, never
        by loading the library here (a student's library would run code in this process as it
        loads: an indirect function's resolver), and once per program in a process."""
        return _params_from_usage(self.program)

    def arguments(self, params: dict[str, object]) -> list[str]:
        """Check parameter names against the kernel's table; return name=value tokens."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            known = ", ".join(self.params) or "none"
            raise ValueError(
                f"kernel '{self.name}' has no parameter {', '.join(unknown)} (known: {known})"
            )
        return [f"{k}={_format(v)}" for k, v in params.items()]


_USAGE_PARAM = re.compile(r"^  (\w+)\s+(.*) \(default (.*)\)$", re.M)


@functools.lru_cache(maxsize=256)
def _params_from_usage(program: Path) -> dict[str, dict[str, str]]:
    """The parameters as the program's --help lists them (hl_usage in hl_runtime.h)."""
    usage = subprocess.run([str(program), "--help"], capture_output=True, text=True, check=False,
                           timeout=60).stdout.partition("\n\n  --thread-level")[0]  # fmt: skip
    return {m[0]: {"default": m[2], "help": m[1]} for m in _USAGE_PARAM.findall(usage)}


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def cache_dir() -> Path:
    return cache_root() / "build"


def mpicc() -> str:
    """The venv's mpicc when there is one, else the first on PATH."""
    local = venv_bin() / "mpicc"
    found = str(local) if local.exists() else shutil.which("mpicc", path=toolchain_env().get("PATH"))
    if found is None:
        raise BuildError("mpicc", ["mpicc"], "no mpicc found: run `make setup` (it installs MPICH)")
    return found


@functools.lru_cache(maxsize=4)
def _wrapper_identity(cc: str, offload: bool = False) -> str:
    """What the wrapper runs and the compiler's version, from `cc` itself: the same in a grading
    sandbox as outside, whatever PATH holds (offload: with clang behind it)."""
    env = compiler_env(offload_flags() if offload else ())
    show = subprocess.run([cc, "-show"], capture_output=True, text=True, check=False, env=env)
    version = subprocess.run(direct_command([cc, "--version"], env), capture_output=True,
                             text=True, check=False, env=env)  # fmt: skip
    return show.stdout + (version.stdout.splitlines() or [""])[0]


def available_kernels() -> list[str]:
    """The kernels of kernels_c/ and of the course's kernels folder (not NOT_KERNELS: the
    tracer, linked beside traced kernels, and the interposer engines.once preloads)."""
    return sorted({p.stem for folder in kernel_dirs() for p in folder.glob("*.c")
                   if p.name not in NOT_KERNELS})  # fmt: skip


def include_flags() -> list[str]:
    """-I of every kernel folder, the kit's first (a course header may include the kit's)."""
    return [f"-I{folder}" for folder in kernel_dirs()]


@functools.lru_cache(maxsize=4)
def _has_partitioned(cc: str) -> bool:
    probe = '#include "hybridlab.h"\n#ifdef HL_HAVE_PARTITIONED\nhl_partitioned_yes\n#endif\n'
    env = compiler_env(())
    done = subprocess.run(direct_command([cc, "-E", "-P", *include_flags(), "-x", "c", "-"], env),
                          input=probe, capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
    if done.returncode != 0:
        raise BuildError("hybridlab.h", [cc, "-E"], done.stderr[-2000:])
    return "hl_partitioned_yes" in done.stdout


def has_partitioned() -> bool:
    """Whether the MPI library the kit builds with has MPI-4 partitioned communication
    (MPI_Psend_init, MPI_Pready, ...: HL_HAVE_PARTITIONED in hybridlab.h)."""
    return _has_partitioned(mpicc())


def build(
    name: str, flags: tuple[str, ...] = (), *, trace_mpi: bool = False, archer: bool = False
) -> Kernel:
    """Build kernels_c/<name>.c, else the course's <name>.c (cached); trace_mpi=True records its
    MPI calls per thread; archer=True builds it for Archer (clang, ThreadSanitizer)."""
    source = find_kernel_file(f"{name}.c")
    if source is None:
        where = " or ".join(str(d) for d in kernel_dirs())
        raise FileNotFoundError(
            f"no kernel '{name}' in {where} (available: {', '.join(available_kernels())})"
        )
    return _build(name, source.read_text(), source, _with_trace(flags, trace_mpi, archer))


def build_source(
    name: str, code: str, flags: tuple[str, ...] = (), *, trace_mpi: bool = False,
    archer: bool = False,
) -> Kernel:
    """Build C source written in a notebook cell; errors point at <name>.c and its lines.
    trace_mpi=True records every MPI call the code makes with its thread (hybridlab.runs.compliance);
    a student's unit that would get round the recording is refused (hybridlab.kernels.unit_checks)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise ValueError(f"kernel name {name!r} must be a C identifier (letters, digits, _)")
    return _build(name, code, None, _with_trace(flags, trace_mpi, archer))


def _with_trace(flags: tuple[str, ...], trace_mpi: bool, archer: bool = False) -> tuple[str, ...]:
    return tuple(flags) + (TRACE_FLAGS if trace_mpi else ()) + (archer_tool.FLAGS if archer else ())


def _archer_present(flags: tuple[str, ...]) -> None:
    """BuildError when the flags ask for Archer and its clang, runtime or library is missing
    (compiler_env puts its clang behind the wrapper for every command of the build)."""
    if archer_tool.FLAGS[0] in flags and (reason := archer_tool.missing()):
        raise BuildError("archer", [archer_tool.COMPILER], reason + "\n")


# The first line of a student's translation unit (hybridlab.runs.student_c): the kit kernel it is linked
# with and the define that kernel is built with, e.g. "// hl-link: halo2d.c -DHL_STUDENT_OVERLAP".
LINK = re.compile(r"\A// hl-link: (\w+\.c) (-D\w+)\n")


def _included_kernels(code: str) -> list[str]:
    """The text of the kernels_c/*.c files `code` includes (`#include "halo2d.c"`) or is linked
    with (LINK)."""
    names = re.findall(r'^\s*#\s*include\s+"(\w+\.c)"', code, re.M)
    link = LINK.match(code)
    names += [link.group(1)] if link else []
    return [p.read_text() for p in map(find_kernel_file, names) if p is not None]


@functools.lru_cache(maxsize=8)
def _read_headers(signature: tuple[tuple[str, int, int], ...]) -> tuple[str, ...]:
    return tuple(Path(path).read_text() for path, _, _ in signature)


def _headers() -> tuple[str, ...]:
    """The text of kernels_c/*.h (hybridlab.h and kin), read again only when one changed."""
    stats = [(str(p), p.stat()) for d in kernel_dirs() for p in sorted(d.glob("*.h"))]
    return _read_headers(tuple((path, st.st_mtime_ns, st.st_size) for path, st in stats))


def cache_key(code: str, flags: tuple[str, ...], cc: str) -> str:
    """The build's name in the cache after its kernel's name: a digest of the source, every
    header, the flags (the link's too) and the compiler."""
    headers = [*_headers(), *_included_kernels(code)]  # a notebook's code may include a kernel
    if TRACE_FLAGS[0] in flags:  # the tracer, and the checks a student's unit passed to build
        tracer = find_kernel_file(TRACER_SOURCE)
        headers.append(tracer.read_text() if tracer else "")
        headers.append(Path(unit_checks.__file__).read_text())
    return hashlib.sha256(
        "\0".join([code, *headers, *DEFAULT_FLAGS, *flags, *_link_libs(flags), _wrapper_identity(cc, offload_target(flags) is not None)]).encode()
    ).hexdigest()[:16]


def is_current(entry: Path, keys: dict | None = None) -> bool:
    """Whether a finished build in the cache is what building its source today gives: its key
    made again from its source (kernels_c/, or the notebook code kept beside it), today's
    headers, its recorded flags and the compiler. Builds of older headers or sources are not.
    `keys`: today's keys already made, by (source, flags), shared by the calls of one look at
    the cache (a term's cache holds many builds of one kernel: one key for all of them)."""
    name, _, key = entry.name.rpartition("-")
    try:
        flags = tuple(json.loads((entry / FLAGS_FILE).read_text()))  # none: an older build
        kept, kit = entry / f"{name}.c", find_kernel_file(f"{name}.c")
        source = kept if kept.is_file() else kit
        if source is None or not source.is_file():
            return False
        made = (source.read_text(), flags)
        if keys is None or made not in keys:
            today = cache_key(made[0], flags, mpicc())
            if keys is None:
                return key == today
            keys[made] = today
        return key == keys[made]
    except (OSError, ValueError, TypeError, BuildError):
        return False


def _student_refusals(name: str, code: str, objects: dict[str, Path], cmd: list[str],
                      env: dict[str, str] | None) -> str:
    """What the student's unit (objects["unit"]) may not do, judged from its object and its
    preprocessed unit (hybridlab.kernels.unit_checks): the refusals, one per line, or ""."""
    link = LINK.match(code)
    file = unit_checks.CELL if link else f"{name}.c"
    part = (unit_checks.cell_part(link.group(1).removesuffix(".c"), objects["kit"]) if link
            else unit_checks.WHOLE_PROGRAM)  # fmt: skip
    entries = unit_checks.tracer_entries(objects["tracer"])
    found = []
    for obj in unit_checks.offload_parts(objects["unit"]):  # the host's object, the device's
        found += unit_checks.check_symbols(obj, part, entries, file)
        found += unit_checks.check_code(obj, file)
    preprocess = [f for f in cmd[: cmd.index("-c")] if not f.startswith("-fopenmp-targets=")]
    unit = code if link else f'#line 1 "{unit_checks.CELL}"\n{code}'
    found += unit_checks.preprocessed_cell(unit, preprocess, file, env)[1]
    return "\n".join(sorted({str(r) for r in found}))


def _build(name: str, code: str, source: Path | None, flags: tuple[str, ...]) -> Kernel:
    cc, env = mpicc(), compiler_env(flags)
    includes = include_flags()
    all_flags = DEFAULT_FLAGS + tuple(flags)
    target = cache_dir() / f"{name}-{cache_key(code, tuple(flags), cc)}"
    library, program = target / f"lib{name}.so", target / name
    log = target / "compiler.log"
    if _planted(target, [library, program]):
        remove_all(target)
    if not (library.exists() and program.exists()):
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=target.parent))
        src = source or work / f"{name}.c"
        if source is None:
            src.write_text(code)
        link = LINK.match(code)
        traced = TRACE_FLAGS[0] in flags
        student = traced and (link is not None or WHOLE_PROGRAM_FLAG in flags)
        objects = {"unit": work / f"{name}.o"}
        # the checks name the student's lines (-g); a switch makes no indirect jump (unit_checks)
        checked = [*unit_checks.DEBUG_FLAGS, "-fno-jump-tables"] if student else []
        compile_unit = [cc, *all_flags, *checked, *includes, "-fPIC", "-c", str(src), "-o",
                        str(objects["unit"])]  # fmt: skip
        kit_units = {}  # the kit's sources compiled beside the unit: (command, source)
        if link:  # a student's unit: the kit kernel beside it, built with the part's define
            kit_flags = [f for f in all_flags if f not in STUDENT_UNIT_FLAGS]
            kit_units["kit"] = ([cc, *kit_flags, link.group(2), *includes, "-fPIC", "-c"],
                                find_kernel_file(link.group(1)))  # fmt: skip
        if traced:  # the tracer, out of line: its own object, its symbols hidden
            sizes = [f for f in flags if f.startswith("-DHL_TRACE_MAX_")]  # its buffers' sizes
            kit_units["tracer"] = ([cc, *DEFAULT_FLAGS, *TRACER_FLAGS, *sizes, *includes, "-fPIC",
                                    "-c"], find_kernel_file(TRACER_SOURCE))  # fmt: skip
        output = ""
        _archer_present(tuple(flags))
        with progress.running(f"compile {name}"):
            output += _compile(name, compile_unit, work, env)
            for role, (cmd, kit_source) in kit_units.items():
                objects[role], said = _kit_object(name, cmd, kit_source, work, flags, env)
                output += said
            linked = [str(o) for o in objects.values()]
            refused = (_student_refusals(name, code, objects, compile_unit, env) if student else
                       unit_checks.profiling_calls(objects["unit"]) if traced else "")  # fmt: skip
            if refused:
                shutil.rmtree(work, ignore_errors=True)
                raise BuildError(name, compile_unit, refused + "\n")
            if student:
                unit_checks.move_cell_code(objects["unit"])
            # compiled once; the objects linked as the library and the program (libatomic: GCC's
            # _Atomic floating compound assignment calls its __atomic_feraiseexcept)
            libs = _link_libs(all_flags)
            for cmd in (
                [cc, *all_flags, "-shared", *linked, "-o", str(work / library.name), *libs],
                [cc, *all_flags, *linked, "-o", str(work / program.name), *libs],
            ):
                output += _compile(name, cmd, work, env)
        for obj in objects.values():
            if obj.parent == work:  # (a kept kit object stays in the cache)
                obj.unlink()
        (work / log.name).write_text(output)
        try:
            work.rename(target)  # atomic: a concurrent build of the same key simply loses
            _made[str(target)] = _digest([library, program])
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
    if not (target / FLAGS_FILE).exists():  # this build, or one made before builds recorded them
        with contextlib.suppress(OSError):  # (a cache this user cannot write: left as it is)
            (target / FLAGS_FILE).write_text(json.dumps(list(flags)))
    warnings = tuple(d for d in diagnostics(log.read_text()) if d.kind == "warning")
    return Kernel(name, source or target / f"{name}.c", library, program, all_flags, warnings)


def objects_dir() -> Path:
    """The kit's own objects (a part's kernel, the tracer), compiled once per flags."""
    return cache_root() / "objects"


def _kit_object(name: str, cmd: list[str], source: Path, work: Path, flags: tuple[str, ...],
                env: dict[str, str] | None) -> tuple[Path, str]:
    """A kit source compiled with `cmd` (up to its `-c`) for a build of `flags`: the object kept
    in the cache for every later build of the same flags that links it (the flags choose the
    compiler behind the wrapper: Archer's and offload's clang), found first among the read-only
    objects a sandbox is handed (SEEDED_OBJECTS_ENV, grading/sandbox.py), else compiled now.
    (its path, the compiler's messages: none for a kept object, whose build said them once)"""
    identity = _wrapper_identity(cmd[0], offload_target(flags) is not None)
    digest = hashlib.sha256("\0".join(
        [source.read_text(), *_headers(), *cmd[1:], "--", *flags, identity]
    ).encode()).hexdigest()[:16]  # fmt: skip
    file = f"{source.stem}-{digest}.o"
    seeded = os.environ.get(SEEDED_OBJECTS_ENV)
    for folder in ([Path(seeded)] if seeded else []) + [objects_dir()]:
        if (folder / file).is_file() and not _planted(folder / file, [folder / file]):
            return folder / file, ""
    made = work / file
    said = _compile(name, [*cmd, str(source), "-o", str(made)], work, env)
    keep_object(made)
    return made, said


def _digest(files: list[Path]) -> str:
    sha = hashlib.sha256()
    for f in files:
        sha.update(f.read_bytes())
    return sha.hexdigest()


def _planted(path: Path, files: list[Path]) -> bool:
    """In a process grading apart (APART_ENV): `files` (of the build or object at `path`) exist,
    lie on a writable mount and are not what this process made there."""
    if not os.environ.get(APART_ENV) or not all(f.exists() for f in files):
        return False
    try:
        if os.statvfs(os.path.realpath(path)).f_flag & os.ST_RDONLY:
            return False  # the sandbox's seed: nothing in the box can write there
    except OSError:
        return True
    return not made_here(path, files)


def made_here(path: Path, files: list[Path]) -> bool:
    """Whether `files` (of the build or object at `path`) are what this process made there."""
    try:
        return _made.get(str(path)) == _digest(files)
    except OSError:
        return False


def remove_all(path: str | os.PathLike) -> None:
    """`path` and everything under it gone, whatever the modes (code that planted it may have
    made its folders read-only or unreadable); a mount point stays, emptied. Errors are left unsaid: the
    caller looks for what is left."""
    path = os.fspath(path)
    if os.path.isdir(path) and not os.path.islink(path):
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        with contextlib.suppress(OSError):
            for entry in os.scandir(path):
                remove_all(entry.path)
        if not os.path.ismount(path):
            with contextlib.suppress(OSError):
                os.rmdir(path)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def keep_object(made: Path) -> None:
    """Copy a kit object (named OBJECT_NAME) into the cache for later builds; the copy appears
    whole (a concurrent one of the same name is the same object). A cache it cannot write: not."""
    with contextlib.suppress(OSError):
        objects_dir().mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".", suffix=".o", dir=objects_dir())
        os.close(fd)
        try:
            shutil.copyfile(made, part)
            os.chmod(part, 0o644)  # a sandbox's account reads it (grading/sandbox.py)
            os.rename(part, objects_dir() / made.name)
            _made[str(objects_dir() / made.name)] = _digest([objects_dir() / made.name])
        finally:
            with contextlib.suppress(FileNotFoundError):  # (renamed: gone already)
                os.unlink(part)


def _compile(name: str, cmd: list[str], work: Path, env: dict[str, str] | None = None) -> str:
    """Run one compiler command; its messages, or BuildError (the build folder removed)."""
    done = subprocess.run(direct_command(cmd, env), capture_output=True, text=True, check=False,
                          env=env)  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise BuildError(name, cmd, done.stderr)
    return done.stderr


def remove_stale_builds(min_age: float = 3600.0) -> int:
    """Remove the cached builds today's kit would never use (is_current: made from older
    headers, sources or compiler) that are at least `min_age` seconds old (a younger one may be
    a build still being made); returns how many. The cache grows with every update of the kit
    over a term; the grader reads all of it once per class."""
    cache, now, removed, keys = cache_dir(), time.time(), 0, {}
    for entry in cache.glob("*-*") if cache.is_dir() else ():
        try:
            old = now - entry.stat().st_mtime >= min_age
        except OSError:
            continue
        if old and entry.is_dir() and not is_current(entry, keys):
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def clean_cache() -> int:
    """Remove every cached build and kit object; returns how many were removed."""
    entries = [e for root in (cache_dir(), objects_dir()) if root.exists() for e in root.glob("*")]
    for entry in entries:
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return len(entries)
