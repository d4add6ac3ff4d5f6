"""Lab 15's runs: kernels_c/offload_halo.c built with clang for LLVM's host offload plugin
(kernels.build.offload_flags: devices with memory of their own on any machine), each rank's
block on device rank % devices, with the offload runtime's report (LIBOMPTARGET_INFO) summed by
the kernel from the runtime's own calls while the variant runs (no stream is read).

    status()                                    # the offload target's probe: .ready, .message
    runs = variant_runs(nx=256, ny=256, iterations=50)   # {variant: Results}
    kernel = build_student_offload(JACOBI_C)    # (b): the cell's jacobi_offload, traced
    got = run_student_offload(kernel, ranks=2, nx=40, ny=20, iterations=8)  # plain data

The student's unit is judged from its objects (host and device) before it is linked
(kernels.unit_checks: it may not name stderr, where the runtime prints), and for (b) from
its preprocessed unit and objects again (device_code_refusals, at the end: no device address on
the host, the sweep's arithmetic in target regions); what it did, from the kernel's records (the
report's bytes and launches, the grid's checksums), never its output.
"""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..kernels import llvm_ir
from ..kernels.build import (
    DEFAULT_FLAGS,
    OFFLOAD_COMPILER,
    OFFLOAD_TARGETS,
    STUDENT_UNIT_FLAGS,
    TRACE_FLAGS,
    BuildError,
    Kernel,
    build,
    cache_dir,
    compiler_env,
    include_flags,
    mpicc,
    offload_flags,
)
from ..kernels.offload import OffloadStatus, probe
from ..kernels.toolchain import toolchain_env
from ..kernels.unit_checks import CELL, DEBUG_FLAGS, Refusal, offload_parts, preprocessed_cell
from ..runs import compliance
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import build_student, student_unit, unit_flags

KERNEL = "offload_halo"
DEFINE = "HL_STUDENT_OFFLOAD"  # (b): the student's jacobi_offload (variant=student)
VARIANTS = ("resident", "remap", "stale", "host")
LEVEL = "funneled"  # MPI from the main thread, outside parallel regions
# LIBOMPTARGET_INFO's bits (LLVM 14, openmp/libomptarget/include/Debug.h): 0x01 each region
# entered with its arguments, 0x20 each copy between host and device with its size.
REPORT_ENV = {"LIBOMPTARGET_INFO": str(0x01 | 0x20)}


def status() -> OffloadStatus:
    """Whether this machine's clang builds for the host plugin's devices, and why not."""
    return probe()


def _require_offload() -> None:
    """BuildError saying what is missing where clang cannot build for the host plugin."""
    found = status()
    if not found.ready:
        raise BuildError(KERNEL, [OFFLOAD_COMPILER, *offload_flags()],
                         f"lab 15 needs an OpenMP offload target: {found.message}\n")  # fmt: skip


def kit_kernel() -> Kernel:
    """The kit's variants, built for the host plugin's devices."""
    _require_offload()
    return build(KERNEL, offload_flags())


def run_offload(kernel: Kernel, variant: str, ranks: int = 2, timeout: float = 120.0,
                **params) -> Results:  # fmt: skip
    """One run of `variant` on `ranks` x 1 thread with the runtime's report read."""
    return run_program(kernel, ranks=ranks, threads=1, thread_level=LEVEL, timeout=timeout,
                       env=REPORT_ENV, variant=variant, report=1, **params)  # fmt: skip


def variant_runs(nx: int, ny: int, iterations: int, ranks: int = 2,
                 variants: tuple[str, ...] = VARIANTS) -> dict[str, Results]:  # fmt: skip
    """The kit's variants on the same grid, one run each."""
    kernel = kit_kernel()
    return {v: run_offload(kernel, v, ranks, nx=nx, ny=ny, iterations=iterations) for v in variants}


# (b): the kit's watch on the device's copy (offload_halo.c, HL_WATCH_DEVICE): the offload
# runtime's entry points for maps, updates and launches (LLVM 14's) wrapped at link time, so that
# the kit reads the device's copy of u and unew after each and checks it unchanged before the
# next, before each MPI call and at the end: the "offload" record's host_writes, the times the
# host wrote the device's memory itself (through a device address smuggled out of a region).
_WRAPPED = tuple(f"__tgt_target{kind}_mapper" for kind in (
    "", "_nowait", "_teams", "_teams_nowait", "_data_begin", "_data_begin_nowait", "_data_end",
    "_data_end_nowait", "_data_update", "_data_update_nowait"))  # fmt: skip
# ... and what the device's code dereferences: the device object (only it) compiled with
# AddressSanitizer's instrumentation as calls (__asan_load8(address), __asan_memcpy, no shadow
# memory, no stack or globals redzones; every access instrumented, -asan-opt=0: a declare target
# scalar's and a store after a load of the same word too), which the device image, loaded by the
# host plugin, finds in the program (-rdynamic): the kit's check counts a target region's accesses
# outside the device data environment (the "offload" record's device_strays: a host grid read
# through a host address handed in) and marks what the launch's code stored (launch_writes: the
# rest of what changed during a launch in u, unew, the other mappings and declare target data).
_DEVICE = f"-Xopenmp-target={OFFLOAD_TARGETS[0]}"
DEVICE_ACCESS_FLAGS = (_DEVICE, "-fsanitize=address", "-mllvm",
                       "-asan-instrumentation-with-call-threshold=0", "-mllvm", "-asan-stack=0",
                       "-mllvm", "-asan-globals=0", "-mllvm", "-asan-opt=0",
                       "-rdynamic")  # fmt: skip
# ... and MPI's receiving calls and the completions of their requests (the tracer's calls of the
# real functions, the student's and exchange_rows' alike): each message received is read as it
# completes, for the halo rows from the neighbours (the "offload" record's halo_above, halo_below);
# a matched probe's receive from the communicator it was probed on
_RECEIVING = ("MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Irecv", "MPI_Recv_init",
              "MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Precv_init", "MPI_Mprobe",
              "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Wait", "MPI_Test", "MPI_Waitall",
              "MPI_Testall", "MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome")  # fmt: skip
WATCH_FLAGS = ("-DHL_WATCH_DEVICE", "-Wno-unused-command-line-argument",
               "-Wl,--wrap=" + ",--wrap=".join((*_WRAPPED, *_RECEIVING)),
               *DEVICE_ACCESS_FLAGS)  # fmt: skip


def build_student_offload(code: str, name: str = "student_offload") -> Kernel:
    """(b): the cell's jacobi_offload with offload_halo (variant=student), for the host plugin.
    BuildError, naming the cell's lines, for what the kit refuses in any cell and for what the
    part refuses (device_code_refusals: a device address on the host, the sweep not in
    target regions)."""
    _require_offload()
    kernel = build_student(name, KERNEL, DEFINE, code, ("jacobi_offload",),
                           (*offload_flags(), *WATCH_FLAGS))  # fmt: skip
    refused = device_code_refusals(code)
    if refused:
        raise BuildError(name, [OFFLOAD_COMPILER, *offload_flags()],
                         "\n".join(str(r) for r in refused) + "\n")  # fmt: skip
    return kernel


def run_student_offload(kernel: Kernel, ranks: int, nx: int, ny: int, iterations: int) -> dict:
    """The student's loop run on `ranks` x 1 thread: what the grader judges, as plain data (the
    "offload" records, rank 0's checksums, seconds per iteration). ThreadComplianceError for an
    MPI call FUNNELED does not allow."""
    res = run_offload(kernel, "student", ranks, timeout=60.0, nx=nx, ny=ny, iterations=iterations)
    compliance.check(res, LEVEL)
    records = res.records
    checksum = records[records["record"] == "checksum"].iloc[0]
    offload = records[records["record"] == "offload"].dropna(axis=1, how="all")
    times = records[records["record"] == "time"]
    return {
        "offload": offload.to_dict("records"),
        "checksum": float(checksum["checksum"]),
        "weighted": float(checksum["weighted"]),
        "per_iteration": float(times["per_iteration"].max()),
    }


# ------------------------------------------------------------- (b): the cell's device code
# Lab 15 (b): where the student's loop computes and how it reaches the device's memory, judged
# from what the compiler made of the cell (never its text as typed): the preprocessed unit (clang
# behind the MPI wrapper, as the offload build compiles it), the host object and the device object
# the offload bundler unbundles from it (for the host plugin's x86_64 target, real code).
#
#     refusals = device_code_refusals(JACOBI_C)   # [] for a right method; else unit_checks.Refusal
#
# The part moves the block with map clauses only (target data, target enter/exit data, target
# update), the halo exchange on the host's copy, and computes the sweep in target regions. On the
# host plugin the device's memory is host memory, so a host holding a device address computes in
# it or copies into it unseen by the offload runtime's report (which judges what moved). Refused:
#
#   unit     a use_device_ptr, use_device_addr, is_device_ptr or has_device_addr clause; a name of
#            the device-memory routines (omp_get_mapped_ptr, omp_target_alloc, omp_target_memcpy
#            and the rest of omp_target_*, but omp_target_is_present; llvm_omp_*) or of the
#            offload runtime's entry points (__tgt_*);
#   host     a reference to one of those routines, or to an offload entry point that is not a map,
#            an update or a launch; a map of the kind use_device_ptr and use_device_addr make
#            (OMP_MAP_RETURN_PARAM in the object's map types); floating-point additions and
#            multiplications in a parallel region or task of the host on a cell line where the
#            device object has no code (the sweep on the host's threads, outside every target
#            region; the host's own copy of a target region has the device's lines);
#   device   no floating-point addition or multiplication in the device object (no target region
#            computes the stencil); a call from the device object to anything but what a target
#            region needs (device_calls: the OpenMP runtime's entry points clang emits, OpenMP's
#            routines of values, the maths library's functions of values, AddressSanitizer's
#            checks): a C library routine (strtod, atof, sscanf, memcmp, strlen, printf...) does
#            its loads in a library the kit's check of the device's accesses never sees, so handed
#            a host address it reads the host's memory (a fresh attacker's target regions only
#            parsed a grid the host had swept and printed as text, with strtod).
ALLOWS = ("(b) moves the block with map clauses only (target data, target enter/exit data, "
          "target update) and computes the sweep in target regions; the host holds no device "
          "address (no use_device_ptr, use_device_addr, is_device_ptr, omp_get_mapped_ptr, "
          "omp_target_ memory routines)")  # fmt: skip
_CLAUSE = re.compile(r"^\s*#\s*pragma\s+omp\b.*?\b(use_device_ptr|use_device_addr|is_device_ptr"
                     r"|has_device_addr)\b")  # fmt: skip
# what hands the host a device address or copies past the runtime's report: by name in the unit,
# by reference in the host object
_DEVICE_MEMORY = re.compile(r"\b(omp_get_mapped_ptr|omp_target_(?!is_present\b)\w+|llvm_omp_\w+"
                            r"|__tgt_\w+)\b")  # fmt: skip
# the offload runtime's entry points clang calls for maps, updates and launches (LLVM 14 and later)
_ENTRIES = re.compile(r"__tgt_(register_requires|target(_teams)?(_nowait)?_mapper"
                      r"|target_kernel(_nowait)?|target_data_(begin|end|update)(_nowait)?_mapper"
                      r"|push_mapper_component|mapper_num_components)")  # fmt: skip
RETURN_PARAM = 0x40  # OMP_MAP_RETURN_PARAM: the device address handed back (use_device_ptr/addr)
_MAPTYPES = re.compile(r"\.L\.offload_maptypes(\.\d+)?")
# a floating-point addition or multiplication (SSE, AVX, FMA: what the stencil's sum and 0.25 * make)
_ARITHMETIC = re.compile(r"\t(v?(add|mul)[sp][sd]|v?fn?m(add|sub)\d*[sp][sd])\s")
_FUNCTION = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
_WHERE = re.compile(r"^\S+:\d+(?: \(discriminator \d+\))?$")


def _run_tool(cmd: list[str]) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=toolchain_env())
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr[-500:]}")
    return done.stdout


def _cell_line(where: str) -> int:
    match = re.search(rf"(?:^|/){CELL}:(\d+)", where)
    return int(match.group(1)) if match else 0


# What the course's toolchain (clang 14, LLVM 14's host plugin) gets wrong, said at build rather
# than met at run time: the OpenMP 5.0 `loop` construct builds but the program dies (SIGSEGV) in the
# plugin; a target construct with `nowait` runs as a task on a helper thread beside the host's
# thread and its results are wrong even without the kit (a fresh attacker's right answers
# R15_sendrecv_loop and R15_nowait_taskwait, 2026-12-05; the second reproduced by a standalone
# build, its checksum different run to run)
_LOOP = re.compile(r"^\s*#\s*pragma\s+omp\s+(?:[a-z_]+\s+)*loop\b")
_NOWAIT = re.compile(r"^\s*#\s*pragma\s+omp\s+target\b.*\bnowait\b")
TOOLCHAIN = {
    "loop": ("uses the `loop` construct, which clang 14's host offload plugin runs into a crash "
             "(SIGSEGV) with: write the sweep as `target teams distribute parallel for` (or "
             "`target parallel for`)"),
    "nowait": ("uses `nowait` on a target construct: with clang 14's host offload plugin the "
               "region runs as a task on a helper thread beside yours and its results are wrong "
               "(and another host thread may not run while a target region does); launch target "
               "regions without nowait: each returns when its work is done"),
}  # fmt: skip


def unit_refusals(lines: list[tuple[int, str]]) -> list[Refusal]:
    """The preprocessed cell's lines (cell line, text): device-address clauses and names, and
    the constructs the course's toolchain gets wrong (TOOLCHAIN)."""
    found: dict[str, Refusal] = {}  # the first line of each clause or name
    for line, text in lines:
        for key, pattern in (("loop", _LOOP), ("nowait", _NOWAIT)):
            if pattern.search(text):
                found.setdefault(f"toolchain {key}", Refusal(line, TOOLCHAIN[key]))
        clause = _CLAUSE.search(text)
        if clause and clause.group(1) not in found:
            what = ("hands the host a device address" if clause.group(1).startswith("use_")
                    else "takes a device address the host holds into a target region")  # fmt: skip
            found[clause.group(1)] = Refusal(line, f"uses {clause.group(1)}, which {what}; "
                                                   f"{ALLOWS}")  # fmt: skip
        for name in (m.group(1) for m in _DEVICE_MEMORY.finditer(text)):
            found.setdefault(name, Refusal(line, f"uses {name}, which reaches the device's "
                                                 f"memory past the runtime's maps; {ALLOWS}"))  # fmt: skip
    return list(found.values())


def map_types(obj: Path) -> list[int]:
    """Every map type of the object's constant map-type arrays (clang's .offload_maptypes)."""
    offsets = {int(m[1]): int(m[2], 16) for m in re.finditer(
        r"^\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s", _run_tool(
            ["readelf", "-S", "-W", str(obj)]), re.M)}  # fmt: skip
    data, out = obj.read_bytes(), []
    for line in _run_tool(["readelf", "-s", "-W", str(obj)]).splitlines():
        parts = line.split()
        if len(parts) == 8 and _MAPTYPES.fullmatch(parts[7]) and parts[6].isdigit():
            start = offsets.get(int(parts[6]), 0) + int(parts[1], 16)
            size = int(parts[2], 0) if parts[2].isdigit() else 0
            out += list(struct.unpack(f"<{size // 8}Q", data[start : start + size - size % 8]))
    return out


def _code_lines(obj: Path) -> tuple[set[int], list[int], list[int]]:
    """The cell lines the object has code for, those of its floating-point additions and
    multiplications, and those of the ones in OpenMP's outlined functions (parallel regions,
    tasks: clang names them .omp_*), in order."""
    lines: set[int] = set()
    arithmetic: list[int] = []
    outlined: list[int] = []
    current, function = 0, ""
    for text in _run_tool(["objdump", "-d", "-l", "--no-show-raw-insn", str(obj)]).splitlines():
        symbol = _FUNCTION.match(text)
        if symbol:
            function = symbol.group(1)
        elif _WHERE.match(text):
            current = _cell_line(text)
            if current:
                lines.add(current)
        elif _ARITHMETIC.search(text) and current:
            arithmetic.append(current)
            if function.startswith(".omp_"):
                outlined.append(current)
    return lines, arithmetic, outlined


_INLINED = re.compile(r"^inlined by (\S+?)(?: \(discriminator \d+\))? \((.+)\)$")
_LOCATION = re.compile(r"^(\S+:\d+)(?: \(discriminator \d+\))?$")
_INSTRUCTION = re.compile(r"^\s+[0-9a-f]+:\t(.*)$")
_REFERENCE = re.compile(r"<([^>+]+)(?:\+0x[0-9a-f]+)?>|R_X86_64_\w+\s+([^\s+-]+)")
_REGION = "__omp_offloading_"  # clang's host copy (fallback) of a target region


def host_serial_arithmetic(obj: Path) -> list[tuple[int, int]]:
    """The host object's floating-point additions and multiplications that the host's own code
    runs outside every target region: (cell line of the instruction, cell line of the outermost
    call site, the line to name). An instruction is inside a target region when its function or
    one it is inlined into is clang's host copy of a region (__omp_offloading_*); a function out of
    line runs on the host when nothing calls it (jacobi_offload) or a call or reference outside a
    region reaches it (a declare-target helper the host calls itself, a parallel region the host
    forks)."""
    text = _run_tool(["objdump", "-d", "-l", "--inlines", "-r", "--no-show-raw-insn", str(obj)])
    function, line, outer, frames = "", 0, 0, [""]
    arithmetic: dict[str, list[tuple[int, int]]] = {}
    refs: dict[str, set[str]] = {}  # callee -> callers' functions (from outside a region)
    referenced: set[str] = set()
    for row in text.splitlines():
        if symbol := _FUNCTION.match(row):
            function, line, outer, frames = symbol.group(1), 0, 0, [symbol.group(1)]
            arithmetic.setdefault(function, [])
        elif location := _LOCATION.match(row):
            line = outer = _cell_line(location.group(1))
            frames = [function]
        elif inlined := _INLINED.match(row):
            frames.append(inlined.group(2))
            outer = _cell_line(inlined.group(1)) or outer
        elif instruction := _INSTRUCTION.match(row):
            inside = any(f.startswith(_REGION) for f in frames)
            body = instruction.group(1)
            if not inside and line and _ARITHMETIC.search("\t" + body):
                arithmetic[function].append((line, outer or line))
            for ref in _REFERENCE.finditer(body):
                name = ref.group(1) or ref.group(2)
                if name and name != function:
                    referenced.add(name)
                    if not inside:
                        refs.setdefault(name, set()).add(function)
    run = {f for f in arithmetic if f not in referenced and not f.startswith(_REGION)}
    grew = True
    while grew:
        grew = False
        for callee, callers in refs.items():
            if callee in arithmetic and callee not in run and not callee.startswith(_REGION) \
                    and callers & run:
                run.add(callee)
                grew = True
    return [at for f in sorted(run) for at in arithmetic[f]]


# What the device object may call (the undefined names of the code the host plugin loads as the
# device's): clang's OpenMP runtime entry points (not libomp's __kmpc_atomic_* routines, which
# load through a pointer they are given), OpenMP's routines that take and return values only
# (not the affinity format's, which copy a string the device's code names; not locks), the
# maths library's functions of values (not nan, which parses a string, nor frexp, modf, remquo,
# sincos, which store through a pointer), the compiler runtime's arithmetic of values, and what
# AddressSanitizer's instrumentation as calls puts there (the watched build, WATCH_FLAGS). Every
# other routine loads or stores in code the kit's check of the device's accesses does not see.
_DEVICE_RUNTIME = re.compile(r"__kmpc_(?!atomic_)\w+|_GLOBAL_OFFSET_TABLE_|__stack_chk_fail"
                             r"|__asan_(init|version_mismatch_check_v8|handle_no_return"
                             r"|(load|store)(1|2|4|8|16|N)|mem(cpy|set|move))")  # fmt: skip
# (not the getters of what the host may set while the program runs: the default device, the
# team sizes, dynamic, nesting, active levels; nor, on the host, the setters (ICV_SETTERS): values
# of the host's reach the device through them, two doubles a launch for a fresh attacker, J15d)
_DEVICE_OMP = frozenset("""
omp_get_thread_num omp_get_num_threads omp_get_team_num omp_get_num_teams
omp_get_team_size omp_get_level omp_get_active_level omp_get_ancestor_thread_num omp_in_parallel
omp_in_final omp_is_initial_device omp_get_device_num omp_get_num_devices omp_get_initial_device
omp_get_thread_limit omp_get_num_procs
omp_get_cancellation omp_get_max_task_priority
omp_get_wtime omp_get_wtick omp_get_proc_bind
omp_get_num_places omp_get_place_num omp_get_partition_num_places omp_pause_resource
""".split())  # fmt: skip
ICV_SETTERS = re.compile(r"omp_set_(num_threads|dynamic|nested|max_active_levels|num_teams"
                         r"|teams_thread_limit|default_device|schedule)(_8_?)?_?")
_MATH = ("sqrt cbrt hypot fabs fmin fmax fma fdim floor ceil round trunc rint nearbyint lround "
         "llround lrint llrint fmod remainder copysign nextafter nexttoward exp exp2 expm1 exp10 "
         "log log2 log10 log1p logb ilogb pow sin cos tan asin acos atan atan2 sinh cosh tanh "
         "asinh acosh atanh erf erfc tgamma lgamma ldexp scalbn scalbln").split()  # fmt: skip
_DEVICE_MATH = re.compile(r"(__)?(" + "|".join(_MATH) + r")[fl]?(_finite)?"
                          r"|__(pow|mul|div)[sdxt]f[23]|__(mul|div)[sdxt]c3"
                          r"|__(u?(div|mod)ti3|fix\w+|float\w+|extend\w+|trunc\w+)")  # fmt: skip


def _device_allowed(name: str) -> bool:
    return bool(name in _DEVICE_OMP or _DEVICE_RUNTIME.fullmatch(name)
                or _DEVICE_MATH.fullmatch(name))


# x86 instructions that load or store through an operand in ways AddressSanitizer's
# instrumentation leaves unchecked (it sees the IR's loads, stores, memory intrinsics and masked
# loads; these come from target intrinsics: _mm_lddqu_si128, the gathers, maskmovdqu, the
# FP-state save and restore, ...): in the device object, with a memory operand, each is a read or
# write of memory the kit's check never sees (a fixer's, helper-f7's, gather of a host address)
_UNCHECKED = re.compile(r"\t(?:(?:rep\w*|lock|notrack|bnd)\s+)*(v?lddqu|v?p?gather\w+"
                        r"|v?p?scatter\w+|v?p?maskmov\w*|vp?expand\w+|vp?compress\w+"
                        r"|fxrstor\w*|fxsave\w*|xrstor\w*|xsave\w*|v?ldmxcsr|v?stmxcsr"
                        r"|movdir\w+|enqcmd\w*|tile(?:load|store)\w+"
                        r"|(?:movs|lods|stos|cmps|scas)[bwlq]?)\s+[^\n]*\(")  # fmt: skip


def device_calls(device: Path) -> dict[str, int]:
    """What the device object reaches outside the kit's check of its accesses -> the first cell
    line of each (0: none known): the routines it refers to that a target region may not call
    (see _device_allowed), and the instructions of _UNCHECKED (named "instruction NAME")."""
    names = {line.split()[-1].split("@")[0] for line in _run_tool(["nm", "-u", str(device)])
             .splitlines() if line.strip()}  # fmt: skip
    refused = {name: 0 for name in names if not _device_allowed(name)}
    current = 0
    for row in _run_tool(["objdump", "-d", "-l", "-r", "--no-show-raw-insn", str(device)]
                         ).splitlines():  # fmt: skip
        if location := _LOCATION.match(row):
            current = _cell_line(location.group(1)) or current
        elif _FUNCTION.match(row):
            current = 0
        elif reloc := re.match(r"^\s+[0-9a-f]+: R_\w+\s+([A-Za-z_.][\w.@]*)", row):
            name = reloc.group(1).split("@")[0]
            if name in refused and not refused[name]:
                refused[name] = current
        elif unchecked := _UNCHECKED.search(row):
            refused.setdefault(f"instruction {unchecked.group(1)}", current)
    return refused


def _first_line(lines: Sequence[tuple[int, str]], *patterns: str) -> int:
    """The cell line of the first preprocessed line matching the first pattern that any matches
    (1: none): where a refusal read from the object, which has no line of its own, points."""
    for pattern in patterns:
        for line, text in lines:
            if line and re.search(pattern, text):
                return line
    return 1


def object_refusals(host: Path, device: Path | None,
                    lines: Sequence[tuple[int, str]] = ()) -> list[Refusal]:  # fmt: skip
    """The host object's references and map types; where it computes against the device
    object's code (None: no device object, no target region compiled). `lines`: the
    preprocessed cell's, for the line each refusal names."""
    found = []
    target = _first_line(lines, r"#\s*pragma\s+omp\s+target\b", r"\bjacobi_offload\s*\(")
    names = {line.split()[-1] for line in _run_tool(["nm", "-u", str(host)]).splitlines()
             if line.strip()}  # fmt: skip
    for name in sorted(names):
        if ICV_SETTERS.fullmatch(name):
            found.append(Refusal(_first_line(lines, rf"\b{name}\b", r"\bjacobi_offload\s*\("),
                                 f"calls {name}, which sets what a target region can read back "
                                 f"(a channel to the device past the maps); {ALLOWS}"))  # fmt: skip
        if _DEVICE_MEMORY.fullmatch(name) and not _ENTRIES.fullmatch(name):
            found.append(Refusal(_first_line(lines, rf"\b{name}\b", r"\bjacobi_offload\s*\("),
                                 f"uses {name}, which reaches the device's memory past the "
                                 f"runtime's maps; {ALLOWS}"))  # fmt: skip
    if any(kind & RETURN_PARAM for kind in map_types(host)):
        found.append(Refusal(target, "maps a device address back to the host (use_device_ptr "
                                     f"or use_device_addr); {ALLOWS}"))  # fmt: skip
    device_lines, device_arithmetic, _ = _code_lines(device) if device else (set(), [], [])
    _, _, host_threads = _code_lines(host)
    if not device_arithmetic:
        found.append(Refusal(target, "computes nothing on the device: the device object holds "
                                     "no floating-point addition or multiplication (the "
                                     f"stencil's); {ALLOWS}"))  # fmt: skip
    for name, line in sorted((device_calls(device) if device else {}).items(),
                             key=lambda item: (item[1], item[0])):  # fmt: skip
        found.append(Refusal(line or _first_line(lines, rf"\b{re.escape(name)}\b",
                                                 r"#\s*pragma\s+omp\s+target\b"),
                             (f"uses the {name} in a target region: its loads and stores are "
                              "out of the kit's check of what the device's code reaches (handed "
                              "a host address, it reads the host's memory); " if
                              name.startswith("instruction ") else
                              f"calls {name} from a target region: a target region may call "
                              "only OpenMP's routines and the maths library (a C library "
                              "routine's loads are out of the kit's check of what the device's "
                              "code reaches: handed a host address, it reads the host's memory); ")
                             + ALLOWS))  # fmt: skip
    # the device's code run by the host itself (a declare-target helper the host calls on the
    # device's copy through an address smuggled out); a host's own arithmetic elsewhere (timing) is not
    serial = [(line, outer) for line, outer in host_serial_arithmetic(host) if line in device_lines]
    if serial:
        line, outer = serial[0]
        found.append(Refusal(outer, "runs the device's code on the host outside every target "
                                    f"region (the floating-point arithmetic of cell line {line}, "
                                    "which a target region also runs, called by the host's own "
                                    f"code); {ALLOWS}"))  # fmt: skip
    outside = [line for line in host_threads if line not in device_lines]
    if outside:  # (the host's copy of a target region, its fallback, has the device's lines)
        found.append(Refusal(outside[0], "computes on the host's threads: a parallel region's "
                                         "floating-point arithmetic on a line no target region "
                                         f"holds; {ALLOWS}"))  # fmt: skip
    return found


# an address made an integer (any ptrtoint, a global's address as a constant included) or an
# integer made an address (inttoptr of a value, not of a constant: MPI_STATUS_IGNORE is one), in
# the unit's unoptimised LLVM IR
_ADDRESS_CAST = re.compile(r"\bptrtoint\b|\binttoptr i\d+ %")


def _host_ir(unit: str) -> str:
    """The cell's unit as LLVM IR for the host, unoptimised (no cast folded away), with debug
    lines, as the offload build compiles it (its host part: clang writes the device's and the
    host's IR bundled); "" when it does not compile (the build says why)."""
    flags = (*DEFAULT_FLAGS, "-O0", "-g", *STUDENT_UNIT_FLAGS, *TRACE_FLAGS, *offload_flags())
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".hl-host-ir-", dir=cache_dir()) as work:
        source = Path(work) / "student_offload.c"  # a file: clang's debug info reads it back
        source.write_text(unit)
        done = subprocess.run([mpicc(), *flags, *include_flags(), "-S", "-emit-llvm", "-o", "-",
                               str(source)], capture_output=True, text=True, check=False,
                              env=compiler_env(tuple(flags)))  # fmt: skip
    if done.returncode != 0:
        return ""
    host = re.search(r"__CLANG_OFFLOAD_BUNDLE____START__ host-\S+\n(.*?)"
                     r"; __CLANG_OFFLOAD_BUNDLE____END__ host-", done.stdout, re.S)  # fmt: skip
    return host.group(1) if host else done.stdout


def address_casts(ir: str) -> list[Refusal]:
    """Where the cell's host IR (_host_ir) turns an address into an integer or an integer into
    an address, each at its cell line: a device address handed to the host as a number, through
    a mapped integer (a fresh attacker's M15b_hostsweep and M15b_leak2 took a declare-target
    array's address in a target region, read it back by `target update` and copied into it with
    the host's memcpy, where the runtime's report never sees: 6/6 kept, 2026-12-05); not a
    pointer difference."""
    located = llvm_ir.cell_lines(ir)
    differences = _pointer_differences(ir)
    found: dict[int, Refusal] = {}
    for index, row in enumerate(ir.splitlines()):
        if (row.lstrip().startswith(("declare", "!")) or not _ADDRESS_CAST.search(row)
                or index in differences):  # fmt: skip
            continue
        at = re.search(r"\d+", llvm_ir.where(row, located))
        line = int(at.group(0)) if at else 0
        found.setdefault(line, Refusal(line, "casts an address to an integer or an integer to "
                                             "an address: a device address would reach the host "
                                             f"as a number, past the maps; {ALLOWS}"))  # fmt: skip
    return list(found.values())


# a declare-target variable's entry in the offloading table (its address as the host knows it)
_VARIABLE_ENTRY = re.compile(r"^@\.omp_offloading\.entry\.(\w+) = .*?bitcast \((.+?)\* @\1 to i8\*\)",
                             re.M)  # fmt: skip


def address_variables(ir: str) -> list[Refusal]:
    """The cell's declare-target variables (the host IR's offloading entries) whose type holds an
    address (a pointer, an array or structure of them): set in a target region and read back by
    `target update from`, the device's address of declare-target memory in the host's hands with
    no cast (a fresh attacker's p15leak, the host's sweep copied there, 6/6 kept, 2026-12-05)."""
    structs = dict(re.findall(r"^(%[\w.]+) = type (.*)$", ir, re.M))

    def holds_address(ty: str, seen: frozenset = frozenset()) -> bool:
        if "*" in re.sub(r"%[\w.]+", "", ty):
            return True
        return any(name not in seen and holds_address(structs.get(name, ""), seen | {name})
                   for name in re.findall(r"%[\w.]+", ty))

    lines = {m.group(1): int(m.group(2)) for m in re.finditer(
        r'!DIGlobalVariable\(name: "(\w+)".*?line: (\d+)', ir)}  # fmt: skip
    return [Refusal(lines.get(name, 0), f"declares {name} for the device, a variable that holds "
                                        "an address: the device's addresses stay on the device; "
                                        f"{ALLOWS}")
            for name, ty in _VARIABLE_ENTRY.findall(ir) if holds_address(ty)]


def _pointer_differences(ir: str) -> set[int]:
    """The lines of an unoptimised IR (by index) holding a ptrtoint whose one use, in its
    function, is a `sub` of two of them: a pointer difference (`bottom - u`: two addresses made
    integers only to be subtracted, a fresh attacker's right answer p15pdiff lost 6/6 to the cast
    rule, 2026-12-05)."""
    rows, found, body = ir.splitlines(), set(), []
    for index, row in enumerate(rows):
        if row.startswith("define "):
            body = []
        body.append((index, row))
        if row != "}":
            continue
        casts = {m.group(1): i for i, r in body if (m := re.match(r"\s*(%[\w.]+) = ptrtoint\b", r))}
        uses: dict[str, int] = {}
        for _, r in body:
            for name in re.findall(r"%[\w.]+", r):
                uses[name] = uses.get(name, 0) + 1
        for _, r in body:
            sub = re.search(r"= sub (?:nsw |nuw )*i\d+ (%[\w.]+), (%[\w.]+)", r)
            if sub and all(n in casts and uses.get(n) == 2 for n in sub.groups()):
                found |= {casts[n] for n in sub.groups()}  # defined once, used in the sub alone
    return found


def device_code_refusals(code: str) -> list[Refusal]:
    """What the cell may not do in (b), from its preprocessed unit and its host and device
    objects (compiled here as the offload build compiles it, the kit's watch included: the
    objects judged are the ones that run, whatever the cell's #if says of HL_WATCH_DEVICE or of
    the sanitizer). A unit that does not compile gives [] (the build says why)."""
    unit = student_unit(KERNEL, DEFINE, code)
    flags = (*STUDENT_UNIT_FLAGS, *offload_flags(), *WATCH_FLAGS, *TRACE_FLAGS)
    env = compiler_env(flags)
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".hl-device-code-", dir=cache_dir()) as work:
        source, obj = Path(work) / "student_offload.c", Path(work) / "student_offload.o"
        source.write_text(unit)
        done = subprocess.run([mpicc(), *DEFAULT_FLAGS, *flags, *DEBUG_FLAGS, "-fno-jump-tables",
                               *include_flags(), "-fPIC", "-c", str(source), "-o", str(obj)],
                              capture_output=True, text=True, check=False, env=env)  # fmt: skip
        if done.returncode != 0:
            return []
        parts = offload_parts(obj)
        lines = preprocessed_cell(unit, [*unit_flags(), *(f for f in WATCH_FLAGS
                                                          if f.startswith("-D"))], env=env)[0]
        host_ir = _host_ir(unit)
        found = unit_refusals(lines) + address_casts(host_ir) + address_variables(host_ir)
        objects = object_refusals(parts[0], parts[1] if len(parts) > 1 else None, lines)
    said = {r.message for r in found}
    clause = any("hands the host a device address" in m for m in said)
    # one message per construct: the unit's, with its line, before the object's
    return found + [r for r in objects if r.message not in said
                    and not (clause and r.message.startswith("maps a device address"))]  # fmt: skip
